//! The `declared` ruleset: rules/004-declared.txt.
//!
//! A round, in the text's order (each a system set of [`RulesStep`]):
//!
//! 1. [`Phase::Start`] — 004 §Step 1 surprise and §Step 2 base initiative, once per combat;
//! 2. [`Phase::BeginRound`] — a new round;
//! 3. [`Phase::Declare`] — 004 §Step 3: everyone not surprised declares an action,
//!    which sets its Round Initiative (base + the action's modifier);
//! 4. [`Phase::Resolve`] — 004 §Step 2: actions resolve from the lowest initiative
//!    to the highest, ties simultaneously; late arrivals join here;
//! 5. [`Phase::EndRound`] — 004 §Wound Points (the dying bleed), §Step 4 morale,
//!    §Step 5 ending combat.
//!
//! Gaps the text leaves are rulings in `assets/rulesets/declared.ron`; each
//! log entry that applies one cites it as `ruling <id>`.

use std::sync::Arc;

use bevy_app::App;
use bevy_ecs::prelude::*;
use fray_core::data::{LoadError, Source};
use fray_core::decision::{Choice, Decisions, Order};
use fray_core::dice::{Dice, DiceExpr, Roll};
use fray_core::grid::{Cell, Grid, GridGeometry};
use fray_core::log::{BattleLog, Event, Modifier};
pub use fray_core::model::Rostered;
use fray_core::model::{BattleResult, Combatant, Outcome, Side, Sides};
use fray_core::scenario::{Arrival, CombatantSpec, LoadedScenario};
use fray_core::simultaneous::Simultaneous;

pub mod ai;
mod arrivals;
pub mod data;
mod declare;
mod end_round;
mod felled;
mod page;
mod resolve;
mod start;
pub mod view;

pub(crate) use arrivals::{bring_in_arrival, next_arrival, place_arrival};
use declare::take_declarations;
pub use declare::{action_modifier, choices, describe, validate};
pub use end_round::{check_end, dying_lose_wound_points, end_of_round, morale_checks};
pub use start::{begin_round, start_of_combat};

pub use data::{DamageType, DeclarationOrder, DeclaredData, Template};

crate::ruleset::ruleset!(DeclaredData {
    id: "declared",
    name: "Declared actions",
    text: "004-declared.txt",
    data: "declared.ron",
    round: round,
    largest_die: 100,
});

/// A combatant's numbers (004 §Combat Stats), from its stat block.
#[derive(Component, Clone, Debug)]
pub struct Stats {
    pub hd: u32,
    pub strength: i32,
    pub strength_mod: i32,
    pub agility_mod: i32,
    pub insight_mod: i32,
    pub defense_bonus: i32,
    pub armour: i32,
    pub speed: u32,
    pub attack: i32,
    pub heal: i32,
    pub intimidation: i32,
    pub casting: i32,
}

fray_core::pool!(
    /// 004 §Stress: stamina, lost first.
    Stress
);

fray_core::pool!(
    /// 004 §Wound Points: bodily harm; maximum equal to Strength.
    WoundPoints
);

/// What a combatant carries.
#[derive(Component, Clone, Debug, Default)]
pub struct Kit {
    pub weapons: Vec<String>,
    pub spells: Vec<String>,
    pub items: Vec<String>,
}

/// 004 §Step 2: rolled once per combat.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct BaseInitiative(pub i32);

/// 004 §Step 1: does not act in the first round.
#[derive(Component, Clone, Copy, Debug)]
pub struct Surprised;

/// 004 §Wound Points: the states of a creature's body.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Health {
    Fine,
    /// Wound Points at 0: crawls; any other action costs 1 WP.
    Incapacitated,
    /// Below 0: one action, not both move and act; loses 1 WP each round end.
    Dying,
    /// At minus Strength.
    Dead,
}

/// 004 §Wound Points: stabilised by a Heal check.
#[derive(Component, Clone, Copy, Debug)]
pub struct Stabilised;

/// Failed a morale check (ruling `morale_failure`): flees and no longer fights.
pub use fray_core::morale::Routed;

/// Left the battlefield.
#[derive(Component, Clone, Copy, Debug)]
pub struct Fled;

/// Takes morale checks (a creature of a side marked `morale`).
#[derive(Component, Clone, Copy, Debug)]
pub struct Monster;

/// Ruling `intimidate_action`: a monster that held against an Intimidation
/// has seen through it, and cannot be intimidated again this battle.
#[derive(Component, Clone, Copy, Debug)]
pub struct SawThrough;

/// One injury: damage to Wound Points, marked with its type and amount
/// (004 §Wound Points), and the Combat Injury it caused, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Injury {
    pub cause: Harm,
    pub amount: i32,
    pub combat_injury: Option<String>,
}

