//! The batch matchmaker: every job of a queue against every slot of a pool,
//! evaluated once per match class (see [`super::autocluster`]), a block of slots
//! and a block of classes at a time, across cores.
//!
//! Jobs are taken in queue order, a window at a time; the classes first met in a
//! window are compiled (one representative job each) and evaluated against every
//! slot: the slots' Requirements over blocks of representatives and the
//! representatives' Requirements over blocks of slots ([`classad_vm::Machine::verdicts`]), then,
//! for the pairs that match, the negotiator's rank key (negotiator.md section 6:
//! `NEGOTIATOR_PRE_JOB_RANK`, the job's `Rank`, `NEGOTIATOR_POST_JOB_RANK`) over
//! the same blocks ([`classad_vm::Machine::eval_attr_lanes`]). The work items, one per block
//! of slots, run on rayon's threads; each result lands in its place, so the output
//! is the same for any number of threads. A class's result is dropped after its
//! last job, so memory follows the classes alive, never the match matrix.

mod block;
mod gather;
mod rank_reads;

pub(crate) use rank_reads::{class_ids, RankReads};

use super::autocluster::Autoclusters;
use super::policy::NegotiatorPolicy;
use super::pool::CompiledPool;
use super::refs::{NameSet, References};
use super::slot_kinds::SlotKinds;
use crate::ad::ClassAd;
use crate::compile::CompiledClassAd;
use crate::syntax::ast::ExprRef;
use block::{block_work, BlockResult, RankExprs, THREAD_MACHINE};
use classad_vm::lanes::LANES;
use classad_vm::logic::for_each_lane;
use classad_vm::{SlotTable, Str, Value};
use rank_reads::{add_slot_reads, job_rank_key, rank_reads, RankGroups, SlotReads};
use rayon::prelude::*;
use std::sync::Arc;

/// The negotiator's order of a candidate slot for a job, compared field by field,
/// larger first (negotiator.md section 6). PRE and POST are kept in single
/// precision, as HTCondor keeps them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RankKey {
    /// `NEGOTIATOR_PRE_JOB_RANK`: a number rounded to single precision, or
    /// `-f64::MAX` when it is not a number.
    pub pre: f64,
    /// The job's `Rank` of the slot (0.0 when not a number).
    pub rank: f64,
    /// `NEGOTIATOR_POST_JOB_RANK`, as `pre`.
    pub post: f64,
}

impl RankKey {
    /// True when `self` is strictly better than `other`.
    pub fn better_than(&self, other: &RankKey) -> bool {
        self.partial_cmp_key(other) == std::cmp::Ordering::Greater
    }

    /// The key order, field by field, a NaN below every number. Sort by
    /// `b.partial_cmp_key(a)` for best first.
    pub fn partial_cmp_key(&self, other: &RankKey) -> std::cmp::Ordering {
        // HTCondor's tests leave a NaN neither better nor worse, which is no
        // order at all; here it is worse than every number (negotiator.md
        // section 12: where HTCondor's outcome is undefined, the emulator chooses).
        let norm = |x: f64| if x.is_nan() { f64::NEG_INFINITY } else { x };
        for (a, b) in [
            (self.pre, other.pre),
            (self.rank, other.rank),
            (self.post, other.post),
        ] {
            match norm(a).partial_cmp(&norm(b)) {
                Some(std::cmp::Ordering::Equal) | None => {}
                Some(o) => return o,
            }
        }
        std::cmp::Ordering::Equal
    }
}

/// A negotiator rank expression's value as HTCondor keeps it
/// (`EvalNegotiatorMatchRank`): a number (booleans count) rounded to single
/// precision, else `-DBL_MAX`.
pub fn negotiator_rank_value(v: &Value) -> f64 {
    match v.as_f64_promoted() {
        Some(x) => x as f32 as f64,
        None => -f64::MAX,
    }
}

/// One candidate slot of a job, with its key.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// The slot's index in the pool.
    pub slot: u32,
    /// Its key.
    pub key: RankKey,
}

