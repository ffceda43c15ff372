//! The attributes every family's ads share: a slot's hardware, operating system,
//! site and state; a job's owner, requests and history. The families add their
//! own attributes and write the policies that read these.
//!
//! The distributions follow a pool's usual ones (the benchmark model's hardware
//! classes and requests) with the irregularities real pools have: partitionable
//! slots carved down to no cores, attributes some ads lack (`Swap`,
//! `MemoryUsage`, `MaxWallTimeMins`), reals where others have integers.

use super::text::AdText;
use super::Rng;

/// The users jobs belong to; `mallory` is the one slots block.
pub(super) const USERS: [&str; 10] = [
    "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "mallory",
];

/// The accounting groups.
pub(super) const GROUPS: [&str; 4] = ["group_physics", "group_chem", "group_bio", "group_cms"];

/// The projects jobs name (`ProjectName`).
pub(super) const PROJECTS: [&str; 6] = [
    "Astro",
    "Genomics",
    "LIGO",
    "Materials",
    "CMS_Sim",
    "Climate",
];

/// Sites, as a production pool's `GLIDEIN_Site` names them.
pub(super) const SITES: [&str; 8] = [
    "CHTC",
    "SU-ITS",
    "UNL-PATH",
    "SDSC-PRP",
    "MI-HORUS",
    "AMNH",
    "Clemson-Palmetto",
    "UChicago",
];

/// Operating systems: `OpSysAndVer`, `OpSysName`, `OpSysMajorVer`, weight.
const OPSYS: [(&str, &str, i64, u32); 4] = [
    ("AlmaLinux9", "AlmaLinux", 9, 45),
    ("AlmaLinux8", "AlmaLinux", 8, 25),
    ("CentOS7", "CentOS", 7, 15),
    ("Ubuntu22", "Ubuntu", 22, 15),
];

/// A class of hosts.
pub(super) struct Hardware {
    /// The host name's prefix.
    pub(super) prefix: &'static str,
    /// `Arch`.
    pub(super) arch: &'static str,
    /// Cores per host.
    pub(super) cores: i64,
    /// Memory per core, MB.
    pub(super) mb_per_core: i64,
    /// GPUs per host.
    pub(super) gpus: i64,
    /// The GPUs' CUDA capability.
    pub(super) capability: f64,
    /// The GPUs' memory, MB.
    pub(super) gpu_mb: i64,
    /// `KFlops` range.
    pub(super) kflops: (i64, i64),
}

/// The hardware classes and their weights.
const HARDWARE: [(Hardware, u32); 6] = [
    (
        hw(
            "c6420",
            "X86_64",
            40,
            4096,
            0,
            0.0,
            0,
            (1_800_000, 2_600_000),
        ),
        30,
    ),
    (
        hw(
            "r6525",
            "X86_64",
            128,
            2048,
            0,
            0.0,
            0,
            (2_400_000, 3_200_000),
        ),
        20,
    ),
    (
        hw(
            "a100",
            "X86_64",
            64,
            8192,
            4,
            8.0,
            40960,
            (2_800_000, 3_400_000),
        ),
        10,
    ),
    (
        hw(
            "t4",
            "X86_64",
            32,
            4096,
            2,
            7.5,
            16384,
            (2_000_000, 2_600_000),
        ),
        10,
    ),
    (
        hw("e5old", "X86_64", 16, 2048, 0, 0.0, 0, (900_000, 1_500_000)),
        15,
    ),
    (
        hw(
            "altra",
            "aarch64",
            80,
            4096,
            0,
            0.0,
            0,
            (1_500_000, 2_000_000),
        ),
        15,
    ),
];

#[allow(clippy::too_many_arguments)]
const fn hw(
    prefix: &'static str,
    arch: &'static str,
    cores: i64,
    mb_per_core: i64,
    gpus: i64,
    capability: f64,
    gpu_mb: i64,
    kflops: (i64, i64),
) -> Hardware {
    Hardware {
        prefix,
        arch,
        cores,
        mb_per_core,
        gpus,
        capability,
        gpu_mb,
        kflops,
    }
}

/// The common facts of one slot ad, kept for the families' policies to draw
/// sensible constants from.
pub(super) struct Slot {
    /// The slot's index in the pool.
    pub(super) index: usize,
    /// Its host's class.
    pub(super) hw: &'static Hardware,
    /// The host name (`Machine`).
    pub(super) host: String,
    /// `Cpus`: 0 for a partitionable slot carved down to nothing.
    pub(super) cpus: i64,
    /// `Memory`, MB.
    pub(super) memory: i64,
    /// `Disk`, KB.
    pub(super) disk: i64,
    /// `GPUs`.
    pub(super) gpus: i64,
    /// `GLIDEIN_Site`.
    pub(super) site: &'static str,
    /// `OpSysAndVer`.
    pub(super) opsys: &'static str,
    /// Whether the slot is partitionable (else dynamic or static).
    pub(super) partitionable: bool,
}

