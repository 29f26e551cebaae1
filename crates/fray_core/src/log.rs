//! The battle log: the truth of what happened (DESIGN.md seam 5).
//!
//! Every state change is one [`LogEntry`]: sequence number, round, the
//! ruleset's own time mark, actor, event kind, rolls, the check the rolls were
//! made against (each modifier by name and the target number), the rule
//! reference and a sentence. The timeline, the log panel, replays and tests all
//! read it; `fray run --log FILE` writes it as JSON lines.

use std::io::{self, Write};

use bevy_ecs::resource::Resource;
use serde::{Deserialize, Serialize};

use crate::dice::Roll;

/// The kind of an event. Written in the log's JSON as its snake-case name
/// (`"late_action"`); the timeline marks some kinds ([`EventKind::label`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    AbilityDamage,
    Abort,
    Alert,
    Armour,
    Arrive,
    Attack,
    /// A spell begun, to go off later.
    BeginCast,
    Bleed,
    Block,
    Blocked,
    Breakage,
    Cast,
    Check,
    Combat,
    Critical,
    Damage,
    DamageRoll,
    Declare,
    Defend,
    Delay,
    Dodge,
    Draw,
    Drop,
    End,
    EndTurn,
    Fall,
    Fled,
    Grab,
    Heal,
    Health,
    Hit,
    Hold,
    Initiative,
    Injury,
    InjuryCheck,
    InjuryEffect,
    Intimidate,
    Join,
    Lapse,
    Late,
    LateAction,
    Lost,
    Manoeuvre,
    Miss,
    Morale,
    Move,
    NoAction,
    NoTarget,
    #[default]
    Note,
    Opportunity,
    Order,
    OutOfReach,
    Parry,
    Pass,
    Phase,
    Preparation,
    Prepare,
    Provoke,
    Readied,
    ReadiedAttack,
    Ready,
    RecoverFromStun,
    Recover,
    Recovery,
    Refused,
    Reload,
    Rest,
    Retarget,
    Reveal,
    Rise,
    Riposte,
    Round,
    RoundEnd,
    Rout,
    Simultaneous,
    Skill,
    Spoiled,
    Stabilise,
    Stop,
    Stopped,
    Strain,
    Stunned,
    Surprise,
    Surprised,
    Trace,
    Traces,
    Wait,
}

