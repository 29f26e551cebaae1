//! The end of a round: morale (ruling `morale`), the end of the battle
//! (001 §Combat) and the round cap.

use bevy_ecs::prelude::*;
use fray_core::log::{BattleLog, Modifier};
use fray_core::model::{Blocking, Side, Sides};
use fray_core::morale::{self, MoraleCheck};

use super::resolve::check_end;
use super::{Data, Fled, Flow, Stage, Stats, able, roster};

/// The round is over: monsters that have lost half their number check
/// morale; the battle ends when one side is left, or at the round cap.
pub fn end_of_round(world: &mut World) {
    world.resource_mut::<BattleLog>().time = "end of round".into();
    let sides = world.resource::<Sides>().clone();
    for (i, side) in sides.0.iter().enumerate() {
        if side.morale {
            check_morale(world, i, &side.name);
        }
    }
    if check_end(world) {
        return;
    }
    let round = world.resource::<Flow>().round;
    if fray_core::model::at_round_cap(world, round, "001 §Combat", fray_core::model::no_winner) {
        world.resource_mut::<Flow>().stage = Stage::Over;
        return;
    }
    world.resource_mut::<Flow>().stage = Stage::BeginRound;
}

/// Ruling `morale`: once a side of monsters is down to half its number,
/// it checks once: 2d6 + its best morale against 7; below, it breaks and
/// every one of them leaves the battlefield.
fn check_morale(world: &mut World, side: usize, name: &str) {
    let flow = world.resource::<Flow>();
    if flow.morale_checked.get(side) == Some(&true) {
        return;
    }
    let starting = flow.starting.get(side).copied().unwrap_or(0);
    let members: Vec<Entity> = roster(world)
        .into_iter()
        .filter(|&e| world.get::<Side>(e).is_some_and(|s| s.0 == side))
        .filter(|&e| able(world, e))
        .collect();
    if members.is_empty() || members.len() * 2 > starting {
        return;
    }
    world.resource_mut::<Flow>().morale_checked[side] = true;
    let best = members
        .iter()
        .filter_map(|&e| world.get::<Stats>(e).map(|s| s.morale))
        .max()
        .unwrap_or(0);
    let n = world.resource::<Data>().0.ruling_numbers.clone();
    let left = match members.len() {
        1 => format!("1 of {starting} is left"),
        n => format!("{n} of {starting} are left"),
    };
    let triggers = [left];
    let failed = morale::roll(
        world,
        MoraleCheck {
            name: &format!("The {name} side"),
            rule: "ruling morale",
            triggers: &triggers,
            dice: n.morale_dice,
            modifiers: vec![Modifier::new("morale", best)],
            target: n.morale_target,
            against: n.morale_target.to_string(),
        },
    );
    if failed {
        for e in members {
            morale::rout(world, e, "ruling morale");
            world.entity_mut(e).insert(Fled).remove::<Blocking>();
        }
    }
}
