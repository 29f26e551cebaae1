//! What the `phases` ruleset shows the window: STUN and BODY bars, the
//! initiative order (highest first, as delay and ready have moved it) with
//! who is delayed, readied, aborted or stunned, and a unit sheet.

use bevy_ecs::prelude::*;

use fray_core::model::Rostered;
use fray_core::view::{RowState, TokenView, TrackerRow, TrackerView};

use super::orders::{melee_weapon, movement_left};
use super::turn::{dcv, ocv};
use super::{
    AbortedAhead, Body, Condition, Data, Flow, Guard, Hold, Initiative, Kit, PhasesData,
    RecoveryStarted, Stage, Stats, Stun, Stunned, Trigger, Unaware, Use, Work, roster, up,
};

/// The ways, of 216, that 3d6 roll `k` or more, for `k` from 0 to 18.
const WAYS_3D6_AT_LEAST: [u32; 19] = {
    let mut ways = [0; 19];
    let mut a = 1;
    while a <= 6 {
        let mut b = 1;
        while b <= 6 {
            let mut c = 1;
            while c <= 6 {
                let mut k = 0;
                while k <= a + b + c {
                    ways[k] += 1;
                    k += 1;
                }
                c += 1;
            }
            b += 1;
        }
        a += 1;
    }
    ways
};

/// Chance that 3d6 rolls `k` or more.
pub fn chance_3d6_at_least(k: i32) -> f32 {
    match usize::try_from(k) {
        Err(_) => 1.0,
        Ok(k) if k > 18 => 0.0,
        Ok(k) => WAYS_3D6_AT_LEAST[k] as f32 / 216.0,
    }
}

