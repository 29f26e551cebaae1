//! Dice: notation, a seeded generator with a fixed algorithm, forced faces and
//! the record of every roll (DESIGN.md seam 4).
//!
//! Notation is what the texts write: `d6`, `3d6`, `2D10`, `d%` (a hundred-sided
//! die), `D40`, `1d12-2`, `5d8+15`. The generator is PCG32 (`rand_pcg::Pcg32`,
//! XSH RR 64/32) seeded from the battle's seed; a face is drawn with Lemire's
//! unbiased multiply-and-reject, so the same seed gives the same faces on every
//! machine and every build. Forced faces (a scenario's `dice` field or
//! `--dice 8,3,12`) are used first, one per die, in order; when they run out the
//! seeded generator takes over.
//!
//! The futures a searching AI plays out use dice keyed by purpose
//! ([`Dice::keyed`]): the k-th roll of a purpose ("Grusk's hit roll on
//! Brienne") shows the same faces in every future played from one seed,
//! whatever else was rolled before it, so two futures differ by the orders
//! given in them and not by which die fell to whom.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::str::FromStr;

use bevy_ecs::resource::Resource;
use rand_core::Rng;
use rand_pcg::Pcg32;
use serde::{Deserialize, Serialize};

/// A dice expression: `count` dice of `sides` faces, plus `modifier`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DiceExpr {
    pub count: u32,
    pub sides: u32,
    pub modifier: i32,
}

impl DiceExpr {
    /// `count` dice of `sides` faces with no modifier.
    pub const fn new(count: u32, sides: u32) -> Self {
        Self {
            count,
            sides,
            modifier: 0,
        }
    }

    /// The same dice with `modifier` added.
    pub const fn plus(self, modifier: i32) -> Self {
        Self {
            modifier: self.modifier + modifier,
            ..self
        }
    }

    /// Smallest possible total.
    pub fn min(&self) -> i32 {
        self.count as i32 + self.modifier
    }

    /// Largest possible total.
    pub fn max(&self) -> i32 {
        (self.count * self.sides) as i32 + self.modifier
    }

    /// Average total.
    pub fn mean(&self) -> f32 {
        self.count as f32 * (self.sides as f32 + 1.0) / 2.0 + self.modifier as f32
    }

    /// The chance of each total from [`DiceExpr::min`] to [`DiceExpr::max`],
    /// counted over every way the dice can fall; `None` for dice with more
    /// totals than [`ODDS_TOTALS`], whose odds are not worth counting.
    pub fn odds(&self) -> Option<Vec<f64>> {
        let span = (self.count as usize).checked_mul(self.sides.saturating_sub(1) as usize)?;
        if self.sides == 0 || span >= ODDS_TOTALS || self.count as usize > ODDS_TOTALS {
            return None;
        }
        // The ways of each total of the dice rolled so far, one die at a time.
        let mut ways = vec![1.0f64];
        for _ in 0..self.count {
            let mut next = vec![0.0; ways.len() + self.sides as usize - 1];
            for (t, w) in ways.iter().enumerate() {
                for face in 0..self.sides as usize {
                    next[t + face] += w;
                }
            }
            ways = next;
        }
        let all: f64 = ways.iter().sum();
        Some(ways.into_iter().map(|w| w / all).collect())
    }
}

impl DiceExpr {
    /// The chance of a total of `k` or more: counted where
    /// [`DiceExpr::odds`] counts, else spread evenly from least to most.
    pub fn chance_at_least(&self, k: i32) -> f32 {
        if k <= self.min() {
            return 1.0;
        }
        if k > self.max() {
            return 0.0;
        }
        match self.odds() {
            Some(odds) => odds[(k - self.min()) as usize..].iter().sum::<f64>() as f32,
            None => (self.max() - k + 1) as f32 / (self.max() - self.min() + 1) as f32,
        }
    }
}

/// The most totals [`DiceExpr::odds`] counts the chances of.
pub const ODDS_TOTALS: usize = 1_000;

