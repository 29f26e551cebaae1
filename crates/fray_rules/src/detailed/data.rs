//! The `detailed_sequence` ruleset's data (`assets/rulesets/detailed_sequence.ron`):
//! what rules/000 takes from elsewhere (weapons with their hit numbers,
//! damage, breakage numbers and heft; armour classes with their modifiers
//! and critical numbers; the EN die per level), every "consult the
//! gamesmaster" as a ruling with its table, and the map from each paragraph
//! of the text to where Fray implements it.

use std::collections::BTreeMap;

use fray_core::data::{LoadError, Source};
use fray_core::dice::DiceExpr;
use serde::Deserialize;

use crate::book::{Checked, Stock};

/// How heavy a weapon is: a heavy weapon's attack takes a second blow, and
/// drawing it an active blow (000 §1.2.2, §1.2.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum Heft {
    Light,
    Medium,
    Heavy,
}

/// How a weapon is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum WeaponKind {
    /// Cuts or crushes in melee.
    Melee,
    /// Thrusts in melee: a preparation must chain (000 §1.2.4).
    Thrusting,
    /// A flail and the like: no preparation (000 §1.2.4).
    Flexible,
    /// Shot: a bow (a preparation must chain; ranges multiply).
    Bow,
    /// Shot from a sling: flexible, so no preparation.
    Sling,
    /// Thrown.
    Thrown,
    /// Held on the arm: parries, never attacks.
    Shield,
}

impl WeaponKind {
    pub fn missile(self) -> bool {
        matches!(self, Self::Bow | Self::Sling | Self::Thrown)
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weapon {
    pub kind: WeaponKind,
    pub heft: Heft,
    /// The number the hit roll must exceed (000 §1.2.5.1).
    #[serde(default)]
    pub to_hit: i32,
    #[serde(default = "no_damage")]
    pub damage: DiceExpr,
    /// Multiplied for a breakage check (000 §1.2.5.1).
    pub breakage: i32,
    /// Cells a melee weapon reaches.
    #[serde(default = "one")]
    pub reach: u32,
    /// Cells a missile flies, before preparations multiply it.
    #[serde(default)]
    pub range: u32,
}

fn one() -> u32 {
    1
}

fn no_damage() -> DiceExpr {
    DiceExpr::new(0, 1)
}

/// An armour class: the number added to the hit roll, with its second
/// modifier and the critical number (000 §1.2.5.1–2).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Armour {
    pub ac: i32,
    /// Added to the critical roll's subtraction (000 §1.2.5.2).
    pub second_modifier: i32,
    /// The D12 result that makes a hit critical.
    pub critical: i32,
}

/// EN gained per level, which sets the EN a phase may spend (Introduction).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
pub enum EnDie {
    /// AD6 per EL: EL + 2 a phase.
    D6,
    /// AD6+2 per EL: EL + 4 a phase.
    D6Plus2,
    /// AD6+4 per EL: EL + 6 a phase.
    D6Plus4,
}

impl EnDie {
    /// The die by its bonus per EL, as a scenario `set`s it: 0, 2 or 4.
    pub fn from_bonus(bonus: i32) -> Option<Self> {
        match bonus {
            0 => Some(Self::D6),
            2 => Some(Self::D6Plus2),
            4 => Some(Self::D6Plus4),
            _ => None,
        }
    }

    pub fn cap(self, el: i32) -> i32 {
        el + match self {
            Self::D6 => 2,
            Self::D6Plus2 => 4,
            Self::D6Plus4 => 6,
        }
    }
}

/// A stat block.
#[derive(Clone, Debug, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Template {
    /// Experience level.
    pub el: i32,
    pub en_die: EnDie,
    pub en: i32,
    pub bd: i32,
    pub st: i32,
    pub dx: i32,
    /// Active and reactive blows a round.
    pub active: u32,
    pub reactive: u32,
    /// Movement in cells (1" = 1 cell) a round.
    #[serde(rename = "move")]
    pub movement: u32,
    /// EN recovered by resting: the hourly recovery rate (000 §2.1.1).
    pub recovery: i32,
    /// The armour worn (a key of `armours`).
    pub armour: String,
    /// Weapons in hand, then those sheathed.
    pub wielded: Vec<String>,
    #[serde(default)]
    pub sheathed: Vec<String>,
    #[serde(default)]
    pub spells: Vec<String>,
}

/// A spell (000 §2.1.3 names casting; the spells themselves are rulings).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum SpellEffect {
    /// EN damage to one character in range.
    Harm(DiceExpr),
    /// EN restored to one character in range.
    Mend(DiceExpr),
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spell {
    pub range: u32,
    pub en_cost: i32,
    pub effect: SpellEffect,
}

