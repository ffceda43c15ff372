//! Jobs whose own attributes reach HTCondor's step limit: the work depends only on
//! the job, so the compiled pool decides it once per job (the compiler proves the
//! failure) rather than once per slot, and still gives HTCondor's answer.

use classad::ad::read_ads;
use classad::eval::Semantics;
use classad::matching::{rank, symmetric_match, CompiledPool};
use classad_vm::Machine;
use std::sync::Arc;

fn ads(text: &str) -> Vec<Arc<classad::ad::ClassAd>> {
    read_ads(text, "t")
        .unwrap()
        .into_iter()
        .map(Arc::new)
        .collect()
}

/// `A0 = A1 + A1; ... A30 = 1`: A0 needs about 3 * 2^30 evaluation steps.
fn exponential_job(requirements: &str, rank: &str) -> String {
    let mut s: String = (0..30)
        .map(|i| format!("A{i} = A{} + A{}\n", i + 1, i + 1))
        .collect();
    s.push_str(&format!(
        "A30 = 1\nRequirements = {requirements}\nRank = {rank}\n"
    ));
    s
}

#[test]
fn jobs_past_the_step_limit_match_as_htcondor_decides() {
    let mut jobs = exponential_job("A0 > 0 && TARGET.Cpus > 0", "A0");
    jobs.push('\n');
    // Past the limit only when TARGET.Cpus is 0.
    jobs.push_str(&exponential_job(
        "TARGET.Cpus > 0 || A0 > 0",
        "TARGET.Cpus + 1",
    ));
    jobs.push_str("\nRequirements = TARGET.Cpus >= 1\n");
    let slots = "Cpus = 0\nRequirements = true\n\nCpus = 4\nRequirements = MY.Cpus > 3\n";
    assert_eq!(agreed_pairs(&jobs, slots), [(1, 1), (2, 1)]);
}

/// The pairs that match, pair by pair on the compiled pool and on the reference
/// evaluator (which must agree on each, and on each rank), and by the pool's
/// all pairs.
fn agreed_pairs(jobs: &str, slots: &str) -> Vec<(usize, usize)> {
    let (jobs, machines) = (ads(jobs), ads(slots));
    let pool = CompiledPool::new(&jobs, &machines);
    let mut vm = Machine::new();
    let mut expected = Vec::new();
    for (j, job) in jobs.iter().enumerate() {
        for (m, machine) in machines.iter().enumerate() {
            let reference = symmetric_match(job, machine, Semantics::Htcondor);
            assert_eq!(
                pool.symmetric_match(&mut vm, j, m),
                reference,
                "job {j}, slot {m}"
            );
            assert_eq!(
                pool.rank(&mut vm, j, m, true),
                rank(job, machine, Semantics::Htcondor),
                "rank of job {j} for slot {m}"
            );
            if reference {
                expected.push((j, m));
            }
        }
    }
    assert_eq!(pool.all_pairs(&mut vm), expected);
    expected
}

/// `stringListsIntersect` makes error of an argument whose evaluation fails,
/// where the compiled code fails the whole evaluation: a slot attribute past the
/// step limit, read as its argument, gives error there (`isError` of it is
/// true), on the compiled pool as on the reference evaluator.
#[test]
fn an_argument_past_the_step_limit_is_error_in_string_lists_intersect() {
    let mut slot = exponential_job("true", "0");
    slot.push_str("Features = ifThenElse(A0 > 0, \"gpu,ssd\", \"ssd\")\n");
    slot.push_str("\nFeatures = \"gpu\"\nRequirements = true\n");
    let jobs = concat!(
        "Requirements = stringListsIntersect(\"gpu\", TARGET.Features) || true\n\n",
        "Requirements = isError(stringListsIntersect(TARGET.Features, \"gpu\"))\n\n",
        "Requirements = stringListsIntersect(\"gpu\", TARGET.Features)\n",
    );
    assert_eq!(agreed_pairs(jobs, &slot), [(0, 1), (1, 0), (2, 1)]);
}
