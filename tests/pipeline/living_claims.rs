//! A living pool's matches made into claims and its jobs ended
//! (`LivingPool::apply_matches`, `LivingPool::end_job`; docs/negotiator.md
//! section 17), on hand-made pools whose outcome is worked out from
//! HTCondor's source: the startd's `Claim::publish` and `create_dslot`, its
//! id dispenser for dynamic slots, `Resource::release_claim` and
//! `ResMgr::removeResource`, the schedd's `mark_job_running` and
//! `_mark_job_stopped`. Every cycle is also held against a fresh one.

use crate::gen;
use classad::ad::ClassAd;
use classad::matching::config::Config;
use classad::negotiate::accounts::Accounts;
use classad::negotiate::living::{Evicted, LivingPool, Refusal, Refused, Started};
use classad::negotiate::{CycleKnobs, PreemptState};
use gen::living_sequences::ads;
use std::sync::Arc;

/// `name` of `ad`, as it prints.
fn get(ad: &Arc<ClassAd>, name: &str) -> String {
    let v = classad::engine::eval_attr_once(ad, name, None).unwrap_or(classad_vm::Value::Error);
    classad::values::display::unparse_value(&v)
}

fn job(cluster: u32, owner: &str, cpus: u32) -> String {
    format!(
        "Owner = \"{owner}\"\nUser = \"{owner}@d\"\nClusterId = {cluster}\nProcId = 0\n\
         JobStatus = 1\nRequestCpus = {cpus}\nRequestMemory = 1000\nRequestDisk = 100\n\
         Requirements = TARGET.Cpus >= RequestCpus\n\n"
    )
}

const PSLOT: &str = "Name = \"slot1@p\"\nSlotID = 1\nPartitionableSlot = true\n\
    SlotType = \"Partitionable\"\nState = \"Unclaimed\"\nActivity = \"Idle\"\nCpus = 4\n\
    Memory = 8192\nDisk = 10000\nTotalSlotCpus = 4\nTotalSlotMemory = 8192\n\
    TotalSlotDisk = 10000\nRequirements = TARGET.RequestCpus <= MY.Cpus && \
    TARGET.RequestMemory <= MY.Memory\n\n";

fn pool(slots: &str, jobs: &str, config: &str) -> LivingPool {
    let knobs = CycleKnobs::from_config(&Config::parse(config, "config").unwrap())
        .unwrap()
        .0;
    let groups = knobs.groups.iter().map(|g| g.name.clone()).collect();
    let accounts = Accounts::new(1000, knobs.priority_half_life, groups);
    LivingPool::new(&ads(slots), &ads(jobs), knobs, accounts, 1000)
}

/// A cycle of `pool`, held against a fresh one on the same ads.
fn cycle(pool: &mut LivingPool) -> classad::negotiate::CycleOutcome {
    let mut accounts = pool.accounts().clone();
    let mut fresh = gen::living_sequences::fresh_cycle(pool, &mut accounts);
    gen::living_sequences::by_id(&mut fresh, pool);
    let living = pool.cycle();
    let d = gen::living_sequences::differences(&fresh, &living.outcome);
    assert!(d.is_empty(), "{}", d.join("\n"));
    living.outcome
}

