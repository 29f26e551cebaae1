//! The `segments` ruleset: rules/001-segments.txt.
//!
//! The clock belongs to sides: a round is ten segments, and each side's d6
//! names the segment the *other* side acts in. A battle, in the text's order
//! (each a system set of [`RulesStep`], chained once in [`plugin`]):
//!
//! 1. [`Phase::Start`] — 001 §1: surprise, once per combat; then the surprise
//!    segments, in which only the unsurprised act, one segment's action each;
//! 2. [`Phase::BeginRound`] — a new round;
//! 3. [`Phase::Declare`] — 001 §2: secret declarations, revealed together
//!    (also before each surprise segment);
//! 4. [`Phase::Initiative`] — 001 §3: a d6 per side, and the round's schedule;
//! 5. [`Phase::Resolve`] — 001 §3 and §Note about spells: segments 1 to 10,
//!    spells going off, enemies in one segment acting simultaneously, and the
//!    interrupts the text names (fleeing attacks, spears set against a charge);
//! 6. [`Phase::EndRound`] — morale (ruling `morale`) and the end of the battle.
//!
//! Segments are counted on one clock from the first surprise segment (see
//! [`Flow::clock`]), so a casting can run across rounds; spells in progress
//! are the core's [`fray_core::casting::Casting`]. Gaps the text leaves are
//! rulings in `assets/rulesets/segments.ron`; each log entry that applies one
//! cites it as `ruling <id>`.

use std::sync::Arc;

use bevy_app::App;
use bevy_ecs::prelude::*;
use fray_core::data::{LoadError, Source};
use fray_core::grid::Cell;
use fray_core::model::Roster;
pub use fray_core::model::Rostered;
use fray_core::scenario::{CombatantSpec, LoadedScenario};
use fray_core::simultaneous::Simultaneous;

pub mod ai;
mod combat;
pub mod data;
mod declare;
mod end_round;
mod initiative;
mod page;
mod resolve;
mod surprise;
pub mod view;

pub use data::{SegmentsData, Spell, SpellEffect, Template, Weapon};
pub use declare::{choices, describe, validate};
pub use resolve::Hit;

crate::ruleset::ruleset!(SegmentsData {
    id: "segments",
    name: "Segments",
    text: "001-segments.txt",
    data: "segments.ron",
    round: round,
    largest_die: 20,
    starts: ["casting <spell> [<segments left>] [at <target>]"],
});

/// A combatant's numbers, in the classic form (rulings `attack_roll`,
/// `armour_class`, `movement`), and its Dexterity bonuses (001 §1, §3).
#[derive(Component, Clone, Debug)]
pub struct Stats {
    pub level: u32,
    pub ac: i32,
    pub thac0: i32,
    pub move_cells: u32,
    pub damage_bonus: i32,
    pub missile_bonus: i32,
    pub surprise_bonus: i32,
    pub surprises_on: u32,
    pub never_surprised: bool,
    pub routines: u32,
    pub morale: i32,
}

fray_core::pool!(
    /// Ruling `hit_points`.
    HitPoints
);

/// What a combatant carries and knows.
#[derive(Component, Clone, Debug, Default)]
pub struct Kit {
    pub weapons: Vec<String>,
    pub spells: Vec<String>,
}

/// 001 §1: the segments this combatant is surprised for.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SurpriseSegments(pub u32);

/// Ruling `hit_points`: at 0 hit points or fewer.
#[derive(Component, Clone, Copy, Debug)]
pub struct Dead;

/// Left the battlefield (fled, or broke: ruling `morale`).
#[derive(Component, Clone, Copy, Debug)]
pub struct Fled;

/// The target of the spell being cast (001 §Note about spells).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpellTarget(pub Entity);

/// Has struck with a set spear this round (ruling `set_spear`).
#[derive(Component, Clone, Copy, Debug)]
pub struct SpearUsed;

