//! The compiled pool's matcher (`CompiledPool::all_pairs`, its blocked walk and its
//! per-machine cache of machine-only values) against brute force: every pair of a
//! small pool matched one by one by the reference evaluator, and every Rank. The
//! pool's ads come from the project's generator (`tests/gen`), so they refer to
//! each other, nest, and have missing and circular attributes.
#![no_main]

#[allow(dead_code, unused_imports)]
#[path = "../../tests/gen/mod.rs"]
mod gen;

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use std::fmt;

/// A pool of 1 to 4 jobs and 1 to 4 machines, taken from consecutive ad-pair cases
/// of the generator. Its `Debug` writes the two ad files and the command that
/// matches them, ready to paste.
#[derive(Arbitrary)]
struct Pool {
    master: u64,
    first: u8,
    jobs: u8,
    machines: u8,
}

impl Pool {
    fn texts(&self) -> (Vec<String>, Vec<String>) {
        let case = |k: usize| gen::pair_case(self.master, usize::from(self.first) + k);
        let jobs = (0..1 + usize::from(self.jobs % 4))
            .map(|k| case(k).job)
            .collect();
        let machines = (0..1 + usize::from(self.machines % 4))
            .map(|k| case(k).machine)
            .collect();
        (jobs, machines)
    }
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (jobs, machines) = self.texts();
        f.write_str(&gen::properties::pool_commands(&jobs, &machines))
    }
}

fuzz_target!(|input: Pool| {
    let (jobs, machines) = input.texts();
    if let Err(diff) = gen::properties::pool_against_pairs(&jobs, &machines) {
        panic!("the compiled pool disagrees with brute force: {diff}\n{input:?}");
    }
});
