//! The machines: physical hosts of the hardware classes, each one partitionable
//! slot with dynamic slots carved out of it (Claimed/Busy, with the claim's
//! `RemoteUser`, `AccountingGroup`, `JobId`...) or, on some classes, static slots;
//! a tenth of the partitionable slots have a consumption policy. The plan (hosts
//! and their slots) is drawn first, in order; the slot ads are written in chunks,
//! each with its own random stream.

use super::rng::Rng;
use super::tables::{
    Hardware, Os, Policy, CONDOR_VERSIONS, DOMAIN, GROUPS, HW, MACHINE_RANKS, NOW, OS, PLUGINS,
    SITES, USERS, WRL, WRL_GPU,
};
use super::write::AdWriter;
use super::{AdCounts, Syntax};

/// The random stream of the host plan.
const PLAN_STREAM: u64 = 1;

/// The random stream of the slot ads (one part per chunk).
const ADS_STREAM: u64 = 2;

/// Slot ads per chunk. The ads depend on it (a chunk's draws come from its own
/// stream), so it is part of what a seed means.
pub(super) const CHUNK: usize = 512;

/// About the bytes of a slot ad in old or new syntax (JSON takes a tenth more).
pub(super) const AD_BYTES: usize = 2800;

/// The part of the partitionable slots that have a consumption policy.
const CONSUMPTION_SHARE: f64 = 0.1;

/// A physical host.
#[derive(Debug)]
pub(super) struct Host {
    hw: &'static Hardware,
    os: &'static Os,
    site: &'static str,
    pub(super) hostname: String,
    ip: String,
    policy: Policy,
    rank: &'static str,
    allowed_groups: String,
    condor_version: &'static str,
    keyboard_idle: i64,
    kflops: i64,
    mips: i64,
    /// Its partitionable slot has a consumption policy.
    consumption: bool,
    slots: Vec<Slot>,
}

/// What kind of slot.
#[derive(Debug)]
enum Kind {
    /// The partitionable slot `slot1`, with the cores of its dynamic slots.
    Partitionable { child_cpus: Vec<u32> },
    /// Dynamic slot `slot1_<n>`.
    Dynamic(u32),
    /// Static slot `slot<n>`.
    Static(u32),
}

/// A slot of a host and the resources it holds.
#[derive(Debug)]
struct Slot {
    kind: Kind,
    cpus: u32,
    memory: u64,
    disk: u64,
    gpus: u32,
    claimed: bool,
}

/// The machines of a pool: hosts, and the slot ads to write (`(host, slot)`
/// indices, the last host cut short when the count says so).
#[derive(Debug)]
pub(super) struct Machines {
    pub(super) hosts: Vec<Host>,
    ads: Vec<(u32, u32)>,
}

impl Machines {
    /// Draws the hosts of `n` slot ads.
    pub(super) fn plan(n: usize, seed: u64) -> Machines {
        let mut rng = Rng::derive(seed, PLAN_STREAM, 0);
        let hw_weights: Vec<(&Hardware, u32)> = HW.iter().map(|h| (h, h.weight)).collect();
        let os_weights: Vec<(&Os, u32)> = OS.iter().map(|(o, w)| (o, *w)).collect();
        let mut hosts = Vec::new();
        let mut ads = Vec::with_capacity(n);
        let mut index = 0usize;
        while ads.len() < n {
            index += 1;
            let host = draw_host(&mut rng, index, &hw_weights, &os_weights);
            let h = hosts.len() as u32;
            let take = host.slots.len().min(n - ads.len());
            ads.extend((0..take as u32).map(|s| (h, s)));
            hosts.push(host);
        }
        Machines { hosts, ads }
    }

    /// The number of slot ads.
    pub(super) fn len(&self) -> usize {
        self.ads.len()
    }

    /// The partitionable slots with a consumption policy among the ads.
    pub(super) fn consumption_slots(&self) -> usize {
        self.ads
            .iter()
            .filter(|(h, s)| {
                let host = &self.hosts[*h as usize];
                host.consumption
                    && matches!(host.slots[*s as usize].kind, Kind::Partitionable { .. })
            })
            .count()
    }

    /// The number of chunks the ads are written in.
    pub(super) fn chunks(&self) -> usize {
        self.ads.len().div_ceil(CHUNK)
    }