/// `Claim::publish` on a static slot and `mark_job_running` on its job:
/// the slot Claimed/Busy with the job's `RemoteUser` and `JobId`, the job
/// running there; the next cycle matches the job no more and charges its
/// submitter for the claim. Applied twice, the match is refused (the job
/// runs).
#[test]
fn a_match_on_a_static_slot_claims_it_and_runs_the_job() {
    let slot = "Name = \"slot1@s\"\nState = \"Unclaimed\"\nActivity = \"Idle\"\nCpus = 2\n\
                Memory = 4096\nRequirements = true\n";
    let mut p = pool(slot, &job(5, "alice", 1), "");
    let out = cycle(&mut p);
    assert_eq!(out.matches.len(), 1);
    let applied = p.apply_matches(&out);
    assert_eq!(
        applied.started,
        [Started {
            job: 0,
            slot: 0,
            carved_from: None
        }]
    );
    assert!(applied.evicted.is_empty() && applied.refused.is_empty());
    let s = p.slot(0).unwrap();
    assert_eq!(get(s, "State"), "\"Claimed\"");
    assert_eq!(get(s, "Activity"), "\"Busy\"");
    assert_eq!(get(s, "RemoteUser"), "\"alice@d\"");
    assert_eq!(get(s, "JobId"), "\"5.0\"");
    assert_eq!(get(s, "RemoteNegotiatingGroup"), "\"<none>\"");
    let j = p.job(0).unwrap();
    assert_eq!(get(j, "JobStatus"), "2");
    assert_eq!(get(j, "RemoteHost"), "\"slot1@s\"");
    assert_eq!(get(j, "JobCurrentStartDate"), "1000");
    // Applied again: the job runs already.
    let again = p.apply_matches(&out);
    assert_eq!(
        again.refused,
        [Refused {
            job: 0,
            slot: 0,
            why: Refusal::JobNotIdle
        }]
    );
    p.advance_to(1060);
    let next = cycle(&mut p);
    assert!(next.matches.is_empty());
    assert_eq!(next.stats.num_idle_jobs, 0);
    let alice = p.accounts().record("alice@d").unwrap();
    assert_eq!(alice.resources_used, 1, "the claim charged");
}

/// `create_dslot` and the startd's id dispenser: each match on the
/// partitionable slot carves the next dynamic slot (`slot1_1@p`,
/// `slot1_2@p`), the rest left in the partitionable slot; a job that ends
/// gives its dynamic slot's resources back (`ResMgr::removeResource`) and
/// its sub-id is the next one given.
#[test]
fn a_partitionable_slot_is_carved_and_given_back() {
    let jobs = format!("{}{}{}", job(1, "a", 1), job(2, "a", 2), job(3, "a", 1));
    let mut p = pool(PSLOT, &jobs, "");
    let mut carved = Vec::new();
    for t in 0..2 {
        p.advance_to(1000 + 60 * t);
        let out = cycle(&mut p);
        assert_eq!(out.matches.len(), 1, "a partitionable slot once a cycle");
        let applied = p.apply_matches(&out);
        assert_eq!(applied.started.len(), 1);
        assert_eq!(applied.started[0].carved_from, Some(0));
        carved.push(applied.started[0].clone());
    }
    let names: Vec<String> = carved
        .iter()
        .map(|s| get(p.slot(s.slot).unwrap(), "Name"))
        .collect();
    assert_eq!(names, ["\"slot1_1@p\"", "\"slot1_2@p\""]);
    let d = p.slot(carved[1].slot).unwrap();
    assert_eq!(get(d, "Cpus"), "2");
    assert_eq!(get(d, "Memory"), "1024", "1000 rounded up to 128s");
    assert_eq!(get(d, "State"), "\"Claimed\"");
    let left = p.slot(0).unwrap();
    assert_eq!(get(left, "Cpus"), "1");
    assert_eq!(get(left, "Memory"), "6144");
    assert_eq!(get(left, "NumDynamicSlots"), "2");
    // The first job ends: slot1_1 deleted, its resources back.
    let ended = p.end_job(carved[0].job).unwrap();
    assert_eq!(
        (ended.freed, ended.deleted),
        (Some(0), Some(carved[0].slot))
    );
    assert!(p.slot(carved[0].slot).is_none());
    assert_eq!(get(p.slot(0).unwrap(), "Cpus"), "2");
    assert_eq!(get(p.slot(0).unwrap(), "NumDynamicSlots"), "1");
    // The third job gets slot1_1 again.
    p.advance_to(1200);
    let out = cycle(&mut p);
    let applied = p.apply_matches(&out);
    let s = &applied.started[0];
    assert_eq!(get(p.slot(s.slot).unwrap(), "Name"), "\"slot1_1@p\"");
    assert_eq!(get(p.job(s.job).unwrap(), "RemoteHost"), "\"slot1_1@p\"");
    cycle(&mut p);
}

