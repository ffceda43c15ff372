//! Every live class's candidates among the slots, kept across cycles: per
//! class, per slot place, whether they match and with what key (PRE, the
//! job's Rank, POST). A cycle evaluates only what changed (new classes
//! against every slot, changed slots against every class) and makes its
//! heads from what is kept ([`Columns::heads`]), evaluating nothing else,
//! and makes again only the heads of the classes whose candidates changed.
//!
//! The cost is memory: four bytes per class and slot place, 16 MB at 400
//! classes and 10,000 slots, 160 MB at 100,000 slots (a fresh cycle holds a
//! bit per pair and a byte or two per matching one, and lets them go after
//! the cycle). A queue of many classes of their own (jobs that read the
//! clock) costs as many columns.

use crate::ad::ClassAd;
use crate::compile::CompiledClassAd;
use crate::matching::batch::{BatchMatcher, Candidate, CompiledSlots, RankKey, WINDOW_CLASSES};
use crate::matching::NegotiatorPolicy;
use crate::negotiate::heads::{CandidateBounds, ClassKeys, Head, Heads, KeyOrder};
use classad_vm::SlotTable;
use rayon::prelude::*;
use std::sync::Arc;

/// In a column's codes: the class and slot do not match.
const NONE: u32 = u32::MAX;

/// Bytes of candidates one evaluation holds at once (as the first pass
/// bounds its windows).
const WINDOW_BYTES: usize = 256 << 20;

/// One class's keys against every slot place.
#[derive(Clone, Debug, Default)]
struct Column {
    /// Per slot place, the number of its key in `keys`, or [`NONE`].
    codes: Vec<u32>,
    /// The distinct keys met (by bits), some perhaps no longer used.
    keys: Vec<RankKey>,
    index: ahash::AHashMap<[u64; 3], u32>,
    /// The key (by bits) and code [`Column::set`] last looked up.
    last: Option<([u64; 3], u32)>,
    /// The keys best first, kept as they come and go.
    order: KeyOrder,
    /// How many places match.
    matching: u32,
    /// A code changed since the class's head was last made.
    changed: bool,
    /// Keys were added or renumbered since: the table's order is worked out
    /// again (a sort of the keys), else the last one is kept.
    keys_changed: bool,
    /// The class's bitmap, keys and first head as the last cycle made them.
    made: Option<Made>,
    /// The class's ad compiled against [`Columns::names`] (compiling every
    /// class again for a hundred changed slots was most of matching them).
    compiled: Option<CompiledClassAd>,
}

/// What a class's column gave the last cycle's heads.
#[derive(Clone, Debug)]
struct Made {
    /// The length the first head was made for.
    first: usize,
    mask: Vec<u64>,
    keys: Arc<ClassKeys>,
    head: Arc<Head>,
}

impl Made {
    /// What the class gave a table whose slots `map` renumbers (each old
    /// table index's new one, `u32::MAX` for a slot that left): the same
    /// candidates at their new numbers, in the same order, so the same keys
    /// and head. `None` when a candidate left.
    fn renumbered(&self, map: &[u32], blocks: usize) -> Option<Made> {
        let mut mask = vec![0u64; blocks];
        for (b, &word) in self.mask.iter().enumerate() {
            let mut w = word;
            while w != 0 {
                let t = *map.get(b * 64 + w.trailing_zeros() as usize)? as usize;
                w &= w - 1;
                if t == u32::MAX as usize {
                    return None;
                }
                mask[t / 64] |= 1 << (t % 64);
            }
        }
        Some(Made {
            first: self.first,
            mask,
            keys: self.keys.clone(),
            head: Arc::new(self.head.renumbered(map)?),
        })
    }
}

/// Per index of the table `old` (slot places, ascending), its index in the
/// table `new` (ascending too), `u32::MAX` where its place is not in `new`.
fn renumbering(old: &[u32], new: &[u32]) -> Vec<u32> {
    let mut j = 0;
    old.iter()
        .map(|&p| {
            while j < new.len() && new[j] < p {
                j += 1;
            }
            if new.get(j) == Some(&p) {
                j as u32
            } else {
                u32::MAX
            }
        })
        .collect()
}

