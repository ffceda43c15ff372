//! The jobs: clusters (one `condor_submit` each) of procs sharing a signature
//! (Requirements, Rank, requests, submitter...) drawn Zipf-weighted from a limited
//! set, so a queue collapses to a few hundred autoclusters as a real schedd's
//! does, with heavy-tailed cluster sizes. Signatures and clusters are drawn first,
//! in order; the job ads are written in chunks, each with its own random stream.

use super::rng::{Cumulative, Rng};
use super::submitters::{self, Submitter};
use super::tables::{
    COMMANDS, CPU_TAIL, DEFAULT_REQ, DOMAIN, GPU_TAIL, JOB_RANKS, NOW, PROJECTS, REQ_25_DISK,
    REQ_IF_NEEDED, SITES,
};
use super::write::{AdWriter, Piece};
use super::{AdCounts, Syntax};

/// The random stream of the signatures.
const SIGNATURES_STREAM: u64 = 3;

/// The random stream of the clusters.
const CLUSTERS_STREAM: u64 = 4;

/// The random stream of the job ads (one part per chunk).
const ADS_STREAM: u64 = 6;

/// The random stream of the `--submitters` table.
const SUBMITTERS_STREAM: u64 = 7;

/// Job ads per chunk. The ads depend on it (a chunk's draws come from its own
/// stream), so it is part of what a seed means.
pub(super) const CHUNK: usize = 512;

/// About the bytes of a job ad in old or new syntax (JSON takes a tenth more).
pub(super) const AD_BYTES: usize = 2300;

/// The default number of signatures for `jobs` jobs: about `4 * jobs^0.4`, at
/// least 8 and at most 400.
pub fn default_signatures(jobs: usize) -> usize {
    ((4.0 * (jobs as f64).powf(0.4)).round() as usize).clamp(8, 400)
}

/// What the procs of a cluster share.
#[derive(Debug)]
pub(super) struct Signature {
    pub(super) submitter: Submitter,
    /// `<owner>@<domain>`.
    user: String,
    /// `<group>.<owner>`, for a submitter in a group.
    accounting_group: Option<String>,
    /// The executable's path.
    cmd_path: String,
    /// `/home/<owner>/runs/`.
    runs: String,
    requirements: String,
    rank: &'static str,
    cpus: u32,
    memory: u32,
    disk: u64,
    gpus: Option<u32>,
    max_wall_mins: Option<u32>,
    desired_sites: String,
    test_job: bool,
    transfer: &'static str,
    prio: i64,
    cmd: &'static str,
}

/// A cluster: its id, signature, first job (index in the file), procs and
/// submission time.
#[derive(Debug)]
struct Cluster {
    id: i64,
    signature: u32,
    first_job: usize,
    procs: u32,
    qdate: i64,
}

/// The jobs of a pool: signatures and clusters.
#[derive(Debug)]
pub(super) struct Jobs {
    pub(super) signatures: Vec<Signature>,
    clusters: Vec<Cluster>,
    jobs: usize,
}

impl Jobs {
    /// Draws the signatures and clusters of `jobs` jobs; `hosts` are the host
    /// names some Requirements name (the model's first quarter, at least 50, of
    /// the sorted host names).
    pub(super) fn plan(
        jobs: usize,
        seed: u64,
        hosts: &[&str],
        submitters: Option<usize>,
        signatures: Option<usize>,
    ) -> Jobs {
        let n = signatures
            .unwrap_or_else(|| default_signatures(jobs).max(submitters.unwrap_or(0)))
            .max(1);
        let table =
            submitters.map(|k| submitters::table(k, &mut Rng::derive(seed, SUBMITTERS_STREAM, 0)));
        let mut rng = Rng::derive(seed, SIGNATURES_STREAM, 0);
        // With a table, signature i < k is submitter i's; the others belong to
        // drawn submitters of the table.
        let mut owners = Vec::new();
        let signatures: Vec<Signature> = (0..n)
            .map(|i| {
                let submitter = match &table {
                    None => Submitter::draw(&mut rng),
                    Some(t) => {
                        let s = if i < t.len() {
                            i
                        } else {
                            rng.below(t.len() as u64) as usize
                        };
                        owners.push(s);
                        t[s].clone()
                    }
                };
                draw_signature(&mut rng, hosts, submitter)
            })
            .collect();
        let cover = table
            .as_ref()
            .map(|t| Coverage::new(owners, t.len().min(n)));
        let clusters = draw_clusters(jobs, n, seed, cover);
        Jobs {
            signatures,
            clusters,
            jobs,
        }
    }

