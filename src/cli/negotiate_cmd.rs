//! `classad negotiate`: one emulated negotiation cycle over a queue and a pool,
//! printed as the matches in the order made (text) or with everything the cycle
//! knows (JSON).

use super::cycle::{
    cycle_from_files, evaluation, load_knobs, load_priorities, outcome_json, Format, Start,
};
use super::input_checks::InputFiles;
use super::io::output_error;
use super::progress::Progress;
use super::Failure;
use crate::negotiate::accounts::Accounts;
use crate::negotiate::CycleKnobs;
use clap::Args;
use std::io::Write;
use std::process::ExitCode;

/// Arguments of `classad negotiate`.
#[derive(Args, Debug)]
pub struct NegotiateArgs {
    /// Job ads (old syntax separated by blank lines, new syntax, or JSON; `-` for
    /// standard input).
    #[arg(long, requires = "machines")]
    jobs: Option<String>,
    /// Slot ads.
    #[arg(long, requires = "jobs")]
    machines: Option<String>,
    /// The negotiator's configuration, in HTCondor's syntax (`$(...)` references
    /// at most 64 deep, bringing at most 16 MiB and 1,000,000 references into a
    /// value).
    #[arg(long)]
    config: Option<String>,
    /// The accountant's state: `condor_userprio -l`, or lines `<submitter>
    /// <real priority> [<priority factor> [<weighted usage> [<floor>
    /// [<ceiling>]]]]`, each number from 0 to 1e100 (a ceiling of -1: none).
    #[arg(long)]
    priorities: Option<String>,
    /// The accountant's records, as `--accountant-out` writes them
    /// (`condor_userprio -l`'s layout): the cycle starts from them as
    /// HTCondor's negotiator does at `--now` (priorities aged by
    /// `PRIORITY_HALFLIFE`, claims and usage found again from the slots'
    /// `Claimed` and `Preempting` ads).
    #[arg(long, conflicts_with = "priorities")]
    accountant: Option<String>,
    /// Writes the accountant's records after the cycle, its matches charged,
    /// in the layout `--accountant` reads (starting from no records without
    /// `--accountant`).
    #[arg(long, conflicts_with = "priorities")]
    accountant_out: Option<String>,
    /// The cycle's time, in seconds since 1970 (default: the records'
    /// `LastUpdate`, so nothing ages; 0 without records).
    #[arg(long)]
    now: Option<i64>,
    /// Threads to match on (default: every core; at most 1024).
    #[arg(long)]
    threads: Option<usize>,
    /// Which evaluator decides the pairs (`reference`: pair by pair on the
    /// tree-walking evaluator, one thread).
    #[arg(long, value_enum, default_value_t)]
    engine: super::EngineArg,
    /// Evaluate every job on its own instead of once per match class (the
    /// autoclusters the cycle negotiates by stay HTCondor's).
    #[arg(long)]
    no_autocluster: bool,
    /// `text`: one line `<job index> <slot index>` per match, in the order made;
    /// `json`: matches, unmatched jobs and the cycle's statistics (a real that
    /// is not finite as the string "INF", "-INF" or "NaN").
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    /// Text lines name the job by `ClusterId.ProcId` and the slot by `Name`
    /// (`#<index>` for a slot without one) instead of their indices, as
    /// `classad match --names` prints them.
    #[arg(long)]
    names: bool,
    /// No summary line on standard error.
    #[arg(long, short)]
    quiet: bool,
    /// List each knob of `--config` the emulator does not read (else they are
    /// counted in one line).
    #[arg(long)]
    verbose: bool,
    /// Report, with each match of a partitionable slot, the further jobs of its
    /// request the schedd would start on the leftovers (`packed` in JSON); they
    /// leave the queue.
    #[arg(long)]
    schedd_packing: bool,
}

