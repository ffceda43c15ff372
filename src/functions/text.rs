//! Turning values into text the way HTCondor's unparser does, for `string()`, `strcat()` and friends.

use crate::eval::display::unparse_value;
use crate::syntax::unparse::{fmt_abstime, fmt_reltime_value};
use classad_vm::Value;

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day).
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A proleptic Gregorian date to days since 1970-01-01; months outside 1-12 and
/// days outside the month roll over, as `mktime` normalises them.
pub(crate) fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = y + (m - 1).div_euclid(12);
    let m = (m - 1).rem_euclid(12) + 1;
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468 + (d - 1)
}

/// Broken-down civil time of an absolute time in its own offset.
pub(crate) struct Civil {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub min: u32,
    pub sec: u32,
    /// 0 = Sunday.
    pub wday: u32,
    /// 0 = January 1st.
    pub yday: u32,
}

/// The wall-clock fields of `secs` shifted by `offset` seconds.
pub(crate) fn civil(secs: i64, offset: i64) -> Civil {
    // Clamp so that absurd values stay inside i64 arithmetic.
    let local = secs.clamp(-(1 << 55), 1 << 55) + offset;
    let days = local.div_euclid(86_400);
    let rem = local.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    Civil {
        year,
        month,
        day,
        hour: (rem / 3600) as u32,
        min: (rem % 3600 / 60) as u32,
        sec: (rem % 60) as u32,
        wday: (days + 4).rem_euclid(7) as u32,
        yday: (days - days_from_civil(year, 1, 1)) as u32,
    }
}

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
