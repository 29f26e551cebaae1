//! Orders: what a character may do on its turn under 003, checked when
//! taken, and offered to a person with the DM's warning (003 §Attacks Of
//! Opportunity: "the DM should announce that the character's intended
//! actions can or will have such consequences").

use bevy_ecs::prelude::*;
use fray_core::casting::Memorised;
use fray_core::decision::{Choice, Order};
use fray_core::grid::{Cell, Grid, GridGeometry};
use fray_core::movement::Provokes;
use fray_core::threat::Threatener;

use super::data::{Spell, Weapon};
use super::{
    Data, Flow, Kit, RoundState, Stats, Surprised, cell, enemies, enemies_of, name, roster, up,
};

/// An order as the rules take it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    /// Move up to the standard rate into reach, strike with every attack of
    /// the round (003 §III B), then move on toward `after` (003 §III D).
    Attack {
        target: Entity,
        after: Option<Cell>,
    },
    /// 003 §The 5' Step, then strike `target` if it is in reach.
    Step {
        to: Cell,
        target: Option<Entity>,
    },
    /// Move up to the standard rate.
    Move {
        to: Cell,
    },
    /// Move faster than the standard rate: no combat, no casting (003 §III D).
    Run {
        to: Cell,
    },
    /// Shoot or throw a missile, after moving to `from` if given, and
    /// before moving on to `after` if given, up to the standard rate in all
    /// (003 §III D).
    Fire {
        target: Entity,
        from: Option<Cell>,
        after: Option<Cell>,
    },
    /// Begin a spell (003 §II C), after moving to `from` if given, and
    /// before moving on to `after` once it goes off if given, up to the
    /// standard rate in all (003 §III D).
    Cast {
        spell: String,
        target: Entity,
        from: Option<Cell>,
        after: Option<Cell>,
    },
    /// Ready a missile for next round (003 §III A).
    Ready,
    /// Parry instead of attack (003 §Withdrawal Tactics).
    Parry,
    /// Fall back, fighting (003 §Withdrawal Tactics).
    FallBack {
        to: Cell,
        target: Option<Entity>,
    },
    Disengage,
    /// The disengaging move itself, after every count.
    Retreat,
    Flee,
    Surrender,
    Wait,
    /// Keep a readied missile for later in the round (003 §III A).
    Hold,
    /// A spell going off (003 §II C).
    Complete,
    /// The rest of a fall back once the opponents have chosen whether to
    /// follow (ruling `follow`): fight `target`, or one in reach, else
    /// parry. Never an order.
    FightOn {
        target: Option<Entity>,
        /// Whether it has been asked whom to fight instead (ruling
        /// `follow`).
        asked: bool,
    },
    /// The run of one fleeing, once those at its back have struck or let
    /// it go (003 §Withdrawal Tactics). Never an order.
    RunOff {
        cells: Vec<Cell>,
    },
    /// The run of one running from melee, once those at its back have
    /// struck or let it go (ruling `running_rate`). Never an order.
    RunOn {
        cells: Vec<Cell>,
    },
}

/// The melee weapon `e` wields, if any (none: unarmed).
pub fn melee_weapon(world: &World, e: Entity) -> Option<(String, Weapon)> {
    let kit = world.get::<Kit>(e)?;
    if kit.dropped {
        return None;
    }
    let data = &world.resource::<Data>().0;
    kit.weapons
        .iter()
        .filter_map(|w| data.weapons.get(w).map(|d| (w, d)))
        .find(|(_, d)| d.range == 0)
        .map(|(w, d)| (w.clone(), d.clone()))
}

/// The missile weapon `e` carries, if any.
pub fn missile_weapon(world: &World, e: Entity) -> Option<(String, Weapon)> {
    let kit = world.get::<Kit>(e)?;
    if kit.dropped {
        return None;
    }
    let data = &world.resource::<Data>().0;
    kit.weapons
        .iter()
        .filter_map(|w| data.weapons.get(w).map(|d| (w, d)))
        .find(|(_, d)| d.range > 0)
        .map(|(w, d)| (w.clone(), d.clone()))
}

/// Whether `e` acts in this round (not surprised in the surprise round).
pub fn acts(world: &World, e: Entity) -> bool {
    up(world, e)
        && !(world.resource::<Flow>().surprise_round && world.get::<Surprised>(e).is_some())
}

/// Enemies of `e` whose melee range covers cells (003 §III F), able to
/// react now: fighting, armed or not, acting this round.
pub fn threats(world: &World, e: Entity) -> Vec<Threatener> {
    let foe = enemies_of(world, e);
    // Who `acts`, the battle's state looked up once for all.
    let flow = world.resource::<Flow>();
    let acts = |x| up(world, x) && !(flow.surprise_round && world.get::<Surprised>(x).is_some());
    flow.roster
        .each()
        .filter(|&x| foe(x) && acts(x))
        .map(|x| Threatener {
            entity: x,
            cell: cell(world, x),
            reach: 1,
        })
        .collect()
}

/// `e`'s standard rate left this round: its movement less the squares it
/// moved following one who fell back (ruling `follow`), and, asked for
/// another order after its spell was spoiled, less its walk to cast.
pub fn rate_left(world: &World, e: Entity) -> u32 {
    let speed = world.get::<Stats>(e).map_or(0, |s| s.speed);
    let rs = world.get::<RoundState>(e);
    let followed = rs.map_or(0, |r| r.followed);
    let walked = if world.resource::<Flow>().instead.contains(&e) {
        rs.map_or(0, |r| r.walked)
    } else {
        0
    };
    speed.saturating_sub(followed + walked)
}

/// Whether `by` may still take an attack of opportunity (003 §III F:
/// generally one per round), not having given up its attacks for a parry
/// until its next turn (ruling `parry`).
pub fn may_take_opportunity(world: &World, by: Entity) -> bool {
    acts(world, by)
        && world
            .get::<RoundState>(by)
            .is_some_and(|r| !r.opportunity_used && !r.gave_up_combat && !r.parrying)
}

/// Ruling `disengage`: a monster does not press a player character who is
/// disengaging, from its disengaging until its next turn.
pub fn lets_disengage(world: &World, by: Entity, e: Entity) -> bool {
    let monster = |x| world.get::<super::Monster>(x).is_some();
    monster(by) && !monster(e) && world.get::<RoundState>(e).is_some_and(|r| r.disengaging)
}

/// Cells others stand in.
pub fn occupied(world: &World, e: Entity) -> fray_core::grid::CellSet {
    fray_core::model::taken_cells(world, e)
}

/// Cells where the fallen lie (ruling `fallen_bodies`): passed over, not
/// stood on.
pub fn bodies(world: &World, e: Entity) -> Vec<Cell> {
    FallenQuery::look(world, |fallen| {
        fallen
            .iter_manual(world)
            .filter(|&(x, _)| x != e)
            .map(|(_, &c)| c)
            .collect()
    })
    .unwrap_or_default()
}

