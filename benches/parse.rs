//! Parse throughput: old-syntax pool files (slot and job ads, as `condor_status -l`
//! and `condor_q -l` print them) read into ClassAds.
//!
//! Each iteration reads the file and drops the ads, so both are timed.

use classad::ad::{read_ads_as, Format};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

#[path = "tools/unique_values.rs"]
mod unique_values;
use unique_values::unique_values;

fn pool(name: &str) -> String {
    let path = format!(
        "{}/tests/conformance/pools/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn parse_pool(c: &mut Criterion) {
    let mut g = c.benchmark_group("parse_old_syntax");
    let machines = pool("pool1.machines.ads");
    let files = [
        ("pool1.machines.ads", machines.clone()),
        ("pool1.jobs.ads", pool("pool1.jobs.ads")),
        ("pool1.machines.unique_values", unique_values(&machines)),
    ];
    for (name, text) in &files {
        let n = read_ads_as(text, name, Format::Old).unwrap().len();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::from_parameter(name), text, |b, text| {
            b.iter(|| read_ads_as(black_box(text), name, Format::Old).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, parse_pool);
criterion_main!(benches);
