//! The searching AI, for every ruleset: it takes the basic AI's best few
//! orders as candidates and plays each out on a fork of the battle, to the
//! end of the round under way (or of the next, when no other side is asked
//! anything before the round ends), with the basic AI deciding for everyone
//! after it — but for the other sides, which stray from it in those futures
//! as often as they have strayed from it so far, once their orders were in
//! the open (`fray_core::watch`). Each candidate is played with the same
//! dice as the others in each rollout (paired rollouts), keyed by purpose:
//! the same roll for the same purpose shows the same faces in every
//! candidate's future (`Dice::keyed`), so the comparison is between orders,
//! not luck. The basic AI's choice is given unless the futures of another
//! leave its side surely better off.
//!
//! What its side could not know stays unknown: a rollout's dice are its own,
//! never the battle's, and the other sides' secret orders waiting to be
//! revealed are forgotten in every fork, to be decided afresh there by the
//! basic AI from what it sees. (The rules publish a secret batch at once and
//! the driver asks every controller before the next step, so what the other
//! sides wrote down is only ever among the orders waiting to be taken.)
//!
//! The budget is counted in rules steps, each weighed by its ruleset and
//! the size of the field, and where the ruleset says so in the cells its
//! paths expand (`AiHooks::cell_work`), so the same seed gives the same
//! battle; a wall-clock cap only stops a search that runs far over.

use std::time::{Duration, Instant};

use bevy_ecs::prelude::*;
use fray_core::ai::{AiHooks, STANDARD_SEARCH_WORK};
use fray_core::battle::Battle;
use fray_core::decision::{Controller, Decision, Decisions, Order, SmolStr, Thought};
use fray_core::dice::Dice;
use fray_core::model::{BattleResult, Outcome, set_resource};
use fray_core::view::{RulesView, TokenView};

use crate::basic::{mix, varied};

/// How much a searching AI may think about one decision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// The basic AI's best orders it compares.
    pub candidates: usize,
    /// Rollouts of each candidate, at most.
    pub rollouts: u32,
    /// Rounds played ahead in a rollout after the one under way, in a field
    /// of up to 8 combatants; one fewer up to 16; none beyond.
    pub rounds: u32,
    /// The largest field it searches: beyond, a rollout takes longer than
    /// a decision may, and it plays as the basic AI.
    pub largest: u64,
    /// Work over all rollouts, in rules steps weighed by the field and the
    /// ruleset (`step_cost`), and in cells their paths expand where the
    /// ruleset counts them (`AiHooks::cell_work`): no new round of
    /// rollouts starts past it.
    /// None: the ruleset's own (`AiHooks::search_work`).
    pub work: Option<u64>,
    /// Wall-clock cap for the standard work ([`STANDARD_SEARCH_WORK`]),
    /// growing with the work allowed: no new round of rollouts starts past
    /// it.
    pub cap: Duration,
    /// How sure another order must be of beating the basic AI's choice
    /// (its edge, in standard errors) to be taken instead.
    pub sureness: f32,
}

impl Default for Budget {
    fn default() -> Self {
        // A decision takes at most about 20 ms on a 2-core laptop in the
        // shipped scenarios (`fray sim` reports it) with each ruleset's
        // own work. Played to the end of
        // the round under way, a rollout is short enough to be played often:
        // more rollouts of one round judged better than fewer of three.
        Self {
            candidates: 6,
            rollouts: 200,
            rounds: 0,
            largest: 24,
            work: None,
            cap: Duration::from_millis(60),
            sureness: 1.0,
        }
    }
}

/// What a fork costs, in rules steps.
const FORK_STEPS: u64 = 4;

/// What a rules step costs whoever the field holds, in combatants' share:
/// the schedule, the step's bookkeeping, the decision asked.
const STEP_BASE: u64 = 2;

/// What one rules step played ahead counts against the budget, in a field
/// of `combatants`, under a ruleset whose steps weigh `step_work` for each
/// combatant of a duel (`AiHooks::step_work`): a step costs a part of its
/// own ([`STEP_BASE`]) and a part for each combatant, so a step of a 4v4
/// counts two and a half of a duel's, not four.
fn step_cost(step_work: u64, combatants: u64) -> u64 {
    (step_work * 2 * (combatants + STEP_BASE)).div_ceil(2 + STEP_BASE)
}

