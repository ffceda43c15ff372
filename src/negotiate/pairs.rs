//! What the cycle asks of a (match class, slot) pair, answered once per class by
//! the batch matcher: whether they match, and each class's candidates in the
//! negotiator's order, as far as the cycle reads them ([`super::heads`]). The
//! preemption tests of a claimed slot (section 8) are worked out when a match
//! list first meets the pair, and kept.

use super::heads::{CandidateBounds, Head, Heads};
use crate::ad::ClassAd;
use crate::engine::eval_once;
use crate::engine::Repeated;
use crate::eval::Fail;
use crate::eval::Semantics;
use crate::matching::batch::{
    best_first, class_ids, negotiator_rank_value, BatchMatcher, Candidate, RankReads,
};
use crate::matching::policy::policy_expr;
use crate::matching::refs::{NameSet, References};
use crate::matching::{exact_text, negotiator_key, symmetric_match, NegotiatorPolicy, SlotKinds};
use crate::syntax::ast::ExprRef;
use classad_vm::{Str, Value};
use rayon::prelude::*;
use std::sync::{Arc, OnceLock};

fn condition(text: &'static str, cell: &'static OnceLock<ExprRef>) -> &'static ExprRef {
    cell.get_or_init(|| policy_expr(text).expect("built-in condition"))
}

/// HTCondor's `EvalExprToBool(...) && IsBooleanValue(b) && b`: a boolean true.
fn is_true(e: &ExprRef, slot: &Arc<ClassAd>, job: &Arc<ClassAd>) -> bool {
    matches!(eval_once(e, slot, Some(job)), Ok(Value::Bool(true)))
}

/// One of the preemption tests, evaluated once per slot for each group of
/// classes that give the same values to the names it reads there (as the batch
/// matcher shares PRE and POST), else once per (class, slot).
#[derive(Clone)]
struct SharedTest<T> {
    expr: ExprRef,
    /// Its index among the tests' expressions ([`PreemptionTests::evals`]).
    which: usize,
    /// Per slot, which of `read_sets` the test reads there; `None`: not known
    /// in full.
    read_set_of: Vec<Option<u32>>,
    /// The distinct sets of names (ids) the test reads in some slot.
    read_sets: Vec<Vec<u16>>,
    /// Per class, per name, an id of what it gives the name (at or above
    /// `classes`: an id of its own, the class's value not known to be shared).
    class_ids: Vec<Vec<u32>>,
    classes: usize,
    /// Per read set, per class, the id of what the class gives those names
    /// (`UNSEEN` until asked); see [`Combos`].
    combos: Vec<Combos>,
    /// Per slot, the values so far, by key (see [`SharedTest::key`]).
    memo: Vec<smallvec::SmallVec<[(u32, T); 2]>>,
    /// Per slot, the id of what it gives the test (the exact text of every
    /// attribute the test reads in it) with the set it reads, or [`NO_PAIR`]:
    /// slots of one id give a job the same value. One number a slot, read
    /// with one load: a candidate's test is looked up millions of times.
    pair_of: Vec<u32>,
    /// Per such id, its read set.
    pair_set: Vec<u32>,
    /// Values by (id, combination), shared by the slots of one id.
    across: Across<T>,
}

/// In [`SharedTest::pair_of`]: the slot's values are not shared.
const NO_PAIR: u32 = u32::MAX;

/// Values of a test shared across slots: per (slot id, read set), a row indexed
/// by the combination of what a class gives that set. Rows hold at most
/// [`ACROSS_ENTRIES`] values in all; past that they start afresh.
#[derive(Clone)]
struct Across<T> {
    rows: Vec<Vec<Option<T>>>,
    cells: usize,
}

impl<T: Copy> Across<T> {
    fn new(pairs: usize) -> Self {
        Across {
            rows: vec![Vec::new(); pairs],
            cells: 0,
        }
    }

    fn get(&self, pair: u32, combo: u32) -> Option<T> {
        *self.rows[pair as usize].get(combo as usize)?
    }

    fn insert(&mut self, pair: u32, combo: u32, v: T) {
        let (pair, combo) = (pair as usize, combo as usize);
        if self.rows[pair].len() <= combo {
            let grow = combo + 1 - self.rows[pair].len();
            if self.cells + grow > ACROSS_ENTRIES {
                self.rows.iter_mut().for_each(Vec::clear);
                self.cells = 0;
            }
            let row = &mut self.rows[pair];
            self.cells += combo + 1 - row.len();
            row.resize(combo + 1, None);
        }
        self.rows[pair][combo] = Some(v);
    }
}

