//! Decisions and orders (DESIGN.md seam 2).
//!
//! When the rules need a choice they *publish* a [`Decision`]: who decides,
//! for which combatant, and the choices the rules would take, each either
//! legal or refused with a reason. A controller answers with an [`Order`]. The
//! rules validate every order when they take it: an illegal one is refused
//! with a reason in the log and changes nothing, and the decision stays open.
//! Secret decisions are all published before any is answered, and the rules
//! reveal them together.

use bevy_ecs::prelude::*;
use serde::{Deserialize, Serialize};
/// A short name as an order carries it: copied, not allocated, when short.
pub use smol_str::SmolStr;

use crate::grid::Cell;

/// What a controller tells the rules to do. The same shape serves every
/// ruleset: an action named in the ruleset's data, and what it needs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Order {
    /// The combatant the order is for, by name.
    pub actor: SmolStr,
    /// The action, as the ruleset names it (`attack`, `full_defense` …).
    pub action: SmolStr,
    /// The combatant the action is aimed at, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<SmolStr>,
    /// A cell to move toward.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell: Option<Cell>,
    /// A cell to move on to once the action is done, where a ruleset lets
    /// movement be split before and after it (crucible, 003 §III D).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub then: Option<Cell>,
    /// The weapon, spell or item used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub with: Option<SmolStr>,
}

impl Order {
    pub fn new(actor: impl Into<SmolStr>, action: impl Into<SmolStr>) -> Self {
        Self {
            actor: actor.into(),
            action: action.into(),
            ..Self::default()
        }
    }

    pub fn target(mut self, target: impl Into<SmolStr>) -> Self {
        self.target = Some(target.into());
        self
    }

    pub fn with(mut self, with: impl Into<SmolStr>) -> Self {
        self.with = Some(with.into());
        self
    }

    pub fn cell(mut self, cell: Cell) -> Self {
        self.cell = Some(cell);
        self
    }

    /// The cell to move on to once the action is done.
    pub fn then(mut self, cell: Cell) -> Self {
        self.then = Some(cell);
        self
    }

    /// The weapon, spell or item the order names, as the rules keep it.
    pub fn with_name(&self) -> Option<String> {
        self.with.as_ref().map(ToString::to_string)
    }

    /// The spell or item the order names `with`, which must be one of `has`
    /// (what the actor knows or carries, `what` it is); else why not.
    pub fn with_one_of(&self, what: &str, has: &[String]) -> Result<String, String> {
        let name = self
            .with
            .as_deref()
            .ok_or_else(|| format!("{} needs a {what} (with: \"...\")", self.action))?;
        if has.iter().any(|h| h == name) {
            Ok(name.to_string())
        } else {
            Err(format!("{} has no {what} {name:?}", self.actor))
        }
    }
}

/// One of the things a decision offers.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub order: Order,
    /// How a player reads it ("Attack the ghoul with the longsword (+2)").
    pub label: String,
    /// Why the rules would refuse it, if they would.
    pub refused: Option<String>,
}

impl Choice {
    pub fn legal(order: Order, label: impl Into<String>) -> Self {
        Self {
            order,
            label: label.into(),
            refused: None,
        }
    }

    pub fn refused(order: Order, label: impl Into<String>, why: impl Into<String>) -> Self {
        Self {
            order,
            label: label.into(),
            refused: Some(why.into()),
        }
    }
}

/// A choice the rules are waiting for.
#[derive(Clone, Debug)]
pub struct Decision {
    pub id: u64,
    /// The side whose controller decides.
    pub side: usize,
    /// The combatant the decision is for.
    pub actor: Entity,
    pub actor_name: String,
    /// What is asked, in words ("Brienne: declare an action for round 3"):
    /// empty where nobody reads it ([`in_words`], built with [`prompt`]).
    pub prompt: String,
    /// The paragraph that asks for it.
    pub rule: String,
    pub choices: Vec<Choice>,
    /// Whether the answer stays hidden from other sides until revealed.
    pub secret: bool,
    /// Whether an order may also name any destination cell.
    pub any_cell: bool,
    /// The order that moves toward a clicked cell, with `cell` left to fill in.
    pub move_order: Option<Order>,
    /// Everything the rules would offer a person here, for whoever wants the
    /// whole list (`choices` is filled for people only).
    pub offer: Option<fn(&World, Entity) -> Vec<Choice>>,
}

