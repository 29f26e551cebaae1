//! The `crucible` ruleset's data (`assets/rulesets/crucible.ron`): the
//! numbers of 003 (surprise, initiative, the 5' step), the table of attacks
//! per round by level, the encumbrance table, weapons with their length and
//! speed factor, spells with their casting time, stat blocks, and every
//! ruling that fills a gap the text leaves to the DM.

use std::collections::BTreeMap;

use fray_core::data::{LoadError, Source};
use fray_core::dice::DiceExpr;
use serde::Deserialize;

use crate::book::Checked;

/// A character class, as 003 §Multiple Attacks Per Round By Level and
/// §Surprise name them; `Monster` for creatures with their own attacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize)]
pub enum Class {
    Fighter,
    Paladin,
    Ranger,
    Monk,
    Cleric,
    MagicUser,
    Thief,
    Monster,
}

/// Race, for 003 §Surprise (elf or halfling on point) and §Movement During
/// the Round (small folk, dwarves).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
pub enum Race {
    Human,
    Elf,
    Dwarf,
    Halfling,
    Monster,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weapon {
    pub damage: DiceExpr,
    /// Length in feet: on entering melee the longer strikes first (003 §II E).
    pub length: u32,
    /// Weapon speed factor, for the tie option of 003 §II G.
    pub wsf: u32,
    /// Cells it can be shot or thrown; 0 for melee only.
    #[serde(default)]
    pub range: u32,
    /// Shots per round (a missile weapon).
    #[serde(default = "one")]
    pub rate: u32,
    /// Bare hands (003 §II E: weapons always beat the unarmed).
    #[serde(default)]
    pub unarmed: bool,
}

fn one() -> u32 {
    1
}

/// Spells, as every classic ruleset writes them (ruling `spell_effects`
/// or `casting_time` says what Fray does with them).
pub use fray_core::casting::{Spell, SpellEffect};

/// A stat block.
#[derive(Clone, Debug, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Template {
    pub class: Class,
    #[serde(default = "one")]
    pub level: u32,
    pub race: Race,
    /// Hit points (ruling `hit_points`).
    pub hp: i32,
    /// Armour class without Dexterity, descending (ruling `attack_roll`).
    pub ac: i32,
    /// Dexterity's defensive adjustment to AC (negative is better).
    #[serde(default)]
    pub dex_ac: i32,
    /// Dexterity's adjustment to initiative (subtracted: lowest acts first).
    #[serde(default)]
    pub dex_initiative: i32,
    /// To hit armour class 0 (ruling `attack_roll`).
    pub thac0: i32,
    /// Strength's bonus to melee damage (ruling `damage`).
    #[serde(default)]
    pub damage_bonus: i32,
    /// Strength's adjustment to the weight totals, in pounds (003 §Movement).
    #[serde(default)]
    pub strength_allowance: i32,
    /// Weight carried, in pounds.
    #[serde(default)]
    pub load: u32,
    /// A monster's own movement in squares (the table is for characters).
    #[serde(default)]
    pub speed: Option<u32>,
    /// A monster's attacks per round (the table is for the classes).
    #[serde(default)]
    pub attacks: Option<u32>,
    /// Monster morale adjustment (ruling `morale_check`).
    #[serde(default)]
    pub morale: i32,
    /// "Previously surprised 1/8" (8) or "1/10 or better" (10); 0 for neither.
    #[serde(default)]
    pub previously_surprised: u32,
    #[serde(default)]
    pub weapons: Vec<String>,
    #[serde(default)]
    pub spells: Vec<String>,
}

/// One row of the encumbrance table (003 §Movement During the Round).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Band {
    pub name: String,
    /// The heaviest load of the band, in pounds; `None`: any more.
    pub up_to: Option<u32>,
    /// Human, elf and dwarf: inches and squares.
    pub human: (u32, u32),
    /// Halfling: inches and squares; `None`: cannot move.
    pub halfling: Option<(u32, u32)>,
}

/// The numbers the text gives.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Numbers {
    pub surprise_die: DiceExpr,
    /// 003 §I B: 1–4 on the d12.
    pub surprise_range: i32,
    pub initiative_die: DiceExpr,
    /// 003 §Surprise: an elf or halfling on point surprises 4.
    pub on_point_surprises: i32,
    pub ranger_surprises: i32,
    pub ranger_is_surprised: i32,
    /// Monk levels from which it is surprised less: (from level, adjustment).
    pub monk_surprised: Vec<(u32, i32)>,
    /// Monsters previously surprised 1/8 or 1/10: (denominator, adjustment).
    pub previously_surprised: Vec<(u32, i32)>,
    /// 003 §The 5' Step: one square.
    pub step_cells: u32,
    /// 003 §Withdrawal Tactics: falling back, no more than 10'.
    pub fall_back_cells: u32,
}

/// Numbers of the rulings, next to the rulings' words.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulingNumbers {
    pub attack_die: DiceExpr,
    pub morale_dice: DiceExpr,
    pub morale_target: i32,
    pub rear_bonus: i32,
    pub parry_penalty: i32,
    pub run_multiplier: u32,
    pub dwarf_allowance: i32,
    pub full_round: u32,
    pub drop_weapon_cells: u32,
}

crate::book::data_file!(
    /// The `crucible` ruleset's data.
    CrucibleData for "crucible" {
        /// 003 §Multiple Attacks Per Round By Level: the level from which a
        /// class has 3/2 and the level from which it has 2/1.
        attacks: BTreeMap<Class, (u32, u32)>,
        /// 003 §Movement During the Round: movement by weight.
        encumbrance: Vec<Band>,
    }
);

/// What only 003 needs of a data file: the attacks table in order, and the
/// encumbrance table ending with a band for any load.
fn check_own(d: &CrucibleData, src: &Source) -> Result<(), LoadError> {
    for (class, (three_halves, two)) in &d.attacks {
        if three_halves >= two {
            return Err(src.error_at_field(
                "attacks",
                format!("{class:?}: 3/2 must come at a lower level than 2/1"),
            ));
        }
    }
    if d.encumbrance.is_empty() || d.encumbrance.last().is_some_and(|b| b.up_to.is_some()) {
        return Err(src.error_at_field(
            "encumbrance",
            "the encumbrance table must end with a band for any load (up_to: None)",
        ));
    }
    Ok(())
}

impl Checked for Template {
    fn problem(&self) -> Option<String> {
        if self.level < 1 {
            Some("needs a level of at least 1".into())
        } else {
            (self.hp < 1).then(|| "needs at least 1 hit point".into())
        }
    }
}

crate::book::stock!(Template: weapons, spells);

impl Checked for Weapon {}

impl CrucibleData {
    /// 003 §Multiple Attacks Per Round By Level: attacks this `round` for a
    /// `class` of `level` (3/2 alternates, ruling `three_for_two`).
    pub fn attacks_per_round(&self, class: Class, level: u32, round: u32) -> Option<u32> {
        let &(three_halves, two) = self.attacks.get(&class)?;
        Some(if level >= two {
            2
        } else if level >= three_halves {
            if round.is_multiple_of(2) { 2 } else { 1 }
        } else {
            1
        })
    }

    /// The row of the attacks table for `class` at `level`, in the text's words.
    pub fn attacks_row(&self, class: Class, level: u32) -> &'static str {
        match self.attacks.get(&class) {
            Some(&(_, two)) if level >= two => "2/1",
            Some(&(three_halves, _)) if level >= three_halves => "3/2",
            _ => "1/1",
        }
    }
}
