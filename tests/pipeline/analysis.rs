//! Analyze counts checked by brute force: every count `classad analyze` reports
//! (`classad::matching::analysis`) — slots, slots accepted each way, matching
//! slots and who runs on them, each step of the reduced table, each conjunct and
//! the slots it alone keeps out; and for a slot, jobs accepted each way, each
//! step by autocluster and each conjunct by autocluster and by job — recomputed
//! by a plain loop over the pairs on the reference evaluator, on generated pools
//! and on the conformance pools, with both engines.

use classad::ad::{read_ads, ClassAd};
use classad::engine::Engine;
use classad::eval::{eval_attr, eval_in, Semantics};
use classad::generate::{Pool, PoolSpec, Syntax};
use classad::matching::analysis::steps::{Matched, Steps};
use classad::matching::analysis::{
    analyze_jobs, analyze_slots, JobAnalysis, JobSet, SlotAnalysis, SLOT_INLINE,
};
use classad::matching::{symmetric_match, Autoclusters, NegotiatorPolicy};
use classad::syntax::ast::ExprRef;
use classad::syntax::parse_expr;
use classad_vm::Value;
use std::sync::Arc;

const SEM: Semantics = Semantics::Htcondor;

fn ads(text: &str) -> Vec<Arc<ClassAd>> {
    read_ads(text, "pool")
        .expect("pool ads read")
        .into_iter()
        .map(Arc::new)
        .collect()
}

/// A generated pool: (jobs, slots).
fn generated(machines: usize, jobs: usize, seed: u64) -> (Vec<Arc<ClassAd>>, Vec<Arc<ClassAd>>) {
    let pool = Pool::new(&PoolSpec {
        machines,
        jobs,
        seed,
        submitters: None,
        signatures: None,
    });
    let (mut j, mut m) = (Vec::new(), Vec::new());
    pool.write_jobs(Syntax::Old, &mut j).unwrap();
    pool.write_machines(Syntax::Old, &mut m).unwrap();
    (
        ads(std::str::from_utf8(&j).unwrap()),
        ads(std::str::from_utf8(&m).unwrap()),
    )
}

fn conformance(n: u8) -> (Vec<Arc<ClassAd>>, Vec<Arc<ClassAd>>) {
    let read = |kind: &str| {
        let path = format!(
            "{}/tests/conformance/pools/pool{n}.{kind}.ads",
            env!("CARGO_MANIFEST_DIR")
        );
        ads(&std::fs::read_to_string(path).unwrap())
    };
    (read("jobs"), read("machines"))
}

/// True or a non-zero number.
fn truthy(r: Result<Value, classad::eval::Fail>) -> bool {
    matches!(r, Ok(v) if v.as_bool_equiv() == Some(true))
}

fn holds(e: &ExprRef, my: &Arc<ClassAd>, target: &Arc<ClassAd>) -> bool {
    truthy(eval_in(e, my, Some(target), SEM))
}

/// `my`'s Requirements, evaluated as an attribute against `target`.
fn accepts(my: &Arc<ClassAd>, target: &Arc<ClassAd>) -> bool {
    truthy(eval_attr(my, "Requirements", Some(target), SEM))
}

fn parse(text: &str) -> ExprRef {
    ExprRef::root_of(Arc::new(parse_expr(text).unwrap_or_else(|e| {
        panic!("a condition's text parses back: {text}: {e}")
    })))
}

fn string(ad: &Arc<ClassAd>, name: &str) -> Option<String> {
    match eval_attr(ad, name, None, SEM) {
        Ok(Value::Str(s)) => Some(s.as_str().to_string()),
        _ => None,
    }
}

/// What the checks met, so that none of them passes for want of cases.
#[derive(Default, Debug)]
struct Seen {
    jobs: usize,
    slots: usize,
    suggestions: usize,
    matching: usize,
    serving: usize,
    rejecting: usize,
    rows: usize,
    sole: usize,
}

