//! HTCondor's operator semantics on values (`operators.cpp`), shared by every engine.
//!
//! Only the value-level rules live here. Short-circuiting (`&&`, `||`, `?:`) is the
//! evaluator's job: it calls [`and`], [`or`] only when the left operand did not decide.

use crate::value::{AbsTime, Value};
use std::cmp::Ordering;

/// Arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
}

/// Comparison operators; `Is`/`Isnt` are `=?=`/`=!=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `=?=`, `is`
    Is,
    /// `=!=`, `isnt`
    Isnt,
}

impl Cmp {
    /// Every comparison, in code order (see [`Cmp::code`]).
    pub const ALL: [Cmp; 8] = [
        Cmp::Lt,
        Cmp::Le,
        Cmp::Gt,
        Cmp::Ge,
        Cmp::Eq,
        Cmp::Ne,
        Cmp::Is,
        Cmp::Isnt,
    ];

    /// A small number for the comparison, for instruction operands.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The comparison with code `c` (taken modulo 8, so every operand decodes).
    #[inline]
    pub fn from_code(c: u32) -> Cmp {
        Cmp::ALL[(c & 7) as usize]
    }

    /// The comparison that gives the same result with its operands swapped
    /// (`a < b` is `b > a`).
    pub fn swapped(self) -> Cmp {
        match self {
            Cmp::Lt => Cmp::Gt,
            Cmp::Le => Cmp::Ge,
            Cmp::Gt => Cmp::Lt,
            Cmp::Ge => Cmp::Le,
            c => c,
        }
    }
}

/// Bitwise operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bit {
    /// `&`
    And,
    /// `|`
    Or,
    /// `^`
    Xor,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `>>>`
    UShr,
}

/// A binary operator that is a function of its two operand values, by family.
///
/// The one map every engine shares: the front end's operators name their
/// [`Binary`], and an instruction its own (`Op::binary`), so the reference
/// evaluator, the compiler and each tier of the machine apply the same rule.
/// `?:` and subscripts are not here: their rules need more than two values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binary {
    /// `+ - * / %`
    Arith(Arith),
    /// `& | ^ << >> >>>`
    Bit(Bit),
    /// `< <= > >= == != =?= =!=`
    Cmp(Cmp),
    /// `&&`, once its left operand did not decide
    And,
    /// `||`, once its left operand did not decide
    Or,
}

impl Binary {
    /// The operator applied to two values. Identity (`=?=`) of two lists is
    /// answered here as of two values; a front end whose lists have
    /// representations of their own asks that question itself first.
    pub fn apply(self, a: &Value, b: &Value) -> Value {
        match self {
            Binary::Arith(op) => arith(op, a, b),
            Binary::Bit(op) => bitwise(op, a, b),
            Binary::Cmp(op) => compare(op, a, b),
            Binary::And => and(a, b),
            Binary::Or => or(a, b),
        }
    }

    /// What `&&` and `||` give when their left operand `x` decides alone, so
    /// the right one is never evaluated: `error` (HTCondor 25 decides `error && y`
    /// and `error || y` so), `false && y` and `true || y`. `None` when the right
    /// operand is needed, and for every other operator.
    pub fn decided_by_left(self, x: &Value) -> Option<Value> {
        match self {
            Binary::And | Binary::Or if matches!(x, Value::Error) => Some(Value::Error),
            Binary::And if x.as_bool_equiv() == Some(false) => Some(Value::Bool(false)),
            Binary::Or if x.as_bool_equiv() == Some(true) => Some(Value::Bool(true)),
            _ => None,
        }
    }
}

/// The strictness rule of every operator but `&& || ?: =?= =!=`: error wins over
/// undefined, whichever side it is on. `None` when neither operand decides.
pub fn strict2(a: &Value, b: &Value) -> Option<Value> {
    if a.is_error() || b.is_error() {
        Some(Value::Error)
    } else if a.is_undefined() || b.is_undefined() {
        Some(Value::Undefined)
    } else {
        None
    }
}

/// The numeric class both operands promote to (`coerceToNumber`).
enum Num {
    Int(i64, i64),
    Real(f64, f64),
}

