//! `fray sim`: many battles headless, shared over threads, with win rates,
//! lengths, speed and memory in the report.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use fray_ai::{BattleOptions, LoadedRules, build_battle, reset_battle};
use fray_core::battle::{Battle, Progress};
use fray_core::log::BattleLog;
use fray_core::model::BattleResult;
use fray_core::scenario::LoadedScenario;
use indicatif::{ProgressBar, ProgressStyle};

use crate::out::Out;
use crate::{Failure, bad_input, failed, load_scenario, lost};

/// Decision times kept in the histogram, in microseconds (longer ones count
/// in its last slot).
const HISTOGRAM_US: usize = 20_000;

/// `fray sim`: run a batch of battles, print the report, and fail if any
/// battle could not finish.
pub fn sim(
    path: &Path,
    battles: u32,
    seed: Option<u64>,
    json: bool,
    threads: Option<u32>,
) -> Result<(), Failure> {
    if battles == 0 {
        return Err(bad_input("--battles must be at least 1"));
    }
    let (scenario, data) = load_scenario(path)?;
    let seed0 = seed.unwrap_or(scenario.scenario.seed);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    let threads = threads.unwrap_or(cores).min(battles);
    let show_progress = !json && std::io::stderr().is_terminal();
    let tally = run_batch(&scenario, &data, battles, seed0, threads, show_progress)?;
    let mut out = Out::new();
    print_report(&mut out, &scenario, &tally, json);
    out.finish().map_err(lost)?;
    if let Some((seed, why)) = tally.first_failure {
        return Err(failed(format!(
            "{} battles could not finish; the first, seed {seed}: {why}",
            tally.failures
        )));
    }
    Ok(())
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
    /// Decision times in microseconds, as a histogram so memory stays flat.
    histogram: Vec<u64>,
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
            histogram: vec![0; HISTOGRAM_US + 1],
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
        for (h, p) in self.histogram.iter_mut().zip(&part.histogram) {
            *h += p;
        }
    }
}

/// Run `battles` battles of `scenario` with the AI on every side, seeds
/// `seed0`, `seed0 + 1`, …, shared over `threads` threads in runs of
/// consecutive seeds, and tally how they ended. The tally does not depend
/// on the number of threads: each battle is its seed's alone.
fn run_batch(
    scenario: &LoadedScenario,
    data: &LoadedRules,
    battles: u32,
    seed0: u64,
    threads: u32,
    show_progress: bool,
) -> Result<SimTally, Failure> {
    let sides = scenario.scenario.sides.len();
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
                    run_part(scenario, data, seeds, sides, done)
                })
            })
            .collect();
        tally.rss_mid = watch(&done, battles, start, show_progress, &handles);
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(failed("a simulation thread failed")))
            })
            .collect::<Vec<_>>()
    });
    tally.secs = start.elapsed().as_secs_f64();
    tally.rss_end = resident_kib();
    for part in parts {
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
    scenario: &LoadedScenario,
    data: &LoadedRules,
    seeds: impl Iterator<Item = u64>,
    sides: usize,
    done: &AtomicU32,
) -> Result<SimTally, Failure> {
    let mut tally = SimTally::new(sides, 0, 1);
    let mut reused: Option<Battle> = None;
    let mut decision_times: Vec<u32> = Vec::new();
    for seed in seeds {
        let options = BattleOptions {
            seed,
            dice: Vec::new(),
            keep_log: false,
            all_ai: true,
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
        for &us in &decision_times {
            tally.histogram[(us as usize).min(HISTOGRAM_US)] += 1;
        }
        decision_times.clear();
        tally.count(seed, progress);
        tally.log_entries += battle.world().resource::<BattleLog>().count();
        done.fetch_add(1, Ordering::Relaxed);
    }
    Ok(tally)
}

/// Print the sim report of `tally`: win rates, lengths and speed, as JSON or
/// as text.
fn print_report(out: &mut impl Write, scenario: &LoadedScenario, tally: &SimTally, json: bool) {
    let SimTally {
        battles,
        seed0,
        ref wins,
        draws,
        capped,
        failures,
        rounds_total,
        rounds_min,
        rounds_max,
        log_entries,
        ref histogram,
        secs,
        rss_start,
        rss_mid,
        rss_end,
        threads,
        ..
    } = *tally;
    let decisions: u64 = histogram.iter().sum();
    let pct = |p: f64| -> f64 {
        let want = (decisions as f64 * p).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (us, n) in histogram.iter().enumerate() {
            seen += n;
            if seen >= want {
                return us as f64 / 1000.0;
            }
        }
        0.0
    };
    let (ai_p50, ai_p99) = (pct(0.5), pct(0.99));
    let per_sec = f64::from(battles) / secs.max(1e-9);
    let finished = battles - failures;
    let mean_rounds = if finished > 0 {
        rounds_total as f64 / f64::from(finished)
    } else {
        0.0
    };
    let names: Vec<String> = scenario
        .scenario
        .sides
        .iter()
        .map(|s| s.name.clone())
        .collect();
    if json {
        let report = serde_json::json!({
            "scenario": scenario.scenario.name,
            "ruleset": scenario.scenario.ruleset,
            "battles": battles,
            "first_seed": seed0,
            "wins": names.iter().zip(wins).map(|(n, w)| (n.clone(), *w)).collect::<std::collections::BTreeMap<_, _>>(),
            "mutual_destruction": draws,
            "round_cap": capped,
            "failed": failures,
            "rounds": { "mean": mean_rounds, "min": if finished > 0 { rounds_min } else { 0 }, "max": rounds_max },
            "log_entries_per_battle": log_entries as f64 / f64::from(battles),
            "seconds": secs,
            "battles_per_second": per_sec,
            "threads": threads,
            "ai_decision_ms": { "p50": ai_p50, "p99": ai_p99, "decisions": decisions },
            "resident_kib": { "start": rss_start, "middle": rss_mid, "end": rss_end },
        });
        let _ = writeln!(out, "{report}");
    } else {
        let _ = writeln!(
            out,
            "{} ({}), {battles} battles from seed {seed0}",
            scenario.scenario.name, scenario.scenario.ruleset
        );
        for (n, w) in names.iter().zip(wins) {
            let _ = writeln!(
                out,
                "  {n:<20} wins {w:>7}  ({:5.1}%)",
                100.0 * f64::from(*w) / f64::from(battles)
            );
        }
        let _ = writeln!(out, "  nobody standing      {draws:>7}");
        let _ = writeln!(out, "  round cap            {capped:>7}");
        if failures > 0 {
            let _ = writeln!(out, "  failed               {failures:>7}");
        }
        let _ = writeln!(
            out,
            "  rounds: mean {mean_rounds:.2}, min {}, max {rounds_max}",
            if finished > 0 { rounds_min } else { 0 }
        );
        let _ = writeln!(
            out,
            "  log entries per battle: {:.1}",
            log_entries as f64 / f64::from(battles)
        );
        let threads = match threads {
            1 => "one thread".to_string(),
            n => format!("{n} threads"),
        };
        let _ = writeln!(
            out,
            "  time: {secs:.3} s, {per_sec:.0} battles per second ({threads})"
        );
        let _ = writeln!(
            out,
            "  AI decisions: {decisions} taken, p50 {ai_p50:.3} ms, p99 {ai_p99:.3} ms"
        );
        if let (Some(a), Some(m), Some(b)) = (rss_start, rss_mid, rss_end) {
            let _ = writeln!(
                out,
                "  resident memory: {a} KiB at start, {m} KiB halfway, {b} KiB at the end"
            );
        }
    }
}
