//! 001 §3: initiative — a d6 per side, each side acting in the segment the
//! other side's die names — and the round's schedule: missile weapons in
//! hand (ruling `missile_initiative`), held actions (ruling `held_action`)
//! and second attack routines (ruling `second_routine`).

use bevy_ecs::prelude::*;
use fray_core::dice::Dice;
use fray_core::log::{BattleLog, Event, EventKind, if_kept, record};
use fray_core::model::{Side, Sides};

use super::{Action, Data, Declared, Flow, Routine, Slot, Stage, Stats, able, roster};

/// 001 §3 Missile initiative · ruling `missile_initiative`: the segment a
/// combatant acts in: its side's, moved earlier by its missile attack bonus
/// when its declared action shoots, within the round's segments.
pub fn personal_segment(side_segment: u32, shoots: bool, missile_bonus: i32, last: u32) -> u32 {
    if !shoots {
        return side_segment;
    }
    (side_segment as i32 - missile_bonus).clamp(1, last as i32) as u32
}

/// Ruling `second_routine`: the segment of a second attack routine: after
/// the other side's segment, and never before the first routine.
pub fn second_routine_segment(own: u32, other_side: u32, last: u32) -> u32 {
    own.max(other_side + 1).min(last)
}

/// Whether `action` shoots a missile weapon, at once or held (ruling
/// `held_action`: a held shot is still "a missile weapon in hand", 001 §3).
fn shoots(world: &World, action: &Action) -> bool {
    let data = &world.resource::<Data>().0;
    matches!(action, Action::Attack { weapon, .. } | Action::Hold { weapon, .. }
        if data.weapons.get(weapon).is_some_and(|w| w.missile()))
}

/// 001 §3: each side rolls a d6; the roll names the segment the other side
/// acts in; then the round's schedule.
pub fn roll_initiative(world: &mut World) {
    world.resource_mut::<BattleLog>().time = "initiative".into();
    let sides = world.resource::<Sides>().clone();
    let die = world.resource::<Data>().0.numbers.initiative_die;
    let mut rolls = [0u32; 2];
    let mut dice_rolled = Vec::new();
    for (i, side) in sides.0.iter().take(2).enumerate() {
        let roll = world
            .resource_mut::<Dice>()
            .roll_for(die, || format!("the {} initiative", possessive(&side.name)));
        rolls[i] = roll.total as u32;
        dice_rolled.push(roll);
    }
    let (a, b) = (
        sides.name(Side(0)).to_string(),
        sides.name(Side(1)).to_string(),
    );
    record(world, || {
        let text = if rolls[0] == rolls[1] {
            format!(
                "Initiative: the {a} and the {b} both roll {}: both act in segment {}, simultaneously (001 §3 Ties).",
                rolls[0], rolls[0]
            )
        } else {
            format!(
                "Initiative: the {a} roll {}, the {b} roll {}. The {a} act in segment {} (the {} roll), the {b} in segment {} (the {} roll).",
                rolls[0],
                rolls[1],
                rolls[1],
                possessive(&b),
                rolls[0],
                possessive(&a)
            )
        };
        Event::new(EventKind::Initiative, "001 §3", text).rolls(dice_rolled)
    });
    world.resource_mut::<Flow>().initiative = Some(rolls);
    schedule(world, rolls);
}

/// Ruling `held_action`: `e` holds its action from `segment` to `until`.
fn note_hold(world: &mut World, e: Entity, segment: u32, until: u32) {
    let who = fray_core::model::name(world, e);
    record(world, || {
        Event::new(
            EventKind::Hold,
            "ruling held_action",
            format!("{who} holds its action from segment {segment} to segment {until}."),
        )
        .actor(&who)
    });
}

/// 001 §3: every declared action in its segment, in listing order; a second
/// routine after the other side's segment; held actions later.
fn schedule(world: &mut World, rolls: [u32; 2]) {
    let sides = world.resource::<Sides>().clone();
    let mut slots = Vec::new();
    for e in roster(world) {
        let Some(Declared(action)) = world.get::<Declared>(e).cloned() else {
            continue;
        };
        if !able(world, e) || matches!(action, Action::Wait | Action::Casting) {
            continue;
        }
        let side = world.get::<Side>(e).map_or(0, |s| s.0);
        let other = 1 - side.min(1);
        let side_segment = rolls[other];
        let mut why = if_kept(world, |_| {
            format!("the {} rolled {side_segment}", sides.name(Side(other)))
        });
        let stats = world.get::<Stats>(e).cloned();
        let bonus = stats.as_ref().map_or(0, |s| s.missile_bonus);
        let last = world.resource::<Flow>().segments;
        let mut segment = personal_segment(side_segment, shoots(world, &action), bonus, last);
        if segment != side_segment {
            note_missile(world, e, side_segment, segment, bonus);
            why = if_kept(world, |_| format!("{why}, less the missile attack bonus"));
        }
        let own = segment;
        // A spell held begins casting in the segment held to.
        let action = match action {
            Action::HoldCast {
                until,
                spell,
                target,
            } if until > segment => {
                note_hold(world, e, segment, until);
                segment = until;
                Action::Cast { spell, target }
            }
            Action::HoldCast { spell, target, .. } => Action::Cast { spell, target },
            other => other,
        };
        if let Action::Hold { until, .. } = action
            && until > segment
        {
            note_hold(world, e, segment, until);
            segment = until;
        }
        if segment != own {
            why = if_kept(world, |_| format!("held from segment {own}"));
        }
        // A held action attacks too (ruling `held_action`): holding costs no
        // routine.
        let attacks = matches!(
            action,
            Action::Attack { .. }
                | Action::Charge { .. }
                | Action::Hold { .. }
                | Action::SetSpear { .. }
        );
        if attacks && stats.is_some_and(|s| s.routines > 1) {
            let second = second_routine_segment(segment, rolls[side], last);
            slots.push(Slot {
                segment: second,
                actor: e,
                action: action.clone(),
                routine: Routine::Second,
                why: if_kept(world, |_| {
                    format!(
                        "second routine, after the {} segment {}",
                        possessive(sides.name(Side(other))),
                        rolls[side]
                    )
                }),
            });
        }
        slots.push(Slot {
            segment,
            actor: e,
            action,
            routine: Routine::First,
            why,
        });
    }
    let listing = |w: &World, e: Entity| {
        w.get::<fray_core::model::Combatant>(e)
            .map_or(u32::MAX, |c| c.listing)
    };
    // Ruling `second_routine`: a second routine in the segment of its
    // first comes straight after it.
    slots.sort_by_key(|s| {
        (
            s.segment,
            listing(world, s.actor),
            s.routine == Routine::Second,
        )
    });
    let mut flow = world.resource_mut::<Flow>();
    flow.slots = slots;
    flow.stage = Stage::Resolving;
}

/// 001 §3 Missile initiative: say how a missile weapon in hand moved a combatant.
fn note_missile(world: &mut World, e: Entity, from: u32, to: u32, bonus: i32) {
    let who = fray_core::model::name(world, e);
    record(world, || {
        Event::new(
            EventKind::Initiative,
            "001 §3 Missile initiative",
            format!(
                "{who} has a missile weapon in hand: its missile attack bonus {bonus:+} moves it from segment {from} to segment {to} (ruling missile_initiative)."
            ),
        )
        .actor(&who)
    });
}

/// "the Orcs' roll", "the Party's roll".
fn possessive(name: &str) -> String {
    if name.ends_with('s') {
        format!("{name}'")
    } else {
        format!("{name}'s")
    }
}
