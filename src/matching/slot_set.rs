//! The matching pipeline as one object, the one the bindings' match calls go
//! through: a set of slots compiled once for the batch matcher, matched against
//! one queue after another. Each call clusters its jobs into HTCondor's
//! autoclusters and match classes and evaluates each class once against every
//! slot; the compiled slots are lent to one call at a time (a call made while
//! another holds them compiles its own), so the set is shared across threads.

use super::batch::{BatchMatcher, Candidate, CompiledSlots};
use super::match_queue::{Classes, MatchQueue};
use super::{Autoclusters, NegotiatorPolicy};
use crate::ad::ClassAd;
use std::sync::{Arc, Mutex};

/// Slots compiled once for the batch matcher, under a negotiator's policy
/// (`NEGOTIATOR_PRE_JOB_RANK` and friends order the candidates).
///
/// ```
/// use classad::ad::read_ads;
/// use classad::matching::{NegotiatorPolicy, SlotSet};
/// use std::sync::Arc;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let ads = |text: &str| -> Result<Vec<_>, classad::ad::ReadError> {
///     Ok(read_ads(text, "pool")?.into_iter().map(Arc::new).collect())
/// };
/// let slots = ads("Cpus = 1\nRequirements = true\n\nCpus = 8\nRequirements = true\n")?;
/// let set = SlotSet::new(slots, NegotiatorPolicy::default());
/// let jobs = ads("Requirements = TARGET.Cpus >= 2\nRank = TARGET.Cpus\n\nRequirements = true\n")?;
/// let mut pairs = Vec::new();
/// set.for_each_pair(&jobs, |j, s| pairs.push((j, s)));
/// assert_eq!(pairs, [(0, 1), (1, 0), (1, 1)]);
/// assert_eq!(set.candidates_of(&jobs[0]), [1]);
/// # Ok(())
/// # }
/// ```
pub struct SlotSet {
    slots: Vec<Arc<ClassAd>>,
    policy: NegotiatorPolicy,
    compiled: Mutex<Option<CompiledSlots>>,
}

/// What matching a queue took: its autoclusters (when clustered), the classes
/// evaluated, and the (class, slot) pairs decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchSummary {
    /// How many autoclusters the queue was in, when it was clustered.
    pub autoclusters: Option<usize>,
    /// How many classes were evaluated.
    pub classes: usize,
    /// How many (class, slot) pairs were decided.
    pub evaluations: u64,
}

/// Each job's match class, and per class the slots that match it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassCandidates {
    /// Per job, its match class.
    pub class_of: Vec<u32>,
    /// Per class, the slots that match it both ways, best first in the
    /// negotiator's order (PRE, the job's `Rank`, POST, then slot order).
    pub candidates: Vec<Vec<u32>>,
}

impl SlotSet {
    /// `slots` (their indices are the slot indices of every result), compiled
    /// under `policy`.
    pub fn new(slots: Vec<Arc<ClassAd>>, policy: NegotiatorPolicy) -> SlotSet {
        let compiled = CompiledSlots::new(&slots, &policy);
        SlotSet {
            slots,
            policy,
            compiled: Mutex::new(Some(compiled)),
        }
    }

    /// The slots.
    pub fn slots(&self) -> &[Arc<ClassAd>] {
        &self.slots
    }

    /// How many slots.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when there are no slots.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Calls `f(job, slot)` for every pair of `jobs` and the slots that
    /// matches both ways (HTCondor's `symmetricMatch`), in job order then slot
    /// order, the jobs grouped into autoclusters.
    pub fn for_each_pair(&self, jobs: &[Arc<ClassAd>], mut f: impl FnMut(usize, usize)) {
        self.with_matcher(Some(jobs), None, |m| {
            let _ = m.for_each_pair(|j, s| {
                f(j, s);
                Ok::<(), ()>(())
            });
        })
    }

    /// Each job's match class (HTCondor's autoclusters, refined so that a
    /// class matches alike) and each class's candidates.
    pub fn candidates(&self, jobs: &[Arc<ClassAd>]) -> ClassCandidates {
        self.with_matcher(Some(jobs), None, |m| {
            let class_of = m
                .autoclusters()
                .map(|a| (0..jobs.len()).map(|j| a.class_of(j)).collect())
                .unwrap_or_default();
            let mut candidates = vec![Vec::new(); m.class_count()];
            let _ = m.for_each_class(|c, _, cands| {
                candidates[c as usize] = cands.iter().map(|c| c.slot).collect();
                Ok::<(), ()>(())
            });
            ClassCandidates {
                class_of,
                candidates,
            }
        })
    }

    /// The slots that match `job` both ways, best first in the negotiator's
    /// order: the job a class of its own.
    pub fn candidates_of(&self, job: &Arc<ClassAd>) -> Vec<u32> {
        self.with_matcher(None, Some(job), |m| {
            m.evaluate_classes(&[0])
                .into_iter()
                .next()
                .map(|(_, cands)| cands.iter().map(|c| c.slot).collect())
                .unwrap_or_default()
        })
    }

