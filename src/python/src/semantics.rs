//! Which of HTCondor's semantics evaluations use: its daemons' (the default, what
//! `import htcondor2` switches classad2 to) or the strict library's.

use classad::eval::Semantics;
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

static STRICT: AtomicBool = AtomicBool::new(false);

/// The semantics evaluations use now.
pub fn current() -> Semantics {
    if STRICT.load(Ordering::Relaxed) {
        Semantics::Strict
    } else {
        Semantics::Htcondor
    }
}

/// `setStrictSemantics(strict)`: `True` gives the plain library's strict
/// semantics (what classad2 has before `htcondor2` is imported), `False`
/// HTCondor's daemon semantics (the default).
#[pyfunction]
#[pyo3(name = "setStrictSemantics")]
pub fn set_strict(strict: bool) {
    STRICT.store(strict, Ordering::Relaxed);
}

/// `strictSemantics()`: true when strict semantics are on.
#[pyfunction]
#[pyo3(name = "strictSemantics")]
pub fn is_strict() -> bool {
    STRICT.load(Ordering::Relaxed)
}
