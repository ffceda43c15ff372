//! The reference evaluator: a plain tree walk, written for clarity, that is the
//! executable specification every faster engine is held against.

mod call;
pub mod evaluator;
pub mod flatten;
pub mod independent;
#[cfg(test)]
pub(crate) mod testing;
pub mod values_call;

use crate::ad::ClassAd;
use crate::syntax::ast::{Expr, ExprRef};
use crate::values::scope::{MatchPair, Scope, Side};
use classad_vm::Value;
use std::sync::Arc;

pub use evaluator::Evaluator;

pub use crate::values::Fail;

/// Which of HTCondor's two semantics to evaluate with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Semantics {
    /// What HTCondor's daemons and tools use (`STRICT_CLASSAD_EVALUATION=false`):
    /// unscoped names missing from an ad fall back to the other ad of a match, and
    /// `MY` and `CurrentTime` are special names.
    #[default]
    Htcondor,
    /// The plain library's strict semantics.
    Strict,
}

impl Semantics {
    fn old(self) -> bool {
        self == Semantics::Htcondor
    }
}

/// Evaluates an expression on its own, with no ad around it.
pub fn eval_alone(expr: &Expr, sem: Semantics) -> Result<Value, Fail> {
    let e = ExprRef::root_of(Arc::new(expr.clone()));
    Evaluator::new(sem.old()).eval(&e, None)
}

/// Evaluates `expr` as if it were an attribute of `my`; with a `target`, in a match
/// of the two (`my` on the left), so `TARGET.x` reads the target.
pub fn eval_in(
    expr: &ExprRef,
    my: &Arc<ClassAd>,
    target: Option<&Arc<ClassAd>>,
    sem: Semantics,
) -> Result<Value, Fail> {
    let scope = match target {
        None => Scope::of_ad(my.clone()),
        Some(t) => {
            let pair = Arc::new(MatchPair {
                left: my.clone(),
                right: t.clone(),
            });
            Scope::of_side(&pair, Side::Left, sem.old())
        }
    };
    Evaluator::new(sem.old()).eval(expr, Some(&scope))
}

/// Evaluates attribute `name` of `my` (undefined when it is missing), optionally
/// against a target.
pub fn eval_attr(
    my: &Arc<ClassAd>,
    name: &str,
    target: Option<&Arc<ClassAd>>,
    sem: Semantics,
) -> Result<Value, Fail> {
    match my.get(name) {
        None => Ok(Value::Undefined),
        Some(e) => eval_in(&e.to_expr_ref(), my, target, sem),
    }
}
