//! 004 §Step 2 resolution: actions from the lowest initiative to the highest,
//! ties at the same instant; movement (004 §Speed) with ripostes; attacks
//! against Defense (004 §Defense, §Armour); damage to Stress then Wound Points
//! (004 §Stress, §Wound Points); critical hits and Combat Injuries
//! (004 §Critical Hits, §Combat Injuries).

use std::sync::Arc;

use bevy_ecs::prelude::*;
use bevy_ecs::query::QueryItem;
use fray_core::decision::SmolStr;
use fray_core::dice::{Dice, DiceExpr};
use fray_core::grid::{Cell, Grid, GridGeometry};
use fray_core::log::EventKind;
use fray_core::log::{Check, Event, Modifier};
use fray_core::model::{Fighting, Side};
use fray_core::model::{Listed, ListedQuery, Rostered};
use fray_core::movement::{Halt, Provokes, Walk, cells};
use fray_core::occupancy::listed_near;
use fray_core::simultaneous::Simultaneous;
use fray_core::threat::Threatener;

use super::data::{DamageType, DeclaredData, Effect, RulingNumbers, Spell, SpellEffect, Weapon};
use super::{
    Action, Data, Fled, Flow, Harm, Health, Hurts, Injuries, Injury, Kit, LateAction, RoundState,
    Routed, SawThrough, Slot, Stabilised, Stage, Stats, Stress, Surprised, WoundPoints,
    bring_in_arrival, check_die, check_end, next_arrival,
};

/// A hit rolled but not yet applied: within a group of tied initiatives
/// every hit lands together when the group is done (004 §Step 2).
#[derive(Clone, Debug)]
pub struct Hit {
    target: Entity,
    amount: i32,
    critical: bool,
    damage_type: DamageType,
    /// Armour took something off it (004 §Armour).
    turned: bool,
}

/// 004 §Step 2: resolve the next initiative count — a group of one, or of
/// several tied creatures acting simultaneously — bringing in any late
/// arrival whose moment has come first. One count per step.
pub fn resolve_counts(world: &mut World) {
    if !super::felled::answered(world) {
        return;
    }
    if world.resource::<Flow>().group.is_empty() && !begin_count(world) {
        return;
    }
    // One action per step, so the timing can be followed action by action.
    let (slot, mut held) = {
        let mut flow = world.resource_mut::<Flow>();
        let Some(slot) = flow.group.next_to_act() else {
            return;
        };
        (slot, flow.group.take_held())
    };
    match super::felled::ask_first(world, &slot) {
        super::felled::Go::Ask => {
            let mut flow = world.resource_mut::<Flow>();
            flow.group.act_next(slot);
            let _ = flow.group.put_held(held);
            return;
        }
        super::felled::Go::Act => act(world, &slot, held.as_mut()),
        super::felled::Go::LieStill => {}
    }
    let landing = world.resource_mut::<Flow>().group.put_held(held);
    if world.resource::<Flow>().group.is_empty() {
        for hit in landing {
            apply_hit(world, &hit);
        }
        check_end(world);
    }
}

/// Take the next initiative count's group off the queue, bringing in any
/// late arrival whose moment has come first. False when there is nothing to
/// act this step (an arrival is declaring, or the round is over).
fn begin_count(world: &mut World) -> bool {
    let next = world.resource::<Flow>().queue.first().map(|s| s.initiative);
    if let Some(i) = next_arrival(world, next) {
        bring_in_arrival(world, i);
        return false;
    }
    let Some(init) = next else {
        world.resource_mut::<Flow>().stage = Stage::EndRound;
        return false;
    };
    let names: Vec<String> = {
        let mut flow = world.resource_mut::<Flow>();
        flow.count = Some(init);
        let n = flow
            .queue
            .iter()
            .take_while(|s| s.initiative == init)
            .count();
        let group: Vec<Slot> = flow.queue.drain(..n).collect();
        flow.group = Simultaneous::begin(group);
        let flow = world.resource::<Flow>();
        flow.group
            .acting()
            .iter()
            .map(|s| flow.name(s.actor).to_string())
            .collect()
    };
    fray_core::log::mark_time(world, |_| format!("initiative {init}"));
    if names.len() > 1 {
        log(world, || {
            Event::new(
                EventKind::Simultaneous,
                "004 §Step 2",
                format!(
                    "{} act at the same instant: their hits land together.",
                    names.join(" and ")
                ),
            )
        });
    }
    true
}

/// The name of `e`, as the log gives it.
fn name(world: &World, e: Entity) -> SmolStr {
    SmolStr::new(world.resource::<Flow>().name(e))
}

/// Log an event; the sentence is only built when the log keeps entries.
/// Log an event (its text built only when the log keeps entries).
use fray_core::log::record as log;

/// 004 §Wound Points: the state of `e` (dead when it has none).
fn health(world: &World, e: Entity) -> Health {
    world.get::<Health>(e).copied().unwrap_or(Health::Dead)
}

/// Where `e` stands (far off the grid when it has no cell).
fn cell(world: &World, e: Entity) -> Cell {
    world
        .get::<Cell>(e)
        .copied()
        .unwrap_or(Cell::new(-1000, -1000))
}

/// The creature resolving its action, as every action reads it.
struct Actor {
    e: Entity,
    me: SmolStr,
    health: Health,
    /// How far it may move in the whole round, as its action and state
    /// allow (004 §Speed; [`move_budget`]).
    speed: u32,
    /// How far it may still move this action: what its moves earlier this
    /// round left of `speed` (004 §Speed).
    budget: u32,
    data: Arc<DeclaredData>,
}

/// 004 §Step 2: resolve one declared action, after what acting costs a
/// fallen creature (004 §Wound Points).
fn act(world: &mut World, slot: &Slot, deferred: Option<&mut Vec<Hit>>) {
    let e = slot.actor;
    let me = name(world, e);
    let h = health(world, e);
    if !can_act(world, slot, &me, h) {
        return;
    }
    let stabilised = world.get::<Stabilised>(e).is_some();
    // Crawling (moving without acting) and waiting cost a fallen creature
    // nothing; any other action is strenuous (004 §Wound Points).
    let strenuous = !matches!(
        slot.action,
        Action::Move { .. } | Action::Wait | Action::Flee
    );
    if slot.late {
        log(world, || {
            Event::new(
                EventKind::LateAction,
                "004 §Step 2",
                format!("{me} acts on its late count."),
            )
            .actor(&me)
        });
    }
    let down = matches!(h, Health::Incapacitated | Health::Dying) && strenuous;
    // One down with nothing in its reach to act on lies still: no action
    // taken, none counted (ruling felled_action).
    if down && super::felled::beyond_its_reach(world, e, &slot.action) {
        return;
    }
    let prior = world.get::<RoundState>(e).map_or(0, |r| r.actions_taken);
    if let Some(mut rs) = world.get_mut::<RoundState>(e) {
        rs.actions_taken += 1;
        // Moving is not an action (004 §Step 3: "cannot both move and take
        // an action"): a Broken Rib spares it (ruling injury_effects).
        rs.acted |= !matches!(
            slot.action,
            Action::Wait | Action::Move { .. } | Action::Flee
        );
    }
    if down && strain_kills(world, e, &me, stabilised, prior) {
        return;
    }
    // The strain may have left it Dying, and a Dying creature "cannot both
    // move and take an action" (004 §Wound Points).
    let h = health(world, e);
    let can_move = !(h == Health::Dying && !stabilised && strenuous);
    if !can_move && matches!(slot.action, Action::FullDefense { toward: Some(_) }) {
        log(world, || {
            Event::new(
                EventKind::Move,
                "004 §Wound Points",
                format!("{me} is Dying and cannot both move and take an action: it takes full defense where it stands."),
            )
            .actor(&me)
        });
    }
    let speed = if can_move {
        move_budget(world, e, &slot.action)
    } else {
        0
    };
    let budget = speed_left(world, e, speed);
    let data = world.resource::<Data>().0.clone();
    let a = Actor {
        e,
        me,
        health: h,
        speed,
        budget,
        data,
    };
    match &slot.action {
        Action::Attack {
            target,
            weapon,
            defensive,
        } => attack(world, &a, *target, weapon, *defensive, deferred),
        Action::Throw { weapon, target } => throw(world, &a, weapon, *target, deferred),
        Action::Cast { spell, target } => cast(world, &a, spell, *target, deferred),
        Action::Consume { item } => consume(world, &a, item),
        Action::Stabilise { target } => stabilise(world, &a, *target),
        Action::Intimidate { target } => intimidate(world, &a, *target),
        Action::Move { toward } => move_toward(world, &a, *toward, false),
        Action::FullDefense { toward } => move_toward(world, &a, *toward, true),
        Action::Wait => wait(world, &a),
        Action::Flee => flee(world, e, budget),
    }
}

