//! The `crucible` ruleset's appraisal of the orders open to a character,
//! for the basic AI (`fray_core::ai`).
//!
//! Attacks are worth their chance to hit (ruling `attack_roll`) times the
//! mean damage, times the attacks of the round. Moving into reach counts the
//! attacks of opportunity it would draw (003 §III F) and the longer weapons
//! that would strike first (003 §II E) as risk, so the 5' step, which draws
//! nothing, wins whenever it reaches. Monsters whose morale failed are not
//! asked: their withdrawal goes on by itself (ruling `morale_failure`).

use bevy_ecs::prelude::*;
use fray_core::ai::{AiHooks, Appraisal, STANDARD_SEARCH_WORK};
use fray_core::casting::Memorised;
use fray_core::decision::Order;
use fray_core::grid::{Cell, Grid, GridGeometry};
use fray_core::movement::Provokes;
use fray_core::threat::Threatener;

use super::combat::{armour_class, attacks_this_round, foes, length_first_among};
use super::data::SpellEffect;
use super::orders::{self, melee_weapon, missile_weapon, path, provokers_among, threats};
use super::{Data, Flow, HitPoints, RoundState, Stage, Stats, cell, name, roster, up};

pub const HOOKS: AiHooks = AiHooks {
    appraise,
    legal,
    // Turn by turn, each order appraised with paths and reactions: a step
    // weighs three of `declared`'s (3 each). At four of them (12) its
    // searches took 3 to 7 ms at p99 where `declared`'s took 7 to 8.
    step_work: 9,
    // Four times the standard's, each cell a future's paths expand
    // counting 2 beside its steps: a step that takes the way drawing the
    // fewest attacks of opportunity searches far more cells than one that
    // does not, and counted by its steps alone a decision took up to 3.5
    // times as long at p99 as at p50 (docs/ai.md).
    search_work: 4 * STANDARD_SEARCH_WORK,
    cell_work: 2,
};

fn legal(world: &World, me: Entity, order: &Order) -> bool {
    if orders::reacting(world, me).is_some() {
        return orders::validate_reaction(world, me, order).is_ok();
    }
    if world.resource::<Flow>().stage == Stage::Readied {
        return orders::validate_readied(world, me, order).is_ok();
    }
    orders::validate(world, me, order).is_ok()
}

/// Expected damage of one blow of `a` on `t` (melee unless `missile`).
fn blow(world: &World, a: Entity, t: Entity, missile: bool) -> f32 {
    let (hit, dmg) = swing(world, a, t, missile);
    hit * dmg
}

/// One blow of `a` on `t` (melee unless `missile`): its chance to hit
/// (ruling `attack_roll`) and its mean damage.
fn swing(world: &World, a: Entity, t: Entity, missile: bool) -> (f32, f32) {
    let Some(s) = world.get::<Stats>(a) else {
        return (0.0, 0.0);
    };
    let weapon = if missile {
        missile_weapon(world, a)
    } else {
        melee_weapon(world, a)
    };
    let (dmg, bonus) = weapon.map_or((1.5, 0), |(_, w)| {
        (
            w.damage.mean(),
            if w.range == 0 { s.damage_bonus } else { 0 },
        )
    });
    let need = (s.thac0 - armour_class(world, t)).clamp(2, 20);
    ((21 - need) as f32 / 20.0, (dmg + bonus as f32).max(1.0))
}

fn left(world: &World, t: Entity) -> f32 {
    world
        .get::<HitPoints>(t)
        .map_or(1.0, |h| h.current.max(1) as f32)
}

/// What the orders `me`'s side has already given at this count will deal a
/// foe: their expected damage, and the chance that every blow of them
/// misses. They land with `me`'s, a tie being simultaneous (003 §II F), or
/// before a spell `me` begins (ruling `casting_time`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Coming {
    damage: f32,
    all_miss: f32,
}

impl Coming {
    /// Nothing aimed at the foe yet.
    const NOTHING: Self = Self {
        damage: 0.0,
        all_miss: 1.0,
    };
}

