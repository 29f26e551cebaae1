//! The `phases` ruleset's appraisal of the orders open to a character, for
//! the basic AI (`fray_core::ai`).
//!
//! A strike is worth its chance to hit (002 §Attack Roll) times the mean
//! STUN past PD. Moving out of a threatened hex risks the attacks of
//! opportunity it gives (002 §Moving Out), less what an Acrobatics roll
//! saves; the 1-hex step risks nothing, so the AI steps to reach a foe or to
//! get out of its reach whenever it can. Moving without striking, it stops
//! beyond the half move and strike of every foe who acts before its next
//! action — still to act this phase, or ahead of it in the next (002
//! §Initiative: the same order every phase) — so that the first blow is its
//! own; unless its side outnumbers the foes on their feet, or nobody has
//! attacked for a whole turn, when it walks up all the same. A walk into
//! the reach of a foe's readied strike counts that strike. Attacks of
//! opportunity are always worth taking. A fighter whom a foe can only
//! strike by coming within its reach readies a strike for it. Aborting is
//! worth it only when the blow coming could knock the character out; it then
//! takes Dodge or Block, whichever spares more.
//! When the blows of the foes in reach could knock it out, blocking on its
//! action is weighed against striking. A haymaker is weighed against what
//! its -5 DCV lets in before the character acts again: the strikes of the
//! foes within a half move and reach, and the shots of those who act first
//! with a loaded gun in range and in line of sight.

use bevy_ecs::prelude::*;
use fray_core::ai::{AiHooks, Appraisal, best_first};
use fray_core::decision::Order;
use fray_core::grid::{Cell, Grid, GridGeometry};
use fray_core::model::Rostered;

use super::data::PhasesData;
use super::orders::{
    self, Plan, in_reach, line_of_sight, melee_weapon, movement_left, step_refusal, validate,
};
use super::turn::{dcv, ocv};
use super::view::chance_3d6_at_least;
use super::{
    AbortedAhead, Asking, Data, Flow, Guard, Hold, Kit, Stats, Stun, Stunned, Trigger, Unaware,
    Use, Work, enemies, up,
};

pub const HOOKS: AiHooks = AiHooks {
    appraise,
    legal,
    // A phase asks many small decisions, each appraised hex by hex with
    // paths: a step weighs over three of `declared`'s (3).
    step_work: 10,
};

/// The same check the rules make when they take the order.
fn legal(world: &World, me: Entity, order: &Order) -> bool {
    validate(world, me, order).is_ok()
}

/// Chance to hit and mean STUN past PD of `a`'s `manoeuvre` on `t`.
fn expected(world: &World, a: Entity, t: Entity, manoeuvre: &str, weapon: &str) -> (f32, f32) {
    let data = &world.resource::<Data>().0;
    let o = ocv(world, a, manoeuvre);
    let d = dcv(world, t);
    let p = chance_3d6_at_least(data.numbers.attack_base + d - o);
    let Some(w) = data.weapons.get(weapon) else {
        return (p, 0.0);
    };
    let mut dice = w.damage;
    if manoeuvre == "haymaker" {
        dice.count += data.ruling_numbers.haymaker_extra_dice;
    }
    let pd = world.get::<Stats>(t).map_or(0, |s| s.pd) as f32;
    (p, (dice.mean() - pd).max(0.0))
}

/// 002 §Attack Roll: expected STUN past PD of `a`'s `manoeuvre` on `t` with its melee weapon.
fn strike_value(world: &World, a: Entity, t: Entity, manoeuvre: &str) -> f32 {
    melee_weapon(world, a).map_or(0.0, |(_, w)| {
        let (p, m) = expected(world, a, t, manoeuvre, w);
        p * m
    })
}

/// The STUN `e` has left (none below 0).
fn stun_left(world: &World, e: Entity) -> f32 {
    world
        .get::<Stun>(e)
        .map_or(0.0, |s| s.current.max(0) as f32)
}