/// 004 §Step 2: whether the creature can still act — not dead, fled or
/// paralysed, and if routed only fleeing (ruling `morale_failure`) — logging
/// why not.
fn can_act(world: &mut World, slot: &Slot, me: &str, h: Health) -> bool {
    let e = slot.actor;
    let hurts = world.get::<Hurts>(e).cloned().unwrap_or_default();
    if h == Health::Dead || world.get::<Fled>(e).is_some() || hurts.paralysed {
        let (why, rule) = if h == Health::Dead {
            ("is dead", "004 §Step 2")
        } else if hurts.paralysed {
            (
                "is paralysed",
                "004 §Combat Injuries · ruling injury_effects",
            )
        } else {
            ("has left the battlefield", "004 §Step 2")
        };
        log(world, || {
            Event::new(
                EventKind::NoAction,
                rule,
                format!("{me} {why} and does not act."),
            )
            .actor(me)
        });
        return false;
    }
    // An injury taken since declaring may bar the action (004 §Combat
    // Injuries; ruling injury_effects).
    if let Some(b) = bars(&hurts, &slot.action) {
        barred(world, e, me, b);
        return false;
    }
    if world.get::<Routed>(e).is_some() && slot.action != Action::Flee {
        log(world, || {
            Event::new(
                EventKind::NoAction,
                "ruling morale_failure",
                format!("{me} has broken and only flees."),
            )
            .actor(me)
        });
        return false;
    }
    true
}

/// 004 §Wound Points: the Strength score whose negative in Wound Points
/// kills `e`, less what injuries have taken from it (at least 1).
pub(crate) fn strength_now(world: &World, e: Entity) -> i32 {
    let strength = world.get::<Stats>(e).map_or(1, |s| s.strength)
        - world.get::<Hurts>(e).map_or(0, |h| h.strength_damage);
    strength.max(1)
}

/// 004 §Wound Points: a strenuous action costs an Incapacitated or Dying
/// creature 1 Wound Point (a Stabilised one only beyond its first action in
/// the round), paid as the action begins (ruling `strain_first`); true when
/// that kills it.
fn strain_kills(world: &mut World, e: Entity, me: &str, stabilised: bool, prior: u32) -> bool {
    let pays = if stabilised { prior >= 1 } else { true };
    if !pays {
        return false;
    }
    let why = if stabilised {
        "a stabilised creature's action beyond the first in a round"
    } else {
        "acting while Incapacitated or Dying"
    };
    log(world, || {
        Event::new(
            EventKind::Strain,
            "004 §Wound Points · ruling strain_first",
            format!("{me} strains itself ({why}) and takes 1 Wound Point."),
        )
        .actor(me)
    });
    mark_injury(world, e, Harm::Strain, 1);
    lose_wound_points(world, e, 1, "004 §Wound Points");
    health(world, e) == Health::Dead
}

/// 004 §Wound Points: "each such instance of damage should be marked as an
/// injury including its damage type and the amount of damage taken in that
/// injury" — the Wound Points a strain, the bleed or a crushed windpipe
/// takes too, with no damage type (ruling `untyped_injuries`).
pub(crate) fn mark_injury(world: &mut World, e: Entity, cause: Harm, amount: i32) {
    if let Some(mut inj) = world.get_mut::<Injuries>(e) {
        inj.0.push(Injury {
            cause,
            amount,
            combat_injury: None,
        });
    }
}

/// 004 §Speed: move the actor toward `target` until within `range` cells,
/// as far as what is left of its Speed this round goes.
fn approach_target(world: &mut World, a: &Actor, target: Entity, range: u32, provokes: bool) {
    let short = approach(world, a.e, cell(world, target), range, a.budget, provokes);
    speed_used_up(world, a, short);
}

/// 004 §Speed: what is left of the round's `speed` for `e` once the cells it
/// has already moved this round are taken off.
pub(crate) fn speed_left(world: &World, e: Entity, speed: u32) -> u32 {
    let moved = world.get::<RoundState>(e).map_or(0, |r| r.moved);
    speed.saturating_sub(moved)
}

/// 004 §Speed: "can only move up to a total distance equal to its speed in a
/// single round": log that a move stopped `short` because the actor's
/// earlier moves this round had used up its Speed.
fn speed_used_up(world: &mut World, a: &Actor, short: bool) {
    if !short || a.budget >= a.speed {
        return;
    }
    let moved = world.get::<RoundState>(a.e).map_or(0, |r| r.moved);
    let (me, speed) = (&a.me, a.speed);
    log(world, || {
        Event::new(
            EventKind::Stop,
            "004 §Speed",
            format!(
                "{me} can move no farther this round: it has moved {moved} of the {speed} cells its Speed allows."
            ),
        )
        .actor(me)
    });
}

/// 004 §Speed: how far `target` is from `e`, when beyond `range` cells.
fn beyond(world: &World, e: Entity, target: Entity, range: u32) -> Option<u32> {
    let dist = world
        .resource::<Grid>()
        .distance(cell(world, e), cell(world, target));
    (dist > range).then_some(dist)
}

/// 004 §Speed: log that `me` ended its move out of reach, so its action fails.
fn out_of_reach(world: &mut World, me: &str, text: impl FnOnce() -> String) {
    log(world, || {
        Event::new(EventKind::OutOfReach, "004 §Speed", text()).actor(me)
    });
}

/// 004 §Step 3: attack with a weapon, first closing to its reach (a
/// Defensive Attack provokes no riposte on the way).
fn attack(
    world: &mut World,
    a: &Actor,
    target: Entity,
    weapon: &str,
    defensive: bool,
    deferred: Option<&mut Vec<Hit>>,
) {
    // A weapon missing from the data does nothing.
    let Some(w) = a.data.weapons.get(weapon).cloned() else {
        return;
    };
    if !holds(world, a.e, weapon) {
        gone(world, &a.me, weapon);
        return;
    }
    let Some(target) = living_target(world, a.e, target, TurnOn::NearestEnemy) else {
        return;
    };
    let reach = if w.reach > 0 { w.reach } else { w.range };
    approach_target(world, a, target, reach, !defensive);
    // A riposte on the way may have killed it or broken its arm.
    if dropped_on_the_way(world, a) || barred(world, a.e, &a.me, Barred::Arm) {
        return;
    }
    if let Some(dist) = beyond(world, a.e, target, reach) {
        let (me, t) = (&a.me, name(world, target));
        out_of_reach(world, me, || {
            format!("{me} cannot reach {t} this round ({dist} cells away, reach {reach}).")
        });
        return;
    }
    let how = if w.reach == 0 {
        Delivery::Shot
    } else {
        Delivery::Melee
    };
    if let Some(hit) = strike(world, a.e, target, weapon, how, "attacks") {
        land(world, hit, deferred);
    }
    full_defense_riposte(world, target, a.e);
}

/// 004 §Step 3: throw an item at a target within its range; the thrower no
/// longer carries it.
fn throw(
    world: &mut World,
    a: &Actor,
    weapon: &str,
    target: Entity,
    deferred: Option<&mut Vec<Hit>>,
) {
    // A weapon missing from the data does nothing.
    let Some(w) = a.data.weapons.get(weapon).cloned() else {
        return;
    };
    let me = &a.me;
    if !holds(world, a.e, weapon) {
        gone(world, me, weapon);
        return;
    }
    let Some(target) = living_target(world, a.e, target, TurnOn::NearestEnemy) else {
        return;
    };
    approach_target(world, a, target, w.range, true);
    if dropped_on_the_way(world, a) || barred(world, a.e, &a.me, Barred::Arm) {
        return;
    }
    if let Some(dist) = beyond(world, a.e, target, w.range) {
        out_of_reach(world, me, || {
            format!(
                "{me} is out of throwing range ({dist} cells, range {}).",
                w.range
            )
        });
        return;
    }
    if let Some(mut kit) = world.get_mut::<Kit>(a.e)
        && let Some(i) = kit.weapons.iter().position(|x| x == weapon)
    {
        kit.weapons.remove(i);
    }
    if let Some(hit) = strike(world, a.e, target, weapon, Delivery::Thrown, "throws at") {
        land(world, hit, deferred);
    }
    full_defense_riposte(world, target, a.e);
}

/// A spell that took shape: its name, its target and the casting total.
struct Casting<'a> {
    spell: &'a str,
    target: Entity,
    total: i32,
}

