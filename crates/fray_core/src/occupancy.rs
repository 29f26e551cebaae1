//! Who stands where: the grid index every spatial question of the rules
//! asks — who blocks a path, who is near enough to riposte, which foe is
//! nearest — so that a question about a few cells looks at those cells,
//! not at everyone on the field.
//!
//! A combatant's [`Cell`] is only ever replaced, never changed in place
//! (the component is immutable), and [`Blocking`] is added and taken off;
//! hooks on both keep the index in step with every change, in the battle
//! and in each of its forks alike.

use bevy_ecs::lifecycle::HookContext;
use bevy_ecs::prelude::*;
use bevy_ecs::query::QueryItem;
use bevy_ecs::world::DeferredWorld;

use crate::grid::{Cell, Grid};
use crate::model::Blocking;

/// Where one combatant is counted.
#[derive(Clone, Copy, Debug)]
struct Placed {
    entity: Entity,
    cell: Cell,
    blocking: bool,
}

/// The index: the combatants standing in each cell of the grid, and the
/// cells someone [`Blocking`] stands in.
#[derive(Resource, Clone, Debug)]
pub struct Occupancy {
    width: u32,
    height: u32,
    /// Each cell's combatants, by the cell's index, in the order they
    /// came; one more list beyond the grid's cells, for those off it.
    here: Vec<Vec<Entity>>,
    /// How many combatants blocking stand in each cell (and off the grid).
    blocking: Vec<u32>,
    /// The cells blocked: marked by index, where in `blocked` each is, and
    /// the list.
    marks: Vec<bool>,
    blocked_at: Vec<u32>,
    blocked: Vec<Cell>,
    /// Where each combatant is counted, by its entity's index.
    placed: Vec<Option<Placed>>,
    /// How many are counted.
    count: usize,
}

impl Default for Occupancy {
    /// An index of no grid yet: everyone counted is off it.
    fn default() -> Self {
        Self::sized(0, 0)
    }
}

impl Occupancy {
    /// An empty index of a `width × height` grid.
    fn sized(width: u32, height: u32) -> Self {
        let cells = width as usize * height as usize;
        Self {
            width,
            height,
            here: vec![Vec::new(); cells + 1],
            blocking: vec![0; cells + 1],
            marks: vec![false; cells],
            blocked_at: vec![0; cells],
            blocked: Vec::new(),
            placed: Vec::new(),
            count: 0,
        }
    }

    /// The index of `c` in the lists, or the one for all off the grid.
    fn slot(&self, c: Cell) -> usize {
        let inside =
            c.x >= 0 && c.y >= 0 && (c.x as u32) < self.width && (c.y as u32) < self.height;
        if inside {
            c.y as usize * self.width as usize + c.x as usize
        } else {
            self.off()
        }
    }

    /// The list of those off the grid.
    fn off(&self) -> usize {
        self.width as usize * self.height as usize
    }

    /// Count `p` in.
    fn add(&mut self, p: Placed) {
        let i = p.entity.index_u32() as usize;
        if self.placed.len() <= i {
            self.placed.resize(i + 1, None);
        }
        self.placed[i] = Some(p);
        self.count += 1;
        let s = self.slot(p.cell);
        self.here[s].push(p.entity);
        if p.blocking {
            self.block(s, p.cell, true);
        }
    }

    /// Count `e` out.
    fn take(&mut self, e: Entity) -> Option<Placed> {
        let i = e.index_u32() as usize;
        let p = self.placed.get_mut(i)?.take_if(|p| p.entity == e)?;
        self.count -= 1;
        let s = self.slot(p.cell);
        self.here[s].retain(|&x| x != e);
        if p.blocking {
            self.block(s, p.cell, false);
        }
        Some(p)
    }

    /// One more (or one fewer) combatant blocking in slot `s`, at `c`.
    fn block(&mut self, s: usize, c: Cell, more: bool) {
        if more {
            self.blocking[s] += 1;
            if self.blocking[s] == 1 && s < self.off() {
                self.marks[s] = true;
                self.blocked_at[s] = self.blocked.len() as u32;
                self.blocked.push(c);
            }
        } else {
            self.blocking[s] = self.blocking[s].saturating_sub(1);
            if self.blocking[s] == 0 && s < self.off() {
                self.marks[s] = false;
                let at = self.blocked_at[s] as usize;
                self.blocked.swap_remove(at);
                if let Some(&moved) = self.blocked.get(at) {
                    let m = self.slot(moved);
                    self.blocked_at[m] = at as u32;
                }
            }
        }
    }