/// The order of candidates: best key first, ties by slot order. A total order
/// (a NaN counts below every number, see [`RankKey::partial_cmp_key`]).
pub fn best_first(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    // The keys as integers in the same order: sorting a class's candidates
    // compares them some ten times each, and integer tuples compare without
    // the branches of three NaN-aware float comparisons.
    let key = |k: &RankKey| (ordered_key(k.pre), ordered_key(k.rank), ordered_key(k.post));
    key(&b.key).cmp(&key(&a.key)).then(a.slot.cmp(&b.slot))
}

/// Sorts `cands` in [`best_first`] order, comparing integer keys worked out
/// once per candidate rather than at every comparison (a class's list at
/// 100,000 slots is tens of thousands of candidates, compared some fifteen times
/// each).
pub fn sort_best_first(cands: &mut [Candidate]) {
    if cands.len() < 64 {
        cands.sort_by(best_first);
        return;
    }
    // Best first is the greatest keys first: `!` reverses an integer's order.
    let key = |c: &Candidate| {
        [
            !ordered_key(c.key.pre),
            !ordered_key(c.key.rank),
            !ordered_key(c.key.post),
        ]
    };
    let mut keyed: Vec<([i64; 3], u32, u32)> = cands
        .iter()
        .enumerate()
        .map(|(i, c)| (key(c), c.slot, i as u32))
        .collect();
    keyed.sort_unstable();
    let sorted: Vec<Candidate> = keyed.iter().map(|&(_, _, i)| cands[i as usize]).collect();
    cands.copy_from_slice(&sorted);
}

/// `x` as an integer whose order is [`RankKey::partial_cmp_key`]'s order of
/// numbers: a NaN as negative infinity, and both zeros as one.
pub fn ordered_key(x: f64) -> i64 {
    let x = if x.is_nan() {
        f64::NEG_INFINITY
    } else {
        x + 0.0
    };
    let bits = x.to_bits() as i64;
    // Negative numbers' bits count the wrong way: flip all but the sign.
    bits ^ (((bits >> 63) as u64) >> 1) as i64
}

/// Merges candidate lists, each in [`best_first`] order, into one list in that
/// order: the lists of one class worked out over parts of a pool (shards, their
/// slots numbered in the whole pool) give the list of the whole pool. The heads
/// wait in a heap, the best taken next (on a tie, which [`best_first`] leaves
/// only for one slot in two lists, the earlier list).
///
/// ```
/// use classad::matching::batch::{best_first, merge_best_first, Candidate, RankKey};
/// let c = |slot, pre| Candidate { slot, key: RankKey { pre, rank: 0.0, post: 0.0 } };
/// let (a, b) = ([c(0, 5.0), c(2, 1.0)], [c(3, 5.0), c(1, f64::NAN)]);
/// let merged = merge_best_first(&[&a, &b]);
/// assert_eq!(merged.iter().map(|c| c.slot).collect::<Vec<_>>(), [0, 3, 2, 1]);
/// let mut all = [a, b].concat();
/// all.sort_by(best_first);
/// // (Debug text: a NaN is not equal to itself.)
/// assert_eq!(format!("{merged:?}"), format!("{all:?}"));
/// ```
pub fn merge_best_first(parts: &[&[Candidate]]) -> Vec<Candidate> {
    /// A list's head, ordered so that the max-heap's top is the best.
    struct Head(Candidate, usize);
    impl Ord for Head {
        fn cmp(&self, o: &Self) -> std::cmp::Ordering {
            best_first(&o.0, &self.0).then(o.1.cmp(&self.1))
        }
    }
    impl PartialOrd for Head {
        fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(o))
        }
    }
    impl PartialEq for Head {
        fn eq(&self, o: &Self) -> bool {
            self.cmp(o).is_eq()
        }
    }
    impl Eq for Head {}
    let mut out = Vec::with_capacity(parts.iter().map(|p| p.len()).sum());
    let mut at = vec![0usize; parts.len()];
    let mut heap: std::collections::BinaryHeap<Head> = parts
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.first().map(|c| Head(*c, i)))
        .collect();
    while let Some(Head(c, i)) = heap.pop() {
        out.push(c);
        at[i] += 1;
        if let Some(next) = parts[i].get(at[i]) {
            heap.push(Head(*next, i));
        }
    }
    out
}

/// Counts of one run, for the summary a user sees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchStats {
    /// Match classes evaluated.
    pub classes: u64,
    /// (class, slot) pairs whose match was decided.
    pub pairs: u64,
    /// Rank keys computed (one per matching class and slot).
    pub ranked: u64,
}

