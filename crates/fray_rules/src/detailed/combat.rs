//! 000 §1: the combat phase. Segment after segment the initiative is found
//! afresh (§1.1) and its holder takes an option (§1.2); an attack asks the
//! alert characters in range whether they parry, then resolves (§1.2.5).
//! Also the start of each round and the end of the battle.

use bevy_ecs::prelude::*;
use fray_core::decision::{self, Order, Question};
use fray_core::dice::{Dice, DiceExpr, Roll};
use fray_core::grid::{Cell, Grid, GridGeometry};
use fray_core::log::EventKind;
use fray_core::log::{BattleLog, Check, Event, Modifier, if_kept};
use fray_core::model::Ending;

use super::data::{Consequence, DetailedData, Heft, Weapon, WeaponKind};
use super::orders::{
    self, Manoeuvre, Need, Plan, can_spend, has_blow, parry_weapon, preparations, shield, weapon,
};
use super::{
    Alert, Ask, Bd, Blows, Condition, Data, En, Fallen, Flow, Hands, Noncombat, Passed,
    PendingAttack, Preparation, Stage, Stats, alert, enemies, name, roster, up,
};

/// Log an event (its text built only when the log keeps entries).
pub(super) use fray_core::log::record as log;

/// Stamp the log with the round and the phase (the phase in words only
/// for a log that keeps entries).
pub(super) fn stamp(world: &mut World, time: impl FnOnce() -> String) {
    world.resource_mut::<BattleLog>().round = world.resource::<Flow>().round;
    fray_core::log::mark_time(world, |_| time());
}

/// Publish a decision for `actor`; choices are listed for people only.
/// Options taken together, noncombat options and traces are secret.
pub(super) fn ask(
    world: &mut World,
    actor: Entity,
    what: Ask,
    prompt: impl FnOnce(&World) -> String,
    rule: &str,
) {
    world.resource_mut::<Flow>().open.push((0, actor, what));
    let secret = matches!(what, Ask::Noncombat | Ask::Trace)
        || (what == Ask::Option && world.resource::<Flow>().initiative.len() > 1);
    // A cell may be typed for a trace, where there is movement to trace.
    let move_order = (what == Ask::Trace && super::orders::allowance(world, actor, true) > 0)
        .then(|| Order::new(name(world, actor), "trace"));
    let question = Question {
        actor,
        prompt: decision::prompt(world, actor, prompt),
        rule: rule.to_string(),
        secret,
        move_order,
        choices: orders::choices,
    };
    let id = decision::ask(world, question);
    let mut flow = world.resource_mut::<Flow>();
    if let Some(slot) = flow
        .open
        .iter_mut()
        .find(|(i, e, _)| *i == 0 && *e == actor)
    {
        slot.0 = id;
    }
}

/// Take the answers to open decisions: checked, and either refused (the
/// decision stays open) or handed back with what was asked and the plan.
pub(super) fn take_answers(world: &mut World) -> Vec<(Entity, Ask, Plan)> {
    let taken = decision::take_answers(world, "000 §1.2", |world, d, order| {
        let open = &world.resource::<Flow>().open;
        let what = open.iter().find(|(i, _, _)| *i == d.id).map(|o| o.2);
        orders::validate(world, d.actor, order).map(|plan| (what, plan))
    });
    let mut flow = world.resource_mut::<Flow>();
    flow.open
        .retain(|(i, _, _)| !taken.iter().any(|(d, _)| d.id == *i));
    taken
        .into_iter()
        .filter_map(|(d, (what, plan))| Some((d.actor, what?, plan)))
        .collect()
}

/// 000 §1 Blows: spend blows `need` (checked beforehand): a blow that may
/// be of either kind comes from the reactive blows first (ruling
/// `blow_kind`); in the movement phase they are borrowed from the next
/// round (ruling `borrowed_blows`). Returns the EN it cost.
pub(super) fn spend(world: &mut World, e: Entity, need: Need) -> i32 {
    let Ok(cost) = can_spend(world, e, need) else {
        return 0;
    };
    let stage = world.resource::<Flow>().stage;
    let (full_active, full_reactive) = world
        .get::<Stats>(e)
        .map_or((0, 0), |s| (s.active, s.reactive));
    if let Some(mut b) = world.get_mut::<Blows>(e) {
        let count = need.active + need.any;
        if stage == Stage::Movement {
            // Of the next round's blows, as in the combat phase (ruling
            // blow_kind): `can_spend` saw to it that there are enough.
            let left = (
                full_active.saturating_sub(b.borrowed_active),
                full_reactive.saturating_sub(b.borrowed_reactive),
            );
            if let Some((active, reactive)) = need.taken(left.0, left.1) {
                b.borrowed_active = full_active - active;
                b.borrowed_reactive = full_reactive - reactive;
            }
        } else {
            // `can_spend` saw to it that there are blows enough.
            if let Some((active, reactive)) = need.taken(b.active, b.reactive) {
                (b.active, b.reactive) = (active, reactive);
            }
        }
        b.spent += count;
        b.en_phase += cost;
        b.en_round += cost;
        if stage == Stage::Combat {
            b.spent_in_combat = true;
        }
    }
    if let Some(mut en) = world.get_mut::<En>(e) {
        en.current -= cost;
    }
    cost
}

/// 000 §1.2.4: a blow spent on anything but a preparation or the attack
/// loses the preparations.
fn lose_preparation(world: &mut World, e: Entity, why: &str) {
    world.resource_mut::<Flow>().chain.retain(|&x| x != e);
    if world.get::<Preparation>(e).is_some() {
        world.entity_mut(e).remove::<Preparation>();
        let who = name(world, e);
        let why = why.to_string();
        log(world, || {
            Event::new(
                EventKind::Preparation,
                "000 §1.2.4",
                format!("{who}'s great blow is lost: {why}."),
            )
            .actor(&who)
        });
    }
}

/// 000 §1.2.4: a chain of preparations with a thrusting weapon or a bow
/// broken: that weapon's preparations are lost; those of another weapon,
/// lost only to a blow spent otherwise, stay.
fn lose_chain(world: &mut World, e: Entity, why: &str) {
    world.resource_mut::<Flow>().chain.retain(|&x| x != e);
    let Some(mut p) = world.get::<Preparation>(e).cloned() else {
        return;
    };
    let chained = |w: &str| {
        weapon(world, w).is_some_and(|d| matches!(d.kind, WeaponKind::Thrusting | WeaponKind::Bow))
    };
    let lost: Vec<String> = p
        .weapons
        .iter()
        .filter(|(w, _)| chained(w))
        .map(|(w, _)| w.clone())
        .collect();
    if lost.is_empty() {
        return;
    }
    p.weapons.retain(|(w, _)| !lost.contains(w));
    if p.weapons.is_empty() {
        world.entity_mut(e).remove::<Preparation>();
    } else {
        world.entity_mut(e).insert(p);
    }
    let who = name(world, e);
    let (why, lost) = (why.to_string(), lost.join(" and the "));
    log(world, || {
        Event::new(
            EventKind::Preparation,
            "000 §1.2.4",
            format!("{who}'s great blow with the {lost} is lost: {why}."),
        )
        .actor(&who)
    });
}

/// A new round: blows back (less those borrowed), preparations, passes and
/// noncombat marks gone; the combat phase begins.
pub fn start_of_round(world: &mut World) {
    let round = world.resource::<Flow>().round + 1;
    let rounds = round - 1;
    let after = fray_core::model::count_of(rounds, "round");
    let words = |_| format!("The battle stops after {after} (the scenario's cap).");
    if fray_core::model::at_round_cap(world, rounds, "scenario round_cap", words) {
        world.resource_mut::<Flow>().stage = Stage::Over;
        return;
    }
    // 000 §1.2.4: "The effects of the preparation are lost ... if the round
    // ends."
    for e in roster(world) {
        lose_preparation(world, e, "the round has ended");
    }
    world.resource_mut::<Flow>().round = round;
    stamp(world, || "combat".into());
    for e in roster(world) {
        let Some(stats) = world.get::<Stats>(e).cloned() else {
            continue;
        };
        if let Some(mut b) = world.get_mut::<Blows>(e) {
            b.active = stats.active.saturating_sub(b.borrowed_active);
            b.reactive = stats.reactive.saturating_sub(b.borrowed_reactive);
            (b.borrowed_active, b.borrowed_reactive) = (0, 0);
            b.spent = 0;
            b.en_last_round = b.en_round;
            b.en_round = 0;
            b.en_phase = 0;
            b.spent_in_combat = false;
        }
        world.entity_mut(e).remove::<(Passed, Noncombat)>();
    }
    {
        let mut flow = world.resource_mut::<Flow>();
        flow.stage = Stage::Combat;
        flow.traces.clear();
        flow.stopped.clear();
    }
    log(world, || {
        Event::new(
            EventKind::Round,
            "000 §Rounds",
            format!("Round {round} begins: the combat phase."),
        )
    });
}