impl EventKind {
    /// Every kind, in alphabetical order of their names.
    pub const ALL: &'static [EventKind] = &[
        Self::AbilityDamage,
        Self::Abort,
        Self::Alert,
        Self::Armour,
        Self::Arrive,
        Self::Attack,
        Self::BeginCast,
        Self::Bleed,
        Self::Block,
        Self::Blocked,
        Self::Breakage,
        Self::Cast,
        Self::Check,
        Self::Combat,
        Self::Critical,
        Self::Damage,
        Self::DamageRoll,
        Self::Declare,
        Self::Defend,
        Self::Delay,
        Self::Dodge,
        Self::Draw,
        Self::Drop,
        Self::End,
        Self::EndTurn,
        Self::Fall,
        Self::Fled,
        Self::Grab,
        Self::Heal,
        Self::Health,
        Self::Hit,
        Self::Hold,
        Self::Initiative,
        Self::Injury,
        Self::InjuryCheck,
        Self::InjuryEffect,
        Self::Intimidate,
        Self::Join,
        Self::Lapse,
        Self::Late,
        Self::LateAction,
        Self::Lost,
        Self::Manoeuvre,
        Self::Miss,
        Self::Morale,
        Self::Move,
        Self::NoAction,
        Self::NoTarget,
        Self::Note,
        Self::Opportunity,
        Self::Order,
        Self::OutOfReach,
        Self::Parry,
        Self::Pass,
        Self::Phase,
        Self::Preparation,
        Self::Prepare,
        Self::Provoke,
        Self::Readied,
        Self::ReadiedAttack,
        Self::Ready,
        Self::RecoverFromStun,
        Self::Recover,
        Self::Recovery,
        Self::Refused,
        Self::Reload,
        Self::Rest,
        Self::Retarget,
        Self::Reveal,
        Self::Rise,
        Self::Riposte,
        Self::Round,
        Self::RoundEnd,
        Self::Rout,
        Self::Simultaneous,
        Self::Skill,
        Self::Spoiled,
        Self::Stabilise,
        Self::Stop,
        Self::Stopped,
        Self::Strain,
        Self::Stunned,
        Self::Surprise,
        Self::Surprised,
        Self::Trace,
        Self::Traces,
        Self::Wait,
    ];

    /// The name the log's JSON uses (`"late_action"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AbilityDamage => "ability_damage",
            Self::Abort => "abort",
            Self::Alert => "alert",
            Self::Armour => "armour",
            Self::Arrive => "arrive",
            Self::Attack => "attack",
            Self::Bleed => "bleed",
            Self::Block => "block",
            Self::Blocked => "blocked",
            Self::Breakage => "breakage",
            Self::BeginCast => "begin_cast",
            Self::Cast => "cast",
            Self::Check => "check",
            Self::Combat => "combat",
            Self::Critical => "critical",
            Self::Damage => "damage",
            Self::DamageRoll => "damage_roll",
            Self::Declare => "declare",
            Self::Defend => "defend",
            Self::Delay => "delay",
            Self::Dodge => "dodge",
            Self::Draw => "draw",
            Self::Drop => "drop",
            Self::End => "end",
            Self::EndTurn => "end_turn",
            Self::Fall => "fall",
            Self::Fled => "fled",
            Self::Grab => "grab",
            Self::Heal => "heal",
            Self::Health => "health",
            Self::Hit => "hit",
            Self::Hold => "hold",
            Self::Initiative => "initiative",
            Self::Injury => "injury",
            Self::InjuryCheck => "injury_check",
            Self::InjuryEffect => "injury_effect",
            Self::Intimidate => "intimidate",
            Self::Join => "join",
            Self::Lapse => "lapse",
            Self::Late => "late",
            Self::LateAction => "late_action",
            Self::Lost => "lost",
            Self::Manoeuvre => "manoeuvre",
            Self::Miss => "miss",
            Self::Morale => "morale",
            Self::Move => "move",
            Self::NoAction => "no_action",
            Self::NoTarget => "no_target",
            Self::Note => "note",
            Self::Opportunity => "opportunity",
            Self::Order => "order",
            Self::OutOfReach => "out_of_reach",
            Self::Parry => "parry",
            Self::Pass => "pass",
            Self::Phase => "phase",
            Self::Preparation => "preparation",
            Self::Prepare => "prepare",
            Self::Provoke => "provoke",
            Self::Readied => "readied",
            Self::ReadiedAttack => "readied_attack",
            Self::Ready => "ready",
            Self::RecoverFromStun => "recover_from_stun",
            Self::Recover => "recover",
            Self::Recovery => "recovery",
            Self::Refused => "refused",
            Self::Reload => "reload",
            Self::Rest => "rest",
            Self::Retarget => "retarget",
            Self::Reveal => "reveal",
            Self::Rise => "rise",
            Self::Riposte => "riposte",
            Self::Round => "round",
            Self::RoundEnd => "round_end",
            Self::Rout => "rout",
            Self::Simultaneous => "simultaneous",
            Self::Skill => "skill",
            Self::Spoiled => "spoiled",
            Self::Stabilise => "stabilise",
            Self::Stop => "stop",
            Self::Stopped => "stopped",
            Self::Strain => "strain",
            Self::Stunned => "stunned",
            Self::Surprise => "surprise",
            Self::Surprised => "surprised",
            Self::Trace => "trace",
            Self::Traces => "traces",
            Self::Wait => "wait",
        }
    }

    /// How the timeline marks the kind (`None`: not marked).
    pub fn label(self) -> Option<&'static str> {
        Some(match self {
            Self::Riposte => "RIPOSTE",
            Self::Opportunity => "AoO",
            Self::Parry => "PARRY",
            Self::Reveal => "revealed",
            Self::Traces => "traces",
            Self::Trace => "trace",
            Self::Breakage => "breakage",
            Self::Prepare => "great blow",
            Self::Manoeuvre => "manoeuvre",
            Self::Pass => "pass",
            Self::Readied | Self::ReadiedAttack => "READIED",
            Self::Abort => "ABORT",
            Self::Delay => "delay",
            Self::Ready => "ready",
            Self::Lapse => "lapse",
            Self::Provoke => "provokes",
            Self::Stunned => "stunned",
            Self::Block => "block",
            Self::Dodge => "dodge",
            Self::Attack => "attack",
            Self::BeginCast => "casting",
            Self::Cast => "spell",
            Self::Move => "move",
            Self::Declare => "declared",
            Self::Arrive => "ARRIVES",
            Self::LateAction => "late -12",
            Self::Simultaneous => "tie",
            Self::Spoiled => "SPOILED",
            Self::Morale => "morale",
            Self::Stabilise => "stabilise",
            Self::Health => "down",
            _ => return None,
        })
    }

    /// How the log panel tints an entry of this kind.
    /// Whether it cuts into another's action, at the moment of that action:
    /// a riposte, an attack of opportunity, a parry, an abort, a readied
    /// action going off.
    pub fn cuts_in(self) -> bool {
        matches!(
            self,
            Self::Riposte | Self::Opportunity | Self::Parry | Self::Abort | Self::ReadiedAttack
        )
    }

    /// Whether its actor now waits to act later: a readied, held, delayed
    /// or waiting action.
    pub fn waits(self) -> bool {
        matches!(
            self,
            Self::Ready | Self::Readied | Self::Hold | Self::Delay | Self::Wait
        )
    }

    pub fn tone(self) -> Tone {
        match self {
            Self::Damage | Self::Health | Self::Injury | Self::Spoiled => Tone::Harm,
            Self::Attack | Self::Riposte | Self::Cast | Self::BeginCast => Tone::Blow,
            Self::Round | Self::RoundEnd | Self::Order => Tone::Time,
            Self::Refused => Tone::Refused,
            Self::End => Tone::End,
            _ => Tone::Plain,
        }
    }
}

