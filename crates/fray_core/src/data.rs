//! Reading RON files with errors that say `file:line:col: what is wrong`
//! (DESIGN.md seam 6).
//!
//! Files are parsed into plain serde structs (implicit `Some` is on, so an
//! optional field is written as its value). Mistakes found after parsing — an
//! unknown template, a side that does not exist — are located by searching the
//! source text for the offending name, so they too point at a line and column.

use std::fmt;
use std::path::{Path, PathBuf};

use ron::extensions::Extensions;
use serde::de::DeserializeOwned;

/// A file that could not be used, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.col, self.message
        )
    }
}

impl std::error::Error for LoadError {}

/// A RON file's text, kept so that later checks can point into it.
#[derive(Clone, Debug)]
pub struct Source {
    pub path: PathBuf,
    pub text: String,
}

impl Source {
    /// Read `path` from disk.
    pub fn read(path: &Path) -> Result<Self, LoadError> {
        let text = std::fs::read_to_string(path).map_err(|e| LoadError {
            file: path.display().to_string(),
            line: 1,
            col: 1,
            message: format!("cannot read the file: {e}"),
        })?;
        Ok(Self {
            path: path.to_path_buf(),
            text,
        })
    }

    /// A source held in memory (built-in data, tests).
    pub fn inline(name: &str, text: &str) -> Self {
        Self {
            path: PathBuf::from(name),
            text: text.to_string(),
        }
    }

    /// Parse the text as `T`.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, LoadError> {
        ron::Options::default()
            .with_default_extension(Extensions::IMPLICIT_SOME)
            .from_str(&self.text)
            .map_err(|e| LoadError {
                file: self.path.display().to_string(),
                line: e.span.start.line.max(1),
                col: e.span.start.col.max(1),
                message: e.code.to_string(),
            })
    }

    /// An error about `needle` (a name as written in the file, without quotes),
    /// placed at its first quoted occurrence after `after` (another quoted name,
    /// used to narrow the search), or at the top of the file.
    pub fn error_at(
        &self,
        needle: &str,
        after: Option<&str>,
        message: impl Into<String>,
    ) -> LoadError {
        let quoted = |s: &str| format!("\"{s}\"");
        let start = after.and_then(|a| self.text.find(&quoted(a))).unwrap_or(0);
        let offset = self.text[start..]
            .find(&quoted(needle))
            .map(|i| i + start)
            .or_else(|| self.text.find(needle))
            .unwrap_or(0);
        self.error_at_offset(offset, message)
    }

    /// An error at `"needle"` inside the field `key:` (a list of orders, of
    /// arrivals), or at the field itself.
    pub fn error_in_field(&self, key: &str, needle: &str, message: impl Into<String>) -> LoadError {
        let start = self.text.find(&format!("{key}:")).unwrap_or(0);
        let offset = self.text[start..]
            .find(&format!("\"{needle}\""))
            .map_or(start, |i| i + start);
        self.error_at_offset(offset, message)
    }

    /// An error at `"needle"` inside the item `index` (from 0) of the list
    /// field `key:`, each of whose items writes the field `item_key:` once
    /// (`orders: [(round: 1, order: (…)), …]`); or, when the file cannot be
    /// read that way, as [`Self::error_in_field`] places it.
    pub fn error_in_item(
        &self,
        (key, item_key): (&str, &str),
        index: usize,
        needle: &str,
        message: impl Into<String>,
    ) -> LoadError {
        let found = self.text.find(&format!("{key}:")).and_then(|start| {
            let field = format!("{item_key}:");
            let item = self.text[start..]
                .match_indices(&field)
                .map(|(i, _)| start + i)
                .filter(|&i| {
                    !self.text[..i]
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_alphanumeric() || c == '_')
                })
                .nth(index)?;
            let end = self.text[item + field.len()..]
                .find(&field)
                .map_or(self.text.len(), |i| item + field.len() + i);
            self.text[item..end]
                .find(&format!("\"{needle}\""))
                .map(|i| item + i)
        });
        match found {
            Some(offset) => self.error_at_offset(offset, message),
            None => self.error_in_field(key, needle, message),
        }
    }

    /// An error at the field or map key `key` (written `key:` or `"key"`)
    /// that first follows the quoted name `after`; or, failing that, as
    /// [`Self::error_at`] places `after`.
    pub fn error_at_key(&self, after: &str, key: &str, message: impl Into<String>) -> LoadError {
        let found = self.text.find(&format!("\"{after}\"")).and_then(|start| {
            let (field, quoted) = (format!("{key}:"), format!("\"{key}\""));
            let boundary = |i: usize| {
                !self.text[..i]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_')
            };
            let as_field = self.text[start..]
                .match_indices(&field)
                .map(|(i, _)| start + i)
                .find(|&i| boundary(i));
            let as_key = self.text[start..].find(&quoted).map(|i| start + i);
            as_field.into_iter().chain(as_key).min()
        });
        match found {
            Some(offset) => self.error_at_offset(offset, message),
            None => self.error_at(after, None, message),
        }
    }

    /// An error about the field `key:` (its first occurrence), or the top of the file.
    pub fn error_at_field(&self, key: &str, message: impl Into<String>) -> LoadError {
        let offset = self.text.find(&format!("{key}:")).unwrap_or(0);
        self.error_at_offset(offset, message)
    }

    /// An error at the field `key:` of the item named `name` (a combatant's
    /// `surprised`): the first such field after the name, or the name itself.
    pub fn error_at_field_of(
        &self,
        name: &str,
        key: &str,
        message: impl Into<String>,
    ) -> LoadError {
        let at = self.text.find(&format!("\"{name}\"")).unwrap_or(0);
        let offset = self.text[at..]
            .find(&format!("{key}:"))
            .map_or(at, |i| at + i);
        self.error_at_offset(offset, message)
    }

    pub fn error_at_offset(&self, offset: usize, message: impl Into<String>) -> LoadError {
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let col = before.rfind('\n').map_or(before.chars().count(), |nl| {
            before[nl + 1..].chars().count()
        }) + 1;
        LoadError {
            file: self.path.display().to_string(),
            line,
            col,
            message: message.into(),
        }
    }
}

