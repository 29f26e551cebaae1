//! The basic AI through the `detailed_sequence` ruleset's appraisal: it
//! closes on a foe only to strike it first, lengthens a bow's range with preparations,
//! parries for a friend, and keeps the blow a heavy weapon's attack needs.

mod common;

use fray_ai::basic::BasicAi;
use fray_ai::battle_from_text;
use fray_core::battle::Battle;
use fray_core::decision::{Controller, Order};

fn battle(combatants: &str) -> Battle {
    let text = format!(
        r#"(
    name: "t", ruleset: "detailed_sequence", round_cap: 1,
    grid: (kind: Square, width: 30, height: 10),
    sides: [(name: "A", seat: Human), (name: "B", seat: Human)],
    combatants: [{combatants}],
)"#
    );
    battle_from_text(&text, 1).unwrap()
}

/// The AI's answer to the first decision `who` faces; others pass.
fn first_order(b: &mut Battle, who: &str) -> Order {
    loop {
        let d =
            common::awaited(b).unwrap_or_else(|_| panic!("the battle ended before {who} decided"));
        let order = BasicAi.decide(b.world_mut(), &d).expect("the AI answers");
        if d.actor_name == who {
            return order;
        }
        b.answer(d.id, order);
    }
}

#[test]
fn the_ai_closes_on_a_foe_it_then_strikes_first() {
    // 000 §1.2.3.3: a step close brings Ash within reach of Bo, who has no
    // active blow to strike back with (000 §1.1.2): Ash's three attacks
    // are his.
    let mut b = battle(
        r#"(name: "Ash", side: "A", template: "swordsman", at: (2, 4), set: {"active": 3}),
           (name: "Bo", side: "B", template: "swordsman", at: (4, 4), set: {"active": 0})"#,
    );
    let o = first_order(&mut b, "Ash");
    assert!(
        matches!(o.action.as_str(), "close" | "step_close") && o.target.as_deref() == Some("Bo"),
        "{o:?}"
    );
}

#[test]
fn the_ai_leaves_a_foe_out_of_reach_this_round_to_the_movement_phase() {
    // 000 §1.2.3.1: from five cells a close brings Ash three nearer at
    // most, still out of reach; the movement phase brings him closer for
    // no blow (000 §3).
    let mut b = battle(
        r#"(name: "Ash", side: "A", template: "swordsman", at: (2, 4), set: {"active": 3}),
           (name: "Bo", side: "B", template: "swordsman", at: (7, 4), set: {"active": 0})"#,
    );
    assert_eq!(first_order(&mut b, "Ash").action, "pass");
}

#[test]
fn an_axeman_does_not_close_to_hand_the_swordsman_the_first_blow() {
    // 000 §1.2.3: Brand's close spends a reactive blow; within reach, Aldo
    // then holds as many active blows and more reactive ones, so the
    // initiative and the first blow are his (000 §1.1.2), and Brand's
    // heavy axe has blows for one attack against Aldo's two (000 §1.2.5).
    // Brand waits: the movement phase brings them together (000 §3).
    let mut b = battle(
        r#"(name: "Aldo", side: "A", template: "swordsman", at: (3, 4)),
           (name: "Brand", side: "B", template: "axeman", at: (6, 3))"#,
    );
    assert_eq!(first_order(&mut b, "Brand").action, "pass");
}

#[test]
fn an_archer_prepares_to_reach_a_far_foe() {
    let mut b = battle(
        r#"(name: "Wren", side: "A", template: "archer", at: (1, 4), surprised: true, set: {"active": 3}),
           (name: "Bo", side: "B", template: "swordsman", at: (20, 4), set: {"active": 0})"#,
    );
    let o = first_order(&mut b, "Wren");
    assert_eq!(
        (o.action.as_str(), o.with.as_deref()),
        ("prepare", Some("bow"))
    );
}

