//! Forking a battle: the state of one world copied into another built the
//! same way, so that the copy plays on without touching the original (the
//! searching AI plays futures on forks; rewinding could too).
//!
//! Every type of state a ruleset keeps is registered once, with the
//! [`fork_state!`](crate::fork_state) macro, as copied (it changes during a
//! battle) or as set up (populating the world sets it and nothing changes
//! it). A fork refuses a world holding state of a type registered as
//! neither, so a new component cannot be forgotten silently.
//!
//! Both worlds must have been built the same way (same scenario, same
//! ruleset data, same order of setting up), so that every entity has the
//! same id in both: the entities a battle spawns after it is set up are
//! spawned in the fork in the same order.

use std::any::TypeId;
use std::collections::{HashMap, HashSet};

use bevy_app::App;
use bevy_ecs::archetype::ArchetypeId;
use bevy_ecs::component::{ComponentId, Mutable};
use bevy_ecs::prelude::*;
use bevy_platform::hash::NoOpHash;

/// Copy one component of an entity from one world to the other.
type CopyComponent = fn(&EntityRef, &mut EntityWorldMut);
/// Take one component off an entity.
type RemoveComponent = fn(&mut EntityWorldMut);
/// Copy one resource from one world to the other.
type CopyResource = fn(&World, &mut World);

/// A type's id is a hash already: looked up as it is.
type ByType<V> = HashMap<TypeId, V, NoOpHash>;

/// How each registered type of state is carried into a fork.
#[derive(Resource, Default, Clone)]
pub struct ForkRegistry {
    components: ByType<(CopyComponent, RemoveComponent)>,
    resources: ByType<CopyResource>,
    /// Resources set when the battle is set up and never changed after,
    /// or kept by the world itself from what is copied (an index).
    set_up: HashSet<TypeId, NoOpHash>,
}

/// Why a world could not be forked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForkError(pub String);

impl std::fmt::Display for ForkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot fork the battle: {}", self.0)
    }
}

/// A component the fork already has is overwritten in place: no insertion,
/// and what its value holds is reused where it can be.
fn copy_component<T: Component<Mutability = Mutable> + Clone>(
    from: &EntityRef,
    to: &mut EntityWorldMut,
) {
    let Some(value) = from.get::<T>() else {
        return;
    };
    match to.get_mut::<T>() {
        Some(mut there) => there.bypass_change_detection().clone_from(value),
        None => {
            to.insert(value.clone());
        }
    }
}

/// A component only ever replaced is replaced in the fork too, where it
/// differs, so that the hooks watching it see the change.
fn replace_component<T: Component + Clone + PartialEq>(from: &EntityRef, to: &mut EntityWorldMut) {
    let Some(value) = from.get::<T>() else {
        return;
    };
    if to.get::<T>() != Some(value) {
        to.insert(value.clone());
    }
}

fn remove_component<T: Component>(to: &mut EntityWorldMut) {
    to.remove::<T>();
}

/// A resource the fork already has is overwritten in place (nothing
/// watches a resource change), its value's room reused where it can be.
fn copy_resource<R: Resource<Mutability = Mutable> + Clone>(from: &World, to: &mut World) {
    let Some(value) = from.get_resource::<R>() else {
        return;
    };
    match to.get_resource_mut::<R>() {
        Some(mut there) => there.bypass_change_detection().clone_from(value),
        None => to.insert_resource(value.clone()),
    }
}

impl ForkRegistry {
    /// Copy `T`, a component whose value changes during a battle.
    pub fn component<T: Component<Mutability = Mutable> + Clone>(&mut self) -> &mut Self {
        self.components.insert(
            TypeId::of::<T>(),
            (copy_component::<T>, remove_component::<T>),
        );
        self
    }

    /// Copy `T`, an immutable component (replaced, never changed in place).
    pub fn replaced<T: Component + Clone + PartialEq>(&mut self) -> &mut Self {
        self.components.insert(
            TypeId::of::<T>(),
            (replace_component::<T>, remove_component::<T>),
        );
        self
    }

    /// Copy `R`, a resource whose value changes during a battle.
    pub fn resource<R: Resource<Mutability = Mutable> + Clone>(&mut self) -> &mut Self {
        self.resources.insert(TypeId::of::<R>(), copy_resource::<R>);
        self
    }

    /// `R` is set when the battle is set up and never changed: a fork built
    /// the same way has it already.
    pub fn set_up<R: Resource>(&mut self) -> &mut Self {
        self.set_up.insert(TypeId::of::<R>());
        self
    }
}

