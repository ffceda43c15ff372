//! What the negotiator's rank expressions read from a job, so that the batch
//! matcher evaluates them once per group of classes that give them the same
//! values: PRE and POST per slot (the names each slot's expressions read), a job's
//! `Rank` per group of classes whose `Rank` gives every slot the same value.
//! Exact by construction: a group needs every name read to be the same exact
//! expression in its classes, and what those names read from the slot to read
//! nothing back from the job.

use super::super::classify::reads_key;
use super::super::refs::{NameSet, References};
use super::super::slot_kinds::SlotKinds;
use crate::ad::ClassAd;
use crate::compile::CompiledClassAd;
use crate::syntax::ast::ExprRef;
use classad_vm::Str;
use rayon::prelude::*;
use std::sync::Arc;

/// Per slot attribute name (lower case), what it can read from a job.
pub(super) type SlotReads = ahash::AHashMap<Box<str>, Option<Vec<Str>>>;

/// Adds to `known` what each of `names` (slot attributes) can read from a job,
/// over all `slots`.
pub(super) fn add_slot_reads(slots: &[CompiledClassAd], names: &[Str], known: &mut SlotReads) {
    let per_slot: Vec<Vec<(usize, Option<NameSet>)>> = slots
        .par_iter()
        .map(|slot| {
            let slot: &ClassAd = &slot.source;
            names
                .iter()
                .enumerate()
                .filter_map(|(i, name)| {
                    let e = slot.get(name)?;
                    if matches!(e.node(), crate::syntax::ast::Node::Lit(_)) {
                        return None;
                    }
                    let r = References::of(slot, e.tree, e.id);
                    Some((i, (r.complete && !r.volatile).then_some(r.external)))
                })
                .collect()
        })
        .collect();
    let mut all: Vec<Option<NameSet>> = vec![Some(NameSet::new()); names.len()];
    for (i, reads) in per_slot.into_iter().flatten() {
        match (all[i].as_mut(), reads) {
            (Some(set), Some(reads)) => reads.iter().for_each(|n| {
                set.insert(n);
            }),
            _ => all[i] = None,
        }
    }
    for (name, reads) in names.iter().zip(all) {
        let key = name.to_ascii_lowercase().into_boxed_str();
        known.insert(key, reads.map(|s| s.iter().cloned().collect()));
    }
}

/// The names `exprs`, evaluated with a slot as MY, can read from a job (TARGET):
/// the union over the slots; `None` when some walk is incomplete or volatile.
/// `kinds` are the slots' kinds (the names a slot's walks reach depend on its
/// kind only).
pub(super) fn rank_reads<'e>(
    slots: &[CompiledClassAd],
    kinds: &SlotKinds,
    exprs: impl Iterator<Item = &'e ExprRef> + Clone + Send + Sync,
) -> RankReads {
    let ads: Vec<&ClassAd> = slots.iter().map(|s| &*s.source).collect();
    let per_slot: Vec<Arc<Option<NameSet>>> = kinds.map(&ads, |slot| {
        let mut names = NameSet::new();
        for e in exprs.clone() {
            let r = References::of(slot, &e.tree, e.id);
            if !r.complete || r.volatile {
                return Arc::new(None);
            }
            r.external.iter().for_each(|n| {
                names.insert(n);
            });
        }
        Arc::new(Some(names))
    });
    RankReads::from_sets(per_slot)
}

