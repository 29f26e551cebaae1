//! The `phases` ruleset (rules/002) with forced dice: each test pins the
//! exact outcome of a paragraph of the text.

mod common;

use bevy_ecs::prelude::*;
use common::{Script, assert_lacks, count, line, run, texts};
use fray_core::battle::Battle;
use fray_core::data::Source;
use fray_core::decision::{Controller, Decision, Order};
use fray_core::grid::Cell;
use fray_core::log::BattleLog;
use fray_core::model::Rostered;
use fray_core::scenario::LoadedScenario;
use fray_rules::phases::{self, Asking, Flow, Guard, Initiative, PhasesData, Stun};
use fray_rules::ruleset::DataFile;

/// Which question an order answers.
#[derive(Clone, Copy, PartialEq)]
enum Q {
    /// The actor's own turn, in any phase or only in the phase given.
    Turn(Option<u32>),
    Opportunity,
    Abort,
    Readied,
}

/// Which question a decision asks.
fn asked(world: &World, _: &Decision) -> Q {
    let flow = world.resource::<Flow>();
    match flow.asking.map(|a| a.2) {
        Some(Asking::Opportunity { .. }) => Q::Opportunity,
        Some(Asking::Abort { .. }) => Q::Abort,
        Some(Asking::Readied { .. }) => Q::Readied,
        _ => Q::Turn(Some(flow.phase)),
    }
}

/// Plays the orders given, each once, to the first question of its kind for
/// its actor; otherwise ends turns, lets opportunities and aborts pass, and
/// takes a readied action when its condition is met.
fn script(orders: Vec<(Q, Order, bool)>) -> Box<dyn Controller> {
    Box::new(TakesReadied(Script {
        orders,
        asked,
        fits: |order, asked| match (order, asked) {
            (Q::Turn(p), Q::Turn(now)) => p.is_none() || p == now,
            (a, b) => a == b,
        },
        otherwise: |q, d| match q {
            Q::Turn(_) => Order::new(&d.actor_name, "end"),
            _ => Order::new(&d.actor_name, "pass"),
        },
    }))
}

/// A script that takes a readied action it was given no order for: the
/// first legal choice of the question, the readied strike or shot.
struct TakesReadied(Script<Q>);

impl Controller for TakesReadied {
    fn decide(&mut self, world: &mut World, d: &Decision) -> Option<Order> {
        let scripted = self
            .0
            .orders
            .iter()
            .any(|(q, o, used)| !used && o.actor == d.actor_name && *q == Q::Readied);
        if asked(world, d) == Q::Readied && !scripted {
            let hooks = *world.resource::<fray_core::ai::AiHooks>();
            return (hooks.appraise)(world, d.actor)
                .into_iter()
                .map(|a| a.order)
                .find(|o| o.action != "pass" && (hooks.legal)(world, d.actor, o));
        }
        self.0.decide(world, d)
    }
}

/// A battle on a square field, one turn long, from a list of characters
/// (`(name: .., side: .., ..)` as in a scenario) and forced dice.
fn battle(characters: &str, dice: &[u32], orders: Vec<(Q, Order)>) -> Battle {
    battle_with(characters, dice, orders, "Square", 1)
}

fn battle_with(
    characters: &str,
    dice: &[u32],
    orders: Vec<(Q, Order)>,
    kind: &str,
    turns: u32,
) -> Battle {
    let text = format!(
        "(name: \"t\", ruleset: \"phases\", round_cap: {turns},
          grid: (kind: {kind}, width: 12, height: 12),
          sides: [(name: \"A\"), (name: \"B\")],
          combatants: [{characters}])"
    );
    common::battle(&text, dice, |_| {
        script(orders.iter().cloned().map(|(q, o)| (q, o, false)).collect())
    })
}

/// The ruleset's built-in data.
fn data() -> PhasesData {
    PhasesData::load(&Source::inline("phases.ron", phases::RULESET.data)).unwrap()
}

fn entity(b: &Battle, name: &str) -> Entity {
    b.world().resource::<Flow>().entity(name).unwrap()
}

fn stun(b: &Battle, name: &str) -> i32 {
    b.world().get::<Stun>(entity(b, name)).unwrap().current
}

fn cell(b: &Battle, name: &str) -> Cell {
    *b.world().get::<Cell>(entity(b, name)).unwrap()
}

/// An order for the actor's own turn.
fn o(actor: &str, action: &str) -> Turn {
    Turn(Order::new(actor, action))
}

/// Builds a turn order; converts into a scripted answer.
struct Turn(Order);

impl Turn {
    fn target(self, t: &str) -> (Q, Order) {
        (Q::Turn(None), self.0.target(t))
    }
    fn cell(self, c: Cell) -> (Q, Order) {
        (Q::Turn(None), self.0.cell(c))
    }
}

impl From<Turn> for (Q, Order) {
    fn from(t: Turn) -> Self {
        (Q::Turn(None), t.0)
    }
}

/// An order kept for the actor's turn in phase `p`.
fn in_phase(p: u32, (q, o): (Q, Order)) -> (Q, Order) {
    match q {
        Q::Turn(_) => (Q::Turn(Some(p)), o),
        other => (other, o),
    }
}

/// An attack of opportunity `actor` takes on `target`.
fn aoo(actor: &str, target: &str) -> (Q, Order) {
    (Q::Opportunity, Order::new(actor, "strike").target(target))
}

/// An abort to `to` ("dodge" or "block").
fn abort(actor: &str, to: &str) -> (Q, Order) {
    (Q::Abort, Order::new(actor, to))
}

/// Two opponents standing next to each other: Ash (CV 6) and Bo (CV 5).
const PAIR: &str = r#"
    (name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 6}),
    (name: "Bo", side: "B", template: "bravo", at: (4, 3)),
"#;

#[test]
fn initiative_is_combat_value_plus_lightning_reflexes_and_ties_roll_off_once() {
    // 002 §Initiative. Cy and Di tie at 5 and roll 2 and 5: Di goes first.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (1, 1), set: {"lightning_reflexes": 2}),
        (name: "Cy", side: "A", template: "bravo", at: (1, 3)),
        (name: "Di", side: "B", template: "bravo", at: (9, 3)),
        (name: "Ed", side: "B", template: "bravo", at: (9, 9), set: {"cv": 3}),
    "#,
        &[2, 5],
        vec![],
    );
    run(&mut b);
    line(
        &b,
        "Ash's Initiative score is 7: Combat Value 5 plus Lightning Reflexes +2.",
    );
    line(&b, "Cy is tied at 5 and rolls 2");
    line(&b, "Di is tied at 5 and rolls 5");
    line(
        &b,
        "The order, highest first, for every phase: Ash, Di, Cy, Ed.",
    );
    // 002 §Initiative: the same order in every phase; nobody rolls again.
    assert_eq!(count(&b, "to break the tie"), 2);
    let order: Vec<String> = b
        .world()
        .resource::<Flow>()
        .order
        .iter()
        .map(|&e| b.world().resource::<Flow>().name(e).to_string())
        .collect();
    assert_eq!(order, ["Ash", "Di", "Cy", "Ed"]);
}

#[test]
fn an_attack_roll_equal_to_ten_plus_dcv_hits_and_normal_damage_counts_body() {
    // 002 §Attack Roll, ruling attack_ties: 3d6 10 + OCV 6 = 16 against
    // 10 + DCV 6 = 16 hits. Ruling damage: 4d6 [1, 6, 3, 4] = 14 STUN,
    // BODY 0 + 2 + 1 + 1 = 4; PD 4 leaves 10 STUN and 0 BODY.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 6}),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3), set: {"cv": 6, "lightning_reflexes": -1}),
    "#,
        &[4, 5, 1, 1, 6, 3, 4],
        vec![o("Ash", "strike").target("Bo")],
    );
    run(&mut b);
    line(
        &b,
        "Ash strikes at Bo: 3d6 10 + OCV 6 = 16 against 10 + DCV 6 = 16: hit.",
    );
    line(
        &b,
        "Bo takes 14 STUN and 4 BODY, less PD 4: 10 STUN (14 left), 0 BODY (10 left).",
    );
    // Recovered 5 in the Post-Turn (ruling post_turn_recovery).
    assert_eq!(stun(&b, "Bo"), 19);
    // One below misses.
    let mut b = battle(PAIR, &[4, 4, 1], vec![o("Ash", "strike").target("Bo")]);
    run(&mut b);
    line(
        &b,
        "Ash strikes at Bo: 3d6 9 + OCV 6 = 15 against 10 + DCV 5 = 15: hit.",
    );
    let mut b = battle(PAIR, &[3, 4, 1], vec![o("Ash", "strike").target("Bo")]);
    run(&mut b);
    line(&b, "= 14 against 10 + DCV 5 = 15: miss.");
}

#[test]
fn a_normal_phase_allows_an_attack_and_a_move_or_two_moves_or_a_full_phase() {
    // 002 §Normal Phase: Ash strikes, then a second strike is refused, a
    // move action is allowed; a full move after a strike is refused.
    let mut b = battle(
        PAIR,
        &[1, 1, 1, 1, 1, 1],
        vec![
            o("Ash", "strike").target("Bo"),
            o("Ash", "haymaker").target("Bo"),
            o("Ash", "full_move").cell(Cell::new(3, 9)),
            o("Ash", "move").cell(Cell::new(3, 0)),
        ],
    );
    run(&mut b);
    line(
        &b,
        "Ash's order \"haymaker\" is refused: one attack action a phase",
    );
    line(
        &b,
        "Ash's order \"full_move\" is refused: a full-phase action needs the whole phase",
    );
    // Half of 6 is 3: the move action reaches (3, 0).
    line(
        &b,
        "Ash moves (a move action) from (3, 3) to (3, 0) (3 hexes).",
    );
}

#[test]
fn moving_out_of_a_threatened_hex_provokes_and_the_move_goes_on_after() {
    // 002 §Moving Out and §Interrupts: Bo (CV 5) walks away from Ash (CV 6,
    // who ends its turn first). Ash's attack of opportunity comes before Bo
    // leaves; then Bo's move is completed.
    let mut b = battle(
        PAIR,
        &[6, 6, 6, 2, 2, 2, 2],
        vec![o("Bo", "move").cell(Cell::new(7, 3)), aoo("Ash", "Bo")],
    );
    run(&mut b);
    let provoke = line(
        &b,
        "Bo moves out of a hex threatened by Ash: an opportunity.",
    );
    let aoo = line(&b, "Ash strikes at Bo (attack of opportunity): 3d6 18");
    let hit = line(&b, "Bo takes 8 STUN");
    let moved = line(
        &b,
        "Bo moves (a move action) from (4, 3) to (7, 3) (3 hexes).",
    );
    assert!(provoke < aoo && aoo < hit && hit < moved);
    assert_eq!(cell(&b, "Bo"), Cell::new(7, 3));
}

#[test]
fn the_one_hex_step_never_provokes_and_forbids_other_movement() {
    // 002 §1-Hex Step: Bo steps out of Ash's reach; no opportunity. Then a
    // move in the same phase is refused.
    let mut b = battle(
        PAIR,
        &[],
        vec![
            o("Bo", "step").cell(Cell::new(5, 3)),
            o("Bo", "move").cell(Cell::new(7, 3)),
        ],
    );
    run(&mut b);
    line(&b, "Bo takes a 1-hex step from (4, 3) to (5, 3) (1 hex).");
    assert_eq!(count(&b, "an opportunity"), 0);
    line(
        &b,
        "Bo's order \"move\" is refused: no movement in a phase with a 1-hex step",
    );
    // A character with 1 hex of movement cannot step at all.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 6}),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3), set: {"move": 1}),
    "#,
        &[],
        vec![o("Bo", "step").cell(Cell::new(5, 3))],
    );
    run(&mut b);
    line(
        &b,
        "refused: a character with 1 hex of movement or less cannot take a 1-hex step",
    );
}

#[test]
fn a_skill_check_negates_the_opportunities_of_a_move() {
    // Ruling skill_check_negates: Bo has Acrobatics 12 and rolls 9.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 6}),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3), set: {"acrobatics": 12}),
    "#,
        &[3, 3, 3],
        vec![o("Bo", "move").cell(Cell::new(7, 3))],
    );
    run(&mut b);
    line(
        &b,
        "Bo rolls acrobatics 9 against 12 or less: the action provokes no attack of opportunity.",
    );
    assert_eq!(count(&b, "an opportunity"), 0);
    // A failed roll (13) provokes.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 6}),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3), set: {"acrobatics": 12}),
    "#,
        &[5, 4, 4, 1, 1, 1],
        vec![o("Bo", "move").cell(Cell::new(7, 3)), aoo("Ash", "Bo")],
    );
    run(&mut b);
    line(&b, "rolls acrobatics 13 against 12 or less and fails");
    line(&b, "Ash strikes at Bo (attack of opportunity)");
}

