//! The `declared` ruleset (rules/004) with forced dice: each test pins the
//! exact outcome the text describes.

mod common;

use bevy_ecs::prelude::*;
use common::{assert_has, assert_lacks, has, run, texts};
use fray_core::battle::Battle;
use fray_core::data::Source;
use fray_core::decision::{Controller, Decision, Decisions, Order, Scripted};
use fray_core::grid::Cell;
use fray_core::log::{BattleLog, EventKind};
use fray_core::model::BattleResult;
use fray_core::model::Rostered;
use fray_core::scenario::LoadedScenario;
use fray_rules::declared::{self, DeclaredData, Health, Stress, WoundPoints};
use fray_rules::ruleset::DataFile;

/// Declares "wait" for everyone the script does not cover.
struct Waits;

impl Controller for Waits {
    fn decide(&mut self, _: &mut World, d: &Decision) -> Option<Order> {
        // Felled since it declared, it carries its action out, as the AI
        // does (ruling felled_action).
        let felled = d.rule == "004 §Wound Points";
        Some(Order::new(
            &d.actor_name,
            if felled { "strain" } else { "wait" },
        ))
    }
}

/// The ruleset's built-in data.
fn data() -> DeclaredData {
    DeclaredData::load(&Source::inline("declared.ron", declared::RULESET.data)).unwrap()
}

/// A battle from scenario text, every side scripted with `Waits` behind it.
fn battle(text: &str) -> Battle {
    scripted(text, || Box::new(Waits))
}

/// A battle from scenario text, every side scripted with what `behind`
/// makes deciding what the script does not cover.
fn scripted(text: &str, behind: impl Fn() -> Box<dyn Controller>) -> Battle {
    let orders = LoadedScenario::from_source(Source::inline("test.ron", text))
        .unwrap()
        .scenario
        .orders;
    common::battle(text, &[], |_| {
        Box::new(Scripted::new(orders.clone(), behind()))
    })
}

fn entity(b: &mut Battle, name: &str) -> Entity {
    let flow = b.world().resource::<declared::Flow>();
    flow.entity(name).unwrap()
}

fn wounds(b: &mut Battle, name: &str) -> (i32, i32, Health) {
    let e = entity(b, name);
    let w = b.world();
    (
        w.get::<Stress>(e).unwrap().current,
        w.get::<WoundPoints>(e).unwrap().current,
        *w.get::<Health>(e).unwrap(),
    )
}

/// A battle on an open 8×8 field: sides A and B, both scripted, declaring in
/// turn; `combatants`, forced `dice` and scripted `orders` as RON lists.
fn field(cap: u32, combatants: &str, dice: &str, orders: &str) -> String {
    format!(
        r#"(
    name: "test", ruleset: "declared", round_cap: {cap},
    grid: (kind: Square, width: 8, height: 8),
    options: {{"declaration": "round_robin"}},
    sides: [(name: "A", seat: Script), (name: "B", seat: Script)],
    combatants: [{combatants}],
    dice: [{dice}],
    orders: [{orders}],
)"#
    )
}

/// Anna (a knight, side A) beside Bors (a hobgoblin warrior, side B); `a` and
/// `b` add fields to each (`set`, `weapons` …).
fn duel(a: &str, b: &str, dice: &str, orders: &str, cap: u32) -> String {
    field(
        cap,
        &format!(
            r#"
        (name: "Anna", side: "A", template: "knight", at: (1, 1){a}),
        (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (2, 1){b}),
    "#
        ),
        dice,
        orders,
    )
}

