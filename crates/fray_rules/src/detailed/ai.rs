//! The `detailed_sequence` ruleset's appraisal of the orders open to a
//! character, for the basic AI (`fray_core::ai`).
//!
//! An attack is worth its chance to hit times the mean damage to EN. Out of
//! reach, a fighter closes on the nearest foe only when the blows it then
//! trades this round favour it, and otherwise waits for the movement
//! phase to bring it closer; an archer too far off prepares to lengthen its range, and opens from
//! a foe at its side. A parry is worth the damage it spares against its EN
//! and the attack it gives up when its blow is one an attack needs. In the
//! noncombat phase the hurt rest, mages cast, the unarmoured put their
//! armour on. Traces run to the nearest foe, stopping within reach, and
//! chase only a foe who runs (an unalert archer stands to shoot);
//! whoever stops strikes the mover it can reach.

use bevy_ecs::prelude::*;
use fray_core::ai::{AiHooks, Appraisal, STANDARD_SEARCH_WORK};
use fray_core::decision::Order;
use fray_core::grid::{Cell, Grid};
use fray_core::model::Rostered;

use super::orders::{
    Need, attack_weapon, can_spend, distance, parry_weapon, reach_of, validate, weapon,
};
use super::view::{chance, chance_as};
use super::{Ask, Data, En, Flow, Hands, Stats, alert, enemies_of, up};

pub const HOOKS: AiHooks = AiHooks {
    appraise,
    legal,
    // A step resolves more (parries, preparations, traces) than one of
    // `declared`'s (3): at the same weight a search of `ds_duel` took 22 ms
    // at p99 against 9 ms for the `duel`; at 6, 14 ms where `declared`'s
    // took 13 at most. At 5 they stay within 20 ms on a slow day.
    step_work: 5,
    // Twice the standard's futures: 55.7% of `ds_melee` against the basic
    // AI rather than 50.2%, at 13 ms a decision at p99 (docs/ai.md).
    search_work: 2 * STANDARD_SEARCH_WORK,
    cell_work: 0,
};

/// The same check the rules make when they take the order.
fn legal(world: &World, me: Entity, order: &Order) -> bool {
    validate(world, me, order).is_ok()
}

/// Chance to hit times mean damage of `a`'s attack on `t`.
fn attack_value(world: &World, a: Entity, t: Entity, parries: i32) -> f32 {
    let Some((p, w)) = chance(world, a, t, parries) else {
        return 0.0;
    };
    p * weapon(world, &w).map_or(0.0, |d| d.damage.plus(prepared(world, a, &w)).mean())
}

/// 000 §1.2.5.3: the damage `a`'s preparations add to a blow with `w`.
fn prepared(world: &World, a: Entity, w: &str) -> i32 {
    let per = world.resource::<Data>().0.numbers.preparation_damage;
    per * super::orders::preparations(world, a, w)
}

/// Whether `e` holds a bow or sling to shoot with (000 §1.2.5).
fn missile_in_hand(world: &World, e: Entity) -> bool {
    attack_weapon(world, e)
        .and_then(|w| weapon(world, &w))
        .is_some_and(|d| d.kind.missile())
}

/// The EN `e` has left (none below 0).
fn en_left(world: &World, e: Entity) -> f32 {
    world.get::<En>(e).map_or(0.0, |x| x.current.max(0) as f32)
}

/// The character asked, and who stands against it and beside it.
struct Asked<'a> {
    world: &'a World,
    me: Entity,
    name: String,
    flow: &'a Flow,
    /// Enemies and friends still up, in roster order.
    foes: Vec<Entity>,
    friends: Vec<Entity>,
    /// The nearest foe.
    nearest: Option<Entity>,
}

