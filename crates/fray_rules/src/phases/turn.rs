//! 002 §Time: the phases of a turn, the characters' turns in initiative
//! order, and everything that cuts into them (002 §Interrupts): attacks of
//! opportunity, readied strikes and aborts. Then the Post-Turn and the end.
//!
//! Work under way is a stack ([`Flow::stack`]). Each step of the rules takes
//! the answer to the open decision, then works the top of the stack until a
//! decision is needed: an interrupt is pushed above the action it cuts into,
//! so that action goes on only when the interrupt has resolved.

use bevy_ecs::prelude::*;
use fray_core::decision::{self, Order, Question};
use fray_core::dice::{Dice, DiceExpr};
use fray_core::grid::{Cell, Grid, GridGeometry};
use fray_core::log::EventKind;
use fray_core::log::{BattleLog, Check, Event, Modifier};
use fray_core::model::Ending;
use fray_core::model::Fighting;
use fray_core::movement::{Halt, Provokes, Step, Walk};
use fray_core::threat::Threatener;

use super::data::ActionType;
use super::orders::{self, Plan, in_reach, melee_weapon, step_refusal, stunned};
use super::{
    AbortedAhead, Asking, AttackKind, Body, Condition, Data, Flow, Guard, Hold, Initiative, Kit,
    MoveHow, RecoveryStarted, Stage, Stats, Stun, Stunned, Trigger, TurnKind, Unaware, Use, Work,
    enemies, name, roster, up,
};

/// Log an event (its text built only when the log keeps entries).
pub(super) use fray_core::log::record as log;

/// Stamp the log with the turn and the phase (and whose place it is).
fn stamp(world: &mut World, actor: Option<Entity>) {
    world.resource_mut::<BattleLog>().round = world.resource::<Flow>().turn;
    fray_core::log::mark_time(world, |w| {
        let words = w.resource::<Flow>().phase_words();
        let who = actor.and_then(|a| {
            let score = w.get::<Initiative>(a)?.score;
            Some(format!("{words}, {score} {}", name(w, a)))
        });
        who.unwrap_or(words)
    });
}

/// What a piece of work does next.
enum Next {
    /// Finished: off the stack.
    Done,
    /// Not finished: back on the stack, under the interrupts listed (the first on top).
    Keep(Work, Vec<Work>),
    /// A decision was published; the work waits on top of the stack for
    /// its answer (put there before the question, so the choices offered
    /// see it, as the answer's check will).
    Asked,
}

/// 002 §Time: the phase under way. Takes the answer to the open decision,
/// then works until someone must decide or the phase is over.
pub fn run_phase(world: &mut World) {
    if world.resource::<Flow>().asking.is_some() && !take_answer(world) {
        return;
    }
    // Each pass takes a piece of work or a turn; a phase holds a bounded number.
    for _ in 0..100_000 {
        if decided(world) {
            return;
        }
        let top = world.resource_mut::<Flow>().stack.pop();
        let Some(work) = top else {
            if !next_turn(world) {
                end_phase(world);
                return;
            }
            continue;
        };
        match work_on(world, work) {
            Next::Done => {}
            Next::Keep(work, interrupts) => {
                let mut flow = world.resource_mut::<Flow>();
                flow.stack.push(work);
                flow.stack.extend(interrupts.into_iter().rev());
            }
            Next::Asked => return,
        }
    }
}

/// Whether at most one side still has someone on its feet (the battle is
/// over; [`check_end`] says so).
fn decided(world: &World) -> bool {
    fray_core::model::sides_standing(world, roster(world)).len() < 2
}

/// The answer to the open decision: refused (logged, the decision stays
/// open) or carried out. Returns whether the battle can go on.
fn take_answer(world: &mut World) -> bool {
    let Some((id, actor, asking)) = world.resource::<Flow>().asking else {
        return true;
    };
    // A refusal cites the paragraph that asked.
    let rule = match asking {
        Asking::Turn => turn_rule(world),
        Asking::Opportunity { .. } => "002 §Attacks of Opportunity",
        Asking::Abort { .. } => "002 §Abort",
        Asking::Readied { .. } => "002 §Ready Conditions",
    };
    let taken = decision::take_answers(world, rule, |world, d, order| {
        orders::validate(world, d.actor, order)
    });
    let Some((_, plan)) = taken.into_iter().find(|(d, _)| d.id == id) else {
        return false;
    };
    world.resource_mut::<Flow>().asking = None;
    carry_out(world, actor, asking, plan);
    true
}

/// The paragraph a turn's question comes from: the Surprise Phase's own
/// (phase 0), else the Normal Phase's.
fn turn_rule(world: &World) -> &'static str {
    if world.resource::<Flow>().phase == 0 {
        "002 §Surprise Phase"
    } else {
        "002 §Normal Phase"
    }
}

/// Publish a decision for `actor` and note what it asks. On its own turn
/// it may name any cell to move to.
fn ask(
    world: &mut World,
    (actor, asking): (Entity, Asking),
    prompt: impl FnOnce(&World) -> String,
    rule: &str,
    waiting: Work,
) -> Next {
    world.resource_mut::<Flow>().stack.push(waiting);
    world.resource_mut::<Flow>().asking = Some((0, actor, asking));
    // A hex typed or clicked: a move while movement is left, else the
    // 1-hex step where that is open (002 §1-Hex Step).
    let typed = if orders::movement_left(world, actor) > 0 {
        Some("move")
    } else {
        step_refusal(world, actor).is_none().then_some("step")
    };
    let move_order = typed
        .filter(|_| asking == Asking::Turn)
        .map(|action| Order::new(name(world, actor), action));
    let question = Question {
        actor,
        prompt: decision::prompt(world, actor, prompt),
        rule: rule.to_string(),
        secret: false,
        move_order,
        choices: orders::choices,
    };
    let id = decision::ask(world, question);
    world.resource_mut::<Flow>().asking = Some((id, actor, asking));
    Next::Asked
}

/// The next place in the order this phase: a delayed character waiting for
/// it goes first (002 §Delay); then its owner's turn. False at the end of
/// the phase.
fn next_turn(world: &mut World) -> bool {
    let (next, index) = {
        let flow = world.resource::<Flow>();
        (
            flow.order.iter().copied().find(|e| !flow.done.contains(e)),
            flow.phase_index(),
        )
    };
    let delayed = |world: &World, before: Option<Entity>| {
        world.resource::<Flow>().order.iter().copied().find(|&d| {
            up(world, d)
                && matches!(world.get::<Hold>(d), Some(Hold::Delayed { before: b, fires })
                    if *fires <= index && (before.is_none() || *b == before))
        })
    };
    // One delayed to act just before another delayer goes first.
    let first = |world: &World, mut d: Entity| {
        for _ in 0..world.resource::<Flow>().order.len() {
            match delayed(world, Some(d)) {
                Some(x) if x != d => d = x,
                _ => break,
            }
        }
        d
    };
    // Each goes just before where the one it waits for acts: before `n`,
    // or at the end of the phase (a delayer it waits for still waits).
    if let Some(n) = next {
        if let Some(d) = delayed(world, Some(n)) {
            let d = first(world, d);
            delayed_goes(world, d, Some(n));
            return true;
        }
        world.resource_mut::<Flow>().done.push(n);
        if world.resource::<Flow>().gave_up.contains(&n) {
            return true;
        }
        let unaware_now = world.resource::<Flow>().phase == 0 && world.get::<Unaware>(n).is_some();
        if up(world, n) && !unaware_now {
            push_turn(world, n, TurnKind::Regular);
        }
        return true;
    }
    // The end of the phase: those delayed to it, and any whose place
    // passed; one delayed to act just before another of them goes first.
    if let Some(last) = delayed(world, None) {
        let d = first(world, last);
        delayed_goes(world, d, None);
        return true;
    }
    false
}

/// 002 §Delay Consequences: the delayed action of `d` comes now, just
/// before `before` or at the end of the phase; its Initiative changes to
/// where it takes it.
fn delayed_goes(world: &mut World, d: Entity, before: Option<Entity>) {
    world.entity_mut(d).remove::<Hold>();
    move_before(world, d, before, "delayed");
    let who = name(world, d);
    let place = match before {
        Some(b) => format!("just before {}", name(world, b)),
        None => "at the end of the phase".to_string(),
    };
    let score = world.get::<Initiative>(d).map_or(0, |i| i.score);
    log(world, || {
        Event::new(
            EventKind::Delay,
            "002 §Delay Consequences",
            format!("{who} takes its delayed action now, {place}: its Initiative becomes {score}."),
        )
        .actor(&who)
    });
    push_turn(world, d, TurnKind::Delayed);
}

fn push_turn(world: &mut World, actor: Entity, kind: TurnKind) {
    world.resource_mut::<Flow>().stack.push(Work::Turn {
        actor,
        kind,
        begun: false,
    });
}

/// 002 §Delay Consequences and §Ready Consequences: `who` takes its new place
/// just before `before`, with that character's score, or last, with the
/// lowest score of the phase ("your Initiative changes to when you took the
/// delayed action": after everyone; its own, if lower); if it has not had
/// its place this phase, this action takes it.
fn move_before(world: &mut World, who: Entity, before: Option<Entity>, why: &str) {
    let score_of = |e: Entity| world.get::<Initiative>(e).map(|i| i.score);
    let score = match before {
        Some(b) => score_of(b),
        None => world
            .resource::<Flow>()
            .order
            .iter()
            .filter_map(|&e| score_of(e))
            .min(),
    };
    let place = match before {
        Some(b) => format!("just before {} ({why})", name(world, b)),
        None => format!("at the end of the order ({why})"),
    };
    {
        let mut flow = world.resource_mut::<Flow>();
        flow.order.retain(|&e| e != who);
        let at = before
            .and_then(|b| flow.order.iter().position(|&e| e == b))
            .unwrap_or(flow.order.len());
        flow.order.insert(at, who);
        if !flow.done.contains(&who) {
            flow.done.push(who);
        }
    }
    if let Some(mut i) = world.get_mut::<Initiative>(who) {
        if let Some(s) = score {
            i.score = s;
        }
        i.moved = Some(place);
    }
}

