//! Blows: the attack roll and damage (rulings `attack_roll`, `damage`,
//! `hit_points`), attacks per round by level (003 §Multiple Attacks Per
//! Round By Level, §III B), attacks of opportunity (003 §III C, §III F), the
//! longer weapon striking first (003 §II E), missiles and spells going off.

use bevy_ecs::prelude::*;
use fray_core::casting::{Casting, Memorised};
use fray_core::dice::Dice;
use fray_core::grid::{Cell, Grid, GridGeometry};
use fray_core::log::{Check, Event, EventKind, Modifier, if_kept, record};

use super::data::{Class, SpellEffect, Weapon};
use super::orders::{acts, may_take_opportunity, melee_weapon, missile_weapon, threats};
use super::{
    Data, Down, Flow, HitPoints, Readied, RoundState, Stats, cell, enemies_of, name, roster, up,
};

/// Damage dealt, to land at once or with the rest of a tie (003 §II F).
#[derive(Clone, Debug)]
pub struct Hit {
    pub target: Entity,
    pub amount: i32,
}

/// 003 §III E: armour class, with the Dexterity bonus lost while casting.
pub fn armour_class(world: &World, e: Entity) -> i32 {
    match world.get::<Stats>(e) {
        Some(s) if casting_without_dexterity(world, e, s) => s.ac,
        Some(s) => s.ac + s.dex_ac,
        None => 10,
    }
}

/// Whether `e` casts a spell and so loses a Dexterity bonus it has (003
/// §III E: the bonus, a lower armour class; a penalty stays).
fn casting_without_dexterity(world: &World, e: Entity, s: &Stats) -> bool {
    world.get::<Casting>(e).is_some() && s.dex_ac < 0
}

/// [`armour_class`] in words, with why it is lower while casting.
pub fn armour_class_words(world: &World, e: Entity) -> String {
    let ac = armour_class(world, e);
    match world.get::<Stats>(e) {
        Some(s) if casting_without_dexterity(world, e, s) => {
            format!("AC {ac} (no Dexterity bonus while casting, 003 §III E)")
        }
        Some(_) => format!("AC {ac}"),
        None => String::new(),
    }
}

/// 003 §Multiple Attacks Per Round By Level: attacks this round (a
/// monster's own number; 1/1 for classes the table does not list).
pub fn attacks_this_round(world: &World, e: Entity) -> u32 {
    let Some(s) = world.get::<Stats>(e) else {
        return 0;
    };
    if let Some(n) = s.attacks {
        return n;
    }
    let round = world.resource::<Flow>().round;
    world
        .resource::<Data>()
        .0
        .attacks_per_round(s.class, s.level, round)
        .unwrap_or(1)
}

/// The weapon `e` strikes with in melee: its melee weapon, or its fists.
fn striking_weapon(world: &World, e: Entity) -> (String, Weapon) {
    melee_weapon(world, e).unwrap_or_else(|| {
        let data = &world.resource::<Data>().0;
        let fists = data.weapons.get("fists").cloned().unwrap_or(Weapon {
            damage: fray_core::dice::DiceExpr::new(1, 2),
            length: 0,
            wsf: 1,
            range: 0,
            rate: 1,
            unarmed: true,
        });
        ("fists".to_string(), fists)
    })
}

