//! Each class's candidates as the cycle reads them (negotiator.md section 6): a
//! match bitmap per class, held whole (one bit per slot), each class's keys
//! held compactly (module `keys`), and the head of the class's best-first list,
//! worked out as far as the cycle reads it.
//!
//! Holding every class's sorted list costs classes x slots candidates (40 million
//! for 400 classes and 100,000 slots, 28 bytes each); the cycle reads a few of
//! each. So a first pass evaluates every class against every slot once (blocks
//! of slots on every core) and keeps, per class, its bitmap and its keys: a
//! code of one, two or four bytes per matching slot and the class's distinct
//! keys once. A head is made from them by a counting sort of the usable slots,
//! without evaluating anything; a reader that passes the end of a head asks
//! for one twice as long.
//!
//! So every (class, slot) pair is evaluated once, in the first pass, and a
//! class's head is made at most about log2(its matching slots) times; what a
//! head holds past its first length is at most twice what the cycle read of
//! it. Time and memory follow what the cycle does, with no budget past which
//! the cost changes. (Once, past a fixed budget of keys, the first pass kept
//! short heads alone and evaluated a class again each time the cycle read
//! past one; and heads were dropped past a bound on what was held, then made
//! again at each read: costs that grew with the cycle's reads times the
//! slots, issue 34's cliff.)
//!
//! Exact by construction: a head is the first candidates, in the total order of
//! [`crate::matching::batch::best_first`], of the slots that were usable when
//! it was made. Slots only stop being usable during a cycle, so the usable
//! slots now that come before a head's last candidate are all in the head; a
//! reader skips the others.

mod keys;

use crate::matching::batch::{BatchMatcher, Candidate, RankKey, WINDOW_CLASSES};
use keys::KeysBuilder;
pub use keys::{ClassKeys, KeyOrder};
use std::cmp::Ordering;
use std::ops::Range;
use std::sync::Arc;

/// How much of the classes' candidates the cycle holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CandidateBounds {
    /// How many candidates of a class a head starts with at most (each class
    /// starts with its share of `first_bytes` when that is less, and at least
    /// 256).
    pub first: usize,
    /// Bytes the first heads of all classes share.
    pub first_bytes: usize,
    /// Bytes of rank keys the first pass holds at once (it evaluates every
    /// class over a part of the slots at a time).
    pub window_bytes: usize,
}

impl Default for CandidateBounds {
    fn default() -> Self {
        CandidateBounds {
            first: usize::MAX,
            first_bytes: 512 << 20,
            window_bytes: 256 << 20,
        }
    }
}

impl CandidateBounds {
    /// Every class's whole list held, worked out in one pass over the slots.
    pub fn whole() -> CandidateBounds {
        CandidateBounds {
            first: usize::MAX,
            first_bytes: usize::MAX,
            window_bytes: usize::MAX,
        }
    }
}

/// The head of a class's best-first list, held compactly: the slots, and the
/// runs of equal keys (a class's keys take few values; a candidate then costs
/// about four bytes instead of 28).
#[derive(Clone, Debug, Default)]
pub struct Head {
    /// The first candidates' slots, among the slots usable when the head was
    /// made, best first (ties by slot order).
    slots: Vec<u32>,
    /// Runs of candidates whose keys are the same bits: the key and where the
    /// run ends in `slots`.
    runs: Vec<(RankKey, u32)>,
    /// True when the head holds all the class's candidates of that moment.
    pub complete: bool,
}

impl Head {
    /// A head of `cands`, sorted best first.
    fn of_sorted(cands: &[Candidate], complete: bool) -> Head {
        let mut runs: Vec<(RankKey, u32)> = Vec::new();
        let same = |a: &RankKey, b: &RankKey| {
            a.pre.to_bits() == b.pre.to_bits()
                && a.rank.to_bits() == b.rank.to_bits()
                && a.post.to_bits() == b.post.to_bits()
        };
        for (i, c) in cands.iter().enumerate() {
            match runs.last_mut() {
                Some((k, end)) if same(k, &c.key) => *end = i as u32 + 1,
                _ => runs.push((c.key, i as u32 + 1)),
            }
        }
        Head {
            slots: cands.iter().map(|c| c.slot).collect(),
            runs,
            complete,
        }
    }

