//! The battlefield grid: cells, shapes, obstacles, terrain and movement.
//!
//! # Coordinates
//!
//! Every position is a [`Cell`] with a column `x` and a row `y`. On both kinds
//! of grid `x` grows to the right (east) and `y` grows downwards (south); the
//! in-bounds cells of a `width × height` grid are `0 <= x < width` and
//! `0 <= y < height`. Cells outside those bounds can still be named, measured
//! and drawn lines between; they just never hold anything and are never
//! entered.
//!
//! # Rulings
//!
//! * **Hex grid: pointy-top, odd-r offset coordinates.** Hexes are pointy-topped
//!   and laid out in rows; every odd row (`y = 1, 3, 5, …`) is shifted half a hex
//!   to the right. This is `hexx`'s [`OffsetHexMode::Odd`] with
//!   [`HexOrientation::Pointy`]. Internally a cell is converted to `hexx` axial
//!   coordinates `q = x - (y - (y & 1)) / 2`, `r = y`, where neighbours,
//!   distances and lines are computed. A cell therefore has six neighbours: left
//!   and right in its own row, and two in each adjacent row — `(x - 1, y ± 1)`
//!   and `(x, y ± 1)` on even rows, `(x, y ± 1)` and `(x + 1, y ± 1)` on odd
//!   rows.
//! * **Square grid: 8 neighbours, a diagonal step costs 1 like an orthogonal
//!   one.** Distance is therefore the Chebyshev distance
//!   `max(|dx|, |dy|)`. A diagonal step is allowed even when both orthogonal
//!   cells beside it are obstacles.
//!
//! # Movement
//!
//! Entering a cell costs 1, or 2 if it is difficult terrain; obstacles and cells
//! outside the grid cannot be entered (see [`Grid::enter_cost`]). Paths are
//! `pathfinding`'s A* ([`Grid::path_toward`]) and movement ranges its
//! Dijkstra ([`Grid::reachable`]), each run over arrays kept by cell
//! (`search`) and checked against the library's own. Neighbours are
//! produced in a fixed order from a fixed size array and the open list is
//! the library's, so the same query on the same grid always returns the
//! same path, including when several paths tie on cost.
//!
//! The geometry verbs shared by both shapes are the [`GridGeometry`] trait,
//! which [`Grid`] implements by dispatching on its [`GridKind`].

use std::fmt;

use hexx::{Hex, HexOrientation, OffsetHexMode};
use pathfinding::prelude::{astar, dijkstra_reach};

mod range;
mod search;

thread_local! {
    /// Cells expanded by this thread's path and reach searches.
    static EXPANDED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many cells the path and reach searches of this thread have expanded
/// so far (each cell whose steps out were looked at). A battle is played
/// on one thread, so what a stretch of it adds is the same on any machine:
/// a searching AI weighs its futures by it (`AiHooks::cell_work`).
pub fn cells_expanded() -> u64 {
    EXPANDED.with(std::cell::Cell::get)
}

/// A cell on the battlefield: column `x`, row `y`.
///
/// On hex grids these are offset coordinates (pointy-top hexes, odd rows
/// shifted right, i.e. `hexx`'s odd-rows offset mode), converted to `hexx` axial
/// coordinates internally. Serialises in RON as a tuple `(x, y)`.
#[derive(
    bevy_ecs::component::Component,
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(from = "(i32, i32)", into = "(i32, i32)")]
// Replaced, never changed in place, so that the grid index of who stands
// where sees every move (`crate::occupancy`).
#[component(
    immutable,
    on_insert = crate::occupancy::cell_set,
    on_discard = crate::occupancy::cell_gone
)]
pub struct Cell {
    /// Column, growing to the right.
    pub x: i32,
    /// Row, growing downwards.
    pub y: i32,
}

impl Cell {
    /// The cell at column `x`, row `y`.
    #[must_use]
    pub const fn new(x: i32, y: i32) -> Self {
        Self { x, y }
    }
}

impl fmt::Display for Cell {
    /// Formats as `(x, y)`, e.g. `(3, 4)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

impl From<(i32, i32)> for Cell {
    fn from((x, y): (i32, i32)) -> Self {
        Self::new(x, y)
    }
}

impl From<Cell> for (i32, i32) {
    fn from(c: Cell) -> Self {
        (c.x, c.y)
    }
}

/// The shape of the battlefield's cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum GridKind {
    /// Pointy-top hexes in odd-r offset coordinates: 6 neighbours.
    Hex,
    /// Squares: 8 neighbours, diagonal steps count 1.
    Square,
}

/// The verbs every grid shape offers.
pub trait GridGeometry {
    /// Whether `c` lies inside the grid.
    fn in_bounds(&self, c: Cell) -> bool;

    /// In-bounds neighbours of `c` (6 on hexes, 8 on squares: diagonal steps are
    /// allowed and count 1), in a fixed order. Does not allocate.
    fn neighbours(&self, c: Cell) -> impl Iterator<Item = Cell> + '_;

    /// Steps between two cells (hex distance; Chebyshev distance on squares).
    /// Works out of bounds too; saturates at `u32::MAX`.
    fn distance(&self, a: Cell, b: Cell) -> u32;

    /// In-bounds cells within `range` steps of `c`, including `c` itself when it
    /// is in bounds, in row-major order (by `y`, then by `x`).
    fn within(&self, c: Cell, range: u32) -> Vec<Cell>;

    /// Cells on the straight line from `a` to `b`, both included, each one step
    /// from the previous: `distance(a, b) + 1` cells (`hexx`'s line on hexes,
    /// Bresenham on squares). Deterministic, and not clipped to the grid's
    /// bounds. Coordinates beyond ±1 048 576 are clamped to that range first.
    fn line(&self, a: Cell, b: Cell) -> Vec<Cell>;
}

/// Endpoints of [`GridGeometry::line`] are clamped to `±LINE_LIMIT`, which keeps
/// the hex arithmetic far from overflow and the result to a sane size.
const LINE_LIMIT: i32 = 1 << 20;

/// The most cells a grid may have for a search to keep one slot a cell
/// for it (a scenario's grid has at most 200 × 200).
const SLOTS_KEPT: usize = 1 << 20;

/// How near a target a path must end for [`Grid::path_toward`] to look
/// first whether the cells there can be reached at all.
const POCKET_WITHIN: u32 = 3;

/// The most open cells [`Grid::path_toward`] gathers around a target to see
/// whether they form a pocket the mover cannot get into.
const POCKET: usize = 256;

/// The cells a search for a path expands before [`Grid::path_toward`]
/// looks for a pocket: most paths are found sooner than the look is made
/// (measured on the 64-combatant melee and the thousand-combatant field).
const QUICK_STEPS: usize = 32;

/// The smallest board on which [`Grid::path_toward`] looks for a pocket:
/// on a smaller one, a search that finds no path costs no more than the
/// look would, and the look is paid for every path.
const POCKET_BOARD: u32 = 2 * POCKET as u32;

/// A rectangle `0 <= x < width`, `0 <= y < height`.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    width: u32,
    height: u32,
}

impl Bounds {
    #[inline]
    fn contains(self, c: Cell) -> bool {
        u32::try_from(c.x).is_ok_and(|x| x < self.width)
            && u32::try_from(c.y).is_ok_and(|y| y < self.height)
    }

    /// Whether `c` is inside the rectangle grown by one cell on every side, i.e.
    /// whether it can have an in-bounds neighbour.
    #[inline]
    fn touches(self, c: Cell) -> bool {
        let (x, y) = (i64::from(c.x), i64::from(c.y));
        (-1..=i64::from(self.width)).contains(&x) && (-1..=i64::from(self.height)).contains(&y)
    }

    /// The in-bounds part of the square of side `2 * range + 1` centred on `c`,
    /// as inclusive column and row ranges, or `None` if it is empty.
    fn clip_square(self, c: Cell, range: u32) -> Option<((i32, i32), (i32, i32))> {
        let r = i64::from(range);
        let clip = |centre: i32, side: u32| {
            let lo = (i64::from(centre) - r).max(0);
            let hi = (i64::from(centre) + r).min(i64::from(side) - 1);
            // Both ends lie in 0..side and sides never exceed Grid::MAX_SIDE.
            let lo = i32::try_from(lo).ok()?;
            let hi = i32::try_from(hi).ok()?;
            (lo <= hi).then_some((lo, hi))
        };
        Some((clip(c.x, self.width)?, clip(c.y, self.height)?))
    }
}

/// Up to eight neighbouring cells, stored inline.
#[derive(Clone, Debug)]
struct Neighbours {
    cells: [Cell; 8],
    len: usize,
    next: usize,
}

impl Neighbours {
    const fn empty() -> Self {
        Self {
            cells: [Cell::new(0, 0); 8],
            len: 0,
            next: 0,
        }
    }