/// The blows and spells `me`'s allies were told to aim at each foe at this
/// count, their orders waiting to be taken. Only `me`'s own side's orders
/// are read.
fn coming(world: &World, me: Entity) -> Vec<(Entity, Coming)> {
    let roster = &world.resource::<Flow>().roster;
    let mut out: Vec<(Entity, Coming)> = Vec::new();
    for (d, order) in world.resource::<fray_core::decision::Decisions>().waiting() {
        let a = d.actor;
        if a == me || super::enemies(world, me, a) {
            continue;
        }
        let Ok(t) = roster.target_of(order) else {
            continue;
        };
        let (hit, dmg, blows) = match order.action.as_str() {
            "attack" | "step" => {
                let (hit, dmg) = swing(world, a, t, false);
                (hit, dmg, attacks_this_round(world, a))
            }
            "fire" => {
                let (hit, dmg) = swing(world, a, t, true);
                (
                    hit,
                    dmg,
                    missile_weapon(world, a).map_or(1, |(_, w)| w.rate),
                )
            }
            "cast" => (1.0, spell_damage(world, order), 1),
            _ => continue,
        };
        if dmg <= 0.0 {
            continue;
        }
        let at = out.iter().position(|(f, _)| *f == t).unwrap_or_else(|| {
            out.push((t, Coming::NOTHING));
            out.len() - 1
        });
        let c = &mut out[at].1;
        c.damage += hit * dmg * blows as f32;
        c.all_miss *= (1.0 - hit).powi(blows as i32);
    }
    out
}

/// The mean damage of the harmful spell `order` casts (0 for another).
fn spell_damage(world: &World, order: &Order) -> f32 {
    let data = &world.resource::<Data>().0;
    match order.with.as_deref().and_then(|sp| data.spells.get(sp)) {
        Some(s) => match s.effect {
            SpellEffect::Damage(d) => d.mean(),
            _ => 0.0,
        },
        None => 0.0,
    }
}

/// `damage` aimed at foe `t` by `me`, weighed against what the side's
/// orders at this count already aim at it: what it counts, and what the
/// foe has left to finish. A foe those orders are expected to drop counts
/// `me`'s damage only for the chance that all of them miss.
fn against(world: &World, t: Entity, damage: f32, coming: &[(Entity, Coming)]) -> (f32, f32) {
    let hp = left(world, t);
    match coming.iter().find(|(f, _)| *f == t) {
        None => (damage, hp),
        Some((_, c)) if c.damage < hp => (damage, hp - c.damage),
        Some((_, c)) => (damage * c.all_miss, hp),
    }
}

/// The risk of walking `cells`: attacks of opportunity and length-first
/// strikes, from `able`, the threats to `me`.
fn risk(world: &World, me: Entity, cells: &[Cell], able: &[Threatener]) -> f32 {
    let aoo: f32 = provokers_among(world, me, cells, Provokes::Within { free: 1 }, able)
        .into_iter()
        .map(|p| blow(world, p, me, false))
        .sum();
    let first: f32 = length_first_among(world, me, cells, able)
        .into_iter()
        .map(|p| blow(world, p, me, false) * attacks_this_round(world, p) as f32)
        .sum();
    aoo + first
}

/// The foes `me` goes for: all of them, but a monster lets a player
/// character disengage (ruling `disengage`).
fn pressed(world: &World, me: Entity) -> Vec<Entity> {
    let mut out = foes(world, me);
    out.retain(|&f| !super::orders::lets_disengage(world, me, f));
    out
}

fn appraise(world: &World, me: Entity) -> Vec<Appraisal> {
    let mut out = Vec::new();
    if world.get::<Stats>(me).is_none() {
        return out;
    }
    let who = name(world, me);
    match orders::reacting(world, me) {
        Some((leader, super::Reaction::Follow)) => return follow_or_stay(world, me, leader),
        // Ruling aoo_taken: the blow at a fleeing back is always taken.
        Some((fleeing, super::Reaction::BackBlow)) => {
            let strike = Order::new(&who, "strike_back").target(name(world, fleeing));
            return vec![Appraisal {
                other: 1.0,
                ..Appraisal::plain(strike)
            }];
        }
        // Ruling follow: a monster fights whoever is in reach, anyone else
        // parries.
        Some((_, super::Reaction::Redirect)) => {
            let first = orders::adjacent_enemies(world, me, cell(world, me))
                .first()
                .copied();
            let order = match first.filter(|_| world.get::<super::Monster>(me).is_some()) {
                Some(t) => Order::new(&who, "attack").target(name(world, t)),
                None => Order::new(&who, "parry"),
            };
            return vec![Appraisal {
                other: 1.0,
                ..Appraisal::plain(order)
            }];
        }
        None => {}
    }
    let grid = world.resource::<Grid>();
    let here = cell(world, me);
    let foes = pressed(world, me);
    let holding = world
        .get::<RoundState>(me)
        .is_some_and(|r| r.holding_readied);
    let readied = world.resource::<Flow>().stage == Stage::Readied;
    let coming = coming(world, me);
    // Before initiative, or holding, it fires from where it stands.
    missiles(world, me, (&foes, &coming), !readied && !holding, &mut out);
    if readied {
        out.push(Appraisal::plain(Order::new(&who, "hold")));
        return out;
    }
    out.push(Appraisal {
        other: -0.01,
        ..Appraisal::plain(Order::new(&who, "wait"))
    });
    if holding {
        return out;
    }
    let n = attacks_this_round(world, me) as f32;
    // The field every walk weighed goes round, and who could strike at
    // it, looked at once.
    let ways = orders::Ways::of(world, me);
    let able = &ways.able;
    // A standoff: after a quiet round, closing in is worth more each round.
    let impasse = world.resource::<Flow>().quiet_rounds.saturating_sub(1) as f32;
    for &f in &foes {
        let fc = cell(world, f);
        let fname = name(world, f);
        let (dmg, target_left) = against(world, f, blow(world, me, f, false) * n, &coming);
        let rate = super::orders::rate_left(world, me);
        if let Some((cells, cost)) = ways.path(grid, fc, 1).filter(|p| p.1 <= rate) {
            out.push(Appraisal {
                damage: dmg,
                target_left,
                risk: risk(world, me, &cells, able),
                closing: cost as f32,
                other: impasse,
                ..Appraisal::plain(Order::new(&who, "attack").target(&fname))
            });
        }
        let adjacent = grid.distance(here, fc) == 1;
        for to in grid
            .neighbours(here)
            .filter(|&c| !adjacent && grid.distance(c, fc) == 1)
            .collect::<Vec<_>>()
        {
            out.push(Appraisal {
                damage: dmg,
                target_left,
                risk: risk(world, me, &[to], able),
                closing: 0.5,
                ..Appraisal::plain(Order::new(&who, "step").cell(to).target(&fname))
            });
        }
    }
    spells(world, me, (&foes, &coming), &mut out);
    advance(world, me, &foes, able, &mut out);
    out
}

