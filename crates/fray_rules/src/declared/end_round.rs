//! The end of the round: 004 §Wound Points (the dying bleed), §Step 4
//! (morale) and §Step 5 (ending combat).

use super::*;
use fray_core::log::EventKind;
use fray_core::model::Fighting;

/// 004 §Wound Points: a Dying creature loses 1 Wound Point at the end of
/// every round, unless stabilised; so does one who cannot breathe (ruling
/// `injury_effects`), and one both dying and unable to breathe loses both.
pub fn dying_lose_wound_points(world: &mut World) {
    let mut bleeding: Vec<(Entity, &'static str)> = Vec::new();
    for e in roster(world) {
        let (Some(&h), Some(hurts)) = (world.get::<Health>(e), world.get::<Hurts>(e)) else {
            continue;
        };
        if h == Health::Dead {
            continue;
        }
        if h == Health::Dying && world.get::<Stabilised>(e).is_none() {
            bleeding.push((e, "004 §Wound Points"));
        }
        if hurts.suffocating {
            bleeding.push((e, "ruling injury_effects"));
        }
    }
    world.resource_mut::<BattleLog>().time = "end of round".into();
    for (e, rule) in bleeding {
        if world.get::<Health>(e) == Some(&Health::Dead) {
            continue;
        }
        let name = world.resource::<Flow>().name(e).to_string();
        let why = if rule == "004 §Wound Points" {
            "is dying"
        } else {
            "cannot breathe"
        };
        world.resource_mut::<BattleLog>().push(
            Event::new(
                EventKind::Bleed,
                rule,
                format!("{name} {why} and loses 1 Wound Point."),
            )
            .actor(&name),
        );
        let cause = if rule == "004 §Wound Points" {
            Harm::Bleeding
        } else {
            Harm::Suffocation
        };
        resolve::mark_injury(world, e, cause, 1);
        resolve::lose_wound_points(world, e, 1, rule);
    }
}

/// 004 §Step 4: a monster's standing when it checks morale: its allies, the
/// opponents it faces and what made it check.
struct MoraleCheck {
    name: String,
    triggers: Vec<String>,
    allies: i32,
    /// Its side as it counts against the opponents: its allies, and itself
    /// if it still fights.
    side: i32,
    opponents: i32,
    /// Something besides an Intimidation calls for the check: a heavy hit,
    /// or being outnumbered.
    unaided: bool,
}

/// 004 §Step 4: a monster must check morale if it took more than half its
/// Wound Points in a single hit, is outnumbered, or was the target of an
/// Intimidation check.
fn morale_triggers(rs: &RoundState, wp: WoundPoints, side: i32, opponents: i32) -> Vec<String> {
    let mut triggers = Vec::new();
    if rs.worst_hit * 2 > wp.max {
        triggers.push(format!(
            "took {} Wound Points in a single hit, more than half its {}",
            rs.worst_hit, wp.max
        ));
    }
    if outnumbered(side, opponents) {
        triggers.push(format!("is outnumbered {opponents} to {side}"));
    }
    if let Some(i) = rs.intimidated {
        triggers.push(format!("was intimidated (check {i})"));
    }
    triggers
}

/// 004 §Step 4: a monster automatically fails its morale check if the
/// outcome is obvious to it (ruling `obvious_defeat`).
fn fail_obvious_defeat(world: &mut World, check: &MoraleCheck) {
    let MoraleCheck {
        name,
        triggers,
        side,
        opponents,
        ..
    } = check;
    world.resource_mut::<BattleLog>().push(
        Event::new(
            EventKind::Morale,
            "004 §Step 4 · ruling obvious_defeat",
            format!(
                "{name} must check morale ({}); facing {opponents} with {} on its side, the outcome is obvious and it fails.",
                triggers.join("; "),
                side
            ),
        )
        .actor(name),
    );
}

/// 004 §Step 4 Outnumbered: more opponents than its side (its allies, and
/// itself if it still fights).
pub(super) fn outnumbered(side: i32, opponents: i32) -> bool {
    opponents > side
}

/// Ruling `obvious_defeat`: the opponents are at least three times its side.
pub(super) fn obvious_defeat(data: &DeclaredData, side: i32, opponents: i32) -> bool {
    opponents >= data.ruling_numbers.obvious_defeat_ratio as i32 * side
}

/// 004 §Step 4: what a monster adds to its morale dice: its Insight
/// modifier, its HD and its allies, each by its name.
pub(super) fn morale_parts(stats: &Stats, allies: i32) -> [(&'static str, i32); 3] {
    [
        ("Insight", stats.insight_mod),
        ("HD", stats.hd as i32),
        ("allies", allies),
    ]
}

/// [`morale_parts`], as the roll lists them.
fn morale_modifiers(stats: &Stats, allies: i32) -> Vec<Modifier> {
    morale_parts(stats, allies)
        .into_iter()
        .map(|(name, value)| Modifier::new(name, value))
        .collect()
}

/// 004 §Step 4: the morale check's target without an Intimidation, 11 +
/// opponents.
pub(super) fn unaided_target(data: &DeclaredData, opponents: i32) -> i32 {
    data.numbers.morale_base_tn + opponents
}

/// 004 §Step 4: the morale check, 3d6 + Insight + HD + allies against 11 +
/// opponents or the opposing Intimidation check; true when it fails.
fn roll_morale(
    world: &mut World,
    data: &DeclaredData,
    check: &MoraleCheck,
    stats: &Stats,
    rs: &RoundState,
) -> bool {
    let (allies, opponents) = (check.allies, check.opponents);
    // 004 §Step 4: "11 plus the number of opponents ... (or an opposing
    // Intimidation check result)": the Intimidation result replaces it,
    // unless the monster must check anyway and 11 + opponents is harder
    // (ruling intimidate_action).
    let unaided = unaided_target(data, opponents);
    let (target, against) = match rs.intimidated {
        Some(i) if !check.unaided || i >= unaided => (i, "the Intimidation check".to_string()),
        Some(i) => (
            unaided,
            format!(
                "11 + {opponents} opponents, harder than the Intimidation check of {i} (ruling intimidate_action)"
            ),
        ),
        None => (unaided, format!("11 + {opponents} opponents")),
    };
    fray_core::morale::roll(
        world,
        fray_core::morale::MoraleCheck {
            name: &check.name,
            rule: "004 §Step 4 · ruling morale_facing",
            triggers: &check.triggers,
            dice: data.numbers.morale_dice,
            modifiers: morale_modifiers(stats, allies),
            target,
            against,
        },
    )
}

/// 004 §Step 4: monsters check morale at the end of each round when a
/// trigger applies; the check is 3d6 + Insight + HD + allies against 11 +
/// opponents (or the Intimidation result); an obvious outcome fails outright
/// (ruling `obvious_defeat`); a failure routs (ruling `morale_failure`).
pub fn morale_checks(world: &mut World) {
    let data = world.resource::<Data>().0.clone();
    let roster = roster(world);
    // Allies and opponents are counted once, as the round ends.
    let census = fray_core::morale::Census::of(world, &roster);
    let monsters: Vec<(Entity, fray_core::morale::Standing, bool)> = roster
        .iter()
        .filter(|&&e| world.get::<Monster>(e).is_some() && may_break(world, e))
        .map(|&e| {
            let fighting = world.get::<Fighting>(e).is_some();
            let standing = match world.get::<Side>(e) {
                Some(&side) if !fighting => census.standing_apart(side),
                Some(&side) => census.standing(side),
                None => fray_core::morale::standing(world, &roster, e),
            };
            (e, standing, fighting)
        })
        .collect();
    for (e, standing, fighting) in monsters {
        if !may_break(world, e) {
            continue;
        }
        let name = world.resource::<Flow>().name(e).to_string();
        let (stats, wp, rs) = match (
            world.get::<Stats>(e),
            world.get::<WoundPoints>(e),
            world.get::<RoundState>(e),
        ) {
            (Some(s), Some(w), Some(r)) => (s.clone(), *w, r.clone()),
            _ => continue,
        };
        let (allies, opponents) = (standing.allies, standing.opponents);
        let side = allies + i32::from(fighting);
        let triggers = morale_triggers(&rs, wp, side, opponents);
        if triggers.is_empty() {
            continue;
        }
        let check = MoraleCheck {
            name,
            triggers,
            allies,
            side,
            opponents,
            unaided: rs.worst_hit * 2 > wp.max || outnumbered(side, opponents),
        };
        let failed = if obvious_defeat(&data, side, opponents) {
            fail_obvious_defeat(world, &check);
            true
        } else {
            roll_morale(world, &data, &check, &stats, &rs)
        };
        if failed {
            fray_core::morale::rout(world, e, "ruling morale_failure");
        } else if rs.intimidated.is_some() {
            see_through(world, e);
        }
    }
}

/// Whether `e` may still break: not routed, fled, dead or paralysed. A
/// monster down at 0 Wound Points or below checks too: 004 §Step 4 spares
/// none, and the hit that felled it is often the one that calls for it.
pub(super) fn may_break(world: &World, e: Entity) -> bool {
    world.get::<Routed>(e).is_none()
        && world.get::<Fled>(e).is_none()
        && world.get::<Health>(e).is_some_and(|h| *h != Health::Dead)
        && !world.get::<Hurts>(e).is_some_and(|h| h.paralysed)
}

/// Ruling `intimidate_action`: a monster that holds against an
/// Intimidation cannot be intimidated again this battle.
fn see_through(world: &mut World, e: Entity) {
    world.entity_mut(e).insert(SawThrough);
    let name = world.resource::<Flow>().name(e).to_string();
    world.resource_mut::<BattleLog>().push(
        Event::new(
            EventKind::Morale,
            "ruling intimidate_action",
            format!("{name} has seen through the Intimidation: it cannot be intimidated again this battle."),
        )
        .actor(&name),
    );
}

/// 004 §Step 5: combat ends when one side (or nobody) is left fighting, and
/// the round cap ends it too. Surprise lasts the first round only.
pub fn end_of_round(world: &mut World) {
    for e in roster(world) {
        if world.get::<Surprised>(e).is_some() {
            world.entity_mut(e).remove::<Surprised>();
        }
    }
    let round = world.resource::<Flow>().round;
    fray_core::log::record(world, || {
        Event::new(
            EventKind::RoundEnd,
            "004 §Combat Procedure",
            format!("Round {round} ends."),
        )
    });
    if check_end(world) {
        return;
    }
    if fray_core::model::at_round_cap(world, round, "004 §Step 5", fray_core::model::no_winner) {
        world.resource_mut::<Flow>().stage = Stage::Over;
        return;
    }
    world.resource_mut::<Flow>().stage = Stage::BeginRound;
}

/// 004 §Step 5: if at most one side still fights, combat ends (ruling
/// `stopped_fighting`: the fallen have stopped).
pub fn check_end(world: &mut World) -> bool {
    if world.resource::<Outcome>().0.is_some() {
        return true;
    }
    let flow = world.resource::<Flow>();
    let everyone = flow.roster.into_iter().map(|(e, _)| *e);
    let Some(result) = fray_core::model::decided(world, everyone, flow.round) else {
        return false;
    };
    let round = flow.round;
    let mut text = match &result {
        BattleResult::Victory { side, .. } => {
            let name = world.resource::<Sides>().name(Side(*side)).to_string();
            format!(
                "Combat ends after {}: the only side still fighting is {name}, the winner.",
                rounds(round)
            )
        }
        _ => format!(
            "Combat ends: nobody is left fighting after {}.",
            rounds(round)
        ),
    };
    // How the others stopped fighting: defeated, routed or gone.
    let sides = world.resource::<Sides>().0.len();
    for side in (0..sides).filter(|&s| result.winner() != Some(s)) {
        let mut tally: Vec<(&str, u32)> = Vec::new();
        for e in roster(world) {
            if world.get::<Side>(e) != Some(&Side(side)) {
                continue;
            }
            let state = if world.get::<Fled>(e).is_some() {
                "fled"
            } else if world.get::<Routed>(e).is_some() {
                "routed"
            } else {
                match world.get::<Health>(e) {
                    Some(Health::Dead) => "dead",
                    Some(Health::Dying) => "dying",
                    Some(Health::Incapacitated) => "incapacitated",
                    _ if world.get::<Hurts>(e).is_some_and(|h| h.paralysed) => "paralysed",
                    _ => continue,
                }
            };
            match tally.iter_mut().find(|(k, _)| *k == state) {
                Some((_, n)) => *n += 1,
                None => tally.push((state, 1)),
            }
        }
        if !tally.is_empty() {
            let parts: Vec<String> = tally.iter().map(|(k, n)| format!("{n} {k}")).collect();
            let name = world.resource::<Sides>().name(Side(side)).to_string();
            text.push_str(&format!(" {name}: {}.", parts.join(", ")));
        }
    }
    world.resource_mut::<Flow>().stage = Stage::Over;
    fray_core::model::end_battle(world, result, || {
        Event::new(
            EventKind::End,
            "004 §Step 5 · ruling stopped_fighting",
            text,
        )
    });
    true
}

/// "1 round", "3 rounds".
fn rounds(n: u32) -> String {
    fray_core::model::count_of(n, "round")
}