/// 000 §1.1.1: who may have the initiative: conscious, not passed since the
/// last other option, with a blow left it can pay for.
pub fn eligible(world: &World) -> Vec<Entity> {
    roster(world)
        .into_iter()
        .filter(|&e| up(world, e) && world.get::<Passed>(e).is_none() && has_blow(world, e))
        .collect()
}

/// 000 §1.1.2: most active blows, then most reactive, then most EN.
pub fn standing(world: &World, e: Entity) -> (u32, u32, i32) {
    let b = world.get::<Blows>(e).cloned().unwrap_or_default();
    let en = world.get::<En>(e).map_or(0, |x| x.current);
    (b.active, b.reactive, en)
}

/// 000 §1.1.2–3: who has the initiative (several: simultaneous), and why.
pub fn initiative(world: &World) -> (Vec<Entity>, String) {
    let mut all = eligible(world);
    all.sort_by_key(|&e| std::cmp::Reverse(standing(world, e)));
    let Some(&first) = all.first() else {
        return (Vec::new(), String::new());
    };
    let best = standing(world, first);
    let holders: Vec<Entity> = all
        .iter()
        .copied()
        .filter(|&e| standing(world, e) == best)
        .collect();
    let next = all.iter().copied().find(|e| !holders.contains(e));
    let why = if_kept(world, |w| initiative_words(w, best, next, holders.len()));
    (holders, why)
}

/// Why the initiative goes where it does, in words: the standing of those
/// who hold it (`best`), against the next best's, if any.
fn initiative_words(
    world: &World,
    best: (u32, u32, i32),
    next: Option<Entity>,
    holders: usize,
) -> String {
    let (a, r, en) = best;
    let mut why = format!("{a} active, {r} reactive, {en} EN");
    if let Some(next) = next {
        let (na, nr, nen) = standing(world, next);
        let decider = if a != na {
            "more active blows"
        } else if r != nr {
            "more reactive blows"
        } else {
            "more EN"
        };
        why.push_str(&format!(
            " against {}'s {na}, {nr}, {nen}: {decider}",
            name(world, next)
        ));
    } else if holders == 1 {
        why.push_str(": nobody else is eligible");
    }
    why
}

/// 000 §1: the combat phase, segment after segment.
pub fn combat_phase(world: &mut World) {
    for (actor, what, plan) in take_answers(world) {
        match what {
            Ask::Option => {
                let together = world.resource::<Flow>().initiative.len() > 1;
                if together {
                    world.resource_mut::<Flow>().hidden.push((actor, plan));
                } else {
                    execute(world, actor, plan);
                }
            }
            Ask::Parry { .. } => parry(world, actor, plan),
            _ => {}
        }
    }
    if !world.resource::<Flow>().open.is_empty() {
        return;
    }
    // 000 §1.1.3: every simultaneous option is in: reveal them together.
    if !world.resource::<Flow>().hidden.is_empty() {
        reveal(world);
    }
    for _ in 0..10_000 {
        if decided(world) {
            return;
        }
        if world.resource::<Flow>().attack.is_some() {
            if ask_parrier(world) {
                return;
            }
            resolve_attack(world);
            continue;
        }
        let queued = {
            let mut flow = world.resource_mut::<Flow>();
            (!flow.queue.is_empty()).then(|| flow.queue.remove(0))
        };
        if let Some((e, plan)) = queued {
            carry_out_declared(world, e, plan);
            continue;
        }
        let batch_done = {
            let mut flow = world.resource_mut::<Flow>();
            flow.busy.clear();
            std::mem::replace(&mut flow.in_batch, false)
        };
        if batch_done {
            land_held(world);
            // Blows landing together may leave nobody, or one side, up.
            if decided(world) {
                return;
            }
        }
        if !world.resource::<Flow>().chain.is_empty() {
            if chains_go_on(world) {
                return;
            }
            continue;
        }
        let (holders, why) = initiative(world);
        if holders.is_empty() {
            end_combat_phase(world);
            return;
        }
        give_initiative(world, holders, why);
        return;
    }
}

/// 000 §1.1.3: an option declared together, checked again against the
/// state the earlier ones left, and carried out if it still can be (ruling
/// `simultaneous_order`).
fn carry_out_declared(world: &mut World, e: Entity, plan: Plan) {
    match recheck(world, e, &plan) {
        Ok(()) => execute(world, e, plan),
        Err(why) => {
            let who = name(world, e);
            let what = describe(world, &plan);
            log(world, || {
                Event::new(
                    EventKind::Lost,
                    "ruling simultaneous_order",
                    format!("{who}'s option ({what}) can no longer be carried out: {why}."),
                )
                .actor(&who)
            });
        }
    }
}

/// 000 §1.2.4: a thrusting weapon or bow prepared must go on at once with
/// another preparation or the attack, each character's chain its own;
/// those who prepared together go on together (000 §1.1.3). Returns true
/// when some are asked to; who cannot go on loses the preparations.
fn chains_go_on(world: &mut World) -> bool {
    let chained = world.resource::<Flow>().chain.clone();
    let mut going = Vec::new();
    for e in chained {
        if up(world, e) && can_spend(world, e, Need { active: 1, any: 0 }).is_ok() {
            going.push(e);
        } else {
            lose_chain(world, e, "the chain of preparations could not go on");
        }
    }
    if going.is_empty() {
        return false;
    }
    let names: Vec<String> = going.iter().map(|&e| name(world, e)).collect();
    stamp(world, || format!("combat, {}", names.join(" & ")));
    world.resource_mut::<Flow>().initiative = going.clone();
    let together = if going.len() > 1 {
        ", together with the others, in secret"
    } else {
        ""
    };
    for (e, who) in going.into_iter().zip(names) {
        ask(
            world,
            e,
            Ask::Option,
            |_| format!("{who} goes on with its great blow{together}: prepare again or attack."),
            "000 §1.2.4",
        );
    }
    true
}

/// 000 §1.1.2–3: the initiative goes to `holders` (several: simultaneous,
/// their options declared secretly and together); each is asked for its
/// option (000 §1.2).
fn give_initiative(world: &mut World, holders: Vec<Entity>, why: String) {
    let names: Vec<String> = holders.iter().map(|&e| name(world, e)).collect();
    stamp(world, || format!("combat, {}", names.join(" & ")));
    {
        let mut flow = world.resource_mut::<Flow>();
        flow.initiative = holders.clone();
        flow.why = why.clone();
    }
    let together = holders.len() > 1;
    log(world, || {
        Event::new(
            EventKind::Initiative,
            if together { "000 §1.1.3" } else { "000 §1.1.2" },
            if together {
                format!(
                    "{} tie ({why}): simultaneous initiative; they declare their options secretly and together.",
                    names.join(" and ")
                )
            } else {
                format!("{} has the initiative ({why}).", names[0])
            },
        )
        .actor(&names[0])
    });
    for e in holders {
        let who = name(world, e);
        let b = world.get::<Blows>(e).cloned().unwrap_or_default();
        ask(
            world,
            e,
            Ask::Option,
            |_| {
                format!(
                    "{who} has the initiative{}: choose an option ({} active, {} reactive blows left).",
                    if together {
                        " with others, in secret"
                    } else {
                        ""
                    },
                    b.active,
                    b.reactive
                )
            },
            "000 §1.2",
        );
    }
}

/// Whether at most one side has anyone conscious.
fn decided(world: &World) -> bool {
    fray_core::model::sides_standing(world, roster(world)).len() < 2
}