    /// Collects those of `candidates` that lie in `bounds`.
    #[inline]
    fn keep_in_bounds<const N: usize>(bounds: Bounds, candidates: [Cell; N]) -> Self {
        let mut out = Self::empty();
        for c in candidates {
            if bounds.contains(c) && out.len < out.cells.len() {
                out.cells[out.len] = c;
                out.len += 1;
            }
        }
        out
    }
}

impl Iterator for Neighbours {
    type Item = Cell;

    #[inline]
    fn next(&mut self) -> Option<Cell> {
        if self.next < self.len {
            let c = self.cells[self.next];
            self.next += 1;
            Some(c)
        } else {
            None
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len - self.next;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Neighbours {}

/// Clamps a cell's coordinates to `±LINE_LIMIT`.
fn clamp_for_line(c: Cell) -> Cell {
    Cell::new(
        c.x.clamp(-LINE_LIMIT, LINE_LIMIT),
        c.y.clamp(-LINE_LIMIT, LINE_LIMIT),
    )
}

/// Saturating conversion of a non-negative step count.
#[inline]
fn steps_u32(v: i64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// The offset layout used on hex grids: pointy-top, odd rows shifted right.
const HEX_MODE: OffsetHexMode = OffsetHexMode::Odd;
const HEX_ORIENTATION: HexOrientation = HexOrientation::Pointy;

/// Axial coordinates of a cell. Callers keep coordinates well inside `i32`
/// (near the grid, or clamped to `±LINE_LIMIT`).
#[inline]
fn hex_of(c: Cell) -> Hex {
    Hex::from_offset_coordinates([c.x, c.y], HEX_MODE, HEX_ORIENTATION)
}

/// The cell of a hex given in axial coordinates.
#[inline]
fn cell_of(h: Hex) -> Cell {
    let [x, y] = h.to_offset_coordinates(HEX_MODE, HEX_ORIENTATION);
    Cell::new(x, y)
}

/// Axial `(q, r)` of a cell in 64-bit arithmetic, valid for every `i32` input.
/// Same formula as `hexx`'s odd-rows pointy conversion.
#[inline]
fn axial_wide(c: Cell) -> (i64, i64) {
    let y = i64::from(c.y);
    (i64::from(c.x) - (y - (y & 1)) / 2, y)
}

/// Geometry of a rectangle of pointy-top hexes in odd-r offset coordinates.
#[derive(Clone, Copy, Debug)]
struct HexGeometry {
    bounds: Bounds,
}

impl HexGeometry {
    #[inline]
    fn neighbour_cells(self, c: Cell) -> Neighbours {
        if !self.bounds.touches(c) {
            return Neighbours::empty();
        }
        Neighbours::keep_in_bounds(self.bounds, hex_of(c).all_neighbors().map(cell_of))
    }
}

impl GridGeometry for HexGeometry {
    #[inline]
    fn in_bounds(&self, c: Cell) -> bool {
        self.bounds.contains(c)
    }

    fn neighbours(&self, c: Cell) -> impl Iterator<Item = Cell> + '_ {
        self.neighbour_cells(c)
    }

    #[inline]
    fn distance(&self, a: Cell, b: Cell) -> u32 {
        let (aq, ar) = axial_wide(a);
        let (bq, br) = axial_wide(b);
        let (dq, dr) = (aq - bq, ar - br);
        steps_u32(dq.abs().max(dr.abs()).max((dq + dr).abs()))
    }

    fn within(&self, c: Cell, range: u32) -> Vec<Cell> {
        // Every step moves at most one column and one row, so the hexes in range
        // lie in the square of side 2 * range + 1 around `c`.
        let Some(((x0, x1), (y0, y1))) = self.bounds.clip_square(c, range) else {
            return Vec::new();
        };
        let mut out = Vec::with_capacity(Hex::range_count(range.min(64)) as usize);
        for y in y0..=y1 {
            for x in x0..=x1 {
                let cell = Cell::new(x, y);
                if self.distance(c, cell) <= range {
                    out.push(cell);
                }
            }
        }
        out
    }

    fn line(&self, a: Cell, b: Cell) -> Vec<Cell> {
        let (a, b) = (hex_of(clamp_for_line(a)), hex_of(clamp_for_line(b)));
        a.line_to(b).map(cell_of).collect()
    }
}

/// Geometry of a rectangle of squares with 8-way movement.
#[derive(Clone, Copy, Debug)]
struct SquareGeometry {
    bounds: Bounds,
}

impl SquareGeometry {
    /// Orthogonal steps first (E, S, W, N), then diagonals (SE, SW, NW, NE).
    const STEPS: [(i32, i32); 8] = [
        (1, 0),
        (0, 1),
        (-1, 0),
        (0, -1),
        (1, 1),
        (-1, 1),
        (-1, -1),
        (1, -1),
    ];

    #[inline]
    fn neighbour_cells(self, c: Cell) -> Neighbours {
        if !self.bounds.touches(c) {
            return Neighbours::empty();
        }
        // `touches` keeps c within one cell of a grid no wider than MAX_SIDE,
        // so these additions cannot overflow.
        let candidates = Self::STEPS.map(|(dx, dy)| Cell::new(c.x + dx, c.y + dy));
        Neighbours::keep_in_bounds(self.bounds, candidates)
    }
}

impl GridGeometry for SquareGeometry {
    #[inline]
    fn in_bounds(&self, c: Cell) -> bool {
        self.bounds.contains(c)
    }

    fn neighbours(&self, c: Cell) -> impl Iterator<Item = Cell> + '_ {
        self.neighbour_cells(c)
    }

    #[inline]
    fn distance(&self, a: Cell, b: Cell) -> u32 {
        let dx = (i64::from(a.x) - i64::from(b.x)).abs();
        let dy = (i64::from(a.y) - i64::from(b.y)).abs();
        steps_u32(dx.max(dy))
    }

    fn within(&self, c: Cell, range: u32) -> Vec<Cell> {
        let Some(((x0, x1), (y0, y1))) = self.bounds.clip_square(c, range) else {
            return Vec::new();
        };
        let cols = x0.abs_diff(x1) as usize + 1;
        let rows = y0.abs_diff(y1) as usize + 1;
        let mut out = Vec::with_capacity(cols.saturating_mul(rows));
        for y in y0..=y1 {
            out.extend((x0..=x1).map(|x| Cell::new(x, y)));
        }
        out
    }

    fn line(&self, a: Cell, b: Cell) -> Vec<Cell> {
        // Integer Bresenham over all octants: one cell per step of the major
        // axis, so the cells are 8-connected and number distance + 1.
        let (a, b) = (clamp_for_line(a), clamp_for_line(b));
        let dx = (b.x - a.x).abs();
        let dy = -(b.y - a.y).abs();
        let sx = if a.x < b.x { 1 } else { -1 };
        let sy = if a.y < b.y { 1 } else { -1 };
        let mut err = dx + dy;
        let mut cur = a;
        let mut out = Vec::with_capacity(self.distance(a, b) as usize + 1);
        loop {
            out.push(cur);
            if cur == b {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                cur.x += sx;
            }
            if e2 <= dx {
                err += dx;
                cur.y += sy;
            }
        }
        out
    }
}

/// The battlefield's shape, size, obstacles and terrain. A bevy `Resource`.
///
/// Obstacles and difficult terrain are stored as row-major bitmaps, so every
/// query is a bounds check and an index.
#[derive(bevy_ecs::resource::Resource, Clone, Debug)]
pub struct Grid {
    kind: GridKind,
    width: u32,
    height: u32,
    /// `obstacles[y * width + x]`.
    obstacles: Vec<bool>,
    /// `difficult[y * width + x]`.
    difficult: Vec<bool>,
}

/// A set of cells of one grid, each looked up by its place in the grid in
/// constant time: who blocks which cell, tested at every step a path
/// search takes among many combatants.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CellSet {
    width: u32,
    height: u32,
    /// `has[y * width + x]`.
    has: Vec<bool>,
    /// The cells in the order they were put in.
    cells: Vec<Cell>,
}

impl CellSet {
    /// An empty set of cells of `grid`.
    pub fn new(grid: &Grid) -> Self {
        Self {
            width: grid.width,
            height: grid.height,
            has: vec![false; (grid.width * grid.height) as usize],
            cells: Vec::new(),
        }
    }

    /// A set of the cells of a `width × height` grid marked in `has` (by
    /// `y * width + x`), listed in `cells`: the two must agree.
    pub(crate) fn from_marks(width: u32, height: u32, has: Vec<bool>, cells: Vec<Cell>) -> Self {
        Self {
            width,
            height,
            has,
            cells,
        }
    }

    #[inline]
    fn index(&self, c: Cell) -> Option<usize> {
        let inside =
            c.x >= 0 && c.y >= 0 && (c.x as u32) < self.width && (c.y as u32) < self.height;
        inside.then(|| c.y as usize * self.width as usize + c.x as usize)
    }

