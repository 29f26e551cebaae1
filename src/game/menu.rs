//! The main menu (scenario, seats, seed) and the result screen.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use fray_ai::AiLevel;
use fray_core::ai::STANDARD_SEARCH_WORK;
use fray_core::model::{BattleResult, Seat};
use fray_core::scenario::LoadedScenario;

use super::session::{Session, Setup, saves_dir};
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

/// A saved battle the menu offers.
struct Saved {
    path: PathBuf,
    words: String,
}

#[derive(Resource, Default)]
pub struct MenuState {
    entries: Vec<Entry>,
    saved: Vec<Saved>,
    problems: Vec<String>,
    selected: usize,
    /// Bring the selected scenario into view in the list (once, when the
    /// menu opens).
    show_selected: bool,
    seats: Vec<Seat>,
    /// The AI's level on each side it plays.
    ai: Vec<AiLevel>,
    /// The search AI's budget, in quarters of the ruleset's own work
    /// (None: the ruleset's own).
    search_quarters: Option<u64>,
    seed: u64,
    pub error: Option<String>,
}

/// The scenarios under their rulesets, the chosen one brought into view
/// when the menu opens; the one clicked, if any.
fn scenario_list(ui: &mut egui::Ui, state: &mut MenuState) -> Option<usize> {
    let mut picked = None;
    egui::ScrollArea::vertical()
        .id_salt("scenarios")
        .max_height(260.0)
        .show(ui, |ui| {
            for (i, e) in state.entries.iter().enumerate() {
                if i == 0 || state.entries[i - 1].ruleset != e.ruleset {
                    ui.label(egui::RichText::new(&e.ruleset).strong());
                }
                let label = format!("{} ({})", e.name, e.sides.join(" vs "));
                let r = ui.selectable_label(i == state.selected, label);
                if i == state.selected && state.show_selected {
                    r.scroll_to_me(Some(egui::Align::Center));
                }
                if r.on_hover_text(&e.description).clicked() {
                    picked = Some(i);
                }
            }
        });
    state.show_selected = false;
    picked
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

/// The saved battles, newest first: scenario, round and when.
fn scan_saves() -> Vec<Saved> {
    let mut paths: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(saves_dir())
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter(|e| e.path().extension().is_some_and(|x| x == "ron"))
                .map(|e| {
                    let when = e.metadata().and_then(|m| m.modified());
                    (when.unwrap_or(std::time::UNIX_EPOCH), e.path())
                })
                .collect()
        })
        .unwrap_or_default();
    paths.sort_by(|a, b| b.cmp(a));
    paths
        .into_iter()
        .map(|(_, path)| {
            let words = match fray_ai::save::BattleFile::read(&path) {
                Ok(f) => format!(
                    "{} — {}, round {}, saved {}",
                    f.name, f.ruleset, f.round, f.saved_at
                ),
                Err(e) => format!("cannot be read: {e}"),
            };
            Saved { path, words }
        })
        .collect()
}

/// Look for saved battles again whenever the menu opens.
fn rescan_saves(state: Option<ResMut<MenuState>>) {
    if let Some(mut state) = state {
        state.saved = scan_saves();
    }
}

fn scan() -> MenuState {
    let mut state = MenuState {
        saved: scan_saves(),
        ..Default::default()
    };
    let dir = assets_dir().join("scenarios");
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(d) => d.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(e) => {
            state.problems.push(format!("{}: {e}", dir.display()));
            Vec::new()
        }
    };
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
    if state.entries.is_empty() {
        state.problems.push(format!(
            "No scenario found in {}: start fray from the folder that holds assets/, or name a scenario file (fray play FILE).",
            dir.display()
        ));
    }
    // Grouped by ruleset, each group in the files' order.
    state.entries.sort_by(|a, b| a.ruleset.cmp(&b.ruleset));
    let preferred = state
        .entries
        .iter()
        .position(|e| e.path.ends_with("skirmish_4v4.ron"));
    state.selected = preferred.unwrap_or(0);
    state.show_selected = true;
    if let Some(e) = state.entries.get(state.selected) {
        state.seats = proposed_seats(&e.seats);
        state.ai = vec![MENU_AI; e.seats.len()];
        state.seed = e.seed;
    }
    state
}

