//! The `phases` ruleset: rules/002-phases.txt.
//!
//! A battle, in the text's order (each a [`TurnPart`] set of [`RulesStep`]):
//!
//! 1. [`start_of_combat`] — 002 §Initiative and §Surprise, once: scores, ties,
//!    and whether a Surprise Phase happens;
//! 2. [`turn::run_phase`] — 002 §Time, phases 1 to 4 of each turn (and the
//!    Surprise Phase): characters act in initiative order; attacks of
//!    opportunity, readied actions and aborts cut into the action under way;
//! 3. [`turn::post_turn`] — 002 §Time, the Post-Turn Recovery;
//! 4. [`turn::check_end`] — ruling `knocked_out`: the battle ends when one side
//!    or none is left on its feet.
//!
//! Interrupts are a stack of [`Work`]: the action under way stays below
//! whatever cuts into it, and goes on when that has resolved (002 §Interrupts).
//! Gaps the text leaves are rulings in `assets/rulesets/phases.ron`; each log
//! entry that applies one cites it as `ruling <id>`.

use std::collections::BTreeMap;
use std::sync::Arc;

use bevy_app::App;
use bevy_ecs::prelude::*;
use fray_core::data::{LoadError, Source};
use fray_core::grid::Cell;
pub use fray_core::model::Rostered;
pub use fray_core::model::{enemies, name};
use fray_core::scenario::{CombatantSpec, LoadedScenario};

pub mod ai;
pub mod data;
mod orders;
mod page;
mod start;
mod turn;
pub mod view;

pub use data::{ActionType, PhasesData, Provokes, Template};
pub use orders::{choices, validate};
pub use start::start_of_combat;

crate::ruleset::ruleset!(PhasesData {
    id: "phases",
    name: "Phases",
    text: "002-phases.txt",
    data: "phases.ron",
    round: turn,
    largest_die: 6,
});

/// A character's numbers, from its stat block.
#[derive(Component, Clone, Debug)]
pub struct Stats {
    pub cv: i32,
    pub lightning_reflexes: i32,
    pub combat_levels: i32,
    pub movement: u32,
    pub reach: u32,
    pub combat_reflexes: u32,
    pub pd: i32,
    pub con: i32,
    pub rec: i32,
    pub underwater: bool,
    pub skills: BTreeMap<String, i32>,
}

fray_core::pool!(
    /// STUN: lost to every hit; at 0 or less, unconscious (ruling `knocked_out`).
    Stun
);

fray_core::pool!(
    /// BODY: at 0 or less, down for good (ruling `knocked_out`).
    Body
);

/// Weapons carried, and the shots left in each (for weapons that have shots).
#[derive(Component, Clone, Debug, Default)]
pub struct Kit {
    pub weapons: Vec<String>,
    pub shots: Vec<u32>,
}

impl Kit {
    /// Whether the `i`-th weapon, `w`, has shots and none are left in it
    /// (it must be reloaded before it fires).
    pub fn empty(&self, i: usize, w: &data::Weapon) -> bool {
        w.shots > 0 && self.shots.get(i).copied().unwrap_or(0) == 0
    }
}

/// 002 §Initiative: the score, and where delay or ready moved the character.
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct Initiative {
    pub score: i32,
    /// "just before Gorm (readied)" once the character has been moved.
    pub moved: Option<String>,
}

/// 002 §Surprise: not aware of its opponents when combat starts.
#[derive(Component, Clone, Copy, Debug)]
pub struct Unaware;

/// Ruling `stunned`.
#[derive(Component, Clone, Copy, Debug)]
pub struct Stunned;

/// Ruling `knocked_out`.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Condition {
    Fine,
    Unconscious,
    Down,
}

/// What a character has used of the phase (002 §Normal Phase), reset each phase.
#[derive(Component, Clone, Debug, Default)]
pub struct Use {
    /// Attack and move actions taken (two at most).
    pub actions: u8,
    pub attack: bool,
    pub full_phase: bool,
    /// Moved some distance (not by the 1-hex step).
    pub moved: bool,
    pub stepped: bool,
    /// Attacks of opportunity made this phase.
    pub opportunities: u32,
    /// Movers whose leaving this character's threat already counted (002 §Combat Reflexes).
    pub left_by: Vec<Entity>,
}

