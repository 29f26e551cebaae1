//! A basic AI for the `declared` ruleset.
//!
//! For each declaration it scores every legal choice by expected damage —
//! chance to hit (d20 + attack against Defense) times the mean damage past
//! Armour, weighted toward targets it can finish — among the targets it can
//! reach this round. It closes in with a Defensive Attack, which provokes no
//! riposte on entering a threat range, and attacks plainly once in reach. A
//! badly hurt creature drinks a draught if it has one; a healer stabilises a
//! fallen ally nearby; a creature that is down waits rather than strain itself.

use bevy_ecs::prelude::*;
use fray_core::decision::{Controller, Decision, Order};
use fray_core::grid::{Cell, Grid, GridGeometry};
use fray_core::model::{Combatant, Fighting, Side};
use fray_rules::declared::data::SpellEffect;
use fray_rules::declared::{self, Data, Flow, Health, Kit, Stats, Stress, WoundPoints};

#[derive(Default)]
pub struct DeclaredAi;

/// Whether the rules would take `order` for `me` (the same check they make).
fn legal(world: &World, me: Entity, order: &Order) -> bool {
    declared::validate(world, me, order).is_ok()
}

/// Chance that d20 + `attack` meets `defense` (a natural 1 misses, a 20 hits).
fn hit_chance(attack: i32, defense: i32) -> f32 {
    let need = (defense - attack).clamp(2, 20);
    (21 - need) as f32 / 20.0
}

struct Foe {
    name: String,
    cell: Cell,
    defense: i32,
    armour: i32,
    left: i32,
    melee_reach: u32,
}

impl Controller for DeclaredAi {
    /// The AI always answers: when nothing better is open to it, it waits.
    fn decide(&mut self, world: &mut World, decision: &Decision) -> Option<Order> {
        Some(
            best_order(world, decision).unwrap_or_else(|| Order::new(&decision.actor_name, "wait")),
        )
    }
}

