//! The negotiation cycle (`classad::negotiate`): held against a plain serial
//! negotiator that follows negotiator.md line by line (`gen/reference_negotiator.rs`)
//! on many seeded pools, and hand-made cases for each rule.

#[allow(dead_code, unused_imports)]
use crate::gen;
use crate::support;

use classad::ad::{read_ads, ClassAd};
use classad::matching::config::Config;
use classad::negotiate::{
    negotiate, CycleKnobs, CycleOutcome, PreemptState, Priorities, Unmatched,
};
use gen::negotiation_pools::{negotiation_pool, NegotiationPool};
use gen::reference_negotiator::{RefOutcome, Reference};
use std::sync::Arc;

fn ads(text: &str) -> Vec<Arc<ClassAd>> {
    read_ads(text, "test")
        .unwrap()
        .into_iter()
        .map(Arc::new)
        .collect()
}

fn knobs(text: &str) -> CycleKnobs {
    let c = Config::parse(text, "config").unwrap();
    CycleKnobs::from_config(&c).unwrap().0
}

fn run_both(p: &NegotiationPool) -> (CycleOutcome, RefOutcome) {
    let (jobs, slots) = (ads(&p.jobs), ads(&p.slots));
    let mut k = knobs(&p.config);
    k.schedd_packing = p.packing;
    let prios = Priorities::parse(&p.priorities, "priorities").unwrap();
    let fast = negotiate(&jobs, &slots, &k, &prios);
    let reference = Reference::new(&jobs, &slots, &k, &prios).run();
    (fast, reference)
}

/// The differences between the two cycles, empty when they agree.
fn differences(fast: &CycleOutcome, r: &RefOutcome) -> Vec<String> {
    let mut out = Vec::new();
    let n = fast.matches.len().max(r.matches.len());
    for i in 0..n {
        let f = fast.matches.get(i).map(|m| {
            (
                m.job,
                m.slot,
                &*m.submitter,
                m.cost,
                m.spin,
                m.preempt,
                m.key,
                m.packed.clone(),
            )
        });
        let g = r.matches.get(i).map(|m| {
            (
                m.job,
                m.slot,
                m.submitter.as_str(),
                m.cost,
                m.spin,
                m.preempt,
                m.key,
                m.packed.clone(),
            )
        });
        if f != g {
            out.push(format!("match {i}: fast {f:?}\n          reference {g:?}"));
            break;
        }
    }
    let s = &fast.stats;
    for (what, a, b) in [
        ("matches", s.matches, r.matches.len() as u64),
        ("rejections", s.rejections, r.rejections),
        ("jobs considered", s.num_jobs_considered, r.considered),
        ("pie spins", s.pie_spins, r.pie_spins),
        ("pies", s.pies, r.pies),
    ] {
        if a != b {
            out.push(format!("{what}: fast {a}, reference {b}"));
        }
    }
    out
}

/// How often the seeded pools reach each rule, so a generator that stops
/// reaching one fails the test rather than passing it emptily.
#[derive(Debug, Default)]
struct Reached {
    matches: usize,
    rank_preemptions: usize,
    prio_preemptions: usize,
    consumption_matches: usize,
    packed: usize,
    later_spins: usize,
    rejections: u64,
    /// Preemption tests the fast cycle ran on the machine (`engine::Repeated`).
    policy_on_machine: u64,
    /// Jobs left for a concurrency limit, and for a submitter's ceiling.
    limit_refusals: usize,
    ceiling_stops: usize,
    /// Floor rounds run.
    floor_rounds: u64,
}

fn differential(groups: bool, cases: usize) -> Reached {
    let master = gen::master_seed();
    let mut seen = Reached::default();
    for index in 0..cases {
        let p = negotiation_pool(master, index, groups);
        let (fast, r) = run_both(&p);
        seen.matches += r.matches.len();
        for m in &r.matches {
            match m.preempt {
                classad::negotiate::PreemptState::Rank => seen.rank_preemptions += 1,
                classad::negotiate::PreemptState::Prio => seen.prio_preemptions += 1,
                classad::negotiate::PreemptState::None => {}
            }
            seen.packed += m.packed.len();
            seen.later_spins += usize::from(m.spin > 1);
        }
        seen.consumption_matches += r
            .matches
            .iter()
            .filter(|m| {
                p.slots
                    .split("\n\n")
                    .nth(m.slot as usize)
                    .is_some_and(|s| s.contains("ConsumptionCpus"))
            })
            .count();
        seen.rejections += r.rejections;
        seen.policy_on_machine += fast.stats.policy_evaluations[0];
        seen.limit_refusals += fast.unmatched.count(Unmatched::ConcurrencyLimit);
        seen.ceiling_stops += fast.unmatched.count(Unmatched::SubmitterCeiling);
        seen.floor_rounds += fast.stats.floor_rounds;
        invariants(&fast);
        let d = differences(&fast, &r);
        assert!(
            d.is_empty(),
            "case {index} (master seed {master:#x}):\n{}\n{p}",
            d.join("\n")
        );
    }
    seen
}

#[test]
fn the_cycle_equals_the_reference_negotiator_on_seeded_pools() {
    let seen = differential(false, gen::scaled(400));
    assert!(seen.matches > 1000, "{seen:?}");
    for (what, n) in [
        ("rank preemptions", seen.rank_preemptions),
        ("prio preemptions", seen.prio_preemptions),
        ("consumption-policy matches", seen.consumption_matches),
        ("jobs packed depth first", seen.packed),
        ("matches after the first spin", seen.later_spins),
        (
            "preemption tests on the machine",
            seen.policy_on_machine as usize,
        ),
        ("jobs refused by a concurrency limit", seen.limit_refusals),
        ("jobs stopped by a ceiling", seen.ceiling_stops),
        ("floor rounds", seen.floor_rounds as usize),
    ] {
        assert!(n >= 5, "the pools reach {what}: {seen:?}");
    }
    assert!(seen.rejections > 100, "{seen:?}");
}

#[test]
fn the_cycle_equals_the_reference_negotiator_with_static_group_quotas() {
    let seen = differential(true, gen::scaled(250));
    assert!(seen.matches > 500 && seen.later_spins > 0, "{seen:?}");
    assert!(
        seen.floor_rounds > 0 && seen.limit_refusals > 0 && seen.ceiling_stops > 0,
        "{seen:?}"
    );
}

/// One cycle on the fast path, held against the reference negotiator too.
pub(crate) fn cycle(jobs: &str, slots: &str, config: &str, priorities: &str) -> CycleOutcome {
    let p = NegotiationPool {
        jobs: jobs.into(),
        slots: slots.into(),
        priorities: priorities.into(),
        config: config.into(),
        packing: false,
    };
    let (fast, r) = run_both(&p);
    let d = differences(&fast, &r);
    assert!(d.is_empty(), "{}\n{p}", d.join("\n"));
    invariants(&fast);
    fast
}

