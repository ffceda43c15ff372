//! The cycle itself (negotiator.md sections 2, 3 and 5): pie spins over the
//! submitters and each submitter's turn over its requests; the choice of a slot
//! for a request is in [`choose`].

use super::accountant::{effective_priority, Accountant};
use super::concurrency_limits::{limits_against, JobLimits, LimitCounts};
use super::consumption;
use super::jobs::{request_order, JobFacts, QueueFacts};
use super::knobs::CycleKnobs;
use super::matchlist::{
    sort_entries, Entry, LazyList, MatchList, PreemptState, NO_PREEMPTION_RANK,
};
use super::offers::{Offer, Offers};
use super::pairs::{evaluate_rank, evaluate_test, ClassPairs, Test};
use super::priorities::Priorities;
use super::report::{
    CycleMatch, CycleOutcome, LimitUse, SubmitterReport, Unmatched, UnmatchedJobs,
};
use super::slots::SlotTable;
use crate::ad::ClassAd;
use crate::engine::{eval_attr_once, eval_once};
use crate::matching::batch::RankKey;
use crate::matching::{negotiator_key, Autoclusters};
use rayon::prelude::*;
use std::sync::Arc;

mod choose;
mod cp_memo;

use cp_memo::{CpMemo, CpState};

/// How a turn ended (HTCondor's `MM_DONE` and `MM_RESUME`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Turn {
    /// The submitter got what it asked for: it leaves the pie.
    Done,
    /// It stopped at its limit: it stays for the next spin.
    Resume,
}

/// How a submitter's last turn left its jobs, for the unmatched report.
#[derive(Clone, Debug, Default)]
struct LastTurn {
    had_turn: bool,
    limited: bool,
    rejected: ahash::AHashSet<u32>,
    /// Autoclusters rejected only while the submitter was past its limit (when
    /// only slots whose Rank prefers the job were candidates).
    rejected_past_limit: ahash::AHashSet<u32>,
    /// Autoclusters rejected where a concurrency limit refused some candidate.
    rejected_for_limits: ahash::AHashSet<u32>,
    /// The submitter's ceiling stopped the turn or kept it from starting.
    ceiling: bool,
}

/// One submitter of the cycle.
struct Submitter {
    name: Arc<str>,
    priority: f64,
    group: usize,
    /// Idle jobs, before `NEGOTIATOR_JOB_CONSTRAINT`.
    idle: u64,
    /// The best `JobPrio` of its idle jobs.
    best_prio: i64,
    /// Its idle jobs' weights as group demand (section 4(a)).
    idle_weight: f64,
    /// Its idle jobs that pass the constraint, in request order.
    jobs: Vec<u32>,
    /// Those jobs cut into runs of one autocluster: (autocluster, start, end)
    /// in `jobs`.
    runs: Vec<(u32, u32, u32)>,
    /// Per run, how many of its jobs are taken (always a prefix).
    taken: Vec<u32>,
    starvation: f64,
    matches: u64,
    last: LastTurn,
    /// Its floor (`Accountant::GetFloor`; 0 for none).
    floor: f64,
    /// Its ceiling (`Accountant::GetCeiling`; `None` for none).
    ceiling: Option<i64>,
}

/// A request of a turn: consecutive runs of one autocluster.
struct Request {
    autocluster: u32,
    /// The class of its first job, which stands for the request.
    class: u32,
    /// The runs it is made of.
    runs: std::ops::Range<usize>,
    count: u32,
}

/// The limits of one turn (HTCondor's `submitterLimit` and
/// `submitterLimitUnclaimed`) and what the turn has used of them.
#[derive(Clone, Copy, Debug)]
struct Limits {
    limit: f64,
    unclaimed: f64,
    used: f64,
    used_unclaimed: f64,
}

/// What bounds a turn: the submitter's limits, what its ceiling leaves it,
/// and whether past the limit it goes on for slots whose Rank prefers its jobs
/// (the first spin, with preemption).
#[derive(Clone, Copy, Debug)]
struct TurnBounds {
    limits: Limits,
    ceiling: f64,
    ignore_limit: bool,
}

/// A match list, made whole or read as needed.
enum Candidates {
    /// Made whole (`NEGOTIATOR_IGNORE_JOB_RANKS`, whose scan stops at the
    /// submitter's limit).
    Whole(MatchList),
    /// Read as needed from the class's sorted candidates.
    Lazy(LazyList),
}

/// What a request's candidates are sought with: the submitter, the class that
/// stands for the request and its representative, the limits at the time, and
/// whether only slots whose Rank prefers the job count (past the limit).
#[derive(Clone)]
struct Search {
    submitter: usize,
    class: u32,
    rep: Arc<ClassAd>,
    limits: Limits,
    only_rank: bool,
}

/// The live match list and what it was made for.
struct LiveList {
    list: Candidates,
    autocluster: u32,
    /// The search it was made by (a lazy list reads on with it).
    search: Search,
}

