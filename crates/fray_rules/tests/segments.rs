//! The `segments` ruleset (rules/001) with forced dice: each test pins the
//! exact outcome of a paragraph or a worked example of the text.

mod common;

use bevy_ecs::prelude::*;
use common::{assert_has, assert_lacks, field, line, run, texts};
use fray_core::battle::Battle;
use fray_core::data::Source;
use fray_core::decision::{Controller, Decision, Order, Scripted, ScriptedOrder};
use fray_core::grid::Cell;
use fray_core::log::BattleLog;
use fray_core::model::{BattleResult, Rostered};
use fray_core::scenario::LoadedScenario;
use fray_rules::ruleset::DataFile;
use fray_rules::segments::{self, HitPoints, SegmentsData, SurpriseSegments};

/// Answers what no script covers: declarations `wait`, a caster begins its
/// spell, an interrupt strikes.
struct Defaults;

impl Controller for Defaults {
    fn decide(&mut self, _: &mut World, d: &Decision) -> Option<Order> {
        let action = match d.rule.as_str() {
            "ruling decline_cast" => "cast",
            "ruling fleeing_attack" | "ruling set_spear" => "strike",
            _ => "wait",
        };
        Some(Order::new(&d.actor_name, action))
    }
}

/// Plays the ruleset's own appraisal (`ai.rs`): the best legal order.
struct Hooks;

impl Controller for Hooks {
    fn decide(&mut self, world: &mut World, d: &Decision) -> Option<Order> {
        let hooks = *world.resource::<fray_core::ai::AiHooks>();
        let mut options = (hooks.appraise)(world, d.actor);
        options.sort_by(|a, b| b.score().total_cmp(&a.score()));
        options
            .into_iter()
            .map(|a| a.order)
            .find(|o| (hooks.legal)(world, d.actor, o))
    }
}

/// A battle on an open 10×8 field with `more` fields, `combatants`, the
/// forced `dice` and scripted orders `(round, order)`.
fn battle(more: &str, combatants: &str, dice: &[u32], orders: &[(u32, Order)]) -> Battle {
    let text = field("segments", (10, 8), 1, more, combatants);
    let script: Vec<ScriptedOrder> = orders
        .iter()
        .map(|(round, order)| ScriptedOrder {
            round: *round,
            asked: None,
            order: order.clone(),
        })
        .collect();
    common::battle(&text, dice, |_| {
        Box::new(Scripted::new(script.clone(), Box::new(Defaults)))
    })
}

const ALERTED: &str = r#"options: {"alerted": "A, B"},"#;

fn entity(b: &Battle, name: &str) -> Entity {
    b.world().resource::<segments::Flow>().entity(name).unwrap()
}

fn hp(b: &Battle, name: &str) -> i32 {
    b.world().get::<HitPoints>(entity(b, name)).unwrap().current
}

fn surprise(b: &Battle, name: &str) -> u32 {
    b.world()
        .get::<SurpriseSegments>(entity(b, name))
        .unwrap()
        .0
}

fn attack(actor: &str, target: &str) -> Order {
    Order::new(actor, "attack").target(target)
}

const PARTY_AND_ORC: &str = r#"
    (name: "Anna", side: "A", template: "fighter", at: (1, 1)),
    (name: "Bors", side: "B", template: "orc", at: (8, 6)),"#;

// --- 001 §1: surprise ---

#[test]
fn party_rolling_1_and_monsters_2_gives_the_party_one_surprise_segment() {
    let mut b = battle("", PARTY_AND_ORC, &[1, 2, 3, 3], &[]);
    run(&mut b);
    assert_has(&b, "The A roll 1 for surprise: surprised for one segment.");
    assert_has(&b, "The B roll 2 for surprise: surprised for 2 segments.");
    assert_lacks(&b, "Surprise segment 1:");
    assert_has(&b, "Surprise segment 2: Anna may act");
    assert_eq!((surprise(&b, "Anna"), surprise(&b, "Bors")), (1, 2));
}

#[test]
fn party_rolling_2_against_5_gives_the_monsters_both_segments() {
    let mut b = battle("", PARTY_AND_ORC, &[2, 5, 3, 3], &[]);
    run(&mut b);
    assert_has(&b, "The B roll 5 for surprise: not surprised.");
    assert_has(&b, "Surprise segment 1: Bors may act");
    assert_has(&b, "Surprise segment 2: Bors may act");
    assert_lacks(&b, "Surprise segment 3");
}

#[test]
fn a_surprise_bonus_of_2_lets_one_member_act_while_the_party_is_surprised() {
    // The text's example: monsters roll 1, the party 2, one member has +2.
    let c = r#"
        (name: "Anna", side: "A", template: "fighter", at: (1, 1)),
        (name: "Nim", side: "A", template: "thief", at: (1, 3)),
        (name: "Bors", side: "B", template: "orc", at: (8, 6)),"#;
    let mut b = battle("", c, &[2, 1, 3, 3], &[]);
    run(&mut b);
    assert_has(
        &b,
        "Nim's surprise bonus of +2 changes the side's 2 segments: Nim is not surprised at all.",
    );
    assert_has(&b, "Surprise segment 1: Nim may act");
    assert_has(&b, "Surprise segment 2: Nim, Bors may act");
    assert_eq!(
        (
            surprise(&b, "Anna"),
            surprise(&b, "Nim"),
            surprise(&b, "Bors")
        ),
        (2, 0, 1)
    );
}

#[test]
fn the_choices_for_a_surprise_segment_know_who_is_surprised_in_it() {
    // 001 §1: "In the second surprise segment, the monsters are no longer
    // surprised". Declaring for segment 2, Nim is warned that fleeing
    // turns her back on Bors beside her; for segment 1 she is not.
    let c = r#"
        (name: "Anna", side: "A", template: "fighter", at: (1, 1)),
        (name: "Nim", side: "A", template: "thief", at: (5, 4)),
        (name: "Bors", side: "B", template: "orc", at: (6, 4)),"#;
    let text = field("segments", (10, 8), 1, "", c);
    let mut b = common::battle(&text, &[2, 1], |_| Box::new(fray_core::decision::HumanSeat));
    let _ = b.run();
    let nim = entity(&b, "Nim");
    let flee = |b: &Battle| {
        segments::choices(b.world(), nim)
            .into_iter()
            .find(|c| c.order.action == "flee")
            .map(|c| c.label)
            .unwrap()
    };
    assert_has(&b, "Surprise segment 1: Nim may act");
    assert_eq!(flee(&b), "Flee");
    // No hold fits in a surprise segment: one row says so for them all.
    let holds: Vec<_> = segments::choices(b.world(), nim)
        .into_iter()
        .filter(|c| c.order.action == "hold")
        .collect();
    assert_eq!(holds.len(), 1);
    assert_eq!(holds[0].label, "Hold");
    assert!(holds[0].refused.is_some());
    let id = b
        .world()
        .resource::<fray_core::decision::Decisions>()
        .open()[0]
        .id;
    b.answer(id, Order::new("Nim", "wait"));
    let _ = b.run();
    assert_has(&b, "Surprise segment 2: Nim, Bors may act");
    assert!(
        flee(&b).contains("WARNING: turns its back on Bors"),
        "{}",
        flee(&b)
    );
    // The same flight typed by hand is warned of in the same words.
    let typed = (segments::VIEW.warns)(b.world(), nim, &Order::new("Nim", "flee"));
    assert_eq!(
        typed,
        ["turns its back on Bors, a free routine each at +2 (ruling fleeing_attack)"]
    );
}

#[test]
fn dexterity_never_creates_surprise_but_a_penalty_lengthens_it() {
    let c = r#"
        (name: "Anna", side: "A", template: "fighter", at: (1, 1), set: {"surprise_bonus": -1}),
        (name: "Bors", side: "B", template: "orc", at: (8, 6), set: {"surprise_bonus": -2}),"#;
    let mut b = battle("", c, &[1, 4, 3, 3], &[]);
    run(&mut b);
    assert_eq!(
        surprise(&b, "Bors"),
        0,
        "the side rolled 4: no surprise to lengthen"
    );
    assert_eq!(
        surprise(&b, "Anna"),
        2,
        "one segment, and a -1 penalty adds one"
    );
    assert_has(&b, "Surprise segment 2: Bors may act");
}

#[test]
fn a_monster_that_surprises_on_1_to_3_gains_three_segments() {
    let c = r#"
        (name: "Anna", side: "A", template: "fighter", at: (1, 1)),
        (name: "Grub", side: "B", template: "bugbear", at: (8, 6)),"#;
    let mut b = battle("", c, &[3, 5, 3, 3], &[]);
    run(&mut b);
    assert_has(
        &b,
        "The A roll 3 for surprise (their enemies surprise on 1-3: the stealthiest serves its whole side): surprised for 3 segments.",
    );
    assert_has(&b, "Surprise segment 3: Grub may act");
    let e = b.world().resource::<BattleLog>().entries();
    assert!(
        e.iter()
            .any(|x| x.rule == "001 §1 Surprises on 1-3 · ruling stealthy_side")
    );
}

