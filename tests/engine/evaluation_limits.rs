//! HTCondor's limits on one evaluation, as HTCondor 25 applies them (its source:
//! `operators.cpp`, `attrrefs.cpp`, `exprList.cpp`, `fnCall.cpp`, `classad.cpp`),
//! with the expected values from HTCondor 25.14.1 (`classad2` after `import
//! htcondor2`), on both engines, at and around the limits:
//!
//! - the depth limit of 400: an operation takes a level, a reference takes one for
//!   the expression it finds, a selection one for its base only, a list subscript
//!   one more for the element, and a call none;
//! - an ad subscript (`ad["x"]`, HTCondor's `EvaluateAttr`) and each element of
//!   `evalInEachContext` / `countMatches` are fresh top-level evaluations: a depth
//!   of 400 and 10,000,000 steps of their own, whatever the evaluation around them
//!   has spent.

use classad::ad::{read_ads, ClassAd};
use classad::engine::{eval_in_with, Engine};
use classad::eval::Semantics;
use classad::syntax::{ast::ExprRef, parse_expr};
use classad::values::display::unparse_value;
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

/// Runs `f` on a thread with the 2 MiB stack of a spawned thread (rayon's, a
/// test's), the harshest our evaluators must live in.
fn on_a_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

fn chain(terms: usize) -> String {
    vec!["1"; terms].join(" + ")
}

fn check(my: &Arc<ClassAd>, cases: &[(&str, &str)]) {
    for engine in [Engine::Reference, Engine::Vm] {
        for (expr, htcondor) in cases {
            assert_eq!(eval(engine, my, expr), *htcondor, "{expr} on {engine:?}");
        }
    }
}

#[test]
fn calls_take_no_depth() {
    // 300 references, each through a call: 300 levels for HTCondor.
    let mut s: String = (0..300)
        .map(|k| format!("A{k} = int(A{})\n", k + 1))
        .collect();
    s.push_str("A300 = 7\n");
    check(&ad(&s), &[("A0", "7"), ("A150", "7")]);
}

#[test]
fn a_selection_takes_a_level_for_its_base_only() {
    for (terms, htcondor) in [(399, "399"), (400, "400"), (401, "failed")] {
        let my = ad(&format!("A = {}\n", chain(terms)));
        check(&my, &[("A", htcondor), ("MY.A", htcondor)]);
    }
}

#[test]
fn a_list_subscript_takes_a_level_for_the_element() {
    for (terms, via_attribute, literal) in [
        (398, "398", "398"),
        (399, "error", "399"),
        (400, "error", "error"),
    ] {
        let my = ad(&format!("A = {}\n", chain(terms)));
        let literal_list = format!("{{{}}}[0]", chain(terms));
        check(&my, &[("{A}[0]", via_attribute), (&literal_list, literal)]);
    }
    // A list held in an attribute, subscripted in place and through another
    // attribute (which the VM compiles for itself).
    for (terms, in_place, through) in [
        (397, "397", "397"),
        (398, "398", "error"),
        (399, "399", "error"),
        (400, "error", "error"),
    ] {
        let my = ad(&format!("L = {{{}}}\nB = L[0] + 0\n", chain(terms)));
        check(&my, &[("L[0]", in_place), ("B", through)]);
    }
}

#[test]
fn calls_nested_past_our_bound_fail_within_a_small_stack() {
    // 300 references, each through 150 nested calls: HTCondor's depth is 300, but
    // our stack is bounded by MAX_TOTAL_DEPTH nested evaluations, past which the
    // evaluation fails (docs/compatibility.md, limits), on a 2 MiB thread.
    let r = on_a_small_stack(|| {
        let mut s: String = (0..300)
            .map(|k| {
                format!(
                    "A{k} = {}A{}{}\n",
                    "int(".repeat(150),
                    k + 1,
                    ")".repeat(150)
                )
            })
            .collect();
        s.push_str("A300 = 7\n");
        let my = ad(&s);
        [Engine::Reference, Engine::Vm]
            .map(|engine| (eval(engine, &my, "A0"), eval(engine, &my, "A299")))
    });
    for (deep, shallow) in r {
        assert_eq!((deep.as_str(), shallow.as_str()), ("failed", "7"));
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
    let r = on_a_small_stack(|| {
        let my = ad("x = self[\"x\"]\ny = [x = self[\"x\"]].x\n");
        [Engine::Reference, Engine::Vm]
            .map(|engine| (eval(engine, &my, "x"), eval(engine, &my, "y")))
    });
    for (x, y) in r {
        assert_eq!((x.as_str(), y.as_str()), ("error", "error"));
    }
}

#[test]
fn a_count_that_reaches_its_own_attribute_stops_at_our_total_bound() {
    // Found by the vm_vs_reference fuzz target: each fresh evaluation of `Arch`
    // in a context ad reaches `Arch` again, and a fresh evaluation does not know
    // what is being evaluated around it (HTCondor's neither), so it recurses into
    // every context ad at every level: before the bound was lowered it took
    // minutes, then seconds at our total of MAX_TOTAL_STEPS; now the first fresh
    // evaluation that starts where one around it did ends it (HTCondor's never
    // ends). Both engines give the same.
    let machine = ad("Arch = 1 - 7 * countMatches(Arch, { [b = 1], [a = 3], [a = 2] })\n");
    let answers = [Engine::Reference, Engine::Vm].map(|engine| eval(engine, &machine, "Arch"));
    assert_eq!(answers[0], answers[1]);
}
