//! Wall-time benchmarks of the negotiation cycle (`classad::negotiate`) on pools of
//! the project's generator (`classad::generate`, seed 1): the cycle alone (every
//! class's candidates worked out beforehand) and the cycle with the batch matcher
//! that works them out, at 2,000 slots x 20,000 jobs, on every core. `classad
//! bench` measures the same phases at full size.

use classad::ad::{read_ads, ClassAd};
use classad::generate::{Pool, PoolSpec, Syntax};
use classad::matching::batch::{BatchMatcher, CompiledSlots};
use classad::matching::{Autoclusters, SignificantAttributes};
use classad::negotiate::{
    class_names, negotiate_prepared, negotiate_with_pairs, prepare_slots, ClassPairs, CycleKnobs,
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

fn pool(machines: usize, jobs: usize) -> Bench {
    let p = Pool::new(&PoolSpec {
        machines,
        jobs,
        seed: 1,
        submitters: None,
        signatures: None,
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

fn cycle(c: &mut Criterion) {
    let b = pool(2_000, 20_000);
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
    g.bench_function("cycle_alone/2k_slots_20k_jobs", |bench| {
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
    g.bench_function("match_and_cycle/2k_slots_20k_jobs", |bench| {
        bench.iter(|| {
            let compiled = CompiledSlots::new(&table.ads, &knobs.policy);
            negotiate_prepared(
                &table,
                &facts,
                clusters.clone(),
                compiled,
                &knobs,
                &b.priorities,
            )
        })
    });
    g.finish();
}

criterion_group!(benches, cycle);
criterion_main!(benches);
