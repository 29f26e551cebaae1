//! The battle being played: the rules' own app (the very same systems the
//! command line runs), stepped by the window, and what the window has shown
//! of it so far.
//!
//! Seam 3: when nobody human must decide and nothing is being watched step
//! by step, the rules keep stepping within the frame. At the slower speeds
//! the window advances one rules step (one initiative count, one phase …)
//! per tick so the timing can be followed.

use std::path::{Path, PathBuf};

use bevy::prelude::*;
use fray_ai::save::BattleFile;
use fray_ai::{BattleOptions, LoadedRules, build_battle};
use fray_core::battle::{Battle, Progress};
use fray_core::decision::{Controller, Decision, Decisions, HumanSeat, Order};
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
    /// How well the AI plays each side (missing: the default level).
    pub ai: Vec<fray_ai::AiLevel>,
    /// The work a search AI may spend on a decision (None: the default).
    pub search_work: Option<u64>,
    /// A saved battle to go on with, in place of a new one.
    pub load: Option<PathBuf>,
}

/// Playback speeds: rules steps per second; `None` runs until someone must decide.
pub const SPEEDS: [Option<f32>; 5] = [Some(1.0), Some(3.0), Some(10.0), Some(30.0), None];

/// An order a person wrote down in secret, shown to their side alone.
pub struct Written {
    pub side: usize,
    pub actor: String,
    pub words: String,
}

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
    /// What people wrote down in secret, by side, for their own eyes until
    /// it is revealed.
    pub written: Vec<Written>,
    /// Skip until the round number grows past this.
    pub skip_to_round: Option<u32>,
    /// Log entries the window has picked up (animations and floating numbers).
    pub seen: usize,
    pub selected: Option<Entity>,
    pub picked_entry: Option<usize>,
    /// Pause once the log holds this many entries (`fray play --steps`).
    pub stop_at: Option<u64>,
    /// The hash of the ruleset data, the seed and dice: what a battle file
    /// keeps besides the orders.
    pub data_hash: String,
    pub options: BattleOptions,
    /// The log's length after each run of the rules, so a rewind can stop
    /// where a step ended.
    pub marks: Vec<u64>,
    /// The battle is over and the player looks back over it.
    pub reviewing: bool,
    /// What the last save, load or rewind did, for the top bar.
    pub notice: Option<String>,
    /// After a rewind: the battle as it went on from here, whose orders
    /// playing on gives again, until a player takes over.
    pub future: Option<BattleFile>,
    /// The orders people gave, latest last, which they may take back while
    /// nothing has been rolled or revealed since.
    pub given: Vec<TakeBack>,
}

/// An order a person gave, and where the battle stood just before it.
#[derive(Clone)]
pub struct TakeBack {
    pub side: usize,
    /// Who was ordered, and what: "Brienne: attack Grusk with the longsword".
    pub label: String,
    /// The rules steps run, the orders given and the log's length before it.
    steps: usize,
    orders: usize,
    log: u64,
    /// How many secret orders were written down before it.
    written: usize,
}

/// Where the window saves battles: `$FRAY_SAVES`, else the user's data
/// folder (`$XDG_DATA_HOME/fray/saves`, `~/.local/share/fray/saves`).
pub fn saves_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("FRAY_SAVES") {
        return PathBuf::from(dir);
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(|| PathBuf::from("."));
    data.join("fray/saves")
}

/// The controller a window's seat gets: a person, or the AI or script.
fn seat_controller(
    seat: Seat,
    scenario: &LoadedScenario,
    side: usize,
    options: &BattleOptions,
) -> Box<dyn Controller> {
    match seat {
        Seat::Human => Box::new(HumanSeat),
        _ => fray_ai::controller(seat, scenario, side, options.ai(side)),
    }
}