/// Every count of `a`, job `job`'s analysis against `slots`, by brute force.
fn check_job(job: &Arc<ClassAd>, slots: &[Arc<ClassAd>], a: &JobAnalysis, seen: &mut Seen) {
    let id = format!("{:?}", string(job, "GlobalJobId"));
    seen.jobs += 1;
    let c = &a.counts;
    assert_eq!(c.slots, slots.len(), "{id}");
    let (mut rejected, mut rejecting, mut matching) = (0, 0, 0);
    let (mut yours, mut serving, mut willing, mut offline) = (0, 0, 0, 0);
    let user = string(job, "User");
    for (s, slot) in slots.iter().enumerate() {
        let (j, m) = (accepts(job, slot), accepts(slot, job));
        assert_eq!(a.accepted.get(s), j, "{id} slot {s}");
        assert_eq!(a.accepting.get(s), m, "{id} slot {s}");
        let both = symmetric_match(job, slot, SEM);
        assert_eq!(both, j && m, "{id} slot {s}: one-way and symmetric");
        rejected += usize::from(!j);
        rejecting += usize::from(j && !m);
        if both {
            matching += 1;
            if truthy(eval_attr(slot, "Offline", None, SEM)) {
                offline += 1;
            }
            match string(slot, "RemoteUser") {
                Some(r) if Some(&r) == user.as_ref() => yours += 1,
                Some(_) => serving += 1,
                None => willing += 1,
            }
        }
    }
    assert_eq!(
        (c.rejected_by_job, c.rejecting_job, c.matching),
        (rejected, rejecting, matching),
        "{id}"
    );
    assert_eq!(
        (
            c.running_your_jobs,
            c.serving_other_users,
            c.willing,
            c.offline
        ),
        (yours, serving, willing, offline),
        "{id}"
    );
    let machines: std::collections::HashSet<String> = slots
        .iter()
        .map(|s| string(s, "Machine").unwrap_or_default())
        .collect();
    assert_eq!(c.machines, machines.len());
    seen.matching += usize::from(matching > 0);
    seen.serving += usize::from(serving > 0);
    seen.rejecting += usize::from(rejecting > 0);

    let req = job
        .get("Requirements")
        .expect("generated jobs have Requirements")
        .to_expr_ref();
    let steps = Steps::of(job, &req, &[]);
    let reduction = a.reduction.as_ref().expect("a reduction");
    for row in &reduction.rows {
        if let Matched::Count(n) = row.matched {
            let e = &steps.steps()[row.step].expr;
            let brute = slots.iter().filter(|s| holds(e, job, s)).count();
            assert_eq!(n, brute, "{id} step [{}] {}", row.step, row.condition);
            seen.rows += 1;
        }
    }
    // The conjuncts, read back from their text, each against every slot.
    let exprs: Vec<ExprRef> = a.conjuncts.iter().map(|c| parse(&c.text)).collect();
    let table: Vec<Vec<bool>> = exprs
        .iter()
        .map(|e| slots.iter().map(|s| holds(e, job, s)).collect())
        .collect();
    for (k, c) in a.conjuncts.iter().enumerate() {
        let matched = table[k].iter().filter(|&&h| h).count();
        assert_eq!(c.matched, matched, "{id} conjunct {}", c.text);
        let sole = (0..slots.len())
            .filter(|&s| !table[k][s] && table.iter().filter(|t| !t[s]).count() == 1)
            .count();
        assert_eq!(c.sole_obstacle, sole, "{id} conjunct {}", c.text);
        seen.sole += usize::from(sole > 0);
    }
    // All conjuncts hold exactly where the Requirements hold.
    for s in 0..slots.len() {
        let all = table.iter().all(|t| t[s]);
        assert_eq!(all, a.accepted.get(s), "{id} slot {s}: conjuncts and whole");
    }
    // Suggestions exactly when no slot is accepted: for the closest slot, one
    // for each conjunct it fails and none for the others.
    match a.closest_slot {
        Some(closest) => {
            assert_eq!(rejected, slots.len(), "{id}");
            for (k, c) in a.conjuncts.iter().enumerate() {
                assert_eq!(
                    c.suggestion.is_some(),
                    !table[k][closest],
                    "{id} conjunct {} at the closest slot {closest}",
                    c.text
                );
                if c.matched == 0 {
                    assert!(c.suggestion.is_some(), "{id}: {} matches none", c.text);
                }
            }
            seen.suggestions += 1;
        }
        None => {
            assert!(rejected < slots.len() || slots.is_empty(), "{id}");
            assert!(a.conjuncts.iter().all(|c| c.suggestion.is_none()), "{id}");
        }
    }
}