/// The options open to `me` for what it is asked now, each appraised.
fn appraise(world: &World, me: Entity) -> Vec<Appraisal> {
    let flow = world.resource::<Flow>();
    let Some((_, ask)) = flow.asked(me) else {
        return Vec::new();
    };
    let name = flow.name(me).to_string();
    let foe = enemies_of(world, me);
    let foes: Vec<Entity> = flow
        .roster
        .iter()
        .map(|(e, _)| *e)
        .filter(|&e| foe(e) && up(world, e))
        .collect();
    let friends: Vec<Entity> = flow
        .roster
        .iter()
        .map(|(e, _)| *e)
        .filter(|&e| !foe(e) && up(world, e))
        .collect();
    let nearest = foes
        .iter()
        .copied()
        .min_by_key(|&f| distance(world, me, f).unwrap_or(u32::MAX));
    let s = Asked {
        world,
        me,
        name,
        flow,
        foes,
        friends,
        nearest,
    };
    let mut out = Vec::new();
    match ask {
        Ask::Option => option(&s, &mut out),
        Ask::Parry { attacker, target } => parry(&s, attacker, target, &mut out),
        Ask::Noncombat => noncombat(&s, &mut out),
        Ask::Trace => trace(&s, &mut out),
        Ask::Stopped => stopped(&s, &mut out),
    }
    out
}

/// 000 §1.2.5: an attack by the character asked on `t`.
fn attack_order(s: &Asked, t: Entity) -> Order {
    Order::new(&s.name, "attack").target(s.flow.name(t))
}

/// 000 §1.2.5: an attack on every foe the character may attack now, worth
/// its chance to hit times the mean damage; whether there was any. A foe
/// beyond the reach of the weapon in hand is not asked of the rules: they
/// refuse an attack on it whatever else holds (`attack_plan`).
fn attacks(s: &Asked, out: &mut Vec<Appraisal>) -> bool {
    let (world, me) = (s.world, s.me);
    let Some(reach) = attack_weapon(world, me).map(|w| reach_of(world, me, &w)) else {
        return false;
    };
    let mut any = false;
    for &f in &s.foes {
        if distance(world, me, f).unwrap_or(u32::MAX) > reach {
            continue;
        }
        let o = attack_order(s, f);
        if validate(world, me, &o).is_ok() {
            any = true;
            out.push(Appraisal {
                damage: attack_value(world, me, f, 0),
                target_left: en_left(world, f),
                ..Appraisal::plain(o)
            });
        }
    }
    any
}

/// 000 §1.2: the options of the character with initiative — pass, attack,
/// prepare, manoeuvre, become alert, draw or grab.
fn option(s: &Asked, out: &mut Vec<Appraisal>) {
    let (world, me) = (s.world, s.me);
    out.push(Appraisal::plain(Order::new(&s.name, "pass")));
    let weapon_name = attack_weapon(world, me);
    let missile = missile_in_hand(world, me);
    // A foe it may attack now: one is in reach.
    let in_reach = attacks(s, out);
    if let (Some(f), Some(w)) = (s.nearest, weapon_name.clone()) {
        if missile {
            missile_options(s, f, &w, in_reach, out);
        } else if !in_reach {
            close_in(s, f, out);
        }
    }
    become_alert(s, Order::new(&s.name, "pass").with("alert"), out);
    // Weaponless: draw or grab.
    if weapon_name.is_none() {
        draw_or_grab(s, out);
    }
}

/// 000 §1.2.4 · 000 §1.2.3.4: an archer too far from the nearest foe
/// prepares to lengthen its range; with the foe at its side, it steps open.
fn missile_options(s: &Asked, f: Entity, w: &str, in_reach: bool, out: &mut Vec<Appraisal>) {
    let (world, me) = (s.world, s.me);
    let d = distance(world, me, f).unwrap_or(0);
    let fname = s.flow.name(f).to_string();
    // Too far: a preparation lengthens the range (000 §1.2.4).
    let o = Order::new(&s.name, "prepare").with(w);
    let range = reach_of(world, me, w);
    let base = weapon(world, w).map_or(0, |x| x.range);
    if !in_reach && d <= range + base && validate(world, me, &o).is_ok() {
        out.push(Appraisal {
            other: 0.6 * attack_value(world, me, f, 0),
            ..Appraisal::plain(o)
        });
    }
    // A foe at its side: step away to shoot in peace.
    if d <= 1 {
        let o = Order::new(&s.name, "step_open").target(&fname);
        if validate(world, me, &o).is_ok() {
            out.push(Appraisal {
                other: 1.0,
                closing: -1.0,
                ..Appraisal::plain(o)
            });
        }
    }
}

