//! What compiled code asks of the front end: builtins on values, and subscripts.

use crate::eval::{Evaluator, Fail};
use crate::functions::{by_index, Call, RefError};
use crate::syntax::ast::{Expr, ExprRef};
use classad_vm::{Halt, Value};
use std::sync::Arc;

/// The front end's side of [`classad_vm::Host`].
#[derive(Default)]
pub struct VmHost;

impl classad_vm::Host for VmHost {
    fn call(&mut self, native: u32, args: &[Value]) -> Result<Value, Halt> {
        let Some(b) = by_index(native) else {
            return Ok(Value::Error);
        };
        // A fresh evaluator each time: its budget and depth are per evaluation, and
        // it only ever evaluates literal list elements here.
        let mut ev = Evaluator::new(true);
        let mut call = ValuesCall::new(args, &mut ev);
        // A builtin that fails here may be one HTCondor never calls, or calls with
        // fewer arguments evaluated (builtins stop at an undefined or error
        // argument, but the machine evaluates them all first): let the reference
        // evaluator decide.
        (b.run)(&mut call).map_err(|Fail| Halt::NeedReference)
    }

    fn index(&mut self, a: &Value, b: &Value) -> Result<Value, Halt> {
        Evaluator::new(true)
            .subscript(a, b)
            .map_err(|Fail| Halt::NeedReference)
    }
}

/// The element values of list value `v`; `None` when it is not a list or an
/// element fails to evaluate.
pub(crate) fn list_values(v: &Value) -> Option<Vec<Value>> {
    let l = crate::eval::compound::as_list(v)?.clone();
    Evaluator::new(true).list_items(&l).ok()
}

/// A builtin call whose arguments are already values. Only builtins outside
/// `SCOPED_BUILTINS` are called this way, so the scope services are never needed;
/// they answer as an empty scope would.
pub(crate) struct ValuesCall<'a> {
    args: &'a [Value],
    ev: &'a mut Evaluator,
}

impl<'a> ValuesCall<'a> {
    /// A call of `args`; `ev` reads the elements of list arguments.
    pub(crate) fn new(args: &'a [Value], ev: &'a mut Evaluator) -> ValuesCall<'a> {
        ValuesCall { args, ev }
    }
}

impl Call for ValuesCall<'_> {
    fn argc(&self) -> usize {
        self.args.len()
    }

    fn arg(&mut self, i: usize) -> Result<Value, Fail> {
        Ok(self.args[i].clone())
    }

    fn arg_expr(&self, i: usize) -> ExprRef {
        ExprRef::root_of(Arc::new(Expr::literal(self.args[i].clone())))
    }

    fn referenced_expr(&mut self, _: usize) -> Result<Option<ExprRef>, RefError> {
        Err(RefError::NotAReference)
    }

    fn eval_source(&mut self, _: &str) -> Result<Value, Fail> {
        Ok(Value::Error)
    }

    fn eval_arg_in(&mut self, i: usize, _: &Value) -> Result<Value, Fail> {
        Ok(self.args[i].clone())
    }

    fn list_items(&mut self, v: &Value) -> Result<Option<Vec<Value>>, Fail> {
        match crate::eval::compound::as_list(v) {
            None => Ok(None),
            Some(l) => {
                let l = l.clone();
                self.ev.list_items(&l).map(Some)
            }
        }
    }

    fn scope(&self) -> Option<std::sync::Arc<crate::eval::scope::Scope>> {
        None
    }

    fn evaluator(&mut self) -> Option<&mut Evaluator> {
        None
    }
}