/// Manoeuvres in effect until the character's next action: their OCV and
/// DCV (ruling `opportunity_manoeuvre`), Dodge and Block.
#[derive(Component, Clone, Debug, Default)]
pub struct Guard {
    pub manoeuvres: Vec<(String, i32, i32)>,
    pub dodge: bool,
    pub block: bool,
}

impl Guard {
    /// 002 §One per Phase: the worst bonus and every penalty, of the
    /// manoeuvres in effect and `extra`.
    pub fn combined(&self, extra: Option<(i32, i32)>) -> (i32, i32) {
        let all = || {
            self.manoeuvres
                .iter()
                .map(|(_, o, d)| (*o, *d))
                .chain(extra)
        };
        // The worst of the bonuses (a manoeuvre without one gives none, so
        // Haymaker's -5 DCV with Dodge's +3 gives 0 - 5 = -5) and every
        // penalty.
        let combine = |pick: fn((i32, i32)) -> i32| {
            let bonus = all().map(|a| pick(a).max(0)).min().unwrap_or(0);
            let penalties: i32 = all().map(|a| pick(a).min(0)).sum();
            bonus + penalties
        };
        (combine(|a| a.0), combine(|a| a.1))
    }
}

/// 002 §Ready: a readied strike's condition (ruling `ready_trigger`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// An enemy comes within reach.
    EntersReach,
    /// This character begins an action.
    Acts(Entity),
}

/// A delayed or readied character (002 §Delay, §Ready).
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub enum Hold {
    /// Acts immediately before `before` (or at the end of the phase) in the
    /// phase numbered `fires`.
    Delayed {
        before: Option<Entity>,
        fires: u32,
    },
    Readied {
        trigger: Trigger,
        weapon: String,
    },
}

/// 002 §Abort Consequences: gave up its action in the phase numbered here.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct AbortedAhead(pub u32);

/// Ruling `split_full_phase`: Take a Recovery begun with a move action, in
/// the phase numbered here.
#[derive(Component, Clone, Copy, Debug)]
pub struct RecoveryStarted(pub u32);

/// A turn: the character's own place in the order, or a delayed one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnKind {
    Regular,
    Delayed,
}

/// How a move treats the threats it leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveHow {
    /// Move action or full move: provokes, Acrobatics negates.
    Move,
    /// Never provokes (002 §1-Hex Step).
    Step,
    /// Draws nothing from those threatening the hex it starts in (ruling
    /// `withdraw`).
    Withdraw,
}

/// Why an attack is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttackKind {
    Action,
    Opportunity,
    /// A readied action going off, with the 1-hex step its owner chose to
    /// reach its target, if any (002 §Ready Step).
    Readied {
        step: Option<Cell>,
    },
}

/// Something under way. The top of [`Flow::stack`] is done first; an
/// interrupt is pushed above what it interrupts (002 §Interrupts).
#[derive(Clone, Debug)]
pub enum Work {
    /// A character's turn: it is asked for actions until it has none left.
    Turn {
        actor: Entity,
        kind: TurnKind,
        begun: bool,
    },
    /// Walking a path, one hex at a time.
    Move {
        actor: Entity,
        /// The path, and how far along it.
        walk: fray_core::movement::Walk,
        how: MoveHow,
        /// A move action, a full-phase move, or the step (not an action).
        kind: ActionType,
        /// Ruling `skill_check_negates`: the roll, once made.
        skill: Option<bool>,
        /// The opportunities of leaving the current hex were offered.
        offered: bool,
        /// Where the move last logged from, and the hexes walked then.
        logged_from: (Cell, usize),
    },
    /// An attack, asking the target whether it aborts first.
    Attack {
        attacker: Entity,
        target: Entity,
        manoeuvre: String,
        weapon: String,
        kind: AttackKind,
        abort_asked: bool,
    },
    /// An action that provokes in a threatened hex (002 §Distracting
    /// Actions): its opportunities are offered, then it happens.
    Provoking { actor: Entity, action: String },
    /// Reload `weapon`, once the opportunities it gave have resolved.
    Reload { actor: Entity, weapon: usize },
    /// Ask `threatener` whether it takes its attack of opportunity.
    Opportunity { threatener: Entity, mover: Entity },
    /// Ask `readier` whether it takes the action it readied, its condition
    /// met by `by` (002 §Ready: "you may take the readied action").
    Readied {
        readier: Entity,
        by: Entity,
        asked: bool,
    },
    /// An order held back while the strikes readied for it resolve.
    Perform { actor: Entity, plan: orders::Plan },
    /// The Recovery from being Stunned that begins a turn, held back while
    /// the strikes readied for it resolve (ruling `ready_trigger`); the
    /// turn goes on after it.
    Recover { actor: Entity, kind: TurnKind },
}

