//! 003 §II A: the counts of a round, lowest first. Everyone acting at a
//! count gives its order (003 §II C: a caster chooses its spell on its
//! initiative result); ties act at one instant (003 §II F) unless an option
//! of 003 §II G breaks them; then each order is carried out, with the
//! attacks of opportunity and length-first strikes that cut into it.

use bevy_ecs::prelude::*;
use fray_core::casting::Casting;
use fray_core::decision::{self, Order, Question};
use fray_core::grid::{Cell, Grid, GridGeometry};
use fray_core::log::{Event, EventKind, record};
use fray_core::movement::{Provokes, Walk};
use fray_core::simultaneous::Simultaneous;

use super::combat::{self, apply, length_first, length_strike, opportunity, routine};
use super::orders::{self, Plan, acts, adjacent_enemies, may_take_opportunity, threats};
use super::round::stamp;
use super::{
    Act, DISENGAGE_COUNT, Data, Flow, Kit, LAST_COUNT, Monster, Planned, Reaction, RoundState,
    Stage, Withdrawal, cell, name, up,
};

/// 003 §II A: work through the counts until someone must decide or the
/// round's counts are done.
pub fn run_counts(world: &mut World) {
    for _ in 0..10_000 {
        if world.resource::<fray_core::model::Outcome>().0.is_some() {
            return;
        }
        if !world.resource::<Flow>().reacting.is_empty() {
            // Asked in the middle of a withdrawal: the tie goes on after.
            take_reactions(world);
            if !world.resource::<Flow>().reacting.is_empty() {
                return;
            }
        } else if !world.resource::<Flow>().asking.is_empty() {
            take_orders(world);
            if !world.resource::<Flow>().asking.is_empty() {
                return;
            }
            // An order given in the middle of a tie (`Flow::instead`) is
            // already in it.
            if !world.resource::<Flow>().taken.is_empty() {
                break_ties(world);
            }
        }
        if fray_core::model::sides_standing(world, super::roster(world)).len() < 2 {
            world.resource_mut::<Flow>().stage = Stage::EndRound;
            return;
        }
        if next_member(world) {
            continue;
        }
        if !next_count(world) {
            world.resource_mut::<Flow>().stage = Stage::EndRound;
            return;
        }
    }
}

/// The orders given at this count.
fn take_orders(world: &mut World) {
    let taken = decision::take_answers(world, "003 §II A", |w, d, o| {
        orders::validate(w, d.actor, o)
    });
    for (d, plan) in taken {
        let mut flow = world.resource_mut::<Flow>();
        flow.asking.retain(|(id, _)| *id != d.id);
        let p = Planned {
            actor: d.actor,
            plan,
        };
        if let Some(i) = flow.instead.iter().position(|&x| x == d.actor) {
            flow.instead.remove(i);
            // Back in its tie, the tie's held blows with it.
            flow.group.act_next(p);
            let held = flow.held.take();
            let _ = flow.group.put_held(held);
        } else {
            flow.taken.push(p);
        }
    }
}

/// The next member of the tie acting now: its order carried out, its hits
/// held until the last has acted. False when nobody is left to act.
fn next_member(world: &mut World) -> bool {
    let next = {
        let mut flow = world.resource_mut::<Flow>();
        if flow.group.is_empty() {
            if flow.layers.is_empty() {
                return false;
            }
            let layer = flow.layers.remove(0);
            flow.group = Simultaneous::begin(layer);
        }
        let held = flow.group.take_held();
        flow.held = held;
        flow.group.next_to_act()
    };
    if let Some(p) = next
        && up(world, p.actor)
    {
        carry_out(world, p.actor, p.plan);
    }
    let land = {
        let mut flow = world.resource_mut::<Flow>();
        // One asked for another order is still to act in this tie: its
        // blows are held until it has (003 §II F).
        if !flow.instead.is_empty() {
            return true;
        }
        let held = flow.held.take();
        flow.group.put_held(held)
    };
    for hit in land {
        apply(world, &hit);
    }
    true
}

/// Take everything due at the lowest count left: ask those whose turn it
/// is, line up spells going off and disengaging forces. False at the end.
fn next_count(world: &mut World) -> bool {
    let (count, acts_now) = {
        let mut flow = world.resource_mut::<Flow>();
        let Some(&(count, _)) = flow.queue.first() else {
            return false;
        };
        let n = flow.queue.iter().take_while(|(c, _)| *c == count).count();
        let now: Vec<Act> = flow.queue.drain(..n).map(|(_, a)| a).collect();
        flow.count = Some(count);
        (count, now)
    };
    let surprise = world.resource::<Flow>().surprise_round;
    stamp(
        world,
        match count {
            LAST_COUNT => "last in the round".to_string(),
            DISENGAGE_COUNT => "after every count".to_string(),
            _ if surprise => "surprise round".to_string(),
            c => format!("initiative {c}"),
        },
    );
    for act in acts_now {
        match act {
            Act::Turn(e) if acts(world, e) => turn(world, e),
            Act::Complete(e) => world.resource_mut::<Flow>().taken.push(Planned {
                actor: e,
                plan: Plan::Complete,
            }),
            Act::Disengage(e) if up(world, e) => world.resource_mut::<Flow>().taken.push(Planned {
                actor: e,
                plan: Plan::Retreat,
            }),
            _ => {}
        }
    }
    if world.resource::<Flow>().asking.is_empty() {
        break_ties(world);
    }
    true
}

/// `e`'s turn: a withdrawal after failed morale goes on by itself (ruling
/// `morale_failure`); anyone else is asked.
fn turn(world: &mut World, e: Entity) {
    // Ruling parry: its parry lasts until its next turn, this one.
    if let Some(mut rs) = world.get_mut::<RoundState>(e) {
        rs.parrying = false;
        rs.disengaging = false;
        rs.had_turn = true;
    }
    if let Some(&w) = world.get::<Withdrawal>(e) {
        let plan = match w {
            Withdrawal::FallBack => fall_back_plan(world, e),
            _ => Plan::Flee,
        };
        world
            .resource_mut::<Flow>()
            .taken
            .push(Planned { actor: e, plan });
        return;
    }
    let round = world.resource::<Flow>().round;
    // Ruling readied_missile: a held missile fires now or the action is
    // lost, so no cell is offered to move to.
    let holding = world
        .get::<RoundState>(e)
        .is_some_and(|r| r.holding_readied);
    let id = decision::ask(
        world,
        Question {
            actor: e,
            prompt: decision::prompt(world, e, |w| {
                format!("{}: your turn in round {round}", name(w, e))
            }),
            rule: "003 §II A".into(),
            secret: false,
            move_order: (!holding).then(|| Order::new(name(world, e), "move")),
            choices: orders::choices,
        },
    );
    world.resource_mut::<Flow>().asking.push((id, e));
}

