//! Time builtins (`time`, `currentTime`, `timeZoneOffset`, `dayTime`, the `getX`
//! fields, `splitTime`, `formatTime`, `absTime`, `relTime`) and the parsers for
//! absolute and relative time strings that the parser folds literals with.

use super::text::f64_to_i32_x86;
use super::{add, arity, now_secs, Builtin, Call, Evaluating};
use crate::calendar::{civil, local_offset, local_tm};
use crate::values::compound::{as_ad, new_ad};
use crate::values::scope::{Found, Scope};
use crate::values::Fail;
use classad_vm::{AbsTime, Str, Value};
use std::sync::Arc;

pub(super) fn register(t: &mut Vec<Builtin>) {
    add(t, "time", |c| no_args(c, || Value::Int(now_secs())));
    add(t, "currentTime", |c| no_args(c, current_time));
    add(t, "timeZoneOffset", |c| {
        no_args(c, || Value::RelTime(f64::from(local_offset(now_secs()))))
    });
    add(t, "dayTime", |c| no_args(c, day_time));
    for (name, field) in [
        ("getYear", Field::Year),
        ("getMonth", Field::Month),
        ("getDayOfYear", Field::DayOfYear),
        ("getDayOfMonth", Field::DayOfMonth),
        ("getDayOfWeek", Field::DayOfWeek),
        ("getDays", Field::Days),
        ("getHours", Field::Hours),
        ("getMinutes", Field::Minutes),
        ("getSeconds", Field::Seconds),
    ] {
        add(t, name, FIELD_FNS[field as usize]);
    }
    add(t, "splitTime", split_time);
    add(t, "formatTime", format_time);
    add(t, "absTime", abs_time);
    add(t, "relTime", rel_time);
}

fn no_args(c: &mut dyn Call, f: fn() -> Value) -> Result<Value, Fail> {
    Ok(if c.argc() == 0 { f() } else { Value::Error })
}

/// The current time with the local offset.
fn current_time() -> Value {
    let secs = now_secs();
    Value::AbsTime(AbsTime {
        secs,
        offset: local_offset(secs),
    })
}

/// Seconds since local midnight.
fn day_time() -> Value {
    match local_tm(now_secs()) {
        Some(tm) => Value::RelTime(f64::from(tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec)),
        None => Value::Error,
    }
}

#[derive(Clone, Copy)]
enum Field {
    Year,
    Month,
    DayOfYear,
    DayOfMonth,
    DayOfWeek,
    Days,
    Hours,
    Minutes,
    Seconds,
}

const FIELD_FNS: [super::BuiltinFn; 9] = [
    |c| get_field(c, Field::Year),
    |c| get_field(c, Field::Month),
    |c| get_field(c, Field::DayOfYear),
    |c| get_field(c, Field::DayOfMonth),
    |c| get_field(c, Field::DayOfWeek),
    |c| get_field(c, Field::Days),
    |c| get_field(c, Field::Hours),
    |c| get_field(c, Field::Minutes),
    |c| get_field(c, Field::Seconds),
];

/// `getYear(t)` and friends: calendar fields of an absolute time in the *local*
/// zone (not the value's own offset), or the parts of a relative time.
fn get_field(c: &mut dyn Call, f: Field) -> Result<Value, Fail> {
    if !arity(c, 1, 1) {
        return Ok(Value::Error);
    }
    Ok(match c.arg(0)? {
        Value::AbsTime(t) => {
            let cv = civil(t.secs, i64::from(local_offset(t.secs)));
            Value::Int(match f {
                Field::Year => cv.year,
                Field::Month => i64::from(cv.month),
                Field::DayOfYear => i64::from(cv.yday),
                Field::DayOfMonth => i64::from(cv.day),
                Field::DayOfWeek => i64::from(cv.wday),
                Field::Hours => i64::from(cv.hour),
                Field::Minutes => i64::from(cv.min),
                Field::Seconds => i64::from(cv.sec),
                Field::Days => return Ok(Value::Error),
            })
        }
        Value::RelTime(r) => {
            // C's integral `time_t`, truncated toward zero.
            let s = super::text::f64_to_i64_x86(r);
            Value::Int(match f {
                Field::Days => s / 86_400,
                Field::Hours => s % 86_400 / 3600,
                Field::Minutes => s % 3600 / 60,
                Field::Seconds => s % 60,
                _ => return Ok(Value::Error),
            })
        }
        _ => Value::Error,
    })
}

