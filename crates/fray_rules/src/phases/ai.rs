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

use std::cell::{OnceCell, RefCell};

use bevy_ecs::prelude::*;
use fray_core::ai::{AiHooks, Appraisal, STANDARD_SEARCH_WORK, first_best};
use fray_core::decision::Order;
use fray_core::grid::{Cell, Grid, GridGeometry};
use fray_core::model::{Rostered, Side};

use super::data::PhasesData;
use super::orders::{
    self, Plan, in_reach, line_of_sight, melee_weapon, movement_left, step_refusal, validate,
};
use super::turn::{dcv, ocv};
use super::view::chance_3d6_at_least;
use super::{
    AbortedAhead, Asking, Data, Flow, Guard, Hold, Kit, RecoveryStarted, Stats, Stun, Stunned,
    Trigger, Unaware, Use, Work, up,
};

pub const HOOKS: AiHooks = AiHooks {
    appraise,
    legal,
    // A phase asks many small decisions, each appraised hex by hex with
    // paths: a step weighs over three of `declared`'s (3).
    step_work: 10,
    // Twice the standard's futures: 69.2% of `phases_duel` against the
    // basic AI rather than 64.8%, at 8.6 ms a decision at p99 (docs/ai.md).
    search_work: 2 * STANDARD_SEARCH_WORK,
    cell_work: 0,
};

/// The same check the rules make when they take the order.
fn legal(world: &World, me: Entity, order: &Order) -> bool {
    validate(world, me, order).is_ok()
}

