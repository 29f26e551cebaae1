//! The end of a round: surprise is over (003 §I D), monsters check morale
//! (ruling `morale_check`; player characters never do) and a failure picks a
//! withdrawal (ruling `morale_failure`); then the end of the battle.

use bevy_ecs::prelude::*;
use fray_core::log::{Event, EventKind, Modifier, record};
use fray_core::model::{Ending, Fighting, Side};
use fray_core::morale::{MoraleCheck, roll_margin};

use super::round::stamp;
use super::{
    Data, Flow, HitPoints, Monster, MoraleDone, Stage, Stats, Surprised, Withdrawal, name, roster,
    up,
};

/// End the round: surprise ends, morale, then the end check and round cap.
pub fn end_of_round(world: &mut World) {
    stamp(world, "end of round");
    for e in roster(world) {
        world.entity_mut(e).remove::<Surprised>();
    }
    morale_checks(world);
    let mut flow = world.resource_mut::<Flow>();
    flow.quiet_rounds = if flow.struck {
        0
    } else {
        flow.quiet_rounds + 1
    };
    flow.struck = false;
    let round = flow.round;
    record(world, || {
        Event::new(
            EventKind::RoundEnd,
            "003 §II",
            format!("Round {round} ends."),
        )
    });
    let started = true;
    let ending = Ending {
        rule: "003 §Withdrawal Tactics",
        words: |side, rounds| match side {
            Some(s) => format!(
                "The battle is over after {}: the only side holding the field is {s}; the others are down, fled or surrendered.",
                fray_core::model::count_of(rounds, "round")
            ),
            None => format!(
                "The battle is over after {}: nobody is left fighting.",
                fray_core::model::count_of(rounds, "round")
            ),
        },
    };
    if fray_core::model::ended_now(world, started, roster(world), round, ending) {
        world.resource_mut::<Flow>().stage = Stage::Over;
        return;
    }
    if fray_core::model::at_round_cap(world, round, "003 §II", fray_core::model::no_winner) {
        world.resource_mut::<Flow>().stage = Stage::Over;
        return;
    }
    world.resource_mut::<Flow>().stage = Stage::BeginRound;
}

/// Ruling `morale_check`: what makes a monster check, not yet checked for.
fn triggers(world: &World, e: Entity) -> (Vec<String>, MoraleDone) {
    let mut done = world.get::<MoraleDone>(e).cloned().unwrap_or_default();
    let mut out = Vec::new();
    if let Some(hp) = world.get::<HitPoints>(e)
        && !done.half_hit_points
        && hp.current * 2 <= hp.max
    {
        done.half_hit_points = true;
        out.push("at half its hit points or less".to_string());
    }
    let side = world.get::<Side>(e).map_or(0, |s| s.0);
    let size = world
        .resource::<Flow>()
        .side_sizes
        .get(side)
        .copied()
        .unwrap_or(0);
    let fallen = roster(world)
        .into_iter()
        .filter(|&x| {
            world.get::<Side>(x).is_some_and(|s| s.0 == side) && world.get::<Fighting>(x).is_none()
        })
        .count();
    if !done.side_halved && fallen * 2 >= size && fallen > 0 {
        done.side_halved = true;
        out.push(format!("{fallen} of its {size} are out of the fight"));
    }
    (out, done)
}

/// Ruling `morale_check`: each monster still fighting and not withdrawing
/// checks once for each trigger; a failure withdraws it (ruling `morale_failure`).
fn morale_checks(world: &mut World) {
    let data = world.resource::<Data>().0.clone();
    for e in roster(world) {
        if world.get::<Monster>(e).is_none()
            || !up(world, e)
            || world.get::<Withdrawal>(e).is_some()
        {
            continue;
        }
        let (why, done) = triggers(world, e);
        if why.is_empty() {
            continue;
        }
        world.entity_mut(e).insert(done);
        let who = name(world, e);
        let morale = world.get::<Stats>(e).map_or(0, |s| s.morale);
        // One check for each trigger, until one fails.
        let margin = why
            .iter()
            .map(|trigger| {
                roll_margin(
                    world,
                    MoraleCheck {
                        name: &who,
                        rule: "ruling morale_check",
                        triggers: std::slice::from_ref(trigger),
                        dice: data.ruling_numbers.morale_dice,
                        modifiers: vec![Modifier::new("morale", morale)],
                        target: data.ruling_numbers.morale_target,
                        against: "ruling morale_check".into(),
                    },
                )
            })
            .find(|&m| m < 0);
        let Some(margin) = margin else {
            continue;
        };
        let how = match -margin {
            1..=2 => Withdrawal::FallBack,
            3..=4 => Withdrawal::Disengage,
            _ => Withdrawal::Flee,
        };
        world.entity_mut(e).insert(how);
        record(world, || {
            Event::new(
                EventKind::Rout,
                "ruling morale_failure",
                format!(
                    "{who}'s morale fails by {}: from now on it {} (003 §Withdrawal Tactics).",
                    -margin,
                    how.words()
                ),
            )
            .actor(&who)
        });
    }
}
