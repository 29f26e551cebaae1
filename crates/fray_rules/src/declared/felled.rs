//! Ruling `felled_action`: one felled since it declared is asked at its
//! count whether it carries out its action at the cost of a Wound Point
//! (004 §Wound Points: "any strenuous activity is risky ... any other action
//! it takes causes it to take 1 Wound Point of damage").

use super::*;
use fray_core::decision::{self, Choice};
use fray_core::log::EventKind;

/// What the creature whose count it is does now.
pub(crate) enum Go {
    Act,
    /// It is asked first; its action waits for the answer.
    Ask,
    LieStill,
}

/// The question asked of `e`, if it is asked and has not answered.
fn asked(world: &World, e: Entity) -> bool {
    matches!(world.resource::<Flow>().straining, Some((_, who, None)) if who == e)
}

/// Whether the question asked, if any, has its answer: false while it
/// waits.
pub(crate) fn answered(world: &mut World) -> bool {
    let Some((id, e, None)) = world.resource::<Flow>().straining else {
        return true;
    };
    let taken = decision::take_answers(world, "004 §Wound Points", |w, d, o| {
        validate(w, d.actor, o)
    });
    let Some((_, yes)) = taken.into_iter().find(|(d, _)| d.id == id) else {
        return false;
    };
    world.resource_mut::<Flow>().straining = Some((id, e, Some(yes)));
    true
}

/// What the creature of `slot` does at its count: asked first if it fell
/// since it declared an action that would cost it a Wound Point, else as
/// it answered.
pub(crate) fn ask_first(world: &mut World, slot: &Slot) -> Go {
    let e = slot.actor;
    if let Some((_, who, Some(yes))) = world.resource::<Flow>().straining
        && who == e
    {
        world.resource_mut::<Flow>().straining = None;
        if !yes {
            lie_still(world, e, &slot.action);
            return Go::LieStill;
        }
        return Go::Act;
    }
    if !would_strain(world, slot) {
        return Go::Act;
    }
    if beyond_its_reach(world, e, &slot.action) {
        return Go::LieStill;
    }
    ask(world, slot);
    Go::Ask
}

/// 004 §Wound Points: whether `action`, from where `e` lies, is beyond its
/// reach; if so it lies still, said in the log, and nothing is paid for.
pub(crate) fn beyond_its_reach(world: &mut World, e: Entity, action: &Action) -> bool {
    let Err(why) = super::declare::from_where_it_lies(world, e, action) else {
        return false;
    };
    let me = world.resource::<Flow>().name(e).to_string();
    fray_core::log::record(world, || {
        Event::new(
            EventKind::Wait,
            "004 §Wound Points · ruling felled_action",
            format!("{me} lies still: {why}."),
        )
        .actor(&me)
    });
    true
}

/// 004 §Wound Points: felled this round after it declared, able to act, its
/// action strenuous and not the free first one of a stabilised creature.
fn would_strain(world: &World, slot: &Slot) -> bool {
    let e = slot.actor;
    let down = matches!(
        world.get::<Health>(e),
        Some(Health::Incapacitated | Health::Dying)
    );
    let Some(rs) = world.get::<RoundState>(e) else {
        return false;
    };
    let strenuous = !matches!(
        slot.action,
        Action::Move { .. } | Action::Wait | Action::Flee
    );
    let free = world.get::<Stabilised>(e).is_some() && rs.actions_taken == 0;
    // Nothing to pay for when it cannot act as declared (004 §Combat
    // Injuries): the action is refused where it would begin.
    let gone = world.get::<Fled>(e).is_some()
        || world.get::<Routed>(e).is_some()
        || world
            .get::<Hurts>(e)
            .is_some_and(|h| h.paralysed || super::resolve::bars(h, &slot.action).is_some());
    // A late action was declared last round (004 §Step 2).
    let fell = rs.fell || (slot.late && rs.late_fell);
    down && fell && strenuous && !free && !gone
}

