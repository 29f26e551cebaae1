//! The `detailed_sequence` ruleset (rules/000) with forced dice: each test
//! pins the exact outcome of a paragraph of the text.

mod common;

use bevy_ecs::prelude::*;
use common::{Script, assert_lacks, count, line, run, texts};
use fray_core::battle::Battle;
use fray_core::data::Source;
use fray_core::decision::{Controller, Decision, Order};
use fray_core::grid::Cell;
use fray_core::log::BattleLog;
use fray_core::model::Rostered;
use fray_rules::detailed::{self, Ask, Blows, Condition, DetailedData, En, Flow, Hands};
use fray_rules::ruleset::DataFile;

/// Which question an order answers.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Q {
    Option,
    Parry,
    Noncombat,
    Trace,
    Stopped,
}

/// Which question a decision asks.
fn asked(world: &World, d: &Decision) -> Q {
    match world.resource::<Flow>().asked(d.actor).map(|a| a.1) {
        Some(Ask::Parry { .. }) => Q::Parry,
        Some(Ask::Noncombat) => Q::Noncombat,
        Some(Ask::Trace) => Q::Trace,
        Some(Ask::Stopped) => Q::Stopped,
        _ => Q::Option,
    }
}

/// A battle on a square field, `rounds` long: each order played once, at
/// the first question of its kind for its actor; otherwise everyone passes,
/// stays, and lets attacks come unparried.
fn battle(characters: &str, dice: &[u32], orders: Vec<(Q, Order)>, rounds: u32) -> Battle {
    let text = common::field("detailed_sequence", (24, 12), rounds, "", characters);
    scripted(&text, dice, orders)
}

/// The battle of scenario `text`, its orders played as [`battle`] plays them.
fn scripted(text: &str, dice: &[u32], orders: Vec<(Q, Order)>) -> Battle {
    common::battle(text, dice, |_| {
        Box::new(Script {
            orders: orders.iter().cloned().map(|(q, o)| (q, o, false)).collect(),
            asked,
            fits: |a, b| a == b,
            otherwise: |q, d| {
                Order::new(&d.actor_name, if q == Q::Trace { "stay" } else { "pass" })
            },
        })
    })
}

/// The ruleset's built-in data.
fn data() -> DetailedData {
    DetailedData::load(&Source::inline(
        "detailed_sequence.ron",
        detailed::RULESET.data,
    ))
    .unwrap()
}

fn entity(b: &Battle, name: &str) -> Entity {
    b.world().resource::<Flow>().entity(name).unwrap()
}

fn o(q: Q, actor: &str, action: &str) -> (Q, Order) {
    (q, Order::new(actor, action))
}

/// `actor`'s trace to `to`, unalert (ruling unalert_movement).
fn unalert_trace(actor: &str, (x, y): (i32, i32)) -> (Q, Order) {
    let order = Order::new(actor, "trace").cell(Cell::new(x, y));
    (Q::Trace, order.with("unalert"))
}

fn at(q: Q, actor: &str, action: &str, target: &str) -> (Q, Order) {
    (q, Order::new(actor, action).target(target))
}

#[test]
fn a_pass_may_drop_fall_and_become_alert_all_at_once() {
    // 000 §1.2.1: "The character may drop, fall and/or become alert."
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (1, 1)),
        (name: "Bo", side: "B", template: "axeman", at: (20, 10)),
    "#,
        &[],
        vec![(Q::Option, Order::new("Bo", "pass").with("drop+fall+alert"))],
        1,
    );
    run(&mut b);
    line(
        &b,
        "Bo passes, drops the battleaxe, falls to the ground, becomes alert: no blow;",
    );
    // A word that is none of the three is refused.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (1, 1)),
        (name: "Bo", side: "B", template: "axeman", at: (20, 10)),
    "#,
        &[],
        vec![(Q::Option, Order::new("Bo", "pass").with("drop+dance"))],
        1,
    );
    run(&mut b);
    line(&b, "\"dance\" is none of them");
}

#[test]
fn a_pass_drops_what_is_in_either_hand_or_both() {
    // 000 §1.2.1: "drop items held in either or both hands". Ash, with a
    // broadsword and a shield, lets the shield fall and keeps the sword.
    let chars = r#"
        (name: "Ash", side: "A", template: "swordsman", at: (1, 1)),
        (name: "Bo", side: "B", template: "axeman", at: (20, 10)),
    "#;
    let mut b = battle(
        chars,
        &[],
        vec![(
            Q::Option,
            Order::new("Ash", "pass").with("drop:shield+alert"),
        )],
        1,
    );
    run(&mut b);
    line(&b, "Ash passes, drops the shield, becomes alert: no blow;");
    let hands = b.world().get::<detailed::Hands>(entity(&b, "Ash")).unwrap();
    assert_eq!(hands.wielded, ["broadsword"]);
    // Something not in hand is refused.
    let mut b = battle(
        chars,
        &[],
        vec![(Q::Option, Order::new("Ash", "pass").with("drop:dagger"))],
        1,
    );
    run(&mut b);
    line(
        &b,
        "nothing called \"dagger\" is in hand to drop (in hand: broadsword, shield)",
    );
    // A person is offered either hand's item, and both, each with falling,
    // becoming alert, or both (000 §1.2.1: "any or all of the following"),
    // less what would change nothing: Ash is alert already.
    let text = common::field("detailed_sequence", (24, 12), 1, "", chars);
    let mut b = common::battle(&text, &[], |_| Box::new(fray_core::decision::HumanSeat));
    let _ = b.run();
    let ash = entity(&b, "Ash");
    let mut flow = b.world_mut().resource_mut::<detailed::Flow>();
    flow.open.clear();
    flow.open.push((0, ash, detailed::Ask::Option));
    let choices = detailed::orders::choices(b.world(), ash);
    for (with, label) in [
        ("drop:shield", "Pass, dropping the shield"),
        ("drop:broadsword", "Pass, dropping the broadsword"),
        ("drop", "Pass, dropping both the broadsword and the shield"),
        (
            "drop:shield+fall",
            "Pass, dropping the shield and falling to the ground",
        ),
        (
            "drop:broadsword+fall",
            "Pass, dropping the broadsword and falling to the ground",
        ),
    ] {
        let c = choices
            .iter()
            .find(|c| c.label == label)
            .unwrap_or_else(|| {
                panic!(
                    "{label}: {:#?}",
                    choices.iter().map(|c| &c.label).collect::<Vec<_>>()
                )
            });
        assert_eq!(c.order.with.as_deref(), Some(with));
        assert!(c.refused.is_none(), "{:?}", c.refused);
    }
    assert!(!choices.iter().any(|c| c.label.contains("becoming alert")));
}

#[test]
fn initiative_goes_to_most_active_then_reactive_blows_then_en_and_full_ties_declare_together() {
    // 000 §1.1.2: Ash and Bo both have 2 active blows; Bo has 2 reactive.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (1, 1)),
        (name: "Bo", side: "B", template: "axeman", at: (20, 10)),
    "#,
        &[],
        vec![],
        1,
    );
    run(&mut b);
    line(
        &b,
        "Bo has the initiative (2 active, 2 reactive, 28 EN against Ash's 2, 1, 24: more reactive blows).",
    );
    // 000 §1.1.1: both pass; nobody is eligible; the combat phase ends.
    line(
        &b,
        "Nobody is eligible for the initiative: the combat phase ends",
    );
    // 000 §1.1.3: twins tie on everything: simultaneous, secret, revealed together.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (3, 3)),
        (name: "Bo", side: "B", template: "swordsman", at: (4, 3)),
    "#,
        &[1, 2, 1, 2],
        vec![
            at(Q::Option, "Ash", "attack", "Bo"),
            at(Q::Option, "Bo", "attack", "Ash"),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "Ash and Bo tie (2 active, 1 reactive, 24 EN): simultaneous initiative; they declare their options secretly and together.",
    );
    let reveal = line(
        &b,
        "The simultaneous options are revealed — Ash: attack Bo with the broadsword; Bo: attack Ash with the broadsword.",
    );
    // Each used its broadsword in its own option: only the shield is free to
    // parry (000 §1.1.3), and the script does not parry.
    assert!(reveal < line(&b, "Ash attacks Bo with the broadsword"));
    assert!(line(&b, "Ash attacks Bo") < line(&b, "Bo attacks Ash"));
}

#[test]
fn the_first_blow_is_free_later_ones_cost_an_en_and_a_heavy_weapon_takes_a_second_blow() {
    // 000 §1 Blows and §1.2.5: Bo's battleaxe attack takes an active blow and
    // a second (from the reactive ones, ruling blow_kind): 1 EN.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (3, 3), set: {"active": 1, "reactive": 0}),
        (name: "Bo", side: "B", template: "axeman", at: (4, 3)),
    "#,
        &[1, 2],
        vec![at(Q::Option, "Bo", "attack", "Ash")],
        1,
    );
    run(&mut b);
    line(
        &b,
        "Bo attacks Ash with the battleaxe (an active blow and a second for the heavy weapon, 1 EN).",
    );
    let bo = entity(&b, "Bo");
    let blows = b.world().get::<Blows>(bo).unwrap();
    assert_eq!((blows.active, blows.reactive, blows.spent), (1, 1, 2));
    assert_eq!(b.world().get::<En>(bo).unwrap().current, 27);
}

#[test]
fn a_parrier_chooses_the_weapon_it_parries_with() {
    // 000 §1.2.5: Cy parries with the shield rather than the broadsword;
    // a spear it does not hold is refused.
    let parry = |with: &str| {
        let mut b = battle(
            r#"
        (name: "Ash", side: "A", template: "spearman", at: (3, 3), set: {"active": 3}),
        (name: "Bo", side: "B", template: "swordsman", at: (4, 3)),
        (name: "Cy", side: "B", template: "swordsman", at: (3, 4), set: {"active": 1}),
    "#,
            &[5, 5],
            vec![
                at(Q::Option, "Ash", "attack", "Bo"),
                (Q::Parry, Order::new("Cy", "parry").with(with)),
            ],
            1,
        );
        run(&mut b);
        b
    };
    let b = parry("shield");
    line(
        &b,
        "Cy parries Ash's attack on Bo with the shield (a blow, 0 EN; ruling parry).",
    );
    let b = parry("spear");
    line(
        &b,
        "the spear cannot parry now; free to parry with: broadsword, shield",
    );
}

#[test]
fn an_alert_bystander_in_range_parries_for_its_friend() {
    // 000 §1.2.5, ruling parry: Cy stands by Ash; Ash's attack on Bo... Cy
    // is Bo's friend within its weapon's reach of Ash: it parries. Hit roll
    // 10 + AC 6 - 1 (Bo's shield) - 2 (one parry) = 13, not over 16: a miss.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "spearman", at: (3, 3), set: {"active": 3}),
        (name: "Bo", side: "B", template: "swordsman", at: (4, 3)),
        (name: "Cy", side: "B", template: "swordsman", at: (3, 4), set: {"active": 1}),
    "#,
        &[5, 5],
        vec![
            at(Q::Option, "Ash", "attack", "Bo"),
            o(Q::Parry, "Cy", "parry"),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "Cy parries Ash's attack on Bo with the broadsword (a blow, 0 EN; ruling parry).",
    );
    line(&b, "Ash's hit roll on Bo: 13 against 16 to exceed: miss.");
    let e = b
        .world()
        .resource::<BattleLog>()
        .entries()
        .iter()
        .find(|e| e.text.starts_with("Ash's hit roll"))
        .unwrap()
        .clone();
    let mods: Vec<(String, i32)> = e
        .check
        .unwrap()
        .modifiers
        .into_iter()
        .map(|m| (m.name, m.value))
        .collect();
    assert_eq!(
        mods,
        [
            ("2D10".to_string(), 10),
            ("Target AC".into(), 6),
            ("Parries".into(), -2),
            ("Shield".into(), -1)
        ]
    );
}

#[test]
fn a_chain_of_preparations_on_a_spear_resolves_before_the_initiative_moves() {
    // 000 §1.2.4: two preparations and the attack, one after another: -2 to
    // hit, +2 critical, +4 damage. 2D10 18 + AC 8 - 2 = 24 > 16: a hit; D12
    // 1 - 0 + 2 = 3, not critical; 1d8 3 + 4 = 7.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "spearman", at: (3, 3), set: {"active": 3}),
        (name: "Bo", side: "B", template: "spearman", at: (5, 3), set: {"active": 1, "reactive": 0}),
    "#,
        &[9, 9, 1, 3],
        vec![
            o(Q::Option, "Ash", "prepare"),
            o(Q::Option, "Ash", "prepare"),
            at(Q::Option, "Ash", "attack", "Bo"),
        ],
        1,
    );
    run(&mut b);
    let first = line(&b, "Ash prepares a great blow with the spear (1 so far");
    let second = line(
        &b,
        "Ash prepares a great blow with the spear (2 so far: -2 to hit, +2 critical, +4 damage, x3 breakage; an active blow, 1 EN)",
    );
    let attack = line(&b, "Ash attacks Bo with the spear");
    // Nobody else had the initiative in between.
    let between = &texts(&b)[first..attack];
    assert!(
        between.iter().all(|t| !t.contains("has the initiative")),
        "{between:?}"
    );
    assert!(second < attack);
    line(&b, "Ash's hit roll on Bo: 24 against 16 to exceed: hit.");
    line(
        &b,
        "D12 1 - 0 + 2 preparations = 3 against 9: not critical.",
    );
    line(&b, "Bo takes 7 (1d8 3 + 4 for preparations): EN 15.");
    // A flail cannot be prepared.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "flailer", at: (3, 3), set: {"active": 3}),
        (name: "Bo", side: "B", template: "spearman", at: (9, 3), set: {"active": 1}),
    "#,
        &[],
        vec![o(Q::Option, "Ash", "prepare")],
        1,
    );
    run(&mut b);
    line(
        &b,
        "refused: no great blow with a flexible weapon or a shield (flail)",
    );
}

