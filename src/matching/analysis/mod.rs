//! Match analysis: why a job does (not) match the slots of a pool, and why a slot
//! does (not) match the jobs of a queue, as `condor_q -better-analyze` and
//! `condor_q -better-analyze -reverse` work it out from HTCondor's source
//! (`src/condor_q.V6/jobmatch.cpp`, `src/condor_utils/expr_analyze.cpp`).
//!
//! For a job ([`analyze_jobs`]) against every slot: how many slots its
//! Requirements accept, how many of those accept it by their own Requirements,
//! and what the slots that match are doing ([`JobCounts`]); its Requirements
//! reduced step by step with each step's count of slots ([`steps`]); each of its
//! top-level conjuncts ([`conjuncts`]) with the slots it alone matches, and, when
//! no slot is accepted, what to remove or change ([`suggest`](mod@suggest)).
//!
//! For a slot ([`analyze_slots`]) against the jobs: the same reduction of its
//! Requirements (with `START` and `WithinResourceLimits` read in place),
//! counted by autocluster as HTCondor counts it, its conjuncts, and how many jobs
//! it and they accept each way ([`SlotCounts`]), counted exactly by match class.
//!
//! Every count is a count of pairs evaluated as HTCondor evaluates them
//! (see [`truth`]): a job's count of slots equals a loop over the slots with the
//! reference evaluator, on either engine.
//!
//! ```
//! use classad::ad::read_ads;
//! use classad::matching::analysis::analyze_jobs;
//! use std::sync::Arc;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ads = |text: &str| -> Result<Vec<_>, classad::ad::ReadError> {
//!     Ok(read_ads(text, "pool")?.into_iter().map(Arc::new).collect())
//! };
//! let jobs = ads("RequestMemory = 4096\n\
//!                 Requirements = TARGET.Memory >= RequestMemory && TARGET.Arch == \"X86_64\"\n")?;
//! let slots = ads("Memory = 2048\nArch = \"X86_64\"\nRequirements = true\n\n\
//!                  Memory = 8192\nArch = \"aarch64\"\nRequirements = true\n")?;
//! let a = &analyze_jobs(&jobs, &slots, None)[0];
//! assert_eq!(a.counts.rejected_by_job, 2);
//! // The memory condition matches the second slot alone, the Arch condition the
//! // first; the first is closer (a third of the memory range short, where the
//! // second fails a string comparison): ask for its memory.
//! assert_eq!(a.conjuncts[0].matched, 1);
//! let suggestion = a.conjuncts[0].suggestion.as_ref().map(|s| s.to_string());
//! assert_eq!(suggestion.as_deref(), Some("MODIFY TO 2048"));
//! assert!(a.conjuncts[1].suggestion.is_none());
//! # Ok(())
//! # }
//! ```

pub mod attributes;
pub mod conjuncts;
pub mod steps;
pub mod suggest;
pub mod truth;

use super::Autoclusters;
use crate::ad::ClassAd;
use crate::engine::Engine;
use crate::eval::{eval_attr, eval_in, Semantics};
use crate::syntax::ast::ExprRef;
use crate::syntax::unparse_node;
use attributes::{own_attributes, target_attributes, target_name, Shown};
use classad_vm::Value;
use conjuncts::{comparison, conjuncts_inlined, Comparison};
use std::sync::Arc;
use steps::{Row, Steps, MAX_STEPS};
use suggest::{suggest, Suggestion};
use truth::{Answer, Hits, Query};

/// The names HTCondor reads in place in a slot's Requirements when it analyzes
/// the slot (`START` and `WithinResourceLimits`).
pub const SLOT_INLINE: [&str; 2] = ["START", "WithinResourceLimits"];

/// HTCondor's reduction of an expression: the steps as numbered, and the rows
/// left after counting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reduction {
    /// Each step before the reduction (`[1] && [3]`, or its text).
    pub numbered: Vec<String>,
    /// The rows of the table.
    pub rows: Vec<Row>,
}