/// Bors's ally far away, so the fight goes on while Bors is down.
const BYSTANDER: &str = r#"(name: "Cato", side: "B", template: "hobgoblin_warrior", at: (7, 7)),
        (name: "Bors""#;

const ANNA_ATTACKS: &str =
    r#"(round: 1, order: (actor: "Anna", action: "attack", target: "Bors", with: "longsword"))"#;

#[test]
fn a_monster_that_has_broken_is_not_intimidated() {
    // Ruling intimidate_action: an intimidated monster "checks morale at
    // the end of the round"; one that has broken and flees checks no more
    // (ruling morale_failure), so Anna's Intimidation of Bors, routed, is
    // refused, and nothing promises a check.
    let text = duel(
        "",
        "",
        "8, 8",
        r#"(round: 1, order: (actor: "Anna", action: "intimidate", target: "Bors"))"#,
        1,
    )
    .replace(r#"(name: "Bors""#, BYSTANDER);
    let mut b = battle(&text);
    let bors = entity(&mut b, "Bors");
    b.world_mut().entity_mut(bors).insert(declared::Routed);
    let _ = b.run();
    assert_has(
        &b,
        "Anna's order \"intimidate\" is refused: Bors checks morale no more: it has broken, fled or cannot act (ruling intimidate_action)",
    );
    assert_lacks(&b, "must check morale against it");
}

#[test]
fn base_initiative_is_d12_minus_agility() {
    // 004 §Step 2: +2 Agility rolls 1d12-2; -1 Agility rolls 1d12+1.
    let mut b = battle(&duel(
        r#", set: {"agility_mod": 2}"#,
        r#", set: {"agility_mod": -1}"#,
        "8, 8",
        "",
        1,
    ));
    run(&mut b);
    assert_has(&b, "Anna rolls base initiative 8 − 2 (Agility) = 6.");
    assert_has(&b, "Bors rolls base initiative 8 + 1 (Agility) = 9.");
    let (a, bo) = (entity(&mut b, "Anna"), entity(&mut b, "Bors"));
    assert_eq!(
        b.world().get::<declared::BaseInitiative>(a),
        Some(&declared::BaseInitiative(6))
    );
    assert_eq!(
        b.world().get::<declared::BaseInitiative>(bo),
        Some(&declared::BaseInitiative(9))
    );
}

#[test]
fn base_initiative_is_rolled_once_per_combat() {
    let mut b = battle(&duel("", "", "5, 9", "", 3));
    run(&mut b);
    let rolls = texts(&b)
        .iter()
        .filter(|t| t.contains("rolls base initiative"))
        .count();
    assert_eq!(rolls, 2);
    assert_has(&b, "Anna declares: wait. Round initiative 5 + 0 = 5.");
}

#[test]
fn identical_monsters_share_one_initiative_roll() {
    let text = field(
        1,
        r#"(name: "Anna", side: "A", template: "knight", at: (1, 1)),
        (name: "W1", side: "B", template: "wolf", at: (5, 1), initiative_group: "wolves"),
        (name: "W2", side: "B", template: "wolf", at: (5, 3), initiative_group: "wolves"),"#,
        "4, 9, 1",
        "",
    )
    // 004 §Step 2: monsters share a roll; the wolves' side checks morale.
    .replace(
        r#"(name: "B", seat: Script)"#,
        r#"(name: "B", seat: Script, morale: true)"#,
    );
    let mut b = battle(&text);
    run(&mut b);
    assert_has(&b, "W1 rolls base initiative 9 − 2 (Agility) = 7.");
    assert_has(
        &b,
        "W2 shares group \"wolves\"'s initiative roll of 9: base initiative 7.",
    );
}

#[test]
fn round_initiative_adds_the_action_modifier() {
    // 004 §Step 3: attack + weapon speed, consumable +6, throw +2, full defense -1,
    // defensive attack + speed + 1 (+1 without attacking), cast + (TN - 10).
    let d = data();
    let cases = [
        (
            r#"action: "attack", target: "Bors", with: "longsword""#,
            "Round initiative 5 + 2 = 7.",
        ),
        (
            r#"action: "consumable", with: "healing_draught""#,
            "Round initiative 5 + 6 = 11.",
        ),
        (r#"action: "full_defense""#, "Round initiative 5 − 1 = 4."),
        (
            r#"action: "defensive_attack", target: "Bors", with: "longsword""#,
            "Round initiative 5 + 3 = 8.",
        ),
        (
            r#"action: "defensive_attack""#,
            "Round initiative 5 + 1 = 6.",
        ),
    ];
    for (order, expect) in cases {
        let orders = format!(r#"(round: 1, order: (actor: "Anna", {order}))"#);
        let mut b = battle(&duel("", "", "5, 9, 1, 1, 1, 1, 1, 1", &orders, 1));
        run(&mut b);
        assert_has(&b, expect);
    }
    assert_eq!(d.numbers.throw_modifier, 2);
    assert_eq!(d.spells["firebolt"].tn - d.numbers.spell_speed_base, 4);
}

#[test]
fn lowest_initiative_acts_first() {
    // Anna 5 + 2 = 7 attacks before Bors 9 + 2 = 11.
    let orders = format!(
        r#"{ANNA_ATTACKS}, (round: 1, order: (actor: "Bors", action: "attack", target: "Anna", with: "longsword"))"#
    );
    let mut b = battle(&duel("", "", "5, 9, 2, 2", &orders, 1));
    run(&mut b);
    assert_has(&b, "Order of the round, lowest first: Anna 7, Bors 11.");
    let t = texts(&b);
    let anna = t
        .iter()
        .position(|x| x.starts_with("Anna attacks Bors"))
        .unwrap();
    let bors = t
        .iter()
        .position(|x| x.starts_with("Bors attacks Anna"))
        .unwrap();
    assert!(anna < bors);
}

#[test]
fn defense_is_met_by_an_equal_total_and_armour_reduces_each_hit() {
    // Bors's Defense is 10 + 0 Agility + 3 = 13; Anna attacks at +4: a 9 makes 13 and hits.
    // Damage 1d8+2 with a 6 = 8, less Bors's Armour 1 = 7, all to Stress (11).
    let mut b = battle(&duel("", "", "5, 9, 9, 6", ANNA_ATTACKS, 1));
    run(&mut b);
    assert_has(
        &b,
        "Anna attacks Bors with the longsword: 9 + 4 = 13 against Defense 13: a hit.",
    );
    assert_has(
        &b,
        "Damage 8 (1d8 +2 Strength), less 1 Armour: 7 slashing damage.",
    );
    assert_eq!(wounds(&mut b, "Bors"), (4, 13, Health::Fine));
    // One less misses.
    let mut b = battle(&duel("", "", "5, 9, 8", ANNA_ATTACKS, 1));
    run(&mut b);
    assert_has(&b, "8 + 4 = 12 against Defense 13: a miss.");
}

#[test]
fn damage_takes_stress_first_then_wound_points() {
    // 004 §Stress: Bors has 3 Stress; 7 damage takes 3 Stress and 4 Wound Points.
    let mut b = battle(&duel(
        "",
        r#", set: {"stress": 3}"#,
        "5, 9, 15, 6",
        ANNA_ATTACKS,
        1,
    ));
    run(&mut b);
    assert_has(
        &b,
        "Bors takes 7 damage, Stress first, the rest to Wound Points: 3 Stress, 4 Wound Points",
    );
    assert_eq!(wounds(&mut b, "Bors"), (0, 9, Health::Fine));
    let e = entity(&mut b, "Bors");
    let inj = &b.world().get::<declared::Injuries>(e).unwrap().0;
    assert_eq!(inj.len(), 1);
    assert_eq!(
        (inj[0].cause, inj[0].amount),
        (declared::Harm::Hit(declared::DamageType::Slashing), 4)
    );
}

#[test]
fn a_natural_20_short_of_defense_misses() {
    // 004 §Defense: "any attack must equal or exceed a creature's Defense
    // score to hit it" (ruling natural_rolls): Bors's 20 + 3 = 23 against
    // Anna's Defense raised to 28 misses, and is no critical hit.
    let orders = r#"(round: 1, order: (actor: "Bors", action: "attack", target: "Anna", with: "longsword"))"#;
    let mut b = battle(&duel(
        r#", set: {"defense_bonus": 15}"#,
        "",
        "9, 5, 20, 5, 14",
        orders,
        1,
    ));
    run(&mut b);
    let attack = texts(&b)
        .into_iter()
        .find(|t| t.starts_with("Bors attacks Anna"))
        .unwrap();
    assert!(attack.ends_with("a miss."), "{attack}");
    common::assert_lacks(&b, "a critical hit");
}

#[test]
fn a_critical_hit_multiplies_and_bypasses_stress() {
    // Natural 20 (ruling natural_rolls): 1d8+2 with a 5 = 7, ×2 = 14, less 1 Armour = 13,
    // all to Wound Points: 13 - 13 = 0, Incapacitated. d% 14 > 13: no Combat Injury.
    let mut b = battle(&duel("", "", "5, 9, 20, 5, 14", ANNA_ATTACKS, 1));
    run(&mut b);
    assert_has(&b, "a critical hit");
    assert_has(
        &b,
        "Damage 7 (1d8 +2 Strength) × 2 critical = 14, less 1 Armour: 13 slashing damage.",
    );
    assert_has(
        &b,
        "Combat Injury check for Bors: d% 14 against 13 damage: no injury.",
    );
    assert_eq!(wounds(&mut b, "Bors"), (11, 0, Health::Incapacitated));
}

#[test]
fn a_combat_injury_is_rolled_on_the_blunt_table() {
    // A mace (blunt) critical: 1d6+1+2 with a 6 = 9, ×2 = 18, less 1 = 17. d% 10 <= 17:
    // d20 2 is a Broken Shin: 1d8 Agility damage (a 4) and half speed.
    let mut b = battle(&duel(
        r#", weapons: ["mace"]"#,
        "",
        "5, 9, 20, 6, 10, 2, 4",
        r#"(round: 1, order: (actor: "Anna", action: "attack", target: "Bors", with: "mace"))"#,
        1,
    ));
    run(&mut b);
    assert_has(
        &b,
        "Bors suffers a Combat Injury: Broken Shin — 1d8 Agility damage. move at half speed.",
    );
    assert_has(&b, "Bors takes 4 Agility damage from the Broken Shin");
    let e = entity(&mut b, "Bors");
    let hurts = b.world().get::<declared::Hurts>(e).unwrap().clone();
    assert!(hurts.half_speed);
    assert_eq!(hurts.agility_damage, 4);
    let inj = &b.world().get::<declared::Injuries>(e).unwrap().0;
    assert_eq!(inj[0].combat_injury.as_deref(), Some("Broken Shin"));
}

#[test]
fn an_empty_injury_table_borrows_the_blunt_table() {
    // Longsword (slashing) critical, injury d20 14: Broken Neck, paralysed.
    let mut b = battle(&duel(
        "",
        r#", set: {"strength": 40}"#,
        "5, 9, 20, 6, 1, 14",
        ANNA_ATTACKS,
        1,
    ));
    run(&mut b);
    assert_has(
        &b,
        "Broken Neck — paralyzed from the neck down. (the slashing table is empty in the text; the blunt table is used)",
    );
    let e = entity(&mut b, "Bors");
    assert!(b.world().get::<declared::Hurts>(e).unwrap().paralysed);
}

#[test]
fn dying_below_zero_loses_a_wound_point_each_round_and_dies_at_minus_strength() {
    // Bors: Stress 0, Strength 2. A hit for 3 (1d8+2 with a 2 = 4, less 1) leaves -1: Dying.
    // End of round 1: -2 = minus Strength: dead.
    let mut b = battle(&duel(
        "",
        r#", set: {"stress": 0, "strength": 2}"#,
        "5, 9, 15, 2",
        ANNA_ATTACKS,
        3,
    ));
    let r = run(&mut b);
    assert_has(&b, "Bors is Dying (-1 Wound Points)");
    assert_eq!(r, BattleResult::Victory { side: 0, rounds: 1 });
    // Combat ended when Bors stopped fighting; the bleed is shown on a longer fight below.
    let text = duel(
        "",
        r#", set: {"stress": 0, "strength": 3}"#,
        "5, 9, 9, 15, 3",
        ANNA_ATTACKS,
        3,
    )
    .replace(r#"(name: "Bors""#, BYSTANDER);
    let mut b = battle(&text);
    let _ = b.run();
    assert_has(&b, "Bors is Dying (-1 Wound Points)");
    assert_has(&b, "Bors is dying and loses 1 Wound Point.");
    assert_has(
        &b,
        "Bors dies (-3 Wound Points reaches minus its Strength of 3).",
    );
    // 004 §Wound Points: the bleed is marked as an injury too (ruling untyped_injuries).
    assert!(injuries(&mut b, "Bors").contains(&(declared::Harm::Bleeding, 1)));
}

/// Each injury `who` has: what did it and how much (004 §Wound Points).
fn injuries(b: &mut Battle, who: &str) -> Vec<(declared::Harm, i32)> {
    let e = entity(b, who);
    let inj = &b.world().get::<declared::Injuries>(e).unwrap().0;
    inj.iter().map(|i| (i.cause, i.amount)).collect()
}

#[test]
fn an_incapacitated_creature_pays_a_wound_point_to_act() {
    // Bors has Strength 4 and no Stress: 1d8+2 with a 3 = 5, less 1 Armour = 4: 0 Wound Points.
    // In round 2 his attack strains him to -1: Dying.
    let orders = format!(
        r#"{ANNA_ATTACKS}, (round: 2, order: (actor: "Bors", action: "attack", target: "Anna", with: "longsword"))"#
    );
    let text = duel(
        "",
        r#", set: {"stress": 0, "strength": 4}"#,
        "5, 9, 9, 15, 3, 9, 1",
        &orders,
        2,
    )
    .replace(r#"(name: "Bors""#, BYSTANDER);
    let mut b = battle(&text);
    let _ = b.run();
    assert_has(&b, "Bors is Incapacitated (0 Wound Points)");
    assert_has(
        &b,
        "Bors strains itself (acting while Incapacitated or Dying) and takes 1 Wound Point.",
    );
    assert_has(&b, "Bors is Dying (-1 Wound Points)");
    assert_eq!(
        injuries(&mut b, "Bors"),
        [
            (declared::Harm::Hit(declared::DamageType::Slashing), 4),
            (declared::Harm::Strain, 1),
            (declared::Harm::Bleeding, 1)
        ]
    );
}

#[test]
fn one_felled_since_it_declared_is_asked_whether_to_strain() {
    // Ruling felled_action (004 §Wound Points): Bors declared an attack
    // while standing; Anna's blow at her lower count leaves him at 0 Wound
    // Points. At his count he is asked, and lies still: no Wound Point, no
    // attack. Answering the other way, he strains and swings.
    let bors = r#"(round: 1, order: (actor: "Bors", action: "attack", target: "Anna", with: "longsword"))"#;
    for (answer, strains) in [("lie_still", false), ("strain", true)] {
        let orders = format!(
            r#"{ANNA_ATTACKS}, {bors}, (round: 1, asked: "004 §Wound Points", order: (actor: "Bors", action: "{answer}"))"#
        );
        let text = duel(
            "",
            r#", set: {"stress": 0, "strength": 4}"#,
            "5, 9, 9, 15, 3, 9, 1",
            &orders,
            1,
        )
        .replace(r#"(name: "Bors""#, BYSTANDER);
        let mut b = battle(&text);
        let _ = b.run();
        assert_has(&b, "Bors is Incapacitated (0 Wound Points)");
        assert_eq!(
            has(
                &b,
                "Bors lies still and does not carry out its declared action."
            ),
            !strains
        );
        assert_eq!(has(&b, "Bors strains itself"), strains);
        assert_eq!(has(&b, "Bors attacks Anna"), strains);
    }
}

#[test]
fn a_late_arrival_felled_after_it_declared_is_asked_at_its_late_count() {
    // Ruling felled_action, with 004 §Step 2's late arrival: the ghoul
    // arrives after count 13 and declares an attack on Brienne, standing;
    // it is carried to round 2 at 8 − 12 = −4. Brienne drops it to 0 Wound
    // Points in round 1. At −4 it is asked, and lies still.
    let text = r#"(
    name: "test", ruleset: "declared", round_cap: 2,
    grid: (kind: Square, width: 8, height: 8),
    sides: [(name: "Wardens", seat: Script), (name: "Dead and hungry", seat: Script)],
    combatants: [
        (name: "Brienne", side: "Wardens", template: "knight", at: (3, 3), set: {"agility_mod": -3}),
        (name: "Osric", side: "Wardens", template: "sellsword", at: (4, 5)),
        (name: "Gorm", side: "Dead and hungry", template: "hobgoblin_warrior", at: (4, 3), set: {"stress": 0, "strength": 1}),
        (name: "Wolfy", side: "Dead and hungry", template: "wolf", at: (7, 0)),
    ],
    arrivals: [
        (round: 1, after: 13, combatant: (name: "Ghoul", side: "Dead and hungry", template: "ghoul", at: (2, 5), set: {"stress": 0, "strength": 6})),
    ],
    dice: [10, 12, 1, 1, 8, 19, 8, 1, 15, 4],
    orders: [
        (round: 1, order: (actor: "Brienne", action: "attack", target: "Gorm", with: "longsword")),
        (round: 1, order: (actor: "Osric", action: "attack", target: "Gorm", with: "spear")),
        (round: 1, order: (actor: "Gorm", action: "full_defense")),
        (round: 1, order: (actor: "Wolfy", action: "wait")),
        (round: 1, order: (actor: "Ghoul", action: "attack", target: "Brienne", with: "claws")),
        (round: 2, order: (actor: "Brienne", action: "wait")),
        (round: 2, order: (actor: "Osric", action: "wait")),
        (round: 2, order: (actor: "Wolfy", action: "wait")),
        (round: 2, order: (actor: "Ghoul", action: "wait")),
        (round: 2, asked: "004 §Wound Points", order: (actor: "Ghoul", action: "lie_still")),
    ],
)"#;
    let mut b = battle(text);
    let _ = b.run();
    assert_has(
        &b,
        "Ghoul's initiative 8 has already passed (the round is on 13): it acts next round at 8 − 12 = -4",
    );
    assert_has(&b, "Ghoul is Incapacitated (0 Wound Points)");
    assert_has(
        &b,
        "Ghoul lies still and does not carry out its declared action.",
    );
    assert_lacks(&b, "Ghoul strains itself");
}

#[test]
fn one_felled_who_lies_still_gives_up_its_full_defense() {
    // Ruling felled_action: lying still is taking no action, and full
    // defense is an action (004 §Step 3: "when using the Full-Defense
    // action, a character adds +4"). Brienne declared it; Gob's critical hit
    // leaves her Dying; she lies still, and Grusk's blow meets her bare
    // Defense 11, not 15.
    let text = r#"(
    name: "test", ruleset: "declared", round_cap: 1,
    grid: (kind: Square, width: 10, height: 10),
    sides: [(name: "Wardens", seat: Script), (name: "Raiders", seat: Script)],
    combatants: [
        (name: "Brienne", side: "Wardens", template: "knight", at: (2, 2), set: {"stress": 0, "strength": 8, "armour": 0, "agility_mod": -3}),
        (name: "Osric", side: "Wardens", template: "sellsword", at: (8, 8)),
        (name: "Gob", side: "Raiders", template: "goblin", at: (3, 2)),
        (name: "Grusk", side: "Raiders", template: "bugbear_scoundrel", at: (3, 3)),
    ],
    dice: [1, 12, 1, 3, 20, 6, 100, 11, 7],
    orders: [
        (round: 1, order: (actor: "Gob", action: "attack", target: "Brienne", with: "shortsword")),
        (round: 1, order: (actor: "Grusk", action: "attack", target: "Brienne", with: "warhammer")),
        (round: 1, order: (actor: "Brienne", action: "full_defense")),
        (round: 1, order: (actor: "Osric", action: "wait")),
        (round: 1, asked: "004 §Wound Points", order: (actor: "Brienne", action: "lie_still")),
    ],
)"#;
    let mut b = battle(text);
    let _ = b.run();
    assert_has(&b, "a critical hit (full defense +4)");
    assert_has(
        &b,
        "Brienne lies still and does not carry out its declared action.",
    );
    assert_has(
        &b,
        "Grusk attacks Brienne with the warhammer: 11 + 4 = 15 against Defense 11: a hit.",
    );
}

#[test]
fn one_felled_beyond_reach_of_its_target_lies_still_unasked() {
    // Ruling felled_action: Bors declared an attack on Dara, far off, and
    // falls to Anna first. From where he lies he cannot reach her, so there
    // is nothing to pay a Wound Point for: he lies still.
    let text = field(
        1,
        r#"(name: "Anna", side: "A", template: "knight", at: (1, 1)),
           (name: "Dara", side: "A", template: "knight", at: (6, 6)),
           (name: "Cato", side: "B", template: "hobgoblin_warrior", at: (7, 0)),
           (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (2, 1), set: {"stress": 0, "strength": 4}),"#,
        "5, 12, 9, 9, 15, 3",
        &format!(
            r#"{ANNA_ATTACKS}, (round: 1, order: (actor: "Bors", action: "attack", target: "Dara", with: "longsword"))"#
        ),
    );
    let mut b = battle(&text);
    let _ = b.run();
    assert_has(&b, "Bors is Incapacitated (0 Wound Points)");
    assert_has(
        &b,
        "Bors lies still: it lies where it fell and cannot both move and act: Dara is",
    );
    assert_lacks(&b, "Bors strains itself");
}

#[test]
fn one_down_whose_target_died_lies_still_when_the_next_foe_is_beyond_reach() {
    // Ruling felled_action and ruling retarget: Anna, at 0 Wound Points
    // beside Bors, declares an attack on him; Dara kills him first. Anna
    // would turn on Cato, 6 cells off: from where she lies she cannot reach
    // him, so she lies still and pays no Wound Point.
    let text = field(
        2,
        r#"
        (name: "Anna", side: "A", template: "knight", at: (1, 1), set: {"stress": 0, "strength": 4}),
        (name: "Dara", side: "A", template: "knight", at: (3, 2)),
        (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (2, 1), set: {"stress": 0, "strength": 1}),
        (name: "Cato", side: "B", template: "hobgoblin_warrior", at: (7, 7)),"#,
        "5, 2, 2, 12, 15, 5, 15, 5",
        r#"
        (round: 1, order: (actor: "Anna", action: "wait")),
        (round: 1, order: (actor: "Dara", action: "wait")),
        (round: 1, order: (actor: "Bors", action: "attack", target: "Anna", with: "longsword")),
        (round: 1, order: (actor: "Cato", action: "wait")),
        (round: 2, order: (actor: "Anna", action: "attack", target: "Bors", with: "longsword")),
        (round: 2, order: (actor: "Dara", action: "attack", target: "Bors", with: "longsword")),
        (round: 2, order: (actor: "Bors", action: "wait")),
        (round: 2, order: (actor: "Cato", action: "wait")),"#,
    );
    let mut b = battle(&text);
    let _ = b.run();
    assert_has(&b, "Bors dies");
    assert_has(
        &b,
        "Anna lies still: Bors is gone (ruling retarget); it lies where it fell and cannot both move and act: Cato is 6 cells away, reach 1",
    );
    assert_lacks(&b, "Anna strains itself");
    assert_eq!(wounds(&mut b, "Anna").1, 0);
    // Lying still is no action taken: none is counted against her.
    let anna = entity(&mut b, "Anna");
    let rs = b.world().get::<declared::RoundState>(anna).unwrap();
    assert_eq!((rs.actions_taken, rs.acted), (0, false));
}

#[test]
fn one_down_lies_still_when_the_ally_it_would_tend_is_stabilised() {
    // 004 §Wound Points: Anna, a priest at 0 Wound Points, declares to
    // stabilise Eve; Dara stabilises her first. Nothing is left to tend:
    // Anna lies still and pays nothing.
    let text = field(
        2,
        r#"
        (name: "Anna", side: "A", template: "priest", at: (1, 1), set: {"stress": 0, "strength": 4}),
        (name: "Eve", side: "A", template: "knight", at: (1, 2), set: {"stress": 0, "strength": 4}),
        (name: "Dara", side: "A", template: "priest", at: (2, 3)),
        (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (2, 1)),
        (name: "Cato", side: "B", template: "hobgoblin_warrior", at: (0, 2)),"#,
        "10, 10, 1, 1, 1, 15, 5, 15, 5, 15",
        r#"
        (round: 1, order: (actor: "Anna", action: "wait")),
        (round: 1, order: (actor: "Eve", action: "wait")),
        (round: 1, order: (actor: "Dara", action: "wait")),
        (round: 1, order: (actor: "Bors", action: "attack", target: "Anna", with: "longsword")),
        (round: 1, order: (actor: "Cato", action: "attack", target: "Eve", with: "longsword")),
        (round: 2, order: (actor: "Anna", action: "stabilise", target: "Eve")),
        (round: 2, order: (actor: "Eve", action: "wait")),
        (round: 2, order: (actor: "Dara", action: "stabilise", target: "Eve")),
        (round: 2, order: (actor: "Bors", action: "wait")),
        (round: 2, order: (actor: "Cato", action: "wait")),"#,
    );
    let mut b = battle(&text);
    let _ = b.run();
    assert_has(&b, "Anna lies still: Eve no longer needs stabilising");
    assert_lacks(&b, "Anna strains itself");
    assert_eq!(wounds(&mut b, "Anna").1, 0);
}

#[test]
fn an_intimidation_whose_monster_died_turns_only_on_a_monster() {
    // Ruling retarget and 004 §Step 4: Anna declares to intimidate Snik;
    // Dara kills him first. Cato, a sellsword of a third side, is nearer
    // than the goblin Grub, but only monsters check morale: Anna turns on
    // Grub.
    let text = field(
        1,
        r#"
        (name: "Anna", side: "A", template: "knight", at: (1, 1)),
        (name: "Dara", side: "A", template: "knight", at: (3, 2)),
        (name: "Snik", side: "B", template: "goblin", at: (2, 1), set: {"stress": 0, "strength": 1}),
        (name: "Grub", side: "B", template: "goblin", at: (7, 7)),
        (name: "Cato", side: "C", template: "sellsword", at: (1, 3)),"#,
        "9, 2, 12, 12, 12, 15, 5, 10",
        r#"
        (round: 1, order: (actor: "Anna", action: "intimidate", target: "Snik")),
        (round: 1, order: (actor: "Dara", action: "attack", target: "Snik", with: "longsword")),
        (round: 1, order: (actor: "Snik", action: "wait")),
        (round: 1, order: (actor: "Grub", action: "wait")),
        (round: 1, order: (actor: "Cato", action: "wait")),"#,
    )
    .replace(
        r#"(name: "B", seat: Script)"#,
        r#"(name: "B", seat: Script, morale: true), (name: "C", seat: Script)"#,
    );
    let mut b = battle(&text);
    let _ = b.run();
    assert_has(&b, "Snik is gone; Anna turns on Grub instead.");
    assert_lacks(&b, "Anna turns on Cato");
}

#[test]
fn one_down_lies_still_when_no_monster_is_left_to_intimidate() {
    // Ruling felled_action, ruling retarget and ruling intimidate_action:
    // Grub held against Anna's Intimidation in round 1. In round 2 she
    // declares to intimidate Snik, Bors fells her, and Dara kills Snik.
    // Grub cannot be intimidated again, so nothing is left to act on: she
    // lies still, unasked, and pays nothing.
    let text = field(
        2,
        r#"
        (name: "Anna", side: "A", template: "knight", at: (1, 1), set: {"stress": 0, "strength": 4}),
        (name: "Dara", side: "A", template: "knight", at: (3, 2)),
        (name: "Snik", side: "B", template: "goblin", at: (2, 1), set: {"stress": 0, "strength": 1}),
        (name: "Grub", side: "B", template: "goblin", at: (3, 4)),
        (name: "Bors", side: "C", template: "hobgoblin_warrior", at: (1, 0)),"#,
        "10, 2, 11, 11, 1, 1, 6, 6, 6, 6, 6, 6, 15, 5, 15, 5",
        r#"
        (round: 1, order: (actor: "Anna", action: "intimidate", target: "Grub")),
        (round: 1, order: (actor: "Dara", action: "wait")),
        (round: 1, order: (actor: "Snik", action: "wait")),
        (round: 1, order: (actor: "Grub", action: "wait")),
        (round: 1, order: (actor: "Bors", action: "wait")),
        (round: 2, order: (actor: "Anna", action: "intimidate", target: "Snik")),
        (round: 2, order: (actor: "Dara", action: "attack", target: "Snik", with: "longsword")),
        (round: 2, order: (actor: "Snik", action: "wait")),
        (round: 2, order: (actor: "Grub", action: "wait")),
        (round: 2, order: (actor: "Bors", action: "attack", target: "Anna", with: "longsword")),"#,
    )
    .replace(
        r#"(name: "B", seat: Script)"#,
        r#"(name: "B", seat: Script, morale: true), (name: "C", seat: Script)"#,
    );
    let mut b = battle(&text);
    let _ = b.run();
    assert_has(
        &b,
        "Anna lies still: Snik is gone, and no monster is left to intimidate (ruling retarget).",
    );
    assert_lacks(&b, "Anna strains itself");
    assert_lacks(&b, "Anna turns on Grub");
    // Lying still is no action taken: none is counted against her.
    let anna = entity(&mut b, "Anna");
    let rs = b.world().get::<declared::RoundState>(anna).unwrap();
    assert_eq!((rs.actions_taken, rs.acted), (0, false));
}

#[test]
fn one_down_may_not_declare_an_attack_beyond_its_reach() {
    // 004 §Wound Points: Anna, Incapacitated at 0, would attack Bors two
    // squares off. The attack would strain her to -1: Dying, she "cannot
    // both move and take an action", so she could not crawl the square that
    // would bring him within reach. The declaration is refused, rather than
    // paid for with a Wound Point for nothing.
    let text = duel("", ", at: (3, 1)", "9, 2, 9, 9, 9", ANNA_ATTACKS, 1)
        .replace(", at: (2, 1), at: (3, 1)", ", at: (3, 1)")
        .replace(
            r#"(name: "Bors""#,
            &format!(r#"(name: "Dara", side: "A", template: "knight", at: (0, 7)), {BYSTANDER}"#),
        );
    let mut b = battle(&text);
    let anna = entity(&mut b, "Anna");
    let w = b.world_mut();
    w.get_mut::<WoundPoints>(anna).unwrap().current = 0;
    w.entity_mut(anna)
        .insert(Health::Incapacitated)
        .remove::<fray_core::model::Fighting>();
    let _ = b.run();
    assert_has(
        &b,
        "Anna's order \"attack\" is refused: it lies where it fell and cannot both move and act: Bors is 2 cells away, reach 1 (004 §Wound Points).",
    );
    assert_lacks(&b, "Anna strains itself");
    assert_lacks(&b, "Anna moves");
    assert_lacks(&b, "Anna attacks Bors");
}

#[test]
fn a_riposte_that_leaves_the_mover_prone_stops_its_move() {
    // Rulings riposte, injury_effects, half_speed: Brienne walks at Snik;
    // Grusk's riposte as she enters his reach is a critical that shatters
    // her kneecap. Prone, she "crawls 1 cell a round": having moved 2, she
    // goes no farther, and cannot reach Snik.
    let text = field(
        1,
        r#"(name: "Brienne", side: "A", template: "knight", at: (0, 3)),
           (name: "Grusk", side: "B", template: "bugbear_scoundrel", at: (3, 4)),
           (name: "Snik", side: "B", template: "goblin", at: (6, 3)),"#,
        "5, 5, 5, 20, 1, 1, 3, 1",
        r#"(round: 1, order: (actor: "Brienne", action: "attack", target: "Snik", with: "longsword"))"#,
    );
    let mut b = battle(&text);
    let _ = b.run();
    assert_has(&b, "Brienne suffers a Combat Injury: Shattered Kneecap");
    assert_has(&b, "Brienne cannot reach Snik this round");
    let e = entity(&mut b, "Brienne");
    assert_eq!(b.world().get::<Cell>(e), Some(&Cell::new(2, 3)));
}

#[test]
fn a_move_toward_where_it_stands_holds_its_ground_in_the_log() {
    // 004 §Step 3: Anna's Defensive Attack toward her own cell goes nowhere,
    // and the log says so.
    let order = r#"(round: 1, order: (actor: "Anna", action: "defensive_attack", cell: (1, 1)))"#;
    let text = duel("", "", "5, 9", order, 1).replace("at: (2, 1)", "at: (6, 6)");
    let mut b = battle(&text);
    let _ = b.run();
    assert_has(&b, "Anna holds its ground.");
}

#[test]
fn dropped_to_dying_on_the_way_the_spell_is_not_cast() {
    // 004 §Wound Points: Prior, walking up to mend Kay, is riposted by Hob
    // to -1 Wound Points: Dying, it "cannot both move and take an action".
    let mut b = battle(MEND_DROPPED);
    let _ = b.run();
    assert_has(&b, "Prior is Dying (-1 Wound Points)");
    assert_lacks(&b, "Prior casts mend");
}

#[test]
fn an_arm_broken_before_its_turn_stops_the_declared_attack() {
    // 004 §Combat Injuries: Kay's critical hit (initiative 3) breaks Hob's
    // main arm; at 12 Hob cannot swing as declared.
    let mut b = battle(BROKEN_ARM);
    let _ = b.run();
    assert_has(&b, "The Broken Upper Arm is in Hob's main arm");
    assert_has(
        &b,
        "Hob does not act as declared: its weapon arm is broken: it can't attack with that arm.",
    );
    assert_lacks(&b, "Hob attacks Kay");
}

const MEND_DROPPED: &str = r#"(
    name: "Dropped on the way",
    ruleset: "declared",
    grid: (kind: Square, width: 8, height: 8, obstacles: [(3, 3)]),
    seed: 1,
    sides: [
        (name: "Wardens", seat: Script),
        (name: "Hobs", seat: Script, morale: true),
    ],
    combatants: [
        (name: "Prior", side: "Wardens", template: "priest", at: (2, 2), set: {"stress": 0, "strength": 4}),
        (name: "Kay", side: "Wardens", template: "knight", at: (4, 3)),
        (name: "Hob", side: "Hobs", template: "hobgoblin_warrior", at: (4, 1)),
    ],
    dice: [1, 10, 10, 15, 6, 15, 3, 3],
    orders: [
        (round: 1, order: (actor: "Prior", action: "cast", target: "Kay", with: "mend")),
        (round: 1, order: (actor: "Kay", action: "wait")),
        (round: 1, order: (actor: "Hob", action: "wait")),
    ],
)"#;

const BROKEN_ARM: &str = r#"(
    name: "A broken arm",
    ruleset: "declared",
    grid: (kind: Square, width: 8, height: 8),
    seed: 1,
    sides: [
        (name: "Wardens", seat: Script),
        (name: "Hobs", seat: Script),
    ],
    combatants: [
        (name: "Kay", side: "Wardens", template: "knight", at: (3, 3)),
        (name: "Hob", side: "Hobs", template: "hobgoblin_warrior", at: (4, 3), set: {"strength": 30}),
    ],
    dice: [1, 10, 20, 8, 1, 9, 1, 5, 15, 4],
    orders: [
        (round: 1, order: (actor: "Kay", action: "attack", target: "Hob", with: "longsword")),
        (round: 1, order: (actor: "Hob", action: "attack", target: "Kay", with: "longsword")),
    ],
    round_cap: 1,
)"#;

#[test]
fn stabilising_takes_a_heal_check_against_ten_plus_the_worst_wound() {
    // Cato (a priest, Heal +5) stabilises Bors, who took a 4-point wound: TN 14.
    let text = field(
        2,
        r#"(name: "Anna", side: "A", template: "knight", at: (1, 1)),
        (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (2, 1), set: {"stress": 0, "strength": 3}),
        (name: "Cato", side: "B", template: "priest", at: (3, 1)),"#,
        "5, 9, 9, 15, 3, 9",
        r#"(round: 1, order: (actor: "Anna", action: "attack", target: "Bors", with: "longsword")),
        (round: 2, order: (actor: "Cato", action: "stabilise", target: "Bors")),"#,
    );
    let mut b = battle(&text);
    let _ = b.run();
    assert_has(&b, "Bors is Dying (-1 Wound Points)");
    assert_has(
        &b,
        "Cato tends Bors: Heal 9 + 5 = 14 against TN 10 + 4 (worst wound) = 14: Bors is stabilised.",
    );
    let e = entity(&mut b, "Bors");
    assert!(b.world().get::<declared::Stabilised>(e).is_some());
    // Round 1's bleed happened before the stabilising; none after.
    let bleeds = texts(&b)
        .iter()
        .filter(|t| t.contains("Bors is dying and loses 1"))
        .count();
    assert_eq!(bleeds, 1);
}

#[test]
fn equal_initiatives_resolve_simultaneously_and_can_drop_each_other() {
    // Both at 5 + 2 = 7; each hits the other down to below 0 in the same instant.
    let orders = format!(
        r#"{ANNA_ATTACKS}, (round: 1, order: (actor: "Bors", action: "attack", target: "Anna", with: "longsword"))"#
    );
    let mut b = battle(&duel(
        r#", set: {"stress": 0, "strength": 3, "agility_mod": 0}"#,
        r#", set: {"stress": 0, "strength": 3}"#,
        "5, 5, 15, 4, 15, 4",
        &orders,
        3,
    ));
    let r = run(&mut b);
    assert_has(
        &b,
        "Anna and Bors act at the same instant: their hits land together.",
    );
    assert_eq!(r, BattleResult::MutualDestruction { rounds: 1 });
    // Anna: 1d8+1 with a 4 = 5, less her Armour 2 = 3: 0 Wound Points.
    // Bors: 1d8+2 with a 4 = 6, less his Armour 1 = 5: -2.
    assert_eq!(wounds(&mut b, "Anna"), (0, 0, Health::Incapacitated));
    assert_eq!(wounds(&mut b, "Bors"), (0, -2, Health::Dying));
}

#[test]
fn surprised_creatures_roll_initiative_but_do_not_act_in_the_first_round() {
    let mut b = battle(&duel(", surprised: true", "", "5, 9", ANNA_ATTACKS, 2));
    run(&mut b);
    assert_has(
        &b,
        "Anna is surprised: it rolls initiative but does not act in the first round.",
    );
    assert_has(&b, "Anna rolls base initiative 5");
    let round1: Vec<_> = b
        .world()
        .resource::<BattleLog>()
        .entries()
        .iter()
        .filter(|e| e.round == 1 && e.actor.as_deref() == Some("Anna"))
        .map(|e| e.event)
        .collect();
    assert!(!round1.contains(&EventKind::Declare), "{round1:?}");
    assert_has(&b, "Anna declares: wait. Round initiative 5 + 0 = 5.");
}

/// Anna (a knight) intimidates Bors (a hobgoblin warrior, of a side that
/// checks morale) two cells away in each of the first `rounds` rounds,
/// which are all the battle has, with the forced `dice`.
fn intimidations(rounds: u32, dice: &str) -> Battle {
    let orders: Vec<String> = (1..=rounds)
        .map(|r| {
            format!(r#"(round: {r}, order: (actor: "Anna", action: "intimidate", target: "Bors"))"#)
        })
        .collect();
    battle(&format!(
        r#"(
    name: "test", ruleset: "declared", round_cap: {rounds},
    grid: (kind: Square, width: 8, height: 8),
    options: {{"declaration": "round_robin"}},
    sides: [(name: "A", seat: Script), (name: "B", seat: Script, morale: true)],
    combatants: [
        (name: "Anna", side: "A", template: "knight", at: (1, 1)),
        (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (3, 1)),
    ],
    dice: [{dice}],
    orders: [{}],
)"#,
        orders.join(", ")
    ))
}

#[test]
fn an_intimidation_result_replaces_the_morale_target_number() {
    // 004 §Step 4: the TN is 11 + opponents "(or an opposing Intimidation
    // check result)". Anna's Intimidation 6 + 3 = 9 is the target, not
    // 11 + 1 = 12: Bors's 7 + 0 Insight + 2 HD = 9 holds.
    let mut b = intimidations(1, "5, 8, 6, 4, 2, 1");
    let _ = b.run();
    assert_has(&b, "Anna tries to intimidate Bors: 6 + 3 = 9;");
    assert_has(
        &b,
        "Bors checks morale (was intimidated (check 9)): 7 + 0 Insight + 2 HD + 0 allies = 9 against 9 (the Intimidation check): holds.",
    );
}

#[test]
fn a_monster_that_held_against_an_intimidation_sees_through_the_next() {
    // Ruling intimidate_action: Bors holds against Anna's 9 in round 1, and
    // her Intimidation in round 2 is refused.
    let mut b = intimidations(2, "5, 8, 6, 4, 2, 1, 5, 8");
    let _ = b.run();
    assert_has(
        &b,
        "Bors has seen through the Intimidation: it cannot be intimidated again this battle.",
    );
    assert_has(
        &b,
        "Bors held against an Intimidation and cannot be intimidated again this battle (ruling intimidate_action)",
    );
    assert_eq!(
        texts(&b)
            .iter()
            .filter(|t| t.contains("tries to intimidate"))
            .count(),
        1
    );
}

/// Anna Dying at `wp` Wound Points (stabilised or not) drinks a healing
/// draught in round 1 for 1 + 1 + 2 = 4, allies far away on both sides so
/// the fight goes on around her.
fn anna_dying_drinks(wp: i32, stabilised: bool) -> Battle {
    let text = duel(
        "",
        "",
        "9, 2, 2, 1, 1, 1",
        r#"(round: 1, order: (actor: "Anna", action: "consumable", with: "healing_draught"))"#,
        1,
    );
    let text = text.replace(
        r#"(name: "Bors""#,
        &format!(r#"(name: "Dara", side: "A", template: "knight", at: (0, 7)), {BYSTANDER}"#),
    );
    let mut b = battle(&text);
    let anna = entity(&mut b, "Anna");
    let w = b.world_mut();
    w.get_mut::<WoundPoints>(anna).unwrap().current = wp;
    let mut e = w.entity_mut(anna);
    e.insert(Health::Dying)
        .remove::<fray_core::model::Fighting>();
    if stabilised {
        e.insert(declared::Stabilised);
    }
    let _ = b.run();
    b
}

#[test]
fn healed_from_below_zero_to_exactly_zero_is_incapacitated_not_dying() {
    // 004 §Wound Points: at 0 Incapacitated; below 0 Dying. Anna, Dying at
    // -3, strains herself to -4 by acting, then drinks a healing draught for
    // 1 + 1 + 2 = 4: she is at 0 and stops bleeding.
    let mut b = anna_dying_drinks(-3, false);
    assert_has(
        &b,
        "Anna uses a healing draught: 4 Wound Points and 0 Stress restored.",
    );
    assert_has(
        &b,
        "Anna is healed to 0 Wound Points: Incapacitated, no longer Dying.",
    );
    assert_eq!(wounds(&mut b, "Anna").1, 0);
    assert_eq!(wounds(&mut b, "Anna").2, Health::Incapacitated);
    assert!(!has(&b, "Anna is dying and loses 1 Wound Point."));
}

#[test]
fn a_stabilised_creature_healed_to_zero_stays_stabilised() {
    // 004 §Wound Points: "A Dying or Incapacitated creature can be
    // stabilized": healing a stabilised Anna from -4 to exactly 0 leaves her
    // Incapacitated and still stabilised (her first action of a round free,
    // half her Speed), not as if never tended. Her draught, a stabilised
    // creature's first action, strains nothing: 1 + 1 + 2 = 4.
    let mut b = anna_dying_drinks(-4, true);
    let anna = entity(&mut b, "Anna");
    assert!(!has(&b, "Anna strains herself"));
    assert_has(
        &b,
        "Anna is healed to 0 Wound Points: Incapacitated, no longer Dying.",
    );
    assert_eq!(wounds(&mut b, "Anna").2, Health::Incapacitated);
    assert!(b.world().get::<declared::Stabilised>(anna).is_some());
}

#[test]
fn one_dying_who_cannot_breathe_loses_a_wound_point_for_each() {
    // 004 §Wound Points and ruling injury_effects: a mace critical, 1d6+1+2
    // with a 6 = 9, x2 = 18, less 1 = 17, takes Bors (Strength 10) to -7,
    // Dying; d% 10 <= 17, d20 15: a Crushed Windpipe. At the round's end he
    // loses 1 Wound Point for dying and 1 for not breathing: -9.
    let text = duel(
        r#", weapons: ["mace"]"#,
        r#", set: {"strength": 10}"#,
        "5, 9, 9, 20, 6, 10, 15",
        r#"(round: 1, order: (actor: "Anna", action: "attack", target: "Bors", with: "mace"))"#,
        1,
    );
    // Bors's ally far away, so the fight goes on to the round's end.
    let mut b = battle(&text.replace(r#"(name: "Bors""#, BYSTANDER));
    let _ = b.run();
    assert_has(&b, "Bors suffers a Combat Injury: Crushed Windpipe");
    assert_has(&b, "Bors is dying and loses 1 Wound Point.");
    assert_has(&b, "Bors cannot breathe and loses 1 Wound Point.");
    assert_eq!(wounds(&mut b, "Bors").1, -9);
}

#[test]
fn full_defense_ripostes_at_a_caster_whose_harmful_spell_is_its_attack() {
    // 004 §Step 3: "if they are attacked they may make a Reposte"; ruling
    // spell_attack: a harmful spell's casting total is its attack. Cato,
    // beside Anna in full defense, casts firebolt at her; she ripostes.
    let text = field(
        1,
        r#"(name: "Anna", side: "A", template: "knight", at: (1, 1)),
        (name: "Cato", side: "B", template: "priest", at: (2, 1)),"#,
        "5, 9, 15, 3, 3, 15, 4",
        r#"(round: 1, order: (actor: "Anna", action: "full_defense")),
        (round: 1, order: (actor: "Cato", action: "cast", with: "firebolt", target: "Anna"))"#,
    );
    let mut b = battle(&text);
    let _ = b.run();
    // Firebolt 15 + 4 = 19 meets her Defense 14 + 4; her riposte, 15 + 4
    // against Cato's 13, hits for 1d8 + 2 with a 4, less 2 Armour.
    let bolt = common::line(&b, "firebolt strikes Anna (19 against Defense 18)");
    let riposte = common::line(
        &b,
        "Anna ripostes at Cato with the longsword: 15 + 4 = 19 against Defense 13: a hit.",
    );
    assert!(bolt < riposte);
    assert_has(&b, "Cato takes 4 damage, all of it to Stress");
}

#[test]
fn a_broken_rib_acts_every_second_round_waiting_in_between() {
    // 004 §Combat Injuries, Broken Rib: "take only 1 action per 2 turns".
    // Waiting is no action: after waiting in round 2, Anna acts in round 3.
    let attack = |round: u32| {
        format!(
            r#"(round: {round}, order: (actor: "Anna", action: "attack", target: "Bors", with: "longsword"))"#
        )
    };
    let orders = [attack(1), attack(2), attack(3)].join(", ");
    let text = duel(
        r#", set: {"stress": 99}"#,
        r#", set: {"stress": 99}"#,
        "9, 1",
        &orders,
        3,
    );
    let mut b = battle(&text.replace(r#"(name: "Bors""#, BYSTANDER));
    let anna = entity(&mut b, "Anna");
    b.world_mut()
        .get_mut::<declared::Hurts>(anna)
        .unwrap()
        .every_other_round = true;
    let _ = b.run();
    let declared_in = |round: u32| {
        b.world()
            .resource::<BattleLog>()
            .entries()
            .iter()
            .filter(|e| e.round == round && e.text.starts_with("Anna declares: "))
            .map(|e| e.text.clone())
            .collect::<Vec<_>>()
    };
    assert!(declared_in(1)[0].starts_with("Anna declares: attack Bors"));
    assert!(
        declared_in(2)[0].starts_with("Anna declares: wait"),
        "{:?}",
        declared_in(2)
    );
    assert_has(
        &b,
        "Broken rib: only one action every two rounds, and it acted last round",
    );
    assert!(
        declared_in(3)[0].starts_with("Anna declares: attack Bors"),
        "{:?}",
        declared_in(3)
    );
}

#[test]
fn a_newcomer_whose_cell_is_taken_enters_at_the_nearest_free_cell() {
    // Ruling arrival_displaced: Brienne has stepped where the ghoul was to
    // enter; the ghoul enters beside her instead of on top of her.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/scenarios/ghoul.ron"
    ))
    .unwrap();
    let text = text.replace("seed: 11", "seed: 11, round_cap: 2");
    let mut b = battle(&text);
    let brienne = declared::roster(b.world())[0];
    b.world_mut().entity_mut(brienne).insert(Cell::new(3, 5));
    let _ = b.run();
    assert_has(
        &b,
        "Ghoul enters the combat at (2, 4) ((3, 5) is taken) while the round is on initiative 13.",
    );
    let ghoul = declared::roster(b.world())[2];
    assert_ne!(b.world().get::<Cell>(ghoul), b.world().get::<Cell>(brienne));
}

#[test]
fn the_ghoul_arriving_late_acts_twice_next_round() {
    // 004 §Step 2's example, from assets/scenarios/ghoul.ron.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/scenarios/ghoul.ron"
    ))
    .unwrap();
    let text = text.replace("seed: 11", "seed: 11, round_cap: 2");
    let mut b = battle(&text);
    let _ = b.run();
    assert_has(
        &b,
        "Ghoul enters the combat at (3, 5) while the round is on initiative 13.",
    );
    assert_has(&b, "Ghoul rolls base initiative 8 − 0 (Agility) = 8.");
    assert_has(
        &b,
        "Ghoul declares: attack Brienne with the claws. Round initiative 8 + 0 = 8.",
    );
    assert_has(
        &b,
        "Ghoul's initiative 8 has already passed (the round is on 13): it acts next round at 8 − 12 = -4, as well as at its own count.",
    );
    let order = texts(&b)
        .into_iter()
        .find(|t| t.starts_with("Order of the round") && t.contains("Ghoul"))
        .unwrap();
    assert!(
        order.contains("Ghoul -4") && order.contains("Ghoul 8"),
        "{order}"
    );
    let round2: Vec<String> = b
        .world()
        .resource::<BattleLog>()
        .entries()
        .iter()
        .filter(|e| e.round == 2 && e.text.starts_with("Ghoul attacks Brienne"))
        .map(|e| e.time.clone())
        .collect();
    assert_eq!(
        round2,
        vec!["initiative -4".to_string(), "initiative 8".to_string()]
    );
}

#[test]
fn a_late_full_defense_guards_the_round_it_is_taken_in() {
    // 004 §Step 2–3: the ghoul of ghoul.ron declares full defense instead
    // (8 − 1 = 7, passed): taken next round at 7 − 12 = -5, its +4 Defense
    // guards it in round 2, when Brienne attacks it, not in round 1.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/scenarios/ghoul.ron"
    ))
    .unwrap()
    .replace("seed: 11", "seed: 11, round_cap: 2")
    .replace(
        r#"(round: 1, order: (actor: "Ghoul", action: "attack", target: "Brienne", with: "claws")),"#,
        r#"(round: 1, order: (actor: "Ghoul", action: "full_defense")),
        (round: 2, order: (actor: "Brienne", action: "attack", target: "Ghoul", with: "longsword")),"#,
    );
    let mut b = battle(&text);
    let _ = b.run();
    assert_has(
        &b,
        "Ghoul's initiative 7 has already passed (the round is on 13): it acts next round at 7 − 12 = -5",
    );
    assert_has(
        &b,
        "Brienne attacks Ghoul with the longsword: 8 + 4 = 12 against Defense 16: a miss (full defense +4).",
    );
    assert_has(&b, "Ghoul ripostes against Brienne from full defense.");
}

#[test]
fn full_defense_adds_four_to_defense_and_ripostes_when_attacked() {
    // Bors in full defense: Defense 13 + 4 = 17. Anna's 13 + 4 = 17 hits; Bors ripostes.
    let orders =
        format!(r#"{ANNA_ATTACKS}, (round: 1, order: (actor: "Bors", action: "full_defense"))"#);
    let mut b = battle(&duel("", "", "5, 9, 13, 1, 12", &orders, 1));
    run(&mut b);
    assert_has(
        &b,
        "13 + 4 = 17 against Defense 17: a hit (full defense +4).",
    );
    assert_has(&b, "Bors ripostes against Anna from full defense.");
    assert_has(&b, "Bors ripostes at Anna with the longsword: 12 + 3 = 15");
}

#[test]
fn entering_a_threat_range_provokes_a_riposte_unless_attacking_defensively() {
    let far = |action: &str| {
        let orders = format!(
            r#"(round: 1, order: (actor: "Anna", action: "{action}", target: "Bors", with: "longsword"))"#
        );
        duel("", "", "5, 9, 2, 2, 2, 2", &orders, 1).replace("at: (2, 1)", "at: (5, 1)")
    };
    let mut b = battle(&far("attack"));
    run(&mut b);
    assert_has(
        &b,
        "Bors ripostes against Anna as it enters its threat range.",
    );
    let mut b = battle(&far("defensive_attack"));
    run(&mut b);
    assert!(!has(&b, "ripostes"), "{}", texts(&b).join("\n"));
    assert_has(&b, "Anna attacks Bors with the longsword");
}

#[test]
fn one_paralysed_or_with_its_main_arm_useless_has_no_threat_range() {
    // Ruling injury_effects: paralysed, or with the main arm broken, a
    // creature "can neither attack nor riposte"; ruling riposte's threat
    // range is "the cells its melee weapon reaches". Anna walks up to such a
    // Bors: she enters no threat range, and no riposte is said or made.
    for hurt in [
        declared::Hurts {
            paralysed: true,
            ..Default::default()
        },
        declared::Hurts {
            main_arm_useless: true,
            ..Default::default()
        },
    ] {
        let orders = r#"(round: 1, order: (actor: "Anna", action: "attack", target: "Bors", with: "longsword"))"#;
        let text = duel("", "", "5, 9, 2, 2, 2, 2", orders, 1).replace("at: (2, 1)", "at: (5, 1)");
        let mut b = battle(&text);
        let bors = entity(&mut b, "Bors");
        b.world_mut().entity_mut(bors).insert(hurt);
        run(&mut b);
        assert_lacks(&b, "threat range");
        assert_lacks(&b, "ripostes");
        assert_has(&b, "Anna attacks Bors with the longsword");
    }
}

#[test]
fn one_in_full_defense_ripostes_back_at_a_riposte() {
    // 004 §Step 3: in full defense, "if they are attacked they may make a
    // Reposte". Anna walks (half Speed) into Bors's reach and he ripostes
    // (3 + 3, a miss); the riposte is an attack on her, and she ripostes
    // back (12 + 4 = 16 against 13).
    let orders = r#"(round: 1, order: (actor: "Anna", action: "full_defense", cell: (3, 1)))"#;
    let text = duel("", "", "5, 9, 3, 12, 3", orders, 1).replace("at: (2, 1)", "at: (4, 1)");
    let mut b = battle(&text);
    run(&mut b);
    assert_has(
        &b,
        "Bors ripostes against Anna as it enters its threat range.",
    );
    assert_has(&b, "Anna ripostes against Bors from full defense.");
    assert_has(&b, "Anna ripostes at Bors with the longsword: 12 + 4 = 16");
}

#[test]
fn a_javelin_thrown_already_is_not_thrown_again() {
    // 004 §Step 3 "throw an item": a javelin thrown is gone. Bors declares
    // a throw and his one javelin is gone before his count (as when a late
    // arrival's earlier action threw it, 004 §Step 2): he finds none.
    let orders =
        r#"(round: 1, order: (actor: "Bors", action: "throw", target: "Anna", with: "javelin"))"#;
    let text = duel(
        "",
        r#", weapons: ["longsword", "javelin"]"#,
        "5, 9, 2, 2",
        orders,
        1,
    );
    let mut b = battle(&text);
    while !has(&b, "Bors declares: throw") {
        assert!(b.advance().is_none(), "{}", texts(&b).join("\n"));
    }
    let bors = entity(&mut b, "Bors");
    b.world_mut()
        .get_mut::<declared::Kit>(bors)
        .unwrap()
        .weapons
        .retain(|w| w != "javelin");
    run(&mut b);
    assert_has(&b, "Bors has no javelin left: it was used already.");
    assert_lacks(&b, "Bors throws at Anna");
}

#[test]
fn an_arm_broken_by_a_riposte_on_the_way_stops_the_attack() {
    // 004 §Combat Injuries: Bors's riposte as Anna walks up is a critical
    // (a natural 20) whose Broken Upper Arm (d20 9) lands in her main arm
    // (d4 1): she "can't attack with that arm", there and then.
    let text = duel("", "", "7, 11, 20, 1, 1, 9, 1, 1, 15, 5", ANNA_ATTACKS, 1)
        .replace("at: (2, 1)", "at: (4, 1)");
    let mut b = battle(&text);
    run(&mut b);
    assert_has(&b, "The Broken Upper Arm is in Anna's main arm");
    assert_has(
        &b,
        "Anna does not act as declared: its weapon arm is broken: it can't attack with that arm.",
    );
    assert_lacks(&b, "Anna attacks Bors");
}

#[test]
fn a_natural_one_always_misses() {
    let mut b = battle(&duel(
        r#", set: {"attack": 30}"#,
        "",
        "5, 9, 1",
        ANNA_ATTACKS,
        1,
    ));
    run(&mut b);
    assert_has(&b, "1 + 30 = 31 against Defense 13: a natural 1 misses.");
}

#[test]
fn outnumbered_monsters_check_morale_and_rout_on_failure() {
    // Bors is a monster alone against two: outnumbered. 3d6 (2, 2, 2) + 0 Insight + 2 HD
    // + 0 allies = 8 against 11 + 2 = 13: fails and routs.
    let text = duel("", "", "5, 9, 7, 2, 2, 2", "", 1)
        .replace(
            r#"(name: "B", seat: Script)"#,
            r#"(name: "B", seat: Script, morale: true)"#,
        )
        .replace(
            r#"(name: "Bors""#,
            r#"(name: "Dain", side: "A", template: "sellsword", at: (1, 3)),
        (name: "Bors""#,
        );
    let mut b = battle(&text);
    let r = run(&mut b);
    assert_has(
        &b,
        "Bors checks morale (is outnumbered 2 to 1): 6 + 0 Insight + 2 HD + 0 allies = 8 against 13 (11 + 2 opponents): fails.",
    );
    assert_has(&b, "Bors breaks and flees; it no longer fights.");
    assert_has(
        &b,
        "Combat ends after 1 round: the only side still fighting is A, the winner. B: 1 routed.",
    );
    assert_eq!(r, BattleResult::Victory { side: 0, rounds: 1 });
}

#[test]
fn a_monster_felled_by_a_hit_still_checks_morale() {
    // 004 §Step 4 spares no monster: Bors, felled to 0 Wound Points by a
    // critical of 13 (a_critical_hit_multiplies_and_bypasses_stress), took
    // more than half his 13 in a single hit. 3d6 (1, 1, 1) + 0 Insight + 2
    // HD + 1 ally (Cato) = 6 against 11 + 1 opponent: he routs, and crawls
    // off his 1 cell a round (ruling grid_scale) rather than strike again.
    let text = duel("", "", "5, 9, 9, 20, 5, 14, 1, 1, 1", ANNA_ATTACKS, 2)
        .replace(
            r#"(name: "B", seat: Script)"#,
            r#"(name: "B", seat: Script, morale: true)"#,
        )
        .replace(r#"(name: "Bors""#, BYSTANDER);
    let mut b = battle(&text);
    let _ = b.run();
    assert_has(&b, "Bors is Incapacitated (0 Wound Points)");
    assert_has(
        &b,
        "Bors checks morale (took 13 Wound Points in a single hit, more than half its 13): 3 + 0 Insight + 2 HD + 1 allies = 6 against 12 (11 + 1 opponents): fails.",
    );
    assert_has(&b, "Bors breaks and flees; it no longer fights.");
    assert_has(&b, "Bors declares: flee.");
    assert_has(&b, "Bors crawls from (2, 1) to");
}

#[test]
fn an_obvious_defeat_fails_morale_outright() {
    // Three against one: ruling obvious_defeat.
    let text = duel("", "", "5, 9, 7, 7", "", 1)
        .replace(
            r#"(name: "B", seat: Script)"#,
            r#"(name: "B", seat: Script, morale: true)"#,
        )
        .replace(
            r#"(name: "Bors""#,
            r#"(name: "Dain", side: "A", template: "sellsword", at: (1, 3)),
        (name: "Edda", side: "A", template: "sellsword", at: (1, 4)),
        (name: "Bors""#,
        );
    let mut b = battle(&text);
    run(&mut b);
    assert_has(
        &b,
        "facing 3 with 1 on its side, the outcome is obvious and it fails.",
    );
}

#[test]
fn an_illegal_order_is_refused_and_changes_nothing() {
    // Anna's longsword is no thrown weapon; the order is refused with the
    // reason, and she declares again. (An order naming a weapon she does
    // not carry is refused when the scenario loads.)
    let orders =
        r#"(round: 1, order: (actor: "Anna", action: "throw", target: "Bors", with: "longsword"))"#;
    let mut b = battle(&duel("", "", "5, 9", orders, 1));
    run(&mut b);
    assert_has(
        &b,
        "Anna's order \"throw\" is refused: the longsword is not a thrown weapon (ruling thrown_items).",
    );
    assert_has(&b, "Anna declares: wait.");
}

#[test]
fn every_ruling_cited_in_the_code_is_in_the_data() {
    let d = data();
    let sources = [
        include_str!("../src/declared/mod.rs"),
        include_str!("../src/declared/start.rs"),
        include_str!("../src/declared/declare.rs"),
        include_str!("../src/declared/resolve.rs"),
        include_str!("../src/declared/arrivals.rs"),
        include_str!("../src/declared/end_round.rs"),
        include_str!("../src/declared/ai.rs"),
        include_str!("../src/declared/view.rs"),
    ];
    for src in sources {
        for (i, _) in src.match_indices("ruling ") {
            let id: String = src[i + 7..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            if id.len() > 3 && src[i + 7..].starts_with(&id) && src[..i].ends_with(['"', ' ', '`'])
            {
                if ["named", "ruling", "for"].contains(&id.as_str()) {
                    continue;
                }
                assert!(
                    d.rulings.iter().any(|r| r.id == id),
                    "ruling {id:?} is cited but not in declared.ron"
                );
            }
        }
    }
}

#[test]
fn an_attacker_whose_target_fell_turns_on_the_nearest_enemy() {
    // Ruling retarget: Cato (initiative 1 + 2 = 3) kills Bors before Anna (9 + 2 = 11) acts.
    let text = field(
        1,
        r#"(name: "Anna", side: "A", template: "knight", at: (1, 1)),
        (name: "Cato", side: "A", template: "knight", at: (3, 2)),
        (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (2, 1), set: {"stress": 0, "strength": 1}),
        (name: "Dain", side: "B", template: "hobgoblin_warrior", at: (1, 2)),"#,
        "9, 1, 9, 9, 15, 5, 15, 5",
        r#"(round: 1, order: (actor: "Anna", action: "attack", target: "Bors", with: "longsword")),
        (round: 1, order: (actor: "Cato", action: "attack", target: "Bors", with: "longsword")),"#,
    );
    let mut b = battle(&text);
    run(&mut b);
    assert_has(
        &b,
        "Bors dies (-5 Wound Points reaches minus its Strength of 1).",
    );
    assert_has(&b, "Bors is gone; Anna turns on Dain instead.");
    assert_has(
        &b,
        "Anna attacks Dain with the longsword: 15 + 4 = 19 against Defense 13: a hit.",
    );
    assert_eq!(wounds(&mut b, "Dain").0, 11 - 6);
}

#[test]
fn every_citation_is_a_ruling_or_a_mapped_paragraph() {
    let d = data();
    let sources = [
        include_str!("../src/declared/mod.rs"),
        include_str!("../src/declared/start.rs"),
        include_str!("../src/declared/arrivals.rs"),
        include_str!("../src/declared/declare.rs"),
        include_str!("../src/declared/resolve.rs"),
        include_str!("../src/declared/end_round.rs"),
        include_str!("../src/declared/ai.rs"),
        include_str!("../src/declared/view.rs"),
    ];
    common::assert_citations(&sources, "004", &d.rulings, &d.paragraphs, "declared.ron");
}

/// Anna (a knight, Speed 5) at (1, 1) and the monster Bors (a hobgoblin
/// warrior) at `bors` on a field 16 cells wide; Anna intimidates Bors in
/// round 1 with the forced `dice`.
fn intimidation_from_afar(bors: (i32, i32), dice: &str) -> String {
    format!(
        r#"(
    name: "test", ruleset: "declared", round_cap: 1,
    grid: (kind: Square, width: 16, height: 3),
    options: {{"declaration": "round_robin"}},
    sides: [(name: "A", seat: Script), (name: "B", seat: Script, morale: true)],
    combatants: [
        (name: "Anna", side: "A", template: "knight", at: (1, 1)),
        (name: "Bors", side: "B", template: "hobgoblin_warrior", at: {bors:?}),
    ],
    dice: [{dice}],
    orders: [(round: 1, order: (actor: "Anna", action: "intimidate", target: "Bors"))],
)"#
    )
}

#[test]
fn an_intimidation_reaches_only_six_cells() {
    // Ruling intimidate_action: "against one enemy within 6 cells". Bors is
    // 13 cells away; Anna's Speed of 5 brings her to 8 cells: too far, so
    // she rolls nothing and Bors has no Intimidation to check morale against.
    let mut b = battle(&intimidation_from_afar((14, 1), "5, 8, 6"));
    let _ = b.run();
    assert_has(&b, "Anna moves 5 cells from (1, 1) to (6, 1).");
    assert_has(
        &b,
        "Anna is too far from Bors to intimidate it (8 cells away, range 6).",
    );
    let line = common::line(&b, "too far from Bors");
    let entry = &b.world().resource::<BattleLog>().entries()[line];
    assert_eq!(entry.rule, "ruling intimidate_action");
    assert!(!has(&b, "tries to intimidate"), "{}", texts(&b).join("\n"));
    assert!(!has(&b, "checks morale"), "{}", texts(&b).join("\n"));
    let bors = entity(&mut b, "Bors");
    let rs = b.world().get::<declared::RoundState>(bors).unwrap();
    assert_eq!(rs.intimidated, None);

    // 11 cells away, the same move ends 6 cells away: within reach.
    let mut b = battle(&intimidation_from_afar((12, 1), "5, 8, 6, 4, 2, 1"));
    let _ = b.run();
    assert_has(&b, "Anna moves 5 cells from (1, 1) to (6, 1).");
    assert_has(&b, "Anna tries to intimidate Bors: 6 + 3 = 9;");
    assert!(!has(&b, "too far from Bors"), "{}", texts(&b).join("\n"));
}

#[test]
fn an_intimidator_dropped_on_its_way_intimidates_no_one() {
    // Anna must step 1 cell to come within 6 of Bors; the step enters Cato's
    // threat range, and his riposte drops her. Dropped, she does not go on
    // to intimidate, though Bors is within range of where she fell.
    let text = intimidation_from_afar((8, 1), "5, 8, 9, 15, 5")
        .replace(
            r#"template: "knight", at: (1, 1))"#,
            r#"template: "knight", at: (1, 1), set: {"stress": 0, "strength": 3})"#,
        )
        .replace(
            "combatants: [",
            r#"combatants: [
        (name: "Cato", side: "B", template: "hobgoblin_warrior", at: (3, 2)),"#,
        );
    let mut b = battle(&text);
    let _ = b.run();
    assert_has(
        &b,
        "Anna moves 1 cell from (1, 1) to (2, 1), into the threat range of Cato.",
    );
    assert_has(
        &b,
        "Cato ripostes at Anna with the longsword: 15 + 3 = 18 against Defense 14: a hit.",
    );
    assert_has(&b, "Anna is Dying");
    assert_has(&b, "Anna is stopped at (2, 1).");
    assert!(!has(&b, "tries to intimidate"), "{}", texts(&b).join("\n"));
}

#[test]
fn a_late_arrival_acting_twice_moves_only_its_speed_in_the_round() {
    // 004 §Speed: "can only move up to a total distance equal to its speed in
    // a single round". The ghoul (Speed 6) arrives after the round's counts
    // and declares a move 3 cells west: late, it makes it in round 2 at
    // 8 − 12 = −4. At its own count 8 it attacks Anna: only 3 cells are left
    // of its Speed, and it stops 7 cells short. In round 3 it has its whole
    // Speed again, closes 6 cells and attacks (a natural 1).
    let text = r#"(
    name: "test", ruleset: "declared", round_cap: 3,
    grid: (kind: Square, width: 16, height: 8),
    options: {"declaration": "round_robin"},
    sides: [(name: "A", seat: Script), (name: "B", seat: Script)],
    combatants: [
        (name: "Anna", side: "A", template: "knight", at: (1, 1)),
        (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (14, 7)),
    ],
    arrivals: [
        (round: 1, after: 13, combatant: (name: "Ghoul", side: "B", template: "ghoul", at: (14, 1))),
    ],
    dice: [5, 9, 8, 1],
    orders: [
        (round: 1, order: (actor: "Ghoul", action: "defensive_attack", cell: (11, 1))),
        (round: 2, order: (actor: "Ghoul", action: "attack", target: "Anna", with: "claws")),
        (round: 3, order: (actor: "Ghoul", action: "defensive_attack", target: "Anna", with: "claws")),
    ],
)"#;
    let mut b = battle(text);
    let _ = b.run();
    assert_has(
        &b,
        "Ghoul's initiative 9 has already passed (the round is on 13): it acts next round at 9 − 12 = -3, as well as at its own count.",
    );
    let round = |b: &Battle, r: u32| -> Vec<String> {
        b.world()
            .resource::<BattleLog>()
            .entries()
            .iter()
            .filter(|e| e.round == r && e.actor.as_deref() == Some("Ghoul"))
            .map(|e| format!("{}: {}", e.time, e.text))
            .collect()
    };
    let round2 = round(&b, 2);
    assert_eq!(
        round2[1..],
        [
            "initiative -3: Ghoul acts on its late count.",
            "initiative -3: Ghoul moves 3 cells from (14, 1) to (11, 1).",
            "initiative 8: Ghoul moves 3 cells from (11, 1) to (8, 1).",
            "initiative 8: Ghoul can move no farther this round: it has moved 6 of the 6 cells its Speed allows.",
            "initiative 8: Ghoul cannot reach Anna this round (7 cells away, reach 1).",
        ],
        "{}",
        round2.join("\n")
    );
    let line = common::line(&b, "Ghoul can move no farther");
    let entry = &b.world().resource::<BattleLog>().entries()[line];
    assert_eq!(entry.rule, "004 §Speed");
    let round3 = round(&b, 3);
    assert!(
        round3.contains(&"initiative 9: Ghoul moves 6 cells from (8, 1) to (2, 1).".to_string()),
        "{}",
        round3.join("\n")
    );
    assert_eq!(common::count(&b, "Ghoul can move no farther"), 1);
    assert_has(
        &b,
        "Ghoul attacks Anna with the claws: 1 + 3 = 4 against Defense 14: a natural 1 misses.",
    );
}

#[test]
fn a_stabilised_creature_hurt_again_stays_stabilised_and_does_not_bleed() {
    // Ruling stabilised_hit_again: "It stays stabilised: the new wound lowers
    // its Wound Points (and kills it at minus its Strength) but does not
    // reopen the bleeding." Bors (Strength 6, no Stress) is hit for 7 + 2 − 1
    // = 8: -2, Dying, and bleeds to -3 at the end of round 1. Cato stabilises
    // him in round 2 (13 + 5 = 18 against 10 + 8). In round 3 Anna hits him
    // for 1 + 2 − 1 = 2: -5, still stabilised, no bleed. In round 4 another 2
    // takes him to -7, past minus his Strength: dead.
    let attack = |round: u32| {
        format!(
            r#"(round: {round}, order: (actor: "Anna", action: "attack", target: "Bors", with: "longsword"))"#
        )
    };
    let text = field(
        4,
        r#"(name: "Anna", side: "A", template: "knight", at: (1, 1)),
        (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (2, 1), set: {"stress": 0, "strength": 6}),
        (name: "Cato", side: "B", template: "priest", at: (3, 1)),"#,
        "5, 9, 9, 15, 7, 13, 15, 1, 15, 1",
        &format!(
            r#"{}, (round: 2, order: (actor: "Cato", action: "stabilise", target: "Bors")), {}, {}"#,
            attack(1),
            attack(3),
            attack(4)
        ),
    );
    let mut b = battle(&text);
    let _ = b.run();
    assert_has(
        &b,
        "Cato tends Bors: Heal 13 + 5 = 18 against TN 10 + 8 (worst wound) = 18: Bors is stabilised.",
    );
    let round3 = b
        .world()
        .resource::<BattleLog>()
        .entries()
        .iter()
        .filter(|e| e.round == 3 && e.text.starts_with("Bors takes"))
        .map(|e| e.text.clone())
        .collect::<Vec<_>>();
    assert_eq!(
        round3,
        [
            "Bors takes 2 damage, Stress first, the rest to Wound Points: 0 Stress, 2 Wound Points (Stress 0/0, Wound Points -5/6)."
        ]
    );
    // Bleeding only in round 1, before the stabilising; none after round 3's wound.
    let bleeds: Vec<u32> = b
        .world()
        .resource::<BattleLog>()
        .entries()
        .iter()
        .filter(|e| e.text == "Bors is dying and loses 1 Wound Point.")
        .map(|e| e.round)
        .collect();
    assert_eq!(bleeds, [1]);
    assert_has(
        &b,
        "Bors dies (-7 Wound Points reaches minus its Strength of 6).",
    );
}

#[test]
fn only_the_sides_marked_for_morale_check_it() {
    // Ruling morale_sides: "The creatures of the sides a scenario marks
    // `morale: true` are monsters and check morale; the others are player
    // characters and never do." Bors stands alone against Anna and Dain:
    // outnumbered 2 to 1 at the end of round 1.
    let text = |marked: &str| {
        field(
            1,
            r#"(name: "Anna", side: "A", template: "knight", at: (1, 1)),
        (name: "Dain", side: "A", template: "sellsword", at: (1, 3)),
        (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (6, 1)),"#,
            "5, 9, 7, 2, 2, 2",
            "",
        )
        .replace(
            &format!(r#"(name: "{marked}", seat: Script)"#),
            &format!(r#"(name: "{marked}", seat: Script, morale: true)"#),
        )
    };
    // Side B marked: Bors is a monster and checks.
    let mut b = battle(&text("B"));
    let _ = b.run();
    assert_has(
        &b,
        "Bors checks morale (is outnumbered 2 to 1): 6 + 0 Insight + 2 HD + 0 allies = 8 against 13 (11 + 2 opponents): fails.",
    );
    // Only side A marked: Bors is outnumbered just the same but never checks.
    let mut b = battle(&text("A"));
    let _ = b.run();
    common::assert_lacks(&b, "morale");
    let (anna, bors) = (entity(&mut b, "Anna"), entity(&mut b, "Bors"));
    assert!(b.world().get::<declared::Monster>(anna).is_some());
    assert!(b.world().get::<declared::Monster>(bors).is_none());
    assert!(b.world().get::<declared::Routed>(bors).is_none());
    assert!(b.world().get::<fray_core::model::Fighting>(bors).is_some());
}

#[test]
fn morale_counts_are_taken_before_any_of_the_rounds_routs() {
    // Ruling morale_counts: "Allies and opponents are counted once, as the
    // round ends, before any of that round's routs; every check is made
    // against those counts." Bors and Cato face three: each is outnumbered
    // 3 to 2. Bors checks first and routs; Cato still counts him as an ally
    // (3 to 2, 1 ally), not 3 to 1, which would be an obvious defeat.
    let text = field(
        1,
        r#"(name: "Anna", side: "A", template: "knight", at: (1, 1)),
        (name: "Dain", side: "A", template: "sellsword", at: (1, 3)),
        (name: "Edda", side: "A", template: "sellsword", at: (1, 5)),
        (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (6, 1)),
        (name: "Cato", side: "B", template: "hobgoblin_warrior", at: (6, 3)),"#,
        "5, 5, 5, 5, 5, 2, 2, 2, 6, 6, 6",
        "",
    )
    .replace(
        r#"(name: "B", seat: Script)"#,
        r#"(name: "B", seat: Script, morale: true)"#,
    );
    let mut b = battle(&text);
    let _ = b.run();
    let morale: Vec<String> = texts(&b)
        .into_iter()
        .filter(|t| t.contains("morale") || t.contains("flees"))
        .collect();
    assert_eq!(
        morale,
        [
            "Bors checks morale (is outnumbered 3 to 2): 6 + 0 Insight + 2 HD + 1 allies = 9 against 14 (11 + 3 opponents): fails.",
            "Bors breaks and flees; it no longer fights.",
            "Cato checks morale (is outnumbered 3 to 2): 18 + 0 Insight + 2 HD + 1 allies = 21 against 14 (11 + 3 opponents): holds.",
        ]
    );
    let cato = entity(&mut b, "Cato");
    assert!(b.world().get::<declared::Routed>(cato).is_none());
}

#[test]
fn a_monster_down_does_not_count_itself_against_the_opponents() {
    // 004 §Step 4 Outnumbered. Cato is down (0 Wound Points); Bors still
    // fights against Anna and Dain. Cato's side is Bors alone: outnumbered
    // 2 to 1, he checks, as Bors does.
    let text = field(
        1,
        r#"(name: "Anna", side: "A", template: "knight", at: (1, 1)),
        (name: "Dain", side: "A", template: "sellsword", at: (1, 3)),
        (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (6, 1)),
        (name: "Cato", side: "B", template: "hobgoblin_warrior", at: (6, 3)),"#,
        "5, 5, 5, 5, 6, 6, 6",
        "",
    )
    .replace(
        r#"(name: "B", seat: Script)"#,
        r#"(name: "B", seat: Script, morale: true)"#,
    );
    let mut b = battle(&text);
    let cato = entity(&mut b, "Cato");
    fell(&mut b, cato);
    b.world_mut()
        .entity_mut(cato)
        .remove::<fray_core::model::Fighting>();
    let _ = b.run();
    let morale: Vec<String> = texts(&b)
        .into_iter()
        .filter(|t| t.contains("checks morale"))
        .collect();
    assert!(
        morale.iter().any(|m| m.starts_with(
            "Cato checks morale (is outnumbered 2 to 1): 7 + 0 Insight + 2 HD + 1 allies"
        )),
        "{morale:?}"
    );
}

#[test]
fn strength_damage_brings_death_nearer_but_leaves_maximum_wound_points() {
    // Ruling injuries_and_wound_points: "Maximum Wound Points stay as they
    // were when the battle began; the point of death (minus Strength) uses
    // Strength less the damage, never below 1." Bors (Strength 10, no
    // Stress) takes a mace critical, (1 + 1 + 2) × 2 − 1 = 7: 3 of 10 Wound
    // Points. d% 7: a Combat Injury; d20 7, a Broken Collarbone: 3d4 = 12
    // Strength damage, so his Strength for death is 10 − 12, raised to 1.
    // In round 2 a hit for 2 + 1 + 2 − 1 = 4 leaves -1: dead, not Dying, and
    // his maximum is still 10.
    let attack = |round: u32| {
        format!(
            r#"(round: {round}, order: (actor: "Anna", action: "attack", target: "Bors", with: "mace"))"#
        )
    };
    let mut b = battle(&duel(
        r#", weapons: ["mace"]"#,
        r#", set: {"stress": 0, "strength": 10}"#,
        "5, 9, 20, 1, 7, 7, 4, 4, 4, 15, 2",
        &format!("{}, {}", attack(1), attack(2)),
        2,
    ));
    let r = run(&mut b);
    assert_has(
        &b,
        "Bors suffers a Combat Injury: Broken Collarbone — 3d4 Strength damage",
    );
    assert_has(
        &b,
        "Bors takes 12 Strength damage from the Broken Collarbone: damage falls 1 for every 2 points, and it dies sooner.",
    );
    assert_has(
        &b,
        "Bors takes 4 damage, Stress first, the rest to Wound Points: 0 Stress, 4 Wound Points (Stress 0/0, Wound Points -1/10).",
    );
    assert_has(
        &b,
        "Bors dies (-1 Wound Points reaches minus its Strength of 1).",
    );
    let bors = entity(&mut b, "Bors");
    assert_eq!(b.world().get::<WoundPoints>(bors).unwrap().max, 10);
    assert_eq!(r, BattleResult::Victory { side: 0, rounds: 2 });
}

#[test]
fn maximum_stress_is_the_stat_blocks_number_not_a_roll_of_its_dice() {
    // Ruling stress_is_fixed: "A stat block's maximum Stress is its number,
    // never rolled; where the number and the dice's average differ, as in
    // the text's own example, the number is used." 004 §Stress's Leonin
    // 3rd-level Hunter, 5 HD and Strength +3, has "5d8+15 maximum Stress (an
    // average of 41 Stress)": 41, though 5d8+15 averages 37.5. Anna's 10 + 4
    // = 14 meets the hunter's Defense 14; 6 + 2 − 1 = 7 damage leaves 34 of 41.
    let d = data();
    let hunter = &d.templates["leonin_hunter"];
    assert_eq!((hunter.hd, hunter.strength_mod, hunter.stress), (5, 3, 41));
    let text = duel("", "", "5, 11, 10, 6", ANNA_ATTACKS, 1)
        .replace(r#""hobgoblin_warrior""#, r#""leonin_hunter""#);
    let mut b = battle(&text);
    let bors = entity(&mut b, "Bors");
    let full = *b.world().get::<Stress>(bors).unwrap();
    assert_eq!((full.current, full.max), (41, 41));
    run(&mut b);
    assert_has(
        &b,
        "Bors takes 7 damage, all of it to Stress: 7 Stress, 0 Wound Points (Stress 34/41, Wound Points 15/15).",
    );
    assert_eq!(wounds(&mut b, "Bors"), (34, 15, Health::Fine));
}

/// `e` at 0 Wound Points: Incapacitated (004 §Wound Points).
fn fell(b: &mut Battle, e: Entity) {
    b.world_mut().get_mut::<WoundPoints>(e).unwrap().current = 0;
    *b.world_mut().get_mut::<Health>(e).unwrap() = Health::Incapacitated;
}

/// Plays `text` until `needle` is in the log.
fn until(b: &mut Battle, needle: &str) {
    while !has(b, needle) {
        assert!(b.advance().is_none(), "{}", texts(b).join("\n"));
    }
}

#[test]
fn an_attack_with_a_weapon_thrown_already_finds_none() {
    // 004 §Step 3: a javelin thrown is gone, for an attack with it too.
    let orders =
        r#"(round: 1, order: (actor: "Bors", action: "attack", target: "Anna", with: "javelin"))"#;
    let text = duel("", r#", weapons: ["javelin"]"#, "5, 9, 2, 2", orders, 1);
    let mut b = battle(&text);
    until(&mut b, "Bors declares: attack");
    let bors = entity(&mut b, "Bors");
    b.world_mut()
        .get_mut::<declared::Kit>(bors)
        .unwrap()
        .weapons
        .clear();
    run(&mut b);
    assert_has(&b, "Bors has no javelin left: it was used already.");
    assert_lacks(&b, "Bors attacks Anna");
}

#[test]
fn a_throw_at_a_prone_target_gains_nothing_for_it() {
    // Ruling injury_effects: only melee attacks on the prone gain +2; Bors
    // throws his javelin at Anna, prone four cells off.
    let orders =
        r#"(round: 1, order: (actor: "Bors", action: "throw", target: "Anna", with: "javelin"))"#;
    let text = field(
        1,
        r#"(name: "Anna", side: "A", template: "knight", at: (1, 1)),
           (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (5, 1), weapons: ["longsword", "javelin"])"#,
        "5, 9, 12, 2",
        orders,
    );
    let mut b = battle(&text);
    let anna = entity(&mut b, "Anna");
    b.world_mut()
        .get_mut::<declared::Hurts>(anna)
        .unwrap()
        .prone = true;
    run(&mut b);
    assert_has(&b, "Bors throws at Anna with the javelin: 12 + 3 = 15");
    assert_lacks(&b, "prone");
}

#[test]
fn an_injury_s_part_in_an_attack_roll_is_said_and_cited() {
    // Ruling injury_effects: a melee attack on the prone gains +2; a
    // Cracked Skull concusses, -2 to attacks. Bors, concussed, strikes Anna,
    // prone beside him: each part is in the sentence, and the ruling cited.
    let orders = r#"(round: 1, order: (actor: "Bors", action: "attack", target: "Anna", with: "longsword"))"#;
    let text = duel("", "", "5, 9, 12, 2", orders, 1);
    let mut b = battle(&text);
    let (anna, bors) = (entity(&mut b, "Anna"), entity(&mut b, "Bors"));
    let w = b.world_mut();
    w.get_mut::<declared::Hurts>(anna).unwrap().prone = true;
    w.get_mut::<declared::Hurts>(bors).unwrap().concussed = true;
    run(&mut b);
    let entry = b
        .world()
        .resource::<BattleLog>()
        .entries()
        .iter()
        .find(|e| e.text.starts_with("Bors attacks Anna"))
        .cloned()
        .unwrap();
    assert_eq!(
        entry.text,
        "Bors attacks Anna with the longsword: 12 + 3 − 2 (concussed) + 2 (target prone) = 15 against Defense 14: a hit."
    );
    assert!(
        entry.rule.ends_with("· ruling injury_effects"),
        "{}",
        entry.rule
    );
}

#[test]
fn a_stabilised_creature_in_full_defense_moves_half_its_speed() {
    // 004 §Wound Points: stabilised, "half its movement speed"; 004 §Step 3:
    // full defense "up to half their speed". Each caps Anna's move (Speed 5,
    // Incapacitated) at 2 cells; together they cap it at 2 all the same
    // (ruling half_speed).
    let orders = r#"(round: 1, order: (actor: "Anna", action: "full_defense", cell: (1, 7)))"#;
    let text = field(
        1,
        r#"(name: "Anna", side: "A", template: "knight", at: (1, 1)),
           (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (7, 1))"#,
        "5, 9",
        orders,
    );
    let mut b = battle(&text);
    let anna = entity(&mut b, "Anna");
    fell(&mut b, anna);
    b.world_mut().entity_mut(anna).insert(declared::Stabilised);
    run(&mut b);
    assert_has(&b, "Anna moves 2 cells from (1, 1) to (1, 3).");
}

#[test]
fn one_stabilises_an_ally_not_itself() {
    // Ruling stabilise_action: the Heal check is made on another.
    let text = duel("", "", "5, 9", "", 1);
    let mut b = battle(&text);
    let anna = entity(&mut b, "Anna");
    fell(&mut b, anna);
    let me = Order::new("Anna", "stabilise").target("Anna");
    let why = declared::validate(b.world(), anna, &me).unwrap_err();
    assert_eq!(
        why,
        "one stabilises an ally, not itself (ruling stabilise_action)"
    );
    let offered = declared::choices(b.world(), anna);
    assert!(offered.iter().all(|c| c.order.action != "stabilise"));
}

#[test]
fn a_dying_creature_is_offered_no_full_defense_on_the_move() {
    // 004 §Wound Points: a Dying creature "cannot both move and take an
    // action": full defense where it stands, not toward a cell. Nor an
    // Incapacitated one, whose full defense costs the Wound Point that
    // leaves it Dying first (ruling strain_first).
    let text = duel("", "", "5, 9", "", 1);
    let mut b = battle(&text);
    let anna = entity(&mut b, "Anna");
    fell(&mut b, anna);
    for health in [Health::Incapacitated, Health::Dying] {
        *b.world_mut().get_mut::<Health>(anna).unwrap() = health;
        let offered = declared::choices(b.world(), anna);
        let defense: Vec<Option<Cell>> = offered
            .iter()
            .filter(|c| c.order.action == "full_defense")
            .map(|c| c.order.cell)
            .collect();
        assert_eq!(defense, [None], "{health:?}");
    }
    // Stabilised, it moves again, at half its Speed.
    b.world_mut().entity_mut(anna).insert(declared::Stabilised);
    let offered = declared::choices(b.world(), anna);
    assert!(
        offered
            .iter()
            .any(|c| c.order.action == "full_defense" && c.order.cell.is_some())
    );
}

#[test]
fn one_dying_is_refused_an_attack_beyond_its_reach_and_told_why() {
    // 004 §Wound Points: Anna, Dying, "cannot both move and take an
    // action": Bors, five cells off, is beyond her longsword from where she
    // lies. The refused choice names the weapon too.
    let text = duel("", "", "5, 9", "", 1).replace("at: (2, 1)", "at: (6, 6)");
    let mut b = battle(&text);
    let anna = entity(&mut b, "Anna");
    fell(&mut b, anna);
    *b.world_mut().get_mut::<Health>(anna).unwrap() = Health::Dying;
    let offered = declared::choices(b.world(), anna);
    let attack = offered
        .iter()
        .find(|c| c.order.action == "attack" && c.order.with.as_deref() == Some("longsword"))
        .unwrap();
    assert_eq!(attack.label, "Attack Bors with the longsword");
    assert_eq!(
        attack.refused.as_deref(),
        Some(
            "it lies where it fell and cannot both move and act: Bors is 5 cells away, reach 1 (004 §Wound Points)"
        )
    );
}

#[test]
fn a_person_may_take_full_defense_and_fall_back() {
    // 004 §Step 3: full defense moves up to half the creature's speed; a
    // person is offered it toward the cell within that farthest from foes.
    let text = duel("", "", "5, 9", "", 1);
    let mut b = battle(&text);
    let anna = entity(&mut b, "Anna");
    let offered = declared::choices(b.world(), anna);
    assert!(
        offered.iter().any(|c| c.refused.is_none()
            && c.order.action == "full_defense"
            && c.order.cell == Some(Cell::new(0, 0))
            && c.label == "Take full defense, moving toward (0, 0) (initiative -1)"),
        "{:?}",
        offered.iter().map(|c| &c.label).collect::<Vec<_>>()
    );
}

#[test]
fn a_monster_that_saw_through_is_not_intimidated_in_anothers_place() {
    // Rulings intimidate_action and retarget: Anna's Intimidation would
    // turn from Bors, fled, to the nearest monster that may still be
    // intimidated; Cato held against one already, so there is none.
    let orders = r#"(round: 1, order: (actor: "Anna", action: "intimidate", target: "Bors"))"#;
    let text = field(
        1,
        r#"(name: "Anna", side: "A", template: "knight", at: (1, 1)),
           (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (2, 1)),
           (name: "Cato", side: "B", template: "hobgoblin_warrior", at: (1, 2))"#,
        "5, 9",
        orders,
    )
    .replace(
        r#"(name: "B", seat: Script)"#,
        r#"(name: "B", seat: Script, morale: true)"#,
    );
    let mut b = battle(&text);
    until(&mut b, "Anna declares: intimidate");
    let (bors, cato) = (entity(&mut b, "Bors"), entity(&mut b, "Cato"));
    b.world_mut()
        .entity_mut(bors)
        .insert(declared::Fled)
        .remove::<fray_core::model::Fighting>();
    b.world_mut().entity_mut(cato).insert(declared::SawThrough);
    run(&mut b);
    assert_has(
        &b,
        "Bors is gone; no monster is left for Anna to intimidate.",
    );
    assert_lacks(&b, "Anna turns on Cato");
    assert_lacks(&b, "Anna tries to intimidate");
}

#[test]
fn a_broken_rib_still_moves_and_a_move_is_no_action() {
    // 004 §Step 3: one "cannot both move and take an action": moving is no
    // action, so after moving in round 1 Anna, with a Broken Rib, may
    // attack in round 2 (ruling injury_effects).
    let orders = r#"(round: 1, order: (actor: "Anna", action: "defensive_attack", cell: (1, 2))),
        (round: 2, order: (actor: "Anna", action: "attack", target: "Bors", with: "longsword"))"#;
    let text = duel(
        r#", set: {"stress": 99}"#,
        r#", set: {"stress": 99}"#,
        "9, 1",
        orders,
        2,
    );
    let mut b = battle(&text.replace(r#"(name: "Bors""#, BYSTANDER));
    let anna = entity(&mut b, "Anna");
    b.world_mut()
        .get_mut::<declared::Hurts>(anna)
        .unwrap()
        .every_other_round = true;
    let _ = b.run();
    assert_has(&b, "Anna declares: move defensively toward (1, 2)");
    assert_lacks(&b, "Broken rib");
    assert_has(&b, "Anna declares: attack Bors");
}

#[test]
fn a_throw_at_a_fallen_target_turns_on_the_nearest_enemy() {
    // Ruling retarget: Kay kills Gob first; Sal's dagger, thrown at Gob,
    // goes at Gib instead, as an attack or a spell would.
    let text = r#"(
    name: "t", ruleset: "declared", round_cap: 1,
    grid: (kind: Square, width: 10, height: 10),
    options: {"declaration": "round_robin"},
    sides: [(name: "A", seat: Script), (name: "B", seat: Script)],
    combatants: [
        (name: "Kay", side: "A", template: "knight", at: (2, 2)),
        (name: "Sal", side: "A", template: "sellsword", at: (2, 4)),
        (name: "Gob", side: "B", template: "goblin", at: (3, 2), set: {"stress": 0, "strength": 1, "defense_bonus": -10}),
        (name: "Gib", side: "B", template: "goblin", at: (5, 5)),
    ],
    dice: [1, 12, 12, 12, 15, 5, 11, 4],
    orders: [
        (round: 1, order: (actor: "Kay", action: "attack", target: "Gob", with: "longsword")),
        (round: 1, order: (actor: "Sal", action: "throw", target: "Gob", with: "dagger")),
    ],
)"#;
    let mut b = battle(text);
    let _ = b.run();
    assert_has(&b, "Gob dies");
    assert_has(&b, "Gob is gone; Sal turns on Gib instead.");
    assert_has(
        &b,
        "Sal throws at Gib with the dagger: 11 + 3 = 14 against Defense 14: a hit.",
    );
}

#[test]
fn a_late_arrivals_full_defense_halves_its_speed_for_the_round() {
    // 004 §Step 3 Full-Defense: "only move up to half their speed that
    // round". The ghoul enters late in full defense; next round its late
    // count and its own action together move 3 cells, half its Speed.
    let text = r#"(
    name: "t", ruleset: "declared", round_cap: 2,
    grid: (kind: Square, width: 20, height: 8),
    options: {"declaration": "round_robin"},
    sides: [(name: "A", seat: Script), (name: "B", seat: Script)],
    combatants: [
        (name: "Brienne", side: "A", template: "knight", at: (1, 1), set: {"agility_mod": -3}),
        (name: "Gorm", side: "B", template: "hobgoblin_warrior", at: (1, 6), set: {"agility_mod": -2}),
    ],
    arrivals: [
        (round: 1, after: 13, combatant: (name: "Ghoul", side: "B", template: "ghoul", at: (2, 4))),
    ],
    dice: [10, 9, 8],
    orders: [
        (round: 1, order: (actor: "Ghoul", action: "full_defense", cell: (19, 4))),
        (round: 2, order: (actor: "Ghoul", action: "defensive_attack", cell: (19, 4))),
    ],
)"#;
    let mut b = battle(text);
    let _ = b.run();
    assert_has(&b, "Ghoul moves 3 cells from (2, 4) to (5, 4).");
    assert_has(&b, "it has moved 3 of the 3 cells its Speed allows");
    let ghoul = entity(&mut b, "Ghoul");
    assert_eq!(*b.world().get::<Cell>(ghoul).unwrap(), Cell::new(5, 4));
}

#[test]
fn a_person_may_take_full_defense_toward_an_ally() {
    // 004 §Step 3: full defense moves anywhere within half Speed; a person
    // is offered it toward each ally not beside it, Cato here, not Bors.
    let text = field(
        1,
        r#"(name: "Anna", side: "A", template: "knight", at: (1, 1)),
           (name: "Cato", side: "A", template: "knight", at: (1, 6)),
           (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (2, 1))"#,
        "5, 9, 7",
        "",
    );
    let mut b = battle(&text);
    let anna = entity(&mut b, "Anna");
    let toward: Vec<Option<Cell>> = declared::choices(b.world(), anna)
        .into_iter()
        .filter(|c| c.refused.is_none() && c.order.action == "full_defense")
        .map(|c| c.order.cell)
        .collect();
    assert_eq!(toward, [None, Some(Cell::new(0, 0)), Some(Cell::new(1, 6))]);
    let to_cato = declared::choices(b.world(), anna)
        .into_iter()
        .find(|c| c.order.cell == Some(Cell::new(1, 6)))
        .unwrap();
    assert_eq!(
        to_cato.label,
        "Take full defense, moving toward Cato at (1, 6) (initiative -1)"
    );
}

/// Answers as `Waits` does, but the question of one felled since it
/// declared as the AI does, noting what that question offered.
struct AiStrains(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl Controller for AiStrains {
    fn decide(&mut self, world: &mut World, d: &Decision) -> Option<Order> {
        if d.rule != "004 §Wound Points" {
            return Waits.decide(world, d);
        }
        let offered = d.offer.map(|f| f(world, d.actor)).unwrap_or_default();
        let mut noted = self.0.lock().unwrap();
        noted.extend(offered.into_iter().map(|c| c.label));
        let hooks = *world.resource::<fray_core::ai::AiHooks>();
        (hooks.appraise)(world, d.actor)
            .into_iter()
            .map(|a| a.order)
            .next()
    }
}

#[test]
fn a_strain_that_would_kill_is_said_and_the_ai_lies_still() {
    // 004 §Wound Points: Anna's blow, 1d8+2 with a 6 less 1 Armour = 7,
    // takes Bors (Strength 4, no Stress) to -3, Dying. At his count the
    // Wound Point his attack would cost takes him to -4, minus his
    // Strength: the question says it would kill him, and the AI lies still.
    let noted = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let orders = format!(
        r#"{ANNA_ATTACKS}, (round: 1, order: (actor: "Bors", action: "attack", target: "Anna", with: "longsword"))"#
    );
    let text = duel(
        "",
        r#", set: {"stress": 0, "strength": 4}"#,
        "5, 9, 9, 15, 6, 9, 1",
        &orders,
        1,
    )
    .replace(r#"(name: "Bors""#, BYSTANDER);
    let mut b = scripted(&text, || Box::new(AiStrains(noted.clone())));
    let _ = b.run();
    assert_has(&b, "Bors is Dying (-3 Wound Points)");
    assert_eq!(
        noted.lock().unwrap().first().map(String::as_str),
        Some("Carry out the declared action, at 1 Wound Point, which would kill it")
    );
    assert_has(
        &b,
        "Bors lies still and does not carry out its declared action.",
    );
    assert_lacks(&b, "Bors strains itself");
}

#[test]
fn an_intimidation_does_not_steady_an_outnumbered_monster() {
    // Ruling intimidate_action: outnumbered 2 to 1, Bors must check morale
    // against 11 + 2 = 13 anyway; Anna's weak Intimidation, 6 + 3 = 9,
    // does not lower that. His 7 + 2 HD = 9 fails.
    let text = r#"(name: "Anna", side: "A", template: "knight", at: (1, 1)),
        (name: "Dara", side: "A", template: "knight", at: (1, 7)),
        (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (3, 1))"#;
    let mut b = battle(&format!(
        r#"(
    name: "test", ruleset: "declared", round_cap: 1,
    grid: (kind: Square, width: 8, height: 8),
    options: {{"declaration": "round_robin"}},
    sides: [(name: "A", seat: Script), (name: "B", seat: Script, morale: true)],
    combatants: [{text}],
    dice: [5, 7, 8, 6, 4, 2, 1],
    orders: [(round: 1, order: (actor: "Anna", action: "intimidate", target: "Bors"))],
)"#
    ));
    let _ = b.run();
    assert_has(&b, "Anna tries to intimidate Bors: 6 + 3 = 9;");
    assert_has(
        &b,
        "= 9 against 13 (11 + 2 opponents, harder than the Intimidation check of 9 (ruling intimidate_action))",
    );
}

#[test]
fn only_a_monster_is_intimidated_and_only_an_ally_mended() {
    // 004 §Step 4: only monsters check morale, so Bors, of a side that does
    // not, cannot be intimidated; mend, a healing spell, goes to oneself or
    // an ally (ruling spell_effect), not to Hob.
    let mut b = battle(&duel(
        "",
        "",
        "8, 8",
        r#"(round: 1, order: (actor: "Anna", action: "intimidate", target: "Bors"))"#,
        1,
    ));
    let _ = b.run();
    assert_has(
        &b,
        "Anna's order \"intimidate\" is refused: Bors is not a monster: only monsters check morale (004 §Step 4; ruling intimidate_action)",
    );
    // Declared in turn, so the refusal is said in the log: a secret
    // order's is said only to whoever gave it.
    let mut b = battle(
        &MEND_DROPPED
            .replace(
                r#"target: "Kay", with: "mend""#,
                r#"target: "Hob", with: "mend""#,
            )
            .replace(
                r#"seed: 1,"#,
                r#"seed: 1, options: {"declaration": "round_robin"},"#,
            ),
    );
    let _ = b.run();
    assert_has(
        &b,
        "Prior's order \"cast\" is refused: Hob is not on your side: a healing spell is cast at oneself or an ally",
    );
}

#[test]
fn a_healer_does_not_walk_to_an_ally_who_died_before_its_count() {
    // 004 §Wound Points: Cid, Dying at -3 (Strength 4, no Stress), dies to
    // Bors's blow at count 1; Anna's stabilise at her count comes too late,
    // and she stays where she stands rather than walk past Bors to a body.
    let text = field(
        1,
        r#"(name: "Anna", side: "A", template: "priest", at: (0, 6)),
           (name: "Cid", side: "A", template: "knight", at: (5, 1), set: {"stress": 0, "strength": 4}),
           (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (6, 1))"#,
        "12, 12, 1, 19, 5",
        r#"(round: 1, order: (actor: "Anna", action: "stabilise", target: "Cid")),
           (round: 1, order: (actor: "Bors", action: "attack", target: "Cid", with: "longsword"))"#,
    );
    let mut b = battle(&text);
    let cid = entity(&mut b, "Cid");
    let w = b.world_mut();
    w.get_mut::<WoundPoints>(cid).unwrap().current = -3;
    w.entity_mut(cid)
        .insert(Health::Dying)
        .remove::<fray_core::model::Fighting>();
    let _ = b.run();
    assert_has(&b, "Cid dies");
    assert_has(&b, "Cid is dead: Anna stays where it is.");
    let anna = entity(&mut b, "Anna");
    assert_eq!(b.world().get::<Cell>(anna), Some(&Cell::new(0, 6)));
}

#[test]
fn one_whose_arm_broke_as_it_fell_is_not_asked_to_pay_for_its_blow() {
    // 004 §Combat Injuries and §Wound Points: Kay's critical breaks Hob's
    // main arm and fells him (Strength 18). His declared attack cannot be
    // made, so he is not asked whether to pay a Wound Point for it.
    let noted = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    // Hob's ally far off, so the fight goes on to his count.
    let text = BROKEN_ARM
        .replace(r#""strength": 30"#, r#""strength": 18"#)
        .replace(
            r#""strength": 18}),"#,
            r#""strength": 18}), (name: "Cato", side: "Hobs", template: "hobgoblin_warrior", at: (7, 7)),"#,
        )
        .replace("dice: [1, 10, 20,", "dice: [1, 10, 2, 20,");
    let mut b = scripted(&text, || Box::new(AiStrains(noted.clone())));
    let _ = b.run();
    assert_has(&b, "The Broken Upper Arm is in Hob's main arm");
    let (_, wp, _) = wounds(&mut b, "Hob");
    assert!(wp <= 0, "Hob is felled: {wp}");
    assert_has(
        &b,
        "Hob does not act as declared: its weapon arm is broken: it can't attack with that arm.",
    );
    assert!(
        noted.lock().unwrap().is_empty(),
        "{:?}",
        noted.lock().unwrap()
    );
}

#[test]
fn healed_above_zero_the_dying_rise_and_say_so() {
    // 004 §Wound Points: Anna, Dying at -2, strains to -3 by drinking, and
    // the draught's 4 brings her to 1: she fights again.
    let mut b = anna_dying_drinks(-2, false);
    assert_has(
        &b,
        "Anna is healed to 1 Wound Points: no longer Dying, it fights again.",
    );
    assert_eq!(wounds(&mut b, "Anna").2, Health::Fine);
}

#[test]
fn one_routed_since_it_declared_a_late_full_defense_flees_at_full_speed() {
    // Ruling morale_failure: Bors, a late arrival who declared full defense
    // for the next round, broke before it came: he only flees, so the full
    // defense is not taken and its half Speed does not slow his flight.
    let mut b = battle(&duel("", "", "5, 9", "", 1));
    let bors = entity(&mut b, "Bors");
    b.world_mut().entity_mut(bors).insert((
        declared::Routed,
        declared::LateAction {
            action: declared::Action::FullDefense { toward: None },
            initiative: 3,
            fell: false,
        },
    ));
    b.world_mut()
        .entity_mut(bors)
        .remove::<fray_core::model::Fighting>();
    let _ = b.run();
    let rs = b.world().get::<declared::RoundState>(bors).unwrap();
    assert!(!rs.full_defense);
    assert_has(&b, "Bors has broken and only flees.");
}

#[test]
fn injuries_are_itemised_in_defense_and_damage() {
    // Ruling injury_effects: Bors's 4 Agility damage takes 2 off his
    // Defense, Anna's 2 Strength damage 1 off her damage; each is said
    // where it counts. 10 + 4 = 14 meets Bors's Defense 13 − 2 = 11; 1d8 6
    // + 2 Strength − 1 = 7, less 1 Armour: 6.
    let mut b = battle(&duel("", "", "5, 9, 10, 6", ANNA_ATTACKS, 1));
    let (anna, bors) = (entity(&mut b, "Anna"), entity(&mut b, "Bors"));
    b.world_mut()
        .get_mut::<declared::Hurts>(bors)
        .unwrap()
        .agility_damage = 4;
    b.world_mut()
        .get_mut::<declared::Hurts>(anna)
        .unwrap()
        .strength_damage = 2;
    let _ = b.run();
    assert_has(
        &b,
        "Anna attacks Bors with the longsword: 10 + 4 = 14 against Defense 11 (− 2 Agility damage): a hit.",
    );
    assert_has(
        &b,
        "Damage 7 (1d8 +2 Strength − 1 (Strength damage)), less 1 Armour: 6 slashing damage.",
    );
}

#[test]
fn one_down_at_its_declaration_lies_still_once_its_target_has_left_its_reach() {
    // 004 §Wound Points: Anna, Incapacitated at 0, declares an attack on
    // Bors beside her. Bors (initiative 1 + 3) walks off before her count:
    // from where she lies he is beyond her reach, so she lies still rather
    // than pay a Wound Point for nothing.
    let text = duel(
        "",
        "",
        "12, 12, 1",
        &format!(
            r#"{ANNA_ATTACKS}, (round: 1, order: (actor: "Bors", action: "defensive_attack", cell: (2, 6)))"#
        ),
        1,
    )
    .replace(
        r#"(name: "Bors""#,
        &format!(r#"(name: "Dara", side: "A", template: "knight", at: (0, 7)), {BYSTANDER}"#),
    );
    let mut b = battle(&text);
    let anna = entity(&mut b, "Anna");
    let w = b.world_mut();
    w.get_mut::<WoundPoints>(anna).unwrap().current = 0;
    w.entity_mut(anna)
        .insert(Health::Incapacitated)
        .remove::<fray_core::model::Fighting>();
    let _ = b.run();
    assert_has(&b, "Anna declares: attack Bors");
    let at = |needle: &str| {
        let lines = texts(&b);
        lines
            .iter()
            .position(|t| t.contains(needle))
            .unwrap_or_else(|| panic!("no log line contains {needle:?}:\n{}", lines.join("\n")))
    };
    let still = "Anna lies still: it lies where it fell and cannot both move and act: Bors is";
    assert!(at("Bors moves") < at(still));
    assert_lacks(&b, "Anna strains itself");
    assert_eq!(wounds(&mut b, "Anna").1, 0);
}

#[test]
fn one_a_wound_point_from_death_is_told_so_and_the_ai_drinks_no_draught() {
    // 004 §Wound Points: Anna (Strength 3) lies Dying at -2: the Wound
    // Point any action but waiting or crawling costs takes her to -3,
    // minus her Strength. Her declaration says so, and the AI does not
    // offer her the healing draught whose drinking would kill her.
    assert_eq!(
        declared_when_dying(3),
        (
            "Anna: declare an action for round 1 (Dying: it can crawl or wait; any other action costs 1 Wound Point, which would kill it)".to_string(),
            vec!["wait".to_string()]
        )
    );
    // With Strength 4 the Wound Point leaves her at -3, and the one a
    // Dying creature bleeds as the round ends at -4: dead, where lying
    // still she would see the round out at -3.
    assert_eq!(
        declared_when_dying(4),
        (
            "Anna: declare an action for round 1 (Dying: it can crawl or wait; any other action costs 1 Wound Point, which would kill it at the round's end, with the Wound Point it bleeds)".to_string(),
            vec!["wait".to_string()]
        )
    );
}

/// Anna, of Strength `strength`, Dying at -2 as round 1 begins: the prompt
/// of her declaration, and the actions the AI weighs for her.
fn declared_when_dying(strength: i32) -> (String, Vec<String>) {
    let set = format!(r#", set: {{"strength": {strength}}}"#);
    let text = duel(&set, "", "9, 2", "", 1).replace(
        r#"(name: "Bors""#,
        &format!(r#"(name: "Dara", side: "A", template: "knight", at: (0, 7)), {BYSTANDER}"#),
    );
    let mut b = common::battle(&text, &[], |side| -> Box<dyn Controller> {
        if side == 0 {
            Box::new(fray_core::decision::HumanSeat)
        } else {
            Box::new(Waits)
        }
    });
    let anna = entity(&mut b, "Anna");
    let w = b.world_mut();
    w.get_mut::<WoundPoints>(anna).unwrap().current = -2;
    w.entity_mut(anna)
        .insert(Health::Dying)
        .remove::<fray_core::model::Fighting>();
    let fray_core::battle::Progress::AwaitingHuman(ids) = b.run() else {
        panic!("nobody is asked");
    };
    let decisions = b.world().resource::<fray_core::decision::Decisions>();
    let prompt = decisions.get(ids[0]).unwrap().prompt.clone();
    let hooks = *b.world().resource::<fray_core::ai::AiHooks>();
    let orders: Vec<String> = (hooks.appraise)(b.world(), anna)
        .into_iter()
        .map(|a| a.order.action.to_string())
        .collect();
    (prompt, orders)
}

#[test]
fn the_board_shows_one_down_the_cell_it_may_crawl() {
    // 004 §Wound Points: Anna, Dying, moves at most one cell; the board
    // draws the cells a move declared now would reach, not her full Speed.
    let text = duel("", "", "9, 2", "", 1);
    let mut b = battle(&text);
    let anna = entity(&mut b, "Anna");
    let w = b.world_mut();
    w.get_mut::<WoundPoints>(anna).unwrap().current = -1;
    w.entity_mut(anna)
        .insert(Health::Dying)
        .remove::<fray_core::model::Fighting>();
    let speed = |b: &mut Battle, who: &str| {
        (declared::VIEW.tokens)(b.world())
            .into_iter()
            .find(|t| t.name == who)
            .map(|t| t.speed)
    };
    assert_eq!(speed(&mut b, "Anna"), Some(1));
    assert_eq!(speed(&mut b, "Bors"), Some(5));
}

#[test]
fn declarations_written_in_secret_are_told_in_listing_order_whoever_wrote_first() {
    // 004 §Step 3: written down in secret and revealed together. Whoever
    // wrote first, the log tells Brienne's (listed first) before Grusk's.
    let text = r#"(name: "t", ruleset: "declared", round_cap: 1,
        grid: (kind: Square, width: 8, height: 8),
        sides: [(name: "A"), (name: "B")],
        combatants: [
            (name: "Brienne", side: "A", template: "knight", at: (1, 1)),
            (name: "Grusk", side: "B", template: "hobgoblin_warrior", at: (6, 6)),
        ])"#;
    let told = |grusk_first: bool| {
        let mut b = common::battle(text, &[], |_| Box::new(common::Asks));
        let fray_core::battle::Progress::AwaitingHuman(mut ids) = b.run() else {
            panic!("nobody was asked to declare");
        };
        assert_eq!(ids.len(), 2);
        if grusk_first {
            ids.reverse();
        }
        for id in ids {
            let who = b
                .world()
                .resource::<Decisions>()
                .get(id)
                .unwrap()
                .actor_name
                .clone();
            b.answer(id, Order::new(&who, "wait"));
            b.run();
        }
        let declares = texts(&b).into_iter().filter(|t| t.contains(" declares: "));
        declares
            .map(|t| t.split(' ').next().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(told(false), ["Brienne", "Grusk"]);
    assert_eq!(told(true), ["Brienne", "Grusk"]);
}

/// Anna, stabilised at 0 Wound Points beside Bors (Cato far off), with a
/// late attack on `late` left from last round and an attack on `declared`
/// this round: two actions in one round (004 §Step 2).
fn stabilised_twice(late: &str, declared: &str) -> Battle {
    let text = field(
        1,
        r#"
        (name: "Anna", side: "A", template: "knight", at: (1, 1)),
        (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (2, 1)),
        (name: "Cato", side: "B", template: "hobgoblin_warrior", at: (7, 7)),"#,
        "5, 12, 9, 2, 2, 2, 2, 2, 2, 2, 2",
        &format!(
            r#"(round: 1, order: (actor: "Anna", action: "attack", target: "{declared}", with: "longsword"))"#
        ),
    );
    let mut b = battle(&text);
    let (anna, target) = (entity(&mut b, "Anna"), entity(&mut b, late));
    b.world_mut().entity_mut(anna).insert((
        Health::Incapacitated,
        WoundPoints {
            current: 0,
            ..WoundPoints::full(12)
        },
        declared::Stabilised,
        declared::LateAction {
            action: declared::Action::Attack {
                target,
                weapon: "longsword".into(),
                defensive: false,
            },
            initiative: -20,
            fell: false,
        },
    ));
    let _ = b.run();
    b
}

#[test]
fn a_stabilised_creature_lies_still_rather_than_pay_for_an_action_beyond_its_crawl() {
    // 004 §Wound Points: a stabilised creature "can move at half its
    // movement speed per round and can take up to 1 action without taking
    // damage"; each action beyond the first costs 1 Wound Point. Anna's late
    // attack on Cato, far off, is her first: she crawls her 2 cells toward
    // him, free, and cannot reach him. Her declared attack on Bors, now 2
    // cells away with no crawl left, would be paid for and reach nothing:
    // she lies still and pays nothing.
    let mut b = stabilised_twice("Cato", "Bors");
    assert_has(&b, "Anna cannot reach Cato this round");
    assert_has(
        &b,
        "Anna lies still: stabilised, it may crawl 0 more cells this round: Bors is 2 cells away, reach 1",
    );
    assert_lacks(&b, "Anna strains itself");
    assert_eq!(wounds(&mut b, "Anna").1, 0);
}

#[test]
fn a_stabilised_creature_pays_for_its_second_action_in_a_round() {
    // 004 §Wound Points: Anna's late attack on Bors is her first action of
    // the round, and free; her declared one is the second, and costs her
    // 1 Wound Point.
    let mut b = stabilised_twice("Bors", "Bors");
    assert_has(
        &b,
        "Anna strains itself (a stabilised creature's action beyond the first in a round) and takes 1 Wound Point.",
    );
    assert_eq!(wounds(&mut b, "Anna").1, -1);
}

#[test]
fn a_blow_of_no_damage_is_not_laid_to_armour() {
    // 004 §Armour, "Armour reduces the damage taken from each hit": Snik's
    // short sword rolls 1, less 1 for his Strength: 0. The Ghoul has no
    // Armour to turn anything: the blow simply does no damage.
    let text = field(
        1,
        r#"
        (name: "Snik", side: "A", template: "goblin", at: (3, 3)),
        (name: "Ghoul", side: "B", template: "ghoul", at: (4, 3)),"#,
        "1, 12, 15, 1",
        r#"
        (round: 1, order: (actor: "Snik", action: "attack", target: "Ghoul", with: "shortsword")),
        (round: 1, order: (actor: "Ghoul", action: "full_defense")),"#,
    );
    let mut b = battle(&text);
    let _ = b.run();
    assert_has(&b, "less 0 Armour: 0 piercing damage.");
    assert_has(&b, "The blow does Ghoul no damage.");
    assert_lacks(&b, "armour turns the blow");
    // Nor on one in armour, when the damage was 0 before it.
    let knight = text
        .replace(
            r#"(name: "Ghoul", side: "B", template: "ghoul""#,
            r#"(name: "Ghoul", side: "B", template: "knight""#,
        )
        .replace("15, 1", "19, 1");
    let mut b = battle(&knight);
    let _ = b.run();
    assert_has(&b, "less 2 Armour: 0 piercing damage.");
    assert_has(&b, "The blow does Ghoul no damage.");
    assert_lacks(&b, "armour turns the blow");
}