/// 000 §1.1.3: the options declared together, revealed, then carried out in
/// listing order (ruling `simultaneous_order`).
fn reveal(world: &mut World) {
    let mut hidden = std::mem::take(&mut world.resource_mut::<Flow>().hidden);
    hidden.sort_by_key(|(e, _)| fray_core::model::listing(world, *e));
    let mut busy = Vec::new();
    let mut words = Vec::new();
    for (e, plan) in &hidden {
        if let Plan::Attack { weapon, .. }
        | Plan::Prepare { weapon }
        | Plan::Draw { weapon }
        | Plan::Grab { weapon, .. } = plan.option()
        {
            busy.push((*e, weapon.clone()));
        }
        words.push(format!("{}: {}", name(world, *e), describe(world, plan)));
    }
    log(world, || {
        Event::new(
            EventKind::Reveal,
            "000 §1.1.3",
            format!(
                "The simultaneous options are revealed — {}.",
                words.join("; ")
            ),
        )
    });
    // Taken at the same moment: any option other than a pass makes everyone
    // eligible again, but not the passes declared with it.
    if hidden.iter().any(|(_, p)| !matches!(p, Plan::Pass { .. })) {
        for x in roster(world) {
            world.entity_mut(x).remove::<Passed>();
        }
    }
    let mut flow = world.resource_mut::<Flow>();
    flow.busy = busy;
    flow.queue = hidden;
    flow.in_batch = true;
}

/// Whether an option declared together can still be carried out: the
/// blows, the reach, the target, the weapon on the ground.
fn recheck(world: &World, e: Entity, plan: &Plan) -> Result<(), String> {
    if !up(world, e) {
        return Err("it is unconscious".into());
    }
    let heavy = |w: &str| weapon(world, w).is_some_and(|d| d.heft == Heft::Heavy);
    match plan {
        Plan::Pass { .. } => Ok(()),
        Plan::Dropping { then, .. } => recheck(world, e, then),
        Plan::Draw { weapon: w } => can_spend(
            world,
            e,
            Need {
                active: u32::from(heavy(w)),
                any: u32::from(!heavy(w)),
            },
        )
        .map(|_| ()),
        Plan::Grab { cell, weapon: w } => {
            if !world
                .resource::<Flow>()
                .ground
                .iter()
                .any(|(c, x)| c == cell && x == w)
            {
                return Err(format!("the {w} is no longer there"));
            }
            can_spend(world, e, Need { active: 1, any: 0 }).map(|_| ())
        }
        Plan::Prepare { .. } => can_spend(world, e, Need { active: 1, any: 0 }).map(|_| ()),
        Plan::Manoeuvre { kind, target, cell } => {
            if !alert(world, e) {
                return Err("it is no longer alert".into());
            }
            super::orders::manoeuvre_check(world, e, (*kind, *target), *cell)?;
            can_spend(world, e, Need { active: 0, any: 1 }).map(|_| ())
        }
        Plan::Attack { target, weapon: w } => {
            if world.get::<Condition>(*target) == Some(&Condition::Dead) {
                return Err("the target is dead".into());
            }
            if !world.get::<Hands>(e).is_some_and(|h| h.wielded.contains(w)) {
                return Err(format!("the {w} is no longer in hand"));
            }
            let reach = orders::reach_of(world, e, w);
            if orders::distance(world, e, *target).is_none_or(|d| d > reach) {
                return Err("the target is out of reach".into());
            }
            can_spend(world, e, Need::attack(heavy(w))).map(|_| ())
        }
        _ => Ok(()),
    }
}

/// An option in words.
pub fn describe(world: &World, plan: &Plan) -> String {
    match plan {
        Plan::Pass { .. } => "pass".into(),
        Plan::Draw { weapon } => format!("draw the {weapon}"),
        Plan::Grab { weapon, .. } => format!("grab the {weapon}"),
        Plan::Prepare { weapon } => format!("prepare a great blow with the {weapon}"),
        Plan::Manoeuvre { kind, target, .. } => {
            format!(
                "{} {}",
                match kind {
                    Manoeuvre::Close => "close on",
                    Manoeuvre::StepClose => "step close to",
                    Manoeuvre::Open => "open the range from",
                    Manoeuvre::StepOpen => "step away from",
                    Manoeuvre::ChangeRange => "change range to",
                },
                name(world, *target)
            )
        }
        Plan::Attack { target, weapon } => {
            format!("attack {} with the {weapon}", name(world, *target))
        }
        Plan::Parry { weapon } => format!("parry with the {weapon}"),
        Plan::Rest => "rest".into(),
        Plan::Cast { spell, target } => format!("cast {spell} on {}", name(world, *target)),
        Plan::AdjustArmour => "adjust armour".into(),
        Plan::Trace { cell, .. } => format!("move to {cell}"),
        Plan::Chase { target, .. } => format!("chase {}", name(world, *target)),
        Plan::Stay { watch: None, .. } => "stay".into(),
        Plan::Stay { watch: Some(x), .. } => format!("stay for {}", name(world, *x)),
        Plan::Dropping { items, then } => format!(
            "drop the {}, then {}",
            items.join(" and the "),
            describe(world, then)
        ),
        Plan::Nothing => "nothing".into(),
    }
}

/// 000 §1.2: carry out an option.
pub(super) fn execute(world: &mut World, e: Entity, plan: Plan) {
    if let Plan::Dropping { items, then } = plan {
        drop_first(world, e, &items);
        return execute(world, e, *then);
    }
    if world.resource::<Flow>().chain.contains(&e)
        && !matches!(plan, Plan::Prepare { .. } | Plan::Attack { .. })
    {
        lose_chain(world, e, "the chain of preparations was broken");
    }
    if !matches!(plan, Plan::Pass { .. }) && !world.resource::<Flow>().in_batch {
        // 000 §1.1.1: any other option makes everyone eligible again.
        for x in roster(world) {
            world.entity_mut(x).remove::<Passed>();
        }
    }
    match plan {
        Plan::Pass {
            drop,
            fall,
            alert: wake,
        } => pass(world, e, &drop, fall, wake),
        Plan::Draw { weapon: w } => draw_weapon(world, e, w),
        Plan::Grab { cell, weapon: w } => grab_object(world, e, cell, w),
        Plan::Prepare { weapon: w } => prepare_great_blow(world, e, w),
        Plan::Manoeuvre { kind, target, cell } => manoeuvre(world, e, kind, target, cell),
        Plan::Attack { target, weapon: w } => attack(world, e, target, w),
        _ => {}
    }
}

/// 000 §1.2.1 Pass: drop what is held, fall to the ground, become alert;
/// no blow.
fn pass(world: &mut World, e: Entity, drop: &[String], fall: bool, wake: bool) {
    let who = name(world, e);
    world.entity_mut(e).insert(Passed);
    let mut extra = Vec::new();
    let dropped = drop_items(world, e, drop);
    if !dropped.is_empty() {
        extra.push(format!("drops the {}", dropped.join(" and the ")));
    }
    if fall {
        world.entity_mut(e).insert(Fallen);
        extra.push("falls to the ground".into());
    }
    if wake {
        world.entity_mut(e).insert(Alert(true));
        extra.push("becomes alert".into());
    }
    log(world, || {
        let more = fray_core::log::aside(", ", &extra, "");
        Event::new(
            EventKind::Pass,
            "000 §1.2.1",
            format!("{who} passes{more}: no blow; it is not eligible for the initiative until someone takes another option."),
        )
        .actor(&who)
    });
}

/// Let `items` fall from `e`'s hands to its cell, where anyone may grab
/// them (000 §1.2.3); returns those it held.
fn drop_items(world: &mut World, e: Entity, items: &[String]) -> Vec<String> {
    let here = world.get::<Cell>(e).copied();
    let mut dropped = Vec::new();
    if let Some(mut h) = world.get_mut::<Hands>(e) {
        for w in items {
            if let Some(i) = h.wielded.iter().position(|x| x == w) {
                dropped.push(h.wielded.remove(i));
            }
        }
    }
    if let Some(c) = here {
        let mut flow = world.resource_mut::<Flow>();
        flow.ground.extend(dropped.iter().map(|w| (c, w.clone())));
    }
    dropped
}

/// 000 §1.2: "Any option may be preceded by dropping items held in hands"
/// (ruling `drop_and_speech`): they fall before the option is carried out.
fn drop_first(world: &mut World, e: Entity, items: &[String]) {
    let who = name(world, e);
    let dropped = drop_items(world, e, items);
    log(world, || {
        Event::new(
            EventKind::Drop,
            "000 §1.2 · ruling drop_and_speech",
            format!(
                "{who} drops the {} before its option: no blow.",
                dropped.join(" and the ")
            ),
        )
        .actor(&who)
    });
}

/// Ruling `borrowed_blows`: in the movement phase a blow is borrowed from
/// the next round, said after the blow.
fn borrowed(world: &World) -> &'static str {
    if world.resource::<Flow>().stage == Stage::Movement {
        " borrowed from the next round"
    } else {
        ""
    }
}

