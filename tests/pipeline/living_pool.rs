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
    claims: gen::living_sequences::ClaimCounts,
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
        let (r, c) = (&mut reached.claims, &s.claims);
        r.started += c.started;
        r.carved += c.carved;
        r.evicted += c.evicted;
        r.refused += c.refused;
        r.ended += c.ended;
        r.dslots_deleted += c.dslots_deleted;
        r.released += c.released;
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
    let c = &r.claims;
    assert!(c.started > 50 && c.carved > 10 && c.evicted > 0, "{r:?}");
    assert!(
        c.refused > 0 && c.ended > 20 && c.dslots_deleted > 0,
        "{r:?}"
    );
}

#[test]
fn the_living_pool_equals_a_fresh_cycle_with_group_quotas() {
    let r = sequences(true, gen::scaled(20), 10);
    eprintln!("{r:?}");
    assert!(r.matches > 50 && r.slots_matched > 10, "{r:?}");
}

fn ads(text: &str) -> Vec<std::sync::Arc<classad::ad::ClassAd>> {
    classad::ad::read_ads(text, "living")
        .unwrap()
        .into_iter()
        .map(std::sync::Arc::new)
        .collect()
}

/// Each cycle evaluates what changed and no more (the counts that keep a
/// cycle of a living pool from costing a fresh one's again unseen): a
/// changed slot against every class, a new class against every slot, a job
/// that stays in its class nothing; a claimed slot whose `RemoteUserPrio`
/// moved, when nothing reads it, nothing. Each cycle is a fresh one's too.
#[test]
fn a_cycle_evaluates_what_changed_and_no_more() {
    use classad::negotiate::accounts::Accounts;
    use classad::negotiate::living::LivingPool;
    use classad::negotiate::CycleKnobs;
    let slot = |i: u32, cpus: u32, claim: &str| {
        format!(
            "Name = \"slot{i}@h\"\nCpus = {cpus}\nMemory = 4096\nState = \"Unclaimed\"\n\
             Requirements = TARGET.RequestCpus <= MY.Cpus\n{claim}\n"
        )
    };
    let mut slots: Vec<String> = (0..5).map(|i| slot(i, 1 + i % 3, "")).collect();
    slots.push(slot(
        5,
        4,
        "State = \"Claimed\"\nRemoteUser = \"zed@d\"\nRemoteOwner = \"zed@d\"",
    ));
    let job = |c: u32, cpus: u32, owner: &str| {
        format!(
            "Owner = \"{owner}\"\nUser = \"{owner}@d\"\nClusterId = {c}\nProcId = 0\n\
             JobStatus = 1\nRequestCpus = {cpus}\nRequirements = TARGET.Cpus >= RequestCpus\n"
        )
    };
    let jobs: Vec<String> = (0..9)
        .map(|j| job(j, [1, 2, 3][j as usize % 3], ["a", "b"][j as usize % 2]))
        .collect();
    let slot_ads: Vec<_> = slots.iter().flat_map(|t| ads(t)).collect();
    let job_ads: Vec<_> = jobs.iter().flat_map(|t| ads(t)).collect();
    let knobs = CycleKnobs::default();
    let accounts = Accounts::new(1000, knobs.priority_half_life, Vec::new());
    let mut pool = LivingPool::new(&slot_ads, &job_ads, knobs, accounts, 1000);
    let cycle = |pool: &mut LivingPool| {
        let mut accounts = pool.accounts().clone();
        let mut fresh = gen::living_sequences::fresh_cycle(pool, &mut accounts);
        gen::living_sequences::by_id(&mut fresh, pool);
        let living = pool.cycle();
        fresh.stats.evaluations = living.outcome.stats.evaluations;
        let d = gen::living_sequences::differences(&fresh, &living.outcome);
        assert!(d.is_empty(), "{}", d.join("\n"));
        living.work
    };
    let w = cycle(&mut pool);
    assert!(w.rebuilt);
    assert_eq!((w.jobs_classified, w.evaluations), (9, 3 * 6));
    assert_eq!(w.heads_made, 3);
    // One slot changes: matched against the three classes.
    pool.update_slot(2, ads(&slot(2, 8, "")).remove(0)).unwrap();
    pool.advance_to(1060);
    let w = cycle(&mut pool);
    assert!(!w.rebuilt);
    assert_eq!(
        (w.slots_matched, w.classes_matched, w.evaluations),
        (1, 0, 3)
    );
    assert_eq!(w.jobs_classified, 0);
    // It matches the same classes with the same keys: no head is made again.
    assert_eq!(w.heads_made, 0);
    // The claimed slot's priority moved with the clock; nothing reads it.
    assert!(w.slots_prepared >= 2, "{w:?}");
    // Another slot comes to match one more class: that class's head is made
    // again, the others' kept.
    pool.update_slot(0, ads(&slot(0, 2, "")).remove(0)).unwrap();
    let w = cycle(&mut pool);
    assert_eq!((w.slots_matched, w.evaluations, w.heads_made), (1, 3, 1));
    // A job of a new class: matched against the six slots.
    pool.add_job(ads(&job(50, 8, "a")).remove(0));
    let w = cycle(&mut pool);
    assert_eq!(
        (w.jobs_classified, w.classes_matched, w.evaluations),
        (1, 1, 6)
    );
    // The other classes' heads are kept.
    assert_eq!(w.heads_made, 1);
    // A job that changes in nothing its class reads (its status, read
    // afresh from a new ad of its own text): kept in its class unclassified,
    // its facts read again, nothing evaluated.
    pool.update_job(
        0,
        ads(&job(0, 1, "a").replace("JobStatus = 1", "JobStatus = 2")).remove(0),
    )
    .unwrap();
    let w = cycle(&mut pool);
    assert_eq!(
        (
            w.jobs_classified,
            w.jobs_reread,
            w.evaluations,
            w.classes_dropped
        ),
        (0, 1, 0, 0)
    );
    assert_eq!(w.heads_made, 0);
    // A job that changes what its class reads (its request) is classified
    // again: into a class there is, evaluating nothing.
    pool.update_job(1, ads(&job(1, 3, "b")).remove(0)).unwrap();
    let w = cycle(&mut pool);
    assert_eq!(
        (
            w.jobs_classified,
            w.jobs_reread,
            w.evaluations,
            w.classes_matched
        ),
        (1, 0, 0, 0)
    );
    // The last jobs of a class leave: the class is dropped.
    for id in [0, 3, 6] {
        pool.remove_job(id).unwrap();
    }
    let w = cycle(&mut pool);
    assert_eq!((w.classes_dropped, w.evaluations, w.heads_made), (1, 0, 0));
}
