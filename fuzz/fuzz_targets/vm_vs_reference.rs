//! The bytecode VM against the reference evaluator on structured inputs: the fuzz
//! input (an `Arbitrary` seed and case index) drives the project's generator of well-formed expressions and job/machine
//! ad pairs (`tests/gen`, the same one `tests/agreement/differential.rs` runs), so every input
//! is a meaningful case. Values must agree exactly (compared as HTCondor prints
//! them, so reals bit for bit), as must failures, matches and ranks. A crash report
//! prints the case as `classad eval` commands.
#![no_main]

#[allow(dead_code, unused_imports)]
#[path = "../../tests/gen/mod.rs"]
mod gen;

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use std::fmt;

/// One structured input: which expression case and which ad-pair case of the
/// generator. Its `Debug` is the cases themselves, as `classad eval` commands and ad
/// texts, so `cargo fuzz fmt vm_vs_reference ARTIFACT` shows something to paste.
/// Inputs are small by construction (the generator bounds every expression and ad),
/// so none can time out.
#[derive(Arbitrary)]
struct Case {
    master: u64,
    index: u8,
}

impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = usize::from(self.index);
        writeln!(f, "{}", gen::expr_case(self.master, i))?;
        write!(f, "{}", gen::pair_case(self.master, i))
    }
}

fuzz_target!(|input: Case| {
    if let Err(diff) = gen::properties::vm_against_reference(input.master, usize::from(input.index))
    {
        panic!("the VM and the reference evaluator disagree:{diff}");
    }
});
