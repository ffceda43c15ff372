//! `classad analyze`: why jobs match the slots of a pool or not, and why slots
//! match the jobs of a queue or not, as `condor_q -better-analyze` (and
//! `-better-analyze -reverse`) explains it, from ad files instead of a schedd
//! and a collector. The analysis is the library's
//! ([`crate::matching::analysis`]); this module picks the ads, and
//! [`super::analyze_text`] and [`super::analyze_json`] print the results.

use super::io::{load_ads, output_error, read_in_parts};
use super::match_output::job_id_parts;
use super::Failure;
use crate::ad::files::{display_name, open_input};
use crate::ad::ClassAd;
use crate::eval::{eval_attr, Semantics};
use crate::matching::analysis::{analyze_jobs, analyze_slots, JobSet};
use crate::matching::config::Config;
use crate::matching::{Autoclusters, NegotiatorPolicy, QueueReader};
use clap::Args;
use classad_vm::Value;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

/// Arguments of `classad analyze`.
#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    /// Job ads (old syntax separated by blank lines, new syntax, or JSON; `-` for
    /// standard input; gzip is read as it is). `-jobads` works too, as
    /// condor_q spells it.
    #[arg(long)]
    jobs: String,
    /// Slot ads (`-slotads` works too).
    #[arg(long)]
    machines: String,
    /// Jobs to analyze, each by its index in the file (0 first) or as
    /// `ClusterId.ProcId` (`123.0`). With none, one job per autocluster, with
    /// the number of jobs it stands for. With `--reverse`, the jobs the slots are
    /// analyzed against (default: all).
    #[arg(value_name = "JOB")]
    wanted: Vec<String>,
    /// Analyze slots against the jobs instead (`condor_q -better-analyze
    /// -reverse`): each SLOT by its index in the file, its `Name`, or its
    /// `Machine` (every slot of that machine); with none, every slot. It takes
    /// every argument after it: put JOBs before it.
    #[arg(long, num_args = 0.., value_name = "SLOT")]
    reverse: Option<Vec<String>>,
    /// The negotiator's configuration, in HTCondor's syntax: the significant
    /// attributes the autoclusters are formed on (`SIGNIFICANT_ATTRIBUTES`,
    /// `ADD_`/`REMOVE_SIGNIFICANT_ATTRIBUTES`) and its rank expressions.
    #[arg(long)]
    config: Option<String>,
    /// `text`: condor_q's report; `json`: the same facts as one JSON object.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    /// The width expressions are wrapped to, at `&&` and `||` (condor_q wraps to
    /// the terminal's width, 80 when it has none).
    #[arg(long, default_value_t = 80)]
    width: usize,
    /// Which evaluator counts (default: the reference evaluator for small
    /// analyses, the bytecode VM when it finishes sooner; both give the same
    /// counts).
    #[arg(long, value_enum)]
    engine: Option<super::EngineArg>,
    /// Threads to count on (default: every core; at most 1024).
    #[arg(long)]
    threads: Option<usize>,
}

/// Output formats of `classad analyze`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// The report condor_q prints.
    #[default]
    Text,
    /// One JSON object.
    Json,
}

/// What HTCondor's analysis needs and `classad analyze` leaves out, for the
/// command's help.
pub const LEFT_OUT: &str = "\
Left out, because it needs a schedd, a negotiator or a collector rather than \
ad files: user priorities and preemption (the summary is the one condor_q \
prints when ignoring user priority), the times and reasons of the job's last \
matches, the schedd's START_LOCAL_UNIVERSE and START_SCHEDULER_UNIVERSE for \
local and scheduler universe jobs, and a job's cool-down. Every slot of the \
file is analyzed (condor_q asks the collector for no dynamic slots and skips \
them when a file has partitionable ones), and partitionable slots are taken as \
they are (condor_q also tries each as if drained). Autoclusters are the \
negotiator's, worked out from the pool, not the schedd's AutoClusterId.