impl fmt::Display for DiceExpr {
    /// Canonical notation: `1d12-2`, `3d6`, `5d8+15`, `1d%`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.sides == 100 {
            write!(f, "{}d%", self.count)?;
        } else {
            write!(f, "{}d{}", self.count, self.sides)?;
        }
        match self.modifier {
            0 => Ok(()),
            m if m > 0 => write!(f, "+{m}"),
            m => write!(f, "{m}"),
        }
    }
}

/// Why a piece of dice notation could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiceParseError {
    /// The text as given.
    pub input: String,
    /// Character offset (0-based) where the problem is.
    pub at: usize,
    pub message: String,
}

impl fmt::Display for DiceParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad dice notation {:?} at character {}: {}",
            self.input,
            self.at + 1,
            self.message
        )
    }
}

impl std::error::Error for DiceParseError {}

/// Most dice one expression may roll, and most faces a die may have.
const MAX_COUNT: u32 = 1000;
const MAX_SIDES: u32 = 10_000;

impl FromStr for DiceExpr {
    type Err = DiceParseError;

    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let err = |at: usize, message: &str| DiceParseError {
            input: input.to_string(),
            at,
            message: message.to_string(),
        };
        let s = input.trim();
        let lead = input.len() - input.trim_start().len();
        let bytes = s.as_bytes();
        let mut i = 0;
        let digits = |i: &mut usize| -> Option<(u64, usize)> {
            let start = *i;
            let mut value: u64 = 0;
            while *i < bytes.len() && bytes[*i].is_ascii_digit() {
                value = value
                    .saturating_mul(10)
                    .saturating_add(u64::from(bytes[*i] - b'0'));
                *i += 1;
            }
            (*i > start).then_some((value, start))
        };
        if s.is_empty() {
            return Err(err(0, "empty; expected something like 3d6 or 1d12-2"));
        }
        let count = match digits(&mut i) {
            Some((n, at)) => {
                if n == 0 || n > u64::from(MAX_COUNT) {
                    return Err(err(
                        lead + at,
                        &format!("the number of dice must be 1 to {MAX_COUNT}"),
                    ));
                }
                n as u32
            }
            None => 1,
        };
        if i >= bytes.len() || !(bytes[i] == b'd' || bytes[i] == b'D') {
            return Err(err(lead + i, "expected 'd' (as in 3d6)"));
        }
        i += 1;
        let sides = if i < bytes.len() && bytes[i] == b'%' {
            i += 1;
            100
        } else {
            match digits(&mut i) {
                Some((n, at)) => {
                    if n < 2 || n > u64::from(MAX_SIDES) {
                        return Err(err(
                            lead + at,
                            &format!("a die must have 2 to {MAX_SIDES} faces"),
                        ));
                    }
                    n as u32
                }
                None => {
                    return Err(err(
                        lead + i,
                        "expected the number of faces after 'd' (as in d6) or '%'",
                    ));
                }
            }
        };
        let mut modifier: i64 = 0;
        if i < bytes.len() {
            let sign = match bytes[i] {
                b'+' => 1,
                b'-' => -1,
                _ => {
                    return Err(err(
                        lead + i,
                        "expected '+' or '-' and a number, or the end",
                    ));
                }
            };
            i += 1;
            match digits(&mut i) {
                Some((n, at)) => {
                    if n > 1_000_000 {
                        return Err(err(lead + at, "modifier too large"));
                    }
                    modifier = sign * n as i64;
                }
                None => return Err(err(lead + i, "expected a number after the sign")),
            }
        }
        if i < bytes.len() {
            return Err(err(lead + i, "unexpected text after the dice"));
        }
        Ok(DiceExpr {
            count,
            sides,
            modifier: modifier as i32,
        })
    }
}

impl Serialize for DiceExpr {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for DiceExpr {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// One roll as it happened: what was rolled, the faces, the total, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Roll {
    /// Canonical notation of what was rolled (`1d20`, `3d6`, `1d%`).
    pub notation: String,
    /// Each die's face, in the order rolled.
    pub faces: Vec<u32>,
    /// The expression's own modifier.
    pub modifier: i32,
    /// Faces plus modifier.
    pub total: i32,
    /// What the roll was for ("Brienne's attack on the ghoul").
    pub purpose: String,
    /// True when any face came from the forced list.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub forced: bool,
}

impl Roll {
    /// The sum of the faces alone.
    pub fn face_sum(&self) -> i32 {
        self.faces.iter().map(|&f| f as i32).sum()
    }

