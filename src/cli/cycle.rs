//! The negotiation cycle as the commands share it (`negotiate`, `match`,
//! `bench`): its inputs loaded from files (or the built-in pool) with their
//! warnings, the cycle run through the library's [`Pool`], and everything it
//! did as one JSON object.

use super::input_checks::{InputChecks, InputFiles, SlotChecks};
use super::io::load_ads;
use super::json_real::{real, scalar};
use super::match_output::{job_id, slot_names};
use super::progress::{plain_size, Progress};
use super::Failure;
use crate::ad::files::display_name;
use crate::ad::{read_ads, ClassAd};
use crate::matching::config::Config;
use crate::matching::policy::NOT_READ;
use crate::negotiate::accounts::Accounts;
use crate::negotiate::{CycleKnobs, CycleOutcome, CyclePhase, Pool, Priorities, Queue, QueueFacts};
use serde_json::json;
use std::sync::Arc;
use std::time::Instant;

/// The pool used when no files are given (as `classad match` uses it).
const DEFAULT_JOBS: &str = include_str!("../../tests/conformance/pools/pool1.jobs.ads");
const DEFAULT_MACHINES: &str = include_str!("../../tests/conformance/pools/pool1.machines.ads");

/// Output formats.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// One line per match.
    #[default]
    Text,
    /// One JSON object.
    Json,
}

/// The knobs of `--config`, with the configuration's notes (templates
/// ignored, `warning :` lines) and the knobs the emulator does not read on
/// standard error: each of those with `verbose`, else counted in one line
/// (a `condor_config_val -dump` has a thousand).
pub fn load_knobs(path: Option<&str>, verbose: bool) -> Result<CycleKnobs, Failure> {
    let Some(path) = path else {
        return Ok(CycleKnobs::default());
    };
    let text = super::io::read_text_file(path)?;
    let config = Config::parse(&text, path).map_err(|e| e.to_string())?;
    for note in config.notes() {
        super::io::to_stderr(&format!("warning: {note}"))?;
    }
    let (knobs, warnings) = CycleKnobs::from_config(&config).map_err(|e| e.to_string())?;
    let (not_read, others): (Vec<String>, Vec<String>) =
        warnings.into_iter().partition(|w| w.ends_with(NOT_READ));
    for w in others {
        super::io::to_stderr(&format!("warning: {w}"))?;
    }
    if verbose || not_read.len() <= 3 {
        for w in &not_read {
            super::io::to_stderr(&format!("warning: {w}"))?;
        }
    } else {
        super::io::to_stderr(&format!(
            "warning: {} knobs of --config {path} are not ones the emulator reads; ignored \
             (first: {}; `classad negotiate --verbose` lists them)",
            not_read.len(),
            not_read[0]
                .strip_suffix(&format!(": {NOT_READ}"))
                .unwrap_or(&not_read[0]),
        ))?;
    }
    Ok(knobs)
}

/// The priorities of `--priorities`.
pub fn load_priorities(path: Option<&str>) -> Result<Priorities, Failure> {
    let Some(path) = path else {
        return Ok(Priorities::default());
    };
    let text = super::io::read_text_file(path)?;
    Ok(Priorities::parse(&text, path).map_err(|e| e.to_string())?)
}

/// Reads the queue of `--jobs` (or the built-in one) against `pool`, in parts
/// on every core: each part clustered and its jobs' facts worked out, then
/// dropped but for a job per class.
pub fn read_queue(path: Option<&str>, pool: &Pool, progress: &Progress) -> Result<Queue, String> {
    let read = match path {
        None => pool.read_queue(DEFAULT_JOBS.as_bytes(), "<built-in jobs>"),
        Some(path) => {
            let phase = progress.reading("reading and clustering the jobs", plain_size(path));
            let input = phase.count(super::io::open_input(path, 1 << 20)?);
            let name = if path == "-" { "<stdin>" } else { path };
            pool.read_queue(input, name)
        }
    };
    read.map_err(|e| e.to_string())
}