/// An order that the rules would not take, for the controller to hear about.
#[derive(Clone, Debug)]
pub struct Refusal {
    pub decision: u64,
    pub side: usize,
    pub order: Order,
    pub reason: String,
}

/// An order given for a decision, as a battle file keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Given {
    pub decision: u64,
    /// How many times the rules had run when it was given: a replay gives
    /// it at the same moment.
    pub at: u64,
    pub order: Order,
    /// Why the rules refused it, when they did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// Whether it was written in secret (a battle file keeps a secret
    /// order refused only as [`Given::kept_secret`] makes it).
    #[serde(skip)]
    pub secret: bool,
}

impl Given {
    /// The order as a battle file keeps it: a secret one refused is never
    /// revealed, so it is kept as a written order ([`WRITTEN`]) refused,
    /// without what it was or why, and is refused again when replayed.
    pub fn kept_secret(&mut self) {
        if self.secret && self.refused.is_some() {
            self.order = Order::new(self.order.actor.clone(), WRITTEN);
            self.refused = Some(format!("{WRITTEN}: a written order, refused"));
        }
    }
}

/// What a battle file keeps of a secret order refused: an action no
/// ruleset has, so that it is refused again when the file is replayed.
pub const WRITTEN: &str = "written";

/// The open decisions and the orders given for them, a resource.
#[derive(Resource, Debug, Default, Clone)]
pub struct Decisions {
    open: Vec<Decision>,
    answered: Vec<(u64, Order)>,
    refusals: Vec<Refusal>,
    /// Every order given, in the order given, once [`Decisions::record`]
    /// asks for it (a battle that may be saved).
    given: Option<Vec<Given>>,
    /// How many times the rules have run.
    steps: u64,
    next_id: u64,
    /// Where the decision lent to a controller stood among the open ones.
    lent_at: Option<usize>,
    /// How many orders had been given, and how many times the rules had
    /// run, when the secret decisions open now began to be published.
    secret_from: (usize, u64),
    /// Bumped on every change, so a driver can tell whether anything moved.
    pub generation: u64,
}

impl Decisions {
    /// Publish a decision; its `id` is assigned here and returned.
    pub fn publish(&mut self, mut decision: Decision) -> u64 {
        if decision.secret && !self.writing_in_secret() {
            self.secret_from = (self.given().len(), self.steps);
        }
        self.next_id += 1;
        decision.id = self.next_id;
        self.open.push(decision);
        self.generation += 1;
        self.next_id
    }

    /// Keep every order given from now on, for a battle file.
    pub fn record(&mut self) {
        self.given.get_or_insert_with(Vec::new);
    }

    /// The rules ran once more.
    pub fn stepped(&mut self) {
        self.steps += 1;
    }

    /// How many decisions have been published.
    pub fn published(&self) -> u64 {
        self.next_id
    }

    /// How many times the rules have run.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Every order given since [`Decisions::record`], in the order given.
    pub fn given(&self) -> &[Given] {
        self.given.as_deref().unwrap_or(&[])
    }

    /// Take decision `id` out while its controller reads the world; the
    /// others stay open, as the rules left them.
    ///
    /// The last open decision stands in its place meanwhile, so that
    /// lending one of many moves one, not all those after it.
    pub fn lend(&mut self, id: u64) -> Option<Decision> {
        let i = self.open.iter().position(|d| d.id == id)?;
        self.lent_at = Some(i);
        Some(self.open.swap_remove(i))
    }

