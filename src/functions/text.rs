//! Turning values into text the way HTCondor's unparser does, for `string()`, `strcat()` and friends.

use crate::syntax::unparse::{fmt_abstime, fmt_reltime_value};
use crate::values::display::unparse_value;
use classad_vm::Value;

/// C's `(int)` conversion of a double on x86-64: out-of-range and NaN give `INT_MIN`.
pub(crate) fn f64_to_i32_x86(r: f64) -> i32 {
    if !(-2_147_483_649.0..2_147_483_648.0).contains(&r) || r == -2_147_483_649.0 {
        i32::MIN
    } else {
        r as i32
    }
}

/// C's `(long long)` conversion of a double on x86-64: out-of-range and NaN give
/// `INT64_MIN`.
pub(crate) fn f64_to_i64_x86(r: f64) -> i64 {
    if !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&r) {
        i64::MIN
    } else {
        r as i64
    }
}

/// A value as text for string functions (HTCondor's `convertValueToStringValue`):
/// strings as they are, times in their bare forms, everything else unparsed.
pub fn value_text(v: &Value) -> String {
    match v {
        Value::Str(s) => s.to_string(),
        Value::AbsTime(t) => fmt_abstime(*t),
        Value::RelTime(r) => fmt_reltime_value(*r),
        _ => unparse_value(v),
    }
}

#[cfg(test)]
mod tests {
    use crate::syntax::unparse::{
        fmt_abstime as abstime_text, fmt_real_new as real_text, fmt_reltime_value as reltime_text,
    };
    use classad_vm::AbsTime;

    // Expected strings come from HTCondor 25.14.1.
    #[test]
    fn reals_print_like_printf_e() {
        assert_eq!(real_text(2.5), "2.500000000000000E+00");
        assert_eq!(real_text(1.0 / 3.0), "3.333333333333333E-01");
        assert_eq!(real_text(1e20), "1.000000000000000E+20");
        assert_eq!(real_text(-0.0), "-0.0");
        assert_eq!(real_text(f64::NEG_INFINITY), "real(\"-INF\")");
        assert_eq!(real_text(1e-300), "1.000000000000000E-300");
    }

    #[test]
    fn times_print_like_htcondor() {
        assert_eq!(reltime_text(90.5), "01:30");
        assert_eq!(reltime_text(100_000.0), "1+03:46:40");
        assert_eq!(reltime_text(-90.5), "-01:30");
        assert_eq!(reltime_text(1e12), "--24855+-3:-14:-8");
        assert_eq!(
            abstime_text(AbsTime { secs: 0, offset: 0 }),
            "1970-01-01T00:00:00-00:00"
        );
        assert_eq!(
            abstime_text(AbsTime {
                secs: 0,
                offset: -3600
            }),
            "1969-12-31T23:00:00-01:00"
        );
        assert_eq!(
            abstime_text(AbsTime { secs: 5, offset: 1 }),
            "1970-01-01T00:00:06+00:00"
        );
    }
}
