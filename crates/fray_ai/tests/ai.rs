//! The basic AI through the `declared` ruleset's appraisal: it closes in
//! without provoking ripostes, attacks plainly once in reach, goes for the
//! target it can finish, and takes full defense when the blows coming could
//! take it out.

mod common;

use bevy_ecs::prelude::*;
use fray_ai::basic::BasicAi;
use fray_ai::battle_from_text;
use fray_core::decision::{Controller, Decision, Order};
use fray_core::model::Combatant;
use fray_rules::declared::{
    BaseInitiative, DamageType, Harm, Health, Injuries, Injury, Kit, Stabilised, Stats, Stress,
    WoundPoints,
};

/// The combatant named `name`.
fn named(world: &mut World, name: &str) -> Entity {
    let mut q = world.query::<(Entity, &Combatant)>();
    q.iter(world)
        .find(|(_, c)| c.name == name)
        .map(|(e, _)| e)
        .unwrap_or_else(|| panic!("{name} is there"))
}

/// Lay `name` down at `wp` Wound Points, `health`.
fn lay_down(world: &mut World, name: &str, wp: i32, health: Health) {
    let e = named(world, name);
    world.get_mut::<WoundPoints>(e).unwrap().current = wp;
    *world.get_mut::<Health>(e).unwrap() = health;
}

/// Give `name` a wound of `amount` (004 §Wound Points: stabilising it is a
/// Heal check against 10 + its worst wound).
fn wound(world: &mut World, name: &str, amount: i32) {
    let e = named(world, name);
    world.get_mut::<Injuries>(e).unwrap().0.push(Injury {
        cause: Harm::Hit(DamageType::Blunt),
        amount,
        combat_injury: None,
    });
}

/// The AI's order for `who`'s first declaration in a scenario made of `combatants`.
fn first_order(combatants: &str, who: &str) -> Order {
    first_order_after(combatants, who, |_| {})
}

/// The same, once `prepare` has changed the battle as it opens.
fn first_order_after(combatants: &str, who: &str, prepare: impl FnOnce(&mut World)) -> Order {
    first_order_among(r#"(name: "B", seat: Human)"#, combatants, who, prepare)
}

/// The same, side B being `b`.
fn first_order_among(
    b: &str,
    combatants: &str,
    who: &str,
    prepare: impl FnOnce(&mut World),
) -> Order {
    first_order_by(&mut BasicAi, b, combatants, who, prepare)
}

/// The same, `ai` deciding for everyone.
fn first_order_by(
    ai: &mut dyn Controller,
    b: &str,
    combatants: &str,
    who: &str,
    prepare: impl FnOnce(&mut World),
) -> Order {
    let text = format!(
        r#"(
    name: "t", ruleset: "declared",
    grid: (kind: Square, width: 10, height: 10),
    options: {{"declaration": "round_robin"}},
    sides: [(name: "A", seat: Human), {b}],
    combatants: [{combatants}],
    dice: [5, 9, 9, 9],
)"#
    );
    let mut battle = battle_from_text(&text, 1).unwrap();
    prepare(battle.world_mut());
    loop {
        let decision = common::awaited(&mut battle)
            .unwrap_or_else(|_| panic!("the battle ended before {who} decided"));
        let order = ai
            .decide(battle.world_mut(), &decision)
            .expect("the AI answers");
        if decision.actor_name == who {
            return order;
        }
        battle.answer(decision.id, Order::new(&decision.actor_name, "wait"));
    }
}

#[test]
fn the_ai_closes_in_defensively_rather_than_provoke_a_riposte() {
    let o = first_order(
        r#"(name: "Anna", side: "A", template: "knight", at: (1, 1)),
           (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (4, 1))"#,
        "Anna",
    );
    assert_eq!(
        o,
        Order::new("Anna", "defensive_attack")
            .target("Bors")
            .with("longsword")
    );
}

#[test]
fn the_greedy_policy_attacks_plainly_whatever_riposte_it_walks_into() {
    let o = first_order_by(
        &mut fray_ai::basic::GreedyAi,
        r#"(name: "B", seat: Human)"#,
        r#"(name: "Anna", side: "A", template: "knight", at: (1, 1)),
           (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (4, 1))"#,
        "Anna",
        |_| {},
    );
    assert_eq!(
        o,
        Order::new("Anna", "attack")
            .target("Bors")
            .with("longsword")
    );
}