/// A general action, as declared (001 §2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Attack with a weapon: close to melee and strike, or shoot.
    Attack { target: Entity, weapon: String },
    /// Charge (ruling `charge`).
    Charge { target: Entity, weapon: String },
    /// Close in or move toward a cell (ruling `movement`).
    Move { to: Cell },
    /// Cast a spell (001 §2: casters name it).
    Cast { spell: String, target: Entity },
    /// Flee from the enemy (ruling `fleeing_attack`).
    Flee,
    /// Set a spear against a charge (ruling `set_spear`).
    SetSpear { weapon: String },
    /// Hold the action to a later segment (001 §3, ruling `held_action`).
    Hold {
        until: u32,
        target: Option<Entity>,
        weapon: String,
    },
    /// Hold a spell to a later segment, and begin casting it then (001 §3,
    /// ruling `held_action`).
    HoldCast {
        until: u32,
        spell: String,
        target: Entity,
    },
    /// Do nothing.
    Wait,
    /// Go on casting a spell begun earlier (ruling `continuing_cast`).
    Casting,
}

impl Action {
    /// Whether it fits in one segment (001 §1 Surprise segments).
    pub fn fits_a_segment(&self) -> bool {
        !matches!(
            self,
            Action::Hold { .. } | Action::HoldCast { .. } | Action::SetSpear { .. }
        )
    }

    /// Whether it deals a blow with a weapon (ruling `tied_round`).
    pub fn is_blow(&self) -> bool {
        matches!(
            self,
            Action::Attack { .. }
                | Action::Charge { .. }
                | Action::Hold { .. }
                | Action::SetSpear { .. }
        )
    }
}

/// The declared action of the round (or of the surprise segment).
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct Declared(pub Action);

/// Where the battle is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Start,
    BeginRound,
    Declaring,
    Initiative,
    Resolving,
    /// Waiting for the answers to an interrupt or a caster's choice.
    Asking,
    EndRound,
    Over,
}

/// Which stretch of time the segments belong to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Period {
    /// The surprise segments before the first round (001 §1).
    Surprise,
    /// A combat round of ten segments (001 §3).
    Round,
}

/// Why a slot acts in its segment, for the tracker and the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Routine {
    First,
    /// The second attack routine (001 §3 Attack routines).
    Second,
}

/// One action waiting in the period's schedule.
#[derive(Clone, Debug)]
pub struct Slot {
    pub segment: u32,
    pub actor: Entity,
    pub action: Action,
    pub routine: Routine,
    /// Why this segment, in words ("the Orcs rolled 4").
    pub why: String,
}

/// An action waiting for decisions before it goes on.
#[derive(Clone, Debug)]
pub struct Paused {
    pub slot: Slot,
    pub held: Option<Vec<Hit>>,
    pub kind: PauseKind,
    /// Who was asked, and whether they strike (or cast).
    pub answers: Vec<(Entity, bool)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PauseKind {
    /// 001 §2 · ruling `decline_cast`: begin the declared spell or decline.
    BeginCast,
    /// Ruling `fleeing_attack`: the enemies next to a fleer may strike.
    FleeingAttacks(Vec<Entity>),
    /// Ruling `set_spear`: set spears within reach of a charger may strike.
    SetSpears(Vec<Entity>),
}

/// The state of the battle's time.
#[derive(Resource, Debug, Clone)]
pub struct Flow {
    pub stage: Stage,
    pub round: u32,
    pub period: Period,
    /// Surprise segments before the first round (the clock's offset).
    pub surprise_segments: u32,
    /// The segment being resolved (0 before the first of the period).
    pub segment: u32,
    /// The last segment of the period being resolved.
    pub last: u32,
    /// The segments of a round (001 §3: "a combat round is 10 segments
    /// long"; the data's `segments_per_round`).
    pub segments: u32,
    /// Whether the current segment's start has been resolved.
    pub opened: bool,
    /// Each side's initiative roll this round.
    pub initiative: Option<[u32; 2]>,
    /// Who still has to declare.
    pub to_declare: Vec<Entity>,
    /// Secret declarations taken, not yet revealed.
    pub hidden: Vec<(Entity, Action)>,
    /// The period's actions still to come, in order.
    pub slots: Vec<Slot>,
    /// The period's actions done (for the tracker).
    pub done: Vec<Slot>,
    /// The segment's actors still to act, and the hits of a simultaneous
    /// segment held until all have acted (001 §3 Ties).
    pub group: Simultaneous<Slot, Hit>,
    pub paused: Option<Paused>,
    /// Who has fallen dead this round, for ruling `tied_round`.
    pub fell: Vec<Entity>,
    /// Each side's number at the start, and whether it has checked morale.
    pub starting: Vec<usize>,
    pub morale_checked: Vec<bool>,
    pub roster: Roster,
}

impl Flow {
    /// The segment on the battle's one clock: surprise segments first, then
    /// a round's segments (ruling `continuing_cast`).
    pub fn clock(&self, segment: u32) -> u32 {
        match self.period {
            Period::Surprise => segment,
            Period::Round => {
                self.surprise_segments + (self.round.max(1) - 1) * self.segments + segment
            }
        }
    }

