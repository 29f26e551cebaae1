//! The basic AI through the `phases` ruleset's appraisal: it takes the
//! 1-hex step rather than provoke, attacks whoever provokes it, waits beyond
//! the reach of a foe who acts before its next action (unless its side
//! outnumbers its foes, or nobody has attacked for a turn), readies only for
//! a foe who could come within its reach before then, does not walk into a
//! readied strike worth more than its own, a character the blows in
//! reach could knock out blocks, and a haymaker is weighed against the
//! shots it lets in.

mod common;

use fray_ai::battle_from_text;
use fray_core::battle::{Battle, Progress};
use fray_core::decision::{Controller, Order};
use fray_core::grid::{Cell, GridGeometry};
use fray_core::log::BattleLog;

fn battle(combatants: &str, seats: (&str, &str)) -> Battle {
    let text = format!(
        r#"(
    name: "t", ruleset: "phases", round_cap: 1,
    grid: (kind: Square, width: 12, height: 12),
    sides: [(name: "A", seat: {}), (name: "B", seat: {})],
    combatants: [{combatants}],
)"#,
        seats.0, seats.1
    );
    battle_from_text(&text, 1).unwrap()
}

fn texts(b: &Battle) -> Vec<String> {
    b.world().resource::<BattleLog>().texts()
}

#[test]
fn the_ai_steps_out_of_a_threat_instead_of_provoking() {
    // Bo (CV 6, first) stands next to Ash; Cy, all but out, is two hexes
    // away. Walking there would give Ash an attack of opportunity; the
    // 1-hex step gives none.
    let mut b = battle(
        r#"(name: "Ash", side: "A", template: "bravo", at: (3, 3)),
           (name: "Cy", side: "A", template: "bravo", at: (6, 3), set: {"stun": 2}),
           (name: "Bo", side: "B", template: "bravo", at: (4, 3), set: {"cv": 6})"#,
        ("Ai", "Ai"),
    );
    assert!(matches!(b.run(), Progress::Over(_)));
    let log = texts(&b);
    let first_bo = log.iter().find(|t| t.starts_with("Bo ")).expect("Bo acts");
    // (5, 2) and (5, 3) both reach Cy and are out of Ash's reach.
    assert!(
        first_bo.starts_with("Bo takes a 1-hex step from (4, 3) to (5, "),
        "{}",
        log.join("\n")
    );
    assert!(
        log.iter()
            .take_while(|t| !t.contains("phase 2"))
            .all(|t| !t.contains("an opportunity"))
    );
}

#[test]
fn the_ai_takes_the_attack_of_opportunity_a_mover_gives() {
    let mut b = battle(
        r#"(name: "Ash", side: "A", template: "bravo", at: (3, 3)),
           (name: "Bo", side: "B", template: "bravo", at: (4, 3), set: {"cv": 6})"#,
        ("Ai", "Human"),
    );
    let d = common::awaited(&mut b).unwrap_or_else(|_| panic!("Bo decides first"));
    assert_eq!(d.actor_name, "Bo");
    b.answer(d.id, Order::new("Bo", "move").cell(Cell::new(7, 3)));
    // Bo ends its turns and takes attacks as they come from here on.
    loop {
        match common::awaited(&mut b) {
            Ok(d) => {
                let pass = d.choices.iter().any(|c| c.order.action == "pass");
                let action = if pass { "pass" } else { "end" };
                b.answer(d.id, Order::new(&d.actor_name, action));
            }
            Err(Progress::Over(_)) => break,
            Err(stopped) => panic!("{stopped:?}"),
        }
    }
    let log = texts(&b);
    assert!(
        log.iter()
            .any(|t| t.starts_with("Ash strikes at Bo (attack of opportunity)")),
        "{}",
        log.join("\n")
    );
}

