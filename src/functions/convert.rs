//! Conversions between value types (`int`, `real`, `string`, `bool`) and the C-style
//! number parsing they rely on.

use super::text::{f64_to_i32_x86, f64_to_i64_x86, value_text};
use super::{add, arity, Builtin, Call};
use crate::eval::Fail;
use classad_vm::Value;

pub(super) fn register(t: &mut Vec<Builtin>) {
    add(t, "int", |c| unary(c, to_int));
    add(t, "real", |c| unary(c, to_real));
    add(t, "string", |c| unary(c, to_string));
    add(t, "bool", |c| unary(c, to_bool));
}

/// Evaluates the single argument of a one-argument builtin and applies `f`.
pub(crate) fn unary(c: &mut dyn Call, f: fn(&Value) -> Value) -> Result<Value, Fail> {
    if !arity(c, 1, 1) {
        return Ok(Value::Error);
    }
    let v = c.arg(0)?;
    Ok(f(&v))
}

/// C's `strtod` on the start of `s`: the value and whether anything was consumed.
/// Accepts leading white space, a sign, decimal and hex (`0x1p3`) forms, `inf`,
/// `infinity` and `nan`.
pub(crate) fn strtod(s: &str) -> Option<f64> {
    strtod_prefix(s).map(|(v, _)| v)
}

/// C's `strtod` on the start of `s`: the value and how many bytes it read (what
/// `strtod` leaves in `*endptr`), or `None` when it reads nothing.
pub(crate) fn strtod_prefix(s: &str) -> Option<(f64, usize)> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    let neg = matches!(b.get(i), Some(b'-'));
    if matches!(b.get(i), Some(b'+' | b'-')) {
        i += 1;
    }
    let rest = &s[i..];
    let lower = rest
        .get(..8.min(rest.len()))
        .unwrap_or("")
        .to_ascii_lowercase();
    let (mag, len) = if lower.starts_with("infinity") {
        (f64::INFINITY, 8)
    } else if lower.starts_with("inf") {
        (f64::INFINITY, 3)
    } else if lower.starts_with("nan") {
        (f64::NAN, 3 + nan_payload(&rest[3..]))
    } else if lower.starts_with("0x") {
        // `0x` without a hex digit after it is the `0` alone.
        hex_float(&rest[2..]).map_or((0.0, 1), |(v, n)| (v, 2 + n))
    } else {
        decimal_float(rest)?
    };
    Some((if neg { -mag } else { mag }, i + len))
}

/// The length of the `(chars)` that may follow `nan`: letters, digits and `_`
/// between parentheses; 0 when there is none.
fn nan_payload(s: &str) -> usize {
    let Some(body) = s.strip_prefix('(') else {
        return 0;
    };
    let inner = body
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
        .count();
    if body.as_bytes().get(inner) == Some(&b')') {
        inner + 2
    } else {
        0
    }
}

/// The longest decimal floating-point prefix of `s` and its length; `None` when
/// there are no digits.
fn decimal_float(s: &str) -> Option<(f64, usize)> {
    let b = s.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    let mut n = digits(&mut i);
    if i < b.len() && b[i] == b'.' {
        i += 1;
        n += digits(&mut i);
    }
    if n == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if digits(&mut j) > 0 {
            i = j;
        }
    }
    s[..i].parse::<f64>().ok().map(|v| (v, i))
}

/// A hexadecimal float body after `0x` (`1F`, `1.8p3`) and its length; `None`
/// (meaning the `0` alone) when no hex digit follows.
fn hex_float(s: &str) -> Option<(f64, usize)> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut m = 0.0f64;
    let mut scale = 0i32;
    let mut any = false;
    while i < b.len() && b[i].is_ascii_hexdigit() {
        m = m * 16.0 + f64::from((b[i] as char).to_digit(16).unwrap_or(0));
        any = true;
        i += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_hexdigit() {
            m = m * 16.0 + f64::from((b[i] as char).to_digit(16).unwrap_or(0));
            scale -= 4;
            any = true;
            i += 1;
        }
    }
    if !any {
        return None;
    }
    if i < b.len() && (b[i] == b'p' || b[i] == b'P') {
        let mut j = i + 1;
        let neg = b.get(j) == Some(&b'-');
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let start = j;
        let mut e: i32 = 0;
        while j < b.len() && b[j].is_ascii_digit() {
            e = e.saturating_mul(10).saturating_add(i32::from(b[j] - b'0'));
            j += 1;
        }
        if j > start {
            scale = scale.saturating_add(if neg { -e } else { e });
            i = j;
        }
    }
    Some((m * 2f64.powi(scale), i))
}

/// HTCondor's `convertValueToRealValue`: `None` when the value cannot become a real
/// (undefined included); `Some(Value::Error)` is never returned.
pub(crate) fn real_of(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Real(r) => Some(*r),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Str(s) => strtod(s),
        // An absolute time converts through C's integral `time_t`, a relative one
        // through a C `int` (so -0.0 becomes 0.0, and beyond the range INT_MIN).
        Value::AbsTime(t) => Some(t.secs as f64),
        Value::RelTime(r) => Some(f64::from(f64_to_i32_x86(*r))),
        _ => None,
    }
}