/// 000 §1.2.3.1 · 000 §1.2.3.3: a fighter out of reach closes on the
/// nearest foe (by two with a good DX) or steps close, worth the blows it
/// trades with the foe for the rest of the round once within reach. A
/// close spends a blow (000 §1.2.3) and may hand the foe the initiative
/// (000 §1.1.2); one that brings no contact this round is left to the
/// movement phase, which brings an alert character closer for nothing
/// (000 §3).
fn close_in(s: &Asked, f: Entity, out: &mut Vec<Appraisal>) {
    let (world, me) = (s.world, s.me);
    let fname = s.flow.name(f).to_string();
    let d = distance(world, me, f).unwrap_or(0);
    let data = &world.resource::<Data>().0;
    // Ruling dx_checks: two cells on the D100 DX check, none on a stumble.
    let dx = world.get::<Stats>(me).map_or(0, |s| s.dx) * data.ruling_numbers.d100_dx_multiplier;
    let stumble = data.numbers.stumble_from.saturating_sub(1) as f32 / 100.0;
    let two = (dx.max(0) as f32 / 100.0).min(stumble);
    for (action, odds) in [
        ("close", [(2, two), (1, stumble - two)]),
        ("step_close", [(1, 1.0), (0, 0.0)]),
    ] {
        let o = Order::new(&s.name, action).target(&fname);
        if validate(world, me, &o).is_err() {
            continue;
        }
        let worth: f32 = odds
            .iter()
            .map(|&(cells, p)| p * exchange(world, me, f, d.saturating_sub(cells).max(1)))
            .sum();
        if worth > 0.0 {
            let cells: f32 = odds.iter().map(|&(c, p)| c as f32 * p).sum();
            out.push(Appraisal {
                other: worth,
                closing: cells,
                ..Appraisal::plain(o)
            });
        }
    }
}

/// One side of the blows traded for the rest of a round (000 §1.1–1.2.5).
#[derive(Clone, Copy)]
struct Trader {
    active: u32,
    reactive: u32,
    /// Blows spent this round: the first is free, each later one 1 EN.
    spent: u32,
    en: i32,
    attack: Need,
    /// Whether its weapon reaches the other at the range traded at.
    reaches: bool,
    /// Its attack's worth, unparried and parried.
    hit: f32,
    parried: f32,
}

impl Trader {
    /// `e` as it stands, its blows less `spend`, striking `t` at `range`.
    fn of(world: &World, e: Entity, t: Entity, range: u32, spend: Need) -> Option<Self> {
        let b = world.get::<super::Blows>(e)?;
        let (active, reactive) = spend.taken(b.active, b.reactive)?;
        let w = attack_weapon(world, e);
        let kind = w
            .as_ref()
            .and_then(|w| weapon(world, w))
            .map(|d| (d.heft, d.kind));
        // 000 §1.2.5: missiles only when unalert, melee only when alert
        // (which a pass makes a character, 000 §1.2.1).
        let reaches = w.as_ref().is_some_and(|w| reach_of(world, e, w) >= range)
            && kind.is_some_and(|(_, k)| !k.missile() || !alert(world, e));
        let taken = spend.active + spend.any;
        Some(Trader {
            active,
            reactive,
            spent: b.spent + taken,
            en: world.get::<En>(e).map_or(0, |x| x.current) - blow_cost(b.spent, taken),
            attack: Need::attack(kind.is_some_and(|(h, _)| h == super::Heft::Heavy)),
            reaches,
            hit: attack_value(world, e, t, 0),
            parried: attack_value(world, e, t, 1),
        })
    }