#[test]
fn leaving_several_hexes_threatened_by_one_opponent_is_one_opportunity() {
    // 002 §Combat Reflexes: Ann (reach 3, Combat Reflexes) threatens every
    // hex Bo walks out of, but it is one opportunity; a second mover gives a
    // second one, which Combat Reflexes allows.
    let mut b = battle(
        r#"
        (name: "Ann", side: "A", template: "stretcher", at: (2, 5), set: {"cv": 7}),
        (name: "Bo", side: "B", template: "bravo", at: (3, 5), set: {"move": 8}),
        (name: "Cy", side: "B", template: "bravo", at: (2, 4), set: {"cv": 4}),
    "#,
        &[1, 1, 1, 1, 1, 1],
        vec![
            o("Bo", "full_move").cell(Cell::new(8, 5)),
            o("Cy", "move").cell(Cell::new(2, 1)),
            aoo("Ann", "Bo"),
            aoo("Ann", "Cy"),
        ],
    );
    run(&mut b);
    assert_eq!(count(&b, "Bo moves out of a hex threatened by Ann"), 1);
    assert_eq!(count(&b, "Cy moves out of a hex threatened by Ann"), 1);
    assert_eq!(count(&b, "(attack of opportunity)"), 2);
    // Without Combat Reflexes, only one a phase.
    let mut b = battle(
        r#"
        (name: "Ann", side: "A", template: "stretcher", at: (2, 5), set: {"cv": 7, "combat_reflexes": 0}),
        (name: "Bo", side: "B", template: "bravo", at: (3, 5), set: {"move": 8}),
        (name: "Cy", side: "B", template: "bravo", at: (2, 4), set: {"cv": 4}),
    "#,
        &[1, 1, 1, 1, 1, 1],
        vec![
            o("Bo", "full_move").cell(Cell::new(8, 5)),
            o("Cy", "move").cell(Cell::new(2, 1)),
            aoo("Ann", "Bo"),
            aoo("Ann", "Cy"),
        ],
    );
    run(&mut b);
    assert_eq!(count(&b, "(attack of opportunity)"), 1);
    assert_eq!(count(&b, "Cy moves out of a hex threatened"), 0);
}

#[test]
fn no_attack_of_opportunity_after_a_dodge_and_withdraw_spares_the_first_hex() {
    // 002 §One per Phase: Ash dodged, so Bo leaves freely.
    let mut b = battle(
        PAIR,
        &[],
        vec![
            o("Ash", "dodge").into(),
            o("Bo", "move").cell(Cell::new(7, 3)),
        ],
    );
    run(&mut b);
    line(&b, "Ash dodges: +3 DCV until its next action.");
    assert_eq!(count(&b, "an opportunity"), 0);
    // Ruling withdraw: leaving the starting hex does not provoke.
    let mut b = battle(PAIR, &[], vec![o("Bo", "withdraw").cell(Cell::new(9, 3))]);
    run(&mut b);
    line(
        &b,
        "Bo withdraws (a full-phase action) from (4, 3) to (9, 3) (5 hexes).",
    );
    assert_eq!(count(&b, "an opportunity"), 0);
}

#[test]
fn reloading_in_a_threatened_hex_provokes_unless_fast_draw_succeeds() {
    // 002 §Distracting Actions and the table: "Reload a gun: Yes (skill check
    // negates)". Maud (Fast Draw 11) shoots Bo twice, then reloads next to
    // Bo; her roll of 15 fails and Bo strikes.
    let chars = r#"
        (name: "Maud", side: "A", template: "gunman", at: (3, 3), set: {"cv": 8}),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3)),
    "#;
    let mut b = battle_with(
        chars,
        &[1, 1, 1, 1, 1, 1, 5, 5, 5, 1, 1, 1],
        vec![
            in_phase(1, o("Maud", "shoot").target("Bo")),
            in_phase(2, o("Maud", "shoot").target("Bo")),
            in_phase(3, o("Maud", "shoot").target("Bo")),
            in_phase(3, o("Maud", "reload").into()),
            aoo("Bo", "Maud"),
        ],
        "Square",
        1,
    );
    run(&mut b);
    line(&b, "Maud shoots at Bo");
    line(
        &b,
        "refused: the pistol is empty: reload it (a move action)",
    );
    let provoke = line(
        &b,
        "Maud's \"Reload a gun\" in a threatened hex provokes Bo.",
    );
    let aoo = line(&b, "Bo strikes at Maud (attack of opportunity)");
    let reload = line(&b, "Maud reloads the pistol (2 shots).");
    assert!(provoke < aoo && aoo < reload);
}

#[test]
fn a_surprise_phase_only_when_some_are_aware_with_one_action_and_minus_three_dcv() {
    // 002 §Surprise Phase: Bo is unaware. Ash acts with one attack action,
    // against DCV 5 - 3; its move after is refused (restricted phase).
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (3, 3)),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3), surprised: true, set: {"cv": 6}),
    "#,
        &[4, 4, 4, 1, 1, 1, 1],
        vec![
            o("Ash", "strike").target("Bo"),
            o("Ash", "move").cell(Cell::new(0, 3)),
        ],
    );
    run(&mut b);
    let surprise = line(&b, "The Surprise Phase: the aware act in initiative order");
    let hit = line(
        &b,
        "Ash strikes at Bo: 3d6 12 + OCV 5 = 17 against 10 + DCV 3 = 13 (DCV: Unaware (Surprise Phase) -3): hit.",
    );
    line(
        &b,
        "Ash's order \"move\" is refused: only one attack or move action in this phase",
    );
    let phase1 = line(&b, "The Surprise Phase is over; everyone is aware.");
    assert!(surprise < hit && hit < phase1);
    // Everyone unaware: no Surprise Phase.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (3, 3), surprised: true),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3), surprised: true, set: {"cv": 6}),
    "#,
        &[],
        vec![],
    );
    run(&mut b);
    assert_eq!(count(&b, "The Surprise Phase:"), 0);
    line(&b, "but nobody is: there is no Surprise Phase");
}

#[test]
fn delaying_moves_the_character_and_a_delay_into_the_next_phase_takes_its_action() {
    // 002 §Delay and §Delay Consequences. Order: Ash 7, Bo 6, Cy 5.
    let chars = r#"
        (name: "Ash", side: "A", template: "bravo", at: (1, 1), set: {"cv": 7}),
        (name: "Bo", side: "B", template: "bravo", at: (9, 1), set: {"cv": 6}),
        (name: "Cy", side: "A", template: "bravo", at: (1, 9), set: {"cv": 5}),
    "#;
    // Ash waits until just before Cy: Bo acts, then Ash, then Cy.
    let mut b = battle(
        chars,
        &[],
        vec![
            o("Ash", "delay").target("Cy"),
            o("Ash", "step").cell(Cell::new(2, 1)),
        ],
    );
    run(&mut b);
    line(&b, "Ash delays, to act just before Cy this phase");
    let stepped = line(&b, "Ash takes a 1-hex step from (1, 1) to (2, 1)");
    let ash = entity(&b, "Ash");
    let init = b.world().get::<Initiative>(ash).unwrap().clone();
    assert_eq!(init.score, 5, "Ash takes Cy's place: {init:?}");
    assert_eq!(init.moved.as_deref(), Some("just before Cy (delayed)"));
    let order: Vec<String> = b
        .world()
        .resource::<Flow>()
        .order
        .iter()
        .map(|&e| b.world().resource::<Flow>().name(e).to_string())
        .collect();
    assert_eq!(order, ["Bo", "Ash", "Cy"]);
    assert!(stepped > 0);
    // Cy delays until before Ash, who has acted: Cy acts first in phase 2
    // and does not get its regular action there.
    let mut b = battle(
        chars,
        &[],
        vec![
            o("Cy", "delay").target("Ash"),
            o("Cy", "step").cell(Cell::new(2, 9)),
            in_phase(3, o("Cy", "step").cell(Cell::new(3, 9))),
        ],
    );
    run(&mut b);
    line(&b, "Cy delays, to act just before Ash in the next phase");
    let texts = texts(&b);
    let phase2 = line(&b, "Turn 1, phase 2 begins.");
    let cy = line(&b, "Cy takes a 1-hex step from (1, 9) to (2, 9)");
    assert!(cy > phase2, "{}", texts.join("\n"));
    // Its second step order was never used: no regular turn in phase 2, and
    // in phase 3 it moves from (2, 9).
    line(&b, "Cy takes a 1-hex step from (2, 9) to (3, 9)");
    assert!(
        line(&b, "Turn 1, phase 3 begins.")
            < line(&b, "Cy takes a 1-hex step from (2, 9) to (3, 9)")
    );
}

#[test]
fn a_readied_strike_cuts_into_the_move_that_sets_it_off() {
    // 002 §Ready and §Ready Conditions: Ash readies; Bo walks up to it; the
    // strike comes as Bo enters Ash's reach, before Bo strikes; Ash acts just
    // ahead of Bo from then on.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (2, 3), set: {"cv": 6}),
        (name: "Bo", side: "B", template: "bravo", at: (6, 3)),
    "#,
        &[6, 6, 6, 3, 3, 3, 3, 1, 1, 1],
        vec![
            o("Ash", "ready").into(),
            o("Bo", "move").cell(Cell::new(3, 3)),
            o("Bo", "strike").target("Ash"),
            abort("Bo", "dodge"),
        ],
    );
    run(&mut b);
    // Ruling abort_options: no abort in one's own turn.
    assert_eq!(count(&b, "aborts"), 0);
    line(
        &b,
        "Ash readies a strike at the first opponent to come within its reach",
    );
    let fires = line(
        &b,
        "Ash's readied strike goes off: it cuts in just before Bo goes on",
    );
    let strike = line(&b, "Ash strikes at Bo (readied): 3d6 18");
    let bo = line(&b, "Bo strikes at Ash");
    assert!(fires < strike && strike < bo);
    line(
        &b,
        "Bo moves (a move action) from (6, 3) to (3, 3) (3 hexes).",
    );
    let ash = entity(&b, "Ash");
    assert_eq!(
        b.world().get::<Initiative>(ash).unwrap().moved.as_deref(),
        Some("just before Bo (readied)")
    );
    // A readied action not taken by the character's next action lapses.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (2, 3), set: {"cv": 6}),
        (name: "Bo", side: "B", template: "bravo", at: (9, 9)),
    "#,
        &[],
        vec![o("Ash", "ready").into()],
    );
    run(&mut b);
    line(
        &b,
        "Ash comes to its next action without having taken its readied action",
    );
}

#[test]
fn aborting_after_readying_gives_up_the_next_phase_too() {
    // 002 §Abort: "after acting on your initiative score earlier in a
    // Phase ... gives up your Action from the following Phase". Ash (CV 6)
    // readies at its place; Bo's strike then comes, and Ash aborts to
    // Dodge: the readied action goes, and the next phase's action with it.
    let mut b = battle_with(
        PAIR,
        &[1; 12],
        vec![
            o("Ash", "ready").into(),
            o("Bo", "strike").target("Ash"),
            abort("Ash", "dodge"),
            in_phase(2, o("Ash", "strike").target("Bo")),
        ],
        "Square",
        1,
    );
    run(&mut b);
    line(
        &b,
        "Ash aborts to Dodge against Bo's attack, giving up the readied action it held and, having readied on its initiative score this phase, its action in the next phase.",
    );
    let phase2 = line(&b, "Turn 1, phase 2 begins.");
    let strikes: Vec<usize> = texts(&b)
        .iter()
        .enumerate()
        .filter(|(_, t)| t.starts_with("Ash strikes at Bo"))
        .map(|(i, _)| i)
        .collect();
    assert!(
        strikes
            .iter()
            .all(|&i| i < phase2 || i > line(&b, "Turn 1, phase 3 begins.")),
        "{}",
        texts(&b).join("\n")
    );
}

