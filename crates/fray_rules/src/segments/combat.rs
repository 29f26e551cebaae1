//! What happens when a combatant acts: attack routines (ruling
//! `attack_roll`, `damage`), hit points (ruling `hit_points`), movement
//! (ruling `movement`), flight, and spells going off (001 §Note about
//! spells, ruling `spell_effects`).

use bevy_ecs::prelude::*;
use fray_core::casting::Casting;
use fray_core::dice::Dice;
use fray_core::grid::{Cell, Grid, GridGeometry};
use fray_core::log::{Check, Event, EventKind, Modifier, record};
use fray_core::model::{Blocking, Fighting};
use fray_core::movement::{Provokes, Walk};

use super::{
    Data, Dead, Fled, Flow, HitPoints, Kit, Spell, SpellEffect, SpellTarget, Stats, able, roster,
};

/// A blow or a spell's damage, dealt but perhaps not yet landed: in a
/// simultaneous segment every hit lands when the last actor has acted
/// (001 §3 Ties).
#[derive(Clone, Debug)]
pub struct Hit {
    pub by: Entity,
    pub target: Entity,
    pub amount: i32,
}

/// The name of `e`.
pub(super) fn name(world: &World, e: Entity) -> String {
    fray_core::model::name(world, e)
}

/// Where `e` stands.
pub(super) fn cell(world: &World, e: Entity) -> Cell {
    world
        .get::<Cell>(e)
        .copied()
        .unwrap_or(Cell::new(-1000, -1000))
}

/// The reach of `weapon` (1 for one the data does not name).
pub(super) fn reach_of(world: &World, weapon: &str) -> u32 {
    world
        .resource::<Data>()
        .0
        .weapons
        .get(weapon)
        .map_or(1, |w| w.reach)
}

pub(super) fn distance(world: &World, a: Entity, b: Entity) -> u32 {
    world
        .resource::<Grid>()
        .distance(cell(world, a), cell(world, b))
}

/// The enemies of `e` still in the fight, in listing order.
pub(super) fn foes(world: &World, e: Entity) -> Vec<Entity> {
    roster(world)
        .into_iter()
        .filter(|&x| able(world, x) && fray_core::model::enemies(world, e, x))
        .collect()
}

/// Ruling `retarget`: the declared target if still in the fight, else the
/// nearest enemy (listing order breaks ties), or none.
pub(super) fn living_target(world: &mut World, e: Entity, target: Entity) -> Option<Entity> {
    if able(world, target) {
        return Some(target);
    }
    let next = foes(world, e)
        .into_iter()
        .min_by_key(|&f| distance(world, e, f));
    let (who, was) = (name(world, e), name(world, target));
    match next {
        Some(n) => {
            let now = name(world, n);
            record(world, || {
                Event::new(
                    EventKind::Retarget,
                    "ruling retarget",
                    format!("{was} is out of the fight: {who} turns on {now}."),
                )
                .actor(&who)
                .target(&now)
            });
        }
        None => record(world, || {
            Event::new(
                EventKind::NoTarget,
                "ruling retarget",
                format!("{who} has no enemy left."),
            )
            .actor(&who)
        }),
    }
    next
}

/// Ruling `movement`: a move toward a cell someone stands in ends beside it.
fn short_of_taken(taken: &fray_core::grid::CellSet, goal: Cell, stop_within: u32) -> u32 {
    if taken.contains(&goal) {
        stop_within.max(1)
    } else {
        stop_within
    }
}

/// Ruling `movement`: the cells `e` would walk toward `goal`, as
/// [`approach`] walks them: until within `stop_within`, at most `budget`
/// of cost, around whoever blocks a cell.
pub(super) fn planned_walk(
    world: &World,
    e: Entity,
    goal: Cell,
    stop_within: u32,
    budget: u32,
) -> Vec<Cell> {
    let from = cell(world, e);
    let grid = world.resource::<Grid>();
    let taken = fray_core::model::taken_cells(world, e);
    let stop_within = short_of_taken(&taken, goal, stop_within);
    if budget == 0 || grid.distance(from, goal) <= stop_within {
        return Vec::new();
    }
    let Some((steps, _)) = grid.path_toward(from, goal, stop_within, |c| taken.contains(&c)) else {
        return Vec::new();
    };
    let mut spent = 0;
    steps
        .into_iter()
        .take_while(|&c| {
            spent += grid.enter_cost(c).unwrap_or(u32::MAX / 4);
            spent <= budget
        })
        .collect()
}

