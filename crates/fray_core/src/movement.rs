//! Movement: a walk along a path one cell at a time, which cells block it,
//! and whose threat each step provokes.
//!
//! A [`Walk`] can stop between any two steps (a reaction cuts in, a person is
//! asked) and go on later. What a step provokes is the ruleset's
//! [`Provokes`] policy over the [`Threatener`]s it names as able to react:
//!
//! - rules/004 (`declared`): entering an enemy's threat range provokes its
//!   riposte, after the step;
//! - rules/002 (`phases`) §Moving Out: moving out of a threatened hex
//!   provokes an attack of opportunity, before the step; the 1-hex step
//!   provokes nothing;
//! - rules/003 (`crucible`) §III F: moving more than 5' while remaining
//!   within an opponent's melee range provokes; the 5' step does not.

use bevy_ecs::prelude::*;

use crate::grid::{Cell, CellSet, Grid};
use crate::threat::Threatener;

/// Which steps provoke those who threaten the mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provokes {
    /// None: a free step (002 §1-Hex Step, 003 §The 5' Step).
    Never,
    /// A step into a threat it was not in (004 ripostes).
    Entering,
    /// Any step out of a threatened cell (002 §Moving Out).
    Leaving,
    /// A step that stays within a threat, after `free` such steps
    /// (003 §III F: more than 5' within melee range).
    Within { free: u32 },
    /// A step out of the reach of an enemy the walk began beside: the
    /// mover turns its back to it (001, ruling `fleeing_attack`).
    TurningAway,
}

/// A move under way: the path, how far along it, what it cost and may cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walk {
    pub mover: Entity,
    pub path: Vec<Cell>,
    /// Steps taken.
    pub at: usize,
    pub spent: u32,
    pub budget: u32,
    pub provokes: Provokes,
    /// Steps taken within each opponent's threat, by opponent (for
    /// [`Provokes::Within`]: 003 §III F counts "within melee range of an
    /// opponent", each opponent its own).
    pub within: Vec<(Entity, u32)>,
    /// Cells the walk may pass over but not stop on (where the fallen lie,
    /// under a ruleset whose fallen do not block).
    pub pass_only: Vec<Cell>,
}

/// Why a walk stops short.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Halt {
    /// The path is walked.
    End,
    /// The next cell costs more than is left.
    Budget,
    /// Someone stands in the next cell now.
    Taken(Cell),
}

/// Everyone a walk along `path` from `start` would provoke under
/// `provokes`, each once, in the order met: what a player is warned of
/// before ordering the move.
pub fn provoked_along(
    grid: &Grid,
    provokes: Provokes,
    start: Cell,
    path: &[Cell],
    threateners: &[Threatener],
) -> Vec<Entity> {
    let mut walk = Walk::new(Entity::PLACEHOLDER, path.to_vec(), u32::MAX, provokes);
    // Only the enemies beside the mover as it sets out see its back.
    let beside: Vec<Threatener>;
    let threateners = if provokes == Provokes::TurningAway {
        beside = threateners
            .iter()
            .filter(|t| t.covers(grid, start))
            .copied()
            .collect();
        &beside[..]
    } else {
        threateners
    };
    let mut met = Vec::new();
    let mut from = start;
    for &to in path {
        for e in walk.provoked(grid, from, to, threateners) {
            if !met.contains(&e) {
                met.push(e);
            }
        }
        walk.count_within(grid, (from, to), threateners);
        from = to;
    }
    met
}

/// The way a mover takes from `from` to within `stop_within` of `to`: the
/// cheapest in movement and, of those, the one whose steps provoke the
/// fewest `threateners` under `provokes`, each counted at each step that
/// provokes it (a step that stays within a threat counts as one that
/// provokes, for [`Provokes::Within`]). Ties between those are broken
/// deterministically.
pub fn wary_path(
    grid: &Grid,
    (from, to, stop_within): (Cell, Cell, u32),
    blocked: impl Fn(Cell) -> bool,
    provokes: Provokes,
    threateners: &[Threatener],
) -> Option<(Vec<Cell>, u32)> {
    let first = grid.path_toward(from, to, stop_within, &blocked)?;
    wary_after(
        grid,
        first,
        (from, to, stop_within),
        blocked,
        (provokes, threateners),
    )
}

