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

    /// The paths interned, by id.
    pub fn paths_in_order(&self) -> Vec<&[u32]> {
        let mut paths: Vec<(&[u32], u32)> = self.paths.iter().map(|(p, &id)| (&**p, id)).collect();
        paths.sort_unstable_by_key(|&(_, id)| id);
        paths.into_iter().map(|(p, _)| p).collect()
    }

    /// Interns every name and path of `other`, in `other`'s order (names by
    /// slot, then paths by id). Parts of a pool interned on several threads,
    /// each into a copy of one table, absorbed in the parts' order, give the
    /// table interning the whole pool in order on one thread gives: each
    /// copy's new entries are in the order its part first met them.
    pub fn absorb(&mut self, other: &SlotTable) {
        // Per slot of `other`, its slot here.
        let slots: Vec<u32> = other
            .names
            .names()
            .iter()
            .map(|name| self.names.intern_str(name))
            .collect();
        for path in other.paths_in_order() {
            // A step past the names is a subscript (`PathStep::index_name`),
            // the same in every table.
            let path: Vec<u32> = path
                .iter()
                .map(|&s| slots.get(s as usize).copied().unwrap_or(s))
                .collect();
            self.intern_path(&path);
        }
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

    #[test]
    fn copies_absorbed_in_order_are_the_table_interned_in_order() {
        // One table interning parts a, b, c in turn ...
        let parts: [(&[&str], &[&[&str]]); 3] = [
            (&["Memory", "Cpus"], &[&["Rec", "Cpus"]]),
            (
                &["cpus", "Disk", "Rec"],
                &[&["Rec", "Disk"], &["Rec", "cpus"]],
            ),
            (&["Arch", "DISK"], &[&["Arch"]]),
        ];
        let intern = |t: &mut SlotTable, (names, paths): (&[&str], &[&[&str]])| {
            for n in names {
                t.intern(n);
            }
            for p in paths {
                let mut slots: Vec<u32> = p.iter().map(|n| t.intern(n)).collect();
                t.intern_path(&slots);
                slots.push(crate::program::PathStep::index_name(2));
                t.intern_path(&slots);
            }
        };
        let mut base = SlotTable::new();
        base.intern("Requirements");
        let mut whole = base.clone();
        for p in parts {
            intern(&mut whole, p);
        }
        // ... and each part into its own copy of the table, absorbed in order.
        let mut merged = base.clone();
        for p in parts {
            let mut copy = base.clone();
            intern(&mut copy, p);
            merged.absorb(&copy);
        }
        assert_eq!(merged.entries(), whole.entries());
        for slot in 0..whole.len() as u32 {
            assert_eq!(merged.name(slot), whole.name(slot));
        }
        assert_eq!(merged.paths_in_order(), whole.paths_in_order());
    }
}
