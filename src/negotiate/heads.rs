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
//! for one twice as long. Heads are dropped, least recently read first, past
//! [`CandidateBounds::held_bytes`], and made again when asked for.
//!
//! Past [`CandidateBounds::keys_bytes`] the first pass keeps, for the classes
//! left, the best [`CandidateBounds::first`] candidates only (chosen by
//! selection rather than a sort), and a head read past its end is evaluated
//! again over the blocks where the class still has usable slots.
//!
//! Exact by construction: a head is the first candidates, in the total order of
//! [`best_first`], of the slots that were usable when it was made. Slots only
//! stop being usable during a cycle, so the usable slots now that come before a
//! head's last candidate are all in the head; a reader skips the others.

mod keys;

use crate::matching::batch::{
    best_first, sort_best_first, BatchMatcher, Candidate, RankKey, WINDOW_CLASSES,
};
use keys::{ClassKeys, KeysBuilder};
use std::cmp::Ordering;
use std::sync::{Arc, Mutex};

/// How much of the classes' candidates the cycle holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CandidateBounds {
    /// How many candidates of a class a head starts with at most (the first
    /// pass gives each class its share of `held_bytes` when that is less).
    pub first: usize,
    /// Bytes of heads held over all classes: past it, the least recently read
    /// are dropped (and worked out again when asked for).
    pub held_bytes: usize,
    /// Bytes of rank keys the first pass holds at once (it evaluates every
    /// class over a part of the slots at a time).
    pub window_bytes: usize,
    /// Bytes of classes' keys held compactly (module `keys`): heads of a class
    /// whose keys are held are made without evaluating anything. Past it, the
    /// first pass keeps heads only, and those are evaluated again when the
    /// cycle reads past them.
    pub keys_bytes: usize,
}

impl Default for CandidateBounds {
    fn default() -> Self {
        CandidateBounds {
            first: usize::MAX,
            held_bytes: 1 << 30,
            window_bytes: 256 << 20,
            keys_bytes: 4 << 30,
        }
    }
}

