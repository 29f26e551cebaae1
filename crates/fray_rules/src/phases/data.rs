//! The `phases` ruleset's data (`assets/rulesets/phases.ron`): the numbers of
//! rules/002, its table of manoeuvres (each with its action type, whether it
//! provokes, and the order that performs it or why none does yet), weapons,
//! stat blocks, every ruling, and the map from each paragraph of the text to
//! where Fray implements it.

use std::collections::BTreeMap;

use fray_core::data::{LoadError, Source};
use fray_core::dice::DiceExpr;
use serde::Deserialize;

use crate::book::Checked;

/// 002 §Action Types: how long an action takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum ActionType {
    Attack,
    Move,
    FullPhase,
    Free,
    NotAnAction,
}

impl ActionType {
    pub fn words(self) -> &'static str {
        match self {
            Self::Attack => "attack action",
            Self::Move => "move action",
            Self::FullPhase => "full-phase action",
            Self::Free => "free action",
            Self::NotAnAction => "not an action",
        }
    }
}

/// The table's "Attack of Opportunity?" column.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub enum Provokes {
    No,
    Yes,
    /// "Yes (skill check negates)": the skill named here (ruling `skill_check_negates`).
    SkillNegates(String),
    /// "Usually (varies)": what Fray decides, as a ruling's words.
    Varies(String),
}

impl Provokes {
    pub fn words(&self) -> String {
        match self {
            Self::No => "No".into(),
            Self::Yes => "Yes".into(),
            Self::SkillNegates(skill) => format!("Yes ({skill} check negates)"),
            Self::Varies(how) => format!("Usually (varies): {how}"),
        }
    }
}

/// One row of the text's table of manoeuvres and actions.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manoeuvre {
    pub name: String,
    pub kind: ActionType,
    pub provokes: Provokes,
    /// The order action that performs it, when Fray offers it.
    #[serde(default)]
    pub action: Option<String>,
    /// Why Fray does not offer it yet.
    #[serde(default)]
    pub not_offered: Option<String>,
    /// What it does (a ruling where the text is silent).
    #[serde(default)]
    pub effect: String,
    #[serde(default)]
    pub ocv: i32,
    #[serde(default)]
    pub dcv: i32,
}

/// The numbers the text gives.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Numbers {
    /// 002 §Time: phases of 3 seconds, four to a 12-second turn.
    pub phases_per_turn: u32,
    pub seconds_per_phase: u32,
    /// 002 §Attack Roll: 3d6 + OCV against 10 + DCV.
    pub attack_dice: DiceExpr,
    pub attack_base: i32,
    /// 002 §Surprise Phase: the unaware's DCV during it.
    pub unaware_dcv: i32,
    /// 002 §Threat: most characters' reach.
    pub reach: u32,
    /// 002 §One per Phase: attacks of opportunity per phase without Combat Reflexes.
    pub opportunities_per_phase: u32,
}

/// Numbers of the rulings, next to the rulings' words.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulingNumbers {
    pub initiative_tie_die: DiceExpr,
    pub skill_dice: DiceExpr,
    pub stunned_dcv_divisor: i32,
    pub underwater_dcv: i32,
    pub haymaker_extra_dice: u32,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weapon {
    /// Normal damage dice (ruling `damage`).
    pub damage: DiceExpr,
    /// Hexes it can be fired; 0 for a melee weapon (its reach is the wielder's).
    #[serde(default)]
    pub range: u32,
    /// Shots before it must be reloaded; 0 for no limit.
    #[serde(default)]
    pub shots: u32,
}

impl Weapon {
    pub fn melee(&self) -> bool {
        self.range == 0
    }
}

/// A stat block.
#[derive(Clone, Debug, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Template {
    /// Combat Value: OCV and DCV, and the Initiative score (002 §Initiative).
    pub cv: i32,
    #[serde(default)]
    pub lightning_reflexes: i32,
    /// Added to OCV (ruling `combat_levels`).
    #[serde(default)]
    pub combat_levels: i32,
    /// Combat movement in hexes per phase.
    #[serde(rename = "move")]
    pub movement: u32,
    /// Melee reach in hexes; more than 1 with Growth or Stretching (002 §Threat).
    #[serde(default)]
    pub reach: Option<u32>,
    /// Extra attacks of opportunity per phase (002 §Combat Reflexes).
    #[serde(default)]
    pub combat_reflexes: u32,
    /// Physical defence, taken off each hit's STUN and BODY (ruling `damage`).
    #[serde(default)]
    pub pd: i32,
    /// Stunned by more STUN than this in one hit (ruling `stunned`).
    pub con: i32,
    /// Restored by a Recovery (ruling `recovery`).
    pub rec: i32,
    pub stun: i32,
    pub body: i32,
    /// Skill rolls (3d6 at or under), by skill name (ruling `skill_check_negates`).
    #[serde(default, deserialize_with = "fray_core::data::unique")]
    pub skills: BTreeMap<String, i32>,
    pub weapons: Vec<String>,
}

