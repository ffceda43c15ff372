//! `classad match`: every matching job-machine pair, or a negotiator-style
//! assignment.

use super::error_count::requirements_errors;
use super::io::{load_ads, output_error};
use super::Failure;
use crate::ad::{read_ads, ClassAd};
use crate::eval::{Engine, Semantics};
use crate::matching::{rank, symmetric_match, CompiledPool};
use clap::Args;
use classad_vm::Machine;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

/// The pool used when no files are given: 30 jobs and 40 slots made by the project's
/// pool generator (`gen_pool.py --machines 40 --jobs 30 --seed 1`).
const DEFAULT_JOBS: &str = include_str!("../../tests/conformance/pools/pool1.jobs.ads");
const DEFAULT_MACHINES: &str = include_str!("../../tests/conformance/pools/pool1.machines.ads");

/// Arguments of `classad match`.
#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Job ads (old syntax separated by blank lines, new syntax, or JSON).
    #[arg(long, requires = "machines")]
    jobs: Option<String>,
    /// Machine (slot) ads.
    #[arg(long, requires = "jobs")]
    machines: Option<String>,
    /// Print every symmetric match as `<job index> <machine index>` (0-based).
    #[arg(long)]
    all_pairs: bool,
    /// Which evaluator to use.
    #[arg(long, value_enum, default_value_t)]
    engine: super::EngineArg,
}

/// Runs `classad match`.
pub fn run(a: MatchArgs) -> Result<ExitCode, Failure> {
    let (jobs, machines, job_file, machine_file) = match (&a.jobs, &a.machines) {
        (Some(j), Some(m)) => (load_ads(j)?, load_ads(m)?, j.as_str(), m.as_str()),
        _ => (
            read_ads(DEFAULT_JOBS, "<built-in jobs>").map_err(|e| e.to_string())?,
            read_ads(DEFAULT_MACHINES, "<built-in machines>").map_err(|e| e.to_string())?,
            "<built-in jobs>",
            "<built-in machines>",
        ),
    };
    let jobs: Vec<Arc<ClassAd>> = jobs.into_iter().map(Arc::new).collect();
    let machines: Vec<Arc<ClassAd>> = machines.into_iter().map(Arc::new).collect();
    // Error on its own, a Requirements matches nothing: say so rather than print
    // no pairs in silence.
    let alone = "Requirements (evaluated alone, with no TARGET)";
    requirements_errors(&jobs).warn(alone, "jobs", job_file);
    requirements_errors(&machines).warn(alone, "machines", machine_file);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let matcher = Matcher::new(a.engine.into(), &jobs, &machines);
    let lines = if a.all_pairs {
        all_pairs(&matcher, jobs.len(), machines.len())
    } else {
        assign(&matcher, jobs.len(), machines.len())
    };
    for (j, m) in lines {
        writeln!(out, "{j} {m}").map_err(output_error)?;
    }
    out.flush().map_err(output_error)?;
    Ok(ExitCode::SUCCESS)
}

/// Symmetric match and rank on the chosen engine.
enum Matcher<'a> {
    Vm(Box<CompiledPool>, Box<std::cell::RefCell<Machine>>),
    Reference(&'a [Arc<ClassAd>], &'a [Arc<ClassAd>]),
}

impl<'a> Matcher<'a> {
    fn new(engine: Engine, jobs: &'a [Arc<ClassAd>], machines: &'a [Arc<ClassAd>]) -> Self {
        match engine {
            Engine::Vm => Matcher::Vm(
                Box::new(CompiledPool::new(jobs, machines)),
                Box::new(std::cell::RefCell::new(Machine::new())),
            ),
            Engine::Reference => Matcher::Reference(jobs, machines),
        }
    }

    fn matches(&self, j: usize, m: usize) -> bool {
        match self {
            Matcher::Vm(pool, vm) => pool.symmetric_match(&mut vm.borrow_mut(), j, m),
            Matcher::Reference(jobs, machines) => {
                symmetric_match(&jobs[j], &machines[m], Semantics::Htcondor)
            }
        }
    }

    fn job_rank(&self, j: usize, m: usize) -> f64 {
        match self {
            Matcher::Vm(pool, vm) => pool.rank(&mut vm.borrow_mut(), j, m, true),
            Matcher::Reference(jobs, machines) => rank(&jobs[j], &machines[m], Semantics::Htcondor),
        }
    }
}

/// Every symmetric match, sorted by job then machine.
fn all_pairs(matcher: &Matcher<'_>, jobs: usize, machines: usize) -> Vec<(usize, usize)> {
    if let Matcher::Vm(pool, vm) = matcher {
        return pool.all_pairs(&mut vm.borrow_mut());
    }
    let mut out = Vec::new();
    for j in 0..jobs {
        for m in 0..machines {
            if matcher.matches(j, m) {
                out.push((j, m));
            }
        }
    }
    out
}

/// One slot per job, jobs in file order, each taking the free matching slot its
/// Rank prefers (the earlier slot on a tie), as the negotiator does for one submitter
/// with default settings.
fn assign(matcher: &Matcher<'_>, jobs: usize, machines: usize) -> Vec<(usize, usize)> {
    let mut taken = vec![false; machines];
    let mut out = Vec::new();
    for j in 0..jobs {
        let mut best: Option<(usize, f64)> = None;
        for (m, &is_taken) in taken.iter().enumerate() {
            if is_taken || !matcher.matches(j, m) {
                continue;
            }
            let r = matcher.job_rank(j, m);
            if best.is_none_or(|(_, b)| r > b) {
                best = Some((m, r));
            }
        }
        if let Some((m, _)) = best {
            taken[m] = true;
            out.push((j, m));
        }
    }
    out
}