    /// Put a lent decision back where it was, and the one that stood in
    /// for it back at the end.
    pub fn give_back(&mut self, decision: Decision) {
        self.open.push(decision);
        let last = self.open.len() - 1;
        let i = self.lent_at.take().unwrap_or(last).min(last);
        self.open.swap(i, last);
    }

    /// The answers given for `side`'s open decisions, not yet taken by the
    /// rules: a side knows what its own have written down.
    pub fn answers_of(&self, side: usize) -> impl Iterator<Item = &Order> + '_ {
        self.answered
            .iter()
            .filter(move |(id, _)| self.open.iter().any(|d| d.id == *id && d.side == side))
            .map(|(_, o)| o)
    }

    /// Forget the answers waiting for the open secret decisions of sides
    /// other than `side`: what that side could not know yet.
    pub fn forget_secret_answers(&mut self, side: usize) {
        let open = &self.open;
        self.answered.retain(|(id, _)| {
            !open
                .iter()
                .any(|d| d.id == *id && d.secret && d.side != side)
        });
    }

    /// Copy these decisions into `there`, a fork's: the orders given so
    /// far kept only with its log (`keep`), as a fork played out and thrown
    /// away needs none of them. The fork's room is reused.
    pub fn fork_into(&self, keep: bool, there: &mut Self) {
        there.open.clone_from(&self.open);
        there.answered.clone_from(&self.answered);
        there.refusals.clone_from(&self.refusals);
        match (&self.given, keep) {
            (Some(given), true) => there.given.get_or_insert_default().clone_from(given),
            _ => there.given = None,
        }
        there.steps = self.steps;
        there.next_id = self.next_id;
        there.lent_at = self.lent_at;
        there.secret_from = self.secret_from;
        there.generation = self.generation;
    }

    pub fn open(&self) -> &[Decision] {
        &self.open
    }

    /// Whether orders are being written down in secret: a secret decision
    /// is open. The rules publish a secret batch at once and reveal it once
    /// every order of it is in, so until then what any side wrote down, or
    /// weighed writing, is its own.
    pub fn writing_in_secret(&self) -> bool {
        self.open.iter().any(|d| d.secret)
    }

    /// The orders a side may see and the moment they reach: every order
    /// given, but while orders are written in secret only those given
    /// before the first of them was asked for, with the number of times
    /// the rules had run then. What is written in secret stays off a
    /// battle file until it is revealed.
    pub fn shown(&self) -> (&[Given], u64) {
        if self.writing_in_secret() {
            let (given, steps) = self.secret_from;
            (&self.given()[..given.min(self.given().len())], steps)
        } else {
            (self.given(), self.steps)
        }
    }

    pub fn get(&self, id: u64) -> Option<&Decision> {
        self.open.iter().find(|d| d.id == id)
    }

    /// Whether an order waits to be taken for decision `id`.
    pub fn is_answered(&self, id: u64) -> bool {
        self.answered.iter().any(|(d, _)| *d == id)
    }

    /// A controller's answer; the rules take it on their next step.
    pub fn answer(&mut self, id: u64, order: Order) {
        if let Some(given) = &mut self.given {
            given.push(Given {
                decision: id,
                at: self.steps,
                order: order.clone(),
                refused: None,
                secret: self.open.iter().any(|d| d.id == id && d.secret),
            });
        }
        self.answered.retain(|(d, _)| *d != id);
        self.answered.push((id, order));
        self.generation += 1;
    }

    /// The orders waiting to be taken, each with the decision it answers.
    pub fn waiting(&self) -> impl Iterator<Item = (&Decision, &Order)> {
        self.answered
            .iter()
            .filter_map(|(id, order)| self.get(*id).map(|d| (d, order)))
    }

    /// The answers waiting, for the rules to validate.
    pub fn take_answers(&mut self) -> Vec<(u64, Order)> {
        std::mem::take(&mut self.answered)
    }

    /// Close the decisions `ids`, their orders taken, in one pass over the
    /// open ones (a thousand declarations taken at once stay cheap); each
    /// comes back in the place of its id, `None` for one not open.
    pub fn close_many(&mut self, ids: &[u64]) -> Vec<Option<Decision>> {
        let mut wanted: Vec<(u64, usize)> = ids.iter().copied().zip(0..).collect();
        wanted.sort_unstable();
        let mut closed: Vec<Option<Decision>> = ids.iter().map(|_| None).collect();
        let mut kept = Vec::with_capacity(self.open.len());
        for d in self.open.drain(..) {
            match wanted.binary_search_by_key(&d.id, |w| w.0) {
                Ok(k) => closed[wanted[k].1] = Some(d),
                Err(_) => kept.push(d),
            }
        }
        self.open = kept;
        self.generation += closed.iter().flatten().count() as u64;
        closed
    }

    /// Close every open decision (the battle ended, or the question lapsed).
    pub fn close_all(&mut self) {
        if !self.open.is_empty() {
            self.generation += 1;
        }
        self.open.clear();
        self.answered.clear();
    }

    /// Note that an order for `id` was refused; the decision stays open.
    pub fn refuse(&mut self, id: u64, order: Order, reason: impl Into<String>) {
        let side = self.get(id).map_or(usize::MAX, |d| d.side);
        let reason = reason.into();
        if let Some(given) = &mut self.given
            && let Some(g) = given.iter_mut().rev().find(|g| g.decision == id)
        {
            g.refused = Some(reason.clone());
        }
        self.refusals.push(Refusal {
            decision: id,
            side,
            order,
            reason,
        });
        self.generation += 1;
    }

    /// Refusals not yet heard by the controllers.
    pub fn take_refusals(&mut self) -> Vec<Refusal> {
        std::mem::take(&mut self.refusals)
    }
}