fn ask(world: &mut World, slot: &Slot) {
    let e = slot.actor;
    let me = world.resource::<Flow>().name(e).to_string();
    let what = super::describe(world, &slot.action);
    let kills = strain_kills(world, e)
        .map(|how| format!(", which would {how}"))
        .unwrap_or_default();
    let prompt = decision::prompt(world, e, |_| {
        format!(
            "{me} has fallen since it declared: {what} at the cost of 1 Wound Point{kills}, or lie still"
        )
    });
    let id = decision::ask(
        world,
        decision::Question {
            actor: e,
            prompt,
            rule: "004 §Wound Points".into(),
            secret: false,
            move_order: None,
            choices,
        },
    );
    world.resource_mut::<Flow>().straining = Some((id, e, None));
}

/// 004 §Wound Points: how the Wound Point a strain costs `e` would kill
/// it, in words after "which would": at once ("if a creature's current
/// Wound Points reaches the negative value of their Strength Score, they
/// die"), or with the Wound Point a Dying creature loses as the round ends,
/// where lying still it would see the round out. `None`: it would not.
pub(crate) fn strain_kills(world: &World, e: Entity) -> Option<&'static str> {
    let wp = world.get::<WoundPoints>(e)?.current;
    let dead = -super::resolve::strength_now(world, e);
    if wp - 1 <= dead {
        return Some("kill it");
    }
    let stabilised = world.get::<Stabilised>(e).is_some();
    let by_round_end = |w: i32| w - i32::from(w < 0 && !stabilised);
    (by_round_end(wp - 1) <= dead && by_round_end(wp) > dead)
        .then_some("kill it at the round's end, with the Wound Point it bleeds")
}

/// The two answers.
pub fn choices(world: &World, e: Entity) -> Vec<Choice> {
    let me = world.resource::<Flow>().name(e).to_string();
    let cost = if let Some(how) = strain_kills(world, e) {
        format!("1 Wound Point, which would {how}")
    } else if world.get::<Health>(e) == Some(&Health::Incapacitated) {
        "1 Wound Point, leaving it Dying where it lies".to_string()
    } else {
        "1 Wound Point".to_string()
    };
    vec![
        Choice::legal(
            Order::new(&me, "strain"),
            format!("Carry out the declared action, at {cost}"),
        ),
        Choice::legal(
            Order::new(&me, "lie_still"),
            "Lie still: no action, no Wound Point",
        ),
    ]
}

/// An answer: carry it out (`strain`) or not (`lie_still`).
pub fn validate(_: &World, _: Entity, order: &Order) -> Result<bool, String> {
    match order.action.as_str() {
        "strain" => Ok(true),
        "lie_still" => Ok(false),
        other => Err(format!(
            "{other:?}: one fallen since it declared carries out its action (strain) or lies still (lie_still) (ruling felled_action)"
        )),
    }
}

/// The AI's answer: it carries the action out, unless the Wound Point
/// would kill it.
pub(crate) fn ai_answer(world: &World, e: Entity) -> Option<Order> {
    let answer = if strain_kills(world, e).is_some() {
        "lie_still"
    } else {
        "strain"
    };
    asked(world, e).then(|| Order::new(world.resource::<Flow>().name(e), answer))
}

/// Whether `e` is asked this question now, so its answers are checked here.
pub(crate) fn is_asked(world: &World, e: Entity) -> bool {
    asked(world, e)
}

/// It takes no action: a full defense it gives up goes, its +4 with it
/// (004 §Step 3: "when using the Full-Defense action").
fn lie_still(world: &mut World, e: Entity, action: &Action) {
    if matches!(action, Action::FullDefense { .. })
        && let Some(mut rs) = world.get_mut::<RoundState>(e)
    {
        rs.full_defense = false;
    }
    let me = world.resource::<Flow>().name(e).to_string();
    fray_core::log::record(world, || {
        Event::new(
            EventKind::Wait,
            "004 §Wound Points · ruling felled_action",
            format!("{me} lies still and does not carry out its declared action."),
        )
        .actor(&me)
    });
}
