//! The negotiation pipeline as one object, the one every front end (the
//! command line, the Python module, the C ABI, the sharded cycle) goes
//! through: a [`Pool`] holds the slots as the cycle sees them, the knobs and
//! the accountant's state; a [`Queue`] is the jobs read and clustered against
//! it; [`Pool::negotiate`] matches and negotiates. What sits between (the
//! significant attributes, the autoclusters and match classes, the slots
//! compiled for the batch matcher, every class's candidates) is the pool's
//! business, not the caller's.
//!
//! ```
//! use classad::ad::read_ads;
//! use classad::negotiate::{CycleKnobs, Pool, Priorities};
//! use std::sync::Arc;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ads = |text: &str| -> Result<Vec<_>, classad::ad::ReadError> {
//!     Ok(read_ads(text, "pool")?.into_iter().map(Arc::new).collect())
//! };
//! let slots = ads("Cpus = 1\nRequirements = true\n\nCpus = 1\nRequirements = true\n")?;
//! let pool = Pool::new(&slots, CycleKnobs::default(), Priorities::parse("alice 10\nbob 1\n", "p")?);
//! let jobs = "Owner = \"alice\"\nRequirements = true\n\nOwner = \"bob\"\nRequirements = true\n";
//! let queue = pool.read_queue(jobs.as_bytes(), "jobs")?;
//! let outcome = pool.negotiate(&queue);
//! let order: Vec<&str> = outcome.matches.iter().map(|m| &*m.submitter).collect();
//! assert_eq!(order, ["bob", "alice"], "the better priority goes first");
//! # Ok(())
//! # }
//! ```

use super::accounts::{Accounts, Resource};
use super::heads::CandidateBounds;
use super::jobs::{cluster_with_facts, read_queue, QueueFacts};
use super::pairs::{CandidatesError, ClassPairs};
use super::report::CycleOutcome;
use super::slots::SlotTable;
use super::{class_names, negotiate_with_pairs, prepare_slots, CycleKnobs, CyclePhase, Priorities};
use crate::ad::{ClassAd, ReadError};
use crate::matching::autocluster::SharedAd;
use crate::matching::batch::{BatchMatcher, Candidate, CompiledSlots};
use crate::matching::{Autoclusters, SignificantAttributes};
use std::sync::Arc;
use std::time::Instant;

/// The slots of a cycle as the negotiator sees them (`NEGOTIATOR_SLOT_CONSTRAINT`
/// applied, `SlotWeight` and `RemoteUserPrio` filled in), with the knobs and the
/// accountant's state the cycle runs under.
#[derive(Debug)]
pub struct Pool {
    knobs: CycleKnobs,
    priorities: Priorities,
    slots: SlotTable,
    /// What makes two jobs alike for these slots (HTCondor's significant
    /// attributes, and the names the cycle itself reads of a request).
    significant: SignificantAttributes,
}

/// The slots compiled for the batch matcher: the costly part of preparing a
/// pool, made apart so that it can run beside reading the queue.
pub struct SlotCode(CompiledSlots);

/// A queue read and clustered against a [`Pool`]: its match classes (a
/// representative job each) and every job's facts. The ads themselves are not
/// kept, but for a job per class.
#[derive(Debug)]
pub struct Queue {
    facts: QueueFacts,
    clusters: Autoclusters,
}

impl Pool {
    /// The pool of `slots` (in file order) under `knobs`, the accountant
    /// starting from `priorities`.
    pub fn new(slots: &[Arc<ClassAd>], knobs: CycleKnobs, priorities: Priorities) -> Pool {
        let table = prepare_slots(slots, &knobs, &priorities);
        Pool::of_table(table, knobs, priorities)
    }

    /// The pool of `slots` under `knobs`, the cycle starting from the
    /// accountant's records as HTCondor's negotiator brings them to `now`
    /// (negotiator.md section 14): `UpdatePriorities`, then `CheckMatches` on
    /// the slots (their claims found again, usage charged from them). The
    /// cycle's matches are charged afterwards with
    /// [`Accounts::charge_matches`].
    pub fn with_accounts(
        slots: &[Arc<ClassAd>],
        knobs: CycleKnobs,
        accounts: &mut Accounts,
        now: i64,
    ) -> Pool {
        accounts.update_priorities(now);
        // A claimed slot's RemoteUserPrio reads the priorities, not the usage
        // that CheckMatches finds next: the table is made once.
        let table = prepare_slots(slots, &knobs, &accounts.priorities());
        let resources: Vec<Resource> = table
            .ads
            .iter()
            .zip(&table.weight)
            .filter_map(|(ad, &weight)| Resource::of(ad, weight))
            .collect();
        accounts.check_matches(&resources, now);
        let priorities = accounts.priorities();
        Pool::of_table(table, knobs, priorities)
    }

