//! The start of each round: 003 §III A readied missiles, then 003 §II A–B
//! initiative (or, in the surprise round, 003 §I D: the unsurprised by their
//! surprise rolls).

use bevy_ecs::prelude::*;
use fray_core::decision::{self, Question};
use fray_core::dice::Dice;
use fray_core::log::{BattleLog, Event, EventKind, if_kept, record};
use fray_core::model::{Side, Sides};

use super::orders::{self, Plan};
use super::{
    Act, Data, Flow, InitiativeOption, Monster, Readied, RollNote, RoundState, Stage, Stats,
    Surprised, Withdrawal, combat, name, roster, up,
};

/// Set the log's time mark.
pub(super) fn stamp(world: &mut World, time: impl Into<String>) {
    let round = world.resource::<Flow>().round;
    let mut log = world.resource_mut::<BattleLog>();
    log.round = round;
    log.time = time.into();
}

/// A new round: what lasts a round ends; then the readied missiles are
/// asked, before initiative or, in the surprise round, before the
/// unsurprised act ("If not surprised you act as in a normal round", 003
/// §I D).
pub fn begin_round(world: &mut World) {
    let round = {
        let mut flow = world.resource_mut::<Flow>();
        flow.round += 1;
        flow.queue.clear();
        flow.initiative.clear();
        flow.rolls.clear();
        flow.count = None;
        flow.round
    };
    stamp(world, "start of round");
    record(world, || {
        Event::new(
            EventKind::Round,
            "003 §II",
            format!("Round {round} begins."),
        )
    });
    fray_core::casting::new_round(world);
    for e in roster(world) {
        if let Some(mut rs) = world.get_mut::<RoundState>(e) {
            // A parry lasts until the parrier's next turn (ruling parry),
            // and so does a ban on pursuit taken after its turn (ruling
            // no_pursuit).
            // One disengaging is let go until its next turn (ruling
            // disengage).
            let (parrying, no_pursuit) = (rs.parrying, rs.no_pursuit_next);
            let disengaging = rs.disengaging;
            *rs = RoundState::default();
            rs.parrying = parrying;
            rs.no_pursuit = no_pursuit;
            rs.disengaging = disengaging;
        }
    }
    let mut flow = world.resource_mut::<Flow>();
    flow.surprise_round &= round == 1;
    flow.stage = Stage::Readied;
}

/// 003 §I D: only the unsurprised act, highest surprise roll first.
fn surprise_round(world: &mut World) {
    stamp(world, "surprise round");
    let rolls = world.resource::<Flow>().surprise_rolls.clone();
    let mut queue = Vec::new();
    for e in roster(world) {
        if world.get::<Surprised>(e).is_some() || !up(world, e) {
            continue;
        }
        let roll = rolls.iter().find(|(x, _)| *x == e).map_or(0, |r| r.1);
        queue.push((-roll, Act::Turn(e)));
    }
    queue.sort_by_key(|(c, _)| *c);
    let mut flow = world.resource_mut::<Flow>();
    flow.queue = queue;
    flow.stage = Stage::Counts;
    record(world, || {
        Event::new(
            EventKind::Initiative,
            "003 §I D",
            "The surprise round: the unsurprised act, highest surprise roll first.",
        )
    });
}

