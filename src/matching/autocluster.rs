//! Autoclusters, as HTCondor forms them (negotiator.md section 9), and the match
//! classes the batch matcher evaluates once for all their jobs.
//!
//! **Significant attributes** are the names the slot ads (every attribute but
//! list-valued ones) and the negotiator's expressions read from outside
//! (`compute_significant_attrs`), less HTCondor's slot-side and volatile names,
//! `REMOVE_SIGNIFICANT_ATTRIBUTES` and its pattern, plus `Requirements`, `Rank`,
//! `ConcurrencyLimits`, `FlockTo` and `ADD_SIGNIFICANT_ATTRIBUTES`, in the schedd's
//! order; `SIGNIFICANT_ATTRIBUTES` replaces the computed list. A job's
//! **signature** is `Name = <old-syntax text>` for each of them and for every name
//! they reach inside the job (`JobCluster::getClusterid`); equal signatures are one
//! autocluster, numbered from 0 in order of first appearance.
//!
//! HTCondor's rules can put together jobs that match differently: a name it removes
//! that some slot still reads from the job (`KFlops` where a slot lacks it), a
//! list-valued slot attribute it skips, a real literal its text rounds, or an
//! expression whose names the text does not give (`eval()`). A **match class**
//! refines the autocluster so that its jobs are certain to match alike: its key
//! holds every name any slot or rank expression can read from a job, written
//! exactly; a job whose own significant expressions cannot be walked completely
//! (`eval()`, a whole ad, a computed subscript) or that read the clock or
//! `random()` is a class of its own; and when a slot's expressions cannot be walked
//! completely, every attribute of a job is part of its key. Slot expressions that
//! read the clock or `random()` are evaluated once per class and slot, as HTCondor
//! evaluates them once per autocluster.

use super::classify::{KeptPart, PartClasses, PartKey, SharedClasses};
use super::policy::NegotiatorPolicy;
use super::refs::{NameSet, References};
use super::slot_kinds::by_kind;
use crate::ad::ClassAd;
use crate::syntax::ast::Node;
use crate::syntax::unparse::unparse_old_node;
use classad_vm::Str;
use rayon::prelude::*;
use std::sync::{Arc, OnceLock};

/// Names HTCondor's negotiator always drops from the significant attributes: slot
/// attributes some slots lack, and values that change under a running job.
const ALWAYS_REMOVED: [&str; 24] = [
    "CurrentTime",
    "LastHeardFrom",
    "RemoteUser",
    "RemoteOwner",
    "RemoteUserFloor",
    "RemoteUserPrio",
    "RemoteUserResourcesInUse",
    "RemoteGroupResourcesInUse",
    "SubmittorPrio",
    "SubmitterUserPrio",
    "SubmitterUserResourcesInUse",
    "SubmitterGroupResourcesInUse",
    "TotalJobRunTime",
    "MachineLastMatchTime",
    "JobCurrentStartDate",
    "JobState",
    "Mips",
    "KFlops",
    "SlotID",
    "DSlotId",
    "PartitionableSlot",
    "DynamicSlot",
    "Offline",
    "PelicanPluginVersion",
];

/// The schedd's own significant attributes (`MinimalSigAttrs`).
const REQUIRED: [&str; 4] = ["Requirements", "Rank", "ConcurrencyLimits", "FlockTo"];

/// The significant attributes of a pool: HTCondor's list, and what the batch
/// matcher adds to be exact.
#[derive(Clone, Debug)]
pub struct SignificantAttributes {
    names: Vec<Str>,
    /// Names a slot or a rank expression can read from a job that `names` leaves
    /// out.
    extra: Vec<Str>,
    /// Some slot expression reads a job in ways no name gives.
    whole_jobs: bool,
    /// What classifying parts of a queue has found so far, shared by every
    /// part and every call (clones share it too: they classify alike).
    pub(super) shared: Arc<SharedClasses>,
}

