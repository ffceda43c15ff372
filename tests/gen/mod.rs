//! A deterministic, seeded generator of ClassAd test material for the differential
//! tests: expression texts over every operator, literal type and builtin family, and
//! small job/machine ad pairs whose attributes refer to each other.
//!
//! Every case is made from its own seed (derived from a master seed and the case's
//! index), so a failing case can be regenerated alone, and the same master seed
//! always gives the same corpus. Everything is emitted as text and checked to parse,
//! because text is what a person pastes into `classad eval` to reproduce a finding.

pub mod ads;
pub mod builtins;
pub mod expr;
#[allow(dead_code)] // used by the living-pool tests and fuzz target only
pub mod living_sequences;
#[allow(dead_code)] // used by the negotiation tests only
pub mod negotiation_pools;
#[allow(dead_code)] // used by the fuzz targets and their replays, not every includer
pub mod properties;
#[allow(dead_code)] // used by the negotiation tests only
pub mod reference_negotiator;
pub mod rng;

pub use ads::{pair_case, PairCase, Sides};
pub use expr::{expr_case, ExprCase};

/// The master seed used when `DIFF_SEED` is not set.
pub const DEFAULT_MASTER_SEED: u64 = 0x5EED_C1A5_5AD0_2025;

/// The master seed: `DIFF_SEED` (decimal, or hex with `0x`) when set, else
/// [`DEFAULT_MASTER_SEED`].
pub fn master_seed() -> u64 {
    match std::env::var("DIFF_SEED") {
        Ok(s) => parse_seed(&s).unwrap_or_else(|| panic!("DIFF_SEED={s:?} is not a number")),
        Err(_) => DEFAULT_MASTER_SEED,
    }
}

fn parse_seed(s: &str) -> Option<u64> {
    let s = s.trim().replace('_', "");
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// `base` scaled by `DIFF_CASES` (a factor such as `0.1` or `10`; default 1), and
/// at least 1.
pub fn scaled(base: usize) -> usize {
    let factor = match std::env::var("DIFF_CASES") {
        Ok(s) => s
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite() && *f >= 0.0)
            .unwrap_or_else(|| panic!("DIFF_CASES={s:?} is not a non-negative factor")),
        Err(_) => 1.0,
    };
    ((base as f64 * factor).round() as usize).max(1)
}

/// Quotes `s` for a POSIX shell, so a printed reproduction command can be pasted.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}