/// What the classes give one read set: per class its combination's id, the
/// combinations interned (with whether each is known to be shared, every id
/// below the class count).
#[derive(Clone, Default)]
struct Combos {
    of_class: Vec<u32>,
    ids: ahash::AHashMap<smallvec::SmallVec<[u32; 4]>, u32>,
    shared: Vec<bool>,
}

/// What one walk of a test in a kind of slot gives: the names it reads of a job
/// there (`None`: not known in full), and the names it looks up in the slot.
type Walked = (Arc<Option<NameSet>>, Arc<Vec<Str>>);

/// The key of what `slot` gives a walk that looked up `names` there (all it
/// looks up, whichever attribute it starts from): each name and the exact text
/// of the slot's attribute (or its absence); `None` when one has no exact text.
fn looked_up_key(slot: &ClassAd, names: &[Str]) -> Option<Vec<u8>> {
    let mut key = Vec::new();
    for n in names {
        key.extend(n.as_str().bytes().map(|b| b.to_ascii_lowercase()));
        key.push(0);
        match slot.get(n) {
            Some(e) => {
                if !exact_text(e.tree, e.id, &mut key) {
                    return None;
                }
            }
            None => key.push(0xff),
        }
    }
    Some(key)
}

/// A class's combination not worked out yet.
const UNSEEN: u32 = u32::MAX;

/// Marks a memo key that is a class, not a combination.
const CLASS_KEY: u32 = 1 << 31;

/// How many values of a test one slot keeps.
const MEMO_PER_SLOT: usize = 64;

/// How many values of a test shared across slots are kept.
const ACROSS_ENTRIES: usize = 1 << 20;

impl<T: Copy> SharedTest<T> {
    /// The test `expr` over `ads` (the slots, each claimed one as it is, the
    /// others empty: they never need it), whose kinds are `kinds`, and the
    /// classes of `reps`.
    fn new(
        expr: ExprRef,
        ads: &[&ClassAd],
        kinds: &SlotKinds,
        claimed: &[bool],
        reps: &[Arc<ClassAd>],
    ) -> Self {
        // What the test reads of a job in a slot, and what it looks up there,
        // depend on the slot's kind only: one walk per kind (slots of a kind
        // then share one set, which the sets' grouping below tells by address).
        let walked: Vec<Walked> = kinds.map(ads, |slot| {
            let r = References::of(slot, &expr.tree, expr.id);
            if !r.complete || r.volatile {
                return (Arc::new(None), Arc::new(Vec::new()));
            }
            let mut names = NameSet::new();
            r.external.iter().for_each(|n| {
                names.insert(n);
            });
            (Arc::new(Some(names)), Arc::new(r.looked_up))
        });
        // The key of what each claimed slot gives the test: the exact text of
        // every attribute the walk looked up there (or its absence).
        let keys: Vec<Option<Vec<u8>>> = ads
            .par_iter()
            .zip(&walked)
            .zip(claimed.par_iter())
            .map(|((slot, (set, looked)), claimed)| {
                (*claimed && set.is_some())
                    .then(|| looked_up_key(slot, looked))
                    .flatten()
            })
            .collect();
        let sets: Vec<Arc<Option<NameSet>>> = walked.into_iter().map(|(set, _)| set).collect();
        let reads = RankReads::from_sets(sets);
        let mut ids: ahash::AHashMap<Vec<u8>, u32> = ahash::AHashMap::new();
        let slot_key: Vec<Option<u32>> = keys
            .into_iter()
            .map(|k| {
                k.map(|k| {
                    let next = ids.len() as u32;
                    *ids.entry(k).or_insert(next)
                })
            })
            .collect();
        let mut read_sets: Vec<Vec<u16>> = Vec::new();
        let mut set_ids: ahash::AHashMap<Vec<u16>, u32> = ahash::AHashMap::new();
        let read_set_of: Vec<Option<u32>> = reads
            .per_slot
            .into_iter()
            .map(|names| {
                names.map(|names| {
                    *set_ids.entry(names.clone()).or_insert_with(|| {
                        read_sets.push(names);
                        read_sets.len() as u32 - 1
                    })
                })
            })
            .collect();
        let mut pair_ids: ahash::AHashMap<(u32, u32), u32> = ahash::AHashMap::new();
        let mut pair_set = Vec::new();
        let pair_of = slot_key
            .iter()
            .zip(&read_set_of)
            .map(|pair| match pair {
                (Some(k), Some(r)) => *pair_ids.entry((*k, *r)).or_insert_with(|| {
                    pair_set.push(*r);
                    pair_set.len() as u32 - 1
                }),
                _ => NO_PAIR,
            })
            .collect();
        let combos = vec![
            Combos {
                of_class: vec![UNSEEN; reps.len()],
                ..Combos::default()
            };
            read_sets.len()
        ];
        SharedTest {
            class_ids: class_ids(reps, &reads.names),
            classes: reps.len(),
            read_set_of,
            read_sets,
            combos,
            memo: vec![smallvec::SmallVec::new(); ads.len()],
            pair_of,
            across: Across::new(pair_set.len()),
            pair_set,
            expr,
            which: 0,
        }
    }

