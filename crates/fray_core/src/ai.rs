//! What a ruleset tells the basic AI about the orders open to a combatant.
//!
//! The basic AI (`fray_ai::BasicAi`) knows no ruleset: it asks the battle's
//! [`AiHooks`] for the legal orders worth considering, each appraised in
//! common terms — expected damage, what the target has left, the risk of
//! reactions provoked on the way, other worth (healing, stabilising), and how
//! much closer it ends to the enemy — and picks the best. A ruleset that
//! provides the hooks is played by the AI with no AI code of its own.

use bevy_ecs::prelude::*;

use crate::decision::Order;

/// One order and what the ruleset expects of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Appraisal {
    pub order: Order,
    /// Expected damage dealt (chance to hit times mean damage past armour).
    pub damage: f32,
    /// What the target has left before it is out of the fight (0: no target).
    pub target_left: f32,
    /// Expected damage taken from reactions (attacks of opportunity, ripostes) it provokes.
    pub risk: f32,
    /// Worth of anything else it does, in damage points (healing, stabilising; small costs negative).
    pub other: f32,
    /// Cells closer to the nearest enemy it ends (negative: farther).
    pub closing: f32,
}

impl Appraisal {
    /// An order with nothing expected of it.
    pub fn plain(order: Order) -> Self {
        Self {
            order,
            damage: 0.0,
            target_left: 0.0,
            risk: 0.0,
            other: 0.0,
            closing: 0.0,
        }
    }

    /// How the basic AI ranks it: damage, more when it can finish the target,
    /// plus other worth, less the risk, with closing in as the tie-breaker.
    pub fn score(&self) -> f32 {
        let finish = if self.target_left > 0.0 {
            (self.damage / self.target_left).min(1.0)
        } else {
            0.0
        };
        self.damage * (1.0 + finish) + self.other - self.risk + 0.01 * self.closing
    }
}

/// The places of `scores`, best first; of equal scores, the earlier first.
/// The places are sorted, not what they score, which may be large.
pub fn best_first(scores: impl IntoIterator<Item = f32>) -> Vec<usize> {
    let scores: Vec<f32> = scores.into_iter().collect();
    let mut places: Vec<usize> = (0..scores.len()).collect();
    places.sort_unstable_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    places
}

/// The places of the `N` best of `scores`, best first; of equal scores,
/// the earlier first: the first `N` of [`best_first`],
/// found without sorting the rest.
pub fn first_best<const N: usize>(scores: impl IntoIterator<Item = f32>) -> Vec<usize> {
    let mut top: Vec<(f32, usize)> = Vec::with_capacity(N + 1);
    for (i, s) in scores.into_iter().enumerate() {
        let at = top.partition_point(|(x, _)| x.total_cmp(&s).is_ge());
        if at < N {
            top.insert(at, (s, i));
            top.truncate(N);
        }
    }
    top.into_iter().map(|(_, i)| i).collect()
}

/// The ruleset's appraisal of the orders worth considering for a combatant,
/// and the rules' own check of an order (the AI gives the best legal one).
#[derive(Resource, Clone, Copy)]
pub struct AiHooks {
    pub appraise: fn(&World, Entity) -> Vec<Appraisal>,
    pub legal: fn(&World, Entity, &Order) -> bool,
    /// What a searching AI counts for each rules step it plays ahead, per
    /// combatant of a duel (a larger field's step counts less for each of
    /// its combatants, `fray_ai::search`): how heavy the ruleset's steps and
    /// appraisals are next to `declared`'s (3, so that a lighter one can
    /// weigh less), so that a search budget takes about the same time under
    /// every ruleset.
    pub step_work: u64,
    /// The work a searching AI spends on a decision by default under this
    /// ruleset ([`STANDARD_SEARCH_WORK`], or more where more futures were
    /// measured to pay and a decision still takes well within 20 ms).
    pub search_work: u64,
    /// What a searching AI counts for each cell a path search expands in
    /// a future (`fray_core::grid::cells_expanded`), beside its steps:
    /// where how far paths are searched varies more from one step to the
    /// next than the steps' own cost does. 0: counted in the steps.
    pub cell_work: u64,
}

/// The work of a standard search decision, in rules steps weighed by
/// [`AiHooks::step_work`]: about 3–5 ms a decision at p50 on a 2-core
/// laptop, whatever the ruleset.
pub const STANDARD_SEARCH_WORK: u64 = 18_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_come_first_and_equals_keep_their_order() {
        assert_eq!(best_first([1.0, 3.0, 2.0, 3.0, -1.0]), vec![1, 3, 2, 0, 4]);
        assert!(best_first([]).is_empty());
    }

    #[test]
    fn finishing_a_target_counts_double() {
        let hit = |damage, left| Appraisal {
            damage,
            target_left: left,
            ..Appraisal::plain(Order::new("a", "attack"))
        };
        assert_eq!(hit(4.0, 4.0).score(), 8.0);
        assert_eq!(hit(4.0, 16.0).score(), 5.0);
        let risky = Appraisal {
            risk: 3.0,
            ..hit(4.0, 16.0)
        };
        assert_eq!(risky.score(), 2.0);
    }

    /// The four best places are those the full ranking puts first, ties
    /// and all, on many lists with many equal scores.
    #[test]
    fn the_four_best_are_the_first_four_of_the_ranking() {
        let mut seed = 0x2545_f491_u32;
        let mut draw = |n: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed % n
        };
        for n in 0..3000 {
            let len = draw(40) as usize;
            let scores: Vec<f32> = (0..len)
                .map(|_| match draw(5) {
                    0 => -0.0,
                    1 => 0.0,
                    _ => draw(9) as f32 * 0.5 - 2.0,
                })
                .collect();
            let ranked: Vec<usize> = best_first(scores.iter().copied())
                .into_iter()
                .take(4)
                .collect();
            assert_eq!(
                first_best::<4>(scores.iter().copied()),
                ranked,
                "list {n}: {scores:?}"
            );
        }
    }
}