/// Where the fallen lie, kept with the world: read as a set, in no order.
pub type FallenQuery = fray_core::model::KeptQuery<(Entity, &'static Cell), With<super::Down>>;

/// The path from `e` to within `within` of `goal`, and its cost: over the
/// fallen, never ending on one (ruling `fallen_bodies`).
pub fn path(world: &World, e: Entity, goal: Cell, within: u32) -> Option<(Vec<Cell>, u32)> {
    Ways::of(world, e).path(world.resource::<Grid>(), goal, within)
}

/// What `e`'s paths go round, looked at once for every path weighed: the
/// cells taken, where the fallen lie, and who could strike at a walk.
pub struct Ways {
    here: Cell,
    blocked: fray_core::grid::CellSet,
    lying: Vec<Cell>,
    /// The [`threats`] to `e` as they stand.
    pub able: Vec<Threatener>,
}

impl Ways {
    pub fn of(world: &World, e: Entity) -> Self {
        Self {
            here: cell(world, e),
            blocked: occupied(world, e),
            lying: bodies(world, e),
            able: threats(world, e),
        }
    }

    /// [`path`], as the field stood when these were looked at.
    pub fn path(&self, grid: &Grid, goal: Cell, within: u32) -> Option<(Vec<Cell>, u32)> {
        let first = self.first(grid, goal, within)?;
        // Ruling wary_way: of the shortest ways, one that draws the fewest
        // attacks of opportunity (003 §III F), as the board draws it; the
        // first shortest where that one would end on someone fallen. With
        // nobody fallen, the first shortest way is the one found already.
        let ends = (self.here, goal, within);
        let free = |c| self.blocked.contains(&c);
        let wary = if self.lying.is_empty() {
            fray_core::movement::wary_after(grid, first.clone(), ends, free, (AOO, &self.able))
        } else {
            fray_core::movement::wary_path(grid, ends, free, AOO, &self.able)
        };
        Some(
            wary.filter(|p| p.0.last().is_none_or(|c| !self.lying.contains(c)))
                .unwrap_or(first),
        )
    }

    /// The first shortest way to within `within` of `goal`.
    fn first(&self, grid: &Grid, goal: Cell, within: u32) -> Option<(Vec<Cell>, u32)> {
        first_way(
            grid,
            self.here,
            (&self.blocked, &self.lying),
            (goal, within),
        )
    }
}

/// The first shortest way from `here` to within `within` of `goal`, past
/// the cells `blocked`, over the fallen `lying`, ending on none of them.
fn first_way(
    grid: &Grid,
    here: Cell,
    (blocked, lying): (&fray_core::grid::CellSet, &[Cell]),
    (goal, within): (Cell, u32),
) -> Option<(Vec<Cell>, u32)> {
    grid.path_toward_ending(
        here,
        goal,
        within,
        |c| blocked.contains(&c),
        |c| !lying.contains(&c),
    )
}

/// How attacks of opportunity are drawn (003 §III F): by moving more than
/// one square within a foe's reach.
const AOO: Provokes = Provokes::Within { free: 1 };

/// What [`path`] costs in squares of movement: that of the first shortest
/// way, which the wary way (cheapest in movement first) never exceeds and,
/// ending where it may, equals.
pub fn path_cost(world: &World, e: Entity, goal: Cell, within: u32) -> Option<u32> {
    let (blocked, lying) = (occupied(world, e), bodies(world, e));
    let grid = world.resource::<Grid>();
    first_way(grid, cell(world, e), (&blocked, &lying), (goal, within)).map(|p| p.1)
}

/// Those whose attack of opportunity walking `cells` would draw under
/// `provokes` (003 §III F), for the DM's warning and the AI.
pub fn provokers(world: &World, e: Entity, cells: &[Cell], provokes: Provokes) -> Vec<Entity> {
    provokers_among(world, e, cells, provokes, &threats(world, e))
}

/// [`provokers`] among `able`, the [`threats`] to `e` as they stand: for
/// whoever weighs many walks in one look at the field.
pub fn provokers_among(
    world: &World,
    e: Entity,
    cells: &[Cell],
    provokes: Provokes,
    able: &[Threatener],
) -> Vec<Entity> {
    let grid = world.resource::<Grid>();
    let mut out = fray_core::movement::provoked_along(grid, provokes, cell(world, e), cells, able);
    out.retain(|&p| may_take_opportunity(world, p));
    out
}

/// Enemies adjacent to `e` at `at` (in its melee range).
pub fn adjacent_enemies(world: &World, e: Entity, at: Cell) -> Vec<Entity> {
    let grid = world.resource::<Grid>();
    let foe = enemies_of(world, e);
    roster(world)
        .into_iter()
        .filter(|&x| foe(x) && up(world, x) && grid.distance(cell(world, x), at) == 1)
        .collect()
}

/// Whether `e` has a missile and a target in sight and range.
pub fn has_shot(world: &World, e: Entity) -> bool {
    let Some((_, w)) = missile_weapon(world, e) else {
        return false;
    };
    let grid = world.resource::<Grid>();
    let here = cell(world, e);
    roster(world).into_iter().any(|x| {
        enemies(world, e, x)
            && up(world, x)
            && grid.distance(here, cell(world, x)) <= w.range
            && grid.in_sight(here, cell(world, x))
    })
}

fn stats(world: &World, e: Entity) -> Result<&Stats, String> {
    world
        .get::<Stats>(e)
        .ok_or_else(|| "not a combatant".to_string())
}

fn enemy(world: &World, e: Entity, order: &Order) -> Result<Entity, String> {
    let t = world.resource::<Flow>().roster.target_of(order)?;
    if !enemies(world, e, t) || !up(world, t) {
        return Err(format!("{} is not an enemy still fighting", name(world, t)));
    }
    Ok(t)
}

/// Whether `c` is free for `e` to stand in: on the grid, not an obstacle,
/// nobody standing or lying there (ruling `fallen_bodies`).
pub(super) fn free_cell(world: &World, e: Entity, c: Cell) -> Result<(), String> {
    let grid = world.resource::<Grid>();
    if !grid.in_bounds(c)
        || grid.is_obstacle(c)
        || occupied(world, e).contains(&c)
        || bodies(world, e).contains(&c)
    {
        return Err(format!("{c} is not a free cell"));
    }
    Ok(())
}

/// Within `budget` squares of movement, or why not.
fn reachable(world: &World, e: Entity, to: Cell, budget: u32) -> Result<(), String> {
    free_cell(world, e, to)?;
    match path_cost(world, e, to, 0) {
        Some(cost) if cost <= budget => Ok(()),
        Some(cost) => Err(format!("{to} is {cost} squares away; the rate is {budget}")),
        None => Err(format!("no way through to {to}")),
    }
}

fn not_pursuing(world: &World, e: Entity) -> Result<(), String> {
    if world.get::<RoundState>(e).is_some_and(|r| r.no_pursuit) {
        return Err("having struck at a fleeing back, it may not pursue this turn (003 §Withdrawal Tactics)".into());
    }
    Ok(())
}

/// The spell an order names, known and castable now.
fn spell<'a>(world: &'a World, e: Entity, order: &Order) -> Result<(String, &'a Spell), String> {
    let s = order.with_name().ok_or("cast needs a spell (with)")?;
    if !world.get::<Memorised>(e).is_some_and(|m| m.knows(&s)) {
        return Err(format!("{s} is not memorised"));
    }
    if !fray_core::casting::may_cast(world, e) {
        return Err(
            "damaged this round: no spellcasting for the rest of it (003 §Casting in Combat)"
                .into(),
        );
    }
    let d = world
        .resource::<Data>()
        .0
        .spells
        .get(&s)
        .ok_or("no such spell")?;
    Ok((s, d))
}

