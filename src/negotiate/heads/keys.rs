//! A class's keys against every slot it matches, held compactly, so that its
//! head can be made again, longer or whole without evaluating anything.
//!
//! A class's keys (PRE, its Rank, POST) take few values: the distinct keys are
//! held once, and per matching slot (in slot order, as the class's bitmap
//! lists them) the number of its key, in one, two or four bytes as the class
//! has up to 256, 65,536 or more keys. 400 classes at 100,000 slots hold about
//! 40 MB where their sorted lists held 1.1 GB; a head of `n` is two passes over
//! the class's codes (a counting sort by the keys' places best first), where
//! before it was a pass of the batch matcher over every slot.

use super::Head;
use crate::matching::batch::{ordered_key, Candidate, RankKey};
use std::sync::Arc;

/// Per matching slot, the number of its key.
#[derive(Clone, Debug)]
enum Codes {
    Narrow(Vec<u8>),
    Mid(Vec<u16>),
    Wide(Vec<u32>),
}

impl Codes {
    fn push(&mut self, code: u32) {
        // Widened as the class meets more keys than the width holds.
        if let Codes::Narrow(v) = self {
            if code > u32::from(u8::MAX) {
                *self = Codes::Mid(v.iter().map(|&c| u16::from(c)).collect());
            }
        }
        if let Codes::Mid(v) = self {
            if code > u32::from(u16::MAX) {
                *self = Codes::Wide(v.iter().map(|&c| u32::from(c)).collect());
            }
        }
        match self {
            Codes::Narrow(v) => v.push(code as u8),
            Codes::Mid(v) => v.push(code as u16),
            Codes::Wide(v) => v.push(code),
        }
    }

    /// Room for `extra` more codes, growing by a quarter rather than doubling:
    /// every class's codes grow at once in the first pass, and doubled
    /// capacities held a gigabyte more at 400,000 slots.
    fn reserve(&mut self, extra: usize) {
        fn room<T>(v: &mut Vec<T>, extra: usize) {
            if v.capacity() - v.len() < extra {
                v.reserve_exact(extra.max(v.len() / 4));
            }
        }
        match self {
            Codes::Narrow(v) => room(v, extra),
            Codes::Mid(v) => room(v, extra),
            Codes::Wide(v) => room(v, extra),
        }
    }
}

/// The keys of a group of classes being gathered, part of the slots by part,
/// in slot order, into one table: classes of one `Rank` mostly give a slot
/// the same key, and a class then takes the number the one before it gave
/// that slot (when the bits are the same) rather than looking the key up.
pub(super) struct KeysBuilder {
    table: Vec<RankKey>,
    /// The keys' numbers by their bits' hash (the bits are the table's): a few
    /// bytes a key, where a map holding the keys again took gigabytes for
    /// 2,000 classes of tens of thousands of keys each.
    index: hashbrown::HashTable<u32>,
    hasher: ahash::RandomState,
    /// Per class of the group, its codes.
    codes: Vec<Codes>,
}

fn bits(k: &RankKey) -> [u64; 3] {
    [k.pre.to_bits(), k.rank.to_bits(), k.post.to_bits()]
}

/// No number yet.
const NONE: u32 = u32::MAX;

impl KeysBuilder {
    /// A builder for a group of `classes` classes.
    pub fn new(classes: usize) -> KeysBuilder {
        KeysBuilder {
            table: Vec::new(),
            index: hashbrown::HashTable::new(),
            hasher: ahash::RandomState::new(),
            codes: (0..classes).map(|_| Codes::Narrow(Vec::new())).collect(),
        }
    }

    /// Adds each class's candidates (in the group's order) among the `len`
    /// slots from `first`, in slot order.
    pub fn add(&mut self, cands: &[&[Candidate]], first: u32, len: usize) {
        // Per slot of the part, the number the last class gave it.
        let mut given = vec![NONE; len];
        for (k, cands) in cands.iter().enumerate() {
            self.codes[k].reserve(cands.len());
            // Neighbouring slots (one machine's, one kind's) mostly share a key.
            let mut last: Option<([u64; 3], u32)> = None;
            for c in cands.iter() {
                let b = bits(&c.key);
                let at = (c.slot - first) as usize;
                let code = match (last, given[at]) {
                    (Some((lb, code)), _) if lb == b => code,
                    (_, g) if g != NONE && bits(&self.table[g as usize]) == b => g,
                    _ => {
                        let code = self.intern(b, c.key);
                        last = Some((b, code));
                        code
                    }
                };
                given[at] = code;
                self.codes[k].push(code);
            }
        }
    }