/// Foes who could take an attack of opportunity on `me` as it leaves a
/// cell within their reach, in `foes`' order, with their cell and reach.
fn opportunists(world: &World, me: Entity, foes: &[Entity]) -> Vec<(Entity, Cell, u32)> {
    let data = &world.resource::<Data>().0;
    foes.iter()
        .filter_map(|&f| {
            let (s, &fc, u, g) =
                fray_core::model::components::<(&Stats, &Cell, &Use, &Guard)>(world, f)?;
            let able = world.get::<Stunned>(f).is_none()
                && !g.dodge
                && u.opportunities < data.numbers.opportunities_per_phase + s.combat_reflexes
                && !u.left_by.contains(&me);
            able.then_some((f, fc, s.reach))
        })
        .collect()
}

/// Expected STUN taken from the attacks of opportunity a walk gives.
fn walk_risk(world: &World, me: Entity, path: &[Cell], spare_first: bool, foes: &[Entity]) -> f32 {
    let Some(&here) = world.get::<Cell>(me) else {
        return 0.0;
    };
    let grid = world.resource::<Grid>();
    let threats = opportunists(world, me, foes);
    let mut seen: Vec<Entity> = Vec::new();
    let mut risk = 0.0;
    let left = std::iter::once(here).chain(path.iter().copied().take(path.len().saturating_sub(1)));
    for (i, cell) in left.enumerate() {
        if i == 0 && spare_first {
            continue;
        }
        for &(f, fc, reach) in &threats {
            if fc != cell && grid.distance(fc, cell) <= reach && !seen.contains(&f) {
                seen.push(f);
                risk += strike_value(world, f, me, "strike");
            }
        }
    }
    let acrobatics = world
        .get::<Stats>(me)
        .and_then(|s| s.skills.get("acrobatics").copied());
    match acrobatics {
        // The roll (3d6 at or under the skill) negates the whole move's opportunities.
        Some(skill) => risk * chance_3d6_at_least(skill + 1),
        None => risk,
    }
}

/// 002 §Ready Conditions · ruling `ready_trigger`: expected STUN from the
/// readied strikes a walk along `path` sets off, of each foe readied for
/// whoever comes within its reach whose reach the walk enters.
fn readied_risk(world: &World, me: Entity, path: &[Cell], foes: &[Entity]) -> f32 {
    let Some(&here) = world.get::<Cell>(me) else {
        return 0.0;
    };
    let grid = world.resource::<Grid>();
    let enters = |fc: Cell, reach: u32| {
        std::iter::once(here)
            .chain(path.iter().copied())
            .zip(path.iter().copied())
            .any(|(from, to)| grid.distance(fc, to) <= reach && grid.distance(fc, from) > reach)
    };
    foes.iter()
        .filter(|&&f| {
            matches!(
                world.get::<Hold>(f),
                Some(Hold::Readied {
                    trigger: Trigger::EntersReach,
                    ..
                })
            ) && world.get::<Stunned>(f).is_none()
                && world
                    .get::<Stats>(f)
                    .zip(world.get::<Cell>(f))
                    .is_some_and(|(s, &fc)| enters(fc, s.reach))
        })
        .map(|&f| strike_value(world, f, me, "strike"))
        .sum()
}

/// Expected STUN `me` would take standing in `cell` from foes who reach it.
fn exposure(world: &World, me: Entity, cell: Cell, foes: &[Entity]) -> f32 {
    let grid = world.resource::<Grid>();
    foes.iter()
        .filter(|&&f| {
            world.get::<Stunned>(f).is_none()
                && world
                    .get::<Stats>(f)
                    .zip(world.get::<Cell>(f))
                    .is_some_and(|(s, &fc)| fc != cell && grid.distance(fc, cell) <= s.reach)
        })
        .map(|&f| strike_value(world, f, me, "strike"))
        .sum()
}

/// How much more STUN `me` would take at `cell` at the Haymaker's -5 DCV
/// (ruling `haymaker`), from each foe's worse blow: a strike, if it stands
/// within a half move and reach of `cell`, or a shot, if it can fire on
/// `cell` before `me` acts again ([`gun_on`]).
fn haymaker_exposure(world: &World, me: Entity, cell: Cell, foes: &[Entity]) -> f32 {
    let data = &world.resource::<Data>().0;
    let grid = world.resource::<Grid>();
    let penalty = data.manoeuvre("haymaker").map_or(0, |m| m.dcv);
    let d = dcv(world, me);
    let worse = |f: Entity, manoeuvre: &str, w: &str| {
        let (p, mean) = expected(world, f, me, manoeuvre, w);
        let o = ocv(world, f, manoeuvre);
        (chance_3d6_at_least(data.numbers.attack_base + d + penalty - o) - p) * mean
    };
    foes.iter()
        .filter(|&&f| world.get::<Stunned>(f).is_none())
        .map(|&f| {
            let near = world
                .get::<Stats>(f)
                .zip(world.get::<Cell>(f))
                .is_some_and(|(s, &fc)| grid.distance(fc, cell) <= s.reach + s.movement / 2);
            let blow = melee_weapon(world, f)
                .filter(|_| near)
                .map(|(_, w)| worse(f, "strike", w));
            let shot = gun_on(world, me, f, cell).map(|w| worse(f, "shoot", w));
            blow.into_iter().chain(shot).fold(0.0, f32::max)
        })
        .sum()
}

