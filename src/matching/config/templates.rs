//! `use CATEGORY : TEMPLATE` lines: HTCondor's configuration templates
//! (metaknobs, `[$CATEGORY.TEMPLATE]` in `src/condor_utils/param_info.in`, read
//! by `read_meta_config` in `config.cpp`). The emulator knows every template's
//! name, so a misspelt one is the error HTCondor makes of it; it reads the
//! templates that set a knob the negotiator reads (the knobs of those
//! templates that lead to it), and notes the others, which set knobs for other
//! daemons only, as ignored.

/// What the emulator does with one template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Template {
    /// It sets negotiator knobs: the configuration lines that set them (read
    /// as the template's text is), and the negotiator knobs they are.
    Read {
        text: &'static str,
        sets: &'static [&'static str],
    },
    /// It sets no knob the negotiator reads.
    Ignored,
}

/// The templates that set negotiator knobs, as HTCondor 25 defines them.
const READ: [(&str, &str, Template); 5] = [
    (
        "POLICY",
        "ALWAYS_RUN_JOBS",
        Template::Read {
            text: "PREEMPTION_REQUIREMENTS = False\nNEGOTIATOR_CONSIDER_PREEMPTION = False\n",
            sets: &["PREEMPTION_REQUIREMENTS", "NEGOTIATOR_CONSIDER_PREEMPTION"],
        },
    ),
    (
        "POLICY",
        "UWCS_DESKTOP",
        Template::Read {
            text: "use FEATURE : UWCS_DESKTOP_POLICY_VALUES\n\
                   PREEMPTION_REQUIREMENTS = $(UWCS_PREEMPTION_REQUIREMENTS)\n\
                   PREEMPTION_RANK = $(UWCS_PREEMPTION_RANK)\n\
                   NEGOTIATOR_PRE_JOB_RANK = $(UWCS_NEGOTIATOR_PRE_JOB_RANK)\n\
                   NEGOTIATOR_POST_JOB_RANK = $(UWCS_NEGOTIATOR_POST_JOB_RANK)\n",
            sets: &[
                "PREEMPTION_REQUIREMENTS",
                "PREEMPTION_RANK",
                "NEGOTIATOR_PRE_JOB_RANK",
                "NEGOTIATOR_POST_JOB_RANK",
            ],
        },
    ),
    (
        "FEATURE",
        "UWCS_DESKTOP_POLICY_VALUES",
        Template::Read {
            text: "UWCS_NEGOTIATOR_PRE_JOB_RANK = (10000000 * My.Rank) + (1000000 * \
                   (RemoteOwner =?= UNDEFINED)) - (100000 * Cpus) - Memory\n\
                   UWCS_NEGOTIATOR_POST_JOB_RANK = (RemoteOwner =?= UNDEFINED) * \
                   (ifthenElse(isUndefined(KFlops), 1000, Kflops) - SlotID - \
                   1.0e10*(Offline=?=True))\n\
                   UWCS_PREEMPTION_REQUIREMENTS = ((SubmitterGroup =?= RemoteGroup) && \
                   ($(StateTimer) > (1 * $(HOUR))) && (RemoteUserPrio > \
                   TARGET.SubmitterUserPrio * 1.2)) || (MY.NiceUser == True)\n\
                   UWCS_PREEMPTION_RANK = (RemoteUserPrio * 1000000) - \
                   ifThenElse(isUndefined(TotalJobRuntime), 0, TotalJobRuntime)\n",
            sets: &[],
        },
    ),
    (
        "FEATURE",
        "TESTINGMODE_POLICY_VALUES",
        Template::Read {
            text: "TESTINGMODE_PREEMPTION_REQUIREMENTS = False\nTESTINGMODE_PREEMPTION_RANK = 0\n",
            sets: &[],
        },
    ),
    (
        "FEATURE",
        "GPUsMonitor",
        Template::Read {
            text: "STARTD_JOB_ATTRS = $(STARTD_JOB_ATTRS) GPUsUsage GPUsMemoryUsage\n",
            sets: &["STARTD_JOB_ATTRS"],
        },
    ),
];