    /// Spends `need` if it has the blows and the EN (000 §1: not its last
    /// point, ruling `unconscious`); false when it cannot.
    fn spend(&mut self, need: Need) -> bool {
        let cost = blow_cost(self.spent, need.active + need.any);
        match need.taken(self.active, self.reactive) {
            Some((a, r)) if self.en > cost => {
                (self.active, self.reactive) = (a, r);
                self.spent += need.active + need.any;
                self.en -= cost;
                true
            }
            _ => false,
        }
    }

    /// Whether it can attack now.
    fn can_attack(&self) -> bool {
        let mut t = *self;
        self.reaches && t.spend(self.attack)
    }

    /// 000 §1.1.2: what the initiative goes by, as `combat::standing`
    /// reads it of a character.
    fn key(&self) -> (u32, u32, i32) {
        (self.active, self.reactive, self.en)
    }

    /// 000 §1.2.5: struck by `by`, it parries with a blow its own attacks
    /// do not need.
    fn struck(&mut self, by: &Trader) -> f32 {
        let parry = Need { active: 0, any: 1 };
        let attacks = self.attack.times(self.active, self.reactive);
        let mut after = *self;
        if after.spend(parry) && after.attack.times(after.active, after.reactive) == attacks {
            *self = after;
            by.parried
        } else {
            by.hit
        }
    }
}

/// 000 §1: the EN `taken` more blows cost after `spent` this round.
fn blow_cost(spent: u32, taken: u32) -> i32 {
    super::orders::blow_cost(spent == 0, taken)
}

/// 000 §1.1–1.2.5: the damage `me` deals less the damage it takes when it
/// and `f` trade their blows left this round at `range`, after `me` spends
/// a blow to get there (000 §1.2.3): whoever has the initiative (000
/// §1.1.2) attacks, the other parrying with a spare blow, until neither
/// can; tied, both strike together (000 §1.1.3).
fn exchange(world: &World, me: Entity, f: Entity, range: u32) -> f32 {
    let manoeuvre = Need { active: 0, any: 1 };
    let (Some(mut a), Some(mut b)) = (
        Trader::of(world, me, f, range, manoeuvre),
        Trader::of(world, f, me, range, Need { active: 0, any: 0 }),
    ) else {
        return 0.0;
    };
    let mut worth = 0.0;
    for _ in 0..8 {
        let (ours, theirs) = (a.can_attack(), b.can_attack());
        let first = match (ours, theirs) {
            (false, false) => break,
            (true, false) => std::cmp::Ordering::Greater,
            (false, true) => std::cmp::Ordering::Less,
            _ => a.key().cmp(&b.key()),
        };
        if first.is_ge() {
            a.spend(a.attack);
            worth += b.struck(&a);
        }
        if first.is_le() {
            b.spend(b.attack);
            worth -= a.struck(&b);
        }
    }
    worth
}
/// 000 §1.2.1: an unalert fighter becomes alert, to fight in melee once a
/// foe is near, and to spare itself the partial surprise of the shots of
/// foes who can shoot at it (000 §1.2.5.1.3).
/// `order` is how it becomes alert: a pass in the combat phase, the
/// "alert" answer as it stops moving (000 §3).
fn become_alert(s: &Asked, order: Order, out: &mut Vec<Appraisal>) {
    if missile_in_hand(s.world, s.me) || alert(s.world, s.me) {
        return;
    }
    let worth = alertness_worth(s);
    if worth > 0.0 {
        out.push(Appraisal {
            other: worth,
            ..Appraisal::plain(order)
        });
    }
}