/// 002 §Time: the phase is over; on to the next, or to the Post-Turn.
fn end_phase(world: &mut World) {
    let per_turn = world.resource::<Data>().0.numbers.phases_per_turn;
    let all = roster(world);
    for &e in &all {
        if let Some(mut u) = world.get_mut::<Use>(e) {
            *u = Use::default();
        }
    }
    let phase = world.resource::<Flow>().phase;
    if phase == 0 {
        for &e in &all {
            world.entity_mut(e).remove::<Unaware>();
        }
    }
    let mut flow = world.resource_mut::<Flow>();
    flow.done.clear();
    flow.gave_up.clear();
    flow.restricted = false;
    flow.quiet_phases = if flow.struck {
        0
    } else {
        flow.quiet_phases + 1
    };
    flow.struck = false;
    if phase >= per_turn {
        flow.stage = Stage::PostTurn;
        return;
    }
    flow.phase += 1;
    let (turn, words) = (flow.turn, flow.phase_words());
    stamp(world, None);
    log(world, || {
        Event::new(
            EventKind::Phase,
            if phase == 0 {
                "002 §Surprise Phase"
            } else {
                "002 §Time"
            },
            if phase == 0 {
                format!(
                    "The Surprise Phase is over; everyone is aware. Turn {turn}, {words} begins."
                )
            } else {
                format!("Turn {turn}, {words} begins.")
            },
        )
    });
}

/// Work on one thing under way.
fn work_on(world: &mut World, work: Work) -> Next {
    match work {
        Work::Turn { actor, kind, begun } => turn(world, actor, kind, begun),
        Work::Recover { actor, kind } => {
            if up(world, actor) && stunned(world, actor) {
                recover(world, actor);
            }
            turn(world, actor, kind, true)
        }
        Work::Move { .. } => walk(world, work),
        Work::Attack { .. } => attack(world, work),
        Work::Provoking { actor, action } => {
            // The provoking action waits below, under the questions it raises.
            let interrupts = provoke_in_place(world, actor, &action);
            world
                .resource_mut::<Flow>()
                .stack
                .extend(interrupts.into_iter().rev());
            Next::Done
        }
        Work::Reload { actor, weapon } => {
            reload(world, actor, weapon);
            Next::Done
        }
        Work::Perform { actor, plan } => {
            // Ruling interrupted_action: the readied strikes may have stopped it.
            if up(world, actor) && !stunned(world, actor) {
                perform(world, actor, Asking::Turn, plan);
            } else {
                let who = name(world, actor);
                log(world, || {
                    Event::new(
                        EventKind::Stop,
                        "ruling interrupted_action",
                        format!("{who} can no longer act: its action is lost."),
                    )
                    .actor(&who)
                });
            }
            Next::Done
        }
        Work::Readied { readier, by, asked } => {
            if asked {
                return Next::Done;
            }
            ask_readied(world, (readier, by))
        }
        Work::Opportunity { threatener, mover } => {
            if !can_take_opportunity(world, threatener, mover) {
                return Next::Done;
            }
            let (t, m) = (name(world, threatener), name(world, mover));
            ask(
                world,
                (threatener, Asking::Opportunity { mover }),
                |_| format!("{m} lets its guard down within {t}'s reach: attack of opportunity?"),
                "002 §Attacks of Opportunity",
                work,
            )
        }
    }
}

/// A character's turn: start it (lapses, aborts, stun, readied strikes on
/// its first action), then ask for actions until none is left.
fn turn(world: &mut World, actor: Entity, kind: TurnKind, begun: bool) -> Next {
    let this = Work::Turn {
        actor,
        kind,
        begun: true,
    };
    if !begun && !begin_turn(world, actor, kind) {
        return Next::Done;
    }
    // Ruling stunned: a Stunned character's action is its Recovery, which
    // sets off the strikes readied for its next action first (ruling
    // ready_trigger).
    if !begun && up(world, actor) && stunned(world, actor) {
        let fired = readied_by(world, Trigger::Acts(actor), actor, None);
        if !fired.is_empty() {
            let recover = Work::Recover { actor, kind };
            return Next::Keep(recover, readied_questions(fired, actor));
        }
        recover(world, actor);
    }
    if !up(world, actor) || stunned(world, actor) {
        end_turn(world, actor);
        return Next::Done;
    }
    // Anything left to do? (Ending is always possible; it is not counted.)
    if !anything_left(world, actor) {
        end_turn(world, actor);
        return Next::Done;
    }
    let prompt = move |w: &World| turn_prompt(w, actor, kind);
    let rule = turn_rule(world);
    ask(world, (actor, Asking::Turn), prompt, rule, this)
}

/// 002 §Normal Phase: what `actor` is asked on its turn, in words — what
/// it has left to do.
fn turn_prompt(world: &World, actor: Entity, kind: TurnKind) -> String {
    let who = name(world, actor);
    let (words, restricted) = {
        let f = world.resource::<Flow>();
        (f.phase_words(), f.restricted)
    };
    let left = {
        let u = world.get::<Use>(actor).cloned().unwrap_or_default();
        // 002 §Full-Phase Actions: nothing with a full phase; §Restricted
        // Phase: a single attack or move action.
        let action = if u.full_phase || (restricted && u.actions > 0) || u.actions >= 2 {
            None
        } else if restricted {
            Some("one attack or move action")
        } else if u.actions == 0 && u.stepped {
            Some("an attack and a move action, or a full phase")
        } else if u.actions == 0 {
            Some("an attack and a move action, two moves, or a full phase")
        } else if u.attack {
            Some("a move action")
        } else if u.moved
            && world
                .get::<super::Stats>(actor)
                .is_some_and(|s| orders::move_action_hexes(s, &u) == 0)
        {
            // Ruling half_move: the first move took all its movement.
            Some("an attack action")
        } else {
            Some("an attack or a move action")
        };
        // 002 §1-Hex Step: after the step, no action moves any distance.
        let still = if u.stepped {
            " (none that moves: the 1-hex step is taken)"
        } else {
            ""
        };
        let mut parts: Vec<String> = action.into_iter().map(|a| format!("{a}{still}")).collect();
        if step_refusal(world, actor).is_none() {
            parts.push("a 1-hex step".to_string());
        }
        if parts.is_empty() {
            "nothing but ending the turn".to_string()
        } else {
            parts.join(", and ")
        }
    };
    match kind {
        TurnKind::Regular => format!("{who}, {words}: {left} left."),
        TurnKind::Delayed => format!("{who} acts now (delayed), {words}: {left} left."),
    }
}

/// The start of a character's turn: a delayed or readied action not taken
/// lapses (002 §Delay Consequences, §Ready Consequences); an action given
/// up by aborting is not taken (002 §Abort Consequences). A Stunned
/// character's Recovery follows ([`recover`]). Returns whether the turn
/// goes on.
fn begin_turn(world: &mut World, actor: Entity, kind: TurnKind) -> bool {
    stamp(world, Some(actor));
    let index = world.resource::<Flow>().phase_index();
    let who = name(world, actor);
    if kind == TurnKind::Regular
        && let Some(hold) = world.get::<Hold>(actor).cloned()
    {
        world.entity_mut(actor).remove::<Hold>();
        let (what, rule) = match hold {
            Hold::Delayed { .. } => ("delayed action", "002 §Delay Consequences"),
            Hold::Readied { .. } => ("readied action", "002 §Ready Consequences"),
        };
        log(world, || {
            Event::new(
                EventKind::Lapse,
                rule,
                format!("{who} comes to its next action without having taken its {what}: the {what} is lost."),
            )
            .actor(&who)
        });
    }
    if let Some(&AbortedAhead(i)) = world.get::<AbortedAhead>(actor)
        && i <= index
    {
        world.entity_mut(actor).remove::<AbortedAhead>();
        if i == index {
            log(world, || {
                Event::new(
                    EventKind::Abort,
                    "002 §Abort Consequences",
                    format!("{who} gave up this action by aborting in the phase before: it does not act, and may abort again from now on."),
                )
                .actor(&who)
            });
            end_turn(world, actor);
            return false;
        }
    }
    if !up(world, actor) {
        end_turn(world, actor);
        return false;
    }
    if stunned(world, actor) && world.resource::<Flow>().phase == 0 {
        // Recovering is a full-phase action, which the Surprise Phase
        // forbids: the character stays Stunned until its next phase.
        log(world, || {
            Event::new(
                EventKind::Stunned,
                "002 §Surprise Phase · ruling split_full_phase",
                format!(
                    "{who} is Stunned and cannot recover in the Surprise Phase, where no full-phase action may be taken."
                ),
            )
            .actor(&who)
        });
        end_turn(world, actor);
        return false;
    }
    true
}

/// Ruling `stunned`: the Stunned `actor` spends the phase recovering, a
/// full-phase action that ends its Dodge, Block and manoeuvres, as its
/// first action would ([`next_action`]).
fn recover(world: &mut World, actor: Entity) {
    let who = name(world, actor);
    next_action(world, actor);
    world.entity_mut(actor).remove::<Stunned>();
    if let Some(mut u) = world.get_mut::<Use>(actor) {
        u.full_phase = true;
    }
    log(world, || {
        Event::new(
            EventKind::RecoverFromStun,
            "ruling stunned",
            format!("{who} spends the phase recovering from being Stunned (a full-phase action)."),
        )
        .actor(&who)
    });
    // 002 §Full-Phase Actions: "you can take a 1-hex step if it doesn't
    // involve moving any distance": the turn goes on for the step alone.
}

/// Whether `actor` could still do anything this phase besides end its turn.
fn anything_left(world: &World, actor: Entity) -> bool {
    let u = world.get::<Use>(actor).cloned().unwrap_or_default();
    let restricted = world.resource::<Flow>().restricted;
    let actions_left = !u.full_phase && u.actions < if restricted { 1 } else { 2 };
    actions_left || step_refusal(world, actor).is_none()
}

