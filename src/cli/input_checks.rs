//! What the commands that run a cycle (`negotiate`, `match --negotiate`,
//! `bench`) say on standard error about inputs that would otherwise change the
//! cycle in silence: a Requirements that is error against every ad of the other
//! side, jobs that name no submitter, files given the other way round, and
//! priorities lines that find no submitter. Each warning names the file and the
//! first ad or line at fault.

use super::error_count::{AloneErrors, ErrorCount};
use super::Failure;
use crate::ad::ClassAd;
use crate::matching::Autoclusters;
use crate::negotiate::{CycleOutcome, QueueFacts, Unmatched};
use rayon::prelude::*;
use std::sync::Arc;

/// The files a cycle read, as the user named them (`None`: built in, or not
/// given).
#[derive(Clone, Copy, Debug, Default)]
pub struct InputFiles<'a> {
    /// `--jobs`.
    pub jobs: Option<&'a str>,
    /// `--machines`.
    pub machines: Option<&'a str>,
    /// `--priorities`.
    pub priorities: Option<&'a str>,
}

/// What is learnt of the slots while they are held, before the queue is read.
#[derive(Debug)]
pub struct SlotChecks {
    /// Slots whose Requirements is error alone.
    alone: AloneErrors,
    /// The slot ads whose `MyType` is `"Job"`: how many, the first, and how
    /// many slot ads were read.
    job_typed: (usize, Option<usize>, usize),
}

impl SlotChecks {
    /// The checks of `slots`, in file order.
    pub fn of(slots: &[Arc<ClassAd>]) -> SlotChecks {
        SlotChecks {
            alone: AloneErrors::of_ads(slots),
            job_typed: job_typed(slots),
        }
    }
}

/// Everything checked of a cycle's inputs, ready to be said.
#[derive(Debug)]
pub struct InputChecks {
    /// Jobs whose Requirements is error against every slot.
    pub job_errors: ErrorCount,
    /// Slots whose Requirements is error against every class of jobs.
    pub slot_errors: ErrorCount,
    /// See [`SlotChecks`].
    pub job_typed_slots: (usize, Option<usize>, usize),
}

impl InputChecks {
    /// The checks of a queue clustered as `clusters`, the slots checked in
    /// `slots`, and `table_ads`, the slots that take part in the cycle.
    pub fn of_classes(
        clusters: &Autoclusters,
        slots: SlotChecks,
        table_ads: &[Arc<ClassAd>],
    ) -> InputChecks {
        InputChecks {
            job_errors: AloneErrors::of_classes(clusters).against(table_ads),
            slot_errors: slots.alone.against(clusters.representatives()),
            job_typed_slots: slots.job_typed,
        }
    }

    /// The checks of a queue held whole, each job on its own.
    pub fn of_jobs(
        jobs: &[Arc<ClassAd>],
        slots: SlotChecks,
        table_ads: &[Arc<ClassAd>],
    ) -> InputChecks {
        InputChecks {
            job_errors: AloneErrors::of_ads(jobs).against(table_ads),
            slot_errors: slots.alone.against(jobs),
            job_typed_slots: slots.job_typed,
        }
    }

    /// Says on standard error what would change the cycle's result in
    /// silence: fewer matches, jobs left out, files swapped, or priorities that
    /// apply to no one.
    pub fn warn(
        &self,
        files: InputFiles<'_>,
        facts: &QueueFacts,
        outcome: &CycleOutcome,
    ) -> Result<(), Failure> {
        let jobs = files.jobs.unwrap_or("<built-in jobs>");
        let machines = files.machines.unwrap_or("<built-in machines>");
        self.job_errors.warn_matches_nothing("jobs", "slot", jobs)?;
        self.slot_errors
            .warn_matches_nothing("slots", "job", machines)?;
        let unmatched = &outcome.unmatched;
        if let Some(first) = unmatched.first(Unmatched::NoSubmitter) {
            super::io::to_stderr(&format!(
                "warning: {} of {} jobs name no submitter (no AccountingGroup, User or Owner): \
                 left out of the cycle, listed as unmatched with reason \"no submitter\" \
                 (first: {jobs}, ad {first} counting from 0)",
                unmatched.count(Unmatched::NoSubmitter),
                facts.len(),
            ))?;
        }
        // Files given the other way round read and even match: said by name.
        let slot_typed = facts.jobs.iter().filter(|f| f.slot_ad).count();
        if slot_typed * 2 > facts.len() {
            let first = facts.jobs.iter().position(|f| f.slot_ad).unwrap_or(0);
            swapped_warning(
                slot_typed,
                facts.len(),
                "jobs",
                jobs,
                "\"Machine\" or \"Slot\"",
                first,
            )?;
        }
        let (job_typed, first, total) = self.job_typed_slots;
        if job_typed * 2 > total {
            let first = first.unwrap_or(0);
            swapped_warning(job_typed, total, "machines", machines, "\"Job\"", first)?;
        }
        if let (Some(first), Some(file)) = (outcome.unfound_priorities.first(), files.priorities) {
            super::io::to_stderr(&format!(
                "warning: {} lines of --priorities {file} name no submitter of the jobs or of \
                 the slots' claims, so they change nothing (first: {file}:{}: {:?}); names are \
                 compared with and without their @domain",
                outcome.unfound_priorities.len(),
                first.line,
                first.name,
            ))?;
        }
        Ok(())
    }
}

/// `warning: N of M ads of --<option> FILE have MyType <my_type> ...`.
fn swapped_warning(
    n: usize,
    total: usize,
    option: &str,
    file: &str,
    my_type: &str,
    first: usize,
) -> Result<(), Failure> {
    super::io::to_stderr(&format!(
        "warning: {n} of {total} ads of --{option} {file} have MyType {my_type} (first: ad \
         {first} counting from 0): are --jobs and --machines the other way round?"
    ))
}

/// How many of `ads` have `MyType` "Job" (ignoring case), the first, and how
/// many ads there are.
fn job_typed(ads: &[Arc<ClassAd>]) -> (usize, Option<usize>, usize) {
    let is_job = |ad: &Arc<ClassAd>| {
        matches!(
            crate::eval::eval_attr(ad, "MyType", None, crate::eval::Semantics::Htcondor),
            Ok(classad_vm::Value::Str(t)) if t.as_str().eq_ignore_ascii_case("Job")
        )
    };
    // On every core: 400,000 slots are each an evaluation.
    let n = ads.par_iter().filter(|ad| is_job(ad)).count();
    let first = (n > 0)
        .then(|| ads.par_iter().position_first(is_job))
        .flatten();
    (n, first, ads.len())
}
