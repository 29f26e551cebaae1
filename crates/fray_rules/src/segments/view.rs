//! What the `segments` ruleset shows the window: hit points, each
//! combatant's surprise segments, the ten segments of the round with who
//! acts in each and why (the other side's die), spells running with the
//! segment they go off, held actions and second routines.

use bevy_ecs::prelude::*;
use fray_core::casting::Casting;
use fray_core::model::Rostered;
use fray_core::view::Sheet;
use fray_core::view::{Bar, RowState, TokenView, TrackerRow, TrackerView};

use super::{
    Action, Data, Dead, Declared, Fled, Flow, HitPoints, Kit, Period, Routine, Stage, Stats,
    SurpriseSegments, describe, roster,
};

/// Chance to hit and damage of `actor`'s weapons against `target` (ruling
/// `attack_roll`: d20 against THAC0 − AC).
pub(super) fn preview(world: &World, actor: Entity, target: Entity) -> Option<String> {
    let data = &world.resource::<Data>().0;
    let s = world.get::<Stats>(actor)?;
    let ac = world.get::<Stats>(target)?.ac;
    let lines: Vec<String> = world
        .get::<Kit>(actor)?
        .weapons
        .iter()
        .filter_map(|w| data.weapons.get(w).map(|d| (w, d)))
        .map(|(w, d)| {
            let bonus = if d.missile() { s.missile_bonus } else { 0 };
            let p = super::ai::hit_chance(s.thac0 - ac, bonus);
            let dmg = if d.missile() { 0 } else { s.damage_bonus };
            format!(
                "{w}: {:.0}% to hit (THAC0 {} − AC {ac}), {}–{} damage, {} per routine",
                p * 100.0,
                s.thac0,
                (d.damage.min() + dmg).max(1),
                d.damage.max() + dmg,
                d.rate
            )
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

pub(super) fn tokens(world: &World) -> Vec<TokenView> {
    let data = &world.resource::<Data>().0;
    let flow = world.resource::<Flow>();
    roster(world)
        .into_iter()
        .filter_map(|e| {
            let hp = world.get::<HitPoints>(e)?;
            let mut states = Vec::new();
            if let Some(s) = world.get::<SurpriseSegments>(e)
                && flow.period == Period::Surprise
                && s.0 > 0
            {
                states.push(format!("surprised {} seg", s.0));
            }
            if let Some(c) = world.get::<Casting>(e) {
                states.push(format!(
                    "casting {} (goes off in {})",
                    c.spell,
                    flow.segment_words(c.completes)
                ));
            }
            if let Some(Declared(Action::Hold { until, .. } | Action::HoldCast { until, .. })) =
                world.get::<Declared>(e)
            {
                states.push(format!("holding to {until}"));
            }
            if let Some(Declared(Action::SetSpear { .. })) = world.get::<Declared>(e) {
                states.push("spear set".into());
            }
            let dead = world.get::<Dead>(e).is_some();
            if dead {
                states.push("dead".into());
            } else if world.get::<Fled>(e).is_some() {
                states.push("broke and fled".into());
            }
            let reach = world.get::<Kit>(e).map_or(0, |k| {
                crate::book::farthest(&k.weapons, &data.weapons, |w| w.reach)
            });
            Some(TokenView {
                states,
                out: dead || world.get::<fray_core::model::Fighting>(e).is_none(),
                gone: world.get::<Fled>(e).is_some(),
                threat_reach: if dead { 0 } else { reach },
                speed: world.get::<Stats>(e).map_or(0, |s| s.move_cells),
                ..TokenView::of(world, e, vec![Bar::new("HP", hp.current.max(0), hp.max)])?
            })
        })
        .collect()
}

/// 001 §3: where the battle's time stands.
fn heading(flow: &Flow, world: &World) -> String {
    let sides = world.resource::<fray_core::model::Sides>();
    let stage = match flow.stage {
        Stage::Start => "surprise".to_string(),
        Stage::BeginRound | Stage::Declaring => "declaring, in secret".to_string(),
        Stage::Initiative => "rolling initiative".to_string(),
        Stage::Resolving | Stage::Asking => match flow.period {
            Period::Surprise => format!("surprise segment {}", flow.segment.max(1)),
            Period::Round => format!("segment {} of {}", flow.segment.max(1), flow.segments),
        },
        Stage::EndRound => "end of round".to_string(),
        Stage::Over => "combat over".to_string(),
    };
    let rolls = match (flow.period, flow.initiative) {
        (Period::Round, Some([a, b])) => format!(
            " · {} rolled {a}, {} rolled {b}",
            sides.0.first().map_or("?", |s| s.name.as_str()),
            sides.0.get(1).map_or("?", |s| s.name.as_str())
        ),
        _ => String::new(),
    };
    match flow.period {
        Period::Surprise => format!("Surprise · {stage}"),
        Period::Round => format!("Round {} · {stage}{rolls}", flow.round.max(1)),
    }
}

/// One row per segment that has anything in it: who acts and why, second
/// routines, held actions, spells going off.
pub(super) fn tracker(world: &World) -> TrackerView {
    let flow = world.resource::<Flow>();
    let mut rows: Vec<TrackerRow> = Vec::new();
    let first = flow.period == Period::Surprise;
    let segments: Vec<u32> = if first {
        (1..=flow.surprise_segments).collect()
    } else {
        (1..=flow.segments).collect()
    };
    let acting: Vec<(bool, &super::Slot)> = flow
        .done
        .iter()
        .map(|s| (true, s))
        .chain(flow.group.acting().iter().map(|s| (false, s)))
        .chain(flow.slots.iter().map(|s| (false, s)))
        .collect();
    for s in segments {
        let state = if s < flow.segment || (s == flow.segment && !flow.opened && flow.segment > 0) {
            RowState::Done
        } else if s == flow.segment && flow.opened {
            RowState::Now
        } else {
            RowState::Coming
        };
        let mut names = Vec::new();
        let mut notes = Vec::new();
        for (_, slot) in acting.iter().filter(|(_, x)| x.segment == s) {
            let who = flow.name(slot.actor).to_string();
            let what = match slot.routine {
                Routine::Second => "second routine".to_string(),
                Routine::First => describe(world, &slot.action),
            };
            notes.push(format!("{who}: {what} ({})", slot.why));
            if !names.contains(&who) {
                names.push(who);
            }
        }
        for e in roster(world) {
            if let Some(c) = world.get::<Casting>(e)
                && c.completes == flow.clock(s)
            {
                notes.push(format!("{}'s {} goes off", flow.name(e), c.spell));
            }
        }
        if names.is_empty() && notes.is_empty() {
            continue;
        }
        let mark = if first {
            format!("surprise segment {s}")
        } else {
            format!("segment {s}")
        };
        rows.push(TrackerRow {
            mark,
            names,
            state,
            note: notes.join("; "),
        });
    }
    TrackerView {
        heading: heading(flow, world),
        rows,
        waiting: waiting(world, flow),
    }
}

/// Who is surprised and for how long, who casts, who is out.
fn waiting(world: &World, flow: &Flow) -> Vec<String> {
    let mut out = Vec::new();
    for e in roster(world) {
        let who = flow.name(e);
        // 001 §1: surprise is had once, in the surprise segments.
        if let Some(s) = world.get::<SurpriseSegments>(e)
            && s.0 > 0
            && flow.period == Period::Surprise
        {
            out.push(format!("{who}: surprised for {} segment(s)", s.0));
        }
        if let Some(c) = world.get::<Casting>(e) {
            out.push(format!(
                "{who}: casting {}, {}, goes off in {}",
                c.spell,
                flow.begun(c.began),
                flow.segment_words(c.completes)
            ));
        }
        if flow.stage == Stage::Declaring && flow.hidden.iter().any(|(x, _)| *x == e) {
            out.push(format!("{who}: has written down an action (hidden)"));
        }
    }
    out
}

pub(super) fn sheet(world: &World, e: Entity) -> Vec<(String, String)> {
    let (Some(mut sheet), Some(s)) = (Sheet::of(world, e), world.get::<Stats>(e)) else {
        return Vec::new();
    };
    let mut line = |k: &str, v: String| sheet.line(k, v);
    if let Some(hp) = world.get::<HitPoints>(e) {
        line("Hit points", format!("{} / {}", hp.current, hp.max));
    }
    line("Level", s.level.to_string());
    line("Armour class", s.ac.to_string());
    line("THAC0", s.thac0.to_string());
    line("Move", format!("{} cells", s.move_cells));
    line("Missile attack bonus", format!("{:+}", s.missile_bonus));
    line("Surprise bonus", format!("{:+}", s.surprise_bonus));
    line("Attack routines", s.routines.to_string());
    if let Some(ss) = world.get::<SurpriseSegments>(e)
        && world.resource::<Flow>().period == Period::Surprise
    {
        line("Surprised for", format!("{} segment(s)", ss.0));
    }
    if let Some(Declared(a)) = world.get::<Declared>(e) {
        line("Declared", describe(world, a));
    }
    if let Some(k) = world.get::<Kit>(e) {
        line("Weapons", k.weapons.join(", "));
        if !k.spells.is_empty() {
            line("Spells", k.spells.join(", "));
        }
    }
    sheet.0
}

/// What a move provokes, for the board's warning: a move out of the reach
/// of an enemy beside the mover turns its back to it (ruling
/// `fleeing_attack`). The declarations that would are marked so in the
/// list of choices too.
pub(super) const PROVOKES: fray_core::movement::Provokes =
    fray_core::movement::Provokes::TurningAway;

/// Whether a move takes the way that provokes fewest: no, the first shortest.
pub(super) const WARY: bool = false;

/// 001 §3: a round is ten segments.
/// What the bars and marks mean, for the help's legend.
pub(super) const LEGEND: &[(&str, &str)] = &[
    (
        "HP bar",
        "hit points: at 0 or fewer the combatant is dead (ruling hit_points)",
    ),
    (
        "segment N",
        "the segments of a round; each side acts in the segment the other side's d6 names (001 §Combat)",
    ),
];

/// The round is not divided into periods of time.
pub(super) fn periods(_: &World) -> Option<fray_core::view::Periods> {
    None
}

/// The segments of a round (001 §3; the data's `segments_per_round`).
pub(super) fn clock(world: &World) -> Option<fray_core::view::Clock> {
    Some(fray_core::view::Clock {
        name: "segment",
        first: 1,
        last: i64::from(world.resource::<Flow>().segments),
    })
}

pub(super) use super::declare::warns;
