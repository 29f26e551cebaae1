//! A battle as one file: the scenario it was played from (embedded, so the
//! file stands alone), a hash of the ruleset data it was played under, the
//! seed, the forced dice, the seats, and every order given with the decision
//! it answered. The rules are deterministic, so replaying the orders through
//! them rebuilds the battle exactly: that is loading, replaying and
//! rewinding alike.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use bevy_ecs::prelude::*;
use fray_core::battle::Battle;
use fray_core::data::Source;
use fray_core::decision::{Controller, Decision, Decisions, Given, Order, Refusal};
use fray_core::model::Seat;
use fray_core::scenario::LoadedScenario;
use serde::{Deserialize, Serialize};

use crate::{BattleOptions, LoadedRules};

/// The version of the battle file format this Fray writes and reads.
pub const VERSION: u32 = 1;

/// A saved battle.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BattleFile {
    /// The format's version ([`VERSION`]).
    pub fray_battle: u32,
    /// The scenario's name, the round reached and when it was saved, for
    /// a list of saved battles.
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub round: u32,
    #[serde(default)]
    pub saved_at: String,
    /// How many times the rules had run when it was saved.
    #[serde(default)]
    pub steps: u64,
    pub ruleset: String,
    /// The hash of the ruleset data the battle was played under.
    pub ruleset_data: String,
    pub seed: u64,
    /// Faces forced before the scenario's own (`--dice`).
    #[serde(default)]
    pub dice: Vec<u32>,
    /// Who played each side, in the scenario's order.
    pub seats: Vec<Seat>,
    /// How well the AI played each side (none: the default level).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ai: Vec<crate::AiLevel>,
    /// The work a search AI spent on a decision, when not the default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_work: Option<u64>,
    /// Where the scenario was read from, for people.
    pub scenario_file: String,
    /// The scenario's text.
    pub scenario: String,
    /// Every order given, in the order given.
    pub orders: Vec<Given>,
}

/// A battle file that cannot be used, and why (exit 2).
pub type Refused = String;

/// A moment as people read it: `2026-11-23 03:40 UTC`, from seconds since
/// 1970 (the civil calendar from a day count, as in H. Hinnant's
/// `civil_from_days`).
pub fn utc_words(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let (hour, minute) = ((secs % 86_400) / 3600, (secs % 3600) / 60);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02} UTC")
}

/// How a scenario read back from a battle file is named: the battle file,
/// then where its scenario came from (`FILE (its scenario, from SCENARIO)`).
const FROM: &str = " (its scenario, from ";

/// The scenario file a battle was played from: a scenario read back from a
/// battle file names the file it came from, kept however often the battle
/// is saved again.
fn scenario_file(path: &Path) -> String {
    let shown = path.display().to_string();
    match shown.split_once(FROM) {
        Some((_, from)) => from.strip_suffix(')').unwrap_or(from).to_string(),
        None => shown,
    }
}

/// The hash that names a ruleset data text.
pub fn data_hash(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex()[..16].to_string()
}

impl BattleFile {
    /// The file for `battle`, played from `scenario` (its text read from
    /// `scenario_file`) under data whose text hashes to `ruleset_data`.
    pub fn of(
        battle: &Battle,
        scenario: &LoadedScenario,
        ruleset_data: &str,
        options: &BattleOptions,
        seats: Vec<Seat>,
    ) -> Self {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Self {
            fray_battle: VERSION,
            name: scenario.scenario.name.clone(),
            round: battle.world().resource::<fray_core::log::BattleLog>().round,
            saved_at: utc_words(now),
            steps: battle.world().resource::<Decisions>().steps(),
            ruleset: scenario.scenario.ruleset.clone(),
            ruleset_data: ruleset_data.to_string(),
            seed: options.seed,
            dice: options.dice.clone(),
            seats,
            ai: options.ai.clone(),
            search_work: options.search_work,
            scenario_file: scenario_file(&scenario.source.path),
            scenario: scenario.source.text.clone(),
            orders: battle.world().resource::<Decisions>().given().to_vec(),
        }
    }

