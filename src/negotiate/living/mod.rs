//! A living pool (negotiator.md section 18): slots, jobs, the knobs and the
//! accountant kept between cycles, changed a few at a time, each cycle
//! costing what changed.
//!
//! Between cycles a caller adds, changes and removes jobs and slots and
//! moves the clock; [`LivingPool::cycle`] then runs the negotiator's cycle
//! at that moment, exactly as [`crate::negotiate::Pool::with_accounts`]
//! runs it on the same ads, in the pool's order, and the same accountant
//! state: the accountant's update, the cycle, and its matches charged.
//! What it works out again is only what changed:
//!
//! - a new or changed job is classified; it joins a class (or makes one)
//!   and leaves its old one; a class no job has is dropped;
//! - a new class is matched against every slot; a new or changed slot
//!   against every class; the pairs of everything else are kept;
//! - a slot whose `RemoteUserPrio` moved with the accountant is matched
//!   again only when something reads that attribute;
//! - what cannot be kept is worked out at every cycle: a class of its own
//!   (a job reading the clock, or one whose expressions cannot be walked)
//!   against every slot, a slot reading the clock against every class;
//! - when the slots come to read other attributes of jobs (the significant
//!   attributes change), every job is classified again and every class
//!   matched again.
//!
//! Jobs and slots have ids, their places: the queue's order and the pool's
//! order are the order of ids, and an id a removed job or slot had is given
//! to the next one added. A cycle's outcome names jobs and slots by id.
//!
//! ```
//! use classad::ad::read_ads;
//! use classad::negotiate::accounts::Accounts;
//! use classad::negotiate::living::LivingPool;
//! use classad::negotiate::CycleKnobs;
//! use std::sync::Arc;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ads = |text: &str| -> Result<Vec<_>, classad::ad::ReadError> {
//!     Ok(read_ads(text, "pool")?.into_iter().map(Arc::new).collect())
//! };
//! let slots = ads("Name = \"slot1@a\"\nCpus = 1\nRequirements = true\n")?;
//! let jobs = ads("Owner = \"alice\"\nRequirements = true\n")?;
//! let accounts = Accounts::new(0, 86400.0, Vec::new());
//! let mut pool = LivingPool::new(&slots, &jobs, CycleKnobs::default(), accounts, 0);
//! let first = pool.cycle();
//! assert_eq!(first.outcome.matches.len(), 1);
//! let bob = pool.add_job(ads("Owner = \"bob\"\nRequirements = true\n")?.remove(0));
//! pool.advance_to(60);
//! let second = pool.cycle();
//! assert_eq!(second.work.jobs_classified, 1, "only the new job is classified");
//! assert_eq!(second.outcome.matches[0].job, bob, "bob has a better priority now");
//! # Ok(())
//! # }
//! ```

mod claiming;
mod claims;
mod columns;
mod queue;
mod slots;
mod tenancy;

pub use claiming::{Applied, Ended, Evicted, Refusal, Refused, Released, Started};

use super::accounts::Accounts;
use super::heads::CandidateBounds;
use super::pairs::ClassPairs;
use super::{class_names, effective_priority, negotiate_with_pairs, CycleKnobs, CycleOutcome};
use crate::ad::ClassAd;
use crate::matching::refs::{NameSet, References};
use crate::matching::SignificantAttributes;
use crate::syntax::ast::ExprView;
use crate::syntax::same::exact_text;
use columns::Columns;
use queue::LiveQueue;
use slots::LiveSlots;
use std::sync::Arc;
use std::time::Instant;
use tenancy::Tenancy;

/// The attribute of a slot the cycle fills in from the accountant.
const PRIORITY: &str = "RemoteUserPrio";

