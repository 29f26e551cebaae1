//! Orders and what they may do: 002 §Normal Phase and §Restricted Phase (the
//! action economy), §1-Hex Step, §Reach and Range, §Delay, §Ready, and the
//! answers to an attack of opportunity or an abort.

use bevy_ecs::prelude::*;
use fray_core::decision::{Choice, Order};
use fray_core::grid::{Cell, Grid, GridGeometry};
use fray_core::model::Combatant;
use fray_core::model::Rostered;

use super::data::ActionType;
use super::{
    Asking, Data, Flow, Kit, MoveHow, RecoveryStarted, Stats, Stunned, Trigger, Use, enemies, up,
};

/// An order the rules have checked and will carry out.
#[derive(Clone, Debug, PartialEq)]
pub enum Plan {
    /// Strike, haymaker or shoot.
    Attack {
        target: Entity,
        manoeuvre: String,
        weapon: String,
    },
    Dodge,
    Block,
    Move {
        path: Vec<Cell>,
        how: MoveHow,
        kind: ActionType,
    },
    Reload {
        weapon: usize,
    },
    Recover,
    StartRecovery,
    CompleteRecovery,
    Delay {
        before: Option<Entity>,
    },
    Ready {
        trigger: Trigger,
        weapon: String,
    },
    End,
    /// Take an attack of opportunity with this manoeuvre.
    Opportunity {
        manoeuvre: String,
        weapon: String,
    },
    /// Abort to Dodge or Block.
    Abort {
        block: bool,
    },
    /// Take the readied action (002 §Ready), with the 1-hex step to take
    /// to reach its target if one was named (002 §Ready Step).
    Readied {
        step: Option<Cell>,
    },
    /// Let the opportunity go, or take the attack without aborting.
    Pass,
}

impl Plan {
    /// Whether it is an action (not delay, the 1-hex step, or ending the turn).
    pub fn is_action(&self) -> bool {
        match self {
            Self::Move { kind, .. } => *kind != ActionType::NotAnAction,
            Self::Delay { .. } | Self::End | Self::Pass => false,
            _ => true,
        }
    }
}

/// Half of combat movement, rounded down but at least 1 for one who moves
/// at all (ruling `half_move`).
pub fn half_move(stats: &Stats) -> u32 {
    (stats.movement / 2).max(stats.movement.min(1))
}

/// "1 hex", "3 hexes".
fn hexes(n: u32) -> String {
    if n == 1 {
        "1 hex".into()
    } else {
        format!("{n} hexes")
    }
}

/// How far a move action goes: half movement, and a second after a first
/// no farther than combat movement allows both (ruling `half_move`).
pub fn move_action_hexes(stats: &Stats, used: &Use) -> u32 {
    let half = half_move(stats);
    if used.moved {
        half.min(stats.movement - half)
    } else {
        half
    }
}

/// Movement left this phase for a distance move, by the action economy.
pub fn movement_left(world: &World, me: Entity) -> u32 {
    let (Some(stats), Some(used)) = (world.get::<Stats>(me), world.get::<Use>(me)) else {
        return 0;
    };
    if used.stepped || used.full_phase {
        return 0;
    }
    let restricted = world.resource::<Flow>().restricted;
    match used.actions {
        0 if restricted => half_move(stats),
        0 => stats.movement,
        1 if !restricted => move_action_hexes(stats, used),
        _ => 0,
    }
}

/// Whether a move action fits what is left of the phase.
fn move_action_left(flow: &Flow, used: &Use) -> bool {
    let restricted = flow.restricted;
    !used.full_phase && used.actions < if restricted { 1 } else { 2 }
}

/// Whether an attack action fits: a normal phase allows one, with a move.
fn attack_action_left(flow: &Flow, used: &Use) -> bool {
    move_action_left(flow, used) && !used.attack
}

/// Whether a full-phase action fits: nothing else done, not restricted.
fn full_phase_left(flow: &Flow, used: &Use) -> bool {
    !flow.restricted && used.actions == 0 && !used.full_phase
}

/// Why `me` cannot take a 1-hex step now, if it cannot (002 §1-Hex Step,
/// §Step Timing, ruling `darkness`).
pub fn step_refusal(world: &World, me: Entity) -> Option<String> {
    let stats = world.get::<Stats>(me)?;
    let used = world.get::<Use>(me)?;
    let here = *world.get::<Cell>(me)?;
    if stats.movement <= 1 {
        return Some("a character with 1 hex of movement or less cannot take a 1-hex step".into());
    }
    if used.stepped {
        return Some("only one 1-hex step a phase".into());
    }
    if used.moved {
        return Some("no 1-hex step in a phase in which the character moves any distance".into());
    }
    if world.resource::<Flow>().darkness {
        return Some("no 1-hex step in darkness (ruling darkness)".into());
    }
    if world.resource::<Grid>().is_difficult(here) {
        return Some("no 1-hex step out of difficult terrain".into());
    }
    None
}