impl SignificantAttributes {
    /// The significant attributes of the slots `slots` under `policy`.
    pub fn compute<S: AsRef<ClassAd> + Sync>(slots: &[S], policy: &NegotiatorPolicy) -> Self {
        // Every slot's external names, split into those HTCondor counts and those
        // only list-valued attributes read.
        // Slots of one kind read the same names: each kind is walked once.
        let per_slot: Vec<Arc<SlotReferences>> =
            by_kind(slots, |slot| Arc::new(slot_references(slot)));
        let mut seen = ahash::AHashSet::new();
        let mut counted = NameSet::new();
        let mut all = NameSet::new();
        let mut whole_jobs = false;
        for refs in &per_slot {
            if !seen.insert(Arc::as_ptr(refs)) {
                continue;
            }
            let (c, lists, incomplete) = &**refs;
            for n in c.iter() {
                counted.insert(n);
                all.insert(n);
            }
            for n in lists.iter() {
                all.insert(n);
            }
            whole_jobs |= incomplete;
        }
        // The negotiator's expressions: those evaluated with a slot as MY against
        // the first slot (HTCondor's sample ad), the job constraint against no ad.
        let empty = ClassAd::new();
        let sample = slots.first().map(|s| s.as_ref());
        let slot_exprs = [
            &policy.preemption_requirements,
            &policy.preemption_rank,
            &policy.pre_job_rank,
            &policy.post_job_rank,
        ];
        if let Some(sample) = sample {
            for e in slot_exprs.into_iter().flatten() {
                let r = References::of(sample, &e.tree, e.id);
                whole_jobs |= !r.complete;
                for n in r.external.iter() {
                    counted.insert(n);
                    all.insert(n);
                }
            }
        }
        if let Some(e) = &policy.job_constraint {
            let r = References::of(&empty, &e.tree, e.id);
            whole_jobs |= !r.complete;
            for n in r.external.iter() {
                counted.insert(n);
                all.insert(n);
            }
        }
        let names = match &policy.significant_attributes {
            Some(list) => list.iter().map(|s| Str::from(s.as_str())).collect(),
            None if sample.is_none() => Vec::new(),
            None => htcondor_list(counted, policy),
        };
        let listed: NameSet = {
            let mut s = NameSet::new();
            names.iter().for_each(|n| {
                s.insert(n);
            });
            s
        };
        let mut extra: Vec<Str> = all
            .iter()
            .filter(|n| !listed.contains(n))
            .cloned()
            .collect();
        for r in REQUIRED {
            if !listed.contains(r) && !extra.iter().any(|e| e.eq_ignore_ascii_case(r)) {
                extra.push(Str::from(r));
            }
        }
        SignificantAttributes {
            names,
            extra,
            whole_jobs,
            shared: Arc::default(),
        }
    }

    /// Adds `names` to the match classes' keys (not to HTCondor's list): for
    /// what a caller reads of a class's representative beyond the slots'
    /// expressions, such as the negotiator's `jobsInSlot` reading `RequestCpus`.
    pub fn add_class_names<S: AsRef<str>>(&mut self, names: &[S]) {
        for n in names {
            let n = n.as_ref();
            let known = self
                .names
                .iter()
                .chain(&self.extra)
                .any(|e| e.eq_ignore_ascii_case(n));
            if !known {
                self.extra.push(Str::from(n));
            }
        }
        // The classes worked out so far were keyed without the new names.
        self.shared = Arc::default();
    }

    /// True when jobs clustered by `other` are clustered as by these: the
    /// same names, in the same order, the same further names, and the same
    /// reading of whole jobs.
    pub fn same_as(&self, other: &SignificantAttributes) -> bool {
        self.names == other.names
            && self.extra == other.extra
            && self.whole_jobs == other.whole_jobs
    }

    /// HTCondor's significant attributes, in the order its signatures list them.
    pub fn names(&self) -> &[Str] {
        &self.names
    }

    /// Names a slot or rank expression can read from a job that HTCondor's list
    /// leaves out (removed names some slot lacks, names in list-valued slot
    /// attributes): the match classes' keys hold them too.
    pub fn extra(&self) -> &[Str] {
        &self.extra
    }

    /// True when some slot expression can read attributes of a job that no name in
    /// it gives (`eval()`, an ad used whole): every attribute of a job is then part
    /// of its match class's key.
    pub fn reads_whole_jobs(&self) -> bool {
        self.whole_jobs
    }

