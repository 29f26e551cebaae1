//! 002 §Initiative and §Surprise: once, when the battle starts.

use bevy_ecs::prelude::*;
use fray_core::dice::Dice;
use fray_core::log::EventKind;
use fray_core::log::{BattleLog, Event};

use super::turn::log;
use super::{Data, Flow, Initiative, PhasesData, Stage, Stats, Unaware, roster};

/// A character's place in the initiative count: its score, its tie-break
/// rolls so far, its place in the roster, and the character.
type Placing = (i32, Vec<u32>, u32, Entity);

/// 002 §Initiative: each score is Combat Value plus Lightning Reflexes; tied
/// characters roll off once (ruling `initiative_ties`) and the order holds
/// for the whole battle. 002 §Surprise Phase: one happens only when some but
/// not all characters are aware.
pub fn start_of_combat(world: &mut World) {
    let data = world.resource::<Data>().0.clone();
    let all = roster(world);
    log(world, || {
        Event::new(
            EventKind::Combat,
            "002 §Sequence",
            format!(
                "Combat begins: {} characters, turns of {} phases of {} seconds.",
                all.len(),
                data.numbers.phases_per_turn,
                data.numbers.seconds_per_phase
            ),
        )
    });
    let mut scored = initiative_scores(world, &all);
    break_ties(world, &data, &mut scored);
    let order = initiative_order(world, scored);
    let surprise = surprise(world, &data, &all);
    begin_first_phase(world, order, surprise);
}

/// 002 §Initiative: "each character has an Initiative score equal to their
/// Combat Value (plus their Lightning Reflexes modifier if they have one)".
fn initiative_scores(world: &mut World, all: &[Entity]) -> Vec<Placing> {
    let mut scored: Vec<Placing> = Vec::new();
    for (listing, &e) in all.iter().enumerate() {
        let Some(stats) = world.get::<Stats>(e) else {
            continue;
        };
        let score = stats.cv + stats.lightning_reflexes;
        let lr = stats.lightning_reflexes;
        world
            .entity_mut(e)
            .insert(Initiative { score, moved: None });
        let name = super::name(world, e);
        log(world, || {
            let text = if lr != 0 {
                format!(
                    "{name}'s Initiative score is {score}: Combat Value {} plus Lightning Reflexes {lr:+}.",
                    score - lr
                )
            } else {
                format!("{name}'s Initiative score is its Combat Value, {score}.")
            };
            Event::new(EventKind::Initiative, "002 §Initiative", text).actor(&name)
        });
        scored.push((score, Vec::new(), listing as u32, e));
    }
    scored
}

/// 002 §Initiative: "the characters who are tied randomly determine which one
/// of them goes before the other" (ruling `initiative_ties`). Ties roll off
/// until every tied character has its own place.
fn break_ties(world: &mut World, data: &PhasesData, scored: &mut [Placing]) {
    loop {
        let mut tied: Vec<usize> = Vec::new();
        for i in 0..scored.len() {
            let twins = scored
                .iter()
                .filter(|o| o.0 == scored[i].0 && o.1 == scored[i].1)
                .count();
            if twins > 1 {
                tied.push(i);
            }
        }
        if tied.is_empty() {
            break;
        }
        for i in tied {
            let e = scored[i].3;
            let name = super::name(world, e);
            let roll = world.resource_mut::<Dice>().roll(
                data.ruling_numbers.initiative_tie_die,
                format!("{name}'s initiative tie-break"),
            );
            let again = !scored[i].1.is_empty();
            scored[i].1.push(roll.total as u32);
            let (score, total) = (scored[i].0, roll.total);
            log(world, || {
                Event::new(
                    EventKind::Initiative,
                    "ruling initiative_ties",
                    if again {
                        format!("{name} is still tied at {score} and rolls again: {total}.")
                    } else {
                        format!("{name} is tied at {score} and rolls {total} to break the tie.")
                    },
                )
                .actor(&name)
                .roll(roll)
            });
        }
    }
}

/// 002 §Initiative: "Characters act in order, counting down from highest
/// result to lowest. In every phase that follows, the characters act in the
/// same order".
fn initiative_order(world: &mut World, mut scored: Vec<Placing>) -> Vec<Entity> {
    scored.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| b.1.cmp(&a.1))
            .then(a.2.cmp(&b.2))
    });
    let order: Vec<Entity> = scored.iter().map(|s| s.3).collect();
    let names: Vec<String> = order.iter().map(|&e| super::name(world, e)).collect();
    log(world, || {
        Event::new(
            EventKind::Initiative,
            "002 §Initiative",
            format!(
                "The order, highest first, for every phase: {}.",
                names.join(", ")
            ),
        )
    });
    order
}

/// 002 §Surprise: "If some but not all of the characters are aware of their
/// opponents, a Surprise Phase happens"; the unaware have the Surprise
/// Phase's DCV penalty, and stay unaware only if it happens.
fn surprise(world: &mut World, data: &PhasesData, all: &[Entity]) -> bool {
    let unaware: Vec<Entity> = all
        .iter()
        .copied()
        .filter(|&e| world.get::<Unaware>(e).is_some())
        .collect();
    let surprise = !unaware.is_empty() && unaware.len() < all.len();
    for &e in &unaware {
        let name = super::name(world, e);
        log(world, || {
            Event::new(
                EventKind::Surprise,
                "002 §Surprise Phase",
                if surprise {
                    format!(
                        "{name} is not aware of its opponents: it does not act in the Surprise Phase, and has {} DCV during it.",
                        data.numbers.unaware_dcv
                    )
                } else {
                    format!("{name} is not aware of its opponents, but nobody is: there is no Surprise Phase.")
                },
            )
            .actor(&name)
        });
    }
    if !surprise {
        for &e in &unaware {
            world.entity_mut(e).remove::<Unaware>();
        }
    }
    surprise
}

/// 002 §Surprise Phase: "a Surprise Phase happens before regular phases
/// begin"; without one, 002 §Time: turn 1 begins with its first phase.
fn begin_first_phase(world: &mut World, order: Vec<Entity>, surprise: bool) {
    let mut flow = world.resource_mut::<Flow>();
    flow.order = order;
    flow.turn = 1;
    flow.phase = if surprise { 0 } else { 1 };
    flow.restricted = surprise;
    flow.stage = Stage::Phase;
    let words = flow.phase_words();
    let mut l = world.resource_mut::<BattleLog>();
    l.round = 1;
    l.time = words.clone();
    log(world, || {
        Event::new(
            EventKind::Phase,
            if surprise {
                "002 §Surprise Phase"
            } else {
                "002 §Time"
            },
            if surprise {
                "The Surprise Phase: the aware act in initiative order, one attack action or one move action each.".to_string()
            } else {
                format!("Turn 1, {words} begins.")
            },
        )
    });
}
