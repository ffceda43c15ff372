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
//! The churn, per cycle: the last cycle's matches are made into claims as
//! HTCondor's schedd and startd make them ([`LivingPool::apply_matches`]:
//! slots claimed, partitionable slots carved, jobs running); of the jobs,
//! 0.5% change (idle ones held, held ones released), 0.25% are removed (a
//! running one ends, freeing its claim) and as many added (those removed a
//! cycle before); the claims of 0.1% of the slots end
//! ([`LivingPool::release_claim`]: the slot freed, a job the pool has idle
//! again); the clock moves 60 s. The next cycle matches what was freed and
//! what room the partitionable slots still have, so that 1 to 1.5% of the
//! slot ads change each cycle (a claim's end and each match delete or carve
//! a dynamic slot and update its partitionable slot; the soak prints the
//! share).
//!
//! The pool is first filled (cycles whose matches are applied, until the
//! slots hold what they can), then churned `CLASSAD_LIVING_WARMUP` cycles
//! (default 20): a steady state where what the churn frees each cycle, the
//! next cycle fills. The fresh cycles run on the pool as the living one
//! stands then, so that both see the same ads and accountant.
//!
//! The size is 2,000 slots x 20,000 jobs unless `CLASSAD_LIVING_SLOTS` and
//! `CLASSAD_LIVING_JOBS` say otherwise (BENCHMARKS.md quotes 10,000 x
//! 1,000,000). With `CLASSAD_LIVING_SOAK=N` it runs N churned cycles instead
//! and prints the resident memory every tenth of the way: it stays flat.

use classad::ad::{read_ads, ClassAd};
use classad::engine::eval_attr_once;
use classad::generate::{Pool, PoolSpec, Syntax};
use classad::matching::batch::{BatchMatcher, CompiledSlots};
use classad::negotiate::accounts::Accounts;
use classad::negotiate::living::{CycleWork, LivingPool};
use classad::negotiate::{ClassPairs, CycleKnobs, CycleOutcome, Pool as SlotPool, Priorities};
use classad::syntax::ast::Expr;
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

/// The churn between cycles (see the module), drawn from `seed`: the last
/// cycle's matches applied, then the changes.
struct Churn {
    seed: u64,
    removed: Vec<Arc<ClassAd>>,
    last: Option<CycleOutcome>,
}

impl Churn {
    fn new() -> Churn {
        Churn {
            seed: 7,
            removed: Vec::new(),
            last: None,
        }
    }

