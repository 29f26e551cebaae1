//! The `declared` ruleset's appraisal of the orders open to a creature, for
//! the basic AI (`fray_core::ai`).
//!
//! Attacks are worth their chance to hit (d20 + attack against Defense, ruling
//! `attack_roll`) times the mean damage past Armour, for every target the
//! creature can reach this round. Walking into an enemy's threat range with a
//! plain attack risks its riposte (ruling `riposte`), the target's and that
//! of every foe whose range lies across the way; the Defensive Attack avoids
//! them for +1 initiative. Full defense is worth what its +4 Defense spares
//! against the foes likely to strike, the more the nearer those blows come
//! to taking the creature out, and a riposte; against a foe who attacked it
//! last round and still reaches it, likely to again, it is worth the
//! riposte and what the +4 spares. A badly hurt creature values a
//! draught; a healer values stabilising a fallen ally; a caster values
//! mending an ally's Stress; a creature that is down values only its blows
//! and spells at a foe within its reduced reach, each less the Wound Point
//! it costs (none for a Stabilised one's first), and nothing that would
//! kill it. Intimidating a
//! monster is worth what it has left, times how much likelier the
//! Intimidation makes it to fail its morale check and flee.

use std::cell::RefCell;
use std::rc::Rc;

use bevy_ecs::prelude::*;
use bevy_ecs::query::QueryItem;
use fray_core::ai::{AiHooks, Appraisal, STANDARD_SEARCH_WORK};
use fray_core::decision::{Order, SmolStr};
use fray_core::dice::DiceExpr;
use fray_core::grid::{Cell, Grid, GridGeometry};
use fray_core::model::{Combatant, Listed, ListedQuery, Side};
use fray_core::morale::{Census, Standing};
use fray_core::occupancy::{Occupancy, listed_near};

use super::data::{DeclaredData, Spell, SpellEffect, Weapon};
use super::{
    Data, Health, Hurts, Kit, Monster, RoundState, SawThrough, Stabilised, Stats, Stress,
    WoundPoints, validate,
};

pub const HOOKS: AiHooks = AiHooks {
    appraise,
    legal,
    // The unit the other rulesets' steps are weighed against, in thirds.
    step_work: 3,
    // Twice the futures won no more (docs/ai.md, "Searching more").
    search_work: STANDARD_SEARCH_WORK,
    cell_work: 0,
};

/// The same check the rules make when they take the order.
fn legal(world: &World, me: Entity, order: &Order) -> bool {
    if super::felled::is_asked(world, me) {
        return super::felled::validate(world, me, order).is_ok();
    }
    validate(world, me, order).is_ok()
}

/// Chance that d20 + `attack` meets `defense` (a natural 1 misses).
pub fn hit_chance(attack: i32, defense: i32) -> f32 {
    let need = (defense - attack).clamp(2, 21);
    (21 - need) as f32 / 20.0
}

struct Foe {
    e: Entity,
    name: SmolStr,
    cell: Cell,
    defense: i32,
    armour: i32,
    left: f32,
    /// Reach of its melee weapon (0: none) and the riposte it threatens.
    reach: u32,
    riposte: f32,
    /// Its attack bonus, and the mean damage of its melee hit on me.
    attack: i32,
    hit_on_me: f32,
    /// Its weapon may reach me, and nobody of my side is nearer it: I am
    /// likely the one it attacks.
    mine: bool,
    /// It attacked me last round, as revealed since (004 §Step 3).
    attacked_me: bool,
}

/// The creature deciding, as every appraisal of its orders reads it.
struct Me<'a> {
    e: Entity,
    /// Its name, and its weapons and spells as the data has them, each
    /// with its name: looked up once for all its orders.
    name: SmolStr,
    weapons: Vec<(&'a str, &'a Weapon)>,
    spells: Vec<(&'a str, &'a Spell)>,
    here: Cell,
    side: Side,
    stats: &'a Stats,
    kit: &'a Kit,
    data: &'a DeclaredData,
    grid: &'a Grid,
    /// Its Defense, and the Stress and Wound Points it has left.
    defense: i32,
    left: f32,
}

impl Me<'_> {
    /// An order of `action` for `me`.
    fn order(&self, action: &'static str) -> Order {
        Order::new(self.name.clone(), SmolStr::new_static(action))
    }
}

/// The orders worth considering for `me`, each appraised.
fn appraise(world: &World, me: Entity) -> Vec<Appraisal> {
    // Fallen since it declared: it carries its action out (ruling
    // felled_action).
    if let Some(order) = super::felled::ai_answer(world, me) {
        return vec![Appraisal::plain(order)];
    }
    // Room for what a creature facing a handful of foes is offered.
    let mut out = Vec::with_capacity(24);
    let Some((c, stats, kit, wp, stress, &here, &side, (hurts, round, health))) =
        fray_core::model::components::<(
            &Combatant,
            &Stats,
            &Kit,
            &WoundPoints,
            &Stress,
            &Cell,
            &Side,
            (Option<&Hurts>, Option<&RoundState>, Option<&Health>),
        )>(world, me)
    else {
        return out;
    };
    let data = &world.resource::<Data>().0;
    let m = Me {
        e: me,
        name: SmolStr::new(&c.name),
        weapons: resolved(&kit.weapons, &data.weapons),
        spells: resolved(&kit.spells, &data.spells),
        here,
        side,
        stats,
        kit,
        data,
        grid: world.resource::<Grid>(),
        defense: super::resolve::defense_of(data, Some(stats), hurts, round),
        left: (stress.current.max(0) + wp.current.max(0)) as f32,
    };
    let health = health.copied().unwrap_or(Health::Dead);
    let stabilised = world.get::<Stabilised>(me).is_some();
    let rounds_left = wp.current - 1 + super::resolve::strength_now(world, me);
    let kills = super::felled::strain_kills(world, me).is_some();
    let tended = health == Health::Dying && healer_fights(world, me, &side);
    let down = Down::of(health, stabilised, stats, (kills, rounds_left, tended));
    // Only the order the AI picks is checked (with `legal`): appraising is cheap.
    out.push(Appraisal::plain(m.order("wait")));
    consumables(&m, (health, down.as_ref()), wp, stress, &mut out);
    if health != Health::Fine {
        if let Some(down) = down {
            let still = Stats {
                speed: down.speed,
                ..stats.clone()
            };
            strike_while_down(world, &Me { stats: &still, ..m }, down.cost, &mut out);
        }
        return out;
    }
    let (foes, nearest) = survey(world, &m, &mut out);
    // Who fights on each side, and the odds of the morale check, reckoned
    // only once a monster is in sight.
    let mut morale = None;
    for foe in &foes {
        let dist = m.grid.distance(here, foe.cell);
        weapon_attacks(&m, foe, &foes, dist, nearest, &mut out);
        spell_attacks(&m, foe, dist, &mut out);
        intimidate(world, &m, foe, (&foes, dist), &mut morale, &mut out);
    }
    full_defense(&m, &foes, &mut out);
    advance(&m, &foes, &mut out);
    out
}