/// The turn is over: a Recovery begun at an earlier turn and not completed
/// in this one is lost (ruling `split_full_phase`).
fn end_turn(world: &mut World, actor: Entity) {
    let index = world.resource::<Flow>().phase_index();
    if let Some(&RecoveryStarted(i)) = world.get::<RecoveryStarted>(actor)
        && i < index
    {
        drop_recovery(
            world,
            actor,
            "'s turn ends without completing the Recovery it began: the start is lost.",
        );
    }
}

/// Ruling `split_full_phase`: a Recovery begun waits for its owner's next
/// action; that action given up (`why`, after its name), the start is
/// lost.
fn recovery_lost(world: &mut World, actor: Entity, why: &str) {
    if world.get::<RecoveryStarted>(actor).is_some() {
        drop_recovery(
            world,
            actor,
            &format!("{why}: the Recovery it began is lost."),
        );
    }
}

/// The Recovery `actor` began is lost, said in `words` after its name.
fn drop_recovery(world: &mut World, actor: Entity, words: &str) {
    world.entity_mut(actor).remove::<RecoveryStarted>();
    let who = name(world, actor);
    log(world, || {
        Event::new(
            EventKind::Recovery,
            "ruling split_full_phase",
            format!("{who}{words}"),
        )
        .actor(&who)
    });
}

/// Carry out a checked order. Each action the actor begins in its turn sets
/// off the strikes readied for it (ruling `ready_trigger`): they come just
/// before it, and it is done after them if it still can be.
fn carry_out(world: &mut World, actor: Entity, asking: Asking, plan: Plan) {
    if asking == Asking::Turn && plan.is_action() {
        let fired = readied_by(world, Trigger::Acts(actor), actor, None);
        if !fired.is_empty() {
            let questions = readied_questions(fired, actor);
            let mut flow = world.resource_mut::<Flow>();
            flow.stack.push(Work::Perform { actor, plan });
            flow.stack.extend(questions.into_iter().rev());
            return;
        }
    }
    perform(world, actor, asking, plan);
}

/// Rulings `dodge`, `block`, `haymaker`: what they do to `actor`'s DCV
/// lasts until its next action, which begins now: after the strikes readied
/// for it, which come just before it (002 §Ready).
fn next_action(world: &mut World, actor: Entity) {
    if let Some(mut g) = world.get_mut::<Guard>(actor) {
        *g = Guard::default();
    }
}

/// The manoeuvres of `actor`'s last action end with a turn it lets pass,
/// said if they were doing anything.
fn guard_ends(world: &mut World, actor: Entity) {
    let names = what_ends(world, actor);
    next_action(world, actor);
    if names.is_empty() {
        return;
    }
    let who = name(world, actor);
    let what = names.join(" and ");
    log(world, || {
        Event::new(
            EventKind::EndTurn,
            "ruling end_turn",
            format!("{who}'s {what} ends: its turn passes without an action."),
        )
        .actor(&who)
    });
}

/// What `actor`'s next action, or an abort (which is one), ends, named:
/// the manoeuvres in effect that change its OCV or DCV, and a Block
/// standing (rulings dodge, block, haymaker).
pub(super) fn what_ends(world: &World, actor: Entity) -> Vec<String> {
    let Some(g) = world.get::<Guard>(actor) else {
        return Vec::new();
    };
    // Named as the table names them.
    let mut names: Vec<String> = g
        .manoeuvres
        .iter()
        .filter(|(_, ocv, dcv)| *ocv != 0 || *dcv != 0)
        .map(|(m, ..)| {
            let mut c = m.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect())
                .unwrap_or_default()
        })
        .collect();
    if g.block && !names.iter().any(|m| m == "Block") {
        names.push("Block".to_string());
    }
    names
}

/// Do what a checked order says.
fn perform(world: &mut World, actor: Entity, asking: Asking, plan: Plan) {
    let first = world
        .get::<Use>(actor)
        .is_some_and(|u| u.actions == 0 && !u.full_phase);
    if asking == Asking::Turn && plan.is_action() && first {
        next_action(world, actor);
    }
    match plan {
        Plan::Attack {
            target,
            manoeuvre,
            weapon,
        } => {
            use_action(world, actor, true);
            world.resource_mut::<Flow>().stack.push(Work::Attack {
                attacker: actor,
                target,
                manoeuvre,
                weapon,
                kind: AttackKind::Action,
                abort_asked: false,
            });
        }
        Plan::Dodge | Plan::Block => dodge_or_block(world, actor, plan == Plan::Block),
        Plan::Move { path, how, kind } => start_move(world, actor, path, how, kind),
        Plan::Reload { weapon } => {
            use_action(world, actor, false);
            let mut flow = world.resource_mut::<Flow>();
            flow.stack.push(Work::Reload { actor, weapon });
            flow.stack.push(Work::Provoking {
                actor,
                action: "reload".into(),
            });
        }
        Plan::Recover => {
            if let Some(mut u) = world.get_mut::<Use>(actor) {
                u.full_phase = true;
            }
            recovery(
                world,
                actor,
                EventKind::Recover,
                "ruling recovery",
                "Takes a Recovery",
            );
        }
        Plan::StartRecovery => start_recovery(world, actor),
        Plan::CompleteRecovery => {
            use_action(world, actor, false);
            world.entity_mut(actor).remove::<RecoveryStarted>();
            recovery(
                world,
                actor,
                EventKind::Recover,
                "ruling split_full_phase",
                "completes its Recovery with a move action",
            );
        }
        Plan::Delay { before } => delay(world, actor, before),
        Plan::Ready { trigger, weapon } => ready(world, actor, trigger, weapon),
        Plan::End => end_own_turn(world, actor),
        Plan::Opportunity { manoeuvre, weapon } => {
            let Asking::Opportunity { mover } = asking else {
                return;
            };
            take_opportunity(world, actor, mover, manoeuvre, weapon);
        }
        Plan::Abort { block } => {
            let Asking::Abort { attacker } = asking else {
                return;
            };
            abort(world, actor, attacker, block);
        }
        Plan::Readied { step } => {
            if let Asking::Readied { by } = asking {
                take_readied(world, actor, by, step);
            }
        }
        Plan::Pass => match asking {
            Asking::Opportunity { mover } => let_go(world, actor, mover),
            Asking::Readied { by } => hold_readied(world, actor, by),
            _ => {}
        },
    }
}

/// 002 §Normal Phase: an attack or a move action used.
fn use_action(world: &mut World, actor: Entity, attack: bool) {
    if let Some(mut u) = world.get_mut::<Use>(actor) {
        u.actions += 1;
        u.attack |= attack;
    }
}

/// 002 §Table: Dodge or Block, an attack action (rulings `dodge` and
/// `block`).
fn dodge_or_block(world: &mut World, actor: Entity, block: bool) {
    let who = name(world, actor);
    let data = world.resource::<Data>().0.clone();
    use_action(world, actor, true);
    guard(world, actor, block);
    let text = if block {
        format!(
            "{who} blocks: the first melee attack on it before its next action meets a Block roll."
        )
    } else {
        format!(
            "{who} dodges: +{} DCV until its next action.",
            data.manoeuvre("dodge").map_or(0, |m| m.dcv)
        )
    };
    log(world, || {
        Event::new(
            if block {
                EventKind::Block
            } else {
                EventKind::Dodge
            },
            if block {
                "ruling block"
            } else {
                "ruling dodge"
            },
            text,
        )
        .actor(&who)
    });
}

/// 002 §Normal Phase, §Full-Phase Actions and §1-Hex Step: a move action,
/// a full move or a 1-hex step begins; the walk goes on the stack.
fn start_move(world: &mut World, actor: Entity, path: Vec<Cell>, how: MoveHow, kind: ActionType) {
    if let Some(mut u) = world.get_mut::<Use>(actor) {
        match kind {
            ActionType::Move => {
                u.actions += 1;
                u.moved = true;
            }
            ActionType::FullPhase => {
                u.full_phase = true;
                u.moved = true;
            }
            _ => u.stepped = true,
        }
    }
    let Some(from) = world.get::<Cell>(actor).copied() else {
        return;
    };
    let provokes = if how == MoveHow::Step {
        Provokes::Never
    } else {
        Provokes::Leaving
    };
    world.resource_mut::<Flow>().stack.push(Work::Move {
        actor,
        walk: Walk::new(actor, path, u32::MAX, provokes),
        how,
        kind,
        skill: None,
        offered: false,
        logged_from: (from, 0),
    });
}

/// Ruling `split_full_phase`: a Recovery begun with a move action, to be
/// completed at the next action.
fn start_recovery(world: &mut World, actor: Entity) {
    let who = name(world, actor);
    use_action(world, actor, false);
    let index = world.resource::<Flow>().phase_index();
    world.entity_mut(actor).insert(RecoveryStarted(index));
    log(world, || {
        Event::new(
            EventKind::Recovery,
            "ruling split_full_phase",
            format!("{who} begins a Recovery with a move action; it completes at its next action."),
        )
        .actor(&who)
    });
}

/// 002 §Delay: no action now; the character acts just before another
/// (this phase or the next), or at the end of the phase (ruling
/// `delay_place`). Its turn ends; a Recovery it began waits for the action
/// it delays, which is still its next (ruling `split_full_phase`).
fn delay(world: &mut World, actor: Entity, before: Option<Entity>) {
    let who = name(world, actor);
    let data = world.resource::<Data>().0.clone();
    let (fires, when) = {
        let flow = world.resource::<Flow>();
        let per_turn = data.numbers.phases_per_turn;
        match before {
            Some(b) if !orders::acts_later_this_phase(world, b) => {
                (flow.next_phase_index(per_turn), "in the next phase")
            }
            _ => (flow.phase_index(), "this phase"),
        }
    };
    let place = match before {
        Some(b) => format!("just before {} {when}", name(world, b)),
        None => "at the end of the phase".to_string(),
    };
    world
        .entity_mut(actor)
        .insert(Hold::Delayed { before, fires });
    log(world, || {
        Event::new(
            EventKind::Delay,
            "002 §Delay",
            format!("{who} delays, to act {place} (ruling delay_place)."),
        )
        .actor(&who)
    });
    pop_turn(world, actor);
}