/// Cells where a character stands: nobody moves through or into them.
pub fn occupied(world: &World, except: Entity) -> fray_core::grid::CellSet {
    fray_core::model::taken_cells(world, except)
}

/// The way `me` takes to `to`, with its cost, around obstacles and
/// characters: the shortest, and of those the one that leaves the fewest
/// hexes threatened by opponents able to strike (ruling `route`).
pub fn path_to(world: &World, me: Entity, to: Cell) -> Option<(Vec<Cell>, u32)> {
    let here = *world.get::<Cell>(me)?;
    let grid = world.resource::<Grid>();
    if !grid.in_bounds(to) || grid.is_obstacle(to) {
        return None;
    }
    let taken = occupied(world, me);
    if taken.contains(&to) {
        return None;
    }
    let foes = threatening(world, me);
    let blocked = |c| taken.contains(&c);
    let leaving = fray_core::movement::Provokes::Leaving;
    fray_core::movement::wary_path(grid, (here, to, 0), blocked, leaving, &foes)
}

/// The opponents of `me` whose threat a route shuns (ruling `route`): on
/// their feet, not Stunned, with a melee weapon ("You threaten all hexes
/// into which you can make a melee attack").
fn threatening(world: &World, me: Entity) -> Vec<fray_core::threat::Threatener> {
    let flow = world.resource::<Flow>();
    flow.order
        .iter()
        .copied()
        .filter(|&t| {
            enemies(world, me, t)
                && up(world, t)
                && !stunned(world, t)
                && melee_weapon(world, t).is_some()
        })
        .filter_map(|t| {
            Some(fray_core::threat::Threatener {
                entity: t,
                cell: *world.get::<Cell>(t)?,
                reach: world.get::<Stats>(t)?.reach,
            })
        })
        .collect()
}

/// `me`'s first weapon that strikes (melee) and its index.
pub fn melee_weapon(world: &World, me: Entity) -> Option<(usize, &str)> {
    let data = &world.resource::<Data>().0;
    let kit = world.get::<Kit>(me)?;
    kit.weapons
        .iter()
        .enumerate()
        .find(|(_, w)| data.weapons.get(*w).is_some_and(|d| d.melee()))
        .map(|(i, w)| (i, w.as_str()))
}

/// Whether `target` is within `me`'s melee reach.
pub fn in_reach(world: &World, me: Entity, target: Entity) -> bool {
    let (Some(stats), Some(&a), Some(&b)) = (
        world.get::<Stats>(me),
        world.get::<Cell>(me),
        world.get::<Cell>(target),
    ) else {
        return false;
    };
    a != b && world.resource::<Grid>().distance(a, b) <= stats.reach
}

/// Whether `e` has an action still to come this phase: its place has not
/// come yet, or it delayed to later in this phase (002 §Delay; ruling
/// `delay_place`).
pub fn acts_later_this_phase(world: &World, e: Entity) -> bool {
    let flow = world.resource::<Flow>();
    !flow.done.contains(&e)
        || matches!(world.get::<super::Hold>(e), Some(super::Hold::Delayed { fires, .. }) if *fires <= flow.phase_index())
}

/// Ruling `ranged`: obstacles block the line; characters do not.
pub fn line_of_sight(world: &World, a: Cell, b: Cell) -> bool {
    world.resource::<Grid>().in_sight(a, b)
}

