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
    let (osric, bram) = (
        common::asked(&battle, "Osric"),
        common::asked(&battle, "Bram"),
    );
    // Nobody has been told anything yet: Bram finishes Gash.
    let alone = BasicAi.decide(battle.world_mut(), &bram);
    assert_eq!(alone, Some(Order::new("Bram", "attack").target("Gash")));
    // Osric's blow at Gash lands with Bram's (003 §II F): Bram takes Grum.
    battle.answer(osric.id, Order::new("Osric", "attack").target("Gash"));
    let after = BasicAi.decide(battle.world_mut(), &bram);
    assert_eq!(after, Some(Order::new("Bram", "attack").target("Grum")));
}

/// What the basic AI has Rook, a ranger with a shortbow at (4, 4), do
/// first, with an ogre at `ogre`.
fn rooks_order(ogre: (u32, u32)) -> Order {
    let text = format!(
        r#"(
    name: "t", ruleset: "crucible",
    grid: (kind: Square, width: 20, height: 9),
    options: {{"surprise": "none"}},
    sides: [(name: "A", seat: Human), (name: "B", seat: Human)],
    combatants: [
        (name: "Rook", side: "A", template: "ranger", at: (4, 4)),
        (name: "Mog", side: "B", template: "ogre", at: {ogre:?}),
    ],
    dice: [1, 12],
)"#
    );
    let mut battle = battle_from_text(&text, 1).unwrap();
    loop {
        let d = common::awaited(&mut battle).expect("Rook is asked");
        let order = BasicAi
            .decide(battle.world_mut(), &d)
            .expect("the AI answers");
        if d.actor_name == "Rook" {
            return order;
        }
        battle.answer(d.id, order);
    }
}

#[test]
fn a_shooter_falls_back_after_its_shot_from_a_foe_who_could_come_to_it() {
    // 003 §III D: "Movement may be split as desired before and/or after
    // attacking". Mog, five squares off, walks his rate of 5 to Rook and
    // strikes; Rook shoots, then falls back beyond that walk.
    let o = rooks_order((9, 4));
    assert_eq!(
        (o.action.as_str(), o.target.as_deref()),
        ("fire_then_move", Some("Mog")),
        "{o:?}"
    );
    // Nine squares off, Mog cannot come to Rook this round: he only shoots.
    assert_eq!(rooks_order((13, 4)).action, "fire");
}

/// A shooter behind a wall from its foe, in range, and a fallen friend on
/// its way toward it.
const BEHIND_THE_WALL: &str = r#"(
    name: "t", ruleset: "crucible",
    grid: (kind: Square, width: 12, height: 10, obstacles: [(2, 5), (3, 5), (4, 5), (5, 5), (6, 5)]),
    options: {"surprise": "none"},
    sides: [(name: "A", seat: Human), (name: "B", seat: Human)],
    combatants: [
        (name: "Bram", side: "A", template: "fighter", at: (4, 8), weapons: ["longsword", "shortbow"]),
        (name: "Aelis", side: "A", template: "elf_scout", at: (4, 6)),
        (name: "Mog", side: "B", template: "gnoll", at: (4, 2)),
    ],
    dice: [1, 12],
)"#;

#[test]
fn a_shot_out_of_sight_and_a_move_onto_the_fallen_are_not_weighed() {
    // Ruling in_sight: Mog, in the bow's range, is behind the wall; ruling
    // fallen_bodies: Aelis lies in the way toward him. Every order the AI
    // weighs is one the rules take, so Bram does not stand waiting.
    let mut battle = battle_from_text(BEHIND_THE_WALL, 1).unwrap();
    let aelis = {
        use fray_core::model::Rostered;
        let flow = battle.world().resource::<fray_rules::crucible::Flow>();
        flow.entity("Aelis").unwrap()
    };
    battle
        .world_mut()
        .entity_mut(aelis)
        .insert(fray_rules::crucible::Down)
        .remove::<fray_core::model::Fighting>();
    common::awaited(&mut battle).expect("Bram is asked");
    let open = battle.world().resource::<Decisions>().open().to_vec();
    let bram = open
        .iter()
        .find(|d| d.actor_name == "Bram")
        .unwrap()
        .clone();
    let world = battle.world();
    let hooks = *world.resource::<fray_core::ai::AiHooks>();
    for a in (hooks.appraise)(world, bram.actor) {
        assert!((hooks.legal)(world, bram.actor, &a.order), "{:?}", a.order);
    }
    let order = BasicAi.decide(battle.world_mut(), &bram).unwrap();
    assert_ne!(order.action, "wait", "{order:?}");
}
