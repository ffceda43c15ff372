//! Comparisons of two registers on the matcher's bit-mask tier
//! (`TARGET.Cpus == TARGET.TotalSlotCpus`, a comparison's result against a
//! column): every comparison operator over every kind of value a column holds
//! (integers equal and not, reals, booleans, strings in both cases, undefined,
//! error, lists, records, expressions, absent attributes), matched in blocks and
//! against the reference evaluator pair by pair; and the integer columns decided
//! by the tier itself.

use crate::tiers;

use classad::ad::ClassAd;
use std::sync::Arc;
use tiers::{ad, assert_matches_reference, assert_on_mask_tier, slot_per_pair};

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

#[test]
fn register_comparisons_match_as_the_reference_evaluator() {
    let machines = slot_per_pair(&VALUES);
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
    assert_matches_reference(&jobs, &machines);
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
        assert_on_mask_tier(&job, &machines, op);
    }
}
