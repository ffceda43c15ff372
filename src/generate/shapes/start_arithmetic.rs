//! Machine START doing arithmetic on the job's attributes: memory per core,
//! requests summed, image sizes rounded up, wall time in seconds, modulus and real
//! division, on attributes some jobs lack (`MaxWallTimeMins`, `MemoryUsage`).

use super::base::{Job, Slot};
use super::text::AdText;
use super::{plain, Rng};

/// The slot's START: one of the arithmetic forms, with constants from the slot.
pub(super) fn slot_policy(r: &mut Rng, slot: &Slot, w: &mut AdText) {
    let start = match r.below(7) {
        0 => format!(
            "TARGET.RequestMemory / TARGET.RequestCpus <= {}",
            slot.hw.mb_per_core
        ),
        1 => "TARGET.RequestDisk + TARGET.DiskUsage <= Disk && TARGET.RequestCpus <= Cpus"
            .to_string(),
        2 => "(TARGET.ImageSize + 1023) / 1024 <= Memory && TARGET.RequestCpus * 2 <= Cpus + 1"
            .to_string(),
        3 => "TARGET.MaxWallTimeMins * 60 <= MaxJobRetirementTime + 3600".to_string(),
        4 => "TARGET.JobPrio * 10 - TARGET.QDate % 7 > -20 && TARGET.RequestMemory <= Memory"
            .to_string(),
        5 => format!(
            "TARGET.CumulativeSlotTime / 3600.0 < {} && TARGET.RequestCpus <= Cpus",
            r.range(10, 50)
        ),
        _ => "(TARGET.RequestMemory * 1.0) / Memory <= 0.5 || TARGET.RequestCpus % 2 == 0 && \
              TARGET.MemoryUsage * 2 < TARGET.RequestMemory"
            .to_string(),
    };
    w.expr("START", &start);
    w.expr("Requirements", "START && (TARGET.Owner != \"mallory\")");
    w.expr("Rank", "TARGET.JobPrio * 10 + TARGET.RequestCpus");
}

/// The job's side: the plain policy.
pub(super) fn job_policy(r: &mut Rng, job: &Job, w: &mut AdText) {
    plain::job_policy(r, job, w);
}
