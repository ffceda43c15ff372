//! The counting behind an analysis: expressions of an analyzed ad evaluated
//! against every target, and the Requirements of each side against the other,
//! on the reference evaluator or on the bytecode machine.
//!
//! An expression *holds* for a target when, evaluated with the analyzed ad as MY
//! and the target as TARGET, it is true or a non-zero number (HTCondor's
//! `EvalExprToBool` then `IsBooleanValueEquiv`); an ad *accepts* another when its
//! Requirements hold that way in a match ad with it on the left
//! ([`crate::matching::constraint_match`]). Both engines give exactly these
//! answers: the machine hands every pair it cannot decide to the reference
//! evaluator.
//!
//! The reference evaluator works pair by pair and needs no preparation; the
//! machine first compiles every ad (most of the cost for a large pool) and then
//! decides a block of 64 targets at a time. [`choose`] picks the cheaper for the
//! size of the work.

use super::super::pool::CompiledPool;
use crate::ad::ClassAd;
use crate::compile::compile_expr;
use crate::compile::host::VmHost;
use crate::engine::settle_test;
use crate::engine::Engine;
use crate::eval::{eval_in, Fail, Semantics};
use crate::matching::constraint_match;
use crate::syntax::ast::ExprRef;
use classad_vm::lanes::LANES;
use classad_vm::logic::for_each_lane;
use classad_vm::{Attr, ColumnStore, CompiledAd, Machine, Sides, SlotTable, Value};
use rayon::prelude::*;
use std::sync::Arc;

/// A set of targets, by index: those an expression holds for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hits {
    words: Vec<u64>,
    len: usize,
}

impl Hits {
    /// No target of `len`.
    pub fn new(len: usize) -> Hits {
        Hits {
            words: vec![0; len.div_ceil(64)],
            len,
        }
    }

    /// Every target of `len`.
    pub fn all(len: usize) -> Hits {
        let mut h = Hits::new(len);
        for i in 0..len {
            h.set(i);
        }
        h
    }

    /// Adds target `i`.
    pub fn set(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
    }

    /// True when target `i` is in the set.
    pub fn get(&self, i: usize) -> bool {
        self.words[i / 64] >> (i % 64) & 1 == 1
    }

    /// How many targets are in the set.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// How many targets there are, in the set or not.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are no targets at all.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The targets in both sets.
    pub fn and(&self, other: &Hits) -> Hits {
        Hits {
            words: self
                .words
                .iter()
                .zip(&other.words)
                .map(|(a, b)| a & b)
                .collect(),
            len: self.len,
        }
    }

    /// The targets in the set, in order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &bits)| {
            let mut bits = bits;
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let lane = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Some(w * 64 + lane)
            })
        })
    }
}

/// What one analyzed ad asks of the targets: its expressions to evaluate against
/// each of them.
#[derive(Clone, Debug)]
pub struct Query {
    /// The analyzed ad (MY).
    pub my: Arc<ClassAd>,
    /// Expressions of `my` (nodes of its attributes' trees).
    pub exprs: Vec<ExprRef>,
}

/// The answers to one [`Query`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// Per expression, the targets it holds for.
    pub exprs: Vec<Hits>,
    /// The targets the analyzed ad's Requirements accept.
    pub accepts: Hits,
    /// The targets whose own Requirements accept the analyzed ad.
    pub accepted_by: Hits,
}

/// Below this many evaluations (pairs times the expressions of each), the
/// reference evaluator finishes before the machine, which compiles every ad
/// first. Measured on a generated pool of 10,000 slots, two cores, reading
/// included: one job (18 expressions a slot) 0.20 s on the reference evaluator
/// against 0.29 s on the machine; five jobs 0.54 s against 0.30 s.
const REFERENCE_WORK: usize = 400_000;

/// The engine that does `queries` against `targets` soonest.
pub fn choose(queries: &[Query], targets: usize) -> Engine {
    let work: usize = queries
        .iter()
        .map(|q| (q.exprs.len() + 2).saturating_mul(targets))
        .fold(0, usize::saturating_add);
    if work <= REFERENCE_WORK {
        Engine::Reference
    } else {
        Engine::Vm
    }
}