/// What a ruleset asks of a combatant's side, to be published as a [`Decision`].
pub struct Question {
    pub actor: Entity,
    /// What is asked, in words ("Brienne: declare an action for round 3"):
    /// empty where nobody reads it ([`in_words`], built with [`prompt`]).
    pub prompt: String,
    /// The paragraph that asks for it.
    pub rule: String,
    /// Whether the answer stays hidden from other sides until revealed.
    pub secret: bool,
    /// The order that moves toward a clicked cell, with `cell` left to fill in.
    pub move_order: Option<Order>,
    /// The choices the rules would take, listed for a person only: the
    /// computer asks the ruleset's appraisal, and every order is checked
    /// when it is taken whoever gives it.
    pub choices: fn(&World, Entity) -> Vec<Choice>,
}

/// The side `actor` fights for (the first, for a stranger).
fn side_of(world: &World, actor: Entity) -> usize {
    world.get::<crate::model::Side>(actor).map_or(0, |s| s.0)
}

/// Whether a person answers for `side`.
fn seated_human(world: &World, side: usize) -> bool {
    world
        .resource::<crate::model::Sides>()
        .0
        .get(side)
        .is_some_and(|s| s.seat == crate::model::Seat::Human)
}

/// Whether a question to `actor` is put in words ([`Question::prompt`]): a
/// person answers for its side, or the log keeps what happens (a battle
/// played, watched or replayed). In a batch of battles between AIs, and in
/// every future a search plays out, nobody reads the words: the question
/// is asked without them (an empty prompt).
pub fn in_words(world: &World, actor: Entity) -> bool {
    crate::log::kept(world) || seated_human(world, side_of(world, actor))
}

/// The words of a question to `actor`, built by `words` only when someone
/// may read them ([`in_words`]).
pub fn prompt(world: &World, actor: Entity, words: impl FnOnce(&World) -> String) -> String {
    if in_words(world, actor) {
        words(world)
    } else {
        String::new()
    }
}

/// Publish `ask` for the controller of the actor's side; returns the
/// decision's id.
pub fn ask(world: &mut World, ask: Question) -> u64 {
    let side = side_of(world, ask.actor);
    let choices = if seated_human(world, side) {
        (ask.choices)(world, ask.actor)
    } else {
        Vec::new()
    };
    let actor_name = crate::model::name(world, ask.actor);
    world.resource_mut::<Decisions>().publish(Decision {
        id: 0,
        side,
        actor: ask.actor,
        actor_name,
        prompt: ask.prompt,
        rule: ask.rule,
        choices,
        secret: ask.secret,
        any_cell: ask.move_order.is_some(),
        move_order: ask.move_order,
        offer: Some(ask.choices),
    })
}

