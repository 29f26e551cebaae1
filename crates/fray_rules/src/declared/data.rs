//! The `declared` ruleset's data (`assets/rulesets/declared.ron`): the action
//! modifiers of 004 §Step 3, weapons, spells, items, the injury tables, stat
//! blocks, and every ruling that fills a gap the text leaves.

use std::collections::BTreeMap;

use fray_core::data::{LoadError, Source};
use fray_core::dice::DiceExpr;
use serde::Deserialize;

use crate::book::Checked;

/// Damage types, each with its Combat Injury table (004 §Combat Injuries).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
pub enum DamageType {
    Blunt,
    Piercing,
    Slashing,
    Chopping,
    Fire,
    Cold,
    Electric,
    Sonic,
    Acid,
    Holy,
    Unholy,
}

impl DamageType {
    pub fn word(self) -> &'static str {
        match self {
            Self::Blunt => "blunt",
            Self::Piercing => "piercing",
            Self::Slashing => "slashing",
            Self::Chopping => "chopping",
            Self::Fire => "fire",
            Self::Cold => "cold",
            Self::Electric => "electric",
            Self::Sonic => "sonic",
            Self::Acid => "acid",
            Self::Holy => "holy",
            Self::Unholy => "unholy",
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weapon {
    pub damage: DiceExpr,
    /// Added to initiative when attacking with it (004 §Step 3).
    pub speed: i32,
    /// Critical multiplier: 2, 3 or 4 (004 §Critical Hits). Signed, so a
    /// negative one in a data file is refused with the same words as zero.
    pub critical: i32,
    pub damage_type: DamageType,
    /// Cells it reaches in melee; 0 for a missile-only weapon.
    #[serde(default = "one")]
    pub reach: u32,
    /// Cells it can be shot or thrown; 0 for melee only.
    #[serde(default)]
    pub range: u32,
    /// Thrown (spent when thrown) rather than shot.
    #[serde(default)]
    pub thrown: bool,
}

fn one() -> u32 {
    1
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum SpellEffect {
    /// Damage to one creature in range.
    Damage(DiceExpr, DamageType),
    /// Stress restored to one creature in range.
    RestoreStress(DiceExpr),
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spell {
    /// The casting TN.
    pub tn: i32,
    /// Spell speed; the text's default is TN − 10 (004 §Step 3).
    #[serde(default)]
    pub speed: Option<i32>,
    pub range: u32,
    pub effect: SpellEffect,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Item {
    /// Wound Points and Stress restored, Wound Points first.
    pub heals: DiceExpr,
    /// Initiative modifier when used; the text's default is +6.
    #[serde(default)]
    pub modifier: Option<i32>,
}

/// What an injury does in a fight, beyond what the table's text says.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Effect {
    /// Ability damage, rolled (ability names: Agility, Strength, Dexterity, Perception, Memory).
    AbilityDamage(String, DiceExpr),
    HalfSpeed,
    Prone,
    /// "take only 1 action per 2 turns".
    EveryOtherRound,
    /// "can't attack with that arm": a d4 picks the arm (1–2 main, 3–4 off).
    ArmUseless,
    Paralysed,
    Mute,
    Suffocating,
    Concussed,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InjuryRow {
    pub name: String,
    pub text: String,
    #[serde(default)]
    pub effects: Vec<Effect>,
}

/// A stat block.
#[derive(Clone, Debug, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Template {
    /// Hit dice: used for Stress (as written) and the morale check's HD.
    pub hd: u32,
    /// Maximum Stress: this number, even where it is not the average of the
    /// HD dice (ruling `stress_is_fixed`).
    pub stress: i32,
    /// Strength score: maximum Wound Points and the death threshold.
    pub strength: i32,
    pub strength_mod: i32,
    pub agility_mod: i32,
    pub insight_mod: i32,
    /// Defense bonus from armour, shield and the like.
    #[serde(default)]
    pub defense_bonus: i32,
    #[serde(default)]
    pub armour: i32,
    /// Cells per round.
    pub speed: u32,
    /// Added to the d20 of an attack (ruling `attack_roll`).
    #[serde(default)]
    pub attack: i32,
    #[serde(default)]
    pub heal: i32,
    #[serde(default)]
    pub intimidation: i32,
    #[serde(default)]
    pub casting: i32,
    #[serde(default)]
    pub weapons: Vec<String>,
    #[serde(default)]
    pub spells: Vec<String>,
    #[serde(default)]
    pub items: Vec<String>,
}

/// How declarations are made each round (004 §Step 3 leaves it to the table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum DeclarationOrder {
    /// Everyone writes their action down; all are revealed together.
    Simultaneous,
    /// Sides take turns, one creature at a time, in the scenario's side order.
    RoundRobin,
    /// Highest Agility modifier declares first.
    AgilityDescending,
}

impl DeclarationOrder {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "simultaneous" => Some(Self::Simultaneous),
            "round_robin" => Some(Self::RoundRobin),
            "agility_descending" => Some(Self::AgilityDescending),
            _ => None,
        }
    }
}

/// The numbers the text gives, kept with the data so a table can change them.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Numbers {
    pub initiative_die: DiceExpr,
    pub consumable_modifier: i32,
    pub throw_modifier: i32,
    pub full_defense_modifier: i32,
    pub full_defense_bonus: i32,
    pub defensive_attack_extra: i32,
    pub late_arrival_modifier: i32,
    pub spell_speed_base: i32,
    pub morale_dice: DiceExpr,
    pub morale_base_tn: i32,
    pub stabilise_base_tn: i32,
}

