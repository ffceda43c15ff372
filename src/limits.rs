//! The library's bounds on what a caller may ask of it: the memory budget of an
//! evaluation (the largest string or list value an evaluation may make, below),
//! and [`MAX_THREADS`], the most worker threads the command line, the Python
//! module and the C ABI start.
//!
//! HTCondor has no memory budget: a string doubled ten times over (`D0 = strcat(D1,
//! D1)`, ...) grows until allocation fails and the process aborts. Here a builtin
//! (or a selection over a list) whose result would be larger than
//! [`max_value_bytes`] gives `error` instead, and the builtins that build big
//! values (`strcat`, `join`, `split`, the regular-expression substitutions, ...)
//! stop copying as soon as they pass it, so the oversized value is never made.
//!
//! The rule looks only at the value being made, never at how much work an engine
//! did to get there, so the bytecode machine (which computes each attribute once
//! per evaluation and folds constants when it compiles) and the reference
//! evaluator (which re-evaluates every reference, as HTCondor does) give the same
//! answer for every expression.
//!
//! The size of a value ([`crate::values::value_size`]): a string counts its bytes; a list a builtin
//! or a selection made counts [`LIST_ELEMENT_BYTES`] per element plus the sizes of
//! its elements; everything else (numbers, times, and the list and record literals
//! of the ad itself, which evaluating does not copy) counts nothing.
//!
//! The cap is process-wide ([`set_max_value_bytes`], or the environment variable
//! [`ENV_VAR`] through [`apply_env`], which the command line reads at start-up),
//! and a thread can run code under a cap of its own ([`with_max_value_bytes`]).
//! It applies when a value is made, so constants folded when an expression is
//! compiled follow the cap in force then: set it before compiling.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The most threads a caller may ask for (`--threads`, `threads=` of the Python
/// module's batch calls, `classad_set_threads`): 1,024, more than the hardware
/// threads of today's largest two-socket servers. More is a mistake, not a
/// request to honour: each thread holds a machine and its buffers, and they
/// start a few milliseconds apiece (1,025 took 3 s on two cores, 10,000 took
/// 54 s, `SIZE_MAX` minutes), so a larger number is refused at once.
pub const MAX_THREADS: usize = 1024;

/// The default cap: 16 MiB, sixteen times the largest attribute values seen in
/// practice, and small enough that the values alive at once in an evaluation stay
/// far below the memory of a machine (see the limits in `docs/compatibility.md`).
pub const DEFAULT_MAX_VALUE_BYTES: usize = 16 << 20;

/// What a list element counts towards the cap, besides its own size: about what
/// one element costs in memory (the value and the allocation behind a string).
pub const LIST_ELEMENT_BYTES: usize = 32;

/// The environment variable the command line reads the cap from (a number of
/// bytes).
pub const ENV_VAR: &str = "CLASSAD_MAX_VALUE_BYTES";

static PROCESS_CAP: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_VALUE_BYTES);

thread_local! {
    static THREAD_CAP: Cell<Option<usize>> = const { Cell::new(None) };
}

/// The largest value, in bytes (see [`crate::values::value_size`]), an evaluation
/// may make now.
pub fn max_value_bytes() -> usize {
    THREAD_CAP
        .with(Cell::get)
        .unwrap_or_else(|| PROCESS_CAP.load(Ordering::Relaxed))
}

/// Sets the process-wide cap (bytes).
pub fn set_max_value_bytes(bytes: usize) {
    PROCESS_CAP.store(bytes, Ordering::Relaxed);
}

/// Runs `f` with the cap at `bytes` on this thread only (the process-wide cap is
/// untouched; other threads do not see it).
pub fn with_max_value_bytes<T>(bytes: usize, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<usize>);
    impl Drop for Restore {
        fn drop(&mut self) {
            THREAD_CAP.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(THREAD_CAP.with(|c| c.replace(Some(bytes))));
    f()
}

/// Sets the process-wide cap from [`ENV_VAR`] when it is set; an error names the
/// variable and what it holds when that is not a number of bytes.
pub fn apply_env() -> Result<(), String> {
    match std::env::var(ENV_VAR) {
        Err(std::env::VarError::NotPresent) => Ok(()),
        Err(std::env::VarError::NotUnicode(v)) => {
            Err(format!("{ENV_VAR}={v:?}: expected a number of bytes"))
        }
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(bytes) => {
                set_max_value_bytes(bytes);
                Ok(())
            }
            Err(_) => Err(format!("{ENV_VAR}={v:?}: expected a number of bytes")),
        },
    }
}

/// True when a value of `bytes` is larger than the cap allows.
pub fn too_big(bytes: usize) -> bool {
    bytes > max_value_bytes()
}

/// A running count of the bytes a value under construction will take, for the
/// builtins that build one piece by piece: once it is over the cap, the builder
/// drops what it has and makes no more.
#[derive(Debug, Clone, Copy)]
pub struct Tally {
    bytes: usize,
    cap: usize,
}

impl Tally {
    /// An empty tally under the current cap.
    pub fn new() -> Tally {
        Tally {
            bytes: 0,
            cap: max_value_bytes(),
        }
    }

    /// Counts `bytes` more; false once the total is over the cap.
    pub fn add(&mut self, bytes: usize) -> bool {
        self.bytes = self.bytes.saturating_add(bytes);
        !self.over()
    }

    /// True once the total is over the cap.
    pub fn over(&self) -> bool {
        self.bytes > self.cap
    }
}

impl Default for Tally {
    fn default() -> Tally {
        Tally::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_cap_applies_inside_and_is_restored() {
        let outer = max_value_bytes();
        with_max_value_bytes(4, || {
            assert!(too_big(5));
            assert!(!too_big(4));
        });
        assert_eq!(max_value_bytes(), outer);
    }

    #[test]
    fn a_tally_stops_past_the_cap() {
        with_max_value_bytes(10, || {
            let mut t = Tally::new();
            assert!(t.add(10));
            assert!(!t.add(1));
            assert!(t.over());
        });
    }
}