#[test]
fn a_long_reach_readies_only_for_a_foe_who_could_walk_up_and_strike() {
    // Ann cannot walk (move 0); Bo is five hexes off, and walking half his
    // move of 8 brings him within his reach of her: she readies for him.
    let mut b = battle(
        r#"(name: "Ann", side: "A", template: "stretcher", at: (2, 3), set: {"cv": 8, "move": 0}),
           (name: "Bo", side: "B", template: "bravo", at: (7, 3), set: {"move": 8})"#,
        ("Ai", "Ai"),
    );
    assert!(matches!(b.run(), Progress::Over(_)));
    let log = texts(&b);
    let readies = |t: &String| {
        t.starts_with("Ann readies a strike at the first opponent to come within its reach")
    };
    assert!(log.iter().any(readies), "{}", log.join("\n"));
    // Seven hexes off, Bo cannot strike her this phase and may hold back:
    // rather than wait for him, she walks up and strikes first.
    let mut b = battle(
        r#"(name: "Ann", side: "A", template: "stretcher", at: (2, 3), set: {"cv": 8}),
           (name: "Bo", side: "B", template: "bravo", at: (9, 3))"#,
        ("Ai", "Ai"),
    );
    assert!(matches!(b.run(), Progress::Over(_)));
    let log = texts(&b);
    assert!(!log.iter().any(readies), "{}", log.join("\n"));
    let first_blow = log
        .iter()
        .find(|t| t.contains(" strikes at ") || t.contains(" throws a haymaker at "))
        .expect("somebody strikes");
    assert!(first_blow.starts_with("Ann "), "{}", log.join("\n"));
}

#[test]
fn the_ai_waits_beyond_the_step_and_strike_of_a_foe_who_acts_after_it() {
    // Vance (Initiative 7) acts before Bruno (5) in every phase. Walking up
    // to a hex one out of Bruno's reach would let Bruno, still to act, step
    // in and strike first; Vance stops beyond a half move and a strike of
    // Bruno. Bruno, whom Vance can reach next phase before he acts again,
    // readies a strike for him, and it goes off first as Vance comes.
    let text = std::fs::read_to_string(common::scenario("phases_duel.ron")).unwrap();
    let mut b = battle_from_text(&text, 2).unwrap();
    assert!(matches!(b.run(), Progress::Over(_)));
    let log = texts(&b);
    let first_blow = log
        .iter()
        .find(|t| t.contains(" strikes at ") || t.contains(" throws a haymaker at "))
        .expect("somebody strikes");
    assert!(
        first_blow.starts_with("Bruno strikes at Vance (readied)"),
        "{}",
        log.join("\n")
    );
    let vance_stops = log
        .iter()
        .find(|t| t.starts_with("Vance moves"))
        .expect("Vance moves");
    assert!(
        vance_stops.ends_with("to (4, 4) (3 hexes)."),
        "{vance_stops}"
    );
}

#[test]
fn a_character_the_blows_in_reach_could_knock_out_blocks_rather_than_strike() {
    // Bo (8 STUN left) acts first, next to Ash, whose haymaker could knock
    // him out and whose PD of 20 his sword cannot pass: he blocks (ruling
    // `block`), and his Block roll, 3d6 9 + OCV 6 = 15 against 10 + Ash's
    // OCV 5, stops the haymaker.
    let text = r#"(
    name: "t", ruleset: "phases", round_cap: 1,
    grid: (kind: Square, width: 12, height: 12),
    sides: [(name: "A", seat: Ai), (name: "B", seat: Ai)],
    dice: [3, 3, 3],
    combatants: [
        (name: "Ash", side: "A", template: "brute", at: (3, 3), set: {"pd": 20}),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3), set: {"cv": 6, "stun": 8}),
    ],
)"#;
    let mut b = battle_from_text(text, 1).unwrap();
    assert!(matches!(b.run(), Progress::Over(_)));
    let log = texts(&b);
    let phase_one: Vec<&String> = log
        .iter()
        .skip_while(|t| !t.contains("phase 1 begins"))
        .take_while(|t| !t.contains("phase 2 begins"))
        .collect();
    assert_eq!(
        phase_one[1..4],
        [
            "Bo blocks: the first melee attack on it before its next action meets a Block roll.",
            "Bo ends its turn.",
            "Bo blocks Ash's haymaker: 15 against 15.",
        ],
        "{}",
        log.join("\n")
    );
}

