//! The `segments` ruleset's data (`assets/rulesets/segments.ron`): the dice
//! and the ten segments of 001, weapons, spells with their casting times,
//! stat blocks in the classic form (level, hit points, armour class, THAC0,
//! move), and every ruling that fills a gap the text leaves.

use fray_core::data::{LoadError, Source};
use fray_core::dice::DiceExpr;
use serde::Deserialize;

use crate::book::Checked;

/// A weapon: what a hit deals, and how far it reaches or shoots.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weapon {
    pub damage: DiceExpr,
    /// Cells it reaches in melee; 0 for a missile weapon.
    #[serde(default)]
    pub reach: u32,
    /// Cells it shoots; 0 for a melee weapon.
    #[serde(default)]
    pub range: u32,
    /// Attacks in one attack routine (a bow looses two arrows).
    #[serde(default = "one")]
    pub rate: u32,
    /// Can be set against a charge (001 §Combat, ruling `set_spear`).
    #[serde(default)]
    pub set_vs_charge: bool,
}

impl Weapon {
    /// A missile weapon: it shoots and does not reach in melee.
    pub fn missile(&self) -> bool {
        self.reach == 0
    }

    /// How far it strikes: its reach, or its range when shot.
    pub fn strikes(&self) -> u32 {
        if self.missile() {
            self.range
        } else {
            self.reach
        }
    }
}

fn one() -> u32 {
    1
}

/// Spells, as every classic ruleset writes them (ruling `spell_effects`
/// or `casting_time` says what Fray does with them).
pub use fray_core::casting::{Spell, SpellEffect};

/// A stat block, in the classic form.
#[derive(Clone, Debug, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Template {
    /// Level or hit dice.
    pub level: u32,
    /// Hit points (ruling `hit_points`).
    pub hp: i32,
    /// Armour class, descending: 10 unarmoured, lower is better (ruling `armour_class`).
    pub ac: i32,
    /// To hit armour class 0 (ruling `attack_roll`).
    pub thac0: i32,
    /// Cells moved in one action (ruling `movement`).
    #[serde(rename = "move")]
    pub move_cells: u32,
    /// Added to melee damage (Strength).
    #[serde(default)]
    pub damage_bonus: i32,
    /// Dexterity's missile attack bonus: to hit with missiles, and to initiative
    /// with a missile weapon in hand (001 §3).
    #[serde(default)]
    pub missile_bonus: i32,
    /// Dexterity's surprise bonus: negates (or, negative, adds) segments of
    /// surprise (001 §1).
    #[serde(default)]
    pub surprise_bonus: i32,
    /// Its enemies are surprised on a d6 up to this (2 unless stealthy, 001 §1).
    #[serde(default = "two")]
    pub surprises_on: u32,
    /// Never surprised (001 §1: "some monsters cannot be surprised").
    #[serde(default)]
    pub never_surprised: bool,
    /// Attack routines a round: 2 for a fighter whose level grants another (001 §3).
    #[serde(default = "one")]
    pub routines: u32,
    /// 2d6 + this must reach the morale target (ruling `morale`).
    #[serde(default)]
    pub morale: i32,
    #[serde(default)]
    pub weapons: Vec<String>,
    #[serde(default)]
    pub spells: Vec<String>,
}

fn two() -> u32 {
    2
}

/// The numbers the text gives.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Numbers {
    pub surprise_die: DiceExpr,
    pub initiative_die: DiceExpr,
    pub segments_per_round: u32,
}

/// Numbers of the rulings, next to the rulings' words.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulingNumbers {
    pub attack_die: DiceExpr,
    pub charge_bonus: i32,
    pub charge_move_percent: u32,
    pub fleeing_attack_bonus: i32,
    pub set_spear_multiplier: i32,
    pub morale_dice: DiceExpr,
    pub morale_target: i32,
}

crate::book::data_file!(
    /// The `segments` ruleset's data.
    SegmentsData for "segments" {}
);

/// What only 001 needs of a data file: a spear's multiplier, and a round
/// long enough for the segments a d6 names.
fn check_own(d: &SegmentsData, src: &Source) -> Result<(), LoadError> {
    if d.ruling_numbers.set_spear_multiplier < 1 {
        return Err(src.error_at_field("set_spear_multiplier", "the multiplier must be at least 1"));
    }
    if d.numbers.segments_per_round < 6 {
        return Err(src.error_at_field(
            "segments_per_round",
            "a round has at least the six segments a d6 names",
        ));
    }
    Ok(())
}

impl RulingNumbers {
    /// Ruling `charge`: the cells a charge runs, a share of the charger's
    /// `move_cells`.
    pub fn charge_cells(&self, move_cells: u32) -> u32 {
        move_cells * self.charge_move_percent / 100
    }
}

impl Checked for Template {
    fn problem(&self) -> Option<String> {
        if self.hp < 1 || !(1..=2).contains(&self.routines) || self.weapons.is_empty() {
            Some("needs hit points, a weapon and one or two attack routines".into())
        } else {
            (self.surprises_on > 6).then(|| "surprises on a d6, so on 6 at most".into())
        }
    }
}

crate::book::stock!(Template: weapons, spells);

impl Checked for Weapon {
    fn problem(&self) -> Option<String> {
        (self.reach == 0 && self.range == 0 || self.rate == 0)
            .then(|| "needs reach or range, and a rate of at least 1".into())
    }
}
