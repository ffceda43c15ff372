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
        for (i, t) in self.target_only.iter().enumerate() {
            write!(f, "; sub{i} (key {:#x}):\n{}", t.key, t.code)?;
        }
        Ok(())
    }
}
