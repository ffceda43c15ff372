//! `classad match`: every matching job-machine pair, or a negotiator-style
//! assignment.

use super::io::load_ads;
use crate::ad::{read_ads, ClassAd};
use crate::eval::Semantics;
use crate::matching::{rank, symmetric_match};
use clap::Args;
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
}

/// Runs `classad match`.
pub fn run(a: MatchArgs) -> Result<ExitCode, String> {
    let (jobs, machines) = match (&a.jobs, &a.machines) {
        (Some(j), Some(m)) => (load_ads(j)?, load_ads(m)?),
        _ => (
            read_ads(DEFAULT_JOBS, "<built-in jobs>").map_err(|e| e.to_string())?,
            read_ads(DEFAULT_MACHINES, "<built-in machines>").map_err(|e| e.to_string())?,
        ),
    };
    let jobs: Vec<Arc<ClassAd>> = jobs.into_iter().map(Arc::new).collect();
    let machines: Vec<Arc<ClassAd>> = machines.into_iter().map(Arc::new).collect();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let lines = if a.all_pairs {
        all_pairs(&jobs, &machines)
    } else {
        assign(&jobs, &machines)
    };
    for (j, m) in lines {
        writeln!(out, "{j} {m}").map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}

/// Every symmetric match, sorted by job then machine.
fn all_pairs(jobs: &[Arc<ClassAd>], machines: &[Arc<ClassAd>]) -> Vec<(usize, usize)> {
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

/// One slot per job, jobs in file order, each taking the free matching slot its
/// Rank prefers (the earlier slot on a tie), as the negotiator does for one submitter
/// with default settings.
fn assign(jobs: &[Arc<ClassAd>], machines: &[Arc<ClassAd>]) -> Vec<(usize, usize)> {
    let mut taken = vec![false; machines.len()];
    let mut out = Vec::new();
    for (j, job) in jobs.iter().enumerate() {
        let mut best: Option<(usize, f64)> = None;
        for (m, machine) in machines.iter().enumerate() {
            if taken[m] || !symmetric_match(job, machine, Semantics::Htcondor) {
                continue;
            }
            let r = rank(job, machine, Semantics::Htcondor);
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
