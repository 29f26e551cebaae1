//! Components and resources every ruleset shares: who is in the battle, on
//! which side, where, and whether they still fight.

use bevy_ecs::prelude::*;
use serde::{Deserialize, Serialize};

/// Index of a side in the scenario's list of sides.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Side(pub usize);

/// A combatant's name and its place in the scenario's listing, which fixes
/// every "in listing order" tie-break.
#[derive(Component, Clone, Debug)]
pub struct Combatant {
    pub name: String,
    pub listing: u32,
}

/// Where `e` stands in the scenario's listing (after everyone when it is
/// not listed): what is revealed together is told in this order, never in
/// the order it was written.
pub fn listing(world: &World, e: Entity) -> u32 {
    world.get::<Combatant>(e).map_or(u32::MAX, |c| c.listing)
}

/// Every combatant of a battle by entity and name, in listing order. Rules
/// iterate this rather than queries, so that the order never depends on how
/// the world stores its entities. A name is found by its entity, and an
/// entity by its name, without a pass over everyone (a field of a thousand
/// asks thousands of times a round).
#[derive(Clone, Debug, Default)]
pub struct Roster {
    list: Vec<(Entity, String)>,
    /// Each combatant's place in `list`, by its entity's index.
    by_entity: Vec<u32>,
    /// The places in `list` in the order of their names, the first listed
    /// first among equal names.
    by_name: Vec<u32>,
}

/// No place in the roster.
const UNLISTED: u32 = u32::MAX;

impl Roster {
    /// The roster of these combatants, in this order.
    pub fn new(list: Vec<(Entity, String)>) -> Self {
        let mut roster = Self::default();
        for c in list {
            roster.push(c);
        }
        roster
    }

    /// A combatant joining the battle, listed last.
    pub fn push(&mut self, (e, name): (Entity, String)) {
        let place = self.list.len() as u32;
        let i = e.index_u32() as usize;
        if self.by_entity.len() <= i {
            self.by_entity.resize(i + 1, UNLISTED);
        }
        if self.by_entity[i] == UNLISTED {
            self.by_entity[i] = place;
        }
        // After every place already under the same name.
        let at = self
            .by_name
            .partition_point(|&p| self.list[p as usize].1.as_str() <= name.as_str());
        self.by_name.insert(at, place);
        self.list.push((e, name));
    }

    /// The combatant called `name`.
    pub fn entity(&self, name: &str) -> Option<Entity> {
        let i = self
            .by_name
            .partition_point(|&p| self.list[p as usize].1.as_str() < name);
        let (e, n) = &self.list[*self.by_name.get(i)? as usize];
        (n == name).then_some(*e)
    }

    /// The name of `e` ("?" for anyone not in the battle).
    pub fn name(&self, e: Entity) -> &str {
        self.by_entity
            .get(e.index_u32() as usize)
            .and_then(|&p| self.list.get(p as usize))
            .filter(|(x, _)| *x == e)
            .map_or("?", |(_, n)| n.as_str())
    }

    /// The combatant an order names as its target, or why there is none.
    pub fn target_of(&self, order: &crate::decision::Order) -> Result<Entity, String> {
        let name = order
            .target
            .as_deref()
            .ok_or_else(|| format!("{} needs a target", order.action))?;
        self.entity(name)
            .ok_or_else(|| format!("nobody is called {name:?}"))
    }

    /// Every combatant, in listing order.
    pub fn entities(&self) -> Vec<Entity> {
        self.each().collect()
    }

    /// [`Roster::entities`], without a list made of them.
    pub fn each(&self) -> impl Iterator<Item = Entity> + '_ {
        self.list.iter().map(|(e, _)| *e)
    }
}

/// A ruleset's state that keeps the battle's roster: names by entity and
/// entities by name, for every ruleset alike.
pub trait Rostered {
    fn roster(&self) -> &Roster;