/// Ruling `morale_failure`: falling back, up to 10' to the cell farthest
/// from the enemy, then fighting whoever is in reach, else parrying.
fn fall_back_plan(world: &World, e: Entity) -> Plan {
    let here = cell(world, e);
    let most = orders::fall_back_cells(world, e);
    let grid = world.resource::<Grid>();
    let foes: Vec<Cell> = combat::foes(world, e)
        .into_iter()
        .map(|f| cell(world, f))
        .collect();
    let nearest = |c: Cell| foes.iter().map(|&f| grid.distance(c, f)).min().unwrap_or(0);
    let mut taken = orders::occupied(world, e);
    taken.extend(orders::bodies(world, e));
    let mut best = (nearest(here), here);
    for c in grid.within(here, most) {
        if grid.is_obstacle(c)
            || taken.contains(&c)
            || orders::path_cost(world, e, c, 0).is_none_or(|cost| cost > most)
        {
            continue;
        }
        if nearest(c) > best.0 {
            best = (nearest(c), c);
        }
    }
    let target = adjacent_enemies(world, e, best.1).into_iter().next();
    if best.1 == here {
        return match target {
            Some(t) => Plan::Attack {
                target: t,
                after: None,
            },
            None => Plan::Parry,
        };
    }
    Plan::FallBack { to: best.1, target }
}

/// What kind of blow a plan strikes, for the tie options of 003 §II G.
#[derive(Clone, Copy, Debug)]
enum Blow {
    Melee { wsf: u32, attacks: u32 },
    Missile { attacks: u32 },
    Spell { casting_time: u32, began: u32 },
    Other,
}

fn blow(world: &World, p: &Planned) -> Blow {
    let melee = |w: &World| Blow::Melee {
        wsf: orders::melee_weapon(w, p.actor).map_or(1, |(_, w)| w.wsf),
        attacks: combat::attacks_this_round(w, p.actor),
    };
    match &p.plan {
        Plan::Attack { .. }
        | Plan::Step {
            target: Some(_), ..
        }
        | Plan::FallBack {
            target: Some(_), ..
        } => melee(world),
        Plan::Fire { .. } => Blow::Missile {
            attacks: orders::missile_weapon(world, p.actor).map_or(1, |(_, w)| w.rate),
        },
        Plan::Complete => {
            let data = &world.resource::<Data>().0;
            world
                .get::<Casting>(p.actor)
                .and_then(|c| Some((c.began, data.spells.get(&c.spell)?)))
                .map_or(Blow::Other, |(began, s)| Blow::Spell {
                    casting_time: s.casting_time,
                    began,
                })
        }
        _ => Blow::Other,
    }
}

/// 003 §II G: whether `a` goes before `b` in a tie, by the
/// first option, in the text's order, that decides between the two either
/// way (none on: a tie is simultaneous, §II F).
fn beats(world: &World, (a, b): (&Planned, &Planned)) -> Option<&'static str> {
    if !super::enemies(world, a.actor, b.actor) {
        return None;
    }
    let o = world.resource::<Flow>().options;
    let (x, y) = (blow(world, a), blow(world, b));
    let tie_breaks: [TieBreak; 4] = [lower_wsf, more_attacks, spell_against_melee, missile_first];
    for tie_break in tie_breaks {
        if let Some(why) = tie_break(&o, x, y) {
            return Some(why);
        }
        if tie_break(&o, y, x).is_some() {
            return None;
        }
    }
    None
}

/// One option of 003 §II G: why the blow `x` goes before `y` in a tie, if
/// it does.
type TieBreak = fn(&super::Options, Blow, Blow) -> Option<&'static str>;

/// "Ties involving multiple weapon attacks (missiles too) go to whoever has
/// more attacks."
fn more_attacks(o: &super::Options, x: Blow, y: Blow) -> Option<&'static str> {
    let attacks = |b: Blow| match b {
        Blow::Melee { attacks, .. } | Blow::Missile { attacks } => Some(attacks),
        _ => None,
    };
    match (attacks(x), attacks(y)) {
        (Some(m), Some(n)) if o.more_attacks_ties && m > n && m > 1 => Some("more attacks"),
        _ => None,
    }
}

/// "Ties between melee weapons may be decided by comparing WSF."
fn lower_wsf(o: &super::Options, x: Blow, y: Blow) -> Option<&'static str> {
    match (x, y) {
        (Blow::Melee { wsf: m, .. }, Blow::Melee { wsf: n, .. }) if o.wsf_ties && m < n => {
            Some("the lower weapon speed factor")
        }
        _ => None,
    }
}

/// "Ties between spell completion and a melee strike go to whichever is
/// lower of the casting time or WSF."
fn spell_against_melee(o: &super::Options, x: Blow, y: Blow) -> Option<&'static str> {
    match (x, y) {
        (Blow::Spell { casting_time, .. }, Blow::Melee { wsf, .. })
            if o.spell_vs_melee_ties && casting_time < wsf =>
        {
            Some("a casting time lower than the weapon speed factor")
        }
        (Blow::Melee { wsf, .. }, Blow::Spell { casting_time, .. })
            if o.spell_vs_melee_ties && wsf < casting_time =>
        {
            Some("a weapon speed factor lower than the casting time")
        }
        _ => None,
    }
}

/// "Ties between missile fire and spell completion go to the missile if
/// spell casting time is actually higher than initiative die result"
/// (ruling missile_vs_spell: the caster's result, at which it began).
fn missile_first(o: &super::Options, x: Blow, y: Blow) -> Option<&'static str> {
    match (x, y) {
        (
            Blow::Missile { .. },
            Blow::Spell {
                casting_time,
                began,
            },
        ) if o.missile_vs_spell_ties && casting_time > began => {
            Some("a casting time higher than the caster's initiative result")
        }
        _ => None,
    }
}

/// Split the orders taken at this count into layers: those no other beats
/// and that beat another act first, together; the rest, still tied with
/// one another, after them ("Ties are just that", 003 §II F–G).
fn break_ties(world: &mut World) {
    let mut left = std::mem::take(&mut world.resource_mut::<Flow>().taken);
    // In listing order, not the order the answers came in: who sits at the
    // table does not reorder a tie.
    left.sort_by_key(|p| {
        world
            .get::<fray_core::model::Combatant>(p.actor)
            .map_or(u32::MAX, |c| c.listing)
    });
    let mut layers = Vec::new();
    while !left.is_empty() {
        let first = first_layer(world, &left);
        let first = if first.is_empty() {
            (0..left.len()).collect()
        } else {
            first
        };
        let mut layer = Vec::new();
        for &i in first.iter().rev() {
            layer.insert(0, left.remove(i));
        }
        if !left.is_empty() {
            let words = fray_core::log::if_kept(world, |w| broken_tie(w, &layer, &left));
            record(world, || {
                Event::new(EventKind::Simultaneous, "003 §II G", words)
            });
        } else if layer.len() > 1 && layers.is_empty() {
            let a = names(world, &layer);
            record(world, || {
                Event::new(
                    EventKind::Simultaneous,
                    "003 §II F",
                    format!("{a} act at the same instant: their blows land together."),
                )
            })
        }
        layers.push(layer);
    }
    world.resource_mut::<Flow>().layers = layers;
}

