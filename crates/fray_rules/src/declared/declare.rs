//! 004 §Step 3: declarations, their initiative modifiers, and the order of
//! the round (004 §Step 2).

use super::*;
use fray_core::decision::{self, Question};
use fray_core::log::EventKind;

/// The initiative modifier of an action (004 §Step 3, and the rulings for
/// the actions the list leaves out).
pub fn action_modifier(data: &DeclaredData, action: &Action) -> i32 {
    let n = &data.numbers;
    let r = &data.ruling_numbers;
    match action {
        Action::Attack {
            weapon, defensive, ..
        } => {
            let speed = data.weapons.get(weapon).map_or(0, |w| w.speed);
            speed
                + if *defensive {
                    n.defensive_attack_extra
                } else {
                    0
                }
        }
        Action::Move { .. } | Action::Flee => n.defensive_attack_extra,
        Action::FullDefense { .. } => n.full_defense_modifier,
        Action::Cast { spell, .. } => data
            .spells
            .get(spell)
            .map_or(0, |s| s.speed.unwrap_or(s.tn - n.spell_speed_base)),
        Action::Consume { item } => data
            .items
            .get(item)
            .and_then(|i| i.modifier)
            .unwrap_or(n.consumable_modifier),
        Action::Throw { .. } => n.throw_modifier,
        Action::Stabilise { .. } => r.stabilise_modifier,
        Action::Intimidate { .. } => r.intimidate_modifier,
        Action::Wait => r.wait_modifier,
    }
}

/// The rule an action's modifier comes from.
fn action_rule(action: &Action) -> &'static str {
    match action {
        Action::Stabilise { .. } => "ruling stabilise_action",
        Action::Intimidate { .. } => "ruling intimidate_action",
        Action::Wait => "ruling wait_action",
        Action::Flee => "ruling morale_failure",
        _ => "004 §Step 3",
    }
}

/// A declared action in words.
pub fn describe(world: &World, action: &Action) -> String {
    describe_by(world, None, action)
}

/// [`describe`], for `actor`'s own action: once it has moved to the cell
/// its full defense moved toward, it is not named as the one there.
pub fn describe_by(world: &World, actor: Option<Entity>, action: &Action) -> String {
    let name = |e: Entity| {
        world
            .get::<Combatant>(e)
            .map_or_else(|| "?".to_string(), |c| c.name.clone())
    };
    match action {
        Action::Attack {
            target,
            weapon,
            defensive: false,
        } => format!("attack {} with the {weapon}", name(*target)),
        Action::Attack { target, weapon, .. } => {
            format!("attack {} defensively with the {weapon}", name(*target))
        }
        Action::Move { toward: Some(c) } => {
            format!("move defensively toward {c} without attacking")
        }
        Action::Move { toward: None } => "hold defensively without attacking".into(),
        Action::FullDefense { toward: Some(c) } => {
            let there = world
                .resource::<Flow>()
                .roster
                .iter()
                .find(|(e, _)| Some(*e) != actor && world.get::<Cell>(*e) == Some(c));
            match there {
                Some((e, _)) => format!("take full defense, moving toward {} at {c}", name(*e)),
                None => format!("take full defense, moving toward {c}"),
            }
        }
        Action::FullDefense { toward: None } => "take full defense".into(),
        Action::Cast { spell, target } => format!("cast {spell} on {}", name(*target)),
        Action::Consume { item } => format!("use a {}", item.replace('_', " ")),
        Action::Throw { weapon, target } => format!("throw the {weapon} at {}", name(*target)),
        Action::Stabilise { target } => format!("stabilise {}", name(*target)),
        Action::Intimidate { target } => format!("intimidate {}", name(*target)),
        Action::Wait => "wait".into(),
        Action::Flee => "flee".into(),
    }
}

/// 004 §Step 3: what an order is checked against: who gives it, their side,
/// their kit and their injuries, and the battle's roster.
struct OrderContext<'w> {
    world: &'w World,
    flow: &'w Flow,
    data: &'w DeclaredData,
    order: &'w Order,
    name: &'w str,
    side: Side,
    kit: &'w Kit,
    hurts: &'w Hurts,
}

