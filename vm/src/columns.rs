//! A block of TARGET ads read column by column: each attribute a program reads, for
//! every ad of the block at once, sorted by type into bit masks and flat arrays, so
//! that comparing it with a constant is a loop over plain integers.

use crate::ad::{Attr, CompiledAd};
use crate::lanes::LANES;
use crate::logic::{for_each_lane, Logic};
use crate::ops::{self, Cmp};
use crate::sets::ConstSet;
use crate::value::{Str, Value};

/// Where a column's values come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ColSrc {
    /// TARGET's attribute in this slot.
    Slot(u32),
    /// The cached value of the TARGET-only subexpression with this key.
    Cached(u64),
    /// A constant string of a program, in every lane (by its exact identity):
    /// a register holding it refers to this column, as one holding TARGET's
    /// strings does, so that comparisons and membership tests of it stay on
    /// the bit-mask tier.
    Const(u32),
}

/// One attribute (or TARGET-only value) of every ad of a block.
#[derive(Debug)]
pub(crate) struct Column {
    pub(crate) src: ColSrc,
    /// Every lane's value as the logical operators see it.
    pub(crate) logic: Logic,
    /// Lanes holding an integer, a real, a string, a boolean.
    pub(crate) int: u64,
    pub(crate) real: u64,
    pub(crate) str: u64,
    pub(crate) boolean: u64,
    /// Lanes whose value is not known here: an expression (the lanes only read
    /// literals) or a value not in the machine's cache.
    pub(crate) escape: u64,
    /// The integers, in the lanes of `int`, and the booleans as 0 and 1 (as
    /// comparisons promote them), in the lanes of `boolean`.
    pub(crate) ints: [i64; LANES],
    /// The numbers as reals (integers and booleans promoted as HTCondor promotes
    /// them), in the lanes of `int | real | boolean`.
    pub(crate) reals: [f64; LANES],
    /// The strings' identities, ignoring ASCII case and exact, in the lanes of
    /// `str`.
    ids: [Ids; LANES],
    /// The lanes sorted by their numbers and strings, made when a comparison
    /// with a constant first needs them, and dropped when a lane is set: many
    /// columns are only read lane by lane, or by class, and sorting every
    /// column cost more than all their comparisons.
    index: std::cell::OnceCell<Index>,
    /// The buffers of the last index dropped, for the next (so that a warm
    /// pool allocates nothing).
    spare: Spare,
    /// Lanes of a TARGET attribute that is code, holding its closed value
    /// (module `closed`): by the names they read in the other side, and the
    /// most depth and steps any of them took. `closed_tried`: filled already.
    pub(crate) closed: u64,
    pub(crate) closed_by_names: smallvec::SmallVec<[(smallvec::SmallVec<[u32; 4]>, u64); 2]>,
    pub(crate) closed_depth: u32,
    pub(crate) closed_cost: u64,
    pub(crate) closed_tried: bool,
    /// The constant of a [`ColSrc::Const`] column.
    pub(crate) constant: Value,
}

impl Column {
    /// Lanes that hold code, closed values or not (module `closed`).
    #[inline]
    pub(crate) fn unsure(&self) -> u64 {
        self.escape | self.closed
    }

    fn new(src: ColSrc) -> Column {
        Column {
            src,
            logic: Logic::default(),
            int: 0,
            real: 0,
            str: 0,
            boolean: 0,
            escape: 0,
            ints: [0; LANES],
            reals: [0.0; LANES],
            ids: [Ids::default(); LANES],
            index: std::cell::OnceCell::new(),
            spare: Spare::default(),
            closed: 0,
            closed_by_names: smallvec::SmallVec::new(),
            closed_depth: 0,
            closed_cost: 0,
            closed_tried: false,
            constant: Value::Undefined,
        }
    }

    /// Puts `v` in lane `l` (`None`: not known here).
    fn set(&mut self, l: usize, v: Option<&Value>, ids: &StringIds) {
        self.drop_index();
        let bit = 1u64 << l;
        let Some(v) = v else {
            self.escape |= bit;
            return;
        };
        *self.logic.mask_of(v) |= bit;
        match v {
            Value::Int(i) => {
                self.int |= bit;
                self.ints[l] = *i;
                self.reals[l] = *i as f64;
            }
            Value::Real(r) => {
                self.real |= bit;
                self.reals[l] = *r;
            }
            Value::Str(s) => {
                self.str |= bit;
                self.ids[l] = ids.intern(s);
            }
            Value::Bool(b) => {
                self.boolean |= bit;
                self.ints[l] = i64::from(*b);
                self.reals[l] = f64::from(u8::from(*b));
            }
            _ => {}
        }
    }

