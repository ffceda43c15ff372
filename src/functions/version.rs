//! Version comparison builtins: `versioncmp`, `versionLT`..`versionGT`, `version_in_range`.

use super::convert::text_of;
use super::{add, arity, Builtin, Call};
use crate::values::Fail;
use classad_vm::Value;

pub(super) fn register(t: &mut Vec<Builtin>) {
    add(t, "versioncmp", |c| {
        version(c, |r| Value::Int(i64::from(r)))
    });
    // HTCondor 25.14.1 finds these under any spelling (`versiongt` works too).
    add(t, "versionLT", |c| version(c, |r| Value::Bool(r < 0)));
    add(t, "versionLE", |c| version(c, |r| Value::Bool(r <= 0)));
    add(t, "versionEQ", |c| version(c, |r| Value::Bool(r == 0)));
    add(t, "versionGE", |c| version(c, |r| Value::Bool(r >= 0)));
    add(t, "versionGT", |c| version(c, |r| Value::Bool(r > 0)));
    add(t, "version_in_range", version_in_range);
}

/// HTCondor's `natural_cmp` (like `strverscmp`): the difference of the first
/// mismatching bytes (as C's signed `char`), unless the mismatch is inside digit runs, which compare as
/// numbers (more leading zeros sort first).
pub fn natural_cmp(a: &str, b: &str) -> i32 {
    let (s1, s2) = (a.as_bytes(), b.as_bytes());
    let at = |s: &[u8], i: usize| s.get(i).copied().unwrap_or(0);
    let digit = |s: &[u8], i: usize| at(s, i).is_ascii_digit();
    let mut p = 0;
    while at(s1, p) != 0 && at(s1, p) == at(s2, p) {
        p += 1;
    }
    // C's `char` is signed: bytes above 127 sort before the digits.
    let diff = i32::from(at(s1, p) as i8) - i32::from(at(s2, p) as i8);
    if diff == 0 {
        return 0;
    }
    let mut n = p;
    while n > 0 && digit(s1, n - 1) {
        n -= 1;
    }
    if n == p && (!digit(s1, p) || !digit(s2, p)) {
        return diff;
    }
    let zeros_end = |s: &[u8]| {
        let mut z = n;
        while at(s, z) == b'0' {
            z += 1;
        }
        if z > n && !digit(s, z) {
            z -= 1;
        }
        z
    };
    let (z1, z2) = (zeros_end(s1), zeros_end(s2));
    if z1 - n != z2 - n {
        return (z2 - n) as i32 - (z1 - n) as i32;
    }
    if z1 > n {
        return diff;
    }
    let run_end = |s: &[u8], mut e: usize| {
        while digit(s, e) {
            e += 1;
        }
        e
    };
    let (e1, e2) = (run_end(s1, z1), run_end(s2, z2));
    if e1 - n != e2 - n {
        (e1 - n) as i32 - (e2 - n) as i32
    } else {
        diff
    }
}

/// The values as text; undefined or error (already ruled out for undefined by the
/// callers) give error.
fn collect_texts(vals: &[Value]) -> Result<Vec<String>, Value> {
    vals.iter()
        .map(|v| text_of(v).map_err(|_| Value::Error))
        .collect()
}

fn version(c: &mut dyn Call, f: fn(i32) -> Value) -> Result<Value, Fail> {
    if !arity(c, 2, 2) {
        return Ok(Value::Error);
    }
    let (a, b) = (c.arg(0)?, c.arg(1)?);
    if a.is_undefined() || b.is_undefined() {
        return Ok(Value::Undefined);
    }
    Ok(match collect_texts(&[a, b]) {
        Ok(t) => f(natural_cmp(&t[0], &t[1])),
        Err(e) => e,
    })
}

/// `version_in_range(v, lo, hi)`: `lo <= v <= hi` naturally; undefined bounds give
/// undefined.
fn version_in_range(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 3, 3) {
        return Ok(Value::Error);
    }
    let vals = [c.arg(0)?, c.arg(1)?, c.arg(2)?];
    if vals[1].is_undefined() || vals[2].is_undefined() {
        return Ok(Value::Undefined);
    }
    Ok(match collect_texts(&vals) {
        Ok(t) => Value::Bool(natural_cmp(&t[1], &t[0]) <= 0 && natural_cmp(&t[0], &t[2]) <= 0),
        Err(e) => e,
    })
}

#[cfg(test)]
mod tests {
    use crate::eval::testing::{eval, s};
    use classad_vm::Value;

    // Expected results from HTCondor 25.14.1.
    #[test]
    fn version_compare() {
        assert_eq!(eval("versioncmp", vec![s("1.10"), s("1.9")]), "1");
        assert_eq!(eval("versioncmp", vec![Value::Bool(true), s("1.9")]), "67");
        assert_eq!(eval("versioncmp", vec![Value::Int(7), s("1.9")]), "6");
        assert_eq!(eval("versioncmp", vec![s("abc"), s("1.9")]), "48");
        assert_eq!(eval("versioncmp", vec![Value::Error, s("1.9")]), "error");
        assert_eq!(
            eval("versioncmp", vec![Value::Error, Value::Undefined]),
            "undefined"
        );
        assert_eq!(eval("versiongt", vec![s("2"), s("1")]), "true");
        assert_eq!(eval("versionLE", vec![s("1"), s("2")]), "true");
        assert_eq!(
            eval("version_in_range", vec![s("1.2"), s("1.0"), s("2.0")]),
            "true"
        );
    }
}