/// The places in `left` of those acting first: each that no one beats
/// and that beats someone (003 §II G), and with them, still tied, each that
/// no one beats whose enemy among them no option decides between (003 §II
/// F: "Ties are just that"). Empty if no option decides anything.
fn first_layer(world: &World, left: &[Planned]) -> Vec<usize> {
    let unbeaten: Vec<usize> = (0..left.len())
        .filter(|&i| !left.iter().any(|o| beats(world, (o, &left[i])).is_some()))
        .collect();
    let mut first: Vec<usize> = unbeaten
        .iter()
        .copied()
        .filter(|&i| left.iter().any(|o| beats(world, (&left[i], o)).is_some()))
        .collect();
    if first.is_empty() {
        return first;
    }
    let tied = |i: usize, j: usize| super::enemies(world, left[i].actor, left[j].actor);
    while let Some(&i) = unbeaten
        .iter()
        .find(|&&i| !first.contains(&i) && first.iter().any(|&j| tied(i, j)))
    {
        first.push(i);
    }
    first.sort_unstable();
    first
}

/// 003 §II G, in words: who acts first (`layer`) and who after (`left`),
/// each option with the pairs it sets; those first or after by no option
/// of their own are named as such (003 §II F: "Ties are just that").
fn broken_tie(world: &World, layer: &[Planned], left: &[Planned]) -> String {
    let why = tie_reasons(world, layer, left);
    let (a, b) = (names(world, layer), names(world, left));
    let sets = |x: &Planned, y: &Planned| beats(world, (x, y)).is_some();
    // Those first whom no option sets before anyone: tied with a foe there.
    let joined: Vec<Planned> = layer
        .iter()
        .filter(|x| !left.iter().any(|y| sets(x, y)))
        .cloned()
        .collect();
    // Those behind whom no option sets: still tied with those after.
    let unset: Vec<Planned> = left
        .iter()
        .filter(|y| !layer.iter().any(|x| sets(x, y)))
        .cloned()
        .collect();
    let mut notes = Vec::new();
    if !joined.is_empty() {
        notes.push(format!(
            "{} first by no option, tied with a foe among those first",
            names(world, &joined)
        ));
    }
    if !unset.is_empty() {
        notes.push(format!(
            "{} behind by no option, acting with those after",
            names(world, &unset)
        ));
    }
    let also = if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join("; "))
    };
    format!("The tie is broken by {why}: {a} before {b}{also}.")
}

/// Each option of 003 §II G that sets one of `layer` before one of `left`,
/// with the pairs it sets: "more attacks (Slinger before Axe)".
fn tie_reasons(world: &World, layer: &[Planned], left: &[Planned]) -> String {
    let mut reasons: Vec<(&str, Vec<String>)> = Vec::new();
    for a in layer {
        for b in left {
            let Some(why) = beats(world, (a, b)) else {
                continue;
            };
            let pair = format!("{} before {}", name(world, a.actor), name(world, b.actor));
            match reasons.iter_mut().find(|(w, _)| *w == why) {
                Some((_, pairs)) => pairs.push(pair),
                None => reasons.push((why, vec![pair])),
            }
        }
    }
    let each: Vec<String> = reasons
        .iter()
        .map(|(why, pairs)| format!("{why} ({})", pairs.join(", ")))
        .collect();
    each.join("; ")
}

fn names(world: &World, ps: &[Planned]) -> String {
    ps.iter()
        .map(|p| name(world, p.actor))
        .collect::<Vec<_>>()
        .join(", ")
}

fn note(world: &mut World, e: Entity, kind: EventKind, rule: &str, text: String) {
    let who = name(world, e);
    let rule = rule.to_string();
    record(world, || Event::new(kind, rule, text).actor(&who));
}

/// Carry out `e`'s order.
fn carry_out(world: &mut World, e: Entity, plan: Plan) {
    let who = name(world, e);
    let rate = orders::rate_left(world, e);
    match plan {
        Plan::Attack { target, after } => attack_order(world, e, target, after, rate),
        Plan::Step { to, target } => step(world, e, to, target),
        Plan::Move { to } => {
            let cells = path_cells(world, e, to);
            walk(world, e, cells, rate, Provokes::Within { free: 1 });
        }
        Plan::Run { to } => run(world, e, to, rate),
        Plan::Fire {
            target,
            from,
            after,
        } => {
            let moved = fire(world, e, target, from, rate);
            if let (Some(to), Some(moved)) = (after, moved)
                && up(world, e)
            {
                let cells = path_cells(world, e, to);
                walk(
                    world,
                    e,
                    cells,
                    rate.saturating_sub(moved),
                    Provokes::Within { free: 1 },
                );
            }
        }
        Plan::Cast {
            spell,
            target,
            from,
            after,
        } => cast(world, e, (spell, target, from), after),
        Plan::Ready if spent_already(world, e, "it readies no missile") => {}
        Plan::Ready => {
            // Ruling readied_missile: readying is the round's attack: no
            // first strike nor any other attack follows it this round.
            world.entity_mut(e).insert(super::Readied);
            if let Some(mut rs) = world.get_mut::<RoundState>(e) {
                rs.attacked = true;
            }
            note(
                world,
                e,
                EventKind::Ready,
                "003 §III A",
                format!("{who} readies a missile: next round it may fire before initiative."),
            );
        }
        Plan::Parry if spent_already(world, e, "it has none left to give up for a parry") => {}
        Plan::Parry => parry(world, e),
        Plan::FallBack { to, target } => fall_back(world, e, to, target),
        Plan::Disengage => disengage(world, e),
        Plan::Retreat => retreat(world, e),
        Plan::Flee => flee(world, e),
        Plan::Surrender => surrender(world, e),
        Plan::Wait | Plan::Hold => wait(world, e),
        Plan::Complete => complete_spell(world, e),
        Plan::FightOn { target, asked } => fight_on(world, e, target, asked),
        Plan::RunOff { cells } => run_off(world, e, cells),
        Plan::RunOn { cells } => run_on(world, e, cells),
    }
}

/// 003 §III D: move to `from`, if given, within the standard rate, then
/// shoot, if the target is still within the missile's range. The squares
/// moved, or `None` if the shooter fell on the way.
fn fire(
    world: &mut World,
    e: Entity,
    target: Entity,
    from: Option<Cell>,
    rate: u32,
) -> Option<u32> {
    let range = orders::missile_weapon(world, e).map_or(0, |(_, w)| w.range);
    let moved = move_first(world, e, from, rate)?;
    let whom = name(world, target);
    if !spent_already(world, e, &format!("its shot at {whom} is lost"))
        && in_range(world, (e, target), range, "shot")
    {
        combat::fire(world, e, target, "ruling attack_roll");
    }
    Some(moved)
}

/// 003 §III D: "Movement may be split as desired before and/or after
/// attacking/casting": the move before, to `to` if given, within the
/// standard `rate`. The squares moved, or `None` if the mover fell on the
/// way.
fn move_first(world: &mut World, e: Entity, to: Option<Cell>, rate: u32) -> Option<u32> {
    let Some(to) = to else {
        return Some(0);
    };
    let cells = path_cells(world, e, to);
    let (moved, stands) = walk(world, e, cells, rate, Provokes::Within { free: 1 });
    stands.then_some(moved)
}