/// What a Wound Point costs a creature already down, in points of damage:
/// it no longer counts among those still fighting, so the point weighs on
/// its own life rather than on the battle, and counts for half.
const DOWN_ACTION_COST: f32 = 0.5;

/// What acting costs one down beyond [`DOWN_ACTION_COST`], shared over
/// the rounds it has left: an Incapacitated one's Wound Point leaves it
/// Dying, to lose one more each round until it dies unless someone
/// stabilises it; a Dying one's brings that death a round nearer, a round
/// fewer for a healer of its side to reach it (with none, it dies anyway).
const BECOMES_DYING: f32 = 6.0;

/// How a creature that is down may still act (004 §Wound Points): an
/// Incapacitated or Dying one acts from where it lies, each action costing
/// it a Wound Point (which leaves an Incapacitated one Dying, and a Dying
/// one "cannot both move and take an action"); a Stabilised one moves at
/// half its Speed and takes its first action of the round for nothing.
struct Down {
    speed: u32,
    cost: f32,
}

impl Down {
    /// `None` when it should only wait: dead, or one more Wound Point
    /// would kill it (`kills`). `rounds_left`: the rounds a Dying creature
    /// would bleed before it died, once it has paid the Wound Point;
    /// `tended`: a healer of its side still fights.
    fn of(
        health: Health,
        stabilised: bool,
        stats: &Stats,
        (kills, rounds_left, tended): (bool, i32, bool),
    ) -> Option<Self> {
        let cost = match health {
            Health::Fine | Health::Dead => return None,
            _ if stabilised => {
                return Some(Self {
                    speed: stats.speed / 2,
                    cost: 0.0,
                });
            }
            // Dying, it has as many rounds as Wound Points before minus
            // its Strength: the fewer, the dearer.
            Health::Incapacitated => DOWN_ACTION_COST + BECOMES_DYING / rounds_left.max(1) as f32,
            Health::Dying if tended => DOWN_ACTION_COST + BECOMES_DYING / rounds_left.max(1) as f32,
            Health::Dying => DOWN_ACTION_COST,
        };
        (!kills).then_some(Self { speed: 0, cost })
    }
}

/// Whether a healer of `side` other than `me` still fights (on its feet,
/// neither routed nor fled), who could stabilise `me` (a Heal of 3 or
/// more, as [`survey`] counts a healer).
fn healer_fights(world: &World, me: Entity, side: &Side) -> bool {
    super::roster(world).into_iter().any(|e| {
        e != me
            && world.get::<fray_core::model::Fighting>(e).is_some()
            && fray_core::model::components::<(&Side, &Stats, &Health)>(world, e)
                .is_some_and(|(s, st, h)| s == side && st.heal >= 3 && *h == Health::Fine)
    })
}

/// 004 §Wound Points: a creature down can still strike or cast at a foe
/// within its reduced reach, each blow worth what it deals less what the
/// action costs it.
fn strike_while_down(world: &World, m: &Me, cost: f32, out: &mut Vec<Appraisal>) {
    // Only its blows and spells: what the survey offers allies is dropped.
    let first = out.len();
    let (foes, _) = survey(world, m, out);
    out.truncate(first);
    for foe in &foes {
        let dist = m.grid.distance(m.here, foe.cell);
        // It barely moves: closing in is worth nothing to it (nearest 0).
        weapon_attacks(m, foe, &foes, dist, 0, out);
        spell_attacks(m, foe, dist, out);
    }
    for a in &mut out[first..] {
        a.other -= cost;
    }
}

/// The names in `names` that `table` holds, each with what it holds.
fn resolved<'a, T>(
    names: &'a [String],
    table: &'a std::collections::BTreeMap<String, T>,
) -> Vec<(&'a str, &'a T)> {
    names
        .iter()
        .filter_map(|n| table.get(n).map(|t| (n.as_str(), t)))
        .collect()
}

/// 004 §Step 3 · ruling `healing_items`: a consumable item is worth what it
/// heals, the more the worse `me` is hurt, less what drinking it costs one
/// down (004 §Wound Points): not taken when that Wound Point would kill.
fn consumables(
    m: &Me,
    (health, down): (Health, Option<&Down>),
    wp: &WoundPoints,
    stress: &Stress,
    out: &mut Vec<Appraisal>,
) {
    if health != Health::Fine && down.is_none() {
        return;
    }
    let cost = down.map_or(0.0, |d| d.cost);
    for item in &m.kit.items {
        let Some(it) = m.data.items.get(item) else {
            continue;
        };
        let hurt = if health != Health::Fine {
            3.0
        } else if stress.current == 0 && wp.current * 2 <= wp.max {
            1.0
        } else {
            0.0
        };
        out.push(Appraisal {
            other: hurt * it.heals.mean() - cost,
            ..Appraisal::plain(m.order("consumable").with(item))
        });
    }
}

