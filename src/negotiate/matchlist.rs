//! The match list (negotiator.md section 6, HTCondor's `MatchListType`): the
//! candidates of the current (autocluster, submitter) sorted by the negotiator's
//! key, popped job after job, with a consumption-policy slot put back as HTCondor
//! puts it back.

use crate::matching::batch::{Candidate, RankKey};
use std::cmp::Ordering;
use std::collections::VecDeque;

/// How a match would take its slot, worst first as HTCondor orders them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PreemptState {
    /// Preempting the slot's job because the submitter's priority is better
    /// (`PREEMPTION_REQUIREMENTS`).
    Prio,
    /// Preempting because the slot's `Rank` prefers the new job.
    Rank,
    /// No preemption: the slot runs nothing.
    None,
}

impl PreemptState {
    /// The name the reports use.
    pub fn name(self) -> &'static str {
        match self {
            PreemptState::Prio => "prio",
            PreemptState::Rank => "rank",
            PreemptState::None => "none",
        }
    }
}

/// HTCondor's `-(FLT_MAX)`: the preemption rank of a candidate that preempts
/// nothing.
pub const NO_PREEMPTION_RANK: f64 = -(f32::MAX as f64);

/// One candidate of a match list.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry {
    /// The slot (index among the cycle's slots).
    pub slot: u32,
    /// PRE, the job's Rank, POST.
    pub key: RankKey,
    /// How it would be taken.
    pub state: PreemptState,
    /// `PREEMPTION_RANK`, or [`NO_PREEMPTION_RANK`].
    pub preempt_rank: f64,
}

impl Entry {
    /// The negotiator's order (section 6): PRE, Rank, POST, the preemption state,
    /// the preemption rank; larger first, a NaN below every number (section 12).
    pub fn cmp_key(&self, other: &Entry) -> Ordering {
        let norm = |x: f64| if x.is_nan() { f64::NEG_INFINITY } else { x };
        self.key
            .partial_cmp_key(&other.key)
            .then(self.state.cmp(&other.state))
            .then(
                norm(self.preempt_rank)
                    .partial_cmp(&norm(other.preempt_rank))
                    .unwrap_or(Ordering::Equal),
            )
    }

    /// True when `self` is strictly better than `other`.
    pub fn better_than(&self, other: &Entry) -> bool {
        self.cmp_key(other) == Ordering::Greater
    }
}

/// Sorts candidates best first, ties by slot order.
pub fn sort_entries(entries: &mut [Entry]) {
    entries.sort_unstable_by(|a, b| b.cmp_key(a).then(a.slot.cmp(&b.slot)));
}

/// A live match list.
#[derive(Clone, Debug)]
pub struct MatchList {
    entries: Vec<Entry>,
    head: usize,
    /// Candidates refused by the submitter limit, at the list's making and at
    /// each pop since.
    pub refused_by_limit: u32,
}

impl MatchList {
    /// A list of `entries`, sorted.
    pub fn new(mut entries: Vec<Entry>, refused_by_limit: u32) -> MatchList {
        sort_entries(&mut entries);
        MatchList {
            entries,
            head: 0,
            refused_by_limit,
        }
    }

    /// The next candidate, taken off the list.
    pub fn pop(&mut self) -> Option<Entry> {
        let e = self.entries.get(self.head).copied();
        if e.is_some() {
            self.head += 1;
        }
        e
    }

    /// Puts a consumption-policy slot back after it matched (HTCondor's
    /// `insert_candidate`): at the head, then moved down past each following
    /// entry it is better than, stopping at the first it is not. False when
    /// nothing was popped (there is no room at the head).
    pub fn put_back(&mut self, e: Entry) -> bool {
        if self.head == 0 {
            return false;
        }
        self.head -= 1;
        let mut at = self.head;
        while at + 1 < self.entries.len() && e.better_than(&self.entries[at + 1]) {
            self.entries[at] = self.entries[at + 1];
            at += 1;
        }
        self.entries[at] = e;
        true
    }

    /// The entries not popped yet, in order.
    #[cfg(test)]
    pub fn remaining(&self) -> &[Entry] {
        &self.entries[self.head..]
    }
}

