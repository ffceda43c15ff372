//! Instruction counts (iai-callgrind), the stable figures for regressions: one job
//! Requirements against one machine, one symmetric match with both ranks, and
//! compiling a slot ad, each on the VM and the reference evaluator; and all 1,200
//! pairs of the pool through the compiled pool's blocks of lanes. Run with
//! `cargo bench --bench instructions` (needs `iai-callgrind-runner` 0.16.1 and
//! valgrind).

use classad::ad::{read_ads_as, ClassAd, Format};
use classad::compile::compile_ad;
use classad::compile::host::VmHost;
use classad::eval::{eval_attr, Semantics};
use classad::matching::{rank, symmetric_match, CompiledPool};
use classad_vm::{Machine, Sides, SlotTable};
use iai_callgrind::{library_benchmark, library_benchmark_group, main};
use std::cell::RefCell;
use std::hint::black_box;
use std::sync::Arc;

fn pool(kind: &str) -> Vec<Arc<ClassAd>> {
    let path = format!(
        "{}/tests/conformance/pools/pool1.{kind}.ads",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("pool file");
    read_ads_as(&text, &path, Format::Old)
        .expect("pool parses")
        .into_iter()
        .map(Arc::new)
        .collect()
}

/// The pool, compiled, with one-time initialisation (builtin table, lazily built
/// statics, regex cache) done outside the measurement by one warm-up match.
/// Leaked, so that dropping the pool is not counted in the benchmark.
fn setup() -> &'static Fixture {
    let (jobs, machines) = (pool("jobs"), pool("machines"));
    let compiled = CompiledPool::new(&jobs, &machines);
    // The machine warmed on this pair (its cache of machine-only values filled), as
    // a matcher runs: every machine meets many jobs.
    let mut vm = Machine::new();
    compiled.symmetric_match(&mut vm, 0, 0);
    compiled.rank(&mut vm, 0, 0, true);
    symmetric_match(&jobs[0], &machines[0], Semantics::Htcondor);
    rank(&jobs[0], &machines[0], Semantics::Htcondor);
    Box::leak(Box::new((jobs, machines, compiled, RefCell::new(vm))))
}

type Fixture = (
    Vec<Arc<ClassAd>>,
    Vec<Arc<ClassAd>>,
    CompiledPool,
    RefCell<Machine>,
);

#[library_benchmark]
#[bench::first_pair(setup())]
fn job_requirements_reference((jobs, machines, _, _): &'static Fixture) -> bool {
    let v = eval_attr(
        &jobs[0],
        "Requirements",
        Some(&machines[0]),
        Semantics::Htcondor,
    );
    black_box(v).is_ok()
}

#[library_benchmark]
#[bench::first_pair(setup())]
fn job_requirements_vm((_, _, pool, vm): &'static Fixture) -> bool {
    let req = pool.slots.get("Requirements").expect("slot");
    let sides = Sides::new(&pool.jobs[0].vm, Some(&pool.machines[0].vm));
    let v = vm.borrow_mut().eval_attr(0, req, 0, sides, &mut VmHost);
    black_box(v).is_ok()
}

#[library_benchmark]
#[bench::first_pair(setup())]
fn symmetric_match_and_ranks_reference((jobs, machines, _, _): &'static Fixture) -> f64 {
    let m = symmetric_match(&jobs[0], &machines[0], Semantics::Htcondor);
    let r = rank(&jobs[0], &machines[0], Semantics::Htcondor)
        + rank(&machines[0], &jobs[0], Semantics::Htcondor);
    black_box(if m { r } else { -r })
}

#[library_benchmark]
#[bench::first_pair(setup())]
fn symmetric_match_and_ranks_vm((_, _, pool, vm): &'static Fixture) -> f64 {
    let mut vm = vm.borrow_mut();
    let m = pool.symmetric_match(&mut vm, 0, 0);
    let r = pool.rank(&mut vm, 0, 0, true) + pool.rank(&mut vm, 0, 0, false);
    black_box(if m { r } else { -r })
}

#[library_benchmark]
#[bench::pool1(setup_warm_pool())]
fn all_pairs_vm((_, _, pool, vm): &'static Fixture) -> usize {
    black_box(pool.all_pairs(&mut vm.borrow_mut())).len()
}

/// The fixture, its machine warmed by one walk over all pairs (the cache of
/// machine-only values full, as in a matcher's steady state).
fn setup_warm_pool() -> &'static Fixture {
    let f = setup();
    f.2.all_pairs(&mut f.3.borrow_mut());
    f
}

#[library_benchmark]
#[bench::slot_ad(setup())]
fn compile_slot_ad((_, machines, _, _): &'static Fixture) -> usize {
    let mut slots = SlotTable::new();
    let c = compile_ad(&machines[0], &mut slots);
    let n = slots.len();
    // The compiled ad is leaked too: only compiling is measured.
    std::mem::forget(c);
    std::mem::forget(slots);
    n
}

library_benchmark_group!(
    name = evaluation;
    benchmarks = job_requirements_reference, job_requirements_vm,
        symmetric_match_and_ranks_reference, symmetric_match_and_ranks_vm, all_pairs_vm,
        compile_slot_ad
);

main!(library_benchmark_groups = evaluation);
