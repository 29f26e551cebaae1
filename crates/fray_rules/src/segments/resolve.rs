//! 001 §3: the segments of a period played in order — spells whose casting
//! time is complete go off, then whoever acts in the segment. Enemies in one
//! segment act at one instant, their damage landing together (001 §3 Ties,
//! ruling `same_segment`); otherwise damage takes effect at once, and the
//! dead do not act. Interrupts (001 §Combat) and a caster's choice to begin
//! or decline (ruling `decline_cast`) pause the action for a decision.

use bevy_ecs::prelude::*;
use fray_core::casting::Casting;
use fray_core::decision::{self, Choice, Decisions, Order, Question};
use fray_core::grid::{Cell, Grid, GridGeometry};
use fray_core::log::{BattleLog, Event, EventKind, Modifier, if_kept, record};
use fray_core::model::{Ending, Side};
use fray_core::simultaneous::Simultaneous;

pub use super::combat::Hit;
use super::combat::{
    Routine as Blow, apply_hit, approach, cell, charge_run, distance, flee_move, foes,
    living_target, melee_weapon, name, reach_of, routine, spells_going_off,
};
use super::{
    Action, Data, Declared, Flow, HitPoints, PauseKind, Paused, Period, Routine, Slot, SpearUsed,
    SpellTarget, Stage, Stats, SurpriseSegments, able, roster,
};

/// What the next step of the segments does.
enum Next {
    Act,
    Again,
    Stop,
}

/// 001 §3: play the period's segments, one action per step.
pub fn resolve_segments(world: &mut World) {
    loop {
        if world.resource::<Flow>().stage != Stage::Resolving {
            return;
        }
        if world.resource::<Flow>().group.is_empty() {
            match advance(world) {
                Next::Act => {}
                Next::Again => continue,
                Next::Stop => return,
            }
        }
        act_next(world);
        return;
    }
}

/// The next actor of the open segment, or the next segment, or the end of
/// the period.
fn advance(world: &mut World) -> Next {
    let (opened, segment, last, here) = {
        let f = world.resource::<Flow>();
        let here = f.slots.first().is_some_and(|s| s.segment == f.segment);
        (f.opened, f.segment, f.last, here)
    };
    if opened {
        if here {
            let mut flow = world.resource_mut::<Flow>();
            let next = flow.slots.remove(0);
            flow.group = Simultaneous::begin(vec![next]);
            return Next::Act;
        }
        world.resource_mut::<Flow>().opened = false;
        if segment >= last {
            end_period(world);
            return Next::Stop;
        }
    }
    open_segment(world, segment + 1)
}

/// 001 §3 and §Note about spells: segment `s` begins: spells complete go
/// off, then its actors line up — all at one instant when enemies act in it.
fn open_segment(world: &mut World, s: u32) -> Next {
    let (clock, words) = {
        let mut flow = world.resource_mut::<Flow>();
        flow.segment = s;
        flow.opened = true;
        let words = match flow.period {
            Period::Surprise => format!("surprise segment {s}"),
            Period::Round => format!("segment {s}"),
        };
        (flow.clock(s), words)
    };
    world.resource_mut::<BattleLog>().time = words.clone();
    spells_going_off(world, clock);
    if check_end(world) {
        return Next::Stop;
    }
    let here: Vec<Slot> = {
        let mut flow = world.resource_mut::<Flow>();
        let n = flow.slots.iter().take_while(|x| x.segment == s).count();
        flow.slots.drain(..n).collect()
    };
    if here.is_empty() {
        return Next::Again;
    }
    // Those who act: the able, and in a tied round one felled earlier with
    // its last blow to come (ruling tied_round), whose blow is held with the
    // rest of the segment's.
    let mut sides: Vec<usize> = here
        .iter()
        .filter(|x| able(world, x.actor) || owes_last_blow(world, x))
        .filter_map(|x| world.get::<Side>(x.actor).map(|s| s.0))
        .collect();
    sides.sort_unstable();
    sides.dedup();
    let mixed = sides.len() > 1;
    // A tie of the initiative dice is the text's; enemies brought into one
    // segment otherwise (a missile bonus, a hold, surprise) are ruling
    // same_segment's.
    let (kind, rule) = if mixed {
        let tie = world.resource::<Flow>().period == Period::Round && tied_round(world);
        let rule = if tie {
            "001 §3 Ties"
        } else {
            "001 §3 Ties · ruling same_segment"
        };
        (EventKind::Simultaneous, rule)
    } else {
        let rule = match world.resource::<Flow>().period {
            Period::Surprise => "001 §1 Surprise segments",
            Period::Round => "001 §3",
        };
        (EventKind::Phase, rule)
    };
    let text = if_kept(world, |w| segment_words(w, &here, &words, mixed));
    record(world, || Event::new(kind, rule, text));
    let mut flow = world.resource_mut::<Flow>();
    if mixed {
        flow.group = Simultaneous::begin(here);
    } else {
        let mut rest = here;
        let first = rest.remove(0);
        rest.append(&mut flow.slots);
        flow.slots = rest;
        flow.group = Simultaneous::begin(vec![first]);
    }
    Next::Act
}

