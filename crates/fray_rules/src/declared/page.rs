//! What the page `fray rules declared` adds to every ruleset's: the actions
//! and their initiative modifiers, and how weapons and spells are listed.

use std::fmt::Write as _;

use super::DeclaredData;
use super::data::{Spell, Weapon};
use crate::book::{Listed, Page};

impl Page for DeclaredData {
    const SEQUENCE: &'static str = "A round, in order:";
    const RULINGS: &'static str = "where the text leaves the choice to the Referee";

    /// The actions with their initiative modifiers (004 §Step 3), and who
    /// declares first.
    fn before_rulings(&self, out: &mut String) {
        actions(out, self);
        let _ = writeln!(
            out,
            "\nDeclarations by default: {:?} (scenario option `declaration`).",
            self.declaration
        );
    }
}

impl Listed for Weapon {
    fn line(&self) -> String {
        format!(
            "{} {:<9} speed {:+}, critical ×{}, reach {}, range {}{}",
            self.damage,
            self.damage_type.word(),
            self.speed,
            self.critical,
            self.reach,
            self.range,
            if self.thrown { ", thrown" } else { "" }
        )
    }
}

impl Listed for Spell {
    fn line(&self) -> String {
        let speed = self
            .speed
            .map_or(String::new(), |s| format!(", speed {s:+}"));
        let effect = match &self.effect {
            super::data::SpellEffect::Damage(d, kind) => format!("{d} {} damage", kind.word()),
            super::data::SpellEffect::RestoreStress(d) => format!("restores {d} Stress"),
        };
        format!(
            "casting TN {}{speed}, range {}, {effect}",
            self.tn, self.range
        )
    }
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
