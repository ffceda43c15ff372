//! `classad bench`: the negotiator-throughput benchmark. A pool is generated (or
//! read), then parsed, compiled, clustered, matched and negotiated, each phase
//! timed, and reported with the negotiator ad's statistics.

use super::cycle::{load_knobs, load_priorities};
use super::input_checks::{InputChecks, InputFiles, SlotChecks};
use super::io::{read_in_parts, read_reader_in_parts};
use super::json_real::{real, scalar};
use super::progress::Progress;
use super::Failure;
use crate::ad::ClassAd;
use crate::generate::{Pool as GeneratedPool, PoolSpec, Syntax};
use crate::negotiate::{CycleOutcome, CyclePhase, Pool, Priorities};
use crate::values::display::unparse_value_old;
use crate::Value;
use clap::Args;
use serde_json::json;
use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

/// Arguments of `classad bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Slots to generate (default 10000, at most 10,000,000), or, with `--jobs`,
    /// the slot ads to read.
    #[arg(long)]
    machines: Option<String>,
    /// Jobs to generate (default 100000, at most 10,000,000), or, with
    /// `--machines`, the job ads to read.
    #[arg(long)]
    jobs: Option<String>,
    /// The generator's seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The accountant's state (`classad negotiate --priorities`); a generated
    /// pool comes with its own.
    #[arg(long)]
    priorities: Option<String>,
    /// Threads (default: every core; at most 1024).
    #[arg(long)]
    threads: Option<usize>,
    /// Evaluate every job on its own instead of once per match class.
    #[arg(long)]
    no_autocluster: bool,
    /// The negotiator's configuration, in HTCondor's syntax.
    #[arg(long)]
    config: Option<String>,
    /// `text` (a report) or `json` (one object; a real that is not finite as the
    /// string "INF", "-INF" or "NaN").
    #[arg(long, value_enum, default_value_t)]
    format: super::cycle::Format,
}

/// Where the pool comes from.
enum Source {
    Generated(PoolSpec),
    Files { jobs: String, machines: String },
}

/// A number argument, or a file when not a number (with `--jobs` and
/// `--machines` both files).
fn source(a: &BenchArgs) -> Result<Source, String> {
    let count = |s: &Option<String>, default: usize| -> Option<usize> {
        match s {
            None => Some(default),
            Some(s) => s.replace('_', "").parse().ok(),
        }
    };
    match (count(&a.machines, 10_000), count(&a.jobs, 100_000)) {
        (Some(machines), Some(jobs)) => {
            let spec = PoolSpec {
                machines,
                jobs,
                seed: a.seed,
                submitters: None,
                signatures: None,
            };
            spec.check().map_err(|e| format!("--{e}"))?;
            Ok(Source::Generated(spec))
        }
        (None, None) => Ok(Source::Files {
            jobs: a.jobs.clone().expect("a file name"),
            machines: a.machines.clone().expect("a file name"),
        }),
        _ => Err("--machines and --jobs are both counts (to generate a pool) or both files".into()),
    }
}

/// Runs `classad bench`.
pub fn run(a: BenchArgs) -> Result<ExitCode, Failure> {
    super::io::one_standard_input(&[
        ("--jobs", a.jobs.as_deref()),
        ("--machines", a.machines.as_deref()),
    ])?;
    let workers = super::threads::thread_pool(a.threads)?;
    let threads = workers.current_num_threads();
    workers.install(|| run_on_threads(&a, threads))
}

/// Each phase's seconds.
#[derive(Default)]
struct Phases {
    generate: f64,
    parse: f64,
    compile: f64,
    cluster: f64,
    matching: f64,
    negotiate: f64,
}

/// Times `f` as a phase of `progress`.
fn timed<T>(progress: &Progress, message: &str, seconds: &mut f64, f: impl FnOnce() -> T) -> T {
    let _phase = progress.phase(message);
    let t = Instant::now();
    let r = f();
    *seconds = t.elapsed().as_secs_f64();
    r
}

