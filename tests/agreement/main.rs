//! Agreement with HTCondor and with the reference: the conformance corpus from HTCondor's own library, the seeded differential generator, and every fuzz finding replayed.
//!
//! One test binary of a few (each links the whole crate): the modules below were
//! test files of their own.

#[path = "../gen/mod.rs"]
#[allow(dead_code, unused_imports)] // each binary uses part of it
mod gen;

mod conformance;
mod differential;
mod fuzz_regressions;
