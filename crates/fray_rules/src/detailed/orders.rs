//! Orders and what they may do: the options of 000 §1.2, parries (§1.2.5),
//! the noncombat options (§2.1), traces (§3.1) and the strikes of those who
//! stop (§3.2.2). Every order is checked here, for people and the AI alike.

use bevy_ecs::prelude::*;
use fray_core::decision::{Choice, Order};
use fray_core::grid::{Cell, Grid, GridGeometry};
use fray_core::model::Rostered;

use super::data::{Weapon, WeaponKind};
use super::{
    Ask, Blows, Condition, Data, Fallen, Flow, Hands, Preparation, Stats, alert, enemies, up,
};

/// The action names orders use.
pub const ACTIONS: &[&str] = &[
    "pass",
    "draw",
    "grab",
    "prepare",
    "close",
    "open",
    "step_close",
    "step_open",
    "change_range",
    "attack",
    "drop+draw",
    "drop+grab",
    "drop+prepare",
    "drop+close",
    "drop+open",
    "drop+step_close",
    "drop+step_open",
    "drop+change_range",
    "drop+attack",
    "parry",
    "rest",
    "cast",
    "adjust_armour",
    "trace",
    "chase",
    "stay",
];

/// The actions whose `with` names a weapon: the one drawn, grabbed,
/// prepared, struck or parried with. A pass's and a stay's `with` are words
/// of their own, a cast's a spell.
pub const WEAPON_ACTIONS: &[&str] = &[
    "draw",
    "grab",
    "prepare",
    "attack",
    "parry",
    "drop+draw",
    "drop+grab",
    "drop+prepare",
    "drop+attack",
];

/// The manoeuvres of 000 §1.2.3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Manoeuvre {
    Close,
    Open,
    StepClose,
    StepOpen,
    ChangeRange,
}

/// An order the rules have checked.
#[derive(Clone, Debug, PartialEq)]
pub enum Plan {
    Pass {
        /// What it lets fall from its hands (000 §1.2.1 "either or both").
        drop: Vec<String>,
        fall: bool,
        alert: bool,
    },
    Draw {
        weapon: String,
    },
    Grab {
        cell: Cell,
        weapon: String,
    },
    Prepare {
        weapon: String,
    },
    Manoeuvre {
        kind: Manoeuvre,
        target: Entity,
        cell: Option<Cell>,
    },
    Attack {
        target: Entity,
        weapon: String,
    },
    Parry {
        weapon: String,
    },
    Rest,
    Cast {
        spell: String,
        target: Entity,
    },
    AdjustArmour,
    Trace {
        cell: Cell,
        stop_near: Option<Entity>,
        unalert: bool,
    },
    Chase {
        target: Entity,
        unalert: bool,
    },
    Stay {
        unalert: bool,
        /// Stay until this mover comes within reach, to strike it as it
        /// passes (ruling `stop_options`).
        watch: Option<Entity>,
    },
    /// 000 §1.2: "Any option may be preceded by dropping items held in
    /// hands" — these items, then the option.
    Dropping {
        items: Vec<String>,
        then: Box<Plan>,
    },
    /// Let a parry, a noncombat option or a strike go.
    Nothing,
}

impl Plan {
    /// The option itself, after any items dropped before it.
    pub fn option(&self) -> &Plan {
        match self {
            Plan::Dropping { then, .. } => then,
            plan => plan,
        }
    }
}

/// Blows an option needs: active ones, and more of either kind.
#[derive(Clone, Copy, Debug)]
pub struct Need {
    pub active: u32,
    pub any: u32,
}

impl Need {
    /// 000 §1.2.5: an attack takes an active blow, and a second blow, of
    /// either kind, with a heavy weapon.
    pub fn attack(heavy: bool) -> Self {
        Need {
            active: 1,
            any: u32::from(heavy),
        }
    }

    /// The active and reactive blows left once this is spent from
    /// `active` and `reactive` (blows of either kind are taken from the
    /// reactive ones first); `None` when they are too few.
    pub fn taken(self, active: u32, reactive: u32) -> Option<(u32, u32)> {
        let active = active.checked_sub(self.active)?;
        let from_reactive = self.any.min(reactive);
        let active = active.checked_sub(self.any - from_reactive)?;
        Some((active, reactive - from_reactive))
    }

    /// How many times this can be spent from `active` and `reactive` blows.
    pub fn times(self, active: u32, reactive: u32) -> u32 {
        let mut left = (active, reactive);
        let mut times = 0;
        while self.active + self.any > 0
            && let Some(after) = self.taken(left.0, left.1)
        {
            left = after;
            times += 1;
        }
        times
    }
}

/// 000 §1 Blows: the EN `count` blows cost, `first` when none has been
/// spent this round yet: the round's first blow is free, each later one 1 EN.
pub fn blow_cost(first: bool, count: u32) -> i32 {
    count as i32 - i32::from(first && count > 0)
}

/// 000 §1 Blows: whether `me` can spend `need` now (borrowing from the next
/// round in the movement phase), and the EN it costs: the round's first blow
/// is free, each later one 1 EN, within the phase's cap; nobody spends its
/// last point of EN (ruling `unconscious`).
pub fn can_spend(world: &World, me: Entity, need: Need) -> Result<i32, String> {
    let (Some(b), Some(stats), Some(en)) = (
        world.get::<Blows>(me),
        world.get::<Stats>(me),
        world.get::<super::En>(me),
    ) else {
        return Err("no blows".into());
    };
    let borrowing = world.resource::<Flow>().stage == super::Stage::Movement;
    let (active, reactive, first) = if borrowing {
        // Ruling borrowed_blows: the next round's blows, of the kind the
        // option names.
        let active = stats.active.saturating_sub(b.borrowed_active);
        let reactive = stats.reactive.saturating_sub(b.borrowed_reactive);
        (active, reactive, b.spent == 0)
    } else {
        (b.active, b.reactive, b.spent == 0)
    };
    if active < need.active {
        return Err(if borrowing {
            "no active blow left to borrow from the next round".into()
        } else {
            "no active blow left this round".into()
        });
    }
    if active - need.active + reactive < need.any {
        return Err("not enough blows left".into());
    }
    let cost = blow_cost(first, need.active + need.any);
    if b.en_phase + cost > stats.en_cap() {
        return Err(format!(
            "the phase's EN is spent (cap {} = EL {} + the EN die's allowance)",
            stats.en_cap(),
            stats.el
        ));
    }
    if en.current - cost < 1 {
        return Err(
            "not enough EN: a character does not spend its last point (ruling last_en_point)"
                .into(),
        );
    }
    Ok(cost)
}

/// Whether `me` has a blow left it could use (000 §1.1.1).
pub fn has_blow(world: &World, me: Entity) -> bool {
    can_spend(world, me, Need { active: 0, any: 1 }).is_ok()
}

/// A weapon's data.
pub fn weapon<'a>(world: &'a World, name: &str) -> Option<&'a Weapon> {
    world.resource::<Data>().0.weapons.get(name)
}