/// The absolute time a number stands for in `splitTime`/`formatTime`, shown in
/// the local zone: an integer is a 64-bit `time_t`, a real goes through C's `int`
/// conversion.
fn abs_of_number(v: &Value) -> Option<AbsTime> {
    let secs = match v {
        Value::Int(i) => *i,
        Value::Real(r) => i64::from(f64_to_i32_x86(*r)),
        Value::AbsTime(t) => return Some(*t),
        _ => return None,
    };
    Some(AbsTime {
        secs,
        offset: local_offset(secs),
    })
}

/// `splitTime(t)`: an ad of the calendar fields (absolute) or the duration parts
/// (relative).
fn split_time(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 1, 1) {
        return Ok(Value::Error);
    }
    let v = c.arg(0)?;
    if let Value::RelTime(r) = v {
        return Ok(split_rel(r));
    }
    if v.is_undefined() {
        return Ok(Value::Undefined);
    }
    Ok(abs_of_number(&v).map_or(Value::Error, split_abs))
}

/// Whether C's `gmtime`/`localtime` can break `t` down: its year less 1900 must fit
/// a C `int`. Beyond that glibc fills in the time of day and the year (truncated to
/// an `int`) but leaves the month and the day unset, so HTCondor reads whatever
/// its stack held there (its answer changes from run to run); we put January 1st
/// in their place (see [`calendar_fields`]).
fn in_calendar(year: i64) -> bool {
    i32::try_from(year - 1900).is_ok()
}

/// C's `tm_year`, `tm_mon` (0-11) and `tm_mday` of a broken-down time, with the
/// stand-ins of [`in_calendar`] beyond the calendar.
fn calendar_fields(cv: &crate::calendar::Civil) -> (i32, i32, i32) {
    let tm_year = (cv.year - 1900) as i32;
    if in_calendar(cv.year) {
        (tm_year, cv.month as i32 - 1, cv.day as i32)
    } else {
        (tm_year, 0, 1)
    }
}

fn attr(name: &str, v: Value) -> (Str, Value) {
    (Str::from(name), v)
}

fn split_abs(t: AbsTime) -> Value {
    let cv = civil(t.secs, i64::from(t.offset));
    let (year, mon, mday) = calendar_fields(&cv);
    new_ad(vec![
        attr("Type", Value::str("AbsoluteTime")),
        // C's `tm_year + 1900`, an `int` that wraps at the calendar's end.
        attr("Year", Value::Int(i64::from(year.wrapping_add(1900)))),
        attr("Month", Value::Int(i64::from(mon + 1))),
        attr("Day", Value::Int(i64::from(mday))),
        attr("Hours", Value::Int(i64::from(cv.hour))),
        attr("Minutes", Value::Int(i64::from(cv.min))),
        attr("Seconds", Value::Int(i64::from(cv.sec))),
        attr("Offset", Value::Int(i64::from(t.offset))),
    ])
}

/// HTCondor's `relTimeToClassAd`: only the leading non-zero part carries the sign.
fn split_rel(r: f64) -> Value {
    let neg = r < 0.0;
    let r = r.abs();
    let whole = f64_to_i32_x86(r);
    let (mut days, mut hrs, mut mins) = (whole / 86_400, whole % 86_400 / 3600, whole % 3600 / 60);
    let mut secs = f64::from(whole % 60) + (r - r.floor());
    if neg {
        if days > 0 {
            days = -days;
        } else if hrs > 0 {
            hrs = -hrs;
        } else if mins > 0 {
            mins = -mins;
        } else {
            secs = -secs;
        }
    }
    new_ad(vec![
        attr("Type", Value::str("RelativeTime")),
        attr("Days", Value::Int(i64::from(days))),
        attr("Hours", Value::Int(i64::from(hrs))),
        attr("Minutes", Value::Int(i64::from(mins))),
        attr("Seconds", Value::Real(secs)),
    ])
}

/// `formatTime([t[, format]])`: C's `strftime` of the time's own wall clock; the
/// default format is `%c`.
fn format_time(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 0, 2) {
        return Ok(Value::Error);
    }
    if c.argc() == 0 {
        let secs = now_secs();
        return Ok(strftime(&tm_of(secs, local_offset(secs)), "%c"));
    }
    let v = c.arg(0)?;
    let tm = if let Some(ad) = as_ad(&v) {
        tm_of_ad(c.evaluator().fresh().as_mut(), &ad.scope)?
    } else {
        let Some(t) = abs_of_number(&v) else {
            return Ok(Value::Error);
        };
        tm_of(t.secs, t.offset)
    };
    if c.argc() == 1 {
        return Ok(strftime(&tm, "%c"));
    }
    Ok(match c.arg(1)? {
        Value::Str(f) => strftime(&tm, &f),
        _ => Value::Error,
    })
}