/// The accountant's records of `--accountant` (or none, with
/// `--accountant-out` alone) and the cycle's time; `None` without either.
fn load_accounts(
    a: &NegotiateArgs,
    knobs: &CycleKnobs,
) -> Result<Option<(Accounts, i64)>, Failure> {
    if a.accountant.is_none() && a.accountant_out.is_none() {
        // Only the accountant's records have a time to bring to `--now`.
        if a.now.is_some() {
            let what = "--now is the time the accountant's records are brought to: give \
                        --accountant or --accountant-out with it";
            return Err(what.to_string().into());
        }
        return Ok(None);
    }
    let half_life = knobs.priority_half_life;
    let groups: Vec<String> = knobs.groups.iter().map(|g| g.name.clone()).collect();
    let accounts = match &a.accountant {
        Some(path) => {
            let text = super::io::read_text_file(path)?;
            let now = a.now.unwrap_or(0);
            Accounts::from_userprio(&text, path, now, half_life, groups)
                .map_err(|e| e.to_string())?
        }
        None => Accounts::new(a.now.unwrap_or(0), half_life, groups),
    };
    let now = a.now.unwrap_or(accounts.last_update_time);
    Ok(Some((accounts, now)))
}

/// Runs `classad negotiate`.
pub fn run(a: NegotiateArgs) -> Result<ExitCode, Failure> {
    super::io::one_standard_input(&[
        ("--jobs", a.jobs.as_deref()),
        ("--machines", a.machines.as_deref()),
    ])?;
    let workers = super::threads::thread_pool(a.threads)?;
    workers.install(|| run_on_threads(&a))
}

fn run_on_threads(a: &NegotiateArgs) -> Result<ExitCode, Failure> {
    let mut knobs = load_knobs(a.config.as_deref(), a.verbose)?;
    knobs.schedd_packing = a.schedd_packing;
    let how = evaluation(a.engine, a.no_autocluster);
    let (jobs, machines) = (a.jobs.as_deref(), a.machines.as_deref());
    let progress = Progress::on_stderr(a.quiet);
    let mut accounts = load_accounts(a, &knobs)?;
    let default_factor = {
        let k = knobs.clone();
        move |name: &str| k.default_prio_factor_of(name)
    };
    let start = match &mut accounts {
        Some((accounts, now)) => Start::Accounts(accounts, *now),
        None => Start::Priorities(load_priorities(a.priorities.as_deref())?),
    };
    let c = cycle_from_files(jobs, machines, knobs, start, how, &progress)?;
    drop(progress);
    if let (Some((mut accounts, now)), Some(path)) = (accounts, &a.accountant_out) {
        accounts.charge_matches(c.pool.slots(), &c.outcome.matches, now);
        let text = accounts.to_userprio(default_factor);
        std::fs::write(path, text).map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    c.warn(InputFiles {
        jobs,
        machines,
        priorities: a.priorities.as_deref(),
    })?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    match a.format {
        Format::Text if a.names => {
            super::match_output::write_named_matches(&c, &mut out).map_err(output_error)?
        }
        Format::Text => {
            for m in &c.outcome.matches {
                writeln!(out, "{} {}", m.job, m.slot).map_err(output_error)?;
            }
        }
        Format::Json => {
            let v = outcome_json(&c);
            serde_json::to_writer_pretty(&mut out, &v)
                .map_err(|e| output_error(std::io::Error::other(e)))?;
            writeln!(out).map_err(output_error)?;
        }
    }
    out.flush().map_err(output_error)?;
    if !a.quiet {
        let s = &c.outcome.stats;
        super::io::to_stderr(&format!(
            "classad negotiate: {} jobs, {} slots ({} after the trim), {} autoclusters, \
             {} submitters; {} matches, {} rejections, {} pie spins; read {:.3} s, \
             match {:.3} s, negotiate {:.3} s",
            c.facts.len(),
            s.total_slots,
            s.trimmed_slots,
            c.autoclusters,
            c.outcome.submitters.len(),
            s.matches,
            s.rejections,
            s.pie_spins,
            c.read_s,
            s.phase_durations[1],
            s.phase_durations[3],
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}