/// 004 §Step 3 · ruling `spell_casting`: cast a spell at a target within its
/// range; if the casting check succeeds, the spell takes effect.
fn cast(
    world: &mut World,
    a: &Actor,
    spell: &str,
    target: Entity,
    deferred: Option<&mut Vec<Hit>>,
) {
    // A spell missing from the data does nothing.
    let Some(s) = a.data.spells.get(spell).cloned() else {
        return;
    };
    let Some(target) = living_target(world, a.e, target, TurnOn::casting(Some(&s))) else {
        return;
    };
    approach_target(world, a, target, s.range, true);
    if dropped_on_the_way(world, a) || barred(world, a.e, &a.me, Barred::Voice) {
        return;
    }
    if beyond(world, a.e, target, s.range).is_some() {
        let me = &a.me;
        out_of_reach(world, me, || format!("{me} is out of range for {spell}."));
        return;
    }
    let Some(total) = casting_check(world, a, (spell, &s), target) else {
        return;
    };
    let c = Casting {
        spell,
        target,
        total,
    };
    match s.effect {
        SpellEffect::Damage(dice, dtype) => {
            spell_attack(world, a, &c, dice, dtype, deferred);
            // Ruling spell_attack: the casting is the attack, so a target in
            // full defense ripostes at a caster within its reach.
            full_defense_riposte(world, target, a.e);
        }
        SpellEffect::RestoreStress(dice) => spell_heal(world, a, &c, dice),
    }
}

/// Ruling `spell_casting`: the check, a die plus casting against the
/// spell's TN; the total when the spell takes shape.
fn casting_check(
    world: &mut World,
    a: &Actor,
    (spell, s): (&str, &Spell),
    target: Entity,
) -> Option<i32> {
    let me = &a.me;
    let t = name(world, target);
    let casting = world.get::<Stats>(a.e).map_or(0, |s| s.casting);
    let roll = world
        .resource_mut::<Dice>()
        .roll_for(check_die(&a.data), || format!("{me}'s casting of {spell}"));
    let total = roll.total + casting;
    let cast = total >= s.tn;
    log(world, || {
        Event::new(
            EventKind::Cast,
            "004 §Step 3 · ruling spell_casting",
            format!(
                "{me} casts {spell} ({} + {casting} casting = {total} against TN {}): {}.",
                roll.total,
                s.tn,
                if cast {
                    "the spell takes shape"
                } else {
                    "it fizzles"
                }
            ),
        )
        .actor(me)
        .target(&t)
        .check(Check {
            against: "TN".into(),
            target: s.tn,
            modifiers: vec![Modifier::new("casting", casting)],
            total,
            success: cast,
        })
        .roll(roll)
    });
    cast.then_some(total)
}

/// Ruling `spell_attack`: a damaging spell hits when the casting total meets
/// the target's Defense; its damage, less Armour, lands as a hit.
fn spell_attack(
    world: &mut World,
    a: &Actor,
    c: &Casting,
    dice: DiceExpr,
    dtype: DamageType,
    deferred: Option<&mut Vec<Hit>>,
) {
    let (me, spell, target, total) = (&a.me, c.spell, c.target, c.total);
    let t = name(world, target);
    let defense = defense(world, target);
    if total < defense {
        log(world, || {
            Event::new(
                EventKind::Miss,
                "ruling spell_attack",
                format!("{spell} misses {t} ({total} against Defense {defense})."),
            )
            .actor(me)
        });
        return;
    }
    let roll = world
        .resource_mut::<Dice>()
        .roll_for(dice, || format!("{spell}'s damage to {t}"));
    let armour = world.get::<Stats>(target).map_or(0, |s| s.armour);
    let amount = (roll.total - armour).max(0);
    let turned = roll.total > 0 && armour > 0;
    log(world, || {
        Event::new(EventKind::Hit, "ruling spell_attack", format!("{spell} strikes {t} ({total} against Defense {defense}) for {} {} damage, {armour} turned by armour: {amount}.", roll.total, dtype.word())).actor(me).roll(roll)
    });
    land(
        world,
        Hit {
            target,
            amount,
            critical: false,
            damage_type: dtype,
            turned,
        },
        deferred,
    );
}

/// Ruling `spell_casting`: a healing spell restores Stress.
fn spell_heal(world: &mut World, a: &Actor, c: &Casting, dice: DiceExpr) {
    let (me, spell, target) = (&a.me, c.spell, c.target);
    let t = name(world, target);
    let roll = world
        .resource_mut::<Dice>()
        .roll_for(dice, || format!("{spell} on {t}"));
    let gained = restore_stress(world, target, roll.total);
    log(world, || {
        Event::new(
            EventKind::Heal,
            "ruling spell_casting",
            format!("{t} recovers {gained} Stress."),
        )
        .actor(me)
        .target(&t)
        .roll(roll)
    });
}

/// 004 §Step 3 · ruling `healing_items`: use a consumable item on oneself.
fn consume(world: &mut World, a: &Actor, item: &str) {
    // An item missing from the data does nothing.
    let Some(it) = a.data.items.get(item).cloned() else {
        return;
    };
    let me = &a.me;
    let Some(i) = world
        .get::<Kit>(a.e)
        .and_then(|kit| kit.items.iter().position(|x| x == item))
    else {
        gone(world, me, item);
        return;
    };
    if let Some(mut kit) = world.get_mut::<Kit>(a.e) {
        kit.items.remove(i);
    }
    let roll = world
        .resource_mut::<Dice>()
        .roll_for(it.heals, || format!("{me}'s {item}"));
    let was = health(world, a.e);
    let (wp, stress) = heal(world, a.e, roll.total);
    log(world, || {
        Event::new(
            EventKind::Heal,
            "004 §Step 3 · ruling healing_items",
            format!(
                "{me} uses a {}: {wp} Wound Points and {stress} Stress restored.",
                item.replace('_', " ")
            ),
        )
        .actor(me)
        .roll(roll)
    });
    healed_from(world, a.e, was);
}

/// What an injury may take away (ruling `injury_effects`).
#[derive(Clone, Copy)]
pub(crate) enum Barred {
    /// The main arm, which holds the weapons.
    Arm,
    /// Speech, which casting needs.
    Voice,
}

/// What of `hurts` bars `action`, if anything (004 §Combat Injuries;
/// ruling `injury_effects`).
pub(crate) fn bars(hurts: &Hurts, action: &Action) -> Option<Barred> {
    match action {
        Action::Attack { .. } | Action::Throw { .. } if hurts.main_arm_useless => Some(Barred::Arm),
        Action::Cast { .. } if hurts.mute => Some(Barred::Voice),
        _ => None,
    }
}

/// Whether an injury bars `e` from its action now, as it is about to take
/// it: said in the log when it does (004 §Combat Injuries).
fn barred(world: &mut World, e: Entity, me: &str, what: Barred) -> bool {
    let hurts = world.get::<Hurts>(e).cloned().unwrap_or_default();
    let (rule, why) = match what {
        Barred::Arm if hurts.main_arm_useless => (
            "004 §Combat Injuries",
            "its weapon arm is broken: it can't attack with that arm",
        ),
        Barred::Voice if hurts.mute => (
            "ruling injury_effects",
            "it cannot speak, so it cannot cast",
        ),
        _ => return false,
    };
    log(world, || {
        Event::new(
            EventKind::NoAction,
            rule,
            format!("{me} does not act as declared: {why}."),
        )
        .actor(me)
    });
    true
}

/// 004 §Wound Points: a creature that set out fighting and was dropped by
/// a riposte on its way (or killed) does not go on with its action.
fn dropped_on_the_way(world: &World, a: &Actor) -> bool {
    health(world, a.e) == Health::Dead
        || world.get::<Fighting>(a.e).is_none() && a.health == Health::Fine
}

/// 004 §Wound Points: the TN of the Heal check that stabilises `target`,
/// 10 + the highest damage of its wounds, and that damage.
pub(crate) fn stabilise_tn(world: &World, data: &DeclaredData, target: Entity) -> (i32, i32) {
    let worst = world
        .get::<Injuries>(target)
        .map_or(0, |i| i.0.iter().map(|j| j.amount).max().unwrap_or(0));
    (data.numbers.stabilise_base_tn + worst, worst)
}

/// 004 §Wound Points: stabilise a Dying or Incapacitated creature with a
/// Heal check at TN 10 + the highest damage of its wounds.
fn stabilise(world: &mut World, a: &Actor, target: Entity) {
    let me = &a.me;
    let t = name(world, target);
    // One dead, risen or stabilised since is not walked to.
    if !needs_stabilising(world, target) {
        let now = if health(world, target) == Health::Dead {
            "is dead"
        } else {
            "no longer needs stabilising"
        };
        log(world, || {
            Event::new(
                EventKind::NoTarget,
                "004 §Wound Points",
                format!("{t} {now}: {me} stays where it is."),
            )
            .actor(me)
        });
        return;
    }
    approach_target(world, a, target, 1, true);
    if dropped_on_the_way(world, a) {
        return;
    }
    if beyond(world, a.e, target, 1).is_some() {
        out_of_reach(world, me, || {
            format!("{me} cannot reach {t} to tend the wounds.")
        });
        return;
    }
    let (tn, worst) = stabilise_tn(world, &a.data, target);
    let heal = world.get::<Stats>(a.e).map_or(0, |s| s.heal);
    let roll = world
        .resource_mut::<Dice>()
        .roll_for(check_die(&a.data), || format!("{me}'s Heal check on {t}"));
    let total = roll.total + heal;
    let ok = total >= tn;
    log(world, || {
        Event::new(EventKind::Stabilise, "004 §Wound Points", format!(
            "{me} tends {t}: Heal {} + {heal} = {total} against TN 10 + {worst} (worst wound) = {tn}: {}.",
            roll.total,
            if ok { format!("{t} is stabilised") } else { "not enough".to_string() }
        ))
        .actor(me)
        .target(&t)
        .check(Check { against: "TN".into(), target: tn, modifiers: vec![Modifier::new("Heal", heal)], total, success: ok })
        .roll(roll)
    });
    if ok {
        world.entity_mut(target).insert(Stabilised);
    }
}

