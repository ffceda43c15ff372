//! Calls of builtins answered by an earlier call on the same values.
//!
//! Matching calls a builtin such as `stringListMember(MY.GLIDEIN_Site,
//! TARGET.DESIRED_Sites)` once per slot and job, yet a pool holds few distinct
//! arguments. A call whose builtin depends on its arguments' values alone
//! ([`Host::pure_call`]) is looked up here first, and so is the list
//! `Op::List` makes of its items (`evalInEachContext`'s values): equal items
//! make one list, so that matching a warm pool allocates nothing, and calls on
//! that list share its identity.
//!
//! Exact by construction: scalars are keyed by their bits and strings by their
//! text; lists and records by the identity of what they share ([`Host::identity`]:
//! a list literal's tree), and every entry keeps its arguments alive, so an
//! address in a key cannot be reused by another value while the entry lasts.
//! Two calls with equal keys are calls on the same values.

use crate::machine::{Halt, Host};
use crate::value::Value;
use smallvec::SmallVec;

/// Entries kept before the memo is emptied: a bound on the memory it holds.
const MAX_ENTRIES: usize = 16384;
/// The most bytes of text an entry holds, its arguments' and its value's
/// together. A call on longer strings is made directly (a long text is not
/// hashed), and a value longer than the rest is not kept, nor a builtin's
/// record, nor its list unless [`Host::list_bytes`] knows it to fit: so an
/// entry, which keeps its arguments and value alive, holds at most this much,
/// and the memo at most [`MAX_ENTRIES`] times as much.
const MAX_ENTRY_BYTES: usize = 256;
/// The memo's name for `Op::List`, which no builtin has.
const LIST: u32 = u32::MAX;
/// Calls of a builtin over which the memo judges whether it pays.
const WINDOW: u32 = 1024;
/// Windows of calls made directly after a window that did not pay, before the
/// memo tries again.
const SKIPPED_WINDOWS: u32 = 4;

/// An earlier call and its value.
struct Entry {
    native: u32,
    /// Kept whole: compared with a new call's, and alive for their addresses.
    args: SmallVec<[Value; 3]>,
    value: Value,
    hash: u64,
}

/// Per builtin: its calls through the memo and those answered from it, in the
/// current window; and how many calls are left to make directly.
#[derive(Clone, Copy, Default)]
struct Trial {
    calls: u32,
    hits: u32,
    skip: u32,
}

/// The memo of one machine.
#[derive(Default)]
pub(crate) struct CallMemo {
    /// Found by a hash of the call's arguments, without making a key: a hit
    /// costs a hash and a comparison.
    entries: hashbrown::HashTable<Entry>,
    hasher: ahash::RandomState,
    /// By builtin: a window of [`WINDOW`] calls answered from the memo less
    /// than one time in 16 (a miss costs a key and an entry) makes the next
    /// [`SKIPPED_WINDOWS`] windows' calls direct; then it tries again. Lenient,
    /// because a pool's distinct arguments come first: a job's
    /// `stringListIMember(MY.Owner, TARGET.AllowedUsers)` misses for every
    /// slot's list before the owners repeat.
    trials: Vec<Trial>,
    /// The trial of `Op::List`.
    list_trial: Trial,
}

impl std::fmt::Debug for CallMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CallMemo({} entries)", self.entries.len())
    }
}

impl CallMemo {
    /// Builtin `native` on `args`, through the memo when the host allows it.
    pub(crate) fn call(
        &mut self,
        host: &mut dyn Host,
        native: u32,
        args: &[Value],
    ) -> Result<Value, Halt> {
        if !host.pure_call(native) {
            return host.call(native, args);
        }
        self.through(native, args, host, |h, a| h.call(native, a))
    }

    /// The list of `items` (`Op::List`) through the memo: the same values make
    /// the same list (one value, whose identity the calls on it share).
    pub(crate) fn list(&mut self, host: &mut dyn Host, items: &[Value]) -> Result<Value, Halt> {
        self.through(LIST, items, host, |h, a| h.list(a))
    }