fn promote(a: &Value, b: &Value) -> Option<Num> {
    let ia = match a {
        Value::Int(i) => Some(*i),
        Value::Bool(x) => Some(*x as i64),
        _ => None,
    };
    let ib = match b {
        Value::Int(i) => Some(*i),
        Value::Bool(x) => Some(*x as i64),
        _ => None,
    };
    match (ia, ib) {
        (Some(x), Some(y)) => Some(Num::Int(x, y)),
        _ => Some(Num::Real(a.as_f64_promoted()?, b.as_f64_promoted()?)),
    }
}

/// Unary minus: numbers and relative times negate (integers wrap); everything else
/// but undefined/error is an error.
pub fn neg(a: &Value) -> Value {
    match a {
        Value::Undefined => Value::Undefined,
        Value::Int(i) => Value::Int(i.wrapping_neg()),
        Value::Real(r) => Value::Real(-r),
        Value::RelTime(t) => Value::RelTime(-t),
        _ => Value::Error,
    }
}

/// Unary plus: numbers, relative times, undefined and error pass through; booleans,
/// strings, lists, ads and absolute times are errors.
pub fn plus(a: &Value) -> Value {
    match a {
        Value::Undefined | Value::Error | Value::Int(_) | Value::Real(_) | Value::RelTime(_) => {
            a.clone()
        }
        _ => Value::Error,
    }
}

/// `!a`: boolean-equivalent operands negate; undefined stays undefined.
pub fn not(a: &Value) -> Value {
    match a {
        Value::Undefined => Value::Undefined,
        _ => match a.as_bool_equiv() {
            Some(b) => Value::Bool(!b),
            None => Value::Error,
        },
    }
}

/// `~a`: integers only.
pub fn bit_not(a: &Value) -> Value {
    match a {
        Value::Undefined => Value::Undefined,
        Value::Int(i) => Value::Int(!i),
        _ => Value::Error,
    }
}

/// `a op b` for `+ - * / %`.
pub fn arith(op: Arith, a: &Value, b: &Value) -> Value {
    if let Some(v) = strict2(a, b) {
        return v;
    }
    if is_time(a) || is_time(b) {
        return time_arith(op, a, b);
    }
    match promote(a, b) {
        Some(Num::Int(x, y)) => int_arith(op, x, y),
        Some(Num::Real(x, y)) => real_arith(op, x, y),
        None => Value::Error,
    }
}

fn is_time(v: &Value) -> bool {
    matches!(v, Value::AbsTime(_) | Value::RelTime(_))
}

/// `x op y` on two integers, as [`arith`] computes it (HTCondor's wrapping and
/// division rules).
pub fn int_arith(op: Arith, x: i64, y: i64) -> Value {
    int_arith_checked(op, x, y).map_or(Value::Error, Value::Int)
}

/// [`int_arith`]'s integer, `None` where it is an error (division by zero):
/// for callers that keep numbers apart from values (the bit-mask tier).
#[inline]
pub fn int_arith_checked(op: Arith, x: i64, y: i64) -> Option<i64> {
    match op {
        Arith::Add => Some(x.wrapping_add(y)),
        Arith::Sub => Some(x.wrapping_sub(y)),
        Arith::Mul => Some(x.wrapping_mul(y)),
        // HTCondor special-cases MIN / -1 to INT64_MAX (not the wrapped MIN) to dodge
        // SIGFPE, and MIN % -1 to 0.
        Arith::Div if y == 0 => None,
        Arith::Div if x == i64::MIN && y == -1 => Some(i64::MAX),
        Arith::Div => Some(x / y),
        Arith::Mod if y == 0 => None,
        Arith::Mod => Some(x.wrapping_rem(y)),
    }
}

/// `x op y` on two reals (an integer among the operands of [`arith`] promoted
/// with `as f64`), as [`arith`] computes it.
pub fn real_arith(op: Arith, x: f64, y: f64) -> Value {
    real_arith_checked(op, x, y).map_or(Value::Error, Value::Real)
}