    /// When a spell in progress began: in a segment, or before the battle
    /// (a scenario's starting state).
    pub fn begun(&self, clock: u32) -> String {
        match clock {
            0 => "begun before the battle".into(),
            c => format!("begun in {}", self.segment_words(c)),
        }
    }

    /// A point on the clock in the words of the period it falls in.
    pub fn segment_words(&self, clock: u32) -> String {
        if clock <= self.surprise_segments {
            return format!("surprise segment {clock}");
        }
        let since = clock - self.surprise_segments - 1;
        let (round, segment) = (since / self.segments + 1, since % self.segments + 1);
        if round == self.round && self.period == Period::Round {
            format!("segment {segment}")
        } else {
            format!("round {round}, segment {segment}")
        }
    }
}

/// The phases, chained once, in the text's order.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Start,
    BeginRound,
    Declare,
    Initiative,
    Resolve,
    EndRound,
}

/// Adds the ruleset's phases to the step schedule.
pub fn plugin(app: &mut App) {
    fray_core::fork_state!(app,
        components: [Stats, Kit, SurpriseSegments, Dead, Fled, SpellTarget, SpearUsed, Declared, HitPoints],
        resources: [Flow, Alerted],
        set_up: [Data, ai::OtherQuery],
    );
    app.init_resource::<ai::OtherQuery>();
    crate::ruleset::stages!(app, Phase {
        Start => surprise::start_of_combat, when stage_is(Stage::Start);
        BeginRound => declare::begin_round, when stage_is(Stage::BeginRound);
        Declare => declare::take_declarations, when stage_is(Stage::Declaring);
        Initiative => initiative::roll_initiative, when stage_is(Stage::Initiative);
        Resolve => (
            resolve::take_interrupts.run_if(stage_is(Stage::Asking)),
            resolve::resolve_segments.run_if(stage_is(Stage::Resolving)),
        )
            .chain();
        EndRound => end_round::end_of_round, when stage_is(Stage::EndRound);
    });
}

/// The action names orders use.
pub const ACTIONS: &[&str] = &[
    "attack",
    "charge",
    "move",
    "cast",
    "flee",
    "set_spear",
    "hold",
    "wait",
    "decline",
    "strike",
    "let_pass",
];

/// Resolve a scenario combatant's stat block, or say where it is wrong.
fn stat_block(
    data: &SegmentsData,
    spec: &CombatantSpec,
    src: &Source,
) -> Result<(Stats, i32, Kit), LoadError> {
    let (t, _) = crate::stat_block(&data.templates, spec, src, "segments", &[])?;
    let s = Stats {
        level: t.level,
        ac: t.ac,
        thac0: t.thac0,
        move_cells: t.move_cells,
        damage_bonus: t.damage_bonus,
        missile_bonus: t.missile_bonus,
        surprise_bonus: t.surprise_bonus,
        surprises_on: t.surprises_on,
        never_surprised: t.never_surprised,
        routines: t.routines,
        morale: t.morale,
    };
    let hp = t.hp;
    let weapons = spec.weapons.clone().unwrap_or_else(|| t.weapons.clone());
    crate::ruleset::check_weapons(src, ("", &spec.name), &weapons, &data.weapons)?;
    if weapons.is_empty() {
        return Err(src.error_at(
            &spec.name,
            None,
            format!("{:?} carries no weapon", spec.name),
        ));
    }
    let spells = t.spells.clone();
    Ok((s, hp, Kit { weapons, spells }))
}

