//! Builtins that look at expressions rather than values: `eval`, `unparse`, `debug`.

use super::convert::text_of;
use super::{add, arity, Builtin, Call, Evaluating};
use crate::syntax::ast::{ExprRef, Node};
use crate::syntax::unparse::unparse_node;
use crate::values::compound::as_ad;
use crate::values::scope::{Found, Frame, Scope};
use crate::values::Fail;
use classad_vm::limits::MAX_DEPTH;
use classad_vm::ops::cmp_ignore_case;
use classad_vm::Value;
use std::sync::Arc;

pub(super) fn register(t: &mut Vec<Builtin>) {
    add(t, "eval", eval);
    add(t, "unparse", unparse);
    add(t, "debug", debug);
    add(t, "unresolved", unresolved);
}

/// `eval(s)`: parses the argument's text and evaluates it in the caller's scope; a
/// parse failure, undefined or error gives error.
fn eval(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 1, 1) {
        return Ok(Value::Error);
    }
    match text_of(&c.arg(0)?) {
        Ok(src) => c.eval_source(&src),
        Err(_) => Ok(Value::Error),
    }
}

/// `unparse(attr)`: HTCondor unparses the reference itself and looks that *text* up
/// in the current ad only, with no scoping: `unparse(a)` finds `a`, but
/// `unparse(MY.a)`, `unparse('odd name')` (its text keeps the quotes) and names
/// found only in a parent or the target give `""`. Records and lists in the result
/// are pretty-printed, as HTCondor's `PrettyPrint` does.
fn unparse(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 1, 1) {
        return Ok(Value::Error);
    }
    let arg = c.arg_expr(0);
    if !matches!(arg.node(), Node::Attr { .. }) {
        return Ok(Value::Error);
    }
    let mut name = String::new();
    unparse_node(&arg.tree, arg.id, &mut name);
    let Some(cur) = current_scope(c)? else {
        return Ok(Value::str(""));
    };
    Ok(match cur.lookup_local(&name, true) {
        Some(Found::Expr(e, _)) => Value::str(pretty_text(&e)),
        _ => Value::str(""),
    })
}

/// The scope the call is evaluated in (HTCondor's `state.curAd`), `None` outside any
/// ad. `self` resolves to exactly that scope.
fn current_scope(c: &mut dyn Call) -> Result<Option<Arc<Scope>>, Fail> {
    Ok(c.scope())
}

/// HTCondor's `PrettyPrint` text of an expression (see
/// [`crate::syntax::unparse::unparse_pretty_expr`]).
fn pretty_text(e: &ExprRef) -> String {
    crate::syntax::unparse::unparse_pretty_expr(e)
}

/// `unresolved(attr[, regex])`: the external references of the expression `attr`
/// names, following the names it can resolve (HTCondor's `GetExternalReferences`
/// with full names). With one argument, the names joined by `,` in HTCondor's
/// case-insensitive set order, a `TARGET.` prefix dropped; with a regex (matched
/// caselessly), whether any name matches. A missing attribute gives undefined, a
/// non-reference error; a circular or unfollowable reference empties the set, and a
/// non-string regex fails the evaluation, as in HTCondor 25.14.1.
fn unresolved(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 1, 2) {
        return Ok(Value::Error);
    }
    let arg = c.arg_expr(0);
    if !matches!(arg.node(), Node::Attr { .. }) {
        return Ok(Value::Error);
    }
    let cur = current_scope(c)?;
    // The caller's evaluator, so that an `unresolved` reached again while walking
    // (`[x = r.a; r = unresolved(x)]`) counts against the same depth limit instead
    // of recursing without end.
    let ev = c.evaluator();
    // The reference names an expression, or an ad (`self`, `MY`, `TARGET`, ...),
    // whose attributes are then all walked.
    // A lookup that fails (no root for `toplevel`) gives undefined, as in HTCondor.
    let Ok((found, state)) = ev.deref(&arg, cur.as_ref()) else {
        return Ok(Value::Undefined);
    };
    // The lookup leaves the evaluation's current ad where it ended (for what the
    // caller evaluates next); the walk starts afresh, as HTCondor's own state.
    ev.leave_state_in(state);
    let found_expr = matches!(found, Some(Found::Expr(..)));
    let target: Vec<(ExprRef, Arc<Scope>)> = match found {
        Some(Found::Expr(e, s)) => vec![(e, s)],
        Some(Found::Ad(ad)) => match ad_attrs(&ad) {
            Some(attrs) => attrs.into_iter().map(|e| (e, ad.clone())).collect(),
            None => return Ok(Value::Undefined),
        },
        // A selection from a list: the values it made refer to nothing.
        Some(Found::Value(Value::List(_))) => Vec::new(),
        _ => return Ok(Value::Undefined),
    };
    let walked_ad = match &target[..] {
        [(_, scope), ..] if !found_expr => Some(frame_key(scope)),
        _ => None,
    };
    let mut walked = None;
    ev.without_leak(&mut |ev| {
        let mut refs = Refs {
            ev,
            names: Vec::new(),
            stack: Vec::new(),
            ads: walked_ad.into_iter().collect(),
            failed: false,
        };
        let mut complete = true;
        for (expr, scope) in &target {
            complete &= refs.walk(expr, scope);
        }
        walked = Some((complete, refs.failed, refs.names));
    });
    let Some((complete, failed, found)) = walked else {
        return Err(Fail);
    };
    if failed {
        return Err(Fail);
    }
    let names: Vec<&str> = if complete {
        found.iter().map(|n| strip_target(n)).collect()
    } else {
        Vec::new()
    };
    if c.argc() == 1 {
        return Ok(Value::str(names.join(",")));
    }
    let Value::Str(pattern) = c.arg(1)? else {
        return Err(Fail);
    };
    Ok(match super::regex::compile(&pattern, "i", false) {
        Some(re) => Value::Bool(names.iter().any(|n| re.is_match(n.as_bytes()))),
        None => Value::Error,
    })
}