/// What being alert is worth to the character asked: a melee foe near
/// (000 §1.2.5: only the alert strike in melee), and the shots it spares.
fn alertness_worth(s: &Asked) -> f32 {
    let (world, me) = (s.world, s.me);
    let max_range = world.resource::<Data>().0.numbers.max_range;
    let near = s
        .nearest
        .and_then(|f| distance(world, me, f))
        .is_some_and(|d| d <= max_range);
    let melee = if near { 0.8 } else { 0.0 };
    melee + shots_spared(s)
}

/// 000 §1.2.5.1.3: what alertness spares the character asked of the foes
/// who stand unalert with a bow or sling and reach it with a shot, each
/// preparation before it multiplying the range (000 §1.2.4): the chance
/// they hit it unalert, its roll doubled, less the chance they hit it
/// alert, times their mean damage.
fn shots_spared(s: &Asked) -> f32 {
    let (world, me) = (s.world, s.me);
    let mut worth = 0.0;
    for &f in &s.foes {
        if alert(world, f) || !missile_in_hand(world, f) {
            continue;
        }
        let Some((w, stats)) = attack_weapon(world, f).zip(world.get::<Stats>(f)) else {
            continue;
        };
        let Some(bow) = weapon(world, &w) else {
            continue;
        };
        // All its active blows but the shot's spent preparing.
        let reach = bow.range * stats.active.max(1);
        if distance(world, me, f).is_none_or(|d| d > reach) {
            continue;
        }
        let (Some((unalert, _)), Some((alerted, _))) = (
            chance_as(world, f, me, 0, false),
            chance_as(world, f, me, 0, true),
        ) else {
            continue;
        };
        worth += (unalert - alerted) * bow.damage.mean();
    }
    worth
}

/// 000 §1.2.2 Draw weapon, §1.2.3 Grab object: what a weaponless character
/// does first.
fn draw_or_grab(s: &Asked, out: &mut Vec<Appraisal>) {
    if let Some(h) = s.world.get::<Hands>(s.me) {
        for w in &h.sheathed {
            out.push(Appraisal {
                other: 2.0,
                ..Appraisal::plain(Order::new(&s.name, "draw").with(w))
            });
        }
    }
    out.push(Appraisal {
        other: 1.5,
        ..Appraisal::plain(Order::new(&s.name, "grab"))
    });
}

/// What a character knocked out loses besides the blow that does it, in EN
/// of damage: all it could still do in the fight (ruling `unconscious`).
const KNOCKED_OUT: f32 = 10.0;

/// The chance that `a`'s blow knocks `t` out (ruling `unconscious`: EN at 0
/// or less), parried `parries` times at a cost of `spent` of `t`'s EN.
fn knockout_chance(world: &World, a: Entity, t: Entity, (parries, spent): (i32, i32)) -> f32 {
    let Some((p, w)) = chance(world, a, t, parries) else {
        return 0.0;
    };
    let Some(d) = weapon(world, &w) else {
        return 0.0;
    };
    let en = world.get::<En>(t).map_or(0, |x| x.current) - spent;
    p * d.damage.plus(prepared(world, a, &w)).chance_at_least(en)
}

/// 000 §1.2.5: a parry is worth the damage it spares, and the knockout,
/// against what it costs: its EN, and the attack it gives up when the blow
/// it spends was one an attack still needed.
fn parry(s: &Asked, attacker: Entity, target: Entity, out: &mut Vec<Appraisal>) {
    let (world, me) = (s.world, s.me);
    out.push(Appraisal::plain(Order::new(&s.name, "pass")));
    let cost = can_spend(world, me, Need { active: 0, any: 1 }).unwrap_or(99);
    // The parry's EN comes off the parrier: the target's own, parrying
    // for itself.
    let spent = if target == me { cost } else { 0 };
    let spared_knockout = knockout_chance(world, attacker, target, (0, 0))
        - knockout_chance(world, attacker, target, (1, spent));
    let before = attack_value(world, attacker, target, 0) + spared_knockout * KNOCKED_OUT;
    let after = attack_value(world, attacker, target, 1);
    let cost = cost as f32;
    let lost = if parry_costs_an_attack(world, me) {
        best_attack(s)
    } else {
        0.0
    };
    if parry_weapon(world, me).is_some() {
        out.push(Appraisal {
            other: (before - after) * 1.5 - cost * 0.5 - lost,
            ..Appraisal::plain(Order::new(&s.name, "parry"))
        });
    }
}