impl OrderContext<'_> {
    /// 004 §Step 3: the combatant the order names, still alive and on the
    /// battlefield.
    fn target(&self) -> Result<Entity, String> {
        let order = self.order;
        let t = order
            .target
            .as_deref()
            .ok_or_else(|| format!("{} needs a target", order.action))?;
        let e = self
            .flow
            .entity(t)
            .ok_or_else(|| format!("there is no combatant named {t:?}"))?;
        if self.world.get::<Health>(e) == Some(&Health::Dead) {
            return Err(format!("{t} is dead"));
        }
        if self.world.get::<Fled>(e).is_some() {
            return Err(format!("{t} has left the battlefield"));
        }
        Ok(e)
    }

    /// 004 §Step 3: the order's target, who must be an opponent.
    fn enemy(&self) -> Result<Entity, String> {
        let e = self.target()?;
        if self.world.get::<Side>(e) == Some(&self.side) {
            return Err(format!("{} is on your side", self.flow.name(e)));
        }
        Ok(e)
    }

    /// The order's target, who must be the creature itself or an ally.
    fn ally(&self) -> Result<Entity, String> {
        let e = self.target()?;
        if self.world.get::<Side>(e) != Some(&self.side) {
            return Err(format!(
                "{} is not on your side: a healing spell is cast at oneself or an ally",
                self.flow.name(e)
            ));
        }
        Ok(e)
    }

    /// 004 §Step 3: the weapon an attack or a throw uses, the one named or
    /// the first carried that fits; a broken weapon arm refuses it (004
    /// §Combat Injuries).
    fn weapon(&self, want_thrown: bool) -> Result<String, String> {
        let (data, kit) = (self.data, self.kit);
        let w = match &self.order.with {
            Some(w) => w.to_string(),
            None => kit
                .weapons
                .iter()
                .find(|w| {
                    data.weapons.get(*w).is_some_and(|d| {
                        if want_thrown {
                            d.thrown
                        } else {
                            d.reach > 0 || d.range > 0
                        }
                    })
                })
                .cloned()
                .ok_or("no weapon for that")?,
        };
        if !kit.weapons.contains(&w) {
            return Err(format!("{} does not carry a {w}", self.name));
        }
        let d = data
            .weapons
            .get(&w)
            .ok_or_else(|| format!("unknown weapon {w:?}"))?;
        if want_thrown && !d.thrown {
            return Err(format!(
                "the {w} is not a thrown weapon (ruling thrown_items)"
            ));
        }
        if self.hurts.main_arm_useless {
            return Err(
                "its weapon arm is broken: it can't attack with that arm (004 §Combat Injuries)"
                    .into(),
            );
        }
        Ok(w)
    }

    /// 004 §Step 3: attack with a weapon, or defensively attack, an opponent.
    fn attack(&self, defensive: bool) -> Result<Action, String> {
        Ok(Action::Attack {
            target: self.enemy()?,
            weapon: self.weapon(false)?,
            defensive,
        })
    }

    /// 004 §Step 3: cast a spell the caster knows, a harmful one on an
    /// opponent; a creature that cannot speak cannot cast (ruling
    /// `injury_effects`).
    fn cast(&self) -> Result<Action, String> {
        let spell = self.order.with_one_of("spell", &self.kit.spells)?;
        if self.hurts.mute {
            return Err("it cannot speak, so it cannot cast (ruling injury_effects)".into());
        }
        let s = self.data.spells.get(&spell).ok_or("unknown spell")?;
        let t = match s.effect {
            data::SpellEffect::Damage(..) => self.enemy()?,
            data::SpellEffect::RestoreStress(_) => self.ally()?,
        };
        Ok(Action::Cast { spell, target: t })
    }

    /// 004 §Step 3: use a consumable item the creature still has.
    fn consumable(&self) -> Result<Action, String> {
        let item = self.order.with_one_of("item", &self.kit.items)?;
        Ok(Action::Consume { item })
    }

    /// 004 §Step 3: throw an item, a thrown weapon, at an opponent.
    fn throw(&self) -> Result<Action, String> {
        Ok(Action::Throw {
            weapon: self.weapon(true)?,
            target: self.enemy()?,
        })
    }

    /// 004 §Wound Points · ruling `stabilise_action`: tend an ally who is
    /// Dying or Incapacitated and not yet stabilised.
    fn stabilise(&self) -> Result<Action, String> {
        let (world, flow) = (self.world, self.flow);
        let t = self.target()?;
        if world.get::<Side>(t) != Some(&self.side) {
            return Err(format!("{} is not an ally", flow.name(t)));
        }
        if flow.name(t) == self.name {
            return Err("one stabilises an ally, not itself (ruling stabilise_action)".into());
        }
        match world.get::<Health>(t) {
            Some(Health::Incapacitated | Health::Dying) => {}
            _ => {
                return Err(format!(
                    "{} is neither Dying nor Incapacitated",
                    flow.name(t)
                ));
            }
        }
        if world.get::<Stabilised>(t).is_some() {
            return Err(format!("{} is already stabilised", flow.name(t)));
        }
        Ok(Action::Stabilise { target: t })
    }
}

