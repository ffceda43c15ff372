//! Wall-time benchmarks of every list and string builtin on 100,000 elements (a
//! 100,000-item string list, a 100,000-element list literal, or a
//! 100,000-character string), through the public evaluation API so that the whole
//! path is measured: compiling the expression and the ad, evaluating, building the
//! result. Each runs on the VM (the default engine); `join(split)` also on the
//! reference evaluator. Anything superlinear shows here as seconds, not
//! milliseconds (`join(",", split(S))` at 80,000 items took 63 s before list
//! elements stopped being copied per read).

use classad::ad::{read_ads, ClassAd};
use classad::engine::{eval_in_with, Engine};
use classad::eval::Semantics;
use classad::syntax::ast::ExprRef;
use classad::syntax::parse_expr;
use criterion::{criterion_group, criterion_main, Criterion};
use std::fmt::Write;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

const N: usize = 100_000;

/// The ad every benchmark evaluates in: `S` the items `0,1,...,99999` as one
/// string, `L` the same numbers as a list literal, `T` 100,000 `x`s.
fn big_ad() -> Arc<ClassAd> {
    let items: Vec<String> = (0..N).map(|i| i.to_string()).collect();
    let mut text = String::new();
    writeln!(text, "S = \"{}\"", items.join(",")).unwrap();
    writeln!(text, "L = {{{}}}", items.join(",")).unwrap();
    writeln!(text, "T = \"{}\"", "x".repeat(N)).unwrap();
    Arc::new(read_ads(&text, "bench.ad").unwrap().remove(0))
}

/// One benchmark per builtin, named after it.
const CASES: &[(&str, &str)] = &[
    ("split", "size(split(S))"),
    ("join_split", r#"size(join(",", split(S)))"#),
    ("join_list", r#"size(join(",", L))"#),
    ("strcat", "size(strcat(T, T, S))"),
    ("size", "size(T)"),
    ("substr", "size(substr(T, 50000))"),
    ("toUpper", "size(toUpper(T))"),
    ("toLower", "size(toLower(T))"),
    ("string_of_list", "size(string(split(S)))"),
    ("stringListSize", "stringListSize(S)"),
    ("stringListSum", "stringListSum(S)"),
    ("stringListAvg", "stringListAvg(S)"),
    ("stringListMin", "stringListMin(S)"),
    ("stringListMax", "stringListMax(S)"),
    ("stringListMember", r#"stringListMember("99999", S)"#),
    ("stringListIMember", r#"stringListIMember("99999", S)"#),
    ("stringListSubsetMatch", "stringListSubsetMatch(S, S)"),
    ("stringListISubsetMatch", "stringListISubsetMatch(S, S)"),
    (
        "stringListsIntersect",
        r#"stringListsIntersect(S, "99999")"#,
    ),
    ("member", "member(99999, L)"),
    ("identicalMember", "identicalMember(99999, L)"),
    ("anyCompare", r#"anyCompare("==", L, 99999)"#),
    ("allCompare", r#"allCompare(">=", L, 0)"#),
    ("sum", "sum(L)"),
    ("avg", "avg(L)"),
    ("min", "min(L)"),
    ("max", "max(L)"),
    ("regexp", r#"regexp("9999$", S)"#),
    ("regexps", r#"size(regexps("(x+)", T, "\\1y"))"#),
    ("replaceAll", r#"size(replaceAll("x", T, "yy"))"#),
    ("splitUserName", "size(splitUserName(T))"),
    ("argsToList", r#"size(argsToList(join(" ", split(S))))"#),
    ("list_subscript", "L[99999]"),
];

fn builtins(c: &mut Criterion) {
    let ad = big_ad();
    let mut g = c.benchmark_group("builtins_100k");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    let run = |engine, e: &ExprRef| {
        let v = eval_in_with(engine, e, &ad, None, Semantics::Htcondor).unwrap();
        assert!(!v.is_error(), "{e:?} gave error");
        v
    };
    for (name, src) in CASES {
        let e = ExprRef::root_of(Arc::new(parse_expr(src).unwrap()));
        g.bench_function(*name, |b| b.iter(|| black_box(run(Engine::Vm, &e))));
    }
    let e = ExprRef::root_of(Arc::new(
        parse_expr(r#"size(join(",", split(S)))"#).unwrap(),
    ));
    g.bench_function("join_split_reference", |b| {
        b.iter(|| black_box(run(Engine::Reference, &e)))
    });
    g.finish();
}

criterion_group!(benches, builtins);
criterion_main!(benches);
