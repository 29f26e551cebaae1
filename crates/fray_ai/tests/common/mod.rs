//! What the AI crate's tests share: the shipped scenarios, the options of
//! a battle played by the AI with its log kept, and that log.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use fray_ai::BattleOptions;
use fray_core::battle::Battle;
use fray_core::log::BattleLog;

/// Every shipped scenario, in name order.
pub fn scenarios() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/scenarios");
    let mut all: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    all.sort();
    all
}

/// A shipped scenario by file name.
pub fn scenario(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets/scenarios")
        .join(name)
}

/// The AI on every side, the log kept.
pub fn options(seed: u64) -> BattleOptions {
    BattleOptions {
        seed,
        dice: Vec::new(),
        keep_log: true,
        all_ai: true,
        ai: Vec::new(),
        search_work: None,
    }
}

/// The battle's log as JSON lines.
pub fn log_of(battle: &Battle) -> Vec<u8> {
    let mut out = Vec::new();
    let log = battle.world().resource::<BattleLog>();
    log.write_json_lines(&mut out).unwrap();
    out
}

/// Run `battle` until a person must decide: the first decision waiting
/// (else how the battle stopped).
pub fn awaited(
    battle: &mut Battle,
) -> Result<fray_core::decision::Decision, fray_core::battle::Progress> {
    match battle.run() {
        fray_core::battle::Progress::AwaitingHuman(ids) => Ok(battle
            .world()
            .resource::<fray_core::decision::Decisions>()
            .get(ids[0])
            .expect("a decision waited on is open")
            .clone()),
        stopped => Err(stopped),
    }
}

/// The decision open for `who` in `battle`.
pub fn asked(battle: &Battle, who: &str) -> fray_core::decision::Decision {
    battle
        .world()
        .resource::<fray_core::decision::Decisions>()
        .open()
        .iter()
        .find(|d| d.actor_name == who)
        .unwrap_or_else(|| panic!("{who} is asked"))
        .clone()
}
