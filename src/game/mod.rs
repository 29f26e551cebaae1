//! The game window: a main menu, the battle screen, the result screen.
//!
//! The window only reads the battle and gives orders: the rules run in the
//! battle's own app ([`session::Session`]), the same systems `fray run` uses.
//! Screens are states; what a screen spawns is despawned when it exits.

use std::path::PathBuf;

use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;
use bevy::window::WindowResolution;
use bevy_egui::EguiPlugin;

mod autoplay;
mod board;
mod help;
pub mod input;
mod labels;
pub mod menu;
mod panels;
mod rows;
pub mod session;
mod timeline;

/// The screens.
#[derive(States, Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Screen {
    #[default]
    Menu,
    Battle,
    Result,
}

/// How the window was started.
#[derive(Resource, Clone, Debug, Default)]
pub struct Launch {
    /// Go straight into this scenario.
    pub scenario: Option<PathBuf>,
    /// Or into this saved battle, where it was saved.
    pub load: Option<PathBuf>,
    /// Then rewind it to the step that wrote this log entry.
    pub rewind_to: Option<u64>,
    pub seed: Option<u64>,
    /// Every side played by the AI (watch mode).
    pub all_ai: bool,
    /// How well the AI plays each side (`--ai`).
    pub ai: crate::AiArgs,
    /// Sides seated with people, by name.
    pub humans: Vec<String>,
    /// Play this many log events, then stop.
    pub steps: Option<u64>,
    /// Write a PNG of the window once `steps` are played (or at the result screen), then exit.
    pub screenshot: Option<PathBuf>,
    /// Drive every Human seat through the input actions a player uses, to the result screen.
    pub drive: bool,
    /// Report the CPU time of the frame's update after this many frames, then exit.
    pub bench_frames: Option<u32>,
}

/// The folder holding `rulesets/`, `scenarios/` and `settings/`.
pub fn assets_dir() -> PathBuf {
    let here = PathBuf::from("assets");
    if here.is_dir() {
        return here;
    }
    if let Ok(exe) = std::env::current_exe() {
        for dir in exe.ancestors().skip(1) {
            let candidate = dir.join("assets");
            if candidate.join("scenarios").is_dir() {
                return candidate;
            }
        }
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets")
}

/// Open the window and play until it is closed.
pub fn run(launch: Launch) -> Result<(), String> {
    let (bindings, key_names) =
        input::load_bindings(Some(&assets_dir().join("settings/input.ron")))
            .map_err(|e| e.to_string())?;
    let mut app = App::new();
    let mut plugins = DefaultPlugins.set(WindowPlugin {
        primary_window: Some(Window {
            title: "Fray".into(),
            resolution: WindowResolution::new(1280, 720).with_scale_factor_override(1.0),
            ..default()
        }),
        ..default()
    });
    let bench = launch.bench_frames.is_some();
    if bench {
        // Measuring the game's own update: keep the GPU (here a software
        // rasteriser on the same cores) out of the numbers.
        plugins = plugins.set(bevy::render::RenderPlugin {
            render_creation: bevy::render::settings::WgpuSettings {
                backends: None,
                ..default()
            }
            .into(),
            ..default()
        });
    }
    app.insert_resource(ClearColor(Color::srgb(0.09, 0.10, 0.12)))
        .add_plugins(plugins)
        .add_plugins(EguiPlugin::default())
        .init_state::<Screen>()
        .insert_resource(launch)
        .insert_resource(key_names)
        .add_systems(Startup, move |mut commands: Commands| {
            // One camera for the whole game: egui attaches to the first camera.
            commands.spawn((Camera2d, bindings.clone()));
        })
        .add_plugins((
            input::plugin,
            session::plugin,
            menu::plugin,
            board::plugin,
            labels::plugin,
            panels::plugin,
            help::plugin,
            autoplay::plugin,
        ));
    // The game's own systems are small: on a 2-core machine, running each
    // schedule on one thread beats waking workers (the renderer keeps its own).
    for label in [
        First.intern(),
        PreUpdate.intern(),
        Update.intern(),
        PostUpdate.intern(),
        Last.intern(),
    ] {
        app.edit_schedule(label, |s| {
            s.set_executor(bevy::ecs::schedule::SingleThreadedExecutor::new());
        });
    }
    match app.run() {
        AppExit::Success => Ok(()),
        AppExit::Error(code) => Err(format!("the game stopped with code {code}")),
    }
}