/// 004 §Step 4 · ruling `intimidate_action`: an Intimidation check the
/// target's morale check must beat at the end of the round, made within the
/// ruling's range (`intimidate_range`, 6 cells) once the intimidator has
/// moved; farther off, it fails.
fn intimidate(world: &mut World, a: &Actor, target: Entity) {
    let Some(target) = living_target(world, a.e, target, TurnOn::NearestMonster) else {
        return;
    };
    let me = &a.me;
    if world.get::<SawThrough>(target).is_some() {
        // The declared monster is gone and the one in its place held
        // against an Intimidation already.
        let t = name(world, target);
        log(world, || {
            Event::new(
                EventKind::NoAction,
                "ruling intimidate_action",
                format!("{t} held against an Intimidation already: {me} cannot intimidate it."),
            )
            .actor(me)
        });
        return;
    }
    if !super::end_round::may_break(world, target) {
        // It broke (or fled, or cannot act) since the declaration.
        let t = name(world, target);
        log(world, || {
            Event::new(
                EventKind::NoAction,
                "ruling intimidate_action",
                format!("{t} checks morale no more: {me} has nothing to intimidate."),
            )
            .actor(me)
        });
        return;
    }
    let range = a.data.ruling_numbers.intimidate_range;
    approach_target(world, a, target, range, true);
    if dropped_on_the_way(world, a) {
        return;
    }
    let t = name(world, target);
    if let Some(dist) = beyond(world, a.e, target, range) {
        log(world, || {
            Event::new(
                EventKind::OutOfReach,
                "ruling intimidate_action",
                format!(
                    "{me} is too far from {t} to intimidate it ({dist} cells away, range {range})."
                ),
            )
            .actor(me)
        });
        return;
    }
    let intim = world.get::<Stats>(a.e).map_or(0, |s| s.intimidation);
    let roll = world
        .resource_mut::<Dice>()
        .roll_for(check_die(&a.data), || format!("{me}'s Intimidation of {t}"));
    let total = roll.total + intim;
    log(world, || {
        Event::new(EventKind::Intimidate, "004 §Step 4 · ruling intimidate_action", format!("{me} tries to intimidate {t}: {} + {intim} = {total}; {t} must check morale against it at the end of the round.", roll.total)).actor(me).target(&t).roll(roll)
    });
    if let Some(mut rs) = world.get_mut::<RoundState>(target) {
        rs.intimidated = Some(rs.intimidated.map_or(total, |i| i.max(total)));
    }
}

/// 004 §Step 3: move toward a cell — a Defensive Attack without attacking,
/// or in Full-Defense (which alone provokes ripostes on the way) — or, going
/// nowhere, hold the ground or stand in full defense.
fn move_toward(world: &mut World, a: &Actor, toward: Option<Cell>, full_defense: bool) {
    let me = &a.me;
    // Toward where it already is: it goes nowhere, and the log says so.
    let toward = toward.filter(|&c| {
        let within = u32::from(occupied(world, a.e).contains(&c));
        world.resource::<Grid>().distance(cell(world, a.e), c) > within
    });
    if let Some(c) = toward {
        // Toward someone's cell means up to them.
        let taken = occupied(world, a.e).contains(&c);
        let short = approach(world, a.e, c, u32::from(taken), a.budget, full_defense);
        speed_used_up(world, a, short);
    } else if full_defense {
        log(world, || {
            Event::new(
                EventKind::Defend,
                "004 §Step 3",
                format!("{me} stands in full defense (+4 Defense)."),
            )
            .actor(me)
        });
    } else {
        log(world, || {
            Event::new(
                EventKind::Hold,
                "004 §Step 3",
                format!("{me} holds its ground."),
            )
            .actor(me)
        });
    }
}

/// Ruling `wait_action`: do nothing.
fn wait(world: &mut World, a: &Actor) {
    let me = &a.me;
    log(world, || {
        Event::new(
            EventKind::Wait,
            "ruling wait_action",
            format!("{me} waits."),
        )
        .actor(me)
    });
}

/// Whom an action aimed at a creature dead or gone turns on instead
/// (ruling `retarget`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum TurnOn {
    /// The nearest enemy still fighting: an attack, a throw, a harmful spell.
    NearestEnemy,
    /// The nearest enemy still fighting that may be intimidated: a monster
    /// that may still break (004 §Step 4; ruling `intimidate_action`).
    NearestMonster,
    /// Nobody: a help for an ally goes with that ally.
    Nobody,
}

impl TurnOn {
    /// How `action` turns when its object is gone, with that object.
    pub(super) fn of(data: &DeclaredData, action: &Action) -> Option<(Entity, Self)> {
        match action {
            Action::Attack { target, .. } | Action::Throw { target, .. } => {
                Some((*target, Self::NearestEnemy))
            }
            Action::Cast { spell, target } => {
                Some((*target, Self::casting(data.spells.get(spell))))
            }
            Action::Intimidate { target } => Some((*target, Self::NearestMonster)),
            Action::Stabilise { target } => Some((*target, Self::Nobody)),
            _ => None,
        }
    }

    /// How a spell turns: a harmful one on the nearest enemy, a help with
    /// its ally.
    fn casting(spell: Option<&Spell>) -> Self {
        if spell.is_some_and(|s| matches!(s.effect, SpellEffect::Damage(..))) {
            Self::NearestEnemy
        } else {
            Self::Nobody
        }
    }

    /// Whom `e` turns on, if anyone.
    fn whom(self, world: &World, e: Entity) -> Option<Entity> {
        match self {
            Self::NearestEnemy => nearest_enemy(world, e, |_| true),
            Self::NearestMonster => nearest_enemy(world, e, |x| intimidated(world, x).is_ok()),
            Self::Nobody => None,
        }
    }
}

/// Whether `x` may be intimidated now, or why not (004 §Step 4; ruling
/// `intimidate_action`): a monster that may still break and has not held
/// against an Intimidation already.
pub(super) fn intimidated(world: &World, x: Entity) -> Result<(), &'static str> {
    if world.get::<super::Monster>(x).is_none() {
        Err("is not a monster: only monsters check morale")
    } else if world.get::<SawThrough>(x).is_some() {
        Err("held against an Intimidation already")
    } else if !super::end_round::may_break(world, x) {
        Err("checks morale no more")
    } else {
        Ok(())
    }
}

/// Whether `x` is down and not yet stabilised (004 §Wound Points).
pub(super) fn needs_stabilising(world: &World, x: Entity) -> bool {
    matches!(health(world, x), Health::Incapacitated | Health::Dying)
        && world.get::<Stabilised>(x).is_none()
}

/// Whether `target` is still there to be aimed at: neither dead nor fled.
fn still_there(world: &World, target: Entity) -> bool {
    health(world, target) != Health::Dead && world.get::<Fled>(target).is_none()
}

/// The creature `e`'s action declared against `target` aims at now: that
/// one, or, dead or gone, whom it turns on (ruling `retarget`), if anyone.
pub(super) fn aimed_at(world: &World, e: Entity, target: Entity, turn: TurnOn) -> Option<Entity> {
    if still_there(world, target) {
        Some(target)
    } else {
        turn.whom(world, e)
    }
}

/// [`aimed_at`], said in the log when the target is gone.
fn living_target(world: &mut World, e: Entity, target: Entity, turn: TurnOn) -> Option<Entity> {
    if still_there(world, target) {
        return Some(target);
    }
    let (me, old) = (name(world, e), name(world, target));
    let new = turn.whom(world, e);
    match new {
        Some(t) => {
            let new = name(world, t);
            log(world, || {
                Event::new(
                    EventKind::Retarget,
                    "ruling retarget",
                    format!("{old} is gone; {me} turns on {new} instead."),
                )
                .actor(&me)
            });
        }
        None => log(world, || {
            let text = if turn == TurnOn::NearestMonster {
                format!("{old} is gone; no monster is left for {me} to intimidate.")
            } else {
                format!("{old} is gone; {me}'s action has no one to aim at.")
            };
            Event::new(EventKind::NoTarget, "ruling retarget", text).actor(&me)
        }),
    }
    new
}