    /// The file as it may be written where anyone can read it: while
    /// orders are written in secret, without those written so far (they
    /// are asked for again when it is loaded), and with no secret order
    /// refused told ([`Given::kept_secret`]). Also how many were left out.
    pub fn keeping_secrets(mut self, battle: &Battle) -> (Self, usize) {
        let (shown, steps) = battle.world().resource::<Decisions>().shown();
        let left_out = self.orders.len().saturating_sub(shown.len());
        self.orders.truncate(shown.len());
        self.orders.iter_mut().for_each(Given::kept_secret);
        self.steps = self.steps.min(steps);
        (self, left_out)
    }

    /// The file as text: a comment saying what it is, then RON.
    pub fn to_text(&self) -> String {
        // An order a line; the scenario as written.
        let pretty = ron::ser::PrettyConfig::new()
            .depth_limit(2)
            .escape_strings(false)
            .extensions(ron::extensions::Extensions::IMPLICIT_SOME);
        let body = ron::ser::to_string_pretty(self, pretty).unwrap_or_default();
        format!(
            "// A Fray battle: `fray run --load FILE` goes on with it, `fray replay FILE` prints it.\n{body}\n"
        )
    }

    /// Write the file: to a temporary file beside it, then renamed over it,
    /// so a failed write never leaves a broken file where a good one was.
    pub fn save(&self, path: &Path) -> Result<(), String> {
        let mut tmp = PathBuf::from(path);
        tmp.as_mut_os_string().push(".tmp");
        std::fs::write(&tmp, self.to_text())
            .and_then(|()| std::fs::rename(&tmp, path))
            .map_err(|e| {
                // Nothing is left beside it when the save fails.
                let _ = std::fs::remove_file(&tmp);
                format!("cannot save {}: {e}", path.display())
            })
    }

    /// Read and parse a battle file, or where it is wrong.
    pub fn read(path: &Path) -> Result<Self, Refused> {
        let source = Source::read(path).map_err(|e| e.to_string())?;
        let file: Self = source.parse().map_err(|e| {
            if source.parse::<fray_core::scenario::Scenario>().is_ok() {
                format!(
                    "{}: a scenario, not a saved battle: `fray run {0}` or `fray play {0}` plays it",
                    path.display()
                )
            } else {
                e.to_string()
            }
        })?;
        if file.fray_battle != VERSION {
            let why = format!(
                "a battle file of version {}; this Fray reads version {VERSION}",
                file.fray_battle
            );
            return Err(source.error_at_field("fray_battle", why).to_string());
        }
        Ok(file)
    }

    /// The files beside which the battle was played, on this machine: its
    /// scenario's file and the ruleset file read beside it, where they are.
    pub fn files_beside(&self) -> Vec<PathBuf> {
        let scenario = PathBuf::from(&self.scenario_file);
        let ruleset = fray_rules::ruleset(&self.ruleset)
            .and_then(|info| crate::data_file_beside(&scenario, info.data_file));
        std::iter::once(scenario).chain(ruleset).collect()
    }

    /// The scenario the battle was played from, and the ruleset data it
    /// names, checked against the data this Fray has.
    pub fn scenario(&self, path: &Path) -> Result<(LoadedScenario, LoadedRules), Refused> {
        let name = format!("{}{FROM}{})", path.display(), self.scenario_file);
        let scenario = LoadedScenario::from_source(Source::inline(&name, &self.scenario))
            .map_err(|e| e.to_string())?;
        self.check_sides(path, scenario.scenario.sides.len())?;
        if scenario.scenario.ruleset != self.ruleset {
            return Err(format!(
                "{}: the file names ruleset {:?}, but the scenario it holds is played under {:?}",
                field_at(path, "ruleset"),
                self.ruleset,
                scenario.scenario.ruleset
            ));
        }
        let info = fray_rules::ruleset(&self.ruleset)
            .ok_or_else(|| format!("{}: unknown ruleset {:?}", path.display(), self.ruleset))?;
        let beside = Path::new(&self.scenario_file)
            .parent()
            .and_then(Path::parent)
            .map(|p| p.join("rulesets").join(info.data_file));
        let candidates = beside
            .and_then(|p| std::fs::read_to_string(&p).ok().map(|t| (Some(p), t)))
            .into_iter()
            .chain([(None, info.data.to_string())]);
        for (file, text) in candidates {
            if data_hash(&text) == self.ruleset_data {
                let source = file.map(|f| Source::inline(&f.display().to_string(), &text));
                let data = info.load(source).map_err(|e| e.to_string())?;
                return Ok((scenario, data));
            }
        }
        Err(format!(
            "{}: the battle was played under other {} ruleset data (hash {}) than this Fray has (hash {})",
            path.display(),
            self.ruleset,
            self.ruleset_data,
            data_hash(info.data)
        ))
    }

