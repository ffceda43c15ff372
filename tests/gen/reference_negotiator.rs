//! A plain serial negotiator that follows negotiator.md line by line: every
//! (job, slot) pair on the reference evaluator, the match list built from a scan
//! of the whole pool each time, no match classes, no caches of anything but the
//! match list the text describes. The fast cycle (`classad::negotiate`) must make
//! the same matches, in the same order, with the same statistics.
//!
//! Group quotas here are the text's flat static version (section 4): quotas from
//! `GROUP_QUOTA_<g>`, `<none>` the pool less their sum, no surplus; pools with
//! dynamic quotas or surplus are left to hand-made tests.

use classad::ad::ClassAd;
use classad::eval::{eval_attr, eval_in, Semantics};
use classad::matching::batch::{negotiator_rank_value, RankKey};
use classad::matching::policy::policy_expr;
use classad::matching::{negotiator_key, symmetric_match, Autoclusters};
use classad::negotiate::{CycleKnobs, PreemptState, Priorities, Quota};
use classad::syntax::ast::Expr;
use classad::Value;
use std::sync::Arc;

/// One match of the reference cycle.
#[derive(Clone, Debug, PartialEq)]
pub struct RefMatch {
    pub job: u32,
    pub slot: u32,
    pub submitter: String,
    pub cost: f64,
    pub spin: u32,
    pub preempt: PreemptState,
    pub key: RankKey,
    pub packed: Vec<u32>,
}

/// The reference cycle's result.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RefOutcome {
    pub matches: Vec<RefMatch>,
    pub rejections: u64,
    pub considered: u64,
    pub pie_spins: u64,
    pub pies: u64,
}

const SEM: Semantics = Semantics::Htcondor;

fn attr(ad: &Arc<ClassAd>, name: &str) -> Value {
    eval_attr(ad, name, None, SEM).unwrap_or(Value::Error)
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64_promoted()
}

fn string(ad: &Arc<ClassAd>, name: &str) -> Option<String> {
    match attr(ad, name) {
        Value::Str(s) => Some(s.as_str().to_string()),
        _ => None,
    }
}

fn with(ad: &Arc<ClassAd>, name: &str, v: Value) -> Arc<ClassAd> {
    let mut a = (**ad).clone();
    a.insert_expr(name, Expr::literal(v));
    Arc::new(a)
}

fn keep_integers(v: f64) -> Value {
    if v - v.floor() > 0.0 {
        Value::Real(v)
    } else {
        Value::Int(v as i64)
    }
}

/// A slot during the cycle.
struct Slot {
    file: u32,
    ad: Arc<ClassAd>,
    weight: f64,
    user: Option<String>,
    cp: bool,
    gone: bool,
    static_rank: (f64, f64),
}

/// A job.
struct Job {
    ad: Arc<ClassAd>,
    submitter: Option<String>,
    idle: bool,
    prio: i64,
    cluster: i64,
    proc: i64,
    passes: bool,
    autocluster: u32,
    done: bool,
}

struct Sub {
    name: String,
    eup: f64,
    usage: f64,
    idle: u64,
    best_prio: i64,
    starvation: f64,
    group: usize,
    /// Accountant::GetFloor: the integer part, 0 for none.
    floor: f64,
    /// Accountant::GetCeiling: the integer part, -1 for none.
    ceiling: i64,
}

struct Entry {
    slot: usize,
    key: RankKey,
    state: PreemptState,
    prank: f64,
}

fn better(a: &Entry, b: &Entry) -> bool {
    let n = |x: f64| if x.is_nan() { f64::NEG_INFINITY } else { x };
    let fields = [
        (n(a.key.pre), n(b.key.pre)),
        (n(a.key.rank), n(b.key.rank)),
        (n(a.key.post), n(b.key.post)),
        (a.state as u8 as f64, b.state as u8 as f64),
        (n(a.prank), n(b.prank)),
    ];
    for (x, y) in fields {
        if x > y {
            return true;
        }
        if x < y {
            return false;
        }
    }
    false
}

struct List {
    entries: Vec<Entry>,
    head: usize,
    refused: u32,
    autocluster: u32,
    submitter: usize,
    only_rank: bool,
}

/// The reference cycle.
pub struct Reference<'a> {
    knobs: &'a CycleKnobs,
    slots: Vec<Slot>,
    jobs: Vec<Job>,
    subs: Vec<Sub>,
    group_usage: Vec<f64>,
    list: Option<List>,
    out: RefOutcome,
    pool: f64,
    min_weight: f64,
    /// Concurrency limits in use, by name in lower case.
    limits: std::collections::BTreeMap<String, f64>,
}

