//! The battle driver (DESIGN.md seam 3): it keeps the rules stepping while no
//! person has to decide, handing each open decision to its side's controller.
//!
//! A ruleset adds its systems to the [`RulesStep`] schedule. One run of that
//! schedule is one *step*: the rules take the orders given, do what they can,
//! and publish the next decisions. The driver loops — answer what controllers
//! can answer, step — until the battle is over or only people can go on.

use bevy_app::App;
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::{ScheduleLabel, SingleThreadedExecutor};

use crate::decision::{Controller, Decisions};
use crate::dice::Dice;
use crate::log::BattleLog;
use crate::model::{BattleResult, Outcome};

/// The schedule a ruleset's systems run in, once per step.
#[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
pub struct RulesStep;

/// Where the driver stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Progress {
    /// These open decisions wait for a person.
    AwaitingHuman(Vec<u64>),
    /// The battle is over.
    Over(BattleResult),
    /// The battle cannot go on (a forced die that does not fit, rules that stall).
    Failed(String),
}

/// Steps without any change before the driver gives up on a battle.
const STALL_LIMIT: u32 = 64;

/// A battle in progress: the rules' app and one controller per side.
pub struct Battle {
    pub app: App,
    controllers: Vec<Box<dyn Controller>>,
    stalled: u32,
    refused_in_a_row: u32,
    /// The last order the rules refused, for the window to show.
    pub last_refusal: Option<crate::decision::Refusal>,
    /// When set, how long each controller's decision took: the side, and
    /// microseconds.
    pub decision_times: Option<Vec<(usize, u32)>>,
    /// The [`RulesStep`] schedule, held here from the first step on rather
    /// than taken out of the world and put back at every step.
    rules: Option<Schedule>,
    /// The orders given, until the other sides may hear of them.
    watch: crate::watch::Watch,
}

/// An app with what every ruleset needs: the step schedule (single-threaded,
/// so systems run in one fixed order), the log, decisions and outcome, and
/// spells in progress spoiled by damage, for the rulesets that cast them.
pub fn rules_app(dice: Dice) -> App {
    let mut app = App::empty();
    let mut schedule = Schedule::new(RulesStep);
    schedule.set_executor(SingleThreadedExecutor::new());
    app.add_schedule(schedule);
    crate::fork::engine_state(app.world_mut());
    app.add_plugins((crate::fork::plugin, crate::casting::plugin));
    app.insert_resource(dice)
        .init_resource::<BattleLog>()
        .init_resource::<Decisions>()
        .init_resource::<Outcome>()
        .init_resource::<crate::occupancy::Occupancy>()
        .init_resource::<crate::model::BlockingQuery>()
        .init_resource::<crate::model::ListedQuery>()
        .init_resource::<crate::model::StandingQuery>()
        .init_resource::<crate::fork::CombatantQuery>();
    app
}

impl Battle {
    pub fn new(app: App, controllers: Vec<Box<dyn Controller>>) -> Self {
        Self {
            app,
            controllers,
            stalled: 0,
            refused_in_a_row: 0,
            last_refusal: None,
            decision_times: None,
            rules: None,
            watch: Default::default(),
        }
    }

    /// How to foresee the basic AI's order, for controllers that watch the
    /// other sides' orders (`crate::watch`).
    pub fn set_foresight(&mut self, foresight: crate::watch::Foresight) {
        self.watch.foresight = Some(foresight);
    }

    pub fn world(&self) -> &World {
        self.app.world()
    }

    pub fn world_mut(&mut self) -> &mut World {
        self.app.world_mut()
    }

    /// Replace the controller of `side` (the window seats a person, a test a script).
    pub fn set_controller(&mut self, side: usize, controller: Box<dyn Controller>) {
        if let Some(slot) = self.controllers.get_mut(side) {
            *slot = controller;
        }
    }

    /// Forget how the driver stood (stalls, refusals), for a battle whose
    /// state has just been replaced by a fork's.
    pub fn forked(&mut self) {
        self.stalled = 0;
        self.refused_in_a_row = 0;
        self.last_refusal = None;
    }

    /// Run the rules once.
    pub fn step(&mut self) {
        let world = self.app.world_mut();
        world.resource_mut::<Decisions>().stepped();
        if self.rules.is_none() {
            self.rules = world
                .get_resource_mut::<Schedules>()
                .and_then(|mut s| s.remove(RulesStep));
        }
        match &mut self.rules {
            Some(rules) => rules.run(world),
            None => world.run_schedule(RulesStep),
        }
        // As App::update does after each frame: forget removed-component
        // records, which would otherwise pile up over a long battle or batch.
        world.clear_trackers();
        self.watch.deliver(world, &mut self.controllers);
    }