    /// A head of `slots`, best first, with the runs of their keys.
    fn of_parts(slots: Vec<u32>, runs: Vec<(RankKey, u32)>, complete: bool) -> Head {
        Head {
            slots,
            runs,
            complete,
        }
    }

    /// How many candidates it holds.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// The head with each slot `s` numbered `map[s]` instead (the slots
    /// renumbered in the same order, as when slots before them come and
    /// go); `None` when `map` gives a slot it holds no number (`u32::MAX`).
    pub fn renumbered(&self, map: &[u32]) -> Option<Head> {
        let slots = self
            .slots
            .iter()
            .map(|&s| map.get(s as usize).copied().filter(|&t| t != u32::MAX))
            .collect::<Option<Vec<u32>>>()?;
        Some(Head {
            slots,
            runs: self.runs.clone(),
            complete: self.complete,
        })
    }

    /// True when it holds none.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Candidate `i`'s slot.
    pub fn slot(&self, i: usize) -> u32 {
        self.slots[i]
    }

    /// The run holding candidate `i`.
    fn run_of(&self, i: usize) -> usize {
        self.runs.partition_point(|&(_, end)| end as usize <= i)
    }

    /// Candidate `i`.
    pub fn get(&self, i: usize) -> Candidate {
        Candidate {
            slot: self.slots[i],
            key: self.runs[self.run_of(i)].0,
        }
    }

    /// The candidates from `i` on, in order.
    pub fn from(&self, i: usize) -> impl Iterator<Item = Candidate> + '_ {
        let mut run = self.run_of(i);
        (i..self.slots.len()).map(move |at| {
            while self.runs[run].1 as usize <= at {
                run += 1;
            }
            Candidate {
                slot: self.slots[at],
                key: self.runs[run].0,
            }
        })
    }

    /// The runs of one key from candidate `i` on, each with where its
    /// candidates are (the first clipped to start at `i`).
    pub fn runs_from(&self, i: usize) -> impl Iterator<Item = (RankKey, Range<usize>)> + '_ {
        let mut start = i;
        self.runs[self.run_of(i)..].iter().map(move |&(key, end)| {
            let run = start..end as usize;
            start = end as usize;
            (key, run)
        })
    }

    /// The slots of candidates `range`.
    pub fn slots_of(&self, range: Range<usize>) -> &[u32] {
        &self.slots[range]
    }

    /// Where the candidates after `cursor` (the last one read, `None` before the
    /// first) start.
    pub fn after(&self, cursor: &Option<Candidate>) -> usize {
        let Some(last) = cursor else { return 0 };
        // The runs better than the cursor's key come before it; then the runs
        // of keys of its order (equal keys order by slot); then the rest.
        let run = self.runs.partition_point(|(k, _)| k.better_than(&last.key));
        let end_of = |r: usize| {
            if r == 0 {
                0
            } else {
                self.runs[r - 1].1 as usize
            }
        };
        let start = end_of(run);
        let equal = self.runs[run..]
            .partition_point(|(k, _)| k.partial_cmp_key(&last.key) == Ordering::Equal);
        let end = end_of(run + equal);
        start + self.slots[start..end].partition_point(|&s| s <= last.slot)
    }
}

/// How long a head made from held keys starts at least (it doubles as the
/// cycle reads past it).
const KEYED_FIRST: usize = 256;

/// What a candidate of a head costs on average, for sharing out
/// [`CandidateBounds::first_bytes`] (four bytes of slot and part of a run of
/// equal keys).
const BYTES_PER_CANDIDATE: usize = 16;

/// The length a head of one of `classes` is first made with: at most
/// [`CandidateBounds::first`], and each class's share of
/// [`CandidateBounds::first_bytes`], at least [`KEYED_FIRST`] (making a head
/// longer costs a pass over its codes).
fn keyed_first(bounds: CandidateBounds, classes: usize) -> usize {
    let share = bounds.first_bytes / classes.max(1) / BYTES_PER_CANDIDATE;
    bounds.first.min(share.max(KEYED_FIRST))
}

