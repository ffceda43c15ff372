//! Arithmetic on TARGET: the job computes on the slot's numbers before comparing
//! (`TARGET.Memory * 0.9 >= RequestMemory`), with integers and reals mixed,
//! integer and real division (by zero on a partitionable slot carved down to no
//! cores), modulus, unary minus, and `Swap`, which a third of the slots lack.

use super::base::{Job, Slot};
use super::text::AdText;
use super::{plain, Rng};

/// The job's Requirements: one of the arithmetic forms, with constants drawn near
/// the pool's values.
pub(super) fn job_policy(r: &mut Rng, job: &Job, w: &mut AdText) {
    let requirements = match r.below(7) {
        0 => "TARGET.Memory * 0.9 >= RequestMemory && TARGET.Cpus >= RequestCpus".to_string(),
        1 => "(TARGET.Memory - 512) / TARGET.Cpus >= RequestMemory / RequestCpus".to_string(),
        2 => format!(
            "TARGET.Disk / 1024 >= RequestDisk / 1024.0 && TARGET.KFlops * TARGET.Cpus > {}",
            r.range(2, 40) * 1_000_000
        ),
        3 => "TARGET.TotalMemory % 3 == 0 || TARGET.Memory + TARGET.Swap >= 2 * RequestMemory"
            .to_string(),
        4 => format!(
            "TARGET.LoadAvg / TARGET.Cpus < {} && TARGET.Memory / 1024.0 >= RequestMemory / 1024",
            [0.25, 0.5, 0.75][r.below(3) as usize]
        ),
        5 => "TARGET.Cpus * TARGET.Memory >= RequestCpus * RequestMemory * 1.5".to_string(),
        _ => format!(
            "-TARGET.Mips / 100 + TARGET.KFlops / 1000 > {} && TARGET.Memory >= {}",
            r.range(1500, 3000),
            job.memory
        ),
    };
    w.expr("Requirements", &requirements);
    w.expr("Rank", "TARGET.KFlops / 1000 + TARGET.Memory / 1024.0");
}

/// The slot's side: the plain policy.
pub(super) fn slot_policy(r: &mut Rng, slot: &Slot, w: &mut AdText) {
    plain::slot_policy(r, slot, w);
}
