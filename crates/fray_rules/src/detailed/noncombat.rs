//! 000 §2: the noncombat phase. Those who spent no blow or EN in the combat
//! phase choose secretly and together (§2.1); the options take effect
//! together (§2.2).

use bevy_ecs::prelude::*;
use fray_core::dice::Dice;
use fray_core::log::Event;
use fray_core::log::EventKind;

use super::combat::{ask, knocked_out, log, stamp, take_answers};
use super::data::SpellEffect;
use super::orders::Plan;
use super::{
    Alert, Ask, Blows, Data, DetailedData, En, Flow, Hands, Noncombat, Stage, name, roster, up,
};

/// 000 §2.1: who may choose a noncombat option.
pub fn eligible(world: &World) -> Vec<Entity> {
    roster(world)
        .into_iter()
        .filter(|&e| {
            up(world, e)
                && world
                    .get::<Blows>(e)
                    .is_some_and(|b| !b.spent_in_combat && b.en_round == 0)
        })
        .collect()
}

/// 000 §2: ask everyone eligible at once, then resolve together.
pub fn noncombat_phase(world: &mut World) {
    for (e, what, plan) in take_answers(world) {
        if what == Ask::Noncombat {
            world.resource_mut::<Flow>().hidden.push((e, plan));
        }
    }
    let (open, hidden) = {
        let f = world.resource::<Flow>();
        (f.open.len(), f.hidden.len())
    };
    if open > 0 {
        return;
    }
    if hidden == 0 {
        let who = eligible(world);
        if !who.is_empty() {
            for e in who {
                let n = name(world, e);
                ask(
                    world,
                    e,
                    Ask::Noncombat,
                    |_| {
                        format!(
                            "{n} spent nothing in the combat phase: choose a noncombat option, in secret."
                        )
                    },
                    "000 §2.1",
                );
            }
            return;
        }
    }
    resolve(world);
    let mut flow = world.resource_mut::<Flow>();
    flow.stage = Stage::Movement;
    stamp(world, || "movement".into());
    log(world, || {
        Event::new(
            EventKind::Phase,
            "000 §3",
            "The movement phase: everyone plots a trace, in secret.",
        )
    });
}

/// 000 §2.2: reveal the options and carry them out together: each from the
/// state before any of them.
fn resolve(world: &mut World) {
    let mut chosen = std::mem::take(&mut world.resource_mut::<Flow>().hidden);
    chosen.sort_by_key(|(e, _)| fray_core::model::listing(world, *e));
    if chosen.is_empty() {
        log(world, || {
            Event::new(
                EventKind::Phase,
                "000 §2.1",
                "Nobody may take a noncombat option: everyone spent blows in the combat phase.",
            )
        });
        return;
    }
    let data = world.resource::<Data>().0.clone();
    let words: Vec<String> = chosen
        .iter()
        .map(|(e, p)| format!("{}: {}", name(world, *e), super::combat::describe(world, p)))
        .collect();
    log(world, || {
        Event::new(
            EventKind::Reveal,
            "000 §2.2",
            format!("The noncombat options are revealed — {}.", words.join("; ")),
        )
    });
    // Everything is worked out first, then applied: simultaneous.
    let mut changes: Vec<(Entity, i32)> = Vec::new();
    for (e, plan) in &chosen {
        let e = *e;
        let who = name(world, e);
        if *plan != Plan::Nothing {
            // 000 §2.1: a noncombat option ends alertness and halves movement.
            world.entity_mut(e).insert((Alert(false), Noncombat));
        }
        match plan {
            Plan::Rest => rest(world, e, &who, &mut changes),
            Plan::Cast { spell, target } => {
                cast(world, &data, e, &who, spell, *target, &mut changes)
            }
            Plan::AdjustArmour => adjust_armour(world, e, &who),
            _ => {}
        }
    }
    take_effect_together(world, changes);
}

