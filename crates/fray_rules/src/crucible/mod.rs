//! The `crucible` ruleset: rules/003-crucible.txt.
//!
//! A battle, in the text's order (each a [`Phase`] set of [`RulesStep`]):
//!
//! 1. [`Phase::Surprise`] — 003 §I: a d12 per side (or per character), the
//!    range 1–4 moved by the sides' abilities, or the DM's dictate;
//! 2. [`Phase::BeginRound`] — a new round; 003 §III A: a readied missile
//!    fires before initiative or waits for its owner's turn at the latest;
//!    003 §II A–B: a d12 per side modified by Dexterity (or the options);
//! 3. [`Phase::Counts`] — 003 §II A: from the lowest result to the highest,
//!    ties at one instant (§II F) or broken by the options of §II G; each
//!    acting character gives its order then; spells complete after their
//!    casting time (§II C); attacks of opportunity, length-first strikes and
//!    withdrawals cut in where the text says;
//! 4. [`Phase::EndRound`] — ruling `morale_check` for monsters, and the end.
//!
//! [`RulesStep`]: fray_core::battle::RulesStep
//!
//! Gaps the text leaves to the DM are rulings in
//! `assets/rulesets/crucible.ron`; each log entry that applies one cites it
//! as `ruling <id>`.

use std::sync::Arc;

use bevy_app::App;
use bevy_ecs::prelude::*;
use fray_core::casting::{Memorised, Spoiling};
use fray_core::data::{LoadError, Source};
use fray_core::grid::Cell;
pub use fray_core::model::Rostered;
use fray_core::scenario::{CombatantSpec, LoadedScenario};
use fray_core::simultaneous::Simultaneous;

pub mod ai;
mod combat;
pub mod data;
mod end_round;
mod orders;
mod page;
mod round;
mod start;
mod turn;
pub mod view;

pub use data::{Class, CrucibleData, Race, Template};
pub use orders::{Plan, choices, reacting, validate, warning};

crate::ruleset::ruleset!(CrucibleData {
    id: "crucible",
    name: "Crucible of Souls",
    text: "003-crucible.txt",
    data: "crucible.ron",
    round: round,
    largest_die: 20,
});

/// A character's numbers, from its stat block.
#[derive(Component, Clone, Debug)]
pub struct Stats {
    pub class: Class,
    pub level: u32,
    pub race: Race,
    pub ac: i32,
    pub dex_ac: i32,
    pub dex_initiative: i32,
    pub thac0: i32,
    pub damage_bonus: i32,
    /// Squares a round at its standard rate (003 §Movement During the Round).
    pub speed: u32,
    /// A monster's own attacks per round.
    pub attacks: Option<u32>,
    pub morale: i32,
    pub previously_surprised: u32,
    /// An elf or halfling "on point" (003 §Surprise).
    pub on_point: bool,
}

fray_core::pool!(
    /// Hit points (ruling `hit_points`).
    HitPoints
);

/// What a combatant carries; `dropped` when a fleeing NPC let it fall.
#[derive(Component, Clone, Debug, Default)]
pub struct Kit {
    pub weapons: Vec<String>,
    pub dropped: bool,
}

/// A creature of a side that checks morale (003 §Withdrawal Tactics: player
/// characters never do).
#[derive(Component, Clone, Copy, Debug)]
pub struct Monster;

/// 003 §I D: surprised; does not act in the surprise round.
#[derive(Component, Clone, Copy, Debug)]
pub struct Surprised;

/// 003 §III A: a missile weapon ready with a target in sight.
#[derive(Component, Clone, Copy, Debug)]
pub struct Readied;

/// Fell at 0 hit points or below (ruling `hit_points`).
#[derive(Component, Clone, Copy, Debug)]
pub struct Down;

/// Ran off the battlefield (003 §Withdrawal Tactics, flee in panic).
#[derive(Component, Clone, Copy, Debug)]
pub struct Fled;

/// Gave up (003 §Withdrawal Tactics, surrender).
#[derive(Component, Clone, Copy, Debug)]
pub struct Surrendered;

/// 003 §Withdrawal Tactics and Effects of Failed Morale: how a creature
/// withdraws, round after round.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Withdrawal {
    FallBack,
    Disengage,
    Flee,
}

impl Withdrawal {
    pub fn words(self) -> &'static str {
        match self {
            Self::FallBack => "falls back, fighting",
            Self::Disengage => "disengages and retreats",
            Self::Flee => "flees in panic",
        }
    }
}