impl Session {
    /// Load a scenario and seat it, or go on with a saved battle.
    pub fn start(setup: Setup) -> Result<Self, String> {
        if let Some(file) = setup.load.clone() {
            return Self::load(&file);
        }
        let (scenario, data, data_hash) = fray_ai::load_scenario_and_hash(&setup.path)?;
        let options = BattleOptions {
            seed: setup.seed,
            dice: Vec::new(),
            keep_log: true,
            all_ai: false,
            ai: setup.ai.clone(),
            search_work: setup.search_work,
        };
        let mut seated = scenario.clone();
        for (side, seat) in seated.scenario.sides.iter_mut().zip(&setup.seats) {
            side.seat = *seat;
        }
        let mut battle = build_battle(&seated, &data, &options).map_err(|e| e.to_string())?;
        for (i, seat) in setup.seats.iter().enumerate() {
            battle.set_controller(i, seat_controller(*seat, &seated, i, &options));
        }
        Self::new(battle, setup, seated, data, data_hash, options)
    }

    /// A saved battle: its orders replayed up to where it was saved, then
    /// played on with the seats it was saved with.
    pub fn load(path: &Path) -> Result<Self, String> {
        let file = BattleFile::read(path)?;
        let (mut scenario, data) = file.scenario(path)?;
        for (side, seat) in scenario.scenario.sides.iter_mut().zip(&file.seats) {
            side.seat = *seat;
        }
        let options = file.options();
        let setup = Setup {
            path: PathBuf::from(&file.scenario_file),
            seed: file.seed,
            seats: file.seats.clone(),
            ai: file.ai.clone(),
            search_work: file.search_work,
            load: None,
        };
        let battle = replayed(&file, &scenario, &data, &options)?;
        let mut s = Self::new(
            battle,
            setup,
            scenario,
            data,
            file.ruleset_data.clone(),
            options,
        )?;
        s.catch_up(u64::MAX, file.steps as usize)?;
        // What happened before the save is no news: nothing floats up.
        s.seen = s.log().entries().len();
        s.paused = true;
        s.notice = Some(format!("Loaded {}", path.display()));
        Ok(s)
    }

    fn new(
        battle: Battle,
        setup: Setup,
        scenario: LoadedScenario,
        rules: LoadedRules,
        data_hash: String,
        options: BattleOptions,
    ) -> Result<Self, String> {
        let view = *battle
            .world()
            .get_resource::<RulesView>()
            .ok_or("this ruleset shows nothing yet")?;
        Ok(Self {
            battle,
            setup,
            scenario,
            rules,
            view,
            paused: false,
            speed: 1,
            clock: 0.0,
            progress: None,
            handoff: None,
            shown_side: None,
            written: Vec::new(),
            skip_to_round: None,
            seen: 0,
            selected: None,
            picked_entry: None,
            stop_at: None,
            data_hash,
            options,
            marks: Vec::new(),
            reviewing: false,
            notice: None,
            future: None,
            given: Vec::new(),
        })
    }

    /// The battle so far as a battle file.
    pub fn file(&self) -> BattleFile {
        BattleFile::of(
            &self.battle,
            &self.scenario,
            &self.data_hash,
            &self.options,
            self.setup.seats.clone(),
        )
    }

    /// Save the battle so far in the saves folder, named after the
    /// scenario and the moment; say where.
    pub fn save(&mut self) -> Result<PathBuf, String> {
        let dir = saves_dir();
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        let stem = self
            .setup
            .path
            .file_stem()
            .map_or("battle".into(), |s| s.to_string_lossy().to_string());
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let path = dir.join(format!("{stem}-{now}.ron"));
        let (file, left_out) = self.file().keeping_secrets(&self.battle);
        file.save(&path)?;
        self.notice = Some(match left_out {
            0 => format!("Saved to {}", path.display()),
            _ => format!(
                "Saved to {}, as the secret orders began: those written so far are asked for again when it is loaded",
                path.display()
            ),
        });
        Ok(path)
    }

    /// Go back to where the rules had run `steps` times: the battle is
    /// rebuilt and its orders replayed up to there, paused. Going on plays
    /// the same orders again until a player takes over.
    pub fn rewind_to_step(&mut self, steps: usize) -> Result<(), String> {
        let file = self.history();
        self.rebuild(&file, steps)?;
        self.future = Some(file);
        let round = (self.view.round)(self.battle.world());
        let entry = self.log().count();
        self.notice = Some(format!("Rewound to round {round}, log entry {entry}"));
        Ok(())
    }