    /// Put `c` in (a cell off the grid is kept in the list only).
    #[inline]
    pub fn insert(&mut self, c: Cell) {
        match self.index(c) {
            Some(i) if self.has[i] => {}
            Some(i) => {
                self.has[i] = true;
                self.cells.push(c);
            }
            None if !self.cells.contains(&c) => self.cells.push(c),
            None => {}
        }
    }

    #[inline]
    pub fn contains(&self, c: &Cell) -> bool {
        match self.index(*c) {
            Some(i) => self.has[i],
            None => self.cells.contains(c),
        }
    }

    /// Put every cell of `cells` in.
    pub fn extend(&mut self, cells: impl IntoIterator<Item = Cell>) {
        for c in cells {
            self.insert(c);
        }
    }

    /// The cells, in the order they were put in.
    pub fn iter(&self) -> std::slice::Iter<'_, Cell> {
        self.cells.iter()
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
}

impl Grid {
    /// The largest width or height a grid can have; [`Grid::new`] caps larger
    /// values to this.
    pub const MAX_SIDE: u32 = 1 << 15;

    /// An empty `width × height` grid of the given kind: no obstacles, no
    /// difficult terrain. Each side is capped at [`Grid::MAX_SIDE`].
    #[must_use]
    pub fn new(kind: GridKind, width: u32, height: u32) -> Self {
        let width = width.min(Self::MAX_SIDE);
        let height = height.min(Self::MAX_SIDE);
        let cells = width as usize * height as usize;
        Self {
            kind,
            width,
            height,
            obstacles: vec![false; cells],
            difficult: vec![false; cells],
        }
    }

    /// Hexes or squares.
    #[must_use]
    pub fn kind(&self) -> GridKind {
        self.kind
    }

    /// Number of columns.
    #[must_use]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Number of rows.
    #[must_use]
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Marks `c` as an obstacle: it can never be entered. Out-of-bounds cells
    /// are ignored.
    pub fn add_obstacle(&mut self, c: Cell) {
        if let Some(i) = self.index(c) {
            self.obstacles[i] = true;
        }
    }

    /// Whether `c` is an in-bounds obstacle.
    #[must_use]
    #[inline]
    pub fn is_obstacle(&self, c: Cell) -> bool {
        self.index(c).is_some_and(|i| self.obstacles[i])
    }

    /// Whether `b` is in sight from `a`: no obstacle on the straight line
    /// between them ([`GridGeometry::line`]); combatants do not block it.
    /// A line drawn from either end breaks its ties its own way, so it is
    /// drawn from the first of the two in row order: sight goes both ways.
    #[must_use]
    pub fn in_sight(&self, a: Cell, b: Cell) -> bool {
        let (from, to) = if (a.y, a.x) <= (b.y, b.x) {
            (a, b)
        } else {
            (b, a)
        };
        self.line(from, to).iter().all(|&c| !self.is_obstacle(c))
    }

    /// Marks `c` as difficult terrain: entering it costs 2 instead of 1.
    /// Out-of-bounds cells are ignored.
    pub fn add_difficult(&mut self, c: Cell) {
        if let Some(i) = self.index(c) {
            self.difficult[i] = true;
        }
    }

    /// Whether `c` is in-bounds difficult terrain.
    #[must_use]
    #[inline]
    pub fn is_difficult(&self, c: Cell) -> bool {
        self.index(c).is_some_and(|i| self.difficult[i])
    }

    /// Cost of stepping into `c`: 1, or 2 on difficult terrain. `None` if `c` is
    /// out of bounds or an obstacle.
    #[must_use]
    #[inline]
    pub fn enter_cost(&self, c: Cell) -> Option<u32> {
        self.enter_cost_at(self.index(c)?)
    }

    /// [`Grid::enter_cost`] of the cell at a bitmap index.
    #[inline]
    fn enter_cost_at(&self, i: usize) -> Option<u32> {
        if *self.obstacles.get(i)? {
            None
        } else if self.difficult.get(i).copied().unwrap_or(false) {
            Some(2)
        } else {
            Some(1)
        }
    }

    /// Every obstacle, in row-major order.
    pub fn obstacles(&self) -> impl Iterator<Item = Cell> + '_ {
        self.obstacles
            .iter()
            .enumerate()
            .filter(|&(_, &o)| o)
            .map(|(i, _)| self.cell_at(i))
    }

    /// Shortest path (A*) from `from` to any cell within `stop_within` steps of
    /// `target`, never entering obstacles or cells for which `blocked` returns
    /// true (the start cell is never tested, so it is never blocked; the end cell
    /// is entered, so it is never blocked either).
    ///
    /// Returns the cells after `from` up to and including the end cell, and the
    /// total movement cost; `Some((vec![], 0))` if `from` already satisfies the
    /// goal; `None` if no such cell can be reached. Ties between equal-cost
    /// paths are broken deterministically.
    #[must_use]
    pub fn path_toward(
        &self,
        from: Cell,
        target: Cell,
        stop_within: u32,
        blocked: impl Fn(Cell) -> bool,
    ) -> Option<(Vec<Cell>, u32)> {
        self.path_toward_ending(from, target, stop_within, blocked, |_| true)
    }

    /// [`Grid::path_toward`], ending only in a cell `may_end` allows: a cell
    /// that can be passed through but not stopped in (where the fallen lie,
    /// say) is crossed on the way to one beyond.
    #[must_use]
    pub fn path_toward_ending(
        &self,
        from: Cell,
        target: Cell,
        stop_within: u32,
        blocked: impl Fn(Cell) -> bool,
        may_end: impl Fn(Cell) -> bool,
    ) -> Option<(Vec<Cell>, u32)> {
        let arrived = |c: &Cell| self.distance(*c, target) <= stop_within && may_end(*c);
        if arrived(&from) {
            return Some((Vec::new(), 0));
        }
        // Every step costs at least 1 and changes the distance to the target by
        // at most 1, so this heuristic never overestimates.
        let heuristic = |c: &Cell| self.distance(*c, target).saturating_sub(stop_within);
        let board = || search::Board {
            slots: self.width as usize * self.height as usize,
            slot: |c| self.index(c),
            successors: |c| self.slotted_steps(c, &blocked),
            heuristic: |c| heuristic(&c),
            success: |c| arrived(&c),
        };
        // A foe ringed by its friends, or whose free cells lie in a pocket
        // of the melee: no path, and no need to search the whole board. Most
        // paths are found in fewer steps than that look takes: it is taken
        // only by a search that runs on.
        let pocketed = || self.pocketed(from, target, stop_within, &blocked);
        let found = if self.keeps_slots(from) {
            match search::astar(from, board(), QUICK_STEPS) {
                search::Searched::Stopped if pocketed() => None,
                search::Searched::Stopped => search::astar(from, board(), usize::MAX).path(),
                quick => quick.path(),
            }
        } else if pocketed() {
            None
        } else {
            // From off the grid (never where a combatant stands), or on a
            // grid larger than any scenario's: the library's own search,
            // which needs no slots.
            astar(&from, |&c| self.steps_from(c, &blocked), heuristic, arrived)
        };
        let (mut path, cost) = found?;
        // The path starts with `from` itself.
        path.drain(..path.len().min(1));
        Some((path, cost))
    }

    /// [`Grid::path_toward`], and of the cheapest paths one whose steps pay
    /// the least `toll` (a step `from` → `to` pays `toll(from, to)`, at most
    /// `most`): a mover that takes the cheapest way and, among those, the
    /// one that spares it most. The cost returned is the movement cost
    /// alone.
    #[must_use]
    pub fn path_sparing(
        &self,
        (from, target): (Cell, Cell),
        stop_within: u32,
        blocked: impl Fn(Cell) -> bool,
        (toll, most): (impl Fn(Cell, Cell) -> u32, u32),
    ) -> Option<(Vec<Cell>, u32)> {
        let Some(scale) = self.toll_scale(most).filter(|_| self.keeps_slots(from)) else {
            return self.path_sparing_unslotted((from, target), stop_within, blocked, toll);
        };
        // Movement first, the toll only between paths of equal movement:
        // a path's tolls come to less than one unit of movement at this
        // scale, so costs order as the unslotted search's do, and the
        // search takes the very same path.
        let toll = &toll;
        let board = search::Board {
            slots: self.width as usize * self.height as usize,
            slot: |c| self.index(c),
            successors: |c| {
                self.slotted_steps(c, &blocked)
                    .map(move |(n, cost, i)| (n, cost * scale + toll(c, n).min(most), i))
            },
            heuristic: |c| self.distance(c, target).saturating_sub(stop_within) * scale,
            success: |c| self.distance(c, target) <= stop_within,
        };
        let (mut path, cost) = search::astar(from, board, usize::MAX).path()?;
        path.drain(..path.len().min(1));
        Some((path, cost / scale))
    }