#[test]
fn the_ai_attacks_plainly_when_already_in_reach() {
    let o = first_order(
        r#"(name: "Anna", side: "A", template: "knight", at: (1, 1)),
           (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (2, 1))"#,
        "Anna",
    );
    assert_eq!(
        o,
        Order::new("Anna", "attack")
            .target("Bors")
            .with("longsword")
    );
}

#[test]
fn the_ai_goes_for_the_foe_it_can_finish() {
    let o = first_order(
        r#"(name: "Anna", side: "A", template: "knight", at: (2, 2)),
           (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (3, 2)),
           (name: "Cato", side: "B", template: "hobgoblin_warrior", at: (1, 2), set: {"stress": 0, "strength": 2})"#,
        "Anna",
    );
    assert_eq!(o.target.as_deref(), Some("Cato"), "{o:?}");
}

#[test]
fn the_ai_strikes_the_foe_in_reach_before_one_far_away() {
    let o = first_order(
        r#"(name: "Anna", side: "A", template: "knight", at: (1, 1)),
           (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (9, 9)),
           (name: "Cato", side: "B", template: "hobgoblin_warrior", at: (2, 1))"#,
        "Anna",
    );
    assert_eq!(
        o,
        Order::new("Anna", "attack")
            .target("Cato")
            .with("longsword")
    );
}

#[test]
fn the_ai_counts_the_riposte_of_a_foe_it_would_walk_past() {
    // Bors's shortsword does not reach as far as Anna's spear, but Cato's
    // longsword covers the way to him: a plain attack would provoke Cato.
    let o = first_order(
        r#"(name: "Anna", side: "A", template: "sellsword", at: (1, 1)),
           (name: "Bors", side: "B", template: "goblin", at: (6, 1)),
           (name: "Cato", side: "B", template: "hobgoblin_warrior", at: (3, 2))"#,
        "Anna",
    );
    assert_eq!(
        o,
        Order::new("Anna", "defensive_attack")
            .target("Bors")
            .with("spear")
    );
}

#[test]
fn the_ai_takes_full_defense_when_the_blow_coming_could_take_it_out() {
    // A goblin with 3 Wound Points left, no Stress, next to a bugbear whose
    // warhammer would drop it: +4 Defense and a riposte are worth more
    // than its own small blow.
    let hurt = first_order(
        r#"(name: "Gik", side: "A", template: "goblin", at: (1, 1), set: {"stress": 0, "strength": 3}),
           (name: "Grusk", side: "B", template: "bugbear_scoundrel", at: (2, 1))"#,
        "Gik",
    );
    assert_eq!(hurt, Order::new("Gik", "full_defense"));
    // A knight, fresh and armoured, strikes: the bugbear's blows are far
    // from taking it out.
    let fresh = first_order(
        r#"(name: "Anna", side: "A", template: "knight", at: (1, 1)),
           (name: "Grusk", side: "B", template: "bugbear_scoundrel", at: (2, 1))"#,
        "Anna",
    );
    assert_eq!(fresh.action, "attack", "{fresh:?}");
}

#[test]
fn a_caster_mends_an_ally_who_has_lost_stress() {
    // Bors is far off; Anna, beside Agna, has lost 14 of her 24 Stress.
    let o = first_order_after(
        r#"(name: "Agna", side: "A", template: "priest", at: (1, 1)),
           (name: "Anna", side: "A", template: "knight", at: (2, 1)),
           (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (9, 9))"#,
        "Agna",
        |world| {
            let anna = named(world, "Anna");
            world.get_mut::<Stress>(anna).unwrap().current = 10;
        },
    );
    assert_eq!(o, Order::new("Agna", "cast").target("Anna").with("mend"));
}

#[test]
fn the_ai_intimidates_a_monster_likely_to_flee() {
    let duel = r#"(name: "Anna", side: "A", template: "knight", at: (1, 1)),
           (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (6, 1))"#;
    let monsters = r#"(name: "B", seat: Human, morale: true)"#;
    assert_eq!(
        first_order_among(monsters, duel, "Anna", |_| {}),
        Order::new("Anna", "intimidate").target("Bors")
    );
    // Not a monster: nothing makes it check morale.
    assert_ne!(first_order(duel, "Anna").action, "intimidate");
}