    /// The number of the key of bits `b`, a new one when it is new.
    fn intern(&mut self, b: [u64; 3], key: RankKey) -> u32 {
        let hash = self.hasher.hash_one(b);
        let table = &self.table;
        if let Some(&code) = self.index.find(hash, |&c| bits(&table[c as usize]) == b) {
            return code;
        }
        let code = table.len() as u32;
        let hasher = &self.hasher;
        self.index
            .insert_unique(hash, code, |&c| hasher.hash_one(bits(&table[c as usize])));
        self.table.push(key);
        code
    }

    /// Each class's keys, in the group's order.
    pub fn finish(self) -> Vec<ClassKeys> {
        let keys = Arc::new(KeyTable::of(self.table));
        self.codes
            .into_iter()
            .map(|mut codes| {
                match &mut codes {
                    Codes::Narrow(v) => v.shrink_to_fit(),
                    Codes::Mid(v) => v.shrink_to_fit(),
                    Codes::Wide(v) => v.shrink_to_fit(),
                }
                ClassKeys {
                    keys: keys.clone(),
                    codes,
                }
            })
            .collect()
    }
}

/// The distinct keys of a group of classes, and their places best first.
#[derive(Debug)]
struct KeyTable {
    /// The distinct keys, by bits.
    table: Vec<RankKey>,
    /// Per key, its place best first.
    place: Vec<u32>,
    places: u32,
}

impl KeyTable {
    /// The keys of `table` (distinct bits) with their places.
    fn of(table: Vec<RankKey>) -> KeyTable {
        let mut order: Vec<u32> = (0..table.len() as u32).collect();
        sort_best_first(&table, &mut order);
        KeyTable::of_order(table, &order)
    }

    /// The keys of `table` with their places, `order` every number of
    /// `table` best first (keys of one order in any order among them).
    fn of_order(table: Vec<RankKey>, order: &[u32]) -> KeyTable {
        let keys: Vec<[i64; 3]> = order
            .iter()
            .map(|&c| best_first_key(&table[c as usize]))
            .collect();
        KeyTable::of_keyed_order(table, order, &keys)
    }

    /// [`KeyTable::of_order`] given each of `order`'s keys' [`best_first_key`]
    /// (`keys[i]` of `order[i]`).
    fn of_keyed_order(table: Vec<RankKey>, order: &[u32], keys: &[[i64; 3]]) -> KeyTable {
        debug_assert_eq!(order.len(), table.len());
        debug_assert_eq!(order.len(), keys.len());
        // Places best first; keys of one order (a NaN and negative infinity,
        // the two zeros) share a place, where slot order decides between them.
        let mut place = vec![0u32; table.len()];
        let mut places = 0u32;
        let mut last = None;
        for (&c, &o) in order.iter().zip(keys) {
            if last.is_some_and(|l| l != o) {
                places += 1;
            }
            last = Some(o);
            place[c as usize] = places;
        }
        KeyTable {
            places: if table.is_empty() { 0 } else { places + 1 },
            table,
            place,
        }
    }
}

/// A key's order as a sort ascending puts the best first (greatest first:
/// `!` reverses the order).
fn best_first_key(k: &RankKey) -> [i64; 3] {
    [ordered_key(k.pre), ordered_key(k.rank), ordered_key(k.post)].map(|x| !x)
}

/// Sorts the numbers `codes` of keys of `table` best first.
fn sort_best_first(table: &[RankKey], codes: &mut [u32]) {
    let mut keyed: Vec<([i64; 3], u32)> = codes
        .iter()
        .map(|&c| (best_first_key(&table[c as usize]), c))
        .collect();
    keyed.sort_unstable();
    for (c, (_, k)) in codes.iter_mut().zip(keyed) {
        *c = k;
    }
}