/// Check `order` for `me` against what the open decision asks.
pub fn validate(world: &World, me: Entity, order: &Order) -> Result<Plan, String> {
    let flow = world.resource::<Flow>();
    let Some((_, actor, asking)) = flow.asking else {
        return Err("no decision is open".into());
    };
    if actor != me
        || world
            .get::<Combatant>(me)
            .is_none_or(|c| c.name != order.actor)
    {
        return Err(format!(
            "this decision is for {}, not {}",
            flow.name(actor),
            order.actor
        ));
    }
    match asking {
        Asking::Turn => validate_turn(world, me, order),
        Asking::Opportunity { mover } => match order.action.as_str() {
            "pass" => Ok(Plan::Pass),
            "strike" | "haymaker" => {
                if order.target.as_deref() != Some(flow.name(mover)) {
                    return Err(format!(
                        "the opportunity is against {}, so the attack must be",
                        flow.name(mover)
                    ));
                }
                let (_, weapon) = melee_weapon(world, me).ok_or("no melee weapon")?;
                Ok(Plan::Opportunity {
                    manoeuvre: order.action.to_string(),
                    weapon: weapon.to_string(),
                })
            }
            other => Err(format!(
                "an attack of opportunity is a strike or a haymaker (ruling opportunity_manoeuvre), or pass; not {other:?}"
            )),
        },
        Asking::Readied { by } => match order.action.as_str() {
            "pass" => Ok(Plan::Pass),
            "strike" | "shoot" => {
                if order.target.as_deref() != Some(flow.name(by)) {
                    return Err(format!(
                        "the readied action is at {}, who met its condition",
                        flow.name(by)
                    ));
                }
                let (readied, _) = readied_action(world, me).ok_or("nothing is readied")?;
                if order.action != readied {
                    return Err(format!("the readied action is to {readied}"));
                }
                if let Some(c) = order.cell
                    && !super::turn::readied_steps(world, me, by).contains(&c)
                {
                    return Err(format!(
                        "a readied strike's 1-hex step goes to a free hex beside it from which {}, out of reach, comes within reach (002 §Ready Step); {c} is not one",
                        flow.name(by)
                    ));
                }
                Ok(Plan::Readied { step: order.cell })
            }
            other => Err(format!(
                "take the readied action (strike or shoot) or pass; not {other:?}"
            )),
        },
        Asking::Abort { .. } => match order.action.as_str() {
            "pass" => Ok(Plan::Pass),
            "dodge" => Ok(Plan::Abort { block: false }),
            "block" => {
                let Asking::Abort { attacker } = asking else {
                    return Err("nothing to block".into());
                };
                melee_weapon(world, me).ok_or("no melee weapon to block with")?;
                let shot = flow.stack.iter().rev().find_map(|w| match w {
                    super::Work::Attack {
                        attacker: a,
                        weapon,
                        ..
                    } if *a == attacker => Some(weapon.clone()),
                    _ => None,
                });
                let data = &world.resource::<Data>().0;
                if shot.is_some_and(|w| data.weapons.get(&w).is_some_and(|d| !d.melee())) {
                    return Err("shots cannot be blocked (ruling block)".into());
                }
                Ok(Plan::Abort { block: true })
            }
            other => Err(format!(
                "one aborts to dodge or block (ruling abort_options), or passes; not {other:?}"
            )),
        },
    }
}

/// The combatant `order` names as its target.
fn target_of(world: &World, order: &Order) -> Result<Entity, String> {
    world.resource::<Flow>().roster.target_of(order)
}

/// An order given on the character's own turn, and what the phase has left
/// for it (002 §Normal Phase, §Restricted Phase).
struct TurnOrder<'w> {
    world: &'w World,
    me: Entity,
    order: &'w Order,
    flow: &'w Flow,
    used: &'w Use,
    here: Cell,
    stats: &'w Stats,
}

impl TurnOrder<'_> {
    /// 002 §Normal Phase and §Restricted Phase: an attack action fits.
    fn need_attack(&self) -> Result<(), String> {
        let (used, flow) = (self.used, self.flow);
        if used.full_phase {
            Err("a full-phase action took this phase".into())
        } else if flow.restricted && !attack_action_left(flow, used) {
            Err("only one attack or move action in this phase (002 §Restricted Phase)".into())
        } else if used.attack {
            Err("one attack action a phase (002 §Normal Phase)".into())
        } else if !attack_action_left(flow, used) {
            Err("both actions of the phase are used (002 §Normal Phase)".into())
        } else {
            Ok(())
        }
    }

    /// 002 §Normal Phase and §Restricted Phase: a move action fits.
    fn need_move(&self) -> Result<(), String> {
        let (used, flow) = (self.used, self.flow);
        if used.full_phase {
            Err("a full-phase action took this phase".into())
        } else if !move_action_left(flow, used) {
            Err(if flow.restricted {
                "only one attack or move action in this phase (002 §Restricted Phase)".into()
            } else {
                "both actions of the phase are used (002 §Normal Phase)".into()
            })
        } else {
            Ok(())
        }
    }

    /// 002 §Full-Phase Actions: a full-phase action fits.
    fn need_full(&self) -> Result<(), String> {
        if self.flow.restricted {
            Err("no full-phase action in a restricted phase (002 §Restricted Phase)".into())
        } else if !full_phase_left(self.flow, self.used) {
            Err("a full-phase action needs the whole phase (002 §Full-Phase Actions)".into())
        } else {
            Ok(())
        }
    }
}

