//! The attribute names an expression of an ad can read, as HTCondor's
//! `GetExternalReferences` (full names, then `TrimReferenceNames`) and
//! `GetInternalReferences` find them: what autoclusters are built from.
//!
//! The walk is iterative (expressions may be a million terms long) and visits nodes
//! in HTCondor's order, so that where HTCondor gives up on an expression (an
//! attribute that reaches itself), the names found before are the same.
//!
//! Besides HTCondor's answer it says whether the names are all an evaluation can
//! read ([`References::complete`]): `eval()` of a computed string, an ad used whole
//! (`size(TARGET)`, `string(MY)`), a computed subscript or a `parent` scope can
//! reach attributes no name in the text gives; and whether the expression reads the
//! clock or `random()` ([`References::volatile`]). The batch matcher needs both to
//! know when jobs with equal signatures are sure to match alike.

use crate::ad::ClassAd;
use crate::syntax::ast::{BinOp, Expr, Node, NodeId};
use classad_vm::Str;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A set of attribute names that ignores case, iterated in HTCondor's
/// `classad::References` order (`strcasecmp`), keeping the first spelling.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameSet(BTreeMap<Box<str>, Str>);

impl NameSet {
    /// An empty set.
    pub fn new() -> NameSet {
        NameSet::default()
    }

    /// Adds `name` unless a spelling of it is there; true when it was added.
    pub fn insert(&mut self, name: &str) -> bool {
        let key = name.to_ascii_lowercase().into_boxed_str();
        if self.0.contains_key(&key) {
            return false;
        }
        self.0.insert(key, Str::from(name));
        true
    }

    /// True when the set has `name`, ignoring case.
    pub fn contains(&self, name: &str) -> bool {
        self.0.contains_key(name.to_ascii_lowercase().as_str())
    }

    /// Removes `name`, ignoring case.
    pub fn remove(&mut self, name: &str) {
        self.0.remove(name.to_ascii_lowercase().as_str());
    }

    /// The names, in `strcasecmp` order.
    pub fn iter(&self) -> impl Iterator<Item = &Str> {
        self.0.values()
    }

    /// How many names.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// What a walk found.
#[derive(Clone, Debug, Default)]
pub struct References {
    /// Names read from outside the ad, trimmed as `TrimReferenceNames` trims them
    /// (`TARGET.x` and `x` missing from the ad both give `x`).
    pub external: NameSet,
    /// The external names HTCondor's full names spell without a dot: unscoped (or
    /// `MY.`) names the ad lacks. The schedd adds these to a job's signature.
    pub external_bare: NameSet,
    /// The external names as HTCondor's full names spell them
    /// (`GetExternalReferences` with `fullNames`, what the Python bindings'
    /// `externalRefs` lists): `TARGET.x.y` and `other.x` as written, `x` for a
    /// missing `x` or `MY.x`, and each selection (`a.b`, `a.b.c`) from a missing
    /// `a`.
    pub external_full: NameSet,
    /// Names of the ad itself that the expression reads, directly or through other
    /// attributes of the ad.
    pub internal: NameSet,
    /// False when an evaluation may read attributes that no name in the text gives
    /// (see the module doc), or HTCondor gave up on the expression (it reaches
    /// itself): the names are then not all there is.
    pub complete: bool,
    /// HTCondor's walk gives up on the expression (an attribute that reaches
    /// itself): its `GetExternalReferences` and `GetInternalReferences` fail.
    pub gave_up: bool,
    /// The expression reads the clock or draws a random number.
    pub volatile: bool,
    /// Every name looked up in the ad, found or not, in the order first looked up:
    /// another ad whose attributes of these names print alike walks alike.
    pub looked_up: Vec<Str>,
    /// `looked_up`, lower-cased, to keep it free of repeats.
    seen: ahash::AHashSet<Box<str>>,
}

/// Names that stand for an ad rather than an attribute of one.
const SCOPE_NAMES: [&str; 8] = [
    "my", "self", "target", "other", "parent", "root", "left", "right",
];

fn scope_name(name: &str) -> Option<&'static str> {
    SCOPE_NAMES
        .iter()
        .find(|s| s.eq_ignore_ascii_case(name))
        .copied()
}