#[test]
fn an_alerted_side_makes_no_roll_and_some_monsters_cannot_be_surprised() {
    let c = r#"
        (name: "Anna", side: "A", template: "fighter", at: (1, 1)),
        (name: "Ghast", side: "B", template: "ghoul", at: (8, 6)),
        (name: "Bors", side: "B", template: "orc", at: (8, 4)),"#;
    let mut b = battle(r#"options: {"alerted": "A"},"#, c, &[1, 3, 3], &[]);
    run(&mut b);
    assert_has(
        &b,
        "The A are alerted: they make no surprise roll and are not surprised.",
    );
    assert_has(&b, "Ghast cannot be surprised.");
    assert_eq!((surprise(&b, "Ghast"), surprise(&b, "Bors")), (0, 1));
    assert_has(&b, "Surprise segment 1: Anna, Ghast may act");
}

#[test]
fn a_surprise_segment_allows_only_what_fits_in_one_segment() {
    let hold = Order::new("Bors", "hold").with("8");
    let mut b = battle("", PARTY_AND_ORC, &[1, 5, 3, 3], &[(0, hold)]);
    run(&mut b);
    common::assert_refused(
        &b,
        "Bors's order \"hold\" is refused: only an action that fits in one segment",
    );
}

#[test]
fn a_one_segment_spell_is_fully_cast_in_a_surprise_segment() {
    let c = r#"
        (name: "Hal", side: "A", template: "magic_user", at: (1, 1)),
        (name: "Bors", side: "B", template: "orc", at: (6, 1)),"#;
    let cast = Order::new("Hal", "cast")
        .target("Bors")
        .with("magic_missile");
    // B rolls 1: surprised one segment; Hal casts; 1d4+1 = 5.
    let mut b = battle("", c, &[4, 1, 4], &[(0, cast)]);
    run(&mut b);
    assert_has(
        &b,
        "Hal begins casting magic_missile at Bors: casting time 1 segment, it goes off as surprise segment 1 ends.",
    );
    assert_has(
        &b,
        "Hal's magic_missile, begun in surprise segment 1, goes off: it strikes Bors for 5.",
    );
    assert!(line(&b, "goes off") < line(&b, "Round 1 begins."));
    // Declared in a surprise segment: ruling surprise_declarations.
    let declared = line(&b, "Hal writes down an action.");
    let entry = &b.world().resource::<BattleLog>().entries()[declared];
    assert_eq!(entry.rule, "ruling surprise_declarations");
}

#[test]
fn a_spell_completing_as_the_last_surprise_segment_ends_is_announced_so() {
    // Ruling continuing_cast: each surprise segment is a period of its own.
    // B rolls 2: surprised two segments. Hal begins fire_bolt (casting time
    // 2) in surprise segment 1: it completes as surprise segment 2 ends,
    // before round 1, and is announced so, not for round 1.
    let c = r#"
        (name: "Hal", side: "A", template: "magic_user", at: (1, 1)),
        (name: "Bors", side: "B", template: "orc", at: (6, 1), set: {"hp": 40}),"#;
    let cast = Order::new("Hal", "cast").target("Bors").with("fire_bolt");
    let mut b = battle("", c, &[5, 2, 6, 6, 3, 3], &[(0, cast)]);
    run(&mut b);
    assert_has(
        &b,
        "Hal begins casting fire_bolt at Bors: casting time 2 segments, it goes off as surprise segment 2 ends.",
    );
    assert!(line(&b, "goes off:") < line(&b, "Round 1 begins."));
}

#[test]
fn a_scenario_may_start_a_caster_with_its_spell_in_progress() {
    // Scenario `starts`: Hal began his fire_bolt before the battle opened
    // and has one segment of it left: in round 1 he goes on casting, the
    // bolt goes off in segment 2, and Hal, who declared a move (ruling
    // continuing_cast), moves in his side's segment 4. Initiative 3 and 4;
    // 2d6 = 2 + 3.
    let c = r#"
        (name: "Hal", side: "A", template: "magic_user", at: (1, 1), starts: ["casting fire_bolt 1 at Bors"]),
        (name: "Bors", side: "B", template: "orc", at: (6, 1)),"#;
    let step = Order::new("Hal", "move").cell(fray_core::grid::Cell::new(1, 2));
    let mut b = battle(ALERTED, c, &[3, 4, 2, 3], &[(1, step.clone())]);
    run(&mut b);
    assert_has(
        &b,
        "Hal goes on casting fire_bolt: it goes off in segment 2, and declares what it does once it is off.",
    );
    let bolt = line(
        &b,
        "Hal's fire_bolt, begun before the battle, goes off: it strikes Bors for 5.",
    );
    assert!(bolt < line(&b, "Hal moves"), "{}", texts(&b).join("\n"));
    // The B rolling 1, Hal's side acts in segment 1, before the bolt is
    // off: the move is lost.
    let mut b = battle(ALERTED, c, &[3, 1, 2, 3], &[(1, step)]);
    run(&mut b);
    let lost = line(
        &b,
        "Hal is still casting fire_bolt: its declared action is lost.",
    );
    assert!(lost < line(&b, "goes off: it strikes Bors"));
    assert_lacks(&b, "Hal moves");
}

#[test]
fn a_spell_in_progress_goes_off_in_a_surprise_segment_nobody_acts_in() {
    // Both sides roll 2 for surprise: nobody acts in surprise segments 1
    // and 2, yet Hal's fire_bolt, one segment of it left, is complete as
    // the battle's second segment ends and goes off there (001 §Note about
    // spells). 2d6 = 2 + 3; then initiative 3 and 4.
    let c = r#"
        (name: "Hal", side: "A", template: "magic_user", at: (1, 1), starts: ["casting fire_bolt 1 at Bors"]),
        (name: "Bors", side: "B", template: "orc", at: (6, 1), set: {"hp": 20}),"#;
    let mut b = battle("", c, &[2, 2, 2, 3, 3, 4], &[]);
    run(&mut b);
    assert_has(&b, "The A roll 2 for surprise: surprised for 2 segments.");
    assert_has(&b, "The B roll 2 for surprise: surprised for 2 segments.");
    assert_lacks(&b, "may act");
    let log = b.world().resource::<fray_core::log::BattleLog>();
    let bolt = log
        .entries()
        .iter()
        .find(|e| {
            e.text.contains(
                "Hal's fire_bolt, begun before the battle, goes off: it strikes Bors for 5.",
            )
        })
        .unwrap_or_else(|| panic!("no bolt:\n{}", texts(&b).join("\n")));
    assert_eq!(bolt.time, "surprise segment 2");
    assert_has(&b, "Hal declares");
}

fn start_hal(state: &str) -> Result<(), String> {
    let text = field(
        "segments",
        (10, 8),
        1,
        "",
        &format!(
            r#"(name: "Hal", side: "A", template: "magic_user", at: (1, 1), starts: [{state:?}]),
            (name: "Bors", side: "B", template: "orc", at: (6, 1)),"#
        ),
    );
    let scenario = LoadedScenario::from_source(Source::inline("t.ron", &text)).unwrap();
    let rules = fray_rules::load("segments", None).unwrap();
    rules.check_scenario(&scenario).map_err(|e| e.to_string())
}

#[test]
fn a_spell_in_progress_is_one_the_caster_knows_with_time_left() {
    assert_eq!(start_hal("casting fire_bolt"), Ok(()));
    assert_eq!(start_hal("casting fire_bolt 2 at Bors"), Ok(()));
    let err = start_hal("casting fireball").unwrap_err();
    assert!(
        err.contains("t.ron:") && err.contains("\"Hal\" knows no spell \"fireball\""),
        "{err}"
    );
    let err = start_hal("casting fire_bolt 3").unwrap_err();
    assert!(
        err.contains("casting time is 2, so 1 to 2 are left"),
        "{err}"
    );
    let err = start_hal("casting fire_bolt at Nobody").unwrap_err();
    assert!(err.contains("\"Nobody\" is not in the scenario"), "{err}");
    // Ruling spell_effects: at a target of the side a declared cast takes.
    let err = start_hal("casting fire_bolt at Hal").unwrap_err();
    assert!(
        err.contains("fire_bolt is cast at an enemy, and \"Hal\" is not one"),
        "{err}"
    );
    let err = start_hal("fallen").unwrap_err();
    assert!(err.contains("it knows: casting <spell>"), "{err}");
}

// --- 001 §2: declarations ---

#[test]
fn declarations_are_secret_and_revealed_together() {
    let mut b = battle(ALERTED, PARTY_AND_ORC, &[3, 3], &[]);
    run(&mut b);
    let t = texts(&b);
    let reveal = line(&b, "All declarations are revealed together.");
    assert!(line(&b, "Anna writes down an action.") < reveal);
    assert!(line(&b, "Bors writes down an action.") < reveal);
    assert!(reveal < line(&b, "Anna declares: wait."));
    assert!(
        t.iter()
            .all(|x| !x.contains("declares") || t.iter().position(|y| y == x).unwrap() > reveal)
    );
}

#[test]
fn a_caster_may_decline_but_not_switch() {
    let c = r#"
        (name: "Hal", side: "A", template: "magic_user", at: (1, 1)),
        (name: "Bors", side: "B", template: "orc", at: (6, 1)),"#;
    let orders = [
        (
            1,
            Order::new("Hal", "cast").target("Bors").with("fire_bolt"),
        ),
        (1, attack("Hal", "Bors")),
        (1, Order::new("Hal", "decline")),
    ];
    let mut b = battle(ALERTED, c, &[3, 3], &orders);
    run(&mut b);
    assert_has(
        &b,
        "Hal's order \"attack\" is refused: a caster may decline to cast, but may not substitute another action (001 §2).",
    );
    assert_has(
        &b,
        "Hal elects not to cast fire_bolt, and may not take another action instead.",
    );
    assert_lacks(&b, "begins casting");
}

// --- 001 §3: initiative ---

#[test]
fn each_side_acts_in_the_segment_of_the_other_sides_roll() {
    // The text: the party rolls 6, the monsters 1: the party acts in
    // segment 1, the monsters in segment 6.
    let orders = [(1, attack("Anna", "Bors")), (1, attack("Bors", "Anna"))];
    let mut b = battle(ALERTED, PARTY_AND_ORC, &[6, 1, 2, 2], &orders);
    run(&mut b);
    assert_has(
        &b,
        "Initiative: the A roll 6, the B roll 1. The A act in segment 1 (the B's roll), the B in segment 6 (the A's roll).",
    );
    assert_has(&b, "Segment 1: Anna acts (the B rolled 1).");
    assert_has(&b, "Segment 6: Bors acts (the A rolled 6).");
    assert!(line(&b, "Anna moves") < line(&b, "Bors moves"));
}

#[test]
fn halvaine_spell_goes_off_in_segment_6_when_the_orcs_miss() {
    let mut b = halvaine(&[5, 4, 2, 6, 6]);
    let result = run(&mut b);
    assert_has(
        &b,
        "Halvaine begins casting fire_bolt at Gash: casting time 2 segments, it goes off in segment 6.",
    );
    assert_has(
        &b,
        "Gash attacks Halvaine with the scimitar: 2 = 2 against 10 (THAC0 19 − AC 9): misses.",
    );
    assert_has(
        &b,
        "Halvaine's fire_bolt, begun in segment 4, goes off: it strikes Gash for 12.",
    );
    let entries = b.world().resource::<BattleLog>().entries();
    let off = entries
        .iter()
        .find(|e| e.text.contains("goes off:"))
        .unwrap();
    assert_eq!(off.time, "segment 6");
    let began = entries
        .iter()
        .find(|e| e.text.contains("begins casting"))
        .unwrap();
    assert_eq!(began.time, "segment 4");
    assert_eq!(result, BattleResult::Victory { side: 0, rounds: 1 });
}

#[test]
fn halvaine_spell_is_spoiled_when_the_orcs_hit_in_segment_5() {
    let mut b = halvaine(&[5, 4, 15, 3]);
    run(&mut b);
    assert_has(
        &b,
        "Gash attacks Halvaine with the scimitar: 15 = 15 against 10 (THAC0 19 − AC 9): hits for 3.",
    );
    assert_has(&b, "Halvaine takes 3 damage from Gash: 6 hit points left.");
    assert_has(
        &b,
        "Halvaine is struck while casting fire_bolt: the spell is spoiled.",
    );
    assert_lacks(&b, "goes off:");
    let entries = b.world().resource::<BattleLog>().entries();
    let spoiled = entries
        .iter()
        .find(|e| e.event == fray_core::log::EventKind::Spoiled)
        .unwrap();
    assert_eq!(
        (spoiled.time.as_str(), spoiled.rule.as_str()),
        ("segment 5", "001 §Note about spells")
    );
    assert_eq!(hp(&b, "Gash"), 6);
}

fn halvaine(dice: &[u32]) -> Battle {
    let c = r#"
        (name: "Halvaine", side: "A", template: "magic_user", at: (2, 4)),
        (name: "Gash", side: "B", template: "orc", at: (3, 4)),"#;
    let orders = [
        (
            1,
            Order::new("Halvaine", "cast")
                .target("Gash")
                .with("fire_bolt"),
        ),
        (1, attack("Gash", "Halvaine")),
    ];
    battle(ALERTED, c, dice, &orders)
}

#[test]
fn a_tie_lets_two_combatants_kill_each_other() {
    let c = r#"
        (name: "Anna", side: "A", template: "fighter", at: (1, 1), set: {"hp": 3}),
        (name: "Bors", side: "B", template: "orc", at: (2, 1), set: {"hp": 3}),"#;
    let orders = [(1, attack("Anna", "Bors")), (1, attack("Bors", "Anna"))];
    let mut b = battle(ALERTED, c, &[3, 3, 15, 5, 16, 4], &orders);
    let result = run(&mut b);
    assert_has(&b, "both act in segment 3, simultaneously");
    assert_has(
        &b,
        "Segment 3: Anna, Bors act at the same instant; their damage lands together.",
    );
    assert!(line(&b, "Bors attacks Anna") < line(&b, "Bors takes 6 damage"));
    assert_has(&b, "Anna falls dead.");
    assert_has(&b, "Bors falls dead.");
    assert_eq!(result, BattleResult::MutualDestruction { rounds: 1 });
    let rule_of = |b: &Battle, needle: &str| {
        let log = b.world().resource::<BattleLog>();
        log.entries()
            .iter()
            .find(|x| x.text.contains(needle))
            .map(|x| x.rule.to_string())
    };
    assert_eq!(
        rule_of(&b, "act at the same instant").as_deref(),
        Some("001 §3 Ties")
    );
    // Ruling same_segment: no tie, but Wren's bow brings her into Gash's
    // segment 3: the instant is the ruling's, not the text's tie.
    let c = r#"
        (name: "Wren", side: "A", template: "archer", at: (1, 4)),
        (name: "Gash", side: "B", template: "orc", at: (5, 4), set: {"hp": 30}),"#;
    let orders = [
        (
            1,
            Order::new("Wren", "attack").target("Gash").with("shortbow"),
        ),
        (1, attack("Gash", "Wren")),
    ];
    let mut b = battle(ALERTED, c, &[3, 5], &orders);
    run(&mut b);
    assert_eq!(
        rule_of(&b, "act at the same instant").as_deref(),
        Some("001 §3 Ties · ruling same_segment")
    );
}

#[test]
fn a_goblin_killed_in_segment_1_does_not_attack_in_segment_5() {
    let c = r#"
        (name: "Anna", side: "A", template: "fighter", at: (1, 1)),
        (name: "Snik", side: "B", template: "goblin", at: (2, 1)),
        (name: "Grub", side: "B", template: "goblin", at: (9, 7)),"#;
    let orders = [
        (1, attack("Anna", "Snik")),
        (1, attack("Snik", "Anna")),
        (1, attack("Grub", "Anna")),
    ];
    let mut b = battle(ALERTED, c, &[5, 1, 18, 4], &orders);
    run(&mut b);
    assert_has(&b, "Snik falls dead.");
    assert_has(
        &b,
        "Snik is out of the fight and does not act: damage took effect at once.",
    );
    assert_lacks(&b, "Snik attacks");
    assert_eq!(hp(&b, "Anna"), 20);
}

#[test]
fn a_missile_weapon_in_hand_moves_the_archer_earlier() {
    let c = r#"
        (name: "Elwen", side: "A", template: "archer", at: (0, 3)),
        (name: "Bolg", side: "B", template: "orc_archer", at: (9, 3)),"#;
    let orders = [
        (1, attack("Elwen", "Bolg").with("shortbow")),
        (1, attack("Bolg", "Elwen").with("shortbow")),
    ];
    // The archers roll 4, the orcs 5: the archers' side acts in 5, after the
    // orcs in 4, but Elwen's +2 brings her to segment 3.
    let mut b = battle(ALERTED, c, &[4, 5, 10, 6], &orders);
    run(&mut b);
    assert_has(
        &b,
        "Elwen has a missile weapon in hand: its missile attack bonus +2 moves it from segment 5 to segment 3 (ruling missile_initiative).",
    );
    assert_has(
        &b,
        "Elwen attacks Bolg with the shortbow: 10 +2 missile attack bonus = 12 against 11",
    );
    assert_has(&b, "Bolg falls dead.");
    assert_lacks(&b, "Bolg attacks");
}

#[test]
fn in_a_tied_round_one_felled_earlier_still_deals_its_blow() {
    // 001 §3 Ties: "The damage inflicted by combatants during simultaneous
    // initiative is inflicted even if one of the combatants dies during the
    // round." Both sides roll 5; Elwen's missile bonus brings her to
    // segment 3, where she fells Bolg; Bolg still shoots in segment 5
    // (ruling tied_round).
    let c = r#"
        (name: "Elwen", side: "A", template: "archer", at: (0, 3)),
        (name: "Bolg", side: "B", template: "orc_archer", at: (9, 3)),"#;
    let orders = [
        (1, attack("Elwen", "Bolg").with("shortbow")),
        (1, attack("Bolg", "Elwen").with("shortbow")),
    ];
    let mut b = battle(ALERTED, c, &[5, 5, 10, 6, 15, 3, 15, 3], &orders);
    run(&mut b);
    let falls = line(&b, "Bolg falls dead.");
    let still = line(
        &b,
        "Bolg, felled earlier in this tied round, still deals its blow.",
    );
    let shoots = line(&b, "Bolg attacks Elwen with the shortbow");
    assert!(falls < still && still < shoots, "{}", texts(&b).join("\n"));
}

#[test]
fn in_a_tied_round_a_last_blow_lands_with_the_segment_s_other_blows() {
    // 001 §3 Ties, ruling tied_round: both sides roll 3. Wren's missile
    // bonus brings her to segment 1, where she fells Orc 1; in segment 3 Orc
    // 1's last blow and Fen's act together, so Fen, felled by it, still acts.
    let c = r#"
        (name: "Orc 1", side: "B", template: "orc", at: (3, 3), set: {"hp": 1}),
        (name: "Fen", side: "A", template: "fighter", at: (2, 3), set: {"hp": 1}),
        (name: "Wren", side: "A", template: "archer", at: (1, 1)),
        (name: "Orc 3", side: "B", template: "orc", at: (6, 3)),"#;
    let orders = [
        (1, attack("Orc 1", "Fen").with("scimitar")),
        (1, attack("Fen", "Orc 3").with("longsword")),
        (1, attack("Wren", "Orc 1").with("shortbow")),
        (1, Order::new("Orc 3", "wait")),
    ];
    let mut b = battle(ALERTED, c, &[3, 3, 15, 3, 15, 3], &orders);
    run(&mut b);
    line(&b, "Orc 1 falls dead.");
    let tie = line(&b, "Segment 3: Orc 1, Fen act");
    let entry = &b.world().resource::<BattleLog>().entries()[tie];
    assert_eq!(entry.rule, "001 §3 Ties", "{}", texts(&b).join("\n"));
    line(&b, "Fen attacks Orc 3");
    assert_lacks(&b, "Fen, felled earlier in this tied round");
}

#[test]
fn in_a_tied_round_a_charger_felled_by_a_set_spear_still_strikes() {
    // 001 §3 Ties, ruling tied_round: both sides act in segment 3; Pell's
    // set spear fells the charging Gash at once, and Gash's charge is still
    // dealt, from where he fell.
    let c = r#"
        (name: "Pell", side: "A", template: "spearman", at: (1, 3)),
        (name: "Gash", side: "B", template: "orc", at: (6, 3)),"#;
    let orders = [
        (1, Order::new("Pell", "set_spear")),
        (1, Order::new("Gash", "charge").target("Pell")),
    ];
    let mut b = battle(ALERTED, c, &[3, 3, 15, 3, 16, 4], &orders);
    run(&mut b);
    let falls = line(&b, "Gash falls dead.");
    let still = line(
        &b,
        "Gash, felled earlier in this tied round, still deals its blow.",
    );
    let strikes = line(&b, "Gash attacks Pell");
    assert!(falls < still && still < strikes, "{}", texts(&b).join("\n"));
}

#[test]
fn in_a_tied_round_one_felled_deals_no_attack_held_past_the_tie() {
    // 001 §3 Ties, ruling tied_round: both sides roll 3. Bors holds his
    // attack to segment 10, after the tie; Anna fells him in segment 3. His
    // death takes effect at once: no blow comes in segment 10, and the
    // battle is over.
    let c = r#"
        (name: "Anna", side: "A", template: "fighter", at: (3, 3)),
        (name: "Bors", side: "B", template: "orc", at: (4, 3), set: {"hp": 5}),"#;
    let orders = [
        (1, attack("Anna", "Bors").with("longsword")),
        (1, Order::new("Bors", "hold").target("Anna").with("10")),
    ];
    let mut b = battle(ALERTED, c, &[3, 3, 20, 8, 20, 5], &orders);
    run(&mut b);
    assert_has(&b, "Bors falls dead.");
    assert_lacks(&b, "Bors, felled earlier in this tied round");
    assert_lacks(&b, "Bors attacks");
    assert_has(
        &b,
        "The battle is over after 1 round: the only side left standing is A.",
    );
}

#[test]
fn in_a_tied_round_an_attack_held_to_the_tied_segment_is_still_dealt() {
    // 001 §3 Ties, ruling tied_round: both sides roll 3. Orc 1 holds his
    // attack to segment 3, the tied one; Wren's missile bonus brings her to
    // segment 1, where she fells him. His held blow comes within the tie,
    // and is still dealt.
    let c = r#"
        (name: "Orc 1", side: "B", template: "orc", at: (3, 3), set: {"hp": 1}),
        (name: "Fen", side: "A", template: "fighter", at: (2, 3), set: {"hp": 1}),
        (name: "Wren", side: "A", template: "archer", at: (1, 1)),
        (name: "Orc 3", side: "B", template: "orc", at: (6, 3)),"#;
    let orders = [
        (1, Order::new("Orc 1", "hold").target("Fen").with("3")),
        (1, attack("Fen", "Orc 3").with("longsword")),
        (1, attack("Wren", "Orc 1").with("shortbow")),
        (1, Order::new("Orc 3", "wait")),
    ];
    let mut b = battle(ALERTED, c, &[3, 3, 15, 3, 15, 3], &orders);
    run(&mut b);
    let falls = line(&b, "Orc 1 falls dead.");
    let still = line(
        &b,
        "Orc 1, felled earlier in this tied round, still deals its blow.",
    );
    assert!(falls < still, "{}", texts(&b).join("\n"));
}

#[test]
fn in_a_tied_round_one_felled_has_no_second_routine() {
    // 001 §3: the second routine comes "after the other side's initiative
    // segment has been resolved", no longer within the tie: the veteran,
    // dead in segment 3, has no blow in segment 4 still to come, and the
    // battle is over.
    let c = r#"
        (name: "Vet", side: "A", template: "veteran", at: (2, 2), set: {"hp": 3}),
        (name: "Gash", side: "B", template: "orc", at: (3, 2), set: {"hp": 30}),
        (name: "Murk", side: "B", template: "orc", at: (3, 3), set: {"hp": 30}),"#;
    let orders = [
        (1, attack("Vet", "Gash")),
        (1, attack("Gash", "Vet")),
        (1, attack("Murk", "Vet")),
    ];
    let mut b = battle(ALERTED, c, &[3, 3, 10, 5, 20, 8, 10, 5], &orders);
    run(&mut b);
    assert_has(&b, "Vet falls dead.");
    assert_eq!(common::count(&b, "Vet attacks Gash"), 1);
    assert_lacks(&b, "Vet, felled earlier in this tied round");
    assert_has(
        &b,
        "The battle is over after 1 round: the only side left standing is B.",
    );
}

#[test]
fn a_healing_spell_whose_ally_fell_turns_to_one_who_is_hurt() {
    // Ruling decline_cast: Tessa declared cure_light_wounds on Hal; the
    // orc's arrow kills Hal in segment 1, and in segment 2 her spell turns
    // to Brom, the ally nearest her who is hurt.
    let c = r#"
        (name: "Tessa", side: "A", template: "cleric", at: (1, 3)),
        (name: "Hal", side: "A", template: "magic_user", at: (2, 3), set: {"hp": 1}),
        (name: "Brom", side: "A", template: "fighter", at: (1, 5)),
        (name: "Gash", side: "B", template: "orc_archer", at: (9, 3)),"#;
    let orders = [
        (
            1,
            Order::new("Tessa", "cast")
                .with("cure_light_wounds")
                .target("Hal"),
        ),
        (1, attack("Gash", "Hal").with("shortbow")),
    ];
    let mut b = battle(ALERTED, c, &[1, 2, 20, 6], &orders);
    let brom = entity(&b, "Brom");
    b.world_mut().get_mut::<HitPoints>(brom).unwrap().current = 3;
    run(&mut b);
    assert_has(&b, "Hal falls dead.");
    assert_has(
        &b,
        "Hal is out of the fight: Tessa turns its cure_light_wounds on Brom.",
    );
    assert_has(&b, "Tessa begins casting cure_light_wounds");
}

#[test]
fn a_cure_is_said_to_restore_only_what_the_maximum_allows() {
    // Ruling spell_effects: a cure "restores hit points up to the maximum".
    // Brom is at 18 of 20; the 1d8 rolls 6: it restores 2.
    let c = r#"
        (name: "Tessa", side: "A", template: "cleric", at: (1, 3)),
        (name: "Brom", side: "A", template: "fighter", at: (1, 4)),
        (name: "Gash", side: "B", template: "orc_archer", at: (9, 3)),"#;
    let orders = [
        (
            1,
            Order::new("Tessa", "cast")
                .with("cure_light_wounds")
                .target("Brom"),
        ),
        (1, Order::new("Gash", "wait")),
    ];
    let mut b = battle(ALERTED, c, &[1, 2, 6], &orders);
    let brom = entity(&b, "Brom");
    b.world_mut().get_mut::<HitPoints>(brom).unwrap().current = 18;
    run(&mut b);
    assert_has(
        &b,
        "goes off: it restores 2 hit points to Brom, its maximum (6 rolled).",
    );
    assert_eq!(b.world().get::<HitPoints>(brom).unwrap().current, 20);
}

#[test]
fn the_surprise_bonus_is_not_added_to_initiative_for_melee() {
    let c = r#"
        (name: "Nim", side: "A", template: "thief", at: (1, 1)),
        (name: "Bors", side: "B", template: "orc", at: (8, 6)),"#;
    let mut b = battle(
        ALERTED,
        c,
        &[4, 5, 1],
        &[(1, attack("Nim", "Bors").with("shortsword"))],
    );
    run(&mut b);
    assert_has(&b, "Segment 5: Nim acts (the B rolled 5).");
    assert_lacks(&b, "missile weapon in hand");
}

#[test]
fn a_second_routine_waits_until_the_other_sides_segment_is_resolved() {
    let c = r#"
        (name: "Aran", side: "A", template: "veteran", at: (1, 1)),
        (name: "Bors", side: "B", template: "orc", at: (2, 1), set: {"hp": 30}),"#;
    let orders = [(1, attack("Aran", "Bors")), (1, attack("Bors", "Aran"))];
    let mut b = battle(ALERTED, c, &[5, 2, 1, 1, 1], &orders);
    run(&mut b);
    assert_has(&b, "Segment 2: Aran acts (the B rolled 2).");
    assert_has(&b, "Segment 5: Bors acts (the A rolled 5).");
    assert_has(
        &b,
        "Segment 6: Aran acts (second routine, after the B's segment 5).",
    );
    assert!(line(&b, "Bors attacks Aran") < line(&b, "Segment 6"));
}

#[test]
fn a_second_routine_in_the_segment_of_the_first_comes_straight_after_it() {
    // Ruling second_routine: "or straight after the first routine when the
    // other side's segment is already past". The A act in 5, after the B's
    // 2: Aran's second routine comes before Anna's routine.
    let c = r#"
        (name: "Aran", side: "A", template: "veteran", at: (1, 1)),
        (name: "Anna", side: "A", template: "fighter", at: (1, 3)),
        (name: "Bors", side: "B", template: "orc", at: (2, 1), set: {"hp": 40}),
        (name: "Bart", side: "B", template: "orc", at: (2, 3), set: {"hp": 40}),"#;
    let orders = [(1, attack("Aran", "Bors")), (1, attack("Anna", "Bart"))];
    let mut b = battle(ALERTED, c, &[2, 5], &orders);
    run(&mut b);
    assert_has(&b, "Segment 5: Aran (twice), Anna act");
    let aran: Vec<usize> = texts(&b)
        .iter()
        .enumerate()
        .filter(|(_, t)| t.starts_with("Aran attacks Bors"))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(aran.len(), 2);
    assert!(aran[1] < line(&b, "Anna attacks Bart"));
}

#[test]
fn a_second_routine_of_a_charge_runs_no_further() {
    // Ruling second_routine: Aran charges Bors, 9 cells off, and his run
    // (150% of 5: 7 cells) falls short; his second routine repeats the
    // attack without moving, so it cannot reach either.
    let c = r#"
        (name: "Aran", side: "A", template: "veteran", at: (0, 1)),
        (name: "Bors", side: "B", template: "orc", at: (9, 1), set: {"hp": 30}),"#;
    let orders = [(1, Order::new("Aran", "charge").target("Bors"))];
    let mut b = battle(ALERTED, c, &[5, 2], &orders);
    run(&mut b);
    assert_has(&b, "Aran charges Bors.");
    assert_eq!(common::count(&b, "Aran charges Bors."), 1, "one run");
    assert_has(
        &b,
        "Segment 6: Aran acts (second routine, after the B's segment 5).",
    );
    assert_eq!(
        common::count(
            &b,
            "Aran cannot reach Bors this segment (2 cells away, reach 1)."
        ),
        2
    );
    assert_lacks(&b, "Aran attacks Bors");
}

#[test]
fn a_held_action_waits_for_the_segment_named() {
    let c = r#"
        (name: "Anna", side: "A", template: "fighter", at: (1, 1)),
        (name: "Bors", side: "B", template: "orc", at: (2, 1)),"#;
    let orders = [
        (1, Order::new("Anna", "hold").target("Bors").with("8")),
        (1, attack("Bors", "Anna")),
    ];
    let mut b = battle(ALERTED, c, &[1, 3, 1, 1], &orders);
    run(&mut b);
    assert_has(&b, "Anna holds its action from segment 3 to segment 8.");
    assert_has(&b, "Segment 8: Anna acts (held from segment 3).");
    assert!(line(&b, "Bors attacks Anna") < line(&b, "Anna attacks Bors"));
}

#[test]
fn a_held_attack_keeps_the_second_routine() {
    // 001 §3 Attack routines: Aran, of two routines, holds to segment 8,
    // past the B's segment 1: both his routines strike there.
    let c = r#"
        (name: "Aran", side: "A", template: "veteran", at: (1, 1)),
        (name: "Bors", side: "B", template: "orc", at: (2, 1), set: {"hp": 40}),"#;
    let orders = [
        (1, Order::new("Aran", "hold").target("Bors").with("8")),
        (1, attack("Bors", "Aran")),
    ];
    let mut b = battle(ALERTED, c, &[1, 3], &orders);
    run(&mut b);
    assert_has(&b, "Aran holds its action from segment 3 to segment 8.");
    assert_has(&b, "Segment 8: Aran acts twice (held from segment 3).");
    assert_eq!(common::count(&b, "Aran attacks Bors"), 2);
}

#[test]
fn an_action_cannot_be_held_past_segment_10() {
    let orders = [(1, Order::new("Anna", "hold").with("11"))];
    let mut b = battle(ALERTED, PARTY_AND_ORC, &[1, 3], &orders);
    run(&mut b);
    common::assert_refused(&b, "an action can be held up to segment 10 (001 §3)");
}

// --- 001 §Combat: interrupts ---

#[test]
fn fleeing_from_an_enemy_gives_it_an_attack_at_the_back() {
    let c = r#"
        (name: "Anna", side: "A", template: "fighter", at: (1, 1)),
        (name: "Bors", side: "B", template: "orc", at: (2, 1)),"#;
    let orders = [(1, Order::new("Anna", "flee")), (1, attack("Bors", "Anna"))];
    let mut b = battle(ALERTED, c, &[6, 1, 14, 3], &orders);
    let result = run(&mut b);
    assert_has(&b, "Bors strikes at the back of the fleeing Anna.");
    assert_has(
        &b,
        "Bors attacks Anna with the scimitar: 14 +2 at its back = 16 against 15",
    );
    assert_has(&b, "Anna flees the battlefield.");
    assert_eq!(hp(&b, "Anna"), 17);
    assert_eq!(result, BattleResult::Victory { side: 1, rounds: 1 });
}

#[test]
fn a_flight_runs_from_the_enemy_not_past_it_to_the_nearest_edge() {
    // Ruling fleeing_attack: the edge behind Bors is within Anna's 5 cells,
    // but the flight runs to the cell farthest from him, in the open.
    let c = r#"
        (name: "Anna", side: "A", template: "fighter", at: (15, 10)),
        (name: "Bors", side: "B", template: "orc", at: (18, 10)),"#;
    let text = field("segments", (20, 20), 1, ALERTED, c);
    let orders = vec![ScriptedOrder {
        round: 1,
        asked: None,
        order: Order::new("Anna", "flee"),
    }];
    let mut b = common::battle(&text, &[6, 1], |_| {
        Box::new(Scripted::new(orders.clone(), Box::new(Defaults)))
    });
    let _ = b.run();
    assert_has(&b, "Anna moves from (15, 10) to (10, 5)");
    assert_lacks(&b, "Anna flees the battlefield.");
}

#[test]
fn moving_out_of_an_enemys_reach_turns_ones_back_to_it_and_a_fighter_fights_it_instead() {
    // Ruling fleeing_attack: Anna walks away from Bors, next to her: he
    // strikes at her back before she goes, then she goes on.
    let c = r#"
        (name: "Anna", side: "A", template: "fighter", at: (2, 1)),
        (name: "Bors", side: "B", template: "orc", at: (3, 1)),"#;
    let away = Order::new("Anna", "move").cell(fray_core::grid::Cell::new(0, 1));
    let orders = [(1, away), (1, attack("Bors", "Anna"))];
    let mut b = battle(ALERTED, c, &[6, 1, 14, 3], &orders);
    run(&mut b);
    let back = common::line(&b, "Bors strikes at Anna's back as it turns away.");
    assert!(back < common::line(&b, "Anna moves"));
    // Ruling general_actions: her charge at Gash, four cells off, would
    // turn her back on Bors: she fights him instead. A step that keeps her
    // beside him turns her back on nobody.
    let c = r#"
        (name: "Anna", side: "A", template: "fighter", at: (2, 1)),
        (name: "Bors", side: "B", template: "orc", at: (3, 1)),
        (name: "Gash", side: "B", template: "orc", at: (2, 5)),"#;
    let charge = Order::new("Anna", "charge").target("Gash");
    let mut b = battle(ALERTED, c, &[6, 1, 14, 3], &[(1, charge)]);
    run(&mut b);
    assert_has(
        &b,
        "Going for Gash, Anna would turn its back on Bors: it fights Bors instead.",
    );
    common::assert_lacks(&b, "strikes at the back");
    assert_has(&b, "Anna attacks Bors");
    let step = Order::new("Anna", "move").cell(fray_core::grid::Cell::new(2, 2));
    let mut b = battle(ALERTED, c, &[6, 1, 14, 3], &[(1, step)]);
    run(&mut b);
    common::assert_lacks(&b, "strikes at the back");
    // A person declaring is told so before.
    let text = field("segments", (10, 8), 1, ALERTED, c);
    let mut b = common::battle(&text, &[], |_| Box::new(fray_core::decision::HumanSeat));
    let _ = b.run();
    let anna = entity(&b, "Anna");
    let choices = segments::choices(b.world(), anna);
    let label = |action: &str, target: &str| {
        choices
            .iter()
            .find(|c| c.order.action == action && c.order.target.as_deref() == Some(target))
            .map(|c| c.label.clone())
            .unwrap()
    };
    let mv = choices
        .iter()
        .find(|c| {
            c.order.action == "move" && c.order.cell == Some(fray_core::grid::Cell::new(2, 5))
        })
        .map(|c| c.label.clone())
        .unwrap();
    assert!(mv.contains("WARNING: turns its back on Bors"), "{mv}");
    assert!(
        label("charge", "Gash").contains("it would fight Bors instead"),
        "{}",
        label("charge", "Gash")
    );
    assert!(!label("attack", "Bors").contains("WARNING"));
}

#[test]
fn a_fighter_turned_on_the_foe_beside_it_keeps_at_it_with_its_second_routine() {
    // Ruling general_actions and second_routine: the veteran declared an
    // attack on Gash, four cells off, with Bors beside it: both routines go
    // at Bors.
    let c = r#"
        (name: "Vet", side: "A", template: "veteran", at: (2, 1), set: {"hp": 200}),
        (name: "Bors", side: "B", template: "orc", at: (3, 1), set: {"hp": 200}),
        (name: "Gash", side: "B", template: "orc", at: (2, 5), set: {"hp": 200}),"#;
    let orders = [(
        1,
        Order::new("Vet", "attack").target("Gash").with("longsword"),
    )];
    let mut b = battle(ALERTED, c, &[6, 1], &orders);
    run(&mut b);
    assert_has(&b, "it fights Bors instead");
    assert_eq!(
        common::count(&b, "Vet attacks Bors"),
        2,
        "{}",
        texts(&b).join("\n")
    );
    common::assert_lacks(&b, "cannot reach Gash");
}

#[test]
fn a_caster_walking_into_range_turns_its_back_too() {
    // Ruling fleeing_attack: the magic-user beside Bors walks toward Gash
    // to have it in range: Bors strikes at its back.
    let c = r#"
        (name: "Mage", side: "A", template: "magic_user", at: (2, 1), set: {"hp": 200}),
        (name: "Bors", side: "B", template: "orc", at: (1, 1), set: {"hp": 200}),
        (name: "Gash", side: "B", template: "orc", at: (17, 1), set: {"hp": 200}),"#;
    let text = field("segments", (20, 4), 1, ALERTED, c);
    let cast = Order::new("Mage", "cast")
        .target("Gash")
        .with("magic_missile");
    let casting = |answer: &str| {
        let script: Vec<ScriptedOrder> = [cast.clone(), Order::new("Mage", answer)]
            .into_iter()
            .map(|order| ScriptedOrder {
                round: 1,
                asked: None,
                order,
            })
            .collect();
        let mut b = common::battle(&text, &[6, 1], |_| {
            Box::new(Scripted::new(script.clone(), Box::new(Defaults)))
        });
        run(&mut b);
        b
    };
    let b = casting("cast");
    assert_has(&b, "Bors strikes at Mage's back as it turns away.");
    // 001 §2: "the spell caster may elect not to cast the spell": then it
    // walks nowhere and turns its back on nobody.
    let b = casting("decline");
    assert_has(&b, "Mage elects not to cast magic_missile");
    assert_lacks(&b, "strikes at the back");
}

#[test]
fn a_move_toward_a_foes_cell_ends_beside_it() {
    // Ruling movement: the cell is taken, so the move ends next to it.
    let c = r#"
        (name: "Anna", side: "A", template: "fighter", at: (1, 1)),
        (name: "Gash", side: "B", template: "orc", at: (4, 1)),"#;
    let to = Order::new("Anna", "move").cell(fray_core::grid::Cell::new(4, 1));
    let mut b = battle(ALERTED, c, &[6, 1], &[(1, to)]);
    run(&mut b);
    common::assert_lacks(&b, "finds no way through");
    let anna = entity(&b, "Anna");
    assert_eq!(
        b.world().get::<fray_core::grid::Cell>(anna),
        Some(&fray_core::grid::Cell::new(3, 1))
    );
}

#[test]
fn a_spear_set_against_a_charge_strikes_first_for_double_damage() {
    let c = r#"
        (name: "Pell", side: "A", template: "spearman", at: (1, 3)),
        (name: "Gash", side: "B", template: "orc", at: (6, 3)),"#;
    let orders = [
        (1, Order::new("Pell", "set_spear")),
        (1, Order::new("Gash", "charge").target("Pell")),
    ];
    let mut b = battle(ALERTED, c, &[3, 5, 15, 3], &orders);
    let result = run(&mut b);
    assert_has(&b, "Gash charges Pell.");
    assert_has(
        &b,
        "Pell strikes first at the charging Gash with its set spear.",
    );
    assert_has(&b, "hits for 6 (×2).");
    assert_lacks(&b, "Gash attacks");
    assert_eq!(result, BattleResult::Victory { side: 0, rounds: 1 });
}

/// Anna charges Yan past Xor, or Bors's set spear; Xor and Yan are orcs.
fn charge_past(xor_or_bors: &str, yan: (i32, i32), anna: (i32, i32)) -> Battle {
    let bors = xor_or_bors == "Bors";
    let (name, template) = if bors {
        ("Bors", "spearman")
    } else {
        ("Xor", "orc")
    };
    let stand = if bors { "set_spear" } else { "wait" };
    let combatants = format!(
        r#"(name: "Anna", side: "A", template: "fighter", at: {anna:?}),
           (name: "{name}", side: "B", template: "{template}", at: (3, 2), set: {{"hp": 30}}),
           (name: "Yan", side: "B", template: "orc", at: {yan:?}, set: {{"hp": 30}}),"#
    );
    battle(
        ALERTED,
        &combatants,
        &[6, 1, 15, 5, 15, 5, 15, 5],
        &[
            (1, Order::new("Anna", "charge").target("Yan")),
            (1, Order::new(name, stand)),
            (1, Order::new("Yan", "wait")),
        ],
    )
}

#[test]
fn a_charge_whose_straight_run_leaves_a_foes_reach_fights_that_foe() {
    // Rulings charge, fleeing_attack and general_actions: Anna at (3, 3),
    // beside Xor at (3, 2), charges Yan at (5, 4). Her run goes straight
    // at him, to (4, 4), out of Xor's reach (a way round would not): she
    // would turn her back on Xor, and fights him instead.
    let mut b = charge_past("Xor", (5, 4), (3, 3));
    run(&mut b);
    line(
        &b,
        "Going for Yan, Anna would turn its back on Xor: it fights Xor instead.",
    );
    assert_lacks(&b, "Anna charges Yan");
}

#[test]
fn a_set_spear_meets_a_charge_that_runs_through_its_reach() {
    // Ruling set_spear: Anna charges from (1, 3) at Yan (7, 3) and runs
    // through (2, 3) to (4, 3), within Bors's spear at (3, 2), on to
    // (6, 3): she charged into its reach, and Bors strikes first.
    let mut b = charge_past("Bors", (7, 3), (1, 3));
    run(&mut b);
    let moves = line(&b, "Anna moves from (1, 3) to (6, 3)");
    let spear = line(
        &b,
        "Bors strikes first at the charging Anna with its set spear.",
    );
    assert!(moves < spear);
}

#[test]
fn a_set_spear_does_not_meet_a_charger_already_in_its_reach() {
    // Ruling set_spear: Anna starts beside Bors and charges Yan, one cell
    // on; she does not charge into the spear's reach, so it does not strike
    // first, and Bors keeps his routine for his own segment.
    let mut b = charge_past("Bors", (5, 3), (3, 3));
    run(&mut b);
    line(&b, "Anna charges Yan.");
    assert_lacks(&b, "strikes first at the charging Anna");
    line(&b, "Bors attacks Anna with the spear");
}

#[test]
fn a_charge_at_a_target_within_reach_turns_no_back() {
    // Ruling charge: a target come within reach by the charger's segment is
    // attacked without a run, so the charger turns its back on no one
    // (ruling fleeing_attack). With spears reaching 2, Cal at (4, 3), Eck
    // beside him, charges Tor at (8, 3); Tor, acting in segment 1, walks up
    // to (6, 3), within reach: in segment 6 Cal strikes him where he stands.
    let text = field(
        "segments",
        (10, 8),
        1,
        ALERTED,
        r#"
        (name: "Cal", side: "A", template: "spearman", at: (4, 3), set: {"hp": 40}),
        (name: "Eck", side: "B", template: "orc", at: (3, 3), set: {"hp": 40}),
        (name: "Tor", side: "B", template: "orc", at: (8, 3), set: {"hp": 40}),"#,
    );
    let scenario = LoadedScenario::from_source(Source::inline("test.ron", &text)).unwrap();
    let data = segments::RULESET.data.replace(
        r#""spear": (damage: "1d6", reach: 1,"#,
        r#""spear": (damage: "1d6", reach: 2,"#,
    );
    let rules = fray_rules::load("segments", Some(Source::inline("segments.ron", &data))).unwrap();
    let mut app = fray_core::battle::rules_app(
        fray_core::dice::Dice::seeded(0).with_forced([1, 6, 10, 3, 10, 3]),
    );
    fray_rules::setup(&mut app, rules, &scenario).unwrap();
    let script = vec![
        ScriptedOrder {
            round: 1,
            asked: None,
            order: Order::new("Cal", "charge").target("Tor"),
        },
        ScriptedOrder {
            round: 1,
            asked: None,
            order: Order::new("Eck", "wait"),
        },
        ScriptedOrder {
            round: 1,
            asked: None,
            order: Order::new("Tor", "move").cell(Cell::new(6, 3)),
        },
    ];
    let controllers: Vec<Box<dyn Controller>> = (0..2)
        .map(|_| Box::new(Scripted::new(script.clone(), Box::new(Defaults))) as Box<dyn Controller>)
        .collect();
    let mut b = Battle::new(app, controllers);
    run(&mut b);
    line(
        &b,
        "Tor is already within reach: Cal has no run to charge and attacks instead.",
    );
    assert_lacks(&b, "would turn its back on Eck");
}

#[test]
fn a_set_spear_that_struck_a_charger_has_spent_its_routine() {
    // Ruling set_spear, 001 §3: Pell's one routine goes into the charging
    // Gash in segment 3; in Pell's own segment 5 the spear does not strike
    // again.
    let c = r#"
        (name: "Pell", side: "A", template: "spearman", at: (1, 3), set: {"hp": 40}),
        (name: "Gash", side: "B", template: "orc", at: (6, 3), set: {"hp": 40}),"#;
    let orders = [
        (1, Order::new("Pell", "set_spear")),
        (1, Order::new("Gash", "charge").target("Pell")),
    ];
    let mut b = battle(ALERTED, c, &[3, 5, 15, 3], &orders);
    run(&mut b);
    assert_has(
        &b,
        "Pell strikes first at the charging Gash with its set spear.",
    );
    assert_eq!(common::count(&b, "Pell attacks Gash"), 1);
    assert_has(
        &b,
        "Pell's set spear struck at a charger this round: its routine is spent.",
    );
}

#[test]
fn a_veteran_s_set_spear_has_its_second_routine() {
    // 001 §3 Attack routines, ruling set_spear: Vet (two routines) sets a
    // spear; Gash stands in reach. In Vet's segment 4 the spear strikes,
    // and its second routine, after the other side's segment 5, strikes
    // again.
    let c = r#"
        (name: "Vet", side: "A", template: "veteran", at: (2, 3), weapons: ["spear"]),
        (name: "Gash", side: "B", template: "orc", at: (3, 3), set: {"hp": 60}),"#;
    let orders = [
        (1, Order::new("Vet", "set_spear")),
        (1, Order::new("Gash", "wait")),
    ];
    let mut b = battle(ALERTED, c, &[4, 5], &orders);
    run(&mut b);
    assert_eq!(
        common::count(&b, "Vet attacks Gash with the spear"),
        2,
        "{}",
        texts(&b).join("\n")
    );
}

#[test]
fn a_held_shot_keeps_the_missile_bonus_to_initiative() {
    // 001 §3: "a missile weapon in hand" brings Wren's segment from 5 to 3
    // (+2); held to segment 4, she shoots then, not in the side's 5.
    let c = r#"
        (name: "Wren", side: "A", template: "archer", at: (1, 3)),
        (name: "Gash", side: "B", template: "orc", at: (8, 3), set: {"hp": 40}),"#;
    let orders = [(1, Order::new("Wren", "hold").target("Gash").with("4"))];
    let mut b = battle(ALERTED, c, &[6, 5], &orders);
    run(&mut b);
    assert_has(&b, "Wren holds its action from segment 3 to segment 4.");
    assert_has(&b, "Segment 4: Wren acts");
}

#[test]
fn a_spell_may_be_held_and_begins_casting_in_the_segment_held_to() {
    // 001 §3: "some combatants might 'hold' (choose to delay) their
    // actions"; ruling held_action: Hal holds his fire_bolt from his side's
    // segment 5 to 8, begins casting then, and it goes off in 10.
    let c = r#"
        (name: "Hal", side: "A", template: "magic_user", at: (1, 3)),
        (name: "Gash", side: "B", template: "orc", at: (8, 3), set: {"hp": 40}),"#;
    let hold = Order::new("Hal", "hold").target("Gash").with("8 fire_bolt");
    let mut b = battle(ALERTED, c, &[6, 5, 3, 3], &[(1, hold)]);
    run(&mut b);
    assert_has(
        &b,
        "Hal declares: hold until segment 8, then cast fire_bolt on Gash.",
    );
    assert_has(&b, "Hal holds its action from segment 5 to segment 8.");
    assert_has(
        &b,
        "Hal begins casting fire_bolt at Gash: casting time 2 segments, it goes off in segment 10.",
    );
    // Holding its spell, Hal strikes at no fleeing back (ruling
    // decline_cast: "may not substitute another action").
    let flee = [
        (
            1,
            Order::new("Hal", "hold").target("Gash").with("9 fire_bolt"),
        ),
        (1, Order::new("Gash", "flee")),
    ];
    let close = c.replace("at: (8, 3)", "at: (2, 3)");
    let mut b = battle(ALERTED, &close, &[6, 5, 3, 3], &flee);
    run(&mut b);
    assert_has(&b, "Gash");
    assert_lacks(&b, "Hal strikes at the back");
    // Held past the round's last segment, it is refused.
    let mut b = battle(ALERTED, c, &[], &[]);
    b.world_mut().resource_mut::<segments::Flow>().period = segments::Period::Round;
    let hal = entity(&b, "Hal");
    let late = Order::new("Hal", "hold")
        .target("Gash")
        .with("11 fire_bolt");
    assert!(segments::validate(b.world(), hal, &late).is_err());
}

#[test]
fn a_routines_attacks_left_when_its_target_falls_are_said_to_be_lost() {
    // 001 §3 Attack routines: the bow's two arrows are one routine against
    // one target; the first drops Gash, and the second is lost, said so.
    let c = r#"
        (name: "Wren", side: "A", template: "archer", at: (1, 3)),
        (name: "Gash", side: "B", template: "orc", at: (6, 3), set: {"hp": 1}),"#;
    let orders = [(
        1,
        Order::new("Wren", "attack").target("Gash").with("shortbow"),
    )];
    let mut b = battle(ALERTED, c, &[6, 4, 20, 3], &orders);
    run(&mut b);
    // 001 §3: the bow's bonus brings her segment 4 to 2, and says so.
    assert_has(
        &b,
        "Segment 2: Wren acts (the B rolled 4, less the missile attack bonus).",
    );
    assert_has(&b, "Gash falls dead.");
    assert_has(
        &b,
        "Gash is down: Wren's last attack of the routine is lost.",
    );
}

#[test]
fn spells_completing_in_one_segment_go_off_together() {
    // 001 §Note about spells and §3 Ties: Hal and Mag begin fire_bolts in
    // the same segment; both complete in segment 6, and both go off: the
    // first listed does not spoil the other.
    let c = r#"
        (name: "Hal", side: "A", template: "magic_user", at: (1, 4)),
        (name: "Mag", side: "B", template: "magic_user", at: (8, 4), set: {"hp": 30}),"#;
    let orders = [
        (1, Order::new("Hal", "cast").target("Mag").with("fire_bolt")),
        (1, Order::new("Mag", "cast").target("Hal").with("fire_bolt")),
    ];
    let mut b = battle(ALERTED, c, &[4, 4, 4, 4], &orders);
    run(&mut b);
    assert_has(&b, "Hal's fire_bolt, begun in segment 4, goes off");
    assert_has(&b, "Mag's fire_bolt, begun in segment 4, goes off");
    assert_lacks(&b, "the spell is spoiled");
}

#[test]
fn a_caster_is_offered_its_spell_held_to_each_later_segment() {
    // Ruling held_action: with each spell, a hold to each of the segments
    // beyond the initiative die's six and to the last, at each target.
    let c = r#"
        (name: "Hal", side: "A", template: "magic_user", at: (1, 3)),
        (name: "Gash", side: "B", template: "orc", at: (8, 3)),"#;
    let mut b = battle(ALERTED, c, &[], &[]);
    b.world_mut().resource_mut::<segments::Flow>().period = segments::Period::Round;
    let hal = entity(&b, "Hal");
    let held: Vec<String> = segments::choices(b.world(), hal)
        .into_iter()
        .filter(|c| c.refused.is_none() && c.order.action == "hold" && c.order.target.is_some())
        .filter(|c| {
            c.order
                .with
                .as_deref()
                .is_some_and(|w| w.ends_with("fire_bolt"))
        })
        .map(|c| c.label)
        .collect();
    assert_eq!(
        held,
        (7..=10)
            .map(|n| format!("Hold until segment {n}, then cast fire_bolt on Gash"))
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_charge_needs_a_run() {
    let c = r#"
        (name: "Anna", side: "A", template: "fighter", at: (1, 1)),
        (name: "Bors", side: "B", template: "orc", at: (2, 1)),"#;
    let orders = [(1, Order::new("Anna", "charge").target("Bors"))];
    let mut b = battle(ALERTED, c, &[3, 3], &orders);
    run(&mut b);
    common::assert_refused(
        &b,
        "Anna's order \"charge\" is refused: Bors is already within reach of the longsword: a charge needs a run; attack instead (ruling charge)",
    );
    assert_lacks(&b, "Anna charges Bors.");
}

#[test]
fn a_target_come_within_reach_is_attacked_without_the_charge_bonus() {
    let c = r#"
        (name: "Anna", side: "A", template: "fighter", at: (1, 3)),
        (name: "Bors", side: "B", template: "orc", at: (4, 3)),"#;
    let orders = [
        (1, Order::new("Anna", "charge").target("Bors")),
        (
            1,
            Order::new("Bors", "move").cell(fray_core::grid::Cell::new(2, 3)),
        ),
    ];
    // The A roll 1: the B act in segment 1; the B roll 6: the A in 6.
    let mut b = battle(ALERTED, c, &[1, 6, 12, 4], &orders);
    run(&mut b);
    assert_has(
        &b,
        "Bors is already within reach: Anna has no run to charge and attacks instead.",
    );
    assert_lacks(&b, "Anna charges Bors.");
    // No +2: 12 against 12, where the charge would have made it 14.
    assert_has(
        &b,
        "Anna attacks Bors with the longsword: 12 = 12 against 12 (THAC0 18 − AC 6): hits for 5.",
    );
    assert_eq!(hp(&b, "Bors"), 1);
}

#[test]
fn the_ai_charges_a_foe_out_of_reach_rather_than_walk_up_to_it() {
    let c = r#"
        (name: "Anna", side: "A", template: "fighter", at: (1, 3)),
        (name: "Bors", side: "B", template: "orc", at: (4, 3)),"#;
    let text = field("segments", (10, 8), 1, ALERTED, c);
    // The A roll 6: the B act in segment 6; the B roll 1: the A in 1.
    let mut b = common::battle(&text, &[6, 1, 12, 4], |_| Box::new(Hooks));
    run(&mut b);
    assert_has(&b, "Anna charges Bors.");
    assert_has(
        &b,
        "Anna attacks Bors with the longsword: 12 +2 charge = 14 against 12 (THAC0 18 − AC 6): hits for 5.",
    );
}

// --- determinism, citations, bad input ---

#[test]
fn the_same_seed_gives_the_same_log() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/scenarios/segments_melee.ron"
    ))
    .unwrap();
    let once = || {
        let mut b = common::battle(&text, &[], |_| Box::new(Hooks));
        run(&mut b);
        texts(&b)
    };
    assert_eq!(once(), once());
}

