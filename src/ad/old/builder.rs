//! Assembling the ads of an old-syntax file from its lines: values in chunk arenas,
//! names in shared orders, and the last ad of each kind kept for the next to repeat.

use super::line::Rhs;
use super::names::NameOrders;
use super::shared::SharedExprs;
use crate::ad::classad::{ClassAd, Slot};
use crate::syntax::ast::{Expr, ExprRef, Node, NodeId};
use crate::syntax::parse_expr_old;
use classad_vm::{Str, Value};
use std::sync::Arc;

/// Where an attribute line is: its start, its value's start, the next line's start.
pub(super) struct Span {
    /// Where the line starts.
    pub(super) start: usize,
    /// Where its value starts (after the blanks that follow `=`).
    pub(super) rhs_start: usize,
    /// Where the next line starts (one past the text's end for a last line without
    /// `\n`).
    pub(super) next: usize,
}

impl Span {
    /// Where the value starts as `str::lines` shows the line: a `\r` before the
    /// line's `\n` is not part of it, so the blanks skipped after `=` stop short of
    /// it (which an error's column in an empty value shows).
    fn reported_rhs_start(&self, src: &str) -> usize {
        let b = src.as_bytes();
        let mut end = self.next - 1;
        if end < b.len() && end > self.start && b[end - 1] == b'\r' {
            end -= 1;
        }
        self.rhs_start.min(end)
    }
}

/// An attribute line of the ad being read (or of the last ad of a kind), for the
/// next ad of that kind to repeat cheaply.
#[derive(Clone, Copy)]
pub(super) struct Memo<'s> {
    /// Where the line starts.
    pub(super) start: usize,
    /// Its length, with its `\n`.
    pub(super) len: usize,
    /// Where its value starts, from the line's start.
    pub(super) rhs_off: usize,
    /// Its name.
    pub(super) name: &'s str,
    value: Held,
}

/// The last ad of one kind, for the next ad of that kind to repeat.
#[derive(Default)]
struct LastOfKind<'s> {
    lines: Vec<Memo<'s>>,
    /// The arena its literal values are in, once its chunk is closed (until then,
    /// they are in the chunk being built).
    arena: Option<Arc<Expr>>,
}

/// Where a line's value is while its ad is read.
#[derive(Clone, Copy)]
enum Held {
    /// A literal in the chunk's arena.
    Local(NodeId),
    /// An expression of the file's, shared.
    Shared(u32),
}

/// Consecutive ads share one arena for their literal values, so that a line that
/// repeats an earlier ad's of the chunk points at the same node: no copy, and no
/// reference count to raise for a string. Keeping one ad keeps its chunk's literals alive, so
/// chunks are small.
pub(super) const CHUNK_ADS: usize = 16;

/// One ad being read, the last ad of each kind, the ads of the current chunk, and
/// what the ads of one file share: names and their orders, short strings, and
/// parsed expressions.
pub(super) struct AdBuilder<'s> {
    /// The literal values of the chunk's ads.
    nodes: Vec<Node>,
    /// The chunk's finished ads, waiting for its arena: names and slots.
    pending: Vec<(Arc<Vec<Str>>, Vec<Slot>)>,
    /// The ad's attribute lines, in file order.
    lines: Vec<Memo<'s>>,
    /// For each known name order, the lines of the last ad listing it.
    kinds: Vec<LastOfKind<'s>>,
    names: NameOrders<'s>,
    /// Each distinct expression text, parsed once.
    exprs: ahash::AHashMap<&'s str, u32>,
    /// The trees of the file's other parts, when it is read in parts.
    shared: Option<&'s SharedExprs>,
    trees: Vec<ExprRef>,
    /// Keyed by the text's first occurrence in the file, which outlives the map.
    strings: ahash::AHashMap<&'s str, Str>,
}