    /// Play on from here as a new branch: the orders after this moment are
    /// forgotten, and every seat decides anew.
    pub fn take_over(&mut self) -> Result<(), String> {
        let steps = self.marks.len();
        let file = self.file();
        self.rebuild(&file, steps)?;
        self.future = None;
        self.notice = Some("Playing on from here: a new branch".into());
        Ok(())
    }

    /// Whether a rewind left orders ahead that playing on gives again.
    pub fn has_future(&self) -> bool {
        let given = self.battle.world().resource::<Decisions>().given().len();
        self.future.as_ref().is_some_and(|f| f.orders.len() > given)
    }

    /// Everything played so far: the battle's own orders, or after a rewind
    /// the orders of the battle rewound from, when it went further.
    fn history(&self) -> BattleFile {
        let now = self.file();
        match &self.future {
            Some(f) if f.orders.len() > now.orders.len() => f.clone(),
            _ => now,
        }
    }

    /// The battle of `file`, rebuilt and run until the rules have run
    /// `steps` times (or it waits), paused.
    fn rebuild(&mut self, file: &BattleFile, steps: usize) -> Result<(), String> {
        self.battle = replayed(file, &self.scenario, &self.rules, &self.options)?;
        self.marks.clear();
        self.progress = None;
        self.catch_up(u64::MAX, steps)?;
        self.seen = self.log().entries().len();
        self.selected = None;
        self.picked_entry = None;
        self.handoff = None;
        self.shown_side = None;
        self.written.clear();
        self.given.clear();
        self.paused = true;
        self.reviewing = false;
        self.skip_to_round = None;
        Ok(())
    }

    /// Pause, or play on; a skip to the next round under way stops, paused.
    pub fn pause_or_play(&mut self) {
        if self.skip_to_round.take().is_some() {
            self.paused = true;
        } else {
            self.paused = !self.paused;
        }
    }

    /// One step, paused (a skip under way stops).
    pub fn step_once(&mut self) {
        self.skip_to_round = None;
        self.paused = true;
        self.advance();
    }

    /// Back to the end of the step before the last one that wrote the log.
    pub fn back_one_step(&mut self) -> Result<(), String> {
        let now = self.log().count();
        let k = self
            .marks
            .iter()
            .rposition(|&m| m < now)
            .map_or(0, |i| i + 1);
        self.rewind_to_step(k)
    }

    /// Back to the end of the step that wrote log entry `seq`.
    pub fn rewind_to_entry(&mut self, seq: u64) -> Result<(), String> {
        let k = self
            .marks
            .iter()
            .position(|&m| m >= seq)
            .map_or(self.marks.len(), |i| i + 1);
        self.rewind_to_step(k)
    }

    /// Run the rules until the log holds `entries` or they have run `steps`
    /// times, or the battle waits or ends.
    fn catch_up(&mut self, entries: u64, steps: usize) -> Result<(), String> {
        while self.log().count() < entries && self.marks.len() < steps {
            if !self.advance() {
                break;
            }
        }
        match &self.progress {
            Some(Progress::Failed(why)) => Err(why.clone()),
            _ => Ok(()),
        }
    }

    pub fn log(&self) -> &BattleLog {
        self.battle.world().resource::<BattleLog>()
    }

    pub fn sides(&self) -> &Sides {
        self.battle.world().resource::<Sides>()
    }