#[test]
fn every_citation_is_a_ruling_or_a_mapped_paragraph() {
    let d = SegmentsData::load(&Source::inline("segments.ron", segments::RULESET.data)).unwrap();
    let sources = [
        include_str!("../src/segments/mod.rs"),
        include_str!("../src/segments/surprise.rs"),
        include_str!("../src/segments/declare.rs"),
        include_str!("../src/segments/initiative.rs"),
        include_str!("../src/segments/resolve.rs"),
        include_str!("../src/segments/combat.rs"),
        include_str!("../src/segments/end_round.rs"),
    ];
    common::assert_citations(&sources, "001", &d.rulings, &d.paragraphs, "segments.ron");
}

#[test]
fn a_third_side_is_refused_where_it_is_written() {
    let text = r#"(name: "t", ruleset: "segments",
        grid: (kind: Square, width: 5, height: 5),
        sides: [(name: "A"), (name: "B"), (name: "C")],
        combatants: [(name: "Anna", side: "A", template: "fighter", at: (1, 1)),
            (name: "Bors", side: "B", template: "orc", at: (2, 1)),
            (name: "Cole", side: "C", template: "orc", at: (3, 1))])"#;
    let scenario = LoadedScenario::from_source(Source::inline("t.ron", text)).unwrap();
    let rules = fray_rules::load("segments", None).unwrap();
    let err = rules.check_scenario(&scenario).unwrap_err().to_string();
    assert!(
        err.contains("t.ron:3:") && err.contains("two sides"),
        "{err}"
    );
}