/// What did an injury's damage (ruling `untyped_injuries`): a hit of its
/// damage type, or a Wound Point lost to straining, to the dying bleed or
/// to a crushed windpipe, which have none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Harm {
    Hit(DamageType),
    Strain,
    Bleeding,
    Suffocation,
}

impl Harm {
    pub fn word(self) -> &'static str {
        match self {
            Self::Hit(t) => t.word(),
            Self::Strain => "strain",
            Self::Bleeding => "bleeding",
            Self::Suffocation => "suffocation",
        }
    }
}

#[derive(Component, Clone, Debug, Default)]
pub struct Injuries(pub Vec<Injury>);

/// What Combat Injuries do in the fight (ruling `injury_effects`).
#[derive(Component, Clone, Debug, Default)]
pub struct Hurts {
    pub agility_damage: i32,
    pub strength_damage: i32,
    pub dexterity_damage: i32,
    pub half_speed: bool,
    pub prone: bool,
    pub every_other_round: bool,
    pub main_arm_useless: bool,
    pub paralysed: bool,
    pub mute: bool,
    pub suffocating: bool,
    pub concussed: bool,
}

/// What happened to a combatant this round.
#[derive(Component, Clone, Debug, Default)]
pub struct RoundState {
    pub reaction_used: bool,
    pub full_defense: bool,
    pub actions_taken: u32,
    /// How much of its Speed it has moved this round, over all its actions
    /// (004 §Speed: "only move up to a total distance equal to its speed in
    /// a single round"); a difficult cell counts twice.
    pub moved: u32,
    /// The most Wound Points lost to a single hit this round.
    pub worst_hit: i32,
    /// The best Intimidation check made against it this round.
    pub intimidated: Option<i32>,
    /// Took an action other than waiting this round.
    pub acted: bool,
    /// Acted last round (a Broken Rib allows one action per two rounds;
    /// waiting is no action).
    pub acted_last_round: bool,
    /// Whom it attacked or threw at last round, if anyone: declared then,
    /// revealed since (004 §Step 3).
    pub attacked_last_round: Option<Entity>,
    /// Fell Incapacitated or Dying this round, after it declared.
    pub fell: bool,
    /// Fell Incapacitated or Dying last round after declaring the action
    /// it takes late this round (ruling `felled_action`).
    pub late_fell: bool,
}

/// An action as declared (004 §Step 3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Attack with a weapon: + weapon speed. `defensive` is the Defensive
    /// Attack: + weapon speed + 1, and entering threat range provokes no riposte.
    Attack {
        target: Entity,
        weapon: String,
        defensive: bool,
    },
    /// Defensive Attack without attacking (+1): move only.
    Move { toward: Option<Cell> },
    /// Full defense (−1): +4 Defense, riposte when attacked, half speed.
    FullDefense { toward: Option<Cell> },
    /// Cast a spell: + spell speed.
    Cast { spell: String, target: Entity },
    /// Use a consumable item: +6.
    Consume { item: String },
    /// Throw an item: +2.
    Throw { weapon: String, target: Entity },
    /// Stabilise a Dying or Incapacitated ally (ruling `stabilise_action`).
    Stabilise { target: Entity },
    /// Intimidate a monster (ruling `intimidate_action`).
    Intimidate { target: Entity },
    /// Do nothing (ruling `wait_action`).
    Wait,
    /// A routed creature runs (ruling `morale_failure`).
    Flee,
}

/// A declared action and the Round Initiative it resolves at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declared {
    pub action: Action,
    pub initiative: i32,
}

/// What a creature has declared this round, if anything: every creature
/// keeps one, emptied as each round begins (004 §Step 2).
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
pub struct Declaration(pub Option<Declared>);

/// The action `e` has declared this round.
pub fn declared(world: &World, e: Entity) -> Option<&Declared> {
    world.get::<Declaration>(e)?.0.as_ref()
}

/// Set what `e` has declared this round (`None`: nothing).
pub(crate) fn declare(world: &mut World, e: Entity, declared: Option<Declared>) {
    match world.get_mut::<Declaration>(e) {
        Some(mut d) => d.0 = declared,
        None => {
            world.entity_mut(e).insert(Declaration(declared));
        }
    }
}

/// 004 §Step 2: a late arrival whose count had passed acts next round at
/// its missed initiative − 12, as well as at its own count.
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct LateAction {
    pub action: Action,
    pub initiative: i32,
    /// Fell Incapacitated or Dying after it declared the action, in the
    /// round it arrived (ruling `felled_action`).
    pub fell: bool,
}

/// Where the round is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Start,
    BeginRound,
    Declaring,
    Resolving,
    /// A late arrival is declaring (004 §Step 2).
    Arriving(Entity),
    EndRound,
    Over,
}