    /// The test `expr`, which reads of slots and classes exactly what this one
    /// reads, with no values yet.
    fn reading_as(&self, expr: ExprRef) -> Self {
        SharedTest {
            expr,
            memo: vec![smallvec::SmallVec::new(); self.memo.len()],
            across: Across::new(self.pair_set.len()),
            ..self.clone()
        }
    }

    /// The key of class `c`'s value in slot `s`: the combination of what the
    /// class gives the names the test reads there, or the class itself (with
    /// `CLASS_KEY`) when those are not known; and whether the combination is
    /// known to be shared by other classes.
    fn key(&mut self, c: u32, s: u32) -> (u32, bool) {
        match self.read_set_of[s as usize] {
            Some(r) => self.combo(c, r),
            None => (CLASS_KEY | c, false),
        }
    }

    /// The combination of what class `c` gives read set `r`, and whether it is
    /// known to be shared by other classes.
    fn combo(&mut self, c: u32, r: u32) -> (u32, bool) {
        let combos = &mut self.combos[r as usize];
        let mut id = combos.of_class[c as usize];
        if id == UNSEEN {
            let ids = &self.class_ids[c as usize];
            let combo: smallvec::SmallVec<[u32; 4]> = self.read_sets[r as usize]
                .iter()
                .map(|&n| ids[n as usize])
                .collect();
            let shared = combo.iter().all(|&i| (i as usize) < self.classes);
            let next = combos.shared.len() as u32;
            id = *combos.ids.entry(combo).or_insert(next);
            if id == next {
                combos.shared.push(shared);
            }
            combos.of_class[c as usize] = id;
        }
        (id, combos.shared[id as usize])
    }

    /// The test's value for class `c` (representative `job`) and slot `s`.
    fn get(
        &mut self,
        c: u32,
        s: u32,
        slot: &Arc<ClassAd>,
        job: &Arc<ClassAd>,
        evals: &mut Repeated,
        value: impl Fn(Result<Value, Fail>) -> T,
    ) -> T {
        // Slots that give the test the same text share values, for classes whose
        // values read nothing back from the slot.
        let pair = self.pair_of[s as usize];
        let (key, shared) = if pair == NO_PAIR {
            self.key(c, s)
        } else {
            self.combo(c, self.pair_set[pair as usize])
        };
        if pair != NO_PAIR && shared {
            if let Some(v) = self.across.get(pair, key) {
                return v;
            }
            let v = value(evals.eval(self.which, slot, job));
            self.across.insert(pair, key, v);
            return v;
        }
        let memo = &mut self.memo[s as usize];
        if let Some((_, v)) = memo.iter().find(|(k, _)| *k == key) {
            return *v;
        }
        let v = value(evals.eval(self.which, slot, job));
        // A slot's values stay few (a key per group of classes); past a bound the
        // slot starts afresh, so memory stays bounded however many classes.
        if memo.len() >= MEMO_PER_SLOT {
            memo.clear();
        }
        memo.push((key, v));
        v
    }
}

/// The preemption tests of section 8, each shared as far as it can be.
#[derive(Clone)]
struct PreemptionTests {
    rank_preferred: SharedTest<bool>,
    rank_at_least: SharedTest<bool>,
    requirements: Option<SharedTest<bool>>,
    rank: Option<SharedTest<f64>>,
    /// The tests' expressions, evaluated on the engine that costs least: a
    /// slot and a class that come back (to any of the tests) run on the
    /// machine.
    evals: Repeated,
}

/// Which preemption test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Test {
    /// `MY.Rank > MY.CurrentRank`.
    RankPreferred,
    /// `MY.Rank >= MY.CurrentRank`.
    RankAtLeast,
    /// `PREEMPTION_REQUIREMENTS` (true when unset).
    Requirements,
}