/// How many standard searches' work `work` is, rounded up: the wall-clock
/// cap grows with it.
fn standards(work: u64) -> u32 {
    u32::try_from(work.div_ceil(STANDARD_SEARCH_WORK).max(1)).unwrap_or(u32::MAX)
}

/// Rollouts of every candidate before any is given up.
const ELIMINATE_AFTER: usize = 8;

/// A candidate order and what its rollouts promised: the mean share of the
/// battle its side held at their end (1: won, 0: lost).
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    pub order: Order,
    pub value: f32,
    pub rollouts: u32,
    /// How sure it is better than the basic AI's choice: the mean of the
    /// paired differences over their standard error.
    pub edge: f32,
    /// The chance of its futures coming out ahead of the basic AI's choice
    /// as often as they did, or more, were the two orders worth the same.
    pub sign: f32,
    /// It is the basic AI's choice.
    pub plain: bool,
}

/// How unlikely it must be that an order came out ahead of the basic AI's
/// choice as often as it did by luck alone before it is taken instead: the
/// chance of one standard error on one side. Where most futures of two
/// orders come out the same, one future ahead gives an edge of about one
/// standard error; the count of futures ahead, not their mean, tells then.
const SIGN_LEVEL: f32 = 0.16;

/// Of the futures in which `v` and `base` differ, the chance that `v` came
/// out ahead in as many as it did or more, were they worth the same (a
/// one-sided sign test).
fn sign(v: &[f32], base: &[f32]) -> f32 {
    let ahead = v.iter().zip(base).filter(|(a, b)| a > b).count();
    let behind = v.iter().zip(base).filter(|(a, b)| a < b).count();
    let n = ahead + behind;
    if n == 0 {
        return 1.0;
    }
    // P(X >= ahead) for X ~ Binomial(n, 1/2), term by term.
    let mut term = 0.5f64.powi(n as i32);
    let mut tail = 0.0;
    for k in 0..=n {
        if k >= ahead {
            tail += term;
        }
        term *= (n - k) as f64 / (k + 1) as f64;
    }
    tail.min(1.0) as f32
}

/// The paired differences of `v` over `base`, rollout by rollout: their
/// mean over its standard error (0 when they never differ, infinite when
/// they always differ by the same).
fn edge(v: &[f32], base: &[f32]) -> f32 {
    let d: Vec<f32> = v.iter().zip(base).map(|(a, b)| a - b).collect();
    let n = d.len() as f32;
    if n < 2.0 {
        return 0.0;
    }
    let mean = d.iter().sum::<f32>() / n;
    let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f32>() / (n - 1.0);
    let se = (var / n).sqrt();
    if se > 0.0 {
        mean / se
    } else if mean > 0.0 {
        f32::INFINITY
    } else if mean < 0.0 {
        f32::NEG_INFINITY
    } else {
        0.0
    }
}

/// Give up the candidates plainly worse than the basic AI's choice (the
/// first) after [`ELIMINATE_AFTER`] rollouts: their share goes to the others.
fn eliminate(alive: &mut [bool], values: &[Vec<f32>], sureness: f32) {
    if values.first().map_or(0, Vec::len) < ELIMINATE_AFTER {
        return;
    }
    for i in 1..alive.len() {
        alive[i] = alive[i] && edge(&values[i], &values[0]) > -sureness / 2.0;
    }
}

/// The searching AI of a side.
pub struct SearchAi {
    pub budget: Budget,
    seed: u64,
    /// A fork kept between decisions, to copy each future into.
    playground: Option<Battle>,
    /// The candidates of the last decision searched: the order given, then
    /// the others, best first.
    pub last: Vec<Estimate>,
    /// The work and the time the last search took.
    pub spent: (u64, Duration),
    /// What each other side's orders heard of so far were.
    seen: Vec<Strays>,
}

