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
        let hooks = *world.get_resource::<AiHooks>()?;
        let mut options: Vec<(f32, usize, Order)> = (hooks.appraise)(world, decision.actor)
            .into_iter()
            .enumerate()
            .map(|(i, a)| (a.score(), i, a.order))
            .collect();
        // Best first; equal scores keep the ruleset's order.
        options.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        options
            .into_iter()
            .map(|(_, _, order)| order)
            .find(|order| (hooks.legal)(world, decision.actor, order))
    }
}