/// The classes of `window` in groups of one `Rank` (by exact text; a class
/// whose `Rank` has none, alone), as indices into `window`: a group's keys
/// are gathered into one table (see [`KeysBuilder`]). Any grouping is exact
/// (a class takes another's number for a slot only for the same bits); this
/// one puts together the classes whose keys are mostly the same.
fn by_rank(matcher: &BatchMatcher, window: &[u32]) -> Vec<Vec<usize>> {
    let mut index: ahash::AHashMap<Vec<u8>, usize> = ahash::AHashMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, &c) in window.iter().enumerate() {
        let mut text = Vec::new();
        let known = match matcher.representative(c).get("Rank") {
            Some(e) => crate::syntax::same::exact_text(e.tree, e.id, &mut text),
            None => true,
        };
        let g = if known {
            let next = groups.len();
            *index.entry(text).or_insert(next)
        } else {
            groups.len()
        };
        if g == groups.len() {
            groups.push(Vec::new());
        }
        groups[g].push(i);
    }
    groups
}

/// Every class's bitmap, keys and head.
#[derive(Clone)]
pub struct Heads {
    bounds: CandidateBounds,
    blocks: usize,
    /// Per class, per block of 64 slots, which match (`blocks` words a class).
    masks: Vec<u64>,
    /// Per class, its keys held compactly (heads made from them evaluate
    /// nothing); none for a class whose whole list was given.
    keys: Vec<Option<Arc<ClassKeys>>>,
    /// Per class, its head.
    held: Vec<Arc<Head>>,
    /// (class, slot) pairs evaluated so far.
    pub(super) evaluations: u64,
    /// Heads made after the first pass.
    pub(super) made: u64,
}

impl Heads {
    /// Every class of `matcher` against every slot: bitmaps, keys and first
    /// heads. Classes are taken a window at a time (as many as the batch
    /// matcher compiles at once), each window over parts of the slots whose
    /// keys fit [`CandidateBounds::window_bytes`]; the classes' codes grow part
    /// by part.
    pub fn first_pass(mut matcher: BatchMatcher, bounds: CandidateBounds) -> Heads {
        use rayon::prelude::*;
        let classes = matcher.class_count();
        let slots = matcher.slot_count();
        let blocks = slots.div_ceil(64);
        let mut heads = Heads {
            bounds,
            blocks,
            masks: vec![0; classes * blocks],
            keys: Vec::with_capacity(classes),
            held: Vec::with_capacity(classes),
            evaluations: 0,
            made: 0,
        };
        let first = keyed_first(bounds, classes);
        // The first heads are made over every slot (a reader skips those no
        // longer available).
        let all_slots = vec![u64::MAX; blocks];
        let all: Vec<u32> = (0..classes as u32).collect();
        for window in all.chunks(WINDOW_CLASSES) {
            // Keys are held about three times while a part is gathered
            // (blocks, lists, the part's codes).
            let per_block = window.len() * 64 * 3 * std::mem::size_of::<Candidate>();
            let part = (bounds.window_bytes / per_block).clamp(1, blocks.max(1));
            let groups = by_rank(&matcher, window);
            let mut builders: Vec<KeysBuilder> =
                groups.iter().map(|g| KeysBuilder::new(g.len())).collect();
            let mut b0 = 0;
            while b0 < blocks {
                let range = b0..(b0 + part).min(blocks);
                let results = matcher.evaluate_keyed(window, range.clone());
                heads
                    .masks
                    .par_chunks_mut(blocks)
                    .skip(window[0] as usize)
                    .zip(results.par_iter())
                    .for_each(|(mask, (m, _))| mask[range.clone()].copy_from_slice(m));
                let first = (range.start * 64) as u32;
                let len = (range.end * 64).min(slots) - range.start * 64;
                builders
                    .par_iter_mut()
                    .zip(groups.par_iter())
                    .for_each(|(b, g)| {
                        let cands: Vec<&[Candidate]> =
                            g.iter().map(|&i| &results[i].1[..]).collect();
                        b.add(&cands, first, len);
                    });
                b0 = range.end;
            }
            let finished: Vec<Vec<ClassKeys>> =
                builders.into_par_iter().map(KeysBuilder::finish).collect();
            let mut of_class: Vec<Option<ClassKeys>> = vec![None; window.len()];
            for (g, keys) in groups.iter().zip(finished) {
                for (&i, k) in g.iter().zip(keys) {
                    of_class[i] = Some(k);
                }
            }
            // The first heads are made here, on every core.
            let masks = &heads.masks;
            let made: Vec<(ClassKeys, Head)> = of_class
                .into_par_iter()
                .zip(window.par_iter())
                .map(|(k, &c)| {
                    let keys = k.expect("every class is in a group");
                    let mask = &masks[c as usize * blocks..(c as usize + 1) * blocks];
                    let head = keys.head(mask, &all_slots, first);
                    (keys, head)
                })
                .collect();
            for (k, head) in made {
                heads.keys.push(Some(Arc::new(k)));
                heads.held.push(Arc::new(head));
            }
        }
        heads.evaluations = matcher.stats().pairs;
        // The compiled slots and classes are freed while the cycle begins (on
        // one thread, mostly): freeing them was 4% of the first pass at
        // 100,000 slots, with the cycle waiting. On one thread they would be
        // freed only after the cycle, held through it (0.7 GB at 400,000
        // slots): they are freed here.
        if rayon::current_num_threads() > 1 {
            rayon::spawn(move || drop(matcher));
        } else {
            drop(matcher);
        }
        heads
    }