    /// The combatant called `name`.
    fn entity(&self, name: &str) -> Option<Entity> {
        self.roster().entity(name)
    }

    /// The name of `e` ("?" for anyone not in the battle).
    fn name(&self, e: Entity) -> &str {
        self.roster().name(e)
    }
}

impl std::ops::Deref for Roster {
    type Target = Vec<(Entity, String)>;
    fn deref(&self) -> &Self::Target {
        &self.list
    }
}

impl<'a> IntoIterator for &'a Roster {
    type Item = &'a (Entity, String);
    type IntoIter = std::slice::Iter<'a, (Entity, String)>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.iter()
    }
}

/// The furthest a pool of points goes either way: far past any point where
/// the rules call a creature dead, and far enough from the limits of an
/// `i32` that the rules may still add to it, or double it, without wrapping.
pub const POOL_LIMIT: i32 = 1_000_000_000;

/// Declares a pool of points with a maximum, a component (Stress, Wound
/// Points, STUN, BODY, EN, BD...): `pool!(/** 002 §STUN */ Stun);`.
#[macro_export]
macro_rules! pool {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(bevy_ecs::component::Component, Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $name {
            pub current: i32,
            pub max: i32,
        }

        impl $name {
            /// Full: `n` of `n`.
            pub fn full(n: i32) -> Self {
                Self { current: n, max: n }
            }

            /// Lose `n` points, never past `fray_core::model::POOL_LIMIT`:
            /// blows that land together keep landing on one already down.
            pub fn lose(&mut self, n: i32) {
                let limit = $crate::model::POOL_LIMIT;
                self.current = self.current.saturating_sub(n).clamp(-limit, limit);
            }

            /// Its bar on a token and in the tracker.
            pub fn bar(&self, label: &'static str) -> $crate::view::Bar {
                $crate::view::Bar::new(label, self.current, self.max)
            }
        }
    };
}

/// Present while the combatant still counts toward its side fighting on.
/// A side with no `Fighting` combatant is out of the battle.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct Fighting;

/// Stands in its cell, alive or fallen: nobody moves into or through it.
/// Every combatant starts with it; a ruleset removes it only where its text
/// clears the cell (the fled are gone; under `declared` the dead are
/// stepped over).
#[derive(Component, Clone, Copy, Debug, Default)]
#[component(
    on_insert = crate::occupancy::blocking_set,
    on_discard = crate::occupancy::blocking_gone
)]
pub struct Blocking;

/// A query kept with the world, for rules that read many combatants from
/// `&World` over and over: each look brings it up to date with the kinds of
/// entity made since, rather than building it afresh, and finds an entity's
/// components by where it is stored rather than by their types. Each kind
/// kept is set up with `init_resource` where the app is built (the battle's
/// own in `rules_app`, a ruleset's in its plugin) and registered with the
/// fork as set up.
#[derive(Resource)]
pub struct KeptQuery<D, F = ()>(std::sync::Mutex<QueryState<D, F>>)
where
    D: bevy_ecs::query::ReadOnlyQueryData + 'static,
    F: bevy_ecs::query::QueryFilter + 'static;

impl<D, F> FromWorld for KeptQuery<D, F>
where
    D: bevy_ecs::query::ReadOnlyQueryData + 'static,
    F: bevy_ecs::query::QueryFilter + 'static,
{
    fn from_world(world: &mut World) -> Self {
        Self(std::sync::Mutex::new(QueryState::new(world)))
    }
}

