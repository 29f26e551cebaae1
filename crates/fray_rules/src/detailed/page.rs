//! The page `fray rules detailed_sequence` prints.

use std::fmt::Write as _;

use super::DetailedData;
use crate::ruleset::{page_heading, page_paragraphs, page_round, page_rulings, page_templates};

/// The round, the paragraph map, the rulings with their tables, armour and
/// weapons.
pub(super) fn page(d: &DetailedData) -> String {
    let mut out = String::new();
    page_heading(&mut out, &d.name, &d.id, &d.text);
    page_round(&mut out, "A round, in order:", &d.round);
    page_paragraphs(&mut out, &d.paragraphs);
    page_rulings(
        &mut out,
        "where the text says to consult the gamesmaster, or leaves a gap",
        &d.rulings,
    );
    tables(&mut out, d);
    let _ = writeln!(out, "\nArmour classes:");
    for (name, a) in &d.armours {
        let _ = writeln!(
            out,
            "  {name:<10} AC {:>2}, second modifier {}, critical on {}",
            a.ac, a.second_modifier, a.critical
        );
    }
    let _ = writeln!(out, "\nWeapons:");
    for (name, w) in &d.weapons {
        let range = if w.range > 0 {
            format!(", range {}", w.range)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  {name:<11} {:?} {:?}: to hit {}, damage {}, breakage {}, reach {}{range}",
            w.heft, w.kind, w.to_hit, w.damage, w.breakage, w.reach,
        );
    }
    page_templates(&mut out, &d.templates);
    out
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