/// Preparations applicable to an attack by `me` with `weapon`.
pub fn preparations(world: &World, me: Entity, weapon: &str) -> i32 {
    world.get::<Preparation>(me).map_or(0, |p| p.count(weapon))
}

/// Cells from `me` to `target`.
pub fn distance(world: &World, a: Entity, b: Entity) -> Option<u32> {
    let grid = world.resource::<Grid>();
    Some(grid.distance(*world.get::<Cell>(a)?, *world.get::<Cell>(b)?))
}

/// How far `me` strikes or shoots with `weapon` (missile ranges multiply
/// with preparations, 000 §1.2.4).
pub fn reach_of(world: &World, me: Entity, weapon_name: &str) -> u32 {
    let Some(w) = weapon(world, weapon_name) else {
        return 0;
    };
    if w.kind.missile() {
        w.range * (preparations(world, me, weapon_name) as u32 + 1)
    } else {
        w.reach
    }
}

/// The first weapon in `me`'s hands that attacks (not a shield).
pub fn attack_weapon(world: &World, me: Entity) -> Option<String> {
    let hands = world.get::<Hands>(me)?;
    hands
        .wielded
        .iter()
        .find(|w| weapon(world, w).is_some_and(|d| d.kind != WeaponKind::Shield))
        .cloned()
}

/// Every weapon in `me`'s hands that strikes (not a shield), in hand order.
pub fn strike_weapons(world: &World, me: Entity) -> Vec<String> {
    let Some(hands) = world.get::<Hands>(me) else {
        return Vec::new();
    };
    hands
        .wielded
        .iter()
        .filter(|w| weapon(world, w).is_some_and(|d| d.kind != WeaponKind::Shield))
        .cloned()
        .collect()
}

/// The first weapon in `me`'s hands that can parry and is not busy in its
/// own simultaneous option (000 §1.1.3): melee weapons and shields.
pub fn parry_weapon(world: &World, me: Entity) -> Option<String> {
    parry_weapons(world, me).into_iter().next()
}

/// Every weapon in `me`'s hands that can parry and is not busy: the
/// parrier chooses (000 §1.2.5: "each parrying character must expend a
/// blow"; the breakage checks are the parrying weapon's, 000 §1.2.5.1.3).
pub fn parry_weapons(world: &World, me: Entity) -> Vec<String> {
    let busy = &world.resource::<Flow>().busy;
    let Some(hands) = world.get::<Hands>(me) else {
        return Vec::new();
    };
    hands
        .wielded
        .iter()
        .filter(|w| {
            weapon(world, w).is_some_and(|d| !d.kind.missile())
                && !busy.iter().any(|(e, b)| *e == me && b == *w)
        })
        .cloned()
        .collect()
}

/// Whether `me` holds a shield.
pub fn shield(world: &World, me: Entity) -> Option<String> {
    world
        .get::<Hands>(me)?
        .wielded
        .iter()
        .find(|w| weapon(world, w).is_some_and(|d| d.kind == WeaponKind::Shield))
        .cloned()
}

/// The combatant `order` names as its target.
fn target_of(world: &World, order: &Order) -> Result<Entity, String> {
    world.resource::<Flow>().roster.target_of(order)
}

/// Check `order` for `me` against what `me` is asked.
pub fn validate(world: &World, me: Entity, order: &Order) -> Result<Plan, String> {
    let flow = world.resource::<Flow>();
    let Some((_, ask)) = flow.asked(me) else {
        return Err(format!("{} is not asked anything now", flow.name(me)));
    };
    if flow.name(me) != order.actor {
        return Err(format!(
            "this decision is for {}, not {}",
            flow.name(me),
            order.actor
        ));
    }
    match ask {
        Ask::Option => validate_option(world, me, order),
        Ask::Parry { attacker, .. } => match order.action.as_str() {
            "pass" => Ok(Plan::Nothing),
            "parry" => {
                if !alert(world, me) {
                    return Err("only an alert character parries".into());
                }
                let free = parry_weapons(world, me);
                let w = match order.with.as_deref() {
                    None => free
                        .first()
                        .cloned()
                        .ok_or("no weapon free to parry with")?,
                    Some(w) if free.iter().any(|f| f == w) => w.to_string(),
                    Some(w) if free.is_empty() => {
                        return Err(format!("no weapon free to parry with, the {w} included"));
                    }
                    Some(w) => {
                        return Err(format!(
                            "the {w} cannot parry now; free to parry with: {}",
                            free.join(", ")
                        ));
                    }
                };
                // The target parries its own attacker; a friend must reach it.
                let reach = weapon(world, &w).map_or(1, |d| d.reach.max(1));
                let target = matches!(ask, Ask::Parry { target, .. } if target == me);
                if !target && distance(world, me, attacker).is_none_or(|d| d > reach) {
                    return Err("the attacker is beyond the parrying weapon's reach".into());
                }
                can_spend(world, me, Need { active: 0, any: 1 })?;
                Ok(Plan::Parry { weapon: w })
            }
            other => Err(format!("one parries or passes here, not {other:?}")),
        },
        Ask::Noncombat => validate_noncombat(world, me, order),
        Ask::Trace => validate_trace(world, me, order),
        Ask::Stopped => {
            match order.action.as_str() {
                "pass" => Ok(Plan::Nothing),
                // 000 §3: "A character can stop, optionally becoming alert".
                "alert" => Ok(Plan::Pass {
                    drop: Vec::new(),
                    fall: false,
                    alert: true,
                }),
                "attack" => {
                    if world.get::<super::Noncombat>(me).is_some() {
                        return Err("one who took a noncombat option cannot react to others' movement (000 §3)".into());
                    }
                    let target = target_of(world, order)?;
                    let moving = flow.traces.iter().any(|t| t.who == target && !t.done);
                    if !moving {
                        return Err(format!(
                            "{} is not moving: one who stops strikes at a mover (000 §3.2.2)",
                            flow.name(target)
                        ));
                    }
                    attack_plan(world, me, target, order, true)
                }
                // 000 §3.2.2: "or alternatively execute an option other
                // than an attack" (ruling stop_options: draw or grab).
                "draw" | "grab" | "drop+grab" if !super::movement::mover_in_reach(world, me) => Err(
                    "one who stops draws or grabs only with a mover in reach, and not after a noncombat option (ruling stop_options)"
                        .into(),
                ),
                "draw" => {
                    let hands = world.get::<Hands>(me).cloned().unwrap_or_default();
                    draw_plan(world, me, order, &hands)
                }
                "grab" => grab_in_a_free_hand(world, me, order),
                // 000 §3.2.2 "using the procedure in 1.2": a drop may go
                // before the grab, to free a hand.
                "drop+grab" => drop_first(world, me, order, "grab"),
                other => Err(format!(
                    "one who stops attacks a mover, draws or grabs a weapon (drop+grab to free a hand), becomes alert or passes, not {other:?}"
                )),
            }
        }
    }
}

