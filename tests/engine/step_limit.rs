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

/// `A0 = A1 + A1; ... A{n} = 1` with the given Requirements, and an Owner.
fn doubling_job(n: usize, requirements: &str) -> String {
    let mut s: String = (0..n)
        .map(|i| format!("A{i} = A{} + A{}\n", i + 1, i + 1))
        .collect();
    s.push_str(&format!(
        "A{n} = 1\nOwner = \"u\"\nRequirements = {requirements}\n"
    ));
    s
}

/// `n` slots with 1 to 4 cpus.
fn some_slots(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "Name = \"slot{i}\"\nCpus = {}\nRequirements = true\n\n",
                i % 4
            )
        })
        .collect()
}

/// Issue 33 item 2: a job-only attribute below the step limit, however large
/// (here up to 2^20 additions, about 4,000,000 of HTCondor's steps), is
/// evaluated once per class, when the job is compiled, not once per slot: over
/// N slots, no pair leaves the machine for the reference evaluator (each such
/// pair evaluated the attribute again; on 5707ce8 every one did), the compiled
/// Requirements holds the attribute's value as a constant with its steps charged
/// as folded steps, and the answers are the reference evaluator's.
#[test]
fn job_only_attributes_are_evaluated_once_per_class() {
    use classad::ad::ClassAd;
    use classad::compile::{compile_ad, host::VmHost};
    use classad_vm::{Attr, Halt, Sides, SlotTable};
    for n in [17, 18, 20] {
        let job = doubling_job(n, "A0 > 0 && TARGET.Cpus > 0");
        let slots = ads(&some_slots(64));
        let job: Arc<ClassAd> = ads(&job).remove(0);
        let mut table = SlotTable::new();
        let compiled_job = compile_ad(&job, &mut table);
        let req = table.get("Requirements").unwrap();
        let Attr::Code(program) = compiled_job.vm.get(req) else {
            panic!("Requirements is code")
        };
        let listing = program.to_string();
        assert!(listing.contains("folded steps"), "n = {n}: {listing}");
        assert!(
            !listing.contains("LoadMy") && !listing.contains("Inline"),
            "{listing}"
        );
        let compiled_slots: Vec<_> = slots.iter().map(|s| compile_ad(s, &mut table)).collect();
        let mut vm = Machine::new();
        let mut to_reference = 0;
        let mut matched = Vec::new();
        for (m, slot) in compiled_slots.iter().enumerate() {
            let sides = Sides::new(&compiled_job.vm, Some(&slot.vm));
            match vm.eval_attr(0, req, 2, sides, &mut VmHost) {
                Err(Halt::NeedReference) => to_reference += 1,
                Ok(v) => matched.push((m, v.as_bool_equiv() == Some(true))),
                Err(Halt::Fail) => panic!("n = {n}: failed"),
            }
        }
        assert_eq!(to_reference, 0, "n = {n}: pairs that evaluated A0 again");
        // The reference evaluator's answers, on two slots (each evaluation walks
        // the whole expansion).
        for &(m, v) in &matched[..2] {
            let r = symmetric_match(&job, &slots[m], Semantics::Htcondor);
            assert_eq!(v, r, "n = {n}, slot {m}");
        }
        assert_eq!(
            matched.iter().filter(|(_, v)| *v).count(),
            48,
            "slots with cpus"
        );
    }
}

/// Issue 33 item 2: folded steps add up over an evaluation. Two job-only
/// attributes of 2^20 additions (each bounded at about 4,200,000 steps): the
/// Requirements folds the first and, past a program's bound on folded steps,
/// loads the second, whose own program folds it; the machine, past its bound on
/// folded steps in one evaluation, leaves the pair to the reference evaluator,
/// which gives HTCondor's answer (about 8,400,000 steps, within its budget).
#[test]
fn folded_steps_add_up_over_an_evaluation() {
    use classad::compile::{compile_ad, host::VmHost};
    use classad_vm::{Halt, Sides, SlotTable};
    let chain = |p: &str| -> String {
        let mut s: String = (0..20)
            .map(|i| format!("{p}{i} = {p}{} + {p}{}\n", i + 1, i + 1))
            .collect();
        s.push_str(&format!("{p}20 = 1\n"));
        s
    };
    let job = format!(
        "{}{}Owner = \"u\"\nRequirements = A0 > 0 && B0 > 0 && TARGET.Cpus > 0\n",
        chain("A"),
        chain("B")
    );
    let job = ads(&job).remove(0);
    let slot = ads("Cpus = 2\nRequirements = true\n").remove(0);
    let mut table = SlotTable::new();
    let (cj, cs) = (compile_ad(&job, &mut table), compile_ad(&slot, &mut table));
    let req = table.get("Requirements").unwrap();
    let sides = Sides::new(&cj.vm, Some(&cs.vm));
    let r = Machine::new().eval_attr(0, req, 2, sides, &mut VmHost);
    assert!(matches!(r, Err(Halt::NeedReference)), "{r:?}");
    assert!(symmetric_match(&job, &slot, Semantics::Htcondor));
}