impl std::fmt::Display for EventKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How an event reads in the log panel: what it does to the battle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// Harm done, a fall.
    Harm,
    /// An attack, a riposte, a spell.
    Blow,
    /// A round begins or ends, an order of play.
    Time,
    /// An order the rules refused.
    Refused,
    /// The battle ends.
    End,
    Plain,
}

/// A named number added to a roll ("Agility +2", "Full defense +4").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Modifier {
    pub name: String,
    pub value: i32,
}

impl Modifier {
    pub fn new(name: impl Into<String>, value: i32) -> Self {
        Self {
            name: name.into(),
            value,
        }
    }
}

/// A roll measured against a target number, with its breakdown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// What the total was compared with ("Defense", "TN").
    pub against: String,
    /// The number to meet or beat.
    pub target: i32,
    /// Modifiers added to the dice, by name.
    pub modifiers: Vec<Modifier>,
    /// Dice plus modifiers.
    pub total: i32,
    pub success: bool,
}

/// One thing that happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogEntry {
    /// 1, 2, 3 … in the order things happened.
    pub seq: u64,
    /// The round (or turn) it happened in; 0 before the first.
    pub round: u32,
    /// The ruleset's own time mark ("initiative 8", "segment 4", "phase 12").
    pub time: String,
    /// Who did it, if anyone.
    pub actor: Option<String>,
    /// The kind of event (`attack`, `damage`, `declare`, `morale` …).
    pub event: EventKind,
    /// Where the text says so (`004 §Step 2`), or the ruling applied.
    pub rule: String,
    /// Every die rolled for it.
    #[serde(default)]
    pub rolls: Vec<Roll>,
    /// The check the rolls were made against, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<Check>,
    /// Whom it was done to, if anyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Damage taken (or healed, negative), for the window's floating numbers:
    /// by the target where the entry names one, else by the actor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<i32>,
    /// A sentence a player can read.
    pub text: String,
}

impl LogEntry {
    /// The entry as a line of a printed battle: `[R2 initiative 8] text (004 §Step 2)`.
    pub fn sentence(&self) -> String {
        let mut s = String::with_capacity(self.text.len() + 40);
        if self.round > 0 {
            s.push_str(&format!("[round {}", self.round));
            if !self.time.is_empty() {
                s.push_str(", ");
                s.push_str(&self.time);
            }
            s.push_str("] ");
        }
        s.push_str(&self.text);
        for roll in &self.rolls {
            s.push_str(&format!(" {{{roll}}}"));
        }
        s.push_str(&format!(" ({})", self.rule));
        s
    }
}

