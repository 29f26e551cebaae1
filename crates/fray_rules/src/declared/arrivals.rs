//! 004 §Step 2: combatants who enter an ongoing combat.

use super::declare::publish_declaration;
use super::start::{initiative_sentence, roll_base_initiative};
use super::*;
use fray_core::log::EventKind;

/// The arrival due before `count` resolves in this round, if any.
pub(crate) fn next_arrival(world: &World, before: Option<i32>) -> Option<usize> {
    let flow = world.resource::<Flow>();
    flow.arrivals
        .iter()
        .position(|a| a.round == flow.round && before.is_none_or(|count| a.after < count))
}

/// 004 §Step 2: a newcomer rolls initiative at once and, if not surprised,
/// declares; if its count has passed it acts next round at −12 as well.
pub(crate) fn bring_in_arrival(world: &mut World, index: usize) {
    let arrival = world.resource_mut::<Flow>().arrivals.remove(index);
    let data = world.resource::<Data>().0.clone();
    let scenario = world.resource::<ScenarioSource>().0.clone();
    let listing = world.resource::<Flow>().roster.len() as u32;
    let spec = &arrival.combatant;
    let mut e = fray_core::model::spawn_combatant(
        world,
        fray_core::model::combatant(&scenario, spec, listing),
    );
    if super::equip(&data, &scenario, spec, &mut e).is_err() {
        return; // checked when the scenario was loaded
    }
    let e = e.id();
    world
        .resource_mut::<Flow>()
        .roster
        .push((e, spec.name.clone()));
    world.resource_mut::<BattleLog>().time = format!("after initiative {}", arrival.after);
    world.resource_mut::<Flow>().count = Some(arrival.after);
    let agility = world.get::<Stats>(e).map_or(0, |s| s.agility_mod);
    let roll = {
        let mut dice = world.resource_mut::<Dice>();
        roll_base_initiative(&mut dice, &data, &spec.name, agility)
    };
    let (base, roll) = roll;
    world.entity_mut(e).insert(BaseInitiative(base));
    let (at, rule, moved) = match free_cell_near(world, e, spec.at) {
        Some(c) => (
            c,
            "004 §Step 2 · ruling arrival_displaced",
            format!(" ({} is taken)", spec.at),
        ),
        None => (spec.at, "004 §Step 2", String::new()),
    };
    world.entity_mut(e).insert(at);
    world.resource_mut::<BattleLog>().push(
        Event::new(
            EventKind::Arrive,
            rule,
            format!(
                "{} enters the combat at {at}{moved} while the round is on initiative {}.",
                spec.name, arrival.after
            ),
        )
        .actor(&spec.name),
    );
    world.resource_mut::<BattleLog>().push(
        Event::new(
            EventKind::Initiative,
            "004 §Step 2",
            initiative_sentence(&spec.name, &roll, agility, base),
        )
        .actor(&spec.name)
        .roll(roll),
    );
    if spec.surprised {
        world.resource_mut::<BattleLog>().push(
            Event::new(
                EventKind::Surprised,
                "004 §Step 1",
                format!("{} is surprised and does not declare.", spec.name),
            )
            .actor(&spec.name),
        );
        return;
    }
    world.resource_mut::<Flow>().stage = Stage::Arriving(e);
    publish_declaration(world, e, false);
}

/// What the resolution of an arrival's declaration does (004 §Step 2): join
/// this round's order if its count is still to come, or carry the action to
/// next round at −12.
pub(crate) fn place_arrival(world: &mut World, e: Entity) {
    let Some(declared) = super::declared(world, e).cloned() else {
        return;
    };
    let data = world.resource::<Data>().0.clone();
    let count = world.resource::<Flow>().count.unwrap_or(i32::MIN);
    let name = world.resource::<Flow>().name(e).to_string();
    if declared.initiative <= count {
        let late = declared.initiative + data.numbers.late_arrival_modifier;
        world.resource_mut::<BattleLog>().push(
            Event::new(
                EventKind::Late,
                "004 §Step 2",
                format!(
                    "{name}'s initiative {} has already passed (the round is on {count}): it acts next round at {} − 12 = {late}, as well as at its own count.",
                    declared.initiative, declared.initiative
                ),
            )
            .actor(&name),
        );
        // Its full defense, if that is the action, is taken next round, and
        // guards it then, not in the round it missed (004 §Step 3).
        if let Some(mut rs) = world.get_mut::<super::RoundState>(e) {
            rs.full_defense = false;
        }
        world.entity_mut(e).insert(LateAction {
            action: declared.action,
            initiative: late,
            fell: false,
        });
        super::declare(world, e, None);
    } else {
        let listing = world.get::<Combatant>(e).map_or(u32::MAX, |c| c.listing);
        let slot = Slot {
            actor: e,
            initiative: declared.initiative,
            action: declared.action,
            late: false,
        };
        let mut listings = Vec::new();
        for s in &world.resource::<Flow>().queue {
            listings.push(world.get::<Combatant>(s.actor).map_or(0, |c| c.listing));
        }
        let mut flow = world.resource_mut::<Flow>();
        let at = flow
            .queue
            .iter()
            .zip(&listings)
            .position(|(s, l)| (s.initiative, *l) > (slot.initiative, listing))
            .unwrap_or(flow.queue.len());
        flow.queue.insert(at, slot);
        world.resource_mut::<BattleLog>().push(
            Event::new(
                EventKind::Join,
                "004 §Step 2",
                format!(
                    "{name} will act this round at initiative {}.",
                    declared.initiative
                ),
            )
            .actor(&name),
        );
    }
}

/// Ruling `arrival_displaced`: when someone stands where a newcomer was to
/// enter, it enters at the nearest free cell (the first in the grid's order
/// at that distance). `None` when its own cell is free.
fn free_cell_near(world: &World, e: Entity, at: Cell) -> Option<Cell> {
    let taken = fray_core::model::taken_cells(world, e);
    if !taken.contains(&at) {
        return None;
    }
    let grid = world.resource::<Grid>();
    let reach = grid.width().max(grid.height());
    (1..=reach).find_map(|r| {
        grid.within(at, r)
            .into_iter()
            .find(|&c| grid.distance(c, at) == r && !grid.is_obstacle(c) && !taken.contains(&c))
    })
}