/// 002 §Reach and Range · ruling `ranged`: the loaded ranged weapon with
/// which foe `f` can fire on `cell` from where it stands — within range, in
/// line of sight — when it acts before `me` acts again ([`acts_first`]).
fn gun_on(world: &World, me: Entity, f: Entity, cell: Cell) -> Option<&str> {
    acts_first(world, me, f)?;
    let data = &world.resource::<Data>().0;
    let (kit, &fc) = world.get::<Kit>(f).zip(world.get::<Cell>(f))?;
    let distance = world.resource::<Grid>().distance(fc, cell);
    let (_, w) = kit.weapons.iter().enumerate().find(|&(i, w)| {
        data.weapons
            .get(w)
            .is_some_and(|d| !d.melee() && !kit.empty(i, d) && distance <= d.range)
    })?;
    line_of_sight(world, fc, cell).then_some(w.as_str())
}

/// The orders open to `me` for what it is asked — an attack of opportunity,
/// an abort, or its own action — each appraised.
fn appraise(world: &World, me: Entity) -> Vec<Appraisal> {
    let flow = world.resource::<Flow>();
    let Some((_, actor, asking)) = flow.asking else {
        return Vec::new();
    };
    if actor != me {
        return Vec::new();
    }
    let name = flow.name(me).to_string();
    match asking {
        Asking::Opportunity { mover } => {
            let m = flow.name(mover).to_string();
            vec![
                Appraisal {
                    damage: strike_value(world, me, mover, "strike"),
                    target_left: stun_left(world, mover),
                    ..Appraisal::plain(Order::new(&name, "strike").target(&m))
                },
                Appraisal::plain(Order::new(&name, "pass")),
            ]
        }
        Asking::Abort { attacker } => abort_options(world, me, attacker, &name),
        Asking::Turn => turn_options(world, me, &name),
    }
}

/// The attack `attacker` is making on `me`, as the rules hold it: its
/// manoeuvre and weapon (else a strike with its first weapon).
fn attack_coming(world: &World, attacker: Entity, me: Entity) -> Option<(String, String)> {
    let flow = world.resource::<Flow>();
    let held = flow.stack.iter().rev().find_map(|w| match w {
        Work::Attack {
            attacker: a,
            target,
            manoeuvre,
            weapon,
            ..
        } if *a == attacker && *target == me => Some((manoeuvre.clone(), weapon.clone())),
        _ => None,
    });
    held.or_else(|| first_strike(world, attacker))
}

/// A strike with `attacker`'s melee weapon, else its first.
fn first_strike(world: &World, attacker: Entity) -> Option<(String, String)> {
    let w = melee_weapon(world, attacker)
        .map(|(_, w)| w.to_string())
        .or_else(|| world.get::<Kit>(attacker)?.weapons.first().cloned())?;
    Some(("strike".to_string(), w))
}

