//! Wall-time benchmarks of the batch matcher (`matching::batch`) and autoclusters,
//! on pools built from the three generated pools of `tests/conformance/pools`
//! (120 slot ads and 90 job ads, varied): the negotiator's ranked candidates of
//! 450 classes against 10,000 slots on 1 and 2 threads; all pairs of 2,000 jobs x
//! 2,000 slots job by job (`--no-autocluster`) on one thread, beside
//! `CompiledPool::all_pairs` (compiled once, outside the loop); clustering 20,000
//! jobs. With `CLASSAD_BENCH_POOL=DIR` (holding `jobs.ads` and `machines.ads`, as
//! `gen_pool.py` writes them) the candidates are those of that pool instead.

use classad::ad::{read_ads_as, ClassAd, Format};
use classad::matching::batch::BatchMatcher;
use classad::matching::{Autoclusters, CompiledPool, NegotiatorPolicy, SignificantAttributes};
use classad::syntax::ast::Expr;
use classad::Value;
use classad_vm::Machine;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::sync::Arc;

fn read(path: &str) -> Vec<ClassAd> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    read_ads_as(&text, path, Format::Old).unwrap()
}

fn conformance(kind: &str) -> Vec<ClassAd> {
    (1..=3)
        .flat_map(|n| {
            read(&format!(
                "{}/tests/conformance/pools/pool{n}.{kind}.ads",
                env!("CARGO_MANIFEST_DIR")
            ))
        })
        .collect()
}

/// `n` ads cycling through `base`, copy `i` with `name` set to `value(i)`.
fn varied(
    base: &[ClassAd],
    n: usize,
    name: &str,
    value: impl Fn(usize) -> i64,
) -> Vec<Arc<ClassAd>> {
    (0..n)
        .map(|i| {
            let mut ad = base[i % base.len()].clone();
            ad.insert_expr(name, Expr::literal(Value::Int(value(i))));
            Arc::new(ad)
        })
        .collect()
}

fn slots(n: usize) -> Vec<Arc<ClassAd>> {
    varied(&conformance("machines"), n, "Memory", |i| {
        1024 * (4 + (i % 61) as i64)
    })
}

/// Distinct jobs: each conformance job with five request sizes.
fn distinct_jobs(n: usize) -> Vec<Arc<ClassAd>> {
    let base = conformance("jobs");
    let len = base.len();
    varied(&base, n, "RequestMemory", move |i| {
        512 * (1 + (i / len % 5) as i64)
    })
}

/// Jobs and slots.
type Pool = (Vec<Arc<ClassAd>>, Vec<Arc<ClassAd>>);

fn pool_from_env() -> Option<Pool> {
    let dir = std::env::var("CLASSAD_BENCH_POOL").ok()?;
    let arc = |ads: Vec<ClassAd>| ads.into_iter().map(Arc::new).collect();
    Some((
        arc(read(&format!("{dir}/jobs.ads"))),
        arc(read(&format!("{dir}/machines.ads"))),
    ))
}

fn candidates(c: &mut Criterion) {
    let (jobs, machines) = pool_from_env().unwrap_or_else(|| (distinct_jobs(450), slots(10_000)));
    let policy = NegotiatorPolicy::default();
    let mut g = c.benchmark_group("batch_candidates");
    g.sample_size(10);
    let mut matcher = BatchMatcher::new(&jobs, &machines, &policy, true);
    let pairs = (matcher.class_count() * machines.len()) as u64;
    g.throughput(Throughput::Elements(pairs));
    for threads in [1, 2] {
        let workers = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        g.bench_function(BenchmarkId::new("threads", threads), |b| {
            b.iter(|| {
                workers.install(|| {
                    let mut n = 0usize;
                    matcher
                        .for_each_candidates(|_, c| {
                            n += c.len();
                            Ok::<(), ()>(())
                        })
                        .unwrap();
                    n
                })
            })
        });
    }
    g.finish();
}

fn all_pairs_job_by_job(c: &mut Criterion) {
    let (jobs, machines) = (distinct_jobs(2000), slots(2000));
    let policy = NegotiatorPolicy::default();
    let mut matcher = BatchMatcher::new(&jobs, &machines, &policy, false);
    let workers = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let mut g = c.benchmark_group("batch_all_pairs_2000x2000");
    g.throughput(Throughput::Elements((jobs.len() * machines.len()) as u64));
    g.sample_size(10);
    // The pair-by-pair matcher of earlier sessions, for comparison.
    let compiled = CompiledPool::new(&jobs, &machines);
    let mut vm = Machine::new();
    g.bench_function("compiled_pool_all_pairs", |b| {
        b.iter(|| compiled.all_pairs(&mut vm).len())
    });
    g.bench_function("no_autocluster_1_thread", |b| {
        b.iter(|| {
            workers.install(|| {
                let mut n = 0usize;
                matcher
                    .for_each_pair(|_, _| {
                        n += 1;
                        Ok::<(), ()>(())
                    })
                    .unwrap();
                n
            })
        })
    });
    g.finish();
}

fn clustering(c: &mut Criterion) {
    let machines = slots(2000);
    let base = distinct_jobs(450);
    // Procs of a cluster: consecutive copies with their own ProcId.
    let jobs: Vec<Arc<ClassAd>> = (0..20_000)
        .map(|i| {
            let mut ad = (*base[i / 40 % base.len()]).clone();
            ad.insert_expr("ProcId", Expr::literal(Value::Int((i % 40) as i64)));
            Arc::new(ad)
        })
        .collect();
    let sig = SignificantAttributes::compute(&machines, &NegotiatorPolicy::default());
    let mut g = c.benchmark_group("autoclusters");
    g.throughput(Throughput::Elements(jobs.len() as u64));
    g.sample_size(10);
    g.bench_function("20000_jobs", |b| {
        b.iter(|| Autoclusters::with(&jobs, sig.clone()).len())
    });
    g.finish();
}

criterion_group!(benches, candidates, all_pairs_job_by_job, clustering);
criterion_main!(benches);
