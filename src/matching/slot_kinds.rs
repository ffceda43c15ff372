//! Slots of one kind: what a walk of a slot's expressions finds (the names they
//! read, in the slot and from a job) depends only on the names the slot defines
//! and on its expressions that are not literals, which slots of one kind share.
//! A pool has a few kinds and thousands of slots, so walks are made once per kind.

use super::classify::exact_text;
use crate::ad::ClassAd;
use crate::syntax::ast::Node;
use rayon::prelude::*;
use std::hash::Hasher;
use std::sync::Arc;

/// Slots per unit of parallel work (each unit walks each of its kinds once).
const SLOT_CHUNK: usize = 512;

/// A hash of what a slot's walks depend on: the names it defines and each
/// attribute that is not a literal (walks do not look at literals' values): a
/// shared tree's node, or one in the ad's own arena (told apart by its exact
/// text, in [`same_kind`]). Names are hashed by the address of their text: the
/// ads of a file share their names' texts, and two slots whose equal names are
/// held apart only hash apart (each is then walked, as exactly). Nothing is
/// allocated: a pool's slots define a hundred names each.
fn kind_hash(slot: &ClassAd) -> u64 {
    let mut h = ahash::AHasher::default();
    h.write_usize(slot.len());
    for (name, e) in slot.iter() {
        h.write_usize(name.as_str().as_ptr() as usize);
        match e.node() {
            Node::Lit(_) => h.write_u8(0),
            _ if slot.owns(e) => h.write_u8(1),
            _ => {
                h.write_u8(2);
                h.write_usize(Arc::as_ptr(e.tree) as usize);
                h.write_u32(e.id);
            }
        }
    }
    h.finish()
}

/// True when the walks of `a` and `b` find the same (see [`kind_hash`]): the
/// same names, and the same expressions where either is not a literal.
fn same_kind(a: &ClassAd, b: &ClassAd) -> bool {
    a.len() == b.len()
        && a.iter().zip(b.iter()).all(|((na, ea), (nb, eb))| {
            // Names of one file share their text: told by address first.
            if !std::ptr::eq(na.as_str(), nb.as_str()) && na.as_str() != nb.as_str() {
                return false;
            }
            match (ea.node(), eb.node()) {
                (Node::Lit(_), Node::Lit(_)) => true,
                (Node::Lit(_), _) | (_, Node::Lit(_)) => false,
                _ if Arc::ptr_eq(ea.tree, eb.tree) && ea.id == eb.id => true,
                _ if a.owns(ea) && b.owns(eb) => {
                    let (mut ta, mut tb) = (Vec::new(), Vec::new());
                    exact_text(ea.tree, ea.id, &mut ta)
                        && exact_text(eb.tree, eb.id, &mut tb)
                        && ta == tb
                }
                _ => false,
            }
        })
}

/// The kinds of a list of slots: per slot its kind's number, and per kind the
/// first slot of it. Worked out once for several walks of the same slots.
pub(crate) struct SlotKinds {
    of_slot: Vec<u32>,
    first: Vec<u32>,
}

impl SlotKinds {
    /// The kinds of `slots` (on rayon's threads). Kinds are told within runs of
    /// [`SLOT_CHUNK`] slots: a kind that recurs in another run is walked again
    /// there, as exactly.
    pub(crate) fn of<S: AsRef<ClassAd> + Sync>(slots: &[S]) -> SlotKinds {
        let parts: Vec<(Vec<u32>, Vec<u32>)> = slots
            .par_chunks(SLOT_CHUNK)
            .enumerate()
            .map(|(c, chunk)| {
                // By hash: the kinds met (their first slot in the chunk).
                let mut kinds: ahash::AHashMap<u64, smallvec::SmallVec<[u32; 1]>> =
                    ahash::AHashMap::new();
                let mut first: Vec<u32> = Vec::new();
                let of_slot = chunk
                    .iter()
                    .enumerate()
                    .map(|(i, slot)| {
                        let slot = slot.as_ref();
                        let seen = kinds.entry(kind_hash(slot)).or_default();
                        if let Some(&k) = seen
                            .iter()
                            .find(|&&k| same_kind(chunk[first[k as usize] as usize].as_ref(), slot))
                        {
                            return k;
                        }
                        first.push(i as u32);
                        seen.push(first.len() as u32 - 1);
                        first.len() as u32 - 1
                    })
                    .collect();
                let base = (c * SLOT_CHUNK) as u32;
                (of_slot, first.into_iter().map(|i| base + i).collect())
            })
            .collect();
        let mut kinds = SlotKinds {
            of_slot: Vec::with_capacity(slots.len()),
            first: Vec::new(),
        };
        for (of_slot, first) in parts {
            let offset = kinds.first.len() as u32;
            kinds
                .of_slot
                .extend(of_slot.into_iter().map(|k| k + offset));
            kinds.first.extend(first);
        }
        kinds
    }