/// Chance to hit and mean STUN past PD of `a`'s `manoeuvre` on `t`.
fn expected(world: &World, a: Entity, t: Entity, manoeuvre: &str, weapon: &str) -> (f32, f32) {
    let data = &world.resource::<Data>().0;
    let p = super::turn::hit_chance(world, a, t, manoeuvre);
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

/// A foe who could take an attack of opportunity on `me` as it leaves a
/// cell within its reach, with its cell, reach and strike on `me`.
struct Opportunist {
    foe: Entity,
    cell: Cell,
    reach: u32,
    strike: f32,
}

/// The foes who could take an attack of opportunity on `me`, in `foes`'
/// order.
fn opportunists(t: &Turn) -> Vec<Opportunist> {
    let (world, me, data) = (t.world, t.me, t.data);
    t.foes
        .iter()
        .filter_map(|&f| {
            let (s, &fc, u, g) =
                fray_core::model::components::<(&Stats, &Cell, &Use, &Guard)>(world, f)?;
            let able = world.get::<Stunned>(f).is_none()
                && !g.dodge
                && u.opportunities < data.numbers.opportunities_per_phase + s.combat_reflexes
                && !u.left_by.contains(&me);
            able.then(|| Opportunist {
                foe: f,
                cell: fc,
                reach: s.reach,
                strike: strike(t, f, me),
            })
        })
        .collect()
}

/// Expected STUN taken from the attacks of opportunity a walk from where
/// `me` stands along `path` gives.
fn walk_risk(t: &Turn, path: &[Cell]) -> f32 {
    let threats = t.opportunists.get_or_init(|| opportunists(t));
    let mut seen: Vec<Entity> = Vec::new();
    let mut risk = 0.0;
    let left =
        std::iter::once(t.here).chain(path.iter().copied().take(path.len().saturating_sub(1)));
    for cell in left {
        for o in threats {
            if o.cell != cell && t.grid.distance(o.cell, cell) <= o.reach && !seen.contains(&o.foe)
            {
                seen.push(o.foe);
                risk += o.strike;
            }
        }
    }
    match t.stats.skills.get("acrobatics").copied() {
        // The roll (3d6 at or under the skill) negates the whole move's opportunities.
        Some(skill) => risk * chance_3d6_at_least(skill + 1),
        None => risk,
    }
}

/// The foes readied for whoever comes within their reach, not Stunned:
/// each one's cell, reach and strike on `me`, in `foes`' order.
fn readied_foes(t: &Turn) -> Vec<(Cell, u32, f32)> {
    let (world, me) = (t.world, t.me);
    t.foes
        .iter()
        .filter(|&&f| {
            matches!(
                world.get::<Hold>(f),
                Some(Hold::Readied {
                    trigger: Trigger::EntersReach,
                    ..
                })
            ) && world.get::<Stunned>(f).is_none()
        })
        .filter_map(|&f| {
            let (s, &fc) = world.get::<Stats>(f).zip(world.get::<Cell>(f))?;
            Some((fc, s.reach, strike(t, f, me)))
        })
        .collect()
}

/// 002 §Ready Conditions · ruling `ready_trigger`: expected STUN from the
/// readied strikes a walk along `path` sets off, of each foe readied for
/// whoever comes within its reach whose reach the walk enters.
fn readied_risk(t: &Turn, path: &[Cell]) -> f32 {
    let grid = t.grid;
    let enters = |fc: Cell, reach: u32| {
        std::iter::once(t.here)
            .chain(path.iter().copied())
            .zip(path.iter().copied())
            .any(|(from, to)| grid.distance(fc, to) <= reach && grid.distance(fc, from) > reach)
    };
    t.readied
        .get_or_init(|| readied_foes(t))
        .iter()
        .filter(|&&(fc, reach, _)| enters(fc, reach))
        .map(|&(_, _, strike)| strike)
        .sum()
}

/// Expected STUN `me` would take standing in `cell` from foes who reach it.
fn exposure(t: &Turn, cell: Cell) -> f32 {
    let (world, me, grid) = (t.world, t.me, t.grid);
    t.foes
        .iter()
        .filter(|&&f| {
            world.get::<Stunned>(f).is_none()
                && world
                    .get::<Stats>(f)
                    .zip(world.get::<Cell>(f))
                    .is_some_and(|(s, &fc)| fc != cell && grid.distance(fc, cell) <= s.reach)
        })
        .map(|&f| strike(t, f, me))
        .sum()
}

/// How much more STUN `me` would take at `cell` at the Haymaker's -5 DCV
/// (ruling `haymaker`), from each foe's best blow at either DCV: a strike
/// or a Haymaker of its own, whichever deals more at that DCV, if it stands
/// within a half move and reach of `cell`, or a shot, if it can fire on
/// `cell` before `me` acts again ([`gun_on`]).
fn haymaker_exposure(world: &World, me: Entity, cell: Cell, foes: &[Entity]) -> f32 {
    let data = &world.resource::<Data>().0;
    let grid = world.resource::<Grid>();
    let penalty = data.manoeuvre("haymaker").map_or(0, |m| m.dcv);
    let d = dcv(world, me);
    // What foe `f`'s best of `manoeuvres` with `w` deals `me` at its DCV
    // now, and at the Haymaker's.
    let best = |f: Entity, manoeuvres: &[&str], w: &str| {
        manoeuvres
            .iter()
            .fold((0.0f32, 0.0f32), |(now, lowered), m| {
                let (p, mean) = expected(world, f, me, m, w);
                let o = ocv(world, f, m);
                let p_lowered = chance_3d6_at_least(data.numbers.attack_base + d + penalty - o);
                (now.max(p * mean), lowered.max(p_lowered * mean))
            })
    };
    let worse = |(now, lowered): (f32, f32)| (lowered - now).max(0.0);
    foes.iter()
        .filter(|&&f| world.get::<Stunned>(f).is_none())
        .map(|&f| {
            let near = world
                .get::<Stats>(f)
                .zip(world.get::<Cell>(f))
                .is_some_and(|(s, &fc)| grid.distance(fc, cell) <= s.reach + s.movement / 2);
            let blow = melee_weapon(world, f)
                .filter(|_| near)
                .map(|(_, w)| worse(best(f, &["strike", "haymaker"], w)));
            let shot = gun_on(world, me, f, cell).map(|w| worse(best(f, &["shoot"], w)));
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
        // 002 §Ready: it readied the action for this; it takes it.
        Asking::Readied { by } => {
            let Some((action, weapon)) = super::orders::readied_action(world, me) else {
                return Vec::new();
            };
            let (p, m) = expected(world, me, by, action, weapon);
            vec![
                Appraisal {
                    damage: p * m,
                    target_left: stun_left(world, by),
                    ..Appraisal::plain(Order::new(&name, action).target(flow.name(by)))
                },
                Appraisal::plain(Order::new(&name, "pass")),
            ]
        }
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
/// abort is judged by what Dodge (+3 DCV, once the abort has ended the
/// manoeuvres in effect) spares of the attack coming:
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
    let dodged = (p - chance_3d6_at_least(base + super::turn::dcv_dodging(world, me) - o)) * mean;
    // The abort ends a Block standing (ruling dodge): the melee blow it
    // would stop, judged by this attack's odds, is lost with it.
    let blocking = world.get::<Guard>(me).is_some_and(|g| g.block);
    let block_lost = if blocking {
        block_chance(world, me, o) * mean
    } else {
        0.0
    };
    let cost = strike_value(world, me, attacker, "strike") + block_lost;
    let worth = dodged * 2.0 - cost;
    let knockout = mean >= stun_left(world, me) * KNOCKOUT_SHARE;
    if !(knockout && !flow.acted(me) && worth > 0.0) {
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
    /// Where each foe stands.
    cells: Vec<Option<Cell>>,
    /// Those on their feet who are not `me`'s foes, `me` too.
    allies_up: usize,
    /// [`opportunists`], once asked: one list for every walk weighed.
    opportunists: OnceCell<Vec<Opportunist>>,
    /// [`readied_foes`], once asked.
    readied: OnceCell<Vec<(Cell, u32, f32)>>,
    /// [`acts_first`] of each foe, once asked.
    first: OnceCell<Vec<Option<bool>>>,
    /// The combatants' sheets read so far: [`sheet`].
    sheets: RefCell<Vec<(Entity, Sheet)>>,
}

/// What a combatant brings to a strike, given or taken (002 §Attack Roll).
#[derive(Clone, Copy)]
struct Sheet {
    /// OCV of a strike.
    ocv: i32,
    dcv: i32,
    pd: f32,
    /// Whether it has a melee weapon, and that weapon's mean damage if the
    /// ruleset lists it.
    blow: Option<Option<f32>>,
}

/// `e`'s [`Sheet`], read once a decision.
fn sheet(t: &Turn, e: Entity) -> Sheet {
    let known = t.sheets.borrow().iter().find(|k| k.0 == e).map(|k| k.1);
    known.unwrap_or_else(|| {
        let world = t.world;
        let sheet = Sheet {
            ocv: ocv(world, e, "strike"),
            dcv: dcv(world, e),
            pd: world.get::<Stats>(e).map_or(0, |s| s.pd) as f32,
            blow: melee_weapon(world, e)
                .map(|(_, w)| t.data.weapons.get(w).map(|d| d.damage.mean())),
        };
        t.sheets.borrow_mut().push((e, sheet));
        sheet
    })
}

/// [`strike_value`] of `a`'s strike on `target`, from their sheets.
fn strike(t: &Turn, a: Entity, target: Entity) -> f32 {
    let (sa, st) = (sheet(t, a), sheet(t, target));
    let v = sa.blow.map_or(0.0, |mean| {
        let p = chance_3d6_at_least(t.data.numbers.attack_base + st.dcv - sa.ocv);
        let m = mean.map_or(0.0, |mean| (mean - st.pd).max(0.0));
        p * m
    });
    debug_assert_eq!(
        v.to_bits(),
        strike_value(t.world, a, target, "strike").to_bits()
    );
    v
}

/// The rules' plan for `order` if they would take it now.
fn can(t: &Turn, order: &Order) -> Option<Plan> {
    validate(t.world, t.me, order).ok()
}

/// Whether foe `i` of `t.foes` is within `me`'s melee reach ([`in_reach`]).
fn reaches(t: &Turn, i: usize) -> bool {
    let within =
        t.cells[i].is_some_and(|fc| fc != t.here && t.grid.distance(t.here, fc) <= t.stats.reach);
    debug_assert_eq!(within, in_reach(t.world, t.me, t.foes[i]));
    within
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
    let side = world.get::<Side>(me);
    let (mut foes, mut allies_up) = (Vec::new(), 0);
    for &e in &flow.order {
        if !up(world, e) {
            continue;
        }
        // As `enemies` has it: on two sides.
        match (side, world.get::<Side>(e)) {
            (Some(a), Some(b)) if a != b => foes.push(e),
            _ => allies_up += 1,
        }
    }
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
        cells: foes
            .iter()
            .map(|&f| world.get::<Cell>(f).copied())
            .collect(),
        foes,
        allies_up,
        opportunists: OnceCell::new(),
        readied: OnceCell::new(),
        first: OnceCell::new(),
        sheets: RefCell::new(Vec::new()),
    };
    let here_exposure = exposure(&t, here);
    attacks(&t, &mut out);
    reload(&t, &mut out);
    let ranged = shooter(world, data, me);
    moves(&t, here_exposure, ranged, &mut out);
    let in_reach_now = (0..t.foes.len()).any(|i| reaches(&t, i));
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
    for (i, &f) in t.foes.iter().enumerate() {
        let n = t.flow.name(f);
        if reaches(t, i) {
            for m in ["strike", "haymaker"] {
                let order = Order::new(name, m).target(n);
                if can(t, &order).is_none() {
                    continue;
                }
                let risk = if m == "haymaker" {
                    haymaker_exposure(world, me, here, &t.foes)
                } else {
                    0.0
                };
                out.push(Appraisal {
                    damage: if m == "strike" {
                        strike(t, me, f)
                    } else {
                        strike_value(world, me, f, m)
                    },
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
        let order = Order::new(name, "shoot").target(n);
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
    if let Some(kit) = t.world.get::<Kit>(t.me)
        && kit
            .shots
            .iter()
            .zip(&kit.weapons)
            .any(|(s, w)| *s == 0 && t.data.weapons.get(w).is_some_and(|d| d.shots > 0))
        && can(t, &reload).is_some()
    {
        let risk = walk_risk(t, &[t.here])
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
                mine: strike(t, me, f),
                left: stun_left(world, f),
                theirs: if world.get::<Stunned>(f).is_some() {
                    0.0
                } else {
                    strike(t, f, me)
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
    let this_phase = !(flow.acted(f) || flow.phase == 0 && world.get::<Unaware>(f).is_some());
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

/// [`acts_first`] of foe `f`, reckoned once a decision for every foe.
fn first(t: &Turn, f: Entity) -> Option<bool> {
    let all = t.first.get_or_init(|| {
        t.foes
            .iter()
            .map(|&f| acts_first(t.world, t.me, f))
            .collect()
    });
    match t.foes.iter().position(|&x| x == f) {
        Some(i) => all[i],
        None => acts_first(t.world, t.me, f),
    }
}

/// 002 §Normal Phase · §1-Hex Step: how much farther than its reach foe `f`
/// can strike before `me` acts again: a half move and a strike, or in a
/// restricted phase the 1-hex step and a strike (002 §Restricted Phase).
fn lunge(t: &Turn, f: Entity, s: &Stats) -> u32 {
    match first(t, f) {
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
    let (world, me, here, grid, flow) = (t.world, t.me, t.here, t.grid, t.flow);
    let unused = Use::default();
    let used = world.get::<Use>(me).unwrap_or(&unused);
    let budget = movement_left(world, me);
    let step_open = step_refusal(world, me).is_none();
    let taken = orders::occupied(world, me);
    // In the cells' order.
    let cells = grid.reachable(here, budget.max(u32::from(step_open)), |c| {
        taken.contains(&c)
    });
    let foe_cells: Vec<Cell> = t.cells.iter().flatten().copied().collect();
    let info = foe_info(t);
    // One whom a foe's first blow could knock out: that blow would be its
    // last.
    let fragile = info
        .iter()
        .any(|f| f.theirs >= stun_left(world, me) * KNOCKOUT_SHARE);
    let ground = Ground {
        here_exposure,
        ranged,
        attack_left: !used.attack
            && !used.full_phase
            && used.actions < if flow.restricted { 1 } else { 2 },
        actions: used.actions,
        step_open,
        half: orders::half_move(t.stats),
        // A readied character waits for its foes rather than walk up to them.
        waiting: matches!(world.get::<Hold>(me), Some(Hold::Readied { .. })),
        // Outnumbering the foes on their feet, it walks up all the same: the
        // first blow is theirs, the next blows its side's. So it does in a
        // standoff, which waiting longer would not break; not one fragile.
        press: (t.allies_up > t.foes.len() || impasse(t)) && !fragile,
        before: nearest(t, &foe_cells, here),
        info,
        foe_cells,
    };
    // First a cheap appraisal of every hex (no path, no risk), then the few
    // best of each kind are checked by the rules and priced for the risk of
    // the way there.
    let mut strikes: Vec<Hex> = Vec::new();
    let mut closes: Vec<Hex> = Vec::new();
    for (cell, cost) in cells {
        if cell == here {
            continue;
        }
        match weigh(t, &ground, cell, cost) {
            (hex, true) => strikes.push(hex),
            (hex, false) => closes.push(hex),
        }
    }
    out.extend(best(t, &strikes));
    out.extend(best(t, &closes));
}

/// What [`moves`] reckons once for every hex.
struct Ground {
    /// Expected STUN from the foes who reach `me` where it stands.
    here_exposure: f32,
    /// `me` would rather shoot than strike.
    ranged: bool,
    /// An attack action is left this phase.
    attack_left: bool,
    /// Actions taken this phase.
    actions: u8,
    /// The 1-hex step is open.
    step_open: bool,
    /// Half of `me`'s movement.
    half: u32,
    /// `me` holds a readied action.
    waiting: bool,
    /// `me` walks up all the same: its side outnumbers the foes, or the
    /// fight stands off.
    press: bool,
    /// Hexes from where `me` stands to the nearest foe.
    before: f32,
    info: Vec<FoeInfo>,
    foe_cells: Vec<Cell>,
}

/// A hex [`moves`] weighs, appraised cheaply (no path, no risk): the order
/// to go there is made only for the few best.
#[derive(Clone, Copy)]
struct Hex {
    cell: Cell,
    /// The movement it costs to get there.
    cost: u32,
    /// Reached by the 1-hex step, else by a move.
    step: bool,
    damage: f32,
    target_left: f32,
    other: f32,
    closing: f32,
}

impl Hex {
    /// The order to go there for `name`, appraised as the hex is.
    fn appraisal(&self, name: &str) -> Appraisal {
        let action = if self.step { "step" } else { "move" };
        Appraisal {
            damage: self.damage,
            target_left: self.target_left,
            other: self.other,
            closing: self.closing,
            ..Appraisal::plain(Order::new(name, action).cell(self.cell))
        }
    }

    /// How the basic AI ranks its cheap appraisal ([`Appraisal::score`]).
    fn score(&self) -> f32 {
        Appraisal {
            damage: self.damage,
            target_left: self.target_left,
            other: self.other,
            closing: self.closing,
            ..Appraisal::plain(Order::default())
        }
        .score()
    }
}

/// 002 §Moving Out · 002 §1-Hex Step: the cheap appraisal of going to
/// `cell` at `cost`, and whether it is to strike from there (else to close).
fn weigh(t: &Turn, g: &Ground, cell: Cell, cost: u32) -> (Hex, bool) {
    let (grid, stats, flow) = (t.grid, t.stats, t.flow);
    let step = g.step_open && cost == 1 && grid.distance(t.here, cell) == 1;
    let attack_after =
        g.attack_left && (step || (cost <= g.half && !flow.restricted && g.actions == 0));
    let strike_there = g
        .info
        .iter()
        .filter(|f| grid.distance(cell, f.cell) <= stats.reach)
        .map(|f| (f.mine, f.left))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let closing = g.before - nearest(t, &g.foe_cells, cell);
    let mut hex = Hex {
        cell,
        cost,
        step,
        damage: 0.0,
        target_left: 0.0,
        other: 0.0,
        closing: if g.ranged { -closing } else { closing },
    };
    match strike_there {
        Some((value, left)) if attack_after && !g.ranged => {
            let exposure_there = exposure_among(&g.info, grid, cell);
            hex.damage = value * 0.9;
            hex.target_left = left;
            // Where fewer foes reach back is better.
            hex.other = -(exposure_there - g.here_exposure).max(0.0) * 0.2;
            (hex, true)
        }
        _ => {
            // Stopping where a foe who acts before my next action can step or
            // walk up and strike invites the first blow: better to wait
            // beyond and strike first when it comes.
            let first_blow = if g.press {
                0.0
            } else {
                first_blow_among(&g.info, grid, cell)
            };
            if step && g.here_exposure > 0.0 {
                // Stepping out of reach is worth what it spares.
                hex.other = (g.here_exposure - first_blow) * 0.5;
            } else {
                hex.other = -first_blow * 0.5;
            }
            if g.waiting {
                hex.closing = 0.0;
            }
            (hex, false)
        }
    }
}

/// The share of `me`'s STUN left a foe's expected blow must reach for that
/// blow to be taken as one that could knock it out (as the abort weighs).
const KNOCKOUT_SHARE: f32 = 0.8;

/// Phases in a row without an attack after which holding back is a
/// standoff nobody breaks: a whole turn.
const STANDOFF_PHASES: u32 = 4;

/// Whether the fight stands off: nobody has attacked for a whole turn, so
/// waiting for the foes to come has gained nothing.
fn impasse(t: &Turn) -> bool {
    t.flow.quiet_phases >= STANDOFF_PHASES
}

/// How much of the readied strikes on a way counts against it: all of
/// them, but none in a standoff ([`impasse`]), where a foe who readies
/// phase after phase would otherwise hold the field to the turn cap, and
/// somebody must walk into the strike to fight on.
fn standing_off(t: &Turn) -> f32 {
    if impasse(t) { 0.0 } else { 1.0 }
}

/// 002 §Moving Out: of the four best hexes by their cheap appraisal, the
/// best priced for the attacks of opportunity on the way.
fn best(t: &Turn, list: &[Hex]) -> Option<Appraisal> {
    let mut chosen: Option<Appraisal> = None;
    for i in first_best::<4>(list.iter().map(Hex::score)) {
        let hex = list[i];
        // The risk of the way only lowers a score, and the rest score no
        // more than this one cheaply: none of them can beat the best now.
        if chosen
            .as_ref()
            .is_some_and(|c| c.score().total_cmp(&hex.score()).is_gt())
        {
            break;
        }
        let mut a = hex.appraisal(t.name);
        if out_of_harm(t, hex.cost) {
            // No strike can fall on the way, whichever way it is: none is
            // looked for.
            debug_assert!(way(t, &hex, &a.order).is_some());
            a.risk += standing_off(t) * readied_risk(t, &[]);
        } else {
            let Some(path) = way(t, &hex, &a.order) else {
                continue;
            };
            if !hex.step {
                a.risk = walk_risk(t, &path);
            }
            a.risk += standing_off(t) * readied_risk(t, &path);
        }
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

/// 002 §Moving Out · §Ready Conditions: whether every foe who could take an
/// attack of opportunity on `me`, or has a strike readied for whoever comes
/// within its reach, stands farther from `me` than its reach and `cost`:
/// then no walk of that cost comes within its reach.
fn out_of_harm(t: &Turn, cost: u32) -> bool {
    let far = |c: Cell, reach: u32| t.grid.distance(c, t.here) > reach.saturating_add(cost);
    t.opportunists
        .get_or_init(|| opportunists(t))
        .iter()
        .all(|o| far(o.cell, o.reach))
        && t.readied
            .get_or_init(|| readied_foes(t))
            .iter()
            .all(|&(c, reach, _)| far(c, reach))
}

/// 002 §1-Hex Step · §Normal Phase: the way the rules take to `hex` for
/// `order` ([`validate`]): the step itself, or the rules' route (ruling
/// `route`). Every hex [`moves`] reaches within the
/// movement left is one the rules take `me` to.
fn way(t: &Turn, hex: &Hex, order: &Order) -> Option<Vec<Cell>> {
    let path = if hex.step {
        Some(vec![hex.cell])
    } else {
        super::orders::path_to(t.world, t.me, hex.cell).map(|(path, _)| path)
    };
    debug_assert_eq!(
        path.as_ref(),
        match &can(t, order) {
            Some(Plan::Move { path, how, .. }) if (*how == super::MoveHow::Step) == hex.step =>
                Some(path),
            _ => None,
        },
        "the way to {} is the rules' own",
        hex.cell
    );
    path
}

/// 002 §Ready · §Ready Conditions: a strike readied for whoever comes
/// within reach goes off just before the blow of a foe who must come within
/// that reach to strike (its reach no longer), and the readier acts ahead of
/// it from then on. Readied for a foe close enough to walk half its move and
/// strike before `me` acts again, worth half the strike (the foe may hold
/// back, and the readied strike lapse unused), and a little more when that
/// foe acts ahead of `me`. Not while a foe of longer reach can strike `me`
/// first, not for a foe readied itself who acts after `me` (its readied
/// action holds it until then), and not in a standoff ([`impasse`]), where
/// nobody comes.
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
            first(t, f).is_some()
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
    // A foe readied itself waits to be come to until its next action
    // (002 §Initiative Consequences of Readying): one that acts after `me`
    // will not come before `me` acts again.
    let waits = |f: Entity| {
        matches!(world.get::<Hold>(f), Some(Hold::Readied { .. })) && place(f) > place(me)
    };
    let coming = lunging(false)
        .filter(|&f| !waits(f))
        .map(|f| {
            let v = strike(t, me, f);
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
            block_chance(world, me, o) * strike(t, f, me)
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
        // 002 §Restricted Phase · ruling `split_full_phase`: the rules take
        // a whole Recovery only in a normal phase, its start only in a
        // restricted one, and its completion only once started.
        let started = world.get::<RecoveryStarted>(t.me).is_some();
        let open = [!t.flow.restricted, t.flow.restricted, started];
        for (action, open) in ["recover", "start_recovery", "complete_recovery"]
            .into_iter()
            .zip(open)
        {
            let order = Order::new(t.name, action);
            if open && can(t, &order).is_some() {
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
