//! 001 §2: declarations — casters name a spell, everyone else a general
//! action — written down in secret and revealed together, each round before
//! initiative, and before each surprise segment (ruling
//! `surprise_declarations`).

use bevy_ecs::prelude::*;
use fray_core::casting::Casting;
use fray_core::decision::{self, Choice, Decisions, Order, Question};
use fray_core::grid::{Cell, Grid, GridGeometry};
use fray_core::log::{BattleLog, Event, EventKind, if_kept, record};
use fray_core::model::{Combatant, Rostered};

use super::{
    Action, Data, Declared, Flow, Kit, Period, Routine, Slot, SpearUsed, Stage, able, roster,
};

/// The name of `e`.
fn name(world: &World, e: Entity) -> String {
    fray_core::model::name(world, e)
}

/// A declared action in words.
pub fn describe(world: &World, action: &Action) -> String {
    match action {
        Action::Attack { target, weapon } => {
            format!("attack {} with the {weapon}", name(world, *target))
        }
        Action::Charge { target, weapon } => {
            format!("charge {} with the {weapon}", name(world, *target))
        }
        Action::Move { to } => format!("move toward {to}"),
        Action::Cast { spell, target } => format!("cast {spell} on {}", name(world, *target)),
        Action::Flee => "flee".into(),
        Action::SetSpear { weapon } => format!("set the {weapon} against a charge"),
        Action::Hold {
            until,
            target: Some(t),
            weapon,
        } => format!(
            "hold until segment {until}, then attack {} with the {weapon}",
            name(world, *t)
        ),
        Action::Hold { until, weapon, .. } => {
            format!("hold until segment {until}, then attack the nearest foe with the {weapon}")
        }
        Action::HoldCast {
            until,
            spell,
            target,
        } => format!(
            "hold until segment {until}, then cast {spell} on {}",
            name(world, *target)
        ),
        Action::Wait => "wait".into(),
        Action::Casting => "go on casting".into(),
    }
}

/// What an order is checked against.
struct Context<'w> {
    world: &'w World,
    actor: Entity,
    order: &'w Order,
    kit: &'w Kit,
}

