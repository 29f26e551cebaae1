//! What the `detailed_sequence` ruleset shows the window: EN and BD bars,
//! blows left (active/reactive) and alertness on each token, the initiative
//! standings (blows and EN, with why the holder has it), and the traces.

use bevy_ecs::prelude::*;

use fray_core::model::Rostered;
use fray_core::view::{RowState, TokenView, TrackerRow, TrackerView};

use super::combat::{armour_of, eligible, standing};
use super::orders::{allowance, attack_weapon, preparations, reach_of, weapon};
use super::{
    Bd, Blows, Condition, Data, En, Fallen, Flow, Hands, Passed, Preparation, Stage, Stats, alert,
    roster, up,
};

/// Chance that 2D10 × `multiplier` + `add` exceeds `need`, or equals it
/// (a hit with breakage checks); double ones always miss, double tens hit.
pub fn hit_chance(multiplier: i32, add: i32, need: i32) -> f32 {
    // The throws of each total, 2 to 20, counted once rather than thrown
    // one by one: 10 − |total − 11| of the hundred.
    let mut hits: i32 = (2..=20)
        .filter(|t| t * multiplier + add >= need)
        .map(|t: i32| 10 - (t - 11).abs())
        .sum();
    // Double ones always miss; double tens always hit.
    if 2 * multiplier + add >= need {
        hits -= 1;
    }
    if 20 * multiplier + add < need {
        hits += 1;
    }
    hits as f32 / 100.0
}

/// 000 §1.2.5.1.3 for `actor` attacking `target` now: the chance to hit.
pub fn chance(world: &World, actor: Entity, target: Entity, parries: i32) -> Option<(f32, String)> {
    chance_as(world, actor, target, parries, alert(world, target))
}

/// 000 §1.2.5.1.3: the chance to hit `target` were it `alert` or not: an
/// unalert target is partially surprised, and only an alert one bears its
/// shield.
pub fn chance_as(
    world: &World,
    actor: Entity,
    target: Entity,
    parries: i32,
    alert: bool,
) -> Option<(f32, String)> {
    let w = attack_weapon(world, actor)?;
    chance_with(world, (actor, &w), target, parries, alert)
}

/// [`chance_as`] with the weapon `w` the attack is made with.
pub fn chance_with(
    world: &World,
    (actor, w): (Entity, &str),
    target: Entity,
    parries: i32,
    alert: bool,
) -> Option<(f32, String)> {
    let data = &world.resource::<Data>().0;
    let d = weapon(world, w)?;
    let armour = armour_of(world, target);
    let stationary = super::combat::stationary(world, target);
    let multiplier = super::combat::surprise_multiplier(world, target, stationary, alert);
    let mut add =
        armour.ac - preparations(world, actor, w) + parries * data.ruling_numbers.parry_modifier;
    if alert && super::orders::shield(world, target).is_some() {
        add += data.ruling_numbers.shield_modifier;
    }
    Some((hit_chance(multiplier, add, d.to_hit), w.to_string()))
}

pub(super) fn preview(world: &World, actor: Entity, target: Entity) -> Option<String> {
    let (p, w) = chance(world, actor, target, 0)?;
    let d = weapon(world, &w)?;
    let preps = preparations(world, actor, &w);
    let bonus = 2 * preps;
    Some(format!(
        "{w}: {:.0}% to hit unparried, {}–{} EN{}; reach {}",
        p * 100.0,
        d.damage.min() + bonus,
        d.damage.max() + bonus,
        if preps > 0 {
            format!(" ({preps} preparations)")
        } else {
            String::new()
        },
        reach_of(world, actor, &w)
    ))
}

