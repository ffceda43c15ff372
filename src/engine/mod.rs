//! The choice of engine for one evaluation: the bytecode machine, or the reference
//! evaluator.
//!
//! This sits above both [`crate::eval`] (the reference evaluator) and
//! [`crate::compile`] (the machine's front end), so that neither depends on the
//! other to pick: the reference evaluator knows nothing of the machine, and the
//! machine hands back to it whatever it does not compile natively.

mod repeated;

pub use repeated::Repeated;

use crate::ad::ClassAd;
use crate::eval::{eval_alone, eval_in, Fail, Semantics};
use crate::syntax::ast::{Expr, ExprRef};
use classad_vm::{Halt, Value};
use std::sync::Arc;

/// A run of the machine, settled: its value; [`Fail`] when the run failed (an
/// evaluation HTCondor fails, which the reference evaluator would fail too:
/// a test that failed holds nowhere, a rank that failed is 0); or, when the
/// machine handed the evaluation back (`Halt::NeedReference`: a shape it does
/// not compile natively, or a limit it cannot prove), what `reference` makes of
/// it. Every engine ladder of the crate (the machine per pair, its blocks of
/// lanes and masks, then the reference) ends here, so a halted run means the
/// same everywhere.
pub fn settle<T>(
    run: Result<T, Halt>,
    reference: impl FnOnce() -> Result<T, Fail>,
) -> Result<T, Fail> {
    match run {
        Ok(v) => Ok(v),
        Err(Halt::Fail) => Err(Fail),
        Err(Halt::NeedReference) => reference(),
    }
}

/// [`settle`] for a test (a match, a constraint, a condition): true only when
/// it holds; a failed run holds nowhere.
pub fn settle_test(run: Result<bool, Halt>, reference: impl FnOnce() -> bool) -> bool {
    settle(run, || Ok(reference())).unwrap_or(false)
}

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

/// An expression evaluated once with ads it is not evaluated with again (a
/// constraint on each ad, a made-up ad's `SLOT_WEIGHT`, a group's sort key):
/// on the reference evaluator, since compiling the ads for the machine costs
/// several evaluations. Evaluations that come back to the same ads go through
/// [`Repeated`], which moves them to the machine.
pub fn eval_once(
    expr: &ExprRef,
    my: &Arc<ClassAd>,
    target: Option<&Arc<ClassAd>>,
) -> Result<Value, Fail> {
    eval_in(expr, my, target, Semantics::Htcondor)
}

/// Attribute `name` of `ad` evaluated once (see [`eval_once`]), as HTCondor's
/// `EvaluateAttr` does; undefined when the ad lacks it.
pub fn eval_attr_once(
    ad: &Arc<ClassAd>,
    name: &str,
    target: Option<&Arc<ClassAd>>,
) -> Result<Value, Fail> {
    crate::eval::eval_attr(ad, name, target, Semantics::Htcondor)
}

/// [`eval_alone`] on the chosen engine.
pub fn eval_alone_with(engine: Engine, expr: &Expr, sem: Semantics) -> Result<Value, Fail> {
    if engine == Engine::Vm && sem == Semantics::Htcondor {
        let e = ExprRef::root_of(Arc::new(expr.clone()));
        return settle(crate::compile::try_eval(&e, None, None), || {
            eval_alone(expr, sem)
        });
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
        return settle(crate::compile::try_eval(expr, Some(my), target), || {
            eval_in(expr, my, target, sem)
        });
    }
    eval_in(expr, my, target, sem)
}