fn bits(k: &RankKey) -> [u64; 3] {
    [k.pre.to_bits(), k.rank.to_bits(), k.post.to_bits()]
}

impl Column {
    fn new(places: usize) -> Column {
        Column {
            codes: vec![NONE; places],
            ..Column::default()
        }
    }

    fn set(&mut self, place: usize, key: Option<RankKey>) {
        let code = match key {
            None => NONE,
            Some(k) => {
                // Most keys are the place's own again, or the one the last
                // place got (a class's rank is often one value): found
                // without hashing (hashing was 40% of matching changed
                // slots).
                let b = bits(&k);
                let old = self.codes[place];
                if old != NONE && bits(&self.keys[old as usize]) == b {
                    old
                } else if let Some((_, code)) = self.last.filter(|(l, _)| *l == b) {
                    code
                } else {
                    let next = self.keys.len() as u32;
                    let code = *self.index.entry(b).or_insert(next);
                    if code == next {
                        self.keys.push(k);
                        self.order.add(code);
                        self.keys_changed = true;
                    }
                    self.last = Some((b, code));
                    code
                }
            }
        };
        let old = std::mem::replace(&mut self.codes[place], code);
        self.changed |= old != code;
        self.matching = self.matching + u32::from(code != NONE) - u32::from(old != NONE);
    }

    /// Drops keys no place uses once they are most of the table: a class's
    /// table stays within twice its matching slots (keys that change every
    /// cycle would otherwise grow it without end).
    fn tidy(&mut self) {
        if self.keys.len() <= 2 * self.matching as usize + 64 {
            return;
        }
        let mut renumber = vec![NONE; self.keys.len()];
        let mut keys = Vec::new();
        for c in self.codes.iter_mut().filter(|c| **c != NONE) {
            let r = &mut renumber[*c as usize];
            if *r == NONE {
                *r = keys.len() as u32;
                keys.push(self.keys[*c as usize]);
            }
            *c = *r;
        }
        self.index = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (bits(k), i as u32))
            .collect();
        self.keys = keys;
        self.last = None;
        self.order.renumber(&renumber);
        self.keys_changed = true;
    }
}

/// Every live class's column, by class id.
#[derive(Debug, Default)]
pub(super) struct Columns {
    places: usize,
    columns: Vec<Option<Column>>,
    /// The slot places the heads kept in the columns were made for: when
    /// they differ, the heads kept are renumbered.
    made_for: Vec<u32>,
    /// The names the classes and each evaluation's slots are compiled
    /// against, kept with the compiled classes.
    names: SlotTable,
    /// How many names the table held after its first evaluation: it grows
    /// with every new name a slot brings, and past twice that (and a few
    /// thousand) it is started again, the classes compiled again.
    names_base: usize,
}

/// Names past twice the first evaluation's that start the table again.
const NAMES_SLACK: usize = 4096;

impl Columns {
    /// Room for `places` slot places.
    pub(super) fn grow_places(&mut self, places: usize) {
        if places <= self.places {
            return;
        }
        self.places = places;
        for c in self.columns.iter_mut().flatten() {
            c.codes.resize(places, NONE);
        }
    }

    /// Class `id` is gone.
    pub(super) fn drop_class(&mut self, id: u32) {
        if let Some(c) = self.columns.get_mut(id as usize) {
            *c = None;
        }
    }

    /// Every class gone.
    pub(super) fn clear(&mut self) {
        self.columns.clear();
    }

    /// Slot place `place` matches nothing (the slot left).
    pub(super) fn clear_place(&mut self, place: u32) {
        for c in self.columns.iter_mut().flatten() {
            c.set(place as usize, None);
        }
    }

    /// A new column for class `id`, matching nothing yet.
    pub(super) fn add_class(&mut self, id: u32) {
        if self.columns.len() <= id as usize {
            self.columns.resize_with(id as usize + 1, || None);
        }
        self.columns[id as usize] = Some(Column::new(self.places));
    }

