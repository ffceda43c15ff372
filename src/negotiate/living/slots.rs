//! A living pool's slots: each at a place (its id), as given and as the last
//! cycle prepared it (`SlotWeight`, `RemoteUserPrio`, `CurrentRank` filled
//! in, [`crate::negotiate::SlotTable::new`]). A cycle prepares again the
//! slots that changed and those whose submitter's priority moved, and tells
//! which of them must be matched again.

use super::claims::ClaimIndex;
use crate::ad::ClassAd;
use crate::matching::refs::References;
use crate::matching::SlotSignificance;
use crate::negotiate::accounts::{Accounts, Resource};
use crate::negotiate::consumption;
use crate::negotiate::knobs::CycleKnobs;
use crate::negotiate::slots::{prepare_one, Prepared};
use crate::negotiate::SlotTable;
use rayon::prelude::*;
use std::sync::Arc;

/// The attribute the cycle fills in that moves with the accountant.
const PRIORITY: &str = "RemoteUserPrio";

/// How many layouts [`Layouts`] holds at most (past it, it starts afresh).
const LAYOUTS: usize = 4096;

/// The layouts of the slots seen (their sorted names), by the names' hash:
/// a slot given with the names of one seen before takes that one's layout.
/// Slots changed one at a time (a claim's attributes added) otherwise each
/// have a layout of their own, and what is worked out once per kind of slot
/// (the walks of the significant attributes, the compiled programs) would
/// be worked out once per slot.
#[derive(Debug, Default)]
struct Layouts {
    by_hash: ahash::AHashMap<u64, Vec<Arc<Vec<classad_vm::Str>>>>,
    held: usize,
}

impl Layouts {
    /// Gives `ad` the layout of an ad of its names seen before (or remembers
    /// its own).
    fn share(&mut self, ad: &mut Arc<ClassAd>) {
        use std::hash::{BuildHasher, Hasher};
        let layout = ad.layout();
        let mut h = ahash::RandomState::with_seeds(1, 2, 3, 4).build_hasher();
        for n in layout.iter() {
            h.write(n.as_str().as_bytes());
            h.write_u8(0);
        }
        let seen = self.by_hash.entry(h.finish()).or_default();
        match seen.iter().find(|l| **l == layout) {
            Some(l) if Arc::ptr_eq(l, &layout) => {}
            Some(l) => Arc::make_mut(ad).share_names(l),
            None => {
                seen.push(layout);
                self.held += 1;
                if self.held > LAYOUTS {
                    self.by_hash.clear();
                    self.held = 0;
                }
            }
        }
    }
}

/// What a prepared slot gives the pool's significant attributes and the
/// names the cycle reads of a request (`negotiate::class_names`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Significance {
    names: SlotSignificance,
    /// Under a consumption policy.
    consumption: bool,
    /// Its `MachineResources`, when the class names read them.
    resources: Vec<String>,
}

impl Significance {
    fn of(p: &Prepared, knobs: &CycleKnobs) -> Significance {
        let read = knobs.schedd_packing || p.consumption;
        Significance {
            names: SlotSignificance::of(&p.ad),
            consumption: p.consumption,
            resources: if read {
                consumption::resources(&p.ad).unwrap_or_default()
            } else {
                Vec::new()
            },
        }
    }
}

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
    /// What it gives the significant attributes, as prepared.
    significance: Option<Arc<Significance>>,
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
            significance: None,
        }
    }

    /// The prepared slot with its `RemoteUserPrio` alone set anew to the
    /// bits `priority`: what [`LiveSlot::prepare`] gives a slot that changed
    /// in nothing else and whose attributes do not read it (its weight, trim
    /// and claim are as they were).
    fn set_priority(&mut self, priority: u64) {
        let p = self.prepared.as_mut().expect("prepared");
        let v = classad_vm::Value::Real(f64::from_bits(priority));
        Arc::make_mut(&mut p.ad).insert_expr(PRIORITY, crate::syntax::ast::Expr::literal(v));
        self.priority = Some(priority);
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
            self.significance = p.as_ref().map(|p| Arc::new(Significance::of(p, knobs)));
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

/// Why a slot was prepared again, whether it reads `RemoteUserPrio`, and
/// (for a changed one) what it gave the significant attributes before.
type Again = (Why, bool, Option<Arc<Significance>>);

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
    /// The layouts of the slots given and prepared.
    layouts: Layouts,
    /// How many slots give each significance.
    significances: ahash::AHashMap<Arc<Significance>, usize>,
    /// A significance came or went since the last cycle.
    significance_changed: bool,
    /// The slots as the accountant last checked them.
    claims: ClaimIndex,
}

