//! Instruction counts (iai-callgrind), the stable figures for regressions: one job
//! Requirements against one machine, one symmetric match with both ranks, and
//! compiling a slot ad, each on the VM and the reference evaluator; and all 1,200
//! pairs of the pool through the compiled pool's blocks of lanes; the batch matcher's
//! ranked candidates and clustering on one thread; and per shape family of
//! `classad::generate::shapes` (issue 12), all pairs of 128 jobs x 128 slots on
//! the VM (warm) and 32 x 32 of them on the reference evaluator, so that
//! instructions per pair compare across families and engines; and work that
//! depends on one side only, done once per ad (issue 33). Run with
//! `cargo bench --bench instructions` (needs `iai-callgrind-runner` 0.16.1 and
//! valgrind).

use classad::ad::{read_ads_as, ClassAd, Format};
use classad::compile::compile_ad;
use classad::compile::host::VmHost;
use classad::eval::{eval_attr, Semantics};
use classad::generate::shapes::{Family, ShapeSpec};
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

/// The batch matcher on pool 1 (30 jobs, its 40 slots four times over: three
/// blocks), warm (classes compiled by a first run), on one thread.
type BatchFixture = (
    RefCell<classad::matching::batch::BatchMatcher>,
    rayon::ThreadPool,
    Vec<Arc<ClassAd>>,
    classad::matching::SignificantAttributes,
);

fn setup_batch() -> &'static BatchFixture {
    use classad::matching::batch::BatchMatcher;
    use classad::matching::{NegotiatorPolicy, SignificantAttributes};
    let (jobs, machines) = (pool("jobs"), pool("machines"));
    let slots: Vec<Arc<ClassAd>> = (0..4).flat_map(|_| machines.iter().cloned()).collect();
    let policy = NegotiatorPolicy::default();
    // The benchmark's own thread is the pool's one thread, so that callgrind
    // counts the work (it counts the thread that calls the benchmark).
    let workers = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build()
        .expect("a thread");
    let mut matcher = BatchMatcher::new(&jobs, &slots, &policy, true);
    workers.install(|| {
        matcher
            .for_each_candidates(|_, _| Ok::<(), ()>(()))
            .expect("no error")
    });
    // Ten procs of each job, one after another, as a schedd lists them.
    let queue: Vec<Arc<ClassAd>> = jobs
        .iter()
        .flat_map(|j| std::iter::repeat_n(j.clone(), 10))
        .collect();
    let sig = SignificantAttributes::compute(&slots, &policy);
    Box::leak(Box::new((RefCell::new(matcher), workers, queue, sig)))
}

#[library_benchmark]
#[bench::pool1_x4(setup_batch())]
fn batch_candidates((matcher, workers, _, _): &'static BatchFixture) -> usize {
    let mut n = 0;
    let mut guard = matcher.borrow_mut();
    let matcher: &mut classad::matching::batch::BatchMatcher = &mut guard;
    workers.install(|| {
        matcher
            .for_each_candidates(|_, c| {
                n += c.len();
                Ok::<(), ()>(())
            })
            .expect("no error")
    });
    black_box(n)
}

#[library_benchmark]
#[bench::pool1_x10(setup_batch())]
fn autoclusters_300_jobs((_, workers, queue, sig): &'static BatchFixture) -> usize {
    let a = workers.install(|| classad::matching::Autoclusters::with(queue, sig.clone()));
    let n = a.len();
    std::mem::forget(a);
    black_box(n)
}

/// A shape family's pool of `SHAPE_ADS` jobs and slots, compiled, with its
/// machine warmed by one walk over all pairs; and every `SHAPE_STRIDE`-th job
/// and slot for the reference evaluator. Leaked, as [`Fixture`].
struct ShapeFixture {
    pool: CompiledPool,
    vm: RefCell<Machine>,
    jobs: Vec<Arc<ClassAd>>,
    machines: Vec<Arc<ClassAd>>,
}

/// Jobs and slots of a shape family's pool for the instruction counts.
const SHAPE_ADS: usize = 128;

/// The reference evaluator's sample takes every `SHAPE_STRIDE`-th ad of each
/// side (32 x 32 pairs).
const SHAPE_STRIDE: usize = 4;

fn shape_fixture(family: Family) -> &'static ShapeFixture {
    let generated = ShapeSpec {
        family,
        jobs: SHAPE_ADS,
        machines: SHAPE_ADS,
        seed: 1,
    }
    .generate();
    let (jobs, machines) = (generated.job_ads(), generated.machine_ads());
    let pool = CompiledPool::new(&jobs, &machines);
    let mut vm = Machine::new();
    pool.all_pairs(&mut vm);
    let sample = |ads: &[Arc<ClassAd>]| -> Vec<Arc<ClassAd>> {
        ads.iter().step_by(SHAPE_STRIDE).cloned().collect()
    };
    let (jobs, machines) = (sample(&jobs), sample(&machines));
    // The reference's one-time initialisation (builtin table, regex cache) too.
    symmetric_match(&jobs[0], &machines[0], Semantics::Htcondor);
    Box::leak(Box::new(ShapeFixture {
        pool,
        vm: RefCell::new(vm),
        jobs,
        machines,
    }))
}