/// 004 §Speed, 004 §Step 3 and 004 §Wound Points: how far a combatant may
/// move in the round under this action and its state (what its moves earlier
/// in the round left of it: [`speed_left`]).
pub(crate) fn move_budget(world: &World, e: Entity, action: &Action) -> u32 {
    let hurts = world.get::<Hurts>(e).cloned().unwrap_or_default();
    let h = health(world, e);
    let stabilised = world.get::<Stabilised>(e).is_some();
    let mut speed = world.get::<Stats>(e).map_or(0, |s| s.speed);
    // "can only move up to half their speed that round": a late arrival's
    // full defense too, whatever its action now.
    let full_defense = world.get::<RoundState>(e).is_some_and(|r| r.full_defense);
    let down = matches!(h, Health::Incapacitated | Health::Dying);
    // Ruling half_speed: full defense, a Broken Shin ("move at half
    // speed") and being stabilised ("half its movement speed") each cap its
    // move at half its Speed; together they cap it at half all the same.
    if matches!(action, Action::FullDefense { .. })
        || full_defense
        || hurts.half_speed
        || (down && stabilised)
    {
        speed /= 2;
    }
    if down && !stabilised {
        speed = 1;
    }
    if hurts.prone {
        speed = speed.min(1);
    }
    speed
}

/// The Defense of `e` now (004 §Defense, Full-Defense +4 of 004 §Step 3).
pub(crate) fn defense(world: &World, e: Entity) -> i32 {
    defense_of(
        &world.resource::<Data>().0,
        world.get::<Stats>(e),
        world.get::<Hurts>(e),
        world.get::<RoundState>(e),
    )
}

/// [`defense`] from what has been read of the combatant already.
pub(crate) fn defense_of(
    data: &super::DeclaredData,
    stats: Option<&Stats>,
    hurts: Option<&Hurts>,
    round: Option<&RoundState>,
) -> i32 {
    let full = round.is_some_and(|r| r.full_defense);
    10 + stats.map_or(0, |s| s.agility_mod + s.defense_bonus)
        - hurts.map_or(0, |h| h.agility_damage) / 2
        + if full {
            data.numbers.full_defense_bonus
        } else {
            0
        }
}

/// The enemy of `e` still fighting nearest it, of those `such` (ruling
/// `retarget`).
fn nearest_enemy(world: &World, e: Entity, such: impl Fn(Entity) -> bool) -> Option<Entity> {
    let side = world.get::<Side>(e).copied()?;
    let here = cell(world, e);
    let grid = world.resource::<Grid>();
    // In one pass over everyone: of those as near, the first listed.
    ListedQuery::look(world, |everyone| {
        everyone
            .iter_manual(world)
            .filter(|&(x, _, s, _, fighting)| fighting && *s != side && such(x))
            .min_by_key(|&(_, k, _, &c, _)| (grid.distance(here, c), k.listing))
            .map(|(x, ..)| x)
    })
    .flatten()
}

/// Cells taken by combatants other than `e` (the fallen still lie there;
/// the dead are stepped over and the fled are gone: they are not
/// `Blocking`).
fn occupied(world: &World, e: Entity) -> fray_core::grid::CellSet {
    fray_core::model::taken_cells(world, e)
}

/// Move `e` toward `goal` until within `stop_within` cells, spending at most
/// `budget`, each step counted against its Speed for the round (004 §Speed);
/// entering an enemy's threat range provokes its riposte unless `provokes`
/// is false (Defensive Attack, 004 §Step 3). True when it stopped short of
/// the goal for want of movement.
fn approach(
    world: &mut World,
    e: Entity,
    goal: Cell,
    stop_within: u32,
    budget: u32,
    provokes: bool,
) -> bool {
    let from = cell(world, e);
    if world.resource::<Grid>().distance(from, goal) <= stop_within {
        return false;
    }
    if budget == 0 {
        return true;
    }
    // Nobody else moves while `e` walks: the cells taken now are taken
    // all the way.
    let taken = occupied(world, e);
    let path = world
        .resource::<Grid>()
        .path_toward(from, goal, stop_within, |c| taken.contains(&c));
    let me = name(world, e);
    let Some((steps, _)) = path else {
        log(world, || {
            Event::new(
                EventKind::Blocked,
                "004 §Speed",
                format!("{me} finds no way through toward {goal}."),
            )
            .actor(&me)
        });
        return false;
    };
    let provokes = if provokes {
        Provokes::Entering
    } else {
        Provokes::Never
    };
    let mut walk = Walk::new(e, steps, budget, provokes);
    let (mut start, mut moved) = (from, 0);
    // Only a riposte changes who can still make one.
    let mut able = able_to_riposte(world, e, from, budget);
    let short = loop {
        let step = match walk.next(world.resource::<Grid>(), cell(world, e), &taken, &able) {
            Ok(step) => step,
            Err(halt) => break halt == Halt::Budget,
        };
        walk.take(world, &step, &able);
        count_move(world, e, step.cost);
        moved += 1;
        if step.provoked.is_empty() {
            continue;
        }
        let at = step.to;
        // The move so far, then the ripostes it provokes, then the rest.
        let names: Vec<SmolStr> = step.provoked.iter().map(|f| name(world, *f)).collect();
        log(world, || {
            Event::new(
                EventKind::Move,
                "004 §Speed",
                format!(
                    "{me} moves {} from {start} to {at}, into the threat range of {}.",
                    cells(moved),
                    names.join(" and ")
                ),
            )
            .actor(&me)
        });
        start = at;
        moved = 0;
        if stopped_by_ripostes(world, e, &step.provoked, at) {
            return false;
        }
        // An injury from a riposte (prone, a Broken Shin) caps what is left
        // of the move at once (ruling half_speed).
        let left = speed_left(world, e, move_budget(world, e, &Action::Wait));
        walk.budget = walk.budget.min(walk.spent + left);
        able = able_to_riposte(world, e, from, budget);
    };
    if moved > 0 {
        let at = cell(world, e);
        log(world, || {
            Event::new(
                EventKind::Move,
                "004 §Speed",
                format!("{me} moves {} from {start} to {at}.", cells(moved)),
            )
            .actor(&me)
        });
    }
    short
}

/// Ruling `riposte`: the ripostes of `foes` at `e` entering their threat
/// ranges at `at`, one after another; true when one leaves it down or
/// paralysed, which stops its move there.
fn stopped_by_ripostes(world: &mut World, e: Entity, foes: &[Entity], at: Cell) -> bool {
    let paralysed = |w: &World| w.get::<Hurts>(e).is_some_and(|h| h.paralysed);
    for &foe in foes {
        if !riposte(world, foe, e, "as it enters its threat range")
            || (health(world, e) == Health::Fine && !paralysed(world))
        {
            continue;
        }
        let rule = if health(world, e) == Health::Fine {
            "ruling injury_effects"
        } else {
            "004 §Wound Points"
        };
        let me = name(world, e);
        log(world, || {
            Event::new(
                EventKind::Stopped,
                rule,
                format!("{me} is stopped at {at}."),
            )
            .actor(&me)
        });
        return true;
    }
    false
}

/// 004 §Speed: count a step's cost against what `e` may move this round.
fn count_move(world: &mut World, e: Entity, cost: u32) {
    if let Some(mut rs) = world.get_mut::<RoundState>(e) {
        rs.moved += cost;
    }
}

/// Enemies of `e` whose threat range (melee reach) may provoke a riposte
/// now (ruling `riposte`), as it walks at most `budget` from `from`: those
/// too far for any weapon to reach a cell of the walk are left out.
fn able_to_riposte(world: &World, e: Entity, from: Cell, budget: u32) -> Vec<Threatener> {
    let side = world.get::<Side>(e).copied();
    let data = &world.resource::<Data>().0;
    let longest = data.longest_reach();
    let grid = world.resource::<Grid>();
    // Those near enough, in listing order.
    let within = budget.saturating_add(longest);
    let mut near: Vec<(u32, Entity, Cell)> = Vec::new();
    ListedQuery::look(world, |everyone| {
        let consider = |(x, k, s, &c, _): QueryItem<Listed>| {
            if Some(*s) != side && grid.distance(from, c) <= within {
                near.push((k.listing, x, c));
            }
        };
        listed_near(world, everyone, from, within, consider);
    });
    near.sort_unstable_by_key(|n| n.0);
    RiposteQuery::look(world, |looks| {
        near.into_iter()
            .filter_map(|(_, x, c)| {
                let (h, rs, routed, surprised, fled, kit, hurts) =
                    looks.get_manual(world, x).ok()?;
                // Ruling injury_effects: paralysed, or its main arm useless,
                // it threatens nobody.
                let maimed = hurts.is_some_and(|h| h.main_arm_useless || h.paralysed);
                let able = h.copied().unwrap_or(Health::Dead) == Health::Fine
                    && rs.is_some_and(|rs| !rs.reaction_used)
                    && !(routed || surprised || fled || maimed);
                let reach = able.then(|| melee_weapon(data, kit?))??.1;
                Some(Threatener {
                    entity: x,
                    cell: c,
                    reach,
                })
            })
            .collect()
    })
    .unwrap_or_default()
}