/// Whether `target` stands within `range` of `e` and in its sight (ruling
/// `in_sight`), saying so when not (a move before cut short, or the target
/// moved since the order was given): then no `what` (shot, spell).
fn in_range(world: &mut World, (e, target): (Entity, Entity), range: u32, what: &str) -> bool {
    let Some(beyond) = combat::beyond(world, (e, target), range) else {
        return true;
    };
    let (who, whom) = (name(world, e), name(world, target));
    let (rule, text) = match beyond {
        combat::Beyond::Range(d) => (
            "003 §III D",
            format!("{whom} is out of {who}'s range ({d} squares, range {range}): no {what}."),
        ),
        combat::Beyond::Sight => (
            "ruling in_sight",
            format!("{whom} is out of {who}'s sight behind an obstacle: no {what}."),
        ),
    };
    note(world, e, EventKind::OutOfReach, rule, text);
    false
}

/// 003 §III B: whether `e`'s attacks of the round are spent.
fn spent(world: &World, e: Entity) -> bool {
    world.get::<RoundState>(e).is_some_and(|r| r.attacked)
}

/// 003 §III B, "ALL a characters attacks resolve on their turn": whether
/// `e` has spent its attacks of the round already, since its order was
/// given (struck first by a longer weapon in its instant, ruling
/// length_strike; a shot before initiative, ruling readied_missile),
/// saying what is `lost` when so.
fn spent_already(world: &mut World, e: Entity, lost: &str) -> bool {
    if !spent(world, e) {
        return false;
    }
    let who = name(world, e);
    note(
        world,
        e,
        EventKind::NoAction,
        "003 §III B",
        format!("{who} has spent its attacks of the round already: {lost}."),
    );
    true
}

/// The cells of `e`'s path to `to`, empty when there is none.
fn path_cells(world: &World, e: Entity, to: Cell) -> Vec<Cell> {
    orders::path(world, e, to, 0)
        .map(|p| p.0)
        .unwrap_or_default()
}

/// 003 §III D: move up to the rate, attack, then move the rest (`after`).
fn attack_order(world: &mut World, e: Entity, target: Entity, after: Option<Cell>, rate: u32) {
    if !up(world, target) {
        // Felled before this order's turn (earlier in its instant, too).
        let (who, whom) = (name(world, e), name(world, target));
        note(
            world,
            e,
            EventKind::NoAction,
            "003 §III B",
            format!("{whom} is down already: {who}'s attack on it is lost."),
        );
        return;
    }
    let whom = name(world, target);
    if spent_already(
        world,
        e,
        &format!("its attack on {whom} is lost, and it does not close"),
    ) {
        return;
    }
    let within = Provokes::Within { free: 1 };
    let goal = cell(world, target);
    let cells = orders::path(world, e, goal, 1)
        .map(|p| p.0)
        .unwrap_or_default();
    let (moved, alive) = walk(world, e, cells, rate, within);
    if !alive {
        return;
    }
    let adjacent = world
        .resource::<Grid>()
        .distance(cell(world, e), cell(world, target))
        == 1;
    if up(world, target) && adjacent && !spent(world, e) {
        let first = moved > 0 && combat::longer(world, e, target);
        strike_entering(world, e, target, first);
    } else if up(world, target) && !adjacent {
        let (who, whom) = (name(world, e), name(world, target));
        note(
            world,
            e,
            EventKind::OutOfReach,
            "003 §III B",
            format!("{who} cannot reach {whom} this round: no blow."),
        );
    }
    if let Some(to) = after {
        let cells = path_cells(world, e, to);
        walk(world, e, cells, rate.saturating_sub(moved), within);
    }
}

/// 003 §III B: `e`'s attacks of the round at `target`. Having just entered
/// its melee range with the longer weapon (`first`), 003 §II E: against a
/// target still to act at this same instant it strikes first, its blows
/// landing at once. Bare hands against a weapon that has not struck yet,
/// the weapon strikes first (ruling armed_first).
fn strike_entering(world: &mut World, e: Entity, target: Entity, first: bool) {
    // Striking first matters only against a target acting at this same
    // instant; otherwise the blows land with the rest of the instant's, its
    // allies' among them ("Ties are just that", 003 §II F).
    if !first || !acting_now(world, target) {
        if armed_in_the_tie(world, e, target) {
            let (who, whom) = (name(world, e), name(world, target));
            record(world, || {
                Event::new(
                    EventKind::Attack,
                    "003 §II E",
                    format!("{who}'s weapon wins initiative against the unarmed {whom}, who acts at the same instant: it strikes first (ruling armed_first)."),
                )
                .actor(&who)
                .target(&whom)
            });
            routine(world, e, target, "003 §II E", true);
        } else if !combat::armed_first(world, e, target) {
            routine(world, e, target, "003 §III B", false);
        }
        return;
    }
    let (who, whom) = (name(world, e), name(world, target));
    let text = format!(
        "{who} comes into {whom}'s melee range with the longer weapon and strikes first, regardless of initiative."
    );
    record(world, || {
        Event::new(EventKind::Attack, "003 §II E", text)
            .actor(&who)
            .target(&whom)
    });
    routine(world, e, target, "003 §II E", true);
}

/// 003 §II E: "Weapons always win initiative vs. unarmed" (ruling
/// armed_first): armed `e` strikes unarmed `target`, who is still to act at
/// this same instant, so its blows land at once rather than together.
fn armed_in_the_tie(world: &World, e: Entity, target: Entity) -> bool {
    combat::beats_bare_hands(world, e, target) && acting_now(world, target)
}

/// Whether `t` is still to act at this same instant (003 §II F).
fn acting_now(world: &World, t: Entity) -> bool {
    world
        .resource::<Flow>()
        .group
        .acting()
        .iter()
        .any(|p| p.actor == t)
}

/// 003 §The 5' Step: a shift that draws nothing, then the attack.
fn step(world: &mut World, e: Entity, to: Cell, target: Option<Entity>) {
    let (who, from) = (name(world, e), cell(world, e));
    let apart = |world: &World, t: Entity| {
        world
            .resource::<Grid>()
            .distance(cell(world, e), cell(world, t))
    };
    let entering = target.is_some_and(|t| apart(world, t) > 1);
    // Someone earlier in its instant may have taken the square, or fallen
    // in it.
    if orders::free_cell(world, e, to).is_err() {
        note(
            world,
            e,
            EventKind::Stop,
            "003 §The 5' Step",
            format!("{who} cannot take its 5' step to {to}: the square is no longer free."),
        );
    } else {
        note(
            world,
            e,
            EventKind::Move,
            "003 §The 5' Step",
            format!("{who} takes a 5' step from {from} to {to}: no attack of opportunity."),
        );
        if !walk_quietly(world, e, vec![to], true).1 {
            return;
        }
    }
    if let Some(t) = target
        && up(world, t)
        && apart(world, t) == 1
        && !spent_already(
            world,
            e,
            &format!("its attack on {} is lost", name(world, t)),
        )
    {
        let first = entering && combat::longer(world, e, t);
        strike_entering(world, e, t, first);
    }
}

