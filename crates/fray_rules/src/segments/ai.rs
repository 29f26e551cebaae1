//! The `segments` ruleset's appraisal of the orders open to a combatant,
//! for the basic AI (`fray_core::ai`).
//!
//! Fighters charge a foe out of reach whom a charge can reach (ruling
//! `charge`: +2 to hit, at the risk of a spear set against it), or close
//! in and attack, whichever is worth more; archers shoot, their
//! missile bonus worth an earlier segment (001 §3 Missile initiative);
//! casters weigh a spell by the chance it goes off unspoiled: the enemies
//! that could strike them before the casting time is over make it less
//! worth it (001 §Note about spells). Interrupts are always taken; a caster
//! begins its spell unless nothing is left to cast it at.

use bevy_ecs::prelude::*;
use fray_core::ai::{AiHooks, Appraisal, STANDARD_SEARCH_WORK};
use fray_core::decision::Order;
use fray_core::grid::{Cell, Grid, GridGeometry};
use fray_core::model::{Combatant, Fighting, Side};

use super::data::{SegmentsData, SpellEffect};
use super::{
    Action, Data, Dead, Flow, HitPoints, Kit, PauseKind, Period, Stage, Stats, SurpriseSegments,
    roster,
};

pub const HOOKS: AiHooks = AiHooks {
    appraise,
    legal,
    // A step costs as much as one of `declared`'s (3): weighed at 2, its
    // searches took 10 to 17 ms at p99 where `declared`'s took 5 to 8.
    step_work: 3,
    // Twice the futures won no more (docs/ai.md, "Searching more").
    search_work: STANDARD_SEARCH_WORK,
    cell_work: 0,
};

fn legal(world: &World, me: Entity, order: &Order) -> bool {
    match world.resource::<Flow>().stage {
        Stage::Asking => super::resolve::validate_answer(world, me, order).is_ok(),
        _ => super::validate(world, me, order).is_ok(),
    }
}

/// Ruling `attack_roll`: the chance that d20 + `bonus` reaches `need`; a
/// natural 20 always hits, a natural 1 always misses.
pub fn hit_chance(need: i32, bonus: i32) -> f32 {
    let faces = (2..=19).filter(|f| f + bonus >= need).count() + 1;
    faces as f32 / 20.0
}

/// Someone on the field, as an appraisal reads it.
struct Other<'w> {
    e: Entity,
    name: &'w str,
    cell: Cell,
    stats: &'w Stats,
    hp: HitPoints,
    kit: &'w Kit,
    enemy: bool,
}

/// What [`survey`] reads of everyone, in one look each: name, place,
/// stats, hit points, kit and side, and whether it can still act
/// (fighting and not dead, as [`able`](super::able) asks).
type Looked = (
    &'static Combatant,
    &'static Cell,
    &'static Stats,
    &'static HitPoints,
    &'static Kit,
    Option<&'static Side>,
    Has<Fighting>,
    Has<Dead>,
);

/// [`Looked`], kept with the world.
pub type OtherQuery = fray_core::model::KeptQuery<Looked>;

/// Everyone else who can still act, in roster order.
fn survey(world: &World, me: Entity) -> Vec<Other<'_>> {
    let mine = world.get::<Side>(me).copied();
    let everyone = roster(world);
    OtherQuery::look(world, |looks| {
        everyone
            .into_iter()
            .filter(|&e| e != me)
            .filter_map(|e| {
                let (c, cell, stats, hp, kit, side, fighting, dead) =
                    looks.get_manual(world, e).ok()?;
                if !fighting || dead {
                    return None;
                }
                Some(Other {
                    e,
                    name: &c.name,
                    cell: *cell,
                    stats,
                    hp: *hp,
                    kit,
                    enemy: matches!((mine, side), (Some(a), Some(&b)) if a != b),
                })
            })
            .collect()
    })
    .unwrap_or_default()
}

/// Expected damage of one routine of `weapon` by `s` against armour class `ac`.
fn routine_damage(data: &SegmentsData, s: &Stats, weapon: &str, ac: i32, bonus: i32) -> f32 {
    let Some(w) = data.weapons.get(weapon) else {
        return 0.0;
    };
    let (hit, dmg) = if w.missile() {
        (s.missile_bonus, 0)
    } else {
        (0, s.damage_bonus)
    };
    w.rate as f32 * hit_chance(s.thac0 - ac, hit + bonus) * (w.damage.mean() + dmg as f32).max(1.0)
}