/// What the statistics must say of the cycle's own lists.
fn invariants(o: &CycleOutcome) {
    let s = &o.stats;
    assert_eq!(s.matches, o.matches.len() as u64);
    assert_eq!(
        s.num_jobs_considered,
        s.matches + s.rejections,
        "every request considered ends in a match or a rejection"
    );
    let max_spin = o
        .matches
        .iter()
        .map(|m| u64::from(m.spin))
        .max()
        .unwrap_or(0);
    assert!(max_spin <= s.pie_spins, "{max_spin} > {}", s.pie_spins);
    let per_submitter: u64 = o.submitters.iter().map(|s| s.matches).sum();
    assert_eq!(per_submitter, s.matches);
    for sub in &o.submitters {
        let charged: f64 = o
            .matches
            .iter()
            .filter(|m| m.submitter == sub.name)
            .map(|m| m.cost)
            .sum();
        assert!((sub.usage_after - sub.usage_before - charged).abs() < 1e-9);
    }
}

/// `n` jobs of `owner`, one cluster, with extra attribute lines (and
/// `Requirements = true` unless they have one).
pub(crate) fn jobs_of(owner: &str, cluster: u32, n: u32, extra: &str) -> String {
    let extra = match (extra.contains("Requirements"), extra.is_empty()) {
        (true, _) => extra.to_string(),
        (false, true) => "Requirements = true".to_string(),
        (false, false) => format!("{extra}\nRequirements = true"),
    };
    (0..n)
        .map(|p| {
            format!(
                "Owner = \"{owner}\"\nClusterId = {cluster}\nProcId = {p}\nJobStatus = 1\n\
                 RequestCpus = 1\nRequestMemory = 100\n{extra}\n"
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `n` unclaimed slots of `cpus` CPUs each (their weight), ids from `first`.
pub(crate) fn slots_of(n: u32, cpus: u32, first: u32, extra: &str) -> String {
    (0..n)
        .map(|i| {
            format!(
                "Name = \"slot{}\"\nSlotID = {}\nCpus = {cpus}\nMemory = 1000\n\
                 State = \"Unclaimed\"\nRequirements = true\n{extra}\n",
                first + i,
                first + i
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn order(o: &CycleOutcome) -> Vec<(u32, u32)> {
    o.matches.iter().map(|m| (m.job, m.slot)).collect()
}

#[test]
fn equal_submitters_share_the_pool_in_name_order() {
    // Four slots of weight 1, two submitters of equal priority: each may have 2.
    let jobs = format!(
        "{}\n{}",
        jobs_of("bob", 1, 3, ""),
        jobs_of("alice", 2, 3, "")
    );
    let o = cycle(&jobs, &slots_of(4, 1, 1, ""), "", "");
    let who: Vec<&str> = o.matches.iter().map(|m| &*m.submitter).collect();
    assert_eq!(
        who,
        ["alice", "alice", "bob", "bob"],
        "ties between submitters by name"
    );
    // Each takes the slots in order (equal keys: the earlier slot).
    assert_eq!(order(&o), [(3, 0), (4, 1), (0, 2), (1, 3)]);
    let why: Vec<(u32, Unmatched)> = o.unmatched.to_vec();
    assert_eq!(
        why,
        [
            (2, Unmatched::SubmitterLimit),
            (5, Unmatched::SubmitterLimit)
        ]
    );
    assert_eq!(o.stats.pie_spins, 1, "no slot is left for a second spin");
}

#[test]
fn a_better_priority_gets_a_bigger_share_and_goes_first() {
    // alice's effective priority 0.5 * 1 beats bob's 0.5 * 3: shares 3/4 and 1/4
    // of 8 slots.
    let jobs = format!(
        "{}\n{}",
        jobs_of("bob", 1, 8, ""),
        jobs_of("alice", 2, 8, "")
    );
    let o = cycle(
        &jobs,
        &slots_of(8, 1, 1, ""),
        "",
        "alice 0.5 1\nbob 0.5 3\n",
    );
    let count = |who: &str| o.matches.iter().filter(|m| &*m.submitter == who).count();
    assert_eq!((count("alice"), count("bob")), (6, 2));
    assert_eq!(&*o.matches[0].submitter, "alice");
    // Usage counts against the share: bob's 2 slots in use leave him nothing.
    let o = cycle(
        &jobs,
        &slots_of(8, 1, 1, ""),
        "",
        "alice 0.5 1\nbob 0.5 3 2\n",
    );
    assert_eq!(
        o.matches.iter().filter(|m| &*m.submitter == "bob").count(),
        0
    );
}

#[test]
fn one_slot_past_the_limit_once_per_turn() {
    // The pool is 6 CPUs: a 4-CPU slot and two of 1. alice and bob may have 3
    // each; alice's job wants the big slot (Rank), which costs 4: allowed, as her
    // first of the turn. bob is then capped at what is left of the pie (2).
    let jobs = format!(
        "{}\n{}",
        jobs_of("alice", 1, 2, "Rank = TARGET.Cpus"),
        jobs_of("bob", 2, 3, "")
    );
    let slots = format!("{}\n{}", slots_of(1, 4, 1, ""), slots_of(2, 1, 2, ""));
    let o = cycle(&jobs, &slots, "NEGOTIATOR_PRE_JOB_RANK = 0\n", "");
    assert_eq!(order(&o), [(0, 0), (2, 1), (3, 2)]);
    assert_eq!(o.matches[0].cost, 4.0);
    assert_eq!(
        o.unmatched.to_vec(),
        [
            (1, Unmatched::SubmitterLimit),
            (4, Unmatched::SubmitterLimit)
        ]
    );
}

#[test]
fn an_autocluster_that_finds_nothing_is_rejected_for_the_turn() {
    // Requests in order: A (2 jobs, matching nothing), B (1), A again (1). The
    // first A is rejected once, B matched, the last A skipped unasked.
    let a = "Requirements = TARGET.Cpus > 100";
    let b = "Requirements = true";
    let jobs = [
        jobs_of("alice", 1, 2, a),
        jobs_of("alice", 2, 1, b),
        jobs_of("alice", 3, 1, a),
    ]
    .join("\n");
    let o = cycle(&jobs, &slots_of(3, 1, 1, ""), "", "");
    assert_eq!(order(&o), [(2, 0)]);
    assert_eq!((o.stats.rejections, o.stats.num_jobs_considered), (1, 2));
    assert!(o
        .unmatched
        .iter()
        .all(|(j, w)| j == 2 || w == Unmatched::RejectedAutocluster));
}

#[test]
fn slot_weights_are_the_cost_unless_turned_off() {
    let jobs = jobs_of("alice", 1, 3, "");
    let slots = slots_of(3, 2, 1, "");
    let o = cycle(&jobs, &slots, "", "");
    assert!(o.matches.iter().all(|m| m.cost == 2.0));
    let o = cycle(&jobs, &slots, "NEGOTIATOR_USE_SLOT_WEIGHTS = false\n", "");
    assert!(o.matches.iter().all(|m| m.cost == 1.0));
    // A slot without SlotWeight gets SLOT_WEIGHT (here 5); a negative one is 1.
    let o = cycle(&jobs, &slots, "SLOT_WEIGHT = 5\n", "");
    assert!(o.matches.iter().all(|m| m.cost == 5.0));
    let o = cycle(&jobs, &slots_of(1, 1, 1, "SlotWeight = -3"), "", "");
    assert_eq!(o.matches[0].cost, 1.0);
}

#[test]
fn claimed_slots_are_trimmed_or_kept_for_preemption() {
    let claimed = "State = \"Claimed\"\nRemoteUser = \"zed@d\"\nRemoteOwner = \"zed@d\"\n\
                   Rank = TARGET.JobPrio\nCurrentRank = 0";
    let slots = format!(
        "{}\n{}",
        slots_of(1, 1, 1, claimed),
        slots_of(1, 1, 2, "Rank = 0")
    );
    let jobs = jobs_of("alice", 1, 2, "JobPrio = 5");
    // Preemption considered (the default): the claimed slot's Rank prefers the
    // job (5 > 0): RANK preemption, and first (PRE weighs the slot's Rank most).
    let o = cycle(&jobs, &slots, "", "");
    let states: Vec<PreemptState> = o.matches.iter().map(|m| m.preempt).collect();
    assert_eq!(states, [PreemptState::Rank, PreemptState::None]);
    assert_eq!(o.stats.trimmed_slots, 2);
    // Not considered: the claimed slot is trimmed.
    let o = cycle(
        &jobs,
        &slots,
        "NEGOTIATOR_CONSIDER_PREEMPTION = false\n",
        "",
    );
    assert_eq!((o.matches.len(), o.stats.trimmed_slots), (1, 1));
    // Retirement time left trims it even with preemption.
    let retiring = format!("{claimed}\nRetirementTimeRemaining = 60");
    let slots = format!(
        "{}\n{}",
        slots_of(1, 1, 1, &retiring),
        slots_of(1, 1, 2, "")
    );
    assert_eq!(cycle(&jobs, &slots, "", "").stats.trimmed_slots, 1);
    // A claimed partitionable slot that does not want matching is trimmed always.
    let pslot = "PartitionableSlot = true\nState = \"Claimed\"\nWantMatching = false";
    let o = cycle(&jobs, &slots_of(1, 4, 1, pslot), "", "");
    assert_eq!((o.matches.len(), o.stats.trimmed_slots), (0, 0));
}

#[test]
fn prio_preemption_needs_preemption_requirements_and_never_takes_ones_own() {
    let claimed = |user: &str| {
        format!("State = \"Claimed\"\nRemoteUser = \"{user}\"\nRank = 0\nCurrentRank = 0")
    };
    let slots = format!(
        "{}\n{}",
        slots_of(1, 1, 1, &claimed("zed@d")),
        slots_of(1, 1, 2, &claimed("alice"))
    );
    let jobs = jobs_of("alice", 1, 2, "");
    assert!(
        cycle(&jobs, &slots, "", "").matches.is_empty(),
        "PREEMPTION_REQUIREMENTS is False"
    );
    let o = cycle(&jobs, &slots, "PREEMPTION_REQUIREMENTS = True\n", "");
    assert_eq!(order(&o), [(0, 0)], "not alice's own slot");
    assert_eq!(o.matches[0].preempt, PreemptState::Prio);
    // RemoteUserPrio (zed's effective priority, 0.5 * 1000) is there to read.
    let o = cycle(
        &jobs,
        &slots,
        "PREEMPTION_REQUIREMENTS = MY.RemoteUserPrio > 1000\n",
        "",
    );
    assert!(o.matches.is_empty());
    let o = cycle(
        &jobs,
        &slots,
        "PREEMPTION_REQUIREMENTS = MY.RemoteUserPrio > 400\n",
        "",
    );
    assert_eq!(o.matches.len(), 1);
}

/// The preemption tests go through the engine (issue 35, item 3): a claimed slot
/// tested against class after class, each test reading both sides, runs on the
/// machine once the slot and the class come back, with the values the
/// reference negotiator gets (`cycle` holds the outcome against it).
#[test]
fn preemption_tests_met_again_run_on_the_machine() {
    let slots: Vec<String> = (1..=4)
        .map(|i| {
            let claimed = format!(
                "State = \"Claimed\"\nRemoteUser = \"zed@d\"\nRank = 0\nCurrentRank = 0\nPrio = {i}"
            );
            slots_of(1, 1, i, &claimed)
        })
        .collect();
    let jobs: Vec<String> = (1..=4)
        .map(|k| jobs_of("alice", k, 1, &format!("Size = {k}")))
        .collect();
    // Slot 4 preempts for no class: each job tries every slot, best first.
    let config = "PREEMPTION_REQUIREMENTS = MY.Prio + TARGET.Size < 8 && MY.Prio < 4\n\
                  PREEMPTION_RANK = MY.Prio * 10 - TARGET.Size\n";
    let o = cycle(&jobs.join("\n"), &slots.join("\n"), config, "");
    assert_eq!(o.matches.len(), 3, "{:?}", order(&o));
    assert!(o.matches.iter().all(|m| m.preempt == PreemptState::Prio));
    let [machine, reference] = o.stats.policy_evaluations;
    assert!(machine > 0, "{machine} on the machine, {reference} not");
}

#[test]
fn a_consumption_policy_slot_takes_many_jobs_and_charges_what_they_use() {
    let cp = "PartitionableSlot = true\nMachineResources = \"Cpus Memory\"\n\
              ConsumptionCpus = quantize(target.RequestCpus, {1})\n\
              ConsumptionMemory = quantize(target.RequestMemory, {100})\nSlotWeight = Cpus";
    let jobs = jobs_of("alice", 1, 5, "");
    let o = cycle(&jobs, &slots_of(1, 4, 1, cp), "", "");
    // Four jobs of 1 CPU each (a CPU's weight each), which is all the pool.
    assert_eq!(order(&o), [(0, 0), (1, 0), (2, 0), (3, 0)]);
    assert!(o.matches.iter().all(|m| m.cost == 1.0));
    assert_eq!(o.unmatched.to_vec(), [(4, Unmatched::SubmitterLimit)]);
    // With the limit lifted, the fifth job finds the slot empty.
    let o = cycle(
        &jobs,
        &slots_of(1, 4, 1, cp),
        "NEGOTIATOR_IGNORE_USER_PRIORITIES = true\n",
        "",
    );
    assert_eq!(o.unmatched.to_vec(), [(4, Unmatched::RejectedAutocluster)]);
    // Without a consumption policy, a partitionable slot is one match, charged
    // its whole weight.
    let o = cycle(
        &jobs,
        &slots_of(1, 4, 1, "PartitionableSlot = true"),
        "",
        "",
    );
    assert_eq!(order(&o), [(0, 0)]);
    assert_eq!(o.matches[0].cost, 4.0);
}

#[test]
fn ignoring_job_ranks_orders_slots_by_pre_and_post_alone() {
    // The job prefers the last slot; NEGOTIATOR_POST_JOB_RANK prefers low SlotIDs.
    let jobs = jobs_of("alice", 1, 1, "Rank = TARGET.SlotID");
    let slots = slots_of(3, 1, 1, "");
    let config = "NEGOTIATOR_PRE_JOB_RANK = 0\nNEGOTIATOR_POST_JOB_RANK = -SlotID\n";
    let o = cycle(&jobs, &slots, config, "");
    assert_eq!(order(&o), [(0, 2)], "the job's Rank comes before POST");
    let ignoring = format!("{config}NEGOTIATOR_IGNORE_JOB_RANKS = true\n");
    let o = cycle(&jobs, &slots, &ignoring, "");
    assert_eq!(
        order(&o),
        [(0, 0)],
        "the Rank counts 1 for every slot: POST decides"
    );
    assert_eq!(o.matches[0].key.rank, 1.0);
}

/// The fast cycle alone (for what the reference negotiator does not model).
fn fast_cycle(jobs: &str, slots: &str, config: &str) -> CycleOutcome {
    let o = negotiate(
        &ads(jobs),
        &ads(slots),
        &knobs(config),
        &Priorities::default(),
    );
    invariants(&o);
    o
}

fn per_submitter(o: &CycleOutcome) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = o
        .submitters
        .iter()
        .map(|s| (s.name.to_string(), s.matches))
        .collect();
    v.sort();
    v
}

#[test]
fn group_quotas_cap_groups_and_surplus_goes_where_it_is_accepted() {
    let jobs = format!(
        "{}\n{}",
        jobs_of("u", 1, 8, "AccountingGroup = \"group_a.u\""),
        jobs_of("v", 2, 1, "AccountingGroup = \"group_b.v\"")
    );
    let slots = slots_of(8, 1, 1, "");
    // Static quotas: group_a may have 3, group_b 2, the rest (<none>) 3.
    let statics =
        "GROUP_NAMES = group_a, group_b\nGROUP_QUOTA_group_a = 3\nGROUP_QUOTA_group_b = 2\n";
    let o = cycle(&jobs, &slots, statics, "");
    assert_eq!(
        per_submitter(&o),
        [("group_a.u".into(), 3), ("group_b.v".into(), 1)]
    );
    assert!(o.matches.iter().all(|m| m.group.is_some()));
    // Dynamic quotas: half of the pool each.
    let dynamic = "GROUP_NAMES = group_a, group_b\nGROUP_QUOTA_DYNAMIC_group_a = 0.5\n\
                   GROUP_QUOTA_DYNAMIC_group_b = 0.5\n";
    let o = fast_cycle(&jobs, &slots, dynamic);
    assert_eq!(
        per_submitter(&o),
        [("group_a.u".into(), 4), ("group_b.v".into(), 1)]
    );
    // What group_b leaves goes to group_a when groups accept surplus.
    let surplus = format!("{dynamic}GROUP_ACCEPT_SURPLUS = true\n");
    let o = fast_cycle(&jobs, &slots, &surplus);
    assert_eq!(
        per_submitter(&o),
        [("group_a.u".into(), 7), ("group_b.v".into(), 1)]
    );
}

/// `GroupEntry::GetAssignedGroup` walks a submitter's group name down the tree
/// as far as the configured groups go: `group_a.x.u`, where `group_a.x` is not
/// a group, negotiates in `group_a` and under its quota of 2 (before, such a
/// submitter fell to `<none>` and took the root's 4).
#[test]
fn a_submitter_of_an_unlisted_subgroup_is_its_nearest_group_s() {
    let jobs = jobs_of("u", 1, 8, "AccountingGroup = \"group_a.x.u\"");
    let slots = slots_of(8, 1, 1, "");
    let statics =
        "GROUP_NAMES = group_a, group_b\nGROUP_QUOTA_group_a = 2\nGROUP_QUOTA_group_b = 2\n";
    let o = cycle(&jobs, &slots, statics, "");
    assert_eq!(per_submitter(&o), [("group_a.x.u".into(), 2)]);
    assert!(o.matches.iter().all(|m| m.group.is_some()));
}

/// A `GROUP_NAMES` hierarchy thousands of groups deep: its passes (quotas,
/// fair share, surplus, usage) visit the tree without recursing, so the cycle
/// runs on a thread of 256 KiB of stack (HTCondor's recursion, followed call for
/// call, ran out of it at about 1,300 groups deep).
#[test]
fn a_group_hierarchy_thousands_deep_needs_no_deep_stack() {
    let depth = 3_000;
    let names: Vec<String> = (1..=depth).map(|d| vec!["a"; d].join(".")).collect();
    let config = format!(
        "GROUP_NAMES = {}\nGROUP_ACCEPT_SURPLUS = true\n",
        names.join(", ")
    );
    let (top, deepest) = (names[0].clone(), names[depth - 1].clone());
    let jobs = format!(
        "{}\n{}",
        jobs_of("u", 1, 1, &format!("AccountingGroup = \"{top}.u\"")),
        jobs_of("v", 2, 1, &format!("AccountingGroup = \"{deepest}.v\""))
    );
    let slots = slots_of(2, 1, 1, "");
    let o = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || fast_cycle(&jobs, &slots, &config))
        .unwrap()
        .join()
        .expect("the cycle completes on a small stack");
    let groups: Vec<&str> = o
        .matches
        .iter()
        .filter_map(|m| m.group.as_deref())
        .collect();
    assert_eq!(groups.len(), 2, "{groups:?}");
    assert!(groups.contains(&"a") && groups.contains(&names[depth - 1].as_str()));
}

#[test]
fn the_job_and_slot_constraints_and_priorities_knobs() {
    let jobs = format!(
        "{}\n{}",
        jobs_of("alice", 1, 2, "JobPrio = -1"),
        jobs_of("bob", 2, 2, "JobPrio = 3")
    );
    let slots = format!(
        "{}\n{}",
        slots_of(2, 1, 1, ""),
        slots_of(2, 1, 3, "Hidden = true")
    );
    // NEGOTIATOR_SLOT_CONSTRAINT: hidden slots do not exist for the cycle.
    let o = cycle(
        &jobs,
        &slots,
        "NEGOTIATOR_SLOT_CONSTRAINT = Hidden =!= true\n",
        "",
    );
    assert_eq!((o.stats.total_slots, o.matches.len()), (2, 2));
    // NEGOTIATOR_JOB_CONSTRAINT: alice's jobs are not asked for.
    let o = cycle(
        &jobs,
        &slots,
        "NEGOTIATOR_JOB_CONSTRAINT = JobPrio > 0\n",
        "",
    );
    assert!(o.matches.iter().all(|m| &*m.submitter == "bob"));
    assert_eq!(o.unmatched.to_vec()[0], (0, Unmatched::JobConstraint));
    // USE_GLOBAL_JOB_PRIOS: bob's better JobPrio puts him first among equals.
    let o = cycle(&jobs, &slots, "USE_GLOBAL_JOB_PRIOS = true\n", "");
    assert_eq!(&*o.matches[0].submitter, "bob");
    let o = cycle(&jobs, &slots, "", "");
    assert_eq!(&*o.matches[0].submitter, "alice");
    // NEGOTIATOR_IGNORE_USER_PRIORITIES: no limit, the first submitter takes all.
    let o = cycle(
        &jobs,
        &slots_of(4, 1, 1, ""),
        "NEGOTIATOR_IGNORE_USER_PRIORITIES = true\n",
        "",
    );
    let alice = o
        .matches
        .iter()
        .filter(|m| &*m.submitter == "alice")
        .count();
    assert_eq!(alice, 2);
    // The nice user's factor puts it last.
    let nice = jobs_of("nice-user.x", 3, 1, "");
    let o = cycle(&format!("{nice}\n{jobs}"), &slots_of(5, 1, 1, ""), "", "");
    assert_eq!(&*o.submitters[o.submitters.len() - 1].name, "nice-user.x");
}

#[test]
fn without_matchlist_caching_each_job_scans_the_pool_alike() {
    let jobs = format!(
        "{}\n{}",
        jobs_of("alice", 1, 3, "Rank = TARGET.Memory"),
        jobs_of("bob", 2, 3, "")
    );
    let slots = format!(
        "{}\n{}",
        slots_of(3, 1, 1, "Memory = 500"),
        slots_of(3, 2, 4, "")
    );
    let cached = cycle(&jobs, &slots, "", "");
    let uncached = cycle(&jobs, &slots, "NEGOTIATOR_MATCHLIST_CACHING = false\n", "");
    assert_eq!(order(&cached), order(&uncached));
}

#[test]
fn depth_first_and_schedd_packing_fill_partitionable_slots() {
    let jobs = jobs_of("alice", 1, 6, "RequestCpus = 2\nRequestMemory = 100");
    let slots = slots_of(2, 4, 1, "PartitionableSlot = true\nMemory = 1000");
    // Depth first: the negotiator counts the jobs that fit (4 CPUs / 2) against
    // the request.
    let o = cycle(&jobs, &slots, "NEGOTIATOR_DEPTH_FIRST = true\n", "");
    let packed: Vec<Vec<u32>> = o.matches.iter().map(|m| m.packed.clone()).collect();
    assert_eq!(order(&o), [(0, 0), (2, 1)]);
    assert_eq!(packed, [vec![1], vec![3]]);
    // Schedd packing: the leftovers of each match, reported with it.
    let mut k = knobs("");
    k.schedd_packing = true;
    let o = negotiate(&ads(&jobs), &ads(&slots), &k, &Priorities::default());
    invariants(&o);
    let packed: Vec<Vec<u32>> = o.matches.iter().map(|m| m.packed.clone()).collect();
    assert_eq!(packed, [vec![1], vec![3]]);
}

#[test]
fn bad_configuration_and_priority_files_are_clear_errors() {
    let dir = support::Scratch::new("negotiate");
    let write = |name: &str, text: &str| dir.write(name, text);
    let run = |args: &[&str]| {
        let r = support::classad("negotiate", args);
        (r.code, r.err)
    };
    let config = write(
        "bad.config",
        "# knobs\nNEGOTIATOR_CONSIDER_PREEMPTION = perhaps\n",
    );
    let (code, err) = run(&["--config", &config]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("bad.config:2: NEGOTIATOR_CONSIDER_PREEMPTION: \"perhaps\" is not a boolean"),
        "{err}"
    );
    let prio = write("bad.prio", "alice 1\nbob one\n");
    let (code, err) = run(&["--priorities", &prio]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("bad.prio:2:5: expected a real priority"),
        "{err}"
    );
    let unknown = write("unknown.config", "NOT_A_KNOB = 1\n");
    let (code, err) = run(&["--config", &unknown, "-q"]);
    assert_eq!(code, Some(0));
    assert!(
        err.contains("unknown.config:1: NOT_A_KNOB: not a knob the emulator reads; ignored"),
        "{err}"
    );
    let (code, err) = run(&["--priorities", "/no/such/file"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("/no/such/file"), "{err}");
}

/// The JSON report: every match with the job's id and the slot's name, the
/// unmatched jobs with why, and the negotiator ad's statistics.
#[test]
fn the_json_report_names_jobs_slots_and_statistics() {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_classad"))
        .args(["negotiate", "--format", "json", "-q"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let matches = v["matches"].as_array().unwrap();
    assert!(!matches.is_empty());
    for m in matches {
        assert!(m["job_id"].as_str().unwrap().contains('.'));
        assert!(m["slot_name"].as_str().unwrap().contains('@'));
        for key in [
            "submitter",
            "autocluster",
            "pre_job_rank",
            "job_rank",
            "post_job_rank",
            "cost",
            "pie_spin",
        ] {
            assert!(!m[key].is_null(), "{key}");
        }
    }
    let stats = &v["stats"];
    assert_eq!(
        stats["LastNegotiationCycleMatches0"].as_f64().unwrap() as usize,
        matches.len()
    );
    for u in v["unmatched"].as_array().unwrap() {
        assert!(u["reason"].as_str().is_some());
    }
    let text = std::process::Command::new(env!("CARGO_BIN_EXE_classad"))
        .args(["negotiate", "-q"])
        .output()
        .unwrap();
    let lines: Vec<String> = matches
        .iter()
        .map(|m| format!("{} {}", m["job"], m["slot"]))
        .collect();
    assert_eq!(
        String::from_utf8(text.stdout).unwrap(),
        lines.join("\n") + "\n"
    );
}

/// `classad bench`: a small generated pool, every phase timed and every figure the
/// JSON report promises; the same from files; counts and files are not mixed.
#[test]
fn classad_bench_reports_every_phase() {
    let run = |args: &[&str]| {
        let r = support::classad("bench", args);
        (r.code, r.out, r.err)
    };
    let (code, out, err) = run(&[
        "--machines",
        "300",
        "--jobs",
        "3000",
        "--format",
        "json",
        "--threads",
        "2",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for key in [
        "machines",
        "jobs",
        "threads",
        "autoclusters",
        "submitters",
        "evaluations",
        "matches",
        "parse_s",
        "compile_s",
        "cluster_s",
        "match_s",
        "negotiate_s",
        "total_s",
        "peak_rss_bytes",
        "LastNegotiationCycleMatches0",
        "LastNegotiationCycleSlotShareIter0",
    ] {
        assert!(v[key].is_number(), "{key} in {out}");
    }
    assert_eq!(
        (v["machines"].as_u64(), v["jobs"].as_u64()),
        (Some(300), Some(3000))
    );
    assert!(v["matches"].as_u64().unwrap() > 0);
    // Counts as integers, as the negotiator ad types them (not `12.0`).
    assert_eq!(
        v["matches"].as_u64(),
        v["LastNegotiationCycleMatches0"].as_u64()
    );
    // The pool's generation is no part of the cycle: its duration and the
    // generation's fit in the run's total, and its first phase is the reading.
    let secs = |k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k} in {out}"));
    assert!(
        secs("LastNegotiationCycleDuration0") + secs("generate_s") <= secs("total_s") + 1e-6,
        "{out}"
    );
    assert!(
        (secs("LastNegotiationCyclePhase1Duration0") - secs("parse_s") - secs("compile_s")).abs()
            < 1e-9,
        "{out}"
    );
    // From files: the cycle of `classad negotiate` on the same files.
    let dir = std::env::temp_dir().join(format!("classad-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (jobs, slots) = (dir.join("j.ads"), dir.join("m.ads"));
    let gen = std::process::Command::new(env!("CARGO_BIN_EXE_classad"))
        .args([
            "gen-pool",
            "--machines",
            "100",
            "--jobs",
            "800",
            "--seed",
            "4",
        ])
        .arg("--out-jobs")
        .arg(&jobs)
        .arg("--out-machines")
        .arg(&slots)
        .output()
        .unwrap();
    assert!(gen.status.success());
    let (j, m) = (jobs.to_string_lossy(), slots.to_string_lossy());
    let (code, out, err) = run(&["--jobs", &j, "--machines", &m, "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let negotiate = std::process::Command::new(env!("CARGO_BIN_EXE_classad"))
        .args(["negotiate", "-q", "--jobs", &j, "--machines", &m])
        .output()
        .unwrap();
    let lines = String::from_utf8(negotiate.stdout).unwrap().lines().count() as u64;
    assert_eq!(v["matches"].as_u64(), Some(lines));
    let (code, _, err) = run(&["--jobs", &j, "--machines", "100"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("both counts"), "{err}");
    // The text report names the phases.
    let (code, out, _) = run(&["--machines", "50", "--jobs", "200"]);
    assert_eq!(code, Some(0));
    for phase in [
        "generate",
        "parse",
        "compile",
        "cluster",
        "match",
        "negotiate",
        "total",
    ] {
        assert!(out.contains(phase), "{out}");
    }
}

/// Two runs of one cycle agree: the matches (compared as debug text, where a
/// NaN key equals itself), the unmatched jobs and the rejections.
fn assert_same_cycle(want: &CycleOutcome, got: &CycleOutcome, context: &str) {
    assert_eq!(
        format!("{:?}", want.matches),
        format!("{:?}", got.matches),
        "{context}"
    );
    assert_eq!(want.unmatched, got.unmatched, "{context}");
    assert_eq!(want.stats.rejections, got.stats.rejections, "{context}");
}

/// A group of equal keys cut by the end of a class's head is read again
/// whole once the head is longer: the unclaimed slot, later in slot order but
/// first in the group by its preemption state, is taken, not the claimed slot
/// the short head ends on (HTCondor's order: PRE, Rank, POST, then the
/// preemption state, negotiator.md section 6).
#[test]
fn a_group_cut_by_the_end_of_a_head_is_read_whole() {
    use classad::negotiate::{negotiate_bounded, CandidateBounds};
    let claimed = "State = \"Claimed\"\nRemoteUser = \"zed@d\"\nRank = 0\nCurrentRank = 0";
    let slots = format!("{}\n{}", slots_of(1, 1, 1, claimed), slots_of(1, 1, 2, ""));
    let jobs = jobs_of("alice", 1, 1, "");
    let k = knobs(
        "PREEMPTION_REQUIREMENTS = True\nNEGOTIATOR_PRE_JOB_RANK = 0\n\
         NEGOTIATOR_POST_JOB_RANK = 0\n",
    );
    let prios = Priorities::parse("", "priorities").unwrap();
    let (jobs, slots) = (ads(&jobs), ads(&slots));
    let whole = negotiate_bounded(&jobs, &slots, &k, &prios, CandidateBounds::whole());
    assert_eq!(order(&whole), [(0, 1)]);
    assert_eq!(whole.matches[0].preempt, PreemptState::None);
    let short = CandidateBounds {
        first: 1,
        first_bytes: usize::MAX,
        window_bytes: 1,
    };
    let cut = negotiate_bounded(&jobs, &slots, &k, &prios, short);
    assert_same_cycle(&whole, &cut, "a head of one candidate");
}

/// Candidates held within small bounds (heads of one to three candidates or
/// of the least share, worked out a block of slots at a time, made longer as
/// the cycle reads past them) give the same cycle as whole lists given at
/// once, and evaluate every (class, slot) pair once: whatever the bounds,
/// heads are made from the classes' keys, never evaluated again, and a
/// class's head is made about log2(slots) times at most (the counts that
/// keep issue 34's cliff from coming back).
#[test]
fn candidates_within_small_bounds_give_the_same_cycle() {
    use classad::matching::batch::{BatchMatcher, CompiledSlots};
    use classad::matching::{Autoclusters, SignificantAttributes};
    use classad::negotiate::{
        class_names, negotiate_with_pairs, prepare_slots, CandidateBounds, ClassPairs, QueueFacts,
    };
    let master = gen::master_seed();
    let (mut remade, mut cases) = (0, 0);
    for index in 0..gen::scaled(60) {
        let p = negotiation_pool(master, index, index % 4 == 3);
        let (jobs, slots) = (ads(&p.jobs), ads(&p.slots));
        let mut k = knobs(&p.config);
        k.schedd_packing = p.packing;
        let prios = Priorities::parse(&p.priorities, "priorities").unwrap();
        let table = prepare_slots(&slots, &k, &prios);
        let facts = QueueFacts::of_all(&jobs, &k);
        let mut sig = SignificantAttributes::compute(&table.ads, &k.policy);
        sig.add_class_names(&class_names(&table, &k));
        let clusters = Autoclusters::with(&jobs, sig);
        let matcher = || {
            BatchMatcher::for_classes(
                clusters.representatives().to_vec(),
                CompiledSlots::new(&table.ads, &k.policy),
            )
        };
        // The whole lists, sorted by the batch matcher and given.
        let classes: Vec<u32> = (0..clusters.representatives().len() as u32).collect();
        let lists = matcher()
            .evaluate_classes(&classes)
            .into_iter()
            .map(|(_, cands)| cands)
            .collect();
        let given = ClassPairs::from_candidates(table.len(), lists).expect("valid lists");
        let all = negotiate_with_pairs(&table, &facts, &clusters, given, &k, &prios);
        let run = |bounds: CandidateBounds| {
            let pairs = ClassPairs::with_bounds(matcher(), bounds);
            negotiate_with_pairs(&table, &facts, &clusters, pairs, &k, &prios)
        };
        for (first, first_bytes) in [
            (usize::MAX, usize::MAX),
            (1, usize::MAX),
            (1 + index % 3, 1),
            (usize::MAX, 1),
        ] {
            let tight = run(CandidateBounds {
                first,
                first_bytes,
                window_bytes: 1,
            });
            let context = format!("case {index}, first {first}, bytes {first_bytes}\n{p}");
            assert_same_cycle(&all, &tight, &context);
            assert_eq!(
                all.stats.num_jobs_considered,
                tight.stats.num_jobs_considered
            );
            assert_eq!(
                tight.stats.evaluations, all.stats.evaluations,
                "heads made from held keys evaluate nothing again: {context}"
            );
            let (classes, slots) = (clusters.representatives().len(), table.len());
            let doublings = (usize::BITS - slots.leading_zeros()) as usize;
            assert!(
                tight.stats.heads_made as usize <= classes * (1 + doublings),
                "{} heads made for {classes} classes: {context}",
                tight.stats.heads_made
            );
            remade += usize::from(tight.stats.heads_made > 0);
            cases += 1;
        }
    }
    // A fifth of the runs at least: concurrency limits refuse candidates and
    // so end some searches before they read past a head.
    assert!(
        remade * 5 > cases,
        "heads were made longer or again in {remade} of {cases} runs"
    );
}

/// Candidates worked out over shards of the pool (each shard's slots compiled
/// alone, its lists numbered in the whole pool) and merged in the negotiator's
/// order are the whole pool's lists, and give the cycle the whole pool gives:
/// what a driver running the cycle on candidates from many machines relies on.
#[test]
fn candidates_merged_from_shards_give_the_same_cycle() {
    use classad::matching::batch::{merge_best_first, BatchMatcher, Candidate, CompiledSlots};
    use classad::matching::{Autoclusters, SignificantAttributes};
    use classad::negotiate::{
        class_names, negotiate_with_pairs, prepare_slots, ClassPairs, QueueFacts,
    };
    let master = gen::master_seed();
    let (mut shards_seen, mut matches, mut nan_matches) = (0, 0, 0);
    for index in 0..gen::scaled(60) {
        let mut p = negotiation_pool(master, index, index % 3 == 2);
        if index % 5 == 4 {
            // NaN keys, which order below every number in shards and merge alike
            // (the last definition of a knob wins).
            p.config.push_str(
                "NEGOTIATOR_PRE_JOB_RANK = ifThenElse(Cpus > 2, real(\"NaN\"), Cpus)\n\
                 NEGOTIATOR_POST_JOB_RANK = ifThenElse(Memory > 2000, real(\"NaN\"), 1)\n",
            );
        }
        let (jobs, slots) = (ads(&p.jobs), ads(&p.slots));
        let mut k = knobs(&p.config);
        k.schedd_packing = p.packing;
        let prios = Priorities::parse(&p.priorities, "priorities").unwrap();
        let table = prepare_slots(&slots, &k, &prios);
        let facts = QueueFacts::of_all(&jobs, &k);
        let mut sig = SignificantAttributes::compute(&table.ads, &k.policy);
        sig.add_class_names(&class_names(&table, &k));
        let clusters = Autoclusters::with(&jobs, sig);
        let reps = clusters.representatives().to_vec();
        let all: Vec<u32> = (0..reps.len() as u32).collect();
        let lists = |ads: &[Arc<ClassAd>], offset: u32| -> Vec<Vec<Candidate>> {
            let mut m = BatchMatcher::for_classes(reps.clone(), CompiledSlots::new(ads, &k.policy));
            m.evaluate_classes(&all)
                .into_iter()
                .map(|(_, mut cands)| {
                    cands.iter_mut().for_each(|c| c.slot += offset);
                    cands
                })
                .collect()
        };
        let whole = lists(&table.ads, 0);
        // Shard boundaries of the case: 1 to 4 shards, uneven.
        let n = table.len();
        let count = 1 + index % 4;
        let mut bounds: Vec<usize> = (1..count).map(|i| (i * i * n) / (count * count)).collect();
        bounds.insert(0, 0);
        bounds.push(n);
        let parts: Vec<Vec<Vec<Candidate>>> = bounds
            .windows(2)
            .map(|w| lists(&table.ads[w[0]..w[1]], w[0] as u32))
            .collect();
        shards_seen += count;
        let merged: Vec<Vec<Candidate>> = (0..reps.len())
            .map(|c| {
                let of_class: Vec<&[Candidate]> = parts.iter().map(|p| &p[c][..]).collect();
                merge_best_first(&of_class)
            })
            .collect();
        assert_eq!(
            format!("{merged:?}"),
            format!("{whole:?}"),
            "case {index}\n{p}"
        );
        let pairs = ClassPairs::from_candidates(n, merged).expect("valid lists");
        let sharded = negotiate_with_pairs(&table, &facts, &clusters, pairs, &k, &prios);
        let one = negotiate(&jobs, &slots, &k, &prios);
        assert_same_cycle(&one, &sharded, &format!("case {index}\n{p}"));
        matches += one.matches.len();
        if index % 5 == 4 {
            nan_matches += one.matches.len();
        }
    }
    assert!(
        shards_seen > 100 && matches > 100 && nan_matches > 10,
        "{shards_seen} {matches} {nan_matches}"
    );
}

/// Lists that cannot stand for a pool's classes are refused with why.
#[test]
fn candidate_lists_out_of_range_repeated_or_unordered_are_refused() {
    use classad::matching::batch::{Candidate, RankKey};
    use classad::negotiate::{CandidatesError, ClassPairs};
    let c = |slot, pre| Candidate {
        slot,
        key: RankKey {
            pre,
            rank: 0.0,
            post: 0.0,
        },
    };
    let err = |lists| ClassPairs::from_candidates(4, lists).err();
    assert_eq!(err(vec![vec![c(1, 2.0), c(0, 1.0)], vec![]]), None);
    assert_eq!(
        err(vec![vec![], vec![c(4, 1.0)]]),
        Some(CandidatesError::SlotOutOfRange { class: 1, slot: 4 })
    );
    assert_eq!(
        err(vec![vec![c(2, 1.0), c(2, 1.0)]]),
        Some(CandidatesError::Repeated { class: 0, slot: 2 })
    );
    assert_eq!(
        err(vec![vec![c(0, 1.0), c(1, 2.0)]]),
        Some(CandidatesError::Unordered { class: 0, at: 1 })
    );
    // Equal keys go in slot order; a NaN after every number.
    assert_eq!(
        err(vec![vec![c(2, 1.0), c(1, 1.0)]]),
        Some(CandidatesError::Unordered { class: 0, at: 1 })
    );
    assert_eq!(err(vec![vec![c(3, 1.0), c(0, f64::NAN)]]), None);
    let pairs = ClassPairs::from_candidates(70, vec![vec![c(65, 0.0), c(3, -1.0)]]).unwrap();
    assert_eq!(pairs.class_count(), 1);
    assert!(pairs.matches(0, 65) && pairs.matches(0, 3) && !pairs.matches(0, 4));
}

/// Every number of a priorities line, and every factor and quota knob, is at
/// most 1e100 (`classad::negotiate::MAX_AMOUNT`): `a 1e200 1e200` has a finite
/// real priority and factor whose product is not, and the cycle's normalisation
/// of priorities then made nothing match, in silence. Refused, naming the file,
/// line and column (or the knob).
#[test]
fn priorities_factors_and_quotas_past_the_bound_are_refused() {
    let dir = support::Scratch::new("negotiate-bounds");
    let run = |args: &[&str]| {
        let r = support::classad("negotiate", args);
        (r.code, r.err)
    };
    for (text, want) in [
        (
            "alice 1\na 1e200 1e200\n",
            "p:2:3: expected a real priority (a number from 0 to 1e100), found \"1e200\"",
        ),
        (
            "a 1 1e101\n",
            "p:1:5: expected a priority factor (a number from 0 to 1e100), found \"1e101\"",
        ),
        (
            "a 1 1 1e308\nb 1 1 1e308\n",
            "p:1:7: expected a weighted usage (a number from 0 to 1e100), found \"1e308\"",
        ),
    ] {
        let prio = dir.write("p", text);
        let (code, err) = run(&["--priorities", &prio, "-q"]);
        assert_eq!(code, Some(2), "{text:?}: {err}");
        assert!(
            err.contains(&format!("{prio}{}", &want[1..])),
            "{text:?}: {err}"
        );
    }
    for (text, want) in [
        (
            "DEFAULT_PRIO_FACTOR = 1e200\n",
            "c:1: DEFAULT_PRIO_FACTOR: must be above 0 and at most 1e100",
        ),
        (
            "NICE_USER_PRIO_FACTOR = 1e300\n",
            "c:1: NICE_USER_PRIO_FACTOR: must be above 0 and at most 1e100",
        ),
        (
            "GROUP_NAMES = g, h\nGROUP_QUOTA_g = 1e308\nGROUP_QUOTA_h = 1e308\n",
            "c:2: GROUP_QUOTA_g: a quota is from 0 to 1e100",
        ),
        (
            "GROUP_NAMES = g\nGROUP_PRIO_FACTOR_g = 1e200\n",
            "c:2: GROUP_PRIO_FACTOR_g: must be from -1e100 to 1e100",
        ),
    ] {
        let config = dir.write("c", text);
        let (code, err) = run(&["--config", &config, "-q"]);
        assert_eq!(code, Some(2), "{text:?}: {err}");
        assert!(
            err.contains(&format!("{config}{}", &want[1..])),
            "{text:?}: {err}"
        );
    }
}

/// A slot's weight past the bound (1e100), infinity included, counts as the
/// bound: every cost and usage stays finite. Before, a slot of `SlotWeight =
/// real("INF")` cost infinity, and the usage its submitter had before the cycle
/// came to infinity less infinity (NaN, `null` in JSON).
#[test]
fn slot_weights_past_the_bound_keep_costs_and_usage_finite() {
    let jobs = format!(
        "{}\n{}\n{}",
        jobs_of("a", 1, 1, ""),
        jobs_of("b", 2, 1, ""),
        jobs_of("c", 3, 1, "")
    );
    let slots = format!(
        "{}\n{}\n{}",
        slots_of(1, 1, 0, "SlotWeight = real(\"INF\")"),
        slots_of(1, 1, 1, "SlotWeight = 1e308"),
        slots_of(1, 1, 2, "")
    );
    let o = fast_cycle(&jobs, &slots, "");
    let mut costs: Vec<(u32, f64)> = o.matches.iter().map(|m| (m.slot, m.cost)).collect();
    costs.sort_by_key(|c| c.0);
    assert_eq!(costs, [(0, 1e100), (1, 1e100), (2, 1.0)]);
    for s in &o.submitters {
        assert_eq!(s.usage_before, 0.0, "{}", s.name);
        assert!(s.usage_after == 1e100 || s.usage_after == 1.0, "{}", s.name);
    }
}

/// `$(...)` expansion is bounded in size: 15 levels of `A<i> = $(A<i+1>)$(A<i+1>)`
/// over a KiB come to 32 MiB, past the 16 MiB a value may expand to. The error
/// names the file, the line and the knob read.
#[test]
fn a_configuration_value_expanding_past_the_bound_is_refused() {
    let mut text = String::new();
    for i in 0..15 {
        text += &format!("A{i} = $(A{})$(A{})\n", i + 1, i + 1);
    }
    text += &format!("A15 = {}\n", "x".repeat(1024));
    let c = Config::parse(&text, "cfg").unwrap();
    let e = c.get("A0").unwrap_err();
    assert_eq!((e.line, e.knob.as_deref()), (1, Some("A0")), "{e}");
    assert!(
        e.to_string()
            .starts_with("cfg:1: A0: its $(...) references expand to more than 16777216 bytes"),
        "{e}"
    );
}

/// The "billion laughs": 40 levels of doubling (a TiB of `x`, or 2^40 references
/// to an empty value) stop at once, through the command line too, naming the
/// knob read and its line.
#[test]
fn forty_levels_of_doubling_references_stop_at_once() {
    for leaf in ["x", ""] {
        let mut text = String::new();
        for i in 0..40 {
            text += &format!("A{i} = $(A{})$(A{})\n", i + 1, i + 1);
        }
        text += &format!("A40 = {leaf}\nNEGOTIATOR_PRE_JOB_RANK = $(A0)\n");
        let c = Config::parse(&text, "cfg").unwrap();
        let e = c.get("A0").unwrap_err();
        assert_eq!((e.line, e.knob.as_deref()), (1, Some("A0")), "{e}");
        let dir = support::Scratch::new("negotiate-laughs");
        let config = dir.write("laughs.config", &text);
        let r = support::classad("negotiate", &["--config", &config, "-q"]);
        assert_eq!(r.code, Some(2), "{}", r.err);
        let want = format!("{config}:42: NEGOTIATOR_PRE_JOB_RANK: its $(...) references");
        assert!(r.err.contains(&want), "{}", r.err);
    }
}

/// JSON spells a real that is not a finite number as HTCondor's ClassAd printer
/// spells it inside `real(...)`: the strings "INF", "-INF" and "NaN" (a missing
/// job Rank is 0, as HTCondor takes it); before, all three were `null`.
#[test]
fn json_spells_infinite_and_nan_reals_as_htcondor_does() {
    let dir = support::Scratch::new("negotiate-json-reals");
    let ranks = ["real(\"INF\")", "-real(\"INF\")", "real(\"NaN\")", "2.5"];
    let jobs: Vec<String> = ranks
        .iter()
        .enumerate()
        .map(|(i, r)| jobs_of(&format!("u{i}"), i as u32 + 1, 1, &format!("Rank = {r}")))
        .collect();
    let jobs = dir.write("jobs.ads", &jobs.join("\n"));
    let slots = dir.write("slots.ads", &slots_of(4, 1, 0, ""));
    let config = dir.write("c", "NEGOTIATOR_PRE_JOB_RANK = 1e300\n");
    let args = ["--jobs", &jobs, "--machines", &slots, "--config", &config];
    let r = support::classad(
        "negotiate",
        &[&args[..], &["--format", "json", "-q"]].concat(),
    );
    assert_eq!(r.code, Some(0), "{}", r.err);
    let v: serde_json::Value = serde_json::from_str(&r.out).unwrap();
    let mut by_job: Vec<(u64, serde_json::Value, serde_json::Value)> = v["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["job"].as_u64().unwrap(),
                m["job_rank"].clone(),
                m["pre_job_rank"].clone(),
            )
        })
        .collect();
    by_job.sort_by_key(|m| m.0);
    let rank: Vec<&serde_json::Value> = by_job.iter().map(|m| &m.1).collect();
    assert_eq!(
        rank,
        [
            &serde_json::json!("INF"),
            &serde_json::json!("-INF"),
            &serde_json::json!("NaN"),
            &serde_json::json!(2.5)
        ]
    );
    // PRE is single precision, as in HTCondor: 1e300 is infinite there.
    assert!(
        by_job.iter().all(|m| m.2 == serde_json::json!("INF")),
        "{by_job:?}"
    );
    // `match --all-pairs` prints the same values.
    let r = support::classad(
        "match",
        &[&args[..], &["--all-pairs", "--format", "json", "-q"]].concat(),
    );
    assert_eq!(r.code, Some(0), "{}", r.err);
    let v: serde_json::Value = serde_json::from_str(&r.out).unwrap();
    let first: Vec<serde_json::Value> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["slots"][0]["job_rank"].clone())
        .collect();
    assert_eq!(
        first,
        [
            serde_json::json!("INF"),
            serde_json::json!("-INF"),
            serde_json::json!("NaN"),
            serde_json::json!(2.5)
        ]
    );
}
