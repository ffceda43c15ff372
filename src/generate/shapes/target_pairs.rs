//! Two attributes of the other ad compared with each other, register to register:
//! integers with integers and reals, strings with strings (case-insensitive `==`
//! and case-sensitive `=?=`), against attributes some ads lack (`Swap`,
//! `MemoryUsage`).

use super::base::{Job, Slot};
use super::text::AdText;
use super::Rng;

/// The job's Requirements: one of the forms comparing two slot attributes.
pub(super) fn job_policy(r: &mut Rng, _job: &Job, w: &mut AdText) {
    let requirements = match r.below(7) {
        0 => "TARGET.Cpus == TARGET.TotalSlotCpus && TARGET.Memory >= RequestMemory",
        1 => "TARGET.FileSystemDomain == TARGET.UidDomain && TARGET.Cpus >= RequestCpus",
        2 => "TARGET.Memory >= TARGET.TotalSlotMemory || TARGET.Disk < TARGET.Memory",
        3 => "TARGET.LoadAvg <= TARGET.CondorLoadAvg && TARGET.CondorLoadAvg < TARGET.Cpus",
        4 => "TARGET.Swap >= TARGET.Cpus && TARGET.OpSysName =!= TARGET.OpSysAndVer",
        5 => "TARGET.Mips < TARGET.KFlops && TARGET.TotalCpus > TARGET.Cpus",
        _ => "TARGET.Machine =?= TARGET.FileSystemDomain || TARGET.Memory > TARGET.Cpus",
    };
    w.expr("Requirements", requirements);
    w.expr("Rank", "TARGET.Memory");
}

/// The slot's START compares two of the job's attributes.
pub(super) fn slot_policy(_r: &mut Rng, _slot: &Slot, w: &mut AdText) {
    w.expr(
        "START",
        "TARGET.RequestDisk >= TARGET.DiskUsage && (TARGET.MemoryUsage =?= undefined || \
         TARGET.MemoryUsage <= TARGET.RequestMemory)",
    );
    w.expr("Requirements", "START && (TARGET.Owner != \"mallory\")");
    w.expr("Rank", "0.0");
}
