//! The `crucible` ruleset (rules/003) with forced dice: each test pins the
//! exact outcome the text describes.

mod common;

use bevy_ecs::prelude::*;
use common::{assert_has, assert_lacks, field, line, texts};
use fray_core::battle::Battle;
use fray_core::casting::Memorised;
use fray_core::data::Source;
use fray_core::decision::{Controller, Decision, Order};
use fray_core::grid::Cell;
use fray_core::model::Rostered;
use fray_rules::crucible::{self, Class, CrucibleData, Race};
use fray_rules::ruleset::DataFile;

/// Plays its orders once each, for their actor, in order, an answer to
/// one withdrawing (follow, stay, strike_back, let_go) only when asked
/// about one; otherwise holds a readied missile, meets one withdrawing as
/// the basic AI would (rulings `follow`, `aoo_taken`), or waits.
struct Plays(Vec<(Order, bool)>);

impl Controller for Plays {
    fn decide(&mut self, world: &mut World, d: &Decision) -> Option<Order> {
        let asked = crucible::reacting(world, d.actor).map(|r| r.1);
        let fits = |o: &Order| {
            let a = o.action.as_str();
            let reaction = matches!(a, "follow" | "stay" | "strike_back" | "let_go");
            match asked {
                None => !reaction,
                Some(crucible::Reaction::Redirect) => matches!(a, "attack" | "parry"),
                Some(_) => reaction,
            }
        };
        if let Some((o, used)) = self
            .0
            .iter_mut()
            .find(|(o, used)| !used && o.actor == d.actor_name && fits(o))
        {
            *used = true;
            return Some(o.clone());
        }
        match d.rule.as_str() {
            "003 §III A" => Some(Order::new(&d.actor_name, "hold")),
            _ if asked.is_some() => Appraises.decide(world, d),
            _ => Some(Order::new(&d.actor_name, "wait")),
        }
    }
}

/// The best appraised legal order, as the basic AI picks it.
struct Appraises;

impl Controller for Appraises {
    fn decide(&mut self, world: &mut World, d: &Decision) -> Option<Order> {
        let hooks = *world.get_resource::<fray_core::ai::AiHooks>()?;
        let mut options: Vec<(f32, usize, Order)> = (hooks.appraise)(world, d.actor)
            .into_iter()
            .enumerate()
            .map(|(i, a)| (a.score(), i, a.order))
            .collect();
        options.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        options
            .into_iter()
            .map(|o| o.2)
            .find(|o| (hooks.legal)(world, d.actor, o))
    }
}

fn data() -> CrucibleData {
    CrucibleData::load(&Source::inline("crucible.ron", crucible::RULESET.data)).unwrap()
}

/// A battle on a 12 × 8 field under `crucible`, with `more` scenario fields,
/// forced `dice`, and `orders` for everyone.
fn battle(more: &str, combatants: &str, dice: &[u32], orders: &[Order]) -> Battle {
    let text = field("crucible", (12, 8), 1, more, combatants);
    let orders: Vec<(Order, bool)> = orders.iter().map(|o| (o.clone(), false)).collect();
    let mut b = common::battle(&text, dice, |_| Box::new(Plays(orders.clone())));
    common::run(&mut b);
    b
}

/// The time mark of the first log entry containing `needle`.
fn time_of(b: &Battle, needle: &str) -> String {
    let log = b.world().resource::<fray_core::log::BattleLog>();
    log.entries()
        .iter()
        .find(|e| e.text.contains(needle))
        .map(|e| format!("round {}, {}", e.round, e.time))
        .unwrap_or_else(|| panic!("no log line contains {needle:?}:\n{}", texts(b).join("\n")))
}

/// `name`'s entity in `b`.
fn unit(b: &Battle, name: &str) -> Entity {
    b.world().resource::<crucible::Flow>().entity(name).unwrap()
}

/// The battle of `text`, not yet begun, where everyone waits.
fn idle(text: &str) -> Battle {
    common::battle(text, &[], |_| Box::new(Plays(Vec::new())))
}

const NO_SURPRISE: &str = "options: {\"surprise\": \"none\"},";