/// 000 §1.2.5: whether the blow a parry spends leaves `me` an attack fewer
/// this round, blows being spent as the rules spend them.
fn parry_costs_an_attack(world: &World, me: Entity) -> bool {
    let Some(b) = world.get::<super::Blows>(me) else {
        return false;
    };
    let heavy = attack_weapon(world, me)
        .and_then(|w| weapon(world, &w))
        .is_some_and(|d| d.heft == super::Heft::Heavy);
    let attack = Need::attack(heavy);
    let parry = Need { active: 0, any: 1 };
    parry
        .taken(b.active, b.reactive)
        .is_some_and(|(a, r)| attack.times(a, r) < attack.times(b.active, b.reactive))
}

/// 000 §1.2.5: the most an attack by the character asked is worth on a foe
/// within its weapon's reach.
fn best_attack(s: &Asked) -> f32 {
    let Some(w) = attack_weapon(s.world, s.me) else {
        return 0.0;
    };
    let reach = reach_of(s.world, s.me, &w);
    s.foes
        .iter()
        .filter(|&&f| distance(s.world, s.me, f).is_some_and(|d| d <= reach))
        .map(|&f| attack_value(s.world, s.me, f, 0))
        .fold(0.0, f32::max)
}

/// 000 §2.1: the noncombat options — rest (§2.1.1), cast a spell (§2.1.2),
/// adjust armour (§2.1.3).
fn noncombat(s: &Asked, out: &mut Vec<Appraisal>) {
    let (world, me) = (s.world, s.me);
    out.push(Appraisal::plain(Order::new(&s.name, "pass")));
    if let (Some(en), Some(stats)) = (world.get::<En>(me), world.get::<Stats>(me)) {
        // 000 §2.1.1: the lesser of the recovery rate and one less than the
        // EN spent last round; a rest that gains nothing is not worth the
        // movement it halves and the reactions it forbids (000 §3).
        let last = world.get::<super::Blows>(me).map_or(0, |b| b.en_last_round);
        let gain = stats.recovery.min(last - 1).min(en.max - en.current).max(0);
        if gain > 0 {
            out.push(Appraisal {
                other: gain as f32 * 0.5,
                ..Appraisal::plain(Order::new(&s.name, "rest"))
            });
        }
        spells(s, stats, out);
    }
    let o = Order::new(&s.name, "adjust_armour");
    if validate(world, me, &o).is_ok() {
        out.push(Appraisal {
            other: 3.0,
            ..Appraisal::plain(o)
        });
    }
}

/// 000 §2.1.2: each spell the character knows, cast on each foe it harms or
/// friend it mends, worth its effect less its EN.
fn spells(s: &Asked, stats: &Stats, out: &mut Vec<Appraisal>) {
    let (world, me) = (s.world, s.me);
    let data = &world.resource::<Data>().0;
    for sp in &stats.spells {
        let Some(spell) = data.spells.get(sp) else {
            continue;
        };
        let targets: &[Entity] = match spell.effect {
            super::data::SpellEffect::Harm(_) => &s.foes,
            super::data::SpellEffect::Mend(_) => &s.friends,
        };
        for &t in targets {
            let o = Order::new(&s.name, "cast").with(sp).target(s.flow.name(t));
            if validate(world, me, &o).is_err() {
                continue;
            }
            let worth = match spell.effect {
                super::data::SpellEffect::Harm(d) => d.mean(),
                super::data::SpellEffect::Mend(d) => world
                    .get::<En>(t)
                    .map_or(0.0, |x| ((x.max - x.current) as f32).min(d.mean())),
            };
            out.push(Appraisal {
                other: worth - spell.en_cost as f32 * 0.3,
                ..Appraisal::plain(o)
            });
        }
    }
}