/// Who acts in the segment `words` names, in words: at one instant when
/// enemies act in it (`mixed`), else why it is theirs.
fn segment_words(world: &World, here: &[Slot], words: &str, mixed: bool) -> String {
    // Those felled since the schedule was made do not act, but for a last
    // blow in a tied round (ruling tied_round).
    let here: Vec<&Slot> = here
        .iter()
        .filter(|x| able(world, x.actor) || owes_last_blow(world, x))
        .collect();
    let Some(first) = here.first() else {
        return format!("{}: those due to act are out of the fight.", capital(words));
    };
    // Each actor once: one whose two routines both fall here acts twice.
    let mut actors: Vec<(Entity, bool)> = Vec::new();
    for x in &here {
        match actors.iter_mut().find(|(a, _)| *a == x.actor) {
            Some((_, twice)) => *twice = true,
            None => actors.push((x.actor, false)),
        }
    }
    let named = |&(a, twice): &(Entity, bool)| match twice {
        true => format!("{} (twice)", name(world, a)),
        false => name(world, a).to_string(),
    };
    if mixed {
        let names: Vec<String> = actors.iter().map(named).collect();
        return format!(
            "{}: {} act at the same instant; their damage lands together.",
            capital(words),
            names.join(", ")
        );
    }
    let why = &first.why;
    let acts = match actors.as_slice() {
        [(a, true)] => format!("{} acts twice", name(world, *a)),
        [(a, false)] => format!("{} acts", name(world, *a)),
        _ => {
            let names: Vec<String> = actors.iter().map(named).collect();
            format!("{} act", names.join(", "))
        }
    };
    format!("{}: {acts} ({why}).", capital(words))
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// Whether an action went through or waits for decisions.
enum Acted {
    Done(Option<Vec<Hit>>),
    Paused,
}

/// The next actor of the segment acts.
fn act_next(world: &mut World) {
    let (slot, held) = {
        let mut flow = world.resource_mut::<Flow>();
        let Some(slot) = flow.group.next_to_act() else {
            return;
        };
        (slot, flow.group.take_held())
    };
    if let Acted::Done(held) = act(world, slot, held) {
        finish(world, held);
    }
}

/// An action is over: its hits are put with the segment's; when the last of
/// a simultaneous segment has acted, all land together.
fn finish(world: &mut World, held: Option<Vec<Hit>>) {
    let landing = world.resource_mut::<Flow>().group.put_held(held);
    for hit in &landing {
        apply_hit(world, hit);
    }
    if world.resource::<Flow>().group.is_empty() {
        check_end(world);
    }
}

/// One action in its segment.
fn act(world: &mut World, slot: Slot, held: Option<Vec<Hit>>) -> Acted {
    let e = slot.actor;
    if !able(world, e) {
        // The second routine comes after the tied segment, not in it.
        if tied_round(world)
            && slot.routine == Routine::First
            && world.resource::<Flow>().fell.contains(&e)
        {
            let mut held = held;
            last_blow(world, &slot, &mut held);
            return Acted::Done(held);
        }
        let who = name(world, e);
        // 001 §3 Ties: outside a tied round damage takes effect at once; in
        // one, a second routine or a later hold comes after the tied
        // segment and is not dealt by one felled (ruling tied_round).
        let (rule, why) = if tied_round(world) {
            (
                "ruling tied_round",
                "a felled combatant deals only the blow of the tied segment",
            )
        } else {
            ("001 §3 Ties", "damage took effect at once")
        };
        record(world, || {
            Event::new(
                EventKind::NoAction,
                rule,
                format!("{who} is out of the fight and does not act: {why}."),
            )
            .actor(&who)
        });
        return Acted::Done(held);
    }
    if let Some(c) = world
        .get::<Casting>(e)
        .filter(|_| slot.action != Action::Casting)
    {
        // Ruling continuing_cast: its segment came before its spell went off.
        let (who, spell) = (name(world, e), c.spell.clone());
        record(world, || {
            Event::new(
                EventKind::NoAction,
                "ruling continuing_cast",
                format!("{who} is still casting {spell}: its declared action is lost."),
            )
            .actor(&who)
        });
        return Acted::Done(held);
    }
    world.resource_mut::<Flow>().done.push(slot.clone());
    // A caster is first asked whether it casts (ruling decline_cast); its
    // walk into range, and the back it may turn, come only if it does.
    if matches!(slot.action, Action::Cast { .. }) {
        return go_on(world, slot, held);
    }
    let backs = backs_turned(
        world,
        slot.actor,
        &slot.action,
        slot.routine == Routine::First,
    );
    match (&slot.action, backs.first()) {
        (_, None) => go_on(world, slot, held),
        (Action::Move { .. } | Action::Flee | Action::Cast { .. }, Some(_)) => {
            pause(world, slot, held, PauseKind::FleeingAttacks(backs))
        }
        (_, Some(&foe)) => {
            let slot = engage_instead(world, slot, foe);
            go_on(world, slot, held)
        }
    }
}

/// Ruling `general_actions`: a fighter who declared an attack or a charge
/// (001 §2: "in general terms") and would turn its back on `foe` beside it
/// going for its target fights `foe` instead.
fn engage_instead(world: &mut World, mut slot: Slot, foe: Entity) -> Slot {
    let (who, them) = (name(world, slot.actor), name(world, foe));
    let declared = match &mut slot.action {
        Action::Attack { target, .. } | Action::Charge { target, .. } => {
            Some(std::mem::replace(target, foe))
        }
        Action::Hold { target, .. } => target.replace(foe),
        _ => None,
    };
    // Its second routine, if it has one, goes at the same foe: still to
    // come, or in this segment's group acting together.
    let actor = slot.actor;
    let mut flow = world.resource_mut::<Flow>();
    let Flow { slots, group, .. } = &mut *flow;
    for s in slots.iter_mut().chain(group.acting_mut().iter_mut()) {
        if s.actor != actor || s.routine != Routine::Second {
            continue;
        }
        match &mut s.action {
            Action::Attack { target, .. } | Action::Charge { target, .. } => *target = foe,
            Action::Hold { target, .. } => *target = Some(foe),
            _ => {}
        }
    }
    let was = declared.map_or("its foe".to_string(), |d| name(world, d));
    record(world, || {
        Event::new(
            EventKind::Retarget,
            "ruling general_actions",
            format!(
                "Going for {was}, {who} would turn its back on {them}: it fights {them} instead."
            ),
        )
        .actor(&who)
        .target(&them)
    });
    slot
}

/// Whether this round's initiative rolls tie (001 §3 Ties).
fn tied_round(world: &World) -> bool {
    let flow = world.resource::<Flow>();
    flow.period == Period::Round && flow.initiative.is_some_and(|[a, b]| a == b)
}

/// Whether someone felled in this tied round has its last blow still to
/// come (ruling `tied_round`): the battle is not over before it.
fn last_blows_due(world: &World) -> bool {
    let flow = world.resource::<Flow>();
    flow.slots
        .iter()
        .chain(flow.group.acting())
        .any(|s| owes_last_blow(world, s))
}

/// Ruling `tied_round`: whether `slot` is the last blow, still to come, of
/// one felled earlier in this tied round. A second routine, or an attack
/// held past the tied segment, comes after it: the dead deal neither.
fn owes_last_blow(world: &World, slot: &Slot) -> bool {
    let flow = world.resource::<Flow>();
    let tied = flow.initiative.map_or(0, |[a, _]| a);
    let after_the_tie = matches!(slot.action, Action::Hold { .. }) && slot.segment > tied;
    tied_round(world)
        && flow.fell.contains(&slot.actor)
        && slot.action.is_blow()
        && !after_the_tie
        && slot.routine == Routine::First
}

/// Ruling `tied_round` (001 §3 Ties: "The damage inflicted by combatants
/// during simultaneous initiative is inflicted even if one of the combatants
/// dies during the round"): felled earlier in a tied round, one who
/// declared a blow still strikes in its segment, from where it fell, at its
/// target or else the nearest foe in reach.
fn last_blow(world: &mut World, slot: &Slot, held: &mut Option<Vec<Hit>>) {
    let e = slot.actor;
    let (target, weapon) = match &slot.action {
        Action::Attack { target, weapon } | Action::Charge { target, weapon } => {
            (Some(*target), weapon.clone())
        }
        Action::Hold { target, weapon, .. } => (*target, weapon.clone()),
        Action::SetSpear { weapon } => (None, weapon.clone()),
        _ => return,
    };
    // A weapon's reach, or a missile's range (as an attack strikes).
    let Some(reach) = world
        .resource::<Data>()
        .0
        .weapons
        .get(&weapon)
        .map(|w| w.strikes())
    else {
        return;
    };
    let within = |t: Entity| distance(world, e, t) <= reach;
    let target = target.filter(|&t| able(world, t) && within(t)).or_else(|| {
        foes(world, e)
            .into_iter()
            .filter(|&t| within(t))
            .min_by_key(|&t| distance(world, e, t))
    });
    let who = name(world, e);
    let Some(target) = target else {
        record(world, || {
            Event::new(EventKind::NoAction, "001 §3 Ties · ruling tied_round", format!("{who}, felled earlier in this tied round, has no foe within reach for its last blow."))
                .actor(&who)
        });
        return;
    };
    felled_yet_strikes(world, e);
    let blow = Blow {
        attacker: e,
        target,
        weapon: &weapon,
        modifiers: Vec::new(),
        multiplier: 1,
        rule: "001 §3 Ties · ruling tied_round",
    };
    routine(world, blow, held);
}

/// Ruling `tied_round`: say that `e`, felled in this tied round, still
/// deals its blow.
fn felled_yet_strikes(world: &mut World, e: Entity) {
    let who = name(world, e);
    record(world, || {
        Event::new(
            EventKind::Simultaneous,
            "001 §3 Ties · ruling tied_round",
            format!("{who}, felled earlier in this tied round, still deals its blow."),
        )
        .actor(&who)
    });
}

/// The action itself, once any strikes at the actor's back are over.
fn go_on(world: &mut World, slot: Slot, mut held: Option<Vec<Hit>>) -> Acted {
    let e = slot.actor;
    match slot.action.clone() {
        Action::Attack { target, weapon } => attack(world, &slot, target, &weapon, &mut held),
        Action::Hold { target, weapon, .. } => {
            let target = target.or_else(|| nearest(world, e));
            if let Some(t) = target {
                attack(world, &slot, t, &weapon, &mut held);
            }
        }
        Action::Charge { target, weapon } => return charge(world, slot, target, &weapon, held),
        Action::Move { to } => {
            let budget = world.get::<Stats>(e).map_or(0, |s| s.move_cells);
            approach(world, e, to, 0, budget);
        }
        Action::Cast { .. } => return pause(world, slot, held, PauseKind::BeginCast),
        Action::Flee => flee_move(world, e),
        Action::SetSpear { weapon } => set_spear_turn(world, &slot, &weapon, &mut held),
        // A held spell is a cast by the time its segment comes.
        Action::Wait | Action::Casting | Action::HoldCast { .. } => {}
    }
    Acted::Done(held)
}

/// The nearest enemy of `e` still fighting.
fn nearest(world: &World, e: Entity) -> Option<Entity> {
    foes(world, e)
        .into_iter()
        .min_by_key(|&f| distance(world, e, f))
}

/// 001 §3 · ruling `movement`: attack with a weapon — close in (or into
/// range) first, unless this is a second routine (ruling `second_routine`).
fn attack(
    world: &mut World,
    slot: &Slot,
    target: Entity,
    weapon: &str,
    held: &mut Option<Vec<Hit>>,
) {
    let e = slot.actor;
    let Some(w) = world.resource::<Data>().0.weapons.get(weapon).cloned() else {
        return;
    };
    let Some(target) = living_target(world, e, target) else {
        return;
    };
    if slot.routine == Routine::First {
        let budget = world.get::<Stats>(e).map_or(0, |s| s.move_cells);
        approach(world, e, cell(world, target), w.strikes(), budget);
    }
    let what = if w.missile() { "range" } else { "reach" };
    if !in_reach(world, e, target, (w.strikes(), what)) {
        return;
    }
    let rule = match slot.routine {
        Routine::First => "001 §3 Attack routines",
        Routine::Second => "ruling second_routine",
    };
    let blow = Blow {
        attacker: e,
        target,
        weapon,
        modifiers: Vec::new(),
        multiplier: 1,
        rule,
    };
    routine(world, blow, held);
}

/// Whether `target` is within `reach` of `e`, saying so when not.
fn in_reach(world: &mut World, e: Entity, target: Entity, (reach, what): (u32, &str)) -> bool {
    let d = distance(world, e, target);
    if d <= reach {
        return true;
    }
    let (who, them) = (name(world, e), name(world, target));
    record(world, || {
        Event::new(
            EventKind::OutOfReach,
            "ruling movement",
            format!("{who} cannot reach {them} this segment ({d} cells away, {what} {reach})."),
        )
        .actor(&who)
    });
    false
}

/// Ruling `set_spear`: in its own segment a set spear strikes an enemy
/// already in reach, without moving, unless it has already struck a charger
/// this round: that was its routine (001 §3); having struck so, it strikes
/// at no charger later in the round. A second routine (001 §3 Attack
/// routines) strikes an enemy in reach in its own segment all the same.
fn set_spear_turn(world: &mut World, slot: &Slot, weapon: &str, held: &mut Option<Vec<Hit>>) {
    let e = slot.actor;
    let first = slot.routine == Routine::First;
    if first && world.get::<SpearUsed>(e).is_some() {
        let who = name(world, e);
        record(world, || {
            Event::new(
                EventKind::NoAction,
                "ruling set_spear",
                format!("{who}'s set spear struck at a charger this round: its routine is spent."),
            )
            .actor(&who)
        });
        return;
    }
    let reach = reach_of(world, weapon);
    let Some(t) = foes(world, e)
        .into_iter()
        .find(|&f| distance(world, e, f) <= reach)
    else {
        return;
    };
    let blow = Blow {
        attacker: e,
        target: t,
        weapon,
        modifiers: Vec::new(),
        multiplier: 1,
        rule: "ruling set_spear",
    };
    // Its routine is spent: no strike at a charger later this round.
    if first {
        world.entity_mut(e).insert(SpearUsed);
    }
    routine(world, blow, held);
}

/// Ruling `charge`: run at the target, then meet any spear set against the
/// charge before striking. A target come within reach since the charge was
/// declared leaves no run: the charger attacks it, without the bonus.
fn charge(
    world: &mut World,
    slot: Slot,
    target: Entity,
    weapon: &str,
    held: Option<Vec<Hit>>,
) -> Acted {
    let e = slot.actor;
    let Some(target) = living_target(world, e, target) else {
        return Acted::Done(held);
    };
    // Ruling `second_routine`: the second routine repeats the attack
    // without moving further: no second run, no second charge bonus.
    if slot.routine == Routine::Second {
        let mut held = held;
        attack(world, &slot, target, weapon, &mut held);
        return Acted::Done(held);
    }
    let reach = reach_of(world, weapon);
    if distance(world, e, target) <= reach {
        let (who, them) = (name(world, e), name(world, target));
        record(world, || {
            Event::new(
                EventKind::Attack,
                "ruling charge",
                format!("{them} is already within reach: {who} has no run to charge and attacks instead."),
            )
            .actor(&who)
        });
        let mut held = held;
        attack(world, &slot, target, weapon, &mut held);
        return Acted::Done(held);
    }
    let moves = world.get::<Stats>(e).map_or(0, |s| s.move_cells);
    let budget = world
        .resource::<Data>()
        .0
        .ruling_numbers
        .charge_cells(moves);
    let who = name(world, e);
    let them = name(world, target);
    record(world, || {
        Event::new(
            EventKind::Move,
            "ruling charge",
            format!("{who} charges {them}."),
        )
        .actor(&who)
    });
    let from = cell(world, e);
    let ran = charge_run(world, e, target, reach, budget);
    // A spear set against the charge meets it in its reach, whether or not
    // the charge reaches its own target (001 §Combat; ruling set_spear).
    let spears = set_spears(world, e, from, &ran);
    if spears.is_empty() {
        let mut held = held;
        if in_reach(world, e, target, (reach, "reach")) {
            charge_strike(world, e, target, weapon, &mut held);
        }
        return Acted::Done(held);
    }
    pause(world, slot, held, PauseKind::SetSpears(spears))
}

/// Ruling `charge`: the charger's blow, at +2.
fn charge_strike(
    world: &mut World,
    e: Entity,
    target: Entity,
    weapon: &str,
    held: &mut Option<Vec<Hit>>,
) {
    let Some(target) = living_target(world, e, target) else {
        return;
    };
    let bonus = world.resource::<Data>().0.ruling_numbers.charge_bonus;
    let blow = Blow {
        attacker: e,
        target,
        weapon,
        modifiers: vec![Modifier::new("charge", bonus)],
        multiplier: 1,
        rule: "ruling charge",
    };
    routine(world, blow, held);
}

/// Ruling `set_spear`: the enemies of charger `e` with a spear set, unused
/// this round, whose reach its charge from `from` through the cells `ran`
/// came into: out of it where the charge began, in it somewhere along the
/// run.
fn set_spears(world: &World, e: Entity, from: Cell, ran: &[Cell]) -> Vec<Entity> {
    let data = &world.resource::<Data>().0;
    let grid = world.resource::<Grid>();
    let charged_into = |f: Entity, reach: u32| {
        let at = cell(world, f);
        grid.distance(from, at) > reach && ran.iter().any(|&c| grid.distance(c, at) <= reach)
    };
    foes(world, e)
        .into_iter()
        .filter(|&f| world.get::<SpearUsed>(f).is_none())
        .filter(|&f| match world.get::<Declared>(f) {
            Some(Declared(Action::SetSpear { weapon })) => data
                .weapons
                .get(weapon)
                .is_some_and(|w| charged_into(f, w.reach)),
            _ => false,
        })
        .collect()
}

/// Whether `e` is still surprised in the segment being resolved, or, while
/// declarations are taken, the segment they are for.
fn surprised_now(world: &World, e: Entity) -> bool {
    let flow = world.resource::<Flow>();
    let segment = if flow.stage == Stage::Declaring {
        flow.last
    } else {
        flow.segment
    };
    flow.period == Period::Surprise
        && world
            .get::<SurpriseSegments>(e)
            .is_some_and(|s| s.0 >= segment)
}

/// Ruling `fleeing_attack`: the enemies next to `e` it would turn its back
/// on doing `action` now (`first`: its first routine of the round, which may
/// move): all of them when it flees, and those whose reach a move, a
/// closing, a charge or a walk into a spell's range takes it out of (its way
/// as [`planned_walk`] finds it, or a charge's straight run).
pub(super) fn backs_turned(world: &World, e: Entity, action: &Action, first: bool) -> Vec<Entity> {
    let data = &world.resource::<Data>().0;
    let budget = world.get::<Stats>(e).map_or(0, |s| s.move_cells);
    let toward = |target: Option<Entity>| {
        target
            .filter(|&t| able(world, t))
            .or_else(|| nearest(world, e))
            .map(|t| cell(world, t))
    };
    let (goal, within, budget) = match action {
        Action::Flee => return fleeing_strikers(world, e),
        Action::Move { to } => (Some(*to), 0, budget),
        Action::Attack { target, weapon } if first => {
            let reach = data.weapons.get(weapon).map_or(1, |w| w.strikes());
            (toward(Some(*target)), reach, budget)
        }
        Action::Hold { target, weapon, .. } if first => {
            let reach = data.weapons.get(weapon).map_or(1, |w| w.strikes());
            (toward(*target), reach, budget)
        }
        Action::Charge { target, weapon } if first => (
            toward(Some(*target)),
            reach_of(world, weapon),
            data.ruling_numbers.charge_cells(budget),
        ),
        // 001 §Note about spells: a caster walks into its spell's range.
        Action::Cast { spell, target } | Action::HoldCast { spell, target, .. } => {
            let range = data.spells.get(spell).map_or(0, |s| s.range);
            (Some(cell(world, *target)), range, budget)
        }
        _ => (None, 0, 0),
    };
    let Some(goal) = goal else {
        return Vec::new();
    };
    // A charge runs straight at its target (ruling charge); any other
    // move takes the way round.
    let walk = if matches!(action, Action::Charge { .. }) {
        super::combat::charge_walk(world, e, goal, within, budget)
    } else {
        super::combat::planned_walk(world, e, goal, within, budget)
    };
    fleeing_strikers(world, e)
        .into_iter()
        .filter(|&f| {
            let reach = melee_weapon(world, f).map_or(0, |(_, r)| r);
            let at = cell(world, f);
            let grid = world.resource::<fray_core::grid::Grid>();
            walk.iter()
                .any(|&c| fray_core::grid::GridGeometry::distance(grid, c, at) > reach)
        })
        .collect()
}

/// Ruling `fleeing_attack`: the enemies next to a fleer who may strike at
/// its back: in the fight, not surprised, not casting nor having declared a
/// spell (001 §2: "may not substitute another action"), with a melee weapon
/// reaching it.
fn fleeing_strikers(world: &World, e: Entity) -> Vec<Entity> {
    let caster = |f| {
        matches!(
            world.get::<Declared>(f),
            Some(Declared(Action::Cast { .. } | Action::HoldCast { .. }))
        )
    };
    foes(world, e)
        .into_iter()
        .filter(|&f| !surprised_now(world, f) && world.get::<Casting>(f).is_none() && !caster(f))
        .filter(|&f| melee_weapon(world, f).is_some_and(|(_, r)| distance(world, e, f) <= r))
        .collect()
}

/// What beginning the cast of `slot` would bring on, as the question and
/// its choice warn: backs turned walking into range (ruling
/// `fleeing_attack`), or a target its walk cannot bring within range, so
/// that the spell would not be begun.
fn begin_cast_warning(world: &World, slot: &Slot) -> String {
    let Action::Cast { spell, target } = &slot.action else {
        return String::new();
    };
    let backs = backs_turned(
        world,
        slot.actor,
        &slot.action,
        slot.routine == Routine::First,
    );
    if !backs.is_empty() {
        let names: Vec<String> = backs.iter().map(|&f| name(world, f)).collect();
        return format!(" — WARNING: {}", super::declare::turned(&names.join(", ")));
    }
    let range = world
        .resource::<Data>()
        .0
        .spells
        .get(spell)
        .map_or(0, |s| s.range);
    let walk = world.get::<Stats>(slot.actor).map_or(0, |s| s.move_cells);
    let far = distance(world, slot.actor, *target);
    if able(world, *target) && far > range + walk {
        return format!(
            " — WARNING: {} is {far} cells away, beyond its range of {range} and a walk of {walk}: the spell would not be begun",
            name(world, *target)
        );
    }
    String::new()
}

/// Hold the action and ask: the caster (ruling `decline_cast`), or each
/// interrupting enemy (001 §Combat).
fn pause(world: &mut World, slot: Slot, held: Option<Vec<Hit>>, kind: PauseKind) -> Acted {
    let mover = name(world, slot.actor);
    let goes = going(world, slot.actor);
    let asked: Vec<(Entity, String, &'static str)> = match &kind {
        PauseKind::BeginCast => {
            let (spell, target) = match &slot.action {
                Action::Cast { spell, target } => (spell.clone(), Some(*target)),
                _ => (String::new(), None),
            };
            vec![(
                slot.actor,
                decision::prompt(world, slot.actor, |w| {
                    // Ruling decline_cast: said before it is answered.
                    let harmful = w
                        .resource::<Data>()
                        .0
                        .spells
                        .get(&spell)
                        .is_some_and(|s| s.harmful());
                    let instead = if harmful {
                        "the nearest enemy still fighting"
                    } else {
                        "an ally who is hurt, if any"
                    };
                    let gone = target
                        .filter(|&t| !able(w, t))
                        .map(|t| {
                            format!(
                                " ({} is out of the fight: it turns to {instead})",
                                name(w, t)
                            )
                        })
                        .unwrap_or_default();
                    let warning = begin_cast_warning(w, &slot);
                    format!(
                        "{mover}: begin casting {spell} now{gone}, or decline (no other action is allowed){warning}"
                    )
                }),
                "ruling decline_cast",
            )]
        }
        PauseKind::FleeingAttacks(who) => who
            .iter()
            .map(|&f| {
                let n = name(world, f);
                (
                    f,
                    decision::prompt(world, f, |_| {
                        format!("{n}: {mover} {goes} — strike at its back?")
                    }),
                    "ruling fleeing_attack",
                )
            })
            .collect(),
        PauseKind::SetSpears(who) => who
            .iter()
            .map(|&f| {
                let n = name(world, f);
                (
                    f,
                    decision::prompt(world, f, |_| {
                        format!("{n}: {mover} charges onto your set spear — strike first?")
                    }),
                    "ruling set_spear",
                )
            })
            .collect(),
    };
    {
        let mut flow = world.resource_mut::<Flow>();
        flow.paused = Some(Paused {
            slot,
            held,
            kind,
            answers: Vec::new(),
        });
        flow.stage = Stage::Asking;
    }
    for (actor, prompt, rule) in asked {
        decision::ask(
            world,
            Question {
                actor,
                prompt,
                rule: rule.into(),
                secret: false,
                move_order: None,
                choices: answer_choices,
            },
        );
    }
    Acted::Paused
}

/// The answers a paused action's question allows.
pub fn answer_choices(world: &World, actor: Entity) -> Vec<Choice> {
    let who = name(world, actor);
    let flow = world.resource::<Flow>();
    let Some(p) = &flow.paused else {
        return Vec::new();
    };
    match (&p.kind, &p.slot.action) {
        (PauseKind::BeginCast, Action::Cast { spell, .. }) => vec![
            Choice::legal(
                Order::new(&who, "cast").with(spell),
                format!(
                    "Begin casting {spell}{}",
                    begin_cast_warning(world, &p.slot)
                ),
            ),
            Choice::legal(
                Order::new(&who, "decline"),
                format!("Decline to cast {spell}"),
            ),
            Choice::refused(
                Order::new(&who, "attack"),
                "Attack instead",
                "a caster may decline to cast, but may not substitute another action (001 §2)",
            ),
        ],
        _ => vec![
            Choice::legal(Order::new(&who, "strike"), "Strike"),
            Choice::legal(Order::new(&who, "let_pass"), "Let it pass"),
        ],
    }
}

/// Check an answer to a paused action's question.
pub fn validate_answer(world: &World, actor: Entity, order: &Order) -> Result<bool, String> {
    let who = name(world, actor);
    if order.actor != who {
        return Err(format!("this decision is {who}'s, not {}'s", order.actor));
    }
    let flow = world.resource::<Flow>();
    let Some(p) = &flow.paused else {
        return Err("nothing is asked".into());
    };
    match (&p.kind, order.action.as_str()) {
        (PauseKind::BeginCast, "cast") => Ok(true),
        (PauseKind::BeginCast, "decline") => Ok(false),
        (PauseKind::BeginCast, _) => Err(
            "a caster may decline to cast, but may not substitute another action (001 §2)".into(),
        ),
        (_, "strike") => Ok(true),
        (_, "let_pass") => Ok(false),
        _ => Err("answer strike or let_pass".into()),
    }
}

/// Take the answers to a paused action's question; once all are in, carry
/// out the interrupts (their hits land at once) and go on with the action.
pub fn take_interrupts(world: &mut World) {
    let taken = decision::take_answers(world, "001 §Combat", |w, d, o| {
        validate_answer(w, d.actor, o)
    });
    for (d, yes) in taken {
        if let Some(p) = world.resource_mut::<Flow>().paused.as_mut() {
            p.answers.push((d.actor, yes));
        }
    }
    if !world.resource::<Decisions>().open().is_empty() {
        return;
    }
    let Some(p) = world.resource_mut::<Flow>().paused.take() else {
        return;
    };
    world.resource_mut::<Flow>().stage = Stage::Resolving;
    let mut held = p.held;
    let e = p.slot.actor;
    match (&p.kind, &p.slot.action) {
        (PauseKind::BeginCast, Action::Cast { spell, target }) => {
            let yes = p.answers.first().is_some_and(|a| a.1);
            let aimed = yes
                .then(|| aim_cast(world, &p.slot, spell, *target))
                .flatten();
            match aimed {
                Some((slot, _, backs)) if !backs.is_empty() => {
                    pause(world, slot, held, PauseKind::FleeingAttacks(backs));
                    return;
                }
                Some((slot, at, _)) => begin_casting(world, &slot, spell, at, true),
                // With no one to cast at, aim_cast has said so.
                None if yes => {}
                None => begin_casting(world, &p.slot, spell, *target, false),
            }
        }
        (PauseKind::FleeingAttacks(_), _) => {
            let hp = |w: &World| w.get::<HitPoints>(e).map_or(0, |h| h.current);
            let before = hp(world);
            interrupts(world, e, &p.answers, false);
            if able(world, e) {
                if let Action::Cast { spell, target } = &p.slot.action {
                    if hp(world) < before {
                        spoiled_at_the_start(world, e, spell);
                    } else {
                        begin_casting(world, &p.slot, spell, *target, true);
                    }
                } else {
                    match go_on(world, p.slot, held) {
                        Acted::Done(h) => held = h,
                        Acted::Paused => return,
                    }
                }
            }
        }
        (PauseKind::SetSpears(_), Action::Charge { target, weapon }) => {
            interrupts(world, e, &p.answers, true);
            // Ruling tied_round: felled by the spear in a tied round, the
            // charger's blow is still dealt.
            let felled = tied_round(world) && world.resource::<Flow>().fell.contains(&e);
            if (felled || able(world, e))
                && in_reach(world, e, *target, (reach_of(world, weapon), "reach"))
            {
                if felled {
                    felled_yet_strikes(world, e);
                }
                charge_strike(world, e, *target, weapon, &mut held);
            }
        }
        _ => {}
    }
    finish(world, held);
}

/// Ruling `fleeing_attack`: a caster hit at its back as it turns to walk
/// into range is hit in the first segment of its casting time (001 §Note
/// about spells): the spell is spoiled before it begins.
fn spoiled_at_the_start(world: &mut World, e: Entity, spell: &str) {
    let who = name(world, e);
    record(world, || {
        Event::new(
            EventKind::Spoiled,
            "001 §Note about spells · ruling fleeing_attack",
            format!("{who} is hit in its segment, the first of its casting time: its {spell} is spoiled before it begins."),
        )
        .actor(&who)
    });
}

/// What one turning its back on its foes does, in a question to them: a
/// flight, or a move away from them (ruling `fleeing_attack`).
fn going(world: &World, mover: Entity) -> &'static str {
    match world.get::<Declared>(mover) {
        Some(Declared(Action::Flee)) => "flees from you",
        _ => "turns its back on you to move away",
    }
}

