#![forbid(unsafe_code)]
//! Controllers that decide for a side, and the seating of a battle: each
//! side gets the controller its seat asks for (the AI, the scenario's
//! scripted orders, or a person).

use std::sync::Arc;

use fray_core::battle::{Battle, rules_app};
use fray_core::data::{LoadError, Source};
use fray_core::decision::{Controller, HumanSeat, Scripted};
use fray_core::dice::Dice;
use fray_core::log::BattleLog;
use fray_core::model::Seat;
use fray_core::scenario::LoadedScenario;
use fray_rules::declared::{self, DeclaredData};
use fray_rules::detailed::{self, DetailedData};
use fray_rules::phases::{self, PhasesData};

pub mod basic;

/// A ruleset's parsed data, shared by every battle of a batch.
#[derive(Clone)]
pub enum RulesetData {
    Declared(Arc<DeclaredData>),
    Phases(Arc<PhasesData>),
    Detailed(Arc<DetailedData>),
}

impl RulesetData {
    /// Load the data of `ruleset`: from `source` when given, else the built-in file.
    pub fn load(ruleset: &str, source: Option<Source>) -> Result<Self, String> {
        let info = fray_rules::ruleset(ruleset).ok_or_else(|| {
            format!(
                "unknown ruleset {ruleset:?} (rulesets: {})",
                fray_rules::ruleset_ids()
            )
        })?;
        let source = source.unwrap_or_else(|| {
            Source::inline(&format!("assets/rulesets/{}", info.data_file), info.data)
        });
        match info.id {
            "declared" => Ok(Self::Declared(Arc::new(
                declared::load_data(&source).map_err(|e| e.to_string())?,
            ))),
            "phases" => Ok(Self::Phases(Arc::new(
                phases::load_data(&source).map_err(|e| e.to_string())?,
            ))),
            "detailed_sequence" => Ok(Self::Detailed(Arc::new(
                detailed::load_data(&source).map_err(|e| e.to_string())?,
            ))),
            other => Err(format!("ruleset {other:?} is not playable yet")),
        }
    }
}

/// Load a scenario and its ruleset's data: `../rulesets/ID.ron` beside the
/// scenario's folder when that file exists (so an edited copy is used), else
/// the built-in file. Errors are `file:line:col: what is wrong`.
pub fn load_scenario(path: &std::path::Path) -> Result<(LoadedScenario, RulesetData), String> {
    let scenario = LoadedScenario::load(path).map_err(|e| e.to_string())?;
    let id = scenario.scenario.ruleset.clone();
    let info = fray_rules::ruleset(&id).ok_or_else(|| {
        scenario
            .source
            .error_at(
                &id,
                None,
                format!(
                    "unknown ruleset {id:?} (rulesets: {})",
                    fray_rules::ruleset_ids()
                ),
            )
            .to_string()
    })?;
    let beside = path
        .parent()
        .and_then(std::path::Path::parent)
        .map(|p| p.join("rulesets").join(info.data_file));
    let source = match beside {
        Some(p) if p.is_file() => Some(Source::read(&p).map_err(|e| e.to_string())?),
        _ => None,
    };
    let data = RulesetData::load(&id, source)?;
    Ok((scenario, data))
}

/// How a battle is to be set up.
#[derive(Clone, Debug)]
pub struct BattleOptions {
    pub seed: u64,
    /// Forced faces, used before the scenario's own.
    pub dice: Vec<u32>,
    /// Keep every log entry (false for batches).
    pub keep_log: bool,
    /// Seat every side with the AI, whatever the scenario says.
    pub all_ai: bool,
}

/// The controller for a seat: the basic AI (through the ruleset's appraisal),
/// the scenario's scripted orders with the AI behind them, or a person.
pub fn controller(seat: Seat, scenario: &LoadedScenario, side: usize) -> Box<dyn Controller> {
    let ai: Box<dyn Controller> = Box::new(basic::BasicAi);
    match seat {
        Seat::Human => Box::new(HumanSeat),
        Seat::Ai => ai,
        Seat::Script => {
            let mine = scenario
                .scenario
                .orders
                .iter()
                .filter(|o| {
                    let actor = &o.order.actor;
                    let all = scenario.scenario.combatants.iter();
                    let arrivals = scenario.scenario.arrivals.iter().map(|a| &a.combatant);
                    all.chain(arrivals)
                        .any(|c| &c.name == actor && scenario.side_index(&c.side) == Some(side))
                })
                .cloned()
                .collect();
            Box::new(Scripted::new(mine, ai))
        }
    }
}

/// Make `battle` a fresh battle of the same scenario with new options,
/// keeping its schedule (built once, for batches of battles).
pub fn reset_battle(
    battle: &mut Battle,
    scenario: &LoadedScenario,
    data: &RulesetData,
    options: &BattleOptions,
) -> Result<(), LoadError> {
    let forced: Vec<u32> = options
        .dice
        .iter()
        .chain(&scenario.scenario.dice)
        .copied()
        .collect();
    let world = battle.world_mut();
    // Resources live on entities too: only the combatants go.
    let gone = match data {
        RulesetData::Declared(_) => declared::roster(world),
        RulesetData::Phases(_) => phases::roster(world),
        RulesetData::Detailed(_) => detailed::roster(world),
    };
    for e in gone {
        world.despawn(e);
    }
    fray_core::model::set_resource(world, Dice::seeded(options.seed).with_forced(forced));
    fray_core::model::set_resource(
        world,
        if options.keep_log {
            BattleLog::default()
        } else {
            BattleLog::counting_only()
        },
    );
    fray_core::model::set_resource(world, fray_core::decision::Decisions::default());
    fray_core::model::set_resource(world, fray_core::model::Outcome::default());
    match data {
        RulesetData::Declared(d) => declared::populate(world, d.clone(), scenario)?,
        RulesetData::Phases(d) => phases::populate(world, d.clone(), scenario)?,
        RulesetData::Detailed(d) => detailed::populate(world, d.clone(), scenario)?,
    }
    for (i, side) in scenario.scenario.sides.iter().enumerate() {
        let seat = if options.all_ai { Seat::Ai } else { side.seat };
        battle.set_controller(i, controller(seat, scenario, i));
    }
    Ok(())
}

/// Build a battle of `scenario` under its ruleset, seated as it says.
pub fn build_battle(
    scenario: &LoadedScenario,
    data: &RulesetData,
    options: &BattleOptions,
) -> Result<Battle, LoadError> {
    let forced = options.dice.iter().chain(&scenario.scenario.dice).copied();
    let mut app = rules_app(Dice::seeded(options.seed).with_forced(forced));
    if !options.keep_log {
        app.insert_resource(BattleLog::counting_only());
    }
    match data {
        RulesetData::Declared(d) => declared::setup(&mut app, d.clone(), scenario)?,
        RulesetData::Phases(d) => phases::setup(&mut app, d.clone(), scenario)?,
        RulesetData::Detailed(d) => detailed::setup(&mut app, d.clone(), scenario)?,
    }
    let controllers = scenario
        .scenario
        .sides
        .iter()
        .enumerate()
        .map(|(i, side)| {
            let seat = if options.all_ai { Seat::Ai } else { side.seat };
            controller(seat, scenario, i)
        })
        .collect();
    Ok(Battle::new(app, controllers))
}
