//! 001 §1: surprise, once per combat, and the surprise segments in which
//! only the unsurprised act.

use bevy_ecs::prelude::*;
use fray_core::dice::Dice;
use fray_core::log::{Event, EventKind, record};
use fray_core::model::{Side, Sides};

use super::{Alerted, Data, Flow, Period, Stage, Stats, SurpriseSegments, able, roster};

/// 001 §1 Surprise bonus: the segments a combatant is surprised for, from
/// its side's: the bonus takes segments off (a penalty adds them), never
/// below none, and never where the side is not surprised.
pub fn personal_surprise(side_segments: u32, bonus: i32, never: bool) -> u32 {
    if never || side_segments == 0 {
        return 0;
    }
    (side_segments as i32 - bonus).max(0) as u32
}

/// 001 §1 Surprises on 1-3: a side is surprised when its d6 is at most the
/// best `surprises_on` among its enemies, for as many segments as it rolled.
pub fn side_surprise(roll: u32, surprises_on: u32) -> u32 {
    if roll <= surprises_on { roll } else { 0 }
}

/// 001 §1: the combat begins; each side not alerted rolls for surprise, and
/// each combatant's own surprise follows from its side's and its bonus.
pub fn start_of_combat(world: &mut World) {
    let everyone = roster(world);
    record(world, || {
        Event::new(
            EventKind::Combat,
            "001 §Combat",
            format!("Combat begins: {} combatants.", everyone.len()),
        )
    });
    let sides = world.resource::<Sides>().clone();
    let mut side_segments = Vec::new();
    for (i, side) in sides.0.iter().enumerate() {
        side_segments.push(roll_side(world, i, &side.name));
    }
    let mut longest = 0;
    for e in everyone {
        let side = world.get::<Side>(e).map_or(0, |s| s.0);
        let Some(stats) = world.get::<Stats>(e).cloned() else {
            continue;
        };
        let of_side = side_segments[side];
        let mine = personal_surprise(of_side, stats.surprise_bonus, stats.never_surprised);
        world.entity_mut(e).insert(SurpriseSegments(mine));
        longest = longest.max(mine);
        personal_note(world, e, of_side, mine, &stats);
    }
    if longest == 0 {
        record(world, || {
            Event::new(
                EventKind::Surprise,
                "001 §1",
                "Nobody is surprised: the first round begins.",
            )
        });
    }
    let mut flow = world.resource_mut::<Flow>();
    flow.surprise_segments = longest;
    flow.period = Period::Surprise;
    flow.segment = 0;
    next_surprise_segment(world);
}

/// 001 §1: one side's surprise roll (none for an alerted side, ruling
/// `alerted`); the segments it is surprised for.
fn roll_side(world: &mut World, side: usize, name: &str) -> u32 {
    if world.resource::<Alerted>().0.get(side) == Some(&true) {
        record(world, || {
            Event::new(
                EventKind::Surprise,
                "ruling alerted",
                format!(
                    "The {name} are alerted: they make no surprise roll and are not surprised."
                ),
            )
        });
        return 0;
    }
    let threshold = enemy_threshold(world, side);
    let die = world.resource::<Data>().0.numbers.surprise_die;
    let roll = world
        .resource_mut::<Dice>()
        .roll_for(die, || format!("the {name} surprise roll"));
    let segments = side_surprise(roll.total as u32, threshold);
    let rule = match (threshold > 2, segments > 2) {
        (true, true) => "001 §1 Surprises on 1-3 · ruling stealthy_side",
        (true, false) => "001 §1 · ruling stealthy_side",
        _ => "001 §1",
    };
    let against = if threshold == 2 {
        String::new()
    } else {
        format!(" (their enemies surprise on 1-{threshold}: the stealthiest serves its whole side)")
    };
    let text = match segments {
        0 => format!(
            "The {name} roll {} for surprise{against}: not surprised.",
            roll.total
        ),
        1 => format!("The {name} roll 1 for surprise{against}: surprised for one segment."),
        n => format!("The {name} roll {n} for surprise{against}: surprised for {n} segments."),
    };
    record(world, || {
        Event::new(EventKind::Surprise, rule, text).roll(roll)
    });
    segments
}

