//! The slots of a cycle (negotiator.md section 2): those `NEGOTIATOR_SLOT_CONSTRAINT`
//! lets exist, prepared as the negotiator prepares them (`SlotWeight` filled in,
//! `RemoteUserPrio` inserted), their weights, who runs on them, which the trim
//! keeps out of matching, and which have a consumption policy.

use super::consumption;
use super::knobs::CycleKnobs;
use crate::ad::ClassAd;
use crate::engine::{eval_attr_once, eval_once};
use crate::syntax::ast::Expr;
use classad_vm::{Str, Value};
use rayon::prelude::*;
use std::sync::Arc;

/// The slots that exist for a cycle.
#[derive(Clone, Debug)]
pub struct SlotTable {
    /// The slots, prepared, in file order.
    pub ads: Vec<Arc<ClassAd>>,
    /// Per slot, its index among the slots given.
    pub file_index: Vec<u32>,
    /// Per slot, its weight as the accountant charges it (1 with weights off; at
    /// most [`super::MAX_AMOUNT`]).
    pub weight: Vec<f64>,
    /// Per slot, its `SlotWeight` as HTCondor's `LookupFloat` reads it (1 when it is
    /// not a number), for `NEGOTIATOR_IGNORE_JOB_RANKS`' scan.
    pub raw_weight: Vec<f64>,
    /// Per slot, whom it runs for: `PreemptingAccountingGroup`, else
    /// `PreemptingUser`, else `AccountingGroup`, else `RemoteUser`.
    pub remote_user: Vec<Option<Arc<str>>>,
    /// Per slot, true when the trim keeps it out of matching.
    pub trimmed: Vec<bool>,
    /// Per slot, true when it has a consumption policy.
    pub consumption: Vec<bool>,
}

/// A string attribute, evaluated in the ad alone.
fn string(ad: &Arc<ClassAd>, name: &str) -> Option<Arc<str>> {
    match eval_attr_once(ad, name, None) {
        Ok(Value::Str(s)) => Some(Arc::from(s.as_str())),
        _ => None,
    }
}

fn boolean(ad: &Arc<ClassAd>, name: &str) -> Option<bool> {
    match eval_attr_once(ad, name, None) {
        Ok(Value::Bool(b)) => Some(b),
        _ => None,
    }
}

fn number(ad: &Arc<ClassAd>, name: &str) -> Option<f64> {
    eval_attr_once(ad, name, None)
        .ok()
        .and_then(|v| v.as_f64_promoted())
}

/// Who runs on a slot (see [`SlotTable::remote_user`]).
pub fn remote_user(ad: &Arc<ClassAd>) -> Option<Arc<str>> {
    [
        "PreemptingAccountingGroup",
        "PreemptingUser",
        "AccountingGroup",
        "RemoteUser",
    ]
    .iter()
    .find_map(|n| string(ad, n))
}

impl SlotTable {
    /// The slots of `slots` that pass `NEGOTIATOR_SLOT_CONSTRAINT`, prepared:
    /// a slot whose `SlotWeight` is missing or not a number gets `SLOT_WEIGHT`;
    /// with preemption considered, a slot someone runs on gets `RemoteUserPrio`
    /// (that submitter's effective priority, `eup`, in single precision) and a
    /// slot with a `PreemptingRank` has it as its `CurrentRank`.
    pub fn new(
        slots: &[Arc<ClassAd>],
        knobs: &CycleKnobs,
        eup: impl Fn(&str) -> f64 + Sync,
    ) -> SlotTable {
        // Each slot on its own, in a few parts a thread on rayon's threads (the
        // copies of the slots that get attributes are fresh memory; those of
        // a part made alike share a layout), then gathered in file order.
        let part = slots
            .len()
            .div_ceil(4 * rayon::current_num_threads())
            .max(64);
        let prepared: Vec<Option<Prepared>> = slots
            .par_chunks(part)
            .flat_map_iter(|chunk| {
                let mut layouts = Layouts::default();
                chunk
                    .iter()
                    .map(|slot| prepare(slot, knobs, &eup, &mut layouts))
                    .collect::<Vec<_>>()
            })
            .collect();
        SlotTable::of_prepared(
            prepared
                .iter()
                .enumerate()
                .filter_map(|(i, p)| Some((i as u32, p.as_ref()?))),
        )
    }