/// A side's orders heard of: how many, and of those of another kind than
/// the basic AI would have given, how many of each action.
#[derive(Clone, Debug, Default, PartialEq)]
struct Strays {
    seen: u32,
    kinds: Vec<(SmolStr, u32)>,
}

impl Strays {
    /// How many strayed.
    fn strayed(&self) -> u32 {
        self.kinds.iter().map(|(_, n)| n).sum()
    }

    /// How many strayed to `action`.
    fn to(&self, action: &str) -> u32 {
        self.kinds
            .iter()
            .find(|(a, _)| a == action)
            .map_or(0, |(_, n)| *n)
    }
}

impl SearchAi {
    pub fn new(seed: u64, budget: Budget) -> Self {
        Self {
            budget,
            seed,
            playground: None,
            last: Vec::new(),
            spent: (0, Duration::ZERO),
            seen: Vec::new(),
        }
    }

    /// How often, in a hundred, `side` is played in a future as giving an
    /// order of another kind than the basic AI's: as often as its orders
    /// heard of so far were, one more foreseen order counted with them (so
    /// none before any was heard of, and never all).
    fn unforeseen(&self, side: usize) -> u32 {
        self.seen
            .get(side)
            .map_or(0, |s| 100 * s.strayed() / (s.seen + 1))
    }

    /// Play every candidate out, in rounds of rollouts, each round's dice
    /// shared by all; the estimates, in the candidates' order.
    fn search(
        &mut self,
        world: &World,
        decision: &Decision,
        candidates: &[Order],
        combatants: u64,
    ) -> Result<Vec<Estimate>, String> {
        let started = Instant::now();
        // Each candidate's value in each rollout, rollout by rollout.
        let mut values: Vec<Vec<f32>> = vec![Vec::new(); candidates.len()];
        let rounds = match combatants {
            0..=8 => self.budget.rounds,
            9..=16 => self.budget.rounds.saturating_sub(1),
            _ => 0,
        };
        let mut work = 0;
        let hooks = world.get_resource::<AiHooks>();
        let step_work = hooks.map_or(3, |h| h.step_work.max(1));
        let step_cost = step_cost(step_work, combatants);
        let cell_work = hooks.map_or(0, |h| h.cell_work);
        let budget = self
            .budget
            .work
            .unwrap_or_else(|| hooks.map_or(STANDARD_SEARCH_WORK, |h| h.search_work));
        let cap = self.budget.cap * standards(budget);
        // Candidates still played: one plainly worse than the basic AI's
        // choice after a few rollouts leaves its share to the others.
        let mut alive = vec![true; candidates.len()];
        self.seat_foes(world, decision.side)?;
        for r in 0..self.budget.rollouts {
            let seed = mix(self.seed, decision.id, u64::from(r));
            for (i, order) in candidates.iter().enumerate() {
                if !alive[i] {
                    continue;
                }
                let ground = self.ground(world)?;
                let expanded = fray_core::grid::cells_expanded();
                let steps = play_out(world, ground, decision, order, seed, rounds)?;
                let expanded = fray_core::grid::cells_expanded().wrapping_sub(expanded);
                work += step_cost * (steps + FORK_STEPS) + cell_work * expanded;
                values[i].push(value(ground.world(), decision.side));
            }
            eliminate(&mut alive, &values, self.budget.sureness);
            if work >= budget || started.elapsed() >= cap {
                break;
            }
        }
        self.spent = (work, started.elapsed());
        Ok(candidates
            .iter()
            .zip(&values)
            .enumerate()
            .map(|(i, (order, v))| Estimate {
                order: order.clone(),
                value: v.iter().sum::<f32>() / v.len().max(1) as f32,
                rollouts: v.len() as u32,
                edge: edge(v, &values[0]),
                sign: sign(v, &values[0]),
                plain: i == 0,
            })
            .collect())
    }

    /// The fork futures are played on: kept from decision to decision,
    /// built on the first.
    fn ground(&mut self, world: &World) -> Result<&mut Battle, String> {
        if self.playground.is_none() {
            self.playground = Some(crate::fork::fork(world, false)?);
        }
        Ok(self.playground.as_mut().expect("set just above"))
    }