impl LiveList {
    /// The count of candidates the submitter limit refused.
    fn refused_mut(&mut self) -> &mut u32 {
        match &mut self.list {
            Candidates::Whole(l) => &mut l.refused_by_limit,
            Candidates::Lazy(l) => &mut l.refused_by_limit,
        }
    }
}

/// The state of a cycle.
pub(super) struct Cycle<'a> {
    knobs: &'a CycleKnobs,
    facts: &'a [JobFacts],
    clusters: &'a Autoclusters,
    slots: &'a SlotTable,
    pairs: ClassPairs,
    /// Per slot, its ad now (a consumption-policy slot changes as it is used).
    ads: Vec<Arc<ClassAd>>,
    available: Vec<bool>,
    available_count: usize,
    /// Per block of 64 slots, those available without a consumption policy:
    /// the slots a class's head may hold.
    usable: Vec<u64>,
    /// The slots with a consumption policy.
    consumption_slots: Vec<usize>,
    /// Per slot, how many times a consumption policy changed it.
    cp_version: Vec<u32>,
    /// What consumption-policy slots offer classes, by (class, slot).
    cp_memo: CpMemo,
    /// What is shared among the offers of consumption-policy slots.
    offers: Offers,
    /// Per slot, who runs on it: a submitter's index in `submitters`,
    /// [`ANOTHER_USER`] or [`UNCLAIMED`]. A candidate's preemption state is
    /// told by one number rather than by the user's name, read where it is
    /// held (at 400,000 slots those two reads were most of a candidate's cost).
    runs_on: Vec<u32>,
    /// With `NEGOTIATOR_IGNORE_JOB_RANKS`: the slots by (PRE, POST) and their
    /// values against an empty job.
    static_order: Option<Vec<u32>>,
    static_ranks: Vec<(f64, f64)>,
    submitters: Vec<Submitter>,
    /// Per submitter number of the facts, its index in `submitters`.
    by_id: Vec<u32>,
    accountant: Accountant,
    list: Option<LiveList>,
    pool_size: f64,
    min_weight: f64,
    out: CycleOutcome,
    /// The first turn of each submitter, in order.
    turn_order: Vec<usize>,
    /// The concurrency limits in use (section 15), and as the cycle began.
    limit_counts: LimitCounts,
    limits_before: LimitCounts,
    /// Per class, what its `ConcurrencyLimits` is, once a request of it came
    /// (read for every candidate the search considers).
    class_limits: Vec<Option<JobLimits>>,
    /// A concurrency limit refused a candidate during this search.
    refused_for_limits: bool,
}

/// In [`Cycle::runs_on`]: the slot runs a job of a user with no request in
/// this cycle.
const ANOTHER_USER: u32 = u32::MAX - 1;

/// In [`Cycle::runs_on`]: the slot runs nothing.
const UNCLAIMED: u32 = u32::MAX;

/// What a request's search for a slot found.
struct Found {
    entry: Option<Entry>,
    refused_by_limit: u32,
    /// A concurrency limit refused the request or some candidate.
    refused_for_limits: bool,
}

