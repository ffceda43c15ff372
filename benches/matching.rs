//! Wall-time benchmarks of evaluation and matching, VM beside the reference
//! evaluator, on the generated pool in `tests/conformance/pools/pool1.*`.
//!
//! (a) one job's Requirements against one machine, (b) one symmetric match with
//! both Rank values, (c) compiling one typical slot ad, and (d) all pairs of the
//! pool (30 jobs x 40 slots); (e) a job whose own attributes are past HTCondor's
//! step limit (`A0 = A1 + A1; ... A30 = 1`) against 200 slots, pair by pair (the
//! reference would spend its whole 10,000,000-step budget on every pair); (f) a
//! query's constraint over 1,000 ads whose expensive part reads nothing of the ad,
//! evaluated afresh in every ad and replayed (`eval::independent`).

use classad::ad::{read_ads_as, ClassAd, Format};
use classad::compile::compile_ad;
use classad::eval::{eval_attr, Semantics};
use classad::matching::{rank, symmetric_match, CompiledPool};
use classad_vm::{Machine, Sides, SlotTable};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::sync::Arc;

fn pool(kind: &str) -> Vec<Arc<ClassAd>> {
    let path = format!(
        "{}/tests/conformance/pools/pool1.{kind}.ads",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    read_ads_as(&text, &path, Format::Old)
        .unwrap()
        .into_iter()
        .map(Arc::new)
        .collect()
}

fn requirements(c: &mut Criterion) {
    let (jobs, machines) = (pool("jobs"), pool("machines"));
    let compiled = CompiledPool::new(&jobs, &machines);
    let req = compiled.slots.get("Requirements").unwrap();
    let mut g = c.benchmark_group("job_requirements");
    g.bench_function("reference", |b| {
        b.iter(|| {
            eval_attr(
                &jobs[0],
                "Requirements",
                Some(&machines[0]),
                Semantics::Htcondor,
            )
        })
    });
    let mut vm = Machine::new();
    let sides = Sides::new(&compiled.jobs[0].vm, Some(&compiled.machines[0].vm));
    g.bench_function("vm", |b| {
        b.iter(|| {
            vm.eval_attr(
                0,
                black_box(req),
                0,
                sides,
                &mut classad::compile::host::VmHost,
            )
        })
    });
    g.finish();
}

fn symmetric_match_with_ranks(c: &mut Criterion) {
    let (jobs, machines) = (pool("jobs"), pool("machines"));
    let compiled = CompiledPool::new(&jobs, &machines);
    let mut g = c.benchmark_group("symmetric_match_and_ranks");
    g.bench_function("reference", |b| {
        b.iter(|| {
            let m = symmetric_match(&jobs[0], &machines[0], Semantics::Htcondor);
            let r1 = rank(&jobs[0], &machines[0], Semantics::Htcondor);
            let r2 = rank(&machines[0], &jobs[0], Semantics::Htcondor);
            (m, r1, r2)
        })
    });
    let mut vm = Machine::new();
    g.bench_function("vm", |b| {
        b.iter(|| {
            let m = compiled.symmetric_match(&mut vm, 0, 0);
            let r1 = compiled.rank(&mut vm, 0, 0, true);
            let r2 = compiled.rank(&mut vm, 0, 0, false);
            (m, r1, r2)
        })
    });
    g.finish();
}

fn compile_time(c: &mut Criterion) {
    let machines = pool("machines");
    c.bench_function("compile_slot_ad", |b| {
        b.iter(|| {
            let mut slots = SlotTable::new();
            compile_ad(black_box(&machines[0]), &mut slots)
        })
    });
}

fn all_pairs(c: &mut Criterion) {
    let (jobs, machines) = (pool("jobs"), pool("machines"));
    let compiled = CompiledPool::new(&jobs, &machines);
    let mut g = c.benchmark_group("all_pairs_30x40");
    g.throughput(Throughput::Elements((jobs.len() * machines.len()) as u64));
    g.sample_size(20);
    g.bench_function(BenchmarkId::from_parameter("reference"), |b| {
        b.iter(|| {
            let mut n = 0;
            for j in &jobs {
                for m in &machines {
                    n += symmetric_match(j, m, Semantics::Htcondor) as usize;
                }
            }
            n
        })
    });
    let mut vm = Machine::new();
    g.bench_function(BenchmarkId::from_parameter("vm"), |b| {
        b.iter(|| {
            let mut n = 0;
            for j in 0..jobs.len() {
                for m in 0..machines.len() {
                    n += compiled.symmetric_match(&mut vm, j, m) as usize;
                }
            }
            n
        })
    });
    g.finish();
}

fn job_past_the_step_limit(c: &mut Criterion) {
    let mut job: String = (0..30)
        .map(|i| format!("A{i} = A{} + A{}\n", i + 1, i + 1))
        .collect();
    job.push_str("A30 = 1\nRequirements = A0 > 0 && TARGET.Cpus > 0\n");
    let slots: String = (0..200)
        .map(|i| format!("Cpus = {}\nRequirements = true\n\n", i % 8))
        .collect();
    let ads = |text: &str| -> Vec<Arc<ClassAd>> {
        read_ads_as(text, "bench", Format::Old)
            .unwrap()
            .into_iter()
            .map(Arc::new)
            .collect()
    };
    let (jobs, machines) = (ads(&job), ads(&slots));
    let compiled = CompiledPool::new(&jobs, &machines);
    let mut vm = Machine::new();
    c.bench_function("job_past_step_limit_200_slots", |b| {
        b.iter(|| {
            (0..machines.len())
                .filter(|&m| compiled.symmetric_match(&mut vm, 0, m))
                .count()
        })
    });
}

fn query_with_an_independent_part(c: &mut Criterion) {
    use classad::eval::eval_in;
    use classad::eval::independent::IndependentParts;
    use classad::syntax::{ast::ExprRef, parse_expr};
    let items: Vec<String> = (0..10_000).map(|i| i.to_string()).collect();
    let constraint = format!(
        "Cpus > 0 && size(split(\"{}\", \",\")) > 9000",
        items.join(",")
    );
    let e = ExprRef::root_of(Arc::new(parse_expr(&constraint).unwrap()));
    let text: String = (0..1000).map(|i| format!("Cpus = {}\n\n", i % 4)).collect();
    let ads: Vec<Arc<ClassAd>> = read_ads_as(&text, "bench", Format::Old)
        .unwrap()
        .into_iter()
        .map(Arc::new)
        .collect();
    let selected = |v: Result<classad::Value, classad::eval::Fail>| {
        v.is_ok_and(|v| v.as_bool_equiv() == Some(true))
    };
    let mut g = c.benchmark_group("query_1000_ads");
    g.sample_size(10);
    g.bench_function("every_ad_afresh", |b| {
        b.iter(|| {
            ads.iter()
                .filter(|ad| selected(eval_in(&e, ad, None, Semantics::Htcondor)))
                .count()
        })
    });
    g.bench_function("independent_parts_replayed", |b| {
        b.iter(|| {
            let mut parts = IndependentParts::new(&e);
            ads.iter()
                .filter(|ad| selected(parts.eval_in(ad, Semantics::Htcondor)))
                .count()
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    requirements,
    symmetric_match_with_ranks,
    compile_time,
    all_pairs,
    job_past_the_step_limit,
    query_with_an_independent_part
);
criterion_main!(benches);
