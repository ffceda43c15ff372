//! Partial evaluation of an expression in an ad: HTCondor's `ClassAd::Flatten`
//! (the `_Flatten` methods), what the Python bindings' `ClassAd.flatten` gives.
//!
//! Whatever can be computed from the ad folds to a value; the rest stays as a
//! residual tree, with HTCondor's rewrites: the operands of the commutative and
//! associative operators (`+ * & | ^ && ||`) are regrouped so that their constant
//! parts fold together and come first (`z + a + 1` with `a = 1` is `2 + z`),
//! `true && x` and `x && true` are `x`, a reference to an attribute that does not
//! fold to a value is kept as the reference (`Req` stays `Req`), a record stays as
//! written, and a call folds only when all its arguments fold.
//!
//! Like HTCondor's, the walk counts its depth (400 levels: an attribute that
//! reaches itself fails); unlike HTCondor's, it also counts its steps against the
//! evaluation budget, so that no ad makes it run without bound.

use super::evaluator::{Evaluator, MAX_DEPTH, MAX_STEPS};
use super::{Fail, Semantics};
use crate::ad::ClassAd;
use crate::syntax::ast::{copy_into, BinOp, Expr, ExprRef, Node, NodeId};
use crate::values::display::unparse_value;
use crate::values::scope::{Found, Scope};
use classad_vm::Value;
use std::sync::Arc;

/// What flattening gave.
#[derive(Clone, Debug)]
pub enum Flattened {
    /// The expression folded to a value.
    Value(Value),
    /// A residual expression.
    Expr(Expr),
}

/// Flattens `expr` in `ad` (HTCondor's `ClassAd::Flatten`); `Err` where HTCondor's
/// fails (an attribute that reaches itself, nesting past its depth).
pub fn flatten(ad: &Arc<ClassAd>, expr: &ExprRef, sem: Semantics) -> Result<Flattened, Fail> {
    let scope = Scope::of_ad(ad.clone());
    let mut f = Flattener {
        ev: Evaluator::new(sem.old()),
        out: Vec::new(),
        depth_left: MAX_DEPTH,
        steps_left: MAX_STEPS,
    };
    // The ad is the evaluation's root (`.name` starts there), as HTCondor's
    // `SetScopes` makes it.
    let root = ExprRef::root_of(Arc::new(Expr::literal(Value::Undefined)));
    f.ev.eval(&root, Some(&scope))?;
    let part = f.flat(expr, &scope, false)?;
    Ok(match part.tree {
        None => Flattened::Value(part.val),
        Some(root) => Flattened::Expr(Expr::from_parts(f.out, root)),
    })
}

/// The expression of a value: its literal, or for a list or record value (and a
/// relative time, which prints as a value in whole seconds) the expression it
/// prints as (which reads back as the same list or record).
pub fn value_expr(v: &Value) -> Expr {
    let mut nodes = Vec::new();
    let root = push_value(v, &mut nodes);
    Expr::from_parts(nodes, root)
}

/// Adds the expression of `v` (see [`value_expr`]) to `nodes`.
fn push_value(v: &Value, nodes: &mut Vec<Node>) -> NodeId {
    if matches!(v, Value::List(_) | Value::Ad(_) | Value::RelTime(_)) {
        if let Ok(e) = crate::syntax::parse_expr(&unparse_value(v)) {
            return copy_into(&e, e.root(), nodes);
        }
    }
    nodes.push(Node::Lit(v.clone()));
    (nodes.len() - 1) as NodeId
}

/// A flattened subexpression: a value (`tree` none), a residual tree, or, where
/// the caller regroups operands of `op`, the split form `val op tree`.
struct Part {
    val: Value,
    tree: Option<NodeId>,
    op: Option<BinOp>,
}

impl Part {
    fn value(val: Value) -> Part {
        Part {
            val,
            tree: None,
            op: None,
        }
    }

    fn tree(t: NodeId) -> Part {
        Part {
            val: Value::Undefined,
            tree: Some(t),
            op: None,
        }
    }
}

/// The operators whose operands HTCondor regroups (commutative and associative).
fn regroups(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Add
            | BinOp::Mul
            | BinOp::And
            | BinOp::Or
            | BinOp::BitAnd
            | BinOp::BitOr
            | BinOp::BitXor
    )
}

struct Flattener {
    ev: Evaluator,
    out: Vec<Node>,
    depth_left: u32,
    steps_left: u64,
}

impl Flattener {
    fn push(&mut self, n: Node) -> NodeId {
        self.out.push(n);
        (self.out.len() - 1) as NodeId
    }

