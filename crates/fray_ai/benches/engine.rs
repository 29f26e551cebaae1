//! The engine's speed: a whole 4v4 battle, one round of a 1,000-combatant
//! field, a fork, and one decision of the basic AI.
//!
//! `cargo bench -p fray_ai --bench engine`; the README's performance
//! section reports the figures of this machine.

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use fray_ai::basic::BasicAi;
use fray_ai::{BattleOptions, LoadedRules, build_battle, load_scenario, reset_battle};
use fray_core::battle::Battle;
use fray_core::data::Source;
use fray_core::decision::{Controller, Decisions};
use fray_core::scenario::LoadedScenario;
use fray_core::view::RulesView;

/// The allocator `fray` itself runs on.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn options(seed: u64, keep_log: bool) -> BattleOptions {
    BattleOptions {
        seed,
        dice: Vec::new(),
        keep_log,
        all_ai: true,
        ai: Vec::new(),
        search_work: None,
    }
}

fn scenario(name: &str) -> (LoadedScenario, LoadedRules) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets/scenarios")
        .join(name);
    load_scenario(&path).expect("a shipped scenario loads")
}

/// 500 against 500 under `declared`, in two blocks ten deep facing each
/// other across a 100 × 60 field.
fn field_1000() -> (LoadedScenario, LoadedRules) {
    let mut combatants = String::new();
    for i in 0..500 {
        let (x, y) = (i % 10, i / 10);
        combatants += &format!(
            "(name: \"W{i}\", side: \"Wardens\", template: \"sellsword\", at: ({}, {})),\n",
            35 + x,
            5 + y
        );
        combatants += &format!(
            "(name: \"R{i}\", side: \"Raiders\", template: \"hobgoblin_veteran\", at: ({}, {})),\n",
            55 + x,
            5 + y
        );
    }
    let text = format!(
        "(name: \"Field of a thousand\", ruleset: \"declared\",
          grid: (kind: Square, width: 100, height: 60),
          seed: 1, round_cap: 40,
          sides: [(name: \"Wardens\", seat: Ai), (name: \"Raiders\", seat: Ai)],
          combatants: [{combatants}])"
    );
    let scenario = LoadedScenario::from_source(Source::inline("field_1000.ron", &text))
        .expect("the field loads");
    let data = fray_rules::load("declared", None).expect("declared loads");
    (scenario, data)
}

fn round(battle: &Battle) -> u32 {
    (battle.world().resource::<RulesView>().round)(battle.world())
}

/// Step until the battle reaches round `r` (or stops).
fn play_to_round(battle: &mut Battle, r: u32) {
    while round(battle) < r {
        if battle.advance().is_some() {
            return;
        }
    }
}

/// A whole `skirmish_4v4` battle, as `fray sim` plays one: the battle
/// reset and played to its end by the AI, no log kept.
fn battle_4v4(c: &mut Criterion) {
    let (scenario, data) = scenario("skirmish_4v4.ron");
    let mut battle = build_battle(&scenario, &data, &options(0, false)).expect("builds");
    let mut seed = 0;
    c.bench_function("4v4 battle to the end", |b| {
        b.iter(|| {
            seed += 1;
            reset_battle(&mut battle, &scenario, &data, &options(seed, false)).expect("resets");
            black_box(battle.run())
        })
    });
}

/// One round of 1,000 combatants, from a fork taken at its start.
fn round_1000(c: &mut Criterion) {
    let (scenario, data) = field_1000();
    let mut start = build_battle(&scenario, &data, &options(1, false)).expect("builds");
    play_to_round(&mut start, 1);
    let mut scratch = fray_ai::fork::fork(start.world(), false).expect("forks");
    let mut group = c.benchmark_group("1000 combatants");
    group.sample_size(10);
    group.bench_function("one round", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                fray_ai::fork::fork_into(start.world(), &mut scratch, false).expect("forks");
                let t = Instant::now();
                play_to_round(&mut scratch, 2);
                spent += t.elapsed();
            }
            spent
        })
    });
    group.finish();
}

/// Forking a 4v4 in the middle of its battle: afresh, and into an earlier
/// fork (what a search does many times from one moment).
fn fork_4v4(c: &mut Criterion) {
    let (scenario, data) = scenario("skirmish_4v4.ron");
    let mut battle = build_battle(&scenario, &data, &options(3, false)).expect("builds");
    play_to_round(&mut battle, 2);
    let mut into = fray_ai::fork::fork(battle.world(), false).expect("forks");
    c.bench_function("4v4 fork afresh", |b| {
        b.iter(|| black_box(fray_ai::fork::fork(battle.world(), false).expect("forks")))
    });
    c.bench_function("4v4 fork into an earlier fork", |b| {
        b.iter(|| fray_ai::fork::fork_into(battle.world(), &mut into, false).expect("forks"))
    });
}

/// One decision of the basic AI in a 4v4: its first declaration.
fn ai_decision(c: &mut Criterion) {
    let (scenario, data) = scenario("skirmish_4v4.ron");
    let mut battle = build_battle(&scenario, &data, &options(3, false)).expect("builds");
    while battle.world().resource::<Decisions>().open().is_empty() {
        battle.step();
    }
    let decision = battle.world().resource::<Decisions>().open()[0].clone();
    c.bench_function("basic AI decision (4v4)", |b| {
        b.iter(|| black_box(BasicAi.decide(battle.world_mut(), &decision)))
    });
}

criterion_group!(engine, battle_4v4, round_1000, fork_4v4, ai_decision);
criterion_main!(engine);
