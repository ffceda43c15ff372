//! HTCondor's negotiation cycle, emulated (negotiator.md): submitters and their
//! fair share, pie spins, group quotas, partitionable slots with and without a
//! consumption policy, preemption, and the negotiator's statistics, on top of the
//! batch matcher's candidate lists.
//!
//! ```
//! use classad::ad::read_ads;
//! use classad::negotiate::{negotiate, CycleKnobs, Priorities};
//! use std::sync::Arc;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ads = |text: &str| -> Result<Vec<_>, classad::ad::ReadError> {
//!     Ok(read_ads(text, "pool")?.into_iter().map(Arc::new).collect())
//! };
//! let jobs = ads("Owner = \"alice\"\nRequirements = true\n\n\
//!                 Owner = \"bob\"\nRequirements = true\n")?;
//! let slots = ads("Cpus = 1\nRequirements = true\n\nCpus = 1\nRequirements = true\n")?;
//! let priorities = Priorities::parse("alice 10\nbob 1\n", "prio")?;
//! let outcome = negotiate(&jobs, &slots, &CycleKnobs::default(), &priorities);
//! let order: Vec<&str> = outcome.matches.iter().map(|m| &*m.submitter).collect();
//! assert_eq!(order, ["bob", "alice"], "the better priority goes first");
//! # Ok(())
//! # }
//! ```

mod accountant;
pub mod accounts;
pub mod bounds;
pub mod concurrency_limits;
pub mod consumption;
mod cycle;
mod groups;
pub mod heads;
pub mod jobs;
pub mod knobs;
pub mod living;
mod matchlist;
mod offers;
mod packing;
pub mod pairs;
pub mod pool;
pub mod priorities;
pub mod report;
pub mod schedd;
pub mod shard;
pub mod slots;
pub mod startd;
pub mod submitters;

pub use accountant::effective_priority;
pub use bounds::MAX_AMOUNT;
pub use heads::CandidateBounds;
pub use jobs::{
    classify_with_facts, cluster_with_facts, read_queue, FactReader, JobFacts, QueueFacts,
    FACT_NAMES,
};
pub use knobs::{CycleKnobs, GroupKnobs, Groups, Quota};
pub use matchlist::PreemptState;
pub use pairs::{CandidatesError, ClassPairs};
pub use pool::{Pool, Queue, SlotCode};
pub use priorities::{Priorities, PrioritiesError, PriorityEntry, UnfoundPriority};
pub use report::{
    CycleMatch, CycleOutcome, CycleStats, LimitUse, SubmitterReport, Unmatched, UnmatchedJobs,
};
pub use slots::SlotTable;
pub use submitters::{SubmitterId, SubmitterNames};

use crate::ad::ClassAd;
use crate::matching::Autoclusters;
use std::sync::Arc;

/// Runs one negotiation cycle over `jobs` and `slots` (in file order) under
/// `knobs`, the accountant starting from `priorities`: a [`Pool`] made and
/// negotiated once.
pub fn negotiate(
    jobs: &[Arc<ClassAd>],
    slots: &[Arc<ClassAd>],
    knobs: &CycleKnobs,
    priorities: &Priorities,
) -> CycleOutcome {
    negotiate_bounded(jobs, slots, knobs, priorities, CandidateBounds::default())
}

/// [`negotiate`] holding as much of the classes' candidates as `bounds` allow
/// (the outcome is the same for any bounds; the time and memory are not).
pub fn negotiate_bounded(
    jobs: &[Arc<ClassAd>],
    slots: &[Arc<ClassAd>],
    knobs: &CycleKnobs,
    priorities: &Priorities,
    bounds: CandidateBounds,
) -> CycleOutcome {
    let pool = Pool::new(slots, knobs.clone(), priorities.clone());
    let queue = pool.queue(jobs);
    pool.negotiate_bounded(&queue, pool.compile(), bounds, |_| {})
}

/// What the cycle reads of a request's job beyond the slots' expressions, which
/// the match classes must therefore agree on: `RequestCpus` and `RequestMemory`
/// for `NEGOTIATOR_DEPTH_FIRST`, the requests the schedd packs leftovers by, and
/// the `_condor_Request<resource>` overrides of consumption policies.
pub fn class_names(table: &SlotTable, knobs: &CycleKnobs) -> Vec<String> {
    let mut names = Vec::new();
    if knobs.depth_first {
        names.extend(["RequestCpus".to_string(), "RequestMemory".to_string()]);
    }
    if knobs.schedd_packing {
        for r in ["Cpus", "Memory", "Disk", "GPUs"] {
            names.push(format!("Request{r}"));
        }
        for ad in &table.ads {
            for r in consumption::resources(ad).unwrap_or_default() {
                names.push(format!("Request{r}"));
            }
        }
    }
    for (ad, cp) in table.ads.iter().zip(&table.consumption) {
        if *cp {
            for r in consumption::resources(ad).unwrap_or_default() {
                names.push(format!("_condor_Request{r}"));
                names.push(format!("Request{r}"));
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

/// The slots of a cycle, prepared ([`SlotTable::new`]) with the effective
/// priorities of `priorities`.
pub fn prepare_slots(
    slots: &[Arc<ClassAd>],
    knobs: &CycleKnobs,
    priorities: &Priorities,
) -> SlotTable {
    SlotTable::new(slots, knobs, |user| {
        effective_priority(user, priorities, knobs)
    })
}

/// The phases of a cycle ([`Pool::negotiate_compiled`]), in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CyclePhase {
    /// Every class's candidates worked out (the first pass over the slots).
    Matching,
    /// The pie spins.
    Negotiating,
}

/// Runs a cycle given every class's candidates (from the batch matcher, or
/// [`ClassPairs::from_reference`]): the step under [`Pool`]'s cycles, for
/// those that hold the candidates themselves (benchmarks, tests).
pub fn negotiate_with_pairs(
    table: &SlotTable,
    facts: &QueueFacts,
    clusters: &Autoclusters,
    mut pairs: ClassPairs,
    knobs: &CycleKnobs,
    priorities: &Priorities,
) -> CycleOutcome {
    let started = std::time::Instant::now();
    if knobs.consider_preemption {
        let claimed: Vec<bool> = table.remote_user.iter().map(Option::is_some).collect();
        let reps = clusters.representatives();
        pairs.prepare_preemption_tests(&table.ads, &claimed, reps, &knobs.policy);
    }
    let prepared = started.elapsed().as_secs_f64();
    let c = cycle::Cycle::new(knobs, priorities, table, facts, clusters, pairs);
    let mut outcome = c.run();
    let s = &mut outcome.stats;
    s.duration = started.elapsed().as_secs_f64();
    s.phase_durations[1] = prepared;
    s.phase_durations[3] = s.duration - prepared - s.phase_durations[2];
    outcome
}