/// A top-level conjunct of a job's Requirements, with its count of slots.
#[derive(Clone, Debug)]
pub struct JobConjunct {
    /// Its text.
    pub text: String,
    /// The slots it alone matches.
    pub matched: usize,
    /// The slots it alone keeps out: every other conjunct holds for them.
    pub sole_obstacle: usize,
    /// What to do with it, when the Requirements accept no slot.
    pub suggestion: Option<Suggestion>,
}

/// What a job's analysis counts, as HTCondor's run analysis summary words it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobCounts {
    /// The slots of the pool.
    pub slots: usize,
    /// The distinct `Machine` names among them.
    pub machines: usize,
    /// Slots the job's Requirements reject.
    pub rejected_by_job: usize,
    /// Slots the job's Requirements accept that reject the job by their own.
    pub rejecting_job: usize,
    /// Slots that match the job both ways (a symmetric match).
    pub matching: usize,
    /// Matching slots running a job of the job's `User` (their `RemoteUser`).
    pub running_your_jobs: usize,
    /// Matching slots running another user's job.
    pub serving_other_users: usize,
    /// Matching slots that are `Offline` (still counted as willing, as HTCondor
    /// counts them).
    pub offline: usize,
    /// Matching slots not running anyone's job: willing to run it.
    pub willing: usize,
}

/// A job's analysis against the slots of a pool.
#[derive(Clone, Debug)]
pub struct JobAnalysis {
    /// The job's Requirements (`None`: it has none, and every slot rejects it).
    pub requirements: Option<ExprRef>,
    /// The reduction, counted in slots (`None` without Requirements or with more
    /// than [`MAX_STEPS`] steps).
    pub reduction: Option<Reduction>,
    /// The top-level conjuncts (empty without Requirements or with more than
    /// [`MAX_STEPS`]).
    pub conjuncts: Vec<JobConjunct>,
    /// The slot the suggestions are for: the closest to being accepted, when none
    /// is.
    pub closest_slot: Option<usize>,
    /// The job's attributes its Requirements read.
    pub attributes: Vec<Shown>,
    /// With a pool of one slot: its name and the attributes the Requirements read
    /// of it.
    pub slot_attributes: Option<(String, Vec<Shown>)>,
    /// The counts.
    pub counts: JobCounts,
    /// The slots the job's Requirements accept.
    pub accepted: Hits,
    /// The slots whose Requirements accept the job.
    pub accepting: Hits,
}

/// A top-level conjunct of a slot's Requirements (`START` and
/// `WithinResourceLimits` read in place), with its counts of jobs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotConjunct {
    /// Its text.
    pub text: String,
    /// The autoclusters it alone matches.
    pub autoclusters: usize,
    /// The jobs it alone matches.
    pub jobs: usize,
}

/// What a slot's analysis counts, as HTCondor's summary of a slot words it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SlotCounts {
    /// The jobs analyzed against.
    pub jobs: usize,
    /// Their autoclusters.
    pub autoclusters: usize,
    /// Jobs that match the slot both ways.
    pub matching: usize,
    /// Jobs the slot's Requirements accept.
    pub slot_accepts: usize,
    /// Jobs whose Requirements accept the slot.
    pub job_accepts: usize,
}

/// A slot's analysis against the jobs of a queue.
#[derive(Clone, Debug)]
pub struct SlotAnalysis {
    /// The slot is `Offline` (HTCondor says so and nothing more).
    pub offline: bool,
    /// The slot's Requirements (`None`: it has none and accepts no job).
    pub requirements: Option<ExprRef>,
    /// The reduction, counted in autoclusters.
    pub reduction: Option<Reduction>,
    /// The top-level conjuncts.
    pub conjuncts: Vec<SlotConjunct>,
    /// The slot's attributes its Requirements read (`START` and
    /// `WithinResourceLimits` aside).
    pub attributes: Vec<Shown>,
    /// Against a single autocluster: its job's name and the attributes the
    /// Requirements read of it.
    pub job_attributes: Option<(String, Vec<Shown>)>,
    /// The counts.
    pub counts: SlotCounts,
}