/// What a cycle worked out again, and what it took.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CycleWork {
    /// Every job was classified and every class matched again (the first
    /// cycle, or the slots came to read other attributes of jobs).
    pub rebuilt: bool,
    /// Jobs classified (new and changed ones).
    pub jobs_classified: u64,
    /// Jobs that changed in nothing their class reads (their status, say):
    /// kept in their classes, their facts read again.
    pub jobs_reread: u64,
    /// Classes matched against every slot (new ones, and classes of their own).
    pub classes_matched: u64,
    /// Classes dropped (no job has them any more).
    pub classes_dropped: u64,
    /// Slots prepared again (changed, or their submitter's priority moved).
    pub slots_prepared: u64,
    /// Slots matched against every class.
    pub slots_matched: u64,
    /// (class, slot) pairs evaluated.
    pub evaluations: u64,
    /// Classes whose first heads were made again (their candidates changed,
    /// or the slots the cycle reads did); the others' are kept.
    pub heads_made: u64,
    /// Seconds classifying and matching what changed (the living pool's
    /// share of a fresh cycle's reading, clustering and matching), the time
    /// [`LivingPool::update_job`] took telling whether jobs stay in their
    /// classes since the last cycle included.
    pub cluster_match_s: f64,
    /// Seconds of the whole cycle, that time included.
    pub cycle_s: f64,
}

/// One cycle of a living pool: the outcome, whose `job` and `slot` indices
/// are the ids of the jobs and slots (a fresh cycle's are indices into the
/// ads given; the pool's ids are those indices when no job or slot has been
/// removed), and the work done.
#[derive(Clone, Debug)]
pub struct LivingCycle {
    /// What the cycle did, as [`crate::negotiate::Pool::negotiate`] reports
    /// it, by id.
    pub outcome: CycleOutcome,
    /// What was worked out again.
    pub work: CycleWork,
}

/// An id that names no job or slot of the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownId(pub u32);

impl std::fmt::Display for UnknownId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no job or slot has id {}", self.0)
    }
}

impl std::error::Error for UnknownId {}

/// Slots, jobs, knobs and the accountant, kept between cycles (see the
/// module).
#[derive(Debug)]
pub struct LivingPool {
    knobs: CycleKnobs,
    accounts: Accounts,
    now: i64,
    bounds: CandidateBounds,
    slots: LiveSlots,
    queue: LiveQueue,
    columns: Columns,
    /// Per class id, what is kept of it.
    classes: Vec<Option<KeptClass>>,
    /// `NEGOTIATOR_PRE_JOB_RANK` or `POST_JOB_RANK` reads the clock (every
    /// pair is evaluated again at every cycle).
    policy_volatile: bool,
    /// They read `RemoteUserPrio`.
    policy_reads_priority: bool,
    /// A cycle has classified and matched the pool.
    built: bool,
    /// The place of the first slot the last cycle saw.
    first_slot: Option<u32>,
    /// Seconds spent since the last cycle telling whether changed jobs stay
    /// in their classes (counted in the next cycle's times).
    classifying_s: f64,
    /// Who runs where, once matches were applied or jobs ended.
    tenancy: Option<Tenancy>,
}

impl LivingPool {
    /// The pool of `slots` and `jobs` (in order: their ids are 0, 1, ...)
    /// under `knobs`, the accountant's state `accounts`, the clock at `now`.
    pub fn new(
        slots: &[Arc<ClassAd>],
        jobs: &[Arc<ClassAd>],
        knobs: CycleKnobs,
        accounts: Accounts,
        now: i64,
    ) -> LivingPool {
        let (policy_volatile, policy_reads_priority) = policy_reads(&knobs);
        let empty = SignificantAttributes::compute::<Arc<ClassAd>>(&[], &knobs.policy);
        let mut pool = LivingPool {
            knobs,
            accounts,
            now,
            bounds: CandidateBounds::default(),
            slots: LiveSlots::default(),
            queue: LiveQueue::new(empty),
            columns: Columns::default(),
            classes: Vec::new(),
            policy_volatile,
            policy_reads_priority,
            built: false,
            first_slot: None,
            classifying_s: 0.0,
            tenancy: None,
        };
        for s in slots {
            pool.slots.add(s.clone());
        }
        for j in jobs {
            pool.queue.add(j.clone());
        }
        pool
    }

    /// Holds as much of the classes' candidates as `bounds` allow in a cycle
    /// (the outcome is the same for any bounds).
    pub fn set_bounds(&mut self, bounds: CandidateBounds) {
        self.bounds = bounds;
    }

    /// Adds job `ad` to the queue; its id.
    pub fn add_job(&mut self, ad: Arc<ClassAd>) -> u32 {
        let id = self.queue.add(ad);
        if let (Some(t), Some(ad)) = (&mut self.tenancy, self.queue.get(id)) {
            t.job_added(id, ad);
        }
        id
    }