/// [`real_arith`]'s real, `None` where it is an error (`%` on reals, +inf).
#[inline]
pub fn real_arith_checked(op: Arith, x: f64, y: f64) -> Option<f64> {
    let r = match op {
        Arith::Add => x + y,
        Arith::Sub => x - y,
        Arith::Mul => x * y,
        Arith::Div => x / y,
        Arith::Mod => return None,
    };
    // HTCondor compares the result with HUGE_VAL: +inf is an error, -inf and NaN pass.
    (r != f64::INFINITY).then_some(r)
}

fn time_arith(op: Arith, a: &Value, b: &Value) -> Value {
    use Value::{AbsTime as A, Int, Real, RelTime as R};
    match (op, a, b) {
        (Arith::Add, A(t), R(r)) | (Arith::Add, R(r), A(t)) => Value::AbsTime(AbsTime {
            secs: t.secs.wrapping_add(*r as i32 as i64),
            offset: t.offset,
        }),
        (Arith::Add, R(x), R(y)) => R(x + y),
        (Arith::Sub, A(x), A(y)) => R(x.secs.wrapping_sub(y.secs) as f64),
        (Arith::Sub, A(t), R(r)) => Value::AbsTime(AbsTime {
            secs: t.secs.wrapping_sub(*r as i32 as i64),
            offset: t.offset,
        }),
        (Arith::Sub, R(x), R(y)) => R(x - y),
        (Arith::Mul, R(x), Int(n)) | (Arith::Mul, Int(n), R(x)) => R(x * *n as f64),
        (Arith::Mul, R(x), Real(n)) | (Arith::Mul, Real(n), R(x)) => R(x * n),
        (Arith::Div, R(x), Int(n)) => R(x / *n as f64),
        (Arith::Div, R(x), Real(n)) => R(x / n),
        _ => Value::Error,
    }
}

/// `a op b` for the bitwise and shift operators: integers only. Shifts follow
/// HTCondor's `doBitwise` on x86-64: hardware shifts mask the count to six bits;
/// `>>` of a negative number shifts one bit at a time `min(64, count)` times; `>>>`
/// of a negative number shifts once, clears the sign, then shifts `count - 1` more.
pub fn bitwise(op: Bit, a: &Value, b: &Value) -> Value {
    if let Some(v) = strict2(a, b) {
        return v;
    }
    let (Value::Int(x), Value::Int(y)) = (a, b) else {
        return Value::Error;
    };
    let (x, y) = (*x, *y);
    let count = (y & 63) as u32;
    Value::Int(match op {
        Bit::And => x & y,
        Bit::Or => x | y,
        Bit::Xor => x ^ y,
        Bit::Shl => x.wrapping_shl(count),
        Bit::Shr if x >= 0 => x.wrapping_shr(count),
        // Each step is an arithmetic shift by one; 64 steps reach -1.
        Bit::Shr => x.wrapping_shr(y.clamp(0, 63) as u32) | if y >= 64 { -1 } else { 0 },
        Bit::UShr if x >= 0 => x.wrapping_shr(count),
        Bit::UShr => ((x >> 1) & i64::MAX).wrapping_shr((y.wrapping_sub(1) & 63) as u32),
    })
}

/// Case-insensitive ASCII comparison, as `strcasecmp`.
pub fn cmp_ignore_case(a: &str, b: &str) -> Ordering {
    a.bytes()
        .map(|c| c.to_ascii_lowercase())
        .cmp(b.bytes().map(|c| c.to_ascii_lowercase()))
}

/// `a op b` for the comparison operators, including `=?=` and `=!=`.
#[inline(always)]
pub fn compare(op: Cmp, a: &Value, b: &Value) -> Value {
    // The common cases of matchmaking first: integers, and strings tested for
    // equality (strings of different lengths are never equal, ignoring case or not).
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Value::Bool(apply_ordering(op, Some(x.cmp(y)))),
        (Value::Str(x), Value::Str(y)) if matches!(op, Cmp::Eq | Cmp::Ne) => {
            let same = x.len() == y.len() && x.eq_ignore_ascii_case(y);
            Value::Bool(same == (op == Cmp::Eq))
        }
        _ => compare_general(op, a, b),
    }
}