/// The jobs slots are analyzed against: one job per match class (whose jobs all
/// match every slot alike), how many jobs each stands for, and which stand for
/// an autocluster (the first job of each), by which HTCondor counts the steps.
#[derive(Clone, Debug)]
pub struct JobSet {
    /// The classes' jobs.
    pub ads: Vec<Arc<ClassAd>>,
    /// Per class, its number of jobs.
    pub jobs: Vec<usize>,
    /// Per class, whether its job is the first of an autocluster.
    pub autocluster: Vec<bool>,
}

impl JobSet {
    /// The match classes and autoclusters of a queue.
    pub fn of(clusters: &Autoclusters) -> JobSet {
        let mut autocluster = vec![false; clusters.class_count()];
        for jobs in clusters.clusters() {
            if let Some(&first) = jobs.first() {
                autocluster[clusters.class_of(first as usize) as usize] = true;
            }
        }
        JobSet {
            ads: clusters.representatives().to_vec(),
            jobs: clusters.classes().iter().map(Vec::len).collect(),
            autocluster,
        }
    }

    /// Every job a class of its own and an autocluster of its own.
    pub fn each(jobs: &[Arc<ClassAd>]) -> JobSet {
        JobSet {
            ads: jobs.to_vec(),
            jobs: vec![1; jobs.len()],
            autocluster: vec![true; jobs.len()],
        }
    }
}

/// What is evaluated for one analyzed ad: its steps and conjuncts.
struct Plan {
    requirements: Option<ExprRef>,
    steps: Option<Steps>,
    /// The steps whose counts the reduction needs.
    needed: Vec<usize>,
    conjuncts: Vec<ExprRef>,
}

impl Plan {
    fn of(ad: &Arc<ClassAd>, inline: &[&str]) -> Plan {
        let requirements = ad.get("Requirements").map(|e| e.to_expr_ref());
        let Some(req) = &requirements else {
            return Plan {
                requirements,
                steps: None,
                needed: Vec::new(),
                conjuncts: Vec::new(),
            };
        };
        let mut steps = Some(Steps::of(ad, req, inline)).filter(|s| s.len() <= MAX_STEPS);
        let needed = steps.as_mut().map_or(Vec::new(), |s| s.needed(ad));
        let mut conjuncts = conjuncts_inlined(ad, req, inline);
        if conjuncts.len() > MAX_STEPS {
            conjuncts.clear();
        }
        Plan {
            requirements,
            steps,
            needed,
            conjuncts,
        }
    }

    fn query(&self, ad: &Arc<ClassAd>) -> Query {
        let steps = self.steps.as_ref().map_or(&[][..], |s| s.steps());
        let exprs = self
            .needed
            .iter()
            .map(|&i| steps[i].expr.clone())
            .chain(self.conjuncts.iter().cloned())
            .collect();
        Query {
            my: ad.clone(),
            exprs,
        }
    }

    /// The reduction, with each needed step counted by `count`.
    fn reduce(
        self,
        answer: &Answer,
        targets: usize,
        count: impl Fn(&Hits) -> usize,
    ) -> Option<Reduction> {
        let steps = self.steps?;
        let numbered = steps.numbered();
        let mut counts = vec![0; steps.len()];
        for (k, &i) in self.needed.iter().enumerate() {
            counts[i] = count(&answer.exprs[k]);
        }
        Some(Reduction {
            numbered,
            rows: steps.reduce(&counts, targets),
        })
    }
}

fn text(e: &ExprRef) -> String {
    let mut s = String::new();
    unparse_node(&e.tree, e.id, &mut s);
    s
}

/// The engine for the work: `engine`, or when `None` the one [`truth::choose`]
/// picks.
fn pick(engine: Option<Engine>, queries: &[Query], targets: usize) -> Engine {
    engine.unwrap_or_else(|| truth::choose(queries, targets))
}