    /// Writes chunk `c` of the slot ads into `buf`.
    pub(super) fn write_chunk(
        &self,
        seed: u64,
        c: usize,
        syntax: Syntax,
        buf: &mut Vec<u8>,
    ) -> AdCounts {
        let mut rng = Rng::derive(seed, ADS_STREAM, c as u64);
        let mut counts = AdCounts::default();
        let start = c * CHUNK;
        let end = (start + CHUNK).min(self.ads.len());
        for (i, &(h, s)) in self.ads[start..end].iter().enumerate() {
            let host = &self.hosts[h as usize];
            let mut w = AdWriter::begin(buf, syntax, start + i == 0);
            machine_ad(&mut w, &mut rng, host, &host.slots[s as usize]);
            counts.add(w.end());
        }
        counts
    }
}

/// Draws host number `index` (1-based) and its slots.
fn draw_host(
    rng: &mut Rng,
    index: usize,
    hw_weights: &[(&'static Hardware, u32)],
    os_weights: &[(&'static Os, u32)],
) -> Host {
    let hw = *rng.weighted(hw_weights);
    let mut os = *rng.weighted(os_weights);
    if hw.arch == "aarch64" {
        os = &OS[0].0;
    }
    let site = SITES[(index * 7 + rng.below(3) as usize) % SITES.len()];
    let rack = index / 40;
    let hostname = format!("{}-{rack:02}-{index:05}.{DOMAIN}", hw.name);
    let ip = format!(
        "10.{}.{}.{}",
        (index >> 16) & 255,
        (index >> 8) & 255,
        index & 255
    );
    let policy = *rng.weighted(hw.policies);
    let rank = *rng.weighted(&MACHINE_RANKS);
    let k = rng.range_incl(2, GROUPS.len() as i64) as usize;
    let mut allowed: Vec<&str> = rng
        .sample(GROUPS.len(), k)
        .into_iter()
        .map(|i| GROUPS[i])
        .collect();
    allowed.sort_unstable();
    let condor_version = *rng.choice(&CONDOR_VERSIONS);
    let keyboard_idle = *rng.choice(&[30, 400, 3600, 86400 * 3]) + rng.range(0, 1000);
    let kflops = (hw.kflops as f64 * rng.uniform(0.9, 1.1)) as i64;
    let mips = (hw.mips as f64 * rng.uniform(0.9, 1.1)) as i64;
    let consumption = !hw.static_slots && rng.chance(CONSUMPTION_SHARE);
    let slots = if hw.static_slots {
        static_slots(rng, hw)
    } else {
        partitioned(rng, hw)
    };
    Host {
        hw,
        os,
        site,
        hostname,
        ip,
        policy,
        rank,
        allowed_groups: allowed.join(","),
        condor_version,
        keyboard_idle,
        kflops,
        mips,
        consumption,
        slots,
    }
}

/// Static slots dividing the host evenly: one per GPU on GPU hosts, else up to 8.
fn static_slots(rng: &mut Rng, hw: &Hardware) -> Vec<Slot> {
    let n = if hw.gpus == 0 {
        hw.cpus.min(8)
    } else {
        hw.gpus
    };
    (1..=n)
        .map(|s| Slot {
            kind: Kind::Static(s),
            cpus: hw.cpus / n,
            memory: hw.memory / u64::from(n),
            disk: hw.disk / u64::from(n),
            gpus: u32::from(hw.gpus > 0),
            claimed: rng.chance(0.6),
        })
        .collect()
}

/// The partitionable slot, with dynamic slots carved out of it until a drawn
/// share (30% to 97%) of its cores is used, then what is left.
fn partitioned(rng: &mut Rng, hw: &Hardware) -> Vec<Slot> {
    let (mut cpus, mut memory, mut disk, mut gpus) = (hw.cpus, hw.memory, hw.disk, hw.gpus);
    let mut dynamic = Vec::new();
    let target_used = rng.uniform(0.3, 0.97);
    while f64::from(cpus) > f64::from(hw.cpus) * (1.0 - target_used) && dynamic.len() < 64 {
        let c = *rng.choice(&[1, 1, 1, 2, 4, 8]);
        let m = *rng.choice(&[2048, 2048, 4096, 8192, 16384]);
        let d = *rng.choice(&[1_000_000, 4_000_000, 10_000_000]);
        let g = u32::from(gpus > 0 && rng.chance(0.7));
        if c > cpus || m > memory || d > disk {
            break;
        }
        (cpus, memory, disk, gpus) = (cpus - c, memory - m, disk - d, gpus - g);
        dynamic.push(Slot {
            kind: Kind::Dynamic(dynamic.len() as u32 + 1),
            cpus: c,
            memory: m,
            disk: d,
            gpus: g,
            claimed: true,
        });
    }
    let parent = Slot {
        kind: Kind::Partitionable {
            child_cpus: dynamic.iter().map(|d| d.cpus).collect(),
        },
        cpus,
        memory,
        disk,
        gpus,
        claimed: false,
    };
    std::iter::once(parent).chain(dynamic).collect()
}

/// Rounds to `places` decimal places, as Python's `round` does for these sizes.
fn round(x: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (x * scale).round() / scale
}

/// Writes the ad of `slot` of `host`, with the attributes a 24.x/25.x startd
/// publishes.
fn machine_ad(w: &mut AdWriter, rng: &mut Rng, host: &Host, slot: &Slot) {
    let (hw, os) = (host.hw, host.os);
    let claimed = slot.claimed;
    let entered = NOW - rng.range(60, 86400);
    let load = if claimed {
        round(rng.uniform(0.9, 1.0) * f64::from(slot.cpus), 2)
    } else {
        round(rng.uniform(0.0, 0.2), 2)
    };
    let (slot_name, slot_id) = match slot.kind {
        Kind::Partitionable { .. } => (format!("slot1@{}", host.hostname), 1),
        Kind::Dynamic(k) => (format!("slot1_{k}@{}", host.hostname), 1),
        Kind::Static(s) => (format!("slot{s}@{}", host.hostname), s),
    };
    w.str("MyType", "Machine");
    w.str("TargetType", "Job");
    w.str("Name", &slot_name);
    w.str("Machine", &host.hostname);
    w.int("SlotID", i64::from(slot_id));
    match &slot.kind {
        Kind::Partitionable { child_cpus } => {
            w.str("SlotType", "Partitionable");
            w.boolean("PartitionableSlot", true);
            w.int_list("ChildCpus", child_cpus);
            w.int("NumDynamicSlots", child_cpus.len() as i64);
        }
        Kind::Dynamic(_) => {
            w.str("SlotType", "Dynamic");
            w.boolean("DynamicSlot", true);
            w.int("ParentSlotId", 1);
        }
        Kind::Static(_) => w.str("SlotType", "Static"),
    }
    w.expr("SlotWeight", "Cpus");
    w.str("Arch", hw.arch);
    w.str("OpSys", "LINUX");
    w.str("OpSysAndVer", os.and_ver);
    w.str("OpSysLongName", os.long_name);
    w.int("OpSysMajorVer", i64::from(os.major));
    w.str("OpSysName", os.name);
    w.int("OpSysVer", i64::from(os.ver));
    let v = host.condor_version;
    w.str_fmt(
        "CondorVersion",
        format_args!(
            "$CondorVersion: {v} 2025-11-20 BuildID: 812345 PackageID: {v}-1 GitSHA: 1a2b3c4d $"
        ),
    );
    w.str_fmt(
        "CondorPlatform",
        format_args!("$CondorPlatform: {}_{}{} $", hw.arch, os.short, os.major),
    );
    w.int("Cpus", i64::from(slot.cpus));
    w.real("TotalCpus", f64::from(hw.cpus));
    w.int("TotalSlotCpus", i64::from(slot.cpus));
    w.int("Memory", slot.memory as i64);
    w.int("TotalMemory", hw.memory as i64);
    w.int("TotalSlotMemory", slot.memory as i64);
    w.int("Disk", slot.disk as i64);
    w.int("TotalDisk", hw.disk as i64);
    w.int("TotalSlotDisk", slot.disk as i64);
    w.int("VirtualMemory", slot.memory as i64 * 1024);
    w.int("Swap", 0);
    w.int("GPUs", i64::from(slot.gpus));
    w.int("TotalGPUs", i64::from(hw.gpus));
    if hw.gpus > 0 {
        w.gpu_list("AvailableGPUs", slot.gpus);
        w.real("CUDACapability", hw.cuda_capability);
        w.str("CUDADeviceName", hw.gpu_name);
        w.real("CUDADriverVersion", 12.4);
        w.int("CUDAGlobalMemoryMb", hw.gpu_memory as i64);
        w.int(
            "CUDAComputeUnits",
            if hw.cuda_capability == 8.0 { 108 } else { 80 },
        );
    }
    w.str(
        "MachineResources",
        if hw.gpus > 0 {
            "Cpus Memory Disk Swap GPUs"
        } else {
            "Cpus Memory Disk Swap"
        },
    );
    if host.consumption && matches!(slot.kind, Kind::Partitionable { .. }) {
        w.expr("ConsumptionCpus", "quantize(target.RequestCpus, {1})");
        w.expr("ConsumptionMemory", "quantize(target.RequestMemory, {128})");
        w.expr("ConsumptionDisk", "quantize(target.RequestDisk, {1024})");
        if hw.gpus > 0 {
            w.expr(
                "ConsumptionGPUs",
                "ifThenElse(target.RequestGPUs =?= undefined, 0, target.RequestGPUs)",
            );
        }
    }
    w.int("KFlops", host.kflops);
    w.int("Mips", host.mips);
    w.real("LoadAvg", load);
    w.real("CondorLoadAvg", if claimed { load } else { 0.0 });
    w.real("TotalLoadAvg", round(load * 3.1, 2));
    w.real("TotalCondorLoadAvg", round(load * 3.0, 2));
    w.int("KeyboardIdle", host.keyboard_idle);
    w.int("ConsoleIdle", host.keyboard_idle);
    w.boolean("HasFileTransfer", true);
    w.boolean("HasPerFileEncryption", true);
    w.str("FileTransferPluginMethods", PLUGINS);
    w.boolean("HasJobTransferPlugins", true);
    w.boolean("HasReconnect", true);
    w.boolean("HasJobDeferral", true);
    w.boolean("HasVM", false);
    let containers = host.policy != Policy::Desktop;
    w.boolean("HasSingularity", containers);
    w.boolean("HAS_SINGULARITY", containers);
    w.str("SingularityVersion", "apptainer version 1.3.4");
    w.boolean("HasContainer", containers);
    w.boolean("HasSandboxImage", true);
    w.boolean("HasSIF", true);
    w.boolean("HasDockerURL", true);
    if host.site == "UW_CHTC" {
        w.str("FileSystemDomain", DOMAIN);
    } else {
        let site = host.site.to_lowercase();
        w.str_fmt("FileSystemDomain", format_args!("{site}.example.org"));
    }
    w.str("UidDomain", DOMAIN);
    w.str("GLIDEIN_Site", host.site);
    w.str("AllowedGroups", &host.allowed_groups);
    w.int("MaxJobWallTimeMins", 72 * 60);
    w.str_fmt(
        "StartdIpAddr",
        format_args!(
            "<{ip}:9618?addrs={ip}-9618&alias={}&noUDP&sock=startd_1234_abcd>",
            host.hostname,
            ip = host.ip
        ),
    );
    w.str("State", if claimed { "Claimed" } else { "Unclaimed" });
    w.str("Activity", if claimed { "Busy" } else { "Idle" });
    w.int("EnteredCurrentState", entered);
    w.int("MyCurrentTime", NOW);
    w.int("LastHeardFrom", NOW - rng.range(0, 300));
    w.int("DaemonStartTime", NOW - 86400 * rng.range(1, 60));
    w.int("UpdateSequenceNumber", rng.range(1, 5000));
    w.int("ClockMin", rng.range(0, 1440));
    w.int("JobStarts", rng.range(0, 20000));
    w.int("RecentJobStarts", rng.range(0, 30));
    w.int("TotalTimeClaimedBusy", rng.range(0, 10_000_000));
    w.int("NumPids", if claimed { rng.range(0, 40) } else { 0 });
    w.expr(
        "MaxJobRetirementTime",
        "MY.IsEvictionExempt =?= true ? 72 * 60 * 60 : 0",
    );
    w.expr("MachineMaxVacateTime", "10 * 60");
    w.expr("IsOwner", "(START =?= False)");
    w.expr("Start", host.policy.start());
    w.expr(
        "WithinResourceLimits",
        if hw.gpus > 0 { WRL_GPU } else { WRL },
    );
    w.expr("Requirements", "START && (WithinResourceLimits)");
    w.expr("Rank", host.rank);
    w.real("CurrentRank", 0.0);
    if claimed {
        let user = *rng.choice(&USERS);
        let group = *rng.choice(&GROUPS);
        w.str_fmt("RemoteOwner", format_args!("{user}@{DOMAIN}"));
        w.str_fmt("RemoteUser", format_args!("{user}@{DOMAIN}"));
        w.str_fmt("AccountingGroup", format_args!("{group}.{user}@{DOMAIN}"));
        let (cluster, proc) = (rng.range(100_000, 999_999), rng.range(0, 100));
        w.str_fmt("JobId", format_args!("{cluster}.{proc}"));
        w.int("JobStart", entered);
        w.str_fmt(
            "ClientMachine",
            format_args!("ap{}.{DOMAIN}", rng.range(1, 5)),
        );
        let claim = rng.range(1, 9999);
        w.str_fmt(
            "PublicClaimId",
            format_args!("<{}:9618>#{}#{claim}#...", host.ip, NOW - 86400),
        );
    }
}
