//! What every ruleset gives the game, behind one trait, and the checks every
//! ruleset's data and scenarios share.
//!
//! A ruleset is a folder under `src/` with a data type that implements
//! [`Rules`] and a [`RulesetInfo`] naming its text and built-in data; the
//! registry ([`crate::RULESETS`]) lists the infos. The window, the command
//! line and the AI reach every ruleset through these two types alone.

use std::collections::BTreeMap;
use std::sync::Arc;

use bevy_app::App;
use bevy_ecs::prelude::*;
use fray_core::data::{LoadError, Source};
use fray_core::log::EventKind;
use fray_core::scenario::{CombatantSpec, LoadedScenario};
use serde::Deserialize;

/// A ruleset's loaded data, and everything a battle needs from it.
pub trait Rules: Send + Sync + 'static {
    /// The ruleset's entry in the registry.
    fn info(&self) -> &'static RulesetInfo;

    /// Check a scenario against the ruleset: stat blocks, options, orders.
    fn check_scenario(&self, scenario: &LoadedScenario) -> Result<(), LoadError>;

    /// Fill a world (fresh, or cleared for the next battle of a batch) with
    /// the scenario, checked already: grid, sides, combatants and the state
    /// of the round.
    fn populate(
        self: Arc<Self>,
        world: &mut World,
        scenario: &LoadedScenario,
    ) -> Result<(), LoadError>;

    /// Add the ruleset's phases, in the text's order, to the step schedule.
    fn add_phases(&self, app: &mut App);

    /// The page `fray rules ID` prints: phases, paragraph map, rulings, tables.
    fn page(&self) -> String;

    /// What a log entry's rule reference cites, part by part
    /// (`004 §Defense · ruling attack_roll`): a heading and the words of each
    /// paragraph or ruling its data maps.
    fn explain(&self, cited: &str) -> Vec<(String, String)>;

    /// The most faces of any die the ruleset rolls: a forced face above it
    /// fits no die.
    fn largest_die(&self) -> u32;

    /// How the timeline marks an event of `kind` (`None`: not marked).
    fn label(&self, kind: EventKind) -> Option<&'static str> {
        kind.label()
    }
}

/// A ruleset's parsed data, shared by every battle of a batch.
pub type LoadedRules = Arc<dyn Rules>;

