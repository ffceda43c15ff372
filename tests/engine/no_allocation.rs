//! Matching a compiled pool allocates nothing once the machine is warm: every pair
//! of the generated pools (the shapes of expression `gen_pool.py` writes, as in the
//! benchmark pool, and every shape family of `classad gen-pool`), both
//! Requirements and both Ranks, pair by pair and in blocks of lanes, counted by an
//! allocator that tallies this thread's allocations.

use classad::ad::{read_ads, ClassAd};
use classad::compile::host::VmHost;
use classad::matching::CompiledPool;
use classad_vm::lanes::LANES;
use classad_vm::{ColumnStore, CompiledAd, Machine, Value};
use std::sync::Arc;

use crate::counting_alloc;

use counting_alloc::allocations;

fn ads(path: &str) -> Vec<Arc<ClassAd>> {
    let path = format!(
        "{}/tests/conformance/pools/{path}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    read_ads(&text, &path)
        .unwrap()
        .into_iter()
        .map(Arc::new)
        .collect()
}

/// The pool's Requirements slot and its jobs' and machines' compiled ads, as
/// the tiers take them.
fn views(pool: &CompiledPool) -> (u32, Vec<&CompiledAd>, Vec<&CompiledAd>) {
    (
        pool.slots.get("Requirements").unwrap(),
        pool.jobs.iter().map(|j| &j.vm).collect(),
        pool.machines.iter().map(|m| &m.vm).collect(),
    )
}

/// Every pair: the symmetric match and both Ranks; returns a checksum so that
/// nothing is optimised away.
fn every_pair(pool: &CompiledPool, vm: &mut Machine) -> f64 {
    let mut sum = 0.0;
    for m in 0..pool.machines.len() {
        for j in 0..pool.jobs.len() {
            sum += f64::from(u8::from(pool.symmetric_match(vm, j, m)));
            sum += pool.rank(vm, j, m, true) + pool.rank(vm, j, m, false);
        }
    }
    sum
}

#[test]
fn matching_a_warm_pool_allocates_nothing() {
    for name in ["pool1", "pool2", "pool3"] {
        let jobs = ads(&format!("{name}.jobs.ads"));
        let machines = ads(&format!("{name}.machines.ads"));
        let pool = CompiledPool::new(&jobs, &machines);
        let mut vm = Machine::new();
        // The first pass fills the machine's frames, memo tables and its cache of
        // machine-only values.
        let warm = every_pair(&pool, &mut vm);
        let before = allocations();
        let again = every_pair(&pool, &mut vm);
        let during = allocations() - before;
        assert_eq!(warm.to_bits(), again.to_bits());
        assert_eq!(
            during,
            0,
            "{name}: {during} allocations in {} evaluations",
            3 * jobs.len() * machines.len()
        );
    }
}

/// Every machine's Requirements against the jobs, and every job's against the
/// machines, in blocks of lanes as `CompiledPool::all_pairs` evaluates them;
/// returns how many values came back.
fn every_block(
    (req, jobs, machines): (u32, &[&CompiledAd], &[&CompiledAd]),
    vm: &mut Machine,
    out: &mut Vec<Option<Value>>,
) -> usize {
    let mut values = 0;
    for (mine, theirs) in [(machines, jobs), (jobs, machines)] {
        for my in mine.iter() {
            for block in theirs.chunks(LANES) {
                vm.eval_attr_lanes(my, req, 2, block, u64::MAX, &mut VmHost, out);
                values += out.iter().filter(|v| v.is_some()).count();
            }
        }
    }
    values
}

#[test]
fn evaluating_blocks_of_lanes_allocates_nothing() {
    for name in ["pool1", "pool2", "pool3"] {
        let jobs = ads(&format!("{name}.jobs.ads"));
        let machines = ads(&format!("{name}.machines.ads"));
        let pool = CompiledPool::new(&jobs, &machines);
        let mut vm = Machine::new();
        let mut out = Vec::with_capacity(LANES);
        let (req, job_ads, machine_ads) = views(&pool);
        let given = (req, &job_ads[..], &machine_ads[..]);
        // Fill the cache of machine-only values the lanes read.
        pool.all_pairs(&mut vm);
        let warm = every_block(given, &mut vm, &mut out);
        let before = allocations();
        let again = every_block(given, &mut vm, &mut out);
        let during = allocations() - before;
        assert_eq!(warm, again);
        assert!(
            again * 10 >= 2 * 9 * jobs.len() * machines.len(),
            "{name}: the lanes gave only {again} values"
        );
        assert_eq!(during, 0, "{name}: {during} allocations");
    }
}

/// Every machine's Requirements against blocks of jobs and every job's against
/// blocks of machines, as verdicts over columns (`CompiledPool::all_pairs`'s
/// tier); returns the verdicts' checksum.
fn every_verdict(
    (req, jobs, machines): (u32, &[&CompiledAd], &[&CompiledAd]),
    vm: &mut Machine,
    stores: &mut [ColumnStore; 2],
) -> u64 {
    let mut sum = 0u64;
    for (mine, theirs) in [(machines, jobs), (jobs, machines)] {
        for chunk in theirs.chunks(LANES) {
            let mut block = stores[0].block(chunk);
            for my in mine.iter() {
                let v = vm.verdicts(my, req, 2, &mut block, u64::MAX, &mut VmHost);
                sum = sum
                    .wrapping_mul(31)
                    .wrapping_add(v.yes ^ v.no.rotate_left(7) ^ v.unknown);
            }
        }
        stores.swap(0, 1);
    }
    sum
}

#[test]
fn verdicts_of_blocks_allocate_nothing() {
    for name in ["pool1", "pool2", "pool3"] {
        let jobs = ads(&format!("{name}.jobs.ads"));
        let machines = ads(&format!("{name}.machines.ads"));
        let pool = CompiledPool::new(&jobs, &machines);
        let mut vm = Machine::new();
        let (req, job_ads, machine_ads) = views(&pool);
        let given = (req, &job_ads[..], &machine_ads[..]);
        let mut stores = [ColumnStore::new(), ColumnStore::new()];
        // The first pass sizes the stores, learns the strings and fills the cache
        // of machine-only values.
        pool.all_pairs(&mut vm);
        let warm = every_verdict(given, &mut vm, &mut stores);
        let before = allocations();
        let again = every_verdict(given, &mut vm, &mut stores);
        let during = allocations() - before;
        assert_eq!(warm, again);
        assert_eq!(during, 0, "{name}: {during} allocations");
    }
}

#[test]
fn the_counter_sees_allocations() {
    let before = allocations();
    let v = std::hint::black_box(vec![1u8; 10]);
    assert!(allocations() > before, "{v:?}");
}

/// The pools of every shape family `classad gen-pool` writes (lists and
/// records held in attributes, arithmetic, string builtins, a pilot's
/// `evalInEachContext` over its catalogs, and all of them mixed): once warm,
/// matching them allocates nothing in any tier. Builtins on values the pool
/// repeats, and the lists `evalInEachContext` makes, come from the machine's
/// memo of calls (without it, glidein and mix allocate on every pass).
#[test]
fn warm_pools_of_every_shape_allocate_nothing() {
    use classad::generate::shapes::{Family, ShapeSpec};
    for family in Family::ALL {
        let spec = ShapeSpec {
            family,
            jobs: 96,
            machines: 96,
            seed: 3,
        };
        let generated = spec.generate();
        let (jobs, machines) = (generated.job_ads(), generated.machine_ads());
        let pool = CompiledPool::new(&jobs, &machines);
        let mut vm = Machine::new();
        let (req, job_ads, machine_ads) = views(&pool);
        let given = (req, &job_ads[..], &machine_ads[..]);
        let mut stores = [ColumnStore::new(), ColumnStore::new()];
        let mut out = Vec::with_capacity(LANES);
        pool.all_pairs(&mut vm);
        // Each tier warm, then counted.
        let warm = every_verdict(given, &mut vm, &mut stores);
        let before = allocations();
        let again = every_verdict(given, &mut vm, &mut stores);
        let verdicts = allocations() - before;
        assert_eq!(warm, again, "{family:?}");
        let warm = every_block(given, &mut vm, &mut out);
        let before = allocations();
        let again = every_block(given, &mut vm, &mut out);
        let lanes = allocations() - before;
        assert_eq!(warm, again, "{family:?}");
        let warm = every_pair(&pool, &mut vm);
        let before = allocations();
        let again = every_pair(&pool, &mut vm);
        let pairs = allocations() - before;
        assert_eq!(warm.to_bits(), again.to_bits(), "{family:?}");
        assert_eq!(
            (verdicts, lanes, pairs),
            (0, 0, 0),
            "{family:?}: allocations in verdicts, lanes, pair by pair"
        );
    }
}
