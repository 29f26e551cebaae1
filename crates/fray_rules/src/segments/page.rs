//! The page `fray rules segments` prints.

use std::fmt::Write as _;

use super::SegmentsData;
use crate::ruleset::{page_heading, page_paragraphs, page_round, page_rulings, page_templates};

/// The battle's order, the paragraph map, the rulings, weapons and spells.
pub(super) fn page(d: &SegmentsData) -> String {
    let mut out = String::new();
    page_heading(&mut out, &d.name, &d.id, &d.text);
    page_round(&mut out, "A battle, in order:", &d.round);
    page_paragraphs(&mut out, &d.paragraphs);
    let _ = writeln!(
        out,
        "\nOrders: attack, charge, move, cast, flee, set_spear, hold (with: \"N\", up to segment {}), wait; \
         in a caster's segment: cast or decline; when interrupting: strike or let_pass.",
        d.numbers.segments_per_round
    );
    page_rulings(
        &mut out,
        "where the text leaves the choice to the GM",
        &d.rulings,
    );
    let _ = writeln!(out, "\nWeapons:");
    for (name, w) in &d.weapons {
        let how = if w.missile() {
            format!("range {}, {} per routine", w.range, w.rate)
        } else {
            format!(
                "reach {}{}",
                w.reach,
                if w.rate > 1 {
                    format!(", {} per routine", w.rate)
                } else {
                    String::new()
                }
            )
        };
        let set = if w.set_vs_charge {
            ", can be set against a charge"
        } else {
            ""
        };
        let _ = writeln!(out, "  {name:<15} {} {how}{set}", w.damage);
    }
    let _ = writeln!(out, "\nSpells (casting time in segments):");
    for (name, s) in &d.spells {
        let _ = writeln!(
            out,
            "  {name:<18} {} segment(s), range {}, {:?}",
            s.casting_time, s.range, s.effect
        );
    }
    page_templates(&mut out, &d.templates);
    out
}