/// 003 §III A: each character with a missile ready and a target in sight
/// fires now, before initiative, or holds it to its turn at the latest.
pub fn readied_missiles(world: &mut World) {
    let surprise = world.resource::<Flow>().surprise_round;
    stamp(
        world,
        if surprise {
            "before the surprise round"
        } else {
            "before initiative"
        },
    );
    let asking = world.resource::<Flow>().asking.clone();
    if asking.is_empty() {
        for e in roster(world) {
            // The surprised do not act: their missile stays ready (ruling
            // surprise_readied).
            let surprised = surprise && world.get::<Surprised>(e).is_some();
            if world.get::<Readied>(e).is_none() || surprised {
                continue;
            }
            if !(up(world, e) && orders::has_shot(world, e)) {
                wasted(world, e);
                continue;
            }
            let id = decision::ask(
                world,
                Question {
                    actor: e,
                    prompt: decision::prompt(world, e, |w| {
                        format!("{}: fire your readied missile now, or hold it", name(w, e))
                    }),
                    rule: "003 §III A".into(),
                    secret: false,
                    move_order: None,
                    choices: orders::readied_choices,
                },
            );
            world.resource_mut::<Flow>().asking.push((id, e));
        }
    } else {
        take_readied(world);
    }
    if world.resource::<Flow>().asking.is_empty() {
        if surprise {
            surprise_round(world);
        } else {
            roll_initiative(world);
            world.resource_mut::<Flow>().stage = Stage::Counts;
        }
    }
}

/// 003 §Effects of Readied Actions: "failure to USE that advantage
/// immediately means that it is wasted": a readied missile with no target
/// in sight and range as the round begins is no longer ready.
fn wasted(world: &mut World, e: Entity) {
    world.entity_mut(e).remove::<Readied>();
    if !up(world, e) {
        return;
    }
    let who = name(world, e);
    record(world, || {
        Event::new(
            EventKind::Readied,
            "003 §Effects of Readied Actions",
            format!("{who} has no target in sight and range for its readied missile: the advantage is wasted."),
        )
        .actor(&who)
    });
}

/// The answers about readied missiles: a shot now, or held. The shots go
/// once everyone asked has answered, at one instant before initiative,
/// their hits landing together (ruling `readied_missile`): no order of
/// answering decides who shoots, and one felled by a shot still looses its
/// own.
fn take_readied(world: &mut World) {
    let taken = decision::take_answers(world, "003 §III A", |w, d, o| {
        orders::validate_readied(w, d.actor, o)
    });
    for (d, plan) in taken {
        let mut flow = world.resource_mut::<Flow>();
        flow.asking.retain(|(id, _)| *id != d.id);
        flow.readied_answers.push(super::Planned {
            actor: d.actor,
            plan,
        });
    }
    if !world.resource::<Flow>().asking.is_empty() {
        return;
    }
    let mut answers = std::mem::take(&mut world.resource_mut::<Flow>().readied_answers);
    let order = roster(world);
    answers.sort_by_key(|p| order.iter().position(|&e| e == p.actor));
    world.resource_mut::<Flow>().held = Some(Vec::new());
    for p in answers {
        world.entity_mut(p.actor).remove::<Readied>();
        match p.plan {
            Plan::Fire { target, .. } => combat::fire(world, p.actor, target, "003 §III A"),
            _ => hold_readied(world, p.actor),
        }
    }
    let held = world.resource_mut::<Flow>().held.take().unwrap_or_default();
    for hit in held {
        combat::apply(world, &hit);
    }
}

/// A readied missile held for the shooter's turn (003 §III A).
fn hold_readied(world: &mut World, e: Entity) {
    if let Some(mut rs) = world.get_mut::<RoundState>(e) {
        rs.holding_readied = true;
    }
    let who = name(world, e);
    record(world, || {
        Event::new(
            EventKind::Readied,
            "003 §III A",
            format!(
                "{who} holds the readied missile: it must fire by its turn or the action is lost."
            ),
        )
        .actor(&who)
    });
}

