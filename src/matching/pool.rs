//! A pool of jobs and machines compiled once for the machine, matched many times.

use crate::ad::ClassAd;
use crate::compile::host::VmHost;
use crate::compile::{compile_ad, CompiledClassAd};
use crate::eval::Semantics;
use classad_vm::{ops, Halt, Machine, Sides, SlotTable, Value};
use std::sync::Arc;

/// Jobs and machines compiled against one slot table. `Send + Sync`: share it
/// across threads, each with its own [`Machine`].
#[derive(Debug)]
pub struct CompiledPool {
    /// The pool's attribute names.
    pub slots: SlotTable,
    /// The job ads.
    pub jobs: Vec<CompiledClassAd>,
    /// The machine (slot) ads.
    pub machines: Vec<CompiledClassAd>,
    requirements: u32,
    rank: u32,
    /// Unique for the process: a machine's cache of TARGET-only values belongs to
    /// one pool.
    id: u64,
}

/// HTCondor's `RIGHT.requirements && LEFT.requirements` evaluates each Requirements
/// below a `&&` and a selection: two levels of depth before the dereference.
const REQUIREMENTS_SITE: u32 = 2;

impl CompiledPool {
    /// Compiles every ad.
    pub fn new(jobs: &[Arc<ClassAd>], machines: &[Arc<ClassAd>]) -> CompiledPool {
        let mut slots = SlotTable::new();
        let requirements = slots.intern("Requirements");
        let rank = slots.intern("Rank");
        let jobs = jobs.iter().map(|j| compile_ad(j, &mut slots)).collect();
        let machines = machines.iter().map(|m| compile_ad(m, &mut slots)).collect();
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        CompiledPool {
            slots,
            jobs,
            machines,
            requirements,
            rank,
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// Every matching `(job, machine)` pair, sorted by job then machine.
    ///
    /// Evaluates machine by machine: one machine's programs and attributes stay in
    /// cache while every job is held against it.
    pub fn all_pairs(&self, vm: &mut Machine) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for m in 0..self.machines.len() {
            for j in 0..self.jobs.len() {
                if self.symmetric_match(vm, j, m) {
                    out.push((j, m));
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// True when job `j` and machine `m` match, exactly as
    /// [`crate::matching::symmetric_match`] decides.
    pub fn symmetric_match(&self, vm: &mut Machine, j: usize, m: usize) -> bool {
        vm.cache_for(self.id);
        let (job, machine) = (&self.jobs[j], &self.machines[m]);
        match self.try_match(vm, job, machine) {
            Ok(b) => b,
            Err(Halt::Fail) => false,
            Err(Halt::NeedReference) => {
                super::symmetric_match(&job.source, &machine.source, Semantics::Htcondor)
            }
        }
    }

    fn try_match(
        &self,
        vm: &mut Machine,
        job: &CompiledClassAd,
        machine: &CompiledClassAd,
    ) -> Result<bool, Halt> {
        // The job is LEFT (side 0) and the machine RIGHT (side 1); the machine's
        // Requirements go first, and a false (or error) one decides alone.
        let sides = Sides::new(&job.vm, Some(&machine.vm));
        let host = &mut VmHost;
        let req = self.requirements;
        let right = vm.eval_attr(1, req, REQUIREMENTS_SITE, sides, host)?;
        if matches!(right, Value::Error) || right.as_bool_equiv() == Some(false) {
            return Ok(false);
        }
        let left = vm.eval_attr_more(0, req, REQUIREMENTS_SITE, sides, host)?;
        Ok(ops::and(&right, &left).as_bool_equiv() == Some(true))
    }

    /// The Rank of job `j` for machine `m` (`job_side`) or of machine `m` for job
    /// `j`, exactly as [`crate::matching::rank`] computes it.
    pub fn rank(&self, vm: &mut Machine, j: usize, m: usize, job_side: bool) -> f64 {
        vm.cache_for(self.id);
        let (job, machine) = (&self.jobs[j], &self.machines[m]);
        let (my, other) = if job_side {
            (job, machine)
        } else {
            (machine, job)
        };
        let sides = Sides::new(&my.vm, Some(&other.vm));
        // `Rank` is an unscoped name: MY's, or (old semantics) the other ad's.
        let side = if my.vm.has(self.rank) { 0 } else { 1 };
        match vm.eval_attr(side, self.rank, 0, sides, &mut VmHost) {
            Ok(v) => super::rank_value(&v),
            Err(Halt::Fail) => 0.0,
            Err(Halt::NeedReference) => super::rank(&my.source, &other.source, Semantics::Htcondor),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;

    fn ads(src: &str) -> Vec<Arc<ClassAd>> {
        read_ads(src, "t")
            .unwrap()
            .into_iter()
            .map(Arc::new)
            .collect()
    }

    #[test]
    fn machine_only_values_are_cached_per_pool() {
        let jobs = ads("Requirements = versionGE(split(TARGET.V)[1], \"2.0\")\n");
        let machines =
            ads("V = \"x 2.1\"\nRequirements = true\n\nV = \"x 1.9\"\nRequirements = true\n");
        let pool = CompiledPool::new(&jobs, &machines);
        let mut vm = Machine::new();
        assert!(pool.symmetric_match(&mut vm, 0, 0));
        assert!(!pool.symmetric_match(&mut vm, 0, 1));
        assert_eq!(vm.cached_values(), 2, "one value per machine");
        assert!(
            pool.symmetric_match(&mut vm, 0, 0),
            "a cache hit gives the same"
        );
        // Another pool's ads may reuse these addresses: its cache starts empty.
        let other = CompiledPool::new(&jobs, &machines[1..]);
        assert!(!other.symmetric_match(&mut vm, 0, 0));
        assert_eq!(vm.cached_values(), 1);
    }

    #[test]
    fn compiled_pool_matches_like_the_reference() {
        let jobs = ads("Requirements = TARGET.Cpus >= 2 && Memory > 0\nMemory = 5\nRank = TARGET.Cpus\n\nRequirements = undefined\n");
        let machines = ads("Cpus = 4\nRequirements = TARGET.Memory > 1\n\nCpus = 1\nRequirements = true\nRank = 3\n");
        let pool = CompiledPool::new(&jobs, &machines);
        let mut vm = Machine::new();
        for (j, job) in jobs.iter().enumerate() {
            for (m, machine) in machines.iter().enumerate() {
                let sem = Semantics::Htcondor;
                assert_eq!(
                    pool.symmetric_match(&mut vm, j, m),
                    super::super::symmetric_match(job, machine, sem),
                    "job {j} machine {m}"
                );
                for job_side in [true, false] {
                    let (a, b) = if job_side {
                        (job, machine)
                    } else {
                        (machine, job)
                    };
                    assert_eq!(
                        pool.rank(&mut vm, j, m, job_side).to_bits(),
                        super::super::rank(a, b, sem).to_bits()
                    );
                }
            }
        }
        assert!(pool.symmetric_match(&mut vm, 0, 0));
        assert_eq!(pool.rank(&mut vm, 0, 0, true), 4.0);
        // Job 1 has no Rank: the machine's answers (old semantics).
        assert_eq!(pool.rank(&mut vm, 1, 1, true), 3.0);
    }
}
