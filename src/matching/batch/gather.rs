//! Each class's candidates gathered from the blocks' results and sorted best
//! first.
//!
//! Sorting every class's candidates from slot order was a sixth of the match
//! phase. Classes of a pool mostly rank the slots alike (PRE and POST read the
//! slot, and most jobs' Rank is constant or reads the same attributes), so the
//! candidates are gathered in a base order, the slots sorted once by the key the
//! first class that matches each gives it: a class that ranks like that is
//! sorted when gathered, and the (run-adaptive) sort checks it in one
//! pass; one that ranks otherwise is still sorted whole. The result is the same
//! either way: the order of [`best_first`](super::best_first), which is total.

use super::block::BlockResult;
use super::{best_first, Candidate, RankKey};
use classad_vm::lanes::LANES;
use rayon::prelude::*;

/// The slots that some class of the window matches, sorted by the key the first
/// such class gives each (ties by slot order).
pub(super) fn base_order(blocks: &[BlockResult], classes: usize) -> Vec<u32> {
    let mut keyed: Vec<Candidate> = Vec::new();
    for (b, block) in blocks.iter().enumerate() {
        let mut seen = 0u64;
        for ci in 0..classes {
            let mask = block.masks[ci];
            let new = mask & !seen;
            if new == 0 {
                continue;
            }
            let keys = block.keys_of(ci);
            classad_vm::logic::for_each_lane(new, |l| {
                keyed.push(Candidate {
                    slot: (b * LANES + l) as u32,
                    key: keys[lane_index(mask, l)],
                });
            });
            seen |= new;
            if seen == u64::MAX {
                break;
            }
        }
    }
    keyed.sort_unstable_by(best_first);
    keyed.into_iter().map(|c| c.slot).collect()
}

/// Where lane `l`'s key is among the keys of a class whose matches in the block
/// are `mask` (they are kept in lane order).
fn lane_index(mask: u64, l: usize) -> usize {
    (mask & ((1u64 << l) - 1)).count_ones() as usize
}

/// How many classes one pass over the base order serves: their matches of a
/// slot fit one `u64`.
const CLASSES_PER_PASS: usize = 64;

/// Every class's candidates, best first: gathered in `base` order, then sorted.
///
/// Classes are taken 64 at a time (one rayon task each): the matches of the
/// group are first turned slot-wise (per slot, which of the 64 classes match
/// it), at a cost in the number of matches, then the base order is walked once
/// and each slot handed to the classes that match it. Walking the base order
/// once per class instead cost classes x slots steps, a fifth of the match
/// phase on a pool of 400 classes and 10,000 slots.
pub(super) fn all_candidates(
    blocks: &[BlockResult],
    classes: usize,
    base: &[u32],
) -> Vec<Vec<Candidate>> {
    let mut out: Vec<Vec<Candidate>> = vec![Vec::new(); classes];
    let slots = blocks.len() * LANES;
    out.par_chunks_mut(CLASSES_PER_PASS)
        .enumerate()
        .for_each(|(chunk, lists)| {
            let c0 = chunk * CLASSES_PER_PASS;
            gather_group(blocks, c0, lists, base, slots);
        });
    out
}

/// The candidates of classes `c0..c0 + lists.len()` into `lists`, sorted.
fn gather_group(
    blocks: &[BlockResult],
    c0: usize,
    lists: &mut [Vec<Candidate>],
    base: &[u32],
    slots: usize,
) {
    // Per slot, which classes of the group match it.
    let mut by_slot = vec![0u64; slots];
    for (i, list) in lists.iter_mut().enumerate() {
        let mut count = 0;
        for (b, block) in blocks.iter().enumerate() {
            let mask = block.masks[c0 + i];
            count += mask.count_ones() as usize;
            classad_vm::logic::for_each_lane(mask, |l| by_slot[b * LANES + l] |= 1 << i);
        }
        // Sized at once: growing it would touch twice the fresh memory.
        *list = Vec::with_capacity(count);
    }
    for &slot in base {
        let classes = by_slot[slot as usize];
        if classes == 0 {
            continue;
        }
        let (b, l) = (slot as usize / LANES, slot as usize % LANES);
        let block = &blocks[b];
        classad_vm::logic::for_each_lane(classes, |i| {
            let ci = c0 + i;
            let key: RankKey = block.keys_of(ci)[lane_index(block.masks[ci], l)];
            lists[i].push(Candidate { slot, key });
        });
    }
    for list in lists {
        // Run-adaptive (a list gathered in order costs one pass); unstable, as
        // the order is total (ties by slot), so the result is the stable one.
        list.sort_unstable_by(best_first);
    }
}
