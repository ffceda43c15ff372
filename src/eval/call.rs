//! How the tree-walking evaluator answers a builtin's requests ([`Call`]).

use super::evaluator::{Evaluator, FreshStart};
use super::Fail;
use crate::functions::{Call, Evaluating, RefError, Referenced};
use crate::syntax::ast::{ExprRef, Node};
use crate::values::compound::{as_ad, as_list, ListVal};
use crate::values::scope::{Found, Scope};
use classad_vm::Value;
use std::sync::Arc;

/// A builtin call in progress: the call node and the scope it is evaluated in.
pub(super) struct EvalCall<'a> {
    pub ev: &'a mut Evaluator,
    pub call: ExprRef,
    pub cur: Option<Arc<Scope>>,
}

impl EvalCall<'_> {
    fn args(&self) -> &[u32] {
        match self.call.node() {
            Node::Call { args, .. } => args,
            _ => &[],
        }
    }
}

impl Call for EvalCall<'_> {
    fn argc(&self) -> usize {
        self.args().len()
    }

    fn arg(&mut self, i: usize) -> Result<Value, Fail> {
        let e = self.arg_expr(i);
        self.ev.eval(&e, self.cur.as_ref())
    }

    fn arg_expr(&self, i: usize) -> ExprRef {
        self.call.child(self.args()[i])
    }

    fn referenced(&mut self, i: usize) -> Result<Referenced, RefError> {
        let e = self.arg_expr(i);
        if !matches!(e.node(), Node::Attr { .. }) {
            return Err(RefError::NotAReference);
        }
        match self.ev.deref(&e, self.cur.as_ref()) {
            Ok((None, None)) => Err(RefError::Unresolved),
            Ok((found, state)) => {
                self.ev.leave_state_in(state.clone());
                Ok((found, state))
            }
            Err(Fail) => Err(RefError::Failed),
        }
    }

    fn eval_source(&mut self, src: &str) -> Result<Value, Fail> {
        match crate::syntax::parse_expr(src) {
            Err(_) => Ok(Value::Error),
            Ok(expr) => {
                // A new tree, written where it is evaluated.
                let e = ExprRef::root_of(Arc::new(expr));
                let cur = self.cur.clone();
                match &cur {
                    Some(c) => self.ev.eval_away(&e, c, Some(c.clone())),
                    None => self.ev.eval(&e, None),
                }
            }
        }
    }

    fn arg_lenient(&mut self, i: usize, scope: Option<Arc<Scope>>) -> Value {
        let e = self.arg_expr(i);
        let cur = scope.or_else(|| self.cur.clone());
        match self.ev.eval(&e, cur.as_ref()) {
            Ok(v) => v,
            Err(Fail) => self.ev.take_residue(),
        }
    }

    fn eval_in_ad(
        &mut self,
        e: &ExprRef,
        ad: &Value,
        lexical: Option<Arc<Scope>>,
    ) -> Result<Value, Fail> {
        match as_ad(ad) {
            Some(ad) => {
                // A fresh evaluation of HTCondor's, rooted at the ad's outermost scope.
                let mut scope = ad.scope.clone();
                if scope.alternate.is_none() {
                    // In a match HTCondor lends the ad the old-semantics fallback of
                    // the side its parent belongs to (compat_classad.cpp,
                    // evaluateInContext), so names missing from the whole chain are
                    // looked up in the other ad.
                    let mut up = scope.parent.clone();
                    while let Some(s) = up {
                        if let Some(alt) = &s.alternate {
                            scope = Arc::new(Scope {
                                frame: scope.frame.clone(),
                                parent: scope.parent.clone(),
                                alternate: Some(alt.clone()),
                            });
                            break;
                        }
                        up = s.parent.clone();
                    }
                }
                let root = Some(scope.root());
                let start = FreshStart::new(e, &scope, Some(lexical.as_deref()));
                self.ev
                    .fresh(root, start, |ev| ev.eval_away(e, &scope, lexical))
            }
            None => Ok(Value::Error),
        }
    }

    fn list_item(&mut self, v: &Value, i: usize) -> Result<Value, Fail> {
        // Borrowed, not cloned: a builtin reads every element this way, and a copy
        // of the list per element made `join(",", split(s))` quadratic.
        let l = as_list(v).ok_or(Fail)?;
        // HTCondor's builtins evaluate a list literal's elements where the call
        // is, not where the list was written (`sum(x.L)` reads `L = {a}`'s `a` in
        // the caller's ad).
        if let ListVal::Lazy { list, .. } = l {
            if let Node::List(items) = list.node() {
                let e = list.child(items[i]);
                return self.ev.eval(&e, self.cur.as_ref());
            }
        }
        self.ev.list_item(l, i)
    }

    fn scope(&self) -> Option<Arc<Scope>> {
        self.cur.clone()
    }

    fn evaluator(&mut self) -> &mut dyn Evaluating {
        self.ev
    }
}

impl Evaluating for Evaluator {
    fn eval(&mut self, e: &ExprRef, cur: Option<&Arc<Scope>>) -> Result<Value, Fail> {
        Evaluator::eval(self, e, cur)
    }

    fn deref(&mut self, e: &ExprRef, cur: Option<&Arc<Scope>>) -> Result<Referenced, Fail> {
        Evaluator::deref(self, e, cur)
    }

    fn lookup_stopping(
        &mut self,
        start: &Arc<Scope>,
        name: &str,
    ) -> Result<(Option<Found>, Arc<Scope>), Fail> {
        Evaluator::lookup_stopping(self, start, name)
    }

    fn leave_state_in(&mut self, scope: Option<Arc<Scope>>) {
        Evaluator::leave_state_in(self, scope)
    }

    fn without_leak(&mut self, f: &mut dyn FnMut(&mut dyn Evaluating)) {
        Evaluator::without_leak(self, |ev| f(ev))
    }

    fn fresh(&self) -> Box<dyn Evaluating> {
        Box::new(Evaluator::new(true))
    }
}
