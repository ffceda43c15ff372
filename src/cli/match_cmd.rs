//! `classad match`: every matching job-slot pair (the library's
//! [`SlotSet`](crate::matching::SlotSet) matching a queue read in parts), or a
//! negotiator-style assignment (its negotiation cycle).

use super::cycle::Format;
use super::error_count::AloneErrors;
use super::io::{load_ads, one_standard_input, output_error};
use super::match_output::{job_id_of, slot_names, write_named_matches};
use super::pairs_out::PairsOut;
use super::progress::{plain_size, Progress};
use super::Failure;
use crate::ad::files::{display_name, open_input};
use crate::ad::{read_ads, ClassAd};
use crate::engine::Engine;
use crate::eval::Semantics;
use crate::matching::batch::best_first;
use crate::matching::config::Config;
use crate::matching::{
    negotiator_key, symmetric_match, Candidate, MatchQueue, NegotiatorPolicy, QueueReader, SlotSet,
};
use clap::Args;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

/// The pool used when no files are given: 30 jobs and 40 slots made by the project's
/// pool generator (`gen_pool.py --machines 40 --jobs 30 --seed 1`).
const DEFAULT_JOBS: &str = include_str!("../../tests/conformance/pools/pool1.jobs.ads");

/// Arguments of `classad match`.
#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Job ads (old syntax separated by blank lines, new syntax, or JSON).
    #[arg(long, requires = "machines")]
    jobs: Option<String>,
    /// Machine (slot) ads.
    #[arg(long, requires = "jobs")]
    machines: Option<String>,
    /// Print every symmetric match as `<job index> <machine index>` (0-based),
    /// instead of the matches a negotiation cycle makes.
    #[arg(long)]
    all_pairs: bool,
    /// `text`: a line per match; `json`: the cycle as `classad negotiate --format
    /// json` prints it, or with `--all-pairs` an array of every job with its
    /// matching slots, best first, and their rank values (a rank that is not
    /// finite as the string "INF", "-INF" or "NaN").
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    /// Text lines name the job by `ClusterId.ProcId` and the slot by `Name`
    /// (`#<index>` for a slot without one) instead of their indices.
    #[arg(long)]
    names: bool,
    /// Which evaluator to use (`reference`: every pair on the tree-walking
    /// evaluator, one thread).
    #[arg(long, value_enum, default_value_t)]
    engine: super::EngineArg,
    /// Threads to match on (default: every core; at most 1024).
    #[arg(long)]
    threads: Option<usize>,
    /// Evaluate every job on its own instead of once per autocluster (for
    /// comparison).
    #[arg(long)]
    no_autocluster: bool,
    /// No summary line on standard error (jobs, slots, evaluations, matched and
    /// unmatched jobs).
    #[arg(long, short)]
    quiet: bool,
    /// The negotiator's configuration, in HTCondor's syntax: its rank expressions
    /// (`NEGOTIATOR_PRE_JOB_RANK`, `NEGOTIATOR_POST_JOB_RANK`) and significant
    /// attributes (`SIGNIFICANT_ATTRIBUTES`, `ADD_`/`REMOVE_SIGNIFICANT_ATTRIBUTES`).
    #[arg(long)]
    config: Option<String>,
}

/// Runs `classad match`.
pub fn run(a: MatchArgs) -> Result<ExitCode, Failure> {
    one_standard_input(&[
        ("--jobs", a.jobs.as_deref()),
        ("--machines", a.machines.as_deref()),
    ])?;
    let workers = super::threads::thread_pool(a.threads)?;
    let threads = workers.current_num_threads();
    workers.install(|| run_on_threads(&a, threads))
}