/// 002 §Normal Phase and §Restricted Phase: check an order given on the
/// character's own turn, action by action.
fn validate_turn(world: &World, me: Entity, order: &Order) -> Result<Plan, String> {
    let unused = Use::default();
    let used = world.get::<Use>(me).unwrap_or(&unused);
    let flow = world.resource::<Flow>();
    let (&here, stats) = fray_core::model::components::<(&Cell, &Stats)>(world, me)
        .ok_or("not on the battlefield")?;
    let turn = TurnOrder {
        world,
        me,
        order,
        flow,
        used,
        here,
        stats,
    };
    match order.action.as_str() {
        "strike" | "haymaker" => validate_strike(&turn),
        "shoot" => validate_shoot(&turn),
        "dodge" => {
            turn.need_attack()?;
            Ok(Plan::Dodge)
        }
        "block" => {
            turn.need_attack()?;
            melee_weapon(world, me).ok_or("no melee weapon to block with")?;
            Ok(Plan::Block)
        }
        "move" | "full_move" | "step" | "withdraw" => validate_move(&turn),
        "reload" => validate_reload(&turn),
        "recover" => {
            turn.need_full()?;
            Ok(Plan::Recover)
        }
        "start_recovery" => {
            if !flow.restricted {
                return Err(
                    "in a normal phase, Take a Recovery is one full-phase action (order recover)"
                        .into(),
                );
            }
            turn.need_move()?;
            Ok(Plan::StartRecovery)
        }
        "complete_recovery" => {
            if world.get::<RecoveryStarted>(me).is_none() {
                return Err("no Recovery has been started".into());
            }
            turn.need_move()?;
            Ok(Plan::CompleteRecovery)
        }
        "recover_from_stun" => Err(
            "a Stunned character recovers at its next action, with nothing else (ruling stunned)"
                .into(),
        ),
        "delay" => validate_delay(&turn),
        "ready" => validate_ready(&turn),
        "end" => Ok(Plan::End),
        "pass" => Err("nothing to pass: this is the character's own turn (order end)".into()),
        other => Err(format!(
            "unknown action {other:?} (actions: {})",
            super::data::ACTIONS.join(", ")
        )),
    }
}

/// 002 §Reach and Range: a strike or a haymaker (an attack action) at an
/// opponent still in the fight, within melee reach.
fn validate_strike(turn: &TurnOrder) -> Result<Plan, String> {
    let (world, me, order, stats) = (turn.world, turn.me, turn.order, turn.stats);
    let flow = world.resource::<Flow>();
    turn.need_attack()?;
    let target = target_of(world, order)?;
    if target == me || !enemies(world, me, target) {
        return Err("one strikes at opponents".into());
    }
    if !up(world, target) {
        return Err(format!(
            "{} is already out of the fight, and no longer a target (ruling knocked_out)",
            flow.name(target)
        ));
    }
    let (_, weapon) = melee_weapon(world, me).ok_or("no melee weapon")?;
    if !in_reach(world, me, target) {
        return Err(format!(
            "{} is beyond reach ({} hex{}) (002 §Reach and Range)",
            flow.name(target),
            stats.reach,
            if stats.reach == 1 { "" } else { "es" }
        ));
    }
    Ok(Plan::Attack {
        target,
        manoeuvre: order.action.to_string(),
        weapon: weapon.to_string(),
    })
}

/// 002 §Reach and Range: a shot (an attack action) at an opponent still in
/// the fight, with a loaded weapon whose range reaches it, in line of sight
/// (ruling `ranged`).
fn validate_shoot(turn: &TurnOrder) -> Result<Plan, String> {
    let (world, me, order, here) = (turn.world, turn.me, turn.order, turn.here);
    let data = &world.resource::<Data>().0;
    turn.need_attack()?;
    let target = target_of(world, order)?;
    if target == me || !enemies(world, me, target) || !up(world, target) {
        return Err("one shoots at opponents still in the fight (ruling knocked_out)".into());
    }
    let kit = world.get::<Kit>(me).ok_or("no weapons")?;
    let there = *world.get::<Cell>(target).ok_or("not on the battlefield")?;
    let distance = world.resource::<Grid>().distance(here, there);
    let mut why = String::from("no ranged weapon");
    for (i, w) in kit.weapons.iter().enumerate() {
        if order.with.as_ref().is_some_and(|x| x != w) {
            continue;
        }
        let Some(d) = data.weapons.get(w).filter(|d| !d.melee()) else {
            continue;
        };
        if kit.empty(i, d) {
            why = format!("the {w} is empty: reload it (a move action)");
        } else if distance > d.range {
            why = format!(
                "{} hexes is beyond the {w}'s range of {}",
                distance, d.range
            );
        } else if !line_of_sight(world, here, there) {
            why = "an obstacle blocks the line of sight (ruling ranged)".into();
        } else {
            return Ok(Plan::Attack {
                target,
                manoeuvre: "shoot".into(),
                weapon: w.clone(),
            });
        }
    }
    Err(why)
}