/// 003 §III D: faster than the rate, giving up combat and casting.
fn run(world: &mut World, e: Entity, to: Cell, rate: u32) {
    let who = name(world, e);
    note(
        world,
        e,
        EventKind::Move,
        "003 §III D",
        format!(
            "{who} runs: moving faster than its rate, it gives up combat and casting this round."
        ),
    );
    if let Some(mut rs) = world.get_mut::<RoundState>(e) {
        rs.give_up_combat();
    }
    let cells = path_cells(world, e, to);
    // Ruling running_rate: running out of melee is turning one's back, as
    // in a flight (003 §Withdrawal Tactics, "Your opponent gets your back").
    let mut asked = false;
    for f in orders::run_from(world, e, &cells) {
        if let Some(mut rs) = world.get_mut::<RoundState>(e) {
            rs.running = true;
            rs.turned_from.push(f);
        }
        asked |= ask_reaction(world, f, e, Reaction::BackBlow);
    }
    let mult = world.resource::<Data>().0.ruling_numbers.run_multiplier;
    if asked {
        let rest = Planned {
            actor: e,
            plan: Plan::RunOn { cells },
        };
        world.resource_mut::<Flow>().group.act_next(rest);
    } else {
        walk(world, e, cells, rate * mult, Provokes::Within { free: 1 });
    }
}

/// The run from melee, once the blows at its back have fallen.
fn run_on(world: &mut World, e: Entity, cells: Vec<Cell>) {
    if !up(world, e) {
        return;
    }
    let mult = world.resource::<Data>().0.ruling_numbers.run_multiplier;
    let rate = orders::rate_left(world, e);
    walk(world, e, cells, rate * mult, Provokes::Within { free: 1 });
}

/// 003 §Withdrawal Tactics: disengaging, it retreats after every count.
fn disengage(world: &mut World, e: Entity) {
    let who = name(world, e);
    if let Some(mut rs) = world.get_mut::<RoundState>(e) {
        rs.give_up_combat();
        rs.disengaging = true;
    }
    world
        .resource_mut::<Flow>()
        .queue
        .push((DISENGAGE_COUNT, Act::Disengage(e)));
    note(
        world,
        e,
        EventKind::Manoeuvre,
        "003 §Withdrawal Tactics · ruling disengage",
        format!(
            "{who} disengages: it stops fighting and gives up all initiative advantage, retreating after every count, front kept to the enemy."
        ),
    );
}

/// Ruling `wait`, or 003 §III A: a readied missile not fired by its turn
/// is lost.
fn wait(world: &mut World, e: Entity) {
    let who = name(world, e);
    let lost = world
        .get::<RoundState>(e)
        .is_some_and(|r| r.holding_readied);
    if lost {
        note(
            world,
            e,
            EventKind::Lost,
            "003 §III A",
            format!("{who} does not fire the readied missile by its turn: the action is lost."),
        );
    } else {
        note(
            world,
            e,
            EventKind::Wait,
            "ruling wait",
            format!("{who} waits."),
        );
    }
}

/// 003 §II C: a spell whose casting time is over goes off at its target.
/// 003 §III D: then its caster moves on, if told to.
fn complete_spell(world: &mut World, e: Entity) {
    let aimed = world
        .resource::<Flow>()
        .spell_targets
        .iter()
        .find(|(c, _, _)| *c == e)
        .map(|p| (p.1, p.2));
    world
        .resource_mut::<Flow>()
        .spell_targets
        .retain(|(c, _, _)| *c != e);
    let Some((t, after)) = aimed else {
        return;
    };
    combat::complete(world, e, t);
    // A spell spoiled meanwhile stops only the casting (003 §Casting in
    // Combat): the move goes on.
    if let Some((to, cap)) = after
        && up(world, e)
    {
        let most = orders::rate_left(world, e).min(cap);
        let cells = path_cells(world, e, to);
        walk(world, e, cells, most, Provokes::Within { free: 1 });
    }
}

fn parry(world: &mut World, e: Entity) {
    if let Some(mut rs) = world.get_mut::<RoundState>(e) {
        rs.parrying = true;
        rs.attacked = true;
    }
    let who = name(world, e);
    // Its own choice at its turn, not an interrupt of another's.
    note(
        world,
        e,
        EventKind::Defend,
        "ruling parry",
        format!("{who} parries instead of attacking until its next turn."),
    );
}

/// 003 §Casting in Combat: `e`, damaged this round before it could begin
/// its spell, casts nothing, but "this does not prevent other actions": it
/// is asked for another order, carried out at once.
fn spoiled(world: &mut World, e: Entity) {
    let who = name(world, e);
    note(
        world,
        e,
        EventKind::Spoiled,
        "003 §Casting in Combat",
        format!(
            "{who} was damaged this round: no spell can be completed, but it may act otherwise."
        ),
    );
    if !up(world, e) {
        return;
    }
    // Marked first, so the choices offered count the walk to cast
    // (orders.rs rate_left).
    world.resource_mut::<Flow>().instead.push(e);
    let id = decision::ask(
        world,
        Question {
            actor: e,
            prompt: decision::prompt(world, e, |w| {
                format!(
                    "{}: damaged, you cannot cast this round; another order",
                    name(w, e)
                )
            }),
            rule: "003 §Casting in Combat".into(),
            secret: false,
            move_order: Some(Order::new(&who, "move")),
            choices: orders::choices,
        },
    );
    world.resource_mut::<Flow>().asking.push((id, e));
}

/// 003 §II C–D, §III C: begin a spell; it goes off after its casting time
/// (a full round: last in the round). Casting in melee range draws attacks
/// of opportunity, and damage now loses the spell from memory.
fn cast(
    world: &mut World,
    e: Entity,
    (spell, target, from): (String, Entity, Option<Cell>),
    after: Option<Cell>,
) {
    let rate = orders::rate_left(world, e);
    let Some(moved) = move_first(world, e, from, rate) else {
        return;
    };
    if spent_already(world, e, &format!("its {spell} is not begun")) {
        return;
    }
    if !fray_core::casting::may_cast(world, e) {
        spoiled(world, e);
        return;
    }
    let data = world.resource::<Data>().0.clone();
    let Some(s) = data.spells.get(&spell) else {
        return;
    };
    if !in_range(world, (e, target), s.range, "spell") {
        return;
    }
    let count = world.resource::<Flow>().count.unwrap_or(0);
    let full = s.casting_time >= data.ruling_numbers.full_round;
    let completes = if full {
        LAST_COUNT
    } else {
        count + s.casting_time as i32
    };
    world.entity_mut(e).insert(Casting {
        spell: spell.clone(),
        began: count.max(0) as u32,
        completes: completes.max(0) as u32,
    });
    if let Some(mut rs) = world.get_mut::<RoundState>(e) {
        rs.attacked = true;
    }
    let (who, whom) = (name(world, e), name(world, target));
    // The surprise round's counts are its surprise rolls, highest first
    // (003 §I D): not counts a person reads on the initiative dice.
    let surprise = world.resource::<Flow>().surprise_round;
    let when = match () {
        () if full => "last in the round (a full-round spell)".to_string(),
        () if surprise && completes < 0 => format!(
            "{} later in the surprise round",
            fray_core::model::count_of(s.casting_time, "count")
        ),
        () if surprise => "at the end of the surprise round".to_string(),
        () => format!("at count {completes}"),
    };
    let text = format!(
        "{who} begins casting {spell} at {whom} (casting time {}, ruling casting_time): it goes off {when}.",
        fray_core::model::count_of(s.casting_time, "segment")
    );
    record(world, || {
        Event::new(EventKind::BeginCast, "003 §II C", text)
            .actor(&who)
            .target(&whom)
    });
    {
        let cap = orders::after_cast_rate(world, &spell, rate.saturating_sub(moved));
        let mut flow = world.resource_mut::<Flow>();
        flow.spell_targets
            .push((e, target, after.map(|c| (c, cap))));
        let at = flow
            .queue
            .iter()
            .position(|(c, _)| *c > completes)
            .unwrap_or(flow.queue.len());
        flow.queue.insert(at, (completes, Act::Complete(e)));
    }
    for foe in adjacent_enemies(world, e, cell(world, e)) {
        if opportunity(
            world,
            foe,
            e,
            "casts a spell in its melee range",
            "003 §III C",
            false,
        ) {
            return;
        }
    }
}