/// Where the basic AI first sends Vance, in a battle of `combatants`
/// (side A seated for a person, side B for the AI), and how far that is
/// from Bruno.
fn vance_first_move(combatants: &str) -> u32 {
    let mut b = battle(combatants, ("Human", "Ai"));
    let d = common::awaited(&mut b).expect("Vance is asked");
    assert_eq!(d.actor_name, "Vance", "{}", d.prompt);
    let order = fray_ai::basic::BasicAi
        .decide(b.world_mut(), &d)
        .expect("the AI answers");
    let to = order.cell.unwrap_or_else(|| panic!("{order:?}"));
    // Bruno has not moved: he acts after Vance.
    let bruno = Cell { x: 9, y: 5 };
    b.world()
        .resource::<fray_core::grid::Grid>()
        .distance(to, bruno)
}

#[test]
fn outnumbering_its_foes_the_ai_walks_up_to_them_unless_the_first_blow_could_fell_it() {
    // Alone, Vance stops beyond the half move and strike of Bruno, who acts
    // after him (the test above). With Mira at his side, two against one, he
    // walks up all the same: the first blow is Bruno's, the next two theirs.
    let alone = vance_first_move(
        r#"(name: "Vance", side: "A", template: "swordsman", at: (1, 5)),
           (name: "Bruno", side: "B", template: "brute", at: (9, 5))"#,
    );
    let two = vance_first_move(
        r#"(name: "Vance", side: "A", template: "swordsman", at: (1, 5)),
           (name: "Mira", side: "A", template: "swordsman", at: (1, 7), set: {"lightning_reflexes": 0}),
           (name: "Bruno", side: "B", template: "brute", at: (9, 5))"#,
    );
    assert_eq!((alone, two), (4, 2));
    // At 3 STUN, Bruno's first blow would be his last: two against one, he
    // stops beyond it all the same.
    let fragile = vance_first_move(
        r#"(name: "Vance", side: "A", template: "swordsman", at: (1, 5), set: {"stun": 3}),
           (name: "Mira", side: "A", template: "swordsman", at: (1, 7), set: {"lightning_reflexes": 0}),
           (name: "Bruno", side: "B", template: "brute", at: (9, 5))"#,
    );
    assert_eq!(fragile, 4);
}

/// What the basic AI orders for Bruno once Vance, acting first, has done
/// `vance` and ended his turn (both seated for a person, the AI asked for
/// Bruno), in a battle of `combatants`; and how far from Vance's cell at
/// (1, 5) Bruno's order would leave him.
fn bruno_answer(combatants: &str, vance: &[Order]) -> (Order, Option<u32>) {
    let mut b = battle(combatants, ("Human", "Human"));
    for order in vance.iter().chain([&Order::new("Vance", "end")]) {
        let d = common::awaited(&mut b).expect("Vance is asked");
        assert_eq!(d.actor_name, "Vance", "{}", d.prompt);
        b.answer(d.id, order.clone());
    }
    let d = common::awaited(&mut b).expect("Bruno is asked");
    assert_eq!(d.actor_name, "Bruno", "{}", d.prompt);
    let order = fray_ai::basic::BasicAi
        .decide(b.world_mut(), &d)
        .expect("the AI answers");
    let grid = b.world().resource::<fray_core::grid::Grid>();
    let far = order.cell.map(|c| grid.distance(c, Cell { x: 1, y: 5 }));
    (order, far)
}

#[test]
fn the_ai_stops_beyond_the_lunge_of_a_foe_who_acts_first_next_phase() {
    // Vance has acted this phase, but acts first in the next (002
    // §Initiative): a half move of 3 and a strike reach 4 hexes. Bruno
    // walks up no nearer than 5, and lets Vance come to him.
    let (order, far) = bruno_answer(
        r#"(name: "Vance", side: "A", template: "swordsman", at: (1, 5)),
           (name: "Bruno", side: "B", template: "brute", at: (9, 5))"#,
        &[],
    );
    assert_eq!((order.action.as_str(), far), ("move", Some(5)), "{order:?}");
}

