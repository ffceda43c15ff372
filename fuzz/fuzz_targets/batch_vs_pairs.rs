//! The batch matcher (`BatchMatcher`: match classes, blocks of slots, rayon)
//! against brute force on the reference evaluator, on pools of several blocks of
//! slots whose jobs repeat, so that classes hold many jobs: every pair, every
//! job's ranked candidates, the assignment, on 1 and 3 threads
//! (`gen::properties::batch_against_pairs`). The ads come from the project's
//! generator (`tests/gen`).
#![no_main]

#[allow(dead_code, unused_imports)]
#[path = "../../tests/gen/mod.rs"]
mod gen;

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use std::fmt;

/// 1 to 4 distinct jobs and machines from consecutive ad-pair cases of the
/// generator, repeated: jobs in a pattern `order` picks, machines up to 65 to 192
/// slots (two or three blocks). Its `Debug` writes the two files and the commands.
#[derive(Arbitrary)]
struct Pool {
    master: u64,
    first: u8,
    jobs: u8,
    machines: u8,
    order: u32,
    slots: u8,
}

impl Pool {
    fn texts(&self) -> (Vec<String>, Vec<String>) {
        let case = |k: usize| gen::pair_case(self.master, usize::from(self.first) + k);
        let distinct_jobs: Vec<String> = (0..1 + usize::from(self.jobs % 4))
            .map(|k| case(k).job)
            .collect();
        let distinct_machines: Vec<String> = (0..1 + usize::from(self.machines % 4))
            .map(|k| case(k).machine)
            .collect();
        let mut order = self.order;
        let jobs = (0..12)
            .map(|_| {
                let k = order as usize % distinct_jobs.len();
                order = order.rotate_right(3) ^ 0x9e37;
                distinct_jobs[k].clone()
            })
            .collect();
        let machines = (0..65 + usize::from(self.slots % 128))
            .map(|k| distinct_machines[k % distinct_machines.len()].clone())
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
    if let Err(diff) = gen::properties::batch_against_pairs(&jobs, &machines) {
        panic!("the batch matcher disagrees with brute force: {diff}\n{input:?}");
    }
});