Added: the Suggestions table (each top-level condition of the job's \
Requirements with the slots it alone matches and, when no slot is accepted, \
REMOVE or MODIFY TO to make the closest slot accept the job) that condor_q \
printed until HTCondor 8.5.8, and for a slot the same table of its \
conditions with the autoclusters and jobs each matches.";

/// Runs `classad analyze`.
pub fn run(a: AnalyzeArgs) -> Result<ExitCode, Failure> {
    super::io::one_standard_input(&[("--jobs", Some(&a.jobs)), ("--machines", Some(&a.machines))])?;
    let workers = super::threads::thread_pool(a.threads)?;
    workers.install(|| run_on_threads(&a))
}

fn run_on_threads(a: &AnalyzeArgs) -> Result<ExitCode, Failure> {
    let policy = load_policy(a.config.as_deref())?;
    let slots = load_nonempty(&a.machines, "slot")?;
    let engine = a.engine.map(crate::engine::Engine::from);
    let wanted: Vec<Wanted> = a
        .wanted
        .iter()
        .map(|w| Wanted::parse(w))
        .collect::<Result<_, _>>()?;
    // The whole queue is clustered unless only named jobs are wanted; named
    // jobs analyzed in reverse are clustered among themselves, after.
    let whole = wanted.is_empty().then(|| QueueReader::new(&slots, &policy));
    let queue = read_queue(&a.jobs, &wanted, whole)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    match &a.reverse {
        Some(names) => {
            let chosen: Vec<usize> = if names.is_empty() {
                (0..slots.len()).collect()
            } else {
                let mut all = Vec::new();
                for n in names {
                    all.extend(find_slots(&slots, n, &a.machines)?);
                }
                all
            };
            for &s in &chosen {
                if !names.is_empty() && slots[s].get("Requirements").is_none() {
                    let what = format!(
                        "slot {} (index {s} of {}) has no Requirements expression: nothing to analyze",
                        slot_name(&slots[s]),
                        a.machines
                    );
                    return Err(Failure::Message(what));
                }
            }
            let clusters = match queue.clusters {
                Some(c) => c,
                None => Autoclusters::new(&queue.picked, &slots, &policy),
            };
            let set = JobSet::of(&clusters);
            let analyzed: Vec<Arc<ClassAd>> = chosen.iter().map(|&s| slots[s].clone()).collect();
            let results = analyze_slots(&analyzed, &set, engine);
            match a.format {
                Format::Text => {
                    super::analyze_text::banner(&mut out, &a.jobs).map_err(output_error)?;
                    for (s, r) in analyzed.iter().zip(&results) {
                        super::analyze_text::slot(&mut out, s, r, a.width).map_err(output_error)?;
                    }
                }
                Format::Json => {
                    let v = super::analyze_json::slots(&chosen, &analyzed, &results);
                    write_json(&mut out, &v)?;
                }
            }
        }
        None => {
            for (job, &j) in queue.picked.iter().zip(&queue.picked_at) {
                if job.get("Requirements").is_none() {
                    let (c, p) = job_id_parts(job);
                    let what = format!(
                        "job {c}.{p} (index {j} of {}) has no Requirements expression: nothing to analyze",
                        a.jobs
                    );
                    return Err(Failure::Message(what));
                }
            }
            // Without jobs named, the first job of each autocluster stands for
            // it, as the negotiator takes one job per autocluster.
            let (chosen, analyzed, groups) = match &queue.clusters {
                Some(clusters) => {
                    let mut chosen = Vec::new();
                    let mut analyzed = Vec::new();
                    let mut groups = Vec::new();
                    for (id, members) in clusters.clusters().iter().enumerate() {
                        if let Some(&first) = members.first() {
                            chosen.push(first as usize);
                            // The first job of an autocluster is the first of its
                            // match class, which the clusters keep.
                            let class = clusters.class_of(first as usize);
                            analyzed.push(clusters.representative(class).clone());
                            groups.push((id as u32, members.len()));
                        }
                    }
                    (chosen, analyzed, Some(groups))
                }
                None => (queue.picked_at.clone(), queue.picked.clone(), None),
            };
            let results = analyze_jobs(&analyzed, &slots, engine);
            match a.format {
                Format::Text => {
                    super::analyze_text::banner(&mut out, &a.jobs).map_err(output_error)?;
                    for (k, (job, r)) in analyzed.iter().zip(&results).enumerate() {
                        let group = groups.as_ref().map(|g| g[k]);
                        super::analyze_text::job(&mut out, job, r, &slots, group, a.width)
                            .map_err(output_error)?;
                    }
                }
                Format::Json => {
                    let v = super::analyze_json::jobs(
                        &chosen,
                        &analyzed,
                        &results,
                        &slots,
                        groups.as_deref(),
                    );
                    write_json(&mut out, &v)?;
                }
            }
        }
    }
    out.flush().map_err(output_error)?;
    Ok(ExitCode::SUCCESS)
}

/// A job asked for on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wanted {
    /// By its index in the file.
    Index(usize),
    /// By `ClusterId.ProcId`: the first job with that id.
    Id(i64, i64),
}

impl Wanted {
    fn parse(text: &str) -> Result<Wanted, String> {
        let bad = || {
            format!(
                "JOB must be an index in the job file (0, 1, ...) or ClusterId.ProcId (123.0), not {text:?}"
            )
        };
        match text.split_once('.') {
            Some((c, p)) => match (c.parse::<i64>(), p.parse::<i64>()) {
                (Ok(c), Ok(p)) => Ok(Wanted::Id(c, p)),
                _ => Err(bad()),
            },
            None => text.parse().map(Wanted::Index).map_err(|_| bad()),
        }
    }
}

/// What the analysis needs of the queue.
struct Queue {
    /// The jobs named, in the order named.
    picked: Vec<Arc<ClassAd>>,
    /// Their indices in the file.
    picked_at: Vec<usize>,
    /// The whole queue's autoclusters, when asked for.
    clusters: Option<Autoclusters>,
}