/// HTCondor's `convertValueToIntegerValue`, without the undefined/error cases.
pub(crate) fn int_of(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Real(r) => Some(f64_to_i64_x86(*r)),
        Value::Bool(b) => Some(i64::from(*b)),
        // Strings go through `strtod`, so `"1e3"` is 1000 and `"0x10"` is 16.
        Value::Str(s) => strtod(s).map(f64_to_i64_x86),
        Value::AbsTime(t) => Some(t.secs),
        Value::RelTime(r) => Some(i64::from(f64_to_i32_x86(*r))),
        _ => None,
    }
}

/// `int(v)`.
pub(crate) fn to_int(v: &Value) -> Value {
    match v {
        Value::Undefined => Value::Undefined,
        _ => int_of(v).map_or(Value::Error, Value::Int),
    }
}

/// `real(v)`.
fn to_real(v: &Value) -> Value {
    match v {
        Value::Undefined => Value::Undefined,
        _ => real_of(v).map_or(Value::Error, Value::Real),
    }
}

/// HTCondor's `convertValueToStringValue`: undefined and error pass through.
pub(crate) fn to_string(v: &Value) -> Value {
    match v {
        Value::Undefined | Value::Error | Value::Str(_) => v.clone(),
        _ => Value::str(value_text(v)),
    }
}

/// The text of a value for the string functions; `Err` carries undefined or error.
pub(crate) fn text_of(v: &Value) -> Result<String, Value> {
    match v {
        Value::Undefined | Value::Error => Err(v.clone()),
        _ => Ok(value_text(v)),
    }
}

/// `bool(v)`: strings must spell `true` or `false` (any case), else undefined.
fn to_bool(v: &Value) -> Value {
    match v {
        Value::Undefined => Value::Undefined,
        Value::Bool(_) => v.clone(),
        Value::Int(i) => Value::Bool(*i != 0),
        Value::Real(r) => Value::Bool(*r != 0.0),
        Value::RelTime(r) => Value::Bool(r.trunc() != 0.0),
        Value::Str(s) if s.eq_ignore_ascii_case("true") => Value::Bool(true),
        Value::Str(s) if s.eq_ignore_ascii_case("false") => Value::Bool(false),
        Value::Str(_) => Value::Undefined,
        _ => Value::Error,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{eval, s};
    use classad_vm::Value;

    // Expected results from HTCondor 25.14.1.
    #[test]
    fn int_parses_like_strtod() {
        assert_eq!(eval("int", vec![s("12abc")]), "12");
        assert_eq!(eval("int", vec![s("1e3")]), "1000");
        assert_eq!(eval("int", vec![s("-0x1A")]), "-26");
        assert_eq!(eval("int", vec![s("010")]), "10");
        assert_eq!(eval("int", vec![s("  -0x")]), "0");
        assert_eq!(eval("int", vec![s("")]), "error");
        assert_eq!(eval("int", vec![s("inf")]), "-9223372036854775808");
        assert_eq!(eval("int", vec![Value::Real(-12.7)]), "-12");
        assert_eq!(eval("int", vec![Value::Real(1e30)]), "-9223372036854775808");
        assert_eq!(eval("int", vec![Value::RelTime(5.5)]), "5");
        assert_eq!(eval("int", vec![Value::Undefined]), "undefined");
        assert_eq!(
            eval("int", vec![s("123456789012345678")]),
            "123456789012345680"
        );
    }

    #[test]
    fn strtod_prefix_says_where_strtod_stops() {
        use super::strtod_prefix;
        let stop = |t: &str| strtod_prefix(t).map(|(_, n)| n);
        assert_eq!(stop("  2.5xyz"), Some(5));
        assert_eq!(stop("1e3x"), Some(3));
        assert_eq!(stop("1e"), Some(1));
        assert_eq!(stop("-0x"), Some(2));
        assert_eq!(stop("0x1.8p3 "), Some(7));
        assert_eq!(stop("0x1p"), Some(3));
        assert_eq!(stop("infinity"), Some(8));
        assert_eq!(stop("-INFx"), Some(4));
        assert_eq!(stop("nan(12)"), Some(7));
        assert_eq!(stop("nan(1"), Some(3));
        assert_eq!(stop("."), None);
        assert_eq!(stop(""), None);
    }

    #[test]
    fn real_string_bool() {
        assert_eq!(eval("real", vec![s("  2.5xyz")]), "2.500000000000000E+00");
        assert_eq!(eval("real", vec![s("NaN")]), "real(\"NaN\")");
        assert_eq!(eval("real", vec![s("0x1p3")]), "8.000000000000000E+00");
        assert_eq!(eval("real", vec![s("-infinity")]), "real(\"-INF\")");
        assert_eq!(
            eval("real", vec![Value::RelTime(2.5)]),
            "2.000000000000000E+00"
        );
        assert_eq!(eval("real", vec![s("abc")]), "error");
        assert_eq!(
            eval("string", vec![Value::Real(2.5)]),
            "\"2.500000000000000E+00\""
        );
        assert_eq!(eval("string", vec![Value::Undefined]), "undefined");
        assert_eq!(eval("bool", vec![s("TRUE")]), "true");
        assert_eq!(eval("bool", vec![s("yes")]), "undefined");
        assert_eq!(eval("bool", vec![Value::Real(f64::NAN)]), "true");
        assert_eq!(eval("bool", vec![]), "error");
    }
}