/// Turn an order into an action, or say why the rules refuse it.
pub fn validate(world: &World, actor: Entity, order: &Order) -> Result<Action, String> {
    let flow = world.resource::<Flow>();
    let data = &world.resource::<Data>().0;
    let grid = world.resource::<Grid>();
    let me = world.get::<Combatant>(actor).ok_or("no such combatant")?;
    if order.actor != me.name {
        return Err(format!(
            "this decision is {}'s, not {}'s",
            me.name, order.actor
        ));
    }
    let (&side, kit, hurts, rs) =
        fray_core::model::components::<(&Side, &Kit, &Hurts, &RoundState)>(world, actor)
            .ok_or("not in the battle")?;
    let name = &me.name;
    let cx = OrderContext {
        world,
        flow,
        data,
        order,
        name,
        side,
        kit,
        hurts,
    };
    let cell = match order.cell {
        Some(c) if !grid.in_bounds(c) => return Err(format!("{c} is off the battlefield")),
        Some(c) if grid.is_obstacle(c) => return Err(format!("{c} is an obstacle")),
        c => c,
    };
    let moving = order.action == "defensive_attack" && order.target.is_none();
    let no_action = moving || matches!(order.action.as_str(), "wait" | "flee");
    if hurts.every_other_round && rs.acted_last_round && !no_action {
        return Err("Broken rib: only one action every two rounds, and it acted last round; it may still move (004 §Combat Injuries; ruling injury_effects)".into());
    }
    let action = match order.action.as_str() {
        "attack" => cx.attack(false),
        "defensive_attack" => {
            if order.target.is_none() {
                Ok(Action::Move { toward: cell })
            } else {
                cx.attack(true)
            }
        }
        "full_defense" => Ok(Action::FullDefense { toward: cell }),
        "cast" => cx.cast(),
        "consumable" => cx.consumable(),
        "throw" => cx.throw(),
        "stabilise" => cx.stabilise(),
        "intimidate" => {
            let target = cx.enemy()?;
            if world.get::<SawThrough>(target).is_some() {
                return Err(format!(
                    "{} held against an Intimidation and cannot be intimidated again this battle (ruling intimidate_action)",
                    cx.flow.name(target)
                ));
            }
            if !super::end_round::may_break(world, target) {
                return Err(format!(
                    "{} checks morale no more: it has broken, fled or cannot act (ruling intimidate_action)",
                    cx.flow.name(target)
                ));
            }
            if world.get::<Monster>(target).is_none() {
                return Err(format!(
                    "{} is not a monster: only monsters check morale (004 §Step 4; ruling intimidate_action)",
                    cx.flow.name(target)
                ));
            }
            Ok(Action::Intimidate { target })
        }
        "wait" => Ok(Action::Wait),
        other => Err(format!(
            "unknown action {other:?} (actions: {})",
            DECLARATIONS.join(", ")
        )),
    }?;
    from_where_it_lies(world, actor, &action)?;
    Ok(action)
}