    /// Evaluates the classes `classes` (id, representative) against the
    /// slots `slots` (place, prepared ad) on the batch matcher, keeping what
    /// each pair gives. A class is compiled the first time it is evaluated
    /// and kept so. The pairs evaluated.
    pub(super) fn evaluate(
        &mut self,
        classes: &[(u32, Arc<ClassAd>)],
        slots: &[(u32, Arc<ClassAd>)],
        policy: &NegotiatorPolicy,
    ) -> u64 {
        if classes.is_empty() || slots.is_empty() {
            return 0;
        }
        let ads: Vec<Arc<ClassAd>> = slots.iter().map(|(_, a)| a.clone()).collect();
        let places: Vec<u32> = slots.iter().map(|(p, _)| *p).collect();
        let table = std::mem::take(&mut self.names);
        let mut compiled_slots = CompiledSlots::with_table(table, &ads, policy);
        // The classes met for the first time, compiled and kept.
        let new: Vec<usize> = (0..classes.len())
            .filter(|&i| {
                let col = self.columns[classes[i].0 as usize].as_ref();
                col.expect("a column per live class").compiled.is_none()
            })
            .collect();
        if !new.is_empty() {
            let reps: Vec<Arc<ClassAd>> = new.iter().map(|&i| classes[i].1.clone()).collect();
            for (&i, c) in new.iter().zip(compiled_slots.compile_jobs(&reps)) {
                let col = self.columns[classes[i].0 as usize].as_mut();
                col.expect("a column per live class").compiled = Some(c);
            }
        }
        let blocks = ads.len().div_ceil(64);
        let all: Vec<usize> = (0..classes.len()).collect();
        let mut pairs = 0;
        for window in all.chunks(WINDOW_CLASSES) {
            let per_block = window.len() * 64 * 3 * std::mem::size_of::<Candidate>();
            let part = (WINDOW_BYTES / per_block).clamp(1, blocks.max(1));
            // The window's columns taken out, to be written on every core.
            let mut cols: Vec<Column> = window
                .iter()
                .map(|&i| {
                    let id = classes[i].0 as usize;
                    self.columns[id].take().expect("a column per live class")
                })
                .collect();
            let reps = window.iter().map(|&i| classes[i].1.clone()).collect();
            let compiled = cols
                .iter()
                .map(|c| c.compiled.clone().expect("compiled above"))
                .collect();
            let mut matcher = BatchMatcher::for_compiled_classes(reps, compiled, compiled_slots);
            let in_window: Vec<u32> = (0..window.len() as u32).collect();
            let mut b0 = 0;
            while b0 < blocks {
                let range = b0..(b0 + part).min(blocks);
                let results = matcher.evaluate_keyed(&in_window, range.clone());
                let first = range.start * 64;
                let end = (range.end * 64).min(ads.len());
                cols.par_iter_mut()
                    .zip(results.par_iter())
                    .for_each(|(col, (_, cands))| {
                        let mut next = cands.iter().peekable();
                        for (s, &place) in places.iter().enumerate().take(end).skip(first) {
                            let key = next.next_if(|c| c.slot as usize == s).map(|c| c.key);
                            col.set(place as usize, key);
                        }
                        col.tidy();
                    });
                b0 = range.end;
            }
            pairs += matcher.stats().pairs;
            compiled_slots = matcher.into_compiled_slots();
            for (&i, col) in window.iter().zip(cols) {
                self.columns[classes[i].0 as usize] = Some(col);
            }
        }
        self.names = compiled_slots.into_table();
        self.keep_names_bounded();
        pairs
    }

    /// Starts the names again, every class to be compiled again, once they
    /// grew past [`NAMES_SLACK`] and twice their first evaluation's.
    fn keep_names_bounded(&mut self) {
        let names = self.names.len();
        if self.names_base == 0 {
            self.names_base = names;
        } else if names > 2 * self.names_base + NAMES_SLACK {
            self.names = SlotTable::new();
            self.names_base = 0;
            for c in self.columns.iter_mut().flatten() {
                c.compiled = None;
            }
        }
    }

