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
use super::refs::References;
use crate::ad::ClassAd;
use crate::syntax::ast::{Expr, ExprView, Node, NodeId};
pub(crate) use crate::syntax::same::exact_text;
use crate::syntax::unparse::unparse_old_node;
use classad_vm::{Str, Value};
use std::hash::Hasher;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

/// Appends name `n` (without case) and [`exact_text`] of `job`'s expression of
/// that name, or a mark of its absence; false when the expression has no
/// encoding.
fn named_exact_text(job: &ClassAd, n: &str, key: &mut Vec<u8>) -> bool {
    key.extend_from_slice(n.to_ascii_lowercase().as_bytes());
    key.push(0);
    match job.get(n) {
        Some(e) => exact_text(e.tree, e.id, key),
        None => {
            key.push(0xff);
            true
        }
    }
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
    /// The significant names the job it was worked out for has (their ids in
    /// the part's names, which are the same in every part: see
    /// [`NameTable::probes`]), in order of id, with the expression there and its
    /// canonical id (see [`Canon`]). Every other significant name is absent
    /// from that job: another job is in the class only with the same names.
    significant: Vec<(u32, Seen<'j>)>,
    /// Every other name looked up (an index into the part's names), and the
    /// expression that job has there (`None`: absent).
    others: Vec<(u32, Option<Seen<'j>>)>,
    /// The key holds every attribute of the job: another job must have as many.
    whole: Option<usize>,
}

/// The names the classes of a part look up: the significant names first (ids
/// `0..probes`, in the order of [`SignificantAttributes::names`] then
/// [`SignificantAttributes::extra`]), and where each layout of ads (a shared,
/// sorted name list) keeps them, found once per layout.
#[derive(Default)]
struct NameTable {
    names: classad_vm::interner::Interner,
    /// How many ids the significant names have (`0..probes`).
    probes: u32,
    /// How many of them are HTCondor's list (`0..listed`), the rest extra.
    listed: u32,
    /// Per layout (by its identity), what is known of it.
    layouts: ahash::AHashMap<usize, Layout>,
}

const ABSENT: u32 = u32::MAX - 1;

/// Where the ads of one layout keep the names looked up in them.
#[derive(Default)]
struct Layout {
    /// The ids of the significant names the layout has, in order. Found from the
    /// layout's own names, so it costs what the ad has, not what is significant.
    ids: Vec<u32>,
    /// Where the layout keeps each of them.
    positions: Vec<u32>,
    /// Other names looked up: their position, or `ABSENT`.
    others: ahash::AHashMap<u32, u32>,
}

impl Layout {
    /// The significant names of the layout: (id, position), by id.
    fn significant(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.ids.iter().copied().zip(self.positions.iter().copied())
    }
}

impl NameTable {
    /// A table whose first ids are `sig`'s names and extra names.
    fn new(sig: &SignificantAttributes) -> NameTable {
        let mut table = NameTable::default();
        // The names' own strings, shared rather than copied.
        for n in sig.names() {
            table.names.intern_str(n);
        }
        table.listed = table.names.len() as u32;
        for n in sig.extra() {
            table.names.intern_str(n);
        }
        table.probes = table.names.len() as u32;
        table
    }

    fn intern(&mut self, name: &str) -> u32 {
        self.names.intern(name)
    }

    /// True when `name` is one of HTCondor's significant names (not an extra).
    fn is_listed(&self, name: &str) -> bool {
        self.names.get(name).is_some_and(|id| id < self.listed)
    }

    /// What is known of `job`'s layout, found from its names when new.
    fn layout_of(&self, job: &ClassAd) -> Layout {
        let mut significant: Vec<(u32, u32)> = job
            .iter()
            .enumerate()
            .filter_map(|(p, (name, _))| {
                let id = self.names.get(name)?;
                (id < self.probes).then_some((id, p as u32))
            })
            .collect();
        significant.sort_unstable();
        Layout {
            ids: significant.iter().map(|&(id, _)| id).collect(),
            positions: significant.iter().map(|&(_, p)| p).collect(),
            others: ahash::AHashMap::new(),
        }
    }

    /// The expression `job` (of `layout`) has for name `n`.
    fn lookup<'j>(&self, layout: &mut Layout, job: &'j ClassAd, n: u32) -> Option<ExprView<'j>> {
        let at = if n < self.probes {
            let found = layout.ids.binary_search(&n);
            found.map_or(ABSENT, |i| layout.positions[i])
        } else {
            let names = self.names.names();
            *layout.others.entry(n).or_insert_with(|| {
                job.position(&names[n as usize])
                    .map_or(ABSENT, |p| p as u32)
            })
        };
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
    /// The significant names the job had (ids, the same in every part), by id,
    /// and what it had there (never [`Looked::Absent`]).
    significant: Vec<(u32, Looked)>,
    /// Each other name looked up, as spelled, and what the job had there.
    others: Vec<(Str, Looked)>,
    whole: Option<usize>,
}

/// What a published class's job had under one name.
enum Looked {
    Absent,
    Literal(Value),
    /// A node of a tree, and its canonical id.
    Expr(Arc<Expr>, NodeId, Option<u32>),
}

impl Looked {
    /// What `seen` is, held without the part's ads.
    fn of(seen: Option<Seen<'_>>) -> Looked {
        match seen {
            None => Looked::Absent,
            Some((e, id)) => match e.node() {
                Node::Lit(v) => Looked::Literal(v.clone()),
                _ => Looked::Expr(e.tree.clone(), e.id, id),
            },
        }
    }

    /// True when `b` is sure to print and evaluate as what this is.
    fn holds(&self, canon: &mut Canon, b: Option<ExprView<'_>>) -> bool {
        match (self, b) {
            (Looked::Absent, None) => true,
            (Looked::Literal(x), Some(b)) => matches!(b.node(), Node::Lit(y) if same_literal(x, y)),
            (Looked::Expr(tree, id, cid), Some(b)) => {
                same_expr(ExprView { tree, id: *id }, b) || (cid.is_some() && *cid == canon.id(b))
            }
            _ => false,
        }
    }
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
/// or any text. What a job costs follows its own attributes: only the
/// significant names it has are hashed, checked and keyed (the others are
/// absent alike), however many names are significant.
struct PartClassifier<'s, 'j> {
    sig: &'s SignificantAttributes,
    table: NameTable,
    canon: Canon<'s>,
    worked: Vec<Worked<'j>>,
    by_hash: ahash::AHashMap<u64, smallvec::SmallVec<[u32; 2]>>,
    sig_index: ahash::AHashMap<String, u32>,
    key_index: ahash::AHashMap<(u32, Arc<[u8]>), u32>,
    out: PartClasses,
}

impl<'s, 'j> PartClassifier<'s, 'j> {
    fn new(sig: &'s SignificantAttributes, jobs: usize) -> Self {
        PartClassifier {
            sig,
            table: NameTable::new(sig),
            canon: Canon {
                by_node: ahash::AHashMap::new(),
                texts: &sig.shared.texts,
            },
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

    /// True when `job` (of `layout`) has the expressions `w` was worked out
    /// with. Each expression found alike takes the place of the one `w` held:
    /// the next job, read from the same arena, is then told alike by address.
    fn holds(
        table: &NameTable,
        canon: &mut Canon,
        layout: &mut Layout,
        w: &mut Worked<'j>,
        job: &'j ClassAd,
    ) -> bool {
        if w.whole.is_some_and(|len| len != job.len()) || layout.ids.len() != w.significant.len() {
            return false;
        }
        let mut alike = |was: &mut Seen<'j>, b: ExprView<'j>| {
            let same = canon.alike(was.0, was.1, b);
            if same {
                was.0 = b;
            }
            same
        };
        let significant = (layout.significant())
            .zip(w.significant.iter_mut())
            .all(|((n, at), (wn, was))| n == *wn && alike(was, job.at(at as usize)));
        significant
            && w.others
                .iter_mut()
                .all(|(n, was)| match (was, table.lookup(layout, job, *n)) {
                    (None, None) => true,
                    (Some(was), Some(b)) => alike(was, b),
                    _ => false,
                })
    }

    /// What is known of `job`'s layout, taken out of the table while `job` is
    /// classified.
    fn take_layout(&mut self, job: &ClassAd) -> Layout {
        match self.table.layouts.remove(&job.layout_id()) {
            Some(layout) => layout,
            None => self.table.layout_of(job),
        }
    }

    /// The class worked out already that `job` is in, if any, else the hash to
    /// file the job's class under once worked out: a hash of the significant
    /// names the job has and their expressions.
    fn find(
        &mut self,
        layout: &mut Layout,
        job: &'j ClassAd,
        last: Option<u32>,
    ) -> Result<u32, u64> {
        let (table, canon, worked) = (&self.table, &mut self.canon, &mut self.worked);
        if let Some(w) = last {
            if Self::holds(table, canon, layout, &mut worked[w as usize], job) {
                return Ok(w);
            }
        }
        let mut h = ahash::AHasher::default();
        for (n, at) in layout.significant() {
            h.write_u32(n);
            canon.hash(Some(job.at(at as usize)), &mut h);
        }
        let hash = h.finish();
        let known = self.by_hash.get(&hash).and_then(|ws| {
            ws.iter()
                .copied()
                .find(|&w| Self::holds(table, canon, layout, &mut worked[w as usize], job))
        });
        known.ok_or(hash)
    }

    /// True when `job` (of `layout`) has the expressions the published class
    /// `p` was worked out with.
    fn holds_published(
        table: &mut NameTable,
        canon: &mut Canon,
        layout: &mut Layout,
        p: &PublishedClass,
        job: &'j ClassAd,
    ) -> bool {
        if p.whole.is_some_and(|len| len != job.len()) || layout.ids.len() != p.significant.len() {
            return false;
        }
        let significant = (layout.significant())
            .zip(&p.significant)
            .all(|((n, at), (pn, was))| n == *pn && was.holds(canon, Some(job.at(at as usize))));
        significant
            && p.others.iter().all(|(name, was)| {
                let n = table.intern(name);
                was.holds(canon, table.lookup(layout, job, n))
            })
    }

    /// The significant expressions of `job` (of `layout`), with their canonical
    /// ids.
    fn seen_significant(&mut self, layout: &Layout, job: &'j ClassAd) -> Vec<(u32, Seen<'j>)> {
        layout
            .significant()
            .map(|(n, at)| {
                let e = job.at(at as usize);
                (n, (e, self.canon.id(e)))
            })
            .collect()
    }

    /// What `job` (of `layout`) has under each of `names`, with canonical ids.
    fn seen_others(
        &mut self,
        layout: &mut Layout,
        job: &'j ClassAd,
        names: &[u32],
    ) -> Vec<(u32, Option<Seen<'j>>)> {
        names
            .iter()
            .map(|&n| {
                let e = self.table.lookup(layout, job, n);
                (n, e.map(|e| (e, self.canon.id(e))))
            })
            .collect()
    }

    /// The class another part worked out that `job` is in (filed under
    /// `hash`), taken into this part as if worked out here for job `i`.
    fn adopt(&mut self, hash: u64, layout: &mut Layout, i: usize, job: &'j ClassAd) -> Option<u32> {
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
                .find(|p| Self::holds_published(table, canon, layout, p, job))?
                .clone()
        };
        let s = self.signature_index(&found.signature);
        let k = self.key_index_of(s, i, found.key.clone());
        self.out.of_job.push((s, k));
        // The names were interned by the check; the expressions are this job's,
        // alike to the published ones.
        let others: Vec<u32> = found
            .others
            .iter()
            .map(|(name, _)| self.table.intern(name))
            .collect();
        let significant = self.seen_significant(layout, job);
        let others = self.seen_others(layout, job, &others);
        self.worked.push(Worked {
            ids: (s, k),
            significant,
            others,
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
        let names = self.table.names.names();
        let class = PublishedClass {
            signature: self.out.signatures[s as usize].clone(),
            key: key.clone(),
            significant: (worked.significant.iter())
                .map(|&(n, seen)| (n, Looked::of(Some(seen))))
                .collect(),
            others: (worked.others.iter())
                .map(|&(n, seen)| (names[n as usize].clone(), Looked::of(seen)))
                .collect(),
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

    /// The significant expressions of `job` (of `layout`): HTCondor's names'
    /// (`extra` false) or the extra names', in the order of their lists.
    fn significant_exprs<'a>(
        &self,
        layout: &'a Layout,
        job: &'a ClassAd,
        extra: bool,
    ) -> impl Iterator<Item = ExprView<'a>> + 'a {
        let listed = self.table.listed;
        layout
            .significant()
            .filter(move |&(n, _)| (n >= listed) == extra)
            .map(move |(_, at)| job.at(at as usize))
    }

    /// Works `job` out in full: its signature and key, and (unless it is a class
    /// of its own) what later jobs must share to be in its classes.
    fn work_out(&mut self, i: usize, layout: &mut Layout, job: &'j ClassAd) -> Option<u32> {
        let (refs, sure) = walk_exprs(job, self.significant_exprs(layout, job, false));
        let (extra_refs, extra_sure) = walk_exprs(job, self.significant_exprs(layout, job, true));
        let signature = self.signature_of(job, layout, &refs);
        let s = self.signature_index(&signature);
        let key = (sure && extra_sure)
            .then(|| self.key_of(job, layout, &refs, &extra_refs))
            .flatten();
        let Some(key) = key else {
            self.out.keys.push((s, i as u32, None));
            self.out.of_job.push((s, self.out.keys.len() as u32 - 1));
            return None;
        };
        let k = self.key_index_of(s, i, Arc::from(key));
        self.out.of_job.push((s, k));
        // Every name looked up besides the significant ones, once each.
        let whole = self.sig.reads_whole_jobs();
        let looked = (refs.looked_up.iter())
            .chain(&extra_refs.looked_up)
            .chain(job.iter().map(|(n, _)| n).filter(|_| whole));
        let mut seen = ahash::AHashSet::new();
        let mut others = Vec::new();
        for name in looked {
            let n = self.table.intern(name);
            if n >= self.table.probes && seen.insert(n) {
                others.push(n);
            }
        }
        let significant = self.seen_significant(layout, job);
        let others = self.seen_others(layout, job, &others);
        self.worked.push(Worked {
            ids: (s, k),
            significant,
            others,
            whole: whole.then(|| job.len()),
        });
        Some(self.worked.len() as u32 - 1)
    }

    /// HTCondor's signature of `job` (see [`SignificantAttributes::signature`]) in
    /// a form that tells the same jobs apart, for this queue's classes only: the
    /// significant names the job has, by id, with their text (the others are
    /// empty in every job's signature alike), then the names their expressions
    /// reach, each text with its length.
    fn signature_of(&self, job: &ClassAd, layout: &Layout, refs: &References) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let mut text = String::new();
        for (n, at) in layout.significant().filter(|&(n, _)| n < self.table.listed) {
            let e = job.at(at as usize);
            text.clear();
            unparse_old_node(e.tree, e.id, &mut text);
            let _ = write!(out, "{n}:{}:{text}", text.len());
        }
        out.push('|');
        for name in self.sig.expanded(refs, |n| self.table.is_listed(n)) {
            text.clear();
            if let Some(e) = job.get(name) {
                unparse_old_node(e.tree, e.id, &mut text);
            }
            let _ = write!(out, "{}:{name}{}:{text}", name.len(), text.len());
        }
        out
    }

    /// The key of `job`'s match class (see the module doc of
    /// [`super::autocluster`]), or `None` when the job must be a class of its
    /// own: the significant names it has (by id) with their exact text, then the
    /// names their expressions reach, present or not.
    fn key_of(
        &self,
        job: &ClassAd,
        layout: &Layout,
        refs: &References,
        extra_refs: &References,
    ) -> Option<Vec<u8>> {
        let mut key = Vec::new();
        key.extend_from_slice(&(layout.ids.len() as u32).to_le_bytes());
        for (n, at) in layout.significant() {
            key.extend_from_slice(&n.to_le_bytes());
            let e = job.at(at as usize);
            if !exact_text(e.tree, e.id, &mut key) {
                return None;
            }
        }
        let is_listed = |n: &str| self.table.is_listed(n);
        let mut reached = self.sig.expanded(refs, is_listed);
        reached.extend(self.sig.expanded(extra_refs, is_listed));
        for n in reached {
            if !named_exact_text(job, n, &mut key) {
                return None;
            }
        }
        if self.sig.reads_whole_jobs() {
            key.push(0xfe);
            for (n, e) in job.iter() {
                key.extend_from_slice(n.to_ascii_lowercase().as_bytes());
                key.push(0);
                if !exact_text(e.tree, e.id, &mut key) {
                    return None;
                }
            }
        }
        Some(key)
    }
}

/// Walks the expressions `exprs` of `job`: what they read, and whether the walk
/// saw everything.
fn walk_exprs<'a>(job: &ClassAd, exprs: impl Iterator<Item = ExprView<'a>>) -> (References, bool) {
    let mut refs = References::new();
    for e in exprs {
        refs.walk(job, e.tree, e.id);
    }
    let sure = refs.complete && !refs.volatile;
    (refs, sure)
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

impl PartClasses {
    /// Keeps of the part's `jobs` (the jobs these classes were worked out
    /// from, in order) only those [`super::AutoclusterBuilder::add_kept`] can
    /// need, the first job of each key, and drops the rest here: a caller that
    /// classifies parts on many threads and adds them on one drops each part's
    /// ads on the thread that read them rather than on the one that adds.
    pub fn keeping_firsts<J>(mut self, jobs: Vec<J>) -> KeptPart<J> {
        assert_eq!(self.of_job.len(), jobs.len(), "the part's classes and jobs");
        let mut wanted = vec![false; jobs.len()];
        for &(_, first, _) in &self.keys {
            wanted[first as usize] = true;
        }
        // Per job kept, its index among those kept.
        let mut kept_as = vec![0u32; jobs.len()];
        let mut firsts = Vec::with_capacity(self.keys.len());
        for (i, job) in jobs.into_iter().enumerate() {
            if wanted[i] {
                kept_as[i] = firsts.len() as u32;
                firsts.push(job);
            }
        }
        for key in &mut self.keys {
            key.1 = kept_as[key.1 as usize];
        }
        KeptPart {
            classes: self,
            firsts,
        }
    }
}

/// A part's classes with only the jobs of it they can need: the first job of
/// each key, which a class new to the builder keeps as its representative
/// (see [`PartClasses::keeping_firsts`]).
#[derive(Debug)]
pub struct KeptPart<J> {
    /// The classes, each key's first job numbered in `firsts`.
    pub(super) classes: PartClasses,
    /// The first job of each key, in job order.
    pub(super) firsts: Vec<J>,
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
        let mut kept: Option<(usize, Layout)> = None;
        for (i, job) in jobs.iter().enumerate() {
            prefetch_ahead(jobs, i, kept.as_ref());
            let job = job.as_ref();
            let mut layout = match kept.take() {
                Some((id, l)) if id == job.layout_id() => l,
                Some((id, l)) => {
                    c.table.layouts.insert(id, l);
                    c.take_layout(job)
                }
                None => c.take_layout(job),
            };
            for &n in &reads {
                c.table.lookup(&mut layout, job, n);
            }
            last = match c.find(&mut layout, job, last) {
                Ok(w) => {
                    c.out.of_job.push(c.worked[w as usize].ids);
                    Some(w)
                }
                Err(hash) => {
                    let w = match c.adopt(hash, &mut layout, i, job) {
                        Some(w) => Some(w),
                        None => {
                            let w = c.work_out(i, &mut layout, job);
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
            kept = Some((job.layout_id(), layout));
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
fn prefetch_ahead<J: AsRef<ClassAd>>(jobs: &[J], i: usize, layout: Option<&(usize, Layout)>) {
    if let Some(far) = jobs.get(i + AHEAD) {
        crate::prefetch::prefetch(far.as_ref());
    }
    let Some((id, layout)) = layout else {
        return;
    };
    if let Some(mid) = jobs.get(i + AHEAD / 2).map(|j| j.as_ref()) {
        if mid.layout_id() == *id {
            mid.prefetch_slots(&layout.positions);
        }
    }
    if let Some(near) = jobs.get(i + AHEAD / 4).map(|j| j.as_ref()) {
        if near.layout_id() == *id {
            near.prefetch_nodes(&layout.positions);
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
        if !named_exact_text(job, n, &mut key) {
            return None;
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

    /// Each job's autocluster numbered by first appearance, from `of`.
    fn first_seen<T: Eq + std::hash::Hash>(of: impl Iterator<Item = T>) -> Vec<usize> {
        let mut ids = std::collections::HashMap::new();
        of.map(|k| {
            let next = ids.len();
            *ids.entry(k).or_insert(next)
        })
        .collect()
    }

    /// The autoclusters are HTCondor's: jobs are in one exactly when their full
    /// signatures (every significant name, present or not) are equal, though
    /// classifying looks only at the names each job has. Checked on the
    /// conformance pools and on jobs that each have a few of many significant
    /// names.
    #[test]
    fn autoclusters_are_the_jobs_with_equal_signatures() {
        use crate::matching::Autoclusters;
        let pools = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/conformance/pools");
        let read = |name: &str| {
            let path = format!("{pools}/{name}");
            read_ads(&std::fs::read_to_string(&path).unwrap(), &path).unwrap()
        };
        let mut cases: Vec<(Vec<ClassAd>, Vec<ClassAd>)> = (1..=3)
            .map(|n| {
                (
                    read(&format!("pool{n}.jobs.ads")),
                    read(&format!("pool{n}.machines.ads")),
                )
            })
            .collect();
        let slots: String = (0..4)
            .map(|s| {
                let terms: Vec<String> = (0..50)
                    .map(|i| format!("TARGET.W{} =!= 7", s * 50 + i))
                    .collect();
                format!(
                    "Requirements = {} && MY.Cpus > 0\nCpus = 1\n\n",
                    terms.join(" && ")
                )
            })
            .collect();
        let jobs: String = (0..300)
            .map(|j| {
                format!(
                    "Requirements = TARGET.Cpus > 0 && MY.R{} > 0\nW{} = {}\nw{} = \"x\"\nR{} = 1\n\n",
                    j % 3,
                    j % 200,
                    j % 7,
                    (j * 7) % 200,
                    j % 3
                )
            })
            .collect();
        cases.push((
            read_ads(&jobs, "jobs").unwrap(),
            read_ads(&slots, "slots").unwrap(),
        ));
        for (c, (jobs, slots)) in cases.iter().enumerate() {
            let sig = SignificantAttributes::compute(slots, &NegotiatorPolicy::default());
            let want = first_seen(jobs.iter().map(|j| sig.signature(j)));
            let clusters = Autoclusters::with(jobs, sig);
            let got = first_seen((0..jobs.len()).map(|j| clusters.cluster_of(j)));
            assert_eq!(got, want, "case {c}");
        }
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
