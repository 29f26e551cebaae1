//! Input: every key and mouse button goes through leafwing-input-manager
//! actions, bound from `assets/settings/input.ron`, which a player can edit.

use std::collections::BTreeMap;
use std::path::Path;

use bevy::prelude::*;
use fray_core::data::{LoadError, Source};
use leafwing_input_manager::prelude::*;
use serde::Deserialize;

/// What a player can do with keys and the mouse.
#[derive(Actionlike, PartialEq, Eq, Clone, Copy, Hash, Debug, Reflect)]
pub enum GameAction {
    PanUp,
    PanDown,
    PanLeft,
    PanRight,
    ZoomIn,
    ZoomOut,
    /// Fit the board to the window again.
    Fit,
    /// Open or close the help: controls and legend.
    Help,
    #[actionlike(Axis)]
    Zoom,
    #[actionlike(DualAxis)]
    PointerMotion,
    Drag,
    Select,
    Pause,
    Step,
    /// Rewind one step.
    Back,
    /// Take back the last order one gave.
    Undo,
    Save,
    NextRound,
    Faster,
    Slower,
    Confirm,
    Menu,
    Choose1,
    Choose2,
    Choose3,
    Choose4,
    Choose5,
    Choose6,
    Choose7,
    Choose8,
    Choose9,
    Choose10,
    Choose11,
    Choose12,
    Choose13,
    Choose14,
    Choose15,
    Choose16,
    Choose17,
    Choose18,
    Choose19,
    Choose20,
}

impl GameAction {
    /// The action named in the settings file.
    fn named(name: &str) -> Option<Self> {
        use GameAction::*;
        Some(match name {
            "PanUp" => PanUp,
            "PanDown" => PanDown,
            "PanLeft" => PanLeft,
            "PanRight" => PanRight,
            "ZoomIn" => ZoomIn,
            "ZoomOut" => ZoomOut,
            "Fit" => Fit,
            "Help" => Help,
            "Drag" => Drag,
            "Select" => Select,
            "Pause" => Pause,
            "Step" => Step,
            "Back" => Back,
            "Undo" => Undo,
            "Save" => Save,
            "NextRound" => NextRound,
            "Faster" => Faster,
            "Slower" => Slower,
            "Confirm" => Confirm,
            "Menu" => Menu,
            "Choose1" => Choose1,
            "Choose2" => Choose2,
            "Choose3" => Choose3,
            "Choose4" => Choose4,
            "Choose5" => Choose5,
            "Choose6" => Choose6,
            "Choose7" => Choose7,
            "Choose8" => Choose8,
            "Choose9" => Choose9,
            "Choose10" => Choose10,
            "Choose11" => Choose11,
            "Choose12" => Choose12,
            "Choose13" => Choose13,
            "Choose14" => Choose14,
            "Choose15" => Choose15,
            "Choose16" => Choose16,
            "Choose17" => Choose17,
            "Choose18" => Choose18,
            "Choose19" => Choose19,
            "Choose20" => Choose20,
            _ => return None,
        })
    }