/// Reads the queue at `path` in parts on every core, as `classad match` does:
/// with `whole`, clustered as it comes (a job per match class kept), else
/// keeping only the jobs `wanted` names. A large queue is never held whole.
fn read_queue(path: &str, wanted: &[Wanted], whole: Option<QueueReader>) -> Result<Queue, String> {
    if let Some(reader) = whole {
        let input = open_input(path, 1 << 20)?;
        let queue = reader.read(input, display_name(path), |_| (), |()| ())?;
        if queue.is_empty() {
            return Err(format!("{path}: no job ads in the file"));
        }
        return Ok(Queue {
            picked: Vec::new(),
            picked_at: Vec::new(),
            clusters: queue.into_clusters(),
        });
    }
    let by_id = wanted.iter().any(|w| matches!(w, Wanted::Id(..)));
    let mut found: Vec<Option<(usize, Arc<ClassAd>)>> = vec![None; wanted.len()];
    let mut offset = 0usize;
    let map = |ads: Vec<ClassAd>| {
        let ids: Vec<(i64, i64)> = if by_id {
            ads.iter().map(job_id_parts).collect()
        } else {
            Vec::new()
        };
        (ids, ads)
    };
    let sink = |(ids, ads): (Vec<(i64, i64)>, Vec<ClassAd>)| {
        for (w, slot) in wanted.iter().zip(found.iter_mut()) {
            if slot.is_some() {
                continue;
            }
            let at = match *w {
                Wanted::Index(i) => (offset..offset + ads.len())
                    .contains(&i)
                    .then(|| i - offset),
                Wanted::Id(c, p) => ids.iter().position(|&id| id == (c, p)),
            };
            if let Some(k) = at {
                *slot = Some((offset + k, Arc::new(ads[k].clone())));
            }
        }
        offset += ads.len();
    };
    read_in_parts(path, map, sink)?;
    if offset == 0 {
        return Err(format!("{path}: no job ads in the file"));
    }
    let mut picked = Vec::with_capacity(wanted.len());
    let mut picked_at = Vec::with_capacity(wanted.len());
    for (w, f) in wanted.iter().zip(found) {
        match (f, w) {
            (Some((at, job)), _) => {
                picked.push(job);
                picked_at.push(at);
            }
            (None, Wanted::Id(c, p)) => return Err(format!("no job {c}.{p} in {path}")),
            (None, Wanted::Index(i)) => {
                return Err(format!(
                    "job index {i} is out of range: {path} has {offset} job ads (0 to {})",
                    offset - 1
                ))
            }
        }
    }
    Ok(Queue {
        picked,
        picked_at,
        clusters: None,
    })
}

fn write_json(out: &mut impl Write, v: &serde_json::Value) -> Result<(), Failure> {
    serde_json::to_writer_pretty(&mut *out, v)
        .map_err(|e| output_error(std::io::Error::other(e)))?;
    writeln!(out).map_err(output_error)
}

/// The negotiator's policy of `--config` (default: HTCondor's defaults).
fn load_policy(path: Option<&str>) -> Result<NegotiatorPolicy, Failure> {
    let Some(path) = path else {
        return Ok(NegotiatorPolicy::default());
    };
    let text = super::io::read_text_file(path)?;
    let config = Config::parse(&text, path).map_err(|e| e.to_string())?;
    let (policy, warnings) = NegotiatorPolicy::from_config(&config).map_err(|e| e.to_string())?;
    for w in warnings {
        super::io::to_stderr(&format!("warning: {w}"))?;
    }
    Ok(policy)
}

/// The ads of `path`, which must hold at least one (`what`: `job` or `slot`).
fn load_nonempty(path: &str, what: &str) -> Result<Vec<Arc<ClassAd>>, String> {
    let ads = load_ads(path)?;
    if ads.is_empty() {
        return Err(format!("{path}: no {what} ads in the file"));
    }
    Ok(ads.into_iter().map(Arc::new).collect())
}

/// The slots `wanted` names: an index, or every slot whose `Name` or `Machine`
/// is `wanted` (as condor_q's `-machine` selects them).
fn find_slots(slots: &[Arc<ClassAd>], wanted: &str, file: &str) -> Result<Vec<usize>, String> {
    if let Ok(i) = wanted.parse::<usize>() {
        if i >= slots.len() {
            return Err(format!(
                "slot index {i} is out of range: {file} has {} slot ads (0 to {})",
                slots.len(),
                slots.len() - 1
            ));
        }
        return Ok(vec![i]);
    }
    let named = |ad: &Arc<ClassAd>, attr: &str| matches!(eval_attr(ad, attr, None, Semantics::Htcondor), Ok(Value::Str(s)) if s.as_str() == wanted);
    let found: Vec<usize> = (0..slots.len())
        .filter(|&i| named(&slots[i], "Name") || named(&slots[i], "Machine"))
        .collect();
    if found.is_empty() {
        return Err(format!(
            "no slot named {wanted:?} in {file} (by index, Name or Machine)"
        ));
    }
    Ok(found)
}

/// A slot's `Name`, or `""` (as HTCondor prints a slot without one).
pub fn slot_name(slot: &Arc<ClassAd>) -> String {
    match eval_attr(slot, "Name", None, Semantics::Htcondor) {
        Ok(Value::Str(s)) => s.as_str().to_string(),
        _ => String::new(),
    }
}