/// A `struct tm` of the wall clock at `secs + offset` (beyond the calendar with
/// the stand-ins of [`in_calendar`]), with zone fields left zero as HTCondor
/// leaves them, and the weekday and day of the year as HTCondor computes them
/// ([`day_numbers`] of the year that `splitTime` reports).
fn tm_of(secs: i64, offset: i32) -> libc::tm {
    let cv = civil(secs, i64::from(offset));
    // SAFETY: `tm` is plain old data, so all-zero is a valid value.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    (tm.tm_year, tm.tm_mon, tm.tm_mday) = calendar_fields(&cv);
    tm.tm_hour = cv.hour as i32;
    tm.tm_min = cv.min as i32;
    tm.tm_sec = cv.sec as i32;
    (tm.tm_wday, tm.tm_yday) =
        day_numbers(tm.tm_year.wrapping_add(1900), tm.tm_mon + 1, tm.tm_mday);
    tm
}

/// HTCondor's `day_numbers` (its ClassAd `util.cpp`): the weekday (0 = Sunday) and
/// day of the year of a date, counted with `fixed_from_gregorian` in C `int`
/// arithmetic. For years past about 29 million that wraps, and the weekday falls
/// outside 0-6 (C's `strftime` then prints `?`), as in HTCondor.
fn day_numbers(year: i32, month: i32, day: i32) -> (i32, i32) {
    let fixed = fixed_from_gregorian(year, month, day);
    let jan1 = fixed_from_gregorian(year, 1, 1);
    (fixed % 7, fixed.wrapping_sub(jan1))
}

/// Days from the start of the proleptic Gregorian calendar (1 = Monday, January 1
/// of year 1), as HTCondor's `fixed_from_gregorian` computes them (wrapping).
fn fixed_from_gregorian(year: i32, month: i32, day: i32) -> i32 {
    let leap = {
        let (mod4, mod400) = (year % 4, year % 400);
        mod4 == 0 && mod400 != 100 && mod400 != 200 && mod400 != 300
    };
    let adjust = if month <= 2 {
        0
    } else if leap {
        -1
    } else {
        -2
    };
    let y = year.wrapping_sub(1);
    365i32
        .wrapping_mul(y)
        .wrapping_add(y / 4)
        .wrapping_sub(y / 100)
        .wrapping_add(y / 400)
        .wrapping_add(367i32.wrapping_mul(month).wrapping_sub(362) / 12)
        .wrapping_add(adjust)
        .wrapping_add(day)
}

/// The `struct tm` HTCondor builds from an ad (as `splitTime` makes): the integer
/// attributes `Year`, `Month`, `Day`, `Hours`, `Minutes` and `Seconds`, each left
/// zero when missing or not an integer (so `[a = 1]` is "Jan 0 1900"), taken as they
/// are, without normalising; the weekday and day of the year from [`day_numbers`].
fn tm_of_ad(ev: &mut dyn Evaluating, scope: &Arc<Scope>) -> Result<libc::tm, Fail> {
    let mut field = |name: &str| -> Result<Option<i64>, Fail> {
        Ok(match scope.lookup_local(name, true) {
            Some(Found::Expr(e, at)) => match ev.eval(&e, Some(&at))? {
                Value::Int(i) => Some(i64::from(i as i32)),
                _ => None,
            },
            _ => None,
        })
    };
    // Offsets from `struct tm`'s zero: 1900, January.
    let year = field("Year")?.map_or(0, |y| y - 1900);
    let mon = field("Month")?.map_or(0, |m| m - 1);
    let [day, hour, min, sec] = [
        field("Day")?.unwrap_or(0),
        field("Hours")?.unwrap_or(0),
        field("Minutes")?.unwrap_or(0),
        field("Seconds")?.unwrap_or(0),
    ];
    // SAFETY: `tm` is plain old data, so all-zero is a valid value.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    tm.tm_year = year as i32;
    tm.tm_mon = mon as i32;
    tm.tm_mday = day as i32;
    tm.tm_hour = hour as i32;
    tm.tm_min = min as i32;
    tm.tm_sec = sec as i32;
    (tm.tm_wday, tm.tm_yday) = day_numbers(
        tm.tm_year.wrapping_add(1900),
        tm.tm_mon.wrapping_add(1),
        tm.tm_mday,
    );
    Ok(tm)
}