/// How far `me` can strike this round: its longest reach, range (a thrown
/// weapon's too: 004 §Step 3, throw) or spell range, plus its Speed. Foes
/// beyond are worth no attack.
fn striking_distance(m: &Me) -> u32 {
    let weapons = m.weapons.iter().map(|(_, w)| w);
    let spells = m.spells.iter().map(|(_, s)| s);
    let far = weapons
        .map(|w| w.reach.max(w.range))
        .chain(spells.map(|s| s.range))
        .max()
        .unwrap_or(0);
    far + m.stats.speed
}

/// How many foes, allies or allies to help [`survey`] makes room for.
const ROOM: usize = 8;

/// 004 §Wound Points: stabilising a fallen ally `me` can reach is worth
/// offering a healer. Returned: the enemies still fighting that matter, in
/// roster order (those within striking distance, and the nearest, to
/// advance on), and how far the nearest of them all is.
fn survey(world: &World, m: &Me, out: &mut Vec<Appraisal>) -> (Vec<Foe>, u32) {
    // Room for a skirmish's worth of each, so that most never grow.
    let mut fighting = Vec::with_capacity(ROOM);
    let striking = striking_distance(m);
    // The cells of my side still fighting, mine among them, near enough to
    // be nearer than me to a foe whose weapon reaches me (none reaches
    // farther than the longest reach of any weapon).
    let mut ours = Vec::with_capacity(ROOM);
    let longest = m.data.longest_reach();
    let healer = m.stats.heal >= 3;
    let caster = !m.kit.spells.is_empty();
    let tending = m.stats.speed + 1;
    // Each with its place in the listing: what comes out in listing order
    // is put in it after.
    let mut helped = Vec::with_capacity(ROOM);
    let here = m.here;
    // Those near enough to matter; everyone, for a caster, who may help
    // any ally still fighting.
    let near = if caster {
        u32::MAX
    } else {
        (2 * striking).max(tending)
    };
    // The one `advance` would pick among all the foes fighting, with its
    // key: the best of those looked at, which is all of them after a look
    // over everyone; else found outward in the grid index.
    let mut ahead = None;
    let looked = ListedQuery::look(world, |everyone| {
        let consider = |(e, k, s, &cell, is_fighting): QueryItem<Listed>| {
            let far = m.grid.distance(here, cell);
            if *s != m.side {
                if is_fighting {
                    let key = (far, (straightness(here, cell), k.listing));
                    if ahead.is_none_or(|(best, _, _)| key < best) {
                        ahead = Some((key, e, cell));
                    }
                }
                if is_fighting && far <= striking {
                    fighting.push((k.listing, e, cell));
                }
                return;
            }
            if is_fighting && far <= 2 * longest {
                ours.push(cell);
            }
            let tend = healer && far <= tending;
            if tend || (caster && is_fighting) {
                helped.push((k.listing, e, cell, (tend, caster && is_fighting)));
            }
        };
        let everyone_looked_at = listed_near(world, everyone, here, near, consider);
        if let Some(index) = world.get_resource::<Occupancy>()
            && !everyone_looked_at
        {
            ahead = foe_ahead(world, everyone, index, m);
        }
    });
    if looked.is_none() {
        return (Vec::new(), 0);
    }
    // The nearest is the one ahead, whose distance comes first in its key.
    let nearest = ahead.map(|((far, _), _, _)| far);
    if let Some(((far, (_, listing)), e, cell)) = ahead
        && far > striking
    {
        fighting.push((listing, e, cell));
    }
    fighting.sort_unstable_by_key(|f| f.0);
    let foes = FoeQuery::look(world, |looks| {
        fighting
            .into_iter()
            .filter_map(|(_, e, c)| {
                // Nobody of my side is nearer it than me: I am the one it
                // goes for. Weighed only for a foe near enough for its
                // weapon to reach me, the only one it matters for.
                let from_me = m.grid.distance(here, c);
                let mine =
                    from_me <= longest && ours.iter().all(|&o| m.grid.distance(o, c) >= from_me);
                foe(m, looks.get_manual(world, e).ok()?, e, mine)
            })
            .collect::<Vec<Foe>>()
    })
    .unwrap_or_default();
    helped.sort_unstable_by_key(|h| h.0);
    for (_, e, cell, how) in helped {
        ally(world, m, (e, cell), &foes, how, out);
    }
    (foes, nearest.unwrap_or(0))
}

/// How far `c` lies from straight ahead of `here`: among foes as near, the
/// one `advance` goes for is the straightest ahead.
fn straightness(here: Cell, c: Cell) -> i32 {
    (c.x - here.x).abs() + (c.y - here.y).abs()
}

/// The foe `advance` would pick among all those fighting: the nearest, the
/// straightest ahead of those, the first listed of those; with its key.
/// Looked for outward from `m` in the grid index.
fn foe_ahead(
    world: &World,
    everyone: &QueryState<Listed>,
    index: &Occupancy,
    m: &Me,
) -> Option<((u32, (i32, u32)), Entity, Cell)> {
    let here = m.here;
    index.first_near(here, |e, _| {
        let (_, k, s, &cell, is_fighting) = everyone.get_manual(world, e).ok()?;
        (*s != m.side && is_fighting).then(|| {
            (
                m.grid.distance(here, cell),
                (straightness(here, cell), k.listing),
            )
        })
    })
}