    /// The number of sides people play: seated so, or scripted with a
    /// person to go on once the script's orders run out.
    pub fn people(&self) -> usize {
        self.sides()
            .0
            .iter()
            .filter(|s| s.played_by_person())
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
        // What is noted of the order here, struck again if it is refused.
        let mut noted = (false, false);
        let world = self.battle.world();
        let decisions = world.resource::<Decisions>();
        if let Some(d) = decisions.get(id) {
            let label = d.choices.iter().find(|c| c.order == order);
            let words = label.map_or_else(|| order_words(&order), |c| c.label.clone());
            // Another person's order leaves nothing of one's own to take back.
            self.given.retain(|t| t.side == d.side);
            self.given.push(TakeBack {
                side: d.side,
                label: format!("{}: {words}", d.actor_name),
                steps: self.marks.len(),
                orders: decisions.given().len(),
                log: self.log().count(),
                written: self.written.len(),
            });
            noted.0 = true;
            if d.secret {
                // In the middle of a sentence.
                let mut chars = words.chars();
                let words = chars
                    .next()
                    .map_or(String::new(), |c| c.to_lowercase().chain(chars).collect());
                self.written.push(Written {
                    side: d.side,
                    actor: d.actor_name.clone(),
                    words,
                });
                noted.1 = true;
            }
        }
        self.battle.answer(id, order);
        self.progress = None;
        for _ in 0..8 {
            let world = self.battle.world();
            let decisions = world.resource::<Decisions>();
            if !decisions.open().iter().any(|d| decisions.is_answered(d.id)) || !self.advance() {
                break;
            }
        }
        // Refused, it was never given: nothing to show as written or to
        // take back.
        if self
            .battle
            .last_refusal
            .as_ref()
            .is_some_and(|r| r.decision == id)
        {
            if noted.0 {
                self.given.pop();
            }
            if noted.1 {
                self.written.pop();
            }
        }
    }

    /// The last order a person gave, if they may still take it back: nothing
    /// has been rolled or revealed since, the battle goes on, and no other
    /// side's person has the screen.
    pub fn can_take_back(&self) -> Option<&TakeBack> {
        let t = self.given.last()?;
        let other = |side: usize| side != t.side;
        if self.result().is_some()
            || self.handoff.is_some_and(other)
            || self.human_decision().is_some_and(|d| other(d.side))
        {
            return None;
        }
        let settled = |e: &fray_core::log::LogEntry| {
            e.seq > t.log && (!e.rolls.is_empty() || e.event == fray_core::log::EventKind::Reveal)
        };
        (!self.log().entries().iter().any(settled)).then_some(t)
    }

    /// Take back the last order a person gave: the battle goes back to just
    /// before it, as a new branch, and the same question is asked again.
    pub fn take_back(&mut self) -> Result<(), String> {
        if self.given.is_empty() {
            return Err("no order has been given since the battle began or was rewound".into());
        }
        let t = self.can_take_back().cloned().ok_or(
            "something has been rolled or revealed since, or another player has had the screen",
        )?;
        let mut file = self.file();
        file.orders.truncate(t.orders);
        let mut written = std::mem::take(&mut self.written);
        let mut given = std::mem::take(&mut self.given);
        let paused = self.paused;
        self.rebuild(&file, t.steps)?;
        self.future = None;
        written.truncate(t.written);
        self.written = written;
        given.pop();
        self.given = given;
        self.shown_side = Some(t.side);
        self.paused = paused;
        self.notice = Some(format!("Took back {}", t.label));
        Ok(())
    }