    /// A seat for each of the scenario's `sides`, and an AI level for each
    /// or none: a file that seats more or fewer is refused where it does.
    fn check_sides(&self, path: &Path, sides: usize) -> Result<(), Refused> {
        let wrong = [("seats", self.seats.len()), ("ai", self.ai.len())]
            .into_iter()
            .find(|&(field, n)| n != sides && (field == "seats" || n > 0));
        let Some((field, n)) = wrong else {
            return Ok(());
        };
        let why = format!("{n} {field} for a scenario of {sides} sides: one a side");
        Err(match Source::read(path) {
            Ok(source) => source.error_at_field(field, why).to_string(),
            Err(_) => format!("{}: {why}", path.display()),
        })
    }

    /// How the battle was set up: its seed and forced dice, its log kept.
    pub fn options(&self) -> BattleOptions {
        BattleOptions {
            seed: self.seed,
            dice: self.dice.clone(),
            keep_log: true,
            all_ai: false,
            ai: self.ai.clone(),
            search_work: self.search_work,
        }
    }

    /// The orders of the file, each with its number (from 1), by decision.
    fn by_decision(&self) -> BTreeMap<u64, VecDeque<(usize, Given)>> {
        let mut by: BTreeMap<u64, VecDeque<(usize, Given)>> = BTreeMap::new();
        for (i, g) in self.orders.iter().enumerate() {
            by.entry(g.decision)
                .or_default()
                .push_back((i + 1, g.clone()));
        }
        by
    }

    /// Seat `battle` to replay the file's orders, every side's `live`
    /// controller playing on once they run out (and being asked all along,
    /// so it stands where it would have). What went differently from the
    /// file is kept in the returned [`Replaying`].
    pub fn seat_replay(
        &self,
        battle: &mut Battle,
        mut live: impl FnMut(usize) -> Box<dyn Controller>,
    ) -> Replaying {
        let replaying = Replaying::default();
        let orders = self.by_decision();
        for side in 0..self.seats.len() {
            let replay = Replay {
                orders: orders.clone(),
                last: BTreeMap::new(),
                live: live(side),
                problems: replaying.problems.clone(),
                given: replaying.given.clone(),
            };
            battle.set_controller(side, Box::new(replay));
        }
        replaying
    }
}

/// What a replay found different from its file.
#[derive(Clone, Default)]
pub struct Replaying {
    problems: Arc<Mutex<Vec<String>>>,
    /// The numbers of the file's orders given so far.
    given: Arc<Mutex<std::collections::BTreeSet<usize>>>,
}

impl Replaying {
    /// The first difference, as "order N: what happened".
    pub fn problem(&self) -> Option<String> {
        self.problems.lock().ok()?.first().cloned()
    }

    /// After the replay has stopped: every order of `file` was given, or the
    /// first that was not, and why.
    pub fn check_all_given(&self, file: &BattleFile) -> Result<(), Refused> {
        if let Some(p) = self.problem() {
            return Err(p);
        }
        let given = self.given.lock().map(|g| g.clone()).unwrap_or_default();
        let first_not = file
            .orders
            .iter()
            .enumerate()
            .find(|(i, _)| !given.contains(&(i + 1)));
        match first_not {
            None => Ok(()),
            Some((i, g)) => Err(format!(
                "order {} ({}'s {:?}) answers decision {}, which the battle never asked",
                i + 1,
                g.order.actor,
                g.order.action,
                g.decision
            )),
        }
    }
}

/// Gives a side the file's orders for each decision; asks its live
/// controller all the same, and hands over to it when they run out.
struct Replay {
    orders: BTreeMap<u64, VecDeque<(usize, Given)>>,
    /// The number and file's refusal of the last order given per decision.
    last: BTreeMap<u64, (usize, Option<String>)>,
    live: Box<dyn Controller>,
    problems: Arc<Mutex<Vec<String>>>,
    given: Arc<Mutex<std::collections::BTreeSet<usize>>>,
}

impl Replay {
    fn note(&self, problem: String) {
        if let Ok(mut p) = self.problems.lock() {
            p.push(problem);
        }
    }
}