/// A preempting match (`PREEMPTION_REQUIREMENTS` true, the running job's
/// submitter worse placed): the slot's job is evicted back to idle
/// (`_mark_job_stopped`: `JobStatus` 1, `LastRemoteHost`), the slot
/// claimed by the new job at once. The next cycle sees the new claim.
#[test]
fn a_preempting_match_evicts_the_running_job_to_idle() {
    let slot = "Name = \"slot1@s\"\nState = \"Unclaimed\"\nActivity = \"Idle\"\nCpus = 1\n\
                Memory = 4096\nRequirements = true\nRank = 0\n";
    let config = "PREEMPTION_REQUIREMENTS = True\nNEGOTIATOR_CONSIDER_PREEMPTION = True\n";
    let mut p = pool(slot, &job(1, "low", 1), config);
    let out = cycle(&mut p);
    p.apply_matches(&out);
    // Hours of use later, another submitter's job arrives.
    p.advance_to(1000 + 4 * 3600);
    let high = p.add_job(ads(&job(2, "high", 1)).remove(0));
    let out = cycle(&mut p);
    assert_eq!(out.matches.len(), 1);
    assert_eq!(out.matches[0].job, high);
    assert_eq!(out.matches[0].preempt, PreemptState::Prio);
    let applied = p.apply_matches(&out);
    assert_eq!(
        applied.evicted,
        [Evicted {
            slot: 0,
            job: Some(0)
        }]
    );
    let old = p.job(0).unwrap();
    assert_eq!(get(old, "JobStatus"), "1");
    assert_eq!(get(old, "LastRemoteHost"), "\"slot1@s\"");
    assert_eq!(get(old, "RemoteHost"), "undefined");
    let s = p.slot(0).unwrap();
    assert_eq!(get(s, "RemoteUser"), "\"high@d\"");
    assert_eq!(get(s, "JobId"), "\"2.0\"");
    assert_eq!(get(p.job(high).unwrap(), "JobStatus"), "2");
    p.advance_to(1000 + 4 * 3600 + 60);
    let next = cycle(&mut p);
    assert_eq!(next.stats.num_idle_jobs, 1, "the evicted job waits again");
    // The high job ends: the static slot is Unclaimed, its claim gone.
    let ended = p.end_job(high).unwrap();
    assert_eq!((ended.freed, ended.deleted), (Some(0), None));
    let s = p.slot(0).unwrap();
    assert_eq!(get(s, "State"), "\"Unclaimed\"");
    assert_eq!(get(s, "RemoteUser"), "undefined");
    p.advance_to(1000 + 4 * 3600 + 120);
    let last = cycle(&mut p);
    assert_eq!(last.matches.len(), 1, "the evicted job runs again");
    assert_eq!(last.matches[0].preempt, PreemptState::None);
}

/// What can no longer be claimed is refused with why, never dropped: the
/// job gone, the slot gone, a slot claimed since by a match that does not
/// preempt, a partitionable slot that no longer holds the request. A job
/// that runs nowhere ends freeing nothing.
#[test]
fn a_match_that_can_no_longer_be_made_is_refused_with_why() {
    let slots = format!("{PSLOT}Name = \"slot2@s\"\nState = \"Unclaimed\"\nCpus = 1\nMemory = 4096\nRequirements = true\n");
    let jobs = format!("{}{}", job(1, "a", 4), job(2, "b", 1));
    let mut p = pool(&slots, &jobs, "");
    let out = cycle(&mut p);
    assert_eq!(out.matches.len(), 2);
    // The partitionable slot shrinks, the static one is claimed by
    // another, before the matches are applied.
    let pslot = out.matches.iter().find(|m| m.slot == 0).unwrap().job;
    let small = PSLOT.replace("Cpus = 4", "Cpus = 2");
    p.update_slot(0, ads(&small).remove(0)).unwrap();
    let claimed = "Name = \"slot2@s\"\nState = \"Claimed\"\nCpus = 1\nMemory = 4096\n\
                   Requirements = true\nRemoteUser = \"z@d\"\nJobId = \"9.0\"\n";
    p.update_slot(1, ads(claimed).remove(0)).unwrap();
    let applied = p.apply_matches(&out);
    assert!(applied.started.is_empty());
    let mut why: Vec<(u32, Refusal)> = applied.refused.iter().map(|r| (r.job, r.why)).collect();
    why.sort_by_key(|(j, _)| *j);
    let static_job = 1 - pslot;
    let mut want = vec![
        (pslot, Refusal::DoesNotFit),
        (static_job, Refusal::SlotClaimed),
    ];
    want.sort_by_key(|(j, _)| *j);
    assert_eq!(why, want);
    // Gone: the job, then the slot.
    p.remove_job(pslot).unwrap();
    p.remove_slot(1).unwrap();
    let applied = p.apply_matches(&out);
    let mut why: Vec<Refusal> = applied.refused.iter().map(|r| r.why).collect();
    why.sort_by_key(|w| w.name());
    assert_eq!(why, [Refusal::JobGone, Refusal::SlotGone]);
    // Nothing runs the idle job: it ends freeing nothing.
    let ended = p.end_job(static_job).unwrap();
    assert_eq!((ended.freed, ended.deleted), (None, None));
    assert_eq!(p.job_count(), 0);
}