/// A match list read as it is needed instead of made whole: the same list as
/// [`MatchList`] would hold, in the same order, for the usual case of many
/// candidates and few pops.
///
/// Its entries come from three places, in this order: `front` (entries already
/// taken out of the stream, such as those a put-back slot moved past), then the
/// merge of the static candidates (read a group of equal PRE, Rank and POST at a
/// time, each group sorted by the full key) and the `side` entries made whole
/// when the list was made (consumption-policy slots). The limit test that decides
/// whether a candidate is in the list at all is the one HTCondor runs when it
/// makes the list; the caller runs it with the values of that moment, which is
/// exact because the test only gets harder as a turn goes on.
#[derive(Clone, Debug, Default)]
pub struct LazyList {
    front: VecDeque<Entry>,
    group: VecDeque<Entry>,
    /// The last static candidate read (`None`: none yet): the next group
    /// starts after it.
    pub cursor: Option<Candidate>,
    side: Vec<Entry>,
    side_next: usize,
    /// Candidates refused by the submitter limit, at the list's making (as far
    /// as read) and at each pop since.
    pub refused_by_limit: u32,
}

/// Reads the next group of static entries: given the cursor and the refusal
/// count to advance, the group, sorted, or `None` at the end.
pub type Groups<'f> = dyn FnMut(&mut Option<Candidate>, &mut u32) -> Option<Vec<Entry>> + 'f;

impl LazyList {
    /// A list whose side entries are `side` (any order) and whose static entries
    /// `Groups` reads from the start.
    pub fn new(mut side: Vec<Entry>, refused_by_limit: u32) -> LazyList {
        sort_entries(&mut side);
        LazyList {
            side,
            refused_by_limit,
            ..LazyList::default()
        }
    }

    /// The next entry of the merged stream, without taking it, and whether it
    /// is the static group's head (else the next side entry).
    fn peek_stream(&mut self, groups: &mut Groups<'_>) -> Option<(Entry, bool)> {
        if self.group.is_empty() {
            if let Some(g) = groups(&mut self.cursor, &mut self.refused_by_limit) {
                self.group = g.into();
            }
        }
        let side = self.side.get(self.side_next).copied();
        match (self.group.front().copied(), side) {
            (Some(a), Some(b)) => {
                let a_first = a.cmp_key(&b).then(b.slot.cmp(&a.slot)) == Ordering::Greater;
                Some(if a_first { (a, true) } else { (b, false) })
            }
            (Some(a), None) => Some((a, true)),
            (None, b) => b.map(|b| (b, false)),
        }
    }

    /// The next entry, without taking it.
    fn peek(&mut self, groups: &mut Groups<'_>) -> Option<Entry> {
        match self.front.front() {
            Some(e) => Some(*e),
            None => self.peek_stream(groups).map(|(e, _)| e),
        }
    }

    /// Takes the next entry. Which list it came from is told by where it was
    /// found, not by comparing entries: an entry with a NaN in its key equals no
    /// entry, itself included, and was once taken for a side entry while it
    /// stayed at the group's head, the cycle spinning on it for ever.
    pub fn pop(&mut self, groups: &mut Groups<'_>) -> Option<Entry> {
        if let Some(e) = self.front.pop_front() {
            return Some(e);
        }
        let (e, from_group) = self.peek_stream(groups)?;
        if from_group {
            self.group.pop_front();
        } else {
            self.side_next += 1;
        }
        Some(e)
    }

