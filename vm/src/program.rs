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
}

/// One selection of a [`PathSelect`].
#[derive(Clone, Debug, Default)]
pub struct PathStep {
    /// The path so far, to this name (its id in the slot table).
    pub path: u32,
    /// Where the name is looked up when the record lacks it: the paths to the
    /// same name in each enclosing record, innermost first.
    pub enclosing: Vec<u32>,
    /// And then the name's slot, at the top of the ad.
    pub top: u32,
}

impl PathSelect {
    /// The value the chain gives in `ad`; `None` for the reference evaluator's
    /// cases (see the type).
    pub fn resolve(&self, ad: &crate::ad::CompiledAd) -> Option<Value> {
        use crate::ad::{Attr, Field};
        // The current value, or `None` while it is a record literal.
        let mut value = match ad.get(self.slot) {
            Attr::Absent => Some(Value::Undefined),
            Attr::Value(v) => Some(v.clone()),
            Attr::Code(_) if matches!(ad.field(self.root), Field::Record) => None,
            Attr::Code(_) => return None,
        };
        for step in &self.steps {
            if let Some(v) = value {
                // Selecting from a plain value, and from what that gives.
                return match v {
                    Value::Undefined => Some(Value::Undefined),
                    Value::List(_) | Value::Ad(_) => None,
                    _ => Some(Value::Error),
                };
            }
            value = match ad.field(step.path) {
                Field::Value(v) => Some(v.clone()),
                Field::Record => None,
                Field::Other => return None,
                Field::Absent => {
                    let found_above = step
                        .enclosing
                        .iter()
                        .any(|&p| !matches!(ad.field(p), Field::Absent))
                        || ad.has(step.top);
                    return (!found_above).then_some(Value::Undefined);
                }
            };
        }
        // A record as the result: the reference evaluator makes it.
        value
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
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "; {} registers, depth {}, {} nodes",
            self.nregs, self.max_depth, self.nodes
        )?;
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
            let steps: Vec<u32> = p.steps.iter().map(|s| s.top).collect();
            writeln!(f, "; path{i} = {side} slot{} then slots {steps:?}", p.slot)?;
        }
        for (i, t) in self.target_only.iter().enumerate() {
            write!(f, "; sub{i} (key {:#x}):\n{}", t.key, t.code)?;
        }
        Ok(())
    }
}