    fn next(&mut self, n: usize) -> usize {
        // SplitMix64.
        self.seed = self.seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n.max(1) as u64) as usize
    }

    /// A cycle of `pool`, its outcome kept for the next churn to apply.
    fn cycle(&mut self, pool: &mut LivingPool) -> CycleWork {
        let c = pool.cycle();
        self.last = Some(c.outcome);
        c.work
    }

    fn apply(&mut self, pool: &mut LivingPool) {
        if let Some(last) = self.last.take() {
            pool.apply_matches(&last);
        }
        let jobs: Vec<u32> = pool.jobs().map(|(i, _)| i).collect();
        let slots: Vec<u32> = pool.slots().map(|(i, _)| i).collect();
        let (n_jobs, n_slots) = (jobs.len(), slots.len());
        let status = |ad: &Arc<ClassAd>| match eval_attr_once(ad, "JobStatus", None) {
            Ok(Value::Int(s)) => s,
            _ => 1,
        };
        // Idle jobs held and held ones released (running ones left be).
        for _ in 0..n_jobs / 200 {
            let id = jobs[self.next(n_jobs)];
            let Some(ad) = pool.job(id) else { continue };
            let flipped = match status(ad) {
                1 => 5,
                5 => 1,
                _ => continue,
            };
            let mut ad = (**ad).clone();
            ad.insert_expr("JobStatus", Expr::literal(Value::Int(flipped)));
            pool.update_job(id, Arc::new(ad)).expect("a job");
        }
        // Jobs removed (a running one ends), and those of the last churn
        // submitted again.
        let back = std::mem::take(&mut self.removed);
        for _ in 0..n_jobs / 400 {
            let id = jobs[self.next(n_jobs)];
            let Some(ad) = pool.job(id) else { continue };
            let ad = match status(ad) {
                2 => pool.end_job(id).expect("a job").ad,
                _ => pool.remove_job(id).expect("a job"),
            };
            let mut idle = (*ad).clone();
            idle.insert_expr("JobStatus", Expr::literal(Value::Int(1)));
            self.removed.push(Arc::new(idle));
        }
        for ad in back {
            pool.add_job(ad);
        }
        // Claims end on 0.1% of the slots (a job the pool has waits
        // again): with the matches, 1 to 1.5% of the slot ads change (a
        // dynamic slot deleted, one carved, their partitionable slots
        // updated).
        let mut ended = 0;
        for _ in 0..n_slots / 10 {
            if ended == n_slots / 1000 {
                break;
            }
            // A dynamic slot whose claim ended this churn is gone.
            let id = slots[self.next(n_slots)];
            if let Ok(released) = pool.release_claim(id) {
                ended += usize::from(released.freed.is_some() || released.deleted.is_some());
            }
        }
        pool.advance_to(pool.now() + 60);
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

/// A living pool of the setup, filled: cycles whose matches are applied,
/// nothing else changing, until a cycle makes no more matches than the
/// churn ends claims (0.1% of the slots), or `CLASSAD_LIVING_FILL` cycles
/// (default 400) have run. Its last cycle's outcome is in `churn`, to be
/// applied.
fn living(s: &Setup, churn: &mut Churn) -> LivingPool {
    let mut pool = LivingPool::new(
        &s.slots,
        &s.jobs,
        s.knobs.clone(),
        s.accounts.clone(),
        START,
    );
    let most = size("CLASSAD_LIVING_FILL", 400);
    for cycles in 1..=most {
        churn.cycle(&mut pool);
        let matches = churn.last.as_ref().map_or(0, |o| o.matches.len());
        if matches <= pool.slot_count() / 1000 || cycles == most {
            eprintln!(
                "filled in {cycles} cycles: {} slots, {matches} matches in the last",
                pool.slot_count()
            );
            break;
        }
        if let Some(last) = churn.last.take() {
            pool.apply_matches(&last);
        }
        pool.advance_to(pool.now() + 60);
    }
    pool
}

/// `cycles` churned cycles, the resident memory printed every tenth of the
/// way. The setup's ads are dropped first: held there, the ads the churn
/// replaces would stay alive beside their replacements, and the memory
/// measured would be the setup's.
fn soak(s: Setup, cycles: usize) {
    let mut churn = Churn::new();
    let mut pool = living(&s, &mut churn);
    drop(s);
    let mut work = CycleWork::default();
    for c in 1..=cycles {
        churn.apply(&mut pool);
        work = churn.cycle(&mut pool);
        if c % (cycles / 10).max(1) == 0 {
            let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
            let rss = status
                .lines()
                .find(|l| l.starts_with("VmRSS:"))
                .unwrap_or("VmRSS: (unknown)");
            println!(
                "cycle {c:5}: {rss}, cluster+match {:.4} s, cycle {:.4} s, {} pairs, \
                 {} slots ({:.2}% matched again), {} jobs",
                work.cluster_match_s,
                work.cycle_s,
                work.evaluations,
                pool.slot_count(),
                100.0 * work.slots_matched as f64 / pool.slot_count() as f64,
                pool.job_count()
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
    // The pool filled and churned for a while: the fresh cycles run on the
    // ads and accountant it has then, so that both sides see the same pool.
    let mut churn = Churn::new();
    let mut pool = living(&s, &mut churn);
    for _ in 0..size("CLASSAD_LIVING_WARMUP", 20) {
        churn.apply(&mut pool);
        churn.cycle(&mut pool);
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
                    Duration::from_secs_f64(churn.cycle(&mut pool).cluster_match_s)
                })
                .sum()
        })
    });
    g.bench_function("churned_cycle", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| {
                    churn.apply(&mut pool);
                    Duration::from_secs_f64(churn.cycle(&mut pool).cycle_s)
                })
                .sum()
        })
    });
    g.finish();
}

criterion_group!(living_benches, benches);
criterion_main!(living_benches);
