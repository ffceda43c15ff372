//! TARGET-only caching: subexpressions that read only TARGET, computed once per
//! TARGET ad and shared, by text, across the programs of a pool.

use super::emit::reg8;
use super::{compile_inner, is_scope_name, site, Gen, SubtreeQuestion, MEMBERSHIP_BUILTINS};
use crate::functions::{IMPURE_BUILTINS, SCOPED_BUILTINS};
use crate::syntax::ast::{BinOp, ExprRef, Node, NodeId};
use classad_vm::instr::form;
use classad_vm::{Op, Value};

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

impl Gen<'_> {
    /// A subexpression that depends only on TARGET, compiled on its own and run
    /// through the machine's per-TARGET cache (see `Op::TargetCached`).
    pub(super) fn target_cached(&mut self, id: NodeId, dst: u16, depth: u32) {
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
        self.folded_steps = self.folded_steps.saturating_add(sub.folded_steps);
        let mut folded = String::new();
        self.my_scalars_in(id, &mut folded);
        let key = subexpression_key(&self.e.child(id), &folded);
        let i = self.target_only.len() as u32;
        self.target_only.push(classad_vm::TargetOnly::new(key, sub));
        // The sub's depths count from its own root; `y` says where that root sits.
        let (dst, depth) = (reg8(dst), site(depth));
        self.push(form::TargetCached { dst, depth, sub: i }.instr(Op::TargetCached));
    }

    /// True when the subtree reads nothing but TARGET's attributes and constants:
    /// no name MY defines, no scope names, nothing impure or scope-dependent.
    pub(super) fn target_only(&mut self, id: NodeId) -> bool {
        self.memoized(SubtreeQuestion::TargetOnly, id, Gen::compute_target_only)
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
    pub(super) fn has_call(&mut self, id: NodeId) -> bool {
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
}