#[test]
fn a_combatant_marked_surprised_is_refused_where_it_is_written() {
    // 001 §1: surprise is rolled for each side; a combatant's own mark
    // would be silently ignored.
    let text = r#"(name: "t", ruleset: "segments",
        grid: (kind: Square, width: 5, height: 5),
        sides: [(name: "A"), (name: "B")],
        combatants: [(name: "Anna", side: "A", template: "fighter", at: (1, 1)),
            (name: "Bors", side: "B", template: "orc", at: (2, 1), surprised: true)])"#;
    let scenario = LoadedScenario::from_source(Source::inline("t.ron", text)).unwrap();
    let rules = fray_rules::load("segments", None).unwrap();
    let err = rules.check_scenario(&scenario).unwrap_err().to_string();
    assert!(
        err.contains("t.ron:5:68") && err.contains("surprise is rolled for each side"),
        "{err}"
    );
}

#[test]
fn an_unknown_alerted_side_is_refused() {
    let text = field(
        "segments",
        (10, 8),
        1,
        r#"options: {"alerted": "Q"},"#,
        PARTY_AND_ORC,
    );
    let scenario = LoadedScenario::from_source(Source::inline("t.ron", &text)).unwrap();
    let rules = fray_rules::load("segments", None).unwrap();
    let err = rules.check_scenario(&scenario).unwrap_err().to_string();
    assert!(err.contains("alerted names \"Q\""), "{err}");
}