    /// Sized `width × height`, everyone counted again where they stand.
    fn fit(&mut self, width: u32, height: u32) {
        let placed: Vec<Placed> = self.placed.iter().flatten().copied().collect();
        *self = Self::sized(width, height);
        for p in placed {
            self.add(p);
        }
    }

    /// The combatants standing in `c`, in the order they came.
    pub fn at(&self, c: Cell) -> &[Entity] {
        let s = self.slot(c);
        if s == self.off() {
            return &[];
        }
        &self.here[s]
    }

    /// Where `e` stands, as the index has it.
    pub fn cell_of(&self, e: Entity) -> Option<Cell> {
        let p = self.placed.get(e.index_u32() as usize)?.as_ref()?;
        (p.entity == e).then_some(p.cell)
    }

    /// Call `f` with every combatant at most `r` columns and rows from `c`
    /// and its cell, and with those off the grid. The square holds every
    /// cell within `r` steps of `c` on either kind of grid (a step moves at
    /// most one column and one row): `f` measures the distance itself and
    /// keeps those near enough.
    pub fn near(&self, c: Cell, r: u32, mut f: impl FnMut(Entity, Cell)) {
        self.square(c, r, false, &mut f);
        self.off_grid(&mut f);
    }

    /// Whether the square of half-side `r` has no more cells than the field
    /// has combatants: then looking in it beats looking over everyone.
    pub fn small(&self, r: u32) -> bool {
        let side = 2 * u64::from(r) + 1;
        side.saturating_mul(side) <= self.count as u64
    }

    /// Call `f` with every combatant exactly `r` columns or rows from `c`
    /// (the rim of the square [`Occupancy::near`] looks in), and with those
    /// off the grid along with the rim of 0. A search for the nearest looks
    /// rim after rim, and may stop once the rim is further than the nearest
    /// found: no cell on it or beyond is nearer.
    pub fn rim(&self, c: Cell, r: u32, mut f: impl FnMut(Entity, Cell)) {
        self.square(c, r, true, &mut f);
        if r == 0 {
            self.off_grid(&mut f);
        }
    }

    fn off_grid(&self, f: &mut impl FnMut(Entity, Cell)) {
        for &e in &self.here[self.off()] {
            if let Some(cell) = self.cell_of(e) {
                f(e, cell);
            }
        }
    }

    /// Those in the cells of the square of half-side `r` around `c`, or of
    /// its rim only, row by row.
    fn square(&self, c: Cell, r: u32, rim: bool, f: &mut impl FnMut(Entity, Cell)) {
        let r = i64::from(r);
        let (w, h) = (i64::from(self.width), i64::from(self.height));
        let (x, y) = (i64::from(c.x), i64::from(c.y));
        let mut cell = |cx: i64, cy: i64| {
            let s = (cy * w + cx) as usize;
            for &e in &self.here[s] {
                f(e, Cell::new(cx as i32, cy as i32));
            }
        };
        for cy in (y - r).max(0)..=(y + r).min(h - 1) {
            if rim && (cy - y).abs() != r {
                // A row of the rim between its top and bottom: its two ends.
                for cx in [x - r, x + r] {
                    if (0..w).contains(&cx) {
                        cell(cx, cy);
                    }
                }
                continue;
            }
            for cx in (x - r).max(0)..=(x + r).min(w - 1) {
                cell(cx, cy);
            }
        }
    }

    /// The combatant `score` ranks first, looked for rim by rim outward
    /// from `c`. For each combatant that counts, `score` gives its distance
    /// from `c` on the grid's own measure, then what breaks ties; the look
    /// ends at the first rim further than the best found, since no cell on
    /// it or beyond is nearer.
    pub fn first_near<K: Ord + Copy>(
        &self,
        c: Cell,
        mut score: impl FnMut(Entity, Cell) -> Option<(u32, K)>,
    ) -> Option<((u32, K), Entity, Cell)> {
        let mut best: Option<((u32, K), Entity, Cell)> = None;
        let (x, y) = (i64::from(c.x), i64::from(c.y));
        let (w, h) = (i64::from(self.width), i64::from(self.height));
        let furthest = [x, w - 1 - x, y, h - 1 - y]
            .into_iter()
            .map(i64::abs)
            .max()
            .unwrap_or(0);
        let furthest = u32::try_from(furthest).unwrap_or(u32::MAX);
        for r in 0..=furthest {
            if best.is_some_and(|((far, _), _, _)| r > far) {
                break;
            }
            self.rim(c, r, |e, cell| {
                if let Some(key) = score(e, cell)
                    && best.is_none_or(|(b, _, _)| key < b)
                {
                    best = Some((key, e, cell));
                }
            });
        }
        best
    }