/// 002 §1-Hex Step, §Normal Phase and §Full-Phase Actions: a 1-hex step
/// (not an action), a move action up to half movement (ruling `half_move`),
/// or a full move or withdrawal taking the whole phase.
fn validate_move(turn: &TurnOrder) -> Result<Plan, String> {
    let (world, me, order, here, stats) = (turn.world, turn.me, turn.order, turn.here, turn.stats);
    let grid = world.resource::<Grid>();
    let to = order.cell.ok_or("a move needs a destination hex")?;
    if to == here {
        return Err("already there".into());
    }
    let (path, cost) =
        path_to(world, me, to).ok_or_else(|| format!("no way to {to}: blocked or off the map"))?;
    let action = order.action.as_str();
    let step_ok = step_refusal(world, me);
    let adjacent = path.len() == 1 && grid.distance(here, to) == 1;
    if action == "step" {
        if !adjacent {
            return Err("a 1-hex step goes to an adjacent hex".into());
        }
        if let Some(why) = step_ok {
            return Err(why);
        }
        if grid.is_difficult(to) {
            return Err("no 1-hex step into difficult terrain".into());
        }
        return Ok(Plan::Move {
            path,
            how: MoveHow::Step,
            kind: ActionType::NotAnAction,
        });
    }
    if turn.used.stepped {
        return Err("no movement in a phase with a 1-hex step (002 §1-Hex Step)".into());
    }
    if action == "withdraw" || action == "full_move" {
        turn.need_full()?;
        if cost > stats.movement {
            return Err(format!(
                "{to} is {} of movement away; combat movement is {}",
                hexes(cost),
                stats.movement
            ));
        }
        return Ok(Plan::Move {
            path,
            how: if action == "withdraw" {
                MoveHow::Withdraw
            } else {
                MoveHow::Move
            },
            kind: ActionType::FullPhase,
        });
    }
    // "move": a move action when it fits half movement, else the full move.
    let half = move_action_hexes(stats, turn.used);
    if half == 0 && turn.used.moved && turn.need_move().is_ok() {
        return Err(format!(
            "two move actions go no farther than combat movement ({}) (ruling half_move)",
            hexes(stats.movement)
        ));
    }
    if cost <= half && turn.need_move().is_ok() {
        return Ok(Plan::Move {
            path,
            how: MoveHow::Move,
            kind: ActionType::Move,
        });
    }
    turn.need_move()?;
    if cost > stats.movement {
        return Err(format!(
            "{to} is {} of movement away; combat movement is {}",
            hexes(cost),
            stats.movement
        ));
    }
    if turn.need_full().is_err() {
        return Err(format!(
            "{to} is {} away: more than half movement ({half}) needs the whole phase, and {}",
            hexes(cost),
            turn.need_full().err().unwrap_or_default()
        ));
    }
    Ok(Plan::Move {
        path,
        how: MoveHow::Move,
        kind: ActionType::FullPhase,
    })
}

/// 002 §Table: reload a gun (a move action): the first weapon with shots
/// to fill.
fn validate_reload(turn: &TurnOrder) -> Result<Plan, String> {
    let (world, me, order) = (turn.world, turn.me, turn.order);
    let data = &world.resource::<Data>().0;
    turn.need_move()?;
    let kit = world.get::<Kit>(me).ok_or("no weapons")?;
    kit.weapons
        .iter()
        .enumerate()
        .filter(|(_, w)| order.with.as_ref().is_none_or(|x| x == *w))
        .find_map(|(i, w)| {
            let d = data.weapons.get(w)?;
            (d.shots > 0 && kit.shots.get(i).copied().unwrap_or(0) < d.shots)
                .then_some(Plan::Reload { weapon: i })
        })
        .ok_or_else(|| "nothing to reload".to_string())
}

/// 002 §Delay and §Delay Consequences: no action on one's Initiative, to
/// act just before another character or at the end of the phase.
fn validate_delay(turn: &TurnOrder) -> Result<Plan, String> {
    let (world, me, order, used) = (turn.world, turn.me, turn.order, &turn.used);
    let flow = world.resource::<Flow>();
    let delayed_turn = matches!(
        flow.stack.last(),
        Some(super::Work::Turn {
            kind: super::TurnKind::Delayed,
            ..
        })
    );
    if delayed_turn {
        return Err(
            "this is already a delayed action; one may delay again only at one's own next place (ruling delay_place)"
                .into(),
        );
    }
    if used.actions > 0 || used.full_phase {
        return Err("a delaying character takes no action on its Initiative (002 §Delay)".into());
    }
    let before = match order.target.as_deref() {
        None => None,
        Some(_) => {
            let t = target_of(world, order)?;
            if t == me {
                return Err("one cannot delay until before oneself".into());
            }
            Some(t)
        }
    };
    Ok(Plan::Delay { before })
}

/// 002 §Ready (an attack action): a strike readied for the first opponent
/// to come within reach, or for one opponent's next action (ruling
/// `ready_trigger`).
fn validate_ready(turn: &TurnOrder) -> Result<Plan, String> {
    let (world, me, order) = (turn.world, turn.me, turn.order);
    turn.need_attack()?;
    if order.with.is_some() {
        return validate_ready_shot(turn);
    }
    let (_, weapon) = melee_weapon(world, me).ok_or("no melee weapon to ready")?;
    let trigger = match order.target.as_deref() {
        None => Trigger::EntersReach,
        Some(_) => {
            let t = target_of(world, order)?;
            if !enemies(world, me, t) {
                return Err("a readied strike waits for an opponent".into());
            }
            Trigger::Acts(t)
        }
    };
    Ok(Plan::Ready {
        trigger,
        weapon: weapon.to_string(),
    })
}