    /// `value(lane) cmp k` for the lanes of `lanes` that are known here (the
    /// others come back in the second mask). Numbers and booleans against numbers
    /// and booleans, strings tested for equality, and identity with a scalar are
    /// compared in bulk; the rest one by one with `value`, which gives lane `l`'s
    /// value.
    pub(crate) fn compare<'v>(
        &self,
        cmp: Cmp,
        k: &Value,
        lanes: u64,
        ids: &StringIds,
        value: impl Fn(usize) -> &'v Value,
    ) -> (Logic, u64) {
        let escaped = lanes & self.escape;
        let lanes = lanes & !self.escape;
        let mut out = Logic::default();
        let mut rest = lanes;
        if matches!(cmp, Cmp::Is | Cmp::Isnt) {
            if let Some(same) = self.identical(k, lanes, ids) {
                out.t = if cmp == Cmp::Is { same } else { lanes & !same };
                out.f = lanes & !out.t;
                return (out, escaped);
            }
        } else {
            let mut bulk = |mask: u64, t: u64| {
                out.t |= mask & t;
                out.f |= mask & !t;
                rest &= !mask;
            };
            // Booleans promote to 0 and 1 against numbers, as HTCondor's do.
            let integral = self.int | self.boolean;
            match k {
                Value::Int(_) | Value::Bool(_) => {
                    let kv = match k {
                        Value::Int(i) => *i,
                        _ => i64::from(k.as_bool_equiv() == Some(true)),
                    };
                    let ints = lanes & integral;
                    if ints != 0 {
                        bulk(ints, self.indexes().by_int.lanes(cmp, kv));
                    }
                    let reals = lanes & self.real;
                    if reals != 0 {
                        bulk(reals, self.reals_where(cmp, kv as f64));
                    }
                }
                Value::Real(kv) => {
                    let numbers = lanes & (integral | self.real);
                    if numbers != 0 {
                        bulk(numbers, self.reals_where(cmp, *kv));
                    }
                }
                Value::Str(ks) if matches!(cmp, Cmp::Eq | Cmp::Ne) => {
                    let strs = lanes & self.str;
                    if strs != 0 {
                        let same = self.lanes_with(ids.get_const(ks), false) & strs;
                        bulk(strs, if cmp == Cmp::Eq { same } else { !same });
                    }
                }
                _ => {}
            }
            // Undefined and error are single values: one comparison serves all.
            for (mask, v) in [
                (self.logic.u, Value::Undefined),
                (self.logic.e, Value::Error),
            ] {
                let these = rest & mask;
                if these != 0 {
                    *out.mask_of(&ops::compare(cmp, &v, k)) |= these;
                    rest &= !these;
                }
            }
        }
        for_each_lane(rest, |l| {
            *out.mask_of(&ops::compare(cmp, value(l), k)) |= 1 << l;
        });
        (out, escaped)
    }

    /// The lanes of `lanes` (strings in both columns, which must share their
    /// store's identities) where the two strings are the same, ignoring ASCII
    /// case or `exact`ly.
    pub(crate) fn same_strings(&self, other: &Column, lanes: u64, exact: bool) -> u64 {
        let mut same = 0;
        for_each_lane(lanes, |l| {
            let (a, b) = (self.ids[l], other.ids[l]);
            let equal = if exact {
                a.exact == b.exact
            } else {
                a.folded == b.folded
            };
            same |= u64::from(equal) << l;
        });
        same
    }

    /// The lanes whose string is `s` (exactly, or ignoring case), given its
    /// identities.
    fn lanes_with(&self, s: Ids, exact: bool) -> u64 {
        let index = self.indexes();
        let (by, id) = if exact {
            (&index.by_exact, s.exact)
        } else {
            (&index.by_folded, s.folded)
        };
        match by.binary_search_by_key(&id, |&(i, _)| i) {
            Ok(i) if id != Ids::NONE => by[i].1,
            _ => 0,
        }
    }

    /// The lanes (of `int | real | boolean`) whose number, as a real, `cmp k`,
    /// with C's rules for NaN (only `!=` holds).
    fn reals_where(&self, cmp: Cmp, k: f64) -> u64 {
        let index = self.indexes();
        let ne = matches!(cmp, Cmp::Ne | Cmp::Isnt);
        if k.is_nan() {
            return if ne {
                index.by_real.all() | index.nan
            } else {
                0
            };
        }
        index.by_real.lanes(cmp, k) | if ne { index.nan } else { 0 }
    }

    /// The column's index of its current values, made now if not yet.
    #[inline]
    fn indexes(&self) -> &Index {
        self.index.get_or_init(|| {
            let mut index = self.spare.0.take();
            index.make(self);
            index
        })
    }

    /// Drops the index (of values about to change), keeping its buffers.
    #[inline]
    fn drop_index(&mut self) {
        if let Some(index) = self.index.take() {
            *self.spare.0.get_mut() = index;
        }
    }

    /// The lanes of `lanes` whose value is identical (`=?=`) to `k`, when `k` is
    /// a scalar, which no value of another type is identical to.
    fn identical(&self, k: &Value, lanes: u64, ids: &StringIds) -> Option<u64> {
        Some(match k {
            Value::Int(kv) => self.indexes().by_int.lanes(Cmp::Eq, *kv) & lanes & self.int,
            Value::Real(kv) => self.reals_where(Cmp::Eq, *kv) & lanes & self.real,
            Value::Undefined => lanes & self.logic.u,
            Value::Error => lanes & self.logic.e,
            Value::Bool(true) => lanes & self.boolean & self.logic.t,
            Value::Bool(false) => lanes & self.boolean & self.logic.f,
            Value::Str(ks) => self.lanes_with(ids.get_const(ks), true) & lanes & self.str,
            _ => return None,
        })
    }

    /// Membership of each lane's value in `set`, as [`ConstSet::contains`]
    /// answers, for the lanes of `lanes` known here (the others come back in the
    /// second mask). Strings are looked up in bulk by their identities.
    pub(crate) fn member<'v>(
        &self,
        set: &ConstSet,
        lanes: u64,
        ids: &StringIds,
        value: impl Fn(usize) -> &'v Value,
    ) -> (Logic, u64) {
        let escaped = lanes & self.escape;
        let lanes = lanes & !self.escape;
        let mut out = Logic::default();
        let mut rest = lanes;
        let strs = lanes & self.str;
        if strs != 0 {
            // `stringListMember` and `identicalMember` compare with case; `member`
            // and `stringListIMember` without. (A string is never `==` to a value
            // of another type; no lane holds a string no column has.)
            let exact = matches!(
                set,
                ConstSet::Strings {
                    ignore_case: false,
                    ..
                } | ConstSet::Values {
                    identical: true,
                    ..
                }
            );
            let mut found = 0;
            let mut learn = |t: &Str| found |= self.lanes_with(ids.get_const(t), exact);
            match set {
                ConstSet::Strings { items, .. } => items.iter().for_each(&mut learn),
                ConstSet::Values { items, .. } => items.iter().for_each(|v| {
                    if let Value::Str(t) = v {
                        learn(t)
                    }
                }),
            }
            let found = found & strs;
            out.t = found;
            out.f = strs & !found;
            rest &= !strs;
        }
        for_each_lane(rest, |l| *out.mask_of(&set.contains(value(l))) |= 1 << l);
        (out, escaped)
    }
}

