//! HTCondor's depth limit of 400, counted as HTCondor 25 counts it (its source:
//! `operators.cpp`, `attrrefs.cpp`, `exprList.cpp`, `fnCall.cpp`): an operation takes
//! a level, a reference takes one for the expression it finds, a selection one for
//! its base only, a list subscript one more for the element, and a call none.
//! Expected values from HTCondor 25.14.1 (`classad2` after `import htcondor2`), on
//! both engines, at and around the limit.

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
}

#[test]
fn calls_nested_past_our_bound_fail_within_a_small_stack() {
    // 300 references, each through 150 nested calls: HTCondor's depth is 300, but
    // our stack is bounded by MAX_TOTAL_DEPTH nested evaluations, past which the
    // evaluation fails (README, compatibility list), on a 2 MiB thread.
    let r = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
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
        })
        .unwrap()
        .join()
        .unwrap();
    for (deep, shallow) in r {
        assert_eq!((deep.as_str(), shallow.as_str()), ("failed", "7"));
    }
}
