//! `fray sim`: many battles headless, shared over threads, with win rates,
//! lengths, speed and memory in the report.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use fray_ai::{AiLevel, BattleOptions, LoadedRules, build_battle, reset_battle};
use fray_core::battle::{Battle, Progress};
use fray_core::log::BattleLog;
use fray_core::model::BattleResult;
use fray_core::scenario::LoadedScenario;
use indicatif::{ProgressBar, ProgressStyle};

use crate::out::Out;
use crate::{Failure, bad_input, failed, load_scenario, lost};

/// Decision times kept in the histogram, in microseconds (longer ones count
/// in its last slot).
const HISTOGRAM_US: usize = 60_000;

/// What `fray sim` was asked for, beside the scenario and its AI.
pub struct Ask {
    pub battles: u32,
    pub seed: Option<u64>,
    pub json: bool,
    pub threads: Option<u32>,
    /// Play the batch again with the two sides' levels exchanged.
    pub swap: bool,
}

/// `fray sim`: run a batch of battles (and, asked to swap, the batch again
/// with the sides' AI levels exchanged), print the report, and fail if any
/// battle could not finish.
pub fn sim(path: &Path, ask: Ask, ai: &crate::AiArgs) -> Result<(), Failure> {
    if ask.battles == 0 {
        return Err(bad_input("--battles must be at least 1"));
    }
    let (scenario, data) = load_scenario(path)?;
    let levels = crate::ai_levels(&scenario, &ai.ai)?;
    let swapped = if ask.swap {
        Some(swapped(&levels)?)
    } else {
        None
    };
    let seed0 = ask.seed.unwrap_or(scenario.scenario.seed);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    let threads = ask.threads.unwrap_or(cores).min(ask.battles);
    let show_progress = !ask.json && std::io::stderr().is_terminal();
    let mut batches = vec![Batch {
        scenario: &scenario,
        data: &data,
        levels: &levels,
        search_work: ai.search_work,
    }];
    if let Some(levels) = &swapped {
        batches.push(Batch {
            levels,
            ..batches[0]
        });
    }
    let mut tallies = Vec::new();
    for batch in &batches {
        tallies.push(run_batch(
            batch,
            ask.battles,
            seed0,
            threads,
            show_progress,
        )?);
    }
    let mut out = Out::new();
    print_reports(&mut out, &batches, &tallies, ask.json);
    out.finish().map_err(lost)?;
    let failures: u32 = tallies.iter().map(|t| t.failures).sum();
    let first = tallies
        .iter()
        .enumerate()
        .find_map(|(i, t)| t.first_failure.clone().map(|f| (i, f)));
    if let Some((batch, (seed, why))) = first {
        let swapped = if batch == 0 {
            ""
        } else {
            " with the levels swapped"
        };
        return Err(failed(format!(
            "{} could not finish; the first, seed {seed}{swapped}: {why}",
            fray_core::model::count_of(failures, "battle")
        )));
    }
    Ok(())
}

/// The two sides' levels exchanged, for `--swap`: only two sides, at two
/// levels, can be swapped.
fn swapped(levels: &[AiLevel]) -> Result<Vec<AiLevel>, Failure> {
    match levels {
        [a, b] if a != b => Ok(vec![*b, *a]),
        [a, _] => Err(bad_input(format!(
            "--swap: both sides play {}; give one side another level (--ai SIDE=LEVEL)",
            a.name()
        ))),
        _ => Err(bad_input(format!(
            "--swap: the scenario has {} sides; only two can swap",
            levels.len()
        ))),
    }
}

/// Resident memory of this process in KiB (Linux), for the sim report.
fn resident_kib() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4)
}

/// What a batch of battles came to, for the sim report.
struct SimTally {
    battles: u32,
    seed0: u64,
    threads: u32,
    /// Victories by side index.
    wins: Vec<u32>,
    draws: u32,
    capped: u32,
    failures: u32,
    rounds_total: u64,
    rounds_min: u32,
    rounds_max: u32,
    log_entries: u64,
    /// The failure with the lowest seed, and why.
    first_failure: Option<(u64, String)>,
    /// Decision times in microseconds, by side, as histograms so memory
    /// stays flat.
    histograms: Vec<Vec<u64>>,
    secs: f64,
    rss_start: Option<u64>,
    rss_mid: Option<u64>,
    rss_end: Option<u64>,
}

