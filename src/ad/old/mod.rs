//! Reading old-syntax ads, as `condor_q -l` and `condor_status -l` print them: one
//! `Name = expr` per line, a blank line between ads, `#` comment lines.
//!
//! This is the hot path of loading a pool. Each line is first held against the same
//! line of the last ad of the same kind (the same names in the same order), which in
//! a pool it usually repeats (slots of one machine, jobs of one cluster): a repeated
//! line takes that ad's value, and a line that repeats only the name skips reading
//! it. Other lines are read in one pass. The
//! common literals skip the parser and go into one node arena per ad; every other
//! distinct expression text is parsed once per file and shared, as HTCondor's
//! classad cache does; the sorted names are shared by the ads that list them in one
//! order. Reading an ad so takes no reference-count operation per attribute, except
//! for strings and shared expressions.

mod line;
mod names;

use super::classad::{ClassAd, Slot};
use super::read::ReadError;
use crate::syntax::ast::{Expr, ExprRef, Node, NodeId};
use crate::syntax::parse_expr_old;
use classad_vm::{Str, Value};
use line::{common_prefix, Line, Rhs, Scanner};
use names::NameOrders;
use std::sync::Arc;

/// Reads every ad of an old-syntax text; `file` names it in errors.
pub(super) fn read_old(src: &str, file: &str) -> Result<Vec<ClassAd>, ReadError> {
    let bytes = src.as_bytes();
    let scan = Scanner::new(src);
    let mut ads = Vec::new();
    let mut b = AdBuilder::new();
    let mut pos = 0;
    let mut lineno: u32 = 0;
    while pos < bytes.len() {
        lineno += 1;
        let start = pos;
        let err = |(column, message): (usize, String)| ReadError {
            file: file.to_string(),
            line: lineno,
            column: column as u32,
            message,
        };
        if let Some(m) = b.memo() {
            let prev = &bytes[m.start..(m.start + m.len).min(bytes.len())];
            let same = common_prefix(&bytes[start..], prev);
            if same == prev.len() && prev.last() == Some(&b'\n') {
                b.repeat(m, start);
                pos = start + m.len;
                continue;
            }
            // The name, `=` and what follows up to the value are the same.
            if same >= m.rhs_off {
                let rhs_start = scan.skip_blanks(start + m.rhs_off);
                let (rhs, next) = scan.value(rhs_start);
                let at = Span {
                    start,
                    rhs_start,
                    next,
                };
                b.attr(src, m.name, true, at, rhs).map_err(err)?;
                pos = next;
                continue;
            }
        }
        let (line, next) = scan.line(start);
        pos = next;
        match line {
            Line::Blank => {
                b.finish(&mut ads);
            }
            Line::Comment => {}
            Line::Malformed(t) => {
                let message = format!("expected `Name = expression`, found `{}`", clip(t));
                return Err(err((1, message)));
            }
            Line::Attr {
                name,
                rhs_start,
                rhs,
            } => {
                let at = Span {
                    start,
                    rhs_start,
                    next,
                };
                b.attr(src, name, false, at, rhs).map_err(err)?;
            }
        }
    }
    b.finish(&mut ads);
    b.close_chunk(&mut ads);
    Ok(ads)
}

/// Where an attribute line is: its start, its value's start, the next line's start.
struct Span {
    start: usize,
    rhs_start: usize,
    next: usize,
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
struct Memo<'s> {
    /// Where the line starts.
    start: usize,
    /// Its length, with its `\n`.
    len: usize,
    /// Where its value starts, from the line's start.
    rhs_off: usize,
    name: &'s str,
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
    /// A literal in the ad's arena.
    Local(NodeId),
    /// An expression of the file's, shared.
    Shared(u32),
}

/// Consecutive ads share one arena for their literal values, so that a line that
/// repeats the previous ad's points at the same node: no copy, and no reference
/// count to raise for a string. Keeping one ad keeps its chunk's literals alive, so
/// chunks are small.
const CHUNK_ADS: usize = 16;

/// One ad being read, the previous ad's lines, the ads of the current chunk, and
/// what the ads of one file share: names and their orders, short strings, and
/// parsed expressions.
struct AdBuilder<'s> {
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
    trees: Vec<ExprRef>,
    /// Keyed by the text's first occurrence in the file, which outlives the map.
    strings: ahash::AHashMap<&'s str, Str>,
}