/// Each job of `jobs` analyzed against every slot of `slots`, on `engine` (`None`:
/// the one that finishes soonest), on rayon's threads.
pub fn analyze_jobs(
    jobs: &[Arc<ClassAd>],
    slots: &[Arc<ClassAd>],
    engine: Option<Engine>,
) -> Vec<JobAnalysis> {
    let plans: Vec<Plan> = jobs.iter().map(|j| Plan::of(j, &[])).collect();
    let queries: Vec<Query> = plans.iter().zip(jobs).map(|(p, j)| p.query(j)).collect();
    let engine = pick(engine, &queries, slots.len());
    let answers = truth::evaluate(&queries, slots, engine);
    let machines = distinct_machines(slots);
    plans
        .into_iter()
        .zip(jobs)
        .zip(answers)
        .map(|((plan, job), answer)| job_analysis(plan, job, slots, answer, machines))
        .collect()
}

fn job_analysis(
    plan: Plan,
    job: &Arc<ClassAd>,
    slots: &[Arc<ClassAd>],
    answer: Answer,
    machines: usize,
) -> JobAnalysis {
    let sem = Semantics::Htcondor;
    let requirements = plan.requirements.clone();
    let first_conjunct = plan.needed.len();
    let conjunct_exprs = plan.conjuncts.clone();
    let holds: Vec<Hits> = answer.exprs[first_conjunct..].to_vec();
    let comparisons: Vec<Option<Comparison>> =
        conjunct_exprs.iter().map(|e| comparison(job, e)).collect();
    let suggestions = if answer.accepts.count() == 0 {
        suggest(&comparisons, &holds, slots.len(), |c, s| {
            let target = &comparisons[c].as_ref().expect("a comparison").target;
            eval_in(target, job, Some(&slots[s]), sem).unwrap_or(Value::Error)
        })
    } else {
        None
    };
    let sole = sole_obstacles(&holds, slots.len());
    let conjuncts = conjunct_exprs
        .iter()
        .enumerate()
        .map(|(c, e)| JobConjunct {
            text: text(e),
            matched: holds[c].count(),
            sole_obstacle: sole[c],
            suggestion: suggestions.as_ref().and_then(|s| s.conjuncts[c].clone()),
        })
        .collect();
    let (attributes, external) = match &requirements {
        Some(req) => own_attributes(job, req, &["Requirements"]),
        None => Default::default(),
    };
    let slot_attributes = match slots {
        [slot] if requirements.is_some() => {
            let shown = target_attributes(&external, job, slot);
            (!shown.is_empty()).then(|| (target_name(slot), shown))
        }
        _ => None,
    };
    let counts = job_counts(job, slots, &answer, machines);
    let reduction = plan.reduce(&answer, slots.len(), Hits::count);
    JobAnalysis {
        requirements,
        reduction,
        conjuncts,
        closest_slot: suggestions.map(|s| s.closest),
        attributes,
        slot_attributes,
        counts,
        accepted: answer.accepts,
        accepting: answer.accepted_by,
    }
}

/// Per conjunct, the targets for which it is the only one that does not hold.
fn sole_obstacles(holds: &[Hits], targets: usize) -> Vec<usize> {
    let mut failing = vec![0u32; targets];
    for h in holds {
        for (t, f) in failing.iter_mut().enumerate() {
            *f += u32::from(!h.get(t));
        }
    }
    holds
        .iter()
        .map(|h| {
            (0..targets)
                .filter(|&t| failing[t] == 1 && !h.get(t))
                .count()
        })
        .collect()
}

/// The summary counts of `doJobRunAnalysis`: of the slots the job accepts,
/// those that accept it; of those, who runs on them.
fn job_counts(
    job: &Arc<ClassAd>,
    slots: &[Arc<ClassAd>],
    a: &Answer,
    machines: usize,
) -> JobCounts {
    let sem = Semantics::Htcondor;
    let user = match eval_attr(job, "User", None, sem) {
        Ok(Value::Str(s)) => Some(s),
        _ => None,
    };
    let both = a.accepts.and(&a.accepted_by);
    let mut c = JobCounts {
        slots: slots.len(),
        machines,
        rejected_by_job: slots.len() - a.accepts.count(),
        rejecting_job: a.accepts.count() - both.count(),
        matching: both.count(),
        ..JobCounts::default()
    };
    for s in both.iter() {
        let slot = &slots[s];
        if matches!(eval_attr(slot, "Offline", None, sem), Ok(v) if v.as_bool_equiv() == Some(true))
        {
            c.offline += 1;
        }
        match eval_attr(slot, "RemoteUser", None, sem) {
            Ok(Value::Str(remote)) => {
                if user.as_ref().is_some_and(|u| u.as_str() == remote.as_str()) {
                    c.running_your_jobs += 1;
                } else {
                    c.serving_other_users += 1;
                }
            }
            _ => c.willing += 1,
        }
    }
    c
}

