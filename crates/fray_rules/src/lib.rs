#![forbid(unsafe_code)]
//! Fray's rulesets. Each is a plugin that adds its phases, in the text's
//! order, to the [`RulesStep`](fray_core::battle::RulesStep) schedule, and a
//! data file under `assets/rulesets/` that holds its tables and rulings.

use serde::Deserialize;

pub mod declared;
pub mod detailed;
pub mod phases;

/// One phase of a round, as `fray rules ID` lists it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhaseDoc {
    pub name: String,
    /// The paragraph it comes from (`004 §Step 2`).
    pub rule: String,
    pub summary: String,
}

/// Where a paragraph of the text is implemented, as `fray rules ID` maps it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Paragraph {
    /// The name log entries cite (`002 §Delay`).
    pub rule: String,
    /// How the paragraph begins, to find it in the text.
    pub begins: String,
    /// Where Fray implements it, or the ruling it rests on.
    pub implemented: String,
}

/// A choice the text leaves to the game master, made once and written down.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ruling {
    /// The name log entries cite (`ruling attack_roll`).
    pub id: String,
    /// The paragraph whose gap it fills.
    pub rule: String,
    /// What the text leaves open.
    pub gap: String,
    /// What Fray does.
    pub ruling: String,
}

/// The stat block a scenario's combatant names, or where the scenario is
/// wrong and which blocks the ruleset has.
pub fn template<'a, T>(
    templates: &'a std::collections::BTreeMap<String, T>,
    spec: &fray_core::scenario::CombatantSpec,
    src: &fray_core::data::Source,
    ruleset: &str,
) -> Result<&'a T, fray_core::data::LoadError> {
    templates.get(&spec.template).ok_or_else(|| {
        let known: Vec<&str> = templates.keys().map(String::as_str).collect();
        src.error_at(
            &spec.template,
            Some(&spec.name),
            format!(
                "{:?} uses template {:?}, which the {ruleset} ruleset does not have (it has {})",
                spec.name,
                spec.template,
                known.join(", ")
            ),
        )
    })
}

/// Every ruling must have its own name: log entries cite it by name.
pub fn check_rulings(
    rulings: &[Ruling],
    src: &fray_core::data::Source,
) -> Result<(), fray_core::data::LoadError> {
    for r in rulings {
        if rulings.iter().filter(|o| o.id == r.id).count() > 1 {
            return Err(src.error_at(&r.id, None, format!("two rulings are named {:?}", r.id)));
        }
    }
    Ok(())
}

/// A ruleset as the command line and the menu list it.
pub struct RulesetInfo {
    pub id: &'static str,
    pub name: &'static str,
    /// The text it implements, under `rules/`.
    pub text: &'static str,
    /// Its built-in data file.
    pub data: &'static str,
    pub data_file: &'static str,
}

/// Every ruleset Fray plays, with its built-in data.
pub const RULESETS: &[RulesetInfo] = &[
    RulesetInfo {
        id: "declared",
        name: "Declared actions",
        text: "004-declared.txt",
        data: include_str!("../../../assets/rulesets/declared.ron"),
        data_file: "declared.ron",
    },
    RulesetInfo {
        id: "detailed_sequence",
        name: "Detailed sequence",
        text: "000-detailed-sequence.txt",
        data: include_str!("../../../assets/rulesets/detailed_sequence.ron"),
        data_file: "detailed_sequence.ron",
    },
    RulesetInfo {
        id: "phases",
        name: "Phases",
        text: "002-phases.txt",
        data: include_str!("../../../assets/rulesets/phases.ron"),
        data_file: "phases.ron",
    },
];

/// The ruleset named `id`.
pub fn ruleset(id: &str) -> Option<&'static RulesetInfo> {
    RULESETS.iter().find(|r| r.id == id)
}

/// The ids of every ruleset, for messages.
pub fn ruleset_ids() -> String {
    RULESETS.iter().map(|r| r.id).collect::<Vec<_>>().join(", ")
}