#[test]
fn a_bow_or_thrust_is_not_prepared_where_the_attack_could_not_follow() {
    // 000 §1.2.4: a bow's preparation "must be immediately followed by
    // another preparation or an attack". Ash, unalert, has one active blow:
    // none would be left for the shot. With two, the shot follows at once.
    let archer = |active: u32| {
        format!(
            r#"(name: "Ash", side: "A", template: "archer", at: (1, 3), surprised: true, set: {{"active": {active}}}),
               (name: "Bo", side: "B", template: "swordsman", at: (9, 3), set: {{"active": 1, "reactive": 0}})"#
        )
    };
    let orders = || {
        vec![
            o(Q::Option, "Ash", "prepare"),
            at(Q::Option, "Ash", "attack", "Bo"),
        ]
    };
    let mut b = battle(&archer(1), &[5, 5, 1, 1], orders(), 1);
    run(&mut b);
    line(
        &b,
        "refused: the bow's preparation must go on at once to the attack (000 §1.2.4), and the attack could not follow: no active blow left this round",
    );
    common::assert_lacks(&b, "great blow with the bow is lost");
    let mut b = battle(&archer(2), &[5, 5, 1, 1], orders(), 1);
    run(&mut b);
    let prepared = line(&b, "Ash prepares a great blow with the bow (1 so far");
    assert!(line(&b, "Ash attacks Bo with the bow") > prepared);
    // An unalert mage's dagger thrusts in melee, which only the alert do
    // (000 §1.2.5).
    let mut b = battle(
        r#"(name: "Mo", side: "A", template: "mage", at: (3, 3), surprised: true, set: {"active": 2}),
           (name: "Bo", side: "B", template: "swordsman", at: (4, 3), set: {"active": 1, "reactive": 0})"#,
        &[],
        vec![o(Q::Option, "Mo", "prepare")],
        1,
    );
    run(&mut b);
    line(
        &b,
        "refused: the dagger's preparation must go on at once to the attack (000 §1.2.4), and only an alert character attacks in melee (000 §1.2.5)",
    );
}

const DUEL: &str = r#"
    (name: "Ash", side: "A", template: "swordsman", at: (3, 3), set: {"active": 3}),
    (name: "Bo", side: "B", template: "swordsman", at: (4, 3), set: {"active": 1, "reactive": 1}),
"#;

#[test]
fn a_hit_roll_equal_to_the_number_checks_breakage_of_weapon_parry_and_then_shield() {
    // 000 §1.2.5.1.3 and §Breakage: 2D10 13 + AC 6 - 1 - 2 = 16: equal, a
    // hit. Ash's broadsword: (0 + 1 + 0) x 2 = 2, D100 50 holds; Bo's parrying
    // broadsword, D100 1, breaks; so its shield is checked: (0 + 1) x 3 = 3,
    // D100 2, breaks. Then D12 1, and 1d8+1 [4] = 5 damage.
    let mut b = battle(
        DUEL,
        &[6, 7, 50, 1, 2, 1, 4],
        vec![
            at(Q::Option, "Ash", "attack", "Bo"),
            o(Q::Parry, "Bo", "parry"),
        ],
        1,
    );
    run(&mut b);
    let equal = line(
        &b,
        "Ash's hit roll on Bo: 16 against 16 to exceed: hit, equal: breakage checks.",
    );
    // The check the window draws: 16 meets the 16 needed, a success.
    let check = b.world().resource::<BattleLog>().entries()[equal]
        .check
        .clone()
        .unwrap();
    assert_eq!((check.total, check.target, check.success), (16, 16, true));
    line(
        &b,
        "Breakage check for Ash's broadsword: D100 50 against (0 preparations + 1 +0 Strength) x 2 = 2: it holds.",
    );
    line(
        &b,
        "Breakage check for Bo's broadsword: D100 1 against (0 preparations + 1 +0 Strength) x 2 = 2: it breaks.",
    );
    line(
        &b,
        "Breakage check for Bo's shield: D100 2 against (0 preparations + 1 +0 Strength) x 3 = 3: it breaks.",
    );
    line(&b, "Bo takes 5 (1d8+1 5 + 0 for preparations): EN 19.");
    let bo = entity(&b, "Bo");
    assert!(b.world().get::<Hands>(bo).unwrap().wielded.is_empty());
}

#[test]
fn one_short_misses_and_checks_the_attacker_and_strains_each_parry() {
    // 2D10 12 + 3 = 15, one less than 16: a miss; Ash's broadsword, D100 1,
    // breaks; Bo's parry, D100 5 on the parry_strain table: it breaks.
    let mut b = battle(
        DUEL,
        &[6, 6, 1, 5],
        vec![
            at(Q::Option, "Ash", "attack", "Bo"),
            o(Q::Parry, "Bo", "parry"),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "Ash's hit roll on Bo: 15 against 16 to exceed: miss by one: breakage check.",
    );
    line(
        &b,
        "Breakage check for Ash's broadsword: D100 1 against (0 preparations + 1 +0 Strength) x 2 = 2: it breaks.",
    );
    line(
        &b,
        "Bo's parrying broadsword takes the strain: D100 5 on the parry_strain table (ruling parry_strain): the parrying weapon breaks under the blow.",
    );
    let (ash, bo) = (entity(&b, "Ash"), entity(&b, "Bo"));
    assert_eq!(b.world().get::<Hands>(ash).unwrap().wielded, ["shield"]);
    assert_eq!(b.world().get::<Hands>(bo).unwrap().wielded, ["shield"]);
    // A strong attacker's breakage number grows: ST 17 adds 2. Unparried,
    // 11 + 6 - 1 = 16, equal: the sword, (0 + 1 + 2) x 2 = 6, D100 6 breaks;
    // with no parry the shield is checked, (0 + 1 + 2) x 3 = 9: D100 50 holds.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (3, 3), set: {"st": 17}),
        (name: "Bo", side: "B", template: "swordsman", at: (4, 3), set: {"active": 1}),
    "#,
        &[5, 6, 6, 50, 1, 1],
        vec![at(Q::Option, "Ash", "attack", "Bo")],
        1,
    );
    run(&mut b);
    line(
        &b,
        "Breakage check for Ash's broadsword: D100 6 against (0 preparations + 1 +2 Strength) x 2 = 6: it breaks.",
    );
    line(
        &b,
        "Breakage check for Bo's shield: D100 50 against (0 preparations + 1 +2 Strength) x 3 = 9: it holds.",
    );
    assert_eq!(count(&b, "Breakage check"), 2);
}

#[test]
fn double_ones_fumble_and_double_tens_hit_whatever_the_numbers() {
    // 000 §1.2.5.1.1: D20 12 on the fumble table: the weapon slips.
    let mut b = battle(
        DUEL,
        &[1, 1, 12],
        vec![at(Q::Option, "Ash", "attack", "Bo")],
        1,
    );
    run(&mut b);
    line(
        &b,
        "Ash rolls double ones on the hit roll: a miss; D20 12 on the fumble table (ruling fumble): the attacker's weapon slips from its grip.",
    );
    assert_eq!(
        b.world().resource::<Flow>().ground,
        [(Cell::new(3, 3), "broadsword".to_string())]
    );
    // 000 §1.2.5.1.2: D20 15: a telling blow, critical; EN and BD both.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (3, 3)),
        (name: "Bo", side: "B", template: "swordsman", at: (4, 3), set: {"active": 1}),
    "#,
        &[10, 10, 15, 1, 7],
        vec![at(Q::Option, "Ash", "attack", "Bo")],
        1,
    );
    run(&mut b);
    line(
        &b,
        "Ash rolls double tens: a hit; D20 15 on the double_tens table (ruling double_tens): a telling blow: the hit is critical.",
    );
    // The critical roll, 0, would not be: it says why the hit is all the same.
    line(
        &b,
        "Ash's critical roll: D12 1 - 1 + 0 preparations = 0 against 10: critical all the same, as the double_tens table said (ruling double_tens).",
    );
    line(
        &b,
        "Bo takes 8 (1d8+1 8 + 0 for preparations), a critical hit, to EN and BD: EN 16, BD 6.",
    );
}

#[test]
fn an_unalert_target_is_partially_surprised_and_an_unconscious_one_fully() {
    // 000 §1.2.5.1.3: Bo unalert: 2D10 4 x 2 + AC 6 = 14 (no shield while
    // unalert): a miss; alert, it would be 4 + 6 - 1 = 9.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (3, 3)),
        (name: "Bo", side: "B", template: "swordsman", at: (4, 3), surprised: true, set: {"active": 1}),
    "#,
        &[2, 2],
        vec![at(Q::Option, "Ash", "attack", "Bo")],
        1,
    );
    run(&mut b);
    line(&b, "Ash's hit roll on Bo: 14 against 16 to exceed: miss.");
    // Unconscious and stationary: triple, and the D12 doubles (000 §1.2.5.2).
    let mut b = battle(
        DUEL,
        &[2, 2, 5, 1],
        vec![at(Q::Option, "Ash", "attack", "Bo")],
        1,
    );
    let bo = entity(&b, "Bo");
    b.world_mut().entity_mut(bo).insert(Condition::Unconscious);
    b.world_mut().get_mut::<En>(bo).unwrap().current = 0;
    run(&mut b);
    line(&b, "Ash's hit roll on Bo: 18 against 16 to exceed: hit.");
    line(
        &b,
        "D12 5 x2 - 1 + 0 preparations = 9 against 10: not critical.",
    );
}

#[test]
fn closing_makes_a_d100_dx_check_and_a_stumble_may_fell_the_character() {
    // 000 §1.2.3.1, ruling dx_checks: DX 11, so 55 or under closes by two.
    let chars = r#"
        (name: "Ash", side: "A", template: "spearman", at: (2, 3), set: {"active": 4}),
        (name: "Bo", side: "B", template: "swordsman", at: (8, 3), set: {"active": 0, "reactive": 1}),
    "#;
    let mut b = battle(
        chars,
        &[30, 60, 95, 15, 97],
        vec![
            at(Q::Option, "Ash", "close", "Bo"),
            at(Q::Option, "Ash", "close", "Bo"),
            at(Q::Option, "Ash", "close", "Bo"),
            at(Q::Option, "Ash", "close", "Bo"),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "Ash's D100 DX check: 30 against 55 (ruling dx_checks): 2 cells.",
    );
    line(&b, "Ash closes on Bo: from (2, 3) to (4, 3), range now 4");
    line(
        &b,
        "Ash's D100 DX check: 60 against 55 (ruling dx_checks): 1 cell.",
    );
    line(&b, "Ash closes on Bo: from (4, 3) to (5, 3), range now 3");
    line(
        &b,
        "Ash stumbles (a blow spent, 1 EN): the range does not change; a 1d20 DX check against falling, 15 against 11: it falls.",
    );
    // Stumbling again on the ground: no check against falling, and no rise
    // (it replaces a range change, and there is none).
    line(
        &b,
        "Ash stumbles (a blow spent, 1 EN): the range does not change, and it does not rise: it stays on the ground.",
    );
    assert!(
        b.world()
            .get::<detailed::Fallen>(entity(&b, "Ash"))
            .is_some()
    );
}

#[test]
fn only_those_who_spent_nothing_take_a_noncombat_option_and_resting_recovers_by_last_round() {
    // 000 §2.1 and §2.1.1: round 1 Ash attacks twice and steps away (2 EN:
    // blows 2 and 3 cost 1 each); round 2 it only passes and rests: the
    // lesser of its recovery 3 and 2 - 1 = 1.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (3, 3)),
        (name: "Bo", side: "B", template: "swordsman", at: (4, 3), set: {"active": 0, "reactive": 0, "en": 99}),
    "#,
        &[1, 2, 1, 2],
        vec![
            at(Q::Option, "Ash", "attack", "Bo"),
            at(Q::Option, "Ash", "attack", "Bo"),
            at(Q::Option, "Ash", "step_open", "Bo"),
            o(Q::Noncombat, "Ash", "rest"),
        ],
        2,
    );
    run(&mut b);
    let noncombat1 = line(&b, "The noncombat options are revealed — Bo: nothing.");
    let rest = line(
        &b,
        "Ash rests: the lesser of its recovery rate 3 and one less than the 2 EN spent last round: +1 EN.",
    );
    assert!(noncombat1 < rest);
    // Resting made Ash unalert.
    let ash = entity(&b, "Ash");
    assert_eq!(b.world().get::<En>(ash).unwrap().current, 23);
    assert!(!b.world().get::<detailed::Alert>(ash).unwrap().0);
}

#[test]
fn a_phase_spends_no_more_en_than_the_level_allows() {
    // Introduction: EL 1 with a D6 EN die: 3 EN a phase. Blows 2 to 4 cost
    // 1 each; the fifth would be a fourth EN.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "slinger", at: (3, 3), set: {"active": 6}),
        (name: "Bo", side: "B", template: "swordsman", at: (20, 3), set: {"active": 0, "reactive": 0}),
    "#,
        &[],
        vec![
            at(Q::Option, "Ash", "step_close", "Bo"),
            o(Q::Option, "Ash", "prepare"),
        ],
        1,
    );
    run(&mut b);
    // The sling cannot be prepared; the step needs Ash alert, which it is.
    line(
        &b,
        "refused: no great blow with a flexible weapon or a shield (sling)",
    );
    // Unalert, as one who shoots must be (000 §1.2.5), so its bow's
    // preparations can go on to a shot.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "archer", at: (1, 3), surprised: true, set: {"active": 6, "el": 1}),
        (name: "Bo", side: "B", template: "swordsman", at: (22, 3), set: {"active": 0, "reactive": 0}),
    "#,
        &[],
        vec![
            o(Q::Option, "Ash", "prepare"),
            o(Q::Option, "Ash", "prepare"),
            o(Q::Option, "Ash", "prepare"),
            o(Q::Option, "Ash", "prepare"),
            at(Q::Option, "Ash", "attack", "Bo"),
        ],
        1,
    );
    run(&mut b);
    // Preparations 1 (free) to 3 (2 EN): the bow's range grows to 12 x 4.
    line(&b, "Ash prepares a great blow with the bow (3 so far");
    line(&b, "range 48");
    // A fourth would leave the shot that must follow it (000 §1.2.4) a
    // fourth EN: refused, and the chain goes on to the shot, the third.
    line(
        &b,
        "refused: the bow's preparation must go on at once to the attack (000 §1.2.4), and the attack could not follow: the phase's EN is spent (cap 3",
    );
    line(&b, "Ash attacks Bo with the bow (an active blow, 1 EN)");
    let ash = entity(&b, "Ash");
    assert_eq!(b.world().get::<En>(ash).unwrap().current, 15);
    // Exactly the cap was spent in the combat phase.
    assert_eq!(b.world().get::<Blows>(ash).unwrap().en_round, 3);
}