fn compare_general(op: Cmp, a: &Value, b: &Value) -> Value {
    if matches!(op, Cmp::Is | Cmp::Isnt) {
        return match identical(a, b) {
            Some(same) => Value::Bool(same == (op == Cmp::Is)),
            None => Value::Error,
        };
    }
    if let Some(v) = strict2(a, b) {
        return v;
    }
    let ord: Option<Ordering> = match (a, b) {
        (Value::List(_) | Value::Ad(_), _) | (_, Value::List(_) | Value::Ad(_)) => {
            return Value::Error
        }
        (Value::Str(x), Value::Str(y)) => Some(cmp_ignore_case(x, y)),
        (Value::Str(_), _) | (_, Value::Str(_)) => return Value::Error,
        (Value::AbsTime(x), Value::AbsTime(y)) => Some(x.secs.cmp(&y.secs)),
        (Value::RelTime(x), Value::RelTime(y)) => x.partial_cmp(y),
        (Value::AbsTime(_) | Value::RelTime(_), _) | (_, Value::AbsTime(_) | Value::RelTime(_)) => {
            return Value::Error
        }
        _ => match promote(a, b) {
            Some(Num::Int(x, y)) => Some(x.cmp(&y)),
            Some(Num::Real(x, y)) => x.partial_cmp(&y),
            None => return Value::Error,
        },
    };
    Value::Bool(apply_ordering(op, ord))
}

/// `x op y` on two integers, as [`compare`] gives it (`Is` and `Isnt` too).
pub fn compare_ints(op: Cmp, x: i64, y: i64) -> bool {
    apply_ordering(op, Some(x.cmp(&y)))
}

/// `x op y` on two reals, or an integer promoted with `as f64` against a real,
/// as [`compare`] gives it for every comparison but `=?=` and `=!=` (which tell
/// an integer from a real).
pub fn compare_reals(op: Cmp, x: f64, y: f64) -> bool {
    apply_ordering(op, x.partial_cmp(&y))
}

/// Applies a comparison to an ordering; `None` (a NaN operand) makes every
/// comparison false except `!=`, as in C.
fn apply_ordering(op: Cmp, ord: Option<Ordering>) -> bool {
    match ord {
        None => op == Cmp::Ne,
        Some(o) => match op {
            Cmp::Lt => o == Ordering::Less,
            Cmp::Le => o != Ordering::Greater,
            Cmp::Gt => o == Ordering::Greater,
            Cmp::Ge => o != Ordering::Less,
            Cmp::Eq | Cmp::Is => o == Ordering::Equal,
            Cmp::Ne | Cmp::Isnt => o != Ordering::Equal,
        },
    }
}

/// `=?=`: same type and same value, strings case-sensitive, no promotion. `None` when
/// both are lists or ads (HTCondor gives an error there).
pub fn identical(a: &Value, b: &Value) -> Option<bool> {
    Some(match (a, b) {
        (Value::Undefined, Value::Undefined) | (Value::Error, Value::Error) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Real(x), Value::Real(y)) => x == y,
        (Value::Str(x), Value::Str(y)) => x.as_str() == y.as_str(),
        // Unlike `==`, identity also needs the same time zone.
        (Value::AbsTime(x), Value::AbsTime(y)) => x == y,
        (Value::RelTime(x), Value::RelTime(y)) => x == y,
        (Value::List(_), Value::List(_)) | (Value::Ad(_), Value::Ad(_)) => return None,
        _ => false,
    })
}

/// HTCondor's logical operand: boolean equivalents become booleans; undefined and
/// error stay; anything else is `None` (an error).
fn logical_operand(v: &Value) -> Option<Value> {
    match v {
        Value::Undefined | Value::Error => Some(v.clone()),
        _ => v.as_bool_equiv().map(Value::Bool),
    }
}

/// `a && b` once `a` has not short-circuited (`a` is not false).
#[inline]
pub fn and(a: &Value, b: &Value) -> Value {
    if let (Value::Bool(x), Value::Bool(y)) = (a, b) {
        return Value::Bool(*x && *y);
    }
    and_general(a, b)
}

