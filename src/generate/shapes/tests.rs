//! The shape families' properties: deterministic, every ad reads back with no
//! attribute written twice, names round-trip, and each family's pools give both
//! verdicts.

use super::*;
use crate::eval::Semantics;
use crate::matching::symmetric_match;

fn spec(family: Family, jobs: usize, machines: usize, seed: u64) -> ShapeSpec {
    ShapeSpec {
        family,
        jobs,
        machines,
        seed,
    }
}

#[test]
fn the_same_spec_gives_the_same_pool_and_another_seed_another() {
    for family in Family::ALL {
        let a = spec(family, 12, 9, 3).generate();
        assert_eq!(a, spec(family, 12, 9, 3).generate(), "{family}");
        assert_ne!(a, spec(family, 12, 9, 4).generate(), "{family}");
    }
}

#[test]
fn a_larger_pool_begins_with_the_smaller_one() {
    for family in Family::ALL {
        if family == Family::Benchmark {
            continue; // the benchmark model plans its hosts and clusters as a whole
        }
        let small = spec(family, 5, 7, 11).generate();
        let large = spec(family, 50, 70, 11).generate();
        assert!(large.jobs.starts_with(&small.jobs), "{family}");
        assert!(large.machines.starts_with(&small.machines), "{family}");
    }
}

#[test]
fn every_ad_reads_back_with_each_attribute_once() {
    for family in Family::ALL {
        let pool = spec(family, 40, 40, 1).generate();
        for (text, ads) in [
            (&pool.jobs, pool.job_ads()),
            (&pool.machines, pool.machine_ads()),
        ] {
            assert_eq!(ads.len(), 40, "{family}");
            for (ad_text, ad) in text.split("\n\n").zip(&ads) {
                let lines = ad_text.lines().filter(|l| !l.is_empty()).count();
                assert_eq!(
                    ad.iter().count(),
                    lines,
                    "{family}: a name twice in\n{ad_text}"
                );
                assert!(ad.get("Requirements").is_some(), "{family}");
            }
        }
    }
}

#[test]
fn names_round_trip() {
    for family in Family::ALL {
        assert_eq!(family.name().parse::<Family>(), Ok(family));
        assert_eq!(family.name().to_uppercase().parse::<Family>(), Ok(family));
        assert!(!family.description().is_empty());
    }
    let err = "nested".parse::<Family>().unwrap_err();
    assert!(err.to_string().contains("records"), "{err}");
}

#[test]
fn every_family_matches_some_pairs_and_not_others() {
    for family in Family::ALL {
        let pool = spec(family, 30, 30, 2).generate();
        let (jobs, machines) = (pool.job_ads(), pool.machine_ads());
        let matched = jobs
            .iter()
            .flat_map(|j| machines.iter().map(move |m| (j, m)))
            .filter(|(j, m)| symmetric_match(j, m, Semantics::Htcondor))
            .count();
        let pairs = jobs.len() * machines.len();
        assert!(
            pairs / 20 < matched && matched < pairs * 19 / 20,
            "{family}: {matched} of {pairs} pairs match"
        );
    }
}
