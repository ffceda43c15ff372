//! One job's class, worked out: its HTCondor signature and its exact match-class
//! key (see [`super::autocluster`]), and the shortcut that makes a queue cheap to
//! classify: the next job whose looked-up attributes are the same expressions as
//! the last job worked out is in the same classes, without a walk or any text.

use super::autocluster::SignificantAttributes;
use super::refs::NameSet;
use crate::ad::ClassAd;
use crate::syntax::ast::{Expr, ExprView, Node, NodeId};
use classad_vm::{Str, Value};
use std::sync::Arc;

/// Appends an exact encoding of the subtree at `id`: equal encodings are equal
/// trees (reals by their bits). False for a literal list or record value, which
/// has no encoding here.
pub(super) fn exact_text(tree: &Expr, id: NodeId, out: &mut Vec<u8>) -> bool {
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
        let (refs, sure) = sig.walk(job, sig.names());
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
            whole: sig.reads_whole_jobs(),
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

/// The classes of one part of a queue, numbered within the part (see
/// [`super::autocluster::AutoclusterBuilder`]).
#[derive(Debug, Default)]
pub struct PartClasses {
    /// Per job of the part: (signature index, key index) into the lists below.
    pub(super) of_job: Vec<(u32, u32)>,
    /// HTCondor's signatures, in order of first appearance in the part.
    pub(super) signatures: Vec<String>,
    /// Per key: its signature's index, the first job with it, and the key (`None`:
    /// a class of its own).
    pub(super) keys: Vec<(u32, u32, Option<Vec<u8>>)>,
}

impl SignificantAttributes {
    /// Works out the classes of a part of a queue (any thread; see
    /// [`super::autocluster::AutoclusterBuilder`]).
    pub fn classify<J: AsRef<ClassAd>>(&self, jobs: &[J]) -> PartClasses {
        let mut out = PartClasses {
            of_job: Vec::with_capacity(jobs.len()),
            ..PartClasses::default()
        };
        let mut sig_index: ahash::AHashMap<String, u32> = ahash::AHashMap::new();
        let mut key_index: ahash::AHashMap<(u32, Vec<u8>), u32> = ahash::AHashMap::new();
        // The last job worked out in full, and its indices.
        let mut last: Option<(usize, Worked, (u32, u32))> = None;
        for (i, job) in jobs.iter().enumerate() {
            let job = job.as_ref();
            if let Some((was, worked, ids)) = &last {
                if worked.holds_for(jobs[*was].as_ref(), job) {
                    out.of_job.push(*ids);
                    continue;
                }
            }
            let worked = Worked::new(self, job);
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
                        out.keys.push((s, i as u32, Some(key.clone())));
                        key_index.insert((s, key.clone()), k);
                        k
                    }
                },
                None => {
                    out.keys.push((s, i as u32, None));
                    out.keys.len() as u32 - 1
                }
            };
            out.of_job.push((s, k));
            last = Some((i, worked, (s, k)));
        }
        out
    }
}

/// An exact key of what `job` gives to an evaluation that reads `names` from it:
/// the exact text of each, and of every name they reach inside the job (absent
/// ones marked). Jobs with equal keys give every such evaluation the same value,
/// provided what the names read from the other ad reads nothing back from the
/// job: with `closed`, a job whose expressions for `names` read anything from
/// outside has no key. `None` also when the job's expressions cannot be walked
/// completely or read the clock.
pub(crate) fn reads_key(job: &ClassAd, names: &[Str], closed: bool) -> Option<Vec<u8>> {
    let mut refs = super::refs::References::new();
    for n in names {
        if let Some(e) = job.get(n) {
            refs.walk(job, e.tree, e.id);
        }
    }
    if !refs.complete || refs.volatile || (closed && !refs.external.is_empty()) {
        return None;
    }
    let mut key = Vec::new();
    for n in names.iter().chain(refs.looked_up.iter()) {
        key.extend_from_slice(n.to_ascii_lowercase().as_bytes());
        key.push(0);
        match job.get(n) {
            Some(e) => {
                if !exact_text(e.tree, e.id, &mut key) {
                    return None;
                }
            }
            None => key.push(0xff),
        }
    }
    Some(key)
}