/// 003 §III A, ruling readied_missile: a readied missile held before
/// initiative fires on its turn from where it stands (moving after, as a
/// shot may), or the whole action is lost.
fn held_fires(order: &Order, here: Cell) -> Result<(), String> {
    match order.action.as_str() {
        "fire" if order.cell.is_some_and(|c| c != here) => Err(
            "a held readied missile fires from where it stands: it may move after the shot, not before (003 §III A; ruling readied_missile)"
                .into(),
        ),
        "fire" | "fire_then_move" | "wait" => Ok(()),
        _ => Err(
            "a readied missile must fire by its turn, or the action is lost (003 §III A)".into(),
        ),
    }
}

/// Check an order for `e`'s turn; what it will do, or why not.
pub fn validate(world: &World, e: Entity, order: &Order) -> Result<Plan, String> {
    stats(world, e)?;
    let rate = rate_left(world, e);
    if world
        .get::<RoundState>(e)
        .is_some_and(|r| r.holding_readied)
    {
        held_fires(order, cell(world, e))?;
    }
    if order.then.is_some() && !matches!(order.action.as_str(), "fire" | "cast") {
        return Err(format!(
            "{}: only a shot or a spell takes a move after it (then: ...) (003 §III D)",
            order.action
        ));
    }
    if strikes(order) && world.get::<RoundState>(e).is_some_and(|r| r.attacked) {
        return Err(
            "its attacks of this round are spent: it may still move, but not strike, shoot, cast, parry or ready a missile again (003 §III B; rulings length_strike, readied_missile)"
                .into(),
        );
    }
    match order.action.as_str() {
        "attack" => attack(world, e, order, rate),
        "step" => step(world, e, order, rate),
        "move" => {
            let to = order.cell.ok_or("a move needs a cell")?;
            not_pursuing(world, e)?;
            let mult = world.resource::<Data>().0.ruling_numbers.run_multiplier;
            reachable(world, e, to, rate).map_err(|why| {
                let run = Order::new(order.actor.clone(), "run").cell(to);
                if reachable(world, e, to, rate * mult).is_ok() && validate(world, e, &run).is_ok() {
                    format!("{why}: a run reaches it, giving up the round's combat (003 §III D; choose Run, with that cell)")
                } else {
                    why
                }
            })?;
            Ok(Plan::Move { to })
        }
        "run" => {
            let to = order.cell.ok_or("a run needs a cell")?;
            not_pursuing(world, e)?;
            fought(world, e)?;
            let mult = world.resource::<Data>().0.ruling_numbers.run_multiplier;
            reachable(world, e, to, rate * mult)?;
            Ok(Plan::Run { to })
        }
        "fire" => fire(world, e, order, rate),
        "fire_then_move" => fire_then_move(world, e, order, rate),
        "cast" => cast(world, e, order, rate),
        "cast_then_move" => cast_then_move(world, e, order, rate),
        "ready" => missile_weapon(world, e)
            .map(|_| Plan::Ready)
            .ok_or_else(|| "no missile weapon".into()),
        "parry" => Ok(Plan::Parry),
        "fall_back" => fall_back(world, e, order),
        "disengage" => {
            cornered(world, e, "retreat")?;
            Ok(Plan::Disengage)
        }
        "flee" => {
            fought(world, e)?;
            cornered(world, e, "run")?;
            Ok(Plan::Flee)
        }
        "surrender" => Ok(Plan::Surrender),
        "wait" => Ok(Plan::Wait),
        other => Err(format!("{other:?} is not an order on one's turn")),
    }
}

/// 003 §III B, D: an attack on `order`'s target, walking up to it first
/// within the standard `rate`, and then on to the order's cell, if given,
/// with what is left of the rate.
fn attack(world: &World, e: Entity, order: &Order, rate: u32) -> Result<Plan, String> {
    let target = enemy(world, e, order)?;
    let Some((cells, cost)) = path(world, e, cell(world, target), 1).filter(|p| p.1 <= rate) else {
        return Err(format!(
            "{} is out of reach this round",
            name(world, target)
        ));
    };
    if cost > 0 {
        not_pursuing(world, e)?;
        moves_after(world, rate)?;
    }
    let from = cells.last().copied().unwrap_or(cell(world, e));
    Ok(Plan::Attack {
        target,
        after: move_after(world, e, (from, order.cell), rate - cost)?,
    })
}

/// 003 §The 5' Step: one square, striking an enemy in reach of it if the
/// order names one.
fn step(world: &World, e: Entity, order: &Order, rate: u32) -> Result<Plan, String> {
    let to = order.cell.ok_or("a step needs a cell")?;
    // Having moved is said first: it is what leaves so little rate.
    if world.get::<RoundState>(e).is_some_and(|r| r.walked > 0) {
        return Err(
            "it has moved this round already: the 5' step must be its only movement (003 §The 5' Step)"
                .into(),
        );
    }
    if rate <= world.resource::<Data>().0.numbers.step_cells {
        return Err(
            "already limited to 5' of movement or less: no 5' step (003 §The 5' Step)".into(),
        );
    }
    if world.resource::<Grid>().distance(cell(world, e), to) != 1 {
        return Err("the 5' step is one square".into());
    }
    not_pursuing(world, e)?;
    free_cell(world, e, to)?;
    let target = match order.target {
        Some(_) => Some(enemy(world, e, order)?),
        None => None,
    };
    Ok(Plan::Step { to, target })
}

/// 003 §III D: "Faster movement than that sacrifices any combat or
/// casting": none is left to give up once it has fought this round.
fn fought(world: &World, e: Entity) -> Result<(), String> {
    if world.get::<RoundState>(e).is_some_and(|r| r.attacked) {
        return Err("it has fought this round: running, which gives up the round's combat, is too late (003 §III D)".into());
    }
    Ok(())
}

/// 003 §The 5' Step: one "ONLY allowed to move 5' or less" (a standard
/// `rate` of one square or none) takes its movement after its other
/// actions, so no move before a strike, shot or spell.
fn moves_after(world: &World, rate: u32) -> Result<(), String> {
    if rate <= world.resource::<Data>().0.numbers.step_cells {
        return Err(
            "limited to 5' of movement or less: its movement comes after its other actions (003 §The 5' Step)"
                .into(),
        );
    }
    Ok(())
}

