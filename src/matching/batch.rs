//! The batch matchmaker: every job of a queue against every slot of a pool,
//! evaluated once per match class (see [`super::autocluster`]), a block of slots
//! and a block of classes at a time, across cores.
//!
//! Jobs are taken in queue order, a window at a time; the classes first met in a
//! window are compiled (one representative job each) and evaluated against every
//! slot: the slots' Requirements over blocks of representatives and the
//! representatives' Requirements over blocks of slots ([`Machine::verdicts`]), then,
//! for the pairs that match, the negotiator's rank key (negotiator.md section 6:
//! `NEGOTIATOR_PRE_JOB_RANK`, the job's `Rank`, `NEGOTIATOR_POST_JOB_RANK`) over
//! the same blocks ([`Machine::eval_attr_lanes`]). The work items, one per block
//! of slots, run on rayon's threads; each result lands in its place, so the output
//! is the same for any number of threads. A class's result is dropped after its
//! last job, so memory follows the classes alive, never the match matrix.

use super::autocluster::Autoclusters;
use super::classify::reads_key;
use super::policy::NegotiatorPolicy;
use super::pool::{CompiledPool, REQUIREMENTS_SITE};
use super::refs::{NameSet, References};
use crate::ad::ClassAd;
use crate::compile::host::VmHost;
use crate::compile::CompiledClassAd;
use crate::syntax::ast::ExprRef;
use classad_vm::lanes::LANES;
use classad_vm::logic::for_each_lane;
use classad_vm::{ColumnStore, CompiledAd, Machine, Str, TargetBlock, Value, Verdicts};
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
    /// What PRE and POST can read from a job, worked out the first time ranks are
    /// asked for.
    rank_reads: Option<RankReads>,
    /// What slot attributes read by the jobs' `Rank` can read back from a job,
    /// worked out as jobs need them.
    slot_reads: SlotReads,
    /// The classes whose representatives the pool holds compiled now: a run over
    /// the same classes (all of them, when they fit in one window) reuses them.
    compiled_classes: Vec<u32>,
    stats: BatchStats,
}

/// The slots of a pool compiled for the batch matcher, with the negotiator's
/// rank expressions compiled for each.
pub struct CompiledSlots {
    pool: CompiledPool,
    pre: Option<(u32, ExprRef)>,
    post: Option<(u32, ExprRef)>,
}

/// Per slot attribute name (lower case), what it can read from a job.
type SlotReads = ahash::AHashMap<Box<str>, Option<Vec<Str>>>;

/// Adds to `known` what each of `names` (slot attributes) can read from a job,
/// over all `slots`.
fn add_slot_reads(slots: &[CompiledClassAd], names: &[Str], known: &mut SlotReads) {
    let per_slot: Vec<Vec<(usize, Option<NameSet>)>> = slots
        .par_iter()
        .map(|slot| {
            let slot: &ClassAd = &slot.source;
            names
                .iter()
                .enumerate()
                .filter_map(|(i, name)| {
                    let e = slot.get(name)?;
                    if matches!(e.node(), crate::syntax::ast::Node::Lit(_)) {
                        return None;
                    }
                    let r = References::of(slot, e.tree, e.id);
                    Some((i, (r.complete && !r.volatile).then_some(r.external)))
                })
                .collect()
        })
        .collect();
    let mut all: Vec<Option<NameSet>> = vec![Some(NameSet::new()); names.len()];
    for (i, reads) in per_slot.into_iter().flatten() {
        match (all[i].as_mut(), reads) {
            (Some(set), Some(reads)) => reads.iter().for_each(|n| {
                set.insert(n);
            }),
            _ => all[i] = None,
        }
    }
    for (name, reads) in names.iter().zip(all) {
        let key = name.to_ascii_lowercase().into_boxed_str();
        known.insert(key, reads.map(|s| s.iter().cloned().collect()));
    }
}

