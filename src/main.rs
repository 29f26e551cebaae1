#![forbid(unsafe_code)]
//! `fray`: the command line.
//!
//! ```text
//! fray                                   the game window, main menu
//! fray play SCENARIO [--seed N] [--human SIDE]... [--all-ai] [--steps K --screenshot FILE]
//! fray play --load FILE [--rewind-to SEQ] [--screenshot FILE]
//! fray run SCENARIO [--seed N] [--dice 3,5,12] [--log FILE.jsonl] [--save FILE]
//! fray run --load FILE [--human SIDE]... [--all-ai]
//! fray replay FILE [--log FILE.jsonl] [--until SEQ]
//! fray sim SCENARIO --battles N [--seed N] [--json]
//! fray check FILE...
//! fray rules [ID]
//! ```
//!
//! Exit codes: 0 done; 2 bad input (the message says file, line, column and
//! what is wrong); 1 anything else.

use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use fray_ai::{AiLevel, BattleOptions, LoadedRules, build_battle};
use fray_core::battle::{Battle, Progress};
use fray_core::data::Source;
use fray_core::decision::Decisions;
use fray_core::dice::parse_forced;
use fray_core::log::BattleLog;
use fray_core::model::{BattleResult, Sides};
use fray_core::scenario::LoadedScenario;
use out::{Lost, Out};

/// Battles allocate many small values a step (orders, rolls, names); a
/// batch or a search plays hundreds of thousands of steps a second, and
/// mimalloc serves those allocations in about half the work of the system's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "fray",
    version,
    about = "Tactical combat that plays tabletop combat procedures faithfully."
)]
struct Cli {
    /// Without a command, the game window opens at the main menu.
    #[command(subcommand)]
    command: Option<Command>,
    /// With no command: write a PNG of the main menu once it is drawn, then exit.
    #[arg(long, value_name = "FILE")]
    screenshot: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Open the game window straight into a battle.
    #[command(group(clap::ArgGroup::new("battle").required(true).args(["scenario", "load"])))]
    Play {
        scenario: Option<PathBuf>,
        /// Open a saved battle where it was saved.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["seed", "human", "all_ai", "ai"])]
        load: Option<PathBuf>,
        /// With --load: rewind the battle to the step that wrote this log entry.
        #[arg(long, value_name = "SEQ", requires = "load")]
        rewind_to: Option<u64>,
        #[arg(long)]
        seed: Option<u64>,
        /// Seat a person for the side of this name (repeat for hotseat).
        #[arg(long, value_name = "SIDE", conflicts_with = "all_ai")]
        human: Vec<String>,
        /// The AI plays every side: watch the battle.
        #[arg(long)]
        all_ai: bool,
        #[command(flatten)]
        ai: AiArgs,
        /// Play this many log events, or until a person must decide, then stop (with --screenshot: save and exit).
        #[arg(long)]
        steps: Option<u64>,
        /// Write a PNG of the window once the steps are played (or the driven battle ends), then exit.
        #[arg(long)]
        screenshot: Option<PathBuf>,
        /// Play every Human seat through the player's input actions to the result screen (or, with --steps, that many log events), then exit.
        #[arg(long)]
        drive: bool,
        /// Report the frame update's CPU time (p50, p99) over this many frames, then exit.
        #[arg(long)]
        bench_frames: Option<u32>,
    },
    /// Play one battle in the terminal and print it as sentences. Sides seated
    /// Human are asked for their orders; the rest are played by the AI or by
    /// the scenario's scripted orders.
    #[command(group(clap::ArgGroup::new("battle").required(true).args(["scenario", "load"])))]
    Run {
        /// A scenario file (assets/scenarios/*.ron).
        scenario: Option<PathBuf>,
        /// Go on with a saved battle (it is saved to the same file as it goes on).
        #[arg(long, value_name = "FILE", conflicts_with_all = ["seed", "dice"])]
        load: Option<PathBuf>,
        /// Save the battle to this file after every order, to go on later with --load.
        #[arg(long, value_name = "FILE")]
        save: Option<PathBuf>,
        /// Seed for the dice (default: the scenario's).
        #[arg(long)]
        seed: Option<u64>,
        /// Forced die faces used first, e.g. 8,3,12.
        #[arg(long, value_parser = parse_forced_arg)]
        dice: Option<ForcedDice>,
        /// Write the log as JSON lines to this file.
        #[arg(long)]
        log: Option<PathBuf>,
        /// Seat the AI on every side.
        #[arg(long, conflicts_with = "human")]
        all_ai: bool,
        /// Seat a person at this terminal for the side of this name (repeat for hotseat).
        #[arg(long, value_name = "SIDE")]
        human: Vec<String>,
        #[command(flatten)]
        ai: AiArgs,
        /// Print only the result.
        #[arg(long)]
        quiet: bool,
    },
    /// Print a saved battle as `fray run` printed it.
    Replay {
        /// A battle file (written by `fray run --save` or the window).
        file: PathBuf,
        /// Write the log as JSON lines to this file.
        #[arg(long)]
        log: Option<PathBuf>,
        /// Stop after the log entry of this number.
        #[arg(long, value_name = "SEQ")]
        until: Option<u64>,
    },
    /// Run many battles headless and report win rates, lengths and speed.
    Sim {
        scenario: PathBuf,
        /// How many battles (seeds SEED, SEED+1, …).
        #[arg(long, default_value_t = 1000)]
        battles: u32,
        #[arg(long)]
        seed: Option<u64>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// How many threads share the battles (default: every core). The
        /// win counts are the same for any number.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
        threads: Option<u32>,
        /// Play the batch again with the two sides' AI levels exchanged, on
        /// the same seeds, and report each level's wins over both.
        #[arg(long)]
        swap: bool,
        #[command(flatten)]
        ai: AiArgs,
    },
    /// Check ruleset and scenario files; print what is wrong and where.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// List the rulesets, or one ruleset's phases and rulings.
    Rules { id: Option<String> },
}