fn appraise(world: &World, me: Entity) -> Vec<Appraisal> {
    let Some((c, &here, stats, kit)) =
        fray_core::model::components::<(&Combatant, &Cell, &Stats, &Kit)>(world, me)
    else {
        return Vec::new();
    };
    let name = c.name.clone();
    let data = &world.resource::<Data>().0;
    if world.resource::<Flow>().stage == Stage::Asking {
        return answers(world, me, &name, data);
    }
    let grid = world.resource::<Grid>();
    let others = survey(world, me);
    let mut out = vec![Appraisal::plain(Order::new(&name, "wait"))];
    let allies = allies_charging(world, me, &others);
    let nearest = others
        .iter()
        .filter(|o| o.enemy)
        .map(|o| grid.distance(here, o.cell))
        .min()
        .unwrap_or(0);
    for o in others.iter().filter(|o| o.enemy) {
        let dist = grid.distance(here, o.cell);
        let closing = (nearest.min(stats.move_cells)) as f32;
        let back = |reach: u32| back_risk(world, (here, stats), &others, o, reach);
        for w in &kit.weapons {
            let Some(wd) = data.weapons.get(w) else {
                continue;
            };
            let routines = if wd.missile() {
                1.0
            } else {
                stats.routines as f32
            };
            let reaches = dist <= wd.strikes() + stats.move_cells;
            let edge = if wd.missile() {
                0.3 * stats.missile_bonus as f32
            } else {
                0.0
            };
            out.push(Appraisal {
                damage: if reaches {
                    routines * routine_damage(data, stats, w, o.stats.ac, 0)
                } else {
                    0.0
                },
                target_left: o.hp.current as f32,
                other: if reaches { edge } else { 0.0 },
                risk: if reaches && dist > wd.strikes() {
                    back(wd.strikes())
                } else {
                    0.0
                },
                closing: if reaches { closing } else { 0.0 },
                ..Appraisal::plain(Order::new(&name, "attack").target(o.name).with(w))
            });
            let charge = data.ruling_numbers.charge_cells(stats.move_cells);
            // Ruling `charge`: a foe out of reach that a charge, straight
            // at it along a clear line, can reach.
            let runs = || {
                let (run, blocked) = super::combat::charge_line(world, me, o.cell, wd.reach);
                blocked.is_none()
                    && run.len() as u32 <= charge
                    && !crosses(
                        &super::combat::charge_walk(world, me, o.cell, wd.reach, charge),
                        &allies,
                    )
            };
            if !wd.missile() && dist > wd.reach && dist <= wd.reach + charge && runs() {
                let bonus = data.ruling_numbers.charge_bonus;
                let spear = o
                    .kit
                    .weapons
                    .iter()
                    .any(|k| data.weapons.get(k).is_some_and(|x| x.set_vs_charge));
                out.push(Appraisal {
                    damage: routine_damage(data, stats, w, o.stats.ac, bonus),
                    target_left: o.hp.current as f32,
                    risk: back(wd.reach)
                        + if spear {
                            0.5 * routine_damage(data, o.stats, &o.kit.weapons[0], stats.ac, 0)
                                * 2.0
                        } else {
                            0.0
                        },
                    closing: charge.min(dist) as f32,
                    ..Appraisal::plain(Order::new(&name, "charge").target(o.name).with(w))
                });
            }
        }
        for s in &kit.spells {
            out.extend(spell(world, me, &name, s, o, dist, &others));
        }
        out.push(Appraisal {
            closing: (stats.move_cells.min(dist.saturating_sub(1))) as f32,
            risk: if dist > 1 { back(1) } else { 0.0 },
            ..Appraisal::plain(Order::new(&name, "move").cell(o.cell))
        });
    }
    out
}