/// 002 §Abort · rulings `abort_options`, `dodge`, `block`: whether to
/// abort is judged by what Dodge (+3 DCV) spares of the attack coming:
/// worth it only when the blow could knock `me` out, twice what it spares
/// outweighs the strike given up, and with this phase's action — giving up
/// the next phase's, phase after phase, would leave it never fighting back.
/// Then Block is taken instead if its roll spares more: it stops the first
/// melee blow outright, where Dodge stands until `me` acts again, against
/// the attacker's blow of the next phase too when it acts first there.
fn abort_options(world: &World, me: Entity, attacker: Entity, name: &str) -> Vec<Appraisal> {
    let mut out = vec![Appraisal::plain(Order::new(name, "pass"))];
    let Some((manoeuvre, w)) = attack_coming(world, attacker, me) else {
        return out;
    };
    let (data, flow) = (&world.resource::<Data>().0, world.resource::<Flow>());
    let base = data.numbers.attack_base;
    let (p, mean) = expected(world, attacker, me, &manoeuvre, &w);
    let o = ocv(world, attacker, &manoeuvre);
    let d = dcv(world, me);
    let dodge = data.manoeuvre("dodge").map_or(0, |m| m.dcv);
    let dodged = (p - chance_3d6_at_least(base + d + dodge - o)) * mean;
    let cost = strike_value(world, me, attacker, "strike");
    let worth = dodged * 2.0 - cost;
    let knockout = mean >= stun_left(world, me) * 0.8;
    if !(knockout && !flow.done.contains(&me) && worth > 0.0) {
        out.push(Appraisal {
            other: -1.0,
            ..Appraisal::plain(Order::new(name, "dodge"))
        });
        return out;
    }
    let first = |e: Entity| flow.order.iter().position(|&x| x == e);
    let blows = if first(attacker) < first(me) {
        2.0
    } else {
        1.0
    };
    out.push(Appraisal {
        other: worth + dodged * 2.0 * (blows - 1.0),
        ..Appraisal::plain(Order::new(name, "dodge"))
    });
    let melee = data.weapons.get(&w).is_none_or(|x| x.melee());
    if melee && melee_weapon(world, me).is_some() {
        let blocked = p * block_chance(world, me, o) * mean;
        out.push(Appraisal {
            other: blocked * 2.0 - cost,
            ..Appraisal::plain(Order::new(name, "block"))
        });
    }
    out
}

/// The character whose action it is, and the foes still up.
struct Turn<'a> {
    world: &'a World,
    me: Entity,
    name: &'a str,
    here: Cell,
    stats: &'a Stats,
    data: &'a PhasesData,
    grid: &'a Grid,
    flow: &'a Flow,
    /// In initiative order.
    foes: Vec<Entity>,
}

/// The rules' plan for `order` if they would take it now.
fn can(t: &Turn, order: &Order) -> Option<Plan> {
    validate(t.world, t.me, order).ok()
}

/// Hexes from `c` to the nearest of the foes at `foe_cells` (0 with none
/// placed).
fn nearest(t: &Turn, foe_cells: &[Cell], c: Cell) -> f32 {
    foe_cells
        .iter()
        .map(|&fc| t.grid.distance(c, fc))
        .min()
        .unwrap_or(0) as f32
}

/// 002 §Normal Phase: the actions open to `me` on its Initiative, each
/// appraised.
fn turn_options(world: &World, me: Entity, name: &str) -> Vec<Appraisal> {
    let mut out = vec![Appraisal::plain(Order::new(name, "end"))];
    let (Some(&here), Some(stats)) = (world.get::<Cell>(me), world.get::<Stats>(me)) else {
        return out;
    };
    let data = &world.resource::<Data>().0;
    let grid = world.resource::<Grid>();
    let flow = world.resource::<Flow>();
    let foes: Vec<Entity> = flow
        .order
        .iter()
        .copied()
        .filter(|&e| enemies(world, me, e) && up(world, e))
        .collect();
    if foes.is_empty() {
        return out;
    }
    let t = Turn {
        world,
        me,
        name,
        here,
        stats,
        data,
        grid,
        flow,
        foes,
    };
    let here_exposure = exposure(world, me, here, &t.foes);
    attacks(&t, &mut out);
    reload(&t, &mut out);
    let ranged = shooter(world, data, me);
    moves(&t, here_exposure, ranged, &mut out);
    let in_reach_now = t.foes.iter().any(|&f| in_reach(world, me, f));
    ready(&t, in_reach_now, &mut out);
    recover(&t, &mut out);
    let danger = (here_exposure / stun_left(world, me).max(1.0)).min(1.0);
    if danger >= GUARD_DANGER {
        block(&t, danger, &mut out);
    }
    // Dodge when threatened and unable to strike.
    let dodge = Order::new(name, "dodge");
    if here_exposure > 0.0 && !in_reach_now && !ranged && can(&t, &dodge).is_some() {
        out.push(Appraisal {
            other: here_exposure * 0.1,
            ..Appraisal::plain(dodge)
        });
    }
    out
}

