//! The main menu (scenario, seats, seed) and the result screen.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use fray_core::model::{BattleResult, Seat};
use fray_core::scenario::LoadedScenario;

use super::session::{Session, Setup};
use super::{Launch, Screen, assets_dir};

/// A scenario the menu offers.
struct Entry {
    path: PathBuf,
    name: String,
    description: String,
    ruleset: String,
    sides: Vec<String>,
    seats: Vec<Seat>,
    seed: u64,
}

#[derive(Resource, Default)]
pub struct MenuState {
    entries: Vec<Entry>,
    problems: Vec<String>,
    selected: usize,
    seats: Vec<Seat>,
    seed: u64,
    pub error: Option<String>,
}

/// A battle the menu (or the command line) asked for; started by an exclusive system.
#[derive(Resource)]
pub struct StartBattle(pub Setup);

/// Seats the menu proposes: the scenario's, with a person on the first side
/// that is not scripted when nobody else is seated Human.
fn proposed_seats(seats: &[Seat]) -> Vec<Seat> {
    let mut out: Vec<Seat> = seats.to_vec();
    if !out.contains(&Seat::Human)
        && let Some(first) = out.iter_mut().find(|s| **s != Seat::Script)
    {
        *first = Seat::Human;
    }
    if !out.contains(&Seat::Human)
        && let Some(first) = out.first_mut()
    {
        *first = Seat::Human;
    }
    out
}

fn scan() -> MenuState {
    let mut state = MenuState::default();
    let dir = assets_dir().join("scenarios");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.sort();
    for path in paths
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
    {
        match LoadedScenario::load(&path) {
            Ok(s) => state.entries.push(Entry {
                name: s.scenario.name.clone(),
                description: s.scenario.description.clone(),
                ruleset: s.scenario.ruleset.clone(),
                sides: s.scenario.sides.iter().map(|x| x.name.clone()).collect(),
                seats: s.scenario.sides.iter().map(|x| x.seat).collect(),
                seed: s.scenario.seed,
                path,
            }),
            Err(e) => state.problems.push(e.to_string()),
        }
    }
    let preferred = state
        .entries
        .iter()
        .position(|e| e.path.ends_with("skirmish_4v4.ron"));
    state.selected = preferred.unwrap_or(0);
    if let Some(e) = state.entries.get(state.selected) {
        state.seats = proposed_seats(&e.seats);
        state.seed = e.seed;
    }
    state
}

/// Start from the command line's scenario, if one was given.
fn launch(launch: Res<Launch>, mut commands: Commands) {
    let Some(path) = launch.scenario.clone() else {
        commands.insert_resource(scan());
        return;
    };
    let scenario = match LoadedScenario::load(&path) {
        Ok(s) => s,
        Err(e) => {
            let mut state = scan();
            state.error = Some(e.to_string());
            commands.insert_resource(state);
            return;
        }
    };
    let seats = scenario
        .scenario
        .sides
        .iter()
        .map(|side| {
            if launch.humans.contains(&side.name) {
                Seat::Human
            } else if launch.all_ai {
                Seat::Ai
            } else {
                side.seat
            }
        })
        .collect();
    commands.insert_resource(scan());
    commands.insert_resource(StartBattle(Setup {
        path,
        seed: launch.seed.unwrap_or(scenario.scenario.seed),
        seats,
    }));
}

/// Build the battle asked for and enter the battle screen.
fn start_battle(world: &mut World) {
    let Some(StartBattle(setup)) = world.remove_resource::<StartBattle>() else {
        return;
    };
    match Session::start(setup) {
        Ok(session) => {
            world.insert_non_send(session);
            world
                .resource_mut::<NextState<Screen>>()
                .set(Screen::Battle);
        }
        Err(e) => {
            if let Some(mut m) = world.get_resource_mut::<MenuState>() {
                m.error = Some(e);
            }
            world.resource_mut::<NextState<Screen>>().set(Screen::Menu);
        }
    }
}

fn seat_name(seat: Seat) -> &'static str {
    match seat {
        Seat::Human => "Human",
        Seat::Ai => "AI",
        Seat::Script => "Script",
    }
}

