//! What evaluations make and where they are made, below both the reference
//! evaluator ([`crate::eval`]) and the builtins ([`crate::functions`]): the
//! scopes names are looked up in, ads and lists as values and their identity,
//! their sizes and their text, the counter of ad reads, and the failure of an
//! evaluation.

pub mod compound;
pub mod display;
pub mod reads;
pub mod scope;
pub mod value_size;

/// Evaluation failed outright: nesting deeper than HTCondor's limit, or its budget
/// of steps exhausted. HTCondor reports these as a failure to evaluate, not a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fail;

impl std::fmt::Display for Fail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("failed to evaluate expression (too deep or too long)")
    }
}

impl std::error::Error for Fail {}
