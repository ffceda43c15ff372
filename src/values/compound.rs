//! The front end's list and ad values, carried opaquely by `classad_vm::Value`.

use super::scope::Scope;
use crate::ad::ClassAd;
use crate::syntax::ast::{ExprRef, Node};
use classad_vm::ops::{self, Cmp};
use classad_vm::value::Host;
use classad_vm::{Str, Value};
use std::sync::Arc;

/// A list value.
#[derive(Clone, Debug)]
pub enum ListVal {
    /// A list literal, not yet evaluated: HTCondor evaluates elements only when they
    /// are used, in the scope the list was written in, and prints the list back as
    /// its expressions (`{1+1, 2}` evaluates to `{ 1 + 1,2 }`).
    Lazy {
        /// The `Node::List`.
        list: ExprRef,
        /// The scope its elements evaluate in (`None`: no ad at all).
        scope: Option<Arc<Scope>>,
        /// A copy `ad["name"]` made (see [`Held::Copy`]): its elements evaluate
        /// with no ad, and a record taken out of it is [`Held::Freed`].
        copied: bool,
    },
    /// A list of values a builtin made (`split()`, `evalInEachContext()`, ...):
    /// HTCondor's shared-pointer list form.
    Values(Vec<Value>),
    /// A list of values a selection over a list made (`{[a = 1]}.a`): HTCondor
    /// builds it as an expression list, the form of a list literal, which matters
    /// to `=?=` (see the evaluator).
    Projected(Vec<Value>),
}

impl ListVal {
    /// The number of elements.
    pub fn len(&self) -> usize {
        match self {
            ListVal::Lazy { list, .. } => match list.node() {
                Node::List(items) => items.len(),
                _ => 0,
            },
            ListVal::Values(v) | ListVal::Projected(v) => v.len(),
        }
    }

    /// True for an empty list.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// An ad value: the scope the ad opens (its frame and its parents).
#[derive(Clone, Debug)]
pub struct AdVal {
    /// The ad's scope.
    pub scope: Arc<Scope>,
    /// How HTCondor holds it.
    pub held: Held,
}

/// How HTCondor holds a record value, which decides what looking into it
/// finds.
///
/// HTCondor's `ad["name"]` evaluates the attribute as a fresh top-level
/// evaluation of the ad (`ClassAd::EvaluateAttr`) and makes a record or list
/// result self-contained (`Value::SafetyCheck`): a deep copy with no enclosing
/// scope, owned by the value. A `.name` selection from such a value
/// (`AttributeReference::FindExpr`) finds the expression in the copy, lets the
/// value holding the copy go, and only then evaluates the expression: it reads
/// freed memory. HTCondor 25 gives undefined there, and so does this evaluator;
/// over a list copy HTCondor crashes, where this evaluator lists what each
/// element gives (a deviation recorded in the conformance data).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Held {
    /// A record of the ads being evaluated, or one a builtin made: lookups in it
    /// see its enclosing scopes.
    #[default]
    InPlace,
    /// A copy `ad["name"]` made: no enclosing scope, and a `.name` selection
    /// from it is undefined.
    Copy,
    /// A record taken by index out of a list copy: HTCondor points into the
    /// copy, which is freed before the record is used: every lookup in it is
    /// undefined.
    Freed,
}

/// Wraps a list.
pub fn list_value(l: ListVal) -> Value {
    Value::List(Host::new(l))
}

/// A list of plain values, as a builtin makes it; error when it is larger than the
/// memory budget allows (see [`crate::limits`]).
pub fn values_list(items: Vec<Value>) -> Value {
    if crate::limits::too_big(crate::values::value_size::items_size(&items)) {
        return Value::Error;
    }
    list_value(ListVal::Values(items))
}

/// A list of plain values, as a selection over a list makes it; error when it is
/// larger than the memory budget allows (see [`crate::limits`]).
pub fn projected_list(items: Vec<Value>) -> Value {
    if crate::limits::too_big(crate::values::value_size::items_size(&items)) {
        return Value::Error;
    }
    list_value(ListVal::Projected(items))
}

/// Wraps an ad scope.
pub fn ad_value(scope: Arc<Scope>) -> Value {
    Value::Ad(Host::new(AdVal {
        scope,
        held: Held::InPlace,
    }))
}

/// What HTCondor's `ad["name"]` gives for the attribute's value `v` (see
/// [`Held`]): a record or list literal becomes a copy with no enclosing scope;
/// other values are themselves.
pub fn subscript_copy(v: Value) -> Value {
    if let Some(ad) = as_ad(&v) {
        return Value::Ad(Host::new(AdVal {
            scope: ad.scope.alone(),
            held: Held::Copy,
        }));
    }
    if let Some(ListVal::Lazy { list, .. }) = as_list(&v) {
        return list_value(ListVal::Lazy {
            list: list.clone(),
            scope: None,
            copied: true,
        });
    }
    v
}