/// 002 §Attack Roll for `actor` striking `target`: the chance to hit and the
/// STUN a hit does after PD.
pub(super) fn preview(world: &World, actor: Entity, target: Entity) -> Option<String> {
    let data = &world.resource::<Data>().0;
    let kit = world.get::<Kit>(actor)?;
    let pd = world.get::<Stats>(target)?.pd;
    let d = dcv(world, target);
    let lines: Vec<String> = kit
        .weapons
        .iter()
        .filter_map(|w| data.weapons.get(w).map(|x| (w, x)))
        .map(|(w, x)| {
            let manoeuvre = if x.melee() { "strike" } else { "shoot" };
            let o = ocv(world, actor, manoeuvre);
            let need = data.numbers.attack_base + d - o;
            let chance = (chance_3d6_at_least(need) * 100.0).round();
            let lo = (x.damage.min() - pd).max(0);
            let hi = (x.damage.max() - pd).max(0);
            format!(
                "{w}: {chance}% to hit (3d6 + OCV {o} against 10 + DCV {d}), {lo}–{hi} STUN after PD"
            )
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

fn states(world: &World, e: Entity) -> Vec<String> {
    let flow = world.resource::<Flow>();
    let mut out = Vec::new();
    match world.get::<Condition>(e) {
        Some(Condition::Unconscious) => out.push("unconscious".to_string()),
        Some(Condition::Down) => out.push("down".to_string()),
        _ => {}
    }
    if world.get::<Unaware>(e).is_some() {
        out.push("unaware".into());
    }
    if world.get::<Stunned>(e).is_some() {
        out.push("stunned".into());
    }
    match world.get::<Hold>(e) {
        Some(Hold::Delayed { before, .. }) => out.push(match before {
            Some(b) => format!("delayed: before {}", flow.name(*b)),
            None => "delayed: end of phase".into(),
        }),
        Some(Hold::Readied { trigger, .. }) => {
            let what = match super::orders::readied_action(world, e) {
                Some(("shoot", _)) => "shoot",
                _ => "strike",
            };
            out.push(match trigger {
                Trigger::EntersReach => format!("readied: {what} who comes in reach"),
                Trigger::Acts(t) => format!("readied: {what} {} when it acts", flow.name(*t)),
            })
        }
        None => {}
    }
    // A phase that passed while it lay senseless took the skip with it.
    let now = world.resource::<Flow>().phase_index();
    if world.get::<AbortedAhead>(e).is_some_and(|a| a.0 >= now) {
        out.push("aborted: skips next phase".into());
    }
    if let Some(g) = world.get::<Guard>(e) {
        if g.dodge {
            out.push("dodging".into());
        }
        if g.block {
            out.push("blocking".into());
        }
        if g.manoeuvres.iter().any(|m| m.0 == "haymaker") {
            out.push("haymaker: -5 DCV".into());
        }
    }
    if world.get::<RecoveryStarted>(e).is_some() {
        out.push("recovery begun".into());
    }
    out
}

pub(super) fn tokens(world: &World) -> Vec<TokenView> {
    roster(world)
        .into_iter()
        .filter_map(|e| {
            let stun = world.get::<Stun>(e)?;
            let body = world.get::<Body>(e)?;
            let stats = world.get::<Stats>(e)?;
            let standing = up(world, e) && world.get::<Stunned>(e).is_none();
            let bars = vec![stun.bar("STUN"), body.bar("BODY")];
            Some(TokenView {
                states: states(world, e),
                out: !up(world, e),
                threat_reach: if standing && melee_weapon(world, e).is_some() {
                    stats.reach
                } else {
                    0
                },
                speed: movement_left(world, e),
                ..TokenView::of(world, e, bars)?
            })
        })
        .collect()
}

/// Whose turn it is: the turn at the bottom of the stack (interrupts are
/// above it).
fn turn_holder(flow: &Flow) -> Option<Entity> {
    flow.stack.iter().find_map(|w| match w {
        Work::Turn { actor, .. } | Work::Recover { actor, .. } => Some(*actor),
        _ => None,
    })
}

pub(super) fn tracker(world: &World) -> TrackerView {
    let flow = world.resource::<Flow>();
    let per_turn = world.resource::<Data>().0.numbers.phases_per_turn;
    let heading = match flow.stage {
        Stage::Start => "Before the battle".to_string(),
        Stage::Over => format!("Turn {}: the battle is over", flow.turn),
        Stage::PostTurn => format!("Turn {}, Post-Turn: everyone recovers", flow.turn),
        Stage::Phase if flow.phase == 0 => {
            "Surprise Phase: the aware act, one attack or move action each".to_string()
        }
        Stage::Phase => format!(
            "Turn {}, phase {} of {per_turn} · highest first",
            flow.turn, flow.phase
        ),
    };
    let now = turn_holder(flow);
    let rows = flow
        .order
        .iter()
        .map(|&e| {
            let score = world.get::<Initiative>(e).map_or(0, |i| i.score);
            let state = if Some(e) == now {
                RowState::Now
            } else if flow.acted(e) {
                RowState::Done
            } else {
                RowState::Coming
            };
            let mut note = states(world, e);
            if let Some(moved) = world.get::<Initiative>(e).and_then(|i| i.moved.clone()) {
                note.insert(0, format!("moved {moved}"));
            }
            TrackerRow::one(format!("{score}"), flow.name(e), state, note.join("; "))
        })
        .collect();
    let waiting = if flow.phase == 0 {
        flow.order
            .iter()
            .filter(|&&e| world.get::<Unaware>(e).is_some())
            .map(|&e| format!("{}: unaware, does not act (-3 DCV)", flow.name(e)))
            .collect()
    } else {
        Vec::new()
    };
    TrackerView {
        heading,
        rows,
        waiting,
    }
}

/// 002 §Reach and Range: a carried weapon in words: its damage, melee or
/// its range, and the shots it has left.
fn weapon_line(data: &PhasesData, kit: &Kit, i: usize, w: &str) -> String {
    let d = data.weapons.get(w);
    let shots = match (d, kit.shots.get(i)) {
        (Some(d), Some(s)) if d.shots > 0 => format!(", {s}/{} shots", d.shots),
        _ => String::new(),
    };
    let what = d.map_or(String::new(), |d| {
        if d.melee() {
            format!("{} melee", d.damage)
        } else {
            format!("{} range {}", d.damage, d.range)
        }
    });
    format!("{w}: {what}{shots}")
}

/// 002 §Normal Phase: what a character has used of this phase: a full-phase
/// action, or its attack and move actions, the 1-hex step, and attacks of
/// opportunity (002 §Attacks of Opportunity).
fn used_this_phase(u: &Use) -> String {
    let mut used = Vec::new();
    if u.full_phase {
        used.push("full phase".to_string());
    } else if u.actions > 0 {
        used.push(format!(
            "{} action{}{}",
            u.actions,
            if u.actions == 1 { "" } else { "s" },
            if u.attack { " (one an attack)" } else { "" }
        ));
    }
    if u.stepped {
        used.push("1-hex step".into());
    }
    if u.opportunities > 0 {
        used.push(format!("{} attacks of opportunity", u.opportunities));
    }
    if used.is_empty() {
        "nothing used".into()
    } else {
        used.join(", ")
    }
}

pub(super) fn sheet(world: &World, e: Entity) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some((stats, stun, body, kit)) =
        fray_core::model::components::<(&Stats, &Stun, &Body, &Kit)>(world, e)
    else {
        return out;
    };
    let data = &world.resource::<Data>().0;
    let mut line = |k: &str, v: String| out.push((k.to_string(), v));
    line(
        "Initiative",
        world.get::<Initiative>(e).map_or("–".into(), |i| {
            let mut s = i.score.to_string();
            if let Some(m) = &i.moved {
                s.push_str(&format!(", moved {m}"));
            }
            s
        }),
    );
    line(
        "Combat Value",
        format!(
            "{} (Lightning Reflexes {:+}, combat levels {:+})",
            stats.cv, stats.lightning_reflexes, stats.combat_levels
        ),
    );
    line("OCV now", ocv(world, e, "strike").to_string());
    line("DCV now", dcv(world, e).to_string());
    line("STUN", format!("{} / {}", stun.current, stun.max));
    line("BODY", format!("{} / {}", body.current, body.max));
    line(
        "PD, CON, REC",
        format!("{}, {}, {}", stats.pd, stats.con, stats.rec),
    );
    line(
        "Movement",
        format!(
            "{} hexes ({} left this phase)",
            stats.movement,
            movement_left(world, e)
        ),
    );
    line(
        "Reach",
        format!(
            "{} hex{}",
            stats.reach,
            if stats.reach == 1 { "" } else { "es" }
        ),
    );
    line(
        "Attacks of opportunity",
        format!(
            "{} a phase",
            data.numbers.opportunities_per_phase + stats.combat_reflexes
        ),
    );
    for (skill, v) in &stats.skills {
        line(skill, format!("{v}-"));
    }
    for (i, w) in kit.weapons.iter().enumerate() {
        line("Weapon", weapon_line(data, kit, i, w));
    }
    if let Some(u) = world.get::<Use>(e) {
        line("This phase", used_this_phase(u));
    }
    let st = states(world, e);
    if !st.is_empty() {
        line("State", st.join(", "));
    }
    out
}

/// What a move provokes, for the board's warning: 002 §Moving Out: a move out
/// of a threatened hex provokes an attack of opportunity (a 1-hex step never
/// does).
pub(super) const PROVOKES: fray_core::movement::Provokes = fray_core::movement::Provokes::Leaving;

/// Whether a move takes the way that provokes fewest (ruling `route`).
pub(super) const WARY: bool = true;

/// Phases are marked by who acts: no fixed clock.
/// What the bars and marks mean, for the help's legend.
pub(super) const LEGEND: &[(&str, &str)] = &[
    (
        "STUN bar (upper)",
        "STUN: at 0 or less unconscious; a Recovery restores it (rulings knocked_out, recovery)",
    ),
    (
        "BODY bar (lower)",
        "BODY: at 0 or less down for good; not restored in battle (ruling knocked_out)",
    ),
    (
        "phase N",
        "phase N of the turn, as long as the timeline draws it, then the Post-Turn recovery (002 §Time: four 3-second phases to a 12-second turn)",
    ),
    (
        "OCV / DCV",
        "offensive and defensive Combat Value, changed by manoeuvres (ruling cv_is_ocv_and_dcv)",
    ),
];

/// 002 §Time: "Each Phase is 3 seconds long. 4 Phases make up 1
/// Turn of 12 seconds." As many, and as long, as the ruleset data says.
pub(super) fn periods(world: &World) -> Option<fray_core::view::Periods> {
    let numbers = &world.resource::<Data>().0.numbers;
    Some(fray_core::view::Periods::Timed {
        name: "phase",
        seconds: numbers.seconds_per_phase,
        count: numbers.phases_per_turn,
    })
}

/// The round runs on no fixed clock.
pub(super) fn clock(_: &World) -> Option<fray_core::view::Clock> {
    None
}

/// 002 §Moving Out, §1-Hex Step: a move typed or clicked out of a hex an
/// opponent threatens provokes it, said before it is taken; where the
/// 1-hex step, which never provokes, reaches the same hex, the warning
/// says so.
pub(super) fn warns(world: &World, me: Entity, order: &fray_core::decision::Order) -> Vec<String> {
    if !matches!(order.action.as_str(), "move" | "full_move") {
        return Vec::new();
    }
    let (Some(&here), Some(to)) = (world.get::<fray_core::grid::Cell>(me), order.cell) else {
        return Vec::new();
    };
    let threats = super::turn::threatening(world, me, here);
    if threats.is_empty() || super::validate(world, me, order).is_err() {
        return Vec::new();
    }
    let flow = world.resource::<Flow>();
    let names: Vec<&str> = threats.iter().map(|&t| flow.name(t)).collect();
    let mut warning = format!(
        "moving out of a hex {} threatens draws an attack of opportunity (002 §Moving Out)",
        names.join(" and ")
    );
    let step = fray_core::decision::Order::new(order.actor.clone(), "step").cell(to);
    if super::validate(world, me, &step).is_ok() {
        warning.push_str(&format!(
            "; the 1-hex step to {to} never provokes (002 §1-Hex Step)"
        ));
    }
    vec![warning]
}

#[cfg(test)]
mod tests {
    use super::chance_3d6_at_least;

    #[test]
    fn three_dice_odds() {
        assert_eq!(chance_3d6_at_least(3), 1.0);
        assert_eq!(chance_3d6_at_least(18), 1.0 / 216.0);
        assert_eq!(chance_3d6_at_least(11), 0.5);
        assert_eq!(chance_3d6_at_least(19), 0.0);
        assert_eq!(chance_3d6_at_least(10), 135.0 / 216.0);
        assert_eq!(chance_3d6_at_least(4), 215.0 / 216.0);
        assert_eq!(chance_3d6_at_least(-5), 1.0);
    }
}
