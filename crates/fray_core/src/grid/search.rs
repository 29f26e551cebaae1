//! A* and Dijkstra over the cells of one bounded grid, keeping what they
//! have seen in flat arrays indexed by cell instead of a hashed map.
//!
//! The A* ([`astar`]) is `pathfinding`'s own, step for
//! step: the same open list (a binary heap ordered by estimated cost, then
//! by the larger cost so far), the same successors in the same order, the
//! same rule for a better way into a cell already seen. So it returns the
//! very path the library does, ties included (a test compares the two on
//! many boards). What differs is only where it keeps each cell's parent and
//! cost: the library hashes every cell it reaches into a map built anew for
//! each search; here a cell's place in the grid is its slot, and the slots
//! are kept between searches, each marked with the search that wrote it. A
//! battle of a thousand combatants walks a thousand paths a round around
//! the ranks of its own side, and that hashing was most of the time it took.
//!
//! The Dijkstra ([`reach`]) gives each cell within a budget its least cost,
//! which does not depend on the order cells are taken in; a test compares
//! it with the library's `dijkstra_reach` too.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::Cell;

/// One cell waiting in the open list: the library's `SmallestCostHolder`,
/// its estimate and cost packed in one key that orders alike, and the
/// cell's slot (the cell itself is kept in the slot). Two are ordered by
/// their keys alone, as the library orders them by estimate and cost alone.
struct Open {
    /// The smallest estimate first; among equal estimates, the one furthest
    /// along: the estimate's complement above the cost, so that the larger
    /// key comes first out of the heap.
    key: u64,
    slot: u32,
}

impl Open {
    #[inline]
    fn new(estimated_cost: u32, cost: u32, slot: usize) -> Self {
        Self {
            key: (u64::from(!estimated_cost) << 32) | u64::from(cost),
            // Slots are fewer than SLOTS_KEPT, far below u32::MAX.
            slot: slot as u32,
        }
    }

    #[inline]
    fn cost(&self) -> u32 {
        self.key as u32
    }
}

impl PartialEq for Open {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for Open {}

impl PartialOrd for Open {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Open {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.cmp(&other.key)
    }
}

/// What one search knows of a cell: written in search `stamp`.
#[derive(Clone, Copy)]
struct Seen {
    stamp: u32,
    cost: u32,
    parent: usize,
    cell: Cell,
}

impl Default for Seen {
    fn default() -> Self {
        Self {
            stamp: 0,
            cost: 0,
            parent: usize::MAX,
            cell: Cell::new(0, 0),
        }
    }
}

/// The arrays a search works in, kept for the next one on this thread.
#[derive(Default)]
struct Scratch {
    stamp: u32,
    seen: Vec<Seen>,
    open: BinaryHeap<Open>,
}

impl Scratch {
    /// Ready for a search over `slots` cells: everything seen before is
    /// forgotten by moving to a new stamp.
    fn begin(&mut self, slots: usize) {
        if self.seen.len() < slots {
            self.seen.resize(slots, Seen::default());
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(Seen::default());
            self.stamp = 1;
        }
        self.open.clear();
    }

    /// The cost so far of the cell in `slot`, if this search has seen it.
    #[inline]
    fn cost(&self, slot: usize) -> Option<u32> {
        self.seen
            .get(slot)
            .filter(|s| s.stamp == self.stamp)
            .map(|s| s.cost)
    }

    /// Record that the cell in `slot` is reached from `parent`'s slot at
    /// `cost`.
    #[inline]
    fn set(&mut self, slot: usize, cell: Cell, parent: usize, cost: u32) {
        let stamp = self.stamp;
        if let Some(s) = self.seen.get_mut(slot) {
            *s = Seen {
                stamp,
                cost,
                parent,
                cell,
            };
        }
    }