/// Why per-class candidate lists cannot stand for a pool's classes
/// ([`ClassPairs::from_candidates`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CandidatesError {
    /// A slot index past the pool's slots.
    SlotOutOfRange {
        /// The class.
        class: u32,
        /// The slot.
        slot: u32,
    },
    /// A slot listed twice for one class.
    Repeated {
        /// The class.
        class: u32,
        /// The slot.
        slot: u32,
    },
    /// A list out of the negotiator's order: its entry `at` is not after the one
    /// before it.
    Unordered {
        /// The class.
        class: u32,
        /// The entry's place in the list.
        at: usize,
    },
}

impl std::fmt::Display for CandidatesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CandidatesError::SlotOutOfRange { class, slot } => {
                write!(f, "class {class}: slot {slot} is not in the pool")
            }
            CandidatesError::Repeated { class, slot } => {
                write!(f, "class {class}: slot {slot} is listed twice")
            }
            CandidatesError::Unordered { class, at } => write!(
                f,
                "class {class}: candidate {at} is not after the one before it \
                 (best key first, then slot order)"
            ),
        }
    }
}

impl std::error::Error for CandidatesError {}

/// Every class's matches and candidates (see [`Heads`]), and the preemption
/// tests of the slots someone runs on.
#[derive(Clone)]
pub struct ClassPairs {
    heads: Heads,
    tests: Option<PreemptionTests>,
}

impl ClassPairs {
    /// The classes of `matcher` (made with [`BatchMatcher::for_classes`] or from
    /// autoclusters), within the default bounds.
    pub fn from_matcher(matcher: BatchMatcher) -> ClassPairs {
        ClassPairs::with_bounds(matcher, CandidateBounds::default())
    }

    /// [`ClassPairs::from_matcher`] holding what `bounds` allow.
    pub fn with_bounds(matcher: BatchMatcher, bounds: CandidateBounds) -> ClassPairs {
        ClassPairs {
            heads: Heads::first_pass(matcher, bounds),
            tests: None,
        }
    }

    /// The classes' candidates as `heads` hold them (made elsewhere:
    /// [`Heads::of_made`]).
    pub fn of_heads(heads: Heads) -> ClassPairs {
        ClassPairs { heads, tests: None }
    }

    /// Class `c`'s head.
    pub fn head(&self, c: u32) -> Arc<Head> {
        self.heads.head(c)
    }

    /// Class `c`'s head made longer, over the slots `usable` now.
    pub fn extend(&mut self, c: u32, usable: &[u64]) -> Arc<Head> {
        self.heads.extend(c, usable)
    }

    /// Class `c`'s whole list over the slots `usable` now.
    pub fn whole(&self, c: u32, usable: &[u64]) -> Arc<Head> {
        self.heads.whole(c, usable)
    }

    /// True when some `usable` slot matches class `c`.
    pub fn any_usable(&self, c: u32, usable: &[u64]) -> bool {
        self.heads.any_usable(c, usable)
    }

    /// The preemption tests' evaluations so far: on the machine, and on the
    /// reference evaluator alone (see `engine::Repeated::runs`).
    pub fn policy_runs(&self) -> [u64; 2] {
        let Some(t) = &self.tests else {
            return [0, 0];
        };
        let (machine, reference) = t.evals.runs();
        [machine, reference]
    }

    /// (class, slot) pairs evaluated so far.
    pub fn evaluations(&self) -> u64 {
        self.heads.evaluations
    }

    /// Heads made after the first pass so far (from the classes' keys).
    pub fn heads_made(&self) -> u64 {
        self.heads.made
    }

