//! The living pool (`classad::negotiate::living`, docs/negotiator.md section
//! 18) against fresh cycles: after every change of seeded sequences (jobs and
//! slots added, changed and removed, matches made into claims, claims
//! released, the clock moved) its cycle is the one a fresh
//! `Pool::with_accounts` gives on the same ads and accountant state, and the
//! accountant it leaves is the same.

use crate::gen;
use gen::living_sequences::Sequence;

/// What the sequences reached, so that a generator that stops reaching a
/// path fails rather than passes.
#[derive(Debug, Default)]
struct Reached {
    cycles: u64,
    rebuilt_later: u64,
    classes_matched: u64,
    slots_matched: u64,
    dropped: u64,
    preemptions: u64,
    matches: u64,
}

fn sequences(groups: bool, cases: usize, steps: usize) -> Reached {
    let master = gen::master_seed();
    let mut reached = Reached::default();
    for index in 0..cases {
        let (mut s, pool) = Sequence::new(master, index, groups);
        let (_, mut rng) = gen::rng::Rng::for_case(master, 0x11FE, index as u64);
        let mut log = Vec::new();
        for step in 0..steps {
            let cycle = s.cycle().unwrap_or_else(|d| {
                panic!(
                    "DIFF_SEED={master:#x} case {index} (groups {groups}), cycle {step} \
                     after:\n{}\n{d}\n{pool}",
                    log.join("\n")
                )
            });
            reached.cycles += 1;
            let w = &cycle.work;
            reached.rebuilt_later += u64::from(w.rebuilt && step > 0);
            // Counted only where the cycle kept what it had.
            let kept = u64::from(step > 0 && !w.rebuilt);
            reached.classes_matched += kept * w.classes_matched;
            reached.slots_matched += kept * w.slots_matched;
            reached.dropped += w.classes_dropped;
            reached.matches += cycle.outcome.matches.len() as u64;
            reached.preemptions += cycle
                .outcome
                .matches
                .iter()
                .filter(|m| m.preempt != classad::negotiate::PreemptState::None)
                .count() as u64;
            for _ in 0..rng.range(1, 6) {
                log.push(s.change(rng.next_u64()));
            }
        }
    }
    reached
}

#[test]
fn the_living_pool_equals_a_fresh_cycle_after_every_change() {
    let r = sequences(false, gen::scaled(40), 10);
    eprintln!("{r:?}");
    assert!(r.cycles >= 40);
    assert!(r.rebuilt_later > 0, "{r:?}");
    assert!(r.classes_matched > 20 && r.slots_matched > 20, "{r:?}");
    assert!(
        r.dropped > 5 && r.preemptions > 5 && r.matches > 200,
        "{r:?}"
    );
}

#[test]
fn the_living_pool_equals_a_fresh_cycle_with_group_quotas() {
    let r = sequences(true, gen::scaled(20), 10);
    eprintln!("{r:?}");
    assert!(r.matches > 50 && r.slots_matched > 10, "{r:?}");
}