    /// Job `id` becomes `ad` (it keeps its place in the queue). When it
    /// changed in nothing its class reads (its status, say), it stays in its
    /// class unclassified.
    pub fn update_job(&mut self, id: u32, ad: Arc<ClassAd>) -> Result<(), UnknownId> {
        let old = self.queue.get(id).ok_or(UnknownId(id))?;
        // Who runs where is the schedd's and startd's bookkeeping, not the
        // negotiator's: outside the time counted.
        if let Some(t) = &mut self.tenancy {
            t.job_removed(id, old);
            t.job_added(id, &ad);
        }
        let started = Instant::now();
        let class = self.queue.class_of(id);
        let kept = class.and_then(|c| self.classes.get(c as usize)?.as_ref());
        let stays = match (class, kept.and_then(|k| k.reads.as_ref())) {
            (Some(c), Some(reads)) => reads_alike(old, &ad, reads).then_some(c),
            _ => None,
        };
        let done = match stays {
            Some(c) => self.queue.replace_in_class(id, c, ad),
            None => self.queue.replace(id, ad),
        };
        // Telling whether the job stays in its class is the next cycle's
        // classifying, done early: counted in its time.
        self.classifying_s += started.elapsed().as_secs_f64();
        done.then_some(()).ok_or(UnknownId(id))
    }

    /// Removes job `id`; its ad.
    pub fn remove_job(&mut self, id: u32) -> Result<Arc<ClassAd>, UnknownId> {
        let ad = self.queue.remove(id).ok_or(UnknownId(id))?;
        if let Some(t) = &mut self.tenancy {
            t.job_removed(id, &ad);
        }
        Ok(ad)
    }

    /// Adds slot `ad` to the pool; its id.
    pub fn add_slot(&mut self, ad: Arc<ClassAd>) -> u32 {
        let id = self.slots.add(ad);
        if let (Some(t), Some(ad)) = (&mut self.tenancy, self.slots.get(id)) {
            t.slot_added(id, ad);
        }
        id
    }

    /// Slot `id` becomes `ad` (it keeps its place in the pool).
    pub fn update_slot(&mut self, id: u32, ad: Arc<ClassAd>) -> Result<(), UnknownId> {
        let old = self.slots.get(id).ok_or(UnknownId(id))?;
        if let Some(t) = &mut self.tenancy {
            t.slot_removed(id, old);
            t.slot_added(id, &ad);
        }
        self.slots
            .replace(id, ad)
            .then_some(())
            .ok_or(UnknownId(id))
    }

    /// Removes slot `id`; its ad.
    pub fn remove_slot(&mut self, id: u32) -> Result<Arc<ClassAd>, UnknownId> {
        let ad = self.slots.remove(id).ok_or(UnknownId(id))?;
        if let Some(t) = &mut self.tenancy {
            t.slot_removed(id, &ad);
        }
        Ok(ad)
    }

    /// Moves the clock to `now` (seconds since the epoch): the next cycle's
    /// accountant update ages priorities and charges usage up to it.
    pub fn advance_to(&mut self, now: i64) {
        self.now = now;
    }

    /// The clock.
    pub fn now(&self) -> i64 {
        self.now
    }

    /// Job `id`'s ad.
    pub fn job(&self, id: u32) -> Option<&Arc<ClassAd>> {
        self.queue.get(id)
    }

    /// Slot `id`'s ad.
    pub fn slot(&self, id: u32) -> Option<&Arc<ClassAd>> {
        self.slots.get(id)
    }

    /// Every job in queue order, with its id.
    pub fn jobs(&self) -> impl Iterator<Item = (u32, &Arc<ClassAd>)> {
        self.queue.iter()
    }

    /// Every slot in pool order, with its id.
    pub fn slots(&self) -> impl Iterator<Item = (u32, &Arc<ClassAd>)> {
        self.slots.iter()
    }

    /// How many jobs.
    pub fn job_count(&self) -> usize {
        self.queue.len()
    }

    /// How many slots.
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// The knobs.
    pub fn knobs(&self) -> &CycleKnobs {
        &self.knobs
    }