/// One attack (ruling `attack_roll`: d20 + bonuses against THAC0 − AC;
/// ruling `damage`: the weapon's dice plus Strength in melee). The hit, if any.
fn attack_roll(
    world: &mut World,
    (attacker, target): (Entity, Entity),
    (weapon, w): (&str, &Weapon),
    bonuses: Vec<Modifier>,
    rule: &str,
) -> Option<Hit> {
    let (who, whom) = (name(world, attacker), name(world, target));
    let thac0 = world.get::<Stats>(attacker).map_or(20, |s| s.thac0);
    let ac = armour_class(world, target);
    let ac_words = if_kept(world, |w| armour_class_words(w, target));
    let die = world.resource::<Data>().0.ruling_numbers.attack_die;
    let roll = world
        .resource_mut::<Dice>()
        .roll_for(die, || format!("{who}'s attack on {whom}"));
    let need = thac0 - ac;
    let total = roll.total + bonuses.iter().map(|m| m.value).sum::<i32>();
    let natural = roll.total;
    let hits = natural == 20 || (natural != 1 && total >= need);
    let (kind, verdict) = if hits {
        (EventKind::Hit, "hits")
    } else {
        (EventKind::Miss, "misses")
    };
    record(world, || {
        let check = Check {
            against: format!("THAC0 {thac0} − {ac_words}"),
            target: need,
            modifiers: bonuses,
            total,
            success: hits,
        };
        // The roll's modifiers in words, so that the total explains itself.
        let shown = if check.modifiers.is_empty() {
            total.to_string()
        } else {
            let mods: Vec<String> = check
                .modifiers
                .iter()
                .map(|m| format!("{:+} {}", m.value, m.name))
                .collect();
            format!("{natural} {} = {total}", mods.join(" "))
        };
        let text = format!(
            "{who} attacks {whom} with the {weapon}: {shown} against {need} ({}): {verdict}.",
            check.against
        );
        Event::new(kind, rule, text)
            .actor(&who)
            .target(&whom)
            .roll(roll.clone())
            .check(check)
    });
    if !hits {
        return None;
    }
    let bonus = if w.range == 0 {
        world.get::<Stats>(attacker).map_or(0, |s| s.damage_bonus)
    } else {
        0
    };
    let dmg = world
        .resource_mut::<Dice>()
        .roll_for(w.damage, || format!("{who}'s damage"));
    let amount = (dmg.total + bonus).max(1);
    record(world, || {
        Event::new(
            EventKind::DamageRoll,
            "ruling damage",
            format!(
                "{who} rolls {} damage{}: {amount}.",
                w.damage,
                if bonus != 0 {
                    format!(" {bonus:+} Strength")
                } else {
                    String::new()
                }
            ),
        )
        .actor(&who)
        .roll(dmg)
    });
    Some(Hit { target, amount })
}

/// A hit lands now, or is held with the rest of a tie (003 §II F).
pub fn land(world: &mut World, hit: Hit) {
    if let Some(held) = world.resource_mut::<Flow>().held.as_mut() {
        held.push(hit);
        return;
    }
    apply(world, &hit);
}

/// Damage taken: hit points fall, a spell in hand is spoiled (003 §Casting
/// in Combat), and at 0 or below the creature falls (ruling `hit_points`).
pub fn apply(world: &mut World, hit: &Hit) {
    let Some(mut hp) = world.get_mut::<HitPoints>(hit.target) else {
        return;
    };
    hp.lose(hit.amount);
    let (left, max) = (hp.current, hp.max);
    let whom = name(world, hit.target);
    let amount = hit.amount;
    record(world, || {
        Event::new(
            EventKind::Damage,
            "ruling hit_points",
            format!("{whom} takes {amount} damage ({left} of {max} hit points left)."),
        )
        .target(&whom)
        .amount(amount)
    });
    fray_core::casting::damaged(world, hit.target, hit.amount);
    if left <= 0 && up(world, hit.target) {
        fray_core::model::out_of_the_fight(world, hit.target, Down, "ruling hit_points", |n| {
            format!("{n} falls at {left} hit points and is out of the fight.")
        });
        // Ruling `fallen_bodies`: the fallen are stepped over.
        world
            .entity_mut(hit.target)
            .remove::<fray_core::model::Blocking>();
    }
}

/// 003 §III B: all of a character's attacks of the round, on its turn,
/// against `target` (ruling `further_attacks`: once it falls, at another
/// enemy in reach). `at_once`: the hits land now, even in a tie.
pub fn routine(world: &mut World, attacker: Entity, target: Entity, rule: &str, at_once: bool) {
    world.resource_mut::<Flow>().struck = true;
    let n = attacks_this_round(world, attacker);
    if let Some(mut rs) = world.get_mut::<RoundState>(attacker) {
        rs.attacked = true;
    }
    let weapon = striking_weapon(world, attacker);
    let mut target = target;
    for i in 0..n {
        if !up(world, target)
            || world
                .resource::<Grid>()
                .distance(cell(world, attacker), cell(world, target))
                != 1
        {
            let next = super::orders::adjacent_enemies(world, attacker, cell(world, attacker))
                .into_iter()
                .next();
            match next {
                Some(t) if i > 0 => target = t,
                _ => return,
            }
        }
        let bonuses = parry_penalty(world, target);
        let rule = if n > 1 {
            format!("{rule}; 003 §Multiple Attacks Per Round By Level")
        } else {
            rule.to_string()
        };
        if let Some(hit) = attack_roll(
            world,
            (attacker, target),
            (&weapon.0, &weapon.1),
            bonuses,
            &rule,
        ) {
            if at_once {
                apply(world, &hit);
            } else {
                land(world, hit);
            }
        }
    }
}

