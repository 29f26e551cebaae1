//! A scenario's script: orders bound to the question they answer, and who
//! decides once the script runs out.

mod common;

use fray_ai::battle_from_text;

/// Brienne's side plays a script; when it runs out, a person is asked.
fn duel(asked: &str) -> String {
    format!(
        r#"(name: "t", ruleset: "declared",
        grid: (kind: Square, width: 8, height: 8),
        sides: [(name: "Wardens", seat: Script, after_script: Person), (name: "Raiders")],
        combatants: [
            (name: "Brienne", side: "Wardens", template: "knight", at: (1, 4)),
            (name: "Grusk", side: "Raiders", template: "bugbear_scoundrel", at: (6, 3)),
        ],
        orders: [(round: 1, asked: "{asked}", order: (actor: "Brienne", action: "full_defense"))])"#
    )
}

/// Run until a person must decide; the round it happens in.
fn waits_in_round(text: &str) -> u32 {
    let mut b = battle_from_text(text, 3).unwrap();
    let d =
        common::awaited(&mut b).unwrap_or_else(|_| panic!("the battle did not wait for a person"));
    assert_eq!(d.actor_name, "Brienne");
    b.world().resource::<fray_core::log::BattleLog>().round
}

#[test]
fn a_script_bound_to_its_question_plays_there_and_a_person_takes_over_after() {
    // The order answers the declaration (004 §Step 3): round 1 is scripted,
    // and in round 2 the script has run out: a person is asked.
    assert_eq!(waits_in_round(&duel("004 §Step 3")), 2);
    // Bound to a question never asked, it never plays: a person is asked at
    // once.
    assert_eq!(waits_in_round(&duel("004 §Step 4")), 1);
}

#[test]
fn once_the_script_runs_out_the_ai_decides_unless_the_side_names_a_person() {
    // Without `after_script`, the side's AI takes over when its script runs
    // out: the battle plays on to its end and no person is ever asked.
    let text = duel("004 §Step 3").replace(", after_script: Person", "");
    let mut b = battle_from_text(&text, 3).unwrap();
    let progress = b.run();
    assert!(
        matches!(progress, fray_core::battle::Progress::Over(_)),
        "{progress:?}"
    );
    let log = b.world().resource::<fray_core::log::BattleLog>();
    let texts = log.texts();
    assert!(
        texts
            .iter()
            .any(|t| t.contains("Brienne") && t.contains("full defense")),
        "{texts:#?}"
    );
    assert!(log.round >= 2, "the battle went on past the script");
    // The hand-over is said, once.
    let said = texts
        .iter()
        .filter(|t| t.contains("The script has no order"))
        .count();
    assert_eq!(said, 1);
    assert!(texts.iter().any(|t| t.contains(
        "The script has no order for Brienne's question (004 §Step 3): the AI decides what it does not cover, from now on."
    )));
}
