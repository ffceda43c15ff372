//! How the tree-walking evaluator answers a builtin's requests ([`Call`]).

use super::compound::{as_ad, as_list};
use super::evaluator::Evaluator;
use super::scope::Scope;
use super::Fail;
use crate::functions::{Call, RefError};
use crate::syntax::ast::{ExprRef, Node};
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

    fn referenced_expr(&mut self, i: usize) -> Result<Option<ExprRef>, RefError> {
        let e = self.arg_expr(i);
        if !matches!(e.node(), Node::Attr { .. }) {
            return Err(RefError::NotAReference);
        }
        match self.ev.find_referenced(&e, self.cur.as_ref()) {
            Ok(found) => Ok(found.map(|(e, _)| e)),
            Err(Fail) => Err(RefError::Failed),
        }
    }

    fn eval_source(&mut self, src: &str) -> Result<Value, Fail> {
        match crate::syntax::parse_expr(src) {
            Err(_) => Ok(Value::Error),
            Ok(expr) => {
                let e = ExprRef::root_of(Arc::new(expr));
                self.ev.eval(&e, self.cur.as_ref())
            }
        }
    }

    fn eval_arg_in(&mut self, i: usize, ad: &Value) -> Result<Value, Fail> {
        let e = self.arg_expr(i);
        match as_ad(ad) {
            Some(ad) => {
                // A fresh evaluation of HTCondor's, rooted at the ad's outermost scope.
                let scope = ad.scope.clone();
                let root = Some(scope.root());
                self.ev.with_root(root, |ev| ev.eval(&e, Some(&scope)))
            }
            None => Ok(Value::Error),
        }
    }

    fn list_items(&mut self, v: &Value) -> Result<Option<Vec<Value>>, Fail> {
        match as_list(v) {
            None => Ok(None),
            Some(l) => {
                let l = l.clone();
                self.ev.list_items(&l).map(Some)
            }
        }
    }

    fn scope(&self) -> Option<Arc<Scope>> {
        self.cur.clone()
    }

    fn evaluator(&mut self) -> Option<&mut Evaluator> {
        Some(self.ev)
    }
}