/// Log a stretch of a move: the squares stepped since the last stretch
/// ended at `from`, which may be more than the straight line between.
fn log_move(world: &mut World, e: Entity, from: &mut Cell, steps: &mut u32) {
    let here = cell(world, e);
    if here == *from {
        return;
    }
    let (who, start, n) = (name(world, e), *from, *steps);
    (*from, *steps) = (here, 0);
    record(world, || {
        Event::new(
            EventKind::Move,
            "003 §III D",
            format!(
                "{who} moves from {start} to {here} ({}).",
                fray_core::movement::cells(n)
            ),
        )
        .actor(&who)
    });
}

/// Walk `cells` within `budget`: stepping on within an opponent's melee
/// range draws its attack of opportunity (003 §III F, before the step);
/// entering the range of a longer weapon lets it strike first (003 §II E).
/// Returns the squares moved and whether the walker still stands.
fn walk(
    world: &mut World,
    e: Entity,
    cells: Vec<Cell>,
    budget: u32,
    provokes: Provokes,
) -> (u32, bool) {
    let mut walk = Walk::new(e, cells, budget, provokes);
    // 003 §III F counts the round's moving within each opponent's range,
    // a move split around an attack or a spell included.
    if let Some(rs) = world.get::<RoundState>(e) {
        walk.within = rs.within.clone();
    }
    let done = walk_on(world, e, &mut walk);
    if let Some(mut rs) = world.get_mut::<RoundState>(e) {
        rs.within = std::mem::take(&mut walk.within);
        rs.walked += walk.spent;
    }
    done
}

/// [`walk`] step by step: the cells moved, and whether `e` is still up.
fn walk_on(world: &mut World, e: Entity, walk: &mut Walk) -> (u32, bool) {
    let (mut from, mut steps) = (cell(world, e), 0);
    let mut spared = Vec::new();
    loop {
        let all = threats(world, e);
        let taken = orders::occupied(world, e);
        walk.pass_only = orders::bodies(world, e);
        let Ok(step) = walk.next(world.resource::<Grid>(), cell(world, e), &taken, &all) else {
            break;
        };
        // Those it turned its back on had their blow at its back, or let
        // it go (003 §Withdrawal Tactics): the walk away draws no more.
        let turned_from = world
            .get::<RoundState>(e)
            .map(|rs| rs.turned_from.clone())
            .unwrap_or_default();
        let (lets_go, provoked): (Vec<Entity>, Vec<Entity>) = step
            .provoked
            .iter()
            .copied()
            .filter(|&p| may_take_opportunity(world, p) && !turned_from.contains(&p))
            .partition(|&p| orders::lets_disengage(world, p, e));
        for p in lets_go {
            log_move(world, e, &mut from, &mut steps);
            spare(world, p, e, &mut spared);
        }
        if !provoked.is_empty() {
            log_move(world, e, &mut from, &mut steps);
            for p in provoked {
                let (who, by) = (name(world, e), name(world, p));
                record(world, || {
                    Event::new(
                        EventKind::Provoke,
                        "003 §III F",
                        format!("{who} moves more than 5' within {by}'s melee range."),
                    )
                    .actor(&who)
                });
                if opportunity(
                    world,
                    p,
                    e,
                    "moves on within its melee range",
                    "003 §III F",
                    false,
                ) {
                    return (walk.spent, false);
                }
            }
        }
        if walk.pass_only.contains(&step.to) {
            log_move(world, e, &mut from, &mut steps);
            over_the_fallen(world, e, step.to);
        }
        let (lets_go, strikers): (Vec<Entity>, Vec<Entity>) = length_first(world, e, &[step.to])
            .into_iter()
            .partition(|&s| orders::lets_disengage(world, s, e));
        for s in lets_go {
            spare(world, s, e, &mut spared);
        }
        walk.take(world, &step, &all);
        steps += 1;
        for s in strikers {
            log_move(world, e, &mut from, &mut steps);
            if length_strike(world, s, e) {
                return (walk.spent, false);
            }
        }
    }
    log_move(world, e, &mut from, &mut steps);
    (walk.spent, up(world, e))
}

/// Ruling `disengage`: monster `by` does not press player character `e`
/// disengaging, and lets a blow it might take at it go, said once a walk.
fn spare(world: &mut World, by: Entity, e: Entity, spared: &mut Vec<Entity>) {
    if spared.contains(&by) {
        return;
    }
    spared.push(by);
    let (who, whom) = (name(world, by), name(world, e));
    note(
        world,
        by,
        EventKind::Wait,
        "ruling disengage",
        format!(
            "{who} lets {whom} disengage without pressing it: no blow as it goes (003 §Withdrawal Tactics)."
        ),
    );
}

/// Ruling `fallen_bodies`: say that `e` steps over whoever lies fallen at
/// `at`.
fn over_the_fallen(world: &mut World, e: Entity, at: Cell) {
    let Some(fallen) = super::roster(world)
        .into_iter()
        .find(|&x| x != e && world.get::<super::Down>(x).is_some() && cell(world, x) == at)
    else {
        return;
    };
    let (who, whom) = (name(world, e), name(world, fallen));
    note(
        world,
        e,
        EventKind::Move,
        "ruling fallen_bodies",
        format!("{who} steps over {whom}, who lies fallen at {at}."),
    );
}

/// Walk without drawing anything (a 5' step, a follower). A 5' step into
/// a longer weapon's range is still struck first (003 §II E; ruling
/// `length_strike`); a follower is not (ruling `follow`: "nobody gains
/// additional attacks", 003 §Withdrawal Tactics). Returns the squares
/// moved and whether the walker still stands.
fn walk_quietly(
    world: &mut World,
    e: Entity,
    cells: Vec<Cell>,
    length_first_too: bool,
) -> (u32, bool) {
    let mut steps = 0;
    let mut w = Walk::new(e, cells, u32::MAX, Provokes::Never);
    w.pass_only = orders::bodies(world, e);
    while let Ok(step) = w.next(
        world.resource::<Grid>(),
        cell(world, e),
        &orders::occupied(world, e),
        &[],
    ) {
        let strikers = if length_first_too {
            length_first(world, e, &[step.to])
        } else {
            Vec::new()
        };
        w.take(world, &step, &[]);
        steps += 1;
        if let Some(mut rs) = world.get_mut::<RoundState>(e) {
            rs.walked += step.cost;
        }
        for s in strikers {
            if length_strike(world, s, e) {
                return (steps, false);
            }
        }
    }
    (steps, up(world, e))
}

