//! A spell in progress, and the damage that spoils it.
//!
//! rules/001 §Note about spells: a spell begins in the caster's initiative
//! segment and goes off when its casting time is over, unless an attack in
//! between interrupts and spoils it. rules/003 §II D and §Casting in Combat:
//! any damage before completion prevents casting for the rest of the round;
//! damage while actually casting also loses the spell from memory.
//!
//! Each ruleset says how damage spoils a casting with a [`Spoiling`] resource
//! and triggers [`Damaged`] when damage lands; the [`spoil`] observer does the
//! rest, once, for every ruleset.

use bevy_app::App;
use bevy_ecs::prelude::*;

use crate::log::{Event, EventKind};

/// What a spell does when it goes off, in a ruleset's data: the classic
/// texts (rules/001, rules/003) leave spells to the game master.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub enum SpellEffect {
    /// Damage to one enemy in range, without an attack roll.
    Damage(crate::dice::DiceExpr),
    /// Hit points restored to one ally in range.
    Heal(crate::dice::DiceExpr),
}

/// A spell in a ruleset's data: its casting time in the ruleset's units
/// (segments), its range in cells and its effect.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spell {
    pub casting_time: u32,
    pub range: u32,
    pub effect: SpellEffect,
}

impl Spell {
    pub fn harmful(&self) -> bool {
        matches!(self.effect, SpellEffect::Damage(_))
    }
}

/// A spell being cast: named, begun at `began` and going off at `completes`
/// (in the ruleset's own time: segments of a round, initiative counts).
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct Casting {
    pub spell: String,
    pub began: u32,
    pub completes: u32,
}

/// The spells a caster has memorised (rules/003: a spoiled spell is lost
/// from the list).
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
pub struct Memorised(pub Vec<String>);

impl Memorised {
    pub fn knows(&self, spell: &str) -> bool {
        self.0.iter().any(|s| s == spell)
    }

    /// Forget one memorisation of `spell`.
    pub fn forget(&mut self, spell: &str) {
        if let Some(i) = self.0.iter().position(|s| s == spell) {
            self.0.remove(i);
        }
    }
}

/// Damaged this round: no spell completes for the rest of it (rules/003
/// §Casting in Combat). The ruleset clears it with [`new_round`].
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Disrupted;

/// How damage spoils casting under a ruleset.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spoiling {
    /// The paragraph (or ruling) the log cites.
    pub rule: &'static str,
    /// The spell being cast is lost from memory.
    pub forget: bool,
    /// Any damage stops casting for the rest of the round, casting or not.
    pub rest_of_round: bool,
}

/// Damage has landed on `entity`. Rulesets trigger it where their text
/// applies damage; casting listens.
#[derive(EntityEvent, Clone, Copy, Debug)]
pub struct Damaged {
    pub entity: Entity,
    pub amount: i32,
}

/// Damage has landed on `e`: trigger [`Damaged`] and apply what it spoils
/// before the ruleset goes on.
pub fn damaged(world: &mut World, e: Entity, amount: i32) {
    world.trigger(Damaged { entity: e, amount });
    world.flush();
}

/// Adds the [`spoil`] observer.
pub fn plugin(app: &mut App) {
    app.add_observer(spoil);
}

/// A caster damaged while casting loses the spell (and forgets it, where
/// the ruleset says so); under `rest_of_round` any damage disrupts.
pub fn spoil(damaged: On<Damaged>, mut commands: Commands) {
    let e = damaged.entity;
    if damaged.amount <= 0 {
        return;
    }
    commands.queue(move |world: &mut World| spoil_now(world, e));
}

fn spoil_now(world: &mut World, e: Entity) {
    let Some(policy) = world.get_resource::<Spoiling>().copied() else {
        return;
    };
    if policy.rest_of_round && world.get::<Disrupted>(e).is_none() {
        world.entity_mut(e).insert(Disrupted);
    }
    let Some(casting) = world.entity_mut(e).take::<Casting>() else {
        return;
    };
    let who = crate::model::name(world, e);
    if policy.forget
        && let Some(mut memory) = world.get_mut::<Memorised>(e)
    {
        memory.forget(&casting.spell);
    }
    let lost = if policy.forget {
        "is spoiled and forgotten"
    } else {
        "is spoiled"
    };
    crate::log::record(world, || {
        Event::new(
            EventKind::Spoiled,
            policy.rule,
            format!(
                "{who} is struck while casting {}: the spell {lost}.",
                casting.spell
            ),
        )
        .actor(&who)
    });
}

/// Whether `e` may complete or begin a spell now.
pub fn may_cast(world: &World, e: Entity) -> bool {
    world.get::<Disrupted>(e).is_none()
}

/// A new round: disruption ends.
pub fn new_round(world: &mut World) {
    let disrupted: Vec<Entity> = world
        .query_filtered::<Entity, With<Disrupted>>()
        .iter(world)
        .collect();
    for e in disrupted {
        world.entity_mut(e).remove::<Disrupted>();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world(policy: Spoiling) -> (App, Entity) {
        let mut app = App::new();
        app.add_plugins(plugin);
        app.insert_resource(crate::log::BattleLog::default());
        app.insert_resource(policy);
        let e = app
            .world_mut()
            .spawn((
                crate::model::Combatant {
                    name: "Halvaine".into(),
                    listing: 0,
                },
                Memorised(vec!["sleep".into(), "sleep".into()]),
            ))
            .id();
        (app, e)
    }

    const SEGMENTS: Spoiling = Spoiling {
        rule: "001 §Note about spells",
        forget: false,
        rest_of_round: false,
    };

    #[test]
    fn a_blow_while_casting_spoils_the_spell() {
        let (mut app, e) = world(SEGMENTS);
        let w = app.world_mut();
        w.entity_mut(e).insert(Casting {
            spell: "sleep".into(),
            began: 4,
            completes: 6,
        });
        damaged(w, e, 3);
        assert!(w.get::<Casting>(e).is_none());
        assert_eq!(w.get::<Memorised>(e).unwrap().0.len(), 2);
        assert!(may_cast(w, e), "001 has no disruption beyond the spell");
        let log = w.resource::<crate::log::BattleLog>().texts();
        assert_eq!(
            log,
            ["Halvaine is struck while casting sleep: the spell is spoiled."]
        );
    }

    #[test]
    fn under_crucible_damage_disrupts_the_round_and_forgets_the_spell() {
        let (mut app, e) = world(Spoiling {
            rule: "003 §Casting in Combat",
            forget: true,
            rest_of_round: true,
        });
        let w = app.world_mut();
        damaged(w, e, 1);
        assert!(
            !may_cast(w, e),
            "struck before casting: no spell this round"
        );
        w.entity_mut(e).insert(Casting {
            spell: "sleep".into(),
            began: 1,
            completes: 3,
        });
        damaged(w, e, 2);
        assert_eq!(w.get::<Memorised>(e).unwrap().0, ["sleep"]);
        new_round(w);
        assert!(may_cast(w, e));
    }

    #[test]
    fn no_damage_spoils_nothing() {
        let (mut app, e) = world(SEGMENTS);
        let w = app.world_mut();
        w.entity_mut(e).insert(Casting {
            spell: "sleep".into(),
            began: 4,
            completes: 6,
        });
        damaged(w, e, 0);
        assert!(w.get::<Casting>(e).is_some());
    }
}