    /// `make(host, args)`, the value of `native` (or [`LIST`]) on `args`,
    /// answered from the memo when it holds it.
    fn through(
        &mut self,
        native: u32,
        args: &[Value],
        host: &mut dyn Host,
        make: impl FnOnce(&mut dyn Host, &[Value]) -> Result<Value, Halt>,
    ) -> Result<Value, Halt> {
        if !self.worth_trying(native) {
            return make(host, args);
        }
        let Some((hash, bytes)) = self.hash(native, args, host) else {
            return make(host, args);
        };
        let hit = self
            .entries
            .find(hash, |e| {
                e.native == native && same_args(&e.args, args, host)
            })
            .map(|e| e.value.clone());
        let trial = self.trial(native);
        trial.calls += 1;
        trial.hits += u32::from(hit.is_some());
        if trial.calls == WINDOW {
            if trial.hits * 16 < trial.calls {
                trial.skip = SKIPPED_WINDOWS * WINDOW;
            }
            (trial.calls, trial.hits) = (0, 0);
        }
        if let Some(v) = hit {
            return Ok(v);
        }
        let value = make(host, args)?;
        let kept = match &value {
            Value::Str(s) => bytes + s.as_str().len() <= MAX_ENTRY_BYTES,
            _ if native == LIST => true,
            // A builtin's list (`split`'s) when its size is known and small.
            Value::List(_) => host
                .list_bytes(&value)
                .is_some_and(|b| bytes + b <= MAX_ENTRY_BYTES),
            Value::Ad(_) => false,
            _ => true,
        };
        if !kept {
            return Ok(value);
        }
        if self.entries.len() >= MAX_ENTRIES {
            self.entries.clear();
        }
        let entry = Entry {
            native,
            args: args.iter().cloned().collect(),
            value: value.clone(),
            hash,
        };
        self.entries.insert_unique(hash, entry, |e| e.hash);
        Ok(value)
    }

    /// The trial of builtin `native` (or of [`LIST`]).
    fn trial(&mut self, native: u32) -> &mut Trial {
        if native == LIST {
            return &mut self.list_trial;
        }
        let i = native as usize;
        if self.trials.len() <= i {
            self.trials.resize(i + 1, Trial::default());
        }
        &mut self.trials[i]
    }

    /// A hash of a call on `args` that calls on the same values share, and the
    /// bytes of text in `args`; `None` when an argument has no identity or the
    /// text passes [`MAX_ENTRY_BYTES`].
    fn hash(&self, native: u32, args: &[Value], host: &dyn Host) -> Option<(u64, usize)> {
        use std::hash::{BuildHasher, Hash, Hasher};
        let mut h = self.hasher.build_hasher();
        native.hash(&mut h);
        let mut bytes = 0;
        for a in args {
            std::mem::discriminant(a).hash(&mut h);
            match a {
                Value::Undefined | Value::Error => {}
                Value::Bool(b) => b.hash(&mut h),
                Value::Int(i) => i.hash(&mut h),
                Value::Real(r) | Value::RelTime(r) => r.to_bits().hash(&mut h),
                Value::Str(s) => {
                    bytes += s.as_str().len();
                    if bytes > MAX_ENTRY_BYTES {
                        return None;
                    }
                    s.as_str().hash(&mut h)
                }
                Value::AbsTime(t) => (t.secs, t.offset).hash(&mut h),
                Value::List(_) | Value::Ad(_) => host.identity(a)?.hash(&mut h),
            }
        }
        Some((h.finish(), bytes))
    }

    /// False while builtin `native`'s calls are made directly.
    fn worth_trying(&mut self, native: u32) -> bool {
        let t = self.trial(native);
        if t.skip > 0 {
            t.skip -= 1;
            return false;
        }
        true
    }

    /// Forgets every entry (and lets every builtin try again).
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
        self.trials.clear();
        self.list_trial = Trial::default();
    }
}

