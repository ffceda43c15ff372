//! The negotiation cycle (`classad::negotiate`): held against a plain serial
//! negotiator that follows negotiator.md line by line (`gen/reference_negotiator.rs`)
//! on many seeded pools, and hand-made cases for each rule.

#[allow(dead_code, unused_imports)]
mod gen;

use classad::ad::{read_ads, ClassAd};
use classad::matching::config::Config;
use classad::negotiate::{negotiate, CycleKnobs, CycleOutcome, Priorities};
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
    ] {
        assert!(n >= 5, "the pools reach {what}: {seen:?}");
    }
    assert!(seen.rejections > 100, "{seen:?}");
}

#[test]
fn the_cycle_equals_the_reference_negotiator_with_static_group_quotas() {
    let seen = differential(true, gen::scaled(250));
    assert!(seen.matches > 500 && seen.later_spins > 0, "{seen:?}");
}