#[test]
fn the_ai_throws_its_javelin_at_a_foe_beyond_a_walk_of_its_sword() {
    // Eight cells: the longsword (reach 1) cannot reach Anna this round,
    // the javelin (range 6) can after a walk of two cells (004 §Step 3, throw).
    let o = first_order(
        r#"(name: "Bors", side: "A", template: "hobgoblin_warrior", at: (1, 1)),
           (name: "Anna", side: "B", template: "archer", at: (9, 1))"#,
        "Bors",
    );
    assert_eq!(
        o,
        Order::new("Bors", "throw").target("Anna").with("javelin")
    );
    // Its only weapon it keeps: thrown, it would leave nothing to strike with.
    let o = first_order(
        r#"(name: "Bors", side: "A", template: "hobgoblin_warrior", at: (1, 1), weapons: ["javelin"]),
           (name: "Anna", side: "B", template: "archer", at: (9, 1))"#,
        "Bors",
    );
    assert_eq!(o.action, "defensive_attack", "{o:?}");
}

/// Grusk's AI order in round 2, beside Brienne who gave `brienne` in both
/// rounds; Grusk waited in round 1.
fn grusk_after(brienne: &Order) -> Order {
    second_order(
        ("Grusk", "bugbear_scoundrel"),
        ("Brienne", "knight"),
        brienne,
    )
}

/// The AI's order in round 2 for `me` (name, template), beside `foe` who
/// gave `given` in both rounds; `me` waited in round 1.
fn second_order(me: (&str, &str), foe: (&str, &str), given: &Order) -> Order {
    second_order_after(me, foe, given, |_| {})
}

/// The same, once `prepare` has changed the battle as `me` is asked in
/// round 2.
fn second_order_after(
    me: (&str, &str),
    foe: (&str, &str),
    given: &Order,
    prepare: impl FnOnce(&mut World),
) -> Order {
    in_round_two(me, foe, given, |world, d| {
        prepare(world);
        BasicAi.decide(world, d).unwrap()
    })
}

/// What `look` makes of the battle as `me` is asked in round 2, beside
/// `foe` who gave `given` in both rounds; `me` waited in round 1.
fn in_round_two<T>(
    me: (&str, &str),
    foe: (&str, &str),
    given: &Order,
    look: impl FnOnce(&mut World, &Decision) -> T,
) -> T {
    let text = format!(
        r#"(
    name: "t", ruleset: "declared",
    grid: (kind: Square, width: 10, height: 10),
    options: {{"declaration": "round_robin"}},
    sides: [(name: "A", seat: Human), (name: "B", seat: Human)],
    combatants: [(name: "{}", side: "A", template: "{}", at: (1, 1)),
           (name: "{}", side: "B", template: "{}", at: (2, 1))],
    dice: [5, 9, 9, 4],
)"#,
        me.0, me.1, foe.0, foe.1
    );
    let mut battle = battle_from_text(&text, 1).unwrap();
    let mut waited = false;
    loop {
        let d = common::awaited(&mut battle).expect("the battle goes on");
        let order = match (d.actor_name == me.0, waited) {
            (true, false) => Order::new(me.0, "wait"),
            (true, true) => return look(battle.world_mut(), &d),
            _ => given.clone(),
        };
        waited |= d.actor_name == me.0;
        battle.answer(d.id, order);
    }
}

#[test]
fn the_ai_takes_full_defense_against_a_foe_who_attacked_it_last_round() {
    // Brienne's longsword struck at Grusk in round 1 and still reaches him:
    // she is likely to again, and full defense ripostes her blow at +4
    // Defense (004 §Step 3 Full-Defense, ruling `riposte`).
    let attack = Order::new("Brienne", "attack")
        .target("Grusk")
        .with("longsword");
    assert_eq!(grusk_after(&attack), Order::new("Grusk", "full_defense"));
    // Brienne waited: nothing says she will attack, and Grusk strikes.
    let wait = Order::new("Brienne", "wait");
    assert_eq!(grusk_after(&wait).action, "attack");
    // A knight whom a hobgoblin struck last round counts on the blow coming
    // again: her riposte and the hits the +4 spares outweigh her own blow
    // (counted at four chances in five, they did not).
    let bors = Order::new("Bors", "attack")
        .target("Anna")
        .with("longsword");
    let anna = second_order(("Anna", "knight"), ("Bors", "hobgoblin_warrior"), &bors);
    assert_eq!(anna, Order::new("Anna", "full_defense"));
}