#[test]
fn aborting_with_an_action_held_from_an_earlier_phase_gives_up_this_phases() {
    // 002 §Abort: "giving up your next Action"; §Ready Consequences: coming
    // to its next action, a readied action not taken is lost. Bo readies in
    // phase 1; in phase 2 Ash strikes before Bo's place and Bo aborts to
    // Dodge: the readied action goes, and its place in phase 2 gives it no
    // action.
    let mut b = battle_with(
        PAIR,
        &[1; 12],
        vec![
            in_phase(1, o("Ash", "end").into()),
            in_phase(1, o("Bo", "ready").into()),
            in_phase(2, o("Ash", "strike").target("Bo")),
            abort("Bo", "dodge"),
            in_phase(2, o("Bo", "strike").target("Ash")),
        ],
        "Square",
        1,
    );
    run(&mut b);
    line(
        &b,
        "Bo aborts to Dodge against Ash's attack, giving up the delayed or readied action it held, and with it its action this phase.",
    );
    let (phase2, phase3) = (
        line(&b, "Turn 1, phase 2 begins."),
        line(&b, "Turn 1, phase 3 begins."),
    );
    let strikes = texts(&b)
        .iter()
        .enumerate()
        .filter(|(i, t)| t.starts_with("Bo strikes at Ash") && (phase2..phase3).contains(i))
        .count();
    assert_eq!(strikes, 0, "{}", texts(&b).join("\n"));
}

#[test]
fn aborting_gives_up_this_phase_or_the_next_and_bars_another_abort() {
    // 002 §Abort: Bo (CV 5) is attacked by Ash (CV 6) before its own turn
    // and aborts to Dodge: it gives up this phase's action; DCV 5 + 3.
    let mut b = battle(
        PAIR,
        &[6, 6, 5, 1, 1, 1, 1],
        vec![
            o("Ash", "strike").target("Bo"),
            abort("Bo", "dodge"),
            o("Bo", "strike").target("Ash"),
        ],
    );
    run(&mut b);
    line(
        &b,
        "Bo aborts to Dodge against Ash's attack, giving up its action this phase.",
    );
    line(
        &b,
        "Ash strikes at Bo: 3d6 17 + OCV 6 = 23 against 10 + DCV 8 = 18 (DCV: Manoeuvres +3): hit.",
    );
    // Its strike order is used in phase 2, not phase 1.
    assert!(line(&b, "Turn 1, phase 2 begins.") < line(&b, "Bo strikes at Ash"));
    // After acting, an abort gives up the next phase's action and bars
    // aborting again until that place has passed. Bo blocks Ash's strike in
    // phase 1 (its Block roll, 3 + OCV 5 = 8 against 10 + 4, fails; the Block is spent). In phase 2 Cy
    // (6) strikes before Bo's place and Bo is not asked; Ash (4) strikes
    // after it, and Bo may abort again.
    let chars = r#"
        (name: "Cy", side: "A", template: "bravo", at: (4, 4), set: {"cv": 6}),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3)),
        (name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 4}),
    "#;
    let mut b = battle(
        chars,
        &[1; 12],
        vec![
            in_phase(1, o("Ash", "strike").target("Bo")),
            abort("Bo", "block"),
            in_phase(2, o("Cy", "strike").target("Bo")),
            in_phase(2, o("Ash", "strike").target("Bo")),
            abort("Bo", "dodge"),
        ],
    );
    run(&mut b);
    let first = line(
        &b,
        "Bo aborts to Block against Ash's attack, giving up its action in the next phase",
    );
    line(&b, "Bo fails to block Ash's strike: 8 against 14.");
    let cy = line(&b, "Cy strikes at Bo");
    let gave_up = line(&b, "Bo gave up this action by aborting in the phase before");
    let second = line(&b, "Bo aborts to Dodge against Ash's attack");
    assert!(first < cy && cy < gave_up && gave_up < second);
    assert_eq!(count(&b, "Bo aborts to"), 2, "{}", texts(&b).join("\n"));
}

/// Ash (CV 7) and Cy (CV 6) beside Bo (CV 5): with 3d6 of 6s to hit and
/// 4d6 of 6s, Ash's strike stuns Bo (24 STUN less PD 4 = 20 > CON 12).
const STUNNING: &str = r#"
    (name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 7}),
    (name: "Cy", side: "A", template: "bravo", at: (4, 4), set: {"cv": 6}),
    (name: "Bo", side: "B", template: "bravo", at: (4, 3)),
"#;

#[test]
fn stunned_halves_the_whole_dcv_dodge_included() {
    // Ruling stunned: "half DCV". Bo aborts to Dodge against Ash (DCV 5 + 3
    // = 8) and is Stunned by the hit all the same (3d6 18 + OCV 7 = 25
    // against 18; 24 STUN less PD 4 = 20 > CON 12). Cy then strikes at
    // half of all 8: 4.
    let mut b = battle(
        STUNNING,
        &[6, 6, 6, 6, 6, 6, 6, 1, 1, 1],
        vec![
            o("Ash", "strike").target("Bo"),
            abort("Bo", "dodge"),
            o("Cy", "strike").target("Bo"),
        ],
    );
    run(&mut b);
    line(&b, "Bo is Stunned: 20 STUN is more than its CON of 12.");
    line(
        &b,
        "Cy strikes at Bo: 3d6 3 + OCV 6 = 9 against 10 + DCV 4 = 14 (DCV: Manoeuvres +3, Stunned (half DCV) -4): miss.",
    );
}

#[test]
fn stunned_halves_dcv_and_costs_the_next_action_and_the_post_turn_recovers() {
    // Ruling stunned: 4d6 [6, 6, 6, 6] = 24 STUN, less PD 4 = 20 > CON 12.
    // Cy strikes the Stunned Bo before Bo's turn: DCV 5 halved to 2.
    let mut b = battle(
        STUNNING,
        &[6, 6, 6, 6, 6, 6, 6, 1, 1, 1],
        vec![
            o("Ash", "strike").target("Bo"),
            o("Cy", "strike").target("Bo"),
        ],
    );
    run(&mut b);
    let stunned = line(&b, "Bo is Stunned: 20 STUN is more than its CON of 12.");
    let cy = line(
        &b,
        "Cy strikes at Bo: 3d6 3 + OCV 6 = 9 against 10 + DCV 2 = 12 (DCV: Stunned (half DCV) -3): miss.",
    );
    let recovers = line(
        &b,
        "Bo spends the phase recovering from being Stunned (a full-phase action).",
    );
    assert!(stunned < cy && cy < recovers);
    // Ruling post_turn_recovery: +5 STUN, from 4 to 9.
    line(&b, "Bo Takes a Recovery in the Post-Turn: +5 STUN (9/24).");
}

#[test]
fn recovering_from_being_stunned_leaves_the_1_hex_step() {
    // 002 §Full-Phase Actions: a full-phase action "can't be coupled with an
    // attack or a move action, though you can take a 1-hex step". Bo,
    // Stunned by Ash, recovers on his turn and steps out of Ash's reach.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 7}),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3)),
    "#,
        &[6, 6, 6, 6, 6, 6, 6],
        vec![
            o("Ash", "strike").target("Bo"),
            o("Bo", "step").cell(Cell::new(5, 3)),
        ],
    );
    run(&mut b);
    let recovers = line(
        &b,
        "Bo spends the phase recovering from being Stunned (a full-phase action).",
    );
    let steps = line(&b, "Bo takes a 1-hex step from (4, 3) to (5, 3)");
    assert!(recovers < steps);
    assert_eq!(cell(&b, "Bo"), Cell::new(5, 3));
}

#[test]
fn a_character_stunned_in_the_surprise_phase_recovers_only_in_phase_1() {
    // 002 §Surprise Phase forbids full-phase actions, and recovering from
    // being Stunned is one (ruling stunned): Bo waits it out until phase 1.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 7}),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3)),
        (name: "Dan", side: "B", template: "bravo", at: (9, 9), surprised: true, set: {"cv": 4}),
    "#,
        &[6, 6, 6, 6, 6, 6, 6],
        vec![o("Ash", "strike").target("Bo")],
    );
    run(&mut b);
    let stunned = line(&b, "Bo is Stunned: 20 STUN is more than its CON of 12.");
    let waits = line(
        &b,
        "Bo is Stunned and cannot recover in the Surprise Phase, where no full-phase action may be taken.",
    );
    let over = line(&b, "The Surprise Phase is over; everyone is aware.");
    let recovers = line(
        &b,
        "Bo spends the phase recovering from being Stunned (a full-phase action).",
    );
    assert!(stunned < waits && waits < over && over < recovers);
}

#[test]
fn the_manoeuvres_of_an_attack_of_opportunity_combine_worst_bonus_all_penalties() {
    // 002 §One per Phase, ruling opportunity_manoeuvre: "the worst OCV and
    // DCV bonus, while all OCV and DCV penalties stack". A Haymaker has no
    // DCV bonus (+0) and a -5 penalty, so aborting to Dodge (+3) after it
    // leaves the worst bonus +0 and the penalty: -5.
    let g = Guard {
        manoeuvres: vec![("haymaker".into(), 0, -5), ("dodge".into(), 0, 3)],
        dodge: true,
        block: false,
    };
    assert_eq!(g.combined(None), (0, -5));
    assert_eq!(g.combined(Some((2, 1))), (0, -5));
    let dodging = Guard {
        manoeuvres: vec![("dodge".into(), 0, 3)],
        dodge: true,
        block: false,
    };
    assert_eq!(dodging.combined(None), (0, 3));
    assert_eq!(dodging.combined(Some((2, 1))), (0, 1));
    assert_eq!(Guard::default().combined(Some((0, -5))), (0, -5));
}

#[test]
fn every_ruling_and_paragraph_cited_is_in_the_data() {
    let data = data();
    common::assert_citations(
        &[
            include_str!("../src/phases/mod.rs"),
            include_str!("../src/phases/start.rs"),
            include_str!("../src/phases/turn.rs"),
            include_str!("../src/phases/orders.rs"),
            include_str!("../src/phases/ai.rs"),
            include_str!("../src/phases/view.rs"),
        ],
        "002",
        &data.rulings,
        &data.paragraphs,
        "phases.ron",
    );
}

#[test]
fn combat_levels_add_to_ocv_and_underwater_takes_two_from_dcv() {
    // 002 §Attack Roll, rulings combat_levels and underwater: OCV 5 + 2
    // levels, 3d6 8 = 15 against 10 + DCV 5 - 2 = 13.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"combat_levels": 2, "lightning_reflexes": 1}),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3), set: {"underwater": 1}),
    "#,
        &[2, 3, 3, 1, 1, 1, 1],
        vec![o("Ash", "strike").target("Bo")],
    );
    run(&mut b);
    line(
        &b,
        "Ash strikes at Bo: 3d6 8 + OCV 7 = 15 against 10 + DCV 3 = 13 (DCV: Underwater -2): hit.",
    );
    let e = b
        .world()
        .resource::<BattleLog>()
        .entries()
        .iter()
        .find(|e| e.event == fray_core::log::EventKind::Attack)
        .unwrap()
        .clone();
    let check = e.check.unwrap();
    assert_eq!(
        check
            .modifiers
            .iter()
            .map(|m| (m.name.as_str(), m.value))
            .collect::<Vec<_>>(),
        [("OCV", 5), ("Combat levels", 2)]
    );
    assert_eq!((check.target, check.total, check.success), (13, 15, true));
}

#[test]
fn a_full_phase_action_is_started_and_completed_with_move_actions_in_a_restricted_phase() {
    // 002 §Restricted Phase, ruling split_full_phase: in the Surprise Phase
    // Ash cannot Take a Recovery (a full-phase action) but may start it, and
    // completes it with a move action at its next turn.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (1, 1), set: {"stun": 30}),
        (name: "Bo", side: "B", template: "bravo", at: (9, 9), surprised: true),
    "#,
        &[],
        vec![
            in_phase(0, o("Ash", "recover").into()),
            in_phase(0, o("Ash", "start_recovery").into()),
            in_phase(1, o("Ash", "complete_recovery").into()),
        ],
    );
    // Ash starts hurt: 20 of 30 STUN.
    let ash = entity(&b, "Ash");
    b.world_mut().get_mut::<Stun>(ash).unwrap().current = 20;
    run(&mut b);
    let refused = line(
        &b,
        "Ash's order \"recover\" is refused: no full-phase action in a restricted phase",
    );
    // The refusal cites the paragraph that asked: the Surprise Phase's.
    let entry = &b.world().resource::<BattleLog>().entries()[refused];
    assert_eq!(entry.rule, "002 §Surprise Phase", "{}", entry.text);
    let start = line(&b, "Ash begins a Recovery with a move action");
    let done = line(
        &b,
        "Ash completes its Recovery with a move action: +5 STUN (25/30).",
    );
    assert!(
        start < line(&b, "The Surprise Phase is over")
            && line(&b, "The Surprise Phase is over") < done
    );
}

