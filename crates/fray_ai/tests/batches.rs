//! A batch reuses one app: each of its battles must be the battle a fresh
//! app would play, log for log.

use fray_ai::{BattleOptions, build_battle, reset_battle};
use fray_core::battle::Progress;
use fray_core::log::BattleLog;
use fray_core::scenario::LoadedScenario;

#[test]
fn a_reused_app_plays_the_same_battles_as_fresh_ones() {
    same_battles("skirmish_4v4.ron", "declared");
}

#[test]
fn a_reused_phases_app_plays_the_same_battles_as_fresh_ones() {
    same_battles("phases_reach.ron", "phases");
}

#[test]
fn a_reused_detailed_sequence_app_plays_the_same_battles_as_fresh_ones() {
    same_battles("ds_melee.ron", "detailed_sequence");
}

fn same_battles(file: &str, ruleset: &str) {
    let path = format!(
        "{}/../../assets/scenarios/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let scenario = LoadedScenario::load(std::path::Path::new(&path)).unwrap();
    let data = fray_rules::load(ruleset, None).unwrap();
    let options = |seed| BattleOptions {
        seed,
        dice: Vec::new(),
        keep_log: true,
        all_ai: true,
        ai: Vec::new(),
        search_work: None,
    };
    let mut reused = build_battle(&scenario, &data, &options(100)).unwrap();
    assert!(matches!(reused.run(), Progress::Over(_)));
    for seed in 101..106 {
        reset_battle(&mut reused, &scenario, &data, &options(seed)).unwrap();
        let a = reused.run();
        let mut fresh = build_battle(&scenario, &data, &options(seed)).unwrap();
        let b = fresh.run();
        assert_eq!(a, b);
        assert!(matches!(a, Progress::Over(_)));
        let log =
            |b: &fray_core::battle::Battle| b.world().resource::<BattleLog>().entries().to_vec();
        assert_eq!(log(&reused), log(&fresh), "seed {seed}");
    }
}
