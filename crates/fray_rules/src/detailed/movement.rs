//! 000 §3: the movement phase, by the trace system (§3.1–3.2). Everyone
//! plots a trace in secret; the traces are revealed; then, repeatedly, those
//! who would stop after the smallest fraction of their remaining trace stop,
//! the others advance by the same fraction, and those who just stopped may
//! strike a mover with blows borrowed from the next round.

use bevy_ecs::prelude::*;
use fray_core::grid::{Cell, Grid, GridGeometry};
use fray_core::log::Event;
use fray_core::log::EventKind;

use super::combat::{self, ask, log, take_answers};
use super::orders::{self, Need, Plan, allowance, attack_weapon, can_spend, reach_of};
use super::{Alert, Ask, Data, DetailedData, Flow, Stage, Trace, alert, enemies, name, roster, up};

/// 000 §3: the movement phase.
pub fn movement_phase(world: &mut World) {
    for (e, what, plan) in take_answers(world) {
        match what {
            Ask::Trace => world.resource_mut::<Flow>().hidden.push((e, plan)),
            Ask::Stopped => strike(world, e, plan),
            Ask::Parry { .. } => combat::parry(world, e, plan),
            _ => {}
        }
    }
    for _ in 0..10_000 {
        if !world.resource::<Flow>().open.is_empty() {
            return;
        }
        if world.resource::<Flow>().attack.is_some() {
            if combat::ask_parrier(world) {
                return;
            }
            combat::resolve_attack(world);
            continue;
        }
        if !world.resource::<Flow>().traced {
            if world.resource::<Flow>().hidden.is_empty() && !asked_traces(world) {
                return;
            }
            // One step shows the traces revealed; each fraction is a step.
            reveal_traces(world);
            return;
        }
        // 000 §3.2.2: those who just stopped may strike a mover.
        let stopper = {
            let mut flow = world.resource_mut::<Flow>();
            (!flow.stopped.is_empty()).then(|| flow.stopped.remove(0))
        };
        if let Some(s) = stopper {
            let who = name(world, s);
            if can_strike(world, s) {
                ask(
                    world,
                    s,
                    Ask::Stopped,
                    |_| {
                        format!(
                            "{who} has stopped: strike a character still moving, borrowing blows from the next round?"
                        )
                    },
                    "000 §3.2.2",
                );
                return;
            }
            if up(world, s) && !alert(world, s) {
                ask(
                    world,
                    s,
                    Ask::Stopped,
                    |_| format!("{who} has stopped: become alert?"),
                    "000 §3",
                );
                return;
            }
            continue;
        }
        if world.resource::<Flow>().traces.iter().all(|t| t.done) {
            end_of_round(world);
            return;
        }
        advance(world);
        return;
    }
}

/// Ask everyone conscious with movement for a trace, secretly; true when
/// nobody is left to ask (everyone stays).
fn asked_traces(world: &mut World) -> bool {
    if world.resource::<Flow>().asked_traces {
        return true;
    }
    world.resource_mut::<Flow>().asked_traces = true;
    let mut any = false;
    for e in roster(world) {
        if !up(world, e) {
            continue;
        }
        // Even with no movement left one is asked: it may stay, and wait
        // to strike a mover (rulings unalert_movement, stop_options); one
        // alert may stop being alert (000 §3). One that took a noncombat
        // option can do neither (000 §3): it stays, unasked.
        let (m, full) = (allowance(world, e, false), allowance(world, e, true));
        if full == 0 && world.get::<super::Noncombat>(e).is_some() {
            let stay = Plan::Stay {
                unalert: false,
                watch: None,
            };
            world.resource_mut::<Flow>().hidden.push((e, stay));
            continue;
        }
        any = true;
        let who = name(world, e);
        let chase = super::orders::chase_cost(world);
        ask(
            world,
            e,
            Ask::Trace,
            |_| {
                if full == 0 {
                    return format!(
                        "{who}: no movement left; stay, or wait to strike a mover, in secret."
                    );
                }
                format!(
                    "{who}: plot a trace, in secret — {m} cells{}; chasing costs {chase}.",
                    if m != full {
                        format!(" ({full} if it stops being alert)")
                    } else {
                        String::new()
                    }
                )
            },
            "000 §3.1",
        );
    }
    !any
}