impl Context<'_> {
    /// The combatant the order names, still in the fight.
    fn target(&self) -> Result<Entity, String> {
        let flow = self.world.resource::<Flow>();
        let t = flow.roster.target_of(self.order)?;
        if !able(self.world, t) {
            return Err(format!("{} is out of the fight", flow.name(t)));
        }
        Ok(t)
    }

    fn enemy(&self) -> Result<Entity, String> {
        let t = self.target()?;
        if !fray_core::model::enemies(self.world, self.actor, t) {
            return Err(format!("{} is not an enemy", name(self.world, t)));
        }
        Ok(t)
    }

    /// The weapon named, or the first carried that `fits`.
    fn weapon(&self, fits: impl Fn(&super::Weapon) -> bool, what: &str) -> Result<String, String> {
        let data = &self.world.resource::<Data>().0;
        let w = match &self.order.with {
            Some(w) => w.to_string(),
            None => self
                .kit
                .weapons
                .iter()
                .find(|w| data.weapons.get(*w).is_some_and(&fits))
                .cloned()
                .ok_or_else(|| format!("no {what} weapon"))?,
        };
        if !self.kit.weapons.contains(&w) {
            return Err(format!("{} does not carry a {w}", self.order.actor));
        }
        match data.weapons.get(&w) {
            Some(d) if fits(d) => Ok(w),
            _ => Err(format!("the {w} is not a {what} weapon")),
        }
    }

    /// Ruling `charge`: a charge needs a run, so its target must be out of
    /// the weapon's reach when it is declared.
    fn charge(&self) -> Result<Action, String> {
        let target = self.enemy()?;
        let weapon = self.weapon(|w| !w.missile(), "melee")?;
        let reach = super::combat::reach_of(self.world, &weapon);
        if super::combat::distance(self.world, self.actor, target) <= reach {
            return Err(format!(
                "{} is already within reach of the {weapon}: a charge needs a run; attack instead (ruling charge)",
                name(self.world, target)
            ));
        }
        Ok(Action::Charge { target, weapon })
    }

    fn cast(&self) -> Result<Action, String> {
        let spell = self.order.with_one_of("spell", &self.kit.spells)?;
        self.cast_spell(spell)
    }

    /// `spell` cast at the order's target: an enemy if it harms, else an
    /// ally or itself.
    fn cast_spell(&self, spell: String) -> Result<Action, String> {
        let data = &self.world.resource::<Data>().0;
        let s = data.spells.get(&spell).ok_or("unknown spell")?;
        let target = if s.harmful() {
            self.enemy()?
        } else {
            let t = self.target()?;
            if fray_core::model::enemies(self.world, self.actor, t) {
                return Err(format!("{spell} is for an ally"));
            }
            t
        };
        Ok(Action::Cast { spell, target })
    }

    /// 001 §3: hold to a segment (`with: "8"`), with the first weapon
    /// carried or the one named after the segment (`with: "8 shortbow"`).
    fn hold(&self) -> Result<Action, String> {
        let last = self.world.resource::<Flow>().segments;
        let whole = last.to_string();
        let with = self.order.with.as_deref().unwrap_or(&whole);
        let (segment, named) = match with.split_once(' ') {
            Some((n, w)) => (n, Some(w.trim())),
            None => (with, None),
        };
        let until: u32 = segment
            .parse()
            .map_err(|_| "hold names a segment, and a weapon if not the first (with: \"8\" or \"8 shortbow\")".to_string())?;
        if !(1..=last).contains(&until) {
            return Err(format!(
                "an action can be held up to segment {last} (001 §3)"
            ));
        }
        // A spell held: it begins casting in the segment held to.
        if let Some(spell) = named.filter(|n| self.kit.spells.iter().any(|s| s == n)) {
            let Action::Cast { spell, target } = self.cast_spell(spell.to_string())? else {
                return Err("no spell".into());
            };
            return Ok(Action::HoldCast {
                until,
                spell,
                target,
            });
        }
        let target = match self.order.target {
            Some(_) => Some(self.enemy()?),
            None => None,
        };
        let weapon = match named {
            Some(w) if self.kit.weapons.iter().any(|k| k == w) => w.to_string(),
            Some(w) => return Err(format!("{} carries no {w}", self.order.actor)),
            None => self.kit.weapons.first().cloned().ok_or("no weapon")?,
        };
        Ok(Action::Hold {
            until,
            target,
            weapon,
        })
    }
}

/// Turn a declaration into an action, or say why the rules refuse it.
pub fn validate(world: &World, actor: Entity, order: &Order) -> Result<Action, String> {
    let me = world.get::<Combatant>(actor).ok_or("no such combatant")?;
    if order.actor != me.name {
        return Err(format!(
            "this decision is {}'s, not {}'s",
            me.name, order.actor
        ));
    }
    let kit = world.get::<Kit>(actor).ok_or("no kit")?;
    let cx = Context {
        world,
        actor,
        order,
        kit,
    };
    let action = match order.action.as_str() {
        "attack" => Action::Attack {
            target: cx.enemy()?,
            weapon: cx.weapon(|_| true, "")?,
        },
        "charge" => cx.charge()?,
        "move" => {
            let to = order.cell.ok_or("move needs a cell")?;
            let grid = world.resource::<Grid>();
            if !grid.in_bounds(to) || grid.is_obstacle(to) {
                return Err(format!("{to} cannot be entered"));
            }
            Action::Move { to }
        }
        "cast" => cx.cast()?,
        "flee" => Action::Flee,
        "set_spear" => Action::SetSpear {
            weapon: cx.weapon(|w| w.set_vs_charge, "settable")?,
        },
        "hold" => cx.hold()?,
        "wait" => Action::Wait,
        "decline" | "strike" | "let_pass" => {
            return Err(format!("{} answers a question not asked now", order.action));
        }
        other => {
            return Err(format!(
                "unknown action {other:?} (actions: {})",
                super::ACTIONS.join(", ")
            ));
        }
    };
    let surprise = world.resource::<Flow>().period == Period::Surprise;
    if surprise && !action.fits_a_segment() {
        return Err("only an action that fits in one segment can be taken in a surprise segment (001 §1 Surprise segments)".into());
    }
    Ok(action)
}

