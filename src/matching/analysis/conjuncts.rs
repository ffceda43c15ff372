//! The conjuncts of a Requirements expression: the conditions it joins with `&&`,
//! each of which must hold for a match, and which of them compare one attribute
//! of the target with a value the analyzed ad fixes (what a suggestion can
//! change).

use crate::ad::ClassAd;
use crate::eval::{eval_in, Semantics};
use crate::matching::refs::References;
use crate::syntax::ast::{BinOp, ExprRef, Node};
use classad_vm::ops::Cmp;
use classad_vm::{Str, Value};
use std::sync::Arc;

/// The conditions `expr` joins with `&&`, in order, each without the parentheses
/// around it: `(a) && ((b && c) && d)` has `a`, `b`, `c` and `d`, since a
/// parenthesized `&&` is as much a conjunction as the outer one. An expression
/// without `&&` is its own only conjunct.
pub fn conjuncts(expr: &ExprRef) -> Vec<ExprRef> {
    conjuncts_inlined(&ClassAd::new(), expr, &[])
}

/// [`conjuncts`], with a bare reference to an attribute of `ad` named in
/// `inline` (a slot's `START`) split as the attribute's expression, as the
/// analysis of a slot's Requirements reads it (once: not below another inlined
/// name).
pub fn conjuncts_inlined(ad: &ClassAd, expr: &ExprRef, inline: &[&str]) -> Vec<ExprRef> {
    let mut out = Vec::new();
    let mut todo = vec![(expr.clone(), true)];
    while let Some((e, may_inline)) = todo.pop() {
        match e.node() {
            Node::Attr {
                scope: None,
                name,
                absolute: false,
            } if may_inline && inline.iter().any(|n| n.eq_ignore_ascii_case(name)) => {
                match ad.get(name) {
                    Some(v) => todo.push((v.to_expr_ref(), false)),
                    None => out.push(e),
                }
            }
            Node::Paren(a) => todo.push((e.child(*a), may_inline)),
            Node::Binary(BinOp::And, a, b) => {
                // The right operand waits for the whole of the left.
                todo.push((e.child(*b), may_inline));
                todo.push((e.child(*a), may_inline));
            }
            _ => out.push(e),
        }
    }
    out
}

/// A conjunct that compares an attribute of the target with a value fixed by the
/// analyzed ad: `TARGET.Memory >= RequestMemory` with the job's `RequestMemory`,
/// or `"LINUX" == TARGET.OpSys`.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// The target's attribute, as the expression reads it (`TARGET.Memory`, or a
    /// bare `Memory` the analyzed ad lacks, which falls to the target).
    pub target: ExprRef,
    /// The attribute's name.
    pub attr: Str,
    /// The comparison, the attribute on the left.
    pub op: Cmp,
    /// The other operand's value in the analyzed ad alone.
    pub value: Value,
}

/// `e` as a [`Comparison`], when it is one: a comparison (parentheses aside)
/// between a reference to one attribute of the target and an operand that reads
/// nothing from outside `my` and has a plain value there (a number, string or
/// boolean).
pub fn comparison(my: &Arc<ClassAd>, e: &ExprRef) -> Option<Comparison> {
    let e = skip_parens(e);
    let Node::Binary(op, a, b) = e.node() else {
        return None;
    };
    let op = op.comparison()?;
    let (a, b) = (skip_parens(&e.child(*a)), skip_parens(&e.child(*b)));
    let (target, other, op) = if let Some(attr) = target_attr(my, &a) {
        ((a, attr), b, op)
    } else if let Some(attr) = target_attr(my, &b) {
        ((b, attr), a, op.swapped())
    } else {
        return None;
    };
    let refs = References::of(my, &other.tree, other.id);
    if !refs.external.is_empty() || !refs.complete || refs.volatile {
        return None;
    }
    let value = eval_in(&other, my, None, Semantics::Htcondor).ok()?;
    if !matches!(
        value,
        Value::Int(_) | Value::Real(_) | Value::Str(_) | Value::Bool(_)
    ) {
        return None;
    }
    Some(Comparison {
        target: target.0,
        attr: target.1,
        op,
        value,
    })
}

/// The name of the target's attribute `e` reads: `TARGET.x`, or a bare `x`
/// that `my` lacks (HTCondor then looks in the target).
fn target_attr(my: &ClassAd, e: &ExprRef) -> Option<Str> {
    match e.node() {
        Node::Attr { scope: Some(_), .. } => match e.tree.named_selection(e.id) {
            Some((scope, name)) if scope.eq_ignore_ascii_case("TARGET") => Some(name.clone()),
            _ => None,
        },
        Node::Attr {
            scope: None,
            name,
            absolute: false,
        } if !my.contains(name) && !is_scope_name(name) => Some(name.clone()),
        _ => None,
    }
}