/// What a rules system fills in to log something; the log numbers it.
#[derive(Clone, Debug, Default)]
pub struct Event {
    pub actor: Option<String>,
    pub event: EventKind,
    pub rule: String,
    pub rolls: Vec<Roll>,
    pub check: Option<Check>,
    pub target: Option<String>,
    pub amount: Option<i32>,
    pub text: String,
}

impl Event {
    /// An event of `kind` under `rule`, saying `text`.
    pub fn new(kind: EventKind, rule: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            event: kind,
            rule: rule.into(),
            text: text.into(),
            ..Default::default()
        }
    }

    pub fn actor(mut self, name: impl AsRef<str>) -> Self {
        self.actor = Some(name.as_ref().to_owned());
        self
    }

    pub fn roll(mut self, roll: Roll) -> Self {
        self.rolls.push(roll);
        self
    }

    pub fn rolls(mut self, rolls: impl IntoIterator<Item = Roll>) -> Self {
        self.rolls.extend(rolls);
        self
    }

    pub fn check(mut self, check: Check) -> Self {
        self.check = Some(check);
        self
    }

    pub fn target(mut self, name: impl AsRef<str>) -> Self {
        self.target = Some(name.as_ref().to_owned());
        self
    }

    pub fn amount(mut self, amount: i32) -> Self {
        self.amount = Some(amount);
        self
    }
}

/// `items` joined by ", " between `before` and `after`, or nothing when
/// there are none: `aside(" (DCV: ", &words, ")")`.
pub fn aside(before: &str, items: &[String], after: &str) -> String {
    if items.is_empty() {
        String::new()
    } else {
        format!("{before}{}{after}", items.join(", "))
    }
}

/// Record an event in the world's log; its text is only built when the log
/// keeps entries (a batch of battles counts them without building them).
pub fn record(world: &mut bevy_ecs::world::World, event: impl FnOnce() -> Event) {
    world.resource_mut::<BattleLog>().add(event);
}

/// Whether the battle's log keeps its entries, so that words for them are
/// read (a world with no log is taken as keeping them).
pub fn kept(world: &bevy_ecs::world::World) -> bool {
    world
        .get_resource::<BattleLog>()
        .is_none_or(BattleLog::keeps)
}

/// Words for an entry that read the world, built only when the log keeps
/// entries (else empty: the entry is only counted, and nobody reads them).
pub fn if_kept(
    world: &bevy_ecs::world::World,
    words: impl FnOnce(&bevy_ecs::world::World) -> String,
) -> String {
    if kept(world) {
        words(world)
    } else {
        String::new()
    }
}

/// Mark the entries that follow with the time `time` words, in the
/// ruleset's own terms ("initiative 8"): only for a log that keeps them,
/// as nobody reads the mark of one that only counts them.
pub fn mark_time(
    world: &mut bevy_ecs::world::World,
    time: impl FnOnce(&bevy_ecs::world::World) -> String,
) {
    if kept(world) {
        let time = time(world);
        world.resource_mut::<BattleLog>().time = time;
    }
}

/// The battle's log, a resource.
#[derive(Resource, Debug, Clone)]
pub struct BattleLog {
    entries: Vec<LogEntry>,
    next_seq: u64,
    /// The round and time mark entries are stamped with.
    pub round: u32,
    pub time: String,
    /// When false (batch simulation), entries are counted but not kept.
    keep: bool,
}

impl Default for BattleLog {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
            next_seq: 1,
            round: 0,
            time: String::new(),
            keep: true,
        }
    }
}

impl BattleLog {
    /// A log that counts entries without keeping them, for batches of battles.
    pub fn counting_only() -> Self {
        Self {
            keep: false,
            ..Self::default()
        }
    }

    /// Make `there`, a fork's log, this one's: its entries kept (a copy) or
    /// only counted, numbered on from this one's. The fork's room is reused.
    pub fn fork_into(&self, keep: bool, there: &mut Self) {
        if keep {
            there.entries.clone_from(&self.entries);
        } else {
            there.entries.clear();
        }
        there.next_seq = self.next_seq;
        there.round = self.round;
        there.time.clone_from(&self.time);
        there.keep = keep && self.keep;
    }

