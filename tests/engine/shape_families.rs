//! The shape families of `classad::generate::shapes` (issue 12) matched on both
//! engines: for every family, every pair of a pool larger than one block of lanes
//! on each side (so that full and partial blocks meet), `all_pairs` cold and warm
//! against brute force on the reference evaluator, each pair's symmetric match,
//! each side's Requirements value and both Ranks must agree
//! (`gen::properties::shape_pool_against_reference`, which the
//! `shapes_vs_reference` fuzz target checks too).
//!
//! Environment: `SHAPES_SEED` picks another seed (default 1); `SHAPES_ADS` the
//! number of jobs (default 70; the slots are twice as many).

#[allow(dead_code, unused_imports)]
use crate::gen;

use classad::generate::shapes::{Family, ShapeSpec};
use gen::properties::shape_pool_against_reference;

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

fn check(family: Family) {
    let jobs = env_number("SHAPES_ADS", 70) as usize;
    let spec = ShapeSpec {
        family,
        jobs,
        machines: 2 * jobs,
        seed: env_number("SHAPES_SEED", 1),
    };
    match shape_pool_against_reference(&spec) {
        Ok(c) => {
            // Both verdicts must occur, or the family tests little.
            assert!(
                c.matching > 0 && c.matching < c.pairs,
                "{family}: {} of {} pairs match",
                c.matching,
                c.pairs
            );
            eprintln!(
                "{family}: {} pairs, {} matching ({:.1}%), {} Requirements evaluations on \
                 the reference",
                c.pairs,
                c.matching,
                100.0 * c.matching as f64 / c.pairs as f64,
                c.to_reference
            );
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn benchmark_pool_agrees() {
    check(Family::Benchmark);
}

#[test]
fn arithmetic_on_target_agrees() {
    check(Family::TargetArithmetic);
}

#[test]
fn two_target_attributes_compared_agree() {
    check(Family::TargetPairs);
}

#[test]
fn lists_in_attributes_agree() {
    check(Family::AttributeLists);
}

#[test]
fn start_arithmetic_on_job_attributes_agrees() {
    check(Family::StartArithmetic);
}

#[test]
fn nested_records_agree() {
    check(Family::Records);
}

#[test]
fn string_builtins_and_type_tests_agree() {
    check(Family::Strings);
}

#[test]
fn production_pilot_policies_agree() {
    check(Family::Glidein);
}

#[test]
fn the_mix_of_shapes_agrees() {
    check(Family::Mix);
}

#[test]
fn every_family_has_a_test() {
    // A family added to the generator must be added above too.
    assert_eq!(Family::ALL.len(), 9);
}
