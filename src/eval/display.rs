//! Values as HTCondor's unparser prints them (one-line new syntax).

use super::compound::{as_ad, as_list, ListVal};
use super::scope::{Frame, Scope, Side, MATCH_EXPRS};
use crate::syntax::unparse::{unparse_ad, unparse_node, write_scalar_value};
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
    if write_scalar_value(v, out) {
        return;
    }
    if let Some(list) = as_list(v) {
        match list {
            ListVal::Lazy { list, .. } => unparse_node(&list.tree, list.id, out),
            ListVal::Values(items) | ListVal::Projected(items) => {
                out.push_str("{ ");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_value(item, out);
                }
                out.push_str(" }");
            }
        }
    } else if let Some(ad) = as_ad(v) {
        write_scope(&ad.scope, out);
    }
}

fn write_scope(scope: &Arc<Scope>, out: &mut String) {
    match &scope.frame {
        Frame::Ad(ad) => {
            super::independent::note_ad_read();
            out.push_str(&unparse_ad(ad))
        }
        Frame::Record(r) => unparse_node(&r.tree, r.id, out),
        Frame::Ctx(_, side) => write_ctx(*side, out),
        Frame::Match(pair) => {
            // The match ad, in HTCondor's attribute order.
            out.push_str("[ lCtx = ");
            write_ctx(Side::Left, out);
            out.push_str("; LEFT = ");
            out.push_str(&unparse_ad(&pair.left));
            out.push_str("; rCtx = ");
            write_ctx(Side::Right, out);
            out.push_str("; RIGHT = ");
            out.push_str(&unparse_ad(&pair.right));
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
