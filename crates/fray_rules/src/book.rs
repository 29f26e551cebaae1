//! What every ruleset's data file holds, whatever else its text needs: the
//! sequence of a battle, the paragraph map, the rulings, weapons, spells and
//! stat blocks; the checks every such file gets; and the page
//! `fray rules ID` prints from it.
//!
//! A ruleset declares its data file with [`data_file!`], naming only the
//! fields its own text adds, and writes `check_own` for the checks only its
//! text needs. Its weapons, spells and stat blocks say what is wrong with
//! them ([`Checked`], [`Stock`]) and how the page lists them ([`Listed`]);
//! its page adds its own sections ([`Page`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use fray_core::casting::Spell;
use fray_core::data::{LoadError, Source};
use fray_core::scenario::MAX_STAT;

use crate::{Paragraph, PhaseDoc, Ruling};

/// A ruleset's data type, with the fields every ruleset's file has and the
/// fields its own text adds. The calling module names `Numbers`,
/// `RulingNumbers`, `Weapon`, `Spell` and `Template`, and a function
/// `check_own(&Data, &Source)` for the checks only its text needs.
///
/// ```text
/// data_file!(
///     /// The segments ruleset's data.
///     SegmentsData for "segments" {}
/// );
/// ```
macro_rules! data_file {
    ($(#[$doc:meta])* $data:ident for $id:literal {
        $($(#[$fdoc:meta])* $field:ident: $ty:ty,)*
    }) => {
        $(#[$doc])*
        #[derive(Clone, Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $data {
            pub id: String,
            pub name: String,
            /// The text it implements, under `rules/`.
            pub text: String,
            /// A battle's stages, in the text's order.
            pub sequence: Vec<$crate::PhaseDoc>,
            /// Each paragraph of the text, and where Fray implements it.
            pub paragraphs: Vec<$crate::Paragraph>,
            /// The numbers the text gives.
            pub numbers: Numbers,
            /// The numbers of the rulings, next to the rulings' words.
            pub ruling_numbers: RulingNumbers,
            pub rulings: Vec<$crate::Ruling>,
            #[serde(deserialize_with = "fray_core::data::unique")]
            pub weapons: std::collections::BTreeMap<String, Weapon>,
            #[serde(default, deserialize_with = "fray_core::data::unique")]
            pub spells: std::collections::BTreeMap<String, Spell>,
            #[serde(deserialize_with = "fray_core::data::unique")]
            pub templates: std::collections::BTreeMap<String, Template>,
            $($(#[$fdoc])* pub $field: $ty,)*
        }

        impl $data {
            /// What the file shares with every ruleset's.
            pub fn book(&self) -> $crate::book::Book<'_, Weapon, Spell, Template> {
                $crate::book::Book {
                    id: &self.id,
                    name: &self.name,
                    text: &self.text,
                    sequence: &self.sequence,
                    paragraphs: &self.paragraphs,
                    rulings: &self.rulings,
                    weapons: &self.weapons,
                    spells: &self.spells,
                    templates: &self.templates,
                }
            }
        }

        impl $crate::ruleset::DataFile for $data {
            /// Everything the file names exists, and its numbers make sense.
            fn check(&self, src: &fray_core::data::Source) -> Result<(), fray_core::data::LoadError> {
                $crate::book::check(&self.book(), $id, src)?;
                check_own(self, src)
            }
        }
    };
}
pub(crate) use data_file;

/// What every ruleset's data file has.
pub struct Book<'a, W, S, T> {
    pub id: &'a str,
    pub name: &'a str,
    pub text: &'a str,
    pub sequence: &'a [PhaseDoc],
    pub paragraphs: &'a [Paragraph],
    pub rulings: &'a [Ruling],
    pub weapons: &'a BTreeMap<String, W>,
    pub spells: &'a BTreeMap<String, S>,
    pub templates: &'a BTreeMap<String, T>,
}

/// A weapon, spell or stat block of a data file that can be wrong.
pub trait Checked {
    /// What is wrong with it, in words that follow its name
    /// (`needs at least 1 hit point`); `None` when nothing is.
    fn problem(&self) -> Option<String> {
        None
    }
}

/// A stat block: the weapons it carries and the spells it knows, each of
/// which the file must have.
pub trait Stock: Checked {
    fn carried(&self) -> Vec<String>;

    /// What a scenario's combatant of this block carries: the weapons the
    /// scenario names for it (`weapons`), else the block's.
    fn carried_by(&self, spec: &fray_core::scenario::CombatantSpec) -> Vec<String> {
        spec.weapons.clone().unwrap_or_else(|| self.carried())
    }

    fn known_spells(&self) -> &[String] {
        &[]
    }
}

/// A stat block whose weapons and spells are plain lists, named by their
/// fields: `stock!(Template: weapons, spells)`.
macro_rules! stock {
    ($t:ty: $weapons:ident $(, $spells:ident)?) => {
        impl $crate::book::Stock for $t {
            fn carried(&self) -> Vec<String> {
                self.$weapons.clone()
            }

            $(fn known_spells(&self) -> &[String] {
                &self.$spells
            })?
        }
    };
}
pub(crate) use stock;

/// The most of `how_far` among the weapons named in `carried` (a token's
/// threat reach): 0 for none.
pub fn farthest<W>(
    carried: &[String],
    weapons: &BTreeMap<String, W>,
    how_far: impl Fn(&W) -> u32,
) -> u32 {
    carried
        .iter()
        .filter_map(|w| weapons.get(w))
        .map(how_far)
        .max()
        .unwrap_or(0)
}

/// A weapon or spell as the page lists it, after its name.
pub trait Listed {
    fn line(&self) -> String;
}

/// No spells: for a ruleset whose text has none, a file that names one is
/// refused.
#[derive(Clone, Debug, serde::Deserialize)]
pub enum NoSpell {}

impl Checked for NoSpell {}

impl Listed for NoSpell {
    fn line(&self) -> String {
        match *self {}
    }
}

impl Checked for Spell {
    /// The classic rulesets count a casting time in segments, at least one.
    fn problem(&self) -> Option<String> {
        (self.casting_time == 0).then(|| "needs a casting time of at least 1 segment".into())
    }
}

impl Listed for Spell {
    fn line(&self) -> String {
        let effect = match &self.effect {
            fray_core::casting::SpellEffect::Damage(d) => format!("{d} damage"),
            fray_core::casting::SpellEffect::Heal(d) => format!("heals {d}"),
        };
        format!(
            "casting time {} segment(s), range {}, {effect}",
            self.casting_time, self.range
        )
    }
}

/// The checks every data file gets: it is for the ruleset that loads it;
/// its stat blocks carry weapons and know spells it has, and their numbers
/// are within the bound a scenario may `set` them to; no weapon, spell or
/// stat block is wrong in itself; its rulings have names of their own.
pub fn check<W: Checked, S: Checked, T: Stock + serde::Serialize>(
    book: &Book<'_, W, S, T>,
    id: &str,
    src: &Source,
) -> Result<(), LoadError> {
    crate::ruleset::check_id(src, book.id, id)?;
    for (name, t) in book.templates {
        let who = ("template ", name.as_str());
        let what = "knows unknown spell";
        crate::ruleset::check_weapons(src, who, &t.carried(), book.weapons)?;
        crate::ruleset::check_known(src, who, t.known_spells(), book.spells, what)?;
        if let Some(key) = serde_json::to_value(t)
            .ok()
            .as_ref()
            .and_then(|v| too_large(v, ""))
        {
            return Err(src.error_at_key(
                name,
                &key,
                format!("template {name:?}'s {key} must be within ±{MAX_STAT}"),
            ));
        }
    }
    check_entries(src, "template", book.templates)?;
    check_entries(src, "weapon", book.weapons)?;
    check_entries(src, "spell", book.spells)?;
    crate::ruleset::check_rulings(book.rulings, src)
}

/// The name of the first number in a stat block (`value`, named `key`) beyond
/// ±[`MAX_STAT`]: every sum of stats the rules make then stays far from
/// the limits of the numbers that hold them.
fn too_large(value: &serde_json::Value, key: &str) -> Option<String> {
    match value {
        serde_json::Value::Number(n) => n
            .as_f64()
            .is_some_and(|n| n.abs() > f64::from(MAX_STAT))
            .then(|| key.to_string()),
        serde_json::Value::Object(fields) => fields.iter().find_map(|(k, v)| too_large(v, k)),
        serde_json::Value::Array(items) => items.iter().find_map(|v| too_large(v, key)),
        _ => None,
    }
}

/// The first entry of `entries` that is wrong, and where.
fn check_entries<E: Checked>(
    src: &Source,
    kind: &str,
    entries: &BTreeMap<String, E>,
) -> Result<(), LoadError> {
    for (name, e) in entries {
        if let Some(problem) = e.problem() {
            return Err(src.error_at(name, None, format!("{kind} {name:?} {problem}")));
        }
    }
    Ok(())
}

/// What a ruleset's page adds to what every page has.
pub trait Page {
    /// How the page titles a battle's sequence (`A round, in order:`).
    const SEQUENCE: &'static str;
    /// Which gaps the rulings fill, as the text names its game master.
    const RULINGS: &'static str;

    /// The ruleset's own sections after the paragraph map: its tables,
    /// orders and options.
    fn before_rulings(&self, _out: &mut String) {}

    /// The ruleset's own sections after the rulings.
    fn after_rulings(&self, _out: &mut String) {}
}

/// The page `fray rules ID` prints: the heading, the sequence, the
/// paragraph map, the ruleset's own sections, the rulings, weapons, spells
/// and stat blocks.
pub fn page<W: Listed, S: Listed, T, P: Page>(book: &Book<'_, W, S, T>, own: &P) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} — `{}`, implementing {}\n",
        book.name, book.id, book.text
    );
    sequence(&mut out, P::SEQUENCE, book.sequence);
    paragraphs(&mut out, book.paragraphs);
    own.before_rulings(&mut out);
    rulings(&mut out, P::RULINGS, book.rulings);
    own.after_rulings(&mut out);
    listed(&mut out, "Weapons", book.weapons);
    listed(&mut out, "Spells", book.spells);
    let names: Vec<&str> = book.templates.keys().map(String::as_str).collect();
    let _ = writeln!(out, "\nStat blocks: {}", names.join(", "));
    out
}

/// A battle's stages, in order.
fn sequence(out: &mut String, title: &str, sequence: &[PhaseDoc]) {
    let _ = writeln!(out, "{title}");
    for (i, p) in sequence.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {}. {} ({})\n     {}",
            i + 1,
            p.name,
            p.rule,
            p.summary
        );
    }
}