    /// HTCondor's signature of `job`: `Name = <old-syntax text>` lines for the
    /// significant attributes, then for the names they reach inside the job, in
    /// `strcasecmp` order.
    pub fn signature(&self, job: &ClassAd) -> String {
        let (refs, _) = self.walk(job, &self.names);
        let mut out = String::new();
        self.write_signature(job, &refs, &mut out);
        out
    }

    /// Walks the attributes `names` of `job`: what they read, and whether the
    /// walk saw everything.
    pub(super) fn walk(&self, job: &ClassAd, names: &[Str]) -> (References, bool) {
        let mut refs = References::new();
        for n in names {
            if let Some(e) = job.get(n) {
                refs.walk(job, e.tree, e.id);
            }
        }
        let sure = refs.complete && !refs.volatile;
        (refs, sure)
    }

    /// The names a job's signature lists after the significant ones: those
    /// `refs` reach that `is_listed` (HTCondor's significant names) leaves out.
    pub(super) fn expanded<'r>(
        &self,
        refs: &'r References,
        is_listed: impl Fn(&str) -> bool,
    ) -> Vec<&'r Str> {
        let mut ex = NameSet::new();
        for n in refs.external_bare.iter().chain(refs.internal.iter()) {
            if !is_listed(n) {
                ex.insert(n);
            }
        }
        // Spellings as first found: external names, then internal ones.
        ex.iter()
            .map(|n| {
                refs.external_bare
                    .iter()
                    .chain(refs.internal.iter())
                    .find(|r| r.eq_ignore_ascii_case(n))
                    .expect("found above")
            })
            .collect()
    }

    pub(super) fn write_signature(&self, job: &ClassAd, refs: &References, out: &mut String) {
        let mut line = |name: &str| {
            out.push_str(name);
            out.push_str(" = ");
            if let Some(e) = job.get(name) {
                unparse_old_node(e.tree, e.id, out);
            }
            out.push('\n');
        };
        for n in &self.names {
            line(n);
        }
        let is_listed = |n: &str| self.names.iter().any(|l| l.eq_ignore_ascii_case(n));
        for n in self.expanded(refs, is_listed) {
            line(n);
        }
    }
}

/// The external names of one slot: those HTCondor counts (every attribute but
/// list-valued ones), those of its list-valued attributes, and whether some
/// attribute reads the job in ways no name gives.
type SlotReferences = (NameSet, NameSet, bool);

/// What one slot gives a pool's significant attributes (its external
/// names, as spelled, and whether it reads jobs whole): a pool whose slots
/// change but give what they gave, or what other slots give too, keeps its
/// significant attributes (the first slot's names aside, which the
/// negotiator's expressions are walked in).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SlotSignificance {
    counted: Vec<Str>,
    lists: Vec<Str>,
    whole_jobs: bool,
}

impl SlotSignificance {
    /// What `slot` gives.
    pub fn of(slot: &ClassAd) -> SlotSignificance {
        let (counted, lists, whole_jobs) = slot_references(slot);
        SlotSignificance {
            counted: counted.iter().cloned().collect(),
            lists: lists.iter().cloned().collect(),
            whole_jobs,
        }
    }
}

/// The references of `slot`, walked.
fn slot_references(slot: &ClassAd) -> SlotReferences {
    let mut counted = References::new();
    let mut lists = References::new();
    for (_, e) in slot.iter() {
        match e.node() {
            Node::Lit(_) => {}
            Node::List(_) => lists.walk(slot, e.tree, e.id),
            _ => counted.walk(slot, e.tree, e.id),
        }
    }
    let incomplete = !counted.complete || !lists.complete;
    (counted.external, lists.external, incomplete)
}

/// HTCondor's list from the names the slots and expressions read: less the removed
/// names and pattern, then the schedd's required names not yet there.
fn htcondor_list(mut counted: NameSet, policy: &NegotiatorPolicy) -> Vec<Str> {
    for n in ALWAYS_REMOVED {
        counted.remove(n);
    }
    for n in &policy.remove_significant_attributes {
        counted.remove(n);
    }
    let mut names: Vec<Str> = counted
        .iter()
        .filter(|n| {
            !policy
                .remove_significant_attributes_regex
                .as_ref()
                .is_some_and(|re| re.is_match(n))
        })
        .cloned()
        .collect();
    let mut required = NameSet::new();
    for r in REQUIRED
        .iter()
        .copied()
        .chain(policy.add_significant_attributes.iter().map(|s| s.as_str()))
    {
        required.insert(r);
    }
    for n in &names {
        required.remove(n);
    }
    for n in &policy.remove_significant_attributes {
        required.remove(n);
    }
    names.extend(required.iter().cloned());
    names
}

