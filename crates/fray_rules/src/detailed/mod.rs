//! The `detailed_sequence` ruleset: rules/000-detailed-sequence.txt.
//!
//! A round, in the text's order (each a [`Phase`] set of [`RulesStep`]):
//!
//! 1. [`combat::combat_phase`] — 000 §1: segment after segment, the
//!    initiative goes to whoever has most active blows left, then most
//!    reactive, then most EN (000 §1.1); it takes one option (000 §1.2), an
//!    attack calling for parries from alert characters in range;
//! 2. [`noncombat::noncombat_phase`] — 000 §2: those who spent nothing in
//!    combat choose secretly and together: rest, cast, adjust armour;
//! 3. [`movement::movement_phase`] — 000 §3: everyone plots a trace in
//!    secret; the traces resolve by fractions, and whoever stops may strike a
//!    mover with blows borrowed from the next round;
//! 4. [`combat::check_end`] — ruling `unconscious`.
//!
//! Gaps the text leaves to the gamesmaster are rulings and tables in
//! `assets/rulesets/detailed_sequence.ron`; log entries that apply one cite
//! it as `ruling <id>`.

use std::sync::Arc;

use bevy_app::App;
use bevy_ecs::prelude::*;
use fray_core::data::{LoadError, Source};
use fray_core::grid::Cell;
pub use fray_core::model::Rostered;
pub use fray_core::model::{enemies, enemies_of, name};
use fray_core::scenario::{CombatantSpec, LoadedScenario};

pub mod ai;
mod combat;
pub mod data;
mod movement;
mod noncombat;
pub mod orders;
mod page;
pub mod view;

pub use data::{DetailedData, EnDie, Heft, Template, WeaponKind};

crate::ruleset::ruleset!(DetailedData {
    id: "detailed_sequence",
    name: "Detailed sequence",
    text: "000-detailed-sequence.txt",
    data: "detailed_sequence.ron",
    round: round,
    largest_die: 100,
    starts: ["fallen", "unconscious", "weapon_on_the_ground"],
});

/// A character's numbers.
#[derive(Component, Clone, Debug)]
pub struct Stats {
    pub el: i32,
    pub en_die: EnDie,
    pub st: i32,
    pub dx: i32,
    pub active: u32,
    pub reactive: u32,
    pub movement: u32,
    pub recovery: i32,
    pub armour: String,
    pub spells: Vec<String>,
}

impl Stats {
    /// The EN a phase may spend (Introduction).
    pub fn en_cap(&self) -> i32 {
        self.en_die.cap(self.el)
    }
}

fray_core::pool!(
    /// Endurance: spent on blows, lost to every hit.
    En
);

fray_core::pool!(
    /// Body: lost to critical hits.
    Bd
);

/// 000 §1 Blows: what is left of the round's blows and what was spent.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
pub struct Blows {
    pub active: u32,
    pub reactive: u32,
    /// Blows spent this round (the first is free; each costs movement).
    pub spent: u32,
    /// EN spent in the phase under way, against the cap.
    pub en_phase: i32,
    /// EN spent this round and last round (000 §2.1.1).
    pub en_round: i32,
    pub en_last_round: i32,
    /// Blows spent in the combat phase (000 §2.1: no noncombat option then).
    pub spent_in_combat: bool,
    /// Active and reactive blows borrowed from the next round (ruling
    /// `borrowed_blows`).
    pub borrowed_active: u32,
    pub borrowed_reactive: u32,
}

/// Alert or unalert (000 §Alertness).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alert(pub bool);

/// On the ground (ruling `fall`).
#[derive(Component, Clone, Copy, Debug)]
pub struct Fallen;

/// Took the Pass option since the last other option (000 §1.1.1).
#[derive(Component, Clone, Copy, Debug)]
pub struct Passed;

/// Took a noncombat option this round (000 §3: half movement).
#[derive(Component, Clone, Copy, Debug)]
pub struct Noncombat;

