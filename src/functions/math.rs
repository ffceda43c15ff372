//! Numeric builtins: `floor`, `ceil`/`ceiling`, `round`, `pow`, `quantize`, `random`.

use super::convert::real_of;
use super::text::f64_to_i64_x86;
use super::{add, arity, Builtin, Call};
use crate::values::Fail;
use classad_vm::Value;

pub(super) fn register(t: &mut Vec<Builtin>) {
    add(t, "floor", |c| rounding(c, f64::floor));
    add(t, "ceil", |c| rounding(c, f64::ceil));
    add(t, "ceiling", |c| rounding(c, f64::ceil));
    add(t, "round", |c| rounding(c, rint));
    add(t, "pow", pow);
    add(t, "quantize", quantize);
    add(t, "random", random);
}

/// C's `rint` in the default rounding mode: ties go to even.
fn rint(x: f64) -> f64 {
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - x.signum()
    } else {
        r
    }
}

/// `floor`, `ceil`, `round`: integers pass through; anything convertible to a real
/// (numeric strings too) is rounded and truncated to an integer like C's cast.
fn rounding(c: &mut dyn Call, f: fn(f64) -> f64) -> Result<Value, Fail> {
    if !arity(c, 1, 1) {
        return Ok(Value::Error);
    }
    Ok(match c.arg(0)? {
        Value::Int(i) => Value::Int(i),
        v => match real_of(&v) {
            Some(r) => Value::Int(f64_to_i64_x86(f(r))),
            // Undefined is an error here too, as in HTCondor.
            None => Value::Error,
        },
    })
}

/// `pow(a, b)`: two integers with `b >= 0` give an integer (through a double, plus
/// one half, truncated); otherwise a real.
fn pow(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 2, 2) {
        return Ok(Value::Error);
    }
    let (a, b) = (c.arg(0)?, c.arg(1)?);
    if let (Value::Int(x), Value::Int(y)) = (&a, &b) {
        if *y >= 0 {
            return Ok(Value::Int(f64_to_i64_x86(
                (*x as f64).powf(*y as f64) + 0.5,
            )));
        }
    }
    Ok(match (real_of(&a), real_of(&b)) {
        (Some(x), Some(y)) => Value::Real(x.powf(y)),
        _ => Value::Error,
    })
}

/// `quantize(a, b)`: `a` rounded up to a multiple of `b`; with a list, the first
/// element at least `a`, else a multiple of the last element.
fn quantize(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 2, 2) {
        return Ok(Value::Error);
    }
    let (a, b) = (c.arg(0)?, c.arg(1)?);
    let Some(x) = real_of(&a) else {
        return Ok(Value::Error);
    };
    let base = match super::list_len(&b) {
        Some(n) => {
            // An empty list means "do not quantize" (a real zero base). Elements
            // are read one at a time, up to the one that decides.
            let mut last = Value::Real(0.0);
            for i in 0..n {
                let item = c.list_item(&b, i)?;
                match real_of(&item) {
                    Some(r) if r >= x => return Ok(item),
                    Some(_) => last = item,
                    None => return Ok(Value::Error),
                }
            }
            last
        }
        None => b,
    };
    let Some(rbase) = real_of(&base) else {
        return Ok(Value::Error);
    };
    Ok(match base {
        Value::Int(0) => a,
        Value::Int(ib) => match a {
            Value::Int(ia) => Value::Int(
                ia.wrapping_add(ib.wrapping_sub(1))
                    .checked_div(ib)
                    .unwrap_or(i64::MIN)
                    .wrapping_mul(ib),
            ),
            _ => Value::Real((x / ib as f64).ceil() * ib as f64),
        },
        _ if rbase.abs() <= 1e-8 => a,
        _ => Value::Real((x / rbase).ceil() * rbase),
    })
}

/// A pseudo-random 64-bit number (xorshift, seeded from the clock and a counter);
/// `random()` needs no cryptographic quality.
fn next_random() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static STATE: AtomicU64 = AtomicU64::new(0);
    let mut x = STATE.load(Ordering::Relaxed);
    if x == 0 {
        x = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x9E37_79B9_7F4A_7C15)
            | 1;
    }
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    STATE.store(x, Ordering::Relaxed);
    x
}

