//! The negotiation cycle (`classad::negotiate`: match classes, the batch matcher,
//! lazy match lists, shared preemption tests, class heads within small bounds
//! made longer as the cycle reads them) against the plain serial negotiator
//! of `tests/gen/reference_negotiator.rs`, on the seeded pools of
//! `tests/gen/negotiation_pools.rs`: the same matches in the same order, and the
//! same statistics.
#![no_main]

#[allow(dead_code, unused_imports)]
#[path = "../../tests/gen/mod.rs"]
mod gen;

use classad::ad::{read_ads, ClassAd};
use classad::matching::config::Config;
use classad::negotiate::{negotiate_bounded, CandidateBounds, CycleKnobs, Priorities};
use gen::negotiation_pools::{negotiation_pool, NegotiationPool};
use gen::reference_negotiator::Reference;
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use std::fmt;
use std::sync::Arc;

/// A pool of the generator: its master seed, index, and whether it has groups;
/// and the bounds of the candidates held (0: the defaults; else heads of
/// `heads % 4 + 1` candidates when `heads` is even, and of each class's least
/// share, 256, when it is odd).
#[derive(Arbitrary)]
struct Case {
    master: u64,
    index: u16,
    groups: bool,
    heads: u8,
}

impl Case {
    fn bounds(&self) -> CandidateBounds {
        match self.heads {
            0 => CandidateBounds::default(),
            h => CandidateBounds {
                first: if h % 2 == 1 {
                    usize::MAX
                } else {
                    usize::from(h % 4 + 1)
                },
                first_bytes: if h % 2 == 1 { 1 } else { usize::MAX },
                window_bytes: 1,
            },
        }
    }
}

impl Case {
    fn pool(&self) -> NegotiationPool {
        negotiation_pool(self.master, usize::from(self.index), self.groups)
    }
}

impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.pool())
    }
}

fn ads(text: &str) -> Vec<Arc<ClassAd>> {
    read_ads(text, "pool")
        .expect("generated ads parse")
        .into_iter()
        .map(Arc::new)
        .collect()
}

fuzz_target!(|case: Case| {
    let p = case.pool();
    let (jobs, slots) = (ads(&p.jobs), ads(&p.slots));
    let config = Config::parse(&p.config, "config").expect("generated configuration");
    let mut knobs = CycleKnobs::from_config(&config).expect("generated knobs").0;
    knobs.schedd_packing = p.packing;
    let prios = Priorities::parse(&p.priorities, "priorities").expect("generated priorities");
    let fast = negotiate_bounded(&jobs, &slots, &knobs, &prios, case.bounds());
    let r = Reference::new(&jobs, &slots, &knobs, &prios).run();
    let f: Vec<(u32, u32, f64, u32)> = fast
        .matches
        .iter()
        .map(|m| (m.job, m.slot, m.cost, m.spin))
        .collect();
    let g: Vec<(u32, u32, f64, u32)> = r
        .matches
        .iter()
        .map(|m| (m.job, m.slot, m.cost, m.spin))
        .collect();
    let stats = (
        fast.stats.rejections,
        fast.stats.num_jobs_considered,
        fast.stats.pie_spins,
    );
    let want = (r.rejections, r.considered, r.pie_spins);
    if f != g || stats != want {
        panic!("the cycle disagrees with the reference negotiator:\n fast {f:?} {stats:?}\n reference {g:?} {want:?}\n{case:?}");
    }
});
