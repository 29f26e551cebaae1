//! Battles begun from a scenario or from a battle file, saved as they go,
//! and `fray replay`.

use std::io::Write;
use std::path::{Path, PathBuf};

use fray_ai::save::{BattleFile, Muted, Replaying, Stop};
use fray_ai::{BattleOptions, LoadedRules, build_battle, controller};
use fray_core::battle::{Battle, Progress};
use fray_core::log::BattleLog;
use fray_core::model::Seat;
use fray_core::scenario::LoadedScenario;

use crate::{Failure, bad_input, failed};

/// A battle in the terminal, and what its battle file needs.
pub struct Game {
    pub battle: Battle,
    pub scenario: LoadedScenario,
    pub data_hash: String,
    pub options: BattleOptions,
    pub seats: Vec<Seat>,
    /// Where the battle is saved as it goes, if anywhere.
    pub save: Option<PathBuf>,
}

impl Game {
    /// Save the battle file, when the battle has one: without the orders
    /// written in secret and not yet revealed.
    pub fn save(&self) -> Result<(), Failure> {
        let Some(path) = &self.save else {
            return Ok(());
        };
        let file = BattleFile::of(
            &self.battle,
            &self.scenario,
            &self.data_hash,
            &self.options,
            self.seats.clone(),
        )
        .keeping_secrets(&self.battle)
        .0;
        file.save(path).map_err(failed)
    }
}

/// How the command line seats the sides: `--all-ai`, `--human`, `--ai`.
pub struct Seating {
    pub all_ai: bool,
    pub human: Vec<String>,
    pub ai: crate::AiArgs,
}

/// Who plays each side: as the scenario says, with `--human` and
/// `--all-ai` applied.
fn seats_of(scenario: &mut LoadedScenario, seating: &Seating) -> Result<Vec<Seat>, Failure> {
    crate::seat_people(scenario, &seating.human)?;
    Ok(scenario
        .scenario
        .sides
        .iter()
        .map(|s| if seating.all_ai { Seat::Ai } else { s.seat })
        .collect())
}

/// A new battle of the scenario at `path`.
pub fn start_new(
    path: &Path,
    seed: Option<u64>,
    dice: Vec<u32>,
    seating: &Seating,
    save: Option<PathBuf>,
) -> Result<Game, Failure> {
    let (mut scenario, data, data_hash) =
        fray_ai::load_scenario_and_hash(path).map_err(bad_input)?;
    let seats = seats_of(&mut scenario, seating)?;
    let ai = crate::ai_levels(&scenario, &seating.ai.ai)?;
    let largest = data.largest_die();
    if let Some(face) = dice.iter().find(|&&f| f > largest) {
        return Err(bad_input(format!(
            "--dice: no die of the {} ruleset shows {face} (its largest is a d{largest})",
            scenario.scenario.ruleset
        )));
    }
    let options = BattleOptions {
        seed: seed.unwrap_or(scenario.scenario.seed),
        dice,
        keep_log: true,
        all_ai: seating.all_ai,
        ai,
        search_work: seating.ai.search_work,
    };
    let battle = build_battle(&scenario, &data, &options).map_err(|e| bad_input(e.to_string()))?;
    Ok(Game {
        battle,
        scenario,
        data_hash,
        options,
        seats,
        save,
    })
}

/// The battle a file holds, replayed up to where it was saved and seated
/// to go on: as it was saved, or as `--all-ai` and `--human` say. A file
/// whose orders the rules no longer take as they did is refused, and
/// nothing is written.
pub fn start_loaded(
    path: &Path,
    seating: &Seating,
    save: Option<PathBuf>,
) -> Result<Game, Failure> {
    let file = BattleFile::read(path).map_err(bad_input)?;
    let (mut scenario, data) = file.scenario(path).map_err(bad_input)?;
    let seats = if seating.all_ai || !seating.human.is_empty() {
        seats_of(&mut scenario, seating)?
    } else {
        file.seats.clone()
    };
    if seats.len() != scenario.scenario.sides.len() {
        return Err(bad_input(format!(
            "{}: the file seats {} sides; its scenario has {}",
            path.display(),
            seats.len(),
            scenario.scenario.sides.len()
        )));
    }
    for (side, seat) in scenario.scenario.sides.iter_mut().zip(&seats) {
        side.seat = *seat;
    }
    let mut options = file.options();
    if !seating.ai.ai.is_empty() {
        options.ai = crate::ai_levels(&scenario, &seating.ai.ai)?;
    }
    if seating.ai.search_work.is_some() {
        options.search_work = seating.ai.search_work;
    }
    replayed(&file, path, &scenario, &data, &options)?;
    let mut battle =
        build_battle(&scenario, &data, &options).map_err(|e| bad_input(e.to_string()))?;
    file.seat_replay(&mut battle, |side| {
        controller(seats[side], &scenario, side, options.ai(side))
    });
    Ok(Game {
        battle,
        scenario,
        data_hash: file.ruleset_data.clone(),
        options,
        seats,
        save: save.or_else(|| Some(path.to_path_buf())),
    })
}

