//! Expression trees shared by the parts of one file read in parallel: each part
//! parses a text the first time any part meets it, so every ad of the file that
//! holds a text holds one tree, as HTCondor's classad cache shares them across a
//! whole queue. Later stages that tell expressions apart by their tree (the
//! autoclusters' check of a job against the last one's class) then find them
//! alike by address, not by printing them.

use crate::syntax::ast::ExprRef;
use std::sync::RwLock;

/// How many texts the table keeps, and how long a text may be: past either, a
/// part keeps its own trees (as exactly; only the sharing is lost).
const MAX_TEXTS: usize = 1 << 16;
const MAX_TEXT_LEN: usize = 4096;

/// The trees of the expression texts met so far in a file, by text.
#[derive(Default)]
pub(in crate::ad) struct SharedExprs {
    trees: RwLock<ahash::AHashMap<Box<str>, ExprRef>>,
}

impl SharedExprs {
    /// The tree of `text` if a part parsed it already.
    pub(super) fn get(&self, text: &str) -> Option<ExprRef> {
        let trees = self.trees.read().unwrap_or_else(|e| e.into_inner());
        trees.get(text).cloned()
    }

    /// Keeps `tree`, parsed from `text`, for the other parts; returns the tree
    /// to use (another part's, if it got there first).
    pub(super) fn offer(&self, text: &str, tree: ExprRef) -> ExprRef {
        if text.len() > MAX_TEXT_LEN {
            return tree;
        }
        let mut trees = self.trees.write().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = trees.get(text) {
            return t.clone();
        }
        if trees.len() < MAX_TEXTS {
            trees.insert(text.into(), tree.clone());
        }
        tree
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_across_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<SharedExprs>();
    }
}