/// 002 §Ready: an attack action readied for a condition (ruling
/// `ready_trigger`).
fn ready(world: &mut World, actor: Entity, trigger: Trigger, weapon: String) {
    let who = name(world, actor);
    let shot = world
        .resource::<Data>()
        .0
        .weapons
        .get(&weapon)
        .is_some_and(|d| !d.melee());
    use_action(world, actor, true);
    let cond = match trigger {
        Trigger::EntersReach => "the first opponent to come within its reach".to_string(),
        Trigger::Acts(t) => format!("{} as soon as it begins an action", name(world, t)),
    };
    world.entity_mut(actor).insert(Hold::Readied {
        trigger,
        weapon: weapon.clone(),
    });
    log(world, || {
        Event::new(
            EventKind::Ready,
            "002 §Ready",
            if shot {
                format!("{who} readies a shot with the {weapon} at {cond} (an attack action; ruling ready_trigger).")
            } else {
                format!("{who} readies a strike at {cond} (an attack action; ruling ready_trigger).")
            },
        )
        .actor(&who)
    });
}

/// Ruling `end_turn`: the character ends its turn, logged if it could have
/// done more. A turn let pass without an action ends its manoeuvres as an
/// action would (rulings `dodge`, `block`, `haymaker`).
fn end_own_turn(world: &mut World, actor: Entity) {
    let who = name(world, actor);
    let left = anything_left(world, actor);
    let idle = world
        .get::<Use>(actor)
        .is_some_and(|u| u.actions == 0 && !u.full_phase);
    if idle {
        guard_ends(world, actor);
    }
    if left {
        log(world, || {
            Event::new(
                EventKind::EndTurn,
                "ruling end_turn",
                format!("{who} ends its turn."),
            )
            .actor(&who)
        });
    }
    end_turn(world, actor);
    pop_turn(world, actor);
}

/// 002 §Attacks of Opportunity: the attack taken on `mover`, one more of
/// the phase's opportunities used.
fn take_opportunity(
    world: &mut World,
    actor: Entity,
    mover: Entity,
    manoeuvre: String,
    weapon: String,
) {
    // The question's work is on top; it is answered.
    world.resource_mut::<Flow>().stack.pop();
    if let Some(mut u) = world.get_mut::<Use>(actor) {
        u.opportunities += 1;
    }
    world.resource_mut::<Flow>().stack.push(Work::Attack {
        attacker: actor,
        target: mover,
        manoeuvre,
        weapon,
        kind: AttackKind::Opportunity,
        abort_asked: false,
    });
}

/// 002 §One per Phase: one need not take an attack of opportunity.
fn let_go(world: &mut World, actor: Entity, mover: Entity) {
    let who = name(world, actor);
    world.resource_mut::<Flow>().stack.pop();
    let m = name(world, mover);
    log(world, || {
        Event::new(
            EventKind::Opportunity,
            "002 §One per Phase",
            format!("{who} lets {m} go without an attack of opportunity."),
        )
        .actor(&who)
    });
}

/// Take the answered turn off the stack (the turn is on top when its
/// decision is answered).
fn pop_turn(world: &mut World, actor: Entity) {
    let mut flow = world.resource_mut::<Flow>();
    if matches!(flow.stack.last(), Some(Work::Turn { actor: a, .. }) if *a == actor) {
        flow.stack.pop();
    }
}

/// Dodge or Block until the next action.
fn guard(world: &mut World, actor: Entity, block: bool) {
    let data = world.resource::<Data>().0.clone();
    let action = if block { "block" } else { "dodge" };
    let (ocv, dcv) = data.manoeuvre(action).map_or((0, 0), |m| (m.ocv, m.dcv));
    if let Some(mut g) = world.get_mut::<Guard>(actor) {
        g.manoeuvres.push((action.to_string(), ocv, dcv));
        if block {
            g.block = true;
        } else {
            g.dodge = true;
        }
    }
}

/// What an abort by `actor` now gives up (002 §Abort Consequences, §Ready
/// Consequences), in words, and what the rules must mark for it.
pub(super) fn abort_cost(world: &World, actor: Entity) -> (AbortCost, &'static str) {
    let f = world.resource::<Flow>();
    let (done, now) = (f.acted(actor), f.phase_index());
    let next = f.next_phase_index(world.resource::<Data>().0.numbers.phases_per_turn);
    match world.get::<Hold>(actor) {
        // Readying was its action on its initiative score this phase: the
        // abort after it gives up the next phase's action too.
        Some(Hold::Readied { .. }) if done => (
            AbortCost::Phase(next),
            "the readied action it held and, having readied on its initiative score this phase, its action in the next phase",
        ),
        // The delay was to be its action in a later phase.
        Some(Hold::Delayed { fires, .. }) if *fires > now => (
            AbortCost::Phase(*fires),
            "the delayed action it held, its action in the phase it was delayed to",
        ),
        // Held from an earlier phase, it stood for this phase's action: its
        // place this phase gives it none.
        Some(_) if !done => (
            AbortCost::ThisPhase,
            "the delayed or readied action it held, and with it its action this phase",
        ),
        Some(_) => (AbortCost::Nothing, "the delayed or readied action it held"),
        None if done => (
            AbortCost::Phase(next),
            "its action in the next phase, and cannot abort again until its place in that phase has passed",
        ),
        None => (AbortCost::ThisPhase, "its action this phase"),
    }
}

/// What an abort marks, besides the held action it drops.
pub(super) enum AbortCost {
    /// The action of the phase numbered here (`AbortedAhead`).
    Phase(u32),
    /// This phase's action: its place gives it none.
    ThisPhase,
    Nothing,
}

/// 002 §Abort and §Abort Consequences: a defensive action now, for the next
/// action: this phase's if the character has not had its place, else the
/// next phase's. A held (delayed or readied) action is the next action.
fn abort(world: &mut World, actor: Entity, attacker: Entity, block: bool) {
    let who = name(world, actor);
    let by = name(world, attacker);
    // The abort is its next action: what its last action's manoeuvres did
    // ends (rulings dodge, block, haymaker).
    let ended = what_ends(world, actor);
    next_action(world, actor);
    guard(world, actor, block);
    let (cost, gives_up) = abort_cost(world, actor);
    let why = if matches!(world.get::<Hold>(actor), Some(Hold::Delayed { .. })) {
        " gives up the action it delayed"
    } else {
        " gives up its next action by aborting"
    };
    recovery_lost(world, actor, why);
    world.entity_mut(actor).remove::<Hold>();
    match cost {
        AbortCost::Phase(p) => {
            world.entity_mut(actor).insert(AbortedAhead(p));
        }
        AbortCost::ThisPhase => world.resource_mut::<Flow>().gave_up.push(actor),
        AbortCost::Nothing => {}
    }
    let to = if block { "Block" } else { "Dodge" };
    let ends = if ended.is_empty() {
        String::new()
    } else {
        format!(" Its {} ends.", ended.join(" and "))
    };
    log(world, || {
        Event::new(
            EventKind::Abort,
            "002 §Abort",
            format!("{who} aborts to {to} against {by}'s attack, giving up {gives_up}.{ends} Its Initiative does not change."),
        )
        .actor(&who)
        .target(&by)
    });
}

/// Take a Recovery: REC STUN, up to the maximum; the unconscious may wake
/// (ruling `recovery`).
fn recovery(world: &mut World, actor: Entity, kind: EventKind, rule: &str, what: &str) {
    let who = name(world, actor);
    let rec = world.get::<Stats>(actor).map_or(0, |s| s.rec);
    let Some(mut stun) = world.get_mut::<Stun>(actor) else {
        return;
    };
    let before = stun.current;
    stun.current = (stun.current + rec).min(stun.max);
    let (now, max) = (stun.current, stun.max);
    let gained = now - before;
    let woke = world.get::<Condition>(actor) == Some(&Condition::Unconscious) && now > 0;
    if woke {
        world.entity_mut(actor).insert((Condition::Fine, Fighting));
    }
    let rule = rule.to_string();
    let what = what.to_string();
    log(world, || {
        let mut text = format!("{who} {what}: +{gained} STUN ({now}/{max}).");
        if woke {
            text.push_str(" It wakes and fights again.");
        }
        let e = Event::new(kind, rule, text).actor(&who);
        if gained > 0 { e.amount(-gained) } else { e }
    });
}

fn reload(world: &mut World, actor: Entity, weapon: usize) {
    if !up(world, actor) {
        return;
    }
    if stunned(world, actor) {
        // Stunned by the attack of opportunity it drew (ruling
        // interrupted_action).
        let who = name(world, actor);
        log(world, || {
            Event::new(
                EventKind::Reload,
                "ruling interrupted_action",
                format!("{who} is Stunned: the reload is lost."),
            )
            .actor(&who)
        });
        return;
    }
    let data = world.resource::<Data>().0.clone();
    let who = name(world, actor);
    let Some(mut kit) = world.get_mut::<Kit>(actor) else {
        return;
    };
    let Some(w) = kit.weapons.get(weapon).cloned() else {
        return;
    };
    let full = data.weapons.get(&w).map_or(0, |d| d.shots);
    if let Some(s) = kit.shots.get_mut(weapon) {
        *s = full;
    }
    log(world, || {
        Event::new(
            EventKind::Reload,
            "002 §Table",
            format!("{who} reloads the {w} ({full} shots)."),
        )
        .actor(&who)
    });
}

