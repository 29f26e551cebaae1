//! 004 §Step 1 and §Step 2: surprise and base initiative, once per combat,
//! and the start of each round.

use super::*;
use fray_core::log::EventKind;

/// Roll a base initiative: d12 minus the Agility modifier (004 §Step 2).
pub(super) fn roll_base_initiative(
    dice: &mut Dice,
    data: &DeclaredData,
    name: &str,
    agility_mod: i32,
) -> (i32, Roll) {
    let roll = dice.roll_for(data.numbers.initiative_die, || {
        format!("{name}'s base initiative")
    });
    (roll.total - agility_mod, roll)
}

pub(super) fn initiative_sentence(name: &str, roll: &Roll, agility_mod: i32, base: i32) -> String {
    let sign = if agility_mod >= 0 { "−" } else { "+" };
    format!(
        "{name} rolls base initiative {} {sign} {} (Agility) = {base}.",
        roll.total,
        agility_mod.abs()
    )
}

/// 004 §Step 1 (surprise) and §Step 2 (base initiative, once per combat;
/// shared rolls for a group of identical monsters).
pub fn start_of_combat(
    mut flow: ResMut<Flow>,
    mut dice: ResMut<Dice>,
    mut log: ResMut<BattleLog>,
    data: Res<Data>,
    mut commands: Commands,
    q: Query<(
        Entity,
        &Combatant,
        &Stats,
        Option<&InitiativeGroup>,
        Has<Surprised>,
    )>,
) {
    let mut all: Vec<_> = q.iter().collect();
    all.sort_by_key(|(_, c, ..)| c.listing);
    log.add(|| {
        Event::new(
            EventKind::Combat,
            "004 §Combat Procedure",
            format!("Combat begins: {} combatants.", all.len()),
        )
    });
    for (_, c, _, _, surprised) in &all {
        if *surprised {
            log.add(|| {
                Event::new(
                    EventKind::Surprise,
                    "004 §Step 1",
                    format!(
                        "{} is surprised: it rolls initiative but does not act in the first round.",
                        c.name
                    ),
                )
                .actor(&c.name)
            });
        }
    }
    let mut shared: Vec<(String, i32)> = Vec::new();
    for (e, c, stats, group, _) in all {
        if let Some(g) = group
            && let Some((_, roll_total)) = shared.iter().find(|(name, _)| *name == g.0)
        {
            let base = roll_total - stats.agility_mod;
            commands.entity(e).insert(BaseInitiative(base));
            log.add(||
                Event::new(
                    EventKind::Initiative,
                    "004 §Step 2",
                    format!(
                        "{} shares group {:?}'s initiative roll of {roll_total}: base initiative {base}.",
                        c.name, g.0
                    ),
                )
                .actor(&c.name),
            );
            continue;
        }
        let (base, roll) = roll_base_initiative(&mut dice, &data.0, &c.name, stats.agility_mod);
        if let Some(g) = group {
            shared.push((g.0.clone(), roll.total));
        }
        commands.entity(e).insert(BaseInitiative(base));
        log.add(|| {
            Event::new(
                EventKind::Initiative,
                "004 §Step 2",
                initiative_sentence(&c.name, &roll, stats.agility_mod, base),
            )
            .actor(&c.name)
            .roll(roll)
        });
    }
    flow.stage = Stage::BeginRound;
}

/// A creature's state at the start of a round: whether it acted, and whom
/// it attacked, in the round just ended (its declaration was revealed).
fn fresh_round(rs: &RoundState, last: Option<Action>) -> RoundState {
    RoundState {
        acted_last_round: rs.acted,
        attacked_last_round: match last {
            Some(Action::Attack { target, .. } | Action::Throw { target, .. }) => Some(target),
            _ => None,
        },
        ..RoundState::default()
    }
}

/// A new round: reset what lasts a round and line up the declarers
/// (004 §Step 3: the order of declaring is the scenario's choice).
pub fn begin_round(
    mut flow: ResMut<Flow>,
    mut log: ResMut<BattleLog>,
    mut q: Query<(
        Entity,
        &Combatant,
        &Stats,
        &Side,
        &Health,
        &Hurts,
        &mut RoundState,
        Has<Surprised>,
        Has<Routed>,
        Has<Fled>,
        &mut Declaration,
    )>,
) {
    flow.round += 1;
    log.round = flow.round;
    log.time = "declaration".into();
    flow.queue.clear();
    flow.count = None;
    log.add(|| {
        Event::new(
            EventKind::Round,
            "004 §Step 2",
            format!("Round {} begins.", flow.round),
        )
    });
    let mut declarers: Vec<(u32, i32, usize, Entity)> = Vec::new();
    // In listing order, so the log reads the same however the world stores them.
    let roster: Vec<Entity> = flow.roster.iter().map(|(e, _)| *e).collect();
    for e in roster {
        let Ok((
            e,
            c,
            stats,
            side,
            health,
            hurts,
            mut rs,
            surprised,
            routed,
            fled,
            mut declaration,
        )) = q.get_mut(e)
        else {
            continue;
        };
        *rs = fresh_round(&rs, declaration.0.take().map(|d| d.action));
        if fled || *health == Health::Dead || hurts.paralysed {
            continue;
        }
        if surprised {
            log.add(|| {
                Event::new(
                    EventKind::Surprised,
                    "004 §Step 1",
                    format!("{} is surprised and does not declare this round.", c.name),
                )
                .actor(&c.name)
            });
            continue;
        }
        if routed {
            continue;
        }
        declarers.push((c.listing, stats.agility_mod, side.0, e));
    }
    declarers.sort_by_key(|d| d.0);
    flow.to_declare = match flow.declaration {
        DeclarationOrder::Simultaneous => declarers.iter().map(|d| d.3).collect(),
        DeclarationOrder::AgilityDescending => {
            declarers.sort_by_key(|d| (-d.1, d.0));
            declarers.iter().map(|d| d.3).collect()
        }
        DeclarationOrder::RoundRobin => {
            let mut by_side: Vec<Vec<Entity>> = Vec::new();
            for d in &declarers {
                if by_side.len() <= d.2 {
                    by_side.resize(d.2 + 1, Vec::new());
                }
                by_side[d.2].push(d.3);
            }
            let longest = by_side.iter().map(Vec::len).max().unwrap_or(0);
            (0..longest)
                .flat_map(|i| by_side.iter().filter_map(move |s| s.get(i).copied()))
                .collect()
        }
    };
    flow.hidden.clear();
    flow.stage = Stage::Declaring;
}
