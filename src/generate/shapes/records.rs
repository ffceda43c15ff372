//! Nested records: field selection on TARGET and MY (`TARGET.Resources.Gpu.Count`,
//! `MY.Request.Memory`), chains three deep, subscripts into lists of records and
//! into HTCondor's `AvailableGPUs` (a list of references to the slot's
//! `GPUs_GPU_<id>` records), a record subscripted by a field name, and fields
//! that read their siblings (`Memory = Cpus * MemoryPerCpu` inside the record).

use super::base::{pick_str, Job, Slot, SITES};
use super::text::{quoted, real, AdText};
use super::Rng;

/// The slot's records.
pub(super) fn slot_attrs(r: &mut Rng, slot: &Slot, w: &mut AdText) {
    let hw = slot.hw;
    let gpu = if slot.gpus > 0 {
        format!(
            "; Gpu = [ Count = {}; Capability = {}; Memory = {} ]",
            slot.gpus,
            real(hw.capability),
            hw.gpu_mb
        )
    } else if r.chance(0.5) {
        "; Gpu = [ Count = 0 ]".to_string()
    } else {
        String::new()
    };
    w.expr(
        "Resources",
        &format!(
            "[ Cpus = {}; MemoryPerCpu = {}; Memory = Cpus * MemoryPerCpu{gpu} ]",
            slot.cpus, hw.mb_per_core
        ),
    );
    let mut names = Vec::new();
    for g in 0..slot.gpus {
        let id = format!("{:08x}", r.next_u64() as u32);
        let name = format!("GPUs_GPU_{id}");
        w.expr(
            &name,
            &format!(
                "[ Id = {}; Capability = {}; GlobalMemoryMb = {}; DeviceName = {} ]",
                quoted(&format!("GPU-{id}")),
                real(hw.capability - 0.5 * (g % 2) as f64),
                hw.gpu_mb,
                quoted(if hw.capability >= 8.0 {
                    "NVIDIA A100-SXM4-40GB"
                } else {
                    "Tesla T4"
                })
            ),
        );
        names.push(name);
    }
    w.expr("AvailableGPUs", &format!("{{ {} }}", names.join(", ")));
    w.expr(
        "Site",
        &format!(
            "[ Name = {}; Country = \"US\"; Policy = [ MaxHours = {}; AllowGpu = {} ] ]",
            quoted(slot.site),
            [24, 48, 72][slot.index % 3],
            slot.index % 4 != 1
        ),
    );
    let nvme = format!("[ Kind = \"nvme\"; SizeGb = {} ]", r.range(1, 40) * 100);
    let devices = if slot.gpus > 0 {
        format!("{{ {nvme}, [ Kind = \"gpu\"; Mem = {} ] }}", hw.gpu_mb)
    } else if r.chance(0.8) {
        format!("{{ {nvme} }}")
    } else {
        "{ }".to_string()
    };
    w.expr("Devices", &devices);
}

/// The job's records.
pub(super) fn job_attrs(r: &mut Rng, job: &Job, w: &mut AdText) {
    w.expr(
        "Request",
        &format!(
            "[ Cpus = {}; Memory = {}; Gpus = {} ]",
            job.cpus,
            job.memory,
            job.gpus.unwrap_or(0)
        ),
    );
    let site = if r.chance(0.6) {
        format!("Site = {}; ", quoted(pick_str(r, &SITES)))
    } else {
        String::new()
    };
    w.expr(
        "Wanted",
        &format!(
            "[ {site}MinCapability = {} ]",
            real([7.0, 7.5, 8.0][r.below(3) as usize])
        ),
    );
}

/// The job's Requirements: one of the record forms.
pub(super) fn job_policy(r: &mut Rng, _job: &Job, w: &mut AdText) {
    let requirements = match r.below(8) {
        0 => {
            "(MY.Request.Gpus == 0 || TARGET.Resources.Gpu.Count >= MY.Request.Gpus) && \
             TARGET.Resources.Memory >= MY.Request.Memory"
        }
        1 => {
            "size(TARGET.AvailableGPUs) >= MY.Request.Gpus && (MY.Request.Gpus == 0 || \
             TARGET.AvailableGPUs[0].Capability >= MY.Wanted.MinCapability)"
        }
        2 => "TARGET.Site.Policy.MaxHours * 60 >= MaxWallTimeMins",
        3 => {
            "TARGET.Devices[0].SizeGb * 1000000 >= RequestDisk || \
             TARGET.Resources.Cpus >= MY.Request.Cpus * 8"
        }
        4 => "TARGET.Site.Name == MY.Wanted.Site || MY.Wanted.Site is undefined",
        5 => "MY.Request.Memory <= TARGET.Memory && MY.Request.Cpus <= TARGET.Resources.Cpus",
        6 => "TARGET.Site.Policy.AllowGpu && TARGET.Resources[\"Memory\"] >= RequestMemory",
        _ => "TARGET.Resources.Gpu.Count >= 1 || MY.Request.Gpus < 1",
    };
    w.expr("Requirements", requirements);
    w.expr(
        "Rank",
        "TARGET.Resources.Memory / 1024 + TARGET.Site.Policy.MaxHours",
    );
}

/// The slot's Requirements read the job's record of requests against its own.
pub(super) fn slot_policy(_r: &mut Rng, _slot: &Slot, w: &mut AdText) {
    w.expr(
        "START",
        "TARGET.Request.Cpus <= Resources.Cpus && TARGET.Request.Memory <= MY.Resources.Memory",
    );
    w.expr("Requirements", "START");
    w.expr("Rank", "TARGET.Request.Gpus");
}
