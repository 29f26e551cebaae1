//! Forks of a running battle: built again from what it was built from, with
//! its state copied in ([`fray_core::fork`]), to play on without touching
//! it. The searching AI plays its futures on forks.

use std::sync::Arc;

use bevy_ecs::prelude::*;
use fray_core::battle::Battle;
use fray_core::scenario::LoadedScenario;

use crate::{BattleOptions, LoadedRules, build_battle};

/// What a battle was built from, so that it can be built again to fork.
#[derive(Resource, Clone)]
pub struct Origin {
    pub scenario: Arc<LoadedScenario>,
    pub rules: LoadedRules,
}

impl Origin {
    /// How many sides its battle has.
    pub fn sides(&self) -> usize {
        self.scenario.scenario.sides.len()
    }

    /// Whether this is the origin of a battle of `scenario` under `rules`.
    pub fn is(&self, scenario: &LoadedScenario, rules: &LoadedRules) -> bool {
        Arc::ptr_eq(&self.rules, rules) && self.scenario.source.text == scenario.source.text
    }
}

/// Say in `world` what its battle is built from (once: a batch's later
/// battles keep it).
pub(crate) fn set_origin(world: &mut World, scenario: &LoadedScenario, rules: &LoadedRules) {
    if world
        .get_resource::<Origin>()
        .is_some_and(|o| o.is(scenario, rules))
    {
        return;
    }
    world.insert_resource(Origin {
        scenario: Arc::new(scenario.clone()),
        rules: rules.clone(),
    });
    world
        .get_resource_or_init::<fray_core::fork::ForkRegistry>()
        .set_up::<Origin>();
}

/// Fork the battle in `world`: the same battle built afresh, with the state
/// of `world` copied in, the AI on every side and its own controllers; its
/// log kept (a copy) or only counted. Its dice go on from the same point:
/// reseed them for a future of its own. A fork taken while a controller
/// decides lacks the decision lent to it (`Decisions::lend`): give it back
/// in the fork (`Decisions::give_back`).
pub fn fork(world: &World, keep_log: bool) -> Result<Battle, String> {
    let origin = world
        .get_resource::<Origin>()
        .ok_or("cannot fork the battle: it does not say what it was built from")?
        .clone();
    // Its futures are played by the basic AI on every side.
    let sides = origin.sides();
    let options = BattleOptions {
        keep_log,
        all_ai: true,
        ai: vec![crate::AiLevel::Basic; sides],
        ..BattleOptions::default()
    };
    let mut battle =
        build_battle(&origin.scenario, &origin.rules, &options).map_err(|e| e.to_string())?;
    fray_core::fork::copy_state(world, battle.world_mut(), keep_log).map_err(|e| e.to_string())?;
    Ok(battle)
}

/// Fork the battle in `world` into `into`, an earlier fork of the same
/// battle: only the state is copied, the cheap way to play many futures
/// from one moment.
pub fn fork_into(world: &World, into: &mut Battle, keep_log: bool) -> Result<(), String> {
    let same = match (
        world.get_resource::<Origin>(),
        into.world().get_resource::<Origin>(),
    ) {
        (Some(a), Some(b)) => a.is(&b.scenario, &b.rules),
        _ => false,
    };
    if !same {
        return Err("cannot fork into a battle of another scenario".into());
    }
    into.forked();
    fray_core::fork::copy_state(world, into.world_mut(), keep_log).map_err(|e| e.to_string())
}
