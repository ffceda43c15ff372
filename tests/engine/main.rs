//! The evaluation engine, tier by tier: the compiled code, the block tiers (bit masks, value lanes) against the reference evaluator, the evaluation limits, and what matching allocates.
//!
//! One test binary of a few (each links the whole crate): the modules below were
//! test files of their own.

#[path = "../support/counting_alloc.rs"]
#[allow(dead_code, unused_imports)] // each binary uses part of it
mod counting_alloc;
#[path = "../gen/mod.rs"]
#[allow(dead_code, unused_imports)] // each binary uses part of it
mod gen;
#[path = "../tiers/mod.rs"]
#[allow(dead_code, unused_imports)] // each binary uses part of it
mod tiers;

mod attribute_lists;
mod budget;
mod call_memo;
mod classify_cost;
mod clock_reads;
mod compiled_code;
mod constant_strings;
mod deep_expressions;
mod each_context;
mod evaluation_limits;
mod linear_builtins;
mod mask_arithmetic;
mod no_allocation;
mod record_paths;
mod register_compare;
mod shape_families;
mod step_limit;
mod target_cache_keys;
mod target_code;
