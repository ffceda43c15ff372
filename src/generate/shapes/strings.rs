//! String builtins on attributes (`substr`, `strcat`, `toLower`, `toUpper`,
//! `size`, `regexp` with a constant pattern, case-insensitive too), `ifThenElse`
//! and `?:` choosing between attributes, the elvis operator `?:` on attributes
//! some ads lack, and the type tests `isUndefined`, `isString`, `isInteger`,
//! `isReal`, `isBoolean`, `isError`.

use super::base::{Job, Slot};
use super::text::AdText;
use super::Rng;

/// The job's Requirements: one of the string and type-test forms.
pub(super) fn job_policy(r: &mut Rng, _job: &Job, w: &mut AdText) {
    let requirements = match r.below(9) {
        0 => {
            let prefix = *r.choice(&["c6420", "r6525", "a100", "t4", "e5old", "altra"]);
            format!(
                "substr(TARGET.Machine, 0, {}) == \"{prefix}\" || substr(TARGET.Name, -15) == \
                 \".example.org\"",
                prefix.len()
            )
        }
        1 => {
            let platform = *r.choice(&[
                "X86_64-AlmaLinux9",
                "X86_64-AlmaLinux8",
                "aarch64-AlmaLinux9",
            ]);
            w.str("Platform", platform);
            "strcat(TARGET.Arch, \"-\", TARGET.OpSysAndVer) == MY.Platform || \
             strcat(TARGET.Arch, \"-\", TARGET.OpSysName) == \"X86_64-Ubuntu\""
                .to_string()
        }
        2 => "toLower(TARGET.OpSysName) == \"almalinux\" && size(TARGET.Machine) > 23".to_string(),
        3 => {
            let racks = *r.choice(&["0[0-5]", "0[3-9]", "1[01]"]);
            format!(
                "regexp(\"^(a100|t4|r6525)-{racks}-\", TARGET.Machine) || \
                 regexp(\"^alma\", TARGET.OpSysName, \"i\")"
            )
        }
        4 => "ifThenElse(isUndefined(TARGET.Swap), TARGET.Memory, TARGET.Memory + TARGET.Swap) \
              >= RequestMemory"
            .to_string(),
        5 => "(TARGET.CUDACapability ?: 0.0) >= 7.5 || (TARGET.HasDocker ?: false)".to_string(),
        6 => "(TARGET.Cpus > 8 ? TARGET.Memory : TARGET.TotalSlotMemory) >= RequestMemory"
            .to_string(),
        7 => "(isUndefined(TARGET.IsBlackHole) || TARGET.IsBlackHole == false) && \
              isString(TARGET.GLIDEIN_Site) && isInteger(TARGET.Cpus) && \
              !isError(TARGET.LoadAvg / TARGET.Cpus)"
            .to_string(),
        _ => "isReal(TARGET.LoadAvg) && isBoolean(TARGET.HAS_SINGULARITY) && \
              TARGET.HAS_SINGULARITY && toUpper(TARGET.Arch) == \"X86_64\""
            .to_string(),
    };
    w.expr("Requirements", &requirements);
    w.expr(
        "Rank",
        "size(TARGET.Machine) + (TARGET.HasDocker ?: false ? 10 : 0)",
    );
}

/// The slot's START: one of the string and type-test forms on the job.
pub(super) fn slot_policy(r: &mut Rng, _slot: &Slot, w: &mut AdText) {
    let start = match r.below(5) {
        0 => "!isUndefined(TARGET.ProjectName) && TARGET.ProjectName != \"\"",
        1 => "regexp(\"^group_(physics|cms)\", TARGET.AcctGroup) || TARGET.JobPrio > 0",
        2 => {
            "!isString(TARGET.SingularityImage) || \
             substr(TARGET.SingularityImage, 0, 9) != \"docker://\""
        }
        3 => "toUpper(TARGET.Owner) != \"MALLORY\" && size(TARGET.User) < 20",
        _ => "strcat(TARGET.Owner, \"@example.org\") == TARGET.User && TARGET.RequestCpus <= Cpus",
    };
    w.expr("START", start);
    w.expr("Requirements", "START");
    w.expr("Rank", "ifThenElse(TARGET.JobPrio > 0, TARGET.JobPrio, 0)");
}