/// 004 §Wound Points: one Incapacitated or Dying and not stabilised acts
/// from where it lies ("cannot both move and take an action"; an
/// Incapacitated one's strain leaves it Dying first, ruling
/// `strain_first`): an action aimed beyond its reach or range from there,
/// or left with nothing to act on, is refused, rather than paid for with a
/// Wound Point for nothing. One stabilised may crawl to act, and pays only
/// for an action beyond its first in the round: such an action must reach
/// within the crawl left to it.
pub(crate) fn from_where_it_lies(
    world: &World,
    actor: Entity,
    action: &Action,
) -> Result<(), String> {
    let down = matches!(
        world.get::<Health>(actor),
        Some(Health::Incapacitated | Health::Dying)
    );
    if !down {
        return Ok(());
    }
    // A stabilised creature may move to act, at half its Speed, and its
    // first action in a round is free: whether anything is left to act on
    // matters then. An action beyond the first is paid for, so it must reach
    // within the crawl left to it this round.
    let crawl = if world.get::<super::Stabilised>(actor).is_some() {
        let paid = world
            .get::<super::RoundState>(actor)
            .is_some_and(|r| r.actions_taken >= 1);
        if !paid {
            return object_now(world, actor, action).map(|_| ());
        }
        let speed = super::resolve::move_budget(world, actor, action);
        Some(super::resolve::speed_left(world, actor, speed))
    } else {
        None
    };
    let data = &world.resource::<Data>().0;
    let reach = match action {
        Action::Attack { weapon, .. } => {
            let w = data.weapons.get(weapon).ok_or("no such weapon")?;
            if w.reach > 0 { w.reach } else { w.range }
        }
        Action::Throw { weapon, .. } => data.weapons.get(weapon).map_or(0, |w| w.range),
        Action::Cast { spell, .. } => data.spells.get(spell).map_or(0, |s| s.range),
        Action::Stabilise { .. } => 1,
        Action::Intimidate { .. } => data.ruling_numbers.intimidate_range,
        _ => return Ok(()),
    };
    let Some((declared, target)) = object_now(world, actor, action)? else {
        return Ok(());
    };
    let at = |e: Entity| world.get::<Cell>(e).copied();
    let (Some(from), Some(to)) = (at(actor), at(target)) else {
        return Ok(());
    };
    let dist = world.resource::<Grid>().distance(from, to);
    if dist > reach + crawl.unwrap_or(0) {
        let name = |x: Entity| world.resource::<Flow>().name(x).to_string();
        let turned = if target == declared {
            String::new()
        } else {
            format!("{} is gone (ruling retarget); ", name(declared))
        };
        let why = match crawl {
            Some(n) => format!("stabilised, it may crawl {n} more cells this round"),
            None => "it lies where it fell and cannot both move and act".to_string(),
        };
        return Err(format!(
            "{turned}{why}: {} is {dist} cells away, reach {reach} (004 §Wound Points)",
            name(target)
        ));
    }
    Ok(())
}

/// What `action` of `actor`'s was declared against and would act on now:
/// its declared object, or, that one dead or gone, whom it turns on
/// (ruling `retarget`); None for an action aimed at no one; or why nothing
/// is left to act on, so that one down pays nothing for it (004 §Wound
/// Points).
fn object_now(
    world: &World,
    actor: Entity,
    action: &Action,
) -> Result<Option<(Entity, Entity)>, String> {
    let data = &world.resource::<Data>().0;
    let Some((declared, turn)) = super::resolve::TurnOn::of(data, action) else {
        return Ok(None);
    };
    let name = |x: Entity| world.resource::<Flow>().name(x).to_string();
    let health = |x: Entity| world.get::<Health>(x).copied().unwrap_or(Health::Dead);
    let Some(target) = super::resolve::aimed_at(world, actor, declared, turn) else {
        let old = name(declared);
        return Err(match action {
            Action::Stabilise { .. } if health(declared) == Health::Dead => {
                format!("{old} is dead (004 §Wound Points)")
            }
            Action::Intimidate { .. } => {
                format!("{old} is gone, and no monster is left to intimidate (ruling retarget)")
            }
            _ => format!("{old} is gone, and it has no one else to aim at (ruling retarget)"),
        });
    };
    if let Action::Intimidate { .. } = action
        && let Err(why) = super::resolve::intimidated(world, target)
    {
        return Err(format!(
            "{} {why}, and nothing is left to intimidate (ruling intimidate_action)",
            name(target)
        ));
    }
    if matches!(action, Action::Stabilise { .. })
        && !super::resolve::needs_stabilising(world, target)
    {
        return Err(format!(
            "{} no longer needs stabilising (004 §Wound Points)",
            name(target)
        ));
    }
    Ok(Some((declared, target)))
}