    /// The choose-the-nth-choice actions, in order.
    pub const CHOOSE: [GameAction; 20] = [
        GameAction::Choose1,
        GameAction::Choose2,
        GameAction::Choose3,
        GameAction::Choose4,
        GameAction::Choose5,
        GameAction::Choose6,
        GameAction::Choose7,
        GameAction::Choose8,
        GameAction::Choose9,
        GameAction::Choose10,
        GameAction::Choose11,
        GameAction::Choose12,
        GameAction::Choose13,
        GameAction::Choose14,
        GameAction::Choose15,
        GameAction::Choose16,
        GameAction::Choose17,
        GameAction::Choose18,
        GameAction::Choose19,
        GameAction::Choose20,
    ];
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Bindings {
    keys: BTreeMap<String, Vec<KeyCode>>,
    /// Keys pressed with Control.
    #[serde(default)]
    control: BTreeMap<String, Vec<KeyCode>>,
    /// Keys pressed with Shift.
    #[serde(default)]
    shift: BTreeMap<String, Vec<KeyCode>>,
    #[serde(default)]
    mouse: BTreeMap<String, Vec<MouseButton>>,
}

/// The built-in bindings, used when no settings file is found.
const DEFAULT_BINDINGS: &str = include_str!("../../assets/settings/input.ron");

/// The keys bound to each action, as the help shows them ("P", "Ctrl+S"),
/// by the action's name in the settings file.
#[derive(Resource, Clone, Debug, Default)]
pub struct KeyNames {
    pub keys: BTreeMap<String, Vec<String>>,
    /// The mouse buttons that select, for taps.
    pub taps: Taps,
}

/// The mouse buttons bound to Select: a press and release within one frame
/// (a touchpad tap) on one of them selects too.
#[derive(Clone, Debug, Default)]
pub struct Taps(pub Vec<MouseButton>);

impl Taps {
    /// Whether one of the buttons went down and up since the last frame.
    pub fn tapped(&self, mouse: &ButtonInput<MouseButton>) -> bool {
        self.0
            .iter()
            .any(|b| mouse.just_pressed(*b) && !mouse.pressed(*b))
    }
}

impl KeyNames {
    /// The keys of `actions`, joined ("Space or Enter"); `None` if unbound.
    pub fn of(&self, actions: &[&str]) -> Option<String> {
        let keys: Vec<&str> = actions
            .iter()
            .filter_map(|a| self.keys.get(*a))
            .flatten()
            .map(String::as_str)
            .collect();
        match keys.as_slice() {
            [] => None,
            [one] => Some((*one).to_string()),
            [most @ .., last] => Some(format!("{} or {last}", most.join(", "))),
        }
    }
}

/// A key as a player reads it: `KeyP` is "P", `Period` is ".".
fn key_name(key: &KeyCode) -> String {
    let debug = format!("{key:?}");
    let short = match debug.as_str() {
        "Period" => ".",
        "Comma" => ",",
        "BracketLeft" => "[",
        "BracketRight" => "]",
        "Equal" => "=",
        "Minus" => "−",
        "NumpadAdd" => "numpad +",
        "NumpadSubtract" => "numpad −",
        "ArrowUp" => "Up",
        "ArrowDown" => "Down",
        "ArrowLeft" => "Left",
        "ArrowRight" => "Right",
        other => other
            .strip_prefix("Key")
            .or_else(|| other.strip_prefix("Digit"))
            .unwrap_or(other),
    };
    short.to_string()
}

/// Read the bindings file at `path` (or the built-in one) into an input map,
/// with the names of the keys bound, for the help.
pub fn load_bindings(path: Option<&Path>) -> Result<(InputMap<GameAction>, KeyNames), LoadError> {
    let source = match path {
        Some(p) if p.is_file() => Source::read(p)?,
        _ => Source::inline("assets/settings/input.ron", DEFAULT_BINDINGS),
    };
    let bindings: Bindings = source.parse()?;
    let mut names = KeyNames::default();
    for (name, keys) in &bindings.keys {
        let words = names.keys.entry(name.clone()).or_default();
        words.extend(keys.iter().map(key_name));
    }
    for (name, keys) in &bindings.control {
        let words = names.keys.entry(name.clone()).or_default();
        words.extend(keys.iter().map(|k| format!("Ctrl+{}", key_name(k))));
    }
    for (name, keys) in &bindings.shift {
        let words = names.keys.entry(name.clone()).or_default();
        words.extend(keys.iter().map(|k| format!("Shift+{}", key_name(k))));
    }
    names.taps = Taps(bindings.mouse.get("Select").cloned().unwrap_or_default());
    let mut map = InputMap::default();
    for (name, keys) in &bindings.keys {
        let action = GameAction::named(name)
            .ok_or_else(|| source.error_at(name, None, format!("no action named {name:?}")))?;
        for key in keys {
            map.insert(action, *key);
        }
    }
    for (name, keys) in &bindings.control {
        let action = GameAction::named(name)
            .ok_or_else(|| source.error_at(name, None, format!("no action named {name:?}")))?;
        for key in keys {
            map.insert(
                action,
                ButtonlikeChord::modified(ModifierKey::Control, *key),
            );
        }
    }
    for (name, keys) in &bindings.shift {
        let action = GameAction::named(name)
            .ok_or_else(|| source.error_at(name, None, format!("no action named {name:?}")))?;
        for key in keys {
            map.insert(action, ButtonlikeChord::modified(ModifierKey::Shift, *key));
        }
    }
    for (name, buttons) in &bindings.mouse {
        let action = GameAction::named(name)
            .ok_or_else(|| source.error_at(name, None, format!("no action named {name:?}")))?;
        for b in buttons {
            map.insert(action, *b);
        }
    }
    map.insert_axis(GameAction::Zoom, MouseScrollAxis::Y);
    map.insert_dual_axis(GameAction::PointerMotion, MouseMove::default());
    Ok((map, names))
}

pub(super) fn plugin(app: &mut App) {
    app.add_plugins(InputManagerPlugin::<GameAction>::default());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_bindings_load() {
        let (map, names) = load_bindings(None).unwrap();
        assert!(!map.get(&GameAction::Confirm).unwrap().is_empty());
        assert_eq!(names.of(&["Confirm"]).unwrap(), "Space or Enter");
        assert_eq!(names.of(&["Save"]).unwrap(), "Ctrl+S");
        // Choices 11 to 20: the digits with Shift.
        assert_eq!(names.of(&["Choose11"]).unwrap(), "Shift+1");
        assert_eq!(names.of(&["Choose20"]).unwrap(), "Shift+0");
        assert!(!map.get(&GameAction::Choose20).unwrap().is_empty());
        assert_eq!(names.of(&["Slower", "Faster"]).unwrap(), "[ or ]");
        // A tap: the left button down and up between two frames.
        let mut mouse = ButtonInput::<MouseButton>::default();
        assert!(!names.taps.tapped(&mouse));
        mouse.press(MouseButton::Left);
        assert!(!names.taps.tapped(&mouse), "held, not tapped");
        mouse.clear();
        mouse.release(MouseButton::Left);
        mouse.clear();
        mouse.press(MouseButton::Left);
        mouse.release(MouseButton::Left);
        assert!(names.taps.tapped(&mouse));
    }

    #[test]
    fn a_wrong_action_name_points_at_it() {
        let dir = std::env::temp_dir().join(format!("fray-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("input.ron");
        std::fs::write(&f, "(\n  keys: {\n    \"Jump\": [Space],\n  },\n)").unwrap();
        let e = load_bindings(Some(&f)).unwrap_err();
        assert_eq!((e.line, e.col), (3, 5));
        assert!(e.message.contains("no action named \"Jump\""));
        let _ = std::fs::remove_dir_all(dir);
    }
}