    /// The accountant's state (as the last cycle left it).
    pub fn accounts(&self) -> &Accounts {
        &self.accounts
    }

    /// One negotiation cycle at [`LivingPool::now`]: the accountant's update,
    /// the slots' claims found again, the cycle, and its matches charged (see
    /// the module).
    pub fn cycle(&mut self) -> LivingCycle {
        let started = Instant::now();
        let now = self.now;
        let mut work = CycleWork::default();
        self.accounts.update_priorities(now);
        // A claimed slot's RemoteUserPrio reads the priorities before
        // CheckMatches, as `Pool::with_accounts` reads them.
        let before = self.accounts.priorities();
        let knobs = &self.knobs;
        let eup = |user: &str| effective_priority(user, &before, knobs);
        if self.policy_volatile {
            self.slots.mark_all_changed();
        }
        let preparing = self.slots.prepare(knobs, &eup);
        work.slots_prepared = (preparing.changed.len()
            + preparing.priority_read.len()
            + preparing.priority_unread.len()) as u64;
        let (significance_changed, gone) = self.slots.take_changes();
        let (table, table_places) = self.slots.snapshot();
        // The negotiator's expressions are walked in the first slot: another
        // first slot, or a change to it, may change what they read.
        let first = table_places.first().copied();
        let first_changed = first != self.first_slot
            || first.is_some_and(|f| preparing.changed.binary_search(&f).is_ok());
        self.first_slot = first;
        if significance_changed || first_changed || !self.built {
            let mut significant = SignificantAttributes::compute(&table.ads, &knobs.policy);
            significant.add_class_names(&class_names(&table, knobs));
            if !self.built || !significant.same_as(self.queue.clusters().significant()) {
                self.queue.reclassify(significant);
                self.columns.clear();
                self.classes.clear();
                self.built = true;
                work.rebuilt = true;
            }
        }
        self.columns.grow_places(self.slots.places());
        if !work.rebuilt {
            for place in gone {
                self.columns.clear_place(place);
            }
        }
        let placing = self.queue.place_waiting(knobs);
        work.jobs_classified = placing.classified as u64;
        work.jobs_reread = placing.refacted as u64;
        work.classes_dropped = placing.gone_classes.len() as u64;
        for &c in &placing.gone_classes {
            self.columns.drop_class(c);
            self.classes[c as usize] = None;
        }
        let clusters = self.queue.clusters();
        let significant = clusters.significant();
        let mut is_new = vec![false; clusters.class_ids()];
        for &c in &placing.new_classes {
            self.columns.add_class(c);
            if self.classes.len() <= c as usize {
                self.classes.resize(c as usize + 1, None);
            }
            let rep = clusters.representative(c);
            let reads = class_reads(rep, significant, clusters.is_own(c));
            self.classes[c as usize] = Some(KeptClass {
                reads_priority: reads_priority(rep),
                matched_as: matched_as(rep, reads.as_ref()),
                reads,
            });
            is_new[c as usize] = true;
        }
        // New classes, and classes of their own (matched again at every
        // cycle), against every slot; the others against the changed slots.
        let live = (0..clusters.class_ids() as u32).filter(|&c| clusters.is_live(c));
        let (whole, kept): (Vec<u32>, Vec<u32>) =
            live.partition(|&c| is_new[c as usize] || clusters.is_own(c));
        let classes = &self.classes;
        let rep = |c: u32| {
            let kept = classes[c as usize].as_ref().expect("a live class is kept");
            (c, kept.matched_as.clone())
        };
        // Every slot is listed only for classes to match against all of
        // them (most cycles have none).
        let mut evaluations = 0;
        if !whole.is_empty() {
            evaluations += self.columns.evaluate(
                &whole.iter().map(|&c| rep(c)).collect::<Vec<_>>(),
                &self.slots.prepared_places(),
                &knobs.policy,
            );
        }
        work.classes_matched = whole.len() as u64;
        // Slots to match against the classes kept.
        let priority_read = self.policy_reads_priority
            || kept.iter().any(|&c| {
                self.classes[c as usize]
                    .as_ref()
                    .is_some_and(|k| k.reads_priority)
            });
        let mut again = preparing.changed;
        again.extend(preparing.priority_read);
        if priority_read {
            again.extend(preparing.priority_unread);
        }
        again.sort_unstable();
        let mut changed_slots = Vec::with_capacity(again.len());
        for place in again {
            match self.slots.prepared(place) {
                Some(ad) => changed_slots.push((place, ad.clone())),
                // Left out by the constraint now: it matches nothing.
                None => self.columns.clear_place(place),
            }
        }
        work.slots_matched = changed_slots.len() as u64;
        evaluations += self.columns.evaluate(
            &kept.iter().map(|&c| rep(c)).collect::<Vec<_>>(),
            &changed_slots,
            &knobs.policy,
        );
        work.evaluations = evaluations;
        self.slots.check_claims(&mut self.accounts, now);
        let priorities = self.accounts.priorities();
        let (facts, autoclusters) = self.queue.snapshot();
        let classes: Vec<u32> = (0..autoclusters.class_count() as u32).collect();
        let (heads, heads_made) =
            self.columns
                .heads(&classes, &table_places, self.bounds, evaluations);
        work.heads_made = heads_made;
        let early = std::mem::take(&mut self.classifying_s);
        work.cluster_match_s = started.elapsed().as_secs_f64() + early;
        let pairs = ClassPairs::of_heads(heads);
        let mut outcome =
            negotiate_with_pairs(&table, facts, &autoclusters, pairs, knobs, &priorities);
        // Autoclusters by the numbers a fresh read gives them.
        let numbers = self.queue.fresh_numbers();
        for m in &mut outcome.matches {
            m.autocluster = numbers[m.autocluster as usize];
        }
        outcome.stats.phase_durations[1] += work.cluster_match_s;
        outcome.stats.duration += work.cluster_match_s;
        let charged = self.accounts.charge_matches(&table, &outcome.matches, now);
        self.slots.charged(charged);
        work.cycle_s = started.elapsed().as_secs_f64() + early;
        LivingCycle { outcome, work }
    }
}