    /// The table of slots prepared elsewhere: each with its index among the
    /// slots given, in that order.
    pub(crate) fn of_prepared<'a>(slots: impl Iterator<Item = (u32, &'a Prepared)>) -> SlotTable {
        let mut t = SlotTable {
            ads: Vec::new(),
            file_index: Vec::new(),
            weight: Vec::new(),
            raw_weight: Vec::new(),
            remote_user: Vec::new(),
            trimmed: Vec::new(),
            consumption: Vec::new(),
        };
        for (i, p) in slots {
            t.trimmed.push(p.trimmed);
            t.consumption.push(p.consumption);
            t.raw_weight.push(p.raw_weight);
            t.weight.push(p.weight);
            t.remote_user.push(p.remote_user.clone());
            t.file_index.push(i);
            t.ads.push(p.ad.clone());
        }
        t
    }

    /// How many slots exist.
    pub fn len(&self) -> usize {
        self.ads.len()
    }

    /// True when no slot exists.
    pub fn is_empty(&self) -> bool {
        self.ads.is_empty()
    }

    /// The pool size: the sum of weights (with weights off, the number of slots).
    pub fn pool_size(&self) -> f64 {
        self.weight.iter().sum()
    }

    /// The smallest weight of any slot (`f64::MAX` with no slots).
    pub fn min_weight(&self) -> f64 {
        self.weight.iter().copied().fold(f64::MAX, f64::min)
    }
}

/// One slot as the cycle sees it (see [`SlotTable::new`]).
#[derive(Clone, Debug)]
pub(crate) struct Prepared {
    pub(crate) ad: Arc<ClassAd>,
    pub(crate) trimmed: bool,
    pub(crate) consumption: bool,
    pub(crate) raw_weight: f64,
    pub(crate) weight: f64,
    pub(crate) remote_user: Option<Arc<str>>,
}

/// `slot` prepared as [`SlotTable::new`] prepares it; `None` when
/// `NEGOTIATOR_SLOT_CONSTRAINT` leaves it out.
pub(crate) fn prepare_one(
    slot: &Arc<ClassAd>,
    knobs: &CycleKnobs,
    eup: &impl Fn(&str) -> f64,
) -> Option<Prepared> {
    prepare(slot, knobs, eup, &mut Layouts::default())
}

/// The layouts of the prepared ads made so far (on one thread), by the
/// layout of the ad they were made from and the names added (a bit each):
/// slots of one kind, given the same names, share one layout, as the slots
/// read did. Without it every prepared slot had a layout of its own, and
/// what is worked out once per layout (the names' places in the slot table
/// when compiling, issue 34) was worked out once per slot.
#[derive(Default)]
struct Layouts(ahash::AHashMap<(usize, u8), ClassAd>);

impl Layouts {
    /// `ad` (made from `from` by adding the names of `added`) with the layout
    /// of the first ad made so (the same names added to the same names give
    /// the same names; `ClassAd::share_layout` checks).
    fn share(&mut self, from: &ClassAd, added: u8, mut ad: ClassAd) -> ClassAd {
        match self.0.entry((from.layout_id(), added)) {
            std::collections::hash_map::Entry::Occupied(first) => {
                ad.share_layout(first.get());
            }
            std::collections::hash_map::Entry::Vacant(v) => {
                // Held while `from` is alive (its layout is the key's).
                v.insert(ad.clone());
            }
        }
        ad
    }
}

/// `slot` prepared for the cycle; `None` when `NEGOTIATOR_SLOT_CONSTRAINT`
/// leaves it out.
fn prepare(
    slot: &Arc<ClassAd>,
    knobs: &CycleKnobs,
    eup: &impl Fn(&str) -> f64,
    layouts: &mut Layouts,
) -> Option<Prepared> {
    if let Some(c) = &knobs.slot_constraint {
        let pass = eval_once(c, slot, None)
            .map(|v| v.as_bool_equiv() == Some(true))
            .unwrap_or(false);
        if !pass {
            return None;
        }
    }
    let mut ad: Option<ClassAd> = None;
    let mut added = 0u8;
    if number(slot, "SlotWeight").is_none() {
        ad.get_or_insert_with(|| (**slot).clone())
            .insert(added_name(0), knobs.slot_weight.clone());
        added |= 1;
    }
    let user = remote_user(slot);
    if knobs.consider_preemption {
        if let Some(u) = &user {
            let prio = eup(u) as f32 as f64;
            ad.get_or_insert_with(|| (**slot).clone())
                .insert_expr(added_name(1), Expr::literal(Value::Real(prio)));
            added |= 2;
        }
        if let Some(r) = number(slot, "PreemptingRank") {
            ad.get_or_insert_with(|| (**slot).clone())
                .insert_expr(added_name(2), Expr::literal(Value::Real(r)));
            added |= 4;
        }
    }
    let ad = ad.map_or_else(
        || slot.clone(),
        |ad| Arc::new(layouts.share(slot, added, ad)),
    );
    let raw = number(&ad, "SlotWeight");
    let weight = match raw {
        Some(w) if knobs.use_slot_weights && w >= 0.0 => super::bounds::bounded(w),
        _ => 1.0,
    };
    Some(Prepared {
        trimmed: trimmed(&ad, knobs),
        consumption: consumption::has_policy(&ad),
        raw_weight: raw.unwrap_or(1.0),
        weight,
        remote_user: user,
        ad,
    })
}

