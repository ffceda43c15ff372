//! One block of slots against every class of a window: the Requirements of both
//! sides as block verdicts, then the rank keys of the pairs that match. A work
//! item of the batch matcher, run on rayon's threads.

use super::rank_reads::RankGroups;
use super::{negotiator_rank_value, RankKey};
use crate::compile::host::VmHost;
use crate::matching::pool::CompiledPool;
use crate::syntax::ast::ExprRef;
use classad_vm::lanes::LANES;
use classad_vm::logic::for_each_lane;
use classad_vm::{ColumnStore, CompiledAd, Machine, TargetBlock, Value};

thread_local! {
    /// Each thread's machine, kept from run to run: its cache of values that read
    /// only the TARGET ad (keyed by pool) stays warm for the next run over the
    /// same classes. (`block_work` calls nothing of rayon's, so no other block
    /// can start on this thread while one holds it.)
    pub(super) static THREAD_MACHINE: std::cell::RefCell<Machine> = std::cell::RefCell::new(Machine::new());
}

thread_local! {
    /// Each thread's column stores (slots', classes'), kept from block to block
    /// of one pool: their interned strings and column buffers are made once per
    /// thread rather than once per block of 64 slots (fresh memory is costly).
    static THREAD_STORES: std::cell::RefCell<Option<(u64, ColumnStore, Vec<ColumnStore>)>> =
        const { std::cell::RefCell::new(None) };
}

/// How many blocks of classes keep their columns from one block of slots to the
/// next (a store each, siblings of the slots'): the columns of a block of
/// classes are the same for every block of slots, so they are built once;
/// past this many blocks, stores are shared and columns built again. With the
/// columns a kept block keeps (`columns::MAX_KEPT_COLUMNS`, about 5 KB each)
/// this bounds what a thread keeps to about 10 MB beyond one block's needs.
const KEPT_CLASS_BLOCKS: usize = 32;

/// What one block of slots found for the classes of a window.
pub(super) struct BlockResult {
    /// Per class of the window: which slots of the block match it.
    pub(super) masks: Vec<u64>,
    /// The keys of the matching pairs, class after class, each class's in slot
    /// order: one buffer per block rather than one per class and block, since
    /// fresh memory is what the match phase spends most on.
    keys: Vec<RankKey>,
    /// Per class (when ranked), where its keys start in `keys`.
    key_start: Vec<u32>,
    /// How many rank keys were computed.
    pub(super) ranked: u64,
}

impl BlockResult {
    /// The keys of class `ci` of the window (ranked runs only), one per
    /// matching slot of the block, in slot order.
    pub(super) fn keys_of(&self, ci: usize) -> &[RankKey] {
        let start = self.key_start[ci] as usize;
        &self.keys[start..start + self.masks[ci].count_ones() as usize]
    }
}