/// Take the orders given since the last step, each checked by `validate`
/// against the decision it answers. A refused order is logged under the
/// paragraph that asked (`rule` where the decision names none) with its
/// reason, changes nothing, and its decision stays open; a taken one closes
/// its decision and comes back with what `validate` made of it.
pub fn take_answers<P>(
    world: &mut World,
    rule: &str,
    mut validate: impl FnMut(&World, &Decision, &Order) -> Result<P, String>,
) -> Vec<(Decision, P)> {
    let answers = world.resource_mut::<Decisions>().take_answers();
    let mut taken = Vec::new();
    for (id, order) in answers {
        let verdict = {
            let Some(decision) = world.resource::<Decisions>().get(id) else {
                continue;
            };
            validate(world, decision, &order)
        };
        match verdict {
            Ok(plan) => taken.push((id, plan)),
            Err(why) => {
                let (who, what) = (order.actor.clone(), order.action.clone());
                let (asked, secret) = world
                    .resource::<Decisions>()
                    .get(id)
                    .map_or((None, false), |d| (Some(d.rule.clone()), d.secret));
                let cite = asked.as_deref().filter(|r| !r.is_empty()).unwrap_or(rule);
                // A secret order refused is said without what it was or
                // why: the log is everyone's, and only the one asked again
                // is told (in its question).
                let text = if secret {
                    format!("{who}'s written order is refused, and it is asked again.")
                } else {
                    format!("{who}'s order {what:?} is refused: {why}.")
                };
                crate::log::record(world, || {
                    crate::log::Event::new(crate::log::EventKind::Refused, cite, text)
                        .actor(who.as_str())
                });
                world.resource_mut::<Decisions>().refuse(id, order, why);
            }
        }
    }
    // Validating reads no open decision, so those taken close together.
    let ids: Vec<u64> = taken.iter().map(|(id, _)| *id).collect();
    let closed = world.resource_mut::<Decisions>().close_many(&ids);
    closed
        .into_iter()
        .zip(taken)
        .filter_map(|(decision, (_, plan))| Some((decision?, plan)))
        .collect()
}

/// Answers decisions for a side: the AI, a script, a replay, the window.
///
/// A controller reads the world (it must not change rules state: every change
/// goes through an order) and returns an order, or `None` when a person has
/// to decide.
/// An order a controller that looks ahead weighed for a decision.
#[derive(Clone, Debug, PartialEq)]
pub struct Thought {
    pub order: Order,
    /// The share of the battle it expects its side to hold after the order
    /// (0 to 1).
    pub share: f32,
    /// The futures it played the order out in.
    pub futures: u32,
    /// The order the basic AI would give.
    pub plain: bool,
}

pub trait Controller {
    fn decide(&mut self, world: &mut World, decision: &Decision) -> Option<Order>;

    /// The rules refused an order this controller gave.
    fn refused(&mut self, _refusal: &Refusal) {}

    /// Whether the refused order was one read from a record that says it
    /// was refused then too (a saved battle replayed): a finite list, so
    /// the driver does not count it toward a stall.
    fn recorded(&self, _refusal: &Refusal) -> bool {
        false
    }

    /// What it weighed for its last decision, when it looks ahead: the
    /// order given first, then the others.
    fn thoughts(&self) -> Vec<Thought> {
        Vec::new()
    }

    /// Whether it wants to hear of the other sides' orders
    /// ([`Controller::observed`]).
    fn watches(&self) -> bool {
        false
    }

    /// An order of `side`'s, now in the open (its round has ended): its
    /// action, and whether it was of the kind the basic AI would have given
    /// (`crate::watch`).
    fn observed(&mut self, _side: usize, _action: &str, _foreseen: bool) {}
}