    fn lit(&mut self, v: &Value) -> NodeId {
        push_value(v, &mut self.out)
    }

    /// The part's tree, or its value as a literal (a split part is never passed).
    fn node_of(&mut self, p: &Part) -> NodeId {
        match p.tree {
            Some(t) => t,
            None => self.lit(&p.val),
        }
    }

    fn copy(&mut self, e: &ExprRef) -> NodeId {
        copy_into(&e.tree, e.id, &mut self.out)
    }

    fn flat(&mut self, e: &ExprRef, cur: &Arc<Scope>, split: bool) -> Result<Part, Fail> {
        if self.depth_left == 0 || self.steps_left == 0 {
            return Err(Fail);
        }
        self.depth_left -= 1;
        self.steps_left -= 1;
        let r = self.flat_node(e, cur, split);
        self.depth_left += 1;
        r
    }

    fn flat_node(&mut self, e: &ExprRef, cur: &Arc<Scope>, split: bool) -> Result<Part, Fail> {
        match e.node() {
            Node::Lit(_) => Ok(Part::value(self.ev.eval(e, Some(cur))?)),
            Node::Attr { .. } => self.attr(e, cur),
            Node::Paren(a) => {
                let p = self.flat(&e.child(*a), cur, false)?;
                Ok(match p.tree {
                    Some(t) => Part::tree(self.push(Node::Paren(t))),
                    None => p,
                })
            }
            Node::Unary(op, a) => {
                let p = self.flat(&e.child(*a), cur, false)?;
                Ok(match p.tree {
                    Some(t) => Part::tree(self.push(Node::Unary(*op, t))),
                    None => Part::value(eval_op(
                        |x| Node::Unary(*op, x[0]),
                        &[p.val],
                        cur,
                        &mut self.ev,
                    )?),
                })
            }
            Node::Binary(op, a, b) if regroups(*op) => {
                let p1 = self.flat(&e.child(*a), cur, true)?;
                let p2 = self.flat(&e.child(*b), cur, true)?;
                let mut p = self.combine(*op, p1, p2, cur)?;
                if let (false, Some(op), Some(t)) = (split, p.op, p.tree) {
                    let l = self.lit(&p.val);
                    p = Part::tree(self.push(Node::Binary(op, l, t)));
                }
                Ok(p)
            }
            Node::Binary(op, a, b) => {
                // Comparisons, `- / % << >> >>>`, `?:` and subscripts: both sides
                // flattened, folded when both are values.
                let p1 = self.flat(&e.child(*a), cur, false)?;
                let p2 = self.flat(&e.child(*b), cur, false)?;
                if p1.tree.is_none() && p2.tree.is_none() {
                    let v = eval_op(
                        |x| Node::Binary(*op, x[0], x[1]),
                        &[p1.val, p2.val],
                        cur,
                        &mut self.ev,
                    )?;
                    return Ok(Part::value(v));
                }
                let (n1, n2) = (self.node_of(&p1), self.node_of(&p2));
                Ok(Part::tree(self.push(Node::Binary(*op, n1, n2))))
            }
            Node::Ternary(c, a, b) => {
                let p1 = self.flat(&e.child(*c), cur, false)?;
                if p1.tree.is_none() && !p1.val.is_undefined() {
                    return match p1.val.as_bool_equiv() {
                        None => Ok(Part::value(Value::Error)),
                        Some(true) => self.flat(&e.child(*a), cur, false),
                        Some(false) => self.flat(&e.child(*b), cur, false),
                    };
                }
                let p2 = self.flat(&e.child(*a), cur, false)?;
                let p3 = self.flat(&e.child(*b), cur, false)?;
                let (n2, n3) = (self.node_of(&p2), self.node_of(&p3));
                // A condition that folded to undefined is kept as written.
                let n1 = match p1.tree {
                    Some(t) => t,
                    None => self.copy(&e.child(*c)),
                };
                Ok(Part::tree(self.push(Node::Ternary(n1, n2, n3))))
            }
            Node::Call { name, args } => {
                if crate::functions::find(name).is_none() {
                    return Ok(Part::value(Value::Error));
                }
                let mut parts = Vec::with_capacity(args.len());
                for a in args {
                    parts.push(self.flat(&e.child(*a), cur, false)?);
                }
                if parts.iter().all(|p| p.tree.is_none()) {
                    // HTCondor calls the function on its arguments as written.
                    return Ok(Part::value(self.ev.eval(e, Some(cur))?));
                }
                let args = parts.iter().map(|p| self.node_of(p)).collect();
                Ok(Part::tree(self.push(Node::Call {
                    name: name.clone(),
                    args,
                })))
            }
            Node::List(items) => {
                let mut nodes = Vec::with_capacity(items.len());
                for i in items {
                    let p = self.flat(&e.child(*i), cur, false)?;
                    nodes.push(self.node_of(&p));
                }
                Ok(Part::tree(self.push(Node::List(nodes))))
            }
            // A record stays as written.
            Node::Record(_) => Ok(Part::tree(self.copy(e))),
        }
    }