/// A queue and a pool, ready to be matched class by class.
///
/// ```
/// use classad::ad::read_ads;
/// use classad::matching::batch::BatchMatcher;
/// use classad::matching::NegotiatorPolicy;
/// use std::sync::Arc;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let ads = |text: &str| -> Result<Vec<_>, classad::ad::ReadError> {
///     Ok(read_ads(text, "pool")?.into_iter().map(Arc::new).collect())
/// };
/// let jobs = ads("Requirements = TARGET.Cpus >= 2\nRank = TARGET.Cpus\n\n\
///                 Requirements = TARGET.Cpus >= 2\nRank = TARGET.Cpus\n")?;
/// let slots = ads("Cpus = 1\nRequirements = true\n\nCpus = 8\nRequirements = true\n")?;
/// let mut matcher = BatchMatcher::new(&jobs, &slots, &NegotiatorPolicy::default(), true);
/// assert_eq!(matcher.class_count(), 1, "both jobs are one class");
/// let mut pairs = Vec::new();
/// matcher.for_each_pair(|j, m| {
///     pairs.push((j, m));
///     Ok::<(), std::io::Error>(())
/// })?;
/// assert_eq!(pairs, [(0, 1), (1, 1)]);
/// assert_eq!(matcher.assign(), [(0, 1)]);
/// # Ok(())
/// # }
/// ```
pub struct BatchMatcher {
    pool: CompiledPool,
    /// Per job, its class.
    class_of: Vec<u32>,
    /// Per class, the job that stands for it.
    representatives: Vec<Arc<ClassAd>>,
    autoclusters: Option<Autoclusters>,
    pre: Option<(u32, ExprRef)>,
    post: Option<(u32, ExprRef)>,
    /// What PRE and POST each can read from a job, worked out the first time
    /// ranks are asked for.
    rank_reads: Option<[RankReads; 2]>,
    /// What slot attributes read by the jobs' `Rank` can read back from a job,
    /// worked out as jobs need them.
    slot_reads: SlotReads,
    /// The classes whose representatives the pool holds compiled now: a run over
    /// the same classes (all of them, when they fit in one window) reuses them.
    compiled_classes: Vec<u32>,
    /// How the classes last ranked group for PRE, POST and their `Rank`: the
    /// same for every part of the slots a window of classes is ranked over (at
    /// 100,000 slots, working them out for each part was a fifth of the first
    /// pass).
    rank_groups: Option<RankSetup>,
    stats: BatchStats,
}

/// The groups of one set of classes for the rank expressions (see
/// [`BatchMatcher::evaluate_blocks`]).
struct RankSetup {
    classes: Vec<u32>,
    class_groups: [Vec<Vec<u32>>; 2],
    job_groups: Option<RankGroups>,
}

/// The slots of a pool compiled for the batch matcher, with the negotiator's
/// rank expressions compiled for each.
pub struct CompiledSlots {
    pool: CompiledPool,
    pre: Option<(u32, ExprRef)>,
    post: Option<(u32, ExprRef)>,
}

impl CompiledSlots {
    /// Compiles `slots` (on rayon's threads) and `policy`'s
    /// `NEGOTIATOR_PRE_JOB_RANK` and `NEGOTIATOR_POST_JOB_RANK` for each.
    pub fn new(slots: &[Arc<ClassAd>], policy: &NegotiatorPolicy) -> CompiledSlots {
        CompiledSlots::with_table(SlotTable::new(), slots, policy)
    }

    /// [`CompiledSlots::new`] against the names of `table`, which compiled
    /// slots of the same `policy` gave back ([`CompiledSlots::into_table`]):
    /// jobs compiled against it before can be matched without compiling them
    /// again ([`BatchMatcher::for_compiled_classes`]).
    pub fn with_table(
        table: SlotTable,
        slots: &[Arc<ClassAd>],
        policy: &NegotiatorPolicy,
    ) -> CompiledSlots {
        let exprs: Vec<ExprRef> = [&policy.pre_job_rank, &policy.post_job_rank]
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        let pool = CompiledPool::with_table(table, &[], slots, &exprs);
        let mut compiled = pool.machine_exprs().iter().zip(exprs);
        let pre = policy
            .pre_job_rank
            .as_ref()
            .and_then(|_| compiled.next())
            .map(|(s, e)| (*s, e));
        let post = policy
            .post_job_rank
            .as_ref()
            .and_then(|_| compiled.next())
            .map(|(s, e)| (*s, e));
        CompiledSlots { pool, pre, post }
    }

