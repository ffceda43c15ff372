//! `ClassAd`: a set of named, unevaluated expressions, ordered as HTCondor orders them.

use crate::syntax::ast::{Expr, ExprRef, ExprView, NodeId};
use classad_vm::{Str, Value};
use std::cmp::Ordering;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// A ClassAd: attribute names mapped to expressions.
///
/// Attributes are kept sorted the way HTCondor's `ClassAdFlatMap` keeps them: by name
/// length, then case-insensitively. That is also the order HTCondor prints them in.
/// Lookups ignore case; re-inserting a name replaces the expression but keeps the first
/// spelling, as HTCondor does.
///
/// The sorted names are shared (copied on write) by the ads of a file that list the
/// same names, and the literal values of an ad live in one arena of its own, so that
/// reading or dropping an ad takes no reference-count operation per attribute.
#[derive(Clone)]
pub struct ClassAd {
    names: Arc<Vec<Str>>,
    /// One per name, in the same order.
    slots: Vec<Slot>,
    /// The nodes that slots without a tree of their own point into.
    local: Arc<Expr>,
}

/// Where one attribute's expression lives: a node of the ad's own arena, or a node
/// of a tree of its own (usually shared with other ads).
#[derive(Clone, Debug)]
pub(crate) struct Slot {
    tree: Option<Arc<Expr>>,
    id: NodeId,
}

impl Slot {
    /// Node `id` of the ad's own arena.
    pub(crate) fn local(id: NodeId) -> Slot {
        Slot { tree: None, id }
    }

    /// A node of another tree.
    pub(crate) fn shared(e: ExprRef) -> Slot {
        Slot {
            tree: Some(e.tree),
            id: e.id,
        }
    }
}

/// Makes room for one more item in a full `v`: an eighth more (at least 4).
fn grow_gently<T>(v: &mut Vec<T>) {
    if v.len() == v.capacity() {
        v.reserve_exact((v.len() / 8).max(4));
    }
}

pub use crate::syntax::names::attr_order;

/// The arena and name list of ads that have none of their own, made once.
fn empty_parts() -> &'static (Arc<Vec<Str>>, Arc<Expr>) {
    static EMPTY: OnceLock<(Arc<Vec<Str>>, Arc<Expr>)> = OnceLock::new();
    EMPTY.get_or_init(|| {
        (
            Arc::new(Vec::new()),
            Arc::new(Expr::literal(Value::Undefined)),
        )
    })
}

/// Lets APIs over many ads take `&[ClassAd]` and `&[Arc<ClassAd>]` alike.
impl AsRef<ClassAd> for ClassAd {
    fn as_ref(&self) -> &ClassAd {
        self
    }
}

impl Default for ClassAd {
    fn default() -> ClassAd {
        let (names, local) = empty_parts();
        ClassAd {
            names: names.clone(),
            slots: Vec::new(),
            local: local.clone(),
        }
    }
}

impl fmt::Debug for ClassAd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.iter().map(|(n, e)| (n, e.node())))
            .finish()
    }
}

impl ClassAd {
    /// An empty ad.
    pub fn new() -> ClassAd {
        ClassAd::default()
    }

    /// Where `name` is (ignoring case), or where it would go.
    pub(crate) fn position(&self, name: &str) -> Result<usize, usize> {
        self.names.binary_search_by(|n| attr_order(n, name))
    }

    /// Where `name` is among the ad's names (ignoring case): the same place in
    /// every ad of its layout ([`ClassAd::layout_id`]).
    pub(crate) fn position_of(&self, name: &str) -> Option<usize> {
        self.position(name).ok()
    }