    /// The number of job ads.
    pub(super) fn len(&self) -> usize {
        self.jobs
    }

    /// Whether each signature has jobs.
    pub(super) fn used_signatures(&self) -> Vec<bool> {
        let mut used = vec![false; self.signatures.len()];
        for c in &self.clusters {
            used[c.signature as usize] = true;
        }
        used
    }

    /// The number of chunks the ads are written in.
    pub(super) fn chunks(&self) -> usize {
        self.jobs.div_ceil(CHUNK)
    }

    /// Writes chunk `c` of the job ads into `buf`.
    pub(super) fn write_chunk(
        &self,
        seed: u64,
        c: usize,
        syntax: Syntax,
        buf: &mut Vec<u8>,
    ) -> AdCounts {
        let mut rng = Rng::derive(seed, ADS_STREAM, c as u64);
        let mut counts = AdCounts::default();
        let (start, end) = (c * CHUNK, ((c + 1) * CHUNK).min(self.jobs));
        let mut k = self
            .clusters
            .partition_point(|cl| cl.first_job + cl.procs as usize <= start);
        for job in start..end {
            while self.clusters[k].first_job + self.clusters[k].procs as usize <= job {
                k += 1;
            }
            let cluster = &self.clusters[k];
            let sig = &self.signatures[cluster.signature as usize];
            let proc = (job - cluster.first_job) as i64;
            let mut w = AdWriter::begin(buf, syntax, job == 0);
            job_ad(&mut w, &mut rng, sig, cluster, proc);
            counts.add(w.end());
        }
        counts
    }
}

/// The model's extra Requirements clause of a signature (or none), and whether
/// it asks for a GPU.
fn user_clause(rng: &mut Rng, hosts: &[&str]) -> (Option<String>, bool) {
    let kinds = [
        ("none", 40),
        ("gpu", 10),
        ("regexp", 8),
        ("sites", 8),
        ("osver", 8),
        ("member", 5),
        ("ifthen", 5),
        ("kflops", 4),
        ("notnode", 4),
        ("bigcpu", 3),
        ("singularity", 5),
    ];
    let some = |s: String| Some(s);
    let host_list = |rng: &mut Rng, k: usize| {
        let picked = rng.sample(hosts.len(), k.min(hosts.len()));
        let quoted: Vec<String> = picked
            .iter()
            .map(|&i| format!("\"{}\"", hosts[i]))
            .collect();
        format!("{{ {} }}", quoted.join(", "))
    };
    match *rng.weighted(&kinds) {
        "none" => (None, false),
        "gpu" => {
            let cap = rng.choice(&["7.0", "7.5", "8.0"]);
            (some(format!("(TARGET.CUDACapability >= {cap})")), true)
        }
        "regexp" => {
            let hw = *rng.choice(&["c6420", "r6525", "r640", "a100", "e5old"]);
            let rack = rng.range(0, 3);
            let clause = format!("regexp(\"^{hw}-0[{rack}-{}]-\", TARGET.Machine)", rack + 2);
            (some(clause), hw == "a100")
        }
        "sites" => (
            some("stringListMember(TARGET.GLIDEIN_Site, MY.DESIRED_Sites)".into()),
            false,
        ),
        "osver" => {
            let pins = [
                "(TARGET.OpSysAndVer == \"AlmaLinux9\")",
                "(TARGET.OpSysMajorVer >= 8)",
                "(TARGET.OpSysAndVer =!= \"CentOS7\")",
            ];
            (some(rng.choice(&pins).to_string()), false)
        }
        "member" => (
            some(format!("member(TARGET.Machine, {})", host_list(rng, 4))),
            false,
        ),
        "ifthen" => (
            some(
                "ifThenElse(TARGET.TotalGPUs > 0, TARGET.CUDACapability >= 7.5, \
                 TARGET.TotalCpus >= 32)"
                    .into(),
            ),
            false,
        ),
        "kflops" => {
            let k = rng.choice(&[1_500_000, 2_500_000, 3_000_000]);
            (some(format!("(TARGET.KFlops > {k})")), false)
        }
        "notnode" => (
            some(format!("!member(TARGET.Machine, {})", host_list(rng, 3))),
            false,
        ),
        "bigcpu" => (
            some("(TARGET.TotalCpus >= 64) && (TARGET.TotalMemory >= 256000)".into()),
            false,
        ),
        _ => (
            some(
                "(TARGET.HAS_SINGULARITY =?= true) && \
                 stringListMember(TARGET.GLIDEIN_Site, \"UW_CHTC,UCSD,Nebraska,Purdue\")"
                    .into(),
            ),
            false,
        ),
    }
}