/// The buffers of a column's last index (`Cell` has no `Debug` for them).
#[derive(Default)]
struct Spare(std::cell::Cell<Index>);

impl std::fmt::Debug for Spare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Spare")
    }
}

/// A column's lanes sorted by their values (see `Column::indexes`).
#[derive(Debug, Default)]
struct Index {
    /// The lanes holding each identity, sorted by identity: a constant string
    /// finds its lanes by a binary search.
    by_folded: Vec<(u32, u64)>,
    by_exact: Vec<(u32, u64)>,
    /// The lanes of `int | boolean` by integer, and of `int | real | boolean` by
    /// real (NaN aside): a comparison with a constant is two binary searches.
    by_int: Sorted<i64>,
    by_real: Sorted<f64>,
    /// Lanes holding NaN, which compares unequal to everything.
    nan: u64,
}

impl Index {
    /// Indexes `col`'s lanes by their numbers and by their strings' identities.
    fn make(&mut self, col: &Column) {
        let integral = col.int | col.boolean;
        self.by_int.index(&col.ints, integral);
        let mut nan = 0;
        for_each_lane(col.real, |l| {
            if col.reals[l].is_nan() {
                nan |= 1 << l;
            }
        });
        self.nan = nan;
        self.by_real
            .index(&col.reals, (integral | col.real) & !self.nan);
        for (index, exact) in [(&mut self.by_folded, false), (&mut self.by_exact, true)] {
            index.clear();
            let ids = &col.ids;
            for_each_lane(col.str, |l| {
                let id = if exact { ids[l].exact } else { ids[l].folded };
                index.push((id, 1 << l));
            });
            index.sort_unstable_by_key(|&(id, _)| id);
            index.dedup_by(|later, first| {
                let same = later.0 == first.0;
                if same {
                    first.1 |= later.1;
                }
                same
            });
        }
    }
}