/// 003 §III D: a shot at `order`'s target, from where `e` stands or from
/// the order's cell, moved to first within the standard `rate`, and then a
/// move on to the order's `then` cell with what is left of the rate.
fn fire(world: &World, e: Entity, order: &Order, rate: u32) -> Result<Plan, String> {
    let (_, w) = missile_weapon(world, e).ok_or("no missile weapon")?;
    let target = enemy(world, e, order)?;
    let (from, left) = move_before(world, e, order, rate)?;
    let d = world.resource::<Grid>().distance(from, cell(world, target));
    if d > w.range {
        return Err(format!(
            "{} is beyond range {}",
            name(world, target),
            w.range
        ));
    }
    in_sight(world, from, target)?;
    Ok(Plan::Fire {
        target,
        from: order.cell,
        after: move_after(world, e, (from, order.then), left)?,
    })
}

/// Ruling `in_sight`: a shot or a spell needs its target in sight
/// (003 §III A); obstacles block the line, combatants do not.
fn in_sight(world: &World, from: Cell, target: Entity) -> Result<(), String> {
    if world.resource::<Grid>().in_sight(from, cell(world, target)) {
        return Ok(());
    }
    Err(format!(
        "{} is not in sight from {from}: an obstacle blocks the line (ruling in_sight)",
        name(world, target)
    ))
}

/// Ruling flight_path: one cornered surrenders; a player character's
/// morale is its player's (003 §Withdrawal Tactics), who may surrender
/// instead: it is refused a flight or retreat with nowhere to `go`.
fn cornered(world: &World, e: Entity, go: &str) -> Result<(), String> {
    if world.get::<super::Monster>(e).is_none() && flight(world, e).is_none() {
        return Err(format!(
            "nowhere to {go}: no edge square farther from every enemy can be reached (ruling flight_path); surrender, if that is the choice"
        ));
    }
    Ok(())
}

/// 003 §III D: the move before a shot or a spell, to `order`'s cell if it
/// is another, within the standard `rate`: where the action is taken from,
/// and the rate left for a move after it.
fn move_before(world: &World, e: Entity, order: &Order, rate: u32) -> Result<(Cell, u32), String> {
    let here = cell(world, e);
    let Some(to) = order.cell.filter(|&c| c != here) else {
        return Ok((here, rate));
    };
    not_pursuing(world, e)?;
    moves_after(world, rate)?;
    reachable(world, e, to, rate)?;
    let cost = path_cost(world, e, to, 0).unwrap_or(rate);
    Ok((to, rate - cost))
}

/// 003 §III D: "Movement may be split as desired before and/or after
/// attacking/casting": the move on from `from` to `then`, if given, within
/// the `left` of the standard rate.
fn move_after(
    world: &World,
    e: Entity,
    (from, then): (Cell, Option<Cell>),
    left: u32,
) -> Result<Option<Cell>, String> {
    let Some(to) = then else {
        return Ok(None);
    };
    not_pursuing(world, e)?;
    free_cell(world, e, to)?;
    let blocked = occupied(world, e);
    let lying = bodies(world, e);
    let way = world.resource::<Grid>().path_toward_ending(
        from,
        to,
        0,
        |c| c != from && blocked.contains(&c),
        |c| !lying.contains(&c),
    );
    match way {
        Some((_, cost)) if cost <= left => Ok(Some(to)),
        Some((_, cost)) => Err(format!(
            "{to} is {cost} squares on from {from}; {left} of the rate are left (003 §III D)"
        )),
        None => Err(format!("no way through from {from} to {to}")),
    }
}

/// 003 §III D: "Movement may be split as desired before and/or after
/// attacking": a shot from where `e` stands, then a move to `order`'s
/// cell within the standard `rate` (a `fire` whose cell is its `then`).
fn fire_then_move(world: &World, e: Entity, order: &Order, rate: u32) -> Result<Plan, String> {
    fire(world, e, &moved_after(order)?, rate)
}

/// `order`, a `fire_then_move` or `cast_then_move`, as the shot or spell
/// taken where its actor stands with its cell the move after.
fn moved_after(order: &Order) -> Result<Order, String> {
    let to = order
        .cell
        .ok_or_else(|| format!("{} needs the cell to move to after it", order.action))?;
    if order.then.is_some() {
        return Err(format!(
            "{} moves after only: its cell is that move (003 §III D)",
            order.action
        ));
    }
    Ok(Order {
        cell: None,
        then: Some(to),
        ..order.clone()
    })
}

/// 003 §III D: where `e` would fall back to after a shot: the cell within
/// its standard rate farthest from its nearest foe (the nearest of such,
/// then the first in the grid's order), if that is farther than here.
pub fn falling_back_from(world: &World, e: Entity) -> Option<Cell> {
    falling_back_within(world, e, (cell(world, e), rate_left(world, e)))
}

/// [`falling_back_from`] `from` a cell (where `e` shoots or casts, having
/// moved there first) within `rate` squares.
pub fn falling_back_within(world: &World, e: Entity, (from, rate): (Cell, u32)) -> Option<Cell> {
    let foes: Vec<Cell> = roster(world)
        .into_iter()
        .filter(|&x| enemies(world, e, x) && up(world, x))
        .map(|x| cell(world, x))
        .collect();
    let taken = occupied(world, e);
    let lying = bodies(world, e);
    fray_core::movement::farthest_from(
        world.resource::<Grid>(),
        (from, rate),
        &foes,
        |c| taken.contains(&c),
        |c| !lying.contains(&c),
    )
}

/// Those whose attack of opportunity `e` would draw going `most` squares
/// of its way off the field (ruling `flight_path`).
fn fled_past(world: &World, e: Entity, most: u32) -> Vec<Entity> {
    let mut cells = flight(world, e).unwrap_or_default();
    cells.truncate(most as usize);
    provokers(world, e, &cells, Provokes::Within { free: 1 })
}

/// Ruling `flight_path`: the edge cell nearest `e` among those farther from
/// every enemy than `e` is, and the way there.
pub fn flight(world: &World, e: Entity) -> Option<Vec<Cell>> {
    let grid = world.resource::<Grid>();
    let here = cell(world, e);
    let foes: Vec<Cell> = super::combat::foes(world, e)
        .into_iter()
        .map(|f| cell(world, f))
        .collect();
    let nearest = |c: Cell| {
        foes.iter()
            .map(|&f| grid.distance(c, f))
            .min()
            .unwrap_or(u32::MAX)
    };
    let (w, h) = (grid.width() as i32, grid.height() as i32);
    let mut edges: Vec<Cell> = (0..w)
        .flat_map(|x| (0..h).map(move |y| Cell::new(x, y)))
        .filter(|c| c.x == 0 || c.y == 0 || c.x == w - 1 || c.y == h - 1)
        .filter(|&c| {
            !grid.is_obstacle(c) && (c == here || foes.is_empty() || nearest(c) > nearest(here))
        })
        .collect();
    edges.sort_by_key(|&c| (grid.distance(here, c), c.y, c.x));
    let taken = occupied(world, e);
    let lying = bodies(world, e);
    edges.retain(|c| !lying.contains(c));
    edges.into_iter().take(12).find_map(|c| {
        if c == here {
            return Some(Vec::new());
        }
        grid.path_toward(here, c, 0, |x| taken.contains(&x))
            .map(|p| p.0)
    })
}

