//! A battle saved at any decision and loaded again goes on exactly as the
//! battle that was never stopped; a damaged battle file is refused, never
//! a panic.

mod common;

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{log_of, options, scenarios};

use fray_ai::save::{BattleFile, Stop};
use fray_ai::{AiLevel, BattleOptions, build_battle, controller, load_scenario_and_hash};
use fray_core::battle::{Battle, Progress};
use fray_core::model::Seat;

fn play_out(battle: &mut Battle) -> Progress {
    battle.run()
}

/// The battle of `scenario` and `seed`, played to its end by the AI, and
/// its battle file.
fn whole(path: &Path, seed: u64) -> (Vec<u8>, BattleFile) {
    whole_with(path, &options(seed))
}

/// The same, played as `options` say.
fn whole_with(path: &Path, options: &BattleOptions) -> (Vec<u8>, BattleFile) {
    let (scenario, data, hash) = load_scenario_and_hash(path).unwrap();
    let mut battle = build_battle(&scenario, &data, options).unwrap();
    assert!(matches!(play_out(&mut battle), Progress::Over(_)));
    let seats = vec![Seat::Ai; scenario.scenario.sides.len()];
    let file = BattleFile::of(&battle, &scenario, &hash, options, seats);
    (log_of(&battle), file)
}

/// The battle of `file` loaded (its orders replayed, the AI on every side
/// after them) and played to its end.
fn loaded(file: &BattleFile, path: &Path) -> Vec<u8> {
    loaded_with(file, path, options(file.seed))
}

/// The same, the AI playing as `options` say.
fn loaded_with(file: &BattleFile, path: &Path, options: BattleOptions) -> Vec<u8> {
    let text = file.to_text();
    // Tests run side by side in one process: each file a name of its own.
    static FILES: AtomicUsize = AtomicUsize::new(0);
    let n = FILES.fetch_add(1, Ordering::Relaxed);
    let name = format!("fray-save-{}-{n}.ron", std::process::id());
    let saved = std::env::temp_dir().join(name);
    std::fs::write(&saved, text).unwrap();
    let read = BattleFile::read(&saved);
    std::fs::remove_file(&saved).unwrap();
    let file = read.unwrap();
    let (scenario, data) = file.scenario(path).unwrap();
    let mut battle = build_battle(&scenario, &data, &options).unwrap();
    file.seat_replay(&mut battle, |side| {
        controller(Seat::Ai, &scenario, side, options.ai(side))
    });
    assert!(matches!(play_out(&mut battle), Progress::Over(_)));
    log_of(&battle)
}

#[test]
fn a_battle_saved_at_any_decision_goes_on_as_if_never_stopped() {
    let seeds: u64 = std::env::var("FRAY_SAVE_SEEDS").map_or(100, |s| s.parse().unwrap());
    for path in scenarios() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        // The large melees are costly in a debug build: fewer seeds.
        let seeds = if name.starts_with("melee_") {
            seeds.min(5)
        } else {
            seeds
        };
        for seed in 1..=seeds {
            let (log, mut file) = whole(&path, seed);
            let cut = (seed as usize * 7919) % (file.orders.len() + 1);
            file.orders.truncate(cut);
            let again = loaded(&file, &path);
            assert!(
                log == again,
                "{name}, seed {seed}, saved after {cut} orders: the log differs"
            );
        }
    }
}

#[test]
fn a_battle_against_the_search_saved_midway_goes_on_as_if_never_stopped() {
    // The search hears of a random foe's orders as the battle goes on and
    // plays its futures by them: replayed from the file, it hears the same.
    let path = common::scenario("duel.ron");
    // Seeds whose duels last a dozen rounds and more.
    for seed in [2, 4, 5, 6] {
        let options = BattleOptions {
            ai: vec![AiLevel::Random, AiLevel::Search],
            search_work: Some(6000),
            ..options(seed)
        };
        let (log, mut file) = whole_with(&path, &options);
        let cut = file.orders.len() / 4;
        file.orders.truncate(cut);
        let again = loaded_with(&file, &path, options);
        assert!(log == again, "seed {seed}, saved after {cut} orders");
    }
}

/// The file, damaged: cut short, or one character replaced.
fn damaged(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    for i in (0..chars.len()).step_by(chars.len() / 150 + 1) {
        out.push(chars[..i].iter().collect());
        for c in ['"', ')', '9', 'x', '\n', '-'] {
            let mut v = chars.clone();
            v[i] = c;
            out.push(v.into_iter().collect());
        }
    }
    out
}

