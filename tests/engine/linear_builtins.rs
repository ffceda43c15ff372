//! The list and string builtins do linear work: the bytes an evaluation allocates
//! grow in proportion to its input, counted by an allocator that tallies this
//! thread's allocations (a deterministic measure; timings belong in
//! `benches/builtins.rs`). Reading a list element once copied the whole list, so
//! `join(",", split(S))` allocated n² elements.

use classad::ad::read_ads;
use classad::engine::{eval_in_with, Engine};
use classad::eval::Semantics;
use classad::syntax::ast::ExprRef;
use classad::syntax::parse_expr;
use std::sync::Arc;

use crate::counting_alloc;

/// Bytes allocated evaluating `expr` on `engine` in an ad whose `S` holds the items
/// `0,1,...,n-1` and `L` the same numbers as a list literal.
fn bytes_for(engine: Engine, expr: &str, n: usize) -> u64 {
    let items: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    let text = format!("S = \"{0}\"\nL = {{{0}}}\n", items.join(","));
    let ad = Arc::new(read_ads(&text, "t.ad").unwrap().remove(0));
    let e = ExprRef::root_of(Arc::new(parse_expr(expr).unwrap()));
    let before = counting_alloc::bytes();
    let v = eval_in_with(engine, &e, &ad, None, Semantics::Htcondor).unwrap();
    assert!(!v.is_error(), "{expr}");
    counting_alloc::bytes() - before
}

#[test]
fn list_builtins_allocate_in_proportion_to_their_input() {
    let exprs = [
        r#"size(join(",", split(S)))"#,
        r#"size(join(",", L))"#,
        "sum(L)",
        "max(L)",
        r#"anyCompare("==", split(S), "x")"#,
        r#"member("x", split(S))"#,
        "stringListSubsetMatch(S, S)",
        "stringListISubsetMatch(S, S)",
        "{[a = 1], [a = 2], [a = 3]}.a",
    ];
    for engine in [Engine::Vm, Engine::Reference] {
        for expr in exprs {
            let small = bytes_for(engine, expr, 2_000);
            let large = bytes_for(engine, expr, 8_000);
            // Four times the input: linear work allocates about four times the
            // bytes (quadratic, sixteen times).
            assert!(
                large < 6 * small.max(1),
                "{engine:?} {expr}: {small} bytes for 2,000 items, {large} for 8,000"
            );
        }
    }
}