/// True when `a` and `b` are the same values: scalars bit for bit, strings
/// text for text, lists and records by their identities.
fn same_args(a: &[Value], b: &[Value], host: &dyn Host) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Value::Undefined, Value::Undefined) | (Value::Error, Value::Error) => true,
            (Value::Bool(p), Value::Bool(q)) => p == q,
            (Value::Int(p), Value::Int(q)) => p == q,
            (Value::Real(p), Value::Real(q)) | (Value::RelTime(p), Value::RelTime(q)) => {
                p.to_bits() == q.to_bits()
            }
            (Value::Str(p), Value::Str(q)) => p.as_str() == q.as_str(),
            (Value::AbsTime(p), Value::AbsTime(q)) => (p.secs, p.offset) == (q.secs, q.offset),
            (Value::List(_), Value::List(_)) | (Value::Ad(_), Value::Ad(_)) => {
                host.identity(x).is_some() && host.identity(x) == host.identity(y)
            }
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts its calls; `size` of a string, pure unless `impure`.
    #[derive(Default)]
    struct Counting {
        calls: usize,
        impure: bool,
    }

    impl Host for Counting {
        /// Builtin 0 is `size`; 2 repeats its string twice; 3 makes a list.
        fn call(&mut self, native: u32, args: &[Value]) -> Result<Value, Halt> {
            self.calls += 1;
            match (native, &args[0]) {
                (2, Value::Str(s)) => Ok(Value::str(s.as_str().repeat(2))),
                (3, _) => Ok(Value::List(crate::value::Host::new(0u8))),
                (_, Value::Str(s)) => Ok(Value::Int(s.as_str().len() as i64)),
                _ => Err(Halt::NeedReference),
            }
        }
        fn index(&mut self, _: &Value, _: &Value) -> Result<Value, Halt> {
            Err(Halt::NeedReference)
        }
        fn pure_call(&self, _: u32) -> bool {
            !self.impure
        }
        fn list(&mut self, items: &[Value]) -> Result<Value, Halt> {
            self.calls += 1;
            Ok(Value::List(crate::value::Host::new(items.len())))
        }
        /// Builtin 3's lists hold `LIST_BYTES`.
        fn list_bytes(&self, v: &Value) -> Option<usize> {
            match v {
                Value::List(h) => h.downcast::<u8>().map(|_| LIST_BYTES),
                _ => None,
            }
        }
    }

    const LIST_BYTES: usize = 100;

    #[test]
    fn long_texts_are_neither_hashed_nor_kept() {
        let (mut memo, mut host) = (CallMemo::default(), Counting::default());
        let long = Value::str("x".repeat(MAX_ENTRY_BYTES + 1));
        for _ in 0..2 {
            memo.call(&mut host, 0, std::slice::from_ref(&long))
                .unwrap();
        }
        assert_eq!((host.calls, memo.entries.len()), (2, 0));
        // At the bound, kept.
        let edge = Value::str("x".repeat(MAX_ENTRY_BYTES));
        for _ in 0..2 {
            memo.call(&mut host, 0, std::slice::from_ref(&edge))
                .unwrap();
        }
        assert_eq!((host.calls, memo.entries.len()), (3, 1));
        // A value that would pass the bound, and a builtin's list that would:
        // not kept.
        let half = Value::str("x".repeat(MAX_ENTRY_BYTES - LIST_BYTES + 1));
        for native in [2, 3] {
            for _ in 0..2 {
                memo.call(&mut host, native, std::slice::from_ref(&half))
                    .unwrap();
            }
        }
        assert_eq!((host.calls, memo.entries.len()), (7, 1));
    }

    /// A builtin's list (`split`'s) is kept when the host knows its size and
    /// the entry stays within the bound: the benchmark pool splits a string
    /// per pair.
    #[test]
    fn small_builtin_lists_are_kept() {
        let (mut memo, mut host) = (CallMemo::default(), Counting::default());
        let short = Value::str("x".repeat(MAX_ENTRY_BYTES - LIST_BYTES));
        for _ in 0..3 {
            memo.call(&mut host, 3, std::slice::from_ref(&short))
                .unwrap();
        }
        assert_eq!((host.calls, memo.entries.len()), (1, 1));
        let longer = Value::str("x".repeat(MAX_ENTRY_BYTES - LIST_BYTES + 1));
        for _ in 0..2 {
            memo.call(&mut host, 3, std::slice::from_ref(&longer))
                .unwrap();
        }
        assert_eq!((host.calls, memo.entries.len()), (3, 1));
    }

    #[test]
    fn equal_items_make_one_list() {
        let (mut memo, mut host) = (CallMemo::default(), Counting::default());
        let addr = |v: Value| match v {
            Value::List(h) => h.addr(),
            _ => unreachable!(),
        };
        let a = [Value::str("x"), Value::Int(1)];
        let first = addr(memo.list(&mut host, &a).unwrap());
        let again = addr(
            memo.list(&mut host, &[Value::str("x"), Value::Int(1)])
                .unwrap(),
        );
        let other = addr(
            memo.list(&mut host, &[Value::str("x"), Value::Real(1.0)])
                .unwrap(),
        );
        assert_eq!(first, again);
        assert_ne!(first, other);
        assert_eq!(host.calls, 2);
    }

    #[test]
    fn the_same_value_is_answered_from_the_memo() {
        let (mut memo, mut host) = (CallMemo::default(), Counting::default());
        let s = Value::str("abc");
        for _ in 0..3 {
            assert!(matches!(
                memo.call(&mut host, 0, std::slice::from_ref(&s)),
                Ok(Value::Int(3))
            ));
        }
        assert_eq!(host.calls, 1);
        // Equal text in another string is the same key; other text is not.
        assert!(matches!(
            memo.call(&mut host, 0, &[Value::str("abc")]),
            Ok(Value::Int(3))
        ));
        assert_eq!(host.calls, 1);
        let t = Value::str("abcd");
        assert!(matches!(memo.call(&mut host, 0, &[t]), Ok(Value::Int(4))));
        assert_eq!(host.calls, 2);
    }

    #[test]
    fn impure_builtins_and_failures_are_always_called() {
        let (mut memo, mut host) = (
            CallMemo::default(),
            Counting {
                impure: true,
                ..Counting::default()
            },
        );
        let s = Value::str("abc");
        memo.call(&mut host, 0, std::slice::from_ref(&s)).unwrap();
        memo.call(&mut host, 0, &[s]).unwrap();
        assert_eq!(host.calls, 2);
        host.impure = false;
        assert!(memo.call(&mut host, 1, &[Value::Int(1)]).is_err());
        assert!(memo.call(&mut host, 1, &[Value::Int(1)]).is_err());
        assert_eq!(host.calls, 4);
    }

    #[test]
    fn a_builtin_that_seldom_repeats_is_called_directly_for_a_while() {
        let (mut memo, mut host) = (CallMemo::default(), Counting::default());
        let mut unique = (0..).map(|i: u32| Value::str(i.to_string()));
        for s in unique.by_ref().take(WINDOW as usize) {
            memo.call(&mut host, 0, &[s]).unwrap();
        }
        let kept = memo.entries.len();
        assert_eq!(kept, WINDOW as usize);
        // Direct calls now: nothing is kept, a repeat is called again.
        let s = Value::str("again");
        for _ in 0..SKIPPED_WINDOWS * WINDOW {
            memo.call(&mut host, 0, std::slice::from_ref(&s)).unwrap();
        }
        assert_eq!(memo.entries.len(), kept);
        assert_eq!(host.calls, ((1 + SKIPPED_WINDOWS) * WINDOW) as usize);
        // Then the memo tries again.
        memo.call(&mut host, 0, std::slice::from_ref(&s)).unwrap();
        memo.call(&mut host, 0, std::slice::from_ref(&s)).unwrap();
        assert_eq!(host.calls, ((1 + SKIPPED_WINDOWS) * WINDOW) as usize + 1);
    }

    #[test]
    fn the_memo_stays_bounded() {
        let (mut memo, mut host) = (CallMemo::default(), Counting::default());
        let strings: Vec<Value> = (0..MAX_ENTRIES + 10)
            .map(|i| Value::str(i.to_string()))
            .collect();
        // Each asked twice, so the trial keeps the memo on.
        for s in &strings {
            memo.call(&mut host, 0, std::slice::from_ref(s)).unwrap();
            memo.call(&mut host, 0, std::slice::from_ref(s)).unwrap();
        }
        assert!(memo.entries.len() <= MAX_ENTRIES);
    }
}