/// A ruleset's entry in the registry (`RULESET`), what it shows the window
/// (`VIEW`), the run condition `stage_is` of its `Flow` resource's
/// `stage`, and its data type's [`Rules`] face, from the functions its
/// module provides: `SCENARIOS`, `check_scenario`, `populate`, `plugin`,
/// `round`, `book::Page` and `view::{tokens, tracker, sheet, preview}`.
macro_rules! ruleset {
    ($data:ty {
        id: $id:literal, name: $name:literal, text: $text:literal, data: $file:literal,
        round: $round:ident, largest_die: $die:literal
        $(, starts: [$($start:literal),* $(,)?])? $(,)?
    }) => {
        /// The states a scenario's combatant may start in (`starts`).
        pub const STARTS: &[&str] = &[$($($start),*)?];

        /// The most faces of any die the ruleset rolls: a forced face above
        /// it fits no die.
        pub const LARGEST_DIE: u32 = $die;

        /// The ruleset's data, shared by every battle of a batch.
        #[derive(bevy_ecs::resource::Resource, Clone)]
        pub struct Data(pub std::sync::Arc<$data>);

        /// The ruleset in the registry.
        pub const RULESET: $crate::ruleset::RulesetInfo = $crate::ruleset::RulesetInfo {
            id: $id,
            name: $name,
            text: $text,
            data: include_str!(concat!("../../../../assets/rulesets/", $file)),
            data_file: $file,
            search_work: ai::HOOKS.search_work,
            load: |source| {
                Ok(std::sync::Arc::new(
                    <$data as $crate::ruleset::DataFile>::load(source)?,
                ))
            },
        };

        impl fray_core::model::Rostered for Flow {
            fn roster(&self) -> &fray_core::model::Roster {
                &self.roster
            }
        }

        /// Every combatant in listing order. Rules iterate this rather than
        /// queries, so the order never depends on how the world stores its
        /// entities.
        pub fn roster(world: &bevy_ecs::world::World) -> Vec<bevy_ecs::entity::Entity> {
            world.resource::<Flow>().roster.entities()
        }

        /// The battle's current round (the text's own unit of it).
        pub fn round(world: &bevy_ecs::world::World) -> u32 {
            world.get_resource::<Flow>().map_or(0, |f| f.$round)
        }

        /// A run condition: the battle's [`Flow`] is at `stage`.
        fn stage_is(stage: Stage) -> impl Fn(bevy_ecs::system::Res<Flow>) -> bool {
            move |flow: bevy_ecs::system::Res<Flow>| flow.stage == stage
        }

        /// What the ruleset shows the window.
        pub const VIEW: fray_core::view::RulesView = fray_core::view::RulesView {
            tokens: view::tokens,
            tracker: view::tracker,
            sheet: view::sheet,
            round,
            round_unit: stringify!($round),
            provokes: view::PROVOKES,
            wary: view::WARY,
            preview: view::preview,
            warns: view::warns,
            clock: view::clock,
            periods: view::periods,
            legend: view::LEGEND,
        };

        impl $crate::ruleset::Rules for $data {
            fn info(&self) -> &'static $crate::ruleset::RulesetInfo {
                &RULESET
            }

            fn check_scenario(
                &self,
                scenario: &fray_core::scenario::LoadedScenario,
            ) -> Result<(), fray_core::data::LoadError> {
                $crate::ruleset::check_forced_dice(scenario, LARGEST_DIE)?;
                $crate::ruleset::check_starts(scenario, $id, STARTS)?;
                SCENARIOS.check(scenario, $id)?;
                check_scenario(self, scenario)?;
                SCENARIOS.check_order_weapons(scenario, $id, &self.book())
            }

            fn populate(
                self: std::sync::Arc<Self>,
                world: &mut bevy_ecs::world::World,
                scenario: &fray_core::scenario::LoadedScenario,
            ) -> Result<(), fray_core::data::LoadError> {
                fray_core::model::install_battlefield(world, scenario);
                fray_core::model::set_resource(world, VIEW);
                fray_core::model::set_resource(world, ai::HOOKS);
                fray_core::model::set_resource(world, Data(self.clone()));
                populate(world, self, scenario)
            }

            fn add_phases(&self, app: &mut bevy_app::App) {
                app.add_plugins(plugin);
            }

            fn page(&self) -> String {
                $crate::book::page(&self.book(), self)
            }

            fn explain(&self, cited: &str) -> Vec<(String, String)> {
                $crate::book::explain(&self.book(), cited)
            }

            fn largest_die(&self) -> u32 {
                LARGEST_DIE
            }
        }
    };
}
pub(crate) use ruleset;

/// A ruleset's stages in the text's order: each a set of the step schedule,
/// chained, with the system that runs it and, where it applies, when.
///
/// ```text
/// stages!(app, Phase {
///     Start => start_of_combat, when stage_is(Stage::Start);
///     EndOfBattle => check_end;
/// });
/// ```
macro_rules! stages {
    ($app:expr, $sets:ident { $($set:ident => $system:expr $(, when $cond:expr)?;)+ }) => {
        $app.configure_sets(
            fray_core::battle::RulesStep,
            ($($sets::$set,)+).chain(),
        )
        .add_systems(
            fray_core::battle::RulesStep,
            ($(($system).in_set($sets::$set)$(.run_if($cond))?,)+),
        )
    };
}
pub(crate) use stages;

/// A ruleset as the command line and the menu list it.
pub struct RulesetInfo {
    pub id: &'static str,
    pub name: &'static str,
    /// The text it implements, under `rules/`.
    pub text: &'static str,
    /// Its built-in data file.
    pub data: &'static str,
    pub data_file: &'static str,
    /// The work a searching AI spends on a decision under it by default
    /// (`AiHooks::search_work`).
    pub search_work: u64,
    /// Parse and check a data file of this ruleset.
    pub load: fn(&Source) -> Result<LoadedRules, LoadError>,
}

impl RulesetInfo {
    /// Load the data of this ruleset: from `source` when given, else the built-in file.
    pub fn load(&self, source: Option<Source>) -> Result<LoadedRules, LoadError> {
        let source = source.unwrap_or_else(|| {
            Source::inline(&format!("assets/rulesets/{}", self.data_file), self.data)
        });
        (self.load)(&source)
    }
}

/// A ruleset's data file: parsed, then checked as a whole.
pub trait DataFile: serde::de::DeserializeOwned {
    /// Everything the file names exists, and its numbers make sense; or
    /// where it is wrong.
    fn check(&self, src: &Source) -> Result<(), LoadError>;

    /// Parse and check a data file.
    fn load(source: &Source) -> Result<Self, LoadError> {
        let data: Self = source.parse()?;
        data.check(source)?;
        Ok(data)
    }
}

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
    templates: &'a BTreeMap<String, T>,
    spec: &CombatantSpec,
    src: &Source,
    ruleset: &str,
) -> Result<&'a T, LoadError> {
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

