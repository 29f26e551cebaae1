//! What the rule tests share: running a battle to its end and reading its log.

#![allow(dead_code)]

use fray_core::battle::{Battle, Progress};
use fray_core::log::BattleLog;

/// Run the battle to its end, or fail showing its log.
pub fn run(b: &mut Battle) {
    match b.run() {
        Progress::Over(_) => {}
        other => panic!("battle did not finish: {other:?}\n{}", texts(b).join("\n")),
    }
}

/// The log's sentences, in order.
pub fn texts(b: &Battle) -> Vec<String> {
    b.world()
        .resource::<BattleLog>()
        .entries()
        .iter()
        .map(|e| e.text.clone())
        .collect()
}

/// The index of the first log line containing `needle`.
pub fn line(b: &Battle, needle: &str) -> usize {
    texts(b)
        .iter()
        .position(|t| t.contains(needle))
        .unwrap_or_else(|| panic!("no log line contains {needle:?}:\n{}", texts(b).join("\n")))
}

/// How many log lines contain `needle`.
pub fn count(b: &Battle, needle: &str) -> usize {
    texts(b).iter().filter(|t| t.contains(needle)).count()
}

/// Every `"ruling <id>"` cited in `sources` is a ruling of the data file, and
/// every `"<text> §…"` paragraph cited is in its paragraph map.
pub fn assert_citations(
    sources: &[&str],
    text: &str,
    rulings: &[fray_rules::Ruling],
    paragraphs: &[fray_rules::Paragraph],
    file: &str,
) {
    for src in sources {
        for (i, _) in src.match_indices("\"ruling ") {
            let id: String = src[i + 8..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            assert!(
                rulings.iter().any(|r| r.id == id),
                "ruling {id:?} is cited but not in {file}"
            );
        }
        for (i, _) in src.match_indices(&format!("\"{text} §")) {
            let rule: String = src[i + 1..].chars().take_while(|c| *c != '"').collect();
            assert!(
                paragraphs.iter().any(|p| p.rule == rule),
                "{rule:?} is cited but not mapped in {file}'s paragraphs"
            );
        }
    }
}