impl SimTally {
    fn new(sides: usize, seed0: u64, threads: u32) -> Self {
        Self {
            battles: 0,
            seed0,
            threads,
            wins: vec![0; sides],
            draws: 0,
            capped: 0,
            failures: 0,
            rounds_total: 0,
            rounds_min: u32::MAX,
            rounds_max: 0,
            log_entries: 0,
            first_failure: None,
            histograms: vec![vec![0; HISTOGRAM_US + 1]; sides],
            secs: 0.0,
            rss_start: None,
            rss_mid: None,
            rss_end: None,
        }
    }

    /// Count how one battle, of seed `seed`, ended.
    fn count(&mut self, seed: u64, progress: Progress) {
        self.battles += 1;
        match progress {
            Progress::Over(result) => {
                let r = result.rounds();
                self.rounds_total += u64::from(r);
                self.rounds_min = self.rounds_min.min(r);
                self.rounds_max = self.rounds_max.max(r);
                match result {
                    BattleResult::Victory { side, .. } => self.wins[side] += 1,
                    BattleResult::MutualDestruction { .. } => self.draws += 1,
                    BattleResult::RoundCap { .. } => self.capped += 1,
                }
            }
            Progress::AwaitingHuman(_) => {
                self.failures += 1;
                self.first_to_fail(seed, "a decision was left unanswered".into());
            }
            Progress::Failed(why) => {
                self.failures += 1;
                self.first_to_fail(seed, why);
            }
        }
    }

    /// Keep the failure of the lowest seed, whichever thread met it first.
    fn first_to_fail(&mut self, seed: u64, why: String) {
        if self.first_failure.as_ref().is_none_or(|(s, _)| seed < *s) {
            self.first_failure = Some((seed, why));
        }
    }

    /// Add another thread's share of the batch.
    fn merge(&mut self, part: SimTally) {
        self.battles += part.battles;
        for (w, p) in self.wins.iter_mut().zip(&part.wins) {
            *w += p;
        }
        self.draws += part.draws;
        self.capped += part.capped;
        self.rounds_total += part.rounds_total;
        self.rounds_min = self.rounds_min.min(part.rounds_min);
        self.rounds_max = self.rounds_max.max(part.rounds_max);
        self.log_entries += part.log_entries;
        self.failures += part.failures;
        if let Some((seed, why)) = part.first_failure {
            self.first_to_fail(seed, why);
        }
        for (mine, theirs) in self.histograms.iter_mut().zip(&part.histograms) {
            for (h, p) in mine.iter_mut().zip(theirs) {
                *h += p;
            }
        }
    }
}

/// What every battle of a batch is: a scenario under its ruleset, each
/// side played by the AI at its level.
struct Batch<'a> {
    scenario: &'a LoadedScenario,
    data: &'a LoadedRules,
    levels: &'a [AiLevel],
    /// The work a search AI may spend on a decision (None: the default).
    search_work: Option<u64>,
}

/// Run `battles` battles of the batch, seeds `seed0`, `seed0 + 1`, …,
/// shared over `threads` threads in runs of consecutive seeds, and tally
/// how they ended. The tally does not depend on the number of threads: each
/// battle is its seed's alone.
fn run_batch(
    batch: &Batch,
    battles: u32,
    seed0: u64,
    threads: u32,
    show_progress: bool,
) -> Result<SimTally, Failure> {
    let sides = batch.scenario.scenario.sides.len();
    let mut tally = SimTally::new(sides, seed0, threads);
    tally.rss_start = resident_kib();
    let done = AtomicU32::new(0);
    let start = Instant::now();
    let parts = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (from, to) = share(battles, threads, t);
                let done = &done;
                scope.spawn(move || {
                    let seeds = (from..to).map(|i| seed0.wrapping_add(u64::from(i)));
                    // When its last battle ended, not when the watch next
                    // looked (it looks every 50 ms).
                    (run_part(batch, seeds, done), start.elapsed())
                })
            })
            .collect();
        tally.rss_mid = watch(&done, battles, start, show_progress, &handles);
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    let lost = Err(failed("a simulation thread failed"));
                    (lost, start.elapsed())
                })
            })
            .collect::<Vec<_>>()
    });
    // The batch took as long as its slowest thread.
    let took = parts.iter().map(|(_, took)| *took).max();
    tally.secs = took.unwrap_or_else(|| start.elapsed()).as_secs_f64();
    tally.rss_end = resident_kib();
    for (part, _) in parts {
        tally.merge(part?);
    }
    Ok(tally)
}