    /// `jobs` compiled against the slots' names, to keep: matched later
    /// against these slots, or slots compiled on this table, with
    /// [`BatchMatcher::for_compiled_classes`].
    pub fn compile_jobs(&mut self, jobs: &[Arc<ClassAd>]) -> Vec<CompiledClassAd> {
        self.pool.compile_jobs(jobs)
    }

    /// How many names the slots' table holds.
    pub fn names(&self) -> usize {
        self.pool.slots.len()
    }

    /// The names the slots and jobs were compiled against, for
    /// [`CompiledSlots::with_table`].
    pub fn into_table(mut self) -> SlotTable {
        self.pool.take_table()
    }
}

/// How many new classes one window compiles and evaluates at most.
pub const WINDOW_CLASSES: usize = 4096;

impl BatchMatcher {
    /// Compiles the slots and works out the jobs' classes: HTCondor's autoclusters
    /// refined to be exact (`autocluster`), or one class per job.
    pub fn new(
        jobs: &[Arc<ClassAd>],
        slots: &[Arc<ClassAd>],
        policy: &NegotiatorPolicy,
        autocluster: bool,
    ) -> BatchMatcher {
        if autocluster {
            BatchMatcher::with_autoclusters(Autoclusters::new(jobs, slots, policy), slots, policy)
        } else {
            let class_of = (0..jobs.len() as u32).collect();
            let slots = CompiledSlots::new(slots, policy);
            BatchMatcher::with_classes(class_of, jobs.to_vec(), None, slots)
        }
    }

    /// Matches the match classes of `autoclusters` (which may come from a queue
    /// read in parts, see [`super::AutoclusterBuilder`]) against `slots`.
    pub fn with_autoclusters(
        autoclusters: Autoclusters,
        slots: &[Arc<ClassAd>],
        policy: &NegotiatorPolicy,
    ) -> BatchMatcher {
        BatchMatcher::with_compiled(autoclusters, CompiledSlots::new(slots, policy))
    }

    /// [`BatchMatcher::with_autoclusters`] with the slots compiled already (say,
    /// while the queue was being read).
    pub fn with_compiled(autoclusters: Autoclusters, slots: CompiledSlots) -> BatchMatcher {
        let class_of = (0..autoclusters.jobs_len())
            .map(|j| autoclusters.class_of(j))
            .collect();
        let reps = autoclusters.representatives().to_vec();
        BatchMatcher::with_classes(class_of, reps, Some(autoclusters), slots)
    }

    fn with_classes(
        class_of: Vec<u32>,
        representatives: Vec<Arc<ClassAd>>,
        autoclusters: Option<Autoclusters>,
        slots: CompiledSlots,
    ) -> BatchMatcher {
        BatchMatcher {
            pool: slots.pool,
            class_of,
            representatives,
            autoclusters,
            pre: slots.pre,
            post: slots.post,
            rank_reads: None,
            slot_reads: SlotReads::default(),
            compiled_classes: Vec::new(),
            rank_groups: None,
            stats: BatchStats::default(),
        }
    }

    /// Class `c`'s representative (the job that stands for it).
    pub fn representative(&self, c: u32) -> &Arc<ClassAd> {
        &self.representatives[c as usize]
    }

    /// How many classes the jobs are evaluated in.
    pub fn class_count(&self) -> usize {
        self.representatives.len()
    }

    /// The autoclusters, when the matcher formed them.
    pub fn autoclusters(&self) -> Option<&Autoclusters> {
        self.autoclusters.as_ref()
    }

    /// The autoclusters, when the matcher formed them, given back.
    pub fn into_autoclusters(self) -> Option<Autoclusters> {
        self.autoclusters
    }

    /// What the runs so far evaluated.
    pub fn stats(&self) -> BatchStats {
        self.stats
    }