/// Draws a signature of `submitter`'s.
fn draw_signature(rng: &mut Rng, hosts: &[&str], submitter: Submitter) -> Signature {
    let (clause, mut needs_gpu) = user_clause(rng, hosts);
    if !needs_gpu && rng.chance(0.04) {
        needs_gpu = true;
    }
    let base = *rng.weighted(&[(DEFAULT_REQ, 6), (REQ_25_DISK, 2), (REQ_IF_NEEDED, 2)]);
    let mut requirements = base.to_string();
    if needs_gpu {
        requirements.push_str(GPU_TAIL);
    }
    if rng.chance(0.15) {
        requirements.push_str(CPU_TAIL);
    }
    if let Some(c) = clause {
        requirements = format!("({c}) && {requirements}");
    }
    let k = rng.range_incl(2, 5) as usize;
    let mut sites: Vec<&str> = rng
        .sample(SITES.len(), k)
        .into_iter()
        .map(|i| SITES[i])
        .collect();
    sites.sort_unstable();
    let owner = &submitter.owner;
    let cmd = *rng.choice(&COMMANDS);
    let rank = *rng.weighted(&JOB_RANKS);
    Signature {
        user: format!("{owner}@{DOMAIN}"),
        accounting_group: submitter.group.map(|g| format!("{g}.{owner}")),
        cmd_path: format!("/home/{owner}/bin/{cmd}"),
        runs: format!("/home/{owner}/runs/"),
        submitter,
        requirements,
        rank,
        cpus: *rng.weighted(&[
            (1, 60),
            (2, 10),
            (4, 10),
            (8, 10),
            (16, 5),
            (32, 3),
            (64, 2),
        ]),
        memory: *rng.weighted(&[
            (1024, 15),
            (2048, 35),
            (4096, 20),
            (8192, 15),
            (16384, 8),
            (65536, 5),
            (300_000, 2),
        ]),
        disk: *rng.weighted(&[
            (1_000_000, 40),
            (4_000_000, 30),
            (20_000_000, 20),
            (200_000_000, 8),
            (2_000_000_000, 2),
        ]),
        gpus: needs_gpu.then(|| *rng.choice(&[1, 1, 1, 2, 4])),
        max_wall_mins: *rng.choice(&[None, None, Some(60), Some(600), Some(1440), Some(10000)]),
        desired_sites: sites.join(","),
        test_job: rng.chance(0.03),
        transfer: if base == REQ_IF_NEEDED {
            "IF_NEEDED"
        } else {
            "YES"
        },
        prio: *rng.choice(&[0, 0, 0, 5, 10, -5]),
        cmd,
    }
}

/// Which of the submitters of a `--submitters` table have a cluster yet.
#[derive(Debug)]
struct Coverage {
    /// The submitter (index in the table) of each signature.
    owners: Vec<usize>,
    /// Whether submitter `i` has a cluster, for the submitters with a signature
    /// of their own (`i < min(k, signatures)`, signature `i`).
    covered: Vec<bool>,
    /// How many of them have none yet.
    missing: usize,
    /// No submitter below this one is missing.
    first_missing: usize,
}

