//! What the `crucible` ruleset shows the window: hit point bars, states
//! (surprised, casting, parrying, withdrawing), the round's order of play
//! lowest first with the side rolls and individual adjustments, and a sheet.

use bevy_ecs::prelude::*;
use fray_core::casting::{Casting, Memorised};
use fray_core::view::{RowState, TokenView, TrackerRow, TrackerView};

use super::combat::{armour_class, armour_class_words, attacks_this_round};
use super::{
    Data, Down, Fled, Flow, HitPoints, Kit, Readied, RoundState, Stage, Stats, Surprised,
    Surrendered, Withdrawal, name, roster, up,
};

/// Chance to hit and damage of `actor` against `target` (ruling attack_roll).
pub(super) fn preview(world: &World, actor: Entity, target: Entity) -> Option<String> {
    let s = world.get::<Stats>(actor)?;
    let (ac, words) = (
        armour_class(world, target),
        armour_class_words(world, target),
    );
    let need = (s.thac0 - ac).clamp(2, 20);
    let chance = (21 - need) * 5;
    let (weapon, w) = super::orders::melee_weapon(world, actor)
        .or_else(|| super::orders::missile_weapon(world, actor))?;
    let bonus = if w.range == 0 { s.damage_bonus } else { 0 };
    Some(format!(
        "{weapon}: {chance}% to hit ({words}), {}–{} damage, {} attack(s) this round",
        (w.damage.min() + bonus).max(1),
        w.damage.max() + bonus,
        attacks_this_round(world, actor)
    ))
}

fn states(world: &World, e: Entity) -> Vec<String> {
    let mut out = Vec::new();
    let flag = |on: bool, s: &str, out: &mut Vec<String>| {
        if on {
            out.push(s.to_string());
        }
    };
    flag(world.get::<Surprised>(e).is_some(), "surprised", &mut out);
    flag(world.get::<Down>(e).is_some(), "down", &mut out);
    flag(
        world.get::<Surrendered>(e).is_some(),
        "surrendered",
        &mut out,
    );
    flag(world.get::<Readied>(e).is_some(), "missile ready", &mut out);
    flag(
        world.get::<RoundState>(e).is_some_and(|r| r.parrying),
        "parrying",
        &mut out,
    );
    if let Some(c) = world.get::<Casting>(e) {
        out.push(format!("casting {}", c.spell));
    }
    if let Some(w) = world.get::<Withdrawal>(e) {
        out.push(w.words().to_string());
    }
    out
}

pub(super) fn tokens(world: &World) -> Vec<TokenView> {
    roster(world)
        .into_iter()
        .filter_map(|e| {
            let hp = world.get::<HitPoints>(e)?;
            Some(TokenView {
                states: states(world, e),
                out: !up(world, e),
                gone: world.get::<Fled>(e).is_some(),
                threat_reach: u32::from(up(world, e)),
                speed: world.get::<Stats>(e).map_or(0, |s| s.speed),
                ..TokenView::of(world, e, vec![hp.bar("HP")])?
            })
        })
        .collect()
}