/// Every other template of HTCondor 25, by category: they set knobs of other
/// daemons (the startd's START and PREEMPT, DAEMON_LIST, security, ...).
const IGNORED: [(&str, &[&str]); 5] = [
    (
        "POLICY",
        &[
            "DESKTOP",
            "DESKTOP_IDLE",
            "DESKTOP_HOURS",
            "LIMIT_JOB_RUNTIMES",
            "PREEMPT_IF_RUNTIME_EXCEEDS",
            "HOLD_IF_RUNTIME_EXCEEDS",
            "STARTD_PUBLISH_CpusUsage",
            "PREEMPT_IF_CPUS_EXCEEDED",
            "HOLD_IF_CPUS_EXCEEDED",
            "PREEMPT_IF_DISK_EXCEEDED",
            "HOLD_IF_DISK_EXCEEDED",
            "PREEMPT_IF_MEMORY_EXCEEDED",
            "HOLD_IF_MEMORY_EXCEEDED",
            "PREEMPT_IF",
            "WANT_HOLD_IF",
            "OnlyRegisteredCheckpointDestinations",
        ],
    ),
    (
        "FEATURE",
        &[
            "POLICY_EXPR_FRAGMENTS",
            "POLICY_HOURS_TO_START",
            "AssignAccountingGroup",
            "AssignProjectName",
            "SetJobAttrFromUsermap",
            "ScheddUsermapFile",
            "REMOTE_RUNTIME_CONFIG",
            "REMOTE_CONFIG",
            "GPUs",
            "Monitor",
            "PelicanCache",
            "PartitionableSlot",
            "StaticSlots",
            "OneShotCronHook",
            "PeriodicCronHook",
            "ContinuousCronHook",
            "StartdCronPeriodic",
            "ScheddCronPeriodic",
            "StartdCronOneShot",
            "ScheddCronOneShot",
            "StartdCronContinuous",
            "ScheddCronContinuous",
            "ChildCollector",
            "LIBRARIAN",
            "KRB",
            "OAUTH",
            "ADSTASH",
            "CommonCloudAttributesGoogle",
            "JobsHaveInstanceIDs",
            "CommonCloudAttributesAWS",
            "HPC_ANNEX",
            "PelicanRetryPolicy",
            "GANGLIA",
            "DefaultCheckpointDestination",
        ],
    ),
    (
        "ROLE",
        &[
            "Personal",
            "Execute",
            "Submit",
            "CentralManager",
            "get_htcondor_central_manager",
            "get_htcondor_submit",
            "get_htcondor_execute",
        ],
    ),
    (
        "SECURITY",
        &[
            "HOST_BASED",
            "WITH_AUTHENTICATION",
            "STRONG",
            "USER_BASED",
            "get_htcondor_idtokens",
            "recommended_v9_0",
            "recommended_v24_0",
            "recommended",
            "FIPS",
        ],
    ),
    (
        "EXPERIMENTAL",
        &[
            "CollectorNode",
            "HAD",
            "HADSharedPort",
            "HADFixedPort",
            "HADReplication",
        ],
    ),
];

/// True when HTCondor has a category of templates by that name (ignoring case).
pub(super) fn category_exists(category: &str) -> bool {
    IGNORED
        .iter()
        .any(|(c, _)| c.eq_ignore_ascii_case(category))
}

/// True when HTCondor has that template.
pub(super) fn exists(category: &str, name: &str) -> bool {
    find(category, name).is_ok()
}