/// What a combatant has done this round.
#[derive(Component, Clone, Debug, Default)]
pub struct RoundState {
    /// Its attack routine is spent (on its turn or by a length-first strike).
    pub attacked: bool,
    /// 003 §III F: generally one attack of opportunity per round.
    pub opportunity_used: bool,
    /// Parrying instead of attacking (003 §Withdrawal Tactics).
    pub parrying: bool,
    /// 003 §III F: the steps it has moved this round within each
    /// opponent's melee range, by opponent.
    pub within: Vec<(Entity, u32)>,
    /// Took an attack of opportunity at a fleeing back: may not pursue on
    /// this turn (ruling `no_pursuit`).
    pub no_pursuit: bool,
    /// The same, taken after its turn this round: may not pursue on its
    /// turn next round.
    pub no_pursuit_next: bool,
    /// Its turn of this round has come.
    pub had_turn: bool,
    /// Held its readied missile before initiative: must fire on its turn.
    pub holding_readied: bool,
    /// Disengaging, running or fleeing: it does not fight this round, no
    /// first strike, no attack of opportunity (003 §III D, §Withdrawal
    /// Tactics).
    pub gave_up_combat: bool,
    /// Squares moved following one who fell back (ruling `follow`), taken
    /// off its movement for the round (003 §Withdrawal Tactics: "assuming
    /// his movement allows").
    pub followed: u32,
    /// Squares moved this round, every move counted: a follower follows
    /// only as far as its movement for the round allows (ruling `follow`),
    /// and a 5' step is one's only movement (003 §The 5' Step).
    pub walked: u32,
    /// Disengaging: monsters do not press it (ruling `disengage`).
    pub disengaging: bool,
    /// Running from melee this round: it turns its back to run, not to flee
    /// (ruling `running_rate`).
    pub running: bool,
    /// The opponents it turned its back on to run or flee this round: each
    /// was asked for its blow at the back, and the walk away draws no other
    /// attack from them (003 §Withdrawal Tactics).
    pub turned_from: Vec<Entity>,
}

impl RoundState {
    /// 003 §III D, §Withdrawal Tactics: no more fighting this round.
    pub fn give_up_combat(&mut self) {
        self.attacked = true;
        self.gave_up_combat = true;
    }
}

/// Already checked morale for (ruling `morale_check`).
#[derive(Component, Clone, Debug, Default)]
pub struct MoraleDone {
    pub half_hit_points: bool,
    pub side_halved: bool,
}

/// Where the battle is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Surprise,
    BeginRound,
    /// 003 §III A: readied missiles are asked before initiative.
    Readied,
    Counts,
    EndRound,
    Over,
}

/// The options of 003 §II B, §II G and §Group Vs. Individual Initiative.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub initiative: InitiativeOption,
    pub wsf_ties: bool,
    pub more_attacks_ties: bool,
    pub spell_vs_melee_ties: bool,
    pub missile_vs_spell_ties: bool,
}

/// Who rolls initiative (003 §II B, §Group Vs. Individual Initiative).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InitiativeOption {
    /// A d12 per side (003 §II A).
    #[default]
    Group,
    /// A d12 per side, each adjusted by its own Dexterity (003 §II B).
    IndividualAdjustments,
    /// A d12 each (003 §II B).
    IndividualRolls,
    /// Player characters individually, monsters as a group.
    PcsIndividually,
}

/// Something to resolve at an initiative count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    /// A combatant's turn.
    Turn(Entity),
    /// A spell going off (003 §II C).
    Complete(Entity),
    /// A disengaging creature moves, its initiative sacrificed.
    Disengage(Entity),
}

impl Act {
    pub fn actor(self) -> Entity {
        match self {
            Self::Turn(e) | Self::Complete(e) | Self::Disengage(e) => e,
        }
    }
}

/// A roll of initiative or surprise for the tracker: who rolled, the die,
/// and the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RollNote {
    pub who: String,
    pub die: i32,
    pub result: i32,
}

/// An order taken, waiting to resolve with its tie.
#[derive(Clone, Debug)]
pub struct Planned {
    pub actor: Entity,
    pub plan: Plan,
}

/// The count resolving after the last one: spells of a full round (003 §II C).
pub const LAST_COUNT: i32 = 1000;
/// After everything: disengaging forces (003 §Withdrawal Tactics).
pub const DISENGAGE_COUNT: i32 = 1001;