/// 004 §Wound Points, §Spells: what `m` can do for ally `e` at `cell`:
/// stabilise it if it is fallen (`tend`: `m` is a healer near enough),
/// worth the chance of the Heal check against TN 10 + its worst wound times
/// what it saves; mend its Stress (`mend`: `m` is a caster and `e` still
/// fights). Either at the risk of the ripostes of the `foes` whose threat
/// ranges the walk there crosses (ruling `riposte`).
fn ally(
    world: &World,
    m: &Me,
    (e, cell): (Entity, Cell),
    foes: &[Foe],
    (tend, mend_it): (bool, bool),
    out: &mut Vec<Appraisal>,
) {
    let Ok(er) = world.get_entity(e) else {
        return;
    };
    let Some(k) = er.get::<Combatant>() else {
        return;
    };
    // One at a time: `Stabilised` is unknown to the world until someone
    // has been stabilised, and a query naming it would find nobody.
    let (health, stabilised, stress) = (
        er.get::<Health>(),
        er.contains::<Stabilised>(),
        er.get::<Stress>(),
    );
    let fallen = matches!(health, Some(Health::Dying | Health::Incapacitated)) && !stabilised;
    if tend && fallen {
        let (tn, _) = super::resolve::stabilise_tn(world, m.data, e);
        let p = check_chance(m.data, m.stats.heal, tn);
        let dist = m.grid.distance(m.here, cell);
        let risk = crossing_risk(m, cell, foes, dist, 1);
        let saved = if health == Some(&Health::Dying) {
            // The fewer rounds it has before it dies, the fewer tries are
            // left to save it: the more this one is worth.
            let wp = er.get::<WoundPoints>();
            let rounds = wp.map_or(0, |w| w.current) + super::resolve::strength_now(world, e);
            // Reached without a riposte on the way, a life weighs its
            // size; through foes' reach, no more than the least, the
            // healer's own being at stake too.
            let whole = wp.map_or(0, |w| w.max) + stress.map_or(0, |s| s.max);
            let life = if risk > 0.0 {
                STABILISE_DYING
            } else {
                STABILISE_DYING.max(whole as f32)
            };
            life * (1.0 + STABILISE_URGENCY / rounds.max(1) as f32)
        } else {
            STABILISE_INCAPACITATED
        };
        out.push(Appraisal {
            other: p * saved,
            risk,
            ..Appraisal::plain(m.order("stabilise").target(&k.name))
        });
    }
    if mend_it && let Some(stress) = stress {
        mend(m, (&k.name, cell), foes, stress, out);
    }
}

/// The chance that a plain check (its die set with the rulings' numbers) +
/// `bonus` reaches `tn`; for a die too large to count, as an attack roll's.
fn check_chance(data: &DeclaredData, bonus: i32, tn: i32) -> f32 {
    let die = super::check_die(data);
    let Some(odds) = die.odds() else {
        return hit_chance(bonus, tn);
    };
    let reaching = (die.min()..).zip(odds).filter(|(t, _)| t + bonus >= tn);
    reaching.map(|(_, p)| p).sum::<f64>() as f32
}

/// 004 §Wound Points: what stabilising a Dying ally is worth, who loses a
/// Wound Point each round until it dies at minus its Strength: a life, as
/// much as felling a creature of its size (its Stress and Wound Points in
/// full) where the healer reaches it provoking no riposte, and never less
/// than this; and one merely Incapacitated, who
/// loses nothing while it keeps still. Worth it try by try: tending it
/// every round from now saves it as surely as a try does, round for round,
/// so a life at a try's odds outweighing a blow is tended at once rather
/// than once, in its last round.
const STABILISE_DYING: f32 = 10.0;
/// How much more stabilising a Dying ally is worth as its death nears: with
/// one round left, this many times [`STABILISE_DYING`] more.
const STABILISE_URGENCY: f32 = 3.0;
const STABILISE_INCAPACITATED: f32 = 1.0;

/// What the AI reads of a foe: all of it in one lookup.
type Foeing = (
    &'static Combatant,
    &'static Cell,
    &'static Stats,
    &'static Stress,
    &'static WoundPoints,
    &'static Kit,
    Option<&'static Hurts>,
    Option<&'static RoundState>,
);

/// The query the appraisal of a creature's foes keeps with the world.
pub type FoeQuery = fray_core::model::KeptQuery<Foeing>;

/// What `m` weighs of foe `e`, read as `looked`, who is likely to go for
/// `m` when `mine`.
fn foe(m: &Me, looked: QueryItem<Foeing>, e: Entity, mine: bool) -> Option<Foe> {
    let (k, &cell, st, sr, w, kt, hurts, round) = looked;
    let melee = kt
        .weapons
        .iter()
        .filter_map(|w| m.data.weapons.get(w))
        .filter(|w| w.reach > 0)
        .max_by_key(|w| w.reach);
    let hit_on_me = melee.map_or(0.0, |w| {
        (w.damage.mean() + st.strength_mod as f32 - m.stats.armour as f32).max(0.0)
    });
    let riposte = hit_chance(st.attack, m.defense) * hit_on_me;
    Some(Foe {
        e,
        name: SmolStr::new(&k.name),
        cell,
        defense: super::resolve::defense_of(m.data, Some(st), hurts, round),
        armour: st.armour,
        left: (sr.current.max(0) + w.current.max(0)) as f32,
        reach: melee.map_or(0, |w| w.reach),
        riposte,
        attack: st.attack,
        hit_on_me,
        mine,
        attacked_me: round.is_some_and(|r| r.attacked_last_round == Some(m.e)),
    })
}

