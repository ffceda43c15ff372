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

/// An ad compiled against a pool's slot table: attribute lookup is an index.
/// Immutable once built, and shared freely across threads.
#[derive(Clone, Debug, Default)]
pub struct CompiledAd {
    attrs: Vec<Attr>,
}

impl CompiledAd {
    /// An ad with no attributes.
    pub fn new() -> CompiledAd {
        CompiledAd::default()
    }

    /// An ad with no attributes, usable in statics.
    pub const fn empty() -> CompiledAd {
        CompiledAd { attrs: Vec::new() }
    }

    /// An ad with no attributes yet, with room for slots below `slots`.
    pub fn with_slots(slots: usize) -> CompiledAd {
        CompiledAd {
            attrs: Vec::with_capacity(slots),
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
