//! Every ruleset's paragraph map points at code that exists: a pointer
//! "turn.rs take_opportunity" names a file of the ruleset's folder and an
//! item defined in it.

/// The `file.rs Item` pointers of a page whose item is clearly code (it has
/// an underscore, or is a type), not a word of the sentence.
fn pointers(page: &str) -> Vec<(String, String)> {
    let words: Vec<&str> = page.split_whitespace().collect();
    words
        .windows(2)
        .filter_map(|w| {
            let file = w[0].trim_start_matches(['(', '`']);
            let file = file.rsplit('/').next().unwrap_or(file);
            let item = w[1].trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
            let code = item.contains('_') || item.starts_with(|c: char| c.is_ascii_uppercase());
            (file.ends_with(".rs") && code).then(|| (file.to_string(), item.to_string()))
        })
        .collect()
}

#[test]
fn every_paragraph_map_points_at_code_that_exists() {
    for info in fray_rules::RULESETS {
        let page = fray_rules::load(info.id, None).unwrap().page();
        let folder = info.id.split('_').next().unwrap_or(info.id);
        for (file, item) in pointers(&page) {
            let path = format!("{}/src/{folder}/{file}", env!("CARGO_MANIFEST_DIR"));
            let source = std::fs::read_to_string(&path)
                .unwrap_or_else(|_| panic!("{}: {file} is not a file of {folder}/", info.id));
            let defined = ["fn", "struct", "enum", "const", "type", "mod"]
                .iter()
                .any(|k| source.contains(&format!("{k} {item}")));
            assert!(defined, "{}: {file} defines no {item}", info.id);
        }
    }
}

#[test]
fn pointers_are_read_from_the_sentences() {
    let page = "An attack (turn.rs take_opportunity); resolve.rs runs the segments (mod.rs Use).";
    assert_eq!(
        pointers(page),
        [
            ("turn.rs".to_string(), "take_opportunity".to_string()),
            ("mod.rs".to_string(), "Use".to_string())
        ]
    );
}

#[test]
fn a_rule_reference_is_explained_part_by_part() {
    // What the window shows under a picked log entry: each paragraph cited
    // as it begins, each ruling's gap and what Fray does; unmapped parts and
    // unknown names give nothing.
    let rules = fray_rules::load("declared", None).unwrap();
    let parts = rules.explain("004 §Critical Hits · ruling natural_rolls · 004 §Nowhere");
    let headings: Vec<&str> = parts.iter().map(|(h, _)| h.as_str()).collect();
    assert_eq!(headings.len(), 2, "{parts:?}");
    assert_eq!(headings[0], "004 §Critical Hits");
    assert!(
        headings[1].starts_with("ruling natural_rolls ("),
        "{}",
        headings[1]
    );
    assert!(
        parts[0].1.starts_with("\"Critical Hits are severe strikes"),
        "{}",
        parts[0].1
    );
    assert!(
        parts[1].1.starts_with("The text leaves open: "),
        "{}",
        parts[1].1
    );
    assert!(rules.explain("ruling no_such_ruling").is_empty());
}
