//! Concurrency limits in the cycle (docs/negotiator.md section 15), each case
//! worked out from HTCondor's source and held against the reference
//! negotiator too (`negotiation::cycle`).

use crate::negotiation::{cycle, jobs_of, slots_of};
use classad::negotiate::{CycleOutcome, LimitUse, Unmatched};

fn limit(o: &CycleOutcome, name: &str) -> LimitUse {
    o.concurrency_limits
        .iter()
        .find(|l| l.name == name)
        .cloned()
        .unwrap_or_else(|| panic!("no limit {name}: {:?}", o.concurrency_limits))
}

fn reasons(o: &CycleOutcome) -> Vec<Unmatched> {
    o.unmatched
        .to_vec()
        .into_iter()
        .map(|(_, why)| why)
        .collect()
}

#[test]
fn a_limit_caps_the_jobs_that_name_it() {
    // matchmaker.cpp rejectForConcurrencyLimits: refused when count +
    // increment > max; Accountant::AddMatch counts each match's limits, so
    // the third request finds 2 + 1 > 2.
    let jobs = jobs_of("alice", 1, 5, "ConcurrencyLimits = \"lic\"");
    let o = cycle(&jobs, &slots_of(5, 1, 1, ""), "LIC_LIMIT = 2\n", "");
    assert_eq!(o.matches.len(), 2);
    assert_eq!(reasons(&o), [Unmatched::ConcurrencyLimit; 3]);
    let lic = limit(&o, "lic");
    assert_eq!((lic.before, lic.after, lic.maximum), (0.0, 2.0, 2.0));
}

#[test]
fn the_claims_of_the_slots_count_against_a_limit() {
    // Accountant::LoadLimits: every slot ad's ConcurrencyLimits and
    // PreemptingConcurrencyLimits strings, in lower case. Preemption off, so
    // the claimed slots are trimmed and only count.
    let claimed = "Name = \"c1\"\nCpus = 1\nState = \"Claimed\"\nRemoteUser = \"bob@d\"\n\
                   Requirements = true\nConcurrencyLimits = \"LIC\"\n\n\
                   Name = \"c2\"\nCpus = 1\nState = \"Claimed\"\nRemoteUser = \"bob@d\"\n\
                   Requirements = true\nPreemptingConcurrencyLimits = \"lic:0.5\"\n";
    let slots = format!("{claimed}\n{}", slots_of(4, 1, 1, ""));
    let config = "LIC_LIMIT = 3\nNEGOTIATOR_CONSIDER_PREEMPTION = false\n";
    let jobs = jobs_of("alice", 1, 4, "ConcurrencyLimits = \"lic\"");
    let o = cycle(&jobs, &slots, config, "");
    assert_eq!(o.matches.len(), 1, "1.5 in use: one more fits under 3");
    let lic = limit(&o, "lic");
    assert_eq!((lic.before, lic.after), (1.5, 2.5));
}

#[test]
fn a_count_after_the_colon_is_the_increment_and_the_maximum_may_be_reached() {
    // ParseConcurrencyLimit: `name:count`, the count by strtod; the test is
    // `count + increment > max`, so 2 + 2 = 4 passes under 4.
    let jobs = jobs_of("alice", 1, 4, "ConcurrencyLimits = \"lic:2\"");
    let o = cycle(&jobs, &slots_of(4, 1, 1, ""), "LIC_LIMIT = 4\n", "");
    assert_eq!(o.matches.len(), 2);
    let o = cycle(&jobs, &slots_of(4, 1, 1, ""), "LIC_LIMIT = 5\n", "");
    assert_eq!(o.matches.len(), 2, "4 + 2 > 5");
    // A count of 0, negative or not a number counts 1.
    let jobs = jobs_of(
        "alice",
        1,
        4,
        "ConcurrencyLimits = \"lic:0, db:-3, x:many\"",
    );
    let o = cycle(&jobs, &slots_of(4, 1, 1, ""), "DB_LIMIT = 3\n", "");
    assert_eq!(o.matches.len(), 3);
    assert_eq!(limit(&o, "x").after, 3.0);
}

