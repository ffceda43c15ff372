//! Conversions between value types (`int`, `real`, `string`, `bool`); numbers in
//! text are read with C's `strtod` ([`crate::c_number`]).

use super::text::{f64_to_i32_x86, f64_to_i64_x86, value_text};
use super::{add, arity, Builtin, Call};
use crate::c_number::strtod;
use crate::values::Fail;
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
    use crate::eval::testing::{eval, s};
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
