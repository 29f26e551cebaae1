//! Threat: the cells a combatant's reach covers, and the moves that enter or
//! leave them. Rulesets decide what a threat provokes (a riposte, an attack of
//! opportunity) and who may react; the geometry lives here, once.

use bevy_ecs::entity::Entity;

use crate::grid::{Cell, Grid, GridGeometry};

/// A combatant that threatens the cells within `reach` of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Threatener {
    pub entity: Entity,
    pub cell: Cell,
    pub reach: u32,
}

impl Threatener {
    /// Whether `c` is inside the threat (its own cell excepted).
    pub fn covers(&self, grid: &Grid, c: Cell) -> bool {
        c != self.cell && self.reach > 0 && grid.distance(self.cell, c) <= self.reach
    }

    /// The cells it threatens, in the grid's order.
    pub fn cells(&self, grid: &Grid) -> Vec<Cell> {
        grid.within(self.cell, self.reach)
            .into_iter()
            .filter(|c| *c != self.cell)
            .collect()
    }
}

/// Those whose threat a step `from` → `to` enters.
pub fn entered<'a>(
    grid: &'a Grid,
    from: Cell,
    to: Cell,
    threateners: &'a [Threatener],
) -> impl Iterator<Item = &'a Threatener> + 'a {
    threateners
        .iter()
        .filter(move |t| !t.covers(grid, from) && t.covers(grid, to))
}

/// Those whose threat a step `from` → `to` leaves.
pub fn left<'a>(
    grid: &'a Grid,
    from: Cell,
    to: Cell,
    threateners: &'a [Threatener],
) -> impl Iterator<Item = &'a Threatener> + 'a {
    threateners
        .iter()
        .filter(move |t| t.covers(grid, from) && !t.covers(grid, to))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::GridKind;

    fn foe(x: i32, y: i32, reach: u32) -> Threatener {
        Threatener {
            entity: Entity::PLACEHOLDER,
            cell: Cell::new(x, y),
            reach,
        }
    }

    #[test]
    fn stepping_into_and_out_of_reach() {
        let g = Grid::new(GridKind::Square, 8, 8);
        let t = [foe(4, 4, 1)];
        let into = |a: (i32, i32), b: (i32, i32)| {
            entered(&g, Cell::new(a.0, a.1), Cell::new(b.0, b.1), &t).count()
        };
        let out = |a: (i32, i32), b: (i32, i32)| {
            left(&g, Cell::new(a.0, a.1), Cell::new(b.0, b.1), &t).count()
        };
        assert_eq!(into((2, 4), (3, 4)), 1);
        assert_eq!(
            into((3, 4), (3, 3)),
            0,
            "moving within the threat enters nothing"
        );
        assert_eq!(out((3, 3), (2, 2)), 1);
        assert_eq!(out((2, 2), (1, 1)), 0);
    }

    #[test]
    fn reach_two_covers_a_ring_of_sixteen_squares_plus_eight() {
        let g = Grid::new(GridKind::Square, 9, 9);
        assert_eq!(foe(4, 4, 2).cells(&g).len(), 24);
        let h = Grid::new(GridKind::Hex, 9, 9);
        assert_eq!(foe(4, 4, 1).cells(&h).len(), 6);
        assert!(foe(4, 4, 0).cells(&h).is_empty());
    }
}
