//! The pool model's fixed tables: hardware classes, operating systems, sites,
//! groups, users, the slots' START policies and RANKs, and the jobs' Requirements
//! pieces and Ranks (the tables of `gen_pool.py`).

/// `2026-01-01T00:00:00Z`: every time stamp is relative to it, so output does not
/// depend on the clock.
pub(super) const NOW: i64 = 1_767_225_600;

/// The pool's UID and file-system domain.
pub(super) const DOMAIN: &str = "cluster.example.edu";

/// A hardware class of hosts.
#[derive(Debug)]
pub(super) struct Hardware {
    /// The class's name, the start of its hosts' names.
    pub name: &'static str,
    /// Its weight among the hosts.
    pub weight: u32,
    /// `Arch`.
    pub arch: &'static str,
    /// Cores.
    pub cpus: u32,
    /// Memory, MB.
    pub memory: u64,
    /// Disk, KB.
    pub disk: u64,
    /// GPUs.
    pub gpus: u32,
    /// `CUDACapability` (hosts with GPUs).
    pub cuda_capability: f64,
    /// `CUDADeviceName` (hosts with GPUs).
    pub gpu_name: &'static str,
    /// MB of memory per GPU.
    pub gpu_memory: u64,
    /// `KFlops`, before a host's ±10%.
    pub kflops: u64,
    /// `Mips`, before a host's ±10%.
    pub mips: u64,
    /// Static slots instead of a partitionable one.
    pub static_slots: bool,
    /// START policies, weighted.
    pub policies: &'static [(Policy, u32)],
}

#[allow(clippy::too_many_arguments)]
const fn cpu_host(
    name: &'static str,
    weight: u32,
    arch: &'static str,
    cpus: u32,
    memory: u64,
    disk: u64,
    kflops: u64,
    mips: u64,
    static_slots: bool,
    policies: &'static [(Policy, u32)],
) -> Hardware {
    Hardware {
        name,
        weight,
        arch,
        cpus,
        memory,
        disk,
        gpus: 0,
        cuda_capability: 0.0,
        gpu_name: "",
        gpu_memory: 0,
        kflops,
        mips,
        static_slots,
        policies,
    }
}

use Policy::*;

/// The hardware classes, with their weights in the pool.
#[rustfmt::skip]
pub(super) const HW: [Hardware; 9] = [
    cpu_host("c6420", 30, "X86_64", 48, 191_000, 900_000_000, 2_900_000, 41_000, false,
        &[(True, 4), (NoBlock, 3), (Groups, 2), (WallTime, 1)]),
    cpu_host("r6525", 25, "X86_64", 128, 515_000, 1_800_000_000, 3_400_000, 47_000, false,
        &[(True, 3), (Groups, 3), (NoBlock, 2), (WallTime, 2)]),
    cpu_host("r640", 15, "X86_64", 40, 385_000, 800_000_000, 2_700_000, 38_000, false,
        &[(NoBlock, 3), (Groups, 2), (WallTime, 1)]),
    Hardware {
        name: "a100", weight: 6, arch: "X86_64", cpus: 64, memory: 1_031_000,
        disk: 3_500_000_000, gpus: 4, cuda_capability: 8.0,
        gpu_name: "NVIDIA A100-SXM4-80GB", gpu_memory: 81_050, kflops: 3_300_000,
        mips: 46_000, static_slots: false, policies: &[(GpuOnly, 1)],
    },
    Hardware {
        name: "v100", weight: 5, arch: "X86_64", cpus: 40, memory: 385_000,
        disk: 1_200_000_000, gpus: 4, cuda_capability: 7.0,
        gpu_name: "Tesla V100-PCIE-32GB", gpu_memory: 32_510, kflops: 2_600_000,
        mips: 37_000, static_slots: false, policies: &[(GpuOnly, 2), (NoBlock, 1)],
    },
    Hardware {
        name: "t4", weight: 4, arch: "X86_64", cpus: 16, memory: 128_000,
        disk: 400_000_000, gpus: 2, cuda_capability: 7.5, gpu_name: "Tesla T4",
        gpu_memory: 15_110, kflops: 2_500_000, mips: 35_000, static_slots: true,
        policies: &[(GpuOnly, 1), (True, 1)],
    },
    cpu_host("e5old", 10, "X86_64", 16, 64_000, 250_000_000, 1_300_000, 21_000, true,
        &[(True, 2), (NoBlock, 1)]),
    cpu_host("altra", 3, "aarch64", 80, 256_000, 900_000_000, 2_000_000, 30_000, false,
        &[(True, 1)]),
    cpu_host("desk", 2, "X86_64", 8, 32_000, 200_000_000, 1_900_000, 33_000, true,
        &[(Desktop, 1)]),
];