/// `random([n])`: an integer in `[0, n)` for an integer `n` (as a 32-bit C `int`),
/// a real in `[0, x)` for a real `x`; `[0, 1)` without an argument.
fn random(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 0, 1) {
        return Ok(Value::Error);
    }
    let arg = if c.argc() == 0 {
        Value::Real(1.0)
    } else {
        c.arg(0)?
    };
    let unit = (next_random() >> 11) as f64 / (1u64 << 53) as f64;
    // HTCondor's evaluation fails outright (no value at all) for a bound that is not
    // positive, the integer one taken as a C `int`.
    Ok(match arg {
        Value::Int(n) => {
            let n = n as i32;
            if n <= 0 {
                return Err(Fail);
            }
            Value::Int(i64::from((next_random() >> 33) as i32 % n))
        }
        Value::Real(x) if x <= 0.0 => return Err(Fail),
        Value::Real(x) => Value::Real(x * unit),
        _ => Value::Error,
    })
}

#[cfg(test)]
mod tests {
    use crate::eval::testing::{eval, list, run, s};
    use classad_vm::Value;

    // Expected results from HTCondor 25.14.1.
    #[test]
    fn rounding_functions() {
        assert_eq!(eval("round", vec![Value::Real(2.5)]), "2");
        assert_eq!(eval("round", vec![Value::Real(3.5)]), "4");
        assert_eq!(eval("round", vec![Value::Real(-2.5)]), "-2");
        assert_eq!(eval("round", vec![Value::Real(0.5)]), "0");
        assert_eq!(eval("floor", vec![s(" 3.7x")]), "3");
        assert_eq!(eval("floor", vec![s("abc")]), "error");
        assert_eq!(eval("round", vec![Value::Undefined]), "error");
        assert_eq!(eval("ceiling", vec![Value::Real(-1.2)]), "-1");
        assert_eq!(
            eval("floor", vec![Value::Real(1e19)]),
            "-9223372036854775808"
        );
        assert_eq!(eval("floor", vec![Value::Bool(true)]), "1");
    }

    #[test]
    fn pow_cases() {
        assert_eq!(eval("pow", vec![Value::Int(2), Value::Int(10)]), "1024");
        assert_eq!(eval("pow", vec![Value::Int(-2), Value::Int(3)]), "-7");
        assert_eq!(
            eval("pow", vec![Value::Int(2), Value::Int(63)]),
            "-9223372036854775808"
        );
        assert_eq!(eval("pow", vec![Value::Int(0), Value::Int(0)]), "1");
        assert_eq!(
            eval("pow", vec![Value::Int(2), Value::Int(-1)]),
            "5.000000000000000E-01"
        );
        assert_eq!(
            eval("pow", vec![Value::Int(0), Value::Int(-1)]),
            "real(\"INF\")"
        );
        assert_eq!(eval("pow", vec![Value::Undefined, Value::Int(2)]), "error");
        assert_eq!(
            eval("pow", vec![s("2"), Value::Int(2)]),
            "4.000000000000000E+00"
        );
    }

    #[test]
    fn quantize_cases() {
        let i = Value::Int;
        assert_eq!(eval("quantize", vec![i(7), i(3)]), "9");
        assert_eq!(
            eval("quantize", vec![i(7), list(vec![i(2), i(5), i(10)])]),
            "10"
        );
        assert_eq!(
            eval("quantize", vec![i(11), list(vec![i(2), i(5), i(10)])]),
            "20"
        );
        assert_eq!(
            eval("quantize", vec![i(20), list(vec![i(4), i(8), i(16)])]),
            "32"
        );
        assert_eq!(
            eval("quantize", vec![Value::Real(7.5), i(2)]),
            "8.000000000000000E+00"
        );
        assert_eq!(eval("quantize", vec![i(-7), i(4)]), "-4");
    }

    #[test]
    fn random_stays_in_range() {
        for _ in 0..100 {
            match run("random", vec![Value::Int(10)]) {
                Value::Int(n) => assert!((0..10).contains(&n)),
                v => panic!("{v:?}"),
            }
        }
    }

    // HTCondor 25.14.1 fails to evaluate these.
    #[test]
    fn random_fails_for_non_positive_bounds() {
        let fails = |v: Value| crate::eval::testing::try_run("random", vec![v]).is_err();
        assert!(fails(Value::Int(0)));
        assert!(fails(Value::Int(-1)));
        assert!(fails(Value::Int(2_147_483_648)));
        assert!(fails(Value::Real(-0.0)));
        assert!(fails(Value::Real(-1.5)));
        assert!(!fails(Value::Int(4_294_967_297)));
        assert!(!fails(Value::Real(0.5)));
    }
}