    /// Calls `f(job, slot)` for every pair of `queue`'s jobs and the slots
    /// that matches both ways, in queue order then slot order, each class
    /// evaluated once; an error of `f` stops the matching and is returned.
    pub fn pairs<E>(
        &self,
        queue: MatchQueue,
        f: impl FnMut(usize, usize) -> Result<(), E>,
    ) -> Result<MatchSummary, E> {
        self.with_queue(queue, |m| m.for_each_pair(f))
    }

    /// Calls `f(job, candidates)` for every job of `queue` in queue order,
    /// with the slots that match it both ways, best first in the negotiator's
    /// order (PRE, the job's `Rank`, POST, then slot order) and their keys.
    pub fn candidates_by_job<E>(
        &self,
        queue: MatchQueue,
        f: impl FnMut(usize, &[Candidate]) -> Result<(), E>,
    ) -> Result<MatchSummary, E> {
        self.with_queue(queue, |m| m.for_each_candidates(f))
    }

    fn with_queue<E>(
        &self,
        queue: MatchQueue,
        run: impl FnOnce(&mut BatchMatcher) -> Result<(), E>,
    ) -> Result<MatchSummary, E> {
        let compiled = self.take_compiled();
        let autoclusters = queue.autoclusters();
        let mut m = match queue.how {
            Classes::Clustered(c) => BatchMatcher::with_compiled(c, compiled),
            Classes::EachJob(jobs) => BatchMatcher::each_job(jobs, compiled),
        };
        let ran = run(&mut m);
        let summary = MatchSummary {
            autoclusters,
            classes: m.class_count(),
            evaluations: m.stats().pairs,
        };
        self.give_back(m);
        ran.map(|()| summary)
    }

    /// The compiled slots, taken for a call (compiled afresh when another
    /// call holds them).
    fn take_compiled(&self) -> CompiledSlots {
        let taken = self.compiled.lock().map(|mut c| c.take()).unwrap_or(None);
        taken.unwrap_or_else(|| CompiledSlots::new(&self.slots, &self.policy))
    }

    /// The compiled slots of a call's matcher, given back.
    fn give_back(&self, m: BatchMatcher) {
        if let Ok(mut c) = self.compiled.lock() {
            *c = Some(m.into_compiled_slots());
        }
    }

    /// Runs `f` on a matcher of `jobs` (clustered) or of `job` alone, the
    /// compiled slots taken for the call and given back after it.
    fn with_matcher<T>(
        &self,
        jobs: Option<&[Arc<ClassAd>]>,
        job: Option<&Arc<ClassAd>>,
        f: impl FnOnce(&mut BatchMatcher) -> T,
    ) -> T {
        let compiled = self.take_compiled();
        let mut m = match (jobs, job) {
            (Some(jobs), _) => {
                let clusters = Autoclusters::new(jobs, &self.slots, &self.policy);
                BatchMatcher::with_compiled(clusters, compiled)
            }
            (None, job) => {
                let reps = job.into_iter().cloned().collect();
                BatchMatcher::for_classes(reps, compiled)
            }
        };
        let out = f(&mut m);
        self.give_back(m);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::ad::test_ads as ads;

    #[test]
    fn every_call_agrees_and_the_code_is_lent_back() {
        let slots = ads("Cpus = 1\nRequirements = TARGET.Big =!= true\n\n\
             Cpus = 8\nRequirements = true\n\nCpus = 4\nRequirements = true\n");
        let set = SlotSet::new(slots, NegotiatorPolicy::default());
        let jobs = ads("Requirements = TARGET.Cpus >= 2\nRank = TARGET.Cpus\n\n\
             Requirements = true\nBig = true\n\nRequirements = TARGET.Cpus >= 2\nRank = TARGET.Cpus\n");
        let mut pairs = Vec::new();
        set.for_each_pair(&jobs, |j, s| pairs.push((j, s)));
        assert_eq!(pairs, [(0, 1), (0, 2), (1, 1), (1, 2), (2, 1), (2, 2)]);
        let c = set.candidates(&jobs);
        assert_eq!(c.class_of[0], c.class_of[2], "alike jobs share a class");
        assert_eq!(
            c.candidates[c.class_of[0] as usize],
            [1, 2],
            "best Rank first"
        );
        assert_eq!(set.candidates_of(&jobs[0]), [1, 2]);
        assert!(set.compiled.lock().unwrap().is_some(), "given back");
        // Held by another call, the code is compiled afresh: the same answer.
        let held = set.compiled.lock().unwrap().take();
        assert_eq!(set.candidates_of(&jobs[1]), [1, 2]);
        drop(held);
    }
}