/// 001 §1 Surprises on 1-3: the best "surprises on" among the enemies of
/// `side` (ruling `stealthy_side`).
fn enemy_threshold(world: &World, side: usize) -> u32 {
    roster(world)
        .into_iter()
        .filter(|&e| world.get::<Side>(e).is_some_and(|s| s.0 != side) && able(world, e))
        .filter_map(|e| world.get::<Stats>(e).map(|s| s.surprises_on))
        .max()
        .unwrap_or(2)
}

/// 001 §1 Surprise bonus: say where a combatant's surprise differs from its side's.
fn personal_note(world: &mut World, e: bevy_ecs::entity::Entity, side: u32, mine: u32, s: &Stats) {
    if side == 0 || mine == side {
        return;
    }
    let who = fray_core::model::name(world, e);
    let (rule, text) = if s.never_surprised {
        ("001 §1", format!("{who} cannot be surprised."))
    } else {
        let words = match mine {
            0 => "is not surprised at all".to_string(),
            1 => "is surprised for one segment".to_string(),
            n => format!("is surprised for {n} segments"),
        };
        (
            "001 §1 Surprise bonus",
            format!(
                "{who}'s surprise bonus of {:+} changes the side's {}: {who} {words}.",
                s.surprise_bonus,
                fray_core::model::count_of(side, "segment")
            ),
        )
    };
    record(world, || {
        Event::new(EventKind::Surprised, rule, text).actor(&who)
    });
}

/// Who may act in surprise segment `k`: those surprised for fewer segments
/// (001 §1 Surprise segments), and still able.
pub fn acting_in(world: &World, k: u32) -> Vec<bevy_ecs::entity::Entity> {
    roster(world)
        .into_iter()
        .filter(|&e| able(world, e))
        .filter(|&e| world.get::<SurpriseSegments>(e).is_some_and(|s| s.0 < k))
        .collect()
}

/// 001 §Note about spells: a spell whose casting is complete in surprise
/// segment `k`, in which nobody acts, goes off all the same. True if that
/// ended the battle.
fn spells_in_a_quiet_segment(world: &mut World, k: u32) -> bool {
    let due = roster(world).into_iter().any(|e| {
        world
            .get::<fray_core::casting::Casting>(e)
            .is_some_and(|c| c.completes == k)
    });
    if !due {
        return false;
    }
    world.resource_mut::<fray_core::log::BattleLog>().time = format!("surprise segment {k}");
    super::combat::spells_going_off(world, k);
    super::resolve::check_end(world)
}

/// 001 §1 Surprise segments: go on to the next surprise segment in which
/// anyone can act, asking for its actions; or, once they are over, to the
/// first round.
pub fn next_surprise_segment(world: &mut World) {
    let (from, last) = {
        let flow = world.resource::<Flow>();
        (flow.segment + 1, flow.surprise_segments)
    };
    for e in roster(world) {
        world.entity_mut(e).remove::<super::Declared>();
    }
    for k in from..=last {
        let acting = acting_in(world, k);
        // Those casting already go on casting: the rest choose an action.
        let (casting, free): (Vec<_>, Vec<_>) = acting
            .iter()
            .copied()
            .partition(|&e| world.get::<fray_core::casting::Casting>(e).is_some());
        if acting.is_empty() {
            if spells_in_a_quiet_segment(world, k) {
                return;
            }
            continue;
        }
        let names = |of: &[bevy_ecs::entity::Entity]| {
            of.iter()
                .map(|&e| fray_core::model::name(world, e))
                .collect::<Vec<String>>()
                .join(", ")
        };
        let mut words = Vec::new();
        if !free.is_empty() {
            words.push(format!(
                "{} may act, one action that fits in a segment",
                names(&free)
            ));
        }
        if !casting.is_empty() {
            let go = if casting.len() == 1 { "goes" } else { "go" };
            words.push(format!("{} {go} on casting", names(&casting)));
        }
        {
            let mut log = world.resource_mut::<fray_core::log::BattleLog>();
            log.time = format!("surprise segment {k}");
        }
        record(world, || {
            Event::new(
                EventKind::Phase,
                "001 §1 Surprise segments",
                format!("Surprise segment {k}: {}.", words.join("; ")),
            )
        });
        let mut flow = world.resource_mut::<Flow>();
        flow.segment = k - 1;
        flow.last = k;
        flow.to_declare = free;
        flow.hidden.clear();
        flow.stage = Stage::Declaring;
        return;
    }
    let mut flow = world.resource_mut::<Flow>();
    flow.segment = 0;
    flow.stage = Stage::BeginRound;
}