/// Ruling `borrowed_blows`: "a blow", or in the movement phase "a borrowed
/// blow", as a parry question and its choices name what it costs.
pub(super) fn a_blow(world: &World) -> &'static str {
    if borrowed(world).is_empty() {
        "a blow"
    } else {
        "a borrowed blow"
    }
}

/// 000 §1.2.2 Draw weapon: a blow, active for a heavy weapon; the weapon
/// in hand goes back to its sheath.
fn draw_weapon(world: &mut World, e: Entity, w: String) {
    let who = name(world, e);
    let data = world.resource::<Data>().0.clone();
    let heavy = weapon(world, &w).is_some_and(|d| d.heft == Heft::Heavy);
    let cost = spend(
        world,
        e,
        Need {
            active: u32::from(heavy),
            any: u32::from(!heavy),
        },
    );
    lose_preparation(world, e, "it spent a blow drawing a weapon");
    let mut sheathed = None;
    if let Some(mut h) = world.get_mut::<Hands>(e) {
        h.sheathed.retain(|x| *x != w);
        let weapon_in_hand = h.wielded.iter().position(|x| {
            data.weapons
                .get(x)
                .is_some_and(|d| d.kind != WeaponKind::Shield)
        });
        if let Some(i) = weapon_in_hand {
            let old = h.wielded.remove(i);
            h.sheathed.push(old.clone());
            sheathed = Some(old);
        }
        h.wielded.insert(0, w.clone());
    }
    let borrowed = borrowed(world);
    log(world, || {
        let blow = if heavy { "an active" } else { "a" };
        let blow = format!("{blow} blow{borrowed}");
        match sheathed {
            // Ruling draw_sheathes: the weapon in hand goes back at no cost.
            Some(old) => Event::new(
                EventKind::Draw,
                "000 §1.2.2 · ruling draw_sheathes",
                format!(
                    "{who} draws the {w} ({blow}, {cost} EN); the {old} goes back to its sheath."
                ),
            ),
            None => Event::new(
                EventKind::Draw,
                "000 §1.2.2",
                format!("{who} draws the {w} ({blow}, {cost} EN)."),
            ),
        }
        .actor(&who)
    });
}

/// 000 §1.2.3 Grab object: an active blow; a D20 DX check if alert.
fn grab_object(world: &mut World, e: Entity, cell: Cell, w: String) {
    let who = name(world, e);
    let data = world.resource::<Data>().0.clone();
    let cost = spend(world, e, Need { active: 1, any: 0 });
    lose_preparation(world, e, "it spent a blow grabbing");
    let dx = world.get::<Stats>(e).map_or(0, |s| s.dx);
    let borrowed = borrowed(world);
    let checked = alert(world, e);
    let ok = if checked {
        let roll = world
            .resource_mut::<Dice>()
            .roll_for(data.numbers.check_die, || {
                format!("{who}'s DX check to grab")
            });
        let (total, ok) = (roll.total, roll.total <= dx);
        log(world, || {
            Event::new(
                EventKind::Check,
                "000 §1.2.3 Grab object",
                format!(
                    "{who}, alert, makes a D20 DX check to grab the {w} (an active blow{borrowed}, {cost} EN): {total} against {dx}: {}.",
                    if ok { "success" } else { "failure" }
                ),
            )
            .actor(&who)
            .roll(roll)
            .check(Check {
                against: "DX".into(),
                target: dx,
                modifiers: Vec::new(),
                total,
                success: ok,
            })
        });
        ok
    } else {
        true
    };
    if ok {
        let mut flow = world.resource_mut::<Flow>();
        if let Some(i) = flow.ground.iter().position(|(c, x)| *c == cell && *x == w) {
            flow.ground.remove(i);
        }
        if let Some(mut h) = world.get_mut::<Hands>(e) {
            h.wielded.insert(0, w.clone());
        }
        log(world, || {
            Event::new(
                EventKind::Grab,
                "000 §1.2.3 Grab object",
                if checked {
                    format!("{who} grabs the {w}.")
                } else {
                    format!("{who} grabs the {w} (an active blow{borrowed}, {cost} EN).")
                },
            )
            .actor(&who)
        });
    }
}

/// 000 §1.2.4 Prepare great blow: an active blow; a thrusting weapon or a
/// bow must go on at once with another preparation or the attack.
fn prepare_great_blow(world: &mut World, e: Entity, w: String) {
    let who = name(world, e);
    let cost = spend(world, e, Need { active: 1, any: 0 });
    let borrowed = borrowed(world);
    let mut p = world.get::<Preparation>(e).cloned().unwrap_or_default();
    let count = p.count(&w) + 1;
    p.weapons.retain(|(x, _)| *x != w);
    p.weapons.push((w.clone(), count));
    world.entity_mut(e).insert(p);
    let kind = weapon(world, &w).map(|d| d.kind);
    let chains = matches!(kind, Some(WeaponKind::Thrusting | WeaponKind::Bow));
    {
        let mut flow = world.resource_mut::<Flow>();
        flow.chain.retain(|&x| x != e);
        if chains {
            flow.chain.push(e);
        }
    }
    let range = (kind == Some(WeaponKind::Bow)).then(|| orders::reach_of(world, e, &w));
    log(world, || {
        let mut text = format!(
            "{who} prepares a great blow with the {w} ({count} so far: -{count} to hit, +{count} critical, +{} damage, x{} breakage; an active blow{borrowed}, {cost} EN)",
            2 * count,
            count + 1
        );
        if let Some(r) = range {
            text.push_str(&format!(", range {r}"));
        }
        if chains {
            text.push_str("; a thrusting weapon or bow must go on at once with another preparation or the attack");
        }
        text.push('.');
        Event::new(EventKind::Prepare, "000 §1.2.4", text).actor(&who)
    });
}

/// 000 §1.2.5 Attack: an active blow, and a second for a heavy weapon; the
/// attack waits for the parries of those who may give them.
fn attack(world: &mut World, e: Entity, target: Entity, w: String) {
    let who = name(world, e);
    let heavy = weapon(world, &w).is_some_and(|d| d.heft == Heft::Heavy);
    let cost = spend(world, e, Need::attack(heavy));
    world.resource_mut::<Flow>().chain.retain(|&x| x != e);
    let t = name(world, target);
    let melee = weapon(world, &w).is_some_and(|d| !d.kind.missile());
    let to_ask = if melee {
        may_parry(world, e, target)
    } else {
        Vec::new()
    };
    let borrowed = borrowed(world);
    log(world, || {
        Event::new(
            EventKind::Attack,
            "000 §1.2.5",
            format!(
                "{who} attacks {t} with the {w} ({}{borrowed}, {cost} EN){}.",
                if heavy {
                    "an active blow and a second for the heavy weapon"
                } else {
                    "an active blow"
                },
                if melee {
                    ""
                } else {
                    "; a missile cannot be parried"
                }
            ),
        )
        .actor(&who)
        .target(&t)
    });
    world.resource_mut::<Flow>().attack = Some(PendingAttack {
        attacker: e,
        target,
        weapon: w,
        to_ask,
        parries: Vec::new(),
    });
}

/// 000 §1.2.5: who may parry a melee attack by `e` on `target`: the target
/// and the alert characters within range of the attacker, the target first.
fn may_parry(world: &World, e: Entity, target: Entity) -> Vec<Entity> {
    let mut to_ask = Vec::new();
    let here = world.get::<Cell>(e).copied();
    for x in roster(world) {
        if x == e || enemies(world, x, target) || !up(world, x) || !alert(world, x) {
            continue;
        }
        let Some(pw) = parry_weapon(world, x) else {
            continue;
        };
        let reach = weapon(world, &pw).map_or(1, |d| d.reach.max(1));
        let near = here
            .zip(world.get::<Cell>(x).copied())
            .is_some_and(|(a, b)| world.resource::<Grid>().distance(a, b) <= reach);
        if x == target || near {
            to_ask.push(x);
        }
    }
    // The target is asked first.
    to_ask.sort_by_key(|&x| x != target);
    to_ask
}