/// The stat block a scenario's combatant names, with the scenario's `set`
/// applied: each key is one of the block's numbers or yes/no fields, as the
/// data file writes them, or one of `extra`, which the ruleset keeps outside
/// the block (returned, for it to apply). The block must still make sense.
pub fn stat_block<T>(
    templates: &BTreeMap<String, T>,
    spec: &CombatantSpec,
    src: &Source,
    ruleset: &str,
    extra: &[&str],
) -> Result<(T, Vec<(String, i32)>), LoadError>
where
    T: crate::book::Checked + Clone + serde::Serialize + serde::de::DeserializeOwned,
{
    let t = template(templates, spec, src, ruleset)?;
    if spec.set.is_empty() {
        return match t.problem() {
            Some(p) => Err(src.error_at(&spec.name, None, format!("{:?} {p}", spec.name))),
            None => Ok((t.clone(), Vec::new())),
        };
    }
    let mut fields = match serde_json::to_value(t) {
        Ok(serde_json::Value::Object(fields)) => fields,
        _ => return Err(src.error_at(&spec.template, Some(&spec.name), "not a stat block")),
    };
    let mut rest = Vec::new();
    for (key, &value) in &spec.set {
        match fields.get_mut(key) {
            Some(v @ serde_json::Value::Bool(_)) => *v = (value != 0).into(),
            Some(v) if v.is_number() || v.is_null() => *v = value.into(),
            _ if extra.contains(&key.as_str()) => rest.push((key.clone(), value)),
            _ => {
                let stats = settable(&fields, extra);
                return Err(src.error_at(
                    key,
                    Some(&spec.name),
                    format!("{key:?} is not a stat of the {ruleset} ruleset (stats: {stats})"),
                ));
            }
        }
        if let Err(e) = T::deserialize(&serde_json::Value::Object(fields.clone())) {
            let why = format!("{key:?} cannot be {value}: {e}");
            return Err(src.error_at(key, Some(&spec.name), why));
        }
    }
    let block = T::deserialize(serde_json::Value::Object(fields))
        .map_err(|e| src.error_at(&spec.name, None, e.to_string()))?;
    match block.problem() {
        Some(p) => Err(src.error_at(&spec.name, None, format!("{:?} {p}", spec.name))),
        None => Ok((block, rest)),
    }
}

/// The names a scenario may `set`: a block's numbers and yes/no fields, and
/// the ruleset's `extra` ones.
fn settable(fields: &serde_json::Map<String, serde_json::Value>, extra: &[&str]) -> String {
    let mut names: Vec<&str> = fields
        .iter()
        .filter(|(_, v)| v.is_number() || v.is_boolean() || v.is_null())
        .map(|(k, _)| k.as_str())
        .chain(extra.iter().copied())
        .collect();
    names.sort_unstable();
    names.join(", ")
}

/// Every weapon `carried` by a combatant or template (`who`, as in
/// `template "knight"`) is one of `known`.
pub fn check_weapons<T>(
    src: &Source,
    who: (&str, &str),
    carried: &[String],
    known: &BTreeMap<String, T>,
) -> Result<(), LoadError> {
    check_known(src, who, carried, known, "carries unknown weapon")
}

/// Every name in `names` (weapons, spells, items of `who`) is one of
/// `known`; else where the first unknown one is, in words: `{who} {what} {name}`.
pub fn check_known<T>(
    src: &Source,
    (prefix, who): (&str, &str),
    names: &[String],
    known: &BTreeMap<String, T>,
    what: &str,
) -> Result<(), LoadError> {
    match names.iter().find(|n| !known.contains_key(*n)) {
        Some(n) => Err(src.error_at(n, Some(who), format!("{prefix}{who:?} {what} {n:?}"))),
        None => Ok(()),
    }
}

/// A data file is for the ruleset that loads it.
pub fn check_id(src: &Source, found: &str, id: &str) -> Result<(), LoadError> {
    if found == id {
        return Ok(());
    }
    Err(src.error_at_field(
        "id",
        format!("this file is for ruleset {found:?}, not {id:?}"),
    ))
}

/// Every ruling must have its own name: log entries cite it by name.
pub fn check_rulings(rulings: &[Ruling], src: &Source) -> Result<(), LoadError> {
    for r in rulings {
        if rulings.iter().filter(|o| o.id == r.id).count() > 1 {
            return Err(src.error_at(&r.id, None, format!("two rulings are named {:?}", r.id)));
        }
    }
    Ok(())
}

