//! The matching and negotiation pipeline: the batch matcher, the negotiation cycle against a plain serial negotiator, the match analysis, and the pool generator.
//!
//! One test binary of a few (each links the whole crate): the modules below were
//! test files of their own.

#[path = "../gen/mod.rs"]
#[allow(dead_code, unused_imports)] // each binary uses part of it
mod gen;
#[path = "../support/mod.rs"]
#[allow(dead_code, unused_imports)] // each binary uses part of it
mod support;

mod analysis;
mod batch_matching;
mod concurrency_limits;
mod floors_ceilings;
mod gen_pool;
mod living_claims;
mod living_pool;
mod negotiation;
