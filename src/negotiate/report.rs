//! What a cycle hands out and what it publishes: the matches in the order made,
//! the jobs left unmatched with why, and the statistics under the names of
//! HTCondor's negotiator ad (negotiator.md section 11).

use super::matchlist::PreemptState;
use crate::matching::batch::RankKey;
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
}

impl Unmatched {
    /// The name the reports use.
    pub fn name(self) -> &'static str {
        match self {
            Unmatched::JobConstraint => "job constraint",
            Unmatched::RejectedAutocluster => "rejected autocluster",
            Unmatched::SubmitterLimit => "submitter limit",
            Unmatched::NotReached => "no request reached",
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
    /// (class, slot) pairs whose match was decided (not a negotiator-ad name).
    pub evaluations: u64,
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

    /// Every statistic under its negotiator-ad name, suffix `0` included.
    pub fn named(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("LastNegotiationCycleDuration0", self.duration),
            (
                "LastNegotiationCyclePhase1Duration0",
                self.phase_durations[0],
            ),
            (
                "LastNegotiationCyclePhase2Duration0",
                self.phase_durations[1],
            ),
            (
                "LastNegotiationCyclePhase3Duration0",
                self.phase_durations[2],
            ),
            (
                "LastNegotiationCyclePhase4Duration0",
                self.phase_durations[3],
            ),
            ("LastNegotiationCycleMatches0", self.matches as f64),
            ("LastNegotiationCycleMatchRate0", self.match_rate()),
            (
                "LastNegotiationCycleCandidateSlots0",
                self.candidate_slots as f64,
            ),
            (
                "LastNegotiationCycleActiveSubmitterCount0",
                self.active_submitters as f64,
            ),
            (
                "LastNegotiationCycleNumIdleJobs0",
                self.num_idle_jobs as f64,
            ),
            (
                "LastNegotiationCycleNumJobsConsidered0",
                self.num_jobs_considered as f64,
            ),
            ("LastNegotiationCycleRejections0", self.rejections as f64),
            ("LastNegotiationCycleSlotShareIter0", self.pie_spins as f64),
            ("LastNegotiationCyclePieSpins0", self.pie_spins as f64),
            ("LastNegotiationCyclePies0", self.pies as f64),
            ("LastNegotiationCycleTotalSlots0", self.total_slots as f64),
            (
                "LastNegotiationCycleTrimmedSlots0",
                self.trimmed_slots as f64,
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
    pub unmatched: Vec<(u32, Unmatched)>,
    /// The submitters, in the order of their first turn, then the others by name.
    pub submitters: Vec<SubmitterReport>,
    /// The statistics.
    pub stats: CycleStats,
}