    /// An attribute reference: the value its attribute flattens to, or the
    /// reference itself when that is not a value (or the attribute is a record,
    /// or is missing); error when what it selects from is not an ad.
    fn attr(&mut self, e: &ExprRef, cur: &Arc<Scope>) -> Result<Part, Fail> {
        if let Node::Attr { scope: Some(s), .. } = e.node() {
            let base = self.ev.eval(&e.child(*s), Some(cur))?;
            match base {
                Value::Undefined | Value::List(_) => return Ok(Part::tree(self.copy(e))),
                Value::Ad(_) => {}
                _ => return Ok(Part::value(Value::Error)),
            }
        }
        let (found, _) = self.ev.deref(e, Some(cur))?;
        match found {
            Some(Found::Expr(target, scope)) => {
                if matches!(target.node(), Node::Record(_)) {
                    return Ok(Part::tree(self.copy(e)));
                }
                let p = self.flat(&target, &scope, false)?;
                Ok(match p.tree {
                    Some(_) => Part::tree(self.copy(e)),
                    None => p,
                })
            }
            Some(Found::Value(v)) => Ok(Part::value(v)),
            Some(Found::Ad(_)) | None => Ok(Part::tree(self.copy(e))),
        }
    }

    /// HTCondor's `Operation::combine`: the flattened operands of a regrouping
    /// operator `op`, put together.
    fn combine(&mut self, op: BinOp, p1: Part, p2: Part, cur: &Arc<Scope>) -> Result<Part, Fail> {
        let (t1, t2) = (p1.tree, p2.tree);
        let fold = |ev: &mut Evaluator, a: Value, b: Value| {
            eval_op(|x| Node::Binary(op, x[0], x[1]), &[a, b], cur, ev)
        };
        if t1.is_some() != t2.is_some() && matches!(op, BinOp::And | BinOp::Or) {
            let a = if t1.is_none() {
                p1.val.clone()
            } else {
                Value::Undefined
            };
            let b = if t2.is_none() {
                p2.val.clone()
            } else {
                Value::Undefined
            };
            let v = fold(&mut self.ev, a, b)?;
            if matches!(v, Value::Bool(_)) {
                return Ok(Part::value(v));
            }
            // HTCondor's logic turns a number it reads as a boolean into one
            // in place, so a nonzero number counts as `true` here.
            if op == BinOp::And {
                if t1.is_none() && p1.val.as_bool_equiv() == Some(true) {
                    return Ok(Part::tree(t2.expect("one side is a tree")));
                }
                if t2.is_none() && p2.val.as_bool_equiv() == Some(true) {
                    return Ok(Part::tree(t1.expect("one side is a tree")));
                }
            }
        }
        let (o1, o2) = (p1.op, p2.op);
        match (t1, t2) {
            (None, None) => return Ok(Part::value(fold(&mut self.ev, p1.val, p2.val)?)),
            (None, Some(t)) if o2.is_none() => {
                return Ok(Part {
                    val: p1.val,
                    tree: Some(t),
                    op: Some(op),
                })
            }
            (Some(t), None) if o1.is_none() => {
                return Ok(Part {
                    val: p2.val,
                    tree: Some(t),
                    op: Some(op),
                })
            }
            (Some(a), Some(b)) if o1.is_none() && o2.is_none() => {
                return Ok(Part::tree(self.push(Node::Binary(op, a, b))))
            }
            _ => {}
        }
        if (o1.is_some() || o2.is_some()) && o1 != Some(op) && o2 != Some(op) {
            let n1 = self.unsplit(&p1);
            let n2 = self.unsplit(&p2);
            return Ok(Part::tree(self.push(Node::Binary(op, n1, n2))));
        }
        let (val, tree) = if o1 == Some(op) && o2 == Some(op) {
            let (a, b) = (t1.expect("split"), t2.expect("split"));
            let t = self.push(Node::Binary(op, a, b));
            (fold(&mut self.ev, p1.val, p2.val)?, t)
        } else if o1 == Some(op) {
            match t2 {
                None => (fold(&mut self.ev, p1.val, p2.val)?, t1.expect("split")),
                Some(b) => {
                    let t = self.push(Node::Binary(op, t1.expect("split"), b));
                    (p1.val, t)
                }
            }
        } else {
            match t1 {
                None => (fold(&mut self.ev, p1.val, p2.val)?, t2.expect("split")),
                Some(a) => {
                    let t = self.push(Node::Binary(op, a, t2.expect("split")));
                    (p2.val, t)
                }
            }
        };
        Ok(Part {
            val,
            tree: Some(tree),
            op: Some(op),
        })
    }