impl LiveSlots {
    /// Adds `ad`; its id (a place a removed slot may have had).
    pub(super) fn add(&mut self, mut ad: Arc<ClassAd>) -> u32 {
        self.layouts.share(&mut ad);
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
    pub(super) fn replace(&mut self, id: u32, mut ad: Arc<ClassAd>) -> bool {
        let Some(Some(slot)) = self.slots.get_mut(id as usize) else {
            return false;
        };
        self.layouts.share(&mut ad);
        slot.ad = ad;
        slot.changed = true;
        true
    }

    /// Removes slot `id`; its ad, `None` when there is no such slot.
    pub(super) fn remove(&mut self, id: u32) -> Option<Arc<ClassAd>> {
        let slot = self.slots.get_mut(id as usize)?.take()?;
        self.count(&slot.significance, false);
        self.claims.set(id, None);
        self.free.push(id);
        self.gone.push(id);
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

    /// Counts a slot's significance in (`add`) or out.
    fn count(&mut self, s: &Option<Arc<Significance>>, add: bool) {
        let Some(s) = s else { return };
        let n = self.significances.entry(s.clone()).or_insert(0);
        if add {
            *n += 1;
            self.significance_changed |= *n == 1;
        } else {
            *n -= 1;
            if *n == 0 {
                self.significances.remove(s);
                self.significance_changed = true;
            }
        }
    }

    /// True when what the slots give the significant attributes may have
    /// changed since the last cycle (a significance came or went); forgets
    /// it, with the places of the slots that went (given back).
    pub(super) fn take_changes(&mut self) -> (bool, Vec<u32>) {
        (
            std::mem::take(&mut self.significance_changed),
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
        let why: Vec<Option<Again>> = self
            .slots
            .par_iter_mut()
            .map(|s| {
                let s = s.as_mut()?;
                if s.changed || s.volatile {
                    let before = s.significance.clone();
                    s.prepare(knobs, eup);
                    s.changed = false;
                    return Some((Why::Changed, s.reads_priority, before));
                }
                let now = s
                    .prepared
                    .as_ref()
                    .and_then(|p| priority_bits(p, knobs, eup));
                if now == s.priority {
                    return None;
                }
                match now {
                    Some(bits) if !s.reads_priority && s.priority.is_some() => s.set_priority(bits),
                    _ => s.prepare(knobs, eup),
                }
                Some((Why::Priority, s.reads_priority, None))
            })
            .collect();
        let mut out = Preparing::default();
        for (place, w) in why.into_iter().enumerate() {
            let place = place as u32;
            if w.is_some() {
                let s = self.slots[place as usize].as_ref().expect("prepared");
                self.claims.set(place, s.resource.as_ref());
            }
            match w {
                Some((Why::Changed, _, before)) => {
                    out.changed.push(place);
                    let s = self.slots[place as usize].as_mut().expect("prepared");
                    if let Some(p) = &mut s.prepared {
                        self.layouts.share(&mut p.ad);
                    }
                    let now = s.significance.clone();
                    if now != before {
                        self.count(&before, false);
                        self.count(&now, true);
                    }
                }
                Some((Why::Priority, true, _)) => out.priority_read.push(place),
                Some((Why::Priority, false, _)) => out.priority_unread.push(place),
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
    /// constraint lets in, each with its id as its index among the slots
    /// given), per slot of the table its place, and the accountant's view of
    /// the table's slots.
    pub(super) fn snapshot(&self) -> (SlotTable, Vec<u32>) {
        let mut places = Vec::new();
        let mut prepared = Vec::new();
        for (place, s) in self.slots.iter().enumerate() {
            let Some(s) = s else { continue };
            if let Some(p) = &s.prepared {
                places.push(place as u32);
                prepared.push((place as u32, p));
            }
        }
        let table = SlotTable::of_prepared(prepared.into_iter());
        (table, places)
    }

    /// `CheckMatches` at `now` on `accounts`, of the slots that changed
    /// since the last check (module `claims`).
    pub(super) fn check_claims(&mut self, accounts: &mut Accounts, now: i64) {
        self.claims.check(accounts, now);
    }

    /// The last cycle's matches made claims of these names: checked at the
    /// next cycle.
    pub(super) fn charged(&mut self, names: Vec<String>) {
        self.claims.charged(names);
    }
}