/// Anna, a knight at 1 Wound Point and no Stress (her draught drunk),
/// beside Bors, a hobgoblin at `bors_wp`, their Base Initiatives (004
/// §Step 2) `anna` and `bors`, their Agility as in the `ghoul` (Defense 11
/// both).
fn at_one_wound_point(world: &mut World, bors_wp: i32, (anna, bors): (i32, i32)) {
    let set = |world: &mut World, name: &str, wp: i32, (agility, base): (i32, i32)| {
        let e = named(world, name);
        world.get_mut::<WoundPoints>(e).unwrap().current = wp;
        world.get_mut::<Stress>(e).unwrap().current = 0;
        world.get_mut::<Kit>(e).unwrap().items.clear();
        world.get_mut::<Stats>(e).unwrap().agility_mod = agility;
        world.get_mut::<BaseInitiative>(e).unwrap().0 = base;
    };
    set(world, "Anna", 1, (-3, anna));
    set(world, "Bors", bors_wp, (-2, bors));
}

/// Bors's attack on Anna in round 1.
fn bors_attacks() -> Order {
    Order::new("Bors", "attack")
        .target("Anna")
        .with("longsword")
}

const KNIGHT: (&str, &str) = ("Anna", "knight");
const HOBGOBLIN: (&str, &str) = ("Bors", "hobgoblin_warrior");

#[test]
fn one_hit_from_falling_the_ai_defends_against_a_foe_who_attacked_it_last_round() {
    // Ghoul, seed 35, round 18: Brienne at 1 Wound Point, Gorm at 9 and
    // likely to strike again. Any hit of his fells her; the +4 Defense
    // spares the rest of her fight, and her riposte lands at his count,
    // before his blow (004 §Step 3 Full-Defense, ruling `riposte`).
    let anna = second_order_after(KNIGHT, HOBGOBLIN, &bors_attacks(), |world| {
        at_one_wound_point(world, 9, (13, 11))
    });
    assert_eq!(anna, Order::new("Anna", "full_defense"));
    // Bors at 3, and her blow lands first: it would finish him in 61
    // rounds of 100 (70% to hit, 7 in 8 of 3 or more), but so would her
    // riposte, before his blow, with his hit at 45% rather than 65%.
    let anna = second_order_after(KNIGHT, HOBGOBLIN, &bors_attacks(), |world| {
        at_one_wound_point(world, 3, (3, 11))
    });
    assert_eq!(anna, Order::new("Anna", "full_defense"));
}

#[test]
fn one_hit_from_falling_the_ai_takes_full_defense_against_the_blows_coming() {
    // 004 §Step 3 Full-Defense: Anna, beside Bors and Cade, attacks while
    // she has Stress to spare; at 1 Wound Point and no Stress, any hit
    // fells her, and the +4 Defense spares the rest of her fight: she
    // stands in full defense, riposting.
    let anna_at = |stress: i32, wp: i32| {
        first_order_after(
            r#"(name: "Anna", side: "A", template: "knight", at: (3, 3)),
               (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (4, 3)),
               (name: "Cade", side: "B", template: "hobgoblin_warrior", at: (3, 4))"#,
            "Anna",
            move |world| {
                let anna = named(world, "Anna");
                world.get_mut::<WoundPoints>(anna).unwrap().current = wp;
                world.get_mut::<Stress>(anna).unwrap().current = stress;
            },
        )
    };
    assert_eq!(anna_at(24, 15).action, "attack");
    assert_eq!(anna_at(0, 1), Order::new("Anna", "full_defense"));
}

#[test]
fn a_priest_stabilises_a_bleeding_ally_rather_than_cast_at_a_distant_foe() {
    // 004 §Wound Points: Anna lies Dying at -1 beside Agna (Heal +5), of a
    // wound of 6: stabilising her is a Heal check against 10 + 6, even
    // odds. The only foe, Bors, stands seven cells off, within Agna's
    // firebolt's range of 8. A life is worth more than a firebolt's
    // Stress: Agna stabilises her.
    let o = first_order_after(
        r#"(name: "Agna", side: "A", template: "priest", at: (1, 1)),
           (name: "Anna", side: "A", template: "knight", at: (2, 1)),
           (name: "Bors", side: "B", template: "bugbear_scoundrel", at: (8, 6))"#,
        "Agna",
        |world| {
            lay_down(world, "Anna", -1, Health::Dying);
            wound(world, "Anna", 6);
        },
    );
    assert_eq!(o, Order::new("Agna", "stabilise").target("Anna"));
}