/// Whether `e` holds a ranged weapon with a shot left.
fn shooter(world: &World, data: &PhasesData, e: Entity) -> bool {
    world.get::<Kit>(e).is_some_and(|k| {
        k.weapons
            .iter()
            .zip(&k.shots)
            .any(|(w, s)| data.weapons.get(w).is_some_and(|d| !d.melee() && *s > 0))
    })
}

/// 002 §Attack Roll: strikes and haymakers on foes within reach, and shots,
/// each worth its chance to hit times the mean STUN past PD.
fn attacks(t: &Turn, out: &mut Vec<Appraisal>) {
    let (world, me, name, here) = (t.world, t.me, t.name, t.here);
    // Without a ranged weapon the rules take no shot (002 §Reach and Range).
    let armed = world.get::<Kit>(me).is_some_and(|k| {
        k.weapons
            .iter()
            .any(|w| t.data.weapons.get(w).is_some_and(|d| !d.melee()))
    });
    for &f in &t.foes {
        let n = t.flow.name(f).to_string();
        if in_reach(world, me, f) {
            for m in ["strike", "haymaker"] {
                let order = Order::new(name, m).target(&n);
                if can(t, &order).is_none() {
                    continue;
                }
                let risk = if m == "haymaker" {
                    haymaker_exposure(world, me, here, &t.foes)
                } else {
                    0.0
                };
                out.push(Appraisal {
                    damage: strike_value(world, me, f, m),
                    target_left: stun_left(world, f),
                    risk,
                    ..Appraisal::plain(order)
                });
            }
        }
        // Shots.
        if !armed {
            continue;
        }
        let order = Order::new(name, "shoot").target(&n);
        if let Some(Plan::Attack { weapon, .. }) = can(t, &order) {
            let (p, mean) = expected(world, me, f, "shoot", &weapon);
            out.push(Appraisal {
                damage: p * mean,
                target_left: stun_left(world, f),
                ..Appraisal::plain(order)
            });
        }
    }
}

/// 002 §Distracting Actions: reloading an empty gun, at the risk of the
/// attacks of opportunity it gives (halved with Fast Draw).
fn reload(t: &Turn, out: &mut Vec<Appraisal>) {
    let reload = Order::new(t.name, "reload");
    if can(t, &reload).is_some()
        && let Some(kit) = t.world.get::<Kit>(t.me)
        && kit
            .shots
            .iter()
            .zip(&kit.weapons)
            .any(|(s, w)| *s == 0 && t.data.weapons.get(w).is_some_and(|d| d.shots > 0))
    {
        let risk = walk_risk(t.world, t.me, &[t.here], false, &t.foes)
            * if t.stats.skills.contains_key("fast_draw") {
                0.5
            } else {
                1.0
            };
        out.push(Appraisal {
            other: 3.0,
            risk,
            ..Appraisal::plain(reload)
        });
    }
}

/// What a foe is worth and threatens, reckoned once for every hex.
struct FoeInfo {
    cell: Cell,
    reach: u32,
    /// My strike on it: expected STUN, and its STUN left.
    mine: f32,
    left: f32,
    /// Its strike on me (0 while it is Stunned).
    theirs: f32,
    /// How far it can strike before my next action: its reach, and
    /// [`lunge`] more when it has no shot to fire.
    lunge: u32,
}

/// 002 §Threat: each foe's place, reach and strikes, for `me`.
fn foe_info(t: &Turn) -> Vec<FoeInfo> {
    let (world, me) = (t.world, t.me);
    t.foes
        .iter()
        .filter_map(|&f| {
            let s = world.get::<Stats>(f)?;
            // Holding back from a foe who can shoot spares nothing.
            let lunge = if shooter(world, t.data, f) {
                0
            } else {
                lunge(t, f, s)
            };
            Some(FoeInfo {
                cell: *world.get::<Cell>(f)?,
                reach: s.reach,
                mine: strike_value(world, me, f, "strike"),
                left: stun_left(world, f),
                theirs: if world.get::<Stunned>(f).is_some() {
                    0.0
                } else {
                    strike_value(world, f, me, "strike")
                },
                lunge: s.reach + lunge,
            })
        })
        .collect()
}

