//! Compiling and printing long expressions: both must be linear in the size of the
//! expression (issue 9). A flat chain `1 + 1 + ...` of n terms is n levels deep; a
//! balanced tree of n leaves (`(a + b) + (c + d)`, in parentheses) is shallow, so
//! the code generator compiles all of it rather than leaving it to the reference
//! evaluator. Throughput is in terms (leaves): equal rates at 1k, 10k and 100k
//! terms mean linear time.

use classad::ad::{read_ads, ClassAd};
use classad::compile::compile_ad;
use classad::syntax::unparse;
use classad_vm::SlotTable;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::sync::Arc;

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];

fn flat_chain(n: usize) -> String {
    vec!["1"; n].join(" + ")
}

/// A balanced tree of `n` leaves that read MY, TARGET and constants.
fn balanced(n: usize, first: usize, out: &mut String) {
    if n == 1 {
        out.push_str(["TARGET.Memory", "RequestCpus", "3"][first % 3]);
        return;
    }
    out.push('(');
    balanced(n / 2, first, out);
    out.push_str(" + ");
    balanced(n - n / 2, first + n / 2, out);
    out.push(')');
}

fn ad_with(expr: &str) -> Arc<ClassAd> {
    let text = format!("RequestCpus = 2\nA = {expr}\nRequirements = true\n");
    Arc::new(read_ads(&text, "bench").unwrap().remove(0))
}

fn compile(c: &mut Criterion) {
    let mut g = c.benchmark_group("compile_ad");
    g.sample_size(20);
    for n in SIZES {
        let mut tree = String::new();
        balanced(n, 0, &mut tree);
        for (shape, expr) in [("flat_chain", flat_chain(n)), ("balanced", tree)] {
            let ad = ad_with(&expr);
            g.throughput(Throughput::Elements(n as u64));
            g.bench_with_input(BenchmarkId::new(shape, n), &ad, |b, ad| {
                b.iter(|| compile_ad(black_box(ad), &mut SlotTable::new()))
            });
        }
    }
    g.finish();
}

fn print(c: &mut Criterion) {
    let mut g = c.benchmark_group("unparse");
    g.sample_size(20);
    for n in SIZES {
        let ad = ad_with(&flat_chain(n));
        let a = ad.get("A").unwrap().to_expr_ref();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("flat_chain", n), &a, |b, a| {
            b.iter(|| unparse(black_box(&a.tree)))
        });
    }
    g.finish();
}

criterion_group!(benches, compile, print);
criterion_main!(benches);
