//! Parse throughput: old-syntax pool files (slot and job ads, as `condor_status -l`
//! and `condor_q -l` print them) read into ClassAds.
//!
//! Each iteration reads the file and drops the ads, so both are timed.
//!
//! With the real ad files beside the repository (`CLASSAD_REAL_ADS`, by default
//! `../shared/real-ads`; not ours to commit), also the production pool sample:
//! 205 slot and daemon ads of about 500 attributes each, ten times the size of
//! the generated ones, read, and its slots matched against the generated jobs.

use classad::ad::{read_ads_as, ClassAd, Format};
use classad::matching::CompiledPool;
use classad_vm::Machine;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::io::Read;
use std::sync::Arc;

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

/// The production pool sample's text, when the real ad files are there.
fn real_pool_sample() -> Option<String> {
    let dir = std::env::var("CLASSAD_REAL_ADS")
        .unwrap_or_else(|_| format!("{}/../shared/real-ads", env!("CARGO_MANIFEST_DIR")));
    let path = format!("{dir}/pelican__collections__vm__testdata__pool_sample.ads.gz");
    let Ok(file) = std::fs::File::open(&path) else {
        eprintln!("{path}: not there; the real pool sample's benchmarks are skipped");
        return None;
    };
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(file)
        .read_to_string(&mut text)
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    Some(text)
}

fn real_pool(c: &mut Criterion) {
    let Some(text) = real_pool_sample() else {
        return;
    };
    let ads = read_ads_as(&text, "pool_sample", Format::Old).unwrap();
    let mut g = c.benchmark_group("real_pool_sample");
    g.throughput(Throughput::Elements(ads.len() as u64));
    g.bench_function("parse", |b| {
        b.iter(|| read_ads_as(black_box(&text), "pool_sample", Format::Old).unwrap())
    });
    let slots: Vec<Arc<ClassAd>> = ads
        .into_iter()
        .filter(|a| a.contains("Start") || a.contains("Requirements"))
        .map(Arc::new)
        .collect();
    let jobs: Vec<Arc<ClassAd>> = read_ads_as(&pool("pool1.jobs.ads"), "jobs", Format::Old)
        .unwrap()
        .into_iter()
        .map(Arc::new)
        .collect();
    g.throughput(Throughput::Elements((slots.len() * jobs.len()) as u64));
    g.bench_function("compile_and_match_all_pairs", |b| {
        b.iter(|| {
            let pool = CompiledPool::new(&jobs, &slots);
            let mut vm = Machine::new();
            let mut n = 0;
            for j in 0..jobs.len() {
                for m in 0..slots.len() {
                    n += pool.symmetric_match(&mut vm, j, m) as usize;
                }
            }
            n
        })
    });
    g.finish();
}

criterion_group!(benches, parse_pool, real_pool);
criterion_main!(benches);