#[test]
fn the_ai_parries_for_a_friend() {
    let mut b = battle(
        r#"(name: "Ash", side: "A", template: "axeman", at: (3, 4), set: {"active": 3}),
           (name: "Bo", side: "B", template: "slinger", at: (4, 4), set: {"active": 0}),
           (name: "Cy", side: "B", template: "swordsman", at: (3, 5), set: {"active": 0})"#,
    );
    let a = first_order(&mut b, "Ash");
    assert_eq!(a.action, "attack");
    let d = loop {
        let d = common::awaited(&mut b).unwrap_or_else(|_| panic!("no parry was asked"));
        if d.actor_name == "Ash" {
            b.answer(d.id, a.clone());
            continue;
        }
        break d;
    };
    assert_eq!(d.actor_name, "Cy", "{}", d.prompt);
    let o = BasicAi.decide(b.world_mut(), &d).unwrap();
    assert_eq!(o.action, "parry");
}

/// What `who`, attacked by Ash's first blow, answers when asked to parry.
fn answer_to_a_blow(b: &mut Battle, who: &str) -> Order {
    let a = first_order(b, "Ash");
    assert_eq!(a.action, "attack");
    loop {
        let d = common::awaited(b).unwrap_or_else(|_| panic!("no parry was asked"));
        if d.actor_name == "Ash" {
            b.answer(d.id, a.clone());
            continue;
        }
        assert_eq!(d.actor_name, who, "{}", d.prompt);
        return BasicAi.decide(b.world_mut(), &d).unwrap();
    }
}

#[test]
fn an_axeman_keeps_the_second_blow_its_attack_needs() {
    // 000 §1.2.5: the battleaxe is heavy, so an attack takes an active blow
    // and a second; with 2 active and 2 reactive, a parry spends a reactive
    // blow and leaves one attack rather than two this round.
    let mut b = battle(
        r#"(name: "Ash", side: "A", template: "swordsman", at: (3, 4), set: {"active": 3}),
           (name: "Bo", side: "B", template: "axeman", at: (4, 4))"#,
    );
    assert_eq!(answer_to_a_blow(&mut b, "Bo").action, "pass");
    // A third reactive blow is spare: the parry costs no attack.
    let mut b = battle(
        r#"(name: "Ash", side: "A", template: "swordsman", at: (3, 4), set: {"active": 3}),
           (name: "Bo", side: "B", template: "axeman", at: (4, 4), set: {"reactive": 3})"#,
    );
    assert_eq!(answer_to_a_blow(&mut b, "Bo").action, "parry");
}

#[test]
fn a_fighter_parries_the_blow_that_would_knock_it_out() {
    // 000 §1.2.5: Bo's one blow is its attack and its parry. At 14 EN it
    // keeps it to strike back and takes the battleaxe's 2d8; at 2 EN any
    // hit knocks it out (ruling unconscious), and it parries.
    let blow_at = |en: u32| {
        let mut b = battle(&format!(
            r#"(name: "Ash", side: "A", template: "axeman", at: (3, 4), set: {{"active": 3}}),
               (name: "Bo", side: "B", template: "swordsman", at: (4, 4),
                set: {{"active": 1, "reactive": 0, "en": {en}}})"#
        ));
        answer_to_a_blow(&mut b, "Bo").action
    };
    assert_eq!(blow_at(14), "pass");
    assert_eq!(blow_at(2), "parry");
}

/// The AI's answer to the first decision `who` faces whose prompt says
/// `asked`; the AI answers every decision before it.
fn order_when(b: &mut Battle, who: &str, asked: &str) -> Order {
    loop {
        let d = common::awaited(b)
            .unwrap_or_else(|_| panic!("the battle ended before {who} was asked {asked:?}"));
        let order = BasicAi.decide(b.world_mut(), &d).expect("the AI answers");
        if d.actor_name == who && d.prompt.contains(asked) {
            return order;
        }
        b.answer(d.id, order);
    }
}