/// 002 §Ready: "an attack action", so a shot too (ruling `ready_trigger`):
/// with a loaded ranged weapon, for when a named opponent begins an action.
fn validate_ready_shot(turn: &TurnOrder) -> Result<Plan, String> {
    let (world, me, order) = (turn.world, turn.me, turn.order);
    let data = &world.resource::<Data>().0;
    let weapon = order.with_name().unwrap_or_default();
    let kit = world.get::<Kit>(me).ok_or("no weapons")?;
    let i = kit
        .weapons
        .iter()
        .position(|w| *w == weapon)
        .ok_or_else(|| format!("no {weapon} in hand"))?;
    let d = data
        .weapons
        .get(&weapon)
        .filter(|d| !d.melee())
        .ok_or_else(|| format!("the {weapon} is not a ranged weapon"))?;
    if kit.empty(i, d) {
        return Err(format!("the {weapon} is empty: reload it (a move action)"));
    }
    if order.target.is_none() {
        return Err("a readied shot waits for a named opponent to begin an action".into());
    }
    let t = target_of(world, order)?;
    if !enemies(world, me, t) {
        return Err("a readied shot waits for an opponent".into());
    }
    Ok(Plan::Ready {
        trigger: Trigger::Acts(t),
        weapon,
    })
}

/// The choices a decision lists, each legal or refused with the reason.
pub fn choices(world: &World, me: Entity) -> Vec<Choice> {
    let flow = world.resource::<Flow>();
    let Some((_, _, asking)) = flow.asking else {
        return Vec::new();
    };
    let name = flow.name(me).to_string();
    let mut out = Vec::new();
    let mut offer = |order: Order, label: String| {
        let choice = match validate(world, me, &order) {
            Ok(_) => Choice::legal(order, label),
            Err(why) => Choice::refused(order, label, why),
        };
        out.push(choice);
    };
    match asking {
        Asking::Opportunity { mover } => {
            let m = flow.name(mover).to_string();
            // 002 §Attack Roll: the odds of each, its manoeuvre combined with
            // those in effect (ruling opportunity_manoeuvre).
            let hits = |manoeuvre: &str| {
                let (p, block) = super::turn::melee_chance(world, me, mover, manoeuvre);
                let past = if block { " past the Block" } else { "" };
                format!("hits {:.0}%{past}", p * 100.0)
            };
            offer(
                Order::new(&name, "strike").target(&m),
                format!("Attack of opportunity: strike {m} ({})", hits("strike")),
            );
            offer(
                Order::new(&name, "haymaker").target(&m),
                format!(
                    "Attack of opportunity: haymaker at {m} (+2 dice, -5 DCV; {})",
                    hits("haymaker")
                ),
            );
            offer(Order::new(&name, "pass"), format!("Let {m} go"));
        }
        Asking::Readied { by } => {
            let b = flow.name(by).to_string();
            let (action, _) = readied_action(world, me).unwrap_or(("strike", ""));
            let what = if action == "shoot" { "shot" } else { "strike" };
            // 002 §Ready Step: out of reach, the person chooses where its
            // 1-hex step goes.
            let steps = super::turn::readied_steps(world, me, by);
            if steps.is_empty() {
                offer(
                    Order::new(&name, action).target(&b),
                    format!("Take the readied {what} at {b} now"),
                );
            }
            for c in steps {
                offer(
                    Order::new(&name, action).target(&b).cell(c),
                    format!("Take the readied {what} at {b} now, with a 1-hex step to {c}"),
                );
            }
            offer(
                Order::new(&name, "pass"),
                format!("Hold it: {b} goes on, and the {what} stays readied"),
            );
        }
        Asking::Abort { attacker } => {
            let a = flow.name(attacker).to_string();
            offer(
                Order::new(&name, "pass"),
                format!("Take {a}'s attack as it comes"),
            );
            // Ruling dodge: the abort ends the manoeuvres in effect, so its
            // Dodge is +3 on the bare DCV, whatever came before.
            let (now, dodging) = (
                super::turn::dcv(world, me),
                super::turn::dcv_dodging(world, me),
            );
            let ended = super::turn::what_ends(world, me);
            let gain = if dodging == now {
                format!("DCV stays {now}")
            } else {
                format!("DCV {now} to {dodging}")
            };
            let gain = if ended.is_empty() {
                gain
            } else {
                format!("{gain}; the abort ends its {}", ended.join(" and "))
            };
            // 002 §Abort Consequences: what it gives up, as the abort says.
            let (_, cost) = super::turn::abort_cost(world, me);
            offer(
                Order::new(&name, "dodge"),
                format!("Abort to Dodge ({gain}), giving up {cost}"),
            );
            offer(
                Order::new(&name, "block"),
                format!("Abort to Block, giving up {cost}"),
            );
        }
        Asking::Turn => turn_choices(world, me, &name, &mut offer),
    }
    // Legal choices first (the number keys pick them); of the refused, long
    // lists keep those that say most: the attacks'.
    out.sort_by_key(|c| c.refused.is_some());
    out.retain(|c| {
        c.refused.is_none()
            || matches!(
                c.order.action.as_str(),
                "strike" | "haymaker" | "shoot" | "dodge" | "block" | "recover"
            )
    });
    out
}