/// Opponents who threaten `cell` and could take an attack of opportunity on
/// `mover`, in initiative order.
pub(super) fn threatening(world: &World, mover: Entity, cell: Cell) -> Vec<Entity> {
    let grid = world.resource::<Grid>();
    world
        .resource::<Flow>()
        .order
        .iter()
        .copied()
        .filter(|&t| {
            enemies(world, t, mover)
                && world.get::<Stats>(t).is_some_and(|s| {
                    world
                        .get::<Cell>(t)
                        .is_some_and(|&c| c != cell && grid.distance(c, cell) <= s.reach)
                })
                && can_take_opportunity(world, t, mover)
        })
        .collect()
}

/// Opponents who may take an attack of opportunity on `mover` now and have
/// not yet had it leave them this phase, in initiative order, with their
/// reach.
fn able_to_take_opportunity(world: &World, mover: Entity) -> Vec<Threatener> {
    world
        .resource::<Flow>()
        .order
        .iter()
        .copied()
        .filter(|&t| {
            enemies(world, t, mover)
                && can_take_opportunity(world, t, mover)
                && world
                    .get::<Use>(t)
                    .is_some_and(|u| !u.left_by.contains(&mover))
        })
        .filter_map(|t| {
            Some(Threatener {
                entity: t,
                cell: *world.get::<Cell>(t)?,
                reach: world.get::<Stats>(t)?.reach,
            })
        })
        .collect()
}

/// 002 §One per Phase and §Combat Reflexes: whether `t` may attack `mover`
/// now: on its feet, not Stunned, not dodging, aware, with an attack of
/// opportunity left this phase and `mover` within reach.
fn can_take_opportunity(world: &World, t: Entity, mover: Entity) -> bool {
    let data = &world.resource::<Data>().0;
    let flow = world.resource::<Flow>();
    let Some((stats, used, guard)) =
        fray_core::model::components::<(&Stats, &Use, &Guard)>(world, t)
    else {
        return false;
    };
    up(world, t)
        && up(world, mover)
        && !stunned(world, t)
        && !guard.dodge
        && !(flow.phase == 0 && world.get::<Unaware>(t).is_some())
        && used.opportunities < data.numbers.opportunities_per_phase + stats.combat_reflexes
        && melee_weapon(world, t).is_some()
        && in_reach(world, t, mover)
}

/// Ruling `skill_check_negates`: roll the skill the row names, if the
/// character has it. Some(true) negates the action's opportunities.
fn skill_check(world: &mut World, actor: Entity, action: &str) -> Option<bool> {
    let data = world.resource::<Data>().0.clone();
    let row = data.manoeuvre(action)?;
    let super::Provokes::SkillNegates(skill) = &row.provokes else {
        return None;
    };
    let target = world.get::<Stats>(actor)?.skills.get(skill).copied()?;
    let who = name(world, actor);
    let roll = world.resource_mut::<Dice>().roll(
        data.ruling_numbers.skill_dice,
        format!("{who}'s {skill} roll"),
    );
    let success = roll.total <= target;
    let total = roll.total;
    let skill = skill.clone();
    log(world, || {
        Event::new(
            EventKind::Skill,
            "ruling skill_check_negates",
            if success {
                format!("{who} rolls {skill} {total} against {target} or less: the action provokes no attack of opportunity.")
            } else {
                format!("{who} rolls {skill} {total} against {target} or less and fails: the action provokes.")
            },
        )
        .actor(&who)
        .roll(roll)
        .check(Check {
            against: format!("{skill} roll"),
            target,
            modifiers: Vec::new(),
            total,
            success,
        })
    });
    Some(success)
}

/// 002 §Distracting Actions: an action done in a threatened hex provokes
/// each opponent who threatens it (each a separate opportunity), unless a
/// skill check negates it. Returns the questions to ask, first on top.
fn provoke_in_place(world: &mut World, actor: Entity, action: &str) -> Vec<Work> {
    let data = world.resource::<Data>().0.clone();
    let provokes = data
        .manoeuvre(action)
        .is_some_and(|m| !matches!(m.provokes, super::Provokes::No));
    let Some(&here) = world.get::<Cell>(actor) else {
        return Vec::new();
    };
    if !provokes {
        return Vec::new();
    }
    let threats = threatening(world, actor, here);
    if threats.is_empty() || skill_check(world, actor, action) == Some(true) {
        return Vec::new();
    }
    let who = name(world, actor);
    let names: Vec<String> = threats.iter().map(|&t| name(world, t)).collect();
    let row = data
        .manoeuvre(action)
        .map(|m| m.name.clone())
        .unwrap_or_default();
    log(world, || {
        Event::new(
            EventKind::Provoke,
            "002 §Distracting Actions",
            format!(
                "{who}'s \"{row}\" in a threatened hex provokes {}.",
                names.join(" and ")
            ),
        )
        .actor(&who)
    });
    threats
        .into_iter()
        .map(|t| Work::Opportunity {
            threatener: t,
            mover: actor,
        })
        .collect()
}

/// Log the part of a move walked since it last logged.
fn log_walk(
    world: &mut World,
    actor: Entity,
    (from, at): (&mut (Cell, usize), usize),
    how: MoveHow,
    kind: ActionType,
) {
    let Some(&here) = world.get::<Cell>(actor) else {
        return;
    };
    if here == from.0 {
        return;
    }
    let who = name(world, actor);
    // The hexes walked, round obstacles and others, not the straight line.
    let (start, hexes) = (from.0, at.saturating_sub(from.1));
    *from = (here, at);
    let (what, rule) = match (how, kind) {
        (MoveHow::Step, _) => ("takes a 1-hex step", "002 §1-Hex Step"),
        (MoveHow::Withdraw, _) => ("withdraws (a full-phase action)", "ruling withdraw"),
        (_, ActionType::FullPhase) => ("moves (a full-phase action)", "002 §Table · ruling route"),
        _ => ("moves (a move action)", "002 §Table · ruling route"),
    };
    log(world, || {
        Event::new(
            EventKind::Move,
            rule,
            format!(
                "{who} {what} from {start} to {here} ({hexes} hex{}).",
                if hexes == 1 { "" } else { "es" }
            ),
        )
        .actor(&who)
    });
}

/// Walk a path one hex at a time (002 §Moving Out): leaving a threatened hex
/// offers the threatening opponents their attacks before the mover leaves
/// (ruling `leaving_threat`); entering a readied opponent's reach sets off its
/// strike (ruling `ready_trigger`).
fn walk(world: &mut World, work: Work) -> Next {
    let Work::Move {
        actor,
        mut walk,
        how,
        kind,
        mut skill,
        mut offered,
        mut logged_from,
    } = work
    else {
        return Next::Done;
    };
    let who = name(world, actor);
    let Some(&here) = world.get::<Cell>(actor) else {
        return Next::Done;
    };
    if walk.done() || !up(world, actor) || stunned(world, actor) {
        log_walk(world, actor, (&mut logged_from, walk.at), how, kind);
        if !walk.done() {
            log(world, || {
                Event::new(
                    EventKind::Stop,
                    "ruling interrupted_action",
                    format!("{who} can no longer move: the move stops at {here}."),
                )
                .actor(&who)
            });
        }
        return Next::Done;
    }
    let taken = orders::occupied(world, actor);
    let step = match walk.next(world.resource::<Grid>(), here, &taken, &[]) {
        Ok(step) => step,
        Err(halt) => {
            log_walk(world, actor, (&mut logged_from, walk.at), how, kind);
            if let Halt::Taken(next) = halt {
                log(world, || {
                    Event::new(
                        EventKind::Stop,
                        "ruling interrupted_action",
                        format!("{next} has been taken: {who} stops at {here}."),
                    )
                    .actor(&who)
                });
            }
            return Next::Done;
        }
    };
    let keep = |walk, skill, offered, logged_from| Work::Move {
        actor,
        walk,
        how,
        kind,
        skill,
        offered,
        logged_from,
    };
    if !offered {
        offered = true;
        let spared = how == MoveHow::Withdraw && walk.at == 0;
        if spared {
            withdrawn_from(world, actor, step.from);
        }
        if !spared
            && skill != Some(true)
            && let Some(asks) = moving_out(
                world,
                (&walk, &step),
                how,
                kind,
                &mut skill,
                &mut logged_from,
            )
        {
            return Next::Keep(keep(walk, skill, offered, logged_from), asks);
        }
    }
    walk.take(world, &step, &[]);
    let readied = readied_by(world, Trigger::EntersReach, actor, Some(here));
    if !readied.is_empty() {
        // Log where the mover stands when the readied strike cuts in.
        log_walk(world, actor, (&mut logged_from, walk.at), how, kind);
        let questions = readied_questions(readied, actor);
        return Next::Keep(keep(walk, skill, false, logged_from), questions);
    }
    if walk.done() {
        log_walk(world, actor, (&mut logged_from, walk.at), how, kind);
        return Next::Done;
    }
    Next::Keep(keep(walk, skill, false, logged_from), Vec::new())
}

/// Ruling `withdraw`: the opponents threatening the hex `mover` withdraws
/// from are the ones it withdraws from: leaving their threat, there or
/// later in the withdrawal, draws nothing from them ("Withdraw from combat
/// | No").
fn withdrawn_from(world: &mut World, mover: Entity, from: Cell) {
    for t in threatening(world, mover, from) {
        if let Some(mut u) = world.get_mut::<Use>(t) {
            u.left_by.push(mover);
        }
    }
}