/// Ruling `riposte`: the ripostes a plain walk from `m` to within `reach` of
/// the cell `to`, `dist` away, would provoke. The foe's there, when its
/// threat range reaches as far as `reach`; and every other foe's whose
/// threat range lies across the way: near the straight line to `to`, within
/// reach of the walk, and not reaching `m` already.
fn crossing_risk(m: &Me, to: Cell, foes: &[Foe], dist: u32, reach: u32) -> f32 {
    if dist <= reach {
        return 0.0;
    }
    let walk = (dist - reach).min(m.stats.speed);
    let grid = m.grid;
    foes.iter()
        .filter(|g| g.reach > 0)
        .filter(|g| {
            // Two creatures fighting never share a cell.
            if g.cell == to {
                return g.reach >= reach;
            }
            let to_g = grid.distance(m.here, g.cell);
            to_g > g.reach
                && to_g <= walk + g.reach
                && to_g + grid.distance(g.cell, to) <= dist + 2 * g.reach
        })
        .map(|g| g.riposte)
        .sum()
}

/// Ruling `attack_roll` · ruling `riposte`: attacking `foe` with each weapon
/// that reaches it this round — plainly, or defensively when closing in
/// would provoke ripostes — and throwing what can be thrown.
fn weapon_attacks(
    m: &Me,
    foe: &Foe,
    foes: &[Foe],
    dist: u32,
    nearest: u32,
    out: &mut Vec<Appraisal>,
) {
    for (i, &(w, wd)) in m.weapons.iter().enumerate() {
        strike(m, foe, foes, (w, wd), (dist, nearest), out);
        if wd.thrown {
            throw(m, foe, foes, (i, dist), out);
        }
    }
}

/// Ruling `attack_roll` · ruling `riposte`: striking `foe`, `dist` away,
/// with weapon `w` when its reach (or range, shot) is within a walk.
fn strike(
    m: &Me,
    foe: &Foe,
    foes: &[Foe],
    (w, wd): (&str, &Weapon),
    (dist, nearest): (u32, u32),
    out: &mut Vec<Appraisal>,
) {
    let stats = m.stats;
    let shot = wd.reach == 0;
    let reach = if shot { wd.range } else { wd.reach };
    if dist > reach + stats.speed {
        return;
    }
    let bonus = if shot { 0 } else { stats.strength_mod };
    let mean = (wd.damage.mean() + bonus as f32 - foe.armour as f32).max(0.0);
    let damage = hit_chance(stats.attack, foe.defense) * mean;
    let closing = nearest as f32 - dist.saturating_sub(reach).min(dist) as f32;
    let attack = Appraisal {
        damage,
        target_left: foe.left,
        closing,
        ..Appraisal::plain(m.order("attack").target(foe.name.clone()).with(w))
    };
    // Entering threat ranges on the way provokes ripostes; attacking
    // defensively does not, for +1 initiative.
    let risk = crossing_risk(m, foe.cell, foes, dist, reach);
    if risk > 0.0 {
        out.push(Appraisal {
            risk,
            ..attack.clone()
        });
        out.push(Appraisal {
            other: -0.1,
            order: m.order("defensive_attack").target(foe.name.clone()).with(w),
            ..attack
        });
    } else {
        out.push(attack);
    }
}

/// The share of a throw's worth kept once the weapon is gone (004 §Step 3,
/// throw: the thrower no longer carries it): the same blow struck in reach
/// keeps the weapon, and is worth more.
const THROWN_AWAY: f32 = 0.9;

/// 004 §Step 3, throw · ruling `damage_bonus`: throwing the `i`-th weapon at
/// `foe`, `dist` away, beyond the weapon's reach and within a walk of its
/// range (the thrower closes to its range first, provoking ripostes on the
/// way). Worth a weapon's blow, a little less for the weapon spent; not
/// offered when it would leave `m` nothing to strike with.
fn throw(m: &Me, foe: &Foe, foes: &[Foe], (i, dist): (usize, u32), out: &mut Vec<Appraisal>) {
    let (w, wd) = m.weapons[i];
    if dist <= wd.reach || dist > wd.range + m.stats.speed {
        return;
    }
    let keeps = m.weapons.len() > 1
        || m.spells
            .iter()
            .any(|(_, s)| matches!(s.effect, SpellEffect::Damage(..)));
    if !keeps {
        return;
    }
    let mean = (wd.damage.mean() + m.stats.strength_mod as f32 - foe.armour as f32).max(0.0);
    out.push(Appraisal {
        damage: THROWN_AWAY * hit_chance(m.stats.attack, foe.defense) * mean,
        target_left: foe.left,
        risk: crossing_risk(m, foe.cell, foes, dist, wd.range),
        closing: dist.saturating_sub(wd.range).min(m.stats.speed) as f32,
        ..Appraisal::plain(m.order("throw").target(foe.name.clone()).with(w))
    });
}

/// Ruling `spell_attack`: each damaging spell that reaches `foe` this round,
/// worth its chance to beat both TN and Defense times its mean damage.
fn spell_attacks(m: &Me, foe: &Foe, dist: u32, out: &mut Vec<Appraisal>) {
    for (s, spell) in &m.spells {
        if let SpellEffect::Damage(dice, _) = spell.effect
            && dist <= spell.range + m.stats.speed
        {
            let p = hit_chance(m.stats.casting, spell.tn.max(foe.defense));
            out.push(Appraisal {
                damage: 1.05 * p * (dice.mean() - foe.armour as f32).max(0.0),
                target_left: foe.left,
                ..Appraisal::plain(m.order("cast").target(foe.name.clone()).with(*s))
            });
        }
    }
}