/// Start from the command line's scenario, if one was given.
fn launch(launch: Res<Launch>, mut commands: Commands) {
    if let Some(file) = launch.load.clone() {
        commands.insert_resource(scan());
        commands.insert_resource(StartBattle(Setup {
            path: file.clone(),
            seed: 0,
            seats: Vec::new(),
            ai: Vec::new(),
            search_work: None,
            load: Some(file),
        }));
        return;
    }
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
        ai: crate::ai_levels(&scenario, &launch.ai.ai).unwrap_or_default(),
        search_work: launch.ai.search_work,
        load: None,
    }));
}

/// Build the battle asked for and enter the battle screen.
fn start_battle(world: &mut World) {
    let Some(StartBattle(setup)) = world.remove_resource::<StartBattle>() else {
        return;
    };
    let rewind_to = world.resource::<Launch>().rewind_to;
    let started = Session::start(setup).and_then(|mut s| {
        if let Some(seq) = rewind_to {
            s.rewind_to_entry(seq)?;
        }
        Ok(s)
    });
    match started {
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

/// The AI level the menu proposes for a seat the AI plays: the search, as
/// strong as the basic AI in every ruleset and stronger in most (README,
/// "How strong"), deciding within a few milliseconds, so that a person at
/// the screen meets the strongest opponent Fray has. The command
/// line keeps the basic AI as its default, for batches and logs.
const MENU_AI: AiLevel = AiLevel::Search;

/// What the menu offers for a seat: who plays, at which AI level (none:
/// the level is kept, for the AI after a script).
const SEAT_CHOICES: [(Seat, Option<AiLevel>, &str, &str); 6] = [
    (Seat::Human, None, "Human", "A person at this screen."),
    (
        Seat::Ai,
        Some(AiLevel::Search),
        "AI — search",
        "Plays its best few orders out to the end of the round, on forks of the battle, and gives another than the basic AI's only when surely better: a few milliseconds a decision.",
    ),
    (
        Seat::Ai,
        Some(AiLevel::Basic),
        "AI — basic",
        "Takes the order the ruleset appraises best, at once.",
    ),
    (
        Seat::Ai,
        Some(AiLevel::Greedy),
        "AI — greedy",
        "Always the order that deals the most damage, whatever it risks.",
    ),
    (
        Seat::Ai,
        Some(AiLevel::Random),
        "AI — random",
        "Random legal orders.",
    ),
    (
        Seat::Script,
        None,
        "Script",
        "The scenario's written orders, then the AI.",
    ),
];

/// The seat choices of side `i`, in one row.
fn seat_row(ui: &mut egui::Ui, state: &mut MenuState, i: usize) {
    if state.ai.len() <= i {
        state.ai.resize(i + 1, MENU_AI);
    }
    let Some(&current) = state.seats.get(i) else {
        return;
    };
    for (seat, level, label, tip) in SEAT_CHOICES {
        let on = current == seat && level.is_none_or(|l| state.ai[i] == l);
        if ui.selectable_label(on, label).on_hover_text(tip).clicked() {
            state.seats[i] = seat;
            if let Some(l) = level {
                state.ai[i] = l;
            }
        }
    }
}

/// How much work a search AI may spend on each decision: quarters of the
/// ruleset's own work (None: the ruleset's own).
const SEARCH_BUDGETS: [(Option<u64>, &str, &str); 3] = [
    (
        Some(1),
        "quick",
        "A quarter of the ruleset's own futures played out, a few milliseconds a decision.",
    ),
    (
        None,
        "standard",
        "About 20 ms a decision at most on a 2-core laptop: the ruleset's own work (rules steps played ahead, weighed by the ruleset and the size of the field), 18,000; 36,000 under phases and detailed_sequence, where more futures pay; 72,000 under crucible, where the cells its futures' paths search count too.",
    ),
    (
        Some(16),
        "deep",
        "Four times the ruleset's own futures played out, up to about 80 ms a decision.",
    ),
];

/// The work a search AI spends on a decision under `ruleset` at the
/// budget chosen in the menu, in quarters of the ruleset's own.
fn search_work(ruleset: &str, quarters: Option<u64>) -> Option<u64> {
    let own = fray_rules::ruleset(ruleset).map_or(STANDARD_SEARCH_WORK, |r| r.search_work);
    quarters.map(|q| own * q / 4)
}

/// The search AI's budget, to be chosen when a side is seated with it.
fn search_budget(ui: &mut egui::Ui, state: &mut MenuState) {
    let searching = state
        .seats
        .iter()
        .zip(&state.ai)
        .any(|(s, l)| *s != Seat::Human && *l == AiLevel::Search);
    // Always there, so the menu does not move as seats change.
    ui.add_enabled_ui(searching, |ui| {
        ui.horizontal(|ui| {
            ui.label("Search budget:");
            for (quarters, label, tip) in SEARCH_BUDGETS {
                let on = state.search_quarters == quarters;
                if ui.selectable_label(on, label).on_hover_text(tip).clicked() {
                    state.search_quarters = quarters;
                }
            }
        });
    });
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
            let picked = scenario_list(ui, &mut state);
            if let Some(i) = picked {
                state.selected = i;
                let e = &state.entries[i];
                let seats = proposed_seats(&e.seats);
                let seed = e.seed;
                state.ai = vec![MENU_AI; seats.len()];
                state.seats = seats;
                state.seed = seed;
            }
            for p in &state.problems {
                ui.colored_label(egui::Color32::from_rgb(220, 120, 80), p);
            }
            if let Some(e) = state.entries.get(state.selected) {
                let (path, ruleset, sides) = (e.path.clone(), e.ruleset.clone(), e.sides.clone());
                ui.separator();
                ui.label(&e.description);
                ui.label(format!(
                    "Ruleset: {ruleset} — run `fray rules {ruleset}` for its phases and rulings."
                ));
                ui.heading("Seats");
                for (i, side) in sides.iter().enumerate() {
                    ui.horizontal(|ui| {
                        ui.label(format!("{side}:"));
                        seat_row(ui, &mut state, i);
                    });
                }
                search_budget(ui, &mut state);
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
                            ai: state.ai.clone(),
                            search_work: search_work(&ruleset, state.search_quarters),
                            load: None,
                        }));
                    }
                    if ui.button("Watch (AI on every side)").clicked() {
                        commands.insert_resource(StartBattle(Setup {
                            path: path.clone(),
                            seed: state.seed,
                            seats: vec![Seat::Ai; sides.len()],
                            ai: state.ai.clone(),
                            search_work: search_work(&ruleset, state.search_quarters),
                            load: None,
                        }));
                    }
                    if ui.button("Quit").clicked() {
                        exit.write(AppExit::Success);
                    }
                });
            }
            saved_battles(ui, &state, &mut commands);
            if let Some(err) = &state.error {
                ui.colored_label(egui::Color32::from_rgb(230, 90, 90), err);
            }
        });
    Ok(())
}

