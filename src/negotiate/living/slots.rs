//! A living pool's slots: each at a place (its id), as given and as the last
//! cycle prepared it (`SlotWeight`, `RemoteUserPrio`, `CurrentRank` filled
//! in, [`crate::negotiate::SlotTable::new`]). A cycle prepares again the
//! slots that changed and those whose submitter's priority moved, and tells
//! which of them must be matched again.

use crate::ad::ClassAd;
use crate::matching::refs::References;
use crate::negotiate::accounts::Resource;
use crate::negotiate::knobs::CycleKnobs;
use crate::negotiate::slots::{prepare_one, Prepared};
use crate::negotiate::SlotTable;
use rayon::prelude::*;
use std::sync::Arc;

/// The attribute the cycle fills in that moves with the accountant.
const PRIORITY: &str = "RemoteUserPrio";

/// One slot.
#[derive(Debug)]
struct LiveSlot {
    ad: Arc<ClassAd>,
    /// As the last cycle prepared it; `None` when `NEGOTIATOR_SLOT_CONSTRAINT`
    /// leaves it out (or it has not been prepared yet).
    prepared: Option<Prepared>,
    /// As the accountant reads it.
    resource: Option<Resource>,
    /// The bits of the `RemoteUserPrio` the prepared ad holds.
    priority: Option<u64>,
    /// Some attribute reads the clock or draws a random number, or cannot be
    /// walked: matched again at every cycle.
    volatile: bool,
    /// Some attribute reads `RemoteUserPrio`, or cannot be walked.
    reads_priority: bool,
    /// Changed (or new) since the last cycle.
    changed: bool,
}

impl LiveSlot {
    fn new(ad: Arc<ClassAd>) -> LiveSlot {
        LiveSlot {
            ad,
            prepared: None,
            resource: None,
            priority: None,
            volatile: false,
            reads_priority: false,
            changed: true,
        }
    }

    /// Prepares the slot under `knobs` with effective priorities `eup`.
    fn prepare(&mut self, knobs: &CycleKnobs, eup: &(impl Fn(&str) -> f64 + Sync)) {
        let p = prepare_one(&self.ad, knobs, eup);
        self.resource = p.as_ref().and_then(|p| Resource::of(&p.ad, p.weight));
        self.priority = p.as_ref().and_then(|p| priority_bits(p, knobs, eup));
        if self.changed {
            let mut refs = References::new();
            if let Some(p) = &p {
                for (_, e) in p.ad.iter() {
                    refs.walk(&p.ad, e.tree, e.id);
                }
            }
            self.volatile = refs.volatile || !refs.complete;
            self.reads_priority = !refs.complete
                || refs.internal.contains(PRIORITY)
                || refs.external.contains(PRIORITY);
        }
        self.prepared = p;
    }
}

/// The bits of the `RemoteUserPrio` the cycle gives a prepared slot (as
/// [`prepare_one`] works it out), `None` when it gives none.
fn priority_bits(p: &Prepared, knobs: &CycleKnobs, eup: &impl Fn(&str) -> f64) -> Option<u64> {
    if !knobs.consider_preemption {
        return None;
    }
    let user = p.remote_user.as_deref()?;
    Some((eup(user) as f32 as f64).to_bits())
}

/// Why a slot was prepared again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Why {
    /// It changed, or is new, or reads the clock.
    Changed,
    /// Its submitter's priority moved.
    Priority,
}

/// What preparing the slots did: the places prepared again and why, and
/// whether any slot's priority is read.
#[derive(Debug, Default)]
pub(super) struct Preparing {
    /// Places of slots that changed (or read the clock).
    pub(super) changed: Vec<u32>,
    /// Places of slots whose `RemoteUserPrio` alone moved, that read it.
    pub(super) priority_read: Vec<u32>,
    /// Places of slots whose `RemoteUserPrio` alone moved, that do not.
    pub(super) priority_unread: Vec<u32>,
}

/// The slots of a living pool.
#[derive(Debug, Default)]
pub(super) struct LiveSlots {
    slots: Vec<Option<LiveSlot>>,
    free: Vec<u32>,
    /// Places of slots removed since the last cycle.
    gone: Vec<u32>,
    /// Slots came, went or changed since the last cycle.
    set_changed: bool,
}

