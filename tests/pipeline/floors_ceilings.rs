//! Submitter floors and ceilings (`condor_userprio -setfloor/-setceiling`;
//! docs/negotiator.md section 16), each case worked out from
//! `matchmaker.cpp` and held against the reference negotiator too
//! (`negotiation::cycle`). Priorities are the plain form's columns: name,
//! real priority, factor, usage, floor, ceiling.

use crate::negotiation::{cycle, jobs_of, slots_of};
use classad::negotiate::{CycleOutcome, Unmatched};

fn count(o: &CycleOutcome, who: &str) -> usize {
    o.matches.iter().filter(|m| &*m.submitter == who).count()
}

fn who(o: &CycleOutcome) -> Vec<&str> {
    o.matches.iter().map(|m| &*m.submitter).collect()
}

/// Six jobs each of alice and bob on six slots of one CPU, under `prios`.
fn alice_and_bob(prios: &str) -> CycleOutcome {
    let jobs = format!(
        "{}\n{}",
        jobs_of("alice", 1, 6, ""),
        jobs_of("bob", 2, 6, "")
    );
    cycle(&jobs, &slots_of(6, 1, 1, ""), "", prios)
}

#[test]
fn a_submitter_below_its_floor_negotiates_first_up_to_it() {
    // negotiationTime: findBelowFloorSubmitters (floor > 0, usage below it),
    // then negotiateWithGroup(isFloorRound = true) for them alone, where
    // calculateSubmitterLimit caps the limit at the floor; then the full round.
    // alice's priority (0.5) is far better than bob's (500): without the floor
    // bob would get no more than the one slot past his limit a turn allows.
    let o = alice_and_bob("alice 0.5 1\nbob 0.5 1000 0 4\n");
    assert_eq!(who(&o), ["bob", "bob", "bob", "bob", "alice", "alice"]);
    assert_eq!(o.stats.floor_rounds, 1);
    assert_eq!(o.stats.pies, 2, "the floor round is a pie of its own");
    let o = alice_and_bob("alice 0.5 1\nbob 0.5 1000\n");
    assert_eq!(count(&o, "bob"), 1);
    assert_eq!(o.stats.floor_rounds, 0);
}

#[test]
fn the_floor_round_gives_the_whole_floor_not_what_is_missing() {
    // calculateSubmitterLimit: submitterLimit = min(floor, submitterLimit),
    // the floor itself, not the floor less the usage: bob at 1 of a floor of
    // 2 gets 2 more.
    let o = alice_and_bob("alice 0.5 1\nbob 0.5 1000 1 2\n");
    assert_eq!(who(&o)[..2], ["bob", "bob"]);
    assert_eq!(count(&o, "bob"), 2);
    // At or above the floor: no floor round.
    let o = alice_and_bob("alice 0.5 1\nbob 0.5 1000 2 2\n");
    assert_eq!((o.stats.floor_rounds, count(&o, "bob")), (0, 0));
}

#[test]
fn the_floor_round_spins_the_pie_once() {
    // negotiateWithGroup's do-while ends `&& !isFloorRound`: the floor round
    // is one spin. bob and carol (equal priority) are below floors of 8 in a
    // pool of 8: each may take 4 in the spin; bob has 1 job, and carol stops
    // at 4 though a second spin would give her 3 more. alice, far better than
    // both, takes what is left in the full round.
    let jobs = format!(
        "{}\n{}\n{}",
        jobs_of("alice", 1, 10, ""),
        jobs_of("bob", 2, 1, ""),
        jobs_of("carol", 3, 10, "")
    );
    let prios = "alice 0.5 1\nbob 0.5 1000 0 8\ncarol 0.5 1000 0 8\n";
    let o = cycle(&jobs, &slots_of(8, 1, 1, ""), "", prios);
    assert_eq!(
        (count(&o, "bob"), count(&o, "carol"), count(&o, "alice")),
        (1, 4, 3)
    );
    assert_eq!(who(&o)[..5], ["bob", "carol", "carol", "carol", "carol"]);
}

#[test]
fn a_ceiling_stops_a_submitter_and_says_so() {
    // negotiateWithGroup: submitterCeiling = GetCeiling - (int) usage; in
    // negotiate, `limitUsed >= submitterCeiling` ends the turn (MM_RESUME),
    // and the next spin skips the submitter (MM_DONE).
    let o = alice_and_bob("alice 0.5 1 0 0 2\nbob 0.5 1\n");
    assert_eq!(count(&o, "alice"), 2);
    assert_eq!(count(&o, "bob"), 4);
    let left: Vec<(u32, Unmatched)> = o.unmatched.to_vec();
    let mut expected: Vec<(u32, Unmatched)> =
        (2..6).map(|j| (j, Unmatched::SubmitterCeiling)).collect();
    // bob's last two find the pool taken.
    expected.extend([10, 11].map(|j| (j, Unmatched::RejectedAutocluster)));
    assert_eq!(left, expected);
}

#[test]
fn the_ceiling_left_takes_the_integer_part_of_the_usage() {
    // `submitterCeiling -= (int) accountant.GetWeightedResourcesUsed(...)`:
    // a ceiling of 3 at a usage of 2.5 leaves 1, not 0.5 (the Go port
    // subtracts in floating point and gives none).
    let jobs = jobs_of("alice", 1, 4, "");
    let o = cycle(&jobs, &slots_of(4, 1, 1, ""), "", "alice 0.5 1 2.5 0 3\n");
    assert_eq!(o.matches.len(), 1);
}

#[test]
fn a_ceiling_is_tested_before_each_request_not_each_slot() {
    // The test is `limitUsed >= submitterCeiling` at the top of the loop:
    // with slots of weight 2 and 3 left, the second match takes alice to 4.
    let jobs = jobs_of("alice", 1, 4, "");
    let o = cycle(&jobs, &slots_of(4, 2, 1, ""), "", "alice 0.5 1 0 0 3\n");
    assert_eq!(o.matches.len(), 2);
}

#[test]
fn a_ceiling_of_nothing_left_gives_no_turn() {
    // `(submitterCeiling == 0) || (submitterCeiling < minSlotWeight)`: MM_DONE
    // before negotiate(), so the submitter is not active.
    let jobs = jobs_of("alice", 1, 3, "");
    for prios in ["alice 0.5 1 0 0 0\n", "alice 0.5 1 2 0 3\n"] {
        // The second: 1 left, under the slots' weight of 2.
        let o = cycle(&jobs, &slots_of(3, 2, 1, ""), "", prios);
        assert_eq!(o.matches.len(), 0, "{prios}");
        assert_eq!(o.stats.active_submitters, 0);
        assert_eq!(
            o.unmatched
                .to_vec()
                .into_iter()
                .map(|(_, w)| w)
                .collect::<Vec<_>>(),
            [Unmatched::SubmitterCeiling; 3]
        );
    }
    // -1 is none.
    let o = cycle(&jobs, &slots_of(3, 2, 1, ""), "", "alice 0.5 1 0 0 -1\n");
    assert_eq!(o.matches.len(), 3);
}