/// Who rolls one initiative die together, and whether each adds its own
/// Dexterity (003 §II B) or the group's (ruling `group_dexterity`).
fn initiative_rollers(world: &World) -> Vec<(String, Vec<Entity>, bool)> {
    let option = world.resource::<Flow>().options.initiative;
    let sides = world.resource::<Sides>().0.clone();
    let mut out: Vec<(String, Vec<Entity>, bool)> = Vec::new();
    for e in roster(world) {
        if !up(world, e) {
            continue;
        }
        let side = world.get::<Side>(e).map_or(0, |s| s.0);
        let alone = match option {
            InitiativeOption::IndividualRolls => true,
            InitiativeOption::PcsIndividually => world.get::<Monster>(e).is_none(),
            _ => false,
        };
        let own = option == InitiativeOption::IndividualAdjustments;
        if alone {
            out.push((name(world, e), vec![e], true));
        } else if let Some(r) = out.iter_mut().find(|r| r.0 == sides[side].name) {
            r.1.push(e);
        } else {
            out.push((sides[side].name.clone(), vec![e], own));
        }
    }
    out
}

/// 003 §II A: a d12 per side modified by Dexterity (or each character's
/// own, §II B), lowest first; then the order of play.
fn roll_initiative(world: &mut World) {
    stamp(world, "initiative");
    let die = world.resource::<Data>().0.numbers.initiative_die;
    let mut queue = Vec::new();
    for (who, members, own) in initiative_rollers(world) {
        let roll = world
            .resource_mut::<Dice>()
            .roll_for(die, || format!("{who}'s initiative"));
        let dex = |w: &World, e: Entity| w.get::<Stats>(e).map_or(0, |s| s.dex_initiative);
        let group = members.iter().map(|&e| dex(world, e)).min().unwrap_or(0);
        let (rule, how) = if own {
            ("003 §II B", "each adjusted by its own Dexterity")
        } else {
            (
                "ruling group_dexterity",
                "adjusted by the slowest member's Dexterity",
            )
        };
        let result = roll.total - group;
        let several = members.len() > 1;
        record(world, || {
            let text = if own && several {
                format!("{who} rolls initiative {} ({how}).", roll.total)
            } else {
                format!(
                    "{who} rolls initiative {} − {group} (Dexterity) = {result}{}.",
                    roll.total,
                    if several {
                        format!(", {how}")
                    } else {
                        String::new()
                    }
                )
            };
            Event::new(EventKind::Initiative, rule, text).roll(roll.clone())
        });
        for &e in &members {
            let count = roll.total - if own { dex(world, e) } else { group };
            world.resource_mut::<Flow>().initiative.push((e, count));
            let withdrawal = world.get::<Withdrawal>(e).copied();
            if matches!(withdrawal, Some(Withdrawal::Disengage | Withdrawal::Flee))
                && let Some(mut rs) = world.get_mut::<RoundState>(e)
            {
                rs.give_up_combat();
                rs.disengaging = withdrawal == Some(Withdrawal::Disengage);
            }
            let act = if withdrawal == Some(Withdrawal::Disengage) {
                (super::DISENGAGE_COUNT, Act::Disengage(e))
            } else {
                (count, Act::Turn(e))
            };
            queue.push(act);
        }
        world.resource_mut::<Flow>().rolls.push(RollNote {
            who,
            die: roll.total,
            result: if own { roll.total } else { result },
        });
    }
    queue.sort_by_key(|(c, _)| *c);
    let words = if_kept(world, |w| order_words(w, &queue));
    world.resource_mut::<Flow>().queue = queue;
    record(world, || {
        Event::new(
            EventKind::Initiative,
            "003 §II A",
            format!("Order of play, lowest first (ties act together): {words}."),
        )
    });
}

/// "2: Gorm, Harl; 5: Brienne".
fn order_words(world: &World, queue: &[(i32, Act)]) -> String {
    let mut parts: Vec<(i32, Vec<String>)> = Vec::new();
    for (c, act) in queue {
        let n = name(world, act.actor());
        match parts.last_mut() {
            Some((last, names)) if last == c => names.push(n),
            _ => parts.push((*c, vec![n])),
        }
    }
    parts
        .into_iter()
        .map(|(c, names)| {
            let mark = if c >= super::DISENGAGE_COUNT {
                "last".to_string()
            } else {
                c.to_string()
            };
            format!("{mark}: {}", names.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}
