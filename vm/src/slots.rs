//! The attribute-name interner: case-insensitive names to dense `u32` slots.

use ahash::AHashMap as HashMap;

/// Maps attribute names, ignoring ASCII case as ClassAds do, to slot numbers
/// `0, 1, 2, ...` in first-seen order. One table serves a whole pool, so that a
/// slot means the same attribute in every ad compiled against it.
#[derive(Clone, Debug, Default)]
pub struct SlotTable {
    slots: HashMap<Box<[u8]>, u32>,
    names: Vec<String>,
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
        if let Some(s) = self.get(name) {
            return s;
        }
        let key: Box<[u8]> = name.bytes().map(|b| b.to_ascii_lowercase()).collect();
        let s = self.names.len() as u32;
        self.slots.insert(key, s);
        self.names.push(name.to_string());
        s
    }

    /// The slot of `name`, if it has one.
    pub fn get(&self, name: &str) -> Option<u32> {
        // Lower-cased on the stack, in one copy and one pass over the bytes:
        // compiling a pool looks up every name of every ad, and a heap key per
        // lookup was a fifth of the time (pushing byte by byte, a tenth).
        let mut buf = [0u8; 64];
        match buf.get_mut(..name.len()) {
            Some(key) => {
                key.copy_from_slice(name.as_bytes());
                key.make_ascii_lowercase();
                self.slots.get(&*key).copied()
            }
            None => self
                .slots
                .get(name.to_ascii_lowercase().as_bytes())
                .copied(),
        }
    }

    /// The name a slot was first interned under.
    pub fn name(&self, slot: u32) -> Option<&str> {
        self.names.get(slot as usize).map(String::as_str)
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

    #[test]
    fn long_names_ignore_case_too() {
        let mut t = SlotTable::new();
        let long = "A".repeat(64) + "b";
        assert_eq!(t.intern(&long), 0);
        assert_eq!(t.get(&long.to_ascii_lowercase()), Some(0));
        assert_eq!(t.get(&"a".repeat(64)), None);
        assert_eq!(t.intern(&"A".repeat(64)), 1);
        assert_eq!(t.get(&"a".repeat(64)), Some(1));
    }
}