crate::book::data_file!(
    /// The `phases` ruleset's data. Its sequence is the turn's.
    PhasesData for "phases" {
        /// 002 §Table, row by row.
        manoeuvres: Vec<Manoeuvre>,
    }
);

/// 002 has no spells.
pub use crate::book::NoSpell as Spell;

/// What only 002 needs of a data file: a turn of 1 to 12 phases of a second
/// or more, and a row of the table for each order, naming an order Fray has.
fn check_own(d: &PhasesData, src: &Source) -> Result<(), LoadError> {
    if !(1..=12).contains(&d.numbers.phases_per_turn) {
        return Err(src.error_at_field(
            "phases_per_turn",
            "a turn has 1 to 12 phases (one per second of the 12-second turn at most)",
        ));
    }
    if d.numbers.seconds_per_phase < 1 {
        return Err(src.error_at_field("seconds_per_phase", "a phase lasts at least 1 second"));
    }
    if d.ruling_numbers.stunned_dcv_divisor < 1 {
        return Err(src.error_at_field("stunned_dcv_divisor", "the divisor must be at least 1"));
    }
    for m in &d.manoeuvres {
        match (&m.action, &m.not_offered) {
            (Some(a), None) if !ACTIONS.contains(&a.as_str()) => {
                return Err(src.error_at(
                    a,
                    Some(&m.name),
                    format!(
                        "manoeuvre {:?} names action {a:?}, which is not one of: {}",
                        m.name,
                        ACTIONS.join(", ")
                    ),
                ));
            }
            (Some(_), None) | (None, Some(_)) => {}
            _ => {
                return Err(src.error_at(
                    &m.name,
                    None,
                    format!(
                        "manoeuvre {:?} needs either `action` (the order that performs it) or `not_offered` (why not), not both",
                        m.name
                    ),
                ));
            }
        }
    }
    for a in ACTIONS.iter().filter(|a| !OUTSIDE_TABLE.contains(a)) {
        if d.manoeuvre(a).is_none() {
            return Err(
                src.error_at_field("manoeuvres", format!("no manoeuvre row names action {a:?}"))
            );
        }
    }
    Ok(())
}

impl Checked for Template {
    fn problem(&self) -> Option<String> {
        if self.weapons.is_empty() {
            Some("carries no weapon (fists are a weapon)".into())
        } else {
            (self.stun < 1 || self.body < 1).then(|| "needs STUN and BODY of at least 1".into())
        }
    }
}

crate::book::stock!(Template: weapons);

impl Checked for Weapon {}

impl PhasesData {
    /// The row of the table an order action performs.
    pub fn manoeuvre(&self, action: &str) -> Option<&Manoeuvre> {
        self.manoeuvres
            .iter()
            .find(|m| m.action.as_deref() == Some(action))
    }

    /// How a ruling is cited in the log.
    pub fn ruling(&self, id: &str) -> String {
        format!("ruling {id}")
    }
}

/// The order actions of the ruleset, each a row of the table.
pub const ACTIONS: &[&str] = &[
    "strike",
    "haymaker",
    "shoot",
    "block",
    "dodge",
    "move",
    "full_move",
    "step",
    "withdraw",
    "reload",
    "recover",
    "start_recovery",
    "complete_recovery",
    "recover_from_stun",
    "delay",
    "ready",
    "pass",
    "end",
];

/// Rows the rules take on their own, with no order: a Stunned character's
/// next action is always its recovery (ruling stunned).
pub const BY_ITSELF: &[&str] = &["recover_from_stun"];

/// Orders that are not rows of the table of their own: readying (002
/// §Ready), letting an opportunity or an abort pass, ending a turn with
/// actions unused, and completing a Recovery (the row of `start_recovery`).
pub const OUTSIDE_TABLE: &[&str] = &["ready", "pass", "end", "complete_recovery"];