/// Ruling `movement`: move `e` toward `goal` until within `stop_within`
/// cells, at most `budget` cells of cost, around whoever blocks a cell.
pub(super) fn approach(world: &mut World, e: Entity, goal: Cell, stop_within: u32, budget: u32) {
    let from = cell(world, e);
    let grid = world.resource::<Grid>();
    let taken = fray_core::model::taken_cells(world, e);
    let stop_within = short_of_taken(&taken, goal, stop_within);
    if budget == 0 || grid.distance(from, goal) <= stop_within {
        return;
    }
    let Some((steps, _)) = grid.path_toward(from, goal, stop_within, |c| taken.contains(&c)) else {
        let who = name(world, e);
        record(world, || {
            Event::new(
                EventKind::Blocked,
                "ruling movement",
                format!("{who} finds no way through toward {goal}."),
            )
            .actor(&who)
        });
        return;
    };
    let mut walk = Walk::new(e, steps, budget, Provokes::Never);
    while let Ok(step) = walk.next(world.resource::<Grid>(), cell(world, e), &taken, &[]) {
        walk.take(world, &step, &[]);
    }
    say_moved(world, e, from);
}

/// Ruling `charge`: the cells a charge by `e` runs, straight along the line
/// to `goal` until within `reach` of it, and the first cell on that line
/// someone or something stands in, which stops the run short of it.
pub(super) fn charge_line(
    world: &World,
    e: Entity,
    goal: Cell,
    reach: u32,
) -> (Vec<Cell>, Option<Cell>) {
    let grid = world.resource::<Grid>();
    let taken = fray_core::model::taken_cells(world, e);
    let mut run = Vec::new();
    for c in grid.line(cell(world, e), goal).into_iter().skip(1) {
        if taken.contains(&c) || grid.is_obstacle(c) || !grid.in_bounds(c) {
            return (run, Some(c));
        }
        run.push(c);
        if grid.distance(c, goal) <= reach {
            break;
        }
    }
    (run, None)
}

/// Ruling `charge`: the cells `e` would run through charging at `goal`
/// along [`charge_line`], as far as `budget` goes; none when `goal` is
/// within reach already (it attacks without a run).
pub(super) fn charge_walk(
    world: &World,
    e: Entity,
    goal: Cell,
    reach: u32,
    budget: u32,
) -> Vec<Cell> {
    let grid = world.resource::<Grid>();
    if grid.distance(cell(world, e), goal) <= reach {
        return Vec::new();
    }
    let mut spent = 0;
    charge_line(world, e, goal, reach)
        .0
        .into_iter()
        .take_while(|&c| {
            spent += grid.enter_cost(c).unwrap_or(u32::MAX / 4);
            spent <= budget
        })
        .collect()
}

/// Ruling `charge`: `e` runs straight at `target` along [`charge_line`], as
/// far as `budget` goes; the log says what stopped it short. The cells it
/// ran through.
pub(super) fn charge_run(
    world: &mut World,
    e: Entity,
    target: Entity,
    reach: u32,
    budget: u32,
) -> Vec<Cell> {
    let from = cell(world, e);
    let (run, blocked) = charge_line(world, e, cell(world, target), reach);
    let mut walk = Walk::new(e, run, budget, Provokes::Never);
    let taken = fray_core::model::taken_cells(world, e);
    let mut ran = Vec::new();
    while let Ok(step) = walk.next(world.resource::<Grid>(), cell(world, e), &taken, &[]) {
        walk.take(world, &step, &[]);
        ran.push(step.to);
    }
    say_moved(world, e, from);
    let here = cell(world, e);
    if let Some(at) = blocked
        && world.resource::<Grid>().distance(here, at) <= 1
    {
        let who = name(world, e);
        record(world, || {
            Event::new(
                EventKind::Blocked,
                "ruling charge",
                format!("{who}'s charge runs straight at its target and is stopped at {here}: {at} is in the way."),
            )
            .actor(&who)
        });
    }
    ran
}

/// Put `e` in cell `to`, saying so.
fn move_to(world: &mut World, e: Entity, from: Cell, to: Cell) {
    world.entity_mut(e).insert(to);
    say_moved(world, e, from);
}

/// Say that `e` moved from `from` to where it stands, if it moved.
fn say_moved(world: &mut World, e: Entity, from: Cell) {
    let to = cell(world, e);
    if to == from {
        return;
    }
    let who = name(world, e);
    let n = world.resource::<Grid>().distance(from, to);
    record(world, || {
        Event::new(
            EventKind::Move,
            "ruling movement",
            format!(
                "{who} moves from {from} to {to} ({n} cell{}).",
                if n == 1 { "" } else { "s" }
            ),
        )
        .actor(&who)
    });
}