    /// The single face of a one-die roll (0 if there is none).
    pub fn natural(&self) -> u32 {
        self.faces.first().copied().unwrap_or(0)
    }
}

impl fmt::Display for Roll {
    /// `3d6 [4, 2, 6] = 12`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [", self.notation)?;
        for (i, face) in self.faces.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{face}")?;
        }
        write!(f, "] = {}", self.total)
    }
}

/// A forced face that cannot be a face of the die it was given to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForcedFaceError {
    pub face: u32,
    pub sides: u32,
    /// Position of the face in the forced list (1-based).
    pub index: usize,
    pub purpose: String,
}

impl fmt::Display for ForcedFaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "forced die #{} is {}, which is not a face of a d{} (rolled for {})",
            self.index, self.face, self.sides, self.purpose
        )
    }
}

impl std::error::Error for ForcedFaceError {}

/// Parse a forced-dice list as given on the command line: `8,3,12`.
pub fn parse_forced(text: &str) -> Result<Vec<u32>, String> {
    text.split(',')
        .map(str::trim)
        .enumerate()
        .map(|(i, part)| {
            part.parse::<u32>()
                .ok()
                .filter(|&f| f > 0)
                .ok_or_else(|| format!("die #{} {:?} is not a positive whole number", i + 1, part))
        })
        .collect()
}

/// The battle's one source of randomness.
#[derive(Resource, Clone, Debug)]
pub struct Dice {
    rng: Pcg32,
    forced: VecDeque<u32>,
    forced_used: usize,
    /// The first forced face that did not fit its die; the battle stops on it.
    error: Option<ForcedFaceError>,
    /// Dice keyed by purpose, for a future played out: each roll drawn
    /// from a generator of its own.
    keyed: Option<Keyed>,
    /// Whether a roll carries its notation and purpose in words: a battle
    /// whose log keeps nothing reads neither.
    described: bool,
}

/// Dice keyed by purpose: the seed, and how often each purpose (by its
/// hash) has been rolled for.
#[derive(Clone, Debug)]
struct Keyed {
    seed: u64,
    /// By the purpose's hash, looked up as it is.
    rolled: HashMap<u64, u64, bevy_platform::hash::NoOpHash>,
}

impl Keyed {
    /// The generator of the next roll for `purpose`: its own, from the
    /// seed, the purpose and how often it was rolled for before.
    fn next(&mut self, purpose: &str) -> Pcg32 {
        // FNV-1a: the same hash on every machine and build.
        let key = purpose.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        let n = self.rolled.entry(key).or_insert(0);
        *n += 1;
        let state = self.seed ^ key.rotate_left(17) ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        Pcg32::new(state, STREAM)
    }
}

/// PCG32's default stream, so a seed alone fixes the sequence.
const STREAM: u64 = 0x0a02_bdbf_7bb3_c0a7;

impl Dice {
    /// A generator seeded with `seed`.
    pub fn seeded(seed: u64) -> Self {
        Self {
            rng: Pcg32::new(seed ^ 0xcafe_f00d_d15e_a5e5, STREAM),
            forced: VecDeque::new(),
            forced_used: 0,
            error: None,
            keyed: None,
            described: true,
        }
    }

    /// Dice keyed by purpose, seeded with `seed`: the k-th roll of each
    /// purpose shows the same faces for the same seed, whatever was rolled
    /// before it (for the futures a searching AI compares).
    pub fn keyed(seed: u64) -> Self {
        Self {
            keyed: Some(Keyed {
                seed,
                rolled: HashMap::default(),
            }),
            ..Self::seeded(seed)
        }
    }

    /// The same dice, their rolls described in words or not: a roll not
    /// described has an empty notation, and an empty purpose when it was
    /// asked for with [`Dice::roll_for`] and nothing needs it (the faces
    /// are the same either way).
    pub fn described(mut self, described: bool) -> Self {
        self.described = described;
        self
    }