/// A `ConcurrencyLimits` list's valid tokens, as `ParseConcurrencyLimit`
/// reads them (NegotiationUtils.cpp): `name[:count]`, the name one or two
/// attribute names joined by a dot, the count 1 unless above 0.
fn limit_tokens(list: &str) -> Vec<(String, f64)> {
    let ident = |s: &str| {
        let mut c = s.chars();
        c.next()
            .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
            && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
    };
    let mut out = Vec::new();
    for token in list
        .to_ascii_lowercase()
        .split([',', ' ', '\t', '\r', '\n'])
    {
        if token.is_empty() {
            continue;
        }
        let (name, count) = match token.find(':') {
            Some(i) => {
                let x = classad::c_number::strtod(&token[i + 1..]).unwrap_or(0.0);
                (&token[..i], if x <= 0.0 { 1.0 } else { x })
            }
            None => (token, 1.0),
        };
        let parts: Vec<&str> = name.splitn(2, '.').collect();
        if parts.iter().all(|p| ident(p)) {
            out.push((name.to_string(), count));
        }
    }
    out
}

impl<'a> Reference<'a> {
    pub fn new(
        jobs: &[Arc<ClassAd>],
        slots: &[Arc<ClassAd>],
        knobs: &'a CycleKnobs,
        prios: &Priorities,
    ) -> Reference<'a> {
        let eup = |name: &str| -> f64 {
            let e = prios.get(name);
            let real = e.map_or(0.5, |e| e.real.max(0.5));
            let factor = match e.and_then(|e| e.factor) {
                Some(f) => f.max(1.0),
                None if name.starts_with("nice-user") => knobs.nice_user_prio_factor,
                None => knobs
                    .group_of(name)
                    .and_then(|g| knobs.groups[g].prio_factor)
                    .unwrap_or(knobs.default_prio_factor),
            };
            real * factor
        };
        // Section 1 and 2: the slots that exist, prepared.
        let mut table = Vec::new();
        for (i, s) in slots.iter().enumerate() {
            if let Some(c) = &knobs.slot_constraint {
                let ok = eval_in(c, s, None, SEM).map(|v| v.as_bool_equiv() == Some(true));
                if ok != Ok(true) {
                    continue;
                }
            }
            let mut ad = s.clone();
            if num(&attr(&ad, "SlotWeight")).is_none() {
                let mut a = (*ad).clone();
                a.insert("SlotWeight", knobs.slot_weight.clone());
                ad = Arc::new(a);
            }
            let user = [
                "PreemptingAccountingGroup",
                "PreemptingUser",
                "AccountingGroup",
                "RemoteUser",
            ]
            .iter()
            .find_map(|n| string(&ad, n));
            if knobs.consider_preemption {
                if let Some(u) = &user {
                    ad = with(&ad, "RemoteUserPrio", Value::Real(eup(u) as f32 as f64));
                }
                if let Some(r) = num(&attr(&ad, "PreemptingRank")) {
                    ad = with(&ad, "CurrentRank", Value::Real(r));
                }
            }
            let raw = num(&attr(&ad, "SlotWeight"));
            let weight = match raw {
                Some(w) if knobs.use_slot_weights && w >= 0.0 => w,
                _ => 1.0,
            };
            let state = string(&ad, "State");
            let pslot = matches!(attr(&ad, "PartitionableSlot"), Value::Bool(true));
            let mut gone = if knobs.consider_preemption {
                matches!(attr(&ad, "RetirementTimeRemaining"), Value::Int(r) if r > 0)
            } else {
                matches!(state.as_deref(), Some("Claimed" | "Preempting")) && !pslot
            };
            if pslot && state.as_deref() == Some("Claimed") {
                let want = !matches!(attr(&ad, "WantMatching"), Value::Bool(false));
                let cm = string(&ad, "WorkingCM").unwrap_or_default();
                if !(want && cm.is_empty()) {
                    gone = true;
                }
            }
            let cp = pslot
                && match attr(&ad, "MachineResources") {
                    Value::Str(r) => r
                        .as_str()
                        .split(|c: char| c == ',' || c.is_whitespace())
                        .filter(|r| !r.is_empty() && !r.eq_ignore_ascii_case("swap"))
                        .all(|r| ad.contains(&format!("Consumption{r}"))),
                    _ => false,
                };
            table.push(Slot {
                file: i as u32,
                ad,
                weight,
                user,
                cp,
                gone,
                static_rank: (0.0, 0.0),
            });
        }
        let ads: Vec<Arc<ClassAd>> = table.iter().map(|s| s.ad.clone()).collect();
        let clusters = Autoclusters::new(jobs, &ads, &knobs.policy);
        let mut subs: Vec<Sub> = Vec::new();
        let mut js = Vec::new();
        for (i, j) in jobs.iter().enumerate() {
            let submitter = submitter_of(j, knobs.accounting_domain.as_deref());
            let int = |n: &str| match attr(j, n) {
                Value::Int(i) => i,
                Value::Real(r) => r as i64,
                Value::Bool(b) => b as i64,
                _ => 0,
            };
            let idle = matches!(attr(j, "JobStatus"), Value::Undefined | Value::Int(1))
                || matches!(attr(j, "JobStatus"), Value::Real(r) if r == 1.0);
            let passes = knobs.policy.job_constraint.as_ref().is_none_or(|c| {
                eval_in(c, j, None, SEM).map(|v| v.as_bool_equiv()) == Ok(Some(true))
            });
            if let Some(name) = &submitter {
                if !subs.iter().any(|s| &s.name == name) {
                    let e = prios.get(name);
                    subs.push(Sub {
                        name: name.clone(),
                        eup: eup(name),
                        usage: e.map_or(0.0, |e| e.usage),
                        idle: 0,
                        best_prio: i64::MIN,
                        starvation: 0.0,
                        group: knobs.group_of(name).unwrap_or(knobs.groups.len()),
                        floor: e.and_then(|e| e.floor).map_or(0.0, f64::trunc),
                        ceiling: e.and_then(|e| e.ceiling).map_or(-1, |c| c.trunc() as i64),
                    });
                }
                if idle {
                    let s = subs.iter_mut().find(|s| &s.name == name).unwrap();
                    s.idle += 1;
                    s.best_prio = s.best_prio.max(int("JobPrio"));
                }
            }
            js.push(Job {
                ad: j.clone(),
                submitter,
                idle,
                prio: int("JobPrio"),
                cluster: int("ClusterId"),
                proc: int("ProcId"),
                passes,
                autocluster: clusters.cluster_of(i),
                done: false,
            });
        }
        let mut group_usage = vec![0.0; knobs.groups.len() + 1];
        for (name, e) in prios.iter() {
            group_usage[knobs.group_of(name).unwrap_or(knobs.groups.len())] += e.usage;
        }
        let pool = if knobs.use_slot_weights {
            table.iter().map(|s| s.weight).sum()
        } else {
            table.len() as f64
        };
        let min_weight = table.iter().map(|s| s.weight).fold(f64::MAX, f64::min);
        if knobs.ignore_job_ranks {
            let empty = Arc::new(ClassAd::new());
            for s in &mut table {
                let k = negotiator_key(&empty, &s.ad, &knobs.policy);
                s.static_rank = (k.pre, k.post);
            }
        }
        // Accountant::LoadLimits: every slot's ConcurrencyLimits and
        // PreemptingConcurrencyLimits strings.
        let mut limits = std::collections::BTreeMap::new();
        for s in &table {
            for a in ["ConcurrencyLimits", "PreemptingConcurrencyLimits"] {
                if let Some(list) = string(&s.ad, a) {
                    for (name, count) in limit_tokens(&list) {
                        *limits.entry(name).or_insert(0.0) += count;
                    }
                }
            }
        }
        Reference {
            knobs,
            limits,
            slots: table,
            jobs: js,
            subs,
            group_usage,
            list: None,
            out: RefOutcome::default(),
            pool,
            min_weight,
        }
    }

    pub fn run(mut self) -> RefOutcome {
        let mut all: Vec<usize> = (0..self.subs.len()).collect();
        if self.knobs.groups.is_empty() {
            self.round(&mut all, None, i32::MAX as f64);
        } else {
            self.groups();
        }
        self.out
    }

    /// Section 4, flat and static.
    fn groups(&mut self) {
        let k = self.knobs;
        let n = k.groups.len();
        let mut quota = vec![0.0; n + 1];
        for (g, gk) in k.groups.iter().enumerate() {
            if let Some(Quota::Static(q)) = gk.quota {
                quota[g] = q;
            }
        }
        // The pool as quotas count it: with weights off, a partitionable slot
        // counts as its Cpus.
        let pool = if k.use_slot_weights {
            self.pool
        } else {
            self.slots
                .iter()
                .map(|s| match attr(&s.ad, "PartitionableSlot") {
                    Value::Bool(true) => num(&attr(&s.ad, "Cpus")).map_or(1.0, f64::trunc),
                    _ => 1.0,
                })
                .sum()
        };
        quota[n] = f64::max(0.0, pool - quota[..n].iter().sum::<f64>());
        if pool <= 0.0 {
            // An empty pool has no quota to hand out, static quotas included.
            quota = vec![0.0; n + 1];
        }
        let mut requested = vec![0.0; n + 1];
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        for (s, sub) in self.subs.iter().enumerate() {
            members[sub.group].push(s);
            let idle: f64 = self
                .jobs
                .iter()
                .filter(|j| j.idle && j.submitter.as_deref() == Some(&sub.name))
                .map(|j| {
                    if !k.use_slot_weights {
                        return 1.0;
                    }
                    let mut ad = ClassAd::new();
                    for (res, req, missing) in [
                        ("Cpus", "RequestCpus", Value::Int(1)),
                        ("Memory", "RequestMemory", Value::Int(0)),
                        ("Disk", "RequestDisk", Value::Int(0)),
                        ("GPUs", "RequestGPUs", Value::Int(0)),
                    ] {
                        let v = match attr(&j.ad, req) {
                            Value::Undefined => missing,
                            v => v,
                        };
                        ad.insert_expr(res, Expr::literal(v));
                    }
                    let ad = Arc::new(ad);
                    eval_in(&k.slot_weight, &ad, None, SEM)
                        .ok()
                        .and_then(|v| num(&v))
                        .filter(|w| *w >= 0.0)
                        .unwrap_or(1.0)
                })
                .sum();
            requested[sub.group] += sub.usage + idle;
        }
        let mut usage: Vec<f64> = self.group_usage.clone();
        for _round in 0..k.group_max_allocation_rounds {
            // Each group its demand up to its quota; `<none>` also takes what the
            // groups leave of their quotas, up to its demand (HTCondor's root group
            // accepts surplus).
            let mut allocated: Vec<f64> = (0..=n).map(|g| requested[g].min(quota[g])).collect();
            for g in 0..=n {
                requested[g] -= allocated[g];
            }
            let surplus: f64 = (0..=n).map(|g| quota[g] - allocated[g]).sum();
            if surplus > 0.0 && requested[n] > 0.0 {
                let extra = surplus.min(requested[n]);
                allocated[n] += extra;
                requested[n] -= extra;
            }
            let allocated_total: f64 = allocated.iter().sum();
            let mut order: Vec<usize> = (0..=n).collect();
            let key = |g: usize, me: &Reference| -> f64 {
                let mut ad = ClassAd::new();
                let name = if g == n { "<none>" } else { &k.groups[g].name };
                ad.insert_expr("AccountingGroup", Expr::literal(Value::str(name)));
                ad.insert_expr("GroupQuota", Expr::literal(Value::Real(quota[g])));
                ad.insert_expr(
                    "GroupResourcesAllocated",
                    Expr::literal(Value::Real(allocated[g])),
                );
                ad.insert_expr(
                    "GroupResourcesInUse",
                    Expr::literal(Value::Real(me.group_usage[g])),
                );
                let ad = Arc::new(ad);
                eval_in(&k.group_sort_expr, &ad, None, SEM)
                    .ok()
                    .and_then(|v| num(&v))
                    .unwrap_or(f32::MAX as f64)
            };
            let keys: Vec<f64> = (0..=n).map(|g| key(g, self)).collect();
            order.sort_by(|&a, &b| keys[a].total_cmp(&keys[b]).then(a.cmp(&b)));
            for g in order {
                if allocated[g] <= 0.0
                    || (usage[g] >= allocated[g] && !k.consider_preemption)
                    || members[g].is_empty()
                {
                    continue;
                }
                let target = allocated[g].max(quota[g]);
                let mut slots = target;
                if !k.use_slot_weights {
                    slots = slots.floor();
                }
                if k.strict_enforce_quota
                    && !k.groups.get(g).is_some_and(|x| x.accept_surplus)
                    && g != n
                {
                    let avail = f64::max(quota[g] - self.group_usage[g], 0.0);
                    slots = f64::min(slots - usage[g], avail) + usage[g];
                }
                let mut m = std::mem::take(&mut members[g]);
                self.round(&mut m, Some(g), slots.trunc());
                members[g] = m;
            }
            let mut used_total = 0.0;
            for g in 0..=n {
                usage[g] = self.group_usage[g];
                used_total += usage[g].min(allocated[g]);
                if usage[g] < allocated[g] {
                    requested[g] = usage[g];
                } else {
                    requested[g] += allocated[g];
                }
            }
            if used_total >= allocated_total {
                break;
            }
        }
    }

    /// Section 16: a floor round for those below their floor, then all.
    fn round(&mut self, subs: &mut Vec<usize>, group: Option<usize>, quota: f64) {
        let mut below: Vec<usize> = subs
            .iter()
            .copied()
            .filter(|&s| self.subs[s].floor > 0.0 && self.subs[s].usage < self.subs[s].floor)
            .collect();
        if !below.is_empty() {
            self.spins(&mut below, group, quota, true);
        }
        self.spins(subs, group, quota, false);
    }

    /// Section 3 (and 16 in a floor round).
    fn spins(&mut self, subs: &mut Vec<usize>, group: Option<usize>, quota: f64, floor: bool) {
        let k = self.knobs;
        self.out.pies += 1;
        let mut spin = 0;
        loop {
            spin += 1;
            self.out.pie_spins += 1;
            let first_with_preemption = spin == 1 && k.consider_preemption;
            let gusage = group.map_or(0.0, |g| self.group_usage[g]);
            if !first_with_preemption && group.is_some() && gusage >= quota {
                break;
            }
            self.list = None;
            if !k.consider_preemption {
                subs.retain(|&s| self.subs[s].idle > 0);
            }
            let max = subs
                .iter()
                .map(|&s| self.subs[s].eup)
                .fold(f64::MIN_POSITIVE, f64::max);
            let normal: f64 = subs.iter().map(|&s| max / self.subs[s].eup).sum();
            let pool = self.pool.min(quota);
            let limit_of = |me: &Self, s: usize| -> (f64, f64) {
                let share = max / (me.subs[s].eup * normal);
                let mut limit = if k.ignore_user_priorities {
                    f64::MAX
                } else {
                    (share * pool - me.subs[s].usage).max(0.0)
                };
                let mut unclaimed = limit;
                if group.is_some() {
                    let allowed = (quota as f32 - gusage as f32).max(0.0);
                    if unclaimed > allowed as f64 {
                        unclaimed = allowed as f64;
                    }
                }
                if !k.consider_preemption {
                    limit = unclaimed;
                }
                (limit, unclaimed)
            };
            let mut pie = 0.0;
            for &s in subs.iter() {
                let (limit, _) = limit_of(self, s);
                let u = self.subs[s].usage;
                self.subs[s].starvation = if u + limit > 0.0 {
                    u / (u + limit)
                } else {
                    f32::MAX as f64
                };
                pie += limit;
            }
            if !k.consider_preemption && pie <= 0.0 {
                break;
            }
            if spin == 1 {
                let me = &*self;
                subs.sort_by(|&a, &b| {
                    let (x, y) = (&me.subs[a], &me.subs[b]);
                    x.eup
                        .partial_cmp(&y.eup)
                        .unwrap()
                        .then(if k.use_global_job_prios {
                            y.best_prio.cmp(&x.best_prio)
                        } else {
                            std::cmp::Ordering::Equal
                        })
                        .then(x.starvation.partial_cmp(&y.starvation).unwrap())
                        .then(x.name.cmp(&y.name))
                });
            }
            let (pie_before, count_before) = (pie, subs.len());
            let mut i = 0;
            while i < subs.len() {
                let s = subs[i];
                if !first_with_preemption {
                    if let Some(g) = group {
                        if self.group_usage[g] >= quota {
                            break;
                        }
                    }
                }
                let (mut limit, unclaimed) = limit_of(self, s);
                if floor {
                    limit = limit.min(self.subs[s].floor);
                }
                limit = limit.min(pie);
                // matchmaker.cpp: the ceiling less the usage's integer part.
                let ceiling = if self.subs[s].ceiling < 0 {
                    i32::MAX as f64
                } else {
                    (self.subs[s].ceiling - self.subs[s].usage as i64).max(0) as f64
                };
                let done = if self.subs[s].idle == 0 {
                    true
                } else if spin > 1 && (limit < self.min_weight || pie < self.min_weight) {
                    false
                } else if ceiling == 0.0 || ceiling < self.min_weight {
                    true
                } else {
                    let bounds = (limit, unclaimed, ceiling);
                    self.turn(s, bounds, first_with_preemption, &mut pie, spin)
                };
                if done {
                    subs.remove(i);
                } else {
                    i += 1;
                }
            }
            let left = self.slots.iter().filter(|s| !s.gone).count();
            if !((pie < pie_before || subs.len() < count_before) && !subs.is_empty() && left > 0)
                || floor
            {
                break;
            }
        }
    }

    /// Section 5; true when the submitter is done.
    fn turn(
        &mut self,
        s: usize,
        (limit, unclaimed, ceiling): (f64, f64, f64),
        ignore: bool,
        pie: &mut f64,
        spin: u32,
    ) -> bool {
        let name = self.subs[s].name.clone();
        // The requests: idle, unmatched, passing jobs in order, run-length encoded.
        let mut mine: Vec<usize> = (0..self.jobs.len())
            .filter(|&j| {
                let job = &self.jobs[j];
                job.idle && job.passes && !job.done && job.submitter.as_deref() == Some(&name)
            })
            .collect();
        mine.sort_by(|&a, &b| {
            let (x, y) = (&self.jobs[a], &self.jobs[b]);
            y.prio
                .cmp(&x.prio)
                .then(x.cluster.cmp(&y.cluster))
                .then(x.proc.cmp(&y.proc))
                .then(a.cmp(&b))
        });
        let mut requests: Vec<Vec<usize>> = Vec::new();
        for j in mine {
            match requests.last_mut() {
                Some(r) if self.jobs[r[0]].autocluster == self.jobs[j].autocluster => r.push(j),
                _ => requests.push(vec![j]),
            }
        }
        let mut rejected = Vec::new();
        let (mut used, mut used_unclaimed) = (0.0, 0.0);
        let mut limited = false;
        for req in requests {
            let a = self.jobs[req[0]].autocluster;
            if rejected.contains(&a) {
                continue;
            }
            let mut k = 0;
            while k < req.len() {
                let only_rank = if used >= limit {
                    if !ignore {
                        return false;
                    }
                    true
                } else {
                    false
                };
                if used >= ceiling {
                    return false;
                }
                self.out.considered += 1;
                let head = self.jobs[req[0]].ad.clone();
                let (found, refused) = self.choose(
                    s,
                    a,
                    &head,
                    (used, limit),
                    (used_unclaimed, unclaimed),
                    only_rank,
                );
                let Some(e) = found else {
                    self.out.rejections += 1;
                    if refused > 0 {
                        limited = true;
                    }
                    rejected.push(a);
                    if refused > 0
                        && !self.knobs.consider_preemption
                        && !self.knobs.use_slot_weights
                    {
                        return false;
                    }
                    break;
                };
                let slot = e.slot;
                // The job's limits against the slot it got count from now on.
                if let Ok(Value::Str(list)) =
                    eval_attr(&head, "ConcurrencyLimits", Some(&self.slots[slot].ad), SEM)
                {
                    for (name, count) in limit_tokens(list.as_str()) {
                        *self.limits.entry(name).or_insert(0.0) += count;
                    }
                }
                let cost = if self.slots[slot].cp {
                    let c = self.consumption(&head, slot);
                    let before = self.raw_weight(&self.slots[slot].ad);
                    self.slots[slot].ad = self.deduct(slot, &c);
                    let after = self.raw_weight(&self.slots[slot].ad);
                    let still = self.list.is_some() && self.cp_matches(&head, slot);
                    if let (true, Some(_)) = (still, &self.list) {
                        let key = if self.knobs.ignore_job_ranks {
                            let (pre, post) = self.slots[slot].static_rank;
                            RankKey {
                                pre,
                                rank: 1.0,
                                post,
                            }
                        } else {
                            negotiator_key(&head, &self.slots[slot].ad, &self.knobs.policy)
                        };
                        let entry = Entry {
                            slot,
                            key,
                            state: PreemptState::None,
                            prank: -(f32::MAX as f64),
                        };
                        let Some(list) = self.list.as_mut() else {
                            unreachable!("checked above")
                        };
                        list.head -= 1;
                        let mut at = list.head;
                        while at + 1 < list.entries.len() && better(&entry, &list.entries[at + 1]) {
                            list.entries.swap(at, at + 1);
                            at += 1;
                        }
                        list.entries[at] = entry;
                    }
                    before - after
                } else {
                    self.slots[slot].gone = true;
                    self.slots[slot].weight
                };
                let job = req[k];
                self.jobs[job].done = true;
                k += 1;
                let mut packed = Vec::new();
                let pslot = matches!(
                    attr(&self.slots[slot].ad, "PartitionableSlot"),
                    Value::Bool(true)
                );
                if self.knobs.schedd_packing
                    && !self.knobs.depth_first
                    && pslot
                    && !self.slots[slot].cp
                {
                    // Section 7.1: the request's next jobs, in order, while every
                    // resource suffices and the slot's Requirements accept them.
                    let ad = &self.slots[slot].ad;
                    let res: Vec<String> = match self.resources(slot) {
                        r if !r.is_empty() => r,
                        _ => vec!["Cpus".into(), "Memory".into(), "Disk".into()],
                    };
                    let ask = |j: &Arc<ClassAd>, left: &Arc<ClassAd>, r: &str| match eval_attr(
                        j,
                        &format!("Request{r}"),
                        Some(left),
                        SEM,
                    )
                    .ok()
                    .and_then(|v| num(&v))
                    {
                        Some(x) => x,
                        None if r == "Cpus" => 1.0,
                        None => 0.0,
                    };
                    let minus = |left: &Arc<ClassAd>, j: &Arc<ClassAd>| {
                        let mut l = left.clone();
                        for r in &res {
                            let have = num(&attr(left, r)).unwrap_or(0.0);
                            l = with(&l, r, keep_integers(have - ask(j, left, r)));
                        }
                        l
                    };
                    let mut left = minus(ad, &self.jobs[job].ad);
                    while k < req.len() {
                        let next = self.jobs[req[k]].ad.clone();
                        let fits = res
                            .iter()
                            .all(|r| ask(&next, &left, r) <= num(&attr(&left, r)).unwrap_or(0.0));
                        let ok = fits
                            && eval_attr(&left, "Requirements", Some(&next), SEM)
                                .map(|v| v.as_bool_equiv() == Some(true))
                                .unwrap_or(false);
                        if !ok {
                            break;
                        }
                        left = minus(&left, &next);
                        self.jobs[req[k]].done = true;
                        packed.push(req[k] as u32);
                        k += 1;
                    }
                }
                if self.knobs.depth_first {
                    let fit = self.jobs_in_slot(&head, slot).max(1);
                    for _ in 1..fit {
                        if k < req.len() {
                            self.jobs[req[k]].done = true;
                            packed.push(req[k] as u32);
                            k += 1;
                        }
                    }
                }
                self.subs[s].usage += cost;
                let g = self.subs[s].group;
                self.group_usage[g] += cost;
                used += cost;
                if self.slots[slot].user.is_none() {
                    used_unclaimed += cost;
                }
                *pie -= cost;
                self.out.matches.push(RefMatch {
                    job: job as u32,
                    slot: self.slots[slot].file,
                    submitter: name.clone(),
                    cost,
                    spin,
                    preempt: e.state,
                    key: e.key,
                    packed,
                });
            }
        }
        // The loop's top tests the limit and the ceiling before it asks for
        // another request: at either, the turn ends to resume.
        !(used >= limit || used >= ceiling || limited)
    }

    fn jobs_in_slot(&self, job: &Arc<ClassAd>, slot: usize) -> u32 {
        let ad = &self.slots[slot].ad;
        let int = |v: Value, d: i64| match v {
            Value::Int(i) => i,
            Value::Real(r) => r as i64,
            Value::Bool(b) => b as i64,
            _ => d,
        };
        let cpus = int(attr(ad, "Cpus"), 1);
        let mem = int(attr(ad, "Memory"), 1);
        let rc = int(
            eval_attr(job, "RequestCpus", Some(ad), SEM).unwrap_or(Value::Error),
            1,
        )
        .max(1);
        let rm = int(
            eval_attr(job, "RequestMemory", Some(ad), SEM).unwrap_or(Value::Error),
            1,
        )
        .max(1);
        (cpus / rc).min(mem / rm).max(0) as u32
    }

    fn raw_weight(&self, ad: &Arc<ClassAd>) -> f64 {
        num(&attr(ad, "SlotWeight")).unwrap_or(0.0)
    }

    fn resources(&self, slot: usize) -> Vec<String> {
        match attr(&self.slots[slot].ad, "MachineResources") {
            Value::Str(r) => r
                .as_str()
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|r| !r.is_empty() && !r.eq_ignore_ascii_case("swap"))
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Section 7.2: what the job consumes.
    fn consumption(&self, job: &Arc<ClassAd>, slot: usize) -> Vec<(String, f64)> {
        let res = self.resources(slot);
        let mut j = job.clone();
        for r in &res {
            let req = format!("Request{r}");
            if let Some(x) = num(&attr(job, &format!("_condor_{req}"))) {
                j = with(&j, &req, Value::Real(x));
            } else if !job.contains(&req) {
                j = with(&j, &req, Value::Int(0));
            }
        }
        res.into_iter()
            .map(|r| {
                let v = eval_attr(
                    &self.slots[slot].ad,
                    &format!("Consumption{r}"),
                    Some(&j),
                    SEM,
                );
                let c = v.ok().and_then(|v| num(&v)).unwrap_or(-999.0);
                (r, c)
            })
            .collect()
    }

    fn deduct(&self, slot: usize, c: &[(String, f64)]) -> Arc<ClassAd> {
        let mut ad = self.slots[slot].ad.clone();
        for (r, x) in c {
            let have = num(&attr(&self.slots[slot].ad, r)).unwrap_or(0.0);
            ad = with(&ad, r, keep_integers(have - x));
        }
        ad
    }

    fn cp_matches(&self, job: &Arc<ClassAd>, slot: usize) -> bool {
        let c = self.consumption(job, slot);
        let ad = &self.slots[slot].ad;
        let mut positive = false;
        for (r, x) in &c {
            match num(&attr(ad, r)) {
                Some(have) if have >= *x => {}
                _ => return false,
            }
            if *x < 0.0 {
                return false;
            }
            positive |= *x > 0.0;
        }
        if !positive {
            return false;
        }
        let mut seen = job.clone();
        for (r, x) in &c {
            let req = format!("Request{r}");
            if job.contains(&req) {
                seen = with(&seen, &req, keep_integers(*x));
            }
        }
        symmetric_match(&seen, ad, SEM)
    }

    fn cost(&self, job: &Arc<ClassAd>, slot: usize) -> f64 {
        if self.slots[slot].cp {
            let c = self.consumption(job, slot);
            self.raw_weight(&self.slots[slot].ad) - self.raw_weight(&self.deduct(slot, &c))
        } else {
            self.slots[slot].weight
        }
    }

    /// rejectForConcurrencyLimits: some limit of `list` would pass its maximum.
    fn refuses(&self, list: &str) -> bool {
        limit_tokens(list).into_iter().any(|(name, count)| {
            let now = self.limits.get(&name).copied().unwrap_or(0.0);
            now < 0.0 || now + count > self.knobs.concurrency_limits.maximum(&name)
        })
    }

    fn permits(&self, job: &Arc<ClassAd>, slot: usize, used: f64, allowed: f64) -> bool {
        let cost = self.cost(job, slot);
        used + cost <= allowed || (used <= 0.0 && allowed > 0.0)
    }

    /// Section 6: the slot for a request.
    fn choose(
        &mut self,
        s: usize,
        a: u32,
        job: &Arc<ClassAd>,
        (used, limit): (f64, f64),
        (used_u, unclaimed): (f64, f64),
        only_rank: bool,
    ) -> (Option<Entry>, u32) {
        let k = self.knobs;
        // Section 15: a string in the job alone is tested once; anything else
        // against each candidate.
        let per_slot = job.contains("ConcurrencyLimits")
            && match attr(job, "ConcurrencyLimits") {
                Value::Str(list) => {
                    if self.refuses(list.as_str()) {
                        return (None, 0);
                    }
                    false
                }
                _ => true,
            };
        let slot_refuses = |me: &Self, slot: usize| {
            per_slot
                && matches!(
                    eval_attr(job, "ConcurrencyLimits", Some(&me.slots[slot].ad), SEM),
                    Ok(Value::Str(l)) if me.refuses(l.as_str())
                )
        };
        if let Some(list) = &self.list {
            if list.autocluster == a && list.submitter == s && list.only_rank == only_rank {
                let mut list = self.list.take().unwrap();
                let mut found = None;
                while list.head < list.entries.len() {
                    let e = &list.entries[list.head];
                    list.head += 1;
                    if slot_refuses(self, e.slot) {
                        continue;
                    }
                    let ok = (e.state != PreemptState::None
                        && self.permits(job, e.slot, used, limit))
                        || self.permits(job, e.slot, used_u, unclaimed);
                    if ok {
                        found = Some(Entry { ..*e });
                        break;
                    }
                    list.refused += 1;
                }
                let refused = list.refused;
                self.list = Some(list);
                return (found, refused);
            }
        }
        self.list = None;
        let mut order: Vec<usize> = (0..self.slots.len())
            .filter(|&i| !self.slots[i].gone)
            .collect();
        if k.ignore_job_ranks {
            let n = |x: f64| if x.is_nan() { f64::NEG_INFINITY } else { x };
            order.sort_by(|&x, &y| {
                let (rx, ry) = (self.slots[x].static_rank, self.slots[y].static_rank);
                n(ry.0)
                    .total_cmp(&n(rx.0))
                    .then(n(ry.1).total_cmp(&n(rx.1)))
                    .then(x.cmp(&y))
            });
        }
        let mut entries: Vec<Entry> = Vec::new();
        let mut refused = 0;
        let mut allocated = 0.0;
        for slot in order {
            let sl = &self.slots[slot];
            let matched = if sl.cp {
                self.cp_matches(job, slot)
            } else {
                symmetric_match(job, &sl.ad, SEM)
            };
            if !matched {
                continue;
            }
            let user = if k.consider_preemption {
                sl.user.clone()
            } else {
                None
            };
            let is_true = |text: &str| {
                let e = policy_expr(text).unwrap();
                matches!(eval_in(&e, &sl.ad, Some(job), SEM), Ok(Value::Bool(true)))
            };
            let state = if only_rank {
                if user.is_none() || !is_true("MY.Rank > MY.CurrentRank") {
                    continue;
                }
                PreemptState::Rank
            } else if let Some(u) = &user {
                if is_true("MY.Rank > MY.CurrentRank") {
                    PreemptState::Rank
                } else if *u != self.subs[s].name {
                    let req_ok = k.policy.preemption_requirements.as_ref().is_none_or(|e| {
                        matches!(eval_in(e, &sl.ad, Some(job), SEM), Ok(Value::Bool(true)))
                    });
                    if !req_ok || !is_true("MY.Rank >= MY.CurrentRank") {
                        continue;
                    }
                    PreemptState::Prio
                } else {
                    continue;
                }
            } else {
                PreemptState::None
            };
            let ok = match state {
                PreemptState::Prio => self.permits(job, slot, used, limit),
                PreemptState::None => self.permits(job, slot, used_u, unclaimed),
                PreemptState::Rank => true,
            };
            if !ok {
                refused += 1;
                continue;
            }
            if slot_refuses(self, slot) {
                continue;
            }
            let (key, prank) = if k.ignore_job_ranks {
                let (pre, post) = sl.static_rank;
                (
                    RankKey {
                        pre,
                        rank: 1.0,
                        post,
                    },
                    -(f32::MAX as f64),
                )
            } else {
                let key = negotiator_key(job, &sl.ad, &k.policy);
                let prank = if state == PreemptState::None {
                    -(f32::MAX as f64)
                } else {
                    match &k.policy.preemption_rank {
                        Some(e) => eval_in(e, &sl.ad, Some(job), SEM)
                            .map(|v| negotiator_rank_value(&v))
                            .unwrap_or(-f64::MAX),
                        None => -f64::MAX,
                    }
                };
                (key, prank)
            };
            entries.push(Entry {
                slot,
                key,
                state,
                prank,
            });
            if k.ignore_job_ranks {
                allocated += num(&attr(&sl.ad, "SlotWeight")).unwrap_or(1.0);
                if allocated > limit {
                    break;
                }
            }
        }
        if !k.matchlist_caching {
            let mut best: Option<Entry> = None;
            for e in entries {
                if best.as_ref().is_none_or(|b| better(&e, b)) {
                    best = Some(e);
                }
            }
            return (best, refused);
        }
        // Best first; ties by slot (file) order.
        entries.sort_by(|x, y| {
            if better(x, y) {
                std::cmp::Ordering::Less
            } else if better(y, x) {
                std::cmp::Ordering::Greater
            } else {
                x.slot.cmp(&y.slot)
            }
        });
        let first = if entries.is_empty() {
            None
        } else {
            let e = &entries[0];
            Some(Entry { ..*e })
        };
        self.list = Some(List {
            entries,
            head: usize::from(first.is_some()),
            refused,
            autocluster: a,
            submitter: s,
            only_rank,
        });
        (first, refused)
    }
}

/// The job's submitter as HTCondor's schedd names it (`schedd.cpp`,
/// `Scheduler::get_submitter_and_owner`, and the submitter ad's `Name`): its
/// `AccountingGroup` unless unset, empty or the owner's own name, else the
/// owner (`User` less its domain, else `Owner`), then `@` and the domain of
/// `User` (else the configured one; none without either).
fn submitter_of(job: &Arc<ClassAd>, configured: Option<&str>) -> Option<String> {
    let text = |n: &str| string(job, n).filter(|s| !s.is_empty());
    let user = text("User");
    let (owner, domain) = match user.as_deref().map(|u| u.rsplit_once('@')) {
        Some(Some((o, d))) => (Some(o.to_string()), Some(d.to_string())),
        Some(None) => (user.clone(), None),
        None => (None, None),
    };
    let owner = owner.filter(|o| !o.is_empty()).or_else(|| text("Owner"));
    let base = match text("AccountingGroup") {
        Some(g) if Some(&g) != owner.as_ref() => g,
        _ => owner?,
    };
    let domain = domain
        .filter(|d| !d.is_empty())
        .or(configured.map(str::to_string));
    Some(match domain {
        Some(d) => format!("{base}@{d}"),
        None => base,
    })
}
