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

/// Class `ci`'s candidates, best first: gathered in `base` order, then sorted.
pub(super) fn candidates(blocks: &[BlockResult], ci: usize, base: &[u32]) -> Vec<Candidate> {
    // Sized at once: growing it would touch twice the fresh memory.
    let count = blocks
        .iter()
        .map(|b| b.masks[ci].count_ones() as usize)
        .sum();
    let mut cands = Vec::with_capacity(count);
    for &slot in base {
        let (b, l) = (slot as usize / LANES, slot as usize % LANES);
        let block = &blocks[b];
        let mask = block.masks[ci];
        if mask >> l & 1 == 1 {
            let key: RankKey = block.keys_of(ci)[lane_index(mask, l)];
            cands.push(Candidate { slot, key });
        }
    }
    // Run-adaptive (a list gathered in order costs one pass); unstable, as
    // the order is total (ties by slot), so the result is the stable one.
    cands.sort_unstable_by(best_first);
    cands
}