#[test]
fn a_scenario_sets_the_en_die_and_with_it_the_en_a_phase_may_spend() {
    // Introduction: "EL+4 for characters with an AD6+2 per EL". The archer's
    // D6 becomes a D6+2 (`en_die: 2`): at EL 1, 5 EN a phase; its five
    // preparations and the shot cost 5 EN (the first is free), where a D6
    // allows three.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "archer", at: (1, 3), surprised: true, set: {"active": 6, "el": 1, "en_die": 2}),
        (name: "Bo", side: "B", template: "swordsman", at: (22, 3), set: {"active": 0, "reactive": 0}),
    "#,
        &[],
        (0..6)
            .map(|_| o(Q::Option, "Ash", "prepare"))
            .chain([at(Q::Option, "Ash", "attack", "Bo")])
            .collect(),
        1,
    );
    run(&mut b);
    line(&b, "Ash prepares a great blow with the bow (5 so far");
    line(&b, "Ash attacks Bo with the bow");
    let ash = entity(&b, "Ash");
    assert_eq!(b.world().get::<En>(ash).unwrap().current, 13);
    assert_eq!(b.world().get::<Blows>(ash).unwrap().en_round, 5);
    // A bonus no EN die has is refused where it is written.
    let text = common::field(
        "detailed_sequence",
        (24, 12),
        1,
        "",
        r#"(name: "Ash", side: "A", template: "archer", at: (1, 3), set: {"en_die": 3}),
        (name: "Bo", side: "B", template: "swordsman", at: (22, 3)),"#,
    );
    let scenario =
        fray_core::scenario::LoadedScenario::from_source(Source::inline("t.ron", &text)).unwrap();
    let rules = fray_rules::load("detailed_sequence", None).unwrap();
    let err = rules.check_scenario(&scenario).unwrap_err().to_string();
    assert!(
        err.contains("t.ron:") && err.contains("0 (AD6), 2 (AD6+2) or 4 (AD6+4), not 3"),
        "{err}"
    );
}

#[test]
fn a_chase_needs_movement_left_and_one_within_reach_ends_at_once() {
    // 000 §3.1: a chase costs 2 cells. Pike, alert, has 2 (half of 4): a
    // chase would leave him none, and is refused; he stays, and Sly may
    // not strike him as a mover.
    let mut b = battle(
        r#"
        (name: "Pike", side: "A", template: "spearman", at: (5, 4), set: {"move": 4}),
        (name: "Sly", side: "B", template: "archer", at: (15, 4), surprised: true),
        (name: "Mira", side: "B", template: "runner", at: (1, 1), surprised: true),
    "#,
        &[],
        vec![
            (Q::Trace, Order::new("Pike", "chase").target("Mira")),
            unalert_trace("Mira", (1, 7)),
            at(Q::Stopped, "Sly", "attack", "Pike"),
        ],
        1,
    );
    run(&mut b);
    common::assert_refused(
        &b,
        "Pike's order \"chase\" is refused: a chase costs 2 cells of movement, and it has 2: none would be left to chase with (ruling stop_options)",
    );
    common::assert_lacks(&b, "Sly attacks Pike");
    // 000 §3.2.1: those whose end point comes "after the smallest
    // fraction" end together, and §3.2.2 lets them strike only those who
    // have not. A chaser already within reach ends at once, where it
    // stands.
    let mut b = battle(
        r#"
        (name: "Pike", side: "A", template: "spearman", at: (2, 2)),
        (name: "Sly", side: "B", template: "archer", at: (15, 4), surprised: true),
        (name: "Mira", side: "B", template: "runner", at: (1, 1), surprised: true),
    "#,
        &[],
        vec![
            (Q::Trace, Order::new("Pike", "chase").target("Mira")),
            unalert_trace("Mira", (1, 7)),
            at(Q::Stopped, "Sly", "attack", "Pike"),
        ],
        1,
    );
    run(&mut b);
    common::assert_lacks(&b, "Sly attacks Pike");
    common::assert_lacks(&b, "Pike stops at (1, 2)");
}

#[test]
fn a_chase_with_no_way_to_the_chased_starting_place_is_refused() {
    // 000 §3.1: a chaser "must draw a trace to that other character's
    // starting location". Hal stands in a corner hemmed in by his friends,
    // who stay: no way to Mira's start, so no chase; he does not appear on
    // her trace.
    let mut b = battle(
        r#"
        (name: "Hal", side: "A", template: "runner", at: (0, 0)),
        (name: "Ann", side: "A", template: "runner", at: (1, 0)),
        (name: "Bo", side: "A", template: "runner", at: (0, 1)),
        (name: "Cid", side: "A", template: "runner", at: (1, 1)),
        (name: "Mira", side: "B", template: "runner", at: (5, 5), surprised: true),
    "#,
        &[],
        vec![
            (Q::Trace, Order::new("Hal", "chase").target("Mira")),
            (Q::Trace, Order::new("Mira", "trace").cell(Cell::new(10, 5))),
        ],
        1,
    );
    run(&mut b);
    common::assert_refused(
        &b,
        "Hal's order \"chase\" is refused: no way to Mira's starting place, where a chase's trace begins (000 §3.1).",
    );
    assert_eq!(
        b.world().get::<Cell>(entity(&b, "Hal")),
        Some(&Cell::new(0, 0))
    );
}

#[test]
fn one_who_stops_grabs_with_a_hand_free_or_drops_first() {
    // 000 §3.2.2: one who stops may "execute an option other than an
    // attack ... using the procedure in 1.2": a grab needs a hand free
    // (000 §1.2.1), and a drop may go before it (000 §1.2). Aldo holds
    // broadsword and shield; Run's dagger lies beside him as she runs.
    let fight = |order: Order| {
        let mut b = battle(
            r#"
            (name: "Aldo", side: "A", template: "swordsman", at: (3, 4)),
            (name: "Run", side: "B", template: "runner", at: (4, 4), starts: ["weapon_on_the_ground"]),
        "#,
            &[],
            vec![unalert_trace("Run", (10, 4)), (Q::Stopped, order)],
            1,
        );
        run(&mut b);
        b
    };
    let b = fight(
        Order::new("Aldo", "grab")
            .with("dagger")
            .cell(Cell::new(4, 4)),
    );
    line(
        &b,
        "Aldo's order \"grab\" is refused: both hands are full (broadsword and shield): drop something first (drop+grab)",
    );
    common::assert_lacks(&b, "Aldo grabs");
    let b = fight(
        Order::new("Aldo", "drop+grab")
            .with("dagger")
            .cell(Cell::new(4, 4)),
    );
    let drop = line(&b, "Aldo drops the broadsword and the shield");
    assert!(drop < line(&b, "Aldo grabs the dagger"));
    let hands = b.world().get::<Hands>(entity(&b, "Aldo")).unwrap();
    assert_eq!(hands.wielded, vec!["dagger".to_string()]);
}

#[test]
fn a_trace_onto_difficult_ground_is_as_long_as_the_movement_allows() {
    // Ruling trace_fractions: "A trace is as long as the movement allows,
    // difficult cells costing two". Ann (alert: 12 halved, 6) goes one cell,
    // onto difficult ground: 2 of her 6, so she stops at 2/6, and Bob, on
    // open ground, goes 2 of his 6 cells by then (000 §3.2.1).
    let text = common::field(
        "detailed_sequence",
        (24, 12),
        1,
        "",
        r#"
        (name: "Ann", side: "A", template: "swordsman", at: (2, 4), set: {"move": 12}),
        (name: "Bob", side: "B", template: "swordsman", at: (2, 1), set: {"move": 12}),
    "#,
    )
    .replace("height: 12)", "height: 12, difficult: [(3, 4)])");
    let mut b = scripted(
        &text,
        &[],
        vec![
            (Q::Trace, Order::new("Ann", "trace").cell(Cell::new(3, 4))),
            (Q::Trace, Order::new("Bob", "trace").cell(Cell::new(8, 1))),
        ],
    );
    run(&mut b);
    line(
        &b,
        "The traces are revealed — Ann to (3, 4) (1 cell); Bob to (8, 1) (6 cells).",
    );
    line(
        &b,
        "The traces advance by the smallest fraction, 2/6 of the first stopper's remaining trace: Ann stops at (3, 4) (the end of its trace); moving on the same fraction: Bob from (2, 1) to (4, 1).",
    );
}

#[test]
fn a_trace_that_enters_no_cell_stays_and_is_not_struck_as_a_mover() {
    // Ruling trace_fractions: Bo (alert: 2 halved, 1) traces onto difficult
    // ground, which costs two: he enters no cell. He stays, and ends his
    // movement at once (ruling stop_options), so Ash, waiting beside him
    // for a mover, has none to strike (000 §3.2.2).
    let text = common::field(
        "detailed_sequence",
        (12, 6),
        1,
        "",
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (2, 2)),
        (name: "Bo", side: "B", template: "swordsman", at: (3, 2), set: {"move": 2}),
    "#,
    )
    .replace("height: 6)", "height: 6, difficult: [(4, 2)])");
    let mut b = scripted(
        &text,
        &[],
        vec![
            (Q::Trace, Order::new("Ash", "stay").target("Bo")),
            (Q::Trace, Order::new("Bo", "trace").cell(Cell::new(4, 2))),
            at(Q::Stopped, "Ash", "attack", "Bo"),
        ],
    );
    run(&mut b);
    line(
        &b,
        "Bo stays: its movement does not reach into the first cell of its trace",
    );
    common::assert_lacks(&b, "Ash attacks Bo");
}

#[test]
fn one_lying_fallen_may_stay_and_strike_a_mover_who_comes_within_reach() {
    // Ruling fall ends the movement of one knocked down as it moves; Ash
    // lies fallen from the start and stays, waiting for Bo, who runs past
    // him: he strikes as Bo comes within reach (000 §3.2.2), as fallen.
    let text = common::field(
        "detailed_sequence",
        (12, 6),
        1,
        "",
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (2, 2), starts: ["fallen"]),
        (name: "Bo", side: "B", template: "runner", at: (9, 2), surprised: true),
    "#,
    );
    let mut b = scripted(
        &text,
        &[],
        vec![
            (Q::Trace, Order::new("Ash", "stay").target("Bo")),
            unalert_trace("Bo", (1, 3)),
            at(Q::Stopped, "Ash", "attack", "Bo"),
        ],
    );
    run(&mut b);
    common::assert_lacks(&b, "Ash is down: it ends its movement");
    line(&b, "Ash attacks Bo");
}

