//! Lists held in attributes on the matcher's tiers: a list of literals is a value
//! of the compiled ad (`Features = { "avx2" }`), MY's is a constant set
//! (`member(TARGET.AcctGroup, MY.AllowedGroups)`), and a call on TARGET's list
//! with MY's constants for its other arguments
//! (`member(MY.ProjectName, TARGET.AllowedProjects)`) is cached per TARGET and
//! per value of those constants. Every form here, over lists of every kind
//! (literals, empty, names, records, not a list, absent), matched in blocks and
//! against the reference evaluator pair by pair, with jobs that share a text
//! and differ in their constants; and the literal lists decided by the bit-mask
//! tier itself.

use crate::tiers;

use classad::ad::ClassAd;
use std::sync::Arc;
use tiers::{ad, assert_matches_reference, assert_on_mask_tier};

/// What a slot's `L` and `S` hold.
const LISTS: [(&str, &str); 9] = [
    ("{ \"a\", \"B\", 3 }", "\"a,B\""),
    ("{ \"b\" }", "\"b\""),
    ("{ }", "\"\""),
    ("{ 3, 4.5, true }", "\"3, 4.5\""),
    ("{ A, \"c\" }", "\"c ,a\""),
    ("{ [ x = 1 ], \"a\" }", "undefined"),
    ("\"a\"", "{ \"a\" }"),
    ("undefined", "error"),
    ("error", "3"),
];

/// The jobs' constants, each used by jobs of the same text.
const VALUES: [&str; 6] = ["\"a\"", "\"b\"", "\"A\"", "3", "4.5", "undefined"];

const FORMS: [&str; 8] = [
    "member(MY.V, TARGET.L)",
    "identicalMember(V, TARGET.L)",
    "anyCompare(\">=\", TARGET.L, MY.V)",
    "stringListMember(MY.V, TARGET.S)",
    "stringListIMember(MY.V, TARGET.S, \",\")",
    "member(TARGET.A, MY.Mine)",
    "size(TARGET.L) >= 2 || member(MY.V, TARGET.L)",
    "member(MY.V, TARGET.L) =?= undefined",
];

fn slots() -> Vec<Arc<ClassAd>> {
    let mut out = Vec::new();
    for (i, (l, s)) in LISTS.iter().enumerate() {
        for a in ["\"a\"", "\"c\"", "3", "undefined"] {
            out.push(ad(&format!(
                "L = {l}\nS = {s}\nA = {a}\nSlot = {i}\nRequirements = true\n"
            )));
        }
    }
    // And one with none of them.
    out.push(ad("Requirements = true\n"));
    out
}

#[test]
fn lists_in_attributes_match_as_the_reference_evaluator() {
    let machines = slots();
    let mut jobs = Vec::new();
    for form in FORMS {
        for v in VALUES {
            jobs.push(ad(&format!(
                "V = {v}\nMine = {{ \"a\", 3, {v} }}\nRequirements = {form}\n"
            )));
        }
    }
    let matches = assert_matches_reference(&jobs, &machines);
    assert!(matches > 200, "too few matches: {matches}");
}

/// Literal lists in TARGET's attributes and in MY's are decided by the bit-mask
/// tier: no lane is left to the value lanes.
#[test]
fn literal_lists_are_decided_on_the_mask_tier() {
    let machines: Vec<Arc<ClassAd>> = (0..64)
        .map(|i| {
            let l = LISTS[i % 4].0;
            ad(&format!(
                "L = {l}\nS = \"a,b\"\nA = \"a\"\nRequirements = true\n"
            ))
        })
        .collect();
    for form in FORMS.iter().filter(|f| !f.contains("TARGET.S")) {
        let job = ad(&format!(
            "V = \"a\"\nMine = {{ \"a\", 3 }}\nRequirements = {form}\n"
        ));
        assert_on_mask_tier(&job, &machines, form);
    }
}