/// The faces of `--dice 8,3,12`.
#[derive(Clone, Debug)]
struct ForcedDice(Vec<u32>);

fn parse_forced_arg(text: &str) -> Result<ForcedDice, String> {
    parse_forced(text).map(ForcedDice)
}

/// How well the AI plays, as the command line says.
#[derive(clap::Args, Clone, Debug, Default)]
pub(crate) struct AiArgs {
    /// How well the AI plays: `SIDE=LEVEL` for one side, `LEVEL` for every
    /// side not named (levels: random, greedy, basic, search), to pit one
    /// against another.
    #[arg(long, value_name = "SIDE=LEVEL", value_parser = parse_ai_arg)]
    pub ai: Vec<AiArg>,
    /// The work a search AI may spend on each decision, in rules steps
    /// weighed by the ruleset and the size of the field: by default the
    /// ruleset's own (18000; 36000 under phases and detailed_sequence,
    /// where more futures pay; 72000 under crucible, where the cells its
    /// futures' paths search count too).
    #[arg(long, value_name = "STEPS", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub search_work: Option<u64>,
}

/// `--ai SIDE=LEVEL`, or `--ai LEVEL` for every side.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct AiArg {
    side: Option<String>,
    level: AiLevel,
}

fn parse_ai_arg(text: &str) -> Result<AiArg, String> {
    match text.rsplit_once('=') {
        Some((side, level)) => Ok(AiArg {
            side: Some(side.to_string()),
            level: level.parse()?,
        }),
        None => Ok(AiArg {
            side: None,
            level: text.parse()?,
        }),
    }
}

/// Each side's AI level as `--ai` asks, in the scenario's order of sides:
/// a side named (`SIDE=LEVEL`) plays at its level, the others at the level
/// given for every side (`LEVEL`), in whatever order the two come. One
/// side, or every side, given two levels is bad input.
pub(crate) fn ai_levels(
    scenario: &LoadedScenario,
    args: &[AiArg],
) -> Result<Vec<AiLevel>, Failure> {
    let sides = scenario.scenario.sides.len();
    let mut every: Option<AiLevel> = None;
    let mut named: Vec<Option<AiLevel>> = vec![None; sides];
    for arg in args {
        let (slot, what) = match &arg.side {
            None => (&mut every, "every side".to_string()),
            Some(name) => {
                let i = scenario.side_index(name).ok_or_else(|| {
                    bad_input(format!(
                        "--ai {name}={}: the scenario's sides are {}",
                        arg.level.name(),
                        side_names(scenario)
                    ))
                })?;
                (&mut named[i], format!("side {name:?}"))
            }
        };
        if let Some(before) = slot.replace(arg.level)
            && before != arg.level
        {
            return Err(bad_input(format!(
                "--ai: {what} is given two levels, {} and {}",
                before.name(),
                arg.level.name()
            )));
        }
    }
    let every = every.unwrap_or_default();
    Ok(named.into_iter().map(|l| l.unwrap_or(every)).collect())
}

/// The scenario's side names, quoted, for messages.
fn side_names(scenario: &LoadedScenario) -> String {
    let sides: Vec<String> = scenario
        .scenario
        .sides
        .iter()
        .map(|s| format!("{:?}", s.name))
        .collect();
    sides.join(", ")
}