/// Ruling `spell_casting`: a spell that restores Stress, cast on an ally
/// still fighting (or on itself) it can reach this round, worth its chance
/// to go off times the Stress it would give back: harm undone, as much as
/// harm dealt.
fn mend(m: &Me, (ally, at): (&str, Cell), foes: &[Foe], stress: &Stress, out: &mut Vec<Appraisal>) {
    let missing = (stress.max - stress.current.max(0)).max(0) as f32;
    if missing <= 0.0 {
        return;
    }
    let dist = m.grid.distance(m.here, at);
    for (s, spell) in &m.spells {
        if let SpellEffect::RestoreStress(dice) = spell.effect
            && dist <= spell.range + m.stats.speed
        {
            let p = hit_chance(m.stats.casting, spell.tn);
            out.push(Appraisal {
                other: p * dice.mean().min(missing),
                risk: crossing_risk(m, at, foes, dist, spell.range),
                ..Appraisal::plain(m.order("cast").target(ally).with(*s))
            });
        }
    }
}

/// The share of what `m` has left that the blows likely to come this round
/// must threaten before full defense is weighed: below it, a fighter strikes
/// rather than wait to be struck, so that two of them never stand in full
/// defense facing each other, nor one before a foe who does not attack.
const FULL_DEFENSE_DANGER: f32 = 0.4;

/// How surely a foe who attacked `m` last round, and still reaches it,
/// attacks it again this round, as full defense counts it. Between basic
/// AIs such a foe attacks the same creature again about four times in
/// five, yet counted as certain the side that does so wins more, seat for
/// seat, than counting four in five (`docs/ai.md` has the figures): its
/// riposte lands at the foe's count, before the foe's blow and its own,
/// and the +4 stands against every foe, which the appraisal leaves out.
/// Two who take full defense against each other attack again the round
/// after, when neither attacked the other.
const ATTACKS_AGAIN: f32 = 1.0;

/// 004 §Step 3 Full-Defense · ruling `riposte`: +4 Defense against the foes
/// likely to strike `m` this round (those that already reach it, with
/// nobody of its side nearer them), and a riposte on the first who does.
/// Worth what the Defense spares, the more the closer those blows come to
/// taking `m` out, and the rest of its fight where one hit would fell it,
/// and half a strike back (the foe may not attack after all); or, against
/// foes who attacked `m` last round and still reach it, counted on to
/// attack again, the strike back and what the Defense spares, the rest of
/// its fight too where one hit would fell it. A strike back is weighed as
/// a blow is, more where it could finish the foe.
fn full_defense(m: &Me, foes: &[Foe], out: &mut Vec<Appraisal>) {
    let reaching = |g: &&Foe| g.reach > 0 && m.grid.distance(m.here, g.cell) <= g.reach;
    let coming: Vec<&Foe> = foes.iter().filter(reaching).filter(|g| g.mine).collect();
    let again: Vec<&Foe> = foes
        .iter()
        .filter(reaching)
        .filter(|g| g.attacked_me)
        .collect();
    let incoming: f32 = coming.iter().map(|g| g.riposte).sum();
    let danger = (incoming / m.left.max(1.0)).min(1.0);
    let mut worth = None;
    if danger >= FULL_DEFENSE_DANGER {
        let (kept, back) = fight_kept(m, &coming);
        worth = Some(spared(m, &coming) * 2.0 * danger + kept + 0.5 * back);
    }
    if !again.is_empty() {
        let (kept, back) = fight_kept(m, &again);
        let w = ATTACKS_AGAIN * (spared(m, &again) + kept + back);
        worth = Some(worth.map_or(w, |v: f32| v.max(w)));
    }
    let Some(other) = worth else {
        return;
    };
    out.push(Appraisal {
        other,
        ..Appraisal::plain(m.order("full_defense"))
    });
}

/// 004 §Step 3 Full-Defense: the hits its +4 Defense spares `m` from
/// `coming`, if each of them strikes.
fn spared(m: &Me, coming: &[&Foe]) -> f32 {
    let bonus = m.data.numbers.full_defense_bonus;
    coming
        .iter()
        .map(|g| {
            let fewer = hit_chance(g.attack, m.defense) - hit_chance(g.attack, m.defense + bonus);
            fewer * g.hit_on_me
        })
        .sum()
}

/// What `m` felled loses besides the hit, in rounds of its own blows: the
/// rest of its fight.
const FELLED_ROUNDS: f32 = 3.0;

/// 004 §Step 3 Full-Defense: how many fewer of the hits from `coming` that
/// would fell `m` (one hit's damage taking all it has left) its +4 Defense
/// lets through, if each of them strikes.
fn felling_spared(m: &Me, coming: &[&Foe]) -> f32 {
    let bonus = m.data.numbers.full_defense_bonus;
    coming
        .iter()
        .filter(|g| g.hit_on_me >= m.left)
        .map(|g| hit_chance(g.attack, m.defense) - hit_chance(g.attack, m.defense + bonus))
        .sum()
}

/// What full defense against `coming` keeps of `m`'s fight besides the
/// hits: the rest of it, [`FELLED_ROUNDS`] of its blows for each felling
/// hit the +4 Defense spares, and its riposte's worth ([`strike_back`]).
fn fight_kept(m: &Me, coming: &[&Foe]) -> (f32, f32) {
    let (back, worth_back) = strike_back(m, coming);
    (felling_spared(m, coming) * FELLED_ROUNDS * back, worth_back)
}