impl Slot {
    /// Draws slot `index`.
    pub(super) fn draw(r: &mut Rng, index: usize) -> Slot {
        let hw = &HARDWARE[pick(r, &HARDWARE)].0;
        let host = format!(
            "{}-{:02}-{:03}.example.org",
            hw.prefix,
            r.range(0, 12),
            r.range(0, 200)
        );
        let partitionable = r.chance(0.35);
        let cpus = if partitionable {
            // What is left of the host after the dynamic slots it carved.
            *r.weighted(&[(hw.cores, 5), (hw.cores / 2, 3), (hw.cores / 8, 2), (0, 1)])
        } else {
            (*r.weighted(&[(1, 30), (2, 20), (4, 20), (8, 15), (16, 10), (32, 5)])).min(hw.cores)
        };
        let memory = cpus * hw.mb_per_core - if r.chance(0.2) { 100 } else { 0 };
        let disk = cpus.max(1) * r.range(2, 60) * 1_000_000;
        let gpus = if hw.gpus > 0 && cpus > 0 {
            r.range_incl(if partitionable { 0 } else { 1 }, hw.gpus)
        } else {
            0
        };
        Slot {
            index,
            hw,
            host,
            cpus,
            memory: memory.max(0),
            disk,
            gpus,
            site: pick_str(r, &SITES),
            opsys: OPSYS[pick(r, &OPSYS.map(|o| (o, o.3)))].0,
            partitionable,
        }
    }

    /// Writes the common attributes.
    pub(super) fn write(&self, w: &mut AdText) {
        let hw = self.hw;
        let (opsys, name, major, _) = OPSYS
            .iter()
            .find(|o| o.0 == self.opsys)
            .expect("an operating system of the table");
        // Signed, as the attributes' values are.
        let index = self.index as i64;
        let slot_id = index % 8 + 1;
        w.str("MyType", "Machine");
        w.str("Name", &format!("slot{slot_id}@{}", self.host));
        w.str("Machine", &self.host);
        w.str(
            "SlotType",
            if self.partitionable {
                "Partitionable"
            } else {
                "Dynamic"
            },
        );
        w.str("Arch", hw.arch);
        w.str("OpSys", "LINUX");
        w.str("OpSysAndVer", opsys);
        w.str("OpSysName", name);
        w.int("OpSysMajorVer", *major);
        w.int("Cpus", self.cpus);
        w.int("TotalCpus", hw.cores);
        w.int(
            "TotalSlotCpus",
            if self.partitionable {
                hw.cores
            } else {
                self.cpus
            },
        );
        w.int("Memory", self.memory);
        w.int("TotalMemory", hw.cores * hw.mb_per_core);
        w.int(
            "TotalSlotMemory",
            if self.partitionable {
                hw.cores * hw.mb_per_core
            } else {
                self.memory
            },
        );
        w.int("Disk", self.disk);
        w.int("GPUs", self.gpus);
        if hw.gpus > 0 {
            w.real("CUDACapability", hw.capability);
            w.int("CUDAGlobalMemoryMb", hw.gpu_mb);
        }
        // Derived from the slot's index, so the draws above stay the same.
        let spread = (index * 7919) % 1000;
        w.int(
            "KFlops",
            hw.kflops.0 + (hw.kflops.1 - hw.kflops.0) * spread / 1000,
        );
        w.int("Mips", 8000 + spread * 13);
        w.real(
            "LoadAvg",
            (spread % 97) as f64 * self.cpus.max(1) as f64 / 100.0,
        );
        w.real(
            "CondorLoadAvg",
            (spread % 89) as f64 * self.cpus.max(1) as f64 / 100.0,
        );
        if index % 3 != 0 {
            w.int("Swap", self.memory / 2);
        }
        w.str("GLIDEIN_Site", self.site);
        w.str("FileSystemDomain", "example.org");
        w.str(
            "UidDomain",
            if index % 5 == 0 {
                "cs.example.org"
            } else {
                "example.org"
            },
        );
        w.boolean("HasFileTransfer", true);
        w.boolean("HAS_SINGULARITY", index % 4 != 0);
        w.str(
            "State",
            if self.partitionable {
                "Unclaimed"
            } else {
                "Claimed"
            },
        );
        if index % 10 == 3 {
            w.boolean("IsBlackHole", index % 20 == 3);
        }
        if index % 2 == 0 {
            w.boolean("HasDocker", index % 6 != 0);
        }
        w.int(
            "MaxJobRetirementTime",
            [0, 3600, 86400, 259200][self.index % 4],
        );
        w.int("MyCurrentTime", 1_764_000_000 + index);
    }
}