impl<'s> AdBuilder<'s> {
    pub(super) fn new(shared: Option<&'s SharedExprs>) -> AdBuilder<'s> {
        AdBuilder {
            shared,
            nodes: Vec::new(),
            pending: Vec::with_capacity(CHUNK_ADS),
            lines: Vec::new(),
            kinds: Vec::new(),
            names: NameOrders::new(),
            // Sized for a pool, so that reading one file seldom rehashes.
            exprs: ahash::AHashMap::with_capacity(64),
            trees: Vec::new(),
            strings: ahash::AHashMap::with_capacity(256),
        }
    }

    fn literal(&mut self, v: Value) -> Held {
        self.nodes.push(Node::Lit(v));
        Held::Local((self.nodes.len() - 1) as NodeId)
    }

    /// Takes an attribute line; `as_before` when its name is the one the last ad of
    /// its kind had at this place. A value the parser refuses gives the column and why.
    pub(super) fn attr(
        &mut self,
        src: &str,
        name: &'s str,
        as_before: bool,
        at: Span,
        rhs: Rhs<'s>,
    ) -> Result<(), (usize, String)> {
        let value = match rhs {
            Rhs::Int(i) => self.literal(Value::Int(i)),
            Rhs::Real(r) => self.literal(Value::Real(r)),
            Rhs::Bool(v) => self.literal(Value::Bool(v)),
            Rhs::Str(s) => {
                let s = self.string(s);
                self.literal(Value::Str(s))
            }
            Rhs::Expr(text) => Held::Shared(self.expr(text).map_err(|e| {
                let col =
                    src[at.start..at.reported_rhs_start(src)].chars().count() + e.column as usize;
                (col, format!("in the value of {name}: {}", e.message))
            })?),
        };
        if as_before {
            self.names.push_followed();
        } else {
            self.names.push(name);
        }
        self.lines.push(Memo {
            start: at.start,
            len: at.next - at.start,
            rhs_off: at.rhs_start - at.start,
            name,
            value,
        });
        Ok(())
    }

    /// The line at this place in the last ad of the kind this ad has shown so far.
    pub(super) fn memo(&self) -> Option<Memo<'s>> {
        let kind = self.kinds.get(self.names.following()?)?;
        kind.lines.get(self.lines.len()).copied()
    }

    /// Takes a line that repeats the line `m` of the last ad of its kind exactly.
    pub(super) fn repeat(&mut self, m: Memo<'s>, start: usize) {
        let arena = self
            .names
            .following()
            .and_then(|k| self.kinds.get(k))
            .and_then(|kind| kind.arena.as_ref());
        let value = match (m.value, arena) {
            // That ad is in an arena already closed: copy the value over.
            (Held::Local(id), Some(chunk)) => {
                let node = chunk.node(id).clone();
                self.nodes.push(node);
                Held::Local((self.nodes.len() - 1) as NodeId)
            }
            (held, _) => held,
        };
        self.names.push_followed();
        self.lines.push(Memo { start, value, ..m });
    }

    /// The shared tree of an expression text, parsed the first time it is seen.
    fn expr(&mut self, text: &'s str) -> Result<u32, crate::syntax::ParseError> {
        if let Some(&k) = self.exprs.get(text) {
            return Ok(k);
        }
        let tree = match self.shared.and_then(|s| s.get(text)) {
            Some(tree) => tree,
            None => {
                let tree = ExprRef::root_of(Arc::new(parse_expr_old(text)?));
                match self.shared {
                    Some(s) => s.offer(text, tree),
                    None => tree,
                }
            }
        };
        self.trees.push(tree);
        let k = (self.trees.len() - 1) as u32;
        self.exprs.insert(text, k);
        Ok(k)
    }

    /// Short strings (`"LINUX"`, `"X86_64"`, owners, sites) recur across the ads of a
    /// pool; share them.
    fn string(&mut self, s: &'s str) -> Str {
        if s.len() > 32 {
            return Str::from(s);
        }
        self.strings
            .entry(s)
            .or_insert_with(|| Str::from(s))
            .clone()
    }

    /// Ends the ad being read, if it has any attributes.
    pub(super) fn finish(&mut self, ads: &mut Vec<ClassAd>) {
        if self.lines.is_empty() {
            return;
        }
        let (kind, order) = self.names.finish();
        let slots = order
            .take
            .iter()
            .map(|&i| match self.lines[i as usize].value {
                Held::Local(id) => Slot::local(id),
                Held::Shared(k) => Slot::shared(self.trees[k as usize].clone()),
            })
            .collect();
        self.pending.push((order.sorted.clone(), slots));
        if let Some(k) = kind {
            if self.kinds.len() <= k {
                self.kinds.resize_with(k + 1, LastOfKind::default);
            }
            let last = &mut self.kinds[k];
            std::mem::swap(&mut last.lines, &mut self.lines);
            last.arena = None;
        }
        self.lines.clear();
        if self.pending.len() == CHUNK_ADS {
            self.close_chunk(ads);
        }
    }

    /// Gives the chunk's ads their arena.
    pub(super) fn close_chunk(&mut self, ads: &mut Vec<ClassAd>) {
        if self.pending.is_empty() {
            return;
        }
        let capacity = self.nodes.len();
        let mut nodes = std::mem::replace(&mut self.nodes, Vec::with_capacity(capacity));
        // Ads of nothing but shared expressions still need an arena with a root.
        if nodes.is_empty() {
            nodes.push(Node::Lit(Value::Undefined));
        }
        let local = Arc::new(Expr::from_parts(nodes, 0));
        ads.extend(
            self.pending
                .drain(..)
                .map(|(names, slots)| ClassAd::from_parts(names, slots, local.clone())),
        );
        for kind in &mut self.kinds {
            if kind.arena.is_none() && !kind.lines.is_empty() {
                kind.arena = Some(local.clone());
            }
        }
    }
}