impl CandidateBounds {
    /// Every class's whole list held, worked out at once (no keys held: the
    /// lists are).
    pub fn whole() -> CandidateBounds {
        CandidateBounds {
            first: usize::MAX,
            held_bytes: usize::MAX,
            window_bytes: usize::MAX,
            keys_bytes: 0,
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

    fn bytes(&self) -> usize {
        self.slots.len() * 4 + self.runs.len() * std::mem::size_of::<(RankKey, u32)>() + 64
    }
}

/// How long a head made from held keys starts at least (it doubles as the
/// cycle reads past it).
const KEYED_FIRST: usize = 256;

/// What a candidate of a head costs on average, for sharing out what may be
/// held (four bytes of slot and part of a run of equal keys).
const HELD_BYTES_PER_CANDIDATE: usize = 16;

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

/// A class's best candidates gathered part of the slots by part: each part's
/// best `n`, sorted and held compactly, merged at the end.
struct Parts {
    n: usize,
    parts: Vec<Head>,
    dropped: bool,
}

impl Parts {
    fn new(n: usize) -> Parts {
        Parts {
            n,
            parts: Vec::new(),
            dropped: false,
        }
    }

    fn add(&mut self, mut cands: Vec<Candidate>) {
        if cands.len() > self.n {
            cands.select_nth_unstable_by(self.n, best_first);
            cands.truncate(self.n);
            self.dropped = true;
        }
        sort_best_first(&mut cands);
        if !cands.is_empty() {
            self.parts.push(Head::of_sorted(&cands, true));
        }
    }

    fn bytes(&self) -> usize {
        self.parts.iter().map(Head::bytes).sum()
    }

    /// Keeps the best `n` only.
    fn shrink(&mut self, n: usize) {
        if n >= self.n {
            return;
        }
        self.n = n;
        let merged = self.merged();
        self.dropped |= !merged.complete;
        self.parts = vec![merged];
    }

    fn merged(&self) -> Head {
        let mut best = Best::new(self.n);
        for p in &self.parts {
            best.extend(p.from(0));
        }
        best.head()
    }

    fn head(self) -> Head {
        let mut h = self.merged();
        h.complete &= !self.dropped;
        h
    }
}

/// The best `n` of candidates pushed in any order, kept in at most about `2n`
/// places: past that, the best `n` are selected and the rest dropped.
struct Best {
    n: usize,
    kept: Vec<Candidate>,
    dropped: bool,
}

impl Best {
    fn new(n: usize) -> Best {
        Best {
            n,
            kept: Vec::new(),
            dropped: false,
        }
    }

    fn extend(&mut self, cands: impl IntoIterator<Item = Candidate>) {
        for c in cands {
            self.kept.push(c);
            if self.kept.len() >= self.n.saturating_mul(2).max(1024) {
                self.trim();
            }
        }
    }

    fn trim(&mut self) {
        if self.kept.len() > self.n {
            self.kept.select_nth_unstable_by(self.n, best_first);
            self.kept.truncate(self.n);
            self.dropped = true;
        }
    }

    fn head(mut self) -> Head {
        self.trim();
        sort_best_first(&mut self.kept);
        Head::of_sorted(&self.kept, !self.dropped)
    }
}

/// True when slot `s`'s bit is set in `bits` (per block of 64 slots).
fn is_set(bits: &[u64], s: u32) -> bool {
    bits[s as usize / 64] & (1 << (s % 64)) != 0
}

/// Every class's bitmap and the heads held.
#[derive(Clone)]
pub struct Heads {
    /// Evaluates heads again (none when every list was given whole).
    matcher: Option<Arc<Mutex<BatchMatcher>>>,
    bounds: CandidateBounds,
    /// The length a head is first made with: [`CandidateBounds::first`], or each
    /// class's share of what may be held when the first pass could not hold more.
    first: usize,
    blocks: usize,
    /// Per class, per block of 64 slots, which match (`blocks` words a class).
    masks: Vec<u64>,
    /// Per class, its keys held compactly (heads made from them evaluate
    /// nothing), when the first pass could hold them.
    keys: Vec<Option<Arc<ClassKeys>>>,
    held: Vec<Option<Arc<Head>>>,
    /// Per class, when it was last read (for dropping the least recent).
    read_at: Vec<u64>,
    clock: u64,
    bytes: usize,
    /// (class, slot) pairs evaluated so far.
    pub(super) evaluations: u64,
}

impl Heads {
    /// Every class of `matcher` against every slot: bitmaps and first heads.
    /// Classes are taken a window at a time (as many as the batch matcher
    /// compiles at once), each window over parts of the slots whose keys fit
    /// [`CandidateBounds::window_bytes`]; a class keeps the best of each part.
    pub fn first_pass(mut matcher: BatchMatcher, bounds: CandidateBounds) -> Heads {
        use rayon::prelude::*;
        let classes = matcher.class_count();
        let slots = matcher.slot_count();
        let blocks = slots.div_ceil(64);
        let mut heads = Heads {
            matcher: None,
            bounds,
            first: bounds.first,
            blocks,
            masks: vec![0; classes * blocks],
            keys: Vec::with_capacity(classes),
            held: Vec::with_capacity(classes),
            read_at: vec![0; classes],
            clock: 0,
            bytes: 0,
            evaluations: 0,
        };
        let all: Vec<u32> = (0..classes as u32).collect();
        let mut held_before = 0;
        let mut keys_held = 0;
        for window in all.chunks(WINDOW_CLASSES) {
            // Keys are held about three times while a part is gathered
            // (blocks, lists, the part's selection).
            let per_block = window.len() * 64 * 3 * std::mem::size_of::<Candidate>();
            let part = (bounds.window_bytes / per_block).clamp(1, blocks.max(1));
            if keys_held < bounds.keys_bytes {
                let groups = by_rank(&matcher, window);
                let mut builders: Vec<KeysBuilder> =
                    groups.iter().map(|g| KeysBuilder::new(g.len())).collect();
                let mut b0 = 0;
                while b0 < blocks {
                    let range = b0..(b0 + part).min(blocks);
                    let results = matcher.evaluate_keyed(window, range.clone(), None);
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
                let mut of_class: Vec<Option<(ClassKeys, usize)>> = vec![None; window.len()];
                for (g, keys) in groups.iter().zip(finished) {
                    for (&i, k) in g.iter().zip(keys) {
                        of_class[i] = Some((k, g.len()));
                    }
                }
                // The first heads are made here, on every core, over every
                // slot (a reader skips those no longer available).
                let all_slots = vec![u64::MAX; blocks];
                let first = bounds.first.min(
                    (bounds.held_bytes / 2 / classes.max(1) / HELD_BYTES_PER_CANDIDATE)
                        .max(KEYED_FIRST),
                );
                let masks = &heads.masks;
                let made: Vec<(ClassKeys, usize, Head)> = of_class
                    .into_par_iter()
                    .zip(window.par_iter())
                    .map(|(k, &c)| {
                        let (keys, of) = k.expect("every class is in a group");
                        let mask = &masks[c as usize * blocks..(c as usize + 1) * blocks];
                        let head = keys.head(mask, &all_slots, first);
                        (keys, of, head)
                    })
                    .collect();
                for (k, of, head) in made {
                    keys_held += k.bytes(of);
                    heads.keys.push(Some(Arc::new(k)));
                    if heads.bytes + head.bytes() <= bounds.held_bytes {
                        heads.bytes += head.bytes();
                        heads.held.push(Some(Arc::new(head)));
                    } else {
                        heads.held.push(None);
                    }
                }
                continue;
            }
            let mut parts: Vec<Parts> = window.iter().map(|_| Parts::new(bounds.first)).collect();
            let mut b0 = 0;
            while b0 < blocks {
                let range = b0..(b0 + part).min(blocks);
                let results = matcher.evaluate_keyed(window, range.clone(), None);
                let masks = &mut heads.masks;
                parts
                    .par_iter_mut()
                    .zip(results)
                    .zip(masks.par_chunks_mut(blocks).skip(window[0] as usize))
                    .for_each(|((parts, (m, cands)), mask)| {
                        mask[range.clone()].copy_from_slice(&m);
                        parts.add(cands);
                    });
                // Past what may be held, every class keeps its share only.
                let held: usize = held_before + parts.iter().map(Parts::bytes).sum::<usize>();
                if held > bounds.held_bytes {
                    let share = bounds.held_bytes / 2 / classes.max(1) / HELD_BYTES_PER_CANDIDATE;
                    heads.first = heads.first.min(share.max(1));
                    parts.par_iter_mut().for_each(|p| p.shrink(share.max(1)));
                }
                b0 = range.end;
            }
            let made: Vec<Head> = parts.into_par_iter().map(Parts::head).collect();
            for head in made {
                heads.bytes += head.bytes();
                heads.keys.push(None);
                heads.held.push(Some(Arc::new(head)));
            }
            held_before = heads.bytes;
        }
        heads.evaluations = matcher.stats().pairs;
        if heads.held.iter().flatten().any(|h| !h.complete) {
            heads.matcher = Some(Arc::new(Mutex::new(matcher)));
        }
        heads
    }

    /// Heads given whole, with their bitmaps (`blocks` words a class).
    pub fn given(blocks: usize, masks: Vec<u64>, lists: Vec<Vec<Candidate>>) -> Heads {
        let classes = lists.len();
        let held: Vec<Option<Arc<Head>>> = lists
            .iter()
            .map(|l| Some(Arc::new(Head::of_sorted(l, true))))
            .collect();
        Heads {
            matcher: None,
            bounds: CandidateBounds::whole(),
            first: usize::MAX,
            blocks,
            masks,
            keys: vec![None; classes],
            bytes: held.iter().flatten().map(|h| h.bytes()).sum(),
            held,
            read_at: vec![0; classes],
            clock: 0,
            evaluations: 0,
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

    /// Class `c`'s head, worked out over `usable` slots when not held.
    pub fn head(&mut self, c: u32, usable: &[u64]) -> Arc<Head> {
        self.clock += 1;
        self.read_at[c as usize] = self.clock;
        if let Some(h) = &self.held[c as usize] {
            return h.clone();
        }
        let first = self.first_length(c);
        self.make(c, usable, first)
    }

    /// The length class `c`'s head is first made with: a class whose keys are
    /// held starts short (making it longer costs a pass over its codes).
    fn first_length(&self, c: u32) -> usize {
        if self.keys[c as usize].is_some() {
            // Each class's share of what may be held: the heads of every
            // class fit at once, and a head is made again seldom.
            let share =
                self.bounds.held_bytes / 2 / self.held.len().max(1) / HELD_BYTES_PER_CANDIDATE;
            self.first.min(share.max(KEYED_FIRST))
        } else {
            self.first
        }
    }

    /// Class `c`'s head made longer (twice as long, at least the first length),
    /// over the slots `usable` now.
    ///
    /// Other classes whose heads the cycle has mostly used (half their slots
    /// taken) are about to be made longer too: they are, in the same pass over
    /// the slots, while what is held stays within its bound. One class alone
    /// costs a pass over every slot (its columns built for it alone); at 400,000
    /// slots and 2,000 classes the cycle made heads longer one by one for minutes.
    pub fn extend(&mut self, c: u32, usable: &[u64]) -> Arc<Head> {
        if self.keys[c as usize].is_some() {
            self.read_at[c as usize] = self.clock;
            let n = self.longer(c);
            return self.make(c, usable, n);
        }
        let mut batch = vec![(c, self.longer(c))];
        let mut growth = self.held[c as usize].as_ref().map_or(0, |h| h.bytes());
        for k in 0..self.held.len() as u32 {
            // Looking costs a pass over the heads held: none once nothing more
            // may be held.
            if batch.len() >= WINDOW_CLASSES || self.bytes + growth >= self.bounds.held_bytes {
                break;
            }
            let Some(h) = self.held[k as usize].as_ref() else {
                continue;
            };
            if k == c || h.complete || h.is_empty() || self.keys[k as usize].is_some() {
                continue;
            }
            if self.bytes + growth + h.bytes() > self.bounds.held_bytes {
                continue;
            }
            let taken = h.slots.iter().filter(|&&s| !is_set(usable, s)).count();
            if taken * 2 < h.len() {
                continue;
            }
            growth += h.bytes();
            batch.push((k, self.longer(k)));
        }
        let made = self.evaluate_batch(&batch, usable);
        for ((k, _), head) in batch.iter().zip(made) {
            self.read_at[*k as usize] = self.clock;
            self.hold(*k, Arc::new(head));
        }
        self.drop_least_recent(c);
        self.held[c as usize].clone().expect("just made")
    }

    /// The length class `c`'s head is made longer to.
    fn longer(&self, c: u32) -> usize {
        let held = self.held[c as usize].as_ref().map_or(0, |h| h.len());
        held.saturating_mul(2).max(self.first_length(c)).max(1)
    }

    /// Class `c`'s whole list over the slots `usable` now, not held.
    pub fn whole(&mut self, c: u32, usable: &[u64]) -> Arc<Head> {
        if let Some(h) = &self.held[c as usize] {
            if h.complete {
                return h.clone();
            }
        }
        Arc::new(self.evaluate(c, usable, usize::MAX))
    }

    /// Makes and holds class `c`'s head of `n` candidates over `usable` slots.
    fn make(&mut self, c: u32, usable: &[u64], n: usize) -> Arc<Head> {
        let head = Arc::new(self.evaluate(c, usable, n));
        self.hold(c, head.clone());
        self.drop_least_recent(c);
        head
    }

    /// Holds `head` as class `c`'s.
    fn hold(&mut self, c: u32, head: Arc<Head>) {
        self.bytes += head.bytes();
        if let Some(old) = self.held[c as usize].replace(head) {
            self.bytes -= old.bytes();
        }
    }

    /// The best `n` candidates of each `(class, n)` of `batch` among `usable`
    /// slots, in one pass over the slots: parts of them whose keys fit
    /// [`CandidateBounds::window_bytes`], each class keeping its best of each.
    fn evaluate_batch(&mut self, batch: &[(u32, usize)], usable: &[u64]) -> Vec<Head> {
        use rayon::prelude::*;
        let Some(matcher) = self.matcher.clone() else {
            return batch
                .iter()
                .map(|_| Head {
                    complete: true,
                    ..Head::default()
                })
                .collect();
        };
        let classes: Vec<u32> = batch.iter().map(|&(k, _)| k).collect();
        // The usable slots any of the classes matches.
        let mut only = usable.to_vec();
        for (b, o) in only.iter_mut().enumerate() {
            *o &= classes.iter().fold(0, |acc, &k| acc | self.mask(k)[b]);
        }
        let per_block = classes.len() * 64 * 3 * std::mem::size_of::<Candidate>();
        let part = (self.bounds.window_bytes / per_block).clamp(1, self.blocks.max(1));
        let mut parts: Vec<Parts> = batch.iter().map(|&(_, n)| Parts::new(n)).collect();
        let mut m = matcher.lock().unwrap_or_else(|p| p.into_inner());
        let before = m.stats().pairs;
        let mut b0 = 0;
        while b0 < self.blocks {
            let range = b0..(b0 + part).min(self.blocks);
            let results = m.evaluate_keyed(&classes, range.clone(), Some(&only));
            parts
                .par_iter_mut()
                .zip(results)
                .for_each(|(p, (_, cands))| {
                    p.add(
                        cands
                            .into_iter()
                            .filter(|c| is_set(&only, c.slot))
                            .collect(),
                    )
                });
            b0 = range.end;
        }
        self.evaluations += m.stats().pairs - before;
        drop(m);
        parts.into_par_iter().map(Parts::head).collect()
    }

    /// The best `n` candidates of class `c` among `usable` slots.
    fn evaluate(&mut self, c: u32, usable: &[u64], n: usize) -> Head {
        if let Some(keys) = &self.keys[c as usize] {
            return keys.head(self.mask(c), usable, n);
        }
        let Some(matcher) = self.matcher.clone() else {
            // Without a matcher every head is complete and never dropped
            // (see `drop_least_recent`): nothing is left to work out.
            return Head {
                complete: true,
                ..Head::default()
            };
        };
        let only: Vec<u64> = self
            .mask(c)
            .iter()
            .zip(usable)
            .map(|(m, u)| m & u)
            .collect();
        let mut m = matcher.lock().unwrap_or_else(|p| p.into_inner());
        let before = m.stats().pairs;
        let (_, cands) = m
            .evaluate_keyed(&[c], 0..self.blocks, Some(&only))
            .pop()
            .expect("one class asked");
        self.evaluations += m.stats().pairs - before;
        drop(m);
        let mut best = Best::new(n);
        best.extend(cands.into_iter().filter(|cand| {
            let s = cand.slot as usize;
            only[s / 64] & (1 << (s % 64)) != 0
        }));
        best.head()
    }

    /// Past the bound, drops the heads read least recently (never `keep`'s)
    /// until a quarter of the bound is free. Only a head that can be made
    /// again (from its keys, or there is a matcher) is dropped.
    fn drop_least_recent(&mut self, keep: u32) {
        if self.bytes <= self.bounds.held_bytes {
            return;
        }
        let again = |k: u32| self.matcher.is_some() || self.keys[k as usize].is_some();
        let mut order: Vec<u32> = (0..self.held.len() as u32)
            .filter(|&k| k != keep && self.held[k as usize].is_some() && again(k))
            .collect();
        order.sort_unstable_by_key(|&k| self.read_at[k as usize]);
        let target = self.bounds.held_bytes / 4 * 3;
        for k in order {
            if self.bytes <= target {
                break;
            }
            if let Some(h) = self.held[k as usize].take() {
                self.bytes -= h.bytes();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::batch::RankKey;

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

    fn head_of(cands: Vec<Candidate>, n: usize) -> Head {
        let mut best = Best::new(n);
        best.extend(cands);
        best.head()
    }

    /// Heads over 300 slots that all match each of three classes, the first
    /// pass held within `held_bytes`.
    fn shrunk_heads(held_bytes: usize) -> Heads {
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
        let bounds = CandidateBounds {
            first: usize::MAX,
            held_bytes,
            window_bytes: usize::MAX,
            keys_bytes: 0,
        };
        Heads::first_pass(matcher, bounds)
    }

    /// A head made longer past the first pass's bound grows by doubling from
    /// the class's share, not to the whole list: before, every extension after
    /// the first pass had shrunk the heads worked out and held whole lists,
    /// which pushed others out to be worked out again (the cliff at 400,000
    /// slots and 2,000 classes).
    #[test]
    fn heads_past_the_bound_grow_from_their_share() {
        // A share of 8 candidates a class: 8 x 16 bytes x 2 (half the bound) x 3.
        let mut heads = shrunk_heads(8 * HELD_BYTES_PER_CANDIDATE * 2 * 3);
        assert_eq!(heads.first, 8);
        let usable = vec![u64::MAX; heads.blocks];
        let h = heads.head(0, &usable);
        assert_eq!((h.len(), h.complete), (8, false));
        let longer = heads.extend(0, &usable);
        assert_eq!((longer.len(), longer.complete), (16, false));
        // The head is the start of the whole list.
        let whole = heads.whole(0, &usable);
        assert_eq!(whole.len(), 300);
        assert_eq!(all(&longer), all(&whole)[..16]);
    }

    /// Classes whose heads the cycle has mostly taken are made longer with the
    /// one asked for, in the same pass, each the start of its whole list.
    #[test]
    fn heads_mostly_taken_are_made_longer_together() {
        let mut heads = shrunk_heads(8 * HELD_BYTES_PER_CANDIDATE * 2 * 3 * 4);
        let mut usable = vec![u64::MAX; heads.blocks];
        let before: Vec<usize> = (0..3).map(|c| heads.head(c, &usable).len()).collect();
        // Take every slot class 1's head holds (class 0's too, which ranks as
        // it does; not class 2's).
        for s in heads.head(1, &usable).from(0).map(|c| c.slot) {
            usable[s as usize / 64] &= !(1 << (s % 64));
        }
        let evaluations = heads.evaluations;
        heads.extend(0, &usable);
        assert!(heads.evaluations > evaluations);
        let after: Vec<usize> = (0..3)
            .map(|c| heads.held[c as usize].as_ref().map_or(0, |h| h.len()))
            .collect();
        assert_eq!(after[0], before[0] * 2, "the class asked for");
        assert_eq!(after[1], before[1] * 2, "class 1 made longer with class 0");
        assert_eq!(after[2], before[2], "class 2 had nothing taken");
        let longer = heads.held[1].clone().expect("held");
        let whole = heads.whole(1, &usable);
        assert_eq!(all(&longer), all(&whole)[..longer.len()]);
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