#[library_benchmark]
#[bench::benchmark(shape_fixture(Family::Benchmark))]
#[bench::target_arithmetic(shape_fixture(Family::TargetArithmetic))]
#[bench::target_pairs(shape_fixture(Family::TargetPairs))]
#[bench::attribute_lists(shape_fixture(Family::AttributeLists))]
#[bench::start_arithmetic(shape_fixture(Family::StartArithmetic))]
#[bench::records(shape_fixture(Family::Records))]
#[bench::strings(shape_fixture(Family::Strings))]
#[bench::glidein(shape_fixture(Family::Glidein))]
#[bench::mix(shape_fixture(Family::Mix))]
fn shape_all_pairs_vm(f: &'static ShapeFixture) -> usize {
    black_box(f.pool.all_pairs(&mut f.vm.borrow_mut())).len()
}

#[library_benchmark]
#[bench::benchmark(shape_fixture(Family::Benchmark))]
#[bench::target_arithmetic(shape_fixture(Family::TargetArithmetic))]
#[bench::target_pairs(shape_fixture(Family::TargetPairs))]
#[bench::attribute_lists(shape_fixture(Family::AttributeLists))]
#[bench::start_arithmetic(shape_fixture(Family::StartArithmetic))]
#[bench::records(shape_fixture(Family::Records))]
#[bench::strings(shape_fixture(Family::Strings))]
#[bench::glidein(shape_fixture(Family::Glidein))]
#[bench::mix(shape_fixture(Family::Mix))]
fn shape_pairs_reference(f: &'static ShapeFixture) -> usize {
    let mut matched = 0;
    for j in &f.jobs {
        for m in &f.machines {
            matched += usize::from(symmetric_match(j, m, Semantics::Htcondor));
        }
    }
    black_box(matched)
}

/// Issue 33: work that depends only on one side, done once per ad rather than
/// once per pair, as `classad match --all-pairs` runs them (the batch matcher,
/// compiling included: that is where the work is done, once). A job whose
/// Requirements reads `A0 = A1 + A1; ... A18 = 1` (about 1,000,000 of HTCondor's
/// steps) against 16 slots, and 64 slots whose START aggregates their own
/// 1,000-element list (`sum(MY.Nums)`) against 64 jobs.
fn setup_one_side(which: &str) -> &'static (Vec<Arc<ClassAd>>, Vec<Arc<ClassAd>>) {
    let ads = |text: String| -> Vec<Arc<ClassAd>> {
        read_ads_as(&text, "bench", Format::Old)
            .expect("ads parse")
            .into_iter()
            .map(Arc::new)
            .collect()
    };
    let (jobs, slots) = if which == "job" {
        let mut job: String = (0..18)
            .map(|i| format!("A{i} = A{} + A{}\n", i + 1, i + 1))
            .collect();
        job.push_str("A18 = 1\nOwner = \"u\"\nRequirements = A0 > 0 && TARGET.Cpus > 1\n");
        let slots: String = (0..16)
            .map(|i| format!("Cpus = {}\nRequirements = true\n\n", i % 4))
            .collect();
        (job, slots)
    } else {
        let nums: Vec<String> = (0..1000).map(|i| (i % 7).to_string()).collect();
        let slots: String = (0..64)
            .map(|i| {
                format!(
                    "Nums = {{ {} }}\nCpus = {i}\nRequirements = sum(MY.Nums) > TARGET.Num\n\n",
                    nums.join(", ")
                )
            })
            .collect();
        let jobs: String = (0..64)
            .map(|i| format!("Owner = \"u\"\nNum = {}\nRequirements = true\n\n", i * 50))
            .collect();
        (jobs, slots)
    };
    Box::leak(Box::new((ads(jobs), ads(slots))))
}

#[library_benchmark]
#[bench::job_only_attribute(setup = setup_one_side, args = ("job"))]
#[bench::slot_list_aggregate(setup = setup_one_side, args = ("slot"))]
fn one_side_work_once(ads: &'static (Vec<Arc<ClassAd>>, Vec<Arc<ClassAd>>)) -> usize {
    let policy = classad::matching::NegotiatorPolicy::default();
    let mut matcher = classad::matching::batch::BatchMatcher::new(&ads.0, &ads.1, &policy, true);
    let mut pairs = 0;
    matcher
        .for_each_pair(|_, _| {
            pairs += 1;
            Ok::<(), ()>(())
        })
        .expect("no error");
    black_box(pairs)
}

library_benchmark_group!(
    name = one_side;
    benchmarks = one_side_work_once
);

library_benchmark_group!(
    name = shapes;
    benchmarks = shape_all_pairs_vm, shape_pairs_reference
);

library_benchmark_group!(
    name = evaluation;
    benchmarks = job_requirements_reference, job_requirements_vm,
        symmetric_match_and_ranks_reference, symmetric_match_and_ranks_vm, all_pairs_vm,
        compile_slot_ad, batch_candidates, autoclusters_300_jobs
);

main!(library_benchmark_groups = evaluation, shapes, one_side);
