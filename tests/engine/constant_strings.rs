//! Constant strings in registers on the matcher's bit-mask tier: a branch or a
//! default that gives a string (`(TARGET.MappingMethod ?: "") != "Copy"`,
//! `ifThenElse(c, "a", "b") == TARGET.B`) refers to a column holding the
//! constant in every lane, so that comparing or testing it stays on the tier.
//! Matched in blocks and against the reference evaluator pair by pair, over
//! strings in both cases, numbers, booleans, undefined, error and absent
//! attributes; and decided by the tier itself where no TARGET string mixes in.

use crate::tiers;

use classad::ad::ClassAd;
use std::sync::Arc;
use tiers::{ad, assert_matches_reference, assert_on_mask_tier, slot_per_pair};

const VALUES: [Option<&str>; 10] = [
    Some("\"a\""),
    Some("\"A\""),
    Some("\"Copy\""),
    Some("\"\""),
    Some("1"),
    Some("2.5"),
    Some("true"),
    Some("undefined"),
    Some("error"),
    None,
];

/// Expressions that leave a constant string in a register, some lanes mixed
/// with TARGET's values.
const STRINGS: [&str; 6] = [
    "(TARGET.A ?: \"a\")",
    "ifThenElse(TARGET.A =?= 1, \"a\", \"B\")",
    "(TARGET.A > 1 ? \"copy\" : \"\")",
    "(TARGET.A =?= undefined ? \"A\" : TARGET.A)",
    "ifThenElse(TARGET.A, \"a\", TARGET.B)",
    "(false ?: \"Copy\")",
];

const OPS: [&str; 8] = ["<", "<=", ">", ">=", "==", "!=", "=?=", "=!="];

#[test]
fn constant_strings_in_registers_match_as_the_reference_evaluator() {
    let machines = slot_per_pair(&VALUES);
    let mut jobs = Vec::new();
    for s in STRINGS {
        for op in OPS {
            for other in ["TARGET.B", "\"a\"", "\"Copy\"", "1"] {
                jobs.push(ad(&format!("Requirements = ({s} {op} {other}) =?= true\n")));
                jobs.push(ad(&format!(
                    "Requirements = ({s} {op} {other}) =?= undefined\n"
                )));
            }
        }
        jobs.push(ad(&format!(
            "Requirements = member({s}, {{ \"a\", \"copy\" }}) || stringListMember({s}, \"x,A\")\n"
        )));
        jobs.push(ad(&format!("Requirements = {s}\n")));
        jobs.push(ad(&format!(
            "Requirements = !isString({s}) || size({s}) > 0\n"
        )));
    }
    let n = assert_matches_reference(&jobs, &machines);
    assert!(n > 1000, "{n} pairs match");
}

#[test]
fn a_default_string_stays_on_the_mask_tier() {
    // The pilots' `(MappingMethod ?: "") != "Copy"`, MappingMethod read from
    // jobs that lack it. (Where some jobs have it, a register would refer to
    // their column and to the constant's at once: it refers to one, and those
    // jobs' lanes leave the tier.)
    let jobs: Vec<Arc<ClassAd>> = (0..64)
        .map(|i| ad(&format!("Id = {i}\nRequirements = true\n")))
        .collect();
    for (what, slot) in [
        ("default", "(TARGET.MappingMethod ?: \"\") != \"Copy\""),
        (
            "branch",
            "ifThenElse(TARGET.Id > 1000, TARGET.Name, \"none\") == \"NONE\"",
        ),
        (
            "set",
            "member(TARGET.Site ?: \"CHTC\", { \"chtc\", \"UNL\" })",
        ),
        ("identity", "(TARGET.Site ?: \"CHTC\") =?= \"chtc\""),
    ] {
        assert_on_mask_tier(&ad(&format!("Requirements = {slot}\n")), &jobs, what);
    }
}
