//! One job's class, worked out: its HTCondor signature and its exact match-class
//! key (see [`super::autocluster`]), and what makes a queue cheap to classify:
//! every class worked out is remembered under a hash of the job's significant
//! expressions, and a later job whose looked-up attributes are the same
//! expressions (the same node, equal literals, or trees written alike) is in the
//! same classes without a walk or any text. Where each layout of ads keeps the
//! names is found once per layout. The parts of a queue, classified on several
//! threads, share what they work out (see [`SharedClasses`]): a class is worked
//! out about once per queue rather than once per part.

use super::autocluster::SignificantAttributes;
use crate::ad::ClassAd;
use crate::syntax::ast::{Expr, ExprView, Node, NodeId};
use classad_vm::{Str, Value};
use std::hash::Hasher;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

/// Appends an exact encoding of the subtree at `id`: equal encodings are equal
/// trees (reals by their bits). False for a literal list or record value, which
/// has no encoding here.
pub(crate) fn exact_text(tree: &Expr, id: NodeId, out: &mut Vec<u8>) -> bool {
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
        (Node::Lit(x), Node::Lit(y)) => same_literal(x, y),
        _ => false,
    }
}

/// True when two literal values print and evaluate alike (reals by their bits;
/// lists and records never, as they have no exact text).
fn same_literal(x: &Value, y: &Value) -> bool {
    match (x, y) {
        (Value::Undefined, Value::Undefined) | (Value::Error, Value::Error) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Real(x), Value::Real(y)) => x.to_bits() == y.to_bits(),
        // Strings of one part of a file share their text: by address first.
        (Value::Str(x), Value::Str(y)) => {
            std::ptr::eq(x.as_str(), y.as_str()) || x.as_str() == y.as_str()
        }
        (Value::AbsTime(x), Value::AbsTime(y)) => x == y,
        (Value::RelTime(x), Value::RelTime(y)) => x.to_bits() == y.to_bits(),
        _ => false,
    }
}

/// An expression a class was worked out with, and its canonical id.
type Seen<'j> = (ExprView<'j>, Option<u32>);

/// A job's class, as worked out for one job and reused by the next jobs whose
/// looked-up attributes are the same expressions.
struct Worked<'j> {
    /// The class's (signature, key) indices within the part.
    ids: (u32, u32),
    /// Every name looked up (an index into the part's names), and the expression
    /// the job it was worked out for has there (`None`: absent) with its
    /// canonical id (see [`Canon`]).
    looked: Vec<(u32, Option<Seen<'j>>)>,
    /// The key holds every attribute of the job: another job must have as many.
    whole: Option<usize>,
}

/// The names the classes of a part look up, and where each layout of ads (a
/// shared, sorted name list) keeps them, found once per layout and name.
#[derive(Default)]
struct NameTable {
    names: classad_vm::interner::Interner,
    /// Per layout (by its identity), per name: `UNKNOWN`, `ABSENT` or a position.
    layouts: ahash::AHashMap<usize, Vec<u32>>,
}

const UNKNOWN: u32 = u32::MAX;
const ABSENT: u32 = u32::MAX - 1;

impl NameTable {
    fn intern(&mut self, name: &str) -> u32 {
        self.names.intern(name)
    }

    /// Where `job` keeps name `n` (`ABSENT` when it lacks it), given that
    /// `positions` are its layout's, found here when not known yet.
    fn position(names: &[Str], positions: &mut Vec<u32>, job: &ClassAd, n: u32) -> u32 {
        if positions.len() <= n as usize {
            positions.resize(names.len(), UNKNOWN);
        }
        let at = &mut positions[n as usize];
        if *at == UNKNOWN {
            *at = job
                .position(&names[n as usize])
                .map_or(ABSENT, |p| p as u32);
        }
        *at
    }

    /// The expression `job` has for name `n` (see [`NameTable::position`]).
    fn lookup<'j>(
        names: &[Str],
        positions: &mut Vec<u32>,
        job: &'j ClassAd,
        n: u32,
    ) -> Option<ExprView<'j>> {
        let at = NameTable::position(names, positions, job, n);
        (at != ABSENT).then(|| job.at(at as usize))
    }
}

/// How many expression texts, and how many classes, [`SharedClasses`] keeps at
/// most: past that, parts work out what they meet on their own, as exactly.
const SHARED_MAX: usize = 1 << 14;

