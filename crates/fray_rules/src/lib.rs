#![forbid(unsafe_code)]
//! Fray's rulesets. Each is a folder with a data type that implements
//! [`Rules`] — its data, its scenario checks, its phases as a plugin of the
//! [`RulesStep`](fray_core::battle::RulesStep) schedule, its page — and one
//! line in [`RULESETS`]. Nothing outside this crate names a ruleset's module.

pub mod book;
pub mod crucible;
pub mod declared;
pub mod detailed;
pub mod phases;
pub mod ruleset;
pub mod segments;

pub use ruleset::{
    LoadedRules, Paragraph, PhaseDoc, Rules, RulesetInfo, Ruling, check_rulings, stat_block,
    template,
};

/// Every ruleset Fray plays, with its built-in data.
pub const RULESETS: &[&RulesetInfo] = &[
    &crucible::RULESET,
    &declared::RULESET,
    &detailed::RULESET,
    &phases::RULESET,
    &segments::RULESET,
];

/// The ruleset named `id`.
pub fn ruleset(id: &str) -> Option<&'static RulesetInfo> {
    RULESETS.iter().copied().find(|r| r.id == id)
}

/// The ids of every ruleset, for messages.
pub fn ruleset_ids() -> String {
    RULESETS.iter().map(|r| r.id).collect::<Vec<_>>().join(", ")
}

/// Load the data of ruleset `id`: from `source` when given, else its built-in file.
pub fn load(id: &str, source: Option<fray_core::data::Source>) -> Result<LoadedRules, String> {
    let info = ruleset(id)
        .ok_or_else(|| format!("unknown ruleset {id:?} (rulesets: {})", ruleset_ids()))?;
    info.load(source).map_err(|e| e.to_string())
}

/// Build a battle's world under `rules` and add its phases to the step schedule.
pub fn setup<R: Rules + ?Sized>(
    app: &mut bevy_app::App,
    rules: std::sync::Arc<R>,
    scenario: &fray_core::scenario::LoadedScenario,
) -> Result<(), fray_core::data::LoadError> {
    rules.check_scenario(scenario)?;
    rules.clone().populate(app.world_mut(), scenario)?;
    rules.add_phases(app);
    Ok(())
}
