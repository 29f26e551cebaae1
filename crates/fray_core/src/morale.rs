//! Morale: who stands with a combatant and against it, the check itself and
//! the rout that follows a failure.
//!
//! rules/004 §Step 4 gives a formula (3d6 + modifiers against a target
//! number); rules/003 §Withdrawal Tactics leaves the check to the game
//! master. Each ruleset says when a check is due and what it adds; rolling,
//! wording and routing are the same everywhere and live here.

use bevy_ecs::prelude::*;

use crate::dice::{Dice, DiceExpr};
use crate::log::{Check, Event, EventKind, Modifier};
use crate::model::{Fighting, Side};

/// Broke and fled after a failed morale check: no longer fights.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Routed;

/// Those still fighting beside a combatant and against it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Standing {
    pub allies: i32,
    pub opponents: i32,
}

/// Who still fights beside `e` (itself not counted) and against it, among
/// `roster`.
pub fn standing(world: &World, roster: &[Entity], e: Entity) -> Standing {
    match world.get::<Side>(e) {
        Some(&side) => Census::of(world, roster).standing(side),
        None => Standing {
            allies: 0,
            opponents: 0,
        },
    }
}

/// How many of a roster still fight on each side, counted once for the
/// [`Standing`] of any of them.
pub struct Census(Vec<i32>);

impl Census {
    pub fn of(world: &World, roster: &[Entity]) -> Self {
        let mut counts: Vec<i32> = Vec::new();
        crate::model::each_fighting_side(world, roster.iter().copied(), |s| {
            if counts.len() <= s {
                counts.resize(s + 1, 0);
            }
            counts[s] += 1;
            std::ops::ControlFlow::Continue(())
        });
        Self(counts)
    }

    /// Who still fights beside one of `side` (itself not counted) and
    /// against it.
    pub fn standing(&self, side: Side) -> Standing {
        let allies = self.0.get(side.0).copied().unwrap_or(0);
        Standing {
            allies: (allies - 1).max(0),
            opponents: self.0.iter().sum::<i32>() - allies,
        }
    }

    /// The same for one of `side` no longer fighting itself (down, say):
    /// every one of its side still fighting is its ally.
    pub fn standing_apart(&self, side: Side) -> Standing {
        let allies = self.0.get(side.0).copied().unwrap_or(0);
        Standing {
            allies,
            opponents: self.0.iter().sum::<i32>() - allies,
        }
    }
}

/// A morale check due: who checks and why, the dice and modifiers, and what
/// the total must reach.
pub struct MoraleCheck<'a> {
    pub name: &'a str,
    pub rule: &'static str,
    /// What made the check due, in words.
    pub triggers: &'a [String],
    pub dice: DiceExpr,
    pub modifiers: Vec<Modifier>,
    pub target: i32,
    /// What the target stands for ("11 + 2 opponents").
    pub against: String,
}

/// Roll `check` and log it; true when it fails (the total is under the
/// target).
pub fn roll(world: &mut World, check: MoraleCheck) -> bool {
    roll_margin(world, check) < 0
}

/// Roll `check` and log it; the total less the target (negative: it fails
/// by that much), for a ruleset whose failures differ by how badly.
pub fn roll_margin(world: &mut World, check: MoraleCheck) -> i32 {
    let roll = world
        .resource_mut::<Dice>()
        .roll_for(check.dice, || format!("{}'s morale", check.name));
    let total = roll.total + check.modifiers.iter().map(|m| m.value).sum::<i32>();
    let failed = total < check.target;
    let margin = total - check.target;
    crate::log::record(world, || {
        let terms: String = check
            .modifiers
            .iter()
            .map(|m| match m.value {
                v if v < 0 => format!(" − {} {}", -v, m.name),
                v => format!(" + {v} {}", m.name),
            })
            .collect();
        // The target's make-up, where it has one ("11 + 3 opponents").
        let made_of = if check.against == check.target.to_string() {
            String::new()
        } else {
            format!(" ({})", check.against)
        };
        let text = format!(
            "{} checks morale ({}): {}{terms} = {total} against {}{made_of}: {}.",
            check.name,
            check.triggers.join("; "),
            roll.total,
            check.target,
            if failed { "fails" } else { "holds" }
        );
        Event::new(EventKind::Morale, check.rule, text)
            .actor(check.name)
            .check(Check {
                against: check.against,
                target: check.target,
                modifiers: check.modifiers,
                total,
                success: !failed,
            })
            .roll(roll)
    });
    margin
}

/// `e` breaks and flees after a failed check under `rule`: it no longer
/// fights.
pub fn rout(world: &mut World, e: Entity, rule: &'static str) {
    world.entity_mut(e).insert(Routed).remove::<Fighting>();
    let name = crate::model::name(world, e);
    crate::log::record(world, || {
        Event::new(
            EventKind::Rout,
            rule,
            format!("{name} breaks and flees; it no longer fights."),
        )
        .actor(&name)
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Combatant;

    fn world() -> (World, Vec<Entity>) {
        let mut w = World::new();
        w.insert_resource(crate::log::BattleLog::default());
        w.insert_resource(Dice::seeded(1).with_forced([3, 4, 2]));
        let roster = ["Grak", "Snig", "Anna", "Bren", "Cole"]
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let c = Combatant {
                    name: n.to_string(),
                    listing: i as u32,
                };
                w.spawn((c, Side(usize::from(i >= 2)), Fighting)).id()
            })
            .collect();
        (w, roster)
    }

    #[test]
    fn outnumbered_goblin_counts_its_ally_and_three_foes() {
        let (w, r) = world();
        let s = standing(&w, &r, r[0]);
        assert_eq!(
            s,
            Standing {
                allies: 1,
                opponents: 3
            }
        );
    }

    #[test]
    fn a_check_under_the_target_fails_and_routs() {
        let (mut w, r) = world();
        let triggers = ["is outnumbered 3 to 2".to_string()];
        let failed = roll(
            &mut w,
            MoraleCheck {
                name: "Grak",
                rule: "004 §Step 4",
                triggers: &triggers,
                dice: DiceExpr::new(3, 6),
                modifiers: vec![Modifier::new("Insight", -1), Modifier::new("allies", 1)],
                target: 14,
                against: "11 + 3 opponents".into(),
            },
        );
        assert!(failed, "3 + 4 + 2 - 1 + 1 = 9 < 14");
        rout(&mut w, r[0], "ruling morale_failure");
        assert!(w.get::<Fighting>(r[0]).is_none());
        assert_eq!(standing(&w, &r, r[2]).opponents, 1);
        assert_eq!(
            w.resource::<crate::log::BattleLog>().texts(),
            [
                "Grak checks morale (is outnumbered 3 to 2): 9 − 1 Insight + 1 allies = 9 against 14 (11 + 3 opponents): fails.",
                "Grak breaks and flees; it no longer fights."
            ]
        );
    }
}