    /// Whether a person has a decision open that the driver has not yet surfaced.
    fn person_must_decide(&self) -> bool {
        let decisions = self.battle.world().resource::<Decisions>();
        decisions.open().iter().any(|d| {
            self.sides()
                .0
                .get(d.side)
                .is_some_and(|s| s.played_by_person())
                && !decisions.is_answered(d.id)
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
        let before = self.battle.world().resource::<Decisions>().steps();
        let stopped = self.battle.advance();
        if self.battle.world().resource::<Decisions>().steps() > before {
            let count = self.log().count();
            self.marks.push(count);
        }
        match stopped {
            None => true,
            Some(p) => {
                self.progress = Some(p);
                false
            }
        }
    }
}

/// A new battle of `file`, its orders given as they were and no one to
/// decide after them (the caller seats who plays on).
fn replayed(
    file: &BattleFile,
    scenario: &LoadedScenario,
    data: &LoadedRules,
    options: &BattleOptions,
) -> Result<Battle, String> {
    let mut battle = build_battle(scenario, data, options).map_err(|e| e.to_string())?;
    let seats = file.seats.clone();
    file.seat_replay(&mut battle, |side| {
        seat_controller(seats[side], scenario, side, options)
    });
    Ok(battle)
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
        if s.reviewing {
            return;
        }
        if matches!(s.progress, Some(Progress::Over(_))) {
            // What was said during the battle (a save midway) is old news
            // on the result screen.
            s.notice = None;
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
    // Steps that take long (a searching AI's decisions) are spread over
    // frames, so the window keeps answering.
    let started = std::time::Instant::now();
    let in_time = || started.elapsed() < FRAME_STEPPING;
    if let Some(round) = s.skip_to_round {
        let mut reached = (s.view.round)(s.battle.world()) > round;
        while !reached && in_time() {
            reached = !s.advance() || (s.view.round)(s.battle.world()) > round;
        }
        if reached {
            s.skip_to_round = None;
            s.paused = true;
        }
        return;
    }
    if s.paused {
        return;
    }
    match SPEEDS[s.speed] {
        None => {
            while in_time() {
                if !s.advance() {
                    break;
                }
            }
        }
        Some(per_second) => {
            s.clock += time.delta_secs() * per_second;
            while s.clock >= 1.0 {
                s.clock -= 1.0;
                let seen = s.log().entries().len();
                if !s.advance() {
                    s.clock = 0.0;
                    break;
                }
                // An interrupt lingers on screen before the battle goes on.
                let new = s.log().entries().get(seen..).unwrap_or_default();
                if new.iter().any(|e| e.event.cuts_in()) {
                    s.clock = -INTERRUPT_LINGER * per_second;
                    break;
                }
            }
        }
    }
}

/// The longest a frame spends stepping the battle at the fastest speed or
/// skipping to the next round; what is left goes on in the next frame.
const FRAME_STEPPING: std::time::Duration = std::time::Duration::from_millis(12);

/// Seconds an interrupt (a riposte, an attack of opportunity, a parry, an
/// abort, a readied action) stays on screen before the battle goes on, at
/// the timed speeds.
const INTERRUPT_LINGER: f32 = 1.5;

/// The system set that steps the battle each frame.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub struct Drive;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Update, drive.in_set(Drive).run_if(in_state(Screen::Battle)));
}

/// An order no choice lists (a cell clicked), in words: its action, whom,
/// where to and with what.
fn order_words(order: &Order) -> String {
    let mut words = order.action.replace('_', " ");
    if let Some(t) = &order.target {
        words.push_str(&format!(" at {t}"));
    }
    if let Some(c) = order.cell {
        words.push_str(&format!(" toward {c}"));
    }
    if let Some(w) = &order.with {
        words.push_str(&format!(" with {w}"));
    }
    words
}

#[cfg(test)]
mod tests {
    use super::{Seat, Session, Setup};

    /// A session of a two-sided `phases` scenario whose first side is
    /// scripted, a person or the AI going on after its script.
    fn scripted(after: &str) -> Session {
        let dir = std::env::temp_dir().join(format!("fray-people-{after}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.ron");
        std::fs::write(
            &path,
            format!(
                r#"(name: "s", ruleset: "phases", round_cap: 1,
                   grid: (kind: Hex, width: 8, height: 8),
                   sides: [(name: "A", seat: Script, after_script: {after}), (name: "B", seat: Ai)],
                   combatants: [
                     (name: "Ash", side: "A", template: "bravo", at: (1, 1)),
                     (name: "Bo", side: "B", template: "bravo", at: (6, 6)),
                   ])"#
            ),
        )
        .unwrap();
        let setup = Setup {
            path,
            seed: 1,
            seats: vec![Seat::Script, Seat::Ai],
            ai: Vec::new(),
            search_work: None,
            load: None,
        };
        let session = Session::start(setup).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        session
    }

    #[test]
    fn a_side_a_person_plays_after_its_script_is_a_persons() {
        // Not watch mode, and what the AI writes in secret stays hidden.
        assert_eq!(scripted("Person").people(), 1);
        assert_eq!(scripted("Ai").people(), 0);
    }
}