/// The declarations offered to a person, legal or refused with the reason.
pub fn choices(world: &World, actor: Entity) -> Vec<Choice> {
    let Some(me) = world.get::<Combatant>(actor).map(|c| c.name.clone()) else {
        return Vec::new();
    };
    let data = &world.resource::<Data>().0;
    let kit = world.get::<Kit>(actor).cloned().unwrap_or_default();
    let last = world.resource::<Flow>().segments;
    let mut orders = Vec::new();
    for e in roster(world) {
        if !able(world, e) {
            continue;
        }
        let them = name(world, e);
        if fray_core::model::enemies(world, actor, e) {
            for w in &kit.weapons {
                orders.push(Order::new(&me, "attack").target(&them).with(w));
                if data.weapons.get(w).is_some_and(|d| !d.missile()) {
                    orders.push(Order::new(&me, "charge").target(&them).with(w));
                }
            }
            if let Some(&c) = world.get::<Cell>(e) {
                orders.push(Order::new(&me, "move").cell(c));
            }
            // Held with each weapon carried: a missile in hand keeps its
            // bonus to initiative (001 §3).
            for (i, w) in kit.weapons.iter().enumerate() {
                let with = if i == 0 {
                    last.to_string()
                } else {
                    format!("{last} {w}")
                };
                orders.push(Order::new(&me, "hold").target(&them).with(with));
            }
        }
        for s in &kit.spells {
            let harmful = data.spells.get(s).is_some_and(|s| s.harmful());
            if harmful == fray_core::model::enemies(world, actor, e) {
                orders.push(Order::new(&me, "cast").target(&them).with(s));
                // Held to the round's last segment, or to one of those
                // beyond the initiative die's six (ruling held_action).
                for until in (7..last).chain([last]) {
                    orders.push(
                        Order::new(&me, "hold")
                            .target(&them)
                            .with(format!("{until} {s}")),
                    );
                }
            }
        }
    }
    // 001 §3: the later segments a round has beyond the initiative die's
    // six, to hold to, at whoever is nearest then (ruling held_action).
    for until in 7..last {
        for (i, w) in kit.weapons.iter().enumerate() {
            let with = if i == 0 {
                until.to_string()
            } else {
                format!("{until} {w}")
            };
            orders.push(Order::new(&me, "hold").with(with));
        }
    }
    orders.push(Order::new(&me, "set_spear"));
    orders.push(Order::new(&me, "flee"));
    orders.push(Order::new(&me, "wait"));
    // Holds refused for one reason are one row: the reason is the same
    // whatever is held for whom (a surprise segment has room for none).
    let mut holds_refused: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for o in orders {
        match validate(world, actor, &o) {
            Ok(a) => {
                let mut label = capitalise(&describe(world, &a));
                match backs_turned(world, actor, &a) {
                    Backs::Turned(names) => {
                        label.push_str(&format!(" — WARNING: {}", turned(&names)))
                    }
                    Backs::FightsInstead(n) => label.push_str(&format!(
                        " — as things stand it would fight {n} instead, rather than turn its back (ruling general_actions)"
                    )),
                    Backs::None => {}
                }
                out.push(Choice::legal(o, label));
            }
            Err(why) if o.action == "hold" => {
                if !holds_refused.contains(&why) {
                    holds_refused.push(why.clone());
                    out.push(Choice::refused(o, "Hold", why));
                }
            }
            Err(why) => {
                let label = refused_label(&o);
                out.push(Choice::refused(o, label, why));
            }
        }
    }
    out
}

