//! The slot table: attribute names (case-insensitive, through the one
//! [`crate::interner`]) and paths of names through records, to dense `u32` ids.

use crate::interner::Interner;
use ahash::AHashMap as HashMap;

/// Maps attribute names, ignoring ASCII case as ClassAds do, to slot numbers
/// `0, 1, 2, ...` in first-seen order. One table serves a whole pool, so that a
/// slot means the same attribute in every ad compiled against it.
#[derive(Clone, Debug, Default)]
pub struct SlotTable {
    names: Interner,
    /// Paths of names through record literals (slots of the names, outermost
    /// first) to dense ids, apart from the attribute slots so that no attribute
    /// name can pass for a path.
    paths: HashMap<Box<[u32]>, u32>,
}

impl SlotTable {
    /// An empty table.
    pub fn new() -> SlotTable {
        SlotTable::default()
    }

    /// The id of the path `names` (slots of names, outermost first), adding it if
    /// new: see [`crate::ad::Field`].
    pub fn intern_path(&mut self, names: &[u32]) -> u32 {
        if let Some(&id) = self.paths.get(names) {
            return id;
        }
        let id = self.paths.len() as u32;
        self.paths.insert(names.into(), id);
        id
    }

    /// The slot of `name`, adding it if new.
    pub fn intern(&mut self, name: &str) -> u32 {
        self.names.intern(name)
    }

    /// The slot of `name`, if it has one.
    pub fn get(&self, name: &str) -> Option<u32> {
        self.names.get(name)
    }

    /// The name a slot was first interned under.
    pub fn name(&self, slot: u32) -> Option<&str> {
        self.names.name(slot).map(|s| s.as_str())
    }

    /// How many slots there are.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// How many names and paths the table holds: a copy of the table that
    /// interned nothing new still has as many.
    pub fn entries(&self) -> usize {
        self.names.len() + self.paths.len()
    }

    /// True when no name has been interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_ignore_case_and_slots_are_dense() {
        let mut t = SlotTable::new();
        assert_eq!(t.intern("Memory"), 0);
        assert_eq!(t.intern("Cpus"), 1);
        assert_eq!(t.intern("MEMORY"), 0);
        assert_eq!(t.get("memory"), Some(0));
        assert_eq!(t.get("Disk"), None);
        assert_eq!(t.name(0), Some("Memory"));
        assert_eq!(t.len(), 2);
    }
}