/// HTCondor's `trimStartdAds`: with preemption considered, a slot with retirement
/// time left (`RetirementTimeRemaining` above 0) is trimmed; without it, a slot in
/// state Claimed or Preempting that is not partitionable; and always a Claimed
/// partitionable slot unless its `WantMatching` (default true) holds and it has no
/// `WorkingCM`.
fn trimmed(ad: &Arc<ClassAd>, knobs: &CycleKnobs) -> bool {
    let state = string(ad, "State");
    let state = state.as_deref();
    let pslot = boolean(ad, "PartitionableSlot") == Some(true);
    let by_preemption = if knobs.consider_preemption {
        matches!(
            eval_attr_once(ad, "RetirementTimeRemaining", None),
            Ok(Value::Int(r)) if r > 0
        )
    } else {
        matches!(state, Some("Claimed" | "Preempting")) && !pslot
    };
    let claimed_pslot = pslot && state == Some("Claimed") && {
        let want = boolean(ad, "WantMatching").unwrap_or(true);
        let cm = string(ad, "WorkingCM");
        !(want && cm.is_none_or(|c| c.is_empty()))
    };
    by_preemption || claimed_pslot
}

/// The names the cycle adds to slots (`SlotWeight`, `RemoteUserPrio`,
/// `CurrentRank`), each one shared text: slots alike stay of one kind to the
/// walks that tell names by their text's address (`matching::slot_kinds`).
fn added_name(i: usize) -> Str {
    static NAMES: std::sync::OnceLock<[Str; 3]> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| ["SlotWeight", "RemoteUserPrio", "CurrentRank"].map(Str::from))[i].clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;

    fn slots(text: &str) -> Vec<Arc<ClassAd>> {
        read_ads(text, "s")
            .unwrap()
            .into_iter()
            .map(Arc::new)
            .collect()
    }

    /// Slots of one layout given the same names share one layout, with their
    /// own values; slots given other names (or with another layout) do not.
    #[test]
    fn slots_given_the_same_names_share_a_layout() {
        let claimed =
            |i: usize| format!("Cpus = {i}\nState = \"Claimed\"\nRemoteUser = \"u{i}@d\"\n\n");
        let mut text: String = (0..6).map(claimed).collect();
        text.push_str("Cpus = 1\nState = \"Unclaimed\"\nRemoteUser = undefined\n\n");
        text.push_str("Cpus = 1\nState = \"Claimed\"\nRemoteUser = \"v@d\"\nMemory = 1\n\n");
        let s = slots(&text);
        assert!(s[..7]
            .windows(2)
            .all(|w| w[0].layout_id() == w[1].layout_id()));
        let k = CycleKnobs::default();
        let t = SlotTable::new(&s, &k, |u| u.len() as f64);
        let layouts: Vec<usize> = t.ads.iter().map(|a| a.layout_id()).collect();
        assert!(layouts[..6].iter().all(|&l| l == layouts[0]), "{layouts:?}");
        assert_ne!(layouts[6], layouts[0], "no remote user: no priority added");
        assert_ne!(layouts[7], layouts[0], "another layout read");
        for (i, ad) in t.ads.iter().enumerate().take(6) {
            assert_eq!(number(ad, "Cpus"), Some(i as f64));
            let prio = number(ad, added_name(1).as_str());
            assert_eq!(prio, Some(format!("u{i}@d").len() as f64));
        }
    }

    #[test]
    fn weights_constraint_trim_and_remote_users() {
        let s = slots(
            "Cpus = 4\nState = \"Claimed\"\nRemoteUser = \"u@d\"\n\n\
             Cpus = 2\nSlotWeight = \"x\"\n\n\
             Cpus = 8\nSlotWeight = 3\nPartitionableSlot = true\nState = \"Claimed\"\n\
             WantMatching = false\n\n\
             Cpus = 1\nHidden = true\n",
        );
        let c = crate::matching::config::Config::parse(
            "NEGOTIATOR_SLOT_CONSTRAINT = Hidden =!= true\n",
            "c",
        )
        .unwrap();
        let (mut k, _) = CycleKnobs::from_config(&c).unwrap();
        let t = SlotTable::new(&s, &k, |_| 7.0);
        assert_eq!(t.file_index, [0, 1, 2]);
        assert_eq!(t.weight, [4.0, 2.0, 3.0]);
        assert_eq!(t.pool_size(), 9.0);
        assert_eq!(t.min_weight(), 2.0);
        assert_eq!(t.trimmed, [false, false, true]);
        assert_eq!(t.remote_user[0].as_deref(), Some("u@d"));
        let prio = eval_attr_once(&t.ads[0], "RemoteUserPrio", None).unwrap();
        assert!(matches!(prio, Value::Real(p) if p == 7.0));
        k.consider_preemption = false;
        let t = SlotTable::new(&s, &k, |_| 7.0);
        assert_eq!(t.trimmed, [true, false, true]);
        assert!(t.ads[0].get("RemoteUserPrio").is_none());
        k.use_slot_weights = false;
        assert_eq!(SlotTable::new(&s, &k, |_| 1.0).pool_size(), 3.0);
    }
}