/// Thread `t`'s share of `battles` over `threads`: battles `from..to`.
fn share(battles: u32, threads: u32, t: u32) -> (u32, u32) {
    let per = u64::from(battles) * u64::from(t) / u64::from(threads);
    let next = u64::from(battles) * u64::from(t + 1) / u64::from(threads);
    (per as u32, next as u32)
}

/// Wait for the threads, with a progress bar on a terminal once the batch
/// has taken a second; the resident memory halfway through.
fn watch<T>(
    done: &AtomicU32,
    battles: u32,
    start: Instant,
    show_progress: bool,
    handles: &[std::thread::ScopedJoinHandle<'_, T>],
) -> Option<u64> {
    let mut bar: Option<ProgressBar> = None;
    let mut rss_mid = None;
    while !handles.iter().all(|h| h.is_finished()) {
        std::thread::sleep(Duration::from_millis(50));
        let n = done.load(Ordering::Relaxed);
        if rss_mid.is_none() && n >= battles / 2 {
            rss_mid = resident_kib();
        }
        if show_progress && bar.is_none() && start.elapsed() > Duration::from_secs(1) {
            let b = ProgressBar::new(u64::from(battles)).with_elapsed(start.elapsed());
            if let Ok(style) =
                ProgressStyle::with_template("{bar:40} {pos}/{len} battles, {elapsed} so far")
            {
                b.set_style(style);
            }
            bar = Some(b);
        }
        if let Some(b) = &bar {
            b.set_position(u64::from(n));
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    rss_mid.or_else(resident_kib)
}

/// One thread's share: the battles of `seeds`, in one app whose schedule is
/// built once.
fn run_part(
    batch: &Batch,
    seeds: impl Iterator<Item = u64>,
    done: &AtomicU32,
) -> Result<SimTally, Failure> {
    let (scenario, data) = (batch.scenario, batch.data);
    let mut tally = SimTally::new(batch.levels.len(), 0, 1);
    let mut reused: Option<Battle> = None;
    let mut decision_times: Vec<(usize, u32)> = Vec::new();
    for seed in seeds {
        let options = BattleOptions {
            seed,
            dice: Vec::new(),
            keep_log: false,
            all_ai: true,
            ai: batch.levels.to_vec(),
            search_work: batch.search_work,
        };
        let battle = match &mut reused {
            Some(b) => {
                reset_battle(b, scenario, data, &options).map_err(|e| bad_input(e.to_string()))?;
                b
            }
            None => reused.insert(
                build_battle(scenario, data, &options).map_err(|e| bad_input(e.to_string()))?,
            ),
        };
        battle.decision_times = Some(std::mem::take(&mut decision_times));
        let progress = battle.run();
        decision_times = battle.decision_times.take().unwrap_or_default();
        for &(side, us) in &decision_times {
            if let Some(h) = tally.histograms.get_mut(side) {
                h[(us as usize).min(HISTOGRAM_US)] += 1;
            }
        }
        decision_times.clear();
        tally.count(seed, progress);
        tally.log_entries += battle.world().resource::<BattleLog>().count();
        done.fetch_add(1, Ordering::Relaxed);
    }
    Ok(tally)
}

/// Decision times of a histogram: p50 and p99 in milliseconds, and how
/// many decisions.
#[derive(Clone, Copy, Default)]
struct Latency {
    p50: f64,
    p99: f64,
    decisions: u64,
}

impl Latency {
    fn of<'a>(histograms: impl IntoIterator<Item = &'a Vec<u64>>) -> Self {
        let mut all = vec![0u64; HISTOGRAM_US + 1];
        for h in histograms {
            for (a, n) in all.iter_mut().zip(h) {
                *a += n;
            }
        }
        let decisions: u64 = all.iter().sum();
        let pct = |p: f64| -> f64 {
            let want = (decisions as f64 * p).ceil().max(1.0) as u64;
            let mut seen = 0;
            for (us, n) in all.iter().enumerate() {
                seen += n;
                if seen >= want {
                    return us as f64 / 1000.0;
                }
            }
            0.0
        };
        Self {
            p50: pct(0.5),
            p99: pct(0.99),
            decisions,
        }
    }

    fn json(self) -> serde_json::Value {
        serde_json::json!({ "p50": self.p50, "p99": self.p99, "decisions": self.decisions })
    }
}

/// One side of the batch as the report names it: its name and its AI.
struct Seat {
    name: String,
    /// Its AI level, and a search's budget when not the default.
    ai: String,
    wins: u32,
    latency: Latency,
}

/// An AI level as the report names it: "search 300" for a search with a
/// budget of its own.
fn ai_name(level: AiLevel, search_work: Option<u64>) -> String {
    match (level, search_work) {
        (AiLevel::Search, Some(work)) => format!("search {work}"),
        _ => level.name().to_string(),
    }
}

/// The sides of the batch, each with its AI, wins and decision times.
fn seats(batch: &Batch, tally: &SimTally) -> Vec<Seat> {
    batch
        .scenario
        .scenario
        .sides
        .iter()
        .enumerate()
        .map(|(i, s)| Seat {
            name: s.name.clone(),
            ai: ai_name(
                batch.levels.get(i).copied().unwrap_or_default(),
                batch.search_work,
            ),
            wins: tally.wins[i],
            latency: Latency::of([&tally.histograms[i]]),
        })
        .collect()
}

/// Print the sim report of each batch: win rates, lengths and speed, as JSON
/// or as text; after two batches with the sides swapped, each level's wins
/// over both.
fn print_reports(out: &mut impl Write, batches: &[Batch], tallies: &[SimTally], json: bool) {
    let reports = batches.iter().zip(tallies);
    if json {
        let mut each: Vec<serde_json::Value> = reports.map(|(b, t)| report_json(b, t)).collect();
        let report = match each.len() {
            1 => each.remove(0),
            _ => serde_json::json!({
                "batches": each,
                "levels": level_shares(batches, tallies).iter().map(|l| serde_json::json!({
                    "ai": l.ai, "wins": l.wins, "battles": l.battles,
                    "as": l.as_side.iter().cloned().collect::<std::collections::BTreeMap<_, _>>(),
                })).collect::<Vec<_>>(),
            }),
        };
        let _ = writeln!(out, "{report}");
        return;
    }
    for (b, t) in reports {
        print_text(out, b, t);
    }
    if batches.len() == 2 {
        let _ = writeln!(out, "Sides swapped, each level over both batches:");
        for l in level_shares(batches, tallies) {
            let sides: Vec<String> = l
                .as_side
                .iter()
                .map(|(s, w)| format!("{w} as {s}"))
                .collect();
            let _ = writeln!(
                out,
                "  {:<28} wins {:>7} of {} ({:5.1}%): {}",
                l.ai,
                l.wins,
                l.battles,
                100.0 * f64::from(l.wins) / f64::from(l.battles.max(1)),
                sides.join(", ")
            );
        }
    }
}

/// One AI level's wins over two batches with the sides swapped.
struct LevelShare {
    ai: String,
    wins: u32,
    battles: u32,
    /// Its wins as each side.
    as_side: Vec<(String, u32)>,
}

/// Each level of the first batch, with its wins there and, as the other
/// side, in the second.
fn level_shares(batches: &[Batch], tallies: &[SimTally]) -> Vec<LevelShare> {
    let seats: Vec<Vec<Seat>> = batches
        .iter()
        .zip(tallies)
        .map(|(b, t)| seats(b, t))
        .collect();
    let battles: u32 = tallies.iter().map(|t| t.battles).sum();
    (0..seats[0].len())
        .map(|i| {
            let here = &seats[0][i];
            let mut as_side = vec![(here.name.clone(), here.wins)];
            // The same level, on the other side, in the swapped batch.
            for (j, s) in seats[1].iter().enumerate() {
                if j != i && s.ai == here.ai {
                    as_side.push((s.name.clone(), s.wins));
                }
            }
            LevelShare {
                ai: here.ai.clone(),
                wins: as_side.iter().map(|(_, w)| w).sum(),
                battles,
                as_side,
            }
        })
        .collect()
}

/// The mean, least and most rounds of the battles that finished.
fn rounds(tally: &SimTally) -> (f64, u32, u32) {
    let finished = tally.battles - tally.failures;
    if finished == 0 {
        return (0.0, 0, tally.rounds_max);
    }
    (
        tally.rounds_total as f64 / f64::from(finished),
        tally.rounds_min,
        tally.rounds_max,
    )
}

/// The JSON report of one batch.
fn report_json(batch: &Batch, tally: &SimTally) -> serde_json::Value {
    let seats = seats(batch, tally);
    let (mean, min, max) = rounds(tally);
    let scenario = &batch.scenario.scenario;
    serde_json::json!({
        "scenario": scenario.name,
        "ruleset": scenario.ruleset,
        "battles": tally.battles,
        "first_seed": tally.seed0,
        "wins": seats.iter().map(|s| (s.name.clone(), s.wins)).collect::<std::collections::BTreeMap<_, _>>(),
        "seats": seats.iter().map(|s| serde_json::json!({
            "side": s.name, "ai": s.ai, "wins": s.wins, "ai_decision_ms": s.latency.json(),
        })).collect::<Vec<_>>(),
        "mutual_destruction": tally.draws,
        "round_cap": tally.capped,
        "failed": tally.failures,
        "rounds": { "mean": mean, "min": min, "max": max },
        "log_entries_per_battle": tally.log_entries as f64 / f64::from(tally.battles),
        "seconds": tally.secs,
        "battles_per_second": f64::from(tally.battles) / tally.secs.max(1e-9),
        "threads": tally.threads,
        "ai_decision_ms": Latency::of(&tally.histograms).json(),
        "resident_kib": { "start": tally.rss_start, "middle": tally.rss_mid, "end": tally.rss_end },
    })
}

fn print_text(out: &mut impl Write, batch: &Batch, tally: &SimTally) {
    let battles = tally.battles;
    let scenario = &batch.scenario.scenario;
    let _ = writeln!(
        out,
        "{} ({}), {battles} battles from seed {}",
        scenario.name, scenario.ruleset, tally.seed0
    );
    for s in seats(batch, tally) {
        let who = format!("{} ({})", s.name, s.ai);
        let _ = writeln!(
            out,
            "  {who:<28} wins {:>7}  ({:5.1}%)  decisions p50 {:.3} ms, p99 {:.3} ms",
            s.wins,
            100.0 * f64::from(s.wins) / f64::from(battles),
            s.latency.p50,
            s.latency.p99
        );
    }
    let _ = writeln!(out, "  nobody standing              {:>7}", tally.draws);
    let _ = writeln!(out, "  round cap                    {:>7}", tally.capped);
    if tally.failures > 0 {
        let _ = writeln!(out, "  failed                       {:>7}", tally.failures);
    }
    let (mean, min, max) = rounds(tally);
    let _ = writeln!(out, "  rounds: mean {mean:.2}, min {min}, max {max}");
    let _ = writeln!(
        out,
        "  log entries per battle: {:.1}",
        tally.log_entries as f64 / f64::from(battles)
    );
    let threads = match tally.threads {
        1 => "one thread".to_string(),
        n => format!("{n} threads"),
    };
    let (secs, per_sec) = (tally.secs, f64::from(battles) / tally.secs.max(1e-9));
    let _ = writeln!(
        out,
        "  time: {secs:.3} s, {per_sec:.0} battles per second ({threads})"
    );
    let all = Latency::of(&tally.histograms);
    let _ = writeln!(
        out,
        "  AI decisions: {} taken, p50 {:.3} ms, p99 {:.3} ms",
        all.decisions, all.p50, all.p99
    );
    if let (Some(a), Some(m), Some(b)) = (tally.rss_start, tally.rss_mid, tally.rss_end) {
        let _ = writeln!(
            out,
            "  resident memory: {a} KiB at start, {m} KiB halfway, {b} KiB at the end"
        );
    }
}
