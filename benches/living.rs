//! Wall-time benchmarks of the living pool (`classad::negotiate::living`)
//! against fresh cycles, on a pool of the project's generator (seed 1):
//!
//! - `fresh_cluster_match`: a fresh cycle's work before the pie spins (the
//!   slots prepared and the accountant's claims found, every job clustered,
//!   every class matched against every slot);
//! - `churned_cluster_match`: the same work of a living pool's cycle after
//!   1% of the jobs and 1% of the slots changed (the time the cycle reports
//!   for it, [`CycleWork::cluster_match_s`], which counts what telling
//!   whether updated jobs stay in their classes took between the cycles);
//! - `fresh_cycle` and `churned_cycle`: the whole cycles, charged matches
//!   included (the living one's as it reports it, [`CycleWork::cycle_s`]).
//!
//! The churn, per cycle: of the jobs, 0.5% change (`JobStatus` flips), 0.25%
//! are removed and as many added (those removed a cycle before); of the
//! slots, 1% are claimed by a job or released; the clock moves 60 s.
//!
//! The fresh cycles run on the pool as the living one stands after
//! `CLASSAD_LIVING_WARMUP` churned cycles (default 50), so that both see the
//! same ads and accountant.
//!
//! The size is 2,000 slots x 20,000 jobs unless `CLASSAD_LIVING_SLOTS` and
//! `CLASSAD_LIVING_JOBS` say otherwise (BENCHMARKS.md quotes 10,000 x
//! 1,000,000). With `CLASSAD_LIVING_SOAK=N` it runs N churned cycles instead
//! and prints the resident memory every tenth of the way: it stays flat.

use classad::ad::{read_ads, ClassAd};
use classad::generate::{Pool, PoolSpec, Syntax};
use classad::matching::batch::{BatchMatcher, CompiledSlots};
use classad::negotiate::accounts::Accounts;
use classad::negotiate::living::{CycleWork, LivingPool};
use classad::negotiate::startd::{claim_static, release_static, ClaimContext};
use classad::negotiate::{ClassPairs, CycleKnobs, Pool as SlotPool, Priorities};
use classad_vm::Value;
use criterion::{criterion_group, criterion_main, Criterion};
use rayon::prelude::*;
use std::sync::Arc;
use std::time::{Duration, Instant};

// The allocator `classad` (the command) runs on: the soak's resident memory
// is the command's, not the system allocator's (whose arenas, with freeing
// on other threads, keep growing a little for hundreds of cycles).
#[cfg(feature = "cli")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The clock the pool starts at.
const START: i64 = 1_700_000_000;

fn size(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(default)
}

/// `text`'s ads read in parts on every core (a million jobs' text is read
/// in a few seconds rather than in one thread's minute).
fn read_parallel(text: &str) -> Vec<Arc<ClassAd>> {
    let mut parts = Vec::new();
    let mut rest = text;
    let step = (text.len() / 64).max(1 << 16);
    while !rest.is_empty() {
        let cut = match rest.get(step..).and_then(|t| t.find("\n\n")) {
            Some(i) => step + i + 2,
            None => rest.len(),
        };
        parts.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    parts
        .par_iter()
        .flat_map_iter(|p| read_ads(p, "generated").expect("parses"))
        .map(Arc::new)
        .collect()
}

/// The generated pool and its accountant.
struct Setup {
    jobs: Vec<Arc<ClassAd>>,
    slots: Vec<Arc<ClassAd>>,
    accounts: Accounts,
    knobs: CycleKnobs,
}

fn setup() -> Setup {
    let (machines, jobs) = (
        size("CLASSAD_LIVING_SLOTS", 2_000),
        size("CLASSAD_LIVING_JOBS", 20_000),
    );
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
    let jobs = read_parallel(&text(&|o| p.write_jobs(Syntax::Old, o).map(|_| ())));
    let slots = read_parallel(&text(&|o| p.write_machines(Syntax::Old, o).map(|_| ())));
    let prios = text(&|o| p.write_priorities(o).map(|_| ()));
    let prios = Priorities::parse(&prios, "generated").expect("parses");
    let knobs = CycleKnobs::default();
    let accounts = Accounts::from_priorities(&prios, START, knobs.priority_half_life, Vec::new());
    Setup {
        jobs,
        slots,
        accounts,
        knobs,
    }
}

/// The churn of one cycle (see the module), drawn from `seed`.
struct Churn {
    seed: u64,
    removed: Vec<Arc<ClassAd>>,
}

impl Churn {
    fn next(&mut self, n: usize) -> usize {
        // SplitMix64.
        self.seed = self.seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n.max(1) as u64) as usize
    }

    fn apply(&mut self, pool: &mut LivingPool) {
        let jobs: Vec<u32> = pool.jobs().map(|(i, _)| i).collect();
        let slots: Vec<u32> = pool.slots().map(|(i, _)| i).collect();
        let (n_jobs, n_slots) = (jobs.len(), slots.len());
        for _ in 0..n_jobs / 200 {
            let id = jobs[self.next(n_jobs)];
            let Some(ad) = pool.job(id) else { continue };
            let mut ad = (**ad).clone();
            let running = matches!(
                classad::engine::eval_attr_once(pool.job(id).expect("a job"), "JobStatus", None),
                Ok(Value::Int(2))
            );
            let status = if running { 1 } else { 2 };
            ad.insert_expr(
                "JobStatus",
                classad::syntax::ast::Expr::literal(Value::Int(status)),
            );
            pool.update_job(id, Arc::new(ad)).expect("a job");
        }
        let back = std::mem::take(&mut self.removed);
        for _ in 0..n_jobs / 400 {
            let id = jobs[self.next(n_jobs)];
            if let Ok(ad) = pool.remove_job(id) {
                self.removed.push(ad);
            }
        }
        for ad in back {
            pool.add_job(ad);
        }
        let now = pool.now() + 60;
        pool.advance_to(now);
        let ctx = ClaimContext {
            now,
            negotiating_group: Some("<none>".into()),
            submitter_group: None,
        };
        for _ in 0..n_slots / 100 {
            let id = slots[self.next(n_slots)];
            let slot = pool.slot(id).expect("a slot").clone();
            let claimed = slot.get("RemoteUser").is_some();
            let ad = if claimed {
                release_static(&slot, now)
            } else {
                let job = pool.job(jobs[self.next(n_jobs)]).cloned();
                match job {
                    Some(job) => claim_static(&slot, &job, &ctx),
                    None => continue,
                }
            };
            pool.update_slot(id, Arc::new(ad)).expect("a slot");
        }
    }
}