    /// Calls `f(job, slot)` for every matching pair, in queue order then slot order,
    /// without holding the pairs.
    pub fn for_each_pair<E>(
        &mut self,
        mut f: impl FnMut(usize, usize) -> Result<(), E>,
    ) -> Result<(), E> {
        let blocks = self.pool.machines.len().div_ceil(LANES);
        self.windows(false, |_, j, r| {
            for (b, &mask) in r.masks.iter().enumerate() {
                let mut err = None;
                for_each_lane(mask, |l| {
                    if err.is_none() {
                        if let Err(e) = f(j, b * LANES + l) {
                            err = Some(e);
                        }
                    }
                });
                if let Some(e) = err {
                    return Err(e);
                }
            }
            debug_assert_eq!(r.masks.len(), blocks);
            Ok(())
        })
    }

    /// Calls `f(job, candidates)` for every job in queue order, with the slots that
    /// match it, best first by [`RankKey`], ties by slot order.
    pub fn for_each_candidates<E>(
        &mut self,
        mut f: impl FnMut(usize, &[Candidate]) -> Result<(), E>,
    ) -> Result<(), E> {
        self.windows(true, |_, j, r| f(j, &r.candidates))
    }

    /// A matcher of `jobs`, each a class of its own, against `slots`.
    pub fn each_job(jobs: Vec<Arc<ClassAd>>, slots: CompiledSlots) -> BatchMatcher {
        let class_of = (0..jobs.len() as u32).collect();
        BatchMatcher::with_classes(class_of, jobs, None, slots)
    }

    /// A matcher of the classes `representatives` (a job each) against `slots`,
    /// for evaluating chosen classes ([`BatchMatcher::evaluate_classes`]).
    pub fn for_classes(representatives: Vec<Arc<ClassAd>>, slots: CompiledSlots) -> BatchMatcher {
        BatchMatcher::with_classes(Vec::new(), representatives, None, slots)
    }

    /// A matcher of the classes `representatives` against `slots`, each
    /// class compiled already (`compiled`, in the same order, by
    /// [`CompiledSlots::compile_jobs`] against the slots' table): evaluating
    /// all of them at once ([`BatchMatcher::evaluate_keyed`] of every class)
    /// compiles nothing.
    pub fn for_compiled_classes(
        representatives: Vec<Arc<ClassAd>>,
        compiled: Vec<CompiledClassAd>,
        slots: CompiledSlots,
    ) -> BatchMatcher {
        assert_eq!(
            representatives.len(),
            compiled.len(),
            "a compiled ad a class"
        );
        let n = representatives.len() as u32;
        let mut matcher = BatchMatcher::with_classes(Vec::new(), representatives, None, slots);
        matcher.pool.set_compiled_jobs(compiled);
        matcher.compiled_classes = (0..n).collect();
        matcher
    }

    /// The compiled slots given back, to match another set of jobs against
    /// without compiling the slots again.
    pub fn into_compiled_slots(self) -> CompiledSlots {
        CompiledSlots {
            pool: self.pool,
            pre: self.pre,
            post: self.post,
        }
    }

    /// How many slots the matcher holds.
    pub fn slot_count(&self) -> usize {
        self.pool.machines.len()
    }

    /// Evaluates `classes` against every slot: per class, per block of 64 slots,
    /// which match, and those slots best first by [`RankKey`] (ties by slot
    /// order).
    pub fn evaluate_classes(&mut self, classes: &[u32]) -> Vec<(Vec<u64>, Vec<Candidate>)> {
        let mut out = Vec::with_capacity(classes.len());
        for window in classes.chunks(WINDOW_CLASSES) {
            out.extend(
                self.evaluate(window, true)
                    .into_iter()
                    .map(|r| (r.masks, r.candidates)),
            );
        }
        out
    }

    /// Calls `f(class, matches, candidates)` for every class, in id order: per block
    /// of 64 slots, which match the class; and those slots best first by
    /// [`RankKey`], ties by slot order. Classes are evaluated a window at a time, so
    /// `f` may keep what it needs and the rest is dropped.
    pub fn for_each_class<E>(
        &mut self,
        mut f: impl FnMut(u32, &[u64], &[Candidate]) -> Result<(), E>,
    ) -> Result<(), E> {
        let all: Vec<u32> = (0..self.representatives.len() as u32).collect();
        for window in all.chunks(WINDOW_CLASSES) {
            for (c, r) in window.iter().zip(self.evaluate(window, true)) {
                f(*c, &r.masks, &r.candidates)?;
            }
        }
        Ok(())
    }