    /// `walk(slot)` for every slot of `slots` (those these kinds are of), walked
    /// once per kind: `walk` must depend on nothing of a slot but its kind (the
    /// names it reads and the expressions it walks, not literal values).
    pub(crate) fn map<S, T>(&self, slots: &[S], walk: impl Fn(&ClassAd) -> T + Sync) -> Vec<T>
    where
        S: AsRef<ClassAd> + Sync,
        T: Clone + Send + Sync,
    {
        debug_assert_eq!(slots.len(), self.of_slot.len());
        let walked: Vec<T> = self
            .first
            .par_iter()
            .map(|&s| walk(slots[s as usize].as_ref()))
            .collect();
        self.of_slot
            .par_iter()
            .map(|&k| walked[k as usize].clone())
            .collect()
    }
}

/// `walk(slot)` for every slot of `slots` (on rayon's threads), worked out once
/// per kind of slot (see [`SlotKinds::map`]).
pub(crate) fn by_kind<S, T>(slots: &[S], walk: impl Fn(&ClassAd) -> T + Sync) -> Vec<T>
where
    S: AsRef<ClassAd> + Sync,
    T: Clone + Send + Sync,
{
    SlotKinds::of(slots).map(slots, walk)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// The walk's result for each slot, and how many walks were made.
    fn walks(slots: &[ClassAd]) -> (Vec<String>, usize) {
        let count = AtomicUsize::new(0);
        let out = by_kind(slots, |slot| {
            count.fetch_add(1, Ordering::Relaxed);
            // Depends on the names and the non-literal expressions only.
            slot.iter()
                .filter(|(_, e)| !matches!(e.node(), Node::Lit(_)))
                .map(|(n, e)| {
                    let mut text = String::new();
                    crate::syntax::unparse::unparse_node(e.tree, e.id, &mut text);
                    format!("{n}={text}")
                })
                .collect::<Vec<_>>()
                .join(";")
        });
        (out, count.into_inner())
    }

    #[test]
    fn slots_of_one_kind_are_walked_once_and_others_apart() {
        let text = "A = 1\nR = B > 2\n\nA = 5\nR = B > 2\n\nA = 1\nR = B > 3\n\n\
                    A = 1\nR = B > 2\nC = 1\n\nA = {1, 2}\nR = B > 2\n\nA = {1, 2}\nR = B > 2\n";
        let slots = read_ads(text, "slots").unwrap();
        let (out, count) = walks(&slots);
        assert_eq!(out[0], out[1]);
        assert_ne!(out[0], out[2]);
        assert_eq!(out[4], out[5]);
        // Kinds: {0, 1}, {2}, {3}, {4, 5}.
        assert_eq!(count, 4);
        // The same walks, slot by slot, as walking each on its own.
        for (slot, got) in slots.iter().zip(&out) {
            assert_eq!(&walks(std::slice::from_ref(slot)).0[0], got);
        }
    }

    #[test]
    fn slots_read_apart_are_alike_by_text() {
        // Two files: names and trees held apart; each slot still gets the walk
        // of its own kind.
        let a = read_ads("A = 1\nR = B > 2\n", "a").unwrap();
        let b = read_ads("A = 2\nR = B > 3\n", "b").unwrap();
        let c = read_ads("A = 3\nR = B > 2\n", "c").unwrap();
        let slots = [a, b, c].concat();
        let (out, _) = walks(&slots);
        assert_eq!(out[0], out[2]);
        assert_ne!(out[0], out[1]);
        assert!(same_kind(&slots[0], &slots[0]));
        assert!(!same_kind(&slots[0], &slots[2]), "trees held apart");
    }
}