/// 003 §II A: the order of play, lowest first, ties on one row; the side
/// rolls and each individual adjustment in the heading's notes.
pub(super) fn tracker(world: &World) -> TrackerView {
    let flow = world.resource::<Flow>();
    let phase = match flow.stage {
        Stage::Surprise => "checking surprise",
        Stage::BeginRound | Stage::Readied => "readied missiles, then initiative",
        Stage::Counts if flow.surprise_round => {
            "surprise round: the unsurprised act, highest roll first"
        }
        Stage::Counts => "acting, lowest initiative first",
        Stage::EndRound => "end of round: morale",
        Stage::Over => "combat over",
    };
    let rolls: Vec<String> = flow
        .rolls
        .iter()
        .map(|r| format!("{} rolled {}: {} after Dexterity", r.who, r.die, r.result))
        .collect();
    let mut rows: Vec<TrackerRow> = Vec::new();
    // Those out of the fight no longer have a place in the order.
    let mut order: Vec<(Entity, i32)> = flow
        .initiative
        .iter()
        .copied()
        .filter(|(e, _)| world.get::<fray_core::model::Fighting>(*e).is_some())
        .collect();
    order.sort_by_key(|(_, c)| *c);
    for (e, c) in order {
        let state = match flow.count {
            Some(now) if c < now => RowState::Done,
            Some(now) if c == now => RowState::Now,
            _ => RowState::Coming,
        };
        let n = name(world, e);
        match rows.last_mut() {
            Some(r) if r.mark == format!("initiative {c}") => r.names.push(n),
            _ => rows.push(TrackerRow::one(
                format!("initiative {c}"),
                &n,
                state,
                String::new(),
            )),
        }
    }
    let waiting = roster(world)
        .into_iter()
        .filter(|&e| world.get::<Surprised>(e).is_some())
        .map(|e| format!("{}: surprised", name(world, e)))
        .collect();
    TrackerView {
        heading: format!(
            "Round {} · {phase}{}",
            flow.round.max(1),
            fray_core::log::aside(" · ", &rolls, "")
        ),
        rows,
        waiting,
    }
}

pub(super) fn sheet(world: &World, e: Entity) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some(s) = world.get::<Stats>(e) else {
        return out;
    };
    let data = &world.resource::<Data>().0;
    out.push((
        "Class".into(),
        format!("{:?} {} ({:?})", s.class, s.level, s.race),
    ));
    out.push((
        "Attacks".into(),
        s.attacks.map_or_else(
            || data.attacks_row(s.class, s.level).to_string(),
            |n| format!("{n}/1"),
        ),
    ));
    out.push(("AC".into(), armour_class_words(world, e)));
    out.push(("THAC0".into(), s.thac0.to_string()));
    out.push(("Move".into(), format!("{} squares", s.speed)));
    if let Some(hp) = world.get::<HitPoints>(e) {
        out.push(("Hit points".into(), format!("{} / {}", hp.current, hp.max)));
    }
    if let Some(k) = world.get::<Kit>(e) {
        out.push((
            "Weapons".into(),
            if k.dropped {
                "dropped".into()
            } else {
                k.weapons.join(", ")
            },
        ));
    }
    if let Some(m) = world.get::<Memorised>(e).filter(|m| !m.0.is_empty()) {
        out.push(("Memorised".into(), m.0.join(", ")));
    }
    out
}

/// What a move provokes, for the board's warning: 003 §III F: moving on within
/// melee range, past the first 5', gives the foe a free attack.
pub(super) const PROVOKES: fray_core::movement::Provokes =
    fray_core::movement::Provokes::Within { free: 1 };

/// Whether a move takes the way that provokes fewest: yes, of the
/// shortest (ruling wary_way).
pub(super) const WARY: bool = true;

/// 003 §II A: sides act on their d12 results, lowest first.
/// What the bars and marks mean, for the help's legend.
pub(super) const LEGEND: &[(&str, &str)] = &[
    (
        "HP bar",
        "hit points: at 0 or below the creature falls and is out of the fight (ruling hit_points)",
    ),
    (
        "initiative N",
        "a side's d12 initiative this round; the lowest acts first, ties together (003 §II)",
    ),
];

/// The round is not divided into periods of time.
pub(super) fn periods(_: &World) -> Option<fray_core::view::Periods> {
    None
}

/// The counts of the initiative die (003 §II A).
pub(super) fn clock(_: &World) -> Option<fray_core::view::Clock> {
    Some(fray_core::view::Clock {
        name: "initiative",
        first: 1,
        last: 12,
    })
}

/// 003 §Attacks Of Opportunity: "the DM should announce that the
/// characters intended actions can or will have such consequences" — for
/// an order typed by hand as for the choices offered.
pub(super) fn warns(world: &World, e: Entity, order: &fray_core::decision::Order) -> Vec<String> {
    super::orders::validate(world, e, order)
        .map(|plan| super::orders::warning(world, e, &plan))
        .unwrap_or_default()
}