/// The slots of `--machines` (or the built-in pool).
pub fn load_slots(path: Option<&str>, progress: &Progress) -> Result<Vec<Arc<ClassAd>>, String> {
    let Some(path) = path else {
        let ads = read_ads(DEFAULT_MACHINES, "<built-in machines>").map_err(|e| e.to_string())?;
        return Ok(ads.into_iter().map(Arc::new).collect());
    };
    let phase = progress.reading("reading the slots", plain_size(path));
    let input = phase.count(super::io::open_input(path, 1 << 20)?);
    let mut slots = Vec::new();
    let map = |ads: Vec<ClassAd>| ads.into_iter().map(Arc::new).collect::<Vec<_>>();
    crate::ad::files::read_reader_in_parts(input, display_name(path), map, |part| {
        slots.extend(part)
    })?;
    Ok(slots)
}

/// One cycle from files: the outcome, the slot table and the queue's facts.
pub struct Cycle {
    /// What the cycle did.
    pub outcome: CycleOutcome,
    /// The pool it ran on (the slots that existed for it).
    pub pool: Pool,
    /// The jobs' facts.
    pub facts: QueueFacts,
    /// How many autoclusters the queue has.
    pub autoclusters: usize,
    /// How many match classes they were evaluated in.
    pub classes: usize,
    /// Seconds reading the slots and the queue (clustering and compiling included).
    pub read_s: f64,
    /// What was checked of the inputs, to be said.
    pub checks: InputChecks,
}

impl Cycle {
    /// The cycle `outcome` on `pool` and `queue`, with the `read_s` seconds of
    /// reading counted as its first phase.
    fn of(
        mut outcome: CycleOutcome,
        pool: Pool,
        queue: Queue,
        read_s: f64,
        checks: InputChecks,
    ) -> Cycle {
        outcome.stats.phase_durations[0] = read_s;
        outcome.stats.duration += read_s;
        Cycle {
            outcome,
            pool,
            autoclusters: queue.clusters().len(),
            classes: queue.clusters().class_count(),
            facts: queue.into_facts(),
            read_s,
            checks,
        }
    }

    /// Says on standard error what would change the cycle's result in silence
    /// (see [`InputChecks::warn`]).
    pub fn warn(&self, files: InputFiles<'_>) -> Result<(), Failure> {
        self.checks.warn(files, &self.facts, &self.outcome)
    }
}

/// How a cycle's pairs are evaluated.
#[derive(Clone, Copy, Debug)]
pub struct Evaluation {
    /// The evaluator.
    pub engine: crate::engine::Engine,
    /// Once per match class (true) or per job.
    pub autocluster: bool,
}

/// What the accountant's side of a cycle starts from.
pub enum Start<'a> {
    /// A priorities file: each submitter's usage as the file gives it.
    Priorities(Priorities),
    /// The accountant's records, brought to the time given as HTCondor's
    /// negotiator brings them (`Pool::with_accounts`): usage from the slots'
    /// claims.
    Accounts(&'a mut Accounts, i64),
}

/// Reads the pool and the queue and runs a cycle.
pub fn cycle_from_files(
    jobs: Option<&str>,
    machines: Option<&str>,
    knobs: CycleKnobs,
    start: Start<'_>,
    how: Evaluation,
    progress: &Progress,
) -> Result<Cycle, String> {
    let started = Instant::now();
    let slots = load_slots(machines, progress)?;
    let slot_checks = SlotChecks::of(&slots);
    let pool = match start {
        Start::Priorities(p) => Pool::new(&slots, knobs, p),
        Start::Accounts(accounts, now) => Pool::with_accounts(&slots, knobs, accounts, now),
    };
    drop(slots);
    if how.engine == crate::engine::Engine::Vm && how.autocluster {
        // The queue is read in parts, each part's ads dropped once clustered,
        // while the slots compile.
        let (compiled, queue) = rayon::join(
            || {
                let _phase = progress.phase("compiling the slots");
                pool.compile()
            },
            || read_queue(jobs, &pool, progress),
        );
        let queue = queue?;
        let read_s = started.elapsed().as_secs_f64();
        let checks = InputChecks::of_classes(queue.clusters(), slot_checks, &pool.slots().ads);
        let mut phase = None;
        let outcome = pool.negotiate_compiled(&queue, compiled, |p| {
            // The phase before is over (its line cleared) as the next starts.
            drop(phase.take());
            phase = Some(progress.phase(match p {
                CyclePhase::Matching => "matching every class against the slots",
                CyclePhase::Negotiating => "negotiating",
            }));
        });
        drop(phase);
        return Ok(Cycle::of(outcome, pool, queue, read_s, checks));
    }
    let reading = progress.phase("reading the jobs");
    let ads: Vec<Arc<ClassAd>> = match jobs {
        Some(j) => load_ads(j)?,
        None => read_ads(DEFAULT_JOBS, "<built-in jobs>").map_err(|e| e.to_string())?,
    }
    .into_iter()
    .map(Arc::new)
    .collect();
    let checks = InputChecks::of_jobs(&ads, slot_checks, &pool.slots().ads);
    let mut queue = pool.queue(&ads);
    if !how.autocluster {
        queue = queue.one_class_per_job(&ads);
    }
    drop((reading, ads));
    let read_s = started.elapsed().as_secs_f64();
    let _cycle = progress.phase("matching and negotiating");
    let outcome = match how.engine {
        crate::engine::Engine::Vm => pool.negotiate(&queue),
        crate::engine::Engine::Reference => pool.negotiate_on_reference(&queue),
    };
    Ok(Cycle::of(outcome, pool, queue, read_s, checks))
}

