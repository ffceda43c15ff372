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

use super::policy::NegotiatorPolicy;
use super::refs::{NameSet, References};
use crate::ad::ClassAd;
use crate::syntax::ast::{Expr, ExprView, Node, NodeId};
use crate::syntax::unparse::unparse_old_node;
use classad_vm::{Str, Value};
use rayon::prelude::*;
use std::sync::Arc;

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
}

impl SignificantAttributes {
    /// The significant attributes of the slots `slots` under `policy`.
    pub fn compute<S: AsRef<ClassAd> + Sync>(slots: &[S], policy: &NegotiatorPolicy) -> Self {
        // Every slot's external names, split into those HTCondor counts and those
        // only list-valued attributes read.
        let per_slot: Vec<(NameSet, NameSet, bool)> = slots
            .par_iter()
            .map(|slot| slot_references(slot.as_ref()))
            .collect();
        let mut counted = NameSet::new();
        let mut all = NameSet::new();
        let mut whole_jobs = false;
        for (c, lists, incomplete) in &per_slot {
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
        }
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
    fn walk(&self, job: &ClassAd, names: &[Str]) -> (References, bool) {
        let mut refs = References::new();
        for n in names {
            if let Some(e) = job.get(n) {
                refs.walk(job, e.tree, e.id);
            }
        }
        let sure = refs.complete && !refs.volatile;
        (refs, sure)
    }

    /// The names a job's signature lists after the significant ones.
    fn expanded<'r>(&self, refs: &'r References, listed: &[Str]) -> Vec<&'r Str> {
        let mut ex = NameSet::new();
        for n in refs.external_bare.iter().chain(refs.internal.iter()) {
            if !listed.iter().any(|l| l.eq_ignore_ascii_case(n)) {
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

    fn write_signature(&self, job: &ClassAd, refs: &References, out: &mut String) {
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
        for n in self.expanded(refs, &self.names) {
            line(n);
        }
    }

    /// The key of `job`'s match class (see the module doc), or `None` when the job
    /// must be a class of its own; and the names looked up to make it.
    fn exact_key(
        &self,
        job: &ClassAd,
        refs: &References,
        sure: bool,
    ) -> (Option<Vec<u8>>, Vec<Str>) {
        let (extra_refs, extra_sure) = self.walk(job, &self.extra);
        let mut looked: Vec<Str> = self.names.clone();
        looked.extend(self.extra.iter().cloned());
        looked.extend(refs.looked_up.iter().cloned());
        looked.extend(extra_refs.looked_up.iter().cloned());
        if !(sure && extra_sure) {
            return (None, looked);
        }
        let mut key = Vec::new();
        let mut every: Vec<&Str> = self.names.iter().chain(self.extra.iter()).collect();
        every.extend(self.expanded(refs, &self.names));
        every.extend(self.expanded(&extra_refs, &self.names));
        for n in every {
            key.extend_from_slice(n.to_ascii_lowercase().as_bytes());
            key.push(0);
            match job.get(n) {
                Some(e) => {
                    if !exact_text(e.tree, e.id, &mut key) {
                        return (None, looked);
                    }
                }
                None => key.push(0xff),
            }
        }
        if self.whole_jobs {
            key.push(0xfe);
            for (n, e) in job.iter() {
                key.extend_from_slice(n.to_ascii_lowercase().as_bytes());
                key.push(0);
                if !exact_text(e.tree, e.id, &mut key) {
                    return (None, looked);
                }
            }
            looked.extend(job.iter().map(|(n, _)| n.clone()));
        }
        (Some(key), looked)
    }
}

/// The external names of one slot: those HTCondor counts (every attribute but
/// list-valued ones), those of its list-valued attributes, and whether some
/// attribute reads the job in ways no name gives.
fn slot_references(slot: &ClassAd) -> (NameSet, NameSet, bool) {
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

/// Appends an exact encoding of the subtree at `id`: equal encodings are equal
/// trees (reals by their bits). False for a literal list or record value, which
/// has no encoding here.
fn exact_text(tree: &Expr, id: NodeId, out: &mut Vec<u8>) -> bool {
    let mut stack = vec![id];
    while let Some(id) = stack.pop() {
        let node = tree.node(id);
        let name = |out: &mut Vec<u8>, s: &str| {
            out.extend_from_slice(&(s.len() as u64).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        };
        match node {
            Node::Lit(v) => {
                out.push(1);
                match v {
                    Value::Undefined => out.push(0),
                    Value::Error => out.push(1),
                    Value::Bool(b) => out.extend_from_slice(&[2, *b as u8]),
                    Value::Int(i) => {
                        out.push(3);
                        out.extend_from_slice(&i.to_le_bytes());
                    }
                    Value::Real(r) => {
                        out.push(4);
                        out.extend_from_slice(&r.to_bits().to_le_bytes());
                    }
                    Value::Str(s) => {
                        out.push(5);
                        name(out, s);
                    }
                    Value::AbsTime(t) => {
                        out.push(6);
                        out.extend_from_slice(&t.secs.to_le_bytes());
                        out.extend_from_slice(&t.offset.to_le_bytes());
                    }
                    Value::RelTime(r) => {
                        out.push(7);
                        out.extend_from_slice(&r.to_bits().to_le_bytes());
                    }
                    Value::List(_) | Value::Ad(_) => return false,
                }
            }
            Node::Attr {
                scope,
                name: n,
                absolute,
            } => {
                out.extend_from_slice(&[2, scope.is_some() as u8, *absolute as u8]);
                name(out, n);
            }
            Node::Unary(op, _) => out.extend_from_slice(&[3, *op as u8]),
            Node::Binary(op, _, _) => out.extend_from_slice(&[4, *op as u8]),
            Node::Ternary(..) => out.push(5),
            Node::Paren(_) => out.push(6),
            Node::Call { name: n, args } => {
                out.push(7);
                name(out, n);
                out.extend_from_slice(&(args.len() as u64).to_le_bytes());
            }
            Node::List(items) => {
                out.push(8);
                out.extend_from_slice(&(items.len() as u64).to_le_bytes());
            }
            Node::Record(fields) => {
                out.push(9);
                out.extend_from_slice(&(fields.len() as u64).to_le_bytes());
                for (f, _) in fields {
                    name(out, f);
                }
            }
        }
        let mut kids: smallvec::SmallVec<[NodeId; 4]> = smallvec::SmallVec::new();
        node.for_each_child(|k| kids.push(k));
        stack.extend(kids.iter().rev());
    }
    true
}

/// True when the two expressions are sure to print and evaluate alike: the same
/// node of one shared tree, or equal literals (reals by their bits).
fn same_expr(a: ExprView<'_>, b: ExprView<'_>) -> bool {
    if Arc::ptr_eq(a.tree, b.tree) && a.id == b.id {
        return true;
    }
    match (a.node(), b.node()) {
        (Node::Lit(x), Node::Lit(y)) => match (x, y) {
            (Value::Undefined, Value::Undefined) | (Value::Error, Value::Error) => true,
            (Value::Bool(x), Value::Bool(y)) => x == y,
            (Value::Int(x), Value::Int(y)) => x == y,
            (Value::Real(x), Value::Real(y)) => x.to_bits() == y.to_bits(),
            (Value::Str(x), Value::Str(y)) => x.as_str() == y.as_str(),
            (Value::AbsTime(x), Value::AbsTime(y)) => x == y,
            (Value::RelTime(x), Value::RelTime(y)) => x.to_bits() == y.to_bits(),
            _ => false,
        },
        _ => false,
    }
}

/// A job's class, as worked out for one job and reused by the next jobs whose
/// looked-up attributes are the same expressions.
struct Worked {
    /// HTCondor's signature.
    signature: String,
    /// The match class key; `None`: a class of its own.
    key: Option<Vec<u8>>,
    /// Every name looked up, and where it is in the job's names (`None`: absent).
    looked: Vec<(Str, Option<usize>)>,
    /// The key holds every attribute of the job: another job must have no more.
    whole: bool,
}

impl Worked {
    fn new(sig: &SignificantAttributes, job: &ClassAd) -> Worked {
        let (refs, sure) = sig.walk(job, &sig.names);
        let mut signature = String::new();
        sig.write_signature(job, &refs, &mut signature);
        let (key, names) = sig.exact_key(job, &refs, sure);
        let mut seen = NameSet::new();
        let looked = names
            .into_iter()
            .filter(|n| seen.insert(n))
            .map(|n| {
                let at = job.position(&n).ok();
                (n, at)
            })
            .collect();
        Worked {
            signature,
            key,
            looked,
            whole: sig.whole_jobs,
        }
    }

    /// True when `job` would be worked out exactly as `was` (the job this was
    /// worked out for) was.
    fn holds_for(&self, was: &ClassAd, job: &ClassAd) -> bool {
        if self.key.is_none() || (self.whole && job.len() != was.len()) {
            return false;
        }
        let shared = job.shares_names_with(was);
        self.looked.iter().all(|(name, at)| {
            let now = if shared { *at } else { job.position(name).ok() };
            match (at, now) {
                (None, None) => true,
                (Some(a), Some(b)) => same_expr(was.at(*a), job.at(b)),
                _ => false,
            }
        })
    }
}

/// Jobs per unit of parallel work when clustering.
const CHUNK: usize = 4096;

/// A queue's autoclusters and match classes.
#[derive(Clone, Debug)]
pub struct Autoclusters {
    significant: SignificantAttributes,
    /// Per job, its autocluster.
    cluster_of: Vec<u32>,
    /// Per autocluster, its jobs in queue order.
    clusters: Vec<Vec<u32>>,
    /// Per job, its match class.
    class_of: Vec<u32>,
    /// Per match class, its jobs in queue order.
    classes: Vec<Vec<u32>>,
}

/// One chunk's classes, numbered within the chunk.
struct ChunkClasses {
    /// Per job of the chunk: (signature index, key index) into the lists below.
    of_job: Vec<(u32, u32)>,
    signatures: Vec<String>,
    /// `None`: a class of its own.
    keys: Vec<(u32, Option<Vec<u8>>)>,
}

impl Autoclusters {
    /// The autoclusters of `jobs` against `slots` under `policy`.
    pub fn new<J, S>(jobs: &[J], slots: &[S], policy: &NegotiatorPolicy) -> Autoclusters
    where
        J: AsRef<ClassAd> + Sync,
        S: AsRef<ClassAd> + Sync,
    {
        Autoclusters::with(jobs, SignificantAttributes::compute(slots, policy))
    }

    /// The autoclusters of `jobs` given the significant attributes.
    pub fn with<J: AsRef<ClassAd> + Sync>(jobs: &[J], significant: SignificantAttributes) -> Self {
        let sig = &significant;
        let chunks: Vec<ChunkClasses> = jobs
            .par_chunks(CHUNK)
            .map(|chunk| classify_chunk(sig, chunk))
            .collect();
        // Number in order of first appearance: chunks in order, each chunk's
        // classes in the order it met them.
        let mut by_signature: ahash::AHashMap<&str, u32> = ahash::AHashMap::new();
        let mut by_key: ahash::AHashMap<(u32, &[u8]), u32> = ahash::AHashMap::new();
        let mut cluster_of = Vec::with_capacity(jobs.len());
        let mut class_of = Vec::with_capacity(jobs.len());
        let mut clusters: Vec<Vec<u32>> = Vec::new();
        let mut classes: Vec<Vec<u32>> = Vec::new();
        for chunk in &chunks {
            let sig_ids: Vec<u32> = chunk
                .signatures
                .iter()
                .map(|s| {
                    let next = clusters.len() as u32;
                    let id = *by_signature.entry(s.as_str()).or_insert(next);
                    if id == next {
                        clusters.push(Vec::new());
                    }
                    id
                })
                .collect();
            let key_ids: Vec<Option<u32>> = chunk
                .keys
                .iter()
                .map(|(s, k)| {
                    k.as_ref().map(|k| {
                        let next = classes.len() as u32;
                        let id = *by_key.entry((sig_ids[*s as usize], k)).or_insert(next);
                        if id == next {
                            classes.push(Vec::new());
                        }
                        id
                    })
                })
                .collect();
            for &(s, k) in &chunk.of_job {
                let j = cluster_of.len() as u32;
                let cluster = sig_ids[s as usize];
                cluster_of.push(cluster);
                clusters[cluster as usize].push(j);
                let class = match key_ids[k as usize] {
                    Some(c) => c,
                    None => {
                        // A class of its own.
                        classes.push(Vec::new());
                        classes.len() as u32 - 1
                    }
                };
                class_of.push(class);
                classes[class as usize].push(j);
            }
        }
        Autoclusters {
            significant,
            cluster_of,
            clusters,
            class_of,
            classes,
        }
    }

    /// The significant attributes the clusters were formed on.
    pub fn significant(&self) -> &SignificantAttributes {
        &self.significant
    }

    /// How many autoclusters.
    pub fn len(&self) -> usize {
        self.clusters.len()
    }

    /// True when there are no jobs.
    pub fn is_empty(&self) -> bool {
        self.clusters.is_empty()
    }

    /// The autocluster of job `j` (its index in the queue).
    pub fn cluster_of(&self, j: usize) -> u32 {
        self.cluster_of[j]
    }

    /// The jobs of autocluster `id`, in queue order.
    pub fn jobs(&self, id: u32) -> &[u32] {
        &self.clusters[id as usize]
    }

    /// Every autocluster's jobs, by id.
    pub fn clusters(&self) -> &[Vec<u32>] {
        &self.clusters
    }

    /// The match class of job `j`: jobs of one class are sure to match, and rank,
    /// every slot alike (see the module doc).
    pub fn class_of(&self, j: usize) -> u32 {
        self.class_of[j]
    }

    /// Every match class's jobs, by class, numbered in order of first appearance.
    pub fn classes(&self) -> &[Vec<u32>] {
        &self.classes
    }
}

fn classify_chunk<J: AsRef<ClassAd>>(sig: &SignificantAttributes, chunk: &[J]) -> ChunkClasses {
    let mut out = ChunkClasses {
        of_job: Vec::with_capacity(chunk.len()),
        signatures: Vec::new(),
        keys: Vec::new(),
    };
    let mut sig_index: ahash::AHashMap<String, u32> = ahash::AHashMap::new();
    let mut key_index: ahash::AHashMap<(u32, Vec<u8>), u32> = ahash::AHashMap::new();
    // The last job worked out in full, and its indices.
    let mut last: Option<(usize, Worked, (u32, u32))> = None;
    for (i, job) in chunk.iter().enumerate() {
        let job = job.as_ref();
        if let Some((was, worked, ids)) = &last {
            if worked.holds_for(chunk[*was].as_ref(), job) {
                out.of_job.push(*ids);
                continue;
            }
        }
        let worked = Worked::new(sig, job);
        let s = match sig_index.get(&worked.signature) {
            Some(&s) => s,
            None => {
                let s = out.signatures.len() as u32;
                out.signatures.push(worked.signature.clone());
                sig_index.insert(worked.signature.clone(), s);
                s
            }
        };
        let k = match &worked.key {
            Some(key) => match key_index.get(&(s, key.clone())) {
                Some(&k) => k,
                None => {
                    let k = out.keys.len() as u32;
                    out.keys.push((s, Some(key.clone())));
                    key_index.insert((s, key.clone()), k);
                    k
                }
            },
            None => {
                out.keys.push((s, None));
                out.keys.len() as u32 - 1
            }
        };
        out.of_job.push((s, k));
        last = Some((i, worked, (s, k)));
    }
    out
}