#[test]
fn a_priest_stabilises_a_dying_ally_at_once_rather_than_in_its_last_round() {
    // 004 §Wound Points: Anna (Strength 15) lies Dying beside Agna (Heal
    // +5), of a wound of 12: a Heal check against 22, 20%. Bors stands
    // within Agna's firebolt's range. Her life weighs as much as felling a
    // knight (24 Stress, 15 Wound Points): a fifth of it outweighs the
    // firebolt, so Agna tends her with fourteen rounds to bleed, every
    // round a try (skirmish_4v4, seed 41: one try, in Wren's last round).
    let agna_with_anna_at = |wp: i32| {
        first_order_after(
            r#"(name: "Agna", side: "A", template: "priest", at: (1, 1)),
               (name: "Anna", side: "A", template: "knight", at: (2, 1)),
               (name: "Bors", side: "B", template: "bugbear_scoundrel", at: (6, 3))"#,
            "Agna",
            |world| {
                lay_down(world, "Anna", wp, Health::Dying);
                wound(world, "Anna", 12);
            },
        )
    };
    let stabilise = Order::new("Agna", "stabilise").target("Anna");
    assert_eq!(agna_with_anna_at(-1), stabilise);
    assert_eq!(agna_with_anna_at(-14), stabilise);
}

#[test]
fn the_ai_fights_rather_than_stabilise_an_ally_who_does_not_bleed() {
    // Anna lies Incapacitated at 0 Wound Points: she loses nothing while
    // she keeps still (004 §Wound Points), and Agna fights Bors instead.
    let o = first_order_after(
        r#"(name: "Agna", side: "A", template: "priest", at: (1, 1)),
           (name: "Anna", side: "A", template: "knight", at: (0, 1)),
           (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (2, 1))"#,
        "Agna",
        |world| lay_down(world, "Anna", 0, Health::Incapacitated),
    );
    assert_ne!(o.action, "stabilise", "{o:?}");
}

#[test]
fn a_creature_down_still_shoots_unless_the_strain_would_kill_it() {
    // Wren lies Incapacitated at 0 Wound Points, Bors six cells off: a shot
    // costs her a Wound Point (004 §Wound Points), worth it for the blow.
    let down = |wp: i32, state: Health, stabilised: bool| {
        first_order_after(
            r#"(name: "Wren", side: "A", template: "archer", at: (1, 1)),
               (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (7, 1))"#,
            "Wren",
            move |world| {
                lay_down(world, "Wren", wp, state);
                if stabilised {
                    let wren = named(world, "Wren");
                    world.entity_mut(wren).insert(Stabilised);
                }
            },
        )
    };
    let shot = Order::new("Wren", "attack").target("Bors").with("shortbow");
    assert_eq!(down(0, Health::Incapacitated, false), shot);
    assert_eq!(down(-4, Health::Dying, false), shot);
    // One Wound Point short of minus her Strength (11), the strain would
    // kill her: she keeps still; stabilised, her first action costs nothing.
    assert_eq!(down(-10, Health::Dying, false), Order::new("Wren", "wait"));
    assert_eq!(down(-10, Health::Dying, true), shot);
}

#[test]
fn a_dying_creature_whose_healer_still_fights_keeps_its_wound_points() {
    // Wren lies Dying at -7 (Strength 11), Bors six cells off, and Agna,
    // a healer of her side, still fights: each Wound Point a shot costs is
    // a round fewer for Agna to reach her (004 §Wound Points). With her
    // death near she keeps still; alone, or with Agna fled, she shoots, as
    // she dies anyway.
    let wren_at = |wp: i32, agna: Option<bool>| {
        let with_agna = if agna.is_some() {
            r#"(name: "Agna", side: "A", template: "priest", at: (1, 8)),"#
        } else {
            ""
        };
        first_order_after(
            &format!(
                r#"(name: "Wren", side: "A", template: "archer", at: (1, 1)), {with_agna}
                   (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (7, 1))"#
            ),
            "Wren",
            move |world| {
                lay_down(world, "Wren", wp, Health::Dying);
                if agna == Some(false) {
                    let fled = named(world, "Agna");
                    world
                        .entity_mut(fled)
                        .remove::<fray_core::model::Fighting>();
                }
            },
        )
    };
    let shot = Order::new("Wren", "attack").target("Bors").with("shortbow");
    assert_eq!(wren_at(-7, None), shot);
    assert_eq!(wren_at(-7, Some(true)), Order::new("Wren", "wait"));
    assert_eq!(wren_at(-7, Some(false)), shot);
}