/// Lanes sorted by a number: `below[i]` holds the lanes of the `i` smallest.
#[derive(Debug, Default)]
struct Sorted<T> {
    values: Vec<T>,
    below: Vec<u64>,
    scratch: Vec<(T, u8)>,
}

impl<T: Copy + PartialOrd> Sorted<T> {
    /// Sorts the lanes of `lanes` by `xs` (which holds no NaN there).
    fn index(&mut self, xs: &[T; LANES], lanes: u64) {
        self.scratch.clear();
        let scratch = &mut self.scratch;
        for_each_lane(lanes, |l| scratch.push((xs[l], l as u8)));
        self.scratch
            .sort_unstable_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
        self.values.clear();
        self.below.clear();
        self.below.push(0);
        for &(v, l) in &self.scratch {
            self.values.push(v);
            let prev = self.below[self.below.len() - 1];
            self.below.push(prev | 1 << l);
        }
    }

    /// Every lane indexed.
    fn all(&self) -> u64 {
        self.below.last().copied().unwrap_or(0)
    }

    /// The lanes whose value `cmp k` (`k` not NaN).
    fn lanes(&self, cmp: Cmp, k: T) -> u64 {
        let below = |n: usize| self.below.get(n).copied().unwrap_or(0);
        let less = || below(self.values.partition_point(|v| *v < k));
        let at_most = || below(self.values.partition_point(|v| *v <= k));
        match cmp {
            Cmp::Lt => less(),
            Cmp::Le => at_most(),
            Cmp::Gt => self.all() & !at_most(),
            Cmp::Ge => self.all() & !less(),
            Cmp::Eq | Cmp::Is => at_most() & !less(),
            Cmp::Ne | Cmp::Isnt => self.all() & !(at_most() & !less()),
        }
    }
}

/// A string's identities: ignoring ASCII case (as `==` compares strings) and
/// exact (as `=?=` and the case-sensitive string lists compare them). Equal
/// identities, equal strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ids {
    folded: u32,
    exact: u32,
}

impl Ids {
    /// The identity of a string no column holds.
    const NONE: u32 = u32::MAX;
}

impl Default for Ids {
    fn default() -> Ids {
        Ids {
            folded: Ids::NONE,
            exact: Ids::NONE,
        }
    }
}

/// The identities of the strings a store has seen: every string of its columns,
/// and every constant compared with them (so that a constant's identities, once
/// made, never change).
#[derive(Debug, Default)]
pub(crate) struct StringIds(std::cell::RefCell<Identities>);

#[derive(Debug, Default)]
struct Identities {
    /// Identities ignoring case.
    folded: crate::interner::Interner,
    /// Exact identities.
    exact: ahash::AHashMap<Str, u32>,
    /// Programs' constant strings and their identities, by address (an entry
    /// keeps its string alive, so the address is not reused): a constant is
    /// looked up once per block and program, far more often than columns learn
    /// strings, and this spares hashing its text.
    consts: std::collections::HashMap<usize, (Str, Ids), BuildAddressHasher>,
}

/// Hashes an address with one multiplication: addresses are already unique.
#[derive(Debug, Default, Clone, Copy)]
struct AddressHasher(u64);

impl std::hash::Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64 >> 4).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

type BuildAddressHasher = std::hash::BuildHasherDefault<AddressHasher>;

impl StringIds {
    /// The identities of `s`, made on first sight.
    pub(crate) fn intern(&self, s: &Str) -> Ids {
        self.0.borrow_mut().intern(s)
    }

    /// The identities of constant `s`, made on first sight and remembered by
    /// address.
    pub(crate) fn get_const(&self, s: &Str) -> Ids {
        let key = s.as_str().as_ptr() as usize;
        let mut inner = self.0.borrow_mut();
        if let Some((_, ids)) = inner.consts.get(&key) {
            return *ids;
        }
        let ids = inner.intern(s);
        inner.consts.insert(key, (s.clone(), ids));
        ids
    }
}

impl Identities {
    fn intern(&mut self, s: &Str) -> Ids {
        let folded = self.folded.intern_str(s);
        let next = self.exact.len() as u32;
        let exact = *self.exact.entry(s.clone()).or_insert(next);
        Ids { folded, exact }
    }
}

/// The most columns a block holds before a constant string gets one of its own
/// (see [`TargetBlock::constant`]).
const MAX_CONSTANT_COLUMNS: usize = 256;