/// C's `strftime` into HTCondor's 1023-byte buffer (an overflow gives `""`).
fn strftime(tm: &libc::tm, format: &str) -> Value {
    let Ok(fmt) = std::ffi::CString::new(format) else {
        return Value::str("");
    };
    let mut buf = vec![0u8; 1024];
    // SAFETY: `buf` has 1024 writable bytes and we pass 1023 as its size; `fmt` is a
    // NUL-terminated C string and `tm` a fully initialised struct.
    let n = unsafe { libc::strftime(buf.as_mut_ptr().cast(), 1023, fmt.as_ptr(), tm) };
    buf.truncate(n);
    Value::str(String::from_utf8_lossy(&buf).into_owned())
}

/// The offset argument of `absTime(t, offset)`: an integer, real or relative time as
/// a C `int`.
fn offset_arg(v: &Value) -> Option<i32> {
    match v {
        Value::Int(i) => Some(*i as i32),
        Value::Real(r) => Some(f64_to_i32_x86(*r)),
        Value::RelTime(r) => Some(super::text::f64_to_i64_x86(*r) as i32),
        _ => None,
    }
}

/// Run-time `absTime(...)`. A string argument is returned unchanged: HTCondor folds
/// string literals at parse time and its run-time code falls through for strings.
fn abs_time(c: &mut dyn Call) -> Result<Value, Fail> {
    if c.argc() == 0 {
        return Ok(current_time());
    }
    if !arity(c, 1, 2) {
        return Ok(Value::Error);
    }
    let v = c.arg(0)?;
    let offset = if c.argc() == 2 {
        match offset_arg(&c.arg(1)?) {
            Some(o) => Some(o),
            None => return Ok(Value::Error),
        }
    } else {
        None
    };
    let secs = match &v {
        Value::Undefined => return Ok(Value::Undefined),
        Value::Int(i) => i64::from(*i as i32),
        Value::Real(r) => i64::from(f64_to_i32_x86(*r)),
        Value::RelTime(r) => super::text::f64_to_i64_x86(*r),
        Value::Str(_) | Value::AbsTime(_) => return Ok(v),
        _ => return Ok(Value::Error),
    };
    if offset == Some(-1) && matches!(v, Value::Int(_)) {
        // HTCondor's evaluation fails for an integer time with a zone offset of -1
        // seconds (its "no offset given" mark, taken for a failure).
        return Err(Fail);
    }
    Ok(Value::AbsTime(AbsTime {
        secs,
        offset: offset.unwrap_or_else(|| local_offset(secs)),
    }))
}