/// The keys a class has met as they come and go (a living pool's class,
/// whose keys change a few at a time), kept best first: a key added is
/// merged into the order rather than the whole table sorted again.
#[derive(Clone, Debug, Default)]
pub struct KeyOrder {
    /// Numbers of keys best first.
    order: Vec<u32>,
    /// Each of `order`'s keys' [`best_first_key`], worked out once (merging
    /// and placing a class's thousands of keys at every cycle otherwise
    /// works them out again and again).
    order_keys: Vec<[i64; 3]>,
    /// Numbers of keys added since, not yet in `order`.
    added: Vec<u32>,
}

impl KeyOrder {
    /// Key number `code` (the next of the table) is added.
    pub fn add(&mut self, code: u32) {
        self.added.push(code);
    }

    /// The table was renumbered: key `c` is now `renumber[c]`, or gone when
    /// that is `u32::MAX`.
    pub fn renumber(&mut self, renumber: &[u32]) {
        let mut kept = 0;
        for i in 0..self.order.len() {
            let c = renumber[self.order[i] as usize];
            if c != u32::MAX {
                self.order[kept] = c;
                self.order_keys[kept] = self.order_keys[i];
                kept += 1;
            }
        }
        self.order.truncate(kept);
        self.order_keys.truncate(kept);
        self.added.retain_mut(|c| {
            *c = renumber[*c as usize];
            *c != u32::MAX
        });
    }

    /// The keys of a class as [`ClassKeys::of_codes`] makes them from
    /// `table` (every key added, numbered in the order added) and `codes`.
    pub fn class_keys(&mut self, table: Vec<RankKey>, codes: &[u32]) -> ClassKeys {
        if !self.added.is_empty() {
            let mut added: Vec<([i64; 3], u32)> = std::mem::take(&mut self.added)
                .into_iter()
                .map(|c| (best_first_key(&table[c as usize]), c))
                .collect();
            added.sort_unstable();
            let n = self.order.len() + added.len();
            let (mut order, mut keys) = (Vec::with_capacity(n), Vec::with_capacity(n));
            let (mut a, mut b) = (0, 0);
            while a < self.order.len() && b < added.len() {
                if self.order_keys[a] <= added[b].0 {
                    order.push(self.order[a]);
                    keys.push(self.order_keys[a]);
                    a += 1;
                } else {
                    order.push(added[b].1);
                    keys.push(added[b].0);
                    b += 1;
                }
            }
            order.extend_from_slice(&self.order[a..]);
            keys.extend_from_slice(&self.order_keys[a..]);
            for &(k, c) in &added[b..] {
                order.push(c);
                keys.push(k);
            }
            self.order = order;
            self.order_keys = keys;
        }
        let keys = KeyTable::of_keyed_order(table, &self.order, &self.order_keys);
        ClassKeys::with_table(Arc::new(keys), codes)
    }
}

/// A class's keys against every slot it matches (see the module).
#[derive(Clone, Debug)]
pub struct ClassKeys {
    /// The keys its codes number (shared by its group).
    keys: Arc<KeyTable>,
    codes: Codes,
}

impl ClassKeys {
    /// The keys of a class given whole: its distinct keys `table` (any
    /// order, no two of the same bits) and, per slot its bitmap marks in slot
    /// order, the number of its key in `table`.
    pub fn of_codes(table: Vec<RankKey>, codes: &[u32]) -> ClassKeys {
        ClassKeys::with_table(Arc::new(KeyTable::of(table)), codes)
    }

    fn with_table(keys: Arc<KeyTable>, codes: &[u32]) -> ClassKeys {
        let n = keys.table.len();
        let mut c = Codes::Narrow(Vec::with_capacity(codes.len()));
        if n > usize::from(u16::MAX) + 1 {
            c = Codes::Wide(Vec::with_capacity(codes.len()));
        } else if n > usize::from(u8::MAX) + 1 {
            c = Codes::Mid(Vec::with_capacity(codes.len()));
        }
        for &code in codes {
            debug_assert!((code as usize) < n);
            c.push(code);
        }
        ClassKeys { keys, codes: c }
    }

    /// The keys of the same class given whole again, its codes `codes` (per
    /// slot its bitmap marks, in slot order) numbering the same table as
    /// these (a living pool's class whose slots changed to keys it had):
    /// the table and its order are kept.
    pub fn sharing(&self, codes: &[u32]) -> ClassKeys {
        ClassKeys::with_table(self.keys.clone(), codes)
    }