/// A person decides: the driver stops and waits.
pub struct HumanSeat;

impl Controller for HumanSeat {
    fn decide(&mut self, _: &mut World, _: &Decision) -> Option<Order> {
        None
    }
}

/// Orders written in a scenario, for a given round and actor, and, when
/// `asked` is given, only for a question that cites that paragraph (as
/// the prompt shows it: `000 §3.1`, `002 §Attacks of Opportunity`), so a
/// script does not shift to another question when one is not asked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedOrder {
    pub round: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked: Option<String>,
    pub order: Order,
}

impl ScriptedOrder {
    /// Whether it answers `decision`, asked in `round`.
    pub fn fits(&self, round: u32, decision: &Decision) -> bool {
        self.round == round
            && self.order.actor == decision.actor_name
            && self
                .asked
                .as_deref()
                .is_none_or(|a| decision.rule.starts_with(a))
    }
}

/// Plays the scenario's scripted orders, each once, in the round and for the
/// actor they name; when none fits, hands the decision to `fallback`.
pub struct Scripted {
    script: Vec<(ScriptedOrder, bool)>,
    fallback: Box<dyn Controller>,
    /// Who decides what the script does not cover, in words for the log
    /// ("the AI", "a person"); said once, the first time it happens.
    after: Option<&'static str>,
}

impl Scripted {
    pub fn new(script: Vec<ScriptedOrder>, fallback: Box<dyn Controller>) -> Self {
        Self {
            script: script.into_iter().map(|s| (s, false)).collect(),
            fallback,
            after: None,
        }
    }

    /// Say in the log, the first time the script has no order for a
    /// question, that `who` decides from then on what it does not cover.
    pub fn after(mut self, who: &'static str) -> Self {
        self.after = Some(who);
        self
    }
}

impl Controller for Scripted {
    fn decide(&mut self, world: &mut World, decision: &Decision) -> Option<Order> {
        let round = world.resource::<crate::log::BattleLog>().round;
        let next = self
            .script
            .iter_mut()
            .find(|(s, used)| !used && s.fits(round, decision));
        match next {
            Some((s, used)) => {
                *used = true;
                Some(s.order.clone())
            }
            None => {
                if let Some(who) = self.after.take() {
                    let text = format!(
                        "The script has no order for {}'s question ({}): {who} decides what it does not cover, from now on.",
                        decision.actor_name, decision.rule
                    );
                    crate::log::record(world, || {
                        crate::log::Event::new(crate::log::EventKind::Note, "scenario orders", text)
                    });
                }
                self.fallback.decide(world, decision)
            }
        }
    }

    fn refused(&mut self, refusal: &Refusal) {
        self.fallback.refused(refusal);
    }

    fn thoughts(&self) -> Vec<Thought> {
        self.fallback.thoughts()
    }

    fn watches(&self) -> bool {
        self.fallback.watches()
    }

