//! Scenario files: the battlefield, the sides and their seats, the
//! combatants, late arrivals, forced dice and scripted orders.
//!
//! ```ron
//! (
//!     name: "Duel at the ford",
//!     ruleset: "declared",
//!     grid: (kind: Square, width: 8, height: 8, obstacles: [(3, 3)]),
//!     sides: [(name: "Wardens"), (name: "Raiders", morale: true)],
//!     combatants: [
//!         (name: "Brienne", side: "Wardens", template: "knight", at: (1, 3)),
//!         (name: "Gorm", side: "Raiders", template: "hobgoblin_warrior", at: (6, 3)),
//!     ],
//! )
//! ```
//!
//! Stats come from the ruleset's templates; `set` overrides single stats by
//! the names the ruleset gives them. Ruleset options (such as how declarations
//! are made) go in `options`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::data::{LoadError, Source};
use crate::decision::ScriptedOrder;
use crate::grid::{Cell, Grid, GridGeometry, GridKind};
use crate::model::Seat;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridSpec {
    pub kind: GridKind,
    pub width: u32,
    pub height: u32,
    #[serde(default)]
    pub obstacles: Vec<Cell>,
    /// Difficult terrain: entering costs double.
    #[serde(default)]
    pub difficult: Vec<Cell>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideSpec {
    pub name: String,
    #[serde(default)]
    pub seat: Seat,
    /// Whether its creatures take morale checks (the texts' monsters).
    #[serde(default)]
    pub morale: bool,
    /// A `Script` side, once its orders run out: the AI plays on (the
    /// default), or a person is asked.
    #[serde(default)]
    pub after_script: AfterScript,
}

/// Who decides for a scripted side what its script does not cover.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub enum AfterScript {
    #[default]
    Ai,
    Person,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CombatantSpec {
    pub name: String,
    /// The side's name.
    pub side: String,
    /// A stat block from the ruleset's data.
    pub template: String,
    pub at: Cell,
    /// Unaware of its enemies when combat starts.
    #[serde(default)]
    pub surprised: bool,
    /// How it stands when combat starts, in the ruleset's words (`fallen`,
    /// `unconscious`): each one the ruleset knows.
    #[serde(default)]
    pub starts: Vec<String>,
    /// Combatants naming the same group share one initiative roll.
    #[serde(default)]
    pub initiative_group: Option<String>,
    /// Single stats overridden, by the ruleset's names for them.
    #[serde(default, deserialize_with = "crate::data::unique")]
    pub set: BTreeMap<String, i32>,
    /// Weapons carried instead of the template's.
    #[serde(default)]
    pub weapons: Option<Vec<String>>,
}

/// A combatant who enters an ongoing battle.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Arrival {
    /// The round it arrives in.
    pub round: u32,
    /// The ruleset's time mark it arrives after (an initiative count, a segment …).
    pub after: i32,
    pub combatant: CombatantSpec,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub ruleset: String,
    pub grid: GridSpec,
    /// The seed used when none is given on the command line.
    #[serde(default)]
    pub seed: u64,
    #[serde(default = "default_round_cap")]
    pub round_cap: u32,
    pub sides: Vec<SideSpec>,
    pub combatants: Vec<CombatantSpec>,
    #[serde(default)]
    pub arrivals: Vec<Arrival>,
    /// Forced die faces, used before the seeded dice.
    #[serde(default)]
    pub dice: Vec<u32>,
    #[serde(default)]
    pub orders: Vec<ScriptedOrder>,
    /// Ruleset options by name (e.g. `"declaration": "simultaneous"`).
    #[serde(default, deserialize_with = "crate::data::unique")]
    pub options: BTreeMap<String, String>,
}

fn default_round_cap() -> u32 {
    50
}

/// The most rounds a battle may be capped at: a battle nobody can win ends
/// in bounded time and memory.
pub const MAX_ROUND_CAP: u32 = 1000;

/// The largest number a scenario may `set` a stat to, either way: room for
/// any sum of stats without overflow.
pub const MAX_STAT: i32 = 10_000;

/// A scenario with the text it came from, checked for the mistakes that do
/// not depend on the ruleset.
#[derive(Clone, Debug)]
pub struct LoadedScenario {
    pub scenario: Scenario,
    pub source: Source,
}

