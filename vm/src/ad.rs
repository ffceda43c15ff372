//! A compiled ad: its attributes indexed by slot, each a constant or a program.

use crate::program::Program;
use crate::value::Value;
use std::sync::Arc;

/// One attribute of a compiled ad.
#[derive(Clone, Debug, Default)]
pub enum Attr {
    /// The ad has no such attribute.
    #[default]
    Absent,
    /// A literal value.
    Value(Value),
    /// An expression, evaluated lazily in the ad's own scope.
    Code(Arc<Program>),
}

/// What a path of names through an ad's record literals leads to (see
/// [`crate::program::PathSelect`]): the path `[a]` is the attribute `a` itself,
/// `[a, b]` field `b` of `a`'s record literal, and so on.
#[derive(Clone, Debug, Default)]
pub enum Field {
    /// Nothing there: the record has no such field (or the path is no record's).
    #[default]
    Absent,
    /// A literal value.
    Value(Value),
    /// A record literal, whose fields the longer paths lead to.
    Record,
    /// A list literal of this many elements, which the longer paths lead to
    /// by index ([`crate::program::PathStep::index_name`]).
    List(u32),
    /// Any other expression: the reference evaluator's business.
    Other,
}

/// An ad compiled against a pool's slot table: attribute lookup is an index.
/// Immutable once built, and shared freely across threads.
#[derive(Clone, Debug, Default)]
pub struct CompiledAd {
    attrs: Vec<Attr>,
    /// What the ad's record literals hold, by path id
    /// ([`crate::SlotTable::intern_path`]), sorted by it: sparse, because a
    /// pool's path ids grow with every ad whose records have names of their own
    /// (`GPUs_GPU_b5fd479a.Id`), and a dense table per ad up to its highest id
    /// made compiling a pool quadratic in its ads.
    fields: Vec<(u32, Field)>,
}

impl CompiledAd {
    /// An ad with no attributes.
    pub fn new() -> CompiledAd {
        CompiledAd::default()
    }

    /// An ad with no attributes, usable in statics.
    pub const fn empty() -> CompiledAd {
        CompiledAd {
            attrs: Vec::new(),
            fields: Vec::new(),
        }
    }

    /// An ad with no attributes yet, with room for slots below `slots`.
    pub fn with_slots(slots: usize) -> CompiledAd {
        CompiledAd {
            attrs: Vec::with_capacity(slots),
            fields: Vec::new(),
        }
    }

    /// Sets what path `path` leads to.
    pub fn set_field(&mut self, path: u32, field: Field) {
        // Paths mostly come in increasing order: then this is a push.
        if self.fields.last().is_none_or(|&(last, _)| last < path) {
            self.fields.push((path, field));
            return;
        }
        match self.fields.binary_search_by_key(&path, |&(p, _)| p) {
            Ok(i) => self.fields[i].1 = field,
            Err(i) => self.fields.insert(i, (path, field)),
        }
    }

    /// What path `path` leads to (`Absent` when the ad has no such record field).
    pub fn field(&self, path: u32) -> &Field {
        static ABSENT: Field = Field::Absent;
        match self.fields.binary_search_by_key(&path, |&(p, _)| p) {
            Ok(i) => &self.fields[i].1,
            Err(_) => &ABSENT,
        }
    }

    /// Sets the attribute in `slot`.
    pub fn set(&mut self, slot: u32, attr: Attr) {
        let i = slot as usize;
        if self.attrs.len() <= i {
            self.attrs.resize(i + 1, Attr::Absent);
        }
        self.attrs[i] = attr;
    }

    /// The attribute in `slot` (`Absent` beyond the ad's last slot).
    pub fn get(&self, slot: u32) -> &Attr {
        static ABSENT: Attr = Attr::Absent;
        self.attrs.get(slot as usize).unwrap_or(&ABSENT)
    }

    /// True when the ad defines `slot`.
    pub fn has(&self, slot: u32) -> bool {
        !matches!(self.get(slot), Attr::Absent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_found_by_path_in_any_order_of_setting() {
        let mut ad = CompiledAd::new();
        ad.set_field(40_000, Field::Record);
        ad.set_field(7, Field::List(2));
        ad.set_field(300, Field::Value(Value::Int(1)));
        ad.set_field(7, Field::Value(Value::Int(2)));
        assert!(
            matches!(ad.field(7), Field::Value(Value::Int(2))),
            "set again: replaced"
        );
        assert!(matches!(ad.field(300), Field::Value(Value::Int(1))));
        assert!(matches!(ad.field(40_000), Field::Record));
        for absent in [0, 8, 299, 301, 39_999, 40_001] {
            assert!(matches!(ad.field(absent), Field::Absent), "path {absent}");
        }
        assert_eq!(ad.fields.len(), 3, "one entry per path set, however high");
    }
}