impl Coverage {
    fn new(owners: Vec<usize>, reachable: usize) -> Coverage {
        Coverage {
            owners,
            covered: vec![false; reachable],
            missing: reachable,
            first_missing: 0,
        }
    }

    /// Whether a cluster of `signature` would give a submitter its first cluster.
    fn is_new(&self, signature: usize) -> bool {
        self.covered.get(self.owners[signature]) == Some(&false)
    }

    /// Notes a cluster of `signature`.
    fn note(&mut self, signature: usize) {
        if self.is_new(signature) {
            self.covered[self.owners[signature]] = true;
            self.missing -= 1;
        }
    }

    /// The signature of a submitter without a cluster (there is one).
    fn next_missing(&mut self) -> usize {
        while self.covered[self.first_missing] {
            self.first_missing += 1;
        }
        self.first_missing
    }
}

/// Draws the clusters of `jobs` jobs over `signatures` signatures (Zipf-weighted,
/// exponent 0.9): ids 100000 on in steps of 1 to 3, sizes Pareto(0.9) capped at
/// a fortieth of the jobs (at least 10), submitted in the week before [`NOW`].
///
/// With a `--submitters` table (`cover`), every submitter that has a signature of
/// its own gets at least one cluster when there are jobs enough: clusters leave a
/// job for each submitter still without one, and once the jobs left are only
/// that many, each is a one-proc cluster of such a submitter.
fn draw_clusters(
    jobs: usize,
    signatures: usize,
    seed: u64,
    mut cover: Option<Coverage>,
) -> Vec<Cluster> {
    let mut rng = Rng::derive(seed, CLUSTERS_STREAM, 0);
    let zipf = Cumulative::new((0..signatures).map(|i| 1.0 / ((i + 1) as f64).powf(0.9)));
    let cap = (jobs / 40).max(10);
    let mut clusters = Vec::new();
    let (mut id, mut done) = (100_000, 0);
    while done < jobs {
        id += rng.range(1, 4);
        let left = jobs - done;
        let missing = cover.as_ref().map_or(0, |c| c.missing);
        let (signature, procs) = match &mut cover {
            Some(c) if missing >= left => (c.next_missing(), 1),
            _ => {
                let signature = zipf.draw(&mut rng);
                let tail = rng.pareto(0.9).min(u32::MAX as f64) as usize;
                let still_missing = match &cover {
                    Some(c) if c.is_new(signature) => missing - 1,
                    _ => missing,
                };
                (signature, (left - still_missing).min(cap).min(tail.max(1)))
            }
        };
        if let Some(c) = &mut cover {
            c.note(signature);
        }
        let qdate = NOW - rng.range(60, 7 * 86400);
        clusters.push(Cluster {
            id,
            signature: signature as u32,
            first_job: done,
            procs: procs as u32,
            qdate,
        });
        done += procs;
    }
    clusters
}

