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
use fray_core::battle::RulesStep;
use fray_core::data::{LoadError, Source};
use fray_core::decision::{Choice, Decision, Decisions, Order};
use fray_core::dice::{Dice, DiceExpr, Roll};
use fray_core::grid::{Cell, Grid, GridGeometry};
use fray_core::log::{BattleLog, Check, Event, Modifier};
use fray_core::model::{BattleResult, Combatant, Fighting, Outcome, RoundCap, Side, Sides};
use fray_core::scenario::{Arrival, CombatantSpec, LoadedScenario};

pub mod ai;
pub mod data;
mod resolve;
pub mod view;

pub use data::{DamageType, DeclarationOrder, DeclaredData, Template};

/// The ruleset's data, shared by every battle of a batch.
#[derive(Resource, Clone)]
pub struct Data(pub Arc<DeclaredData>);

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

/// 004 §Stress: stamina, lost first.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stress {
    pub current: i32,
    pub max: i32,
}

/// 004 §Wound Points: bodily harm; maximum equal to Strength.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct WoundPoints {
    pub current: i32,
    pub max: i32,
}

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
#[derive(Component, Clone, Copy, Debug)]
pub struct Routed;

/// Left the battlefield.
#[derive(Component, Clone, Copy, Debug)]
pub struct Fled;

/// Takes morale checks (a creature of a side marked `morale`).
#[derive(Component, Clone, Copy, Debug)]
pub struct Monster;

/// One injury: damage to Wound Points, marked with its type and amount
/// (004 §Wound Points), and the Combat Injury it caused, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Injury {
    pub damage_type: DamageType,
    pub amount: i32,
    pub combat_injury: Option<String>,
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
    /// The most Wound Points lost to a single hit this round.
    pub worst_hit: i32,
    /// The best Intimidation check made against it this round.
    pub intimidated: Option<i32>,
    /// Acted last round (a Broken Rib allows one action per two rounds).
    pub acted_last_round: bool,
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
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct Declared {
    pub action: Action,
    pub initiative: i32,
}

/// 004 §Step 2: a late arrival whose count had passed acts next round at
/// its missed initiative − 12, as well as at its own count.
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct LateAction {
    pub action: Action,
    pub initiative: i32,
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
#[derive(Resource, Debug)]
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
    /// Arrivals still to come, in order.
    pub arrivals: Vec<Arrival>,
    /// Names of the combatants, by entity, in listing order.
    pub roster: Vec<(Entity, String)>,
}

impl Flow {
    pub fn entity(&self, name: &str) -> Option<Entity> {
        self.roster.iter().find(|(_, n)| n == name).map(|(e, _)| *e)
    }