/// The interrupting strikes on `mover`: at its back (ruling
/// `fleeing_attack`) or with a set spear (ruling `set_spear`). They land at once.
fn interrupts(world: &mut World, mover: Entity, answers: &[(Entity, bool)], spear: bool) {
    let n = world.resource::<Data>().0.ruling_numbers.clone();
    for &(f, yes) in answers {
        let (who, them) = (name(world, f), name(world, mover));
        if !yes || !able(world, f) || !able(world, mover) {
            let what = if !yes {
                format!("{who} lets {them} pass.")
            } else if !able(world, f) {
                format!("{who} is down: it strikes no blow at {them}.")
            } else {
                format!("{them} is down already: {who}'s blow at it is not struck.")
            };
            record(world, || {
                Event::new(EventKind::Pass, "001 §Combat", what).actor(&who)
            });
            continue;
        }
        let (weapon, rule, mods, multiplier) = if spear {
            let w = match world.get::<Declared>(f) {
                Some(Declared(Action::SetSpear { weapon })) => weapon.clone(),
                _ => continue,
            };
            // Ruling set_spear: the strike at the charger is its routine;
            // one that let the charger pass keeps it.
            world.entity_mut(f).insert(SpearUsed);
            (w, "ruling set_spear", Vec::new(), n.set_spear_multiplier)
        } else {
            let Some((w, _)) = melee_weapon(world, f) else {
                continue;
            };
            let rear = vec![Modifier::new("at its back", n.fleeing_attack_bonus)];
            (w, "ruling fleeing_attack", rear, 1)
        };
        let (kind, what) = if spear {
            (
                EventKind::Readied,
                format!("{who} strikes first at the charging {them} with its set {weapon}."),
            )
        } else {
            (
                EventKind::Opportunity,
                match world.get::<Declared>(mover) {
                    Some(Declared(Action::Flee)) => {
                        format!("{who} strikes at the back of the fleeing {them}.")
                    }
                    _ => format!("{who} strikes at {them}'s back as it turns away."),
                },
            )
        };
        record(world, || {
            Event::new(kind, rule, what).actor(&who).target(&them)
        });
        let blow = Blow {
            attacker: f,
            target: mover,
            weapon: &weapon,
            modifiers: mods,
            multiplier,
            rule,
        };
        routine(world, blow, &mut None);
    }
}

