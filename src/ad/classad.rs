//! `ClassAd`: a set of named, unevaluated expressions, ordered as HTCondor orders them.

use crate::syntax::ast::{Expr, ExprRef};
use classad_vm::Str;
use std::cmp::Ordering;
use std::sync::Arc;

/// A ClassAd: attribute names mapped to expressions.
///
/// Attributes are kept sorted the way HTCondor's `ClassAdFlatMap` keeps them: by name
/// length, then case-insensitively. That is also the order HTCondor prints them in.
/// Lookups ignore case; re-inserting a name replaces the expression but keeps the first
/// spelling, as HTCondor does.
#[derive(Clone, Debug, Default)]
pub struct ClassAd {
    attrs: Vec<(Str, ExprRef)>,
}

/// HTCondor's attribute order: shorter names first, then ASCII case-insensitive.
pub fn attr_order(a: &str, b: &str) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| {
        a.bytes()
            .map(|c| c.to_ascii_lowercase())
            .cmp(b.bytes().map(|c| c.to_ascii_lowercase()))
    })
}

impl ClassAd {
    /// An empty ad.
    pub fn new() -> ClassAd {
        ClassAd::default()
    }

    fn position(&self, name: &str) -> Result<usize, usize> {
        self.attrs.binary_search_by(|(n, _)| attr_order(n, name))
    }

    /// Builds an ad from attributes in any order: sorted once, and for a repeated name
    /// the last expression wins under the first spelling, as repeated inserts would.
    pub fn from_attrs(mut attrs: Vec<(Str, ExprRef)>) -> ClassAd {
        // A stable sort keeps repeats in input order, so the first spelling leads.
        attrs.sort_by(|a, b| attr_order(&a.0, &b.0));
        let mut out: Vec<(Str, ExprRef)> = Vec::with_capacity(attrs.len());
        for (name, e) in attrs {
            match out.last_mut() {
                Some(last) if attr_order(&last.0, &name) == Ordering::Equal => last.1 = e,
                _ => out.push((name, e)),
            }
        }
        ClassAd { attrs: out }
    }

    /// Builds an ad from attributes already in HTCondor's order, without repeats.
    pub fn from_sorted_unique(attrs: Vec<(Str, ExprRef)>) -> ClassAd {
        debug_assert!(attrs
            .windows(2)
            .all(|w| attr_order(&w[0].0, &w[1].0) == Ordering::Less));
        ClassAd { attrs }
    }

    /// Sets `name` to `expr`, replacing (but keeping the spelling of) an existing one.
    pub fn insert(&mut self, name: impl Into<Str>, expr: ExprRef) {
        let name = name.into();
        match self.position(&name) {
            Ok(i) => self.attrs[i].1 = expr,
            Err(i) => self.attrs.insert(i, (name, expr)),
        }
    }

    /// Sets `name` to the whole of a parsed expression.
    pub fn insert_expr(&mut self, name: impl Into<Str>, expr: Expr) {
        self.insert(name, ExprRef::root_of(Arc::new(expr)));
    }

    /// The expression of `name`, ignoring case.
    pub fn get(&self, name: &str) -> Option<&ExprRef> {
        self.position(name).ok().map(|i| &self.attrs[i].1)
    }

    /// The spelling of `name` as stored, ignoring case.
    pub fn spelling(&self, name: &str) -> Option<&Str> {
        self.position(name).ok().map(|i| &self.attrs[i].0)
    }

    /// Removes `name`; true when it was there.
    pub fn remove(&mut self, name: &str) -> bool {
        match self.position(name) {
            Ok(i) => {
                self.attrs.remove(i);
                true
            }
            Err(_) => false,
        }
    }

    /// The attributes in HTCondor's order.
    pub fn iter(&self) -> impl Iterator<Item = (&Str, &ExprRef)> {
        self.attrs.iter().map(|(n, e)| (n, e))
    }

    /// The number of attributes.
    pub fn len(&self) -> usize {
        self.attrs.len()
    }

    /// True when the ad has no attributes.
    pub fn is_empty(&self) -> bool {
        self.attrs.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use classad_vm::Value;

    fn lit(i: i64) -> Expr {
        Expr::literal(Value::Int(i))
    }

    #[test]
    fn orders_by_length_then_case_insensitively() {
        let mut ad = ClassAd::new();
        for n in ["big", "r2", "b", "R1", "ex", "a"] {
            ad.insert_expr(n, lit(1));
        }
        let names: Vec<&str> = ad.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["a", "b", "ex", "R1", "r2", "big"]);
    }

    #[test]
    fn from_attrs_sorts_and_keeps_first_spelling_last_value() {
        let e = |i| ExprRef::root_of(Arc::new(lit(i)));
        let ad = ClassAd::from_attrs(vec![
            ("zz".into(), e(1)),
            ("A".into(), e(2)),
            ("a".into(), e(3)),
            ("b".into(), e(4)),
        ]);
        let got: Vec<(&str, bool)> = ad
            .iter()
            .map(|(n, e)| {
                (
                    n.as_str(),
                    matches!(e.node(), crate::syntax::ast::Node::Lit(Value::Int(3))),
                )
            })
            .collect();
        assert_eq!(got, [("A", true), ("b", false), ("zz", false)]);
    }

    #[test]
    fn reinsert_keeps_first_spelling_and_lookup_ignores_case() {
        let mut ad = ClassAd::new();
        ad.insert_expr("Memory", lit(1));
        ad.insert_expr("MEMORY", lit(2));
        assert_eq!(ad.len(), 1);
        assert_eq!(ad.spelling("memory").unwrap().as_str(), "Memory");
        assert!(matches!(
            ad.get("mEmOrY").unwrap().node(),
            crate::syntax::ast::Node::Lit(Value::Int(2))
        ));
        assert!(ad.remove("memory"));
        assert!(ad.is_empty());
    }
}