/// 000 §3.1–3.2: build the traces from the orders and reveal them together.
fn reveal_traces(world: &mut World) {
    let data = world.resource::<Data>().0.clone();
    let mut plans = std::mem::take(&mut world.resource_mut::<Flow>().hidden);
    // In listing order; chasers follow traces: theirs are built last.
    plans.sort_by_key(|(e, p)| {
        let listing = fray_core::model::listing(world, *e);
        (matches!(p, Plan::Chase { .. }), listing)
    });
    let plans = chasers_after_the_chased(plans);
    let grid = world.resource::<Grid>().clone();
    let mut traces: Vec<Trace> = Vec::new();
    let mut words = Vec::new();
    for (e, plan) in plans {
        let Some(&start) = world.get::<Cell>(e) else {
            continue;
        };
        let (trace, word) = plot_trace(world, &data, &grid, &traces, e, start, plan);
        words.push(word);
        traces.push(trace);
    }
    traces.sort_by_key(|t| {
        world
            .get::<fray_core::model::Combatant>(t.who)
            .map_or(u32::MAX, |c| c.listing)
    });
    // 000 §3.2.1: one waiting for someone who does not move ends its
    // movement at once, with those who stay (ruling `stop_options`): it is
    // no mover to be struck.
    let movers: Vec<Entity> = traces
        .iter()
        .filter(|t| !t.path.is_empty())
        .map(|t| t.who)
        .collect();
    // 000 §3.2.1: one whose end point comes at the smallest fraction, none
    // at all, ends with them: a chase or a trace to stop within reach of
    // someone already within reach stops where it starts.
    let starts: Vec<(Entity, Cell)> = traces.iter().map(|t| (t.who, t.start)).collect();
    for t in traces.iter_mut() {
        let reach = strike_reach(world, t.who).max(1);
        let within = |x: Entity| {
            starts
                .iter()
                .find(|(w, _)| *w == x)
                .is_some_and(|&(_, c)| grid.distance(t.start, c) <= reach)
        };
        let waits_for_no_mover =
            t.path.is_empty() && t.stop_near.is_some_and(|x| !movers.contains(&x));
        if waits_for_no_mover || t.stop_near.is_some_and(within) {
            t.done = true;
        }
    }
    // One ended at once that was to rise first rises where it lies, as
    // its trace says (ruling fall).
    for t in traces.iter_mut().filter(|t| t.done && t.rises > 0) {
        t.rises = 0;
        world.entity_mut(t.who).remove::<super::Fallen>();
    }
    log(world, || {
        Event::new(
            EventKind::Traces,
            "000 §3.2",
            if words.is_empty() {
                "Nobody moves.".to_string()
            } else {
                format!("The traces are revealed — {}.", words.join("; "))
            },
        )
    });
    // 000 §3.2.1: those who do not move end their movement at once, and may
    // strike a mover before anyone has moved (000 §3.2.2).
    let staying: Vec<Entity> = traces
        .iter()
        .filter(|t| t.done && up(world, t.who))
        .map(|t| t.who)
        .collect();
    let mut flow = world.resource_mut::<Flow>();
    flow.traces = traces;
    flow.traced = true;
    flow.stopped = staying;
}

/// 000 §3.1: a chaser's trace follows the trace of the one it chases, so a
/// chaser comes after a chaser it chases; of chasers chasing each other
/// round, the first listed comes first. `plans` has the chasers last.
fn chasers_after_the_chased(mut plans: Vec<(Entity, Plan)>) -> Vec<(Entity, Plan)> {
    let first_chaser = plans
        .iter()
        .position(|(_, p)| matches!(p, Plan::Chase { .. }))
        .unwrap_or(plans.len());
    let mut chasers = plans.split_off(first_chaser);
    while !chasers.is_empty() {
        let ready = chasers.iter().position(|(_, p)| match p {
            Plan::Chase { target, .. } => !chasers.iter().any(|(c, _)| c == target),
            _ => true,
        });
        plans.push(chasers.remove(ready.unwrap_or(0)));
    }
    plans
}

