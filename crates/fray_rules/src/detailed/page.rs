//! What the page `fray rules detailed_sequence` adds to every ruleset's:
//! the gamesmaster's tables, the armour classes, and how weapons and spells
//! are listed.

use std::fmt::Write as _;

use super::DetailedData;
use super::data::{Spell, Weapon};
use crate::book::{Listed, Page};

impl Page for DetailedData {
    const SEQUENCE: &'static str = "A round, in order:";
    const RULINGS: &'static str = "where the text says to consult the gamesmaster, or leaves a gap";

    /// The rulings' tables and the armour classes.
    fn after_rulings(&self, out: &mut String) {
        tables(out, self);
        let _ = writeln!(out, "\nArmour classes:");
        for (name, a) in &self.armours {
            let _ = writeln!(
                out,
                "  {name:<10} AC {:>2}, second modifier {}, critical on {}",
                a.ac, a.second_modifier, a.critical
            );
        }
    }
}

impl Listed for Weapon {
    fn line(&self) -> String {
        let range = if self.range > 0 {
            format!(", range {}", self.range)
        } else {
            String::new()
        };
        format!(
            "{:?} {:?}: to hit {}, damage {}, breakage {}, reach {}{range}",
            self.heft, self.kind, self.to_hit, self.damage, self.breakage, self.reach,
        )
    }
}

impl Listed for Spell {
    fn line(&self) -> String {
        let effect = match &self.effect {
            super::data::SpellEffect::Harm(d) => format!("{d} EN damage"),
            super::data::SpellEffect::Mend(d) => format!("restores {d} EN"),
        };
        format!("range {}, EN cost {}, {effect}", self.range, self.en_cost)
    }
}

/// The rulings' tables, row by row.
fn tables(out: &mut String, d: &DetailedData) {
    for (title, rows) in [
        ("Double ones (D20, ruling fumble)", &d.fumble),
        ("Double tens (D20, ruling double_tens)", &d.double_tens),
        (
            "A parry one short (D100, ruling parry_strain)",
            &d.parry_strain,
        ),
        (
            "Maximum damage (D20, ruling maximum_damage)",
            &d.maximum_damage,
        ),
    ] {
        let _ = writeln!(out, "\n{title}:");
        let mut from = 1;
        for r in rows {
            let _ = writeln!(out, "  {from:>3}-{:<3} {}", r.to, r.text);
            from = r.to + 1;
        }
    }
}
