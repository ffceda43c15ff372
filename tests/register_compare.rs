//! Comparisons of two registers on the matcher's bit-mask tier
//! (`TARGET.Cpus == TARGET.TotalSlotCpus`, a comparison's result against a
//! column): every comparison operator over every kind of value a column holds
//! (integers equal and not, reals, booleans, strings in both cases, undefined,
//! error, lists, records, expressions, absent attributes), matched in blocks and
//! against the reference evaluator pair by pair; and the integer columns decided
//! by the tier itself.

use classad::ad::{read_ads, ClassAd};
use classad::compile::host::VmHost;
use classad::eval::Semantics;
use classad::matching::{symmetric_match, CompiledPool};
use classad_vm::{ColumnStore, CompiledAd, Machine};
use std::sync::Arc;

const VALUES: [Option<&str>; 16] = [
    Some("1"),
    Some("2"),
    Some("2.0"),
    Some("1.5"),
    Some("-3"),
    Some("true"),
    Some("false"),
    Some("\"a\""),
    Some("\"A\""),
    Some("\"b\""),
    Some("undefined"),
    Some("error"),
    Some("{ 1 }"),
    Some("[ x = 1 ]"),
    Some("1 + 1"),
    None,
];

const OPS: [&str; 8] = ["<", "<=", ">", ">=", "==", "!=", "=?=", "=!="];

fn ad(text: &str) -> Arc<ClassAd> {
    Arc::new(read_ads(text, "t").unwrap().remove(0))
}

/// A slot per pair of values, as `A` and `B`.
fn slots() -> Vec<Arc<ClassAd>> {
    let mut out = Vec::new();
    for a in VALUES {
        for b in VALUES {
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

#[test]
fn register_comparisons_match_as_the_reference_evaluator() {
    let machines = slots();
    let mut jobs = Vec::new();
    for op in OPS {
        for lhs in ["TARGET.A", "(TARGET.A < 2)", "TARGET.A * 1"] {
            for want in ["true", "false", "undefined", "error"] {
                jobs.push(ad(&format!(
                    "Requirements = ({lhs} {op} TARGET.B) =?= {want}\n"
                )));
            }
        }
    }
    let mut brute = Vec::new();
    for (j, job) in jobs.iter().enumerate() {
        for (m, machine) in machines.iter().enumerate() {
            if symmetric_match(job, machine, Semantics::Htcondor) {
                brute.push((j, m));
            }
        }
    }
    let pool = CompiledPool::new(&jobs, &machines);
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
}

/// Two integer columns are compared by the bit-mask tier itself: no lane is
/// left to the value lanes.
#[test]
fn integer_columns_are_compared_on_the_mask_tier() {
    let machines: Vec<Arc<ClassAd>> = (0..64)
        .map(|i| {
            ad(&format!(
                "A = {}\nB = {}\nRequirements = true\n",
                i % 7,
                i % 5
            ))
        })
        .collect();
    for op in OPS {
        let job = ad(&format!("Requirements = TARGET.A {op} TARGET.B\n"));
        let pool = CompiledPool::new(std::slice::from_ref(&job), &machines);
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
        assert_eq!(unsure, 0, "{op}: lanes left to the value lanes");
        for (m, machine) in machines.iter().enumerate() {
            let want = symmetric_match(&job, machine, Semantics::Htcondor);
            assert_eq!(verdicts.yes >> m & 1 == 1, want, "{op} slot {m}");
        }
    }
}