/// The answers to `queries` against `targets`, on `engine`, on rayon's threads.
pub fn evaluate(queries: &[Query], targets: &[Arc<ClassAd>], engine: Engine) -> Vec<Answer> {
    let words = match engine {
        Engine::Reference => reference_words(queries, targets),
        Engine::Vm => machine_words(queries, targets),
    };
    assemble(queries, targets.len(), words)
}

/// True when an evaluation counts as a match.
fn holds(r: Result<Value, Fail>) -> bool {
    matches!(r, Ok(v) if v.as_bool_equiv() == Some(true))
}

/// Per block of 64 targets, per query: the words of `accepts`, `accepted_by`
/// and each expression, in that order.
type BlockWords = Vec<Vec<u64>>;

fn reference_words(queries: &[Query], targets: &[Arc<ClassAd>]) -> Vec<BlockWords> {
    let sem = Semantics::Htcondor;
    targets
        .par_chunks(64)
        .map(|block| {
            queries
                .par_iter()
                .map(|q| {
                    let mut w = vec![0u64; q.exprs.len() + 2];
                    for (i, t) in block.iter().enumerate() {
                        let bit = 1u64 << i;
                        if constraint_match(&q.my, t, sem) {
                            w[0] |= bit;
                        }
                        if constraint_match(t, &q.my, sem) {
                            w[1] |= bit;
                        }
                        for (k, e) in q.exprs.iter().enumerate() {
                            if holds(eval_in(e, &q.my, Some(t), sem)) {
                                w[2 + k] |= bit;
                            }
                        }
                    }
                    w
                })
                .collect()
        })
        .collect()
}

/// One selection deep: HTCondor evaluates a one-way match as
/// `LEFT.requirements`.
const ONE_WAY_SITE: u32 = 1;