/// 002 §Initiative: whether foe `f` acts before `me` acts again — it is
/// still to act this phase, or acts ahead of `me` in the next (the same
/// order every phase) — and not Stunned (its next action is its recovery,
/// ruling `stunned`) nor having aborted that action away (002 §Abort
/// Consequences). Whether that is this phase's action, if so.
fn acts_first(world: &World, me: Entity, f: Entity) -> Option<bool> {
    let (flow, data) = (world.resource::<Flow>(), &world.resource::<Data>().0);
    if world.get::<Stunned>(f).is_some() {
        return None;
    }
    // 002 §Surprise Phase: the unaware act from phase 1 on.
    let this_phase =
        !(flow.done.contains(&f) || flow.phase == 0 && world.get::<Unaware>(f).is_some());
    let place = |e: Entity| flow.order.iter().position(|&x| x == e);
    if !this_phase && place(f) > place(me) {
        return None;
    }
    let phase = if this_phase {
        flow.phase_index()
    } else {
        flow.next_phase_index(data.numbers.phases_per_turn)
    };
    let kept = world.get::<AbortedAhead>(f).is_none_or(|a| a.0 != phase);
    kept.then_some(this_phase)
}

/// 002 §Normal Phase · §1-Hex Step: how much farther than its reach foe `f`
/// can strike before `me` acts again: a half move and a strike, or in a
/// restricted phase the 1-hex step and a strike (002 §Restricted Phase).
fn lunge(t: &Turn, f: Entity, s: &Stats) -> u32 {
    match acts_first(t.world, t.me, f) {
        None => 0,
        Some(true) if t.flow.restricted => 1,
        Some(_) => orders::half_move(s),
    }
}

/// 002 §Threat: expected STUN from the foes who reach `cell`.
fn exposure_among(info: &[FoeInfo], grid: &Grid, cell: Cell) -> f32 {
    info.iter()
        .filter(|f| f.cell != cell && grid.distance(f.cell, cell) <= f.reach)
        .map(|f| f.theirs)
        .sum()
}

/// 002 §Normal Phase: expected STUN from the foes who can strike `cell`
/// before my next action, moving half their move first: the first blow,
/// taken by whoever stops there without striking.
fn first_blow_among(info: &[FoeInfo], grid: &Grid, cell: Cell) -> f32 {
    info.iter()
        .filter(|f| f.cell != cell && grid.distance(f.cell, cell) <= f.lunge)
        .map(|f| f.theirs)
        .sum()
}

