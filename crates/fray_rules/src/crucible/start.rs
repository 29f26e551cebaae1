//! 003 §I and §Surprise: who is surprised, once, before the first round.

use bevy_ecs::prelude::*;
use fray_core::dice::Dice;
use fray_core::log::{Event, EventKind, record};
use fray_core::model::{Side, Sides};

use super::data::{Class, CrucibleData, Race};
use super::{Data, Dictated, Flow, InitiativeOption, Monster, Stage, Stats, Surprised, roster};

/// Who rolls one surprise die together: a side, or one character.
struct Roller {
    name: String,
    side: usize,
    members: Vec<Entity>,
    group: bool,
}

/// 003 §I: surprise, dictated by the DM (§I A) or rolled (§I B), then the
/// surprise round or straight on to initiative (§I C).
pub fn surprise(world: &mut World) {
    record(world, || {
        Event::new(EventKind::Combat, "003 §Combat Procedure", "Combat begins.")
    });
    let surprised = match world.resource::<Dictated>().clone() {
        Dictated {
            side: Some(None), ..
        } => {
            record(world, || {
                Event::new(
                    EventKind::Surprise,
                    "003 §I A",
                    "The DM dictates that nobody is surprised.",
                )
            });
            Vec::new()
        }
        Dictated {
            side: Some(Some(side)),
            ..
        } => dictated(world, |_, s| s == side),
        Dictated { combatants, .. } if !combatants.is_empty() => {
            dictated(world, |listing, _| combatants.contains(&listing))
        }
        _ => rolled(world),
    };
    let all = roster(world);
    if surprised.is_empty() || surprised.len() == all.len() {
        if !surprised.is_empty() {
            record(world, || {
                Event::new(
                    EventKind::Surprise,
                    "003 §I C",
                    "Both sides are surprised: on to initiative.",
                )
            });
        } else {
            record(world, || {
                Event::new(
                    EventKind::Surprise,
                    "003 §I C",
                    "Nobody is surprised: on to initiative.",
                )
            });
        }
    } else {
        for &e in &surprised {
            world.entity_mut(e).insert(Surprised);
        }
        world.resource_mut::<Flow>().surprise_round = true;
        record(world, || {
            Event::new(
                EventKind::Surprise,
                "003 §I D",
                "Surprise lasts 1 round: only the unsurprised act in it.",
            )
        });
    }
    world.resource_mut::<Flow>().stage = Stage::BeginRound;
}

/// 003 §I A: the DM says who is surprised.
fn dictated(world: &mut World, is: impl Fn(u32, usize) -> bool) -> Vec<Entity> {
    let mut out = Vec::new();
    for e in roster(world) {
        let listing = world
            .get::<fray_core::model::Combatant>(e)
            .map_or(0, |c| c.listing);
        let side = world.get::<Side>(e).map_or(0, |s| s.0);
        if is(listing, side) {
            out.push(e);
        }
    }
    let names: Vec<String> = out.iter().map(|&e| super::name(world, e)).collect();
    record(world, || {
        Event::new(
            EventKind::Surprise,
            "003 §I A",
            format!("The DM dictates surprise: {} surprised.", names.join(", ")),
        )
    });
    out
}

/// Who rolls surprise together under the initiative option (003 §Group Vs.
/// Individual Initiative: player characters individually, monsters as a group).
fn rollers(world: &World) -> Vec<Roller> {
    let option = world.resource::<Flow>().options.initiative;
    let sides = world.resource::<Sides>().0.clone();
    let mut out: Vec<Roller> = Vec::new();
    for e in roster(world) {
        let side = world.get::<Side>(e).map_or(0, |s| s.0);
        let alone = match option {
            InitiativeOption::IndividualRolls => true,
            InitiativeOption::PcsIndividually => world.get::<Monster>(e).is_none(),
            _ => false,
        };
        if !alone && let Some(r) = out.iter_mut().find(|r| r.group && r.side == side) {
            r.members.push(e);
            continue;
        }
        let name = if alone {
            super::name(world, e)
        } else {
            sides[side].name.clone()
        };
        out.push(Roller {
            name,
            side,
            members: vec![e],
            group: !alone,
        });
    }
    out
}

