//! The accountant's `CheckMatches` (negotiator.md section 17) on a living
//! pool, done on what changed: the claims of the slots whose view as the
//! accountant reads it ([`Resource`]) changed since the last check, of the
//! slots that left, and those the last cycle's matches made. Every other
//! claim is as the last check left it, and checking it again leaves it so:
//! a claimed slot's claim is its customer's, and a claim's slot is there
//! and claimed by its customer (or `Matched`).
//!
//! Slots that share a name are checked at every cycle: the check reads the
//! first of them, and the others' claims replace each other.

use crate::negotiate::accounts::{Accounts, Resource};
use smallvec::SmallVec;
use std::collections::BTreeSet;

/// What the accountant last checked of each slot, and the names to check.
#[derive(Debug, Default)]
pub(super) struct ClaimIndex {
    /// Per slot place, the slot as the last check read it (`None`: out of
    /// the cycle's slots, or no name).
    checked: Vec<Option<Resource>>,
    /// Per name, the places of the slots of that name, in order.
    by_name: ahash::AHashMap<String, SmallVec<[u32; 1]>>,
    /// Names more than one slot has.
    shared: BTreeSet<String>,
    /// Names whose slots changed, or that the last cycle charged.
    dirty: BTreeSet<String>,
    /// The last check was of everything.
    checked_once: bool,
}

impl ClaimIndex {
    /// Slot `place` reads as `now` to the accountant (`None`: it left, or
    /// is out of the cycle's slots).
    pub(super) fn set(&mut self, place: u32, now: Option<&Resource>) {
        let at = place as usize;
        if self.checked.len() <= at {
            self.checked.resize(at + 1, None);
        }
        if self.checked[at].as_ref() == now {
            return;
        }
        if let Some(old) = self.checked[at].take() {
            let places = self.by_name.get_mut(&old.name).expect("indexed");
            places.retain(|p| *p != place);
            match places.len() {
                0 => {
                    self.by_name.remove(&old.name);
                }
                1 => {
                    self.shared.remove(&old.name);
                }
                _ => {}
            }
            self.dirty.insert(old.name);
        }
        if let Some(r) = now {
            let places = self.by_name.entry(r.name.clone()).or_default();
            let i = places.partition_point(|p| *p < place);
            places.insert(i, place);
            if places.len() > 1 {
                self.shared.insert(r.name.clone());
            }
            self.dirty.insert(r.name.clone());
            self.checked[at] = Some(r.clone());
        }
    }

    /// The last cycle's matches made claims of these names.
    pub(super) fn charged(&mut self, names: Vec<String>) {
        self.dirty.extend(names);
    }

    /// `CheckMatches` at `now` on `accounts`: every claim and slot the
    /// first time, then the names that changed.
    pub(super) fn check(&mut self, accounts: &mut Accounts, now: i64) {
        let dirty = std::mem::take(&mut self.dirty);
        if !self.checked_once {
            self.checked_once = true;
            let all: Vec<Resource> = self.checked.iter().flatten().cloned().collect();
            accounts.check_matches(&all, now);
            return;
        }
        let names: Vec<String> = dirty.union(&self.shared).cloned().collect();
        let mut places: Vec<u32> = names
            .iter()
            .filter_map(|n| self.by_name.get(n))
            .flatten()
            .copied()
            .collect();
        places.sort_unstable();
        let checked = &self.checked;
        let claimed: Vec<&Resource> = places
            .iter()
            .filter_map(|&p| checked[p as usize].as_ref())
            .collect();
        let first = |name: &str| {
            let p = *self.by_name.get(name)?.first()?;
            checked[p as usize].as_ref()
        };
        accounts.check_matches_of(&names, first, &claimed, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over random changes of slots (names shared, customers moved, slots
    /// `Matched`, leaving) and charges between checks, the check of what
    /// changed leaves the accountant as the whole check does.
    #[test]
    fn checking_what_changed_is_the_whole_check() {
        let mut rng = crate::test_rng::TestRng::new(3);
        let mut whole = Accounts::new(0, 86400.0, Vec::new());
        let mut some = whole.clone();
        let mut index = ClaimIndex::default();
        let mut slots: Vec<Option<Resource>> = vec![None; 12];
        for round in 1..200i64 {
            let now = round * 60;
            for _ in 0..rng.below(4) {
                let place = rng.below(slots.len() as u64) as usize;
                slots[place] = (rng.below(5) > 0).then(|| Resource {
                    name: format!("slot{}@h", rng.below(14)),
                    customer: (rng.below(3) > 0).then(|| format!("u{}@d", rng.below(3))),
                    matched: rng.below(6) == 0,
                    weight: (1 + rng.below(3)) as f64,
                });
                index.set(place as u32, slots[place].as_ref());
            }
            let all: Vec<Resource> = slots.iter().flatten().cloned().collect();
            whole.update_priorities(now);
            some.update_priorities(now);
            whole.check_matches(&all, now);
            index.check(&mut some, now);
            assert_eq!(format!("{whole:?}"), format!("{some:?}"), "round {round}");
            // A cycle's matches charged, on slots and elsewhere.
            let mut charged = Vec::new();
            for _ in 0..rng.below(3) {
                let name = format!("slot{}@h", rng.below(14));
                let customer = format!("u{}@d", rng.below(3));
                whole.add_match(&customer, &name, 1.0, now);
                some.add_match(&customer, &name, 1.0, now);
                charged.push(name);
            }
            if rng.below(4) == 0 {
                whole.add_cp_match("u0@d", "slot1@h", 0.5, now);
                some.add_cp_match("u0@d", "slot1@h", 0.5, now);
                charged.push("slot1@h_cp_match_000".to_string());
            }
            index.charged(charged);
        }
    }
}