/// What [`able_to_riposte`] reads of a combatant: all of it in one lookup.
type Riposting = (
    Option<&'static Health>,
    Option<&'static RoundState>,
    Has<Routed>,
    Has<Surprised>,
    Has<Fled>,
    Option<&'static Kit>,
    Option<&'static Hurts>,
);

/// The query [`able_to_riposte`] keeps with the world.
pub type RiposteQuery = fray_core::model::KeptQuery<Riposting>;

/// The first melee weapon a kit holds, and its reach.
fn melee_weapon(data: &super::DeclaredData, kit: &Kit) -> Option<(String, u32)> {
    kit.weapons.iter().find_map(|w| {
        data.weapons
            .get(w)
            .filter(|d| d.reach > 0)
            .map(|d| (w.clone(), d.reach))
    })
}

/// What `me` was to throw or use is gone, spent by an earlier action
/// (004 §Step 2: a late arrival acts twice in a round).
/// Whether `e` still carries `weapon`: a thrown one is gone (004 §Step 3).
fn holds(world: &World, e: Entity, weapon: &str) -> bool {
    world
        .get::<Kit>(e)
        .is_some_and(|kit| kit.weapons.iter().any(|x| x == weapon))
}

fn gone(world: &mut World, me: &str, what: &str) {
    log(world, || {
        Event::new(
            EventKind::NoAction,
            "004 §Step 3",
            format!("{me} has no {what} left: it was used already."),
        )
        .actor(me)
    });
}

/// A riposte: one melee attack as the creature's Reaction (004 §Step 3,
/// ruling `riposte`). Lands at once. Returns whether it was made.
fn riposte(world: &mut World, by: Entity, against: Entity, why: &str) -> bool {
    let data = world.resource::<Data>().0.clone();
    let Some(kit) = world.get::<Kit>(by).cloned() else {
        return false;
    };
    if world
        .get::<Hurts>(by)
        .is_some_and(|h| h.main_arm_useless || h.paralysed)
    {
        return false;
    }
    let Some((weapon, _)) = melee_weapon(&data, &kit) else {
        return false;
    };
    if let Some(mut rs) = world.get_mut::<RoundState>(by) {
        if rs.reaction_used {
            return false;
        }
        rs.reaction_used = true;
    }
    let (me, them) = (name(world, by), name(world, against));
    log(world, || {
        Event::new(
            EventKind::Riposte,
            "004 §Step 3 · ruling riposte",
            format!("{me} ripostes against {them} {why}."),
        )
        .actor(&me)
        .target(&them)
    });
    if let Some(hit) = strike(world, by, against, &weapon, Delivery::Melee, "ripostes at") {
        apply_hit(world, &hit);
    }
    // A riposte is an attack: one in full defense may riposte back (004
    // §Step 3), its own Reaction then spent too.
    full_defense_riposte(world, against, by);
    true
}

/// 004 §Step 3: one attacked while in full defense may riposte as a Reaction.
fn full_defense_riposte(world: &mut World, defender: Entity, attacker: Entity) {
    let full = world
        .get::<RoundState>(defender)
        .is_some_and(|r| r.full_defense && !r.reaction_used);
    if !full
        || health(world, defender) != Health::Fine
        || world.get::<Surprised>(defender).is_some()
    {
        return;
    }
    let data = world.resource::<Data>().0.clone();
    let Some(kit) = world.get::<Kit>(defender).cloned() else {
        return;
    };
    let Some((_, reach)) = melee_weapon(&data, &kit) else {
        return;
    };
    if world
        .resource::<Grid>()
        .distance(cell(world, defender), cell(world, attacker))
        <= reach
    {
        riposte(world, defender, attacker, "from full defense");
    }
}

/// Roll an attack (ruling `attack_roll`) and, if it hits, its damage: see
/// [`attack_roll`] and [`damage_roll`].
fn strike(
    world: &mut World,
    attacker: Entity,
    target: Entity,
    weapon: &str,
    how: Delivery,
    verb: &str,
) -> Option<Hit> {
    let data = world.resource::<Data>().0.clone();
    let w = data.weapons.get(weapon)?.clone();
    let stats = world.get::<Stats>(attacker)?.clone();
    let hurts = world.get::<Hurts>(attacker).cloned().unwrap_or_default();
    let b = Blow {
        attacker,
        target,
        weapon,
        w: &w,
        how,
        stats: &stats,
        hurts: &hurts,
    };
    let critical = attack_roll(world, &b, &data.ruling_numbers, verb)?;
    Some(damage_roll(world, &b, critical))
}

/// How a blow reaches its target: a shot adds no Strength to its damage,
/// and only a blow in melee gains against the prone (ruling
/// `injury_effects`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Delivery {
    Melee,
    Thrown,
    Shot,
}

/// An attack being rolled: who strikes whom, with what, and the attacker's
/// state as the attack begins.
struct Blow<'a> {
    attacker: Entity,
    target: Entity,
    weapon: &'a str,
    w: &'a Weapon,
    how: Delivery,
    stats: &'a Stats,
    hurts: &'a Hurts,
}

/// Ruling `attack_roll`: d20 + attack bonus against Defense (004 §Defense:
/// equal or exceed hits); a natural 20 is a critical hit and a natural 1
/// misses (ruling `natural_rolls`). Whether the hit is critical, if it hits.
fn attack_roll(world: &mut World, b: &Blow, r: &RulingNumbers, verb: &str) -> Option<bool> {
    let (weapon, target) = (b.weapon, b.target);
    let (me, them) = (name(world, b.attacker), name(world, target));
    let hurts = b.hurts;
    let target_prone = world.get::<Hurts>(target).is_some_and(|h| h.prone);
    let mut mods = vec![Modifier::new("attack", b.stats.attack)];
    if hurts.dexterity_damage >= 2 {
        mods.push(Modifier::new(
            "Dexterity damage",
            -(hurts.dexterity_damage / 2),
        ));
    }
    if hurts.concussed {
        mods.push(Modifier::new("concussed", -r.concussed_attack_penalty));
    }
    if target_prone && b.how == Delivery::Melee {
        mods.push(Modifier::new("target prone", r.prone_attack_bonus));
    }
    let roll = world
        .resource_mut::<Dice>()
        .roll_for(r.attack_die, || format!("{me}'s attack on {them}"));
    let natural = roll.natural();
    let total = roll.total + mods.iter().map(|m| m.value).sum::<i32>();
    let def = defense(world, target);
    // Ruling injury_effects: the target's Agility damage, itemised.
    let lamed = world
        .get::<Hurts>(target)
        .map_or(0, |h| h.agility_damage / 2);
    let lamed_words = if lamed > 0 {
        format!(" (− {lamed} Agility damage)")
    } else {
        String::new()
    };
    // 004 §Defense: "any attack must equal or exceed a creature's Defense
    // score to hit it", a natural 20 too (ruling natural_rolls).
    let hit = natural != r.automatic_miss_on && total >= def;
    let critical = hit && natural >= r.critical_on;
    let full = world
        .get::<RoundState>(target)
        .is_some_and(|rs| rs.full_defense);
    let verdict = if critical {
        "a critical hit"
    } else if hit {
        "a hit"
    } else if natural == r.automatic_miss_on {
        "a natural 1 misses"
    } else {
        "a miss"
    };
    let rule = match (critical || natural == r.automatic_miss_on, full) {
        (true, false) => "004 §Defense · ruling natural_rolls",
        (false, false) => "004 §Defense · ruling attack_roll",
        (true, true) => "004 §Defense · ruling natural_rolls · ruling full_defense_round",
        (false, true) => "004 §Defense · ruling attack_roll · ruling full_defense_round",
    };
    let full = if full { " (full defense +4)" } else { "" };
    // Ruling injury_effects: each injury's part in the roll, said and cited.
    let injuries: String = mods[1..]
        .iter()
        .map(|m| {
            let sign = if m.value < 0 { '−' } else { '+' };
            format!(" {sign} {} ({})", m.value.abs(), m.name)
        })
        .collect();
    let rule = if injuries.is_empty() && lamed == 0 {
        rule.to_string()
    } else {
        format!("{rule} · ruling injury_effects")
    };
    log(world, || {
        Event::new(EventKind::Attack, rule, format!(
            "{me} {verb} {them} with the {weapon}: {natural} + {}{injuries} = {total} against Defense {def}{lamed_words}: {verdict}{full}.",
            b.stats.attack
        ))
        .actor(&me)
        .target(&them)
        .check(Check { against: "Defense".into(), target: def, modifiers: mods, total, success: hit })
        .roll(roll)
    });
    hit.then_some(critical)
}