impl LoadedScenario {
    pub fn load(path: &Path) -> Result<Self, LoadError> {
        Self::from_source(Source::read(path)?)
    }

    pub fn from_source(source: Source) -> Result<Self, LoadError> {
        let scenario: Scenario = source.parse()?;
        let s = Self { scenario, source };
        s.check()?;
        Ok(s)
    }

    /// The side index of a side name.
    pub fn side_index(&self, name: &str) -> Option<usize> {
        self.scenario.sides.iter().position(|s| s.name == name)
    }

    /// The grid the scenario describes.
    pub fn grid(&self) -> Grid {
        let g = &self.scenario.grid;
        let mut grid = Grid::new(g.kind, g.width, g.height);
        for &c in &g.obstacles {
            grid.add_obstacle(c);
        }
        for &c in &g.difficult {
            grid.add_difficult(c);
        }
        grid
    }

    /// Checks the scenario step by step, in this order: the grid, the sides,
    /// the round cap, the combatants, where they stand, that every side has
    /// someone, and the scripted orders. The first mistake found is the one
    /// reported.
    fn check(&self) -> Result<(), LoadError> {
        let s = &self.scenario;
        let src = &self.source;
        let grid = self.check_grid()?;
        self.check_sides()?;
        if !(1..=MAX_ROUND_CAP).contains(&s.round_cap) {
            return Err(src.error_at_field(
                "round_cap",
                format!("the round cap must be 1 to {MAX_ROUND_CAP}"),
            ));
        }
        let seen = self.check_combatants(&grid)?;
        self.check_places()?;
        self.check_arrivals()?;
        self.check_orders(&seen, &grid)
    }

    /// The grid: its size, and its obstacles and difficult cells on it.
    fn check_grid(&self) -> Result<Grid, LoadError> {
        let src = &self.source;
        let g = &self.scenario.grid;
        if !(2..=200).contains(&g.width) || !(2..=200).contains(&g.height) {
            return Err(
                src.error_at_field("width", "the grid must be 2 to 200 cells wide and high")
            );
        }
        let grid = self.grid();
        for &c in g.obstacles.iter().chain(&g.difficult) {
            if !grid.in_bounds(c) {
                return Err(src.error_at_field(
                    "obstacles",
                    format!("cell {c} is outside the {}×{} grid", g.width, g.height),
                ));
            }
        }
        Ok(grid)
    }

    /// The sides: at least two, each with its own name.
    fn check_sides(&self) -> Result<(), LoadError> {
        let s = &self.scenario;
        let src = &self.source;
        if s.sides.len() < 2 {
            return Err(src.error_at_field("sides", "a battle needs at least two sides"));
        }
        for (i, side) in s.sides.iter().enumerate() {
            if s.sides[..i].iter().any(|o| o.name == side.name) {
                return Err(src.error_at(
                    &side.name,
                    None,
                    format!("two sides are named {:?}", side.name),
                ));
            }
        }
        Ok(())
    }

    /// The combatants, those present and those arriving late: each on a side
    /// that exists, on a free cell of the grid, with its own name. Returns
    /// their names and cells.
    fn check_combatants(&self, grid: &Grid) -> Result<Vec<(&str, Cell)>, LoadError> {
        let s = &self.scenario;
        let src = &self.source;
        let g = &s.grid;
        let all = s
            .combatants
            .iter()
            .chain(s.arrivals.iter().map(|a| &a.combatant));
        let mut seen: Vec<(&str, Cell)> = Vec::new();
        for c in all {
            if self.side_index(&c.side).is_none() {
                return Err(src.error_at(
                    &c.side,
                    Some(&c.name),
                    format!(
                        "{:?} names side {:?}, but the sides are {}",
                        c.name,
                        c.side,
                        self.side_names()
                    ),
                ));
            }
            if !grid.in_bounds(c.at) {
                return Err(src.error_at(
                    &c.name,
                    None,
                    format!(
                        "{:?} stands at {}, outside the {}×{} grid",
                        c.name, c.at, g.width, g.height
                    ),
                ));
            }
            if grid.is_obstacle(c.at) {
                return Err(src.error_at(
                    &c.name,
                    None,
                    format!("{:?} stands on an obstacle at {}", c.name, c.at),
                ));
            }
            if let Some((key, _)) = c.set.iter().find(|(_, v)| v.abs() > MAX_STAT) {
                return Err(src.error_at(
                    key,
                    Some(&c.name),
                    format!("{:?}'s {key} must be within ±{MAX_STAT}", c.name),
                ));
            }
            if seen.iter().any(|(n, _)| *n == c.name) {
                return Err(src.error_at(
                    &c.name,
                    None,
                    format!("two combatants are named {:?}", c.name),
                ));
            }
            seen.push((&c.name, c.at));
        }
        Ok(seen)
    }