/// One action waiting in the round's initiative order.
#[derive(Clone, Debug)]
pub struct Slot {
    pub actor: Entity,
    pub initiative: i32,
    pub action: Action,
    /// The −12 action of a late arrival.
    pub late: bool,
}

/// The state of the round.
#[derive(Resource, Debug, Clone)]
pub struct Flow {
    pub stage: Stage,
    pub round: u32,
    pub declaration: DeclarationOrder,
    /// Who still has to declare this round, in order.
    pub to_declare: Vec<Entity>,
    /// Secret declarations taken but not yet revealed.
    pub hidden: Vec<(Entity, Action)>,
    /// The round's actions, lowest initiative first.
    pub queue: Vec<Slot>,
    /// The count being resolved, once resolution has begun.
    pub count: Option<i32>,
    /// What is left of the count being resolved, one action per step, and
    /// the hits of a tie held until all of it has acted.
    pub(crate) group: Simultaneous<Slot, resolve::Hit>,
    /// Arrivals still to come, in order.
    pub arrivals: Vec<Arrival>,
    /// Names of the combatants, by entity, in listing order.
    pub roster: fray_core::model::Roster,
    /// One felled since it declared, asked at its count whether it carries
    /// out its action at the cost of a Wound Point (ruling `felled_action`):
    /// the decision, who, and the answer once given.
    pub straining: Option<(u64, Entity, Option<bool>)>,
}

/// The phases of a round, chained once, in the text's order.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Start,
    BeginRound,
    Declare,
    Resolve,
    EndRound,
}

fn declaring(flow: Res<Flow>) -> bool {
    matches!(flow.stage, Stage::Declaring | Stage::Arriving(_))
}

/// Adds the ruleset's phases to the step schedule.
pub fn plugin(app: &mut App) {
    fray_core::fork_state!(app,
        components: [Stats, Kit, BaseInitiative, Surprised, Health, Stabilised, Fled, Monster, SawThrough, Injuries, Hurts, RoundState, Declaration, LateAction, InitiativeGroup, Stress, WoundPoints],
        resources: [Flow],
        set_up: [Data, ScenarioSource, resolve::RiposteQuery, ai::FoeQuery],
    );
    app.init_resource::<resolve::RiposteQuery>()
        .init_resource::<ai::FoeQuery>();
    crate::ruleset::stages!(app, Phase {
        Start => start_of_combat, when stage_is(Stage::Start);
        BeginRound => begin_round, when stage_is(Stage::BeginRound);
        Declare => take_declarations, when declaring;
        Resolve => resolve::resolve_counts, when stage_is(Stage::Resolving);
        EndRound => (dying_lose_wound_points, morale_checks, end_of_round).chain(),
            when stage_is(Stage::EndRound);
    });
}

/// Resolve a scenario combatant's stat block, or say where it is wrong.
fn stat_block(
    data: &DeclaredData,
    spec: &CombatantSpec,
    src: &Source,
) -> Result<(Stats, i32, Kit), LoadError> {
    let (t, _) = crate::stat_block(&data.templates, spec, src, "declared", &[])?;
    let stats = Stats {
        hd: t.hd,
        strength: t.strength,
        strength_mod: t.strength_mod,
        agility_mod: t.agility_mod,
        insight_mod: t.insight_mod,
        defense_bonus: t.defense_bonus,
        armour: t.armour,
        speed: t.speed,
        attack: t.attack,
        heal: t.heal,
        intimidation: t.intimidation,
        casting: t.casting,
    };
    let stress = t.stress;
    let weapons = spec.weapons.clone().unwrap_or_else(|| t.weapons.clone());
    crate::ruleset::check_weapons(src, ("", &spec.name), &weapons, &data.weapons)?;
    Ok((
        stats,
        stress.max(0),
        Kit {
            weapons,
            spells: t.spells.clone(),
            items: t.items.clone(),
        },
    ))
}

/// Check a scenario against the ruleset: templates, stats, options, orders.
pub fn check_scenario(data: &DeclaredData, scenario: &LoadedScenario) -> Result<(), LoadError> {
    let s = &scenario.scenario;
    for spec in s
        .combatants
        .iter()
        .chain(s.arrivals.iter().map(|a| &a.combatant))
    {
        stat_block(data, spec, &scenario.source)?;
    }
    shared_rolls(scenario)
}

