//! The one case-insensitive interner: strings that are equal ignoring ASCII case,
//! as ClassAd attribute names and string comparisons are, to dense `u32` ids.
//!
//! It serves the slot table (attribute names to slots), the job classifier (the
//! names a class looks up) and the string identities of the machine's columns.
//! A lookup folds case while it hashes, eight bytes at a time, and compares
//! without copying, so looking up a name makes no lower-case copy of it, however
//! long. The hash is keyed per table (ahash's random state), so names chosen to
//! collide cannot slow it.

use crate::value::Str;
use std::hash::{BuildHasher, Hasher};

/// Strings to ids `0, 1, 2, ...` in first-seen order, ignoring ASCII case; each id
/// keeps the spelling it was first interned with.
#[derive(Clone, Debug, Default)]
pub struct Interner {
    /// `(hash, id)` of every string, found by hash and compared by text.
    table: hashbrown::HashTable<(u64, u32)>,
    /// The first spelling of each id.
    names: Vec<Str>,
    state: ahash::RandomState,
}

impl Interner {
    /// An empty interner.
    pub fn new() -> Interner {
        Interner::default()
    }

    /// The id of `s`, if it has one.
    pub fn get(&self, s: &str) -> Option<u32> {
        let hash = self.hash(s);
        self.table
            .find(hash, |&(_, id)| {
                same_ignoring_case(&self.names[id as usize], s)
            })
            .map(|&(_, id)| id)
    }

    /// The id of `s`, adding it (with this spelling) if new.
    pub fn intern(&mut self, s: &str) -> u32 {
        self.intern_with(s, || Str::from(s))
    }

    /// [`Interner::intern`] of a string value, kept (not copied) when new.
    pub fn intern_str(&mut self, s: &Str) -> u32 {
        self.intern_with(s, || s.clone())
    }

    fn intern_with(&mut self, s: &str, keep: impl FnOnce() -> Str) -> u32 {
        let hash = self.hash(s);
        let names = &self.names;
        // Found first, inserted only when missing: `entry` costs a check for room
        // even when the string is known, which is nearly always.
        if let Some(&(_, id)) = self
            .table
            .find(hash, |&(_, id)| same_ignoring_case(&names[id as usize], s))
        {
            return id;
        }
        let id = self.names.len() as u32;
        self.table.insert_unique(hash, (hash, id), |&(h, _)| h);
        self.names.push(keep());
        id
    }

    /// The spelling id `id` was first interned with.
    pub fn name(&self, id: u32) -> Option<&Str> {
        self.names.get(id as usize)
    }

    /// Every id's first spelling, by id.
    pub fn names(&self) -> &[Str] {
        &self.names
    }

    /// How many ids there are.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when nothing has been interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The table's hash of `s` with ASCII letters folded to lower case, a word
    /// at a time (no copy of `s` is made).
    fn hash(&self, s: &str) -> u64 {
        let mut h = self.state.build_hasher();
        let mut words = s.as_bytes().chunks_exact(8);
        for w in &mut words {
            h.write_u64(fold_ascii(full_word(w)));
        }
        // The length goes in with the last word: equal words, different lengths.
        let rest = words.remainder();
        h.write_u64(fold_ascii(last_word(rest)) ^ (s.len() as u64).rotate_right(8));
        h.finish()
    }
}

/// Whether `a` and `b` are equal ignoring ASCII case (as ClassAds compare names
/// and strings; other bytes must be equal), compared a word at a time.
fn same_ignoring_case(a: &str, b: &str) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (mut x, mut y) = (a.as_bytes().chunks_exact(8), b.as_bytes().chunks_exact(8));
    for (p, q) in (&mut x).zip(&mut y) {
        if fold_ascii(full_word(p)) != fold_ascii(full_word(q)) {
            return false;
        }
    }
    fold_ascii(last_word(x.remainder())) == fold_ascii(last_word(y.remainder()))
}

/// Eight bytes as a little-endian word.
fn full_word(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes.try_into().expect("eight bytes"))
}