/// What a ruleset's scenarios may ask for, beyond its combatants' stat
/// blocks: checked alike for every ruleset before its own checks.
pub struct ScenarioRules {
    /// The options it has, each with the values it allows (`&[]`: any).
    pub options: &'static [(&'static str, &'static [&'static str])],
    /// The action names scripted orders use.
    pub actions: &'static [&'static str],
    /// The actions whose `with` names a weapon (an attack, a shot, a
    /// parry …); in the others it names a spell, an item or words of the
    /// ruleset's own, or nothing.
    pub weapon_actions: &'static [&'static str],
    /// Whether a weapon may change hands in battle (dropped, then picked up
    /// by anyone): then an order may name any weapon someone carries.
    pub weapons_change_hands: bool,
    /// Why the text has no initiative groups (`None`: it has them).
    pub no_groups: Option<&'static str>,
    /// Why the text has no late arrivals (`None`: it has them).
    pub no_arrivals: Option<&'static str>,
    /// Whether the battle acts before its first round, in round 0 (001's
    /// surprise segments), so scripted orders may be for round 0.
    pub round_zero: bool,
    /// The actions aimed only at an opponent: a scripted one aimed at its
    /// actor's own side would be refused in the battle.
    pub at_foes: &'static [&'static str],
}

impl ScenarioRules {
    /// Refuse what the ruleset does not have: groups, arrivals, options,
    /// order actions.
    pub fn check(&self, scenario: &LoadedScenario, ruleset: &str) -> Result<(), LoadError> {
        let s = &scenario.scenario;
        if let Some(why) = self.no_groups
            && s.combatants.iter().any(|c| c.initiative_group.is_some())
        {
            return Err(scenario.source.error_at_field("initiative_group", why));
        }
        if let Some(why) = self.no_arrivals
            && let Some(a) = s.arrivals.first()
        {
            return Err(scenario.source.error_at(&a.combatant.name, None, why));
        }
        if !self.round_zero
            && let Some((i, o)) = s.orders.iter().enumerate().find(|(_, o)| o.round == 0)
        {
            let actor = &o.order.actor;
            return Err(scenario.source.error_in_item(
                ("orders", "order"),
                i,
                actor,
                format!(
                    "{actor:?}'s scripted order is for round 0, but rounds run from 1 to the round cap of {}",
                    s.round_cap
                ),
            ));
        }
        check_options(scenario, ruleset, self.options)?;
        check_order_actions(scenario, self.actions)?;
        self.check_aimed_at_foes(scenario)
    }