fn states(world: &World, e: Entity) -> Vec<String> {
    let mut out = Vec::new();
    match world.get::<Condition>(e) {
        Some(Condition::Unconscious) => out.push("unconscious".to_string()),
        Some(Condition::Dead) => out.push("dead".to_string()),
        _ => {}
    }
    // Blows left first: the board shows the first state under the token.
    if let Some(b) = world.get::<Blows>(e) {
        out.push(format!("blows {}/{}", b.active, b.reactive));
    }
    out.push(if alert(world, e) { "alert" } else { "unalert" }.to_string());
    if world.get::<Fallen>(e).is_some() {
        out.push("fallen".into());
    }
    if world.get::<Passed>(e).is_some() {
        out.push("passed".into());
    }
    if let Some(p) = world.get::<Preparation>(e) {
        out.push(format!("great blow x{}", p.total()));
    }
    out
}

pub(super) fn tokens(world: &World) -> Vec<TokenView> {
    let flow = world.resource::<Flow>();
    roster(world)
        .into_iter()
        .filter_map(|e| {
            let en = world.get::<En>(e)?;
            let bd = world.get::<Bd>(e)?;
            let reach = attack_weapon(world, e)
                .filter(|w| weapon(world, w).is_some_and(|d| !d.kind.missile()))
                .map_or(0, |w| reach_of(world, e, &w));
            let trace = flow
                .traces
                .iter()
                .find(|t| t.who == e && !t.done)
                .map(|t| t.path[t.at..].to_vec())
                .unwrap_or_default();
            let bars = vec![en.bar("EN"), bd.bar("BD")];
            Some(TokenView {
                states: states(world, e),
                out: !up(world, e),
                threat_reach: if up(world, e) && alert(world, e) {
                    reach
                } else {
                    0
                },
                speed: if flow.stage == Stage::Movement {
                    allowance(world, e, false)
                } else {
                    0
                },
                trace,
                ..TokenView::of(world, e, bars)?
            })
        })
        .collect()
}

pub(super) fn tracker(world: &World) -> TrackerView {
    let flow = world.resource::<Flow>();
    let heading = match flow.stage {
        Stage::Start => format!("Round {}: starting", flow.round + 1),
        Stage::Combat => format!(
            "Round {} · combat phase · initiative: most active blows, then reactive, then EN",
            flow.round
        ),
        Stage::Noncombat => format!("Round {} · noncombat phase · secret options", flow.round),
        Stage::Movement => format!("Round {} · movement phase · traces", flow.round),
        Stage::Over => format!("Round {}: the battle is over", flow.round),
    };
    let can = eligible(world);
    let mut all = roster(world);
    all.sort_by_key(|&e| std::cmp::Reverse((can.contains(&e), standing(world, e))));
    let rows = all
        .into_iter()
        .map(|e| {
            let (a, r, en) = standing(world, e);
            let holder = flow.initiative.contains(&e) && flow.stage == Stage::Combat;
            let state = if holder {
                RowState::Now
            } else if can.contains(&e) && flow.stage == Stage::Combat {
                RowState::Coming
            } else {
                RowState::Done
            };
            let mut note = Vec::new();
            if holder && !flow.why.is_empty() {
                note.push(format!("initiative: {}", flow.why));
            } else if !up(world, e) {
                note.push("unconscious".into());
            } else if world.get::<Passed>(e).is_some() {
                note.push("passed".into());
            } else if !can.contains(&e) && flow.stage == Stage::Combat {
                note.push("no blow it can pay for".into());
            }
            note.push(if alert(world, e) { "alert" } else { "unalert" }.into());
            TrackerRow::one(
                format!("A{a} R{r} EN{en}"),
                flow.name(e),
                state,
                note.join("; "),
            )
        })
        .collect();
    TrackerView {
        heading,
        rows,
        waiting: Vec::new(),
    }
}