/// [`wary_path`], given the first shortest way, `first`: as
/// [`Grid::path_toward`] finds it with the same `blocked`.
pub fn wary_after(
    grid: &Grid,
    first: (Vec<Cell>, u32),
    (from, to, stop_within): (Cell, Cell, u32),
    blocked: impl Fn(Cell) -> bool,
    (provokes, threateners): (Provokes, &[Threatener]),
) -> Option<(Vec<Cell>, u32)> {
    let toll = |a: Cell, b: Cell| {
        let n = threateners
            .iter()
            .filter(|t| match provokes {
                Provokes::Never => false,
                Provokes::Entering => !t.covers(grid, a) && t.covers(grid, b),
                Provokes::Leaving => t.covers(grid, a),
                Provokes::TurningAway => t.covers(grid, a) && !t.covers(grid, b),
                Provokes::Within { .. } => t.covers(grid, a) && t.covers(grid, b),
            })
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    };
    // The first shortest way, if it provokes no one, is as good as any.
    let mut at = from;
    let spared = first.0.iter().all(|&c| {
        let free = toll(at, c) == 0;
        at = c;
        free
    });
    if spared {
        return Some(first);
    }
    let most = u32::try_from(threateners.len()).unwrap_or(u32::MAX);
    grid.path_sparing((from, to), stop_within, blocked, (toll, most))
}

/// The next step of a walk: where from and to, and who it provokes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub from: Cell,
    pub to: Cell,
    pub cost: u32,
    pub provoked: Vec<Entity>,
}

impl Walk {
    pub fn new(mover: Entity, path: Vec<Cell>, budget: u32, provokes: Provokes) -> Self {
        Self {
            mover,
            path,
            at: 0,
            spent: 0,
            budget,
            provokes,
            within: Vec::new(),
            pass_only: Vec::new(),
        }
    }

    /// The next step from `here`, or why there is none: a cell `taken` by
    /// someone (the one rule: [`crate::model::taken_cells`]) or beyond the
    /// budget. `threateners` are those able to react now.
    pub fn next(
        &self,
        grid: &Grid,
        here: Cell,
        taken: &CellSet,
        threateners: &[Threatener],
    ) -> Result<Step, Halt> {
        let &to = self.path.get(self.at).ok_or(Halt::End)?;
        if taken.contains(&to) {
            return Err(Halt::Taken(to));
        }
        let cost = grid.enter_cost(to).unwrap_or(u32::MAX);
        if self.spent.saturating_add(cost) > self.budget {
            return Err(Halt::Budget);
        }
        self.beyond_pass_only(grid, taken, cost)?;
        let provoked = self.provoked(grid, here, to, threateners);
        Ok(Step {
            from: here,
            to,
            cost,
            provoked,
        })
    }

    /// A step onto a cell it may only pass over needs the cells after it,
    /// up to one it may stop on, free and within the budget.
    fn beyond_pass_only(&self, grid: &Grid, taken: &CellSet, cost: u32) -> Result<(), Halt> {
        let mut spent = self.spent.saturating_add(cost);
        let mut k = self.at;
        while self.pass_only.contains(&self.path[k]) {
            k += 1;
            let &next = self.path.get(k).ok_or(Halt::End)?;
            if taken.contains(&next) {
                return Err(Halt::Taken(next));
            }
            spent = spent.saturating_add(grid.enter_cost(next).unwrap_or(u32::MAX));
            if spent > self.budget {
                return Err(Halt::Budget);
            }
        }
        Ok(())
    }