fn menu_ui(
    mut contexts: EguiContexts,
    mut state: ResMut<MenuState>,
    mut commands: Commands,
    mut exit: MessageWriter<AppExit>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    egui::Window::new("Fray")
        .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
        .collapsible(false)
        .resizable(false)
        .min_width(520.0)
        .show(ctx, |ui| {
            ui.label("Tactical combat that plays tabletop combat procedures faithfully.");
            ui.separator();
            ui.heading("Scenario");
            let mut picked = None;
            for (i, e) in state.entries.iter().enumerate() {
                let label = format!("{} — {} ({})", e.name, e.ruleset, e.sides.join(" vs "));
                if ui
                    .selectable_label(i == state.selected, label)
                    .on_hover_text(&e.description)
                    .clicked()
                {
                    picked = Some(i);
                }
            }
            if let Some(i) = picked {
                state.selected = i;
                let e = &state.entries[i];
                let seats = proposed_seats(&e.seats);
                let seed = e.seed;
                state.seats = seats;
                state.seed = seed;
            }
            for p in &state.problems {
                ui.colored_label(egui::Color32::from_rgb(220, 120, 80), p);
            }
            if let Some(e) = state.entries.get(state.selected) {
                let (path, ruleset, sides) = (e.path.clone(), e.ruleset.clone(), e.sides.clone());
                ui.separator();
                ui.label(format!(
                    "Ruleset: {ruleset} — run `fray rules {ruleset}` for its phases and rulings."
                ));
                ui.heading("Seats");
                for (i, side) in sides.iter().enumerate() {
                    ui.horizontal(|ui| {
                        ui.label(format!("{side}:"));
                        // A scripted side plays the scenario's orders, then the AI.
                        for seat in [Seat::Human, Seat::Ai, Seat::Script] {
                            if let Some(s) = state.seats.get_mut(i) {
                                ui.selectable_value(s, seat, seat_name(seat));
                            }
                        }
                    });
                }
                ui.horizontal(|ui| {
                    ui.label("Seed:");
                    ui.add(egui::DragValue::new(&mut state.seed));
                });
                ui.separator();
                ui.horizontal(|ui| {
                    if ui.button("Start battle").clicked() {
                        commands.insert_resource(StartBattle(Setup {
                            path: path.clone(),
                            seed: state.seed,
                            seats: state.seats.clone(),
                        }));
                    }
                    if ui.button("Watch (AI on every side)").clicked() {
                        commands.insert_resource(StartBattle(Setup {
                            path: path.clone(),
                            seed: state.seed,
                            seats: vec![Seat::Ai; sides.len()],
                        }));
                    }
                    if ui.button("Quit").clicked() {
                        exit.write(AppExit::Success);
                    }
                });
            }
            if let Some(err) = &state.error {
                ui.colored_label(egui::Color32::from_rgb(230, 90, 90), err);
            }
        });
    Ok(())
}

fn result_ui(
    mut contexts: EguiContexts,
    session: Option<NonSend<Session>>,
    mut commands: Commands,
    mut next: ResMut<NextState<Screen>>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let Some(s) = session else { return Ok(()) };
    egui::Window::new("The battle is over")
        .anchor(egui::Align2::RIGHT_TOP, [-16.0, 16.0])
        .collapsible(false)
        .resizable(false)
        .min_width(420.0)
        .show(ctx, |ui| {
            let sides = s.sides();
            let text = match s.result() {
                Some(BattleResult::Victory { side, rounds }) => {
                    format!(
                        "{} wins after {}.",
                        sides.0.get(*side).map_or("?", |x| x.name.as_str()),
                        rounds_words(*rounds)
                    )
                }
                Some(BattleResult::MutualDestruction { rounds }) => {
                    format!("Nobody is left standing after {}.", rounds_words(*rounds))
                }
                Some(BattleResult::RoundCap { rounds }) => {
                    format!("No winner: the round cap of {rounds} was reached.")
                }
                None => "The battle stopped.".into(),
            };
            ui.heading(text);
            ui.separator();
            ui.label("Casualties:");
            for t in (s.view.tokens)(s.battle.world()) {
                if t.out || t.gone {
                    let side = sides.0.get(t.side).map_or("?", |x| x.name.as_str());
                    ui.label(format!("  {} ({side}): {}", t.name, t.states.join(", ")));
                }
            }
            ui.label(format!(
                "Log: {} entries. Seed {}.",
                s.log().entries().len(),
                s.setup.seed
            ));
            ui.separator();
            ui.horizontal(|ui| {
                if ui.button("Replay this battle").clicked() {
                    commands.insert_resource(StartBattle(s.setup.clone()));
                }
                if ui.button("Back to the battlefield").clicked() {
                    next.set(Screen::Battle);
                }
                if ui.button("Main menu").clicked() {
                    next.set(Screen::Menu);
                }
            });
        });
    Ok(())
}

/// Leaving the result screen for the menu ends the session.
fn end_session(world: &mut World) {
    world.remove_non_send::<Session>();
}

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, launch)
        .add_systems(Update, start_battle)
        .add_systems(OnEnter(Screen::Menu), end_session)
        .add_systems(
            EguiPrimaryContextPass,
            menu_ui.run_if(in_state(Screen::Menu).and_then(resource_exists::<MenuState>)),
        )
        .add_systems(
            EguiPrimaryContextPass,
            result_ui.run_if(in_state(Screen::Result)),
        );
}

/// "1 round" or "n rounds".
fn rounds_words(n: u32) -> String {
    if n == 1 {
        "1 round".into()
    } else {
        format!("{n} rounds")
    }
}
