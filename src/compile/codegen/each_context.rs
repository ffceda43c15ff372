//! `evalInEachContext(expr, records)` compiled in place: `expr` once per record
//! of a list literal that MY holds (a pilot's `catalogs`), with the record's
//! literal fields as constants.
//!
//! HTCondor evaluates `expr` in each record as a fresh evaluation: a name the
//! record lacks is looked up in MY (the scope the list was written in) and then
//! in TARGET, with nothing being evaluated around it. The compiled code is exact
//! while it reads only literals, which a fresh evaluation reads as any other
//! does: MY's names must be its constants, and the code sits between
//! `FreshEnter` and `FreshLeave`, which hand the pair to the reference
//! evaluator when it read an attribute that is code. `TARGET[k]`, for `k` a
//! string known here that is spelled as an attribute name, is then TARGET's
//! attribute `k` (HTCondor evaluates it as a fresh evaluation too); such
//! strings of records are interned with the ad's names (`fields::intern_tree`),
//! so that compiling adds no name to the slot table.
//!
//! What the expansion does not model is left to the reference evaluator, as the
//! call was before: `expr` an attribute reference (HTCondor then evaluates the
//! expression it refers to), scopes (`MY`, `parent`, ...), selections from
//! anything but `TARGET`, list and record literals, scoped builtins, and
//! records with anything but literals.

use super::emit::reg8;
use super::{is_scope_name, measure, site, Gen, Overlay, SCOPED_BUILTINS};
use crate::compile::fields::may_name_attribute;
use crate::functions::find;
use crate::syntax::ast::{BinOp, ExprRef, Node, NodeId};
use classad_vm::instr::form;
use classad_vm::{Op, Value};

/// The most records expanded: each holds a register until the list is made.
const MAX_RECORDS: usize = 32;