impl<D, F> KeptQuery<D, F>
where
    D: bevy_ecs::query::ReadOnlyQueryData + 'static,
    F: bevy_ecs::query::QueryFilter + 'static,
{
    /// Look through the query kept in `world`, brought up to date first.
    /// A world that keeps none of this kind, or a look from inside another
    /// of the same kind, gets a query built for the while; `None` only if
    /// the world has never heard of the components asked for (then nobody
    /// has them).
    pub fn look<R>(world: &World, f: impl FnOnce(&QueryState<D, F>) -> R) -> Option<R> {
        use std::sync::TryLockError;
        let kept = world.get_resource::<Self>().map(|k| k.0.try_lock());
        let mut query = match kept {
            Some(Ok(query)) => query,
            Some(Err(TryLockError::Poisoned(poisoned))) => poisoned.into_inner(),
            Some(Err(TryLockError::WouldBlock)) | None => {
                return world.try_query_filtered::<D, F>().map(|q| f(&q));
            }
        };
        query.update_archetypes(world);
        Some(f(&query))
    }
}

/// Who blocks: each combatant [`Blocking`], and its cell.
pub type BlockingQuery = KeptQuery<(Entity, &'static crate::grid::Cell), With<Blocking>>;

/// Every combatant as a rule that looks over everyone reads it first, in
/// one pass over where they are stored: its entity, its name and place in
/// the listing (to put what the pass keeps in listing order after), its
/// side, its cell, and whether it still fights.
pub type ListedQuery = KeptQuery<Listed>;

/// What [`ListedQuery`] reads of each combatant.
pub type Listed = (
    Entity,
    &'static Combatant,
    &'static Side,
    &'static crate::grid::Cell,
    Has<Fighting>,
);

/// The one rule for who blocks a cell: the cells of every combatant that is
/// [`Blocking`], but for `except`'s own. Read from the grid index of who
/// stands where ([`crate::occupancy`]); a world that keeps none is looked
/// over in one pass over the blocking combatants' cells.
pub fn taken_cells(world: &World, except: Entity) -> crate::grid::CellSet {
    let grid = world.resource::<crate::grid::Grid>();
    if let Some(occupancy) = world.get_resource::<crate::occupancy::Occupancy>() {
        return occupancy.taken(grid, except);
    }
    let mut taken = crate::grid::CellSet::new(grid);
    let mut add = |(e, c): (Entity, &crate::grid::Cell)| {
        if e != except {
            taken.insert(*c);
        }
    };
    BlockingQuery::look(world, |blocking| {
        blocking.iter_manual(world).for_each(&mut add);
    });
    taken
}

/// Who plays a side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Seat {
    /// A person at this screen.
    Human,
    /// The computer.
    #[default]
    Ai,
    /// The scenario's scripted orders, then the computer when they run out.
    Script,
}

/// A side as the battle knows it.
#[derive(Clone, Debug)]
pub struct SideInfo {
    pub name: String,
    pub seat: Seat,
    /// Who goes on for a scripted side once its orders run out.
    pub after_script: crate::scenario::AfterScript,
    /// Whether this side's creatures take morale checks (the texts' "monsters").
    pub morale: bool,
}

impl SideInfo {
    /// Whether a person plays this side: seated so, or going on after its
    /// script.
    pub fn played_by_person(&self) -> bool {
        match self.seat {
            Seat::Human => true,
            Seat::Script => self.after_script == crate::scenario::AfterScript::Person,
            _ => false,
        }
    }
}

/// The sides of the battle, in the scenario's order.
#[derive(Resource, Clone, Debug, Default)]
pub struct Sides(pub Vec<SideInfo>);

impl Sides {
    pub fn name(&self, side: Side) -> &str {
        self.0.get(side.0).map_or("?", |s| s.name.as_str())
    }
}

/// How a battle ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum BattleResult {
    /// One side is left fighting; the others were defeated, ran or surrendered.
    Victory { side: usize, rounds: u32 },
    /// Nobody is left fighting.
    MutualDestruction { rounds: u32 },
    /// The round cap came first.
    RoundCap { rounds: u32 },
}

impl BattleResult {
    pub fn rounds(&self) -> u32 {
        match *self {
            Self::Victory { rounds, .. }
            | Self::MutualDestruction { rounds }
            | Self::RoundCap { rounds } => rounds,
        }
    }