#[test]
fn a_stopper_whose_cell_another_mover_ends_on_stops_short_and_says_why() {
    // Ruling trace_fractions: movers never share a cell; one that would
    // stop where another mover ends stops on the last cell of its advance
    // free of them. Ann and Bob both make for (5, 5), the one cell beside
    // Cid on their way; Ann, listed first, ends there; Bob stops at (6, 4),
    // out of reach, and the log says why — not "within reach".
    let mut b = battle(
        r#"
        (name: "Ann", side: "A", template: "swordsman", at: (2, 3)),
        (name: "Bob", side: "A", template: "swordsman", at: (8, 3)),
        (name: "Cid", side: "B", template: "swordsman", at: (5, 6)),
    "#,
        &[],
        vec![
            (
                Q::Trace,
                Order::new("Ann", "trace")
                    .cell(Cell::new(5, 5))
                    .target("Cid"),
            ),
            (
                Q::Trace,
                Order::new("Bob", "trace")
                    .cell(Cell::new(5, 5))
                    .target("Cid"),
            ),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "3/3 of the first stopper's remaining trace: Ann stops at (5, 5) (within reach), Bob stops at (6, 4) (a mover ends where it would have stopped).",
    );
    common::assert_lacks(&b, "Bob stops at (6, 4) (within reach)");
}

#[test]
fn a_trace_with_no_movement_left_ends_at_once_and_is_not_offered() {
    // Ruling stop_options: those "having no movement left ... end their
    // movement before anyone moves". Aldo is alert with a movement of 1:
    // half of it is none. Making for Run at half movement is not offered;
    // given, he stays, said so, and ends at once — no waiting for Run.
    let chars = r#"
        (name: "Aldo", side: "A", template: "swordsman", at: (2, 4), set: {"move": 1}),
        (name: "Run", side: "B", template: "runner", at: (9, 4), surprised: true),
    "#;
    let mut b = battle(
        chars,
        &[],
        vec![
            (
                Q::Trace,
                Order::new("Aldo", "trace")
                    .cell(Cell::new(8, 4))
                    .target("Run"),
            ),
            (Q::Trace, Order::new("Run", "trace").cell(Cell::new(6, 4))),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "The traces are revealed — Aldo stays: no movement left for its trace; Run to (6, 4)",
    );
    common::assert_lacks(&b, "Aldo stops waiting");
    let aldo = entity(&b, "Aldo");
    let mut flow = b.world_mut().resource_mut::<Flow>();
    flow.open.clear();
    flow.open.push((0, aldo, Ask::Trace));
    let offered: Vec<String> = detailed::orders::choices(b.world(), aldo)
        .into_iter()
        .map(|c| c.label)
        .collect();
    assert!(
        offered.iter().any(|l| l.starts_with("Run at Run")),
        "{offered:?}"
    );
    assert!(
        !offered.iter().any(|l| l.starts_with("Make for")),
        "{offered:?}"
    );
}

/// Plays as [`scripted`] does, and keeps the labels of the choices a
/// person would have been offered at each question of kind `q`.
struct Offered {
    q: Q,
    script: Vec<(Q, Order)>,
    seen: std::sync::Arc<std::sync::Mutex<Vec<Vec<String>>>>,
}

impl Controller for Offered {
    fn decide(&mut self, world: &mut World, d: &Decision) -> Option<Order> {
        let q = asked(world, d);
        if q == self.q {
            let labels = detailed::orders::choices(world, d.actor);
            let labels = labels.into_iter().map(|c| c.label).collect();
            self.seen.lock().unwrap().push(labels);
        }
        let mine = |(k, o): &&(Q, Order)| *k == q && o.actor == d.actor_name;
        let order = self.script.iter().find(mine).map(|(_, o)| o.clone());
        order.or_else(|| {
            let action = if q == Q::Trace { "stay" } else { "pass" };
            Some(Order::new(&d.actor_name, action))
        })
    }
}

#[test]
fn striking_a_mover_with_a_heavy_weapon_offers_both_blows_and_their_en() {
    // Ruling borrowed_blows, 000 §1.2.5: Brand's battleaxe is heavy, so a
    // strike at Bo running past takes an active blow and a second, both
    // borrowed from the next round, and 1 EN (the first blow free).
    let text = common::field(
        "detailed_sequence",
        (12, 6),
        1,
        "",
        r#"(name: "Brand", side: "A", template: "axeman", at: (2, 2)),
           (name: "Bo", side: "B", template: "runner", at: (9, 2), surprised: true)"#,
    );
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let script = vec![
        (Q::Trace, Order::new("Brand", "stay").target("Bo")),
        unalert_trace("Bo", (1, 3)),
        (Q::Stopped, Order::new("Brand", "attack").target("Bo")),
    ];
    let kept = seen.clone();
    let mut b = common::battle(&text, &[], move |_| {
        Box::new(Offered {
            q: Q::Stopped,
            script: script.clone(),
            seen: kept.clone(),
        })
    });
    run(&mut b);
    let seen = seen.lock().unwrap();
    assert!(
        seen[0].iter().any(|l| l
            == "Strike Bo as it moves (an active blow and a second for the heavy battleaxe borrowed from the next round, 1 EN)"),
        "{seen:?}"
    );
}

#[test]
fn a_fallen_mover_rises_at_the_head_of_its_trace_and_is_struck_as_fallen_until_then() {
    // Ruling fall: a fallen character "rises first, which takes half its
    // movement": the head of its trace, spent lying where it is. Sly, who
    // stays, shoots before anyone moves, at Pike still on the ground: the
    // roll is doubled (000 §1.2.5.1.3, the target "is fallen").
    let mut b = battle(
        r#"
        (name: "Pike", side: "A", template: "spearman", at: (3, 5), starts: ["fallen"]),
        (name: "Sly", side: "B", template: "archer", at: (13, 5), surprised: true),
    "#,
        &[3, 4],
        vec![
            (Q::Trace, Order::new("Pike", "trace").cell(Cell::new(3, 2))),
            (Q::Trace, Order::new("Sly", "stay").with("unalert")),
            at(Q::Stopped, "Sly", "attack", "Pike"),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "The traces are revealed — Pike to (3, 4) (1 cell), rising first (2 cells of its movement; ruling fall); Sly stays, unalert.",
    );
    // 2D10 7, doubled, + AC 8.
    line(&b, "Sly's hit roll on Pike: 22 against 17 to exceed: hit.");
    line(
        &b,
        "Pike gets to its feet at (3, 5) and stops at (3, 4) (the end of its trace).",
    );
    assert!(
        b.world()
            .get::<detailed::Fallen>(entity(&b, "Pike"))
            .is_none()
    );
}

#[test]
fn a_trace_to_ones_own_cell_is_said_to_stay_where_it_is() {
    // 000 §3.1: Pike traces to where he stands; he has movement left, and
    // the reveal does not say he has none.
    let mut b = battle(
        r#"
        (name: "Pike", side: "A", template: "spearman", at: (3, 5)),
        (name: "Sly", side: "B", template: "archer", at: (13, 5), surprised: true),
    "#,
        &[],
        vec![
            (Q::Trace, Order::new("Pike", "trace").cell(Cell::new(3, 5))),
            (Q::Trace, Order::new("Sly", "stay").with("unalert")),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "The traces are revealed — Pike stays where it is: its trace ends where it begins; Sly stays, unalert.",
    );
}

#[test]
fn a_fallen_mover_that_goes_nowhere_is_said_to_get_up_where_it_lies() {
    // Ruling fall: Pike's trace goes nowhere; rising takes half his
    // movement, and the reveal says so without a trace of 0 cells.
    let mut b = battle(
        r#"
        (name: "Pike", side: "A", template: "spearman", at: (3, 5), starts: ["fallen"]),
        (name: "Sly", side: "B", template: "archer", at: (13, 5), surprised: true),
    "#,
        &[],
        vec![
            (Q::Trace, Order::new("Pike", "trace").cell(Cell::new(3, 5))),
            (Q::Trace, Order::new("Sly", "stay").with("unalert")),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "The traces are revealed — Pike gets up where it lies (2 cells of its movement; ruling fall) and goes no farther; Sly stays, unalert.",
    );
    line(
        &b,
        "The traces advance by the smallest fraction, 2/3 of the first stopper's remaining trace: Pike gets to its feet and stops at (3, 5) (the end of its trace).",
    );
    assert!(
        b.world()
            .get::<detailed::Fallen>(entity(&b, "Pike"))
            .is_none()
    );
}

#[test]
fn one_knocked_down_while_getting_up_ends_its_movement_where_it_lies() {
    // Ruling fall: "one knocked down as it moves ends its movement where it
    // fell". Sly's double tens, D20 19 on the double_tens table, knock Pike
    // down again before he has risen: he does not walk on.
    let mut b = battle(
        r#"
        (name: "Pike", side: "A", template: "spearman", at: (3, 5), starts: ["fallen"]),
        (name: "Sly", side: "B", template: "archer", at: (13, 5), surprised: true),
    "#,
        &[10, 10, 19, 1],
        vec![
            (Q::Trace, Order::new("Pike", "trace").cell(Cell::new(3, 2))),
            (Q::Trace, Order::new("Sly", "stay").with("unalert")),
            at(Q::Stopped, "Sly", "attack", "Pike"),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "Pike is down: it ends its movement where it fell at (3, 5).",
    );
    assert_eq!(
        count(&b, "Pike gets to its feet"),
        0,
        "{}",
        texts(&b).join("\n")
    );
    assert_eq!(
        b.world().get::<Cell>(entity(&b, "Pike")),
        Some(&Cell::new(3, 5))
    );
}

#[test]
fn an_alert_archer_chasing_closes_to_the_cell_beside_not_to_its_bows_range() {
    // 000 §1.2.5: only the unalert shoot; ruling chase: "within its
    // weapon's reach". Wren, alert with a bow in hand, chases Mira: the
    // bow's range is no reach for her, and she runs after Mira rather than
    // stopping where she stands.
    let mut b = battle(
        r#"
        (name: "Wren", side: "A", template: "archer", at: (2, 4), set: {"move": 16}),
        (name: "Mira", side: "B", template: "runner", at: (10, 4), surprised: true, set: {"move": 6}),
    "#,
        &[],
        vec![
            (Q::Trace, Order::new("Wren", "chase").target("Mira")),
            unalert_trace("Mira", (16, 4)),
        ],
        1,
    );
    run(&mut b);
    // Alert, her movement is halved: 8, less the chase's 2.
    line(
        &b,
        "The traces advance by the smallest fraction, 6/6 of the first stopper's remaining trace: Wren stops at (8, 4) (the end of its trace), Mira stops at (16, 4) (the end of its trace).",
    );
}

#[test]
fn a_chaser_stops_within_reach_after_the_smallest_fraction_and_strikes_the_mover() {
    // 000 §3.1–3.2: Mira runs 6 cells east; Hal (16 cells, unalert: ruling
    // unalert_movement lets him react all the same) chases:
    // 7 cells to her start, then her trace: 13 cells after the chase's 2, on
    // a trace of 14 (his movement). At 9/14 of it Hal is within reach; Mira
    // has moved 3 of her 6.
    // Hal becomes alert and strikes with a borrowed blow: 2D10 8 x 2
    // (she is unalert) + AC 10 = 26 > 17.
    let mut b = battle(
        r#"
        (name: "Mira", side: "A", template: "runner", at: (10, 4), surprised: true, set: {"active": 0, "reactive": 0, "move": 6}),
        (name: "Hal", side: "B", template: "runner", at: (3, 4), surprised: true, set: {"move": 16}),
    "#,
        &[4, 4, 1, 3],
        vec![
            unalert_trace("Mira", (16, 4)),
            (
                Q::Trace,
                Order::new("Hal", "chase").target("Mira").with("unalert"),
            ),
            at(Q::Stopped, "Hal", "attack", "Mira"),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "The traces are revealed — Mira to (16, 4) (6 cells), unalert; Hal chases Mira (13 cells after the 2 the chase costs), unalert (ruling unalert_movement).",
    );
    line(
        &b,
        "The traces advance by the smallest fraction, 9/14 of the first stopper's remaining trace: Hal stops at (12, 4) (within reach); moving on the same fraction: Mira from (10, 4) to (13, 4).",
    );
    line(&b, "Hal stops and becomes alert to strike.");
    line(
        &b,
        "Hal attacks Mira with the dagger (an active blow borrowed from the next round, 0 EN).",
    );
    line(&b, "Hal's hit roll on Mira: 26 against 17 to exceed: hit.");
    let strike = line(&b, "Mira takes 3");
    let last = line(&b, "Mira stops at (16, 4) (the end of its trace)");
    assert!(strike < last);
    let hal = entity(&b, "Hal");
    assert_eq!(b.world().get::<Blows>(hal).unwrap().borrowed_active, 1);
}

#[test]
fn a_chaser_of_a_chaser_follows_the_trace_it_follows() {
    // 000 §3.1: "the chasing character's trace is considered to follow that
    // of the character being chased". Cai runs 6 cells east; Bo (10 cells
    // after the chase's 2) chases Cai; Al, listed first, (14 cells) chases
    // Bo: 6 cells to Bo's start, then along Bo's trace, which follows Cai's.
    let mut b = battle(
        r#"
        (name: "Al", side: "A", template: "runner", at: (2, 4), surprised: true, set: {"move": 16}),
        (name: "Bo", side: "B", template: "runner", at: (8, 4), surprised: true, set: {"move": 12}),
        (name: "Cai", side: "A", template: "runner", at: (14, 4), surprised: true, set: {"move": 6}),
    "#,
        &[],
        vec![
            unalert_trace("Cai", (20, 4)),
            (
                Q::Trace,
                Order::new("Bo", "chase").target("Cai").with("unalert"),
            ),
            (
                Q::Trace,
                Order::new("Al", "chase").target("Bo").with("unalert"),
            ),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "The traces are revealed — Cai to (20, 4) (6 cells), unalert; Bo chases Cai (10 cells after the 2 the chase costs), unalert (ruling unalert_movement); Al chases Bo (14 cells after the 2 the chase costs), unalert (ruling unalert_movement).",
    );
    // Nobody catches up: each runs to the end of its trace, the chasers
    // passing the cells the ones ahead of them end on.
    line(
        &b,
        "The traces advance by the smallest fraction, 14/14 of the first stopper's remaining trace: Al stops at (16, 4) (the end of its trace), Bo stops at (18, 4) (the end of its trace), Cai stops at (20, 4) (the end of its trace).",
    );
}

#[test]
fn movement_is_halved_when_alert_and_after_a_noncombat_option_less_a_cell_a_blow() {
    // 000 §3: Ash, alert, 6 cells: 3; spent one blow: 2.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (3, 3), set: {"active": 2}),
        (name: "Bo", side: "B", template: "swordsman", at: (9, 3), set: {"active": 0, "reactive": 0}),
        (name: "Cy", side: "A", template: "swordsman", at: (3, 8)),
    "#,
        &[],
        vec![
            at(Q::Option, "Ash", "step_close", "Bo"),
            (Q::Trace, Order::new("Ash", "trace").cell(Cell::new(4, 0))),
            o(Q::Noncombat, "Cy", "rest"),
            (Q::Trace, Order::new("Cy", "trace").cell(Cell::new(3, 0))),
        ],
        1,
    );
    run(&mut b);
    // Cy rested: unalert now (no halving for that), but halved for the
    // noncombat option: 3 cells.
    line(
        &b,
        "The traces are revealed — Ash to (4, 1) (2 cells); Bo stays; Cy to (3, 5) (3 cells), unalert.",
    );
}

#[test]
fn every_ruling_and_paragraph_cited_is_in_the_data() {
    let data = data();
    common::assert_citations(
        &[
            include_str!("../src/detailed/mod.rs"),
            include_str!("../src/detailed/combat.rs"),
            include_str!("../src/detailed/noncombat.rs"),
            include_str!("../src/detailed/movement.rs"),
            include_str!("../src/detailed/orders.rs"),
            include_str!("../src/detailed/ai.rs"),
            include_str!("../src/detailed/view.rs"),
        ],
        "000",
        &data.rulings,
        &data.paragraphs,
        "detailed_sequence.ron",
    );
}

#[test]
fn the_target_parries_a_longer_weapon_and_tied_options_are_checked_again() {
    // Ruling parry: Bo, the target, parries Ash's spear from 2 cells with its
    // sword (only a friend needs its weapon to reach the attacker).
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "spearman", at: (3, 3), set: {"active": 3}),
        (name: "Bo", side: "B", template: "swordsman", at: (5, 3), set: {"active": 1}),
    "#,
        &[5, 5],
        vec![
            at(Q::Option, "Ash", "attack", "Bo"),
            o(Q::Parry, "Bo", "parry"),
        ],
        1,
    );
    run(&mut b);
    line(&b, "Bo parries Ash's attack on Bo with the broadsword");
    // Ruling simultaneous_order: Ash and Bo tie; Ash, listed first, steps
    // away, so Bo's attack declared with it is out of reach when its turn
    // to be carried out comes.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (3, 3)),
        (name: "Bo", side: "B", template: "swordsman", at: (4, 3)),
    "#,
        &[],
        vec![
            at(Q::Option, "Ash", "step_open", "Bo"),
            at(Q::Option, "Bo", "attack", "Ash"),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "Ash steps away from Bo: from (3, 3) to (2, 2), range now 2",
    );
    line(
        &b,
        "Bo's option (attack Ash with the broadsword) can no longer be carried out: the target is out of reach.",
    );
}

#[test]
fn one_who_does_not_move_may_strike_a_mover_before_anyone_moves() {
    // Ruling stop_options: Bo stays, so it ends its movement at once; Mira,
    // next to it, is still moving: Bo strikes (a borrowed blow). 2D10 9 x 2
    // (Mira is unalert) + AC 10 = 28 > 17.
    let mut b = battle(
        r#"
        (name: "Mira", side: "A", template: "runner", at: (5, 4), surprised: true, set: {"active": 0, "reactive": 0}),
        (name: "Bo", side: "B", template: "runner", at: (4, 4), set: {"active": 1, "reactive": 0}),
    "#,
        &[4, 5, 1, 2],
        vec![
            (Q::Trace, Order::new("Mira", "trace").cell(Cell::new(12, 4))),
            at(Q::Stopped, "Bo", "attack", "Mira"),
        ],
        1,
    );
    run(&mut b);
    let strike = line(
        &b,
        "Bo attacks Mira with the dagger (an active blow borrowed from the next round",
    );
    let moves = line(&b, "The traces advance by the smallest fraction");
    assert!(strike < moves);
    line(&b, "Bo's hit roll on Mira: 28 against 17 to exceed: hit.");
    // After a noncombat option it could not react (000 §3).
    let mut b = battle(
        r#"
        (name: "Mira", side: "A", template: "runner", at: (5, 4), surprised: true, set: {"active": 0, "reactive": 0}),
        (name: "Bo", side: "B", template: "runner", at: (4, 4), set: {"active": 1, "reactive": 0}),
    "#,
        &[],
        vec![
            o(Q::Noncombat, "Bo", "rest"),
            (Q::Trace, Order::new("Mira", "trace").cell(Cell::new(12, 4))),
            at(Q::Stopped, "Bo", "attack", "Mira"),
        ],
        1,
    );
    run(&mut b);
    assert_eq!(count(&b, "Bo attacks"), 0);
}

#[test]
fn one_waiting_for_someone_who_stays_is_no_mover_to_strike() {
    // 000 §3.2.1: Mira stays, waiting for Bo; Bo stays too. Nobody moves,
    // so both end their movement at once, and Bo has no mover to strike.
    let mut b = battle(
        r#"
        (name: "Mira", side: "A", template: "runner", at: (5, 4), set: {"active": 1, "reactive": 0}),
        (name: "Bo", side: "B", template: "runner", at: (4, 4), set: {"active": 1, "reactive": 0}),
    "#,
        &[4, 5, 1, 2],
        vec![
            at(Q::Trace, "Mira", "stay", "Bo"),
            at(Q::Stopped, "Bo", "attack", "Mira"),
        ],
        1,
    );
    run(&mut b);
    line(&b, "Mira stays, waiting for Bo");
    assert_eq!(count(&b, "Bo attacks"), 0, "{}", texts(&b).join("\n"));
    assert_eq!(count(&b, "Mira stops waiting"), 0);
}

#[test]
fn one_mended_above_0_en_comes_to_and_fights_again() {
    // Ruling unconscious: Ann lies unconscious at 0 EN; the mage's mend
    // (1d6+2 with a 4 = 6) in the noncombat phase brings her to.
    let mut b = battle(
        r#"
        (name: "Mage", side: "A", template: "mage", at: (1, 4), surprised: true),
        (name: "Ann", side: "A", template: "swordsman", at: (2, 4), starts: ["unconscious"]),
        (name: "Bob", side: "B", template: "swordsman", at: (20, 4)),
    "#,
        &[4],
        vec![(
            Q::Noncombat,
            Order::new("Mage", "cast").with("mend").target("Ann"),
        )],
        1,
    );
    run(&mut b);
    line(&b, "Ann comes to: EN 6.");
    let ann = entity(&b, "Ann");
    assert!(detailed::up(b.world(), ann));
}

#[test]
fn a_mend_past_the_most_en_one_may_have_says_what_is_lost() {
    // 000 §2.1.2, ruling spells: Ann has 20 of her 24 EN; the mage's mend
    // gives 1d6+2 [4] = 6, of which 2 go past her maximum.
    let mut b = battle(
        r#"
        (name: "Mage", side: "A", template: "mage", at: (1, 4), surprised: true),
        (name: "Ann", side: "A", template: "swordsman", at: (2, 4), set: {"en": 24}),
        (name: "Bob", side: "B", template: "swordsman", at: (20, 4)),
    "#,
        &[4],
        vec![(
            Q::Noncombat,
            Order::new("Mage", "cast").with("mend").target("Ann"),
        )],
        1,
    );
    let ann = entity(&b, "Ann");
    b.world_mut().get_mut::<En>(ann).unwrap().current = 20;
    run(&mut b);
    line(&b, "Mage casts mend on Ann (");
    line(
        &b,
        "Ann's EN cannot go past its 24: 2 of what it gained are lost; EN 24.",
    );
    assert_eq!(b.world().get::<En>(ann).unwrap().current, 24);
}

#[test]
fn one_who_stops_may_draw_a_weapon_instead_of_striking() {
    // 000 §3.2.2: "or alternatively execute an option other than an
    // attack, borrowing blows" (ruling stop_options): Bo stays and, Mira
    // moving past within reach, draws its dagger.
    let mut b = battle(
        r#"
        (name: "Mira", side: "A", template: "runner", at: (5, 4), surprised: true, set: {"active": 0, "reactive": 0}),
        (name: "Bo", side: "B", template: "swordsman", at: (4, 4), set: {"active": 1, "reactive": 0}),
    "#,
        &[4, 5, 1, 2],
        vec![
            (Q::Trace, Order::new("Mira", "trace").cell(Cell::new(12, 4))),
            (Q::Stopped, Order::new("Bo", "draw").with("dagger")),
        ],
        1,
    );
    run(&mut b);
    let draw = line(&b, "Bo draws the dagger");
    assert!(draw < line(&b, "The traces advance by the smallest fraction"));
    assert_eq!(count(&b, "Bo attacks"), 0);
}

#[test]
fn twins_who_prepare_together_each_go_on_with_their_own_chain_together() {
    // 000 §1.2.4 and §1.1.3: Ash and Bo tie and both prepare their spears.
    // Each preparation must be followed at once by its own attack: both go
    // on, together, before the initiative is decided again.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "spearman", at: (3, 3), set: {"active": 3}),
        (name: "Bo", side: "B", template: "spearman", at: (5, 3), set: {"active": 3}),
    "#,
        &[],
        vec![
            o(Q::Option, "Ash", "prepare"),
            o(Q::Option, "Bo", "prepare"),
            at(Q::Option, "Ash", "attack", "Bo"),
            at(Q::Option, "Bo", "attack", "Ash"),
        ],
        1,
    );
    run(&mut b);
    let prepared = line(
        &b,
        "The simultaneous options are revealed — Ash: prepare a great blow with the spear; Bo: prepare a great blow with the spear.",
    );
    let attacks = line(
        &b,
        "The simultaneous options are revealed — Ash: attack Bo with the spear; Bo: attack Ash with the spear.",
    );
    let between = &texts(&b)[prepared..attacks];
    assert!(
        between
            .iter()
            .all(|t| !t.contains("initiative") && !t.contains("is lost")),
        "{between:?}"
    );
}

#[test]
fn noncombat_options_take_effect_together_whatever_the_listing_order() {
    // 000 §2.2: Ash's bolt takes 2d6 [3, 3] = 6 EN from Bo, who has 5; Bo's
    // mend on itself gives back 1d6+2 [4] = 6 for 2 EN. Together Bo ends at
    // 5 - 6 + 6 - 2 = 3 EN: the bolt, listed first, does not fell it before
    // its own mend takes effect. Both start unalert (000 §2.1.2: only the
    // unalert cast).
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "mage", at: (3, 3), surprised: true),
        (name: "Bo", side: "B", template: "mage", at: (8, 3), surprised: true, set: {"en": 5}),
    "#,
        &[3, 3, 4],
        vec![
            (
                Q::Noncombat,
                Order::new("Ash", "cast").with("bolt").target("Bo"),
            ),
            (
                Q::Noncombat,
                Order::new("Bo", "cast").with("mend").target("Bo"),
            ),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "Ash casts bolt on Bo (3 EN; ruling spells): it loses 6 EN.",
    );
    line(
        &b,
        "Bo casts mend on Bo (2 EN; ruling spells): it gains 6 EN.",
    );
    let bo = entity(&b, "Bo");
    assert_eq!(b.world().get::<detailed::En>(bo).unwrap().current, 3);
    assert!(
        texts(&b)
            .iter()
            .all(|t| !t.starts_with("Bo falls unconscious")),
        "{:?}",
        texts(&b)
    );
}

#[test]
fn simultaneous_blows_land_together_and_two_can_fell_each_other() {
    // 000 §1.1.3 and ruling simultaneous_order: the twins tie, both attack;
    // Ash's blow would fell Bo before Bo's turn, but it is held: Bo still
    // strikes, and both blows land together.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (3, 3), set: {"en": 4}),
        (name: "Bo", side: "B", template: "swordsman", at: (4, 3), set: {"en": 4}),
    "#,
        &[9, 9, 1, 8, 9, 9, 1, 8],
        vec![
            at(Q::Option, "Ash", "attack", "Bo"),
            at(Q::Option, "Bo", "attack", "Ash"),
        ],
        1,
    );
    run(&mut b);
    // 2D10 [9, 9] hits; D12 1, not critical; 1d8+1 [8] = 9, held.
    let on_bo = line(
        &b,
        "Bo is dealt 9 (1d8+1 9 + 0 for preparations): it lands with the other simultaneous options' blows.",
    );
    let on_ash = line(
        &b,
        "Ash is dealt 9 (1d8+1 9 + 0 for preparations): it lands with the other simultaneous options' blows.",
    );
    let land = line(
        &b,
        "The simultaneous blows land together: Bo 9 (EN -5); Ash 9 (EN -5).",
    );
    assert!(on_bo < on_ash && on_ash < land);
    assert!(land < line(&b, "Bo falls unconscious: EN -5."));
    line(&b, "Ash falls unconscious: EN -5.");
    line(&b, "Combat ends in round 1: nobody is conscious.");
}

#[test]
fn drawing_puts_the_weapon_in_hand_back_in_its_sheath() {
    // 000 §1.2.2 and ruling draw_sheathes: the swordsman draws its dagger;
    // the broadsword goes back to its sheath at no extra blow.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (3, 3)),
        (name: "Bo", side: "B", template: "swordsman", at: (12, 3)),
    "#,
        &[],
        vec![(Q::Option, Order::new("Ash", "draw").with("dagger"))],
        1,
    );
    run(&mut b);
    line(
        &b,
        "Ash draws the dagger (a blow, 0 EN); the broadsword goes back to its sheath.",
    );
    let ash = entity(&b, "Ash");
    let hands = b.world().get::<detailed::Hands>(ash).unwrap();
    assert!(hands.sheathed.contains(&"broadsword".to_string()));
}

#[test]
fn a_guard_who_steps_two_cells_stops_early_in_the_moment_and_catches_the_runner() {
    // 000 §3.1: a trace is as long as the character's movement, however short
    // its path. Hal (6 cells) steps 2 cells, to (8, 5): he stops at 2/6 of
    // his trace, while Mira, running 12 cells, has gone 4 of hers: at
    // (7, 4), within his reach. He strikes her as she passes.
    let mut b = battle(
        r#"
        (name: "Mira", side: "A", template: "runner", at: (3, 4), surprised: true, set: {"active": 0, "reactive": 0, "move": 12}),
        (name: "Hal", side: "B", template: "runner", at: (8, 7), set: {"move": 12}),
    "#,
        &[4, 4, 1, 3],
        vec![
            unalert_trace("Mira", (15, 4)),
            (Q::Trace, Order::new("Hal", "trace").cell(Cell::new(8, 5))),
            at(Q::Stopped, "Hal", "attack", "Mira"),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "The traces are revealed — Mira to (15, 4) (12 cells), unalert; Hal to (8, 5) (2 cells).",
    );
    let stop = line(
        &b,
        "The traces advance by the smallest fraction, 2/6 of the first stopper's remaining trace: Hal stops at (8, 5) (the end of its trace); moving on the same fraction: Mira from (3, 4) to (7, 4).",
    );
    let strike = line(
        &b,
        "Hal attacks Mira with the dagger (an active blow borrowed from the next round, 0 EN).",
    );
    let hit = line(&b, "Mira takes 3 (1d6 3 + 0 for preparations): EN 15.");
    let end = line(&b, "Mira stops at (15, 4) (the end of its trace).");
    assert!(stop < strike && hit < end);
}

#[test]
fn one_who_stays_for_a_runner_strikes_it_as_it_passes() {
    // Ruling stop_options: Bo stays, waiting for Mira; she runs 13 cells and
    // comes within his reach at (7, 4), 6 cells along: he ends his movement
    // then and strikes (a borrowed blow). 2D10 9 x 2 (she is unalert) + AC
    // 10 = 28 > 17.
    let mut b = battle(
        r#"
        (name: "Mira", side: "A", template: "runner", at: (1, 4), surprised: true, set: {"active": 0, "reactive": 0, "move": 13}),
        (name: "Bo", side: "B", template: "runner", at: (8, 5), set: {"active": 1, "reactive": 0}),
    "#,
        &[4, 5, 1, 2],
        vec![
            unalert_trace("Mira", (14, 4)),
            (Q::Trace, Order::new("Bo", "stay").target("Mira")),
            at(Q::Stopped, "Bo", "attack", "Mira"),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "The traces are revealed — Mira to (14, 4) (13 cells), unalert; Bo stays, waiting for Mira.",
    );
    let stop = line(
        &b,
        "The traces advance by the smallest fraction, 6/13 of the first stopper's remaining trace: Bo stops waiting at (8, 5) (within reach); moving on the same fraction: Mira from (1, 4) to (7, 4).",
    );
    let strike = line(&b, "Bo's hit roll on Mira: 28 against 17 to exceed: hit.");
    assert!(stop < strike && strike < line(&b, "Mira stops at (14, 4)"));
}

#[test]
fn one_unalert_with_no_movement_may_still_wait_for_a_mover_and_strike_it() {
    // Rulings unalert_movement and stop_options: Bo, unalert with no
    // movement, is asked all the same, and stays waiting for Mira; she runs
    // past within his reach, and he strikes her as an alert one would.
    let mut b = battle(
        r#"
        (name: "Mira", side: "A", template: "runner", at: (1, 4), surprised: true, set: {"active": 0, "reactive": 0, "move": 13}),
        (name: "Bo", side: "B", template: "runner", at: (8, 5), surprised: true, set: {"active": 1, "reactive": 0, "move": 0}),
    "#,
        &[4, 5, 1, 2],
        vec![
            unalert_trace("Mira", (14, 4)),
            (Q::Trace, Order::new("Bo", "stay").target("Mira")),
            at(Q::Stopped, "Bo", "attack", "Mira"),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "The traces are revealed — Mira to (14, 4) (13 cells), unalert; Bo stays, waiting for Mira, unalert (ruling unalert_movement).",
    );
    let strike = line(&b, "Bo's hit roll on Mira: 28 against 17 to exceed: hit.");
    assert!(strike < line(&b, "Mira stops at (14, 4)"));
}

#[test]
fn one_with_no_movement_still_strikes_a_mover_and_a_stopper_may_become_alert() {
    // 000 §3.2.1–2: Bo has no movement (move 0): he stays all the same and,
    // as one who stays, strikes Mira as she sets off. Mira, unalert, stops at
    // the end of her trace and becomes alert (000 §3).
    let mut b = battle(
        r#"
        (name: "Mira", side: "A", template: "runner", at: (5, 4), surprised: true, set: {"active": 0, "reactive": 0}),
        (name: "Bo", side: "B", template: "runner", at: (4, 4), set: {"active": 1, "reactive": 0, "move": 0}),
    "#,
        &[4, 5, 1, 2],
        vec![
            (Q::Trace, Order::new("Mira", "trace").cell(Cell::new(9, 4))),
            at(Q::Stopped, "Bo", "attack", "Mira"),
            o(Q::Stopped, "Mira", "alert"),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "The traces are revealed — Mira to (9, 4) (4 cells), unalert; Bo stays.",
    );
    let strike = line(&b, "Bo's hit roll on Mira: 28 against 17 to exceed: hit.");
    assert!(strike < line(&b, "The traces advance by the smallest fraction"));
    line(&b, "Mira stops and becomes alert.");
    // After a noncombat option one cannot react: no chase, no waiting.
    let mut b = battle(
        r#"
        (name: "Mira", side: "A", template: "runner", at: (5, 4), surprised: true, set: {"active": 0, "reactive": 0}),
        (name: "Bo", side: "B", template: "runner", at: (4, 4), set: {"active": 1, "reactive": 0}),
    "#,
        &[],
        vec![
            o(Q::Noncombat, "Bo", "rest"),
            (Q::Trace, Order::new("Bo", "chase").target("Mira")),
        ],
        1,
    );
    run(&mut b);
    common::assert_refused(
        &b,
        "Bo's order \"chase\" is refused: one who took a noncombat option cannot react to others' movement (000 §3).",
    );
}

#[test]
fn any_option_may_be_preceded_by_dropping_what_is_in_hand() {
    // 000 §1.2 and ruling drop_and_speech: Ash drops his broadsword and
    // shield, then draws his dagger: nothing goes back to a sheath, and what
    // he dropped lies in his cell for anyone to grab.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (3, 3)),
        (name: "Bo", side: "B", template: "spearman", at: (20, 10)),
    "#,
        &[],
        vec![(Q::Option, Order::new("Ash", "drop+draw").with("dagger"))],
        1,
    );
    run(&mut b);
    line(
        &b,
        "Ash drops the broadsword and the shield before its option: no blow.",
    );
    line(&b, "Ash draws the dagger (a blow, 0 EN).");
    let ash = entity(&b, "Ash");
    let hands = b.world().get::<Hands>(ash).unwrap();
    assert_eq!(hands.wielded, vec!["dagger".to_string()]);
    assert!(hands.sheathed.is_empty());
    let cell = Cell::new(3, 3);
    assert_eq!(
        b.world().resource::<Flow>().ground,
        vec![
            (cell, "broadsword".to_string()),
            (cell, "shield".to_string())
        ]
    );
    // A great blow keeps the weapon it prepares: only the shield falls.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (3, 3)),
        (name: "Bo", side: "B", template: "spearman", at: (20, 10)),
    "#,
        &[],
        vec![(
            Q::Option,
            Order::new("Ash", "drop+prepare").with("broadsword"),
        )],
        1,
    );
    run(&mut b);
    line(&b, "Ash drops the shield before its option: no blow.");
    let ash = entity(&b, "Ash");
    assert_eq!(
        b.world().get::<Hands>(ash).unwrap().wielded,
        vec!["broadsword".to_string()]
    );
    // Nothing else in hand: nothing to drop, and the order is refused; a
    // pass drops with its own words.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (3, 3)),
        (name: "Bo", side: "B", template: "spearman", at: (20, 10)),
    "#,
        &[],
        vec![
            (Q::Option, Order::new("Bo", "drop+prepare").with("spear")),
            (Q::Option, Order::new("Ash", "drop+pass")),
        ],
        1,
    );
    run(&mut b);
    line(&b, "nothing in hand to drop before the option");
    line(&b, "drop+ goes before another option");
}

#[test]
fn a_character_does_not_spend_its_last_en_point_and_so_is_not_eligible() {
    // Ruling last_en_point: Ash has 1 EN and two active blows. His first
    // blow is free; a second would cost his last point, so with a blow left
    // he is no longer eligible for the initiative (000 §1.1.1).
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (3, 3), set: {"en": 1, "reactive": 0}),
        (name: "Bo", side: "B", template: "swordsman", at: (20, 10), set: {"active": 0, "reactive": 0}),
    "#,
        &[],
        vec![
            (Q::Option, Order::new("Ash", "prepare").with("broadsword")),
            (Q::Option, Order::new("Ash", "prepare").with("broadsword")),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "Ash prepares a great blow with the broadsword (1 so far",
    );
    line(&b, "Nobody is eligible for the initiative");
    assert_eq!(count(&b, "Ash prepares"), 1);
    let ash = entity(&b, "Ash");
    assert_eq!(b.world().get::<En>(ash).unwrap().current, 1);
    assert_eq!(b.world().get::<Blows>(ash).unwrap().active, 1);
}

#[test]
fn a_weapon_free_of_ones_own_simultaneous_option_parries_at_full_effect() {
    // 000 §1.1.3 and ruling reduced_effectiveness: Ash and Bo tie and attack
    // each other; each parries the other's blow with its shield, the weapon
    // its own option does not use, at full effect.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (3, 3)),
        (name: "Bo", side: "B", template: "swordsman", at: (4, 3)),
    "#,
        &[2, 3, 2, 3],
        vec![
            at(Q::Option, "Ash", "attack", "Bo"),
            at(Q::Option, "Bo", "attack", "Ash"),
            o(Q::Parry, "Bo", "parry"),
            o(Q::Parry, "Ash", "parry"),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "Bo parries Ash's attack on Bo with the shield, a weapon its own option does not use",
    );
    line(
        &b,
        "Ash parries Bo's attack on Ash with the shield, a weapon its own option does not use",
    );
}

#[test]
fn a_weapon_drawn_in_ones_own_simultaneous_option_cannot_parry() {
    // 000 §1.1.3: "Only weapons not used in one's own option can be used in
    // responses to others' options." Ash and Bo tie; Ash drops his sword
    // and shield and draws his dagger, Bo attacks him: the dagger, used in
    // Ash's own option, cannot parry Bo's blow.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (3, 3)),
        (name: "Bo", side: "B", template: "swordsman", at: (4, 3)),
    "#,
        &[2, 3, 2, 3],
        vec![
            (Q::Option, Order::new("Ash", "drop+draw").with("dagger")),
            at(Q::Option, "Bo", "attack", "Ash"),
            o(Q::Parry, "Ash", "parry"),
        ],
        1,
    );
    run(&mut b);
    line(&b, "The simultaneous options are revealed");
    line(&b, "Ash draws the dagger");
    line(&b, "Bo attacks Ash with the broadsword");
    common::assert_lacks(&b, "Ash parries");
}