/// The attribute expressions of an ad reached by name: a document's or a record
/// literal's; `None` for the parts of a match (`lCtx`, the match ad), which we do
/// not walk.
fn ad_attrs(ad: &Arc<Scope>) -> Option<Vec<ExprRef>> {
    match &ad.frame {
        Frame::Ad(doc) => {
            crate::values::reads::note_ad_read();
            Some(doc.iter().map(|(_, e)| e.to_expr_ref()).collect())
        }
        Frame::Record(r) => match r.node() {
            Node::Record(attrs) => Some(attrs.iter().map(|(_, id)| r.child(*id)).collect()),
            _ => None,
        },
        Frame::Ctx(..) | Frame::Match(_) => None,
    }
}

/// A reference name without a leading `TARGET.` (any case).
fn strip_target(name: &str) -> &str {
    match name.get(..7) {
        Some(p) if p.eq_ignore_ascii_case("target.") => &name[7..],
        _ => name,
    }
}

/// HTCondor's `_GetExternalReferences` walk.
struct Refs<'a> {
    ev: &'a mut dyn Evaluating,
    /// The names found, a set ordered as HTCondor's case-insensitive `References`.
    names: Vec<String>,
    /// Attribute expressions being followed, to stop at a cycle (HTCondor recurses
    /// until its depth limit and then gives up, which ends the same way).
    stack: Vec<(usize, u32)>,
    /// The ads whose attributes are being walked, to the same end.
    ads: Vec<(usize, u32)>,
    /// An evaluation on the way failed (too deep): the call fails.
    failed: bool,
}