/// Parses ads from a reader in parts on every core.
fn parse_ads(reader: impl BufRead + Send, file: &str) -> Result<Vec<Arc<ClassAd>>, String> {
    let mut out = Vec::new();
    let map = |ads: Vec<ClassAd>| ads.into_iter().map(Arc::new).collect::<Vec<_>>();
    read_reader_in_parts(reader, file, map, |part| out.extend(part))?;
    Ok(out)
}

/// Parses the ads of the file `path` in parts on every core.
fn parse_file(path: &str) -> Result<Vec<Arc<ClassAd>>, String> {
    let mut out = Vec::new();
    let map = |ads: Vec<ClassAd>| ads.into_iter().map(Arc::new).collect::<Vec<_>>();
    read_in_parts(path, map, |part| out.extend(part))?;
    Ok(out)
}

/// The process's peak resident memory, in bytes.
fn peak_rss_bytes() -> u64 {
    // SAFETY: getrusage writes into the zeroed struct we pass and reads nothing
    // else; RUSAGE_SELF is always valid.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    // Linux reports kilobytes.
    (usage.ru_maxrss.max(0) as u64) * 1024
}

fn run_on_threads(a: &BenchArgs, threads: usize) -> Result<ExitCode, Failure> {
    let started = Instant::now();
    let knobs = load_knobs(a.config.as_deref(), false)?;
    let mut t = Phases::default();
    let progress = Progress::on_stderr(false);
    let src = source(a)?;
    // Generate (in memory) or open.
    let (jobs_text, machines_text, generated_priorities) = match &src {
        Source::Generated(spec) => {
            let texts = timed(&progress, "generating the pool", &mut t.generate, || {
                let pool = GeneratedPool::new(spec);
                let (mut jobs, mut machines, mut priorities) = (Vec::new(), Vec::new(), Vec::new());
                pool.write_jobs(Syntax::Old, &mut jobs)?;
                pool.write_machines(Syntax::Old, &mut machines)?;
                pool.write_priorities(&mut priorities)?;
                Ok::<_, std::io::Error>((jobs, machines, priorities))
            })
            .map_err(|e| format!("generating the pool: {e}"))?;
            (Some(texts.0), Some(texts.1), Some(texts.2))
        }
        Source::Files { .. } => (None, None, None),
    };
    // The cycle starts here: HTCondor's negotiator reads a pool, it does not
    // make one, so the generation is timed on its own and counted in neither
    // the cycle's duration nor its first phase.
    let cycle_started = Instant::now();
    let priorities = match (&a.priorities, &generated_priorities) {
        (Some(p), _) => load_priorities(Some(p))?,
        (None, Some(text)) => Priorities::parse(&String::from_utf8_lossy(text), "<generated>")
            .map_err(|e| e.to_string())?,
        (None, None) => Priorities::default(),
    };
    // Parse.
    let (jobs, slots) = timed(
        &progress,
        "parsing",
        &mut t.parse,
        || -> Result<_, String> {
            Ok(match &src {
                Source::Generated(_) => {
                    let jt = jobs_text.as_deref().expect("generated");
                    let mt = machines_text.as_deref().expect("generated");
                    (
                        parse_ads(jt, "<generated jobs>")?,
                        parse_ads(mt, "<generated machines>")?,
                    )
                }
                Source::Files { jobs, machines } => (parse_file(jobs)?, parse_file(machines)?),
            })
        },
    )?;
    drop((jobs_text, machines_text));
    // Compile: the slots prepared and compiled.
    let (pool, compiled) = timed(&progress, "compiling", &mut t.compile, || {
        let pool = Pool::new(&slots, knobs, priorities);
        let compiled = pool.compile();
        (pool, compiled)
    });
    // Cluster, reading each job's facts on the way.
    let queue = timed(&progress, "clustering", &mut t.cluster, || {
        let queue = pool.queue(&jobs);
        if a.no_autocluster {
            queue.one_class_per_job(&jobs)
        } else {
            queue
        }
    });
    let (autoclusters, classes) = (queue.clusters().len(), queue.clusters().class_count());
    // Match every class's candidates, then negotiate: each phase timed from
    // the moment it starts.
    let mut phase: Option<(Instant, Option<super::progress::Phase>)> = None;
    let mut matching = 0.0;
    let outcome = pool.negotiate_compiled(&queue, compiled, |p| {
        if let Some((since, _)) = phase.take() {
            matching = since.elapsed().as_secs_f64();
        }
        let what = match p {
            CyclePhase::Matching => "matching",
            CyclePhase::Negotiating => "negotiating",
        };
        phase = Some((Instant::now(), Some(progress.phase(what))));
    });
    if let Some((since, _)) = phase.take() {
        t.negotiate = since.elapsed().as_secs_f64();
    }
    let cycle = cycle_started.elapsed().as_secs_f64();
    t.matching = matching;
    drop(progress);
    // Checked after the cycle, outside its phases: what would change its
    // result in silence is said as `classad negotiate` says it.
    let checks =
        InputChecks::of_classes(queue.clusters(), SlotChecks::of(&slots), &pool.slots().ads);
    let files = match &src {
        Source::Generated(_) => InputFiles {
            jobs: Some("<generated jobs>"),
            machines: Some("<generated machines>"),
            priorities: Some(a.priorities.as_deref().unwrap_or("<generated priorities>")),
        },
        Source::Files { jobs, machines } => InputFiles {
            jobs: Some(jobs),
            machines: Some(machines),
            priorities: a.priorities.as_deref(),
        },
    };
    checks.warn(files, queue.facts(), &outcome)?;
    let evaluations = outcome.stats.evaluations;
    let total = started.elapsed().as_secs_f64();
    let report = Report {
        machines: slots.len(),
        jobs: jobs.len(),
        threads,
        autoclusters,
        classes,
        evaluations,
        phases: t,
        cycle,
        total,
        peak_rss: peak_rss_bytes(),
        outcome,
    };
    let text = match a.format {
        super::cycle::Format::Text => report.text(),
        super::cycle::Format::Json => format!("{:#}\n", report.json()),
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(super::io::output_error)?;
    Ok(ExitCode::SUCCESS)
}

/// What a run measured.
struct Report {
    machines: usize,
    jobs: usize,
    threads: usize,
    autoclusters: usize,
    classes: usize,
    evaluations: u64,
    phases: Phases,
    /// The cycle's seconds, from the ads' parsing to the end of negotiation
    /// (the generation left out).
    cycle: f64,
    /// The whole run's seconds, generation and the input checks included.
    total: f64,
    peak_rss: u64,
    outcome: CycleOutcome,
}

impl Report {
    fn text(&self) -> String {
        let s = &self.outcome.stats;
        let p = &self.phases;
        let after_reading = p.cluster + p.matching + p.negotiate;
        let mut out = format!(
            "classad bench: {} slots, {} jobs, {} threads\n\
             {:<10} {:>8.3} s\n{:<10} {:>8.3} s\n{:<10} {:>8.3} s\n\
             {:<10} {:>8.3} s   {} autoclusters, {} match classes\n\
             {:<10} {:>8.3} s   {} evaluations\n\
             {:<10} {:>8.3} s   {} submitters, {} pie spins, {} matches, {} rejections\n\
             {:<10} {:>8.3} s   (cluster, match, negotiate: {:.3} s)\n\
             peak resident memory {:.1} MB\n",
            self.machines,
            self.jobs,
            self.threads,
            "generate",
            p.generate,
            "parse",
            p.parse,
            "compile",
            p.compile,
            "cluster",
            p.cluster,
            self.autoclusters,
            self.classes,
            "match",
            p.matching,
            self.evaluations,
            "negotiate",
            p.negotiate,
            self.outcome.submitters.len(),
            s.pie_spins,
            s.matches,
            s.rejections,
            "total",
            self.total,
            after_reading,
            self.peak_rss as f64 / 1e6,
        );
        // As `condor_status -negotiator -l` prints the negotiator ad: the
        // library's old-syntax printer (counts `12`, reals `%.16G` with `.0`).
        for (name, v) in self.cycle_stats() {
            out.push_str(&format!("{name} = {}\n", unparse_value_old(&v)));
        }
        out
    }

    /// The negotiator ad's statistics, with this run's phases as its durations
    /// (the generation in none of them).
    fn cycle_stats(&self) -> Vec<(&'static str, Value)> {
        let mut stats = self.outcome.stats.clone();
        let p = &self.phases;
        stats.phase_durations = [
            p.parse + p.compile,
            p.cluster + p.matching,
            stats.phase_durations[2],
            p.negotiate - stats.phase_durations[2],
        ];
        stats.duration = self.cycle;
        stats.named()
    }

    fn json(&self) -> serde_json::Value {
        let p = &self.phases;
        let mut v = json!({
            "machines": self.machines,
            "jobs": self.jobs,
            "threads": self.threads,
            "autoclusters": self.autoclusters,
            "match_classes": self.classes,
            "submitters": self.outcome.submitters.len(),
            "evaluations": self.evaluations,
            "matches": self.outcome.stats.matches,
            "rejections": self.outcome.stats.rejections,
            "pie_spins": self.outcome.stats.pie_spins,
            "generate_s": real(p.generate),
            "parse_s": real(p.parse),
            "compile_s": real(p.compile),
            "cluster_s": real(p.cluster),
            "match_s": real(p.matching),
            "negotiate_s": real(p.negotiate),
            "total_s": real(self.total),
            "peak_rss_bytes": self.peak_rss,
        });
        let map = v.as_object_mut().expect("an object");
        for (name, value) in self.cycle_stats() {
            map.insert(name.to_string(), scalar(&value));
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report of a generated pool: a second generating it, a quarter of a
    /// second of cycle, twelve matches.
    fn report() -> Report {
        let mut outcome = CycleOutcome::default();
        outcome.stats.matches = 12;
        outcome.stats.pie_spins = 3;
        Report {
            machines: 20,
            jobs: 10,
            threads: 1,
            autoclusters: 2,
            classes: 2,
            evaluations: 40,
            phases: Phases {
                generate: 1.0,
                parse: 0.1,
                compile: 0.05,
                cluster: 0.03,
                matching: 0.02,
                negotiate: 0.04,
            },
            cycle: 0.25,
            total: 1.5,
            peak_rss: 1_000_000,
            outcome,
        }
    }

    #[test]
    fn statistics_print_as_htcondor_prints_the_negotiator_ad() {
        let text = report().text();
        for line in [
            // Counts as integers, reals through the old-syntax printer:
            // 0.1 + 0.05 is 0.15000000000000002, which `%.16G` rounds.
            "LastNegotiationCycleMatches0 = 12\n",
            "LastNegotiationCycleSlotShareIter0 = 3\n",
            "LastNegotiationCycleMatchRate0 = 48.0\n",
            "LastNegotiationCyclePhase1Duration0 = 0.15\n",
            "LastNegotiationCyclePhase3Duration0 = 0.0\n",
        ] {
            assert!(text.contains(line), "{line} in {text}");
        }
        let json = report().json();
        assert_eq!(json["LastNegotiationCycleMatches0"].to_string(), "12");
        assert_eq!(json["LastNegotiationCycleMatchRate0"].to_string(), "48.0");
    }

    #[test]
    fn the_generation_is_outside_the_cycle() {
        let stats: Vec<(&str, Value)> = report().cycle_stats();
        let get = |name: &str| stats.iter().find(|(n, _)| *n == name).unwrap().1.clone();
        let real = |name: &str| match get(name) {
            Value::Real(x) => x,
            other => panic!("{name} = {other:?}"),
        };
        assert_eq!(real("LastNegotiationCycleDuration0"), 0.25);
        assert_eq!(real("LastNegotiationCyclePhase1Duration0"), 0.1 + 0.05);
    }
}