    pub fn winner(&self) -> Option<usize> {
        match *self {
            Self::Victory { side, .. } => Some(side),
            _ => None,
        }
    }
}

/// Set by the rules when the battle is over.
#[derive(Resource, Clone, Debug, Default)]
pub struct Outcome(pub Option<BattleResult>);

/// The round cap the scenario set.
#[derive(Resource, Clone, Copy, Debug)]
pub struct RoundCap(pub u32);

/// Install what every ruleset takes from a scenario: the grid, the sides and
/// the round cap.
pub fn install_battlefield(world: &mut World, scenario: &crate::scenario::LoadedScenario) {
    let s = &scenario.scenario;
    set_resource(world, scenario.grid());
    crate::occupancy::fit(world);
    set_resource(
        world,
        Sides(
            s.sides
                .iter()
                .map(|side| SideInfo {
                    name: side.name.clone(),
                    seat: side.seat,
                    after_script: side.after_script,
                    morale: side.morale,
                })
                .collect(),
        ),
    );
    set_resource(world, RoundCap(s.round_cap));
}

/// What every ruleset's combatant is: its name and place in the listing,
/// its side, its cell, and that it fights. A ruleset spawns this with its
/// own components.
pub fn combatant(
    scenario: &crate::scenario::LoadedScenario,
    spec: &crate::scenario::CombatantSpec,
    listing: u32,
) -> impl Bundle {
    (
        Combatant {
            name: spec.name.clone(),
            listing,
        },
        Side(scenario.side_index(&spec.side).unwrap_or(0)),
        spec.at,
        Fighting,
        Blocking,
    )
}

/// Entities of an earlier battle of a batch, cleared, for the next
/// battle's combatants: reusing them, in order, gives every combatant the
/// id it would have in a battle built afresh, which forking relies on.
#[derive(Resource, Debug, Default, Clone)]
pub struct Spare(pub std::collections::VecDeque<Entity>);

/// Spawn a combatant: on a spare entity if there is one, else a new one.
pub fn spawn_combatant(
    world: &mut World,
    bundle: impl Bundle,
) -> bevy_ecs::world::EntityWorldMut<'_> {
    let spare = world
        .get_resource_mut::<Spare>()
        .and_then(|mut s| s.0.pop_front());
    match spare {
        Some(e) => {
            let mut e = world.entity_mut(e);
            e.insert(bundle);
            e
        }
        None => world.spawn(bundle),
    }
}

/// Clear every combatant for the next battle of a batch, keeping their
/// entities spare.
pub fn clear_combatants(world: &mut World) {
    let all: Vec<Entity> =
        crate::fork::CombatantQuery::look(world, |q| q.iter_manual(world).collect())
            .unwrap_or_default();
    for &e in &all {
        world.entity_mut(e).clear();
    }
    let mut spare = world.get_resource_or_init::<Spare>();
    spare.0.extend(all);
    // In the order a battle built afresh would have spawned them.
    spare
        .0
        .make_contiguous()
        .sort_unstable_by_key(|e| e.index());
}

/// Spawn the scenario's combatants in listing order, each the
/// [`combatant`] bundle with what `own` (the ruleset) adds; their roster.
pub fn spawn_combatants(
    world: &mut World,
    scenario: &crate::scenario::LoadedScenario,
    mut own: impl FnMut(
        &crate::scenario::CombatantSpec,
        &mut bevy_ecs::world::EntityWorldMut,
    ) -> Result<(), crate::data::LoadError>,
) -> Result<Roster, crate::data::LoadError> {
    let mut roster = Vec::new();
    for (i, spec) in scenario.scenario.combatants.iter().enumerate() {
        let mut e = spawn_combatant(world, combatant(scenario, spec, i as u32));
        own(spec, &mut e)?;
        roster.push((e.id(), spec.name.clone()));
    }
    Ok(Roster::new(roster))
}