    /// The cells someone blocking stands in, but for `except`'s own when
    /// nobody else blocks it: its cells in no particular order.
    pub fn taken(&self, grid: &Grid, except: Entity) -> crate::grid::CellSet {
        let mut marks = self.marks.clone();
        let mut cells = self.blocked.clone();
        let own = self
            .placed
            .get(except.index_u32() as usize)
            .and_then(|p| p.as_ref())
            .filter(|p| p.entity == except && p.blocking);
        if let Some(p) = own {
            let s = self.slot(p.cell);
            if s < self.off() && self.blocking[s] == 1 {
                marks[s] = false;
                cells.swap_remove(self.blocked_at[s] as usize);
            }
        }
        let mut set = if (grid.width(), grid.height()) == (self.width, self.height) {
            crate::grid::CellSet::from_marks(self.width, self.height, marks, cells)
        } else {
            let mut set = crate::grid::CellSet::new(grid);
            set.extend(cells);
            set
        };
        for &e in &self.here[self.off()] {
            if e != except
                && let Some(p) = self.placed[e.index_u32() as usize].filter(|p| p.blocking)
            {
                set.insert(p.cell);
            }
        }
        set
    }
}

/// Call `f` with every combatant `everyone` (a look through
/// [`crate::model::ListedQuery`]) reads within the square of half-side `r`
/// around `c`, and perhaps others: `f` measures the distance itself. From
/// the grid index where the square is small beside the field; in one pass
/// over everyone otherwise, or in a world that keeps no index. Whether it
/// went over everyone.
pub fn listed_near(
    world: &World,
    everyone: &QueryState<crate::model::Listed>,
    c: Cell,
    r: u32,
    mut f: impl FnMut(QueryItem<crate::model::Listed>),
) -> bool {
    match world.get_resource::<Occupancy>() {
        Some(index) if index.small(r) => {
            index.near(c, r, |e, _| {
                if let Ok(listed) = everyone.get_manual(world, e) {
                    f(listed);
                }
            });
            false
        }
        _ => {
            everyone.iter_manual(world).for_each(f);
            true
        }
    }
}

/// Keep the index the size of the grid: after the grid is set.
pub fn fit(world: &mut World) {
    let Some((w, h)) = world
        .get_resource::<Grid>()
        .map(|g| (g.width(), g.height()))
    else {
        return;
    };
    if let Some(mut occupancy) = world.get_resource_mut::<Occupancy>() {
        occupancy.fit(w, h);
    }
}

/// A combatant's cell set: counted where it now stands.
pub(crate) fn cell_set(mut world: DeferredWorld, ctx: HookContext) {
    let e = ctx.entity;
    let Ok(entity) = world.get_entity(e) else {
        return;
    };
    let (Some(&cell), blocking) = (entity.get::<Cell>(), entity.contains::<Blocking>()) else {
        return;
    };
    if let Some(mut occupancy) = world.get_resource_mut::<Occupancy>() {
        occupancy.take(e);
        occupancy.add(Placed {
            entity: e,
            cell,
            blocking,
        });
    }
}

/// A combatant's cell about to be replaced or taken off: counted out.
pub(crate) fn cell_gone(mut world: DeferredWorld, ctx: HookContext) {
    if let Some(mut occupancy) = world.get_resource_mut::<Occupancy>() {
        occupancy.take(ctx.entity);
    }
}

/// A combatant starts blocking: its cell counts as blocked, once it has one.
pub(crate) fn blocking_set(world: DeferredWorld, ctx: HookContext) {
    blocks(world, ctx.entity, true);
}

/// A combatant stops blocking.
pub(crate) fn blocking_gone(world: DeferredWorld, ctx: HookContext) {
    blocks(world, ctx.entity, false);
}