impl CompiledSlots {
    /// Compiles `slots` (on rayon's threads) and `policy`'s
    /// `NEGOTIATOR_PRE_JOB_RANK` and `NEGOTIATOR_POST_JOB_RANK` for each.
    pub fn new(slots: &[Arc<ClassAd>], policy: &NegotiatorPolicy) -> CompiledSlots {
        let exprs: Vec<ExprRef> = [&policy.pre_job_rank, &policy.post_job_rank]
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        let pool = CompiledPool::with_machine_exprs(&[], slots, &exprs);
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
}

/// The names `exprs`, evaluated with a slot as MY, can read from a job (TARGET):
/// the union over the slots; `None` when some walk is incomplete or volatile.
fn rank_reads<'e>(
    slots: &[CompiledClassAd],
    exprs: impl Iterator<Item = &'e ExprRef> + Clone + Send + Sync,
) -> RankReads {
    let per_slot: Vec<Option<NameSet>> = slots
        .par_iter()
        .map(|slot| {
            let slot: &ClassAd = &slot.source;
            let mut names = NameSet::new();
            for e in exprs.clone() {
                let r = References::of(slot, &e.tree, e.id);
                if !r.complete || r.volatile {
                    return None;
                }
                r.external.iter().for_each(|n| {
                    names.insert(n);
                });
            }
            Some(names)
        })
        .collect();
    let mut all = NameSet::new();
    for names in per_slot.iter().flatten() {
        names.iter().for_each(|n| {
            all.insert(n);
        });
    }
    let names: Vec<Str> = all.iter().cloned().collect();
    let index = |n: &Str| {
        names
            .iter()
            .position(|m| m.eq_ignore_ascii_case(n))
            .expect("in the union") as u16
    };
    let per_slot = per_slot
        .into_iter()
        .map(|s| s.map(|s| s.iter().map(index).collect()))
        .collect();
    RankReads { names, per_slot }
}

/// What `NEGOTIATOR_PRE_JOB_RANK` and `NEGOTIATOR_POST_JOB_RANK` read from a job.
struct RankReads {
    /// Every name they read from a job, in some slot.
    names: Vec<Str>,
    /// Per slot, the names (indices into `names`) they read there; `None` when
    /// their walk in the slot is incomplete or volatile.
    per_slot: Vec<Option<Vec<u16>>>,
}

/// Per class of a window, per name of [`RankReads::names`], an id of what the
/// class gives that name (its exact text and what it reaches in the job): two
/// classes with equal ids on the names a slot's PRE and POST read get the same
/// values from that slot. An id that cannot be worked out is unique.
fn class_ids(reps: &[Arc<ClassAd>], names: &[Str]) -> Vec<Vec<u32>> {
    let mut ids: Vec<ahash::AHashMap<Vec<u8>, u32>> = vec![Default::default(); names.len()];
    let mut unique = u32::MAX;
    reps.iter()
        .map(|rep| {
            names
                .iter()
                .zip(ids.iter_mut())
                // Closed: a job attribute that reads the slot could read back
                // names this slot's walk does not see.
                .map(
                    |(n, seen)| match reads_key(rep, std::slice::from_ref(n), true) {
                        Some(key) => {
                            let next = seen.len() as u32;
                            *seen.entry(key).or_insert(next)
                        }
                        None => {
                            unique -= 1;
                            unique
                        }
                    },
                )
                .collect()
        })
        .collect()
}

thread_local! {
    /// Each thread's machine, kept from run to run: its cache of values that read
    /// only the TARGET ad (keyed by pool) stays warm for the next run over the
    /// same classes. (`block_work` calls nothing of rayon's, so no other block
    /// can start on this thread while one holds it.)
    static THREAD_MACHINE: std::cell::RefCell<Machine> = std::cell::RefCell::new(Machine::new());
}

/// How many new classes one window compiles and evaluates at most.
const WINDOW_CLASSES: usize = 4096;

