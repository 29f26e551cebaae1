//! The movement range of a walker on a grid small enough, or a budget
//! short enough, that the cells it could reach fit in a small box: a
//! search over that box alone, in flat arrays, that lists the cells in
//! their order as it reads the box off column by column, with no sort.
//!
//! A step changes a cell's column and its row by one at most (both
//! geometries, `crate::grid`), and costs 1 or 2, so a walk of cost `budget`
//! never leaves the square of side `2 * budget + 1` around its start; the
//! least costs within it are those of the whole grid (a test compares them
//! with `pathfinding`'s Dijkstra on many boards).

use super::{Cell, Grid, GridGeometry, GridKind};

/// The most cells a box may have for [`reach_in_box`] to search it.
const BOX_MOST: usize = 1 << 14;

/// What [`Grid::reachable`] gives, found within the box around `from`: every
/// cell within `budget` and its least cost, in the cells' order. `None`
/// when the box is too large (or `from` off the grid).
pub(super) fn reach_in_box(
    grid: &Grid,
    from: Cell,
    budget: u32,
    blocked: &impl Fn(Cell) -> bool,
) -> Option<Vec<(Cell, u32)>> {
    let ((x0, x1), (y0, y1)) = grid.bounds().clip_square(from, budget)?;
    let (w, h) = ((x1 - x0 + 1) as usize, (y1 - y0 + 1) as usize);
    if w * h > BOX_MOST || !grid.in_bounds(from) {
        return None;
    }
    // Column by column, so that reading the box off lists cells in order.
    let slot = |c: Cell| (c.x - x0) as usize * h + (c.y - y0) as usize;
    let inside = |c: Cell| (x0..=x1).contains(&c.x) && (y0..=y1).contains(&c.y);
    // What entering each cell costs; 0: it is never entered.
    let mut enter = vec![0u8; w * h];
    for x in x0..=x1 {
        for y in y0..=y1 {
            let c = Cell::new(x, y);
            if let Some(cost) = grid.enter_cost(c).filter(|_| !blocked(c)) {
                enter[slot(c)] = cost as u8;
            }
        }
    }
    let mut least = vec![u32::MAX; w * h];
    least[slot(from)] = 0;
    // The cells waiting at this cost, one more and two more.
    let (mut now, mut next, mut after) = (vec![from], Vec::new(), Vec::new());
    let mut cost = 0u32;
    loop {
        while let Some(c) = now.pop() {
            // Reached again more cheaply since.
            if least[slot(c)] != cost {
                continue;
            }
            for n in steps(grid.kind(), c) {
                if !inside(n) {
                    continue;
                }
                let (i, step) = (slot(n), enter[slot(n)]);
                let to = cost.saturating_add(u32::from(step));
                if step == 0 || to > budget || least[i] <= to {
                    continue;
                }
                least[i] = to;
                if step == 1 {
                    next.push(n);
                } else {
                    after.push(n);
                }
            }
        }
        if next.is_empty() && after.is_empty() {
            break;
        }
        cost += 1;
        std::mem::swap(&mut now, &mut next);
        std::mem::swap(&mut next, &mut after);
    }
    let mut out = Vec::new();
    for x in x0..=x1 {
        for y in y0..=y1 {
            let c = Cell::new(x, y);
            if least[slot(c)] != u32::MAX {
                out.push((c, least[slot(c)]));
            }
        }
    }
    Some(out)
}

/// The cells one step from `c`, in or off the grid: on hexes (odd rows
/// shoved right) its row's two and two in each row beside; on squares all
/// eight around.
#[inline]
fn steps(kind: GridKind, c: Cell) -> impl Iterator<Item = Cell> {
    let (x, y) = (c.x, c.y);
    let around = match kind {
        GridKind::Hex => {
            let (l, r) = if y & 1 == 1 { (x, x + 1) } else { (x - 1, x) };
            [
                (x - 1, y),
                (x + 1, y),
                (l, y - 1),
                (r, y - 1),
                (l, y + 1),
                (r, y + 1),
                (x, y),
                (x, y),
            ]
        }
        GridKind::Square => [
            (x - 1, y - 1),
            (x, y - 1),
            (x + 1, y - 1),
            (x - 1, y),
            (x + 1, y),
            (x - 1, y + 1),
            (x, y + 1),
            (x + 1, y + 1),
        ],
    };
    let count = if kind == GridKind::Hex { 6 } else { 8 };
    around.into_iter().take(count).map(|(x, y)| Cell::new(x, y))
}

#[cfg(test)]
mod tests {
    use super::super::{Cell, Grid, GridGeometry, GridKind};

    /// The steps are the grid's own neighbours, on both geometries.
    #[test]
    fn the_steps_are_the_neighbours() {
        for kind in [GridKind::Hex, GridKind::Square] {
            let grid = Grid::new(kind, 9, 8);
            for x in 0..9 {
                for y in 0..8 {
                    let c = Cell::new(x, y);
                    let mut ours: Vec<Cell> = super::steps(kind, c)
                        .filter(|&n| grid.in_bounds(n))
                        .collect();
                    let mut theirs: Vec<Cell> = grid.neighbours(c).collect();
                    ours.sort_unstable();
                    theirs.sort_unstable();
                    assert_eq!(ours, theirs, "{kind:?} {c}");
                }
            }
        }
    }
}
