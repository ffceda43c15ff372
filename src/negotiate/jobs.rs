//! What the cycle needs of each job (negotiator.md sections 1 and 5): its
//! submitter, whether it is idle, its place in its submitter's order, whether it
//! passes `NEGOTIATOR_JOB_CONSTRAINT`, and its weight as group demand. Worked out
//! once per job, so a queue read in parts can drop each ad once clustered.

use super::knobs::CycleKnobs;
use super::submitters::{submitter_name, SubmitterId, SubmitterNames};
use crate::ad::ClassAd;
use crate::engine::eval_once;
use crate::matching::autocluster::SharedAd;
use crate::matching::{Autoclusters, KeptPart, PartClasses, SignificantAttributes};
use crate::syntax::ast::{ExprRef, Node};
use classad_vm::{Str, Value};
use rayon::prelude::*;
use std::sync::Arc;

/// One job's facts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobFacts {
    /// The submitter as HTCondor names it, from `AccountingGroup`, `User` and
    /// `Owner` ([`submitter_name`]), numbered by the [`SubmitterNames`] the
    /// facts were read with; `None` when the job has no group and no owner
    /// (it is reported, not negotiated for).
    pub submitter: Option<SubmitterId>,
    /// `JobStatus` is 1 (idle) or missing.
    pub idle: bool,
    /// `JobPrio` (0 when missing).
    pub prio: i64,
    /// `ClusterId` (0 when missing).
    pub cluster: i64,
    /// `ProcId` (0 when missing).
    pub proc: i64,
    /// `NEGOTIATOR_JOB_CONSTRAINT` holds (true when unset).
    pub passes_constraint: bool,
    /// `SLOT_WEIGHT` evaluated with the job's requests standing for the slot's
    /// resources (group demand, section 4(a)); 1 with slot weights off.
    pub weight: f64,
    /// `MyType` says a slot (`"Machine"` or `"Slot"`): a file of slots given
    /// as the queue, which the command warns about.
    pub slot_ad: bool,
}

/// The attributes the facts read, in [`FactReader`]'s order.
pub const FACT_NAMES: [&str; 12] = [
    "AccountingGroup",
    "User",
    "Owner",
    "JobStatus",
    "JobPrio",
    "ClusterId",
    "ProcId",
    "RequestCpus",
    "RequestMemory",
    "RequestDisk",
    "RequestGPUs",
    "MyType",
];

/// True when a `MyType` names a slot ad (`"Machine"`, or `"Slot"`), ignoring case.
pub fn is_slot_type(my_type: &str) -> bool {
    my_type.eq_ignore_ascii_case("Machine") || my_type.eq_ignore_ascii_case("Slot")
}

/// A job's `AccountingGroup`, `User` and `Owner` when strings: what its
/// submitter's name is made of.
type SubmitterKey = [Option<Str>; 3];

/// True when two keys hold the same strings (the same string, shared by the
/// jobs of a cluster, is found without reading it).
fn same_key(a: &SubmitterKey, b: &SubmitterKey) -> bool {
    a.iter().zip(b).all(|(x, y)| match (x, y) {
        (Some(x), Some(y)) => std::ptr::eq(x.as_str(), y.as_str()) || x.as_str() == y.as_str(),
        (None, None) => true,
        _ => false,
    })
}

/// The text of a key's string.
fn text(s: &Option<Str>) -> Option<&str> {
    s.as_ref().map(|s| s.as_str())
}

/// Jobs per unit of parallel work in [`JobFacts::of_all`].
const CHUNK: usize = 1 << 14;

/// Where a layout keeps each of [`FACT_NAMES`] (`None`: absent).
type FactPositions = [Option<u32>; FACT_NAMES.len()];

/// Reads the facts of many jobs: where each layout of ads (a shared name list)
/// keeps the attributes is found once, and each submitter's number is asked for
/// once, so that a literal-valued job costs a few loads.
pub struct FactReader<'k> {
    knobs: &'k CycleKnobs,
    names: &'k SubmitterNames,
    /// Per layout (by identity), the positions of [`FACT_NAMES`], and the
    /// layout held so that its identity stays its own.
    layouts: ahash::AHashMap<usize, (Arc<Vec<Str>>, FactPositions)>,
    /// The last layout's identity and positions.
    last: Option<(usize, FactPositions)>,
    submitters: ahash::AHashMap<Box<str>, SubmitterId>,
    /// The last job's `AccountingGroup`, `User` and `Owner`, and the submitter
    /// they name: jobs of one cluster come together.
    last_submitter: Option<(SubmitterKey, Option<SubmitterId>)>,
}

