//! The clock and chance are read when an expression is evaluated, never when it
//! is compiled: a pool compiled once and matched in many cycles (a scheduler
//! embedding the matcher, the negotiation cycle) sees the time of each match.
//!
//! A builtin called without arguments was once folded into a constant when
//! compiled: `time()` kept the second of compilation and `random()` its first
//! draw, on every engine path the compiled pool has (pair by pair, blocks).

use crate::tiers;

use classad::matching::CompiledPool;
use classad_vm::Machine;
use std::collections::BTreeSet;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tiers::ad;

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// Sleeps until the clock's second is past `second`.
fn wait_past(second: i64) {
    while now() <= second {
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn random_draws_anew_in_each_evaluation_of_a_compiled_pool() {
    let job = ad("Requirements = true\nRank = random()\n");
    let slot = ad("Requirements = true\nRank = random(1000000)\n");
    let pool = CompiledPool::new(&[job], &[slot]);
    let mut vm = Machine::new();
    for job_side in [true, false] {
        let draws: BTreeSet<u64> = (0..32)
            .map(|_| pool.rank(&mut vm, 0, 0, job_side).to_bits())
            .collect();
        assert!(draws.len() > 1, "job side {job_side}: one draw {draws:?}");
    }
}

#[test]
fn the_clock_is_read_when_a_compiled_pool_is_matched() {
    // Compiled in second `start`: both sides want a later second, so nothing
    // matches then, and everything matches once the clock has moved on.
    let start = now();
    let later = start + 1;
    let jobs: Vec<_> = (0..70)
        .map(|i| {
            ad(&format!(
                "Requirements = time() >= {later} && TARGET.Id >= 0\nId = {i}\nRank = time()\n"
            ))
        })
        .collect();
    let slots: Vec<_> = (0..70)
        .map(|i| {
            // Through an attribute of the slot's own, as pilots write START.
            ad(&format!(
                "Start = time() >= {later} && TARGET.Id >= 0\nRequirements = Start\nId = {i}\n"
            ))
        })
        .collect();
    let pool = CompiledPool::new(&jobs, &slots);
    let mut vm = Machine::new();
    if now() == start {
        assert!(pool.all_pairs(&mut vm).is_empty());
        assert!(!pool.symmetric_match(&mut vm, 0, 0));
    }
    wait_past(start);
    assert_eq!(pool.all_pairs(&mut vm).len(), 70 * 70, "in blocks");
    assert!(pool.symmetric_match(&mut vm, 3, 5), "pair by pair");
    let before = now();
    let rank = pool.rank(&mut vm, 0, 0, true);
    assert!(
        rank >= before as f64 && rank <= now() as f64,
        "Rank = time() gave {rank}, the clock {before}"
    );
}

#[test]
fn a_clock_read_stays_on_the_bit_mask_tier() {
    // Read once for the block, inlined from the ad's own attribute.
    let job = ad("Start = time() > 1000 && TARGET.Id >= 3\n\
                  Requirements = Start && TARGET.Id - 60 < time() - time()\n");
    let slots: Vec<_> = (0..64)
        .map(|i| ad(&format!("Id = {i}\nRequirements = true\n")))
        .collect();
    tiers::assert_on_mask_tier(&job, &slots, "time() through Start");
}
