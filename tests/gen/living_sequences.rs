//! Sequences of changes to a living pool (`classad::negotiate::living`), each
//! cycle held against a fresh cycle on the same ads and accountant state:
//! jobs and slots added, changed and removed, matches made into claims as a
//! startd makes them (static slots claimed, partitionable slots carved),
//! claims released, the clock moved. Each change is drawn from 64 bits, so a
//! seeded test and a fuzz target drive the same changes.
//!
//! The pools are those of `negotiation_pools.rs` (consumption policies,
//! groups, preemption, concurrency limits, floors and ceilings); the ads
//! added come from another pool of the generator, with now and then a job or
//! slot that the living pool must work out again at every cycle (it reads
//! the clock, or draws a random number) or that reads `RemoteUserPrio`.

use super::negotiation_pools::{negotiation_pool, NegotiationPool};
use classad::ad::{read_ads, ClassAd};
use classad::matching::config::Config;
use classad::negotiate::accounts::Accounts;
use classad::negotiate::living::{LivingCycle, LivingPool};
use classad::negotiate::startd::release_static;
use classad::negotiate::{CycleKnobs, CycleOutcome, CycleStats, Pool, Priorities, UnmatchedJobs};
use std::sync::Arc;

/// The clock the sequences start at.
pub const START: i64 = 1_700_000_000;

/// The ads of `text` (old syntax), shared.
pub fn ads(text: &str) -> Vec<Arc<ClassAd>> {
    read_ads(text, "living")
        .unwrap()
        .into_iter()
        .map(Arc::new)
        .collect()
}

/// The knobs of a generated pool.
pub fn knobs_of(p: &NegotiationPool) -> CycleKnobs {
    let c = Config::parse(&p.config, "config").unwrap();
    let mut k = CycleKnobs::from_config(&c).unwrap().0;
    k.schedd_packing = p.packing;
    k
}

/// The accountant's records of a pool's priorities file: each submitter's
/// priority, factor, floor and ceiling; the usage is found again from the
/// claimed slots.
pub fn accounts_of(p: &NegotiationPool, knobs: &CycleKnobs) -> Accounts {
    let prios = Priorities::parse(&p.priorities, "priorities").unwrap();
    let groups = knobs.groups.iter().map(|g| g.name.clone()).collect();
    Accounts::from_priorities(&prios, START, knobs.priority_half_life, groups)
}

/// A sequence: the living pool, the ads changes draw from, and what the
/// last cycle matched.
pub struct Sequence {
    pub pool: LivingPool,
    donor_jobs: Vec<Arc<ClassAd>>,
    donor_slots: Vec<Arc<ClassAd>>,
    last: Option<LivingCycle>,
    /// What making matches into claims and ending jobs did so far.
    pub claims: ClaimCounts,
}

/// What a sequence's claims did, so that a generator that stops reaching
/// a path fails rather than passes.
#[derive(Clone, Debug, Default)]
pub struct ClaimCounts {
    pub started: u64,
    pub carved: u64,
    pub evicted: u64,
    pub refused: u64,
    pub ended: u64,
    pub dslots_deleted: u64,
    pub released: u64,
}

/// Jobs and slots that cannot be kept between cycles, or that read the
/// accountant's priority.
const ODD_JOBS: [&str; 3] = [
    "Owner = \"alice\"\nUser = \"alice@d\"\nClusterId = 900\nProcId = 0\nJobStatus = 1\n\
     RequestCpus = 1\nRequestMemory = 512\nRequirements = time() > 0 && TARGET.Cpus >= 1\n",
    "Owner = \"bob\"\nUser = \"bob@d\"\nClusterId = 901\nProcId = 0\nJobStatus = 1\n\
     RequestCpus = 1\nRequestMemory = 512\n\
     Requirements = TARGET.RemoteUserPrio =?= undefined || \
     floor(TARGET.RemoteUserPrio * 7) % 2 == 0\n",
    "Owner = \"carol\"\nUser = \"carol@d\"\nClusterId = 902\nProcId = 0\nJobStatus = 1\n\
     RequestCpus = 1\nRequestMemory = 512\nRequirements = true\n\
     Rank = TARGET.RemoteUserPrio ?: 0\n\n\
     Owner = \"alice\"\nUser = \"alice@d\"\nClusterId = 903\nProcId = 0\nJobStatus = 1\n\
     RequestCpus = 1\nRequestMemory = 512\nRequirements = true\n\
     Rank = -(TARGET.RemoteUserPrio ?: 0)\n",
];