/// 000 §1.2.3: a manoeuvre along the grid (ruling `grid_ranges`); rising
/// from a fall replaces the first range change.
fn manoeuvre(world: &mut World, e: Entity, kind: Manoeuvre, target: Entity, cell: Option<Cell>) {
    let who = name(world, e);
    let t = name(world, target);
    let cost = spend(world, e, Need { active: 0, any: 1 });
    lose_preparation(world, e, "it spent a blow manoeuvring");
    let (mut cells, rule): (u32, &str) = match kind {
        Manoeuvre::StepClose => (1, "000 §1.2.3.3"),
        Manoeuvre::StepOpen => (1, "000 §1.2.3.4"),
        Manoeuvre::ChangeRange => (0, "000 §1.2.3.5"),
        Manoeuvre::Close | Manoeuvre::Open => match close_or_open_check(world, (e, cost), kind) {
            Some(done) => done,
            None => return,
        },
    };
    let mut rose = false;
    if world.get::<Fallen>(e).is_some() {
        world.entity_mut(e).remove::<Fallen>();
        rose = true;
        cells = cells.saturating_sub(1);
    }
    let (from, at, range) = change_range(world, e, kind, target, cell, cells, rose);
    log(world, || {
        Event::new(
            EventKind::Manoeuvre,
            rule,
            format!(
                "{who} {}{} {t}: from {} to {}, range now {range} ({cost} EN).",
                if rose {
                    "rises (in place of the first range change) and "
                } else {
                    ""
                },
                match kind {
                    Manoeuvre::Close => "closes on",
                    Manoeuvre::StepClose => "steps close to",
                    Manoeuvre::Open => "opens the range from",
                    Manoeuvre::StepOpen => "steps away from",
                    Manoeuvre::ChangeRange => "changes its range to",
                },
                from.map_or("?".into(), |c| c.to_string()),
                at.map_or("?".into(), |c| c.to_string()),
            ),
        )
        .actor(&who)
        .target(&t)
    });
}

/// 000 §1.2.3.1 Close and §1.2.3.2 Open: a D100 DX check (ruling
/// `dx_checks`) for two cells, else one; 91 or more, a stumble: the range
/// does not change and a DX check against falling (D20 closing, D40
/// opening); the blow, which cost `cost` EN, is spent all the same.
/// Returns the cells and the paragraph, or None on a stumble.
fn close_or_open_check(
    world: &mut World,
    (e, cost): (Entity, i32),
    kind: Manoeuvre,
) -> Option<(u32, &'static str)> {
    let data = world.resource::<Data>().0.clone();
    let who = name(world, e);
    let dx = world.get::<Stats>(e).map_or(0, |s| s.dx);
    let close = kind == Manoeuvre::Close;
    let rule = if close {
        "000 §1.2.3.1"
    } else {
        "000 §1.2.3.2"
    };
    let need = dx * data.ruling_numbers.d100_dx_multiplier;
    let roll = world.resource_mut::<Dice>().roll(
        DiceExpr::new(1, 100),
        format!(
            "{who}'s D100 DX check to {}",
            if close { "close" } else { "open" }
        ),
    );
    let total = roll.total;
    let stumble = total as u32 >= data.numbers.stumble_from;
    let made = total <= need && !stumble;
    log(world, || {
        Event::new(
            EventKind::Check,
            rule,
            format!(
                "{who}'s D100 DX check: {total} against {need} (ruling dx_checks): {}.",
                if stumble {
                    "91 or more, a stumble"
                } else if made {
                    "2 cells"
                } else {
                    "1 cell"
                }
            ),
        )
        .actor(&who)
        .roll(roll)
        .check(Check {
            against: "DX x 5".into(),
            target: need,
            modifiers: Vec::new(),
            total,
            success: made,
        })
    });
    if stumble && world.get::<Fallen>(e).is_some() {
        // On the ground already: no check against falling, and with no
        // range change there is none for rising to replace (000 §1.2.3).
        log(world, || {
            Event::new(
                EventKind::Fall,
                rule,
                format!("{who} stumbles (a blow spent, {cost} EN): the range does not change, and it does not rise: it stays on the ground."),
            )
            .actor(&who)
        });
        return None;
    }
    if stumble {
        let die = if close {
            data.numbers.close_fall_die
        } else {
            data.numbers.open_fall_die
        };
        let roll = world
            .resource_mut::<Dice>()
            .roll_for(die, || format!("{who}'s DX check against falling"));
        let (total, kept) = (roll.total, roll.total <= dx);
        if !kept {
            super::knock_down(world, e);
        }
        log(world, || {
            Event::new(
                EventKind::Fall,
                rule,
                format!(
                    "{who} stumbles (a blow spent, {cost} EN): the range does not change; a {die} DX check against falling, {total} against {dx}: {}.",
                    if kept { "it keeps its feet" } else { "it falls" }
                ),
            )
            .actor(&who)
            .roll(roll)
        });
        return None;
    }
    Some((if made { 2 } else { 1 }, rule))
}

/// 000 §1.2.3.1–5: `e` moves `cells` along the grid toward or away from
/// `target`, or to `cell` when changing range (ruling `grid_ranges`).
/// Returns where it was, where it is, and the range now.
fn change_range(
    world: &mut World,
    e: Entity,
    kind: Manoeuvre,
    target: Entity,
    cell: Option<Cell>,
    cells: u32,
    rose: bool,
) -> (Option<Cell>, Option<Cell>, u32) {
    let from = world.get::<Cell>(e).copied();
    let grid = world.resource::<Grid>().clone();
    let taken: Vec<Cell> = roster(world)
        .into_iter()
        .filter(|&x| x != e)
        .filter_map(|x| world.get::<Cell>(x).copied())
        .collect();
    let there = world.get::<Cell>(target).copied();
    let mut at = from;
    if let (Some(here), Some(there)) = (from, there) {
        let mut here = here;
        match kind {
            Manoeuvre::Close | Manoeuvre::StepClose => {
                if let Some((path, _)) = grid.path_toward(here, there, 1, |c| taken.contains(&c))
                    && let Some(&c) = path.iter().take(cells as usize).next_back()
                {
                    here = c;
                }
            }
            Manoeuvre::Open | Manoeuvre::StepOpen => {
                for _ in 0..cells {
                    let best = grid
                        .neighbours(here)
                        .filter(|n| !taken.contains(n) && grid.enter_cost(*n).is_some())
                        .max_by_key(|n| (grid.distance(*n, there), std::cmp::Reverse(*n)));
                    // "up to a maximum range of 6" (ruling grid_ranges).
                    let most = world.resource::<Data>().0.numbers.max_range;
                    match best {
                        Some(n)
                            if grid.distance(n, there) > grid.distance(here, there)
                                && grid.distance(n, there) <= most =>
                        {
                            here = n
                        }
                        _ => break,
                    }
                }
            }
            Manoeuvre::ChangeRange => {
                if !rose
                    && let Some(c) = cell
                    && !taken.contains(&c)
                {
                    here = c;
                }
            }
        }
        world.entity_mut(e).insert(here);
        at = Some(here);
    }
    let range = at.zip(there).map(|(a, b)| grid.distance(a, b)).unwrap_or(0);
    (from, at, range)
}

/// Ask the next character who may parry the pending attack; false when
/// nobody is left to ask.
pub(super) fn ask_parrier(world: &mut World) -> bool {
    loop {
        let next = {
            let mut flow = world.resource_mut::<Flow>();
            let Some(a) = flow.attack.as_mut() else {
                return false;
            };
            if a.to_ask.is_empty() {
                return false;
            }
            (a.to_ask.remove(0), a.attacker, a.target)
        };
        let (x, attacker, target) = next;
        if !up(world, x)
            || !alert(world, x)
            || parry_weapon(world, x).is_none()
            || can_spend(world, x, Need { active: 0, any: 1 }).is_err()
        {
            continue;
        }
        let (who, a, t) = (name(world, x), name(world, attacker), name(world, target));
        ask(
            world,
            x,
            Ask::Parry { attacker, target },
            |world| {
                let (odds, blow) = (parry_odds(world, attacker, target), a_blow(world));
                if x == target {
                    format!("{a} attacks {who}{odds}: parry ({blow})?")
                } else {
                    format!("{a} attacks {t}{odds}; {who} is alert and in range: parry ({blow})?")
                }
            },
            "000 §1.2.5",
        );
        return true;
    }
}

/// 000 §1.2.5.1.3 · ruling `parry`: the pending attack's chance to hit as
/// it stands and with one more parry, for whoever is asked to parry.
fn parry_odds(world: &World, attacker: Entity, target: Entity) -> String {
    let Some(a) = world.resource::<Flow>().attack.as_ref() else {
        return String::new();
    };
    // The weapon the attack is made with, not the first in hand.
    let (parried, by) = (a.parries.len() as i32, (attacker, a.weapon.as_str()));
    let alert = super::alert(world, target);
    let now = super::view::chance_with(world, by, target, parried, alert);
    let then = super::view::chance_with(world, by, target, parried + 1, alert);
    match now.zip(then) {
        Some(((now, _), (then, _))) => {
            format!(" (hits {:.0}%; parried, {:.0}%)", now * 100.0, then * 100.0)
        }
        None => String::new(),
    }
}