/// A failure and its exit code.
struct Failure {
    code: u8,
    message: String,
}

fn bad_input(message: impl Into<String>) -> Failure {
    Failure {
        code: 2,
        message: message.into(),
    }
}

fn failed(message: impl Into<String>) -> Failure {
    Failure {
        code: 1,
        message: message.into(),
    }
}

/// The output was lost: quietly when the reader went away (the exit code a
/// process ended by a closed pipe has), with a message otherwise.
fn lost(how: Lost) -> Failure {
    match how {
        Lost::ClosedPipe => Failure {
            code: 141,
            message: String::new(),
        },
        Lost::Error(e) => failed(format!("cannot write the output: {e}")),
    }
}

mod out;
mod saved;
mod sim;

#[cfg(feature = "window")]
mod game;

/// Without the window feature there is nothing to open.
#[cfg(not(feature = "window"))]
mod game {
    // The same fields as the window's launch options, so `main` reads the same.
    #[allow(dead_code)]
    #[derive(Default)]
    pub struct Launch {
        pub scenario: Option<std::path::PathBuf>,
        pub load: Option<std::path::PathBuf>,
        pub rewind_to: Option<u64>,
        pub seed: Option<u64>,
        pub all_ai: bool,
        pub ai: crate::AiArgs,
        pub humans: Vec<String>,
        pub steps: Option<u64>,
        pub screenshot: Option<std::path::PathBuf>,
        pub drive: bool,
        pub bench_frames: Option<u32>,
    }

    pub fn run(_: Launch) -> Result<(), String> {
        Err("this fray was built without the game window (cargo feature `window`)".into())
    }
}

/// Open the window on a battle, after checking what the command line names.
fn play(launch: game::Launch) -> Result<(), Failure> {
    if let Some(file) = &launch.load {
        saved::check(file)?;
    } else if let Some(scenario) = launch.scenario.as_deref() {
        let (mut loaded, _) = load_scenario(scenario)?;
        seat_people(&mut loaded, &launch.humans)?;
        ai_levels(&loaded, &launch.ai.ai)?;
    } else {
        return game::run(launch).map_err(failed);
    }
    if let Some(dir) = launch
        .screenshot
        .as_ref()
        .and_then(|p| p.parent())
        .filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        return Err(bad_input(format!(
            "--screenshot: the folder {} does not exist",
            dir.display()
        )));
    }
    if launch.drive && launch.humans.is_empty() {
        return Err(bad_input(
            "--drive needs at least one --human SIDE to drive",
        ));
    }
    game::run(launch).map_err(failed)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        None => game::run(game::Launch {
            screenshot: cli.screenshot,
            ..game::Launch::default()
        })
        .map_err(failed),
        Some(Command::Play {
            scenario,
            load,
            rewind_to,
            seed,
            human,
            all_ai,
            ai,
            steps,
            screenshot,
            drive,
            bench_frames,
        }) => play(game::Launch {
            scenario,
            load,
            rewind_to,
            seed,
            all_ai,
            ai,
            humans: human,
            steps,
            screenshot,
            drive,
            bench_frames,
        }),
        Some(Command::Run {
            scenario,
            load,
            save,
            seed,
            dice,
            log,
            all_ai,
            human,
            ai,
            quiet,
        }) => {
            let seating = saved::Seating { all_ai, human, ai };
            // `--save` over `--load` goes on with the battle.
            // The files beside the battle too: the ruleset read beside the
            // scenario, and, for a loaded battle, the scenario it names.
            let mut beside: Vec<PathBuf> = scenario
                .as_deref()
                .and_then(fray_ai::ruleset_file_of)
                .into_iter()
                .collect();
            if let Some(file) = load
                .as_deref()
                .and_then(|l| fray_ai::save::BattleFile::read(l).ok())
            {
                beside.extend(file.files_beside());
            }
            let mut read = vec![
                (scenario.as_deref(), None),
                (load.as_deref(), Some("--save")),
            ];
            read.extend(beside.iter().map(|p| (Some(p.as_path()), None)));
            let written = not_over_what_is_read(&read, &[("--log", &log), ("--save", &save)])
                .and_then(|()| can_save_to(save.as_deref()));
            let game = written.and_then(|()| match (scenario, load) {
                (_, Some(file)) => saved::start_loaded(&file, &seating, save),
                (Some(path), None) => saved::start_new(
                    &path,
                    seed,
                    dice.map(|d| d.0).unwrap_or_default(),
                    &seating,
                    save,
                ),
                (None, None) => Err(bad_input("run needs a scenario or --load FILE")),
            });
            game.and_then(|g| run(g, log, quiet))
        }
        Some(Command::Replay { file, log, until }) => replay(&file, log, until),
        Some(Command::Sim {
            scenario,
            battles,
            seed,
            json,
            threads,
            swap,
            ai,
        }) => sim::sim(
            &scenario,
            sim::Ask {
                battles,
                seed,
                json,
                threads,
                swap,
            },
            &ai,
        ),
        Some(Command::Check { files }) => check(&files),
        Some(Command::Rules { id }) => rules(id.as_deref()),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            if !f.message.is_empty() {
                eprintln!("fray: {}", f.message);
            }
            ExitCode::from(f.code)
        }
    }
}