impl Gen<'_> {
    /// The value of the current record's field `name` (see [`Gen::overlay`]).
    pub(super) fn overlay_value(&self, name: &str) -> Option<Value> {
        let fields = self.overlay.as_ref()?;
        fields
            .iter()
            .rev()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    }

    /// True when the current record has field `name`.
    pub(super) fn overlay_has(&self, name: &str) -> bool {
        self.overlay
            .as_ref()
            .is_some_and(|f| f.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)))
    }

    /// An unscoped name in a record's evaluation: the record's field, else MY's
    /// constant, else TARGET's attribute; MY's attributes that are code, and
    /// the scope names, are left to the reference evaluator.
    pub(super) fn name_in_record(&mut self, name: &str, dst: u16, depth: u32) {
        if let Some(v) = self.overlay_value(name) {
            return self.konst(dst, v);
        }
        if self.my_has(name) {
            return match self.my_known(name, u32::from(site(depth))) {
                Some(v) => self.konst(dst, v),
                None => self.reference(),
            };
        }
        if is_scope_name(name) {
            return self.reference();
        }
        let slot = self.slots.intern(name);
        self.load(Op::LoadTarget, dst, site(depth), slot);
    }

    /// The name `TARGET[k]` reads, in a record's evaluation, when `k` is a
    /// string known here (`TARGET[CatalogScopeType]`).
    pub(super) fn target_key(&mut self, base: NodeId, key: NodeId) -> Option<String> {
        if self.overlay.is_none() || !self.is_bare_target(base) {
            return None;
        }
        match self.known(key)? {
            Value::Str(k) if !is_scope_name(k.as_str()) && may_name_attribute(k.as_str()) => {
                Some(k.as_str().to_string())
            }
            _ => None,
        }
    }

    /// True for the unscoped name `TARGET` where it means TARGET.
    fn is_bare_target(&self, id: NodeId) -> bool {
        matches!(
            self.e.tree.node(id),
            Node::Attr { scope: None, name, absolute: false } if name.eq_ignore_ascii_case("TARGET")
        ) && !self.my_has("TARGET")
            && !self.overlay_has("TARGET")
    }

    /// The records of `evalInEachContext(expr, list)` as overlays, when the
    /// call can be compiled in place (see the module doc).
    pub(super) fn each_context_records(&mut self, args: &[NodeId]) -> Option<Vec<Overlay>> {
        let [expr, list] = *args else {
            return None;
        };
        let my = self.my?;
        if self.overlay.is_some() {
            return None;
        }
        let mut x = expr;
        while let Node::Paren(a) = self.e.tree.node(x) {
            x = *a;
        }
        if matches!(self.e.tree.node(x), Node::Attr { .. }) || !self.fresh_compilable(expr) {
            return None;
        }
        let list: ExprRef = match self.e.tree.node(list) {
            Node::List(_) => self.e.child(list),
            Node::Attr {
                scope: None,
                name,
                absolute: false,
            } if !is_scope_name(name) => ExprRef::from(my.get(name)?),
            _ => return None,
        };
        let Node::List(items) = list.node() else {
            return None;
        };
        if items.len() > MAX_RECORDS {
            return None;
        }
        let mut records = Vec::with_capacity(items.len());
        for &item in items {
            let Node::Record(attrs) = list.tree.node(item) else {
                return None;
            };
            let mut fields = Vec::with_capacity(attrs.len());
            for (name, value) in attrs {
                let value = match list.tree.node(*value) {
                    Node::Lit(v) if v.is_scalar() => v.clone(),
                    _ => return None,
                };
                if is_scope_name(name) {
                    return None;
                }
                fields.push((name.as_str().to_string(), value));
            }
            records.push(Overlay::from(fields));
        }
        Some(records)
    }

    /// True when the expansion compiles subtree `id` exactly (see the module
    /// doc).
    fn fresh_compilable(&self, id: NodeId) -> bool {
        let tree = &self.e.tree;
        match tree.node(id) {
            Node::Lit(_) => true,
            Node::Attr {
                scope: None,
                name,
                absolute: false,
            } => !is_scope_name(name),
            Node::Attr {
                scope: Some(s),
                name,
                absolute: false,
            } => self.is_bare_target(*s) && !is_scope_name(name),
            Node::Attr { .. } | Node::List(_) | Node::Record(_) => false,
            // A subscript of TARGET, or of what a builtin made: not of a name
            // (a chain through MY's records, which a record's field may shadow).
            Node::Binary(BinOp::Subscript, a, b) => {
                (self.is_bare_target(*a)
                    || matches!(tree.node(*a), Node::Call { .. }) && self.fresh_compilable(*a))
                    && self.fresh_compilable(*b)
            }
            Node::Binary(_, a, b) => self.fresh_compilable(*a) && self.fresh_compilable(*b),
            Node::Unary(_, a) | Node::Paren(a) => self.fresh_compilable(*a),
            Node::Ternary(a, b, c) => {
                self.fresh_compilable(*a) && self.fresh_compilable(*b) && self.fresh_compilable(*c)
            }
            Node::Call { name, args } => {
                find(name).is_some()
                    && !SCOPED_BUILTINS.iter().any(|s| s.eq_ignore_ascii_case(name))
                    && args.iter().all(|a| self.fresh_compilable(*a))
            }
        }
    }

    /// `evalInEachContext(expr, ...)` over `records`, its value in `dst`; `d` is
    /// the depth its arguments sit at.
    pub(super) fn each_context(&mut self, expr: NodeId, records: Vec<Overlay>, dst: u16, d: u32) {
        let flag = self.reg();
        self.push(form::Fresh { flag: reg8(flag) }.instr(Op::FreshEnter));
        let first = self.next_reg;
        for _ in &records {
            self.reg();
        }
        // What is known of a node, and the answers about its subtree, hold for
        // one record: each record starts afresh, and the outer ones come back.
        let (known, memo) = (self.known.fresh(), self.subtree_memo.fresh());
        let outer_known = std::mem::replace(&mut self.known, known);
        let outer_memo = std::mem::replace(&mut self.subtree_memo, memo);
        let n = records.len();
        for (i, record) in records.into_iter().enumerate() {
            self.overlay = Some(record);
            self.known.clear();
            self.subtree_memo.clear();
            self.node(expr, first + i as u16, d);
        }
        self.overlay = None;
        self.known = outer_known;
        self.subtree_memo = outer_memo;
        self.push(form::Fresh { flag: reg8(flag) }.instr(Op::FreshLeave));
        let (dst, first, count) = (reg8(dst), reg8(first), n as u32);
        self.push(form::List { dst, first, count }.instr(Op::List));
        // HTCondor evaluates `expr` once per record (the tree counts it once),
        // after looking the list up in MY one level down.
        let (_, nodes, _) = measure(self.e, expr);
        let more = nodes.saturating_mul(n.saturating_sub(1) as u32);
        self.extra_nodes = self.extra_nodes.saturating_add(more).saturating_add(1);
        self.extra_depth = self.extra_depth.max(d + 2);
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;

    #[test]
    fn eval_in_each_context_over_my_records_compiles_in_place() {
        let my = "catalogs = { [ Catalog = \"genomes\"; Key = \"Group\"; Scope = \"bio\"; Size = 100 ], \
                  [ Catalog = \"lhc\"; catalog = \"cms\"; Key = \"Owner\"; Scope = \"carol\"; Size = 7 ] }\n\
                  Site = \"ap40\"";
        let target =
            "Wanted = { \"genomes\", \"cms\" }\nGid = \"ap40#1\"\nGroup = \"bio\"\nOwner = \"dave\"";
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
}