impl<'k> FactReader<'k> {
    /// A reader of facts under `knobs`, numbering submitters with `names`.
    pub fn new(knobs: &'k CycleKnobs, names: &'k SubmitterNames) -> FactReader<'k> {
        FactReader {
            knobs,
            names,
            layouts: ahash::AHashMap::new(),
            last: None,
            submitters: ahash::AHashMap::new(),
            last_submitter: None,
        }
    }

    fn positions(&mut self, job: &ClassAd) -> FactPositions {
        let id = job.layout_id();
        if let Some((last, p)) = self.last {
            if last == id {
                return p;
            }
        }
        let p = self
            .layouts
            .entry(id)
            .or_insert_with(|| {
                let p = FACT_NAMES.map(|n| job.position(n).ok().map(|p| p as u32));
                (job.layout(), p)
            })
            .1;
        self.last = Some((id, p));
        p
    }

    fn submitter(&mut self, key: SubmitterKey) -> Option<SubmitterId> {
        if let Some((last, id)) = &self.last_submitter {
            if same_key(last, &key) {
                return *id;
            }
        }
        let domain = self.knobs.accounting_domain.as_deref();
        let id = submitter_name(text(&key[0]), text(&key[1]), text(&key[2]), domain).map(|name| {
            match self.submitters.get(name.as_str()) {
                Some(&id) => id,
                None => {
                    let id = self.names.id(&name);
                    self.submitters.insert(name.into(), id);
                    id
                }
            }
        });
        self.last_submitter = Some((key, id));
        id
    }

    /// The facts of `job`.
    pub fn read(&mut self, job: &ClassAd) -> JobFacts {
        let positions = self.positions(job);
        let knobs = self.knobs;
        let mut shared: Option<Arc<ClassAd>> = None;
        // The value of fact `i`: a literal as it is, else evaluated in the job.
        let mut value = |i: usize| -> std::borrow::Cow<'_, Value> {
            let Some(p) = positions[i] else {
                return std::borrow::Cow::Owned(Value::Undefined);
            };
            let e = job.at(p as usize);
            if let Node::Lit(v) = e.node() {
                return std::borrow::Cow::Borrowed(v);
            }
            let ad = shared.get_or_insert_with(|| Arc::new(job.clone()));
            let e = ExprRef {
                tree: e.tree.clone(),
                id: e.id,
            };
            std::borrow::Cow::Owned(eval_once(&e, ad, None).unwrap_or(Value::Error))
        };
        let int = |v: &Value| match v {
            Value::Int(i) => *i,
            Value::Real(r) if r.is_finite() => *r as i64,
            Value::Bool(b) => *b as i64,
            _ => 0,
        };
        let key: SubmitterKey = std::array::from_fn(|i| match &*value(i) {
            Value::Str(s) => Some(s.clone()),
            _ => None,
        });
        let idle = match &*value(3) {
            Value::Undefined => true,
            Value::Int(1) => true,
            Value::Real(r) => *r == 1.0,
            _ => false,
        };
        let slot_ad = matches!(&*value(11), Value::Str(t) if is_slot_type(t.as_str()));
        let prio = int(&value(4));
        let cluster = int(&value(5));
        let proc = int(&value(6));
        let requests = if knobs.groups.is_empty() || !knobs.use_slot_weights {
            None
        } else {
            Some([
                ("Cpus", value(7).into_owned(), Value::Int(1)),
                ("Memory", value(8).into_owned(), Value::Int(0)),
                ("Disk", value(9).into_owned(), Value::Int(0)),
                ("GPUs", value(10).into_owned(), Value::Int(0)),
            ])
        };
        let passes_constraint = match &knobs.policy.job_constraint {
            None => true,
            Some(c) => {
                let ad = shared.get_or_insert_with(|| Arc::new(job.clone()));
                matches!(
                    eval_once(c, ad, None).map(|v| v.as_bool_equiv()),
                    Ok(Some(true))
                )
            }
        };
        let weight = match requests {
            None => 1.0,
            Some(rs) => demand_weight(&knobs.slot_weight, rs),
        };
        JobFacts {
            submitter: self.submitter(key),
            idle,
            prio,
            cluster,
            proc,
            passes_constraint,
            weight,
            slot_ad,
        }
    }
}

