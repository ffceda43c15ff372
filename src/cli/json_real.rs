//! Reals in the command line's JSON output. JSON has no infinities and no NaN,
//! and serde_json writes them as `null`, which is also what a missing value
//! prints as; so a real that is not a finite number is written as HTCondor's
//! ClassAd printer spells it inside `real(...)`: the strings `"INF"`, `"-INF"`
//! and `"NaN"`, which HTCondor's `real()` and Python's `float()` read back.
//! Every real of every JSON report goes through [`real`]; a ClassAd value that
//! may be an integer or a real (the negotiator ad's statistics) through [`scalar`].

use serde_json::{json, Value};

/// `x` as a JSON number, or as `"INF"`, `"-INF"` or `"NaN"` when it is not
/// finite.
pub fn real(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else if x.is_nan() {
        json!("NaN")
    } else if x > 0.0 {
        json!("INF")
    } else {
        json!("-INF")
    }
}

/// A statistic's value as JSON: an integer as a JSON integer (`12`, not
/// `12.0`), a real through [`real`], anything else as its ClassAd text.
pub fn scalar(v: &crate::Value) -> Value {
    match v {
        crate::Value::Int(i) => json!(i),
        crate::Value::Real(x) => real(*x),
        other => json!(crate::values::display::unparse_value(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finite_reals_are_numbers_and_the_rest_htcondor_s_words() {
        assert_eq!(real(2.5), json!(2.5));
        assert_eq!(real(-0.0).to_string(), "-0.0");
        assert_eq!(real(f64::INFINITY), json!("INF"));
        assert_eq!(real(f64::NEG_INFINITY), json!("-INF"));
        assert_eq!(real(f64::NAN), json!("NaN"));
        assert_eq!(real(-f64::MAX), json!(-f64::MAX));
    }

    #[test]
    fn integer_values_stay_integers_and_reals_stay_reals() {
        assert_eq!(scalar(&crate::Value::Int(12)).to_string(), "12");
        assert_eq!(scalar(&crate::Value::Real(12.0)).to_string(), "12.0");
        assert_eq!(scalar(&crate::Value::Real(f64::NAN)), json!("NaN"));
    }
}