/// 001 §Note about spells: the caster begins in its initiative segment, the
/// first of the casting time, stepping into range first (ruling
/// `movement`); the spell goes off when the time is complete. Or it
/// declines (ruling `decline_cast`).
/// A caster who has chosen to cast: its slot aimed at whom it casts at
/// (ruling `retarget`), that target, and the enemies it turns its back on
/// walking into the spell's range of them (ruling `fleeing_attack`).
fn aim_cast(
    world: &mut World,
    slot: &Slot,
    spell: &str,
    target: Entity,
) -> Option<(Slot, Entity, Vec<Entity>)> {
    let e = slot.actor;
    let target = cast_target(world, e, spell, target)?;
    let mut aimed = slot.clone();
    aimed.action = Action::Cast {
        spell: spell.to_string(),
        target,
    };
    let backs = backs_turned(world, e, &aimed.action, slot.routine == Routine::First);
    Some((aimed, target, backs))
}

/// Whom `e` casts `spell` at: a harmful spell's target, or the nearest foe
/// if it has fallen (ruling `retarget`); a helpful one's if still up.
fn cast_target(world: &mut World, e: Entity, spell: &str, target: Entity) -> Option<Entity> {
    let harmful = world.resource::<Data>().0.spells.get(spell)?.harmful();
    if harmful {
        living_target(world, e, target)
    } else if able(world, target) {
        Some(target)
    } else {
        ally_instead(world, e, spell, target)
    }
}