#[test]
fn a_reach_one_fighter_readies_for_a_foe_who_acts_first_and_can_come() {
    // Vance, four hexes off, acts first next phase and can walk up and
    // strike; Bruno cannot reach him this phase. Readied, Bruno's strike
    // goes off before Vance's, and Bruno acts ahead of him from then on
    // (002 §Ready Conditions).
    let (order, _) = bruno_answer(
        r#"(name: "Vance", side: "A", template: "swordsman", at: (1, 5)),
           (name: "Bruno", side: "B", template: "brute", at: (5, 5))"#,
        &[],
    );
    assert_eq!(order, Order::new("Bruno", "ready"));
    // Vance readied all the same: his readied strike lapses at his next
    // action, ahead of Bruno's, and he may then come (002 §Initiative
    // Consequences of Readying).
    let (order, _) = bruno_answer(
        r#"(name: "Vance", side: "A", template: "swordsman", at: (1, 5)),
           (name: "Bruno", side: "B", template: "brute", at: (5, 5))"#,
        &[Order::new("Vance", "ready")],
    );
    assert_eq!(order, Order::new("Bruno", "ready"));
}

#[test]
fn no_strike_is_readied_for_a_readied_foe_who_acts_after() {
    // Bruno (CV 9) acts ahead of Vance every phase. Vance readies in phase
    // 1: his readied strike holds him until his next action, after
    // Bruno's, so he will not come before Bruno acts again, and Bruno
    // readies nothing that would only lapse.
    let mut b = battle(
        r#"(name: "Vance", side: "A", template: "swordsman", at: (1, 5)),
           (name: "Bruno", side: "B", template: "brute", at: (5, 5), set: {"cv": 9})"#,
        ("Human", "Human"),
    );
    let mut asked = Vec::new();
    for order in [
        Order::new("Bruno", "end"),
        Order::new("Vance", "ready"),
        Order::new("Vance", "end"),
    ] {
        let d = common::awaited(&mut b).expect("a decision");
        asked.push(d.actor_name.clone());
        b.answer(d.id, order);
    }
    assert_eq!(asked, ["Bruno", "Vance", "Vance"]);
    let d = common::awaited(&mut b).expect("Bruno is asked");
    assert_eq!(d.actor_name, "Bruno", "{}", d.prompt);
    let order = fray_ai::basic::BasicAi
        .decide(b.world_mut(), &d)
        .expect("the AI answers");
    assert_ne!(order.action, "ready", "{order:?}");
}

#[test]
fn the_ai_will_not_walk_into_a_readied_strike_worth_more_than_its_own() {
    // Vance readies a strike for whoever comes within reach. Bruno could
    // step in and strike him, but Vance's PD of 8 leaves Bruno's club
    // little, even with Vance all but out, and the step would set off
    // Vance's harder strike first: Bruno readies in turn.
    let combatants = r#"(name: "Vance", side: "A", template: "swordsman", at: (1, 5), set: {"pd": 8, "stun": 4}),
           (name: "Bruno", side: "B", template: "brute", at: (3, 5))"#;
    let (order, _) = bruno_answer(combatants, &[Order::new("Vance", "ready")]);
    assert_eq!(order, Order::new("Bruno", "ready"));
}

#[test]
fn after_a_turn_without_an_attack_the_ai_walks_up_all_the_same() {
    // Alone, Vance stops beyond the half move and strike of Bruno, who acts
    // after him; once a whole turn has passed without an attack, waiting
    // has gained nothing, and he walks up.
    let mut b = battle(
        r#"(name: "Vance", side: "A", template: "swordsman", at: (1, 5)),
           (name: "Bruno", side: "B", template: "brute", at: (9, 5))"#,
        ("Human", "Ai"),
    );
    let d = common::awaited(&mut b).expect("Vance is asked");
    assert_eq!(after_a_quiet_turn(&mut b, &d, Cell { x: 9, y: 5 }), 2);
}