    /// Those `threateners` whose threat the step `from` → `to` provokes.
    pub fn provoked(
        &self,
        grid: &Grid,
        from: Cell,
        to: Cell,
        threateners: &[Threatener],
    ) -> Vec<Entity> {
        let provokes = |t: &&Threatener| match self.provokes {
            Provokes::Never => false,
            Provokes::Entering => !t.covers(grid, from) && t.covers(grid, to),
            Provokes::Leaving => t.covers(grid, from),
            Provokes::TurningAway => t.covers(grid, from) && !t.covers(grid, to),
            Provokes::Within { free } => {
                let steps = self
                    .within
                    .iter()
                    .find(|(e, _)| *e == t.entity)
                    .map_or(0, |w| w.1);
                steps >= free && t.covers(grid, from) && t.covers(grid, to)
            }
        };
        threateners
            .iter()
            .filter(provokes)
            .map(|t| t.entity)
            .collect()
    }

    /// Count the step `from` → `to` for each of the `threateners` whose
    /// threat it stays within (for [`Provokes::Within`] alone).
    pub fn count_within(
        &mut self,
        grid: &Grid,
        (from, to): (Cell, Cell),
        threateners: &[Threatener],
    ) {
        if !matches!(self.provokes, Provokes::Within { .. }) {
            return;
        }
        for t in threateners {
            if !(t.covers(grid, from) && t.covers(grid, to)) {
                continue;
            }
            match self.within.iter_mut().find(|(e, _)| *e == t.entity) {
                Some((_, n)) => *n += 1,
                None => self.within.push((t.entity, 1)),
            }
        }
    }

    /// Take `step`: the mover stands in its cell.
    pub fn take(&mut self, world: &mut World, step: &Step, threateners: &[Threatener]) {
        self.count_within(world.resource::<Grid>(), (step.from, step.to), threateners);
        self.at += 1;
        self.spent = self.spent.saturating_add(step.cost);
        world.entity_mut(self.mover).insert(step.to);
    }

    /// Whether every step is taken.
    pub fn done(&self) -> bool {
        self.at >= self.path.len()
    }
}

/// Where one falling back from its foes goes: the cell within `budget`
/// of `from` (over cells not `blocked`) farthest from the nearest of `foes`,
/// the cheapest of such, then the first in the grid's order; one it
/// `may_end` on, and only if farther from them than `from`.
pub fn farthest_from(
    grid: &Grid,
    (from, budget): (Cell, u32),
    foes: &[Cell],
    blocked: impl Fn(Cell) -> bool,
    may_end: impl Fn(Cell) -> bool,
) -> Option<Cell> {
    use crate::grid::GridGeometry;
    let nearest = |c: Cell| foes.iter().map(|&f| grid.distance(c, f)).min().unwrap_or(0);
    let (best, _) = grid
        .reachable(from, budget, &blocked)
        .into_iter()
        .filter(|&(c, _)| !blocked(c) && may_end(c))
        .max_by_key(|&(c, cost)| {
            (
                nearest(c),
                std::cmp::Reverse(cost),
                std::cmp::Reverse((c.y, c.x)),
            )
        })?;
    (nearest(best) > nearest(from)).then_some(best)
}