    /// The unit of movement of [`Grid::path_sparing`] on this grid, for
    /// steps paying at most `most` each: a power of two above the most a
    /// path's tolls can come to (no path has more steps than the grid has
    /// cells), with the costs of every path and estimate within `u32`.
    /// None when they would not fit.
    fn toll_scale(&self, most: u32) -> Option<u32> {
        let cells = u64::from(self.width) * u64::from(self.height);
        let scale = (u64::from(most) * cells + 1).checked_next_power_of_two()?;
        // Each step costs at most 2 movement; an estimate adds at most the
        // grid's breadth.
        let movement = 2 * cells + u64::from(self.width + self.height) + 1;
        let largest = movement.checked_mul(scale)?.checked_add(scale)?;
        u32::try_from(scale)
            .ok()
            .filter(|_| largest <= u64::from(u32::MAX))
    }

    /// [`Grid::path_sparing`] by the library's own search, in costs wide
    /// enough for any grid.
    fn path_sparing_unslotted(
        &self,
        (from, target): (Cell, Cell),
        stop_within: u32,
        blocked: impl Fn(Cell) -> bool,
        toll: impl Fn(Cell, Cell) -> u32,
    ) -> Option<(Vec<Cell>, u32)> {
        // A path pays at most `u32::MAX` in tolls per step: below one unit
        // of movement at this scale over the 256 steps of a grid of 256
        // cells, and far below it for tolls of a few foes on any grid.
        const MOVEMENT: u64 = 1 << 40;
        let arrived = |c: &Cell| self.distance(*c, target) <= stop_within;
        let heuristic =
            |c: &Cell| u64::from(self.distance(*c, target).saturating_sub(stop_within)) * MOVEMENT;
        let (mut path, cost) = astar(
            &from,
            |&c| {
                self.steps_from(c, &blocked)
                    .map(|(n, cost)| (n, u64::from(cost) * MOVEMENT + u64::from(toll(c, n))))
                    .collect::<Vec<_>>()
            },
            heuristic,
            arrived,
        )?;
        path.drain(..path.len().min(1));
        Some((path, u32::try_from(cost / MOVEMENT).unwrap_or(u32::MAX)))
    }

    /// Whether every cell a path from `from` could end in (an open cell
    /// within `stop_within` of `target`) lies in a pocket of open cells, no
    /// larger than [`POCKET`], that `from` does not border: then no path
    /// exists. False when unsure (a large goal or a large pocket).
    fn pocketed(
        &self,
        from: Cell,
        target: Cell,
        stop_within: u32,
        blocked: &impl Fn(Cell) -> bool,
    ) -> bool {
        if stop_within > POCKET_WITHIN || self.width * self.height < POCKET_BOARD {
            return false;
        }
        let open = |c: Cell| self.enter_cost(c).is_some() && !blocked(c);
        let beside: Vec<Cell> = self.neighbour_cells(from).collect();
        let mut seen = CellSet::new(self);
        let mut pocket: Vec<Cell> = Vec::new();
        for c in self.within(target, stop_within) {
            if open(c) {
                seen.insert(c);
                pocket.push(c);
            }
        }
        let mut next = 0;
        while let Some(&c) = pocket.get(next) {
            if pocket.len() > POCKET || beside.contains(&c) {
                return false;
            }
            next += 1;
            for n in self.neighbour_cells(c) {
                if !seen.contains(&n) && open(n) {
                    seen.insert(n);
                    pocket.push(n);
                }
            }
        }
        true
    }

    /// Every cell reachable from `from` with total cost `<= budget` (Dijkstra),
    /// with that cost, in the cells' order; includes `from` at 0. Obstacles
    /// and cells for which `blocked` returns true are never entered.
    #[must_use]
    pub fn reachable(
        &self,
        from: Cell,
        budget: u32,
        blocked: impl Fn(Cell) -> bool,
    ) -> Vec<(Cell, u32)> {
        if let Some(cells) = range::reach_in_box(self, from, budget, &blocked) {
            return cells;
        }
        let mut cells: Vec<(Cell, u32)> = if self.keeps_slots(from) {
            let board = search::Board {
                slots: self.width as usize * self.height as usize,
                slot: |c| self.index(c),
                successors: |c| self.slotted_steps(c, &blocked),
                heuristic: (),
                success: (),
            };
            search::reach(from, budget, board)
        } else {
            // As for paths: the library's own search.
            dijkstra_reach(&from, |&c| self.steps_from(c, &blocked))
                .take_while(|item| item.total_cost <= budget)
                .map(|item| (item.node, item.total_cost))
                .collect()
        };
        cells.sort_unstable();
        cells
    }

    /// The cost [`Grid::reachable`] found for `c`, if it reached it.
    #[must_use]
    pub fn cost_in(reach: &[(Cell, u32)], c: Cell) -> Option<u32> {
        reach
            .binary_search_by_key(&c, |&(cell, _)| cell)
            .ok()
            .map(|at| reach[at].1)
    }

    /// The neighbours of `c` that can be stepped into, with their cost.
    fn steps_from<'a, B: Fn(Cell) -> bool>(
        &'a self,
        c: Cell,
        blocked: &'a B,
    ) -> impl Iterator<Item = (Cell, u32)> + 'a {
        self.slotted_steps(c, blocked).map(|(n, cost, _)| (n, cost))
    }

    /// [`Grid::steps_from`], each step with the neighbour's place in the
    /// grid, worked out once: what a search keeping one slot a cell takes.
    #[inline]
    fn slotted_steps<'a, B: Fn(Cell) -> bool>(
        &'a self,
        c: Cell,
        blocked: &'a B,
    ) -> impl Iterator<Item = (Cell, u32, usize)> + 'a {
        EXPANDED.with(|n| n.set(n.get() + 1));
        self.neighbour_cells(c).filter_map(move |n| {
            let i = self.index(n)?;
            let cost = self.enter_cost_at(i)?;
            (!blocked(n)).then_some((n, cost, i))
        })
    }

    /// Whether a search from `from` can keep what it sees in one slot a
    /// cell: `from` lies on the grid, and the grid is no larger than
    /// [`SLOTS_KEPT`] cells.
    #[inline]
    fn keeps_slots(&self, from: Cell) -> bool {
        self.in_bounds(from) && self.width as usize * self.height as usize <= SLOTS_KEPT
    }

    #[inline]
    fn bounds(&self) -> Bounds {
        Bounds {
            width: self.width,
            height: self.height,
        }
    }

    #[inline]
    fn neighbour_cells(&self, c: Cell) -> Neighbours {
        let bounds = self.bounds();
        match self.kind {
            GridKind::Hex => HexGeometry { bounds }.neighbour_cells(c),
            GridKind::Square => SquareGeometry { bounds }.neighbour_cells(c),
        }
    }

    /// Bitmap index of an in-bounds cell.
    #[inline]
    fn index(&self, c: Cell) -> Option<usize> {
        let x = u32::try_from(c.x).ok().filter(|&x| x < self.width)?;
        let y = u32::try_from(c.y).ok().filter(|&y| y < self.height)?;
        Some(y as usize * self.width as usize + x as usize)
    }

    /// The cell at a bitmap index (`width` is non-zero whenever a bitmap is).
    #[inline]
    fn cell_at(&self, i: usize) -> Cell {
        let w = (self.width as usize).max(1);
        // Indices are below MAX_SIDE², so both coordinates fit in i32.
        let x = i32::try_from(i % w).unwrap_or(i32::MAX);
        let y = i32::try_from(i / w).unwrap_or(i32::MAX);
        Cell::new(x, y)
    }
}

impl GridGeometry for Grid {
    #[inline]
    fn in_bounds(&self, c: Cell) -> bool {
        self.bounds().contains(c)
    }