/// Seat a person on each side named by `--human`.
fn seat_people(scenario: &mut LoadedScenario, humans: &[String]) -> Result<(), Failure> {
    for name in humans {
        let Some(i) = scenario.side_index(name) else {
            return Err(bad_input(format!(
                "--human {name:?}: the scenario's sides are {}",
                side_names(scenario)
            )));
        };
        scenario.scenario.sides[i].seat = fray_core::model::Seat::Human;
    }
    Ok(())
}

fn load_scenario(path: &Path) -> Result<(LoadedScenario, LoadedRules), Failure> {
    fray_ai::load_scenario(path).map_err(bad_input)
}

/// `fray replay FILE`: its log writes over nothing it reads, the scenario
/// the battle names and the ruleset beside it among them.
fn replay(file: &Path, log: Option<PathBuf>, until: Option<u64>) -> Result<(), Failure> {
    let beside: Vec<PathBuf> = fray_ai::save::BattleFile::read(file)
        .map(|f| f.files_beside())
        .unwrap_or_default();
    let mut read = vec![(Some(file), None)];
    read.extend(beside.iter().map(|p| (Some(p.as_path()), None)));
    not_over_what_is_read(&read, &[("--log", &log)]).and_then(|()| saved::replay(file, log, until))
}

/// An output file (`--log`, `--save`) may not be a file the command reads:
/// it would be written over what it is read from. Each file read names the
/// one output, if any, that may write over it.
fn not_over_what_is_read(
    read: &[(Option<&Path>, Option<&str>)],
    written: &[(&str, &Option<PathBuf>)],
) -> Result<(), Failure> {
    // One file however spelt, whether it is there yet or not: its folder
    // made absolute, and its name.
    let whole = |p: &Path| {
        p.canonicalize().ok().or_else(|| {
            let folder = p.parent().filter(|f| !f.as_os_str().is_empty());
            let folder = folder.unwrap_or(Path::new(".")).canonicalize().ok()?;
            Some(folder.join(p.file_name()?))
        })
    };
    let same = |a: &Path, b: &Path| match (whole(a), whole(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    };
    for (i, (flag, out)) in written.iter().enumerate() {
        let Some(out) = out else { continue };
        if let Some((other, _)) = written[..i]
            .iter()
            .find(|(_, o)| o.as_deref().is_some_and(|o| same(o, out)))
        {
            return Err(bad_input(format!(
                "{other} and {flag} both name {}: write them to two files",
                out.display()
            )));
        }
        for (r, may_write_over) in read {
            if let Some(r) = r
                && *may_write_over != Some(*flag)
                && same(r, out)
            {
                return Err(bad_input(format!(
                    "{flag} {}: that is the file being read; write to another",
                    out.display()
                )));
            }
        }
    }
    Ok(())
}

/// `--save FILE` names a file that can be written, said before the battle
/// rather than after it: not a folder, and in a folder that is there.
fn can_save_to(file: Option<&Path>) -> Result<(), Failure> {
    let Some(f) = file else { return Ok(()) };
    let folder = f.parent().filter(|p| !p.as_os_str().is_empty());
    let why = if f.is_dir() {
        "that is a folder".to_string()
    } else if let Some(p) = folder.filter(|p| !p.is_dir()) {
        format!("there is no folder {}", p.display())
    } else {
        return Ok(());
    };
    Err(bad_input(format!("--save {}: {why}", f.display())))
}

/// Open `--log FILE` before the battle, so a bad path fails first.
fn open_log(file: Option<&Path>) -> Result<Option<(PathBuf, std::fs::File)>, Failure> {
    file.map(|f| {
        std::fs::File::create(f)
            .map(|h| (f.to_path_buf(), h))
            .map_err(|e| bad_input(format!("--log {}: {e}", f.display())))
    })
    .transpose()
}

/// `--log FILE` of a battle played in the terminal, written as the battle
/// goes: however the run ends (a closed pipe, Ctrl-C, the end of input),
/// the file holds the log so far.
struct LiveLog {
    file: Option<(PathBuf, std::fs::File)>,
    written: usize,
    /// Whether what the file held before has been cleared: only once the
    /// battle has something to write, so a run that fails at once leaves it.
    cleared: bool,
}

impl LiveLog {
    /// Open `file` to write, before the battle, so a bad path fails first;
    /// what it holds is kept until the first entries come.
    fn open(file: Option<&Path>) -> Result<Self, Failure> {
        let file = file
            .map(|f| {
                std::fs::OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .open(f)
                    .map(|h| (f.to_path_buf(), h))
                    .map_err(|e| bad_input(format!("--log {}: {e}", f.display())))
            })
            .transpose()?;
        Ok(Self {
            file,
            written: 0,
            cleared: false,
        })
    }

    /// Write the entries logged since the last call.
    fn catch_up(&mut self, battle: &Battle) -> Result<(), Failure> {
        let Some((path, f)) = &mut self.file else {
            return Ok(());
        };
        if !self.cleared {
            f.set_len(0)
                .map_err(|e| failed(format!("cannot write {}: {e}", path.display())))?;
            self.cleared = true;
        }
        let entries = battle.world().resource::<BattleLog>().entries();
        let mut lines = Vec::new();
        for entry in &entries[self.written.min(entries.len())..] {
            serde_json::to_writer(&mut lines, entry)
                .map_err(|e| failed(format!("cannot write {}: {e}", path.display())))?;
            lines.push(b'\n');
        }
        f.write_all(&lines)
            .map_err(|e| failed(format!("cannot write {}: {e}", path.display())))?;
        self.written = entries.len();
        Ok(())
    }
}

/// Play a battle in the terminal to its end, saving it as it goes.
fn run(mut game: saved::Game, log_file: Option<PathBuf>, quiet: bool) -> Result<(), Failure> {
    let mut log = LiveLog::open(log_file.as_deref())?;
    let mut out = Out::new();
    if !quiet {
        let s = &game.scenario.scenario;
        let _ = writeln!(
            out,
            "{} — ruleset {}, seed {}",
            s.name, s.ruleset, game.options.seed
        );
    }
    let mut printed = 0;
    let stdin = io::stdin();
    let scenario_path = game.scenario.source.path.display().to_string();
    let result = loop {
        let progress = game.battle.run();
        // A battle that cannot go on (a forced die that does not fit) is
        // not saved or logged over what was: its save could not be played.
        let cannot_go_on = |why: &str| bad_input(format!("{scenario_path}: {why}"));
        if let Progress::Failed(why) = &progress {
            return Err(cannot_go_on(why));
        }
        game.save()?;
        log.catch_up(&game.battle)?;
        if !quiet {
            printed = print_new(&game.battle, printed, &mut out);
        }
        if out.is_lost() {
            return out.finish().map_err(lost);
        }
        match progress {
            Progress::Over(result) => break result,
            Progress::Failed(why) => return Err(cannot_go_on(&why)),
            Progress::AwaitingHuman(ids) => {
                let Some(&id) = ids.first() else { continue };
                let order = ask_human(&game.battle, id, &mut stdin.lock(), &mut out)?;
                game.battle.answer(id, order);
            }
        }
    };
    if !quiet {
        print_new(&game.battle, printed, &mut out);
    }
    let words = describe_result(&result, &game.battle);
    let _ = writeln!(out, "Result: {words}");
    out.finish().map_err(lost)
}

fn print_new(battle: &Battle, from: usize, out: &mut impl Write) -> usize {
    let entries = battle.world().resource::<BattleLog>().entries();
    for e in &entries[from.min(entries.len())..] {
        let _ = writeln!(out, "{}", e.sentence());
    }
    entries.len()
}

/// The result in words, counted in the ruleset's rounds (turns under
/// `phases`).
fn describe_result(result: &BattleResult, battle: &Battle) -> String {
    let world = battle.world();
    let unit = world
        .get_resource::<fray_core::view::RulesView>()
        .map_or("round", |v| v.round_unit);
    let count = |n: u32| fray_core::model::count_of(n, unit);
    let sides = world.resource::<Sides>();
    match result {
        BattleResult::Victory { side, rounds } => format!(
            "the winner is {}, after {}",
            sides.0.get(*side).map_or("?", |s| s.name.as_str()),
            count(*rounds)
        ),
        BattleResult::MutualDestruction { rounds } => {
            format!("nobody is left standing after {}", count(*rounds))
        }
        BattleResult::RoundCap { rounds } => {
            format!("no winner: the {unit} cap of {rounds} was reached")
        }
    }
}

/// Print `decision` with its choices, the legal ones numbered and the
/// refused ones with the reason; the legal ones, in their numbers' order.
fn print_choices<'d>(
    decision: &'d fray_core::decision::Decision,
    side_name: &str,
    out: &mut impl Write,
) -> Vec<&'d fray_core::decision::Choice> {
    let _ = writeln!(
        out,
        "\n{} ({})  [{side_name}]",
        decision.prompt, decision.rule
    );
    let legal: Vec<_> = decision
        .choices
        .iter()
        .filter(|c| c.refused.is_none())
        .collect();
    for (i, c) in legal.iter().enumerate() {
        let _ = writeln!(out, "  {:>2}. {}", i + 1, c.label);
    }
    for c in decision.choices.iter().filter(|c| c.refused.is_some()) {
        let _ = writeln!(
            out,
            "   -  {} — not allowed: {}",
            c.label,
            c.refused.as_deref().unwrap_or("")
        );
    }
    legal
}

