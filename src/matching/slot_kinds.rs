//! Slots of one kind: what a walk of a slot's expressions finds (the names they
//! read, in the slot and from a job) depends only on the names the slot defines
//! and on its expressions that are not literals, which slots of one kind share.
//! A pool has a few kinds and thousands of slots, so walks are made once per kind.

use super::classify::exact_text;
use crate::ad::ClassAd;
use crate::syntax::ast::Node;
use rayon::prelude::*;
use std::sync::Arc;

/// Slots per unit of parallel work (each unit walks each of its kinds once).
const SLOT_CHUNK: usize = 512;

/// What a slot's walks depend on: the names it defines and each attribute that
/// is not a literal (walks do not look at literals' values): a shared tree's
/// node, or the exact text of one in the ad's own arena (a list of numbers).
type SlotKind<'a> = Vec<(&'a str, Option<KindOf>)>;

/// An attribute's part of a [`SlotKind`].
#[derive(PartialEq, Eq, Hash)]
enum KindOf {
    Shared(usize, u32),
    Own(Vec<u8>),
}

/// The kind of `slot` (see [`SlotKind`]).
fn slot_kind(slot: &ClassAd) -> SlotKind<'_> {
    slot.iter()
        .map(|(name, e)| {
            let kind = match e.node() {
                Node::Lit(_) => None,
                _ => {
                    let mut text = Vec::new();
                    Some(if slot.owns(e) && exact_text(e.tree, e.id, &mut text) {
                        KindOf::Own(text)
                    } else {
                        KindOf::Shared(Arc::as_ptr(e.tree) as usize, e.id)
                    })
                }
            };
            (name.as_str(), kind)
        })
        .collect()
}

/// `walk(slot)` for every slot of `slots` (on rayon's threads), worked out once
/// per kind of slot: `walk` must depend on nothing of a slot but its kind (the
/// names it reads and the expressions it walks, not literal values).
pub(crate) fn by_kind<S, T>(slots: &[S], walk: impl Fn(&ClassAd) -> T + Sync) -> Vec<T>
where
    S: AsRef<ClassAd> + Sync,
    T: Clone + Send,
{
    slots
        .par_chunks(SLOT_CHUNK)
        .flat_map_iter(|chunk| {
            let mut kinds: ahash::AHashMap<SlotKind<'_>, T> = ahash::AHashMap::new();
            chunk
                .iter()
                .map(|slot| {
                    let slot = slot.as_ref();
                    kinds
                        .entry(slot_kind(slot))
                        .or_insert_with(|| walk(slot))
                        .clone()
                })
                .collect::<Vec<_>>()
        })
        .collect()
}