#[test]
fn a_recovery_begun_waits_for_the_action_delayed() {
    // 002 §Delay: delaying is "Not An Action"; ruling split_full_phase: a
    // Recovery begun completes "at its next action". Ash begins one in the
    // Surprise Phase, delays in phase 1, and completes it when it acts.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (1, 1), set: {"stun": 30}),
        (name: "Bo", side: "B", template: "bravo", at: (9, 9), surprised: true),
    "#,
        &[],
        vec![
            in_phase(0, o("Ash", "start_recovery").into()),
            in_phase(1, o("Ash", "delay").into()),
            in_phase(1, o("Ash", "complete_recovery").into()),
        ],
    );
    let ash = entity(&b, "Ash");
    b.world_mut().get_mut::<Stun>(ash).unwrap().current = 20;
    run(&mut b);
    let delays = line(&b, "Ash delays, to act at the end of the phase");
    assert!(delays < line(&b, "Ash completes its Recovery with a move action"));
    assert_lacks(&b, "the start is lost");
}

#[test]
fn one_stunned_is_told_it_loses_the_action_it_delayed() {
    // Ruling stunned: a Stunned character "loses any delayed or readied
    // action", and the log says so. Bo (7) delays to the end of the phase;
    // Ash's strike stuns him first.
    let mut b = battle(
        &PAIR.replace(r#"at: (4, 3))"#, r#"at: (4, 3), set: {"cv": 7})"#),
        &[6, 6, 6, 6, 6, 6, 6],
        vec![o("Bo", "delay").into(), o("Ash", "strike").target("Bo")],
    );
    run(&mut b);
    line(
        &b,
        "Bo is Stunned: 20 STUN is more than its CON of 12. Half DCV; its next action is spent recovering. It loses the action it delayed.",
    );
}

#[test]
fn a_move_is_logged_in_the_hexes_walked_not_the_straight_line() {
    // 002 §Table (ruling route): Ash goes round a wall to a hex two off as
    // the crow flies; the log counts the four hexes it walked.
    let mut b = battle_with(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (1, 3), set: {"cv": 7}),
        (name: "Bo", side: "B", template: "bravo", at: (11, 11)),
    "#,
        &[],
        vec![o("Ash", "move").cell(Cell::new(3, 3))],
        "Square, obstacles: [(2, 2), (2, 3), (2, 4)]",
        1,
    );
    run(&mut b);
    line(
        &b,
        "Ash moves (a full-phase action) from (1, 3) to (3, 3) (4 hexes).",
    );
}

#[test]
fn a_recovery_begun_is_lost_with_the_action_delayed_when_a_stun_takes_it() {
    // Ruling split_full_phase: the start waits for the action delayed.
    // Ash begins a Recovery in the Surprise Phase and delays in phase 1;
    // Bo's strike stuns him first: he loses both.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 6}),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3), surprised: true),
    "#,
        &[6, 6, 6, 6, 6, 6, 6],
        vec![
            in_phase(0, o("Ash", "start_recovery").into()),
            in_phase(1, o("Ash", "delay").into()),
            in_phase(1, o("Bo", "strike").target("Ash")),
        ],
    );
    run(&mut b);
    let stunned = line(&b, "It loses the action it delayed.");
    assert!(
        stunned
            < line(
                &b,
                "Ash gives up the action it delayed: the Recovery it began is lost."
            )
    );
    assert_lacks(&b, "Ash completes its Recovery");
}

#[test]
fn a_mover_stunned_by_an_attack_of_opportunity_stops_where_it_is() {
    // 002 §Interrupts and ruling interrupted_action: Ash's attack of
    // opportunity does 24 STUN, less PD 4 = 20 > CON 12: Bo is Stunned and its
    // move does not go on.
    let mut b = battle(
        PAIR,
        &[6, 6, 6, 6, 6, 6, 6],
        vec![o("Bo", "move").cell(Cell::new(7, 3)), aoo("Ash", "Bo")],
    );
    run(&mut b);
    line(&b, "Bo is Stunned: 20 STUN is more than its CON of 12.");
    line(&b, "Bo can no longer move: the move stops at (4, 3).");
    assert_eq!(cell(&b, "Bo"), Cell::new(4, 3));
}

#[test]
fn no_one_hex_step_out_of_difficult_terrain_or_in_darkness() {
    // 002 §Step Timing.
    let text = |options: &str, difficult: &str| {
        format!(
            "(name: \"t\", ruleset: \"phases\", round_cap: 1, options: {{{options}}},
              grid: (kind: Hex, width: 8, height: 8, difficult: [{difficult}]),
              sides: [(name: \"A\"), (name: \"B\")],
              combatants: [
                (name: \"Ash\", side: \"A\", template: \"bravo\", at: (2, 2), set: {{\"cv\": 6}}),
                (name: \"Bo\", side: \"B\", template: \"bravo\", at: (6, 6)),
              ])"
        )
    };
    for (options, difficult, why) in [
        (
            "\"darkness\": \"true\"",
            "",
            "no 1-hex step in darkness (ruling darkness)",
        ),
        ("", "(2, 2)", "no 1-hex step out of difficult terrain"),
        ("", "(3, 2)", "no 1-hex step into difficult terrain"),
    ] {
        let mut b = common::battle(&text(options, difficult), &[], |_| {
            script(vec![(
                Q::Turn(Some(1)),
                Order::new("Ash", "step").cell(Cell::new(3, 2)),
                false,
            )])
        });
        run(&mut b);
        line(&b, &format!("Ash's order \"step\" is refused: {why}"));
    }
}

#[test]
fn a_readied_shot_needs_a_line_of_sight_when_it_goes_off() {
    // 002 §Combat Actions: a target "in line of sight". A wall stands
    // between Gil and Bo: Bo's move does not set off the readied shot.
    let text = r#"(name: "t", ruleset: "phases", round_cap: 1,
          grid: (kind: Square, width: 12, height: 12, obstacles: [(3, 2), (3, 3), (3, 4)]),
          sides: [(name: "A"), (name: "B")],
          combatants: [
            (name: "Gil", side: "A", template: "gunman", at: (1, 3), set: {"cv": 6}),
            (name: "Bo", side: "B", template: "bravo", at: (6, 3)),
          ])"#;
    let orders = vec![
        (
            Q::Turn(None),
            Order::new("Gil", "ready").target("Bo").with("pistol"),
            false,
        ),
        (
            Q::Turn(None),
            Order::new("Bo", "move").cell(Cell::new(7, 3)),
            false,
        ),
    ];
    let mut b = common::battle(text, &[6, 6, 6, 1, 1, 1, 1, 1, 1], |_| {
        script(orders.clone())
    });
    run(&mut b);
    line(&b, "Gil readies a shot with the pistol at Bo");
    line(&b, "Bo moves (a move action) from (6, 3)");
    assert_eq!(count(&b, "Gil shoots at Bo"), 0, "{}", texts(&b).join("\n"));
}

#[test]
fn a_shot_can_be_readied_for_a_foes_first_action() {
    // 002 §Ready: "an attack action" — a shot as well as a strike (ruling
    // ready_trigger). Gil readies the pistol for Bo; Bo's move sets it off
    // from 5 hexes, within the pistol's range of 10.
    let mut b = battle(
        r#"
        (name: "Gil", side: "A", template: "gunman", at: (1, 3), set: {"cv": 6}),
        (name: "Bo", side: "B", template: "bravo", at: (6, 3)),
    "#,
        &[6, 6, 6, 1, 1, 1, 1, 1, 1],
        vec![
            (
                Q::Turn(None),
                Order::new("Gil", "ready").target("Bo").with("pistol"),
            ),
            o("Bo", "move").cell(Cell::new(3, 3)),
        ],
    );
    run(&mut b);
    let ready = line(
        &b,
        "Gil readies a shot with the pistol at Bo as soon as it begins an action (an attack action; ruling ready_trigger).",
    );
    let fires = line(
        &b,
        "Gil's readied shot goes off: it cuts in just before Bo goes on",
    );
    let shot = line(&b, "Gil shoots at Bo (readied): 3d6 18");
    let moves = line(&b, "Bo moves (a move action) from (6, 3)");
    assert!(ready < fires && fires < shot && shot < moves);
    let gil = fray_rules::phases::roster(b.world())[0];
    let kit = b.world().get::<fray_rules::phases::Kit>(gil).unwrap();
    assert_eq!(kit.shots[0], 1, "one of the pistol's 2 shots is spent");
}

#[test]
fn a_dodge_still_stands_against_a_strike_readied_for_the_dodgers_next_action() {
    // Ruling dodge: +3 DCV "until the character's next action"; 002 §Ready:
    // the readied action "occurs just before the action that triggers it".
    // Bo (first in the order) dodges in phase 1; Ash readies a strike for
    // Bo's next action. In phase 2 it cuts in just before Bo's strike, and
    // meets Bo's dodge: DCV 6 + 3.
    let characters = r#"
        (name: "Bo", side: "B", template: "bravo", at: (4, 3), set: {"cv": 6}),
        (name: "Ash", side: "A", template: "bravo", at: (3, 3)),
    "#;
    let mut b = battle(
        characters,
        &[1, 1, 1, 1, 1, 1],
        vec![
            o("Bo", "dodge").into(),
            o("Ash", "ready").target("Bo"),
            (Q::Turn(Some(2)), Order::new("Bo", "strike").target("Ash")),
        ],
    );
    run(&mut b);
    let dodge = line(&b, "Bo dodges: +3 DCV until its next action.");
    let fires = line(
        &b,
        "Ash's readied strike goes off: it cuts in just before Bo goes on",
    );
    let strike = line(&b, "Ash strikes at Bo (readied)");
    assert!(dodge < fires && fires < strike);
    assert!(
        texts(&b)[strike].contains("against 10 + DCV 9 = 19 (DCV: Manoeuvres +3)"),
        "{}",
        texts(&b)[strike]
    );
}

#[test]
fn a_strike_readied_for_a_stunned_foe_goes_off_before_its_recovery() {
    // Ruling stunned: Recover from being Stunned is a full-phase action
    // (002 §Full-Phase Actions), so it sets off a strike readied for the
    // foe's next action, "just before the action that triggers it" (002
    // §Ready). Ash readies for Bo; Cy stuns Bo (3d6 18, 24 STUN less PD 4 =
    // 20 > CON 12); on Bo's turn Ash strikes first, then Bo recovers.
    let mut b = battle(
        STUNNING,
        &[6, 6, 6, 6, 6, 6, 6, 1, 1, 1],
        vec![
            o("Ash", "ready").target("Bo"),
            o("Cy", "strike").target("Bo"),
        ],
    );
    run(&mut b);
    let stunned = line(&b, "Bo is Stunned: 20 STUN is more than its CON of 12.");
    let fires = line(
        &b,
        "Ash's readied strike goes off: it cuts in just before Bo goes on",
    );
    let strike = line(&b, "Ash strikes at Bo (readied)");
    let recovers = line(
        &b,
        "Bo spends the phase recovering from being Stunned (a full-phase action).",
    );
    assert!(stunned < fires && fires < strike && strike < recovers);
}

#[test]
fn a_readied_strike_may_be_held_past_a_feint_for_the_real_threat() {
    // 002 §Ready: "any time before your next action, you may take the
    // readied action in response to that condition." Ash readies a strike
    // for whoever comes within reach; Bo steps up first and Ash holds it;
    // then Cy walks up and Ash takes it, just before Cy goes on.
    let characters = r#"
        (name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 6}),
        (name: "Bo", side: "B", template: "bravo", at: (6, 3)),
        (name: "Cy", side: "B", template: "bravo", at: (3, 6)),
    "#;
    let mut b = battle(
        characters,
        // Bo wins the roll-off for the order (2 against 1): Bo, then Cy.
        &[2, 1, 4, 4, 4, 3, 3, 3],
        vec![
            o("Ash", "ready").into(),
            o("Bo", "move").cell(Cell::new(4, 3)),
            (Q::Readied, Order::new("Ash", "pass")),
            o("Cy", "move").cell(Cell::new(3, 4)),
        ],
    );
    run(&mut b);
    let held = line(
        &b,
        "Ash holds its readied action: Bo goes on, and it stays readied until Ash's next action.",
    );
    let fires = line(
        &b,
        "Ash's readied strike goes off: it cuts in just before Cy goes on",
    );
    assert!(held < fires);
    assert_eq!(count(&b, "Ash strikes at Cy (readied)"), 1);
    assert_eq!(count(&b, "Ash strikes at Bo"), 0);
}

#[test]
fn the_readied_question_gives_the_chance_to_hit() {
    // 002 §Attack Roll: Ash's strike, 3d6 + OCV 6 against 10 + Bo's DCV 5,
    // hits on 9 or more: 160 throws of 216, 74%.
    let text = r#"(name: "t", ruleset: "phases", round_cap: 1,
          grid: (kind: Square, width: 12, height: 12),
          sides: [(name: "A"), (name: "B")],
          combatants: [
            (name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 6}),
            (name: "Bo", side: "B", template: "bravo", at: (6, 3)),
          ])"#;
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let heard = asked.clone();
    let mut b = common::battle(text, &[6, 6, 6], move |_| {
        let inner = script(vec![
            (Q::Turn(None), Order::new("Ash", "ready"), false),
            (
                Q::Turn(None),
                Order::new("Bo", "move").cell(Cell::new(4, 3)),
                false,
            ),
        ]);
        Box::new(Hears(inner, heard.clone()))
    });
    run(&mut b);
    let prompts = asked.lock().unwrap();
    assert_eq!(
        prompts.as_slice(),
        [
            "Bo meets the condition of Ash's readied strike: take it now, just before Bo goes on? It hits 74% of the time."
        ]
    );
}