/// One step of the walk.
enum Step<'a> {
    /// Walk node `id` of `tree`.
    Node(&'a Arc<Expr>, NodeId),
    /// Walk node `id` of `tree`, the scope of a selection: a name there that the
    /// ad lacks is external with a dot in HTCondor's full name (`a.b`).
    Scope(&'a Arc<Expr>, NodeId),
    /// Done with the expression of an attribute of the ad (leave it on the path).
    Leave(Box<str>),
}

impl References {
    /// Nothing found yet.
    pub fn new() -> References {
        References {
            complete: true,
            ..References::default()
        }
    }

    /// Walks `tree`'s node `root`, an expression of `ad` (or, for a configuration
    /// expression, of no attribute), adding what it reads.
    pub fn walk(&mut self, ad: &ClassAd, tree: &Arc<Expr>, root: NodeId) {
        Walk {
            ad,
            refs: self,
            path: Vec::new(),
            done: NameSet::new(),
        }
        .run(tree, root);
    }

    /// The references of `expr` in `ad`.
    pub fn of(ad: &ClassAd, tree: &Arc<Expr>, root: NodeId) -> References {
        let mut r = References::new();
        r.walk(ad, tree, root);
        r
    }
}

struct Walk<'w> {
    ad: &'w ClassAd,
    refs: &'w mut References,
    /// Attributes of the ad being walked into (to find an attribute that reaches
    /// itself, where HTCondor's walk runs out of depth and gives up).
    path: Vec<Box<str>>,
    /// Attributes walked in full already: walking them again finds nothing new.
    done: NameSet,
}

impl<'w> Walk<'w> {
    fn run(&mut self, tree: &'w Arc<Expr>, root: NodeId) {
        let mut stack: Vec<Step<'w>> = vec![Step::Node(tree, root)];
        while let Some(step) = stack.pop() {
            let (tree, id) = match step {
                Step::Node(t, id) => (t, id),
                Step::Scope(t, id) => {
                    if let Node::Attr {
                        scope: None,
                        name,
                        absolute: false,
                    } = t.node(id)
                    {
                        if scope_name(name).is_none() {
                            if !self.local(name, &mut stack, false) {
                                self.refs.gave_up = true;
                                return;
                            }
                            continue;
                        }
                    }
                    (t, id)
                }
                Step::Leave(name) => {
                    self.path.pop();
                    self.done.insert(&name);
                    continue;
                }
            };
            match tree.node(id) {
                Node::Lit(_) => {}
                Node::Attr {
                    scope: None,
                    name,
                    absolute,
                } => {
                    if !*absolute && scope_name(name).is_some() {
                        // An ad used whole: anything in it may be read.
                        self.refs.complete = false;
                        continue;
                    }
                    if !self.local(name, &mut stack, true) {
                        self.refs.gave_up = true;
                        return;
                    }
                }
                Node::Attr {
                    scope: Some(s),
                    name,
                    ..
                } => {
                    if !self.scoped(tree, id, *s, name, &mut stack) {
                        self.refs.gave_up = true;
                        return;
                    }
                }
                Node::Call { name, args } => {
                    let f = name.to_ascii_lowercase();
                    match f.as_str() {
                        "eval" => self.refs.complete = false,
                        "time" | "currenttime" | "random" => self.refs.volatile = true,
                        _ => {}
                    }
                    push_children(&mut stack, tree, args);
                }
                Node::Binary(BinOp::Subscript, base, index) => {
                    // A computed (or string) subscript may pick an attribute of an
                    // ad by a name the text does not give.
                    let literal_number = matches!(
                        tree.node(*index),
                        Node::Lit(v) if v.is_number()
                    );
                    if !literal_number {
                        self.refs.complete = false;
                    }
                    push_children(&mut stack, tree, &[*base, *index]);
                }
                node => {
                    let mut kids: smallvec::SmallVec<[NodeId; 4]> = smallvec::SmallVec::new();
                    node.for_each_child(|k| kids.push(k));
                    push_children(&mut stack, tree, &kids);
                }
            }
        }
    }

