//! TARGET's attributes that are code (a job's `RequestMemory =
//! ifThenElse(MemoryUsage isnt undefined, MemoryUsage, ...)`) read by the other
//! side's Requirements: the block tiers use their closed values, computed once
//! per ad against an empty other side, where the reading ad lacks every name
//! they looked up there, and leave the rest to the machine pair by pair.

use crate::tiers;

use classad::ad::ClassAd;
use std::sync::Arc;
use tiers::{ad, assert_matches_reference, assert_on_mask_tier};

/// Attribute `Need` as code of every kind a closed value meets: reading the
/// ad's own literals, names the other side may define, builtins, errors,
/// cycles, chains too deep or too costly for a closed value.
fn needs() -> Vec<String> {
    let mut out: Vec<String> = [
        "ifThenElse(MemoryUsage isnt undefined, MemoryUsage, (ImageSize + 1023) / 1024)",
        "ImageSize / 1000 + Extra",
        "TARGET.Memory / 2",
        "Memory - 100",
        "MY.Base * 2",
        "Base ?: 64",
        "NoSuchName",
        "strcat(\"1\", \"2\")",
        "size(\"abcd\") * 1000",
        "Need + 1",
        "Pick ? 3000 : \"big\"",
        "isUndefined(Extra) ? 100 : Extra",
        "real(ImageSize) / 7.0",
        "ImageSize / 0",
        "TARGET.Memory > 3000 ? 2000 : 5000",
        "ImageSize > 0 && TARGET.Memory >= 3000 ? 2000 : 5000",
        // (Cached as TARGET-only: a closed value's evaluation runs it.)
        "ifThenElse(TARGET.Memory > 3000, size(strcat(\"ab\", TARGET.Memory)) * 500, 5000)",
    ]
    .map(String::from)
    .to_vec();
    // A chain deeper than a closed value may be (64 levels).
    let mut deep = String::from("D0");
    for _ in 0..3 {
        deep = format!("({deep} + 1)");
    }
    out.push(deep);
    out
}

/// The ads that hold `Need`: each form with the names it reads defined or not,
/// as (the form, the ad).
fn holders(requirements: &str) -> Vec<(String, Arc<ClassAd>)> {
    let mut chain = String::new();
    for i in 0..80 {
        chain.push_str(&format!("D{i} = D{} + 1\n", i + 1));
    }
    chain.push_str("D80 = 5\n");
    let mut out = Vec::new();
    for (i, need) in needs().into_iter().enumerate() {
        let chain = if need.contains("D0") {
            chain.as_str()
        } else {
            ""
        };
        for own in ["", "MemoryUsage = 900\nBase = 40\nExtra = 7\nPick = true\n"] {
            let text = format!(
                "Requirements = {requirements}\nNeed = {need}\nImageSize = {}\n{own}{chain}",
                1_000_000 + 250_000 * i as i64
            );
            out.push((need.clone(), ad(&text)));
        }
    }
    out
}

fn ads(holders: Vec<(String, Arc<ClassAd>)>) -> Vec<Arc<ClassAd>> {
    holders.into_iter().map(|(_, a)| a).collect()
}

/// The ads that read `Need` through TARGET: some define names the holders'
/// code looks up on the other side, some do not.
fn readers(requirements: &str) -> Vec<Arc<ClassAd>> {
    [
        "",
        "Memory = 4096\n",
        "MemoryUsage = 3000\n",
        "Extra = 1\nBase = 9\n",
        "Pick = false\nMemory = 2048\n",
        "D3 = 1\n",
    ]
    .iter()
    .map(|own| ad(&format!("Requirements = {requirements}\n{own}")))
    .collect()
}

const READS: &str = "TARGET.Need <= 4096 && TARGET.Need * 2 > 100 && TARGET.Need =!= 1100";

#[test]
fn jobs_code_read_by_slots_matches_the_reference() {
    // Slots read the jobs' code (the glidein pools' shape) ...
    let n = assert_matches_reference(&ads(holders("true")), &readers(READS));
    assert!(n > 10, "{n} pairs match");
    // ... and jobs read the slots'.
    let n = assert_matches_reference(&readers(READS), &ads(holders("true")));
    assert!(n > 10, "{n} pairs match");
}

#[test]
fn code_that_reads_nothing_of_the_reader_stays_on_the_bit_mask_tier() {
    // Holders whose code reads only their own names (or names no reader has):
    // each reader decides them on the bit-mask tier alone.
    let closed: Vec<Arc<ClassAd>> = holders("true")
        .into_iter()
        .filter(|(need, _)| !need.contains("TARGET.Memory") && !need.contains("Memory -"))
        .filter(|(need, _)| !need.contains("D0") && !need.contains("Need +"))
        .map(|(_, a)| a)
        .take(64)
        .collect();
    for (r, reader) in readers(READS).iter().enumerate().take(2) {
        assert_on_mask_tier(reader, &closed, &format!("reader {r}"));
    }
}