/// 002 §Moving Out · 002 §1-Hex Step: a move to a hex within reach of a foe
/// (to strike after), else closer; the best of each kind.
fn moves(t: &Turn, here_exposure: f32, ranged: bool, out: &mut Vec<Appraisal>) {
    let (world, me, name, here, stats, grid, flow) =
        (t.world, t.me, t.name, t.here, t.stats, t.grid, t.flow);
    let used = world.get::<Use>(me).cloned().unwrap_or_default();
    let attack_left =
        !used.attack && !used.full_phase && used.actions < if flow.restricted { 1 } else { 2 };
    let budget = movement_left(world, me);
    let step_open = step_refusal(world, me).is_none();
    let taken = orders::occupied(world, me);
    // In the cells' order.
    let mut cells = grid.reachable(here, budget.max(u32::from(step_open)), |c| {
        taken.contains(&c)
    });
    cells.retain(|(c, _)| *c != here);
    let foe_cells: Vec<Cell> = t
        .foes
        .iter()
        .filter_map(|&f| world.get::<Cell>(f).copied())
        .collect();
    let before = nearest(t, &foe_cells, here);
    // A readied character waits for its foes rather than walk up to them.
    let waiting = matches!(
        world.get::<super::Hold>(me),
        Some(super::Hold::Readied { .. })
    );
    let info = foe_info(t);
    let half = orders::half_move(stats);
    // Outnumbering the foes on their feet, it walks up all the same: the
    // first blow is theirs, the next blows its side's. So it does in a
    // standoff, which waiting longer would not break.
    let allies_up = flow
        .order
        .iter()
        .filter(|&&e| !enemies(world, me, e) && up(world, e))
        .count();
    let press = allies_up > t.foes.len() || impasse(t);
    // First a cheap appraisal of every hex (no path, no risk), then the few
    // best of each kind are checked by the rules and priced for the risk of
    // the way there.
    let mut strikes: Vec<(f32, Appraisal)> = Vec::new();
    let mut closes: Vec<(f32, Appraisal)> = Vec::new();
    for (cell, cost) in cells {
        let step = step_open && cost == 1 && grid.distance(here, cell) == 1;
        let attack_after =
            attack_left && (step || (cost <= half && !flow.restricted && used.actions == 0));
        let strike_there = info
            .iter()
            .filter(|f| grid.distance(cell, f.cell) <= stats.reach)
            .map(|f| (f.mine, f.left))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        let exposure_there = exposure_among(&info, grid, cell);
        let closing = before - nearest(t, &foe_cells, cell);
        let mut a = Appraisal {
            closing: if ranged { -closing } else { closing },
            ..Appraisal::plain(Order::new(name, if step { "step" } else { "move" }).cell(cell))
        };
        match strike_there {
            Some((value, left)) if attack_after && !ranged => {
                a.damage = value * 0.9;
                a.target_left = left;
                // Where fewer foes reach back is better.
                a.other = -(exposure_there - here_exposure).max(0.0) * 0.2;
                strikes.push((a.score(), a));
            }
            _ => {
                // Stopping where a foe who acts before my next action can step or
                // walk up and strike invites the first blow: better to wait
                // beyond and strike first when it comes.
                let first_blow = if press {
                    0.0
                } else {
                    first_blow_among(&info, grid, cell)
                };
                if step && here_exposure > 0.0 {
                    // Stepping out of reach is worth what it spares.
                    a.other = (here_exposure - first_blow) * 0.5;
                } else {
                    a.other = -first_blow * 0.5;
                }
                if waiting {
                    a.closing = 0.0;
                }
                closes.push((a.score(), a));
            }
        }
    }
    let best_strike = best(t, strikes);
    let best_close = best(t, closes);
    out.extend(best_strike);
    out.extend(best_close);
}

/// Phases in a row without an attack after which holding back is a
/// standoff nobody breaks: a whole turn.
const STANDOFF_PHASES: u32 = 4;

/// Whether the fight stands off: nobody has attacked for a whole turn, so
/// waiting for the foes to come has gained nothing.
fn impasse(t: &Turn) -> bool {
    t.flow.quiet_phases >= STANDOFF_PHASES
}

/// 002 §Moving Out: of the four best hexes by their cheap appraisal, the
/// best the rules take, priced for the attacks of opportunity on the way.
fn best(t: &Turn, list: Vec<(f32, Appraisal)>) -> Option<Appraisal> {
    let mut chosen: Option<Appraisal> = None;
    for i in best_first(list.iter().map(|(cheap, _)| *cheap))
        .into_iter()
        .take(4)
    {
        let (cheap, mut a) = list[i].clone();
        // The risk of the way only lowers a score, and the rest score no
        // more than this one cheaply: none of them can beat the best now.
        if chosen
            .as_ref()
            .is_some_and(|c| c.score().total_cmp(&cheap).is_gt())
        {
            break;
        }
        let Some(Plan::Move { path, how, .. }) = can(t, &a.order) else {
            continue;
        };
        if how != super::MoveHow::Step {
            a.risk = walk_risk(t.world, t.me, &path, false, &t.foes);
        }
        a.risk += readied_risk(t.world, t.me, &path, &t.foes);
        // Of equal scores, the later is kept.
        if chosen
            .as_ref()
            .is_none_or(|c| a.score().total_cmp(&c.score()).is_ge())
        {
            chosen = Some(a);
        }
    }
    chosen
}