/// Writes the ad of proc `proc` of `cluster`, an idle vanilla job with the
/// attributes condor_submit and the schedd give it.
fn job_ad(w: &mut AdWriter, rng: &mut Rng, sig: &Signature, cluster: &Cluster, proc: i64) {
    use Piece::{I, S};
    let owner = sig.submitter.owner.as_str();
    let (id, qdate) = (cluster.id, cluster.qdate);
    w.str("MyType", "Job");
    w.str("TargetType", "Machine");
    w.int("ClusterId", id);
    w.int("ProcId", proc);
    w.str_pieces(
        "GlobalJobId",
        &[
            S("ap1."),
            S(DOMAIN),
            S("#"),
            I(id),
            S("."),
            I(proc),
            S("#"),
            I(qdate),
        ],
    );
    w.str("Owner", owner);
    w.str("User", &sig.user);
    if let (Some(group), Some(accounting)) = (sig.submitter.group, &sig.accounting_group) {
        w.str("AcctGroup", group);
        w.str("AcctGroupUser", owner);
        w.str("AccountingGroup", accounting);
    }
    w.int("JobUniverse", 5);
    w.int("JobStatus", 1);
    w.int("JobPrio", sig.prio);
    w.int("QDate", qdate);
    w.int("EnteredCurrentStatus", qdate);
    w.int("CompletionDate", 0);
    w.str("Cmd", &sig.cmd_path);
    w.str_pieces(
        "Arguments",
        &[
            S("-n "),
            I(proc),
            S(" --seed "),
            I(id * 1000 + proc),
            S(" --events 10000"),
        ],
    );
    w.str_pieces("Iwd", &[S(&sig.runs), I(id)]);
    w.str("In", "/dev/null");
    w.str_pieces("Out", &[S("out."), I(id), S("."), I(proc)]);
    w.str_pieces("Err", &[S("err."), I(id), S("."), I(proc)]);
    w.str_pieces("UserLog", &[S(&sig.runs), I(id), S("/job.log")]);
    w.str(
        "Environment",
        "OMP_NUM_THREADS=1 X509_USER_PROXY=/tmp/x509up",
    );
    w.int("RequestCpus", i64::from(sig.cpus));
    w.int("RequestMemory", i64::from(sig.memory));
    w.int("RequestDisk", sig.disk as i64);
    if let Some(g) = sig.gpus {
        w.int("RequestGPUs", i64::from(g));
    }
    w.expr("Requirements", &sig.requirements);
    w.expr("Rank", sig.rank);
    w.str("DESIRED_Sites", &sig.desired_sites);
    if let Some(m) = sig.max_wall_mins {
        w.int("MaxWallTimeMins", i64::from(m));
    }
    if sig.test_job {
        w.boolean("IsTestJob", true);
    }
    w.str("FileSystemDomain", DOMAIN);
    w.int("ImageSize", 1000 + rng.range(0, 50000));
    w.int("DiskUsage", 100 + rng.range(0, 5000));
    w.int("MaxHosts", 1);
    w.int("MinHosts", 1);
    w.int("CurrentHosts", 0);
    w.boolean("WantRemoteSyscalls", false);
    w.boolean("WantCheckpoint", false);
    w.str("ShouldTransferFiles", sig.transfer);
    w.str("WhenToTransferOutput", "ON_EXIT");
    w.str_pieces(
        "TransferInput",
        &[S("input_"), I(proc % 10), S(".tar.gz,config.json")],
    );
    w.str("TransferOutput", "results");
    w.boolean("TransferExecutable", true);
    w.int("TransferInputSizeMB", rng.range(0, 2000));
    w.int("NumCkpts", 0);
    w.int("NumJobStarts", 0);
    w.int("NumRestarts", 0);
    w.int("NumSystemHolds", 0);
    w.int("JobNotification", 0);
    w.boolean("LeaveJobInQueue", false);
    w.boolean("OnExitHold", false);
    w.boolean("OnExitRemove", true);
    w.boolean("PeriodicHold", false);
    w.boolean("PeriodicRelease", false);
    w.expr(
        "PeriodicRemove",
        "(JobStatus == 5 && (time() - EnteredCurrentStatus) > 7 * 24 * 60 * 60)",
    );
    w.boolean("ExitBySignal", false);
    w.str(
        "CondorVersion",
        "$CondorVersion: 25.14.1 2025-11-20 BuildID: 812345 PackageID: 25.14.1-1 $",
    );
    w.str("CondorPlatform", "$CondorPlatform: X86_64-AlmaLinux_9.4 $");
    w.boolean("NiceUser", false);
    w.int("CoreSize", 0);
    w.str("KillSig", "SIGTERM");
    w.boolean("StreamOut", false);
    w.int("CommittedTime", 0);
    w.int("CommittedSlotTime", 0);
    w.int("CumulativeSuspensionTime", 0);
    w.int("JobLeaseDuration", 2400);
    w.real("RemoteUserCpu", 0.0);
    w.real("RemoteSysCpu", 0.0);
    w.real("RemoteWallClockTime", 0.0);
    w.int("TotalSuspensions", 0);
    w.str_pieces("JobBatchName", &[S(sig.cmd), S("-"), I(id)]);
    let project = *rng.choice(&PROJECTS);
    w.str("ProjectName", project);
    w.expr("MemoryUsage", "((ResidentSetSize + 1023) / 1024)");
    w.int("ResidentSetSize", 0);
    w.int("JobCurrentStartDate", 0);
}
