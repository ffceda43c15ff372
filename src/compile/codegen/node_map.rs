//! Per-node memos of the code generator: a value for each node of the subtree
//! being compiled, held in a vector over the span of its node ids. The
//! generator asks several questions at every node (is it known, pure, read
//! from TARGET alone, how deep does it sit), and hashing every question was a
//! good part of compiling a pool.

use crate::syntax::ast::NodeId;

/// A map from node ids to `V`, every id mapped (to `V::default()` until set).
/// Ids from `lo` to `hi` go to a vector; any other id (the generator only asks
/// about the subtree it compiles, but nothing relies on that) to a hash map.
pub(super) struct NodeMap<V> {
    lo: NodeId,
    dense: Vec<V>,
    rest: ahash::AHashMap<NodeId, V>,
    empty: V,
}

/// A span this many times the subtree's node count, or more, is held sparse:
/// a subtree's ids are contiguous as the parser makes them, but need not be.
const MAX_SPAN_PER_NODE: usize = 4;

impl<V: Default + Clone> NodeMap<V> {
    /// A map dense over the ids `lo..=hi` of a subtree of `nodes` nodes.
    pub(super) fn covering(lo: NodeId, hi: NodeId, nodes: u32) -> NodeMap<V> {
        let span = hi.saturating_sub(lo) as usize + 1;
        let dense = if span <= MAX_SPAN_PER_NODE * nodes as usize + 64 {
            vec![V::default(); span]
        } else {
            Vec::new()
        };
        NodeMap {
            lo,
            dense,
            rest: ahash::AHashMap::new(),
            empty: V::default(),
        }
    }

    /// An empty map over the same span.
    pub(super) fn fresh(&self) -> NodeMap<V> {
        NodeMap {
            lo: self.lo,
            dense: vec![V::default(); self.dense.len()],
            rest: ahash::AHashMap::new(),
            empty: V::default(),
        }
    }

    /// Every id back to `V::default()`.
    pub(super) fn clear(&mut self) {
        self.dense.fill(V::default());
        self.rest.clear();
    }

    fn index(&self, id: NodeId) -> Option<usize> {
        let i = id.checked_sub(self.lo)? as usize;
        (i < self.dense.len()).then_some(i)
    }

    /// The value of `id`.
    pub(super) fn get(&self, id: NodeId) -> &V {
        match self.index(id) {
            Some(i) => &self.dense[i],
            None => self.rest.get(&id).unwrap_or(&self.empty),
        }
    }

    /// The value of `id`, to change.
    pub(super) fn get_mut(&mut self, id: NodeId) -> &mut V {
        match self.index(id) {
            Some(i) => &mut self.dense[i],
            None => self.rest.entry(id).or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_in_and_out_of_the_span_keep_their_values() {
        let mut m: NodeMap<u32> = NodeMap::covering(10, 20, 11);
        for id in [0, 9, 10, 15, 20, 21, 1_000_000, NodeId::MAX] {
            assert_eq!(*m.get(id), 0);
            *m.get_mut(id) = id / 2 + 1;
        }
        for id in [0, 9, 10, 15, 20, 21, 1_000_000, NodeId::MAX] {
            assert_eq!(*m.get(id), id / 2 + 1, "{id}");
        }
        assert_eq!(*m.get(16), 0);
        let fresh = m.fresh();
        m.clear();
        for id in [0, 10, 15, 20, 21, NodeId::MAX] {
            assert_eq!((*m.get(id), *fresh.get(id)), (0, 0));
        }
    }

    #[test]
    fn a_span_far_wider_than_the_subtree_stays_sparse() {
        let mut m: NodeMap<u8> = NodeMap::covering(0, 1_000_000, 3);
        assert!(m.dense.is_empty());
        *m.get_mut(500_000) = 7;
        assert_eq!(*m.get(500_000), 7);
        assert_eq!(*m.get(3), 0);
    }
}
