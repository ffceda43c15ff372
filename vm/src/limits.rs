//! HTCondor's limits that both evaluators (the reference evaluator in the front
//! end and this machine) must agree on, defined once.

/// HTCondor's limit on nested operations and attribute dereferences: an
/// evaluation that goes deeper is an error.
pub const MAX_DEPTH: u32 = 400;