/// What a rule reference cites, part by part (`004 §Defense · ruling
/// attack_roll`): each paragraph as it begins and where Fray implements it;
/// each ruling's gap in the text and what Fray does. Parts the data does not
/// map are left out.
pub fn explain<W, S, T>(book: &Book<'_, W, S, T>, cited: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for part in cited.split(" · ").map(str::trim) {
        if let Some(id) = part.strip_prefix("ruling ") {
            if let Some(r) = book.rulings.iter().find(|r| r.id == id) {
                out.push((
                    format!("ruling {id} ({})", r.rule),
                    format!("The text leaves open: {} Fray: {}", r.gap, r.ruling),
                ));
            }
        } else if let Some(p) = book.paragraphs.iter().find(|p| p.rule == part) {
            out.push((
                part.to_string(),
                format!("\"{}…\" — {}", p.begins, p.implemented),
            ));
        }
    }
    out
}

/// The map from the text's paragraphs to where Fray implements them.
fn paragraphs(out: &mut String, paragraphs: &[Paragraph]) {
    let _ = writeln!(
        out,
        "\nThe text, paragraph by paragraph, and where Fray implements it:"
    );
    for p in paragraphs {
        let _ = writeln!(
            out,
            "  {} — \"{}…\"\n     {}",
            p.rule, p.begins, p.implemented
        );
    }
}

/// Each gap in the text and what Fray does.
fn rulings(out: &mut String, title: &str, rulings: &[Ruling]) {
    let _ = writeln!(out, "\nRulings — {title}:");
    for ruling in rulings {
        let _ = writeln!(
            out,
            "  {} ({})\n     Gap: {}\n     Ruling: {}",
            ruling.id, ruling.rule, ruling.gap, ruling.ruling
        );
    }
}

/// Weapons or spells, a line each, their names in one column.
fn listed<E: Listed>(out: &mut String, title: &str, entries: &BTreeMap<String, E>) {
    if entries.is_empty() {
        return;
    }
    let width = entries.keys().map(String::len).max().unwrap_or(0);
    let _ = writeln!(out, "\n{title}:");
    for (name, e) in entries {
        let _ = writeln!(out, "  {name:<width$} {}", e.line());
    }
}