/// Every count of `a`, slot `slot`'s analysis against `all` (the whole queue,
/// whose autoclusters `firsts` are by their first jobs), by brute force.
fn check_slot(
    slot: &Arc<ClassAd>,
    all: &[Arc<ClassAd>],
    firsts: &[Arc<ClassAd>],
    a: &SlotAnalysis,
    seen: &mut Seen,
) {
    let id = string(slot, "Name").unwrap_or_default();
    seen.slots += 1;
    let c = &a.counts;
    assert_eq!((c.jobs, c.autoclusters), (all.len(), firsts.len()), "{id}");
    let matching = all.iter().filter(|j| symmetric_match(j, slot, SEM)).count();
    let slot_accepts = all.iter().filter(|j| accepts(slot, j)).count();
    let job_accepts = all.iter().filter(|j| accepts(j, slot)).count();
    assert_eq!(
        (c.matching, c.slot_accepts, c.job_accepts),
        (matching, slot_accepts, job_accepts),
        "{id}"
    );
    let Some(req) = slot.get("Requirements") else {
        return;
    };
    let steps = Steps::of(slot, &req.to_expr_ref(), &SLOT_INLINE);
    for row in &a.reduction.as_ref().expect("a reduction").rows {
        if let Matched::Count(n) = row.matched {
            let e = &steps.steps()[row.step].expr;
            let brute = firsts.iter().filter(|j| holds(e, slot, j)).count();
            assert_eq!(n, brute, "{id} step [{}] {}", row.step, row.condition);
            seen.rows += 1;
        }
    }
    for cj in &a.conjuncts {
        let e = parse(&cj.text);
        let clusters = firsts.iter().filter(|j| holds(&e, slot, j)).count();
        let jobs = all.iter().filter(|j| holds(&e, slot, j)).count();
        assert_eq!(
            (cj.autoclusters, cj.jobs),
            (clusters, jobs),
            "{id} conjunct {}",
            cj.text
        );
    }
}

/// A digest of everything a job's analysis says, to hold engines against each
/// other.
fn job_digest(a: &JobAnalysis) -> String {
    let conjuncts: Vec<String> = a
        .conjuncts
        .iter()
        .map(|c| {
            format!(
                "{} {} {} {:?}",
                c.text,
                c.matched,
                c.sole_obstacle,
                c.suggestion.as_ref().map(|s| s.to_string())
            )
        })
        .collect();
    format!(
        "{:?} {:?} {:?} {:?} {:?} {:?}",
        a.counts, a.reduction, conjuncts, a.closest_slot, a.accepted, a.accepting
    )
}

fn slot_digest(a: &SlotAnalysis) -> String {
    format!("{:?} {:?} {:?}", a.counts, a.reduction, a.conjuncts)
}

/// Analyzes one job per autocluster against every slot, and every `step`-th
/// slot against the queue, on both engines, and checks it all.
fn check_pool(jobs: &[Arc<ClassAd>], slots: &[Arc<ClassAd>], step: usize, seen: &mut Seen) {
    let clusters = Autoclusters::new(jobs, slots, &NegotiatorPolicy::default());
    let firsts: Vec<Arc<ClassAd>> = clusters
        .clusters()
        .iter()
        .map(|members| jobs[members[0] as usize].clone())
        .collect();
    // A few jobs beyond the first of each autocluster too.
    let mut analyzed = firsts.clone();
    analyzed.extend(jobs.iter().step_by(17).cloned());
    let by_vm = analyze_jobs(&analyzed, slots, Some(Engine::Vm));
    let by_ref = analyze_jobs(&analyzed, slots, Some(Engine::Reference));
    for ((job, v), r) in analyzed.iter().zip(&by_vm).zip(&by_ref) {
        assert_eq!(job_digest(v), job_digest(r), "engines differ");
        check_job(job, slots, v, seen);
    }
    let set = JobSet::of(&clusters);
    let chosen: Vec<Arc<ClassAd>> = slots.iter().step_by(step).cloned().collect();
    let by_vm = analyze_slots(&chosen, &set, Some(Engine::Vm));
    let by_ref = analyze_slots(&chosen, &set, Some(Engine::Reference));
    for ((slot, v), r) in chosen.iter().zip(&by_vm).zip(&by_ref) {
        assert_eq!(slot_digest(v), slot_digest(r), "engines differ");
        check_slot(slot, jobs, &firsts, v, seen);
    }
}

#[test]
fn job_and_slot_counts_equal_brute_force_on_generated_pools() {
    let mut seen = Seen::default();
    for seed in [1, 2] {
        let (jobs, slots) = generated(300, 200, seed);
        check_pool(&jobs, &slots, 11, &mut seen);
    }
    assert!(seen.jobs > 40 && seen.slots > 40, "{seen:?}");
    assert!(seen.suggestions > 0, "some job matches no slot: {seen:?}");
    assert!(
        seen.matching > 0 && seen.serving > 0 && seen.rejecting > 0,
        "{seen:?}"
    );
    assert!(seen.rows > 200 && seen.sole > 0, "{seen:?}");
}

#[test]
fn job_and_slot_counts_equal_brute_force_on_the_conformance_pools() {
    let mut seen = Seen::default();
    for n in 1..=3 {
        let (jobs, slots) = conformance(n);
        check_pool(&jobs, &slots, 1, &mut seen);
    }
    assert!(seen.jobs > 20 && seen.slots > 40, "{seen:?}");
}