    pub fn name(&self, e: Entity) -> &str {
        self.roster
            .iter()
            .find(|(x, _)| *x == e)
            .map_or("?", |(_, n)| n.as_str())
    }
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

fn stage_is(stage: Stage) -> impl Fn(Res<Flow>) -> bool {
    move |flow: Res<Flow>| flow.stage == stage
}

fn declaring(flow: Res<Flow>) -> bool {
    matches!(flow.stage, Stage::Declaring | Stage::Arriving(_))
}

/// Adds the ruleset's phases to the step schedule.
pub fn plugin(app: &mut App) {
    app.configure_sets(
        RulesStep,
        (
            Phase::Start,
            Phase::BeginRound,
            Phase::Declare,
            Phase::Resolve,
            Phase::EndRound,
        )
            .chain(),
    )
    .add_systems(
        RulesStep,
        (
            start_of_combat
                .in_set(Phase::Start)
                .run_if(stage_is(Stage::Start)),
            begin_round
                .in_set(Phase::BeginRound)
                .run_if(stage_is(Stage::BeginRound)),
            take_declarations.in_set(Phase::Declare).run_if(declaring),
            resolve::resolve_counts
                .in_set(Phase::Resolve)
                .run_if(stage_is(Stage::Resolving)),
            (dying_lose_wound_points, morale_checks, end_of_round)
                .chain()
                .in_set(Phase::EndRound)
                .run_if(stage_is(Stage::EndRound)),
        ),
    );
}

/// Load the data file's text.
pub fn load_data(source: &Source) -> Result<DeclaredData, LoadError> {
    DeclaredData::load(source)
}

/// Resolve a scenario combatant's stat block, or say where it is wrong.
fn stat_block(
    data: &DeclaredData,
    spec: &CombatantSpec,
    src: &Source,
) -> Result<(Stats, i32, Kit), LoadError> {
    let t = data.templates.get(&spec.template).ok_or_else(|| {
        let known: Vec<&str> = data.templates.keys().map(String::as_str).collect();
        src.error_at(
            &spec.template,
            Some(&spec.name),
            format!(
                "{:?} uses template {:?}, which the declared ruleset does not have (it has {})",
                spec.name,
                spec.template,
                known.join(", ")
            ),
        )
    })?;
    let mut stats = Stats {
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
    let mut stress = t.stress;
    for (key, &value) in &spec.set {
        let slot: &mut i32 = match key.as_str() {
            "strength" => &mut stats.strength,
            "strength_mod" => &mut stats.strength_mod,
            "agility_mod" => &mut stats.agility_mod,
            "insight_mod" => &mut stats.insight_mod,
            "defense_bonus" => &mut stats.defense_bonus,
            "armour" => &mut stats.armour,
            "attack" => &mut stats.attack,
            "heal" => &mut stats.heal,
            "intimidation" => &mut stats.intimidation,
            "casting" => &mut stats.casting,
            "stress" => &mut stress,
            "speed" => {
                stats.speed = value.max(0) as u32;
                continue;
            }
            "hd" => {
                stats.hd = value.max(0) as u32;
                continue;
            }
            _ => {
                return Err(src.error_at(
                    key,
                    Some(&spec.name),
                    format!(
                        "{key:?} is not a stat of the declared ruleset (stats: strength, strength_mod, agility_mod, insight_mod, hd, stress, defense_bonus, armour, speed, attack, heal, intimidation, casting)"
                    ),
                ));
            }
        };
        *slot = value;
    }
    if stats.strength < 1 {
        return Err(src.error_at(
            &spec.name,
            None,
            format!("{:?} needs a Strength of at least 1", spec.name),
        ));
    }
    let weapons = spec.weapons.clone().unwrap_or_else(|| t.weapons.clone());
    for w in &weapons {
        if !data.weapons.contains_key(w) {
            return Err(src.error_at(
                w,
                Some(&spec.name),
                format!("{:?} carries unknown weapon {w:?}", spec.name),
            ));
        }
    }
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
    let src = &scenario.source;
    for spec in s
        .combatants
        .iter()
        .chain(s.arrivals.iter().map(|a| &a.combatant))
    {
        stat_block(data, spec, src)?;
    }
    for (key, value) in &s.options {
        match key.as_str() {
            "declaration" => {
                if DeclarationOrder::parse(value).is_none() {
                    return Err(src.error_at(
                        value,
                        Some("options"),
                        format!("declaration {value:?} is not one of simultaneous, round_robin, agility_descending"),
                    ));
                }
            }
            _ => {
                return Err(src.error_at(
                    key,
                    Some("options"),
                    format!("the declared ruleset has no option {key:?} (it has: declaration)"),
                ));
            }
        }
    }
    for o in &s.orders {
        if !ACTIONS.contains(&o.order.action.as_str()) {
            return Err(src.error_at(
                &o.order.action,
                Some("orders"),
                format!(
                    "unknown action {:?} (actions: {})",
                    o.order.action,
                    ACTIONS.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// The action names orders use.
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
];

/// Spawn one combatant.
fn spawn_combatant(
    world: &mut World,
    data: &DeclaredData,
    scenario: &LoadedScenario,
    spec: &CombatantSpec,
    listing: u32,
) -> Result<Entity, LoadError> {
    let (stats, stress, kit) = stat_block(data, spec, &scenario.source)?;
    let side = scenario.side_index(&spec.side).unwrap_or(0);
    let monster = scenario.scenario.sides[side].morale;
    let mut e = world.spawn((
        Combatant {
            name: spec.name.clone(),
            listing,
        },
        Side(side),
        spec.at,
        Fighting,
        Stress {
            current: stress,
            max: stress,
        },
        WoundPoints {
            current: stats.strength,
            max: stats.strength,
        },
        stats,
        kit,
        Health::Fine,
        Injuries::default(),
        Hurts::default(),
        RoundState::default(),
    ));
    if spec.surprised {
        e.insert(Surprised);
    }
    if monster {
        e.insert(Monster);
    }
    Ok(e.id())
}

/// Build the battle's world: grid, sides, combatants, flow.
pub fn setup(
    app: &mut App,
    data: Arc<DeclaredData>,
    scenario: &LoadedScenario,
) -> Result<(), LoadError> {
    populate(app.world_mut(), data, scenario)?;
    app.add_plugins(plugin);
    Ok(())
}

/// Fill a world (fresh, or cleared for the next battle of a batch) with the
/// scenario: grid, sides, combatants and the state of the round.
pub fn populate(
    world: &mut World,
    data: Arc<DeclaredData>,
    scenario: &LoadedScenario,
) -> Result<(), LoadError> {
    check_scenario(&data, scenario)?;
    let s = &scenario.scenario;
    let declaration = s
        .options
        .get("declaration")
        .and_then(|d| DeclarationOrder::parse(d))
        .unwrap_or(data.declaration);
    fray_core::model::set_resource(world, scenario.grid());
    fray_core::model::set_resource(
        world,
        Sides(
            s.sides
                .iter()
                .map(|side| fray_core::model::SideInfo {
                    name: side.name.clone(),
                    seat: side.seat,
                    morale: side.morale,
                })
                .collect(),
        ),
    );
    fray_core::model::set_resource(world, RoundCap(s.round_cap));
    let mut roster = Vec::new();
    for (i, spec) in s.combatants.iter().enumerate() {
        let e = spawn_combatant(world, &data, scenario, spec, i as u32)?;
        if let Some(group) = &spec.initiative_group {
            world.entity_mut(e).insert(InitiativeGroup(group.clone()));
        }
        roster.push((e, spec.name.clone()));
    }
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
            arrivals,
            roster,
        },
    );
    fray_core::model::set_resource(world, view::VIEW);
    fray_core::model::set_resource(world, ai::HOOKS);
    fray_core::model::set_resource(world, Data(data));
    fray_core::model::set_resource(world, ScenarioSource(scenario.clone()));
    Ok(())
}

/// The scenario, kept for arrivals.
#[derive(Resource, Clone)]
pub struct ScenarioSource(pub LoadedScenario);

/// 004 §Step 2: the Referee may have identical monsters share one roll.
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct InitiativeGroup(pub String);

/// Every combatant, arrivals included, in listing order. Rules iterate this
/// rather than queries so that the order never depends on how the world
/// stores its entities.
pub fn roster(world: &World) -> Vec<Entity> {
    world
        .resource::<Flow>()
        .roster
        .iter()
        .map(|(e, _)| *e)
        .collect()
}

/// Current round of a battle under this ruleset.
pub fn round(world: &World) -> u32 {
    world.get_resource::<Flow>().map_or(0, |f| f.round)
}

// ---------------------------------------------------------------------------
// 004 §Step 1 and §Step 2: surprise and base initiative.

/// Roll a base initiative: d12 minus the Agility modifier (004 §Step 2).
fn roll_base_initiative(
    dice: &mut Dice,
    data: &DeclaredData,
    name: &str,
    agility_mod: i32,
) -> (i32, Roll) {
    let roll = dice.roll(
        data.numbers.initiative_die,
        format!("{name}'s base initiative"),
    );
    (roll.total - agility_mod, roll)
}

fn initiative_sentence(name: &str, roll: &Roll, agility_mod: i32, base: i32) -> String {
    let sign = if agility_mod >= 0 { "−" } else { "+" };
    format!(
        "{name} rolls base initiative {} {sign} {} (Agility) = {base}.",
        roll.total,
        agility_mod.abs()
    )
}

/// 004 §Step 1 (surprise) and §Step 2 (base initiative, once per combat;
/// shared rolls for a group of identical monsters).
pub fn start_of_combat(
    mut flow: ResMut<Flow>,
    mut dice: ResMut<Dice>,
    mut log: ResMut<BattleLog>,
    data: Res<Data>,
    mut commands: Commands,
    q: Query<(
        Entity,
        &Combatant,
        &Stats,
        Option<&InitiativeGroup>,
        Has<Surprised>,
    )>,
) {
    let mut all: Vec<_> = q.iter().collect();
    all.sort_by_key(|(_, c, ..)| c.listing);
    log.push(Event::new(
        "combat",
        "004 §Combat Procedure",
        format!("Combat begins: {} combatants.", all.len()),
    ));
    for (_, c, _, _, surprised) in &all {
        if *surprised {
            log.push(
                Event::new(
                    "surprise",
                    "004 §Step 1",
                    format!(
                        "{} is surprised: it rolls initiative but does not act in the first round.",
                        c.name
                    ),
                )
                .actor(&c.name),
            );
        }
    }
    let mut shared: Vec<(String, i32)> = Vec::new();
    for (e, c, stats, group, _) in all {
        if let Some(g) = group
            && let Some((_, roll_total)) = shared.iter().find(|(name, _)| *name == g.0)
        {
            let base = roll_total - stats.agility_mod;
            commands.entity(e).insert(BaseInitiative(base));
            log.push(
                Event::new(
                    "initiative",
                    "004 §Step 2",
                    format!(
                        "{} shares group {:?}'s initiative roll of {roll_total}: base initiative {base}.",
                        c.name, g.0
                    ),
                )
                .actor(&c.name),
            );
            continue;
        }
        let (base, roll) = roll_base_initiative(&mut dice, &data.0, &c.name, stats.agility_mod);
        if let Some(g) = group {
            shared.push((g.0.clone(), roll.total));
        }
        commands.entity(e).insert(BaseInitiative(base));
        log.push(
            Event::new(
                "initiative",
                "004 §Step 2",
                initiative_sentence(&c.name, &roll, stats.agility_mod, base),
            )
            .actor(&c.name)
            .roll(roll),
        );
    }
    flow.stage = Stage::BeginRound;
}

/// A new round: reset what lasts a round and line up the declarers
/// (004 §Step 3: the order of declaring is the scenario's choice).
pub fn begin_round(
    mut flow: ResMut<Flow>,
    mut log: ResMut<BattleLog>,
    mut q: Query<(
        Entity,
        &Combatant,
        &Stats,
        &Side,
        &Health,
        &Hurts,
        &mut RoundState,
        Has<Surprised>,
        Has<Routed>,
        Has<Fled>,
    )>,
    mut commands: Commands,
) {
    flow.round += 1;
    log.round = flow.round;
    log.time = "declaration".into();
    flow.queue.clear();
    flow.count = None;
    log.push(Event::new(
        "round",
        "004 §Step 2",
        format!("Round {} begins.", flow.round),
    ));
    let mut declarers: Vec<(u32, i32, usize, Entity)> = Vec::new();
    // In listing order, so the log reads the same however the world stores them.
    let roster: Vec<Entity> = flow.roster.iter().map(|(e, _)| *e).collect();
    for e in roster {
        let Ok((e, c, stats, side, health, hurts, mut rs, surprised, routed, fled)) = q.get_mut(e)
        else {
            continue;
        };
        let acted_last = rs.actions_taken > 0;
        *rs = RoundState {
            acted_last_round: acted_last,
            ..RoundState::default()
        };
        commands.entity(e).remove::<Declared>();
        if fled || *health == Health::Dead || hurts.paralysed {
            continue;
        }
        if surprised {
            log.push(
                Event::new(
                    "surprised",
                    "004 §Step 1",
                    format!("{} is surprised and does not declare this round.", c.name),
                )
                .actor(&c.name),
            );
            continue;
        }
        if routed {
            continue;
        }
        declarers.push((c.listing, stats.agility_mod, side.0, e));
    }
    declarers.sort_by_key(|d| d.0);
    flow.to_declare = match flow.declaration {
        DeclarationOrder::Simultaneous => declarers.iter().map(|d| d.3).collect(),
        DeclarationOrder::AgilityDescending => {
            declarers.sort_by_key(|d| (-d.1, d.0));
            declarers.iter().map(|d| d.3).collect()
        }
        DeclarationOrder::RoundRobin => {
            let mut by_side: Vec<Vec<Entity>> = Vec::new();
            for d in &declarers {
                if by_side.len() <= d.2 {
                    by_side.resize(d.2 + 1, Vec::new());
                }
                by_side[d.2].push(d.3);
            }
            let longest = by_side.iter().map(Vec::len).max().unwrap_or(0);
            (0..longest)
                .flat_map(|i| by_side.iter().filter_map(move |s| s.get(i).copied()))
                .collect()
        }
    };
    flow.hidden.clear();
    flow.stage = Stage::Declaring;
}

// ---------------------------------------------------------------------------
// 004 §Step 3: declarations.

/// The initiative modifier of an action (004 §Step 3, and the rulings for
/// the actions the list leaves out).
pub fn action_modifier(data: &DeclaredData, action: &Action) -> i32 {
    let n = &data.numbers;
    let r = &data.ruling_numbers;
    match action {
        Action::Attack {
            weapon, defensive, ..
        } => {
            let speed = data.weapons.get(weapon).map_or(0, |w| w.speed);
            speed
                + if *defensive {
                    n.defensive_attack_extra
                } else {
                    0
                }
        }
        Action::Move { .. } | Action::Flee => n.defensive_attack_extra,
        Action::FullDefense { .. } => n.full_defense_modifier,
        Action::Cast { spell, .. } => data
            .spells
            .get(spell)
            .map_or(0, |s| s.speed.unwrap_or(s.tn - n.spell_speed_base)),
        Action::Consume { item } => data
            .items
            .get(item)
            .and_then(|i| i.modifier)
            .unwrap_or(n.consumable_modifier),
        Action::Throw { .. } => n.throw_modifier,
        Action::Stabilise { .. } => r.stabilise_modifier,
        Action::Intimidate { .. } => r.intimidate_modifier,
        Action::Wait => r.wait_modifier,
    }
}

/// The rule an action's modifier comes from.
fn action_rule(action: &Action) -> &'static str {
    match action {
        Action::Stabilise { .. } => "ruling stabilise_action",
        Action::Intimidate { .. } => "ruling intimidate_action",
        Action::Wait => "ruling wait_action",
        Action::Flee => "ruling morale_failure",
        _ => "004 §Step 3",
    }
}

/// A declared action in words.
pub fn describe(world: &World, action: &Action) -> String {
    let name = |e: Entity| {
        world
            .get::<Combatant>(e)
            .map_or_else(|| "?".to_string(), |c| c.name.clone())
    };
    match action {
        Action::Attack {
            target,
            weapon,
            defensive: false,
        } => format!("attack {} with the {weapon}", name(*target)),
        Action::Attack { target, weapon, .. } => {
            format!("attack {} defensively with the {weapon}", name(*target))
        }
        Action::Move { toward: Some(c) } => {
            format!("move defensively toward {c} without attacking")
        }
        Action::Move { toward: None } => "hold defensively without attacking".into(),
        Action::FullDefense { toward: Some(c) } => format!("take full defense, moving toward {c}"),
        Action::FullDefense { toward: None } => "take full defense".into(),
        Action::Cast { spell, target } => format!("cast {spell} on {}", name(*target)),
        Action::Consume { item } => format!("use a {item}"),
        Action::Throw { weapon, target } => format!("throw the {weapon} at {}", name(*target)),
        Action::Stabilise { target } => format!("stabilise {}", name(*target)),
        Action::Intimidate { target } => format!("intimidate {}", name(*target)),
        Action::Wait => "wait".into(),
        Action::Flee => "flee".into(),
    }
}

/// Turn an order into an action, or say why the rules refuse it.
pub fn validate(world: &World, actor: Entity, order: &Order) -> Result<Action, String> {
    let flow = world.resource::<Flow>();
    let data = &world.resource::<Data>().0;
    let grid = world.resource::<Grid>();
    let me = world.get::<Combatant>(actor).ok_or("no such combatant")?;
    if order.actor != me.name {
        return Err(format!(
            "this decision is {}'s, not {}'s",
            me.name, order.actor
        ));
    }
    let side = world.get::<Side>(actor).copied().ok_or("no side")?;
    let kit = world.get::<Kit>(actor).ok_or("no kit")?;
    let hurts = world.get::<Hurts>(actor).ok_or("no hurts")?;
    let rs = world.get::<RoundState>(actor).ok_or("no round state")?;
    let target = || -> Result<Entity, String> {
        let t = order
            .target
            .as_deref()
            .ok_or_else(|| format!("{} needs a target", order.action))?;
        let e = flow
            .entity(t)
            .ok_or_else(|| format!("there is no combatant named {t:?}"))?;
        if world.get::<Health>(e) == Some(&Health::Dead) {
            return Err(format!("{t} is dead"));
        }
        if world.get::<Fled>(e).is_some() {
            return Err(format!("{t} has left the battlefield"));
        }
        Ok(e)
    };
    let enemy = || -> Result<Entity, String> {
        let e = target()?;
        if world.get::<Side>(e) == Some(&side) {
            return Err(format!("{} is on your side", flow.name(e)));
        }
        Ok(e)
    };
    let cell = match order.cell {
        Some(c) if !grid.in_bounds(c) => return Err(format!("{c} is off the battlefield")),
        Some(c) if grid.is_obstacle(c) => return Err(format!("{c} is an obstacle")),
        c => c,
    };
    if hurts.every_other_round && rs.acted_last_round && order.action != "wait" {
        return Err("Broken rib: only one action every two rounds, and it acted last round (004 §Combat Injuries)".into());
    }
    let weapon = |want_thrown: bool| -> Result<String, String> {
        let w = match &order.with {
            Some(w) => w.clone(),
            None => kit
                .weapons
                .iter()
                .find(|w| {
                    data.weapons.get(*w).is_some_and(|d| {
                        if want_thrown {
                            d.thrown
                        } else {
                            d.reach > 0 || d.range > 0
                        }
                    })
                })
                .cloned()
                .ok_or("no weapon for that")?,
        };
        if !kit.weapons.contains(&w) {
            return Err(format!("{} does not carry a {w}", me.name));
        }
        let d = data
            .weapons
            .get(&w)
            .ok_or_else(|| format!("unknown weapon {w:?}"))?;
        if want_thrown && !d.thrown {
            return Err(format!("the {w} is not a thrown weapon"));
        }
        if hurts.main_arm_useless {
            return Err(
                "its weapon arm is broken: it can't attack with that arm (004 §Combat Injuries)"
                    .into(),
            );
        }
        Ok(w)
    };
    match order.action.as_str() {
        "attack" => Ok(Action::Attack {
            target: enemy()?,
            weapon: weapon(false)?,
            defensive: false,
        }),
        "defensive_attack" => {
            if order.target.is_none() {
                Ok(Action::Move { toward: cell })
            } else {
                Ok(Action::Attack {
                    target: enemy()?,
                    weapon: weapon(false)?,
                    defensive: true,
                })
            }
        }
        "full_defense" => Ok(Action::FullDefense { toward: cell }),
        "cast" => {
            let spell = order
                .with
                .clone()
                .ok_or("cast needs a spell (with: \"...\")")?;
            if !kit.spells.contains(&spell) {
                return Err(format!("{} does not know {spell}", me.name));
            }
            if hurts.mute {
                return Err("it cannot speak, so it cannot cast (ruling injury_effects)".into());
            }
            let s = data.spells.get(&spell).ok_or("unknown spell")?;
            let t = match s.effect {
                data::SpellEffect::Damage(..) => enemy()?,
                data::SpellEffect::RestoreStress(_) => target()?,
            };
            Ok(Action::Cast { spell, target: t })
        }
        "consumable" => {
            let item = order
                .with
                .clone()
                .ok_or("consumable needs an item (with: \"...\")")?;
            if !kit.items.contains(&item) {
                return Err(format!("{} has no {item} left", me.name));
            }
            Ok(Action::Consume { item })
        }
        "throw" => Ok(Action::Throw {
            weapon: weapon(true)?,
            target: enemy()?,
        }),
        "stabilise" => {
            let t = target()?;
            if world.get::<Side>(t) != Some(&side) {
                return Err(format!("{} is not an ally", flow.name(t)));
            }
            match world.get::<Health>(t) {
                Some(Health::Incapacitated | Health::Dying) => {}
                _ => {
                    return Err(format!(
                        "{} is neither Dying nor Incapacitated",
                        flow.name(t)
                    ));
                }
            }
            if world.get::<Stabilised>(t).is_some() {
                return Err(format!("{} is already stabilised", flow.name(t)));
            }
            Ok(Action::Stabilise { target: t })
        }
        "intimidate" => Ok(Action::Intimidate { target: enemy()? }),
        "wait" => Ok(Action::Wait),
        other => Err(format!(
            "unknown action {other:?} (actions: {})",
            ACTIONS.join(", ")
        )),
    }
}

/// The choices a declaration offers, legal or refused with the reason.
pub fn choices(world: &World, actor: Entity) -> Vec<Choice> {
    let flow = world.resource::<Flow>();
    let data = &world.resource::<Data>().0;
    let Some(me) = world.get::<Combatant>(actor) else {
        return Vec::new();
    };
    let side = world.get::<Side>(actor).copied();
    let kit = world.get::<Kit>(actor).cloned().unwrap_or_default();
    let mut out = Vec::new();
    let mut offer = |order: Order| match validate(world, actor, &order) {
        Ok(action) => {
            let m = action_modifier(data, &action);
            let text = format!("{} (initiative {m:+})", describe(world, &action));
            out.push(Choice::legal(order, capitalise(&text)));
        }
        Err(why) => {
            let text = format!(
                "{} {}",
                order.action.replace('_', " "),
                order.target.clone().unwrap_or_default()
            );
            out.push(Choice::refused(order, capitalise(text.trim()), why));
        }
    };
    for (e, name) in &flow.roster {
        if world.get::<Side>(*e).copied() == side
            || world.get::<Health>(*e) == Some(&Health::Dead)
            || world.get::<Fled>(*e).is_some()
        {
            continue;
        }
        for w in &kit.weapons {
            let Some(wd) = data.weapons.get(w) else {
                continue;
            };
            if wd.reach > 0 || wd.range > 0 && !wd.thrown {
                offer(Order::new(&me.name, "attack").target(name).with(w));
                offer(
                    Order::new(&me.name, "defensive_attack")
                        .target(name)
                        .with(w),
                );
            }
            if wd.thrown {
                offer(Order::new(&me.name, "throw").target(name).with(w));
            }
        }
        for s in &kit.spells {
            if matches!(
                data.spells.get(s).map(|s| &s.effect),
                Some(data::SpellEffect::Damage(..))
            ) {
                offer(Order::new(&me.name, "cast").target(name).with(s));
            }
        }
        if world.get::<Monster>(*e).is_some() {
            offer(Order::new(&me.name, "intimidate").target(name));
        }
    }
    for (e, name) in &flow.roster {
        if world.get::<Side>(*e).copied() != side {
            continue;
        }
        if matches!(
            world.get::<Health>(*e),
            Some(Health::Dying | Health::Incapacitated)
        ) && world.get::<Stabilised>(*e).is_none()
            && *e != actor
        {
            offer(Order::new(&me.name, "stabilise").target(name));
        }
        for s in &kit.spells {
            if matches!(
                data.spells.get(s).map(|s| &s.effect),
                Some(data::SpellEffect::RestoreStress(_))
            ) {
                offer(Order::new(&me.name, "cast").target(name).with(s));
            }
        }
    }
    for i in &kit.items {
        offer(Order::new(&me.name, "consumable").with(i));
    }
    offer(Order::new(&me.name, "defensive_attack"));
    offer(Order::new(&me.name, "full_defense"));
    offer(Order::new(&me.name, "wait"));
    out
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// What take_declarations needs of a decision.
struct Asked {
    actor: Entity,
    actor_name: String,
    secret: bool,
}

/// Publish the declaration decision for `actor`.
fn publish_declaration(world: &mut World, actor: Entity, secret: bool) {
    let round = world.resource::<Flow>().round;
    let name = world.resource::<Flow>().name(actor).to_string();
    let side = world.get::<Side>(actor).map_or(0, |s| s.0);
    let health = world.get::<Health>(actor).copied().unwrap_or(Health::Fine);
    let name_for_move = name.clone();
    let mut prompt = format!("{name}: declare an action for round {round}");
    match health {
        Health::Incapacitated => {
            prompt.push_str(" (Incapacitated: it can crawl; any other action costs 1 Wound Point)")
        }
        Health::Dying => {
            prompt.push_str(" (Dying: one action, not both move and act; each costs 1 Wound Point)")
        }
        _ => {}
    }
    // The list of choices is for people to read: the AI and scripts check
    // their orders with `validate`, as every order is checked when taken.
    let person = world
        .resource::<Sides>()
        .0
        .get(side)
        .is_some_and(|s| s.seat == fray_core::model::Seat::Human);
    let choices = if person {
        choices(world, actor)
    } else {
        Vec::new()
    };
    world.resource_mut::<Decisions>().publish(Decision {
        id: 0,
        side,
        actor,
        actor_name: name,
        prompt,
        rule: "004 §Step 3".into(),
        choices,
        secret,
        any_cell: true,
        move_order: Some(Order::new(&name_for_move, "defensive_attack")),
    });
}

/// 004 §Step 3: take declarations — one at a time in the scenario's order, or
/// all written down secretly and revealed together — and, when everyone has
/// declared, set each Round Initiative (base + the action's modifier) and
/// order the round.
pub fn take_declarations(world: &mut World) {
    let answers = world.resource_mut::<Decisions>().take_answers();
    for (id, order) in answers {
        let Some(decision) = world.resource::<Decisions>().get(id).map(|d| Asked {
            actor: d.actor,
            actor_name: d.actor_name.clone(),
            secret: d.secret,
        }) else {
            continue;
        };
        let actor = decision.actor;
        match validate(world, actor, &order) {
            Err(reason) => {
                world.resource_mut::<BattleLog>().push(
                    Event::new(
                        "refused",
                        "004 §Step 3",
                        format!("Order refused for {}: {reason}.", decision.actor_name),
                    )
                    .actor(&decision.actor_name),
                );
                world.resource_mut::<Decisions>().refuse(id, order, reason);
            }
            Ok(action) => {
                world.resource_mut::<Decisions>().close(id);
                if decision.secret {
                    world.resource_mut::<Flow>().hidden.push((actor, action));
                    world.resource_mut::<BattleLog>().push(
                        Event::new(
                            "declare",
                            "004 §Step 3",
                            format!("{} writes down an action.", decision.actor_name),
                        )
                        .actor(&decision.actor_name),
                    );
                } else {
                    accept_declaration(world, actor, action);
                }
            }
        }
    }
    let stage = world.resource::<Flow>().stage;
    if !world.resource::<Decisions>().open().is_empty() {
        return;
    }
    if let Stage::Arriving(e) = stage {
        if world.get::<Declared>(e).is_none() {
            publish_declaration(world, e, false);
            return;
        }
        place_arrival(world, e);
        world.resource_mut::<Flow>().stage = Stage::Resolving;
        return;
    }
    // Routed creatures flee without declaring; the rest declare in order.
    auto_declare_routed(world);
    let simultaneous = world.resource::<Flow>().declaration == DeclarationOrder::Simultaneous;
    let pending: Vec<Entity> = std::mem::take(&mut world.resource_mut::<Flow>().to_declare);
    if simultaneous {
        if !pending.is_empty() {
            for &e in &pending {
                publish_declaration(world, e, true);
            }
            return;
        }
        let hidden = std::mem::take(&mut world.resource_mut::<Flow>().hidden);
        if !hidden.is_empty() {
            world.resource_mut::<BattleLog>().push(Event::new(
                "reveal",
                "004 §Step 3",
                "All declarations are revealed together.",
            ));
        }
        for (e, action) in hidden {
            accept_declaration(world, e, action);
        }
    } else if let Some((&next, rest)) = pending.split_first() {
        world.resource_mut::<Flow>().to_declare = rest.to_vec();
        publish_declaration(world, next, false);
        return;
    }
    order_the_round(world);
}

fn auto_declare_routed(world: &mut World) {
    let routed: Vec<Entity> = world
        .resource::<Flow>()
        .roster
        .iter()
        .map(|(e, _)| *e)
        .filter(|&e| {
            world.get::<Routed>(e).is_some()
                && world.get::<Fled>(e).is_none()
                && world.get::<Declared>(e).is_none()
                && world.get::<Health>(e) == Some(&Health::Fine)
        })
        .collect();
    for e in routed {
        accept_declaration(world, e, Action::Flee);
    }
}

/// Record a declaration and its Round Initiative (004 §Step 2).
fn accept_declaration(world: &mut World, actor: Entity, action: Action) {
    let data = world.resource::<Data>().0.clone();
    let base = world.get::<BaseInitiative>(actor).map_or(0, |b| b.0);
    let m = action_modifier(&data, &action);
    let initiative = base + m;
    if world.resource::<BattleLog>().keeps() {
        let name = world.resource::<Flow>().name(actor).to_string();
        let text = format!(
            "{name} declares: {}. Round initiative {base} {} {} = {initiative}.",
            describe(world, &action),
            if m < 0 { "−" } else { "+" },
            m.abs()
        );
        world
            .resource_mut::<BattleLog>()
            .push(Event::new("declare", action_rule(&action), text).actor(&name));
    } else {
        world.resource_mut::<BattleLog>().count_one();
    }
    if matches!(action, Action::FullDefense { .. })
        && let Some(mut rs) = world.get_mut::<RoundState>(actor)
    {
        rs.full_defense = true;
    }
    world
        .entity_mut(actor)
        .insert(Declared { action, initiative });
}

/// Build the round's queue: every declaration, and late arrivals' −12
/// actions (004 §Step 2); lowest initiative first; ties keep listing order.
fn order_the_round(world: &mut World) {
    let mut slots = Vec::new();
    let mut late_done = Vec::new();
    for e in roster(world) {
        let Some(c) = world.get::<Combatant>(e) else {
            continue;
        };
        let (declared, late) = (world.get::<Declared>(e), world.get::<LateAction>(e));
        if let Some(d) = declared {
            slots.push((
                c.listing,
                Slot {
                    actor: e,
                    initiative: d.initiative,
                    action: d.action.clone(),
                    late: false,
                },
            ));
        }
        if let Some(l) = late {
            slots.push((
                c.listing,
                Slot {
                    actor: e,
                    initiative: l.initiative,
                    action: l.action.clone(),
                    late: true,
                },
            ));
            late_done.push(e);
        }
    }
    for e in late_done {
        world.entity_mut(e).remove::<LateAction>();
    }
    slots.sort_by_key(|(listing, s)| (s.initiative, *listing, s.late));
    let queue: Vec<Slot> = slots.into_iter().map(|(_, s)| s).collect();
    let order: Vec<String> = queue
        .iter()
        .map(|s| {
            format!(
                "{} {}",
                world.resource::<Flow>().name(s.actor),
                s.initiative
            )
        })
        .collect();
    if !order.is_empty() {
        world.resource_mut::<BattleLog>().push(Event::new(
            "order",
            "004 §Step 2",
            format!("Order of the round, lowest first: {}.", order.join(", ")),
        ));
    }
    let mut flow = world.resource_mut::<Flow>();
    flow.queue = queue;
    flow.stage = Stage::Resolving;
}

// ---------------------------------------------------------------------------
// End of the round.

/// 004 §Wound Points: a Dying creature loses 1 Wound Point at the end of
/// every round, unless stabilised; so does one who cannot breathe (ruling
/// `injury_effects`).
pub fn dying_lose_wound_points(world: &mut World) {
    let bleeding: Vec<(Entity, &'static str)> = roster(world)
        .into_iter()
        .filter_map(|e| {
            let h = *world.get::<Health>(e)?;
            let suffocating = world.get::<Hurts>(e)?.suffocating;
            if h == Health::Dead {
                None
            } else if h == Health::Dying && world.get::<Stabilised>(e).is_none() {
                Some((e, "004 §Wound Points"))
            } else if suffocating {
                Some((e, "ruling injury_effects"))
            } else {
                None
            }
        })
        .collect();
    world.resource_mut::<BattleLog>().time = "end of round".into();
    for (e, rule) in bleeding {
        let name = world.resource::<Flow>().name(e).to_string();
        let why = if rule == "004 §Wound Points" {
            "is dying"
        } else {
            "cannot breathe"
        };
        world.resource_mut::<BattleLog>().push(
            Event::new(
                "bleed",
                rule,
                format!("{name} {why} and loses 1 Wound Point."),
            )
            .actor(&name),
        );
        resolve::lose_wound_points(world, e, 1, rule);
    }
}

/// 004 §Step 4: monsters check morale at the end of each round when a
/// trigger applies; the check is 3d6 + Insight + HD + allies against 11 +
/// opponents (or the Intimidation result); an obvious outcome fails outright
/// (ruling `obvious_defeat`); a failure routs (ruling `morale_failure`).
pub fn morale_checks(world: &mut World) {
    let data = world.resource::<Data>().0.clone();
    let fighting: Vec<(Entity, Side)> = world
        .resource::<Flow>()
        .roster
        .iter()
        .filter(|(e, _)| world.get::<Fighting>(*e).is_some())
        .filter_map(|(e, _)| world.get::<Side>(*e).map(|s| (*e, *s)))
        .collect();
    let monsters: Vec<(Entity, Side)> = fighting
        .iter()
        .filter(|(e, _)| {
            world.get::<Monster>(*e).is_some() && world.get::<Health>(*e) == Some(&Health::Fine)
        })
        .copied()
        .collect();
    let counts: Vec<Side> = fighting.iter().map(|(_, s)| *s).collect();
    for (e, side) in monsters {
        if world.get::<Fighting>(e).is_none() {
            continue;
        }
        let name = world.resource::<Flow>().name(e).to_string();
        let (stats, wp, rs) = match (
            world.get::<Stats>(e),
            world.get::<WoundPoints>(e),
            world.get::<RoundState>(e),
        ) {
            (Some(s), Some(w), Some(r)) => (s.clone(), *w, r.clone()),
            _ => continue,
        };
        let allies = counts.iter().filter(|s| **s == side).count() as i32 - 1;
        let opponents = counts.iter().filter(|s| **s != side).count() as i32;
        let mut triggers = Vec::new();
        if rs.worst_hit * 2 > wp.max {
            triggers.push(format!(
                "took {} Wound Points in a single hit, more than half its {}",
                rs.worst_hit, wp.max
            ));
        }
        if opponents > allies + 1 {
            triggers.push(format!("is outnumbered {} to {}", opponents, allies + 1));
        }
        if let Some(i) = rs.intimidated {
            triggers.push(format!("was intimidated (check {i})"));
        }
        if triggers.is_empty() {
            continue;
        }
        let tn_numbers = data.numbers.morale_base_tn + opponents;
        let tn = rs.intimidated.map_or(tn_numbers, |i| i.max(tn_numbers));
        let obvious = opponents >= data.ruling_numbers.obvious_defeat_ratio as i32 * (allies + 1);
        let failed;
        if obvious {
            failed = true;
            world.resource_mut::<BattleLog>().push(
                Event::new(
                    "morale",
                    "004 §Step 4 · ruling obvious_defeat",
                    format!(
                        "{name} must check morale ({}); facing {opponents} with {} on its side, the outcome is obvious and it fails.",
                        triggers.join("; "),
                        allies + 1
                    ),
                )
                .actor(&name),
            );
        } else {
            let roll = world
                .resource_mut::<Dice>()
                .roll(data.numbers.morale_dice, format!("{name}'s morale"));
            let mods = vec![
                Modifier::new("Insight", stats.insight_mod),
                Modifier::new("HD", stats.hd as i32),
                Modifier::new("allies", allies),
            ];
            let total = roll.total + mods.iter().map(|m| m.value).sum::<i32>();
            failed = total < tn;
            let against = if rs.intimidated.is_some_and(|i| i >= tn_numbers) {
                "the Intimidation check".to_string()
            } else {
                format!("11 + {opponents} opponents")
            };
            world.resource_mut::<BattleLog>().push(
                Event::new(
                    "morale",
                    "004 §Step 4",
                    format!(
                        "{name} checks morale ({}): {} + {} Insight + {} HD + {allies} allies = {total} against {tn} ({against}): {}.",
                        triggers.join("; "),
                        roll.total,
                        stats.insight_mod,
                        stats.hd,
                        if failed { "fails" } else { "holds" }
                    ),
                )
                .actor(&name)
                .check(Check {
                    against,
                    target: tn,
                    modifiers: mods,
                    total,
                    success: !failed,
                })
                .roll(roll),
            );
        }
        if failed {
            world.entity_mut(e).insert(Routed).remove::<Fighting>();
            world.resource_mut::<BattleLog>().push(
                Event::new(
                    "rout",
                    "ruling morale_failure",
                    format!("{name} breaks and flees; it no longer fights."),
                )
                .actor(&name),
            );
        }
    }
}

/// 004 §Step 5: combat ends when one side (or nobody) is left fighting, and
/// the round cap ends it too. Surprise lasts the first round only.
pub fn end_of_round(world: &mut World) {
    for e in roster(world) {
        if world.get::<Surprised>(e).is_some() {
            world.entity_mut(e).remove::<Surprised>();
        }
    }
    let round = world.resource::<Flow>().round;
    world.resource_mut::<BattleLog>().push(Event::new(
        "round_end",
        "004 §Step 4",
        format!("Round {round} ends."),
    ));
    if check_end(world) {
        return;
    }
    let cap = world.resource::<RoundCap>().0;
    if round >= cap {
        world.resource_mut::<BattleLog>().push(Event::new(
            "end",
            "004 §Step 5",
            format!("The round cap of {cap} is reached; the fighting stops with no winner."),
        ));
        world.resource_mut::<Outcome>().0 = Some(BattleResult::RoundCap { rounds: round });
        world.resource_mut::<Flow>().stage = Stage::Over;
        return;
    }
    world.resource_mut::<Flow>().stage = Stage::BeginRound;
}

/// 004 §Step 5: if at most one side still fights, combat ends.
pub fn check_end(world: &mut World) -> bool {
    if world.resource::<Outcome>().0.is_some() {
        return true;
    }
    let mut standing: Vec<usize> = {
        let flow = world.resource::<Flow>();
        flow.roster
            .iter()
            .filter(|(e, _)| world.get::<Fighting>(*e).is_some())
            .filter_map(|(e, _)| world.get::<Side>(*e).map(|s| s.0))
            .collect()
    };
    standing.sort_unstable();
    standing.dedup();
    if standing.len() > 1 {
        return false;
    }
    let round = world.resource::<Flow>().round;
    let result = match standing.first() {
        Some(&side) => BattleResult::Victory {
            side,
            rounds: round,
        },
        None => BattleResult::MutualDestruction { rounds: round },
    };
    let text = match &result {
        BattleResult::Victory { side, .. } => {
            let name = world.resource::<Sides>().name(Side(*side)).to_string();
            format!("Combat ends: {name} alone is still fighting, and wins after {round} rounds.")
        }
        _ => format!("Combat ends: nobody is left fighting after {round} rounds."),
    };
    world
        .resource_mut::<BattleLog>()
        .push(Event::new("end", "004 §Step 5", text));
    world.resource_mut::<Outcome>().0 = Some(result);
    world.resource_mut::<Flow>().stage = Stage::Over;
    world.resource_mut::<Decisions>().close_all();
    true
}

/// The arrival due before `count` resolves in this round, if any.
pub(crate) fn next_arrival(world: &World, before: Option<i32>) -> Option<usize> {
    let flow = world.resource::<Flow>();
    flow.arrivals
        .iter()
        .position(|a| a.round == flow.round && before.is_none_or(|count| a.after < count))
}

/// 004 §Step 2: a newcomer rolls initiative at once and, if not surprised,
/// declares; if its count has passed it acts next round at −12 as well.
pub(crate) fn bring_in_arrival(world: &mut World, index: usize) {
    let arrival = world.resource_mut::<Flow>().arrivals.remove(index);
    let data = world.resource::<Data>().0.clone();
    let scenario = world.resource::<ScenarioSource>().0.clone();
    let listing = world.resource::<Flow>().roster.len() as u32;
    let spec = &arrival.combatant;
    let e = match spawn_combatant(world, &data, &scenario, spec, listing) {
        Ok(e) => e,
        Err(_) => return, // checked when the scenario was loaded
    };
    world
        .resource_mut::<Flow>()
        .roster
        .push((e, spec.name.clone()));
    world.resource_mut::<BattleLog>().time = format!("after initiative {}", arrival.after);
    world.resource_mut::<Flow>().count = Some(arrival.after);
    let agility = world.get::<Stats>(e).map_or(0, |s| s.agility_mod);
    let roll = {
        let mut dice = world.resource_mut::<Dice>();
        roll_base_initiative(&mut dice, &data, &spec.name, agility)
    };
    let (base, roll) = roll;
    world.entity_mut(e).insert(BaseInitiative(base));
    world.resource_mut::<BattleLog>().push(
        Event::new(
            "arrive",
            "004 §Step 2",
            format!(
                "{} enters the combat at {} while the round is on initiative {}.",
                spec.name, spec.at, arrival.after
            ),
        )
        .actor(&spec.name),
    );
    world.resource_mut::<BattleLog>().push(
        Event::new(
            "initiative",
            "004 §Step 2",
            initiative_sentence(&spec.name, &roll, agility, base),
        )
        .actor(&spec.name)
        .roll(roll),
    );
    if spec.surprised {
        world.resource_mut::<BattleLog>().push(
            Event::new(
                "surprised",
                "004 §Step 1",
                format!("{} is surprised and does not declare.", spec.name),
            )
            .actor(&spec.name),
        );
        return;
    }
    world.resource_mut::<Flow>().stage = Stage::Arriving(e);
    publish_declaration(world, e, false);
}

/// What the resolution of an arrival's declaration does (004 §Step 2): join
/// this round's order if its count is still to come, or carry the action to
/// next round at −12.
pub(crate) fn place_arrival(world: &mut World, e: Entity) {
    let Some(declared) = world.get::<Declared>(e).cloned() else {
        return;
    };
    let data = world.resource::<Data>().0.clone();
    let count = world.resource::<Flow>().count.unwrap_or(i32::MIN);
    let name = world.resource::<Flow>().name(e).to_string();
    if declared.initiative <= count {
        let late = declared.initiative + data.numbers.late_arrival_modifier;
        world.resource_mut::<BattleLog>().push(
            Event::new(
                "late",
                "004 §Step 2",
                format!(
                    "{name}'s initiative {} has already passed (the round is on {count}): it acts next round at {} − 12 = {late}, as well as at its own count.",
                    declared.initiative, declared.initiative
                ),
            )
            .actor(&name),
        );
        world.entity_mut(e).insert(LateAction {
            action: declared.action,
            initiative: late,
        });
        world.entity_mut(e).remove::<Declared>();
    } else {
        let listing = world.get::<Combatant>(e).map_or(u32::MAX, |c| c.listing);
        let slot = Slot {
            actor: e,
            initiative: declared.initiative,
            action: declared.action,
            late: false,
        };
        let mut listings = Vec::new();
        for s in &world.resource::<Flow>().queue {
            listings.push(world.get::<Combatant>(s.actor).map_or(0, |c| c.listing));
        }
        let mut flow = world.resource_mut::<Flow>();
        let at = flow
            .queue
            .iter()
            .zip(&listings)
            .position(|(s, l)| (s.initiative, *l) > (slot.initiative, listing))
            .unwrap_or(flow.queue.len());
        flow.queue.insert(at, slot);
        world.resource_mut::<BattleLog>().push(
            Event::new(
                "join",
                "004 §Step 2",
                format!(
                    "{name} will act this round at initiative {}.",
                    declared.initiative
                ),
            )
            .actor(&name),
        );
    }
}

/// Roll a plain check die for a ruling's checks (Heal, Intimidation).
pub(crate) fn check_die(data: &DeclaredData) -> DiceExpr {
    data.ruling_numbers.check_die
}