/// The negotiator's rank expressions of a run.
#[derive(Clone, Copy)]
pub(super) struct RankExprs<'e> {
    pub(super) pre: Option<&'e (u32, ExprRef)>,
    pub(super) post: Option<&'e (u32, ExprRef)>,
    /// For PRE and for POST: per slot, which set of names it reads there, when
    /// known (see [`super::RankReads`]).
    pub(super) slot_sets: [&'e [Option<u32>]; 2],
    /// For PRE and for POST: per set of names, per class of the window, its
    /// group (classes of a group give those names the same).
    pub(super) class_groups: [&'e [Vec<u32>]; 2],
    /// Classes whose `Rank` gives every slot the same value, when known.
    pub(super) job_groups: Option<&'e RankGroups>,
}

/// How many TARGET-only values a thread's machine keeps across blocks: the
/// values of a block's slots are of no use once the block is done, so the cache
/// is bounded instead of growing with the pool.
const TARGET_CACHE_MAX: usize = 1 << 14;

/// How many values of the jobs' (classes') a thread's machine keeps across blocks
/// of slots (a few megabytes): every block of slots reads them again.
const JOB_CACHE_MAX: usize = 1 << 18;

/// Block `b` of slots against every class of the pool's jobs.
pub(super) fn block_work(
    pool: &CompiledPool,
    vm: &mut Machine,
    b: usize,
    ranks: Option<RankExprs<'_>>,
) -> BlockResult {
    vm.cache_for(pool.id);
    // The jobs' values come back with every block of slots; the slots' are done
    // with once their block is.
    let jobs = pool.jobs.as_ptr_range();
    let (first, end) = (jobs.start as usize, jobs.end as usize);
    vm.bound_cache_keeping(TARGET_CACHE_MAX, JOB_CACHE_MAX, |ad| {
        (first..end).contains(&(ad as usize))
    });
    let (mut slot_store, mut rep_stores) = match THREAD_STORES.with(|s| s.borrow_mut().take()) {
        Some((id, slots, reps)) if id == pool.id => (slots, reps),
        _ => (ColumnStore::new(), Vec::new()),
    };
    let class_blocks = pool.jobs.len().div_ceil(LANES).clamp(1, KEPT_CLASS_BLOCKS);
    while rep_stores.len() < class_blocks {
        rep_stores.push(slot_store.sibling());
    }
    let out = block_in_stores(pool, vm, b, ranks, &mut slot_store, &mut rep_stores);
    THREAD_STORES.with(|s| *s.borrow_mut() = Some((pool.id, slot_store, rep_stores)));
    out
}

/// [`block_work`] with the column stores to build the blocks' columns in.
fn block_in_stores(
    pool: &CompiledPool,
    vm: &mut Machine,
    b: usize,
    ranks: Option<RankExprs<'_>>,
    slot_store: &mut ColumnStore,
    rep_stores: &mut [ColumnStore],
) -> BlockResult {
    let m0 = b * LANES;
    let m1 = (m0 + LANES).min(pool.machines.len());
    let slot_ads: Vec<&CompiledAd> = pool.machines[m0..m1].iter().map(|m| &m.vm).collect();
    let rep_ads: Vec<&CompiledAd> = pool.jobs.iter().map(|j| &j.vm).collect();
    let mut slot_block = slot_store.block(&slot_ads);
    let mut out = BlockResult {
        masks: vec![0; rep_ads.len()],
        keys: Vec::new(),
        key_start: Vec::new(),
        ranked: 0,
    };
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
        let kept = rb % rep_stores.len();
        let mut rep_block = rep_stores[kept].reopen(rep_chunk);
        let masks = &mut out.masks[r0..r0 + rep_chunk.len()];
        pool.match_blocks(
            vm,
            (r0, rep_chunk, &mut rep_block),
            (m0, &slot_ads, &mut slot_block),
            masks,
        );
        if let Some(RankExprs {
            pre,
            post,
            slot_sets,
            class_groups,
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
                    slot_sets,
                    class_groups,
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

/// A slot's values of PRE or POST, by group of classes (see
/// [`RankExprs::class_groups`]).
type RankMemo = smallvec::SmallVec<[(u32, f64); 4]>;

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
    slot_sets: [&'b [Option<u32>]; 2],
    class_groups: [&'b [Vec<u32>]; 2],
    job_groups: Option<&'b RankGroups>,
    job_ranks: &'b mut [(u64, [f64; LANES])],
    /// Per (PRE or POST, slot of the block): values by group of classes (see
    /// [`RankExprs::class_groups`]).
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
                if first_ad.has(pool.rank) {
                    let targets = k.slot_block.targets();
                    vm.eval_attr_lanes(first_ad, pool.rank, 0, targets, todo, host, k.values);
                    for_each_lane(todo, |mi| {
                        ranks[mi] = match &k.values[mi] {
                            Some(v) => crate::matching::rank_value(v),
                            None => pool.rank(vm, first, k.m0 + mi, true),
                        };
                    });
                } else {
                    // No Rank of its own (a group of one): the slot's stands for
                    // it, evaluated in the slot.
                    for_each_lane(todo, |mi| ranks[mi] = pool.rank(vm, first, k.m0 + mi, true));
                }
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
                    Some(v) => crate::matching::rank_value(v),
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
            if let Some(&Some(reads)) = k.slot_sets[which].get(k.m0 + mi) {
                // Classes that give the names this slot's PRE (or POST) reads
                // the same (one group) get the same value: one evaluation per
                // group, kept for the slot's next blocks of classes.
                let groups = &k.class_groups[which][reads as usize][k.r0..];
                let memo = &mut k.rank_memo[which * LANES + mi];
                let mut missing: smallvec::SmallVec<[usize; 8]> = smallvec::SmallVec::new();
                for_each_lane(wanted, |ji| {
                    let g = groups[ji];
                    if !memo.iter().any(|&(m, _)| m == g)
                        && !missing.iter().any(|&f| groups[f] == g)
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
                        memo.push((groups[f], v));
                    }
                    if let [(_, v)] = memo[..] {
                        // The common case: one group.
                        for_each_lane(wanted, |ji| set(&mut keys, ji, v));
                    } else {
                        for_each_lane(wanted, |ji| {
                            let v = memo
                                .iter()
                                .find(|&&(m, _)| m == groups[ji])
                                .map(|&(_, v)| v)
                                .expect("every group evaluated");
                            set(&mut keys, ji, v);
                        });
                    }
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
    let BlockResult {
        masks,
        keys: out,
        key_start,
        ..
    } = &mut *k.out;
    let masks = &masks[k.r0..k.r0 + n];
    out.reserve(masks.iter().map(|m| m.count_ones() as usize).sum());
    for (row, &mask) in keys.iter().zip(masks) {
        key_start.push(out.len() as u32);
        for_each_lane(mask, |mi| out.push(row[mi]));
    }
}