/// Passes the decisions on, noting the prompts of the readied questions.
struct Hears(
    Box<dyn Controller>,
    std::sync::Arc<std::sync::Mutex<Vec<String>>>,
);

impl Controller for Hears {
    fn decide(&mut self, world: &mut World, d: &Decision) -> Option<Order> {
        if asked(world, d) == Q::Readied {
            self.1.lock().unwrap().push(d.prompt.clone());
        }
        self.0.decide(world, d)
    }
}

#[test]
fn a_strike_readied_for_a_foe_waits_for_its_first_action_not_its_delay() {
    // Ruling ready_trigger: Bo delays (not an action): nothing goes off. At
    // its delayed turn its strike is its first action: Ash's readied strike
    // comes just before it. A delayed turn cannot be delayed again.
    let mut b = battle(
        PAIR,
        &[1, 1, 1, 1, 1, 1],
        vec![
            o("Ash", "ready").target("Bo"),
            o("Bo", "delay").into(),
            o("Bo", "delay").into(),
            o("Bo", "strike").target("Ash"),
        ],
    );
    run(&mut b);
    let delay = line(&b, "Bo delays, to act at the end of the phase");
    line(
        &b,
        "Bo's order \"delay\" is refused: this is already a delayed action",
    );
    let fires = line(
        &b,
        "Ash's readied strike goes off: it cuts in just before Bo goes on",
    );
    let ash = line(&b, "Ash strikes at Bo (readied)");
    let bo = line(&b, "Bo strikes at Ash");
    assert!(delay < fires && fires < ash && ash < bo);
}

/// What Bo, played by a person, is asked when Ash (OCV 6) strikes at him;
/// `haymaker`: Bo has thrown a Haymaker since his last action (ruling
/// `haymaker`).
fn abort_prompt(haymaker: bool) -> String {
    let text = r#"(name: "t", ruleset: "phases", round_cap: 1,
          grid: (kind: Square, width: 12, height: 12),
          sides: [(name: "A"), (name: "B")],
          combatants: [
            (name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 6}),
            (name: "Bo", side: "B", template: "bravo", at: (4, 3)),
          ])"#;
    let mut b = common::battle(text, &[6, 6, 5], |side| {
        if side == 0 {
            script(vec![(
                Q::Turn(None),
                Order::new("Ash", "strike").target("Bo"),
                false,
            )])
        } else {
            Box::new(fray_core::decision::HumanSeat)
        }
    });
    if haymaker {
        let bo = entity(&b, "Bo");
        b.world_mut()
            .get_mut::<fray_rules::phases::Guard>(bo)
            .unwrap()
            .manoeuvres
            .push(("haymaker".into(), 0, -5));
    }
    let fray_core::battle::Progress::AwaitingHuman(ids) = b.run() else {
        panic!("Bo is not asked");
    };
    let decisions = b.world().resource::<fray_core::decision::Decisions>();
    decisions.get(ids[0]).unwrap().prompt.clone()
}

#[test]
fn the_abort_question_gives_the_odds_of_each_answer() {
    // 002 §Abort, §Attack Roll: Ash (OCV 6) strikes at Bo (DCV 5): 3d6 + 6
    // against 10 + 5 hits on 9 or more, 160 of 216 throws; Dodge's +3 DCV
    // needs 12 or more, 81 of 216; Bo's Block roll (3d6 + OCV 5 against
    // 10 + 6, ruling block) stops it on 11 or more, 108 of 216.
    assert_eq!(
        abort_prompt(false),
        "Ash attacks Bo (strike: hits 74%; with Dodge 38%; a Block stops it 50%): abort to a defensive action?"
    );
    // Had Bo thrown a Haymaker since its last action, its DCV would be 0:
    // hit on 4 or more, 215 of 216. The abort is Bo's next action, which
    // ends the Haymaker (ruling dodge): the Dodge's odds stay 38%.
    let prompt = abort_prompt(true);
    assert!(prompt.contains("hits 100%; with Dodge 38%"), "{prompt}");
}

#[test]
fn a_delay_before_one_who_delayed_to_the_end_of_the_phase_acts_just_before_it() {
    // 002 §Delay, ruling delay_place: Ash (7) delays to the end of the
    // phase; Bo (6), after Ash's place, delays to act just before Ash: that
    // is still this phase, and Bo goes just before Ash's delayed action.
    let chars = r#"
        (name: "Ash", side: "A", template: "bravo", at: (1, 1), set: {"cv": 7}),
        (name: "Bo", side: "B", template: "bravo", at: (9, 1), set: {"cv": 6}),
    "#;
    let mut b = battle(
        chars,
        &[],
        vec![
            o("Ash", "delay").into(),
            o("Bo", "delay").target("Ash"),
            o("Bo", "step").cell(Cell::new(8, 1)),
            o("Ash", "step").cell(Cell::new(2, 1)),
        ],
    );
    run(&mut b);
    line(&b, "Bo delays, to act just before Ash this phase");
    let bo = line(&b, "Bo takes a 1-hex step from (9, 1) to (8, 1)");
    let ash = line(&b, "Ash takes a 1-hex step from (1, 1) to (2, 1)");
    assert!(bo < ash, "{}", texts(&b).join("\n"));
    assert_lacks(&b, "the delayed action is lost");
}

#[test]
fn delays_to_the_end_of_the_phase_take_the_end_s_place_and_score() {
    // 002 §Delay Consequences: "Your Initiative changes to when you took the
    // delayed action." Ann (7) delays to the end of the phase; Ben (6)
    // delays to just before her; Cal (5) acts. Ben then Ann act after Cal:
    // both come after him from now on, at his 5, not ahead of him at 7.
    let chars = r#"
        (name: "Ann", side: "A", template: "bravo", at: (1, 1), set: {"cv": 7}),
        (name: "Ben", side: "B", template: "bravo", at: (9, 1), set: {"cv": 6}),
        (name: "Cal", side: "B", template: "bravo", at: (9, 5), set: {"cv": 5}),
    "#;
    let mut b = battle(
        chars,
        &[],
        vec![
            o("Ann", "delay").into(),
            o("Ben", "delay").target("Ann"),
            o("Cal", "step").cell(Cell::new(8, 5)),
            o("Ben", "step").cell(Cell::new(8, 1)),
            o("Ann", "step").cell(Cell::new(2, 1)),
        ],
    );
    run(&mut b);
    let cal = line(&b, "Cal takes a 1-hex step");
    let ben = line(&b, "Ben takes a 1-hex step");
    let ann = line(&b, "Ann takes a 1-hex step");
    assert!(cal < ben && ben < ann, "{}", texts(&b).join("\n"));
    // The next phase's order, as the turns come.
    let phase2: Vec<String> = b
        .world()
        .resource::<BattleLog>()
        .entries()
        .iter()
        .filter(|e| e.time.starts_with("phase 2, "))
        .map(|e| e.time.clone())
        .fold(Vec::new(), |mut v, t| {
            if v.last() != Some(&t) {
                v.push(t);
            }
            v
        });
    assert_eq!(
        phase2,
        ["phase 2, 5 Cal", "phase 2, 5 Ben", "phase 2, 5 Ann"],
        "{}",
        texts(&b).join("\n")
    );
}

#[test]
fn a_delay_before_one_who_aborted_ahead_of_its_place_acts_at_that_place() {
    // 002 §Delay: "you can specify your new place in the sequence". Bo (6)
    // aborts to Dodge Ash's strike before his place, giving up his action;
    // his place is still to come, and Cy (7), delaying to act just before
    // him, acts there this phase.
    let chars = r#"
        (name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 8}),
        (name: "Cy", side: "A", template: "bravo", at: (1, 1), set: {"cv": 7}),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3), set: {"cv": 6}),
    "#;
    let mut b = battle(
        chars,
        &[1, 1, 1, 1, 1, 1, 1, 1, 1],
        vec![
            o("Ash", "strike").target("Bo"),
            abort("Bo", "dodge"),
            o("Cy", "delay").target("Bo"),
            o("Cy", "step").cell(Cell::new(2, 1)),
        ],
    );
    run(&mut b);
    line(
        &b,
        "Bo aborts to Dodge against Ash's attack, giving up its action this phase",
    );
    line(&b, "Cy delays, to act just before Bo this phase");
    let step = line(&b, "Cy takes a 1-hex step from (1, 1) to (2, 1)");
    assert!(step < line(&b, "Turn 1, phase 2 begins"));
    assert_lacks(&b, "the delayed action is lost");
}

#[test]
fn two_move_actions_go_no_farther_than_combat_movement() {
    // 002 §Table: a move action goes "up to half of combat movement", and
    // ruling half_move makes that at least 1 hex. With 1 hex of combat
    // movement, Ash's first move action takes it all, and a second goes
    // nowhere; Bo, with none, does not move at all.
    let chars = r#"
        (name: "Ash", side: "A", template: "bravo", at: (1, 1), set: {"move": 1}),
        (name: "Bo", side: "B", template: "bravo", at: (9, 9), set: {"move": 0}),
    "#;
    let mut b = battle(
        chars,
        &[],
        vec![
            o("Ash", "move").cell(Cell::new(2, 1)),
            o("Ash", "move").cell(Cell::new(3, 1)),
            o("Bo", "move").cell(Cell::new(9, 8)),
        ],
    );
    run(&mut b);
    line(&b, "Ash moves (a move action) from (1, 1) to (2, 1)");
    line(
        &b,
        "two move actions go no farther than combat movement (1 hex) (ruling half_move)",
    );
    assert_lacks(&b, "from (2, 1) to (3, 1)");
    assert_lacks(&b, "Bo moves");
}

