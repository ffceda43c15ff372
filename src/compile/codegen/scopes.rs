//! Name resolution: what a name or a selection chain reaches (MY's attribute,
//! TARGET's, a record's field, a scope name), and the loads and path selections
//! that read it.

use super::emit::reg8;
use super::{site, Gen, SubtreeQuestion};
use crate::ad::ClassAd;
use crate::functions::find_index;
use crate::syntax::ast::{BinOp, Node, NodeId};
use classad_vm::instr::form;
use classad_vm::{Op, SlotTable, Value};

/// Names that resolve to an ad or a value in HTCondor's scope walk rather than to an
/// attribute (context and match-ad names, and the special names).
const SCOPE_NAMES: [&str; 18] = [
    "my",
    "target",
    "other",
    "ad",
    "self",
    "parent",
    "toplevel",
    "root",
    "left",
    "right",
    "lctx",
    "rctx",
    "symmetricmatch",
    "leftmatchesright",
    "rightmatchesleft",
    "leftrankvalue",
    "rightrankvalue",
    "currenttime",
];

pub(crate) fn is_scope_name(n: &str) -> bool {
    SCOPE_NAMES.iter().any(|s| n.eq_ignore_ascii_case(s))
}

/// Whether `b`, selected from, names MY's own ad (`MY.x`, `self.x`) when MY has
/// no attribute of that name.
pub(super) fn names_my_ad(my: Option<&ClassAd>, b: &str) -> bool {
    (b.eq_ignore_ascii_case("MY") || b.eq_ignore_ascii_case("self"))
        && my.is_some_and(|m| m.get(b).is_none())
}

