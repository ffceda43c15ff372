//! Structural sameness of expressions: HTCondor's `ExprTree::SameAs`, what its
//! `==` on expressions and ads (and so the Python bindings' `==`) means.

use super::ast::{Expr, Node, NodeId};
use classad_vm::Value;

/// True when the subtrees `a` of `ta` and `b` of `tb` are the same expression as
/// HTCondor's `SameAs` decides: the same kind of node, operator, spelling of
/// names (case counts, as it does for HTCondor's string compare) and literal of
/// the same type and value, with the same children; parentheses count, and
/// records are the same when each attribute of one is the same in the other
/// (names looked up ignoring case).
pub fn same_as(ta: &Expr, a: NodeId, tb: &Expr, b: NodeId) -> bool {
    let mut stack = vec![(a, b)];
    while let Some((a, b)) = stack.pop() {
        let ok = match (ta.node(a), tb.node(b)) {
            (Node::Lit(x), Node::Lit(y)) => same_value(x, y),
            (
                Node::Attr {
                    scope: sa,
                    name: na,
                    absolute: xa,
                },
                Node::Attr {
                    scope: sb,
                    name: nb,
                    absolute: xb,
                },
            ) => {
                xa == xb
                    && na.as_str() == nb.as_str()
                    && match (sa, sb) {
                        (None, None) => true,
                        (Some(sa), Some(sb)) => {
                            stack.push((*sa, *sb));
                            true
                        }
                        _ => false,
                    }
            }
            (Node::Unary(oa, ca), Node::Unary(ob, cb)) => {
                stack.push((*ca, *cb));
                oa == ob
            }
            (Node::Paren(ca), Node::Paren(cb)) => {
                stack.push((*ca, *cb));
                true
            }
            (Node::Binary(oa, a1, a2), Node::Binary(ob, b1, b2)) => {
                stack.push((*a1, *b1));
                stack.push((*a2, *b2));
                oa == ob
            }
            (Node::Ternary(a1, a2, a3), Node::Ternary(b1, b2, b3)) => {
                stack.extend([(*a1, *b1), (*a2, *b2), (*a3, *b3)]);
                true
            }
            (Node::Call { name: na, args: xa }, Node::Call { name: nb, args: xb }) => {
                stack.extend(xa.iter().copied().zip(xb.iter().copied()));
                na.as_str() == nb.as_str() && xa.len() == xb.len()
            }
            (Node::List(xa), Node::List(xb)) => {
                stack.extend(xa.iter().copied().zip(xb.iter().copied()));
                xa.len() == xb.len()
            }
            (Node::Record(xa), Node::Record(xb)) => {
                xa.len() == xb.len()
                    && xa.iter().all(|(name, ea)| {
                        // The last definition of a name is the one that counts.
                        match xb.iter().rev().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
                            Some((_, eb)) => {
                                stack.push((*ea, *eb));
                                true
                            }
                            None => false,
                        }
                    })
            }
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    true
}

/// Literals are the same when they have the same type and value (strings
/// compared byte for byte).
fn same_value(x: &Value, y: &Value) -> bool {
    match (x, y) {
        (Value::Undefined, Value::Undefined) | (Value::Error, Value::Error) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Int(a), Value::Int(b)) => a == b,
        (Value::Real(a), Value::Real(b)) => a == b,
        (Value::Str(a), Value::Str(b)) => a.as_str() == b.as_str(),
        (Value::AbsTime(a), Value::AbsTime(b)) => a == b,
        (Value::RelTime(a), Value::RelTime(b)) => a == b,
        _ => false,
    }
}

/// Appends an exact encoding of the subtree at `id`: equal encodings are equal
/// trees (reals by their bits). False for a literal list or record value, which
/// has no encoding here.
pub fn exact_text(tree: &Expr, id: NodeId, out: &mut Vec<u8>) -> bool {
    let mut stack = vec![id];
    while let Some(id) = stack.pop() {
        let node = tree.node(id);
        let name = |out: &mut Vec<u8>, s: &str| {
            out.extend_from_slice(&(s.len() as u64).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        };
        match node {
            Node::Lit(v) => {
                out.push(1);
                match v {
                    Value::Undefined => out.push(0),
                    Value::Error => out.push(1),
                    Value::Bool(b) => out.extend_from_slice(&[2, *b as u8]),
                    Value::Int(i) => {
                        out.push(3);
                        out.extend_from_slice(&i.to_le_bytes());
                    }
                    Value::Real(r) => {
                        out.push(4);
                        out.extend_from_slice(&r.to_bits().to_le_bytes());
                    }
                    Value::Str(s) => {
                        out.push(5);
                        name(out, s);
                    }
                    Value::AbsTime(t) => {
                        out.push(6);
                        out.extend_from_slice(&t.secs.to_le_bytes());
                        out.extend_from_slice(&t.offset.to_le_bytes());
                    }
                    Value::RelTime(r) => {
                        out.push(7);
                        out.extend_from_slice(&r.to_bits().to_le_bytes());
                    }
                    Value::List(_) | Value::Ad(_) => return false,
                }
            }
            Node::Attr {
                scope,
                name: n,
                absolute,
            } => {
                out.extend_from_slice(&[2, scope.is_some() as u8, *absolute as u8]);
                name(out, n);
            }
            Node::Unary(op, _) => out.extend_from_slice(&[3, *op as u8]),
            Node::Binary(op, _, _) => out.extend_from_slice(&[4, *op as u8]),
            Node::Ternary(..) => out.push(5),
            Node::Paren(_) => out.push(6),
            Node::Call { name: n, args } => {
                out.push(7);
                name(out, n);
                out.extend_from_slice(&(args.len() as u64).to_le_bytes());
            }
            Node::List(items) => {
                out.push(8);
                out.extend_from_slice(&(items.len() as u64).to_le_bytes());
            }
            Node::Record(fields) => {
                out.push(9);
                out.extend_from_slice(&(fields.len() as u64).to_le_bytes());
                for (f, _) in fields {
                    name(out, f);
                }
            }
        }
        let mut kids: smallvec::SmallVec<[NodeId; 4]> = smallvec::SmallVec::new();
        node.for_each_child(|k| kids.push(k));
        stack.extend(kids.iter().rev());
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_expr;

    fn same(a: &str, b: &str) -> bool {
        let (a, b) = (parse_expr(a).unwrap(), parse_expr(b).unwrap());
        same_as(&a, a.root(), &b, b.root())
    }

    /// What HTCondor 25's bindings answer for `ExprTree(a) == ExprTree(b)`.
    #[test]
    fn sameness_is_structural_and_spelling_sensitive() {
        assert!(same("1+2", "1 + 2"));
        assert!(same("f(a, {1, [x = 2; y = b]})", "f(a,{1,[y = b; x = 2]})"));
        assert!(!same("a", "A"));
        assert!(!same("(a)", "a"));
        assert!(!same("1.0", "1"));
        assert!(!same("\"a\"", "\"A\""));
        assert!(!same("a + b", "a - b"));
        assert!(!same("{1, 2}", "{1, 2, 3}"));
        assert!(!same("[x = 1]", "[y = 1]"));
    }
}
