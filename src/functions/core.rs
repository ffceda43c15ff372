//! Control and type-test builtins: `ifThenElse`, `isUndefined` and the other type tests.

use super::{add, Builtin, Call};
use crate::values::Fail;
use classad_vm::Value;

pub(super) fn register(t: &mut Vec<Builtin>) {
    add(t, "ifThenElse", if_then_else);
    add(t, "isUndefined", |c| {
        type_test(c, |v| matches!(v, Value::Undefined))
    });
    add(t, "isError", |c| {
        type_test(c, |v| matches!(v, Value::Error))
    });
    add(t, "isString", |c| {
        type_test(c, |v| matches!(v, Value::Str(_)))
    });
    add(t, "isInteger", |c| {
        type_test(c, |v| matches!(v, Value::Int(_)))
    });
    add(t, "isReal", |c| {
        type_test(c, |v| matches!(v, Value::Real(_)))
    });
    add(t, "isBoolean", |c| {
        type_test(c, |v| matches!(v, Value::Bool(_)))
    });
    add(t, "isList", |c| {
        type_test(c, |v| matches!(v, Value::List(_)))
    });
    add(t, "isClassAd", |c| {
        type_test(c, |v| matches!(v, Value::Ad(_)))
    });
    add(t, "isAbsTime", |c| {
        type_test(c, |v| matches!(v, Value::AbsTime(_)))
    });
    add(t, "isRelTime", |c| {
        type_test(c, |v| matches!(v, Value::RelTime(_)))
    });
}

/// `ifThenElse(c, a, b)`: lazy in `a` and `b`; the condition follows the ternary's
/// rules (numbers count as booleans, undefined gives undefined, others error).
fn if_then_else(c: &mut dyn Call) -> Result<Value, Fail> {
    if c.argc() != 3 {
        return Ok(Value::Error);
    }
    let cond = c.arg(0)?;
    match cond {
        Value::Undefined => Ok(Value::Undefined),
        _ => match cond.as_bool_equiv() {
            Some(true) => c.arg(1),
            Some(false) => c.arg(2),
            None => Ok(Value::Error),
        },
    }
}

/// The `isX(v)` family: exactly one argument, never undefined.
fn type_test(c: &mut dyn Call, test: fn(&Value) -> bool) -> Result<Value, Fail> {
    if c.argc() != 1 {
        return Ok(Value::Error);
    }
    let v = c.arg(0)?;
    Ok(Value::Bool(test(&v)))
}