/// The state of the battle.
#[derive(Resource, Debug, Clone)]
pub struct Flow {
    pub stage: Stage,
    pub round: u32,
    pub roster: fray_core::model::Roster,
    pub options: Options,
    /// This round is the surprise round (003 §I D).
    pub surprise_round: bool,
    /// Surprise rolls, highest acting first in the surprise round.
    pub surprise_rolls: Vec<(Entity, i32)>,
    /// This round's initiative rolls, for the tracker.
    pub rolls: Vec<RollNote>,
    /// Each combatant's result this round.
    pub initiative: Vec<(Entity, i32)>,
    /// What is still to resolve, lowest count first.
    pub queue: Vec<(i32, Act)>,
    pub count: Option<i32>,
    /// Decisions open at this count: id and actor.
    pub asking: Vec<(u64, Entity)>,
    /// Orders taken at this count, waiting for the rest of the tie.
    pub taken: Vec<Planned>,
    /// Answers about readied missiles, waiting for the rest: the shots
    /// before initiative go together (ruling `readied_missile`).
    pub readied_answers: Vec<Planned>,
    /// The tie at this count in layers, first to act first (003 §II G).
    pub layers: Vec<Vec<Planned>>,
    /// Each spell in progress, its target, and where its caster moves once
    /// it goes off, with the most squares it may (003 §III D).
    pub spell_targets: Vec<(Entity, Entity, Option<(Cell, u32)>)>,
    /// The layer of a tie resolving now; hits held land together (003 §II F).
    pub(crate) group: Simultaneous<Planned, combat::Hit>,
    /// Hits held while one member of a tie acts.
    pub(crate) held: Option<Vec<combat::Hit>>,
    /// Members of each side at the start, for ruling `morale_check`.
    pub side_sizes: Vec<usize>,
    /// Someone attacked, shot or cast this round.
    pub struck: bool,
    /// Rounds in a row in which nobody did: a standoff the AI breaks.
    pub quiet_rounds: u32,
    /// Opponents asked how they meet one withdrawing (003 §Withdrawal
    /// Tactics): the decision, who is asked, the one withdrawing, and what
    /// about.
    pub reacting: Vec<(u64, Entity, Entity, Reaction)>,
    /// Casters whose spell damage spoiled before it was begun, asked for
    /// another order that goes on at once (003 §Casting in Combat: "this
    /// disruption only prevents casting").
    pub instead: Vec<Entity>,
}

/// What one engaged with a withdrawing character is asked, in the middle of
/// the withdrawal (003 §Withdrawal Tactics).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reaction {
    /// "Opponents are given the immediate choice to follow or not."
    Follow,
    /// "Opponents may take an AoO at your back, but then are not permitted
    /// to pursue on their turn."
    BackBlow,
    /// Asked of the one who fell back when the opponent it meant to fight
    /// did not follow: "you can rest, redirect your attacks or your
    /// attention".
    Redirect,
}

/// The phases, chained once, in the text's order.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Surprise,
    BeginRound,
    Readied,
    Counts,
    EndRound,
}

/// Adds the ruleset's phases to the step schedule.
pub fn plugin(app: &mut App) {
    fray_core::fork_state!(app,
        components: [Stats, Kit, Monster, Surprised, Readied, Down, Fled, Surrendered, Withdrawal, RoundState, MoraleDone, HitPoints],
        resources: [Flow, Dictated],
        set_up: [Data, orders::FallenQuery],
    );
    app.init_resource::<orders::FallenQuery>();
    crate::ruleset::stages!(app, Phase {
        Surprise => start::surprise, when stage_is(Stage::Surprise);
        BeginRound => round::begin_round, when stage_is(Stage::BeginRound);
        Readied => round::readied_missiles, when stage_is(Stage::Readied);
        Counts => turn::run_counts, when stage_is(Stage::Counts);
        EndRound => end_round::end_of_round, when stage_is(Stage::EndRound);
    });
}

/// The action names orders use.
pub const ACTIONS: &[&str] = &[
    "attack",
    "step",
    "move",
    "run",
    "fire",
    "fire_then_move",
    "cast",
    "cast_then_move",
    "ready",
    "parry",
    "fall_back",
    "disengage",
    "flee",
    "surrender",
    "wait",
    "hold",
    "follow",
    "stay",
    "strike_back",
    "let_go",
];