fn machine_words(queries: &[Query], targets: &[Arc<ClassAd>]) -> Vec<BlockWords> {
    let mine: Vec<Arc<ClassAd>> = queries.iter().map(|q| q.my.clone()).collect();
    let mut pool = CompiledPool::new(&mine, targets);
    // Each expression is compiled for its ad, as an attribute of the compiled
    // ad under a name no ClassAd can spell; the source ad is left alone, so
    // whatever the machine hands back to the reference evaluator sees the ad
    // as it is.
    let most = queries.iter().map(|q| q.exprs.len()).max().unwrap_or(0);
    let names: Vec<u32> = (0..most)
        .map(|k| pool.slots.intern(&format!("\u{0}analysis expression {k}")))
        .collect();
    let programs = compile_queries(queries, &mut pool.slots);
    for (q, progs) in programs.into_iter().enumerate() {
        for (k, p) in progs.into_iter().enumerate() {
            pool.jobs[q].vm.set(names[k], Attr::Code(Arc::new(p)));
        }
    }
    let pool = &pool;
    let mine: Vec<&CompiledAd> = pool.jobs.iter().map(|j| &j.vm).collect();
    let theirs: Vec<&CompiledAd> = pool.machines.iter().map(|m| &m.vm).collect();
    let req = pool.requirements;
    theirs
        .par_chunks(LANES)
        .enumerate()
        .map_init(Machine::new, |vm, (b, block_ads)| {
            vm.cache_for(pool.id);
            let t0 = b * LANES;
            let wanted = lanes(block_ads.len());
            let host = &mut VmHost;
            let mut store = ColumnStore::new();
            let mut my_stores: Vec<ColumnStore> =
                mine.chunks(LANES).map(|_| store.sibling()).collect();
            let mut block = store.block(block_ads);
            let mut out: BlockWords = queries
                .iter()
                .map(|q| vec![0u64; q.exprs.len() + 2])
                .collect();
            for (q, query) in queries.iter().enumerate() {
                let my = mine[q];
                let one = |vm: &mut Machine, slot: u32, site: u32, lane: usize| {
                    let sides = Sides::new(my, Some(block_ads[lane]));
                    vm.eval_attr(0, slot, site, sides, &mut VmHost)
                        .map(|v| v.as_bool_equiv() == Some(true))
                };
                let v = vm.verdicts(my, req, ONE_WAY_SITE, &mut block, wanted, host);
                let mut bits = v.yes;
                for_each_lane(v.unknown, |l| {
                    let yes = settle_test(one(vm, req, ONE_WAY_SITE, l), || {
                        constraint_match(&query.my, &targets[t0 + l], Semantics::Htcondor)
                    });
                    bits |= u64::from(yes) << l;
                });
                out[q][0] = bits;
                for (k, e) in query.exprs.iter().enumerate() {
                    let v = vm.verdicts(my, names[k], 0, &mut block, wanted, host);
                    let mut bits = v.yes;
                    for_each_lane(v.unknown, |l| {
                        let yes = settle_test(one(vm, names[k], 0, l), || {
                            let t = &targets[t0 + l];
                            holds(eval_in(e, &query.my, Some(t), Semantics::Htcondor))
                        });
                        bits |= u64::from(yes) << l;
                    });
                    out[q][2 + k] = bits;
                }
            }
            // Each target's Requirements over blocks of the analyzed ads.
            let mut my_blocks: Vec<_> = my_stores
                .iter_mut()
                .zip(mine.chunks(LANES))
                .map(|(s, ads)| (s.block(ads), ads.len()))
                .collect();
            for (l, their) in block_ads.iter().enumerate() {
                for (mb, (my_block, n)) in my_blocks.iter_mut().enumerate() {
                    let v = vm.verdicts(their, req, ONE_WAY_SITE, my_block, lanes(*n), host);
                    let mut bits = v.yes;
                    for_each_lane(v.unknown, |j| {
                        let q = mb * LANES + j;
                        let sides = Sides::new(their, Some(mine[q]));
                        let run = vm
                            .eval_attr(0, req, ONE_WAY_SITE, sides, &mut VmHost)
                            .map(|v| v.as_bool_equiv() == Some(true));
                        let yes = settle_test(run, || {
                            constraint_match(&targets[t0 + l], &queries[q].my, Semantics::Htcondor)
                        });
                        bits |= u64::from(yes) << j;
                    });
                    for_each_lane(bits, |j| out[mb * LANES + j][1] |= 1 << l);
                }
            }
            out
        })
        .collect()
}

/// Every query's expressions compiled for its ad, on rayon's threads: each
/// chunk of queries against its own copy of `slots` (the names the expressions
/// read are the ads', interned when the ads were compiled); should a copy have
/// grown all the same, everything is compiled again on `slots` itself.
fn compile_queries(queries: &[Query], slots: &mut SlotTable) -> Vec<Vec<classad_vm::Program>> {
    let frozen = slots.entries();
    let compile = |q: &Query, table: &mut SlotTable| -> Vec<classad_vm::Program> {
        q.exprs
            .iter()
            .map(|e| compile_expr(e, Some(&q.my), table))
            .collect()
    };
    let parts: Vec<(Vec<Vec<classad_vm::Program>>, bool)> = queries
        .par_chunks(16)
        .map(|chunk| {
            let mut table = slots.clone();
            let out = chunk.iter().map(|q| compile(q, &mut table)).collect();
            (out, table.entries() == frozen)
        })
        .collect();
    if parts.iter().all(|(_, same)| *same) {
        parts.into_iter().flat_map(|(p, _)| p).collect()
    } else {
        queries.iter().map(|q| compile(q, slots)).collect()
    }
}

