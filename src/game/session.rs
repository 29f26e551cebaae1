//! The battle being played: the rules' own app (the very same systems the
//! command line runs), stepped by the window, and what the window has shown
//! of it so far.
//!
//! Seam 3: when nobody human must decide and nothing is being watched step
//! by step, the rules keep stepping within the frame. At the slower speeds
//! the window advances one rules step (one initiative count, one phase …)
//! per tick so the timing can be followed.

use std::path::PathBuf;

use bevy::prelude::*;
use fray_ai::{BattleOptions, LoadedRules, build_battle};
use fray_core::battle::{Battle, Progress};
use fray_core::decision::{Decision, Decisions, HumanSeat, Order};
use fray_core::log::BattleLog;
use fray_core::model::{BattleResult, Seat, Sides};
use fray_core::scenario::LoadedScenario;
use fray_core::view::RulesView;

use super::Screen;

/// How a battle is set up from the menu or the command line.
#[derive(Clone, Debug)]
pub struct Setup {
    pub path: PathBuf,
    pub seed: u64,
    pub seats: Vec<Seat>,
}

/// Playback speeds: rules steps per second; `None` runs until someone must decide.
pub const SPEEDS: [Option<f32>; 5] = [Some(1.0), Some(3.0), Some(10.0), Some(30.0), None];

/// The battle in progress. Not `Send`: it owns the rules' app.
pub struct Session {
    pub battle: Battle,
    pub setup: Setup,
    pub scenario: LoadedScenario,
    /// The ruleset, for what it says of its events.
    pub rules: LoadedRules,
    pub view: RulesView,
    pub paused: bool,
    pub speed: usize,
    /// Time gathered toward the next step.
    pub clock: f32,
    /// Where the driver stopped last.
    pub progress: Option<Progress>,
    /// The side a secret decision is being handed to (hotseat), until confirmed.
    pub handoff: Option<usize>,
    /// The side whose secret decision was last shown.
    pub shown_side: Option<usize>,
    /// Skip until the round number grows past this.
    pub skip_to_round: Option<u32>,
    /// Log entries the window has picked up (animations and floating numbers).
    pub seen: usize,
    pub selected: Option<Entity>,
    pub picked_entry: Option<usize>,
    /// Pause once the log holds this many entries (`fray play --steps`).
    pub stop_at: Option<u64>,
}

impl Session {
    /// Load a scenario and seat it.
    pub fn start(setup: Setup) -> Result<Self, String> {
        let (scenario, data) = fray_ai::load_scenario(&setup.path)?;
        let options = BattleOptions {
            seed: setup.seed,
            dice: Vec::new(),
            keep_log: true,
            all_ai: false,
        };
        let mut scenario_seated = scenario.clone();
        for (side, seat) in scenario_seated.scenario.sides.iter_mut().zip(&setup.seats) {
            side.seat = *seat;
        }
        let mut battle =
            build_battle(&scenario_seated, &data, &options).map_err(|e| e.to_string())?;
        for (i, seat) in setup.seats.iter().enumerate() {
            if *seat == Seat::Human {
                battle.set_controller(i, Box::new(HumanSeat));
            }
        }
        let view = *battle
            .world()
            .get_resource::<RulesView>()
            .ok_or("this ruleset shows nothing yet")?;
        Ok(Self {
            battle,
            setup,
            scenario: scenario_seated,
            rules: data,
            view,
            paused: false,
            speed: 1,
            clock: 0.0,
            progress: None,
            handoff: None,
            shown_side: None,
            skip_to_round: None,
            seen: 0,
            selected: None,
            picked_entry: None,
            stop_at: None,
        })
    }

    pub fn log(&self) -> &BattleLog {
        self.battle.world().resource::<BattleLog>()
    }

    pub fn sides(&self) -> &Sides {
        self.battle.world().resource::<Sides>()
    }

    /// The number of sides seated with people.
    pub fn people(&self) -> usize {
        self.setup
            .seats
            .iter()
            .filter(|s| **s == Seat::Human)
            .count()
    }

    /// The decision a person must make now, if any.
    pub fn human_decision(&self) -> Option<&Decision> {
        let Some(Progress::AwaitingHuman(ids)) = &self.progress else {
            return None;
        };
        let decisions = self.battle.world().resource::<Decisions>();
        ids.iter()
            .find_map(|id| decisions.get(*id))
            .filter(|d| !decisions.is_answered(d.id))
    }

    /// Give a person's order; the rules take it at once.
    pub fn answer(&mut self, id: u64, order: Order) {
        self.battle.answer(id, order);
        self.progress = None;
        for _ in 0..8 {
            let world = self.battle.world();
            let decisions = world.resource::<Decisions>();
            if !decisions.open().iter().any(|d| decisions.is_answered(d.id)) || !self.advance() {
                break;
            }
        }
    }

    /// Whether a person has a decision open that the driver has not yet surfaced.
    fn person_must_decide(&self) -> bool {
        let decisions = self.battle.world().resource::<Decisions>();
        decisions.open().iter().any(|d| {
            self.setup.seats.get(d.side) == Some(&Seat::Human) && !decisions.is_answered(d.id)
        })
    }

    pub fn result(&self) -> Option<&BattleResult> {
        self.battle.outcome()
    }

    /// One driver turn; records where it stopped. False when it cannot go on
    /// by itself (or has reached `stop_at`).
    pub fn advance(&mut self) -> bool {
        if let Some(limit) = self.stop_at
            && self.log().count() >= limit
        {
            self.paused = true;
            return false;
        }
        match self.battle.advance() {
            None => true,
            Some(p) => {
                self.progress = Some(p);
                false
            }
        }
    }
}

/// Step the battle as fast as the chosen speed allows, or at once to the next
/// decision when the speed is "as fast as possible".
fn drive(
    session: Option<NonSendMut<Session>>,
    time: Res<Time>,
    mut next: ResMut<NextState<Screen>>,
) {
    let Some(mut s) = session else { return };
    if s.result().is_some() {
        if matches!(s.progress, Some(Progress::Over(_))) {
            next.set(Screen::Result);
        } else {
            s.progress = s.battle.advance();
        }
        return;
    }
    if matches!(
        s.progress,
        Some(Progress::AwaitingHuman(_) | Progress::Failed(_))
    ) {
        // Waiting for a person (or stopped for good).
        if let Some(Progress::AwaitingHuman(_)) = s.progress
            && s.human_decision().is_none()
        {
            s.progress = None;
        }
        return;
    }
    if s.handoff.is_some() {
        return;
    }
    if s.progress.is_none() && s.person_must_decide() {
        // Bring a person's next decision up at once, whatever the speed.
        s.progress = s.battle.advance();
        return;
    }
    if let Some(round) = s.skip_to_round {
        let now = (s.view.round)(s.battle.world());
        if now <= round {
            for _ in 0..10_000 {
                if !s.advance() || (s.view.round)(s.battle.world()) > round {
                    break;
                }
            }
        }
        s.skip_to_round = None;
        s.paused = true;
        return;
    }
    if s.paused {
        return;
    }
    match SPEEDS[s.speed] {
        None => {
            for _ in 0..10_000 {
                if !s.advance() {
                    break;
                }
            }
        }
        Some(per_second) => {
            s.clock += time.delta_secs() * per_second;
            while s.clock >= 1.0 {
                s.clock -= 1.0;
                if !s.advance() {
                    s.clock = 0.0;
                    break;
                }
            }
        }
    }
}

/// The system set that steps the battle each frame.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub struct Drive;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Update, drive.in_set(Drive).run_if(in_state(Screen::Battle)));
}
