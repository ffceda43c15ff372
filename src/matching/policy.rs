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
pub const DEFAULT_POST_JOB_RANK: &str = "(RemoteOwner =?= UNDEFINED) * (ifthenElse(isUndefined(KFlops), 1000, Kflops) - SlotID - 1.0e10*(Offline=?=True))";

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

/// How the warning for a knob the emulator does not read ends (a dump of a
/// whole configuration has a thousand such knobs, which the command line
/// counts in one line).
pub const NOT_READ: &str = "not a knob the emulator reads; ignored";

/// The knobs of negotiator.md section 10 and those of section 1-8 the emulated
/// cycle reads: known, whether or not matching uses them yet. (`GROUP_QUOTA_*`
/// and `GROUP_ACCEPT_SURPLUS_*` are known by prefix.)
const KNOWN_KNOBS: [&str; 33] = [
    "ACCOUNTING_DOMAIN",
    "UID_DOMAIN",
    "NEGOTIATOR_PRE_JOB_RANK",
    "NEGOTIATOR_POST_JOB_RANK",
    "NEGOTIATOR_CONSIDER_PREEMPTION",
    "PREEMPTION_REQUIREMENTS",
    "PREEMPTION_RANK",
    "NEGOTIATOR_USE_SLOT_WEIGHTS",
    "SLOT_WEIGHT",
    "NEGOTIATOR_MATCHLIST_CACHING",
    "NEGOTIATOR_IGNORE_JOB_RANKS",
    "NEGOTIATOR_IGNORE_USER_PRIORITIES",
    "NEGOTIATOR_DEPTH_FIRST",
    "USE_GLOBAL_JOB_PRIOS",
    "DEFAULT_PRIO_FACTOR",
    "NICE_USER_PRIO_FACTOR",
    "GROUP_NAMES",
    "GROUP_ACCEPT_SURPLUS",
    "GROUP_SORT_EXPR",
    "GROUP_QUOTA_MAX_ALLOCATION_ROUNDS",
    "NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION",
    "NEGOTIATOR_STRICT_ENFORCE_QUOTA",
    "NEGOTIATOR_SLOT_CONSTRAINT",
    "NEGOTIATOR_JOB_CONSTRAINT",
    "SIGNIFICANT_ATTRIBUTES",
    "ADD_SIGNIFICANT_ATTRIBUTES",
    "REMOVE_SIGNIFICANT_ATTRIBUTES",
    "REMOVE_SIGNIFICANT_ATTRIBUTES_REGEX",
    "NEGOTIATOR_MAX_TIME_PER_CYCLE",
    "NEGOTIATOR_MAX_TIME_PER_SUBMITTER",
    "NEGOTIATOR_MAX_TIME_PER_PIESPIN",
    "STARTD_JOB_ATTRS",
    "PRIORITY_HALFLIFE",
];

/// Prefixes of knobs named per group, and of the concurrency limits'
/// defaults (`CONCURRENCY_LIMIT_DEFAULT` and `_<scope>`).
const KNOWN_PREFIXES: [&str; 4] = [
    "GROUP_QUOTA_",
    "GROUP_ACCEPT_SURPLUS_",
    "GROUP_PRIO_FACTOR_",
    "CONCURRENCY_LIMIT_DEFAULT",
];

/// The suffix of a concurrency limit's maximum, `<name>_LIMIT`.
const LIMIT_SUFFIX: &str = "_LIMIT";