/// The saved battles, each with a button that goes on with it.
fn saved_battles(ui: &mut egui::Ui, state: &MenuState, commands: &mut Commands) {
    ui.separator();
    egui::CollapsingHeader::new(format!("Saved battles ({})", state.saved.len()))
        .default_open(!state.saved.is_empty())
        .show(ui, |ui| {
            if state.saved.is_empty() {
                ui.label(format!(
                    "None yet. Ctrl+S saves a battle to {}.",
                    saves_dir().display()
                ));
            }
            egui::ScrollArea::vertical()
                .max_height(110.0)
                .show(ui, |ui| {
                    for saved in &state.saved {
                        ui.horizontal(|ui| {
                            if ui
                                .button("Load")
                                .on_hover_text(saved.path.display().to_string())
                                .clicked()
                            {
                                commands.insert_resource(StartBattle(Setup {
                                    path: saved.path.clone(),
                                    seed: 0,
                                    seats: Vec::new(),
                                    ai: Vec::new(),
                                    search_work: None,
                                    load: Some(saved.path.clone()),
                                }));
                            }
                            ui.label(&saved.words);
                        });
                    }
                });
        });
}

fn result_ui(
    mut contexts: EguiContexts,
    session: Option<NonSendMut<Session>>,
    mut commands: Commands,
    mut next: ResMut<NextState<Screen>>,
    board: (
        ResMut<super::panels::BoardArea>,
        ResMut<super::board::Refit>,
    ),
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let Some(mut s) = session else { return Ok(()) };
    let shown = egui::Window::new("The battle is over")
        .anchor(egui::Align2::RIGHT_TOP, [-16.0, 16.0])
        .collapsible(false)
        .resizable(false)
        .min_width(420.0)
        .show(ctx, |ui| {
            let sides = s.sides();
            let rounds_words = |n: u32| fray_core::model::count_of(n, s.view.round_unit);
            let text = match s.result() {
                Some(BattleResult::Victory { side, rounds }) => {
                    format!(
                        "The winner is {}, after {}.",
                        sides.0.get(*side).map_or("?", |x| x.name.as_str()),
                        rounds_words(*rounds)
                    )
                }
                Some(BattleResult::MutualDestruction { rounds }) => {
                    format!("Nobody is left standing after {}.", rounds_words(*rounds))
                }
                Some(BattleResult::RoundCap { rounds }) => {
                    let unit = s.view.round_unit;
                    format!("No winner: the {unit} cap of {rounds} was reached.")
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
            if let Some(n) = &s.notice {
                ui.label(n);
            }
            ui.separator();
            ui.horizontal(|ui| {
                if ui
                    .button("Save the replay")
                    .on_hover_text(
                        "A battle file: load it from the main menu, or `fray replay FILE`",
                    )
                    .clicked()
                    && let Err(why) = s.save()
                {
                    s.notice = Some(format!("Not saved: {why}"));
                }
                if ui.button("Replay this battle").clicked() {
                    commands.insert_resource(StartBattle(s.setup.clone()));
                }
                if ui
                    .button("Back to the battlefield")
                    .on_hover_text("Look over the battle: pick a log entry and rewind to it")
                    .clicked()
                {
                    s.reviewing = true;
                    s.paused = true;
                    next.set(Screen::Battle);
                }
                if ui.button("Main menu").clicked() {
                    next.set(Screen::Menu);
                }
            });
        });
    if let Some(shown) = shown {
        beside(ctx, shown.response.rect, board);
    }
    Ok(())
}

/// The board fitted to the window's space left of the result, so the
/// result covers none of it.
fn beside(
    ctx: &egui::Context,
    result: egui::Rect,
    (mut area, mut refit): (
        ResMut<super::panels::BoardArea>,
        ResMut<super::board::Refit>,
    ),
) {
    let window = ctx.viewport_rect();
    let free = Rect::new(window.min.x, window.min.y, result.min.x - 8.0, window.max.y);
    if area.0 != Some(free) {
        area.0 = Some(free);
        refit.0 = true;
    }
}

/// Leaving the result screen for the menu ends the session.
fn end_session(world: &mut World) {
    world.remove_non_send::<Session>();
}

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, launch)
        .add_systems(Update, start_battle)
        .add_systems(OnEnter(Screen::Menu), (end_session, rescan_saves))
        .add_systems(
            EguiPrimaryContextPass,
            menu_ui.run_if(in_state(Screen::Menu).and_then(resource_exists::<MenuState>)),
        )
        .add_systems(
            EguiPrimaryContextPass,
            result_ui.run_if(in_state(Screen::Result)),
        );
}

#[cfg(test)]
mod tests {
    use super::search_work;

    #[test]
    fn the_menus_budgets_are_quarters_of_the_rulesets_own_work() {
        assert_eq!(search_work("declared", None), None);
        assert_eq!(search_work("declared", Some(1)), Some(4_500));
        assert_eq!(search_work("phases", Some(1)), Some(9_000));
        assert_eq!(search_work("detailed_sequence", Some(16)), Some(144_000));
        assert_eq!(search_work("crucible", Some(16)), Some(288_000));
        assert_eq!(search_work("segments", Some(16)), Some(72_000));
    }
}