/// 003 §III D: where `e` would move to shoot `target`, out of range now:
/// the first square of its way there within the missile's range, if the
/// standard rate reaches it; with the squares walked.
pub fn firing_square(world: &World, e: Entity, target: Entity) -> Option<(Vec<Cell>, Cell)> {
    let (_, w) = missile_weapon(world, e)?;
    square_within(world, e, target, w.range).map(|(cells, to, _)| (cells, to))
}

/// The first square of `e`'s way to `target` within `range` of it and in
/// sight of it, if the standard rate reaches it; with the squares walked
/// and their cost.
fn square_within(
    world: &World,
    e: Entity,
    target: Entity,
    range: u32,
) -> Option<(Vec<Cell>, Cell, u32)> {
    // The first square within range with the target in sight (ruling
    // in_sight), over the fallen but never on one (ruling fallen_bodies).
    let at = cell(world, target);
    let blocked = occupied(world, e);
    let lying = bodies(world, e);
    let grid = world.resource::<Grid>();
    let (cells, cost) = grid.path_toward_ending(
        cell(world, e),
        at,
        range,
        |c| blocked.contains(&c),
        |c| !lying.contains(&c) && grid.in_sight(c, at),
    )?;
    let to = *cells.last()?;
    (cost <= rate_left(world, e)).then_some((cells, to, cost))
}

/// Whether `order` spends the round's attacks (003 §III B, §III D: the
/// full attack routine or a spell): a strike, a shot, a spell, a parry
/// (its attacks given up), readying a missile (its shot held for the next
/// round: ruling readied_missile), or a step or fall back that strikes.
fn strikes(order: &Order) -> bool {
    match order.action.as_str() {
        "attack" | "fire" | "fire_then_move" | "cast" | "cast_then_move" | "parry" | "ready" => {
            true
        }
        "step" | "fall_back" => order.target.is_some(),
        _ => false,
    }
}

fn cast(world: &World, e: Entity, order: &Order, rate: u32) -> Result<Plan, String> {
    let (spell, s) = spell(world, e, order)?;
    let target = world.resource::<Flow>().roster.target_of(order)?;
    if !up(world, target) {
        return Err(format!("{} is out of the fight", name(world, target)));
    }
    on_its_side(world, e, (&spell, s), target)?;
    let data = &world.resource::<Data>().0;
    let full = s.casting_time >= data.ruling_numbers.full_round;
    if full && order.cell.is_some_and(|c| c != cell(world, e)) {
        // 003 §The 5' Step: full-round casting limits its caster to 5'.
        return Err(format!(
            "{spell} takes the full round, which limits its caster to 5' of movement, taken after its other actions (003 §The 5' Step): no move before"
        ));
    }
    let (from, left) = move_before(world, e, order, rate)?;
    if world.resource::<Grid>().distance(from, cell(world, target)) > s.range {
        return Err(format!(
            "{} is beyond the spell's range {}",
            name(world, target),
            s.range
        ));
    }
    in_sight(world, from, target)?;
    let left = after_cast_rate(world, &spell, left);
    Ok(Plan::Cast {
        after: move_after(world, e, (from, order.then), left)?,
        spell,
        target,
        from: order.cell,
    })
}

/// Ruling `spell_effect`: a harmful spell is cast at an enemy, a healing
/// one at the caster or an ally.
fn on_its_side(
    world: &World,
    e: Entity,
    (spell, s): (&str, &Spell),
    t: Entity,
) -> Result<(), String> {
    let harmful = matches!(s.effect, fray_core::casting::SpellEffect::Damage(_));
    match (harmful, fray_core::model::enemies(world, e, t)) {
        (true, false) => Err(format!(
            "{spell} harms: it is cast at an enemy, not at {} (ruling spell_effect)",
            name(world, t)
        )),
        (false, true) => Err(format!(
            "{spell} heals: it is cast at oneself or an ally, not at {} (ruling spell_effect)",
            name(world, t)
        )),
        _ => Ok(()),
    }
}

/// 003 §III D: "Movement may be split as desired before and/or after
/// attacking/casting": a spell begun where `e` stands, then, once it goes
/// off, a move to `order`'s cell within the standard `rate`, or 5' after a
/// full-round spell (003 §The 5' Step: "your movement must be taken after
/// your other actions"): a `cast` whose cell is its `then`.
fn cast_then_move(world: &World, e: Entity, order: &Order, rate: u32) -> Result<Plan, String> {
    cast(world, e, &moved_after(order)?, rate)
}

/// How far a caster may move once `spell` goes off: its `rate`, or 5'
/// after a full-round spell (003 §The 5' Step).
pub fn after_cast_rate(world: &World, spell: &str, rate: u32) -> u32 {
    let data = &world.resource::<Data>().0;
    let full = data
        .spells
        .get(spell)
        .is_some_and(|s| s.casting_time >= data.ruling_numbers.full_round);
    if full { rate.min(1) } else { rate }
}

/// 003 §Withdrawal Tactics: "stepping back (no more than 10')", within
/// `e`'s own rate left this round.
pub fn fall_back_cells(world: &World, e: Entity) -> u32 {
    let most = world.resource::<Data>().0.numbers.fall_back_cells;
    most.min(rate_left(world, e))
}

/// 003 §Withdrawal Tactics: no more than 10' back, front kept.
fn fall_back(world: &World, e: Entity, order: &Order) -> Result<Plan, String> {
    let to = order.cell.ok_or("falling back needs a cell")?;
    let rate = rate_left(world, e);
    if order.target.is_some() {
        // 003 §The 5' Step: one limited to 5' moves after its fighting.
        moves_after(world, rate)?;
    }
    reachable(world, e, to, fall_back_cells(world, e))?;
    let grid = world.resource::<Grid>();
    let here = cell(world, e);
    let foe = enemies_of(world, e);
    let foes: Vec<Cell> = roster(world)
        .into_iter()
        .filter(|&x| foe(x) && up(world, x))
        .map(|x| cell(world, x))
        .collect();
    let nearest = |c: Cell| foes.iter().map(|&f| grid.distance(c, f)).min().unwrap_or(0);
    if nearest(to) <= nearest(here) {
        return Err(format!("{to} is not back from the enemy"));
    }
    let target = match order.target {
        Some(_) => Some(enemy(world, e, order)?),
        None => None,
    };
    Ok(Plan::FallBack { to, target })
}