/// A one-round battle on a `size` field with `obstacles` (a RON list's
/// items), no surprise, and `combatants`.
fn walled((width, height): (u32, u32), obstacles: &str, combatants: &str) -> String {
    format!(
        "(name: \"t\", ruleset: \"crucible\", round_cap: 1,
          grid: (kind: Square, width: {width}, height: {height}, obstacles: [{obstacles}]),
          sides: [(name: \"A\"), (name: \"B\")],
          {NO_SURPRISE}
          combatants: [{combatants}])"
    )
}

#[test]
fn elf_on_point_makes_the_enemy_range_1_to_8() {
    let scouts = "(name: \"Aelis\", side: \"A\", template: \"elf_scout\", at: (1, 3), set: {\"on_point\": 1}),
                  (name: \"Grum\", side: \"B\", template: \"orc\", at: (9, 3))";
    let b = battle("", scouts, &[9, 8], &[]);
    assert_has(
        &b,
        "A rolls surprise 9 against a range of 1–4: not surprised.",
    );
    assert_has(
        &b,
        "B rolls surprise 8 against a range of 1–8 (+4 an elf or halfling on point): surprised.",
    );
    assert_has(&b, "The surprise round: the unsurprised act");
    let b = battle("", scouts, &[9, 9], &[]);
    assert_has(
        &b,
        "B rolls surprise 9 against a range of 1–8 (+4 an elf or halfling on point): not surprised.",
    );
    assert_has(&b, "Nobody is surprised: on to initiative.");
}

#[test]
fn rangers_and_monks_move_the_ranges_for_their_whole_side() {
    let sides = "(name: \"Rook\", side: \"A\", template: \"ranger\", at: (1, 3)),
                 (name: \"Bram\", side: \"A\", template: \"fighter\", at: (1, 5)),
                 (name: \"Lin\", side: \"B\", template: \"monk\", at: (9, 3), set: {\"level\": 9}),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (9, 5))";
    let b = battle("", sides, &[3, 4], &[]);
    assert_has(
        &b,
        "A rolls surprise 3 against a range of 1–2 (-2 a ranger): not surprised.",
    );
    assert_has(
        &b,
        "B rolls surprise 4 against a range of 1–4 (+2 an enemy ranger, -2 a monk): surprised.",
    );
    let b = battle(
        "",
        &sides.replace("\"level\": 9", "\"level\": 13"),
        &[3, 4],
        &[],
    );
    assert_has(
        &b,
        "B rolls surprise 4 against a range of 1–3 (+2 an enemy ranger, -3 a monk): not surprised.",
    );
    assert_has(&b, "Nobody is surprised");
}

#[test]
fn monsters_previously_surprised_are_surprised_less() {
    let sides = "(name: \"Bram\", side: \"A\", template: \"fighter\", at: (1, 3)),
                 (name: \"Gnash\", side: \"B\", template: \"gnoll\", at: (9, 3)),
                 (name: \"Brug\", side: \"B\", template: \"bugbear\", at: (9, 5))";
    let b = battle("", sides, &[12, 1], &[]);
    assert_has(
        &b,
        "B rolls surprise 1 against a range of 1–1 (-3 previously surprised): surprised.",
    );
    let b = battle(
        "",
        &sides.replace("template: \"bugbear\"", "template: \"gnoll\""),
        &[12, 2],
        &[],
    );
    assert_has(
        &b,
        "B rolls surprise 2 against a range of 1–2 (-2 previously surprised): surprised.",
    );
}

#[test]
fn both_sides_surprised_go_straight_to_initiative() {
    let sides = "(name: \"Bram\", side: \"A\", template: \"fighter\", at: (1, 3)),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (9, 3))";
    let b = battle("", sides, &[1, 2], &[]);
    assert_has(&b, "Both sides are surprised: on to initiative.");
    assert_has(&b, "rolls initiative");
}

#[test]
fn the_dm_may_dictate_surprise_and_only_the_unsurprised_act() {
    let sides = "(name: \"Bram\", side: \"A\", template: \"fighter\", at: (3, 3), weapons: [\"longsword\"]),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (4, 3))";
    let orders = [
        Order::new("Bram", "attack").target("Grum"),
        Order::new("Grum", "attack").target("Bram"),
    ];
    let b = battle("options: {\"surprise\": \"B\"},", sides, &[20, 8], &orders);
    assert_has(&b, "The DM dictates surprise: Grum surprised.");
    assert_eq!(
        time_of(&b, "Bram attacks Grum with the longsword"),
        "round 1, surprise round"
    );
    assert_lacks(&b, "Grum attacks");
}

#[test]
fn initiative_is_a_d12_per_side_less_dexterity_lowest_first() {
    let sides = "(name: \"Bram\", side: \"A\", template: \"fighter\", at: (1, 3)),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (9, 3))";
    let b = battle(NO_SURPRISE, sides, &[7, 5], &[]);
    assert_has(&b, "A rolls initiative 7 − 1 (Dexterity) = 6.");
    assert_has(&b, "B rolls initiative 5 − 0 (Dexterity) = 5.");
    assert_has(
        &b,
        "Order of play, lowest first (ties act together): 5: Grum; 6: Bram.",
    );
}

#[test]
fn individual_adjustments_let_one_act_before_the_enemy_though_its_side_lost() {
    let sides = "(name: \"Aelis\", side: \"A\", template: \"elf_scout\", at: (1, 3)),
                 (name: \"Bram\", side: \"A\", template: \"fighter\", at: (1, 5)),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (9, 3))";
    let more = "options: {\"surprise\": \"none\", \"initiative\": \"individual_adjustments\"},";
    let b = battle(more, sides, &[5, 4], &[]);
    assert_has(
        &b,
        "Order of play, lowest first (ties act together): 3: Aelis; 4: Bram, Grum.",
    );
}

#[test]
fn pcs_roll_individually_and_monsters_as_a_group() {
    let sides = "(name: \"Aelis\", side: \"A\", template: \"elf_scout\", at: (1, 3)),
                 (name: \"Bram\", side: \"A\", template: \"fighter\", at: (1, 5)),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (9, 3)),
                 (name: \"Gash\", side: \"B\", template: \"orc\", at: (9, 5))";
    let more = "options: {\"surprise\": \"none\", \"initiative\": \"pcs_individually\"},";
    let text = field("crucible", (12, 8), 1, more, sides)
        .replace("(name: \"B\")", "(name: \"B\", morale: true)");
    let mut b = common::battle(&text, &[5, 9, 4], |_| Box::new(Plays(Vec::new())));
    common::run(&mut b);
    assert_has(
        &b,
        "B rolls initiative 4 − 0 (Dexterity) = 4, adjusted by the slowest member's Dexterity.",
    );
    assert_has(&b, "Aelis rolls initiative 5 − 2 (Dexterity) = 3.");
    assert_has(&b, "Bram rolls initiative 9 − 1 (Dexterity) = 8.");
    assert_has(
        &b,
        "Order of play, lowest first (ties act together): 3: Aelis; 4: Grum, Gash; 8: Bram.",
    );
}

#[test]
fn charging_a_spear_the_longer_weapon_strikes_first_regardless_of_initiative() {
    let sides = "(name: \"Osric\", side: \"A\", template: \"fighter\", at: (1, 2), weapons: [\"longsword\"]),
                 (name: \"Pike\", side: \"B\", template: \"spearman\", at: (5, 2))";
    let orders = [Order::new("Osric", "attack").target("Pike")];
    let b = battle(NO_SURPRISE, sides, &[2, 9, 19, 4, 11], &orders);
    let t = texts(&b);
    let first = common::line(
        &b,
        "Pike's spear (8') is longer than the longsword (3') and strikes first",
    );
    assert!(t[first + 1].starts_with("Pike attacks Osric with the spear: 19 against 16"));
    assert_has(&b, "Osric takes 4 damage (20 of 24 hit points left).");
    assert!(common::line(&b, "Osric attacks Pike with the longsword: 11") > first);
    assert_eq!(
        common::count(&b, "Pike attacks Osric"),
        1,
        "its attacks of the round are spent"
    );
}

#[test]
fn a_weapon_beats_the_unarmed_and_a_monk_is_never_unarmed() {
    let sides = "(name: \"Lin\", side: \"A\", template: \"monk\", at: (5, 2)),
                 (name: \"Bruno\", side: \"B\", template: \"brawler\", at: (1, 2))";
    let orders = [Order::new("Bruno", "attack").target("Lin")];
    let b = battle(NO_SURPRISE, sides, &[9, 2, 3, 1], &orders);
    assert_has(
        &b,
        "Bruno comes into Lin's melee range: Lin's open_hand (0') is longer than the bare hands and strikes first",
    );
}

#[test]
fn bare_hands_already_in_melee_still_lose_initiative_to_a_weapon() {
    let sides =
        "(name: \"Bruno\", side: \"A\", template: \"brawler\", at: (3, 3), set: {\"hp\": 30}),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (4, 3), set: {\"hp\": 30})";
    let text = field("crucible", (12, 8), 1, NO_SURPRISE, sides);
    let mut warned = idle(&text);
    let bruno = warned
        .world()
        .resource::<crucible::Flow>()
        .entity("Bruno")
        .unwrap();
    let choices = crucible::choices(warned.world_mut(), bruno);
    let attack = choices.iter().find(|c| c.order.action == "attack").unwrap();
    assert!(
        attack
            .label
            .contains("Grum's weapon wins initiative against bare hands"),
        "{}",
        attack.label
    );
    let orders = [Order::new("Bruno", "attack").target("Grum")];
    let b = battle(NO_SURPRISE, sides, &[2, 9, 3], &orders);
    let first = common::line(&b, "Bruno comes at Grum with bare hands: Grum's ");
    assert!(first < common::line(&b, "Bruno attacks Grum"));
    assert!(common::line(&b, "Grum attacks Bruno") < common::line(&b, "Bruno attacks Grum"));
    let monk = "(name: \"Lin\", side: \"A\", template: \"monk\", at: (3, 3), set: {\"hp\": 30}),
                (name: \"Grum\", side: \"B\", template: \"orc\", at: (4, 3), set: {\"hp\": 30})";
    let orders = [
        Order::new("Lin", "attack").target("Grum"),
        Order::new("Grum", "attack").target("Lin"),
    ];
    let b = battle(NO_SURPRISE, monk, &[2, 9, 3], &orders);
    assert_lacks(&b, "wins initiative against the unarmed");
    assert!(common::line(&b, "Lin attacks Grum") < common::line(&b, "Grum attacks Lin"));
}

#[test]
fn attacks_per_round_follow_the_table_row_by_row() {
    let d = data();
    let rows = [
        (Class::Fighter, [6, 7, 12, 13]),
        (Class::Paladin, [7, 8, 13, 14]),
        (Class::Ranger, [7, 8, 14, 15]),
        (Class::Monk, [5, 6, 11, 12]),
    ];
    for (class, [last_one, first_three_halves, last_three_halves, first_two]) in rows {
        assert_eq!(d.attacks_row(class, 1), "1/1", "{class:?}");
        assert_eq!(d.attacks_row(class, last_one), "1/1", "{class:?}");
        assert_eq!(d.attacks_row(class, first_three_halves), "3/2", "{class:?}");
        assert_eq!(d.attacks_row(class, last_three_halves), "3/2", "{class:?}");
        assert_eq!(d.attacks_row(class, first_two), "2/1", "{class:?}");
        assert_eq!(d.attacks_per_round(class, first_three_halves, 1), Some(1));
        assert_eq!(d.attacks_per_round(class, first_three_halves, 2), Some(2));
        assert_eq!(d.attacks_per_round(class, first_two, 1), Some(2));
    }
    assert_eq!(d.attacks_per_round(Class::Cleric, 9, 2), None);
}

#[test]
fn a_seventh_level_fighter_strikes_once_then_twice() {
    let sides = "(name: \"Aldric\", side: \"A\", template: \"swordmaster\", at: (3, 3)),
                 (name: \"Grum\", side: \"B\", template: \"ogre\", at: (4, 3), set: {\"hp\": 60})";
    let orders = [
        Order::new("Aldric", "attack").target("Grum"),
        Order::new("Aldric", "attack").target("Grum"),
    ];
    let text = field("crucible", (12, 8), 2, NO_SURPRISE, sides);
    let o: Vec<(Order, bool)> = orders.iter().map(|o| (o.clone(), false)).collect();
    let mut b = common::battle(&text, &[2, 9, 2, 2, 9, 2, 2], |_| {
        Box::new(Plays(o.clone()))
    });
    common::run(&mut b);
    let r1 = texts(&b)
        .iter()
        .filter(|t| t.starts_with("Aldric attacks Grum"))
        .count();
    assert_eq!(
        r1, 3,
        "one attack in round 1, two in round 2 (ruling three_for_two)"
    );
    let log = b.world().resource::<fray_core::log::BattleLog>();
    let per_round: Vec<u32> = log
        .entries()
        .iter()
        .filter(|e| e.text.starts_with("Aldric attacks Grum"))
        .map(|e| e.round)
        .collect();
    assert_eq!(per_round, [1, 2, 2]);
}

#[test]
fn the_5_foot_step_draws_nothing_but_moving_on_within_reach_does() {
    let sides = "(name: \"Bram\", side: \"A\", template: \"fighter\", at: (3, 3), weapons: [\"longsword\"]),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (4, 3))";
    let step = [Order::new("Bram", "step").cell(fray_core::grid::Cell::new(4, 4))];
    let b = battle(NO_SURPRISE, sides, &[2, 9], &step);
    assert_has(
        &b,
        "Bram takes a 5' step from (3, 3) to (4, 4): no attack of opportunity.",
    );
    assert_lacks(&b, "attack of opportunity at");
    let walk = [Order::new("Bram", "move").cell(fray_core::grid::Cell::new(5, 4))];
    let b = battle(NO_SURPRISE, sides, &[2, 9, 17, 3], &walk);
    assert_has(&b, "Bram moves more than 5' within Grum's melee range.");
    assert_has(
        &b,
        "Grum takes an attack of opportunity at Bram, who moves on within its melee range.",
    );
    assert_has(&b, "Bram takes 3 damage");
}

#[test]
fn an_attacker_steps_over_the_fallen_to_strike_from_a_free_square() {
    // Ruling `fallen_bodies`: a wall with one gap, where Rot stands before
    // Aldric. Aldric fells him; Uzg crosses Rot's body in the gap and
    // strikes from a free square beside Aldric, rather than walk up to the
    // body and stop there, blowless.
    let combatants = "(name: \"Aldric\", side: \"A\", template: \"fighter\", at: (4, 3)),
                      (name: \"Rot\", side: \"B\", template: \"orc\", at: (5, 3)),
                      (name: \"Uzg\", side: \"B\", template: \"orc\", at: (7, 3)),";
    let text = &walled(
        (12, 8),
        "(5, 0), (5, 1), (5, 2), (5, 4), (5, 5), (5, 6), (5, 7)",
        combatants,
    );
    let orders = vec![
        (Order::new("Aldric", "attack").target("Rot"), false),
        (Order::new("Uzg", "attack").target("Aldric"), false),
    ];
    // Initiative 1 for A, 12 for B: Aldric acts first, hits with 20 and
    // deals 8; then Uzg's blow 20, damage 5.
    let mut b = common::battle(text, &[1, 12, 20, 8, 20, 5], |_| {
        Box::new(Plays(orders.clone()))
    });
    common::run(&mut b);
    assert_has(&b, "Rot falls at");
    assert_has(&b, "Uzg moves from (7, 3) to (6, 3) (1 cell).");
    assert_has(&b, "Uzg steps over Rot, who lies fallen at (5, 3).");
    assert_has(&b, "Uzg moves from (6, 3) to (4, 4) (2 cells).");
    assert_has(&b, "Uzg attacks Aldric with the battle_axe: 20");
    assert_lacks(&b, "cannot reach");
}

#[test]
fn no_5_foot_step_for_one_limited_to_5_feet() {
    let sides = "(name: \"Pip\", side: \"A\", template: \"halfling_thief\", at: (3, 3), set: {\"load\": 90}),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (4, 3))";
    let text = field("crucible", (12, 8), 1, NO_SURPRISE, sides);
    let mut b = idle(&text);
    let pip = unit(&b, "Pip");
    let step = Order::new("Pip", "step").cell(fray_core::grid::Cell::new(3, 4));
    assert!(
        crucible::validate(b.world_mut(), pip, &step).is_ok(),
        "2 squares: may step"
    );
    b.world_mut().get_mut::<crucible::Stats>(pip).unwrap().speed = 1;
    let why = crucible::validate(b.world_mut(), pip, &step).unwrap_err();
    assert!(why.contains("limited to 5'"), "{why}");
}

#[test]
fn one_limited_to_5_feet_moves_after_its_attack_not_before() {
    let sides = "(name: \"Pip\", side: \"A\", template: \"halfling_thief\", at: (3, 3)),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (5, 3)),
                 (name: \"Snag\", side: \"B\", template: \"orc\", at: (2, 3))";
    let text = field("crucible", (12, 8), 1, NO_SURPRISE, sides);
    let mut b = idle(&text);
    let pip = unit(&b, "Pip");
    let far = Order::new("Pip", "attack").target("Grum");
    let near = Order::new("Pip", "attack")
        .target("Snag")
        .cell(fray_core::grid::Cell::new(3, 4));
    assert!(crucible::validate(b.world_mut(), pip, &far).is_ok());
    b.world_mut().get_mut::<crucible::Stats>(pip).unwrap().speed = 1;
    let why = crucible::validate(b.world_mut(), pip, &far).unwrap_err();
    assert!(why.contains("movement comes after"), "{why}");
    assert!(
        crucible::validate(b.world_mut(), pip, &near).is_ok(),
        "strike, then the square after"
    );
    let sling = Order::new("Pip", "fire_then_move")
        .target("Grum")
        .cell(fray_core::grid::Cell::new(3, 4));
    assert!(
        crucible::validate(b.world_mut(), pip, &sling).is_ok(),
        "shoot, then the square after"
    );
}

#[test]
fn the_weight_table_gives_squares_by_band_race_and_strength() {
    let d = data();
    let rate = |race, load, str| crucible::movement_rate(&d, race, load, str);
    assert_eq!(
        [30, 50, 90, 120].map(|l| rate(Race::Human, l, 0)),
        [Some(6), Some(4), Some(3), Some(2)]
    );
    assert_eq!(
        [30, 50, 90, 120].map(|l| rate(Race::Halfling, l, 0)),
        [Some(4), Some(3), Some(2), None]
    );
    assert_eq!(
        rate(Race::Dwarf, 80, 0),
        Some(4),
        "ruling dwarf_burden: 80# counts as 65#"
    );
    assert_eq!(rate(Race::Human, 80, 0), Some(3));
    assert_eq!(
        rate(Race::Human, 60, 35),
        Some(6),
        "Strength adjusts the totals"
    );
}

/// A round of `sides` in which Wren gives `order`, with the forced `dice`.
fn wren_casts(sides: &str, order: Order, dice: &[u32]) -> Battle {
    played(sides, ((12, 8), 1), vec![order], dice)
}

/// A battle of `sides` on a field of `size`, `rounds` long, played to its
/// end with the `orders` given in turn and the forced `dice`.
fn played(sides: &str, field_of: ((u32, u32), u32), orders: Vec<Order>, dice: &[u32]) -> Battle {
    played_with(NO_SURPRISE, sides, field_of, orders, dice)
}

/// [`played`] with the scenario fields `more` (options …).
fn played_with(
    more: &str,
    sides: &str,
    (size, rounds): ((u32, u32), u32),
    orders: Vec<Order>,
    dice: &[u32],
) -> Battle {
    let text = field("crucible", size, rounds, more, sides);
    let o: Vec<(Order, bool)> = orders.into_iter().map(|o| (o, false)).collect();
    let mut b = common::battle(&text, dice, |_| Box::new(Plays(o.clone())));
    common::run(&mut b);
    b
}

#[test]
fn an_attack_on_one_already_down_is_said_to_be_lost() {
    // 003 §III B: both sides act at count 9, Vrek and Skarg listed first.
    // Vrek, entering the range of Wren, still to act, with the longer
    // weapon, strikes first and fells her (003 §II E); Skarg, in the same
    // instant, has nobody to attack, and the log says so.
    let sides = "(name: \"Vrek\", side: \"B\", template: \"hobgoblin\", at: (6, 3)),
                 (name: \"Skarg\", side: \"B\", template: \"hobgoblin\", at: (3, 5)),
                 (name: \"Wren\", side: \"A\", template: \"magic_user\", at: (3, 3), set: {\"hp\": 5}),
                 (name: \"Tam\", side: \"A\", template: \"fighter\", at: (1, 6), weapons: [\"longsword\"])";
    let orders = vec![
        Order::new("Wren", "wait"),
        Order::new("Tam", "wait"),
        Order::new("Vrek", "attack").target("Wren"),
        Order::new("Skarg", "attack").target("Wren"),
    ];
    let b = played(sides, ((10, 8), 1), orders, &[9, 10, 18, 8, 18, 8]);
    let falls = line(&b, "Wren falls at -3 hit points");
    assert!(falls < line(&b, "Wren is down already: Skarg's attack on it is lost."));
    assert_lacks(&b, "Skarg moves");
}

#[test]
fn a_cornered_player_character_is_refused_flight_not_made_to_surrender() {
    // Ruling flight_path: a monster with nowhere to run surrenders; a
    // player character's morale is its player's (003 §Withdrawal Tactics),
    // so its flight is refused with the reason and it fights on.
    let sides =
        "(name: \"Ash\", side: \"A\", template: \"fighter\", at: (2, 2), weapons: [\"longsword\"]),
                 (name: \"Gash\", side: \"B\", template: \"hobgoblin\", at: (3, 2))";
    let text = field("crucible", (6, 6), 1, NO_SURPRISE, sides).replace(
        "height: 6)",
        "height: 6, obstacles: [(1, 1), (2, 1), (3, 1), (1, 2), (1, 3), (2, 3), (3, 3)])",
    );
    let o = vec![(Order::new("Ash", "flee"), false)];
    let mut b = common::battle(&text, &[9, 2], |_| Box::new(Plays(o.clone())));
    common::run(&mut b);
    line(&b, "Ash's order \"flee\" is refused: nowhere to run");
    assert_lacks(&b, "surrenders");
}

#[test]
fn a_caster_struck_before_its_spell_is_begun_acts_otherwise() {
    // 003 §Casting in Combat: damage before the spell is completed prevents
    // casting, but "this does not prevent other actions": Wren walks up to
    // Skarg to cast, his longer longsword strikes first (003 §II E), and
    // she is asked for another order, and stabs him with her dagger.
    let sides = "(name: \"Wren\", side: \"A\", template: \"magic_user\", at: (1, 3)),
                 (name: \"Skarg\", side: \"B\", template: \"hobgoblin\", at: (4, 3))";
    let orders = vec![
        Order::new("Wren", "cast")
            .with("burning_hands")
            .target("Skarg")
            .cell(Cell::new(3, 3)),
        Order::new("Wren", "attack").target("Skarg"),
    ];
    let b = played(sides, ((12, 8), 1), orders, &[5, 9, 15, 3, 18, 2]);
    assert_has(
        &b,
        "Wren was damaged this round: no spell can be completed, but it may act otherwise.",
    );
    assert_lacks(&b, "Wren begins casting");
    assert_has(&b, "Wren attacks Skarg with the dagger: 18");
}

#[test]
fn a_caster_struck_on_its_walk_to_cast_has_no_second_walk() {
    // 003 §III D: the walk up to cast spent Wren's rate; spoiled, her
    // order in its place may not walk the rate again.
    let sides = "(name: \"Wren\", side: \"A\", template: \"magic_user\", at: (0, 3)),
                 (name: \"Skarg\", side: \"B\", template: \"hobgoblin\", at: (7, 3))";
    let here = Cell::new(6, 3);
    let orders = vec![
        Order::new("Wren", "cast")
            .with("burning_hands")
            .target("Skarg")
            .cell(here),
        Order::new("Wren", "move").cell(Cell::new(1, 3)),
    ];
    let b = played(sides, ((12, 8), 1), orders, &[5, 9, 15, 3]);
    let walked = texts(&b)
        .into_iter()
        .find(|t| t.starts_with("Wren moves from (0, 3)"))
        .unwrap_or_default();
    assert_has(&b, "no spell can be completed, but it may act otherwise");
    assert_lacks(&b, "Wren moves from (6, 3)");
    assert!(!walked.is_empty(), "{}", texts(&b).join("\n"));
}

#[test]
fn a_dexterity_penalty_to_armour_class_stays_while_casting() {
    // 003 §III E: "Spellcasters lose dexterity AC bonus only while actually
    // casting": Wren's clumsy +1 (AC 11) is no bonus, and stays.
    let sides =
        "(name: \"Wren\", side: \"A\", template: \"magic_user\", at: (3, 3), set: {\"dex_ac\": 1}),
                 (name: \"Skarg\", side: \"B\", template: \"hobgoblin\", at: (4, 3))";
    let b = wren_casts(
        sides,
        Order::new("Wren", "cast")
            .with("burning_hands")
            .target("Skarg"),
        &[5, 9, 15, 1],
    );
    assert_has(&b, "(THAC0 19 − AC 11): hits.");
    assert_lacks(&b, "no Dexterity bonus while casting");
}

#[test]
fn a_caster_may_move_once_its_spell_goes_off() {
    // 003 §III D: "Movement may be split as desired before and/or after
    // attacking/casting". Wren's magic missile goes off at count 5; then
    // she moves back to (0, 3). A full-round spell leaves only 5' after
    // (003 §The 5' Step).
    let sides = "(name: \"Wren\", side: \"A\", template: \"magic_user\", at: (3, 3)),
                 (name: \"Skarg\", side: \"B\", template: \"hobgoblin\", at: (9, 3), set: {\"hp\": 40})";
    let b = wren_casts(
        sides,
        Order::new("Wren", "cast_then_move")
            .with("magic_missile")
            .target("Skarg")
            .cell(Cell::new(0, 3)),
        &[5, 9, 3],
    );
    let goes_off = line(&b, "Wren completes magic_missile on Skarg: 4 damage");
    let moves = line(&b, "Wren moves from (3, 3) to (0, 3) (3 cells).");
    assert!(goes_off < moves);
    let far = Order::new("Wren", "cast_then_move")
        .with("flame_strike")
        .target("Skarg")
        .cell(Cell::new(1, 3));
    let b = wren_casts(&sides.replace("magic_user", "high_priest"), far, &[5, 9]);
    assert_has(&b, "Wren's order \"cast_then_move\" is refused");
}

#[test]
fn a_spoiled_spell_stops_the_casting_not_the_move_after_it() {
    // 003 §Casting in Combat: "this disruption only prevents casting". Kob's
    // sling spoils Eva's lightning bolt at count 2; at count 3, when it
    // would have gone off, she moves on as ordered (003 §III D).
    let sides = "(name: \"Eva\", side: \"A\", template: \"evoker\", at: (1, 1)),
                 (name: \"Kob\", side: \"B\", template: \"kobold_slinger\", at: (7, 1))";
    let b = played(
        sides,
        ((12, 8), 1),
        vec![
            Order::new("Eva", "cast_then_move")
                .with("lightning_bolt")
                .target("Kob")
                .cell(Cell::new(0, 4)),
            Order::new("Kob", "fire").target("Eva"),
        ],
        &[2, 2, 20, 4],
    );
    let spoiled = line(&b, "Eva is struck while casting lightning_bolt");
    let moves = line(&b, "Eva moves from (1, 1) to (0, 4) (3 cells).");
    assert!(spoiled < moves);
}

#[test]
fn a_weapon_strikes_the_unarmed_first_at_the_same_instant() {
    // 003 §II E: "Weapons always win initiative vs. unarmed" (ruling
    // armed_first), whoever is listed first in the tie at count 4: Fig's
    // longsword drops Bob (20 to hit, 8 + 2 damage) before his fists land.
    let sides = "(name: \"Fig\", side: \"A\", template: \"swordmaster\", at: (1, 1)),
                 (name: \"Bob\", side: \"B\", template: \"brawler\", at: (2, 1))";
    let b = played(
        sides,
        ((6, 3), 1),
        vec![
            Order::new("Fig", "attack").target("Bob"),
            Order::new("Bob", "attack").target("Fig"),
        ],
        &[5, 4, 20, 8, 20],
    );
    assert_has(
        &b,
        "Fig's weapon wins initiative against the unarmed Bob, who acts at the same instant: it strikes first (ruling armed_first).",
    );
    assert_has(&b, "Bob falls at 0 hit points");
    assert_lacks(&b, "Bob attacks Fig");
}

#[test]
fn a_parry_lasts_until_the_parriers_next_turn() {
    // Ruling parry: "-4 until its next turn". Pat parries at count 1 of
    // round 1; in round 2 Hob attacks at count 1, before Pat's turn at
    // 11: 10 - 4 = 6 against 16.
    let sides =
        "(name: \"Pat\", side: \"A\", template: \"fighter\", at: (1, 1), weapons: [\"longsword\"]),
                 (name: \"Hob\", side: \"B\", template: \"hobgoblin\", at: (2, 1))";
    let b = played(
        sides,
        ((6, 3), 2),
        vec![
            Order::new("Pat", "parry"),
            Order::new("Hob", "wait"),
            Order::new("Hob", "attack").target("Pat"),
            Order::new("Pat", "parry"),
        ],
        &[2, 5, 12, 1, 10, 3],
    );
    assert_has(
        &b,
        "Hob attacks Pat with the longsword: 10 -4 parry (ruling parry) = 6 against 16",
    );
}

#[test]
fn a_parrier_gives_up_its_first_strike_and_attacks_of_opportunity_until_its_turn() {
    // Ruling parry: "A parrying creature gives up its attacks" until its
    // next turn. Pike parries at count 1 of round 1; in round 2 Osric acts
    // first and comes into the spear's reach: no first strike (003 §II E),
    // and his blow takes the -4.
    let sides = "(name: \"Pike\", side: \"A\", template: \"spearman\", at: (3, 2)),
                 (name: \"Osric\", side: \"B\", template: \"fighter\", at: (7, 2), weapons: [\"longsword\"])";
    let b = played(
        sides,
        ((12, 6), 2),
        vec![
            Order::new("Pike", "parry"),
            Order::new("Osric", "wait"),
            Order::new("Osric", "attack").target("Pike"),
            Order::new("Pike", "wait"),
        ],
        &[1, 10, 12, 2, 6],
    );
    assert_lacks(&b, "strikes first");
    assert_lacks(&b, "Pike attacks Osric");
    assert_has(
        &b,
        "Osric attacks Pike with the longsword: 6 -4 parry (ruling parry) = 2 against 13",
    );
    // The same round, Osric walks on within Pike's reach round a wall
    // (more than 5', 003 §III F): no attack of opportunity from one parrying.
    let text = walled(
        (12, 6),
        "(5, 2)",
        "(name: \"Pike\", side: \"A\", template: \"spearman\", at: (3, 2)),
         (name: \"Osric\", side: \"B\", template: \"fighter\", at: (4, 1), weapons: [\"longsword\"])",
    );
    let orders = vec![
        (Order::new("Pike", "parry"), false),
        (Order::new("Osric", "move").cell(Cell::new(4, 3)), false),
    ];
    let mut b = common::battle(&text, &[1, 10], |_| Box::new(Plays(orders.clone())));
    common::run(&mut b);
    assert_has(&b, "Osric moves from (4, 1) to (4, 3) (2 cells).");
    assert_lacks(&b, "Pike takes an attack of opportunity");
}

#[test]
fn a_parry_counts_against_missiles_too() {
    // Ruling parry: "attacks on it take -4 until its next turn", a shot
    // as much as a blow. Ash parries; Kip slings at him.
    let sides =
        "(name: \"Ash\", side: \"A\", template: \"fighter\", at: (3, 3), weapons: [\"longsword\"]),
                 (name: \"Kip\", side: \"B\", template: \"kobold_slinger\", at: (8, 3))";
    let b = played(
        sides,
        ((10, 6), 1),
        vec![
            Order::new("Ash", "parry"),
            Order::new("Kip", "fire").target("Ash"),
        ],
        &[2, 9, 15, 1],
    );
    assert_has(
        &b,
        "Kip attacks Ash with the sling: 15 -4 parry (ruling parry) = 11 against 17",
    );
}

#[test]
fn an_approach_takes_the_shortest_way_that_draws_the_fewest_blows() {
    // Ruling wary_way (003 §III F): Osric, beside Skarg, goes for Vrek. By
    // (5, 4) and (6, 4) he would move 10' within Skarg's reach; by (5, 4)
    // and (6, 5), as short, he leaves it after the first 5'.
    let sides = "(name: \"Osric\", side: \"A\", template: \"fighter\", at: (4, 3), weapons: [\"longsword\"]),
                 (name: \"Skarg\", side: \"B\", template: \"hobgoblin\", at: (5, 3)),
                 (name: \"Vrek\", side: \"B\", template: \"hobgoblin\", at: (7, 4))";
    let b = played(
        sides,
        ((12, 8), 1),
        vec![Order::new("Osric", "attack").target("Vrek")],
        &[2, 9, 5],
    );
    assert_has(&b, "Osric moves from (4, 3) to (6, 5) (2 cells).");
    assert_lacks(&b, "attack of opportunity");
}

#[test]
fn a_move_split_around_an_attack_counts_its_5_feet_once() {
    // 003 §III F: "Moving more than 5' while remaining within melee range
    // of an opponent". Ann steps along Bee's side to strike Tee, then steps
    // on along it: 10' within Bee's range in the round, though split by the
    // attack. Cee stands in the way round below Bee's reach.
    let sides =
        "(name: \"Ann\", side: \"A\", template: \"fighter\", at: (2, 2), weapons: [\"longsword\"]),
                 (name: \"Bee\", side: \"B\", template: \"hobgoblin\", at: (2, 1)),
                 (name: \"Tee\", side: \"B\", template: \"hobgoblin\", at: (4, 2)),
                 (name: \"Cee\", side: \"A\", template: \"fighter\", at: (3, 3))";
    let b = played(
        sides,
        ((6, 4), 1),
        vec![
            Order::new("Ann", "attack")
                .target("Tee")
                .cell(Cell::new(3, 1)),
        ],
        &[7, 12, 17, 3, 12],
    );
    let struck = line(&b, "Ann attacks Tee with the longsword");
    let provoked = line(&b, "Ann moves more than 5' within Bee's melee range.");
    assert!(struck < provoked);
}

#[test]
fn a_broken_tie_leaves_those_still_tied_together() {
    // 003 §II F–G: "Ties are just that". The dagger's lower weapon speed
    // factor puts Dag first; Swd and Hob, both with longswords, stay tied:
    // Hob swings though Swd's blow drops him.
    let sides = "(name: \"Dag\", side: \"A\", template: \"fighter\", at: (1, 1), weapons: [\"dagger\"]),
                 (name: \"Swd\", side: \"A\", template: \"fighter\", at: (3, 1), weapons: [\"longsword\"]),
                 (name: \"Hob\", side: \"B\", template: \"hobgoblin\", at: (2, 1))";
    let more = r#"options: {"surprise": "none", "wsf_ties": "on"},"#;
    let orders = vec![
        Order::new("Dag", "attack").target("Hob"),
        Order::new("Swd", "attack").target("Hob"),
        Order::new("Hob", "attack").target("Swd"),
    ];
    let b = played_with(
        more,
        sides,
        ((8, 3), 1),
        orders,
        &[5, 4, 15, 3, 15, 8, 15, 5],
    );
    assert_has(
        &b,
        "The tie is broken by the lower weapon speed factor (Dag before Hob): Dag before Swd, Hob (Swd behind by no option, acting with those after).",
    );
    let swings = line(&b, "Hob attacks Swd with the longsword");
    let falls = line(&b, "Hob falls at -5 hit points");
    assert!(swings < falls);
}

#[test]
fn struck_while_casting_the_spell_is_spoiled_and_forgotten() {
    let sides = "(name: \"Wren\", side: \"A\", template: \"magic_user\", at: (3, 3)),
                 (name: \"Skarg\", side: \"B\", template: \"hobgoblin\", at: (4, 3))";
    let b = wren_casts(
        sides,
        Order::new("Wren", "cast")
            .with("burning_hands")
            .target("Skarg"),
        &[5, 9, 15, 1],
    );
    assert_has(
        &b,
        "Wren begins casting burning_hands at Skarg (casting time 1 segment, ruling casting_time): it goes off at count 5.",
    );
    assert_has(
        &b,
        "Skarg takes an attack of opportunity at Wren, who casts a spell in its melee range.",
    );
    assert_has(
        &b,
        "(THAC0 19 − AC 10 (no Dexterity bonus while casting, 003 §III E)): hits.",
    );
    assert_has(
        &b,
        "Wren is struck while casting burning_hands: the spell is spoiled and forgotten.",
    );
    assert_lacks(&b, "completes burning_hands");
    let wren = unit(&b, "Wren");
    let m = b.world().get::<Memorised>(wren).unwrap();
    assert_eq!(m.0, ["magic_missile", "magic_missile"]);
}

#[test]
fn a_spell_not_struck_goes_off_after_its_casting_time() {
    let sides = "(name: \"Wren\", side: \"A\", template: \"magic_user\", at: (1, 3)),
                 (name: \"Skarg\", side: \"B\", template: \"hobgoblin\", at: (8, 3))";
    let orders = [Order::new("Wren", "cast")
        .with("magic_missile")
        .target("Skarg")];
    let b = battle(NO_SURPRISE, sides, &[5, 9, 4], &orders);
    assert_has(
        &b,
        "Wren completes magic_missile on Skarg: 5 damage (ruling spell_effect).",
    );
    assert_eq!(
        time_of(&b, "Wren completes magic_missile"),
        "round 1, initiative 5"
    );
    let wren = unit(&b, "Wren");
    let m = b.world().get::<Memorised>(wren).unwrap();
    assert_eq!(
        m.0,
        ["magic_missile", "burning_hands"],
        "the spell is spent"
    );
}

#[test]
fn damage_earlier_in_the_round_prevents_any_casting() {
    let sides = "(name: \"Wren\", side: \"A\", template: \"magic_user\", at: (3, 3)),
                 (name: \"Skarg\", side: \"B\", template: \"hobgoblin\", at: (4, 3))";
    let orders = [
        Order::new("Skarg", "attack").target("Wren"),
        Order::new("Wren", "cast")
            .with("magic_missile")
            .target("Skarg"),
    ];
    let b = battle(NO_SURPRISE, sides, &[9, 2, 18, 2], &orders);
    assert_has(&b, "Wren takes 2 damage");
    assert_has(
        &b,
        "Wren's order \"cast\" is refused: damaged this round: no spellcasting for the rest of it",
    );
}

#[test]
fn full_round_spells_resolve_last_in_the_round() {
    let sides = "(name: \"Hal\", side: \"A\", template: \"high_priest\", at: (1, 3)),
                 (name: \"Skarg\", side: \"B\", template: \"ogre\", at: (8, 3), set: {\"hp\": 80})";
    let orders = [
        Order::new("Hal", "cast")
            .with("flame_strike")
            .target("Skarg"),
        Order::new("Skarg", "move").cell(fray_core::grid::Cell::new(7, 3)),
    ];
    let b = battle(NO_SURPRISE, sides, &[1, 12], &orders);
    let done = common::line(&b, "Hal completes flame_strike");
    assert!(done > common::line(&b, "Skarg moves from"));
    assert_eq!(
        time_of(&b, "Hal completes flame_strike"),
        "round 1, last in the round"
    );
}

#[test]
fn one_no_option_sets_against_anyone_acts_with_the_winners_of_a_tie() {
    // 003 §II F–G: the short sword's lower weapon speed factor puts Gob
    // before Osric; nothing decides between Gob and the slinger, who shoot
    // and strike at the same instant: the slinger shoots though Gob's blow
    // drops him.
    let sides = "(name: \"Osric\", side: \"A\", template: \"fighter\", at: (5, 3), weapons: [\"longsword\"]),
                 (name: \"Slinger\", side: \"A\", template: \"kobold_slinger\", at: (8, 3), weapons: [\"short_sword\", \"sling\"], set: {\"hp\": 1}),
                 (name: \"Gob\", side: \"B\", template: \"goblin\", at: (6, 3))";
    let more = r#"options: {"surprise": "none", "wsf_ties": "on"},"#;
    let orders = vec![
        Order::new("Osric", "attack").target("Gob"),
        Order::new("Slinger", "fire").target("Gob"),
        Order::new("Gob", "attack").target("Slinger"),
    ];
    let b = played_with(more, sides, ((12, 8), 1), orders, &[5, 5, 20, 1, 20, 6, 2]);
    assert_has(
        &b,
        "The tie is broken by the lower weapon speed factor (Gob before Osric): Slinger, Gob before Osric (Slinger first by no option, tied with a foe among those first).",
    );
    let shoots = line(&b, "Slinger attacks Gob with the sling: 20 against 14");
    assert!(
        shoots < line(&b, "Slinger falls"),
        "{}",
        texts(&b).join("\n")
    );
}

#[test]
fn ties_are_simultaneous_unless_weapon_speed_decides() {
    let sides = "(name: \"Osric\", side: \"A\", template: \"fighter\", at: (3, 3), weapons: [\"longsword\"]),
                 (name: \"Gash\", side: \"B\", template: \"orc\", at: (4, 3))";
    let orders = [
        Order::new("Osric", "attack").target("Gash"),
        Order::new("Gash", "attack").target("Osric"),
    ];
    let b = battle(NO_SURPRISE, sides, &[3, 2, 5, 5], &orders);
    assert_has(
        &b,
        "Osric, Gash act at the same instant: their blows land together.",
    );
    let more = "options: {\"surprise\": \"none\", \"wsf_ties\": \"on\"},";
    let b = battle(more, sides, &[3, 2, 5, 5], &orders);
    assert_has(
        &b,
        "The tie is broken by the lower weapon speed factor (Osric before Gash): Osric before Gash.",
    );
}

#[test]
fn charging_in_with_the_longer_weapon_strikes_first_even_in_a_tie() {
    // 003 §II E: Pike charges Gash with the spear (8') against the battle
    // axe (4'); both sides act at 2, yet the spear lands first and Gash,
    // dropped, never swings, whichever of them the listing names first.
    let pike = "(name: \"Pike\", side: \"A\", template: \"spearman\", at: (1, 3))";
    let gash = "(name: \"Gash\", side: \"B\", template: \"orc\", at: (3, 3), set: {\"hp\": 2})";
    let orders = [
        Order::new("Pike", "attack").target("Gash"),
        Order::new("Gash", "attack").target("Pike"),
    ];
    for sides in [format!("{pike}, {gash}"), format!("{gash}, {pike}")] {
        let b = battle(NO_SURPRISE, &sides, &[2, 2, 20, 5], &orders);
        assert_has(&b, "act at the same instant: their blows land together.");
        assert_has(&b, "strikes first, regardless of initiative");
        assert_has(&b, "Pike attacks Gash with the spear: 20");
        assert_has(&b, "Gash falls");
        assert_eq!(common::count(&b, "Gash attacks Pike"), 0, "{sides}");
    }
}

#[test]
fn stepping_into_melee_with_the_longer_weapon_strikes_first_too() {
    // 003 §II E: "When entering/charging into melee range": Pike enters
    // Gash's range by the 5' step; at the same count, the spear lands first.
    let sides = "(name: \"Pike\", side: \"A\", template: \"spearman\", at: (1, 3)),
                 (name: \"Gash\", side: \"B\", template: \"orc\", at: (3, 3), set: {\"hp\": 2})";
    let orders = [
        Order::new("Pike", "step")
            .cell(fray_core::grid::Cell::new(2, 3))
            .target("Gash"),
        Order::new("Gash", "attack").target("Pike"),
    ];
    let b = battle(NO_SURPRISE, sides, &[2, 2, 20, 5], &orders);
    assert_has(
        &b,
        "Pike comes into Gash's melee range with the longer weapon and strikes first, regardless of initiative.",
    );
    assert_has(&b, "Gash falls");
    assert_eq!(common::count(&b, "Gash attacks Pike"), 0);
}

#[test]
fn the_first_tie_option_that_decides_orders_the_tie() {
    // 003 §II G, both options on: Sigur (level 13, two attacks a round,
    // longsword WSF 5) ties with Gob (one attack, short sword WSF 3). The
    // lower WSF, the text's first option, puts Gob first; more attacks,
    // which would put Sigur first, comes after it and does not make it a
    // tie again.
    let sides = "(name: \"Sigur\", side: \"A\", template: \"swordmaster\", at: (3, 3), set: {\"level\": 13}),
                 (name: \"Gob\", side: \"B\", template: \"goblin\", at: (4, 3), set: {\"hp\": 40})";
    let orders = [
        Order::new("Sigur", "attack").target("Gob"),
        Order::new("Gob", "attack").target("Sigur"),
    ];
    let more =
        "options: {\"surprise\": \"none\", \"wsf_ties\": \"on\", \"more_attacks_ties\": \"on\"},";
    let b = battle(more, sides, &[3, 2], &orders);
    assert_has(
        &b,
        "The tie is broken by the lower weapon speed factor (Gob before Sigur): Gob before Sigur.",
    );
    assert!(common::line(&b, "Gob attacks Sigur") < common::line(&b, "Sigur attacks Gob"));
}

#[test]
fn a_missile_beats_a_spell_whose_casting_time_is_higher_than_the_casters_result() {
    // 003 §II G, ruling missile_vs_spell: Vex begins a lightning bolt
    // (casting time 3) at its result 1 (3 − 2 Dexterity), so it goes off at
    // 4, as Aelis (6 − 2) looses her arrows: 3 is higher than 1, the
    // missile goes first. Begun at 6 instead, the spell and the arrows at 9
    // are simultaneous.
    let sides = "(name: \"Vex\", side: \"A\", template: \"evoker\", at: (2, 3)),
                 (name: \"Aelis\", side: \"B\", template: \"elf_scout\", at: (8, 3))";
    let orders = [
        Order::new("Vex", "cast")
            .with("lightning_bolt")
            .target("Aelis"),
        Order::new("Aelis", "fire").target("Vex"),
    ];
    let more = "options: {\"surprise\": \"none\", \"missile_vs_spell_ties\": \"on\"},";
    let b = battle(more, sides, &[3, 6, 1, 1, 3, 3, 3], &orders);
    assert_has(
        &b,
        "The tie is broken by a casting time higher than the caster's initiative result (Aelis before Vex): Aelis before Vex.",
    );
    let b = battle(more, sides, &[8, 11, 1, 1, 3, 3, 3], &orders);
    assert_lacks(&b, "The tie is broken");
    assert_has(&b, "Vex, Aelis act at the same instant");
}

#[test]
fn a_tie_of_two_killers_drops_both() {
    let sides = "(name: \"Osric\", side: \"A\", template: \"fighter\", at: (3, 3), weapons: [\"longsword\"], set: {\"hp\": 2}),
                 (name: \"Gash\", side: \"B\", template: \"orc\", at: (4, 3), set: {\"hp\": 2})";
    let orders = [
        Order::new("Osric", "attack").target("Gash"),
        Order::new("Gash", "attack").target("Osric"),
    ];
    let b = battle(NO_SURPRISE, sides, &[3, 2, 20, 5, 20, 5], &orders);
    assert_has(&b, "Osric falls");
    assert_has(&b, "Gash falls");
    assert_has(&b, "nobody is left fighting");
}

#[test]
fn a_readied_missile_fires_before_initiative_or_its_action_is_lost() {
    let sides = "(name: \"Aelis\", side: \"A\", template: \"elf_scout\", at: (1, 3), set: {\"readied\": 1}),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (8, 3))";
    let fire = [Order::new("Aelis", "fire").target("Grum")];
    let b = battle(NO_SURPRISE, sides, &[20, 1, 5], &fire);
    let shot = common::line(&b, "Aelis attacks Grum with the shortbow");
    assert!(
        shot < common::line(&b, "rolls initiative"),
        "fired before initiative"
    );
    let b = battle(NO_SURPRISE, sides, &[5, 9], &[]);
    assert_has(&b, "Aelis holds the readied missile");
    assert_has(
        &b,
        "Aelis does not fire the readied missile by its turn: the action is lost.",
    );
}

/// Whether `name`'s turn (003 §II A) offered to move to any cell, each
/// time it was asked; everyone holds, or waits.
struct OffersCells(&'static str, std::sync::Arc<std::sync::Mutex<Vec<bool>>>);

impl Controller for OffersCells {
    fn decide(&mut self, world: &mut World, d: &Decision) -> Option<Order> {
        if d.actor_name == self.0 && d.rule == "003 §II A" {
            self.1.lock().unwrap().push(d.any_cell);
        }
        Plays(Vec::new()).decide(world, d)
    }
}

#[test]
fn a_held_missile_offers_no_cell_to_move_to() {
    // Ruling readied_missile: a held missile fires on the turn, or the
    // action is lost; the turn does not offer a move it would refuse. In
    // round 2, nothing held, it does.
    let text = field(
        "crucible",
        (12, 8),
        2,
        NO_SURPRISE,
        "(name: \"Aelis\", side: \"A\", template: \"elf_scout\", at: (1, 3), set: {\"readied\": 1}),
         (name: \"Grum\", side: \"B\", template: \"orc\", at: (8, 3))",
    );
    let offered = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = offered.clone();
    let mut b = common::battle(&text, &[5, 9, 5, 9], move |_| {
        Box::new(OffersCells("Aelis", seen.clone()))
    });
    common::run(&mut b);
    assert_eq!(*offered.lock().unwrap(), [false, true]);
}

#[test]
fn a_missile_fired_before_initiative_spends_the_rounds_attack() {
    // Ruling readied_missile: Aelis fires before initiative, and on her
    // turn a second volley is refused (003 §III B); she may still move.
    let sides = "(name: \"Aelis\", side: \"A\", template: \"elf_scout\", at: (1, 3), set: {\"readied\": 1}),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (8, 3), set: {\"hp\": 60})";
    let fire = Order::new("Aelis", "fire").target("Grum");
    let b = battle(NO_SURPRISE, sides, &[], &[fire.clone(), fire]);
    assert_eq!(
        common::count(&b, "Aelis attacks Grum with the shortbow"),
        2,
        "one volley of two arrows, before initiative"
    );
    let refused = b.last_refusal.as_ref().map(|r| r.reason.clone());
    assert!(
        refused.is_some_and(|r| r.starts_with("its attacks of this round are spent")),
        "{:?}",
        b.last_refusal
    );
}

#[test]
fn a_fighter_who_struck_first_at_a_charger_strikes_no_more_that_round() {
    // Ruling length_strike: Pike's spear struck first as Osric came in, so
    // his attacks of the round are spent; his own turn's attack is refused.
    let sides = "(name: \"Osric\", side: \"A\", template: \"fighter\", at: (1, 2), weapons: [\"longsword\"], set: {\"hp\": 60}),
                 (name: \"Pike\", side: \"B\", template: \"spearman\", at: (5, 2), set: {\"hp\": 60})";
    let orders = [
        Order::new("Osric", "attack").target("Pike"),
        Order::new("Pike", "attack").target("Osric"),
    ];
    // Osric's side acts at 2, Pike's at 9.
    let b = battle(NO_SURPRISE, sides, &[2, 9], &orders);
    assert_eq!(common::count(&b, "Pike attacks Osric"), 1);
    assert!(
        b.last_refusal
            .as_ref()
            .is_some_and(|r| r.order.actor == "Pike" && r.reason.contains("spent")),
        "{:?}",
        b.last_refusal
    );
}

#[test]
fn an_archer_moves_its_rate_and_still_shoots() {
    // 003 §III D: "All characters may move their standard rate and still use
    // their full attack routine": Aelis, 11 squares from Grum, beyond her
    // shortbow's 10, steps to (1, 3) and shoots her two arrows.
    let sides = "(name: \"Aelis\", side: \"A\", template: \"elf_scout\", at: (0, 3)),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (11, 3), set: {\"hp\": 60})";
    let from_here = [Order::new("Aelis", "fire").target("Grum")];
    let b = battle(NO_SURPRISE, sides, &[2, 9], &from_here);
    assert_eq!(
        common::count(&b, "Aelis attacks Grum"),
        0,
        "beyond range 10"
    );
    let moved = [Order::new("Aelis", "fire")
        .target("Grum")
        .cell(fray_core::grid::Cell::new(1, 3))];
    let b = battle(NO_SURPRISE, sides, &[2, 9], &moved);
    let walk = common::line(&b, "Aelis moves from (0, 3) to (1, 3) (1 cell).");
    assert!(walk < common::line(&b, "Aelis attacks Grum with the shortbow"));
    assert_eq!(common::count(&b, "Aelis attacks Grum with the shortbow"), 2);
}

#[test]
fn an_archer_shoots_then_moves_back() {
    // 003 §III D: "Movement may be split as desired before and/or after
    // attacking": Aelis shoots Grum twice (shortbow, 2 a round), then
    // walks back out of his reach.
    let sides = "(name: \"Aelis\", side: \"A\", template: \"elf_scout\", at: (3, 3)),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (7, 3), set: {\"hp\": 40})";
    let shoot = [Order::new("Aelis", "fire_then_move")
        .target("Grum")
        .cell(fray_core::grid::Cell::new(0, 3))];
    let b = battle(NO_SURPRISE, sides, &[2, 9], &shoot);
    assert_eq!(common::count(&b, "Aelis attacks Grum with the shortbow"), 2);
    let walk = common::line(&b, "Aelis moves from (3, 3) to (0, 3)");
    assert!(common::line(&b, "Aelis attacks Grum with the shortbow") < walk);
    // A person is offered the shot and the move back, to the cell farthest
    // from the foes within its rate.
    let text = field("crucible", (12, 8), 1, NO_SURPRISE, sides);
    let mut b = idle(&text);
    let aelis = unit(&b, "Aelis");
    let choices = crucible::choices(b.world_mut(), aelis);
    assert!(
        choices.iter().any(|c| c.order.action == "fire"
            && c.order.then.is_some()
            && c.label.starts_with("Fire at Grum, then move back to")),
        "{:?}",
        choices.iter().map(|c| &c.label).collect::<Vec<_>>()
    );
}

#[test]
fn missile_fire_at_an_adjacent_melee_attacker_draws_an_attack_of_opportunity() {
    let sides = "(name: \"Aelis\", side: \"A\", template: \"elf_scout\", at: (3, 3)),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (4, 3))";
    let fire = [Order::new("Aelis", "fire").target("Grum")];
    let b = battle(NO_SURPRISE, sides, &[2, 9, 3], &fire);
    let aoo = common::line(
        &b,
        "Grum takes an attack of opportunity at Aelis, who fires a missile in melee.",
    );
    assert!(aoo < common::line(&b, "Aelis attacks Grum with the shortbow"));
}

#[test]
fn bare_hands_beside_a_shooter_take_no_attack_of_opportunity() {
    let sides = "(name: \"Aelis\", side: \"A\", template: \"elf_scout\", at: (3, 3)),
                 (name: \"Bruno\", side: \"B\", template: \"brawler\", at: (4, 3))";
    let fire = [Order::new("Aelis", "fire").target("Bruno")];
    let b = battle(NO_SURPRISE, sides, &[2, 9, 3], &fire);
    assert_lacks(&b, "takes an attack of opportunity");
    assert!(common::count(&b, "Aelis attacks Bruno with the shortbow") >= 1);
}

#[test]
fn only_one_attack_of_opportunity_a_round() {
    let sides = "(name: \"Wren\", side: \"A\", template: \"magic_user\", at: (3, 3)),
                 (name: \"Bram\", side: \"A\", template: \"fighter\", at: (3, 4), weapons: [\"longsword\"]),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (4, 3), set: {\"hp\": 40})";
    let orders = [
        Order::new("Wren", "cast")
            .with("magic_missile")
            .target("Grum"),
        Order::new("Bram", "move").cell(fray_core::grid::Cell::new(5, 4)),
    ];
    let b = battle(NO_SURPRISE, sides, &[2, 9, 2], &orders);
    assert_eq!(common::count(&b, "takes an attack of opportunity"), 1);
}

#[test]
fn one_who_disengages_or_runs_does_not_fight_that_round() {
    // 003 §Withdrawal Tactics: "Disengaging forces do not fight": Pike's
    // spear does not strike first at Osric coming in.
    let sides = "(name: \"Pike\", side: \"A\", template: \"spearman\", at: (5, 2)),
                 (name: \"Osric\", side: \"B\", template: \"fighter\", at: (8, 2), weapons: [\"longsword\"])";
    let orders = [
        Order::new("Pike", "disengage"),
        Order::new("Osric", "attack").target("Pike"),
    ];
    let b = battle(NO_SURPRISE, sides, &[2, 9], &orders);
    assert_has(&b, "Pike disengages");
    assert_lacks(&b, "strikes first");
    // 003 §III D: running "sacrifices any combat": no attack of
    // opportunity at Osric walking on within its reach.
    let sides = "(name: \"Pike\", side: \"A\", template: \"spearman\", at: (0, 4)),
                 (name: \"Osric\", side: \"B\", template: \"fighter\", at: (6, 4), weapons: [\"longsword\"])";
    let orders = [
        Order::new("Pike", "run").cell(fray_core::grid::Cell::new(5, 4)),
        Order::new("Osric", "move").cell(fray_core::grid::Cell::new(4, 5)),
    ];
    let b = battle(NO_SURPRISE, sides, &[2, 9], &orders);
    assert_has(&b, "Pike runs");
    assert_has(&b, "Osric moves");
    assert_lacks(&b, "Pike takes an attack of opportunity");
}

#[test]
fn following_one_who_falls_back_uses_up_the_followers_movement() {
    // 003 §Withdrawal Tactics, ruling follow: Bran follows Aldo 2 squares
    // back; on his turn his rate of 4 has 2 left ("assuming his movement
    // allows"): 4 squares more is refused, and he waits.
    let sides = "(name: \"Aldo\", side: \"A\", template: \"fighter\", at: (6, 4), weapons: [\"longsword\"]),
                 (name: \"Bran\", side: \"B\", template: \"fighter\", at: (7, 4), weapons: [\"longsword\"])";
    let text = field("crucible", (16, 9), 1, NO_SURPRISE, sides);
    let orders = vec![
        (
            Order::new("Aldo", "fall_back").cell(fray_core::grid::Cell::new(4, 4)),
            false,
        ),
        (
            Order::new("Bran", "move").cell(fray_core::grid::Cell::new(5, 8)),
            false,
        ),
    ];
    let mut b = common::battle(&text, &[2, 9], |_| Box::new(Plays(orders.clone())));
    common::run(&mut b);
    let follows = line(&b, "Bran follows Aldo");
    // The follower's walk is a move like any other, in the log.
    assert!(follows < line(&b, "Bran moves from (7, 4) to (5, 4)"));
    assert_has(&b, "Bran's order \"move\" is refused");
    assert_lacks(&b, "Bran moves from (5, 4) to (5, 8)");
}

#[test]
fn running_out_of_melee_turns_ones_back_and_the_striker_may_not_pursue() {
    // Ruling running_rate: Aldo runs from Bran, beside him. Bran is asked
    // first and strikes at his back (a natural 1: a miss); then Bran may
    // not pursue on his turn (ruling no_pursuit).
    let text = r#"(
        name: "t", ruleset: "crucible", round_cap: 1,
        grid: (kind: Square, width: 20, height: 9),
        options: {"surprise": "none"},
        sides: [(name: "A"), (name: "B")],
        combatants: [
            (name: "Aldo", side: "A", template: "fighter", at: (10, 4), weapons: ["longsword"]),
            (name: "Bran", side: "B", template: "fighter", at: (11, 4), weapons: ["longsword"]),
        ])"#;
    let c = fray_core::grid::Cell::new;
    let orders = vec![
        (Order::new("Aldo", "run").cell(c(3, 4)), false),
        (Order::new("Bran", "strike_back").target("Aldo"), false),
        (Order::new("Bran", "move").cell(c(8, 4)), false),
    ];
    let mut b = common::battle(text, &[2, 9, 1], |_| Box::new(Plays(orders.clone())));
    common::run(&mut b);
    assert_has(
        &b,
        "Bran takes an attack of opportunity at Aldo, who turns its back to run.",
    );
    assert_has(&b, "Aldo moves from (10, 4) to (3, 4) (7 cells).");
    assert_has(&b, "Bran's order \"move\" is refused");
}

#[test]
fn fleeing_past_another_opponent_draws_its_attack_of_opportunity() {
    // 003 §Withdrawal Tactics and §III F: in a corridor, Bran strikes at
    // Aldo's back (a natural 1: a miss); Aldo's flight runs on within
    // Cato's reach, in the corridor's side niche at (3, 0).
    let text = r#"(
        name: "t", ruleset: "crucible", round_cap: 1,
        grid: (kind: Square, width: 11, height: 3, obstacles: [(0, 0), (1, 0), (2, 0), (4, 0), (5, 0), (6, 0), (7, 0), (8, 0), (9, 0), (10, 0), (0, 2), (1, 2), (2, 2), (3, 2), (4, 2), (5, 2), (6, 2), (7, 2), (8, 2), (9, 2), (10, 2)]),
        options: {"surprise": "none"},
        sides: [(name: "A"), (name: "B")],
        combatants: [
            (name: "Aldo", side: "A", template: "fighter", at: (5, 1), weapons: ["longsword"]),
            (name: "Bran", side: "B", template: "fighter", at: (6, 1), weapons: ["longsword"]),
            (name: "Cato", side: "B", template: "fighter", at: (3, 0), weapons: ["longsword"]),
        ])"#;
    let orders = vec![(Order::new("Aldo", "flee"), false)];
    let mut b = common::battle(text, &[2, 9, 1, 1], |_| Box::new(Plays(orders.clone())));
    common::run(&mut b);
    assert_has(
        &b,
        "Bran takes an attack of opportunity at Aldo, who turns its back to flee.",
    );
    assert_has(&b, "Aldo moves more than 5' within Cato's melee range.");
    assert_has(
        &b,
        "Cato takes an attack of opportunity at Aldo, who moves on within its melee range.",
    );
}

#[test]
fn full_round_casting_leaves_no_move_before_the_spell() {
    // 003 §The 5' Step: full-round casting limits the caster to 5', taken
    // after its other actions.
    let sides = "(name: \"Ysolde\", side: \"A\", template: \"high_priest\", at: (1, 3)),
                 (name: \"Grusk\", side: \"B\", template: \"orc\", at: (11, 3))";
    let text = field("crucible", (12, 8), 1, NO_SURPRISE, sides);
    let mut b = idle(&text);
    let ysolde = unit(&b, "Ysolde");
    let cast = Order::new("Ysolde", "cast")
        .with("flame_strike")
        .target("Grusk")
        .cell(fray_core::grid::Cell::new(5, 3));
    let why = crucible::validate(b.world_mut(), ysolde, &cast).unwrap_err();
    assert!(why.contains("takes the full round"), "{why}");
}

/// Goblins at (5, 3) and (8, 6); Garth hits Nix for 3 of its 5 hit points.
fn goblin_morale(morale_dice: [u32; 2], rounds: u32) -> Battle {
    let sides = "(name: \"Garth\", side: \"A\", template: \"fighter\", at: (4, 3), weapons: [\"longsword\"]),
                 (name: \"Nix\", side: \"B\", template: \"goblin\", at: (5, 3)),
                 (name: \"Snag\", side: \"B\", template: \"goblin\", at: (8, 6))";
    let mut text = field("crucible", (12, 8), rounds, NO_SURPRISE, sides);
    text = text.replace("(name: \"B\")", "(name: \"B\", morale: true)");
    let orders = vec![(Order::new("Garth", "attack").target("Nix"), false)];
    let dice = [2, 9, 20, 2, morale_dice[0], morale_dice[1]];
    let mut b = common::battle(&text, &dice, |_| Box::new(Plays(orders.clone())));
    common::run(&mut b);
    b
}

#[test]
fn a_monster_failing_morale_falls_back_disengages_or_flees_by_how_badly() {
    let b = goblin_morale([4, 2], 1);
    assert_has(
        &b,
        "Nix checks morale (at half its hit points or less): 6 − 1 morale = 5 against 7",
    );
    assert_has(
        &b,
        "Nix's morale fails by 2: from now on it falls back, fighting",
    );
    let b = goblin_morale([3, 2], 1);
    assert_has(
        &b,
        "Nix's morale fails by 3: from now on it disengages and retreats",
    );
    let b = goblin_morale([1, 1], 1);
    assert_has(&b, "Nix's morale fails by 6: from now on it flees in panic");
    assert_lacks(&b, "Garth checks morale");
}

#[test]
fn a_fleeing_monster_gives_its_back_and_its_striker_may_not_pursue() {
    let b = goblin_morale([1, 1], 2);
    assert_has(
        &b,
        "Nix turns and flees in panic: its opponents get its back.",
    );
    let aoo = common::line(
        &b,
        "Garth takes an attack of opportunity at Nix, who turns its back to flee.",
    );
    let log = b.world().resource::<fray_core::log::BattleLog>();
    let check = log.entries()[aoo + 1].check.clone().unwrap();
    assert_eq!(
        check.modifiers,
        [fray_core::log::Modifier::new(
            "at the back (ruling rear_attack)",
            2
        )]
    );
}

#[test]
fn a_disengaging_monster_acts_after_every_count() {
    let b = goblin_morale([3, 2], 2);
    assert_has(&b, "Order of play, lowest first (ties act together):");
    let t = texts(&b);
    let order = t
        .iter()
        .rev()
        .find(|l| l.starts_with("Order of play"))
        .unwrap();
    assert!(order.ends_with("last: Nix."), "{order}");
    assert_has(&b, "Nix retreats, keeping its front to the enemy.");
}

#[test]
fn player_orders_warn_before_they_provoke() {
    let sides = "(name: \"Bram\", side: \"A\", template: \"fighter\", at: (3, 3), weapons: [\"longsword\"]),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (4, 3))";
    let text = field("crucible", (12, 8), 1, NO_SURPRISE, sides);
    let mut b = idle(&text);
    let bram = unit(&b, "Bram");
    let choices = crucible::choices(b.world_mut(), bram);
    let flee = choices.iter().find(|c| c.order.action == "flee").unwrap();
    assert!(
        flee.label
            .contains("WARNING: draws an attack of opportunity from Grum"),
        "{}",
        flee.label
    );
    let step = choices.iter().find(|c| c.order.action == "step").unwrap();
    assert!(!step.label.contains("WARNING"), "{}", step.label);
}

#[test]
fn the_same_seed_gives_the_same_log() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/scenarios/crucible_4v4.ron"
    ))
    .unwrap();
    let log = || {
        let mut b = common::battle(&text, &[], |_| Box::new(Appraises));
        common::run(&mut b);
        texts(&b)
    };
    let (a, b) = (log(), log());
    assert!(a.len() > 20);
    assert_eq!(a, b);
}

#[test]
fn bad_scenario_input_is_located_not_a_panic() {
    let src = field(
        "crucible",
        (12, 8),
        1,
        "options: {\"surprise\": \"Nobody\"},",
        "(name: \"Bram\", side: \"A\", template: \"fighter\", at: (3, 3)), (name: \"Grum\", side: \"B\", template: \"orc\", at: (4, 3))",
    );
    let scenario =
        fray_core::scenario::LoadedScenario::from_source(Source::inline("t.ron", &src)).unwrap();
    let rules = fray_rules::load("crucible", None).unwrap();
    let err = rules.check_scenario(&scenario).unwrap_err().to_string();
    assert!(
        err.starts_with("t.ron:") && err.contains("surprise \"Nobody\""),
        "{err}"
    );
    let src = src
        .replace("\"surprise\": \"Nobody\"", "\"surprise\": \"none\"")
        .replace("at: (3, 3))", "at: (3, 3), set: {\"on_point\": 1})");
    let scenario =
        fray_core::scenario::LoadedScenario::from_source(Source::inline("t.ron", &src)).unwrap();
    let err = rules.check_scenario(&scenario).unwrap_err().to_string();
    assert!(err.contains("only an elf or halfling"), "{err}");
}

#[test]
fn every_citation_is_mapped_or_a_ruling() {
    let d = data();
    common::assert_citations(
        &[
            include_str!("../src/crucible/mod.rs"),
            include_str!("../src/crucible/start.rs"),
            include_str!("../src/crucible/round.rs"),
            include_str!("../src/crucible/turn.rs"),
            include_str!("../src/crucible/combat.rs"),
            include_str!("../src/crucible/orders.rs"),
            include_str!("../src/crucible/end_round.rs"),
        ],
        "003",
        &d.rulings,
        &d.paragraphs,
        "crucible.ron",
    );
}

#[test]
fn an_archer_walks_up_shoots_and_walks_back_within_its_rate() {
    // 003 §III D: "Movement may be split as desired before and/or after
    // attacking": Aelis (6 squares) walks a square into range of Grum, 11
    // away, shoots twice, and walks back with the 5 squares left.
    let sides = "(name: \"Aelis\", side: \"A\", template: \"elf_scout\", at: (0, 3)),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (11, 3), set: {\"hp\": 40})";
    let both = Order::new("Aelis", "fire")
        .target("Grum")
        .cell(Cell::new(1, 3))
        .then(Cell::new(0, 5));
    let b = battle(NO_SURPRISE, sides, &[2, 9], std::slice::from_ref(&both));
    let up = common::line(&b, "Aelis moves from (0, 3) to (1, 3) (1 cell).");
    let shot = common::line(&b, "Aelis attacks Grum with the shortbow");
    let back = common::line(&b, "Aelis moves from (1, 3) to (0, 5) (2 cells).");
    assert!(up < shot && shot < back, "{up} {shot} {back}");
    assert_eq!(common::count(&b, "Aelis attacks Grum with the shortbow"), 2);
    // The move after has only what the move before left of the rate.
    let text = field("crucible", (12, 8), 1, NO_SURPRISE, sides);
    let mut b = idle(&text);
    let aelis = unit(&b, "Aelis");
    let far = both.clone().then(Cell::new(7, 3));
    let why = crucible::validate(b.world_mut(), aelis, &far).unwrap_err();
    assert_eq!(
        why,
        "(7, 3) is 6 squares on from (1, 3); 5 of the rate are left (003 §III D)"
    );
    // Only a shot or a spell takes a move after it.
    let wait = Order::new("Aelis", "wait").then(Cell::new(0, 4));
    let why = crucible::validate(b.world_mut(), aelis, &wait).unwrap_err();
    assert!(why.starts_with("wait: only a shot or a spell"), "{why}");
    // A person is offered the walk up, the shot and the walk back.
    let choices = crucible::choices(b.world_mut(), aelis);
    assert!(
        choices.iter().any(|c| c.refused.is_none()
            && c.order.cell == Some(Cell::new(1, 3))
            && c.order.then.is_some()
            && c.label
                .starts_with("Move to (1, 3) and fire at Grum, then move back to")),
        "{:?}",
        choices.iter().map(|c| &c.label).collect::<Vec<_>>()
    );
}

#[test]
fn a_caster_walks_into_range_and_is_offered_it() {
    // 003 §III D: a move before casting. Wren's burning hands reach one
    // square; Grum stands three away.
    let sides = "(name: \"Wren\", side: \"A\", template: \"magic_user\", at: (2, 3)),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (5, 3))";
    let text = field("crucible", (12, 8), 1, NO_SURPRISE, sides);
    let mut b = idle(&text);
    let wren = unit(&b, "Wren");
    let choices = crucible::choices(b.world_mut(), wren);
    assert!(
        choices.iter().any(|c| c.refused.is_none()
            && c.order.action == "cast"
            && c.order.cell == Some(Cell::new(4, 3))
            && c.label
                .starts_with("Move to (4, 3) and cast burning_hands at Grum")),
        "{:?}",
        choices.iter().map(|c| &c.label).collect::<Vec<_>>()
    );
}

#[test]
fn a_shot_or_a_readied_missile_needs_its_target_in_sight() {
    // Ruling in_sight (003 §III A, "target in sight"): a wall down column 4
    // stands between Aelis and Grum.
    let combatants = "(name: \"Aelis\", side: \"A\", template: \"elf_scout\", at: (1, 3), set: {\"readied\": 1}),
                      (name: \"Grum\", side: \"B\", template: \"orc\", at: (7, 3)),";
    let text = &walled(
        (12, 8),
        "(4, 0), (4, 1), (4, 2), (4, 3), (4, 4), (4, 5), (4, 6), (4, 7)",
        combatants,
    );
    let mut b = common::battle(text, &[5, 9], |_| Box::new(Plays(Vec::new())));
    common::run(&mut b);
    assert_has(
        &b,
        "Aelis has no target in sight and range for its readied missile: the advantage is wasted.",
    );
    assert_lacks(&b, "fire your readied missile");
    let mut b = idle(text);
    let aelis = unit(&b, "Aelis");
    let fire = Order::new("Aelis", "fire").target("Grum");
    let why = crucible::validate(b.world_mut(), aelis, &fire).unwrap_err();
    assert_eq!(
        why,
        "Grum is not in sight from (1, 3): an obstacle blocks the line (ruling in_sight)"
    );
}

#[test]
fn a_readied_missile_with_no_target_as_the_round_begins_is_wasted() {
    // 003 §Effects of Readied Actions: "failure to USE that advantage
    // immediately means that it is wasted": Grum is beyond the bow's 10.
    let sides = "(name: \"Aelis\", side: \"A\", template: \"elf_scout\", at: (0, 3), set: {\"readied\": 1}),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (11, 3))";
    let b = battle(NO_SURPRISE, sides, &[5, 9], &[]);
    assert_has(
        &b,
        "Aelis has no target in sight and range for its readied missile: the advantage is wasted.",
    );
    let b = idle(&field("crucible", (12, 8), 1, NO_SURPRISE, sides));
    let aelis = unit(&b, "Aelis");
    assert!(b.world().get::<crucible::Readied>(aelis).is_some());
}

#[test]
fn no_run_or_flight_once_it_has_fought_this_round() {
    // 003 §III D: "Faster movement than that sacrifices any combat": Pip's
    // attacks are spent, so a run or a flight is refused; a move is not.
    let sides = "(name: \"Pip\", side: \"A\", template: \"halfling_thief\", at: (3, 3)),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (9, 3))";
    let mut b = idle(&field("crucible", (12, 8), 1, NO_SURPRISE, sides));
    let pip = unit(&b, "Pip");
    let run = Order::new("Pip", "run").cell(Cell::new(0, 0));
    assert!(crucible::validate(b.world_mut(), pip, &run).is_ok());
    b.world_mut()
        .get_mut::<crucible::RoundState>(pip)
        .unwrap()
        .attacked = true;
    for o in [run, Order::new("Pip", "flee")] {
        let why = crucible::validate(b.world_mut(), pip, &o).unwrap_err();
        assert!(why.starts_with("it has fought this round"), "{why}");
    }
    let walk = Order::new("Pip", "move").cell(Cell::new(1, 3));
    assert!(crucible::validate(b.world_mut(), pip, &walk).is_ok());
}

#[test]
fn falling_back_keeps_within_the_movers_own_rate() {
    // 003 §Withdrawal Tactics, "no more than 10'", and no more than its own
    // rate: Pip, slowed to one square, falls back one, not two.
    let sides = "(name: \"Pip\", side: \"A\", template: \"halfling_thief\", at: (3, 3)),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (4, 3))";
    let mut b = idle(&field("crucible", (12, 8), 1, NO_SURPRISE, sides));
    let pip = unit(&b, "Pip");
    let two = Order::new("Pip", "fall_back").cell(Cell::new(1, 3));
    assert!(crucible::validate(b.world_mut(), pip, &two).is_ok());
    b.world_mut().get_mut::<crucible::Stats>(pip).unwrap().speed = 1;
    let why = crucible::validate(b.world_mut(), pip, &two).unwrap_err();
    assert_eq!(why, "(1, 3) is 2 squares away; the rate is 1");
    let one = Order::new("Pip", "fall_back").cell(Cell::new(2, 3));
    assert!(crucible::validate(b.world_mut(), pip, &one).is_ok());
    // Fighting after it would put the 5' before its blow (003 §The 5' Step).
    let fighting = one.target("Grum");
    let why = crucible::validate(b.world_mut(), pip, &fighting).unwrap_err();
    assert!(why.contains("movement comes after"), "{why}");
}

#[test]
fn one_felled_at_its_back_as_it_flees_is_let_go_by_no_one_else() {
    // 003 §Withdrawal Tactics: Bran's blow at Aldo's back fells him; Cato,
    // asked at the same time, has no one left to let go.
    let sides =
        "(name: \"Aldo\", side: \"A\", template: \"fighter\", at: (5, 4), set: {\"hp\": 1}),
                 (name: \"Bran\", side: \"B\", template: \"fighter\", at: (6, 4)),
                 (name: \"Cato\", side: \"B\", template: \"fighter\", at: (4, 4))";
    let text = field("crucible", (12, 9), 1, NO_SURPRISE, sides);
    let orders = vec![
        (Order::new("Aldo", "flee"), false),
        (Order::new("Bran", "strike_back").target("Aldo"), false),
        (Order::new("Cato", "let_go"), false),
    ];
    let mut b = common::battle(&text, &[2, 9, 20, 5], |_| Box::new(Plays(orders.clone())));
    common::run(&mut b);
    assert_has(&b, "Aldo falls");
    assert_has(&b, "Aldo is down: Cato has no one to follow or strike at.");
    assert_lacks(&b, "Cato lets Aldo go");
}

#[test]
fn an_attack_whose_blows_a_first_strike_spent_is_lost_and_said() {
    // Ruling length_strike: all three act at count 5. Osric comes into
    // Pike's spear's reach, and the spear strikes first, spending Pike's
    // attacks of the round; his order to attack Tam is lost, not walked.
    let sides = "(name: \"Osric\", side: \"A\", template: \"fighter\", at: (2, 3), weapons: [\"longsword\"]),
                 (name: \"Tam\", side: \"A\", template: \"fighter\", at: (9, 6), weapons: [\"longsword\"]),
                 (name: \"Pike\", side: \"B\", template: \"spearman\", at: (5, 3))";
    let text = field("crucible", (12, 8), 1, NO_SURPRISE, sides);
    let orders = vec![
        (Order::new("Osric", "attack").target("Pike"), false),
        (Order::new("Pike", "attack").target("Tam"), false),
    ];
    let mut b = common::battle(&text, &[6, 5, 15, 4, 10], |_| {
        Box::new(Plays(orders.clone()))
    });
    common::run(&mut b);
    assert_has(&b, "strikes first, regardless of initiative");
    assert_has(
        &b,
        "Pike has spent its attacks of the round already: its attack on Tam is lost, and it does not close.",
    );
    assert_lacks(&b, "Pike moves");
}

#[test]
fn readied_shots_before_initiative_land_together() {
    // Ruling readied_missile: Ely and Kob both have a missile ready. Ely's
    // shot (20, 4 damage) would fell Kob, but the shots go at one instant:
    // Kob's (20, 3 damage) is loosed all the same, and both fall.
    let sides = "(name: \"Ely\", side: \"A\", template: \"halfling_thief\", at: (2, 3), weapons: [\"sling\"], set: {\"readied\": 1, \"hp\": 3}),
                 (name: \"Kob\", side: \"B\", template: \"kobold_slinger\", at: (8, 3), set: {\"readied\": 1, \"hp\": 3})";
    let text = field("crucible", (14, 8), 1, NO_SURPRISE, sides);
    let orders = vec![
        (Order::new("Kob", "fire").target("Ely"), false),
        (Order::new("Ely", "fire").target("Kob"), false),
    ];
    let mut b = common::battle(&text, &[20, 4, 20, 3], |_| Box::new(Plays(orders.clone())));
    common::run(&mut b);
    let log = common::texts(&b);
    let at = |needle: &str| {
        log.iter()
            .position(|t| t.contains(needle))
            .unwrap_or_else(|| panic!("no {needle:?}:\n{}", log.join("\n")))
    };
    // Both shots are loosed before either lands.
    assert!(at("Kob attacks Ely with the sling: 20") < at("Kob takes 4 damage"));
    assert!(at("Kob takes 4 damage") < at("Ely takes 3 damage"));
    assert_has(&b, "Ely falls");
    assert_has(&b, "Kob falls");
}

#[test]
fn a_flight_runs_to_the_nearest_edge_farther_from_every_enemy() {
    // Ruling flight_path: Skarg, 7 squares from Ely, flees. The top edge
    // above him is nearer Ely; (10, 0), 8 squares from her, is the
    // nearest edge square farther from her than he is.
    let sides = "(name: \"Ely\", side: \"A\", template: \"elf_scout\", at: (2, 3)),
                 (name: \"Skarg\", side: \"B\", template: \"hobgoblin\", at: (9, 3))";
    let text = field("crucible", (14, 8), 1, NO_SURPRISE, sides);
    let orders = vec![(Order::new("Skarg", "flee"), false)];
    let mut b = common::battle(&text, &[9, 2], |_| Box::new(Plays(orders.clone())));
    common::run(&mut b);
    assert_has(&b, "Skarg moves from (9, 3) to (10, 0) (3 cells).");
    assert_has(&b, "Skarg leaves the battlefield");
}

#[test]
fn a_person_is_offered_falling_back_running_and_striking_then_moving_back() {
    // 003 §Withdrawal Tactics and §III D, and a 5' step at each foe beside
    // its square.
    let sides = "(name: \"Osric\", side: \"A\", template: \"fighter\", at: (3, 3)),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (4, 3)),
                 (name: \"Snag\", side: \"B\", template: \"orc\", at: (4, 4))";
    let mut b = idle(&field("crucible", (12, 8), 1, NO_SURPRISE, sides));
    let osric = unit(&b, "Osric");
    let choices = crucible::choices(b.world_mut(), osric);
    let labels: Vec<&str> = choices
        .iter()
        .filter(|c| c.refused.is_none())
        .map(|c| c.label.as_str())
        .collect();
    for want in [
        "Fall back to (1, 1), fighting Grum (front kept)",
        "Fall back to (1, 1), front kept",
        "5' step to (3, 4) and attack Grum",
        "5' step to (3, 4) and attack Snag",
    ] {
        assert!(
            labels.iter().any(|l| l.starts_with(want)),
            "{want}: {labels:?}"
        );
    }
    assert!(
        labels
            .iter()
            .any(|l| l.starts_with("Attack Grum, then move back to")),
        "{labels:?}"
    );
    // Ruling running_rate: the corner is 3 squares off, within Osric's
    // rate of 4: a run is offered there, or to any other cell it reaches
    // (003 §III D: "You can move further/faster"); in the open, farther.
    assert!(
        labels.iter().any(|l| l.starts_with(
            "Run to (0, 0), or to another cell within twice the rate, clicked or typed (no combat or casting this round)"
        )),
        "{labels:?}"
    );
    let open = sides
        .replace("(3, 3)", "(10, 10)")
        .replace("(4, 3)", "(11, 10)")
        .replace("(4, 4)", "(11, 11)");
    let mut b = idle(&field("crucible", (21, 21), 1, NO_SURPRISE, &open));
    let osric = unit(&b, "Osric");
    let run: Vec<String> = crucible::choices(b.world_mut(), osric)
        .into_iter()
        .filter(|c| c.refused.is_none() && c.order.action == "run")
        .map(|c| c.label)
        .collect();
    assert_eq!(
        run,
        [
            "Run to (2, 2), or to another cell within twice the rate, clicked or typed (no combat or casting this round) — WARNING: draws an attack of opportunity from Grum and Snag"
        ]
    );
}

#[test]
fn a_move_beyond_the_rate_says_a_run_would_reach_and_a_run_does() {
    // 003 §III D, ruling running_rate: Osric (rate 4) on an open field.
    // A move 8 squares off is refused, saying a run reaches it; the run
    // offered, aimed at that cell, goes there.
    let sides = "(name: \"Osric\", side: \"A\", template: \"fighter\", at: (2, 4), weapons: [\"longsword\"]),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (28, 4))";
    let text = field("crucible", (30, 8), 1, NO_SURPRISE, sides);
    let mut b = idle(&text);
    let osric = unit(&b, "Osric");
    let why = crucible::validate(
        b.world(),
        osric,
        &Order::new("Osric", "move").cell(Cell::new(10, 4)),
    );
    assert_eq!(
        why.unwrap_err(),
        "(10, 4) is 8 squares away; the rate is 4: a run reaches it, giving up the round's combat (003 §III D; choose Run, with that cell)"
    );
    let run = crucible::choices(b.world_mut(), osric)
        .into_iter()
        .find(|c| c.order.action == "run")
        .expect("a run is offered");
    let aimed = run.order.cell(Cell::new(10, 4));
    assert!(crucible::validate(b.world(), osric, &aimed).is_ok());
    // Having fought this round, Osric may no longer run: the refused move
    // does not say a run would reach.
    b.world_mut()
        .get_mut::<crucible::RoundState>(osric)
        .unwrap()
        .attacked = true;
    let why = crucible::validate(
        b.world(),
        osric,
        &Order::new("Osric", "move").cell(Cell::new(10, 4)),
    );
    assert_eq!(why.unwrap_err(), "(10, 4) is 8 squares away; the rate is 4");
}

#[test]
fn one_who_struck_at_a_fleeing_back_after_its_turn_does_not_pursue_on_its_next() {
    // Ruling no_pursuit: Grum acts first (initiative 2) and waits; Osric
    // flees at 9 and Grum strikes at his back. On Grum's turn in round 2 a
    // move after him is refused.
    let sides =
        "(name: \"Osric\", side: \"A\", template: \"fighter\", at: (3, 3), set: {\"hp\": 60}),
                 (name: \"Wren\", side: \"A\", template: \"magic_user\", at: (11, 7)),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (4, 3))";
    let orders = vec![
        (Order::new("Grum", "wait"), false),
        (Order::new("Osric", "flee"), false),
        (Order::new("Grum", "move").cell(Cell::new(3, 3)), false),
    ];
    let text = field("crucible", (12, 8), 2, NO_SURPRISE, sides);
    let mut b = common::battle(&text, &[9, 2, 20, 3, 9, 2], |_| {
        Box::new(Plays(orders.clone()))
    });
    common::run(&mut b);
    assert_has(&b, "Osric turns and flees in panic");
    let refused = b.last_refusal.as_ref().map(|r| r.reason.clone());
    assert!(
        refused
            .as_deref()
            .is_some_and(|r| r.starts_with("having struck at a fleeing back")),
        "{:?}",
        b.last_refusal
    );
}

#[test]
fn one_who_lets_a_fleeing_back_go_may_pursue() {
    // 003 §Withdrawal Tactics: "Opponents may take an AoO at your back, but
    // then are not permitted to pursue on their turn." Grum, asked, lets
    // Osric go, and on his turn in round 2 moves after him.
    let sides =
        "(name: \"Osric\", side: \"A\", template: \"fighter\", at: (3, 3), set: {\"hp\": 60}),
                 (name: \"Wren\", side: \"A\", template: \"magic_user\", at: (11, 7)),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (4, 3))";
    let orders = vec![
        (Order::new("Grum", "wait"), false),
        (Order::new("Osric", "flee"), false),
        (Order::new("Grum", "let_go"), false),
        (Order::new("Grum", "move").cell(Cell::new(3, 3)), false),
    ];
    let text = field("crucible", (12, 8), 2, NO_SURPRISE, sides);
    let mut b = common::battle(&text, &[9, 2, 9, 2], |_| Box::new(Plays(orders.clone())));
    common::run(&mut b);
    let flees = line(&b, "Osric turns and flees in panic");
    let lets = line(
        &b,
        "Grum lets Osric go without a blow at its back, and may pursue it.",
    );
    assert!(flees < lets);
    assert_lacks(&b, "Grum takes an attack of opportunity");
    assert_has(&b, "Grum moves from (4, 3) to (3, 3)");
    assert!(b.last_refusal.is_none(), "{:?}", b.last_refusal);
}

#[test]
fn a_blow_at_a_back_already_fallen_is_not_struck_and_the_log_says_so() {
    // 003 §Withdrawal Tactics: Grum and Bork are both asked about Osric's
    // back; Grum's blow fells him, and Bork's chance has passed.
    let sides =
        "(name: \"Osric\", side: \"A\", template: \"fighter\", at: (3, 3), set: {\"hp\": 1}),
                 (name: \"Wren\", side: \"A\", template: \"magic_user\", at: (11, 7)),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (4, 3)),
                 (name: \"Bork\", side: \"B\", template: \"orc\", at: (3, 4))";
    let orders = vec![
        (Order::new("Grum", "wait"), false),
        (Order::new("Bork", "wait"), false),
        (Order::new("Osric", "flee"), false),
    ];
    let text = field("crucible", (12, 8), 1, NO_SURPRISE, sides);
    let mut b = common::battle(&text, &[9, 2, 20, 8, 20, 8], |_| {
        Box::new(Plays(orders.clone()))
    });
    common::run(&mut b);
    let falls = line(&b, "Osric falls");
    let passed = line(&b, "Osric is down: Bork has no one to follow or strike at.");
    assert!(falls < passed, "{}", texts(&b).join("\n"));
}

#[test]
fn a_target_gone_behind_cover_before_the_shot_is_not_shot() {
    // Ruling in_sight: Osric and Grum act at the same count; Grum's move
    // behind the wall comes first, and Osric's shot, in sight when given,
    // is not taken.
    let combatants = "(name: \"Grum\", side: \"B\", template: \"orc\", at: (10, 5)),
                      (name: \"Osric\", side: \"A\", template: \"fighter\", at: (2, 5)),";
    let text = &walled((16, 10), "(8, 1), (8, 2), (8, 3), (8, 4)", combatants);
    let orders = vec![
        (Order::new("Grum", "move").cell(Cell::new(10, 2)), false),
        (Order::new("Osric", "fire").target("Grum"), false),
    ];
    let mut b = common::battle(text, &[11, 12], |_| Box::new(Plays(orders.clone())));
    common::run(&mut b);
    assert_has(&b, "Grum moves from (10, 5) to (10, 2)");
    assert_has(
        &b,
        "Grum is out of Osric's sight behind an obstacle: no shot.",
    );
    assert_lacks(&b, "Osric attacks Grum");
}

#[test]
fn a_move_around_a_wall_is_logged_in_the_squares_it_took() {
    // 003 §III D: Walker goes round a wall from (0, 1) to (2, 3): four
    // squares, though the straight line is two.
    let combatants = "(name: \"Walker\", side: \"A\", template: \"fighter\", at: (0, 1)),
                      (name: \"Far\", side: \"B\", template: \"goblin\", at: (9, 7)),";
    let text = &walled((10, 8), "(1, 0), (1, 1), (1, 2), (1, 3)", combatants);
    let orders = vec![(Order::new("Walker", "move").cell(Cell::new(2, 3)), false)];
    let mut b = common::battle(text, &[12, 1], |_| Box::new(Plays(orders.clone())));
    common::run(&mut b);
    assert_has(&b, "Walker moves from (0, 1) to (2, 3) (4 cells).");
}

#[test]
fn walking_up_to_shoot_ends_where_the_target_is_in_sight() {
    // Ruling in_sight: a wall stands at (5, 2)-(5, 4) between Aelis and
    // Grum, 11 squares off. The first square within the bow's 10 along the
    // way, (1, 3), sees only the wall; she is offered the first one in
    // sight instead.
    let combatants = "(name: \"Aelis\", side: \"A\", template: \"elf_scout\", at: (0, 3)),
                      (name: \"Grum\", side: \"B\", template: \"orc\", at: (11, 3)),";
    let text = &walled((12, 8), "(5, 2), (5, 3), (5, 4)", combatants);
    let mut b = idle(text);
    let aelis = unit(&b, "Aelis");
    let choices = crucible::choices(b.world_mut(), aelis);
    let shot = choices
        .iter()
        .find(|c| c.order.action == "fire" && c.order.then.is_none())
        .unwrap();
    assert!(shot.refused.is_none(), "{:?}", shot.refused);
    let from = shot.order.cell.unwrap();
    let grid = b.world().resource::<fray_core::grid::Grid>();
    assert!(grid.in_sight(from, Cell::new(11, 3)), "{from}");
}

#[test]
fn the_warning_for_flight_or_retreat_names_those_it_runs_past() {
    // 003 §III F: Osric's way off the field passes within Brute's reach;
    // fleeing, Ogre strikes at his back and Brute as he runs past; the
    // retreat after every count draws Brute's.
    let sides = "(name: \"Osric\", side: \"A\", template: \"fighter\", at: (6, 4), weapons: [\"longsword\"]),
                 (name: \"Ogre\", side: \"B\", template: \"ogre\", at: (7, 4)),
                 (name: \"Brute\", side: \"B\", template: \"ogre\", at: (4, 2))";
    let mut b = idle(&field("crucible", (14, 10), 1, NO_SURPRISE, sides));
    let osric = unit(&b, "Osric");
    let warn = |b: &mut Battle, action: &str| {
        let plan = crucible::validate(b.world_mut(), osric, &Order::new("Osric", action)).unwrap();
        crucible::warning(b.world_mut(), osric, &plan)
    };
    assert_eq!(
        warn(&mut b, "flee"),
        ["draws an attack of opportunity from Ogre and Brute"]
    );
    assert_eq!(
        warn(&mut b, "disengage"),
        ["draws an attack of opportunity from Brute"]
    );
}

#[test]
fn the_warning_for_a_spell_counts_the_move_after_it() {
    // 003 §III F: Wren, two squares from Grum, casts at him, then walks
    // past him to (5, 4): two squares within his reach beyond the first
    // 5', an attack of opportunity, as the warning says; the spell alone
    // draws none.
    let sides = "(name: \"Wren\", side: \"A\", template: \"magic_user\", at: (2, 3)),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (4, 3))";
    let mut b = idle(&field("crucible", (12, 8), 1, NO_SURPRISE, sides));
    let wren = unit(&b, "Wren");
    let cast = Order::new("Wren", "cast")
        .with("magic_missile")
        .target("Grum");
    let plan = crucible::validate(b.world_mut(), wren, &cast).unwrap();
    assert!(crucible::warning(b.world_mut(), wren, &plan).is_empty());
    let past = cast.then(Cell::new(5, 4));
    let plan = crucible::validate(b.world_mut(), wren, &past).unwrap();
    let warn = crucible::warning(b.world_mut(), wren, &plan);
    // Walking into the reach of Grum's longer weapon, it strikes first.
    assert_eq!(
        warn,
        [
            "draws an attack of opportunity from Grum",
            "Grum's longer weapon strikes first (003 §II E)"
        ]
    );
}

#[test]
fn a_readied_missile_fires_before_the_surprise_round() {
    // Ruling surprise_readied (003 §I D, §III A): the unsurprised act as in
    // a normal round, so Elwen's readied bow fires before the surprise
    // round's turns, not a round late.
    let sides = "(name: \"Elwen\", side: \"A\", template: \"elf_scout\", at: (2, 3), set: {\"readied\": 1}),
                 (name: \"Gash\", side: \"B\", template: \"orc\", at: (9, 3))";
    let b = battle(
        "options: {\"surprise\": \"B\"},",
        sides,
        &[19, 4, 11],
        &[Order::new("Elwen", "fire").target("Gash")],
    );
    assert_eq!(
        time_of(&b, "Elwen attacks Gash with the shortbow: 19"),
        "round 1, before the surprise round"
    );
    assert_has(&b, "Gash takes 4 damage");
}

#[test]
fn a_follower_gains_no_first_strike_and_the_one_falling_back_still_parries() {
    // 003 §Withdrawal Tactics: "If they follow nobody gains additional
    // attacks": Grub follows Pike into his spear's reach without being
    // struck first (ruling follow), and Pike, with no target, parries.
    let sides = "(name: \"Pike\", side: \"A\", template: \"spearman\", at: (4, 2)),
                 (name: \"Grub\", side: \"B\", template: \"goblin\", at: (5, 2))";
    let b = battle(
        NO_SURPRISE,
        sides,
        &[2, 9],
        &[Order::new("Pike", "fall_back").cell(Cell::new(2, 2))],
    );
    assert_has(&b, "Grub follows Pike");
    assert_lacks(&b, "strikes first");
    assert_has(&b, "Pike parries instead of attacking");
}

#[test]
fn the_opponent_chooses_whether_to_follow_before_the_fall_back_fights_on() {
    // 003 §Withdrawal Tactics: "Opponents are given the immediate choice
    // to follow or not." Grub is asked when Pike has stepped back and
    // stays; Pike parries only after Grub has chosen.
    let sides = "(name: \"Pike\", side: \"A\", template: \"spearman\", at: (4, 2)),
                 (name: \"Grub\", side: \"B\", template: \"goblin\", at: (5, 2))";
    let b = battle(
        NO_SURPRISE,
        sides,
        &[2, 9],
        &[
            Order::new("Pike", "fall_back").cell(Cell::new(2, 2)),
            Order::new("Grub", "stay"),
        ],
    );
    let stays = line(&b, "Grub stays and lets Pike open the space");
    assert!(stays > line(&b, "Pike moves from (4, 2) to (2, 2)"));
    let parries = line(&b, "Pike parries instead of attacking");
    assert!(stays < parries);
    assert_lacks(&b, "Grub follows Pike");
    // Neither is drawn as what it is not: staying is no wait for a later
    // moment, and Pike's parry, his own choice, interrupts nobody.
    let entries = b.world().resource::<fray_core::log::BattleLog>().entries();
    assert!(!entries[stays].event.waits());
    assert!(!entries[parries].event.cuts_in());
    // Asked again, Grub may follow, or stay; a cell of his own is refused.
    let b = battle(
        NO_SURPRISE,
        sides,
        &[2, 9],
        &[
            Order::new("Pike", "fall_back").cell(Cell::new(2, 2)),
            Order::new("Grub", "follow").cell(Cell::new(1, 1)),
            Order::new("Grub", "follow").target("Pike"),
        ],
    );
    assert_has(&b, "not to a cell of its choosing");
    assert_has(&b, "Grub follows Pike");
}

#[test]
fn one_with_another_foe_in_reach_may_follow_though_the_ai_stays() {
    // Ruling follow: Hob has Ada in reach as well as Pike. The basic AI
    // stays to fight Ada; a person may follow Pike all the same.
    let sides = "(name: \"Pike\", side: \"A\", template: \"spearman\", at: (4, 2)),
                 (name: \"Ada\", side: \"A\", template: \"spearman\", at: (5, 3)),
                 (name: \"Hob\", side: \"B\", template: \"hobgoblin\", at: (5, 2))";
    let fall_back = Order::new("Pike", "fall_back").cell(Cell::new(2, 2));
    let b = battle(
        NO_SURPRISE,
        sides,
        &[2, 9],
        std::slice::from_ref(&fall_back),
    );
    assert_has(&b, "Hob stays and lets Pike open the space");
    let b = battle(
        NO_SURPRISE,
        sides,
        &[2, 9],
        &[fall_back, Order::new("Hob", "follow").target("Pike")],
    );
    assert_has(&b, "Hob follows Pike");
}

#[test]
fn one_not_followed_is_asked_whom_else_to_fight() {
    // 003 §Withdrawal Tactics: "If your opponent chooses NOT to follow you
    // ... then you can rest, redirect your attacks". Osric falls back from
    // the ogre and Hob, meaning to fight the ogre; it stays, Hob follows,
    // and Osric, asked, attacks Hob.
    let sides = "(name: \"Osric\", side: \"A\", template: \"fighter\", at: (6, 3), weapons: [\"longsword\"]),
                 (name: \"Ogre\", side: \"B\", template: \"ogre\", at: (7, 3)),
                 (name: \"Hob\", side: \"B\", template: \"hobgoblin\", at: (7, 4))";
    let b = battle(
        NO_SURPRISE,
        sides,
        &[2, 9, 15, 4],
        &[
            Order::new("Osric", "fall_back")
                .cell(Cell::new(4, 3))
                .target("Ogre"),
            Order::new("Ogre", "stay"),
            Order::new("Osric", "attack").target("Hob"),
        ],
    );
    let stays = line(&b, "Ogre stays and lets Osric open the space");
    let follows = line(&b, "Hob follows Osric");
    let strikes = line(&b, "Osric attacks Hob with the longsword");
    assert!(
        stays < strikes && follows < strikes,
        "{}",
        texts(&b).join("\n")
    );
    assert_lacks(&b, "Osric parries");
}

#[test]
fn one_who_has_moved_its_rate_does_not_follow() {
    // Ruling follow ("assuming his movement allows"): Grub walked his whole
    // rate of 5 to strike; Osric falls back and Grub stays.
    let sides = "(name: \"Osric\", side: \"A\", template: \"fighter\", at: (6, 2), weapons: [\"longsword\"]),
                 (name: \"Grub\", side: \"B\", template: \"goblin\", at: (0, 2), weapons: [\"spear\"], set: {\"hp\": 50})";
    let b = battle(
        NO_SURPRISE,
        sides,
        &[9, 2, 19, 4],
        &[
            Order::new("Grub", "attack").target("Osric"),
            Order::new("Osric", "fall_back").cell(Cell::new(8, 2)),
        ],
    );
    assert_has(&b, "Grub moves from (0, 2) to (5, 2) (5 cells)");
    assert_has(&b, "Osric moves from (6, 2) to (8, 2)");
    assert_lacks(&b, "Grub follows Osric");
}

#[test]
fn no_5_foot_step_after_following() {
    // 003 §The 5' Step: "this is your only movement for that round". Grub
    // has followed Osric: a step on his turn is refused.
    let sides = "(name: \"Osric\", side: \"A\", template: \"fighter\", at: (4, 2), weapons: [\"longsword\"]),
                 (name: \"Grub\", side: \"B\", template: \"goblin\", at: (5, 2), weapons: [\"spear\"])";
    let b = battle(
        NO_SURPRISE,
        sides,
        &[2, 9],
        &[
            Order::new("Osric", "fall_back").cell(Cell::new(2, 2)),
            Order::new("Grub", "step").cell(Cell::new(4, 2)),
        ],
    );
    assert_has(&b, "Grub follows Osric");
    assert_has(
        &b,
        "Grub's order \"step\" is refused: it has moved this round already: the 5' step must be its only movement",
    );
}

#[test]
fn a_step_after_walking_most_of_the_rate_is_refused_for_the_walk() {
    // 003 §The 5' Step: Osric walked 3 of his 4 squares to cast, and his
    // spell was spoiled; asked for another order, his step is refused
    // because he has moved, which is also what leaves him 1.
    let sides = "(name: \"Osric\", side: \"A\", template: \"fighter\", at: (4, 2)),
                 (name: \"Grub\", side: \"B\", template: \"goblin\", at: (9, 2))";
    let mut b = idle(&field("crucible", (12, 8), 1, NO_SURPRISE, sides));
    let osric = unit(&b, "Osric");
    b.world_mut()
        .get_mut::<crucible::RoundState>(osric)
        .unwrap()
        .walked = 3;
    b.world_mut()
        .resource_mut::<crucible::Flow>()
        .instead
        .push(osric);
    let step = Order::new("Osric", "step").cell(Cell::new(5, 2));
    assert_eq!(
        crucible::validate(b.world_mut(), osric, &step).unwrap_err(),
        "it has moved this round already: the 5' step must be its only movement (003 §The 5' Step)"
    );
}

#[test]
fn a_step_into_a_longer_weapons_reach_is_warned_of() {
    // Ruling length_strike: the 5' step draws no attack of opportunity,
    // but Pike's spear still strikes first at one stepping into its reach,
    // and a person is told so.
    let sides = "(name: \"Bram\", side: \"A\", template: \"fighter\", at: (2, 3), weapons: [\"longsword\", \"shortbow\"]),
                 (name: \"Pike\", side: \"B\", template: \"spearman\", at: (4, 3))";
    let mut b = idle(&field("crucible", (12, 8), 1, NO_SURPRISE, sides));
    let bram = unit(&b, "Bram");
    let step = Order::new("Bram", "step")
        .cell(Cell::new(3, 3))
        .target("Pike");
    let plan = crucible::validate(b.world_mut(), bram, &step).unwrap();
    let warn = crucible::warning(b.world_mut(), bram, &plan);
    assert_eq!(warn, ["Pike's longer weapon strikes first (003 §II E)"]);
    // So is a move, and a walk up to shoot, from two squares back
    // (003 §Attacks Of Opportunity: "the DM should announce").
    b.world_mut().entity_mut(bram).insert(Cell::new(1, 3));
    let orders = [
        Order::new("Bram", "move").cell(Cell::new(3, 3)),
        Order::new("Bram", "fire")
            .target("Pike")
            .cell(Cell::new(3, 3)),
    ];
    for order in orders {
        let plan = crucible::validate(b.world_mut(), bram, &order).unwrap();
        let warn = crucible::warning(b.world_mut(), bram, &plan);
        assert!(
            warn.contains(&"Pike's longer weapon strikes first (003 §II E)".to_string()),
            "{order:?}: {warn:?}"
        );
    }
}

#[test]
fn a_spell_is_offered_and_cast_only_at_the_side_it_is_for() {
    // Ruling spell_effect: a harmful spell at an enemy, a healing one at
    // the caster or an ally.
    let sides = "(name: \"Wren\", side: \"A\", template: \"magic_user\", at: (3, 3)),
                 (name: \"Tam\", side: \"A\", template: \"cleric\", at: (3, 4)),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (5, 3))";
    let mut b = idle(&field("crucible", (12, 8), 1, NO_SURPRISE, sides));
    let offered = |b: &mut Battle, who: &str| -> Vec<String> {
        let e = unit(b, who);
        let mut at: Vec<String> = crucible::choices(b.world_mut(), e)
            .into_iter()
            .filter(|c| c.order.action == "cast")
            .map(|c| format!("{} {}", c.order.with.unwrap(), c.order.target.unwrap()))
            .collect();
        at.sort();
        at.dedup();
        at
    };
    assert_eq!(
        offered(&mut b, "Wren"),
        ["burning_hands Grum", "magic_missile Grum"]
    );
    assert_eq!(
        offered(&mut b, "Tam"),
        ["cure_light_wounds Tam", "cure_light_wounds Wren"]
    );
    let tam = unit(&b, "Tam");
    let at_grum = Order::new("Tam", "cast")
        .with("cure_light_wounds")
        .target("Grum");
    assert_eq!(
        crucible::validate(b.world_mut(), tam, &at_grum).unwrap_err(),
        "cure_light_wounds heals: it is cast at oneself or an ally, not at Grum (ruling spell_effect)"
    );
    let wren = unit(&b, "Wren");
    let at_tam = Order::new("Wren", "cast")
        .with("magic_missile")
        .target("Tam");
    assert_eq!(
        crucible::validate(b.world_mut(), wren, &at_tam).unwrap_err(),
        "magic_missile harms: it is cast at an enemy, not at Tam (ruling spell_effect)"
    );
}

#[test]
fn a_monster_lets_a_disengaging_player_character_go() {
    // Ruling disengage: the ogre, played by the AI, does not press Osric,
    // who disengages beside it.
    let sides = "(name: \"Osric\", side: \"A\", template: \"fighter\", at: (6, 3), weapons: [\"longsword\"]),
                 (name: \"Gash\", side: \"B\", template: \"ogre\", at: (7, 3))";
    let text = format!(
        "(name: \"t\", ruleset: \"crucible\", round_cap: 1,
          grid: (kind: Square, width: 14, height: 7),
          sides: [(name: \"A\"), (name: \"B\", morale: true)],
          {NO_SURPRISE}
          combatants: [{sides}])"
    );
    let disengage = vec![(Order::new("Osric", "disengage"), false)];
    let mut b = common::battle(&text, &[2, 9], |side| -> Box<dyn Controller> {
        if side == 0 {
            Box::new(Plays(disengage.clone()))
        } else {
            Box::new(Appraises)
        }
    });
    common::run(&mut b);
    assert_has(&b, "Osric disengages");
    assert_lacks(&b, "Gash attacks Osric");
    assert_has(&b, "Osric retreats");
    // Nor does a monster whose reach the retreat passes through take an
    // attack of opportunity at him: the log says it lets him go.
    let brute = sides.replace("(6, 3)", "(6, 4)").replace(
        "(7, 3))",
        "(7, 4)),\n (name: \"Brute\", side: \"B\", template: \"ogre\", at: (4, 2))",
    );
    let text = text
        .replace(sides, &brute)
        .replace("height: 7", "height: 10");
    let mut b = common::battle(&text, &[2, 9], |side| -> Box<dyn Controller> {
        if side == 0 {
            Box::new(Plays(disengage.clone()))
        } else {
            Box::new(Appraises)
        }
    });
    common::run(&mut b);
    assert_has(
        &b,
        "Brute lets Osric disengage without pressing it: no blow as it goes (003 §Withdrawal Tactics).",
    );
    assert_lacks(&b, "attack of opportunity at Osric");
    let osric = unit(&b, "Osric");
    let plan = crucible::validate(b.world_mut(), osric, &Order::new("Osric", "disengage"));
    assert_eq!(
        crucible::warning(b.world_mut(), osric, &plan.unwrap()),
        Vec::<String>::new()
    );
}

#[test]
fn one_who_let_a_runner_go_takes_no_blow_at_it_on_the_way() {
    // Ruling running_rate and 003 §Withdrawal Tactics: Gob, in a niche
    // beside the corridor, is asked for his blow at Ada's back as she runs
    // east, and lets her go; her run, still within his reach for a step,
    // draws nothing more from him.
    let text = r#"(
        name: "t", ruleset: "crucible", round_cap: 1,
        grid: (kind: Square, width: 20, height: 9, obstacles: [(3,3),(4,3),(5,3),(6,3),(7,3),(8,3),(10,3),(11,3),(12,3),(13,3),(14,3),(15,3),(16,3),(17,3),(3,5),(4,5),(5,5),(6,5),(7,5),(8,5),(9,5),(10,5),(11,5),(12,5),(13,5),(14,5),(15,5),(16,5),(17,5)]),
        options: {"surprise": "none"},
        sides: [(name: "A"), (name: "B")],
        combatants: [
            (name: "Ada", side: "A", template: "fighter", at: (8, 4)),
            (name: "Gob", side: "B", template: "goblin", at: (9, 3)),
        ])"#;
    let orders = vec![
        (
            Order::new("Ada", "run").cell(fray_core::grid::Cell::new(12, 4)),
            false,
        ),
        (Order::new("Gob", "let_go").target("Ada"), false),
    ];
    let mut b = common::battle(text, &[2, 9], |_| Box::new(Plays(orders.clone())));
    common::run(&mut b);
    assert_has(&b, "Gob lets Ada go without a blow at its back");
    assert_has(&b, "Ada moves from (8, 4) to (12, 4)");
    assert_lacks(&b, "Gob takes an attack of opportunity");
}

#[test]
fn a_follow_answered_after_another_took_the_way_is_said_not_refused() {
    // Ruling follow: Aldo falls back into a corridor, where one cell beside
    // him is left to follow into. Bran and Cato, a person's, are asked
    // together; Bran's answer comes first and takes the cell. Cato's
    // follow, a fair answer when asked, is not refused: he cannot follow,
    // and the log says so.
    let walls: Vec<String> = (0..=5)
        .flat_map(|x| [format!("({x}, 3)"), format!("({x}, 5)")])
        .collect();
    let text = format!(
        r#"(name: "t", ruleset: "crucible", round_cap: 1,
          grid: (kind: Square, width: 12, height: 9, obstacles: [{}]),
          options: {{"surprise": "none"}},
          sides: [(name: "A"), (name: "B", seat: Human)],
          combatants: [
            (name: "Aldo", side: "A", template: "fighter", at: (6, 4), weapons: ["longsword"]),
            (name: "Bran", side: "B", template: "fighter", at: (7, 4), weapons: ["longsword"]),
            (name: "Cato", side: "B", template: "fighter", at: (7, 3), weapons: ["longsword"]),
          ])"#,
        walls.join(", ")
    );
    let fall_back = vec![(
        Order::new("Aldo", "fall_back").cell(fray_core::grid::Cell::new(4, 4)),
        false,
    )];
    let mut b = common::battle(&text, &[2, 9], |side| -> Box<dyn Controller> {
        if side == 0 {
            Box::new(Plays(fall_back.clone()))
        } else {
            Box::new(fray_core::decision::HumanSeat)
        }
    });
    for _ in 0..20 {
        let fray_core::battle::Progress::AwaitingHuman(ids) = b.run() else {
            break;
        };
        // Bran's question first, one answer a step.
        let (id, who, rule) = {
            let decisions = b.world().resource::<fray_core::decision::Decisions>();
            let mut asked: Vec<_> = ids.iter().filter_map(|&i| decisions.get(i)).collect();
            asked.sort_by_key(|d| d.actor_name != "Bran");
            let d = asked[0];
            (d.id, d.actor_name.clone(), d.rule.clone())
        };
        let order = if rule.starts_with("003 §Withdrawal Tactics") {
            Order::new(&who, "follow").target("Aldo")
        } else {
            Order::new(&who, "parry")
        };
        b.answer(id, order);
    }
    assert_has(&b, "Bran follows Aldo");
    assert_has(
        &b,
        "Cato would follow Aldo, but no longer can: the way is blocked or beyond its movement.",
    );
    assert_lacks(&b, "Cato's order \"follow\" is refused");
}

#[test]
fn a_cornered_monster_that_must_retreat_surrenders() {
    // Ruling flight_path: Gob's morale fails by 4 (2d6 [2, 2] - 1 = 3
    // against 7): it disengages and retreats. Walled in by the obstacles
    // and Ann, it has nowhere to go, and surrenders in round 2 rather than
    // stand without fighting round after round.
    let text = r#"(
        name: "t", ruleset: "crucible", round_cap: 3,
        grid: (kind: Square, width: 3, height: 3, obstacles: [(0, 2), (1, 2), (2, 2)]),
        sides: [(name: "A"), (name: "B", morale: true)],
        options: {"surprise": "none"},
        combatants: [
            (name: "Ann", side: "A", template: "fighter", at: (1, 0), weapons: ["longsword"]),
            (name: "Gob", side: "B", template: "goblin", at: (1, 1)),
        ])"#;
    let orders = vec![
        (Order::new("Ann", "attack").target("Gob"), false),
        (Order::new("Gob", "wait"), false),
    ];
    let mut b = common::battle(text, &[2, 9, 20, 2, 2, 2, 2, 9, 1, 9, 1], |_| {
        Box::new(Plays(orders.clone()))
    });
    common::run(&mut b);
    line(
        &b,
        "Gob's morale fails by 4: from now on it disengages and retreats",
    );
    let nowhere = line(&b, "Gob has nowhere to retreat to.");
    assert!(nowhere < line(&b, "Gob throws down its weapon and surrenders."));
    assert_has(&b, "The battle is over after 2 rounds");
}

#[test]
fn one_who_fired_before_initiative_cannot_ready_again_that_round() {
    // Ruling readied_missile: Ann, ready, fires before initiative, which
    // spends the round's attack; readying is an attack too, so the drop is
    // not had again next round.
    let sides = r#"(name: "Ann", side: "A", template: "fighter", at: (1, 3), set: {"readied": 1}),
                 (name: "Orc", side: "B", template: "orc", at: (10, 3), set: {"hp": 60})"#;
    let orders = vec![
        Order::new("Ann", "fire").target("Orc"),
        Order::new("Ann", "ready"),
        Order::new("Orc", "wait"),
    ];
    let b = played(sides, ((16, 8), 2), orders, &[2, 5, 3, 5, 2, 12]);
    line(&b, "Ann attacks Orc with the shortbow: 2 against 12");
    line(
        &b,
        "Ann's order \"ready\" is refused: its attacks of this round are spent: it may still move, but not strike, shoot, cast, parry or ready a missile again",
    );
    assert_eq!(
        time_of(&b, "Ann attacks Orc with the shortbow: 2"),
        "round 1, before initiative"
    );
    assert_lacks(&b, "round 2, before initiative");
}

#[test]
fn two_morale_triggers_at_once_are_two_checks() {
    // Ruling morale_check: in round 1 Gob1 falls and Gob2 drops to half
    // its hit points. Gob2 checks once for each: 2d6 [6, 6] + 5 and
    // [4, 6] + 5, both holding.
    let text = r#"(
        name: "t", ruleset: "crucible", round_cap: 1,
        grid: (kind: Square, width: 12, height: 8),
        sides: [(name: "A"), (name: "B", morale: true)],
        options: {"surprise": "none"},
        combatants: [
            (name: "Ann", side: "A", template: "fighter", at: (5, 2), weapons: ["longsword"]),
            (name: "Bob", side: "A", template: "fighter", at: (5, 4), weapons: ["longsword"]),
            (name: "Gob1", side: "B", template: "goblin", at: (6, 2)),
            (name: "Gob2", side: "B", template: "goblin", at: (6, 4), set: {"hp": 10, "morale": 5}),
        ])"#;
    let orders = vec![
        (Order::new("Ann", "attack").target("Gob1"), false),
        (Order::new("Bob", "attack").target("Gob2"), false),
        (Order::new("Gob2", "wait"), false),
    ];
    let dice = [2, 9, 20, 8, 20, 4, 6, 6, 4, 6];
    let mut b = common::battle(text, &dice, |_| Box::new(Plays(orders.clone())));
    common::run(&mut b);
    let half = line(
        &b,
        "Gob2 checks morale (at half its hit points or less): 12 + 5 morale = 17",
    );
    let side = line(
        &b,
        "Gob2 checks morale (1 of its 2 are out of the fight): 10 + 5 morale = 15",
    );
    assert!(half < side);
}

#[test]
fn one_who_readied_a_missile_has_no_first_strike_that_round() {
    // Ruling readied_missile: readying is the round's attack. Pike readies
    // his bow; Osric walks into the reach of Pike's spear, which would
    // strike first (ruling length_strike), but Pike has no attack left.
    let sides = r#"(name: "Osric", side: "A", template: "fighter", at: (1, 2), weapons: ["longsword"]),
                 (name: "Pike", side: "B", template: "spearman", at: (5, 2), weapons: ["spear", "shortbow"])"#;
    let orders = vec![
        Order::new("Pike", "ready"),
        Order::new("Osric", "attack").target("Pike"),
    ];
    let b = played(sides, ((10, 8), 1), orders, &[9, 2, 19, 4, 11, 3]);
    let ready = line(&b, "Pike readies a missile");
    assert!(ready < line(&b, "Osric attacks Pike"));
    assert_lacks(&b, "strikes first");
    assert_lacks(&b, "Pike attacks");
}

#[test]
fn one_struck_first_in_its_instant_has_no_shot_or_spell_left() {
    // 003 §II E and §III B ("ALL a characters attacks resolve on their
    // turn"), ruling length_strike: all five act at count 5. Gob comes into
    // the Archer's longsword and Gob2 into the Priest's mace: each is struck
    // first, and its attacks of the round are spent. The Archer's shot and
    // the Priest's spell, ordered before, are lost.
    let sides = "(name: \"Gob\", side: \"B\", template: \"goblin\", at: (5, 3)),
                 (name: \"Gob2\", side: \"B\", template: \"goblin\", at: (8, 5), weapons: [\"dagger\"]),
                 (name: \"Archer\", side: \"A\", template: \"fighter\", at: (2, 3)),
                 (name: \"Priest\", side: \"A\", template: \"high_priest\", at: (2, 5))";
    let orders = [
        Order::new("Gob", "attack").target("Archer"),
        Order::new("Gob2", "attack").target("Priest"),
        Order::new("Archer", "fire").target("Gob2"),
        Order::new("Priest", "cast")
            .with("flame_strike")
            .target("Gob2"),
    ];
    let b = battle(NO_SURPRISE, sides, &[5, 5, 2, 5, 4, 7], &orders);
    assert_has(&b, "Archer attacks Gob with the longsword: 2 against 12");
    assert_has(&b, "Priest attacks Gob2 with the mace: 4 against 10");
    assert_has(
        &b,
        "Archer has spent its attacks of the round already: its shot at Gob2 is lost.",
    );
    assert_has(
        &b,
        "Priest has spent its attacks of the round already: its flame_strike is not begun.",
    );
    assert_lacks(&b, "with the shortbow");
    assert_lacks(&b, "begins casting");
}

#[test]
fn a_5_foot_step_to_a_square_taken_in_the_same_instant_is_not_taken() {
    // 003 §The 5' Step and §II F: Bram and Grum both step to (3, 3) at
    // count 5. Bram, listed first, takes it; Grum stays where he stood, and
    // the log says so rather than move him.
    let sides = "(name: \"Bram\", side: \"A\", template: \"spearman\", at: (2, 3)),
                 (name: \"Grum\", side: \"B\", template: \"orc\", at: (4, 3))";
    let orders = [
        Order::new("Bram", "step").cell(Cell::new(3, 3)),
        Order::new("Grum", "step").cell(Cell::new(3, 3)),
    ];
    let mut b = battle(NO_SURPRISE, sides, &[5, 5], &orders);
    assert_has(&b, "Bram takes a 5' step from (2, 3) to (3, 3)");
    assert_has(
        &b,
        "Grum cannot take its 5' step to (3, 3): the square is no longer free.",
    );
    assert_lacks(&b, "Grum takes a 5' step");
    let grum = unit(&b, "Grum");
    assert_eq!(*b.world_mut().get::<Cell>(grum).unwrap(), Cell::new(4, 3));
}

#[test]
fn a_held_readied_missile_fires_from_where_it_stands() {
    // 003 §III A, ruling readied_missile: Ann holds her readied missile
    // before initiative. On her turn it fires from where she stands, or the
    // action is lost: a move before the shot is refused, and she shoots from
    // (1, 3).
    let sides = r#"(name: "Ann", side: "A", template: "fighter", at: (1, 3), set: {"readied": 1}),
                 (name: "Orc", side: "B", template: "orc", at: (10, 3), set: {"hp": 60})"#;
    let orders = vec![
        Order::new("Ann", "hold"),
        Order::new("Ann", "fire")
            .target("Orc")
            .cell(Cell::new(5, 3)),
        Order::new("Ann", "fire").target("Orc"),
        Order::new("Orc", "wait"),
    ];
    let b = played(sides, ((16, 8), 1), orders, &[2, 5, 12]);
    assert_has(
        &b,
        "Ann's order \"fire\" is refused: a held readied missile fires from where it stands: it may move after the shot, not before",
    );
    assert_lacks(&b, "Ann moves");
    assert_has(&b, "Ann attacks Orc with the shortbow: 12 against 12");
}

#[test]
fn a_spell_whose_target_ran_out_of_range_is_spent_on_nothing() {
    // Ruling in_sight: Evo begins a lightning bolt (range 12, casting time
    // 3) at the Wolf 9 squares off; the Wolf runs 16 squares away before it
    // goes off. It escapes the bolt, which is spent.
    let text = "(name: \"t\", ruleset: \"crucible\", round_cap: 1,
          grid: (kind: Square, width: 24, height: 7),
          sides: [(name: \"A\"), (name: \"B\")],
          options: {\"surprise\": \"none\", \"initiative\": \"individual_rolls\"},
          combatants: [
            (name: \"Evo\", side: \"A\", template: \"evoker\", at: (2, 3)),
            (name: \"Wolf\", side: \"B\", template: \"wolf\", at: (11, 3))])";
    let orders: Vec<(Order, bool)> = vec![
        (
            Order::new("Evo", "cast")
                .with("lightning_bolt")
                .target("Wolf"),
            false,
        ),
        (Order::new("Wolf", "run").cell(Cell::new(18, 1)), false),
    ];
    let mut b = common::battle(text, &[3, 3], |_| Box::new(Plays(orders.clone())));
    common::run(&mut b);
    assert_has(&b, "Evo begins casting lightning_bolt at Wolf");
    assert_has(&b, "Wolf runs");
    assert_has(
        &b,
        "Evo's lightning_bolt goes off, but Wolf is out of its range (16 squares, range 12): it is spent.",
    );
    assert_lacks(&b, "Evo completes lightning_bolt");
}

#[test]
fn a_broken_tie_names_the_pairs_each_option_sets_and_those_it_sets_none() {
    // 003 §II G, every option on, and §II F, "Ties are just that": at count
    // 5 the Sword's weapon speed factor is below the Axe's, which sets the
    // Sword first and the Axe after. No option sets the Mage or the Slinger
    // before anyone: each is tied with a foe among those first, and the log
    // says so rather than lay it to the weapon speed factor.
    let sides = "(name: \"Axe\", side: \"A\", template: \"dwarf_warrior\", at: (3, 3)),
                 (name: \"Mage\", side: \"A\", template: \"magic_user\", at: (1, 5)),
                 (name: \"Sword\", side: \"B\", template: \"hobgoblin\", at: (4, 3)),
                 (name: \"Slinger\", side: \"B\", template: \"kobold_slinger\", at: (8, 5))";
    let more = r#"options: {"surprise": "none", "wsf_ties": "on", "more_attacks_ties": "on", "spell_vs_melee_ties": "on", "missile_vs_spell_ties": "on"},"#;
    let orders = vec![
        Order::new("Axe", "attack").target("Sword"),
        Order::new("Mage", "cast")
            .with("magic_missile")
            .target("Slinger"),
        Order::new("Sword", "attack").target("Axe"),
        Order::new("Slinger", "fire").target("Mage"),
    ];
    let b = played_with(more, sides, ((10, 7), 1), orders, &[5, 5]);
    assert_has(
        &b,
        "The tie is broken by the lower weapon speed factor (Sword before Axe): Mage, Sword, Slinger before Axe (Mage, Slinger first by no option, tied with a foe among those first).",
    );
}

#[test]
fn one_struck_first_neither_readies_nor_parries_nor_steps_onto_a_body() {
    // 003 §II E, ruling length_strike: all act at count 5. Gob walks into
    // Bram's spear, which strikes first: Bram's attacks of the round are
    // spent, and the missile he was to ready is not readied (readying is
    // the round's attack, ruling readied_missile). Ordered to parry
    // instead, he has no attack left to give up for it.
    let sides = "(name: \"Gob\", side: \"B\", template: \"goblin\", at: (5, 3), set: {\"hp\": 30}),
                 (name: \"Bram\", side: \"A\", template: \"spearman\", at: (2, 3), weapons: [\"spear\", \"shortbow\"]),
                 (name: \"Pell\", side: \"A\", template: \"spearman\", at: (2, 6), weapons: [\"spear\"])";
    let orders = [
        Order::new("Gob", "move").cell(Cell::new(3, 3)),
        Order::new("Bram", "ready"),
        Order::new("Pell", "parry"),
    ];
    let b = battle(NO_SURPRISE, sides, &[5, 5, 20, 6], &orders);
    assert_has(&b, "Bram attacks Gob with the spear: 20");
    assert_has(
        &b,
        "Bram has spent its attacks of the round already: it readies no missile.",
    );
    assert_lacks(&b, "Bram readies a missile");
    let parry = [
        Order::new("Gob", "move").cell(Cell::new(3, 3)),
        Order::new("Bram", "parry"),
    ];
    let b = battle(NO_SURPRISE, sides, &[5, 5, 20, 6], &parry);
    assert_has(
        &b,
        "Bram has spent its attacks of the round already: it has none left to give up for a parry.",
    );
    assert_lacks(&b, "Bram parries");
    // Ruling fallen_bodies: Gob (1 hit point) walks into Bram's spear and
    // falls at (3, 3); Bram's 5' step there, ordered at the same count,
    // is not taken, and the log does not say it was.
    let sides = "(name: \"Gob\", side: \"B\", template: \"goblin\", at: (5, 3), set: {\"hp\": 1}),
                 (name: \"Bram\", side: \"A\", template: \"spearman\", at: (2, 3)),
                 (name: \"Far\", side: \"B\", template: \"goblin\", at: (11, 7))";
    let orders = [
        Order::new("Gob", "move").cell(Cell::new(3, 3)),
        Order::new("Bram", "step").cell(Cell::new(3, 3)),
    ];
    let mut b = battle(NO_SURPRISE, sides, &[5, 5, 20, 6], &orders);
    assert_has(
        &b,
        "Bram cannot take its 5' step to (3, 3): the square is no longer free.",
    );
    assert_lacks(&b, "Bram takes a 5' step");
    let bram = unit(&b, "Bram");
    assert_eq!(*b.world_mut().get::<Cell>(bram).unwrap(), Cell::new(2, 3));
}

#[test]
fn a_first_strike_lands_with_its_allies_blows_when_the_target_is_not_in_the_tie() {
    // 003 §II E and §II F, "Ties are just that": Wren acts at count 1. At
    // count 9 Gorm walks into her dagger's range with his longer club and
    // Vessa, beside her already, strikes too. Striking first matters only
    // against one acting at the same instant: Gorm's blow lands with
    // Vessa's, so Vessa's attack is rolled though Gorm's fells Wren.
    let sides =
        "(name: \"Wren\", side: \"A\", template: \"magic_user\", at: (5, 3), set: {\"hp\": 1}),
                 (name: \"Gorm\", side: \"B\", template: \"ogre\", at: (8, 3)),
                 (name: \"Vessa\", side: \"B\", template: \"ogre\", at: (5, 4)),
                 (name: \"Far\", side: \"A\", template: \"fighter\", at: (0, 7))";
    let orders = [
        Order::new("Wren", "wait"),
        Order::new("Far", "wait"),
        Order::new("Gorm", "attack").target("Wren"),
        Order::new("Vessa", "attack").target("Wren"),
    ];
    let b = battle(NO_SURPRISE, sides, &[1, 9, 20, 6, 20, 6], &orders);
    assert_has(&b, "Gorm attacks Wren");
    assert_has(&b, "Vessa attacks Wren");
    assert_lacks(&b, "Vessa's attack on it is lost");
    assert_lacks(&b, "strikes first, regardless of initiative");
}

#[test]
fn a_cure_says_what_it_restored_up_to_the_maximum() {
    // Ruling spell_effect: a healing spell "restores its dice up to the
    // maximum". Cl, unhurt, cures herself: the 7 rolled restore nothing.
    let sides = "(name: \"Cl\", side: \"A\", template: \"cleric\", at: (1, 2)),
                 (name: \"Gob\", side: \"B\", template: \"goblin\", at: (10, 6))";
    let orders = [
        Order::new("Cl", "cast")
            .with("cure_light_wounds")
            .target("Cl"),
        Order::new("Gob", "wait"),
    ];
    let b = battle(NO_SURPRISE, sides, &[1, 12, 7], &orders);
    assert_has(
        &b,
        "Cl completes cure_light_wounds on Cl: 0 hit points restored",
    );
    assert_lacks(&b, "7 hit points restored");
    // Nothing restored, nothing to float over the board.
    let log = b.world().resource::<fray_core::log::BattleLog>();
    let cure = log
        .entries()
        .iter()
        .find(|e| e.text.contains("0 hit points restored"));
    assert_eq!(cure.map(|e| e.amount), Some(None));
    // Lacking 3, she is given 3 of the 7 rolled.
    let text = field("crucible", (12, 8), 1, NO_SURPRISE, sides);
    let plays: Vec<(Order, bool)> = orders.iter().map(|o| (o.clone(), false)).collect();
    let mut b = common::battle(&text, &[1, 12, 7], |_| Box::new(Plays(plays.clone())));
    let cl = unit(&b, "Cl");
    let mut hp = b.world_mut().get_mut::<crucible::HitPoints>(cl).unwrap();
    hp.current = hp.max - 3;
    common::run(&mut b);
    assert_has(
        &b,
        "Cl completes cure_light_wounds on Cl: 3 hit points restored",
    );
}
