//! Unattended runs of the window, for tests and measurements:
//!
//! - `--steps K --screenshot FILE`: play K log events (or until a person
//!   must decide), write a PNG of the window and exit;
//! - `--drive [--steps K]`: play every Human seat through the same input actions a player
//!   uses (Confirm for the hand-off, Choose1 for the first legal choice) until
//!   the result screen, taking back the first order it may (Undo) and
//!   saving the battle once (Save, after two choices: behind a hand-off in
//!   hotseat) to the saves folder; with `--steps`, only until the log
//!   holds K events;
//! - `--bench-frames N`: measure the CPU time of each frame's update and
//!   report the 50th and 99th percentiles.

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
use leafwing_input_manager::prelude::*;

use super::input::GameAction;
use super::session::{SPEEDS, Session};
use super::{Launch, Screen};

#[derive(Resource, Default)]
struct Autoplay {
    /// Frames since the goal was reached, before the screenshot.
    settle: u32,
    shot_taken: bool,
    frames: u32,
    update_started: Option<Instant>,
    samples: Vec<Duration>,
    driven_choices: u32,
    saved: bool,
    taken_back: bool,
}

/// Frames to wait after the goal so the last state is drawn.
const SETTLE_FRAMES: u32 = 8;
/// Give up on a driven battle after this many frames.
const DRIVE_LIMIT: u32 = 20_000;

fn goal_reached(launch: &Launch, session: Option<&Session>, screen: Screen) -> bool {
    if launch.drive {
        let enough = |k| session.is_some_and(|s| s.log().count() >= k);
        return screen == Screen::Result || launch.steps.is_some_and(enough);
    }
    match (launch.steps, session) {
        // A person must decide: the steps cannot go on without them.
        (Some(k), Some(s)) => {
            s.log().count() >= k || s.result().is_some() || s.human_decision().is_some()
        }
        (None, Some(_)) => screen != Screen::Menu,
        (_, None) => screen == Screen::Menu && launch.scenario.is_none() && launch.load.is_none(),
    }
}

fn run(
    mut commands: Commands,
    launch: Res<Launch>,
    mut auto: ResMut<Autoplay>,
    session: Option<NonSendMut<Session>>,
    screen: Res<State<Screen>>,
    mut actions: Single<&mut ActionState<GameAction>>,
    menu: Option<Res<super::menu::MenuState>>,
    mut exit: MessageWriter<AppExit>,
) {
    auto.frames += 1;
    let mut session = session;
    if let Some(s) = session.as_mut() {
        if launch.steps.is_some() || launch.drive {
            // Unattended: no waiting between steps.
            s.speed = SPEEDS.len() - 1;
        }
        s.stop_at = launch.steps;
        let done = goal_reached(&launch, Some(&**s), *screen.get());
        if launch.drive && !done && *screen.get() == Screen::Battle {
            let asked = s.handoff.is_some() || s.human_decision().is_some();
            if asked && !auto.saved && auto.driven_choices >= 2 {
                actions.press(&GameAction::Save);
                auto.saved = true;
            } else if s.handoff.is_some() {
                actions.press(&GameAction::Confirm);
            } else if !auto.taken_back
                && s.human_decision().is_some()
                && let Some(t) = s.can_take_back()
            {
                info!("the driven battle takes back {}", t.label);
                actions.press(&GameAction::Undo);
                auto.taken_back = true;
            } else if s.human_decision().is_some() && auto.frames.is_multiple_of(2) {
                actions.press(&GameAction::Choose1);
                auto.driven_choices += 1;
            }
        }
    }
    // An unattended run whose battle could not start has nothing to wait for.
    let unattended = launch.steps.is_some() || launch.drive || launch.screenshot.is_some();
    if unattended
        && (launch.scenario.is_some() || launch.load.is_some())
        && let Some(err) = menu.as_ref().and_then(|m| m.error.clone())
    {
        error!("the battle could not start: {err}");
        exit.write(AppExit::from_code(2));
        return;
    }
    if launch.drive && auto.frames > DRIVE_LIMIT {
        error!("the driven battle did not reach its result in {DRIVE_LIMIT} frames");
        exit.write(AppExit::from_code(1));
        return;
    }
    if launch.screenshot.is_none() && launch.steps.is_none() && !launch.drive {
        return;
    }
    if !goal_reached(&launch, session.as_deref(), *screen.get()) {
        return;
    }
    auto.settle += 1;
    if auto.settle < SETTLE_FRAMES || auto.shot_taken {
        return;
    }
    auto.shot_taken = true;
    if launch.drive {
        info!(
            "the driven battle reached its result after {} choices",
            auto.driven_choices
        );
    }
    match launch.screenshot.clone() {
        Some(path) => {
            let mut save = save_to_disk(path);
            commands.spawn(Screenshot::primary_window()).observe(
                move |ev: On<ScreenshotCaptured>, mut exit: MessageWriter<AppExit>| {
                    save(ev);
                    exit.write(AppExit::Success);
                },
            );
        }
        None => {
            exit.write(AppExit::Success);
        }
    }
}

fn frame_start(mut auto: ResMut<Autoplay>) {
    auto.update_started = Some(Instant::now());
}

fn frame_end(
    mut auto: ResMut<Autoplay>,
    launch: Res<Launch>,
    session: Option<NonSend<Session>>,
    mut exit: MessageWriter<AppExit>,
) {
    let Some(n) = launch.bench_frames else { return };
    if let Some(t) = auto.update_started.take()
        && session.is_some()
    {
        auto.samples.push(t.elapsed());
    }
    if auto.samples.len() as u32 >= n {
        let mut v = auto.samples.clone();
        v.sort();
        let pct = |p: f64| v[((v.len() as f64 - 1.0) * p).round() as usize];
        let combatants = session.map_or(0, |s| (s.view.tokens)(s.battle.world()).len());
        println!(
            "frame update CPU time over {} frames with {combatants} combatants: p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
            v.len(),
            pct(0.5).as_secs_f64() * 1000.0,
            pct(0.99).as_secs_f64() * 1000.0,
            v[v.len() - 1].as_secs_f64() * 1000.0
        );
        exit.write(AppExit::Success);
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Autoplay>()
        .add_systems(First, frame_start)
        .add_systems(Update, run.before(super::session::Drive))
        .add_systems(Last, frame_end);
}
