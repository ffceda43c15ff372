//! Expression trees to register bytecode, for one ad's point of view.
//!
//! A program is compiled for the ad it belongs to (MY), because how a name resolves
//! depends on that ad: `x` is MY's `x` when MY has one, else (HTCondor's daemons'
//! old semantics) the TARGET's. Anything that needs scopes beyond MY and TARGET
//! (nested records, `parent`, absolute `.x`, `LEFT`, lists of expressions, the
//! builtins in [`SCOPED_BUILTINS`]) compiles to `Reference`, which hands the whole
//! evaluation to the reference evaluator: exactness first, speed where it matters.

/// The membership builtins that compile to `Member` when their list is a
/// constant (see `const_set`).
const MEMBERSHIP_BUILTINS: [&str; 4] = [
    "stringListMember",
    "stringListIMember",
    "member",
    "identicalMember",
];

use crate::ad::ClassAd;
use crate::eval::Evaluator;
use crate::functions::{
    find, find_index, ERROR_ON_FAILED_ARGUMENT, IMPURE_BUILTINS, SCOPED_BUILTINS,
};
use crate::syntax::ast::{BinOp, ExprRef, Node, NodeId, UnOp};
use classad_vm::{Instr, Op, Program, SlotTable, Str, Value};
use std::sync::Arc;

mod each_context;
mod node_map;

use node_map::NodeMap;

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

/// Compiles `e`, an expression belonging to `my` (`None`: evaluated with no ad at
/// all), against `slots`.
pub fn compile_expr(e: &ExprRef, my: Option<&Arc<ClassAd>>, slots: &mut SlotTable) -> Program {
    let mut facts = my.map(|m| MyFacts::new(m.clone()));
    compile_with(e, facts.as_mut(), slots)
}

/// [`compile_expr`] sharing what is known of MY across the expressions of one ad.
pub(crate) fn compile_with(
    e: &ExprRef,
    facts: Option<&mut MyFacts>,
    slots: &mut SlotTable,
) -> Program {
    compile_inner(e, facts, slots, true, None)
}

/// The value of an attribute's expression when it is the same wherever it is
/// evaluated, as a literal's is: a list of literals (`{ "avx2", "sse4" }`),
/// which evaluates to itself without evaluating its elements and costs HTCondor
/// one step and no depth, like a literal, and whose elements are the same in any
/// scope. Made by the reference evaluator, so exact by construction.
pub(crate) fn literal_list(e: &ExprRef) -> Option<Value> {
    match e.node() {
        Node::List(items)
            if items
                .iter()
                .all(|&i| matches!(e.tree.node(i), Node::Lit(_))) =>
        {
            Evaluator::new(true).eval(e, None).ok()
        }
        _ => None,
    }
}

/// Compiles; `cache_targets` false for the body of a TARGET-only subexpression
/// itself (which is cached as a whole); `overlay` the record `e` is evaluated
/// in (see [`Gen::overlay`]).
fn compile_inner(
    e: &ExprRef,
    facts: Option<&mut MyFacts>,
    slots: &mut SlotTable,
    cache_targets: bool,
    overlay: Option<Overlay>,
) -> Program {
    let (max_depth, nodes, (lo, hi)) = measure(e, e.id);
    if max_depth > MAX_DEPTH {
        // The machine hands every evaluation whose depth bound passes the limit
        // to the reference evaluator (see `Machine::eval`, `Machine::load`), so
        // such a program's answer is the reference evaluator's whatever code it
        // holds: it holds none. This also keeps every walk below within a bounded
        // depth of recursion, whatever the length of the chains the parser built.
        return Program {
            code: vec![Instr::new(Op::Reference, 0, 0, 0)],
            consts: Vec::new(),
            nregs: 1,
            max_depth,
            nodes,
            target_only: Vec::new(),
            sets: Vec::new(),
            fail_needs_reference: false,
            paths: Vec::new(),
            lane_depth: Default::default(),
        };
    }
    let mut site_depth = NodeMap::covering(lo, hi, nodes);
    ancestors_depth(e, e.id, 0, &mut site_depth);
    let my = facts.as_ref().map(|f| f.ad.clone());
    let mut g = Gen {
        e,
        my: my.as_deref(),
        facts,
        site_depth,
        slots,
        code: Vec::new(),
        consts: Vec::new(),
        next_reg: 1,
        max_reg: 1,
        extra_depth: 0,
        extra_nodes: 0,
        known: NodeMap::covering(lo, hi, nodes),
        subtree_memo: NodeMap::covering(lo, hi, nodes),
        target_only: Vec::new(),
        cache_targets,
        sets: Vec::new(),
        fail_needs_reference: false,
        paths: Vec::new(),
        tree_chains: None,
        overlay,
    };
    g.node(e.id, 0, 0);
    let ret = Instr::new(Op::Ret, 0, 0, 0);
    g.code.push(ret);
    thread_jumps(&mut g.code);
    if g.max_reg > u16::from(u8::MAX) {
        // Too many live temporaries for 8-bit registers: leave it to the reference.
        g.code = vec![Instr::new(Op::Reference, 0, 0, 0)];
    }
    Program {
        code: g.code,
        consts: g.consts,
        nregs: g.max_reg,
        max_depth: max_depth.max(g.extra_depth),
        nodes: nodes.saturating_add(g.extra_nodes),
        target_only: g.target_only,
        sets: g.sets,
        fail_needs_reference: g.fail_needs_reference,
        paths: g.paths,
        lane_depth: Default::default(),
    }
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

/// HTCondor's nesting limit (operations and attribute dereferences): a program
/// deeper than this always goes to the reference evaluator (see `compile_inner`).
const MAX_DEPTH: u32 = crate::eval::evaluator::MAX_DEPTH;

/// HTCondor's depth (operations and selections count; literals, plain names and
/// list or record literals themselves do not, though their contents are counted
/// too, since builtins may evaluate them) and node count of a subtree.
///
/// Iterative, and linear in the size of the subtree: the parser builds chains
/// (`1 + 1 + ...`, `a.b.c...`, `a[1][2]...`) of any length. The depth is the
/// largest number of counted nodes on a path from `id` down: every node on the
/// path above a node is an operation, so a node `k` edges down adds `k`, plus one
/// when it is an operation itself (an argument-less call or empty list included).
fn measure(e: &ExprRef, id: NodeId) -> (u32, u32, (NodeId, NodeId)) {
    let (mut depth, mut nodes) = (0u32, 0u32);
    let (mut lo, mut hi) = (id, id);
    let mut stack = vec![(id, 0u32)];
    while let Some((id, above)) = stack.pop() {
        nodes = nodes.saturating_add(1);
        (lo, hi) = (lo.min(id), hi.max(id));
        let node = e.tree.node(id);
        let leaf = matches!(node, Node::Lit(_) | Node::Attr { scope: None, .. });
        // A list subscript evaluates its element a level below itself
        // (HTCondor's `ExprList::GetValueAt`).
        let element = u32::from(matches!(node, Node::Binary(BinOp::Subscript, ..)));
        depth = depth.max(above + u32::from(!leaf) + element);
        node.for_each_child(|c| stack.push((c, above + 1)));
    }
    (depth, nodes, (lo, hi))
}

/// The questions `Gen` asks about whole subtrees (memoized per node).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum SubtreeQuestion {
    Pure,
    TargetOnly,
    HasCall,
    HasChain,
}

struct Gen<'a> {
    e: &'a ExprRef,
    my: Option<&'a ClassAd>,
    facts: Option<&'a mut MyFacts>,
    /// The depth each node's ancestors consume (see `ancestors_depth`).
    site_depth: NodeMap<u32>,
    slots: &'a mut SlotTable,
    code: Vec<Instr>,
    consts: Vec<Value>,
    next_reg: u16,
    max_reg: u16,
    /// Depth and steps of MY attributes folded into constants, which HTCondor
    /// still spends.
    extra_depth: u32,
    extra_nodes: u32,
    /// Compile-time values of nodes, by id (see `known`).
    known: NodeMap<Option<Option<Value>>>,
    /// `pure`, `target_only` and `has_call` of nodes, by id: each asks about a
    /// whole subtree and is asked at every node, which without memos is
    /// quadratic in a chain's length.
    /// Two bits a question (see [`Gen::memoized`]).
    subtree_memo: NodeMap<u8>,
    /// Subexpressions cached per TARGET (see `target_cached`).
    target_only: Vec<classad_vm::TargetOnly>,
    /// Whether to cache TARGET-only subexpressions.
    cache_targets: bool,
    /// Constant collections for `Member`.
    sets: Vec<classad_vm::ConstSet>,
    /// See [`Program::fail_needs_reference`].
    fail_needs_reference: bool,
    /// Selection chains for `SelectPath`.
    paths: Vec<classad_vm::program::PathSelect>,
    /// See [`Gen::tree_has_chain`].
    tree_chains: Option<bool>,
    /// While compiling `evalInEachContext`'s expression for one record of its
    /// list (see `each_context`): that record's fields, where unscoped names
    /// resolve first.
    overlay: Option<Overlay>,
}

/// The literal fields of a record, in order (the last of a name wins, as in
/// the record).
pub(crate) type Overlay = std::rc::Rc<[(String, Value)]>;