/// A one-turn battle on a 12 × 12 square field of `combatants`, side
/// `person` seated for a person (asked, its choices listed), the other
/// scripted with `orders`; played until the person is asked.
fn ask_person(combatants: &str, person: usize, orders: Vec<(Q, Order, bool)>) -> (Battle, u64) {
    let mut seats = ["", ""];
    seats[person] = ", seat: Human";
    let text = format!(
        "(name: \"t\", ruleset: \"phases\", round_cap: 1,
          grid: (kind: Square, width: 12, height: 12),
          sides: [(name: \"A\"{}), (name: \"B\"{})],
          combatants: [{combatants}])",
        seats[0], seats[1]
    );
    let mut b = common::battle(&text, &[], |side| {
        if side == person {
            Box::new(fray_core::decision::HumanSeat)
        } else {
            script(orders.clone())
        }
    });
    let fray_core::battle::Progress::AwaitingHuman(ids) = b.run() else {
        panic!("nobody of side {person} is asked");
    };
    (b, ids[0])
}

#[test]
fn the_abort_choices_refuse_a_block_against_a_shot() {
    // Ruling block: shots cannot be blocked; a person asked to abort
    // against Gun's shot sees Block refused, with the reason.
    let shot = Order::new("Gun", "shoot").target("Bra");
    let (b, id) = ask_person(
        r#"(name: "Gun", side: "A", template: "gunman", at: (0, 0), set: {"cv": 7}),
           (name: "Bra", side: "B", template: "bravo", at: (4, 0))"#,
        1,
        vec![(Q::Turn(None), shot, false)],
    );
    let decisions = b.world().resource::<fray_core::decision::Decisions>();
    let d = decisions.get(id).unwrap();
    assert!(d.prompt.starts_with("Gun attacks Bra"), "{}", d.prompt);
    let block = d
        .choices
        .iter()
        .find(|c| c.order.action == "block")
        .unwrap();
    assert_eq!(
        block.refused.as_deref(),
        Some("shots cannot be blocked (ruling block)")
    );
}

#[test]
fn the_dodge_offered_in_an_abort_names_the_dcv_it_gives() {
    // Bra (DCV 5) is offered a Dodge to DCV 8. The abort is its next
    // action (ruling dodge): a Strike still in effect does not hold the
    // Dodge's bonus down, and a Haymaker's -5 ends with it, as the choice
    // says.
    let shot = Order::new("Gun", "shoot").target("Bra");
    let (mut b, id) = ask_person(
        r#"(name: "Gun", side: "A", template: "gunman", at: (0, 0), set: {"cv": 7}),
           (name: "Bra", side: "B", template: "bravo", at: (4, 0))"#,
        1,
        vec![(Q::Turn(None), shot, false)],
    );
    let dodge = |b: &Battle| {
        let bra = entity(b, "Bra");
        fray_rules::phases::choices(b.world(), bra)
            .into_iter()
            .find(|c| c.order.action == "dodge")
            .map(|c| c.label)
            .unwrap()
    };
    let decisions = b.world().resource::<fray_core::decision::Decisions>();
    assert!(decisions.get(id).is_some());
    assert_eq!(
        dodge(&b),
        "Abort to Dodge (DCV 5 to 8), giving up its action this phase"
    );
    let bra = entity(&b, "Bra");
    b.world_mut()
        .entity_mut(bra)
        .insert(fray_rules::phases::Guard {
            manoeuvres: vec![("strike".into(), 0, 0)],
            ..Default::default()
        });
    assert_eq!(
        dodge(&b),
        "Abort to Dodge (DCV 5 to 8), giving up its action this phase"
    );
    b.world_mut()
        .entity_mut(bra)
        .insert(fray_rules::phases::Guard {
            manoeuvres: vec![("block".into(), 0, 0)],
            block: true,
            ..Default::default()
        });
    // A Block standing against the melee blows to come ends too.
    assert_eq!(
        dodge(&b),
        "Abort to Dodge (DCV 5 to 8; the abort ends its Block), giving up its action this phase"
    );
    b.world_mut()
        .entity_mut(bra)
        .insert(fray_rules::phases::Guard {
            manoeuvres: vec![("haymaker".into(), 0, -5)],
            ..Default::default()
        });
    assert_eq!(
        dodge(&b),
        "Abort to Dodge (DCV 0 to 8; the abort ends its Haymaker), giving up its action this phase"
    );
    // 002 §Abort Consequences, §Ready Consequences: what is given up is said
    // as the abort will say it. Had Bra readied a strike on its place this
    // phase, the abort gives up that and the next phase's action.
    b.world_mut()
        .entity_mut(bra)
        .insert(fray_rules::phases::Hold::Readied {
            trigger: fray_rules::phases::Trigger::EntersReach,
            weapon: "fists".into(),
        });
    b.world_mut().resource_mut::<Flow>().done.push(bra);
    assert!(
        dodge(&b).ends_with(
            "giving up the readied action it held and, having readied on its initiative score this phase, its action in the next phase"
        ),
        "{}",
        dodge(&b)
    );
}

#[test]
fn after_a_full_phase_action_the_turn_offers_only_the_step() {
    // 002 §Full-Phase Actions: one "can't be coupled with an attack or a
    // move action", "though you can take a 1-hex step". Ash, having Taken
    // a Recovery, is told only the step is left.
    let (mut b, id) = ask_person(
        r#"(name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 7}),
           (name: "Bo", side: "B", template: "bravo", at: (11, 11))"#,
        0,
        Vec::new(),
    );
    b.answer(id, Order::new("Ash", "recover"));
    let _ = b.run();
    let decisions = b.world().resource::<fray_core::decision::Decisions>();
    let d = decisions.open().first().expect("Ash is asked again");
    assert_eq!(d.actor_name, "Ash");
    assert_eq!(d.prompt, "Ash, phase 1: a 1-hex step left.");
    // A hex typed or clicked now is that step (002 §1-Hex Step).
    let (id, typed) = (d.id, d.move_order.clone().expect("a hex may be typed"));
    assert_eq!(typed.action, "step");
    b.answer(id, typed.cell(Cell::new(3, 4)));
    let _ = b.run();
    let ash = b.world().resource::<phases::Flow>().entity("Ash").unwrap();
    assert_eq!(b.world().get::<Cell>(ash), Some(&Cell::new(3, 4)));
}

#[test]
fn a_person_may_withdraw_toward_a_friend() {
    // Ruling withdraw: anywhere within combat movement. Ash (move 6),
    // beside Bo, is offered the withdrawal toward Cy as well as away.
    let (b, id) = ask_person(
        r#"(name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 7}),
           (name: "Cy", side: "A", template: "bravo", at: (3, 11), set: {"cv": 2}),
           (name: "Bo", side: "B", template: "bravo", at: (4, 3))"#,
        0,
        Vec::new(),
    );
    let decisions = b.world().resource::<fray_core::decision::Decisions>();
    let d = decisions.get(id).unwrap();
    assert_eq!(d.actor_name, "Ash");
    let toward = d
        .choices
        .iter()
        .find(|c| c.label.starts_with("Withdraw to (1, 9), toward Cy"))
        .unwrap_or_else(|| {
            panic!(
                "{:#?}",
                d.choices.iter().map(|c| &c.label).collect::<Vec<_>>()
            )
        });
    assert!(toward.refused.is_none(), "{:?}", toward.refused);
}

#[test]
fn the_unconscious_are_no_longer_a_target() {
    // Ruling knocked_out: Ash is asked for his turn beside Bo, unconscious;
    // a strike at him is refused, citing the ruling.
    let (mut b, _) = ask_person(
        r#"(name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 7}),
           (name: "Bo", side: "B", template: "bravo", at: (4, 3)),
           (name: "Cy", side: "B", template: "bravo", at: (11, 11))"#,
        0,
        Vec::new(),
    );
    let (ash, bo) = (entity(&b, "Ash"), entity(&b, "Bo"));
    b.world_mut()
        .entity_mut(bo)
        .insert(fray_rules::phases::Condition::Unconscious);
    let strike = Order::new("Ash", "strike").target("Bo");
    let why = fray_rules::phases::validate(b.world(), ash, &strike).unwrap_err();
    assert_eq!(
        why,
        "Bo is already out of the fight, and no longer a target (ruling knocked_out)"
    );
}

#[test]
fn a_delay_before_one_who_delayed_before_another_comes_first() {
    // Ruling delay_place: Ya (7) delays to just before Zb (5); Xa (6)
    // delays to just before Ya: Xa acts, then Ya, then Zb.
    let chars = r#"
        (name: "Ya", side: "A", template: "bravo", at: (1, 1), set: {"cv": 7}),
        (name: "Xa", side: "A", template: "bravo", at: (1, 5), set: {"cv": 6}),
        (name: "Zb", side: "B", template: "bravo", at: (9, 9), set: {"cv": 5}),
    "#;
    let mut b = battle(
        chars,
        &[],
        vec![
            o("Ya", "delay").target("Zb"),
            o("Xa", "delay").target("Ya"),
            o("Xa", "step").cell(Cell::new(2, 5)),
            o("Ya", "step").cell(Cell::new(2, 1)),
            o("Zb", "step").cell(Cell::new(8, 9)),
        ],
    );
    run(&mut b);
    let xa = line(&b, "Xa takes a 1-hex step");
    let ya = line(&b, "Ya takes a 1-hex step");
    let zb = line(&b, "Zb takes a 1-hex step");
    assert!(xa < ya && ya < zb, "{}", texts(&b).join("\n"));
}

#[test]
fn a_strike_readied_for_a_foes_action_meets_its_second_action_too() {
    // Ruling ready_trigger: "a named enemy begins an action", any action of
    // its turn. Bo's move from afar sets nothing off (out of reach); the
    // strike it then begins does, and Ash's readied strike comes first.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (2, 3), set: {"cv": 6}),
        (name: "Bo", side: "B", template: "bravo", at: (6, 3)),
    "#,
        &[1, 1, 1, 1, 1, 1],
        vec![
            o("Ash", "ready").target("Bo"),
            o("Bo", "move").cell(Cell::new(3, 3)),
            o("Bo", "strike").target("Ash"),
        ],
    );
    run(&mut b);
    let moves = line(&b, "Bo moves (a move action) from (6, 3) to (3, 3)");
    let fires = line(
        &b,
        "Ash's readied strike goes off: it cuts in just before Bo goes on",
    );
    let ash = line(&b, "Ash strikes at Bo (readied): 3d6 3");
    let bo = line(&b, "Bo strikes at Ash");
    assert!(moves < fires && fires < ash && ash < bo);
}

#[test]
fn the_step_of_a_readied_strike_sets_off_a_strike_readied_for_it() {
    // 002 §Ready Step and §Ready: Ash's readied strike steps to (3, 3), within
    // Rex's reach; Rex's strike, readied for the first opponent to come
    // within reach, comes just before Ash's.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (2, 3), set: {"cv": 6}),
        (name: "Rex", side: "B", template: "bravo", at: (4, 2), set: {"cv": 8}),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3)),
    "#,
        &[1, 1, 1, 1, 1, 1],
        vec![
            o("Rex", "ready").into(),
            o("Ash", "ready").target("Bo"),
            o("Bo", "dodge").into(),
        ],
    );
    run(&mut b);
    let step = line(
        &b,
        "Ash takes a 1-hex step from (2, 3) to (3, 3) as part of its readied action.",
    );
    let rex = line(&b, "Rex strikes at Ash (readied)");
    let ash = line(&b, "Ash strikes at Bo (readied)");
    assert!(step < rex && rex < ash);
}

/// Ash readies a strike for Bo's next action on his first turn and ends
/// the rest; a person answers when the readied strike may go off.
struct ReadiesThenAsks(bool);

impl Controller for ReadiesThenAsks {
    fn decide(&mut self, world: &mut World, d: &Decision) -> Option<Order> {
        match asked(world, d) {
            Q::Readied => None,
            Q::Turn(_) if !self.0 => {
                self.0 = true;
                Some(Order::new(&d.actor_name, "ready").target("Bo"))
            }
            Q::Turn(_) => Some(Order::new(&d.actor_name, "end")),
            _ => Some(Order::new(&d.actor_name, "pass")),
        }
    }
}

#[test]
fn the_person_chooses_where_a_readied_strike_steps() {
    // 002 §Ready Step: "You can take a 1-hex step as part of your readied
    // action". Bo, two hexes off, dodges; Ash's readied strike may go off
    // with a step to any free hex beside him from which Bo is in reach,
    // and he is asked which: he takes (3, 4), not the first offered.
    let text = r#"(name: "t", ruleset: "phases", round_cap: 1,
          grid: (kind: Square, width: 12, height: 12),
          sides: [(name: "A", seat: Human), (name: "B")],
          combatants: [
            (name: "Ash", side: "A", template: "bravo", at: (2, 3), set: {"cv": 6}),
            (name: "Bo", side: "B", template: "bravo", at: (4, 3)),
          ])"#;
    let mut b = common::battle(text, &[1, 1, 1], |side| -> Box<dyn Controller> {
        if side == 0 {
            Box::new(ReadiesThenAsks(false))
        } else {
            script(vec![(Q::Turn(None), Order::new("Bo", "dodge"), false)])
        }
    });
    let fray_core::battle::Progress::AwaitingHuman(ids) = b.run() else {
        panic!("Ash is not asked");
    };
    let ash = entity(&b, "Ash");
    let mut labels: Vec<String> = fray_rules::phases::choices(b.world(), ash)
        .into_iter()
        .map(|c| c.label)
        .collect();
    labels.sort();
    assert_eq!(
        labels,
        [
            "Hold it: Bo goes on, and the strike stays readied",
            "Take the readied strike at Bo now, with a 1-hex step to (3, 2)",
            "Take the readied strike at Bo now, with a 1-hex step to (3, 3)",
            "Take the readied strike at Bo now, with a 1-hex step to (3, 4)",
        ]
    );
    let strike = Order::new("Ash", "strike").target("Bo");
    let wrong = fray_rules::phases::validate(b.world(), ash, &strike.clone().cell(Cell::new(1, 3)));
    assert_eq!(
        wrong.unwrap_err(),
        "a readied strike's 1-hex step goes to a free hex beside it from which Bo, out of reach, comes within reach (002 §Ready Step); (1, 3) is not one"
    );
    b.answer(ids[0], strike.cell(Cell::new(3, 4)));
    let _ = b.run();
    let step = line(
        &b,
        "Ash takes a 1-hex step from (2, 3) to (3, 4) as part of its readied action.",
    );
    assert!(step < line(&b, "Ash strikes at Bo (readied)"));
}