/// Ruling `charge`: the runs of the charges `me`'s side has declared this
/// round so far (its own orders, known to it): a charge runs straight and
/// someone on its line stops it there.
fn allies_charging(world: &World, me: Entity, others: &[Other<'_>]) -> Vec<Vec<Cell>> {
    let Some(&side) = world.get::<Side>(me) else {
        return Vec::new();
    };
    let data = &world.resource::<Data>().0;
    let answered = world
        .resource::<fray_core::decision::Decisions>()
        .answers_of(side.0)
        .filter(|o| o.action == "charge")
        .filter_map(|o| {
            let ally = others.iter().find(|x| !x.enemy && x.name == o.actor)?.e;
            super::validate(world, ally, o).ok().map(|a| (ally, a))
        })
        .collect::<Vec<_>>();
    let written = world.resource::<Flow>().hidden.iter().cloned();
    answered
        .into_iter()
        .chain(written)
        .filter(|(ally, _)| *ally != me && world.get::<Side>(*ally) == Some(&side))
        .filter_map(|(ally, action)| {
            let Action::Charge { target, weapon } = action else {
                return None;
            };
            let (stats, goal) = (world.get::<Stats>(ally)?, *world.get::<Cell>(target)?);
            let budget = data.ruling_numbers.charge_cells(stats.move_cells);
            let reach = super::combat::reach_of(world, &weapon);
            Some(super::combat::charge_walk(world, ally, goal, reach, budget))
        })
        .collect()
}

/// Whether a charge's `run` and an ally's charge get in each other's way:
/// either ends on the other's line (ruling `charge`), whichever goes first.
fn crosses(run: &[Cell], allies: &[Vec<Cell>]) -> bool {
    allies.iter().any(|other| {
        other.last().is_some_and(|c| run.contains(c))
            || run.last().is_some_and(|c| other.contains(c))
    })
}

/// Ruling `fleeing_attack`: what the foes beside `me` (at `here`) would deal
/// at its back were it to go for `toward` until within `reach` of it: each
/// whose own reach it leaves, a routine at +2. A move pays it; an attack or
/// charge would fight such a foe instead (ruling `general_actions`), and is
/// weighed with it all the same, so that the AI names that foe itself.
fn back_risk(
    world: &World,
    (here, me): (Cell, &Stats),
    others: &[Other<'_>],
    toward: &Other<'_>,
    reach: u32,
) -> f32 {
    let data = &world.resource::<Data>().0;
    let grid = world.resource::<Grid>();
    let bonus = data.ruling_numbers.fleeing_attack_bonus;
    others
        .iter()
        .filter(|x| x.enemy && x.e != toward.e)
        .filter_map(|x| {
            let (w, wd) = x
                .kit
                .weapons
                .iter()
                .find_map(|w| data.weapons.get(w).filter(|d| !d.missile()).map(|d| (w, d)))?;
            let r = wd.strikes();
            let leaves =
                grid.distance(here, x.cell) <= r && grid.distance(x.cell, toward.cell) > r + reach;
            leaves.then(|| routine_damage(data, x.stats, w, me.ac, bonus))
        })
        .sum()
}

/// 001 §Note about spells: a spell is worth its effect times the chance it
/// is not spoiled: the enemies who could strike the caster in the casting
/// time (their chance to hit, each over a d6's worth of segments).
fn spell(
    world: &World,
    me: Entity,
    name: &str,
    s: &str,
    target: &Other,
    dist: u32,
    others: &[Other],
) -> Option<Appraisal> {
    let data = &world.resource::<Data>().0;
    let (sp, stats, &here) = (
        data.spells.get(s)?,
        world.get::<Stats>(me)?,
        world.get::<Cell>(me)?,
    );
    let grid = world.resource::<Grid>();
    if dist > sp.range + stats.move_cells {
        return None;
    }
    let surprise = world.resource::<Flow>().period == Period::Surprise;
    let segment = world.resource::<Flow>().last;
    let mut unspoiled = 1.0;
    for o in others.iter().filter(|o| o.enemy) {
        let surprised = surprise
            && world
                .get::<SurpriseSegments>(o.e)
                .is_some_and(|x| x.0 >= segment);
        let Some(w) = o.kit.weapons.iter().find_map(|w| data.weapons.get(w)) else {
            continue;
        };
        if surprised || grid.distance(here, o.cell) > w.strikes() + o.stats.move_cells {
            continue;
        }
        let p = hit_chance(
            o.stats.thac0 - stats.ac,
            if w.missile() {
                o.stats.missile_bonus
            } else {
                0
            },
        );
        let within = (sp.casting_time as f32 / 6.0).min(1.0);
        unspoiled *= 1.0 - p * within;
    }
    let value = match sp.effect {
        SpellEffect::Damage(d) => d.mean() * unspoiled * 1.2,
        SpellEffect::Heal(_) => return None,
    };
    Some(Appraisal {
        damage: value,
        target_left: target.hp.current as f32,
        ..Appraisal::plain(Order::new(name, "cast").target(target.name).with(s))
    })
}

/// A paused action's question: strike when an interrupt is offered; begin
/// the declared spell.
fn answers(world: &World, me: Entity, name: &str, data: &SegmentsData) -> Vec<Appraisal> {
    let flow = world.resource::<Flow>();
    let Some(p) = &flow.paused else {
        return Vec::new();
    };
    match (&p.kind, &p.slot.action) {
        (PauseKind::BeginCast, Action::Cast { spell, .. }) => {
            let mean = data.spells.get(spell).map_or(0.0, |s| match s.effect {
                SpellEffect::Damage(d) | SpellEffect::Heal(d) => d.mean(),
            });
            vec![
                Appraisal {
                    other: mean,
                    ..Appraisal::plain(Order::new(name, "cast").with(spell))
                },
                Appraisal::plain(Order::new(name, "decline")),
            ]
        }
        _ => {
            let _ = me;
            vec![
                Appraisal {
                    other: 1.0,
                    ..Appraisal::plain(Order::new(name, "strike"))
                },
                Appraisal::plain(Order::new(name, "let_pass")),
            ]
        }
    }
}