/// 002 §Moving Out: the mover is about to leave its hex; the opponents who
/// threaten it and have not yet had this mover leave them get an
/// opportunity, unless a skill check negates it (ruling
/// `skill_check_negates`, rolled once per move). Returns the questions to
/// ask, if any.
fn moving_out(
    world: &mut World,
    (walk, step): (&Walk, &Step),
    how: MoveHow,
    kind: ActionType,
    skill: &mut Option<bool>,
    logged_from: &mut (Cell, usize),
) -> Option<Vec<Work>> {
    let actor = walk.mover;
    let who = name(world, actor);
    let able = able_to_take_opportunity(world, actor);
    let threats = walk.provoked(world.resource::<Grid>(), step.from, step.to, &able);
    if threats.is_empty() {
        return None;
    }
    if skill.is_none() {
        let action = if kind == ActionType::FullPhase {
            "full_move"
        } else {
            "move"
        };
        *skill = skill_check(world, actor, action).or(Some(false));
    }
    if *skill == Some(true) {
        return None;
    }
    log_walk(world, actor, (logged_from, walk.at), how, kind);
    for &t in &threats {
        if let Some(mut u) = world.get_mut::<Use>(t) {
            u.left_by.push(actor);
        }
    }
    let names: Vec<String> = threats.iter().map(|&t| name(world, t)).collect();
    log(world, || {
        Event::new(
            EventKind::Provoke,
            "002 §Moving Out",
            format!(
                "{who} moves out of a hex threatened by {}: an opportunity.",
                names.join(" and ")
            ),
        )
        .actor(&who)
    });
    Some(
        threats
            .into_iter()
            .map(|t| Work::Opportunity {
                threatener: t,
                mover: actor,
            })
            .collect(),
    )
}

/// The readied characters whose condition `what` meets (`by` entering a hex,
/// having come from `from`, or beginning an action).
fn readied_by(world: &World, what: Trigger, by: Entity, from: Option<Cell>) -> Vec<Entity> {
    let Some(&at) = world.get::<Cell>(by) else {
        return Vec::new();
    };
    if !up(world, by) {
        return Vec::new();
    }
    let grid = world.resource::<Grid>();
    world
        .resource::<Flow>()
        .order
        .iter()
        .filter_map(|&r| {
            let Some(Hold::Readied { trigger, weapon }) = world.get::<Hold>(r) else {
                return None;
            };
            if !enemies(world, r, by) || !up(world, r) || stunned(world, r) {
                return None;
            }
            let rc = *world.get::<Cell>(r)?;
            let reach = world.get::<Stats>(r)?.reach;
            let distance = grid.distance(rc, at);
            let fits = match (*trigger, what) {
                (Trigger::EntersReach, Trigger::EntersReach) => {
                    distance <= reach
                        && from.is_none_or(|f| f == rc || grid.distance(rc, f) > reach)
                }
                (Trigger::Acts(t), Trigger::Acts(_)) => {
                    let range = world
                        .resource::<Data>()
                        .0
                        .weapons
                        .get(weapon)
                        .map_or(0, |d| d.range);
                    t == by
                        && if range > 0 {
                            // 002 §Combat Actions: "within the attack's
                            // maximum range and in line of sight".
                            distance <= range && super::orders::line_of_sight(world, rc, at)
                        } else {
                            distance <= reach || step_hex(world, r, by).is_some()
                        }
                }
                _ => false,
            };
            fits.then_some(r)
        })
        .collect()
}

/// 002 §Ready: `by` has met the condition of each readier in `fired`: each
/// is asked, in turn, whether it takes its readied action now.
fn readied_questions(fired: Vec<Entity>, by: Entity) -> Vec<Work> {
    fired
        .into_iter()
        .map(|readier| Work::Readied {
            readier,
            by,
            asked: false,
        })
        .collect()
}

/// Ask `readier` whether it takes its readied action, `by` having met its
/// condition ("you may take the readied action", 002 §Ready); unless that
/// is moot now.
fn ask_readied(world: &mut World, (readier, by): (Entity, Entity)) -> Next {
    let Some((action, _)) = orders::readied_action(world, readier) else {
        return Next::Done;
    };
    if !up(world, readier) || stunned(world, readier) || !up(world, by) {
        return Next::Done;
    }
    let (r, b) = (name(world, readier), name(world, by));
    let what = if action == "shoot" { "shot" } else { "strike" };
    let waiting = Work::Readied {
        readier,
        by,
        asked: true,
    };
    ask(
        world,
        (readier, Asking::Readied { by }),
        |w| {
            let (hits, block) = if action == "shoot" {
                (hit_chance(w, readier, by, action), false)
            } else {
                melee_chance(w, readier, by, action)
            };
            let past = if block { ", past its Block" } else { "" };
            format!(
                "{b} meets the condition of {r}'s readied {what}: take it now, just before {b} goes on? It hits {:.0}% of the time{past}.",
                hits * 100.0
            )
        },
        "002 §Ready",
        waiting,
    )
}

/// 002 §Ready Conditions: `r` takes its readied action at `by`: it cuts in
/// just before `by` goes on, and `r` acts just ahead of `by` from now on.
fn take_readied(world: &mut World, r: Entity, by: Entity, step: Option<Cell>) {
    let Some((action, weapon)) = orders::readied_action(world, r).map(|(a, w)| (a, w.to_string()))
    else {
        return;
    };
    world.entity_mut(r).remove::<Hold>();
    // The readied action is `r`'s next action (rulings dodge, block,
    // haymaker): what an attack of opportunity since did to its DCV ends.
    next_action(world, r);
    move_before(world, r, Some(by), "readied");
    let (rn, bn) = (name(world, r), name(world, by));
    let shot = action == "shoot";
    let what = if shot { "shot" } else { "strike" };
    log(world, || {
        Event::new(
            EventKind::Readied,
            "002 §Ready Conditions",
            format!("{rn}'s readied {what} goes off: it cuts in just before {bn} goes on, and acts just ahead of {bn} from now on."),
        )
        .actor(&rn)
        .target(&bn)
    });
    world.resource_mut::<Flow>().stack.push(Work::Attack {
        attacker: r,
        target: by,
        manoeuvre: action.into(),
        weapon,
        kind: AttackKind::Readied { step },
        abort_asked: false,
    });
}

/// 002 §Ready: `r` lets `by` go on, its action still readied.
fn hold_readied(world: &mut World, r: Entity, by: Entity) {
    let (rn, bn) = (name(world, r), name(world, by));
    log(world, || {
        Event::new(
            EventKind::Ready,
            "002 §Ready",
            format!("{rn} holds its readied action: {bn} goes on, and it stays readied until {rn}'s next action."),
        )
        .actor(&rn)
        .target(&bn)
    });
}

/// An attack: check it can still be made, let the target abort, then roll.
fn attack(world: &mut World, work: Work) -> Next {
    let Work::Attack {
        attacker,
        target,
        manoeuvre,
        weapon,
        kind,
        abort_asked,
    } = work.clone()
    else {
        return Next::Done;
    };
    let (a, t) = (name(world, attacker), name(world, target));
    let data = world.resource::<Data>().0.clone();
    let melee = data.weapons.get(&weapon).is_none_or(|w| w.melee());
    if !up(world, attacker) || stunned(world, attacker) || !up(world, target) {
        log(world, || {
            Event::new(
                EventKind::Lost,
                "ruling interrupted_action",
                format!("{a}'s attack on {t} is lost: one of them is out of the fight or Stunned."),
            )
            .actor(&a)
        });
        return Next::Done;
    }
    if melee && !in_reach(world, attacker, target) {
        // 002 §Ready Step: a readied strike may take the 1-hex step to reach.
        let stepped = match kind {
            AttackKind::Readied { step } => ready_step(world, attacker, target, step),
            _ => None,
        };
        if let Some(from) = stepped {
            // The step may bring the readier within another's reach, whose
            // readied strike comes first (002 §Ready).
            let readied = readied_by(world, Trigger::EntersReach, attacker, Some(from));
            if !readied.is_empty() {
                return Next::Keep(work, readied_questions(readied, attacker));
            }
        } else {
            log(world, || {
                Event::new(
                    EventKind::Lost,
                    "ruling interrupted_action",
                    format!("{a}'s attack on {t} is lost: {t} is no longer within reach."),
                )
                .actor(&a)
            });
            return Next::Done;
        }
    }
    if !abort_asked && can_abort(world, target, melee) {
        let waiting = Work::Attack {
            attacker,
            target,
            manoeuvre: manoeuvre.clone(),
            weapon: weapon.clone(),
            kind,
            abort_asked: true,
        };
        return ask(
            world,
            (target, Asking::Abort { attacker }),
            |world| {
                format!(
                    "{a} attacks {t} ({manoeuvre}: {}): abort to a defensive action?",
                    abort_odds(world, attacker, target, &manoeuvre, &weapon)
                )
            },
            "002 §Abort",
            waiting,
        );
    }
    resolve_attack(world, attacker, target, &manoeuvre, &weapon, kind);
    Next::Done
}

/// 002 §Ready Step: a free hex one step from `r` from which it reaches
/// `target`, if `r` may take the 1-hex step this phase.
fn step_hex(world: &World, r: Entity, target: Entity) -> Option<Cell> {
    step_hexes(world, r, target).first().copied()
}

/// 002 §Ready Step: every hex the 1-hex step of `r`'s readied action may
/// go to so as to reach `target`, in the grid's order of neighbours.
fn step_hexes(world: &World, r: Entity, target: Entity) -> Vec<Cell> {
    if step_refusal(world, r).is_some() {
        return Vec::new();
    }
    let (Some(&from), Some(&to), Some(stats)) = (
        world.get::<Cell>(r),
        world.get::<Cell>(target),
        world.get::<Stats>(r),
    ) else {
        return Vec::new();
    };
    let taken = orders::occupied(world, r);
    let grid = world.resource::<Grid>();
    grid.neighbours(from)
        .filter(|&n| {
            !taken.contains(&n)
                && grid.enter_cost(n).is_some()
                && !grid.is_difficult(n)
                && n != to
                && grid.distance(n, to) <= stats.reach
        })
        .collect()
}

/// 002 §Ready Step: the hexes a readied strike at `target`, out of reach,
/// may step to; none when the target is in reach already or the readied
/// action is a shot.
pub(super) fn readied_steps(world: &World, r: Entity, target: Entity) -> Vec<Cell> {
    let shot = orders::readied_action(world, r).is_some_and(|(a, _)| a == "shoot");
    if shot || in_reach(world, r, target) {
        return Vec::new();
    }
    step_hexes(world, r, target)
}