pub(super) fn sheet(world: &World, e: Entity) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some((stats, en, bd, b, h)) =
        fray_core::model::components::<(&Stats, &En, &Bd, &Blows, &Hands)>(world, e)
    else {
        return out;
    };
    let data = &world.resource::<Data>().0;
    let armour = armour_of(world, e);
    let mut line = |k: &str, v: String| out.push((k.to_string(), v));
    line("EN", format!("{} / {}", en.current, en.max));
    line("BD", format!("{} / {}", bd.current, bd.max));
    line(
        "Blows left",
        format!(
            "{} active, {} reactive (of {} and {})",
            b.active, b.reactive, stats.active, stats.reactive
        ),
    );
    line(
        "EN this phase",
        format!(
            "{} of {} (EL {} + EN die)",
            b.en_phase,
            stats.en_cap(),
            stats.el
        ),
    );
    line("ST, DX", format!("{}, {}", stats.st, stats.dx));
    line(
        "Armour",
        format!(
            "{} (AC {}, second modifier {}, critical {}){}",
            stats.armour,
            armour.ac,
            armour.second_modifier,
            armour.critical,
            if h.armour_on { "" } else { " — not on" }
        ),
    );
    line("Movement", format!("{} cells a round", stats.movement));
    for w in &h.wielded {
        if let Some(d) = data.weapons.get(w) {
            line(
                "In hand",
                format!(
                    "{w}: {:?} {:?}, to hit {}, {} damage, breakage {}",
                    d.heft, d.kind, d.to_hit, d.damage, d.breakage
                ),
            );
        }
    }
    if !h.sheathed.is_empty() {
        line("Sheathed", h.sheathed.join(", "));
    }
    if !stats.spells.is_empty() {
        line("Spells", stats.spells.join(", "));
    }
    line("State", states(world, e).join(", "));
    out
}

/// What a move provokes, for the board's warning: 000 §3.2.2: no reach is
/// provoked; those who stop may strike a mover along its trace.
pub(super) const PROVOKES: fray_core::movement::Provokes = fray_core::movement::Provokes::Never;

/// Whether a move takes the way that provokes fewest: no, the first shortest.
pub(super) const WARY: bool = false;

/// The initiative passes blow by blow: no fixed clock.
/// What the bars and marks mean, for the help's legend.
pub(super) const LEGEND: &[(&str, &str)] = &[
    (
        "EN bar (upper)",
        "Endurance: spent on blows and lost to every hit; at 0 unconscious (000 §Introduction, ruling unconscious)",
    ),
    (
        "BD bar (lower)",
        "Body: lost to critical hits; at 0 dead (000 §1.2.5.3, ruling unconscious)",
    ),
    (
        "A2 R1 EN24",
        "in the tracker: 2 active and 1 reactive blows left this round, 24 EN (000 §1.1.2)",
    ),
    (
        "dashed line",
        "a movement trace, once the traces are revealed (000 §3.1)",
    ),
];

/// 000 §1–§3: the combat phase, option by option; the noncombat options;
/// the movement phase, fraction by fraction of the traces.
pub(super) fn periods(_: &World) -> Option<fray_core::view::Periods> {
    Some(fray_core::view::Periods::Named)
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
    use super::hit_chance;

    #[test]
    fn two_d_ten_odds() {
        // 2D10 + 6 >= 17: 11 or more on 2D10 is 55 of 100; double tens hit,
        // double ones miss (already a miss).
        assert_eq!(hit_chance(1, 6, 17), 0.55);
        // Nothing needed: all but double ones.
        assert_eq!(hit_chance(1, 100, 0), 0.99);
        // Impossible: double tens alone.
        assert_eq!(hit_chance(1, 0, 100), 0.01);
        // Unalert: the throw doubled, 2 × 2D10 − 3 >= 20 needs 12 or more.
        assert_eq!(hit_chance(2, -3, 20), 0.45);
    }

    #[test]
    fn the_odds_are_those_of_the_hundred_throws_one_by_one() {
        for multiplier in 1..=2 {
            for add in -25..=25 {
                for need in -5..=45 {
                    let mut hits = 0;
                    for a in 1..=10 {
                        for b in 1..=10 {
                            let total = (a + b) * multiplier + add;
                            let hit = (a, b) != (1, 1) && ((a, b) == (10, 10) || total >= need);
                            hits += i32::from(hit);
                        }
                    }
                    let p = hit_chance(multiplier, add, need);
                    assert_eq!(p, hits as f32 / 100.0, "{multiplier} {add} {need}");
                }
            }
        }
    }
}