#[test]
fn a_fighter_draws_a_trace_to_an_archer_who_stands_to_shoot_rather_than_chasing() {
    // 000 §1.2.5: Wren is unalert to shoot, not to run; a chase would cost
    // Ash 2" and follow a trace that goes nowhere (000 §3.1), so he draws
    // his own trace, stopping within reach of her.
    let o = traced(
        r#"(name: "Ash", side: "A", template: "swordsman", at: (2, 4)),
           (name: "Wren", side: "B", template: "archer", at: (12, 4), surprised: true, set: {"active": 0, "reactive": 0})"#,
    );
    assert_eq!((o.0.as_str(), o.1.as_deref()), ("trace", Some("Wren")));
}

/// What Ash plots in a battle of `combatants`: the action and its target.
fn traced(combatants: &str) -> (String, Option<String>) {
    let mut b = battle(combatants);
    let o = order_when(&mut b, "Ash", "plot a trace");
    (o.action.to_string(), o.target.map(|t| t.to_string()))
}

#[test]
fn a_fighter_does_not_chase_a_runner_with_no_movement_left_after_the_chase() {
    // 000 §3.1: "A character who wishes to chase another character loses
    // 2\" of movement": with 2 in all, Ash's chase of the running Bo would
    // go nowhere; he draws a trace toward her.
    let o = traced(
        r#"(name: "Ash", side: "A", template: "swordsman", at: (2, 4), set: {"move": 2}),
           (name: "Bo", side: "B", template: "runner", at: (12, 4), surprised: true, set: {"active": 0, "reactive": 0})"#,
    );
    assert_eq!((o.0.as_str(), o.1.as_deref()), ("trace", Some("Bo")));
}

#[test]
fn an_unalert_fighter_becomes_alert_when_an_archer_can_shoot_at_it() {
    // 000 §1.2.5.1.3: Wren's hit roll on an unalert Ash is doubled; twelve
    // cells off, she reaches him with her bow, and a pass makes him alert
    // for no blow (000 §1.2.1).
    let mut b = battle(
        r#"(name: "Ash", side: "A", template: "swordsman", at: (2, 4), surprised: true),
           (name: "Wren", side: "B", template: "archer", at: (14, 4), surprised: true)"#,
    );
    let o = first_order(&mut b, "Ash");
    assert_eq!(
        (o.action.as_str(), o.with.as_deref()),
        ("pass", Some("alert")),
        "{o:?}"
    );
}

#[test]
fn a_fighter_runs_up_to_an_archer_unalert_and_becomes_alert_as_it_stops() {
    // 000 §3: with no melee foe to strike him first, Ash gives up
    // alertness for his full movement toward Wren, and stops alert, out
    // of the partial surprise of her next shots (000 §1.2.5.1.3).
    let mut b = battle(
        r#"(name: "Ash", side: "A", template: "swordsman", at: (2, 4)),
           (name: "Wren", side: "B", template: "archer", at: (10, 4), surprised: true, set: {"active": 0, "reactive": 0})"#,
    );
    let o = order_when(&mut b, "Ash", "plot a trace");
    assert_eq!(
        (o.action.as_str(), o.with.as_deref()),
        ("trace", Some("unalert")),
        "{o:?}"
    );
    assert_eq!(order_when(&mut b, "Ash", "has stopped").action, "alert");
}

#[test]
fn an_archer_walks_up_to_a_foe_beyond_a_preparations_range() {
    // 000 §1.2.4: a preparation doubles the bow's 12 cells; Sly, 27 cells
    // off, is beyond even that, so Wren walks up, unalert to shoot
    // (000 §1.2.5), rather than stand idle round after round. 24 cells
    // off, a preparation reaches him, and she stands to shoot.
    let plotted = |sly: u32| {
        let mut b = battle(&format!(
            r#"(name: "Wren", side: "A", template: "archer", at: (1, 4), surprised: true),
               (name: "Sly", side: "B", template: "archer", at: ({sly}, 4), surprised: true)"#
        ));
        let o = order_when(&mut b, "Wren", "plot a trace");
        (o.action.to_string(), o.with.map(|w| w.to_string()))
    };
    assert_eq!(plotted(28), ("trace".into(), Some("unalert".into())));
    assert_eq!(plotted(25).0, "stay");
}
