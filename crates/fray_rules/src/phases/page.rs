//! The page `fray rules phases` prints.

use std::fmt::Write as _;

use super::PhasesData;
use crate::ruleset::{page_heading, page_paragraphs, page_round, page_rulings, page_templates};

/// The battle's order, the paragraph map, the table of actions, the
/// rulings and the weapons.
pub(super) fn page(d: &PhasesData) -> String {
    let mut out = String::new();
    page_heading(&mut out, &d.name, &d.id, &d.text);
    page_round(&mut out, "A battle, in order:", &d.turn);
    page_paragraphs(&mut out, &d.paragraphs);
    table(&mut out, d);
    page_rulings(
        &mut out,
        "where the text leaves the choice to the game master",
        &d.rulings,
    );
    let _ = writeln!(out, "\nWeapons:");
    for (name, w) in &d.weapons {
        let _ = if w.melee() {
            writeln!(
                out,
                "  {name:<12} {} normal damage, melee (the wielder's reach)",
                w.damage
            )
        } else {
            writeln!(
                out,
                "  {name:<12} {} normal damage, range {}, {} shots",
                w.damage, w.range, w.shots
            )
        };
    }
    page_templates(&mut out, &d.templates);
    out
}

/// 002 §Table: each row, the order that performs it or why it is not offered.
fn table(out: &mut String, d: &PhasesData) {
    let _ = writeln!(out, "\nThe table of actions (002 §Table), row by row:");
    for m in &d.manoeuvres {
        let offered = match (&m.action, &m.not_offered) {
            (Some(a), _) => format!("order `{a}`"),
            (None, Some(why)) => format!("not offered yet: {why}"),
            (None, None) => "not offered yet".to_string(),
        };
        let _ = writeln!(
            out,
            "  {:<58} {:<18} AoO: {}\n     {offered}",
            m.name,
            m.kind.words(),
            m.provokes.words()
        );
        if !m.effect.is_empty() {
            let _ = writeln!(out, "     {}", m.effect);
        }
    }
}