/// What one block of slots found for the classes of a window.
struct BlockResult {
    /// Per class of the window: which slots of the block match it.
    masks: Vec<u64>,
    /// Per class, per matching slot (in slot order): its key.
    keys: Vec<Vec<RankKey>>,
    ranked: u64,
}

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
            stats: BatchStats::default(),
        }
    }

    /// How many classes the jobs are evaluated in.
    pub fn class_count(&self) -> usize {
        self.representatives.len()
    }

    /// The autoclusters, when the matcher formed them.
    pub fn autoclusters(&self) -> Option<&Autoclusters> {
        self.autoclusters.as_ref()
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

    /// Evaluates `classes` against every slot.
    fn evaluate(&mut self, classes: &[u32], ranks: bool) -> Vec<ClassResult> {
        let reps: Vec<Arc<ClassAd>> = classes
            .iter()
            .map(|&c| self.representatives[c as usize].clone())
            .collect();
        let (mut ids, mut job_groups) = (Vec::new(), None);
        if ranks {
            let machines = &self.pool.machines;
            let (pre, post) = (&self.pre, &self.post);
            let reads = self.rank_reads.get_or_insert_with(|| {
                rank_reads(machines, pre.iter().chain(post).map(|(_, e)| e))
            });
            ids = class_ids(&reps, &reads.names);
            self.learn_slot_reads(&reps);
            job_groups = RankGroups::of(&reps, |rep| job_rank_key(rep, &self.slot_reads));
        }
        if self.compiled_classes != classes {
            self.pool.set_jobs(&reps);
            self.compiled_classes = classes.to_vec();
        }
        let pool = &self.pool;
        let rank = ranks.then(|| RankExprs {
            pre: self.pre.as_ref(),
            post: self.post.as_ref(),
            slot_names: self.rank_reads.as_ref().map_or(&[][..], |r| &r.per_slot),
            class_ids: &ids,
            job_groups: job_groups.as_ref(),
        });
        let slots = pool.machines.len();
        let blocks: Vec<BlockResult> = (0..slots.div_ceil(LANES))
            .into_par_iter()
            .map(|b| THREAD_MACHINE.with(|vm| block_work(pool, &mut vm.borrow_mut(), b, rank)))
            .collect();
        self.stats.classes += classes.len() as u64;
        self.stats.pairs += (classes.len() * slots) as u64;
        self.stats.ranked += blocks.iter().map(|b| b.ranked).sum::<u64>();
        // Each class's results, gathered from the blocks in slot order.
        let mut out: Vec<ClassResult> = (0..classes.len())
            .map(|ci| ClassResult {
                masks: blocks.iter().map(|b| b.masks[ci]).collect(),
                candidates: Vec::new(),
                cursor: 0,
            })
            .collect();
        if ranks {
            out.par_iter_mut().enumerate().for_each(|(ci, r)| {
                let mut cands = Vec::new();
                for (b, block) in blocks.iter().enumerate() {
                    let mut keys = block.keys[ci].iter();
                    for_each_lane(block.masks[ci], |l| {
                        let key = *keys.next().expect("a key per match");
                        cands.push(Candidate {
                            slot: (b * LANES + l) as u32,
                            key,
                        });
                    });
                }
                // Ties by slot order (the list is in slot order; an unstable sort
                // with the slot as the last key is the same order, and faster).
                cands.sort_unstable_by(|a, b| {
                    b.key.partial_cmp_key(&a.key).then(a.slot.cmp(&b.slot))
                });
                r.candidates = cands;
            });
        }
        out
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

/// The negotiator's rank expressions of a run.
#[derive(Clone, Copy)]
struct RankExprs<'e> {
    pre: Option<&'e (u32, ExprRef)>,
    post: Option<&'e (u32, ExprRef)>,
    /// Per slot, the names PRE and POST read there (see [`RankReads`]).
    slot_names: &'e [Option<Vec<u16>>],
    /// Per class of the window, the ids of what it gives those names.
    class_ids: &'e [Vec<u32>],
    /// Classes whose `Rank` gives every slot the same value, when known.
    job_groups: Option<&'e RankGroups>,
}

/// An exact key of what `rep` gives the evaluation of its `Rank` against any
/// slot: `Rank` and what it reaches in the job, and, for each name it reads from
/// the slot, what that slot attribute can read back from the job (whose own
/// expressions must read nothing more from the slot); `None` when not known in
/// full, or when the job has no `Rank` (which falls back to the slot's).
fn job_rank_key(rep: &ClassAd, slot_reads: &SlotReads) -> Option<Vec<u8>> {
    let rank = rep.get("Rank")?;
    let r = References::of(rep, rank.tree, rank.id);
    if !r.complete || r.volatile {
        return None;
    }
    let mut back = NameSet::new();
    for t in r.external.iter() {
        if let Some(reads) = slot_reads.get(t.to_ascii_lowercase().as_str()) {
            for n in reads.as_ref()? {
                back.insert(n);
            }
        }
    }
    let back: Vec<Str> = back.iter().cloned().collect();
    let mut key = reads_key(rep, &[Str::from("Rank")], false)?;
    key.push(0xfd);
    key.extend(reads_key(rep, &back, true)?);
    Some(key)
}

/// Classes grouped by what their `Rank` gives every slot (see [`job_rank_key`]):
/// a slot's value of it is computed once per group.
struct RankGroups {
    /// Per class of the window, its group.
    of_class: Vec<u32>,
    /// Per group, its first class.
    first: Vec<u32>,
}

impl RankGroups {
    /// The groups of `reps` by their keys (`None`: a group of its own), or `None`
    /// when grouping saves nothing.
    fn of(
        reps: &[Arc<ClassAd>],
        key_of: impl Fn(&ClassAd) -> Option<Vec<u8>>,
    ) -> Option<RankGroups> {
        let mut index: ahash::AHashMap<Vec<u8>, u32> = ahash::AHashMap::new();
        let mut g = RankGroups {
            of_class: Vec::with_capacity(reps.len()),
            first: Vec::new(),
        };
        for (c, rep) in reps.iter().enumerate() {
            let next = g.first.len() as u32;
            let key = key_of(rep);
            let id = match key {
                Some(key) => *index.entry(key).or_insert(next),
                None => next,
            };
            if id == next {
                g.first.push(c as u32);
            }
            g.of_class.push(id);
        }
        // Lanes over every class beat one evaluation per class.
        (g.first.len() * 4 <= reps.len()).then_some(g)
    }
}

/// Block `b` of slots against every class of the pool's jobs.
fn block_work(
    pool: &CompiledPool,
    vm: &mut Machine,
    b: usize,
    ranks: Option<RankExprs<'_>>,
) -> BlockResult {
    vm.cache_for(pool.id);
    let host = &mut VmHost;
    let req = pool.requirements;
    let m0 = b * LANES;
    let m1 = (m0 + LANES).min(pool.machines.len());
    let slot_ads: Vec<&CompiledAd> = pool.machines[m0..m1].iter().map(|m| &m.vm).collect();
    let rep_ads: Vec<&CompiledAd> = pool.jobs.iter().map(|j| &j.vm).collect();
    let mut slot_store = ColumnStore::new();
    let mut rep_store = slot_store.sibling();
    let mut slot_block = slot_store.block(&slot_ads);
    let mut out = BlockResult {
        masks: vec![0; rep_ads.len()],
        keys: vec![Vec::new(); if ranks.is_some() { rep_ads.len() } else { 0 }],
        ranked: 0,
    };
    let mut right = [Verdicts::default(); LANES];
    let mut values: Vec<Option<Value>> = Vec::new();
    // Per group of classes by `Rank`: the lanes (slots of this block) computed so
    // far, and their values.
    let groups_len = ranks
        .and_then(|r| r.job_groups)
        .map_or(0, |g| g.first.len());
    let mut job_ranks = vec![(0u64, [0.0f64; LANES]); groups_len];
    let mut rank_memo: Vec<RankMemo> = vec![RankMemo::new(); 2 * LANES];
    for (rb, rep_chunk) in rep_ads.chunks(LANES).enumerate() {
        let r0 = rb * LANES;
        let mut rep_block = rep_store.block(rep_chunk);
        // The slots' Requirements over the block of classes, turned to be by class.
        right.fill(Verdicts::default());
        for (mi, ad) in slot_ads.iter().enumerate() {
            let v = vm.verdicts(ad, req, REQUIREMENTS_SITE, &mut rep_block, u64::MAX, host);
            let bit = 1u64 << mi;
            for_each_lane(v.yes, |ji| right[ji].yes |= bit);
            for_each_lane(v.no, |ji| right[ji].no |= bit);
            for_each_lane(v.unknown, |ji| right[ji].unknown |= bit);
        }
        for (ji, ad) in rep_chunk.iter().enumerate() {
            let r = right[ji];
            let l = vm.verdicts(ad, req, REQUIREMENTS_SITE, &mut slot_block, !r.no, host);
            let mut matched = r.yes & l.yes;
            let unsure = (r.unknown & (l.yes | l.unknown)) | (l.unknown & r.yes);
            for_each_lane(unsure, |mi| {
                if pool.symmetric_match(vm, r0 + ji, m0 + mi) {
                    matched |= 1 << mi;
                }
            });
            out.masks[r0 + ji] = matched;
        }
        if let Some(RankExprs {
            pre,
            post,
            slot_names,
            class_ids,
            job_groups,
        }) = ranks
        {
            rank_block(
                pool,
                vm,
                &mut RankBlock {
                    r0,
                    m0,
                    rep_chunk,
                    slot_ads: &slot_ads,
                    rep_block: &mut rep_block,
                    slot_block: &mut slot_block,
                    pre,
                    post,
                    slot_names,
                    class_ids,
                    job_groups,
                    job_ranks: &mut job_ranks,
                    rank_memo: &mut rank_memo,
                    values: &mut values,
                    out: &mut out,
                },
            );
        }
    }
    out
}

/// A slot's values of PRE or POST, by the ids of what classes give the names it
/// reads.
type RankMemo = smallvec::SmallVec<[(smallvec::SmallVec<[u32; 4]>, f64); 4]>;

/// The blocks and expressions of one rank computation.
struct RankBlock<'b, 'c, 'd> {
    r0: usize,
    m0: usize,
    rep_chunk: &'b [&'b CompiledAd],
    slot_ads: &'b [&'b CompiledAd],
    rep_block: &'b mut TargetBlock<'c>,
    slot_block: &'b mut TargetBlock<'d>,
    pre: Option<&'b (u32, ExprRef)>,
    post: Option<&'b (u32, ExprRef)>,
    slot_names: &'b [Option<Vec<u16>>],
    class_ids: &'b [Vec<u32>],
    job_groups: Option<&'b RankGroups>,
    job_ranks: &'b mut [(u64, [f64; LANES])],
    /// Per (PRE or POST, slot of the block): values by the ids of what a class
    /// gives the names the slot's expression reads.
    rank_memo: &'b mut [RankMemo],
    values: &'b mut Vec<Option<Value>>,
    out: &'b mut BlockResult,
}

