//! Builtins called with arguments that are already values, as compiled code calls
//! them: the [`Call`] services that need a scope answer as an empty scope would.

use super::{Evaluator, Fail};
use crate::functions::{Call, Evaluating, RefError};
use crate::syntax::ast::{Expr, ExprRef};
use classad_vm::Value;
use std::sync::Arc;

/// Whether `e` evaluates the same in any scope: it holds no attribute reference
/// (so literals, operators and calls on them).
fn scope_free(e: &ExprRef) -> bool {
    let mut free = true;
    let mut stack = vec![e.id];
    while let Some(id) = stack.pop() {
        let node = e.tree.node(id);
        if matches!(node, crate::syntax::ast::Node::Attr { .. }) {
            free = false;
            break;
        }
        node.map_children(|c| {
            stack.push(c);
            c
        });
    }
    free
}

/// A builtin call whose arguments are already values. Only builtins outside
/// `SCOPED_BUILTINS` are called this way, so the scope services are never needed;
/// they answer as an empty scope would.
pub(crate) struct ValuesCall<'a> {
    args: &'a [Value],
    ev: &'a mut Evaluator,
    /// A list element was read whose value depends on the scope it is evaluated
    /// in, which HTCondor takes to be the caller's; this call does not know it, so
    /// the result must come from the reference evaluator.
    pub(crate) needs_scope: bool,
}

impl<'a> ValuesCall<'a> {
    /// A call of `args`; `ev` reads the elements of list arguments.
    pub(crate) fn new(args: &'a [Value], ev: &'a mut Evaluator) -> ValuesCall<'a> {
        ValuesCall {
            args,
            ev,
            needs_scope: false,
        }
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

    fn referenced(&mut self, _: usize) -> Result<crate::functions::Referenced, RefError> {
        Err(RefError::NotAReference)
    }

    fn eval_source(&mut self, _: &str) -> Result<Value, Fail> {
        Ok(Value::Error)
    }

    fn arg_lenient(&mut self, i: usize, _: Option<Arc<crate::values::scope::Scope>>) -> Value {
        self.args[i].clone()
    }

    fn eval_in_ad(
        &mut self,
        _: &ExprRef,
        _: &Value,
        _: Option<Arc<crate::values::scope::Scope>>,
    ) -> Result<Value, Fail> {
        // Only builtins outside `SCOPED_BUILTINS` are called with values.
        Ok(Value::Error)
    }

    fn list_item(&mut self, v: &Value, i: usize) -> Result<Value, Fail> {
        // Borrowed, not cloned: a copy of the list per element read is quadratic.
        let l = crate::values::compound::as_list(v).ok_or(Fail)?;
        if let crate::values::compound::ListVal::Lazy { list, .. } = l {
            if let crate::syntax::ast::Node::List(items) = list.node() {
                if !scope_free(&list.child(items[i])) {
                    self.needs_scope = true;
                }
            }
        }
        self.ev.list_item(l, i)
    }

    fn scope(&self) -> Option<std::sync::Arc<crate::values::scope::Scope>> {
        None
    }

    fn evaluator(&mut self) -> &mut dyn Evaluating {
        self.ev
    }
}