/// 000 §3.1: one character's trace, as long as its available movement after
/// alertness is adjusted; a chaser loses 2" of movement. Returns the trace
/// and the words that reveal it.
fn plot_trace(
    world: &mut World,
    data: &DetailedData,
    grid: &Grid,
    traces: &[Trace],
    e: Entity,
    start: Cell,
    plan: Plan,
) -> (Trace, String) {
    let unalert = matches!(
        plan,
        Plan::Trace { unalert: true, .. }
            | Plan::Chase { unalert: true, .. }
            | Plan::Stay { unalert: true, .. }
    );
    if unalert && alert(world, e) {
        world.entity_mut(e).insert(Alert(false));
    }
    let full = allowance(world, e, false) as usize;
    let moves = !matches!(plan, Plan::Stay { .. });
    // Ruling fall: a fallen mover rises first, which takes half its
    // movement (the larger half, ruling half_movement): the head of its
    // trace, spent where it lies, still fallen.
    let rises = if moves {
        super::orders::rising(world, e, full as u32) as usize
    } else {
        0
    };
    let budget = full - rises;
    let (path, stop_near) = trace_path(world, traces, e, &plan);
    let chase = matches!(plan, Plan::Chase { .. });
    let budget = if chase {
        budget.saturating_sub(data.numbers.chase_cost as usize)
    } else {
        budget
    };
    // The budget is movement, not cells: difficult ground costs double
    // (ruling trace_fractions), so the trace goes in steps of movement.
    let cost = |c: &Cell| (grid.enter_cost(*c).unwrap_or(u32::MAX) as usize).min(budget + 1);
    let mut path = in_movement(start, &path, cost);
    path.truncate(budget);
    // A trace whose first cell costs more than the movement enters no
    // cell: it stays, and ends at once (ruling stop_options).
    let short = rises == 0 && cells_moved(start, &path) == 0 && !path.is_empty();
    if short {
        path.clear();
    }
    let words = if short {
        format!(
            "{} stays: its movement does not reach into the first cell of its trace",
            name(world, e)
        )
    } else {
        revealed_as(world, e, &plan, (start, &path), stop_near, rises)
    };
    path.splice(0..0, std::iter::repeat_n(start, rises));
    let length = rises + budget;
    // Said in the reveal: an unalert character's foes double their hit rolls
    // (000 §1.2.5.1.3).
    // Ruling `unalert_movement`: reacting to others' movement unalert,
    // at full movement, is said where it happens.
    let reacts = matches!(
        plan,
        Plan::Chase { .. }
            | Plan::Trace {
                stop_near: Some(_),
                ..
            }
            | Plan::Stay { watch: Some(_), .. }
    );
    let words = match (up(world, e) && !alert(world, e), reacts) {
        (true, true) => format!("{words}, unalert (ruling unalert_movement)"),
        (true, false) => format!("{words}, unalert"),
        (false, _) => words,
    };
    let trace = Trace {
        who: e,
        start,
        // Ruling stop_options: one that does not move at all (a chase or a
        // trace with no movement left) ends at once; only one staying to
        // wait for a mover waits.
        done: path.is_empty() && !matches!(plan, Plan::Stay { watch: Some(_), .. }),
        path,
        length,
        at: 0,
        rises,
        stop_near,
    };
    (trace, words)
}