/// Ruling `parry`: attacks on a parrying creature take a penalty.
fn parry_penalty(world: &World, target: Entity) -> Vec<Modifier> {
    if world.get::<RoundState>(target).is_some_and(|r| r.parrying) {
        let p = world.resource::<Data>().0.ruling_numbers.parry_penalty;
        return vec![Modifier::new("parry (ruling parry)", -p)];
    }
    Vec::new()
}

/// 003 §III F: `by` takes its one attack of opportunity of the round at
/// `mover` (at its back, `rear`), landing at once. True if `mover` fell.
pub fn opportunity(
    world: &mut World,
    by: Entity,
    mover: Entity,
    why: &str,
    rule: &str,
    rear: bool,
) -> bool {
    if !may_take_opportunity(world, by) || !up(world, mover) {
        return false;
    }
    if let Some(mut rs) = world.get_mut::<RoundState>(by) {
        rs.opportunity_used = true;
    }
    let (who, whom) = (name(world, by), name(world, mover));
    let text = format!("{who} takes an attack of opportunity at {whom}, who {why}.");
    let r = rule.to_string();
    record(world, || {
        Event::new(EventKind::Opportunity, r, text)
            .actor(&who)
            .target(&whom)
    });
    let mut bonuses = parry_penalty(world, mover);
    if rear {
        let b = world.resource::<Data>().0.ruling_numbers.rear_bonus;
        bonuses.push(Modifier::new("at the back (ruling rear_attack)", b));
    }
    let weapon = striking_weapon(world, by);
    if let Some(hit) = attack_roll(
        world,
        (by, mover),
        (&weapon.0, &weapon.1),
        bonuses,
        "003 §Attacks Of Opportunity",
    ) {
        apply(world, &hit);
    }
    !up(world, mover)
}

/// Whether `e` fights unarmed (003 §II E: monks never are).
fn unarmed(world: &World, e: Entity) -> bool {
    if world
        .get::<Stats>(e)
        .is_some_and(|s| s.class == Class::Monk)
    {
        return false;
    }
    melee_weapon(world, e).is_none_or(|(_, w)| w.unarmed)
}

/// 003 §II E: whether `a`'s weapon is longer than `b`'s (a weapon always
/// beats the unarmed).
pub fn longer(world: &World, a: Entity, b: Entity) -> bool {
    if unarmed(world, a) {
        return false;
    }
    if unarmed(world, b) {
        return true;
    }
    let len = |e| melee_weapon(world, e).map_or(0, |(_, w)| w.length);
    len(a) > len(b)
}

/// 003 §II E: "Weapons always win initiative vs. unarmed" (ruling
/// armed_first): unarmed `e`, about to strike armed `target` who has not
/// struck this round, is struck first, `target`'s attacks of the round
/// then spent. True if `e` fell.
pub fn armed_first(world: &mut World, e: Entity, target: Entity) -> bool {
    if !beats_bare_hands(world, target, e) {
        return false;
    }
    let (who, whom) = (name(world, e), name(world, target));
    let weapon = melee_weapon(world, target).map_or("weapon".to_string(), |(n, _)| n);
    record(world, || {
        Event::new(
            EventKind::Attack,
            "003 §II E",
            format!("{who} comes at {whom} with bare hands: {whom}'s {weapon} wins initiative against the unarmed and strikes first (ruling armed_first)."),
        )
        .actor(&whom)
        .target(&who)
    });
    routine(world, target, e, "003 §II E", true);
    !up(world, e)
}

