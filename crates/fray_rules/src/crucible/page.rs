//! What the page `fray rules crucible` adds to every ruleset's: the tables
//! of 003, the scenario's options, and how weapons are listed.

use std::fmt::Write as _;

use super::CrucibleData;
use super::data::Weapon;
use crate::book::{Listed, Page};

impl Page for CrucibleData {
    const SEQUENCE: &'static str = "A battle, in order:";
    const RULINGS: &'static str = "where the text leaves the choice to the DM";

    /// The tables of 003, row by row, and the scenario's options.
    fn before_rulings(&self, out: &mut String) {
        tables(out, self);
        let _ = writeln!(
            out,
            "\nScenario options: initiative = group | individual_adjustments | individual_rolls | pcs_individually (003 §II B, §Group Vs. Individual Initiative); wsf_ties, more_attacks_ties, spell_vs_melee_ties, missile_vs_spell_ties = on | off (003 §II G); surprise = roll | none | <side> (003 §I A)."
        );
    }
}

impl Listed for Weapon {
    fn line(&self) -> String {
        let range = if self.range > 0 {
            format!(", range {} ×{}", self.range, self.rate)
        } else {
            String::new()
        };
        let unarmed = if self.unarmed { ", unarmed" } else { "" };
        format!(
            "{} length {}', WSF {}{range}{unarmed}",
            self.damage, self.length, self.wsf
        )
    }
}

/// 003 §Multiple Attacks Per Round By Level, §Surprise and §Movement
/// During the Round, row by row.
fn tables(out: &mut String, d: &CrucibleData) {
    let _ = writeln!(
        out,
        "\nMultiple attacks per round by level (003 §Multiple Attacks Per Round By Level; ruling three_for_two):"
    );
    let _ = writeln!(
        out,
        "  {:<10} {:<8} {:<8} {:<8}",
        "class", "1/1", "3/2", "2/1"
    );
    for (class, (three, two)) in &d.attacks {
        let _ = writeln!(
            out,
            "  {:<10} {:<8} {:<8} {:<8}",
            format!("{class:?}"),
            format!("1-{}", three - 1),
            format!("{three}-{}", two - 1),
            format!("{two}+")
        );
    }
    let n = &d.numbers;
    let _ = writeln!(
        out,
        "\nSurprise (003 §Surprise): {} against 1-{} — implemented in crucible/start.rs:",
        n.surprise_die, n.surprise_range
    );
    let _ = writeln!(
        out,
        "  Elf/halfling on point surprises {} (the enemy's range 1-{})",
        n.on_point_surprises,
        n.surprise_range + n.on_point_surprises
    );
    let _ = writeln!(
        out,
        "  Ranger surprises {:+}; ranger is surprised {:+}",
        n.ranger_surprises, n.ranger_is_surprised
    );
    for (from, adj) in &n.monk_surprised {
        let _ = writeln!(out, "  Monk from level {from} is surprised {adj:+}");
    }
    for (of, adj) in &n.previously_surprised {
        let _ = writeln!(
            out,
            "  Monster previously surprised 1/{of} is surprised {adj:+}"
        );
    }
    let _ = writeln!(
        out,
        "\nMovement by weight (003 §Movement During the Round) — implemented in crucible/mod.rs movement_rate:"
    );
    for b in &d.encumbrance {
        let weight = b
            .up_to
            .map_or("more".to_string(), |w| format!("up to {w}#"));
        let half = b
            .halfling
            .map_or("-".to_string(), |(i, s)| format!("{i}\" ({s}sq)"));
        let _ = writeln!(
            out,
            "  {:<14} {:<10} human/elf/dwarf {}\" ({}sq), halfling {half}",
            b.name, weight, b.human.0, b.human.1
        );
    }
}