    fn observed(&mut self, side: usize, action: &str, foreseen: bool) {
        self.fallback.observed(side, action, foreseen);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open_ids(d: &Decisions) -> Vec<u64> {
        d.open().iter().map(|x| x.id).collect()
    }

    fn five() -> Decisions {
        let mut d = Decisions::default();
        for n in 0..5 {
            d.publish(Decision {
                id: 0,
                side: 0,
                actor: Entity::from_raw_u32(n + 1).expect("a valid index"),
                actor_name: format!("c{n}"),
                prompt: String::new(),
                rule: String::new(),
                choices: Vec::new(),
                secret: false,
                any_cell: false,
                move_order: None,
                offer: None,
            });
        }
        d
    }

    /// A refused secret order is kept, for a battle file, as a written
    /// order refused: what it was and why reach only its own side, through
    /// the refusals its controller hears (and a scripted side's check).
    #[test]
    fn a_refused_secret_order_is_kept_without_what_it_was() {
        let mut d = five();
        d.record();
        let mut secret = d.open()[1].clone();
        secret.secret = true;
        let id = d.publish(secret);
        let open = d.open()[0].id;
        let order = Order::new("c1", "move").cell(Cell::new(99, 99));
        d.answer(id, order.clone());
        d.refuse(id, order.clone(), "off the battlefield");
        d.answer(open, order.clone());
        d.refuse(open, order.clone(), "off the battlefield");
        let mut given = d.given().to_vec();
        assert_eq!((&given[0].order, &given[1].order), (&order, &order));
        given.iter_mut().for_each(Given::kept_secret);
        assert_eq!(given[0].order, Order::new("c1", WRITTEN));
        assert_eq!(
            given[0].refused.as_deref(),
            Some("written: a written order, refused")
        );
        assert_eq!(given[1].order, order);
        assert_eq!(given[1].refused.as_deref(), Some("off the battlefield"));
        let heard = d.take_refusals();
        assert_eq!(
            (&heard[0].order, heard[0].reason.as_str()),
            (&order, "off the battlefield")
        );
    }

    /// Orders are written in secret while a secret decision is open, and no
    /// longer once it is closed.
    #[test]
    fn a_secret_decision_open_means_orders_are_written_in_secret() {
        let mut d = five();
        assert!(!d.writing_in_secret());
        let mut secret = d.open()[2].clone();
        secret.secret = true;
        let id = d.publish(secret);
        assert!(d.writing_in_secret());
        d.close_many(&[id]);
        assert!(!d.writing_in_secret());
    }

    /// A decision lent from the middle, the start or the end of the open
    /// ones comes back to its place, and the others keep theirs.
    #[test]
    fn a_lent_decision_comes_back_where_it_stood() {
        for id in [3, 1, 5] {
            let mut d = five();
            let lent = d.lend(id).expect("open");
            assert_eq!(lent.id, id);
            assert_eq!(d.open().len(), 4);
            assert!(!open_ids(&d).contains(&id));
            d.give_back(lent);
            assert_eq!(open_ids(&d), vec![1, 2, 3, 4, 5]);
        }
        assert!(five().lend(9).is_none());
    }

    /// Decisions closed together come back in the order asked, a closed
    /// one asked again as `None`; the others stay open in their order.
    #[test]
    fn decisions_closed_together_come_back_in_the_order_asked() {
        let mut d = five();
        let before = d.generation;
        let closed = d.close_many(&[4, 2, 9]);
        let ids: Vec<Option<u64>> = closed.iter().map(|c| c.as_ref().map(|c| c.id)).collect();
        assert_eq!(ids, vec![Some(4), Some(2), None]);
        assert_eq!(
            closed[0].as_ref().map(|c| c.actor_name.as_str()),
            Some("c3")
        );
        assert_eq!(open_ids(&d), vec![1, 3, 5]);
        assert_eq!(d.generation, before + 2);
        assert!(d.close_many(&[]).is_empty());
        assert_eq!(d.generation, before + 2);
    }

    /// A question is put in words for a person, or for a log that keeps
    /// what happens; between AIs in a batch, nobody reads it.
    #[test]
    fn a_question_is_put_in_words_only_where_someone_reads_it() {
        use crate::log::BattleLog;
        use crate::model::{Seat, Side, SideInfo, Sides};
        let side = |seat| SideInfo {
            name: "s".into(),
            seat,
            after_script: Default::default(),
            morale: false,
        };
        let mut world = World::new();
        world.insert_resource(Sides(vec![side(Seat::Human), side(Seat::Ai)]));
        world.insert_resource(BattleLog::counting_only());
        let person = world.spawn(Side(0)).id();
        let computer = world.spawn(Side(1)).id();
        let words = |w: &World, e| prompt(w, e, |_| "Anna: declare an action".to_string());
        assert_eq!(words(&world, person), "Anna: declare an action");
        assert_eq!(words(&world, computer), "", "nobody reads it");
        world.insert_resource(BattleLog::default());
        assert_eq!(words(&world, computer), "Anna: declare an action");
    }
}