    /// How long the first head of each of `classes` classes is under
    /// `bounds`, as [`Heads::first_pass`] and [`Heads::of_made`] make them.
    pub fn first_len(bounds: CandidateBounds, classes: usize) -> usize {
        keyed_first(bounds, classes)
    }

    /// Heads of every class's bitmap (`blocks` words a class), keys and first
    /// head ([`ClassKeys::head`] of [`Heads::first_len`] over every slot),
    /// worked out elsewhere (a living pool keeps them across cycles and
    /// makes again only those of the classes whose candidates changed),
    /// `evaluations` the pairs evaluated to get them.
    pub fn of_made(
        bounds: CandidateBounds,
        blocks: usize,
        masks: Vec<u64>,
        keys: Vec<Arc<ClassKeys>>,
        held: Vec<Arc<Head>>,
        evaluations: u64,
    ) -> Heads {
        let classes = keys.len();
        assert_eq!(masks.len(), classes * blocks, "a bitmap per class");
        assert_eq!(held.len(), classes, "a head per class");
        Heads {
            bounds,
            blocks,
            masks,
            keys: keys.into_iter().map(Some).collect(),
            held,
            evaluations,
            made: 0,
        }
    }

    /// Heads given whole, with their bitmaps (`blocks` words a class).
    pub fn given(blocks: usize, masks: Vec<u64>, lists: Vec<Vec<Candidate>>) -> Heads {
        let classes = lists.len();
        let held: Vec<Arc<Head>> = lists
            .iter()
            .map(|l| Arc::new(Head::of_sorted(l, true)))
            .collect();
        Heads {
            bounds: CandidateBounds::whole(),
            blocks,
            masks,
            keys: vec![None; classes],
            held,
            evaluations: 0,
            made: 0,
        }
    }

    /// How many classes there are.
    pub fn class_count(&self) -> usize {
        self.held.len()
    }

    /// Class `c`'s bitmap: per block of 64 slots, which match.
    pub fn mask(&self, c: u32) -> &[u64] {
        let at = c as usize * self.blocks;
        &self.masks[at..at + self.blocks]
    }

    /// True when class `c` and slot `s` match.
    pub fn matches(&self, c: u32, s: u32) -> bool {
        self.mask(c)
            .get(s as usize / 64)
            .is_some_and(|b| b & (1 << (s % 64)) != 0)
    }

    /// True when some slot of `usable` (per block of 64, the slots a head may
    /// hold) matches class `c`.
    pub fn any_usable(&self, c: u32, usable: &[u64]) -> bool {
        self.mask(c).iter().zip(usable).any(|(m, u)| m & u != 0)
    }

    /// Class `c`'s head.
    pub fn head(&self, c: u32) -> Arc<Head> {
        self.held[c as usize].clone()
    }

    /// Class `c`'s head made longer (twice as long, at least the first length),
    /// over the slots `usable` now: a pass over the class's codes.
    pub fn extend(&mut self, c: u32, usable: &[u64]) -> Arc<Head> {
        let head = &self.held[c as usize];
        if head.complete {
            return head.clone();
        }
        let n = head
            .len()
            .saturating_mul(2)
            .max(keyed_first(self.bounds, self.held.len()));
        self.made += 1;
        let longer = Arc::new(self.head_from_keys(c, usable, n));
        self.held[c as usize] = longer.clone();
        longer
    }

