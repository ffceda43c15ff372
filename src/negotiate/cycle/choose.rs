//! The choice of a slot for a request (negotiator.md sections 6, 7 and 8): the
//! match list of the request's autocluster, made whole or read as needed, each
//! candidate's preemption state and limit test, consumption-policy slots as they
//! are now, and a slot put back after a match.

use super::*;
use crate::matching::batch::Candidate;
use smallvec::SmallVec;
use std::cmp::Ordering;
use std::ops::Range;

impl Cycle<'_> {
    /// A consumption-policy slot that just matched goes back into the live list
    /// when it still matches the request (section 7.2).
    pub(super) fn put_back(&mut self, req: &Request, rep: &Arc<ClassAd>, slot: usize) {
        if self.list.is_none() {
            return;
        }
        let st = self.cp_state(req.class, rep, slot);
        if !st.matches {
            return;
        }
        let key = self.key_of(st, slot);
        let e = Entry {
            slot: slot as u32,
            key,
            state: PreemptState::None,
            preempt_rank: NO_PREEMPTION_RANK,
        };
        let Some(mut live) = self.list.take() else {
            return;
        };
        let LiveList { list, search, .. } = &mut live;
        match list {
            Candidates::Whole(l) => {
                l.put_back(e);
            }
            Candidates::Lazy(l) => l.put_back(e, &mut |cursor, refused| {
                self.static_group(search, cursor, refused)
            }),
        }
        self.list = Some(live);
    }

    /// The key of a consumption-policy slot for a request, as it is now
    /// (`st`, its offer).
    fn key_of(&self, st: CpState, slot: usize) -> RankKey {
        if self.static_order.is_some() {
            let (pre, post) = self.static_ranks[slot];
            RankKey {
                pre,
                rank: 1.0,
                post,
            }
        } else {
            st.key
        }
    }

    /// HTCondor's `SubmitterLimitPermits`.
    fn permits(
        &mut self,
        slot: usize,
        class: u32,
        rep: &Arc<ClassAd>,
        used: f64,
        allowed: f64,
    ) -> bool {
        let cost = if self.slots.consumption[slot] {
            self.cp_state(class, rep, slot).cost
        } else {
            self.slots.weight[slot]
        };
        used + cost <= allowed || (used <= 0.0 && allowed > 0.0)
    }

    /// What a consumption-policy slot, as it is now, offers a class: kept until
    /// the slot changes.
    fn cp_state(&mut self, class: u32, rep: &Arc<ClassAd>, slot: usize) -> CpState {
        let version = self.cp_version[slot];
        if let Some(st) = self.cp_memo.get(class, slot, version) {
            return st;
        }
        self.offers.prepare(class, rep, &[slot], &self.ads);
        let (o, cost) = self
            .offers
            .offer(class, rep, slot, &self.ads[slot], &self.knobs.policy);
        if let Some(cost) = cost {
            self.offers.keep_cost(slot, cost);
        }
        let st = CpState::of(o, version);
        self.cp_memo.keep(class, slot, st);
        st
    }

    /// Works out on every core what the available consumption-policy slots
    /// offer `class` where that is not known for the slot as it is now: the
    /// search that asks for them runs on one thread, and each is a pure
    /// function of the class's representative and the slot's ad.
    fn prefetch_cp_states(&mut self, class: u32, rep: &Arc<ClassAd>) {
        let missing: Vec<usize> = self
            .consumption_slots
            .iter()
            .copied()
            .filter(|&s| {
                self.available[s] && self.cp_memo.get(class, s, self.cp_version[s]).is_none()
            })
            .collect();
        if missing.is_empty() {
            return;
        }
        self.offers.prepare(class, rep, &missing, &self.ads);
        let (ads, offers, policy) = (&self.ads, &self.offers, &self.knobs.policy);
        let made: Vec<_> = missing
            .par_iter()
            .map(|&s| offers.offer(class, rep, s, &ads[s], policy))
            .collect();
        for (s, (o, cost)) in missing.into_iter().zip(made) {
            if let Some(cost) = cost {
                self.offers.keep_cost(s, cost);
            }
            let st = CpState::of(o, self.cp_version[s]);
            self.cp_memo.keep(class, s, st);
        }
    }

    /// HTCondor's `matchmakingAlgorithm` (section 6): a slot for the request from
    /// the live match list, or from a new one.
    pub(super) fn find_slot(
        &mut self,
        s: usize,
        req: &Request,
        l: &Limits,
        only_rank: bool,
    ) -> Found {
        let rep = self.clusters.representative(req.class).clone();
        self.refused_for_limits = false;
        // A string in the job alone is tested once, before any candidate.
        if let JobLimits::Fixed(list) = self.class_limits(req.class) {
            let list = list.clone();
            if self.limits_refuse(&list) {
                return Found {
                    entry: None,
                    refused_by_limit: 0,
                    refused_for_limits: true,
                };
            }
        }
        let cached = self.list.as_ref().is_some_and(|live| {
            live.autocluster == req.autocluster
                && live.search.submitter == s
                && live.search.only_rank == only_rank
        });
        if cached {
            let mut live = self.list.take().expect("cached");
            let mut found = None;
            while let Some(e) = self.pop(&mut live) {
                let slot = e.slot as usize;
                if self.slot_limits_refuse(req.class, &rep, slot) {
                    continue;
                }
                if e.state != PreemptState::None
                    && self.permits(slot, req.class, &rep, l.used, l.limit)
                {
                    found = Some(e);
                    break;
                }
                if self.permits(slot, req.class, &rep, l.used_unclaimed, l.unclaimed) {
                    found = Some(e);
                    break;
                }
                *live.refused_mut() += 1;
            }
            let refused = *live.refused_mut();
            self.list = Some(live);
            return Found {
                entry: found,
                refused_by_limit: if found.is_some() { 0 } else { refused },
                refused_for_limits: self.refused_for_limits,
            };
        }
        self.list = None;
        let search = Search {
            submitter: s,
            class: req.class,
            rep,
            limits: *l,
            only_rank,
        };
        if !self.knobs.matchlist_caching || self.available_count == 0 {
            let (entries, refused) = self.candidates(&search);
            // The best in scan order, the earlier on a tie: the earlier slot (in
            // the static order, ties are in slot order too).
            let mut best: Option<Entry> = None;
            for e in entries {
                let earlier = |b: &Entry| !b.better_than(&e) && e.slot < b.slot;
                if best.is_none_or(|b| e.better_than(&b) || earlier(&b)) {
                    best = Some(e);
                }
            }
            return Found {
                entry: best,
                refused_by_limit: refused,
                refused_for_limits: self.refused_for_limits,
            };
        }
        let list = if self.static_order.is_none() {
            let mut refused = 0;
            let side = self.consumption_candidates(&search, &mut refused);
            Candidates::Lazy(LazyList::new(side, refused))
        } else {
            let (entries, refused) = self.candidates(&search);
            Candidates::Whole(MatchList::new(entries, refused))
        };
        let mut live = LiveList {
            list,
            autocluster: req.autocluster,
            search,
        };
        let entry = self.pop(&mut live);
        let refused = *live.refused_mut();
        self.list = Some(live);
        Found {
            entry,
            refused_by_limit: refused,
            refused_for_limits: self.refused_for_limits,
        }
    }

    /// `rejectForConcurrencyLimits` of `list` (in lower case) with the counts
    /// now.
    fn limits_refuse(&mut self, list: &str) -> bool {
        let limits = &self.knobs.concurrency_limits;
        let refused = self.limit_counts.refusal(list, limits).is_some();
        self.refused_for_limits |= refused;
        refused
    }

    /// For a class whose `ConcurrencyLimits` is not a string alone: its value
    /// against `slot` as it is now, refused by the counts now.
    fn slot_limits_refuse(&mut self, class: u32, rep: &Arc<ClassAd>, slot: usize) -> bool {
        if self.class_limits(class) != &JobLimits::PerSlot {
            return false;
        }
        match limits_against(rep, &self.ads[slot]) {
            Some(list) => self.limits_refuse(&list),
            None => false,
        }
    }

    /// Takes the next entry of a live list.
    fn pop(&mut self, live: &mut LiveList) -> Option<Entry> {
        let LiveList { list, search, .. } = live;
        match list {
            Candidates::Whole(l) => l.pop(),
            Candidates::Lazy(l) => {
                l.pop(&mut |cursor, refused| self.static_group(search, cursor, refused))
            }
        }
    }

    /// The next group of a class's static candidates after `cursor`: those of
    /// one PRE, Rank and POST that are in the list made with `q`, sorted by the
    /// whole key; `None` at the end. The class's head is made longer when a
    /// group may run past its end (the group is then read again, its refusals
    /// counted once).
    fn static_group(
        &mut self,
        q: &Search,
        cursor: &mut Option<Candidate>,
        refused: &mut u32,
    ) -> Option<Vec<Entry>> {
        // Nothing usable matches the class: the answer is known without a list.
        if !self.pairs.any_usable(q.class, &self.usable) {
            return None;
        }
        let mut head = self.pairs.head(q.class);
        loop {
            let h = head.clone();
            // A group is read run by run (a run is one key's candidates): the
            // keys are compared once a run, not once a candidate.
            let mut runs = h.runs_from(h.after(cursor)).peekable();
            while let Some(&(first, _)) = runs.peek() {
                let mut group_runs: SmallVec<[(RankKey, Range<usize>); 2]> = SmallVec::new();
                while let Some(run) =
                    runs.next_if(|(k, _)| k.partial_cmp_key(&first) == Ordering::Equal)
                {
                    group_runs.push(run);
                }
                if runs.peek().is_none() && !h.complete {
                    // The group may go on past the head.
                    break;
                }
                let mut group = Vec::new();
                let mut group_refused = 0;
                for (key, run) in &group_runs {
                    for &slot in h.slots_of(run.clone()) {
                        let slot = slot as usize;
                        if !self.available[slot] || self.slots.consumption[slot] {
                            continue;
                        }
                        if let Some(e) = self.consider(q, slot, *key, &mut group_refused) {
                            group.push(e);
                        }
                    }
                }
                let (key, run) = group_runs.last().expect("a group holds its first run");
                *refused += group_refused;
                *cursor = Some(Candidate {
                    slot: h.slot(run.end - 1),
                    key: *key,
                });
                if !group.is_empty() {
                    sort_entries(&mut group);
                    return Some(group);
                }
            }
            if h.complete {
                return None;
            }
            head = self.pairs.extend(q.class, &self.usable);
        }
    }

    /// The consumption-policy slots that are candidates of a request now.
    fn consumption_candidates(&mut self, q: &Search, refused: &mut u32) -> Vec<Entry> {
        let (class, rep) = (q.class, &q.rep);
        self.prefetch_cp_states(class, rep);
        let mut entries = Vec::new();
        for i in 0..self.consumption_slots.len() {
            let slot = self.consumption_slots[i];
            if !self.available[slot] || !self.matches_now(class, rep, slot) {
                continue;
            }
            let key = self.cp_state(class, rep, slot).key;
            if let Some(e) = self.consider(q, slot, key, refused) {
                entries.push(e);
            }
        }
        entries
    }

    /// Every candidate of a request among the slots left, in scan order, with
    /// how many the submitter limit refused.
    fn candidates(&mut self, q: &Search) -> (Vec<Entry>, u32) {
        let (class, rep, l) = (q.class, &q.rep, &q.limits);
        let mut entries = Vec::new();
        let mut refused = 0u32;
        if let Some(order) = self.static_order.clone() {
            let mut allocated = 0.0;
            for slot in order {
                let slot = slot as usize;
                if !self.available[slot] || !self.matches_now(class, rep, slot) {
                    continue;
                }
                let (pre, post) = self.static_ranks[slot];
                let key = RankKey {
                    pre,
                    rank: 1.0,
                    post,
                };
                if let Some(mut e) = self.consider(q, slot, key, &mut refused) {
                    e.preempt_rank = NO_PREEMPTION_RANK;
                    entries.push(e);
                    // HTCondor's `LookupFloat(SlotWeight)`, 1 when not a number; a
                    // consumption-policy slot's as it is now.
                    allocated += if self.slots.consumption[slot] {
                        crate::engine::eval_attr_once(&self.ads[slot], "SlotWeight", None)
                            .ok()
                            .and_then(|v| v.as_f64_promoted())
                            .unwrap_or(1.0)
                    } else {
                        self.slots.raw_weight[slot]
                    };
                    if allocated > l.limit {
                        break;
                    }
                }
            }
            return (entries, refused);
        }
        let whole = self.pairs.whole(class, &self.usable);
        for c in whole.from(0) {
            let slot = c.slot as usize;
            if !self.available[slot] || self.slots.consumption[slot] {
                continue;
            }
            if let Some(e) = self.consider(q, slot, c.key, &mut refused) {
                entries.push(e);
            }
        }
        let cp = self.consumption_candidates(q, &mut refused);
        entries.extend(cp);
        (entries, refused)
    }

    /// True when the request matches the slot as it is now: for a
    /// consumption-policy slot, the slot holds what the job consumes and matches
    /// the job with its requests replaced by that.
    fn matches_now(&mut self, class: u32, rep: &Arc<ClassAd>, slot: usize) -> bool {
        if self.slots.consumption[slot] {
            self.cp_state(class, rep, slot).matches
        } else {
            self.pairs.matches(class, slot as u32)
        }
    }

    /// One matching slot as a candidate (section 6 and 8): its preemption state,
    /// the limit test, its preemption rank.
    fn consider(
        &mut self,
        q: &Search,
        slot: usize,
        key: RankKey,
        refused: &mut u32,
    ) -> Option<Entry> {
        let (s, class, rep, l, only_rank) = (q.submitter, q.class, &q.rep, &q.limits, q.only_rank);
        let remote = match self.runs_on[slot] {
            UNCLAIMED => None,
            _ if !self.knobs.consider_preemption => None,
            user => Some(user),
        };
        // The tests run in HTCondor's order, each only when the outcome needs it.
        let state = if only_rank {
            remote?;
            if !self.test(Test::RankPreferred, class, rep, slot) {
                return None;
            }
            PreemptState::Rank
        } else if let Some(r) = remote {
            if self.test(Test::RankPreferred, class, rep, slot) {
                PreemptState::Rank
            } else if r as usize != s {
                if !self.test(Test::Requirements, class, rep, slot)
                    || !self.test(Test::RankAtLeast, class, rep, slot)
                {
                    return None;
                }
                PreemptState::Prio
            } else {
                return None;
            }
        } else {
            PreemptState::None
        };
        let permitted = match state {
            PreemptState::Prio => self.permits(slot, class, rep, l.used, l.limit),
            PreemptState::None => self.permits(slot, class, rep, l.used_unclaimed, l.unclaimed),
            PreemptState::Rank => true,
        };
        if !permitted {
            *refused += 1;
            return None;
        }
        if self.slot_limits_refuse(class, rep, slot) {
            return None;
        }
        Some(Entry {
            slot: slot as u32,
            key,
            state,
            preempt_rank: if state == PreemptState::None {
                NO_PREEMPTION_RANK
            } else if self.slots.consumption[slot] {
                evaluate_rank(&self.ads[slot], rep, &self.knobs.policy)
            } else {
                let ad = &self.ads[slot];
                self.pairs
                    .preemption_rank(class, slot as u32, ad, rep, &self.knobs.policy)
            },
        })
    }

    /// A preemption test of `slot` for the request of `class`: shared among
    /// classes for a slot as it was given, evaluated each time for a
    /// consumption-policy slot (which changes).
    fn test(&mut self, which: Test, class: u32, rep: &Arc<ClassAd>, slot: usize) -> bool {
        let (ad, policy) = (&self.ads[slot], &self.knobs.policy);
        if self.slots.consumption[slot] {
            evaluate_test(which, ad, rep, policy)
        } else {
            self.pairs.test(which, class, slot as u32, ad, rep, policy)
        }
    }
}