    /// The pool of a prepared slot table.
    fn of_table(table: SlotTable, knobs: CycleKnobs, priorities: Priorities) -> Pool {
        let mut significant = SignificantAttributes::compute(&table.ads, &knobs.policy);
        significant.add_class_names(&class_names(&table, &knobs));
        Pool {
            knobs,
            priorities,
            slots: table,
            significant,
        }
    }

    /// The slots as the cycle sees them.
    pub fn slots(&self) -> &SlotTable {
        &self.slots
    }

    /// The knobs.
    pub fn knobs(&self) -> &CycleKnobs {
        &self.knobs
    }

    /// The accountant's state.
    pub fn priorities(&self) -> &Priorities {
        &self.priorities
    }

    /// The slots compiled for the batch matcher.
    pub fn compile(&self) -> SlotCode {
        SlotCode(CompiledSlots::new(&self.slots.ads, &self.knobs.policy))
    }

    /// `jobs` (in queue order) clustered against the pool, each job's facts
    /// read on the way (on rayon's threads).
    pub fn queue<J: SharedAd + Sync>(&self, jobs: &[J]) -> Queue {
        let (clusters, facts) = cluster_with_facts(jobs, self.significant.clone(), &self.knobs);
        Queue { facts, clusters }
    }

    /// The queue of `reader` (any syntax the library reads; `file` names it in
    /// errors), read in parts on every core and clustered as it is read: a
    /// queue of a million jobs is never held whole.
    pub fn read_queue<R: std::io::BufRead + Send>(
        &self,
        reader: R,
        file: &str,
    ) -> Result<Queue, ReadError> {
        let (clusters, facts) = read_queue(reader, file, self.significant.clone(), &self.knobs)?;
        Ok(Queue { facts, clusters })
    }

    /// One cycle over `queue`: every class matched against the slots on the
    /// VM, then the pie spins.
    pub fn negotiate(&self, queue: &Queue) -> CycleOutcome {
        self.negotiate_compiled(queue, self.compile(), |_| {})
    }

    /// [`Pool::negotiate`] with the slots compiled already, calling
    /// `entering` as each phase starts (to show progress on a long run).
    pub fn negotiate_compiled(
        &self,
        queue: &Queue,
        compiled: SlotCode,
        entering: impl FnMut(CyclePhase),
    ) -> CycleOutcome {
        self.negotiate_bounded(queue, compiled, CandidateBounds::default(), entering)
    }

    /// [`Pool::negotiate_compiled`] holding as much of the classes'
    /// candidates as `bounds` allow (the outcome is the same for any bounds;
    /// the time and memory are not).
    pub fn negotiate_bounded(
        &self,
        queue: &Queue,
        compiled: SlotCode,
        bounds: CandidateBounds,
        mut entering: impl FnMut(CyclePhase),
    ) -> CycleOutcome {
        let started = Instant::now();
        entering(CyclePhase::Matching);
        let reps = queue.clusters.representatives().to_vec();
        let pairs = ClassPairs::with_bounds(BatchMatcher::for_classes(reps, compiled.0), bounds);
        let matched = started.elapsed().as_secs_f64();
        entering(CyclePhase::Negotiating);
        let mut outcome = self.run(queue, pairs);
        outcome.stats.phase_durations[1] += matched;
        outcome.stats.duration += matched;
        outcome
    }

    /// One cycle over `queue` with every class's candidates worked out by the
    /// reference evaluator (to hold the VM against it).
    pub fn negotiate_on_reference(&self, queue: &Queue) -> CycleOutcome {
        let started = Instant::now();
        let reps = queue.clusters.representatives();
        let pairs = ClassPairs::from_reference(reps, &self.slots.ads, &self.knobs.policy);
        let matched = started.elapsed().as_secs_f64();
        let mut outcome = self.run(queue, pairs);
        outcome.stats.phase_durations[1] += matched;
        outcome.stats.duration += matched;
        outcome
    }