impl<'a> Cycle<'a> {
    /// Sets up a cycle: submitters from the jobs, their priorities and usage, the
    /// slots' availability after the trim.
    pub(super) fn new(
        knobs: &'a CycleKnobs,
        priorities: &Priorities,
        slots: &'a SlotTable,
        facts: &'a QueueFacts,
        clusters: &'a Autoclusters,
        pairs: ClassPairs,
    ) -> Cycle<'a> {
        let all_names = facts.submitters.names();
        let facts = &facts.jobs[..];
        // Submitters in the order of their first job.
        let mut by_id = vec![u32::MAX; all_names.len()];
        let mut submitters: Vec<Submitter> = Vec::new();
        for (j, f) in facts.iter().enumerate() {
            let Some(id) = f.submitter else { continue };
            let mut s = by_id[id.index()] as usize;
            if s == u32::MAX as usize {
                let name = &all_names[id.index()];
                s = submitters.len();
                by_id[id.index()] = s as u32;
                submitters.push(Submitter {
                    name: name.clone(),
                    priority: effective_priority(name, priorities, knobs),
                    group: knobs.group_of(name).unwrap_or(knobs.groups.len()),
                    idle: 0,
                    best_prio: i64::MIN,
                    idle_weight: 0.0,
                    jobs: Vec::new(),
                    runs: Vec::new(),
                    taken: Vec::new(),
                    starvation: f64::MAX,
                    matches: 0,
                    last: LastTurn::default(),
                    floor: floor_of(name, priorities),
                    ceiling: ceiling_of(name, priorities),
                });
            }
            if f.idle {
                let sub = &mut submitters[s];
                sub.idle += 1;
                sub.best_prio = sub.best_prio.max(f.prio);
                sub.idle_weight += if knobs.use_slot_weights {
                    f.weight
                } else {
                    1.0
                };
                if f.passes_constraint {
                    sub.jobs.push(j as u32);
                }
            }
        }
        submitters.par_iter_mut().for_each(|sub| {
            request_order(&mut sub.jobs, facts);
            for (i, &j) in sub.jobs.iter().enumerate() {
                let a = clusters.cluster_of(j as usize);
                match sub.runs.last_mut() {
                    Some((last, _, end)) if *last == a => *end = i as u32 + 1,
                    _ => sub.runs.push((a, i as u32, i as u32 + 1)),
                }
            }
            sub.taken = vec![0; sub.runs.len()];
        });
        let names: Vec<&str> = submitters.iter().map(|s| &*s.name).collect();
        let accountant = Accountant::new(&names, priorities, knobs);
        let index: ahash::AHashMap<&str, u32> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (*n, i as u32))
            .collect();
        let runs_on = slots
            .remote_user
            .iter()
            .map(|r| match r {
                Some(r) => index.get(&**r).copied().unwrap_or(ANOTHER_USER),
                None => UNCLAIMED,
            })
            .collect();
        let available: Vec<bool> = slots.trimmed.iter().map(|t| !t).collect();
        let available_count = available.iter().filter(|a| **a).count();
        let mut usable = vec![0u64; slots.len().div_ceil(64)];
        for (s, &a) in available.iter().enumerate() {
            if a && !slots.consumption[s] {
                usable[s / 64] |= 1 << (s % 64);
            }
        }
        let consumption_slots: Vec<usize> =
            (0..slots.len()).filter(|&s| slots.consumption[s]).collect();
        let cp_memo = CpMemo::new(&consumption_slots, slots.len());
        let limits_in_use = LimitCounts::in_use(&slots.ads);
        let mut cycle = Cycle {
            knobs,
            facts,
            clusters,
            slots,
            pairs,
            ads: slots.ads.clone(),
            available,
            available_count,
            usable,
            consumption_slots,
            cp_version: vec![0; slots.len()],
            cp_memo,
            offers: Offers::new(slots.len()),
            runs_on,
            static_order: None,
            static_ranks: Vec::new(),
            submitters,
            by_id,
            accountant,
            list: None,
            pool_size: if knobs.use_slot_weights {
                slots.pool_size()
            } else {
                slots.len() as f64
            },
            min_weight: slots.min_weight(),
            out: CycleOutcome::default(),
            turn_order: Vec::new(),
            limit_counts: limits_in_use.clone(),
            limits_before: limits_in_use,
            class_limits: vec![None; clusters.class_count()],
            refused_for_limits: false,
        };
        cycle.out.stats.total_slots = slots.len() as u64;
        cycle.out.stats.trimmed_slots = available_count as u64;
        cycle.out.stats.candidate_slots = available_count as u64;
        // A priorities line that finds no submitter, of a job or of a slot's
        // claim, changes nothing: said, not passed over in silence. (The
        // submitters of the jobs there are, not every name the facts were
        // numbered with: a living pool's names include those of jobs gone.)
        let claims = slots.remote_user.iter().flatten().map(|r| &**r);
        let submitters = cycle.submitters.iter().map(|s| &*s.name);
        cycle.out.unfound_priorities = priorities.unfound(submitters.chain(claims));
        cycle.out.stats.priority_lines_without_submitter =
            cycle.out.unfound_priorities.len() as u64;
        if knobs.ignore_job_ranks {
            cycle.sort_slots_statically();
        }
        cycle
    }

    /// `NEGOTIATOR_IGNORE_JOB_RANKS`: PRE and POST of every slot against an empty
    /// job, and the slots sorted by them (ties in file order).
    fn sort_slots_statically(&mut self) {
        let empty = Arc::new(ClassAd::new());
        let p = &self.knobs.policy;
        self.static_ranks = self
            .ads
            .iter()
            .map(|slot| {
                let key = negotiator_key(&empty, slot, p);
                (key.pre, key.post)
            })
            .collect();
        let mut order: Vec<u32> = (0..self.ads.len() as u32)
            .filter(|&s| self.available[s as usize])
            .collect();
        let norm = |x: f64| if x.is_nan() { f64::NEG_INFINITY } else { x };
        order.sort_by(|&a, &b| {
            let (ra, rb) = (self.static_ranks[a as usize], self.static_ranks[b as usize]);
            norm(rb.0)
                .total_cmp(&norm(ra.0))
                .then(norm(rb.1).total_cmp(&norm(ra.1)))
                .then(a.cmp(&b))
        });
        self.static_order = Some(order);
    }

    /// Runs the cycle: without groups (section 2 step 5), one round over every
    /// submitter with the pool as quota.
    pub(super) fn run(mut self) -> CycleOutcome {
        let mut all: Vec<usize> = (0..self.submitters.len()).collect();
        if self.knobs.groups.is_empty() {
            self.round(&mut all, None, f64::from(i32::MAX));
        } else {
            super::groups::negotiate_groups(&mut self);
        }
        self.finish()
    }

    /// The cycle's knobs.
    pub(super) fn knobs(&self) -> &'a CycleKnobs {
        self.knobs
    }

    /// The name of group `g` (`<none>` for `groups.len()`).
    pub(super) fn group_name(&self, g: usize) -> Arc<str> {
        Arc::from(
            self.knobs
                .groups
                .get(g)
                .map_or("<none>", |k| k.name.as_str()),
        )
    }

    /// How many submitters there are.
    pub(super) fn submitter_count(&self) -> usize {
        self.submitters.len()
    }

    /// The slots of the cycle.
    pub(super) fn slots(&self) -> &SlotTable {
        self.slots
    }

    /// The pool size (sum of weights, or slots with weights off).
    pub(super) fn pool_size(&self) -> f64 {
        self.pool_size
    }

    /// The submitters' groups (`groups.len()` for `<none>`).
    pub(super) fn submitter_group(&self, s: usize) -> usize {
        self.submitters[s].group
    }

    /// The weighted demand of a submitter (section 4(a)): its usage and its idle
    /// jobs' weights.
    pub(super) fn submitter_demand(&self, s: usize) -> f64 {
        self.accountant.usage[s] + self.submitters[s].idle_weight
    }

    /// A group's usage now.
    pub(super) fn group_usage(&self, g: usize) -> f64 {
        self.accountant.group_usage[g]
    }

    /// Counts a call of the pie spins into the statistics as HTCondor counts
    /// candidate slots with groups (the pool size).
    pub(super) fn set_candidate_slots(&mut self, n: u64) {
        self.out.stats.candidate_slots = n;
    }

    /// The negotiation of one group (of the pool, without groups) as
    /// `negotiationTime` and the group callback of `hgq_negotiate_with_all_groups`
    /// run it (section 16): a floor round among the submitters below their
    /// floor (`findBelowFloorSubmitters`), then the pie spins over all of them.
    pub(super) fn round(&mut self, subs: &mut Vec<usize>, group: Option<usize>, quota: f64) {
        let mut below: Vec<usize> = subs
            .iter()
            .copied()
            .filter(|&s| {
                let floor = self.submitters[s].floor;
                floor > 0.0 && self.accountant.usage[s] < floor
            })
            .collect();
        if !below.is_empty() {
            self.out.stats.floor_rounds += 1;
            self.pie_spins(&mut below, group, quota, true);
        }
        self.pie_spins(subs, group, quota, false);
    }

    /// How much more submitter `s` may take before its ceiling (section 16):
    /// `GetCeiling` less the integer part of its usage, at least 0, or
    /// `INT_MAX` without a ceiling.
    fn ceiling_left(&self, s: usize) -> f64 {
        match self.submitters[s].ceiling {
            None => f64::from(i32::MAX),
            Some(c) => (c - self.accountant.usage[s].trunc() as i64).max(0) as f64,
        }
    }

    /// HTCondor's `negotiateWithGroup`: pie spins over `subs` with `quota` as the
    /// pool (section 3), each limit no more than the floor in a floor round
    /// (section 16). `group` is `None` without groups.
    fn pie_spins(
        &mut self,
        subs: &mut Vec<usize>,
        group: Option<usize>,
        quota: f64,
        floor_round: bool,
    ) {
        let k = self.knobs;
        self.out.stats.pies += 1;
        let mut spin = 0u32;
        loop {
            spin += 1;
            self.out.stats.pie_spins += 1;
            let ignore_limit = spin == 1 && k.consider_preemption;
            let group_usage = group.map_or(0.0, |g| self.accountant.group_usage[g]);
            if !ignore_limit && group.is_some() && group_usage >= quota {
                break;
            }
            self.list = None;
            if !k.consider_preemption {
                subs.retain(|&s| self.submitters[s].idle > 0);
            }
            let (max_prio, normal) = self.normalization(subs);
            let total = self.pool_size.min(quota);
            let mut pie_left = 0.0;
            for &s in subs.iter() {
                // calculatePieLeft: limits as outside a floor round.
                let l = self.limits(s, group, quota, group_usage, max_prio, normal, total, false);
                let usage = self.accountant.usage[s];
                let share = usage + l.limit;
                self.submitters[s].starvation = if share > 0.0 {
                    usage / share
                } else {
                    f32::MAX as f64
                };
                pie_left += l.limit;
            }
            if !k.consider_preemption && pie_left <= 0.0 {
                break;
            }
            if spin == 1 {
                let t = std::time::Instant::now();
                self.sort_submitters(subs);
                self.out.stats.phase_durations[2] += t.elapsed().as_secs_f64();
            }
            let (pie_orig, count_orig) = (pie_left, subs.len());
            // The submitters left for the next spin are gathered as the turns
            // end (one pass; removing each one done from the middle of the list
            // cost a pass per submitter).
            let spin_order = std::mem::take(subs);
            let mut turns_taken = 0;
            for &s in &spin_order {
                if !ignore_limit {
                    if let Some(g) = group {
                        if self.accountant.group_usage[g] >= quota {
                            break;
                        }
                    }
                }
                turns_taken += 1;
                let mut l = self.limits(
                    s,
                    group,
                    quota,
                    group_usage,
                    max_prio,
                    normal,
                    total,
                    floor_round,
                );
                if l.limit > pie_left {
                    l.limit = pie_left;
                }
                let ceiling = self.ceiling_left(s);
                let result = if self.submitters[s].idle == 0 {
                    Turn::Done
                } else if (l.limit < self.min_weight || pie_left < self.min_weight) && spin > 1 {
                    Turn::Resume
                } else if ceiling == 0.0 || ceiling < self.min_weight {
                    self.submitters[s].last.ceiling = true;
                    Turn::Done
                } else {
                    // A submitter has had a turn exactly when it is in the
                    // turn order (every turn ends in `end_turn`).
                    if !self.submitters[s].last.had_turn {
                        self.turn_order.push(s);
                        self.out.stats.active_submitters += 1;
                        self.out.stats.num_idle_jobs += self.submitters[s].idle;
                    }
                    let turn = TurnBounds {
                        limits: l,
                        ceiling,
                        ignore_limit,
                    };
                    self.negotiate(s, turn, &mut pie_left, spin, group)
                };
                if result == Turn::Resume {
                    subs.push(s);
                }
            }
            subs.extend_from_slice(&spin_order[turns_taken..]);
            let progressed = pie_left < pie_orig || subs.len() < count_orig;
            // A floor round spins the pie once (the loop's `!isFloorRound`).
            if !(progressed && !subs.is_empty() && self.available_count > 0) || floor_round {
                break;
            }
        }
    }

    /// HTCondor's `calculateNormalizationFactor`: the largest effective priority,
    /// and the sum over submitters of it divided by theirs.
    fn normalization(&self, subs: &[usize]) -> (f64, f64) {
        let max = subs
            .iter()
            .map(|&s| self.submitters[s].priority)
            .fold(f64::MIN_POSITIVE, f64::max);
        let normal = subs
            .iter()
            .map(|&s| max / self.submitters[s].priority)
            .sum();
        (max, normal)
    }

    /// HTCondor's `calculateSubmitterLimit` (section 3 step 3; in a floor
    /// round, section 16). Group quota and usage are single precision there,
    /// and so here.
    #[allow(clippy::too_many_arguments)]
    fn limits(
        &self,
        s: usize,
        group: Option<usize>,
        quota: f64,
        group_usage: f64,
        max_prio: f64,
        normal: f64,
        total: f64,
        floor_round: bool,
    ) -> Limits {
        let sub = &self.submitters[s];
        let usage = self.accountant.usage[s];
        let share = max_prio / (sub.priority * normal);
        let mut limit = if self.knobs.ignore_user_priorities {
            f64::MAX
        } else {
            share * total - usage
        };
        if limit < 0.0 {
            limit = 0.0;
        }
        let mut unclaimed = limit;
        if group.is_some() {
            let mut allowed = quota as f32 - group_usage as f32;
            if allowed < 0.0 {
                allowed = 0.0;
            }
            if unclaimed > f64::from(allowed) {
                unclaimed = f64::from(allowed);
            }
        }
        if !self.knobs.consider_preemption {
            limit = unclaimed;
        }
        if floor_round {
            limit = limit.min(sub.floor);
        }
        Limits {
            limit,
            unclaimed,
            used: 0.0,
            used_unclaimed: 0.0,
        }
    }

    /// The first spin's order of submitters (section 3 step 5).
    fn sort_submitters(&self, subs: &mut [usize]) {
        let global = self.knobs.use_global_job_prios;
        subs.sort_by(|&a, &b| {
            let (x, y) = (&self.submitters[a], &self.submitters[b]);
            x.priority
                .total_cmp(&y.priority)
                .then(if global {
                    y.best_prio.cmp(&x.best_prio)
                } else {
                    std::cmp::Ordering::Equal
                })
                .then(x.starvation.total_cmp(&y.starvation))
                .then(x.name.cmp(&y.name))
        });
    }

    /// The requests of a submitter's turn: its runs with jobs left, consecutive
    /// runs of one autocluster merged.
    fn requests(&self, s: usize) -> Vec<Request> {
        let sub = &self.submitters[s];
        let mut out: Vec<Request> = Vec::new();
        for (r, (&(a, start, end), &taken)) in sub.runs.iter().zip(&sub.taken).enumerate() {
            let left = end - start - taken;
            if left == 0 {
                continue;
            }
            match out.last_mut() {
                Some(req) if req.autocluster == a => {
                    req.runs.end = r + 1;
                    req.count += left;
                }
                _ => out.push(Request {
                    autocluster: a,
                    class: self
                        .clusters
                        .class_of(sub.jobs[(start + taken) as usize] as usize),
                    runs: r..r + 1,
                    count: left,
                }),
            }
        }
        out
    }

    /// Takes the next job of a request.
    fn take_job(&mut self, s: usize, req: &Request) -> Option<u32> {
        let j = self.next_job(s, req)?;
        let sub = &mut self.submitters[s];
        let r = req
            .runs
            .clone()
            .find(|&r| sub.taken[r] < sub.runs[r].2 - sub.runs[r].1)
            .expect("the run of the next job");
        sub.taken[r] += 1;
        Some(j)
    }

    /// The next job of a request not taken yet.
    fn next_job(&self, s: usize, req: &Request) -> Option<u32> {
        let sub = &self.submitters[s];
        req.runs.clone().find_map(|r| {
            let (_, start, end) = sub.runs[r];
            let at = start + sub.taken[r];
            (at < end).then(|| sub.jobs[at as usize])
        })
    }

    /// True for a partitionable slot without a consumption policy.
    fn is_partitionable(&self, slot: usize) -> bool {
        !self.slots.consumption[slot]
            && matches!(
                eval_attr_once(&self.ads[slot], "PartitionableSlot", None),
                Ok(classad_vm::Value::Bool(true))
            )
    }

    /// `--schedd-packing` (section 7.1): the further jobs of the request, in order,
    /// the schedd would start on what `job` leaves of partitionable `slot`, while
    /// every resource suffices and the slot's Requirements still accept them. They
    /// leave the queue (the schedd runs them).
    fn pack_leftovers(&mut self, s: usize, req: &Request, job: u32, slot: usize) -> Vec<u32> {
        let rep = |j: u32| {
            self.clusters
                .representative(self.clusters.class_of(j as usize))
                .clone()
        };
        let mut left = super::packing::Leftovers::after(&self.ads[slot], &rep(job));
        let mut packed = Vec::new();
        while let Some(next) = self.next_job(s, req) {
            if !left.take(&rep(next)) {
                break;
            }
            self.take_job(s, req);
            packed.push(next);
        }
        packed
    }

    /// One submitter's turn (HTCondor's `negotiate`, section 5).
    fn negotiate(
        &mut self,
        s: usize,
        turn: TurnBounds,
        pie_left: &mut f64,
        spin: u32,
        group: Option<usize>,
    ) -> Turn {
        let TurnBounds {
            limits: mut l,
            ceiling,
            ignore_limit,
        } = turn;
        let requests = self.requests(s);
        let mut rejected: ahash::AHashSet<u32> = ahash::AHashSet::new();
        let mut past_limit: ahash::AHashSet<u32> = ahash::AHashSet::new();
        let mut for_limits: ahash::AHashSet<u32> = ahash::AHashSet::new();
        let mut limited = false;
        let mut hit_ceiling = false;
        let (mut next, mut cur) = (0usize, None::<usize>);
        let (mut count, mut offers, mut skip) = (0u32, 0u32, 1u32);
        let result = loop {
            let only_rank = if l.used >= l.limit {
                if !ignore_limit {
                    break Turn::Resume;
                }
                true
            } else {
                false
            };
            if l.used >= ceiling {
                hit_ceiling = true;
                break Turn::Resume;
            }
            offers += skip;
            if count <= offers {
                loop {
                    let Some(req) = requests.get(next) else {
                        let at_limit = l.used >= l.limit || limited;
                        self.end_turn(s, at_limit, [rejected, past_limit, for_limits]);
                        return if at_limit { Turn::Resume } else { Turn::Done };
                    };
                    next += 1;
                    if !rejected.contains(&req.autocluster) {
                        cur = Some(next - 1);
                        break;
                    }
                }
                offers = 0;
                count = requests[cur.expect("a request")].count;
            }
            let req = &requests[cur.expect("a request")];
            self.out.stats.num_jobs_considered += 1;
            let found = self.find_slot(s, req, &l, only_rank);
            let Some(entry) = found.entry else {
                self.out.stats.rejections += 1;
                if found.refused_by_limit > 0 {
                    limited = true;
                }
                count = 0;
                skip = 1;
                rejected.insert(req.autocluster);
                if only_rank {
                    past_limit.insert(req.autocluster);
                }
                if found.refused_for_limits {
                    for_limits.insert(req.autocluster);
                }
                if found.refused_by_limit > 0
                    && !self.knobs.consider_preemption
                    && !self.knobs.use_slot_weights
                {
                    break Turn::Resume;
                }
                continue;
            };
            let slot = entry.slot as usize;
            let rep = self.clusters.representative(req.class).clone();
            // matchmakingProtocol's MatchedConcurrencyLimits, against the
            // slot before a consumption policy takes from it; AddMatch counts
            // them.
            if self.class_limits(req.class) != &JobLimits::None {
                if let Some(list) = limits_against(&rep, &self.ads[slot]) {
                    self.limit_counts.add(&list);
                }
            }
            let cost = if self.slots.consumption[slot] {
                let c = self.offers.consumption(req.class, &rep, slot, &self.ads);
                let (cost, after) = consumption::cost(&self.ads[slot], &c);
                self.ads[slot] = after;
                self.cp_version[slot] += 1;
                self.offers.changed(slot);
                self.put_back(req, &rep, slot);
                cost
            } else {
                self.available[slot] = false;
                self.usable[slot / 64] &= !(1 << (slot % 64));
                self.available_count -= 1;
                self.slots.weight[slot]
            };
            let job = self
                .take_job(s, req)
                .expect("a request's count is its jobs");
            let mut packed = Vec::new();
            if self.knobs.depth_first {
                skip = jobs_in_slot(&rep, &self.ads[slot]).max(1);
                for _ in 1..skip.min(count - offers) {
                    if let Some(p) = self.take_job(s, req) {
                        packed.push(p);
                    }
                }
            } else if self.knobs.schedd_packing {
                // The packed jobs count against the request as matched ones do.
                if self.is_partitionable(slot) {
                    packed = self.pack_leftovers(s, req, job, slot);
                }
                skip = 1 + packed.len() as u32;
            }
            let g = self.submitters[s].group;
            self.accountant.charge(s, g, cost);
            l.used += cost;
            if self.slots.remote_user[slot].is_none() {
                l.used_unclaimed += cost;
            }
            *pie_left -= cost;
            self.out.stats.matches += 1;
            self.submitters[s].matches += 1;
            self.out.matches.push(CycleMatch {
                job,
                slot: self.slots.file_index[slot],
                submitter: self.submitters[s].name.clone(),
                autocluster: req.autocluster,
                key: entry.key,
                preempt: entry.state,
                cost,
                spin,
                group: group.map(|g| self.group_name(g)),
                packed,
            });
        };
        self.end_turn(s, true, [rejected, past_limit, for_limits]);
        self.submitters[s].last.ceiling = hit_ceiling;
        result
    }

    /// What class `class`'s `ConcurrencyLimits` is, worked out once.
    pub(super) fn class_limits(&mut self, class: u32) -> &JobLimits {
        let clusters = self.clusters;
        self.class_limits[class as usize]
            .get_or_insert_with(|| JobLimits::of(clusters.representative(class)))
    }

    /// Keeps how a turn left the submitter's jobs: `at_limit` when it ended at the
    /// submitter's limit; the autoclusters rejected, those rejected past the
    /// limit, and those where a concurrency limit refused some candidate.
    fn end_turn(&mut self, s: usize, at_limit: bool, sets: [ahash::AHashSet<u32>; 3]) {
        let [rejected, past_limit, for_limits] = sets;
        let last = &mut self.submitters[s].last;
        last.had_turn = true;
        last.limited = at_limit;
        last.rejected = rejected;
        last.rejected_past_limit = past_limit;
        last.rejected_for_limits = for_limits;
        last.ceiling = false;
    }

    /// The outcome: the unmatched jobs with why, the submitters, the statistics.
    /// Why submitter `s`'s idle job of autocluster `a`, which passes the job
    /// constraint, got no slot.
    fn unmatched_reason(&self, s: usize, a: u32) -> Unmatched {
        let last = &self.submitters[s].last;
        if last.rejected_for_limits.contains(&a) {
            // matchmakingAlgorithm's diagnostics put a concurrency limit
            // before preemption policy, priority and the submitter limit.
            Unmatched::ConcurrencyLimit
        } else if last.ceiling && !last.rejected.contains(&a) {
            Unmatched::SubmitterCeiling
        } else if !last.had_turn {
            Unmatched::NotReached
        } else if last.rejected_past_limit.contains(&a) {
            Unmatched::SubmitterLimit
        } else if last.rejected.contains(&a) {
            Unmatched::RejectedAutocluster
        } else if last.limited {
            Unmatched::SubmitterLimit
        } else {
            Unmatched::NotReached
        }
    }

    /// The idle jobs of a submitter not among `matched` (sorted), with why.
    fn unmatched_jobs(&self, matched: &[u32]) -> UnmatchedJobs {
        const PART: usize = 1 << 16;
        let parts: Vec<UnmatchedJobs> = self
            .facts
            .par_chunks(PART)
            .enumerate()
            .map(|(p, facts)| {
                let first = p * PART;
                let mut m = matched.partition_point(|&j| (j as usize) < first);
                let mut out = UnmatchedJobs::new();
                // The reason depends only on the submitter and the autocluster
                // (and the job constraint): worked out once per run of jobs
                // alike, not with two set lookups per job of a million.
                let mut last_reason: Option<((u32, u32), Unmatched)> = None;
                for (i, f) in facts.iter().enumerate() {
                    let j = first + i;
                    if !f.idle {
                        continue;
                    }
                    let Some(id) = f.submitter else {
                        out.push(j as u32, Unmatched::NoSubmitter);
                        continue;
                    };
                    while matched.get(m).is_some_and(|&x| (x as usize) < j) {
                        m += 1;
                    }
                    if matched.get(m) == Some(&(j as u32)) {
                        continue;
                    }
                    let why = if !f.passes_constraint {
                        Unmatched::JobConstraint
                    } else {
                        let key = (self.by_id[id.index()], self.clusters.cluster_of(j));
                        match last_reason {
                            Some((k, why)) if k == key => why,
                            _ => {
                                let why = self.unmatched_reason(key.0 as usize, key.1);
                                last_reason = Some((key, why));
                                why
                            }
                        }
                    };
                    out.push(j as u32, why);
                }
                out
            })
            .collect();
        let mut all = UnmatchedJobs::new();
        for p in parts {
            all.append(p);
        }
        all
    }

    fn finish(mut self) -> CycleOutcome {
        self.out.stats.evaluations = self.pairs.evaluations();
        self.out.stats.heads_made = self.pairs.heads_made();
        self.out.stats.policy_evaluations = self.pairs.policy_runs();
        let mut matched: Vec<u32> = Vec::with_capacity(self.out.matches.len());
        for m in &self.out.matches {
            matched.push(m.job);
            matched.extend_from_slice(&m.packed);
        }
        matched.sort_unstable();
        self.out.unmatched = self.unmatched_jobs(&matched);
        let limits = &self.knobs.concurrency_limits;
        self.out.concurrency_limits = self
            .limit_counts
            .iter()
            .map(|(name, after)| LimitUse {
                name: name.to_string(),
                before: self.limits_before.count(name),
                after,
                maximum: limits.maximum(name),
            })
            .collect();
        self.out.stats.jobs_without_submitter =
            self.out.unmatched.count(Unmatched::NoSubmitter) as u64;
        let mut order = self.turn_order.clone();
        let mut rest: Vec<usize> = (0..self.submitters.len())
            .filter(|&s| !self.submitters[s].last.had_turn)
            .collect();
        rest.sort_by(|&a, &b| self.submitters[a].name.cmp(&self.submitters[b].name));
        order.extend(rest);
        let groups = &self.knobs.groups;
        // Each submitter's charges, in one pass over the matches.
        let mut charged_to: ahash::AHashMap<&str, f64> = ahash::AHashMap::new();
        for m in &self.out.matches {
            *charged_to.entry(&*m.submitter).or_insert(0.0) += m.cost;
        }
        self.out.submitters = order
            .into_iter()
            .map(|s| {
                let sub = &self.submitters[s];
                let usage_after = self.accountant.usage[s];
                let charged = charged_to.get(&*sub.name).copied().unwrap_or(0.0);
                SubmitterReport {
                    name: sub.name.clone(),
                    priority: sub.priority,
                    usage_before: usage_after - charged,
                    usage_after,
                    idle_jobs: sub.idle,
                    matches: sub.matches,
                    group: groups.get(sub.group).map(|g| Arc::from(g.name.as_str())),
                }
            })
            .collect();
        // What the cycle held for its search (every class's keys and heads, the
        // slots' ads, what the offers shared) is freed on another thread: the
        // outcome is ready now, and freeing it took 3% of the cycle.
        let Cycle {
            out,
            pairs,
            ads,
            cp_memo,
            offers,
            ..
        } = self;
        rayon::spawn(move || drop((pairs, ads, cp_memo, offers)));
        out
    }
}

