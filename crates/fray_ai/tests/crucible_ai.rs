//! The basic AI through the `crucible` ruleset's appraisal.

mod common;

use fray_ai::basic::BasicAi;
use fray_ai::battle_from_text;
use fray_core::decision::{Controller, Decisions, Order};

/// Two fighters of side A act at the same count (initiative 1 − 1 against
/// side B's 12) beside two orcs, Gash down to 1 hit point.
const TWO_ON_TWO: &str = r#"(
    name: "t", ruleset: "crucible",
    grid: (kind: Square, width: 12, height: 8),
    options: {"surprise": "none"},
    sides: [(name: "A", seat: Human), (name: "B", seat: Human)],
    combatants: [
        (name: "Osric", side: "A", template: "fighter", at: (3, 3), weapons: ["longsword"]),
        (name: "Bram", side: "A", template: "fighter", at: (3, 4), weapons: ["longsword"]),
        (name: "Gash", side: "B", template: "orc", at: (4, 3), set: {"hp": 1}),
        (name: "Grum", side: "B", template: "orc", at: (4, 4)),
    ],
    dice: [1, 12],
)"#;

#[test]
fn a_foe_an_ally_already_strikes_at_this_count_is_left_to_it() {
    let mut battle = battle_from_text(TWO_ON_TWO, 1).unwrap();
    common::awaited(&mut battle).expect("side A is asked first");
    let open = battle.world().resource::<Decisions>().open().to_vec();
    let asked = |who: &str| {
        open.iter()
            .find(|d| d.actor_name == who)
            .unwrap_or_else(|| panic!("{who} is asked at this count"))
            .clone()
    };
    let (osric, bram) = (asked("Osric"), asked("Bram"));
    // Nobody has been told anything yet: Bram finishes Gash.
    let alone = BasicAi.decide(battle.world_mut(), &bram);
    assert_eq!(alone, Some(Order::new("Bram", "attack").target("Gash")));
    // Osric's blow at Gash lands with Bram's (003 §II F): Bram takes Grum.
    battle.answer(osric.id, Order::new("Osric", "attack").target("Gash"));
    let after = BasicAi.decide(battle.world_mut(), &bram);
    assert_eq!(after, Some(Order::new("Bram", "attack").target("Grum")));
}