impl Controller for Replay {
    fn decide(&mut self, world: &mut World, decision: &Decision) -> Option<Order> {
        let live = self.live.decide(world, decision);
        let now = world.resource::<Decisions>().steps();
        let queue = self.orders.get_mut(&decision.id);
        let Some((n, given)) = queue.and_then(|q| q.pop_front_if(|(_, g)| g.at <= now)) else {
            if self.orders.get(&decision.id).is_some_and(|q| !q.is_empty()) {
                return None;
            }
            self.last.remove(&decision.id);
            return live;
        };
        if given.at < now {
            self.note(format!(
                "order {n} was given after {} runs of the rules; replayed, decision {} came after {now}",
                given.at, decision.id
            ));
        }
        if given.order.actor != decision.actor_name {
            self.note(format!(
                "order {n} is for {}, but decision {} asks {}",
                given.order.actor, decision.id, decision.actor_name
            ));
        }
        self.last.insert(decision.id, (n, given.refused));
        if let Ok(mut g) = self.given.lock() {
            g.insert(n);
        }
        Some(given.order)
    }

    fn thoughts(&self) -> Vec<fray_core::decision::Thought> {
        self.live.thoughts()
    }

    fn watches(&self) -> bool {
        self.live.watches()
    }

    fn observed(&mut self, side: usize, action: &str, foreseen: bool) {
        self.live.observed(side, action, foreseen);
    }

    fn recorded(&self, refusal: &Refusal) -> bool {
        matches!(self.last.get(&refusal.decision), Some((_, Some(_))))
    }

    fn refused(&mut self, refusal: &Refusal) {
        match self.last.get(&refusal.decision) {
            Some((_, Some(_))) => {}
            Some((n, None)) => {
                let n = *n;
                self.note(format!(
                    "order {n}: the rules now refuse it: {}",
                    refusal.reason
                ));
            }
            None => self.live.refused(refusal),
        }
    }
}

/// A scripted side as a replay keeps it: its script is followed alongside
/// the file's orders, so that what the script says in the log (that it has
/// no order for a question) is said where the battle said it, but nothing
/// is decided past the file's orders.
pub struct Muted(pub Box<dyn Controller>);

impl Controller for Muted {
    fn decide(&mut self, world: &mut World, decision: &Decision) -> Option<Order> {
        let _ = self.0.decide(world, decision);
        None
    }
}

/// A controller that never decides: a replay stops where its file ends.
pub struct Stop;

impl Controller for Stop {
    fn decide(&mut self, _: &mut World, _: &Decision) -> Option<Order> {
        None
    }
}

/// `path:line:col` of the battle file's top-level `field:` (not one in the
/// scenario text it holds), or the path alone when it cannot be found.
fn field_at(path: &Path, field: &str) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let key = format!("{field}:");
    let mut inside = false;
    for (i, line) in text.lines().enumerate() {
        if inside {
            inside = !line.contains("\"#");
            continue;
        }
        // The scenario text begins as a raw string: what follows is its.
        let open = line.find("r#\"");
        let ours = &line[..open.unwrap_or(line.len())];
        // A field begins a line or follows another field's comma.
        let found = ours.match_indices(&key).map(|(at, _)| at).find(|&at| {
            let before = ours[..at].trim_end();
            before.is_empty() || before.ends_with(',') || before.ends_with('(')
        });
        if let Some(at) = found {
            return format!("{}:{}:{}", path.display(), i + 1, at + 1);
        }
        if let Some(open) = open {
            inside = !line[open + 3..].contains("\"#");
        }
    }
    path.display().to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_top_level_field_is_found_where_it_is_not_in_the_scenario_text() {
        // The scenario text's own `ruleset:` is not the battle file's.
        let dir = std::env::temp_dir().join(format!("fray-field-at-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("b.ron");
        let text = "(\n    fray_battle: 1,\n    scenario: r#\"(\n    ruleset: \"declared\",\n)\"#,\n    seed: 1, ruleset: \"phases\",\n)\n";
        std::fs::write(&path, text).unwrap();
        assert_eq!(
            super::field_at(&path, "ruleset"),
            format!("{}:6:14", path.display())
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    use super::*;

    #[test]
    fn moments_read_as_dates() {
        assert_eq!(utc_words(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc_words(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(utc_words(1_795_404_000), "2026-11-23 03:20 UTC");
    }
}