/// Ruling `riposte`: the best riposte `m` makes (once a round) on one of
/// `coming` within its melee reach: its expected damage, and its worth as
/// the AI weighs a blow, more for one that could finish the foe
/// ([`Appraisal::score`]).
fn strike_back(m: &Me, coming: &[&Foe]) -> (f32, f32) {
    let melee = m.weapons.iter().map(|(_, w)| w).find(|w| w.reach > 0);
    melee.map_or((0.0, 0.0), |w| {
        coming
            .iter()
            .filter(|g| m.grid.distance(m.here, g.cell) <= w.reach)
            .map(|g| {
                let mean = w.damage.mean() + m.stats.strength_mod as f32 - g.armour as f32;
                let damage = hit_chance(m.stats.attack, g.defense) * mean.max(0.0);
                let blow = Appraisal {
                    damage,
                    target_left: g.left,
                    ..Appraisal::plain(m.order("attack"))
                };
                (damage, blow.score())
            })
            .fold((0.0, 0.0), |a, b| (a.0.max(b.0), a.1.max(b.1)))
    })
}

/// Ruling `intimidate_action` · 004 §Step 4: intimidating a monster within
/// a walk of the Intimidation's range is worth what it has left, times how
/// much likelier the Intimidation makes it to fail its morale check at the
/// end of the round (failing, it flees the battle); the ripostes of the
/// walk are its risk.
fn intimidate(
    world: &World,
    m: &Me,
    foe: &Foe,
    (foes, dist): (&[Foe], u32),
    morale: &mut Option<(Census, Option<Rc<MoraleOdds>>)>,
    out: &mut Vec<Appraisal>,
) {
    let range = m.data.ruling_numbers.intimidate_range;
    if dist > range + m.stats.speed
        || world.get::<Monster>(foe.e).is_none()
        || world.get::<SawThrough>(foe.e).is_some()
    {
        return;
    }
    let Some((stats, &side)) = fray_core::model::components::<(&Stats, &Side)>(world, foe.e) else {
        return;
    };
    let (census, odds) = morale.get_or_insert_with(|| {
        let census = Census::of(world, &super::roster(world));
        (census, MoraleOdds::of(m.data))
    });
    let standing = census.standing(side);
    let likelier = morale_failing(
        m.data,
        stats,
        standing,
        (m.stats.intimidation, ally_intimidating(world, m, foe)),
        odds.as_deref(),
    );
    if likelier <= 0.0 {
        return;
    }
    let risk = if dist > range {
        crossing_risk(m, foe.cell, foes, dist, range)
    } else {
        0.0
    };
    out.push(Appraisal {
        damage: likelier * foe.left,
        target_left: foe.left,
        risk,
        ..Appraisal::plain(m.order("intimidate").target(foe.name.clone()))
    });
}

/// The best Intimidation bonus among the allies of `m` declared to
/// intimidate `foe` this round: openly, written down by its own side, or
/// answered by its side and not yet taken (ruling intimidate_action: only
/// the best result counts).
fn ally_intimidating(world: &World, m: &Me, foe: &Foe) -> Option<i32> {
    let flow = world.resource::<super::Flow>();
    let open = flow
        .roster
        .iter()
        .filter_map(|(e, _)| super::declared(world, *e).map(|d| (*e, &d.action)));
    let written = flow.hidden.iter().map(|(e, a)| (*e, a));
    let taken = open
        .chain(written)
        .filter(|(e, a)| {
            *e != m.e
                && matches!(a, super::Action::Intimidate { target } if *target == foe.e)
                && world.get::<Side>(*e) == Some(&m.side)
        })
        .map(|(e, _)| e);
    let decisions = world.resource::<fray_core::decision::Decisions>();
    let answered = decisions
        .answers_of(m.side.0)
        .filter(|o| {
            o.action == "intimidate"
                && o.target.as_deref() == Some(foe.name.as_str())
                && o.actor != m.name
        })
        .filter_map(|o| flow.roster.entity(&o.actor));
    taken
        .chain(answered)
        .filter_map(|e| world.get::<Stats>(e).map(|s| s.intimidation))
        .max()
}

/// 004 §Step 4: the chance of each total of the morale dice and of the
/// Intimidation's die, their modifiers aside (a modifier moves the totals,
/// not their chances); `None` for dice too large to count.
struct MoraleOdds {
    morale: Vec<f64>,
    check: Vec<f64>,
}

/// The dice whose odds [`MoraleOdds`] counts: the morale dice and the
/// check die.
type MoraleDice = (DiceExpr, DiceExpr);

/// The most sets of dice whose odds a thread keeps (a handful of rulesets'
/// data is ever loaded at once).
const ODDS_KEPT: usize = 8;

thread_local! {
    /// The odds counted so far on this thread, for each set of dice.
    static ODDS: RefCell<Vec<(MoraleDice, Option<Rc<MoraleOdds>>)>> =
        const { RefCell::new(Vec::new()) };
}

impl MoraleOdds {
    /// The odds of `data`'s dice: counted once a thread for each set of
    /// dice, since every decision with a monster in reach asks for them.
    fn of(data: &DeclaredData) -> Option<Rc<Self>> {
        let dice = (data.numbers.morale_dice, super::check_die(data));
        ODDS.with_borrow_mut(|kept| {
            if let Some((_, odds)) = kept.iter().find(|(d, _)| *d == dice) {
                return odds.clone();
            }
            let odds = Self::count(dice).map(Rc::new);
            if kept.len() >= ODDS_KEPT {
                kept.clear();
            }
            kept.push((dice, odds.clone()));
            odds
        })
    }

    fn count((morale, check): MoraleDice) -> Option<Self> {
        Some(Self {
            morale: morale.odds()?,
            check: check.odds()?,
        })
    }
}