/// An attack by `me` on `target` (000 §1.2.5); `stopping`: by one who just
/// stopped moving, who becomes alert to strike in melee.
fn attack_plan(
    world: &World,
    me: Entity,
    target: Entity,
    order: &Order,
    stopping: bool,
) -> Result<Plan, String> {
    let flow = world.resource::<Flow>();
    if target == me || !enemies(world, me, target) {
        return Err("one attacks an opponent".into());
    }
    // An unconscious foe may be struck (full surprise); the dead may not.
    if world.get::<Condition>(target) == Some(&Condition::Dead) {
        return Err(format!("{} is dead", flow.name(target)));
    }
    let w = match &order.with {
        Some(w) => {
            let held = world
                .get::<Hands>(me)
                .is_some_and(|h| h.wielded.iter().any(|x| x == w));
            if !held {
                return Err(format!("{w} is not in hand"));
            }
            w.to_string()
        }
        None => attack_weapon(world, me).ok_or("no weapon in hand to attack with")?,
    };
    let d = weapon(world, &w).ok_or("unknown weapon")?;
    if d.kind == WeaponKind::Shield {
        return Err("a shield parries; it does not attack".into());
    }
    let is_alert = alert(world, me);
    if d.kind.missile() && is_alert {
        return Err("only an unalert character shoots or throws (000 §1.2.5)".into());
    }
    if !d.kind.missile() && !is_alert && !stopping {
        return Err("only an alert character attacks in melee (000 §1.2.5)".into());
    }
    let reach = reach_of(world, me, &w);
    let dist = distance(world, me, target).unwrap_or(u32::MAX);
    if dist > reach {
        return Err(format!(
            "{} is {dist} cells away; the {w} reaches {reach}",
            flow.name(target)
        ));
    }
    can_spend(world, me, Need::attack(d.heft == super::Heft::Heavy))?;
    Ok(Plan::Attack { target, weapon: w })
}

/// 000 §1.2.1: a pass may "drop items held in either or both hands; fall
/// to the ground; become alert": any or all of them, written
/// `with: "drop+fall+alert"`, where `drop` lets everything in hand fall and
/// `drop:ITEM` that one item.
fn pass_plan(held: &[String], with: Option<&str>) -> Result<Plan, String> {
    let (mut drop, mut fall, mut alert) = (Vec::new(), false, false);
    for word in with.unwrap_or("").split(['+', ',']).map(str::trim) {
        match word.split_once(':') {
            _ if word.is_empty() => {}
            None if word == "drop" => drop = held.to_vec(),
            Some(("drop", item)) if held.iter().any(|h| h == item) => {
                if !drop.iter().any(|d| d == item) {
                    drop.push(item.to_string());
                }
            }
            Some(("drop", item)) => {
                return Err(format!(
                    "nothing called {item:?} is in hand to drop (in hand: {})",
                    if held.is_empty() {
                        "nothing".into()
                    } else {
                        held.join(", ")
                    }
                ));
            }
            None if word == "fall" => fall = true,
            None if word == "alert" => alert = true,
            _ => {
                return Err(format!(
                    "a pass may drop (or drop:ITEM), fall and become alert (with: \"drop+fall+alert\"); {word:?} is none of them"
                ));
            }
        }
    }
    Ok(Plan::Pass { drop, fall, alert })
}

/// 000 §1.2: the option of the character with the initiative.
fn validate_option(world: &World, me: Entity, order: &Order) -> Result<Plan, String> {
    if let Some(option) = order.action.strip_prefix("drop+") {
        return drop_first(world, me, order, option);
    }
    let flow = world.resource::<Flow>();
    let hands = world.get::<Hands>(me).cloned().unwrap_or_default();
    // 000 §1.2.4: a thrusting weapon's or bow's preparation chains.
    if flow.chain.contains(&me) && !matches!(order.action.as_str(), "prepare" | "attack" | "pass") {
        return Err("a preparation with a thrusting weapon or bow must be followed at once by another preparation or the attack (or pass, losing it)".into());
    }
    match order.action.as_str() {
        "pass" => pass_plan(&hands.wielded, order.with.as_deref()),
        "draw" => draw_plan(world, me, order, &hands),
        "grab" => grab_in_a_free_hand(world, me, order),
        "prepare" => prepare_plan(world, me, order, &hands),
        "close" | "open" | "step_close" | "step_open" | "change_range" => {
            manoeuvre_plan(world, me, order)
        }
        "attack" => {
            let target = target_of(world, order)?;
            let plan = attack_plan(world, me, target, order, false)?;
            if flow.chain.contains(&me)
                && let Plan::Attack { weapon, .. } = &plan
                && preparations(world, me, weapon) == 0
            {
                return Err("the chain ends with the attack of the weapon prepared".into());
            }
            Ok(plan)
        }
        other => Err(format!(
            "in the combat phase the options are pass, draw, grab, prepare, close, open, step_close, step_open, change_range and attack; not {other:?}"
        )),
    }
}