    /// Whether entries are kept (callers may skip building costly text when not).
    pub fn keeps(&self) -> bool {
        self.keep
    }

    /// Add the event `event` builds, building it only when the log keeps
    /// entries (else it is only counted).
    pub fn add(&mut self, event: impl FnOnce() -> Event) {
        if self.keep {
            self.push(event());
        } else {
            self.count_one();
        }
    }

    /// Record `event` at the current round and time mark.
    pub fn push(&mut self, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        if !self.keep {
            return;
        }
        self.entries.push(LogEntry {
            seq,
            round: self.round,
            time: self.time.clone(),
            actor: event.actor,
            event: event.event,
            rule: event.rule,
            rolls: event.rolls,
            check: event.check,
            target: event.target,
            amount: event.amount,
            text: event.text,
        });
    }

    /// Count an entry without building it (a log that keeps nothing).
    pub fn count_one(&mut self) {
        self.next_seq += 1;
    }

    pub fn entries(&self) -> &[LogEntry] {
        &self.entries
    }

    /// The sentences of the entries kept, in order.
    pub fn texts(&self) -> Vec<String> {
        self.entries.iter().map(|e| e.text.clone()).collect()
    }

    /// Number of entries made so far, kept or not.
    pub fn count(&self) -> u64 {
        self.next_seq - 1
    }

    /// Write every entry as one JSON object per line.
    pub fn write_json_lines(&self, out: &mut impl Write) -> io::Result<()> {
        self.write_json_lines_until(out, u64::MAX)
    }

    /// The log as JSON lines, up to the entry numbered `until`.
    pub fn write_json_lines_until(&self, out: &mut impl Write, until: u64) -> io::Result<()> {
        for entry in self.entries.iter().take_while(|e| e.seq <= until) {
            serde_json::to_writer(&mut *out, entry)?;
            out.write_all(b"\n")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::SmolStr;
    use crate::dice::Dice;

    #[test]
    fn entries_are_numbered_and_stamped() {
        let mut log = BattleLog {
            round: 2,
            time: "initiative 8".into(),
            ..BattleLog::default()
        };
        let roll = Dice::seeded(1).with_forced([17]).die(20, "attack");
        log.push(
            Event::new(EventKind::Attack, "004 §Defense", "Brienne hits the ghoul.")
                .actor("Brienne")
                .roll(roll),
        );
        log.push(Event::new(EventKind::Note, "004 §Step 5", "Combat ends."));
        let e = &log.entries()[0];
        assert_eq!((e.seq, e.round, e.time.as_str()), (1, 2, "initiative 8"));
        assert_eq!(
            e.sentence(),
            "[round 2, initiative 8] Brienne hits the ghoul. {1d20 [17] = 17} (004 §Defense)"
        );
        assert_eq!(log.entries()[1].seq, 2);
        let mut out = Vec::new();
        log.write_json_lines(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        for key in [
            "seq", "round", "time", "actor", "event", "rule", "rolls", "text",
        ] {
            assert!(first.get(key).is_some(), "missing {key}");
        }
        assert_eq!(first["rolls"][0]["faces"][0], 17);
    }

    #[test]
    fn counting_only_keeps_nothing() {
        let mut log = BattleLog::counting_only();
        log.push(Event::new(EventKind::Note, "x", "y"));
        assert_eq!((log.count(), log.entries().len()), (1, 0));
    }

    #[test]
    fn an_event_is_built_only_for_a_log_that_keeps_it() {
        let mut built = 0;
        let mut counting = BattleLog::counting_only();
        counting.add(|| {
            built += 1;
            Event::new(EventKind::Note, "x", "y")
        });
        assert_eq!(
            (counting.count(), counting.entries().len(), built),
            (1, 0, 0)
        );
        let mut keeping = BattleLog::default();
        keeping.add(|| {
            built += 1;
            Event::new(EventKind::Note, "x", "y").actor(SmolStr::new("Anna"))
        });
        assert_eq!((keeping.count(), built), (1, 1));
        assert_eq!(keeping.entries()[0].actor.as_deref(), Some("Anna"));
    }
}