impl Refs<'_> {
    fn insert(&mut self, name: String) {
        if let Err(i) = self.names.binary_search_by(|n| cmp_ignore_case(n, &name)) {
            self.names.insert(i, name);
        }
    }

    /// Collects the external references of `e` evaluated in `cur`, in source
    /// order; false where HTCondor's walk fails. Iterative within the expression
    /// (the parser builds chains of any length); it recurses only to follow a
    /// reference, which `stack` bounds.
    fn walk(&mut self, e: &ExprRef, cur: &Arc<Scope>) -> bool {
        let mut pending = vec![e.id];
        while let Some(id) = pending.pop() {
            match e.tree.node(id) {
                Node::Attr {
                    scope,
                    name,
                    absolute,
                } => {
                    if !self.attr(&e.child(id), *scope, name, *absolute, cur) {
                        return false;
                    }
                }
                // A record's attributes are walked in the enclosing ad's scope, as
                // HTCondor does.
                node => {
                    let first = pending.len();
                    node.for_each_child(|c| pending.push(c));
                    pending[first..].reverse();
                }
            }
        }
        true
    }

    fn attr(
        &mut self,
        e: &ExprRef,
        scope: Option<u32>,
        name: &str,
        absolute: bool,
        cur: &Arc<Scope>,
    ) -> bool {
        let start = match scope {
            None if absolute => cur.root(),
            None => cur.clone(),
            Some(s) => {
                let base = e.child(s);
                let Ok(v) = self.ev.eval(&base, Some(cur)) else {
                    self.failed = true;
                    return false;
                };
                if v.is_undefined() {
                    // An unresolvable scope: the whole reference, as written, is the
                    // external name.
                    let mut full = String::new();
                    unparse_node(&base.tree, base.id, &mut full);
                    full.push('.');
                    full.push_str(name);
                    self.insert(full);
                    return true;
                }
                match as_ad(&v) {
                    Some(ad) => ad.scope.clone(),
                    None => return false,
                }
            }
        };
        let Ok((found, stopped)) = self.ev.lookup_stopping(&start, name) else {
            self.failed = true;
            return false;
        };
        match found {
            None => {
                self.insert(name.to_string());
                true
            }
            Some(Found::Expr(found, at)) => {
                let key = (Arc::as_ptr(&found.tree) as usize, found.id);
                if self.stack.contains(&key) || self.stack.len() >= MAX_DEPTH as usize {
                    return false;
                }
                self.stack.push(key);
                let ok = self.walk(&found, &at);
                self.stack.pop();
                ok
            }
            Some(Found::Ad(ad)) => self.ad(&ad, &stopped),
            Some(Found::Value(_)) => true,
        }
    }

    /// A name that is an ad (`self`, `parent`, `toplevel`, `MY`; `TARGET` and
    /// the like in a match): HTCondor walks the ad's attributes where its lookup
    /// stopped, the first ad for a special name, the match ad for a name of a
    /// match's context (whose `target` is `.RIGHT`, looked up there). An ad met
    /// again is a cycle, which HTCondor follows to its depth limit and gives up;
    /// the context and match ads themselves we do not walk (see the deviation
    /// "unresolved() of a match's ad").
    fn ad(&mut self, ad: &Arc<Scope>, stopped: &Arc<Scope>) -> bool {
        let Some(attrs) = ad_attrs(ad) else {
            return false;
        };
        let key = frame_key(ad);
        if self.ads.contains(&key) || self.ads.len() + self.stack.len() >= MAX_DEPTH as usize {
            return false;
        }
        let at = match stopped.frame {
            Frame::Ctx(..) | Frame::Match(_) => stopped.root(),
            _ => stopped.clone(),
        };
        self.ads.push(key);
        let ok = attrs.iter().all(|e| self.walk(e, &at));
        self.ads.pop();
        ok
    }
}

/// Identifies the ad a scope is (a document, or a record literal).
fn frame_key(scope: &Scope) -> (usize, u32) {
    match &scope.frame {
        Frame::Ad(doc) => (Arc::as_ptr(doc) as usize, u32::MAX),
        Frame::Record(r) => (Arc::as_ptr(&r.tree) as usize, r.id),
        Frame::Ctx(pair, side) => (Arc::as_ptr(pair) as usize, *side as u32),
        Frame::Match(pair) => (Arc::as_ptr(pair) as usize, u32::MAX - 1),
    }
}

/// `debug(x)`: the value of `x` (HTCondor also logs it; we do not).
fn debug(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 1, 1) {
        return Ok(Value::Error);
    }
    c.arg(0)
}

#[cfg(test)]
mod tests {
    use crate::eval::testing::eval;
    use classad_vm::Value;

    // Expected results from HTCondor 25.14.1.
    #[test]
    fn simple_cases() {
        assert_eq!(eval("debug", vec![Value::Int(3)]), "3");
        assert_eq!(eval("unparse", vec![Value::Real(1.0 / 3.0)]), "error");
        assert_eq!(eval("eval", vec![Value::Undefined]), "error");
    }

    /// Evaluates `src` in the ad `my` (attribute source pairs), optionally matched
    /// against `target`.
    fn in_ads(src: &str, my: &[(&str, &str)], target: Option<&[(&str, &str)]>) -> String {
        use crate::ad::ClassAd;
        use crate::eval::{eval_in, Semantics};
        use crate::syntax::ast::ExprRef;
        use crate::syntax::parse_expr;
        use std::sync::Arc;
        let ad = |attrs: &[(&str, &str)]| {
            let mut ad = ClassAd::new();
            for (n, v) in attrs {
                ad.insert_expr(*n, parse_expr(v).unwrap());
            }
            Arc::new(ad)
        };
        let e = ExprRef::root_of(Arc::new(parse_expr(src).unwrap()));
        let t = target.map(ad);
        let v = eval_in(&e, &ad(my), t.as_ref(), Semantics::Htcondor).unwrap();
        crate::values::display::unparse_value(&v)
    }