/// An operating system a host runs.
#[derive(Debug)]
pub(super) struct Os {
    /// `OpSysAndVer`.
    pub and_ver: &'static str,
    /// `OpSysName`.
    pub name: &'static str,
    /// `OpSysMajorVer`.
    pub major: u32,
    /// `OpSysVer`.
    pub ver: u32,
    /// The name in `CondorPlatform`.
    pub short: &'static str,
    /// `OpSysLongName`.
    pub long_name: &'static str,
}

/// The operating systems, weighted (aarch64 hosts always run the first).
#[rustfmt::skip]
pub(super) const OS: [(Os, u32); 4] = [
    (Os { and_ver: "AlmaLinux9", name: "AlmaLinux", major: 9, ver: 904, short: "AlmaLinux",
          long_name: "AlmaLinux release 9.4 (Seafoam Ocelot)" }, 55),
    (Os { and_ver: "CentOS7", name: "CentOS", major: 7, ver: 709, short: "CentOS",
          long_name: "CentOS Linux release 7.9.2009 (Core)" }, 10),
    (Os { and_ver: "Rocky8", name: "Rocky", major: 8, ver: 810, short: "Rocky",
          long_name: "Rocky Linux release 8.10 (Green Obsidian)" }, 20),
    (Os { and_ver: "Ubuntu22", name: "Ubuntu", major: 22, ver: 2204, short: "Ubuntu",
          long_name: "Ubuntu 22.04.4 LTS" }, 15),
];

/// The sites (`GLIDEIN_Site`).
pub(super) const SITES: [&str; 8] = [
    "UW_CHTC", "UCSD", "Nebraska", "FNAL", "MWT2", "Purdue", "SU-ITS", "UChicago",
];

/// The accounting groups.
pub(super) const GROUPS: [&str; 6] = [
    "group_cms",
    "group_atlas",
    "group_ligo",
    "group_icecube",
    "group_osg",
    "group_chtc",
];

/// The users.
#[rustfmt::skip]
pub(super) const USERS: [&str; 28] = [
    "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy",
    "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter",
    "xavier", "yolanda", "zoe", "cmsprod", "atlasprd", "ligo", "icecube", "osgvo", "chtcbot",
];

/// The startd's default `WithinResourceLimits`.
pub(super) const WRL: &str = "MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && \
    MY.Memory > 0 && TARGET.RequestMemory <= MY.Memory && MY.Disk > 0 && \
    TARGET.RequestDisk <= MY.Disk";

/// [`WRL`] on a host with GPUs.
pub(super) const WRL_GPU: &str = "MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && \
    MY.Memory > 0 && TARGET.RequestMemory <= MY.Memory && MY.Disk > 0 && \
    TARGET.RequestDisk <= MY.Disk && \
    (TARGET.RequestGPUs is UNDEFINED || MY.GPUs >= TARGET.RequestGPUs)";

/// A slot's START policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Policy {
    /// Anything.
    True,
    /// Anyone but the blocked user.
    NoBlock,
    /// Jobs of no group or of one of the host's `AllowedGroups`.
    Groups,
    /// GPU jobs only, on hosts with GPUs.
    GpuOnly,
    /// A desktop's keyboard-idle and load policy.
    Desktop,
    /// Vanilla jobs within the host's wall-time limit.
    WallTime,
}

impl Policy {
    /// The START expression.
    pub(super) fn start(self) -> &'static str {
        match self {
            True => "true",
            NoBlock => "(TARGET.Owner =!= \"mallory\")",
            Groups => {
                "(TARGET.AcctGroup =?= undefined || \
                 stringListMember(TARGET.AcctGroup, MY.AllowedGroups)) && \
                 (TARGET.Owner =!= \"mallory\")"
            }
            GpuOnly => {
                "ifThenElse(MY.TotalGPUs > 0, TARGET.RequestGPUs =!= undefined && \
                 TARGET.RequestGPUs >= 1, true) && (TARGET.Owner =!= \"mallory\")"
            }
            Desktop => {
                "((KeyboardIdle > 15 * 60) && ((LoadAvg - CondorLoadAvg) <= 0.3)) || \
                 (TARGET.IsTestJob =?= true)"
            }
            WallTime => {
                "(TARGET.JobUniverse == 5) && (TARGET.MaxWallTimeMins =?= undefined || \
                 TARGET.MaxWallTimeMins <= MY.MaxJobWallTimeMins)"
            }
        }
    }
}

