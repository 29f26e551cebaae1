//! What the `declared` ruleset shows the window: Stress and Wound Points
//! bars, the round's initiative order lowest first with ties grouped, who is
//! surprised or late, and a unit sheet.

use bevy_ecs::prelude::*;
use fray_core::model::Rostered;
use fray_core::view::Sheet;
use fray_core::view::{RowState, TokenView, TrackerRow, TrackerView};

use super::{
    BaseInitiative, Data, Fled, Flow, Health, Hurts, Injuries, Kit, LateAction, Routed, Stabilised,
    Stage, Stats, Stress, Surprised, WoundPoints, resolve, roster,
};

/// Chance to hit and damage range of `actor`'s best weapon against `target`
/// (ruling attack_roll: d20 + attack against Defense; natural 1 misses, 20 hits).
pub(super) fn preview(world: &World, actor: Entity, target: Entity) -> Option<String> {
    let data = &world.resource::<Data>().0;
    let stats = world.get::<Stats>(actor)?;
    let kit = world.get::<Kit>(actor)?;
    let armour = world.get::<Stats>(target)?.armour;
    let defense = resolve::defense(world, target);
    let need = (defense - stats.attack).clamp(2, 20);
    let chance = (21 - need) * 5;
    let lines: Vec<String> = kit
        .weapons
        .iter()
        .filter_map(|w| data.weapons.get(w).map(|d| (w, d)))
        .map(|(w, d)| {
            let bonus = if d.reach == 0 { 0 } else { stats.strength_mod };
            let lo = (d.damage.min() + bonus - armour).max(0);
            let hi = (d.damage.max() + bonus - armour).max(0);
            format!("{w}: {chance}% to hit (Defense {defense}), {lo}–{hi} damage after Armour, ×{} on a 20", d.critical)
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

pub(super) fn tokens(world: &World) -> Vec<TokenView> {
    let data = &world.resource::<Data>().0;
    roster(world)
        .into_iter()
        .filter_map(|e| {
            let stress = world.get::<Stress>(e)?;
            let wp = world.get::<WoundPoints>(e)?;
            let health = *world.get::<Health>(e)?;
            let mut states = Vec::new();
            match health {
                Health::Fine => {}
                Health::Incapacitated => states.push("incapacitated".to_string()),
                Health::Dying => states.push("dying".to_string()),
                Health::Dead => states.push("dead".to_string()),
            }
            if world.get::<Stabilised>(e).is_some() {
                states.push("stabilised".into());
            }
            if world.get::<Surprised>(e).is_some() {
                states.push("surprised".into());
            }
            if world.get::<Routed>(e).is_some() {
                states.push("routed".into());
            }
            if super::declared(world, e)
                .is_some_and(|d| matches!(d.action, super::Action::FullDefense { .. }))
            {
                states.push("full defense".into());
            }
            let reach = world.get::<Kit>(e).map_or(0, |k| {
                crate::book::farthest(&k.weapons, &data.weapons, |w| w.reach)
            });
            let bars = vec![stress.bar("Stress"), wp.bar("Wounds")];
            Some(TokenView {
                states,
                out: health != Health::Fine || world.get::<Routed>(e).is_some(),
                gone: world.get::<Fled>(e).is_some(),
                threat_reach: if health == Health::Fine { reach } else { 0 },
                // How far a move declared now would go: 1 cell for one
                // down, half for the stabilised, the lamed or a full
                // defense this round (004 §Speed, §Wound Points).
                speed: resolve::move_budget(world, e, &super::Action::Move { toward: None }),
                ..TokenView::of(world, e, bars)?
            })
        })
        .collect()
}

/// One line of the round's order before grouping: initiative, name, whether
/// it has resolved, and what was declared.
type Entry = (i32, String, RowState, String);

/// 004 §Step 2: where the round stands, for the tracker's heading.
fn heading(flow: &Flow) -> String {
    let phase = match flow.stage {
        Stage::Start => "rolling base initiative",
        Stage::BeginRound | Stage::Declaring => "declaring actions",
        Stage::Resolving | Stage::Arriving(_) => "resolving, lowest initiative first",
        Stage::EndRound => "end of round: the dying bleed, morale",
        Stage::Over => "combat over",
    };
    format!("Round {} · {phase}", flow.round.max(1))
}

/// 004 §Step 2: the actions still queued this round, the one resolving now
/// and those to come; a late arrival acts at −12 (004 §Step 2).
fn queued(world: &World, flow: &Flow) -> Vec<Entry> {
    let count = flow.count;
    let mut entries = Vec::new();
    for slot in &flow.queue {
        let state = if Some(slot.initiative) == count {
            RowState::Now
        } else {
            RowState::Coming
        };
        let note = if slot.late {
            "late, −12".to_string()
        } else {
            super::declare::describe_by(world, Some(slot.actor), &slot.action)
        };
        entries.push((
            slot.initiative,
            flow.name(slot.actor).to_string(),
            state,
            note,
        ));
    }
    entries
}

/// 004 §Step 2: what has resolved this round: declarations whose count is
/// at or below the current one.
fn resolved(world: &World, flow: &Flow) -> Vec<Entry> {
    let count = flow.count;
    let mut entries = Vec::new();
    for e in roster(world) {
        if let Some(d) = super::declared(world, e) {
            let queued = flow
                .queue
                .iter()
                .any(|s| s.actor == e && !s.late && s.initiative == d.initiative);
            if !queued
                && matches!(
                    flow.stage,
                    Stage::Resolving | Stage::Arriving(_) | Stage::EndRound
                )
            {
                let state = if Some(d.initiative) == count {
                    RowState::Now
                } else {
                    RowState::Done
                };
                entries.push((
                    d.initiative,
                    flow.name(e).to_string(),
                    state,
                    super::declare::describe_by(world, Some(e), &d.action),
                ));
            }
        }
    }
    entries
}

/// 004 §Step 1 and §Step 2: who is not in the order and why: the surprised,
/// late arrivals, the routed (ruling `morale_failure`), and, while
/// declaring, those who have written down a hidden action (004 §Step 3).
fn waiting(world: &World, flow: &Flow) -> Vec<String> {
    let mut waiting = Vec::new();
    for e in roster(world) {
        let name = flow.name(e);
        if world.get::<Surprised>(e).is_some() {
            waiting.push(format!("{name}: surprised, does not act this round"));
        }
        if let Some(l) = world.get::<LateAction>(e) {
            waiting.push(format!(
                "{name}: arrived late, acts next round at {} as well",
                l.initiative
            ));
        }
        if world.get::<Routed>(e).is_some() && world.get::<Fled>(e).is_none() {
            waiting.push(format!("{name}: routed, flees"));
        }
        if matches!(flow.stage, Stage::Declaring) && flow.hidden.iter().any(|(x, _)| *x == e) {
            waiting.push(format!("{name}: has written down an action (hidden)"));
        }
    }
    waiting
}

/// 004 §Step 3: tied results resolve simultaneously, so entries at the same
/// initiative and in the same state share a row, their notes joined.
fn group_rows(entries: Vec<Entry>) -> Vec<TrackerRow> {
    // Each row's names and, by name, what each does.
    let mut rows: Vec<(TrackerRow, Vec<(String, String)>)> = Vec::new();
    for (mark, name, state, note) in entries {
        let label = format!("initiative {mark}");
        let at = match rows
            .iter()
            .position(|(r, _)| r.mark == label && r.state == state)
        {
            Some(i) => i,
            None => {
                rows.push((
                    TrackerRow {
                        mark: label,
                        names: Vec::new(),
                        state,
                        note: String::new(),
                    },
                    Vec::new(),
                ));
                rows.len() - 1
            }
        };
        let (row, notes) = &mut rows[at];
        row.names.push(name.clone());
        if !note.is_empty() {
            notes.push((name, note));
        }
    }
    // A group's notes say whose each is (a tie may mix both sides).
    rows.into_iter()
        .map(|(mut r, notes)| {
            r.note = if r.names.len() == 1 {
                notes
                    .into_iter()
                    .map(|(_, n)| n)
                    .collect::<Vec<_>>()
                    .join("; ")
            } else {
                notes
                    .into_iter()
                    .map(|(who, n)| format!("{who}: {n}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            };
            r
        })
        .collect()
}

/// 004 §Step 2: the round's initiative order, lowest first with ties
/// grouped, and who waits outside it.
pub(super) fn tracker(world: &World) -> TrackerView {
    let flow = world.resource::<Flow>();
    let mut entries = queued(world, flow);
    entries.extend(resolved(world, flow));
    entries.sort_by_key(|e| e.0);
    TrackerView {
        heading: heading(flow),
        rows: group_rows(entries),
        waiting: waiting(world, flow),
    }
}

pub(super) fn sheet(world: &World, e: Entity) -> Vec<(String, String)> {
    let (Some(mut sheet), Some(stats)) = (Sheet::of(world, e), world.get::<Stats>(e)) else {
        return Vec::new();
    };
    let mut line = |k: &str, v: String| sheet.line(k, v);
    if let (Some(s), Some(w)) = (world.get::<Stress>(e), world.get::<WoundPoints>(e)) {
        line("Stress", format!("{} / {}", s.current, s.max));
        line("Wound Points", format!("{} / {}", w.current, w.max));
    }
    if let Some(h) = world.get::<Health>(e) {
        line("Condition", format!("{h:?}"));
    }
    line("Defense", resolve::defense(world, e).to_string());
    line("Armour", stats.armour.to_string());
    line("Speed", format!("{} cells", stats.speed));
    line("Attack", format!("{:+}", stats.attack));
    line(
        "Strength",
        format!("{} ({:+})", stats.strength, stats.strength_mod),
    );
    line("Agility", format!("{:+}", stats.agility_mod));
    line("HD", stats.hd.to_string());
    if let Some(b) = world.get::<BaseInitiative>(e) {
        line("Base initiative", b.0.to_string());
    }
    if let Some(d) = super::declared(world, e) {
        line(
            "Declared",
            format!(
                "{} at {}",
                super::declare::describe_by(world, Some(e), &d.action),
                d.initiative
            ),
        );
    }
    if let Some(k) = world.get::<Kit>(e) {
        line("Weapons", k.weapons.join(", "));
        if !k.spells.is_empty() {
            line("Spells", k.spells.join(", "));
        }
        if !k.items.is_empty() {
            line("Items", k.items.join(", "));
        }
    }
    if let Some(i) = world.get::<Injuries>(e) {
        for inj in &i.0 {
            line(
                "Injury",
                format!(
                    "{} {}{}",
                    inj.amount,
                    inj.cause.word(),
                    inj.combat_injury
                        .as_ref()
                        .map(|c| format!(" — {c}"))
                        .unwrap_or_default()
                ),
            );
        }
    }
    if let Some(h) = world.get::<Hurts>(e)
        && (h.agility_damage + h.strength_damage + h.dexterity_damage > 0)
    {
        line(
            "Ability damage",
            format!(
                "Agility {}, Strength {}, Dexterity {}",
                h.agility_damage, h.strength_damage, h.dexterity_damage
            ),
        );
    }
    sheet.0
}

/// What a move provokes, for the board's warning. A cell clicked while
/// declaring is a Defensive Attack's move, which provokes no riposte (004
/// §Step 3: a character using the Defensive Attack action "does not
/// provoke a Reposte when entering a creature's threat range"): nothing.
pub(super) const PROVOKES: fray_core::movement::Provokes = fray_core::movement::Provokes::Never;

/// Whether a move takes the way that provokes fewest: no, the first shortest.
pub(super) const WARY: bool = false;

/// Initiative counts vary from round to round: no fixed clock.
/// What the bars and marks mean, for the help's legend.
pub(super) const LEGEND: &[(&str, &str)] = &[
    (
        "Stress bar (upper)",
        "Stress: damage comes off it first (004 §Stress)",
    ),
    (
        "Wounds bar (lower)",
        "Wound Points: damage past Stress; at 0 Incapacitated, below 0 Dying (004 §Wound Points)",
    ),
    (
        "initiative N",
        "the count a creature acts at this round; the lowest acts first, ties together (004 §Step 2)",
    ),
];

/// The round is not divided into periods of time.
pub(super) fn periods(_: &World) -> Option<fray_core::view::Periods> {
    None
}

/// The round runs on no fixed clock.
pub(super) fn clock(_: &World) -> Option<fray_core::view::Clock> {
    None
}

/// Its choices carry no warnings: an order typed by hand draws none either.
pub(super) fn warns(_: &World, _: Entity, _: &fray_core::decision::Order) -> Vec<String> {
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tied_group_says_whose_each_action_is() {
        let e = |mark: i32, name: &str, note: &str| {
            (mark, name.to_string(), RowState::Coming, note.to_string())
        };
        let rows = group_rows(vec![
            e(5, "Wren", "intimidate Grusk"),
            e(5, "Gorm", ""),
            e(5, "Harl", "throw the javelin at Wren"),
            e(7, "Anna", "wait"),
        ]);
        assert_eq!(rows[0].names, ["Wren", "Gorm", "Harl"]);
        assert_eq!(
            rows[0].note,
            "Wren: intimidate Grusk; Harl: throw the javelin at Wren"
        );
        assert_eq!(rows[1].note, "wait");
    }
}