/// 002 §Ready · §Ready Conditions: a strike readied for whoever comes
/// within reach goes off just before the blow of a foe who must come within
/// that reach to strike (its reach no longer), and the readier acts ahead of
/// it from then on. Readied for a foe close enough to walk half its move and
/// strike before `me` acts again, worth half the strike (the foe may hold
/// back, and the readied strike lapse unused), and a little more when that
/// foe acts ahead of `me`. Not while a foe of longer reach can strike `me`
/// first, and not in a standoff ([`impasse`]), where nobody comes.
fn ready(t: &Turn, in_reach_now: bool, out: &mut Vec<Appraisal>) {
    let (world, me, here, stats) = (t.world, t.me, t.here, t.stats);
    let ready = Order::new(t.name, "ready");
    if in_reach_now || impasse(t) || can(t, &ready).is_none() {
        return;
    }
    // Foes who can strike `me` here before it acts again, of longer reach
    // and of reach no longer than its own.
    let lunging = |longer: bool| {
        t.foes.iter().copied().filter(move |&f| {
            acts_first(world, me, f).is_some()
                && world
                    .get::<Stats>(f)
                    .zip(world.get::<Cell>(f))
                    .is_some_and(|(s, &fc)| {
                        (s.reach > stats.reach) == longer
                            && t.grid.distance(fc, here) <= orders::half_move(s) + s.reach
                    })
        })
    };
    // A foe of longer reach strikes first without coming within reach.
    if lunging(true).next().is_some() {
        return;
    }
    let place = |e: Entity| t.flow.order.iter().position(|&x| x == e);
    let coming = lunging(false)
        .map(|f| {
            let v = strike_value(world, me, f, "strike");
            let ahead = place(f) < place(me);
            v * (READIED_SHARE + if ahead { INITIATIVE_WORTH } else { 0.0 })
        })
        .fold(0.0f32, f32::max);
    if coming > 0.0 {
        out.push(Appraisal {
            damage: coming,
            ..Appraisal::plain(ready)
        });
    }
}

/// What a strike readied for a foe who may come is worth, as a share of
/// the strike: less than walking up and striking now.
const READIED_SHARE: f32 = 0.5;

/// 002 §Ready Conditions: what acting ahead of a foe from then on is worth,
/// as a share of a strike on it.
const INITIATIVE_WORTH: f32 = 0.2;

/// How near the blows of the foes who reach a character must come to
/// knocking it out (their expected STUN over its STUN left, at most 1)
/// before blocking is worth weighing against striking.
const GUARD_DANGER: f32 = 0.5;

/// Ruling `block`: blocking on its action, a character meets the first
/// melee blow before its next action with a Block roll. Worth twice what
/// the roll spares of the hardest blow of a foe who reaches it, the more the
/// nearer those blows come to knocking it out (`danger`).
fn block(t: &Turn, danger: f32, out: &mut Vec<Appraisal>) {
    let (world, me) = (t.world, t.me);
    let order = Order::new(t.name, "block");
    if can(t, &order).is_none() {
        return;
    }
    let spared = t
        .foes
        .iter()
        .filter(|&&f| in_reach(world, f, me) && world.get::<Stunned>(f).is_none())
        .map(|&f| {
            let o = ocv(world, f, "strike");
            block_chance(world, me, o) * strike_value(world, f, me, "strike")
        })
        .fold(0.0, f32::max);
    out.push(Appraisal {
        other: spared * 2.0 * danger,
        ..Appraisal::plain(order)
    });
}

/// Ruling `block`: the chance that `me`'s Block roll, 3d6 + its OCV,
/// meets 10 + the OCV `attacker_ocv` of the blow it blocks.
fn block_chance(world: &World, me: Entity, attacker_ocv: i32) -> f32 {
    let base = world.resource::<Data>().0.numbers.attack_base;
    let b = ocv(world, me, "block");
    chance_3d6_at_least(base + attacker_ocv - b)
}

/// Ruling `recovery`: recover when nobody can reach this phase.
fn recover(t: &Turn, out: &mut Vec<Appraisal>) {
    let (world, here, stats) = (t.world, t.here, t.stats);
    let safe = t.foes.iter().all(|&f| {
        world
            .get::<Stats>(f)
            .zip(world.get::<Cell>(f))
            .is_none_or(|(s, &fc)| t.grid.distance(fc, here) > s.movement + s.reach)
    });
    if let Some(stun) = world.get::<Stun>(t.me) {
        let missing = (stun.max - stun.current).min(stats.rec) as f32;
        for action in ["recover", "start_recovery", "complete_recovery"] {
            let order = Order::new(t.name, action);
            if can(t, &order).is_some() {
                let worth = if action == "complete_recovery" {
                    missing
                } else if safe {
                    missing * 0.3
                } else {
                    -1.0
                };
                out.push(Appraisal {
                    other: worth,
                    ..Appraisal::plain(order)
                });
            }
        }
    }
}