impl JobFacts {
    /// The facts of `job` under `knobs`, its submitter numbered by `names`.
    pub fn of(job: &ClassAd, knobs: &CycleKnobs, names: &SubmitterNames) -> JobFacts {
        FactReader::new(knobs, names).read(job)
    }
}

/// Every job's facts, in queue order, with the names their submitters' numbers
/// stand for.
#[derive(Debug, Default)]
pub struct QueueFacts {
    /// Per job, its facts.
    pub jobs: Vec<JobFacts>,
    /// The submitters' names.
    pub submitters: SubmitterNames,
}

impl QueueFacts {
    /// The facts of every job of `jobs`, in order (on rayon's threads).
    pub fn of_all<J: AsRef<ClassAd> + Sync>(jobs: &[J], knobs: &CycleKnobs) -> QueueFacts {
        let submitters = SubmitterNames::new();
        // Written in place: fresh memory costs more to touch than the facts
        // cost to read, so the facts are not gathered in parts and copied.
        let mut all = Vec::with_capacity(jobs.len());
        all.par_extend(rayon::iter::repeat_n(JobFacts::default(), jobs.len()));
        all.par_chunks_mut(CHUNK)
            .zip(jobs.par_chunks(CHUNK))
            .for_each(|(out, part)| {
                let mut reader = FactReader::new(knobs, &submitters);
                for (o, j) in out.iter_mut().zip(part) {
                    *o = reader.read(j.as_ref());
                }
            });
        QueueFacts {
            jobs: all,
            submitters,
        }
    }

    /// How many jobs.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// True when there are no jobs.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// The name of job `j`'s submitter.
    pub fn submitter(&self, j: usize) -> Option<Arc<str>> {
        self.jobs[j].submitter.map(|id| self.submitters.name(id))
    }
}

/// The autoclusters of `jobs` and each job's facts under `knobs`, read while
/// the job is clustered (see [`Autoclusters::with_each`]).
pub fn cluster_with_facts<J: SharedAd + Sync>(
    jobs: &[J],
    significant: SignificantAttributes,
    knobs: &CycleKnobs,
) -> (Autoclusters, QueueFacts) {
    let submitters = SubmitterNames::new();
    let (clusters, jobs) = Autoclusters::with_each(jobs, significant, &FACT_NAMES, || {
        let mut reader = FactReader::new(knobs, &submitters);
        move |job: &ClassAd| reader.read(job)
    });
    (clusters, QueueFacts { jobs, submitters })
}

/// Reads the queue of `reader` (`file` names it in errors) in parts on every
/// core ([`crate::ad::parts::read_ads_in_parts`]): each part classified and its
/// jobs' facts read, then dropped but for a job per class. A queue of a million
/// jobs is never held whole: the autoclusters (by `significant`) and the facts
/// are what the cycle needs of it.
pub fn read_queue<R: std::io::BufRead + Send>(
    reader: R,
    file: &str,
    significant: SignificantAttributes,
    knobs: &CycleKnobs,
) -> Result<(Autoclusters, QueueFacts), crate::ad::ReadError> {
    use crate::ad::parts::{read_ads_in_parts, PartsError, PART_BYTES};
    let mut builder = crate::matching::AutoclusterBuilder::new(significant.clone());
    let mut facts = Vec::new();
    let names = SubmitterNames::new();
    // Each part's ads are dropped where the part was read, on rayon's
    // threads, but for the few a new class keeps: the parts are added on one.
    let classify = |ads: Vec<ClassAd>| {
        let (part, f) = classify_with_facts(&significant, &ads, knobs, &names);
        (part.keeping_firsts(ads), f)
    };
    let sink = |(part, f): (KeptPart<ClassAd>, Vec<JobFacts>)| {
        builder.add_kept(part);
        facts.extend(f);
        Ok::<(), std::convert::Infallible>(())
    };
    let limits = crate::ad::ReadLimits::configured();
    match read_ads_in_parts(reader, file, limits, PART_BYTES, classify, sink) {
        Ok(()) => {}
        Err(PartsError::Read(e)) => return Err(e),
        Err(PartsError::Sink(never)) => match never {},
    }
    let queue = QueueFacts {
        jobs: facts,
        submitters: names,
    };
    Ok((builder.finish(), queue))
}

