//! A production pool's pilots (glideins), from the sample in `shared/real-ads`
//! (`pool_sample.ads.gz`, a `condor_status -any -l` of a large pool): START
//! guarded by `=?= undefined` and `isUndefined` on attributes that are often
//! missing, `stringListMember` of MY's site in the job's `DESIRED_Sites`, the
//! elvis operator, `substr` on the job's container image (through
//! `SINGULARITY_START_CLAUSE`), `ifThenElse` with arithmetic on times,
//! `time()`, and `WithinResourceLimits` summing `evalInEachContext` over the
//! slot's data catalogs. The texts are the sample's, but for `CurrentTime`,
//! which reads the clock: the slot's own `MyCurrentTime` stands for it, so that a
//! pool's verdicts do not change with the time of day (the `time()` form compares
//! with times decades away).
//!
//! Jobs are the open pool's: condor_submit's Requirements, a project, sites they
//! want or refuse, a duration category, container images, and (in four jobs in
//! ten) condor_submit's default request expressions.

use super::base::{Job, Slot, SITES};
use super::text::{quoted, AdText};
use super::Rng;

/// The pilot's START of most of the sample's slots (`CurrentTime` read as
/// `MyCurrentTime`).
const START_GUARDED: &str = "(true && (SiteWMS_WN_Draining =?= false)) && ((true) && (true) && \
((isUndefined(MY.OSG_NODE_VALIDATED) || MY.OSG_NODE_VALIDATED) && (isUndefined(IsBlackHole) || \
IsBlackHole == false) && (isUndefined(HasExcessiveLoad) || HasExcessiveLoad == false) && \
((DESIRED_Sites =?= undefined) || stringListMember(GLIDEIN_Site,DESIRED_Sites,\",\")) && \
((UNDESIRED_Sites =?= undefined) ||  !stringListMember(GLIDEIN_Site,UNDESIRED_Sites,\",\")) && \
(isUndefined(TARGET.ProjectName) != true && TARGET.ProjectName != \"\") && \
(ifThenElse(JobDurationCategory =!= undefined && JobDurationCategory == \"Long\",GLIDEIN_ToDie - \
MyCurrentTime >= 144000,GLIDEIN_Max_Walltime =?= undefined || GLIDEIN_Max_Walltime < 43200 || \
GLIDEIN_ToDie - MyCurrentTime >= 36000))) && ((TARGET.ITB_Sites =!= true) && \
(TARGET.ITB_Factory =!= true) && (isUndefined(RequestGPUs) || RequestGPUs == 0) && \
(isUndefined(TARGET.SingularityImage) || SINGULARITY_START_CLAUSE))) && (((GLIDEIN_ToRetire =?= \
undefined) || (MyCurrentTime < GLIDEIN_ToRetire))) && (true)";

/// The sample's other pilot START, with `time()`.
const START_TIMED: &str = "(time() < GLIDEIN_ToRetire) && (ifThenElse(TARGET.JobDurationCategory \
=?= \"Long\",GLIDEIN_ToDie - time() > 144000,true)) && (MY.OSG_NODE_VALIDATED) && \
(isUndefined(IsBlackHole) || IsBlackHole == false) && (isUndefined(HasExcessiveLoad) || \
HasExcessiveLoad == false) && ((DESIRED_Sites =?= undefined) || \
stringListMember(GLIDEIN_Site,DESIRED_Sites,\",\")) && ((UNDESIRED_Sites =?= undefined) ||  \
!stringListMember(GLIDEIN_Site,UNDESIRED_Sites,\",\")) && ( !isUndefined(TARGET.ProjectName)) && \
((MY.GPUs ?: 0) == 0 || (TARGET.RequestGPUs ?: 0) > 0 || RoomForCPUOnlyJobs =?= undefined || \
RoomForCPUOnlyJobs) && (isUndefined(TARGET.SingularityImage) || MY.SINGULARITY_START_CLAUSE) && \
(TARGET.Want_MPI =!= true || MY.Has_MPI =?= true) && (START_EXTRA ?: true) && \
(OSG_PROJECT_RESTRICTION ?: true)";