/// Jobs per unit of parallel work when clustering.
const CHUNK: usize = 1 << 16;

/// An ad a matcher can keep as a class's representative without copying it when
/// it is shared already.
pub trait SharedAd: AsRef<ClassAd> {
    /// The ad, shared.
    fn shared(&self) -> Arc<ClassAd>;
}

impl SharedAd for ClassAd {
    fn shared(&self) -> Arc<ClassAd> {
        Arc::new(self.clone())
    }
}

impl SharedAd for Arc<ClassAd> {
    fn shared(&self) -> Arc<ClassAd> {
        self.clone()
    }
}

/// A queue's autoclusters and match classes.
#[derive(Clone, Debug)]
pub struct Autoclusters {
    significant: SignificantAttributes,
    /// Per job, its autocluster.
    cluster_of: Vec<u32>,
    /// How many autoclusters.
    cluster_count: usize,
    /// Per job, its match class.
    class_of: Vec<u32>,
    /// Per match class, its first job.
    representatives: Vec<Arc<ClassAd>>,
    /// Each autocluster's and match class's jobs, made when first asked for:
    /// the cycle needs neither, and a million jobs' lists are memory to fill.
    lists: OnceLock<JobLists>,
}

/// Per autocluster and per match class, its jobs in queue order.
#[derive(Clone, Debug)]
struct JobLists {
    clusters: Vec<Vec<u32>>,
    classes: Vec<Vec<u32>>,
}

impl Autoclusters {
    /// The autoclusters of `jobs` against `slots` under `policy`.
    pub fn new<J, S>(jobs: &[J], slots: &[S], policy: &NegotiatorPolicy) -> Autoclusters
    where
        J: SharedAd + Sync,
        S: AsRef<ClassAd> + Sync,
    {
        Autoclusters::with(jobs, SignificantAttributes::compute(slots, policy))
    }

    /// The autoclusters of `jobs` given the significant attributes.
    pub fn with<J: SharedAd + Sync>(jobs: &[J], significant: SignificantAttributes) -> Self {
        Autoclusters::with_each(jobs, significant, &[], || |_: &ClassAd| ()).0
    }

    /// [`Autoclusters::with`], reading something of every job on the way: each
    /// part of the queue gets a reader from `reader`, and the job's value is
    /// what the reader says of it, read while the job is in the cache (and its
    /// attributes `reads` fetched ahead with the others).
    pub fn with_each<J, T, R>(
        jobs: &[J],
        significant: SignificantAttributes,
        reads: &[&str],
        reader: impl Fn() -> R + Sync,
    ) -> (Self, Vec<T>)
    where
        J: SharedAd + Sync,
        T: Clone + Default + Send,
        R: FnMut(&ClassAd) -> T,
    {
        // Filled on every thread: the first touch of fresh memory is what costs
        // (the kernel zeroes each page), so it is shared out too.
        let mut each = Vec::with_capacity(jobs.len());
        each.par_extend(rayon::iter::repeat_n(T::default(), jobs.len()));
        let parts: Vec<PartClasses> = each
            .par_chunks_mut(CHUNK)
            .zip(jobs.par_chunks(CHUNK))
            // A chunk per task: rayon would otherwise hand a thread several
            // chunks to run in turn, and the other waits for the last of them.
            .with_max_len(1)
            .map(|(out, chunk)| {
                let mut read = reader();
                significant.classify_visiting(chunk, reads, |i, job| out[i] = read(job))
            })
            .collect();
        let mut builder = AutoclusterBuilder::new(significant);
        builder.add_parts(parts, jobs, CHUNK);
        (builder.finish(), each)
    }