    /// Seat the other sides of the futures as they have played so far.
    fn seat_foes(&mut self, world: &World, side: usize) -> Result<(), String> {
        let foes: Vec<Unforeseen> = (0..sides(world))
            .map(|s| Unforeseen {
                share: self.unforeseen(s),
                strays: self.seen.get(s).cloned().unwrap_or_default(),
            })
            .collect();
        let ground = self.ground(world)?;
        for (other, foe) in foes.into_iter().enumerate() {
            if other != side {
                ground.set_controller(other, Box::new(foe));
            }
        }
        Ok(())
    }
}

impl Controller for SearchAi {
    fn watches(&self) -> bool {
        true
    }

    fn observed(&mut self, side: usize, action: &str, foreseen: bool) {
        if self.seen.len() <= side {
            self.seen.resize(side + 1, Strays::default());
        }
        let strays = &mut self.seen[side];
        strays.seen += 1;
        if !foreseen {
            match strays.kinds.iter_mut().find(|(a, _)| a == action) {
                Some((_, n)) => *n += 1,
                None => strays.kinds.push((action.into(), 1)),
            }
        }
    }

    fn thoughts(&self) -> Vec<Thought> {
        self.last
            .iter()
            .map(|e| Thought {
                order: e.order.clone(),
                share: e.value,
                futures: e.rollouts,
                plain: e.plain,
            })
            .collect()
    }

    fn decide(&mut self, world: &mut World, decision: &Decision) -> Option<Order> {
        let candidates = candidates(world, decision, self.budget.candidates);
        let combatants = world
            .query::<&fray_core::model::Combatant>()
            .iter(world)
            .count() as u64;
        if candidates.len() < 2 || combatants > self.budget.largest {
            self.last.clear();
            return candidates.into_iter().next();
        }
        let Ok(mut estimates) = self.search(world, decision, &candidates, combatants) else {
            // A battle that cannot be forked is played as the basic AI would.
            self.last.clear();
            return candidates.into_iter().next();
        };
        // The basic AI's choice stands unless another beats it surely
        // enough, by its edge and by how often it came out ahead; the
        // surest of those is taken.
        let sure = self.budget.sureness;
        let best = estimates
            .iter()
            .enumerate()
            .filter(|(_, e)| e.edge > sure && e.sign < SIGN_LEVEL)
            .max_by(|a, b| a.1.edge.total_cmp(&b.1.edge).then(b.0.cmp(&a.0)))
            .map_or(0, |(i, _)| i);
        // The order given first, then the others by their estimates.
        let chosen = estimates.remove(best);
        estimates.sort_by(|a, b| b.value.total_cmp(&a.value));
        estimates.insert(0, chosen);
        self.last = estimates;
        let best = self.last[0].order.clone();
        Some(best)
    }
}

/// The sides of the battle in `world`.
fn sides(world: &World) -> usize {
    world
        .get_resource::<crate::fork::Origin>()
        .map_or(0, crate::fork::Origin::sides)
}

/// Another side in a future played out: the basic AI's choice, but now and
/// then (`share` in a hundred, drawn from the future's dice) the order the
/// basic AI ranks best of a kind drawn among those open to it, each kind
/// weighing 1, and 2 more for each time the side strayed to it before (so a
/// side that always strays the same way is played as straying that way,
/// and the basic AI's choice stands when its kind is drawn). A foe who has
/// strayed from the basic AI's choices may stray again, and an order that
/// pays only against the basic AI (full defense, against a foe who always
/// attacks) must not be counted on against it.
struct Unforeseen {
    share: u32,
    strays: Strays,
}