impl RankReads {
    /// The reads of each slot given as sets of names (`None`: not known in full);
    /// slots sharing a set (one kind of slot) are looked at once.
    pub(crate) fn from_sets(per_slot: Vec<Arc<Option<NameSet>>>) -> RankReads {
        // The distinct sets, by address (`per_slot` holds them meanwhile).
        let mut distinct: ahash::AHashMap<*const Option<NameSet>, usize> = ahash::AHashMap::new();
        let mut sets: Vec<&Option<NameSet>> = Vec::new();
        for set in &per_slot {
            distinct.entry(Arc::as_ptr(set)).or_insert_with(|| {
                sets.push(set);
                sets.len() - 1
            });
        }
        let mut all = NameSet::new();
        for names in sets.iter().copied().flatten() {
            names.iter().for_each(|n| {
                all.insert(n);
            });
        }
        let names: Vec<Str> = all.iter().cloned().collect();
        let index = |n: &Str| {
            names
                .iter()
                .position(|m| m.eq_ignore_ascii_case(n))
                .expect("in the union") as u16
        };
        let ids: Vec<Option<Vec<u16>>> = sets
            .iter()
            .map(|set| set.as_ref().map(|s| s.iter().map(index).collect()))
            .collect();
        // The sets known in full, numbered by content (kinds of slot often
        // read the same names); each slot's number.
        let mut known: Vec<Vec<u16>> = Vec::new();
        let mut number_of: ahash::AHashMap<&[u16], u32> = ahash::AHashMap::new();
        let numbers: Vec<Option<u32>> = ids
            .iter()
            .map(|set| {
                set.as_deref().map(|s| {
                    *number_of.entry(s).or_insert_with(|| {
                        known.push(s.to_vec());
                        known.len() as u32 - 1
                    })
                })
            })
            .collect();
        let set_of_slot = per_slot
            .iter()
            .map(|set| numbers[distinct[&Arc::as_ptr(set)]])
            .collect();
        let per_slot = per_slot
            .iter()
            .map(|set| ids[distinct[&Arc::as_ptr(set)]].clone())
            .collect();
        RankReads {
            names,
            per_slot,
            sets: known,
            set_of_slot,
        }
    }

    /// Per set of [`RankReads::sets`], per class of a window whose ids are
    /// `ids` ([`class_ids`]), a group: classes of one group give the set's names
    /// the same, so get the same values from every slot that reads that set.
    /// Groups are numbered from 0 in the order of their first class.
    pub(super) fn class_groups(&self, ids: &[Vec<u32>]) -> Vec<Vec<u32>> {
        self.sets
            .iter()
            .map(|set| {
                let mut seen: ahash::AHashMap<smallvec::SmallVec<[u32; 4]>, u32> =
                    ahash::AHashMap::new();
                ids.iter()
                    .map(|class| {
                        let key = set.iter().map(|&n| class[n as usize]).collect();
                        let next = seen.len() as u32;
                        *seen.entry(key).or_insert(next)
                    })
                    .collect()
            })
            .collect()
    }
}

/// What `NEGOTIATOR_PRE_JOB_RANK` and `NEGOTIATOR_POST_JOB_RANK` read from a job.
pub(crate) struct RankReads {
    /// Every name they read from a job, in some slot.
    pub(crate) names: Vec<Str>,
    /// Per slot, the names (indices into `names`) they read there; `None` when
    /// their walk in the slot is incomplete or volatile.
    pub(crate) per_slot: Vec<Option<Vec<u16>>>,
    /// The distinct sets of `per_slot` known in full (one per kind of slot at
    /// most).
    pub(crate) sets: Vec<Vec<u16>>,
    /// Per slot, its set's index in `sets`; `None` when not known in full.
    pub(crate) set_of_slot: Vec<Option<u32>>,
}

/// Per class of a window, per name of [`RankReads::names`], an id of what the
/// class gives that name (its exact text and what it reaches in the job): two
/// classes with equal ids on the names a slot's PRE and POST read get the same
/// values from that slot. An id that cannot be worked out is unique.
pub(crate) fn class_ids(reps: &[Arc<ClassAd>], names: &[Str]) -> Vec<Vec<u32>> {
    let mut ids: Vec<ahash::AHashMap<Vec<u8>, u32>> = vec![Default::default(); names.len()];
    let mut unique = u32::MAX;
    reps.iter()
        .map(|rep| {
            names
                .iter()
                .zip(ids.iter_mut())
                // Closed: a job attribute that reads the slot could read back
                // names this slot's walk does not see.
                .map(
                    |(n, seen)| match reads_key(rep, std::slice::from_ref(n), true) {
                        Some(key) => {
                            let next = seen.len() as u32;
                            *seen.entry(key).or_insert(next)
                        }
                        None => {
                            unique -= 1;
                            unique
                        }
                    },
                )
                .collect()
        })
        .collect()
}