    /// The candidates of the classes `classes` (ids, in the cycle's class
    /// order; an id of no class matches nothing) among the slots at `table`
    /// (per slot of the cycle's table, its place), as the cycle reads them:
    /// bitmaps, keys and first heads. A class's are made again only when its
    /// candidates changed (or the table or the heads' length did), else
    /// taken as the last cycle made them; how many were made is the second.
    pub(super) fn heads(
        &mut self,
        classes: &[u32],
        table: &[u32],
        bounds: CandidateBounds,
        evaluations: u64,
    ) -> (Heads, u64) {
        let blocks = table.len().div_ceil(64);
        let first = Heads::first_len(bounds, classes.len());
        if self.made_for != table {
            // Slots came or went: what the classes whose candidates did not
            // change made is kept, renumbered (a changed class's is kept for
            // its keys' table alone, and made again below).
            let map = renumbering(&self.made_for, table);
            self.made_for = table.to_vec();
            self.columns.par_iter_mut().flatten().for_each(|c| {
                if !c.changed {
                    c.made = c.made.take().and_then(|m| m.renumbered(&map, blocks));
                }
            });
        }
        let all_slots = vec![u64::MAX; blocks];
        let made = std::sync::atomic::AtomicU64::new(0);
        let mut wanted: Vec<Option<&mut Column>> = Vec::with_capacity(classes.len());
        {
            // Each live class's column once, in the cycle's order.
            let mut by_id: Vec<Option<&mut Column>> =
                self.columns.iter_mut().map(Option::as_mut).collect();
            for &id in classes {
                wanted.push(by_id.get_mut(id as usize).and_then(Option::take));
            }
        }
        let parts: Vec<Made> = wanted
            .into_par_iter()
            .map(|col| {
                // A free id: a class no job asks for, matching nothing.
                let Some(col) = col else {
                    let keys = ClassKeys::of_codes(Vec::new(), &[]);
                    let mask = vec![0u64; blocks];
                    let head = keys.head(&mask, &all_slots, first);
                    return Made {
                        first,
                        mask,
                        keys: Arc::new(keys),
                        head: Arc::new(head),
                    };
                };
                // Kept when nothing changed and its first head is the one
                // this length makes (the same length, or the whole list).
                if let (false, Some(m)) = (col.changed, &col.made) {
                    if m.first == first || (m.head.complete && first >= m.head.len()) {
                        return m.clone();
                    }
                }
                made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let mut mask = vec![0u64; blocks];
                let mut codes = Vec::with_capacity(col.matching as usize);
                for (t, &p) in table.iter().enumerate() {
                    let code = col.codes[p as usize];
                    if code != NONE {
                        mask[t / 64] |= 1 << (t % 64);
                        codes.push(code);
                    }
                }
                let keys = match &col.made {
                    Some(m) if !col.keys_changed => m.keys.sharing(&codes),
                    _ => col.order.class_keys(col.keys.clone(), &codes),
                };
                col.keys_changed = false;
                let head = keys.head(&mask, &all_slots, first);
                let m = Made {
                    first,
                    mask,
                    keys: Arc::new(keys),
                    head: Arc::new(head),
                };
                col.made = Some(m.clone());
                col.changed = false;
                m
            })
            .collect();
        let mut masks = Vec::with_capacity(classes.len() * blocks);
        let mut keys = Vec::with_capacity(classes.len());
        let mut held = Vec::with_capacity(classes.len());
        for m in parts {
            masks.extend(m.mask);
            keys.push(m.keys);
            held.push(m.head);
        }
        let heads = Heads::of_made(bounds, blocks, masks, keys, held, evaluations);
        (heads, made.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key found without hashing (the place's own, or the last one looked
    /// up) has the code the table gives it, after a tidy renumbered the
    /// codes too.
    #[test]
    fn a_key_set_again_has_its_code_before_and_after_a_tidy() {
        let mut c = Column::new(200);
        for p in 0..100 {
            c.set(p, key(p as f64));
        }
        c.set(100, key(99.0));
        assert_eq!(c.codes[100], c.codes[99], "the last key looked up");
        c.set(5, key(5.0));
        assert_eq!(c.codes[5], 5, "the place's own key");
        for p in 1..=100 {
            c.set(p, None);
        }
        c.tidy();
        assert_eq!(c.keys.len(), 1);
        c.set(150, key(99.0));
        assert_eq!(c.keys[c.codes[150] as usize].rank, 99.0);
        c.set(151, key(0.0));
        assert_eq!(c.codes[151], c.codes[0]);
    }

    /// Slots come and go: each old table index finds its place's new index,
    /// a place that left none.
    #[test]
    fn a_table_renumbered_keeps_each_place_s_slot() {
        let gone = u32::MAX;
        assert_eq!(
            renumbering(&[1, 3, 5, 7], &[1, 2, 5, 7, 9]),
            [0, gone, 2, 3]
        );
        assert_eq!(renumbering(&[], &[4]), [0u32; 0]);
        assert_eq!(renumbering(&[4, 8], &[]), [gone, gone]);
    }

    fn key(rank: f64) -> Option<RankKey> {
        Some(RankKey {
            pre: 0.0,
            rank,
            post: 0.0,
        })
    }

    /// Slots bringing new names at every evaluation start the names again
    /// once they pass their bound, the classes compiled again: what the
    /// columns hold is what columns made afresh hold.
    #[test]
    fn names_stay_bounded_and_classes_compile_again() {
        let ad = |text: &str| Arc::new(crate::ad::read_ads(text, "t").unwrap().remove(0));
        let class = ad("Requirements = TARGET.Cpus >= 2\nRank = TARGET.Cpus\n");
        let policy = NegotiatorPolicy::default();
        let mut columns = Columns::default();
        columns.grow_places(4);
        columns.add_class(0);
        let mut resets = 0;
        for round in 0..12 {
            // 1,000 names never seen before on each of four slots.
            let slots: Vec<(u32, Arc<ClassAd>)> = (0..4u32)
                .map(|p| {
                    let mut text = format!("Cpus = {}\nRequirements = true\n", p + round % 3);
                    for k in 0..1000 {
                        text += &format!("N{round}x{p}x{k} = 1\n");
                    }
                    (p, ad(&text))
                })
                .collect();
            let before = columns.names.len();
            assert_eq!(columns.evaluate(&[(0, class.clone())], &slots, &policy), 4);
            resets += usize::from(columns.names.len() < before);
            // Twelve rounds bring 48,000 names; the table holds a few rounds'.
            assert!(columns.names.len() < 20_000, "{}", columns.names.len());
            let mut fresh = Columns::default();
            fresh.grow_places(4);
            fresh.add_class(0);
            fresh.evaluate(&[(0, class.clone())], &slots, &policy);
            let (a, b) = (
                columns.columns[0].as_ref().unwrap(),
                fresh.columns[0].as_ref().unwrap(),
            );
            let keys = |c: &Column| -> Vec<Option<u64>> {
                c.codes
                    .iter()
                    .map(|&k| (k != NONE).then(|| c.keys[k as usize].rank.to_bits()))
                    .collect()
            };
            assert_eq!(keys(a), keys(b), "round {round}");
        }
        assert!(resets >= 1, "the names were started again");
    }

    /// A column whose keys change at every write keeps its table within
    /// twice its matching places, the codes still naming their keys.
    #[test]
    fn a_column_of_changing_keys_stays_small() {
        let mut c = Column::new(10);
        for round in 0..1000 {
            for p in 0..10 {
                c.set(
                    p,
                    if p % 3 == 0 {
                        None
                    } else {
                        key((round * 10 + p) as f64)
                    },
                );
            }
            c.tidy();
            assert!(
                c.keys.len() <= 2 * 6 + 64 + 10,
                "round {round}: {}",
                c.keys.len()
            );
        }
        assert_eq!(c.matching, 6);
        for p in 0..10 {
            let want = (p % 3 != 0).then(|| (999 * 10 + p) as f64);
            let got = (c.codes[p] != NONE).then(|| c.keys[c.codes[p] as usize].rank);
            assert_eq!(got, want);
        }
    }
}