    /// Where the battle starts: no two combatants on one cell, and someone on
    /// every side.
    fn check_places(&self) -> Result<(), LoadError> {
        let s = &self.scenario;
        let src = &self.source;
        for (i, c) in s.combatants.iter().enumerate() {
            if let Some(other) = s.combatants[..i].iter().find(|o| o.at == c.at) {
                return Err(src.error_at(
                    &c.name,
                    None,
                    format!("{:?} and {:?} both stand at {}", other.name, c.name, c.at),
                ));
            }
        }
        for (i, side) in s.sides.iter().enumerate() {
            if !s
                .combatants
                .iter()
                .any(|c| self.side_index(&c.side) == Some(i))
            {
                return Err(src.error_at(
                    &side.name,
                    None,
                    format!("side {:?} has no combatants", side.name),
                ));
            }
        }
        Ok(())
    }

    /// Late arrivals: in a round the battle can reach, on a cell nobody
    /// starts on or arrives on.
    fn check_arrivals(&self) -> Result<(), LoadError> {
        let s = &self.scenario;
        let src = &self.source;
        for (i, a) in s.arrivals.iter().enumerate() {
            let c = &a.combatant;
            if !(1..=s.round_cap).contains(&a.round) {
                return Err(src.error_in_field(
                    "arrivals",
                    &c.name,
                    format!(
                        "{:?} arrives in round {}, but rounds run from 1 to the round cap of {}",
                        c.name, a.round, s.round_cap
                    ),
                ));
            }
            let starts = s.combatants.iter().map(|o| (&o.name, o.at, "starts"));
            let arrives = s.arrivals[..i]
                .iter()
                .map(|o| (&o.combatant.name, o.combatant.at, "arrives"));
            if let Some((other, _, how)) = starts.chain(arrives).find(|(_, at, _)| *at == c.at) {
                return Err(src.error_in_field(
                    "arrivals",
                    &c.name,
                    format!(
                        "{:?} would arrive at {}, where {other:?} {how}: give each newcomer a cell nobody starts on or arrives at",
                        c.name, c.at
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The scripted orders: each for a combatant of the scenario (`seen`),
    /// in a round the battle can reach, aimed at a combatant of the scenario
    /// and at a cell of the grid. Round 0, before the first, is the
    /// ruleset's to allow (`fray_rules::ruleset::ScenarioRules`).
    fn check_orders(&self, seen: &[(&str, Cell)], grid: &Grid) -> Result<(), LoadError> {
        let src = &self.source;
        let cap = self.scenario.round_cap;
        let known = |name: &str| seen.iter().any(|(n, _)| *n == name);
        for (i, o) in self.scenario.orders.iter().enumerate() {
            let (actor, order) = (&o.order.actor, &o.order);
            let off_grid = order
                .cell
                .into_iter()
                .chain(order.then)
                .find(|&c| !grid.in_bounds(c));
            let mut at: &str = actor;
            let wrong = if !known(actor) {
                Some(format!(
                    "a scripted order is for {actor:?}, who is not in the scenario"
                ))
            } else if o.round > cap {
                Some(format!(
                    "{actor:?}'s scripted order is for round {}, but rounds run from 1 to the round cap of {cap}",
                    o.round
                ))
            } else if let Some(t) = order.target.as_deref().filter(|t| !known(t)) {
                at = t;
                Some(format!(
                    "{actor:?}'s scripted order aims at {t:?}, who is not in the scenario"
                ))
            } else {
                off_grid.map(|c| format!("{actor:?}'s scripted order names {c}, outside the grid"))
            };
            if let Some(message) = wrong {
                return Err(src.error_in_item(("orders", "order"), i, at, message));
            }
        }
        Ok(())
    }

    fn side_names(&self) -> String {
        let names: Vec<String> = self
            .scenario
            .sides
            .iter()
            .map(|s| format!("{:?}", s.name))
            .collect();
        names.join(", ")
    }
}