/// The common facts of one job ad.
pub(super) struct Job {
    /// The job's index in the queue.
    pub(super) index: usize,
    /// `Owner`.
    pub(super) owner: &'static str,
    /// The accounting group, if any.
    pub(super) group: Option<&'static str>,
    /// `RequestCpus`.
    pub(super) cpus: i64,
    /// `RequestMemory`, MB.
    pub(super) memory: i64,
    /// `RequestDisk`, KB.
    pub(super) disk: i64,
    /// `RequestGPUs`, when the job asks for GPUs.
    pub(super) gpus: Option<i64>,
    /// `ProjectName`, when the job has one.
    pub(super) project: Option<&'static str>,
    /// `MaxWallTimeMins`, when the job gives one.
    pub(super) wall_mins: Option<i64>,
    /// `SingularityImage`, when the job runs in a container.
    pub(super) image: Option<&'static str>,
    /// Whether `RequestMemory` and `RequestDisk` are condor_submit's default
    /// expressions (of `MemoryUsage`, `ImageSize` and `DiskUsage`) rather than
    /// numbers. Left false by [`Job::draw`]; the families that want it set it.
    pub(super) request_exprs: bool,
}

/// Container images: a registry's, one on CVMFS, a file.
const IMAGES: [&str; 3] = [
    "docker://hub.opensciencegrid.org/htc/rocky:9",
    "/cvmfs/singularity.opensciencegrid.org/htc/rocky:9",
    "/home/images/analysis.sif",
];

impl Job {
    /// Draws job `index`.
    pub(super) fn draw(r: &mut Rng, index: usize) -> Job {
        Job {
            index,
            owner: pick_str(r, &USERS),
            group: r.chance(0.6).then(|| *r.choice(&GROUPS)),
            cpus: *r.weighted(&[
                (1, 50),
                (2, 15),
                (4, 15),
                (8, 10),
                (16, 6),
                (32, 3),
                (64, 1),
            ]),
            memory: *r.weighted(&[
                (1024, 15),
                (2048, 35),
                (4096, 20),
                (8192, 15),
                (16384, 8),
                (65536, 5),
                (300_000, 2),
            ]),
            disk: *r.weighted(&[
                (1_000_000, 40),
                (4_000_000, 30),
                (20_000_000, 20),
                (200_000_000, 8),
                (2_000_000_000, 2),
            ]),
            gpus: r.chance(0.12).then(|| *r.choice(&[1, 1, 1, 2, 4])),
            project: r.chance(0.92).then(|| *r.choice(&PROJECTS)),
            wall_mins: r
                .chance(0.7)
                .then(|| *r.choice(&[60, 600, 1440, 2880, 10000])),
            image: r.chance(0.6).then(|| *r.choice(&IMAGES)),
            request_exprs: false,
        }
    }

    /// Writes the common attributes.
    pub(super) fn write(&self, w: &mut AdText) {
        let i = self.index as i64;
        w.str("MyType", "Job");
        w.int("ClusterId", 1000 + i / 5);
        w.int("ProcId", i % 5);
        w.str("Owner", self.owner);
        w.str("User", &format!("{}@example.org", self.owner));
        if let Some(g) = self.group {
            w.str("AcctGroup", g);
            w.str("AccountingGroup", &format!("{g}.{}", self.owner));
        }
        w.int("JobUniverse", if i % 20 == 7 { 7 } else { 5 });
        w.int("JobStatus", 1);
        w.int("JobPrio", i % 11 - 5);
        w.int("QDate", 1_763_000_000 + i * 37);
        w.int("RequestCpus", self.cpus);
        if self.request_exprs {
            w.expr(
                "RequestMemory",
                "ifthenelse(MemoryUsage isnt undefined,MemoryUsage,(ImageSize + 1023) / 1024)",
            );
            w.expr("RequestDisk", "DiskUsage");
        } else {
            w.int("RequestMemory", self.memory);
            w.int("RequestDisk", self.disk);
        }
        if let Some(g) = self.gpus {
            w.int("RequestGPUs", g);
        }
        w.int("ImageSize", self.memory * 1024 / (1 + i % 3));
        w.int("DiskUsage", self.disk / (1 + i % 4));
        if i % 3 == 1 {
            w.int("MemoryUsage", self.memory / 2 + i % 700);
        }
        if let Some(p) = self.project {
            w.str("ProjectName", p);
        }
        if let Some(m) = self.wall_mins {
            w.int("MaxWallTimeMins", m);
        }
        if let Some(image) = self.image {
            w.str("SingularityImage", image);
        }
        w.int("CumulativeSlotTime", (i * 7321) % 200_000);
        w.boolean("NiceUser", false);
    }
}

/// One of `items`, uniformly.
pub(super) fn pick_str(r: &mut Rng, items: &[&'static str]) -> &'static str {
    items[r.below(items.len() as u64) as usize]
}

/// An index drawn by the weights of `items`.
pub(super) fn pick<T>(r: &mut Rng, items: &[(T, u32)]) -> usize {
    let weights: Vec<(usize, u32)> = items.iter().enumerate().map(|(i, x)| (i, x.1)).collect();
    *r.weighted(&weights)
}