/// 003 §Withdrawal Tactics, fall back fighting: up to 10' back, front kept
/// (the first 5' out of reach draws nothing); engaged opponents are asked
/// whether to follow (ruling `follow`), and nobody gains attacks by it;
/// then, once they have chosen, fight or parry.
fn fall_back(world: &mut World, e: Entity, to: Cell, target: Option<Entity>) {
    let who = name(world, e);
    let engaged = adjacent_enemies(world, e, cell(world, e));
    note(
        world,
        e,
        EventKind::Manoeuvre,
        "003 §Withdrawal Tactics",
        format!("{who} falls back, fighting, its front to the enemy."),
    );
    let most = orders::fall_back_cells(world, e);
    let cells = orders::path(world, e, to, 0)
        .map(|p| p.0)
        .unwrap_or_default();
    if !walk(world, e, cells, most, Provokes::Within { free: 1 }).1 {
        return;
    }
    let mut asked = false;
    for f in engaged {
        asked |= ask_reaction(world, f, e, Reaction::Follow);
    }
    let rest = Planned {
        actor: e,
        plan: Plan::FightOn {
            target,
            asked: false,
        },
    };
    if asked {
        world.resource_mut::<Flow>().group.act_next(rest);
    } else {
        carry_out(world, e, rest.plan);
    }
}

/// The rest of a fall back: fight the one named if still in reach; if it
/// did not follow, the one who fell back is asked whom else to fight, or to
/// parry (003 §Withdrawal Tactics: "you can rest, redirect your attacks");
/// unasked, a monster fights whoever is in reach, anyone else parries.
fn fight_on(world: &mut World, e: Entity, target: Option<Entity>, asked: bool) {
    if spent_already(world, e, "it fights on without a blow") {
        return;
    }
    let here = cell(world, e);
    let in_reach =
        |t: Entity| up(world, t) && world.resource::<Grid>().distance(here, cell(world, t)) == 1;
    if let Some(t) = target.filter(|&t| in_reach(t)) {
        routine(world, e, t, "003 §Withdrawal Tactics", false);
        return;
    }
    let others = adjacent_enemies(world, e, here);
    if let Some(t) = target.filter(|_| !asked && !others.is_empty())
        && ask_reaction(world, e, t, Reaction::Redirect)
    {
        let rest = Planned {
            actor: e,
            plan: Plan::FightOn {
                target: None,
                asked: true,
            },
        };
        world.resource_mut::<Flow>().group.act_next(rest);
        return;
    }
    match others.first() {
        Some(&t) if world.get::<super::Monster>(e).is_some() => {
            routine(world, e, t, "003 §Withdrawal Tactics", false)
        }
        _ => parry(world, e),
    }
}

/// 003 §Withdrawal Tactics: `f`, engaged with `them` as it withdraws, is
/// asked at once whether to follow it (ruling `follow`: if it may) or to
/// strike at its back. True if asked.
fn ask_reaction(world: &mut World, f: Entity, them: Entity, about: Reaction) -> bool {
    let may = match about {
        Reaction::Follow => orders::follow_way(world, f, them).is_some(),
        Reaction::BackBlow => orders::may_take_opportunity(world, f),
        Reaction::Redirect => true,
    };
    if !may {
        return false;
    }
    let whom = name(world, them);
    let id = decision::ask(
        world,
        Question {
            actor: f,
            prompt: decision::prompt(world, f, |w| match about {
                Reaction::Follow => format!("{}: {whom} falls back; follow, or stay", name(w, f)),
                Reaction::BackBlow => format!(
                    "{}: {whom} turns to {}; strike at its back, or let it go",
                    name(w, f),
                    flees_or_runs(w, them)
                ),
                Reaction::Redirect => format!(
                    "{}: {whom} did not follow; attack another in reach, or parry",
                    name(w, f)
                ),
            }),
            rule: "003 §Withdrawal Tactics".into(),
            secret: false,
            move_order: None,
            choices: orders::reaction_choices,
        },
    );
    let mut flow = world.resource_mut::<Flow>();
    flow.asking.push((id, f));
    flow.reacting.push((id, f, them, about));
    true
}

/// The answers of those asked about one withdrawing: followers go back into
/// reach by the shortest way, drawing nothing (ruling `follow`); blows at a
/// fleeing back land, and the strikers may not pursue.
fn take_reactions(world: &mut World) {
    let taken = decision::take_answers(world, "003 §Withdrawal Tactics", |w, d, o| {
        orders::validate_reaction(w, d.actor, o)
    });
    for (d, aimed) in taken {
        let yes = aimed.is_some();
        let asked = orders::reacting(world, d.actor);
        let mut flow = world.resource_mut::<Flow>();
        flow.asking.retain(|(id, _)| *id != d.id);
        flow.reacting.retain(|x| x.0 != d.id);
        let Some((them, about)) = asked else {
            continue;
        };
        let (who, whom) = (name(world, d.actor), name(world, them));
        if about != Reaction::Redirect && !up(world, them) {
            // Felled by another's blow at its back since it was asked.
            record(world, || {
                Event::new(
                    EventKind::Wait,
                    "003 §Withdrawal Tactics",
                    format!("{whom} is down: {who} has no one to follow or strike at."),
                )
                .actor(&who)
            });
            continue;
        }
        match about {
            Reaction::Redirect => redirect(world, d.actor, aimed),
            Reaction::Follow if yes => follow(world, d.actor, them),
            Reaction::BackBlow if yes => strike_back(world, d.actor, them),
            Reaction::Follow => record(world, || {
                Event::new(
                    EventKind::Pass,
                    "ruling follow",
                    format!(
                        "{who} stays and lets {whom} open the space (003 §Withdrawal Tactics)."
                    ),
                )
                .actor(&who)
            }),
            Reaction::BackBlow => record(world, || {
                Event::new(
                    EventKind::Pass,
                    "003 §Withdrawal Tactics",
                    format!("{who} lets {whom} go without a blow at its back, and may pursue it."),
                )
                .actor(&who)
            }),
        }
    }
}

/// The answer of `e`, not followed: the rest of its fall back becomes an
/// attack on `aimed`, or a parry.
fn redirect(world: &mut World, e: Entity, aimed: Option<Entity>) {
    let plan = match aimed {
        Some(t) => Plan::FightOn {
            target: Some(t),
            asked: true,
        },
        None => Plan::Parry,
    };
    let mut flow = world.resource_mut::<Flow>();
    if let Some(p) = flow
        .group
        .acting_mut()
        .iter_mut()
        .find(|p| p.actor == e && matches!(p.plan, Plan::FightOn { .. }))
    {
        p.plan = plan;
    }
}

