//! The shard format: a pool's slots cut into shards (for engines that spread
//! work over machines, such as Dask or Ray), each shard's candidate lists of
//! every match class among its slots as bytes, and their merge in the
//! negotiator's order into the lists one process makes (which
//! [`ClassPairs::from_candidates`](super::ClassPairs::from_candidates) takes
//! for the cycle).
//!
//! The layout is documented at [`encode`]; the Python module's
//! `classad_rs/shard.py` documents it for its users.

use super::CycleKnobs;
use crate::ad::ClassAd;
use crate::matching::batch::{merge_best_first, BatchMatcher, Candidate, CompiledSlots, RankKey};
use rayon::prelude::*;
use std::sync::Arc;

/// What is wrong with shards' bytes, or with how they fit together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardError(pub String);

impl std::fmt::Display for ShardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ShardError {}

/// The first bytes of a shard's candidate lists (format version 1).
pub const MAGIC: &[u8; 8] = b"CASHARD1";

/// The bytes of one candidate: its slot (u32), PRE, the job's Rank, POST (f64).
const RECORD: usize = 4 + 3 * 8;

/// The bytes before the counts: [`MAGIC`], the class count, the first slot,
/// the slot count, a reserved word.
const HEADER: usize = 8 + 4 * 4;

/// One shard's candidate lists: the slots it covers and, per class, its
/// candidates among them.
#[derive(Clone, Debug)]
pub struct ShardLists {
    /// The first slot the shard covers (its number in the whole pool).
    pub first: u32,
    /// How many slots it covers.
    pub slots: u32,
    /// Per class, its candidates, best first.
    pub lists: Vec<Vec<Candidate>>,
}

/// A shard's lists as bytes: [`MAGIC`], the class count, the first slot and
/// the number of slots the shard covers, a reserved word (0) (each a u32), each
/// class's candidate count (u32), then each class's candidates in order, each
/// its slot (u32) and its key's PRE, Rank and POST (f64, bit for bit), every
/// number little-endian.
pub fn encode(shard: &ShardLists) -> Vec<u8> {
    let lists = &shard.lists;
    let total: usize = lists.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(HEADER + 4 * lists.len() + RECORD * total);
    out.extend_from_slice(MAGIC);
    for word in [lists.len() as u32, shard.first, shard.slots, 0] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    for l in lists {
        out.extend_from_slice(&(l.len() as u32).to_le_bytes());
    }
    for c in lists.iter().flatten() {
        out.extend_from_slice(&c.slot.to_le_bytes());
        for x in [c.key.pre, c.key.rank, c.key.post] {
            out.extend_from_slice(&x.to_bits().to_le_bytes());
        }
    }
    out
}

/// The lists of bytes [`encode`] wrote; an error says what is wrong with them
/// (a slot outside the shard's range among them).
pub fn decode(bytes: &[u8]) -> Result<ShardLists, ShardError> {
    let u32_at = |at: usize| -> u32 {
        u32::from_le_bytes(bytes[at..at + 4].try_into().expect("four bytes"))
    };
    let f64_at = |at: usize| -> f64 {
        f64::from_bits(u64::from_le_bytes(
            bytes[at..at + 8].try_into().expect("eight bytes"),
        ))
    };
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return Err(ShardError(
            "not candidate lists (they start with CASHARD1)".into(),
        ));
    }
    let (classes, first, slots) = (u32_at(8) as usize, u32_at(12), u32_at(16));
    let counts_end = HEADER.saturating_add(classes.saturating_mul(4));
    if bytes.len() < counts_end {
        return Err(ShardError(format!(
            "{classes} classes announced, their counts cut short"
        )));
    }
    let counts: Vec<usize> = (0..classes)
        .map(|c| u32_at(HEADER + 4 * c) as usize)
        .collect();
    let total: usize = counts.iter().sum();
    if bytes.len() != counts_end + RECORD * total {
        return Err(ShardError(format!(
            "{total} candidates announced in {} bytes, not {}",
            bytes.len(),
            counts_end + RECORD * total
        )));
    }
    let range = u64::from(first)..u64::from(first) + u64::from(slots);
    let mut at = counts_end;
    let mut lists = Vec::with_capacity(classes);
    for n in counts {
        let mut list = Vec::with_capacity(n);
        for _ in 0..n {
            let slot = u32_at(at);
            if !range.contains(&u64::from(slot)) {
                return Err(ShardError(format!(
                    "slot {slot} is outside the shard's slots {}..{}",
                    range.start, range.end
                )));
            }
            list.push(Candidate {
                slot,
                key: RankKey {
                    pre: f64_at(at + 4),
                    rank: f64_at(at + 12),
                    post: f64_at(at + 20),
                },
            });
            at += RECORD;
        }
        lists.push(list);
    }
    Ok(ShardLists {
        first,
        slots,
        lists,
    })
}