/// Ruling `follow`: one engaged with a foe falling back follows it unless
/// another enemy is in its reach, whom it fights instead.
fn follow_or_stay(world: &World, me: Entity, leader: Entity) -> Vec<Appraisal> {
    let who = name(world, me);
    let engaged = orders::adjacent_enemies(world, me, cell(world, me))
        .iter()
        .any(|&x| x != leader);
    let follow = Order::new(&who, "follow").target(name(world, leader));
    vec![
        Appraisal {
            other: if engaged { 0.0 } else { 1.0 },
            ..Appraisal::plain(follow)
        },
        Appraisal {
            other: if engaged { 1.0 } else { 0.0 },
            ..Appraisal::plain(Order::new(&who, "stay"))
        },
    ]
}

/// 003 §III A, §III C–D: a shot at each foe in range of `me`'s missile,
/// or brought within it by moving first when `may_move`; weighed against
/// the attacks of opportunity of the armed foes beside where it shoots
/// from and those of the way there. A shot from where it stands may be
/// followed by falling back, worth the blows that spares.
fn missiles(
    world: &World,
    me: Entity,
    (foes, coming): (&[Entity], &[(Entity, Coming)]),
    may_move: bool,
    out: &mut Vec<Appraisal>,
) {
    let Some((_, w)) = missile_weapon(world, me) else {
        return;
    };
    let grid = world.resource::<Grid>();
    let here = cell(world, me);
    let who = name(world, me);
    let back = may_move.then(|| fall_back(world, me, foes)).flatten();
    for &f in foes {
        let order = Order::new(&who, "fire").target(name(world, f));
        // Ruling in_sight: from here only in range and in sight.
        let fc = cell(world, f);
        let (walked, order) = if grid.distance(here, fc) <= w.range && grid.in_sight(here, fc) {
            (Vec::new(), order)
        } else {
            match may_move
                .then(|| orders::firing_square(world, me, f))
                .flatten()
            {
                Some((cells, to)) => (cells, order.cell(to)),
                None => continue,
            }
        };
        let from = walked.last().copied().unwrap_or(here);
        let r: f32 = orders::adjacent_enemies(world, me, from)
            .iter()
            .filter(|&&x| super::combat::engages_shooter(world, x))
            .map(|&x| blow(world, x, me, false))
            .sum();
        let walk_risk = if walked.is_empty() {
            0.0
        } else {
            risk(world, me, &walked, &threats(world, me))
        };
        let (damage, target_left) =
            against(world, f, blow(world, me, f, true) * w.rate as f32, coming);
        out.push(Appraisal {
            damage,
            target_left,
            risk: r + walk_risk,
            ..Appraisal::plain(order)
        });
        if let (true, Some((to, back_risk, spared))) = (walked.is_empty(), back) {
            out.push(Appraisal {
                damage,
                target_left,
                risk: r + back_risk,
                other: spared,
                ..Appraisal::plain(
                    Order::new(&who, "fire_then_move")
                        .target(name(world, f))
                        .cell(to),
                )
            });
        }
    }
}