/// A map whose keys are each written once: a key listed twice is an error
/// at its second place, not a silent overwrite. Use it as
/// `#[serde(deserialize_with = "fray_core::data::unique")]`.
pub fn unique<'de, D, V>(d: D) -> Result<std::collections::BTreeMap<String, V>, D::Error>
where
    D: serde::Deserializer<'de>,
    V: serde::Deserialize<'de>,
{
    struct Once<V>(std::marker::PhantomData<V>);
    impl<'de, V: serde::Deserialize<'de>> serde::de::Visitor<'de> for Once<V> {
        type Value = std::collections::BTreeMap<String, V>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map")
        }

        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = std::collections::BTreeMap::new();
            while let Some(key) = map.next_key::<String>()? {
                if out.contains_key(&key) {
                    return Err(serde::de::Error::custom(format!("{key:?} is listed twice")));
                }
                let value = map.next_value()?;
                out.insert(key, value);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Once(std::marker::PhantomData))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Thing {
        name: String,
        size: u32,
        extra: Option<u32>,
    }

    #[test]
    fn a_typo_points_at_line_and_column() {
        let src = Source::inline("thing.ron", "(\n  name: \"a\",\n  sise: 3,\n)");
        let e = src.parse::<Thing>().unwrap_err();
        assert_eq!((e.line, e.col), (3, 3), "{e}");
        assert!(e.to_string().starts_with("thing.ron:3:3: "), "{e}");
        assert!(e.message.contains("sise"), "{e}");
    }

    #[test]
    fn implicit_some_is_on() {
        let src = Source::inline("t.ron", "(name: \"a\", size: 1, extra: 4)");
        assert_eq!(src.parse::<Thing>().unwrap().extra, Some(4));
    }

    #[test]
    fn later_errors_point_at_the_name() {
        let src = Source::inline("s.ron", "(\n  a: \"x\",\n  b: \"ogre\",\n)");
        let e = src.error_at("ogre", None, "no template named \"ogre\"");
        assert_eq!(e.to_string(), "s.ron:3:6: no template named \"ogre\"");
        let e = src.error_at_field("b", "bad");
        assert_eq!((e.line, e.col), (3, 3));
    }
}