/// An order typed by hand: a cell to move to, where the question takes
/// one, or a choice that names a cell aimed at another (`10 0,5`).
fn typed_by_hand(
    line: &str,
    move_to: Option<&fray_core::decision::Order>,
    legal: &[&fray_core::decision::Choice],
) -> Option<fray_core::decision::Order> {
    if let (Some(template), Some(cell)) = (move_to, typed_cell(line)) {
        return Some(template.clone().cell(cell));
    }
    let (n, cell) = choice_and_cell(line)?;
    legal
        .get(n.wrapping_sub(1))
        .filter(|c| c.order.cell.is_some())
        .map(|c| c.order.clone().cell(cell))
}

/// The warning on an order typed by hand that draws what the rules warn of
/// on the choices they offer (attacks of opportunity, a back turned), if it
/// has not been announced yet; the same order given again goes ahead.
fn unannounced(
    battle: &Battle,
    decision: &fray_core::decision::Decision,
    order: &fray_core::decision::Order,
    warned: &mut Option<fray_core::decision::Order>,
    answer: &str,
) -> Option<String> {
    let world = battle.world();
    let view = world.get_resource::<fray_core::view::RulesView>()?;
    let warn = (view.warns)(world, decision.actor, order);
    // The same order again, however it was typed, goes ahead.
    if warn.is_empty() || warned.as_ref() == Some(order) {
        return None;
    }
    *warned = Some(order.clone());
    Some(format!(
        "WARNING: {}. Type {answer} again to go ahead, or choose another.",
        warn.join("; ")
    ))
}

