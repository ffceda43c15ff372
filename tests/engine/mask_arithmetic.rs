//! Arithmetic on the matcher's bit-mask tier (`TARGET.Memory * 0.9 >=
//! RequestMemory`, `(TARGET.Memory - 512) / TARGET.Cpus`, `-TARGET.Mips`): every
//! arithmetic operator over every kind of value a column holds (integers,
//! zero, the largest integer, reals, a real that overflows, booleans, strings,
//! undefined, error, lists, records, expressions, absent attributes), its result
//! compared, tested for membership, used as a condition, computed on again and
//! returned as the Requirements itself, matched in blocks and against the
//! reference evaluator pair by pair; and numeric columns decided by the tier
//! itself.

use crate::tiers;

use classad::ad::ClassAd;
use std::sync::Arc;
use tiers::{ad, assert_matches_reference, assert_on_mask_tier, slot_per_pair};

const VALUES: [Option<&str>; 17] = [
    Some("7"),
    Some("-2"),
    Some("0"),
    Some("9223372036854775807"),
    Some("2.5"),
    Some("0.0"),
    Some("1e308"),
    Some("true"),
    Some("false"),
    Some("\"a\""),
    Some("undefined"),
    Some("error"),
    Some("{ 1 }"),
    Some("[ x = 1 ]"),
    Some("1 + 1"),
    Some("absTime(0)"),
    None,
];

/// Each arithmetic form, with `A` and `B` for the slot's attributes.
const FORMS: [&str; 10] = [
    "TARGET.A + TARGET.B",
    "TARGET.A - TARGET.B",
    "TARGET.A * TARGET.B",
    "TARGET.A / TARGET.B",
    "TARGET.A % TARGET.B",
    "-TARGET.A",
    "+TARGET.B",
    "TARGET.A * 0.5 - 3",
    "(TARGET.A + 1) / (TARGET.B - 1)",
    "2 - TARGET.A % 3",
];

/// How each form's result is used.
const USES: [&str; 17] = [
    "(X) > 3",
    "(X) <= 0.5",
    "(X) == TARGET.B",
    "(X) =?= 9",
    "(X) =?= undefined",
    "(X) =?= error",
    "(X) =!= 2.5",
    "member(X, { 0, 9, -7, 2.5 })",
    "(X) && true",
    "(X) || false",
    "((X) * 2 >= TARGET.A) =?= false",
    "X",
    "((X) && true) =?= false",
    "((X) || false) =?= true",
    "((X) ?: 4) >= 7",
    "ifThenElse(TARGET.B > 1, X, 3) < 5",
    "(TARGET.B > 1 ? X : -1) =?= 2.5",
];

#[test]
fn arithmetic_on_columns_matches_as_the_reference_evaluator() {
    let machines = slot_per_pair(&VALUES);
    let mut jobs = Vec::new();
    for form in FORMS {
        for usage in USES {
            let text = usage.replace('X', form);
            jobs.push(ad(&format!("Requirements = {text}\n")));
        }
    }
    let matches = assert_matches_reference(&jobs, &machines);
    assert!(matches > 1000, "the forms must match many pairs: {matches}");
}

/// Arithmetic on integer and real columns, and comparisons of its results, are
/// decided by the bit-mask tier itself: no lane is left to the value lanes.
#[test]
fn numeric_columns_are_computed_on_the_mask_tier() {
    let machines: Vec<Arc<ClassAd>> = (0..64)
        .map(|i| {
            let b = if i % 2 == 0 {
                format!("{}", i % 5)
            } else {
                format!("{}.25", i % 5)
            };
            ad(&format!("A = {}\nB = {b}\nRequirements = true\n", i % 7))
        })
        .collect();
    for form in FORMS {
        for test in ["(X) >= 2", "(X) < TARGET.A", "member(X, { 1, 2.5 })"] {
            let text = test.replace('X', form);
            let job = ad(&format!("Requirements = {text}\n"));
            assert_on_mask_tier(&job, &machines, &text);
        }
    }
}