/// A claim the startd releases (`Resource::release_claim`; the job's
/// shadow then has the schedd's `_mark_job_stopped` make it idle): its
/// dynamic slot goes back into the partitionable slot and the job waits
/// again, to be matched at the next cycle. A slot that is not claimed is
/// left as it is.
#[test]
fn a_released_claim_frees_its_slot_and_its_job_waits_again() {
    use classad::negotiate::living::Released;
    let mut p = pool(PSLOT, &job(1, "a", 2), "");
    let out = cycle(&mut p);
    let started = p.apply_matches(&out).started.remove(0);
    assert_eq!(get(p.slot(0).unwrap(), "Cpus"), "2");
    assert_eq!(p.release_claim(0).unwrap(), Released::default(), "a pslot");
    let released = p.release_claim(started.slot).unwrap();
    assert_eq!(
        released,
        Released {
            freed: Some(0),
            deleted: Some(started.slot),
            evicted: Some(started.job)
        }
    );
    assert_eq!(get(p.slot(0).unwrap(), "Cpus"), "4");
    assert_eq!(get(p.job(started.job).unwrap(), "JobStatus"), "1");
    assert!(p.release_claim(started.slot).is_err(), "no such slot now");
    p.advance_to(1060);
    let again = cycle(&mut p);
    assert_eq!(again.matches.len(), 1, "the job matched again");
}

/// With groups configured the claim carries the group the match was
/// negotiated in (`RemoteNegotiatingGroup`, the negotiator's
/// `ATTR_SUBMITTER_NEGOTIATING_GROUP`) and the submitter's group
/// (`RemoteGroup`, `getGroupInfoFromUserId`'s); without groups, only the
/// first, `<none>`.
#[test]
fn a_claim_names_the_groups_its_match_was_made_in() {
    let slot = "Name = \"slot1@s\"\nState = \"Unclaimed\"\nCpus = 1\nMemory = 4096\n\
                Requirements = true\n";
    let grouped = job(1, "alice", 1).replace(
        "JobStatus = 1\n",
        "JobStatus = 1\nAccountingGroup = \"group_a.alice\"\n",
    );
    let config = "GROUP_NAMES = group_a\nGROUP_QUOTA_group_a = 10\n";
    let mut p = pool(slot, &grouped, config);
    let out = cycle(&mut p);
    assert_eq!(out.matches.len(), 1);
    p.apply_matches(&out);
    let s = p.slot(0).unwrap();
    assert_eq!(get(s, "RemoteNegotiatingGroup"), "\"group_a\"");
    assert_eq!(get(s, "RemoteGroup"), "\"group_a\"");
    assert_eq!(get(s, "AccountingGroup"), "\"group_a.alice@d\"");
    let mut p = pool(slot, &job(1, "alice", 1), "");
    let out = cycle(&mut p);
    p.apply_matches(&out);
    let s = p.slot(0).unwrap();
    assert_eq!(get(s, "RemoteNegotiatingGroup"), "\"<none>\"");
    assert_eq!(get(s, "RemoteGroup"), "undefined");
}
