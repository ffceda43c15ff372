//! A cycle's matches made into claims, and jobs ended (issue 36 item 5;
//! docs/negotiator.md section 17): what the schedd and the startd do with
//! the matches before the next cycle, done on the living pool's ads with
//! [`crate::negotiate::startd`] and [`crate::negotiate::schedd`].
//!
//! - A match on a static or dynamic slot claims it for the job, which runs.
//! - A match on a partitionable slot carves a dynamic slot for the job (a
//!   new slot of the pool, numbered with the lowest sub-id its partitionable
//!   slot has free, as the startd's id dispenser numbers it); each further
//!   job `NEGOTIATOR_DEPTH_FIRST` packed into the match gets one more,
//!   carved from what is left (the schedd claiming the leftovers).
//! - A preempting match takes the slot's claim: the job it ran is evicted
//!   back to idle, and the slot is claimed for the new job at once. The
//!   `Preempting` state the startd passes through while the old job
//!   vacates is not kept: the next cycle sees the new claim.
//! - A match that can no longer be made (its job gone or no longer idle,
//!   its slot gone, a slot claimed since without the match preempting it,
//!   a partitionable slot that no longer holds the request) is refused and
//!   reported with why; its job stays as it is.
//! - A job that ends leaves the queue and frees its claim: a static slot is
//!   Unclaimed again, a dynamic slot is deleted and its resources go back
//!   into its partitionable slot.
//! - A claim the startd releases (its slot drained, its lease gone) frees
//!   the slot the same way, and the job it ran, when the pool has it, is
//!   evicted back to idle.

use super::tenancy::{claim_key, job_key, slot_name, Tenancy};
use super::{LivingPool, UnknownId};
use crate::ad::ClassAd;
use crate::negotiate::matchlist::PreemptState;
use crate::negotiate::report::CycleOutcome;
use crate::negotiate::schedd::{evicted, is_idle, started};
use crate::negotiate::startd::{
    carve, claim_static, dynamic_slot_name, is_claimed, is_partitionable, parent_slot_name,
    release_dynamic, release_static, ClaimContext,
};
use std::sync::Arc;

/// A job started on a slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Started {
    /// The job.
    pub job: u32,
    /// The slot it runs on (a dynamic slot carved for it is a new slot).
    pub slot: u32,
    /// The partitionable slot the dynamic slot was carved from.
    pub carved_from: Option<u32>,
}

/// A claim a preempting match took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evicted {
    /// The slot.
    pub slot: u32,
    /// The job it ran, now idle; `None` when no running job of the pool is
    /// the one the claim names (a job of another queue, or one the caller
    /// made idle already).
    pub job: Option<u32>,
}

/// Why a match was not made into a claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// The job is no longer in the pool.
    JobGone,
    /// The job is no longer idle.
    JobNotIdle,
    /// The slot is no longer in the pool.
    SlotGone,
    /// The slot was claimed since, and the match does not preempt.
    SlotClaimed,
    /// The partitionable slot cannot hold the request any more.
    DoesNotFit,
}

impl Refusal {
    /// The name the reports use.
    pub fn name(self) -> &'static str {
        match self {
            Refusal::JobGone => "job gone",
            Refusal::JobNotIdle => "job not idle",
            Refusal::SlotGone => "slot gone",
            Refusal::SlotClaimed => "slot claimed",
            Refusal::DoesNotFit => "does not fit",
        }
    }
}

/// A match (or a job packed into one) not made into a claim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The job.
    pub job: u32,
    /// The slot the match named.
    pub slot: u32,
    /// Why.
    pub why: Refusal,
}

/// What [`LivingPool::apply_matches`] did, in the order of the matches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// Jobs started.
    pub started: Vec<Started>,
    /// Claims preempting matches took.
    pub evicted: Vec<Evicted>,
    /// Matches not made into claims.
    pub refused: Vec<Refused>,
}