/// 004 §Step 2: "the Referee may elect to have some monsters share a
/// single Initiative roll" — monsters "with identical stat blocks": every
/// member of an `initiative_group` is a monster (of a side that checks
/// morale) with the stat block of the group's first member.
fn shared_rolls(scenario: &LoadedScenario) -> Result<(), LoadError> {
    let s = &scenario.scenario;
    let monster = |spec: &fray_core::scenario::CombatantSpec| {
        s.sides
            .iter()
            .any(|side| side.name == spec.side && side.morale)
    };
    let block = |spec: &fray_core::scenario::CombatantSpec| {
        (
            spec.template.clone(),
            spec.set.clone(),
            spec.weapons.clone(),
        )
    };
    let mut firsts: Vec<&fray_core::scenario::CombatantSpec> = Vec::new();
    for spec in &s.combatants {
        let Some(group) = &spec.initiative_group else {
            continue;
        };
        let wrong = if !monster(spec) {
            Some(format!(
                "{:?} shares initiative group {group:?}, but only monsters share a roll (004 §Step 2): its side {:?} does not check morale",
                spec.name, spec.side
            ))
        } else if let Some(first) = firsts
            .iter()
            .find(|f| f.initiative_group.as_ref() == Some(group))
        {
            (block(first) != block(spec)).then(|| {
                format!(
                    "{:?} shares initiative group {group:?} with {:?}, but not its stat block: monsters share a roll only with identical ones (004 §Step 2)",
                    spec.name, first.name
                )
            })
        } else {
            firsts.push(spec);
            None
        };
        if let Some(message) = wrong {
            return Err(scenario.source.error_at(group, Some(&spec.name), message));
        }
    }
    Ok(())
}

/// What a scenario may ask for: the declaration order; groups and late
/// arrivals are the text's own.
const SCENARIOS: crate::ruleset::ScenarioRules = crate::ruleset::ScenarioRules {
    options: &[(
        "declaration",
        &["simultaneous", "round_robin", "agility_descending"],
    )],
    actions: ACTIONS,
    weapon_actions: &["attack", "defensive_attack", "throw"],
    weapons_change_hands: false,
    no_groups: None,
    no_arrivals: None,
    round_zero: false,
    at_foes: &["attack", "defensive_attack", "throw", "intimidate"],
};

/// The action names orders use: the declarations, then the answers of one
/// fallen since it declared (ruling `felled_action`).
pub const ACTIONS: &[&str] = &[
    "attack",
    "defensive_attack",
    "full_defense",
    "cast",
    "consumable",
    "throw",
    "stabilise",
    "intimidate",
    "wait",
    "strain",
    "lie_still",
];

/// The declarations among [`ACTIONS`].
pub const DECLARATIONS: &[&str] = ACTIONS.split_at(ACTIONS.len() - 2).0;

/// What a combatant is under 004: its numbers, Stress and Wound Points,
/// kit and state.
fn equip(
    data: &DeclaredData,
    scenario: &LoadedScenario,
    spec: &CombatantSpec,
    e: &mut EntityWorldMut,
) -> Result<(), LoadError> {
    let (stats, stress, kit) = stat_block(data, spec, &scenario.source)?;
    let side = scenario.side_index(&spec.side).unwrap_or(0);
    e.insert((
        Stress::full(stress),
        WoundPoints::full(stats.strength),
        stats,
        kit,
        Health::Fine,
        Injuries::default(),
        Hurts::default(),
        RoundState::default(),
        Declaration::default(),
    ));
    if spec.surprised {
        e.insert(Surprised);
    }
    if scenario.scenario.sides[side].morale {
        e.insert(Monster);
    }
    Ok(())
}

/// Spawn the scenario's combatants and the state of the round (in a fresh
/// world, or one cleared for the next battle of a batch).
pub fn populate(
    world: &mut World,
    data: Arc<DeclaredData>,
    scenario: &LoadedScenario,
) -> Result<(), LoadError> {
    let s = &scenario.scenario;
    let declaration = s
        .options
        .get("declaration")
        .and_then(|d| DeclarationOrder::parse(d))
        .unwrap_or(data.declaration);
    let roster = fray_core::model::spawn_combatants(world, scenario, |spec, e| {
        if let Some(group) = &spec.initiative_group {
            e.insert(InitiativeGroup(group.clone()));
        }
        equip(&data, scenario, spec, e)
    })?;
    let mut arrivals = s.arrivals.clone();
    arrivals.sort_by_key(|a| (a.round, a.after));
    fray_core::model::set_resource(
        world,
        Flow {
            stage: Stage::Start,
            round: 0,
            declaration,
            to_declare: Vec::new(),
            hidden: Vec::new(),
            queue: Vec::new(),
            count: None,
            group: Simultaneous::default(),
            arrivals,
            roster,
            straining: None,
        },
    );
    fray_core::model::set_resource(world, ScenarioSource(scenario.clone()));
    Ok(())
}

/// The scenario, kept for arrivals.
#[derive(Resource, Clone)]
pub struct ScenarioSource(pub LoadedScenario);

/// 004 §Step 2: the Referee may have identical monsters share one roll.
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct InitiativeGroup(pub String);

/// Roll a plain check die for a ruling's checks (Heal, Intimidation).
pub(crate) fn check_die(data: &DeclaredData) -> DiceExpr {
    data.ruling_numbers.check_die
}
