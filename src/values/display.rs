//! Values as HTCondor's unparser prints them: in one-line new syntax (what
//! `classad_eval` and the Python bindings show) or in old syntax (what HTCondor's
//! tools show: `condor_status -af`, `condor_q -af`).

use super::compound::{as_ad, as_list, ListVal};
use super::scope::{Frame, Scope, Side, MATCH_EXPRS};
use crate::ad::ClassAd;
use crate::ad::{unparse_ad, unparse_ad_inline_old};
use crate::syntax::ast::{Expr, NodeId};
use crate::syntax::unparse::{
    unparse_node, unparse_old_node, write_scalar_value, write_scalar_value_old,
};
use classad_vm::Value;
use std::sync::Arc;

/// The value in one-line new ClassAd syntax, exactly as HTCondor prints it.
pub fn unparse_value(v: &Value) -> String {
    let mut out = String::new();
    write_value(v, &mut out);
    out
}

/// Appends the one-line new-syntax text of `v` to `out`.
pub fn write_value(v: &Value, out: &mut String) {
    write_styled(v, false, out);
}

/// The value in old ClassAd syntax, as HTCondor's unparser prints a value in
/// old-ad mode (`SetOldClassAd(true, true)`, the mode of `condor_status -af`):
/// reals as `%.16G` (`2.5`, `3.0`), strings with only `"` escaped, nested ads
/// one-line (`[ a = 1; b = "x" ]`) and every expression inside in old syntax.
pub fn unparse_value_old(v: &Value) -> String {
    let mut out = String::new();
    write_value_old(v, &mut out);
    out
}

/// Appends the old-syntax text of `v` to `out` (see [`unparse_value_old`]).
pub fn write_value_old(v: &Value, out: &mut String) {
    write_styled(v, true, out);
}

/// `v` in old syntax when `old`, else in new syntax: the two differ only in how
/// reals, strings and `is`/`isnt` are spelt, down to every element of a list or ad.
fn write_styled(v: &Value, old: bool, out: &mut String) {
    let scalar = if old {
        write_scalar_value_old(v, out)
    } else {
        write_scalar_value(v, out)
    };
    if scalar {
        return;
    }
    if let Some(list) = as_list(v) {
        match list {
            ListVal::Lazy { list, .. } => node(&list.tree, list.id, old, out),
            ListVal::Values(items) | ListVal::Projected(items) => {
                out.push_str("{ ");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_styled(item, old, out);
                }
                out.push_str(" }");
            }
        }
    } else if let Some(ad) = as_ad(v) {
        write_scope(&ad.scope, old, out);
    }
}

fn node(tree: &Expr, id: NodeId, old: bool, out: &mut String) {
    if old {
        unparse_old_node(tree, id, out)
    } else {
        unparse_node(tree, id, out)
    }
}

fn ad_text(ad: &ClassAd, old: bool) -> String {
    if old {
        unparse_ad_inline_old(ad)
    } else {
        unparse_ad(ad)
    }
}

fn write_scope(scope: &Arc<Scope>, old: bool, out: &mut String) {
    match &scope.frame {
        Frame::Ad(ad) => {
            super::reads::note_ad_read();
            out.push_str(&ad_text(ad, old))
        }
        Frame::Record(r) => node(&r.tree, r.id, old, out),
        Frame::Ctx(_, side) => write_ctx(*side, out),
        Frame::Match(pair) => {
            // The match ad, in HTCondor's attribute order.
            out.push_str("[ lCtx = ");
            write_ctx(Side::Left, out);
            out.push_str("; LEFT = ");
            out.push_str(&ad_text(&pair.left, old));
            out.push_str("; rCtx = ");
            write_ctx(Side::Right, out);
            out.push_str("; RIGHT = ");
            out.push_str(&ad_text(&pair.right, old));
            let mut exprs: Vec<(&str, &str)> = MATCH_EXPRS.to_vec();
            exprs.sort_by(|a, b| crate::ad::classad::attr_order(a.0, b.0));
            for (name, src) in exprs {
                out.push_str("; ");
                out.push_str(name);
                out.push_str(" = ");
                out.push_str(src);
            }
            out.push_str(" ]");
        }
    }
}

fn write_ctx(side: Side, out: &mut String) {
    let (me, other) = match side {
        Side::Left => (".LEFT", ".RIGHT"),
        Side::Right => (".RIGHT", ".LEFT"),
    };
    out.push_str(&format!(
        "[ ad = {me}; my = {me}; other = {other}; target = {other} ]"
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{eval_alone, Semantics};
    use crate::syntax::parse_expr;

    fn both(src: &str) -> (String, String) {
        let v = eval_alone(&parse_expr(src).unwrap(), Semantics::Htcondor).unwrap();
        (unparse_value(&v), unparse_value_old(&v))
    }

    /// Old syntax differs from new in reals, strings and `is`, down to the
    /// elements of lists and ads, whether held as expressions or as values.
    #[test]
    fn values_in_old_syntax() {
        assert_eq!(both("2.5"), ("2.500000000000000E+00".into(), "2.5".into()));
        assert_eq!(both("\"a\\\\b\""), ("\"a\\\\b\"".into(), "\"a\\b\"".into()));
        assert_eq!(
            both("{ 1.0, \"x\", a is b }"),
            (
                "{ 1.000000000000000E+00,\"x\",a is b }".into(),
                "{ 1.0,\"x\",a =?= b }".into()
            )
        );
        // A list of values (computed, not written).
        assert_eq!(both("split(\"a b\")").1, "{ \"a\",\"b\" }");
        assert_eq!(
            both("[ r = 0.5; s = \"q\\\"\" ]"),
            (
                "[ r = 5.000000000000000E-01; s = \"q\\\"\" ]".into(),
                "[ r = 0.5; s = \"q\\\"\" ]".into()
            )
        );
        assert_eq!(both("undefined").1, "undefined");
        assert_eq!(both("1/0").1, "error");
    }
}