/// A list knob as HTCondor's `StringTokenIterator` splits it (commas and blanks).
fn list(value: &str) -> Vec<String> {
    value
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

impl NegotiatorPolicy {
    /// The policy of a configuration: HTCondor's defaults, overridden by the
    /// knobs it sets. Also a warning for each knob it does not know (ignored).
    /// An expression or pattern that does not parse is an error naming the file,
    /// line and knob; a knob set empty is unset, as HTCondor's `param` leaves it.
    pub fn from_config(
        config: &super::config::Config,
    ) -> Result<(NegotiatorPolicy, Vec<String>), super::config::ConfigError> {
        let mut policy = NegotiatorPolicy::default();
        let value = |name: &str| config.get(name);
        let expr = |name: &str| -> Result<Option<Option<ExprRef>>, super::config::ConfigError> {
            let Some(text) = value(name)? else {
                return Ok(None);
            };
            if text.trim().is_empty() {
                return Ok(Some(None));
            }
            policy_expr(&text)
                .map(|e| Some(Some(e)))
                .map_err(|e| config.knob_error(name, &format!("not an expression: {e}")))
        };
        for (name, slot) in [
            ("NEGOTIATOR_PRE_JOB_RANK", &mut policy.pre_job_rank),
            ("NEGOTIATOR_POST_JOB_RANK", &mut policy.post_job_rank),
            (
                "PREEMPTION_REQUIREMENTS",
                &mut policy.preemption_requirements,
            ),
            ("PREEMPTION_RANK", &mut policy.preemption_rank),
            ("NEGOTIATOR_JOB_CONSTRAINT", &mut policy.job_constraint),
        ] {
            if let Some(e) = expr(name)? {
                *slot = e;
            }
        }
        if let Some(v) = value("SIGNIFICANT_ATTRIBUTES")? {
            policy.significant_attributes = (!v.trim().is_empty()).then(|| list(&v));
        }
        if let Some(v) = value("ADD_SIGNIFICANT_ATTRIBUTES")? {
            policy.add_significant_attributes = list(&v);
        }
        if let Some(v) = value("REMOVE_SIGNIFICANT_ATTRIBUTES")? {
            policy.remove_significant_attributes = list(&v);
        }
        if let Some(v) = value("REMOVE_SIGNIFICANT_ATTRIBUTES_REGEX")? {
            policy.remove_significant_attributes_regex = if v.trim().is_empty() {
                None
            } else {
                let re = regex::RegexBuilder::new(v.trim())
                    .case_insensitive(true)
                    .build()
                    .map_err(|e| {
                        let what = format!("not a regular expression: {e}");
                        config.knob_error("REMOVE_SIGNIFICANT_ATTRIBUTES_REGEX", &what)
                    })?;
                Some(re)
            };
        }
        let warnings = config
            .names()
            .into_iter()
            .filter(|(name, _)| {
                // `NEGOTIATOR.NAME` is the negotiator's NAME.
                let upper = name.to_ascii_uppercase();
                let upper = upper.strip_prefix("NEGOTIATOR.").unwrap_or(&upper);
                // A knob of HTCondor's that the emulator does not read, though its
                // name starts as a group's quota does.
                let not_read = upper == "GROUP_QUOTA_ROUND_ROBIN_RATE";
                not_read
                    || !KNOWN_KNOBS.contains(&upper)
                        && !KNOWN_PREFIXES.iter().any(|p| upper.starts_with(p))
                        && !upper.ends_with(LIMIT_SUFFIX)
            })
            .map(|(name, place)| format!("{place}: {name}: {NOT_READ}"))
            .collect();
        Ok((policy, warnings))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::config::Config;

    fn policy(text: &str) -> Result<(NegotiatorPolicy, Vec<String>), String> {
        let c = Config::parse(text, "cfg").map_err(|e| e.to_string())?;
        NegotiatorPolicy::from_config(&c).map_err(|e| e.to_string())
    }

    #[test]
    fn knobs_override_the_defaults() {
        let (p, warnings) = policy(
            "NEGOTIATOR_POST_JOB_RANK =\nSIGNIFICANT_ATTRIBUTES = A, B C\n\
             REMOVE_SIGNIFICANT_ATTRIBUTES = X\nGROUP_QUOTA_cms = 10\nsLoT_wEiGhT = Cpus\n",
        )
        .unwrap();
        assert!(p.pre_job_rank.is_some(), "the default");
        assert!(p.post_job_rank.is_none(), "set empty: unset");
        assert_eq!(
            p.significant_attributes,
            Some(vec!["A".into(), "B".into(), "C".into()])
        );
        assert_eq!(p.remove_significant_attributes, ["X"]);
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn bad_values_are_errors_at_their_knob() {
        let e = policy("REMOVE_SIGNIFICANT_ATTRIBUTES_REGEX = ([\n").unwrap_err();
        assert!(
            e.starts_with("cfg:1: REMOVE_SIGNIFICANT_ATTRIBUTES_REGEX: not a regular"),
            "{e}"
        );
        let e = policy("X = 1\n\nNEGOTIATOR_JOB_CONSTRAINT = )\n").unwrap_err();
        assert!(
            e.starts_with("cfg:3: NEGOTIATOR_JOB_CONSTRAINT: not an expression"),
            "{e}"
        );
        let (_, warnings) = policy("X = 1\n").unwrap();
        assert_eq!(
            warnings,
            ["cfg:1: X: not a knob the emulator reads; ignored"]
        );
        let (_, warnings) =
            policy("GROUP_QUOTA_ROUND_ROBIN_RATE = 2\nGROUP_QUOTA_g = 1\n").unwrap();
        assert_eq!(
            warnings,
            ["cfg:1: GROUP_QUOTA_ROUND_ROBIN_RATE: not a knob the emulator reads; ignored"]
        );
    }
}