/// What the parts of a queue share while they are classified, on any thread:
/// the canonical ids of expression texts (so that a hash of a job's
/// expressions is the same in every part), and the classes worked out so far,
/// so that a class worked out in one part is found in another by a check
/// rather than worked out again. Locked only when a part meets an expression
/// or a class it has not seen itself.
#[derive(Default)]
pub(super) struct SharedClasses {
    texts: Mutex<ahash::AHashMap<Vec<u8>, u32>>,
    published: RwLock<Published>,
}

impl std::fmt::Debug for SharedClasses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let texts = self.texts.lock().unwrap_or_else(PoisonError::into_inner);
        let published = self
            .published
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("SharedClasses")
            .field("texts", &texts.len())
            .field("classes", &published.list.len())
            .finish()
    }
}

/// The classes parts have worked out, filed under the hash of their
/// significant expressions (see [`PartClassifier::find`]).
#[derive(Default)]
struct Published {
    list: Vec<Arc<PublishedClass>>,
    by_hash: ahash::AHashMap<u64, smallvec::SmallVec<[u32; 2]>>,
}

/// A class as one part worked it out, held without the part's ads: the
/// expressions it was worked out with are kept as values or shared trees.
struct PublishedClass {
    signature: String,
    key: Arc<[u8]>,
    /// Each name as spelled, and what the job had there.
    looked: Vec<(Str, Looked)>,
    whole: Option<usize>,
}

/// What a published class's job had under one name.
enum Looked {
    Absent,
    Literal(Value),
    /// A node of a tree, and its canonical id.
    Expr(Arc<Expr>, NodeId, Option<u32>),
}

/// Canonical ids of expressions that are not literals: trees written alike
/// (equal [`exact_text`]) share an id, whichever ad or part of the queue holds
/// them, since each part of a queue is parsed with trees of its own.
struct Canon<'s> {
    by_node: ahash::AHashMap<(usize, NodeId), Option<u32>>,
    /// The ids of texts, shared by every part.
    texts: &'s Mutex<ahash::AHashMap<Vec<u8>, u32>>,
}

impl Canon<'_> {
    /// The id of `e`; `None` for a literal, or a tree with a literal list or
    /// record (found alike only as the same node).
    fn id(&mut self, e: ExprView<'_>) -> Option<u32> {
        if matches!(e.node(), Node::Lit(_)) {
            return None;
        }
        let node = (Arc::as_ptr(e.tree) as usize, e.id);
        if let Some(&id) = self.by_node.get(&node) {
            return id;
        }
        let mut text = Vec::new();
        let id = if exact_text(e.tree, e.id, &mut text) {
            let mut texts = self.texts.lock().unwrap_or_else(PoisonError::into_inner);
            match texts.get(&text) {
                Some(&id) => Some(id),
                // No id: the expression is then alike only to its own node.
                None if texts.len() >= SHARED_MAX => None,
                None => {
                    let id = texts.len() as u32;
                    texts.insert(text, id);
                    Some(id)
                }
            }
        } else {
            None
        };
        self.by_node.insert(node, id);
        id
    }

    /// True when `b` is sure to print and evaluate as `a` (whose id is `a_id`).
    fn alike(&mut self, a: ExprView<'_>, a_id: Option<u32>, b: ExprView<'_>) -> bool {
        same_expr(a, b) || (a_id.is_some() && a_id == self.id(b))
    }

    /// Hashes `e` (`None`: absent) so that expressions alike hash alike.
    fn hash(&mut self, e: Option<ExprView<'_>>, h: &mut impl Hasher) {
        let Some(e) = e else {
            h.write_u8(0);
            return;
        };
        match e.node() {
            Node::Lit(v) => {
                h.write_u8(1);
                match v {
                    Value::Real(r) | Value::RelTime(r) => h.write_u64(r.to_bits()),
                    Value::Int(i) => h.write_i64(*i),
                    Value::Str(s) => h.write(s.as_str().as_bytes()),
                    Value::Bool(b) => h.write_u8(*b as u8),
                    _ => h.write_u8(2),
                }
            }
            _ => match self.id(e) {
                Some(id) => {
                    h.write_u8(2);
                    h.write_u32(id);
                }
                None => {
                    h.write_u8(3);
                    h.write_usize(Arc::as_ptr(e.tree) as usize);
                    h.write_u32(e.id);
                }
            },
        }
    }
}