/// The classes of one part of a queue and its jobs' facts under `knobs`, read
/// as each job is classified (see [`SignificantAttributes::classify_visiting`]),
/// submitters numbered by `names` (shared by the parts of one queue).
pub fn classify_with_facts<J: AsRef<ClassAd>>(
    significant: &SignificantAttributes,
    jobs: &[J],
    knobs: &CycleKnobs,
    names: &SubmitterNames,
) -> (PartClasses, Vec<JobFacts>) {
    let mut reader = FactReader::new(knobs, names);
    let mut facts = Vec::with_capacity(jobs.len());
    let part = significant.classify_visiting(jobs, &FACT_NAMES, |_, job| {
        facts.push(reader.read(job));
    });
    (part, facts)
}

/// `SLOT_WEIGHT` in an ad whose resources are a job's requests (missing: 1 CPU,
/// nothing else); 1 when it is not a number; at most [`super::MAX_AMOUNT`].
fn demand_weight(slot_weight: &ExprRef, requests: [(&str, Value, Value); 4]) -> f64 {
    let mut ad = ClassAd::new();
    for (name, v, missing) in requests {
        let v = if v.is_undefined() { missing } else { v };
        ad.insert_expr(name, crate::syntax::ast::Expr::literal(v));
    }
    let ad = Arc::new(ad);
    match eval_once(slot_weight, &ad, None) {
        Ok(v) => v
            .as_f64_promoted()
            .filter(|w| *w >= 0.0)
            .map_or(1.0, super::bounds::bounded),
        Err(_) => 1.0,
    }
}

/// A submitter's jobs in the order its requests are made (section 5): `JobPrio`
/// descending, then `ClusterId`, `ProcId` ascending, then queue order.
pub fn request_order(jobs: &mut [u32], facts: &[JobFacts]) {
    let key = |j: u32| {
        let f = &facts[j as usize];
        (std::cmp::Reverse(f.prio), f.cluster, f.proc, j)
    };
    // A queue usually lists each submitter's jobs in this order already: one
    // look instead of a sort (and the memory its keys take).
    if jobs.windows(2).all(|w| key(w[0]) < key(w[1])) {
        return;
    }
    // Or it lists them in (cluster, proc) order with a few priorities mixed: a
    // stable split by priority, best first, leaves each part in order.
    if split_by_priority(jobs, facts) {
        let mut start = 0;
        while start < jobs.len() {
            let prio = facts[jobs[start] as usize].prio;
            let len = jobs[start..]
                .iter()
                .position(|&j| facts[j as usize].prio != prio)
                .unwrap_or(jobs.len() - start);
            let part = &mut jobs[start..start + len];
            if !part.windows(2).all(|w| key(w[0]) < key(w[1])) {
                sort_by_key(part, facts);
            }
            start += len;
        }
        return;
    }
    sort_by_key(jobs, facts);
}

/// How many distinct `JobPrio` values [`split_by_priority`] takes on.
const FEW_PRIORITIES: usize = 16;

/// Reorders `jobs` stably by `JobPrio` descending when they have at most
/// [`FEW_PRIORITIES`] distinct values (a counting sort: no keys, no sort);
/// false, leaving them as they are, when they have more.
fn split_by_priority(jobs: &mut [u32], facts: &[JobFacts]) -> bool {
    let mut prios: smallvec::SmallVec<[i64; FEW_PRIORITIES]> = smallvec::SmallVec::new();
    let mut bucket = Vec::with_capacity(jobs.len());
    for &j in jobs.iter() {
        let p = facts[j as usize].prio;
        let b = match prios.iter().position(|&q| q == p) {
            Some(b) => b,
            None if prios.len() == FEW_PRIORITIES => return false,
            None => {
                prios.push(p);
                prios.len() - 1
            }
        };
        bucket.push(b as u8);
    }
    // Each bucket's place: best priority first.
    let mut order: smallvec::SmallVec<[usize; FEW_PRIORITIES]> = (0..prios.len()).collect();
    order.sort_unstable_by(|&a, &b| prios[b].cmp(&prios[a]));
    let mut counts = [0usize; FEW_PRIORITIES];
    for &b in &bucket {
        counts[b as usize] += 1;
    }
    let mut next = [0usize; FEW_PRIORITIES];
    let mut at = 0;
    for &b in &order {
        next[b] = at;
        at += counts[b];
    }
    let mut out = vec![0u32; jobs.len()];
    for (&j, &b) in jobs.iter().zip(&bucket) {
        out[next[b as usize]] = j;
        next[b as usize] += 1;
    }
    jobs.copy_from_slice(&out);
    true
}