/// Check an answer about a readied missile (003 §III A).
pub fn validate_readied(world: &World, e: Entity, order: &Order) -> Result<Plan, String> {
    match order.action.as_str() {
        "fire" if order.cell.is_some() || order.then.is_some() => Err(
            "a readied missile fires from where it stands, before initiative; any move comes on its turn (003 §III A)"
                .into(),
        ),
        "fire" => validate(world, e, order),
        "hold" => Ok(Plan::Hold),
        other => Err(format!(
            "{other:?}: a readied missile fires or holds (003 §III A)"
        )),
    }
}

/// What `f` is asked about a character withdrawing from it, and who that
/// is, if it is asked (003 §Withdrawal Tactics).
pub fn reacting(world: &World, f: Entity) -> Option<(Entity, super::Reaction)> {
    let flow = world.resource::<Flow>();
    flow.reacting.iter().find(|x| x.1 == f).map(|x| (x.2, x.3))
}

/// Ruling `follow`: the way `f` would follow `leader` back into reach,
/// and what it costs, if it may: it fights on (neither withdrawing nor
/// having given up combat) and the way is within the 10' of the fall
/// back and what is left of its movement for the round.
pub fn follow_way(world: &World, f: Entity, leader: Entity) -> Option<(Vec<Cell>, u32)> {
    if !acts(world, f)
        || world.get::<super::Withdrawal>(f).is_some()
        || world.get::<RoundState>(f).is_some_and(|r| r.gave_up_combat)
    {
        return None;
    }
    let most = world.resource::<Data>().0.numbers.fall_back_cells;
    let (cells, cost) = path(world, f, cell(world, leader), 1)?;
    let speed = world.get::<super::Stats>(f).map_or(0, |s| s.speed);
    let walked = world.get::<RoundState>(f).map_or(0, |r| r.walked);
    (cost > 0 && cost <= most && cost <= speed.saturating_sub(walked)).then_some((cells, cost))
}

/// Check an answer to what `f` is asked about a withdrawal (003
/// §Withdrawal Tactics): the one it follows or strikes at the back of, or,
/// having fallen back, the opponent it fights instead; `None` to stay, let
/// go or parry.
pub fn validate_reaction(
    world: &World,
    f: Entity,
    order: &Order,
) -> Result<Option<Entity>, String> {
    let (them, about) = reacting(world, f).ok_or("nobody withdrawing is to be met")?;
    let whom = name(world, them);
    let (yes, no) = match about {
        super::Reaction::Follow => ("follow", "stay"),
        super::Reaction::BackBlow => ("strike_back", "let_go"),
        super::Reaction::Redirect => return validate_redirect(world, f, order),
    };
    let yes_or_no = |ok: bool| if ok { Some(them) } else { None };
    match order.action.as_str() {
        a if a == yes && order.target.as_deref().is_some_and(|t| t != whom) => Err(format!(
            "{a} is aimed at {whom}, the one withdrawing, or it is {no}"
        )),
        "follow" if order.cell.is_some() => Err(format!(
            "a follower goes back into reach of {whom} by the shortest way, not to a cell of its choosing"
        )),
        // Asked, it could follow; another's answer may have taken the way
        // since, which the follow then says (turn.rs follow).
        "follow" if about == super::Reaction::Follow => Ok(Some(them)),
        "strike_back" if about == super::Reaction::BackBlow => Ok(yes_or_no(true)),
        a if a == no => Ok(yes_or_no(false)),
        other if about == super::Reaction::Follow => Err(format!(
            "{other:?}: {whom} falls back, and one engaged with it follows or stays (003 §Withdrawal Tactics)"
        )),
        other => Err(format!(
            "{other:?}: {whom} turns to flee, and one engaged with it strikes at its back (strike_back) or lets it go (let_go) (003 §Withdrawal Tactics)"
        )),
    }
}

/// Check the answer of one who fell back and was not followed: an attack
/// on an enemy still in reach, or a parry (003 §Withdrawal Tactics).
fn validate_redirect(world: &World, e: Entity, order: &Order) -> Result<Option<Entity>, String> {
    match order.action.as_str() {
        "attack" => {
            let t = enemy(world, e, order)?;
            if world
                .resource::<Grid>()
                .distance(cell(world, e), cell(world, t))
                != 1
            {
                return Err(format!("{} is not in reach", name(world, t)));
            }
            Ok(Some(t))
        }
        "parry" => Ok(None),
        other => Err(format!(
            "{other:?}: having fallen back, it attacks an enemy in reach or parries (003 §Withdrawal Tactics)"
        )),
    }
}

/// The choice given one engaged with someone withdrawing: follow one
/// falling back, or stay; strike at the back of one fleeing, giving up
/// pursuit, or let it go (003 §Withdrawal Tactics).
pub fn reaction_choices(world: &World, f: Entity) -> Vec<Choice> {
    let me = name(world, f);
    let Some((them, about)) = reacting(world, f) else {
        return Vec::new();
    };
    let whom = name(world, them);
    let (yes, no) = match about {
        super::Reaction::Redirect => {
            let mut out: Vec<Choice> = adjacent_enemies(world, f, cell(world, f))
                .into_iter()
                .map(|t| {
                    let n = name(world, t);
                    Choice::legal(Order::new(&me, "attack").target(&n), format!("Attack {n}"))
                })
                .collect();
            out.push(Choice::legal(Order::new(&me, "parry"), "Parry"));
            return out;
        }
        super::Reaction::Follow => (
            (
                "follow",
                format!("Follow {whom}: the line of contact shifts, and nobody gains an attack"),
            ),
            ("stay", format!("Stay, and let {whom} open the space")),
        ),
        super::Reaction::BackBlow => (
            (
                "strike_back",
                format!("Strike at {whom}'s back: no pursuit on your turn"),
            ),
            (
                "let_go",
                format!("Let {whom} go, free to pursue on your turn"),
            ),
        ),
    };
    vec![
        Choice::legal(Order::new(&me, yes.0).target(&whom), yes.1),
        Choice::legal(Order::new(&me, no.0), no.1),
    ]
}

/// Ruling `running_rate`: the opponents in reach that a run along `cells`
/// leaves behind, who get its back, as at a flight, if they may.
pub fn run_from(world: &World, e: Entity, cells: &[Cell]) -> Vec<Entity> {
    let end = cells.last().copied().unwrap_or_else(|| cell(world, e));
    let still_beside = adjacent_enemies(world, e, end);
    adjacent_enemies(world, e, cell(world, e))
        .into_iter()
        .filter(|x| !still_beside.contains(x) && may_take_opportunity(world, *x))
        .collect()
}

/// 003 §II E: the warning that each whose longer weapon a walk along
/// `cells` comes into strikes first.
fn longer_first(world: &World, e: Entity, cells: &[Cell]) -> Vec<String> {
    super::combat::length_first(world, e, cells)
        .into_iter()
        .map(|f| {
            format!(
                "{}'s longer weapon strikes first (003 §II E)",
                name(world, f)
            )
        })
        .collect()
}