    /// The autoclusters given by ids: per job its autocluster (below
    /// `cluster_count`) and its match class, and each class's
    /// representative ([`super::LiveClusters::numbered`]).
    pub(super) fn of_ids(
        significant: SignificantAttributes,
        cluster_of: Vec<u32>,
        cluster_count: usize,
        class_of: Vec<u32>,
        representatives: Vec<Arc<ClassAd>>,
    ) -> Autoclusters {
        Autoclusters {
            significant,
            cluster_of,
            cluster_count,
            class_of,
            representatives,
            lists: OnceLock::new(),
        }
    }

    /// The significant attributes the clusters were formed on.
    pub fn significant(&self) -> &SignificantAttributes {
        &self.significant
    }

    /// How many autoclusters.
    pub fn len(&self) -> usize {
        self.cluster_count
    }

    /// True when there are no jobs.
    pub fn is_empty(&self) -> bool {
        self.cluster_count == 0
    }

    /// How many match classes.
    pub fn class_count(&self) -> usize {
        self.representatives.len()
    }

    fn lists(&self) -> &JobLists {
        self.lists.get_or_init(|| JobLists {
            clusters: list_jobs(self.cluster_count, &self.cluster_of),
            classes: list_jobs(self.representatives.len(), &self.class_of),
        })
    }

    /// How many jobs.
    pub fn jobs_len(&self) -> usize {
        self.cluster_of.len()
    }

    /// The autocluster of job `j` (its index in the queue).
    pub fn cluster_of(&self, j: usize) -> u32 {
        self.cluster_of[j]
    }

    /// The jobs of autocluster `id`, in queue order.
    pub fn jobs(&self, id: u32) -> &[u32] {
        &self.lists().clusters[id as usize]
    }

    /// Every autocluster's jobs, by id.
    pub fn clusters(&self) -> &[Vec<u32>] {
        &self.lists().clusters
    }

    /// The match class of job `j`: jobs of one class are sure to match, and rank,
    /// every slot alike (see the module doc).
    pub fn class_of(&self, j: usize) -> u32 {
        self.class_of[j]
    }

    /// Every match class's jobs, by class, numbered in order of first appearance.
    pub fn classes(&self) -> &[Vec<u32>] {
        &self.lists().classes
    }

    /// The first job of match class `c`, which stands for all of them.
    pub fn representative(&self, c: u32) -> &Arc<ClassAd> {
        &self.representatives[c as usize]
    }

    /// The first job of every match class, by class.
    pub fn representatives(&self) -> &[Arc<ClassAd>] {
        &self.representatives
    }

    /// The same autoclusters with every job a match class of its own (`jobs` are
    /// the queue the clusters were formed from): for evaluating each job on its
    /// own, as a comparison, while the autoclusters keep their meaning.
    pub fn one_class_per_job(mut self, jobs: &[Arc<ClassAd>]) -> Autoclusters {
        assert_eq!(jobs.len(), self.cluster_of.len(), "the queue clustered");
        self.class_of = (0..jobs.len() as u32).collect();
        self.representatives = jobs.to_vec();
        self.lists = OnceLock::new();
        self
    }
}

/// Autoclusters built a part of the queue at a time, in queue order: a part's ads
/// can be dropped once added (only each class's first job is kept), so a queue
/// read in parts ([`crate::ad::parts`]) is never held whole. Work out each part's
/// classes with [`SignificantAttributes::classify`] (on any thread), then
/// [`AutoclusterBuilder::add`] them in order.
///
/// ```
/// use classad::ad::read_ads;
/// use classad::matching::autocluster::AutoclusterBuilder;
/// use classad::matching::{NegotiatorPolicy, SignificantAttributes};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let slots = read_ads("Requirements = TARGET.RequestCpus <= 4\n", "slots")?;
/// let sig = SignificantAttributes::compute(&slots, &NegotiatorPolicy::default());
/// let mut builder = AutoclusterBuilder::new(sig);
/// for text in ["RequestCpus = 1\n\nRequestCpus = 8\n", "RequestCpus = 1\n"] {
///     let part = read_ads(text, "jobs")?;
///     let classes = builder.significant().classify(&part);
///     builder.add(classes, &part);
/// }
/// let clusters = builder.finish();
/// assert_eq!(clusters.jobs(0), [0, 2]);
/// # Ok(())
/// # }
/// ```
pub struct AutoclusterBuilder {
    significant: SignificantAttributes,
    by_signature: ahash::AHashMap<String, u32>,
    by_key: ahash::AHashMap<(u32, Arc<[u8]>), u32>,
    clusters: Autoclusters,
}