/// What [`LivingPool::end_job`] did.
#[derive(Clone, Debug)]
pub struct Ended {
    /// The job's ad, as it left the queue.
    pub ad: Arc<ClassAd>,
    /// The slot its claim freed: the static slot, or the partitionable slot
    /// its dynamic slot went back into (`None`: it ran nowhere in the pool,
    /// or its dynamic slot's partitionable slot is not in the pool).
    pub freed: Option<u32>,
    /// The dynamic slot deleted.
    pub deleted: Option<u32>,
}

/// What [`LivingPool::release_claim`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Released {
    /// The slot freed: the static slot, or the partitionable slot the
    /// dynamic slot went back into (`None`: the slot was not claimed, or
    /// its partitionable slot is not in the pool).
    pub freed: Option<u32>,
    /// The dynamic slot deleted.
    pub deleted: Option<u32>,
    /// The job the claim ran, evicted to idle (`None`: no job of the pool).
    pub evicted: Option<u32>,
}

/// The group each submitter is in, from the cycle's reports (`<none>` when
/// in none).
fn submitter_groups(outcome: &CycleOutcome) -> ahash::AHashMap<&str, &str> {
    outcome
        .submitters
        .iter()
        .map(|s| (&*s.name, s.group.as_deref().unwrap_or("<none>")))
        .collect()
}

impl LivingPool {
    /// The index of who runs where, made at its first use.
    fn tenancy(&mut self) -> &Tenancy {
        if self.tenancy.is_none() {
            self.tenancy = Some(Tenancy::of(self.slots.iter(), self.queue.iter()));
        }
        self.tenancy.as_ref().expect("made above")
    }

    /// Makes `outcome`'s matches (a cycle of this pool's) into claims, as
    /// the schedd and the startd make them before the next cycle (see the
    /// module): slots claimed or carved, jobs running, the jobs preempted
    /// evicted to idle. The next cycle finds the claims as the accountant's
    /// `CheckMatches` reads them.
    pub fn apply_matches(&mut self, outcome: &CycleOutcome) -> Applied {
        self.tenancy();
        let mut applied = Applied::default();
        // `RemoteGroup` only when groups are configured.
        let groups = (!self.knobs.groups.is_empty()).then(|| submitter_groups(outcome));
        for m in &outcome.matches {
            let submitter_group = groups.as_ref().map(|g| {
                let group = g.get(&*m.submitter).copied().unwrap_or("<none>");
                group.to_string()
            });
            let ctx = ClaimContext {
                now: self.now,
                negotiating_group: Some(m.group.as_deref().unwrap_or("<none>").to_string()),
                submitter_group,
            };
            for job in std::iter::once(m.job).chain(m.packed.iter().copied()) {
                match self.claim(job, m.slot, m.preempt, &ctx) {
                    Ok((start, eviction)) => {
                        applied.started.push(start);
                        applied.evicted.extend(eviction);
                    }
                    Err(why) => applied.refused.push(Refused {
                        job,
                        slot: m.slot,
                        why,
                    }),
                }
            }
        }
        applied
    }

    /// Job `job` claims slot `slot` (see the module).
    fn claim(
        &mut self,
        job: u32,
        slot: u32,
        preempt: PreemptState,
        ctx: &ClaimContext,
    ) -> Result<(Started, Option<Evicted>), Refusal> {
        let j = self.queue.get(job).cloned().ok_or(Refusal::JobGone)?;
        if !is_idle(&j) {
            return Err(Refusal::JobNotIdle);
        }
        let s = self.slots.get(slot).cloned().ok_or(Refusal::SlotGone)?;
        let now = self.now;
        let (start, eviction, name) = if is_partitionable(&s) {
            let sub_id = self.free_sub_id(&s);
            let (left, dslot) = carve(&s, &j, sub_id, ctx).ok_or(Refusal::DoesNotFit)?;
            let dslot = Arc::new(dslot);
            let name = slot_name(&dslot).unwrap_or_default();
            self.update_slot(slot, Arc::new(left))
                .expect("the slot is there");
            let id = self.add_slot(dslot);
            let start = Started {
                job,
                slot: id,
                carved_from: Some(slot),
            };
            (start, None, name)
        } else {
            let claimed = is_claimed(&s);
            if claimed && preempt == PreemptState::None {
                return Err(Refusal::SlotClaimed);
            }
            let (free, eviction) = if claimed {
                let eviction = self.evict(slot, &s);
                (Arc::new(release_static(&s, now)), Some(eviction))
            } else {
                (s, None)
            };
            let name = slot_name(&free).unwrap_or_default();
            let ad = Arc::new(claim_static(&free, &j, ctx));
            self.update_slot(slot, ad).expect("the slot is there");
            let start = Started {
                job,
                slot,
                carved_from: None,
            };
            (start, eviction, name)
        };
        let running = Arc::new(started(&j, &name, now));
        self.update_job(job, running).expect("the job is there");
        Ok((start, eviction))
    }