/// Classifies the jobs of one part, remembering every class worked out so that
/// a job whose looked-up attributes are the same expressions as an earlier job's
/// is found by a hash of its significant expressions and a check, without a walk
/// or any text.
struct PartClassifier<'s, 'j> {
    sig: &'s SignificantAttributes,
    table: NameTable,
    canon: Canon<'s>,
    /// The significant names (and extra ones) in the table, hashed to find a
    /// worked-out class.
    probes: Vec<u32>,
    worked: Vec<Worked<'j>>,
    by_hash: ahash::AHashMap<u64, smallvec::SmallVec<[u32; 2]>>,
    sig_index: ahash::AHashMap<String, u32>,
    key_index: ahash::AHashMap<(u32, Arc<[u8]>), u32>,
    out: PartClasses,
}

impl<'s, 'j> PartClassifier<'s, 'j> {
    fn new(sig: &'s SignificantAttributes, jobs: usize) -> Self {
        let mut table = NameTable::default();
        let probes = sig
            .names()
            .iter()
            .chain(sig.extra())
            .map(|n| table.intern(n))
            .collect();
        PartClassifier {
            sig,
            table,
            canon: Canon {
                by_node: ahash::AHashMap::new(),
                texts: &sig.shared.texts,
            },
            probes,
            worked: Vec::new(),
            by_hash: ahash::AHashMap::new(),
            sig_index: ahash::AHashMap::new(),
            key_index: ahash::AHashMap::new(),
            out: PartClasses {
                of_job: Vec::with_capacity(jobs),
                ..PartClasses::default()
            },
        }
    }

    /// True when `job` has the expressions `w` was worked out with. Each
    /// expression found alike takes the place of the one `w` held: the next
    /// job, read from the same arena, is then told alike by address.
    fn holds(
        table: &NameTable,
        canon: &mut Canon,
        positions: &mut Vec<u32>,
        w: &mut Worked<'j>,
        job: &'j ClassAd,
    ) -> bool {
        if w.whole.is_some_and(|len| len != job.len()) {
            return false;
        }
        w.looked.iter_mut().all(|(n, was)| {
            match (
                was,
                NameTable::lookup(table.names.names(), positions, job, *n),
            ) {
                (None, None) => true,
                (Some((a, id)), Some(b)) => {
                    let alike = canon.alike(*a, *id, b);
                    if alike {
                        *a = b;
                    }
                    alike
                }
                _ => false,
            }
        })
    }

    /// The positions of the names in `job`'s layout, taken out of the table
    /// while `job` is classified.
    fn take_layout(&mut self, job: &ClassAd) -> Vec<u32> {
        self.table
            .layouts
            .remove(&job.layout_id())
            .unwrap_or_default()
    }

    /// The class worked out already that `job` is in, if any, else the hash to
    /// file the job's class under once worked out.
    fn find(
        &mut self,
        positions: &mut Vec<u32>,
        job: &'j ClassAd,
        last: Option<u32>,
    ) -> Result<u32, u64> {
        let (table, canon, worked) = (&self.table, &mut self.canon, &mut self.worked);
        if let Some(w) = last {
            if Self::holds(table, canon, positions, &mut worked[w as usize], job) {
                return Ok(w);
            }
        }
        let mut h = ahash::AHasher::default();
        for &n in &self.probes {
            canon.hash(
                NameTable::lookup(table.names.names(), positions, job, n),
                &mut h,
            );
        }
        let hash = h.finish();
        let known = self.by_hash.get(&hash).and_then(|ws| {
            ws.iter()
                .copied()
                .find(|&w| Self::holds(table, canon, positions, &mut worked[w as usize], job))
        });
        known.ok_or(hash)
    }

    /// True when `job` has the expressions the published class `p` was worked
    /// out with.
    fn holds_published(
        table: &mut NameTable,
        canon: &mut Canon,
        positions: &mut Vec<u32>,
        p: &PublishedClass,
        job: &'j ClassAd,
    ) -> bool {
        if p.whole.is_some_and(|len| len != job.len()) {
            return false;
        }
        p.looked.iter().all(|(name, was)| {
            let n = table.intern(name);
            match (
                was,
                NameTable::lookup(table.names.names(), positions, job, n),
            ) {
                (Looked::Absent, None) => true,
                (Looked::Literal(x), Some(b)) => {
                    matches!(b.node(), Node::Lit(y) if same_literal(x, y))
                }
                (Looked::Expr(tree, id, cid), Some(b)) => {
                    same_expr(ExprView { tree, id: *id }, b)
                        || (cid.is_some() && *cid == canon.id(b))
                }
                _ => false,
            }
        })
    }