/// The choices a declaration offers, legal or refused with the reason.
pub fn choices(world: &World, actor: Entity) -> Vec<Choice> {
    let Some(me) = world.get::<Combatant>(actor) else {
        return Vec::new();
    };
    let side = world.get::<Side>(actor).copied();
    let kit = world.get::<Kit>(actor).cloned().unwrap_or_default();
    let mut orders = against_opponents(world, &me.name, side, &kit);
    orders.extend(for_allies(world, actor, &me.name, side, &kit));
    for i in &kit.items {
        orders.push(Order::new(&me.name, "consumable").with(i));
    }
    orders.push(Order::new(&me.name, "defensive_attack"));
    orders.push(Order::new(&me.name, "full_defense"));
    // 004 §Wound Points: Dying, it "cannot both move and take an action";
    // Incapacitated, a full defense's Wound Point leaves it Dying first
    // (ruling strain_first): no full defense on the move for either.
    let down = matches!(
        world.get::<Health>(actor),
        Some(Health::Dying | Health::Incapacitated)
    ) && world.get::<super::Stabilised>(actor).is_none();
    if down {
        orders.push(Order::new(&me.name, "wait"));
        return orders
            .into_iter()
            .map(|order| offer(world, actor, order))
            .collect();
    }
    if let Some(back) = back_from_the_foes(world, actor) {
        orders.push(Order::new(&me.name, "full_defense").cell(back));
    }
    // Full defense moves anywhere within half Speed (004 §Step 3): back
    // from the foes, or toward each ally not yet beside it.
    let here = world.get::<Cell>(actor).copied();
    let grid = world.resource::<Grid>();
    for (e, _) in world.resource::<Flow>().roster.iter() {
        let at = world.get::<Cell>(*e).copied();
        let standing = world.get::<fray_core::model::Fighting>(*e).is_some()
            && world.get::<Fled>(*e).is_none();
        if let (Some(a), Some(h)) = (at, here)
            && *e != actor
            && standing
            && world.get::<Side>(*e).copied() == side
            && grid.distance(a, h) > 1
        {
            orders.push(Order::new(&me.name, "full_defense").cell(a));
        }
    }
    orders.push(Order::new(&me.name, "wait"));
    orders
        .into_iter()
        .map(|order| offer(world, actor, order))
        .collect()
}

/// 004 §Step 3, Full-Defense "can only move up to half their speed": the
/// cell within half of `actor`'s speed farthest from its nearest foe (the
/// nearest of such, then the first in the grid's order), if that is
/// farther than where it stands.
fn back_from_the_foes(world: &World, actor: Entity) -> Option<Cell> {
    let grid = world.resource::<Grid>();
    let here = *world.get::<Cell>(actor)?;
    let side = world.get::<Side>(actor).copied();
    let foes: Vec<Cell> = world
        .resource::<Flow>()
        .roster
        .iter()
        .filter(|(e, _)| {
            world.get::<Side>(*e).copied() != side
                && world.get::<fray_core::model::Fighting>(*e).is_some()
                && world.get::<Fled>(*e).is_none()
        })
        .filter_map(|(e, _)| world.get::<Cell>(*e).copied())
        .collect();
    // Half its Speed, or less for a Broken Shin or one prone (ruling
    // half_speed).
    let half = super::resolve::move_budget(world, actor, &Action::FullDefense { toward: None });
    let taken = fray_core::model::taken_cells(world, actor);
    fray_core::movement::farthest_from(grid, (here, half), &foes, |c| taken.contains(&c), |_| true)
}