    /// The cells from the start to the one in slot `end`, the start first.
    fn path_to(&self, end: usize) -> Vec<Cell> {
        let mut path = Vec::new();
        let mut at = end;
        while let Some(s) = self.seen.get(at).filter(|s| s.stamp == self.stamp) {
            path.push(s.cell);
            at = s.parent;
        }
        path.reverse();
        path
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Run `f` in this thread's scratch arrays (in fresh ones for a search
/// asked for from inside another).
fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    SCRATCH.with(|kept| match kept.try_borrow_mut() {
        Ok(mut scratch) => f(&mut scratch),
        Err(_) => f(&mut Scratch::default()),
    })
}

/// What a search asks of the grid: how many slots its cells take and which
/// slot a cell has, the steps out of a cell with their costs and slots, a
/// lower bound of the cost left, and whether a cell is a goal.
pub(super) struct Board<FSlot, FN, FH, FS> {
    pub slots: usize,
    pub slot: FSlot,
    pub successors: FN,
    pub heuristic: FH,
    pub success: FS,
}

impl<FSlot: Fn(Cell) -> Option<usize>, FN, FH, FS> Board<FSlot, FN, FH, FS> {
    /// The slot of `c`, if it has one among the board's.
    #[inline]
    fn slot_of(&self, c: Cell) -> Option<usize> {
        (self.slot)(c).filter(|&s| s < self.slots)
    }
}

/// How a search ended.
#[derive(Debug, PartialEq)]
pub(super) enum Searched {
    /// The cells from the start to the goal, and the path's cost.
    Found(Vec<Cell>, u32),
    /// No goal can be reached (or the start has no slot).
    NoPath,
    /// It expanded as many cells as it was allowed without reaching a goal.
    Stopped,
}

impl Searched {
    /// The path found, if one was.
    pub(super) fn path(self) -> Option<(Vec<Cell>, u32)> {
        match self {
            Self::Found(path, cost) => Some((path, cost)),
            Self::NoPath | Self::Stopped => None,
        }
    }
}

/// The cheapest path from `start` to a goal, as `pathfinding`'s `astar`
/// finds it: the cells from `start` to the goal, and its cost. It gives up
/// after expanding `most` cells; a search run again with more finds what it
/// would have found.
pub(super) fn astar<FSlot, FN, IN, FH, FS>(
    start: Cell,
    mut board: Board<FSlot, FN, FH, FS>,
    most: usize,
) -> Searched
where
    FSlot: Fn(Cell) -> Option<usize>,
    FN: FnMut(Cell) -> IN,
    IN: IntoIterator<Item = (Cell, u32, usize)>,
    FH: FnMut(Cell) -> u32,
    FS: FnMut(Cell) -> bool,
{
    with_scratch(|scratch| {
        let Some(slot) = board.slot_of(start) else {
            return Searched::NoPath;
        };
        scratch.begin(board.slots);
        scratch.set(slot, start, usize::MAX, 0);
        scratch.open.push(Open::new(0, 0, slot));
        let mut expanded = 0;
        while let Some(open) = scratch.open.pop() {
            let (cost, slot) = (open.cost(), open.slot as usize);
            let Some(cell) = scratch.seen.get(slot).map(|s| s.cell) else {
                continue;
            };
            if (board.success)(cell) {
                return Searched::Found(scratch.path_to(slot), cost);
            }
            // A cell pushed again when a cheaper way to it was found: only
            // the cheapest is expanded.
            if scratch.cost(slot).is_some_and(|c| cost > c) {
                continue;
            }
            if expanded == most {
                return Searched::Stopped;
            }
            expanded += 1;
            for (next, step, to) in (board.successors)(cell) {
                let new_cost = cost + step;
                if to >= board.slots || scratch.cost(to).is_some_and(|c| c <= new_cost) {
                    continue;
                }
                let h = (board.heuristic)(next);
                scratch.set(to, next, slot, new_cost);
                scratch.open.push(Open::new(new_cost + h, new_cost, to));
            }
        }
        Searched::NoPath
    })
}

/// Every cell within `budget` of `start`, with the least it costs to get
/// there (Dijkstra): what `pathfinding`'s `dijkstra_reach` yields up to
/// that cost, in no particular order. Only the least costs are asked for,
/// and those do not depend on the order cells are taken in.
pub(super) fn reach<FSlot, FN, IN>(
    start: Cell,
    budget: u32,
    mut board: Board<FSlot, FN, (), ()>,
) -> Vec<(Cell, u32)>
where
    FSlot: Fn(Cell) -> Option<usize>,
    FN: FnMut(Cell) -> IN,
    IN: IntoIterator<Item = (Cell, u32, usize)>,
{
    with_scratch(|scratch| {
        let mut out = Vec::new();
        let Some(slot) = board.slot_of(start) else {
            return out;
        };
        scratch.begin(board.slots);
        let mut frontier = BinaryHeap::new();
        scratch.set(slot, start, usize::MAX, 0);
        frontier.push(std::cmp::Reverse((0, slot)));
        while let Some(std::cmp::Reverse((cost, slot))) = frontier.pop() {
            let Some(seen) = scratch.seen.get(slot).copied() else {
                continue;
            };
            if cost > seen.cost {
                continue;
            }
            out.push((seen.cell, cost));
            for (next, step, to) in (board.successors)(seen.cell) {
                let new_cost = cost.saturating_add(step);
                if to >= board.slots
                    || new_cost > budget
                    || scratch.cost(to).is_some_and(|c| c <= new_cost)
                {
                    continue;
                }
                scratch.set(to, next, slot, new_cost);
                frontier.push(std::cmp::Reverse((new_cost, to)));
            }
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use rand_core::Rng;
    use rand_pcg::Pcg32;

    use super::super::{Cell, Grid, GridGeometry, GridKind};

    /// A board of up to 29 × 29 with obstacles, difficult ground and
    /// blocking combatants drawn at random, and a walk asked across it.
    fn board(rng: &mut Pcg32) -> (Grid, Vec<bool>, Cell, Cell, u32) {
        let mut draw = |n: u32| (rng.next_u32() % n) as i32;
        let kind = if draw(2) == 0 {
            GridKind::Hex
        } else {
            GridKind::Square
        };
        let (w, h) = (1 + draw(29), 1 + draw(29));
        let mut grid = Grid::new(kind, w as u32, h as u32);
        let mut blocked = vec![false; (w * h) as usize];
        for (i, b) in blocked.iter_mut().enumerate() {
            let c = grid.cell_at(i);
            match draw(6) {
                0 => grid.add_obstacle(c),
                1 => grid.add_difficult(c),
                2 => *b = true,
                _ => {}
            }
        }
        let from = Cell::new(draw(w as u32), draw(h as u32));
        let to = Cell::new(draw(w as u32), draw(h as u32));
        (grid, blocked, from, to, draw(3) as u32)
    }

    /// The path and its cost are the library's, ties and all, on two
    /// thousand boards.
    #[test]
    fn the_same_path_as_pathfinding_astar() {
        let mut rng = Pcg32::new(0x5eed, 0xa57a);
        for n in 0..2000 {
            let (grid, blocked, from, to, within) = board(&mut rng);
            let blocked = |c: Cell| grid.index(c).is_some_and(|i| blocked[i]);
            let theirs = pathfinding::prelude::astar(
                &from,
                |&c| grid.steps_from(c, &blocked),
                |c| grid.distance(*c, to).saturating_sub(within),
                |c| grid.distance(*c, to) <= within,
            )
            .map(|(path, cost)| (path[1..].to_vec(), cost));
            let ours = grid.path_toward(from, to, within, blocked);
            assert_eq!(
                ours, theirs,
                "board {n}: {grid:?} from {from} to within {within} of {to}"
            );
        }
    }

    /// Of the cheapest paths, the one sparing the most tolls is the one the
    /// library's search finds in wide costs, ties and all, on two thousand
    /// boards with tolls of up to five a step.
    #[test]
    fn the_same_sparing_path_as_pathfinding_astar() {
        let mut rng = Pcg32::new(0x5eed, 0x7011);
        for n in 0..2000 {
            let (grid, blocked, from, to, within) = board(&mut rng);
            let blocked = |c: Cell| grid.index(c).is_some_and(|i| blocked[i]);
            let most = rng.next_u32() % 6;
            let salt = rng.next_u32();
            let toll = |a: Cell, b: Cell| {
                let h = (a.x * 31 + a.y * 17 + b.x * 7 + b.y) as u32 ^ salt;
                h.wrapping_mul(2_654_435_761) % (most + 1)
            };
            let ours = grid.path_sparing((from, to), within, blocked, (toll, most));
            let theirs = grid.path_sparing_unslotted((from, to), within, blocked, toll);
            assert_eq!(
                ours, theirs,
                "board {n}: {grid:?} from {from} to within {within} of {to}"
            );
        }
    }

    /// The cells within a budget and their least costs are those the
    /// library's Dijkstra reaches, on two thousand boards.
    #[test]
    fn the_same_reach_as_pathfinding_dijkstra() {
        let mut rng = Pcg32::new(0x5eed, 0xd1c5);
        for n in 0..2000 {
            let (grid, blocked, from, _, budget) = board(&mut rng);
            let budget = budget * 4;
            let blocked = |c: Cell| grid.index(c).is_some_and(|i| blocked[i]);
            let theirs: HashMap<Cell, u32> =
                pathfinding::prelude::dijkstra_reach(&from, |&c| grid.steps_from(c, &blocked))
                    .take_while(|r| r.total_cost <= budget)
                    .map(|r| (r.node, r.total_cost))
                    .collect();
            let listed = grid.reachable(from, budget, blocked);
            assert!(listed.is_sorted(), "board {n}: in the cells' order");
            let ours: HashMap<Cell, u32> = listed.into_iter().collect();
            assert_eq!(
                ours, theirs,
                "board {n}: {grid:?} from {from} within {budget}"
            );
        }
    }

    /// A search allowed to expand only a few cells says it stopped; let
    /// run, the same search finds the straight diagonal.
    #[test]
    fn a_search_stopped_early_says_so_and_finds_the_path_let_run() {
        let grid = Grid::new(GridKind::Square, 20, 20);
        let (from, to) = (Cell::new(0, 0), Cell::new(19, 19));
        let open = |_: Cell| false;
        let board = || super::Board {
            slots: 400,
            slot: |c| grid.index(c),
            successors: |c| grid.slotted_steps(c, &open),
            heuristic: |c| grid.distance(c, to),
            success: |c| c == to,
        };
        assert_eq!(super::astar(from, board(), 5), super::Searched::Stopped);
        let (path, cost) = super::astar(from, board(), usize::MAX)
            .path()
            .expect("an open board");
        assert_eq!(cost, 19);
        assert_eq!(path.len(), 20);
        assert_eq!(path.last(), Some(&to));
        // The goal is taken out of the open list, not expanded: the 19
        // cells before it are.
        assert_eq!(super::astar(from, board(), 18).path(), None, "one short");
        assert!(super::astar(from, board(), 19).path().is_some());
    }
}