/// What the open decision asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Asking {
    Turn,
    Opportunity {
        mover: Entity,
    },
    Abort {
        attacker: Entity,
    },
    /// Whether to take the readied action now, `by` having met its condition.
    Readied {
        by: Entity,
    },
}

/// Where the battle is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Start,
    Phase,
    PostTurn,
    Over,
}

/// The state of the battle.
#[derive(Resource, Debug, Clone)]
pub struct Flow {
    pub stage: Stage,
    pub turn: u32,
    /// 0 for the Surprise Phase, then 1 to 4.
    pub phase: u32,
    /// 002 §Restricted Phase: one attack or move action only.
    pub restricted: bool,
    /// 002 §Initiative: everyone, highest first, as moved by delay and ready.
    pub order: Vec<Entity>,
    /// Who has had its place in the order this phase.
    pub done: Vec<Entity>,
    /// Who gave up this phase's action by aborting before its place
    /// (002 §Abort): the place is still in the order, for one delaying to
    /// act just before it, but nobody acts at it.
    pub gave_up: Vec<Entity>,
    pub stack: Vec<Work>,
    /// The open decision: its id, whom it is for and what it asks.
    pub asking: Option<(u64, Entity, Asking)>,
    /// Ruling `darkness`: no 1-hex steps.
    pub darkness: bool,
    /// Names of the characters, by entity, in listing order.
    pub roster: fray_core::model::Roster,
    /// Somebody has made an attack this phase.
    pub struck: bool,
    /// Phases in a row that ended with no attack made: the AI's measure of a
    /// standoff.
    pub quiet_phases: u32,
}

/// The phase numbers a turn has room for in [`Flow::phase_index`]: the
/// Surprise Phase and the most phases a turn may have (`phases_per_turn`,
/// 12 at most).
const PHASE_NUMBERS: u32 = 13;

impl Flow {
    /// Whether `e` has no action left at its place this phase: it has had
    /// its place, or gave up its action by aborting.
    pub fn acted(&self, e: Entity) -> bool {
        self.done.contains(&e) || self.gave_up.contains(&e)
    }

    /// A number for each phase, in order: turn × 13 + phase (the Surprise
    /// Phase, 0, then up to the 12 phases a turn may have).
    pub fn phase_index(&self) -> u32 {
        self.turn * PHASE_NUMBERS + self.phase
    }

    /// The number of the phase after this one.
    pub fn next_phase_index(&self, phases_per_turn: u32) -> u32 {
        if self.phase >= phases_per_turn {
            (self.turn + 1) * PHASE_NUMBERS + 1
        } else {
            self.phase_index() + 1
        }
    }

    /// "phase 2" or "Surprise Phase".
    pub fn phase_words(&self) -> String {
        if self.phase == 0 {
            "Surprise Phase".into()
        } else {
            format!("phase {}", self.phase)
        }
    }
}

/// The parts of a battle, chained once, in the text's order. Within a
/// phase, interrupts nest (an attack of opportunity cuts into a move that
/// is part of a turn), so [`TurnPart::Phases`] works through a stack of
/// [`Work`] rather than a set per action.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TurnPart {
    /// 002 §Initiative and §Surprise, once.
    Start,
    /// 002 §Time: the phases of a turn (and the Surprise Phase).
    Phases,
    /// 002 §Time: the Post-Turn Recovery.
    PostTurn,
    /// Ruling `knocked_out`.
    EndOfBattle,
}

/// Adds the ruleset's parts of a battle to the step schedule, in the text's order.
pub fn plugin(app: &mut App) {
    fray_core::fork_state!(app,
        components: [Stats, Kit, Initiative, Unaware, Stunned, Condition, Use, Guard, Hold, AbortedAhead, RecoveryStarted, Stun, Body],
        resources: [Flow],
        set_up: [Data],
    );
    crate::ruleset::stages!(app, TurnPart {
        Start => start_of_combat, when stage_is(Stage::Start);
        Phases => turn::run_phase, when stage_is(Stage::Phase);
        PostTurn => turn::post_turn, when stage_is(Stage::PostTurn);
        EndOfBattle => turn::check_end;
    });
}