    /// A part as one tree: `val op tree` for a split part.
    fn unsplit(&mut self, p: &Part) -> NodeId {
        match (p.op, p.tree) {
            (Some(op), Some(t)) => {
                let l = self.lit(&p.val);
                self.push(Node::Binary(op, l, t))
            }
            _ => self.node_of(p),
        }
    }
}

/// Evaluates, in `cur`, the node `make` builds over the literals of `vals`.
fn eval_op(
    make: impl FnOnce(&[NodeId]) -> Node,
    vals: &[Value],
    cur: &Arc<Scope>,
    ev: &mut Evaluator,
) -> Result<Value, Fail> {
    let mut nodes = Vec::with_capacity(vals.len() + 1);
    let ids: Vec<NodeId> = vals.iter().map(|v| push_value(v, &mut nodes)).collect();
    nodes.push(make(&ids));
    let root = (nodes.len() - 1) as NodeId;
    let e = ExprRef::root_of(Arc::new(Expr::from_parts(nodes, root)));
    ev.eval(&e, Some(cur))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;
    use crate::syntax::{parse_expr, unparse};

    /// What HTCondor 25's `ClassAd.flatten` gives (its Python bindings, observed).
    #[test]
    fn folds_what_the_ad_knows_and_regroups_as_htcondor_does() {
        let ad = Arc::new(
            read_ads(
                "[a = 1; r = 3; s = \"str\"; l = {1, 2}; u = undefined; rr = z + 1; \
                  rec = [q = a; w = zz]; f = 2.5; X = Y; Y = X]",
                "t",
            )
            .unwrap()
            .remove(0),
        );
        let show = |src: &str| -> String {
            let e = ExprRef::root_of(Arc::new(parse_expr(src).unwrap()));
            match flatten(&ad, &e, Semantics::Htcondor) {
                Ok(Flattened::Value(v)) => format!("value {}", unparse_value(&v)),
                Ok(Flattened::Expr(e)) => unparse(&e),
                Err(Fail) => "fail".into(),
            }
        };
        for (src, want) in [
            ("a + 1", "value 2"),
            ("z + a + 1", "2 + z"),
            ("z * 2 + 3", "2 * z + 3"),
            ("z + w + 1", "1 + z + w"),
            ("(z + 1) + 2", "2 + (1 + z)"),
            ("z & 1 & 2", "0 & z"),
            ("z - a", "z - 1"),
            ("true && z", "z"),
            ("z && true", "z"),
            ("z || false", "false || z"),
            ("undefined && z", "undefined && z"),
            ("a > 0 ? a : z", "value 1"),
            ("u ? a : r", "u ? 1 : 3"),
            ("s ? a : r", "value error"),
            ("rr", "rr"),
            ("l", "l"),
            ("rec", "rec"),
            ("rec.q", "value 1"),
            ("rec.w", "rec.w"),
            ("a.b + z", "error + z"),
            ("{z, a}", "{ z,1 }"),
            (
                "ifThenElse(a > 0, TARGET.Mips, 0)",
                "ifThenElse(true,TARGET.Mips,0)",
            ),
            ("strcat(s, a)", "value \"str1\""),
            ("foo(z)", "value error"),
            ("z =?= a", "z is 1"),
            ("a && z", "z"),
            (".a", "value 1"),
            ("unparse(a)", "value \"1\""),
            ("f * z", "2.500000000000000E+00 * z"),
            ("X", "fail"),
        ] {
            assert_eq!(show(src), want, "{src}");
        }
    }

    #[test]
    fn compound_values_become_the_expressions_they_print_as() {
        let v =
            crate::eval::eval_alone(&parse_expr("split(\"a b\")").unwrap(), Semantics::Htcondor)
                .unwrap();
        assert_eq!(unparse(&value_expr(&v)), "{ \"a\",\"b\" }");
        assert_eq!(unparse(&value_expr(&Value::Int(3))), "3");
    }
}