/// Ruling armed_first: whether armed `target`, not yet struck this round,
/// strikes first at unarmed `e` coming at it.
pub fn beats_bare_hands(world: &World, target: Entity, e: Entity) -> bool {
    unarmed(world, e) && !unarmed(world, target) && can_strike(world, target) && up(world, e)
}

/// Whether `e` can still strike this round: its attacks not spent, nor
/// given up for a parry until its next turn (ruling `parry`).
fn can_strike(world: &World, e: Entity) -> bool {
    acts(world, e)
        && world
            .get::<RoundState>(e)
            .is_some_and(|r| !r.attacked && !r.parrying)
}

/// 003 §II E: the opponents whose melee range `mover` enters walking
/// `cells` and whose longer weapon strikes first, in order.
pub fn length_first(world: &World, mover: Entity, cells: &[Cell]) -> Vec<Entity> {
    length_first_among(world, mover, cells, &threats(world, mover))
}

/// [`length_first`] among `all`, the threats to `mover` as they stand.
pub fn length_first_among(
    world: &World,
    mover: Entity,
    cells: &[Cell],
    all: &[fray_core::threat::Threatener],
) -> Vec<Entity> {
    let grid = world.resource::<Grid>();
    let mut from = cell(world, mover);
    let mut out = Vec::new();
    for &to in cells {
        for t in fray_core::threat::entered(grid, from, to, all) {
            if !out.contains(&t.entity)
                && longer(world, t.entity, mover)
                && can_strike(world, t.entity)
            {
                out.push(t.entity);
            }
        }
        from = to;
    }
    out
}

/// 003 §II E: `striker`'s longer weapon strikes first as `mover` enters
/// its melee range, regardless of initiative; its attacks of the round are
/// spent (ruling `length_strike`). True if `mover` fell.
pub fn length_strike(world: &mut World, striker: Entity, mover: Entity) -> bool {
    if !can_strike(world, striker) || !up(world, mover) {
        return false;
    }
    let (who, whom) = (name(world, striker), name(world, mover));
    let mine = melee_weapon(world, striker).map_or("weapon".to_string(), |(n, w)| {
        format!("{n} ({}')", w.length)
    });
    let theirs = melee_weapon(world, mover)
        .filter(|_| !unarmed(world, mover))
        .map_or("bare hands".to_string(), |(n, w)| {
            format!("{n} ({}')", w.length)
        });
    record(world, || {
        Event::new(
            EventKind::Attack,
            "003 §II E",
            format!("{whom} comes into {who}'s melee range: {who}'s {mine} is longer than the {theirs} and strikes first, regardless of initiative."),
        )
        .actor(&who)
        .target(&whom)
    });
    routine(world, striker, mover, "003 §II E", true);
    !up(world, mover)
}

/// 003 §III C (ruling missile_in_melee): whether `foe`, adjacent, is
/// attacking with a melee weapon: armed for melee, bare hands not counting.
pub fn engages_shooter(world: &World, foe: Entity) -> bool {
    melee_weapon(world, foe).is_some() && !unarmed(world, foe)
}

/// 003 §III C: missile fire with adjacent opponents attacking with melee
/// weapons draws their attacks of opportunity (ruling missile_in_melee:
/// every adjacent opponent armed for melee, bare hands not counting); then
/// the shots of the round.
pub fn fire(world: &mut World, shooter: Entity, target: Entity, rule: &str) {
    world.resource_mut::<Flow>().struck = true;
    world.entity_mut(shooter).remove::<Readied>();
    if let Some(mut rs) = world.get_mut::<RoundState>(shooter) {
        rs.attacked = true;
        rs.holding_readied = false;
    }
    let here = cell(world, shooter);
    for foe in super::orders::adjacent_enemies(world, shooter, here) {
        if engages_shooter(world, foe)
            && opportunity(
                world,
                foe,
                shooter,
                "fires a missile in melee",
                "003 §III C",
                false,
            )
        {
            return;
        }
    }
    let Some((weapon, w)) = missile_weapon(world, shooter) else {
        return;
    };
    for _ in 0..w.rate {
        if !up(world, target) {
            break;
        }
        if let Some(hit) = attack_roll(
            world,
            (shooter, target),
            (&weapon, &w),
            parry_penalty(world, target),
            rule,
        ) {
            land(world, hit);
        }
    }
}