/// What a scenario may `set` besides the stat block's own numbers: being
/// underwater (ruling `underwater`), and the skills the rulings roll.
const OUTSIDE_BLOCK: &[&str] = &["underwater", "acrobatics", "fast_draw"];

/// Resolve a scenario character's stat block, or say where it is wrong.
fn stat_block(
    data: &PhasesData,
    spec: &CombatantSpec,
    src: &Source,
) -> Result<(Stats, i32, i32, Kit), LoadError> {
    let (t, rest) = crate::stat_block(&data.templates, spec, src, "phases", OUTSIDE_BLOCK)?;
    let mut stats = Stats {
        cv: t.cv,
        lightning_reflexes: t.lightning_reflexes,
        combat_levels: t.combat_levels,
        movement: t.movement,
        reach: t.reach.unwrap_or(data.numbers.reach),
        combat_reflexes: t.combat_reflexes,
        pd: t.pd,
        con: t.con,
        rec: t.rec,
        underwater: false,
        skills: t.skills.clone(),
    };
    for (key, value) in rest {
        match key.as_str() {
            "underwater" => stats.underwater = value != 0,
            _ => {
                stats.skills.insert(key, value);
            }
        }
    }
    let (stun, body) = (t.stun, t.body);
    let weapons = spec.weapons.clone().unwrap_or_else(|| t.weapons.clone());
    if weapons.is_empty() {
        return Err(src.error_at(
            &spec.name,
            None,
            format!("{:?} carries no weapon (fists are a weapon)", spec.name),
        ));
    }
    crate::ruleset::check_weapons(src, ("", &spec.name), &weapons, &data.weapons)?;
    let shots = weapons.iter().map(|w| data.weapons[w].shots).collect();
    Ok((stats, stun, body, Kit { weapons, shots }))
}

/// Check a scenario against the ruleset: stat blocks, options, orders.
pub fn check_scenario(data: &PhasesData, scenario: &LoadedScenario) -> Result<(), LoadError> {
    for spec in &scenario.scenario.combatants {
        stat_block(data, spec, &scenario.source)?;
    }
    Ok(())
}

/// What a scenario may ask for: darkness, and no groups or arrivals.
const SCENARIOS: crate::ruleset::ScenarioRules = crate::ruleset::ScenarioRules {
    options: &[("darkness", &["true", "false"])],
    actions: data::ACTIONS,
    weapon_actions: &["strike", "haymaker", "shoot", "reload", "ready"],
    weapons_change_hands: false,
    no_groups: Some(
        "the phases ruleset has no shared initiative rolls: scores come from Combat Value",
    ),
    no_arrivals: Some(
        "the phases ruleset has no late arrivals: rules/002 does not say when newcomers act",
    ),
    round_zero: false,
    at_foes: &["strike", "haymaker", "shoot"],
};

/// Spawn the scenario's characters and the state of the battle (in a fresh
/// world, or one cleared for the next battle of a batch).
pub fn populate(
    world: &mut World,
    data: Arc<PhasesData>,
    scenario: &LoadedScenario,
) -> Result<(), LoadError> {
    let s = &scenario.scenario;
    let roster = fray_core::model::spawn_combatants(world, scenario, |spec, e| {
        let (stats, stun, body, kit) = stat_block(&data, spec, &scenario.source)?;
        e.insert((
            Stun::full(stun),
            Body::full(body),
            stats,
            kit,
            Condition::Fine,
            Use::default(),
            Guard::default(),
        ));
        if spec.surprised {
            e.insert(Unaware);
        }
        Ok(())
    })?;
    fray_core::model::set_resource(
        world,
        Flow {
            stage: Stage::Start,
            turn: 0,
            phase: 0,
            restricted: false,
            order: Vec::new(),
            done: Vec::new(),
            gave_up: Vec::new(),
            stack: Vec::new(),
            asking: None,
            darkness: s.options.get("darkness").is_some_and(|d| d == "true"),
            roster,
            struck: false,
            quiet_phases: 0,
        },
    );
    Ok(())
}

/// Whether `e` is conscious and on its feet.
pub fn up(world: &World, e: Entity) -> bool {
    world.get::<Condition>(e) == Some(&Condition::Fine)
}