fn blocks(mut world: DeferredWorld, e: Entity, blocking: bool) {
    if let Some(mut occupancy) = world.get_resource_mut::<Occupancy>()
        && let Some(p) = occupancy.take(e)
    {
        occupancy.add(Placed { blocking, ..p });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{GridGeometry, GridKind};

    fn field(width: u32, height: u32) -> World {
        let mut world = World::new();
        world.init_resource::<Occupancy>();
        world.insert_resource(Grid::new(GridKind::Square, width, height));
        fit(&mut world);
        world
    }

    /// Who blocks, looked over one by one: what the index must answer.
    fn scanned(world: &mut World, except: Entity) -> Vec<Cell> {
        let mut cells: Vec<Cell> = world
            .query_filtered::<(Entity, &Cell), With<Blocking>>()
            .iter(world)
            .filter(|(e, _)| *e != except)
            .map(|(_, c)| *c)
            .collect();
        cells.sort_unstable();
        cells.dedup();
        cells
    }

    fn taken(world: &World, except: Entity) -> Vec<Cell> {
        let grid = world.resource::<Grid>();
        let mut cells: Vec<Cell> = world
            .resource::<Occupancy>()
            .taken(grid, except)
            .iter()
            .copied()
            .collect();
        cells.sort_unstable();
        cells
    }

    #[test]
    fn the_index_follows_a_move_a_fall_and_a_flight() {
        let mut world = field(6, 5);
        let a = world.spawn((Cell::new(1, 1), Blocking)).id();
        let b = world.spawn((Cell::new(2, 1), Blocking)).id();
        let fallen = world.spawn(Cell::new(2, 1)).id();
        assert_eq!(taken(&world, a), vec![Cell::new(2, 1)]);
        assert_eq!(
            world.resource::<Occupancy>().at(Cell::new(2, 1)),
            &[b, fallen]
        );
        world.entity_mut(a).insert(Cell::new(3, 3));
        assert_eq!(taken(&world, b), vec![Cell::new(3, 3)]);
        assert_eq!(world.resource::<Occupancy>().at(Cell::new(1, 1)), &[]);
        world.entity_mut(b).remove::<Blocking>();
        assert_eq!(
            taken(&world, a),
            Vec::<Cell>::new(),
            "nobody blocks (2, 1) now"
        );
        world.entity_mut(a).despawn();
        assert_eq!(world.resource::<Occupancy>().at(Cell::new(3, 3)), &[]);
        assert_eq!(world.resource::<Occupancy>().cell_of(a), None);
        assert_eq!(
            world.resource::<Occupancy>().cell_of(b),
            Some(Cell::new(2, 1))
        );
    }

    /// Spawns, moves (some off the grid), falls, rises and removals drawn
    /// from a fixed sequence: after each, the index answers as a look over
    /// everyone would.
    #[test]
    fn the_index_answers_as_a_look_over_everyone_after_any_changes() {
        let mut world = field(7, 5);
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut draw = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n) as i32
        };
        let mut all: Vec<Entity> = Vec::new();
        for _ in 0..400 {
            let cell = Cell::new(draw(9) - 1, draw(7) - 1);
            match draw(5) {
                0 => all.push(world.spawn((cell, Blocking)).id()),
                1 if !all.is_empty() => {
                    let e = all[draw(all.len() as u64) as usize];
                    world.entity_mut(e).insert(cell);
                }
                2 if !all.is_empty() => {
                    let e = all[draw(all.len() as u64) as usize];
                    if world.get::<Blocking>(e).is_some() {
                        world.entity_mut(e).remove::<Blocking>();
                    } else {
                        world.entity_mut(e).insert(Blocking);
                    }
                }
                3 if all.len() > 3 => {
                    let e = all.swap_remove(draw(all.len() as u64) as usize);
                    world.entity_mut(e).despawn();
                }
                _ => all.push(world.spawn(cell).id()),
            }
            for &e in &all {
                assert_eq!(taken(&world, e), scanned(&mut world, e));
            }
            let centre = Cell::new(draw(7), draw(5));
            let r = draw(4) as u32;
            let index = world.resource::<Occupancy>();
            let mut near: Vec<(Entity, Cell)> = Vec::new();
            index.near(centre, r, |e, c| near.push((e, c)));
            let mut rims: Vec<(Entity, Cell)> = Vec::new();
            for r in 0..=r {
                index.rim(centre, r, |e, c| rims.push((e, c)));
            }
            let mut looked: Vec<(Entity, Cell)> = world
                .query::<(Entity, &Cell)>()
                .iter(&world)
                .map(|(e, c)| (e, *c))
                .filter(|(_, c)| {
                    let inside = c.x >= 0 && c.y >= 0 && c.x < 7 && c.y < 5;
                    !inside || (c.x - centre.x).abs().max((c.y - centre.y).abs()) <= r as i32
                })
                .collect();
            for v in [&mut near, &mut rims, &mut looked] {
                v.sort_unstable();
            }
            assert_eq!(near, looked);
            assert_eq!(rims, looked);
            // The nearest on a hex grid's measure, first listed of the
            // nearest as the tie-break.
            let hexes = Grid::new(GridKind::Hex, 7, 5);
            let score = |e: Entity, c: Cell| {
                (!e.index_u32().is_multiple_of(3))
                    .then(|| (hexes.distance(centre, c), e.index_u32()))
            };
            let first = world
                .resource::<Occupancy>()
                .first_near(centre, score)
                .map(|(k, e, _)| (k, e));
            let every = world
                .query::<(Entity, &Cell)>()
                .iter(&world)
                .filter_map(|(e, &c)| Some((score(e, c)?, e)))
                .min();
            assert_eq!(first, every);
        }
    }
}