/// Ask a person at the terminal for an order. Secret decisions are preceded
/// by a hand-off so the other side does not see them.
fn ask_human(
    battle: &Battle,
    id: u64,
    input: &mut impl BufRead,
    out: &mut Out,
) -> Result<fray_core::decision::Order, Failure> {
    let decisions = battle.world().resource::<Decisions>();
    let decision = decisions
        .get(id)
        .ok_or_else(|| failed("the decision vanished"))?
        .clone();
    let sides = battle.world().resource::<Sides>();
    let side_name = sides
        .0
        .get(decision.side)
        .map_or("?", |s| s.name.as_str())
        .to_string();
    let mut line = String::new();
    let people = sides.0.iter().filter(|s| s.played_by_person()).count();
    let hand_off = decision.secret && people > 1;
    if hand_off {
        let _ = write!(out, "\n— Pass to {side_name} — press Enter —");
        let _ = out.flush();
        line.clear();
        // Whatever was typed, the hand-off is done.
        let _ = read_answer(input, &mut line)?;
    }
    // The order last warned of, taken if given again, and the warning,
    // said just above the next question so it is not scrolled away. A
    // refused answer is said so there, to the one asked again (a secret
    // one's reason is in no log).
    let mut warned: Option<fray_core::decision::Order> = None;
    let mut notice: Option<String> = battle
        .last_refusal
        .as_ref()
        .filter(|r| r.decision == id)
        .map(|r| format!("Refused: {}", r.reason));
    loop {
        let legal = print_choices(&decision, &side_name, out);
        let move_to = decision.move_order.as_ref().filter(|_| decision.any_cell);
        if legal.is_empty() && move_to.is_none() {
            return Err(failed(format!(
                "{}: the rules offer {} no order to choose",
                decision.prompt, decision.actor_name
            )));
        }
        if let Some(warning) = notice.take() {
            let _ = writeln!(out, "{warning}");
        }
        let _ = write!(out, "{}", ask_line(&legal, move_to.is_some()));
        let _ = out.flush();
        line.clear();
        if let Err(unreadable) = read_answer(input, &mut line)? {
            notice = Some(unreadable);
            continue;
        }
        let by_hand = typed_by_hand(&line, move_to, &legal);
        if let Some(order) = &by_hand
            && let Some(warning) = unannounced(battle, &decision, order, &mut warned, line.trim())
        {
            notice = Some(warning);
            continue;
        }
        let answer = by_hand.or_else(|| {
            line.trim()
                .parse::<usize>()
                .ok()
                .and_then(|n| legal.get(n.wrapping_sub(1)))
                .map(|c| c.order.clone())
        });
        match answer {
            Some(order) => {
                if hand_off {
                    out.hide_above();
                }
                return Ok(order);
            }
            None => {
                let _ = writeln!(
                    out,
                    "Please type a number from 1 to {}{}{}.",
                    legal.len(),
                    if move_to.is_some() {
                        ", or a cell x,y"
                    } else {
                        ""
                    },
                    if legal.iter().any(|c| c.order.cell.is_some()) {
                        ", or the number of a choice that names a cell and another cell after it"
                    } else {
                        ""
                    }
                );
            }
        }
    }
}