#[test]
fn blows_borrowed_in_the_movement_phase_are_of_the_kind_the_option_names() {
    // Ruling borrowed_blows: Bo stays and strikes Mira as she runs past with
    // his heavy battleaxe, two blows borrowed from the next round: the
    // attack's active blow from his two active ones, the heavy weapon's
    // second, of either kind, from his reactive ones (000 §1.2, ruling
    // blow_kind). Round 2 begins with 1 active and 1 reactive: enough for
    // another blow of the battleaxe.
    let mut b = battle(
        r#"
        (name: "Mira", side: "A", template: "runner", at: (5, 4), surprised: true, set: {"active": 0, "reactive": 0}),
        (name: "Bo", side: "B", template: "axeman", at: (4, 4)),
    "#,
        &[1, 2, 1, 2],
        vec![
            (Q::Trace, Order::new("Mira", "trace").cell(Cell::new(12, 4))),
            at(Q::Stopped, "Bo", "attack", "Mira"),
        ],
        2,
    );
    run(&mut b);
    line(
        &b,
        "Bo attacks Mira with the battleaxe (an active blow and a second for the heavy weapon borrowed from the next round, 1 EN).",
    );
    line(&b, "Bo has the initiative (1 active, 1 reactive");
}

#[test]
fn a_parry_while_moving_says_its_blow_is_borrowed() {
    // Ruling borrowed_blows: Ash stays and strikes Bo as he walks by; Bo,
    // alert, parries, with a blow borrowed from the next round, as the
    // question, its choice and the log say.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (6, 3)),
        (name: "Bo", side: "B", template: "swordsman", at: (2, 4), set: {"move": 10}),
    "#,
        &[1, 2, 1, 2],
        vec![
            at(Q::Trace, "Ash", "stay", "Bo"),
            (Q::Trace, Order::new("Bo", "trace").cell(Cell::new(10, 4))),
            at(Q::Stopped, "Ash", "attack", "Bo"),
            o(Q::Parry, "Bo", "parry"),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "Bo parries Ash's attack on Bo with the broadsword (a blow borrowed from the next round, 0 EN; ruling parry).",
    );
    let (ash, bo) = (entity(&b, "Ash"), entity(&b, "Bo"));
    let mut flow = b.world_mut().resource_mut::<detailed::Flow>();
    flow.stage = detailed::Stage::Movement;
    flow.open.clear();
    let parry = detailed::Ask::Parry {
        attacker: ash,
        target: bo,
    };
    flow.open.push((0, bo, parry));
    let labels: Vec<String> = detailed::orders::choices(b.world(), bo)
        .into_iter()
        .map(|c| c.label)
        .collect();
    assert_eq!(
        labels[0],
        "Parry Ash's attack on Bo with the broadsword (a borrowed blow)"
    );
}