    /// Class `c`'s whole list over the slots `usable` now, not held.
    pub fn whole(&self, c: u32, usable: &[u64]) -> Arc<Head> {
        let head = &self.held[c as usize];
        if head.complete {
            return head.clone();
        }
        Arc::new(self.head_from_keys(c, usable, usize::MAX))
    }

    /// The best `n` candidates of class `c` among `usable` slots, from its
    /// keys.
    fn head_from_keys(&self, c: u32, usable: &[u64], n: usize) -> Head {
        match &self.keys[c as usize] {
            Some(keys) => keys.head(self.mask(c), usable, n),
            // A class without keys had its whole list given: its head is
            // complete, so it is never made.
            None => Head {
                complete: true,
                ..Head::default()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::batch::{best_first, RankKey};

    /// True when slot `s`'s bit is set in `bits` (per block of 64 slots).
    fn is_set(bits: &[u64], s: u32) -> bool {
        bits[s as usize / 64] & (1 << (s % 64)) != 0
    }

    fn cand(slot: u32, pre: f64) -> Candidate {
        Candidate {
            slot,
            key: RankKey {
                pre,
                rank: 0.0,
                post: 0.0,
            },
        }
    }

    /// The best `n` of `cands`, as a head.
    fn head_of(mut cands: Vec<Candidate>, n: usize) -> Head {
        cands.sort_by(best_first);
        let complete = n >= cands.len();
        cands.truncate(n);
        Head::of_sorted(&cands, complete)
    }

    /// Heads over 300 slots that all match each of three classes, within
    /// `bounds`.
    fn three_classes(bounds: CandidateBounds) -> Heads {
        use crate::matching::batch::CompiledSlots;
        use crate::matching::NegotiatorPolicy;
        let text: String = (0..300)
            .map(|i| {
                format!(
                    "Name = \"slot{i}\"\nCpus = 4\nMemory = {}\nRequirements = true\n\n",
                    i % 7
                )
            })
            .collect();
        let slots: Vec<Arc<crate::ad::ClassAd>> = crate::ad::read_ads(&text, "slots")
            .expect("ads")
            .into_iter()
            .map(Arc::new)
            .collect();
        let reps: Vec<Arc<crate::ad::ClassAd>> = (1..=3)
            .map(|c| {
                // Class 2 ranks the other way: its head holds other slots.
                let sign = if c == 2 { "-" } else { "" };
                let job = format!(
                    "RequestCpus = {c}\nRank = {sign}TARGET.Memory\nRequirements = TARGET.Cpus >= {c}\n"
                );
                Arc::new(crate::ad::read_ads(&job, "job").expect("ad").remove(0))
            })
            .collect();
        let compiled = CompiledSlots::new(&slots, &NegotiatorPolicy::default());
        let matcher = BatchMatcher::for_classes(reps, compiled);
        Heads::first_pass(matcher, bounds)
    }

    fn first(first: usize) -> CandidateBounds {
        CandidateBounds {
            first,
            first_bytes: 1,
            window_bytes: 1,
        }
    }

    /// A head read past its end is made twice as long from the class's keys,
    /// and is the start of the whole list.
    #[test]
    fn heads_grow_by_doubling_from_the_first_length() {
        let mut heads = three_classes(first(8));
        let usable = vec![u64::MAX; heads.blocks];
        let h = heads.head(0);
        assert_eq!((h.len(), h.complete), (8, false));
        let longer = heads.extend(0, &usable);
        assert_eq!((longer.len(), longer.complete), (16, false));
        let whole = heads.whole(0, &usable);
        assert_eq!((whole.len(), whole.complete), (300, true));
        assert_eq!(all(&longer), all(&whole)[..16]);
        assert_eq!(heads.evaluations, 3 * 300);
    }

    /// Heads made longer as slots are taken are the starts of each class's
    /// whole list over the slots still usable; a class's head is made about
    /// log2(its slots) times, and nothing is evaluated again.
    #[test]
    fn heads_made_longer_are_the_usable_start_of_the_list_and_evaluate_nothing() {
        let mut heads = three_classes(first(4));
        let whole = three_classes(CandidateBounds::whole());
        let mut usable = vec![u64::MAX; heads.blocks];
        let mut rng = crate::test_rng::TestRng::new(11);
        for c in 0..3u32 {
            let mut made = 0;
            let mut len = heads.head(c).len();
            assert_eq!(len, 4);
            while !heads.head(c).complete {
                // A few more slots taken.
                for _ in 0..5 {
                    let s = (rng.next() % 300) as usize;
                    usable[s / 64] &= !(1 << (s % 64));
                }
                let want: Vec<Candidate> = whole
                    .head(c)
                    .from(0)
                    .filter(|cand| is_set(&usable, cand.slot))
                    .collect();
                let h = heads.extend(c, &usable);
                made += 1;
                len *= 2;
                assert_eq!(h.len(), len.min(want.len()), "class {c}");
                assert_eq!(all(&h), want[..h.len()], "class {c}");
                assert_eq!(h.complete, h.len() == want.len());
            }
            assert!(made <= 7, "{made} heads made for class {c}");
        }
        assert_eq!(heads.evaluations, 3 * 300);
    }

    fn all(h: &Head) -> Vec<Candidate> {
        h.from(0).collect()
    }

    /// The best `n`, by selection as they come, are the first `n` of the sorted
    /// list, with their keys.
    #[test]
    fn a_head_is_the_start_of_the_sorted_list() {
        let mut x = 7u64;
        let cands: Vec<Candidate> = (0..5000)
            .map(|s| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                cand(s, ((x >> 40) % 17) as f64)
            })
            .collect();
        let mut sorted = cands.clone();
        sorted.sort_by(best_first);
        for n in [0, 1, 2, 16, 700, 4999, 5000, 5001] {
            let h = head_of(cands.clone(), n);
            assert_eq!(all(&h), sorted[..n.min(5000)], "{n}");
            assert_eq!(h.complete, n >= 5000);
            assert!(h.runs.len() <= 17);
            for i in (0..h.len()).step_by(97) {
                assert_eq!(h.get(i), sorted[i]);
                assert_eq!(h.from(i).next(), Some(sorted[i]));
                // Read run by run, from anywhere, the same candidates.
                let by_runs: Vec<Candidate> = h
                    .runs_from(i)
                    .flat_map(|(key, run)| {
                        h.slots_of(run)
                            .iter()
                            .map(move |&slot| Candidate { slot, key })
                    })
                    .collect();
                assert_eq!(by_runs, sorted[i..n.min(5000)], "{n} from {i}");
            }
        }
    }

    /// Where reading goes on after any cursor (in the head or not, keys of
    /// one order with other bits among them) is past every candidate not
    /// after it in the whole order.
    #[test]
    fn after_a_cursor_is_the_first_candidate_past_it() {
        let mut rng = crate::test_rng::TestRng::new(3);
        let mut next = move || rng.next();
        let values = [0.0, -0.0, 1.0, 2.0, f64::NAN, f64::NEG_INFINITY];
        let cands: Vec<Candidate> = (0..400)
            .map(|s| cand(s, values[(next() % 6) as usize]))
            .collect();
        let h = head_of(cands.clone(), 300);
        for _ in 0..500 {
            let c = cand((next() % 420) as u32, values[(next() % 6) as usize]);
            let want = (0..h.len())
                .find(|&i| best_first(&h.get(i), &c) == Ordering::Greater)
                .unwrap_or(h.len());
            assert_eq!(h.after(&Some(c)), want, "{c:?}");
        }
    }

    #[test]
    fn reading_on_after_a_cursor_skips_what_was_read() {
        let h = head_of(vec![cand(3, 1.0), cand(1, 2.0), cand(2, 1.0)], 10);
        assert_eq!(h.after(&None), 0);
        assert_eq!(h.after(&Some(cand(1, 2.0))), 1);
        assert_eq!(h.after(&Some(cand(2, 1.0))), 2);
        // A cursor no longer in the head (its slot was taken): the next after it.
        assert_eq!(h.after(&Some(cand(0, 1.5))), 1);
        assert_eq!(h.after(&Some(cand(9, 0.0))), 3);
    }
}
