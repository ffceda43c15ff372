//! The plain policies: what the side of a pair that does not carry a family's
//! shape says (a slot refusing one user, a job asking for Linux and file
//! transfer), and condor_submit's default Requirements, the benchmark pool's
//! shape of TARGET attributes against constants, for the mix.

use super::base::{Job, Slot};
use super::text::AdText;
use super::Rng;

/// A job policy the matcher decides with constants alone, nearly always true.
pub(super) fn job_policy(_r: &mut Rng, _job: &Job, w: &mut AdText) {
    w.expr(
        "Requirements",
        "(TARGET.OpSys == \"LINUX\") && (TARGET.HasFileTransfer)",
    );
    w.expr("Rank", "0.0");
}

/// A slot policy the matcher decides with constants alone: everyone but one user,
/// vanilla jobs only.
pub(super) fn slot_policy(_r: &mut Rng, _slot: &Slot, w: &mut AdText) {
    w.expr(
        "START",
        "(TARGET.Owner != \"mallory\") && (TARGET.JobUniverse == 5)",
    );
    w.expr("Requirements", "START");
    w.expr("Rank", "0.0");
}

/// condor_submit's default Requirements (the benchmark pool's shape): TARGET
/// attributes against constants and MY's requests, an inline constant list.
pub(super) fn submit_job_policy(r: &mut Rng, _job: &Job, w: &mut AdText) {
    let arch = if r.chance(0.85) {
        "(TARGET.Arch == \"X86_64\")"
    } else {
        "member(TARGET.Arch, { \"X86_64\", \"aarch64\" })"
    };
    w.expr(
        "Requirements",
        &format!(
            "{arch} && (TARGET.OpSys == \"LINUX\") && (TARGET.Disk >= RequestDisk) && \
             (TARGET.Memory >= RequestMemory) && (TARGET.Cpus >= RequestCpus) && \
             (TARGET.HasFileTransfer)"
        ),
    );
    w.expr("Rank", "TARGET.KFlops");
}

/// The startd's default policy: START, and the requests within the slot's
/// resources (MY's constants).
pub(super) fn startd_slot_policy(_r: &mut Rng, _slot: &Slot, w: &mut AdText) {
    w.expr("START", "(TARGET.Owner != \"mallory\")");
    w.expr(
        "WithinResourceLimits",
        "(TARGET.RequestCpus <= MY.Cpus) && (TARGET.RequestMemory <= MY.Memory) && \
         (TARGET.RequestDisk <= MY.Disk)",
    );
    w.expr("Requirements", "START && WithinResourceLimits");
    w.expr("Rank", "TARGET.JobPrio");
}