    /// Today's assignment (until the negotiation cycle replaces it): jobs in queue
    /// order, each taking the first free slot of its candidates. Pairs in the order
    /// made.
    pub fn assign(&mut self) -> Vec<(usize, usize)> {
        let mut taken = vec![false; self.pool.machines.len()];
        let mut out = Vec::new();
        let _ = self.windows(true, |_, j, r| -> Result<(), ()> {
            // Slots before the class's cursor are taken: skip them for good.
            let c = &mut r.cursor;
            while *c < r.candidates.len() && taken[r.candidates[*c].slot as usize] {
                *c += 1;
            }
            if let Some(best) = r.candidates.get(*c) {
                taken[best.slot as usize] = true;
                out.push((j, best.slot as usize));
                *c += 1;
            }
            Ok(())
        });
        out
    }

    /// Runs the jobs in queue order a window at a time, calling `f(class, job,
    /// result of its class)`.
    fn windows<E>(
        &mut self,
        ranks: bool,
        mut f: impl FnMut(u32, usize, &mut ClassResult) -> Result<(), E>,
    ) -> Result<(), E> {
        let n = self.class_of.len();
        // The last job of each class: its result is dropped after it.
        let mut last = vec![0u32; self.representatives.len()];
        for (j, &c) in self.class_of.iter().enumerate() {
            last[c as usize] = j as u32;
        }
        let mut results: ahash::AHashMap<u32, ClassResult> = ahash::AHashMap::new();
        let mut start = 0;
        while start < n {
            // The window: jobs until WINDOW_CLASSES new classes are met.
            let mut new: Vec<u32> = Vec::new();
            let mut end = start;
            let mut seen = ahash::AHashSet::new();
            while end < n {
                let c = self.class_of[end];
                if !results.contains_key(&c) && seen.insert(c) {
                    if new.len() == WINDOW_CLASSES {
                        break;
                    }
                    new.push(c);
                }
                end += 1;
            }
            for (c, r) in new.iter().zip(self.evaluate(&new, ranks)) {
                results.insert(*c, r);
            }
            for j in start..end {
                let c = self.class_of[j];
                let r = results.get_mut(&c).expect("evaluated");
                f(c, j, r)?;
                if last[c as usize] as usize == j {
                    results.remove(&c);
                }
            }
            start = end;
        }
        Ok(())
    }

    /// Works out what the slot attributes the `Rank` of `reps` read can read back
    /// from a job, for those not known yet.
    fn learn_slot_reads(&mut self, reps: &[Arc<ClassAd>]) {
        let mut wanted = NameSet::new();
        for rep in reps {
            if let Some(rank) = rep.get("Rank") {
                let r = References::of(rep, rank.tree, rank.id);
                for n in r.external.iter() {
                    if !self
                        .slot_reads
                        .contains_key(n.to_ascii_lowercase().as_str())
                    {
                        wanted.insert(n);
                    }
                }
            }
        }
        if !wanted.is_empty() {
            let names: Vec<Str> = wanted.iter().cloned().collect();
            add_slot_reads(&self.pool.machines, &names, &mut self.slot_reads);
        }
    }

    /// Evaluates `classes` against the slots of the blocks of 64 in `blocks`
    /// (indexed from the first block of the pool): per class, per block of the
    /// range, which slots match, and the matching slots with their keys in
    /// slot order, unsorted (a caller numbers their keys without sorting).
    pub fn evaluate_keyed(
        &mut self,
        classes: &[u32],
        blocks: std::ops::Range<usize>,
    ) -> Vec<(Vec<u64>, Vec<Candidate>)> {
        let first = blocks.start;
        let results = self.evaluate_blocks(classes, true, blocks);
        (0..classes.len())
            .into_par_iter()
            .map(|ci| {
                let masks: Vec<u64> = results.iter().map(|b| b.masks[ci]).collect();
                let count = masks.iter().map(|m| m.count_ones() as usize).sum();
                let mut cands = Vec::with_capacity(count);
                for (b, (block, &mask)) in results.iter().zip(&masks).enumerate() {
                    let keys = block.keys_of(ci);
                    let mut i = 0;
                    for_each_lane(mask, |l| {
                        cands.push(Candidate {
                            slot: ((first + b) * LANES + l) as u32,
                            key: keys[i],
                        });
                        i += 1;
                    });
                }
                (masks, cands)
            })
            .collect()
    }

