//! The cache of TARGET-only values is shared by every slot whose program holds
//! the same subexpression: its key must tell apart every way MY's constants can
//! fill that subexpression's names. `strcmp(A, B)` reads MY's `A` and TARGET's
//! `B` in one slot, TARGET's `A` and MY's `B` in another: same text, same
//! constant value, different subexpressions.

use crate::tiers;

use classad::ad::ClassAd;
use std::sync::Arc;
use tiers::{ad, assert_matches_reference};

/// Slots holding `requirements`, each defining some of `names` as the constant
/// `value`: every subset, in both orders of the pool.
fn slots(requirements: &str, names: &[&str], value: &str) -> Vec<Arc<ClassAd>> {
    let mut out = Vec::new();
    for mask in 0..(1u32 << names.len()) {
        let mut text = format!("Requirements = {requirements}\n");
        for (i, n) in names.iter().enumerate() {
            if mask & (1 << i) != 0 {
                text.push_str(&format!("{n} = {value}\n"));
            }
        }
        out.push(ad(&text));
    }
    out
}

fn jobs() -> Vec<Arc<ClassAd>> {
    [
        "A = \"a\"\nB = \"b\"\nC = \"c\"",
        "A = \"x\"\nB = \"x\"\nC = \"x\"",
        "A = \"z\"",
    ]
    .iter()
    .map(|t| ad(&format!("{t}\nRequirements = true\n")))
    .collect()
}

#[test]
fn a_constant_in_another_place_is_another_subexpression() {
    for requirements in [
        "strcmp(A, B) > 0",
        "strcmp(A, B) < 0",
        "size(strcat(A, B, C)) == 3 && strcmp(B, C) >= 0",
        "substr(strcat(A, B), 0, 1) == \"x\"",
    ] {
        let mut machines = slots(requirements, &["A", "B", "C"], "\"x\"");
        let matched = assert_matches_reference(&jobs(), &machines);
        machines.reverse();
        assert_eq!(assert_matches_reference(&jobs(), &machines), matched);
    }
}
