//! The page `fray rules crucible` prints.

use std::fmt::Write as _;

use super::CrucibleData;
use crate::ruleset::{page_heading, page_paragraphs, page_round, page_rulings, page_templates};

/// The round, the paragraph map, the tables of 003 row by row, the
/// options, the rulings, weapons and spells.
pub(super) fn page(d: &CrucibleData) -> String {
    let mut out = String::new();
    page_heading(&mut out, &d.name, &d.id, &d.text);
    page_round(&mut out, "A battle, in order:", &d.round);
    page_paragraphs(&mut out, &d.paragraphs);
    tables(&mut out, d);
    let _ = writeln!(
        out,
        "\nScenario options: initiative = group | individual_adjustments | individual_rolls | pcs_individually (003 §II B, §Group Vs. Individual Initiative); wsf_ties, more_attacks_ties, spell_vs_melee_ties, missile_vs_spell_ties = on | off (003 §II G); surprise = roll | none | <side> (003 §I A)."
    );
    page_rulings(
        &mut out,
        "where the text leaves the choice to the DM",
        &d.rulings,
    );
    let _ = writeln!(out, "\nWeapons:");
    for (name, w) in &d.weapons {
        let _ = writeln!(
            out,
            "  {name:<12} {} length {}', WSF {}{}{}",
            w.damage,
            w.length,
            w.wsf,
            if w.range > 0 {
                format!(", range {} ×{}", w.range, w.rate)
            } else {
                String::new()
            },
            if w.unarmed { ", unarmed" } else { "" }
        );
    }
    let _ = writeln!(out, "\nSpells:");
    for (name, s) in &d.spells {
        let _ = writeln!(
            out,
            "  {name:<16} casting time {} segments, range {}, {:?}",
            s.casting_time, s.range, s.effect
        );
    }
    page_templates(&mut out, &d.templates);
    out
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