/// What is in hand and sheathed, and whether the armour is on.
#[derive(Component, Clone, Debug, Default)]
pub struct Hands {
    pub wielded: Vec<String>,
    pub sheathed: Vec<String>,
    pub armour_on: bool,
}

/// 000 §1.2.4: preparations of a great blow, by weapon.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
pub struct Preparation {
    pub weapons: Vec<(String, i32)>,
}

impl Preparation {
    /// Preparations made with `weapon`.
    pub fn count(&self, weapon: &str) -> i32 {
        self.weapons
            .iter()
            .find(|(w, _)| w == weapon)
            .map_or(0, |(_, n)| *n)
    }

    pub fn total(&self) -> i32 {
        self.weapons.iter().map(|(_, n)| n).sum()
    }
}

/// Ruling `unconscious`.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Condition {
    Fine,
    Unconscious,
    Dead,
}

/// What an open decision asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// 000 §1.2: the option of a character with the initiative.
    Option,
    /// 000 §1.2.5: parry `attacker`'s attack on `target`?
    Parry { attacker: Entity, target: Entity },
    /// 000 §2.1: a noncombat option, secretly.
    Noncombat,
    /// 000 §3.1: a trace, secretly.
    Trace,
    /// 000 §3.2.2: just stopped: strike a mover?
    Stopped,
}

/// Damage dealt by an option carried out with others at the same moment
/// (000 §1.1.3), held until all of them are done (ruling
/// `simultaneous_order`).
#[derive(Clone, Debug)]
pub struct HeldHit {
    pub target: Entity,
    pub damage: i32,
    pub critical: bool,
}

/// An attack waiting for its parries (000 §1.2.5).
#[derive(Clone, Debug)]
pub struct PendingAttack {
    pub attacker: Entity,
    pub target: Entity,
    pub weapon: String,
    /// Who may still be asked to parry, in order.
    pub to_ask: Vec<Entity>,
    /// Who parries, with which weapon.
    pub parries: Vec<(Entity, String)>,
}

/// One character's trace (000 §3.1).
#[derive(Clone, Debug)]
pub struct Trace {
    pub who: Entity,
    pub start: Cell,
    /// Where it stands after each step of movement: a difficult cell,
    /// costing two, is entered on the second step (ruling
    /// `trace_fractions`).
    pub path: Vec<Cell>,
    /// 000 §3.1: its length, the character's whole available movement,
    /// however short the path it takes: one that stops early stops partway
    /// along it, so every trace's fractions are the same moments.
    pub length: usize,
    /// Steps of movement taken along it.
    pub at: usize,
    /// Ruling fall: the steps at its head spent rising, still fallen, until
    /// it has taken them.
    pub rises: usize,
    /// Stop as soon as this character is within reach.
    pub stop_near: Option<Entity>,
    pub done: bool,
}

/// Where the round is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Start,
    Combat,
    Noncombat,
    Movement,
    Over,
}

/// The state of the battle.
#[derive(Resource, Debug, Clone)]
pub struct Flow {
    pub stage: Stage,
    pub round: u32,
    /// Open decisions: id, whom for, what they ask.
    pub open: Vec<(u64, Entity, Ask)>,
    /// Answers to secret decisions, held until all are in.
    pub hidden: Vec<(Entity, orders::Plan)>,
    /// Options declared together, waiting in listing order (000 §1.1.3).
    pub queue: Vec<(Entity, orders::Plan)>,
    /// Weapons used in one's own simultaneous option: they cannot parry.
    pub busy: Vec<(Entity, String)>,
    /// Options declared together are being carried out (000 §1.1.3).
    pub in_batch: bool,
    /// Their damage, landing once they are all done.
    pub held: Vec<HeldHit>,
    /// Who holds the initiative now, and why.
    pub initiative: Vec<Entity>,
    pub why: String,
    /// 000 §1.2.4: those whose thrusting weapon's or bow's preparation
    /// must go on at once, each their own (several, after options taken
    /// together).
    pub chain: Vec<Entity>,
    pub attack: Option<PendingAttack>,
    /// 000 §3.1: the round's traces, once revealed.
    pub traces: Vec<Trace>,
    /// Whether the traces were asked for, and revealed, this round.
    pub asked_traces: bool,
    pub traced: bool,
    /// Movers who just stopped and may strike (000 §3.2.2).
    pub stopped: Vec<Entity>,
    /// Weapons lying on the ground.
    pub ground: Vec<(Cell, String)>,
    pub roster: fray_core::model::Roster,
}

