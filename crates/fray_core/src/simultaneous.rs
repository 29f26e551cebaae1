//! Acting at the same instant: the texts' ties (004 §Step 2, 001's tied
//! initiative, 003's tied sides). The tied act one at a time, so the log and
//! the window can follow each action, but what they deal is held and lands
//! together once the last has acted: a creature killed in the instant still
//! strikes, and two can drop each other.

/// A group acting at one instant: who is still to act (`S`), and the hits
/// (`H`) held until all have acted.
#[derive(Clone, Debug)]
pub struct Simultaneous<S, H> {
    acting: Vec<S>,
    together: bool,
    held: Vec<H>,
}

impl<S, H> Default for Simultaneous<S, H> {
    fn default() -> Self {
        Self {
            acting: Vec::new(),
            together: false,
            held: Vec::new(),
        }
    }
}

impl<S, H> Simultaneous<S, H> {
    /// The group acting at the next instant, in the order they are listed.
    pub fn begin(acting: Vec<S>) -> Self {
        Self {
            together: acting.len() > 1,
            acting,
            held: Vec::new(),
        }
    }

    /// Who is still to act.
    pub fn acting(&self) -> &[S] {
        &self.acting
    }

    /// Those still to act, to change what they will do.
    pub fn acting_mut(&mut self) -> &mut [S] {
        &mut self.acting
    }

    /// Whether everyone of the group has acted.
    pub fn is_empty(&self) -> bool {
        self.acting.is_empty()
    }

    /// Whether more than one acts at this instant.
    pub fn together(&self) -> bool {
        self.together
    }

    /// The next to act.
    pub fn next_to_act(&mut self) -> Option<S> {
        (!self.acting.is_empty()).then(|| self.acting.remove(0))
    }

    /// One whose action waits on others' answers goes on next, before the
    /// rest of the group, its hits held with theirs.
    pub fn act_next(&mut self, s: S) {
        self.acting.insert(0, s);
    }

    /// Take the hits held so far, for one member's action to add to: a
    /// member of a tie holds its hits (`Some`); one acting alone lands them
    /// at once (`None`).
    pub fn take_held(&mut self) -> Option<Vec<H>> {
        self.together.then(|| std::mem::take(&mut self.held))
    }

    /// Put back what one member's action held; once the last has acted,
    /// every hit held comes back to land now, in the order dealt.
    pub fn put_held(&mut self, held: Option<Vec<H>>) -> Vec<H> {
        let held = held.unwrap_or_default();
        if self.acting.is_empty() {
            held
        } else {
            self.held = held;
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_of_a_tie_land_together_after_the_last_has_acted() {
        let mut tie: Simultaneous<&str, u32> = Simultaneous::begin(vec!["Anna", "Bors"]);
        assert!(tie.together());
        assert_eq!(tie.next_to_act(), Some("Anna"));
        let mut held = tie.take_held();
        held.as_mut().unwrap().push(7);
        assert!(tie.put_held(held).is_empty(), "Bors has yet to act");
        assert_eq!(tie.next_to_act(), Some("Bors"));
        let mut held = tie.take_held();
        held.as_mut().unwrap().push(5);
        assert_eq!(tie.put_held(held), vec![7, 5]);
        assert!(tie.is_empty());
    }

    #[test]
    fn one_acting_alone_lands_its_hits_at_once() {
        let mut alone: Simultaneous<&str, u32> = Simultaneous::begin(vec!["Anna"]);
        assert!(!alone.together());
        assert_eq!(alone.next_to_act(), Some("Anna"));
        assert_eq!(alone.take_held(), None);
        assert!(alone.put_held(None).is_empty());
    }
}