/// One step of a chain: a selected name, or a constant subscript.
#[derive(Clone, Copy)]
enum Link<'a> {
    Name(&'a str),
    Index(u32),
    /// A constant string subscript (`r["Memory"]`).
    Key(&'a str),
}

/// Node `id` of `tree` as a chain of selections and constant subscripts
/// (`a.b[0].c`): the name it starts from and the steps after it; `None` when
/// it is not one, or is longer than [`MAX_PATH`].
fn chain_of(tree: &crate::syntax::ast::Expr, id: NodeId) -> Option<(&str, Vec<Link<'_>>)> {
    let mut links = Vec::new();
    let mut cur = id;
    let root = loop {
        match tree.node(cur) {
            Node::Attr {
                scope: Some(s),
                name,
                ..
            } => {
                links.push(Link::Name(name));
                cur = *s;
            }
            Node::Binary(BinOp::Subscript, a, b) => match tree.node(*b) {
                Node::Lit(Value::Int(i))
                    if (0..i64::from(classad_vm::program::MAX_PATH_INDEX)).contains(i) =>
                {
                    links.push(Link::Index(*i as u32));
                    cur = *a;
                }
                Node::Lit(Value::Str(k)) => {
                    links.push(Link::Key(k));
                    cur = *a;
                }
                _ => return None,
            },
            Node::Attr {
                scope: None,
                name,
                absolute: false,
            } => break name,
            _ => return None,
        }
        if links.len() > MAX_PATH {
            return None;
        }
    };
    links.reverse();
    Some((root, links))
}

/// The paths of the chain `links` (`a.b[0].c` without its `MY`/`TARGET`),
/// interned: the path `[a]`, and per step after the first, the path to it and,
/// for a name, the paths to it in each enclosing record (see `PathStep`).
fn chain_steps(
    links: &[Link<'_>],
    table: &mut SlotTable,
) -> (u32, Vec<classad_vm::program::PathStep>) {
    use classad_vm::program::PathStep;
    let slots: Vec<u32> = links
        .iter()
        .map(|l| match l {
            Link::Name(n) | Link::Key(n) => table.intern(n),
            Link::Index(i) => PathStep::index_name(*i),
        })
        .collect();
    let steps = (1..slots.len())
        .map(|i| {
            let enclosing = match links[i] {
                Link::Name(_) => (1..i)
                    .rev()
                    .map(|k| {
                        let mut p = slots[..k].to_vec();
                        p.push(slots[i]);
                        table.intern_path(&p)
                    })
                    .collect(),
                Link::Index(_) | Link::Key(_) => Vec::new(),
            };
            PathStep {
                path: table.intern_path(&slots[..=i]),
                enclosing,
                top: slots[i],
                key: matches!(links[i], Link::Key(_)),
            }
        })
        .collect();
    (table.intern_path(&slots[..1]), steps)
}

/// Interns every path a program compiled from `tree` may select through (its
/// chains), so that copies of a table compile alike (see `matching::pool`).
pub(crate) fn intern_chains(tree: &crate::syntax::ast::Expr, table: &mut SlotTable) {
    for (i, node) in tree.nodes().iter().enumerate() {
        if let Node::Call { name, args } = node {
            // `size(TARGET.x)`: a chain of one name (see `Gen::call`).
            if let ([a], true) = (&args[..], name.eq_ignore_ascii_case("size")) {
                if let Some((_, links)) = chain_of(tree, *a) {
                    if links.len() == 1 && matches!(links[0], Link::Name(_)) {
                        chain_steps(&links, table);
                    }
                }
            }
        }
        if !matches!(
            node,
            Node::Attr { scope: Some(_), .. } | Node::Binary(BinOp::Subscript, ..)
        ) {
            continue;
        }
        let Some((root, links)) = chain_of(tree, i as NodeId) else {
            continue;
        };
        // From `MY`/`TARGET`, and from a name of MY's (its root included).
        if links.len() < MAX_PATH {
            let mut with_root = vec![Link::Name(root)];
            with_root.extend_from_slice(&links);
            chain_steps(&with_root, table);
        }
        if links.len() >= 2 && matches!(links[0], Link::Name(_)) {
            chain_steps(&links, table);
        }
    }
}

/// True when `node` of `tree` is a step of a chain beyond its first name: a
/// subscript, or a selection from a selection (`a.b.c`, `TARGET.r.x`).
fn is_chain_step(tree: &crate::syntax::ast::Expr, node: &Node) -> bool {
    match node {
        Node::Binary(BinOp::Subscript, ..) => true,
        Node::Attr { scope: Some(s), .. } => {
            matches!(tree.node(*s), Node::Attr { scope: Some(_), .. })
        }
        _ => false,
    }
}

/// The longest selection chain compiled to `SelectPath` (and the deepest record
/// literal whose fields a compiled ad lists).
pub(crate) const MAX_PATH: usize = 16;

impl Gen<'_> {
    /// The value of node `id` when it is a chain through MY's record and list
    /// literals that ends at a literal (`MY.Request.Memory`, `Request.Cpus`,
    /// `MY.Devices[0].SizeGb`), or, through records only, at a field computed
    /// from their literals alone (`MY.Resources.Memory` where `Memory = Cpus *
    /// MemoryPerCpu`): the same in every match, as MY is. Each name must be the
    /// record's own (one it lacks is looked up further up) and each subscript
    /// within its list; anything else is not known here.
    pub(super) fn my_chain_literal(&mut self, id: NodeId) -> Option<Value> {
        use crate::values::scope::record_attr;
        let my = self.my?;
        // `TARGET.x` and `MY.x`, most selections, are no chain through MY's
        // records: told apart before one is built.
        let tree = &self.e.tree;
        if let Node::Attr { scope: Some(s), .. } = tree.node(id) {
            if matches!(tree.node(*s), Node::Attr { scope: None, name, .. } if is_scope_name(name))
            {
                return None;
            }
        }
        let (root, links) = chain_of(&self.e.tree, id)?;
        let is = |s: &str| root.eq_ignore_ascii_case(s);
        let (first, rest) = if !is_scope_name(root) && self.my_has(root) {
            (root, &links[..])
        } else if (is("MY") || is("self")) && !self.my_has(root) {
            match links.split_first()? {
                (Link::Name(n), rest) => (*n, rest),
                _ => return None,
            }
        } else {
            return None;
        };
        if rest.is_empty() || is_scope_name(first) {
            return None;
        }
        let mut cur = my.get(first)?.to_expr_ref();
        // The records passed, outermost first, while no list was.
        let mut records = Some(Vec::new());
        for link in rest {
            cur = match (cur.node(), link) {
                (Node::Record(_), Link::Name(n)) if !is_scope_name(n) => {
                    let Some(field) = record_attr(&cur, n) else {
                        // A name no record on the way has, nor MY, is undefined,
                        // and so is anything selected from it (as `SelectPath`
                        // resolves it); one found further up is not known here.
                        let passed = records.as_ref()?;
                        let above = passed.iter().any(|r| record_attr(r, n).is_some());
                        return (!above && !self.my_has(n)).then_some(Value::Undefined);
                    };
                    if let Some(r) = records.as_mut() {
                        r.push(cur);
                    }
                    field
                }
                (Node::List(items), Link::Index(i)) => {
                    records = None;
                    cur.child(*items.get(*i as usize)?)
                }
                _ => return None,
            };
        }
        match cur.node() {
            Node::Lit(Value::RelTime(r)) => Some(Value::Real(*r)),
            Node::Lit(v) => Some(v.clone()),
            _ => {
                let owner = self.facts.as_ref()?.ad.clone();
                let v =
                    crate::compile::fields::closed_field_value(&owner, records.as_deref()?, &cur)?;
                // What evaluating the field costs HTCondor, bounded above.
                let bound = crate::compile::fields::CLOSED_FIELD_BOUND;
                let site = *self.site_depth.get(id);
                self.extra_depth =
                    (self.extra_depth).max(site.saturating_add(rest.len() as u32 + 1 + bound));
                self.extra_nodes = self.extra_nodes.saturating_add(bound);
                Some(v)
            }
        }
    }

    /// Whether the expression has any chain [`Self::has_chain`] looks for:
    /// most have none, and their nodes are then not asked one by one.
    pub(super) fn tree_has_chain(&mut self) -> bool {
        let tree = &self.e.tree;
        *self
            .tree_chains
            .get_or_insert_with(|| tree.nodes().iter().any(|n| is_chain_step(tree, n)))
    }

    /// True when the subtree selects through a record or subscripts a list
    /// (`TARGET.Resources.Gpu.Count`, `TARGET.Devices[0]`): worth caching per
    /// TARGET, where the bit-mask tier and the value lanes read it as a column,
    /// instead of resolving the chain pair by pair.
    pub(super) fn has_chain(&mut self, id: NodeId) -> bool {
        self.memoized(SubtreeQuestion::HasChain, id, Gen::compute_has_chain)
    }

    fn compute_has_chain(&mut self, id: NodeId) -> bool {
        let tree = &self.e.tree;
        let node = tree.node(id);
        if let Node::Binary(BinOp::Subscript, a, b) = *node {
            if self.target_key(a, b).is_some() {
                // A record's `TARGET[k]`: one load (see `each_context`).
                return false;
            }
        }
        if is_chain_step(tree, node) {
            return true;
        }
        let mut children: smallvec::SmallVec<[NodeId; 4]> = smallvec::SmallVec::new();
        node.for_each_child(|c| children.push(c));
        children.into_iter().any(|c| self.has_chain(c))
    }

    pub(super) fn my_has(&self, name: &str) -> bool {
        self.my.is_some_and(|my| my.get(name).is_some())
    }

    /// An unscoped name, resolved as HTCondor's daemons do from MY's point of view.
    pub(super) fn name(&mut self, name: &str, dst: u16, depth: u32) {
        if self.my.is_none() {
            // With no ad at all every name is undefined; the scope names are left to
            // the reference evaluator, which knows exactly what they give there.
            return if is_scope_name(name) {
                self.reference()
            } else {
                self.konst(dst, Value::Undefined)
            };
        }
        if self.overlay.is_some() {
            return self.name_in_record(name, dst, depth);
        }
        if self.my_has(name) {
            self.load_my(name, dst, site(depth));
        } else if name.eq_ignore_ascii_case("CurrentTime") {
            // Old semantics: `CurrentTime` is `time()` when MY does not define it.
            match find_index("time") {
                Some(native) => self.call_native(dst, 0, native, 0),
                None => self.reference(),
            }
        } else if is_scope_name(name) {
            self.reference();
        } else {
            // Not in MY: old semantics look in TARGET (undefined without one).
            let slot = self.slots.intern(name);
            self.load(Op::LoadTarget, dst, site(depth), slot);
        }
    }

    /// MY's attribute `name`: a constant when its value cannot depend on anything
    /// but MY (a literal, or a pure expression of MY's own attributes), else a load.
    fn load_my(&mut self, name: &str, dst: u16, site: u16) {
        if let Some(facts) = self.facts.as_deref_mut() {
            if facts.certainly_fails(name) {
                // Exponential work that fails alike against every slot: fail
                // without doing it (HTCondor would spend its whole step budget).
                self.push(form::Stop {}.instr(Op::Fail));
                return;
            }
            if let Some(c) = facts.constant(name) {
                // HTCondor still dereferences and evaluates it: keep the bounds.
                if self.charge_constant(&c, u32::from(site)) {
                    return self.konst(dst, c.value);
                }
            }
        }
        if self.inline_my(name, dst, site) {
            return;
        }
        let slot = self.slots.intern(name);
        self.load(Op::LoadMy, dst, site, slot);
    }

    /// `base.name` where the selection node consumes depth `d`.
    pub(super) fn select(&mut self, base: NodeId, name: &str, dst: u16, d: u32) {
        let Node::Attr {
            scope: None,
            name: b,
            absolute: false,
        } = self.e.tree.node(base)
        else {
            return self.reference();
        };
        if self.my.is_none() || self.my_has(b) || is_scope_name(name) {
            // MY shadows the scope name, or the name selected is itself one.
            return self.reference();
        }
        let is = |s: &str| b.eq_ignore_ascii_case(s);
        // (`ad` is MY too, but only inside a match, so it is left to the reference.)
        if is("MY") || is("self") {
            if self.my_has(name) {
                self.load_my(name, dst, site(d));
            } else {
                self.konst(dst, Value::Undefined);
            }
        } else if is("TARGET") || is("other") {
            let slot = self.slots.intern(name);
            self.load(Op::LoadTarget, dst, site(d), slot);
        } else {
            self.reference();
        }
    }

    /// Node `id` as a chain of selections and constant subscripts from
    /// `MY`/`self` or `TARGET`/`other`, or from a name MY has (`TARGET.a.b`,
    /// `TARGET.Devices[0].SizeGb`, `Resources.Cpus`), two steps or more, for
    /// `SelectPath`: `None` when it is not one, or a name of the chain is one
    /// the scopes above an ad define (which the machine does not model), or MY
    /// shadows the name it starts from.
    fn path_select(&mut self, id: NodeId) -> Option<classad_vm::program::PathSelect> {
        self.chain_select(id, 2)
    }

    /// [`Gen::path_select`] of chains of `fewest` links or more.
    pub(super) fn chain_select(
        &mut self,
        id: NodeId,
        fewest: usize,
    ) -> Option<classad_vm::program::PathSelect> {
        let (root, mut links) = chain_of(&self.e.tree, id)?;
        let names_ok = links.iter().all(|l| match l {
            Link::Name(n) => !is_scope_name(n),
            Link::Index(_) | Link::Key(_) => true,
        });
        if self.my.is_none() || !names_ok {
            return None;
        }
        let is = |s: &str| root.eq_ignore_ascii_case(s);
        let target = if !is_scope_name(root) && self.my_has(root) {
            // An unscoped name MY has: MY's (`Resources.Cpus`).
            links.insert(0, Link::Name(root));
            false
        } else if self.my_has(root) {
            // MY shadows the scope name.
            return None;
        } else if is("MY") || is("self") {
            false
        } else if is("TARGET") || is("other") {
            true
        } else {
            return None;
        };
        let Some(Link::Name(first)) = links.first().copied() else {
            return None;
        };
        if links.len() < fewest || links.len() > MAX_PATH {
            return None;
        }
        let (root, steps) = chain_steps(&links, self.slots);
        Some(classad_vm::program::PathSelect {
            target,
            slot: self.slots.intern(first),
            root,
            steps,
            size: None,
        })
    }

    /// Compiles node `id` to `SelectPath` when it is such a chain.
    pub(super) fn try_path(&mut self, id: NodeId, dst: u16, d: u32) -> bool {
        let Some(path) = self.path_select(id) else {
            return false;
        };
        let at = self.paths.len() as u32;
        self.paths.push(path);
        self.select_path(dst, site(d), at);
        true
    }

    /// `SelectPath` of the program's path `path` into `dst`, at depth `depth`.
    pub(super) fn select_path(&mut self, dst: u16, depth: u16, path: u32) {
        let dst = reg8(dst);
        self.push(form::SelectPath { dst, depth, path }.instr(Op::SelectPath));
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;

    #[test]
    fn my_fields_computed_from_their_records_fold() {
        let my = "R = [ C = 2; P = 3; M = C * P; G = [ T = M + P ] ]\nTop = 1";
        for expr in ["MY.R.M", "R.G.T", "MY.R.G.Nothing", "R.Nothing.x"] {
            let p = compiled(expr, my, "X = 1");
            assert_eq!(ops(&p), [Op::Const, Op::Ret], "{expr}\n{p}");
        }
        // TARGET's chains through lists are cached per TARGET like those
        // through records.
        let p = compiled("TARGET.D[0].S * 2 > 1", my, "D = { [ S = 3 ] }");
        assert!(ops(&p).contains(&Op::TargetCached), "{p}");
        // A name found further up (MY's own `Top`) is not folded.
        let e = ExprRef::root_of(Arc::new(parse_expr("MY.R.G.Top").unwrap()));
        let p = compile_expr(&e, Some(&ad(my)), &mut SlotTable::new());
        assert_ne!(ops(&p), [Op::Const, Op::Ret], "{p}");
    }
}
