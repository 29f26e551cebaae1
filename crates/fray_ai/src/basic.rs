//! The basic AI, for every ruleset: it asks the ruleset's [`AiHooks`] to
//! appraise the orders open to the combatant and gives the best — most
//! expected damage (more when it finishes a target), plus other worth, less
//! the risk of reactions it provokes, closing on the enemy as a tie-breaker.
//! With no hooks, or nothing appraised, it gives no order (a person decides).

use bevy_ecs::prelude::*;
use fray_core::ai::AiHooks;
use fray_core::decision::{Controller, Decision, Order};

#[derive(Default)]
pub struct BasicAi;

impl Controller for BasicAi {
    fn decide(&mut self, world: &mut World, decision: &Decision) -> Option<Order> {
        best(world, decision.actor)
    }
}

/// The basic AI's choice for `actor`: the legal order it appraises best
/// (of equal scores, the first appraised), found without putting the
/// others in order.
pub fn best(world: &World, actor: Entity) -> Option<Order> {
    let hooks = world.get_resource::<AiHooks>().copied()?;
    let mut all = (hooks.appraise)(world, actor);
    let mut scores: Vec<Option<f32>> = all.iter().map(|a| Some(a.score())).collect();
    loop {
        // The highest score left, the first appraised among equals.
        let mut top: Option<(usize, f32)> = None;
        for (i, s) in scores.iter().enumerate() {
            if let &Some(s) = s
                && top.is_none_or(|(_, t)| s.total_cmp(&t).is_gt())
            {
                top = Some((i, s));
            }
        }
        let (i, _) = top?;
        scores[i] = None;
        let order = std::mem::take(&mut all[i].order);
        if (hooks.legal)(world, actor, &order) {
            return Some(order);
        }
    }
}

/// Up to `most` legal orders for `actor` of as many kinds as there are:
/// the basic AI's choice first, then the best of each other action, then
/// the next best of any; so an order the appraisal undervalues is still
/// weighed by whoever looks further.
pub fn varied(world: &World, actor: Entity, most: usize) -> Vec<Order> {
    let all: Vec<Order> = by_score(world, actor)
        .into_iter()
        .filter(|o| legal(world, actor, o))
        .collect();
    let mut chosen: Vec<Order> = Vec::new();
    for order in &all {
        if chosen.len() < most && !chosen.iter().any(|c| c.action == order.action) {
            chosen.push(order.clone());
        }
    }
    for order in &all {
        if chosen.len() < most && !chosen.contains(order) {
            chosen.push(order.clone());
        }
    }
    chosen
}

/// The orders the ruleset appraises for `actor`, best first (equal scores
/// in the ruleset's order).
pub(crate) fn by_score(world: &World, actor: Entity) -> Vec<Order> {
    let (mut orders, places) = appraised(world, actor);
    places
        .into_iter()
        .map(|i| std::mem::take(&mut orders[i]))
        .collect()
}

/// The orders the ruleset appraises for `actor`, as appraised, and their
/// places best first (of equal scores, the one appraised first): the
/// places are sorted, not the orders.
fn appraised(world: &World, actor: Entity) -> (Vec<Order>, Vec<usize>) {
    let Some(hooks) = world.get_resource::<AiHooks>().copied() else {
        return (Vec::new(), Vec::new());
    };
    let all = (hooks.appraise)(world, actor);
    let places = fray_core::ai::best_first(all.iter().map(fray_core::ai::Appraisal::score));
    (all.into_iter().map(|a| a.order).collect(), places)
}

/// Whether the rules would take `order` for `actor`.
pub(crate) fn legal(world: &World, actor: Entity, order: &Order) -> bool {
    world
        .get_resource::<AiHooks>()
        .is_some_and(|h| (h.legal)(world, actor, order))
}

/// Every legal order the ruleset appraises for `actor`, in its order.
pub fn every_legal(world: &World, actor: Entity) -> Vec<Order> {
    let Some(hooks) = world.get_resource::<AiHooks>().copied() else {
        return Vec::new();
    };
    let mut legal: Vec<Order> = Vec::new();
    for a in (hooks.appraise)(world, actor) {
        if !legal.contains(&a.order) && (hooks.legal)(world, actor, &a.order) {
            legal.push(a.order);
        }
    }
    legal
}

/// The fixed greedy policy: the legal order the ruleset expects to deal the
/// most damage, or, dealing none, the one that closes most on the enemy;
/// risk, finishing a target and every other worth unweighed. A simple
/// fixed policy of the kind a player falls back on, and a baseline the
/// other levels are measured against.
#[derive(Default)]
pub struct GreedyAi;

impl Controller for GreedyAi {
    fn decide(&mut self, world: &mut World, decision: &Decision) -> Option<Order> {
        let hooks = world.get_resource::<AiHooks>().copied()?;
        let mut all = (hooks.appraise)(world, decision.actor);
        // Stable: of equals, the one the ruleset appraised first.
        all.sort_by(|a, b| {
            b.damage
                .total_cmp(&a.damage)
                .then(b.closing.total_cmp(&a.closing))
        });
        all.into_iter()
            .map(|a| a.order)
            .find(|o| legal(world, decision.actor, o))
    }
}

/// A random legal order for each decision: a baseline to measure the other
/// levels against. Each choice is drawn from the seed and the decision
/// alone, so a battle replays the same however it was stopped and loaded.
pub struct RandomAi {
    pub seed: u64,
}

impl Controller for RandomAi {
    fn decide(&mut self, world: &mut World, decision: &Decision) -> Option<Order> {
        let mut legal = every_legal(world, decision.actor);
        if legal.is_empty() {
            return None;
        }
        let mut dice = fray_core::dice::Dice::seeded(mix(self.seed, decision.id, 0));
        let face = dice.die(legal.len() as u32, "random order").total;
        Some(legal.swap_remove(face as usize - 1))
    }
}

/// One seed from three numbers (SplitMix64's finaliser over their mix).
pub fn mix(a: u64, b: u64, c: u64) -> u64 {
    let mut z = a ^ b.rotate_left(21) ^ c.rotate_left(42) ^ 0x9e37_79b9_7f4a_7c15;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::{best, by_score, legal};
    use bevy_ecs::prelude::*;
    use fray_core::decision::Decisions;

    /// The basic AI's choice is the first legal order of the whole ranking,
    /// at every decision of a battle of every shipped scenario.
    #[test]
    fn the_choice_is_the_first_legal_order_of_the_ranking() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/scenarios");
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        paths.sort();
        for path in paths {
            let (scenario, data) = crate::load_scenario(&path).unwrap();
            let options = crate::BattleOptions {
                seed: 5,
                all_ai: true,
                ..crate::BattleOptions::default()
            };
            let mut battle = crate::build_battle(&scenario, &data, &options).unwrap();
            let mut compared = 0;
            loop {
                let world = battle.world();
                let actors: Vec<Entity> = world
                    .resource::<Decisions>()
                    .open()
                    .iter()
                    .map(|d| d.actor)
                    .collect();
                for actor in actors {
                    let ranked = by_score(world, actor);
                    let first = ranked.into_iter().find(|o| legal(world, actor, o));
                    assert_eq!(best(world, actor), first, "{}", path.display());
                    compared += 1;
                }
                if battle.advance().is_some() {
                    break;
                }
            }
            assert!(compared > 10, "{}: {compared}", path.display());
        }
    }
}