/// Every combatant in the world, in listing order (a batch clears these
/// between battles).
pub fn combatants(world: &mut World) -> Vec<Entity> {
    let mut all: Vec<(u32, Entity)> = world
        .query::<(Entity, &Combatant)>()
        .iter(world)
        .map(|(e, c)| (c.listing, e))
        .collect();
    all.sort_unstable();
    all.into_iter().map(|(_, e)| e).collect()
}

/// Who fights on which side: what the end-of-battle check reads of each
/// combatant, kept with the world.
pub type StandingQuery = KeptQuery<(&'static Side, Has<Fighting>)>;

/// The side of each combatant of `roster` still `Fighting`, in the
/// roster's order, until `f` says enough.
pub fn each_fighting_side(
    world: &World,
    roster: impl IntoIterator<Item = Entity>,
    mut f: impl FnMut(usize) -> std::ops::ControlFlow<()>,
) {
    StandingQuery::look(world, |standing| {
        for e in roster {
            if let Ok((side, true)) = standing.get_manual(world, e)
                && f(side.0).is_break()
            {
                return;
            }
        }
    });
}

/// The sides that still have someone `Fighting` among `roster`, in order.
pub fn sides_standing(world: &World, roster: impl IntoIterator<Item = Entity>) -> Vec<usize> {
    let mut sides: Vec<usize> = Vec::new();
    each_fighting_side(world, roster, |s| {
        sides.push(s);
        std::ops::ControlFlow::Continue(())
    });
    sides.sort_unstable();
    sides.dedup();
    sides
}

/// The end-of-battle check every ruleset shares: once at most one side has
/// anyone `Fighting` among `roster`, the result after `rounds` — a victory
/// for the side left, or nobody's. The look stops at the first combatant
/// of a second side still fighting.
pub fn decided(
    world: &World,
    roster: impl IntoIterator<Item = Entity>,
    rounds: u32,
) -> Option<BattleResult> {
    let (mut first, mut second) = (None, false);
    each_fighting_side(world, roster, |s| match first {
        None => {
            first = Some(s);
            std::ops::ControlFlow::Continue(())
        }
        Some(f) if f == s => std::ops::ControlFlow::Continue(()),
        Some(_) => {
            second = true;
            std::ops::ControlFlow::Break(())
        }
    });
    match (first, second) {
        (_, true) => None,
        (None, _) => Some(BattleResult::MutualDestruction { rounds }),
        (Some(side), _) => Some(BattleResult::Victory { side, rounds }),
    }
}

/// Combatant `e` is out of the fight: it takes `state` (its ruleset's
/// condition), no longer counts toward its side fighting on, and the log
/// says so under `rule` in the words `text` gives its name.
pub fn out_of_the_fight(
    world: &mut World,
    e: Entity,
    state: impl Bundle,
    rule: &'static str,
    text: impl FnOnce(&str) -> String,
) {
    world.entity_mut(e).insert(state).remove::<Fighting>();
    let who = name(world, e);
    crate::log::record(world, || {
        crate::log::Event::new(crate::log::EventKind::Health, rule, text(&who)).actor(&who)
    });
}

/// How a ruleset words the end of a battle: the rule it ends by, and the
/// sentence after `rounds` for the side left standing (`Some`) or for
/// nobody (`None`).
pub struct Ending {
    pub rule: &'static str,
    pub words: fn(Option<&str>, u32) -> String,
}

/// End the battle once it is [`decided`], in the ruleset's words. Returns
/// whether it ended.
pub fn end_when_decided(
    world: &mut World,
    roster: impl IntoIterator<Item = Entity>,
    rounds: u32,
    ending: Ending,
) -> bool {
    let Some(result) = decided(world, roster, rounds) else {
        return false;
    };
    let side = result
        .winner()
        .map(|s| world.resource::<Sides>().name(Side(s)).to_string());
    let text = (ending.words)(side.as_deref(), rounds);
    end_battle(world, result, || {
        crate::log::Event::new(crate::log::EventKind::End, ending.rule, text)
    });
    true
}

/// The end-of-battle check as a ruleset's last stage: once the battle has
/// `started`, end it when it is [`decided`], in the ruleset's words. True
/// when it ended now.
pub fn ended_now(
    world: &mut World,
    started: bool,
    roster: impl IntoIterator<Item = Entity>,
    rounds: u32,
    ending: Ending,
) -> bool {
    if !started || world.resource::<Outcome>().0.is_some() {
        return false;
    }
    end_when_decided(world, roster, rounds, ending)
}

/// End the battle with `result`: log `event`, close every decision and set
/// the outcome.
pub fn end_battle(
    world: &mut World,
    result: BattleResult,
    event: impl FnOnce() -> crate::log::Event,
) {
    crate::log::record(world, event);
    world
        .resource_mut::<crate::decision::Decisions>()
        .close_all();
    world.resource_mut::<Outcome>().0 = Some(result);
}

/// The scenario's round cap: once `rounds` (in the ruleset's own unit)
/// reach it, the battle ends with no winner, logged citing `rule` in the
/// `words` made from the cap. Whether it ended.
pub fn at_round_cap(
    world: &mut World,
    rounds: u32,
    rule: &'static str,
    words: impl FnOnce(u32) -> String,
) -> bool {
    let cap = world.resource::<RoundCap>().0;
    if rounds < cap {
        return false;
    }
    end_battle(world, BattleResult::RoundCap { rounds }, || {
        crate::log::Event::new(crate::log::EventKind::End, rule, words(cap))
    });
    true
}

/// `n` of a `unit` in words: "1 round", "3 rounds".
pub fn count_of(n: u32, unit: &str) -> String {
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{n} {unit}s")
    }
}