/// A parry given (or not).
pub(super) fn parry(world: &mut World, x: Entity, plan: Plan) {
    let Plan::Parry { weapon: w } = plan else {
        return;
    };
    let cost = spend(world, x, Need { active: 0, any: 1 });
    lose_preparation(world, x, "it spent a blow parrying");
    let who = name(world, x);
    let (a, t) = world
        .resource::<Flow>()
        .attack
        .as_ref()
        .map(|p| (p.attacker, p.target))
        .unwrap_or((x, x));
    let (a, t) = (name(world, a), name(world, t));
    // 000 §1.1.3: one whose own simultaneous option is under way responds
    // with another weapon (ruling reduced_effectiveness: at full effect).
    let responding = world.resource::<Flow>().busy.iter().any(|(e, _)| *e == x);
    let blow = format!("a blow{}", borrowed(world));
    log(world, || {
        if responding {
            Event::new(
                EventKind::Parry,
                "000 §1.2.5 · ruling reduced_effectiveness",
                format!("{who} parries {a}'s attack on {t} with the {w}, a weapon its own option does not use ({blow}, {cost} EN; ruling parry)."),
            )
        } else {
            Event::new(
                EventKind::Parry,
                "000 §1.2.5",
                format!("{who} parries {a}'s attack on {t} with the {w} ({blow}, {cost} EN; ruling parry)."),
            )
        }
        .actor(&who)
    });
    if let Some(p) = world.resource_mut::<Flow>().attack.as_mut() {
        p.parries.push((x, w));
    }
}

/// 000 §Breakage: (preparations + 1 + the attacker's Strength bonus) x the
/// breakage number, capped (ruling `breakage_cap`); D100 at or under breaks.
fn breakage_check(world: &mut World, owner: Entity, w: &str, preps: i32, st: i32) -> bool {
    let data = world.resource::<Data>().0.clone();
    let Some(d) = data.weapons.get(w) else {
        return false;
    };
    let st_bonus = match st {
        ..=3 => -1,
        15..=16 => 1,
        17.. => 2,
        _ => 0,
    };
    let number = ((preps + 1 + st_bonus) * d.breakage).min(data.ruling_numbers.breakage_cap);
    let who = name(world, owner);
    let roll = world.resource_mut::<Dice>().roll(
        DiceExpr::new(1, 100),
        format!("breakage check for {who}'s {w}"),
    );
    let total = roll.total;
    let broke = total <= number;
    if broke
        && let Some(mut h) = world.get_mut::<Hands>(owner)
        && let Some(i) = h.wielded.iter().position(|x| x == w)
    {
        h.wielded.remove(i);
    }
    let w = w.to_string();
    log(world, || {
        Event::new(
            EventKind::Breakage,
            "000 §Breakage",
            format!(
                "Breakage check for {who}'s {w}: D100 {total} against ({preps} preparations + 1 {st_bonus:+} Strength) x {} = {number}: {}.",
                d.breakage,
                if broke { "it breaks" } else { "it holds" }
            ),
        )
        .actor(&who)
        .roll(roll)
    });
    broke
}

/// A gamesmaster's table roll.
fn table(
    world: &mut World,
    rows: &[super::data::TableRow],
    die: u32,
    purpose: String,
) -> (Roll, Consequence, String) {
    let roll = world
        .resource_mut::<Dice>()
        .roll(DiceExpr::new(1, die), purpose);
    let row = DetailedData::row(rows, roll.total as u32);
    (roll, row.then, row.text.clone())
}

/// The attack under resolution (000 §1.2.5), carried from one step to the
/// next.
struct Resolution {
    attacker: Entity,
    target: Entity,
    /// The attacking weapon, and its numbers.
    w: String,
    wd: Weapon,
    /// Who parries, with which weapon.
    parries: Vec<(Entity, String)>,
    /// The attacker's name and the target's.
    a: String,
    t: String,
    /// The preparations applicable to the attack (000 §1.2.4).
    preps: i32,
    /// The attacker's ST, for the breakage checks.
    st: i32,
    /// Whether the target is stationary (on no moving trace).
    stationary: bool,
}

/// 000 §1.2.5.1–3: the hit roll, breakage, the critical roll and damage.
pub(super) fn resolve_attack(world: &mut World) {
    let Some(at) = attack_begins(world) else {
        return;
    };
    let data = world.resource::<Data>().0.clone();
    let (a, t) = (&at.a, &at.t);
    let roll = world
        .resource_mut::<Dice>()
        .roll_for(data.numbers.hit_dice, || format!("{a}'s hit roll on {t}"));
    let faces = roll.faces.clone();
    let top = data.numbers.hit_dice.sides;
    let double = |v: u32| faces.len() == 2 && faces.iter().all(|&f| f == v);
    if double(1) {
        double_ones(world, &data, &at, roll);
        return;
    }
    let (hit, critical_forced) = if double(top) {
        (true, double_tens(world, &data, &at, &roll))
    } else {
        (hit_roll(world, &data, &at, &roll), false)
    };
    if !hit {
        return;
    }
    let (critical, unmodified) = critical_roll(world, &data, &at, critical_forced);
    damage_roll(world, &data, &at, critical, unmodified);
}

/// 000 §1.2.5: the pending attack taken up; it spends this weapon's
/// preparations (000 §1.2.4). None if it cannot go on: no weapon's numbers,
/// the target dead or the attacker down.
fn attack_begins(world: &mut World) -> Option<Resolution> {
    let p = world.resource_mut::<Flow>().attack.take()?;
    let data = world.resource::<Data>().0.clone();
    let (attacker, target, w) = (p.attacker, p.target, p.weapon.clone());
    let (a, t) = (name(world, attacker), name(world, target));
    let wd = data.weapons.get(&w).cloned()?;
    let preps = preparations(world, attacker, &w);
    // The attack spends this weapon's preparations (000 §1.2.4).
    if let Some(mut p) = world.get_mut::<Preparation>(attacker) {
        p.weapons.retain(|(x, _)| *x != w);
        if p.weapons.is_empty() {
            world.entity_mut(attacker).remove::<Preparation>();
        }
    }
    let dead = world.get::<Condition>(target) == Some(&Condition::Dead);
    if dead || !up(world, attacker) {
        return None;
    }
    let st = world.get::<Stats>(attacker).map_or(10, |s| s.st);
    let stationary = stationary(world, target);
    Some(Resolution {
        attacker,
        target,
        w,
        wd,
        parries: p.parries,
        a,
        t,
        preps,
        st,
        stationary,
    })
}

/// 000 §1.2.5.1.1: double ones miss; a D20 on the fumble table (ruling
/// `fumble`).
fn double_ones(world: &mut World, data: &DetailedData, at: &Resolution, roll: Roll) {
    let (a, t) = (&at.a, &at.t);
    let (r2, then, text) = table(world, &data.fumble, 20, format!("{a}'s fumble"));
    let total = r2.total;
    log(world, || {
        Event::new(
            EventKind::Attack,
            "000 §1.2.5.1.1",
            format!("{a} rolls double ones on the hit roll: a miss; D20 {total} on the fumble table (ruling fumble): {text}."),
        )
        .actor(a)
        .target(t)
        .roll(roll)
        .roll(r2)
    });
    consequence(world, then, at.attacker, at.target, &at.w);
}

/// 000 §1.2.5.1.2: double tens hit; a D20 on the double_tens table (ruling
/// `double_tens`). Returns whether the table makes the hit critical.
fn double_tens(world: &mut World, data: &DetailedData, at: &Resolution, roll: &Roll) -> bool {
    let a = &at.a;
    let (aname, tname) = (at.a.clone(), at.t.clone());
    let (r2, then, text) = table(world, &data.double_tens, 20, format!("{a}'s double tens"));
    let total = r2.total;
    log(world, || {
        Event::new(
            EventKind::Attack,
            "000 §1.2.5.1.2",
            format!("{aname} rolls double tens: a hit; D20 {total} on the double_tens table (ruling double_tens): {text}."),
        )
        .actor(&aname)
        .target(&tname)
        .roll(roll.clone())
        .roll(r2)
    });
    let critical_forced = then == Consequence::Critical;
    if then == Consequence::TargetFalls {
        consequence(world, then, at.attacker, at.target, &at.w);
    }
    critical_forced
}

