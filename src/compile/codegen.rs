//! Expression trees to register bytecode, for one ad's point of view.
//!
//! A program is compiled for the ad it belongs to (MY), because how a name resolves
//! depends on that ad: `x` is MY's `x` when MY has one, else (HTCondor's daemons'
//! old semantics) the TARGET's. Anything that needs scopes beyond MY and TARGET
//! (nested records, `parent`, absolute `.x`, `LEFT`, lists of expressions, the
//! builtins in [`SCOPED_BUILTINS`]) compiles to `Reference`, which hands the whole
//! evaluation to the reference evaluator: exactness first, speed where it matters.
//!
//! The compiler's passes, a module each:
//!
//! - [`my_facts`]: what is known of MY before any expression is compiled: which
//!   attributes are constants, what they cost HTCondor, which must fail;
//! - [`scopes`]: name resolution: what each name and selection chain reaches;
//! - [`fold`]: constant folding, by the reference evaluator's own rules;
//! - [`inline`]: MY's small attributes compiled in place of their loads;
//! - [`target_only`]: subexpressions that read only TARGET, cached per TARGET ad;
//! - [`calls`]: builtin calls, and membership in constant lists;
//! - [`emit`]: the walk that writes the instructions, asking the analyses above
//!   about each node (each answers once per node: see [`node_map`]);
//! - [`jumps`]: jump threading, over the emitted code.
//!
//! This module holds what they share: the generator's state ([`Gen`]), and the
//! depth and size measures HTCondor's limits are checked with.

use crate::ad::ClassAd;
use crate::eval::Evaluator;
use crate::functions::SCOPED_BUILTINS;
use crate::syntax::ast::{BinOp, ExprRef, Node, NodeId};
use classad_vm::instr::form;
use classad_vm::{Instr, Op, Program, SlotTable, Value};
use std::sync::Arc;

mod calls;
mod each_context;
mod emit;
mod fold;
mod inline;
mod jumps;
mod my_facts;
mod node_map;
mod scopes;
mod target_only;
#[cfg(test)]
mod test_support;

use node_map::NodeMap;

use calls::MEMBERSHIP_BUILTINS;
use jumps::thread_jumps;
use my_facts::without_arguments;
pub(crate) use my_facts::MyFacts;
pub(crate) use scopes::{intern_chains, is_scope_name, MAX_PATH};

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
            code: vec![form::Stop {}.instr(Op::Reference)],
            consts: Vec::new(),
            nregs: 1,
            max_depth,
            nodes,
            ..Program::default()
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
        folded_steps: 0,
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
    let ret = form::Ret { src: 0 }.instr(Op::Ret);
    g.code.push(ret);
    thread_jumps(&mut g.code);
    if g.max_reg > u16::from(u8::MAX) {
        // Too many live temporaries for 8-bit registers: leave it to the reference.
        g.code = vec![form::Stop {}.instr(Op::Reference)];
    }
    Program {
        code: g.code,
        consts: g.consts,
        nregs: g.max_reg,
        max_depth: max_depth.max(g.extra_depth),
        nodes: nodes.saturating_add(g.extra_nodes),
        folded_steps: g.folded_steps,
        target_only: g.target_only,
        sets: g.sets,
        fail_needs_reference: g.fail_needs_reference,
        paths: g.paths,
        lane_depth: Default::default(),
    }
}

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
    /// Exact steps of the larger constants folded (see `Program::folded_steps`).
    folded_steps: u32,
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
}

/// The depth operand of a load: saturates, which only makes the bound stricter.
fn site(depth: u32) -> u16 {
    depth.min(u32::from(u16::MAX)) as u16
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