/// The sample's `WithinResourceLimits` with data catalogs.
const LIMITS_WITH_CATALOGS: &str = "MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && MY.Memory > 0 \
&& TARGET.RequestMemory <= MY.Memory && MY.Disk > 0 && (TARGET.RequestDisk - \
ifthenelse(MappingMethod ?: \"\" != \"Copy\",ifthenelse(RequestedCatalogs =?= undefined || \
catalogs =?= undefined,0,sum(evalInEachContext(member(Catalog,RequestedCatalogs) && \
string(TARGET[CatalogScopeType]) == CatalogScope && split(GlobalJobID,\"#\")[0] == AccessPoint ? \
CatalogSize : 0,catalogs))),0)) <= MY.Disk && (TARGET.RequestGPUs =?= undefined || MY.GPUs >= \
TARGET.RequestGPUs)";

/// The sample's plain `WithinResourceLimits`.
const LIMITS: &str = "(MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && MY.Memory > 0 && \
TARGET.RequestMemory <= MY.Memory && MY.Disk > 0 && TARGET.RequestDisk <= MY.Disk && \
(TARGET.RequestGPUs =?= undefined || MY.GPUs >= TARGET.RequestGPUs))";

const SINGULARITY_START_CLAUSE: &str = "( !isString(TARGET.SingularityImage) || \
((SINGULARITY_CAN_USE_REGISTRY ||  !(substr(TARGET.SingularityImage,0,9) == \"docker://\")) && \
(SINGULARITY_CAN_USE_SIF ||  !(substr(TARGET.SingularityImage,-4) == \".sif\"))))";

const ROOM_FOR_CPU_ONLY_JOBS: &str = "(GPUs =?= undefined) || (GPUs == 0) || ((SlotType == \
\"Partitionable\") && (CPUs > 8 * GPUs) && (Memory > 32000 * GPUs) && (Disk > 5000000 * GPUs))";

/// The access points jobs are submitted from.
const ACCESS_POINTS: [&str; 2] = ["ap20.uc.osg-htc.org", "ap40.uw.osg-htc.org"];

/// A time decades ahead (2096), for comparisons with `time()` that stay true.
const FAR_FUTURE: i64 = 4_000_000_000;

/// The pilot's attributes.
pub(super) fn slot_attrs(r: &mut Rng, slot: &Slot, w: &mut AdText) {
    let now = 1_764_000_000 + slot.index as i64;
    w.boolean("SiteWMS_WN_Draining", r.chance(0.04));
    if r.chance(0.8) {
        w.boolean("OSG_NODE_VALIDATED", r.chance(0.95));
    }
    if r.chance(0.15) {
        w.boolean("HasExcessiveLoad", r.chance(0.3));
    }
    let to_die = if r.chance(0.5) {
        FAR_FUTURE
    } else {
        now + r.range(3600, 400_000)
    };
    w.int("GLIDEIN_ToDie", to_die);
    if r.chance(0.9) {
        w.int(
            "GLIDEIN_ToRetire",
            if r.chance(0.9) {
                to_die - 3600
            } else {
                now - 60
            },
        );
    }
    if r.chance(0.5) {
        w.int(
            "GLIDEIN_Max_Walltime",
            *r.choice(&[14_400, 43_200, 172_800]),
        );
    }
    w.boolean("SINGULARITY_CAN_USE_REGISTRY", r.chance(0.5));
    w.boolean("SINGULARITY_CAN_USE_SIF", r.chance(0.7));
    w.expr("SINGULARITY_START_CLAUSE", SINGULARITY_START_CLAUSE);
    w.expr("RoomForCPUOnlyJobs", ROOM_FOR_CPU_ONLY_JOBS);
    if r.chance(0.2) {
        w.str(
            "MappingMethod",
            if r.chance(0.5) { "Copy" } else { "Mount" },
        );
    }
    if r.chance(0.2) {
        let ap = *r.choice(&ACCESS_POINTS);
        w.expr(
            "catalogs",
            &format!(
                "{{ [ Catalog = \"genomes\"; CatalogScopeType = \"AcctGroup\"; CatalogScope = \
                 \"group_bio\"; AccessPoint = {}; CatalogSize = {} ], [ Catalog = \"lhc\"; \
                 CatalogScopeType = \"Owner\"; CatalogScope = \"carol\"; AccessPoint = {}; \
                 CatalogSize = {} ] }}",
                quoted(ap),
                r.range(1, 50) * 100_000,
                quoted(ACCESS_POINTS[0]),
                r.range(1, 50) * 1_000_000
            ),
        );
    }
    if r.chance(0.1) {
        w.boolean("Has_MPI", true);
    }
    if r.chance(0.1) {
        w.expr(
            "OSG_PROJECT_RESTRICTION",
            "TARGET.ProjectName == \"LIGO\" || TARGET.ProjectName == \"Astro\"",
        );
    }
    if r.chance(0.1) {
        w.expr("START_EXTRA", "TARGET.JobPrio >= 0");
    }
}