#[test]
fn a_scenario_may_start_a_character_with_its_weapon_on_the_ground() {
    // Scenario `starts`: Ash's broadsword and shield lie in his cell, his
    // hands empty; he grabs the broadsword (000 §1.2.3), alert, with a D20
    // DX check: 5 against DX 13.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (3, 3), starts: ["weapon_on_the_ground"]),
        (name: "Bo", side: "B", template: "swordsman", at: (20, 10)),
    "#,
        &[5],
        vec![(Q::Option, Order::new("Ash", "grab").with("broadsword"))],
        1,
    );
    let ash = entity(&b, "Ash");
    assert!(
        b.world()
            .get::<detailed::Hands>(ash)
            .unwrap()
            .wielded
            .is_empty()
    );
    let cell = fray_core::grid::Cell::new(3, 3);
    assert_eq!(
        b.world().resource::<detailed::Flow>().ground,
        vec![
            (cell, "broadsword".to_string()),
            (cell, "shield".to_string())
        ]
    );
    run(&mut b);
    line(
        &b,
        "Ash, alert, makes a D20 DX check to grab the broadsword (an active blow, 0 EN): 5 against 13: success.",
    );
    assert_eq!(
        b.world().get::<detailed::Hands>(ash).unwrap().wielded,
        vec!["broadsword".to_string()]
    );
    assert_eq!(
        b.world().resource::<detailed::Flow>().ground,
        vec![(cell, "shield".to_string())]
    );
}

#[test]
fn a_scenario_may_start_a_character_fallen_or_unconscious() {
    // Scenario `starts`: Bo begins fallen, so Ash's hit roll on him is
    // doubled (000 §1.2.5.1.3, partial surprise); Cy begins unconscious (0
    // EN) and never acts.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (3, 3)),
        (name: "Bo", side: "B", template: "swordsman", at: (4, 3), starts: ["fallen"]),
        (name: "Cy", side: "B", template: "swordsman", at: (9, 9), starts: ["unconscious"]),
    "#,
        &[4, 4, 1, 1],
        vec![at(Q::Option, "Ash", "attack", "Bo")],
        1,
    );
    run(&mut b);
    // 2D10 [4, 4] = 8, doubled: 16 + 5 = 21; standing, 13 would miss.
    line(&b, "Ash's hit roll on Bo: 21 against 16 to exceed: hit.");
    assert!(
        texts(&b).iter().all(|t| !t.contains("Cy")),
        "{:?}",
        texts(&b)
    );
    let cy = entity(&b, "Cy");
    assert_eq!(b.world().get::<detailed::En>(cy).unwrap().current, 0);
    // A state the ruleset does not know is refused where it is written.
    let text = common::field(
        "declared",
        (8, 8),
        1,
        "",
        r#"(name: "Ash", side: "A", template: "knight", at: (1, 1), starts: ["fallen"]),
           (name: "Bo", side: "B", template: "knight", at: (5, 5)),"#,
    );
    let scenario =
        fray_core::scenario::LoadedScenario::from_source(Source::inline("t.ron", &text)).unwrap();
    let err = fray_rules::load("declared", None)
        .unwrap()
        .check_scenario(&scenario)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("\"Ash\" cannot start \"fallen\" under the declared ruleset (it knows: none)"),
        "{err}"
    );
}

#[test]
fn the_parry_question_gives_the_odds_with_and_without_the_parry() {
    // 000 §1.2.5.1.3, ruling parry: Ash's spear (16 to exceed) on Bo, AC 6
    // less 1 for the shield: 2D10 + 5 hits on 11 or more, 55 of 100 throws;
    // one parry (-2) makes it 13 or more, 36 of 100.
    let text = common::field(
        "detailed_sequence",
        (24, 12),
        1,
        "",
        r#"
        (name: "Ash", side: "A", template: "spearman", at: (3, 3), set: {"active": 3}),
        (name: "Bo", side: "B", template: "swordsman", at: (4, 3)),
    "#,
    );
    let mut b = common::battle(&text, &[5, 5], |side| {
        if side == 0 {
            Box::new(Script {
                orders: vec![(Q::Option, Order::new("Ash", "attack").target("Bo"), false)],
                asked,
                fits: |a, b| a == b,
                otherwise: |_, d| Order::new(&d.actor_name, "pass"),
            })
        } else {
            Box::new(fray_core::decision::HumanSeat)
        }
    });
    // Ash has the initiative and attacks; Bo, the target, is asked to parry.
    let _ = b.run();
    let decisions = b.world().resource::<fray_core::decision::Decisions>();
    let asked: Vec<&str> = decisions.open().iter().map(|d| d.prompt.as_str()).collect();
    assert_eq!(
        asked,
        ["Ash attacks Bo (hits 55%; parried, 36%): parry (a blow)?"]
    );
}

#[test]
fn the_parry_odds_are_those_of_the_weapon_the_attack_is_made_with() {
    // 000 §1.2.5: Ash grabs Mo's dagger from the ground beside him, then
    // attacks Bo with the spear; the odds Bo is given are the spear's (16
    // to exceed: 55%, parried 36%), not those of the dagger now in hand.
    let text = common::field(
        "detailed_sequence",
        (24, 12),
        1,
        "",
        r#"
        (name: "Ash", side: "A", template: "spearman", at: (3, 3), set: {"active": 4}),
        (name: "Mo", side: "A", template: "mage", at: (2, 4), starts: ["weapon_on_the_ground"]),
        (name: "Bo", side: "B", template: "swordsman", at: (4, 3)),
    "#,
    );
    let mut b = common::battle(&text, &[5, 5], |side| {
        if side == 0 {
            Box::new(Script {
                orders: vec![
                    (Q::Option, Order::new("Ash", "grab").with("dagger"), false),
                    (
                        Q::Option,
                        Order::new("Ash", "attack").target("Bo").with("spear"),
                        false,
                    ),
                ],
                asked,
                fits: |a, b| a == b,
                otherwise: |_, d| Order::new(&d.actor_name, "pass"),
            })
        } else {
            Box::new(fray_core::decision::HumanSeat)
        }
    });
    let _ = b.run();
    line(&b, "Ash, alert, makes a D20 DX check to grab the dagger");
    let decisions = b.world().resource::<fray_core::decision::Decisions>();
    let asked: Vec<&str> = decisions.open().iter().map(|d| d.prompt.as_str()).collect();
    assert_eq!(
        asked,
        ["Ash attacks Bo (hits 55%; parried, 36%): parry (a blow)?"],
        "{}",
        texts(&b).join("\n")
    );
}

#[test]
fn one_alert_with_no_movement_may_still_cease_to_be_alert() {
    // 000 §3: "Characters may cease to be alert; any characters may move."
    // Wren, alert from her pass, has no movement, yet is asked, and stays
    // no longer alert, so that she may shoot next round (000 §1.2.5).
    let mut b = battle(
        r#"
        (name: "Wren", side: "A", template: "archer", at: (2, 4), set: {"move": 0}),
        (name: "Bo", side: "B", template: "swordsman", at: (20, 4)),
    "#,
        &[],
        vec![
            (Q::Option, Order::new("Wren", "pass").with("alert")),
            (Q::Trace, Order::new("Wren", "stay").with("unalert")),
        ],
        1,
    );
    run(&mut b);
    line(&b, "Wren passes");
    line(&b, "Wren stays, unalert");
    assert!(!detailed::alert(b.world(), entity(&b, "Wren")));
}