/// Numbers of the rulings, next to the rulings' words.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulingNumbers {
    pub attack_die: DiceExpr,
    pub critical_on: u32,
    pub automatic_miss_on: u32,
    pub check_die: DiceExpr,
    pub stabilise_modifier: i32,
    pub intimidate_modifier: i32,
    pub intimidate_range: u32,
    pub wait_modifier: i32,
    pub obvious_defeat_ratio: u32,
    pub prone_attack_bonus: i32,
    pub concussed_attack_penalty: i32,
    pub borrowed_injury_table: DamageType,
    pub combat_injury_die: DiceExpr,
}

crate::book::data_file!(
    /// The `declared` ruleset's data.
    DeclaredData for "declared" {
        /// Who declares first by default (scenario option `declaration`).
        declaration: DeclarationOrder,
        #[serde(default, deserialize_with = "fray_core::data::unique")]
        items: BTreeMap<String, Item>,
        /// 004 §Combat Injuries: a table for each damage type.
        injuries: BTreeMap<DamageType, Vec<InjuryRow>>,
    }
);

/// What only 004 needs of a data file: the items stat blocks carry, and an
/// injury table a row for each face of the injury die.
fn check_own(d: &DeclaredData, src: &Source) -> Result<(), LoadError> {
    for (name, t) in &d.templates {
        let who = ("template ", name.as_str());
        crate::ruleset::check_known(src, who, &t.items, &d.items, "carries unknown item")?;
    }
    let die = d.ruling_numbers.combat_injury_die.max() as usize;
    for (kind, rows) in &d.injuries {
        if !rows.is_empty() && rows.len() != die {
            return Err(src.error_at_field(
                "injuries",
                format!(
                    "the {} injury table has {} rows; the injury die has {die}",
                    kind.word(),
                    rows.len(),
                ),
            ));
        }
    }
    let borrowed = d.ruling_numbers.borrowed_injury_table;
    if d.injuries.get(&borrowed).is_none_or(|rows| rows.is_empty()) {
        return Err(src.error_at_field(
            "borrowed_injury_table",
            format!(
                "the {} injury table is empty, so it cannot be borrowed",
                borrowed.word()
            ),
        ));
    }
    Ok(())
}

impl Checked for Template {
    /// 004 §Stress, §Armour, §Wound Points: Stress and Armour are what stand
    /// between a blow and the body, none or more; Strength is at least 1.
    fn problem(&self) -> Option<String> {
        if self.strength < 1 {
            Some("needs a Strength of at least 1".into())
        } else if self.stress < 0 {
            Some(format!("has Stress {}: it is 0 or more", self.stress))
        } else if self.armour < 0 {
            Some(format!("has Armour {}: it is 0 or more", self.armour))
        } else {
            None
        }
    }
}

crate::book::stock!(Template: weapons, spells);

impl Checked for Weapon {
    fn problem(&self) -> Option<String> {
        if !(2..=4).contains(&self.critical) {
            Some("needs a critical multiplier of 2, 3 or 4".into())
        } else {
            (self.reach == 0 && self.range == 0).then(|| "has neither reach nor range".into())
        }
    }
}

impl Checked for Spell {}

impl DeclaredData {
    /// The ruling named `id` (the data file is checked to have every ruling the code names).
    pub fn ruling(&self, id: &str) -> String {
        format!("ruling {id}")
    }

    /// The longest reach of any melee weapon: no threat range is longer.
    pub fn longest_reach(&self) -> u32 {
        self.weapons.values().map(|w| w.reach).max().unwrap_or(0)
    }
}
