//! The searching AI: it reads nothing its side could not know, and a seed
//! gives the same battle every time.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bevy_ecs::prelude::*;
use fray_ai::basic::{BasicAi, RandomAi};
use fray_core::decision::Decision;
use fray_core::log::BattleLog;

use fray_ai::search::{Budget, Estimate, SearchAi};
use fray_ai::{AiLevel, BattleOptions, battle_from_text, build_battle, load_scenario};
use fray_core::battle::{Battle, Progress};
use fray_core::decision::{Controller, Decisions, HumanSeat, Order};

/// A budget counted in work alone: no wall clock, however slow the machine.
fn counted() -> Budget {
    Budget {
        cap: Duration::from_secs(3600),
        work: Some(400),
        ..Budget::default()
    }
}

/// The duel, seeded, both sides waiting for people, declaring `declaration`.
fn duel(declaration: &str) -> Battle {
    duel_seeded(declaration, 3)
}

/// The same, from `seed`.
fn duel_seeded(declaration: &str, seed: u64) -> Battle {
    let path = common::scenario("duel.ron");
    let text = std::fs::read_to_string(path).unwrap().replace(
        "    seed: 1,",
        &format!("    seed: 1,\n    options: {{\"declaration\": \"{declaration}\"}},"),
    );
    let text = text.replace("seat: Ai", "seat: Human");
    battle_from_text(&text, seed).unwrap()
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

/// What a watching side heard: at each of its decisions, the round and how
/// many of the other side's orders it had heard of; whether each was of the
/// kind the basic AI would have given.
#[derive(Default)]
struct Heard {
    decisions: Vec<(u32, usize)>,
    foreseen: Vec<bool>,
}

/// Plays as the basic AI, as a person would: not at once, but once the
/// rules have gone on a step; and notes what it hears of the other side.
struct Listener {
    heard: Arc<Mutex<Heard>>,
    /// The decision it has been asked once.
    pondered: Option<u64>,
}

impl Controller for Listener {
    fn decide(&mut self, world: &mut World, decision: &Decision) -> Option<Order> {
        if self.pondered.replace(decision.id) != Some(decision.id) {
            return None;
        }
        let round = world.resource::<BattleLog>().round;
        {
            let mut heard = self.heard.lock().unwrap();
            let so_far = heard.foreseen.len();
            heard.decisions.push((round, so_far));
        }
        BasicAi.decide(world, decision)
    }

    fn watches(&self) -> bool {
        true
    }

    fn observed(&mut self, side: usize, _action: &str, foreseen: bool) {
        assert_eq!(side, 0, "only the other side is heard of");
        self.heard.lock().unwrap().foreseen.push(foreseen);
    }
}

/// The duel declared in secret, `brienne` deciding for her and a listener
/// for Grusk: what he heard.
fn grusk_heard(brienne: Box<dyn Controller>) -> Heard {
    // From seed 4 Grusk holds against the Intimidation of round 1 and the
    // duel goes on for rounds.
    let mut battle = duel_seeded("simultaneous", 4);
    let heard = Arc::new(Mutex::new(Heard::default()));
    battle.set_controller(0, brienne);
    let listener = Listener {
        heard: heard.clone(),
        pondered: None,
    };
    battle.set_controller(1, Box::new(listener));
    while let Progress::AwaitingHuman(_) = battle.run() {}
    assert!(battle.outcome().is_some());
    std::mem::take(&mut *heard.lock().unwrap())
}

#[test]
fn a_side_hears_of_the_others_orders_once_their_round_has_ended() {
    // Brienne writes her order down before Grusk each round, and the rules
    // take it, in secret (004 §Step 3), before he decides: he hears of it
    // only once the round has ended, at his next.
    let heard = grusk_heard(Box::new(BasicAi));
    assert!(heard.decisions.len() > 2, "{:?}", heard.decisions);
    for &(round, so_far) in &heard.decisions {
        assert_eq!(so_far as u32, round - 1, "{:?}", heard.decisions);
    }
    assert!(
        heard.foreseen.iter().all(|&f| f),
        "the basic AI gives the kind of order foreseen"
    );
    let heard = grusk_heard(Box::new(RandomAi { seed: 3 }));
    assert!(heard.foreseen.iter().any(|&f| !f), "{:?}", heard.foreseen);
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

#[test]
fn its_thoughts_give_the_order_chosen_first_and_mark_the_basic_ais() {
    let mut battle = duel("simultaneous");
    battle.run();
    let world = battle.world_mut();
    let grusk = world
        .resource::<Decisions>()
        .open()
        .iter()
        .find(|d| d.actor_name == "Grusk")
        .map(|d| d.id)
        .expect("Grusk is asked to declare");
    let lent = world.resource_mut::<Decisions>().lend(grusk).unwrap();
    let mut search = SearchAi::new(5, counted());
    let order = search.decide(world, &lent);
    world.resource_mut::<Decisions>().give_back(lent);
    let thoughts = search.thoughts();
    // The order given first, each order as the search weighed it.
    assert_eq!(Some(&thoughts[0].order), order.as_ref());
    assert_eq!(thoughts.len(), search.last.len());
    for (t, e) in thoughts.iter().zip(&search.last) {
        assert_eq!(
            (&t.order, t.share, t.futures, t.plain),
            (&e.order, e.value, e.rollouts, e.plain)
        );
        assert!(t.futures > 0 && (0.0..=1.0).contains(&t.share), "{t:?}");
    }
    // Exactly one is the basic AI's own choice: the basic AI's order.
    let plain: Vec<_> = thoughts.iter().filter(|t| t.plain).collect();
    assert_eq!(plain.len(), 1);
    let basic = fray_ai::basic::best(battle.world(), battle_actor(&battle, "Grusk"));
    assert_eq!(Some(&plain[0].order), basic.as_ref());
}

/// The entity of the combatant named `name`.
fn battle_actor(battle: &Battle, name: &str) -> Entity {
    battle
        .world()
        .resource::<Decisions>()
        .open()
        .iter()
        .find(|d| d.actor_name == name)
        .map(|d| d.actor)
        .expect("asked")
}

/// The work a search with no budget of its own spends on the first
/// decision of `scenario` with more than one order open.
fn default_work(scenario: &str) -> u64 {
    first_search(scenario, None, |_| {}).spent.0
}

/// A search of `work` (None: the ruleset's own), as many futures as that
/// allows, of the first decision of `scenario` with more than one order
/// open, once `tweak` has changed its world.
fn first_search(scenario: &str, work: Option<u64>, tweak: impl FnOnce(&mut World)) -> SearchAi {
    let text = std::fs::read_to_string(common::scenario(scenario)).unwrap();
    let mut battle = battle_from_text(&text.replace("seat: Ai", "seat: Human"), 2).unwrap();
    battle.run();
    let world = battle.world_mut();
    tweak(world);
    let first = world.resource::<Decisions>().open()[0].id;
    let lent = world.resource_mut::<Decisions>().lend(first).unwrap();
    let budget = Budget {
        cap: Duration::from_secs(3600),
        rollouts: u32::MAX,
        work,
        ..Budget::default()
    };
    let mut search = SearchAi::new(3, budget);
    search.decide(world, &lent);
    world.resource_mut::<Decisions>().give_back(lent);
    assert!(search.last.len() > 1, "{scenario}: nothing to compare");
    search
}

/// How many futures a search played, over all its candidates.
fn futures(search: &SearchAi) -> u32 {
    search.last.iter().map(|e| e.rollouts).sum()
}

#[test]
fn under_crucible_the_cells_a_future_searches_count_against_the_work() {
    // The same work buys fewer futures once each cell the futures' paths
    // expand counts beside their steps.
    let counted = first_search("crucible_4v4.ron", Some(20_000), |_| {});
    let uncounted = first_search("crucible_4v4.ron", Some(20_000), |w| {
        w.resource_mut::<fray_core::ai::AiHooks>().cell_work = 0;
    });
    let (counted, uncounted) = (futures(&counted), futures(&uncounted));
    assert!(
        counted * 3 < uncounted * 2,
        "{counted} futures with the cells counted, {uncounted} without"
    );
}

#[test]
fn a_search_spends_the_work_its_ruleset_gives_a_decision() {
    // Twice the standard's under `phases` and `detailed_sequence`, where
    // more futures were measured to pay, and four times under `crucible`,
    // whose futures' paths count too; the standard's elsewhere. No new
    // round of futures starts past it, so a search spends a little more:
    // up to a round of futures, a fifth of it or so at `crucible_4v4`'s
    // opening, whose long approaches search many cells.
    for (scenario, work) in [
        ("duel.ron", 18_000),
        ("segments_melee.ron", 18_000),
        ("crucible_4v4.ron", 72_000),
        ("phases_duel.ron", 36_000),
        ("ds_duel.ron", 36_000),
    ] {
        let spent = default_work(scenario);
        assert!(
            (work..work + work / 3).contains(&spent),
            "{scenario}: {spent} spent, not about {work}"
        );
    }
}
