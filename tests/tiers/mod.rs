//! Checks shared by the tests of the matcher's block tiers: a pool matched in
//! blocks (cold and warm) and pair by pair against the reference evaluator, and
//! one job's Requirements decided by the bit-mask tier alone.

use classad::ad::{read_ads, ClassAd};
use classad::compile::host::VmHost;
use classad::eval::Semantics;
use classad::matching::{symmetric_match, CompiledPool};
use classad_vm::{ColumnStore, CompiledAd, Machine};
use std::sync::Arc;

/// The one ad of `text`.
pub fn ad(text: &str) -> Arc<ClassAd> {
    Arc::new(read_ads(text, "t").unwrap().remove(0))
}

/// A slot per pair of `values` (`None`: the attribute is absent), as `A` and
/// `B`.
pub fn slot_per_pair(values: &[Option<&str>]) -> Vec<Arc<ClassAd>> {
    let mut out = Vec::new();
    for a in values {
        for b in values {
            let mut text = String::from("Requirements = true\n");
            if let Some(a) = a {
                text.push_str(&format!("A = {a}\n"));
            }
            if let Some(b) = b {
                text.push_str(&format!("B = {b}\n"));
            }
            out.push(ad(&text));
        }
    }
    out
}

/// Matches every job with every machine: `CompiledPool::all_pairs` twice (its
/// caches cold, then warm) and `symmetric_match` pair by pair, each against the
/// reference evaluator's symmetric match. The number of matching pairs.
pub fn assert_matches_reference(jobs: &[Arc<ClassAd>], machines: &[Arc<ClassAd>]) -> usize {
    let mut brute = Vec::new();
    for (j, job) in jobs.iter().enumerate() {
        for (m, machine) in machines.iter().enumerate() {
            if symmetric_match(job, machine, Semantics::Htcondor) {
                brute.push((j, m));
            }
        }
    }
    let pool = CompiledPool::new(jobs, machines);
    let mut vm = Machine::new();
    for round in 0..2 {
        assert_eq!(pool.all_pairs(&mut vm), brute, "round {round}");
    }
    for j in 0..jobs.len() {
        for m in 0..machines.len() {
            assert_eq!(
                pool.symmetric_match(&mut vm, j, m),
                brute.binary_search(&(j, m)).is_ok(),
                "job {j} slot {m}"
            );
        }
    }
    brute.len()
}

/// `job`'s Requirements against `machines` (at most 64, one block) is decided
/// by the bit-mask tier alone, no lane left to the value lanes, and as the
/// reference evaluator decides it; `what` names the case in failures.
pub fn assert_on_mask_tier(job: &Arc<ClassAd>, machines: &[Arc<ClassAd>], what: &str) {
    let pool = CompiledPool::new(std::slice::from_ref(job), machines);
    let requirements = pool.slots.get("Requirements").expect("interned");
    let targets: Vec<&CompiledAd> = pool.machines.iter().map(|m| &m.vm).collect();
    let mut store = ColumnStore::new();
    let mut block = store.block(&targets);
    let mut vm = Machine::new();
    let (verdicts, unsure) = vm.mask_verdicts(
        &pool.jobs[0].vm,
        requirements,
        2,
        &mut block,
        u64::MAX,
        &mut VmHost,
    );
    assert_eq!(unsure, 0, "{what}: lanes left to the value lanes");
    for (m, machine) in machines.iter().enumerate() {
        let want = symmetric_match(job, machine, Semantics::Htcondor);
        assert_eq!(verdicts.yes >> m & 1 == 1, want, "{what} slot {m}");
    }
}