    /// The classes' candidates as given, one list per class of the cycle (in
    /// class order) over a pool of `slot_count` slots: each list the class's
    /// matching slots, best first ([`best_first`]: the key, then slot order), as
    /// the batch matcher gives them, say merged from shards of the pool
    /// ([`crate::matching::batch::merge_best_first`]). The cycle then gives what
    /// it gives with [`ClassPairs::from_matcher`] over the whole pool.
    pub fn from_candidates(
        slot_count: usize,
        lists: Vec<Vec<Candidate>>,
    ) -> Result<ClassPairs, CandidatesError> {
        let blocks = slot_count.div_ceil(64);
        let masks: Vec<Vec<u64>> = lists
            .par_iter()
            .enumerate()
            .map(|(c, candidates)| {
                let class = c as u32;
                let mut matches = vec![0u64; blocks];
                for (at, cand) in candidates.iter().enumerate() {
                    let s = cand.slot as usize;
                    if s >= slot_count {
                        return Err(CandidatesError::SlotOutOfRange {
                            class,
                            slot: cand.slot,
                        });
                    }
                    let bit = 1u64 << (s % 64);
                    if matches[s / 64] & bit != 0 {
                        return Err(CandidatesError::Repeated {
                            class,
                            slot: cand.slot,
                        });
                    }
                    matches[s / 64] |= bit;
                    if at > 0 && !best_first(&candidates[at - 1], cand).is_lt() {
                        return Err(CandidatesError::Unordered { class, at });
                    }
                }
                Ok(matches)
            })
            .collect::<Result<_, _>>()?;
        let evaluations = (lists.len() * slot_count) as u64;
        let mut heads = Heads::given(blocks, masks.concat(), lists);
        heads.evaluations = evaluations;
        Ok(ClassPairs { heads, tests: None })
    }

    /// How many classes there are.
    pub fn class_count(&self) -> usize {
        self.heads.class_count()
    }

    /// Every pair of `reps` (a class each) and `slots` on the reference
    /// evaluator, one thread: the matcher to hold the batch matcher against.
    pub fn from_reference(
        reps: &[Arc<ClassAd>],
        slots: &[Arc<ClassAd>],
        policy: &NegotiatorPolicy,
    ) -> ClassPairs {
        let blocks = slots.len().div_ceil(64);
        let mut masks = vec![0u64; reps.len() * blocks];
        let mut lists = Vec::with_capacity(reps.len());
        for (c, rep) in reps.iter().enumerate() {
            let m = &mut masks[c * blocks..(c + 1) * blocks];
            let mut cands = Vec::new();
            for (s, slot) in slots.iter().enumerate() {
                if symmetric_match(rep, slot, Semantics::Htcondor) {
                    m[s / 64] |= 1 << (s % 64);
                    cands.push(Candidate {
                        slot: s as u32,
                        key: negotiator_key(rep, slot, policy),
                    });
                }
            }
            cands.sort_by(best_first);
            lists.push(cands);
        }
        let mut heads = Heads::given(blocks, masks, lists);
        heads.evaluations = (reps.len() * slots.len()) as u64;
        ClassPairs { heads, tests: None }
    }

    /// True when class `c` and slot `s` match.
    pub fn matches(&self, c: u32, s: u32) -> bool {
        self.heads.matches(c, s)
    }

    /// Prepares the preemption tests of the slots someone runs on (`claimed`)
    /// for the classes of `reps`: each test is then evaluated once per slot and
    /// group of classes that give the names it reads the same values.
    pub fn prepare_preemption_tests(
        &mut self,
        slots: &[Arc<ClassAd>],
        claimed: &[bool],
        reps: &[Arc<ClassAd>],
        policy: &NegotiatorPolicy,
    ) {
        static GT: OnceLock<ExprRef> = OnceLock::new();
        static GE: OnceLock<ExprRef> = OnceLock::new();
        let gt = condition("MY.Rank > MY.CurrentRank", &GT).clone();
        let ge = condition("MY.Rank >= MY.CurrentRank", &GE).clone();
        let empty = ClassAd::new();
        let ads: Vec<&ClassAd> = slots
            .iter()
            .zip(claimed)
            .map(|(s, c)| if *c { &**s } else { &empty })
            .collect();
        // The slots' kinds, told once for the three tests.
        let kinds = SlotKinds::of(&ads);
        let new = |e| SharedTest::new(e, &ads, &kinds, claimed, reps);
        let ((rank_preferred, requirements), rank) = rayon::join(
            || {
                rayon::join(
                    || new(gt),
                    || policy.preemption_requirements.clone().map(new),
                )
            },
            // Values of another type: the closure above makes `bool` tests.
            || {
                policy
                    .preemption_rank
                    .clone()
                    .map(|e| SharedTest::new(e, &ads, &kinds, claimed, reps))
            },
        );
        // Both read `MY.Rank` and `MY.CurrentRank` and nothing else: what one
        // reads of each slot and class, the other does.
        let mut rank_at_least = rank_preferred.reading_as(ge);
        let (mut rank_preferred, mut requirements, mut rank) = (rank_preferred, requirements, rank);
        let mut evals = Repeated::new();
        rank_preferred.which = evals.add(rank_preferred.expr.clone());
        rank_at_least.which = evals.add(rank_at_least.expr.clone());
        if let Some(t) = &mut requirements {
            t.which = evals.add(t.expr.clone());
        }
        if let Some(t) = &mut rank {
            t.which = evals.add(t.expr.clone());
        }
        self.tests = Some(PreemptionTests {
            rank_at_least,
            rank_preferred,
            requirements,
            rank,
            evals,
        });
    }

