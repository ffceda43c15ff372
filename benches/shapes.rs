//! Matching speed per expression shape (issue 12): for each shape family of
//! `classad::generate::shapes`, every pair of 2,000 jobs x 2,000 slots matched on
//! one thread by the VM (`CompiledPool::all_pairs`, no autoclustering, a fresh
//! machine each iteration, as one matching pass has: its cache of TARGET-only
//! values starts empty, as in `benches/tools/pool_pairs.rs`), and the reference
//! evaluator (`symmetric_match` pair by pair) beside it on every tenth job and
//! every tenth slot (40,000 pairs: the whole would take minutes a family).
//! Criterion reports both as pairs per second (`thrpt`); compare the two within
//! one run.
//!
//! Time is the benchmark thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), not wall
//! time: on a machine shared with other work (and under `nice`), an iteration
//! can wait many times its own length for a core, which wall time counts and CPU
//! time does not. The other work still shares the caches, so compare ratios.
//!
//!     cargo bench --bench shapes                  # every family
//!     cargo bench --bench shapes -- records       # one family
//!
//! `CLASSAD_SHAPES_ADS=N` changes the pool to N jobs x N slots (the reference's
//! sample stays a tenth of each side), `CLASSAD_SHAPES_SEED` the seed (1).

use classad::ad::ClassAd;
use classad::eval::Semantics;
use classad::generate::shapes::{Family, ShapeSpec};
use classad::matching::{symmetric_match, CompiledPool};
use classad_vm::Machine;
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

/// The number of jobs and of slots (each side), unless `CLASSAD_SHAPES_ADS` says
/// otherwise.
const ADS: usize = 2000;

/// The reference evaluator matches every `SAMPLE_STRIDE`-th job and slot.
const SAMPLE_STRIDE: usize = 10;

/// The calling thread's CPU time, as a criterion measurement (shown as a duration).
struct ThreadCpuTime {
    /// Lends its formatter of durations.
    wall: WallTime,
}

/// The calling thread's CPU time so far.
fn thread_cpu_time() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to write into; the clock exists on Linux.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(r, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

impl Measurement for ThreadCpuTime {
    type Intermediate = Duration;
    type Value = Duration;

    fn start(&self) -> Duration {
        thread_cpu_time()
    }

    fn end(&self, start: Duration) -> Duration {
        thread_cpu_time().saturating_sub(start)
    }

    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }

    fn zero(&self) -> Duration {
        Duration::ZERO
    }

    fn to_f64(&self, d: &Duration) -> f64 {
        d.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        self.wall.formatter()
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

/// Every `SAMPLE_STRIDE`-th ad (a spread sample: the benchmark pool's jobs come in
/// clusters of one signature).
fn sample(ads: &[Arc<ClassAd>]) -> Vec<Arc<ClassAd>> {
    ads.iter().step_by(SAMPLE_STRIDE).cloned().collect()
}

fn family(c: &mut Criterion<ThreadCpuTime>, family: Family) {
    let n = env_number("CLASSAD_SHAPES_ADS", ADS as u64) as usize;
    let spec = ShapeSpec {
        family,
        jobs: n,
        machines: n,
        seed: env_number("CLASSAD_SHAPES_SEED", 1),
    };
    let pool = spec.generate();
    let (jobs, machines) = (pool.job_ads(), pool.machine_ads());
    let compiled = CompiledPool::new(&jobs, &machines);
    let mut g = c.benchmark_group(format!("shapes/{}", family.name()));
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    g.throughput(Throughput::Elements((jobs.len() * machines.len()) as u64));
    g.bench_function(BenchmarkId::new("vm", format!("{n}x{n}")), |b| {
        b.iter(|| black_box(compiled.all_pairs(&mut Machine::new())).len())
    });
    let (jobs, machines) = (sample(&jobs), sample(&machines));
    g.throughput(Throughput::Elements((jobs.len() * machines.len()) as u64));
    let id = format!("{}x{}", jobs.len(), machines.len());
    g.bench_function(BenchmarkId::new("reference", id), |b| {
        b.iter(|| {
            let mut matched = 0;
            for j in &jobs {
                for m in &machines {
                    matched += usize::from(symmetric_match(j, m, Semantics::Htcondor));
                }
            }
            matched
        })
    });
    g.finish();
}

fn shapes(c: &mut Criterion<ThreadCpuTime>) {
    for f in Family::ALL {
        family(c, f);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(ThreadCpuTime { wall: WallTime });
    targets = shapes
}
criterion_main!(benches);
