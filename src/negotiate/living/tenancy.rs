//! Who runs where in a living pool: the slots by name, the claimed slots by
//! the job they run, the jobs by their id. Applying a cycle's matches and
//! ending jobs (`super::claiming`) find their ads here instead of reading the
//! whole pool: the index is made at its first use and kept up from then on
//! as ads are added, changed and removed.
//!
//! A job is known by its `User` and its `ClusterId.ProcId`; a claim by the
//! slot's `RemoteUser` and `JobId`, which the startd copies from the job
//! when it is claimed (`crate::negotiate::startd`), so the two keys meet.

use crate::ad::ClassAd;
use crate::negotiate::startd;
use ahash::AHashMap;
use std::sync::Arc;

/// A job as its claim names it: its user (empty when it has none) and its
/// `ClusterId.ProcId`.
pub(super) type JobKey = (Box<str>, Box<str>);

/// The index (see the module).
#[derive(Debug, Default)]
pub(super) struct Tenancy {
    slots_by_name: AHashMap<Box<str>, u32>,
    claims: AHashMap<JobKey, u32>,
    jobs: AHashMap<JobKey, u32>,
}

fn string(ad: &Arc<ClassAd>, name: &str) -> Option<String> {
    startd::string(ad, name, None)
}

fn integer(ad: &Arc<ClassAd>, name: &str) -> Option<i64> {
    startd::integer(ad, name, None)
}

/// A slot's `Name`.
pub(super) fn slot_name(slot: &Arc<ClassAd>) -> Option<String> {
    string(slot, "Name")
}

/// The job a claimed slot runs, as its claim names it.
pub(super) fn claim_key(slot: &Arc<ClassAd>) -> Option<JobKey> {
    let job = string(slot, "JobId")?;
    let user = string(slot, "RemoteUser").unwrap_or_default();
    Some((user.into(), job.into()))
}

/// A job's key, as a claim on it would name it (`JobId` is made only for a
/// `ClusterId` above 0 and a `ProcId` of 0 or more).
pub(super) fn job_key(job: &Arc<ClassAd>) -> Option<JobKey> {
    let cluster = integer(job, "ClusterId").filter(|c| *c > 0)?;
    let proc = integer(job, "ProcId").unwrap_or(0);
    if proc < 0 {
        return None;
    }
    let user = string(job, "User").unwrap_or_default();
    Some((user.into(), format!("{cluster}.{proc}").into()))
}

/// Drops `key`'s entry in `map` when it is `id`'s (another ad may have taken
/// the key since).
fn forget<K: std::hash::Hash + Eq>(map: &mut AHashMap<K, u32>, key: Option<K>, id: u32) {
    if let Some(k) = key {
        if map.get(&k) == Some(&id) {
            map.remove(&k);
        }
    }
}

impl Tenancy {
    /// The index of `slots` and `jobs`.
    pub(super) fn of<'a>(
        slots: impl Iterator<Item = (u32, &'a Arc<ClassAd>)>,
        jobs: impl Iterator<Item = (u32, &'a Arc<ClassAd>)>,
    ) -> Tenancy {
        let mut t = Tenancy::default();
        for (id, ad) in slots {
            t.slot_added(id, ad);
        }
        for (id, ad) in jobs {
            t.job_added(id, ad);
        }
        t
    }

    /// Slot `id` is `ad` from now on.
    pub(super) fn slot_added(&mut self, id: u32, ad: &Arc<ClassAd>) {
        if let Some(name) = slot_name(ad) {
            self.slots_by_name.insert(name.into(), id);
        }
        if let Some(key) = claim_key(ad) {
            self.claims.insert(key, id);
        }
    }

    /// Slot `id` is `ad` no more.
    pub(super) fn slot_removed(&mut self, id: u32, ad: &Arc<ClassAd>) {
        forget(&mut self.slots_by_name, slot_name(ad).map(Into::into), id);
        forget(&mut self.claims, claim_key(ad), id);
    }

    /// Job `id` is `ad` from now on.
    pub(super) fn job_added(&mut self, id: u32, ad: &Arc<ClassAd>) {
        if let Some(key) = job_key(ad) {
            self.jobs.insert(key, id);
        }
    }

    /// Job `id` is `ad` no more.
    pub(super) fn job_removed(&mut self, id: u32, ad: &Arc<ClassAd>) {
        forget(&mut self.jobs, job_key(ad), id);
    }

    /// The slot named `name`.
    pub(super) fn slot_named(&self, name: &str) -> Option<u32> {
        self.slots_by_name.get(name).copied()
    }

    /// The slot whose claim runs the job `key` names.
    pub(super) fn slot_running(&self, key: &JobKey) -> Option<u32> {
        self.claims.get(key).copied()
    }

    /// The job `key` names.
    pub(super) fn job(&self, key: &JobKey) -> Option<u32> {
        self.jobs.get(key).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;

    fn ad(text: &str) -> Arc<ClassAd> {
        Arc::new(read_ads(text, "t").unwrap().remove(0))
    }

    #[test]
    fn a_claim_and_its_job_meet_by_user_and_job_id() {
        let job = ad("User = \"u@d\"\nClusterId = 7\nProcId = 2\n");
        let slot = ad("Name = \"slot1@h\"\nRemoteUser = \"u@d\"\nJobId = \"7.2\"\n");
        let free = ad("Name = \"slot2@h\"\n");
        let t = Tenancy::of(
            [(0, &slot), (1, &free)].into_iter(),
            [(4, &job)].into_iter(),
        );
        let key = job_key(&job).unwrap();
        assert_eq!(t.slot_running(&key), Some(0));
        assert_eq!(t.job(&claim_key(&slot).unwrap()), Some(4));
        assert_eq!(t.slot_named("slot2@h"), Some(1));
        // No JobId without a ClusterId above 0.
        assert_eq!(job_key(&ad("User = \"u@d\"\nClusterId = 0\n")), None);
    }

    #[test]
    fn a_key_another_ad_took_stays_with_it() {
        let a = ad("Name = \"slot1@h\"\n");
        let mut t = Tenancy::of([(0, &a)].into_iter(), std::iter::empty());
        // Slot 1 takes the name; slot 0 then goes: the name stays slot 1's.
        t.slot_added(1, &a);
        t.slot_removed(0, &a);
        assert_eq!(t.slot_named("slot1@h"), Some(1));
        t.slot_removed(1, &a);
        assert_eq!(t.slot_named("slot1@h"), None);
    }
}
