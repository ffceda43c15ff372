//! HTCondor evaluates an ad subscript (`ad["x"]`, its `EvaluateAttr`) and each
//! element of `evalInEachContext` / `countMatches` as a fresh top-level evaluation:
//! a depth of 400 and 10,000,000 steps of its own, whatever the evaluation around it
//! has spent. Expected values from HTCondor 25.14.1 (`classad2`, after `import
//! htcondor2`), on both engines.

use classad::ad::{read_ads, ClassAd};
use classad::eval::display::unparse_value;
use classad::eval::{eval_in_with, Engine, Semantics};
use classad::syntax::{ast::ExprRef, parse_expr};
use std::sync::Arc;

fn ad(text: &str) -> Arc<ClassAd> {
    Arc::new(read_ads(text, "t").unwrap().remove(0))
}

fn eval(engine: Engine, my: &Arc<ClassAd>, expr: &str) -> String {
    let e = ExprRef::root_of(Arc::new(parse_expr(expr).unwrap()));
    match eval_in_with(engine, &e, my, None, Semantics::Htcondor) {
        Ok(v) => unparse_value(&v),
        Err(_) => "failed".to_string(),
    }
}

/// `A0 = A1 + A1; ... A30 = 1`: A9 takes about 6.3 million steps, so two of them
/// exceed one budget.
fn doubling() -> Arc<ClassAd> {
    let mut s: String = (0..30)
        .map(|i| format!("A{i} = A{} + A{}\n", i + 1, i + 1))
        .collect();
    s.push_str("A30 = 1\n");
    ad(&s)
}

#[test]
fn fresh_evaluations_have_a_step_budget_of_their_own() {
    let my = doubling();
    for engine in [Engine::Reference, Engine::Vm] {
        for (expr, htcondor) in [
            ("A9 + A9", "failed"),
            ("A9 + [q = A9][\"q\"]", "4194304"),
            ("A9 + countMatches(A9 > 0, {[z = 1]})", "2097153"),
            // A list selection is not a fresh evaluation.
            ("A9 + {[q = A9]}.q[0]", "failed"),
        ] {
            assert_eq!(eval(engine, &my, expr), htcondor, "{expr} on {engine:?}");
        }
    }
}

#[test]
fn fresh_evaluations_have_a_depth_of_their_own() {
    // B0 needs about 300 levels; each C and E level adds 2 around it.
    let mut s = String::new();
    for k in 0..150 {
        s.push_str(&format!("B{k} = B{} + 0\n", k + 1));
    }
    s.push_str("B150 = 1\n");
    for (x, innermost) in [
        ("C", "[q = B0][\"q\"]"),
        ("E", "evalInEachContext(B0, {[z = 1]})[0]"),
        ("F", "B0"),
    ] {
        for k in 0..100 {
            s.push_str(&format!("{x}{k} = {x}{} + 0\n", k + 1));
        }
        s.push_str(&format!("{x}100 = {innermost}\n"));
    }
    let my = ad(&s);
    for engine in [Engine::Reference, Engine::Vm] {
        for (expr, htcondor) in [("B0", "1"), ("C0", "1"), ("E0", "1"), ("F0", "failed")] {
            assert_eq!(eval(engine, &my, expr), htcondor, "{expr} on {engine:?}");
        }
    }
}

#[test]
fn a_subscript_that_reaches_itself_stops_within_a_small_stack() {
    // HTCondor recurses until its stack overflows; we stop at our bound on the
    // total depth, on a thread with the 2 MiB stack of a spawned thread.
    let r = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let my = ad("x = self[\"x\"]\ny = [x = self[\"x\"]].x\n");
            [Engine::Reference, Engine::Vm]
                .map(|engine| (eval(engine, &my, "x"), eval(engine, &my, "y")))
        })
        .unwrap()
        .join()
        .unwrap();
    for (x, y) in r {
        assert_eq!((x.as_str(), y.as_str()), ("error", "error"));
    }
}