/// Register types of state with the app's [`ForkRegistry`]:
///
/// ```text
/// fork_state!(app, components: [Stats, Kit], resources: [Flow], set_up: [Data]);
/// ```
#[macro_export]
macro_rules! fork_state {
    ($app:expr, components: [$($c:ty),* $(,)?], resources: [$($r:ty),* $(,)?], set_up: [$($s:ty),* $(,)?] $(,)?) => {{
        let registry = &mut *$app
            .world_mut()
            .get_resource_or_init::<$crate::fork::ForkRegistry>();
        $(registry.component::<$c>();)*
        $(registry.resource::<$r>();)*
        $(registry.set_up::<$s>();)*
    }};
}

/// Register the state every battle has, whatever its ruleset.
pub fn plugin(app: &mut App) {
    crate::fork_state!(app,
        components: [
            crate::model::Combatant,
            crate::model::Side,
            crate::model::Fighting,
            crate::model::Blocking,
            crate::morale::Routed,
            crate::casting::Casting,
            crate::casting::Memorised,
            crate::casting::Disrupted,
        ],
        resources: [crate::dice::Dice, crate::model::Outcome],
        set_up: [
            ForkRegistry,
            // Copied on their own: kept or only counted, as the fork asks.
            crate::log::BattleLog,
            crate::decision::Decisions,
            crate::grid::Grid,
            crate::model::Sides,
            crate::model::RoundCap,
            // Kept by the fork's own hooks, from the cells copied in.
            crate::occupancy::Occupancy,
            // Which ids later spawns take: the fork's own.
            crate::model::Spare,
            crate::view::RulesView,
            crate::ai::AiHooks,
            crate::casting::Spoiling,
            crate::model::BlockingQuery,
            crate::model::ListedQuery,
            crate::model::StandingQuery,
            CombatantQuery,
        ],
    );
    app.world_mut()
        .resource_mut::<ForkRegistry>()
        .replaced::<crate::grid::Cell>();
}

/// Count the resources a bare app already has (the engine's own:
/// schedules and the like) as set up, not state of the battle.
pub fn engine_state(world: &mut World) {
    let ids: Vec<TypeId> = world
        .resource_entities()
        .iter()
        .filter_map(|(id, _)| world.components().get_info(id).and_then(|i| i.type_id()))
        .collect();
    world
        .get_resource_or_init::<ForkRegistry>()
        .set_up
        .extend(ids);
}

/// The name of a component or resource type, for a message (the engine
/// keeps names only in its debug build).
fn type_name(world: &World, id: bevy_ecs::component::ComponentId) -> String {
    match world
        .components()
        .get_info(id)
        .map(|i| format!("{}", i.name()))
    {
        Some(name) if !name.contains("debug feature") => name,
        _ => format!("number {}", id.index()),
    }
}

/// Every combatant's entity, kept for forks (a `Combatant` may lack the
/// cell or side a rule's query asks for).
pub type CombatantQuery = crate::model::KeptQuery<Entity, With<crate::model::Combatant>>;

/// The combatants of `world`, by entity index.
fn combatant_entities(world: &World) -> Vec<Entity> {
    let mut all: Vec<Entity> =
        CombatantQuery::look(world, |q| q.iter_manual(world).collect()).unwrap_or_default();
    all.sort_unstable_by_key(|e| e.index());
    all
}

/// Copy the battle's state from `from` into `to`, a world built the same
/// way: every combatant's components (spawning, in order, the ones `from`
/// spawned after it was set up) and every resource registered as copied.
pub fn copy_state(from: &World, to: &mut World, keep_log: bool) -> Result<(), ForkError> {
    // Read in the original while the fork is written: two worlds.
    let registry = from
        .get_resource::<ForkRegistry>()
        .ok_or_else(|| ForkError("the battle registers no state".into()))?;
    let entities = combatant_entities(from);
    for g in combatant_entities(to) {
        let kept = entities
            .binary_search_by_key(&g.index(), |e| e.index())
            .is_ok_and(|at| entities[at] == g);
        if !kept {
            to.entity_mut(g).clear();
        }
    }
    // Entities stored alike are copied alike: what to copy is worked out
    // once for each way of storing them.
    let mut plans = Plans::default();
    for e in entities {
        spawn_alike(to, e)?;
        copy_entity(registry, &mut plans, from, e, to)?;
    }
    copy_resources(registry, from, to)?;
    let log = from.resource::<crate::log::BattleLog>();
    log.fork_into(
        keep_log,
        &mut to.get_resource_or_init::<crate::log::BattleLog>(),
    );
    let decisions = from.resource::<crate::decision::Decisions>();
    decisions.fork_into(
        keep_log,
        &mut to.get_resource_or_init::<crate::decision::Decisions>(),
    );
    Ok(())
}