/// 004 §Step 3: an order offered as a choice, legal with its initiative
/// modifier, or refused with the reason.
fn offer(world: &World, actor: Entity, order: Order) -> Choice {
    let data = &world.resource::<Data>().0;
    match validate(world, actor, &order) {
        Ok(action) => {
            let m = action_modifier(data, &action);
            let text = format!("{} (initiative {m:+})", describe(world, &action));
            Choice::legal(order, capitalise(&text))
        }
        Err(why) => {
            // The spell, weapon or item too: "cast mend on Brienne",
            // "attack Snik with the longsword".
            let (action, with) = (order.action.replace('_', " "), order.with.as_deref());
            let target = order.target.as_deref();
            let text = match (with, target) {
                (Some(w), Some(t)) if action == "cast" => format!("cast {w} on {t}"),
                (Some(w), Some(t)) => format!("{action} {t} with the {w}"),
                (Some(w), None) => format!("{action} {w}"),
                (None, t) => format!("{action} {}", t.unwrap_or_default()),
            };
            Choice::refused(order, capitalise(text.trim()), why)
        }
    }
}

/// 004 §Step 3: the actions aimed at each opponent still on the field:
/// attack, defensively attack or throw with each weapon that can, cast a
/// harmful spell, and intimidate a monster (ruling `intimidate_action`).
fn against_opponents(world: &World, me: &str, side: Option<Side>, kit: &Kit) -> Vec<Order> {
    let flow = world.resource::<Flow>();
    let data = &world.resource::<Data>().0;
    let mut out = Vec::new();
    for (e, name) in &flow.roster {
        if world.get::<Side>(*e).copied() == side
            || world.get::<Health>(*e) == Some(&Health::Dead)
            || world.get::<Fled>(*e).is_some()
        {
            continue;
        }
        for w in &kit.weapons {
            let Some(wd) = data.weapons.get(w) else {
                continue;
            };
            if wd.reach > 0 || wd.range > 0 && !wd.thrown {
                out.push(Order::new(me, "attack").target(name).with(w));
                out.push(Order::new(me, "defensive_attack").target(name).with(w));
            }
            if wd.thrown {
                out.push(Order::new(me, "throw").target(name).with(w));
            }
        }
        for s in &kit.spells {
            if matches!(
                data.spells.get(s).map(|s| &s.effect),
                Some(data::SpellEffect::Damage(..))
            ) {
                out.push(Order::new(me, "cast").target(name).with(s));
            }
        }
        if world.get::<Monster>(*e).is_some() {
            out.push(Order::new(me, "intimidate").target(name));
        }
    }
    out
}