/// The open pool's job attributes.
pub(super) fn job_attrs(r: &mut Rng, job: &Job, w: &mut AdText) {
    let sites = |r: &mut Rng, k: usize| -> String {
        let mut picked = r.sample(SITES.len(), k);
        picked.sort_unstable();
        let names: Vec<&str> = picked.into_iter().map(|i| SITES[i]).collect();
        names.join(",")
    };
    if r.chance(0.5) {
        let k = r.range_incl(2, 6) as usize;
        w.str("DESIRED_Sites", &sites(r, k));
    } else if r.chance(0.2) {
        w.str("UNDESIRED_Sites", &sites(r, 1));
    }
    if r.chance(0.7) {
        w.str(
            "JobDurationCategory",
            if r.chance(0.3) { "Long" } else { "Medium" },
        );
    }
    if r.chance(0.03) {
        w.boolean("ITB_Sites", true);
    }
    if r.chance(0.05) {
        w.boolean("Want_MPI", true);
    }
    let ap = *r.choice(&ACCESS_POINTS);
    w.str(
        "GlobalJobID",
        &format!("{ap}#{}.{}#1763000000", 1000 + job.index / 5, job.index % 5),
    );
    if r.chance(0.15) {
        w.expr(
            "RequestedCatalogs",
            if r.chance(0.5) {
                "{ \"genomes\" }"
            } else {
                "{ \"genomes\", \"lhc\" }"
            },
        );
    }
}

/// condor_submit's Requirements for the open pool.
pub(super) fn job_policy(r: &mut Rng, _job: &Job, w: &mut AdText) {
    let mut requirements = "(TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") && \
                            (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) && \
                            (TARGET.HasFileTransfer)"
        .to_string();
    if r.chance(0.3) {
        requirements.push_str(" && (TARGET.HAS_SINGULARITY == true)");
    }
    if r.chance(0.2) {
        requirements.push_str(" && (TARGET.OpSysMajorVer >= 8)");
    }
    w.expr("Requirements", &requirements);
    w.expr("Rank", "0.0");
}

/// The pilot's START, `WithinResourceLimits` and Requirements, in one of the
/// sample's two forms.
pub(super) fn slot_policy(r: &mut Rng, _slot: &Slot, w: &mut AdText) {
    if r.chance(0.8) {
        w.expr("START", START_GUARDED);
        w.expr("WithinResourceLimits", LIMITS_WITH_CATALOGS);
        w.expr("Requirements", "START && (WithinResourceLimits)");
        w.expr("Rank", "(1) + (1) + (1) + (1)");
    } else {
        w.expr("Start", START_TIMED);
        w.expr("WithinResourceLimits", LIMITS);
        w.expr("Requirements", "Start && (WithinResourceLimits)");
        w.expr("Rank", "(TARGET.RequestGPUs ?: 0)");
    }
}