/// The battle of `file` replayed as far as its orders go, with no one to
/// decide after: refused when it does not go as the file says.
fn replayed(
    file: &BattleFile,
    path: &Path,
    scenario: &LoadedScenario,
    data: &LoadedRules,
    options: &BattleOptions,
) -> Result<Battle, Failure> {
    let mut battle = build_battle(scenario, data, options).map_err(|e| bad_input(e.to_string()))?;
    // A scripted side follows its script alongside, as it did; deciding
    // nothing, it needs no more than the basic AI behind it.
    let replaying: Replaying = file.seat_replay(&mut battle, |side| match file.seats[side] {
        Seat::Script => {
            let behind = fray_ai::Ai {
                level: fray_ai::AiLevel::Basic,
                ..options.ai(side)
            };
            Box::new(Muted(controller(Seat::Script, scenario, side, behind)))
        }
        _ => Box::new(Stop),
    });
    if let Progress::Failed(why) = battle.run() {
        return Err(bad_input(located(path, &why)));
    }
    replaying
        .check_all_given(file)
        .map_err(|why| bad_input(located(path, &why.to_string())))?;
    Ok(battle)
}

/// `why` after the file's name, and, when it is about the file's order
/// N, the line and column where that order is written.
fn located(path: &Path, why: &str) -> String {
    let n = why
        .strip_prefix("order ")
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|d| d.parse::<usize>().ok());
    let text = std::fs::read_to_string(path).unwrap_or_default();
    match n.and_then(|n| order_at(&text, n)) {
        Some((line, col)) => format!("{}:{line}:{col}: {why}", path.display()),
        None => format!("{}: {why}", path.display()),
    }
}

/// Where the file's order `n` (counted from 1) begins: the n-th item of its
/// `orders` list, which comes after the scenario it carries.
fn order_at(text: &str, n: usize) -> Option<(usize, usize)> {
    let list = text.rfind("orders: [")?;
    let at = text[list..]
        .match_indices("(decision:")
        .nth(n.checked_sub(1)?)
        .map(|(i, _)| list + i)?;
    let line = text[..at].matches('\n').count() + 1;
    let col = at - text[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
    Some((line, col))
}

/// The battle file at `path`, its scenario, and its battle replayed as far
/// as its orders go.
fn read_and_replay(path: &Path) -> Result<(BattleFile, LoadedScenario, Battle), Failure> {
    let file = BattleFile::read(path).map_err(bad_input)?;
    let (scenario, data) = file.scenario(path).map_err(bad_input)?;
    let battle = replayed(&file, path, &scenario, &data, &file.options())?;
    Ok((file, scenario, battle))
}

/// `fray check FILE` of a battle file: it reads, its scenario and ruleset
/// data are here, and its orders replay as they were given.
pub fn check(path: &Path) -> Result<String, Failure> {
    let (file, scenario, battle) = read_and_replay(path)?;
    let state = match battle.outcome() {
        Some(_) => "over".to_string(),
        None => format!("round {}", battle.world().resource::<BattleLog>().round),
    };
    Ok(format!(
        "battle of \"{}\", ruleset {}, {} orders, {state}",
        scenario.scenario.name,
        file.ruleset,
        file.orders.len()
    ))
}

/// `fray replay FILE`: print the battle as `fray run` printed it, up to
/// log entry `until` when given, and write its log.
pub fn replay(path: &Path, log_file: Option<PathBuf>, until: Option<u64>) -> Result<(), Failure> {
    let (file, scenario, battle) = read_and_replay(path)?;
    let last = battle
        .world()
        .resource::<BattleLog>()
        .entries()
        .last()
        .map_or(0, |e| e.seq);
    if let Some(u) = until.filter(|&u| u == 0 || u > last) {
        return Err(bad_input(format!(
            "--until {u}: the log of {} runs from entry 1 to entry {last}",
            path.display()
        )));
    }
    let mut log = crate::open_log(log_file.as_deref())?;
    let mut out = crate::out::Out::new();
    let _ = writeln!(
        out,
        "{} — ruleset {}, seed {} (replayed from {})",
        scenario.scenario.name,
        scenario.scenario.ruleset,
        file.seed,
        path.display()
    );
    let entries = battle.world().resource::<BattleLog>().entries();
    let shown: Vec<_> = entries
        .iter()
        .filter(|e| until.is_none_or(|u| e.seq <= u))
        .collect();
    for e in &shown {
        let _ = writeln!(out, "{}", e.sentence());
    }
    match battle.outcome() {
        Some(result) if shown.len() == entries.len() => {
            let words = crate::describe_result(result, &battle);
            let _ = writeln!(out, "Result: {words}");
        }
        _ if shown.len() < entries.len() => {
            let _ = writeln!(
                out,
                "Stopped at entry {}, as --until asked.",
                until.unwrap_or(0)
            );
        }
        Some(_) => {}
        None => {
            let _ = writeln!(out, "The battle file ends here: {}", waiting_for(&battle));
        }
    }
    if let Some((name, f)) = &mut log {
        let log = battle.world().resource::<BattleLog>();
        log.write_json_lines_until(f, until.unwrap_or(u64::MAX))
            .map_err(|e| failed(format!("cannot write {}: {e}", name.display())))?;
    }
    out.finish().map_err(crate::lost)
}

/// Who the battle waits for, in words.
fn waiting_for(battle: &Battle) -> String {
    let decisions = battle.world().resource::<fray_core::decision::Decisions>();
    match decisions.open().first() {
        Some(d) => format!("{} is to decide: {}", d.actor_name, d.prompt),
        None => "no one is asked anything".to_string(),
    }
}
