//! Wall-time cost of `regexp` on each regex engine: the linear `regex` crate and
//! PCRE2 (patterns with back-references or look-around), with the pattern cached
//! (`match`) and compiled afresh each time (`compile+match`: a counter in the
//! pattern defeats the cache), plus a runaway pattern that stops at PCRE2's match
//! limit.

use classad::engine::{eval_alone_with, Engine};
use classad::eval::Semantics;
use classad::syntax::parse_expr;
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

/// (name, pattern, target): ClassAd string literals' contents.
const CASES: [(&str, &str, &str); 3] = [
    (
        "linear",
        r"^slot[0-9]+@(\\w+)\\.example\\.org$",
        "slot12@node7.example.org",
    ),
    (
        "backreference",
        r"^(\\w+)@\\1\\.example\\.org$",
        "node7@node7.example.org",
    ),
    (
        "lookbehind",
        r"(?<=@)node[0-9]+(?=\\.)",
        "slot12@node7.example.org",
    ),
];

fn regexp(c: &mut Criterion) {
    let mut g = c.benchmark_group("regexp");
    for (name, pattern, target) in CASES {
        let e = parse_expr(&format!("regexp(\"{pattern}\", \"{target}\")")).unwrap();
        g.bench_function(format!("{name}/match"), |b| {
            b.iter(|| black_box(eval_alone_with(Engine::Reference, &e, Semantics::Htcondor)))
        });
        // A thousand distinct patterns, more than the cache keeps.
        let fresh: Vec<_> = (0..1000)
            .map(|i| parse_expr(&format!("regexp(\"{pattern}|z{i}\", \"{target}\")")).unwrap())
            .collect();
        let mut next = fresh.iter().cycle();
        g.bench_function(format!("{name}/compile+match"), |b| {
            b.iter(|| {
                let e = next.next().unwrap();
                black_box(eval_alone_with(Engine::Reference, e, Semantics::Htcondor))
            })
        });
    }
    let runaway = parse_expr(&format!("regexp(\"(a+)+\\\\1$\", \"{}b\")", "a".repeat(30))).unwrap();
    g.sample_size(10);
    g.bench_function("runaway/match_limit", |b| {
        b.iter(|| {
            black_box(eval_alone_with(
                Engine::Reference,
                &runaway,
                Semantics::Htcondor,
            ))
        })
    });
    g.finish();
}

criterion_group!(benches, regexp);
criterion_main!(benches);