/// Sorts `jobs` by the request key, with the keys side by side (the facts are
/// far apart); every key is distinct.
fn sort_by_key(jobs: &mut [u32], facts: &[JobFacts]) {
    let mut keyed: Vec<(std::cmp::Reverse<i64>, i64, i64, u32)> = jobs
        .iter()
        .map(|&j| {
            let f = &facts[j as usize];
            (std::cmp::Reverse(f.prio), f.cluster, f.proc, j)
        })
        .collect();
    keyed.sort_unstable();
    for (slot, k) in jobs.iter_mut().zip(keyed) {
        *slot = k.3;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;

    fn facts(text: &str, knobs: &CycleKnobs) -> QueueFacts {
        let submitters = SubmitterNames::new();
        let jobs = read_ads(text, "jobs")
            .unwrap()
            .iter()
            .map(|j| JobFacts::of(j, knobs, &submitters))
            .collect();
        QueueFacts { jobs, submitters }
    }

    /// Each job's facts with its submitter's name for its number, to compare
    /// facts numbered by different tables.
    fn named(q: &QueueFacts) -> Vec<(Option<Arc<str>>, JobFacts)> {
        (0..q.len())
            .map(|j| {
                let f = JobFacts {
                    submitter: None,
                    ..q.jobs[j].clone()
                };
                (q.submitter(j), f)
            })
            .collect()
    }

    #[test]
    fn submitter_status_and_order() {
        let k = CycleKnobs::default();
        let f = facts(
            "Owner = \"o\"\nUser = \"u@d\"\nAccountingGroup = \"g.u\"\nJobStatus = 2\n\n\
             Owner = \"o\"\nUser = strcat(\"u@\", \"d\")\nJobPrio = 5\nClusterId = 3\n\n\
             Owner = \"o\"\nClusterId = 2\nProcId = 1\n\n\
             ClusterId = 2\n",
            &k,
        );
        let names: Vec<Option<Arc<str>>> = (0..f.len()).map(|j| f.submitter(j)).collect();
        assert_eq!(
            names,
            [
                Some("g.u@d".into()),
                Some("u@d".into()),
                Some("o".into()),
                None
            ],
            "HTCondor's names: the group or the owner, then the domain of User"
        );
        assert_eq!(f.submitters.len(), 3);
        let k = CycleKnobs {
            accounting_domain: Some("cfg".into()),
            ..CycleKnobs::default()
        };
        let g = facts(
            "Owner = \"o\"\n\nAccountingGroup = \"g.o\"\nOwner = \"o\"\n",
            &k,
        );
        let names: Vec<Option<Arc<str>>> = (0..g.len()).map(|j| g.submitter(j)).collect();
        assert_eq!(names, [Some("o@cfg".into()), Some("g.o@cfg".into())]);
        assert_eq!(
            f.jobs.iter().map(|f| f.idle).collect::<Vec<_>>(),
            [false, true, true, true]
        );
        let mut order = vec![0, 1, 2, 3];
        request_order(&mut order, &f.jobs);
        assert_eq!(order, [1, 0, 3, 2]);
    }

    #[test]
    fn one_reader_over_many_layouts_reads_as_a_fresh_one() {
        // Layouts told apart, literal and computed values, and the submitter's
        // name made once but equal to each job's.
        let k = CycleKnobs::default();
        let text = "Owner = \"a\"\nClusterId = 1\nProcId = 0\n\n\
                    ProcId = 1\nClusterId = 1\nOwner = \"a\"\n\n\
                    Owner = \"b\"\nJobPrio = 2 + 3\nClusterId = 1\n\n\
                    Owner = \"a\"\nClusterId = 1\nProcId = 2\nJobStatus = 2\n";
        let mut jobs = read_ads(text, "jobs").unwrap();
        jobs.extend(read_ads(text, "again").unwrap());
        let names = SubmitterNames::new();
        let fresh: Vec<JobFacts> = jobs.iter().map(|j| JobFacts::of(j, &k, &names)).collect();
        let fresh = QueueFacts {
            jobs: fresh,
            submitters: names,
        };
        assert_eq!(named(&QueueFacts::of_all(&jobs, &k)), named(&fresh));
        let mut reader = FactReader::new(&k, &fresh.submitters);
        let read: Vec<JobFacts> = jobs.iter().map(|j| reader.read(j)).collect();
        assert_eq!(read, fresh.jobs);
        assert_eq!(
            read.iter()
                .map(|f| (f.prio, f.proc, f.idle))
                .collect::<Vec<_>>(),
            [(0, 0, true), (0, 1, true), (5, 0, true), (0, 2, false)].repeat(2)
        );
    }

    #[test]
    fn a_reader_outlives_the_ads_it_read() {
        // Ads read and dropped one after another: a new ad's name list may be
        // made where a dropped one was, in another order; the reader must not
        // take it for the old one.
        let k = CycleKnobs::default();
        let names = SubmitterNames::new();
        let mut reader = FactReader::new(&k, &names);
        for i in 0..200 {
            let text = if i % 2 == 0 {
                format!("ProcId = {i}\nClusterId = 7\nOwner = \"a\"\nJobPrio = 1\n")
            } else {
                format!("JobPrio = 2\nOwner = \"b\"\nClusterId = 8\nProcId = {i}\nQDate = 3\n")
            };
            let job = read_ads(&text, "job").unwrap().remove(0);
            assert_eq!(reader.read(&job), JobFacts::of(&job, &k, &names), "ad {i}");
        }
    }

    #[test]
    fn jobs_in_request_order_stay_and_others_are_sorted() {
        let k = CycleKnobs::default();
        let f = facts(
            "ClusterId = 1\nProcId = 0\n\nClusterId = 1\nProcId = 1\n\nClusterId = 2\n",
            &k,
        );
        let mut order = vec![0, 1, 2];
        request_order(&mut order, &f.jobs);
        assert_eq!(order, [0, 1, 2]);
        let mut order = vec![2, 1, 0];
        request_order(&mut order, &f.jobs);
        assert_eq!(order, [0, 1, 2]);
    }

    /// Every path of `request_order` (in order already, a few priorities mixed
    /// with each part in order or not, many priorities) gives the order of a
    /// plain sort by the key.
    #[test]
    fn request_order_is_the_sort_by_the_key_on_every_path() {
        let mut rng = crate::test_rng::TestRng::new(7);
        let mut next = |m: u64| rng.below(m);
        for (n, prios, shuffled) in [
            (50, 1, false),
            (300, 4, false),
            (300, 4, true),
            (300, 40, false),
            (0, 1, false),
        ] {
            let facts: Vec<JobFacts> = (0..n)
                .map(|i| JobFacts {
                    prio: next(prios) as i64 - 2,
                    cluster: (i / 7) as i64,
                    proc: (i % 7) as i64,
                    ..JobFacts::default()
                })
                .collect();
            let mut jobs: Vec<u32> = (0..n as u32).filter(|_| next(3) > 0).collect();
            if shuffled {
                for i in (1..jobs.len()).rev() {
                    jobs.swap(i, next(i as u64 + 1) as usize);
                }
            }
            let mut expected = jobs.clone();
            expected.sort_by_key(|&j| {
                let f = &facts[j as usize];
                (std::cmp::Reverse(f.prio), f.cluster, f.proc, j)
            });
            request_order(&mut jobs, &facts);
            assert_eq!(
                jobs, expected,
                "{n} jobs, {prios} priorities, shuffled {shuffled}"
            );
        }
    }

    #[test]
    fn job_constraint_and_demand_weight() {
        let text = "RequestCpus = 4\nRequestMemory = 100\nX = 1\n\nRequestMemory = 7\n";
        let c = crate::matching::config::Config::parse(
            "GROUP_NAMES = g\nNEGOTIATOR_JOB_CONSTRAINT = X == 1\nSLOT_WEIGHT = Cpus + Memory\n",
            "c",
        )
        .unwrap();
        let (k, _) = CycleKnobs::from_config(&c).unwrap();
        let f = facts(text, &k);
        assert_eq!(
            (f.jobs[0].passes_constraint, f.jobs[1].passes_constraint),
            (true, false)
        );
        assert_eq!((f.jobs[0].weight, f.jobs[1].weight), (104.0, 8.0));
    }
}