const ODD_SLOTS: [&str; 2] = [
    "Name = \"odd1@hostz\"\nCpus = 2\nMemory = 4096\nState = \"Unclaimed\"\nArch = \"X86_64\"\n\
     Kind = \"cpu\"\nStart = random(1) == 0\nRequirements = START\nRank = 0\n",
    "Name = \"odd2@hostz\"\nCpus = 2\nMemory = 4096\nState = \"Claimed\"\nArch = \"X86_64\"\n\
     Kind = \"cpu\"\nRemoteUser = \"zed@d\"\nRemoteOwner = \"zed@d\"\nStart = true\n\
     Requirements = START && floor(MY.RemoteUserPrio * 7) % 2 == 0\nRank = 0\n",
];

impl Sequence {
    /// The living pool of generated pool `index` (donors from another).
    pub fn new(master: u64, index: usize, groups: bool) -> (Sequence, NegotiationPool) {
        let p = negotiation_pool(master, index, groups);
        let donor = negotiation_pool(master, index + 100_000, groups);
        let knobs = knobs_of(&p);
        let accounts = accounts_of(&p, &knobs);
        let pool = LivingPool::new(&ads(&p.slots), &ads(&p.jobs), knobs, accounts, START);
        let mut donor_jobs = ads(&donor.jobs);
        donor_jobs.extend(ODD_JOBS.iter().flat_map(|t| ads(t)));
        let mut donor_slots = ads(&donor.slots);
        donor_slots.extend(ODD_SLOTS.iter().flat_map(|t| ads(t)));
        let s = Sequence {
            pool,
            donor_jobs,
            donor_slots,
            last: None,
            claims: ClaimCounts::default(),
        };
        (s, p)
    }

    /// A cycle on the living pool and one afresh; the differences.
    pub fn cycle(&mut self) -> Result<LivingCycle, String> {
        let mut accounts = self.pool.accounts().clone();
        let mut fresh = fresh_cycle(&self.pool, &mut accounts);
        by_id(&mut fresh, &self.pool);
        let living = self.pool.cycle();
        let diffs = differences(&fresh, &living.outcome);
        if !diffs.is_empty() {
            return Err(diffs.join("\n"));
        }
        let (want, got) = (
            format!("{accounts:?}"),
            format!("{:?}", self.pool.accounts()),
        );
        if want != got {
            return Err(format!(
                "accountant differs:\n fresh  {want}\n living {got}"
            ));
        }
        self.last = Some(living.clone());
        Ok(living)
    }