    /// The job claimed slot `slot` (whose ad is `s`) ran, evicted to idle.
    fn evict(&mut self, slot: u32, s: &Arc<ClassAd>) -> Evicted {
        let key = claim_key(s);
        let job = key.as_ref().and_then(|k| self.tenancy().job(k));
        let job = job.filter(|&j| {
            let ad = self.queue.get(j);
            ad.is_some_and(|a| job_key(a) == key && !is_idle(a))
        });
        if let Some(j) = job {
            let ad = self.queue.get(j).cloned().expect("found above");
            let idle = Arc::new(evicted(&ad, self.now));
            self.update_job(j, idle).expect("the job is there");
        }
        Evicted { slot, job }
    }

    /// The lowest sub-id partitionable slot `pslot` has free.
    fn free_sub_id(&mut self, pslot: &Arc<ClassAd>) -> u32 {
        let tenancy = self.tenancy();
        (1..)
            .find(|&n| tenancy.slot_named(&dynamic_slot_name(pslot, n)).is_none())
            .expect("a free sub-id")
    }

    /// Slot `slot`'s claim ends (see the module): the slot freed, the job
    /// it ran evicted to idle. Nothing changes when the slot is not claimed.
    pub fn release_claim(&mut self, slot: u32) -> Result<Released, UnknownId> {
        let s = self.slots.get(slot).cloned().ok_or(UnknownId(slot))?;
        if !is_claimed(&s) {
            return Ok(Released::default());
        }
        let evicted = self.evict(slot, &s).job;
        let (freed, deleted) = self.release(slot);
        Ok(Released {
            freed,
            deleted,
            evicted,
        })
    }

    /// Job `id` ends: it leaves the queue, and its claim is freed (see the
    /// module).
    pub fn end_job(&mut self, id: u32) -> Result<Ended, UnknownId> {
        let ad = self.queue.get(id).cloned().ok_or(UnknownId(id))?;
        let key = job_key(&ad);
        let slot = key.as_ref().and_then(|k| self.tenancy().slot_running(k));
        let slot = slot.filter(|&s| self.slots.get(s).is_some_and(|a| claim_key(a) == key));
        let (freed, deleted) = match slot {
            Some(s) => self.release(s),
            None => (None, None),
        };
        self.remove_job(id)?;
        Ok(Ended { ad, freed, deleted })
    }

    /// Slot `slot`'s claim released: the slot freed, and the dynamic slot
    /// deleted (see [`Ended`]).
    fn release(&mut self, slot: u32) -> (Option<u32>, Option<u32>) {
        let s = self.slots.get(slot).cloned().expect("the slot is there");
        match parent_slot_name(&s) {
            Some(parent) => {
                let p = self.tenancy().slot_named(&parent);
                self.remove_slot(slot).expect("the slot is there");
                if let Some(p) = p {
                    let pslot = self.slots.get(p).cloned().expect("indexed");
                    let back = Arc::new(release_dynamic(&pslot, &s));
                    self.update_slot(p, back).expect("the slot is there");
                }
                (p, Some(slot))
            }
            None => {
                let free = Arc::new(release_static(&s, self.now));
                self.update_slot(slot, free).expect("the slot is there");
                (Some(slot), None)
            }
        }
    }
}