/// 000 §2.2: "the effects of noncombat options are considered to take
/// effect simultaneously": each character's EN changes are summed, all are
/// applied, and only then is anyone found unconscious.
fn take_effect_together(world: &mut World, changes: Vec<(Entity, i32)>) {
    let mut net: Vec<(Entity, i32)> = Vec::new();
    for (e, delta) in changes {
        match net.iter_mut().find(|(x, _)| *x == e) {
            Some((_, sum)) => *sum += delta,
            None => net.push((e, delta)),
        }
    }
    for &(e, delta) in &net {
        let Some(mut en) = world.get_mut::<En>(e) else {
            continue;
        };
        let lost = (en.current + delta - en.max).max(0);
        en.current = (en.current + delta).min(en.max);
        let (now, max) = (en.current, en.max);
        if lost > 0 {
            // What was said to be gained, past the most it may have.
            let who = name(world, e);
            log(world, || {
                Event::new(
                    EventKind::Note,
                    "000 §2.2",
                    format!("{who}'s EN cannot go past its {max}: {lost} of what it gained are lost; EN {now}."),
                )
                .actor(&who)
            });
        }
    }
    for (e, _) in net {
        knocked_out(world, e);
    }
}

/// 000 §2.1.1 Rest: "Recover the lesser of the hourly recovery rate and one
/// less than the EN expended during the previous round."
fn rest(world: &mut World, e: Entity, who: &str, changes: &mut Vec<(Entity, i32)>) {
    let rate = world.get::<super::Stats>(e).map_or(0, |s| s.recovery);
    let last = world.get::<Blows>(e).map_or(0, |b| b.en_last_round);
    let gain = rate.min(last - 1).max(0);
    changes.push((e, gain));
    log(world, || {
        Event::new(
            EventKind::Rest,
            "000 §2.1.1",
            format!("{who} rests: the lesser of its recovery rate {rate} and one less than the {last} EN spent last round: +{gain} EN."),
        )
        .actor(who)
        .amount(-gain)
    });
}

/// 000 §2.1.2 Cast spell: its EN is spent and its effect rolled (ruling
/// `spells`).
fn cast(
    world: &mut World,
    data: &DetailedData,
    e: Entity,
    who: &str,
    spell: &str,
    target: Entity,
    changes: &mut Vec<(Entity, i32)>,
) {
    let Some(s) = data.spells.get(spell) else {
        return;
    };
    changes.push((e, -s.en_cost));
    if let Some(mut b) = world.get_mut::<Blows>(e) {
        b.en_round += s.en_cost;
    }
    let t = name(world, target);
    let (roll, delta) = match s.effect {
        SpellEffect::Harm(d) => {
            let r = world
                .resource_mut::<Dice>()
                .roll_for(d, || format!("{who}'s {spell}"));
            let v = r.total;
            (r, -v)
        }
        SpellEffect::Mend(d) => {
            let r = world
                .resource_mut::<Dice>()
                .roll_for(d, || format!("{who}'s {spell}"));
            let v = r.total;
            (r, v)
        }
    };
    changes.push((target, delta));
    let cost = s.en_cost;
    log(world, || {
        Event::new(
            EventKind::Cast,
            "000 §2.1.2",
            format!(
                "{who} casts {spell} on {t} ({cost} EN; ruling spells): {} {} EN.",
                if delta < 0 { "it loses" } else { "it gains" },
                delta.abs()
            ),
        )
        .actor(&t)
        .target(&t)
        .roll(roll)
        .amount(-delta)
    });
}

/// 000 §2.1.3 Adjust armor: "Don armor if not already worn" (ruling
/// `armour`: it counts from the next attack).
fn adjust_armour(world: &mut World, e: Entity, who: &str) {
    if let Some(mut h) = world.get_mut::<Hands>(e) {
        h.armour_on = true;
    }
    log(world, || {
        Event::new(
            EventKind::Armour,
            "000 §2.1.3",
            format!("{who} adjusts its armour: it is on now, and counts from the next attack (ruling armour)."),
        )
        .actor(who)
    });
}