/// 004 §Step 3 · ruling `stabilise_action`: the actions aimed at each ally:
/// stabilise one who is Dying or Incapacitated, cast a restoring spell.
fn for_allies(world: &World, actor: Entity, me: &str, side: Option<Side>, kit: &Kit) -> Vec<Order> {
    let flow = world.resource::<Flow>();
    let data = &world.resource::<Data>().0;
    let mut out = Vec::new();
    for (e, name) in &flow.roster {
        if world.get::<Side>(*e).copied() != side {
            continue;
        }
        if matches!(
            world.get::<Health>(*e),
            Some(Health::Dying | Health::Incapacitated)
        ) && world.get::<Stabilised>(*e).is_none()
            && *e != actor
        {
            out.push(Order::new(me, "stabilise").target(name));
        }
        for s in &kit.spells {
            if matches!(
                data.spells.get(s).map(|s| &s.effect),
                Some(data::SpellEffect::RestoreStress(_))
            ) {
                out.push(Order::new(me, "cast").target(name).with(s));
            }
        }
    }
    out
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// Publish the declaration decision for `actor`: any cell it is clicked
/// toward is a move without attacking.
pub(super) fn publish_declaration(world: &mut World, actor: Entity, secret: bool) {
    let round = world.resource::<Flow>().round;
    let name = world.resource::<Flow>().name(actor).to_string();
    let prompt = decision::prompt(world, actor, |w| {
        let health = w.get::<Health>(actor).copied().unwrap_or(Health::Fine);
        let stabilised = w.get::<super::Stabilised>(actor).is_some();
        // 004 §Wound Points: the Wound Point that kills it is said so.
        let kills = super::felled::strain_kills(w, actor);
        let mut prompt = format!("{name}: declare an action for round {round}");
        match health {
            Health::Incapacitated | Health::Dying if stabilised => prompt.push_str(
                " (Stabilised: half its Speed; its first action costs nothing, each beyond it 1 Wound Point)",
            ),
            Health::Incapacitated | Health::Dying if kills.is_some() => {
                prompt.push_str(&format!(
                    " ({health:?}: it can crawl or wait; any other action costs 1 Wound Point, which would {})",
                    kills.unwrap_or_default()
                ))
            }
            Health::Incapacitated => prompt.push_str(
                " (Incapacitated: it can crawl; any other action but waiting costs 1 Wound Point and leaves it Dying where it lies)",
            ),
            Health::Dying => prompt.push_str(
                " (Dying: one action, not both move and act; each but waiting or crawling costs 1 Wound Point)",
            ),
            _ => {}
        }
        prompt
    });
    let question = Question {
        actor,
        prompt,
        rule: "004 §Step 3".into(),
        secret,
        move_order: Some(Order::new(&name, "defensive_attack")),
        choices,
    };
    decision::ask(world, question);
}

/// 004 §Step 3: take declarations — one at a time in the scenario's order, or
/// all written down secretly and revealed together — and, when everyone has
/// declared, set each Round Initiative (base + the action's modifier) and
/// order the round.
pub fn take_declarations(world: &mut World) {
    let taken = decision::take_answers(world, "004 §Step 3", |world, d, order| {
        validate(world, d.actor, order)
    });
    for (decision, action) in taken {
        if decision.secret {
            world
                .resource_mut::<Flow>()
                .hidden
                .push((decision.actor, action));
            fray_core::log::record(world, || {
                Event::new(
                    EventKind::Declare,
                    "004 §Step 3",
                    format!("{} writes down an action.", decision.actor_name),
                )
                .actor(&decision.actor_name)
            });
        } else {
            accept_declaration(world, decision.actor, action);
        }
    }
    let stage = world.resource::<Flow>().stage;
    if !world.resource::<Decisions>().open().is_empty() {
        return;
    }
    if let Stage::Arriving(e) = stage {
        if super::declared(world, e).is_none() {
            publish_declaration(world, e, false);
            return;
        }
        place_arrival(world, e);
        world.resource_mut::<Flow>().stage = Stage::Resolving;
        return;
    }
    // Routed creatures flee without declaring; the rest declare in order.
    auto_declare_routed(world);
    let simultaneous = world.resource::<Flow>().declaration == DeclarationOrder::Simultaneous;
    let pending: Vec<Entity> = std::mem::take(&mut world.resource_mut::<Flow>().to_declare);
    if simultaneous {
        if !pending.is_empty() {
            for &e in &pending {
                publish_declaration(world, e, true);
            }
            return;
        }
        let mut hidden = std::mem::take(&mut world.resource_mut::<Flow>().hidden);
        hidden.sort_by_key(|(e, _)| fray_core::model::listing(world, *e));
        if !hidden.is_empty() {
            world.resource_mut::<BattleLog>().push(Event::new(
                EventKind::Reveal,
                "004 §Step 3",
                "All declarations are revealed together.",
            ));
        }
        for (e, action) in hidden {
            accept_declaration(world, e, action);
        }
    } else if let Some((&next, rest)) = pending.split_first() {
        world.resource_mut::<Flow>().to_declare = rest.to_vec();
        publish_declaration(world, next, false);
        return;
    }
    order_the_round(world);
}

fn auto_declare_routed(world: &mut World) {
    let routed: Vec<Entity> = world
        .resource::<Flow>()
        .roster
        .iter()
        .map(|(e, _)| *e)
        .filter(|&e| {
            world.get::<Routed>(e).is_some()
                && world.get::<Fled>(e).is_none()
                && super::declared(world, e).is_none()
                && world.get::<Health>(e).is_some_and(|h| *h != Health::Dead)
                && !world.get::<Hurts>(e).is_some_and(|h| h.paralysed)
        })
        .collect();
    for e in routed {
        accept_declaration(world, e, Action::Flee);
    }
}

/// Record a declaration and its Round Initiative (004 §Step 2).
fn accept_declaration(world: &mut World, actor: Entity, action: Action) {
    let data = world.resource::<Data>().0.clone();
    let base = world.get::<BaseInitiative>(actor).map_or(0, |b| b.0);
    let m = action_modifier(&data, &action);
    let initiative = base + m;
    if world.resource::<BattleLog>().keeps() {
        let name = world.resource::<Flow>().name(actor).to_string();
        let text = format!(
            "{name} declares: {}. Round initiative {base} {} {} = {initiative}.",
            describe(world, &action),
            if m < 0 { "−" } else { "+" },
            m.abs()
        );
        world
            .resource_mut::<BattleLog>()
            .push(Event::new(EventKind::Declare, action_rule(&action), text).actor(&name));
    } else {
        world.resource_mut::<BattleLog>().count_one();
    }
    if matches!(action, Action::FullDefense { .. })
        && let Some(mut rs) = world.get_mut::<RoundState>(actor)
    {
        rs.full_defense = true;
    }
    super::declare(world, actor, Some(Declared { action, initiative }));
}

/// Build the round's queue: every declaration, and late arrivals' −12
/// actions (004 §Step 2); lowest initiative first; ties keep listing order.
fn order_the_round(world: &mut World) {
    let mut slots = Vec::new();
    let mut late_done = Vec::new();
    for e in roster(world) {
        let Some(c) = world.get::<Combatant>(e) else {
            continue;
        };
        let (declared, late) = (super::declared(world, e), world.get::<LateAction>(e));
        if let Some(d) = declared {
            slots.push((
                c.listing,
                Slot {
                    actor: e,
                    initiative: d.initiative,
                    action: d.action.clone(),
                    late: false,
                },
            ));
        }
        if let Some(l) = late {
            slots.push((
                c.listing,
                Slot {
                    actor: e,
                    initiative: l.initiative,
                    action: l.action.clone(),
                    late: true,
                },
            ));
            late_done.push(e);
        }
    }
    for e in late_done {
        let late = world.entity_mut(e).take::<LateAction>();
        // One routed since it declared only flees (ruling morale_failure).
        let routed = world.get::<Routed>(e).is_some();
        if let (Some(l), Some(mut rs)) = (late, world.get_mut::<RoundState>(e)) {
            // 004 §Step 3: a late full defense guards the round it is taken in.
            rs.full_defense |= matches!(l.action, Action::FullDefense { .. }) && !routed;
            rs.late_fell = l.fell;
        }
    }
    slots.sort_by_key(|(listing, s)| (s.initiative, *listing, s.late));
    let queue: Vec<Slot> = slots.into_iter().map(|(_, s)| s).collect();
    if !queue.is_empty() {
        let flow = world.resource::<Flow>();
        let order = world.resource::<BattleLog>().keeps().then(|| {
            let each: Vec<String> = queue
                .iter()
                .map(|s| format!("{} {}", flow.name(s.actor), s.initiative))
                .collect();
            each.join(", ")
        });
        fray_core::log::record(world, || {
            Event::new(
                EventKind::Order,
                "004 §Step 2",
                format!(
                    "Order of the round, lowest first: {}.",
                    order.unwrap_or_default()
                ),
            )
        });
    }
    let mut flow = world.resource_mut::<Flow>();
    flow.queue = queue;
    flow.stage = Stage::Resolving;
}
