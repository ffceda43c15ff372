//! A test double for [`Call`]: builtins run over already evaluated argument values.

use super::{Call, RefError};
use crate::eval::compound::as_list;
use crate::eval::{Evaluator, Fail};
use crate::syntax::ast::{Expr, ExprRef};
use classad_vm::Value;
use std::sync::Arc;

/// Arguments given as values; lists are read through the reference evaluator.
pub(crate) struct Mock {
    pub args: Vec<Value>,
}

impl Call for Mock {
    fn argc(&self) -> usize {
        self.args.len()
    }

    fn arg(&mut self, i: usize) -> Result<Value, Fail> {
        Ok(self.args[i].clone())
    }

    fn arg_expr(&self, i: usize) -> ExprRef {
        ExprRef::root_of(Arc::new(Expr::literal(self.args[i].clone())))
    }

    fn referenced_expr(&mut self, _i: usize) -> Result<Option<ExprRef>, RefError> {
        Err(RefError::NotAReference)
    }

    fn eval_source(&mut self, _src: &str) -> Result<Value, Fail> {
        Ok(Value::Error)
    }

    fn eval_arg_in(&mut self, i: usize, _ad: &Value) -> Result<Value, Fail> {
        Ok(self.args[i].clone())
    }

    fn list_items(&mut self, v: &Value) -> Result<Option<Vec<Value>>, Fail> {
        match as_list(v) {
            None => Ok(None),
            Some(l) => Evaluator::new(true).list_items(l).map(Some),
        }
    }

    fn scope(&self) -> Option<std::sync::Arc<crate::eval::scope::Scope>> {
        None
    }

    fn evaluator(&mut self) -> Option<&mut Evaluator> {
        None
    }
}

/// Runs the builtin called `name` over `args`.
pub(crate) fn run(name: &str, args: Vec<Value>) -> Value {
    let f = super::find(name).unwrap_or_else(|| panic!("no builtin {name}"));
    (f.run)(&mut Mock { args }).expect("evaluation failed")
}

/// A string value.
pub(crate) fn s(text: &str) -> Value {
    Value::str(text)
}

/// A list of values.
pub(crate) fn list(items: Vec<Value>) -> Value {
    crate::eval::compound::values_list(items)
}

/// The result as HTCondor's text, for comparing with what the oracle printed.
pub(crate) fn show(v: &Value) -> String {
    crate::eval::display::unparse_value(v)
}

/// Runs `name(args)` and returns the unparsed result.
pub(crate) fn eval(name: &str, args: Vec<Value>) -> String {
    show(&run(name, args))
}