fn run_on_threads(a: &MatchArgs, threads: usize) -> Result<ExitCode, Failure> {
    if !a.all_pairs {
        return run_cycle(a, threads);
    }
    let started = Instant::now();
    let policy = match &a.config {
        None => NegotiatorPolicy::default(),
        Some(path) => {
            let text = super::io::read_text_file(path)?;
            let config = Config::parse(&text, path).map_err(|e| e.to_string())?;
            let (policy, warnings) =
                NegotiatorPolicy::from_config(&config).map_err(|e| e.to_string())?;
            for w in warnings {
                super::io::to_stderr(&format!("warning: {w}"))?;
            }
            policy
        }
    };
    let progress = Progress::on_stderr(a.quiet);
    let machines = super::cycle::load_slots(a.machines.as_deref(), &progress)?;
    let machine_file = a.machines.as_deref().unwrap_or("<built-in machines>");
    let job_file = a.jobs.as_deref().unwrap_or("<built-in jobs>");
    let wants_ids = a.names || a.format == Format::Json;
    let engine = Engine::from(a.engine);
    // On the VM with autoclusters, the queue is read in parts and each part's
    // ads dropped once clustered (only a job per class is kept), while the
    // slots compile: both on every core. Otherwise every job is kept.
    let (jobs, ids, matching) = if engine == Engine::Vm && !a.no_autocluster {
        let reader = QueueReader::new(&machines, &policy);
        let (set, queue) = rayon::join(
            || {
                let _phase = progress.phase("compiling the slots");
                SlotSet::new(machines.clone(), policy.clone())
            },
            || read_queue(&reader, a.jobs.as_deref(), wants_ids, &progress),
        );
        let (queue, ids) = queue?;
        (Vec::new(), ids, Some((set, queue, 0.0)))
    } else {
        let jobs = {
            let _phase = progress.phase("reading the jobs");
            match &a.jobs {
                Some(j) => load_ads(j)?,
                None => read_ads(DEFAULT_JOBS, "<built-in jobs>").map_err(|e| e.to_string())?,
            }
        };
        let ids = if wants_ids {
            jobs.iter().map(job_id_of).collect()
        } else {
            Vec::new()
        };
        let jobs: Vec<Arc<ClassAd>> = jobs.into_iter().map(Arc::new).collect();
        let matching = (engine == Engine::Vm).then(|| {
            let _phase = progress.phase("compiling the slots");
            let t = Instant::now();
            let set = SlotSet::new(machines.clone(), policy.clone());
            (
                set,
                MatchQueue::each_job(jobs.clone()),
                t.elapsed().as_secs_f64(),
            )
        });
        (jobs, ids, matching)
    };
    let names = if wants_ids {
        slot_names(&machines)
    } else {
        Vec::new()
    };
    let mut pairs_out = PairsOut::new(a.format, a.names, &ids, &names, machines.len());
    let job_count = matching.as_ref().map_or(jobs.len(), |(_, q, _)| q.len());
    let mut summary = Summary {
        jobs: job_count,
        slots: machines.len(),
        threads,
        read: started.elapsed().as_secs_f64(),
        ..Summary::default()
    };
    // Error against every ad of the other side, a Requirements matches
    // nothing: say so rather than print no pairs in silence.
    let (job_alone, job_targets) = match &matching {
        Some((_, q, _)) => (AloneErrors::of_queue(q), q.representatives()),
        None => (AloneErrors::of_ads(&jobs), &jobs[..]),
    };
    job_alone
        .against(&machines)
        .warn_matches_nothing("jobs", "slot", job_file)?;
    AloneErrors::of_ads(&machines)
        .against(job_targets)
        .warn_matches_nothing("slots", "job", machine_file)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    match matching {
        Some((set, queue, compile)) => {
            let _phase = progress.phase("matching");
            summary.compile = compile;
            let t = Instant::now();
            let done = if a.format == Format::Json {
                set.candidates_by_job(queue, |j, cands| pairs_out.job(&mut out, j, cands))
            } else {
                set.pairs(queue, |j, m| pairs_out.pair(&mut out, j, m))
            };
            let done = done.map_err(output_error)?;
            summary.matched = t.elapsed().as_secs_f64();
            summary.autoclusters = done.autoclusters;
            summary.classes = done.classes;
            summary.pairs = done.evaluations;
        }
        None => {
            let _phase = progress.phase("matching");
            let t = Instant::now();
            let pairs = reference_pairs(&jobs, &machines);
            summary.classes = jobs.len();
            summary.pairs = (jobs.len() * machines.len()) as u64;
            if a.format == Format::Json {
                // The pairs come by job, then slot: each job's run of them.
                let mut rest = &pairs[..];
                for (j, job) in jobs.iter().enumerate() {
                    let n = rest.iter().take_while(|p| p.0 == j).count();
                    let (mine, after) = rest.split_at(n);
                    rest = after;
                    let mut cands: Vec<Candidate> = mine
                        .iter()
                        .map(|&(_, m)| Candidate {
                            slot: m as u32,
                            key: negotiator_key(job, &machines[m], &policy),
                        })
                        .collect();
                    cands.sort_by(best_first);
                    pairs_out.job(&mut out, j, &cands).map_err(output_error)?;
                }
            } else {
                for (j, m) in pairs {
                    pairs_out.pair(&mut out, j, m).map_err(output_error)?;
                }
            }
            summary.matched = t.elapsed().as_secs_f64();
        }
    }
    pairs_out.finish(&mut out).map_err(output_error)?;
    out.flush().map_err(output_error)?;
    drop(progress);
    summary.matches = pairs_out.pairs;
    summary.unmatched = Some(job_count - pairs_out.jobs_matched);
    if !a.quiet {
        super::io::to_stderr(&summary.line())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Without `--all-pairs`: the negotiation cycle (as `classad negotiate` runs it,
/// every submitter at the default priority), one `<job> <slot>` line per match in
/// the order made.
fn run_cycle(a: &MatchArgs, threads: usize) -> Result<ExitCode, Failure> {
    use super::cycle::{cycle_from_files, evaluation, load_knobs};
    let knobs = load_knobs(a.config.as_deref(), false)?;
    let priorities = crate::negotiate::Priorities::default();
    let how = evaluation(a.engine, a.no_autocluster);
    let (jobs, machines) = (a.jobs.as_deref(), a.machines.as_deref());
    let progress = Progress::on_stderr(a.quiet);
    let start = super::cycle::Start::Priorities(priorities);
    let c = cycle_from_files(jobs, machines, knobs, start, how, &progress)?;
    drop(progress);
    c.warn(super::input_checks::InputFiles {
        jobs,
        machines,
        priorities: None,
    })?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    match (a.format, a.names) {
        (Format::Json, _) => {
            let v = super::cycle::outcome_json(&c);
            serde_json::to_writer_pretty(&mut out, &v)
                .map_err(|e| output_error(std::io::Error::other(e)))?;
            writeln!(out).map_err(output_error)?;
        }
        (Format::Text, true) => write_named_matches(&c, &mut out).map_err(output_error)?,
        (Format::Text, false) => {
            for m in &c.outcome.matches {
                writeln!(out, "{} {}", m.job, m.slot).map_err(output_error)?;
            }
        }
    }
    out.flush().map_err(output_error)?;
    if !a.quiet {
        let s = &c.outcome.stats;
        let summary = Summary {
            jobs: c.facts.len(),
            slots: c.pool.slots().len(),
            autoclusters: Some(c.autoclusters),
            classes: c.classes,
            pairs: s.evaluations,
            matches: s.matches as usize,
            unmatched: Some(c.outcome.unmatched.len()),
            threads,
            read: c.read_s,
            compile: 0.0,
            matched: s.duration - c.read_s,
        };
        super::io::to_stderr(&summary.line())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Reads the queue in parts, on every core, clustering each part as it comes and
/// keeping only a job per class; with `ids`, every job's `ClusterId.ProcId` too.
fn read_queue(
    reader: &QueueReader,
    path: Option<&str>,
    ids: bool,
    progress: &Progress,
) -> Result<(MatchQueue, Vec<String>), String> {
    let ids_of = |ads: &[ClassAd]| -> Vec<String> {
        if ids {
            ads.iter().map(job_id_of).collect()
        } else {
            Vec::new()
        }
    };
    let Some(path) = path else {
        let jobs = read_ads(DEFAULT_JOBS, "<built-in jobs>").map_err(|e| e.to_string())?;
        return Ok((reader.cluster(&jobs), ids_of(&jobs)));
    };
    let mut all_ids = Vec::new();
    let phase = progress.reading("reading and clustering the jobs", plain_size(path));
    let input = phase.count(open_input(path, 1 << 20)?);
    let queue = reader.read(input, display_name(path), ids_of, |part_ids| {
        all_ids.extend(part_ids)
    })?;
    Ok((queue, all_ids))
}

/// What the one-line summary on standard error says.
#[derive(Default)]
struct Summary {
    jobs: usize,
    slots: usize,
    autoclusters: Option<usize>,
    classes: usize,
    pairs: u64,
    matches: usize,
    /// Jobs without a match (`None`: not counted).
    unmatched: Option<usize>,
    threads: usize,
    read: f64,
    compile: f64,
    matched: f64,
}

impl Summary {
    fn line(&self) -> String {
        let clusters = match self.autoclusters {
            Some(n) => format!("{n} autoclusters ({} match classes)", self.classes),
            None => "no autoclusters".to_string(),
        };
        let unmatched = match self.unmatched {
            Some(n) => format!(", {n} jobs unmatched"),
            None => String::new(),
        };
        format!(
            "classad match: {} jobs, {} slots, {clusters}, {} evaluations, {} matches{unmatched}; \
             read, cluster and compile {:.3} s, match {:.3} s; {} threads",
            self.jobs,
            self.slots,
            self.pairs,
            self.matches,
            self.read + self.compile,
            self.matched,
            self.threads
        )
    }
}

/// Every symmetric match on the reference evaluator, by job then machine.
fn reference_pairs(jobs: &[Arc<ClassAd>], machines: &[Arc<ClassAd>]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (j, job) in jobs.iter().enumerate() {
        for (m, machine) in machines.iter().enumerate() {
            if symmetric_match(job, machine, Semantics::Htcondor) {
                out.push((j, m));
            }
        }
    }
    out
}