/// Ruling `damage_bonus`: damage is the weapon's dice plus Strength for
/// melee and thrown weapons, multiplied on a critical (004 §Critical Hits),
/// less Armour (004 §Armour).
fn damage_roll(world: &mut World, b: &Blow, critical: bool) -> Hit {
    let (w, target) = (b.w, b.target);
    let (me, them) = (name(world, b.attacker), name(world, target));
    let bonus = if b.how == Delivery::Shot {
        0
    } else {
        b.stats.strength_mod - b.hurts.strength_damage / 2
    };
    let dice = DiceExpr {
        modifier: w.damage.modifier + bonus,
        ..w.damage
    };
    let roll = world
        .resource_mut::<Dice>()
        .roll_for(dice, || format!("{me}'s damage to {them}"));
    let raw = roll.total.max(0);
    let multiplied = if critical { raw * w.critical } else { raw };
    let armour = world.get::<Stats>(target).map_or(0, |s| s.armour);
    let amount = (multiplied - armour).max(0);
    let rule = if critical {
        "004 §Critical Hits · 004 §Armour"
    } else {
        "004 §Armour · ruling damage_bonus"
    };
    // Ruling injury_effects: Strength damage, itemised.
    let weakened = if b.how == Delivery::Shot {
        0
    } else {
        b.hurts.strength_damage / 2
    };
    let rule = if weakened > 0 {
        format!("{rule} · ruling injury_effects")
    } else {
        rule.to_string()
    };
    log(world, || {
        let strength = match (b.stats.strength_mod, weakened) {
            (_, 0) if bonus == 0 => String::new(),
            (_, 0) => format!(" {bonus:+} Strength"),
            (0, w) => format!(" − {w} (Strength damage)"),
            (m, w) => format!(" {m:+} Strength − {w} (Strength damage)"),
        };
        let times = if critical {
            format!(" × {} critical = {multiplied}", w.critical)
        } else {
            String::new()
        };
        let text = format!(
            "Damage {raw} ({}{strength}){times}, less {armour} Armour: {amount} {} damage.",
            w.damage,
            w.damage_type.word()
        );
        Event::new(EventKind::DamageRoll, rule, text)
            .actor(&me)
            .roll(roll)
    });
    Hit {
        target,
        amount,
        critical,
        damage_type: w.damage_type,
        turned: multiplied > 0 && armour > 0,
    }
}

/// Apply a hit now, or hold it for the end of a simultaneous group.
fn land(world: &mut World, hit: Hit, deferred: Option<&mut Vec<Hit>>) {
    match deferred {
        Some(list) => list.push(hit),
        None => apply_hit(world, &hit),
    }
}

/// 004 §Stress, §Wound Points, §Critical Hits, §Combat Injuries: damage takes
/// Stress first and the rest from Wound Points; a critical hit's damage all
/// goes to Wound Points and may cause a Combat Injury.
fn apply_hit(world: &mut World, hit: &Hit) {
    let t = name(world, hit.target);
    if hit.amount == 0 {
        // Armour turned it, or there was no damage to turn.
        let words = if hit.turned {
            format!("{t}'s armour turns the blow.")
        } else {
            format!("The blow does {t} no damage.")
        };
        log(world, || {
            Event::new(EventKind::Damage, "004 §Armour", words).actor(&t)
        });
        return;
    }
    if health(world, hit.target) == Health::Dead {
        return;
    }
    let (to_stress, to_wounds) = if hit.critical {
        (0, hit.amount)
    } else {
        let stress = world
            .get::<Stress>(hit.target)
            .map_or(0, |s| s.current.max(0));
        let s = hit.amount.min(stress);
        (s, hit.amount - s)
    };
    if let Some(mut s) = world.get_mut::<Stress>(hit.target) {
        s.lose(to_stress);
    }
    let stress = world.get::<Stress>(hit.target).copied();
    let wp = world.get::<WoundPoints>(hit.target).copied();
    let (rule, how) = if hit.critical {
        ("004 §Critical Hits", "all of it to Wound Points")
    } else if to_wounds > 0 {
        ("004 §Stress", "Stress first, the rest to Wound Points")
    } else {
        ("004 §Stress", "all of it to Stress")
    };
    log(world, || {
        let now = match (stress, wp) {
            (Some(s), Some(w)) => format!(
                " (Stress {}/{}, Wound Points {}/{})",
                s.current,
                s.max,
                w.current - to_wounds,
                w.max
            ),
            _ => String::new(),
        };
        Event::new(
            EventKind::Damage,
            rule,
            format!(
                "{t} takes {} damage, {how}: {to_stress} Stress, {to_wounds} Wound Points{now}.",
                hit.amount
            ),
        )
        .actor(&t)
        .amount(hit.amount)
    });
    if to_wounds > 0 {
        mark_injury(world, hit.target, Harm::Hit(hit.damage_type), to_wounds);
        if let Some(mut rs) = world.get_mut::<RoundState>(hit.target) {
            rs.worst_hit = rs.worst_hit.max(to_wounds);
        }
        lose_wound_points(world, hit.target, to_wounds, "004 §Wound Points");
    }
    if hit.critical && health(world, hit.target) != Health::Dead {
        combat_injury(world, hit);
    }
}

/// 004 §Combat Injuries: d% at or under the critical's damage means a Combat
/// Injury from the damage type's table (ruling `empty_injury_tables` for the
/// tables the text leaves empty).
fn combat_injury(world: &mut World, hit: &Hit) {
    let data = world.resource::<Data>().0.clone();
    let t = name(world, hit.target);
    let roll = world.resource_mut::<Dice>().roll(
        DiceExpr::new(1, 100),
        format!("Combat Injury chance for {t}"),
    );
    let injured = roll.total <= hit.amount;
    log(world, || {
        Event::new(
            EventKind::InjuryCheck,
            "004 §Combat Injuries",
            format!(
                "Combat Injury check for {t}: d% {} against {} damage: {}.",
                roll.total,
                hit.amount,
                if injured { "an injury" } else { "no injury" }
            ),
        )
        .actor(&t)
        .roll(roll)
    });
    if !injured {
        return;
    }
    let own = data
        .injuries
        .get(&hit.damage_type)
        .filter(|rows| !rows.is_empty());
    let (table, rows, rule) = match own {
        Some(rows) => (hit.damage_type, rows.clone(), "004 §Combat Injuries"),
        None => {
            let b = data.ruling_numbers.borrowed_injury_table;
            (
                b,
                data.injuries.get(&b).cloned().unwrap_or_default(),
                "004 §Combat Injuries · ruling empty_injury_tables",
            )
        }
    };
    if rows.is_empty() {
        return;
    }
    let roll = world.resource_mut::<Dice>().roll(
        data.ruling_numbers.combat_injury_die,
        format!("{t}'s {} Combat Injury", table.word()),
    );
    let index = (roll.total.max(1) as usize - 1).min(rows.len() - 1);
    let row = rows[index].clone();
    let borrowed = if table != hit.damage_type {
        format!(
            " (the {} table is empty in the text; the {} table is used)",
            hit.damage_type.word(),
            table.word()
        )
    } else {
        String::new()
    };
    log(world, || {
        Event::new(
            EventKind::Injury,
            rule,
            format!(
                "{t} suffers a Combat Injury: {} — {}{borrowed}",
                row.name, row.text
            ),
        )
        .actor(&t)
        .roll(roll)
    });
    if let Some(mut inj) = world.get_mut::<Injuries>(hit.target)
        && let Some(last) = inj.0.last_mut()
    {
        last.combat_injury = Some(row.name.clone());
    }
    for effect in &row.effects {
        apply_effect(world, hit.target, effect, &row.name);
    }
}