/// The most columns a block reopened by [`ColumnStore::reopen`] keeps: past
/// them it opens afresh. A kept block gathers the columns of every program
/// that reads it (each block of slots' START, say), and a matcher keeps many;
/// this bounds each store at what one round of programs needs beyond it.
const MAX_KEPT_COLUMNS: usize = 64;

/// Column storage for blocks of TARGET ads, reused from block to block so that
/// matching a warm pool allocates nothing. One per block a matcher keeps open.
#[derive(Debug, Default)]
pub struct ColumnStore {
    cols: Vec<Column>,
    used: usize,
    /// Shared with the store's siblings: one identity per string across them.
    ids: std::rc::Rc<StringIds>,
    /// The column of each slot in the open block: `(block, column)`, valid when
    /// `block` is the open block's number.
    by_slot: Vec<(u64, u32)>,
    /// The open block's number (0: none yet).
    opened: u64,
    /// The ads of the last block opened (by address), for [`ColumnStore::reopen`].
    last: Vec<usize>,
}

impl ColumnStore {
    /// An empty store.
    pub fn new() -> ColumnStore {
        ColumnStore::default()
    }

    /// Another store whose columns give strings the same identities as this
    /// one's: a matcher that keeps many blocks open gives each its own store,
    /// all siblings, so that a constant string is identified once for them all.
    pub fn sibling(&self) -> ColumnStore {
        ColumnStore {
            ids: self.ids.clone(),
            ..ColumnStore::default()
        }
    }

    /// Opens a block of at most [`LANES`] TARGET ads; its columns are built as
    /// programs read them, and kept while the block lives.
    pub fn block<'a>(&'a mut self, targets: &'a [&'a CompiledAd]) -> TargetBlock<'a> {
        assert!(targets.len() <= LANES, "at most {LANES} targets");
        self.used = 0;
        self.opened += 1;
        self.last.clear();
        self.last
            .extend(targets.iter().map(|&t| t as *const CompiledAd as usize));
        TargetBlock {
            targets,
            store: self,
        }
    }

    /// Opens the block of `targets` again with the columns already built for it,
    /// when they are the ads of the block last opened here (by address: the
    /// caller must not have changed or replaced them since, as the machine's
    /// cache of TARGET-only values requires too); otherwise opens a fresh one
    /// as [`ColumnStore::block`] does. A matcher that meets the same block of
    /// jobs again for every block of slots so builds its columns once.
    pub fn reopen<'a>(&'a mut self, targets: &'a [&'a CompiledAd]) -> TargetBlock<'a> {
        let same = self.opened != 0
            && self.used <= MAX_KEPT_COLUMNS
            && self.last.len() == targets.len()
            && self
                .last
                .iter()
                .zip(targets)
                .all(|(&a, &t)| a == t as *const CompiledAd as usize);
        if !same {
            return self.block(targets);
        }
        TargetBlock {
            targets,
            store: self,
        }
    }
}

/// A block of TARGET ads and the columns built from them so far.
#[derive(Debug)]
pub struct TargetBlock<'a> {
    pub(crate) targets: &'a [&'a CompiledAd],
    pub(crate) store: &'a mut ColumnStore,
}