    /// The expression at place `i` of the ad's names (see
    /// [`ClassAd::position_of`]).
    pub(crate) fn view_at(&self, i: usize) -> ExprView<'_> {
        self.view(&self.slots[i])
    }

    fn view<'a>(&'a self, slot: &'a Slot) -> ExprView<'a> {
        ExprView {
            tree: slot.tree.as_ref().unwrap_or(&self.local),
            id: slot.id,
        }
    }

    /// Builds an ad from attributes in any order: sorted once, and for a repeated name
    /// the last expression wins under the first spelling, as repeated inserts would.
    pub fn from_attrs(mut attrs: Vec<(Str, ExprRef)>) -> ClassAd {
        // A stable sort keeps repeats in input order, so the first spelling leads.
        attrs.sort_by(|a, b| attr_order(&a.0, &b.0));
        let mut names: Vec<Str> = Vec::with_capacity(attrs.len());
        let mut slots: Vec<Slot> = Vec::with_capacity(attrs.len());
        for (name, e) in attrs {
            match (names.last(), slots.last_mut()) {
                (Some(last), Some(slot)) if attr_order(last, &name).is_eq() => {
                    *slot = Slot::shared(e)
                }
                _ => {
                    names.push(name);
                    slots.push(Slot::shared(e));
                }
            }
        }
        ClassAd {
            names: Arc::new(names),
            slots,
            local: empty_parts().1.clone(),
        }
    }

    /// Builds an ad from attributes already in HTCondor's order, without repeats.
    pub fn from_sorted_unique(attrs: Vec<(Str, ExprRef)>) -> ClassAd {
        debug_assert!(attrs
            .windows(2)
            .all(|w| attr_order(&w[0].0, &w[1].0) == Ordering::Less));
        let (names, slots) = attrs.into_iter().map(|(n, e)| (n, Slot::shared(e))).unzip();
        ClassAd {
            names: Arc::new(names),
            slots,
            local: empty_parts().1.clone(),
        }
    }

    /// Builds an ad from names in HTCondor's order without repeats (shared with other
    /// ads), one slot per name, and the arena that local slots point into.
    pub(crate) fn from_parts(names: Arc<Vec<Str>>, slots: Vec<Slot>, local: Arc<Expr>) -> ClassAd {
        debug_assert_eq!(names.len(), slots.len());
        debug_assert!(names
            .windows(2)
            .all(|w| attr_order(&w[0], &w[1]) == Ordering::Less));
        debug_assert!(slots
            .iter()
            .all(|s| s.tree.is_some() || (s.id as usize) < local.nodes().len()));
        ClassAd {
            names,
            slots,
            local,
        }
    }

    /// Sets `name` to `expr`, replacing (but keeping the spelling of) an existing one.
    pub fn insert(&mut self, name: impl Into<Str>, expr: ExprRef) {
        let name = name.into();
        match self.position(&name) {
            Ok(i) => self.slots[i] = Slot::shared(expr),
            Err(i) => {
                // A shared name list is copied with room for a few more names,
                // and a full one grows by an eighth: ads get a name or two added
                // (a slot's SlotWeight), and doubling them costs fresh memory.
                let names = match Arc::get_mut(&mut self.names) {
                    Some(names) => names,
                    None => {
                        let mut copy = Vec::with_capacity(self.names.len() + 4);
                        copy.extend_from_slice(&self.names);
                        self.names = Arc::new(copy);
                        Arc::get_mut(&mut self.names).expect("just made")
                    }
                };
                grow_gently(names);
                names.insert(i, name);
                grow_gently(&mut self.slots);
                self.slots.insert(i, Slot::shared(expr));
            }
        }
    }

    /// Sets `name` to the whole of a parsed expression.
    pub fn insert_expr(&mut self, name: impl Into<Str>, expr: Expr) {
        self.insert(name, ExprRef::root_of(Arc::new(expr)));
    }

    /// The expression of `name`, ignoring case.
    pub fn get(&self, name: &str) -> Option<ExprView<'_>> {
        self.position(name).ok().map(|i| self.view(&self.slots[i]))
    }

    /// True when the ad has `name`, ignoring case.
    pub fn contains(&self, name: &str) -> bool {
        self.position(name).is_ok()
    }

    /// The spelling of `name` as stored, ignoring case.
    pub fn spelling(&self, name: &str) -> Option<&Str> {
        self.position(name).ok().map(|i| &self.names[i])
    }

    /// Removes `name`; true when it was there.
    pub fn remove(&mut self, name: &str) -> bool {
        match self.position(name) {
            Ok(i) => {
                Arc::make_mut(&mut self.names).remove(i);
                self.slots.remove(i);
                true
            }
            Err(_) => false,
        }
    }

    /// The attributes in HTCondor's order.
    pub fn iter(&self) -> impl Iterator<Item = (&Str, ExprView<'_>)> {
        self.names
            .iter()
            .zip(&self.slots)
            .map(|(n, s)| (n, self.view(s)))
    }

    /// The ad's layout itself: holding it keeps [`ClassAd::layout_id`] from
    /// naming another layout after the ad is dropped.
    pub(crate) fn layout(&self) -> Arc<Vec<Str>> {
        self.names.clone()
    }

    /// An identity of the ad's layout (its shared, sorted name list): ads of one
    /// layout keep each name at the same position, while both are alive.
    pub(crate) fn layout_id(&self) -> usize {
        Arc::as_ptr(&self.names) as usize
    }

    /// Takes `other`'s layout when the two ads have the same names in the same
    /// spellings (nothing changes otherwise): ads made alike then share it, as
    /// ads read alike do. The names are compared, not assumed: a layout taken
    /// wrongly would give every attribute another's name. (Names of ads made
    /// alike are mostly the same `Str`s, compared by address first.)
    pub(crate) fn share_layout(&mut self, other: &ClassAd) {
        self.share_names(&other.names);
    }

    /// [`ClassAd::share_layout`] of a layout held apart ([`ClassAd::layout`]).
    pub(crate) fn share_names(&mut self, names: &Arc<Vec<Str>>) {
        if !Arc::ptr_eq(&self.names, names) && *self.names == **names {
            self.names = names.clone();
        }
    }

    /// Asks for the ad's own fields and for its slots at `positions` (those in
    /// range) to be brought into the cache (see [`crate::prefetch`]).
    pub(crate) fn prefetch_slots(&self, positions: &[u32]) {
        crate::prefetch::prefetch(&*self.local);
        for &p in positions {
            if let Some(slot) = self.slots.get(p as usize) {
                crate::prefetch::prefetch(slot);
            }
        }
    }

    /// Asks for the nodes of the expressions at `positions` (those in range).
    pub(crate) fn prefetch_nodes(&self, positions: &[u32]) {
        for &p in positions {
            if let Some(slot) = self.slots.get(p as usize) {
                let e = self.view(slot);
                if let Some(node) = e.tree.nodes().get(e.id as usize) {
                    crate::prefetch::prefetch(node);
                }
            }
        }
    }

    /// True when `e` is a node of the ad's own arena (not of a tree other ads
    /// may share).
    pub(crate) fn owns(&self, e: ExprView<'_>) -> bool {
        Arc::ptr_eq(e.tree, &self.local)
    }

    /// The expression at position `i` (see [`ClassAd::position`]).
    pub(crate) fn at(&self, i: usize) -> ExprView<'_> {
        self.view(&self.slots[i])
    }

    /// The number of attributes.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when the ad has no attributes.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use classad_vm::Value;

    fn lit(i: i64) -> Expr {
        Expr::literal(Value::Int(i))
    }

    /// A layout is taken only from an ad of the same names: otherwise each
    /// attribute would be read under another's name.
    #[test]
    fn a_layout_is_shared_only_between_ads_of_the_same_names() {
        let mut a = ClassAd::new();
        a.insert_expr("A", lit(1));
        a.insert_expr("B", lit(2));
        let mut b = ClassAd::new();
        b.insert_expr("A", lit(3));
        b.insert_expr("B", lit(4));
        let mut c = ClassAd::new();
        c.insert_expr("A", lit(5));
        c.insert_expr("C", lit(6));
        b.share_layout(&a);
        assert_eq!(b.layout_id(), a.layout_id());
        c.share_layout(&a);
        assert_ne!(c.layout_id(), a.layout_id());
        assert!(c.get("C").is_some() && c.get("B").is_none());
        let int = |ad: &ClassAd, n: &str, want: i64| {
            ad.get(n).is_some_and(
                |e| matches!(e.node(), crate::syntax::ast::Node::Lit(Value::Int(i)) if *i == want),
            )
        };
        assert!(int(&b, "A", 3) && int(&b, "B", 4) && int(&c, "C", 6));
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

    #[test]
    fn ads_sharing_names_copy_them_on_write() {
        let names = Arc::new(vec![Str::from("a"), Str::from("Bc")]);
        let arena = |x: i64| {
            Arc::new(Expr::from_parts(
                vec![
                    crate::syntax::ast::Node::Lit(Value::Int(x)),
                    crate::syntax::ast::Node::Lit(Value::Int(x + 1)),
                ],
                0,
            ))
        };
        let shared = ExprRef::root_of(Arc::new(lit(7)));
        let mut one = ClassAd::from_parts(
            names.clone(),
            vec![Slot::local(1), Slot::shared(shared.clone())],
            arena(10),
        );
        let two = ClassAd::from_parts(
            names.clone(),
            vec![Slot::shared(shared), Slot::local(0)],
            arena(20),
        );
        let int = |ad: &ClassAd, n: &str| match ad.get(n).map(|e| e.node()) {
            Some(crate::syntax::ast::Node::Lit(Value::Int(i))) => Some(*i),
            _ => None,
        };
        assert_eq!((int(&one, "A"), int(&one, "bc")), (Some(11), Some(7)));
        assert_eq!((int(&two, "a"), int(&two, "BC")), (Some(7), Some(20)));
        one.insert_expr("z", lit(3));
        assert!(one.remove("a"));
        assert_eq!((int(&one, "z"), int(&one, "a")), (Some(3), None));
        // The other ad, and the list they shared, are untouched.
        assert_eq!((int(&two, "a"), two.len()), (Some(7), 2));
        assert_eq!(names.len(), 2);
        assert!(two.contains("bc") && !two.contains("z"));
        let owned: ExprRef = two.get("bc").unwrap().into();
        assert!(matches!(
            owned.node(),
            crate::syntax::ast::Node::Lit(Value::Int(20))
        ));
        assert_eq!(
            format!("{two:?}"),
            "{\"a\": Lit(Int(7)), \"Bc\": Lit(Int(20))}"
        );
    }
}
