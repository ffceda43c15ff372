//! Builtins that look at expressions rather than values: `eval`, `unparse`, `debug`.

use super::convert::text_of;
use super::{add, arity, Builtin, Call, RefError};
use crate::eval::Fail;
use crate::syntax::ast::ExprRef;
use classad_vm::Value;

pub(super) fn register(t: &mut Vec<Builtin>) {
    add(t, "eval", eval);
    add(t, "unparse", unparse);
    add(t, "debug", debug);
}

/// `eval(s)`: parses the argument's text and evaluates it in the caller's scope; a
/// parse failure, undefined or error gives error.
fn eval(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 1, 1) {
        return Ok(Value::Error);
    }
    match text_of(&c.arg(0)?) {
        Ok(src) => c.eval_source(&src),
        Err(_) => Ok(Value::Error),
    }
}

/// `unparse(attr)`: the text of the expression an attribute reference names, `""`
/// when it does not exist; error for anything but a reference.
fn unparse(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 1, 1) {
        return Ok(Value::Error);
    }
    Ok(match c.referenced_expr(0) {
        Err(RefError::NotAReference) => Value::Error,
        Err(RefError::Failed) => return Err(Fail),
        Ok(None) => Value::str(""),
        Ok(Some(e)) => Value::str(expr_text(&e)),
    })
}

/// The new-syntax text of an expression.
fn expr_text(e: &ExprRef) -> String {
    let mut out = String::new();
    crate::syntax::unparse::unparse_node(&e.tree, e.id, &mut out);
    out
}

/// `debug(x)`: the value of `x` (HTCondor also logs it; we do not).
fn debug(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 1, 1) {
        return Ok(Value::Error);
    }
    c.arg(0)
}

#[cfg(test)]
mod tests {
    use super::super::testing::eval;
    use classad_vm::Value;

    // Expected results from HTCondor 25.14.1.
    #[test]
    fn simple_cases() {
        assert_eq!(eval("debug", vec![Value::Int(3)]), "3");
        assert_eq!(eval("unparse", vec![Value::Real(1.0 / 3.0)]), "error");
        assert_eq!(eval("eval", vec![Value::Undefined]), "error");
    }
}
