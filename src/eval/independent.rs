//! One expression evaluated in many ads (`classad query`'s constraint): the parts
//! of it that read nothing of the ad are evaluated once, not once per ad.
//!
//! HTCondor evaluates the whole constraint afresh in every ad, so an expensive part
//! that does not depend on the ad (an exponential `evalInEachContext`, say) costs
//! its full price every time. Which parts are independent is decided by watching
//! the evaluation, not by reading the expression: every read of an ad document
//! (an attribute lookup that reaches it, the ad itself as a value through `self`,
//! `MY`, `parent`, `toplevel`/`root`) and every builtin that reads the clock or
//! chance is counted (`note_ad_read`). A subexpression whose evaluation in the
//! constraint's own ad counted nothing followed the same path it would follow in
//! any other ad, so it is replayed rather than evaluated again, exactly:
//!
//! - only where the evaluator's state is the same as when it was recorded (the
//!   constraint's own ad as current scope with nothing being evaluated above it,
//!   the same depth left, no state left behind by `unresolved` or
//!   `evalInEachContext`), and with enough steps left that the recorded evaluation
//!   ran the same course: HTCondor's step count is still charged;
//! - only for values that hold no scope (not lists or records, which remember the
//!   ad they were made in), and for failures, which leave their residue again.

use super::evaluator::Evaluator;
use super::{Fail, Semantics};
use crate::ad::ClassAd;
use crate::syntax::ast::{ExprRef, NodeId};
use crate::values::scope::Scope;
use classad_vm::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// What one evaluation of a subexpression did, recorded to be replayed.
#[derive(Clone, Debug)]
pub(crate) struct Recorded {
    /// Its value, or its failure.
    pub result: Result<Value, Fail>,
    /// The depth left when it started, and how deeply the evaluation nested.
    pub depth: (u32, u32),
    /// The step budgets left when it started: HTCondor's, and our total.
    pub budgets: [u64; 2],
    /// The steps it took from each.
    pub used: [u64; 2],
    /// The residue a failure left.
    pub residue: Value,
}

impl Recorded {
    /// Whether replaying it where `depth` and `budgets` are what is left gives what
    /// evaluating would: the same depth, and for each budget either the same or,
    /// when the recorded run did not exhaust it, at least as much as it took (more
    /// budget changes nothing for a run that never ran short).
    pub fn replays_at(&self, depth: (u32, u32), budgets: [u64; 2]) -> bool {
        self.depth == depth
            && (0..2).all(|i| {
                self.budgets[i] == budgets[i]
                    || (self.used[i] < self.budgets[i] && budgets[i] >= self.used[i])
            })
    }

    /// Whether a result may be kept: no value that holds a scope.
    pub fn keepable(result: &Result<Value, Fail>) -> bool {
        !matches!(result, Ok(Value::List(_) | Value::Ad(_)))
    }
}

/// The independent parts of one expression, recorded while evaluating it in ad
/// after ad.
///
/// ```
/// use classad::ad::read_ads;
/// use classad::eval::independent::IndependentParts;
/// use classad::eval::Semantics;
/// use classad::syntax::{ast::ExprRef, parse_expr};
/// use std::sync::Arc;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let ads = read_ads("Cpus = 1\n\nCpus = 8\n", "ads")?;
/// let e = ExprRef::root_of(Arc::new(parse_expr("Cpus > size(split(\"a b c\"))")?));
/// let mut parts = IndependentParts::new(&e);
/// let selected: Vec<bool> = ads
///     .into_iter()
///     .map(|ad| parts.eval_in(&Arc::new(ad), Semantics::Htcondor))
///     .map(|v| v.is_ok_and(|v| v.as_bool_equiv() == Some(true)))
///     .collect();
/// assert_eq!(selected, [false, true]);
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct IndependentParts {
    expr: ExprRef,
    recorded: HashMap<NodeId, Recorded>,
}

impl IndependentParts {
    /// Nothing recorded yet for `expr`.
    pub fn new(expr: &ExprRef) -> IndependentParts {
        IndependentParts {
            expr: expr.clone(),
            recorded: HashMap::new(),
        }
    }

    /// Evaluates the expression as an attribute of `ad` (as [`super::eval_in`]
    /// does with no target), replaying what earlier ads recorded.
    pub fn eval_in(&mut self, ad: &Arc<ClassAd>, sem: Semantics) -> Result<Value, Fail> {
        let scope = Scope::of_ad(ad.clone());
        let mut ev = Evaluator::new(sem == Semantics::Htcondor);
        ev.parts = Some(std::mem::take(&mut self.recorded));
        ev.parts_tree = Arc::as_ptr(&self.expr.tree) as usize;
        let r = ev.eval(&self.expr, Some(&scope));
        self.recorded = ev.parts.take().unwrap_or_default();
        r
    }

    /// How many subexpressions are recorded.
    pub fn recorded(&self) -> usize {
        self.recorded.len()
    }
}
