//! What the page `fray rules phases` adds to every ruleset's: the table of
//! actions, row by row, and how weapons are listed.

use std::fmt::Write as _;

use super::PhasesData;
use super::data::Weapon;
use crate::book::{Listed, Page};

impl Page for PhasesData {
    const SEQUENCE: &'static str = "A battle, in order:";
    const RULINGS: &'static str = "where the text leaves the choice to the game master";

    fn before_rulings(&self, out: &mut String) {
        table(out, self);
    }
}

impl Listed for Weapon {
    fn line(&self) -> String {
        if self.melee() {
            format!("{} normal damage, melee (the wielder's reach)", self.damage)
        } else {
            format!(
                "{} normal damage, range {}, {} shots",
                self.damage, self.range, self.shots
            )
        }
    }
}

/// 002 §Table: each row, the order that performs it or why it is not offered.
fn table(out: &mut String, d: &PhasesData) {
    let _ = writeln!(out, "\nThe table of actions (002 §Table), row by row:");
    for m in &d.manoeuvres {
        let offered = match (&m.action, &m.not_offered) {
            (Some(a), _) if super::data::BY_ITSELF.contains(&a.as_str()) => {
                "taken by itself, with no order".to_string()
            }
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