    /// The class another part worked out that `job` is in (filed under
    /// `hash`), taken into this part as if worked out here for job `i`.
    fn adopt(
        &mut self,
        hash: u64,
        positions: &mut Vec<u32>,
        i: usize,
        job: &'j ClassAd,
    ) -> Option<u32> {
        let found = {
            let published = self
                .sig
                .shared
                .published
                .read()
                .unwrap_or_else(PoisonError::into_inner);
            let (table, canon) = (&mut self.table, &mut self.canon);
            published
                .by_hash
                .get(&hash)?
                .iter()
                .map(|&w| &published.list[w as usize])
                .find(|p| Self::holds_published(table, canon, positions, p, job))?
                .clone()
        };
        let s = self.signature_index(&found.signature);
        let k = self.key_index_of(s, i, found.key.clone());
        self.out.of_job.push((s, k));
        // The names were interned by the check; the expressions are this job's,
        // alike to the published ones.
        let looked = found
            .looked
            .iter()
            .map(|(name, _)| {
                let n = self.table.intern(name);
                let e = NameTable::lookup(self.table.names.names(), positions, job, n);
                (n, e.map(|e| (e, self.canon.id(e))))
            })
            .collect();
        self.worked.push(Worked {
            ids: (s, k),
            looked,
            whole: found.whole,
        });
        Some(self.worked.len() as u32 - 1)
    }

    /// Files the class `w` worked out here under `hash` for the other parts.
    fn publish(&self, hash: u64, w: u32) {
        let worked = &self.worked[w as usize];
        let (s, k) = worked.ids;
        let Some(key) = &self.out.keys[k as usize].2 else {
            return;
        };
        let looked = worked
            .looked
            .iter()
            .map(|&(n, was)| {
                let was = match was {
                    None => Looked::Absent,
                    Some((e, id)) => match e.node() {
                        Node::Lit(v) => Looked::Literal(v.clone()),
                        _ => Looked::Expr(e.tree.clone(), e.id, id),
                    },
                };
                (self.table.names.names()[n as usize].clone(), was)
            })
            .collect();
        let class = PublishedClass {
            signature: self.out.signatures[s as usize].clone(),
            key: key.clone(),
            looked,
            whole: worked.whole,
        };
        let mut published = self
            .sig
            .shared
            .published
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if published.list.len() < SHARED_MAX {
            let id = published.list.len() as u32;
            published.list.push(Arc::new(class));
            published.by_hash.entry(hash).or_default().push(id);
        }
    }

    /// The index of `key` (of signature `s`) in this part, added for job `i`
    /// when new.
    fn key_index_of(&mut self, s: u32, i: usize, key: Arc<[u8]>) -> u32 {
        let next = self.out.keys.len() as u32;
        let k = *self.key_index.entry((s, key.clone())).or_insert(next);
        if k == next {
            self.out.keys.push((s, i as u32, Some(key)));
        }
        k
    }

    /// The index of `signature` in this part, added when new.
    fn signature_index(&mut self, signature: &str) -> u32 {
        match self.sig_index.get(signature) {
            Some(&s) => s,
            None => {
                let s = self.out.signatures.len() as u32;
                self.sig_index.insert(signature.to_string(), s);
                self.out.signatures.push(signature.to_string());
                s
            }
        }
    }

    /// Works `job` out in full: its signature and key, and (unless it is a class
    /// of its own) what later jobs must share to be in its classes.
    fn work_out(&mut self, i: usize, job: &'j ClassAd) -> Option<u32> {
        let sig = self.sig;
        let (refs, sure) = sig.walk(job, sig.names());
        let mut signature = String::new();
        sig.write_signature(job, &refs, &mut signature);
        let (key, names) = sig.exact_key(job, &refs, sure);
        let s = self.signature_index(&signature);
        let Some(key) = key else {
            self.out.keys.push((s, i as u32, None));
            self.out.of_job.push((s, self.out.keys.len() as u32 - 1));
            return None;
        };
        let k = self.key_index_of(s, i, Arc::from(key));
        self.out.of_job.push((s, k));
        let mut seen = ahash::AHashSet::new();
        let ids: Vec<u32> = names.iter().map(|n| self.table.intern(n)).collect();
        let looked = ids
            .into_iter()
            .filter(|&n| seen.insert(n))
            .map(|n| {
                let at = job.position(&self.table.names.names()[n as usize]).ok();
                (n, at.map(|p| (job.at(p), self.canon.id(job.at(p)))))
            })
            .collect();
        self.worked.push(Worked {
            ids: (s, k),
            looked,
            whole: sig.reads_whole_jobs().then(|| job.len()),
        });
        Some(self.worked.len() as u32 - 1)
    }
}

