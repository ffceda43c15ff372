//! The shape families of `classad::generate::shapes` (issue 12) on both engines:
//! a structured input picks a family, a seed and a pool of 1-16 jobs and 1-72
//! slots (past one block of 64 lanes), and every pair must match alike on the
//! compiled pool (`all_pairs` cold and warm, each symmetric match, each side's
//! Requirements value, both Ranks) and on the reference evaluator
//! (`gen::properties::shape_pool_against_reference`, which
//! `tests/engine/shape_families.rs` checks on larger pools).
#![no_main]

#[allow(dead_code, unused_imports)]
#[path = "../../tests/gen/mod.rs"]
mod gen;

use classad::generate::shapes::{Family, ShapeSpec};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use std::fmt;

/// A family (by index), a seed and the pool's size. Its `Debug` writes the
/// command that generates the same pool's files.
#[derive(Arbitrary)]
struct Input {
    family: u8,
    seed: u64,
    jobs: u8,
    machines: u8,
}

impl Input {
    fn spec(&self) -> ShapeSpec {
        ShapeSpec {
            family: Family::ALL[usize::from(self.family) % Family::ALL.len()],
            jobs: 1 + usize::from(self.jobs % 16),
            machines: 1 + usize::from(self.machines % 72),
            seed: self.seed,
        }
    }
}

impl fmt::Debug for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.spec();
        write!(
            f,
            "classad gen-pool --shape {} --jobs {} --machines {} --seed {} \
             --out-jobs jobs.ads --out-machines machines.ads",
            s.family, s.jobs, s.machines, s.seed
        )
    }
}

fuzz_target!(|input: Input| {
    if let Err(diff) = gen::properties::shape_pool_against_reference(&input.spec()) {
        panic!("the engines disagree on a shape family's pool: {diff}\n{input:?}");
    }
});