/// 000 §1.2: "Any option may be preceded by dropping items held in hands",
/// written `drop+OPTION`: the character drops everything in hand except the
/// weapon its option strikes or prepares with (ruling `drop_and_speech`).
fn drop_first(world: &World, me: Entity, order: &Order, option: &str) -> Result<Plan, String> {
    if option == "pass" || option.starts_with("drop+") {
        return Err(
            "a pass drops with its own words (with: \"drop\"); drop+ goes before another option"
                .into(),
        );
    }
    let option_order = Order {
        action: option.into(),
        ..order.clone()
    };
    // The drop frees the hands the grab needs; a chain of preparations
    // still allows nothing but preparing or the attack (000 §1.2.4).
    let chained = world.resource::<Flow>().chain.contains(&me);
    let then = if option == "grab" && !chained {
        grab_plan(world, me, &option_order)?
    } else {
        validate_option(world, me, &option_order)?
    };
    let keep = match &then {
        Plan::Attack { weapon, .. } | Plan::Prepare { weapon } => Some(weapon.as_str()),
        _ => None,
    };
    let items: Vec<String> = world
        .get::<Hands>(me)
        .map(|h| {
            h.wielded
                .iter()
                .filter(|w| Some(w.as_str()) != keep)
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    if items.is_empty() {
        return Err("nothing in hand to drop before the option".into());
    }
    Ok(Plan::Dropping {
        items,
        then: Box::new(then),
    })
}

/// 000 §1.2.2 Draw weapon: a sheathed weapon, for a blow, which must be
/// active if the weapon is heavy.
fn draw_plan(world: &World, me: Entity, order: &Order, hands: &Hands) -> Result<Plan, String> {
    let w = order.with_name().ok_or("draw needs a weapon (with)")?;
    if !hands.sheathed.contains(&w) {
        return Err(format!("no {w} is sheathed"));
    }
    let heavy = weapon(world, &w).is_some_and(|d| d.heft == super::Heft::Heavy);
    can_spend(
        world,
        me,
        Need {
            active: u32::from(heavy),
            any: u32::from(!heavy),
        },
    )?;
    Ok(Plan::Draw { weapon: w })
}

/// A grab with nothing dropped first needs a hand free (000 §1.2.1: two
/// hands; a drop before the grab frees one).
fn grab_in_a_free_hand(world: &World, me: Entity, order: &Order) -> Result<Plan, String> {
    let hands = world.get::<Hands>(me).cloned().unwrap_or_default();
    if hands.wielded.len() >= 2 {
        return Err(format!(
            "both hands are full ({}): drop something first (drop+grab)",
            hands.wielded.join(" and ")
        ));
    }
    grab_plan(world, me, order)
}

/// 000 §1.2.3 Grab object: one item within reach, for an active blow.
fn grab_plan(world: &World, me: Entity, order: &Order) -> Result<Plan, String> {
    let flow = world.resource::<Flow>();
    let here = *world.get::<Cell>(me).ok_or("not on the battlefield")?;
    let grid = world.resource::<Grid>();
    let (cell, w) = flow
        .ground
        .iter()
        .find(|(c, w)| {
            grid.distance(*c, here) <= 1
                && order.with.as_ref().is_none_or(|x| x == w)
                && order.cell.is_none_or(|x| x == *c)
        })
        .cloned()
        .ok_or("nothing to grab within reach")?;
    can_spend(world, me, Need { active: 1, any: 0 })?;
    Ok(Plan::Grab { cell, weapon: w })
}

/// 000 §1.2.4 Prepare great blow: a weapon in hand, for an active blow;
/// "Cannot be used with flexible weapons", and a chain goes on with the
/// weapon prepared.
fn prepare_plan(world: &World, me: Entity, order: &Order, hands: &Hands) -> Result<Plan, String> {
    let flow = world.resource::<Flow>();
    let w = match &order.with {
        Some(w) => w.to_string(),
        None => attack_weapon(world, me).ok_or("no weapon in hand")?,
    };
    if !hands.wielded.contains(&w) {
        return Err(format!("{w} is not in hand"));
    }
    let d = weapon(world, &w).ok_or("unknown weapon")?;
    if matches!(
        d.kind,
        WeaponKind::Flexible | WeaponKind::Sling | WeaponKind::Shield
    ) {
        return Err(format!(
            "no great blow with a flexible weapon or a shield ({w}) (000 §1.2.4)"
        ));
    }
    if d.kind == WeaponKind::Bow && alert(world, me) {
        return Err(format!(
            "a bow's preparation goes on at once to another or the shot (000 §1.2.4), and an alert character does not shoot (000 §1.2.5): the {w} cannot be prepared while alert"
        ));
    }
    if flow.chain.contains(&me) && preparations(world, me, &w) == 0 {
        return Err("the chain goes on with the weapon prepared".into());
    }
    can_spend(world, me, Need { active: 1, any: 0 })?;
    if matches!(d.kind, WeaponKind::Thrusting | WeaponKind::Bow) {
        chain_can_go_on(world, me, (&w, d))?;
    }
    Ok(Plan::Prepare { weapon: w })
}

/// 000 §1.2.4: a thrusting weapon's or a bow's preparation "must be
/// immediately followed by another preparation or an attack or the effects
/// are lost": it is refused where the attack could not follow it: a melee
/// attack by one not alert (000 §1.2.5), or blows or EN too few for the
/// preparation and the attack together.
fn chain_can_go_on(world: &World, me: Entity, (w, d): (&str, &Weapon)) -> Result<(), String> {
    let lost = format!("the {w}'s preparation must go on at once to the attack (000 §1.2.4)");
    if d.kind == WeaponKind::Thrusting && !alert(world, me) {
        return Err(format!(
            "{lost}, and only an alert character attacks in melee (000 §1.2.5)"
        ));
    }
    let attack = Need::attack(d.heft == super::Heft::Heavy);
    let both = Need {
        active: 1 + attack.active,
        any: attack.any,
    };
    can_spend(world, me, both)
        .map(|_| ())
        .map_err(|why| format!("{lost}, and the attack could not follow: {why}"))
}

/// 000 §1.2.3 Maneuver: "Can be used only if alert. Affects the range to any
/// one other character, up to a maximum range of 6" (ruling `grid_ranges`),
/// for a blow; §1.2.3.1–5 say which.
fn manoeuvre_plan(world: &World, me: Entity, order: &Order) -> Result<Plan, String> {
    if !alert(world, me) {
        return Err("only an alert character manoeuvres (000 §1.2.3)".into());
    }
    let target = target_of(world, order)?;
    if target == me {
        return Err("a manoeuvre changes the range to another character".into());
    }
    let kind = match order.action.as_str() {
        "close" => Manoeuvre::Close,
        "open" => Manoeuvre::Open,
        "step_close" => Manoeuvre::StepClose,
        "step_open" => Manoeuvre::StepOpen,
        _ => Manoeuvre::ChangeRange,
    };
    manoeuvre_check(world, me, (kind, target), order.cell)?;
    can_spend(world, me, Need { active: 0, any: 1 })?;
    Ok(Plan::Manoeuvre {
        kind,
        target,
        cell: order.cell,
    })
}

/// 000 §1.2.3: whether `me` can make the manoeuvre `kind` toward `target`
/// as things stand: within 6 (ruling `grid_ranges`), not closing on one
/// already beside it, a change of range to a fallen opponent and a free
/// cell. Checked again when options declared together are carried out
/// (ruling `simultaneous_order`).
pub fn manoeuvre_check(
    world: &World,
    me: Entity,
    (kind, target): (Manoeuvre, Entity),
    cell: Option<Cell>,
) -> Result<(), String> {
    let data = &world.resource::<Data>().0;
    let dist = distance(world, me, target).unwrap_or(u32::MAX);
    if dist > data.numbers.max_range {
        return Err(format!(
            "{} is {dist} cells away; manoeuvres reach {} (ruling grid_ranges)",
            world.resource::<Flow>().name(target),
            data.numbers.max_range
        ));
    }
    if kind == Manoeuvre::ChangeRange {
        change_range_check(world, me, cell, target)?;
    }
    if matches!(kind, Manoeuvre::Close | Manoeuvre::StepClose) && dist <= 1 {
        return Err("already as close as can be".into());
    }
    // "up to a maximum range of 6; check with the gamesmaster for ranges
    // greater than 6" (ruling grid_ranges: no manoeuvre opens past 6).
    if matches!(kind, Manoeuvre::Open | Manoeuvre::StepOpen) && dist >= data.numbers.max_range {
        return Err(format!(
            "the range is already {dist}: a manoeuvre opens it to {} at most (ruling grid_ranges)",
            data.numbers.max_range
        ));
    }
    // 000 §1.2.3 "Affects the range": one with no free cell to step to
    // cannot make it (fallen, it only stands up: ruling fall).
    let steps = matches!(
        kind,
        Manoeuvre::Open | Manoeuvre::StepOpen | Manoeuvre::Close | Manoeuvre::StepClose
    );
    if steps && world.get::<Fallen>(me).is_none() && !can_step(world, me, kind, target) {
        return Err("no free cell to step to: the range cannot change".into());
    }
    Ok(())
}

/// Whether `me` has a free cell one step nearer `target` (to close) or
/// farther from it (to open), as a range-changing manoeuvre needs.
fn can_step(world: &World, me: Entity, kind: Manoeuvre, target: Entity) -> bool {
    let (Some(&here), Some(&there)) = (world.get::<Cell>(me), world.get::<Cell>(target)) else {
        return false;
    };
    let grid = world.resource::<Grid>();
    let taken: Vec<Cell> = super::roster(world)
        .into_iter()
        .filter(|&x| x != me)
        .filter_map(|x| world.get::<Cell>(x).copied())
        .collect();
    let opening = matches!(kind, Manoeuvre::Open | Manoeuvre::StepOpen);
    let now = grid.distance(here, there);
    grid.neighbours(here).any(|n| {
        let d = grid.distance(n, there);
        !taken.contains(&n)
            && grid.enter_cost(n).is_some()
            && if opening { d > now } else { d < now }
    })
}

/// 000 §1.2.3.5 Change range: "May change range to any fallen opponent to any
/// range between 1 and 6 inclusive", to a cell `me` can reach.
fn change_range_check(
    world: &World,
    me: Entity,
    cell: Option<Cell>,
    target: Entity,
) -> Result<(), String> {
    let data = &world.resource::<Data>().0;
    if world.get::<Fallen>(target).is_none() || !enemies(world, me, target) {
        return Err("the range changes freely only to a fallen opponent (000 §1.2.3.5)".into());
    }
    let cell = cell.ok_or("change_range needs the cell to go to")?;
    let grid = world.resource::<Grid>();
    let there = *world.get::<Cell>(target).ok_or("not on the battlefield")?;
    let d = grid.distance(cell, there);
    if !(1..=data.numbers.max_range).contains(&d) {
        return Err("the new range must be 1 to 6".into());
    }
    if path_to(world, me, cell).is_none_or(|(_, cost)| cost > data.numbers.max_range) {
        return Err(format!("{cell} cannot be reached"));
    }
    Ok(())
}

fn validate_noncombat(world: &World, me: Entity, order: &Order) -> Result<Plan, String> {
    let data = &world.resource::<Data>().0;
    match order.action.as_str() {
        "pass" => Ok(Plan::Nothing),
        "rest" => Ok(Plan::Rest),
        "cast" => {
            if alert(world, me) {
                return Err("an alert character cannot cast a spell (000 §2.1.2)".into());
            }
            let spell = order.with_name().ok_or("cast needs a spell (with)")?;
            let known = world
                .get::<Stats>(me)
                .is_some_and(|s| s.spells.contains(&spell));
            let s = data
                .spells
                .get(&spell)
                .filter(|_| known)
                .ok_or_else(|| format!("{spell:?} is not a spell this character knows"))?;
            let target = target_of(world, order)?;
            if distance(world, me, target).is_none_or(|d| d > s.range) {
                return Err(format!("beyond the {spell}'s range of {}", s.range));
            }
            let en = world.get::<super::En>(me).map_or(0, |e| e.current);
            if en - s.en_cost < 1 {
                return Err("not enough EN".into());
            }
            let (spent, cap) = (
                world.get::<Blows>(me).map_or(0, |b| b.en_phase),
                world.get::<Stats>(me).map_or(0, |s| s.en_cap()),
            );
            if spent + s.en_cost > cap {
                return Err(format!(
                    "the phase's EN cap of {cap} does not allow {} more",
                    s.en_cost
                ));
            }
            Ok(Plan::Cast { spell, target })
        }
        "adjust_armour" => {
            if alert(world, me) {
                return Err("an alert character cannot adjust armour (000 §2.1.3)".into());
            }
            if world.get::<Hands>(me).is_some_and(|h| h.armour_on) {
                return Err("the armour is already on".into());
            }
            Ok(Plan::AdjustArmour)
        }
        other => Err(format!(
            "in the noncombat phase the options are rest, cast, adjust_armour or pass; not {other:?}"
        )),
    }
}

/// The movement `me` has this round (000 §3): halved, rounded down (ruling
/// `half_movement`), if alert (unless it gives alertness up now) and after
/// a noncombat option, less 1 per blow.
pub fn allowance(world: &World, me: Entity, unalert: bool) -> u32 {
    let (Some(stats), Some(b)) = (world.get::<Stats>(me), world.get::<Blows>(me)) else {
        return 0;
    };
    let mut m = stats.movement;
    if alert(world, me) && !unalert {
        m /= 2;
    }
    if world.get::<super::Noncombat>(me).is_some() {
        m /= 2;
    }
    m.saturating_sub(b.spent)
}

/// Ruling fall: what rising takes of `me`'s `movement` — the larger half
/// when it is fallen, else nothing.
pub(super) fn rising(world: &World, me: Entity, movement: u32) -> u32 {
    if world.get::<super::Fallen>(me).is_some() {
        movement.div_ceil(2)
    } else {
        0
    }
}

/// Ruling fall: the movement [`allowance`] leaves `me` once it has risen.
fn risen_allowance(world: &World, me: Entity, unalert: bool) -> u32 {
    let m = allowance(world, me, unalert);
    m - rising(world, me, m)
}

/// A path for `me` to `to` around obstacles and others, with its cost.
pub fn path_to(world: &World, me: Entity, to: Cell) -> Option<(Vec<Cell>, u32)> {
    let here = *world.get::<Cell>(me)?;
    let grid = world.resource::<Grid>();
    if !grid.in_bounds(to) || grid.is_obstacle(to) {
        return None;
    }
    let taken = fray_core::model::taken_cells(world, me);
    if taken.contains(&to) {
        return None;
    }
    grid.path_toward(here, to, 0, |c| taken.contains(&c))
}

/// 000 §3.1: the way a chaser draws to `target`'s starting location, round
/// everyone else standing; none where there is no way there.
pub(super) fn chase_way(world: &World, me: Entity, target: Entity) -> Option<Vec<Cell>> {
    let here = *world.get::<Cell>(me)?;
    let there = *world.get::<Cell>(target)?;
    let taken: Vec<Cell> = world
        .resource::<Flow>()
        .roster
        .entities()
        .into_iter()
        .filter(|&x| x != me && x != target)
        .filter_map(|x| world.get::<Cell>(x).copied())
        .collect();
    let grid = world.resource::<Grid>();
    grid.path_toward(here, there, 0, |c| taken.contains(&c))
        .map(|(p, _)| p)
}

/// Where a trace toward `foe` ends: the first cell of the way there, round
/// whoever stands in it, within reach of the weapon in hand.
fn trace_toward(world: &World, me: Entity, foe: Entity) -> Option<Cell> {
    let here = *world.get::<Cell>(me)?;
    let there = *world.get::<Cell>(foe)?;
    let reach = attack_weapon(world, me).map_or(1, |w| reach_of(world, me, &w));
    let taken = fray_core::model::taken_cells(world, me);
    let grid = world.resource::<Grid>();
    let (path, _) = grid.path_toward(here, there, reach.max(1), |c| taken.contains(&c))?;
    path.last().copied()
}

fn validate_trace(world: &World, me: Entity, order: &Order) -> Result<Plan, String> {
    let unalert = order.with.as_deref() == Some("unalert");
    // 000 §3: after a noncombat option one "cannot react to others' movement".
    let reacts = order.action == "chase" || order.target.is_some();
    if reacts && world.get::<super::Noncombat>(me).is_some() {
        return Err(
            "one who took a noncombat option cannot react to others' movement (000 §3)".into(),
        );
    }
    match order.action.as_str() {
        "stay" => {
            let watch = match order.target {
                Some(_) => Some(target_of(world, order)?),
                None => None,
            };
            if watch == Some(me) {
                return Err("one cannot wait for oneself".into());
            }
            Ok(Plan::Stay { unalert, watch })
        }
        "trace" => {
            let cell = order.cell.ok_or("a trace needs a cell to go to")?;
            if path_to(world, me, cell).is_none() {
                return Err(format!("no way to {cell}"));
            }
            let stop_near = match order.target {
                Some(_) => Some(target_of(world, order)?),
                None => None,
            };
            Ok(Plan::Trace {
                cell,
                stop_near,
                unalert,
            })
        }
        "chase" => {
            let target = target_of(world, order)?;
            if target == me {
                return Err("one cannot chase oneself".into());
            }
            if chase_way(world, me, target).is_none() {
                return Err(format!(
                    "no way to {}'s starting place, where a chase's trace begins (000 §3.1)",
                    world.resource::<Flow>().name(target)
                ));
            }
            let (cost, cells) = (chase_cost(world), risen_allowance(world, me, unalert));
            if cells <= cost {
                let risen = if world.get::<super::Fallen>(me).is_some() {
                    " once risen (ruling fall)"
                } else {
                    ""
                };
                return Err(format!(
                    "a chase costs {cost} cells of movement, and it has {cells}{risen}: none would be left to chase with (ruling stop_options)"
                ));
            }
            Ok(Plan::Chase { target, unalert })
        }
        other => Err(format!(
            "in the movement phase one plots a trace, chases or stays; not {other:?}"
        )),
    }
}

/// The choices a decision lists, each legal or refused with the reason.
pub fn choices(world: &World, me: Entity) -> Vec<Choice> {
    let flow = world.resource::<Flow>();
    let Some((_, ask)) = flow.asked(me) else {
        return Vec::new();
    };
    let name = flow.name(me).to_string();
    let mut out = Vec::new();
    let mut offer = |order: Order, label: String| {
        out.push(match validate(world, me, &order) {
            Ok(_) => Choice::legal(order, label),
            Err(why) => Choice::refused(order, label, why),
        });
    };
    let others: Vec<(Entity, String)> = flow
        .roster
        .iter()
        .filter(|(e, _)| *e != me && up(world, *e))
        .cloned()
        .collect();
    let foes: Vec<&(Entity, String)> = others
        .iter()
        .filter(|(e, _)| enemies(world, me, *e))
        .collect();
    // 000 §1.2.5.1.3 strikes the unconscious too, and a spell may be cast
    // on anyone not dead, oneself included.
    let living: Vec<(Entity, String)> = flow
        .roster
        .iter()
        .filter(|(e, _)| {
            world
                .get::<Condition>(*e)
                .is_some_and(|c| *c != Condition::Dead)
        })
        .cloned()
        .collect();
    let senseless: Vec<&(Entity, String)> = living
        .iter()
        .filter(|(e, _)| !up(world, *e) && enemies(world, me, *e))
        .collect();
    match ask {
        Ask::Option => {
            option_choices(world, me, &name, &foes, &mut offer);
            for (_, n) in &senseless {
                offer(
                    Order::new(&name, "attack").target(n),
                    format!("Attack {n}, unconscious"),
                );
            }
            // 000 §1.2.3: a manoeuvre "affects the range to any one other
            // character", a friend too (to parry for it, say), and one lying
            // unconscious.
            for (e, n) in &others {
                if !foes.iter().any(|(f, _)| f == e) {
                    friend_manoeuvres(&name, n, "a friend", &mut offer);
                }
            }
            for (e, n) in &living {
                if *e != me && !up(world, *e) {
                    friend_manoeuvres(&name, n, "unconscious", &mut offer);
                }
            }
        }
        Ask::Parry { attacker, target } => {
            let (a, t) = (flow.name(attacker), flow.name(target));
            let free = parry_weapons(world, me);
            let blow = super::combat::a_blow(world);
            if free.len() > 1 {
                for w in &free {
                    offer(
                        Order::new(&name, "parry").with(w),
                        format!("Parry {a}'s attack on {t} with the {w} ({blow})"),
                    );
                }
            } else {
                // The one weapon free to parry, named.
                let with = free
                    .first()
                    .map_or(String::new(), |w| format!(" with the {w}"));
                offer(
                    Order::new(&name, "parry"),
                    format!("Parry {a}'s attack on {t}{with} ({blow})"),
                );
            }
            offer(Order::new(&name, "pass"), "Do not parry".into());
        }
        Ask::Noncombat => noncombat_choices(world, me, &name, &living, &mut offer),
        Ask::Trace => {
            trace_choices(world, me, &foes, &mut offer);
            for (e, n) in &others {
                if !foes.iter().any(|(f, _)| f == e) {
                    chase_friend(world, me, n, &mut offer);
                }
            }
        }
        Ask::Stopped => stopped_choices(world, me, &name, &foes, &mut offer),
    }
    out.sort_by_key(|c| c.refused.is_some());
    out.retain(|c| c.refused.is_none() || c.order.action == "attack");
    out
}

/// 000 §1.2: the options offered to the character with the initiative —
/// attack, prepare great blow, maneuver, draw weapon, grab object, pass.
fn option_choices(
    world: &World,
    me: Entity,
    name: &str,
    foes: &[&(Entity, String)],
    offer: &mut impl FnMut(Order, String),
) {
    let flow = world.resource::<Flow>();
    // With two weapons in hand (a grabbed one and the one held), either
    // strikes (000 §1.2.4, §1.2.5).
    let weapons = strike_weapons(world, me);
    for (_, n) in foes {
        match weapons.as_slice() {
            [_, _, ..] => {
                for w in &weapons {
                    let attack = Order::new(name, "attack").target(n).with(w);
                    offer(attack, format!("Attack {n} with the {w}"));
                }
            }
            _ => offer(Order::new(name, "attack").target(n), format!("Attack {n}")),
        }
    }
    for w in &weapons {
        offer(
            Order::new(name, "prepare").with(w),
            format!("Prepare a great blow with the {w}"),
        );
    }
    for (_, n) in foes {
        for (action, words) in [
            ("close", "Close on"),
            ("step_close", "Step close to"),
            ("open", "Open from"),
            ("step_open", "Step away from"),
        ] {
            offer(Order::new(name, action).target(n), format!("{words} {n}"));
        }
    }
    change_range_choices(world, me, foes, offer);
    let held = world.get::<Hands>(me).map(|h| h.wielded.join(" and the "));
    let held = held.filter(|h| !h.is_empty());
    if let Some(h) = world.get::<Hands>(me) {
        for w in &h.sheathed {
            offer(Order::new(name, "draw").with(w), format!("Draw the {w}"));
            if let Some(held) = &held {
                offer(
                    Order::new(name, "drop+draw").with(w),
                    format!("Drop the {held}, then draw the {w}"),
                );
            }
        }
    }
    for (c, w) in &flow.ground {
        offer(
            Order::new(name, "grab").with(w).cell(*c),
            format!("Grab the {w} at {c}"),
        );
        if let Some(held) = &held {
            offer(
                Order::new(name, "drop+grab").with(w).cell(*c),
                format!("Drop the {held}, then grab the {w} at {c}"),
            );
        }
    }
    let held = world
        .get::<Hands>(me)
        .map(|h| h.wielded.clone())
        .unwrap_or_default();
    let already = (world.get::<Fallen>(me).is_some(), alert(world, me));
    pass_choices(name, &held, already, offer);
}

/// 000 §1.2.1 Pass: "any or all of the following: drop items held in
/// either or both hands; fall to the ground; become alert": with two items
/// in hand, either of them or both.
fn pass_choices(
    name: &str,
    held: &[String],
    (fallen, alert): (bool, bool),
    offer: &mut impl FnMut(Order, String),
) {
    let mut drops: Vec<(String, String)> = vec![(String::new(), String::new())];
    if let [_, _, ..] = held {
        for item in held {
            drops.push((format!("drop:{item}"), format!("dropping the {item}")));
        }
    }
    if !held.is_empty() {
        let all = match held {
            [one] => format!("dropping the {one}"),
            [a, b] => format!("dropping both the {a} and the {b}"),
            _ => format!("dropping everything in hand (the {})", held.join(", the ")),
        };
        drops.push(("drop".into(), all));
    }
    // 000 §1.2.1: "any or all of the following": every drop with falling,
    // becoming alert, both or neither; not falling for one on the ground
    // already, nor becoming alert for one alert.
    let pointless = usize::from(fallen) | (usize::from(alert) << 1);
    for (drop, dropping) in &drops {
        for mask in (0..4usize).filter(|m| m & pointless == 0) {
            let mut with: Vec<&str> = Vec::new();
            let mut words: Vec<&str> = Vec::new();
            if !drop.is_empty() {
                with.push(drop);
                words.push(dropping);
            }
            for (i, (w, says)) in [
                ("fall", "falling to the ground"),
                ("alert", "becoming alert"),
            ]
            .into_iter()
            .enumerate()
            {
                if mask & (1 << i) != 0 {
                    with.push(w);
                    words.push(says);
                }
            }
            let label = match words.as_slice() {
                [] => "Pass".to_string(),
                [one] => format!("Pass, {one}"),
                // "dropping both the sword and the shield, and falling"
                [rest @ .., last] if rest.iter().any(|w| w.contains(" and ")) => {
                    format!("Pass, {}, and {last}", rest.join(", "))
                }
                [rest @ .., last] => format!("Pass, {} and {last}", rest.join(", ")),
            };
            let mut order = Order::new(name, "pass");
            if !with.is_empty() {
                order = order.with(with.join("+"));
            }
            offer(order, label);
        }
    }
}

/// 000 §1.2.3: the manoeuvres offered toward or away from a friend `n`.
fn friend_manoeuvres(name: &str, n: &str, who: &str, offer: &mut impl FnMut(Order, String)) {
    for (action, words) in [
        ("close", "Close on"),
        ("step_close", "Step close to"),
        ("open", "Open from"),
        ("step_open", "Step away from"),
    ] {
        offer(
            Order::new(name, action).target(n),
            format!("{words} {n} ({who})"),
        );
    }
}

/// 000 §1.2.3.5 Change range: to each fallen foe, "to any range between 1
/// and 6 inclusive": for each, the nearest cell `me` reaches at that range,
/// the straightest of equals.
fn change_range_choices(
    world: &World,
    me: Entity,
    foes: &[&(Entity, String)],
    offer: &mut impl FnMut(Order, String),
) {
    let Some(&here) = world.get::<Cell>(me) else {
        return;
    };
    // Fallen, its first range change only stands it up (000 §1.2.3): the
    // other manoeuvres offer that.
    if world.get::<Fallen>(me).is_some() {
        return;
    }
    let most = world.resource::<Data>().0.numbers.max_range;
    let grid = world.resource::<Grid>();
    let taken = fray_core::model::taken_cells(world, me);
    let reach = grid.reachable(here, most, |c| taken.contains(&c));
    let name = world.resource::<Flow>().name(me).to_string();
    for (f, n) in foes {
        let Some(&there) = world
            .get::<Cell>(*f)
            .filter(|_| world.get::<Fallen>(*f).is_some())
        else {
            continue;
        };
        for range in 1..=most {
            let nearest = reach
                .iter()
                .filter(|&&(c, _)| c != here && !taken.contains(&c))
                .filter(|&&(c, _)| grid.distance(c, there) == range)
                .min_by_key(|&&(c, cost)| {
                    let (dx, dy) = (c.x - here.x, c.y - here.y);
                    (cost, dx * dx + dy * dy, c.y, c.x)
                });
            if let Some(&(c, _)) = nearest {
                offer(
                    Order::new(&name, "change_range").target(n).cell(c),
                    format!("Change range to the fallen {n}: to {range}, at {c}"),
                );
            }
        }
    }
}

/// 000 §2.1: the noncombat options offered — rest, adjust armour, a spell
/// on anyone not dead (oneself too), or nothing.
fn noncombat_choices(
    world: &World,
    me: Entity,
    name: &str,
    others: &[(Entity, String)],
    offer: &mut impl FnMut(Order, String),
) {
    offer(Order::new(name, "rest"), "Rest".into());
    offer(Order::new(name, "adjust_armour"), "Adjust armour".into());
    if let Some(stats) = world.get::<Stats>(me) {
        for s in &stats.spells {
            for (_, n) in others {
                offer(
                    Order::new(name, "cast").with(s).target(n),
                    format!("Cast {s} on {n}"),
                );
            }
        }
    }
    offer(Order::new(name, "pass"), "Nothing".into());
}

/// 000 §3.1: the traces offered — chasing a foe or making for it, alert
/// or not ("Characters may cease to be alert; any characters may move"),
/// or staying. A typed cell is an alert trace.
/// 000 §3.1: one may chase "another character", a friend too.
fn chase_friend(world: &World, me: Entity, n: &str, offer: &mut impl FnMut(Order, String)) {
    let name = world.resource::<Flow>().name(me).to_string();
    let alert = super::alert(world, me);
    let cost = chase_cost(world);
    if alert && chases(world, me, false) {
        offer(
            Order::new(&name, "chase").target(n),
            format!("Chase {n}, a friend (half movement, -{cost})"),
        );
    }
    let no_longer = if alert { ", no longer alert" } else { "" };
    if chases(world, me, true) {
        offer(
            Order::new(&name, "chase").target(n).with("unalert"),
            format!("Chase {n}, a friend{no_longer} (full movement, -{cost})"),
        );
    }
}

/// 000 §3.1: the cells of movement a chase costs.
pub(super) fn chase_cost(world: &World) -> u32 {
    world.resource::<Data>().0.numbers.chase_cost
}

/// Whether `me` has movement left to chase with, at full movement or half,
/// once the chase's cost is paid.
pub(super) fn chases(world: &World, me: Entity, full: bool) -> bool {
    risen_allowance(world, me, full) > chase_cost(world)
}

fn trace_choices(
    world: &World,
    me: Entity,
    foes: &[&(Entity, String)],
    offer: &mut impl FnMut(Order, String),
) {
    let name = &world.resource::<Flow>().name(me).to_string();
    // What each kind of trace does to alertness and movement, in words.
    // One unalert already moves at full movement, and a trace does not make
    // it alert (only a pass does, 000 §1.2.1): it has one way of each.
    let alert = super::alert(world, me);
    // With no movement at all, only the ways of staying are open.
    let moves = allowance(world, me, true) > 0;
    let cost = chase_cost(world);
    for (f, n) in foes.iter().filter(|_| moves) {
        if alert && chases(world, me, false) {
            offer(
                Order::new(name, "chase").target(n),
                format!("Chase {n} (half movement, -{cost})"),
            );
        }
        if chases(world, me, true) {
            offer(
                Order::new(name, "chase").target(n).with("unalert"),
                format!(
                    "Chase {n}{} (full movement, -{cost})",
                    if alert { ", no longer alert" } else { "" }
                ),
            );
        }
        let Some(cell) = trace_toward(world, me, *f) else {
            continue;
        };
        if alert && allowance(world, me, false) > 0 {
            offer(
                Order::new(name, "trace").cell(cell).target(n),
                format!("Make for {n} (half movement), stopping within reach"),
            );
        }
        offer(
            Order::new(name, "trace")
                .cell(cell)
                .target(n)
                .with("unalert"),
            format!(
                "Run at {n}{} (full movement), stopping within reach",
                if alert { ", no longer alert" } else { "" }
            ),
        );
    }
    // A typed cell is an alert trace at half movement; falling back from
    // the foes at full movement is one choice more.
    if alert
        && moves
        && let Some(back) = back_from_foes(world, me, foes)
    {
        offer(
            Order::new(name, "trace").cell(back).with("unalert"),
            format!("Fall back to {back}, no longer alert (full movement)"),
        );
    }
    if alert {
        offer(Order::new(name, "stay"), "Stay".into());
    }
    offer(
        Order::new(name, "stay").with("unalert"),
        if alert {
            "Stay, no longer alert"
        } else {
            "Stay"
        }
        .into(),
    );
    for (_, n) in foes {
        offer(
            Order::new(name, "stay").target(n),
            format!("Stay, and strike {n} if it comes within reach"),
        );
    }
}

/// The cell within `me`'s full movement farthest from its nearest foe (the
/// nearest of such, then the first in the grid's order), if farther than
/// where it stands.
fn back_from_foes(world: &World, me: Entity, foes: &[&(Entity, String)]) -> Option<Cell> {
    let here = *world.get::<Cell>(me)?;
    // What it may move unalert this round: blows spent and a noncombat
    // option cost movement (000 §3).
    let most = allowance(world, me, true);
    let grid = world.resource::<Grid>();
    let at: Vec<Cell> = foes
        .iter()
        .filter_map(|(f, _)| world.get::<Cell>(*f).copied())
        .collect();
    let taken = fray_core::model::taken_cells(world, me);
    fray_core::movement::farthest_from(grid, (here, most), &at, |c| taken.contains(&c), |_| true)
}

/// What striking a mover costs `me` (ruling borrowed_blows, 000 §1.2.5):
/// an active blow, and a second with a heavy weapon, borrowed from the next
/// round, and their EN.
fn borrowed_strike(world: &World, me: Entity) -> String {
    let w = attack_weapon(world, me);
    let heavy = w
        .as_deref()
        .and_then(|w| weapon(world, w))
        .is_some_and(|d| d.heft == super::Heft::Heavy);
    let blows = match (&w, heavy) {
        (Some(w), true) => format!("an active blow and a second for the heavy {w}"),
        _ => "an active blow".to_string(),
    };
    let en = can_spend(world, me, Need::attack(heavy))
        .map_or(String::new(), |cost| format!(", {cost} EN"));
    format!("{blows} borrowed from the next round{en}")
}

/// 000 §3.2.2: the choices of one who just stopped — strike a foe "who has
/// not yet ended movement", or let them pass.
fn stopped_choices(
    world: &World,
    me: Entity,
    name: &str,
    foes: &[&(Entity, String)],
    offer: &mut impl FnMut(Order, String),
) {
    let flow = world.resource::<Flow>();
    let strike = borrowed_strike(world, me);
    for (e, n) in foes {
        if flow.traces.iter().any(|t| t.who == *e && !t.done) {
            offer(
                Order::new(name, "attack").target(n),
                format!("Strike {n} as it moves ({strike})"),
            );
        }
    }
    if let Some(h) = world.get::<Hands>(me) {
        for w in &h.sheathed {
            offer(
                Order::new(name, "draw").with(w),
                format!("Draw the {w} (a borrowed blow)"),
            );
        }
    }
    let full = world.get::<Hands>(me).filter(|h| h.wielded.len() >= 2);
    for (c, w) in &flow.ground {
        match full {
            Some(h) => offer(
                Order::new(name, "drop+grab").with(w).cell(*c),
                format!(
                    "Drop the {}, then grab the {w} at {c} (a borrowed blow)",
                    h.wielded.join(" and the ")
                ),
            ),
            None => offer(
                Order::new(name, "grab").with(w).cell(*c),
                format!("Grab the {w} at {c} (a borrowed blow)"),
            ),
        }
    }
    if !super::alert(world, me) {
        offer(
            Order::new(name, "alert"),
            "Become alert, without striking".into(),
        );
    }
    offer(Order::new(name, "pass"), "Let them pass".into());
}

#[cfg(test)]
mod tests {
    use super::Need;

    #[test]
    fn blows_of_either_kind_come_from_the_reactive_ones_first() {
        let parry = Need { active: 0, any: 1 };
        assert_eq!(parry.taken(2, 1), Some((2, 0)));
        assert_eq!(parry.taken(2, 0), Some((1, 0)));
        assert_eq!(parry.taken(0, 0), None);
        assert_eq!(Need::attack(true).taken(1, 1), Some((0, 0)));
        assert_eq!(Need::attack(true).taken(0, 2), None, "an active blow first");
    }

    #[test]
    fn a_heavy_weapon_attacks_once_for_two_blows() {
        let (light, heavy) = (Need::attack(false), Need::attack(true));
        assert_eq!((light.times(2, 2), heavy.times(2, 2)), (2, 2));
        assert_eq!((light.times(2, 0), heavy.times(2, 0)), (2, 1));
        assert_eq!(heavy.times(3, 1), 2);
        assert_eq!(Need { active: 0, any: 0 }.times(3, 3), 0);
    }
}