    fn neighbours(&self, c: Cell) -> impl Iterator<Item = Cell> + '_ {
        self.neighbour_cells(c)
    }

    #[inline]
    fn distance(&self, a: Cell, b: Cell) -> u32 {
        let bounds = self.bounds();
        match self.kind {
            GridKind::Hex => HexGeometry { bounds }.distance(a, b),
            GridKind::Square => SquareGeometry { bounds }.distance(a, b),
        }
    }

    fn within(&self, c: Cell, range: u32) -> Vec<Cell> {
        let bounds = self.bounds();
        match self.kind {
            GridKind::Hex => HexGeometry { bounds }.within(c, range),
            GridKind::Square => SquareGeometry { bounds }.within(c, range),
        }
    }

    fn line(&self, a: Cell, b: Cell) -> Vec<Cell> {
        let bounds = self.bounds();
        match self.kind {
            GridKind::Hex => HexGeometry { bounds }.line(a, b),
            GridKind::Square => SquareGeometry { bounds }.line(a, b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeSet, HashMap};

    fn c(x: i32, y: i32) -> Cell {
        Cell::new(x, y)
    }

    fn set(cells: impl IntoIterator<Item = Cell>) -> BTreeSet<Cell> {
        cells.into_iter().collect()
    }

    fn hex12() -> Grid {
        Grid::new(GridKind::Hex, 12, 12)
    }

    fn square12() -> Grid {
        Grid::new(GridKind::Square, 12, 12)
    }

    /// [`Grid::reachable`] as a map, checked to come in the cells' order.
    fn reach_map(
        g: &Grid,
        from: Cell,
        budget: u32,
        blocked: impl Fn(Cell) -> bool,
    ) -> HashMap<Cell, u32> {
        let listed = g.reachable(from, budget, blocked);
        assert!(listed.windows(2).all(|w| w[0].0 < w[1].0));
        listed.into_iter().collect()
    }

    fn never(_: Cell) -> bool {
        false
    }

    /// Checks that `path` starts next to `from`, moves one step at a time
    /// through enterable cells, and costs `cost`.
    fn assert_walkable(g: &Grid, from: Cell, path: &[Cell], cost: u32) {
        let mut prev = from;
        let mut total = 0;
        for &step in path {
            assert_eq!(g.distance(prev, step), 1, "{prev} -> {step}");
            assert!(g.neighbours(prev).any(|n| n == step));
            total += g.enter_cost(step).expect("path enters an enterable cell");
            prev = step;
        }
        assert_eq!(total, cost);
    }

    // ---- Cell ----

    #[test]
    fn cell_display() {
        assert_eq!(c(3, 4).to_string(), "(3, 4)");
        assert_eq!(c(-1, 0).to_string(), "(-1, 0)");
    }

    #[test]
    fn cell_ron_round_trip() {
        let text = ron::to_string(&c(3, 4)).expect("serialise");
        assert_eq!(text, "(3,4)");
        let back: Cell = ron::from_str("(3, 4)").expect("deserialise");
        assert_eq!(back, c(3, 4));
        let back: Cell = ron::from_str(&text).expect("deserialise");
        assert_eq!(back, c(3, 4));
        let kind: GridKind = ron::from_str("Hex").expect("deserialise kind");
        assert_eq!(kind, GridKind::Hex);
        assert_eq!(
            ron::to_string(&GridKind::Square).expect("serialise kind"),
            "Square"
        );
    }

    #[test]
    fn cell_ron_rejects_garbage() {
        assert!(ron::from_str::<Cell>("(3)").is_err());
        assert!(ron::from_str::<Cell>("(3, 4, 5)").is_err());
        assert!(ron::from_str::<Cell>("\"x\"").is_err());
    }

    // ---- bounds and bitmaps ----

    #[test]
    fn bounds() {
        let g = Grid::new(GridKind::Square, 12, 8);
        assert_eq!((g.width(), g.height(), g.kind()), (12, 8, GridKind::Square));
        assert!(g.in_bounds(c(0, 0)));
        assert!(g.in_bounds(c(11, 7)));
        assert!(!g.in_bounds(c(12, 0)));
        assert!(!g.in_bounds(c(0, 8)));
        assert!(!g.in_bounds(c(-1, 3)));
        assert!(!g.in_bounds(c(3, i32::MIN)));
    }

    #[test]
    fn sides_are_capped() {
        let g = Grid::new(GridKind::Hex, u32::MAX, 1);
        assert_eq!(g.width(), Grid::MAX_SIDE);
        assert_eq!(g.height(), 1);
        let edge = c(i32::try_from(Grid::MAX_SIDE).expect("fits") - 1, 0);
        assert!(g.in_bounds(edge));
        assert_eq!(g.neighbours(edge).count(), 1);
    }

    /// On a grid larger than any scenario's, a search keeps no slot for
    /// every cell: it finds its way as the library does, in the memory the
    /// cells it reaches take.
    #[test]
    fn a_search_on_the_largest_grid_keeps_no_slot_a_cell() {
        let g = Grid::new(GridKind::Square, u32::MAX, u32::MAX);
        let from = c(40_000, 9);
        assert!(!g.keeps_slots(c(5, 5)));
        assert_eq!(
            g.path_toward(c(5, 5), c(8, 5), 0, never),
            Some((vec![c(6, 5), c(7, 5), c(8, 5)], 3))
        );
        assert_eq!(reach_map(&g, c(5, 5), 1, never).len(), 9);
        assert_eq!(g.path_toward(from, c(8, 5), 0, never), None);
    }

    #[test]
    fn empty_grid_is_harmless() {
        let g = Grid::new(GridKind::Square, 0, 0);
        assert!(!g.in_bounds(c(0, 0)));
        assert_eq!(g.neighbours(c(0, 0)).count(), 0);
        assert!(g.within(c(0, 0), 5).is_empty());
        assert_eq!(g.obstacles().count(), 0);
        assert_eq!(g.path_toward(c(0, 0), c(3, 3), 0, never), None);
        assert_eq!(
            reach_map(&g, c(0, 0), 3, never),
            HashMap::from([(c(0, 0), 0)])
        );
    }

    #[test]
    fn obstacles_and_terrain() {
        let mut g = square12();
        g.add_obstacle(c(3, 1));
        g.add_obstacle(c(1, 2));
        g.add_obstacle(c(3, 1));
        g.add_obstacle(c(12, 0)); // out of bounds: ignored
        g.add_obstacle(c(-1, -1));
        g.add_difficult(c(4, 4));
        g.add_difficult(c(40, 4));
        assert!(g.is_obstacle(c(3, 1)));
        assert!(!g.is_obstacle(c(1, 3)));
        assert!(!g.is_obstacle(c(12, 0)));
        assert_eq!(g.obstacles().collect::<Vec<_>>(), vec![c(3, 1), c(1, 2)]);
        assert!(g.is_difficult(c(4, 4)));
        assert!(!g.is_difficult(c(40, 4)));
        assert_eq!(g.enter_cost(c(0, 0)), Some(1));
        assert_eq!(g.enter_cost(c(4, 4)), Some(2));
        assert_eq!(g.enter_cost(c(3, 1)), None);
        assert_eq!(g.enter_cost(c(12, 3)), None);
        assert_eq!(g.enter_cost(c(-1, 3)), None);
        // An obstacle stays impassable even if also marked difficult.
        g.add_difficult(c(3, 1));
        assert_eq!(g.enter_cost(c(3, 1)), None);
    }

    // ---- hex geometry ----

    #[test]
    fn hex_conversion_matches_hexx_odd_rows() {
        // Odd rows are shifted right: (0, 1) lies to the lower right of (0, 0).
        assert_eq!(hex_of(c(0, 0)), Hex::new(0, 0));
        assert_eq!(hex_of(c(3, 2)), Hex::new(2, 2));
        assert_eq!(hex_of(c(0, 1)), Hex::new(0, 1));
        assert_eq!(hex_of(c(2, 3)), Hex::new(1, 3));
        assert_eq!(hex_of(c(-3, -1)), Hex::new(-2, -1));
        for y in -5..15 {
            for x in -5..15 {
                let cell = c(x, y);
                assert_eq!(cell_of(hex_of(cell)), cell);
                let h = hex_of(cell);
                assert_eq!(axial_wide(cell), (i64::from(h.x), i64::from(h.y)));
            }
        }
    }

    #[test]
    fn hex_neighbours_corners() {
        let g = hex12();
        assert_eq!(set(g.neighbours(c(0, 0))), set([c(1, 0), c(0, 1)]));
        assert_eq!(
            set(g.neighbours(c(11, 0))),
            set([c(10, 0), c(10, 1), c(11, 1)])
        );
        // Row 11 is odd, so shifted right: (11, 11) touches (11, 10) only above.
        assert_eq!(set(g.neighbours(c(11, 11))), set([c(10, 11), c(11, 10)]));
        assert_eq!(
            set(g.neighbours(c(0, 11))),
            set([c(1, 11), c(0, 10), c(1, 10)])
        );
    }

    #[test]
    fn hex_neighbours_edges() {
        let g = hex12();
        // Left edge, even row: the row is not shifted, so the cells up-left and
        // down-left are off the grid.
        assert_eq!(set(g.neighbours(c(0, 4))), set([c(1, 4), c(0, 3), c(0, 5)]));
        // Left edge, odd row: shifted right, five neighbours stay on the grid.
        assert_eq!(
            set(g.neighbours(c(0, 5))),
            set([c(1, 5), c(0, 4), c(1, 4), c(0, 6), c(1, 6)])
        );
        // Top edge.
        assert_eq!(
            set(g.neighbours(c(5, 0))),
            set([c(4, 0), c(6, 0), c(4, 1), c(5, 1)])
        );
        // Right edge, odd row.
        assert_eq!(
            set(g.neighbours(c(11, 5))),
            set([c(10, 5), c(11, 4), c(11, 6)])
        );
    }

    #[test]
    fn hex_neighbours_interior() {
        let g = hex12();
        // Odd row: (x, y±1) and (x+1, y±1).
        assert_eq!(
            set(g.neighbours(c(5, 5))),
            set([c(4, 5), c(6, 5), c(5, 4), c(6, 4), c(5, 6), c(6, 6)])
        );
        // Even row: (x-1, y±1) and (x, y±1).
        assert_eq!(
            set(g.neighbours(c(5, 4))),
            set([c(4, 4), c(6, 4), c(4, 3), c(5, 3), c(4, 5), c(5, 5)])
        );
    }

    #[test]
    fn hex_neighbours_of_outside_cells() {
        let g = hex12();
        // (-1, 1) is off the grid, but its odd row is shifted right, so it
        // touches (0, 0), (0, 1) and (0, 2).
        assert_eq!(
            set(g.neighbours(c(-1, 1))),
            set([c(0, 0), c(0, 1), c(0, 2)])
        );
        assert_eq!(g.neighbours(c(-2, 1)).count(), 0);
        assert_eq!(g.neighbours(c(i32::MAX, i32::MIN)).count(), 0);
    }

    #[test]
    fn neighbours_are_symmetric_and_one_step_away() {
        for g in [hex12(), square12()] {
            for y in 0..12 {
                for x in 0..12 {
                    let a = c(x, y);
                    for b in g.neighbours(a) {
                        assert!(g.in_bounds(b));
                        assert_eq!(g.distance(a, b), 1);
                        assert!(g.neighbours(b).any(|n| n == a), "{a} / {b}");
                    }
                    let expected = g.within(a, 1).len() - 1;
                    assert_eq!(g.neighbours(a).count(), expected);
                }
            }
        }
    }

    #[test]
    fn hex_distance() {
        let g = hex12();
        assert_eq!(g.distance(c(0, 0), c(0, 0)), 0);
        assert_eq!(g.distance(c(0, 0), c(5, 0)), 5);
        assert_eq!(g.distance(c(0, 0), c(0, 1)), 1);
        assert_eq!(g.distance(c(0, 0), c(1, 1)), 2);
        assert_eq!(g.distance(c(0, 0), c(0, 2)), 2);
        assert_eq!(g.distance(c(0, 0), c(1, 2)), 2);
        // (0,0) -> (0,1) -> (1,2) -> (2,2) -> (3,2)
        assert_eq!(g.distance(c(0, 0), c(3, 2)), 4);
        assert_eq!(g.distance(c(3, 2), c(0, 0)), 4);
        // (2,3) -> (3,4) -> (3,5) -> (4,6) -> (4,7) -> (5,7)
        assert_eq!(g.distance(c(2, 3), c(5, 7)), 5);
        // Eleven rows down shift at most five columns right (one per odd row
        // left), leaving six more steps along row 11.
        assert_eq!(g.distance(c(0, 0), c(11, 11)), 17);
        // Out of bounds too: (-3,-1) -> (-2,0) -> (-2,1) -> 4 steps right.
        assert_eq!(g.distance(c(-3, -1), c(2, 1)), 6);
    }

    #[test]
    fn hex_distance_matches_hexx() {
        let g = hex12();
        for (ax, ay) in [(0, 0), (5, 5), (5, 4), (-3, -7), (11, 0)] {
            for y in -6..18 {
                for x in -6..18 {
                    let (a, b) = (c(ax, ay), c(x, y));
                    let expected = hex_of(a).unsigned_distance_to(hex_of(b));
                    assert_eq!(g.distance(a, b), expected, "{a} -> {b}");
                }
            }
        }
    }

    #[test]
    fn distance_never_overflows() {
        let (lo, hi) = (c(i32::MIN, i32::MIN), c(i32::MAX, i32::MAX));
        assert_eq!(square12().distance(lo, hi), u32::MAX);
        assert_eq!(hex12().distance(lo, hi), u32::MAX);
        assert_eq!(hex12().distance(c(i32::MIN, 0), c(0, 0)), 1 << 31);
    }

    #[test]
    fn hex_within() {
        let g = hex12();
        assert_eq!(g.within(c(5, 5), 0), vec![c(5, 5)]);
        assert_eq!(g.within(c(5, 5), 1).len(), 7);
        assert_eq!(g.within(c(5, 4), 1).len(), 7);
        assert_eq!(g.within(c(5, 5), 2).len(), 19);
        assert_eq!(g.within(c(5, 4), 2).len(), 19);
        assert_eq!(g.within(c(5, 5), 3).len(), 37);
        assert_eq!(g.within(c(0, 0), 1), vec![c(0, 0), c(1, 0), c(0, 1)]);
        assert_eq!(g.within(c(0, 0), 100).len(), 144);
        assert_eq!(g.within(c(0, 0), u32::MAX).len(), 144);
        // Row-major order, exact membership.
        assert_eq!(
            g.within(c(5, 5), 1),
            vec![
                c(5, 4),
                c(6, 4),
                c(4, 5),
                c(5, 5),
                c(6, 5),
                c(5, 6),
                c(6, 6)
            ]
        );
        for range in 0..4 {
            let cells = g.within(c(6, 6), range);
            assert!(
                cells
                    .windows(2)
                    .all(|w| (w[0].y, w[0].x) < (w[1].y, w[1].x))
            );
            for y in 0..12 {
                for x in 0..12 {
                    let inside = g.distance(c(6, 6), c(x, y)) <= range;
                    assert_eq!(cells.contains(&c(x, y)), inside);
                }
            }
        }
        // From outside the grid, only the in-bounds part.
        assert_eq!(g.within(c(-1, 1), 1), vec![c(0, 0), c(0, 1), c(0, 2)]);
        assert!(g.within(c(-5, -5), 2).is_empty());
    }

    #[test]
    fn hex_lines() {
        let g = hex12();
        assert_eq!(g.line(c(4, 4), c(4, 4)), vec![c(4, 4)]);
        assert_eq!(
            g.line(c(0, 3), c(4, 3)),
            vec![c(0, 3), c(1, 3), c(2, 3), c(3, 3), c(4, 3)]
        );
        assert_eq!(
            g.line(c(0, 0), c(3, 2)),
            vec![c(0, 0), c(0, 1), c(1, 1), c(2, 2), c(3, 2)]
        );
        // Straight down the left edge zig-zags between even and odd rows.
        assert_eq!(
            g.line(c(0, 0), c(0, 4)),
            vec![c(0, 0), c(0, 1), c(0, 2), c(0, 3), c(0, 4)]
        );
        for (a, b) in [
            (c(0, 0), c(11, 11)),
            (c(9, 2), c(1, 10)),
            (c(3, 7), c(8, 1)),
        ] {
            let line = g.line(a, b);
            assert_eq!(line.len() as u32, g.distance(a, b) + 1);
            assert_eq!((line[0], line[line.len() - 1]), (a, b));
            assert!(line.windows(2).all(|w| g.distance(w[0], w[1]) == 1));
            assert_eq!(line, g.line(a, b));
        }
    }

    #[test]
    fn sight_goes_both_ways() {
        // A line from (2, 2) to (4, 3) passes (3, 3), the one back passes
        // (3, 2): with an obstacle at (3, 3), neither sees the other.
        for kind in [GridKind::Square, GridKind::Hex] {
            let mut g = Grid::new(kind, 8, 8);
            g.add_obstacle(c(3, 3));
            for (a, b) in [(c(2, 2), c(4, 3)), (c(1, 1), c(6, 5)), (c(0, 4), c(7, 2))] {
                assert_eq!(g.in_sight(a, b), g.in_sight(b, a), "{kind:?} {a} {b}");
            }
            if kind == GridKind::Square {
                assert!(!g.in_sight(c(4, 3), c(2, 2)));
            }
        }
    }

    // ---- square geometry ----

    #[test]
    fn square_neighbours() {
        let g = square12();
        assert_eq!(set(g.neighbours(c(0, 0))), set([c(1, 0), c(0, 1), c(1, 1)]));
        assert_eq!(
            set(g.neighbours(c(11, 11))),
            set([c(10, 11), c(11, 10), c(10, 10)])
        );
        assert_eq!(
            set(g.neighbours(c(0, 5))),
            set([c(0, 4), c(1, 4), c(1, 5), c(1, 6), c(0, 6)])
        );
        assert_eq!(
            set(g.neighbours(c(5, 5))),
            set([
                c(4, 4),
                c(5, 4),
                c(6, 4),
                c(4, 5),
                c(6, 5),
                c(4, 6),
                c(5, 6),
                c(6, 6)
            ])
        );
        // Fixed order: orthogonal steps first.
        assert_eq!(
            g.neighbours(c(5, 5)).take(4).collect::<Vec<_>>(),
            vec![c(6, 5), c(5, 6), c(4, 5), c(5, 4)]
        );
    }

    #[test]
    fn square_distance_is_chebyshev() {
        let g = square12();
        assert_eq!(g.distance(c(0, 0), c(3, 5)), 5);
        assert_eq!(g.distance(c(2, 2), c(5, 5)), 3);
        assert_eq!(g.distance(c(7, 1), c(1, 2)), 6);
        assert_eq!(g.distance(c(0, 0), c(11, 11)), 11);
        assert_eq!(g.distance(c(-4, 0), c(0, -2)), 4);
    }

    #[test]
    fn square_within() {
        let g = square12();
        assert_eq!(g.within(c(5, 5), 0), vec![c(5, 5)]);
        assert_eq!(g.within(c(5, 5), 1).len(), 9);
        assert_eq!(g.within(c(5, 5), 2).len(), 25);
        assert_eq!(
            g.within(c(0, 0), 1),
            vec![c(0, 0), c(1, 0), c(0, 1), c(1, 1)]
        );
        assert_eq!(g.within(c(0, 5), 1).len(), 6);
        assert_eq!(g.within(c(3, 3), u32::MAX).len(), 144);
        assert_eq!(g.within(c(12, 12), 1), vec![c(11, 11)]);
    }

    #[test]
    fn square_lines() {
        let g = square12();
        assert_eq!(g.line(c(2, 2), c(2, 2)), vec![c(2, 2)]);
        assert_eq!(
            g.line(c(0, 0), c(4, 2)),
            vec![c(0, 0), c(1, 1), c(2, 1), c(3, 2), c(4, 2)]
        );
        assert_eq!(
            g.line(c(0, 0), c(3, 3)),
            vec![c(0, 0), c(1, 1), c(2, 2), c(3, 3)]
        );
        assert_eq!(
            g.line(c(5, 1), c(5, 4)),
            vec![c(5, 1), c(5, 2), c(5, 3), c(5, 4)]
        );
        assert_eq!(
            g.line(c(4, 2), c(0, 0)),
            vec![c(4, 2), c(3, 1), c(2, 1), c(1, 0), c(0, 0)]
        );
        for (a, b) in [(c(0, 0), c(11, 7)), (c(9, 2), c(1, 10)), (c(3, 7), c(8, 1))] {
            let line = g.line(a, b);
            assert_eq!(line.len() as u32, g.distance(a, b) + 1);
            assert_eq!((line[0], line[line.len() - 1]), (a, b));
            assert!(line.windows(2).all(|w| g.distance(w[0], w[1]) == 1));
        }
    }

    #[test]
    fn lines_clamp_absurd_endpoints() {
        let far = c(i32::MAX, 0);
        let line = square12().line(c(0, 0), far);
        assert_eq!(line.len(), (LINE_LIMIT + 1) as usize);
        assert_eq!(line[line.len() - 1], c(LINE_LIMIT, 0));
        let line = hex12().line(c(0, 0), c(0, i32::MIN));
        assert_eq!(line[line.len() - 1], c(0, -LINE_LIMIT));
    }

    // ---- paths ----

    /// A wall down column 5 from row 0 to row `last_row`.
    fn walled(kind: GridKind, last_row: i32) -> Grid {
        let mut g = Grid::new(kind, 12, 12);
        for y in 0..=last_row {
            g.add_obstacle(c(5, y));
        }
        g
    }

    #[test]
    fn path_without_obstacles_is_straight() {
        for g in [hex12(), square12()] {
            let (path, cost) = g.path_toward(c(1, 1), c(7, 1), 0, never).expect("path");
            assert_eq!(cost, 6);
            assert_eq!(
                path,
                vec![c(2, 1), c(3, 1), c(4, 1), c(5, 1), c(6, 1), c(7, 1)]
            );
        }
    }

    #[test]
    fn square_path_around_wall() {
        let g = walled(GridKind::Square, 9);
        let (path, cost) = g.path_toward(c(3, 2), c(7, 2), 0, never).expect("path");
        // Down to (5, 10) in 8 steps, back up in 8.
        assert_eq!(cost, 16);
        assert_eq!(path.len(), 16);
        assert_eq!(path.last(), Some(&c(7, 2)));
        assert!(path.contains(&c(5, 10)));
        assert_walkable(&g, c(3, 2), &path, cost);
        // The same query always gives the same path.
        assert_eq!(
            g.path_toward(c(3, 2), c(7, 2), 0, never),
            Some((path, cost))
        );
    }

    #[test]
    fn hex_path_around_wall() {
        let g = walled(GridKind::Hex, 9);
        let (path, cost) = g.path_toward(c(3, 2), c(7, 2), 0, never).expect("path");
        // The gap is (5, 10) or (5, 11). (5, 10) is on an even row, so the wall
        // cell (5, 9) is its upper-right neighbour: 8 steps down to it, 1 step
        // right to (6, 10), 8 steps back up. (5, 11) would take 9 + 9.
        assert_eq!(cost, 17);
        assert_eq!(path.len(), 17);
        assert!(path.contains(&c(5, 10)));
        assert!(path.contains(&c(6, 10)));
        assert_eq!(path.last(), Some(&c(7, 2)));
        assert_walkable(&g, c(3, 2), &path, cost);
        assert_eq!(
            g.path_toward(c(3, 2), c(7, 2), 0, never),
            Some((path, cost))
        );
    }

    #[test]
    fn path_refused_when_fully_walled() {
        for kind in [GridKind::Hex, GridKind::Square] {
            let g = walled(kind, 11);
            assert_eq!(g.path_toward(c(3, 2), c(7, 2), 0, never), None);
            assert_eq!(g.path_toward(c(3, 2), c(7, 2), 1, never), None);
            // Three steps from the target is this side of the wall: reachable.
            assert_eq!(g.path_toward(c(3, 2), c(7, 2), 2, never), None);
            let (path, _) = g.path_toward(c(3, 2), c(7, 2), 3, never).expect("path");
            assert_eq!(path, vec![c(4, 2)]);
            // A gap that `blocked` closes is just as closed.
            let g = walled(kind, 10);
            assert!(g.path_toward(c(3, 2), c(7, 2), 0, never).is_some());
            let closed = |x: Cell| x == c(5, 11);
            assert_eq!(g.path_toward(c(3, 2), c(7, 2), 0, closed), None);
        }
    }

    #[test]
    fn path_to_obstacle_or_outside_is_refused() {
        let mut g = square12();
        g.add_obstacle(c(6, 6));
        assert_eq!(g.path_toward(c(0, 0), c(6, 6), 0, never), None);
        assert_eq!(g.path_toward(c(0, 0), c(20, 0), 0, never), None);
        // ...but getting next to it is fine.
        let (path, cost) = g.path_toward(c(0, 0), c(6, 6), 1, never).expect("path");
        assert_eq!((path.last(), cost), (Some(&c(5, 5)), 5));
    }

    #[test]
    fn difficult_terrain_costs_two() {
        // A single row: no way around.
        let mut g = Grid::new(GridKind::Square, 5, 1);
        g.add_difficult(c(1, 0));
        g.add_difficult(c(2, 0));
        let (path, cost) = g.path_toward(c(0, 0), c(3, 0), 0, never).expect("path");
        assert_eq!(path, vec![c(1, 0), c(2, 0), c(3, 0)]);
        assert_eq!(cost, 5);
        // Leaving difficult terrain costs nothing extra.
        let (_, cost) = g.path_toward(c(2, 0), c(4, 0), 0, never).expect("path");
        assert_eq!(cost, 2);

        // With room to go around, the detour of equal length is free.
        let mut g = Grid::new(GridKind::Square, 5, 3);
        g.add_difficult(c(2, 0));
        g.add_difficult(c(2, 1));
        let (path, cost) = g.path_toward(c(0, 0), c(4, 0), 0, never).expect("path");
        assert_eq!(cost, 4);
        assert_eq!(path, vec![c(1, 1), c(2, 2), c(3, 1), c(4, 0)]);

        // On hexes the same single-row corridor.
        let mut g = Grid::new(GridKind::Hex, 5, 1);
        g.add_difficult(c(2, 0));
        let (path, cost) = g.path_toward(c(0, 0), c(4, 0), 0, never).expect("path");
        assert_eq!(path, vec![c(1, 0), c(2, 0), c(3, 0), c(4, 0)]);
        assert_eq!(cost, 5);
    }

    #[test]
    fn each_cell_a_path_search_expands_is_counted() {
        // Straight along an open row to beside the target: A* looks at
        // the steps out of (0,0) to (3,0), and stops on taking (4,0).
        let g = square12();
        let target = c(5, 0);
        let before = cells_expanded();
        g.path_toward(c(0, 0), target, 1, |x| x == target)
            .expect("path");
        assert_eq!(cells_expanded() - before, 4);
        // Nowhere to go: only the start is looked at.
        let before = cells_expanded();
        let walled = |x: Cell| x != c(0, 0);
        assert_eq!(g.path_toward(c(0, 0), target, 1, walled), None);
        assert_eq!(cells_expanded() - before, 1);
    }

    #[test]
    fn path_toward_stops_adjacent() {
        // The target is occupied: blocked, but standing next to it is the goal.
        let target = c(5, 0);
        let occupied = |x: Cell| x == target;
        let g = square12();
        let (path, cost) = g.path_toward(c(0, 0), target, 1, occupied).expect("path");
        assert_eq!(cost, 4);
        assert_eq!(path, vec![c(1, 0), c(2, 0), c(3, 0), c(4, 0)]);
        assert_eq!(g.distance(*path.last().expect("non-empty"), target), 1);

        let g = hex12();
        let target = c(6, 6);
        let occupied = |x: Cell| x == target;
        let (path, cost) = g.path_toward(c(0, 6), target, 1, occupied).expect("path");
        assert_eq!(cost, 5);
        assert_eq!(path, vec![c(1, 6), c(2, 6), c(3, 6), c(4, 6), c(5, 6)]);
        assert_walkable(&g, c(0, 6), &path, cost);

        // Already adjacent: nothing to do.
        assert_eq!(
            g.path_toward(c(5, 6), target, 1, occupied),
            Some((vec![], 0))
        );
        // The start is never tested against `blocked`.
        assert_eq!(
            g.path_toward(c(6, 6), target, 0, occupied),
            Some((vec![], 0))
        );
    }

    #[test]
    fn a_path_ends_beside_a_cell_it_may_not_end_in() {
        // Straight on, (4, 0) is where the path would end; it may only be
        // passed, so the path ends in another cell beside the target.
        let g = square12();
        let target = c(5, 0);
        let occupied = |x: Cell| x == target;
        let lying = c(4, 0);
        let (path, cost) = g
            .path_toward_ending(c(2, 0), target, 1, occupied, |x| x != lying)
            .expect("path");
        assert_eq!(cost, 2);
        assert_eq!(g.distance(*path.last().expect("non-empty"), target), 1);
        assert_ne!(path.last(), Some(&lying));
        assert_eq!(
            g.path_toward(c(2, 0), target, 1, occupied),
            Some((vec![c(3, 0), c(4, 0)], 2))
        );
    }

    #[test]
    fn path_goal_cells_must_be_free() {
        // Every cell next to the target is blocked: no goal can be reached.
        let g = hex12();
        let target = c(6, 6);
        let ring: Vec<Cell> = g.neighbours(target).collect();
        let blocked = |x: Cell| x == target || ring.contains(&x);
        assert_eq!(g.path_toward(c(0, 0), target, 1, blocked), None);
        // One step further out is fine.
        let (path, cost) = g.path_toward(c(0, 6), target, 2, blocked).expect("path");
        assert_eq!((path.last(), cost), (Some(&c(4, 6)), 4));
        // One gap in the ring is enough: the path ends in it.
        let gap = c(5, 6);
        let gapped = |x: Cell| x != gap && blocked(x);
        let (path, cost) = g.path_toward(c(0, 6), target, 1, gapped).expect("path");
        assert_eq!((path.last(), cost), (Some(&gap), 5));
    }

    #[test]
    fn a_free_cell_in_a_closed_pocket_is_out_of_reach() {
        // The target at (5, 5) and the free cell (6, 5) beside it, walled in
        // by a ring of others: no way in from outside, a path from inside.
        // The board is large enough for the pocket to be looked for.
        let g = Grid::new(GridKind::Square, 30, 30);
        let (target, free) = (c(5, 5), c(6, 5));
        let walled = |x: Cell| {
            let ring = (4..=7).contains(&x.x) && (4..=6).contains(&x.y);
            ring && x != free
        };
        assert_eq!(g.path_toward(c(0, 0), target, 1, walled), None);
        // One who stands in the wall borders the pocket and steps in.
        let inside = |x: Cell| walled(x) && x != c(7, 5);
        assert_eq!(
            g.path_toward(c(7, 5), target, 1, inside),
            Some((vec![free], 1))
        );
        // Open the wall and the way around is found.
        let opened = |x: Cell| walled(x) && x != c(7, 4);
        let (path, _) = g.path_toward(c(11, 0), target, 1, opened).expect("path");
        assert_eq!(path.last(), Some(&free));
    }

    #[test]
    fn path_ties_are_deterministic() {
        // Many equal-cost paths exist from (0, 0) to (6, 6) on open ground.
        for g in [hex12(), square12()] {
            let first = g.path_toward(c(0, 0), c(6, 6), 0, never).expect("path");
            for _ in 0..20 {
                let g2 = g.clone();
                assert_eq!(
                    g2.path_toward(c(0, 0), c(6, 6), 0, never),
                    Some(first.clone())
                );
            }
            assert_eq!(first.1, g.distance(c(0, 0), c(6, 6)));
        }
        // Pinned, so that a change in tie-breaking is noticed.
        let hex = hex12().path_toward(c(0, 0), c(6, 6), 0, never);
        let expected = vec![
            c(1, 0),
            c(2, 0),
            c(3, 0),
            c(3, 1),
            c(4, 2),
            c(4, 3),
            c(5, 4),
            c(5, 5),
            c(6, 6),
        ];
        assert_eq!(hex, Some((expected, 9)));
        let square = square12().path_toward(c(0, 0), c(6, 6), 0, never);
        let expected = vec![c(1, 1), c(2, 2), c(3, 3), c(4, 4), c(5, 5), c(6, 6)];
        assert_eq!(square, Some((expected, 6)));
    }

    // ---- reachable ----

    #[test]
    fn the_cost_of_a_reached_cell_is_found_in_the_list() {
        let mut g = square12();
        g.add_difficult(c(6, 5));
        let reach = g.reachable(c(5, 5), 2, never);
        assert_eq!(Grid::cost_in(&reach, c(5, 5)), Some(0));
        assert_eq!(Grid::cost_in(&reach, c(6, 5)), Some(2));
        assert_eq!(Grid::cost_in(&reach, c(7, 7)), Some(2));
        assert_eq!(Grid::cost_in(&reach, c(8, 5)), None);
    }

    #[test]
    fn reachable_square_budget() {
        let mut g = square12();
        assert_eq!(
            reach_map(&g, c(5, 5), 0, never),
            HashMap::from([(c(5, 5), 0)])
        );
        assert_eq!(reach_map(&g, c(5, 5), 1, never).len(), 9);
        assert_eq!(reach_map(&g, c(5, 5), 2, never).len(), 25);
        assert_eq!(reach_map(&g, c(0, 0), 1, never).len(), 4);

        g.add_difficult(c(6, 5));
        g.add_obstacle(c(4, 5));
        let r = reach_map(&g, c(5, 5), 1, never);
        assert_eq!(r.len(), 7);
        assert_eq!(r.get(&c(5, 5)), Some(&0));
        assert_eq!(r.get(&c(6, 6)), Some(&1));
        assert_eq!(r.get(&c(6, 5)), None);
        assert_eq!(r.get(&c(4, 5)), None);
        let r = reach_map(&g, c(5, 5), 2, never);
        assert_eq!(r.get(&c(6, 5)), Some(&2));
        assert_eq!(r.get(&c(3, 5)), Some(&2));
        assert_eq!(r.get(&c(4, 5)), None);
        assert_eq!(r.len(), 24);
        assert!(r.values().all(|&v| v <= 2));
    }

    #[test]
    fn reachable_hex_budget() {
        let mut g = hex12();
        let r = reach_map(&g, c(5, 5), 2, never);
        assert_eq!(r.len(), 19);
        assert_eq!(r.values().filter(|&&v| v == 1).count(), 6);
        assert_eq!(r.values().filter(|&&v| v == 2).count(), 12);
        assert_eq!(set(r.keys().copied()), set(g.within(c(5, 5), 2)));

        // An obstacle east and a blocked cell west cut off the two straight-line
        // cells two steps away; everything else is reached around them.
        g.add_obstacle(c(6, 5));
        let west = |x: Cell| x == c(4, 5);
        let r = reach_map(&g, c(5, 5), 2, west);
        assert_eq!(r.len(), 15);
        assert_eq!(r.get(&c(5, 5)), Some(&0));
        for gone in [c(6, 5), c(4, 5), c(7, 5), c(3, 5)] {
            assert_eq!(r.get(&gone), None, "{gone}");
        }
        assert_eq!(r.get(&c(6, 4)), Some(&1));
        assert_eq!(r.get(&c(7, 4)), Some(&2));
        assert_eq!(reach_map(&g, c(5, 5), 3, west).get(&c(7, 5)), Some(&3));

        // Difficult terrain eats two points of budget.
        g.add_difficult(c(6, 4));
        let r = reach_map(&g, c(5, 5), 2, west);
        assert_eq!(r.get(&c(6, 4)), Some(&2));
        assert_eq!(r.get(&c(7, 4)), None);
    }

    #[test]
    fn reachable_agrees_with_paths() {
        let mut g = hex12();
        for y in 2..10 {
            g.add_obstacle(c(6, y));
        }
        g.add_difficult(c(3, 3));
        g.add_difficult(c(4, 4));
        let r = reach_map(&g, c(2, 5), 7, never);
        for (&cell, &cost) in &r {
            let (_, path_cost) = g.path_toward(c(2, 5), cell, 0, never).expect("path");
            assert_eq!(path_cost, cost, "{cell}");
        }
    }
}
