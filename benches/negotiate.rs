//! Wall-time benchmarks of the negotiation cycle (`classad::negotiate`) on pools of
//! the project's generator (`classad::generate`, seed 1): the cycle alone (every
//! class's candidates worked out beforehand) and the cycle with the batch matcher
//! that works them out, at 2,000 slots x 20,000 jobs, on every core. `classad
//! bench` measures the same phases at full size.
//!
//! Compiling the slots is measured alone (`compile_slots`, 2,000 and 20,000
//! slots): most slots share their programs with a slot of their kind.
//!
//! Two shapes that once cost time quadratic in their size, kept so that it
//! cannot come back unseen: 50,000 submitters of one job each (the turn order
//! and the submitters left after a spin), and `GROUP_NAMES` 2,000 groups deep
//! (each group's parent found, the tree's passes), the knobs read included.

use classad::ad::{read_ads, ClassAd};
use classad::generate::{Pool, PoolSpec, Syntax};
use classad::matching::batch::{BatchMatcher, CompiledSlots};
use classad::matching::config::Config;
use classad::matching::{Autoclusters, SignificantAttributes};
use classad::negotiate::{
    class_names, negotiate_with_pairs, prepare_slots, ClassPairs, CycleKnobs, Pool as SlotPool,
    Priorities, QueueFacts,
};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::sync::Arc;

/// A generated pool, read back.
struct Bench {
    jobs: Vec<Arc<ClassAd>>,
    slots: Vec<Arc<ClassAd>>,
    priorities: Priorities,
}

fn pool(machines: usize, jobs: usize, signatures: Option<usize>) -> Bench {
    let p = Pool::new(&PoolSpec {
        machines,
        jobs,
        seed: 1,
        submitters: None,
        signatures,
    });
    let text = |write: &dyn Fn(&mut Vec<u8>) -> std::io::Result<()>| {
        let mut out = Vec::new();
        write(&mut out).expect("generated in memory");
        String::from_utf8(out).expect("text")
    };
    let jobs_text = text(&|o| p.write_jobs(Syntax::Old, o).map(|_| ()));
    let slots_text = text(&|o| p.write_machines(Syntax::Old, o).map(|_| ()));
    let prio_text = text(&|o| p.write_priorities(o).map(|_| ()));
    let ads = |t: &str| -> Vec<Arc<ClassAd>> {
        read_ads(t, "generated")
            .expect("parses")
            .into_iter()
            .map(Arc::new)
            .collect()
    };
    Bench {
        jobs: ads(&jobs_text),
        slots: ads(&slots_text),
        priorities: Priorities::parse(&prio_text, "generated").expect("parses"),
    }
}

/// One pool's cycle: alone (its first pass made once), and with its matching.
fn cycle_of(c: &mut Criterion, name: &str, b: &Bench, with_matching: bool) {
    let knobs = CycleKnobs::default();
    let table = prepare_slots(&b.slots, &knobs, &b.priorities);
    let facts = QueueFacts::of_all(&b.jobs, &knobs);
    let mut sig = SignificantAttributes::compute(&table.ads, &knobs.policy);
    sig.add_class_names(&class_names(&table, &knobs));
    let clusters = Autoclusters::with(&b.jobs, sig);
    let matcher = BatchMatcher::for_classes(
        clusters.representatives().to_vec(),
        CompiledSlots::new(&table.ads, &knobs.policy),
    );
    let pairs = ClassPairs::from_matcher(matcher);
    let mut g = c.benchmark_group("negotiate");
    g.sample_size(10);
    g.throughput(Throughput::Elements(b.jobs.len() as u64));
    g.bench_function(format!("cycle_alone/{name}"), |bench| {
        bench.iter(|| {
            negotiate_with_pairs(
                &table,
                &facts,
                &clusters,
                pairs.clone(),
                &knobs,
                &b.priorities,
            )
        })
    });
    if with_matching {
        let pool = SlotPool::new(&b.slots, knobs.clone(), b.priorities.clone());
        let queue = pool.queue(&b.jobs);
        g.bench_function(format!("match_and_cycle/{name}"), |bench| {
            bench.iter(|| pool.negotiate_compiled(&queue, pool.compile(), |_| {}))
        });
    }
    g.finish();
}