/// Ruling `decline_cast`: a helpful spell whose ally has fallen turns to
/// the nearest ally still fighting who is hurt, the caster included
/// (listing order breaks ties); with none, it is not begun. Either way the
/// log says so.
fn ally_instead(world: &mut World, e: Entity, spell: &str, fallen: Entity) -> Option<Entity> {
    let hurt = |x: Entity| world.get::<HitPoints>(x).is_some_and(|h| h.current < h.max);
    let next = roster(world)
        .into_iter()
        .filter(|&x| able(world, x) && !fray_core::model::enemies(world, e, x) && hurt(x))
        .min_by_key(|&x| distance(world, e, x));
    let (who, was) = (name(world, e), name(world, fallen));
    let text = match next {
        Some(n) => format!(
            "{was} is out of the fight: {who} turns its {spell} on {}.",
            name(world, n)
        ),
        None => {
            format!("{was} is out of the fight and no ally is hurt: {who} does not begin {spell}.")
        }
    };
    record(world, || {
        Event::new(EventKind::Retarget, "ruling decline_cast", text).actor(&who)
    });
    next
}

fn begin_casting(world: &mut World, slot: &Slot, spell: &str, target: Entity, yes: bool) {
    let e = slot.actor;
    let who = name(world, e);
    if !yes {
        record(world, || {
            Event::new(
                EventKind::Lapse,
                "001 §2",
                format!(
                    "{who} elects not to cast {spell}, and may not take another action instead."
                ),
            )
            .actor(&who)
        });
        return;
    }
    let Some(s) = world.resource::<Data>().0.spells.get(spell).cloned() else {
        return;
    };
    let Some(target) = cast_target(world, e, spell, target) else {
        return;
    };
    let budget = world.get::<Stats>(e).map_or(0, |s| s.move_cells);
    approach(world, e, cell(world, target), s.range, budget);
    if !in_reach(world, e, target, (s.range, "range")) {
        let (them, r) = (name(world, target), s.range);
        record(world, || {
            Event::new(
                EventKind::Lapse,
                "001 §Note about spells",
                format!(
                    "{who} does not begin casting {spell}: {them} is still beyond its range of {r}."
                ),
            )
            .actor(&who)
            .target(&them)
        });
        return;
    }
    let (began, completes, when) = {
        let flow = world.resource::<Flow>();
        let began = flow.clock(slot.segment);
        let completes = began + s.casting_time;
        // Ruling continuing_cast: completing as the period's last segment
        // ends, it goes off then (end_period); each surprise segment is a
        // period of its own, the last of them ending before round 1.
        let ends = match flow.period {
            Period::Surprise => completes
                .checked_sub(1)
                .filter(|&c| c <= flow.surprise_segments),
            Period::Round => {
                let last = flow.clock(flow.last);
                (completes == last + 1).then_some(last)
            }
        };
        let when = match ends {
            Some(c) => format!("as {} ends", flow.segment_words(c)),
            None => format!("in {}", flow.segment_words(completes)),
        };
        (began, completes, when)
    };
    world.entity_mut(e).insert((
        Casting {
            spell: spell.to_string(),
            began,
            completes,
        },
        SpellTarget(target),
    ));
    let them = name(world, target);
    let t = s.casting_time;
    let segs = if t == 1 { "segment" } else { "segments" };
    record(world, || {
        Event::new(
            EventKind::BeginCast,
            "001 §Note about spells",
            format!("{who} begins casting {spell} at {them}: casting time {t} {segs}, it goes off {when}."),
        )
        .actor(&who)
        .target(&them)
    });
}