/// The evaluation `--engine` and `--no-autocluster` ask for.
pub fn evaluation(engine: super::EngineArg, no_autocluster: bool) -> Evaluation {
    Evaluation {
        engine: engine.into(),
        autocluster: !no_autocluster,
    }
}

/// Everything the cycle did, as one JSON object.
pub fn outcome_json(c: &Cycle) -> serde_json::Value {
    let name_of_slot: ahash::AHashMap<u32, Option<String>> = c
        .pool
        .slots()
        .file_index
        .iter()
        .copied()
        .zip(slot_names(&c.pool.slots().ads))
        .collect();
    let matches: Vec<serde_json::Value> = c
        .outcome
        .matches
        .iter()
        .map(|m| {
            json!({
                "job": m.job,
                "job_id": job_id(&c.facts.jobs[m.job as usize]),
                "slot": m.slot,
                "slot_name": name_of_slot.get(&m.slot).cloned().flatten(),
                "submitter": &*m.submitter,
                "group": m.group.as_deref(),
                "autocluster": m.autocluster,
                "pre_job_rank": real(m.key.pre),
                "job_rank": real(m.key.rank),
                "post_job_rank": real(m.key.post),
                "preemption": m.preempt.name(),
                "cost": real(m.cost),
                "pie_spin": m.spin,
                "packed": m.packed,
            })
        })
        .collect();
    let unmatched: Vec<serde_json::Value> = c
        .outcome
        .unmatched
        .iter()
        .map(|(j, why)| {
            let f = &c.facts.jobs[j as usize];
            json!({
                "job": j,
                "job_id": job_id(f),
                "submitter": c.facts.submitter(j as usize).as_deref(),
                "reason": why.name(),
            })
        })
        .collect();
    let submitters: Vec<serde_json::Value> = c
        .outcome
        .submitters
        .iter()
        .map(|s| {
            json!({
                "name": &*s.name,
                "group": s.group.as_deref(),
                "effective_priority": real(s.priority),
                "usage_before": real(s.usage_before),
                "usage_after": real(s.usage_after),
                "idle_jobs": s.idle_jobs,
                "matches": s.matches,
            })
        })
        .collect();
    let mut stats = serde_json::Map::new();
    for (name, v) in c.outcome.stats.named() {
        stats.insert(name.to_string(), scalar(&v));
    }
    // Not negotiator-ad names: the jobs the cycle could give no turn, and the
    // priorities lines that apply to no one.
    stats.insert(
        "jobs_without_submitter".to_string(),
        json!(c.outcome.stats.jobs_without_submitter),
    );
    let [machine, reference] = c.outcome.stats.policy_evaluations;
    stats.insert(
        "policy_evaluations".to_string(),
        json!({ "machine": machine, "reference": reference }),
    );
    stats.insert(
        "priority_lines_without_submitter".to_string(),
        json!(c.outcome.stats.priority_lines_without_submitter),
    );
    stats.insert(
        "floor_rounds".to_string(),
        json!(c.outcome.stats.floor_rounds),
    );
    let limits: Vec<serde_json::Value> = c
        .outcome
        .concurrency_limits
        .iter()
        .map(|l| {
            json!({
                "name": l.name,
                "before": real(l.before),
                "after": real(l.after),
                "maximum": real(l.maximum),
            })
        })
        .collect();
    json!({
        "matches": matches,
        "unmatched": unmatched,
        "submitters": submitters,
        "concurrency_limits": limits,
        "stats": stats,
    })
}
