//! What consumption-policy slots offer classes, kept while each slot stays as
//! it is (negotiator.md section 7.2): one dense array per class over the
//! consumption-policy slots, made when the class first asks.
//!
//! A hash map keyed by (class, slot) did this before. At 2,000 classes and 515
//! such slots it held a million entries, rehashed as it grew and was cleared
//! at its bound: a second of the 100,000-slot cycle on one thread, more than
//! the offers it kept cost to work out on two.

use super::Offer;
use crate::matching::batch::RankKey;
use std::collections::VecDeque;

/// How many (class, consumption-policy slot) states the cycle keeps at most.
const ENTRIES: usize = 1 << 20;

/// What a consumption-policy slot offers a class at one version of the slot.
#[derive(Clone, Copy, Debug)]
pub(super) struct CpState {
    pub version: u32,
    /// The slot holds what the job consumes and matches it.
    pub matches: bool,
    /// The cost of the match (the trial deduction).
    pub cost: f64,
    /// PRE, the job's Rank, POST (when it matches).
    pub key: RankKey,
}

impl CpState {
    pub fn of(o: Offer, version: u32) -> CpState {
        CpState {
            version,
            matches: o.matches,
            cost: o.cost,
            key: o.key,
        }
    }
}

/// Per class, what each consumption-policy slot offered it, at the version of
/// the slot it was worked out for.
pub(super) struct CpMemo {
    /// Per slot, its place among the consumption-policy slots (`u32::MAX`:
    /// it has no consumption policy).
    place: Vec<u32>,
    places: usize,
    classes: ahash::AHashMap<u32, Box<[Option<CpState>]>>,
    /// The classes in the order their arrays were made: past the bound the
    /// oldest goes, and a class asked again costs its offers once more.
    made: VecDeque<u32>,
    /// How many classes' arrays are kept at most.
    kept: usize,
}

impl CpMemo {
    /// A memo over `consumption_slots` (slot numbers below `slots`).
    pub fn new(consumption_slots: &[usize], slots: usize) -> CpMemo {
        CpMemo::bounded(consumption_slots, slots, ENTRIES)
    }

    fn bounded(consumption_slots: &[usize], slots: usize, entries: usize) -> CpMemo {
        let mut place = vec![u32::MAX; slots];
        for (i, &s) in consumption_slots.iter().enumerate() {
            place[s] = i as u32;
        }
        let places = consumption_slots.len();
        CpMemo {
            place,
            places,
            classes: ahash::AHashMap::new(),
            made: VecDeque::new(),
            kept: (entries / places.max(1)).max(1),
        }
    }

    /// What `slot` offered `class` when the slot was at `version`.
    pub fn get(&self, class: u32, slot: usize, version: u32) -> Option<CpState> {
        let states = self.classes.get(&class)?;
        let st = states[self.place[slot] as usize]?;
        (st.version == version).then_some(st)
    }

    /// Keeps what `slot` (a consumption-policy slot) offers `class`.
    pub fn keep(&mut self, class: u32, slot: usize, st: CpState) {
        let place = self.place[slot] as usize;
        if let Some(states) = self.classes.get_mut(&class) {
            states[place] = Some(st);
            return;
        }
        if self.made.len() >= self.kept {
            if let Some(oldest) = self.made.pop_front() {
                self.classes.remove(&oldest);
            }
        }
        let mut states = vec![None; self.places].into_boxed_slice();
        states[place] = Some(st);
        self.classes.insert(class, states);
        self.made.push_back(class);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(version: u32, cost: f64) -> CpState {
        CpState {
            version,
            matches: true,
            cost,
            key: RankKey {
                pre: 0.0,
                rank: 0.0,
                post: 0.0,
            },
        }
    }

    #[test]
    fn a_state_is_found_only_for_its_class_slot_and_version() {
        let mut memo = CpMemo::new(&[2, 5], 8);
        memo.keep(7, 5, state(0, 1.5));
        assert_eq!(memo.get(7, 5, 0).map(|s| s.cost), Some(1.5));
        assert!(memo.get(7, 5, 1).is_none(), "the slot changed since");
        assert!(memo.get(7, 2, 0).is_none(), "another slot");
        assert!(memo.get(3, 5, 0).is_none(), "another class");
        memo.keep(7, 5, state(1, 2.5));
        assert_eq!(memo.get(7, 5, 1).map(|s| s.cost), Some(2.5));
        assert!(memo.get(7, 5, 0).is_none(), "replaced");
    }

    #[test]
    fn past_the_bound_the_oldest_class_goes() {
        // Two slots and four entries: two classes' arrays.
        let mut memo = CpMemo::bounded(&[0, 1], 2, 4);
        for class in 0..3 {
            memo.keep(class, 0, state(0, class as f64));
            memo.keep(class, 1, state(0, class as f64));
        }
        assert!(memo.get(0, 0, 0).is_none(), "the oldest went");
        assert_eq!(memo.get(1, 1, 0).map(|s| s.cost), Some(1.0));
        assert_eq!(memo.get(2, 0, 0).map(|s| s.cost), Some(2.0));
        assert_eq!(memo.classes.len(), 2);
    }
}
