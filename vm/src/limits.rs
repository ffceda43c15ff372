//! HTCondor's limits that both evaluators (the reference evaluator in the front
//! end and this machine) must agree on, defined once.

/// HTCondor's limit on nested operations and attribute dereferences: an
/// evaluation that goes deeper is an error.
pub const MAX_DEPTH: u32 = 400;

/// HTCondor's budget of node evaluations for one top-level evaluation.
pub const MAX_STEPS: u64 = 10_000_000;

/// The most evaluation steps of values folded when compiled
/// ([`crate::Program::folded_steps`]) that one evaluation may charge: MY's
/// attributes that depend on nothing but MY, worked out once, whose steps
/// (bounded above) HTCondor spends again in every evaluation. Past it
/// the machine leaves the evaluation to the reference evaluator, and a program
/// folds no more than this. Four fifths of HTCondor's budget: the machine
/// estimates the rest of the evaluation and leaves it to the reference evaluator
/// past a tenth of the budget, so the two stay within it with room to spare.
pub const MAX_FOLDED_STEPS: u64 = MAX_STEPS / 5 * 4;