/// The DM's warning for a person: who the order would give an attack of
/// opportunity, or whose longer weapon strikes first.
pub fn warning(world: &World, e: Entity, plan: &Plan) -> Vec<String> {
    let mut out = Vec::new();
    let walked =
        |to: Cell, within: u32| path(world, e, to, within).map(|p| p.0).unwrap_or_default();
    let by = |v: Vec<Entity>| v.into_iter().map(|x| name(world, x)).collect::<Vec<_>>();
    let aoo = Provokes::Within { free: 1 };
    let here = cell(world, e);
    let who = match plan {
        Plan::Attack { target, after } => {
            let mut cells = walked(cell(world, *target), 1);
            out.extend(longer_first(world, e, &cells));
            if cells.is_empty() && super::combat::beats_bare_hands(world, *target, e) {
                out.push(format!(
                    "{}'s weapon wins initiative against bare hands and strikes first (003 §II E; ruling armed_first)",
                    name(world, *target)
                ));
            }
            let struck_from = cells.last().copied().unwrap_or(here);
            cells.extend(walked_on(world, e, struck_from, *after));
            by(provokers(world, e, &cells, aoo))
        }
        Plan::Step { to, .. } => {
            // 003 §II E, ruling length_strike: the step draws no attack of
            // opportunity, but a longer weapon still strikes first.
            out.extend(longer_first(world, e, &[*to]));
            Vec::new()
        }
        Plan::Move { to } | Plan::FallBack { to, .. } => {
            let cells = walked(*to, 0);
            out.extend(longer_first(world, e, &cells));
            by(provokers(world, e, &cells, aoo))
        }
        Plan::Run { to } => {
            // The blows at its back (ruling running_rate), then those it
            // runs past (003 §III F).
            let cells = walked(*to, 0);
            out.extend(longer_first(world, e, &cells));
            let mut who = run_from(world, e, &cells);
            for x in provokers(world, e, &cells, aoo) {
                if !who.contains(&x) {
                    who.push(x);
                }
            }
            by(who)
        }
        Plan::Fire { from, after, .. } => {
            let mut cells = from.map_or_else(Vec::new, |to| walked(to, 0));
            cells.extend(walked_on(world, e, from.unwrap_or(here), *after));
            out.extend(longer_first(world, e, &cells));
            let mut who = provokers(world, e, &cells, aoo);
            for x in adjacent_enemies(world, e, from.unwrap_or(here)) {
                if super::combat::engages_shooter(world, x)
                    && may_take_opportunity(world, x)
                    && !who.contains(&x)
                {
                    who.push(x);
                }
            }
            by(who)
        }
        Plan::Cast { from, after, .. } => {
            // 003 §III C, F: casting within reach, and the moves before and
            // after the spell.
            let mut cells = from.map_or_else(Vec::new, |to| walked(to, 0));
            cells.extend(walked_on(world, e, from.unwrap_or(here), *after));
            out.extend(longer_first(world, e, &cells));
            let mut who = provokers(world, e, &cells, aoo);
            for x in adjacent_enemies(world, e, from.unwrap_or(here)) {
                if may_take_opportunity(world, x) && !who.contains(&x) {
                    who.push(x);
                }
            }
            by(who)
        }
        Plan::Flee => {
            // The blows at its back, then those it runs past (003 §III F).
            let mut who: Vec<Entity> = adjacent_enemies(world, e, here)
                .into_iter()
                .filter(|&x| may_take_opportunity(world, x))
                .collect();
            let run = world.resource::<Data>().0.ruling_numbers.run_multiplier;
            for x in fled_past(world, e, rate_left(world, e) * run) {
                if !who.contains(&x) {
                    who.push(x);
                }
            }
            by(who)
        }
        // The retreat after every count, by the way of ruling flight_path.
        // Monsters let a player character go (ruling disengage).
        Plan::Disengage => {
            let monster = |x| world.get::<super::Monster>(x).is_some();
            let mut who = fled_past(world, e, rate_left(world, e));
            who.retain(|&x| monster(e) || !monster(x));
            by(who)
        }
        _ => Vec::new(),
    };
    if !who.is_empty() {
        out.insert(
            0,
            format!("draws an attack of opportunity from {}", who.join(" and ")),
        );
    }
    out
}

/// The squares of `e`'s move on from `from` to `to`, if given, after its
/// blow, shot or spell.
fn walked_on(world: &World, e: Entity, from: Cell, to: Option<Cell>) -> Vec<Cell> {
    let Some(to) = to else {
        return Vec::new();
    };
    let blocked = occupied(world, e);
    let lying = bodies(world, e);
    world
        .resource::<Grid>()
        .path_toward_ending(
            from,
            to,
            0,
            |c| blocked.contains(&c),
            |c| !lying.contains(&c),
        )
        .map(|p| p.0)
        .unwrap_or_default()
}

fn offer(world: &World, e: Entity, order: Order, label: String) -> Choice {
    match validate(world, e, &order) {
        Ok(plan) => {
            let warn = warning(world, e, &plan);
            let label = if warn.is_empty() {
                label
            } else {
                format!("{label} — WARNING: {}", warn.join("; "))
            };
            Choice::legal(order, label)
        }
        Err(why) => Choice::refused(order, label, why),
    }
}

/// Every order open to `e` on its turn, for a person.
pub fn choices(world: &World, e: Entity) -> Vec<Choice> {
    let me = name(world, e);
    let mut out = Vec::new();
    let foes: Vec<Entity> = roster(world)
        .into_iter()
        .filter(|&x| enemies(world, e, x) && up(world, x))
        .collect();
    for &f in &foes {
        out.extend(foe_choices(world, e, f));
    }
    out.extend(step_choices(world, e, &foes));
    out.extend(spell_choices(world, e));
    out.extend(withdrawal_choices(world, e));
    for (action, label) in [
        ("ready", "Ready a missile for next round"),
        ("parry", "Parry instead of attacking"),
        ("disengage", "Disengage and retreat (acts last)"),
        ("flee", "Flee in panic"),
        ("surrender", "Surrender"),
        ("wait", "Wait"),
    ] {
        out.push(offer(world, e, Order::new(&me, action), label.to_string()));
    }
    out
}

/// What `e` may do to the foe `f`: attack it, walking up first (003 §III
/// D) and then back with the rate left, and shoot it.
fn foe_choices(world: &World, e: Entity, f: Entity) -> Vec<Choice> {
    let (me, n) = (name(world, e), name(world, f));
    let attack = Order::new(&me, "attack").target(&n);
    let mut out = vec![offer(world, e, attack.clone(), format!("Attack {n}"))];
    if let Ok(Plan::Attack { .. }) = validate(world, e, &attack)
        && let Some((cells, cost)) = path(world, e, cell(world, f), 1)
    {
        let from = cells.last().copied().unwrap_or(cell(world, e));
        let left = rate_left(world, e).saturating_sub(cost);
        if let Some(back) = falling_back_within(world, e, (from, left)) {
            let then = attack.cell(back);
            out.push(offer(
                world,
                e,
                then,
                format!("Attack {n}, then move back to {back}"),
            ));
        }
    }
    if let Some((_, w)) = missile_weapon(world, e) {
        let fire = Order::new(&me, "fire").target(&n);
        out.extend(split_moves(
            world,
            e,
            (f, w.range),
            fire,
            &format!("fire at {n}"),
        ));
    }
    out
}