    /// An unscoped name (or `MY.name`): the ad's attribute, walked into, or an
    /// external reference. False when HTCondor's walk would give up here.
    fn local(&mut self, name: &Str, stack: &mut Vec<Step<'w>>, bare: bool) -> bool {
        if self
            .refs
            .seen
            .insert(name.to_ascii_lowercase().into_boxed_str())
        {
            self.refs.looked_up.push(name.clone());
        }
        let Some(e) = self.ad.get(name) else {
            if name.eq_ignore_ascii_case("CurrentTime") {
                // HTCondor's daemons read it as the clock.
                self.refs.volatile = true;
            }
            self.refs.external.insert(name);
            if bare {
                self.refs.external_bare.insert(name);
                // HTCondor's daemons read `CurrentTime` as the clock, not
                // from another ad.
                if !name.eq_ignore_ascii_case("CurrentTime") {
                    self.refs.external_full.insert(name);
                }
            }
            return true;
        };
        self.refs.internal.insert(name);
        if self.path.iter().any(|p| p.eq_ignore_ascii_case(name)) {
            // HTCondor recurses until its depth runs out, and drops the rest of
            // the walk.
            self.refs.complete = false;
            return false;
        }
        if self.done.contains(name) {
            return true;
        }
        self.path.push(name.to_ascii_lowercase().into_boxed_str());
        stack.push(Step::Leave(name.to_ascii_lowercase().into_boxed_str()));
        stack.push(Step::Node(e.tree, e.id));
        true
    }

    /// `scope.name`.
    fn scoped(
        &mut self,
        tree: &'w Arc<Expr>,
        id: NodeId,
        scope: NodeId,
        name: &Str,
        stack: &mut Vec<Step<'w>>,
    ) -> bool {
        // The first name of a chain of selections (`TARGET.a.b` starts at `TARGET`).
        let mut root = scope;
        let mut first = name;
        while let Node::Attr {
            scope: Some(s),
            name: n,
            ..
        } = tree.node(root)
        {
            first = n;
            root = *s;
        }
        match tree.node(root) {
            Node::Attr {
                scope: None,
                name: r,
                absolute: false,
            } => match scope_name(r) {
                // `MY.x` (and `MY.x.y`): an attribute of the ad.
                Some("my" | "self") => self.local(first, stack, root == scope),
                // `TARGET.x`: the other ad's `x`, read from outside.
                Some("target" | "other") => {
                    self.refs.external.insert(first);
                    self.full_name(tree, id);
                    true
                }
                Some(_) => {
                    // `parent.x`, `LEFT.x`...: scopes this walk does not model.
                    self.refs.complete = false;
                    self.full_name(tree, id);
                    true
                }
                // `a.b`: walk `a` (an attribute of the ad, or external); what is
                // selected from it is part of it.
                None => {
                    match self.ad.get(r).map(|e| e.node()) {
                        None => self.full_name(tree, id),
                        // `r.z` of a record `r` that lacks `z`: HTCondor names
                        // the missing `z` alone.
                        Some(Node::Record(attrs))
                            if root == scope
                                && !attrs.iter().any(|(n, _)| n.eq_ignore_ascii_case(first)) =>
                        {
                            self.refs.external_full.insert(first);
                        }
                        Some(_) => {}
                    }
                    stack.push(Step::Scope(tree, scope));
                    true
                }
            },
            _ => {
                // Selection from a computed value (a record literal, a call).
                stack.push(Step::Node(tree, scope));
                true
            }
        }
    }
}