/// A refused order in words: its action, whom, with what and where, so
/// that two rows are told apart.
fn refused_label(o: &Order) -> String {
    let mut words = vec![o.action.replace('_', " ")];
    words.extend(o.target.as_ref().map(|t| t.to_string()));
    words.extend(o.with.as_ref().map(|w| format!("({w})")));
    words.extend(o.cell.map(|c| format!("to {c}")));
    capitalise(&words.join(" "))
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// A new round (001 §3): reset what lasts a round, and line up the
/// declarers; a caster still casting goes on (ruling `continuing_cast`).
pub fn begin_round(world: &mut World) {
    let everyone = roster(world);
    let round = {
        let mut flow = world.resource_mut::<Flow>();
        flow.round += 1;
        flow.period = super::Period::Round;
        flow.segment = 0;
        flow.last = flow.segments;
        flow.opened = false;
        flow.initiative = None;
        flow.slots.clear();
        flow.done.clear();
        flow.hidden.clear();
        flow.fell.clear();
        flow.round
    };
    {
        let mut log = world.resource_mut::<BattleLog>();
        log.round = round;
        log.time = "declaration".into();
    }
    record(world, || {
        Event::new(
            EventKind::Round,
            "001 §Combat",
            format!("Round {round} begins."),
        )
    });
    let mut declarers = Vec::new();
    for e in everyone {
        world.entity_mut(e).remove::<(Declared, SpearUsed)>();
        if !able(world, e) {
            continue;
        }
        if let Some(c) = world.get::<Casting>(e).cloned() {
            let flow = world.resource::<Flow>();
            let (when, within) = (
                flow.segment_words(c.completes),
                c.completes <= flow.clock(flow.segments),
            );
            let who = name(world, e);
            let then = if within {
                ", and declares what it does once it is off"
            } else {
                ""
            };
            record(world, || {
                Event::new(
                    EventKind::Declare,
                    "ruling continuing_cast",
                    format!(
                        "{who} goes on casting {}: it goes off in {when}{then}.",
                        c.spell
                    ),
                )
                .actor(&who)
            });
            if !within {
                world.entity_mut(e).insert(Declared(Action::Casting));
                continue;
            }
        }
        declarers.push(e);
    }
    let mut flow = world.resource_mut::<Flow>();
    flow.to_declare = declarers;
    flow.stage = Stage::Declaring;
}

/// Publish the secret declaration of `actor`.
fn publish(world: &mut World, actor: Entity) {
    let flow = world.resource::<Flow>();
    let who = flow.name(actor).to_string();
    let rule = match flow.period {
        Period::Surprise => "001 §1 Surprise segments",
        Period::Round => "001 §2",
    };
    let prompt = decision::prompt(world, actor, |w| {
        let flow = w.resource::<Flow>();
        match flow.period {
            Period::Surprise => format!(
                "{who}: declare an action for surprise segment {} (it must fit in one segment)",
                flow.last
            ),
            Period::Round => format!(
                "{who}: declare a spell or a general action for round {}",
                flow.round
            ),
        }
    });
    decision::ask(
        world,
        Question {
            actor,
            prompt,
            rule: rule.into(),
            secret: true,
            move_order: Some(Order::new(&who, "move")),
            choices,
        },
    );
}

/// The rule declarations are made under: 001 §2 in a round, ruling
/// `surprise_declarations` before a surprise segment.
fn declaring_rule(world: &World) -> &'static str {
    match world.resource::<Flow>().period {
        Period::Surprise => "ruling surprise_declarations",
        Period::Round => "001 §2",
    }
}