/// A fresh cycle's work before the pie spins: the seconds it took.
fn fresh_cluster_match(s: &Setup, accounts: &mut Accounts, now: i64) -> Duration {
    let started = Instant::now();
    let pool = SlotPool::with_accounts(&s.slots, s.knobs.clone(), accounts, now);
    let queue = pool.queue(&s.jobs);
    let reps = queue.clusters().representatives().to_vec();
    let compiled = CompiledSlots::new(&pool.slots().ads, &pool.knobs().policy);
    let pairs = ClassPairs::from_matcher(BatchMatcher::for_classes(reps, compiled));
    let took = started.elapsed();
    drop(pairs);
    took
}

/// A living pool of the setup after its first cycle.
fn living(s: &Setup) -> LivingPool {
    let mut pool = LivingPool::new(
        &s.slots,
        &s.jobs,
        s.knobs.clone(),
        s.accounts.clone(),
        START,
    );
    pool.cycle();
    pool
}

/// `cycles` churned cycles, the resident memory printed every tenth of the
/// way. The setup's ads are dropped first: held there, the ads the churn
/// replaces would stay alive beside their replacements, and the memory
/// measured would be the setup's.
fn soak(s: Setup, cycles: usize) {
    let mut pool = living(&s);
    drop(s);
    let mut churn = Churn {
        seed: 7,
        removed: Vec::new(),
    };
    let mut work = CycleWork::default();
    for c in 1..=cycles {
        churn.apply(&mut pool);
        work = pool.cycle().work;
        if c % (cycles / 10).max(1) == 0 {
            let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
            let rss = status
                .lines()
                .find(|l| l.starts_with("VmRSS:"))
                .unwrap_or("VmRSS: (unknown)");
            println!(
                "cycle {c:5}: {rss}, cluster+match {:.4} s, cycle {:.4} s, {} pairs",
                work.cluster_match_s, work.cycle_s, work.evaluations
            );
        }
    }
    println!("last cycle's work: {work:?}");
}

fn benches(c: &mut Criterion) {
    let s = setup();
    if let Some(cycles) = std::env::var("CLASSAD_LIVING_SOAK")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        soak(s, cycles);
        return;
    }
    // The pool churned for a while (half its slots claimed in the end):
    // the fresh cycles run on the ads and accountant it has then, so both
    // sides see the same pool.
    let mut pool = living(&s);
    let mut churn = Churn {
        seed: 7,
        removed: Vec::new(),
    };
    for _ in 0..size("CLASSAD_LIVING_WARMUP", 50) {
        churn.apply(&mut pool);
        pool.cycle();
    }
    let s = Setup {
        jobs: pool.jobs().map(|(_, a)| a.clone()).collect(),
        slots: pool.slots().map(|(_, a)| a.clone()).collect(),
        accounts: pool.accounts().clone(),
        knobs: s.knobs.clone(),
    };
    let now = pool.now();
    let mut g = c.benchmark_group("living");
    g.sample_size(10);
    g.bench_function("fresh_cluster_match", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| fresh_cluster_match(&s, &mut s.accounts.clone(), now))
                .sum()
        })
    });
    g.bench_function("fresh_cycle", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| {
                    let mut accounts = s.accounts.clone();
                    let started = Instant::now();
                    let pool =
                        SlotPool::with_accounts(&s.slots, s.knobs.clone(), &mut accounts, now);
                    let queue = pool.queue(&s.jobs);
                    let out = pool.negotiate(&queue);
                    accounts.charge_matches(pool.slots(), &out.matches, now);
                    started.elapsed()
                })
                .sum()
        })
    });
    g.bench_function("churned_cluster_match", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| {
                    churn.apply(&mut pool);
                    Duration::from_secs_f64(pool.cycle().work.cluster_match_s)
                })
                .sum()
        })
    });
    g.bench_function("churned_cycle", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| {
                    churn.apply(&mut pool);
                    Duration::from_secs_f64(pool.cycle().work.cycle_s)
                })
                .sum()
        })
    });
    g.finish();
}

criterion_group!(living_benches, benches);
criterion_main!(living_benches);