#[test]
fn a_refused_answer_cites_the_paragraph_that_asked() {
    // A trace to no cell on the board is refused under 000 §3.1, the
    // paragraph that asks for traces, not under the combat options'. The
    // trace was written in secret: the log says only that it was refused.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (2, 4)),
        (name: "Bo", side: "B", template: "swordsman", at: (20, 4)),
    "#,
        &[],
        vec![(
            Q::Trace,
            Order::new("Ash", "trace").cell(fray_core::grid::Cell::new(99, 99)),
        )],
        1,
    );
    run(&mut b);
    let log = b.world().resource::<BattleLog>();
    let refused: Vec<&str> = log
        .entries()
        .iter()
        .filter(|e| e.text.starts_with("Ash's written order is refused"))
        .map(|e| e.rule.as_str())
        .collect();
    assert_eq!(refused, ["000 §3.1"]);
}

#[test]
fn a_person_may_run_at_a_foe_no_longer_alert() {
    // 000 §3: "Characters may cease to be alert; any characters may move.
    // Alert characters ... are limited to half the normal movement
    // distance." Ash, alert, is offered the run at Bo unalert, and runs
    // his full 6 cells rather than 3.
    let c = r#"(name: "Ash", side: "A", template: "swordsman", at: (2, 4)),
        (name: "Bo", side: "B", template: "swordsman", at: (20, 4))"#;
    let text = common::field("detailed_sequence", (24, 12), 1, "", c);
    let mut b = common::battle(&text, &[], |_| Box::new(fray_core::decision::HumanSeat));
    loop {
        let _ = b.run();
        let open = b
            .world()
            .resource::<fray_core::decision::Decisions>()
            .open()
            .to_vec();
        let d = open.first().expect("Ash is asked for his trace");
        if asked(b.world(), d) == Q::Trace && d.actor_name == "Ash" {
            break;
        }
        let answer = if asked(b.world(), d) == Q::Trace {
            "stay"
        } else {
            "pass"
        };
        b.answer(d.id, Order::new(&d.actor_name, answer));
    }
    let ash = entity(&b, "Ash");
    let choices = detailed::orders::choices(b.world(), ash);
    let labels: Vec<&str> = choices.iter().map(|c| c.label.as_str()).collect();
    let run_at = choices
        .iter()
        .find(|c| c.label == "Run at Bo, no longer alert (full movement), stopping within reach")
        .unwrap_or_else(|| panic!("{labels:#?}"));
    assert!(run_at.refused.is_none(), "{:?}", run_at.refused);
    assert!(labels.contains(&"Chase Bo, no longer alert (full movement, -2)"));
    // Or fall back from the foes at full movement, to a cell of his own.
    assert!(
        labels.contains(&"Fall back to (0, 2), no longer alert (full movement)"),
        "{labels:#?}"
    );
    let open = b
        .world()
        .resource::<fray_core::decision::Decisions>()
        .open()
        .to_vec();
    for d in open {
        let order = match d.actor_name.as_str() {
            "Ash" => run_at.order.clone(),
            who => Order::new(who, "stay"),
        };
        b.answer(d.id, order);
    }
    let _ = b.run();
    line(
        &b,
        "Ash to (8, 4) (6 cells, stopping within reach of Bo), unalert (ruling unalert_movement)",
    );
}

#[test]
fn a_mover_knocked_down_ends_its_movement_where_it_fell() {
    // Ruling fall: Bo strikes Mira as she runs past (000 §3.2.2), double
    // tens and D20 19 on the double_tens table knock her down: she lies
    // where she fell rather than run on down her trace.
    let mut b = battle(
        r#"(name: "Mira", side: "A", template: "runner", at: (5, 4), surprised: true, set: {"active": 0, "reactive": 0}),
           (name: "Bo", side: "B", template: "swordsman", at: (4, 4))"#,
        &[10, 10, 19, 3, 2],
        vec![
            (Q::Trace, Order::new("Mira", "trace").cell(Cell::new(14, 4))),
            (Q::Stopped, Order::new("Bo", "attack").target("Mira")),
        ],
        1,
    );
    run(&mut b);
    let down = line(&b, "the blow knocks the target down");
    let lies = line(
        &b,
        "Mira is down: it ends its movement where it fell at (5, 4).",
    );
    assert!(down < lies);
    assert_eq!(count(&b, "Mira stops at"), 0, "{}", texts(&b).join("\n"));
}

#[test]
fn a_manoeuvre_that_cannot_move_is_refused() {
    // 000 §1.2.3 "Affects the range": Aldo, in the corner between Carl and
    // Dave, has no free cell farther from Bert: stepping away is refused,
    // and no blow is spent on it. Closing, he has one.
    let c = r#"(name: "Aldo", side: "A", template: "swordsman", at: (0, 0)),
        (name: "Bert", side: "B", template: "runner", at: (2, 2)),
        (name: "Carl", side: "B", template: "runner", at: (1, 0)),
        (name: "Dave", side: "B", template: "runner", at: (0, 1))"#;
    let text = common::field("detailed_sequence", (10, 8), 1, "", c);
    let mut b = common::battle(&text, &[], |_| Box::new(fray_core::decision::HumanSeat));
    let _ = b.run();
    let aldo = entity(&b, "Aldo");
    let away = Order::new("Aldo", "step_open").target("Bert");
    assert_eq!(
        detailed::orders::validate(b.world(), aldo, &away)
            .err()
            .as_deref(),
        Some("no free cell to step to: the range cannot change")
    );
    let close = Order::new("Aldo", "step_close").target("Bert");
    assert!(detailed::orders::validate(b.world(), aldo, &close).is_ok());
}

#[test]
fn the_range_changes_freely_to_a_fallen_opponent_only() {
    // 000 §1.2.3.5: "May change range to any fallen opponent to any range
    // between 1 and 6 inclusive." Ash is offered the cells beside the
    // fallen Bob and 6 from him; to his fallen friend Pal it is refused,
    // though he may step close to Pal.
    let c = r#"(name: "Ash", side: "A", template: "swordsman", at: (2, 4), set: {"reactive": 0}),
        (name: "Pal", side: "A", template: "swordsman", at: (2, 6), starts: ["fallen"], set: {"active": 0, "reactive": 0}),
        (name: "Bob", side: "B", template: "swordsman", at: (5, 4), starts: ["fallen"], set: {"active": 0, "reactive": 0})"#;
    let text = common::field("detailed_sequence", (24, 12), 1, "", c);
    let mut b = common::battle(&text, &[], |_| Box::new(fray_core::decision::HumanSeat));
    let _ = b.run();
    let choices = detailed::orders::choices(b.world(), entity(&b, "Ash"));
    let offered = |label: &str| {
        choices
            .iter()
            .find(|c| c.label == label)
            .unwrap_or_else(|| {
                panic!(
                    "{label}: {:#?}",
                    choices.iter().map(|c| &c.label).collect::<Vec<_>>()
                )
            })
            .refused
            .is_none()
    };
    assert!(offered("Change range to the fallen Bob: to 1, at (4, 4)"));
    assert!(offered("Change range to the fallen Bob: to 6, at (2, 10)"));
    // Every range between too.
    for range in 2..=5 {
        let want = format!("Change range to the fallen Bob: to {range}, at");
        assert!(choices.iter().any(|c| c.label.starts_with(&want)), "{want}");
    }
    // 000 §1.2.1: a pass with any or all of drop and fall (Ash is alert
    // already).
    for label in [
        "Pass, dropping the shield",
        "Pass, falling to the ground",
        "Pass, dropping both the broadsword and the shield, and falling to the ground",
    ] {
        assert!(offered(label));
    }
    // 000 §1.2.3: the other manoeuvres reach "any one other character".
    assert!(offered("Step close to Pal (a friend)"));
    let to_pal = Order::new("Ash", "change_range")
        .target("Pal")
        .cell(Cell::new(2, 5));
    let refused = detailed::orders::validate(b.world(), entity(&b, "Ash"), &to_pal);
    assert_eq!(
        refused.err().as_deref(),
        Some("the range changes freely only to a fallen opponent (000 §1.2.3.5)")
    );
}

#[test]
fn two_hands_full_grab_nothing_until_something_is_dropped() {
    // 000 §1.2.1 "either or both hands": Ash holds a broadsword and a
    // shield; a grab of the spear beside him is refused, and a grab after
    // dropping (000 §1.2: "Any option may be preceded by dropping items")
    // is taken.
    let c = r#"(name: "Ash", side: "A", template: "swordsman", at: (2, 4)),
        (name: "Bob", side: "B", template: "swordsman", at: (20, 4))"#;
    let text = common::field("detailed_sequence", (24, 12), 1, "", c);
    let mut b = common::battle(&text, &[], |_| Box::new(fray_core::decision::HumanSeat));
    let _ = b.run();
    let ash = entity(&b, "Ash");
    let mut flow = b.world_mut().resource_mut::<detailed::Flow>();
    flow.open.clear();
    flow.open.push((0, ash, detailed::Ask::Option));
    flow.ground.push((Cell::new(3, 4), "spear".into()));
    let grab = Order::new("Ash", "grab").with("spear");
    let why = detailed::orders::validate(b.world(), ash, &grab).unwrap_err();
    assert_eq!(
        why,
        "both hands are full (broadsword and shield): drop something first (drop+grab)"
    );
    let drop_grab = Order::new("Ash", "drop+grab").with("spear");
    assert!(detailed::orders::validate(b.world(), ash, &drop_grab).is_ok());
    // In a chain of preparations (000 §1.2.4) the drop frees no grab.
    b.world_mut()
        .resource_mut::<detailed::Flow>()
        .chain
        .push(ash);
    let why = detailed::orders::validate(b.world(), ash, &drop_grab).unwrap_err();
    assert!(
        why.starts_with("a preparation with a thrusting weapon or bow must be followed at once"),
        "{why}"
    );
}

#[test]
fn a_broken_chain_loses_only_the_chained_weapons_preparations() {
    // 000 §1.2.4: preparations are lost to "a blow other than for a
    // prepare or attack option"; a thrusting weapon's chain broken loses
    // that chain. Ash prepares the broadsword, then the dagger, then
    // passes: the dagger's preparation is lost, the broadsword's stays.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (3, 4), weapons: ["broadsword", "dagger"], set: {"active": 3}),
        (name: "Bo", side: "B", template: "runner", at: (11, 4), surprised: true),
    "#,
        &[],
        vec![
            (Q::Option, Order::new("Ash", "prepare").with("broadsword")),
            (Q::Option, Order::new("Ash", "prepare").with("dagger")),
            o(Q::Option, "Ash", "pass"),
        ],
        1,
    );
    run(&mut b);
    line(
        &b,
        "Ash's great blow with the dagger is lost: the chain of preparations was broken.",
    );
    common::assert_lacks(&b, "Ash's great blow is lost");
}

#[test]
fn no_manoeuvre_opens_a_range_past_6() {
    // 000 §1.2.3: "up to a maximum range of 6" (ruling grid_ranges).
    let c = r#"(name: "Ash", side: "A", template: "swordsman", at: (2, 4)),
        (name: "Bob", side: "B", template: "swordsman", at: (8, 4))"#;
    let text = common::field("detailed_sequence", (24, 12), 1, "", c);
    let mut b = common::battle(&text, &[], |_| Box::new(fray_core::decision::HumanSeat));
    let _ = b.run();
    let ash = entity(&b, "Ash");
    let mut flow = b.world_mut().resource_mut::<detailed::Flow>();
    flow.open.clear();
    flow.open.push((0, ash, detailed::Ask::Option));
    let open = Order::new("Ash", "open").target("Bob");
    let why = detailed::orders::validate(b.world(), ash, &open).unwrap_err();
    assert_eq!(
        why,
        "the range is already 6: a manoeuvre opens it to 6 at most (ruling grid_ranges)"
    );
}

#[test]
fn the_unconscious_may_be_struck_and_a_spell_cast_on_oneself_or_them() {
    // 000 §1.2.5.1.3 strikes "the target … stationary and unconscious";
    // a spell may be cast on anyone, oneself included (000 §2.1).
    let c = r#"(name: "Ash", side: "A", template: "swordsman", at: (2, 4), set: {"reactive": 0}),
        (name: "Bob", side: "B", template: "swordsman", at: (3, 4), starts: ["unconscious"], set: {"active": 0, "reactive": 0}),
        (name: "Cid", side: "B", template: "swordsman", at: (20, 4)),
        (name: "Mo", side: "A", template: "mage", at: (2, 8), surprised: true)"#;
    let text = common::field("detailed_sequence", (24, 12), 1, "", c);
    let mut b = common::battle(&text, &[], |_| Box::new(fray_core::decision::HumanSeat));
    let _ = b.run();
    let ash = entity(&b, "Ash");
    let mut flow = b.world_mut().resource_mut::<detailed::Flow>();
    flow.open.clear();
    flow.open.push((0, ash, detailed::Ask::Option));
    let choices = detailed::orders::choices(b.world(), ash);
    let strike = choices
        .iter()
        .find(|c| c.label == "Attack Bob, unconscious")
        .unwrap_or_else(|| {
            panic!(
                "{:#?}",
                choices.iter().map(|c| &c.label).collect::<Vec<_>>()
            )
        });
    assert!(strike.refused.is_none(), "{:?}", strike.refused);
    // 000 §1.2.3: a manoeuvre "affects the range to any one other
    // character", one lying unconscious too.
    let open = choices
        .iter()
        .find(|c| c.label == "Step away from Bob (unconscious)")
        .expect("a step away from the unconscious Bob is offered");
    assert!(open.refused.is_none(), "{:?}", open.refused);
    // Mo, asked for his noncombat option, is offered mending himself and
    // a bolt at the unconscious Bob.
    let mo = entity(&b, "Mo");
    let mut flow = b.world_mut().resource_mut::<detailed::Flow>();
    flow.open.clear();
    flow.open.push((0, mo, detailed::Ask::Noncombat));
    let labels: Vec<String> = detailed::orders::choices(b.world(), mo)
        .into_iter()
        .map(|c| c.label)
        .collect();
    for want in ["Cast mend on Mo", "Cast bolt on Bob"] {
        assert!(labels.iter().any(|l| l == want), "{want}: {labels:#?}");
    }
}