fn and_general(a: &Value, b: &Value) -> Value {
    let (Some(a), Some(b)) = (logical_operand(a), logical_operand(b)) else {
        return Value::Error;
    };
    match (a, b) {
        (Value::Bool(false), _) => Value::Bool(false),
        (Value::Error, _) => Value::Error,
        (Value::Bool(true), b) => b,
        (_, Value::Bool(false)) => Value::Bool(false),
        (_, Value::Bool(true)) => Value::Undefined,
        (_, b) => b,
    }
}

/// `a || b` once `a` has not short-circuited (`a` is not true).
#[inline]
pub fn or(a: &Value, b: &Value) -> Value {
    if let (Value::Bool(x), Value::Bool(y)) = (a, b) {
        return Value::Bool(*x || *y);
    }
    or_general(a, b)
}

fn or_general(a: &Value, b: &Value) -> Value {
    let (Some(a), Some(b)) = (logical_operand(a), logical_operand(b)) else {
        return Value::Error;
    };
    match (a, b) {
        (Value::Bool(true), _) => Value::Bool(true),
        (Value::Error, _) => Value::Error,
        (Value::Bool(false), b) => b,
        (_, Value::Bool(true)) => Value::Bool(true),
        (_, Value::Bool(false)) => Value::Undefined,
        (_, b) => b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_left_operand_decides_and_and_or_alone() {
        let decided = |b: Binary, x: Value| b.decided_by_left(&x).map(|v| show(&v));
        assert_eq!(decided(Binary::And, Value::Error).as_deref(), Some("error"));
        assert_eq!(decided(Binary::Or, Value::Error).as_deref(), Some("error"));
        assert_eq!(
            decided(Binary::And, Value::Bool(false)).as_deref(),
            Some("false")
        );
        assert_eq!(
            decided(Binary::And, Value::Int(0)).as_deref(),
            Some("false")
        );
        assert_eq!(
            decided(Binary::Or, Value::Real(2.0)).as_deref(),
            Some("true")
        );
        assert_eq!(decided(Binary::And, Value::Bool(true)), None);
        assert_eq!(decided(Binary::Or, Value::Bool(false)), None);
        assert_eq!(decided(Binary::And, Value::Undefined), None);
        assert_eq!(decided(Binary::Or, Value::str("true")), None);
        assert_eq!(decided(Binary::Cmp(Cmp::Eq), Value::Error), None);
    }

    fn s(x: &str) -> Value {
        Value::str(x)
    }

    fn show(v: &Value) -> String {
        match v {
            Value::Int(i) => i.to_string(),
            Value::Real(r) => format!("{r:?}"),
            Value::Bool(b) => b.to_string(),
            Value::Undefined => "undefined".into(),
            Value::Error => "error".into(),
            other => format!("{other:?}"),
        }
    }

    // Expected values: semantics.md §4, observed with HTCondor 25.14.1.
    #[test]
    fn integer_arithmetic_wraps_and_guards_division() {
        assert_eq!(
            show(&arith(Arith::Add, &Value::Int(i64::MAX), &Value::Int(1))),
            i64::MIN.to_string()
        );
        assert_eq!(
            show(&arith(Arith::Mul, &Value::Int(i64::MAX), &Value::Int(2))),
            "-2"
        );
        assert_eq!(
            show(&arith(Arith::Div, &Value::Int(-7), &Value::Int(2))),
            "-3"
        );
        assert_eq!(
            show(&arith(Arith::Mod, &Value::Int(-7), &Value::Int(3))),
            "-1"
        );
        assert_eq!(
            show(&arith(Arith::Mod, &Value::Int(7), &Value::Int(-3))),
            "1"
        );
        assert_eq!(
            show(&arith(Arith::Div, &Value::Int(7), &Value::Int(0))),
            "error"
        );
        assert_eq!(
            show(&arith(Arith::Div, &Value::Int(i64::MIN), &Value::Int(-1))),
            i64::MAX.to_string()
        );
        assert_eq!(
            show(&arith(Arith::Mod, &Value::Int(i64::MIN), &Value::Int(-1))),
            "0"
        );
        assert_eq!(show(&neg(&Value::Int(i64::MIN))), i64::MIN.to_string());
    }

    #[test]
    fn real_arithmetic_rejects_only_positive_infinity() {
        assert_eq!(
            show(&arith(Arith::Div, &Value::Real(7.0), &Value::Int(0))),
            "error"
        );
        assert_eq!(
            show(&arith(Arith::Div, &Value::Real(-7.0), &Value::Int(0))),
            "-inf"
        );
        assert!(
            matches!(arith(Arith::Div, &Value::Real(0.0), &Value::Real(0.0)), Value::Real(r) if r.is_nan())
        );
        assert_eq!(
            show(&arith(Arith::Mod, &Value::Real(7.0), &Value::Int(2))),
            "error"
        );
        assert_eq!(
            show(&arith(Arith::Add, &Value::Int(1), &Value::Real(1.5))),
            "2.5"
        );
        assert_eq!(
            show(&arith(Arith::Add, &Value::Bool(true), &Value::Bool(true))),
            "2"
        );
        assert_eq!(show(&arith(Arith::Add, &s("a"), &Value::Int(1))), "error");
    }

    #[test]
    fn strictness_error_beats_undefined() {
        assert_eq!(
            show(&arith(Arith::Add, &Value::Undefined, &Value::Error)),
            "error"
        );
        assert_eq!(
            show(&arith(Arith::Add, &Value::Int(1), &Value::Undefined)),
            "undefined"
        );
        assert_eq!(
            show(&compare(Cmp::Lt, &s("x"), &Value::Undefined)),
            "undefined"
        );
    }

    #[test]
    fn comparisons() {
        assert_eq!(show(&compare(Cmp::Eq, &s("abc"), &s("ABC"))), "true");
        assert_eq!(show(&compare(Cmp::Is, &s("abc"), &s("ABC"))), "false");
        assert_eq!(show(&compare(Cmp::Isnt, &s("abc"), &s("ABC"))), "true");
        assert_eq!(show(&compare(Cmp::Gt, &s("B"), &s("a"))), "true");
        assert_eq!(
            show(&compare(Cmp::Eq, &Value::Int(1), &Value::Real(1.0))),
            "true"
        );
        assert_eq!(
            show(&compare(Cmp::Is, &Value::Int(1), &Value::Real(1.0))),
            "false"
        );
        assert_eq!(
            show(&compare(Cmp::Eq, &Value::Bool(true), &Value::Int(1))),
            "true"
        );
        assert_eq!(
            show(&compare(Cmp::Is, &Value::Bool(true), &Value::Int(1))),
            "false"
        );
        assert_eq!(
            show(&compare(Cmp::Eq, &Value::Bool(true), &Value::Int(2))),
            "false"
        );
        assert_eq!(
            show(&compare(Cmp::Lt, &Value::Bool(true), &Value::Int(2))),
            "true"
        );
        assert_eq!(
            show(&compare(Cmp::Is, &Value::Undefined, &Value::Undefined)),
            "true"
        );
        assert_eq!(
            show(&compare(Cmp::Is, &Value::Error, &Value::Error)),
            "true"
        );
        assert_eq!(show(&compare(Cmp::Eq, &Value::Int(1), &s("1"))), "error");
        assert_eq!(
            show(&compare(Cmp::Is, &Value::Real(0.0), &Value::Real(-0.0))),
            "true"
        );
        let nan = Value::Real(f64::NAN);
        assert_eq!(show(&compare(Cmp::Is, &nan, &nan)), "false");
        assert_eq!(show(&compare(Cmp::Ne, &nan, &nan)), "true");
    }

    #[test]
    fn logic_is_three_valued() {
        let u = Value::Undefined;
        assert_eq!(show(&or(&u, &Value::Bool(true))), "true");
        assert_eq!(show(&and(&u, &Value::Bool(false))), "false");
        assert_eq!(show(&and(&u, &Value::Bool(true))), "undefined");
        assert_eq!(show(&or(&Value::Error, &Value::Bool(true))), "error");
        assert_eq!(show(&and(&Value::Int(1), &Value::Bool(true))), "true");
        assert_eq!(show(&and(&Value::Real(2.5), &Value::Bool(true))), "true");
        assert_eq!(show(&or(&Value::Int(0), &Value::Bool(false))), "false");
        assert_eq!(show(&and(&s("abc"), &Value::Bool(true))), "error");
        assert_eq!(show(&and(&Value::Bool(true), &s("abc"))), "error");
        assert_eq!(show(&not(&Value::Int(1))), "false");
        assert_eq!(show(&not(&s("a"))), "error");
        assert_eq!(show(&not(&u)), "undefined");
    }

    #[test]
    fn unary_and_bitwise() {
        assert_eq!(show(&neg(&Value::Bool(true))), "error");
        assert_eq!(show(&plus(&Value::Bool(true))), "error");
        assert_eq!(show(&neg(&s("a"))), "error");
        assert_eq!(show(&bit_not(&Value::Int(5))), "-6");
        assert_eq!(
            show(&bitwise(Bit::And, &Value::Int(5), &Value::Int(3))),
            "1"
        );
        assert_eq!(show(&bitwise(Bit::Or, &Value::Int(5), &Value::Int(3))), "7");
        assert_eq!(
            show(&bitwise(Bit::Xor, &Value::Int(5), &Value::Int(3))),
            "6"
        );
        assert_eq!(
            show(&bitwise(Bit::Shl, &Value::Int(1), &Value::Int(3))),
            "8"
        );
        assert_eq!(
            show(&bitwise(Bit::Shr, &Value::Int(-16), &Value::Int(2))),
            "-4"
        );
        assert_eq!(
            show(&bitwise(Bit::UShr, &Value::Int(-16), &Value::Int(2))),
            "4611686018427387900"
        );
        assert_eq!(
            show(&bitwise(Bit::Shl, &Value::Int(1), &Value::Int(64))),
            "1"
        );
        assert_eq!(
            show(&bitwise(Bit::And, &Value::Real(1.5), &Value::Int(1))),
            "error"
        );
    }

    #[test]
    fn time_arithmetic() {
        let t = |s| Value::AbsTime(AbsTime { secs: s, offset: 0 });
        assert_eq!(show(&arith(Arith::Add, &t(0), &Value::Int(3600))), "error");
        assert!(matches!(arith(Arith::Sub, &t(100), &t(50)), Value::RelTime(r) if r == 50.0));
        assert_eq!(show(&compare(Cmp::Eq, &t(0), &Value::Int(0))), "error");
        assert_eq!(
            show(&compare(Cmp::Ge, &Value::RelTime(1.0), &Value::Int(0))),
            "error"
        );
    }

    fn grid() -> Vec<Value> {
        let t = |s| Value::AbsTime(AbsTime { secs: s, offset: 0 });
        vec![
            Value::Undefined,
            Value::Error,
            Value::Bool(false),
            Value::Bool(true),
            Value::Int(0),
            Value::Int(-3),
            Value::Int(7),
            Value::Real(0.0),
            Value::Real(7.0),
            Value::Real(f64::NAN),
            s("abc"),
            s("ABC"),
            s("abd"),
            s("ab"),
            s(""),
            t(5),
            Value::RelTime(5.0),
        ]
    }

    #[test]
    fn fast_paths_agree_with_the_general_rules() {
        for a in grid() {
            for b in grid() {
                for op in Cmp::ALL {
                    assert_eq!(
                        show(&compare(op, &a, &b)),
                        show(&compare_general(op, &a, &b)),
                        "{a:?} {op:?} {b:?}"
                    );
                }
                assert_eq!(show(&and(&a, &b)), show(&and_general(&a, &b)));
                assert_eq!(show(&or(&a, &b)), show(&or_general(&a, &b)));
            }
        }
    }

    #[test]
    fn a_comparison_with_a_plain_value_can_swap_its_operands() {
        // The compiler swaps `k op x` into `x op' k` when `k` is a constant that is
        // neither undefined nor error (which decide by position for `==` and kin).
        for k in grid()
            .into_iter()
            .filter(|k| !k.is_undefined() && !k.is_error())
        {
            for x in grid() {
                for op in Cmp::ALL {
                    assert_eq!(
                        show(&compare(op, &k, &x)),
                        show(&compare(op.swapped(), &x, &k)),
                        "{k:?} {op:?} {x:?}"
                    );
                }
            }
        }
        for op in Cmp::ALL {
            assert_eq!(Cmp::from_code(u32::from(op.code())), op);
        }
    }
}