/// The scenario options and the values they take.
const OPTIONS: &[(&str, &[&str])] = &[
    (
        "initiative",
        &[
            "group",
            "individual_adjustments",
            "individual_rolls",
            "pcs_individually",
        ],
    ),
    ("wsf_ties", &["on", "off"]),
    ("more_attacks_ties", &["on", "off"]),
    ("spell_vs_melee_ties", &["on", "off"]),
    ("missile_vs_spell_ties", &["on", "off"]),
    ("surprise", &[]),
];

/// A stat block resolved for a scenario's combatant.
struct Block {
    stats: Stats,
    hp: i32,
    kit: Kit,
    spells: Vec<String>,
    readied: bool,
}

/// 003 §Movement During the Round: squares a round for `race` carrying
/// `load` pounds, the totals moved by Strength (and for dwarves, ruling
/// `dwarf_burden`). `None`: too heavy to move.
pub fn movement_rate(data: &CrucibleData, race: Race, load: u32, allowance: i32) -> Option<u32> {
    let mut allowance = allowance;
    if race == Race::Dwarf {
        allowance += data.ruling_numbers.dwarf_allowance;
    }
    let load = (load as i32 - allowance).max(0) as u32;
    let band = data
        .encumbrance
        .iter()
        .find(|b| b.up_to.is_none_or(|max| load <= max))?;
    match race {
        Race::Halfling => band.halfling.map(|(_, sq)| sq),
        _ => Some(band.human.1),
    }
}

/// Resolve a scenario combatant's stat block, or say where it is wrong.
/// What a scenario may `set` besides the stat block's own numbers: an elf
/// or halfling on point (003 §Surprise), and a missile ready as the battle
/// begins (003 §III A).
const OUTSIDE_BLOCK: &[&str] = &["on_point", "readied"];

fn stat_block(data: &CrucibleData, spec: &CombatantSpec, src: &Source) -> Result<Block, LoadError> {
    let (t, rest) = crate::stat_block(&data.templates, spec, src, "crucible", OUTSIDE_BLOCK)?;
    let set = |key: &str| rest.iter().any(|(k, v)| k == key && *v != 0);
    let (on_point, readied) = (set("on_point"), set("readied"));
    if on_point && !matches!(t.race, Race::Elf | Race::Halfling) {
        return Err(src.error_at(
            &spec.name,
            None,
            format!("{:?} is on point, but only an elf or halfling surprises from point (003 §Surprise)", spec.name),
        ));
    }
    let weapons = spec.weapons.clone().unwrap_or_else(|| t.weapons.clone());
    crate::ruleset::check_weapons(src, ("", &spec.name), &weapons, &data.weapons)?;
    let speed = match t.speed {
        Some(s) => s,
        None => movement_rate(data, t.race, t.load, t.strength_allowance).unwrap_or(0),
    };
    let stats = Stats {
        class: t.class,
        level: t.level,
        race: t.race,
        ac: t.ac,
        dex_ac: t.dex_ac,
        dex_initiative: t.dex_initiative,
        thac0: t.thac0,
        damage_bonus: t.damage_bonus,
        speed,
        attacks: t.attacks,
        morale: t.morale,
        previously_surprised: t.previously_surprised,
        on_point,
    };
    Ok(Block {
        stats,
        hp: t.hp,
        kit: Kit {
            weapons,
            dropped: false,
        },
        spells: t.spells.clone(),
        readied,
    })
}

/// Check a scenario against the ruleset: templates, stats, options, orders.
pub fn check_scenario(data: &CrucibleData, scenario: &LoadedScenario) -> Result<(), LoadError> {
    for spec in &scenario.scenario.combatants {
        stat_block(data, spec, &scenario.source)?;
    }
    if let Some(side) = scenario.scenario.options.get("surprise")
        && side != "roll"
        && side != "none"
        && scenario.side_index(side).is_none()
    {
        return Err(scenario.source.error_at(
            side,
            Some("options"),
            format!("surprise {side:?} must be roll, none or the name of a side"),
        ));
    }
    Ok(())
}

/// What a scenario may ask for: the text's optional rules; no groups
/// but the sides, no late arrivals.
const SCENARIOS: crate::ruleset::ScenarioRules = crate::ruleset::ScenarioRules {
    options: OPTIONS,
    actions: ACTIONS,
    // A combatant fights with what it carries; a cast's `with` is the spell.
    weapon_actions: &["attack", "fire", "fire_then_move", "ready"],
    // A weapon dropped in flight is not picked up again (ruling drop_on_flight).
    weapons_change_hands: false,
    no_groups: Some("003 has no initiative groups but the sides: use the option `initiative`"),
    no_arrivals: Some("003 has no late arrivals"),
    round_zero: false,
    at_foes: &["attack", "fire", "fire_then_move", "strike_back"],
};