/// What a living pool keeps of a match class.
#[derive(Clone, Debug)]
struct KeptClass {
    /// Its jobs read `RemoteUserPrio` of a slot (or cannot be walked).
    reads_priority: bool,
    /// The ad it is matched as ([`matched_as`]).
    matched_as: Arc<ClassAd>,
    /// Every attribute of a job its class reads ([`class_reads`]); `None`
    /// when that cannot be told (every change classifies the job again).
    reads: Option<NameSet>,
}

/// Every attribute of a job that classifying it and matching its class can
/// read: the names the slots and the negotiator's expressions read of a job
/// (`significant`, which the class's jobs agree on), the job's own
/// `Requirements` and `Rank`, and every attribute of the job these read in
/// turn (the same for every job of the class: its expressions there print
/// alike). `None` for a class of its own, when slots read whole jobs, or
/// when some read cannot be walked.
fn class_reads(
    rep: &Arc<ClassAd>,
    significant: &SignificantAttributes,
    own: bool,
) -> Option<NameSet> {
    if own || significant.reads_whole_jobs() {
        return None;
    }
    let mut refs = References::new();
    let mut reads = NameSet::new();
    let names = significant.names().iter().chain(significant.extra());
    for name in names.map(|n| n.as_str()).chain(["Requirements", "Rank"]) {
        reads.insert(name);
        if let Some(e) = rep.get(name) {
            refs.walk(rep, e.tree, e.id);
        }
    }
    if !refs.complete {
        return None;
    }
    for n in refs.internal.iter() {
        reads.insert(n);
    }
    Some(reads)
}

/// True when `old` and `new` have alike (the same expression, or ones of
/// one exact text) or lack alike every attribute of `reads`: a job changed
/// from one to the other is classified where it was.
fn reads_alike(old: &ClassAd, new: &ClassAd, reads: &NameSet) -> bool {
    let same_node =
        |x: &ExprView<'_>, y: &ExprView<'_>| Arc::ptr_eq(x.tree, y.tree) && x.id == y.id;
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut alike = |x: ExprView<'_>, y: ExprView<'_>| {
        if same_node(&x, &y) {
            return true;
        }
        a.clear();
        b.clear();
        exact_text(x.tree, x.id, &mut a) && exact_text(y.tree, y.id, &mut b) && a == b
    };
    // Ads of one layout (an ad changed in place, as a schedd's update makes
    // it) are compared side by side: attributes of the same node (most) are
    // passed without looking their names up.
    if old.layout_id() == new.layout_id() {
        return old
            .iter()
            .zip(new.iter())
            .all(|((name, x), (_, y))| same_node(&x, &y) || !reads.contains(name) || alike(x, y));
    }
    reads
        .iter()
        .all(|name| match (old.get(name), new.get(name)) {
            (None, None) => true,
            (Some(x), Some(y)) => alike(x, y),
            _ => false,
        })
}