/// 000 §3.1: stay, chase the trace of a running foe when the chase's 2"
/// leave it movement, or draw a trace toward the nearest foe that stops
/// within reach; an archer, only toward a foe beyond a preparation's range.
fn trace(s: &Asked, out: &mut Vec<Appraisal>) {
    let (world, me, flow, name) = (s.world, s.me, s.flow, &s.name);
    out.push(Appraisal::plain(Order::new(name, "stay")));
    let Some(f) = s.nearest else {
        return;
    };
    let d = distance(world, me, f).unwrap_or(0);
    let weapon_in_hand = attack_weapon(world, me);
    let reach = weapon_in_hand
        .as_ref()
        .map_or(1, |w| reach_of(world, me, w));
    // An archer stands to shoot, unless the nearest foe stands beyond even
    // a preparation's range (000 §1.2.4): then it walks up, unalert to
    // shoot (000 §1.2.5), until the foe is within the bow's range.
    let archer = missile_in_hand(world, me);
    let prepared = weapon_in_hand
        .as_deref()
        .and_then(|w| weapon(world, w))
        .map_or(0, |w| reach + w.range);
    if d <= reach || (archer && d <= prepared) {
        return;
    }
    // Run up unalert only when nobody could strike first in melee: the
    // fighter becomes alert as it stops (000 §3), out of the archers'
    // partial surprise.
    let movement = world.get::<Stats>(me).map_or(6, |s| s.movement);
    let far = s
        .foes
        .iter()
        .filter(|&&x| !missile_in_hand(world, x))
        .all(|&x| distance(world, me, x).is_none_or(|dx| dx > 2 * movement));
    let there = *world.get::<Cell>(f).unwrap_or(&Cell::new(0, 0));
    let grid = world.resource::<Grid>();
    let here = *world.get::<Cell>(me).unwrap_or(&there);
    let toward = grid
        .path_toward(here, there, reach, |c| {
            flow.roster
                .iter()
                .any(|(x, _)| *x != me && world.get::<Cell>(*x) == Some(&c))
        })
        .and_then(|(p, _)| p.last().copied());
    // An unalert foe is running: chase its trace (000 §3.1), unalert too,
    // to keep up. An unalert archer stands to shoot (000 §1.2.5): the trace
    // toward it stops within reach without the chase's 2" (000 §3.1).
    let running = !archer && !alert(world, f) && !missile_in_hand(world, f);
    if running && super::orders::chases(world, me, true) {
        out.push(Appraisal {
            other: 0.6,
            closing: d as f32,
            ..Appraisal::plain(
                Order::new(name, "chase")
                    .target(flow.name(f))
                    .with("unalert"),
            )
        });
    }
    if let Some(cell) = toward {
        let mut o = Order::new(name, "trace").cell(cell).target(flow.name(f));
        if far || archer {
            o = o.with("unalert");
        }
        out.push(Appraisal {
            other: 0.5,
            closing: d as f32,
            ..Appraisal::plain(o)
        });
    }
}

/// 000 §3.2.2: one who just ended its movement may attack a mover it
/// reaches; 000 §3: a fighter who ran up unalert becomes alert as it
/// stops, when that is worth something.
fn stopped(s: &Asked, out: &mut Vec<Appraisal>) {
    out.push(Appraisal::plain(Order::new(&s.name, "pass")));
    attacks(s, out);
    become_alert(s, Order::new(&s.name, "alert"), out);
}