/// The words that reveal a trace (000 §3.1): where it goes, or that it
/// stays, and a fallen mover's rise first (ruling fall).
fn revealed_as(
    world: &World,
    e: Entity,
    plan: &Plan,
    (start, path): (Cell, &[Cell]),
    stop_near: Option<Entity>,
    rises: usize,
) -> String {
    let who = name(world, e);
    let moved = cells_moved(start, path);
    let cells = fray_core::movement::cells(moved as u32);
    let rising = fray_core::movement::cells(rises as u32);
    let words = match (plan, path.last()) {
        (Plan::Chase { target, .. }, _) => format!(
            "{who} chases {} ({cells} after the {} the chase costs)",
            name(world, *target),
            super::orders::chase_cost(world),
        ),
        _ if rises > 0 && moved == 0 => {
            return format!(
                "{who} gets up where it lies ({rising} of its movement; ruling fall) and goes no farther"
            );
        }
        (_, Some(end)) => format!(
            "{who} to {end} ({cells}{})",
            stop_near.map_or(String::new(), |s| format!(
                ", stopping within reach of {}",
                name(world, s)
            ))
        ),
        (Plan::Stay { watch: Some(x), .. }, _) => {
            format!("{who} stays, waiting for {}", name(world, *x))
        }
        (Plan::Trace { cell, .. }, None) if *cell == start => {
            format!("{who} stays where it is: its trace ends where it begins")
        }
        (Plan::Trace { .. }, None) => format!("{who} stays: no movement left for its trace"),
        _ => format!("{who} stays"),
    };
    if rises > 0 {
        format!("{words}, rising first ({rising} of its movement; ruling fall)")
    } else {
        words
    }
}

/// Ruling `trace_fractions`: `cells` from `start` as steps of movement, a
/// cell costing two (difficult ground) entered on the second, the first
/// spent on the cell before it.
fn in_movement(start: Cell, cells: &[Cell], cost: impl Fn(&Cell) -> usize) -> Vec<Cell> {
    let mut steps = Vec::new();
    let mut before = start;
    for c in cells {
        steps.extend(std::iter::repeat_n(before, cost(c).saturating_sub(1)));
        steps.push(*c);
        before = *c;
    }
    steps
}

/// The cells entered along `steps` of movement from `start`.
fn cells_moved(start: Cell, steps: &[Cell]) -> usize {
    let mut before = start;
    steps
        .iter()
        .filter(|&&c| std::mem::replace(&mut before, c) != c)
        .count()
}

/// 000 §3.1: the cells a trace would cross, and whom it stops near. "A
/// character who wishes to chase another character … must draw a trace to
/// that other character's starting location; thereafter, the chasing
/// character's trace is considered to follow that of the character being
/// chased".
fn trace_path(
    world: &World,
    traces: &[Trace],
    e: Entity,
    plan: &Plan,
) -> (Vec<Cell>, Option<Entity>) {
    match *plan {
        Plan::Trace {
            cell, stop_near, ..
        } => (
            orders::path_to(world, e, cell)
                .map(|(p, _)| p)
                .unwrap_or_default(),
            stop_near,
        ),
        Plan::Stay { watch, .. } => (Vec::new(), watch),
        Plan::Chase { target, .. } => {
            // No way to its starting place (the chased walled in, or
            // walled off since the chase was given): no trace to follow.
            let Some(mut p) = orders::chase_way(world, e, target) else {
                return (Vec::new(), Some(target));
            };
            // Its trace, in cells: each cell's cost is counted again.
            if let Some(t) = traces.iter().find(|t| t.who == target) {
                let mut theirs = t.path.clone();
                theirs.dedup();
                let skip = usize::from(theirs.first() == Some(&t.start));
                p.extend(theirs.into_iter().skip(skip));
            }
            (p, Some(target))
        }
        _ => (Vec::new(), None),
    }
}

/// Where trace `t` stands after `k` more cells.
fn position(t: &Trace, k: usize) -> Cell {
    let i = t.at + k;
    match t.path.len() {
        _ if i == 0 => t.start,
        0 => t.start,
        n => t.path[(i - 1).min(n - 1)],
    }
}

/// The reach `e` strikes a mover with: a missile's range only for one
/// unalert, who alone shoots (000 §1.2.5); alert with one in hand, the
/// cell beside (ruling chase: "within its weapon's reach").
fn strike_reach(world: &World, e: Entity) -> u32 {
    let Some(w) = attack_weapon(world, e) else {
        return 0;
    };
    let missile = super::orders::weapon(world, &w).is_some_and(|d| d.kind.missile());
    if missile && alert(world, e) {
        return 1;
    }
    reach_of(world, e, &w)
}