/// Names that stand for an ad (or the clock) rather than for an attribute.
fn is_scope_name(name: &str) -> bool {
    [
        "MY",
        "TARGET",
        "SELF",
        "OTHER",
        "PARENT",
        "ROOT",
        "LEFT",
        "RIGHT",
        "CurrentTime",
    ]
    .iter()
    .any(|s| s.eq_ignore_ascii_case(name))
}

/// `e` without the parentheses around it.
fn skip_parens(e: &ExprRef) -> ExprRef {
    let mut e = e.clone();
    while let Node::Paren(a) = e.node() {
        e = e.child(*a);
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;
    use crate::syntax::unparse_node;
    use crate::values::display::unparse_value;

    fn ad(text: &str) -> Arc<ClassAd> {
        Arc::new(read_ads(text, "t").unwrap().remove(0))
    }

    fn texts(es: &[ExprRef]) -> Vec<String> {
        es.iter()
            .map(|e| {
                let mut s = String::new();
                unparse_node(&e.tree, e.id, &mut s);
                s
            })
            .collect()
    }

    fn req(job: &ClassAd) -> ExprRef {
        job.get("Requirements").unwrap().to_expr_ref()
    }

    #[test]
    fn conjuncts_are_the_operands_of_every_and_through_parentheses() {
        let job = ad("Requirements = (TARGET.Arch == \"X86_64\") && ((TARGET.A || TARGET.B) && (TARGET.C && TARGET.D)) && TARGET.E\n");
        assert_eq!(
            texts(&conjuncts(&req(&job))),
            [
                "TARGET.Arch == \"X86_64\"",
                "TARGET.A || TARGET.B",
                "TARGET.C",
                "TARGET.D",
                "TARGET.E"
            ]
        );
        let job = ad("Requirements = ((TARGET.Memory > 1))\n");
        assert_eq!(texts(&conjuncts(&req(&job))), ["TARGET.Memory > 1"]);
        // `||` and `!` are conditions of their own, not conjunctions.
        let job = ad("Requirements = !(TARGET.A && TARGET.B)\n");
        assert_eq!(texts(&conjuncts(&req(&job))), [" !(TARGET.A && TARGET.B)"]);
    }

    #[test]
    fn a_slot_s_start_splits_as_its_expression() {
        let slot = ad("Start = (TARGET.A == 1) && TARGET.B\nWithinResourceLimits = TARGET.C\nRequirements = START && (WithinResourceLimits) && MY.D\n");
        assert_eq!(
            texts(&conjuncts_inlined(
                &slot,
                &req(&slot),
                &["START", "WithinResourceLimits"]
            )),
            ["TARGET.A == 1", "TARGET.B", "TARGET.C", "MY.D"]
        );
        assert_eq!(texts(&conjuncts(&req(&slot)))[0], "START");
    }

    #[test]
    fn a_long_chain_splits_without_recursion() {
        let text = format!("Requirements = {}\n", vec!["TARGET.X"; 50_000].join(" && "));
        assert_eq!(conjuncts(&req(&ad(&text))).len(), 50_000);
    }

    #[test]
    fn comparisons_of_a_target_attribute_with_a_fixed_value() {
        let job = ad("RequestMemory = 2048\nOwner = \"u\"\nRequirements = true\n");
        let cmp = |text: &str| {
            let e = ExprRef::root_of(Arc::new(crate::syntax::parse_expr(text).unwrap()));
            comparison(&job, &e)
                .map(|c| format!("{} {:?} {}", c.attr, c.op, unparse_value(&c.value)))
        };
        assert_eq!(
            cmp("(TARGET.Memory >= RequestMemory)").as_deref(),
            Some("Memory Ge 2048")
        );
        assert_eq!(
            cmp("RequestMemory * 2 < TARGET.Memory").as_deref(),
            Some("Memory Gt 4096")
        );
        // A bare name the job lacks is the slot's.
        assert_eq!(
            cmp("OpSys == \"LINUX\"").as_deref(),
            Some("OpSys Eq \"LINUX\"")
        );
        assert_eq!(cmp("TARGET.HasX =?= true").as_deref(), Some("HasX Is true"));
        // Not a fixed value, not one attribute, not a comparison, undefined.
        assert_eq!(cmp("TARGET.Memory >= TARGET.Disk"), None);
        assert_eq!(cmp("TARGET.Memory + 1 >= 5"), None);
        assert_eq!(cmp("TARGET.HasX"), None);
        assert_eq!(cmp("TARGET.Memory >= Missing"), None);
        assert_eq!(cmp("TARGET.Memory >= time()"), None);
        assert_eq!(cmp("MY.Owner == \"u\""), None);
    }
}