/// Copy every resource registered as copied; refuse one registered as
/// neither copied nor set up.
fn copy_resources(registry: &ForkRegistry, from: &World, to: &mut World) -> Result<(), ForkError> {
    for (id, _) in from.resource_entities().iter() {
        let Some(type_id) = from.components().get_info(id).and_then(|i| i.type_id()) else {
            continue;
        };
        if let Some(copy) = registry.resources.get(&type_id) {
            copy(from, to);
        } else if !registry.set_up.contains(&type_id) {
            return Err(ForkError(format!(
                "the resource {} is not registered for forking (fork_state! in the ruleset's plugin)",
                type_name(from, id)
            )));
        }
    }
    Ok(())
}

/// Make sure `to` has entity `e`: an entity the original spawned after it
/// was set up is spawned in the fork in the same order, so it gets the
/// same id.
fn spawn_alike(to: &mut World, e: Entity) -> Result<(), ForkError> {
    if to.get_entity(e).is_ok() {
        return Ok(());
    }
    let spawned = to.spawn_empty().id();
    if spawned == e {
        Ok(())
    } else {
        Err(ForkError(format!(
            "the fork spawned {spawned} where the battle has {e}: the two were not built alike"
        )))
    }
}

/// What copying an entity takes, by how the original and the fork store
/// it: the components to copy, then those to take off the fork's.
#[derive(Default)]
struct Plans {
    copies: Vec<(ArchetypeId, Vec<CopyComponent>)>,
    removals: Vec<((ArchetypeId, ArchetypeId), Vec<RemoveComponent>)>,
}

/// The type of each component stored in archetype `id` of `world`.
fn stored_types(world: &World, id: ArchetypeId) -> Vec<(ComponentId, Option<TypeId>)> {
    world
        .archetypes()
        .get(id)
        .map(|a| {
            a.components()
                .iter()
                .map(|&c| (c, world.components().get_info(c).and_then(|i| i.type_id())))
                .collect()
        })
        .unwrap_or_default()
}

/// How to copy an entity stored in `from`'s archetype `id`.
fn copies(
    registry: &ForkRegistry,
    from: &World,
    id: ArchetypeId,
) -> Result<Vec<CopyComponent>, ForkError> {
    let mut out = Vec::new();
    for (c, type_id) in stored_types(from, id) {
        let Some(type_id) = type_id else { continue };
        match registry.components.get(&type_id) {
            Some((copy, _)) => out.push(*copy),
            None => {
                return Err(ForkError(format!(
                    "the component {} is not registered for forking (fork_state! in the ruleset's plugin)",
                    type_name(from, c)
                )));
            }
        }
    }
    Ok(out)
}

/// What to take off an entity the fork stores in `there`, the original
/// in `here`: the registered components it has there and not here.
fn removals(
    registry: &ForkRegistry,
    (from, here): (&World, ArchetypeId),
    (to, there): (&World, ArchetypeId),
) -> Vec<RemoveComponent> {
    let has: Vec<TypeId> = stored_types(from, here)
        .into_iter()
        .filter_map(|(_, t)| t)
        .collect();
    stored_types(to, there)
        .into_iter()
        .filter_map(|(_, t)| t)
        .filter(|t| !has.contains(t))
        .filter_map(|t| registry.components.get(&t).map(|(_, remove)| *remove))
        .collect()
}

/// Copy entity `e`'s registered components and take off those it lacks.
fn copy_entity(
    registry: &ForkRegistry,
    plans: &mut Plans,
    from: &World,
    e: Entity,
    to: &mut World,
) -> Result<(), ForkError> {
    let source = from.entity(e);
    let here = source.archetype().id();
    let at = match plans.copies.iter().position(|(a, _)| *a == here) {
        Some(at) => at,
        None => {
            plans.copies.push((here, copies(registry, from, here)?));
            plans.copies.len() - 1
        }
    };
    let mut there = to.entity_mut(e);
    for copy in &plans.copies[at].1 {
        copy(&source, &mut there);
    }
    let key = (here, there.archetype().id());
    let at = match plans.removals.iter().position(|(k, _)| *k == key) {
        Some(at) => at,
        None => {
            let remove = removals(registry, (from, here), (there.world(), key.1));
            plans.removals.push((key, remove));
            plans.removals.len() - 1
        }
    };
    for remove in &plans.removals[at].1 {
        remove(&mut there);
    }
    Ok(())
}
