//! The columns of TARGET-only subexpressions (`Op::TargetCached`) in the
//! bit-mask tier: each lane's value, from the machine's cache or computed on
//! its own, once per distinct input.
//!
//! A job's `stringListIMember("grace", TARGET.AllowedUsers)` is computed for
//! every slot, yet slots hold few distinct `AllowedUsers`. When a
//! subexpression reads TARGET's attributes by name only and computes with pure
//! builtins ([`TargetOnly::inputs`]), its value is a function of those
//! attributes' values: lanes whose inputs are the same scalar literals (equal
//! text, equal bits) take the value of the first such lane rather than run
//! the subexpression again (a short program, but an interpreter's dispatch
//! and a builtin's call). Every lane's value goes into the machine's cache,
//! where the other tiers look it up.

use super::ColSrc;
use crate::ad::{Attr, CompiledAd};
use crate::columns::TargetBlock;
use crate::instr::{form, Op};
use crate::machine::{Host, Machine};
use crate::program::{TargetOnly, MAX_INPUTS};
use crate::value::Value;

/// Distinct inputs a block remembers. Once as many lanes have had distinct
/// inputs, the rest of the block is computed lane by lane: a subexpression of
/// a name every slot spells differently costs at most this many comparisons
/// a lane, for as many lanes.
const MAX_GROUPS: usize = 16;

/// A lane's inputs: the values of the attributes [`TargetOnly::inputs`] lists
/// (the unused ones undefined alike in every lane).
type Inputs<'a> = [&'a Value; MAX_INPUTS];

/// The distinct inputs seen in a block, and the value each gave (`None`: not
/// cached, as for the lanes that share them).
struct Groups<'a> {
    len: usize,
    inputs: [Inputs<'a>; MAX_GROUPS],
    values: [Option<Value>; MAX_GROUPS],
}

impl<'a> Groups<'a> {
    fn new() -> Groups<'a> {
        Groups {
            len: 0,
            inputs: [[&Value::Undefined; MAX_INPUTS]; MAX_GROUPS],
            values: Default::default(),
        }
    }

    /// The value of the inputs, when seen: `Some(None)` when they gave none.
    fn find(&self, inputs: &Inputs<'_>) -> Option<&Option<Value>> {
        (0..self.len)
            .find(|&g| same_inputs(&self.inputs[g], inputs))
            .map(|g| &self.values[g])
    }

    fn is_full(&self) -> bool {
        self.len == MAX_GROUPS
    }

    fn add(&mut self, inputs: Inputs<'a>, value: Option<Value>) {
        self.inputs[self.len] = inputs;
        self.values[self.len] = value;
        self.len += 1;
    }
}

impl Machine {
    /// The column of TARGET-only subexpression `sub` of a program of `my`: its
    /// values computed first for every ad of the block the cache lacks.
    pub(super) fn cached_column(
        &mut self,
        block: &mut TargetBlock<'_>,
        sub: &TargetOnly,
        my: &CompiledAd,
        host: &mut dyn Host,
    ) -> usize {
        let src = ColSrc::Cached(sub.key);
        if let Some(c) = block.find(src) {
            return c;
        }
        let pure = sub
            .code
            .code
            .iter()
            .all(|&i| i.op() != Op::Call || host.pure_call(form::Call::of(i).native.get()));
        let slots = sub.inputs().filter(|_| pure);
        let mut groups = Groups::new();
        for &target in block.targets() {
            let key = (target as *const CompiledAd as usize, sub.key);
            if self.target_cache.contains_key(&key) {
                continue;
            }
            let inputs = slots
                .filter(|_| !groups.is_full())
                .and_then(|s| inputs_of(target, s));
            if let Some(inputs) = &inputs {
                if let Some(seen) = groups.find(inputs) {
                    if let Some(v) = seen {
                        self.target_cache.insert(key, v.clone());
                    }
                    continue;
                }
            }
            let value = self.target_only_value(sub, my, target, host);
            if let Some(inputs) = inputs {
                groups.add(inputs, value);
            }
        }
        let cache = &self.target_cache;
        block.build(src, |ad| {
            cache.get(&(ad as *const CompiledAd as usize, sub.key))
        })
    }
}

/// The values of `target`'s attributes `slots`, when each is a scalar literal
/// (or absent: undefined).
fn inputs_of<'a>(target: &'a CompiledAd, slots: &[u32]) -> Option<Inputs<'a>> {
    let mut inputs = [&Value::Undefined; MAX_INPUTS];
    for (input, &slot) in inputs.iter_mut().zip(slots) {
        *input = match target.get(slot) {
            Attr::Absent => &Value::Undefined,
            Attr::Value(v) if v.is_scalar() => v,
            _ => return None,
        };
    }
    Some(inputs)
}

/// True when every input is the same value: the same type, and equal text,
/// integer or bits (a real's sign and NaN's payload included).
fn same_inputs(a: &Inputs<'_>, b: &Inputs<'_>) -> bool {
    a.iter().zip(b).all(|(x, y)| match (x, y) {
        (Value::Undefined, Value::Undefined) | (Value::Error, Value::Error) => true,
        (Value::Bool(p), Value::Bool(q)) => p == q,
        (Value::Int(p), Value::Int(q)) => p == q,
        (Value::Real(p), Value::Real(q)) => p.to_bits() == q.to_bits(),
        (Value::Str(p), Value::Str(q)) => p.as_str() == q.as_str(),
        _ => false,
    })
}