/// Fewer than eight bytes as a little-endian word, zero-padded (built byte by
/// byte: a copy of a variable length would be a call).
fn last_word(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .enumerate()
        .fold(0, |w, (i, &b)| w | u64::from(b) << (8 * i))
}

/// Eight bytes with `A`-`Z` made lower case (other bytes unchanged).
fn fold_ascii(x: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let low7 = x & !HIGH;
    // Per byte, the high bit says: at least `A`; above `Z`.
    let ge_a = low7 + ONES * (0x80 - u64::from(b'A'));
    let gt_z = low7 + ONES * (0x80 - u64::from(b'Z') - 1);
    let upper = ge_a & !gt_z & !x & HIGH;
    x | (upper >> 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_lowers_ascii_letters_only() {
        let all: Vec<u8> = (0..=255).collect();
        for chunk in all.chunks(8) {
            let x = u64::from_le_bytes(chunk.try_into().unwrap());
            let want: Vec<u8> = chunk.iter().map(u8::to_ascii_lowercase).collect();
            assert_eq!(fold_ascii(x).to_le_bytes().to_vec(), want);
        }
    }

    #[test]
    fn ids_ignore_ascii_case_only_and_keep_the_first_spelling() {
        let mut t = Interner::new();
        assert_eq!(t.intern("Memory"), 0);
        assert_eq!(t.intern("Cpus"), 1);
        assert_eq!(t.intern("MEMORY"), 0);
        assert_eq!(t.get("memory"), Some(0));
        assert_eq!(t.get("Memor"), None);
        assert_eq!(t.get("Disk"), None);
        assert_eq!(t.name(0).map(Str::as_str), Some("Memory"));
        // Letters beyond ASCII are compared as bytes.
        let (e1, e2) = (t.intern("É"), t.intern("é"));
        assert_ne!(e1, e2);
        assert_ne!(t.intern(""), 0);
        assert_eq!(t.len(), 5);
    }

    /// Names longer than a word, and differing only past the first eight
    /// bytes or in the last, partial word.
    #[test]
    fn long_names_are_compared_whole() {
        let mut t = Interner::new();
        let long = "A".repeat(64) + "b";
        assert_eq!(t.intern(&long), 0);
        assert_eq!(t.get(&long.to_ascii_lowercase()), Some(0));
        assert_eq!(t.get(&"a".repeat(64)), None);
        assert_eq!(t.intern(&"A".repeat(64)), 1);
        assert_eq!(t.get(&"a".repeat(64)), Some(1));
        assert_eq!(t.intern("RequestMemoryX"), 2);
        assert_eq!(t.intern("requestmemoryy"), 3);
        assert_eq!(t.get("REQUESTMEMORYX"), Some(2));
    }

    /// The word-at-a-time comparison agrees with the standard library's, on
    /// strings that differ in each word, in the last partial word, and in bytes
    /// next to the letters (`@` `[` `` ` `` `{`) that folding must leave alone.
    #[test]
    fn comparing_by_words_is_comparing_ignoring_ascii_case() {
        let words = "|a|A|@|`|[|{|z|Z|abcdefgh|ABCDEFGH|abcdefg@|abcdefg`|abcdefghi|\
                     ABCDEFGHI|abcdefghI|abcdefgh[|abcdefgh{|RequestMemory|requestmemory|\
                     requestmemorx|é|É";
        let words: Vec<&str> = words.split('|').collect();
        assert_eq!(words.len(), 23);
        for &a in &words {
            for &b in &words {
                assert_eq!(
                    same_ignoring_case(a, b),
                    a.eq_ignore_ascii_case(b),
                    "{a:?} {b:?}"
                );
            }
        }
    }

    /// Many names, so the table grows (and rehashes) while ids stay put.
    #[test]
    fn ids_survive_growth() {
        let mut t = Interner::new();
        for i in 0..5_000u32 {
            assert_eq!(t.intern(&format!("Attr{i}")), i);
        }
        for i in 0..5_000u32 {
            assert_eq!(t.get(&format!("ATTR{i}")), Some(i));
        }
        let copy = t.clone();
        assert_eq!(copy.get("attr4999"), Some(4999));
    }
}
