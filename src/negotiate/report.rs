//! What a cycle hands out and what it publishes: the matches in the order made,
//! the jobs left unmatched with why, and the statistics under the names of
//! HTCondor's negotiator ad (negotiator.md section 11).

use super::matchlist::PreemptState;
use super::priorities::UnfoundPriority;
use crate::matching::batch::RankKey;
use classad_vm::Value;
use std::sync::Arc;

/// One match, as the cycle made it.
#[derive(Clone, Debug, PartialEq)]
pub struct CycleMatch {
    /// The job (index in the queue).
    pub job: u32,
    /// The slot (index among the slots given).
    pub slot: u32,
    /// The job's submitter.
    pub submitter: Arc<str>,
    /// The job's autocluster.
    pub autocluster: u32,
    /// PRE, the job's Rank, POST of the slot for the request.
    pub key: RankKey,
    /// Whether the match preempts the slot's job, and why.
    pub preempt: PreemptState,
    /// What the submitter was charged.
    pub cost: f64,
    /// The pie spin it was made in (1-based).
    pub spin: u32,
    /// The group negotiated for (`None`: no groups configured).
    pub group: Option<Arc<str>>,
    /// With `NEGOTIATOR_DEPTH_FIRST`, the further jobs of the request the
    /// negotiator counted as packed into the same partitionable slot.
    pub packed: Vec<u32>,
}

/// Why an idle job got no slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unmatched {
    /// It fails `NEGOTIATOR_JOB_CONSTRAINT`.
    JobConstraint,
    /// Its autocluster found no slot in its submitter's last turn.
    RejectedAutocluster,
    /// Its submitter's last turn ended at the submitter's limit first (or, past
    /// the limit, found no slot whose Rank prefers it).
    SubmitterLimit,
    /// No turn reached it.
    NotReached,
    /// It names no submitter (no `AccountingGroup`, `User` or `Owner`): the
    /// cycle cannot give it a turn.
    NoSubmitter,
    /// A concurrency limit refused its autocluster's request, or some slot
    /// for it, in its submitter's last turn (section 15).
    ConcurrencyLimit,
    /// Its submitter's ceiling stopped the last turn or kept it from starting
    /// (section 16).
    SubmitterCeiling,
}

impl Unmatched {
    /// The name the reports use.
    pub fn name(self) -> &'static str {
        match self {
            Unmatched::JobConstraint => "job constraint",
            Unmatched::RejectedAutocluster => "rejected autocluster",
            Unmatched::SubmitterLimit => "submitter limit",
            Unmatched::NotReached => "no request reached",
            Unmatched::NoSubmitter => "no submitter",
            Unmatched::ConcurrencyLimit => "concurrency limit",
            Unmatched::SubmitterCeiling => "submitter ceiling",
        }
    }
}

/// The cycle's statistics, as HTCondor's negotiator ad names them (each with the
/// suffix `0` there: the last cycle).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CycleStats {
    /// `LastNegotiationCycleTotalSlots`: slots that exist for the cycle.
    pub total_slots: u64,
    /// `LastNegotiationCycleTrimmedSlots`: slots left after the trim.
    pub trimmed_slots: u64,
    /// `LastNegotiationCycleCandidateSlots`: slots matched against (the trimmed
    /// ones; with groups, the pool size in slots).
    pub candidate_slots: u64,
    /// `LastNegotiationCycleActiveSubmitterCount`: submitters given a turn.
    pub active_submitters: u64,
    /// `LastNegotiationCycleNumIdleJobs`: idle jobs of those submitters.
    pub num_idle_jobs: u64,
    /// `LastNegotiationCycleNumJobsConsidered`: requests for a slot.
    pub num_jobs_considered: u64,
    /// `LastNegotiationCycleMatches`.
    pub matches: u64,
    /// `LastNegotiationCycleRejections`: requests that found no slot.
    pub rejections: u64,
    /// `LastNegotiationCyclePies`: calls of the pie spins (one per group and round).
    pub pies: u64,
    /// `LastNegotiationCyclePieSpins` and `LastNegotiationCycleSlotShareIter`.
    pub pie_spins: u64,
    /// Floor rounds run, one per group with submitters below their floor
    /// (counted among `pies` too; not a negotiator-ad name).
    pub floor_rounds: u64,
    /// (class, slot) pairs whose match was decided (not a negotiator-ad name).
    pub evaluations: u64,
    /// Idle jobs that name no submitter, left out of the cycle (not a
    /// negotiator-ad name; listed among the unmatched as [`Unmatched::NoSubmitter`]).
    pub jobs_without_submitter: u64,
    /// Lines of the priorities file that name no submitter (not a
    /// negotiator-ad name; listed in [`CycleOutcome::unfound_priorities`]).
    pub priority_lines_without_submitter: u64,
    /// The preemption tests' evaluations (`PREEMPTION_REQUIREMENTS`,
    /// `PREEMPTION_RANK` and the rank conditions) that ran on the machine, and
    /// those the reference evaluator made alone (a slot or class met once:
    /// see `engine::Repeated`); not negotiator-ad names.
    pub policy_evaluations: [u64; 2],
    /// Heads of classes' best-first lists made longer after the first pass
    /// as the cycle read past them: each a pass over the class's keys,
    /// evaluating nothing (not a negotiator-ad name).
    pub heads_made: u64,
    /// `LastNegotiationCycleDuration` (seconds, here fractional).
    pub duration: f64,
    /// `LastNegotiationCyclePhase1Duration` .. `Phase4Duration`: ads (reading and
    /// preparing), sorting and priorities (clustering and matching included),
    /// sorting submitters, and matchmaking.
    pub phase_durations: [f64; 4],
}