/// 003 §III D: where a shooter would fall back to after its shot
/// ([`orders::falling_back_from`]), the risk of the walk there, and the
/// blows it spares: those of each armed foe whose standard rate brings it
/// to where the shooter stands but not to where it falls back, counted at
/// even odds of that foe acting after it. None when it spares nothing.
fn fall_back(world: &World, me: Entity, foes: &[Entity]) -> Option<(Cell, f32, f32)> {
    let to = orders::falling_back_from(world, me)?;
    let (cells, _) = path(world, me, to, 0)?;
    let grid = world.resource::<Grid>();
    let here = cell(world, me);
    let comes = |f: Entity, c: Cell| {
        let speed = world.get::<Stats>(f).map_or(0, |s| s.speed);
        grid.distance(cell(world, f), c) <= speed + 1
    };
    let spared: f32 = foes
        .iter()
        .filter(|&&f| melee_weapon(world, f).is_some() && comes(f, here) && !comes(f, to))
        .map(|&f| 0.5 * blow(world, f, me, false) * attacks_this_round(world, f) as f32)
        .sum();
    if spared <= 0.0 {
        return None;
    }
    let walk_risk = risk(world, me, &cells, &threats(world, me));
    Some((to, walk_risk, spared))
}

/// Spells worth casting: harm on a foe, healing on a hurt ally.
fn spells(
    world: &World,
    me: Entity,
    (foes, coming): (&[Entity], &[(Entity, Coming)]),
    out: &mut Vec<Appraisal>,
) {
    let Some(m) = world.get::<Memorised>(me) else {
        return;
    };
    let data = &world.resource::<Data>().0;
    let grid = world.resource::<Grid>();
    let here = cell(world, me);
    let who = name(world, me);
    let in_melee: f32 = orders::adjacent_enemies(world, me, here)
        .iter()
        .map(|&x| blow(world, x, me, false))
        .sum();
    for sp in &m.0 {
        let Some(s) = data.spells.get(sp) else {
            continue;
        };
        for t in roster(world)
            .into_iter()
            .filter(|&t| up(world, t) && grid.distance(here, cell(world, t)) <= s.range)
        {
            // Ruling disengage: only the foes it presses are harmed.
            let foe = foes.contains(&t);
            let order = Order::new(&who, "cast").with(sp).target(name(world, t));
            match s.effect {
                SpellEffect::Damage(d) if foe => {
                    let (damage, target_left) = against(world, t, d.mean(), coming);
                    out.push(Appraisal {
                        damage,
                        target_left,
                        risk: in_melee * 2.0,
                        ..Appraisal::plain(order)
                    });
                }
                SpellEffect::Heal(d) if !foe => {
                    let hp = world
                        .get::<HitPoints>(t)
                        .map_or((1, 1), |h| (h.current, h.max));
                    if hp.0 * 2 <= hp.1 {
                        out.push(Appraisal {
                            other: d.mean(),
                            risk: in_melee * 2.0,
                            ..Appraisal::plain(order)
                        });
                    }
                }
                _ => {}
            }
        }
    }
}

/// With nobody in reach: move toward the nearest foe, as far as the rate
/// goes.
fn advance(
    world: &World,
    me: Entity,
    foes: &[Entity],
    able: &[Threatener],
    out: &mut Vec<Appraisal>,
) {
    let grid = world.resource::<Grid>();
    let here = cell(world, me);
    let rate = super::orders::rate_left(world, me) as usize;
    let Some(&f) = foes
        .iter()
        .min_by_key(|&&f| grid.distance(here, cell(world, f)))
    else {
        return;
    };
    let Some((cells, _)) = path(world, me, cell(world, f), 1) else {
        return;
    };
    if cells.is_empty() || rate == 0 {
        return;
    }
    let mut cells: Vec<Cell> = cells.into_iter().take(rate).collect();
    // It stops on a free cell, not on the fallen it may step over (ruling
    // fallen_bodies) nor where another stands.
    let mut taken = orders::occupied(world, me);
    taken.extend(orders::bodies(world, me));
    while cells.last().is_some_and(|c| taken.contains(c)) {
        cells.pop();
    }
    if cells.is_empty() {
        return;
    }
    let to = *cells.last().unwrap_or(&here);
    let before = grid.distance(here, cell(world, f)) as f32;
    let after = grid.distance(to, cell(world, f)) as f32;
    out.push(Appraisal {
        risk: risk(world, me, &cells, able),
        closing: before - after,
        other: 0.05 + world.resource::<Flow>().quiet_rounds.saturating_sub(1) as f32,
        ..Appraisal::plain(Order::new(name(world, me), "move").cell(to))
    });
}