impl Controller for Unforeseen {
    fn decide(&mut self, world: &mut World, decision: &Decision) -> Option<Order> {
        let roll = if self.share == 0 {
            100
        } else {
            let purpose = format!("{}'s unforeseen order", decision.actor_name);
            world.resource_mut::<Dice>().die(100, purpose).total as u32
        };
        if roll > self.share {
            return crate::basic::best(world, decision.actor);
        }
        // The basic AI's choice first, then the best of each other kind.
        let mut orders = varied(world, decision.actor, 6);
        let mut kinds: Vec<SmolStr> = Vec::new();
        orders.retain(|o| {
            let new = !kinds.contains(&o.action);
            if new {
                kinds.push(o.action.clone());
            }
            new
        });
        let weights: Vec<u32> = orders
            .iter()
            .map(|o| 2 * self.strays.to(&o.action) + 1)
            .collect();
        let purpose = format!("{}'s unforeseen kind", decision.actor_name);
        let die = world
            .resource_mut::<Dice>()
            .die(weights.iter().sum(), purpose);
        let mut left = die.total;
        for (i, &w) in weights.iter().enumerate() {
            if left <= w as i32 {
                return Some(orders.swap_remove(i));
            }
            left -= w as i32;
        }
        orders.into_iter().next()
    }
}

/// The orders worth playing out for `decision`, at most `most`: the basic
/// AI's choice, the best appraised order of each other action, then one of
/// each action the rules offer that the appraisal does not weigh (full
/// defense, intimidation…), then the next best appraised. Those unweighed
/// take at most half the places from the appraised actions.
fn candidates(world: &World, decision: &Decision, most: usize) -> Vec<Order> {
    let mut chosen = varied(world, decision.actor, most);
    let Some(offer) = decision.offer else {
        return chosen;
    };
    let mut kinds: Vec<SmolStr> = Vec::new();
    for o in &chosen {
        if !kinds.contains(&o.action) {
            kinds.push(o.action.clone());
        }
    }
    let mut others: Vec<Order> = Vec::new();
    for choice in offer(world, decision.actor) {
        let new = !kinds.contains(&choice.order.action)
            && !others.iter().any(|o| o.action == choice.order.action);
        if choice.refused.is_none() && new {
            others.push(choice.order);
        }
    }
    // The new kinds take the places of the appraisal's seconds, then of its
    // lowest actions, down to half the places: the best of each appraised
    // action (first in `chosen`) keeps its place while there is room.
    let appraised = kinds.len().min(most.div_ceil(2)).max(1);
    chosen.truncate(appraised.max(most.saturating_sub(others.len())));
    chosen.extend(others);
    chosen.truncate(most);
    chosen
}

/// Play `order` for `decision` on `ground`, a fork of `world` with its own
/// dice from `seed`, until `rounds` rounds after this one have ended or the
/// battle has; how many rules steps it took.
fn play_out(
    world: &World,
    ground: &mut Battle,
    decision: &Decision,
    order: &Order,
    seed: u64,
    rounds: u32,
) -> Result<u64, String> {
    crate::fork::fork_into(world, ground, false)?;
    let w = ground.world_mut();
    {
        let mut decisions = w.resource_mut::<Decisions>();
        decisions.give_back(decision.clone());
        decisions.forget_secret_answers(decision.side);
        decisions.answer(decision.id, order.clone());
    }
    set_resource(w, Dice::keyed(seed).described(false));
    let round = w.resource::<RulesView>().round;
    let mut horizon = Horizon::new(round(w) + rounds + 1);
    let mut steps = 0;
    while steps < 5_000 {
        steps += 1;
        if ground.advance().is_some() {
            break;
        }
        let w = ground.world();
        if horizon.reached(round(w), foe_asked(w, decision)) {
            break;
        }
    }
    Ok(steps)
}

/// Where a future played out ends: once the round `end` is under way —
/// the round of the decision, and `Budget::rounds` more — and another side
/// has been asked to decide since, so that the order is answered. When no
/// other side has been asked by then (the last to act in a round), the
/// future goes on to the end of the next round, however it went there.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Horizon {
    end: u32,
    answered: bool,
}

impl Horizon {
    fn new(end: u32) -> Self {
        Self {
            end,
            answered: false,
        }
    }

    /// Whether the future ends now, in `round`, another side having been
    /// asked to decide just now or not.
    fn reached(&mut self, round: u32, foe_asked: bool) -> bool {
        self.answered |= foe_asked;
        if round < self.end {
            return false;
        }
        if self.answered {
            return true;
        }
        self.answered = true;
        self.end += 1;
        false
    }
}