/// What a gamesmaster's table row does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum Consequence {
    Nothing,
    /// The attacker drops its weapon.
    DropWeapon,
    /// The attacker falls.
    AttackerFalls,
    /// The target falls.
    TargetFalls,
    /// The hit is critical.
    Critical,
    /// The damage is rolled again and added.
    ExtraDamage,
    /// The parrying weapon breaks.
    ParryBreaks,
}

/// One row of a gamesmaster's table: D20 (or D100) results up to `to`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableRow {
    pub to: u32,
    pub text: String,
    pub then: Consequence,
}

/// The numbers the text gives.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Numbers {
    pub hit_dice: DiceExpr,
    pub critical_die: DiceExpr,
    pub check_die: DiceExpr,
    pub close_fall_die: DiceExpr,
    pub open_fall_die: DiceExpr,
    pub stumble_from: u32,
    pub max_range: u32,
    pub chase_cost: u32,
    pub preparation_damage: i32,
}

/// Numbers of the rulings.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulingNumbers {
    /// A D100 DX check succeeds at or under DX times this.
    pub d100_dx_multiplier: i32,
    /// Each parry's first AC modifier.
    pub parry_modifier: i32,
    /// An alert target's shield's first AC modifier.
    pub shield_modifier: i32,
    pub breakage_cap: i32,
    /// The armour class of a character not yet wearing its armour.
    pub unarmoured: String,
}

crate::book::data_file!(
    /// The `detailed_sequence` ruleset's data.
    DetailedData for "detailed_sequence" {
        /// 000 §1.2.5.1.1: double ones.
        fumble: Vec<TableRow>,
        /// 000 §1.2.5.1.2: double tens.
        double_tens: Vec<TableRow>,
        /// 000 §1.2.5.1: a parry one short of the hit.
        parry_strain: Vec<TableRow>,
        /// 000 §1.2.5.3: the maximum-damage special case.
        maximum_damage: Vec<TableRow>,
        #[serde(deserialize_with = "fray_core::data::unique")]
        armours: BTreeMap<String, Armour>,
    }
);

/// What only 000 needs of a data file: the armour stat blocks wear, and the
/// gamesmaster's tables covering every roll.
fn check_own(d: &DetailedData, src: &Source) -> Result<(), LoadError> {
    if d.ruling_numbers.d100_dx_multiplier < 1 {
        return Err(src.error_at_field("d100_dx_multiplier", "the multiplier must be at least 1"));
    }
    if !d.armours.contains_key(&d.ruling_numbers.unarmoured) {
        return Err(src.error_at_field(
            "unarmoured",
            format!("no armour named {:?}", d.ruling_numbers.unarmoured),
        ));
    }
    for (name, t) in &d.templates {
        if !d.armours.contains_key(&t.armour) {
            return Err(src.error_at(
                &t.armour,
                Some(name),
                format!("template {name:?} wears unknown armour {:?}", t.armour),
            ));
        }
    }
    for (table, rows, die) in [
        ("fumble", &d.fumble, 20),
        ("double_tens", &d.double_tens, 20),
        ("parry_strain", &d.parry_strain, 100),
        ("maximum_damage", &d.maximum_damage, 20),
    ] {
        if rows.last().is_none_or(|r| r.to < die) {
            return Err(src.error_at_field(
                table,
                format!("the {table} table must cover every roll up to {die}"),
            ));
        }
    }
    Ok(())
}

impl Checked for Template {
    fn problem(&self) -> Option<String> {
        (self.en < 1 || self.bd < 1).then(|| "needs EN and BD of at least 1".into())
    }
}

impl Stock for Template {
    fn carried(&self) -> Vec<String> {
        self.wielded.iter().chain(&self.sheathed).cloned().collect()
    }

    /// The weapons a scenario names for a character are those in its hands;
    /// it keeps the block's sheathed ones.
    fn carried_by(&self, spec: &fray_core::scenario::CombatantSpec) -> Vec<String> {
        let wielded = spec.weapons.as_ref().unwrap_or(&self.wielded);
        wielded.iter().chain(&self.sheathed).cloned().collect()
    }

    fn known_spells(&self) -> &[String] {
        &self.spells
    }
}

impl Checked for Weapon {}

impl Checked for Spell {}

impl DetailedData {
    /// The row of `table` a roll falls on.
    pub fn row(table: &[TableRow], roll: u32) -> &TableRow {
        table
            .iter()
            .find(|r| roll <= r.to)
            .unwrap_or_else(|| &table[table.len() - 1])
    }
}