/// Whether `target` is stationary: on no moving trace still under way.
pub(super) fn stationary(world: &World, target: Entity) -> bool {
    !world
        .resource::<Flow>()
        .traces
        .iter()
        .any(|tr| tr.who == target && !tr.done)
}

/// 000 §1.2.5.1.3: partial surprise doubles the hit roll (the target not
/// `alert`, or fallen); full surprise triples it (`stationary` and
/// unconscious).
pub(super) fn surprise_multiplier(
    world: &World,
    target: Entity,
    stationary: bool,
    alert: bool,
) -> i32 {
    if stationary && !up(world, target) {
        3
    } else if !alert || world.get::<Fallen>(target).is_some() {
        2
    } else {
        1
    }
}

fn surprise(world: &World, at: &Resolution) -> i32 {
    surprise_multiplier(world, at.target, at.stationary, alert(world, at.target))
}

/// 000 §1.2.5.1.3: the hit roll, surprise multiplied, plus the target's AC
/// and its first modifier (parries, shield), less the preparations, against
/// the weapon's number; then the breakage checks. Returns whether it hits.
fn hit_roll(world: &mut World, data: &DetailedData, at: &Resolution, roll: &Roll) -> bool {
    let (target, w, preps) = (at.target, &at.w, at.preps);
    let (aname, tname) = (at.a.clone(), at.t.clone());
    let multiplier = surprise(world, at);
    let armour = armour_of(world, target);
    let mut first = 0;
    let mut mods = vec![Modifier::new("2D10", roll.total)];
    if multiplier > 1 {
        mods.push(Modifier::new(
            if multiplier == 3 {
                "Full surprise x3"
            } else {
                "Partial surprise x2"
            },
            roll.total * (multiplier - 1),
        ));
    }
    mods.push(Modifier::new("Target AC", armour.ac));
    let parries = at.parries.len() as i32;
    if parries > 0 {
        first += parries * data.ruling_numbers.parry_modifier;
        mods.push(Modifier::new(
            "Parries",
            parries * data.ruling_numbers.parry_modifier,
        ));
    }
    if alert(world, target) && shield(world, target).is_some() {
        first += data.ruling_numbers.shield_modifier;
        mods.push(Modifier::new("Shield", data.ruling_numbers.shield_modifier));
    }
    if preps > 0 {
        mods.push(Modifier::new("Preparations", -preps));
    }
    let total = roll.total * multiplier + armour.ac + first - preps;
    let need = at.wd.to_hit;
    let hit = total >= need;
    let outcome = if total > need {
        "hit"
    } else if total == need {
        "hit, equal: breakage checks"
    } else if total == need - 1 {
        "miss by one: breakage check"
    } else {
        "miss"
    };
    log(world, || {
        Event::new(
            EventKind::Attack,
            "000 §1.2.5.1.3",
            format!("{aname}'s hit roll on {tname}: {total} against {need} to exceed: {outcome}."),
        )
        .actor(&aname)
        .target(&tname)
        .roll(roll.clone())
        .check(Check {
            against: format!("{w}'s number to hit"),
            target: need,
            modifiers: mods,
            total,
            success: hit,
        })
    });
    if total == need {
        breakage_on_equal(world, at);
    } else if total == need - 1 {
        breakage_on_miss_by_one(world, data, at);
    }
    hit
}

/// 000 §1.2.5.1.3: the result equals the number: a breakage check for the
/// attacking weapon and each parrying weapon; then for the target's shield
/// if nobody parried or every parrying weapon broke.
fn breakage_on_equal(world: &mut World, at: &Resolution) {
    let (attacker, target, preps, st) = (at.attacker, at.target, at.preps, at.st);
    breakage_check(world, attacker, &at.w, preps, st);
    let mut all_broke = true;
    for (x, pw) in &at.parries {
        all_broke &= breakage_check(world, *x, pw, preps, st);
    }
    if (at.parries.is_empty() || all_broke)
        && let Some(s) = shield(world, target)
    {
        breakage_check(world, target, &s, preps, st);
    }
}

/// 000 §1.2.5.1.3: one less than the number: a miss; a breakage check for
/// the attacking weapon, and each parrying character rolls a D100 on the
/// parry_strain table (ruling `parry_strain`).
fn breakage_on_miss_by_one(world: &mut World, data: &DetailedData, at: &Resolution) {
    breakage_check(world, at.attacker, &at.w, at.preps, at.st);
    for (x, pw) in &at.parries {
        let who = name(world, *x);
        let (r2, then, text) = table(
            world,
            &data.parry_strain,
            100,
            format!("{who}'s parry strain"),
        );
        let total = r2.total;
        let pw2 = pw.clone();
        log(world, || {
            Event::new(
                EventKind::Breakage,
                "000 §1.2.5.1.3",
                format!("{who}'s parrying {pw2} takes the strain: D100 {total} on the parry_strain table (ruling parry_strain): {text}."),
            )
            .actor(&who)
            .roll(r2)
        });
        if then == Consequence::ParryBreaks
            && let Some(mut h) = world.get_mut::<Hands>(*x)
            && let Some(i) = h.wielded.iter().position(|y| y == pw)
        {
            h.wielded.remove(i);
        }
    }
}

/// 000 §1.2.5.2: the critical roll: D12 (doubled in full surprise), less
/// the target's second AC modifier, plus the preparations, against the
/// critical number of its AC. Returns whether the hit is critical, and the
/// unmodified roll.
fn critical_roll(
    world: &mut World,
    data: &DetailedData,
    at: &Resolution,
    critical_forced: bool,
) -> (bool, i32) {
    let (a, t, preps) = (&at.a, &at.t, at.preps);
    let armour = armour_of(world, at.target);
    let croll = world.resource_mut::<Dice>().roll(
        data.numbers.critical_die,
        format!("{a}'s critical roll on {t}"),
    );
    let full = at.stationary && !up(world, at.target);
    let ctotal = croll.total * if full { 2 } else { 1 } - armour.second_modifier + preps;
    let critical = critical_forced || ctotal >= armour.critical;
    let unmodified = croll.total;
    log(world, || {
        Event::new(
            EventKind::Critical,
            "000 §1.2.5.2",
            format!(
                "{a}'s critical roll: D12 {unmodified}{} - {} + {preps} preparations = {ctotal} against {}: {}.",
                if full { " x2" } else { "" },
                armour.second_modifier,
                armour.critical,
                match (critical_forced, critical) {
                    (true, _) => "critical all the same, as the double_tens table said (ruling double_tens)",
                    (false, true) => "critical",
                    (false, false) => "not critical",
                }
            ),
        )
        .actor(a)
        .roll(croll)
    });
    (critical, unmodified)
}

/// 000 §1.2.5.3: damage: the weapon's roll plus two a preparation, off EN,
/// and off BD too for a critical hit.
fn damage_roll(
    world: &mut World,
    data: &DetailedData,
    at: &Resolution,
    critical: bool,
    unmodified: i32,
) {
    let (target, wd, preps) = (at.target, &at.wd, at.preps);
    let (a, t) = (&at.a, &at.t);
    let droll = world
        .resource_mut::<Dice>()
        .roll_for(wd.damage, || format!("{a}'s damage to {t}"));
    let max = wd.damage.max();
    let rolled = droll.total;
    let mut damage = rolled + data.numbers.preparation_damage * preps;
    let at_max = rolled == max || (wd.heft == Heft::Heavy && rolled >= max - 1);
    // Ruling maximum_damage: the case is "also" a critical hit's.
    let special = critical && at_max && (wd.heft != Heft::Light || unmodified % 2 == 0);
    let mut extra = None;
    if special {
        let (more, again) = maximum_damage(world, data, at);
        damage += more;
        extra = again;
    }
    if world.resource::<Flow>().in_batch {
        hold(world, at, damage, critical, rolled, droll, extra);
        return;
    }
    let en_now = world.get_mut::<En>(target).map_or(0, |mut x| {
        x.lose(damage);
        x.current
    });
    let bd_now = if critical {
        world.get_mut::<Bd>(target).map_or(0, |mut x| {
            x.lose(damage);
            x.current
        })
    } else {
        world.get::<Bd>(target).map_or(0, |x| x.current)
    };
    log(world, || {
        let mut e = Event::new(
            EventKind::Damage,
            "000 §1.2.5.3",
            format!(
                "{t} takes {damage} ({} {rolled} + {} for preparations){}: EN {en_now}{}.",
                wd.damage,
                data.numbers.preparation_damage * preps,
                if critical {
                    ", a critical hit, to EN and BD"
                } else {
                    ""
                },
                if critical {
                    format!(", BD {bd_now}")
                } else {
                    String::new()
                }
            ),
        )
        .actor(t)
        .roll(droll)
        .amount(damage);
        if let Some(x) = extra {
            e = e.roll(x);
        }
        e
    });
    knocked_out(world, target);
}

