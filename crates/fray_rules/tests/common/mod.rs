//! What the rule tests share: one builder of test battles for every
//! ruleset, a script that answers each kind of question, running a battle to
//! its end and reading its log.

#![allow(dead_code)]

use bevy_ecs::prelude::*;
use fray_core::battle::{Battle, Progress, rules_app};
use fray_core::data::Source;
use fray_core::decision::{Controller, Decision, Order};
use fray_core::dice::Dice;
use fray_core::log::BattleLog;
use fray_core::scenario::LoadedScenario;

/// A battle from scenario text under the ruleset it names, with forced
/// `dice` used before the scenario's own, each side played by the
/// controller `seat(side)` gives.
pub fn battle(text: &str, dice: &[u32], seat: impl Fn(usize) -> Box<dyn Controller>) -> Battle {
    let scenario = LoadedScenario::from_source(Source::inline("test.ron", text)).unwrap();
    let rules = fray_rules::load(&scenario.scenario.ruleset, None).unwrap();
    let forced = dice.iter().chain(&scenario.scenario.dice).copied();
    let mut app = rules_app(Dice::seeded(0).with_forced(forced));
    fray_rules::setup(&mut app, rules, &scenario).unwrap();
    let controllers = (0..scenario.scenario.sides.len()).map(seat).collect();
    let mut b = Battle::new(app, controllers);
    // Orders are kept with their refusals, as a battle file keeps them.
    b.world_mut()
        .resource_mut::<fray_core::decision::Decisions>()
        .record();
    b
}

/// Every order refused in `b`, in words ("Ash's order "trace" is
/// refused: why."): a secret one's too, which the log gives without what
/// it was or why.
pub fn refusals(b: &Battle) -> Vec<String> {
    let decisions = b.world().resource::<fray_core::decision::Decisions>();
    decisions
        .given()
        .iter()
        .filter_map(|g| {
            let why = g.refused.as_ref()?;
            Some(format!(
                "{}'s order {:?} is refused: {why}.",
                g.order.actor, g.order.action
            ))
        })
        .collect()
}

/// Some refusal in `b` contains `needle`.
pub fn assert_refused(b: &Battle, needle: &str) {
    let all = refusals(b);
    assert!(
        all.iter().any(|r| r.contains(needle)),
        "no refusal contains {needle:?}: {all:#?}"
    );
}

/// The text of a test scenario under `ruleset`: sides A and B on an open
/// square field of `width` × `height`, `round_cap` rounds, with `more`
/// fields (options, arrivals …) and the `combatants`.
pub fn field(
    ruleset: &str,
    (width, height): (u32, u32),
    round_cap: u32,
    more: &str,
    combatants: &str,
) -> String {
    format!(
        "(name: \"t\", ruleset: \"{ruleset}\", round_cap: {round_cap},
          grid: (kind: Square, width: {width}, height: {height}),
          sides: [(name: \"A\"), (name: \"B\")],
          {more}
          combatants: [{combatants}])"
    )
}

/// Plays each order once, at the first question it `fits` for its actor;
/// otherwise answers as `otherwise` says. `asked` tells which kind of
/// question a decision is, in the ruleset's terms.
pub struct Script<Q: Copy> {
    pub orders: Vec<(Q, Order, bool)>,
    pub asked: fn(&World, &Decision) -> Q,
    pub fits: fn(Q, Q) -> bool,
    pub otherwise: fn(Q, &Decision) -> Order,
}

impl<Q: Copy + Send + 'static> Controller for Script<Q> {
    fn decide(&mut self, world: &mut World, d: &Decision) -> Option<Order> {
        let q = (self.asked)(world, d);
        let fits = self.fits;
        if let Some((_, o, used)) = self
            .orders
            .iter_mut()
            .find(|(k, o, used)| !used && o.actor == d.actor_name && fits(*k, q))
        {
            *used = true;
            return Some(o.clone());
        }
        Some((self.otherwise)(q, d))
    }
}

/// Run the battle to its end, or fail showing its log.
pub fn run(b: &mut Battle) -> fray_core::model::BattleResult {
    match b.run() {
        Progress::Over(result) => result,
        other => panic!("battle did not finish: {other:?}\n{}", texts(b).join("\n")),
    }
}

/// The log's sentences, in order.
pub fn texts(b: &Battle) -> Vec<String> {
    b.world().resource::<BattleLog>().texts()
}

/// Whether some log line contains `needle`.
pub fn has(b: &Battle, needle: &str) -> bool {
    texts(b).iter().any(|t| t.contains(needle))
}

/// Some log line contains `needle`; the whole log is shown if none does.
pub fn assert_has(b: &Battle, needle: &str) {
    assert!(
        has(b, needle),
        "no log line contains {needle:?}:\n{}",
        texts(b).join("\n")
    );
}

/// No log line contains `needle`.
pub fn assert_lacks(b: &Battle, needle: &str) {
    assert!(
        !has(b, needle),
        "a log line contains {needle:?}:\n{}",
        texts(b).join("\n")
    );
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
            let cited: String = src[i + 1..].chars().take_while(|c| *c != '"').collect();
            // "002 §Surprise Phase · ruling stunned": each part on its own.
            for rule in cited.split(" · ") {
                if let Some(id) = rule.strip_prefix("ruling ") {
                    assert!(
                        rulings.iter().any(|r| r.id == id),
                        "ruling {id:?} is cited but not in {file}"
                    );
                } else {
                    assert!(
                        paragraphs.iter().any(|p| p.rule == rule),
                        "{rule:?} is cited but not mapped in {file}'s paragraphs"
                    );
                }
            }
        }
    }
}

/// Gives no order: a person decides, as the test answers.
pub struct Asks;

impl Controller for Asks {
    fn decide(&mut self, _: &mut World, _: &Decision) -> Option<Order> {
        None
    }
}