impl AutoclusterBuilder {
    /// No jobs yet.
    pub fn new(significant: SignificantAttributes) -> AutoclusterBuilder {
        AutoclusterBuilder {
            significant: significant.clone(),
            by_signature: ahash::AHashMap::new(),
            by_key: ahash::AHashMap::new(),
            clusters: Autoclusters {
                significant,
                cluster_of: Vec::new(),
                cluster_count: 0,
                class_of: Vec::new(),
                representatives: Vec::new(),
                lists: OnceLock::new(),
            },
        }
    }

    /// The significant attributes, to classify parts with.
    pub fn significant(&self) -> &SignificantAttributes {
        &self.significant
    }

    /// Adds the next part of the queue: `jobs`, whose classes `part` are (from
    /// [`SignificantAttributes::classify`] of the same jobs). Ids are given in
    /// order of first appearance.
    pub fn add<J: SharedAd + Sync>(&mut self, part: PartClasses, jobs: &[J]) {
        assert_eq!(part.of_job.len(), jobs.len(), "the part's classes and jobs");
        if !jobs.is_empty() {
            self.add_parts(vec![part], jobs, jobs.len());
        }
    }

    /// Adds the next parts of the queue, `jobs` cut in parts of `len` (the last
    /// may be shorter), whose classes `parts` are: as [`AutoclusterBuilder::add`]
    /// of each in turn, with each job's ids written on rayon's threads and each
    /// id's list of jobs sized once (fresh memory is what costs here).
    pub fn add_parts<J: SharedAd + Sync>(
        &mut self,
        parts: Vec<PartClasses>,
        jobs: &[J],
        len: usize,
    ) {
        let len = len.max(1);
        assert_eq!(
            parts.len(),
            jobs.len().div_ceil(len),
            "a part per {len} jobs"
        );
        for (part, chunk) in parts.iter().zip(jobs.chunks(len)) {
            assert_eq!(
                part.of_job.len(),
                chunk.len(),
                "the part's classes and jobs"
            );
        }
        // Ids, in order of first appearance: one part after another, each
        // part's signatures and keyed classes first, then its classes of their
        // own in job order.
        let ids: Vec<PartIds> = parts
            .into_iter()
            .zip(jobs.chunks(len))
            .map(|(part, chunk)| {
                let (sigs, keys) = self.number(part.signatures, &part.keys, chunk);
                (sigs, keys, part.of_job)
            })
            .collect();
        self.write_ids(ids, jobs.len(), len);
    }

    /// Adds the next part of the queue, classified and with only the jobs its
    /// classes can need ([`PartClasses::keeping_firsts`]): as
    /// [`AutoclusterBuilder::add`] of the whole part.
    pub fn add_kept<J: SharedAd>(&mut self, part: KeptPart<J>) {
        let KeptPart { classes, firsts } = part;
        let jobs = classes.of_job.len();
        if jobs == 0 {
            return;
        }
        let (sigs, keys) = self.number(classes.signatures, &classes.keys, &firsts);
        self.write_ids(vec![(sigs, keys, classes.of_job)], jobs, jobs);
    }

    /// Writes each job's cluster and class from its part's ids: `jobs` new
    /// jobs in parts of `len` (the last may be shorter), one part per entry of
    /// `ids`.
    fn write_ids(&mut self, ids: Vec<PartIds>, jobs: usize, len: usize) {
        let a = &mut self.clusters;
        let base = a.cluster_of.len();
        for v in [&mut a.cluster_of, &mut a.class_of] {
            if v.is_empty() {
                // Zeroed fresh memory is not touched until written, below, on
                // every thread.
                *v = vec![0; jobs];
            } else {
                v.resize(base + jobs, 0);
            }
        }
        a.cluster_of[base..]
            .par_chunks_mut(len)
            .zip(a.class_of[base..].par_chunks_mut(len))
            .zip(ids.par_iter())
            .with_max_len(1)
            .for_each(|((clusters, classes), (sigs, keys, of_job))| {
                for ((c, k), &(s, key)) in clusters.iter_mut().zip(classes).zip(of_job) {
                    *c = sigs[s as usize];
                    *k = keys[key as usize];
                }
            });
    }