/// Ruling `simultaneous_order`: damage dealt by an option carried out with
/// others at the same moment is held, to land once all are done.
fn hold(
    world: &mut World,
    at: &Resolution,
    damage: i32,
    critical: bool,
    rolled: i32,
    droll: Roll,
    extra: Option<Roll>,
) {
    let target = at.target;
    world.resource_mut::<Flow>().held.push(super::HeldHit {
        target,
        damage,
        critical,
    });
    let (t, dice, preps) = (at.t.clone(), at.wd.damage, at.preps);
    let for_preps = world.resource::<Data>().0.numbers.preparation_damage * preps;
    log(world, || {
        let kind = if critical {
            ", a critical hit, to EN and BD"
        } else {
            ""
        };
        let mut e = Event::new(
            EventKind::Damage,
            "000 §1.2.5.3 · ruling simultaneous_order",
            format!(
                "{t} is dealt {damage} ({dice} {rolled} + {for_preps} for preparations){kind}: it lands with the other simultaneous options' blows."
            ),
        )
        .actor(&t)
        .roll(droll)
        .amount(damage);
        if let Some(x) = extra {
            e = e.roll(x);
        }
        e
    });
}

/// Ruling `simultaneous_order`: the options taken together are done; their
/// held damage lands at once, and only then does anyone fall.
fn land_held(world: &mut World) {
    let held = std::mem::take(&mut world.resource_mut::<Flow>().held);
    if held.is_empty() {
        return;
    }
    let mut words = Vec::new();
    for h in &held {
        let en = world.get_mut::<En>(h.target).map_or(0, |mut x| {
            x.lose(h.damage);
            x.current
        });
        let bd = world.get_mut::<Bd>(h.target).map_or(0, |mut x| {
            if h.critical {
                x.lose(h.damage);
            }
            x.current
        });
        let who = name(world, h.target);
        words.push(if h.critical {
            format!("{who} {} (EN {en}, BD {bd})", h.damage)
        } else {
            format!("{who} {} (EN {en})", h.damage)
        });
    }
    log(world, || {
        Event::new(
            EventKind::Damage,
            "000 §1.1.3 · ruling simultaneous_order",
            format!(
                "The simultaneous blows land together: {}.",
                words.join("; ")
            ),
        )
    });
    for h in held {
        knocked_out(world, h.target);
    }
}

/// 000 §1.2.5.3: the damage roll at its maximum on a critical hit: a D20
/// on the maximum_damage table (ruling `maximum_damage`). Returns the extra
/// damage, with its roll if the table gives one.
fn maximum_damage(world: &mut World, data: &DetailedData, at: &Resolution) -> (i32, Option<Roll>) {
    let a = &at.a;
    let (r2, then, text) = table(
        world,
        &data.maximum_damage,
        20,
        format!("{a}'s maximum damage"),
    );
    let total = r2.total;
    log(world, || {
        Event::new(
            EventKind::Damage,
            "000 §1.2.5.3",
            format!("{a}'s damage roll is at its maximum: D20 {total} on the maximum_damage table (ruling maximum_damage): {text}."),
        )
        .actor(a)
        .roll(r2)
    });
    match then {
        Consequence::ExtraDamage => {
            let again = world
                .resource_mut::<Dice>()
                .roll_for(at.wd.damage, || format!("{a}'s extra damage"));
            (again.total, Some(again))
        }
        other => {
            consequence(world, other, at.attacker, at.target, &at.w);
            (0, None)
        }
    }
}

/// A gamesmaster's table's consequence.
fn consequence(world: &mut World, then: Consequence, attacker: Entity, target: Entity, w: &str) {
    match then {
        Consequence::DropWeapon => {
            let here = world.get::<Cell>(attacker).copied();
            if let Some(mut h) = world.get_mut::<Hands>(attacker)
                && let Some(i) = h.wielded.iter().position(|x| x == w)
            {
                h.wielded.remove(i);
                if let Some(c) = here {
                    world.resource_mut::<Flow>().ground.push((c, w.to_string()));
                }
            }
        }
        Consequence::AttackerFalls => super::knock_down(world, attacker),
        Consequence::TargetFalls => super::knock_down(world, target),
        _ => {}
    }
}

/// The armour class `e` fights in (ruling `armour`).
pub fn armour_of(world: &World, e: Entity) -> super::data::Armour {
    let data = &world.resource::<Data>().0;
    let on = world.get::<Hands>(e).is_some_and(|h| h.armour_on);
    let key = match world.get::<Stats>(e) {
        Some(s) if on => s.armour.clone(),
        _ => data.ruling_numbers.unarmoured.clone(),
    };
    data.armours
        .get(&key)
        .or_else(|| data.armours.values().next())
        .cloned()
        .unwrap_or(super::data::Armour {
            ac: 10,
            second_modifier: 0,
            critical: 8,
        })
}

/// Ruling `unconscious`: EN at 0 or less, unconscious and fallen; BD at 0
/// or less, dead; an unconscious character whose EN is raised above 0
/// comes to, still fallen.
pub(super) fn knocked_out(world: &mut World, e: Entity) {
    let en = world.get::<En>(e).map_or(1, |x| x.current);
    let bd = world.get::<Bd>(e).map_or(1, |x| x.current);
    let now = if bd <= 0 {
        Condition::Dead
    } else if en <= 0 {
        Condition::Unconscious
    } else {
        comes_to(world, e, en);
        return;
    };
    if world.get::<Condition>(e) == Some(&now) {
        return;
    }
    fray_core::model::out_of_the_fight(world, e, now, "ruling unconscious", |who| {
        if now == Condition::Dead {
            format!("{who} is dead: BD {bd}.")
        } else {
            format!("{who} falls unconscious: EN {en}.")
        }
    });
    // It drops where it stands: a fallen opponent, whose range changes
    // freely (000 §1.2.3.5); come to, it must rise (ruling fall).
    if now == Condition::Unconscious {
        super::knock_down(world, e);
    }
}

/// Ruling `unconscious`: an unconscious character raised above 0 EN comes
/// to and fights again.
fn comes_to(world: &mut World, e: Entity, en: i32) {
    if world.get::<Condition>(e) != Some(&Condition::Unconscious) {
        return;
    }
    world
        .entity_mut(e)
        .insert((Condition::Fine, fray_core::model::Fighting));
    let who = name(world, e);
    log(world, || {
        Event::new(
            EventKind::Health,
            "ruling unconscious",
            format!("{who} comes to: EN {en}."),
        )
        .actor(&who)
    });
}

/// 000 §1.1.1: nobody is eligible: on to the noncombat phase.
fn end_combat_phase(world: &mut World) {
    for e in roster(world) {
        if let Some(mut b) = world.get_mut::<Blows>(e) {
            b.en_phase = 0;
        }
    }
    {
        let mut flow = world.resource_mut::<Flow>();
        flow.stage = Stage::Noncombat;
        flow.initiative.clear();
        flow.why.clear();
        flow.busy.clear();
        flow.chain.clear();
    }
    log(world, || {
        Event::new(
            EventKind::Phase,
            "000 §1.1.1",
            "Nobody is eligible for the initiative: the combat phase ends; the noncombat phase begins.",
        )
    });
    stamp(world, || "noncombat".into());
}

/// Ruling `unconscious`: the battle ends when at most one side has anyone
/// conscious.
pub fn check_end(world: &mut World) {
    let started = world.resource::<Flow>().stage != Stage::Start;
    if fray_core::model::ended_now(world, started, roster(world), super::round(world), ENDING) {
        let mut flow = world.resource_mut::<Flow>();
        flow.stage = Stage::Over;
        flow.open.clear();
    }
}

const ENDING: Ending = Ending {
    rule: "ruling unconscious",
    words: |side, n| match side {
        Some(side) => {
            format!("Combat ends in round {n}: the only side with anyone conscious is {side}.")
        }
        None => format!("Combat ends in round {n}: nobody is conscious."),
    },
};