#[test]
fn maxima_come_from_the_limit_its_scope_or_the_default() {
    // Accountant::GetLimitMax: <name>_LIMIT, else (for scope.name)
    // CONCURRENCY_LIMIT_DEFAULT_<scope>, else CONCURRENCY_LIMIT_DEFAULT.
    let slots = slots_of(6, 1, 1, "");
    let config = "CONCURRENCY_LIMIT_DEFAULT = 1\nCONCURRENCY_LIMIT_DEFAULT_SW = 3\n";
    let run = |limits: &str, extra: &str| {
        let jobs = jobs_of("alice", 1, 6, &format!("ConcurrencyLimits = \"{limits}\""));
        cycle(&jobs, &slots, &format!("{config}{extra}"), "")
            .matches
            .len()
    };
    assert_eq!(run("sw.matlab", ""), 3, "the scope's default");
    assert_eq!(run("sw.matlab", "SW.MATLAB_LIMIT = 4\n"), 4, "its own");
    assert_eq!(run("other", ""), 1, "the default");
    assert_eq!(run("hw.other", ""), 1, "a scope with no default");
    assert_eq!(run("Other", "other_LIMIT = 2\n"), 2, "names ignore case");
}

#[test]
fn invalid_names_are_ignored_and_valid_ones_still_count() {
    // ParseConcurrencyLimit: a name is an attribute name or two joined by one
    // dot; rejectForConcurrencyLimits and IncrementLimit skip the others.
    let jobs = jobs_of("alice", 1, 4, "ConcurrencyLimits = \"a.b.c, 9x, .y, lic\"");
    let config = "CONCURRENCY_LIMIT_DEFAULT = 0\nLIC_LIMIT = 3\n";
    let o = cycle(&jobs, &slots_of(4, 1, 1, ""), config, "");
    assert_eq!(o.matches.len(), 3);
    let names: Vec<&str> = o.concurrency_limits.iter().map(|l| &*l.name).collect();
    assert_eq!(names, ["lic"]);
}

#[test]
fn limits_of_the_slot_are_evaluated_against_each_candidate() {
    // matchmakingAlgorithm: a ConcurrencyLimits that is not a string in the
    // job alone is evaluated against each candidate (evaluate_limits_with_
    // match), in the scan and as the match list is popped; the match adds
    // what it evaluates to against the slot it got (MatchedConcurrencyLimits).
    let jobs = jobs_of(
        "alice",
        1,
        3,
        "ConcurrencyLimits = strcat(\"lic:\", TARGET.Cpus)\nRank = TARGET.Cpus",
    );
    let slots = format!("{}\n{}", slots_of(2, 2, 1, ""), slots_of(2, 1, 3, ""));
    for caching in ["true", "false"] {
        let config = format!("LIC_LIMIT = 3\nNEGOTIATOR_MATCHLIST_CACHING = {caching}\n");
        let o = cycle(&jobs, &slots, &config, "");
        let got: Vec<(u32, u32)> = o.matches.iter().map(|m| (m.job, m.slot)).collect();
        // Job 0 takes a 2-CPU slot (lic 2); job 1 is refused the other 2-CPU
        // slot (2 + 2 > 3) and takes a 1-CPU one; job 2 fits nowhere.
        assert_eq!(got, [(0, 0), (1, 2)], "caching {caching}");
        assert_eq!(reasons(&o), [Unmatched::ConcurrencyLimit]);
        assert_eq!(limit(&o, "lic").after, 3.0);
    }
}

#[test]
fn a_concurrency_limit_is_named_before_the_submitter_limit() {
    // matchmaker.cpp's diagnostics: "concurrency limit reached" comes before
    // "submitter limit exceeded". bob's share is 2 of 4 slots; his second
    // cluster names a limit already full.
    let jobs = format!(
        "{}\n{}\n{}",
        jobs_of("alice", 1, 2, ""),
        jobs_of("bob", 2, 1, "ConcurrencyLimits = \"lic\""),
        jobs_of("bob", 3, 1, "ConcurrencyLimits = \"lic\"\nJobPrio = -1"),
    );
    let o = cycle(&jobs, &slots_of(4, 1, 1, ""), "LIC_LIMIT = 1\n", "");
    let bob_left: Vec<(u32, Unmatched)> = o.unmatched.to_vec();
    assert_eq!(bob_left, [(3, Unmatched::ConcurrencyLimit)]);
}