/// 004 §Step 4: how much likelier an Intimidation of 1d20 + `mine` makes a
/// monster of `stats`, standing as `standing`, to fail its morale check
/// than it was already: outnumbered, it checks anyway, against 11 + its
/// opponents; facing an obvious defeat, it fails anyway; with an ally's
/// Intimidation of 1d20 + `ally` declared too, only the better counts.
fn morale_failing(
    data: &DeclaredData,
    stats: &Stats,
    standing: Standing,
    (mine, ally): (i32, Option<i32>),
    odds: Option<&MoraleOdds>,
) -> f32 {
    use super::end_round::{morale_parts, obvious_defeat, outnumbered, unaided_target};
    let (allies, opponents) = (standing.allies, standing.opponents);
    // A monster still fighting counts itself on its side.
    let outnumbered = outnumbered(allies + 1, opponents);
    if obvious_defeat(data, allies + 1, opponents) {
        return if outnumbered { 0.0 } else { 1.0 };
    }
    let added: i32 = morale_parts(stats, allies).iter().map(|p| p.1).sum();
    let morale = data.numbers.morale_dice.plus(added);
    let check = super::check_die(data);
    let Some(odds) = odds else {
        return 0.0;
    };
    // The chance the morale check falls short of `tn`.
    let fails = |tn: i32| -> f64 {
        let short = usize::try_from(tn - morale.min()).unwrap_or(0);
        odds.morale.iter().take(short).sum()
    };
    // Outnumbered, it checks against the harder of 11 + opponents and the
    // Intimidation (ruling intimidate_action): a weak one changes nothing.
    let unaided = unaided_target(data, opponents);
    let fails_at = |result: i32| {
        fails(if outnumbered {
            result.max(unaided)
        } else {
            result
        })
    };
    // Each result of 1d20 + `bonus`, with its chance.
    let results = |bonus: i32| {
        let first = check.min() + bonus;
        odds.check
            .iter()
            .enumerate()
            .map(move |(i, p)| (first + i as i32, *p))
    };
    let (with, before): (f64, f64) = match ally {
        None => (
            results(mine).map(|(r, p)| p * fails_at(r)).sum(),
            if outnumbered { fails(unaided) } else { 0.0 },
        ),
        Some(ally) => (
            results(mine)
                .flat_map(|(r, p)| results(ally).map(move |(a, q)| p * q * fails_at(r.max(a))))
                .sum(),
            results(ally).map(|(a, q)| q * fails_at(a)).sum(),
        ),
    };
    (with - before).max(0.0) as f32
}

/// 004 §Step 3: nobody in reach — advance on the nearest foe with a
/// Defensive Attack, which provokes no riposte.
fn advance(m: &Me, foes: &[Foe], out: &mut Vec<Appraisal>) {
    let (here, grid) = (m.here, m.grid);
    // Among foes equally far in steps, the one most nearly straight ahead, so
    // a line of attackers spreads over a line of defenders.
    let straightness = |c: Cell| (c.x - here.x).abs() + (c.y - here.y).abs();
    let Some(foe) = foes
        .iter()
        .min_by_key(|f| (grid.distance(here, f.cell), straightness(f.cell)))
    else {
        return;
    };
    let closing = m
        .stats
        .speed
        .min(grid.distance(here, foe.cell).saturating_sub(1)) as f32;
    if let Some((w, _)) = m.weapons.iter().find(|(_, d)| d.reach > 0 || d.range > 0) {
        out.push(Appraisal {
            closing,
            ..Appraisal::plain(
                m.order("defensive_attack")
                    .target(foe.name.clone())
                    .with(*w),
            )
        });
    }
    out.push(Appraisal {
        closing,
        ..Appraisal::plain(m.order("defensive_attack").cell(foe.cell))
    });
}

#[cfg(test)]
mod tests {
    use super::{DeclaredData, MoraleOdds, Standing, Stats, morale_failing};
    use crate::ruleset::DataFile;
    use fray_core::data::Source;

    /// A hobgoblin warrior's numbers: HD 2, Insight +0.
    fn hobgoblin() -> Stats {
        Stats {
            hd: 2,
            strength: 12,
            strength_mod: 1,
            agility_mod: 0,
            insight_mod: 0,
            defense_bonus: 2,
            armour: 1,
            speed: 5,
            attack: 2,
            heal: 0,
            intimidation: 0,
            casting: 0,
        }
    }

    #[test]
    fn an_intimidation_counts_for_what_it_adds_to_the_morale_check() {
        let data = DeclaredData::load(&Source::inline("declared.ron", super::super::RULESET.data))
            .unwrap();
        let odds = MoraleOdds::of(&data);
        assert!(odds.is_some());
        let failing = |allies, opponents| {
            let standing = Standing { allies, opponents };
            morale_failing(&data, &hobgoblin(), standing, (3, None), odds.as_deref())
        };
        // Alone against one: 1d20 + 3 against 3d6 + 2 fails 21 times in 40.
        let alone = failing(0, 1);
        assert!((alone - 0.525).abs() < 1e-6, "{alone}");
        // Outnumbered two to one it checks anyway, against 11 + 2, and
        // fails half the time (108 throws of 216). The Intimidation counts
        // only when harder (ruling intimidate_action): with 1d20 + 3 the
        // target is 13 on 1-10, and 14-23 on 11-20, failing 337 times in
        // 480: it adds 97 in 480.
        let outnumbered = failing(0, 2);
        assert!((outnumbered - 97.0 / 480.0).abs() < 1e-6, "{outnumbered}");
        // With an ally's 1d20 + 3 declared too, only the better counts:
        // the better of two fails it 301 times in 400, one 210: a second
        // Intimidation adds 91 in 400.
        let standing = Standing {
            allies: 0,
            opponents: 1,
        };
        let second = morale_failing(&data, &hobgoblin(), standing, (3, Some(3)), odds.as_deref());
        assert!((second - 91.0 / 400.0).abs() < 1e-6, "{second}");
        // Three to one, its defeat is obvious: it fails without it.
        assert_eq!(failing(0, 3), 0.0);
    }
}