/// Every class's candidates among `slots`, each class one of `reps`, the slots
/// numbered from `offset`.
pub fn class_lists(
    reps: Vec<Arc<ClassAd>>,
    slots: &[Arc<ClassAd>],
    knobs: &CycleKnobs,
    offset: u32,
) -> Vec<Vec<Candidate>> {
    let all: Vec<u32> = (0..reps.len() as u32).collect();
    let compiled = CompiledSlots::new(slots, &knobs.policy);
    let mut m = BatchMatcher::for_classes(reps, compiled);
    m.evaluate_classes(&all)
        .into_iter()
        .map(|(_, mut cands)| {
            if offset != 0 {
                cands.iter_mut().for_each(|c| c.slot += offset);
            }
            cands
        })
        .collect()
}

/// The lists of `results` (each the bytes of [`encode`]) merged per class, in
/// the negotiator's order ([`merge_best_first`]). Their slot ranges must tile one
/// range (from 0 to `pool.1` slots when `pool` is given, which also says how
/// many classes each must hold).
pub fn merge<B: AsRef<[u8]> + Sync>(
    results: &[B],
    pool: Option<(usize, u32)>,
) -> Result<ShardLists, ShardError> {
    let bad = ShardError;
    let mut parts: Vec<ShardLists> = results
        .par_iter()
        .map(|r| decode(r.as_ref()))
        .collect::<Result<_, _>>()?;
    // By where each starts, then by length: a shard of no slots (more shards
    // than slots) starts where a slot's shard does and comes before it, so
    // every order of the same results tiles the same range.
    parts.sort_by_key(|p| (p.first, p.slots));
    let first = parts.first().map_or(0, |p| p.first);
    let mut end = u64::from(first);
    for p in &parts {
        if u64::from(p.first) != end {
            return Err(bad(format!(
                "the shards' slots do not follow each other: one starts at slot {}, \
                 after slot {end}",
                p.first
            )));
        }
        end += u64::from(p.slots);
    }
    let classes = pool
        .map(|(c, _)| c)
        .or_else(|| parts.first().map(|p| p.lists.len()))
        .unwrap_or(0);
    if let Some((_, slots)) = pool {
        if first != 0 || end != u64::from(slots) {
            return Err(bad(format!(
                "the shards cover slots {first}..{end}, not the pool's 0..{slots}"
            )));
        }
    }
    if let Some(p) = parts.iter().find(|p| p.lists.len() != classes) {
        return Err(bad(format!(
            "the shard of slots from {} has {} classes, not {classes}",
            p.first,
            p.lists.len()
        )));
    }
    let lists = (0..classes)
        .into_par_iter()
        .map(|c| {
            let lists: Vec<&[Candidate]> = parts.iter().map(|p| &p.lists[c][..]).collect();
            merge_best_first(&lists)
        })
        .collect();
    Ok(ShardLists {
        first,
        slots: (end - u64::from(first)) as u32,
        lists,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;
    use crate::generate::{Pool, PoolSpec, Syntax};

    fn ads_of(text: &[u8]) -> Vec<Arc<ClassAd>> {
        read_ads(std::str::from_utf8(text).unwrap(), "generated")
            .unwrap()
            .into_iter()
            .map(Arc::new)
            .collect()
    }

    /// A generated pool's slots, and some of its jobs as classes.
    fn pool() -> (Vec<Arc<ClassAd>>, Vec<Arc<ClassAd>>) {
        let p = Pool::new(&PoolSpec {
            machines: 90,
            jobs: 60,
            seed: 5,
            submitters: None,
            signatures: None,
        });
        let (mut jobs, mut slots) = (Vec::new(), Vec::new());
        p.write_jobs(Syntax::Old, &mut jobs).unwrap();
        p.write_machines(Syntax::Old, &mut slots).unwrap();
        let jobs = ads_of(&jobs);
        (ads_of(&slots), jobs.into_iter().step_by(6).collect())
    }

    fn bits(lists: &[Vec<Candidate>]) -> Vec<Vec<(u32, [u64; 3])>> {
        lists
            .iter()
            .map(|l| {
                l.iter()
                    .map(|c| {
                        let k = c.key;
                        (
                            c.slot,
                            [k.pre.to_bits(), k.rank.to_bits(), k.post.to_bits()],
                        )
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn lists_read_back_bit_for_bit() {
        let key = |pre: f64, rank: f64, post: f64| RankKey { pre, rank, post };
        let shard = ShardLists {
            first: 10,
            slots: 5,
            lists: vec![
                vec![
                    Candidate {
                        slot: 14,
                        key: key(f64::NAN, -0.0, f64::INFINITY),
                    },
                    Candidate {
                        slot: 10,
                        key: key(1.5, -f64::MAX, 0.0),
                    },
                ],
                Vec::new(),
            ],
        };
        let back = decode(&encode(&shard)).unwrap();
        assert_eq!((back.first, back.slots), (10, 5));
        assert_eq!(bits(&back.lists), bits(&shard.lists));
    }

    #[test]
    fn bad_bytes_say_what_is_wrong() {
        let shard = ShardLists {
            first: 0,
            slots: 2,
            lists: vec![vec![Candidate {
                slot: 1,
                key: RankKey {
                    pre: 0.0,
                    rank: 0.0,
                    post: 0.0,
                },
            }]],
        };
        let good = encode(&shard);
        let err = |b: &[u8]| decode(b).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err(b"not a shard at all").contains("CASHARD1"));
        assert!(err(&good[..HEADER + 2]).contains("counts cut short"));
        assert!(err(&good[..good.len() - 1]).contains("1 candidates announced"));
        let mut outside = good.clone();
        outside[HEADER + 4..HEADER + 8].copy_from_slice(&7u32.to_le_bytes());
        assert!(err(&outside).contains("slot 7 is outside the shard's slots 0..2"));
    }

    /// The shards' lists, merged in any order, are the lists of the whole pool.
    #[test]
    fn shards_merged_are_the_whole_pool() {
        let (slots, reps) = pool();
        let knobs = CycleKnobs::default();
        let whole = class_lists(reps.clone(), &slots, &knobs, 0);
        assert!(whole.iter().any(|l| l.len() > 1), "some class matches");
        let cuts = [0, 17, 17, 60, slots.len()];
        let mut shards: Vec<Vec<u8>> = cuts
            .windows(2)
            .map(|w| {
                encode(&ShardLists {
                    first: w[0] as u32,
                    slots: (w[1] - w[0]) as u32,
                    lists: class_lists(reps.clone(), &slots[w[0]..w[1]], &knobs, w[0] as u32),
                })
            })
            .collect();
        shards.reverse();
        let merged = merge(&shards, Some((reps.len(), slots.len() as u32))).unwrap();
        assert_eq!((merged.first, merged.slots), (0, slots.len() as u32));
        assert_eq!(bits(&merged.lists), bits(&whole));
    }

    #[test]
    fn shards_that_do_not_tile_the_pool_are_refused() {
        let empty = |first: u32, slots: u32, classes: usize| {
            encode(&ShardLists {
                first,
                slots,
                lists: vec![Vec::new(); classes],
            })
        };
        let err = |shards: &[Vec<u8>], pool| merge(shards, pool).unwrap_err().to_string();
        assert!(err(&[empty(0, 5, 1), empty(6, 4, 1)], None).contains("do not follow"));
        assert!(
            err(&[empty(0, 5, 1), empty(5, 4, 1)], Some((1, 10))).contains("not the pool's 0..10")
        );
        assert!(err(&[empty(0, 5, 1), empty(5, 5, 2)], None).contains("has 2 classes, not 1"));
        let fine = merge(&[empty(5, 5, 1), empty(0, 5, 1)], Some((1, 10))).unwrap();
        assert_eq!((fine.first, fine.slots, fine.lists.len()), (0, 10, 1));
    }
}