/// Ruling `follow`: `f` follows the one falling back into reach again,
/// drawing nothing.
fn follow(world: &mut World, f: Entity, leader: Entity) {
    let Some((cells, cost)) = orders::follow_way(world, f, leader) else {
        let (who, whom) = (name(world, f), name(world, leader));
        record(world, || {
            Event::new(
                EventKind::Wait,
                "ruling follow",
                format!("{who} would follow {whom}, but no longer can: the way is blocked or beyond its movement."),
            )
            .actor(&who)
        });
        return;
    };
    let (who, whom) = (name(world, f), name(world, leader));
    record(world, || {
        Event::new(EventKind::Move, "ruling follow", format!("{who} follows {whom}: the line of contact shifts and nobody gains an attack by it (003 §Withdrawal Tactics).")).actor(&who)
    });
    if let Some(mut rs) = world.get_mut::<RoundState>(f) {
        rs.followed += cost;
    }
    let mut from = cell(world, f);
    let (mut steps, _) = walk_quietly(world, f, cells, false);
    log_move(world, f, &mut from, &mut steps);
}

/// Off the battlefield at an edge: gone.
fn leave_if_at_edge(world: &mut World, e: Entity, rule: &'static str) {
    let c = cell(world, e);
    let grid = world.resource::<Grid>();
    let edge =
        c.x == 0 || c.y == 0 || c.x == grid.width() as i32 - 1 || c.y == grid.height() as i32 - 1;
    if edge && up(world, e) {
        fray_core::model::out_of_the_fight(world, e, super::Fled, rule, |n| {
            format!("{n} leaves the battlefield and is out of the fight.")
        });
        world.entity_mut(e).remove::<fray_core::model::Blocking>();
    }
}

/// 003 §Withdrawal Tactics, disengage-retreat, after every count: away at
/// the standard rate, no fighting, front kept (so no blow at the back).
fn retreat(world: &mut World, e: Entity) {
    let who = name(world, e);
    note(
        world,
        e,
        EventKind::Manoeuvre,
        "003 §Withdrawal Tactics",
        format!("{who} retreats, keeping its front to the enemy."),
    );
    let rate = orders::rate_left(world, e);
    let Some(cells) = orders::flight(world, e) else {
        // Ruling flight_path: cornered, a monster surrenders; a player
        // character, whose choice it was, holds where it stands.
        note(
            world,
            e,
            EventKind::Manoeuvre,
            "ruling flight_path",
            format!("{who} has nowhere to retreat to."),
        );
        if world.get::<super::Monster>(e).is_some() {
            surrender(world, e);
        }
        return;
    };
    if walk(world, e, cells, rate, Provokes::Within { free: 1 }).1 {
        leave_if_at_edge(world, e, "ruling flight_path");
    }
}

/// 003 §Withdrawal Tactics, flee in panic: opponents in reach may strike at
/// the back and then may not pursue; an NPC drops its weapon (ruling
/// `drop_on_flight`); it runs at double rate. Cornered, it surrenders.
fn flee(world: &mut World, e: Entity) {
    let who = name(world, e);
    let Some(cells) = orders::flight(world, e) else {
        note(
            world,
            e,
            EventKind::Manoeuvre,
            "ruling flight_path",
            format!("{who} has nowhere to run."),
        );
        surrender(world, e);
        return;
    };
    note(
        world,
        e,
        EventKind::Fled,
        "003 §Withdrawal Tactics",
        format!("{who} turns and flees in panic: its opponents get its back."),
    );
    let mut asked = false;
    for f in adjacent_enemies(world, e, cell(world, e)) {
        if let Some(mut rs) = world.get_mut::<RoundState>(e) {
            rs.turned_from.push(f);
        }
        asked |= ask_reaction(world, f, e, Reaction::BackBlow);
    }
    if asked {
        let rest = Planned {
            actor: e,
            plan: Plan::RunOff { cells },
        };
        world.resource_mut::<Flow>().group.act_next(rest);
    } else {
        run_off(world, e, cells);
    }
}

/// Whether `e` turns its back to flee, or to run from melee (ruling
/// `running_rate`).
fn flees_or_runs(world: &World, e: Entity) -> &'static str {
    match world.get::<RoundState>(e) {
        Some(rs) if rs.running => "run",
        _ => "flee",
    }
}

/// A blow at the back of `e`, fleeing, by `f`, who then may not pursue on
/// its turn (003 §Withdrawal Tactics; ruling `no_pursuit`).
fn strike_back(world: &mut World, f: Entity, e: Entity) {
    if !up(world, e) || !orders::may_take_opportunity(world, f) {
        let (who, whom) = (name(world, f), name(world, e));
        record(world, || {
            Event::new(
                EventKind::Wait,
                "003 §Withdrawal Tactics",
                format!("{who} would strike at {whom}'s back, but the chance has passed: one of them is down or it has had its attack of opportunity this round."),
            )
            .actor(&who)
        });
        return;
    }
    let why = format!("turns its back to {}", flees_or_runs(world, e));
    opportunity(world, f, e, &why, "003 §Withdrawal Tactics", true);
    // Ruling no_pursuit: on its turn, next round's if this round's is past.
    if let Some(mut rs) = world.get_mut::<RoundState>(f) {
        if rs.had_turn {
            rs.no_pursuit_next = true;
        } else {
            rs.no_pursuit = true;
        }
    }
}

/// The flight itself, once the blows at its back have fallen: at double
/// rate, an NPC dropping its weapon (ruling `drop_on_flight`).
fn run_off(world: &mut World, e: Entity, cells: Vec<Cell>) {
    if !up(world, e) {
        return;
    }
    let who = name(world, e);
    let rn = world.resource::<Data>().0.ruling_numbers.clone();
    let mut budget = orders::rate_left(world, e) * rn.run_multiplier;
    if world.get::<Monster>(e).is_some()
        && world
            .get::<Kit>(e)
            .is_some_and(|k| !k.dropped && !k.weapons.is_empty())
    {
        if let Some(mut k) = world.get_mut::<Kit>(e) {
            k.dropped = true;
        }
        note(
            world,
            e,
            EventKind::Manoeuvre,
            "ruling drop_on_flight",
            format!(
                "{who} drops its weapon as it runs (+{} square).",
                rn.drop_weapon_cells
            ),
        );
    }
    if world.get::<Kit>(e).is_some_and(|k| k.dropped) {
        budget += rn.drop_weapon_cells;
    }
    if let Some(mut rs) = world.get_mut::<RoundState>(e) {
        rs.give_up_combat();
    }
    // 003 §III F: running past others within their melee range draws
    // their attacks of opportunity too.
    if walk(world, e, cells, budget, Provokes::Within { free: 1 }).1 {
        leave_if_at_edge(world, e, "003 §Withdrawal Tactics");
    }
}

/// 003 §Withdrawal Tactics, surrender: out of the fight where it stands.
fn surrender(world: &mut World, e: Entity) {
    fray_core::model::out_of_the_fight(
        world,
        e,
        super::Surrendered,
        "003 §Withdrawal Tactics",
        |n| format!("{n} throws down its weapon and surrenders."),
    );
}