/// The slots' RANK expressions, weighted.
pub(super) const MACHINE_RANKS: [(&str, u32); 4] = [
    ("0.0", 4),
    ("ifThenElse(TARGET.AcctGroup =?= \"group_cms\", 10, 0)", 2),
    ("TARGET.JobPrio", 1),
    ("(TARGET.Owner == \"chtcbot\") * 100", 1),
];

/// The HTCondor versions hosts run.
pub(super) const CONDOR_VERSIONS: [&str; 4] = ["24.0.12", "24.12.4", "25.0.2", "25.14.1"];

/// What the file-transfer plugins of every host offer.
pub(super) const PLUGINS: &str =
    "box,gdrive,onedrive,s3,gs,https,http,ftp,file,data,osdf,pelican,stash";

/// condor_submit's default Requirements.
pub(super) const DEFAULT_REQ: &str = "(TARGET.Arch == \"X86_64\") && \
    (TARGET.OpSys == \"LINUX\") && (TARGET.Disk >= RequestDisk) && \
    (TARGET.Memory >= RequestMemory) && (TARGET.HasFileTransfer)";

/// condor_submit 25.x's Requirements, with the disk clause HTCondor 25.12 skips.
pub(super) const REQ_25_DISK: &str = "(TARGET.Arch == \"X86_64\") && \
    (TARGET.OpSys == \"LINUX\") && \
    (versionGE(split(TARGET.CondorVersion)[1], \"25.12.0\") || \
    (TARGET.Disk >= RequestDisk)) && (TARGET.Memory >= RequestMemory) && \
    (TARGET.HasFileTransfer)";

/// condor_submit's Requirements with `should_transfer_files = IF_NEEDED`.
pub(super) const REQ_IF_NEEDED: &str = "(TARGET.Arch == \"X86_64\") && \
    (TARGET.OpSys == \"LINUX\") && (TARGET.Disk >= RequestDisk) && \
    (TARGET.Memory >= RequestMemory) && \
    ((TARGET.FileSystemDomain == MY.FileSystemDomain) || (TARGET.HasFileTransfer))";

/// Added to the Requirements of jobs that ask for GPUs.
pub(super) const GPU_TAIL: &str = " && (TARGET.GPUs >= RequestGPUs)";

/// Added to the Requirements of some jobs.
pub(super) const CPU_TAIL: &str = " && (TARGET.Cpus >= RequestCpus)";

/// The jobs' Rank expressions, weighted.
pub(super) const JOB_RANKS: [(&str, u32); 6] = [
    ("0.0", 6),
    ("TARGET.Memory + TARGET.KFlops / 1000", 3),
    ("TARGET.Mips", 1),
    ("-TARGET.LoadAvg", 1),
    (
        "ifThenElse(TARGET.CUDACapability =!= undefined, TARGET.CUDACapability, 0)",
        1,
    ),
    ("(TARGET.OpSysMajorVer == 9) * 10 + TARGET.Cpus", 1),
];

/// The jobs' executables.
pub(super) const COMMANDS: [&str; 8] = [
    "run_analysis.sh",
    "cmsRun",
    "python3",
    "simulate",
    "blast.sh",
    "train.py",
    "Athena.py",
    "mprime",
];

/// The jobs' projects.
pub(super) const PROJECTS: [&str; 6] = ["CMS", "ATLAS", "LIGO", "IceCube", "OSG-Staff", "CHTC"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_parse() {
        let starts = [True, NoBlock, Groups, GpuOnly, Desktop, WallTime].map(Policy::start);
        let fixed = [WRL, WRL_GPU, DEFAULT_REQ, REQ_25_DISK, REQ_IF_NEEDED];
        let ranks = MACHINE_RANKS.iter().chain(&JOB_RANKS).map(|(r, _)| *r);
        for e in starts.into_iter().chain(fixed).chain(ranks) {
            crate::syntax::parse_expr(e).unwrap_or_else(|err| panic!("{e}: {err}"));
        }
    }
}