/// 002 §Normal Phase: the orders offered on the character's own turn, in
/// the order a list shows them.
fn turn_choices(world: &World, me: Entity, name: &str, offer: &mut impl FnMut(Order, String)) {
    let flow = world.resource::<Flow>();
    let Some(&here) = world.get::<Cell>(me) else {
        return;
    };
    let foes: Vec<Entity> = flow
        .order
        .iter()
        .copied()
        .filter(|&e| enemies(world, me, e) && up(world, e))
        .collect();
    attack_choices(world, me, name, &foes, &mut *offer);
    defence_and_recovery_choices(world, me, name, &mut *offer);
    movement_choices(world, me, name, here, &mut *offer);
    ready_and_delay_choices(world, me, name, &foes, &mut *offer);
    offer(Order::new(name, "end"), "End the turn".into());
}

/// 002 §Reach and Range and §Table: strikes and haymakers at the opponents
/// within reach; with a ranged weapon, shots at every opponent and a reload.
fn attack_choices(
    world: &World,
    me: Entity,
    name: &str,
    foes: &[Entity],
    offer: &mut impl FnMut(Order, String),
) {
    let flow = world.resource::<Flow>();
    // 002 §Attack Roll: the odds of each, as the CVs stand now, a blow
    // past the Block of one holding it (ruling block).
    let hits = |f: Entity, manoeuvre: &str| {
        let (p, block) = if manoeuvre == "shoot" {
            (super::turn::hit_chance(world, me, f, manoeuvre), false)
        } else {
            super::turn::melee_chance(world, me, f, manoeuvre)
        };
        let past = if block { " past the Block" } else { "" };
        format!("hits {:.0}%{past}", p * 100.0)
    };
    for &f in foes {
        if in_reach(world, me, f) {
            let n = flow.name(f);
            offer(
                Order::new(name, "strike").target(n),
                format!("Strike {n} (attack action; {})", hits(f, "strike")),
            );
            offer(
                Order::new(name, "haymaker").target(n),
                format!(
                    "Haymaker at {n}: +2 dice, -5 DCV (attack action; {})",
                    hits(f, "haymaker")
                ),
            );
        }
    }
    if let Some(kit) = world.get::<Kit>(me) {
        let data = &world.resource::<Data>().0;
        if kit
            .weapons
            .iter()
            .any(|w| data.weapons.get(w).is_some_and(|d| !d.melee()))
        {
            for &f in foes {
                let n = flow.name(f);
                offer(
                    Order::new(name, "shoot").target(n),
                    format!("Shoot {n} (attack action; {})", hits(f, "shoot")),
                );
            }
            offer(
                Order::new(name, "reload"),
                "Reload (move action; provokes in a threatened hex)".into(),
            );
        }
    }
}

/// 002 §Table: Dodge and Block (rulings `dodge` and `block`), and Take a
/// Recovery: a full phase, or split in a restricted phase (ruling
/// `split_full_phase`).
fn defence_and_recovery_choices(
    world: &World,
    me: Entity,
    name: &str,
    offer: &mut impl FnMut(Order, String),
) {
    offer(
        Order::new(name, "dodge"),
        "Dodge: +3 DCV until the next action (attack action)".into(),
    );
    offer(
        Order::new(name, "block"),
        "Block the next melee attack (attack action)".into(),
    );
    if world.get::<RecoveryStarted>(me).is_some() {
        offer(
            Order::new(name, "complete_recovery"),
            "Complete the Recovery (move action)".into(),
        );
    }
    if world.resource::<Flow>().restricted {
        offer(
            Order::new(name, "start_recovery"),
            "Start a Recovery (move action; completed at the next action)".into(),
        );
    } else {
        offer(
            Order::new(name, "recover"),
            "Take a Recovery (full phase)".into(),
        );
    }
}

