//! The defaults of HTCondor's parameter table that a configuration's
//! references can reach: a `$(NAME)` of a knob the configuration does not set
//! is HTCondor's default (`lookup_macro` falls back to the table, and
//! `expand_self_macro` reads `X = $(X) && more` against it), and `defined NAME`
//! is true of a knob with a default. HTCondor's table has over a thousand
//! entries; these are the ones a negotiator's knobs refer to: the knobs the
//! cycle reads, and the `customization=const` helpers of policy expressions.
//! Values as `src/condor_utils/param_info.in` of HTCondor 25 gives them.

/// `(name, raw value)`, looked up ignoring case.
const DEFAULTS: [(&str, &str); 37] = [
    // The knobs the cycle reads, where HTCondor gives them a value.
    (
        "NEGOTIATOR_PRE_JOB_RANK",
        "(10000000 * My.Rank) + (1000000 * (RemoteOwner =?= UNDEFINED)) - (100000 * Cpus) - Memory",
    ),
    (
        "NEGOTIATOR_POST_JOB_RANK",
        "(RemoteOwner =?= UNDEFINED) * (ifthenElse(isUndefined(KFlops), 1000, Kflops) - SlotID - \
         1.0e10*(Offline=?=True))",
    ),
    ("NEGOTIATOR_CONSIDER_PREEMPTION", "true"),
    ("PREEMPTION_REQUIREMENTS", "False"),
    (
        "PREEMPTION_RANK",
        "(RemoteUserPrio * 1000000) - ifThenElse(isUndefined(TotalJobRuntime), 0, TotalJobRuntime)",
    ),
    ("NEGOTIATOR_USE_SLOT_WEIGHTS", "true"),
    ("SLOT_WEIGHT", "Cpus"),
    ("NEGOTIATOR_MATCHLIST_CACHING", "true"),
    ("NEGOTIATOR_IGNORE_USER_PRIORITIES", "false"),
    ("NEGOTIATOR_DEPTH_FIRST", "false"),
    ("USE_GLOBAL_JOB_PRIOS", "false"),
    ("DEFAULT_PRIO_FACTOR", "1000"),
    ("NICE_USER_PRIO_FACTOR", "1e10"),
    ("GROUP_ACCEPT_SURPLUS", "false"),
    (
        "GROUP_SORT_EXPR",
        "ifThenElse(AccountingGroup=?=\"<none>\",3.4e+38,ifThenElse(GroupQuota>0,\
         GroupResourcesInUse/GroupQuota,3.3e+38))",
    ),
    ("GROUP_QUOTA_MAX_ALLOCATION_ROUNDS", "3"),
    ("NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION", "true"),
    (
        "REMOVE_SIGNIFICANT_ATTRIBUTES",
        "CpusUsage,DiskUsage,GPUsUsage,MemoryUsage,ResidentSetSize",
    ),
    ("REMOVE_SIGNIFICANT_ATTRIBUTES_REGEX", "^Slot[0-9]*_"),
    ("NEGOTIATOR_MAX_TIME_PER_CYCLE", "1200"),
    ("NEGOTIATOR_MAX_TIME_PER_SUBMITTER", "60"),
    ("NEGOTIATOR_MAX_TIME_PER_PIESPIN", "120"),
    // The constants policy expressions are written with.
    ("MINUTE", "60"),
    ("HOUR", "3600"),
    ("StateTimer", "(time() - EnteredCurrentState)"),
    ("ActivityTimer", "(time() - EnteredCurrentActivity)"),
    ("STANDARD", "1"),
    ("IsStandard", "(TARGET.JobUniverse == $(STANDARD))"),
    ("VANILLA", "5"),
    ("IsVanilla", "(TARGET.JobUniverse == $(VANILLA))"),
    ("MPI", "8"),
    ("IsMPI", "(TARGET.JobUniverse == $(MPI))"),
    ("VM", "13"),
    ("IsVM", "(TARGET.JobUniverse == $(VM))"),
    ("IsWindows", "false"),
    // `NEGOTIATOR.IsNegotiator`: the emulator reads as the negotiator does.
    ("IsNegotiator", "true"),
    // The magic `$(DOLLAR)`, a dollar sign.
    ("DOLLAR", "$"),
];

/// HTCondor's default value of `name`, among those the emulator carries.
pub(super) fn value(name: &str) -> Option<&'static str> {
    DEFAULTS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| *v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::config::Config;
    use crate::negotiate::CycleKnobs;

    /// The defaults a reference reaches are the defaults the cycle takes when
    /// a knob is not set: a configuration that sets every knob to its default
    /// text gives the knobs of no configuration.
    #[test]
    fn the_defaults_referred_to_are_the_cycle_s_own() {
        let text: String = DEFAULTS
            .iter()
            .map(|(name, value)| format!("{name} = {value}\n"))
            .collect();
        let config = Config::parse(&text, "defaults").unwrap();
        let (knobs, _) = CycleKnobs::from_config(&config).unwrap();
        assert_eq!(format!("{knobs:?}"), format!("{:?}", CycleKnobs::default()));
    }

    #[test]
    fn a_reference_to_a_knob_left_unset_is_its_default() {
        let c = Config::parse(
            "PREEMPTION_REQUIREMENTS = $(StateTimer) > 2 * $(HOUR)\n\
             SLOT_WEIGHT = $(SLOT_WEIGHT) * 2\n",
            "f",
        )
        .unwrap();
        assert_eq!(
            c.get("PREEMPTION_REQUIREMENTS").unwrap().as_deref(),
            Some("(time() - EnteredCurrentState) > 2 * 3600")
        );
        assert_eq!(c.get("SLOT_WEIGHT").unwrap().as_deref(), Some("Cpus * 2"));
        assert_eq!(c.get("HOUR").unwrap(), None, "not set by the file");
    }
}