/// Whether another side than `decision`'s has been asked to decide since.
fn foe_asked(world: &World, decision: &Decision) -> bool {
    world
        .resource::<Decisions>()
        .open()
        .iter()
        .any(|d| d.id > decision.id && d.side != decision.side)
}

/// How well `side` stands in `world`, from 0 (lost) to 1 (won): over a
/// battle not yet decided, its share of the strength still in the field,
/// each combatant up counting half for being up and half for what its bars
/// have left.
pub fn value(world: &World, side: usize) -> f32 {
    if let Some(result) = &world.resource::<Outcome>().0 {
        return match result {
            BattleResult::Victory { side: s, .. } if *s == side => 1.0,
            BattleResult::Victory { .. } => 0.0,
            _ => 0.5,
        };
    }
    let tokens = (world.resource::<RulesView>().tokens)(world);
    let (mut mine, mut all) = (0.0, 0.0);
    for t in &tokens {
        let s = strength(t);
        all += s;
        if t.side == side {
            mine += s;
        }
    }
    if all > 0.0 { mine / all } else { 0.5 }
}

/// What a combatant still brings: nothing once out, else half for being up
/// and half for the mean of its bars.
fn strength(t: &TokenView) -> f32 {
    if t.out || t.gone {
        return 0.0;
    }
    let bars: Vec<f32> = t
        .bars
        .iter()
        .filter(|b| b.max > 0)
        .map(|b| b.current.clamp(0, b.max) as f32 / b.max as f32)
        .collect();
    let left = if bars.is_empty() {
        1.0
    } else {
        bars.iter().sum::<f32>() / bars.len() as f32
    };
    0.5 + 0.5 * left
}

#[cfg(test)]
mod tests {
    use super::{Horizon, SearchAi, Strays, Unforeseen, edge, eliminate, sign, step_cost};
    use fray_core::decision::{Controller, Decisions, Order};

    #[test]
    fn a_foe_strays_in_the_futures_as_often_as_it_has_strayed() {
        let mut search = SearchAi::new(1, super::Budget::default());
        assert_eq!(search.unforeseen(1), 0, "nothing heard of yet");
        search.observed(1, "wait", false);
        assert_eq!(
            search.unforeseen(1),
            50,
            "one of two, the one counted foreseen"
        );
        search.observed(1, "attack", true);
        search.observed(1, "wait", false);
        assert_eq!(search.unforeseen(1), 50, "two of four");
        assert_eq!(search.unforeseen(0), 0, "another side");
        for _ in 0..6 {
            search.observed(1, "attack", true);
        }
        assert_eq!(search.unforeseen(1), 20, "two of ten");
        let strays = &search.seen[1];
        assert_eq!((strays.to("wait"), strays.to("attack")), (2, 0));
    }