    /// Calls `f(slot, code)` for every slot of `mask & usable`, in slot order.
    fn for_each(&self, mask: &[u64], usable: &[u64], f: impl FnMut(u32, u32)) {
        match &self.codes {
            Codes::Narrow(v) => scan(v, mask, usable, f),
            Codes::Mid(v) => scan(v, mask, usable, f),
            Codes::Wide(v) => scan(v, mask, usable, f),
        }
    }

    /// The best `n` of the slots `mask` (the class's bitmap, which these keys
    /// follow) and `usable` mark, best first (ties in slot order), as a head.
    pub fn head(&self, mask: &[u64], usable: &[u64], n: usize) -> Head {
        let (place, table) = (&self.keys.place, &self.keys.table);
        let places = self.keys.places as usize;
        let mut count = vec![0u32; places];
        self.for_each(mask, usable, |_, code| {
            count[place[code as usize] as usize] += 1
        });
        let total: usize = count.iter().map(|&k| k as usize).sum();
        let take = n.min(total);
        // The places taken whole, and how many of the last one.
        let mut start = vec![0u32; places];
        let (mut sum, mut last, mut of_last) = (0usize, 0usize, 0usize);
        for (p, &k) in count.iter().enumerate() {
            start[p] = sum as u32;
            last = p;
            if sum + k as usize >= take {
                of_last = take - sum;
                break;
            }
            sum += k as usize;
        }
        let mut slots = vec![0u32; take];
        let mut codes = vec![0u32; take];
        if take > 0 {
            let mut in_last = 0usize;
            self.for_each(mask, usable, |slot, code| {
                let p = place[code as usize] as usize;
                if p > last || (p == last && in_last == of_last) {
                    return;
                }
                if p == last {
                    in_last += 1;
                }
                let at = start[p] as usize;
                slots[at] = slot;
                codes[at] = code;
                start[p] += 1;
            });
        }
        // Runs of one key: codes are interned by the keys' bits.
        let mut runs: Vec<(RankKey, u32)> = Vec::new();
        for (i, &code) in codes.iter().enumerate() {
            match runs.last_mut() {
                Some((_, end)) if codes[i - 1] == code => *end = i as u32 + 1,
                _ => runs.push((table[code as usize], i as u32 + 1)),
            }
        }
        Head::of_parts(slots, runs, take == total)
    }
}