    /// Every scripted order of [`Self::at_foes`] is aimed at an opponent.
    fn check_aimed_at_foes(&self, scenario: &LoadedScenario) -> Result<(), LoadError> {
        let s = &scenario.scenario;
        let side_of = |name: &str| {
            s.combatants
                .iter()
                .chain(s.arrivals.iter().map(|a| &a.combatant))
                .find(|c| c.name == name)
                .map(|c| c.side.clone())
        };
        for (i, o) in s.orders.iter().enumerate() {
            let order = &o.order;
            let Some(target) = order.target.as_deref() else {
                continue;
            };
            if !self.at_foes.contains(&order.action.as_str()) {
                continue;
            }
            if let (Some(a), Some(t)) = (side_of(&order.actor), side_of(target))
                && a == t
            {
                return Err(scenario.source.error_in_item(
                    ("orders", "order"),
                    i,
                    target,
                    format!(
                        "{:?}'s scripted {} is aimed at {target:?}, of its own side",
                        order.actor, order.action
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Every scripted order whose action takes a weapon and names one
    /// (`with`) names a weapon of the ruleset that its actor carries, or,
    /// where weapons change hands, that someone in the scenario carries:
    /// else the order would be refused, or misplayed, in the battle. Run
    /// once the stat blocks are known to be right.
    pub fn check_order_weapons<W, S, T: crate::book::Stock>(
        &self,
        scenario: &LoadedScenario,
        ruleset: &str,
        book: &crate::book::Book<'_, W, S, T>,
    ) -> Result<(), LoadError> {
        let s = &scenario.scenario;
        let everyone: Vec<&CombatantSpec> = s
            .combatants
            .iter()
            .chain(s.arrivals.iter().map(|a| &a.combatant))
            .collect();
        let carried = |spec: &CombatantSpec| {
            book.templates
                .get(&spec.template)
                .map(|t| t.carried_by(spec))
                .unwrap_or_default()
        };
        for (i, o) in s.orders.iter().enumerate() {
            let (actor, action) = (&o.order.actor, &o.order.action);
            let Some(w) = o
                .order
                .with
                .as_deref()
                .filter(|_| self.weapon_actions.contains(&action.as_str()))
            else {
                continue;
            };
            let wrong = if !book.weapons.contains_key(w) {
                let known: Vec<&str> = book.weapons.keys().map(String::as_str).collect();
                Some(format!(
                    "{actor:?}'s scripted {action} is with {w:?}, which is no weapon of the {ruleset} ruleset (weapons: {})",
                    known.join(", ")
                ))
            } else if self.weapons_change_hands {
                (!everyone.iter().any(|c| carried(c).iter().any(|x| x == w))).then(|| {
                    format!(
                        "{actor:?}'s scripted {action} is with {w:?}, which nobody in the scenario carries"
                    )
                })
            } else if let Some(spec) = everyone.iter().find(|c| c.name == *actor) {
                let has = carried(spec);
                (!has.iter().any(|x| x == w)).then(|| {
                    format!(
                        "{actor:?}'s scripted {action} is with {w:?}, which {actor:?} does not carry (it carries: {})",
                        if has.is_empty() { "nothing".to_string() } else { has.join(", ") }
                    )
                })
            } else {
                None
            };
            if let Some(message) = wrong {
                return Err(scenario
                    .source
                    .error_in_item(("orders", "order"), i, w, message));
            }
        }
        Ok(())
    }
}

/// The scenario's options: each must be one the ruleset has, with one of
/// the values it allows (`&[]`: any value).
fn check_options(
    scenario: &LoadedScenario,
    ruleset: &str,
    known: &[(&str, &[&str])],
) -> Result<(), LoadError> {
    let src = &scenario.source;
    for (key, value) in &scenario.scenario.options {
        let Some((_, values)) = known.iter().find(|(k, _)| k == key) else {
            let names: Vec<&str> = known.iter().map(|(k, _)| *k).collect();
            let has = if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            };
            return Err(src.error_at(
                key,
                Some("options"),
                format!("the {ruleset} ruleset has no option {key:?} (it has: {has})"),
            ));
        };
        if !values.is_empty() && !values.contains(&value.as_str()) {
            return Err(src.error_at(
                value,
                Some("options"),
                format!("{key} {value:?} is not one of {}", values.join(", ")),
            ));
        }
    }
    Ok(())
}

/// Every scripted order names one of the ruleset's `actions`.
fn check_order_actions(scenario: &LoadedScenario, actions: &[&str]) -> Result<(), LoadError> {
    for o in &scenario.scenario.orders {
        if !actions.contains(&o.order.action.as_str()) {
            return Err(scenario.source.error_at(
                &o.order.action,
                Some("orders"),
                format!(
                    "unknown action {:?} (actions: {})",
                    o.order.action,
                    actions.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// Every state a scenario's combatant `starts` in is one the ruleset knows.
pub fn check_starts(
    scenario: &LoadedScenario,
    ruleset: &str,
    known: &[&str],
) -> Result<(), LoadError> {
    for c in &scenario.scenario.combatants {
        if let Some(s) = c.starts.iter().find(|s| !known.iter().any(|k| fits(s, k))) {
            let has = if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            };
            return Err(scenario.source.error_at(
                s,
                Some(&c.name),
                format!(
                    "{:?} cannot start {s:?} under the {ruleset} ruleset (it knows: {has})",
                    c.name
                ),
            ));
        }
    }
    Ok(())
}

/// Whether `state` is the known state `known`: the same words, or, where
/// `known` names what follows (`casting <spell> …`), its first word and more.
fn fits(state: &str, known: &str) -> bool {
    match known.split_once(" <") {
        Some((word, _)) => state
            .strip_prefix(word)
            .is_some_and(|rest| rest.starts_with(' ')),
        None => state == known,
    }
}

/// A scenario's forced dice each fit some die the ruleset rolls.
pub fn check_forced_dice(scenario: &LoadedScenario, largest: u32) -> Result<(), LoadError> {
    match scenario
        .scenario
        .dice
        .iter()
        .find(|&&f| f == 0 || f > largest)
    {
        Some(0) => Err(scenario
            .source
            .error_at_field("dice", "no die shows 0 (a die's faces begin at 1)")),
        Some(face) => Err(scenario.source.error_at_field(
            "dice",
            format!("no die of this ruleset shows {face} (its largest is a d{largest})"),
        )),
        None => Ok(()),
    }
}