/// 003 §The 5' Step: to each square next to `e`, striking each foe in
/// reach of it, or none.
fn step_choices(world: &World, e: Entity, foes: &[Entity]) -> Vec<Choice> {
    let me = name(world, e);
    let grid = world.resource::<Grid>();
    let mut out = Vec::new();
    for to in grid.neighbours(cell(world, e)).collect::<Vec<_>>() {
        let step = Order::new(&me, "step").cell(to);
        let near: Vec<Entity> = foes
            .iter()
            .copied()
            .filter(|&f| grid.distance(cell(world, f), to) == 1)
            .collect();
        for f in &near {
            let n = name(world, *f);
            let label = format!("5' step to {to} and attack {n}");
            out.push(offer(world, e, step.clone().target(&n), label));
        }
        if near.is_empty() {
            out.push(offer(world, e, step, format!("5' step to {to}")));
        }
    }
    out
}

/// Each memorised spell at each one still up on the side it is for (003
/// §II C; ruling spell_effect), walking up
/// first or moving back after as [`split_moves`] offers.
fn spell_choices(world: &World, e: Entity) -> Vec<Choice> {
    let me = name(world, e);
    let Some(m) = world.get::<Memorised>(e) else {
        return Vec::new();
    };
    let mut spells = m.0.clone();
    spells.dedup();
    let mut out = Vec::new();
    for s in spells {
        let Some(d) = world.resource::<Data>().0.spells.get(&s) else {
            continue;
        };
        let range = d.range;
        let at = |x| up(world, x) && on_its_side(world, e, (&s, d), x).is_ok();
        for t in roster(world).into_iter().filter(|&x| at(x)) {
            let n = name(world, t);
            let cast = Order::new(&me, "cast").with(&s).target(&n);
            out.extend(split_moves(
                world,
                e,
                (t, range),
                cast,
                &format!("cast {s} at {n}"),
            ));
        }
    }
    out
}

/// 003 §Withdrawal Tactics and §III D: fall back, fighting each engaged
/// foe or not, to the square within 10' farthest from the foes; run there
/// at twice the rate, giving up the round's combat.
fn withdrawal_choices(world: &World, e: Entity) -> Vec<Choice> {
    let me = name(world, e);
    let here = cell(world, e);
    let mut out = Vec::new();
    if let Some(to) = falling_back_within(world, e, (here, fall_back_cells(world, e))) {
        let back = Order::new(&me, "fall_back").cell(to);
        for f in adjacent_enemies(world, e, here) {
            let n = name(world, f);
            let label = format!("Fall back to {to}, fighting {n} (front kept)");
            out.push(offer(world, e, back.clone().target(&n), label));
        }
        out.push(offer(
            world,
            e,
            back,
            format!("Fall back to {to}, front kept"),
        ));
    }
    // Away as a flight goes (ruling flight_path), as far as a run reaches;
    // or, aimed at another cell, anywhere a run reaches.
    let mult = world.resource::<Data>().0.ruling_numbers.run_multiplier;
    let budget = (rate_left(world, e) * mult) as usize;
    let way = flight(world, e).unwrap_or_default();
    if let Some(&to) = way[..budget.min(way.len())].last() {
        let label = format!(
            "Run to {to}, or to another cell within twice the rate, clicked or typed (no combat or casting this round)"
        );
        out.push(offer(world, e, Order::new(&me, "run").cell(to), label));
    }
    out
}

/// 003 §III D, "Movement may be split as desired before and/or after
/// attacking/casting": `action` (a shot or a spell at `target`, within
/// `range`) from here, or from the first square of the way within range;
/// and the same with a move back after it, away from the foes, with the
/// rate left (5' after a full-round spell).
fn split_moves(
    world: &World,
    e: Entity,
    (target, range): (Entity, u32),
    action: Order,
    what: &str,
) -> Vec<Choice> {
    let here = cell(world, e);
    let from_here = grid_distance(world, here, cell(world, target)) <= range;
    let before = (!from_here)
        .then(|| square_within(world, e, target, range))
        .flatten();
    let (order, from, left, label) = match &before {
        Some((_, to, cost)) => (
            action.cell(*to),
            *to,
            rate_left(world, e).saturating_sub(*cost),
            format!("Move to {to} and {what}"),
        ),
        None => (action, here, rate_left(world, e), capitalised(what)),
    };
    let left = match order.with.as_deref() {
        Some(spell) if order.action == "cast" => after_cast_rate(world, spell, left),
        _ => left,
    };
    let back = falling_back_within(world, e, (from, left));
    let mut out = Vec::new();
    if let Some(back) = back {
        let then = order.clone().then(back);
        if validate(world, e, &then).is_ok() {
            let after = match order.action.as_str() {
                "cast" => " once it goes off",
                _ => "",
            };
            let label = format!("{label}, then move back to {back}{after}");
            out.push(offer(world, e, then, label));
        }
    }
    if before.is_none()
        && !adjacent_enemies(world, e, here).is_empty()
        && let Some(x) = clear_square(world, e, (target, range))
    {
        let label = format!("Step to {x}, out of the melee, and {what}");
        out.push(offer(world, e, order.clone().cell(x), label));
    }
    out.insert(0, offer(world, e, order, label));
    out
}

/// A square next to `e`, free, next to no foe, with `target` in sight and
/// within `range` of it: one step out of the melee before a shot or a
/// spell (003 §III C, F: the first 5' draws nothing). The first in the
/// grid's order.
fn clear_square(world: &World, e: Entity, (target, range): (Entity, u32)) -> Option<Cell> {
    let grid = world.resource::<Grid>();
    let at = cell(world, target);
    grid.neighbours(cell(world, e)).find(|&c| {
        free_cell(world, e, c).is_ok()
            && adjacent_enemies(world, e, c).is_empty()
            && grid.distance(c, at) <= range
            && grid.in_sight(c, at)
    })
}

fn grid_distance(world: &World, a: Cell, b: Cell) -> u32 {
    world.resource::<Grid>().distance(a, b)
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// For a readied missile: fire at each target, or hold.
pub fn readied_choices(world: &World, e: Entity) -> Vec<Choice> {
    let me = name(world, e);
    let mut out: Vec<Choice> = roster(world)
        .into_iter()
        .filter(|&x| enemies(world, e, x) && up(world, x))
        .map(|x| {
            let n = name(world, x);
            offer(
                world,
                e,
                Order::new(&me, "fire").target(&n),
                format!("Fire at {n} now"),
            )
        })
        .collect();
    out.push(Choice::legal(
        Order::new(&me, "hold"),
        "Hold it to your turn",
    ));
    out
}