/// Check a scenario against the ruleset: two sides (ruling `two_sides`),
/// stat blocks, the `alerted` option, orders.
pub fn check_scenario(data: &SegmentsData, scenario: &LoadedScenario) -> Result<(), LoadError> {
    let s = &scenario.scenario;
    let src = &scenario.source;
    if s.sides.len() != 2 {
        return Err(src.error_at_field(
            "sides",
            "the segments ruleset plays two sides, the party and its enemies (ruling two_sides)",
        ));
    }
    let names: Vec<(&str, &str)> = s
        .combatants
        .iter()
        .map(|c| (c.name.as_str(), c.side.as_str()))
        .collect();
    for spec in &s.combatants {
        let (_, _, kit) = stat_block(data, spec, src)?;
        spell_in_progress(data, spec, &kit, src, &names)?;
        if spec.surprised {
            // 001 §1: surprise is rolled for a whole side.
            return Err(src.error_at_field_of(
                &spec.name,
                "surprised",
                "under segments surprise is rolled for each side (001 §1), not set for one combatant: leave `surprised` out, or alert the other side (options: {\"alerted\": …})",
            ));
        }
    }
    check_holds(data, scenario)?;
    if let Some(alerted) = s.options.get("alerted") {
        for name in alerted.split(',').map(str::trim) {
            if scenario.side_index(name).is_none() {
                return Err(src.error_at(
                    alerted,
                    Some("options"),
                    format!("alerted names {name:?}, which is not a side of the scenario"),
                ));
            }
        }
    }
    Ok(())
}

/// 001 §3: a scripted hold names a segment of the round, as the battle's
/// own check of the order does (declare.rs hold).
fn check_holds(data: &SegmentsData, scenario: &LoadedScenario) -> Result<(), LoadError> {
    let last = data.numbers.segments_per_round;
    for o in &scenario.scenario.orders {
        let Some(with) = o.order.with.as_deref().filter(|_| o.order.action == "hold") else {
            continue;
        };
        let segment = with.split_whitespace().next().unwrap_or_default();
        let why = match segment.parse::<u32>() {
            Ok(n) if (1..=last).contains(&n) => continue,
            Ok(n) => format!(
                "hold until segment {n}: an action can be held up to segment {last} (001 §3)"
            ),
            Err(_) => format!(
                "hold names a segment, and a weapon if not the first (with: \"8\" or \"8 shortbow\"), not {with:?}"
            ),
        };
        return Err(scenario.source.error_at(with, Some("orders"), why));
    }
    Ok(())
}

/// What a scenario may ask for: which sides are alerted; no groups, no
/// late arrivals.
const SCENARIOS: crate::ruleset::ScenarioRules = crate::ruleset::ScenarioRules {
    options: &[("alerted", &[])],
    actions: ACTIONS,
    // A hold's `with` is the segment it waits for, a cast's the spell.
    weapon_actions: &["attack", "charge", "set_spear"],
    weapons_change_hands: false,
    no_groups: Some("001 has one initiative roll per side, so no initiative groups"),
    no_arrivals: Some("001 has no late arrivals"),
    // 001 §1: the surprise segments come before the first round.
    round_zero: true,
    at_foes: &["attack", "charge"],
};