/// How the classic texts' battles end at the round cap.
pub fn no_winner(cap: u32) -> String {
    format!("The round cap of {cap} is reached; the fighting stops with no winner.")
}

/// The components `Q` of entity `e`, or `None` if it lacks any of them:
/// `components::<(&Stats, &Cell)>(world, e)`. Also `None` when `Q` names a
/// component the world has never registered (nobody has had it yet), even
/// as `Option<&T>` or `Has<T>`: read such a component on its own, with
/// `get` or `contains`.
pub fn components<'w, Q>(world: &'w World, e: Entity) -> Option<Q::Item<'w, 'static>>
where
    Q: bevy_ecs::query::ReadOnlyQueryData
        + bevy_ecs::query::ReleaseStateQueryData
        + bevy_ecs::query::SingleEntityQueryData,
{
    world.get_entity(e).ok()?.get_components::<Q>().ok()
}

/// Whether `a` and `b` fight on different sides.
pub fn enemies(world: &World, a: Entity, b: Entity) -> bool {
    enemies_of(world, a)(b)
}

/// Whether each one asked about fights on another side than `e`, as
/// [`enemies`] says, `e`'s side read once for all of them.
pub fn enemies_of(world: &World, e: Entity) -> impl Fn(Entity) -> bool + '_ {
    let mine = world.get::<Side>(e).copied();
    move |x| match (mine, world.get::<Side>(x)) {
        (Some(a), Some(&b)) => a != b,
        _ => false,
    }
}

/// The name of combatant `e` ("?" for anything else).
pub fn name(world: &World, e: Entity) -> String {
    world
        .get::<Combatant>(e)
        .map_or_else(|| "?".to_string(), |c| c.name.clone())
}

/// Set a resource: overwrite it in place if present, insert it otherwise.
/// A batch of battles resets its world this way between battles.
pub fn set_resource<
    R: Resource + bevy_ecs::component::Component<Mutability = bevy_ecs::component::Mutable>,
