//! The choice of engine for one evaluation: the bytecode machine, or the reference
//! evaluator.
//!
//! This sits above both [`crate::eval`] (the reference evaluator) and
//! [`crate::compile`] (the machine's front end), so that neither depends on the
//! other to pick: the reference evaluator knows nothing of the machine, and the
//! machine hands back to it whatever it does not compile natively.

use crate::ad::ClassAd;
use crate::eval::{eval_alone, eval_in, Fail, Semantics};
use crate::syntax::ast::{Expr, ExprRef};
use classad_vm::Value;
use std::sync::Arc;

/// Which engine evaluates: the bytecode machine, or the reference tree walk. Both
/// give the same results; the machine hands anything it does not compile natively
/// back to the reference evaluator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// The bytecode machine (`classad-vm`).
    #[default]
    Vm,
    /// The tree-walking reference evaluator.
    Reference,
}

/// [`eval_alone`] on the chosen engine.
pub fn eval_alone_with(engine: Engine, expr: &Expr, sem: Semantics) -> Result<Value, Fail> {
    if engine == Engine::Vm && sem == Semantics::Htcondor {
        let e = ExprRef::root_of(Arc::new(expr.clone()));
        if let Some(r) = crate::compile::try_eval(&e, None, None) {
            return r;
        }
    }
    eval_alone(expr, sem)
}

/// [`eval_in`] on the chosen engine.
pub fn eval_in_with(
    engine: Engine,
    expr: &ExprRef,
    my: &Arc<ClassAd>,
    target: Option<&Arc<ClassAd>>,
    sem: Semantics,
) -> Result<Value, Fail> {
    if engine == Engine::Vm && sem == Semantics::Htcondor {
        if let Some(r) = crate::compile::try_eval(expr, Some(my), target) {
            return r;
        }
    }
    eval_in(expr, my, target, sem)
}