    #[test]
    fn a_foe_strays_to_the_kinds_it_strayed_to() {
        let text = r#"(
    name: "t", ruleset: "declared",
    grid: (kind: Square, width: 10, height: 10),
    sides: [(name: "A", seat: Human), (name: "B", seat: Human)],
    combatants: [
        (name: "Anna", side: "A", template: "knight", at: (1, 1)),
        (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (2, 1)),
    ],
)"#;
        let mut battle = crate::battle_from_text(text, 1).unwrap();
        battle.run();
        let world = battle.world_mut();
        let decision = world.resource::<Decisions>().open()[0].clone();
        let basic = crate::basic::BasicAi.decide(world, &decision).unwrap();
        let foe = |share, strays| Unforeseen { share, strays };
        let never = foe(0, Strays::default()).decide(world, &decision);
        assert_eq!(never, Some(basic.clone()));
        // Straying, to a kind it strayed to a thousand times: the best
        // order of that kind, all but surely.
        let other = super::varied(world, decision.actor, 6)
            .into_iter()
            .rfind(|o| o.action != basic.action)
            .unwrap();
        let strays = |kind: &Order| Strays {
            seen: 1000,
            kinds: vec![(kind.action.clone(), 1000)],
        };
        let picked = foe(100, strays(&other)).decide(world, &decision);
        assert_eq!(picked.map(|o| o.action), Some(other.action.clone()));
        // Straying to the kind the basic AI gives is no straying.
        let same = foe(100, strays(&basic)).decide(world, &decision);
        assert_eq!(same, Some(basic));
    }

    #[test]
    fn a_step_counts_a_part_of_its_own_and_a_part_for_each_combatant() {
        // A duel's step counts its ruleset's weight for each combatant.
        assert_eq!(step_cost(3, 2), 6);
        assert_eq!(step_cost(10, 2), 20);
        // A 4v4's, two and a half of a duel's; three combatants', one and
        // a quarter (rounded up).
        assert_eq!(step_cost(3, 8), 15);
        assert_eq!(step_cost(2, 3), 5);
        assert_eq!(step_cost(9, 24), 117);
    }

    #[test]
    fn an_edge_is_the_mean_difference_over_its_standard_error() {
        // Differences 1, 0, 1: mean 2/3, standard error 1/3.
        assert!((edge(&[1.0, 0.0, 1.0], &[0.0, 0.0, 0.0]) - 2.0).abs() < 1e-5);
        assert_eq!(edge(&[0.5, 0.5], &[0.25, 0.25]), f32::INFINITY);
        assert_eq!(edge(&[0.25, 0.25], &[0.5, 0.5]), f32::NEG_INFINITY);
        assert_eq!(edge(&[0.5, 0.25], &[0.5, 0.25]), 0.0);
        assert_eq!(edge(&[1.0], &[0.0]), 0.0, "one future says nothing");
    }

    #[test]
    fn a_sign_is_the_chance_of_coming_out_ahead_as_often_by_luck() {
        let base = [0.5; 6];
        // Ahead once, the same five times: an edge of one standard error,
        // but one future in two comes out ahead by luck.
        let once = [0.75, 0.5, 0.5, 0.5, 0.5, 0.5];
        assert!((edge(&once, &base) - 1.0).abs() < 1e-5);
        assert_eq!(sign(&once, &base), 0.5);
        // Ahead three times of three: one chance in eight.
        let thrice = [0.75, 0.75, 0.5, 0.75, 0.5, 0.5];
        assert_eq!(sign(&thrice, &base), 0.125);
        // Ahead five times and behind once: 7 chances in 64.
        let mostly = [0.75, 0.75, 0.75, 0.75, 0.75, 0.25];
        assert!((sign(&mostly, &base) - 7.0 / 64.0).abs() < 1e-6);
        assert_eq!(sign(&base, &base), 1.0, "never different");
    }

    #[test]
    fn an_order_plainly_worse_than_the_basic_choice_is_given_up() {
        let base = [0.5, 0.25, 1.0, 0.5, 0.5, 0.25, 1.0, 0.5];
        let mut values = vec![
            base.to_vec(),
            base.to_vec(),                                  // the same again
            base.iter().map(|v| v - 0.25).collect(),        // always worse
            vec![0.0, 0.25, 1.0, 0.5, 0.5, 0.25, 1.0, 0.5], // worse once
            vec![0.25, 0.5, 1.0, 0.5, 0.5, 0.25, 1.0, 0.5], // worse once, better once
        ];
        let mut alive = vec![true; values.len()];
        eliminate(&mut alive, &values, 1.0);
        assert_eq!(alive, [true, true, false, false, true]);
        // Not before every order has had its eight futures.
        for v in &mut values {
            v.pop();
        }
        let mut alive = vec![true; values.len()];
        eliminate(&mut alive, &values, 1.0);
        assert_eq!(alive, [true; 5]);
    }

    #[test]
    fn a_future_ends_with_its_round_once_another_side_was_asked() {
        let mut h = Horizon::new(2);
        assert!(!h.reached(1, false));
        assert!(!h.reached(1, true));
        assert!(h.reached(2, false));
    }

    #[test]
    fn a_future_no_other_side_was_asked_in_goes_on_a_round() {
        let mut h = Horizon::new(2);
        assert!(!h.reached(1, false));
        assert!(!h.reached(2, false), "nobody answered the order yet");
        assert!(!h.reached(2, false));
        assert!(h.reached(3, false), "one round more, however it went");
    }
}
