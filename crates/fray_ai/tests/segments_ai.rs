//! The basic AI through the `segments` ruleset's appraisal.

mod common;

use fray_ai::basic::BasicAi;
use fray_ai::battle_from_text;
use fray_core::decision::{Controller, Order};

/// Aran and Pell, two fighters of side A, six squares from a gnoll: each
/// could charge it, on lines that meet in front of it.
const CONVERGING: &str = r#"(
    name: "t", ruleset: "segments",
    grid: (kind: Square, width: 16, height: 10),
    round_cap: 1,
    sides: [(name: "A", seat: Human), (name: "B", seat: Human)],
    combatants: [
        (name: "Aran", side: "A", template: "fighter", at: (3, 3)),
        (name: "Pell", side: "A", template: "fighter", at: (3, 5)),
        (name: "Gnoll", side: "B", template: "gnoll", at: (9, 3), set: {"hp": 60}),
    ],
)"#;

#[test]
fn a_charge_is_not_run_into_the_line_of_an_allys_charge() {
    // Ruling charge: a charge runs straight and someone on its line stops
    // it there. Alone, Pell charges the gnoll. Once Aran has declared his
    // own charge, which ends at (8, 3) on Pell's line, Pell closes and
    // attacks instead, by a way round.
    let mut battle = battle_from_text(CONVERGING, 1).unwrap();
    common::awaited(&mut battle).expect("side A declares");
    let (aran, pell) = (
        common::asked(&battle, "Aran"),
        common::asked(&battle, "Pell"),
    );
    let charge = |who: &str| Order::new(who, "charge").target("Gnoll").with("longsword");
    let attack = Order::new("Pell", "attack")
        .target("Gnoll")
        .with("longsword");
    assert_eq!(
        BasicAi.decide(battle.world_mut(), &pell),
        Some(charge("Pell"))
    );
    battle.answer(aran.id, charge("Aran"));
    assert_eq!(BasicAi.decide(battle.world_mut(), &pell), Some(attack));
}