/// A scenario's `set` on a segments stat block: a number of the block is
/// set as written; a number it cannot hold is refused where it is written.
fn set_on_the_fighter(set: &str) -> Result<(), String> {
    let text = format!(
        r#"(name: "t", ruleset: "segments",
        grid: (kind: Square, width: 5, height: 5),
        sides: [(name: "A"), (name: "B")],
        combatants: [(name: "Anna", side: "A", template: "fighter", at: (1, 1),
                set: {{{set}}}),
            (name: "Bors", side: "B", template: "orc", at: (2, 1))])"#
    );
    let scenario = LoadedScenario::from_source(Source::inline("t.ron", &text)).unwrap();
    let rules = fray_rules::load("segments", None).unwrap();
    rules.check_scenario(&scenario).map_err(|e| e.to_string())
}

#[test]
fn set_takes_any_number_of_the_stat_block_and_refuses_what_it_cannot_hold() {
    assert_eq!(
        set_on_the_fighter(r#""thac0": 15, "never_surprised": 1"#),
        Ok(())
    );
    let err = set_on_the_fighter(r#""level": -1"#).unwrap_err();
    assert!(
        err.contains("t.ron:5:") && err.contains("\"level\" cannot be -1"),
        "{err}"
    );
    let err = set_on_the_fighter(r#""routines": 3"#).unwrap_err();
    assert!(err.contains("one or two attack routines"), "{err}");
    let err = set_on_the_fighter(r#""thaco": 15"#).unwrap_err();
    assert!(
        err.contains("\"thaco\" is not a stat") && err.contains("thac0"),
        "{err}"
    );
}

#[test]
fn a_spear_that_let_a_charger_pass_keeps_its_routine() {
    // Ruling set_spear: Pell lets the charging Gash pass in segment 3 and
    // still attacks him in his own segment 5.
    let c = r#"
        (name: "Pell", side: "A", template: "spearman", at: (1, 3), set: {"hp": 40}),
        (name: "Gash", side: "B", template: "orc", at: (6, 3), set: {"hp": 40}),"#;
    let orders = [
        (1, Order::new("Pell", "set_spear")),
        (1, Order::new("Gash", "charge").target("Pell")),
        (1, Order::new("Pell", "let_pass")),
    ];
    let mut b = battle(ALERTED, c, &[3, 5, 15, 3, 15, 3], &orders);
    run(&mut b);
    assert_has(&b, "Pell lets Gash pass.");
    assert_lacks(&b, "its routine is spent");
    assert_eq!(common::count(&b, "Pell attacks Gash"), 1);
}

#[test]
fn a_spear_that_struck_in_its_own_segment_strikes_no_later_charger() {
    // Ruling set_spear: Pell's routine goes into Gash, beside him, in
    // segment 1; Murk charges in segment 5 and meets no spear.
    let c = r#"
        (name: "Pell", side: "A", template: "spearman", at: (2, 4), set: {"hp": 40}),
        (name: "Gash", side: "B", template: "orc", at: (3, 4), set: {"hp": 40}),
        (name: "Murk", side: "B", template: "orc", at: (7, 4), set: {"hp": 40}),"#;
    let orders = [
        (1, Order::new("Pell", "set_spear")),
        (1, Order::new("Gash", "wait")),
        (1, Order::new("Murk", "charge").target("Pell")),
    ];
    let mut b = battle(ALERTED, c, &[5, 1, 2, 2, 2, 2], &orders);
    run(&mut b);
    assert_eq!(common::count(&b, "Pell attacks Gash"), 1);
    assert_has(&b, "Murk charges Pell.");
    assert_lacks(&b, "charging Murk");
}

#[test]
fn a_hold_names_the_weapon_it_attacks_with() {
    // 001 §3: the thief's crossbow, his second weapon, held: "a missile
    // weapon in hand" brings his segment from 5 to 3, and he shoots in 4.
    let c = r#"
        (name: "Nim", side: "A", template: "thief", at: (1, 3)),
        (name: "Gash", side: "B", template: "orc", at: (8, 3), set: {"hp": 40}),"#;
    let orders = [(
        1,
        Order::new("Nim", "hold")
            .target("Gash")
            .with("4 light_crossbow"),
    )];
    let mut b = battle(ALERTED, c, &[6, 5], &orders);
    run(&mut b);
    assert_has(&b, "Nim holds its action from segment 3 to segment 4.");
    assert_has(&b, "Nim attacks Gash with the light_crossbow");
    // A person is offered the hold with each weapon; one not carried is
    // refused.
    let mut b = battle(ALERTED, c, &[], &[]);
    b.world_mut().resource_mut::<segments::Flow>().period = segments::Period::Round;
    let nim = entity(&b, "Nim");
    let labels: Vec<String> = segments::choices(b.world(), nim)
        .into_iter()
        .filter(|c| c.refused.is_none())
        .map(|c| c.label)
        .collect();
    assert!(
        labels
            .iter()
            .any(|l| l == "Hold until segment 10, then attack Gash with the light_crossbow"),
        "{labels:#?}"
    );
    let axe = Order::new("Nim", "hold").with("4 battle_axe");
    let why = segments::validate(b.world(), nim, &axe).unwrap_err();
    assert_eq!(why, "Nim carries no battle_axe");
}

/// Vet (two routines) beside Gash, with `vet` declared at the far Far and
/// Gash's declaration `gash`, under the forced initiative `dice`.
fn second_routine(vet: Order, gash: Order, dice: &[u32]) -> Battle {
    let c = r#"
        (name: "Vet", side: "A", template: "veteran", at: (2, 4), set: {"hp": 80}),
        (name: "Gash", side: "B", template: "orc", at: (3, 4), set: {"hp": 80}),
        (name: "Far", side: "B", template: "orc", at: (9, 4), set: {"hp": 80}),"#;
    let mut b = battle(ALERTED, c, dice, &[(1, vet), (1, gash)]);
    run(&mut b);
    b
}

#[test]
fn a_fighter_turned_onto_a_foe_beside_it_fights_it_with_its_second_routine_too() {
    // Ruling general_actions: Vet would turn his back on Gash going for
    // Far; he fights Gash instead, with both routines: a held action's,
    // and a second routine acting together with Gash in segment 5.
    let hold = Order::new("Vet", "hold").target("Far");
    let b = second_routine(hold, Order::new("Gash", "wait"), &[]);
    assert_eq!(
        common::count(&b, "Vet attacks Gash"),
        2,
        "{}",
        texts(&b).join("\n")
    );
    assert_lacks(&b, "cannot reach Far");
    let attack = Order::new("Vet", "attack").target("Far");
    let gash = Order::new("Gash", "hold").target("Vet").with("5");
    let b = second_routine(attack, gash, &[2, 5]);
    assert_eq!(
        common::count(&b, "Vet attacks Gash"),
        2,
        "{}",
        texts(&b).join("\n")
    );
    assert_lacks(&b, "cannot reach Far");
}

#[test]
fn a_set_spear_meets_a_charge_that_falls_short_of_its_target() {
    // 001 §Combat, ruling set_spear: Gash charges Tom and ends in Pell's
    // reach, short of Tom; Pell's set spear still strikes first.
    let c = r#"
        (name: "Tom", side: "A", template: "fighter", at: (9, 4)),
        (name: "Pell", side: "A", template: "spearman", at: (6, 3)),
        (name: "Gash", side: "B", template: "orc", at: (0, 4)),"#;
    let orders = [
        (1, Order::new("Tom", "wait")),
        (1, Order::new("Pell", "set_spear")),
        (1, Order::new("Gash", "charge").target("Tom")),
    ];
    let mut b = battle(ALERTED, c, &[1, 6, 10, 3], &orders);
    run(&mut b);
    assert_has(&b, "Gash moves from (0, 4) to (6, 4)");
    assert_has(
        &b,
        "Pell strikes first at the charging Gash with its set spear.",
    );
    assert_lacks(&b, "Gash attacks Tom");
}

#[test]
fn a_caster_who_declared_a_spell_strikes_at_no_fleeing_back() {
    // 001 §2: a caster "may not substitute another action" (ruling
    // decline_cast): Gash walks away from Halvaine, who has declared a
    // fire bolt, and is not struck at its back.
    let c = r#"
        (name: "Halvaine", side: "A", template: "magic_user", at: (2, 4)),
        (name: "Gash", side: "B", template: "orc", at: (3, 4)),
        (name: "Murk", side: "B", template: "orc", at: (8, 4)),"#;
    let orders = [
        (
            1,
            Order::new("Halvaine", "cast")
                .target("Murk")
                .with("fire_bolt"),
        ),
        (
            1,
            Order::new("Gash", "move").cell(fray_core::grid::Cell::new(7, 1)),
        ),
        (1, Order::new("Murk", "wait")),
    ];
    let mut b = battle(ALERTED, c, &[1, 6, 3, 3, 3, 3], &orders);
    run(&mut b);
    assert_has(&b, "Gash moves from (3, 4)");
    assert_lacks(&b, "Halvaine attacks Gash");
}

#[test]
fn the_data_says_how_many_segments_a_round_has() {
    // 001 §3: "a combat round is 10 segments long"; a house rule of 12 in
    // the data's `segments_per_round` lets an action be held to segment 12,
    // and the choices offered hold to it.
    let data = segments::RULESET
        .data
        .replace("segments_per_round: 10", "segments_per_round: 12");
    let text = field("segments", (10, 8), 1, ALERTED, PARTY_AND_ORC);
    let scenario = LoadedScenario::from_source(Source::inline("test.ron", &text)).unwrap();
    let rules = fray_rules::load("segments", Some(Source::inline("segments.ron", &data))).unwrap();
    let mut app = fray_core::battle::rules_app(fray_core::dice::Dice::seeded(0));
    fray_rules::setup(&mut app, rules, &scenario).unwrap();
    let seat = || -> Box<dyn Controller> { Box::new(fray_core::decision::HumanSeat) };
    let mut b = Battle::new(app, vec![seat(), seat()]);
    // To the first declarations, of round 1.
    let _ = b.run();
    let anna = entity(&b, "Anna");
    let hold = |n: &str| Order::new("Anna", "hold").target("Bors").with(n);
    let held = segments::validate(b.world(), anna, &hold("12"));
    assert!(held.is_ok(), "{held:?}");
    assert_eq!(
        segments::validate(b.world(), anna, &hold("13")).unwrap_err(),
        "an action can be held up to segment 12 (001 §3)"
    );
    let offered = segments::choices(b.world(), anna);
    let holds: Vec<&str> = offered
        .iter()
        .filter(|c| c.order.action == "hold" && c.order.target.is_none())
        .map(|c| c.label.as_str())
        .collect();
    assert!(offered.iter().any(|c| {
        c.label
            .starts_with("Hold until segment 12, then attack Bors")
    }));
    // The later segments beyond the die's six, at whoever is nearest then.
    let later: Vec<String> = (7..12)
        .map(|n| format!("Hold until segment {n}, then attack the nearest foe with the longsword"))
        .collect();
    assert_eq!(holds, later);
}

#[test]
fn a_caster_hit_at_its_back_walking_into_range_has_its_spell_spoiled() {
    // Ruling fleeing_attack and 001 §Note about spells: the Mage's segment
    // is the first of its casting time, so Bors's blow at its back as it
    // walks toward Gash (a 20) spoils the magic missile before it begins; a
    // blow that misses (a 1) spoils nothing.
    let c = r#"
        (name: "Mage", side: "A", template: "magic_user", at: (2, 1), set: {"hp": 200}),
        (name: "Bors", side: "B", template: "orc", at: (1, 1), set: {"hp": 200}),
        (name: "Gash", side: "B", template: "orc", at: (17, 1), set: {"hp": 200}),"#;
    let text = field("segments", (20, 4), 1, ALERTED, c);
    let script: Vec<ScriptedOrder> = [
        Order::new("Mage", "cast")
            .target("Gash")
            .with("magic_missile"),
        Order::new("Mage", "cast"),
    ]
    .into_iter()
    .map(|order| ScriptedOrder {
        round: 1,
        asked: None,
        order,
    })
    .collect();
    let casting = |blow: u32| {
        let mut b = common::battle(&text, &[6, 1, blow, 4], |_| {
            Box::new(Scripted::new(script.clone(), Box::new(Defaults)))
        });
        run(&mut b);
        b
    };
    let b = casting(20);
    assert_has(&b, "Bors strikes at Mage's back as it turns away.");
    assert_has(
        &b,
        "Mage is hit in its segment, the first of its casting time: its magic_missile is spoiled before it begins.",
    );
    assert_lacks(&b, "Mage begins casting");
    let b = casting(1);
    assert_has(&b, "Mage begins casting magic_missile at Gash");
    assert_lacks(&b, "spoiled before it begins");
}

#[test]
fn a_side_down_to_half_its_number_checks_morale_as_one() {
    // Ruling morale: Anna fells Cid, one of the two orcs, in round 1; at the
    // round's end the B side, down to half, checks once, as a side.
    let text = r#"(name: "t", ruleset: "segments", round_cap: 1,
        options: {"alerted": "A, B"},
        grid: (kind: Square, width: 10, height: 8),
        sides: [(name: "A"), (name: "B", morale: true)],
        combatants: [
            (name: "Anna", side: "A", template: "fighter", at: (1, 1)),
            (name: "Cid", side: "B", template: "orc", at: (2, 1), set: {"hp": 1}),
            (name: "Dax", side: "B", template: "orc", at: (9, 7)),
        ])"#;
    let script = vec![ScriptedOrder {
        round: 1,
        asked: None,
        order: attack("Anna", "Cid"),
    }];
    let mut b = common::battle(text, &[6, 1, 20, 8], |_| {
        Box::new(Scripted::new(script.clone(), Box::new(Defaults)))
    });
    run(&mut b);
    assert_has(&b, "Cid falls dead.");
    assert_has(&b, "The B side checks morale (1 of 2 is left)");
}

#[test]
fn a_surprise_segment_takes_the_orders_scripted_for_round_zero() {
    // 001 §1: the surprise segments come before the first round; a script
    // reaches them as round 0. A rolls 1 for surprise, B 2: Anna acts in
    // surprise segment 2, and moves as scripted.
    let script = vec![ScriptedOrder {
        round: 0,
        asked: None,
        order: Order::new("Anna", "move").cell(fray_core::grid::Cell::new(3, 1)),
    }];
    let text = field("segments", (10, 8), 1, "", PARTY_AND_ORC);
    let mut b = common::battle(&text, &[1, 2], |_| {
        Box::new(Scripted::new(script.clone(), Box::new(Defaults)))
    });
    run(&mut b);
    assert_has(&b, "Surprise segment 2: Anna may act");
    assert!(line(&b, "Anna moves from (1, 1) to (3, 1)") < line(&b, "Round 1 begins"));
}

#[test]
fn a_cure_going_off_with_damage_on_its_target_is_measured_after_it() {
    // 001 §3 Ties and ruling spell_effects: Cleo's cure (8) and Hex's fire
    // bolt (9) on Bors, unhurt at 20, go off at one instant: the damage
    // lands, then the cure restores 8 of the 9: 19, not 11.
    cure_and_bolt_at_one_instant("Bors");
}

#[test]
fn a_cure_is_measured_after_a_spell_turned_onto_its_target_at_the_same_instant() {
    // Ruling spell_effects: Hex's fire bolt was begun at Dora, out of the
    // fight when it goes off, so it turns on the nearest enemy in range,
    // Bors. Cleo's cure on Bors goes off at that instant: it is measured
    // after the 9 damage, 8 of 9 restored: 19.
    cure_and_bolt_at_one_instant("Dora");
}

/// Cleo's cure on Bors and Hex's fire bolt begun at `bolted` (Bors, or
/// Dora, out of the fight by then) go off together: the cure is measured
/// after the bolt's 9 damage on Bors.
fn cure_and_bolt_at_one_instant(bolted: &str) {
    let c = format!(
        r#"
        (name: "Bors", side: "A", template: "fighter", at: (3, 3), set: {{"hp": 20}}),
        (name: "Dora", side: "A", template: "fighter", at: (9, 7)),
        (name: "Cleo", side: "A", template: "cleric", at: (2, 3), starts: ["casting cure_light_wounds 1 at Bors"]),
        (name: "Hex", side: "B", template: "magic_user", at: (9, 3), starts: ["casting fire_bolt 1 at {bolted}"]),"#
    );
    let mut b = battle(ALERTED, &c, &[6, 1, 8, 4, 5], &[]);
    let dora = entity(&b, "Dora");
    b.world_mut()
        .entity_mut(dora)
        .remove::<fray_core::model::Fighting>();
    run(&mut b);
    assert_has(
        &b,
        "8 hit points for Bors, restored once the damage going off with it has landed",
    );
    let bolt = line(&b, "Bors takes 9 damage from Hex: 11 hit points left.");
    let cure = line(
        &b,
        "Cleo's cure, measured after the damage, restores 8 hit points to Bors: 19 hit points.",
    );
    assert!(bolt < cure);
}

#[test]
fn a_spell_whose_target_has_left_its_range_is_wasted_when_it_goes_off() {
    // Ruling spell_effects: Tessa begins a cure on Brom beside her (range
    // 1); Brom walks off while it is cast. When it goes off he is beyond
    // its range: the cure is wasted, not worked on him from afar.
    let c = r#"
        (name: "Tessa", side: "A", template: "cleric", at: (2, 4)),
        (name: "Brom", side: "A", template: "fighter", at: (3, 4), set: {"hp": 20}),
        (name: "Gash", side: "B", template: "orc_archer", at: (9, 1)),"#;
    let orders = [
        (
            1,
            Order::new("Tessa", "cast")
                .target("Brom")
                .with("cure_light_wounds"),
        ),
        (1, Order::new("Brom", "move").cell(Cell::new(9, 7))),
        (1, attack("Gash", "Brom").with("shortbow")),
    ];
    let mut b = battle(ALERTED, c, &[1, 2, 19, 4, 1, 5], &orders);
    run(&mut b);
    line(
        &b,
        "Tessa's cure_light_wounds goes off, but Brom is 6 cells away, beyond its range of 1: it is wasted.",
    );
    assert_lacks(&b, "restores");
}

#[test]
fn a_charge_runs_straight_at_its_target_and_a_wall_of_others_stops_it() {
    // Ruling charge: Ugluk charges Hal behind a wall of three fighters.
    // The line to Hal runs into Cai: the run stops beside him, short of
    // Hal, with no blow; it does not go round the end of the wall.
    let c = r#"
        (name: "Hal", side: "A", template: "magic_user", at: (2, 4)),
        (name: "Brom", side: "A", template: "fighter", at: (3, 3)),
        (name: "Cai", side: "A", template: "fighter", at: (3, 4)),
        (name: "Dun", side: "A", template: "fighter", at: (3, 5)),
        (name: "Ugluk", side: "B", template: "fighter", at: (7, 4)),"#;
    let orders = [
        (1, Order::new("Hal", "wait")),
        (1, Order::new("Brom", "wait")),
        (1, Order::new("Cai", "wait")),
        (1, Order::new("Dun", "wait")),
        (
            1,
            Order::new("Ugluk", "charge")
                .target("Hal")
                .with("longsword"),
        ),
    ];
    let mut b = battle(ALERTED, c, &[6, 1, 10, 3], &orders);
    run(&mut b);
    line(&b, "Ugluk charges Hal.");
    line(
        &b,
        "Ugluk's charge runs straight at its target and is stopped at (4, 4): (3, 4) is in the way.",
    );
    assert_lacks(&b, "Ugluk attacks Hal");
}

#[test]
fn the_question_to_begin_a_cast_warns_of_a_target_out_of_reach() {
    // Ruling decline_cast: Hal declared a fire bolt (range 10) at Gash, 17
    // cells off; a walk of 6 cannot bring him within range. The question
    // and its choice say so before he answers; begun anyway, the log says
    // the spell is not begun.
    let c = r#"
        (name: "Hal", side: "A", template: "magic_user", at: (2, 4)),
        (name: "Gash", side: "B", template: "orc", at: (19, 7)),"#;
    let text = field("segments", (20, 8), 1, ALERTED, c);
    let script = vec![
        ScriptedOrder {
            round: 1,
            asked: None,
            order: Order::new("Hal", "cast").target("Gash").with("fire_bolt"),
        },
        ScriptedOrder {
            round: 1,
            asked: None,
            order: Order::new("Gash", "wait"),
        },
    ];
    let mut b = common::battle(&text, &[5, 2], |_| {
        Box::new(Scripted::new(
            script.clone(),
            Box::new(fray_core::decision::HumanSeat),
        ))
    });
    let fray_core::battle::Progress::AwaitingHuman(ids) = b.run() else {
        panic!("Hal is not asked");
    };
    let warning = " — WARNING: Gash is 17 cells away, beyond its range of 10 and a walk of 6: the spell would not be begun";
    let decisions = b.world().resource::<fray_core::decision::Decisions>();
    let asked = decisions.get(ids[0]).unwrap();
    assert!(asked.prompt.ends_with(warning), "{}", asked.prompt);
    let offered = asked.offer.unwrap()(b.world(), asked.actor);
    let begin = offered
        .into_iter()
        .find(|c| c.order.action == "cast")
        .unwrap();
    assert_eq!(begin.label, format!("Begin casting fire_bolt{warning}"));
    b.answer(ids[0], begin.order);
    let _ = b.run();
    line(
        &b,
        "Hal does not begin casting fire_bolt: Gash is still beyond its range of 10.",
    );
}

#[test]
fn a_caster_mid_cast_in_a_surprise_segment_goes_on_casting() {
    // 001 §1 Surprise segments, §Note about spells: Hal begins a fire bolt
    // in surprise segment 1; in segment 2 he is casting still, and the log
    // says so rather than that he may act.
    let c = r#"
        (name: "Hal", side: "A", template: "magic_user", at: (2, 4)),
        (name: "Gash", side: "B", template: "gnoll", at: (9, 4)),"#;
    let orders = [
        (
            0,
            Order::new("Hal", "cast").target("Gash").with("fire_bolt"),
        ),
        (1, Order::new("Gash", "wait")),
    ];
    let mut b = battle("", c, &[5, 2, 4, 6, 3, 6, 2], &orders);
    run(&mut b);
    line(&b, "Surprise segment 2: Hal goes on casting.");
}

#[test]
fn the_dead_bar_nobodys_way() {
    // Ruling hit_points: in a corridor one square wide, Brom kills Gash in
    // round 1. In round 2 he walks through where Gash lies to reach Murk,
    // rather than find no way through until the round cap.
    let text = r#"(name: "t", ruleset: "segments", round_cap: 2,
        grid: (kind: Square, width: 8, height: 3, obstacles: [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (6, 0), (7, 0), (0, 2), (1, 2), (2, 2), (3, 2), (4, 2), (5, 2), (6, 2), (7, 2)]),
        sides: [(name: "A"), (name: "B")],
        options: {"alerted": "A, B"},
        combatants: [
            (name: "Brom", side: "A", template: "fighter", at: (1, 1)),
            (name: "Gash", side: "B", template: "orc", at: (2, 1), set: {"hp": 1}),
            (name: "Murk", side: "B", template: "orc", at: (4, 1), set: {"hp": 60}),
        ])"#;
    let script: Vec<ScriptedOrder> = [
        (
            1,
            Order::new("Brom", "attack")
                .target("Gash")
                .with("longsword"),
        ),
        (
            2,
            Order::new("Brom", "attack")
                .target("Murk")
                .with("longsword"),
        ),
    ]
    .into_iter()
    .map(|(round, order)| ScriptedOrder {
        round,
        asked: None,
        order,
    })
    .collect();
    let mut b = common::battle(text, &[6, 1, 20, 8], |_| {
        Box::new(Scripted::new(script.clone(), Box::new(Defaults)))
    });
    run(&mut b);
    line(&b, "Gash falls dead.");
    assert_lacks(&b, "finds no way through");
    line(&b, "Brom moves from (1, 1) to (3, 1)");
    line(&b, "Brom attacks Murk with the longsword");
}

#[test]
fn a_segments_heading_names_only_those_still_able_to_act() {
    // 001 §3: A rolls 6 and B 3, so A acts in segment 3 and B in segment 6.
    // Brom kills Gash in segment 3: nobody is left to act in segment 6
    // (Murk only waits), and its heading does not name Gash.
    let sides = r#"(name: "Brom", side: "A", template: "fighter", at: (3, 3)),
        (name: "Gash", side: "B", template: "orc", at: (4, 3), set: {"hp": 1}),
        (name: "Murk", side: "B", template: "orc", at: (8, 6))"#;
    let orders = [
        (
            1,
            Order::new("Brom", "attack")
                .target("Gash")
                .with("longsword"),
        ),
        (
            1,
            Order::new("Gash", "attack").target("Brom").with("scimitar"),
        ),
    ];
    let mut b = battle(ALERTED, sides, &[6, 3, 20, 8], &orders);
    run(&mut b);
    line(&b, "Gash falls dead.");
    line(&b, "Segment 6: those due to act are out of the fight.");
    assert_lacks(&b, "Segment 6: Gash");
}

#[test]
fn in_a_tied_round_a_felled_veterans_second_routine_is_lost_by_ruling() {
    // Ruling tied_round: both sides roll 3. Gash fells Vet in the tied
    // segment, where Vet's first routine still lands; his second routine
    // comes after the tied segment and is not dealt, as the ruling says,
    // not because damage took effect at once (that is outside a tie).
    let sides = r#"(name: "Vet", side: "A", template: "veteran", at: (2, 4), set: {"hp": 1}),
        (name: "Pip", side: "A", template: "fighter", at: (0, 0)),
        (name: "Gash", side: "B", template: "orc", at: (3, 4), set: {"hp": 40})"#;
    let orders = [
        (
            1,
            Order::new("Vet", "attack").target("Gash").with("longsword"),
        ),
        (
            1,
            Order::new("Gash", "attack").target("Vet").with("scimitar"),
        ),
    ];
    let mut b = battle(ALERTED, sides, &[3, 3, 2, 20, 6], &orders);
    run(&mut b);
    line(&b, "Vet falls dead.");
    line(
        &b,
        "Vet is out of the fight and does not act: a felled combatant deals only the blow of the tied segment.",
    );
    assert_lacks(&b, "damage took effect at once");
}