/// "1 cell" or "n cells".
pub fn cells(n: u32) -> String {
    if n == 1 {
        "1 cell".into()
    } else {
        format!("{n} cells")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::GridKind;

    fn foe(x: i32, y: i32) -> Threatener {
        Threatener {
            entity: Entity::PLACEHOLDER,
            cell: Cell::new(x, y),
            reach: 1,
        }
    }

    /// Two foes of reach 1, A and B, at `a` and `b`.
    fn two_foes(a: (i32, i32), b: (i32, i32)) -> ([Threatener; 2], Entity, Entity) {
        let (ea, eb) = (
            Entity::from_raw_u32(7).unwrap(),
            Entity::from_raw_u32(8).unwrap(),
        );
        let t = [
            Threatener {
                entity: ea,
                ..foe(a.0, a.1)
            },
            Threatener {
                entity: eb,
                ..foe(b.0, b.1)
            },
        ];
        (t, ea, eb)
    }

    fn path(cells: &[(i32, i32)]) -> Vec<Cell> {
        cells.iter().map(|&(x, y)| Cell::new(x, y)).collect()
    }

    #[test]
    fn each_policy_provokes_on_its_own_steps() {
        let g = Grid::new(GridKind::Square, 9, 9);
        let t = [foe(4, 4)];
        let walk = |p| Walk::new(Entity::PLACEHOLDER, Vec::new(), 9, p);
        let count = |p, a: (i32, i32), b: (i32, i32)| {
            walk(p)
                .provoked(&g, Cell::new(a.0, a.1), Cell::new(b.0, b.1), &t)
                .len()
        };
        assert_eq!(count(Provokes::Entering, (2, 4), (3, 4)), 1);
        assert_eq!(count(Provokes::Entering, (3, 4), (3, 3)), 0);
        assert_eq!(
            count(Provokes::Leaving, (3, 4), (3, 3)),
            1,
            "002: out of a threatened hex, even into another"
        );
        assert_eq!(count(Provokes::Leaving, (2, 4), (3, 4)), 0);
        assert_eq!(
            count(Provokes::Within { free: 1 }, (3, 4), (3, 3)),
            0,
            "003: the first 5' is free"
        );
        assert_eq!(count(Provokes::Within { free: 0 }, (3, 4), (3, 3)), 1);
        assert_eq!(count(Provokes::Never, (3, 4), (3, 3)), 0);
    }

    #[test]
    fn a_path_warns_of_whom_it_provokes_as_its_walk_would() {
        // Along (2,4) → (3,4) → (3,3) → (3,2) past a foe at (4,4), reach 1:
        // entering provokes on the first step; leaving on the second (out of
        // a threatened cell); within, with one step free, on none (the
        // second step is the one free step within, the third leaves).
        let g = Grid::new(GridKind::Square, 9, 9);
        let t = [Threatener {
            entity: Entity::from_raw_u32(7).unwrap(),
            ..foe(4, 4)
        }];
        let along =
            |p| provoked_along(&g, p, Cell::new(2, 4), &path(&[(3, 4), (3, 3), (3, 2)]), &t);
        assert_eq!(along(Provokes::Entering), vec![t[0].entity]);
        assert_eq!(along(Provokes::Leaving), vec![t[0].entity]);
        assert!(along(Provokes::Within { free: 1 }).is_empty());
        assert_eq!(along(Provokes::Within { free: 0 }), vec![t[0].entity]);
        assert!(along(Provokes::Never).is_empty());
    }

    #[test]
    fn the_free_step_within_melee_range_is_counted_for_each_opponent() {
        // 003 §III F: "Moving more than 5' while remaining within melee
        // range of an opponent": one step within A's range, then, out of
        // it, one within B's: neither is more than 5' within one's range.
        let g = Grid::new(GridKind::Square, 12, 9);
        let (t, _, b) = two_foes((3, 4), (8, 4));
        let within = Provokes::Within { free: 1 };
        let start = Cell::new(1, 3);
        let walk = path(&[
            (2, 3),
            (3, 3),
            (4, 2),
            (5, 2),
            (6, 3),
            (7, 3),
            (8, 3),
            (9, 2),
        ]);
        assert!(provoked_along(&g, within, start, &walk, &t).is_empty());
        // Two steps within B's range: the second provokes it.
        let on = path(&[
            (2, 3),
            (3, 3),
            (4, 2),
            (5, 2),
            (6, 3),
            (7, 3),
            (8, 3),
            (9, 3),
            (10, 2),
        ]);
        assert_eq!(provoked_along(&g, within, start, &on, &t), vec![b]);
    }

    #[test]
    fn a_walk_turns_its_back_only_on_the_enemies_it_set_out_beside() {
        // Ruling fleeing_attack: setting out beside A at (3, 4), the walk
        // east leaves A's reach and turns its back on A; it passes beside
        // B at (6, 3) and leaves B's reach too, but set out far from B.
        let g = Grid::new(GridKind::Square, 12, 9);
        let (t, a, _) = two_foes((3, 4), (6, 3));
        let away = Provokes::TurningAway;
        let east = path(&[(5, 4), (6, 4), (7, 4), (8, 4)]);
        assert_eq!(
            provoked_along(&g, away, Cell::new(4, 4), &east, &t),
            vec![a]
        );
        // A step that keeps it beside A turns no back.
        let around = path(&[(4, 5)]);
        assert!(provoked_along(&g, away, Cell::new(4, 4), &around, &t).is_empty());
    }

    #[test]
    fn a_walk_halts_at_a_taken_cell_and_at_its_budget() {
        let mut world = World::new();
        let mut grid = Grid::new(GridKind::Square, 9, 9);
        grid.add_difficult(Cell::new(3, 1));
        world.insert_resource(grid.clone());
        let me = world.spawn(Cell::new(0, 1)).id();
        let mut w = Walk::new(me, path(&[(1, 1), (2, 1), (3, 1)]), 3, Provokes::Never);
        let step = w
            .next(&grid, Cell::new(0, 1), &CellSet::new(&grid), &[])
            .unwrap();
        w.take(&mut world, &step, &[]);
        assert_eq!(world.get::<Cell>(me), Some(&Cell::new(1, 1)));
        let mut taken = CellSet::new(&grid);
        taken.insert(Cell::new(2, 1));
        assert_eq!(
            w.next(&grid, Cell::new(1, 1), &taken, &[]),
            Err(Halt::Taken(Cell::new(2, 1)))
        );
        let step = w
            .next(&grid, Cell::new(1, 1), &CellSet::new(&grid), &[])
            .unwrap();
        w.take(&mut world, &step, &[]);
        assert_eq!(
            w.next(&grid, Cell::new(2, 1), &CellSet::new(&grid), &[]),
            Err(Halt::Budget),
            "difficult ground costs 2"
        );
    }

    #[test]
    fn a_walk_passes_over_the_fallen_but_does_not_stop_on_them() {
        let mut world = World::new();
        let grid = Grid::new(GridKind::Square, 9, 9);
        world.insert_resource(grid.clone());
        let me = world.spawn(Cell::new(0, 1)).id();
        let mut w = Walk::new(me, path(&[(1, 1), (2, 1), (3, 1)]), 2, Provokes::Never);
        w.pass_only = vec![Cell::new(2, 1)];
        let step = w
            .next(&grid, Cell::new(0, 1), &CellSet::new(&grid), &[])
            .unwrap();
        w.take(&mut world, &step, &[]);
        assert_eq!(
            w.next(&grid, Cell::new(1, 1), &CellSet::new(&grid), &[]),
            Err(Halt::Budget),
            "a budget of 2 would end on the body at (2, 1)"
        );
        w.budget = 3;
        let step = w
            .next(&grid, Cell::new(1, 1), &CellSet::new(&grid), &[])
            .unwrap();
        assert_eq!(
            step.to,
            Cell::new(2, 1),
            "over the body, with (3, 1) in reach"
        );
        w.path.truncate(2);
        assert_eq!(
            w.next(&grid, Cell::new(1, 1), &CellSet::new(&grid), &[]),
            Err(Halt::End)
        );
    }

    #[test]
    fn steps_within_a_threat_are_counted() {
        let mut world = World::new();
        let grid = Grid::new(GridKind::Square, 9, 9);
        world.insert_resource(grid.clone());
        let me = world.spawn(Cell::new(3, 3)).id();
        let t = [foe(4, 4)];
        let mut w = Walk::new(me, path(&[(3, 4), (2, 5)]), 9, Provokes::Within { free: 1 });
        let first = w
            .next(&grid, Cell::new(3, 3), &CellSet::new(&grid), &t)
            .unwrap();
        assert!(first.provoked.is_empty(), "the first step within is free");
        w.take(&mut world, &first, &t);
        let second = w
            .next(&grid, Cell::new(3, 4), &CellSet::new(&grid), &t)
            .unwrap();
        assert!(second.provoked.is_empty(), "(2,5) leaves the threat");
        assert_eq!(w.within, [(t[0].entity, 1)]);
        let on = w.provoked(&grid, Cell::new(3, 4), Cell::new(3, 5), &t);
        assert_eq!(on.len(), 1, "a second step within provokes");
    }
}