/// HTCondor's `jobsInSlot` (`NEGOTIATOR_DEPTH_FIRST`): how many of the request's
/// jobs the slot's leftovers hold, by CPUs and memory.
fn jobs_in_slot(job: &Arc<ClassAd>, slot: &Arc<ClassAd>) -> u32 {
    let int = |ad: &Arc<ClassAd>, name: &str, target: Option<&Arc<ClassAd>>| -> Option<i64> {
        let e = ad.get(name)?;
        match eval_once(&e.to_expr_ref(), ad, target).ok()? {
            classad_vm::Value::Int(i) => Some(i),
            classad_vm::Value::Real(r) => Some(r as i64),
            classad_vm::Value::Bool(b) => Some(b as i64),
            _ => None,
        }
    };
    let cpus = int(slot, "Cpus", None).unwrap_or(1);
    let memory = int(slot, "Memory", None).unwrap_or(1);
    let rc = int(job, "RequestCpus", Some(slot)).unwrap_or(1).max(1);
    let rm = int(job, "RequestMemory", Some(slot)).unwrap_or(1).max(1);
    (cpus / rc).min(memory / rm).clamp(0, i64::from(u32::MAX)) as u32
}

/// Submitter `name`'s floor as `Accountant::GetFloor` reads it: the integer
/// part of `Floor`, 0 when below 1 or unset.
fn floor_of(name: &str, priorities: &Priorities) -> f64 {
    let floor = priorities.get(name).and_then(|e| e.floor).unwrap_or(0.0);
    floor.trunc().max(0.0)
}

/// Submitter `name`'s ceiling as `Accountant::GetCeiling` reads it: the
/// integer part of `Ceiling`, `None` (no ceiling) when negative or unset.
fn ceiling_of(name: &str, priorities: &Priorities) -> Option<i64> {
    let ceiling = priorities.get(name).and_then(|e| e.ceiling)?.trunc();
    (ceiling >= 0.0).then_some(ceiling.min(f64::from(i32::MAX)) as i64)
}