/// 002 §Ready Step: the readier steps to a hex from which it reaches the
/// target, as part of its readied action: the one its owner chose if it is
/// still open, else the first.
fn ready_step(world: &mut World, r: Entity, target: Entity, chosen: Option<Cell>) -> Option<Cell> {
    let open = step_hexes(world, r, target);
    let cell = chosen
        .filter(|c| open.contains(c))
        .or_else(|| open.first().copied())?;
    let from = *world.get::<Cell>(r)?;
    world.entity_mut(r).insert(cell);
    if let Some(mut u) = world.get_mut::<Use>(r) {
        u.stepped = true;
    }
    let who = name(world, r);
    log(world, || {
        Event::new(
            EventKind::Move,
            "002 §Ready Step",
            format!(
                "{who} takes a 1-hex step from {from} to {cell} as part of its readied action."
            ),
        )
        .actor(&who)
    });
    Some(from)
}

/// 002 §Abort: whether `t` may abort now: not in its own turn (ruling
/// `abort_options`), on its feet, not Stunned, aware, not dodging already,
/// not blocking already unless the attack is a shot, which a Block does not
/// meet (ruling `block`), and not barred by an earlier abort.
fn can_abort(world: &World, t: Entity, melee: bool) -> bool {
    let own_turn = world
        .resource::<Flow>()
        .stack
        .iter()
        .any(|w| matches!(w, Work::Turn { actor, .. } if *actor == t));
    let unaware_now = world.resource::<Flow>().phase == 0 && world.get::<Unaware>(t).is_some();
    let able = up(world, t) && !stunned(world, t) && !unaware_now;
    // 002 §Abort Consequences: barred "until after your Initiative in the
    // following Phase"; that phase passed while it lay senseless, the bar
    // is gone too.
    let now = world.resource::<Flow>().phase_index();
    !own_turn
        && able
        && world.get::<AbortedAhead>(t).is_none_or(|a| a.0 < now)
        && world
            .get::<Guard>(t)
            .is_some_and(|g| !(g.dodge || (g.block && melee)))
}

/// OCV for an attack by `attacker` with `manoeuvre`: CV, combat levels, and
/// the manoeuvres in effect combined (ruling `opportunity_manoeuvre`).
/// 002 §Attack Roll: the chance that `attacker`'s `manoeuvre` hits
/// `target` as things stand, 3d6 + OCV against 10 + DCV.
/// [`hit_chance`] for a melee attack, once past the Block of a target
/// holding one (ruling `block`: the Block roll comes first), and whether
/// one stands.
pub fn melee_chance(
    world: &World,
    attacker: Entity,
    target: Entity,
    manoeuvre: &str,
) -> (f32, bool) {
    let hits = hit_chance(world, attacker, target, manoeuvre);
    if !world.get::<Guard>(target).is_some_and(|g| g.block) {
        return (hits, false);
    }
    let base = world.resource::<Data>().0.numbers.attack_base;
    let (o, b) = (ocv(world, attacker, manoeuvre), ocv(world, target, "block"));
    let blocked = super::view::chance_3d6_at_least(base + o - b);
    (hits * (1.0 - blocked), true)
}

pub fn hit_chance(world: &World, attacker: Entity, target: Entity, manoeuvre: &str) -> f32 {
    let base = world.resource::<Data>().0.numbers.attack_base;
    super::view::chance_3d6_at_least(base + dcv(world, target) - ocv(world, attacker, manoeuvre))
}

pub fn ocv(world: &World, attacker: Entity, manoeuvre: &str) -> i32 {
    let mut total = 0;
    ocv_parts(world, attacker, manoeuvre, |_, v| total += v);
    total
}

/// [`ocv`], and its parts for the log.
pub fn ocv_explained(world: &World, attacker: Entity, manoeuvre: &str) -> (i32, Vec<Modifier>) {
    explained(|part| ocv_parts(world, attacker, manoeuvre, part))
}