/// An exact key of what `rep` gives the evaluation of its `Rank` against any
/// slot: `Rank` and what it reaches in the job, and, for each name it reads from
/// the slot, what that slot attribute can read back from the job (whose own
/// expressions must read nothing more from the slot); `None` when not known in
/// full, or when the job has no `Rank` (which falls back to the slot's).
pub(super) fn job_rank_key(rep: &ClassAd, slot_reads: &SlotReads) -> Option<Vec<u8>> {
    let rank = rep.get("Rank")?;
    let r = References::of(rep, rank.tree, rank.id);
    if !r.complete || r.volatile {
        return None;
    }
    let mut back = NameSet::new();
    for t in r.external.iter() {
        if let Some(reads) = slot_reads.get(t.to_ascii_lowercase().as_str()) {
            for n in reads.as_ref()? {
                back.insert(n);
            }
        }
    }
    let back: Vec<Str> = back.iter().cloned().collect();
    let mut key = reads_key(rep, &[Str::from("Rank")], false)?;
    key.push(0xfd);
    key.extend(reads_key(rep, &back, true)?);
    Some(key)
}

/// Classes grouped by what their `Rank` gives every slot (see [`job_rank_key`]):
/// a slot's value of it is computed once per group.
pub(super) struct RankGroups {
    /// Per class of the window, its group.
    pub(super) of_class: Vec<u32>,
    /// Per group, its first class.
    pub(super) first: Vec<u32>,
}

impl RankGroups {
    /// The groups of `reps` by their keys (`None`: a group of its own), or `None`
    /// when grouping saves nothing.
    pub(super) fn of(
        reps: &[Arc<ClassAd>],
        key_of: impl Fn(&ClassAd) -> Option<Vec<u8>>,
    ) -> Option<RankGroups> {
        let mut index: ahash::AHashMap<Vec<u8>, u32> = ahash::AHashMap::new();
        let mut g = RankGroups {
            of_class: Vec::with_capacity(reps.len()),
            first: Vec::new(),
        };
        for (c, rep) in reps.iter().enumerate() {
            let next = g.first.len() as u32;
            let key = key_of(rep);
            let id = match key {
                Some(key) => *index.entry(key).or_insert(next),
                None => next,
            };
            if id == next {
                g.first.push(c as u32);
            }
            g.of_class.push(id);
        }
        // Lanes over every class beat one evaluation per class.
        (g.first.len() * 4 <= reps.len()).then_some(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(names: &[&str]) -> Arc<Option<NameSet>> {
        let mut s = NameSet::new();
        names.iter().for_each(|n| {
            s.insert(n);
        });
        Arc::new(Some(s))
    }

    #[test]
    fn slots_reading_alike_share_a_set_and_classes_group_by_what_they_give() {
        // Two kinds of slot reading the same names (distinct allocations), one
        // reading another name, one not known in full.
        let per_slot = vec![
            set(&["Owner"]),
            set(&["owner"]),
            set(&["JobPrio"]),
            Arc::new(None),
        ];
        let reads = RankReads::from_sets(per_slot);
        assert_eq!(reads.sets.len(), 2);
        assert_eq!(reads.set_of_slot[0], reads.set_of_slot[1]);
        assert_ne!(reads.set_of_slot[0], reads.set_of_slot[2]);
        assert_eq!(reads.set_of_slot[3], None);
        let owner = reads
            .names
            .iter()
            .position(|n| n.eq_ignore_ascii_case("owner"))
            .unwrap();
        // Per class, per name of `reads.names`, an id of what it gives it:
        // classes 0 and 2 give Owner the same, class 1 another; all give
        // JobPrio the same.
        let ids: Vec<Vec<u32>> = [5, 6, 5]
            .iter()
            .map(|&o| {
                (0..reads.names.len())
                    .map(|n| if n == owner { o } else { 9 })
                    .collect()
            })
            .collect();
        let groups = reads.class_groups(&ids);
        let of = |slot: usize| &groups[reads.set_of_slot[slot].unwrap() as usize];
        assert_eq!(of(0), &vec![0, 1, 0]);
        assert_eq!(of(2), &vec![0, 0, 0]);
    }
}
