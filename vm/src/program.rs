//! A compiled expression: instructions, constants, and what the machine needs to
//! account for HTCondor's depth and step limits.

use crate::instr::Instr;
use crate::sets::ConstSet;
use crate::value::Value;
use std::fmt;

/// A compiled expression.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// The instructions; execution starts at 0 and ends at a `Ret`.
    pub code: Vec<Instr>,
    /// The constants `Const` loads.
    pub consts: Vec<Value>,
    /// How many registers the program uses.
    pub nregs: u16,
    /// The deepest nesting of the source expression in HTCondor's depth units
    /// (operations and selections count, literals and plain names do not). The
    /// machine uses it to tell when HTCondor's 400-level limit could be reached.
    pub max_depth: u32,
    /// The number of nodes of the source expression: an upper bound on the
    /// evaluation steps HTCondor spends on one evaluation of it, attributes aside.
    pub nodes: u32,
    /// The evaluation steps (an upper bound) of the values folded into the
    /// program when it was compiled whose cost is too large for `nodes` (MY's
    /// attributes that depend on nothing but MY, such as `A0 = A1 + A1; ...
    /// A18 = 1`): HTCondor evaluates them again in every evaluation, the machine
    /// charges their steps apart from its estimate. At most
    /// [`crate::limits::MAX_FOLDED_STEPS`].
    pub folded_steps: u32,
    /// Subexpressions that depend only on TARGET (`TargetCached` runs them).
    pub target_only: Vec<TargetOnly>,
    /// Constant collections that `Member` tests values against.
    pub sets: Vec<ConstSet>,
    /// The evaluation fails over to the reference evaluator where it would fail
    /// ([`crate::Halt::Fail`] becomes [`crate::Halt::NeedReference`]): the program
    /// calls a builtin that turns an argument's failed evaluation into a value
    /// (`stringListsIntersect` gives error), which the machine, failing the whole
    /// evaluation there, does not model. Failures are rare (a proved step limit),
    /// so the reference evaluator answers those few exactly.
    pub fail_needs_reference: bool,
    /// Selection chains through record literals that `SelectPath` resolves.
    pub paths: Vec<PathSelect>,
    /// The depth the block tiers' lanes reach in the program, worked out on
    /// first use (see [`LaneDepth`]).
    pub lane_depth: LaneDepth,
}

/// A program's `lanes::lane_depth`, worked out the first time a block
/// tier runs it rather than on every run: a pass over the whole code, once per
/// ad and block. A program is not changed once run; a clone (which may be)
/// works it out again.
#[derive(Debug, Default)]
pub struct LaneDepth(std::sync::OnceLock<Option<u32>>);

impl Clone for LaneDepth {
    fn clone(&self) -> LaneDepth {
        LaneDepth::default()
    }
}

impl LaneDepth {
    /// The value, worked out by `f` the first time.
    pub(crate) fn get_or(&self, f: impl FnOnce() -> Option<u32>) -> Option<u32> {
        *self.0.get_or_init(f)
    }
}

/// A selection chain `MY.a.b.c` or `TARGET.a.b.c` through the record literals of
/// an ad (`SelectPath`), resolved as HTCondor's lookups resolve it where that
/// needs no evaluation: a record literal's field that is a literal is its value;
/// a name the record lacks is looked up in the enclosing records and then in
/// the ad, and is undefined when none has it (the compiler leaves names the scopes
/// above the ad define, `TARGET`, `LEFT`, ..., to the reference evaluator); a
/// plain value selected from is undefined (from undefined) or error. Anything else
/// (an expression to evaluate, a list, a record as the result, a name found
/// further up) hands the evaluation to the reference evaluator.
#[derive(Clone, Debug, Default)]
pub struct PathSelect {
    /// TARGET's ad (true) or MY's.
    pub target: bool,
    /// The attribute the chain starts from (its slot).
    pub slot: u32,
    /// The path `[attribute]`, marked when the attribute is a record literal.
    pub root: u32,
    /// One step per name selected after it.
    pub steps: Vec<PathStep>,
    /// `size()` of the chain rather than its value, with the builtin's native
    /// id: a list's length counts its elements without evaluating them
    /// (`size(TARGET.AvailableGPUs)` on a list of references to the slot's GPU
    /// records), as the builtin does. The machine calls the builtin on any
    /// other value the chain gives, and on the attribute's value when the chain
    /// is the attribute alone and holds code.
    pub size: Option<u32>,
}