    /// The same generator, but the next dice show `faces` first.
    pub fn with_forced(mut self, faces: impl IntoIterator<Item = u32>) -> Self {
        self.forced.extend(faces);
        self
    }

    /// Forced faces not yet used.
    pub fn forced_left(&self) -> usize {
        self.forced.len()
    }

    /// The first forced face that did not fit its die, if any.
    pub fn error(&self) -> Option<&ForcedFaceError> {
        self.error.as_ref()
    }

    /// One face of a die with `sides` faces.
    fn face(&mut self, sides: u32, purpose: &str, forced: &mut bool) -> u32 {
        if let Some(face) = self.forced.pop_front() {
            self.forced_used += 1;
            if face >= 1 && face <= sides {
                *forced = true;
                return face;
            }
            if self.error.is_none() {
                self.error = Some(ForcedFaceError {
                    face,
                    sides,
                    index: self.forced_used,
                    purpose: purpose.to_string(),
                });
            }
        }
        // Lemire's nearly-divisionless unbiased range reduction.
        let range = sides;
        loop {
            let x = self.rng.next_u32();
            let m = u64::from(x) * u64::from(range);
            let low = m as u32;
            if low >= range || low >= range.wrapping_neg() % range {
                return (m >> 32) as u32 + 1;
            }
        }
    }

    /// Roll `expr` for the purpose `purpose` gives, put in words only when
    /// something reads it: rolls described, dice keyed by purpose, or a
    /// forced face waiting (whose misfit names it).
    pub fn roll_for(&mut self, expr: DiceExpr, purpose: impl FnOnce() -> String) -> Roll {
        let needed = self.described || self.keyed.is_some() || !self.forced.is_empty();
        self.roll(expr, if needed { purpose() } else { String::new() })
    }

    /// Roll `expr` for `purpose`.
    pub fn roll(&mut self, expr: DiceExpr, purpose: impl Into<String>) -> Roll {
        let purpose = purpose.into();
        let mut forced = false;
        let own = self.keyed.as_mut().map(|k| k.next(&purpose));
        let kept = own.map(|rng| std::mem::replace(&mut self.rng, rng));
        let faces: Vec<u32> = (0..expr.count)
            .map(|_| self.face(expr.sides, &purpose, &mut forced))
            .collect();
        if let Some(rng) = kept {
            self.rng = rng;
        }
        let total = faces.iter().map(|&f| f as i32).sum::<i32>() + expr.modifier;
        Roll {
            notation: if self.described {
                expr.to_string()
            } else {
                String::new()
            },
            faces,
            modifier: expr.modifier,
            total,
            purpose,
            forced,
        }
    }