/// Ruling `fleeing_attack`: run to the reachable cell farthest from the
/// enemy (of those, one on the edge); from the edge of the battlefield,
/// leave it. An edge nearer the enemy is no way out.
pub(super) fn flee_move(world: &mut World, e: Entity) {
    let from = cell(world, e);
    let budget = world.get::<Stats>(e).map_or(0, |s| s.move_cells);
    let enemies: Vec<Cell> = foes(world, e).iter().map(|&f| cell(world, f)).collect();
    let taken = fray_core::model::taken_cells(world, e);
    let grid = world.resource::<Grid>();
    let reach = grid.reachable(from, budget, |c| taken.contains(&c));
    let edge = |c: Cell| {
        c.x == 0 || c.y == 0 || c.x + 1 == grid.width() as i32 || c.y + 1 == grid.height() as i32
    };
    let away = |c: Cell| {
        enemies
            .iter()
            .map(|&x| grid.distance(c, x))
            .min()
            .unwrap_or(0)
    };
    let best = reach
        .iter()
        .map(|&(c, _)| c)
        .max_by_key(|&c| (away(c), edge(c), -c.y, -c.x))
        .unwrap_or(from);
    let leaves = edge(best);
    move_to(world, e, from, best);
    if leaves {
        world
            .entity_mut(e)
            .insert(Fled)
            .remove::<(Fighting, Blocking, Casting)>();
        let who = name(world, e);
        record(world, || {
            Event::new(
                EventKind::Fled,
                "ruling fleeing_attack",
                format!("{who} flees the battlefield."),
            )
            .actor(&who)
        });
    }
}

/// One attack routine: every attack of it (a bow's two arrows) against
/// one target (001 §3 Attack routines). Each hit lands at once, or is held
/// (`held`) in a simultaneous segment.
pub(super) struct Routine<'a> {
    pub attacker: Entity,
    pub target: Entity,
    pub weapon: &'a str,
    pub modifiers: Vec<Modifier>,
    pub multiplier: i32,
    pub rule: &'static str,
}

pub(super) fn routine(world: &mut World, r: Routine, held: &mut Option<Vec<Hit>>) {
    let data = world.resource::<Data>().0.clone();
    let Some(w) = data.weapons.get(r.weapon) else {
        return;
    };
    let Some(stats) = world.get::<Stats>(r.attacker).cloned() else {
        return;
    };
    let mut mods = r.modifiers.clone();
    if w.missile() && stats.missile_bonus != 0 {
        mods.push(Modifier::new("missile attack bonus", stats.missile_bonus));
    }
    for done in 0..w.rate {
        if held.is_none() && !able(world, r.target) {
            // A routine is against one target (001 §3 Attack routines).
            let (who, them) = (name(world, r.attacker), name(world, r.target));
            let left = w.rate - done;
            record(world, || {
                Event::new(
                    EventKind::Lost,
                    "001 §3 Attack routines",
                    format!(
                        "{them} is down: {who}'s {} of the routine {} lost.",
                        if left == 1 {
                            "last attack".to_string()
                        } else {
                            format!("last {left} attacks")
                        },
                        if left == 1 { "is" } else { "are" }
                    ),
                )
                .actor(&who)
            });
            break;
        }
        let ac = world.get::<Stats>(r.target).map_or(10, |s| s.ac);
        let need = stats.thac0 - ac;
        let (who, them) = (name(world, r.attacker), name(world, r.target));
        let roll = world
            .resource_mut::<Dice>()
            .roll_for(data.ruling_numbers.attack_die, || {
                format!("{who}'s attack on {them}")
            });
        let nat = roll.total;
        let total = nat + mods.iter().map(|m| m.value).sum::<i32>();
        let hits = nat == 20 || (nat != 1 && total >= need);
        let mut rolls = vec![roll];
        let amount = if hits {
            let dmg = world
                .resource_mut::<Dice>()
                .roll_for(w.damage, || format!("{who}'s damage"));
            let bonus = if w.missile() { 0 } else { stats.damage_bonus };
            let amount = ((dmg.total + bonus) * r.multiplier).max(1);
            rolls.push(dmg);
            Some(amount)
        } else {
            None
        };
        // The sentence is built only when a log is kept.
        record(world, || {
            let terms: String = mods
                .iter()
                .map(|m| format!(" {:+} {}", m.value, m.name))
                .collect();
            let mut text = format!(
                "{who} attacks {them} with the {}: {nat}{terms} = {total} against {need} (THAC0 {} − AC {ac}): ",
                r.weapon, stats.thac0
            );
            match amount {
                Some(amount) => {
                    text.push_str(&format!("hits for {amount}"));
                    if r.multiplier > 1 {
                        text.push_str(&format!(" (×{})", r.multiplier));
                    }
                    text.push('.');
                }
                None => text.push_str("misses."),
            }
            let check = Check {
                against: format!("THAC0 {} − AC {ac}", stats.thac0),
                target: need,
                modifiers: mods.clone(),
                total,
                success: hits,
            };
            let kind = if hits {
                EventKind::Attack
            } else {
                EventKind::Miss
            };
            Event::new(kind, r.rule, text)
                .actor(&who)
                .target(&them)
                .rolls(rolls)
                .check(check)
        });
        if let Some(amount) = amount {
            land(
                world,
                Hit {
                    by: r.attacker,
                    target: r.target,
                    amount,
                },
                held,
            );
        }
    }
}