#[test]
fn one_unalert_is_offered_its_traces_at_full_movement_once() {
    // 000 §3: only the alert are held to half movement, and a trace does
    // not make one alert (a pass does, 000 §1.2.1): Mira, unalert, has one
    // chase of Bo, at full movement, and no word of becoming alert.
    let c = r#"(name: "Mira", side: "A", template: "runner", at: (5, 4), surprised: true),
        (name: "Bo", side: "B", template: "swordsman", at: (20, 4))"#;
    let text = common::field("detailed_sequence", (24, 12), 1, "", c);
    let mut b = common::battle(&text, &[], |_| Box::new(fray_core::decision::HumanSeat));
    let _ = b.run();
    let mira = entity(&b, "Mira");
    b.world_mut()
        .resource_mut::<detailed::Flow>()
        .open
        .push((0, mira, detailed::Ask::Trace));
    let labels: Vec<String> = detailed::orders::choices(b.world(), mira)
        .into_iter()
        .map(|c| c.label)
        .collect();
    assert_eq!(
        labels.iter().filter(|l| l.starts_with("Chase Bo")).count(),
        1,
        "{labels:#?}"
    );
    assert!(labels.iter().any(|l| l == "Chase Bo (full movement, -2)"));
    assert!(
        labels.iter().all(|l| !l.contains("becoming alert")),
        "{labels:#?}"
    );
}

#[test]
fn with_two_weapons_in_hand_either_attacks_and_prepares() {
    // 000 §1.2.4, §1.2.5: Ash holds a spear he grabbed beside his sword;
    // Bo, two cells off, is in the spear's reach only: that thrust, and a
    // great blow prepared with either, are offered.
    let c = r#"(name: "Ash", side: "A", template: "swordsman", at: (2, 4), set: {"reactive": 0}),
        (name: "Bo", side: "B", template: "swordsman", at: (4, 4), set: {"active": 0, "reactive": 0})"#;
    let text = common::field("detailed_sequence", (24, 12), 1, "", c);
    let mut b = common::battle(&text, &[], |_| Box::new(fray_core::decision::HumanSeat));
    let _ = b.run();
    let ash = entity(&b, "Ash");
    b.world_mut()
        .get_mut::<detailed::Hands>(ash)
        .unwrap()
        .wielded = vec!["broadsword".into(), "spear".into()];
    let mut flow = b.world_mut().resource_mut::<detailed::Flow>();
    flow.open.clear();
    flow.open.push((0, ash, detailed::Ask::Option));
    let choices = detailed::orders::choices(b.world(), ash);
    let legal = |label: &str| {
        choices
            .iter()
            .find(|c| c.label == label)
            .is_some_and(|c| c.refused.is_none())
    };
    let labels: Vec<&String> = choices.iter().map(|c| &c.label).collect();
    assert!(legal("Attack Bo with the spear"), "{labels:#?}");
    assert!(
        legal("Prepare a great blow with the broadsword"),
        "{labels:#?}"
    );
    assert!(legal("Prepare a great blow with the spear"), "{labels:#?}");
}

#[test]
fn one_stopped_with_nothing_in_hand_may_grab_as_a_mover_passes() {
    // Ruling stop_options: Bo's broadsword lies in his cell; he waits for
    // Mira, who runs past beside him. With no weapon in hand, a mover
    // beside him is within reach: he is asked, and grabs it (a D20 DX
    // check).
    let mut b = battle(
        r#"
        (name: "Bo", side: "A", template: "swordsman", at: (5, 4), starts: ["weapon_on_the_ground"]),
        (name: "Mira", side: "B", template: "runner", at: (2, 5), surprised: true, set: {"active": 0, "reactive": 0}),
    "#,
        &[5, 5, 5, 5],
        vec![
            unalert_trace("Mira", (11, 5)),
            (Q::Trace, Order::new("Bo", "stay").target("Mira")),
            (Q::Stopped, Order::new("Bo", "grab").with("broadsword")),
        ],
        1,
    );
    run(&mut b);
    line(&b, "Bo, alert, makes a D20 DX check to grab the broadsword");
}

#[test]
fn falling_back_goes_no_farther_than_the_movement_left() {
    // 000 §3: a noncombat option this round halves Ash's movement (6 to
    // 3): the fall back he is offered lies 3 cells off, not 6.
    let c = r#"(name: "Ash", side: "A", template: "swordsman", at: (12, 6)),
        (name: "Bo", side: "B", template: "swordsman", at: (23, 6))"#;
    let text = common::field("detailed_sequence", (24, 12), 1, "", c);
    let mut b = common::battle(&text, &[], |_| Box::new(fray_core::decision::HumanSeat));
    let _ = b.run();
    let ash = entity(&b, "Ash");
    b.world_mut().entity_mut(ash).insert(detailed::Noncombat);
    let mut flow = b.world_mut().resource_mut::<detailed::Flow>();
    flow.open.clear();
    flow.open.push((0, ash, detailed::Ask::Trace));
    let labels: Vec<String> = detailed::orders::choices(b.world(), ash)
        .into_iter()
        .map(|c| c.label)
        .collect();
    assert!(
        labels
            .iter()
            .any(|l| l == "Fall back to (9, 3), no longer alert (full movement)"),
        "{labels:#?}"
    );
}

#[test]
fn options_declared_together_are_checked_again_for_the_cell_they_go_to() {
    // Ruling simultaneous_order: Cy and Al declare together; Cy's step
    // close takes (5, 4) first, so Al's change of range to that cell can no
    // longer be carried out: they never share a cell.
    let mut b = battle(
        r#"
        (name: "Bo", side: "B", template: "swordsman", at: (3, 2), starts: ["fallen"]),
        (name: "Cy", side: "A", template: "swordsman", at: (6, 4)),
        (name: "Al", side: "A", template: "swordsman", at: (6, 2)),
    "#,
        &[],
        vec![
            (Q::Option, Order::new("Bo", "pass")),
            at(Q::Option, "Cy", "step_close", "Bo"),
            (
                Q::Option,
                Order::new("Al", "change_range")
                    .target("Bo")
                    .cell(Cell::new(5, 4)),
            ),
        ],
        1,
    );
    run(&mut b);
    line(&b, "Cy steps close to Bo: from (6, 4) to (5, 4)");
    line(
        &b,
        "Al's option (change range to Bo) can no longer be carried out: (5, 4) cannot be reached.",
    );
    let at_cell = |n: &str| *b.world().get::<Cell>(entity(&b, n)).unwrap();
    assert_ne!(at_cell("Al"), at_cell("Cy"));
}

#[test]
fn a_character_may_chase_a_friend() {
    // 000 §3.1: "A character who wishes to chase another character": a
    // friend is offered as well as a foe.
    let text = r#"(name: "t", ruleset: "detailed_sequence", round_cap: 1,
          grid: (kind: Square, width: 24, height: 12),
          sides: [(name: "A", seat: Human), (name: "B")],
          combatants: [
            (name: "Aldo", side: "A", template: "swordsman", at: (2, 2)),
            (name: "Pike", side: "A", template: "swordsman", at: (2, 6)),
            (name: "Bo", side: "B", template: "swordsman", at: (20, 10))])"#;
    let mut b = common::battle(
        text,
        &[],
        |side| -> Box<dyn fray_core::decision::Controller> {
            if side == 0 {
                Box::new(fray_core::decision::HumanSeat)
            } else {
                Box::new(Script {
                    orders: Vec::new(),
                    asked,
                    fits: |a, b| a == b,
                    otherwise: |q, d| {
                        Order::new(&d.actor_name, if q == Q::Trace { "stay" } else { "pass" })
                    },
                })
            }
        },
    );
    let mut labels = Vec::new();
    for _ in 0..12 {
        let fray_core::battle::Progress::AwaitingHuman(ids) = b.run() else {
            break;
        };
        let d = b
            .world()
            .resource::<fray_core::decision::Decisions>()
            .get(ids[0])
            .unwrap()
            .clone();
        if asked(b.world(), &d) == Q::Trace && d.actor_name == "Aldo" {
            labels = d.choices.iter().map(|c| c.label.clone()).collect();
            break;
        }
        let pass = if asked(b.world(), &d) == Q::Trace {
            "stay"
        } else {
            "pass"
        };
        b.answer(ids[0], Order::new(&d.actor_name, pass));
    }
    assert!(
        labels.iter().any(|l| l.starts_with("Chase Pike, a friend")),
        "{labels:?}"
    );
}

#[test]
fn noncombat_options_are_told_in_listing_order_whoever_chose_first() {
    // 000 §2.2: the noncombat options are revealed together. Ash and Bo
    // stand far apart and spend nothing; whoever chooses first, the log
    // tells Ash's option (listed first) before Bo's.
    let text = r#"(name: "t", ruleset: "detailed_sequence", round_cap: 1,
        grid: (kind: Square, width: 30, height: 10),
        sides: [(name: "A"), (name: "B")],
        combatants: [
            (name: "Ash", side: "A", template: "swordsman", at: (1, 1)),
            (name: "Bo", side: "B", template: "swordsman", at: (28, 8)),
        ])"#;
    let told = |bo_first: bool| {
        let mut b = common::battle(text, &[], |_| Box::new(common::Asks));
        while let fray_core::battle::Progress::AwaitingHuman(mut ids) = b.run() {
            let decisions = b.world().resource::<fray_core::decision::Decisions>();
            let open: Vec<Decision> = ids
                .iter()
                .filter_map(|&id| decisions.get(id))
                .cloned()
                .collect();
            if bo_first && open.iter().all(|d| d.prompt.contains("noncombat option")) {
                ids.reverse();
            }
            for id in ids {
                let d = b
                    .world()
                    .resource::<fray_core::decision::Decisions>()
                    .get(id)
                    .cloned();
                // Nothing spent in the combat phase: each passes, then rests.
                let legal = d.map(|d| d.choices).unwrap_or_default();
                let legal = legal.into_iter().filter(|c| c.refused.is_none());
                let mut by_rest = legal.map(|c| c.order).collect::<Vec<_>>();
                by_rest.sort_by_key(|o| !matches!(o.action.as_str(), "pass" | "rest"));
                b.answer(id, by_rest.swap_remove(0));
            }
        }
        let revealed = texts(&b)
            .into_iter()
            .find(|t| t.contains("noncombat options are revealed"));
        revealed.expect("the options were revealed")
    };
    let in_order = told(false);
    assert!(
        in_order.contains("— Ash: ") && in_order.contains("; Bo: "),
        "{in_order}"
    );
    assert_eq!(told(true), in_order);
}

#[test]
fn one_fallen_unconscious_is_a_fallen_opponent_whose_range_changes_freely() {
    // Ruling unconscious and 000 §1.2.3.5 Change range, "to any fallen
    // opponent": Zed's blow leaves Yan at EN -2. Yan falls where he stands,
    // and Zed may change the range to him, to 2.
    let mut b = battle(
        r#"
        (name: "Zed", side: "A", template: "swordsman", at: (5, 5)),
        (name: "Yan", side: "B", template: "spearman", at: (6, 5), set: {"en": 1}),
        (name: "Xan", side: "B", template: "runner", at: (18, 9)),
    "#,
        &[9, 9, 1, 2],
        vec![
            at(Q::Option, "Zed", "attack", "Yan"),
            o(Q::Option, "Xan", "pass"),
            (
                Q::Option,
                Order::new("Zed", "change_range")
                    .target("Yan")
                    .cell(Cell::new(4, 5)),
            ),
        ],
        1,
    );
    run(&mut b);
    line(&b, "Yan falls unconscious: EN -2.");
    assert!(
        b.world()
            .get::<detailed::Fallen>(entity(&b, "Yan"))
            .is_some()
    );
    assert_lacks(&b, "the range changes freely only to a fallen opponent");
    assert_eq!(
        *b.world().get::<Cell>(entity(&b, "Zed")).unwrap(),
        Cell::new(4, 5)
    );
}

#[test]
fn blows_landing_together_that_leave_nobody_conscious_end_the_combat_at_once() {
    // 000 §1.1.3 and ruling unconscious: Zed and Yan, alike, declare their
    // attacks together; the blows land together and both fall unconscious.
    // Nobody is conscious: the combat ends there, with no noncombat phase
    // nor movement after it.
    let mut b = battle(
        r#"
        (name: "Zed", side: "A", template: "swordsman", at: (5, 5), set: {"en": 1}),
        (name: "Yan", side: "B", template: "swordsman", at: (6, 5), set: {"en": 1}),
    "#,
        &[9, 9, 1, 2, 9, 9, 1, 2],
        vec![
            at(Q::Option, "Zed", "attack", "Yan"),
            at(Q::Option, "Yan", "attack", "Zed"),
        ],
        2,
    );
    run(&mut b);
    line(&b, "Zed falls unconscious");
    line(&b, "Yan falls unconscious");
    line(&b, "Combat ends in round 1: nobody is conscious.");
    assert_lacks(&b, "noncombat");
    assert_lacks(&b, "movement phase");
}

#[test]
fn a_fallen_chaser_needs_movement_left_once_risen() {
    // Rulings fall and stop_options: Pike lies fallen with 5 of movement,
    // unalert. Rising takes the larger half, 3; the chase's 2 would take
    // the rest: he would run nowhere, and the chase is refused.
    let mut b = battle(
        r#"
        (name: "Pike", side: "A", template: "spearman", at: (5, 4), set: {"move": 5}, starts: ["fallen"]),
        (name: "Sly", side: "B", template: "archer", at: (15, 4), surprised: true),
        (name: "Mira", side: "B", template: "runner", at: (1, 1), surprised: true),
    "#,
        &[],
        vec![
            (
                Q::Trace,
                Order::new("Pike", "chase").target("Mira").with("unalert"),
            ),
            unalert_trace("Mira", (1, 7)),
        ],
        1,
    );
    run(&mut b);
    common::assert_refused(
        &b,
        "Pike's order \"chase\" is refused: a chase costs 2 cells of movement, and it has 2 once risen (ruling fall): none would be left to chase with (ruling stop_options)",
    );
    assert_lacks(&b, "Pike chases");
}

#[test]
fn a_preparation_kept_to_the_end_of_the_round_is_lost_and_said_so() {
    // 000 §1.2.4: "The effects of the preparation are lost ... if the round
    // ends." Ash prepares a great blow with the broadsword (not a thrusting
    // weapon, so no attack need follow at once) and attacks no more this
    // round: as round 2 begins the preparation is lost, in the log.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "swordsman", at: (3, 3)),
        (name: "Bo", side: "B", template: "swordsman", at: (9, 3)),
    "#,
        &[],
        vec![o(Q::Option, "Ash", "prepare")],
        2,
    );
    run(&mut b);
    let prepared = line(&b, "Ash prepares a great blow with the broadsword");
    let lost = line(&b, "Ash's great blow is lost: the round has ended.");
    let round_two = line(&b, "Round 2 begins");
    assert!(prepared < lost && lost < round_two);
}