    /// Roll one die of `sides` faces for `purpose`.
    pub fn die(&mut self, sides: u32, purpose: impl Into<String>) -> Roll {
        self.roll(DiceExpr::new(1, sides), purpose)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> DiceExpr {
        s.parse().unwrap()
    }

    #[test]
    fn keyed_dice_roll_a_purpose_alike_whatever_was_rolled_before() {
        let hit = DiceExpr::new(3, 6);
        let mut one = Dice::keyed(9);
        one.die(6, "Brienne's hit roll on Grusk");
        let first = one.roll(hit, "Grusk's hit roll on Brienne");
        let mut other = Dice::keyed(9);
        other.die(20, "Wren's hit roll on Harl");
        other.die(20, "Wren's hit roll on Harl");
        other.roll(DiceExpr::new(2, 6), "morale");
        assert_eq!(
            other.roll(hit, "Grusk's hit roll on Brienne").faces,
            first.faces
        );
        // The second roll of the purpose is a roll of its own.
        let again = |mut d: Dice| {
            d.roll(hit, "Grusk's hit roll on Brienne");
            d.roll(hit, "Grusk's hit roll on Brienne").faces
        };
        let mut busy = Dice::keyed(9);
        busy.die(8, "Harl's damage to Wren");
        assert_eq!(again(Dice::keyed(9)), again(busy));
        assert_ne!(again(Dice::keyed(9)), first.faces);
        // One stream for everything would not do it.
        let mut seeded = Dice::seeded(9);
        seeded.die(20, "Wren's hit roll on Harl");
        assert_ne!(
            seeded.roll(hit, "Grusk's hit roll on Brienne").faces,
            first.faces
        );
    }

    #[test]
    fn undescribed_dice_show_the_same_faces_without_words() {
        let hit = DiceExpr::new(3, 6);
        let mut told = Dice::seeded(4);
        let mut quiet = Dice::seeded(4).described(false);
        let mut asked = 0;
        for _ in 0..20 {
            let a = told.roll_for(hit, || "Brienne's hit roll".to_string());
            let b = quiet.roll_for(hit, || {
                asked += 1;
                "Brienne's hit roll".to_string()
            });
            assert_eq!((&a.faces, a.total), (&b.faces, b.total));
            assert_eq!(
                (a.notation.as_str(), a.purpose.as_str()),
                ("3d6", "Brienne's hit roll")
            );
            assert_eq!((b.notation.as_str(), b.purpose.as_str()), ("", ""));
        }
        assert_eq!(asked, 0, "nothing read the purpose");
        // Keyed dice draw by the purpose, and a forced face that does not
        // fit its die names it: both put it in words.
        let keyed = Dice::keyed(4)
            .described(false)
            .roll_for(hit, || "hit".into());
        assert_eq!(keyed.purpose, "hit");
        let mut forced = Dice::seeded(4).described(false).with_forced([9]);
        forced.roll_for(DiceExpr::new(1, 6), || "hit".into());
        assert_eq!(forced.error().map(|e| e.purpose.as_str()), Some("hit"));
    }

    #[test]
    fn keyed_dice_show_every_face_as_often() {
        let mut dice = Dice::keyed(3);
        let mut counts = [0u32; 6];
        for i in 0..6_000 {
            let face = dice.die(6, format!("roll {}", i % 600)).total;
            counts[face as usize - 1] += 1;
        }
        assert!(
            counts.iter().all(|&c| (900..=1_100).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn notation_from_the_texts() {
        assert_eq!(parse("d6"), DiceExpr::new(1, 6));
        assert_eq!(parse("3d6"), DiceExpr::new(3, 6));
        assert_eq!(parse("2D10"), DiceExpr::new(2, 10));
        assert_eq!(parse("d%"), DiceExpr::new(1, 100));
        assert_eq!(parse("D40"), DiceExpr::new(1, 40));
        assert_eq!(parse("1d12-2"), DiceExpr::new(1, 12).plus(-2));
        assert_eq!(parse("5d8+15"), DiceExpr::new(5, 8).plus(15));
        assert_eq!(parse(" 1d12+1 "), DiceExpr::new(1, 12).plus(1));
    }

    #[test]
    fn odds_count_every_way_the_dice_fall() {
        let two = DiceExpr::new(2, 6).odds().unwrap();
        assert_eq!(two.len(), 11);
        assert_eq!(two[0], 1.0 / 36.0, "2 on 2d6");
        assert_eq!(two[5], 6.0 / 36.0, "7 on 2d6");
        let three = DiceExpr::new(3, 6).odds().unwrap();
        assert_eq!(three[10 - 3] * 216.0, 27.0, "10 on 3d6");
        assert_eq!(DiceExpr::new(1, 20).odds().unwrap(), vec![0.05; 20]);
        assert_eq!(DiceExpr::new(0, 6).odds().unwrap(), vec![1.0]);
        assert_eq!(DiceExpr::new(100, 100).odds(), None, "too many totals");
        let two = DiceExpr::new(2, 8);
        assert_eq!(two.chance_at_least(2), 1.0);
        assert_eq!(two.chance_at_least(16), 1.0 / 64.0);
        assert_eq!(two.chance_at_least(15), 3.0 / 64.0);
        assert_eq!(two.chance_at_least(17), 0.0);
        assert_eq!(DiceExpr::new(1, 6).plus(2).chance_at_least(6), 0.5);
        assert_eq!(DiceExpr::new(u32::MAX, 1).odds(), None, "too many dice");
    }

    #[test]
    fn notation_prints_canonically() {
        assert_eq!(parse("d6").to_string(), "1d6");
        assert_eq!(parse("5d8+15").to_string(), "5d8+15");
        assert_eq!(parse("1d12-2").to_string(), "1d12-2");
        assert_eq!(parse("d%").to_string(), "1d%");
    }

    #[test]
    fn bad_notation_says_where_and_what() {
        let e = "3x6".parse::<DiceExpr>().unwrap_err();
        assert_eq!(e.at, 1);
        assert!(e.message.contains("expected 'd'"), "{e}");
        let e = "d".parse::<DiceExpr>().unwrap_err();
        assert_eq!(e.at, 1);
        assert!(e.message.contains("number of faces"), "{e}");
        let e = "2d6+".parse::<DiceExpr>().unwrap_err();
        assert_eq!(e.at, 4);
        let e = "2d6x".parse::<DiceExpr>().unwrap_err();
        assert_eq!(e.at, 3);
        let e = "0d6".parse::<DiceExpr>().unwrap_err();
        assert!(e.message.contains("number of dice"), "{e}");
        let e = "d1".parse::<DiceExpr>().unwrap_err();
        assert!(e.message.contains("2 to"), "{e}");
        assert!("".parse::<DiceExpr>().is_err());
        assert!("99999999999999999999d6".parse::<DiceExpr>().is_err());
        assert_eq!(
            e.to_string(),
            "bad dice notation \"d1\" at character 2: a die must have 2 to 10000 faces"
        );
    }

    #[test]
    fn forced_faces_come_first_then_the_seed() {
        let mut dice = Dice::seeded(7).with_forced([8, 3, 12]);
        let r = dice.roll(parse("1d12-2"), "initiative");
        assert_eq!((r.faces.clone(), r.total, r.forced), (vec![8], 6, true));
        let r = dice.roll(parse("2d12"), "two");
        assert_eq!((r.faces, r.total), (vec![3, 12], 15));
        let mut plain = Dice::seeded(7);
        let mut after = dice.clone();
        // Forced faces do not advance the generator.
        assert_eq!(plain.die(20, "x").faces, after.die(20, "x").faces);
    }

    #[test]
    fn forced_face_too_big_is_reported() {
        let mut dice = Dice::seeded(1).with_forced([7]);
        let r = dice.die(6, "Brienne's damage");
        assert!((1..=6).contains(&r.faces[0]));
        let e = dice.error().unwrap();
        assert_eq!(
            e.to_string(),
            "forced die #1 is 7, which is not a face of a d6 (rolled for Brienne's damage)"
        );
    }

    #[test]
    fn same_seed_same_faces_different_seed_different_faces() {
        let roll = |seed| {
            let mut d = Dice::seeded(seed);
            (0..50).map(|_| d.die(20, "t").faces[0]).collect::<Vec<_>>()
        };
        assert_eq!(roll(3), roll(3));
        assert_ne!(roll(3), roll(4));
        assert!(roll(3).iter().all(|f| (1..=20).contains(f)));
    }

    #[test]
    fn the_generator_is_pinned() {
        // A change to the algorithm changes every recorded battle: this pins it.
        let mut d = Dice::seeded(42);
        let faces: Vec<u32> = (0..8).map(|_| d.die(6, "t").faces[0]).collect();
        assert_eq!(faces, PINNED_D6_SEED_42);
    }

    const PINNED_D6_SEED_42: [u32; 8] = [1, 6, 3, 5, 3, 4, 2, 2];

    #[test]
    fn faces_cover_the_die_evenly() {
        let mut d = Dice::seeded(9);
        let mut counts = [0u32; 6];
        for _ in 0..6000 {
            counts[d.die(6, "t").faces[0] as usize - 1] += 1;
        }
        assert!(
            counts.iter().all(|&c| (850..1150).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn forced_list_parses() {
        assert_eq!(parse_forced("8,3,12"), Ok(vec![8, 3, 12]));
        assert_eq!(parse_forced(" 8, 3 "), Ok(vec![8, 3]));
        assert_eq!(
            parse_forced("8,x"),
            Err("die #2 \"x\" is not a positive whole number".to_string())
        );
        assert!(parse_forced("0").is_err());
    }
}