/// One selection or constant subscript of a [`PathSelect`].
#[derive(Clone, Debug, Default)]
pub struct PathStep {
    /// The path so far, to this name or index (its id in the slot table).
    pub path: u32,
    /// A name: where it is looked up when the record lacks it, the paths to the
    /// same name in each enclosing record, innermost first.
    pub enclosing: Vec<u32>,
    /// A name: its slot, where it is looked up last, at the top of the ad. A
    /// subscript: [`PathStep::index_name`] of its index.
    pub top: u32,
    /// A name given as a constant string subscript (`r["Memory"]`): looked up
    /// in the record alone (HTCondor's subscript of an ad does not look further
    /// up, where a selection does), and an error on a list.
    pub key: bool,
}

impl PathStep {
    /// Paths name a list's element `i` with this in place of a name's slot.
    pub const fn index_name(i: u32) -> u32 {
        INDEX_NAMES + i
    }

    /// The index of a subscript step, `None` for a name.
    pub fn index(&self) -> Option<u32> {
        self.top.checked_sub(INDEX_NAMES)
    }
}

/// Where the index names of paths start ([`PathStep::index_name`]): above any
/// slot a table could hand out.
const INDEX_NAMES: u32 = u32::MAX - MAX_PATH_INDEX;

/// The largest constant subscript a path holds.
pub const MAX_PATH_INDEX: u32 = 1 << 16;

/// Where a [`PathSelect`] stands.
enum At {
    /// At a plain value.
    Value(Value),
    /// At a record literal.
    Record,
    /// At a list literal of this many elements.
    List(u32),
}

/// Where a [`PathSelect`] ends, when the machine knows it.
#[derive(Clone, Debug)]
pub enum Reached {
    /// A value.
    Value(Value),
    /// A list literal of this many elements (its elements unevaluated).
    List(u32),
}

impl PathSelect {
    /// The value the chain gives in `ad`; `None` for the reference evaluator's
    /// cases (see the type).
    pub fn resolve(&self, ad: &crate::ad::CompiledAd) -> Option<Value> {
        match self.reach(ad)? {
            Reached::Value(v) => Some(v),
            // A list as the result: the reference evaluator makes it.
            Reached::List(_) => None,
        }
    }

    /// Where the chain ends in `ad`: a value, or a list literal (which
    /// `size()` measures without evaluating its elements); `None` for a record
    /// as the result and for the reference evaluator's cases (see the type).
    // Out of line: inlined, it grew the machine's dispatch loop and slowed
    // every other instruction (a third more time on shapes without records).
    #[inline(never)]
    pub fn reach(&self, ad: &crate::ad::CompiledAd) -> Option<Reached> {
        use crate::ad::{Attr, Field};
        let at_field = |f: &Field| match f {
            Field::Value(v) => Some(At::Value(v.clone())),
            Field::Record => Some(At::Record),
            Field::List(n) => Some(At::List(*n)),
            Field::Absent | Field::Other => None,
        };
        let mut at = match ad.get(self.slot) {
            Attr::Absent => At::Value(Value::Undefined),
            // (A list of literals is a value of the ad, and listed by path.)
            Attr::Value(v) if !matches!(v, Value::List(_) | Value::Ad(_)) => At::Value(v.clone()),
            Attr::Value(_) | Attr::Code(_) => {
                at_field(ad.field(self.root)).filter(|a| !matches!(a, At::Value(_)))?
            }
        };
        let mut after_key = false;
        for step in &self.steps {
            // HTCondor selects nothing from what a string subscript gave
            // (`r["g"].c` is undefined where `r["g"]["c"]` and `r.g.c` are not):
            // past one, only further string subscripts stay here.
            if after_key && !step.key {
                return None;
            }
            after_key |= step.key;
            at = match (at, step.index()) {
                // Selecting from, or subscripting, a plain value, and what that
                // gives.
                (At::Value(v), _) => {
                    return match v {
                        Value::Undefined => Some(Reached::Value(Value::Undefined)),
                        Value::List(_) | Value::Ad(_) => None,
                        _ => Some(Reached::Value(Value::Error)),
                    }
                }
                // `[...][1]`: error (an ad's subscript takes a string).
                (At::Record, Some(_)) => return Some(Reached::Value(Value::Error)),
                // `{...}["x"]`: error (a list's subscript takes an integer).
                (At::List(_), None) if step.key => return Some(Reached::Value(Value::Error)),
                // `[...]["x"]`: the record's own field, undefined when it has none.
                (At::Record, None) if step.key => match ad.field(step.path) {
                    Field::Absent => return Some(Reached::Value(Value::Undefined)),
                    f => at_field(f)?,
                },
                // `{...}.x`: the selection over each element.
                (At::List(_), None) => return None,
                (At::List(n), Some(i)) if i >= n => return Some(Reached::Value(Value::Error)),
                (At::List(_), Some(_)) => at_field(ad.field(step.path))?,
                (At::Record, None) => match ad.field(step.path) {
                    Field::Absent => {
                        let found_above = step
                            .enclosing
                            .iter()
                            .any(|&p| !matches!(ad.field(p), Field::Absent))
                            || ad.has(step.top);
                        return (!found_above).then_some(Reached::Value(Value::Undefined));
                    }
                    f => at_field(f)?,
                },
            };
        }
        match at {
            At::Value(v) => Some(Reached::Value(v)),
            At::List(n) => Some(Reached::List(n)),
            // A record as the result: the reference evaluator makes it.
            At::Record => None,
        }
    }
}