#[test]
fn a_blocking_character_may_abort_to_dodge_a_shot() {
    // Ruling block: shots cannot be blocked, so a standing Block does not
    // hold off the abort (ruling abort_options): Bra dodges Gun's shot.
    let mut b = battle(
        r#"
        (name: "Gun", side: "A", template: "gunman", at: (0, 0)),
        (name: "Bra", side: "B", template: "bravo", at: (4, 0), set: {"cv": 9}),
    "#,
        &[1, 1, 1],
        vec![
            o("Bra", "block").into(),
            o("Gun", "shoot").target("Bra"),
            abort("Bra", "dodge"),
        ],
    );
    run(&mut b);
    let block = line(&b, "Bra blocks");
    let dodge = line(&b, "Bra aborts to Dodge against Gun's attack");
    let shot = line(&b, "Gun shoots at Bra");
    assert!(block < dodge && dodge < shot);
}

#[test]
fn a_move_goes_the_shortest_way_that_leaves_fewest_threatened_hexes() {
    // Ruling route: of the shortest ways from (1, 3) to (5, 0), Mo takes one
    // that never enters Fen's reach, and so provokes nothing (002 §Moving
    // Out). The first shortest way found would pass (2, 3), beside Fen.
    let mut b = battle_with(
        r#"
        (name: "Mo", side: "A", template: "bravo", at: (1, 3), set: {"cv": 7}),
        (name: "Fen", side: "B", template: "brute", at: (3, 3)),
    "#,
        &[],
        vec![o("Mo", "full_move").cell(Cell::new(5, 0))],
        "Hex",
        1,
    );
    run(&mut b);
    line(
        &b,
        "Mo moves (a full-phase action) from (1, 3) to (5, 0) (5 hexes).",
    );
    assert_lacks(&b, "threatened by Fen");
    assert_eq!(cell(&b, "Mo"), Cell::new(5, 0));
}

#[test]
fn a_route_shuns_only_those_who_threaten_in_melee() {
    // Ruling route, 002 §Moving Out: "You threaten all hexes into which you
    // can make a melee attack". Gun, with a pistol only, threatens nothing:
    // Mo's way to (9, 8) passes beside Gun rather than out of Brute's hexes.
    let mut b = battle_with(
        r#"
        (name: "Mo", side: "A", template: "bravo", at: (6, 6), set: {"cv": 9}),
        (name: "Gun", side: "B", template: "gunman", at: (7, 8), weapons: ["pistol"]),
        (name: "Brute", side: "B", template: "brute", at: (9, 7)),
    "#,
        &[],
        vec![o("Mo", "full_move").cell(Cell::new(9, 8))],
        "Hex",
        1,
    );
    run(&mut b);
    line(
        &b,
        "Mo moves (a full-phase action) from (6, 6) to (9, 8) (4 hexes).",
    );
    assert_lacks(&b, "threatened by Brute");
}

#[test]
fn an_abort_is_the_next_action_and_ends_the_last_ones_haymaker() {
    // 002 §Abort, rulings haymaker and dodge: Bo (7) throws a Haymaker at
    // Ash and misses (-5 DCV until his next action). When Ash (6) strikes
    // back, Bo aborts to Dodge: the abort is his next action, so the
    // Haymaker's -5 ends and the Dodge's +3 counts in full: DCV 7 + 3.
    let mut b = battle(
        &PAIR.replace(r#"at: (4, 3))"#, r#"at: (4, 3), set: {"cv": 7})"#),
        &[1, 1, 1, 6, 6, 6],
        vec![
            o("Bo", "haymaker").target("Ash"),
            o("Ash", "strike").target("Bo"),
            abort("Bo", "dodge"),
        ],
    );
    run(&mut b);
    let aborts = line(&b, "Bo aborts to Dodge against Ash's attack");
    assert!(
        texts(&b)[aborts].contains(" Its Haymaker ends. "),
        "{}",
        texts(&b)[aborts]
    );
    line(
        &b,
        "Ash strikes at Bo: 3d6 18 + OCV 6 = 24 against 10 + DCV 10 = 20 (DCV: Manoeuvres +3)",
    );
}

#[test]
fn a_readied_strike_going_off_is_the_next_action_and_ends_a_haymaker_since() {
    // 002 §Ready, rulings haymaker and opportunity_manoeuvre: Ash (7)
    // readies a strike for Bo's next action, then throws a Haymaker at Cy
    // as Cy walks off (-5 DCV until Ash's next action), and misses. Bo's
    // strike sets the readied one off: that is Ash's next action, so the
    // Haymaker's -5 ends, and Bo meets DCV 7.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 7}),
        (name: "Cy", side: "B", template: "bravo", at: (3, 4), set: {"cv": 6}),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3)),
    "#,
        &[1, 1, 1, 1, 1, 1, 6, 6, 6],
        vec![
            o("Ash", "ready").target("Bo"),
            o("Cy", "move").cell(Cell::new(3, 8)),
            (Q::Opportunity, Order::new("Ash", "haymaker").target("Cy")),
            o("Bo", "strike").target("Ash"),
        ],
    );
    run(&mut b);
    let haymaker = line(&b, "Ash throws a haymaker at Cy (attack of opportunity)");
    let fires = line(
        &b,
        "Ash's readied strike goes off: it cuts in just before Bo goes on",
    );
    let strike = line(
        &b,
        "Bo strikes at Ash: 3d6 18 + OCV 5 = 23 against 10 + DCV 7 = 17",
    );
    assert!(haymaker < fires && fires < strike);
}

#[test]
fn a_dodge_ends_with_a_turn_let_pass_without_an_action() {
    // Rulings dodge and end_turn: Bo (7) dodges in phase 1 and ends his
    // turn in phase 2 with no action; his +3 ends there, and Ash's (6)
    // strike after it meets DCV 7.
    let mut b = battle(
        &PAIR.replace(r#"at: (4, 3))"#, r#"at: (4, 3), set: {"cv": 7})"#),
        &[6, 6, 6],
        vec![
            in_phase(1, o("Bo", "dodge").into()),
            in_phase(2, o("Ash", "strike").target("Bo")),
        ],
    );
    run(&mut b);
    let ends = line(&b, "Bo's Dodge ends: its turn passes without an action.");
    let strike = line(
        &b,
        "Ash strikes at Bo: 3d6 18 + OCV 6 = 24 against 10 + DCV 7 = 17",
    );
    assert!(ends < strike);
}

#[test]
fn a_recovery_begun_is_lost_to_an_abort_without_a_delay() {
    // Ruling split_full_phase: Ash begins a Recovery in the Surprise Phase,
    // to complete at his next action; Bo (7) strikes first in phase 1 and
    // Ash aborts to Dodge, giving up that action: the start is lost.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 6}),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3), surprised: true, set: {"cv": 7}),
    "#,
        &[1, 1, 1],
        vec![
            in_phase(0, o("Ash", "start_recovery").into()),
            in_phase(1, o("Bo", "strike").target("Ash")),
            abort("Ash", "dodge"),
            in_phase(1, o("Ash", "complete_recovery").into()),
        ],
    );
    run(&mut b);
    let aborts = line(&b, "Ash aborts to Dodge against Bo's attack");
    let lost = line(
        &b,
        "Ash gives up its next action by aborting: the Recovery it began is lost.",
    );
    assert!(lost < aborts);
    assert_lacks(&b, "Ash completes its Recovery");
}

#[test]
fn one_knocked_out_loses_the_recovery_it_began() {
    // Ruling knocked_out: Ash (STUN 1) begins a Recovery in the Surprise
    // Phase; Bo (7) knocks him out in phase 1. The start waited for Ash's
    // next action, which he no longer has: it is lost, and does not wait
    // for him to wake.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 6, "stun": 1}),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3), surprised: true, set: {"cv": 7}),
    "#,
        &[6, 6, 6, 6, 6, 6],
        vec![
            in_phase(0, o("Ash", "start_recovery").into()),
            in_phase(1, o("Bo", "strike").target("Ash")),
        ],
    );
    run(&mut b);
    let out = line(&b, "Ash is knocked out: STUN");
    let lost = line(&b, "Ash is knocked out: the Recovery it began is lost.");
    assert!(out < lost);
    let ash = entity(&b, "Ash");
    assert!(
        b.world()
            .get::<fray_rules::phases::RecoveryStarted>(ash)
            .is_none()
    );
}

/// Two turns of [`STUNNING`] with Dee far off keeping side B in the
/// battle: the first blow at Bo (4d6 24) stuns him, the second (4d6 8)
/// knocks him out, and the Post-Turn's Recovery (+5) wakes him.
fn stunned_then_out(orders: Vec<(Q, Order)>) -> Battle {
    let field = format!(
        r#"{STUNNING}
        (name: "Dee", side: "B", template: "bravo", at: (11, 11), set: {{"cv": 3}}),"#
    );
    let dice = [6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 2, 2, 2, 2];
    battle_with(&field, &dice, orders, "Square", 2)
}

#[test]
fn one_knocked_out_wakes_no_longer_stunned() {
    // Ruling knocked_out: what waited for its next action is lost, a Stun
    // still to recover from among it. Ash's hit stuns Bo (4d6 24 STUN less
    // PD 4 = 20 > CON 12: 4 of 24 left); Cy's (4d6 8 less PD 4) knocks him
    // out at 0. The Post-Turn's Recovery (+5) wakes him, and in turn 2 he
    // acts afresh: his first action is not spent recovering from the Stun.
    // Dee, far off, keeps his side in the battle.
    let mut b = stunned_then_out(vec![
        o("Ash", "strike").target("Bo"),
        o("Cy", "strike").target("Bo"),
    ]);
    run(&mut b);
    let stunned = line(&b, "Bo is Stunned: 20 STUN is more than its CON of 12.");
    let out = line(&b, "Bo is knocked out: STUN 0.");
    let wakes = line(&b, "Bo Takes a Recovery in the Post-Turn: +5 STUN (5/24).");
    assert!(stunned < out && out < wakes);
    line(&b, "Turn 2, phase 1 begins.");
    assert_lacks(&b, "Bo spends the phase recovering from being Stunned");
    let bo = entity(&b, "Bo");
    assert!(b.world().get::<fray_rules::phases::Stunned>(bo).is_none());
}

#[test]
fn one_knocked_out_loses_the_haymakers_minus_five() {
    // Ruling knocked_out: Bo (7) throws a Haymaker at Ash and misses (-5
    // DCV until his next action); Ash knocks him out. His turns pass
    // without an action (ruling end_turn): the -5 is gone, and should he
    // wake he stands at his own DCV.
    let mut b = battle(
        r#"
        (name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 6}),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3), set: {"cv": 7, "stun": 1}),
    "#,
        &[1, 1, 1, 6, 6, 6, 6, 6, 6],
        vec![
            o("Bo", "haymaker").target("Ash"),
            o("Ash", "strike").target("Bo"),
        ],
    );
    run(&mut b);
    line(&b, "Bo is knocked out: STUN");
    let bo = entity(&b, "Bo");
    let guard = b.world().get::<fray_rules::phases::Guard>(bo).unwrap();
    assert!(guard.manoeuvres.is_empty(), "{guard:?}");
}