    /// Evaluates `classes` against every slot.
    fn evaluate(&mut self, classes: &[u32], ranks: bool) -> Vec<ClassResult> {
        let all = 0..self.pool.machines.len().div_ceil(LANES);
        let blocks = self.evaluate_blocks(classes, ranks, all);
        // Each class's results, gathered from the blocks in slot order.
        let mut out: Vec<ClassResult> = (0..classes.len())
            .map(|ci| ClassResult {
                masks: blocks.iter().map(|b| b.masks[ci]).collect(),
                candidates: Vec::new(),
                cursor: 0,
            })
            .collect();
        if ranks {
            let base = gather::base_order(&blocks, classes.len());
            let lists = gather::all_candidates(&blocks, classes.len(), &base);
            for (r, list) in out.iter_mut().zip(lists) {
                r.candidates = list;
            }
        }
        out
    }

    /// The results of `classes` against the blocks of slots in `blocks`, one
    /// per block of the range.
    fn evaluate_blocks(
        &mut self,
        classes: &[u32],
        ranks: bool,
        blocks: std::ops::Range<usize>,
    ) -> Vec<BlockResult> {
        let reps: Vec<Arc<ClassAd>> = classes
            .iter()
            .map(|&c| self.representatives[c as usize].clone())
            .collect();
        let known = self
            .rank_groups
            .as_ref()
            .is_some_and(|g| g.classes == classes);
        if ranks && !known {
            let machines = &self.pool.machines;
            let (pre, post) = (&self.pre, &self.post);
            // Apart: POST (HTCondor's default) reads nothing of a job that
            // tells classes apart, where PRE reads what the slot's Rank reads.
            let reads = self.rank_reads.get_or_insert_with(|| {
                // The slots' kinds, told once for both.
                let kinds = SlotKinds::of(&machines.iter().map(|m| &*m.source).collect::<Vec<_>>());
                [pre, post].map(|e| rank_reads(machines, &kinds, e.iter().map(|(_, e)| e)))
            });
            let class_groups = reads
                .each_ref()
                .map(|r| r.class_groups(&class_ids(&reps, &r.names)));
            self.learn_slot_reads(&reps);
            let job_groups = RankGroups::of(&reps, |rep| job_rank_key(rep, &self.slot_reads));
            self.rank_groups = Some(RankSetup {
                classes: classes.to_vec(),
                class_groups,
                job_groups,
            });
        }
        if self.compiled_classes != classes {
            self.pool.set_jobs(&reps);
            self.compiled_classes = classes.to_vec();
        }
        let pool = &self.pool;
        let rank = ranks.then(|| RankExprs {
            pre: self.pre.as_ref(),
            post: self.post.as_ref(),
            slot_sets: self.rank_reads.as_ref().map_or([&[][..], &[][..]], |r| {
                [&r[0].set_of_slot, &r[1].set_of_slot]
            }),
            class_groups: self.rank_groups.as_ref().map_or([&[][..], &[][..]], |g| {
                [&g.class_groups[0][..], &g.class_groups[1][..]]
            }),
            job_groups: self
                .rank_groups
                .as_ref()
                .and_then(|g| g.job_groups.as_ref()),
        });
        let slots = pool.machines.len();
        let blocks = blocks.start..blocks.end.min(slots.div_ceil(LANES));
        let results: Vec<BlockResult> = blocks
            .clone()
            .into_par_iter()
            .map(|b| THREAD_MACHINE.with(|vm| block_work(pool, &mut vm.borrow_mut(), b, rank)))
            .collect();
        let evaluated = blocks
            .map(|b| (slots - b * LANES).min(LANES))
            .sum::<usize>();
        self.stats.classes += classes.len() as u64;
        self.stats.pairs += (classes.len() * evaluated) as u64;
        self.stats.ranked += results.iter().map(|b| b.ranked).sum::<u64>();
        results
    }
}