    /// Gives a part's new signatures and classes their ids: (per signature of
    /// the part, its id; per key of the part, its class).
    fn number<J: SharedAd>(
        &mut self,
        signatures: Vec<String>,
        keys: &[PartKey],
        jobs: &[J],
    ) -> (Vec<u32>, Vec<u32>) {
        let a = &mut self.clusters;
        let sig_ids: Vec<u32> = signatures
            .into_iter()
            .map(|s| {
                let next = a.cluster_count as u32;
                let id = *self.by_signature.entry(s).or_insert(next);
                if id == next {
                    a.cluster_count += 1;
                }
                id
            })
            .collect();
        let mut key_ids: Vec<u32> = keys
            .iter()
            .map(|(s, first, k)| match k {
                Some(k) => {
                    let next = a.representatives.len() as u32;
                    let id = *self
                        .by_key
                        .entry((sig_ids[*s as usize], k.clone()))
                        .or_insert(next);
                    if id == next {
                        a.representatives.push(jobs[*first as usize].shared());
                    }
                    id
                }
                None => u32::MAX,
            })
            .collect();
        // A class of its own per such key (one per job, in job order).
        for (id, (_, first, k)) in key_ids.iter_mut().zip(keys) {
            if k.is_none() {
                a.representatives.push(jobs[*first as usize].shared());
                *id = a.representatives.len() as u32 - 1;
            }
        }
        (sig_ids, key_ids)
    }

    /// The autoclusters of every job added.
    pub fn finish(self) -> Autoclusters {
        self.clusters
    }
}

/// A part's ids: per signature of the part, its cluster; per key, its class;
/// per job, its (signature, key) in the part.
type PartIds = (Vec<u32>, Vec<u32>, Vec<(u32, u32)>);