#[test]
fn in_a_standoff_the_ai_walks_into_a_readied_strike() {
    // As above, Vance readies a strike for whoever comes within reach, and
    // Bruno would rather not set it off. But once a whole turn has passed
    // without an attack, a Vance who readies phase after phase would hold
    // the field to the turn cap: Bruno walks in and strikes.
    let mut b = battle(
        r#"(name: "Vance", side: "A", template: "swordsman", at: (1, 5), set: {"pd": 8, "stun": 4}),
           (name: "Bruno", side: "B", template: "brute", at: (3, 5))"#,
        ("Human", "Human"),
    );
    for order in [Order::new("Vance", "ready"), Order::new("Vance", "end")] {
        let d = common::awaited(&mut b).expect("Vance is asked");
        b.answer(d.id, order);
    }
    let d = common::awaited(&mut b).expect("Bruno is asked");
    assert_eq!(d.actor_name, "Bruno", "{}", d.prompt);
    assert_eq!(after_a_quiet_turn(&mut b, &d, Cell { x: 1, y: 5 }), 1);
}

/// How far from `foe` the basic AI's answer to `d` moves, once a whole
/// turn has passed without an attack.
fn after_a_quiet_turn(b: &mut Battle, d: &fray_core::decision::Decision, foe: Cell) -> u32 {
    b.world_mut()
        .resource_mut::<fray_rules::phases::Flow>()
        .quiet_phases = 4;
    let order = fray_ai::basic::BasicAi
        .decide(b.world_mut(), d)
        .expect("the AI answers");
    let to = order.cell.unwrap_or_else(|| panic!("{order:?}"));
    b.world()
        .resource::<fray_core::grid::Grid>()
        .distance(to, foe)
}

/// What the basic AI has Bo, of PD `bo_pd`, do first, next to Ash, with
/// Gus and his loaded pistol seven hexes off, on a field with `obstacles`.
fn bo_next_to_ash_with_gus_off(bo_pd: i32, obstacles: &str) -> Order {
    let text = format!(
        r#"(
    name: "t", ruleset: "phases", round_cap: 1,
    grid: (kind: Square, width: 12, height: 12, obstacles: [{obstacles}]),
    sides: [(name: "A", seat: Human), (name: "B", seat: Human)],
    combatants: [
        (name: "Bo", side: "A", template: "bravo", at: (4, 3), set: {{"lightning_reflexes": 3, "pd": {bo_pd}}}),
        (name: "Ash", side: "B", template: "bravo", at: (3, 3), set: {{"pd": 8, "stun": 100}}),
        (name: "Gus", side: "B", template: "gunman", at: (11, 3)),
    ],
)"#
    );
    let mut b = battle_from_text(&text, 1).unwrap();
    let d = common::awaited(&mut b).expect("Bo is asked");
    assert_eq!(d.actor_name, "Bo", "{}", d.prompt);
    fray_ai::basic::BasicAi
        .decide(b.world_mut(), &d)
        .expect("the AI answers")
}

#[test]
fn a_haymaker_is_weighed_against_the_shots_it_lets_in() {
    // Bo acts first (Initiative 8), Gus after him, this phase (002
    // §Initiative). Against Ash's PD 8 a haymaker does more than twice the
    // STUN of a strike, at -5 DCV until Bo acts again (ruling `haymaker`):
    // worth it, Bo's own PD 8, against Ash's sword alone, not once Gus can
    // fire on Bo before then.
    let open = bo_next_to_ash_with_gus_off(8, "");
    assert_eq!(open.action, "strike", "{open:?}");
    // A wall between Gus and Bo blocks his line of sight (ruling `ranged`).
    let walled = bo_next_to_ash_with_gus_off(8, "(8, 3)");
    assert_eq!(walled.action, "haymaker", "{walled:?}");
}

#[test]
fn a_haymaker_is_weighed_against_the_haymaker_it_invites() {
    // phases_duel, seed 2: at Bo's -5 DCV Ash's own haymaker (6d6, 17 STUN
    // past Bo's PD 4) hits 95 times in 100 rather than 62, which outweighs
    // what Bo's haymaker adds (7 STUN past Ash's PD 8, 62 times in 100):
    // Bo strikes. Counted as Ash's strike (4d6), it did not.
    let walled = bo_next_to_ash_with_gus_off(4, "(8, 3)");
    assert_eq!(walled.action, "strike", "{walled:?}");
}
