//! What a ruleset shows: the window draws only this, so a ruleset that
//! lands later shows up fully without window changes.
//!
//! A ruleset inserts a [`RulesView`] resource into its battle world: plain
//! functions that read the world and describe tokens (with the bars the
//! ruleset tracks), the initiative tracker in the ruleset's own terms, the
//! round's timeline and a unit sheet.

use bevy_ecs::prelude::*;

use crate::grid::Cell;
use crate::model::{Combatant, Side};

/// A bar under a token: Stress, Wound Points, EN, BD, Body …
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    pub label: &'static str,
    pub current: i32,
    pub max: i32,
}

impl Bar {
    pub fn new(label: &'static str, current: i32, max: i32) -> Self {
        Self {
            label,
            current,
            max,
        }
    }
}

/// One combatant as the board draws it.
#[derive(Clone, Debug, PartialEq)]
pub struct TokenView {
    pub entity: Entity,
    pub name: String,
    pub side: usize,
    pub cell: Cell,
    pub bars: Vec<Bar>,
    /// Short states shown under the name ("surprised", "dying", "routed").
    pub states: Vec<String>,
    /// Out of the fight (down, dead, fled): drawn faded.
    pub out: bool,
    /// Gone from the battlefield: not drawn.
    pub gone: bool,
    /// Cells it threatens (where moving provokes its reaction), if any.
    pub threat_reach: u32,
    /// Cells it may move this round, for showing reach.
    pub speed: u32,
    /// A path to draw from its cell: a revealed movement trace, say.
    pub trace: Vec<Cell>,
}

impl TokenView {
    /// Combatant `e` where it stands, with `bars`: standing, nothing
    /// threatened, no states; a ruleset fills in the rest.
    pub fn of(world: &World, e: Entity, bars: Vec<Bar>) -> Option<Self> {
        Some(Self {
            entity: e,
            name: world.get::<Combatant>(e)?.name.clone(),
            side: world.get::<Side>(e)?.0,
            cell: *world.get::<Cell>(e)?,
            bars,
            states: Vec::new(),
            out: false,
            gone: false,
            threat_reach: 0,
            speed: 0,
            trace: Vec::new(),
        })
    }
}

/// One row of the initiative tracker.
#[derive(Clone, Debug, PartialEq)]
pub struct TrackerRow {
    /// The ruleset's own mark for the row ("initiative 8", "segment 4").
    pub mark: String,
    /// Everyone acting at that mark (ties share a row: simultaneous).
    pub names: Vec<String>,
    /// Still to come this round, acting now, or done.
    pub state: RowState,
    /// Extra words ("late −12", "declared: attack Gorm").
    pub note: String,
}

impl TrackerRow {
    /// The row of one combatant acting at `mark`.
    pub fn one(mark: String, name: &str, state: RowState, note: String) -> Self {
        Self {
            mark,
            names: vec![name.to_string()],
            state,
            note,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowState {
    Done,
    Now,
    Coming,
}

/// The initiative tracker.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrackerView {
    /// The round's structure in words ("Round 3 · resolving, lowest first").
    pub heading: String,
    pub rows: Vec<TrackerRow>,
    /// Who sits out and why ("Osric: surprised").
    pub waiting: Vec<String>,
}

/// A combatant's sheet as the side panel shows it: a line a stat, its name
/// first.
#[derive(Clone, Debug, Default)]
pub struct Sheet(pub Vec<(String, String)>);

impl Sheet {
    /// The sheet of `e`, beginning with its name; `None` for one that is
    /// not a combatant.
    pub fn of(world: &World, e: Entity) -> Option<Self> {
        let c = world.get::<Combatant>(e)?;
        Some(Self(vec![("Name".into(), c.name.clone())]))
    }

    pub fn line(&mut self, key: &str, value: String) {
        self.0.push((key.to_string(), value));
    }
}

/// Functions a ruleset provides for the window.
#[derive(Resource, Clone, Copy)]
pub struct RulesView {
    pub tokens: fn(&World) -> Vec<TokenView>,
    pub tracker: fn(&World) -> TrackerView,
    /// Name–value lines for a unit sheet.
    pub sheet: fn(&World, Entity) -> Vec<(String, String)>,
    /// The round number, for "skip to the next round".
    pub round: fn(&World) -> u32,
    /// What the text calls a round ("round", "turn").
    pub round_unit: &'static str,
    /// What a move provokes from those whose reach it passes, for the
    /// board's warning before a move is ordered.
    pub provokes: crate::movement::Provokes,
    /// Whether a move takes the way that provokes fewest
    /// ([`crate::movement::wary_path`]) rather than the first shortest, so
    /// the board draws the way the rules take.
    pub wary: bool,
    /// What `actor` attacking `target` looks like: chance to hit, damage
    /// range; one line a weapon, each beginning `weapon: `.
    pub preview: fn(&World, Entity, Entity) -> Option<String>,
    /// What an order typed or aimed by hand would draw, in the words of the
    /// warnings on a person's choices, so it is announced before it is
    /// taken; empty when nothing, or when the order is refused anyway.
    pub warns: fn(&World, Entity, &crate::decision::Order) -> Vec<String>,
    /// The clock a round runs on, when it has a fixed one.
    pub clock: fn(&World) -> Option<Clock>,
    /// The spans of time the text divides a round into, when it does.
    pub periods: fn(&World) -> Option<Periods>,
    /// What its bars and abbreviations mean, for the help's legend.
    pub legend: &'static [(&'static str, &'static str)],
}

/// The periods of a round, for the timeline's upper scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Periods {
    /// Time marks that begin "`name` N" fall in period N, which lasts
    /// `seconds`; a round has `count` of them (the four 3-second phases of
    /// a 12-second turn, rules/002).
    Timed {
        name: &'static str,
        seconds: u32,
        count: u32,
    },
    /// Time marks "`period`, `moment`" fall under their period ("movement,
    /// step 2": the second fraction of the movement phase, rules/000).
    Named,
}

/// A round's clock, for the timeline: its time marks read "`name` N", N
/// running from `first` to `last` (the ten segments of rules/001).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    pub name: &'static str,
    pub first: i64,
    pub last: i64,
}