fn options(scenario: &LoadedScenario) -> Options {
    let o = &scenario.scenario.options;
    let on = |k: &str| o.get(k).is_some_and(|v| v == "on");
    Options {
        initiative: match o.get("initiative").map(String::as_str) {
            Some("individual_adjustments") => InitiativeOption::IndividualAdjustments,
            Some("individual_rolls") => InitiativeOption::IndividualRolls,
            Some("pcs_individually") => InitiativeOption::PcsIndividually,
            _ => InitiativeOption::Group,
        },
        wsf_ties: on("wsf_ties"),
        more_attacks_ties: on("more_attacks_ties"),
        spell_vs_melee_ties: on("spell_vs_melee_ties"),
        missile_vs_spell_ties: on("missile_vs_spell_ties"),
    }
}

/// Spawn the scenario's combatants and the state of the battle.
pub fn populate(
    world: &mut World,
    data: Arc<CrucibleData>,
    scenario: &LoadedScenario,
) -> Result<(), LoadError> {
    let s = &scenario.scenario;
    let roster = fray_core::model::spawn_combatants(world, scenario, |spec, e| {
        let b = stat_block(&data, spec, &scenario.source)?;
        e.insert((
            HitPoints::full(b.hp),
            b.stats,
            b.kit,
            Memorised(b.spells),
            RoundState::default(),
            MoraleDone::default(),
        ));
        if b.readied {
            e.insert(Readied);
        }
        let side = scenario.side_index(&spec.side).unwrap_or(0);
        if s.sides[side].morale {
            e.insert(Monster);
        }
        Ok(())
    })?;
    let mut side_sizes = vec![0; s.sides.len()];
    for spec in &s.combatants {
        side_sizes[scenario.side_index(&spec.side).unwrap_or(0)] += 1;
    }
    fray_core::model::set_resource(
        world,
        Spoiling {
            rule: "003 §Casting in Combat",
            forget: true,
            rest_of_round: true,
        },
    );
    fray_core::model::set_resource(world, Dictated::from(scenario));
    fray_core::model::set_resource(
        world,
        Flow {
            stage: Stage::Surprise,
            round: 0,
            roster,
            options: options(scenario),
            surprise_round: false,
            surprise_rolls: Vec::new(),
            rolls: Vec::new(),
            initiative: Vec::new(),
            queue: Vec::new(),
            count: None,
            asking: Vec::new(),
            taken: Vec::new(),
            readied_answers: Vec::new(),
            layers: Vec::new(),
            spell_targets: Vec::new(),
            group: Simultaneous::default(),
            held: None,
            side_sizes,
            struck: false,
            quiet_rounds: 0,
            reacting: Vec::new(),
            instead: Vec::new(),
        },
    );
    Ok(())
}

/// 003 §I A: surprise the DM dictates — the scenario's option `surprise`
/// (`none`, or a side's name) and combatants marked `surprised`.
#[derive(Resource, Clone, Debug, Default)]
pub struct Dictated {
    /// `Some(None)`: no surprise; `Some(Some(side))`: that side is surprised.
    pub side: Option<Option<usize>>,
    /// Combatants the scenario marks surprised, by listing.
    pub combatants: Vec<u32>,
}

impl Dictated {
    fn from(scenario: &LoadedScenario) -> Self {
        let s = &scenario.scenario;
        let side = match s.options.get("surprise").map(String::as_str) {
            None | Some("roll") => None,
            Some("none") => Some(None),
            Some(name) => Some(scenario.side_index(name)),
        };
        let combatants = s
            .combatants
            .iter()
            .enumerate()
            .filter(|(_, c)| c.surprised)
            .map(|(i, _)| i as u32)
            .collect();
        Self { side, combatants }
    }
}

/// Whether `e` still fights and stands.
pub fn up(world: &World, e: Entity) -> bool {
    world.get::<fray_core::model::Fighting>(e).is_some()
}

/// Where `e` stands.
pub fn cell(world: &World, e: Entity) -> Cell {
    world.get::<Cell>(e).copied().unwrap_or(Cell::new(0, 0))
}

pub use fray_core::model::{enemies, enemies_of, name};