    /// [`MatchList::put_back`]: at the head, then past each following entry
    /// `e` is better than.
    pub fn put_back(&mut self, e: Entry, groups: &mut Groups<'_>) {
        let mut passed = VecDeque::new();
        while let Some(next) = self.peek(groups) {
            if !e.better_than(&next) {
                break;
            }
            passed.push_back(self.pop(groups).expect("peeked"));
        }
        passed.push_back(e);
        passed.extend(self.front.drain(..));
        self.front = passed;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(slot: u32, pre: f64) -> Entry {
        Entry {
            slot,
            key: RankKey {
                pre,
                rank: 0.0,
                post: 0.0,
            },
            state: PreemptState::None,
            preempt_rank: NO_PREEMPTION_RANK,
        }
    }

    #[test]
    fn sorted_best_first_ties_by_slot() {
        let mut l = MatchList::new(vec![entry(3, 1.0), entry(1, 2.0), entry(0, 1.0)], 0);
        let order: Vec<u32> = std::iter::from_fn(|| l.pop()).map(|e| e.slot).collect();
        assert_eq!(order, [1, 0, 3]);
        let mut states = [entry(0, 1.0), entry(1, 1.0), entry(2, 1.0)];
        states[0].state = PreemptState::Prio;
        states[1].state = PreemptState::Rank;
        sort_entries(&mut states);
        assert_eq!(states.map(|e| e.slot), [2, 1, 0]);
    }

    #[test]
    fn a_slot_put_back_moves_past_what_it_beats_only() {
        let mut l = MatchList::new(
            vec![entry(0, 9.0), entry(1, 5.0), entry(2, 4.0), entry(3, 6.0)],
            0,
        );
        assert_eq!(l.pop().unwrap().slot, 0);
        // Better than the next two (5 and 4)? It is put at the head and moves
        // past 5 (it beats it) and 4, stopping at the end.
        assert!(l.put_back(entry(0, 7.0)));
        let order: Vec<u32> = l.remaining().iter().map(|e| e.slot).collect();
        assert_eq!(order, [3, 1, 2, 0]);
        let mut l = MatchList::new(vec![entry(0, 9.0), entry(1, 5.0)], 0);
        l.pop();
        assert!(l.put_back(entry(0, 5.0)), "equal: stays first");
        assert_eq!(l.remaining()[0].slot, 0);
        let mut empty = MatchList::new(vec![entry(0, 1.0)], 0);
        assert!(!empty.put_back(entry(0, 1.0)));
    }

    /// A lazy list over static groups and side entries gives the eager list's
    /// order, put-backs included.
    #[test]
    fn a_lazy_list_reads_as_the_whole_list_would() {
        let statics = [
            vec![entry(2, 9.0)],
            vec![entry(0, 6.0), entry(5, 6.0)],
            vec![entry(1, 3.0)],
        ];
        let side = vec![entry(4, 6.0), entry(3, 7.0), entry(6, 1.0)];
        let mut all: Vec<Entry> = statics
            .iter()
            .flatten()
            .copied()
            .chain(side.clone())
            .collect();
        let mut eager = MatchList::new(std::mem::take(&mut all), 0);
        let mut lazy = LazyList::new(side, 0);
        let mut next = 0;
        let mut groups = |_: &mut Option<Candidate>, _: &mut u32| {
            let g = statics.get(next).cloned();
            next += 1;
            g
        };
        for step in 0..3 {
            let (a, b) = (eager.pop(), lazy.pop(&mut groups));
            assert_eq!(a, b, "pop {step}");
        }
        eager.put_back(entry(9, 6.5));
        lazy.put_back(entry(9, 6.5), &mut groups);
        let rest_eager: Vec<u32> = std::iter::from_fn(|| eager.pop()).map(|e| e.slot).collect();
        let rest_lazy: Vec<u32> = std::iter::from_fn(|| lazy.pop(&mut groups))
            .map(|e| e.slot)
            .collect();
        assert_eq!(rest_eager, rest_lazy);
    }

    /// Entries whose keys hold a NaN (which equals nothing, itself included)
    /// leave the list they came from: the lazy list ends, in the eager order.
    #[test]
    fn a_lazy_list_with_nan_keys_ends() {
        let statics = [
            vec![entry(0, f64::NAN), entry(2, f64::NAN)],
            vec![entry(5, f64::NAN)],
        ];
        let side = vec![entry(1, f64::NAN), entry(4, 2.0)];
        let all: Vec<Entry> = statics
            .iter()
            .flatten()
            .copied()
            .chain(side.clone())
            .collect();
        let mut eager = MatchList::new(all, 0);
        let mut lazy = LazyList::new(side, 0);
        let mut next = 0;
        let mut groups = |_: &mut Option<Candidate>, _: &mut u32| {
            let g = statics.get(next).cloned();
            next += 1;
            g
        };
        let rest_eager: Vec<u32> = std::iter::from_fn(|| eager.pop()).map(|e| e.slot).collect();
        let rest_lazy: Vec<u32> = std::iter::from_fn(|| lazy.pop(&mut groups))
            .take(10)
            .map(|e| e.slot)
            .collect();
        assert_eq!(rest_lazy, rest_eager);
        assert_eq!(rest_lazy.len(), 5);
    }
}