/// [`ClassKeys::for_each`] over codes of one width: the bits of each block of
/// the bitmap in turn, the code's place counted along (usable slots are most).
fn scan<T: Copy + Into<u32>>(
    codes: &[T],
    mask: &[u64],
    usable: &[u64],
    mut f: impl FnMut(u32, u32),
) {
    let mut at = 0usize;
    for (b, (&m, &u)) in mask.iter().zip(usable).enumerate() {
        if m & u == 0 {
            at += m.count_ones() as usize;
            continue;
        }
        let mut bits = m;
        while bits != 0 {
            let lane = bits.trailing_zeros();
            if u & (1 << lane) != 0 {
                f((b * 64) as u32 + lane, codes[at].into());
            }
            at += 1;
            bits &= bits - 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::batch::{best_first, RankKey};

    /// Keys kept in order as they are added and renumbered give the heads
    /// of keys sorted whole, ties (a NaN and negative infinity, both zeros)
    /// among them.
    #[test]
    fn a_key_order_kept_gives_the_heads_of_one_sorted_whole() {
        let mut rng = crate::test_rng::TestRng::new(5);
        let odd = [f64::NAN, 0.0, -0.0, f64::NEG_INFINITY, 1.0];
        let mut table: Vec<RankKey> = Vec::new();
        let mut order = KeyOrder::default();
        for round in 0..60 {
            for _ in 0..rng.below(20) {
                let pick = |r: u64| odd[(r % odd.len() as u64) as usize];
                let key = RankKey {
                    pre: pick(rng.below(5)),
                    rank: rng.below(40) as f64,
                    post: pick(rng.below(5)),
                };
                if table.iter().all(|k| bits(k) != bits(&key)) {
                    order.add(table.len() as u32);
                    table.push(key);
                }
            }
            if round % 7 == 6 {
                // Every third key dropped, the rest renumbered.
                let mut renumber = vec![u32::MAX; table.len()];
                let mut kept = Vec::new();
                for (c, k) in table.iter().enumerate() {
                    if c % 3 != 0 {
                        renumber[c] = kept.len() as u32;
                        kept.push(*k);
                    }
                }
                order.renumber(&renumber);
                table = kept;
            }
            let slots = 300usize;
            let mut mask = vec![0u64; slots.div_ceil(64)];
            let mut codes = Vec::new();
            for s in 0..slots {
                if !table.is_empty() && rng.below(3) > 0 {
                    mask[s / 64] |= 1 << (s % 64);
                    codes.push(rng.below(table.len() as u64) as u32);
                }
            }
            let kept = order.class_keys(table.clone(), &codes);
            let whole = ClassKeys::of_codes(table.clone(), &codes);
            let usable = vec![u64::MAX; mask.len()];
            for n in [1, 10, 100, usize::MAX] {
                let (a, b) = (kept.head(&mask, &usable, n), whole.head(&mask, &usable, n));
                let a: Vec<_> = a.from(0).map(|c| (c.slot, bits(&c.key))).collect();
                let b: Vec<_> = b.from(0).map(|c| (c.slot, bits(&c.key))).collect();
                assert_eq!(a, b, "round {round}, n {n}");
            }
        }
    }

    /// Heads made from the codes are the starts of the sorted lists of the
    /// usable slots, keys included, for classes of few and of many keys (NaN,
    /// both zeros and infinities among them).
    #[test]
    fn heads_from_keys_are_the_sorted_usable_candidates() {
        let mut rng = crate::test_rng::TestRng::new(11);
        let mut next = move || rng.next();
        let odd = [
            f64::NAN,
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -f64::MAX,
        ];
        for distinct in [1u64, 3, 300, 70_000] {
            let slots = 3000u32;
            let blocks = (slots as usize).div_ceil(64);
            let mut mask = vec![0u64; blocks];
            let mut usable = vec![0u64; blocks];
            let mut cands = Vec::new();
            for s in 0..slots {
                if next() % 4 == 0 {
                    continue;
                }
                mask[s as usize / 64] |= 1 << (s % 64);
                if next() % 5 != 0 {
                    usable[s as usize / 64] |= 1 << (s % 64);
                }
                let v = next() % distinct;
                let rank = if v < odd.len() as u64 && distinct > 3 {
                    odd[v as usize]
                } else {
                    v as f64
                };
                let key = RankKey {
                    pre: (v % 2) as f64,
                    rank,
                    post: 0.0,
                };
                cands.push(Candidate { slot: s, key });
            }
            // Given in two parts, as the first pass gives them, after a class
            // of the same group whose keys are mostly the same and sometimes
            // not (its numbers are taken where the bits are the same).
            let other: Vec<Candidate> = cands
                .iter()
                .map(|c| Candidate {
                    slot: c.slot,
                    key: if c.slot % 7 == 0 {
                        RankKey {
                            rank: c.key.rank + 1.0,
                            ..c.key
                        }
                    } else {
                        c.key
                    },
                })
                .collect();
            let mut b = KeysBuilder::new(2);
            let half = cands.len() / 2;
            let cut = cands[half].slot;
            b.add(&[&other[..half], &cands[..half]], 0, cut as usize);
            b.add(
                &[&other[half..], &cands[half..]],
                cut,
                (slots - cut) as usize,
            );
            let keys = b.finish().remove(1);
            let mut sorted: Vec<Candidate> = cands
                .iter()
                .copied()
                .filter(|c| usable[c.slot as usize / 64] & (1 << (c.slot % 64)) != 0)
                .collect();
            sorted.sort_by(best_first);
            for n in [0, 1, 7, 500, sorted.len() - 1, sorted.len(), usize::MAX] {
                let h = keys.head(&mask, &usable, n);
                let got: Vec<Candidate> = h.from(0).collect();
                let want = &sorted[..n.min(sorted.len())];
                assert_eq!(got.len(), want.len(), "{distinct} keys, n {n}");
                for (g, w) in got.iter().zip(want) {
                    assert_eq!(g.slot, w.slot, "{distinct} keys, n {n}");
                    assert_eq!(bits(&g.key), bits(&w.key));
                }
                assert_eq!(h.complete, n >= sorted.len());
            }
        }
    }
}