impl Gen<'_> {
    fn emit(&mut self, op: Op, x: u16, y: u16, z: u32) -> usize {
        // Registers past 255 make the whole program fall back (see compile_expr);
        // truncating here keeps the code well-formed meanwhile.
        self.code.push(Instr::new(op, x as u8, y, z));
        self.code.len() - 1
    }

    fn patch(&mut self, at: usize) {
        self.code[at].z = self.code.len() as u32;
    }

    fn reg(&mut self) -> u16 {
        let r = self.next_reg;
        self.next_reg += 1;
        self.max_reg = self.max_reg.max(self.next_reg);
        r
    }

    fn konst(&mut self, dst: u16, v: Value) {
        let k = self.consts.len() as u32;
        self.consts.push(v);
        self.emit(Op::Const, dst, 0, k);
    }

    fn reference(&mut self) {
        self.emit(Op::Reference, 0, 0, 0);
    }

    /// Emits code leaving node `id`'s value in `dst`; `depth` is the depth its
    /// ancestors consume (for the depth bound of attribute dereferences).
    fn node(&mut self, id: NodeId, dst: u16, depth: u32) {
        let node = self.e.tree.node(id);
        match node {
            Node::Lit(Value::RelTime(r)) => return self.konst(dst, Value::Real(*r)),
            Node::Lit(v) => return self.konst(dst, v.clone()),
            Node::Attr {
                scope: None,
                name,
                absolute: false,
            } => return self.name(name, dst, depth),
            _ => {}
        }
        if let Some(v) = self.known(id) {
            return self.konst(dst, v);
        }
        if self.cache_targets
            && self.my.is_some()
            && self.target_only(id)
            && (self.has_call(id) || (self.tree_has_chain() && self.has_chain(id)))
        {
            return self.target_cached(id, dst, depth);
        }
        let d = depth + 1;
        let saved = self.next_reg;
        match node {
            Node::Lit(_) | Node::Attr { scope: None, .. } => self.reference(),
            Node::Binary(BinOp::Subscript, a, b) if self.target_key(*a, *b).is_some() => {
                let key = self.target_key(*a, *b).unwrap_or_default();
                let slot = self.slots.intern(&key);
                self.emit(Op::LoadTarget, dst, site(d), slot);
            }
            Node::Attr { scope: Some(_), .. } | Node::Binary(BinOp::Subscript, ..)
                if self.try_path(id, dst, d) => {}
            Node::Attr {
                scope: Some(s),
                name,
                ..
            } => self.select(*s, name, dst, d),
            Node::Paren(a) => self.node(*a, dst, d),
            Node::Unary(op, a) => {
                let r = self.reg();
                self.node(*a, r, d);
                let op = match op {
                    UnOp::Neg => Op::Neg,
                    UnOp::Plus => Op::Plus,
                    UnOp::Not => Op::Not,
                    UnOp::BitNot => Op::BitNot,
                };
                self.emit(op, dst, 0, u32::from(r));
            }
            Node::Binary(op @ (BinOp::And | BinOp::Or), a, b)
                if self.neutral_operand(*op, *a, *b).is_some() =>
            {
                let x = self.neutral_operand(*op, *a, *b).unwrap_or(*a);
                self.node(x, dst, d);
            }
            Node::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                let is_and = *op == BinOp::And;
                let rb = self.reg();
                self.node(*a, dst, d);
                // A deciding left side is stored as `false`/`true` by the jump.
                let skip = self.emit(
                    if is_and {
                        Op::JumpIfFalse
                    } else {
                        Op::JumpIfTrue
                    },
                    dst,
                    0,
                    0,
                );
                self.node(*b, rb, d);
                self.emit(
                    if is_and { Op::And } else { Op::Or },
                    dst,
                    dst,
                    u32::from(rb),
                );
                self.patch(skip);
            }
            Node::Binary(op, a, b) if self.compare_with_constant(*op, *a, *b, dst, d) => {}
            Node::Binary(BinOp::Elvis, a, b) => {
                self.node(*a, dst, d);
                let end = self.emit(Op::JumpIfDefined, dst, 0, 0);
                self.node(*b, dst, d);
                self.patch(end);
            }
            Node::Binary(op, a, b) => {
                let (ra, rb) = (self.reg(), self.reg());
                self.node(*a, ra, d);
                self.node(*b, rb, d);
                self.emit(binary_op(*op), dst, ra, u32::from(rb));
            }
            Node::Ternary(c, a, b) => self.conditional(*c, *a, *b, dst, d, true),
            Node::Call { name, args } => self.call(name, args, dst, d),
            Node::List(_) | Node::Record(_) => self.reference(),
        }
        self.next_reg = saved;
    }

    /// For `a && b` (`a || b`) where one side is the constant `true` (`false`) and
    /// the other always gives a boolean, undefined or error: that other side, which
    /// is then the whole value.
    fn neutral_operand(&mut self, op: BinOp, a: NodeId, b: NodeId) -> Option<NodeId> {
        if self.overlay.is_some() {
            // (`logical` reads names as MY's, not the record's.)
            return None;
        }
        let unit = op == BinOp::And;
        let is_unit = |v: Option<Value>| matches!(v, Some(Value::Bool(x)) if x == unit);
        let my = self.my;
        if is_unit(self.known(a)) && logical(my, self.e, b, 8) {
            Some(b)
        } else if is_unit(self.known(b)) && logical(my, self.e, a, 8) {
            Some(a)
        } else {
            None
        }
    }

    /// A comparison with a constant operand as one `CmpK`, or `CmpTK` when the
    /// other operand is a TARGET attribute; false (nothing emitted) otherwise. `d`
    /// is the depth the operands sit at.
    fn compare_with_constant(&mut self, op: BinOp, a: NodeId, b: NodeId, dst: u16, d: u32) -> bool {
        let Some(cmp) = op.comparison() else {
            return false;
        };
        let plain = |v: &Option<Value>| {
            v.as_ref()
                .is_some_and(|v| !matches!(v, Value::List(_) | Value::Ad(_)))
        };
        let (x, cmp, k) = if let Some(k) = Some(self.known(b)).filter(plain) {
            (a, cmp, k)
        } else if let Some(k) = Some(self.known(a))
            .filter(plain)
            .filter(|k| !matches!(k, Some(Value::Undefined | Value::Error)))
        {
            // Swapping is exact for a plain constant (see `Cmp::swapped`).
            (b, cmp.swapped(), k)
        } else {
            return false;
        };
        let (Some(k), Ok(ki)) = (k, u16::try_from(self.consts.len())) else {
            return false;
        };
        self.consts.push(k);
        if let Some((slot, site)) = self.target_attr(x, d) {
            if slot < 1 << 24 {
                // The load's own depth, which the instruction does not carry.
                self.extra_depth = self.extra_depth.max(site + 1);
                let z = slot | (u32::from(cmp.code()) << 24);
                self.emit(Op::CmpTK, dst, ki, z);
                return true;
            }
        }
        let rx = self.reg();
        self.node(x, rx, d);
        self.emit(
            Op::CmpK,
            dst,
            ki,
            u32::from(rx) | (u32::from(cmp.code()) << 8),
        );
        true
    }

    /// The slot and load site of node `id` when it is a plain load of a TARGET
    /// attribute (`TARGET.x`, or a name MY lacks), sitting at depth `d`: exactly the
    /// cases where [`Gen::node`] would emit a lone `LoadTarget`.
    fn target_attr(&mut self, id: NodeId, d: u32) -> Option<(u32, u32)> {
        self.my?;
        let (name, site) = match self.e.tree.node(id) {
            Node::Attr {
                scope: None,
                name,
                absolute: false,
            } if !name.eq_ignore_ascii_case("CurrentTime") && !self.overlay_has(name) => (name, d),
            Node::Attr {
                scope: Some(s),
                name,
                absolute: false,
            } => match self.e.tree.node(*s) {
                Node::Attr {
                    scope: None,
                    name: b,
                    absolute: false,
                } if (b.eq_ignore_ascii_case("TARGET") || b.eq_ignore_ascii_case("other"))
                    && !self.my_has(b) =>
                {
                    (name, d + 1)
                }
                _ => return None,
            },
            _ => return None,
        };
        if self.my_has(name) || is_scope_name(name) {
            return None;
        }
        let name = name.clone();
        Some((self.slots.intern(&name), site))
    }

    /// A subexpression that depends only on TARGET, compiled on its own and run
    /// through the machine's per-TARGET cache (see `Op::TargetCached`).
    fn target_cached(&mut self, id: NodeId, dst: u16, depth: u32) {
        let sub_ref = self.e.child(id);
        let sub = compile_inner(
            &sub_ref,
            self.facts.as_deref_mut(),
            self.slots,
            false,
            self.overlay.clone(),
        );
        // The sub's nodes are already counted here; its loads, skipped on a cache
        // hit, add at most one level and one step each: keep the bounds upper ones.
        self.extra_depth = self.extra_depth.max(depth + sub.max_depth + 1);
        self.extra_nodes = self.extra_nodes.saturating_add(sub.nodes);
        let mut folded = String::new();
        self.my_scalars_in(id, &mut folded);
        let key = subexpression_key(&self.e.child(id), &folded);
        let i = self.target_only.len() as u32;
        self.target_only.push(classad_vm::TargetOnly::new(key, sub));
        // The sub's depths count from its own root; `y` says where that root sits.
        self.emit(Op::TargetCached, dst, site(depth), i);
    }

    /// True when the subtree reads nothing but TARGET's attributes and constants:
    /// no name MY defines, no scope names, nothing impure or scope-dependent.
    fn target_only(&mut self, id: NodeId) -> bool {
        self.memoized(SubtreeQuestion::TargetOnly, id, Gen::compute_target_only)
    }

    /// The answer of `compute` for node `id`, computed once per node.
    fn memoized(
        &mut self,
        question: SubtreeQuestion,
        id: NodeId,
        compute: fn(&mut Self, NodeId) -> bool,
    ) -> bool {
        // Bit 2q: question q was answered; bit 2q + 1: its answer.
        let asked = 1u8 << (2 * question as u8);
        let memo = *self.subtree_memo.get(id);
        if memo & asked != 0 {
            return memo & (asked << 1) != 0;
        }
        let answer = compute(self, id);
        *self.subtree_memo.get_mut(id) |= asked | if answer { asked << 1 } else { 0 };
        answer
    }

    /// The scalar value of MY's attribute that node `id` names (`MY.ProjectName`,
    /// `RequestMemory`), when it is one of MY's constants: such a name reads
    /// nothing that changes between matches, and may be an argument of a call
    /// cached per TARGET (see `compute_target_only`).
    fn my_scalar(&mut self, id: NodeId) -> Option<Value> {
        if !matches!(self.e.tree.node(id), Node::Attr { .. }) {
            return None;
        }
        self.known(id).filter(Value::is_scalar)
    }

    /// Writes, for each name in the subtree in order, the value of MY's
    /// constant it names (see [`Gen::my_scalar`]) exactly (`Debug` tells every
    /// real and string apart), or `_` for a name that is not one: with the
    /// subtree's text, this determines its value for a TARGET. (The values alone
    /// would not: `strcmp(A, B)` with MY's `A = "x"` and with MY's `B = "x"`
    /// would share a key.)
    fn my_scalars_in(&mut self, id: NodeId, out: &mut String) {
        use std::fmt::Write;
        if let Some(v) = self.my_scalar(id) {
            let _ = write!(out, "{v:?};");
            return;
        }
        let tree = &self.e.tree;
        let kids: Vec<NodeId> = match tree.node(id) {
            Node::Attr { scope: None, .. } => {
                out.push_str("_;");
                Vec::new()
            }
            Node::Lit(_) => Vec::new(),
            Node::Attr { scope: Some(a), .. } | Node::Unary(_, a) | Node::Paren(a) => vec![*a],
            Node::Binary(_, a, b) => vec![*a, *b],
            Node::Ternary(a, b, c) => vec![*a, *b, *c],
            Node::Call { args, .. } | Node::List(args) => args.clone(),
            Node::Record(attrs) => attrs.iter().map(|(_, a)| *a).collect(),
        };
        for k in kids {
            self.my_scalars_in(k, out);
        }
    }

    fn compute_target_only(&mut self, id: NodeId) -> bool {
        let e = self.e;
        let tree = &e.tree;
        match tree.node(id) {
            Node::Lit(_) => true,
            Node::Attr {
                scope: None,
                name,
                absolute: false,
            } => !self.my_has(name) && !is_scope_name(name) && !self.overlay_has(name),
            Node::Binary(BinOp::Subscript, a, b) if self.target_key(*a, *b).is_some() => true,
            Node::Attr {
                scope: Some(s),
                name,
                ..
            } => match tree.node(*s) {
                Node::Attr {
                    scope: None,
                    name: b,
                    absolute: false,
                } => {
                    (b.eq_ignore_ascii_case("TARGET") || b.eq_ignore_ascii_case("other"))
                        && !self.my_has(b)
                        && !is_scope_name(name)
                }
                // A chain from TARGET through its records and lists
                // (`SelectPath`: `TARGET.Resources.Gpu.Count`, `TARGET.Devices[0].SizeGb`).
                Node::Attr { scope: Some(_), .. } | Node::Binary(BinOp::Subscript, ..) => {
                    !is_scope_name(name) && self.target_only(*s)
                }
                _ => false,
            },
            Node::Attr { .. } | Node::List(_) | Node::Record(_) => false,
            Node::Unary(_, a) | Node::Paren(a) => self.target_only(*a),
            Node::Binary(_, a, b) => self.target_only(*a) && self.target_only(*b),
            Node::Ternary(a, b, c) => {
                self.target_only(*a) && self.target_only(*b) && self.target_only(*c)
            }
            // A call's arguments may also be MY's constants
            // (`member(MY.ProjectName, TARGET.AllowedProjects)`): the call is
            // cached per value of theirs. Other operators do not take them in, so
            // that a Requirements reading both sides is not cached whole, per job.
            Node::Call { name, args } => {
                let listed = |list: &[&str]| list.iter().any(|s| s.eq_ignore_ascii_case(name));
                !listed(&IMPURE_BUILTINS)
                    && !listed(&SCOPED_BUILTINS)
                    && args
                        .iter()
                        .all(|a| self.target_only(*a) || self.my_scalar(*a).is_some())
            }
        }
    }

    /// True when the subtree calls a builtin worth caching (`ifThenElse`, which
    /// compiles to jumps, and the membership tests in a known list, which
    /// compile to `Member`, cost less than a cache lookup).
    fn has_call(&mut self, id: NodeId) -> bool {
        self.memoized(SubtreeQuestion::HasCall, id, Gen::compute_has_call)
    }

    fn compute_has_call(&mut self, id: NodeId) -> bool {
        let e = self.e;
        let tree = &e.tree;
        match tree.node(id) {
            Node::Call { name, args } => {
                // A membership test in a list known here compiles to `Member`;
                // in TARGET's list (`member("x", TARGET.Features)`) it is a call.
                let cheap = name.eq_ignore_ascii_case("ifThenElse")
                    || (MEMBERSHIP_BUILTINS
                        .iter()
                        .any(|c| c.eq_ignore_ascii_case(name))
                        && args.get(1).is_some_and(|&list| self.known(list).is_some()));
                !cheap || args.iter().any(|a| self.has_call(*a))
            }
            Node::Lit(_) | Node::Attr { scope: None, .. } => false,
            Node::Attr { scope: Some(a), .. } | Node::Unary(_, a) | Node::Paren(a) => {
                self.has_call(*a)
            }
            Node::Binary(_, a, b) => self.has_call(*a) || self.has_call(*b),
            Node::Ternary(a, b, c) => self.has_call(*a) || self.has_call(*b) || self.has_call(*c),
            Node::List(items) => items.iter().any(|a| self.has_call(*a)),
            Node::Record(attrs) => attrs.iter().any(|(_, a)| self.has_call(*a)),
        }
    }

    /// The value of node `id` when it is a chain through MY's record and list
    /// literals that ends at a literal (`MY.Request.Memory`, `Request.Cpus`,
    /// `MY.Devices[0].SizeGb`), or, through records only, at a field computed
    /// from their literals alone (`MY.Resources.Memory` where `Memory = Cpus *
    /// MemoryPerCpu`): the same in every match, as MY is. Each name must be the
    /// record's own (one it lacks is looked up further up) and each subscript
    /// within its list; anything else is not known here.
    fn my_chain_literal(&mut self, id: NodeId) -> Option<Value> {
        use crate::eval::scope::record_attr;
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
                let v = super::fields::closed_field_value(&owner, records.as_deref()?, &cur)?;
                // What evaluating the field costs HTCondor, bounded above.
                let bound = super::fields::CLOSED_FIELD_BOUND;
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
    fn tree_has_chain(&mut self) -> bool {
        let tree = &self.e.tree;
        *self
            .tree_chains
            .get_or_insert_with(|| tree.nodes().iter().any(|n| is_chain_step(tree, n)))
    }

    /// True when the subtree selects through a record or subscripts a list
    /// (`TARGET.Resources.Gpu.Count`, `TARGET.Devices[0]`): worth caching per
    /// TARGET, where the bit-mask tier and the value lanes read it as a column,
    /// instead of resolving the chain pair by pair.
    fn has_chain(&mut self, id: NodeId) -> bool {
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

    /// `c ? a : b` (`ternary`) or `ifThenElse(c, a, b)`.
    fn conditional(&mut self, c: NodeId, a: NodeId, b: NodeId, dst: u16, d: u32, ternary: bool) {
        let rc = self.reg();
        self.node(c, rc, d);
        let test = self.emit(if ternary { Op::TestTernary } else { Op::Test }, dst, rc, 0);
        let to_else = self.emit(Op::JumpIfNot, rc, 0, 0);
        self.node(a, dst, d);
        let end = self.emit(Op::Jump, 0, 0, 0);
        self.patch(to_else);
        self.node(b, dst, d);
        self.patch(end);
        self.patch(test);
    }

    fn call(&mut self, name: &str, args: &[NodeId], dst: u16, d: u32) {
        let Some(b) = find(name) else {
            // An unknown function is error, its arguments unevaluated.
            return self.konst(dst, Value::Error);
        };
        if b.name.eq_ignore_ascii_case("ifThenElse") {
            return match args {
                [c, a, e] => self.conditional(*c, *a, *e, dst, d, false),
                _ => self.konst(dst, Value::Error),
            };
        }
        if b.name.eq_ignore_ascii_case("evalInEachContext") {
            if let Some(records) = self.each_context_records(args) {
                return self.each_context(args[0], records, dst, d);
            }
        }
        if SCOPED_BUILTINS
            .iter()
            .any(|s| s.eq_ignore_ascii_case(b.name))
            || args.len() > 255
        {
            return self.reference();
        }
        let Some(native) = find_index(name) else {
            return self.reference();
        };
        let impure = IMPURE_BUILTINS
            .iter()
            .any(|s| s.eq_ignore_ascii_case(b.name));
        if let Some(v) = without_arguments(b.run, args.len()) {
            if !impure {
                // Wrong arity: the builtin answers without evaluating its arguments.
                return self.konst(dst, v);
            }
            if !args.is_empty() {
                // Whether that answer reads the clock is the builtin's business.
                return self.reference();
            }
            // The clock or chance, read by the call when it runs (`time()`,
            // `random()`): never when compiled.
        }
        if b.name.eq_ignore_ascii_case("size") && args.len() == 1 {
            // `size(TARGET.AvailableGPUs)`: a list's length needs none of its
            // elements, which may be references the machine cannot evaluate.
            if let Some(mut path) = self.chain_select(args[0], 1) {
                path.size = Some(native);
                let z = self.paths.len() as u32;
                self.paths.push(path);
                // (One level below the call, where its argument is.)
                self.emit(Op::SelectPath, dst, site(d + 1), z);
                return;
            }
        }
        if let Some(set) = self.const_set(b.name, args) {
            let rx = self.reg();
            self.node(args[0], rx, d);
            let z = self.sets.len() as u32;
            self.sets.push(set);
            self.emit(Op::Member, dst, rx, z);
            return;
        }
        if ERROR_ON_FAILED_ARGUMENT
            .iter()
            .any(|s| s.eq_ignore_ascii_case(b.name))
        {
            self.fail_needs_reference = true;
        }
        let first = self.next_reg;
        for _ in args {
            self.reg();
        }
        for (i, a) in args.iter().enumerate() {
            self.node(*a, first + i as u16, d);
        }
        self.emit(Op::Call, dst, first, (native << 8) | args.len() as u32);
    }

    /// The prepared collection of a membership builtin (`stringListMember` and
    /// `stringListIMember`, `member` and `identicalMember`) whose list argument
    /// (and delimiters) are constants: only its first argument is then evaluated,
    /// and the list is split once, here.
    fn const_set(&mut self, name: &str, args: &[NodeId]) -> Option<classad_vm::ConstSet> {
        use crate::functions::stringlist::{items, loose_text, DEFAULT_DELIMS};
        let is = |s: &str| name.eq_ignore_ascii_case(s);
        let [string_list, string_list_i, member, identical_member] = MEMBERSHIP_BUILTINS;
        if is(string_list) || is(string_list_i) {
            let list_value = self.known(*args.get(1)?)?;
            let list = loose_text(&list_value)?;
            let delims = match args.get(2) {
                None => DEFAULT_DELIMS.to_string(),
                Some(&d) => {
                    let v = self.known(d)?;
                    match loose_text(&v)? {
                        t if t.is_empty() && v.is_undefined() => DEFAULT_DELIMS.to_string(),
                        t => t,
                    }
                }
            };
            if args.len() > 3 {
                return None;
            }
            let items = items(&list, &delims).into_iter().map(Str::new).collect();
            Some(classad_vm::ConstSet::Strings {
                items,
                ignore_case: is(string_list_i),
                // An undefined list reads as empty, except to an undefined value.
                list_undefined: list_value.is_undefined(),
            })
        } else if (is(member) || is(identical_member)) && args.len() == 2 {
            let list = self.known(args[1])?;
            Some(classad_vm::ConstSet::Values {
                items: super::host::list_values(&list)?,
                identical: is(identical_member),
            })
        } else {
            None
        }
    }

    fn my_has(&self, name: &str) -> bool {
        self.my.is_some_and(|my| my.get(name).is_some())
    }

    /// An unscoped name, resolved as HTCondor's daemons do from MY's point of view.
    fn name(&mut self, name: &str, dst: u16, depth: u32) {
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
            let native = find_index("time").unwrap_or(u32::MAX);
            self.emit(Op::Call, dst, 0, native << 8);
        } else if is_scope_name(name) {
            self.reference();
        } else {
            // Not in MY: old semantics look in TARGET (undefined without one).
            let slot = self.slots.intern(name);
            self.emit(Op::LoadTarget, dst, site(depth), slot);
        }
    }

    /// MY's attribute `name`: a constant when its value cannot depend on anything
    /// but MY (a literal, or a pure expression of MY's own attributes), else a load.
    fn load_my(&mut self, name: &str, dst: u16, site: u16) {
        if let Some(facts) = self.facts.as_deref_mut() {
            if facts.certainly_fails(name) {
                // Exponential work that fails alike against every slot: fail
                // without doing it (HTCondor would spend its whole step budget).
                self.emit(Op::Fail, 0, 0, 0);
                return;
            }
            if let Some((v, depth, nodes)) = facts.constant(name) {
                // HTCondor still dereferences and evaluates it: keep the bounds.
                self.extra_depth = self.extra_depth.max(u32::from(site) + 1 + depth);
                self.extra_nodes = self.extra_nodes.saturating_add(nodes);
                return self.konst(dst, v);
            }
        }
        if self.inline_my(name, dst, site) {
            return;
        }
        let slot = self.slots.intern(name);
        self.emit(Op::LoadMy, dst, site, slot);
    }

    /// Compiles MY's attribute `name` in place of a load, when that is exact: the
    /// attribute is small, pure (no clock or chance, whose values a load would
    /// share), and not on a cycle of MY's attributes (a load detects the cycle as
    /// HTCondor does). True when done.
    fn inline_my(&mut self, name: &str, dst: u16, site: u16) -> bool {
        let Some(facts) = self.facts.as_deref_mut() else {
            return false;
        };
        let Some(e) = facts.ad.get(name).map(ExprRef::from) else {
            return false;
        };
        let key = name.to_ascii_lowercase();
        if facts.inlining.contains(&key) {
            facts.cycle = true;
            return false;
        }
        if facts.inlining.len() >= MAX_INLINE_NESTING || !inlinable(&e, e.id, &mut 0) {
            return false;
        }
        // Where the inlined code would start, counted from the outermost program.
        let base = facts.inline_base + u32::from(site) + 1;
        if base + measure(&e, e.id).0 > MAX_DEPTH {
            // The outermost program could then only go to the reference evaluator
            // (its depth bound passes the limit), where a load leaves the machine
            // to decide at run time: keep the load. This also bounds the
            // recursion of nested inlining.
            return false;
        }
        facts.inlining.push(key);
        let outer_base = std::mem::replace(&mut facts.inline_base, base);
        let sub = compile_inner(&e, Some(&mut *facts), self.slots, self.cache_targets, None);
        facts.inline_base = outer_base;
        facts.inlining.pop();
        if facts.cycle {
            // Somewhere below, an attribute reached one being inlined: give up up to
            // the outermost inlining, whose load sees the cycle at run time.
            if facts.inlining.is_empty() {
                facts.cycle = false;
            }
            return false;
        }
        // The region is guarded: an attribute being evaluated when its inlined
        // code starts is a circular reference, found as a load would find it
        // (through TARGET, say, which no compile-time check can see).
        let Ok(length) = u16::try_from(sub.code.len()) else {
            return false;
        };
        let slot = self.slots.intern(name);
        let enter = self.emit(Op::InlineEnter, dst, length, slot);
        let at = classad_vm::Placement {
            result: dst,
            first_temp: self.next_reg,
            code_base: self.code.len() as u32,
            const_base: self.consts.len() as u32,
            sub_base: self.target_only.len() as u32,
            set_base: self.sets.len() as u32,
            depth: u32::from(site) + 1,
        };
        let Some(code) = sub.relocated(&at) else {
            self.code.truncate(enter);
            return false;
        };
        let saved = self.next_reg;
        for _ in 1..sub.nregs {
            self.reg();
        }
        self.next_reg = saved;
        self.code.extend(code);
        self.emit(Op::InlineLeave, 0, 0, slot);
        self.consts.extend(sub.consts);
        self.target_only.extend(sub.target_only);
        self.sets.extend(sub.sets);
        self.fail_needs_reference |= sub.fail_needs_reference;
        // HTCondor dereferences and evaluates it there: keep the bounds.
        self.extra_depth = self.extra_depth.max(u32::from(site) + 1 + sub.max_depth);
        self.extra_nodes = self.extra_nodes.saturating_add(sub.nodes + 1);
        true
    }

    /// `base.name` where the selection node consumes depth `d`.
    fn select(&mut self, base: NodeId, name: &str, dst: u16, d: u32) {
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
            self.emit(Op::LoadTarget, dst, site(d), slot);
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
    fn chain_select(
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
    fn try_path(&mut self, id: NodeId, dst: u16, d: u32) -> bool {
        let Some(path) = self.path_select(id) else {
            return false;
        };
        let z = self.paths.len() as u32;
        self.paths.push(path);
        self.emit(Op::SelectPath, dst, site(d), z);
        true
    }

    /// The value of node `id` when it is the same in every evaluation: pure
    /// subtrees, MY's constant attributes, and operators over those. Computed with
    /// the same operator functions the machine runs, so folding is exact.
    fn known(&mut self, id: NodeId) -> Option<Value> {
        if let Some(v) = self.known.get(id) {
            return v.clone();
        }
        let v = self.compute_known(id);
        *self.known.get_mut(id) = Some(v.clone());
        v
    }

    fn compute_known(&mut self, id: NodeId) -> Option<Value> {
        use classad_vm::ops;
        let e = self.e;
        let node = e.tree.node(id);
        if matches!(
            node,
            Node::Attr { scope: Some(_), .. } | Node::Binary(BinOp::Subscript, ..)
        ) {
            if let Some(v) = self.my_chain_literal(id) {
                return Some(v);
            }
        }
        match node {
            Node::Lit(Value::RelTime(r)) => Some(Value::Real(*r)),
            Node::Lit(v) => Some(v.clone()),
            Node::Attr {
                scope: None,
                name,
                absolute: false,
            } => {
                if let Some(v) = self.overlay_value(name) {
                    return Some(v);
                }
                let site = *self.site_depth.get(id);
                self.my_known(name, site)
            }
            Node::Attr {
                scope: Some(s),
                name,
                ..
            } => match e.tree.node(*s) {
                Node::Attr {
                    scope: None,
                    name: b,
                    absolute: false,
                } if (b.eq_ignore_ascii_case("MY") || b.eq_ignore_ascii_case("self"))
                    && self.my.is_some()
                    && !self.my_has(b)
                    && !is_scope_name(name) =>
                {
                    if self.my_has(name) {
                        let site = *self.site_depth.get(id) + 1;
                        self.my_known(name, site)
                    } else {
                        Some(Value::Undefined)
                    }
                }
                _ => None,
            },
            _ if self.pure(id) => self.fold(id),
            Node::Paren(a) => self.known(*a),
            Node::Unary(op, a) => {
                let v = self.known(*a)?;
                Some(match op {
                    UnOp::Neg => ops::neg(&v),
                    UnOp::Plus => ops::plus(&v),
                    UnOp::Not => ops::not(&v),
                    UnOp::BitNot => ops::bit_not(&v),
                })
            }
            Node::Binary(BinOp::And, a, b) => {
                let x = self.known(*a)?;
                if matches!(x, Value::Error) {
                    return Some(Value::Error);
                }
                if x.as_bool_equiv() == Some(false) {
                    return Some(Value::Bool(false));
                }
                Some(ops::and(&x, &self.known(*b)?))
            }
            Node::Binary(BinOp::Or, a, b) => {
                let x = self.known(*a)?;
                if matches!(x, Value::Error) {
                    return Some(Value::Error);
                }
                if x.as_bool_equiv() == Some(true) {
                    return Some(Value::Bool(true));
                }
                Some(ops::or(&x, &self.known(*b)?))
            }
            Node::Binary(BinOp::Elvis, a, b) => {
                let x = self.known(*a)?;
                if x.is_undefined() {
                    self.known(*b)
                } else {
                    Some(x)
                }
            }
            Node::Binary(op @ (BinOp::Is | BinOp::Isnt), a, b) => {
                let (x, y) = (self.known(*a)?, self.known(*b)?);
                if matches!(x, Value::List(_) | Value::Ad(_))
                    || matches!(y, Value::List(_) | Value::Ad(_))
                {
                    // Identity of compounds depends on their representation.
                    return None;
                }
                Some(ops::compare(op.comparison()?, &x, &y))
            }
            Node::Binary(BinOp::Subscript, ..) => None,
            Node::Binary(op, a, b) => {
                let (x, y) = (self.known(*a)?, self.known(*b)?);
                if matches!(x, Value::List(_) | Value::Ad(_))
                    || matches!(y, Value::List(_) | Value::Ad(_))
                {
                    return None;
                }
                crate::eval::evaluator::strict_binary(*op, &x, &y)
            }
            Node::Ternary(c, a, b) => {
                let cond = self.known(*c)?;
                match cond {
                    Value::Undefined => Some(Value::Undefined),
                    Value::Error => Some(Value::Error),
                    _ => match cond.as_bool_equiv() {
                        // Both branches are evaluated first (see the evaluator).
                        None => {
                            self.known(*a)?;
                            self.known(*b)?;
                            Some(Value::Error)
                        }
                        Some(true) => self.known(*a),
                        Some(false) => self.known(*b),
                    },
                }
            }
            Node::Call { name, args } => self.known_call(name, args),
            _ => None,
        }
    }

    /// A builtin's value when every argument is known here as a plain value
    /// (`isUndefined(MY.Missing)`, `size(MY.Text)`): the machine would call the
    /// builtin on those same values each time (`Op::Call`), so calling it now
    /// is exact by construction. Not the clock or chance, nor builtins that
    /// read scopes or expressions, nor `ifThenElse` (compiled to jumps).
    fn known_call(&mut self, name: &str, args: &[NodeId]) -> Option<Value> {
        let listed = |list: &[&str]| list.iter().any(|s| s.eq_ignore_ascii_case(name));
        if listed(&IMPURE_BUILTINS)
            || listed(&SCOPED_BUILTINS)
            || name.eq_ignore_ascii_case("ifThenElse")
        {
            return None;
        }
        let native = find_index(name)?;
        let mut values: smallvec::SmallVec<[Value; 4]> = smallvec::SmallVec::new();
        for &a in args {
            let v = self.known(a)?;
            if matches!(v, Value::List(_) | Value::Ad(_)) {
                return None;
            }
            values.push(v);
        }
        // The very call `Op::Call` makes at run time; what it leaves to the
        // reference evaluator is not folded.
        classad_vm::Host::call(&mut super::host::VmHost, native, &values).ok()
    }

    /// MY's attribute `name` as a constant (see [`my_constant`]), charging the
    /// depth and steps HTCondor would spend on it. `site` is the depth the reference
    /// itself consumes (1 for a selection such as `MY.x`).
    fn my_known(&mut self, name: &str, site: u32) -> Option<Value> {
        if !self.my_has(name) {
            return None;
        }
        let (v, depth, nodes) = self.facts.as_deref_mut()?.constant(name)?;
        self.extra_depth = self.extra_depth.max(site + 1 + depth);
        self.extra_nodes = self.extra_nodes.saturating_add(nodes);
        Some(v)
    }

    /// True when the subtree's value depends on nothing but itself: no names, no
    /// clock or chance, no scope-dependent builtins.
    fn pure(&mut self, id: NodeId) -> bool {
        self.memoized(SubtreeQuestion::Pure, id, Gen::compute_pure)
    }

    fn compute_pure(&mut self, id: NodeId) -> bool {
        let e = self.e;
        let tree = &e.tree;
        match tree.node(id) {
            Node::Lit(_) => true,
            Node::Attr { .. } => false,
            Node::Unary(_, a) | Node::Paren(a) => self.pure(*a),
            Node::Binary(_, a, b) => self.pure(*a) && self.pure(*b),
            Node::Ternary(a, b, c) => self.pure(*a) && self.pure(*b) && self.pure(*c),
            Node::Call { name, args } => {
                let impure = |list: &[&str]| list.iter().any(|s| s.eq_ignore_ascii_case(name));
                !impure(&IMPURE_BUILTINS)
                    && !impure(&SCOPED_BUILTINS)
                    && args.iter().all(|a| self.pure(*a))
            }
            Node::List(items) => items.iter().all(|a| self.pure(*a)),
            Node::Record(attrs) => attrs.iter().all(|(_, a)| self.pure(*a)),
        }
    }

    /// The value of a pure subtree, computed now by the reference evaluator (so
    /// folding is exact by construction); `None` if its evaluation fails.
    fn fold(&self, id: NodeId) -> Option<Value> {
        Evaluator::new(true).eval(&self.e.child(id), None).ok()
    }
}

/// The key of a TARGET-only subexpression in the machine's cache: the same for
/// every occurrence of the same text, in any ad, so that jobs whose Requirements
/// share a subexpression share its value per machine. (Same text, same value: the
/// subexpression reads only TARGET, and a name in it that MY would shadow keeps it
/// from being TARGET-only in the first place, unless it is one of MY's constants,
/// whose values `my_values` lists.)
fn subexpression_key(e: &ExprRef, my_values: &str) -> u64 {
    use std::sync::{Mutex, OnceLock};
    // The keys are the process's (one text, one key, whichever thread compiles
    // it); each thread remembers those it has seen, so that compiling on every
    // core takes the shared lock only for a text new to the thread.
    static KEYS: OnceLock<Mutex<ahash::AHashMap<String, u64>>> = OnceLock::new();
    thread_local! {
        static SEEN: std::cell::RefCell<ahash::AHashMap<String, u64>> =
            std::cell::RefCell::new(ahash::AHashMap::new());
    }
    let mut text = String::new();
    crate::syntax::unparse::unparse_node(&e.tree, e.id, &mut text);
    if !my_values.is_empty() {
        // (No expression's text holds a NUL: the parser refuses one in a string.)
        text.push('\0');
        text.push_str(my_values);
    }
    if let Some(key) = SEEN.with(|s| s.borrow().get(&text).copied()) {
        return key;
    }
    let key = {
        let mut keys = KEYS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let next = keys.len() as u64;
        *keys.entry(text.clone()).or_insert(next)
    };
    SEEN.with(|s| s.borrow_mut().insert(text, key));
    key
}

/// How many attributes deep inlining goes.
const MAX_INLINE_NESTING: usize = 8;
/// The largest attribute expression inlined, in nodes.
const MAX_INLINE_NODES: u32 = 256;

/// True when attribute expression `e` may be compiled into the programs that
/// reference it: small, and without builtins whose value changes between calls
/// (`CurrentTime` included), which a load would compute once, except `time()`.
///
/// HTCondor has no memo: each reference to an attribute evaluates it again, and
/// reads the clock again. Inlining `time()` does the same; only the machine's
/// memo of a loaded attribute shares one read between references. Both read the
/// clock within one evaluation, so they differ at most where a second passes
/// mid-evaluation, as two runs of HTCondor do. Pilots' START reads `time()`:
/// inlined, the block tiers run it (one read of the clock per block).
fn inlinable(e: &ExprRef, id: NodeId, nodes: &mut u32) -> bool {
    *nodes += 1;
    if *nodes > MAX_INLINE_NODES {
        return false;
    }
    let node = e.tree.node(id);
    match node {
        Node::Attr { name, .. } if name.eq_ignore_ascii_case("CurrentTime") => return false,
        Node::Call { name, args }
            if IMPURE_BUILTINS.iter().any(|s| s.eq_ignore_ascii_case(name))
                && !(name.eq_ignore_ascii_case("time") && args.is_empty()) =>
        {
            return false
        }
        _ => {}
    }
    let mut ok = true;
    node.for_each_child(|c| ok = ok && inlinable(e, c, nodes));
    ok
}

/// True when node `id` of `e` always gives a boolean, undefined or error (a
/// comparison, a logical operator, or MY's attribute whose expression does), so
/// `true && x` is `x`. `fuel` bounds the walk through MY's attributes.
fn logical(my: Option<&ClassAd>, e: &ExprRef, id: NodeId, fuel: u32) -> bool {
    let attr = |name: &str| {
        fuel > 0
            && my
                .and_then(|m| m.get(name))
                .is_some_and(|a| logical(my, &a.to_expr_ref(), a.id, fuel - 1))
    };
    match e.tree.node(id) {
        Node::Paren(a) => logical(my, e, *a, fuel),
        Node::Unary(UnOp::Not, _) => true,
        Node::Binary(op, ..) => op.comparison().is_some() || matches!(op, BinOp::And | BinOp::Or),
        Node::Attr {
            scope: None,
            name,
            absolute: false,
        } => !is_scope_name(name) && attr(name),
        Node::Attr {
            scope: Some(s),
            name,
            absolute: false,
        } => match e.tree.node(*s) {
            Node::Attr {
                scope: None,
                name: b,
                absolute: false,
            } => {
                (b.eq_ignore_ascii_case("MY") || b.eq_ignore_ascii_case("self"))
                    && my.is_some_and(|m| m.get(b).is_none())
                    && !is_scope_name(name)
                    && attr(name)
            }
            _ => false,
        },
        _ => false,
    }
}

/// Retargets jumps that land on a jump of the same kind on the same register: a
/// `&&` chain's first false then jumps straight to the end.
fn thread_jumps(code: &mut [Instr]) {
    for i in 0..code.len() {
        let ins = code[i];
        if !matches!(ins.op, Op::JumpIfFalse | Op::JumpIfTrue) {
            continue;
        }
        let mut t = ins.z as usize;
        let mut hops = 0;
        while let Some(next) = code.get(t) {
            if next.op != ins.op || next.x != ins.x || hops > code.len() {
                break;
            }
            t = next.z as usize;
            hops += 1;
        }
        code[i].z = t as u32;
    }
}

/// The depth operand of a load: saturates, which only makes the bound stricter.
fn site(depth: u32) -> u16 {
    depth.min(u32::from(u16::MAX)) as u16
}

/// The VM comparison of a comparison operator.
/// The instruction of a binary operator; `?:` compiles to a jump and a subscript
/// to `Index` before they get here.
fn binary_op(op: BinOp) -> Op {
    op.binary().map_or(Op::Index, Op::of_binary)
}

/// The depth each node's ancestors consume, as `Gen::node` counts it.
fn ancestors_depth(e: &ExprRef, id: NodeId, depth: u32, out: &mut NodeMap<u32>) {
    *out.get_mut(id) = depth;
    let d = depth + 1;
    match e.tree.node(id) {
        Node::Lit(_) | Node::Attr { scope: None, .. } => {}
        Node::Attr { scope: Some(s), .. } => ancestors_depth(e, *s, d, out),
        Node::Unary(_, a) | Node::Paren(a) => ancestors_depth(e, *a, d, out),
        Node::Binary(_, a, b) => {
            ancestors_depth(e, *a, d, out);
            ancestors_depth(e, *b, d, out);
        }
        Node::Ternary(a, b, c) => {
            for x in [a, b, c] {
                ancestors_depth(e, *x, d, out);
            }
        }
        Node::Call { args, .. } | Node::List(args) => {
            for x in args {
                ancestors_depth(e, *x, d, out);
            }
        }
        Node::Record(attrs) => {
            for (_, x) in attrs {
                ancestors_depth(e, *x, d, out);
            }
        }
    }
}

/// What is known of MY's attributes while compiling one ad: which are constants
/// (see [`MyFacts::constant`]), memoized, because attributes reach each other.
pub(crate) struct MyFacts {
    ad: Arc<ClassAd>,
    /// Attribute expression (tree, node) -> its cost when it only reaches MY.
    closed: std::collections::HashMap<(usize, NodeId), Option<Cost>>,
    /// Attribute expression -> a depth it is known to pass (see `attr_cost`).
    deeper_than: std::collections::HashMap<(usize, NodeId), u32>,
    constants: std::collections::HashMap<String, Option<(Value, u32, u32)>>,
    /// The attributes being inlined, outermost first (lower case).
    inlining: Vec<String>,
    /// Set when an inlined attribute reached one of `inlining`.
    cycle: bool,
    /// The depth at which the attribute being inlined starts, counted from the
    /// outermost program (0 outside inlining).
    inline_base: u32,
}

impl MyFacts {
    pub(crate) fn new(ad: Arc<ClassAd>) -> MyFacts {
        MyFacts {
            ad,
            closed: Default::default(),
            deeper_than: Default::default(),
            constants: Default::default(),
            inlining: Vec::new(),
            cycle: false,
            inline_base: 0,
        }
    }

    /// The value of MY's attribute `name` when it depends on nothing but MY: a
    /// literal, or an expression whose names all resolve, acyclically, to MY's own
    /// attributes, with no clock, chance or scope-dependent builtins. Also the
    /// depth and steps HTCondor spends evaluating it (upper bounds). Such a value is
    /// the same in every match, so it is computed once, by the reference evaluator.
    fn constant(&mut self, name: &str) -> Option<(Value, u32, u32)> {
        let key = name.to_ascii_lowercase();
        if let Some(c) = self.constants.get(&key) {
            return c.clone();
        }
        let c = self.compute_constant(name);
        self.constants.insert(key, c.clone());
        c
    }

    fn compute_constant(&mut self, name: &str) -> Option<(Value, u32, u32)> {
        let e = self.ad.get(name)?.to_expr_ref();
        if let Node::Lit(v) = e.node() {
            let v = match v {
                Value::RelTime(r) => Value::Real(*r),
                v => v.clone(),
            };
            return Some((v, 0, 1));
        }
        let mut visiting = Vec::new();
        let Cost { depth, most, .. } =
            self.attr_cost(&e, MAX_CONSTANT_DEPTH, &mut visiting).ok()?;
        if most > 100_000 {
            return None;
        }
        let v =
            crate::eval::eval_attr(&self.ad, name, None, crate::eval::Semantics::Htcondor).ok()?;
        Some((v, depth, most as u32))
    }

    /// True when evaluating MY's attribute `name` certainly fails, in any match:
    /// it depends on nothing but MY, and evaluates more nodes than HTCondor's step
    /// limit allows even along the operands every evaluation of it must evaluate
    /// (`A0 = A1 + A1; ... A30 = 1`). Whatever the evaluation spent before reaching
    /// it only brings the limit closer, so the answer is the same for every slot
    /// and needs no evaluation at all.
    fn certainly_fails(&mut self, name: &str) -> bool {
        let Some(e) = self.ad.get(name).map(|e| e.to_expr_ref()) else {
            return false;
        };
        self.attr_cost(&e, MAX_CONSTANT_DEPTH, &mut Vec::new())
            .is_ok_and(|c| c.least > crate::eval::evaluator::MAX_STEPS)
    }

    /// The cost of evaluating attribute expression `e` when it only reaches MY's
    /// attributes; `Err(NotClosed::Open)` otherwise, or on a cycle, and
    /// `Err(NotClosed::TooDeep)` when the depth passes `budget`.
    ///
    /// The budget bounds the recursion (a chain of any length is refused after
    /// `budget` levels); a refusal is remembered with the budget it passed.
    fn attr_cost(
        &mut self,
        e: &ExprRef,
        budget: u32,
        visiting: &mut Vec<(usize, NodeId)>,
    ) -> Result<Cost, NotClosed> {
        let key = (Arc::as_ptr(&e.tree) as usize, e.id);
        if let Some(c) = self.closed.get(&key) {
            return match *c {
                Some(c) if c.depth > budget => Err(NotClosed::TooDeep),
                Some(c) => Ok(c),
                None => Err(NotClosed::Open),
            };
        }
        if self.deeper_than.get(&key).is_some_and(|&b| budget <= b) {
            return Err(NotClosed::TooDeep);
        }
        if visiting.contains(&key) {
            return Err(NotClosed::Open);
        }
        visiting.push(key);
        let c = self.cost(e, e.id, budget, visiting);
        visiting.pop();
        match c {
            Ok(c) => {
                self.closed.insert(key, Some(c));
            }
            Err(NotClosed::Open) => {
                self.closed.insert(key, None);
            }
            Err(NotClosed::TooDeep) => {
                self.deeper_than.insert(key, budget);
            }
        }
        c
    }

    fn cost(
        &mut self,
        e: &ExprRef,
        id: NodeId,
        budget: u32,
        visiting: &mut Vec<(usize, NodeId)>,
    ) -> Result<Cost, NotClosed> {
        // `mandatory` of the children are evaluated whenever the node is (the rest
        // only on some paths: the right side of `&&`, a branch, a call's arguments).
        let kids =
            |ids: &[NodeId], mandatory: usize, me: &mut MyFacts, v: &mut Vec<(usize, NodeId)>| {
                // An operation is one level above its operands.
                let below = budget.checked_sub(1).ok_or(NotClosed::TooDeep)?;
                ids.iter()
                    .enumerate()
                    .try_fold(Cost::leaf(), |acc, (i, &c)| {
                        let k = me.cost(e, c, below, v)?;
                        Ok(Cost {
                            depth: acc.depth.max(k.depth + 1),
                            most: acc.most.saturating_add(k.most),
                            least: if i < mandatory {
                                acc.least.saturating_add(k.least)
                            } else {
                                acc.least
                            },
                        })
                    })
            };
        let reach = |name: &str, site: u32, me: &mut MyFacts, v: &mut Vec<(usize, NodeId)>| {
            let target = me.ad.get(name).ok_or(NotClosed::Open)?.to_expr_ref();
            let below = budget.checked_sub(site + 1).ok_or(NotClosed::TooDeep)?;
            let c = me.attr_cost(&target, below, v)?;
            Ok(Cost {
                depth: site + 1 + c.depth,
                most: c.most.saturating_add(1),
                least: c.least.saturating_add(1),
            })
        };
        match e.tree.node(id) {
            Node::Lit(_) => Ok(Cost::leaf()),
            Node::Attr {
                scope: None,
                name,
                absolute: false,
            } if !is_scope_name(name) => reach(name, 0, self, visiting),
            Node::Attr {
                scope: Some(s),
                name,
                ..
            } => match e.tree.node(*s) {
                Node::Attr {
                    scope: None,
                    name: b,
                    absolute: false,
                } if (b.eq_ignore_ascii_case("MY") || b.eq_ignore_ascii_case("self"))
                    && self.ad.get(b).is_none()
                    && !is_scope_name(name) =>
                {
                    reach(name, 1, self, visiting)
                }
                _ => Err(NotClosed::Open),
            },
            // A list of literals is the same list in every match (`AllowedGroups =
            // { "physics", "bio" }`): its elements evaluate to themselves in any
            // scope. Any other list or record holds names resolved where it is
            // used.
            Node::List(items)
                if items
                    .iter()
                    .all(|&i| matches!(e.tree.node(i), Node::Lit(_))) =>
            {
                kids(items, 0, self, visiting)
            }
            Node::Attr { .. } | Node::List(_) | Node::Record(_) => Err(NotClosed::Open),
            Node::Unary(_, a) | Node::Paren(a) => kids(&[*a], 1, self, visiting),
            Node::Binary(op, a, b) => {
                let mandatory = match op {
                    BinOp::And | BinOp::Or | BinOp::Elvis => 1,
                    _ => 2,
                };
                kids(&[*a, *b], mandatory, self, visiting)
            }
            Node::Ternary(a, b, c) => kids(&[*a, *b, *c], 1, self, visiting),
            Node::Call { name, args } => {
                let listed = |list: &[&str]| list.iter().any(|s| s.eq_ignore_ascii_case(name));
                if listed(&IMPURE_BUILTINS)
                    || listed(&SCOPED_BUILTINS)
                    || listed(&ERROR_ON_FAILED_ARGUMENT)
                {
                    return Err(NotClosed::Open);
                }
                // A builtin may leave its arguments unevaluated (a wrong count,
                // `ifThenElse`): none counts as certain.
                kids(args, 0, self, visiting)
            }
        }
    }
}

/// The deepest MY attribute folded into a constant (HTCondor's limit is 400; the
/// margin leaves room for the references that reach it).
const MAX_CONSTANT_DEPTH: u32 = 300;

/// What evaluating an expression of MY's own attributes costs HTCondor: the depth it
/// reaches, and the nodes it evaluates at most (every operand and branch) and at
/// least (only the operands every evaluation evaluates). Node counts saturate.
#[derive(Clone, Copy, Debug)]
struct Cost {
    depth: u32,
    most: u64,
    least: u64,
}

impl Cost {
    /// One node, no depth below it.
    fn leaf() -> Cost {
        Cost {
            depth: 0,
            most: 1,
            least: 1,
        }
    }
}

/// Why an attribute is not one of MY's constants (see [`MyFacts::attr_cost`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NotClosed {
    /// It reaches something other than MY's attributes, or a cycle.
    Open,
    /// It nests deeper than the budget.
    TooDeep,
}

/// What builtin `run` gives with `argc` arguments when it does not evaluate any of
/// them (a wrong number of arguments); `None` when it asks for an argument. The
/// machine evaluates arguments before the call, so such calls must not reach it:
/// an argument could fail where HTCondor never evaluates it.
fn without_arguments(run: crate::functions::BuiltinFn, argc: usize) -> Option<Value> {
    struct Probe {
        argc: usize,
        asked: bool,
    }
    impl crate::functions::Call for Probe {
        fn argc(&self) -> usize {
            self.argc
        }
        fn arg(&mut self, _: usize) -> Result<Value, crate::eval::Fail> {
            self.asked = true;
            Err(crate::eval::Fail)
        }
        fn arg_expr(&self, _: usize) -> ExprRef {
            ExprRef::root_of(Arc::new(crate::syntax::ast::Expr::literal(
                Value::Undefined,
            )))
        }
        fn referenced(
            &mut self,
            _: usize,
        ) -> Result<
            (
                Option<crate::eval::scope::Found>,
                Option<Arc<crate::eval::scope::Scope>>,
            ),
            crate::functions::RefError,
        > {
            self.asked = true;
            Err(crate::functions::RefError::Failed)
        }
        fn eval_source(&mut self, _: &str) -> Result<Value, crate::eval::Fail> {
            self.asked = true;
            Err(crate::eval::Fail)
        }
        fn arg_lenient(&mut self, _: usize, _: Option<Arc<crate::eval::scope::Scope>>) -> Value {
            self.asked = true;
            Value::Error
        }
        fn eval_in_ad(
            &mut self,
            _: &ExprRef,
            _: &Value,
            _: Option<Arc<crate::eval::scope::Scope>>,
        ) -> Result<Value, crate::eval::Fail> {
            self.asked = true;
            Err(crate::eval::Fail)
        }
        fn list_item(&mut self, _: &Value, _: usize) -> Result<Value, crate::eval::Fail> {
            self.asked = true;
            Err(crate::eval::Fail)
        }
        fn scope(&self) -> Option<Arc<crate::eval::scope::Scope>> {
            None
        }
        fn evaluator(&mut self) -> Option<&mut Evaluator> {
            None
        }
    }
    let mut probe = Probe { argc, asked: false };
    let r = run(&mut probe);
    match r {
        Ok(v) if !probe.asked => Some(v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;
    use crate::eval::{eval_in, Semantics};
    use crate::syntax::parse_expr;

    fn ad(text: &str) -> Arc<ClassAd> {
        Arc::new(read_ads(text, "t").unwrap().remove(0))
    }

    /// The program of `expr` in `my`, after checking that the VM gives exactly
    /// what the reference evaluator gives against `target`.
    fn compiled(expr: &str, my: &str, target: &str) -> Program {
        let (my, target) = (ad(my), ad(target));
        let e = ExprRef::root_of(Arc::new(parse_expr(expr).unwrap()));
        let reference = eval_in(&e, &my, Some(&target), Semantics::Htcondor);
        let vm =
            crate::compile::try_eval(&e, Some(&my), Some(&target)).expect("runs on the machine");
        assert_eq!(format!("{vm:?}"), format!("{reference:?}"), "{expr}");
        compile_expr(&e, Some(&my), &mut SlotTable::new())
    }

    fn ops(p: &Program) -> Vec<Op> {
        p.code.iter().map(|i| i.op).collect()
    }

    #[test]
    fn comparisons_with_constants_read_target_attributes_in_place() {
        let p = compiled("TARGET.Arch == \"x86_64\"", "A = 1", "Arch = \"X86_64\"");
        assert_eq!(ops(&p), [Op::CmpTK, Op::Ret]);
        // A constant on the left swaps the comparison.
        let p = compiled("4 < Cpus", "A = 1", "Cpus = 8");
        assert_eq!(ops(&p), [Op::CmpTK, Op::Ret]);
        let p = compiled(
            "MY.Cpus <= TARGET.RequestCpus",
            "Cpus = 2",
            "RequestCpus = 1",
        );
        assert_eq!(ops(&p), [Op::CmpTK, Op::Ret]);
        // TARGET's attribute may itself be an expression.
        compiled("TARGET.Cpus >= 3", "A = 1", "Cpus = B + 1\nB = 2");
        compiled("TARGET.Missing =?= undefined", "A = 1", "B = 1");
    }

    #[test]
    fn my_attributes_are_inlined_unless_on_a_cycle() {
        let my = "Start = true\nLimits = MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus\nCpus = 4\n\
                  Requirements = Start && (Limits)";
        let p = compiled("Requirements", my, "RequestCpus = 2");
        assert!(!ops(&p).contains(&Op::LoadMy), "{p}");
        // A -> B -> A: both stay loads, and the cycle gives what HTCondor gives.
        let cyclic = "A = B && TARGET.X > 1\nB = A || TARGET.X < 5\nR = A";
        let p = compiled("R", cyclic, "X = 3");
        assert!(ops(&p).contains(&Op::LoadMy), "{p}");
        compiled("B", cyclic, "X = 3");
        // The clock is read where HTCondor reads it, once per reference, and
        // never when compiled; chance stays a load.
        let p = compiled("T > 0", "T = time()", "X = 1");
        assert_eq!(
            ops(&p),
            [
                Op::InlineEnter,
                Op::Call,
                Op::InlineLeave,
                Op::CmpK,
                Op::Ret
            ]
        );
        let p = compiled("T > 0", "T = random()", "X = 1");
        assert!(ops(&p).contains(&Op::LoadMy), "{p}");
    }

    #[test]
    fn neutral_operands_of_logic_fold_away() {
        let p = compiled("true && TARGET.X > 1", "A = 1", "X = 3");
        assert_eq!(ops(&p), [Op::CmpTK, Op::Ret]);
        let p = compiled("TARGET.X > 1 || false", "A = 1", "X = 3");
        assert_eq!(ops(&p), [Op::CmpTK, Op::Ret]);
        // A value that is not always logical keeps its `&&`: `true && 5` is true.
        let p = compiled("true && TARGET.X", "A = 1", "X = 5");
        assert!(ops(&p).contains(&Op::And) || ops(&p).contains(&Op::JumpIfFalse));
        compiled("true && TARGET.X", "A = 1", "X = \"s\"");
    }

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

    #[test]
    fn membership_in_constant_lists_is_prepared_once() {
        let my = "Groups = \"a, b ,c\"\nNums = { 1, 2.5, \"x\" }";
        for target in [
            "G = \"b\"",
            "G = \"B\"",
            "G = 2.5",
            "G = undefined",
            "G = error",
            "X = 1",
        ] {
            for expr in [
                "stringListMember(TARGET.G, MY.Groups)",
                "stringListIMember(TARGET.G, Groups)",
                "stringListMember(TARGET.G, \"a;b\", \";\")",
                "stringListMember(TARGET.G, \"b c\", undefined)",
                "identicalMember(TARGET.G, { 2.5, undefined, \"B\" })",
                "member(TARGET.G, { \"B\", 1 })",
            ] {
                let p = compiled(expr, my, target);
                assert!(ops(&p).contains(&Op::Member), "{expr}\n{p}");
            }
        }
        // MY's list of literals is a constant set too.
        for expr in [
            "member(TARGET.G, MY.Nums)",
            "identicalMember(TARGET.G, Nums)",
        ] {
            let p = compiled(expr, my, "G = 2.5");
            assert!(ops(&p).contains(&Op::Member), "{expr}\n{p}");
        }
        // A list whose elements are names stays a call, and agrees.
        let e = ExprRef::root_of(Arc::new(parse_expr("member(TARGET.G, MY.Names)").unwrap()));
        let my = ad("Names = { A, 2 }\nA = 1");
        let p = compile_expr(&e, Some(&my), &mut SlotTable::new());
        assert!(!ops(&p).contains(&Op::Member), "{p}");
        let p = compiled("member(1, TARGET.L)", "A = 1", "L = { 1 }");
        assert!(!ops(&p).contains(&Op::Member), "{p}");
    }

    /// `A0 = A1 + A1; ... A{n} = 1`: `A{k}` evaluates about 3 * 2^(n-k) nodes.
    fn doubling_ad(n: usize, requirements: &str) -> String {
        let mut s: String = (0..n)
            .map(|i| format!("A{i} = A{} + A{}\n", i + 1, i + 1))
            .collect();
        s.push_str(&format!("A{n} = 1\nRequirements = {requirements}\n"));
        s
    }

    #[test]
    fn my_attributes_past_the_step_limit_fail_without_evaluation() {
        let my = doubling_ad(30, "A0 > 0 && TARGET.Cpus > 0");
        // Every evaluation must evaluate A0's 3 * 2^30 nodes: it fails against any
        // slot, as HTCondor's does at its 10,000,000th step.
        let p = compiled("Requirements", &my, "Cpus = 1");
        assert!(ops(&p).contains(&Op::Fail), "{p}");
        // A8 must evaluate about 12.6 million nodes, A9 6.3 million: A9 has a value.
        let program = |name: &str| {
            let e = ExprRef::root_of(Arc::new(parse_expr(name).unwrap()));
            compile_expr(&e, Some(&ad(&my)), &mut SlotTable::new())
        };
        assert!(ops(&program("A8")).contains(&Op::Fail));
        assert!(
            !ops(&program("A9")).contains(&Op::Fail),
            "{}",
            program("A9")
        );
        // The failure comes only where the operand is evaluated, and is HTCondor's
        // whatever surrounds it (`compiled` holds the VM against the reference).
        for expr in [
            "A30 > 0 || A0",
            "ifThenElse(TARGET.Cpus > 0, 1, A0)",
            "false ? A0 : 2",
        ] {
            compiled(expr, &my, "Cpus = 1");
        }
        compiled("ifThenElse(TARGET.Cpus > 0, 1, A0)", &my, "Cpus = 0");
    }

    #[test]
    fn membership_in_an_undefined_list_keeps_undefined_undefined() {
        // HTCondor: both first arguments undefined give undefined; the set made of
        // an undefined list must say so, not read the value as "" (issue 9).
        let my = "Undef = undefined\nNone = \"\"";
        for target in ["G = \"a\"", "G = undefined", "G = 1", "G = error", "X = 1"] {
            for expr in [
                "stringListMember(TARGET.G, undefined)",
                "!stringListMember(TARGET.G, MY.Missing)",
                "stringListIMember(TARGET.G, MY.Undef)",
                "stringListMember(TARGET.G, Undef, \",\")",
                "stringListIMember(TARGET.G, undefined, undefined)",
                "stringListMember(TARGET.G, MY.None)",
            ] {
                let p = compiled(expr, my, target);
                assert!(ops(&p).contains(&Op::Member), "{expr}\n{p}");
            }
        }
    }

    #[test]
    fn identity_of_constants_folds() {
        let p = compiled("MY.Gone =?= true", "A = 1", "X = 1");
        assert_eq!(ops(&p), [Op::Const, Op::Ret]);
        let p = compiled("Start =!= false", "Start = true", "X = 1");
        assert_eq!(ops(&p), [Op::Const, Op::Ret]);
    }

    #[test]
    fn eval_in_each_context_over_my_records_compiles_in_place() {
        let my = "catalogs = { [ Catalog = \"genomes\"; Key = \"Group\"; Scope = \"bio\"; Size = 100 ], \
                  [ Catalog = \"lhc\"; catalog = \"cms\"; Key = \"Owner\"; Scope = \"carol\"; Size = 7 ] }\n\
                  Site = \"ap40\"";
        let target = "Wanted = { \"genomes\", \"cms\" }\nGid = \"ap40#1\"\nGroup = \"bio\"\nOwner = \"dave\"";
        for expr in [
            "sum(evalInEachContext(member(Catalog, Wanted) && string(TARGET[Key]) == Scope \
             && split(Gid, \"#\")[0] == Site ? Size : 0, catalogs))",
            "evalInEachContext(member(Catalog, Wanted) ? Size : 0, catalogs)",
            "evalInEachContext(TARGET[Key], { [ Key = \"Owner\" ], [ Key = \"Gid\" ] })",
        ] {
            let p = compiled(expr, my, target);
            let ops = ops(&p);
            assert!(
                ops.contains(&Op::FreshEnter) && ops.contains(&Op::List),
                "{expr}: {p}"
            );
            assert!(!ops.contains(&Op::Reference), "{expr}: {p}");
        }
        // An attribute reference is what HTCondor evaluates in each record.
        let e = ExprRef::root_of(Arc::new(
            parse_expr("evalInEachContext(Site, catalogs)").unwrap(),
        ));
        let p = compile_expr(&e, Some(&ad(my)), &mut SlotTable::new());
        assert!(ops(&p).contains(&Op::Reference), "{p}");
    }

    #[test]
    fn calls_on_my_constants_fold() {
        let my = "Text = \"a,b,c\"\nN = 2.5\nSites = \"x, y\"\nSite = \"y\"";
        for expr in [
            "isUndefined(MY.Missing)",
            "size(MY.Text)",
            "size(Text) + 1",
            "floor(N) * 2",
            "toUpper(substr(Text, N))",
            "stringListMember(Site, Sites)",
            "strcat(Text, MY.Missing)",
            "isUndefined(MY.Missing) || MY.Missing",
            "int(\"x\" + N)",
        ] {
            let p = compiled(expr, my, "Missing = 1");
            assert_eq!(ops(&p), [Op::Const, Op::Ret], "{expr}: {p}");
        }
        // Not the clock, nor what reads TARGET (`Missing` is TARGET's, MY lacking it).
        for expr in ["time() + N", "size(Missing)", "strcat(Text, Missing)"] {
            let p = compiled(expr, my, "Missing = \"abc\"");
            assert_ne!(ops(&p), [Op::Const, Op::Ret], "{expr}: {p}");
        }
    }

    #[test]
    fn a_false_conjunct_jumps_straight_to_the_end() {
        let p = compiled(
            "TARGET.A == 1 && TARGET.B == 2 && TARGET.C == 3",
            "X = 1",
            "A = 0\nB = 2\nC = 3",
        );
        let end = (p.code.len() - 1) as u32;
        for i in p.code.iter().filter(|i| i.op == Op::JumpIfFalse) {
            assert_eq!(i.z, end, "{p}");
        }
    }
}
