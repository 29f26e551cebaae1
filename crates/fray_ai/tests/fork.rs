//! Forking a running battle: the fork plays on to the end as the battle
//! itself would, and leaves the battle's own future as it was, in every
//! shipped scenario.

mod common;

use bevy_ecs::prelude::*;
use common::{log_of, options, scenario, scenarios};
use fray_ai::{LoadedRules, build_battle, load_scenario, reset_battle};
use fray_core::battle::{Battle, Progress};
use fray_core::grid::Cell;
use fray_core::log::BattleLog;
use fray_core::model::taken_cells;
use fray_core::scenario::LoadedScenario;

/// Step `battle` until its log has `entries` entries or it stops.
fn play_until(battle: &mut Battle, entries: u64) {
    while battle.world().resource::<BattleLog>().count() < entries {
        if battle.advance().is_some() {
            return;
        }
    }
}

fn play_out(battle: &mut Battle) {
    assert!(matches!(battle.run(), Progress::Over(_)));
}

/// The log of the battle of `scenario` and `seed`, never forked.
fn unforked(scenario: &LoadedScenario, data: &LoadedRules, seed: u64) -> Vec<u8> {
    let mut battle = build_battle(scenario, data, &options(seed)).unwrap();
    play_out(&mut battle);
    log_of(&battle)
}

#[test]
fn a_fork_plays_on_as_the_battle_would_and_leaves_it_untouched() {
    for path in scenarios() {
        let (scenario, data) = load_scenario(&path).unwrap();
        let untouched = unforked(&scenario, &data, 7);
        let mut battle = build_battle(&scenario, &data, &options(7)).unwrap();
        play_until(&mut battle, 40);
        let mut fork = fray_ai::fork::fork(battle.world(), true)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // The fork plays to its end first; the battle then goes on as if
        // there had been no fork.
        play_out(&mut fork);
        play_out(&mut battle);
        assert_eq!(log_of(&fork), untouched, "{}: the fork", path.display());
        assert_eq!(log_of(&battle), untouched, "{}: the battle", path.display());
    }
}

#[test]
fn a_fork_into_an_earlier_fork_plays_on_from_the_new_moment() {
    // The earlier fork is played to its end first, so nearly every value
    // it holds differs from the battle's and must be overwritten.
    for path in scenarios() {
        let (scenario, data) = load_scenario(&path).unwrap();
        let untouched = unforked(&scenario, &data, 3);
        let mut battle = build_battle(&scenario, &data, &options(3)).unwrap();
        play_until(&mut battle, 20);
        let mut fork = fray_ai::fork::fork(battle.world(), false).unwrap();
        play_out(&mut fork);
        play_until(&mut battle, 60);
        fray_ai::fork::fork_into(battle.world(), &mut fork, true)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // Its grid index of who stands where is the battle's, moves and
        // falls overwritten included.
        let everyone: Vec<Entity> = battle
            .world_mut()
            .query_filtered::<Entity, With<Cell>>()
            .iter(battle.world())
            .collect();
        let taken = |world: &World, e: Entity| {
            let mut cells: Vec<Cell> = taken_cells(world, e).iter().copied().collect();
            cells.sort_unstable();
            cells
        };
        for e in everyone {
            assert_eq!(
                taken(fork.world(), e),
                taken(battle.world(), e),
                "{}",
                path.display()
            );
        }
        play_out(&mut fork);
        assert_eq!(log_of(&fork), untouched, "{}", path.display());
    }
}

#[test]
fn a_battle_of_a_batch_forks_like_the_first() {
    // A batch reuses one battle: its combatants keep their entities, so
    // its later battles fork as the first does.
    let path = scenario("skirmish_4v4.ron");
    let (scenario, data) = load_scenario(&path).unwrap();
    let untouched = unforked(&scenario, &data, 12);
    let mut battle = build_battle(&scenario, &data, &options(11)).unwrap();
    play_out(&mut battle);
    reset_battle(&mut battle, &scenario, &data, &options(12)).unwrap();
    play_until(&mut battle, 50);
    let mut fork = fray_ai::fork::fork(battle.world(), true).unwrap();
    play_out(&mut fork);
    assert_eq!(log_of(&fork), untouched);
}