    /// One cycle over `queue` on candidates worked out elsewhere (the shards'
    /// lists merged, [`super::shard::merge`]): per class, its candidates among
    /// the pool's slots in the negotiator's order.
    pub fn negotiate_on_candidates(
        &self,
        queue: &Queue,
        lists: Vec<Vec<Candidate>>,
    ) -> Result<CycleOutcome, CandidatesError> {
        let pairs = ClassPairs::from_candidates(self.slots.len(), lists)?;
        Ok(self.run(queue, pairs))
    }

    fn run(&self, queue: &Queue, pairs: ClassPairs) -> CycleOutcome {
        negotiate_with_pairs(
            &self.slots,
            &queue.facts,
            &queue.clusters,
            pairs,
            &self.knobs,
            &self.priorities,
        )
    }
}

impl Queue {
    /// The queue with every job a class of its own (`--no-autocluster`: each
    /// job matched on its own, to hold the classes against). `jobs` are the
    /// queue's ads, in order.
    pub fn one_class_per_job(self, jobs: &[Arc<ClassAd>]) -> Queue {
        Queue {
            facts: self.facts,
            clusters: self.clusters.one_class_per_job(jobs),
        }
    }

    /// Each job's facts.
    pub fn facts(&self) -> &QueueFacts {
        &self.facts
    }

    /// The autoclusters and match classes.
    pub fn clusters(&self) -> &Autoclusters {
        &self.clusters
    }

    /// How many jobs.
    pub fn len(&self) -> usize {
        self.facts.len()
    }

    /// True when there are no jobs.
    pub fn is_empty(&self) -> bool {
        self.facts.is_empty()
    }

    /// The facts, the queue given up.
    pub fn into_facts(self) -> QueueFacts {
        self.facts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::ad::test_ads as ads;

    #[test]
    fn every_way_to_the_candidates_gives_the_same_cycle() {
        let slots = ads(
            "Cpus = 2\nMemory = 10\nRequirements = TARGET.RequestCpus <= Cpus\nRank = Memory\n\n\
             Cpus = 1\nMemory = 20\nRequirements = true\nRank = 0\n\n\
             Cpus = 4\nMemory = 5\nRequirements = TARGET.Owner != \"c\"\nRank = 1\n",
        );
        let jobs = ads(
            "Owner = \"a\"\nRequestCpus = 2\nRequirements = TARGET.Cpus >= RequestCpus\n\n\
             Owner = \"b\"\nRequestCpus = 1\nRequirements = true\nRank = TARGET.Memory\n\n\
             Owner = \"c\"\nRequestCpus = 1\nRequirements = true\n\n\
             Owner = \"a\"\nRequestCpus = 1\nRequirements = TARGET.Memory > 6\n",
        );
        let prio = Priorities::parse("a 3\nb 1\nc 2\n", "p").unwrap();
        let pool = Pool::new(&slots, CycleKnobs::default(), prio);
        let queue = pool.queue(&jobs);
        let vm = pool.negotiate(&queue);
        assert_eq!(vm.matches.len(), 3);
        let reference = pool.negotiate_on_reference(&queue);
        let reps = queue.clusters().representatives().to_vec();
        let lists = super::super::shard::class_lists(reps, &pool.slots().ads, pool.knobs(), 0);
        let given = pool.negotiate_on_candidates(&queue, lists).unwrap();
        let text: Vec<u8> = jobs
            .iter()
            .flat_map(|j| format!("{}\n\n", crate::ad::unparse_ad_old(j)).into_bytes())
            .collect();
        let read = pool.read_queue(&text[..], "jobs").unwrap();
        let from_text = pool.negotiate(&read);
        let pairs = |o: &CycleOutcome| -> Vec<(u32, u32)> {
            o.matches.iter().map(|m| (m.job, m.slot)).collect()
        };
        for other in [&reference, &given, &from_text] {
            assert_eq!(pairs(&vm), pairs(other));
        }
        let alone = pool.negotiate(&queue.one_class_per_job(&jobs));
        assert_eq!(pairs(&vm), pairs(&alone));
    }
}