/// The ad a class is matched as: its representative with only the
/// attributes a match can read ([`class_reads`]). The batch matcher
/// compiles every attribute of what it matches, and a job has some seventy:
/// four hundred classes of whole jobs took 30 ms to compile for a hundred
/// changed slots, at every cycle. The representative whole when what it
/// reads cannot be told.
fn matched_as(rep: &Arc<ClassAd>, reads: Option<&NameSet>) -> Arc<ClassAd> {
    let Some(keep) = reads else {
        return rep.clone();
    };
    let mut lean = (**rep).clone();
    let drop: Vec<String> = rep
        .iter()
        .filter(|(n, _)| !keep.contains(n))
        .map(|(n, _)| n.as_str().to_string())
        .collect();
    for n in drop {
        lean.remove(&n);
    }
    Arc::new(lean)
}

/// Whether `NEGOTIATOR_PRE_JOB_RANK` or `POST_JOB_RANK` read the clock (or
/// cannot be walked), and whether they read `RemoteUserPrio`.
fn policy_reads(knobs: &CycleKnobs) -> (bool, bool) {
    let empty = ClassAd::new();
    let p = &knobs.policy;
    let (mut volatile, mut priority) = (false, false);
    for e in [&p.pre_job_rank, &p.post_job_rank].into_iter().flatten() {
        let r = References::of(&empty, &e.tree, e.id);
        volatile |= r.volatile || !r.complete;
        priority |= !r.complete || r.external.contains(PRIORITY);
    }
    (volatile, priority)
}

/// Whether a class's `Requirements` or `Rank` read a slot's
/// `RemoteUserPrio` (or cannot be walked).
fn reads_priority(rep: &Arc<ClassAd>) -> bool {
    let mut r = References::new();
    for name in ["Requirements", "Rank"] {
        if let Some(e) = rep.get(name) {
            r.walk(rep, e.tree, e.id);
        }
    }
    !r.complete || r.external.contains(PRIORITY)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ad(text: &str) -> ClassAd {
        crate::ad::read_ads(text, "t").unwrap().remove(0)
    }

    /// What a class reads is compared ignoring case, by node or by exact
    /// text, side by side for ads of one layout and name by name otherwise.
    #[test]
    fn reads_alike_compares_what_the_class_reads() {
        let mut reads = NameSet::new();
        reads.insert("requestcpus");
        reads.insert("Owner");
        let old = ad("RequestCpus = 1 + 1\nOwner = \"a\"\nJobStatus = 1\n");
        // One layout: a change of what no class reads, then of what it reads.
        let mut status = old.clone();
        status.insert_expr(
            "JobStatus",
            crate::syntax::ast::Expr::literal(classad_vm::Value::Int(2)),
        );
        assert_eq!(old.layout_id(), status.layout_id());
        assert!(reads_alike(&old, &status, &reads));
        let mut cpus = old.clone();
        cpus.insert_expr(
            "RequestCpus",
            crate::syntax::ast::Expr::literal(classad_vm::Value::Int(2)),
        );
        assert!(!reads_alike(&old, &cpus, &reads));
        // Read afresh (other nodes, and another layout once a name is
        // added): the same text is alike, another is not, a name read and
        // gone is not.
        assert!(reads_alike(
            &old,
            &ad("JobStatus = 2\nOwner = \"a\"\nRequestCpus = 1 + 1\nX = 3\n"),
            &reads
        ));
        assert!(!reads_alike(
            &old,
            &ad("RequestCpus = 1 + 2\nOwner = \"a\"\nJobStatus = 1\n"),
            &reads
        ));
        assert!(!reads_alike(
            &old,
            &ad("RequestCpus = 1 + 1\nJobStatus = 1\n"),
            &reads
        ));
    }
}