/// How many distinct `Machine` names the slots have (a slot without one counts
/// under the empty name, as HTCondor groups it).
fn distinct_machines(slots: &[Arc<ClassAd>]) -> usize {
    let mut seen = ahash::AHashSet::new();
    for s in slots {
        let name = match eval_attr(s, "Machine", None, Semantics::Htcondor) {
            Ok(Value::Str(m)) => m.as_str().to_string(),
            _ => String::new(),
        };
        seen.insert(name);
    }
    seen.len()
}

/// Each slot of `slots` analyzed against the jobs of `jobs`, on `engine` (`None`:
/// the one that finishes soonest), on rayon's threads.
pub fn analyze_slots(
    slots: &[Arc<ClassAd>],
    jobs: &JobSet,
    engine: Option<Engine>,
) -> Vec<SlotAnalysis> {
    let plans: Vec<Plan> = slots.iter().map(|s| Plan::of(s, &SLOT_INLINE)).collect();
    let queries: Vec<Query> = plans.iter().zip(slots).map(|(p, s)| p.query(s)).collect();
    let engine = pick(engine, &queries, jobs.ads.len());
    let answers = truth::evaluate(&queries, &jobs.ads, engine);
    plans
        .into_iter()
        .zip(slots)
        .zip(answers)
        .map(|((plan, slot), answer)| slot_analysis(plan, slot, jobs, answer))
        .collect()
}

fn slot_analysis(plan: Plan, slot: &Arc<ClassAd>, jobs: &JobSet, answer: Answer) -> SlotAnalysis {
    let sem = Semantics::Htcondor;
    let offline =
        matches!(eval_attr(slot, "Offline", None, sem), Ok(v) if v.as_bool_equiv() == Some(true));
    let in_clusters = |h: &Hits| h.iter().filter(|&j| jobs.autocluster[j]).count();
    let in_jobs = |h: &Hits| h.iter().map(|j| jobs.jobs[j]).sum::<usize>();
    let requirements = plan.requirements.clone();
    let first_conjunct = plan.needed.len();
    let conjuncts = plan
        .conjuncts
        .iter()
        .zip(&answer.exprs[first_conjunct..])
        .map(|(e, h)| SlotConjunct {
            text: text(e),
            autoclusters: in_clusters(h),
            jobs: in_jobs(h),
        })
        .collect();
    let mut hidden = vec!["Requirements"];
    hidden.extend(SLOT_INLINE);
    let (attributes, external) = match &requirements {
        Some(req) => own_attributes(slot, req, &hidden),
        None => Default::default(),
    };
    let clusters: Vec<usize> = (0..jobs.ads.len())
        .filter(|&j| jobs.autocluster[j])
        .collect();
    let job_attributes = match clusters.as_slice() {
        [j] if requirements.is_some() => {
            let job = &jobs.ads[*j];
            let shown = target_attributes(&external, slot, job);
            (!shown.is_empty()).then(|| (target_name(job), shown))
        }
        _ => None,
    };
    let counts = SlotCounts {
        jobs: jobs.jobs.iter().sum(),
        autoclusters: clusters.len(),
        matching: in_jobs(&answer.accepts.and(&answer.accepted_by)),
        slot_accepts: in_jobs(&answer.accepts),
        job_accepts: in_jobs(&answer.accepted_by),
    };
    let reduction = plan.reduce(&answer, clusters.len(), in_clusters);
    SlotAnalysis {
        offline,
        requirements,
        reduction,
        conjuncts,
        attributes,
        job_attributes,
        counts,
    }
}