    /// Applies the change `bits` draws.
    pub fn change(&mut self, bits: u64) -> String {
        let pick = |n: usize, shift: u32| ((bits >> shift) as usize) % n.max(1);
        let jobs: Vec<u32> = self.pool.jobs().map(|(i, _)| i).collect();
        let slots: Vec<u32> = self.pool.slots().map(|(i, _)| i).collect();
        match bits % 12 {
            0 | 1 => self.claim_matches(pick(4, 8) + 1),
            11 => self.end_a_job(pick(1 << 16, 8)),
            2 => {
                let ad = self.donor_jobs[pick(self.donor_jobs.len(), 8)].clone();
                format!("job {} added", self.pool.add_job(ad))
            }
            3 if !jobs.is_empty() => {
                let id = jobs[pick(jobs.len(), 8)];
                self.pool.remove_job(id).unwrap();
                format!("job {id} removed")
            }
            4 if !jobs.is_empty() => {
                let id = jobs[pick(jobs.len(), 8)];
                let mut ad = (**self.pool.job(id).unwrap()).clone();
                let v = pick(3, 24);
                ad.insert_expr(
                    "JobPrio",
                    classad::syntax::ast::Expr::literal(classad_vm::Value::Int(v as i64 * 5 - 5)),
                );
                self.pool.update_job(id, Arc::new(ad)).unwrap();
                format!("job {id} JobPrio {}", v as i64 * 5 - 5)
            }
            5 if !jobs.is_empty() => {
                let id = jobs[pick(jobs.len(), 8)];
                let ad = self.donor_jobs[pick(self.donor_jobs.len(), 24)].clone();
                self.pool.update_job(id, ad).unwrap();
                format!("job {id} replaced")
            }
            6 => {
                let ad = self.donor_slots[pick(self.donor_slots.len(), 8)].clone();
                format!("slot {} added", self.pool.add_slot(ad))
            }
            7 if !slots.is_empty() => {
                let id = slots[pick(slots.len(), 8)];
                self.pool.remove_slot(id).unwrap();
                format!("slot {id} removed")
            }
            8 if !slots.is_empty() => {
                let id = slots[pick(slots.len(), 8)];
                let ad = self.donor_slots[pick(self.donor_slots.len(), 24)].clone();
                self.pool.update_slot(id, ad).unwrap();
                format!("slot {id} replaced")
            }
            9 if !slots.is_empty() => {
                let id = slots[pick(slots.len(), 8)];
                let released = self.pool.release_claim(id).unwrap();
                if released.freed.is_some() || released.deleted.is_some() {
                    self.claims.released += 1;
                    return format!("slot {id}'s claim released: {released:?}");
                }
                // Not claimed: its claim's attributes cleared all the same.
                let ad = release_static(self.pool.slot(id).unwrap(), self.pool.now());
                self.pool.update_slot(id, Arc::new(ad)).unwrap();
                format!("slot {id} released")
            }
            _ => {
                let dt = [0, 1, 60, 600, 3600, 86_400][pick(6, 8)];
                self.pool.advance_to(self.pool.now() + dt);
                format!("clock +{dt}")
            }
        }
    }

    /// Makes up to `n` of the last cycle's matches into claims, as the
    /// library applies them (`LivingPool::apply_matches`): the job running,
    /// a static slot claimed, a partitionable slot carved, a preempted job
    /// evicted. The ids may name other ads by now: what can no longer be
    /// claimed is refused.
    fn claim_matches(&mut self, n: usize) -> String {
        let Some(last) = self.last.take() else {
            return "no cycle to claim from".into();
        };
        let mut outcome = last.outcome.clone();
        outcome.matches.truncate(n);
        let applied = self.pool.apply_matches(&outcome);
        self.last = Some(last);
        let c = &mut self.claims;
        c.started += applied.started.len() as u64;
        c.carved += applied
            .started
            .iter()
            .filter(|s| s.carved_from.is_some())
            .count() as u64;
        c.evicted += applied.evicted.iter().filter(|e| e.job.is_some()).count() as u64;
        c.refused += applied.refused.len() as u64;
        for s in &applied.started {
            if let Some(p) = s.carved_from {
                let pslot = self.pool.slot(p).expect("the partitionable slot");
                assert_no_resource_below_zero(pslot);
            }
        }
        format!(
            "claims: started {:?}, evicted {:?}, refused {:?}",
            applied.started, applied.evicted, applied.refused
        )
    }

    /// Ends a running job, when there is one: its claim freed.
    fn end_a_job(&mut self, pick: usize) -> String {
        let running: Vec<u32> = self
            .pool
            .jobs()
            .filter(|(_, a)| !classad::negotiate::schedd::is_idle(a))
            .map(|(i, _)| i)
            .collect();
        let Some(&id) = running.get(pick % running.len().max(1)) else {
            return "no job to end".into();
        };
        let ended = self.pool.end_job(id).expect("a job");
        self.claims.ended += 1;
        self.claims.dslots_deleted += u64::from(ended.deleted.is_some());
        if let Some(p) = ended.freed.and_then(|p| self.pool.slot(p)) {
            assert_no_resource_below_zero(p);
        }
        format!(
            "job {id} ended: freed {:?}, deleted {:?}",
            ended.freed, ended.deleted
        )
    }
}