impl Walk<'_> {
    /// Adds the text of the reference at `id` to the full external names.
    fn full_name(&mut self, tree: &Expr, id: NodeId) {
        let mut text = String::new();
        crate::syntax::unparse_node(tree, id, &mut text);
        self.refs.external_full.insert(&text);
    }
}

/// Pushes `kids` so that they are walked in source order.
fn push_children<'a>(stack: &mut Vec<Step<'a>>, tree: &'a Arc<Expr>, kids: &[NodeId]) {
    for &k in kids.iter().rev() {
        stack.push(Step::Node(tree, k));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;
    use crate::syntax::parse_expr;

    fn refs(ad: &str, expr: &str) -> References {
        let ad = read_ads(ad, "t").unwrap().pop().unwrap_or_default();
        let e = Arc::new(parse_expr(expr).unwrap());
        References::of(&ad, &e, e.root())
    }

    fn names(s: &NameSet) -> Vec<&str> {
        s.iter().map(|n| &**n).collect()
    }

    #[test]
    fn target_and_missing_names_are_external() {
        let r = refs(
            "Memory = 4\nStart = TARGET.RequestMemory <= Memory && Owner != \"x\"\n",
            "Start && TARGET.Resources.Gpu > MY.Cpus",
        );
        assert_eq!(
            names(&r.external),
            ["Cpus", "Owner", "RequestMemory", "Resources"]
        );
        assert_eq!(names(&r.external_bare), ["Cpus", "Owner"]);
        assert_eq!(names(&r.internal), ["Memory", "Start"]);
        assert!(r.complete && !r.volatile);
    }

    #[test]
    fn internal_references_are_transitive_and_case_blind() {
        let r = refs("A = b + 1\nB = c * 2\nC = TARGET.x\n", "a + A");
        // Spelled as referenced, as HTCondor inserts them.
        assert_eq!(names(&r.internal), ["a", "b", "c"]);
        assert_eq!(names(&r.external), ["x"]);
    }

    #[test]
    fn full_names_are_spelled_as_htcondor_spells_them() {
        let r = refs(
            "Memory = 4\nStart = TARGET.RequestMemory <= Memory && Owner != \"x\"\n",
            "Start && TARGET.Resources.Gpu > MY.Cpus + other.c + zz.y.w + .abs + CurrentTime",
        );
        assert_eq!(
            names(&r.external_full),
            [
                "abs",
                "Cpus",
                "other.c",
                "Owner",
                "TARGET.RequestMemory",
                "TARGET.Resources.Gpu",
                "zz.y",
                "zz.y.w"
            ]
        );
        assert!(!r.gave_up);
    }

    #[test]
    fn a_cycle_stops_the_walk_as_htcondor_gives_up() {
        let r = refs("A = B\nB = A\n", "A + TARGET.y");
        assert!(!r.complete && r.gave_up);
        assert!(r.external.is_empty(), "the walk stopped before TARGET.y");
    }

    #[test]
    fn computed_names_and_whole_ads_are_incomplete() {
        for e in [
            "eval(\"TARGET.\" + x)",
            "size(TARGET)",
            "TARGET[\"Memory\"]",
            "{1, 2}[i]",
            "parent.x",
        ] {
            assert!(!refs("", e).complete, "{e}");
        }
        for e in ["split(x)[1]", "TARGET.x.y", "[a = 1].a", "MY.x"] {
            assert!(refs("", e).complete, "{e}");
        }
    }

    #[test]
    fn the_clock_and_random_are_volatile() {
        for e in ["time() > 1", "random(3)", "CurrentTime - QDate"] {
            assert!(refs("", e).volatile, "{e}");
        }
        assert!(!refs("CurrentTime = 5\n", "CurrentTime").volatile);
    }

    #[test]
    fn million_term_chains_walk_without_recursion() {
        let text = vec!["TARGET.a"; 200_000].join(" + ");
        let e = Arc::new(parse_expr(&text).unwrap());
        let ad = ClassAd::new();
        let r = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || References::of(&ad, &e, e.root()))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(names(&r.external), ["a"]);
    }
}
