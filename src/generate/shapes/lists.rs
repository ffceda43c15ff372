//! Lists held in attributes: `member`, `identicalMember`, `anyCompare` and `size`
//! on list values, `stringListMember`, `stringListIMember` and
//! `stringListsIntersect` on comma-separated strings, each with the list in MY
//! (a constant of the compiled ad) or in TARGET (a column), and some ads without
//! the list at all.

use super::base::{Job, Slot, GROUPS, PROJECTS, SITES, USERS};
use super::text::{string_list, AdText};
use super::Rng;

/// CPU and accelerator features slots advertise.
const FEATURES: [&str; 6] = ["avx2", "avx512", "sse4", "cuda", "infiniband", "nvme"];

/// `k` distinct items of `items`, in the table's order.
fn some<'a>(r: &mut Rng, items: &[&'a str], k: usize) -> Vec<&'a str> {
    let mut picked = r.sample(items.len(), k.min(items.len()));
    picked.sort_unstable();
    picked.into_iter().map(|i| items[i]).collect()
}

/// The slot's lists.
pub(super) fn slot_attrs(r: &mut Rng, slot: &Slot, w: &mut AdText) {
    if r.chance(0.9) {
        let k = r.range_incl(2, 4) as usize;
        w.expr("AllowedProjects", &string_list(&some(r, &PROJECTS, k)));
    }
    let k = r.range_incl(3, 8) as usize;
    w.str("AllowedUsers", &some(r, &USERS, k).join(","));
    w.str(
        "BlockedUsers",
        if r.chance(0.5) {
            "mallory"
        } else {
            "mallory,ivan"
        },
    );
    let k = r.range_incl(0, 4) as usize;
    let features = some(r, &FEATURES, k);
    w.expr("Features", &string_list(&features));
    w.str("FeatureString", &features.join(","));
    let gpu_memory: Vec<String> = (0..slot.gpus)
        .map(|g| (slot.hw.gpu_mb - 1024 * (g % 2)).to_string())
        .collect();
    w.expr("GpuMemoryList", &format!("{{ {} }}", gpu_memory.join(", ")));
    let k = r.range_incl(1, 3) as usize;
    w.expr("AllowedGroups", &string_list(&some(r, &GROUPS, k)));
    let k = r.range_incl(2, 6) as usize;
    w.expr("AllowedOwners", &string_list(&some(r, &USERS, k)));
}

/// The job's lists; `DESIRED_Sites` only `with_sites` (the mix leaves it to the
/// production pool's family).
pub(super) fn job_attrs(r: &mut Rng, job: &Job, w: &mut AdText, with_sites: bool) {
    w.expr(
        "WantedArchs",
        if r.chance(0.7) {
            "{ \"X86_64\" }"
        } else {
            "{ \"X86_64\", \"aarch64\" }"
        },
    );
    if with_sites && r.chance(0.75) {
        let k = r.range_incl(2, 6) as usize;
        w.str("DESIRED_Sites", &some(r, &SITES, k).join(","));
    }
    let k = r.range_incl(1, 2) as usize;
    w.str("WantedFeatures", &some(r, &FEATURES, k).join(","));
    w.expr(
        "OkOpSys",
        if r.chance(0.5) {
            "{ \"AlmaLinux9\", \"AlmaLinux8\" }"
        } else {
            "{ \"AlmaLinux9\", \"Ubuntu22\", \"CentOS7\" }"
        },
    );
    w.int(
        "RequestGpuMemory",
        8192 * job.gpus.unwrap_or(1) * r.range_incl(1, 3),
    );
}

/// The job's Requirements: one of the list forms.
pub(super) fn job_policy(r: &mut Rng, _job: &Job, w: &mut AdText) {
    let requirements = match r.below(7) {
        0 => {
            "member(TARGET.Arch, MY.WantedArchs) && \
             stringListMember(TARGET.GLIDEIN_Site, MY.DESIRED_Sites)"
        }
        1 => "member(MY.ProjectName, TARGET.AllowedProjects)",
        2 => {
            "stringListIMember(MY.Owner, TARGET.AllowedUsers) && \
             !stringListMember(MY.Owner, TARGET.BlockedUsers)"
        }
        3 => {
            "anyCompare(\">=\", TARGET.GpuMemoryList, MY.RequestGpuMemory) || \
             size(TARGET.Features) >= 3"
        }
        4 => "identicalMember(TARGET.OpSysAndVer, MY.OkOpSys)",
        5 => "stringListsIntersect(MY.WantedFeatures, TARGET.FeatureString)",
        _ => "member(\"avx512\", TARGET.Features) || member(TARGET.OpSysMajorVer, { 8, 22 })",
    };
    w.expr("Requirements", requirements);
    w.expr("Rank", "size(TARGET.Features)");
}

/// The slot's START: its own lists of groups and owners, or the job's list of
/// sites (a production pool's `DESIRED_Sites` test).
pub(super) fn slot_policy(r: &mut Rng, _slot: &Slot, w: &mut AdText) {
    let start = match r.below(3) {
        0 => "member(TARGET.AcctGroup, MY.AllowedGroups) || member(TARGET.Owner, MY.AllowedOwners)",
        1 => {
            "(TARGET.DESIRED_Sites =?= undefined) || \
             stringListMember(MY.GLIDEIN_Site, TARGET.DESIRED_Sites, \",\")"
        }
        _ => "!stringListMember(TARGET.Owner, MY.BlockedUsers) && TARGET.RequestCpus <= Cpus",
    };
    w.expr("START", start);
    w.expr("Requirements", "START");
    // The GPU memory term is an aggregate over the slot's own list, which the
    // compiler folds once per slot.
    w.expr(
        "Rank",
        "(member(TARGET.AcctGroup, MY.AllowedGroups) ? 10 : 0) + sum(MY.GpuMemoryList) / 1024",
    );
}