#[test]
fn one_stunned_loses_the_block_it_held() {
    // Ruling stunned: Bo (5) blocks in phase 1. In phase 2 Gil's shot
    // (3d6 [6, 6, 6] = 18, less PD 4 = 14 > CON 12) stuns him before his
    // place; Cy's (6) strike after it meets no Block roll.
    let mut b = battle(
        r#"
        (name: "Gil", side: "A", template: "gunman", at: (3, 0)),
        (name: "Cy", side: "A", template: "bravo", at: (3, 3), set: {"cv": 6}),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3)),
    "#,
        &[6, 6, 6, 6, 6, 6, 1, 1, 1],
        vec![
            in_phase(1, o("Bo", "block").into()),
            in_phase(2, o("Gil", "shoot").target("Bo")),
            in_phase(2, o("Cy", "strike").target("Bo")),
        ],
    );
    run(&mut b);
    let stunned = line(&b, "Bo is Stunned: 14 STUN is more than its CON of 12.");
    assert!(texts(&b)[stunned].ends_with("Its Block is lost."));
    line(&b, "Cy strikes at Bo");
    assert_lacks(&b, "block Cy's");
}

#[test]
fn a_delayed_action_going_off_is_said_with_its_new_initiative() {
    // 002 §Delay Consequences: "Your Initiative changes to when you took the
    // delayed action". Ash (6) delays to act just before Bo (5); his turn
    // comes there, and the log says so.
    let mut b = battle(
        PAIR,
        &[],
        vec![o("Ash", "delay").target("Bo"), o("Ash", "end").into()],
    );
    run(&mut b);
    let delays = line(&b, "Ash delays, to act just before Bo");
    let goes = line(
        &b,
        "Ash takes its delayed action now, just before Bo: its Initiative becomes 5.",
    );
    assert!(delays < goes);
}

#[test]
fn after_a_one_hex_step_the_turn_says_no_action_moves() {
    // 002 §1-Hex Step: "you can't take a 1-hex step in the same Phase when
    // you move any distance". Ash steps first; what is left moves nowhere.
    let (mut b, id) = ask_person(
        r#"(name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 7}),
           (name: "Bo", side: "B", template: "bravo", at: (11, 11))"#,
        0,
        Vec::new(),
    );
    b.answer(id, Order::new("Ash", "step").cell(Cell::new(3, 4)));
    let _ = b.run();
    let decisions = b.world().resource::<fray_core::decision::Decisions>();
    let d = decisions.open().first().expect("Ash is asked again");
    assert_eq!(
        d.prompt,
        "Ash, phase 1: an attack and a move action, or a full phase (none that moves: the 1-hex step is taken) left."
    );
}

#[test]
fn a_move_out_of_a_threatened_hex_is_warned_of_and_the_step_named() {
    // 002 §Moving Out, §1-Hex Step: Bo, beside Ash, types a move to the
    // hex behind him: it would draw Ash's attack of opportunity, where the
    // 1-hex step to the same hex would not; he is told so before it goes.
    let (b, _) = ask_person(
        r#"(name: "Ash", side: "A", template: "bravo", at: (3, 3)),
           (name: "Bo", side: "B", template: "bravo", at: (4, 3), set: {"cv": 7})"#,
        1,
        Vec::new(),
    );
    let bo = entity(&b, "Bo");
    let typed = Order::new("Bo", "move").cell(Cell::new(5, 3));
    assert_eq!(
        (phases::VIEW.warns)(b.world(), bo, &typed),
        [
            "moving out of a hex Ash threatens draws an attack of opportunity (002 §Moving Out); the 1-hex step to (5, 3) never provokes (002 §1-Hex Step)"
        ]
    );
    let far = Order::new("Bo", "move").cell(Cell::new(7, 3));
    assert_eq!(
        (phases::VIEW.warns)(b.world(), bo, &far),
        ["moving out of a hex Ash threatens draws an attack of opportunity (002 §Moving Out)"]
    );
}

#[test]
fn the_attack_of_opportunity_question_gives_the_odds() {
    // 002 §Attack Roll: Ash (OCV 6) may strike Bo (DCV 7) as he walks off:
    // 3d6 + 6 against 10 + 7 hits on 11 or more, 108 of 216.
    let walk = Order::new("Bo", "move").cell(Cell::new(8, 3));
    let (b, _) = ask_person(
        r#"(name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 6}),
           (name: "Bo", side: "B", template: "bravo", at: (4, 3), set: {"cv": 7})"#,
        0,
        vec![(Q::Turn(None), walk, false)],
    );
    let ash = entity(&b, "Ash");
    let labels: Vec<String> = phases::choices(b.world(), ash)
        .into_iter()
        .map(|c| c.label)
        .collect();
    assert_eq!(labels[0], "Attack of opportunity: strike Bo (hits 50%)");
}

#[test]
fn the_turns_attacks_give_the_odds() {
    // 002 §Attack Roll: Ash (OCV 6) at his turn beside Bo (DCV 7): 3d6 + 6
    // against 10 + 7 hits on 11 or more, 108 of 216, a Haymaker the same.
    let (b, _) = ask_person(
        r#"(name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 6}),
           (name: "Bo", side: "B", template: "bravo", at: (4, 3), set: {"cv": 7})"#,
        0,
        vec![],
    );
    let labels = |b: &Battle, who: &str| -> Vec<String> {
        phases::choices(b.world(), entity(b, who))
            .into_iter()
            .map(|c| c.label)
            .collect()
    };
    let ash = labels(&b, "Ash");
    assert!(
        ash.contains(&"Strike Bo (attack action; hits 50%)".to_string()),
        "{ash:?}"
    );
    assert!(
        ash.contains(&"Haymaker at Bo: +2 dice, -5 DCV (attack action; hits 50%)".to_string()),
        "{ash:?}"
    );
    // Gun (OCV 7) shoots at Bra (DCV 5): 3d6 + 7 against 15, 8 or more,
    // 181 of 216.
    let (b, _) = ask_person(
        r#"(name: "Gun", side: "A", template: "gunman", at: (0, 0), set: {"cv": 7}),
           (name: "Bra", side: "B", template: "bravo", at: (4, 0), set: {"cv": 5})"#,
        0,
        vec![],
    );
    let gun = labels(&b, "Gun");
    assert!(
        gun.contains(&"Shoot Bra (attack action; hits 84%)".to_string()),
        "{gun:?}"
    );
}

#[test]
fn a_strikes_odds_count_the_block_it_meets_first() {
    // Ruling block: Bo (7) blocks before Ash's (6) turn. Ash's strike meets
    // the Block roll first: Bo's 3d6 + OCV 7 against 10 + Ash's OCV 6 stops
    // it on 9 or more, 160 of 216; past it, 3d6 + 6 against 10 + DCV 7 hits
    // on 11 or more, 108 of 216: 56 / 216 * 108 / 216, 13%.
    let (b, _) = ask_person(
        r#"(name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 6}),
           (name: "Bo", side: "B", template: "bravo", at: (4, 3), set: {"cv": 7})"#,
        0,
        vec![(Q::Turn(None), Order::new("Bo", "block"), false)],
    );
    let ash: Vec<String> = phases::choices(b.world(), entity(&b, "Ash"))
        .into_iter()
        .map(|c| c.label)
        .collect();
    assert!(
        ash.contains(&"Strike Bo (attack action; hits 13% past the Block)".to_string()),
        "{ash:?}"
    );
}

/// 002 §Time: the timeline draws the phases the ruleset data gives a turn:
/// four of 3 seconds as the text has them, or as many and as long as a
/// game master's file says.
#[test]
fn the_timeline_draws_as_many_phases_as_long_as_the_data_says() {
    let periods = |data: String| {
        let text = format!(
            "(name: \"t\", ruleset: \"phases\", grid: (kind: Square, width: 12, height: 12),
              sides: [(name: \"A\"), (name: \"B\")], combatants: [{PAIR}])"
        );
        let scenario = LoadedScenario::from_source(Source::inline("t.ron", &text)).unwrap();
        let rules = fray_rules::load("phases", Some(Source::inline("phases.ron", &data))).unwrap();
        let mut app = fray_core::battle::rules_app(fray_core::dice::Dice::seeded(0));
        fray_rules::setup(&mut app, rules, &scenario).unwrap();
        let view = *app.world().resource::<fray_core::view::RulesView>();
        (view.periods)(app.world())
    };
    let timed = |seconds, count| {
        Some(fray_core::view::Periods::Timed {
            name: "phase",
            seconds,
            count,
        })
    };
    let shipped = phases::RULESET.data.to_string();
    assert_eq!(periods(shipped.clone()), timed(3, 4));
    let six = shipped
        .replacen("phases_per_turn: 4", "phases_per_turn: 6", 1)
        .replacen("seconds_per_phase: 3", "seconds_per_phase: 2", 1);
    assert_eq!(periods(six), timed(2, 6));
}

#[test]
fn a_withdrawal_draws_nothing_from_a_long_reach_it_withdraws_from() {
    // Ruling withdraw and the table, "Withdraw from combat | No": Bo
    // withdraws from Ann, whose reach of 3 follows him for three hexes. He
    // leaves her threat without an opportunity. Cy, whose reach he enters
    // and leaves on the way, still gets one.
    let alone = r#"
        (name: "Ann", side: "A", template: "stretcher", at: (3, 3), set: {"cv": 8}),
        (name: "Bo", side: "B", template: "bravo", at: (4, 3)),
    "#;
    let away = || vec![o("Bo", "withdraw").cell(Cell::new(9, 3))];
    let mut b = battle(alone, &[], away());
    run(&mut b);
    line(
        &b,
        "Bo withdraws (a full-phase action) from (4, 3) to (9, 3) (5 hexes).",
    );
    assert_eq!(count(&b, "an opportunity"), 0);
    let past_cy = format!(
        "{alone}(name: \"Cy\", side: \"A\", template: \"bravo\", at: (7, 3), set: {{\"cv\": 7}}),"
    );
    let mut b = battle(&past_cy, &[], away());
    run(&mut b);
    line(
        &b,
        "Bo moves out of a hex threatened by Cy: an opportunity.",
    );
    assert_eq!(count(&b, "an opportunity"), 1);
}

#[test]
fn the_bar_of_an_abort_ahead_ends_with_its_phase_even_for_one_knocked_out() {
    // 002 §Abort Consequences: one who aborted ahead "cannot Abort ... until
    // after your Initiative in the following Phase". Bo is barred through
    // phase 2 of turn 1. Cy stuns him in phase 1 and knocks him out in
    // phase 2; he wakes in the Post-Turn. In turn 2 the bar is long gone:
    // struck by Ash before his place, he aborts to Dodge.
    let mut b = stunned_then_out(vec![
        in_phase(1, o("Ash", "end").into()),
        in_phase(1, o("Cy", "strike").target("Bo")),
        in_phase(2, o("Cy", "strike").target("Bo")),
        abort("Bo", "dodge"),
        in_phase(1, o("Ash", "strike").target("Bo")),
    ]);
    let bo = entity(&b, "Bo");
    // Turn 1, phase 2: a phase's index is its turn × 13 + its number
    // (phases::Flow::phase_index).
    b.world_mut()
        .entity_mut(bo)
        .insert(phases::AbortedAhead(13 + 2));
    run(&mut b);
    let out = line(&b, "Bo is knocked out: STUN 0.");
    let wakes = line(&b, "Bo Takes a Recovery in the Post-Turn");
    let dodges = line(&b, "Bo aborts to Dodge");
    assert!(out < wakes && wakes < dodges, "{:#?}", texts(&b));
}

#[test]
fn being_stunned_does_not_raise_a_dcv_below_zero() {
    // Ruling stunned: half DCV is a penalty. Xeno (CV 3) misses with a
    // Haymaker: DCV 3 − 5 = −2 until his next action. Yuri's blow stuns
    // him; halving −2 would raise it to −1, so Zeke strikes at DCV −2.
    let chars = r#"
        (name: "Xeno", side: "A", template: "bravo", at: (4, 3), set: {"cv": 3, "lightning_reflexes": 5}),
        (name: "Yuri", side: "B", template: "brute", at: (5, 3), set: {"lightning_reflexes": 1}),
        (name: "Zeke", side: "B", template: "brute", at: (3, 3)),
    "#;
    let mut b = battle_with(
        chars,
        &[1, 1, 1, 6, 6, 6, 6, 6, 6, 6, 3, 3, 3],
        vec![
            o("Xeno", "haymaker").target("Yuri"),
            o("Yuri", "strike").target("Xeno"),
            o("Zeke", "strike").target("Xeno"),
        ],
        "Hex",
        1,
    );
    run(&mut b);
    line(&b, "Xeno is Stunned");
    line(
        &b,
        "Zeke strikes at Xeno: 3d6 9 + OCV 5 = 14 against 10 + DCV -2 = 8",
    );
}