/// Read one line a person typed. The end of input is a failure; a line that
/// is not text, or is too long to be an answer, is read past and given back
/// as what to tell the person before asking again.
fn read_answer(input: &mut impl BufRead, line: &mut String) -> Result<Result<(), String>, Failure> {
    // An answer is a few characters: a longer line is refused, and a line
    // without end is not read into memory to the last byte.
    const LONGEST: u64 = 4096;
    const SKIPPED: u64 = 1 << 20;
    // Read as bytes, then as text: a line cut short, or not text, is read
    // to its end either way, so none of it is taken for the next answer.
    let mut bytes = Vec::new();
    match io::Read::take(&mut *input, LONGEST).read_until(b'\n', &mut bytes) {
        Ok(0) => Err(failed("no more input: a person must decide")),
        Ok(n) if n as u64 == LONGEST && bytes.last() != Some(&b'\n') => {
            let rest = io::Read::take(&mut *input, SKIPPED).skip_until(b'\n');
            match rest {
                Ok(n) if n as u64 == SKIPPED => Err(bad_input(format!(
                    "an answer of more than {SKIPPED} characters without a line's end"
                ))),
                Ok(_) => Ok(Err(format!(
                    "That answer is more than {LONGEST} characters: type a choice's number."
                ))),
                Err(e) => Err(failed(format!("cannot read the input: {e}"))),
            }
        }
        Ok(_) => match String::from_utf8(bytes) {
            Ok(text) => {
                line.push_str(&text);
                Ok(Ok(()))
            }
            Err(_) => Ok(Err(
                "That answer is not text (UTF-8): type a choice's number.".to_string(),
            )),
        },
        Err(e) => Err(failed(format!("cannot read the input: {e}"))),
    }
}

/// What the terminal asks for: a choice's number, a cell where the question
/// moves to one, and a choice aimed at another cell where one names a cell.
fn ask_line(legal: &[&fray_core::decision::Choice], moves: bool) -> String {
    let aimed = legal.iter().position(|c| c.order.cell.is_some());
    format!(
        "Choose 1-{}{}{}: ",
        legal.len(),
        if moves {
            ", or type a cell x,y to move there"
        } else {
            ""
        },
        aimed
            .map(|i| format!(" (or a choice and another cell for it: {} x,y)", i + 1))
            .unwrap_or_default()
    )
}

/// A choice's number and a cell typed after it (`3 4,5`): the choice, aimed
/// at that cell instead of the one it names.
fn choice_and_cell(line: &str) -> Option<(usize, fray_core::grid::Cell)> {
    let (n, rest) = line.trim().split_once(char::is_whitespace)?;
    Some((n.parse().ok()?, typed_cell(rest)?))
}

/// A cell typed as `x,y` or `x y`.
fn typed_cell(line: &str) -> Option<fray_core::grid::Cell> {
    let mut parts = line
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|p| !p.is_empty());
    let x = parts.next()?.parse().ok()?;
    let y = parts.next()?.parse().ok()?;
    parts
        .next()
        .is_none()
        .then(|| fray_core::grid::Cell::new(x, y))
}

fn check(files: &[PathBuf]) -> Result<(), Failure> {
    let mut bad = Vec::new();
    let mut out = Out::new();
    for path in files {
        match check_file(path) {
            Ok(what) => {
                let _ = writeln!(out, "{}: ok ({what})", path.display());
            }
            Err(f) => {
                eprintln!("{}", f.message);
                bad.push(f);
            }
        }
    }
    out.finish().map_err(lost)?;
    match bad.len() {
        0 => Ok(()),
        n => Err(bad_input(format!(
            "{n} of {} files have problems",
            files.len()
        ))),
    }
}

