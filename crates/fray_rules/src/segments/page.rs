//! What the page `fray rules segments` adds to every ruleset's: the orders,
//! and how a weapon strikes.

use std::fmt::Write as _;

use super::{SegmentsData, Weapon};
use crate::book::{Listed, Page};

impl Page for SegmentsData {
    const SEQUENCE: &'static str = "A battle, in order:";
    const RULINGS: &'static str = "where the text leaves the choice to the GM";

    fn before_rulings(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "\nOrders: attack, charge, move, cast, flee, set_spear, hold (with: \"N\", up to segment {}), wait; \
             in a caster's segment: cast or decline; when interrupting: strike or let_pass.",
            self.numbers.segments_per_round
        );
    }
}

impl Listed for Weapon {
    fn line(&self) -> String {
        let how = if self.missile() {
            format!("range {}, {} per routine", self.range, self.rate)
        } else if self.rate > 1 {
            format!("reach {}, {} per routine", self.reach, self.rate)
        } else {
            format!("reach {}", self.reach)
        };
        let set = if self.set_vs_charge {
            ", can be set against a charge"
        } else {
            ""
        };
        format!("{} {how}{set}", self.damage)
    }
}