/// A key of a part: its signature's index, the first job with it, and the
/// key (`None`: a class of its own).
pub(super) type PartKey = (u32, u32, Option<Arc<[u8]>>);

/// The classes of one part of a queue, numbered within the part (see
/// [`super::autocluster::AutoclusterBuilder`]).
#[derive(Debug, Default)]
pub struct PartClasses {
    /// Per job of the part: (signature index, key index) into the lists below.
    pub(super) of_job: Vec<(u32, u32)>,
    /// HTCondor's signatures, in order of first appearance in the part.
    pub(super) signatures: Vec<String>,
    /// Per key of the part, in order of first appearance.
    pub(super) keys: Vec<PartKey>,
}

impl SignificantAttributes {
    /// Works out the classes of a part of a queue (any thread; see
    /// [`super::autocluster::AutoclusterBuilder`]). Classes worked out for
    /// earlier parts, on any thread, are taken after a check rather than worked
    /// out again; a bounded number of them is kept with these attributes.
    pub fn classify<J: AsRef<ClassAd>>(&self, jobs: &[J]) -> PartClasses {
        self.classify_visiting(jobs, &[], |_, _| ())
    }

    /// [`SignificantAttributes::classify`], calling `visit(i, job)` on each job
    /// right after it is classified: a caller that reads more of every job (its
    /// submitter, its id: the attributes `reads`) finds it in the cache rather
    /// than in memory again.
    pub fn classify_visiting<J: AsRef<ClassAd>>(
        &self,
        jobs: &[J],
        reads: &[&str],
        mut visit: impl FnMut(usize, &ClassAd),
    ) -> PartClasses {
        let mut c = PartClassifier::new(self, jobs.len());
        let reads: Vec<u32> = reads.iter().map(|n| c.table.intern(n)).collect();
        let mut last = None;
        // The layout of the last job, kept out of the table: jobs of one kind
        // come together.
        let mut layout: Option<(usize, Vec<u32>)> = None;
        for (i, job) in jobs.iter().enumerate() {
            prefetch_ahead(jobs, i, layout.as_ref());
            let job = job.as_ref();
            let mut positions = match layout.take() {
                Some((id, p)) if id == job.layout_id() => p,
                Some((id, p)) => {
                    c.table.layouts.insert(id, p);
                    c.take_layout(job)
                }
                None => c.take_layout(job),
            };
            for &n in &reads {
                NameTable::position(c.table.names.names(), &mut positions, job, n);
            }
            last = match c.find(&mut positions, job, last) {
                Ok(w) => {
                    c.out.of_job.push(c.worked[w as usize].ids);
                    Some(w)
                }
                Err(hash) => {
                    let w = match c.adopt(hash, &mut positions, i, job) {
                        Some(w) => Some(w),
                        None => {
                            let w = c.work_out(i, job);
                            if let Some(w) = w {
                                c.publish(hash, w);
                            }
                            w
                        }
                    };
                    if let Some(w) = w {
                        c.by_hash.entry(hash).or_default().push(w);
                    }
                    w
                }
            };
            layout = Some((job.layout_id(), positions));
            visit(i, job);
        }
        c.out
    }
}

/// How many jobs ahead of the one being classified its memory is asked for: the
/// ad itself that far, its slots half as far, its expressions a quarter (each
/// step needs the one before it in the cache).
const AHEAD: usize = 8;

