//! What a side learns of the others' orders once they are in the open:
//! whether each was of the kind the basic AI would have given in its place.
//! A searching AI weighs by it how far its foes may stray from the basic
//! AI in the futures it plays out.
//!
//! An order is heard of only once the round it was given in has ended, so
//! a secret declaration stays unknown until the rules have revealed it (004
//! §Step 3, 001 §2 and 000 §3.2 all reveal within the round).

use bevy_ecs::prelude::*;

use crate::decision::{Controller, Order, SmolStr};
use crate::log::BattleLog;

/// The order the basic AI would give `actor` now: set by whoever builds
/// the battle, for the controllers that watch.
pub type Foresight = fn(&World, Entity) -> Option<Order>;

/// The orders given and not yet heard of, and how to foresee them.
#[derive(Default)]
pub(crate) struct Watch {
    pub foresight: Option<Foresight>,
    pending: Vec<Seen>,
}

/// One order given: for which decision, by which side, in which round, its
/// action, and whether it was of the kind foreseen.
struct Seen {
    decision: u64,
    side: usize,
    round: u32,
    action: SmolStr,
    foreseen: bool,
}

impl Watch {
    /// Note the order given for `decision` by `side`'s `actor`, when a
    /// controller of another side watches; an order given again for the
    /// same decision (refused, or taken back) replaces the first.
    pub fn note(
        &mut self,
        world: &World,
        controllers: &[Box<dyn Controller>],
        (decision, side, actor): (u64, usize, Entity),
        order: &Order,
    ) {
        let Some(foresee) = self.foresight else {
            return;
        };
        let watched = controllers
            .iter()
            .enumerate()
            .any(|(s, c)| s != side && c.watches());
        if !watched {
            return;
        }
        let foreseen = foresee(world, actor).is_some_and(|o| o.action == order.action);
        self.pending.retain(|s| s.decision != decision);
        self.pending.push(Seen {
            decision,
            side,
            round: world.resource::<BattleLog>().round,
            action: order.action.clone(),
            foreseen,
        });
    }

    /// Tell the other sides' controllers of every order whose round has
    /// ended.
    pub fn deliver(&mut self, world: &World, controllers: &mut [Box<dyn Controller>]) {
        if self.pending.is_empty() {
            return;
        }
        let now = world.resource::<BattleLog>().round;
        self.pending.retain(|seen| {
            if seen.round >= now {
                return true;
            }
            for (s, c) in controllers.iter_mut().enumerate() {
                if s != seen.side {
                    c.observed(seen.side, &seen.action, seen.foreseen);
                }
            }
            false
        });
    }
}
