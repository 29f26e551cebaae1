#![forbid(unsafe_code)]
//! Controllers that decide for a side, and the seating of a battle: each
//! side gets the controller its seat asks for (the AI, the scenario's
//! scripted orders, or a person).

use fray_core::battle::{Battle, rules_app};
use fray_core::data::{LoadError, Source};
use fray_core::decision::{Controller, HumanSeat, Scripted};
use fray_core::dice::Dice;
use fray_core::log::BattleLog;
use fray_core::model::Seat;
use fray_core::scenario::LoadedScenario;
pub use fray_rules::LoadedRules;

pub mod basic;
pub mod fork;
pub mod save;
pub mod search;

/// Load a scenario and its ruleset's data: `../rulesets/ID.ron` beside the
/// scenario's folder when that file exists (so an edited copy is used), else
/// the built-in file. Errors are `file:line:col: what is wrong`.
pub fn load_scenario(path: &std::path::Path) -> Result<(LoadedScenario, LoadedRules), String> {
    load_scenario_and_hash(path).map(|(scenario, data, _)| (scenario, data))
}

/// The ruleset file `data_file` in the `rulesets` folder beside the
/// scenario's folder, where one is: it is read in place of the built-in.
pub(crate) fn data_file_beside(
    scenario: &std::path::Path,
    data_file: &str,
) -> Option<std::path::PathBuf> {
    let p = scenario
        .parent()?
        .parent()?
        .join("rulesets")
        .join(data_file);
    p.is_file().then_some(p)
}

/// The ruleset file the scenario at `path` would be played with, if it is
/// read from beside it rather than built in: a file a run reads.
pub fn ruleset_file_of(path: &std::path::Path) -> Option<std::path::PathBuf> {
    let scenario = LoadedScenario::load(path).ok()?;
    let info = fray_rules::ruleset(&scenario.scenario.ruleset)?;
    data_file_beside(path, info.data_file)
}

/// As [`load_scenario`], with the hash of the ruleset data's text (what a
/// battle file names it by).
pub fn load_scenario_and_hash(
    path: &std::path::Path,
) -> Result<(LoadedScenario, LoadedRules, String), String> {
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
    let source = match data_file_beside(path, info.data_file) {
        Some(p) => Some(Source::read(&p).map_err(|e| e.to_string())?),
        None => None,
    };
    let hash = save::data_hash(source.as_ref().map_or(info.data, |s| s.text.as_str()));
    let data = info.load(source).map_err(|e| e.to_string())?;
    Ok((scenario, data, hash))
}

/// How well the computer plays a side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum AiLevel {
    /// Random legal orders: a baseline.
    Random,
    /// The order expected to deal the most damage, risk unweighed: a fixed
    /// simple policy, the baseline a plan should beat.
    Greedy,
    /// The ruleset's appraisal of each order, best taken: quick.
    #[default]
    Basic,
    /// Futures played out for the basic AI's best few orders.
    Search,
}

impl AiLevel {
    pub const ALL: [AiLevel; 4] = [
        AiLevel::Random,
        AiLevel::Greedy,
        AiLevel::Basic,
        AiLevel::Search,
    ];

    /// Its name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            AiLevel::Random => "random",
            AiLevel::Greedy => "greedy",
            AiLevel::Basic => "basic",
            AiLevel::Search => "search",
        }
    }
}

impl std::str::FromStr for AiLevel {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        AiLevel::ALL
            .into_iter()
            .find(|l| l.name() == text)
            .ok_or_else(|| format!("no AI level {text:?} (levels: random, greedy, basic, search)"))
    }
}

/// The AI of one side: its level, and the seed its own choices are drawn from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ai {
    pub level: AiLevel,
    pub seed: u64,
    /// The work a search may spend on a decision (None: the default).
    pub search_work: Option<u64>,
}

impl Ai {
    /// The controller this AI is.
    pub fn controller(self) -> Box<dyn Controller> {
        match self.level {
            AiLevel::Random => Box::new(basic::RandomAi { seed: self.seed }),
            AiLevel::Greedy => Box::new(basic::GreedyAi),
            AiLevel::Basic => Box::new(basic::BasicAi),
            AiLevel::Search => {
                let budget = search::Budget {
                    work: self.search_work,
                    ..search::Budget::default()
                };
                Box::new(search::SearchAi::new(self.seed, budget))
            }
        }
    }
}

/// How a battle is to be set up.
#[derive(Clone, Debug, Default)]
pub struct BattleOptions {
    pub seed: u64,
    /// Forced faces, used before the scenario's own.
    pub dice: Vec<u32>,
    /// Keep every log entry (false for batches).
    pub keep_log: bool,
    /// Seat every side with the AI, whatever the scenario says.
    pub all_ai: bool,
    /// Each side's AI level, by side (missing: the default level).
    pub ai: Vec<AiLevel>,
    /// The work a search AI may spend on each decision, in rules steps
    /// (None: the ruleset's own, `fray_core::ai::AiHooks::search_work`).
    pub search_work: Option<u64>,
}