impl CycleStats {
    /// `LastNegotiationCycleMatchRate`: matches per second.
    pub fn match_rate(&self) -> f64 {
        if self.duration > 0.0 {
            self.matches as f64 / self.duration
        } else {
            0.0
        }
    }

    /// Every statistic under its negotiator-ad name, suffix `0` included, typed
    /// as HTCondor's negotiator ad types it: the counts integers, the durations
    /// (fractional here) and the match rate reals, so that a report prints them
    /// as `condor_status -negotiator -l` would (`12`, not `12.0`).
    pub fn named(&self) -> Vec<(&'static str, Value)> {
        let count = |n: u64| Value::Int(i64::try_from(n).unwrap_or(i64::MAX));
        vec![
            ("LastNegotiationCycleDuration0", Value::Real(self.duration)),
            (
                "LastNegotiationCyclePhase1Duration0",
                Value::Real(self.phase_durations[0]),
            ),
            (
                "LastNegotiationCyclePhase2Duration0",
                Value::Real(self.phase_durations[1]),
            ),
            (
                "LastNegotiationCyclePhase3Duration0",
                Value::Real(self.phase_durations[2]),
            ),
            (
                "LastNegotiationCyclePhase4Duration0",
                Value::Real(self.phase_durations[3]),
            ),
            ("LastNegotiationCycleMatches0", count(self.matches)),
            (
                "LastNegotiationCycleMatchRate0",
                Value::Real(self.match_rate()),
            ),
            (
                "LastNegotiationCycleCandidateSlots0",
                count(self.candidate_slots),
            ),
            (
                "LastNegotiationCycleActiveSubmitterCount0",
                count(self.active_submitters),
            ),
            (
                "LastNegotiationCycleNumIdleJobs0",
                count(self.num_idle_jobs),
            ),
            (
                "LastNegotiationCycleNumJobsConsidered0",
                count(self.num_jobs_considered),
            ),
            ("LastNegotiationCycleRejections0", count(self.rejections)),
            ("LastNegotiationCycleSlotShareIter0", count(self.pie_spins)),
            ("LastNegotiationCyclePieSpins0", count(self.pie_spins)),
            ("LastNegotiationCyclePies0", count(self.pies)),
            ("LastNegotiationCycleTotalSlots0", count(self.total_slots)),
            (
                "LastNegotiationCycleTrimmedSlots0",
                count(self.trimmed_slots),
            ),
        ]
    }
}

/// One submitter as the cycle saw it.
#[derive(Clone, Debug, PartialEq)]
pub struct SubmitterReport {
    /// Its name.
    pub name: Arc<str>,
    /// Its effective priority.
    pub priority: f64,
    /// Its weighted usage before the cycle.
    pub usage_before: f64,
    /// Its weighted usage after (the matches charged).
    pub usage_after: f64,
    /// Its idle jobs.
    pub idle_jobs: u64,
    /// Its matches.
    pub matches: u64,
    /// Its group (`None`: `<none>` or no groups).
    pub group: Option<Arc<str>>,
}