/// The risk and the worth the `declared` appraisal gives Agna's
/// stabilising Anna, who lies Dying four cells beyond her, with Bors and
/// his spear (reach 2) at `bors`.
fn stabilise_risk(bors: (i32, i32)) -> (f32, f32) {
    let text = format!(
        r#"(
    name: "t", ruleset: "declared",
    grid: (kind: Square, width: 10, height: 10),
    options: {{"declaration": "round_robin"}},
    sides: [(name: "A", seat: Human), (name: "B", seat: Human)],
    combatants: [
        (name: "Agna", side: "A", template: "priest", at: (1, 1)),
        (name: "Anna", side: "A", template: "knight", at: (1, 6)),
        (name: "Bors", side: "B", template: "hobgoblin_warrior", at: ({}, {}), weapons: ["spear"]),
    ],
)"#,
        bors.0, bors.1
    );
    let mut battle = battle_from_text(&text, 1).unwrap();
    lay_down(battle.world_mut(), "Anna", -1, Health::Dying);
    let agna = named(battle.world_mut(), "Agna");
    common::awaited(&mut battle).expect("someone declares");
    let hooks = *battle.world().resource::<fray_core::ai::AiHooks>();
    (hooks.appraise)(battle.world(), agna)
        .into_iter()
        .find(|a| a.order == Order::new("Agna", "stabilise").target("Anna"))
        .map(|a| (a.risk, a.other))
        .expect("stabilising Anna is weighed")
}

#[test]
fn stabilising_across_a_threat_range_counts_the_riposte() {
    // Bors stands across Agna's way to Anna, his spear not reaching her yet.
    let (risk, across) = stabilise_risk((3, 4));
    assert!(risk > 0.5);
    // Out of the way, he provokes nothing.
    let (risk, clear) = stabilise_risk((8, 1));
    assert_eq!(risk, 0.0);
    // Reached freely, Anna's life weighs a knight's size (24 Stress, 15
    // Wound Points); across Bors's reach, the least (10), Agna's own life
    // at stake too (skirmish_4v4 seed 12: three ripostes on the way).
    assert!(
        (across / clear - 10.0 / 39.0).abs() < 1e-4,
        "{across} {clear}"
    );
}

#[test]
fn an_ally_written_down_to_intimidate_a_monster_is_not_doubled() {
    // Ruling intimidate_action: only the best Intimidation counts. Anna
    // and Cora declare in secret; Anna has written down an Intimidation of
    // Bors, and Cora, of her side, knows it: she does something else.
    let text = r#"(
    name: "t", ruleset: "declared",
    grid: (kind: Square, width: 10, height: 10),
    sides: [(name: "A", seat: Human), (name: "B", seat: Human, morale: true)],
    combatants: [
        (name: "Anna", side: "A", template: "knight", at: (1, 1)),
        (name: "Cora", side: "A", template: "knight", at: (1, 3)),
        (name: "Bors", side: "B", template: "hobgoblin_warrior", at: (6, 1)),
    ],
    dice: [5, 9, 9, 9],
)"#;
    let mut battle = battle_from_text(text, 1).unwrap();
    common::awaited(&mut battle).expect("the battle asks");
    let mut orders = Vec::new();
    for _ in 0..2 {
        let open = battle
            .world()
            .resource::<fray_core::decision::Decisions>()
            .open()
            .iter()
            .find(|d| {
                d.actor_name != "Bors"
                    && !orders
                        .iter()
                        .any(|(n, _): &(String, Order)| *n == d.actor_name)
            })
            .cloned()
            .expect("Anna and Cora are asked together");
        let order = BasicAi
            .decide(battle.world_mut(), &open)
            .expect("the AI answers");
        battle.answer(open.id, order.clone());
        orders.push((open.actor_name.clone(), order));
    }
    assert_eq!(
        orders[0],
        (
            "Anna".to_string(),
            Order::new("Anna", "intimidate").target("Bors")
        )
    );
    assert_eq!(orders[1].0, "Cora");
    assert_ne!(orders[1].1.action, "intimidate", "{:?}", orders[1].1);
}