/// Run-time `relTime(x)`. A string argument gives a zero duration, as HTCondor's
/// run-time code does (string literals are folded at parse time instead).
fn rel_time(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 1, 1) {
        if c.argc() == 2 {
            // HTCondor evaluates both arguments before refusing the second.
            c.arg(0)?;
            c.arg(1)?;
        }
        return Ok(Value::Error);
    }
    Ok(match c.arg(0)? {
        Value::Undefined => Value::Undefined,
        Value::Int(i) => Value::RelTime(f64::from(i as i32)),
        Value::Real(r) => Value::RelTime(r),
        Value::Str(_) => Value::RelTime(0.0),
        Value::AbsTime(t) => Value::RelTime(t.secs as f64),
        v @ Value::RelTime(_) => v,
        _ => Value::Error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::testing::{eval, s};

    // Expected results from HTCondor 25.14.1, run with TZ unset (UTC).
    fn abs(text: &str) -> Option<String> {
        crate::syntax::time::parse_abstime(text).map(crate::syntax::unparse::fmt_abstime)
    }

    #[test]
    fn abstime_strings() {
        std::env::remove_var("TZ");
        assert_eq!(
            abs("2023-11-14T22:13:20+05:30").as_deref(),
            Some("2023-11-14T22:13:20+05:30")
        );
        assert_eq!(
            abs("2023-11-14T22:13:20-0500").as_deref(),
            Some("2023-11-14T22:13:20-05:00")
        );
        assert_eq!(
            abs("2023-11-14T22:13:20Z").as_deref(),
            Some("2023-11-14T22:13:20-00:00")
        );
        assert_eq!(
            abs("2023-13-45").as_deref(),
            Some("2024-02-14T00:00:00-00:00")
        );
        assert_eq!(abs("2023").as_deref(), Some("2022-12-31T00:00:00-00:00"));
        assert_eq!(abs("2023-11").as_deref(), Some("2023-10-31T00:00:00-00:00"));
        assert_eq!(
            abs("20231114T221320").as_deref(),
            Some("2023-11-14T22:13:20-00:00")
        );
        assert_eq!(
            abs("99999-01-01").as_deref(),
            Some("9999-09-01T01:00:00-00:00")
        );
        assert_eq!(
            abs("2023-11-14Tjunk").as_deref(),
            Some("2023-11-14T00:00:00-00:00")
        );
        assert_eq!(abs("2023-11-14T22:13:20.5"), None);
        assert_eq!(abs("2023-11-14T22:13:20+05"), None);
        assert_eq!(abs(""), None);
        assert_eq!(abs("abc"), None);
    }

    #[test]
    fn reltime_strings() {
        let r = crate::syntax::time::parse_reltime;
        assert_eq!(r("1+01:01:01"), Some(90061.0));
        assert_eq!(r("01:01"), Some(61.0));
        assert_eq!(r("1d2h3m4s"), Some(93784.0));
        assert_eq!(r("-00:00:01"), Some(-1.0));
        assert_eq!(r("1d 2h"), Some(93600.0));
        assert_eq!(r("01:01:01.5"), Some(3661.5));
        assert_eq!(r("2h30"), Some(7230.0));
        assert_eq!(r(""), Some(0.0));
        assert_eq!(r("99999999999999999999"), Some(1e20));
        assert_eq!(r("1.5d"), None);
        assert_eq!(r("1h1d"), None);
        assert_eq!(r("1:2:3:4"), None);
        assert_eq!(r("garbage"), None);
    }

    #[test]
    fn runtime_conversions() {
        std::env::remove_var("TZ");
        assert_eq!(
            eval("absTime", vec![Value::Int(0)]),
            "absTime(\"1970-01-01T00:00:00-00:00\")"
        );
        assert_eq!(
            eval("absTime", vec![Value::Int(0), Value::Int(-3600)]),
            "absTime(\"1969-12-31T23:00:00-01:00\")"
        );
        assert_eq!(
            eval("absTime", vec![Value::Real(1e30)]),
            "absTime(\"1901-12-13T20:45:52-00:00\")"
        );
        assert_eq!(eval("absTime", vec![s("x")]), "\"x\"");
        assert_eq!(eval("absTime", vec![Value::Bool(true)]), "error");
        assert_eq!(
            eval("absTime", vec![Value::Int(5), Value::Undefined]),
            "error"
        );
        assert_eq!(eval("relTime", vec![Value::Real(-5.5)]), "relTime(\"-05\")");
        assert_eq!(eval("relTime", vec![s("1d")]), "relTime(\"00\")");
        assert_eq!(eval("relTime", vec![Value::Int(1), Value::Int(2)]), "error");
        assert_eq!(
            eval("formatTime", vec![Value::Int(0)]),
            "\"Thu Jan  1 00:00:00 1970\""
        );
        assert_eq!(
            eval(
                "formatTime",
                vec![Value::AbsTime(AbsTime {
                    secs: 0,
                    offset: 3600
                })]
            ),
            "\"Thu Jan  1 01:00:00 1970\""
        );
        assert_eq!(eval("formatTime", vec![Value::RelTime(5.0)]), "error");
        assert_eq!(eval("getDays", vec![Value::RelTime(-90000.0)]), "-1");
        assert_eq!(eval("getHours", vec![Value::RelTime(-90000.0)]), "-1");
        assert_eq!(eval("getDays", vec![Value::Int(0)]), "error");
        assert_eq!(eval("splitTime", vec![Value::Undefined]), "undefined");
    }

    // Expected results from HTCondor 25.14.1, run with TZ unset (UTC).
    #[test]
    fn format_time_of_an_ad() {
        let ad = |attrs: Vec<(&str, i64)>| {
            new_ad(
                attrs
                    .into_iter()
                    .map(|(n, v)| (Str::from(n), Value::Int(v)))
                    .collect(),
            )
        };
        assert_eq!(
            eval("formatTime", vec![ad(vec![("a", 1)])]),
            "\"Sun Jan  0 00:00:00 1900\""
        );
        assert_eq!(
            eval(
                "formatTime",
                vec![ad(vec![("a", 1)]), s("%Y-%m-%d %H:%M:%S")]
            ),
            "\"1900-01-00 00:00:00\""
        );
        assert_eq!(
            eval(
                "formatTime",
                vec![
                    ad(vec![("Year", 2020), ("Month", 3), ("Day", 4)]),
                    s("%a %j")
                ]
            ),
            "\"Wed 064\""
        );
        assert_eq!(
            eval("formatTime", vec![ad(vec![("Month", 13)]), s("%m %d")]),
            "\"13 00\""
        );
    }
}