>(
    world: &mut World,
    value: R,
) {
    match world.get_resource_mut::<R>() {
        Some(mut r) => *r = value,
        None => world.insert_resource(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Cell;

    fn two_sides() -> World {
        let mut world = World::new();
        world.init_resource::<ListedQuery>();
        for (n, side) in [(0, 0), (1, 1)] {
            world.spawn((
                Combatant {
                    name: format!("c{n}"),
                    listing: n,
                },
                Side(side),
                Cell::new(n as i32, 0),
                Fighting,
            ));
        }
        world
    }

    /// The battle is decided once at most one side has anyone fighting:
    /// a victory for that side, or nobody's; a third combatant of the
    /// first side, listed between, changes nothing.
    #[test]
    fn the_battle_is_decided_when_one_side_or_none_fights_on() {
        let mut world = two_sides();
        world.init_resource::<StandingQuery>();
        let third = Combatant {
            name: "c2".into(),
            listing: 2,
        };
        world.spawn((third, Side(0), Fighting));
        let listed = combatants(&mut world);
        let roster = vec![listed[0], listed[2], listed[1]];
        assert_eq!(decided(&world, roster.clone(), 3), None);
        assert_eq!(sides_standing(&world, roster.clone()), vec![0, 1]);
        world.entity_mut(roster[2]).remove::<Fighting>();
        assert_eq!(
            decided(&world, roster.clone(), 3),
            Some(BattleResult::Victory { side: 0, rounds: 3 })
        );
        assert_eq!(sides_standing(&world, roster.clone()), vec![0]);
        for &e in &roster {
            world.entity_mut(e).remove::<Fighting>();
        }
        assert_eq!(
            decided(&world, roster.clone(), 4),
            Some(BattleResult::MutualDestruction { rounds: 4 })
        );
        assert!(sides_standing(&world, roster).is_empty());
    }

    /// A look from inside another of the same kind gets a query of its own
    /// rather than waiting on the first for ever; so does a world that
    /// keeps none.
    #[test]
    fn a_kept_query_looked_through_twice_at_once_answers_both() {
        let world = two_sides();
        let counted = ListedQuery::look(&world, |outer| {
            let inner = ListedQuery::look(&world, |inner| inner.iter_manual(&world).count());
            (outer.iter_manual(&world).count(), inner)
        });
        assert_eq!(counted, Some((2, Some(2))));
        let mut bare = two_sides();
        bare.remove_resource::<ListedQuery>();
        assert_eq!(
            ListedQuery::look(&bare, |q| q.iter_manual(&bare).count()),
            Some(2)
        );
    }

    /// A roster finds names by entity and entities by name as a pass in
    /// listing order would: the first listed of two of one name, "?" for
    /// an entity it does not list, and newcomers pushed later alike.
    #[test]
    fn a_roster_finds_whom_a_pass_in_listing_order_finds() {
        let mut world = World::new();
        let e: Vec<Entity> = (0..5).map(|_| world.spawn_empty().id()).collect();
        let names = ["Mara", "Ash", "Ash", "Zed"];
        let mut roster = Roster::new(vec![
            (e[3], names[0].into()),
            (e[1], names[1].into()),
            (e[0], names[2].into()),
        ]);
        roster.push((e[2], names[3].into()));
        let listed: Vec<Entity> = roster.iter().map(|(x, _)| *x).collect();
        assert_eq!(listed, vec![e[3], e[1], e[0], e[2]]);
        assert_eq!(roster.entity("Ash"), Some(e[1]), "the first listed");
        assert_eq!(roster.entity("Zed"), Some(e[2]));
        assert_eq!(roster.entity("Mara"), Some(e[3]));
        assert_eq!(roster.entity("Bob"), None);
        assert_eq!(roster.entity(""), None);
        assert_eq!(roster.name(e[0]), "Ash");
        assert_eq!(roster.name(e[2]), "Zed");
        assert_eq!(roster.name(e[4]), "?", "spawned but not listed");
    }
}