fn cycle(c: &mut Criterion) {
    cycle_of(c, "2k_slots_20k_jobs", &pool(2_000, 20_000, None), true);
    // Many classes, each searched against the consumption-policy slots and
    // read past claimed slots whose preemption tests fail: where the cycle
    // spends its time at 100,000 slots and 2,000 signatures (issue 34).
    cycle_of(
        c,
        "2k_slots_20k_jobs_2k_signatures",
        &pool(2_000, 20_000, Some(2_000)),
        false,
    );
}

/// Compiling the prepared slots, ten programs each, at two sizes: slots of one
/// kind share their programs (issue 34), which pays as a pool grows (each part
/// of the slots a thread compiles makes each kind's programs once).
fn compile_slots(c: &mut Criterion) {
    let knobs = CycleKnobs::default();
    let mut g = c.benchmark_group("negotiate");
    g.sample_size(10);
    for slots in [2_000, 20_000] {
        let b = pool(slots, 1, None);
        let table = prepare_slots(&b.slots, &knobs, &b.priorities);
        g.throughput(Throughput::Elements(table.ads.len() as u64));
        g.bench_function(format!("compile_slots/{}k_slots", slots / 1000), |bench| {
            bench.iter(|| CompiledSlots::new(&table.ads, &knobs.policy))
        });
    }
    g.finish();
}

/// Ads in the old syntax, one per item of `each`.
fn ads_of(n: usize, each: impl Fn(usize) -> String) -> Vec<Arc<ClassAd>> {
    let text: String = (0..n).map(|i| each(i) + "\n").collect();
    read_ads(&text, "bench")
        .expect("parses")
        .into_iter()
        .map(Arc::new)
        .collect()
}

/// `slots` unclaimed slots of one CPU.
fn plain_slots(slots: usize) -> Vec<Arc<ClassAd>> {
    ads_of(slots, |i| {
        format!("Name = \"slot{i}@h\"\nCpus = 1\nMemory = 1000\nState = \"Unclaimed\"\nRequirements = true\n")
    })
}

/// An idle job of `submitter` (its `AccountingGroup`).
fn one_job(i: usize, submitter: &str) -> String {
    format!(
        "AccountingGroup = \"{submitter}\"\nOwner = \"u\"\nClusterId = {}\nProcId = 0\n\
         JobStatus = 1\nRequestCpus = 1\nRequirements = true\n",
        i + 1
    )
}

fn shapes(c: &mut Criterion) {
    let mut g = c.benchmark_group("negotiate_shapes");
    g.sample_size(10);
    let submitters = 50_000;
    let jobs = ads_of(submitters, |i| one_job(i, &format!("u{i}")));
    let slots = plain_slots(1_000);
    let none = Priorities::default();
    let knobs = CycleKnobs::default();
    g.throughput(Throughput::Elements(submitters as u64));
    g.bench_function("one_job_submitters/50k", |bench| {
        bench.iter(|| classad::negotiate::negotiate(&jobs, &slots, &knobs, &none))
    });
    let depth = 2_000;
    let names: Vec<String> = (1..=depth).map(|d| vec!["a"; d].join(".")).collect();
    let config = format!(
        "GROUP_NAMES = {}\nGROUP_ACCEPT_SURPLUS = true\n",
        names.join(", ")
    );
    let jobs = ads_of(depth / 10, |i| one_job(i, &format!("{}.u", names[i * 10])));
    let slots = plain_slots(100);
    g.throughput(Throughput::Elements(depth as u64));
    g.bench_function("group_names_deep/2k", |bench| {
        bench.iter(|| {
            let parsed = Config::parse(&config, "bench").expect("parses");
            let (knobs, _) = CycleKnobs::from_config(&parsed).expect("knobs");
            classad::negotiate::negotiate(&jobs, &slots, &knobs, &none)
        })
    });
    g.finish();
}

criterion_group!(benches, cycle, compile_slots, shapes);
criterion_main!(benches);