/// A subexpression that depends only on the TARGET ad: a pure expression of
/// TARGET's attributes and constants, the same in every program that contains it.
#[derive(Clone, Debug, Default)]
pub struct TargetOnly {
    /// Identifies the subexpression across programs (the front end's choice: the
    /// same key must mean the same expression).
    pub key: u64,
    /// Its code, run with the same MY and TARGET as the program containing it.
    pub code: Program,
    /// The TARGET attributes its code reads (how many, and which), when it
    /// reads them only by name (`LoadTarget`, `CmpTK`) and otherwise only
    /// computes on values: its value is then a function of those attributes'
    /// values, where they are literals (see `verdicts::target_only`).
    inputs: Option<(u8, [u32; MAX_INPUTS])>,
}

/// The most TARGET attributes [`TargetOnly`] lists as its inputs.
pub(crate) const MAX_INPUTS: usize = 2;

impl TargetOnly {
    /// Subexpression `key`, compiled to `code`.
    pub fn new(key: u64, code: Program) -> TargetOnly {
        let inputs = Self::inputs_of(&code);
        TargetOnly { key, code, inputs }
    }

    /// The TARGET attributes the code reads, when it reads nothing else and
    /// does nothing but compute on values (with builtins: the caller checks
    /// that they are pure).
    pub(crate) fn inputs(&self) -> Option<&[u32]> {
        self.inputs
            .as_ref()
            .map(|(n, slots)| &slots[..usize::from(*n)])
    }