    /// What the controller of `side` weighed for its last decision, when it
    /// looks ahead (see [`Controller::thoughts`]).
    pub fn thoughts(&self, side: usize) -> Vec<crate::decision::Thought> {
        self.controllers
            .get(side)
            .map(|c| c.thoughts())
            .unwrap_or_default()
    }

    /// The result, once the battle is over.
    pub fn outcome(&self) -> Option<&BattleResult> {
        self.app.world().resource::<Outcome>().0.as_ref()
    }

    /// Give an order for decision `id` (the window does this for a person).
    pub fn answer(&mut self, id: u64, order: crate::decision::Order) {
        let world = self.app.world_mut();
        if let Some(d) = world.resource::<Decisions>().get(id) {
            let asked = (id, d.side, d.actor);
            self.watch.note(world, &self.controllers, asked, &order);
        }
        world.resource_mut::<Decisions>().answer(id, order);
    }

    /// Step until the battle is over or a person must decide.
    pub fn run(&mut self) -> Progress {
        loop {
            if let Some(progress) = self.advance() {
                return progress;
            }
        }
    }

    /// One turn of the driver: let the controllers answer what they can,
    /// then run the rules once. `None` means the battle moved on and can go
    /// on; `Some` says why it stopped.
    pub fn advance(&mut self) -> Option<Progress> {
        let world = self.app.world_mut();
        if let Some(e) = world.resource::<Dice>().error() {
            return Some(Progress::Failed(e.to_string()));
        }
        if let Some(result) = &world.resource::<Outcome>().0 {
            return Some(Progress::Over(result.clone()));
        }
        let refusals = world.resource_mut::<Decisions>().take_refusals();
        let mut endless = None;
        for r in &refusals {
            if let Some(c) = self.controllers.get_mut(r.side) {
                if !c.recorded(r) {
                    endless = Some(r);
                }
                c.refused(r);
            }
        }
        if let Some(r) = refusals.last() {
            self.last_refusal = Some(r.clone());
        }
        if let Some(r) = endless {
            self.refused_in_a_row += 1;
            if self.refused_in_a_row > STALL_LIMIT {
                return Some(Progress::Failed(format!(
                    "the controller of side {} keeps giving refused orders ({})",
                    r.side, r.reason
                )));
            }
        } else {
            self.refused_in_a_row = 0;
        }
        let before = moved(world);
        // Controllers read the world while deciding; the decision asked is
        // lent to its controller for the while, then put back.
        let ids: Vec<u64> = world
            .resource::<Decisions>()
            .open()
            .iter()
            .map(|d| d.id)
            .collect();
        let mut waiting = Vec::new();
        let mut asked = 0;
        let mut failure = None;
        for id in ids {
            let mut decisions = world.resource_mut::<Decisions>();
            if decisions.is_answered(id) {
                continue;
            }
            let Some(decision) = decisions.lend(id) else {
                continue;
            };
            asked += 1;
            let Some(controller) = self.controllers.get_mut(decision.side) else {
                failure = Some(format!("no controller for side {}", decision.side));
                world.resource_mut::<Decisions>().give_back(decision);
                break;
            };
            let started = self.decision_times.is_some().then(std::time::Instant::now);
            let order = controller.decide(world, &decision);
            // A person decides: one seated so was offered its choices when
            // asked; one a script hands over to is offered them now.
            let mut decision = decision;
            if order.is_none()
                && decision.choices.is_empty()
                && let Some(offer) = decision.offer
            {
                decision.choices = offer(world, decision.actor);
            }
            if let (Some(t), Some(times)) = (started, self.decision_times.as_mut()) {
                let us = t.elapsed().as_micros().min(u128::from(u32::MAX)) as u32;
                times.push((decision.side, us));
            }
            let asked = (id, decision.side, decision.actor);
            world.resource_mut::<Decisions>().give_back(decision);
            match order {
                Some(order) => {
                    self.watch.note(world, &self.controllers, asked, &order);
                    world.resource_mut::<Decisions>().answer(id, order);
                }
                None => waiting.push(id),
            }
        }
        if let Some(why) = failure {
            return Some(Progress::Failed(why));
        }
        let answered = waiting.len() < asked;
        let decisions = world.resource::<Decisions>();
        let any_answer_waiting = decisions.open().iter().any(|d| decisions.is_answered(d.id));
        if !waiting.is_empty() && !answered && !any_answer_waiting {
            return Some(Progress::AwaitingHuman(waiting));
        }
        self.step();
        if moved(self.app.world()) == before && !answered {
            self.stalled += 1;
            if self.stalled > STALL_LIMIT {
                return Some(Progress::Failed("the rules stopped making progress".into()));
            }
        } else {
            self.stalled = 0;
        }
        None
    }
}

/// How far the battle has moved: decisions published or answered, and
/// entries logged. A step that changes neither made no progress.
fn moved(world: &World) -> (u64, u64) {
    (
        world.resource::<Decisions>().generation,
        world.resource::<BattleLog>().count(),
    )
}