/// What an injury's effect does in the fight (ruling `injury_effects`).
fn apply_effect(world: &mut World, e: Entity, effect: &Effect, injury: &str) {
    let t = name(world, e);
    let note = match effect {
        Effect::AbilityDamage(ability, dice) => {
            let roll = world
                .resource_mut::<Dice>()
                .roll_for(*dice, || format!("{t}'s {ability} damage"));
            let amount = roll.total.max(0);
            if let Some(mut h) = world.get_mut::<Hurts>(e) {
                match ability.as_str() {
                    "Agility" => h.agility_damage += amount,
                    "Strength" => h.strength_damage += amount,
                    "Dexterity" => h.dexterity_damage += amount,
                    _ => {}
                }
            }
            let effect = match ability.as_str() {
                "Agility" => "Defense falls 1 for every 2 points",
                "Strength" => "damage falls 1 for every 2 points, and it dies sooner",
                "Dexterity" => "attacks fall 1 for every 2 points",
                _ => "no effect in this fight",
            };
            log(world, || {
                Event::new(
                    EventKind::AbilityDamage,
                    "ruling injury_effects",
                    format!("{t} takes {amount} {ability} damage from the {injury}: {effect}."),
                )
                .actor(&t)
                .roll(roll)
            });
            if ability == "Strength" {
                lose_wound_points(world, e, 0, "ruling injury_effects");
            }
            return;
        }
        Effect::ArmUseless => {
            let roll = world
                .resource_mut::<Dice>()
                .die(4, format!("which arm of {t}"));
            let main = roll.total <= 2;
            if main && let Some(mut h) = world.get_mut::<Hurts>(e) {
                h.main_arm_useless = true;
            }
            let text = if main {
                format!("The {injury} is in {t}'s main arm: it can no longer attack.")
            } else {
                format!("The {injury} is in {t}'s off arm.")
            };
            log(world, || {
                Event::new(EventKind::InjuryEffect, "004 §Combat Injuries", text)
                    .actor(&t)
                    .roll(roll)
            });
            return;
        }
        Effect::HalfSpeed => "it moves at half speed",
        Effect::Prone => {
            "it is prone: it crawls 1 cell a round and melee attacks against it gain +2"
        }
        Effect::EveryOtherRound => "it may act only every other round",
        Effect::Paralysed => "it is paralysed and out of the fight",
        Effect::Mute => "it cannot speak, so it cannot cast",
        Effect::Suffocating => "it cannot breathe: it loses 1 Wound Point at the end of each round",
        Effect::Concussed => "it is concussed: −2 to its attacks",
    };
    if let Some(mut h) = world.get_mut::<Hurts>(e) {
        match effect {
            Effect::HalfSpeed => h.half_speed = true,
            Effect::Prone => h.prone = true,
            Effect::EveryOtherRound => h.every_other_round = true,
            Effect::Paralysed => h.paralysed = true,
            Effect::Mute => h.mute = true,
            Effect::Suffocating => {
                h.suffocating = true;
                h.mute = true;
            }
            Effect::Concussed => h.concussed = true,
            _ => {}
        }
    }
    if matches!(effect, Effect::Paralysed) {
        world.entity_mut(e).remove::<Fighting>();
    }
    log(world, || {
        Event::new(
            EventKind::InjuryEffect,
            "ruling injury_effects",
            format!("{t}: {note}."),
        )
        .actor(&t)
    });
}

/// Take Wound Points and move between the states of 004 §Wound Points:
/// Incapacitated at 0, Dying below 0, dead at minus Strength.
pub(crate) fn lose_wound_points(world: &mut World, e: Entity, amount: i32, rule: &'static str) {
    let strength = strength_now(world, e);
    let Some(mut wp) = world.get_mut::<WoundPoints>(e) else {
        return;
    };
    wp.lose(amount);
    let current = wp.current;
    let before = health(world, e);
    let after = if current <= -strength {
        Health::Dead
    } else if current < 0 {
        Health::Dying
    } else if current == 0 {
        Health::Incapacitated
    } else {
        before
    };
    if after == before {
        return;
    }
    let t = name(world, e);
    let text = match after {
        Health::Dead => {
            format!("{t} dies ({current} Wound Points reaches minus its Strength of {strength}).")
        }
        Health::Dying => format!(
            "{t} is Dying ({current} Wound Points): it loses 1 more at the end of every round unless stabilised."
        ),
        Health::Incapacitated => format!(
            "{t} is Incapacitated (0 Wound Points): it can crawl and talk, and any other action costs it 1 Wound Point."
        ),
        Health::Fine => return,
    };
    world.entity_mut(e).insert(after).remove::<Fighting>();
    if before == Health::Fine
        && let Some(mut rs) = world.get_mut::<RoundState>(e)
    {
        rs.fell = true;
    }
    if before == Health::Fine
        && let Some(mut late) = world.get_mut::<LateAction>(e)
    {
        late.fell = true;
    }
    if after == Health::Dead {
        world.entity_mut(e).remove::<fray_core::model::Blocking>();
    }
    if after == Health::Dead {
        world.entity_mut(e).remove::<Stabilised>();
    }
    log(world, || {
        Event::new(EventKind::Health, rule, text).actor(&t)
    });
}

/// Restore Stress, up to its maximum; returns what was gained.
fn restore_stress(world: &mut World, e: Entity, amount: i32) -> i32 {
    let Some(mut s) = world.get_mut::<Stress>(e) else {
        return 0;
    };
    let gained = amount.min(s.max - s.current).max(0);
    s.current += gained;
    gained
}

/// A healing item restores Wound Points first, then Stress (ruling
/// `healing_items`); a creature back above 0 Wound Points is on its feet.
fn heal(world: &mut World, e: Entity, amount: i32) -> (i32, i32) {
    let Some(mut wp) = world.get_mut::<WoundPoints>(e) else {
        return (0, 0);
    };
    let gained = amount.min(wp.max - wp.current).max(0);
    wp.current += gained;
    let now = wp.current;
    let stress = restore_stress(world, e, amount - gained);
    let was = health(world, e);
    if now > 0 && matches!(was, Health::Incapacitated | Health::Dying) {
        let mut ent = world.entity_mut(e);
        ent.insert(Health::Fine).remove::<Stabilised>();
        if ent.get::<Routed>().is_none() {
            ent.insert(Fighting);
        }
    } else if now == 0 && was == Health::Dying {
        // 004 §Wound Points: at exactly 0 a creature is Incapacitated, not
        // Dying: it no longer bleeds. One stabilised stays so: the text
        // stabilises the Incapacitated as well as the Dying.
        world.entity_mut(e).insert(Health::Incapacitated);
    }
    (gained, stress)
}

/// 004 §Wound Points: what healing made of `e`, which `was` as said, in
/// the log: back on its feet above 0 Wound Points, or Incapacitated, no
/// longer Dying, at 0.
fn healed_from(world: &mut World, e: Entity, was: Health) {
    let now = health(world, e);
    let wp = world.get::<WoundPoints>(e).map_or(0, |w| w.current);
    let t = name(world, e);
    let text = match (was, now) {
        (Health::Incapacitated | Health::Dying, Health::Fine) => {
            let fights = if world.get::<Routed>(e).is_some() {
                "it still flees"
            } else {
                "it fights again"
            };
            let state = if was == Health::Dying {
                "Dying"
            } else {
                "Incapacitated"
            };
            format!("{t} is healed to {wp} Wound Points: no longer {state}, {fights}.")
        }
        (Health::Dying, Health::Incapacitated) => {
            format!("{t} is healed to 0 Wound Points: Incapacitated, no longer Dying.")
        }
        _ => return,
    };
    log(world, || {
        Event::new(EventKind::Health, "004 §Wound Points", text).actor(&t)
    });
}

/// A routed creature runs as far from its enemies as it can; reaching the
/// edge of the battlefield, it leaves (ruling `morale_failure`).
fn flee(world: &mut World, e: Entity, budget: u32) {
    let me = name(world, e);
    let side = world.get::<Side>(e).copied();
    let from = cell(world, e);
    let blocked = occupied(world, e);
    let foes: Vec<Cell> = super::roster(world)
        .into_iter()
        .filter(|&x| world.get::<Fighting>(x).is_some() && world.get::<Side>(x).copied() != side)
        .map(|x| cell(world, x))
        .collect();
    let grid = world.resource::<Grid>();
    let reach = grid.reachable(from, budget, |c| blocked.contains(&c));
    let edge = |c: Cell| {
        c.x == 0 || c.y == 0 || c.x == grid.width() as i32 - 1 || c.y == grid.height() as i32 - 1
    };
    let safety = |c: Cell| foes.iter().map(|f| grid.distance(c, *f)).min().unwrap_or(0);
    let best = reach
        .iter()
        .map(|&(c, _)| c)
        .max_by_key(|&c| (edge(c), safety(c), std::cmp::Reverse(c)))
        .unwrap_or(from);
    let off = edge(best);
    let cost = Grid::cost_in(&reach, best).unwrap_or(0);
    if world.get::<Cell>(e).is_some() {
        world.entity_mut(e).insert(best);
    }
    count_move(world, e, cost);
    // One down, or prone (ruling injury_effects), crawls its 1 cell (ruling
    // grid_scale).
    let prone = world.get::<Hurts>(e).is_some_and(|h| h.prone);
    let runs = if health(world, e) == Health::Fine && !prone {
        "runs"
    } else {
        "crawls"
    };
    if off {
        world
            .entity_mut(e)
            .insert(Fled)
            .remove::<(Fighting, fray_core::model::Blocking)>();
        log(world, || {
            Event::new(
                EventKind::Fled,
                "ruling morale_failure",
                format!("{me} {runs} from {from} to {best} and off the battlefield."),
            )
            .actor(&me)
        });
    } else {
        log(world, || {
            Event::new(
                EventKind::Move,
                "ruling morale_failure",
                format!("{me} {runs} from {from} to {best}."),
            )
            .actor(&me)
        });
    }
}