/// The lanes of a block of `n` ads.
fn lanes(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// The blocks' words put together into each query's sets.
fn assemble(queries: &[Query], targets: usize, blocks: Vec<BlockWords>) -> Vec<Answer> {
    let mut answers: Vec<Answer> = queries
        .iter()
        .map(|q| Answer {
            exprs: vec![Hits::new(targets); q.exprs.len()],
            accepts: Hits::new(targets),
            accepted_by: Hits::new(targets),
        })
        .collect();
    for (b, block) in blocks.into_iter().enumerate() {
        for (a, words) in answers.iter_mut().zip(block) {
            a.accepts.words[b] = words[0];
            a.accepted_by.words[b] = words[1];
            for (h, w) in a.exprs.iter_mut().zip(&words[2..]) {
                h.words[b] = *w;
            }
        }
    }
    answers
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::symmetric_match;

    use crate::ad::test_ads as ads;

    #[test]
    fn hits_count_and_list_their_targets() {
        let mut h = Hits::new(130);
        for i in [0, 63, 64, 129] {
            h.set(i);
        }
        assert_eq!(h.count(), 4);
        assert_eq!(h.iter().collect::<Vec<_>>(), [0, 63, 64, 129]);
        assert!(h.get(64) && !h.get(65));
        let mut other = Hits::new(130);
        other.set(64);
        other.set(1);
        assert_eq!(h.and(&other).iter().collect::<Vec<_>>(), [64]);
        assert_eq!(Hits::all(70).count(), 70);
    }

    /// Both engines against the reference, pair by pair, over more than one
    /// block of targets and of analyzed ads.
    #[test]
    fn both_engines_give_the_reference_s_answers() {
        let mut slots = String::new();
        for i in 0..150 {
            let memory = if i % 7 == 0 {
                "Memory = \"lots\"".to_string()
            } else {
                format!("Memory = {}", (i * 37) % 900)
            };
            slots.push_str(&format!(
                "Name = \"slot{i}\"\n{memory}\nCpus = {}\nArch = \"{}\"\nRequirements = TARGET.RequestMemory <= MY.Memory && (TARGET.Owner =!= \"x{}\")\n\n",
                i % 5,
                if i % 3 == 0 { "ARM" } else { "X86_64" },
                i % 4
            ));
        }
        let mut jobs = String::new();
        for i in 0..70 {
            jobs.push_str(&format!(
                "Owner = \"x{}\"\nRequestMemory = {}\nRequirements = TARGET.Arch == \"X86_64\" && TARGET.Cpus >= {} && (TARGET.Memory ?: 0) > 10\n\n",
                i % 6,
                (i * 53) % 700,
                i % 4
            ));
        }
        let (slots, jobs) = (ads(&slots), ads(&jobs));
        let queries: Vec<Query> = jobs
            .iter()
            .map(|j| {
                let req = j.get("Requirements").unwrap().to_expr_ref();
                let (and, cpus) = match req.node() {
                    crate::syntax::ast::Node::Binary(_, a, _) => (req.child(*a), req.child(*a)),
                    _ => unreachable!(),
                };
                Query {
                    my: j.clone(),
                    exprs: vec![req.clone(), and, cpus],
                }
            })
            .collect();
        let by_ref = evaluate(&queries, &slots, Engine::Reference);
        let by_vm = evaluate(&queries, &slots, Engine::Vm);
        assert_eq!(by_ref, by_vm);
        let sem = Semantics::Htcondor;
        for (q, a) in queries.iter().zip(&by_ref) {
            for (s, slot) in slots.iter().enumerate() {
                assert_eq!(a.accepts.get(s), constraint_match(&q.my, slot, sem));
                assert_eq!(a.accepted_by.get(s), constraint_match(slot, &q.my, sem));
                assert_eq!(
                    a.accepts.get(s) && a.accepted_by.get(s),
                    symmetric_match(&q.my, slot, sem)
                );
                for (k, e) in q.exprs.iter().enumerate() {
                    assert_eq!(a.exprs[k].get(s), holds(eval_in(e, &q.my, Some(slot), sem)));
                }
            }
        }
        let total: usize = by_ref.iter().map(|a| a.accepts.count()).sum();
        assert!(total > 100 && total < 70 * 150 - 100, "{total}");
    }
}