/// Whether a file to check is a ruleset rather than a scenario, even cut
/// short: it names its `id` or has templates or rulings, and names no
/// `ruleset` as a scenario does.
fn looks_like_ruleset(text: &str) -> bool {
    let field = |name: &str| {
        text.lines().any(|l| {
            l.trim_start()
                .strip_prefix(name)
                .is_some_and(|r| r.trim_start().starts_with(':'))
        })
    };
    !field("ruleset") && (field("id") || field("templates") || field("rulings"))
}

/// The scenario is checked against its ruleset as the battle is built.
/// Forced dice and scripted orders are tried by playing the battle once,
/// seated as the scenario says (scripted seats roll the dice a run would),
/// at its own seed, as far as it goes without a person: a face its die
/// cannot show, or a scripted order the battle refuses, is found here
/// rather than partway through a run.
fn play_as_seated(scenario: &LoadedScenario, data: &LoadedRules) -> Result<(), Failure> {
    let s = &scenario.scenario;
    let options = BattleOptions {
        seed: s.seed,
        dice: Vec::new(),
        keep_log: false,
        all_ai: false,
        ai: Vec::new(),
        search_work: None,
    };
    // Building the battle checks the scenario against its ruleset.
    let mut battle =
        build_battle(scenario, data, &options).map_err(|e| bad_input(e.to_string()))?;
    if s.dice.is_empty() && s.orders.is_empty() {
        return Ok(());
    }
    let src = &scenario.source;
    battle.world_mut().resource_mut::<Decisions>().record();
    if let Progress::Failed(why) = battle.run() {
        let e = if why.contains("forced die") {
            src.error_at_field("dice", why)
        } else {
            src.error_at_field("name", format!("played as seated, the battle stops: {why}"))
        };
        return Err(bad_input(e.to_string()));
    }
    let decisions = battle.world().resource::<Decisions>();
    for g in decisions.given() {
        let Some(why) = &g.refused else { continue };
        let Some(i) = s.orders.iter().position(|o| o.order == g.order) else {
            continue;
        };
        let (who, action) = (&g.order.actor, &g.order.action);
        let message = format!(
            "{who:?}'s scripted {action} is refused when the battle is played at seed {}: {why}",
            s.seed
        );
        return Err(bad_input(
            src.error_in_item(("orders", "order"), i, action, message)
                .to_string(),
        ));
    }
    Ok(())
}

fn check_file(path: &Path) -> Result<String, Failure> {
    let source = Source::read(path).map_err(|e| bad_input(e.to_string()))?;
    if source.text.contains("fray_battle:") {
        return saved::check(path);
    }
    if looks_like_ruleset(&source.text) {
        let info = fray_rules::RULESETS
            .iter()
            .find(|r| source.text.contains(&format!("id: \"{}\"", r.id)))
            .ok_or_else(|| {
                bad_input(
                    source
                        .error_at_field(
                            "id",
                            format!(
                                "not a known ruleset id (rulesets: {})",
                                fray_rules::ruleset_ids()
                            ),
                        )
                        .to_string(),
                )
            })?;
        // Beside scenarios, a ruleset is read by its file's name: one named
        // for another ruleset would be read in that one's place.
        let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(other) = fray_rules::RULESETS
            .iter()
            .find(|r| r.id != info.id && r.data_file == file_name)
        {
            return Err(bad_input(source.error_at_field("id", format!(
                "this is the {} ruleset, but a file named {file_name} is read as the {} ruleset by the scenarios beside it: name it {}",
                info.id, other.id, info.data_file
            )).to_string()));
        }
        info.load(Some(source))
            .map_err(|e| bad_input(e.to_string()))?;
        return Ok(format!("ruleset {}", info.id));
    }
    let (scenario, data) = load_scenario(path)?;
    play_as_seated(&scenario, &data)?;
    Ok(format!(
        "scenario \"{}\", ruleset {}, {} combatants",
        scenario.scenario.name,
        scenario.scenario.ruleset,
        scenario.scenario.combatants.len()
    ))
}

fn rules(id: Option<&str>) -> Result<(), Failure> {
    let mut out = Out::new();
    let Some(id) = id else {
        let _ = writeln!(out, "Rulesets:");
        for r in fray_rules::RULESETS {
            let _ = writeln!(out, "  {:<20} {} (rules/{})", r.id, r.name, r.text);
        }
        let _ = writeln!(
            out,
            "\n`fray rules ID` lists a ruleset's phases and rulings."
        );
        return out.finish().map_err(lost);
    };
    let rules = fray_rules::load(id, None).map_err(bad_input)?;
    let _ = write!(out, "{}", rules.page());
    out.finish().map_err(lost)
}