impl Flow {
    /// What `e` is asked, if anything.
    pub fn asked(&self, e: Entity) -> Option<(u64, Ask)> {
        self.open
            .iter()
            .find(|(_, x, _)| *x == e)
            .map(|(id, _, a)| (*id, *a))
    }
}

/// The phases of a round, chained once, in the text's order, then the
/// end-of-battle check.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    StartOfRound,
    /// 000 §1.
    Combat,
    /// 000 §2.
    Noncombat,
    /// 000 §3.
    Movement,
    EndOfBattle,
}

/// Adds the ruleset's phases to the step schedule, in the text's order.
pub fn plugin(app: &mut App) {
    fray_core::fork_state!(app,
        components: [Stats, Blows, Alert, Fallen, Passed, Noncombat, Hands, Preparation, Condition, En, Bd],
        resources: [Flow],
        set_up: [Data],
    );
    crate::ruleset::stages!(app, Phase {
        StartOfRound => combat::start_of_round, when stage_is(Stage::Start);
        Combat => combat::combat_phase, when stage_is(Stage::Combat);
        Noncombat => noncombat::noncombat_phase, when stage_is(Stage::Noncombat);
        Movement => movement::movement_phase, when stage_is(Stage::Movement);
        EndOfBattle => combat::check_end;
    });
}

fn stat_block(
    data: &DetailedData,
    spec: &CombatantSpec,
    src: &Source,
) -> Result<(Stats, i32, i32, Hands), LoadError> {
    let (t, rest) = crate::stat_block(
        &data.templates,
        spec,
        src,
        "detailed_sequence",
        &["armour_on", "en_die"],
    )?;
    let mut en_die = t.en_die;
    for (key, value) in rest.iter().filter(|(k, _)| k == "en_die") {
        en_die = EnDie::from_bonus(*value).ok_or_else(|| {
            src.error_at(
                key,
                Some(&spec.name),
                format!("\"en_die\" is the EN die's bonus per EL: 0 (AD6), 2 (AD6+2) or 4 (AD6+4), not {value}"),
            )
        })?;
    }
    let stats = Stats {
        el: t.el,
        en_die,
        st: t.st,
        dx: t.dx,
        active: t.active,
        reactive: t.reactive,
        movement: t.movement,
        recovery: t.recovery,
        armour: t.armour.clone(),
        spells: t.spells.clone(),
    };
    let (en, bd) = (t.en, t.bd);
    let armour_on = rest.iter().all(|(k, on)| k != "armour_on" || *on != 0);
    let wielded = spec.weapons.clone().unwrap_or_else(|| t.wielded.clone());
    let carried = crate::book::Stock::carried_by(&t, spec);
    crate::ruleset::check_weapons(src, ("", &spec.name), &carried, &data.weapons)?;
    Ok((
        stats,
        en,
        bd,
        Hands {
            wielded,
            sheathed: t.sheathed.clone(),
            armour_on,
        },
    ))
}

/// Check a scenario against the ruleset.
pub fn check_scenario(data: &DetailedData, scenario: &LoadedScenario) -> Result<(), LoadError> {
    for spec in &scenario.scenario.combatants {
        stat_block(data, spec, &scenario.source)?;
    }
    Ok(())
}

