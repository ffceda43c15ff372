//! Values of TARGET ads' attributes that are code, for the block tiers.
//!
//! A job's `RequestMemory = ifThenElse(MemoryUsage isnt undefined, MemoryUsage,
//! (ImageSize + 1023) / 1024)` is a program, not a literal, so a column of it
//! cannot be built from the ads alone: evaluated from a slot, it reads the job's
//! own attributes and, for a name the job lacks, the slot's. But it reads the
//! slot only through names (here `MemoryUsage`), and a slot that lacks all of
//! them gives it the value it has against an ad with no attributes at all.
//!
//! So the machine evaluates such an attribute once per ad, against an empty
//! other side, recording every name it looks up there; the value holds against
//! any other side that lacks all of those names ([`Closed::holds_against`]),
//! with the depth and steps the evaluation took, which the machine's limits
//! charge wherever it is loaded.

use crate::ad::{Attr, CompiledAd};
use crate::machine::{Host, Machine, Sides};
use crate::value::Value;
use smallvec::SmallVec;

/// Values of one ad's attribute kept this many steps at most: a closed value
/// stands for an evaluation the tiers do not see, and they account for its
/// cost in their share of the step budget.
const MAX_COST: u64 = 4096;
/// Nor deeper than this below the reference.
const MAX_DEPTH: u32 = 64;
/// Nesting of loads taken as already used when a closed value is computed: the
/// evaluation that loads it has nested a few levels already (the Requirements
/// that reads it), and the machine's own limit must hold there too.
const NESTING_USED: u32 = 8;

/// The value of an attribute that is code, against an other side without the
/// names it reads there.
#[derive(Clone, Debug)]
pub(crate) struct Closed {
    pub(crate) value: Value,
    /// The depth its evaluation needs below the reference.
    pub(crate) depth: u32,
    /// The steps its evaluation takes (the machine's estimate).
    pub(crate) cost: u64,
    /// The names (slots) it looks up in the other side.
    pub(crate) absent: SmallVec<[u32; 4]>,
}

impl Closed {
    /// True when `other` lacks every name the evaluation looked up in it, so
    /// that the value is the evaluation's against `other` too.
    pub(crate) fn holds_against(absent: &[u32], other: &CompiledAd) -> bool {
        absent
            .iter()
            .all(|&slot| matches!(other.get(slot), Attr::Absent))
    }
}

impl Machine {
    /// The closed value of attribute `slot` of `ad` (code), computed on first
    /// asking and kept with the TARGET-only values (cleared with them); `None`
    /// when the evaluation needs more than an empty other side can answer (a
    /// reference to it, a builtin the host defers) or passes the bounds above.
    pub(crate) fn closed_value(
        &mut self,
        ad: &CompiledAd,
        slot: u32,
        host: &mut dyn Host,
    ) -> Option<&Closed> {
        let key = (ad as *const CompiledAd as usize, slot);
        if !self.closed.contains_key(&key) {
            let c = self.compute_closed(ad, slot, host);
            self.closed.insert(key, c);
        }
        self.closed.get(&key).and_then(Option::as_ref)
    }

    fn compute_closed(
        &mut self,
        ad: &CompiledAd,
        slot: u32,
        host: &mut dyn Host,
    ) -> Option<Closed> {
        static EMPTY: CompiledAd = CompiledAd::empty();
        self.reset();
        self.nesting = NESTING_USED;
        self.recording = Some(SmallVec::new());
        let r = self.load(0, slot, Sides::against_empty(ad, &EMPTY), host);
        let absent = self.recording.take().unwrap_or_default();
        let cost = self.steps;
        // The tiers charge a closed value's estimate only: one that folded
        // values of its own is left to the machine.
        let folded = self.folded;
        self.reset();
        match r {
            Ok((value, Some(depth))) if depth <= MAX_DEPTH && cost <= MAX_COST && folded == 0 => {
                Some(Closed {
                    value,
                    depth,
                    cost,
                    absent,
                })
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instr::{form, Instr, Op};
    use crate::machine::NoBuiltins;
    use crate::program::Program;

    /// `MY.slot0 + TARGET.slot1 ?: 7`-like programs over hand-made ads.
    fn program(code: Vec<Instr>, consts: Vec<Value>) -> Program {
        Program {
            code,
            consts,
            nregs: 4,
            max_depth: 2,
            nodes: 5,
            ..Program::default()
        }
    }

    #[test]
    fn a_value_records_the_names_it_read_on_the_other_side() {
        // slot 2 = (TARGET's slot 1 is defined) ? it : MY's slot 0
        let code = vec![
            form::Load {
                dst: 1,
                depth: 1,
                slot: 1,
            }
            .instr(Op::LoadTarget),
            form::Branch { cond: 1, target: 3 }.instr(Op::JumpIfDefined),
            form::Load {
                dst: 1,
                depth: 1,
                slot: 0,
            }
            .instr(Op::LoadMy),
            form::Ret { src: 1 }.instr(Op::Ret),
        ];
        let mut ad = CompiledAd::with_slots(3);
        ad.set(0, Attr::Value(Value::Int(40)));
        ad.set(2, Attr::Code(std::sync::Arc::new(program(code, vec![]))));
        let mut vm = Machine::new();
        let c = vm.closed_value(&ad, 2, &mut NoBuiltins).cloned().unwrap();
        assert!(matches!(c.value, Value::Int(40)));
        assert_eq!(&c.absent[..], &[1]);
        assert!(c.depth >= 1 && c.cost >= 1);
        let mut lacking = CompiledAd::with_slots(3);
        lacking.set(0, Attr::Value(Value::Int(1)));
        assert!(Closed::holds_against(&c.absent, &lacking));
        let mut having = CompiledAd::with_slots(3);
        having.set(1, Attr::Value(Value::Int(1)));
        assert!(!Closed::holds_against(&c.absent, &having));
    }

    #[test]
    fn what_an_empty_side_cannot_answer_has_no_closed_value() {
        let code = vec![
            form::Stop {}.instr(Op::Reference),
            form::Ret { src: 0 }.instr(Op::Ret),
        ];
        let mut ad = CompiledAd::with_slots(1);
        ad.set(0, Attr::Code(std::sync::Arc::new(program(code, vec![]))));
        let mut vm = Machine::new();
        assert!(vm.closed_value(&ad, 0, &mut NoBuiltins).is_none());
    }
}