    /// A preemption test of slot `s` for class `c`, whose representative is
    /// `job` (see [`ClassPairs::prepare_preemption_tests`]; unprepared, it is
    /// evaluated each time).
    pub fn test(
        &mut self,
        which: Test,
        c: u32,
        s: u32,
        slot: &Arc<ClassAd>,
        job: &Arc<ClassAd>,
        policy: &NegotiatorPolicy,
    ) -> bool {
        let Some(t) = &mut self.tests else {
            return evaluate_test(which, slot, job, policy);
        };
        let shared = match which {
            Test::RankPreferred => &mut t.rank_preferred,
            Test::RankAtLeast => &mut t.rank_at_least,
            Test::Requirements => match &mut t.requirements {
                Some(r) => r,
                None => return true,
            },
        };
        let is_true = |v| matches!(v, Ok(Value::Bool(true)));
        shared.get(c, s, slot, job, &mut t.evals, is_true)
    }

    /// `PREEMPTION_RANK` of slot `s` for class `c` (see [`ClassPairs::test`]).
    pub fn preemption_rank(
        &mut self,
        c: u32,
        s: u32,
        slot: &Arc<ClassAd>,
        job: &Arc<ClassAd>,
        policy: &NegotiatorPolicy,
    ) -> f64 {
        match &mut self.tests {
            Some(PreemptionTests {
                rank: Some(r),
                evals,
                ..
            }) => r.get(c, s, slot, job, evals, rank_value),
            Some(PreemptionTests { rank: None, .. }) => -f64::MAX,
            None => evaluate_rank(slot, job, policy),
        }
    }
}

/// A preemption test evaluated on the reference evaluator.
pub fn evaluate_test(
    which: Test,
    slot: &Arc<ClassAd>,
    job: &Arc<ClassAd>,
    policy: &NegotiatorPolicy,
) -> bool {
    static GT: OnceLock<ExprRef> = OnceLock::new();
    static GE: OnceLock<ExprRef> = OnceLock::new();
    match which {
        Test::RankPreferred => is_true(condition("MY.Rank > MY.CurrentRank", &GT), slot, job),
        Test::RankAtLeast => is_true(condition("MY.Rank >= MY.CurrentRank", &GE), slot, job),
        Test::Requirements => policy
            .preemption_requirements
            .as_ref()
            .is_none_or(|e| is_true(e, slot, job)),
    }
}

/// `PREEMPTION_RANK` evaluated on the reference evaluator.
pub fn evaluate_rank(slot: &Arc<ClassAd>, job: &Arc<ClassAd>, policy: &NegotiatorPolicy) -> f64 {
    match &policy.preemption_rank {
        Some(e) => rank_of(e, slot, job),
        None => -f64::MAX,
    }
}

/// A negotiator rank expression's value (slot as MY, job as TARGET).
fn rank_of(e: &ExprRef, slot: &Arc<ClassAd>, job: &Arc<ClassAd>) -> f64 {
    rank_value(eval_once(e, slot, Some(job)))
}

/// A rank's value as the negotiator reads it; a failed evaluation ranks lowest.
fn rank_value(v: Result<Value, Fail>) -> f64 {
    match v {
        Ok(v) => negotiator_rank_value(&v),
        Err(_) => -f64::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_shared_across_slots_are_found_by_id_and_combination_within_a_bound() {
        let mut a: Across<bool> = Across::new(3);
        assert_eq!(a.get(0, 0), None);
        a.insert(1, 4, true);
        a.insert(2, 0, false);
        assert_eq!(a.get(1, 4), Some(true));
        assert_eq!(a.get(2, 0), Some(false));
        assert_eq!((a.get(1, 3), a.get(1, 5), a.get(0, 4)), (None, None, None));
        assert_eq!(a.cells, 6);
        // Past the bound, every row starts afresh: memory stays bounded.
        let last = (ACROSS_ENTRIES - 6) as u32;
        a.insert(0, last, true);
        assert_eq!(a.get(1, 4), None);
        assert_eq!(a.get(0, last), Some(true));
        assert_eq!(a.cells, last as usize + 1);
    }
}