/// What a selection over a list (`{[a = [b = c]; c = 4]}.a`) makes of each value
/// it collects: HTCondor builds the result as a new list and sets its parent scope
/// to none (`AttributeReference::Evaluate`, `tree->SetParentScope(nullptr)`), which
/// reaches each record among its elements and, through nested lists, theirs: they
/// no longer see the records and ads they were written in (`.a[0].b` is
/// undefined there). Records nested in such a record keep it as their parent.
pub fn detached(v: Value) -> Value {
    if let Some(ad) = as_ad(&v) {
        if ad.scope.parent.is_none() && ad.scope.alternate.is_none() {
            return v;
        }
        return Value::Ad(Host::new(AdVal {
            scope: ad.scope.alone(),
            held: ad.held,
        }));
    }
    match as_list(&v) {
        Some(ListVal::Lazy {
            list,
            scope: Some(_),
            copied,
        }) => list_value(ListVal::Lazy {
            list: list.clone(),
            scope: None,
            copied: *copied,
        }),
        Some(ListVal::Values(items)) => list_value(ListVal::Values(
            items.iter().cloned().map(detached).collect(),
        )),
        Some(ListVal::Projected(items)) => list_value(ListVal::Projected(
            items.iter().cloned().map(detached).collect(),
        )),
        _ => v,
    }
}

/// A record taken out of a list copy (see [`Held::Freed`]); other values are
/// themselves.
pub fn out_of_copy(v: Value) -> Value {
    match as_ad(&v) {
        Some(ad) => Value::Ad(Host::new(AdVal {
            scope: ad.scope.clone(),
            held: Held::Freed,
        })),
        None => v,
    }
}

/// A new, parentless ad holding the given values (what `splitTime()` and friends
/// return).
pub fn new_ad(attrs: Vec<(Str, Value)>) -> Value {
    let mut ad = ClassAd::new();
    for (name, v) in attrs {
        ad.insert_expr(name, crate::syntax::ast::Expr::literal(v));
    }
    ad_value(Scope::of_ad(Arc::new(ad)))
}

/// The ad a record value holds, as an ad of its own (its attributes' expressions,
/// unevaluated): what HTCondor's Python bindings hand out for a record value.
/// `None` when `v` is not a record.
pub fn ad_of_value(v: &Value) -> Option<ClassAd> {
    let ad = as_ad(v)?;
    match &ad.scope.frame {
        super::scope::Frame::Ad(a) => Some((**a).clone()),
        super::scope::Frame::Record(r) => match r.node() {
            Node::Record(attrs) => Some(ClassAd::from_attrs(
                attrs
                    .iter()
                    .map(|(n, id)| (n.clone(), r.child(*id)))
                    .collect(),
            )),
            _ => None,
        },
        // The context and match ads of a match: the ad they print as.
        _ => crate::ad::parse_classad(&super::display::unparse_value(v)).ok(),
    }
}

/// The list inside a value, if it is one.
pub fn as_list(v: &Value) -> Option<&ListVal> {
    match v {
        Value::List(h) => h.downcast::<ListVal>(),
        _ => None,
    }
}

/// The ad inside a value, if it is one.
pub fn as_ad(v: &Value) -> Option<&AdVal> {
    match v {
        Value::Ad(h) => h.downcast::<AdVal>(),
        _ => None,
    }
}

/// `x is y` (`op` `Is`) or `x isnt y` (`Isnt`). HTCondor errs comparing two lists,
/// or two records, of one representation, and says "not identical" for a list
/// literal (or a selection's list) against a list a function or `ad["name"]`
/// made, and for a record in place against a copy `ad["name"]` made (see
/// [`Held`]).
pub fn identity(op: Cmp, x: &Value, y: &Value) -> Value {
    let apart = |same_kind: bool| {
        if same_kind {
            Value::Error
        } else {
            Value::Bool(op == Cmp::Isnt)
        }
    };
    if let (Some(a), Some(b)) = (as_list(x), as_list(y)) {
        let literal = |l: &ListVal| {
            matches!(
                l,
                ListVal::Lazy { copied: false, .. } | ListVal::Projected(_)
            )
        };
        return apart(literal(a) == literal(b));
    }
    if let (Some(a), Some(b)) = (as_ad(x), as_ad(y)) {
        let copy = |held: Held| held == Held::Copy;
        return apart(copy(a.held) == copy(b.held));
    }
    ops::compare(op, x, y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::unparse_ad;
    use crate::eval::{eval_alone, Semantics};
    use crate::syntax::parse_expr;

    #[test]
    fn record_values_give_their_ads() {
        let v = eval_alone(
            &parse_expr("[b = a + 1; a = 1]").unwrap(),
            Semantics::Htcondor,
        )
        .unwrap();
        assert_eq!(
            unparse_ad(&ad_of_value(&v).unwrap()),
            "[ a = 1; b = a + 1 ]"
        );
        let v = eval_alone(&parse_expr("splitTime(61)").unwrap(), Semantics::Htcondor).unwrap();
        assert!(ad_of_value(&v).unwrap().contains("Minutes"));
        assert!(ad_of_value(&Value::Int(1)).is_none());
    }
}
