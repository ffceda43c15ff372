//! Constant folding: the compile-time value of a subtree, when MY's constants
//! and literals decide it, computed by the reference evaluator's own rules.

use super::my_facts::{Constant, ConstantSteps};
use super::scopes::names_my_ad;
use super::{is_scope_name, Gen, SubtreeQuestion};
use crate::ad::ClassAd;
use crate::eval::Evaluator;
use crate::functions::{find_index, IMPURE_BUILTINS, SCOPED_BUILTINS};
use crate::syntax::ast::{BinOp, ExprRef, Node, NodeId, UnOp};
use classad_vm::Value;

/// True when node `id` of `e` always gives a boolean, undefined or error (a
/// comparison, a logical operator, or MY's attribute whose expression does), so
/// `true && x` is `x`. `fuel` bounds the walk through MY's attributes.
pub(super) fn logical(my: Option<&ClassAd>, e: &ExprRef, id: NodeId, fuel: u32) -> bool {
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
        Node::Attr { scope: Some(_), .. } => e
            .tree
            .named_selection(id)
            .is_some_and(|(b, name)| names_my_ad(my, b) && !is_scope_name(name) && attr(name)),
        _ => false,
    }
}

/// True when list value `v`'s elements all evaluate, alone, to scalars.
fn list_of_scalars(v: &Value) -> bool {
    crate::compile::host::list_values(v).is_some_and(|items| items.iter().all(Value::is_scalar))
}

impl Gen<'_> {
    /// For `a && b` (`a || b`) where one side is the constant `true` (`false`) and
    /// the other always gives a boolean, undefined or error: that other side, which
    /// is then the whole value.
    pub(super) fn neutral_operand(&mut self, op: BinOp, a: NodeId, b: NodeId) -> Option<NodeId> {
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

    /// The value of node `id` when it is the same in every evaluation: pure
    /// subtrees, MY's constant attributes, and operators over those. Computed with
    /// the same operator functions the machine runs, so folding is exact.
    pub(super) fn known(&mut self, id: NodeId) -> Option<Value> {
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
            Node::Attr { scope: Some(_), .. } => match e.tree.named_selection(id) {
                Some((b, name)) if names_my_ad(self.my, b) && !is_scope_name(name) => {
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
            Node::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                let rule = op.binary()?;
                let x = self.known(*a)?;
                if let Some(v) = rule.decided_by_left(&x) {
                    return Some(v);
                }
                Some(rule.apply(&x, &self.known(*b)?))
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

    /// A builtin's value when every argument is known here as a plain value or a
    /// list of plain values (`isUndefined(MY.Missing)`, `size(MY.Text)`,
    /// `sum(MY.Nums)`): the machine would call the builtin on those same values
    /// each time (`Op::Call`), so calling it now is exact by construction, and a
    /// slot's aggregate over its own list is computed once per slot instead of
    /// once per pair. Not the clock or chance, nor builtins that read scopes or
    /// expressions, nor `ifThenElse` (compiled to jumps), nor records or lists
    /// holding records or lists (whose identity the machine's values carry).
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
            match v {
                Value::Ad(_) => return None,
                Value::List(_) if !list_of_scalars(&v) => return None,
                _ => values.push(v),
            }
        }
        // The very call `Op::Call` makes at run time; what it leaves to the
        // reference evaluator is not folded.
        classad_vm::Host::call(&mut crate::compile::host::VmHost, native, &values).ok()
    }

    /// MY's attribute `name` as a constant (see [`MyFacts::constant`]), charging the
    /// depth and steps HTCondor would spend on it. `site` is the depth the reference
    /// itself consumes (1 for a selection such as `MY.x`).
    pub(super) fn my_known(&mut self, name: &str, site: u32) -> Option<Value> {
        if !self.my_has(name) {
            return None;
        }
        let c = self.facts.as_deref_mut()?.constant(name)?;
        self.charge_constant(&c, site).then_some(c.value)
    }

    /// Charges the depth and steps HTCondor spends on MY's constant `c`, reached
    /// at depth `site`, to the program; false, charging nothing, when its steps
    /// would take the program's folded steps past
    /// [`classad_vm::limits::MAX_FOLDED_STEPS`] (it is then loaded
    /// and evaluated as it runs).
    pub(super) fn charge_constant(&mut self, c: &Constant, site: u32) -> bool {
        match c.steps {
            ConstantSteps::Estimate(nodes) => {
                self.extra_nodes = self.extra_nodes.saturating_add(nodes);
            }
            ConstantSteps::Folded(steps) => {
                let total = u64::from(self.folded_steps) + u64::from(steps);
                if total > classad_vm::limits::MAX_FOLDED_STEPS {
                    return false;
                }
                self.folded_steps = total as u32;
            }
        }
        self.extra_depth = self.extra_depth.max(site + 1 + c.depth);
        true
    }

    /// True when the subtree's value depends on nothing but itself: no names, no
    /// clock or chance, no scope-dependent builtins.
    pub(super) fn pure(&mut self, id: NodeId) -> bool {
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
    pub(super) fn fold(&self, id: NodeId) -> Option<Value> {
        Evaluator::new(true).eval(&self.e.child(id), None).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;

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
    fn identity_of_constants_folds() {
        let p = compiled("MY.Gone =?= true", "A = 1", "X = 1");
        assert_eq!(ops(&p), [Op::Const, Op::Ret]);
        let p = compiled("Start =!= false", "Start = true", "X = 1");
        assert_eq!(ops(&p), [Op::Const, Op::Ret]);
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

    /// Issue 33 item 5.9: a builtin over MY's own list of plain values folds
    /// (`sum(MY.Nums)` in a slot's START was computed again for every job); a
    /// list holding a record, a list or a name does not.
    #[test]
    fn calls_on_my_lists_of_plain_values_fold() {
        let my = "Nums = { 1, 2.5, 3 }\nNames = { \"a\", \"b\" }\nX = 4\n\
                  Mixed = { 1, [ a = 1 ] }\nNested = { { 1 } }\nNamed = { X, 1 }";
        for expr in [
            "sum(MY.Nums)",
            "max(Nums) * 2",
            "avg(MY.Nums) + min(MY.Nums)",
            "size(Names)",
            "member(\"b\", MY.Names)",
            "join(\",\", MY.Names)",
        ] {
            let p = compiled(expr, my, "Missing = 1");
            assert_eq!(ops(&p), [Op::Const, Op::Ret], "{expr}: {p}");
        }
        // (Some of these the machine leaves to the reference evaluator.)
        for expr in ["size(MY.Mixed)", "size(MY.Nested)", "sum(MY.Named)"] {
            let e = ExprRef::root_of(Arc::new(parse_expr(expr).unwrap()));
            let p = compile_expr(&e, Some(&ad(my)), &mut SlotTable::new());
            assert_ne!(ops(&p), [Op::Const, Op::Ret], "{expr}: {p}");
        }
    }
}