/// The template `CATEGORY : NAME` (both ignoring case, as `param_meta_table`
/// and `param_meta_table_string` look them up), or the error HTCondor gives.
pub(super) fn find(category: &str, name: &str) -> Result<Template, String> {
    if let Some((_, _, t)) = READ
        .iter()
        .find(|(c, n, _)| c.eq_ignore_ascii_case(category) && n.eq_ignore_ascii_case(name))
    {
        return Ok(*t);
    }
    let Some((c, names)) = IGNORED
        .iter()
        .find(|(c, _)| c.eq_ignore_ascii_case(category))
    else {
        let all: Vec<&str> = IGNORED.iter().map(|(c, _)| *c).collect();
        return Err(format!(
            "use {category}: HTCondor has no such category of templates (it has {})",
            all.join(", ")
        ));
    };
    if names.iter().any(|n| n.eq_ignore_ascii_case(name)) {
        return Ok(Template::Ignored);
    }
    let mut all: Vec<&str> = names.to_vec();
    all.extend(READ.iter().filter(|(rc, _, _)| rc == c).map(|(_, n, _)| *n));
    all.sort_unstable_by_key(|n| n.to_ascii_lowercase());
    Err(format!(
        "use {category}: does not recognise {name} (HTCondor's {c} templates are {})",
        all.join(", ")
    ))
}

/// The templates of a `use` line's right side, as `MetaKnobAndArgs::
/// init_from_string` splits it: names apart by commas or blanks, each with
/// its arguments in parentheses if it has them.
pub(super) fn names_of(list: &str) -> Result<Vec<(&str, Option<&str>)>, String> {
    let mut out = Vec::new();
    let mut rest = list;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        if rest.is_empty() {
            return Ok(out);
        }
        let end = rest
            .find(|c: char| c.is_whitespace() || c == ',' || c == '(')
            .unwrap_or(rest.len());
        let name = &rest[..end];
        rest = rest[end..].trim_start();
        let mut args = None;
        if let Some(inner) = rest.strip_prefix('(') {
            let mut level = 1;
            let close = inner.char_indices().find_map(|(i, c)| {
                match c {
                    '(' | '[' => level += 1,
                    ')' | ']' => level -= 1,
                    _ => {}
                }
                (level == 0).then_some(i)
            });
            let Some(close) = close else {
                return Err(format!("use : {name}(: its arguments have no closing )"));
            };
            args = Some(&inner[..close]);
            rest = &inner[close + 1..];
        }
        out.push((name, args));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_found_ignoring_case_and_misspellings_are_errors() {
        assert!(matches!(
            find("policy", "uwcs_desktop"),
            Ok(Template::Read { .. })
        ));
        assert_eq!(find("ROLE", "execute"), Ok(Template::Ignored));
        let e = find("POLICY", "DESKTOPP").unwrap_err();
        assert!(
            e.starts_with("use POLICY: does not recognise DESKTOPP (HTCondor's POLICY templates are ALWAYS_RUN_JOBS, DESKTOP,"),
            "{e}"
        );
        let e = find("POLICIES", "DESKTOP").unwrap_err();
        assert!(e.contains("no such category"), "{e}");
    }

    /// `MetaKnobAndArgs::init_from_string`: `use ROLE : Submit, Execute` and
    /// `use ROLE : Submit Execute` both name two; arguments nest.
    #[test]
    fn a_use_line_names_templates_as_htcondor_splits_them() {
        assert_eq!(
            names_of(" Submit, Execute ").unwrap(),
            [("Submit", None), ("Execute", None)]
        );
        assert_eq!(
            names_of("Submit Execute").unwrap(),
            [("Submit", None), ("Execute", None)]
        );
        assert_eq!(
            names_of("PREEMPT_IF(MemoryUsage > (2 * Memory)), LIMIT_JOB_RUNTIMES").unwrap(),
            [
                ("PREEMPT_IF", Some("MemoryUsage > (2 * Memory)")),
                ("LIMIT_JOB_RUNTIMES", None)
            ]
        );
        assert!(names_of("PREEMPT_IF(x").is_err());
    }
}