/// Per id (of `ids`), the jobs that `of` gives it, in queue order (job `j` has
/// id `of[j]`), each list made at its size.
fn list_jobs(ids: usize, of: &[u32]) -> Vec<Vec<u32>> {
    let mut counts = vec![0u32; ids];
    for &id in of {
        counts[id as usize] += 1;
    }
    let mut lists: Vec<Vec<u32>> = counts
        .iter()
        .map(|&n| Vec::with_capacity(n as usize))
        .collect();
    for (j, &id) in of.iter().enumerate() {
        lists[id as usize].push(j as u32);
    }
    lists
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;

    fn shared_ads(text: &str) -> Vec<Arc<ClassAd>> {
        read_ads(text, "jobs")
            .unwrap()
            .into_iter()
            .map(Arc::new)
            .collect()
    }

    #[test]
    fn slots_alike_but_for_one_expression_read_both_names() {
        // Same names, same trees but one: a list of names or a Requirements of
        // its own. Each slot kind is walked once; a kind must not stand for
        // slots whose expressions differ.
        let text = "Requirements = TARGET.A > 0\nL = { TARGET.P }\nCpus = 1\n\n\
                    Requirements = TARGET.A > 0\nL = { TARGET.Q }\nCpus = 2\n\n\
                    Requirements = TARGET.B > 0\nL = { TARGET.P }\nCpus = 3\n";
        let slots = read_ads(text, "slots").unwrap();
        let sig = SignificantAttributes::compute(&slots, &NegotiatorPolicy::default());
        let names: Vec<&str> = sig
            .names()
            .iter()
            .chain(sig.extra())
            .map(|n| n.as_str())
            .collect();
        for n in ["A", "B", "P", "Q"] {
            assert!(names.contains(&n), "{n} in {names:?}");
        }
    }

    #[test]
    fn each_jobs_value_lands_at_its_index_across_parts() {
        // More jobs than one part holds, of two classes and two layouts: every
        // job's read value is its own, and the clusters are those of `with`.
        let slots = read_ads("Requirements = TARGET.RequestCpus <= 4\n", "slots").unwrap();
        let sig = SignificantAttributes::compute(&slots, &NegotiatorPolicy::default());
        let n = CHUNK + CHUNK / 2;
        let text: String = (0..n)
            .map(|i| match i % 3 {
                0 => format!("ProcId = {i}\nRequestCpus = 1\n\n"),
                1 => format!("RequestCpus = 1\nProcId = {i}\n\n"),
                _ => format!("ProcId = {i}\nRequestCpus = 8\n\n"),
            })
            .collect();
        let jobs = shared_ads(&text);
        let (clusters, procs) = Autoclusters::with_each(&jobs, sig.clone(), &["ProcId"], || {
            |job: &ClassAd| match job.get("ProcId").map(|e| e.node().clone()) {
                Some(Node::Lit(classad_vm::Value::Int(i))) => i,
                _ => -1,
            }
        });
        assert_eq!(procs, (0..n as i64).collect::<Vec<_>>());
        let plain = Autoclusters::with(&jobs, sig);
        assert_eq!(clusters.len(), 2);
        assert_eq!(clusters.clusters(), plain.clusters());
        assert_eq!(clusters.classes(), plain.classes());
        assert_eq!(clusters.cluster_of(n - 1), 1);
    }

    #[test]
    fn parts_added_at_once_are_numbered_as_parts_added_in_turn() {
        // Jobs of several signatures and classes, and jobs of classes of their
        // own (`random()`), cut in parts of five: `add_parts` numbers clusters,
        // classes and representatives as `add` of one part after another does.
        let slots = read_ads(
            "Requirements = TARGET.RequestCpus <= 4 && TARGET.X > 0\n",
            "slots",
        )
        .unwrap();
        let sig = SignificantAttributes::compute(&slots, &NegotiatorPolicy::default());
        let text: String = (0..23)
            .map(|i| match i % 4 {
                0 => format!("ProcId = {i}\nRequestCpus = 1\nX = 1\n\n"),
                1 => format!("ProcId = {i}\nRequestCpus = {}\nX = 1\n\n", i % 3),
                2 => format!("ProcId = {i}\nRequestCpus = 2\nX = random(10)\n\n"),
                _ => format!("ProcId = {i}\nX = {}\n\n", i % 2),
            })
            .collect();
        let jobs = shared_ads(&text);
        let len = 5;
        let mut in_turn = AutoclusterBuilder::new(sig.clone());
        for part in jobs.chunks(len) {
            in_turn.add(sig.classify(part), part);
        }
        let in_turn = in_turn.finish();
        let mut at_once = AutoclusterBuilder::new(sig.clone());
        let parts = jobs.chunks(len).map(|p| sig.classify(p)).collect();
        at_once.add_parts(parts, &jobs, len);
        let at_once = at_once.finish();
        // Each part keeping only its keys' first jobs (the rest dropped where
        // it was classified) numbers them alike too.
        let mut kept = AutoclusterBuilder::new(sig.clone());
        for part in jobs.chunks(len) {
            kept.add_kept(sig.classify(part).keeping_firsts(part.to_vec()));
        }
        let kept = kept.finish();
        assert!(in_turn.len() > 2 && in_turn.classes().len() > in_turn.len());
        let procs = |a: &Autoclusters| -> Vec<String> {
            a.representatives()
                .iter()
                .map(|r| format!("{:?}", r.get("ProcId").map(|e| e.node().clone())))
                .collect()
        };
        for other in [&at_once, &kept] {
            assert_eq!(other.clusters(), in_turn.clusters());
            assert_eq!(other.classes(), in_turn.classes());
            for j in 0..jobs.len() {
                assert_eq!(other.cluster_of(j), in_turn.cluster_of(j));
                assert_eq!(other.class_of(j), in_turn.class_of(j));
            }
            assert_eq!(procs(other), procs(&in_turn));
        }
        // Within a part, its keyed classes come first, then its classes of
        // their own in job order.
        let text = "RequestCpus = 1\nX = 1\n\nX = random(10)\n\nRequestCpus = 2\nX = 1\n\n\
                    X = random(10)\n\nRequestCpus = 1\nX = 1\n";
        let jobs = read_ads(text, "jobs").unwrap();
        let mut b = AutoclusterBuilder::new(sig.clone());
        b.add(sig.classify(&jobs), &jobs);
        let one = b.finish();
        let classes: Vec<u32> = (0..jobs.len()).map(|j| one.class_of(j)).collect();
        assert_eq!(classes, [0, 2, 1, 3, 0]);
    }
}