#[test]
fn damaged_battle_files_are_refused_without_a_panic() {
    let path = scenarios()
        .into_iter()
        .find(|p| p.ends_with("duel.ron"))
        .unwrap();
    let (_, file) = whole(&path, 3);
    let dir = std::env::temp_dir().join(format!("fray-damaged-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut refused, mut read) = (0, 0);
    for (i, text) in damaged(&file.to_text()).into_iter().enumerate() {
        let f = dir.join(format!("{i}.ron"));
        std::fs::write(&f, text).unwrap();
        let Ok(battle_file) = BattleFile::read(&f) else {
            refused += 1;
            continue;
        };
        read += 1;
        let Ok((scenario, data)) = battle_file.scenario(&f) else {
            continue;
        };
        let seed = battle_file.seed;
        if let Ok(mut battle) = build_battle(&scenario, &data, &options(seed)) {
            battle_file.seat_replay(&mut battle, |_| Box::new(Stop));
            let _ = play_out(&mut battle);
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(refused > 100 && read > 0, "refused {refused}, read {read}");
}

/// The AI, until round `round` begins: then it writes nothing more.
struct UntilRound(u32, Box<dyn fray_core::decision::Controller>);

impl fray_core::decision::Controller for UntilRound {
    fn decide(
        &mut self,
        world: &mut bevy_ecs::world::World,
        decision: &fray_core::decision::Decision,
    ) -> Option<fray_core::decision::Order> {
        let round = world.resource::<fray_core::log::BattleLog>().round;
        (round < self.0)
            .then(|| self.1.decide(world, decision))
            .flatten()
    }
}

#[test]
fn a_battle_saved_while_orders_are_written_in_secret_keeps_none_of_them() {
    // segments_melee: every round begins with the secret declarations
    // (001 §2). The Party writes its round-2 orders, the Gnolls do not yet.
    let path = common::scenario("segments_melee.ron");
    let (scenario, data, hash) = load_scenario_and_hash(&path).unwrap();
    let options = options(1);
    let mut battle = build_battle(&scenario, &data, &options).unwrap();
    let ai = |side| controller(Seat::Ai, &scenario, side, options.ai(side));
    battle.set_controller(1, Box::new(UntilRound(2, ai(1))));
    assert!(!matches!(play_out(&mut battle), Progress::Over(_)));
    let decisions = battle.world().resource::<fray_core::decision::Decisions>();
    assert!(decisions.writing_in_secret());
    let seats = vec![Seat::Ai; 2];
    let whole = BattleFile::of(&battle, &scenario, &hash, &options, seats);
    let (kept, left_out) = whole.clone().keeping_secrets(&battle);
    assert!(left_out > 0, "the Party has written its orders");
    assert_eq!(
        kept.orders[..],
        whole.orders[..whole.orders.len() - left_out]
    );

    // Loaded, the battle stands where the secret orders began: asked for
    // again, none written, and the log so far the same.
    let (scenario, data) = kept.scenario(&path).unwrap();
    let mut again = build_battle(&scenario, &data, &options).unwrap();
    kept.seat_replay(&mut again, |_| Box::new(Stop));
    assert!(!matches!(play_out(&mut again), Progress::Over(_)));
    let d = again.world().resource::<fray_core::decision::Decisions>();
    assert!(d.writing_in_secret());
    assert!(d.open().iter().all(|o| !d.is_answered(o.id)));
    assert_eq!(d.open().len(), decisions.open().len() + left_out);
    let asked_again = |g: &fray_core::decision::Given| d.get(g.decision).is_some();
    assert!(!kept.orders.iter().any(asked_again));
    assert!(whole.orders.iter().filter(|g| asked_again(g)).count() == left_out);
    let (before, now) = (log_of(&battle), log_of(&again));
    assert!(before.starts_with(&now) && now.len() < before.len());
}

#[test]
fn a_refused_secret_order_replays_refused_without_what_it_was() {
    // segments_melee: Sir Aran writes down a walk off the battlefield, which
    // is refused (001 §2); the file keeps a written order, refused, and
    // replays to the same log.
    let path = common::scenario("segments_melee.ron");
    let (scenario, data, hash) = load_scenario_and_hash(&path).unwrap();
    let options = options(1);
    let mut battle = build_battle(&scenario, &data, &options).unwrap();
    battle.set_controller(0, Box::new(Stop));
    battle.set_controller(1, Box::new(Stop));
    let Progress::AwaitingHuman(ids) = play_out(&mut battle) else {
        panic!("nobody was asked to declare");
    };
    let decisions = battle.world().resource::<fray_core::decision::Decisions>();
    let d = decisions.get(ids[0]).unwrap().clone();
    assert!(d.secret);
    let off = fray_core::decision::Order::new(d.actor_name.as_str(), "move")
        .cell(fray_core::grid::Cell::new(99, 99));
    battle.answer(d.id, off.clone());
    // Everyone then writes what the AI would, and all is revealed.
    while let Progress::AwaitingHuman(ids) = play_out(&mut battle) {
        let writing = battle.world().resource::<fray_core::decision::Decisions>();
        if !writing.writing_in_secret() {
            break;
        }
        let open: Vec<_> = ids
            .iter()
            .filter_map(|&id| writing.get(id).cloned())
            .collect();
        for d in open {
            let order = fray_ai::basic::best(battle.world(), d.actor).unwrap();
            battle.answer(d.id, order);
        }
    }
    let file = BattleFile::of(&battle, &scenario, &hash, &options, vec![Seat::Ai; 2]);
    let (file, _) = file.keeping_secrets(&battle);
    assert_eq!(file.orders[0].order.action, fray_core::decision::WRITTEN);
    assert!(file.orders[0].refused.is_some());
    assert!(file.orders[1..].iter().all(|g| g.refused.is_none()));
    assert!(
        !file.to_text().contains("99"),
        "the walk is not in the file"
    );
    let (scenario, data) = file.scenario(&path).unwrap();
    let mut again = build_battle(&scenario, &data, &options).unwrap();
    file.seat_replay(&mut again, |_| Box::new(Stop));
    play_out(&mut again);
    assert_eq!(log_of(&again), log_of(&battle));
}