/// The rank keys of the matching pairs of one block of classes and one block of
/// slots: the job's Rank over the block of slots, PRE and POST over the block of
/// classes.
fn rank_block(pool: &CompiledPool, vm: &mut Machine, k: &mut RankBlock<'_, '_, '_>) {
    let host = &mut VmHost;
    let n = k.rep_chunk.len();
    // keys[ji][mi], filled where matched.
    let mut keys = vec![
        [RankKey {
            pre: -f64::MAX,
            rank: 0.0,
            post: -f64::MAX
        }; LANES];
        n
    ];
    let mut by_slot = [0u64; LANES];
    for (ji, ad) in k.rep_chunk.iter().enumerate() {
        let matched = k.out.masks[k.r0 + ji];
        if matched == 0 {
            continue;
        }
        for_each_lane(matched, |mi| by_slot[mi] |= 1 << ji);
        let j = k.r0 + ji;
        if let Some(g) = k.job_groups {
            // Once per group of classes whose Rank gives every slot the same
            // value, for the slots not done yet.
            let group = g.of_class[j] as usize;
            let first = g.first[group] as usize;
            let (done, ranks) = &mut k.job_ranks[group];
            let todo = matched & !*done;
            if todo != 0 {
                let first_ad = &pool.jobs[first].vm;
                let targets = k.slot_block.targets();
                vm.eval_attr_lanes(first_ad, pool.rank, 0, targets, todo, host, k.values);
                for_each_lane(todo, |mi| {
                    ranks[mi] = match &k.values[mi] {
                        Some(v) => super::rank_value(v),
                        None => pool.rank(vm, first, k.m0 + mi, true),
                    };
                });
                *done |= todo;
            }
            for_each_lane(matched, |mi| keys[ji][mi].rank = ranks[mi]);
        } else if ad.has(pool.rank) {
            vm.eval_attr_lanes(
                ad,
                pool.rank,
                0,
                k.slot_block.targets(),
                matched,
                host,
                k.values,
            );
            for_each_lane(matched, |mi| {
                keys[ji][mi].rank = match &k.values[mi] {
                    Some(v) => super::rank_value(v),
                    None => pool.rank(vm, j, k.m0 + mi, true),
                };
            });
        } else {
            for_each_lane(matched, |mi| {
                keys[ji][mi].rank = pool.rank(vm, j, k.m0 + mi, true)
            });
        }
        k.out.ranked += u64::from(matched.count_ones());
    }
    for (which, expr) in [(0, k.pre), (1, k.post)] {
        for (mi, ad) in k.slot_ads.iter().enumerate() {
            let wanted = by_slot[mi];
            if wanted == 0 {
                continue;
            }
            let Some((slot, e)) = expr else {
                continue;
            };
            let set = |keys: &mut [[RankKey; LANES]], ji: usize, v: f64| {
                if which == 0 {
                    keys[ji][mi].pre = v;
                } else {
                    keys[ji][mi].post = v;
                }
            };
            if let Some(Some(names)) = k.slot_names.get(k.m0 + mi) {
                // Classes that give the names this slot's PRE and POST read the
                // same get the same value: one evaluation per such group, kept for
                // the slot's next blocks of classes.
                let memo = &mut k.rank_memo[which * LANES + mi];
                let ids_of = |ji: usize| -> smallvec::SmallVec<[u32; 4]> {
                    let ids = &k.class_ids[k.r0 + ji];
                    names.iter().map(|&n| ids[n as usize]).collect()
                };
                let mut missing: smallvec::SmallVec<[usize; 8]> = smallvec::SmallVec::new();
                for_each_lane(wanted, |ji| {
                    let key = ids_of(ji);
                    if !memo.iter().any(|(m, _)| *m == key)
                        && !missing.iter().any(|&f| ids_of(f) == key)
                    {
                        missing.push(ji);
                    }
                });
                // One evaluation per new group, unless there are many: then the
                // lanes are cheaper.
                if missing.len() <= 2 || missing.len() * 4 <= wanted.count_ones() as usize {
                    for &f in &missing {
                        let v = match pool.machine_expr(vm, *slot, e, k.r0 + f, k.m0 + mi) {
                            Ok(v) => negotiator_rank_value(&v),
                            Err(_) => -f64::MAX,
                        };
                        memo.push((ids_of(f), v));
                    }
                    for_each_lane(wanted, |ji| {
                        let key = ids_of(ji);
                        let v = memo
                            .iter()
                            .find(|(m, _)| *m == key)
                            .map(|&(_, v)| v)
                            .expect("every group evaluated");
                        set(&mut keys, ji, v);
                    });
                    continue;
                }
            }
            vm.eval_attr_lanes(ad, *slot, 0, k.rep_block.targets(), wanted, host, k.values);
            for_each_lane(wanted, |ji| {
                let v = match &k.values[ji] {
                    Some(v) => negotiator_rank_value(v),
                    None => match pool.machine_expr(vm, *slot, e, k.r0 + ji, k.m0 + mi) {
                        Ok(v) => negotiator_rank_value(&v),
                        Err(_) => -f64::MAX,
                    },
                };
                set(&mut keys, ji, v);
            });
        }
    }
    for (ji, row) in keys.iter().enumerate() {
        let dst = &mut k.out.keys[k.r0 + ji];
        for_each_lane(k.out.masks[k.r0 + ji], |mi| dst.push(row[mi]));
    }
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