impl<'s> AdBuilder<'s> {
    fn new() -> AdBuilder<'s> {
        AdBuilder {
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

    /// Takes an attribute line; `as_before` when its name is the one the previous
    /// ad had at this place. A value the parser refuses gives the column and why.
    fn attr(
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
    fn memo(&self) -> Option<Memo<'s>> {
        let kind = self.kinds.get(self.names.following()?)?;
        kind.lines.get(self.lines.len()).copied()
    }

    /// Takes a line that repeats the line `m` of the last ad of its kind exactly.
    fn repeat(&mut self, m: Memo<'s>, start: usize) {
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
        let e = parse_expr_old(text)?;
        self.trees.push(ExprRef::root_of(Arc::new(e)));
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
    fn finish(&mut self, ads: &mut Vec<ClassAd>) {
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
    fn close_chunk(&mut self, ads: &mut Vec<ClassAd>) {
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

fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if out.len() < s.len() {
        out.push_str("...");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ast::ExprView;
    use crate::syntax::unparse::unparse_node;

    type Ads = Vec<Vec<(String, String)>>;

    /// A value as the tests compare it: literals exactly (`Debug` of a real is its
    /// shortest exact form, and tells -0.0 from 0.0), the rest as printed.
    fn describe(e: ExprView<'_>) -> String {
        match e.node() {
            Node::Lit(v) => format!("{v:?}"),
            _ => {
                let mut s = String::new();
                unparse_node(e.tree, e.id, &mut s);
                s
            }
        }
    }

    fn shown(ads: &[ClassAd]) -> Ads {
        ads.iter()
            .map(|ad| {
                ad.iter()
                    .map(|(n, e)| (n.to_string(), describe(e)))
                    .collect()
            })
            .collect()
    }

    /// The plain reading every shortcut must agree with: `str::lines`, a split at
    /// the first `=`, the full parser for every value, and repeated names resolved
    /// by `ClassAd::from_attrs`.
    fn reference(src: &str) -> Result<Ads, (u32, u32, String)> {
        let mut ads = Vec::new();
        let mut attrs = Vec::new();
        let mut end = |attrs: &mut Vec<(Str, ExprRef)>| {
            if !attrs.is_empty() {
                ads.push(ClassAd::from_attrs(std::mem::take(attrs)));
            }
        };
        for (i, line) in src.lines().enumerate() {
            let lineno = i as u32 + 1;
            let t = line.trim_ascii();
            if t.is_empty() {
                end(&mut attrs);
                continue;
            }
            if t.starts_with('#') {
                continue;
            }
            let Some(eq) = line
                .find('=')
                .filter(|&eq| !line[..eq].trim_ascii().is_empty())
            else {
                let m = format!("expected `Name = expression`, found `{}`", clip(t));
                return Err((lineno, 1, m));
            };
            let name = line[..eq].trim_ascii();
            let after = &line[eq + 1..];
            let rhs_start = eq + 1 + (after.len() - after.trim_ascii_start().len());
            let rhs = line[rhs_start..].trim_ascii_end();
            let e = parse_expr_old(rhs).map_err(|e| {
                let col = line[..rhs_start].chars().count() as u32 + e.column;
                let m = format!("in the value of {name}: {}", e.message);
                (lineno, col, m)
            })?;
            attrs.push((Str::from(name), ExprRef::root_of(Arc::new(e))));
        }
        end(&mut attrs);
        Ok(shown(&ads))
    }

    fn ours(src: &str) -> Result<Ads, (u32, u32, String)> {
        read_old(src, "f")
            .map(|ads| shown(&ads))
            .map_err(|e| (e.line, e.column, e.message))
    }

    const VALUES: &[&str] = &[
        "0",
        "1",
        "-1",
        "12345",
        "999999999999999999",
        "1000000000000000000",
        "-0",
        "00",
        "007",
        "-007",
        "9223372036854775807",
        "-9223372036854775808",
        "1e3",
        "0x10",
        "1.5",
        "-1.5",
        "0.0",
        "-0.0",
        "0.5",
        "00.5",
        "1.",
        "-.5",
        ".5",
        "1.5e3",
        "123456789.123456789",
        "3.14159265358979323846",
        "0.1",
        "-2.5E-3",
        "0.18",
        "-0.000001",
        "99999.99999",
        "1.0000000000000002",
        "0.0000000000000000000001",
        "100000000000000.5",
        "\"\"",
        "\"abc\"",
        "\"a b\"",
        "\"a\\\"b\"",
        "\"a\\\\b\"",
        "\"é\"",
        "\"a\" \"b\"",
        "\"x\" y",
        "\"a long string that goes on for more than thirty-two bytes\"",
        "true",
        "TRUE",
        "False",
        "falsey",
        "true && false",
        "x",
        "MY.x + 1",
        "(1)",
        "{1, 2}",
        "[a = 1]",
        "undefined",
        "error",
        "-x",
        "- 5",
        "+5",
        "strcat(\"a\")",
    ];
    const BAD_VALUES: &[&str] = &["1 +", "", "\"unterminated", "(", "1 2", "\"a\\"];
    const NAMES: &[&str] = &[
        "A",
        "a",
        "B",
        "LongerName",
        "longername",
        "'odd name'",
        "x.y",
        "é",
        "Name2",
    ];

    /// A small deterministic generator (xorshift), so failures replay.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
        fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
            xs[self.below(xs.len())]
        }
    }

    /// A file of ads of up to three kinds, in random turns, each ad mostly repeating
    /// the last of its kind line by line, with changed values, spacing, order, line
    /// ends, comments, repeated names and, rarely, a bad line.
    fn file(rng: &mut Rng, bad: bool) -> String {
        let mut kinds: Vec<Vec<(String, String, String)>> = (0..rng.below(3) + 1)
            .map(|_| {
                (0..rng.below(8) + 1)
                    .map(|_| {
                        let n = rng.pick(NAMES).to_string();
                        (n, " = ".to_string(), rng.pick(VALUES).to_string())
                    })
                    .collect()
            })
            .collect();
        let mut out = String::new();
        for _ in 0..rng.below(40) + 1 {
            let k = rng.below(kinds.len());
            let ad = &mut kinds[k];
            for line in ad.iter_mut() {
                match rng.below(12) {
                    0 => line.2 = rng.pick(VALUES).to_string(),
                    1 => line.1 = rng.pick(&[" = ", "=", " =\t", "\t= ", "= "]).to_string(),
                    2 => line.0 = rng.pick(NAMES).to_string(),
                    _ => {}
                }
            }
            match rng.below(6) {
                0 => {
                    let (i, j) = (rng.below(ad.len()), rng.below(ad.len()));
                    ad.swap(i, j);
                }
                1 if ad.len() > 1 => {
                    ad.remove(rng.below(ad.len()));
                }
                2 => ad.push((rng.pick(NAMES).to_string(), "=".into(), "1".into())),
                _ => {}
            }
            for (n, eq, v) in ad.iter() {
                let end = if rng.below(5) == 0 { "\r\n" } else { "\n" };
                if rng.below(20) == 0 {
                    out.push_str(rng.pick(&["# comment", "  #x = 1", "\t"]));
                    out.push_str(end);
                }
                let lead = rng.pick(&["", "", "", " ", "\t"]);
                let trail = rng.pick(&["", "", "", " ", "\r"]);
                if bad && rng.below(200) == 0 {
                    let v = rng.pick(BAD_VALUES);
                    out.push_str(&format!("{lead}{n}{eq}{v}{trail}{end}"));
                } else if bad && rng.below(400) == 0 {
                    out.push_str(&format!("{lead}no equals sign{end}"));
                } else {
                    out.push_str(&format!("{lead}{n}{eq}{v}{trail}{end}"));
                }
            }
            out.push_str(rng.pick(&["\n", "\r\n", " \n", "\n\n"]));
        }
        if rng.below(2) == 0 {
            out.pop();
        }
        out
    }

    #[test]
    fn reads_as_the_plain_reading_does() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let (mut read, mut failed) = (0, 0);
        for i in 0..600 {
            let src = file(&mut rng, i % 2 == 1);
            let want = reference(&src);
            assert_eq!(ours(&src), want, "{src:?}");
            match want {
                Ok(ads) => read += ads.len(),
                Err(_) => failed += 1,
            }
        }
        // The generator must exercise both outcomes, and chunks of many ads.
        assert!(
            read > 20 * CHUNK_ADS && failed > 50,
            "{read} ads, {failed} errors"
        );
    }

    #[test]
    fn every_literal_reads_as_the_parser_reads_it() {
        for v in VALUES.iter().chain(BAD_VALUES) {
            for text in [
                format!("a = {v}\n"),
                format!("b = 1\na = {v}\n\nb = 2\na = {v}"),
            ] {
                assert_eq!(ours(&text), reference(&text), "{text:?}");
            }
        }
    }
}