/// A mover's end point: its trace, the cells to it, the cells it has left,
/// and why it would stop there.
type EndPoint = (usize, usize, usize, &'static str);

/// A mover's advance this fraction: its trace, the cells it walks, whether it
/// stops, and why.
type Advance = (usize, usize, bool, &'static str);

/// 000 §3.2.1: one round of the fractions. Each mover's end point along
/// its remaining trace; those ending after the smallest fraction stop there;
/// the others advance that fraction, rounded down (ruling `trace_fractions`).
fn advance(world: &mut World) {
    stop_the_fallen(world);
    let grid = world.resource::<Grid>().clone();
    let traces = world.resource::<Flow>().traces.clone();
    let movers: Vec<usize> = (0..traces.len()).filter(|&i| !traces[i].done).collect();
    if movers.is_empty() {
        return;
    }
    // Each round of the fractions is a moment of its own on the timeline.
    let step = world
        .resource::<fray_core::log::BattleLog>()
        .time
        .strip_prefix("movement, step ")
        .and_then(|n| n.parse::<u32>().ok())
        .map_or(1, |n| n + 1);
    super::combat::stamp(world, || format!("movement, step {step}"));
    let stops = end_points(world, &grid, &traces, &movers);
    // The smallest fraction k / r, compared exactly.
    let Some(&(_, k0, r0, _)) = stops.iter().min_by(|a, b| (a.1 * b.2).cmp(&(b.1 * a.2))) else {
        return;
    };
    // Everyone's advance is worked out first; then, in listing order, each
    // walks it unless a cell is taken: by someone standing, or by where a
    // mover already placed ends (ruling trace_fractions).
    let plans: Vec<Advance> = stops
        .iter()
        .map(|&(i, k, r, why)| {
            let stopper = k * r0 == k0 * r;
            (
                i,
                if stopper { k } else { k0 * r / r0.max(1) },
                stopper,
                why,
            )
        })
        .collect();
    let (moved, stopped) = walk_fraction(world, &traces, &plans);
    let fraction = format!("{k0}/{r0}");
    log(world, || {
        let mut text = format!(
            "The traces advance by the smallest fraction, {fraction} of the first stopper's remaining trace: {}",
            stopped.join(", ")
        );
        if !moved.is_empty() {
            text.push_str(&format!(
                "; moving on the same fraction: {}",
                moved.join(", ")
            ));
        }
        text.push('.');
        Event::new(EventKind::Trace, "000 §3.2.1", text)
    });
}

/// Rulings unconscious and fall: the unconscious move no further, nor does
/// one knocked down as it moves: it ends its movement where it fell. One
/// staying where it lies to wait for a mover is not moving, and waits on.
fn stop_the_fallen(world: &mut World) {
    let out: Vec<usize> = {
        let flow = world.resource::<Flow>();
        (0..flow.traces.len())
            .filter(|&i| {
                let t = &flow.traces[i];
                // One still rising lies there by its own choice.
                let moving = t.rises == 0 && !t.path.is_empty();
                !t.done
                    && (!up(world, t.who)
                        || (world.get::<super::Fallen>(t.who).is_some() && moving))
            })
            .collect()
    };
    for i in out {
        let who = world.resource::<Flow>().traces[i].who;
        world.resource_mut::<Flow>().traces[i].done = true;
        if up(world, who) {
            // It has stopped, and may do what one who stops may (000 §3.2.2).
            world.resource_mut::<Flow>().stopped.push(who);
            let (me, at) = (name(world, who), world.get::<Cell>(who).copied());
            let at = at.map_or(String::new(), |c| format!(" at {c}"));
            log(world, || {
                Event::new(
                    EventKind::Trace,
                    "ruling fall",
                    format!("{me} is down: it ends its movement where it fell{at}."),
                )
                .actor(&me)
            });
        }
    }
}

/// 000 §3.2.1: "All characters who have not yet ended movement determine
/// where they would end their movement along their remaining trace if no
/// other character ended movement first": the end of the path it takes, or
/// the first cell within reach of the one it stops near; as a fraction of
/// its whole trace (its available movement, 000 §3.1).
fn end_points(world: &World, grid: &Grid, traces: &[Trace], movers: &[usize]) -> Vec<EndPoint> {
    // Each mover's stop: (cells k, of remaining r).
    let mut stops: Vec<EndPoint> = Vec::new();
    for &i in movers {
        let t = &traces[i];
        if t.path.is_empty() {
            stops.push(waiting(world, grid, traces, i));
            continue;
        }
        let r = t.length.max(t.path.len()) - t.at;
        let mut stop = (t.path.len() - t.at, "the end of its trace");
        if let Some(x) = t.stop_near {
            let reach = strike_reach(world, t.who).max(1);
            let xt = traces.iter().find(|o| o.who == x && !o.done);
            for k in 0..=stop.0 {
                let there = match xt {
                    Some(o) => {
                        let ro = o.length.max(o.path.len()) - o.at;
                        position(o, k * ro / r.max(1))
                    }
                    None => world.get::<Cell>(x).copied().unwrap_or(t.start),
                };
                if grid.distance(position(t, k), there) <= reach {
                    stop = (k, "within reach");
                    break;
                }
            }
        }
        stops.push((i, stop.0, r, stop.1));
    }
    stops
}

/// Ruling `stop_options`: one who stays, waiting for a mover, ends its
/// movement at the moment the mover first comes within its reach — the
/// mover's own fraction — or, if it never does, when the mover's trace
/// ends.
fn waiting(world: &World, grid: &Grid, traces: &[Trace], i: usize) -> EndPoint {
    let t = &traces[i];
    let reach = strike_reach(world, t.who).max(1);
    let Some(o) = t
        .stop_near
        .and_then(|x| traces.iter().find(|o| o.who == x && !o.done))
    else {
        return (i, 0, 1, "the one it waits for is not moving");
    };
    let ro = o.length.max(o.path.len()) - o.at;
    let left = o.path.len() - o.at;
    match (0..=left).find(|&k| grid.distance(t.start, position(o, k)) <= reach) {
        Some(k) => (i, k, ro.max(1), "within reach"),
        None => (
            i,
            ro.max(1),
            ro.max(1),
            "the one it waits for ends its movement out of reach",
        ),
    }
}

/// 000 §3.2.1: "characters who have not yet ended their movement are moved
/// through the same fraction of their remaining traces", in listing order,
/// each stopping short of a taken cell (ruling `trace_fractions`). Returns
/// the words for those who moved and for those who stopped.
fn walk_fraction(
    world: &mut World,
    traces: &[Trace],
    plans: &[Advance],
) -> (Vec<String>, Vec<String>) {
    let mut moved = Vec::new();
    let mut stopped = Vec::new();
    // Those waiting for a mover stand where they are.
    let moving: Vec<Entity> = plans
        .iter()
        .filter(|p| !traces[p.0].path.is_empty())
        .map(|p| traces[p.0].who)
        .collect();
    let standing: Vec<Cell> = roster(world)
        .into_iter()
        .filter(|x| !moving.contains(x))
        .filter_map(|x| world.get::<Cell>(x).copied())
        .collect();
    let steps = fraction_steps(traces, plans, &standing);
    for (&(i, cells, stopper, why), &(taken_now, by_standing)) in plans.iter().zip(&steps) {
        let who = traces[i].who;
        if traces[i].path.is_empty() {
            // One waiting for a mover stands where it is until it stops.
            if stopper {
                let mut flow = world.resource_mut::<Flow>();
                flow.traces[i].done = true;
                flow.stopped.push(who);
                let at = traces[i].start;
                stopped.push(format!(
                    "{} stops waiting at {at} ({why})",
                    name(world, who)
                ));
            }
            continue;
        }
        let from = position(&traces[i], 0);
        let end = position(&traces[i], taken_now);
        world.entity_mut(who).insert(end);
        let blocked = taken_now < cells;
        let me = name(world, who);
        let mut flow = world.resource_mut::<Flow>();
        let tr = &mut flow.traces[i];
        tr.at += taken_now;
        let to = position(tr, 0);
        // Ruling fall: its rise taken, it is on its feet; still rising, it
        // lies where it is.
        let rising = tr.rises > 0;
        let risen = rising && tr.at >= tr.rises;
        let rose = match (risen, to == from) {
            (true, true) => " gets to its feet and".to_string(),
            (true, false) => format!(" gets to its feet at {from} and"),
            _ => String::new(),
        };
        if risen {
            tr.rises = 0;
        }
        // Blocked by a mover, it waits and goes on at the next fraction; a
        // stopper stops on the last cell free of them (every fraction ends
        // someone's movement); by someone standing, it stops.
        if stopper || by_standing || tr.at >= tr.path.len() {
            tr.done = true;
            flow.stopped.push(who);
            let why = if by_standing {
                "the way is taken"
            } else if blocked {
                "a mover ends where it would have stopped"
            } else {
                why
            };
            stopped.push(format!("{me}{rose} stops at {to} ({why})"));
        } else if to != from && blocked {
            moved.push(format!(
                "{me}{rose} from {from} to {to}, where it waits (a mover is in the way)"
            ));
        } else if risen && to == from {
            moved.push(format!("{me} gets to its feet at {to}"));
        } else if risen {
            moved.push(format!("{me}{rose} goes on to {to}"));
        } else if to != from {
            moved.push(format!("{me} from {from} to {to}"));
        } else if rising {
            moved.push(format!("{me} is still getting up at {to}"));
        } else if blocked {
            moved.push(format!("{me} waits at {to} (a mover is in the way)"));
        }
        if risen {
            world.entity_mut(who).remove::<super::Fallen>();
        }
    }
    (moved, stopped)
}

/// How far each mover of `plans` walks this fraction, and whether someone
/// standing stops it (ruling `trace_fractions`): each in listing order
/// ([`steps_free`]); then one that walked into the cell of a mover found
/// held where it is, later in the list, goes back to the last cell free of
/// everyone, and so on until no two end in one cell.
fn fraction_steps(traces: &[Trace], plans: &[Advance], standing: &[Cell]) -> Vec<(usize, bool)> {
    // Where movers stay this fraction (not moving on, or rising where they
    // lie) is theirs.
    let mut claimed: Vec<Cell> = plans
        .iter()
        .map(|p| (position(&traces[p.0], 0), position(&traces[p.0], p.1)))
        .filter(|(from, to)| from == to)
        .map(|(from, _)| from)
        .collect();
    let mut steps: Vec<(usize, bool)> = Vec::with_capacity(plans.len());
    for &(i, cells, ..) in plans {
        let walk = if traces[i].path.is_empty() {
            (0, false)
        } else {
            steps_free(&traces[i], cells, standing, &claimed)
        };
        if cells > 0 {
            claimed.push(position(&traces[i], walk.0));
        }
        steps.push(walk);
    }
    // Each pull back takes a step off someone: this ends.
    loop {
        let ends: Vec<Cell> = plans
            .iter()
            .zip(&steps)
            .map(|(p, s)| position(&traces[p.0], s.0))
            .collect();
        let clash = (0..plans.len()).find(|&a| {
            steps[a].0 > 0
                && (0..plans.len()).any(|b| b != a && steps[b].0 == 0 && ends[b] == ends[a])
        });
        let Some(a) = clash else {
            return steps;
        };
        let t = &traces[plans[a].0];
        let back = (0..steps[a].0)
            .rev()
            .find(|&k| {
                let c = position(t, k);
                k == 0 || (!standing.contains(&c) && !ends.contains(&c))
            })
            .unwrap_or(0);
        steps[a].0 = back;
    }
}

/// How many of its `cells` this fraction trace `t` walks, and whether
/// someone standing bars its way: it may pass where another mover ends,
/// who is not there yet, but not end there — it ends on the last cell free
/// of them (ruling `trace_fractions`).
fn steps_free(t: &Trace, cells: usize, standing: &[Cell], claimed: &[Cell]) -> (usize, bool) {
    let from = position(t, 0);
    let mut taken = 0;
    for step in 1..=cells {
        let c = position(t, step);
        if standing.contains(&c) {
            return (taken, true);
        }
        if c == from || !claimed.contains(&c) {
            taken = step;
        }
    }
    (taken, false)
}

/// Whether `e`, just stopped, could strike a mover, or draw or grab a
/// weapon with a blow of either kind (ruling `stop_options`).
fn can_strike(world: &World, e: Entity) -> bool {
    up(world, e)
        && can_spend(world, e, Need { active: 0, any: 1 }).is_ok()
        && mover_in_reach(world, e)
}

/// Ruling `stop_options`: whether `e`, stopped, may react to a mover: an
/// enemy still moving within the reach of the weapon it would strike with
/// (beside it, with none), and no noncombat option taken this round
/// (000 §3).
pub(super) fn mover_in_reach(world: &World, e: Entity) -> bool {
    if world.get::<super::Noncombat>(e).is_some() {
        return false;
    }
    // With nothing to strike with (or a bow), a mover beside it.
    let reach = strike_reach(world, e).max(1);
    let flow = world.resource::<Flow>();
    flow.traces.iter().any(|t| {
        !t.done
            && enemies(world, e, t.who)
            && up(world, t.who)
            && orders::distance(world, e, t.who).is_some_and(|d| d <= reach)
    })
}

/// 000 §3.2.2: a strike by one who stopped, with borrowed blows; it becomes
/// alert to strike in melee.
fn strike(world: &mut World, e: Entity, plan: Plan) {
    if let Plan::Pass { alert: true, .. } = plan {
        become_alert(world, e, "");
        return;
    }
    let Plan::Attack { weapon, .. } = &plan else {
        // 000 §3.2.2: an option other than an attack (ruling
        // `stop_options`: drawing or grabbing a weapon).
        if matches!(
            plan,
            Plan::Draw { .. } | Plan::Grab { .. } | Plan::Dropping { .. }
        ) {
            combat::execute(world, e, plan);
        }
        return;
    };
    let melee = orders::weapon(world, weapon).is_some_and(|d| !d.kind.missile());
    if melee && !alert(world, e) {
        become_alert(world, e, " to strike");
    }
    combat::execute(world, e, plan);
}

/// 000 §3: "A character can stop, optionally becoming alert" (`why`: what
/// for, in words after it).
fn become_alert(world: &mut World, e: Entity, why: &str) {
    world.entity_mut(e).insert(Alert(true));
    let who = name(world, e);
    log(world, || {
        Event::new(
            EventKind::Alert,
            "000 §3",
            format!("{who} stops and becomes alert{why}."),
        )
        .actor(&who)
    });
}

/// The round is over: the next begins.
fn end_of_round(world: &mut World) {
    let mut flow = world.resource_mut::<Flow>();
    flow.stage = Stage::Start;
    flow.traced = false;
    flow.asked_traces = false;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(start: (i32, i32), path: &[(i32, i32)]) -> Trace {
        Trace {
            who: Entity::PLACEHOLDER,
            start: Cell::new(start.0, start.1),
            path: path.iter().map(|&(x, y)| Cell::new(x, y)).collect(),
            length: 3,
            at: 0,
            rises: 0,
            stop_near: None,
            done: false,
        }
    }

    #[test]
    fn one_walking_into_the_cell_of_a_mover_held_where_it_is_goes_back() {
        // Ruling trace_fractions: Eve ends at (6, 3); Bob, listed before
        // Ann, follows her trace into her cell (5, 3); Ann's one cell this
        // fraction is Eve's, so she is held at (5, 3). Bob goes back to
        // (4, 3): no two end in one cell.
        let traces = [
            trace((6, 2), &[(6, 3)]),
            trace((3, 3), &[(4, 3), (5, 3), (6, 3)]),
            trace((5, 3), &[(6, 3), (7, 3)]),
        ];
        let plans: Vec<Advance> = vec![(0, 1, true, ""), (1, 2, false, ""), (2, 1, false, "")];
        assert_eq!(
            fraction_steps(&traces, &plans, &[]),
            [(1, false), (1, false), (0, false)]
        );
    }
}