/// The end of a period: spells completing as its last segment ends go off
/// (ruling `continuing_cast`); then the next surprise segment, or the end of
/// the round.
fn end_period(world: &mut World) {
    let (period, next_clock) = {
        let f = world.resource::<Flow>();
        (f.period, f.clock(f.last) + 1)
    };
    // A spell completing between two surprise segments goes off then too,
    // so its caster may act in the next (001 §1: "both of those 2 surprise
    // segments in which to act").
    spells_going_off(world, next_clock);
    if check_end(world) {
        return;
    }
    match period {
        Period::Surprise => super::surprise::next_surprise_segment(world),
        Period::Round => world.resource_mut::<Flow>().stage = Stage::EndRound,
    }
}

/// 001 §Combat: the battle ends when at most one side still fights.
pub fn check_end(world: &mut World) -> bool {
    if world.resource::<fray_core::model::Outcome>().0.is_some() {
        world.resource_mut::<Flow>().stage = Stage::Over;
        return true;
    }
    if last_blows_due(world) {
        return false;
    }
    let round = world.resource::<Flow>().round;
    let ended = fray_core::model::end_when_decided(
        world,
        roster(world),
        round,
        Ending {
            rule: "001 §Combat",
            words: |side, rounds| match side {
                Some(s) => {
                    let rounds = fray_core::model::count_of(rounds, "round");
                    format!(
                        "The battle is over after {rounds}: the only side left standing is {s}."
                    )
                }
                None => {
                    let rounds = fray_core::model::count_of(rounds, "round");
                    format!("The battle is over: nobody is left standing after {rounds}.")
                }
            },
        },
    );
    if ended {
        world.resource_mut::<Flow>().stage = Stage::Over;
    }
    ended
}