/// A hit lands now, or is held until the simultaneous segment is over.
pub(super) fn land(world: &mut World, hit: Hit, held: &mut Option<Vec<Hit>>) {
    match held {
        Some(list) => list.push(hit),
        None => apply_hit(world, &hit),
    }
}

/// Ruling `hit_points`: damage comes off hit points, spoiling a casting
/// (001 §Note about spells, through `fray_core::casting`); at 0 or fewer the
/// creature is dead, and its body blocks nobody.
pub(super) fn apply_hit(world: &mut World, hit: &Hit) {
    let Some(mut hp) = world.get_mut::<HitPoints>(hit.target) else {
        return;
    };
    hp.lose(hit.amount);
    let left = hp.current;
    let (them, by) = (name(world, hit.target), name(world, hit.by));
    record(world, || {
        Event::new(
            EventKind::Damage,
            "ruling hit_points",
            format!(
                "{them} takes {} damage from {by}: {left} hit points left.",
                hit.amount
            ),
        )
        .actor(&them)
        .amount(hit.amount)
    });
    fray_core::casting::damaged(world, hit.target, hit.amount);
    if left <= 0 && world.get::<Dead>(hit.target).is_none() {
        fray_core::model::out_of_the_fight(world, hit.target, Dead, "ruling hit_points", |n| {
            format!("{n} falls dead.")
        });
        // The dead lie where they fell and bar nobody's way.
        world.entity_mut(hit.target).remove::<Blocking>();
        world.resource_mut::<Flow>().fell.push(hit.target);
    }
}

/// 001 §Note about spells: every spell whose casting time is complete at
/// `clock` goes off, in listing order.
pub(super) fn spells_going_off(world: &mut World, clock: u32) {
    let due: Vec<Entity> = roster(world)
        .into_iter()
        .filter(|&e| {
            world
                .get::<Casting>(e)
                .is_some_and(|c| c.completes == clock)
        })
        .filter(|&e| able(world, e))
        .collect();
    // Spells completing together go off at one instant: their damage lands
    // once all have gone off, so none spoils another (001 §Note about
    // spells, §3 Ties); a cure on one that damage strikes at that instant
    // is measured after it.
    let data = world.resource::<Data>().0.clone();
    let struck: Vec<Entity> = due
        .iter()
        .filter_map(|&e| {
            let spell = data.spells.get(&world.get::<Casting>(e)?.spell)?;
            spell.harmful().then(|| going_off_on(world, e, spell))?
        })
        .collect();
    let mut hits = Vec::new();
    let mut cures = Vec::new();
    for e in due {
        match go_off(world, e, &struck) {
            Some(Effect::Hit(hit)) => hits.push(hit),
            Some(Effect::Cure(cure)) => cures.push(cure),
            None => {}
        }
    }
    for hit in &hits {
        apply_hit(world, hit);
    }
    for cure in cures {
        cure_after(world, cure);
    }
}

/// What a spell going off leaves to land with the others of its instant.
enum Effect {
    Hit(Hit),
    /// A cure's hit points, restored once the instant's damage has landed.
    Cure(Hit),
}