/// Everything a cycle produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CycleOutcome {
    /// The matches, in the order made.
    pub matches: Vec<CycleMatch>,
    /// The idle jobs of a submitter left without a slot, in queue order, with why.
    pub unmatched: UnmatchedJobs,
    /// The submitters, in the order of their first turn, then the others by name.
    pub submitters: Vec<SubmitterReport>,
    /// The statistics.
    pub stats: CycleStats,
    /// The lines of the priorities file that name no submitter of the jobs or
    /// of the slots' claims, in file order.
    pub unfound_priorities: Vec<UnfoundPriority>,
    /// Every concurrency limit the slots' claims or the cycle's matches use,
    /// by name (what the accountant publishes as `ConcurrencyLimit_<name>`).
    pub concurrency_limits: Vec<LimitUse>,
}

/// A concurrency limit's use.
#[derive(Clone, Debug, PartialEq)]
pub struct LimitUse {
    /// Its name, in lower case.
    pub name: String,
    /// What the slots' claims used when the cycle began.
    pub before: f64,
    /// What they use with the cycle's matches.
    pub after: f64,
    /// Its maximum (`<name>_LIMIT` or a default).
    pub maximum: f64,
}

/// The jobs a cycle left unmatched, in queue order, with why: kept as runs of
/// consecutive jobs left for the same reason (the jobs of one cluster come
/// together and are alike), since nearly every job of a large queue is in it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UnmatchedJobs {
    /// (first job, how many, why), in queue order, no two runs mergeable.
    runs: Vec<(u32, u32, Unmatched)>,
    len: usize,
}

impl UnmatchedJobs {
    /// No jobs.
    pub fn new() -> UnmatchedJobs {
        UnmatchedJobs::default()
    }

    /// Adds job `job`, which comes after every job added so far.
    pub fn push(&mut self, job: u32, why: Unmatched) {
        debug_assert!(self.runs.last().is_none_or(|&(f, n, _)| f + n <= job));
        self.len += 1;
        if let Some((first, count, w)) = self.runs.last_mut() {
            if *w == why && *first + *count == job {
                *count += 1;
                return;
            }
        }
        self.runs.push((job, 1, why));
    }

    /// Adds the jobs of `other`, which all come after these.
    pub fn append(&mut self, other: UnmatchedJobs) {
        let mut runs = other.runs.into_iter();
        if let (Some(last), Some(first)) = (self.runs.last_mut(), runs.as_slice().first()) {
            if last.2 == first.2 && last.0 + last.1 == first.0 {
                last.1 += first.1;
                runs.next();
            }
        }
        self.runs.extend(runs);
        self.len += other.len;
    }

    /// How many jobs.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when every idle job was matched.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Each job with why, in queue order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, Unmatched)> + '_ {
        self.runs
            .iter()
            .flat_map(|&(first, count, why)| (first..first + count).map(move |j| (j, why)))
    }

    /// How many jobs were left for `why`.
    pub fn count(&self, why: Unmatched) -> usize {
        self.runs
            .iter()
            .filter(|r| r.2 == why)
            .map(|r| r.1 as usize)
            .sum()
    }

    /// The first job left for `why`.
    pub fn first(&self, why: Unmatched) -> Option<u32> {
        self.runs.iter().find(|r| r.2 == why).map(|r| r.0)
    }

    /// Each job with why, in queue order, in a vector.
    pub fn to_vec(&self) -> Vec<(u32, Unmatched)> {
        self.iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_hold_each_job_once_in_order() {
        let jobs = [
            (0, Unmatched::NotReached),
            (1, Unmatched::NotReached),
            (2, Unmatched::SubmitterLimit),
            (4, Unmatched::SubmitterLimit),
            (5, Unmatched::SubmitterLimit),
            (6, Unmatched::JobConstraint),
            (7, Unmatched::JobConstraint),
        ];
        for split in 0..=jobs.len() {
            let mut a = UnmatchedJobs::new();
            let mut b = UnmatchedJobs::new();
            for &(j, w) in &jobs[..split] {
                a.push(j, w);
            }
            for &(j, w) in &jobs[split..] {
                b.push(j, w);
            }
            a.append(b);
            assert_eq!(a.to_vec(), jobs, "split at {split}");
            assert_eq!(a.len(), jobs.len());
            // Runs: 0-1, 2, 4-5, 6-7, however the jobs were split.
            assert_eq!(a.runs.len(), 4, "split at {split}");
        }
        assert!(UnmatchedJobs::new().is_empty());
    }
}