/// A class's result while its jobs are being handled.
struct ClassResult {
    /// Per block of slots, which match.
    masks: Vec<u64>,
    /// The matching slots, best first (when ranks were asked for).
    candidates: Vec<Candidate>,
    /// For the assignment: candidates before it are taken.
    cursor: usize,
}

/// What the batch matcher shares across rayon's threads is `Send + Sync`,
/// checked at compile time.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<CompiledPool>();
    shared::<CompiledSlots>();
    shared::<RankGroups>();
    shared::<BatchMatcher>();
    shared::<Autoclusters>();
    shared::<super::SignificantAttributes>();
    shared::<super::PartClasses>();
    shared::<super::policy::NegotiatorPolicy>();
};

#[cfg(test)]
mod tests {

    /// `best_first` orders as the NaN-aware comparison of the keys it stands
    /// for, on numbers of every kind (NaN, both zeros, infinities, the
    /// negotiator's `-DBL_MAX`, values rounded to single precision).
    #[test]
    fn best_first_is_the_key_order_then_slot_order() {
        let values = [
            f64::NAN,
            -f64::NAN,
            f64::NEG_INFINITY,
            -f64::MAX,
            -1e300,
            -2.5,
            -1.0,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            1.0,
            1.0000001f32 as f64,
            3e38,
            f64::MAX,
            f64::INFINITY,
        ];
        let mut rng = crate::test_rng::TestRng::new(1);
        let mut pick = || values[rng.below(values.len() as u64) as usize];
        let cands: Vec<Candidate> = (0..3000)
            .map(|i| Candidate {
                slot: (i % 97) as u32,
                key: RankKey {
                    pre: pick(),
                    rank: pick(),
                    post: pick(),
                },
            })
            .collect();
        for a in &cands[..300] {
            for b in &cands {
                let want = b.key.partial_cmp_key(&a.key).then(a.slot.cmp(&b.slot));
                assert_eq!(best_first(a, b), want, "{a:?} {b:?}");
            }
        }
        // The sort by integer keys is the stable sort by `best_first`, bit for
        // bit (equal keys of other bits, NaN and -NaN, 0 and -0, keep their
        // order), at every length.
        for n in [0, 1, 63, 64, 65, 1000, 3000] {
            let mut want = cands[..n].to_vec();
            want.sort_by(best_first);
            let mut got = cands[..n].to_vec();
            sort_best_first(&mut got);
            let bits = |c: &[Candidate]| -> Vec<(u32, [u64; 3])> {
                c.iter()
                    .map(|c| {
                        (
                            c.slot,
                            [c.key.pre, c.key.rank, c.key.post].map(f64::to_bits),
                        )
                    })
                    .collect()
            };
            assert_eq!(bits(&got), bits(&want), "{n}");
        }
    }

    use super::*;

    use crate::ad::test_ads as ads;

    fn pairs(m: &mut BatchMatcher) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        m.for_each_pair(|j, s| {
            out.push((j, s));
            Ok::<(), ()>(())
        })
        .unwrap();
        out
    }

    /// Slots compiled once serve queue after queue, with the answers of slots
    /// compiled afresh.
    #[test]
    fn compiled_slots_given_back_match_the_next_queue() {
        let policy = NegotiatorPolicy::default();
        let slots = ads("Cpus = 1\nRequirements = TARGET.Owner != \"eve\"\n\n\
                         Cpus = 8\nRequirements = true\n");
        let first = ads("Owner = \"eve\"\nRequirements = TARGET.Cpus >= 1\n");
        let second = ads("Owner = \"bob\"\nRequirements = TARGET.Cpus >= 1\n\n\
                          Owner = \"bob\"\nRequirements = TARGET.Cpus >= 4\n");
        let compiled = CompiledSlots::new(&slots, &policy);
        let mut m =
            BatchMatcher::with_compiled(Autoclusters::new(&first, &slots, &policy), compiled);
        assert_eq!(pairs(&mut m), [(0, 1)]);
        let again = m.into_compiled_slots();
        let mut m = BatchMatcher::with_compiled(Autoclusters::new(&second, &slots, &policy), again);
        let fresh = pairs(&mut BatchMatcher::new(&second, &slots, &policy, true));
        assert_eq!(pairs(&mut m), fresh);
        assert_eq!(fresh, [(0, 0), (0, 1), (1, 1)]);
    }
}