    fn inputs_of(code: &Program) -> Option<(u8, [u32; MAX_INPUTS])> {
        use crate::instr::{form, Op::*};
        let (mut n, mut slots) = (0usize, [0; MAX_INPUTS]);
        for ins in &code.code {
            let slot = match ins.op() {
                LoadTarget => form::Load::of(*ins).slot,
                CmpTK => form::CmpTK::of(*ins).slot.get(),
                Const | Move | Neg | Plus | Not | BitNot | Add | Sub | Mul | Div | Mod | Lt
                | Le | Gt | Ge | Eq | Ne | Is | Isnt | CmpK | BitAnd | BitOr | BitXor | Shl
                | Shr | UShr | And | Or | JumpIfFalse | JumpIfTrue | JumpIfDefined | Test
                | TestTernary | JumpIfNot | Jump | Member | Call | List | Ret => continue,
                // MY's attributes, paths, nested caches, inlined code, the
                // reference evaluator: what they read is not listed here.
                _ => return None,
            };
            if !slots[..n].contains(&slot) {
                *slots.get_mut(n)? = slot;
                n += 1;
            }
        }
        Some((n as u8, slots))
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "; {} registers, depth {}, {} nodes",
            self.nregs, self.max_depth, self.nodes
        )?;
        if self.folded_steps > 0 {
            write!(f, ", {} folded steps", self.folded_steps)?;
        }
        writeln!(f)?;
        for (i, k) in self.consts.iter().enumerate() {
            writeln!(f, "; k{i} = {k:?}")?;
        }
        for (i, ins) in self.code.iter().enumerate() {
            writeln!(f, "{i:4}  {ins}")?;
        }
        for (i, set) in self.sets.iter().enumerate() {
            writeln!(f, "; set{i} = {set:?}")?;
        }
        for (i, p) in self.paths.iter().enumerate() {
            let side = if p.target { "TARGET" } else { "MY" };
            let steps: Vec<String> = p
                .steps
                .iter()
                .map(|s| match (s.index(), s.key) {
                    (Some(i), _) => format!("[{i}]"),
                    (None, true) => format!("[slot{}]", s.top),
                    (None, false) => format!(".slot{}", s.top),
                })
                .collect();
            let (open, close) = if p.size.is_some() {
                ("size(", ")")
            } else {
                ("", "")
            };
            writeln!(
                f,
                "; path{i} = {open}{side} slot{}{}{close}",
                p.slot,
                steps.concat()
            )?;
        }
        for (i, t) in self.target_only.iter().enumerate() {
            write!(f, "; sub{i} (key {:#x}):\n{}", t.key, t.code)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instr::{form, Op, U24};
    use crate::ops::Cmp;

    /// `LoadTarget r0, slot` at `depth`.
    fn load(slot: u32, depth: u16) -> Instr {
        form::Load {
            dst: 0,
            depth,
            slot,
        }
        .instr(Op::LoadTarget)
    }

    fn sub(code: &[Instr]) -> TargetOnly {
        TargetOnly::new(
            1,
            Program {
                code: code.to_vec(),
                ..Program::default()
            },
        )
    }

    /// The lanes' depth is worked out once per program, and again for a clone
    /// (which its owner may change).
    #[test]
    fn lane_depth_is_worked_out_once_and_again_for_a_clone() {
        let mut p = sub(&[load(0, 6), form::Ret { src: 0 }.instr(Op::Ret)]).code;
        assert_eq!(crate::lanes::lane_depth(&p), Some(7));
        let mut copy = p.clone();
        copy.code[0] = load(0, 9);
        assert_eq!(crate::lanes::lane_depth(&copy), Some(10));
        p.code[0] = load(0, 9);
        assert_eq!(crate::lanes::lane_depth(&p), Some(7), "worked out once");
    }

    /// A subexpression's inputs are the TARGET attributes it reads by name,
    /// when it does nothing else that reads an ad.
    #[test]
    fn inputs_are_the_attributes_read_by_name() {
        let load = |slot: u32| load(slot, 0);
        let cmp = |slot: u32| {
            let slot = U24::new(slot).expect("a slot");
            form::CmpTK {
                dst: 1,
                konst: 0,
                slot,
                cmp: Cmp::Eq,
            }
            .instr(Op::CmpTK)
        };
        let native = U24::new(7).expect("a builtin");
        let call = form::Call {
            dst: 2,
            first: 0,
            argc: 2,
            native,
        }
        .instr(Op::Call);
        let ret = form::Ret { src: 2 }.instr(Op::Ret);
        assert_eq!(
            sub(&[load(3), cmp(5), call, ret]).inputs(),
            Some(&[3, 5][..])
        );
        assert_eq!(sub(&[load(3), cmp(3), ret]).inputs(), Some(&[3][..]));
        assert_eq!(sub(&[ret]).inputs(), Some(&[][..]));
        assert_eq!(sub(&[load(1), load(2), load(3), ret]).inputs(), None);
        for other in [
            Op::LoadMy,
            Op::SelectPath,
            Op::TargetCached,
            Op::Index,
            Op::Reference,
        ] {
            let reads = Instr::with_zero_operands(other);
            assert_eq!(sub(&[load(3), reads, ret]).inputs(), None, "{other:?}");
        }
    }
}