/// Spawn the scenario's combatants and the state of the battle (in a fresh
/// world, or one cleared for the next battle of a batch).
pub fn populate(
    world: &mut World,
    data: Arc<SegmentsData>,
    scenario: &LoadedScenario,
) -> Result<(), LoadError> {
    let s = &scenario.scenario;
    let mut starting = vec![0; s.sides.len()];
    let names: Vec<(&str, &str)> = s
        .combatants
        .iter()
        .map(|c| (c.name.as_str(), c.side.as_str()))
        .collect();
    let mut aims = Vec::new();
    let roster = fray_core::model::spawn_combatants(world, scenario, |spec, e| {
        let (stats, hp, kit) = stat_block(&data, spec, &scenario.source)?;
        let casting = spell_in_progress(&data, spec, &kit, &scenario.source, &names)?;
        e.insert((HitPoints::full(hp), stats, kit, SurpriseSegments(0)));
        if let Some((casting, target)) = casting {
            e.insert(casting);
            aims.extend(target.map(|t| (e.id(), t)));
        }
        starting[scenario.side_index(&spec.side).unwrap_or(0)] += 1;
        Ok(())
    })?;
    for (caster, target) in aims {
        if let Some(t) = roster.entity(&target) {
            world.entity_mut(caster).insert(SpellTarget(t));
        }
    }
    let alerted: Vec<bool> = s
        .sides
        .iter()
        .map(|side| {
            s.options
                .get("alerted")
                .is_some_and(|a| a.split(',').any(|n| n.trim() == side.name))
        })
        .collect();
    fray_core::model::set_resource(world, Alerted(alerted));
    fray_core::model::set_resource(
        world,
        Flow {
            stage: Stage::Start,
            round: 0,
            period: Period::Surprise,
            surprise_segments: 0,
            segment: 0,
            last: 0,
            segments: data.numbers.segments_per_round,
            opened: false,
            initiative: None,
            to_declare: Vec::new(),
            hidden: Vec::new(),
            slots: Vec::new(),
            done: Vec::new(),
            group: Simultaneous::default(),
            paused: None,
            morale_checked: vec![false; s.sides.len()],
            fell: Vec::new(),
            starting,
            roster,
        },
    );
    fray_core::model::set_resource(
        world,
        fray_core::casting::Spoiling {
            rule: "001 §Note about spells",
            forget: false,
            rest_of_round: false,
        },
    );
    Ok(())
}

/// A scenario's starting state `casting SPELL [N] [at TARGET]`: a spell in
/// progress (001 §Note about spells), begun before the battle opened, that
/// goes off after N more segments — its whole casting time if no N is given —
/// on TARGET, or as a spell with no target does (ruling `spell_effects`).
/// Returned with the target's name, or where the state is wrong.
fn spell_in_progress(
    data: &SegmentsData,
    spec: &CombatantSpec,
    kit: &Kit,
    src: &Source,
    names: &[(&str, &str)],
) -> Result<Option<(fray_core::casting::Casting, Option<String>)>, LoadError> {
    let Some(state) = spec.starts.iter().find(|s| s.starts_with("casting ")) else {
        return Ok(None);
    };
    let wrong = |why: String| src.error_at(state, Some(&spec.name), why);
    let (words, target) = match state.split_once(" at ") {
        Some((words, target)) => (words, Some(target.trim().to_string())),
        None => (state.as_str(), None),
    };
    let mut words = words.split_whitespace().skip(1);
    let spell = words.next().unwrap_or_default();
    let s = data
        .spells
        .get(spell)
        .filter(|_| kit.spells.iter().any(|k| k == spell))
        .ok_or_else(|| wrong(format!("{:?} knows no spell {spell:?}", spec.name)))?;
    let left = match words.next() {
        None => s.casting_time,
        Some(n) => n
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=s.casting_time).contains(n))
            .ok_or_else(|| {
                wrong(format!(
                    "{n:?} segments left: the {spell}'s casting time is {}, so 1 to {} are left",
                    s.casting_time, s.casting_time
                ))
            })?,
    };
    if let Some(extra) = words.next() {
        return Err(wrong(format!(
            "{extra:?}: write casting SPELL, then the segments left, then at TARGET"
        )));
    }
    if let Some(t) = target.as_deref() {
        let Some(&(_, side)) = names.iter().find(|(n, _)| n == &t) else {
            return Err(wrong(format!("{t:?} is not in the scenario")));
        };
        // As a declared cast is checked: a harmful spell at an enemy, a
        // helpful one at a friend (ruling spell_effects).
        let foe = side != spec.side;
        if s.harmful() != foe {
            let at = if s.harmful() { "an enemy" } else { "a friend" };
            return Err(wrong(format!(
                "{spell} is cast at {at}, and {t:?} is not one"
            )));
        }
    }
    // Going off as the last of its segments ends: at the start of the next.
    let casting = fray_core::casting::Casting {
        spell: spell.to_string(),
        began: 0,
        completes: left + 1,
    };
    Ok(Some((casting, target)))
}

/// Ruling `alerted`: the sides that make no surprise roll.
#[derive(Resource, Clone, Debug)]
pub struct Alerted(pub Vec<bool>);

/// Whether `e` can still act: fighting, not dead or gone.
pub fn able(world: &World, e: Entity) -> bool {
    world.get::<fray_core::model::Fighting>(e).is_some() && world.get::<Dead>(e).is_none()
}
