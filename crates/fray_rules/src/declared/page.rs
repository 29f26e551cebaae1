//! The page `fray rules declared` prints.

use std::fmt::Write as _;

use super::DeclaredData;
use crate::ruleset::{page_heading, page_round, page_rulings, page_templates};

/// The round, the actions with their initiative modifiers (004 §Step 3),
/// the rulings and the weapons.
pub(super) fn page(d: &DeclaredData) -> String {
    let mut out = String::new();
    page_heading(&mut out, &d.name, &d.id, &d.text);
    page_round(&mut out, "A round, in order:", &d.round);
    actions(&mut out, d);
    let _ = writeln!(
        out,
        "\nDeclarations by default: {:?} (scenario option `declaration`).",
        d.declaration
    );
    page_rulings(
        &mut out,
        "where the text leaves the choice to the Referee",
        &d.rulings,
    );
    let _ = writeln!(out, "\nWeapons:");
    for (name, w) in &d.weapons {
        let _ = writeln!(
            out,
            "  {name:<12} {} {:<9} speed {:+}, critical ×{}, reach {}, range {}{}",
            w.damage,
            w.damage_type.word(),
            w.speed,
            w.critical,
            w.reach,
            w.range,
            if w.thrown { ", thrown" } else { "" }
        );
    }
    page_templates(&mut out, &d.templates);
    out
}

/// 004 §Step 3: each action and what it adds to the Round Initiative.
fn actions(out: &mut String, d: &DeclaredData) {
    let n = &d.numbers;
    let r = &d.ruling_numbers;
    let rows = [
        ("attack", "+ weapon speed".to_string()),
        (
            "defensive_attack",
            format!(
                "+ weapon speed {:+} (no riposte on entering a threat range; {:+} without attacking)",
                n.defensive_attack_extra, n.defensive_attack_extra
            ),
        ),
        (
            "full_defense",
            format!(
                "{:+} (+{} Defense, riposte when attacked, half speed)",
                n.full_defense_modifier, n.full_defense_bonus
            ),
        ),
        (
            "cast",
            format!("+ spell speed (TN − {})", n.spell_speed_base),
        ),
        ("consumable", format!("{:+}", n.consumable_modifier)),
        ("throw", format!("{:+}", n.throw_modifier)),
        (
            "stabilise",
            format!("{:+} (ruling stabilise_action)", r.stabilise_modifier),
        ),
        (
            "intimidate",
            format!("{:+} (ruling intimidate_action)", r.intimidate_modifier),
        ),
        (
            "wait",
            format!("{:+} (ruling wait_action)", r.wait_modifier),
        ),
    ];
    let _ = writeln!(
        out,
        "\nActions and their initiative modifiers (004 §Step 3):"
    );
    for (action, effect) in rows {
        let _ = writeln!(out, "  {action:<20} {effect}");
    }
}