/// Why `target` is beyond a shot or spell of `range` from `e`, if it is.
pub enum Beyond {
    /// Farther than the range (003 §III D), by so many squares.
    Range(u32),
    /// Out of sight behind an obstacle (ruling `in_sight`).
    Sight,
}

/// Whether `target` is beyond a shot or spell of `range` from `e`: out of
/// range (003 §III D) or out of sight (ruling `in_sight`); it may have
/// moved since the order was given or the casting began.
pub fn beyond(world: &World, (e, target): (Entity, Entity), range: u32) -> Option<Beyond> {
    let (here, there) = (super::cell(world, e), super::cell(world, target));
    let grid = world.resource::<Grid>();
    let d = grid.distance(here, there);
    if d > range {
        return Some(Beyond::Range(d));
    }
    (!grid.in_sight(here, there)).then_some(Beyond::Sight)
}

/// 003 §II C: a spell goes off after its casting time, unless damage spoiled
/// it (the core's `casting::spoil`); it is spent from memory either way.
pub fn complete(world: &mut World, caster: Entity, target: Entity) {
    let Some(casting) = world.entity_mut(caster).take::<Casting>() else {
        return;
    };
    let who = name(world, caster);
    if !fray_core::casting::may_cast(world, caster) {
        return;
    }
    if let Some(mut m) = world.get_mut::<Memorised>(caster) {
        m.forget(&casting.spell);
    }
    let data = world.resource::<Data>().0.clone();
    let Some(spell) = data.spells.get(&casting.spell) else {
        return;
    };
    let whom = name(world, target);
    if !up(world, target) {
        record(world, || {
            Event::new(
                EventKind::Cast,
                "ruling spell_effect",
                format!(
                    "{who}'s {} goes off, but {whom} is already out of the fight: it is spent.",
                    casting.spell
                ),
            )
            .actor(&who)
        });
        return;
    }
    if let Some(beyond) = beyond(world, (caster, target), spell.range) {
        let why = match beyond {
            Beyond::Range(d) => format!("out of its range ({d} squares, range {})", spell.range),
            Beyond::Sight => "out of sight behind an obstacle".to_string(),
        };
        record(world, || {
            Event::new(
                EventKind::Cast,
                "ruling in_sight",
                format!(
                    "{who}'s {} goes off, but {whom} is {why}: it is spent.",
                    casting.spell
                ),
            )
            .actor(&who)
        });
        return;
    }
    match spell.effect {
        SpellEffect::Damage(dice) => {
            let roll = world
                .resource_mut::<Dice>()
                .roll_for(dice, || format!("{who}'s {}", casting.spell));
            let amount = roll.total.max(1);
            record(world, || {
                Event::new(
                    EventKind::Cast,
                    "003 §II C",
                    format!(
                        "{who} completes {} on {whom}: {amount} damage (ruling spell_effect).",
                        casting.spell
                    ),
                )
                .actor(&who)
                .target(&whom)
                .roll(roll)
            });
            land(world, Hit { target, amount });
        }
        SpellEffect::Heal(dice) => {
            let roll = world
                .resource_mut::<Dice>()
                .roll_for(dice, || format!("{who}'s {}", casting.spell));
            // Restored up to the maximum: what it gives is what was lacking.
            let (n, now, max) = match world.get_mut::<HitPoints>(target) {
                Some(mut hp) => {
                    let before = hp.current;
                    hp.current = (hp.current + roll.total).min(hp.max).max(before);
                    (hp.current - before, hp.current, hp.max)
                }
                None => (0, 0, 0),
            };
            record(world, || {
                let e = Event::new(EventKind::Heal, "003 §II C", format!("{who} completes {} on {whom}: {n} hit points restored, {now} of {max} (ruling spell_effect).", casting.spell))
                    .actor(&who).target(&whom).roll(roll);
                // Nothing restored is no amount to float over the board.
                if n > 0 { e.amount(-n) } else { e }
            });
        }
    }
}

/// The enemies of `e` still fighting, in listing order.
pub fn foes(world: &World, e: Entity) -> Vec<Entity> {
    let foe = enemies_of(world, e);
    roster(world)
        .into_iter()
        .filter(|&x| foe(x) && up(world, x))
        .collect()
}