/// 001 §2: take the secret declarations; once all are in, reveal them
/// together, then go on to initiative (or play the surprise segment).
pub fn take_declarations(world: &mut World) {
    let rule = declaring_rule(world);
    let taken = decision::take_answers(world, rule, |w, d, o| validate(w, d.actor, o));
    for (d, action) in taken {
        world.resource_mut::<Flow>().hidden.push((d.actor, action));
        let who = d.actor_name.clone();
        record(world, || {
            Event::new(
                EventKind::Declare,
                rule,
                format!("{who} writes down an action."),
            )
            .actor(&who)
        });
    }
    if !world.resource::<Decisions>().open().is_empty() {
        return;
    }
    let pending = std::mem::take(&mut world.resource_mut::<Flow>().to_declare);
    if !pending.is_empty() {
        for e in pending {
            publish(world, e);
        }
        return;
    }
    reveal(world);
}

/// 001 §2: every declaration revealed at once; then initiative, or the
/// surprise segment's actions (ruling `surprise_declarations`).
fn reveal(world: &mut World) {
    let rule = declaring_rule(world);
    let hidden = std::mem::take(&mut world.resource_mut::<Flow>().hidden);
    if hidden.len() > 1 {
        record(world, || {
            Event::new(
                EventKind::Reveal,
                rule,
                "All declarations are revealed together.",
            )
        });
    }
    let mut order: Vec<(Entity, Action)> = hidden;
    order.sort_by_key(|(e, _)| fray_core::model::listing(world, *e));
    for (e, action) in order {
        let who = name(world, e);
        let words = if_kept(world, |w| describe(w, &action));
        record(world, || {
            Event::new(
                EventKind::Declare,
                rule,
                format!("{who} declares: {words}."),
            )
            .actor(&who)
        });
        world.entity_mut(e).insert(Declared(action));
    }
    if world.resource::<Flow>().period == Period::Round {
        world.resource_mut::<Flow>().stage = Stage::Initiative;
        return;
    }
    surprise_slots(world);
}

/// 001 §1 Surprise segments: those not surprised act in the segment, one
/// routine each (ruling `second_routine`), simultaneously with any enemy
/// acting in it (ruling `same_segment`).
fn surprise_slots(world: &mut World) {
    let k = world.resource::<Flow>().last;
    let mut slots = Vec::new();
    for e in roster(world) {
        let Some(Declared(action)) = world.get::<Declared>(e).cloned() else {
            continue;
        };
        if matches!(action, Action::Wait | Action::Casting) || !able(world, e) {
            continue;
        }
        slots.push(Slot {
            segment: k,
            actor: e,
            action,
            routine: Routine::First,
            why: "not surprised".into(),
        });
    }
    let mut flow = world.resource_mut::<Flow>();
    flow.slots = slots;
    flow.done.clear();
    flow.opened = false;
    flow.stage = Stage::Resolving;
}

/// Whose backs a declaration would turn on as things stand.
enum Backs {
    None,
    /// A move, a flight or a spell: each named foe gets a free routine
    /// (ruling `fleeing_attack`).
    Turned(String),
    /// An attack or a charge: it fights this foe instead (ruling
    /// `general_actions`).
    FightsInstead(String),
}

fn backs_turned(world: &World, actor: Entity, a: &Action) -> Backs {
    let backs = super::resolve::backs_turned(world, actor, a, true);
    let names: Vec<String> = backs.iter().map(|&f| name(world, f)).collect();
    match (a, names.first()) {
        (_, None) => Backs::None,
        (Action::Move { .. } | Action::Flee | Action::Cast { .. } | Action::HoldCast { .. }, _) => {
            Backs::Turned(names.join(", "))
        }
        (_, Some(n)) => Backs::FightsInstead(n.clone()),
    }
}

/// Ruling `fleeing_attack`: the warning on a declaration typed by hand, as
/// on the choices offered.
pub fn warns(world: &World, actor: Entity, order: &Order) -> Vec<String> {
    match validate(world, actor, order).map(|a| backs_turned(world, actor, &a)) {
        Ok(Backs::Turned(names)) => vec![turned(&names)],
        _ => Vec::new(),
    }
}

/// Ruling `fleeing_attack`, in the words of a warning.
pub(super) fn turned(names: &str) -> String {
    format!("turns its back on {names}, a free routine each at +2 (ruling fleeing_attack)")
}