/// The parts of [`ocv`], each told to `part`.
fn ocv_parts(
    world: &World,
    attacker: Entity,
    manoeuvre: &str,
    mut part: impl FnMut(&'static str, i32),
) {
    let data = &world.resource::<Data>().0;
    let Some(stats) = world.get::<Stats>(attacker) else {
        return;
    };
    part("OCV", stats.cv);
    if stats.combat_levels != 0 {
        part("Combat levels", stats.combat_levels);
    }
    let m = data.manoeuvre(manoeuvre).map_or((0, 0), |m| (m.ocv, m.dcv));
    let (o, _) = guarded(world, attacker, Some(m));
    if o != 0 {
        part("Manoeuvres", o);
    }
}

/// DCV of `target`: CV, halved when Stunned (ruling `stunned`), with the
/// manoeuvres in effect, surprise and water.
pub fn dcv(world: &World, target: Entity) -> i32 {
    let mut total = 0;
    dcv_parts(world, (target, None), |_, v| total += v);
    total
}

/// [`dcv`] once `target` aborts to Dodge. The abort is its next action, so
/// it ends the manoeuvres in effect (rulings `dodge`, `block`, `haymaker`)
/// before its own +3 begins.
pub fn dcv_dodging(world: &World, target: Entity) -> i32 {
    let data = &world.resource::<Data>().0;
    let dodge = data.manoeuvre("dodge").map(|m| (m.ocv, m.dcv));
    let mut total = 0;
    dcv_parts(world, (target, dodge), |_, v| total += v);
    total
}

/// [`dcv`], and its parts for the log.
pub fn dcv_explained(world: &World, target: Entity) -> (i32, Vec<Modifier>) {
    explained(|part| dcv_parts(world, (target, None), part))
}

/// The parts of [`dcv`], each told to `part`: with the manoeuvres in effect,
/// or, given the manoeuvre of an abort, with that one alone (the abort is
/// the next action, which ends the others). Ruling `stunned`: a Stunned
/// character's DCV is half of all the rest, rounded down.
fn dcv_parts(
    world: &World,
    (target, abort): (Entity, Option<(i32, i32)>),
    mut part: impl FnMut(&'static str, i32),
) {
    let data = &world.resource::<Data>().0;
    let Some(stats) = world.get::<Stats>(target) else {
        return;
    };
    let mut total = 0;
    let mut add = |name, value| {
        total += value;
        part(name, value);
    };
    add("DCV", stats.cv);
    let (_, d) = match abort {
        Some(m) => Guard::default().combined(Some(m)),
        None => guarded(world, target, None),
    };
    if d != 0 {
        add("Manoeuvres", d);
    }
    if world.resource::<Flow>().phase == 0 && world.get::<Unaware>(target).is_some() {
        add("Unaware (Surprise Phase)", data.numbers.unaware_dcv);
    }
    if stats.underwater {
        add("Underwater", data.ruling_numbers.underwater_dcv);
    }
    if stunned(world, target) {
        let d = data.ruling_numbers.stunned_dcv_divisor;
        // Halving is a penalty: a DCV of 0 or less is not raised by it.
        part("Stunned (half DCV)", (total.div_euclid(d) - total).min(0));
    }
}

/// The manoeuvres in effect on `e` and `extra`, combined (OCV, DCV).
fn guarded(world: &World, e: Entity, extra: Option<(i32, i32)>) -> (i32, i32) {
    match world.get::<Guard>(e) {
        Some(g) => g.combined(extra),
        None => Guard::default().combined(extra),
    }
}

/// A total and the modifiers it is made of, from the parts `parts` tells.
fn explained(parts: impl FnOnce(&mut dyn FnMut(&'static str, i32))) -> (i32, Vec<Modifier>) {
    let mut mods = Vec::new();
    parts(&mut |name, value| mods.push(Modifier::new(name, value)));
    (mods.iter().map(|m| m.value).sum(), mods)
}

/// 002 §Abort: what each answer to "abort?" makes of the attack coming: its
/// chance to hit as things stand, with Dodge's DCV, and after a Block
/// (ruling `block`, melee only) — the odds a player weighs.
fn abort_odds(
    world: &World,
    attacker: Entity,
    target: Entity,
    manoeuvre: &str,
    weapon: &str,
) -> String {
    let data = &world.resource::<Data>().0;
    let base = data.numbers.attack_base;
    let o = ocv(world, attacker, manoeuvre);
    let pct = |p: f32| format!("{:.0}%", p * 100.0);
    let hits = hit_chance(world, attacker, target, manoeuvre);
    let dodged = super::view::chance_3d6_at_least(base + dcv_dodging(world, target) - o);
    let mut odds = format!("hits {}; with Dodge {}", pct(hits), pct(dodged));
    if data.weapons.get(weapon).is_none_or(|w| w.melee()) {
        let b = ocv(world, target, "block");
        let blocked = super::view::chance_3d6_at_least(base + o - b);
        odds.push_str(&format!("; a Block stops it {}", pct(blocked)));
    }
    odds
}

/// 002 §Attack Roll: 3d6 + OCV against 10 + DCV (ruling `attack_ties`), after
/// a Block if one stands (ruling `block`). A hit does damage (ruling `damage`).
fn resolve_attack(
    world: &mut World,
    attacker: Entity,
    target: Entity,
    manoeuvre: &str,
    weapon: &str,
    kind: AttackKind,
) {
    world.resource_mut::<Flow>().struck = true;
    let data = world.resource::<Data>().0.clone();
    let (a, t) = (name(world, attacker), name(world, target));
    let w = data.weapons.get(weapon).cloned();
    let melee = w.as_ref().is_none_or(|w| w.melee());
    let (ocv, ocv_mods) = ocv_explained(world, attacker, manoeuvre);
    // The manoeuvre is in effect until the attacker's next action.
    let m = data.manoeuvre(manoeuvre).map_or((0, 0), |m| (m.ocv, m.dcv));
    if let Some(mut g) = world.get_mut::<Guard>(attacker) {
        g.manoeuvres.push((manoeuvre.to_string(), m.0, m.1));
    }
    if !melee && let Some(mut kit) = world.get_mut::<Kit>(attacker) {
        let i = kit.weapons.iter().position(|x| x == weapon);
        if let Some(s) = i.and_then(|i| kit.shots.get_mut(i)) {
            *s = s.saturating_sub(1);
        }
    }
    let (event, rule, how) = match kind {
        AttackKind::Action => (EventKind::Attack, "002 §Attack Roll", ""),
        AttackKind::Opportunity => (
            EventKind::Opportunity,
            "002 §Interrupts",
            " (attack of opportunity)",
        ),
        AttackKind::Readied { .. } => (
            EventKind::ReadiedAttack,
            "002 §Ready Conditions",
            " (readied)",
        ),
    };
    // Ruling block: the first melee attack on a blocking character meets its Block roll.
    if melee
        && world.get::<Guard>(target).is_some_and(|g| g.block)
        && blocks(world, attacker, target, manoeuvre, how, ocv)
    {
        return;
    }
    let (dcv, dcv_mods) = dcv_explained(world, target);
    let need = data.numbers.attack_base + dcv;
    let roll = world.resource_mut::<Dice>().roll(
        data.numbers.attack_dice,
        format!("{a}'s {manoeuvre} at {t}"),
    );
    let total = roll.total + ocv;
    let hit = total >= need;
    let dcv_words: Vec<String> = dcv_mods
        .iter()
        .skip(1)
        .map(|m| format!("{} {:+}", m.name, m.value))
        .collect();
    log(world, || {
        let extra = fray_core::log::aside(" (DCV: ", &dcv_words, ")");
        Event::new(
            event,
            rule,
            format!(
                "{a} {} {t}{how}: 3d6 {} + OCV {ocv} = {total} against 10 + DCV {dcv} = {need}{extra}: {}.",
                match manoeuvre {
                    "shoot" => "shoots at",
                    "haymaker" => "throws a haymaker at",
                    _ => "strikes at",
                },
                roll.total,
                if hit { "hit" } else { "miss" }
            ),
        )
        .actor(&a)
        .target(&t)
        .roll(roll.clone())
        .check(Check {
            against: "10 + DCV".into(),
            target: need,
            modifiers: ocv_mods,
            total,
            success: hit,
        })
    });
    if !hit {
        return;
    }
    let mut dice = w.map_or(DiceExpr::new(1, 6), |w| w.damage);
    if manoeuvre == "haymaker" {
        dice.count += data.ruling_numbers.haymaker_extra_dice;
    }
    damage(world, attacker, target, dice);
}

/// Ruling `block`: the target's Block, used up, rolled against 10 + the
/// attacker's OCV. Returns whether it blocks the attack.
fn blocks(
    world: &mut World,
    attacker: Entity,
    target: Entity,
    manoeuvre: &str,
    how: &str,
    ocv: i32,
) -> bool {
    let data = world.resource::<Data>().0.clone();
    let (a, t) = (name(world, attacker), name(world, target));
    if let Some(mut g) = world.get_mut::<Guard>(target) {
        g.block = false;
    }
    let (bocv, mut bmods) = ocv_explained(world, target, "block");
    let need = data.numbers.attack_base + ocv;
    let roll = world
        .resource_mut::<Dice>()
        .roll_for(data.numbers.attack_dice, || {
            format!("{t}'s Block against {a}")
        });
    let total = roll.total + bocv;
    bmods.insert(0, Modifier::new("3d6", roll.total));
    let blocked = total >= need;
    log(world, || {
        Event::new(
            EventKind::Block,
            "ruling block",
            if blocked {
                format!("{t} blocks {a}'s {manoeuvre}{how}: {total} against {need}.")
            } else {
                format!("{t} fails to block {a}'s {manoeuvre}{how}: {total} against {need}.")
            },
        )
        .actor(&t)
        .target(&a)
        .roll(roll)
        .check(Check {
            against: format!("10 + {a}'s OCV"),
            target: need,
            modifiers: bmods,
            total,
            success: blocked,
        })
    });
    blocked
}

/// Ruling `damage`: STUN is the dice's total, BODY counts each die (1: 0,
/// 6: 2, else 1); PD comes off both. Ruling `stunned` and `knocked_out`.
fn damage(world: &mut World, attacker: Entity, target: Entity, dice: DiceExpr) {
    let (a, t) = (name(world, attacker), name(world, target));
    let roll = world
        .resource_mut::<Dice>()
        .roll_for(dice, || format!("{a}'s damage to {t}"));
    let stun_rolled = roll.total;
    let body_rolled: i32 = roll
        .faces
        .iter()
        .map(|&f| match f {
            1 => 0,
            6 => 2,
            _ => 1,
        })
        .sum();
    let (pd, con) = world.get::<Stats>(target).map_or((0, 0), |s| (s.pd, s.con));
    let stun_taken = (stun_rolled - pd).max(0);
    let body_taken = (body_rolled - pd).max(0);
    let stun_now = world.get_mut::<Stun>(target).map_or(0, |mut s| {
        s.lose(stun_taken);
        s.current
    });
    let body_now = world.get_mut::<Body>(target).map_or(0, |mut b| {
        b.lose(body_taken);
        b.current
    });
    log(world, || {
        Event::new(
            EventKind::Damage,
            "ruling damage",
            format!(
                "{t} takes {stun_rolled} STUN and {body_rolled} BODY, less PD {pd}: {stun_taken} STUN ({stun_now} left), {body_taken} BODY ({body_now} left)."
            ),
        )
        .actor(&t)
        .roll(roll)
        .amount(stun_taken)
    });
    let condition = if body_now <= 0 {
        Condition::Down
    } else if stun_now <= 0 {
        Condition::Unconscious
    } else {
        Condition::Fine
    };
    if condition != Condition::Fine {
        fray_core::model::out_of_the_fight(world, target, condition, "ruling knocked_out", |t| {
            if condition == Condition::Down {
                format!(
                    "{t} is down: BODY {body_now}. It fights no more, but keeps its place in the order."
                )
            } else {
                format!(
                    "{t} is knocked out: STUN {stun_now}. It keeps its place in the order and may wake after a Recovery."
                )
            }
        });
        // Ruling knocked_out: what waited for its next action is lost, a
        // Stun still to recover from among it (ruling stunned).
        world.entity_mut(target).remove::<(Hold, Stunned)>();
        next_action(world, target);
        let why = if condition == Condition::Down {
            " is down"
        } else {
            " is knocked out"
        };
        recovery_lost(world, target, why);
    } else if stun_taken > con && !stunned(world, target) {
        // Ruling stunned: it "loses any delayed or readied action".
        let lost = match orders::readied_action(world, target) {
            Some(("shoot", _)) => " It loses the shot it readied.",
            Some(_) => " It loses the strike it readied.",
            None if world.get::<Hold>(target).is_some() => " It loses the action it delayed.",
            None => "",
        };
        let delayed = matches!(world.get::<Hold>(target), Some(Hold::Delayed { .. }));
        let blocking = world.get::<Guard>(target).is_some_and(|g| g.block);
        let block = if blocking { " Its Block is lost." } else { "" };
        world.entity_mut(target).insert(Stunned).remove::<Hold>();
        if let Some(mut g) = world.get_mut::<Guard>(target) {
            g.block = false;
        }
        log(world, || {
            Event::new(
                EventKind::Stunned,
                "ruling stunned",
                format!("{t} is Stunned: {stun_taken} STUN is more than its CON of {con}. Half DCV; its next action is spent recovering.{lost}{block}"),
            )
            .actor(&t)
        });
        let why = if delayed {
            " gives up the action it delayed"
        } else {
            "'s next action goes to recovering from the Stun"
        };
        recovery_lost(world, target, why);
    }
}

/// 002 §Time: the Post-Turn. Everyone with BODY left Takes a Recovery
/// (ruling `post_turn_recovery`); then the next turn, or the turn cap.
pub fn post_turn(world: &mut World) {
    {
        let mut l = world.resource_mut::<BattleLog>();
        l.time = "Post-Turn".into();
    }
    for e in roster(world) {
        if world.get::<Body>(e).is_some_and(|b| b.current > 0) {
            recovery(
                world,
                e,
                EventKind::Recover,
                "ruling post_turn_recovery",
                "Takes a Recovery in the Post-Turn",
            );
        }
    }
    let turn = world.resource::<Flow>().turn;
    let after = fray_core::model::count_of(turn, "turn");
    let words = |_| format!("The battle stops after {after} (the scenario's cap).");
    if fray_core::model::at_round_cap(world, turn, "scenario round_cap", words) {
        world.resource_mut::<Flow>().stage = Stage::Over;
        return;
    }
    {
        let mut flow = world.resource_mut::<Flow>();
        flow.turn += 1;
        flow.phase = 1;
        flow.stage = Stage::Phase;
        flow.done.clear();
        flow.gave_up.clear();
    }
    stamp(world, None);
    let turn = turn + 1;
    log(world, || {
        Event::new(
            EventKind::Phase,
            "002 §Time",
            format!("Turn {turn}, phase 1 begins."),
        )
    });
}

/// Ruling `knocked_out`: the battle ends when at most one side has anyone
/// conscious and on their feet.
pub fn check_end(world: &mut World) {
    let started = world.resource::<Flow>().stage != Stage::Start;
    if fray_core::model::ended_now(world, started, roster(world), super::round(world), ENDING) {
        let mut flow = world.resource_mut::<Flow>();
        flow.stage = Stage::Over;
        flow.asking = None;
    }
}

const ENDING: Ending = Ending {
    rule: "ruling knocked_out",
    words: |side, n| match side {
        Some(side) => {
            format!("Combat ends in turn {n}: the only side with anyone on their feet is {side}.")
        }
        None => format!("Combat ends in turn {n}: nobody is left on their feet."),
    },
};