/// Asks for the memory of the jobs after job `i` that classifying them will
/// read, supposing they are of the last job's `layout`.
fn prefetch_ahead<J: AsRef<ClassAd>>(jobs: &[J], i: usize, layout: Option<&(usize, Vec<u32>)>) {
    if let Some(far) = jobs.get(i + AHEAD) {
        crate::prefetch::prefetch(far.as_ref());
    }
    let Some((id, positions)) = layout else {
        return;
    };
    if let Some(mid) = jobs.get(i + AHEAD / 2).map(|j| j.as_ref()) {
        if mid.layout_id() == *id {
            mid.prefetch_slots(positions);
        }
    }
    if let Some(near) = jobs.get(i + AHEAD / 4).map(|j| j.as_ref()) {
        if near.layout_id() == *id {
            near.prefetch_nodes(positions);
        }
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

#[cfg(test)]
mod tests {
    use crate::ad::{read_ads, ClassAd};
    use crate::matching::{NegotiatorPolicy, SignificantAttributes};

    fn sig(slots: &str) -> SignificantAttributes {
        let slots = read_ads(slots, "slots").unwrap();
        SignificantAttributes::compute(&slots, &NegotiatorPolicy::default())
    }

    fn classes(sig: &SignificantAttributes, jobs: &[ClassAd]) -> Vec<(u32, u32)> {
        sig.classify(jobs).of_job
    }

    #[test]
    fn a_class_seen_before_the_last_is_found_again_and_checked_in_full() {
        // `Foo` is read only through the job's own Requirements: it is not hashed,
        // so the jobs with Foo = 1 and Foo = 3 share a hash and only the check
        // tells them apart.
        let s = sig("Requirements = TARGET.RequestCpus <= 4\n");
        let job = |foo: u32, cpus: u32| {
            format!("Requirements = MY.Foo > 0 && TARGET.Cpus > 0\nFoo = {foo}\nRequestCpus = {cpus}\n\n")
        };
        let text: String = [(1, 1), (2, 1), (1, 1), (3, 1), (1, 2), (3, 1)]
            .iter()
            .map(|&(f, c)| job(f, c))
            .collect();
        let jobs = read_ads(&text, "jobs").unwrap();
        let ids: Vec<u32> = classes(&s, &jobs).iter().map(|c| c.1).collect();
        assert_eq!(ids, [0, 1, 0, 2, 3, 2]);
    }

    #[test]
    fn jobs_read_apart_or_listed_in_another_order_are_one_class() {
        // Two reads make two sets of trees, and the orders two layouts: the
        // classes go by what the expressions say.
        let s = sig("Requirements = TARGET.RequestMemory <= 4096\n");
        let a = "Requirements = TARGET.Memory >= MY.RequestMemory\nRequestMemory = 1024\nOwner = \"a\"\n\n";
        let b = "Owner = \"b\"\nRequestMemory = 1024\nRequirements = TARGET.Memory >= MY.RequestMemory\n\n";
        let c = "Requirements = TARGET.Memory >= MY.RequestMemory\nRequestMemory = 2048\n\n";
        let mut jobs = read_ads(a, "a").unwrap();
        jobs.extend(read_ads(b, "b").unwrap());
        jobs.extend(read_ads(&format!("{a}{c}{a}"), "c").unwrap());
        let part = s.classify(&jobs);
        let ids: Vec<u32> = part.of_job.iter().map(|c| c.1).collect();
        assert_eq!(ids, [0, 0, 0, 1, 0]);
        assert_eq!(part.signatures.len(), 2);
    }

    #[test]
    fn a_class_worked_out_in_another_part_is_taken_only_by_jobs_that_hold_it() {
        // Foo is read only through the job's own Requirements, so jobs with
        // different Foo share a hash. Each part is read apart (trees of its
        // own), the second after the first has published its classes.
        let s = sig("Requirements = TARGET.RequestCpus <= 4\n");
        let job =
            |foo: u32| format!("Requirements = MY.Foo > 0 && TARGET.Cpus > 0\nFoo = {foo}\n\n");
        let part = |foos: &[u32]| -> Vec<ClassAd> {
            read_ads(&foos.iter().map(|&f| job(f)).collect::<String>(), "jobs").unwrap()
        };
        let first = s.classify(&part(&[1, 2]));
        assert_eq!(first.keys.len(), 2);
        let published = |s: &SignificantAttributes| s.shared.published.read().unwrap().list.len();
        assert_eq!(published(&s), 2);
        let second = part(&[3, 1, 2, 3]);
        let shared = s.classify(&second);
        // Foo = 1 and 2 were taken from the first part; only Foo = 3 was new.
        assert_eq!(published(&s), 3);
        let alone = sig("Requirements = TARGET.RequestCpus <= 4\n").classify(&second);
        assert_eq!(shared.of_job, alone.of_job);
        assert_eq!(shared.of_job, [(0, 0), (1, 1), (2, 2), (0, 0)]);
        assert_eq!(shared.signatures, alone.signatures);
        assert_eq!(shared.keys, alone.keys);
    }

    #[test]
    fn a_job_of_its_own_class_is_never_reused() {
        // `random()` makes a class of its own each time, even for equal jobs.
        let s = sig("Requirements = TARGET.X > 0\n");
        let text = "Requirements = random(10) < 5\nX = 1\n\n".repeat(3);
        let jobs = read_ads(&text, "jobs").unwrap();
        let ids: Vec<u32> = classes(&s, &jobs).iter().map(|c| c.1).collect();
        assert_eq!(ids, [0, 1, 2]);
    }
}