/// Ruling `spell_effects`: a cure restores hit points up to the maximum,
/// measured after the damage landing at the same instant; one felled by it
/// is past curing.
fn cure_after(world: &mut World, cure: Hit) {
    let (who, them) = (name(world, cure.by), name(world, cure.target));
    let restored = if able(world, cure.target) {
        world.get_mut::<HitPoints>(cure.target).map(|mut hp| {
            let n = cure.amount.min((hp.max - hp.current).max(0));
            hp.current += n;
            (n, hp.current)
        })
    } else {
        None
    };
    let text = match restored {
        Some((n, now)) => format!(
            "{who}'s cure, measured after the damage, restores {n} hit points to {them}: {now} hit points."
        ),
        None => format!(
            "{them} is out of the fight: {who}'s cure comes with the blow that felled it and restores nothing."
        ),
    };
    record(world, || {
        Event::new(EventKind::Heal, "001 §3 Ties · ruling spell_effects", text)
            .actor(&who)
            .target(&them)
    });
}

/// Ruling `spell_effects`: whom the spell `e` casts goes off on: its
/// target, or, that one gone or beyond the spell's range, the nearest enemy
/// in range for a harmful spell and nobody for a helpful one.
fn going_off_on(world: &World, e: Entity, spell: &Spell) -> Option<Entity> {
    match world.get::<SpellTarget>(e).map(|t| t.0) {
        Some(t) if able(world, t) && distance(world, e, t) <= spell.range => Some(t),
        _ if spell.harmful() => foes(world, e)
            .into_iter()
            .filter(|&f| distance(world, e, f) <= spell.range)
            .min_by_key(|&f| distance(world, e, f)),
        _ => None,
    }
}

/// 001 §Note about spells · ruling `spell_effects`: the spell goes off on
/// whom [`going_off_on`] names. The hit a harmful spell deals, to land
/// with the others going off.
fn go_off(world: &mut World, e: Entity, struck: &[Entity]) -> Option<Effect> {
    let casting = world.entity_mut(e).take::<Casting>()?;
    let data = world.resource::<Data>().0.clone();
    let spell = data.spells.get(&casting.spell)?;
    let who = name(world, e);
    let Some(t) = going_off_on(world, e, spell) else {
        let declared = world.get::<SpellTarget>(e).map(|t| t.0);
        let why = match declared.filter(|&t| able(world, t)) {
            Some(t) => format!(
                "{} is {} cells away, beyond its range of {}",
                name(world, t),
                distance(world, e, t),
                spell.range
            ),
            None => "its target is gone".to_string(),
        };
        record(world, || {
            Event::new(
                EventKind::Lapse,
                "ruling spell_effects",
                format!(
                    "{who}'s {} goes off, but {why}: it is wasted.",
                    casting.spell
                ),
            )
            .actor(&who)
        });
        return None;
    };
    let them = name(world, t);
    let (dice, harm) = match spell.effect {
        SpellEffect::Damage(d) => (d, true),
        SpellEffect::Heal(d) => (d, false),
    };
    let roll = world
        .resource_mut::<Dice>()
        .roll_for(dice, || format!("{who}'s {}", casting.spell));
    let amount = roll.total.max(1);
    let began = world.resource::<Flow>().begun(casting.began);
    // Ruling spell_effects: a cure restores hit points up to the maximum.
    let room = world
        .get::<HitPoints>(t)
        .map_or(0, |hp| (hp.max - hp.current).max(0));
    let later = !harm && struck.contains(&t);
    let effect = match (harm, amount.min(room)) {
        (true, _) => format!("it strikes {them} for {amount}"),
        _ if later => format!(
            "{amount} hit points for {them}, restored once the damage going off with it has landed"
        ),
        (false, 0) => format!("{them} is unhurt: it restores nothing ({amount} rolled)"),
        (false, n) if n < amount => {
            format!("it restores {n} hit points to {them}, its maximum ({amount} rolled)")
        }
        (false, n) => format!("it restores {n} hit points to {them}"),
    };
    record(world, || {
        Event::new(
            EventKind::Cast,
            "001 §Note about spells",
            format!("{who}'s {}, {began}, goes off: {effect}.", casting.spell),
        )
        .actor(&who)
        .target(&them)
        .roll(roll)
    });
    let landing = Hit {
        by: e,
        target: t,
        amount,
    };
    if harm {
        return Some(Effect::Hit(landing));
    }
    if later {
        return Some(Effect::Cure(landing));
    }
    if let Some(mut hp) = world.get_mut::<HitPoints>(t) {
        hp.current = (hp.current + amount).min(hp.max);
    }
    None
}

/// The first melee weapon `e` carries.
pub(super) fn melee_weapon(world: &World, e: Entity) -> Option<(String, u32)> {
    let data = &world.resource::<Data>().0;
    world.get::<Kit>(e)?.weapons.iter().find_map(|w| {
        data.weapons
            .get(w)
            .filter(|d| !d.missile())
            .map(|d| (w.clone(), d.reach))
    })
}