impl<'a> TargetBlock<'a> {
    /// The ads of the block.
    pub fn targets(&self) -> &'a [&'a CompiledAd] {
        self.targets
    }

    /// The column of `src` if built.
    pub(crate) fn find(&self, src: ColSrc) -> Option<usize> {
        self.store.cols[..self.store.used]
            .iter()
            .position(|c| c.src == src)
    }

    /// Builds the column of `src` from each lane's value (`None`: not known here).
    pub(crate) fn build<'v>(
        &mut self,
        src: ColSrc,
        value: impl Fn(&'a CompiledAd) -> Option<&'v Value>,
    ) -> usize {
        let store = &mut *self.store;
        if store.used == store.cols.len() {
            store.cols.push(Column::new(src));
        }
        let col = &mut store.cols[store.used];
        col.src = src;
        col.logic = Logic::default();
        (col.int, col.real, col.str, col.boolean, col.escape) = (0, 0, 0, 0, 0);
        (
            col.closed,
            col.closed_depth,
            col.closed_cost,
            col.closed_tried,
        ) = (0, 0, 0, false);
        col.closed_by_names.clear();
        for (l, &ad) in self.targets.iter().enumerate() {
            col.set(l, value(ad), &store.ids);
        }
        // Stale even when no lane is set.
        col.drop_index();
        store.used += 1;
        store.used - 1
    }

    /// The column of TARGET's attribute `slot`.
    pub(crate) fn slot(&mut self, slot: u32) -> usize {
        let i = slot as usize;
        let opened = self.store.opened;
        if let Some(&(block, c)) = self.store.by_slot.get(i) {
            if block == opened {
                return c as usize;
            }
        }
        let c = self.build(ColSrc::Slot(slot), |ad| match ad.get(slot) {
            Attr::Absent => Some(&Value::Undefined),
            Attr::Value(v) => Some(v),
            Attr::Code(_) => None,
        });
        let by_slot = &mut self.store.by_slot;
        if by_slot.len() <= i {
            by_slot.resize(i + 1, (0, 0));
        }
        by_slot[i] = (opened, c as u32);
        c
    }

    /// The column of constant string `s` in every lane of the block; `None`
    /// once the block holds [`MAX_CONSTANT_COLUMNS`] columns, so that programs
    /// with ever new constants cannot make every search of the block's columns
    /// long (the constant's lanes then leave the bit-mask tier, as before).
    pub(crate) fn constant(&mut self, s: &Str) -> Option<usize> {
        let src = ColSrc::Const(self.store.ids.get_const(s).exact);
        if let Some(c) = self.find(src) {
            return Some(c);
        }
        if self.store.used >= MAX_CONSTANT_COLUMNS {
            return None;
        }
        let v = Value::Str(s.clone());
        let c = self.build(src, |_| Some(&v));
        self.store.cols[c].constant = v;
        Some(c)
    }

    /// Puts closed value `v` (see module `closed`) in lane `l` of column `c`,
    /// which did not know it: it read `absent` in the other side, and took
    /// `depth` and `cost`. Call [`TargetBlock::closed_filled`] after the last.
    pub(crate) fn fill_closed(
        &mut self,
        c: usize,
        l: usize,
        v: &Value,
        (absent, depth, cost): (&[u32], u32, u64),
    ) {
        let store = &mut *self.store;
        let col = &mut store.cols[c];
        col.escape &= !(1u64 << l);
        col.set(l, Some(v), &store.ids);
        col.closed |= 1u64 << l;
        match col
            .closed_by_names
            .iter_mut()
            .find(|(names, _)| names[..] == *absent)
        {
            Some((_, lanes)) => *lanes |= 1u64 << l,
            None => col.closed_by_names.push((absent.into(), 1u64 << l)),
        }
        col.closed_depth = col.closed_depth.max(depth);
        col.closed_cost = col.closed_cost.max(cost);
    }

    /// Marks column `c` filled once its closed values are in (its index,
    /// stale since, is made again when next needed).
    pub(crate) fn closed_filled(&mut self, c: usize) {
        self.store.cols[c].closed_tried = true;
    }

    /// Column `i`.
    pub(crate) fn col(&self, i: usize) -> &Column {
        &self.store.cols[i]
    }

    /// The string identities of the block's columns.
    pub(crate) fn ids(&self) -> &StringIds {
        &self.store.ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A column's index is made when first needed, and made again once a lane
    /// is set: a closed value filled in after a comparison is compared next
    /// in bulk, as every other lane.
    #[test]
    fn the_index_follows_lanes_filled_after_a_comparison() {
        let code = || Attr::Code(std::sync::Arc::new(crate::program::Program::default()));
        let mut ads = [CompiledAd::new(), CompiledAd::new(), CompiledAd::new()];
        ads[0].set(0, Attr::Value(Value::Int(3)));
        ads[1].set(0, code());
        ads[2].set(0, Attr::Value(Value::Str(Str::from("x"))));
        let targets: Vec<&CompiledAd> = ads.iter().collect();
        let mut store = ColumnStore::new();
        let mut block = store.block(&targets);
        let c = block.slot(0);
        // The lanes' values, for those not compared in bulk (a string against
        // a number, a number against a string).
        let values = [Value::Int(3), Value::Int(7), Value::Str(Str::from("x"))];
        let eq = |block: &TargetBlock<'_>, values: &[Value; 3], k: &Value| {
            let ids = block.ids();
            block.col(c).compare(Cmp::Eq, k, 0b111, ids, |l| &values[l])
        };
        let seven = Value::Int(7);
        assert_eq!(eq(&block, &values, &seven).0.t, 0);
        assert_eq!(eq(&block, &values, &seven).1, 0b010, "lane 1 is code");
        block.fill_closed(c, 1, &seven, (&[], 0, 0));
        block.closed_filled(c);
        let (v, out) = eq(&block, &values, &seven);
        assert_eq!((v.t, out), (0b010, 0));
        assert_eq!(eq(&block, &values, &Value::Int(3)).0.t, 0b001);
        let x = Value::Str(Str::from("X"));
        assert_eq!(eq(&block, &values, &x).0.t, 0b100, "ignoring case");
    }

    #[test]
    fn constant_columns_are_found_again_and_bounded() {
        let ads = [CompiledAd::new(), CompiledAd::new()];
        let targets: Vec<&CompiledAd> = ads.iter().collect();
        let mut store = ColumnStore::new();
        let mut block = store.block(&targets);
        let first = block.constant(&Str::from("a")).unwrap();
        assert_eq!(block.constant(&Str::from("a")), Some(first));
        assert!(matches!(block.col(first).constant, Value::Str(ref s) if s.as_str() == "a"));
        let made = (0..2 * MAX_CONSTANT_COLUMNS)
            .filter_map(|i| block.constant(&Str::from(format!("k{i}").as_str())))
            .count();
        assert_eq!(made, MAX_CONSTANT_COLUMNS - 1);
        // Still found once the block is full.
        assert_eq!(block.constant(&Str::from("a")), Some(first));
    }

    #[test]
    fn reopening_the_same_block_keeps_its_columns_and_another_does_not() {
        let mut ads = [CompiledAd::new(), CompiledAd::new(), CompiledAd::new()];
        for (i, ad) in ads.iter_mut().enumerate() {
            ad.set(3, crate::ad::Attr::Value(Value::Int(i as i64)));
        }
        let (first, second): (Vec<&CompiledAd>, Vec<&CompiledAd>) =
            (ads[..2].iter().collect(), ads[1..].iter().collect());
        let mut store = ColumnStore::new();
        let mut block = store.block(&first);
        let c = block.slot(3);
        let k = block.constant(&Str::from("a")).unwrap();
        let mut again = store.reopen(&first);
        assert_eq!(again.find(ColSrc::Slot(3)), Some(c), "kept");
        assert_eq!(again.slot(3), c);
        assert_eq!(again.constant(&Str::from("a")), Some(k));
        assert_eq!(again.col(c).ints[..2], [0, 1]);
        // Other ads: a fresh block, whose column holds their values.
        let mut other = store.reopen(&second);
        assert_eq!(other.find(ColSrc::Slot(3)), None, "not kept for other ads");
        let c = other.slot(3);
        assert_eq!(other.col(c).ints[..2], [1, 2]);
        // A block opened afresh forgets its columns.
        let fresh = store.block(&second);
        assert_eq!(fresh.find(ColSrc::Slot(3)), None);
        // So does one that gathered more columns than a kept block keeps.
        let mut crowded = store.reopen(&second);
        let c = crowded.slot(3);
        for i in 0..MAX_KEPT_COLUMNS {
            crowded.constant(&Str::from(format!("k{i}").as_str()));
        }
        assert_eq!(store.reopen(&second).find(ColSrc::Slot(3)), None, "{c}");
    }

    #[test]
    fn string_ids_fold_ascii_case_only() {
        let ids = StringIds::default();
        let a = ids.intern(&Str::new("X86_64"));
        let b = ids.intern(&Str::new("x86_64"));
        assert_eq!(a.folded, b.folded);
        assert_ne!(a.exact, b.exact);
        assert_eq!(ids.intern(&Str::new("X86_64")), a);
        assert_ne!(ids.intern(&Str::new("X86_6")).folded, a.folded);
        let (e1, e2) = (ids.intern(&Str::new("É")), ids.intern(&Str::new("é")));
        assert_ne!(e1.folded, e2.folded);
        let e = ids.intern(&Str::new(""));
        assert_ne!(e.folded, a.folded);
    }

    /// A constant is remembered by address, with the identities its text has.
    #[test]
    fn constants_share_their_texts_identities() {
        let ids = StringIds::default();
        let k = Str::new("LINUX");
        let first = ids.get_const(&k);
        let lower = ids.intern(&Str::new("linux"));
        assert_eq!(lower.folded, first.folded);
        assert_ne!(lower.exact, first.exact);
        assert_eq!(ids.intern(&Str::new("LINUX")), first);
        assert_eq!(ids.get_const(&k), first, "remembered");
        assert_eq!(ids.get_const(&Str::new("LINUX")), first, "another address");
    }

    fn grid() -> Vec<Value> {
        let mut g = vec![
            Value::Undefined,
            Value::Error,
            Value::Bool(true),
            Value::Bool(false),
            Value::Str(Str::new("LINUX")),
            Value::Str(Str::new("linux")),
            Value::Str(Str::new("X86_64")),
            Value::Str(Str::new("")),
            Value::Real(f64::NAN),
            Value::Real(-0.0),
            Value::Real(7.5),
            Value::Real(9_007_199_254_740_993.0),
            Value::RelTime(3.0),
        ];
        for i in [0, 1, 7, 8, -1, i64::MAX, i64::MIN, 9_007_199_254_740_993] {
            g.push(Value::Int(i));
        }
        g
    }

    /// An ad holding each value in slot 0.
    fn one_ad_each(values: &[Value]) -> Vec<CompiledAd> {
        values
            .iter()
            .map(|v| {
                let mut ad = CompiledAd::new();
                ad.set(0, Attr::Value(v.clone()));
                ad
            })
            .collect()
    }

    /// Every value of a grid against every constant of it, with every comparison,
    /// on all lanes and on a few, against the machine's operator.
    #[test]
    fn columns_compare_as_the_operator() {
        let grid = grid();
        let ads = one_ad_each(&grid);
        let targets: Vec<&CompiledAd> = ads.iter().collect();
        let mut store = ColumnStore::new();
        let mut block = store.block(&targets);
        let c = block.slot(0);
        // Constants a column has not seen still compare.
        let mut constants = grid.clone();
        constants.push(Value::Str(Str::new("unseen")));
        let all = (1u64 << grid.len()) - 1;
        for k in &constants {
            for cmp in Cmp::ALL {
                // All lanes, and a few.
                for lanes in [all, 0b1010_0110_0101] {
                    let (got, escaped) = block
                        .col(c)
                        .compare(cmp, k, lanes, block.ids(), |l| &grid[l]);
                    assert_eq!(escaped, 0);
                    for (l, v) in grid.iter().enumerate() {
                        let want = Logic::of(&ops::compare(cmp, v, k), lanes & 1 << l);
                        assert_eq!(got.only(1 << l), want, "{v:?} {cmp:?} {k:?}");
                    }
                }
            }
        }
    }

    /// Every value of the grid in every kind of constant set, against the set's
    /// own answer.
    #[test]
    fn columns_test_membership_as_the_sets() {
        let grid = grid();
        let ads = one_ad_each(&grid);
        let targets: Vec<&CompiledAd> = ads.iter().collect();
        let mut store = ColumnStore::new();
        let mut block = store.block(&targets);
        let c = block.slot(0);
        let strs = |xs: &[&str]| xs.iter().map(|x| Str::new(*x)).collect::<Vec<_>>();
        let mixed = vec![
            Value::Str(Str::new("linux")),
            Value::Int(7),
            Value::Str(Str::new("unseen")),
            Value::Bool(true),
        ];
        let many: Vec<Str> = (0..40)
            .map(|i| Str::new(format!("s{i}")))
            .chain(strs(&["LINUX"]))
            .collect();
        let sets = [
            ConstSet::Strings {
                items: strs(&["LINUX", "x86_64"]),
                ignore_case: false,
                list_undefined: false,
            },
            ConstSet::Strings {
                items: strs(&["LINUX", "x86_64"]),
                ignore_case: true,
                list_undefined: false,
            },
            ConstSet::Strings {
                items: many.clone(),
                ignore_case: true,
                list_undefined: false,
            },
            ConstSet::Strings {
                items: vec![],
                ignore_case: false,
                list_undefined: false,
            },
            ConstSet::Strings {
                items: vec![],
                ignore_case: true,
                list_undefined: true,
            },
            ConstSet::Values {
                items: mixed.clone(),
                identical: false,
            },
            ConstSet::Values {
                items: mixed,
                identical: true,
            },
        ];
        let all = (1u64 << grid.len()) - 1;
        for set in &sets {
            for lanes in [all, 0b1010_0110_0101] {
                let (got, escaped) = block.col(c).member(set, lanes, block.ids(), |l| &grid[l]);
                assert_eq!(escaped, 0);
                for (l, v) in grid.iter().enumerate() {
                    let want = Logic::of(&set.contains(v), lanes & 1 << l);
                    assert_eq!(got.only(1 << l), want, "{v:?} in {set:?}");
                }
            }
        }
    }

    #[test]
    fn expressions_are_not_read() {
        let mut ad = CompiledAd::new();
        ad.set(0, Attr::Code(Default::default()));
        let (plain, missing) = (CompiledAd::new(), CompiledAd::new());
        let targets = [&ad, &plain, &missing];
        let mut store = ColumnStore::new();
        let mut block = store.block(&targets);
        let c = block.slot(0);
        let (got, escaped) =
            block
                .col(c)
                .compare(Cmp::Eq, &Value::Int(1), 0b111, block.ids(), |_| {
                    &Value::Undefined
                });
        assert_eq!(escaped, 0b001);
        assert_eq!(got.u, 0b110);
        // A second read finds the column built.
        assert_eq!(block.slot(0), c);
    }
}
