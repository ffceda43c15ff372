//! The negotiator's expressions and knobs that shape matching: the rank
//! expressions that order a job's candidate slots (negotiator.md section 6) and the
//! knobs that decide significant attributes (section 9), with HTCondor's defaults.

use crate::syntax::ast::ExprRef;
use crate::syntax::{parse_expr, ParseError};
use std::sync::Arc;

/// HTCondor's default `NEGOTIATOR_PRE_JOB_RANK`.
pub const DEFAULT_PRE_JOB_RANK: &str =
    "(10000000 * My.Rank) + (1000000 * (RemoteOwner =?= UNDEFINED)) - (100000 * Cpus) - Memory";

/// HTCondor's default `NEGOTIATOR_POST_JOB_RANK`.
pub const DEFAULT_POST_JOB_RANK: &str = "(RemoteOwner =?= UNDEFINED) * (ifThenElse(isUndefined(KFlops), 1000, Kflops) - SlotID - 1.0e10*(Offline=?=True))";

/// HTCondor's default `PREEMPTION_RANK`.
pub const DEFAULT_PREEMPTION_RANK: &str =
    "(RemoteUserPrio * 1000000) - ifThenElse(isUndefined(TotalJobRuntime), 0, TotalJobRuntime)";

/// HTCondor's default `REMOVE_SIGNIFICANT_ATTRIBUTES`.
pub const DEFAULT_REMOVE_SIGNIFICANT_ATTRIBUTES: [&str; 5] = [
    "CpusUsage",
    "DiskUsage",
    "GPUsUsage",
    "MemoryUsage",
    "ResidentSetSize",
];

/// The negotiator's expressions and the autocluster knobs. `Default` is HTCondor's
/// default configuration.
#[derive(Clone, Debug)]
pub struct NegotiatorPolicy {
    /// `NEGOTIATOR_PRE_JOB_RANK` (slot as MY, job as TARGET); `None` when unset.
    pub pre_job_rank: Option<ExprRef>,
    /// `NEGOTIATOR_POST_JOB_RANK` (slot as MY, job as TARGET); `None` when unset.
    pub post_job_rank: Option<ExprRef>,
    /// `PREEMPTION_REQUIREMENTS`; `None` when unset.
    pub preemption_requirements: Option<ExprRef>,
    /// `PREEMPTION_RANK`; `None` when unset.
    pub preemption_rank: Option<ExprRef>,
    /// `NEGOTIATOR_JOB_CONSTRAINT`; `None` when unset.
    pub job_constraint: Option<ExprRef>,
    /// `SIGNIFICANT_ATTRIBUTES`: when set, the list, replacing the computed one.
    pub significant_attributes: Option<Vec<String>>,
    /// `ADD_SIGNIFICANT_ATTRIBUTES`.
    pub add_significant_attributes: Vec<String>,
    /// `REMOVE_SIGNIFICANT_ATTRIBUTES`.
    pub remove_significant_attributes: Vec<String>,
    /// `REMOVE_SIGNIFICANT_ATTRIBUTES_REGEX` (matched ignoring case); `None` when
    /// unset.
    pub remove_significant_attributes_regex: Option<regex::Regex>,
}

/// Parses one of the policy's expressions.
pub fn policy_expr(text: &str) -> Result<ExprRef, ParseError> {
    Ok(ExprRef::root_of(Arc::new(parse_expr(text)?)))
}

impl Default for NegotiatorPolicy {
    fn default() -> NegotiatorPolicy {
        let builtin = |t: &str| Some(policy_expr(t).expect("HTCondor's default expression"));
        NegotiatorPolicy {
            pre_job_rank: builtin(DEFAULT_PRE_JOB_RANK),
            post_job_rank: builtin(DEFAULT_POST_JOB_RANK),
            preemption_requirements: builtin("False"),
            preemption_rank: builtin(DEFAULT_PREEMPTION_RANK),
            job_constraint: None,
            significant_attributes: None,
            add_significant_attributes: Vec::new(),
            remove_significant_attributes: DEFAULT_REMOVE_SIGNIFICANT_ATTRIBUTES
                .iter()
                .map(|s| s.to_string())
                .collect(),
            remove_significant_attributes_regex: Some(
                regex::RegexBuilder::new("^Slot[0-9]*_")
                    .case_insensitive(true)
                    .build()
                    .expect("HTCondor's default pattern"),
            ),
        }
    }
}
