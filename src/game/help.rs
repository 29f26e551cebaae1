//! Help in the battle: F1 (or the *Help* button) opens the controls and a
//! legend of the board — what the colours, outlines, bars and marks mean,
//! the ruleset's own from its view.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use leafwing_input_manager::prelude::*;

use super::Screen;
use super::input::{GameAction, KeyNames};
use super::session::Session;

/// Whether the help is open.
#[derive(Resource, Default)]
pub struct HelpOpen(pub bool);

/// The controls: the actions whose keys the bindings give (their names in
/// `assets/settings/input.ron`), or the mouse's, and what they do.
const CONTROLS: &[(&[&str], &str, &str)] = &[
    (&["Pause"], "", "play or pause"),
    (&["Step"], "", "one rules step"),
    (&["Back"], "", "back one step"),
    (&["Undo"], "", "take back one's last order"),
    (&["NextRound"], "", "on to the next ROUND"),
    (&["Slower", "Faster"], "", "slower and faster"),
    (&["Choose1", "Choose9"], "", "the numbered choices"),
    (&["Choose10"], "", "the tenth choice"),
    (&["Choose11", "Choose20"], "", "choices 11 to 20"),
    (&[], "click a choice", "give that order"),
    (&[], "click an enemy, a cell", "attack it, move there"),
    (&[], "click a token", "its sheet"),
    (
        &[],
        "click a log entry",
        "its dice and its rule, and who on the board",
    ),
    (&["Confirm"], "", "confirm a hotseat hand-off"),
    (
        &["PanUp", "PanLeft", "PanDown", "PanRight"],
        "",
        "pan (or drag with the right button)",
    ),
    (&["ZoomIn", "ZoomOut"], "", "zoom (or the wheel)"),
    (&["Fit"], "", "fit the board to the window"),
    (&["Save"], "", "save the battle"),
    (&["Menu"], "", "the menu"),
    (&["Help"], "", "this help"),
];

/// What the board shows, whatever the ruleset.
const BOARD: &[(&str, &str)] = &[
    (
        "blue, red … discs",
        "combatants, coloured by side; faded: out of the fight",
    ),
    (
        "small text under a name",
        "its states: surprised, dying, readied …",
    ),
    (
        "numbers floating up",
        "damage just taken (red) or healed (green)",
    ),
    ("brown cells", "difficult ground: entering costs double"),
    ("black cells", "obstacles"),
    ("yellow outline", "the combatant selected or deciding"),
    (
        "green outlines",
        "the cells it can reach with the movement it has left",
    ),
    (
        "red outlines",
        "cells an enemy threatens: moving into, out of or within them may provoke it, as the ruleset says; the path's words name whom",
    ),
    (
        "yellow line from a token",
        "the path a move to the hovered cell takes",
    ),
    (
        "brief line between tokens",
        "an action one aimed at the other, just made",
    ),
    ("white outline", "the cell under the pointer"),
    (
        "pink rings and arrow",
        "the log entry picked (in the log or on the timeline): who did it, and to whom",
    ),
    (
        "a name missing over a token",
        "it would cover a neighbour: point at the token to see its name and states",
    ),
    (
        "cyan outline and line",
        "the cell a hovered choice names, and who it is for",
    ),
];

fn toggle(actions: Single<&ActionState<GameAction>>, mut open: ResMut<HelpOpen>) {
    if actions.just_pressed(&GameAction::Help) {
        open.0 = !open.0;
    }
}

/// The controls with the keys the bindings give them, a round called what
/// the ruleset calls it (`unit`).
fn controls(keys: &KeyNames, unit: &str) -> Vec<(String, String)> {
    CONTROLS
        .iter()
        .map(|(actions, mouse, means)| {
            // The numbered choices read as a range: "1 to 9".
            let keyed = match actions {
                [first, last] if first.starts_with("Choose") => keys
                    .of(&[first])
                    .zip(keys.of(&[last]))
                    .map(|(a, b)| format!("{a} to {b}")),
                _ => keys.of(actions),
            };
            let how = keyed.unwrap_or_else(|| {
                if mouse.is_empty() {
                    "unbound".into()
                } else {
                    (*mouse).into()
                }
            });
            (how, means.replace("ROUND", unit))
        })
        .collect()
}

fn rows<A: AsRef<str>, B: AsRef<str>>(ui: &mut egui::Ui, id: &str, rows: &[(A, B)]) {
    egui::Grid::new(id)
        .num_columns(2)
        .spacing([12.0, 4.0])
        .show(ui, |ui| {
            for (what, means) in rows {
                ui.label(egui::RichText::new(what.as_ref()).strong());
                ui.add(egui::Label::new(means.as_ref()).wrap());
                ui.end_row();
            }
        });
}

fn help_window(
    mut contexts: EguiContexts,
    session: Option<NonSend<Session>>,
    mut open: ResMut<HelpOpen>,
    keys: Option<Res<KeyNames>>,
) -> Result {
    if !open.0 {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let legend = session.as_ref().map_or(&[][..], |s| s.view.legend);
    let unit = session.as_ref().map_or("round", |s| s.view.round_unit);
    egui::Window::new("Help")
        .open(&mut open.0)
        .order(egui::Order::Foreground)
        .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
        .collapsible(false)
        .resizable(false)
        .fixed_size([900.0, 560.0])
        .show(ctx, |ui| {
            ui.columns(2, |cols| {
                cols[0].heading("Controls");
                let keys = keys.as_deref().cloned().unwrap_or_default();
                rows(&mut cols[0], "help_controls", &controls(&keys, unit));
                cols[0].label(
                    egui::RichText::new("Bindings are in assets/settings/input.ron.").small(),
                );
                egui::ScrollArea::vertical()
                    .id_salt("help_legend")
                    .show(&mut cols[1], |ui| {
                        ui.heading("The board");
                        rows(ui, "help_board", BOARD);
                        if !legend.is_empty() {
                            ui.separator();
                            ui.heading("This ruleset");
                            rows(ui, "help_ruleset", legend);
                        }
                    });
            });
        });
    Ok(())
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<HelpOpen>()
        .add_systems(
            Update,
            toggle.run_if(in_state(Screen::Battle).or_else(in_state(Screen::Result))),
        )
        .add_systems(
            EguiPrimaryContextPass,
            help_window.run_if(in_state(Screen::Battle).or_else(in_state(Screen::Result))),
        );
}
