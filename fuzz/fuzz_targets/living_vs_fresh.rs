//! The living pool (`classad::negotiate::living`) against fresh cycles, on
//! the seeded pools of `tests/gen/negotiation_pools.rs`: changes and cycles
//! interleaved as the input says (the changes of
//! `tests/gen/living_sequences.rs`: jobs and slots added, changed and
//! removed, matches made into claims and carved slots, claims released, the
//! clock moved), each cycle the one a fresh `Pool::with_accounts` gives on
//! the same ads and accountant state, leaving the same accountant.
#![no_main]

#[allow(dead_code, unused_imports)]
#[path = "../../tests/gen/mod.rs"]
mod gen;

use gen::living_sequences::Sequence;
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use std::fmt;

/// A pool of the generator (its master seed, index, and whether it has
/// groups), and the steps: each a change drawn from its bits, followed by a
/// cycle when its top bit is set (and always after the last).
#[derive(Arbitrary)]
struct Case {
    master: u64,
    index: u16,
    groups: bool,
    steps: Vec<u64>,
}

impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (_, pool) = Sequence::new(self.master, usize::from(self.index), self.groups);
        write!(f, "steps {:#x?}\n{pool}", self.steps)
    }
}

fuzz_target!(|case: Case| {
    // Sixty-four changes at most: a longer input says nothing new.
    let steps = &case.steps[..case.steps.len().min(64)];
    let (mut s, _) = Sequence::new(case.master, usize::from(case.index), case.groups);
    let mut log = Vec::new();
    if let Err(d) = s.cycle() {
        panic!("the first cycle differs:\n{d}\n{case:?}");
    }
    for (i, &bits) in steps.iter().enumerate() {
        log.push(s.change(bits));
        if bits >> 63 == 1 || i + 1 == steps.len() {
            if let Err(d) = s.cycle() {
                panic!("after {}:\n{d}\n{case:?}", log.join("; "));
            }
        }
    }
});