/// 003 §Surprise: the adjustments a set of creatures makes to its own range
/// (a ranger −2, a monk by level, a monster previously surprised), each
/// kind once, the best of it (one member's ability benefits the side).
fn own_adjustments(world: &World, d: &CrucibleData, members: &[Entity]) -> Vec<(String, i32)> {
    let stats: Vec<&Stats> = members
        .iter()
        .filter_map(|&e| world.get::<Stats>(e))
        .collect();
    let mut out = Vec::new();
    if stats.iter().any(|s| s.class == Class::Ranger) {
        out.push(("a ranger".to_string(), d.numbers.ranger_is_surprised));
    }
    let best = |f: &dyn Fn(&Stats) -> Option<i32>| stats.iter().filter_map(|s| f(s)).min();
    let monk = best(&|s: &Stats| {
        (s.class == Class::Monk)
            .then(|| {
                d.numbers
                    .monk_surprised
                    .iter()
                    .rev()
                    .find(|(from, _)| s.level >= *from)
            })
            .flatten()
            .map(|(_, adj)| *adj)
    });
    if let Some(adj) = monk {
        out.push(("a monk".to_string(), adj));
    }
    let previously = best(&|s: &Stats| {
        d.numbers
            .previously_surprised
            .iter()
            .rev()
            .find(|(of, _)| s.previously_surprised >= *of)
            .map(|(_, adj)| *adj)
    });
    if let Some(adj) = previously {
        out.push(("previously surprised".to_string(), adj));
    }
    out
}

/// 003 §Surprise: what the enemies of `side` add to its range (an elf or
/// halfling on point, a ranger), each kind once.
fn enemy_abilities(world: &World, d: &CrucibleData, side: usize) -> Vec<(String, i32)> {
    let foes: Vec<&Stats> = roster(world)
        .into_iter()
        .filter(|&e| world.get::<Side>(e).is_some_and(|s| s.0 != side))
        .filter_map(|e| world.get::<Stats>(e))
        .collect();
    let mut out = Vec::new();
    if foes
        .iter()
        .any(|s| s.on_point && matches!(s.race, Race::Elf | Race::Halfling))
    {
        out.push((
            "an elf or halfling on point".to_string(),
            d.numbers.on_point_surprises,
        ));
    }
    if foes.iter().any(|s| s.class == Class::Ranger) {
        out.push(("an enemy ranger".to_string(), d.numbers.ranger_surprises));
    }
    out
}

/// The surprise range of `roller`: 1–4, moved by the abilities on both
/// sides (003 §Surprise: adjustments apply to the range, not the roll).
pub(super) fn range_of(
    world: &World,
    members: &[Entity],
    side: usize,
) -> (i32, Vec<(String, i32)>) {
    let d = &world.resource::<Data>().0;
    let mut adj = enemy_abilities(world, d, side);
    adj.extend(own_adjustments(world, d, members));
    let range = d.numbers.surprise_range + adj.iter().map(|(_, a)| a).sum::<i32>();
    (range.clamp(0, 12), adj)
}

/// 003 §I B: each roller's d12 against its range.
fn rolled(world: &mut World) -> Vec<Entity> {
    let die = world.resource::<Data>().0.numbers.surprise_die;
    let mut surprised = Vec::new();
    for r in rollers(world) {
        let (range, adj) = range_of(world, &r.members, r.side);
        let roll = world
            .resource_mut::<Dice>()
            .roll_for(die, || format!("{}'s surprise", r.name));
        let is = roll.total <= range;
        let why: Vec<String> = adj.iter().map(|(w, a)| format!("{a:+} {w}")).collect();
        let span = if range == 0 {
            "no range".to_string()
        } else {
            format!("a range of 1–{range}")
        };
        let text = format!(
            "{} rolls surprise {} against {span}{}: {}.",
            r.name,
            roll.total,
            fray_core::log::aside(" (", &why, ")"),
            if is { "surprised" } else { "not surprised" }
        );
        record(world, || {
            Event::new(EventKind::Surprise, "003 §Surprise", text).roll(roll.clone())
        });
        if is {
            surprised.extend(r.members.iter().copied());
        } else {
            let mut flow = world.resource_mut::<Flow>();
            flow.surprise_rolls
                .extend(r.members.iter().map(|&e| (e, roll.total)));
        }
    }
    surprised
}
