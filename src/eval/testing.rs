//! Helpers for the builtins' unit tests: builtins run over argument values, as
//! compiled code runs them.

use super::values_call::ValuesCall;
use super::{Evaluator, Fail};
use classad_vm::Value;

/// Runs the builtin called `name` over `args`.
pub(crate) fn run(name: &str, args: Vec<Value>) -> Value {
    try_run(name, args).expect("evaluation failed")
}

/// Runs the builtin called `name` over `args`, as compiled code calls it.
pub(crate) fn try_run(name: &str, args: Vec<Value>) -> Result<Value, Fail> {
    let f = crate::functions::find(name).unwrap_or_else(|| panic!("no builtin {name}"));
    let mut ev = Evaluator::new(true);
    crate::functions::run_builtin(f, &mut ValuesCall::new(&args, &mut ev))
}

/// A string value.
pub(crate) fn s(text: &str) -> Value {
    Value::str(text)
}

/// A list of values.
pub(crate) fn list(items: Vec<Value>) -> Value {
    crate::values::compound::values_list(items)
}

/// The result as HTCondor's text, for comparing with what the oracle printed.
pub(crate) fn show(v: &Value) -> String {
    crate::values::display::unparse_value(v)
}

/// Runs `name(args)` and returns the unparsed result.
pub(crate) fn eval(name: &str, args: Vec<Value>) -> String {
    show(&run(name, args))
}
