//! The searching AI: it reads nothing its side could not know, and a seed
//! gives the same battle every time.

mod common;

use std::time::Duration;

use fray_ai::search::{Budget, Estimate, SearchAi};
use fray_ai::{AiLevel, BattleOptions, battle_from_text, build_battle, load_scenario};
use fray_core::battle::{Battle, Progress};
use fray_core::decision::{Controller, Decisions, HumanSeat, Order};

/// A budget counted in work alone: no wall clock, however slow the machine.
fn counted() -> Budget {
    Budget {
        cap: Duration::from_secs(3600),
        work: 400,
        ..Budget::default()
    }
}

/// The duel, seeded, both sides waiting for people, declaring `declaration`.
fn duel(declaration: &str) -> Battle {
    let path = common::scenario("duel.ron");
    let text = std::fs::read_to_string(path).unwrap().replace(
        "    seed: 1,",
        &format!("    seed: 1,\n    options: {{\"declaration\": \"{declaration}\"}},"),
    );
    let text = text.replace("seat: Ai", "seat: Human");
    battle_from_text(&text, 3).unwrap()
}

/// What the search makes of Grusk's first declaration once Brienne has
/// declared `hers`: its order and its estimates.
fn grusk_after(declaration: &str, hers: &str) -> (Option<Order>, Vec<Estimate>) {
    let mut battle = duel(declaration);
    // Who is asked now; else, the rules going on, who is asked next.
    let asked = |battle: &mut Battle, who: &str| {
        let open = |battle: &Battle| {
            let decisions = battle.world().resource::<Decisions>();
            let mine = decisions.open().iter().find(|d| d.actor_name == who);
            mine.filter(|d| !decisions.is_answered(d.id)).map(|d| d.id)
        };
        open(battle).unwrap_or_else(|| {
            let stopped = battle.run();
            open(battle).unwrap_or_else(|| panic!("{who} is not asked: {stopped:?}"))
        })
    };
    let brienne = asked(&mut battle, "Brienne");
    battle.answer(brienne, Order::new("Brienne", hers));
    // Declared in secret, both are asked at once: Grusk decides while
    // Brienne's order waits to be revealed, as the driver asks them.
    let grusk = asked(&mut battle, "Grusk");
    let world = battle.world_mut();
    let lent = world.resource_mut::<Decisions>().lend(grusk).unwrap();
    let mut search = SearchAi::new(5, counted());
    let order = search.decide(world, &lent);
    world.resource_mut::<Decisions>().give_back(lent);
    (order, search.last)
}

#[test]
fn the_search_does_not_read_a_secret_declaration_of_the_other_side() {
    // Written down in secret (004 §Step 3): Brienne's order waits to be
    // revealed while Grusk decides, and changes nothing of his search.
    let waiting = grusk_after("simultaneous", "wait");
    let defending = grusk_after("simultaneous", "full_defense");
    assert!(waiting.1.len() > 1, "the search weighed several orders");
    assert_eq!(waiting, defending);
}

#[test]
fn the_search_reads_a_declaration_made_in_the_open() {
    // Declared in turn (`round_robin`), Brienne's order is known when Grusk
    // decides, and his futures change with it: the test above can fail.
    let waiting = grusk_after("round_robin", "wait");
    let defending = grusk_after("round_robin", "full_defense");
    assert_ne!(waiting.1, defending.1);
}

/// A battle of `scenario` with the search AI on side 0 and `other` on side
/// 1, on a budget counted in work alone; its log.
fn search_battle(scenario: &str, seed: u64, other: AiLevel) -> Vec<u8> {
    let (scenario, data) = load_scenario(&common::scenario(scenario)).unwrap();
    let options = BattleOptions {
        ai: vec![AiLevel::Search, other],
        ..common::options(seed)
    };
    let mut battle = build_battle(&scenario, &data, &options).unwrap();
    battle.set_controller(0, Box::new(SearchAi::new(11, counted())));
    assert!(matches!(battle.run(), Progress::Over(_)));
    common::log_of(&battle)
}

#[test]
fn a_seed_gives_the_same_search_battle_twice() {
    for scenario in ["duel.ron", "ds_duel.ron", "phases_duel.ron"] {
        let first = search_battle(scenario, 4, AiLevel::Basic);
        assert_eq!(
            first,
            search_battle(scenario, 4, AiLevel::Basic),
            "{scenario}"
        );
        assert_ne!(
            first,
            search_battle(scenario, 4, AiLevel::Random),
            "{scenario}"
        );
    }
}

#[test]
fn the_random_level_gives_legal_orders_and_the_same_ones_for_a_seed() {
    let (scenario, data) = load_scenario(&common::scenario("skirmish_4v4.ron")).unwrap();
    let options = BattleOptions {
        ai: vec![AiLevel::Random, AiLevel::Random],
        ..common::options(2)
    };
    let play = || {
        let mut battle = build_battle(&scenario, &data, &options).unwrap();
        assert!(matches!(battle.run(), Progress::Over(_)));
        let log = common::log_of(&battle);
        assert!(!String::from_utf8_lossy(&log).contains("\"event\":\"refused\""));
        log
    };
    assert_eq!(play(), play());
}

#[test]
fn the_search_plays_as_the_basic_ai_over_a_field_too_large_to_search() {
    let (scenario, data) = load_scenario(&common::scenario("melee_32.ron")).unwrap();
    let mut battle = build_battle(&scenario, &data, &common::options(1)).unwrap();
    battle.set_controller(0, Box::new(HumanSeat));
    let decision = common::awaited(&mut battle).unwrap();
    let world = battle.world_mut();
    let lent = world.resource_mut::<Decisions>().lend(decision.id).unwrap();
    let mut search = SearchAi::new(1, counted());
    let searched = search.decide(world, &lent);
    let basic = fray_ai::basic::BasicAi.decide(world, &lent);
    assert_eq!(searched, basic);
    assert!(search.last.is_empty(), "nothing was played out");
}