/// What a scenario may ask for: no options, no groups, no arrivals.
const SCENARIOS: crate::ruleset::ScenarioRules = crate::ruleset::ScenarioRules {
    options: &[],
    actions: orders::ACTIONS,
    weapon_actions: orders::WEAPON_ACTIONS,
    // 000 §1.2.3 Grab object: what was dropped, anyone within reach may pick up.
    weapons_change_hands: true,
    no_groups: Some("the detailed_sequence ruleset has no initiative rolls: blows and EN decide"),
    no_arrivals: Some("the detailed_sequence ruleset has no late arrivals"),
    round_zero: false,
    at_foes: &["attack", "drop+attack"],
};

/// Spawn the scenario's characters and the state of the battle (in a fresh
/// world, or one cleared for the next battle of a batch).
pub fn populate(
    world: &mut World,
    data: Arc<DetailedData>,
    scenario: &LoadedScenario,
) -> Result<(), LoadError> {
    let mut ground = Vec::new();
    let roster = fray_core::model::spawn_combatants(world, scenario, |spec, e| {
        let (stats, en, bd, hands) = stat_block(&data, spec, &scenario.source)?;
        let blows = Blows {
            active: stats.active,
            reactive: stats.reactive,
            ..Blows::default()
        };
        e.insert((
            En::full(en),
            Bd::full(bd),
            stats,
            hands,
            blows,
            Alert(!spec.surprised),
            Condition::Fine,
        ));
        ground.extend(starting_states(e, spec));
        Ok(())
    })?;
    fray_core::model::set_resource(
        world,
        Flow {
            stage: Stage::Start,
            round: 0,
            open: Vec::new(),
            hidden: Vec::new(),
            queue: Vec::new(),
            busy: Vec::new(),
            in_batch: false,
            held: Vec::new(),
            initiative: Vec::new(),
            why: String::new(),
            chain: Vec::new(),
            attack: None,
            traces: Vec::new(),
            asked_traces: false,
            traced: false,
            stopped: Vec::new(),
            ground,
            roster,
        },
    );
    Ok(())
}

/// One is knocked down (a stumble, the fumble or double-tens tables).
/// Ruling fall: one knocked down while still getting up in the movement
/// phase ends its movement where it lies, as one knocked down as it moves.
pub(super) fn knock_down(world: &mut World, e: Entity) {
    world.entity_mut(e).insert(Fallen);
    if let Some(mut flow) = world.get_resource_mut::<Flow>() {
        for t in flow.traces.iter_mut().filter(|t| t.who == e && !t.done) {
            t.rises = 0;
        }
    }
}

/// A scenario's starting states: fallen (ruling `fall`), unconscious
/// (ruling `unconscious`: at 0 EN), or with the weapons it would hold lying
/// on the ground in its cell, to be grabbed (000 §1.2.3): returned.
fn starting_states(e: &mut EntityWorldMut, spec: &CombatantSpec) -> Vec<(Cell, String)> {
    let mut ground = Vec::new();
    for s in &spec.starts {
        match s.as_str() {
            "fallen" => {
                e.insert(Fallen);
            }
            "unconscious" => {
                e.insert((Condition::Unconscious, Fallen));
                if let Some(mut en) = e.get_mut::<En>() {
                    en.current = 0;
                }
            }
            "weapon_on_the_ground" => {
                let held = e
                    .get_mut::<Hands>()
                    .map(|mut h| std::mem::take(&mut h.wielded))
                    .unwrap_or_default();
                ground.extend(held.into_iter().map(|w| (spec.at, w)));
            }
            _ => {}
        }
    }
    ground
}

/// Conscious (ruling `unconscious`).
pub fn up(world: &World, e: Entity) -> bool {
    world.get::<Condition>(e) == Some(&Condition::Fine)
}

/// Alert, and conscious: the unconscious heed nothing.
pub fn alert(world: &World, e: Entity) -> bool {
    up(world, e) && world.get::<Alert>(e).is_some_and(|a| a.0)
}