/// 002 §1-Hex Step: a step to each neighbouring hex; and a withdrawal
/// (ruling `withdraw`).
fn movement_choices(
    world: &World,
    me: Entity,
    name: &str,
    here: Cell,
    offer: &mut impl FnMut(Order, String),
) {
    if step_refusal(world, me).is_none() {
        for n in world.resource::<Grid>().neighbours(here) {
            offer(
                Order::new(name, "step").cell(n),
                format!("1-hex step to {n} (never provokes)"),
            );
        }
    }
    if let Some(away) = withdraw_cell(world, me) {
        offer(
            Order::new(name, "withdraw").cell(away),
            format!("Withdraw to {away} (full phase; leaving this hex does not provoke)"),
        );
    }
    // Ruling withdraw: anywhere within combat movement; toward each friend
    // too, to the hex nearest it.
    for f in super::roster(world) {
        if f == me || enemies(world, me, f) || !up(world, f) {
            continue;
        }
        if let Some(to) = withdraw_toward(world, me, f) {
            offer(
                Order::new(name, "withdraw").cell(to),
                format!(
                    "Withdraw to {to}, toward {} (full phase; leaving this hex does not provoke)",
                    super::name(world, f)
                ),
            );
        }
    }
}

/// The hex within `me`'s combat movement nearest `friend` (the cheapest of
/// such, then the first in the grid's order), if nearer than here.
fn withdraw_toward(world: &World, me: Entity, friend: Entity) -> Option<Cell> {
    let stats = world.get::<Stats>(me)?;
    let here = *world.get::<Cell>(me)?;
    let there = *world.get::<Cell>(friend)?;
    let grid = world.resource::<Grid>();
    let taken = occupied(world, me);
    grid.reachable(here, stats.movement, |c| taken.contains(&c))
        .into_iter()
        .filter(|(c, _)| *c != here && !taken.contains(c))
        .min_by_key(|(c, cost)| (grid.distance(*c, there), *cost, *c))
        .map(|(c, _)| c)
        .filter(|&c| grid.distance(c, there) < grid.distance(here, there))
}

/// 002 §Ready and §Delay: a strike readied for whoever comes within reach
/// or for each opponent's action; a delay to just before each character
/// still up, or to the end of the phase.
fn ready_and_delay_choices(
    world: &World,
    me: Entity,
    name: &str,
    foes: &[Entity],
    offer: &mut impl FnMut(Order, String),
) {
    let flow = world.resource::<Flow>();
    offer(
        Order::new(name, "ready"),
        "Ready a strike at the first opponent to come within reach (attack action)".into(),
    );
    let data = &world.resource::<Data>().0;
    let ranged: Vec<&String> = world.get::<Kit>(me).map_or(Vec::new(), |k| {
        k.weapons
            .iter()
            .filter(|w| data.weapons.get(*w).is_some_and(|d| !d.melee()))
            .collect()
    });
    for &f in foes {
        let n = flow.name(f);
        offer(
            Order::new(name, "ready").target(n),
            format!("Ready a strike for when {n} begins an action"),
        );
        for w in &ranged {
            offer(
                Order::new(name, "ready").target(n).with(w.as_str()),
                format!("Ready a shot with the {w} for when {n} begins an action"),
            );
        }
    }
    for &e in &flow.order {
        if e == me || !up(world, e) {
            continue;
        }
        let n = flow.name(e);
        let when = if acts_later_this_phase(world, e) {
            "this phase"
        } else {
            "next phase"
        };
        offer(
            Order::new(name, "delay").target(n),
            format!("Delay: act just before {n} ({when})"),
        );
    }
    offer(
        Order::new(name, "delay"),
        "Delay: act at the end of the phase".into(),
    );
}

/// Where a withdrawal would go: the reachable hex farthest from every
/// opponent within combat movement.
pub fn withdraw_cell(world: &World, me: Entity) -> Option<Cell> {
    let stats = world.get::<Stats>(me)?;
    let here = *world.get::<Cell>(me)?;
    let grid = world.resource::<Grid>();
    let taken = occupied(world, me);
    let foes: Vec<Cell> = super::roster(world)
        .into_iter()
        .filter(|&e| enemies(world, me, e) && up(world, e))
        .filter_map(|e| world.get::<Cell>(e).copied())
        .collect();
    let nearest = |c: Cell| foes.iter().map(|f| grid.distance(c, *f)).min().unwrap_or(0);
    grid.reachable(here, stats.movement, |c| taken.contains(&c))
        .into_iter()
        .filter(|(c, _)| *c != here && nearest(*c) > nearest(here))
        .max_by_key(|(c, cost)| (nearest(*c), std::cmp::Reverse(*cost), std::cmp::Reverse(*c)))
        .map(|(c, _)| c)
}

/// Whether `me` is Stunned.
pub fn stunned(world: &World, me: Entity) -> bool {
    world.get::<Stunned>(me).is_some()
}

/// 002 §Ready: what `e` has readied, if anything: `strike` or `shoot`, and
/// the weapon.
pub(crate) fn readied_action(world: &World, e: Entity) -> Option<(&'static str, &str)> {
    let Some(super::Hold::Readied { weapon, .. }) = world.get::<super::Hold>(e) else {
        return None;
    };
    let shot = world
        .resource::<Data>()
        .0
        .weapons
        .get(weapon)
        .is_some_and(|d| !d.melee());
    Some((if shot { "shoot" } else { "strike" }, weapon))
}