impl LiveSlots {
    /// Adds `ad`; its id (a place a removed slot may have had).
    pub(super) fn add(&mut self, ad: Arc<ClassAd>) -> u32 {
        self.set_changed = true;
        let slot = Some(LiveSlot::new(ad));
        match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = slot;
                id
            }
            None => {
                self.slots.push(slot);
                self.slots.len() as u32 - 1
            }
        }
    }

    /// Slot `id`'s ad, when there is such a slot.
    pub(super) fn get(&self, id: u32) -> Option<&Arc<ClassAd>> {
        self.slots.get(id as usize)?.as_ref().map(|s| &s.ad)
    }

    /// Slot `id` becomes `ad`; false when there is no such slot.
    pub(super) fn replace(&mut self, id: u32, ad: Arc<ClassAd>) -> bool {
        let Some(Some(slot)) = self.slots.get_mut(id as usize) else {
            return false;
        };
        slot.ad = ad;
        slot.changed = true;
        self.set_changed = true;
        true
    }

    /// Removes slot `id`; its ad, `None` when there is no such slot.
    pub(super) fn remove(&mut self, id: u32) -> Option<Arc<ClassAd>> {
        let slot = self.slots.get_mut(id as usize)?.take()?;
        self.free.push(id);
        self.gone.push(id);
        self.set_changed = true;
        Some(slot.ad)
    }

    /// How many slots.
    pub(super) fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// How many places (one more than the largest id).
    pub(super) fn places(&self) -> usize {
        self.slots.len()
    }

    /// Every slot, in pool order (by id), with its id.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u32, &Arc<ClassAd>)> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.as_ref().map(|s| (i as u32, &s.ad)))
    }

    /// True when slots came, went or changed since the last cycle; forgets
    /// it, with the places of those that went (given back).
    pub(super) fn take_set_changed(&mut self) -> (bool, Vec<u32>) {
        (
            std::mem::take(&mut self.set_changed),
            std::mem::take(&mut self.gone),
        )
    }

    /// Every slot marked changed (the pool is matched again from nothing).
    pub(super) fn mark_all_changed(&mut self) {
        for s in self.slots.iter_mut().flatten() {
            s.changed = true;
        }
    }

    /// Prepares (on rayon's threads) the slots that changed, that read the
    /// clock, and those whose `RemoteUserPrio` the effective priorities
    /// `eup` move.
    pub(super) fn prepare(
        &mut self,
        knobs: &CycleKnobs,
        eup: &(impl Fn(&str) -> f64 + Sync),
    ) -> Preparing {
        let why: Vec<Option<(Why, bool)>> = self
            .slots
            .par_iter_mut()
            .map(|s| {
                let s = s.as_mut()?;
                let why = if s.changed || s.volatile {
                    Why::Changed
                } else {
                    let now = s
                        .prepared
                        .as_ref()
                        .and_then(|p| priority_bits(p, knobs, eup));
                    if now == s.priority {
                        return None;
                    }
                    Why::Priority
                };
                s.prepare(knobs, eup);
                s.changed = false;
                Some((why, s.reads_priority))
            })
            .collect();
        let mut out = Preparing::default();
        for (place, w) in why.into_iter().enumerate() {
            let place = place as u32;
            match w {
                Some((Why::Changed, _)) => out.changed.push(place),
                Some((Why::Priority, true)) => out.priority_read.push(place),
                Some((Why::Priority, false)) => out.priority_unread.push(place),
                None => {}
            }
        }
        out
    }

    /// Slot `place`'s prepared ad, when the constraint lets it in.
    pub(super) fn prepared(&self, place: u32) -> Option<&Arc<ClassAd>> {
        let s = self.slots.get(place as usize)?.as_ref()?;
        s.prepared.as_ref().map(|p| &p.ad)
    }

    /// The places of the slots prepared and let in by the constraint, in
    /// pool order, with their prepared ads.
    pub(super) fn prepared_places(&self) -> Vec<(u32, Arc<ClassAd>)> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| Some((i as u32, s.as_ref()?.prepared.as_ref()?.ad.clone())))
            .collect()
    }

    /// The slots as a cycle reads them: the table (of the slots the
    /// constraint lets in, each with its index among all the slots), per
    /// slot of the table its place, per slot of the pool (in order) its id,
    /// and the accountant's view of the table's slots.
    pub(super) fn snapshot(&self) -> (SlotTable, Vec<u32>, Vec<u32>, Vec<Resource>) {
        let mut ids = Vec::with_capacity(self.len());
        let mut places = Vec::new();
        let mut prepared = Vec::new();
        let mut resources = Vec::new();
        for (place, s) in self.slots.iter().enumerate() {
            let Some(s) = s else { continue };
            let index = ids.len() as u32;
            ids.push(place as u32);
            if let Some(p) = &s.prepared {
                places.push(place as u32);
                prepared.push((index, p));
                resources.extend(s.resource.clone());
            }
        }
        let table = SlotTable::of_prepared(prepared.into_iter());
        (table, places, ids, resources)
    }
}