    // Expected results from HTCondor 25.14.1.
    #[test]
    fn unparse_looks_up_the_reference_text() {
        let my = [
            ("a", "1"),
            ("odd name", "42"),
            ("r", "[p = 3; q = {1, [k = 7]}]"),
        ];
        assert_eq!(in_ads("unparse(a)", &my, None), "\"1\"");
        assert_eq!(in_ads("unparse('odd name')", &my, None), "\"\"");
        assert_eq!(in_ads("unparse(MY.a)", &my, None), "\"\"");
        assert_eq!(
            in_ads("unparse(b)", &[("a", "1")], Some(&[("b", "2")])),
            "\"\""
        );
        assert_eq!(
            in_ads("unparse(r)", &my, None),
            "\"\\n    [\\n        p = 3; \\n        q = \\n           {\\n              1,\\n              \\n                  [\\n                      k = 7\\n                  ]\\n           }\\n    ]\""
        );
        assert_eq!(
            in_ads("unparse(e)", &[("e", "1 + size({1})")], None),
            "\"1 + size(\\n   {\\n      1\\n   })\""
        );
    }

    // Expected results from HTCondor 25.14.1.
    #[test]
    fn unresolved_references() {
        fn e(src: &str) -> [(&str, &str); 1] {
            [("e", src)]
        }
        assert_eq!(
            in_ads(
                "unresolved(e)",
                &e("a + b + c + a + TARGET.q + MY.r + foo(zz) + B"),
                None
            ),
            "\"a,b,c,r,q,zz\""
        );
        assert_eq!(
            in_ads("unresolved(e)", &e("Bz + a + ab + A"), None),
            "\"a,ab,Bz\""
        );
        assert_eq!(
            in_ads(
                "unresolved(e)",
                &e("a.b + c.d.e + [q=1].q + {m, n}[0] + [r = s].r"),
                None
            ),
            "\"a.b,c.d.e,m,n,s\""
        );
        assert_eq!(
            in_ads("unresolved(e)", &e("parent.g"), None),
            "\"'parent'.g\""
        );
        assert_eq!(
            in_ads(
                "unresolved(e)",
                &[("e", "x"), ("x", "y + z"), ("y", "1")],
                None
            ),
            "\"z\""
        );
        // A cycle or an unfollowable scope empties the answer.
        assert_eq!(
            in_ads("unresolved(e)", &[("e", "g + f"), ("f", "e")], None),
            "\"\""
        );
        assert_eq!(
            in_ads("unresolved(e)", &[("e", "g + c.d"), ("c", "1")], None),
            "\"\""
        );
        assert_eq!(
            in_ads(
                "unresolved(e)",
                &e("TARGET.q + TARGET.a"),
                Some(&[("q", "1")])
            ),
            "\"a\""
        );
        assert_eq!(
            in_ads("unresolved(e)", &e("x"), Some(&[("x", "1")])),
            "\"x\""
        );
        assert_eq!(
            in_ads(
                "unresolved(y)",
                &[("a", "1")],
                Some(&[("y", "TARGET.a + MY.b")])
            ),
            "\"b\""
        );
        assert_eq!(in_ads("unresolved(e, \"^Z$\")", &e("z"), None), "true");
        assert_eq!(in_ads("unresolved(e, \"q\")", &e("z"), None), "false");
        assert_eq!(in_ads("unresolved(e, \"(\")", &e("z"), None), "error");
        assert_eq!(in_ads("unresolved(e, \"x\", 1)", &e("z"), None), "error");
        assert_eq!(in_ads("unresolved(nothere, 1)", &e("z"), None), "undefined");
        assert_eq!(in_ads("unresolved(1)", &e("z"), None), "error");
    }

    // HTCondor 25.14.1 fails to evaluate a non-string regex.
    #[test]
    fn unresolved_fails_on_a_non_string_regex() {
        use crate::eval::{eval_in, Semantics};
        use crate::syntax::ast::ExprRef;
        use crate::syntax::parse_expr;
        use std::sync::Arc;
        let mut ad = crate::ad::ClassAd::new();
        ad.insert_expr("e", parse_expr("x").unwrap());
        let e = ExprRef::root_of(Arc::new(parse_expr("unresolved(e, 5)").unwrap()));
        assert!(eval_in(&e, &Arc::new(ad), None, Semantics::Htcondor).is_err());
    }
}