/// The best order the AI sees, if it sees any.
fn best_order(world: &mut World, decision: &Decision) -> Option<Order> {
    {
        let me = decision.actor;
        let name = decision.actor_name.clone();
        let health = world.get::<Health>(me).copied().unwrap_or(Health::Dead);
        let kit = world.get::<Kit>(me).cloned().unwrap_or_default();
        let stats = world.get::<Stats>(me).cloned()?;
        let wp = world.get::<WoundPoints>(me).copied()?;
        let stress = world.get::<Stress>(me).copied()?;
        let draught = kit
            .items
            .first()
            .map(|i| Order::new(&name, "consumable").with(i));
        if health != Health::Fine {
            return Some(
                draught
                    .filter(|o| legal(world, me, o))
                    .unwrap_or_else(|| Order::new(&name, "wait")),
            );
        }
        if stress.current == 0
            && wp.current * 2 <= wp.max
            && let Some(d) = draught.clone().filter(|o| legal(world, me, o))
        {
            return Some(d);
        }
        let data = world.resource::<Data>().0.clone();
        let side = *world.get::<Side>(me)?;
        let here = *world.get::<Cell>(me)?;
        let mut foes = Vec::new();
        let mut fallen = Vec::new();
        // In listing order, so ties are broken the same way in every world.
        for (e, _) in &world.resource::<Flow>().roster {
            let e = *e;
            let (Some(c), Some(s), Some(cell), Some(h)) = (
                world.get::<Combatant>(e),
                world.get::<Side>(e),
                world.get::<Cell>(e),
                world.get::<Health>(e),
            ) else {
                continue;
            };
            if *s == side {
                if matches!(h, Health::Dying | Health::Incapacitated) {
                    fallen.push((c.name.clone(), *cell));
                }
                continue;
            }
            if world.get::<Fighting>(e).is_none() {
                continue;
            }
            let (Some(st), Some(sr), Some(w), Some(k)) = (
                world.get::<Stats>(e),
                world.get::<Stress>(e),
                world.get::<WoundPoints>(e),
                world.get::<Kit>(e),
            ) else {
                continue;
            };
            let melee_reach = k
                .weapons
                .iter()
                .filter_map(|w| data.weapons.get(w))
                .map(|w| w.reach)
                .max()
                .unwrap_or(0);
            foes.push(Foe {
                name: c.name.clone(),
                cell: *cell,
                defense: 10 + st.agility_mod + st.defense_bonus,
                armour: st.armour,
                left: sr.current.max(0) + w.current.max(0),
                melee_reach,
            });
        }
        let grid = world.resource::<Grid>();
        if stats.heal >= 3 {
            for (ally, cell) in &fallen {
                let o = Order::new(&name, "stabilise").target(ally);
                if grid.distance(here, *cell) <= stats.speed + 1 && legal(world, me, &o) {
                    return Some(o);
                }
            }
        }
        let mut best: Option<(f32, Order)> = None;
        let mut consider = |score: f32, order: Order| {
            if legal(world, me, &order) && best.as_ref().is_none_or(|(s, _)| score > *s) {
                best = Some((score, order));
            }
        };
        for foe in &foes {
            let dist = grid.distance(here, foe.cell);
            for w in &kit.weapons {
                let Some(wd) = data.weapons.get(w) else {
                    continue;
                };
                let shot = wd.reach == 0;
                let reach = if shot { wd.range } else { wd.reach };
                let bonus = if shot { 0 } else { stats.strength_mod };
                let mean = (wd.damage.mean() + bonus as f32 - foe.armour as f32).max(0.0);
                let expected = hit_chance(stats.attack, foe.defense) * mean;
                let finish = (expected / foe.left.max(1) as f32).min(1.0);
                let score = expected * (1.0 + finish);
                if dist <= reach + stats.speed && (wd.reach > 0 || shot) {
                    // Moving into a foe's reach provokes its riposte: close in defensively.
                    let must_move = dist > reach;
                    let provokes = must_move && foe.melee_reach >= reach;
                    let action = if provokes {
                        "defensive_attack"
                    } else {
                        "attack"
                    };
                    consider(
                        score - if provokes { 0.1 } else { 0.0 },
                        Order::new(&name, action).target(&foe.name).with(w),
                    );
                }
                if wd.thrown && dist <= wd.range + stats.speed && dist > 1 {
                    consider(
                        score * 0.9,
                        Order::new(&name, "throw").target(&foe.name).with(w),
                    );
                }
            }
            for s in &kit.spells {
                let Some(spell) = data.spells.get(s) else {
                    continue;
                };
                if let SpellEffect::Damage(dice, _) = spell.effect
                    && dist <= spell.range + stats.speed
                {
                    let p = hit_chance(stats.casting, spell.tn.max(foe.defense));
                    let mean = (dice.mean() - foe.armour as f32).max(0.0);
                    consider(
                        p * mean * 1.05,
                        Order::new(&name, "cast").target(&foe.name).with(s),
                    );
                }
            }
        }
        if let Some((_, order)) = best {
            return Some(order);
        }
        // Nobody in reach this round: advance on the nearest foe, defensively.
        let nearest = foes.iter().min_by_key(|f| grid.distance(here, f.cell))?;
        let weapon = kit.weapons.iter().find(|w| {
            data.weapons
                .get(*w)
                .is_some_and(|d| d.reach > 0 || d.range > 0)
        });
        let mut tries = Vec::new();
        if let Some(w) = weapon {
            tries.push(
                Order::new(&name, "defensive_attack")
                    .target(&nearest.name)
                    .with(w),
            );
        }
        for s in &kit.spells {
            if matches!(
                data.spells.get(s).map(|x| &x.effect),
                Some(SpellEffect::Damage(..))
            ) {
                tries.push(Order::new(&name, "cast").target(&nearest.name).with(s));
            }
        }
        tries.push(Order::new(&name, "defensive_attack").cell(nearest.cell));
        tries.into_iter().find(|o| legal(world, me, o))
    }
}

#[cfg(test)]
mod tests {
    use super::hit_chance;

    #[test]
    fn hit_chance_counts_faces() {
        assert_eq!(hit_chance(4, 14), 0.55);
        assert_eq!(hit_chance(10, 5), 0.95);
        assert_eq!(hit_chance(0, 30), 0.05);
    }
}