impl BattleOptions {
    /// The AI of `side`: its level, and a seed of its own from the battle's.
    pub fn ai(&self, side: usize) -> Ai {
        Ai {
            level: self.ai.get(side).copied().unwrap_or_default(),
            seed: basic::mix(self.seed, side as u64, 0xa1),
            search_work: self.search_work,
        }
    }
}

/// The controller for a seat: the AI, the scenario's scripted orders with
/// the AI behind them, or a person.
pub fn controller(
    seat: Seat,
    scenario: &LoadedScenario,
    side: usize,
    ai: Ai,
) -> Box<dyn Controller> {
    let ai = ai.controller();
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
            let (after, who): (Box<dyn Controller>, _) =
                match scenario.scenario.sides[side].after_script {
                    fray_core::scenario::AfterScript::Ai => (ai, "the AI"),
                    fray_core::scenario::AfterScript::Person => (Box::new(HumanSeat), "a person"),
                };
            Box::new(Scripted::new(mine, after).after(who))
        }
    }
}

/// Make `battle` a fresh battle of the same scenario with new options,
/// keeping its schedule (built once, for batches of battles).
pub fn reset_battle(
    battle: &mut Battle,
    scenario: &LoadedScenario,
    data: &LoadedRules,
    options: &BattleOptions,
) -> Result<(), LoadError> {
    let forced: Vec<u32> = options
        .dice
        .iter()
        .chain(&scenario.scenario.dice)
        .copied()
        .collect();
    let world = battle.world_mut();
    // Resources live on entities too: only the combatants go, their
    // entities kept for the next battle's.
    fray_core::model::clear_combatants(world);
    fray_core::model::set_resource(
        world,
        Dice::seeded(options.seed)
            .with_forced(forced)
            .described(options.keep_log),
    );
    fray_core::model::set_resource(
        world,
        if options.keep_log {
            BattleLog::default()
        } else {
            BattleLog::counting_only()
        },
    );
    let mut decisions = fray_core::decision::Decisions::default();
    if options.keep_log {
        decisions.record();
    }
    fray_core::model::set_resource(world, decisions);
    fray_core::model::set_resource(world, fray_core::model::Outcome::default());
    // A batch's later battles are of the scenario checked for its first.
    if !world
        .get_resource::<fork::Origin>()
        .is_some_and(|o| o.is(scenario, data))
    {
        data.check_scenario(scenario)?;
    }
    fork::set_origin(world, scenario, data);
    data.clone().populate(world, scenario)?;
    for (i, side) in scenario.scenario.sides.iter().enumerate() {
        let seat = if options.all_ai { Seat::Ai } else { side.seat };
        battle.set_controller(i, controller(seat, scenario, i, options.ai(i)));
    }
    Ok(())
}

/// A battle from scenario text (a test's, a pasted scenario), under the
/// ruleset it names and seated as it says, keeping its log.
pub fn battle_from_text(text: &str, seed: u64) -> Result<Battle, String> {
    let scenario = LoadedScenario::from_source(Source::inline("scenario.ron", text))
        .map_err(|e| e.to_string())?;
    let data = fray_rules::load(&scenario.scenario.ruleset, None)?;
    let options = BattleOptions {
        seed,
        keep_log: true,
        ..BattleOptions::default()
    };
    build_battle(&scenario, &data, &options).map_err(|e| e.to_string())
}

/// Build a battle of `scenario` under its ruleset, seated as it says.
pub fn build_battle(
    scenario: &LoadedScenario,
    data: &LoadedRules,
    options: &BattleOptions,
) -> Result<Battle, LoadError> {
    let forced = options.dice.iter().chain(&scenario.scenario.dice).copied();
    let mut app = rules_app(
        Dice::seeded(options.seed)
            .with_forced(forced)
            .described(options.keep_log),
    );
    if !options.keep_log {
        app.insert_resource(BattleLog::counting_only());
    }
    if options.keep_log {
        app.world_mut()
            .resource_mut::<fray_core::decision::Decisions>()
            .record();
    }
    fork::set_origin(app.world_mut(), scenario, data);
    fray_rules::setup(&mut app, data.clone(), scenario)?;
    let controllers = scenario
        .scenario
        .sides
        .iter()
        .enumerate()
        .map(|(i, side)| {
            let seat = if options.all_ai { Seat::Ai } else { side.seat };
            controller(seat, scenario, i, options.ai(i))
        })
        .collect();
    let mut battle = Battle::new(app, controllers);
    battle.set_foresight(basic::best);
    Ok(battle)
}