/// A partitionable slot is never over-committed: none of its resources is
/// below 0.
fn assert_no_resource_below_zero(slot: &Arc<ClassAd>) {
    for r in ["Cpus", "Memory", "Disk"] {
        if let Ok(v) = classad::engine::eval_attr_once(slot, r, None) {
            if let Some(x) = v.as_f64_promoted() {
                assert!(x >= 0.0, "{r} = {x} in {slot:?}");
            }
        }
    }
}

/// A cycle afresh on the living pool's ads, in its order, from `accounts`
/// (the living pool's, cloned before its cycle), charged as the living pool
/// charges.
pub fn fresh_cycle(pool: &LivingPool, accounts: &mut Accounts) -> CycleOutcome {
    let slots: Vec<Arc<ClassAd>> = pool.slots().map(|(_, a)| a.clone()).collect();
    let jobs: Vec<Arc<ClassAd>> = pool.jobs().map(|(_, a)| a.clone()).collect();
    let fresh = Pool::with_accounts(&slots, pool.knobs().clone(), accounts, pool.now());
    let queue = fresh.queue(&jobs);
    let outcome = fresh.negotiate(&queue);
    accounts.charge_matches(fresh.slots(), &outcome.matches, pool.now());
    outcome
}

/// A fresh cycle's outcome on `pool`'s ads with its jobs and slots named by
/// their ids in `pool` (as the living pool's cycle names them).
pub fn by_id(o: &mut CycleOutcome, pool: &LivingPool) {
    let jobs: Vec<u32> = pool.jobs().map(|(i, _)| i).collect();
    let slots: Vec<u32> = pool.slots().map(|(i, _)| i).collect();
    for m in &mut o.matches {
        m.job = jobs[m.job as usize];
        m.slot = slots[m.slot as usize];
        for p in &mut m.packed {
            *p = jobs[*p as usize];
        }
    }
    let mut unmatched = UnmatchedJobs::new();
    for (j, why) in o.unmatched.iter() {
        unmatched.push(jobs[j as usize], why);
    }
    o.unmatched = unmatched;
}

/// The statistics two runs of one cycle share (not the times, nor the pairs
/// evaluated: a living pool evaluates what changed).
fn shared_stats(s: &CycleStats) -> CycleStats {
    CycleStats {
        duration: 0.0,
        phase_durations: [0.0; 4],
        evaluations: 0,
        ..s.clone()
    }
}

/// How two outcomes of one cycle differ (nothing when they agree).
pub fn differences(want: &CycleOutcome, got: &CycleOutcome) -> Vec<String> {
    let mut out = Vec::new();
    let mut check = |what: &str, w: String, g: String| {
        if w != g {
            out.push(format!("{what}:\n fresh  {w}\n living {g}"));
        }
    };
    check(
        "matches",
        format!("{:?}", want.matches),
        format!("{:?}", got.matches),
    );
    check(
        "unmatched",
        format!("{:?}", want.unmatched),
        format!("{:?}", got.unmatched),
    );
    check(
        "submitters",
        format!("{:?}", want.submitters),
        format!("{:?}", got.submitters),
    );
    check(
        "statistics",
        format!("{:?}", shared_stats(&want.stats)),
        format!("{:?}", shared_stats(&got.stats)),
    );
    check(
        "limits",
        format!("{:?}", want.concurrency_limits),
        format!("{:?}", got.concurrency_limits),
    );
    check(
        "unfound priorities",
        format!("{:?}", want.unfound_priorities),
        format!("{:?}", got.unfound_priorities),
    );
    out
}
