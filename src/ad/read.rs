//! Reading files of ads: old syntax (`condor_q -l`), new syntax, or JSON, detected.

use super::classad::{attr_order, ClassAd};
use super::json::parse_json_ads;
use crate::syntax::ast::{Expr, ExprRef, Node, NodeId};
use crate::syntax::{parse_expr_old, ParseError, Parser};
use classad_vm::{Str, Value};
use std::fmt;
use std::sync::Arc;

/// The syntax of a file of ads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `Name = expr` lines, ads separated by blank lines.
    Old,
    /// `[ ... ]` ads, one after another or inside `{ ... }`.
    New,
    /// A JSON object, an array of objects, or one object per line.
    Json,
}

/// A file that could not be read as ads: where, and what was expected.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadError {
    /// The file's name as given (or `<stdin>`).
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.message
        )
    }
}

impl std::error::Error for ReadError {}

impl ReadError {
    fn from_parse(file: &str, e: ParseError) -> ReadError {
        ReadError {
            file: file.to_string(),
            line: e.line,
            column: e.column,
            message: e.message,
        }
    }
}

/// Decides the syntax the way HTCondor's `Parse_auto` does, from the first
/// character that is not blank and not in a `#` comment line.
pub fn detect(src: &str) -> Format {
    let body = src
        .lines()
        .map(str::trim_start)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap_or("");
    let mut chars = body.chars();
    let first = chars.next();
    let next = src[src.len() - src.trim_start().len()..]
        .chars()
        .skip(1)
        .find(|c| !c.is_whitespace());
    match (first, next) {
        (Some('{'), Some('[')) => Format::New,
        (Some('{'), _) => Format::Json,
        (Some('['), Some('{')) => Format::Json,
        (Some('['), _) => Format::New,
        _ => Format::Old,
    }
}

/// Reads every ad in `src`, detecting the syntax. `file` names the source in errors.
pub fn read_ads(src: &str, file: &str) -> Result<Vec<ClassAd>, ReadError> {
    read_ads_as(src, file, detect(src))
}

/// Reads every ad in `src` in the given syntax.
pub fn read_ads_as(src: &str, file: &str, format: Format) -> Result<Vec<ClassAd>, ReadError> {
    match format {
        Format::Old => read_old(src, file),
        Format::New => read_new(src, file),
        Format::Json => parse_json_ads(src).map_err(|e| ReadError::from_parse(file, e)),
    }
}

/// New syntax: ads one after another, optionally wrapped as `{ [..], [..] }`.
fn read_new(src: &str, file: &str) -> Result<Vec<ClassAd>, ReadError> {
    let trimmed = src.trim_start();
    let err = |e| ReadError::from_parse(file, e);
    if trimmed.starts_with('{') {
        let mut p = Parser::new(src);
        return p.classad_list().map_err(err);
    }
    let mut p = Parser::new(src);
    let mut ads = Vec::new();
    while let Some(ad) = p.next_classad().map_err(err)? {
        ads.push(ad);
    }
    Ok(ads)
}

/// Old syntax, as `condor_q -l` and `condor_status -l` print it: one `Name = expr`
/// per line; a blank line ends an ad; lines starting with `#` are comments.
///
/// This is the hot path of loading a pool, so the attributes of one ad share one
/// node arena, names are interned per file, the common literal values skip the
/// parser, and each ad is sorted once.
fn read_old(src: &str, file: &str) -> Result<Vec<ClassAd>, ReadError> {
    let mut ads = Vec::new();
    let mut b = OldAdBuilder::default();
    for (lineno, line) in LineScanner::new(src).enumerate() {
        let t = line.trim_ascii();
        if t.is_empty() {
            if let Some(ad) = b.finish() {
                ads.push(ad);
            }
            continue;
        }
        if t.starts_with('#') {
            continue;
        }
        let lineno = lineno as u32 + 1;
        let err = |column: u32, message: String| ReadError {
            file: file.to_string(),
            line: lineno,
            column,
            message,
        };
        let Some((name, rhs_start)) = split_attr_line(line) else {
            return Err(err(
                1,
                format!("expected `Name = expression`, found `{}`", clip(t)),
            ));
        };
        let rhs = line[rhs_start..].trim_ascii_end();
        let value = match b.literal_fast_path(rhs) {
            Some(v) => Slot::Arena(b.push(Node::Lit(v))),
            None => match b.exprs.get(rhs) {
                Some(e) => Slot::Shared(e.clone()),
                None => {
                    let e = parse_expr_old(rhs).map_err(|e| {
                        let col = line[..rhs_start].chars().count() as u32 + e.column;
                        err(col, format!("in the value of {name}: {}", e.message))
                    })?;
                    let e = ExprRef::root_of(Arc::new(e));
                    b.exprs.insert(rhs, e.clone());
                    Slot::Shared(e)
                }
            },
        };
        let name = b.intern(name);
        b.attrs.push((name, value));
    }
    if let Some(ad) = b.finish() {
        ads.push(ad);
    }
    Ok(ads)
}

/// The lines of a text, as `str::lines` splits them (at `\n`, a `\r` before it
/// dropped), found with `memchr`: reading ads is mostly finding line ends.
struct LineScanner<'s> {
    src: &'s str,
    pos: usize,
    ends: memchr::Memchr<'s>,
}

impl<'s> LineScanner<'s> {
    fn new(src: &'s str) -> LineScanner<'s> {
        LineScanner {
            src,
            pos: 0,
            ends: memchr::memchr_iter(b'\n', src.as_bytes()),
        }
    }
}

impl<'s> Iterator for LineScanner<'s> {
    type Item = &'s str;

    fn next(&mut self) -> Option<&'s str> {
        let bytes = self.src.as_bytes();
        if self.pos >= bytes.len() {
            return None;
        }
        let start = self.pos;
        let end = self.ends.next().unwrap_or(bytes.len());
        self.pos = end + 1;
        // `\n` and `\r` are ASCII, so both cuts fall on character boundaries.
        let line = &self.src[start..end];
        if end < bytes.len() {
            Some(line.strip_suffix('\r').unwrap_or(line))
        } else {
            Some(line)
        }
    }
}

/// Where an attribute's expression lives while its ad is read.
enum Slot {
    /// A literal in the ad's own arena.
    Arena(NodeId),
    /// A parsed expression shared by every ad of the file with the same text.
    Shared(ExprRef),
}

/// One ad being read: its attributes and their node arena; and what the ads of one
/// file share: names, short strings, expressions (parsed once per distinct text, as
/// HTCondor's classad cache does), and usually the attribute order.
#[derive(Default)]
struct OldAdBuilder<'s> {
    nodes: Vec<Node>,
    attrs: Vec<(Str, Slot)>,
    exprs: ahash::AHashMap<&'s str, ExprRef>,
    names: ahash::AHashMap<String, Str>,
    strings: ahash::AHashMap<String, Str>,
    /// The previous ad's names, in file order (to intern the next ad's names
    /// without hashing when it lists the same ones).
    last_order: Vec<Str>,
    /// Sorted permutations of the name orders seen, by the names' identities:
    /// pools mix a few kinds of ad, each always listing its names in one order.
    perms: ahash::AHashMap<Vec<usize>, Vec<usize>>,
}

impl OldAdBuilder<'_> {
    fn push(&mut self, n: Node) -> NodeId {
        self.nodes.push(n);
        (self.nodes.len() - 1) as NodeId
    }

    /// The same attribute names recur in every ad of a file; share their text.
    fn intern(&mut self, name: &str) -> Str {
        // Usually this ad lists its names in the previous ad's order.
        if let Some(prev) = self.last_order.get(self.attrs.len()) {
            if prev.as_str() == name {
                return prev.clone();
            }
        }
        if let Some(s) = self.names.get(name) {
            return s.clone();
        }
        let s = Str::from(name);
        self.names.insert(name.to_string(), s.clone());
        s
    }

    fn finish(&mut self) -> Option<ClassAd> {
        if self.attrs.is_empty() {
            return None;
        }
        let capacity = self.nodes.len();
        let nodes = std::mem::replace(&mut self.nodes, Vec::with_capacity(capacity));
        // An ad of nothing but shared expressions has an empty arena; give it a root.
        let nodes = if nodes.is_empty() {
            vec![Node::Lit(Value::Undefined)]
        } else {
            nodes
        };
        let tree = Arc::new(Expr::from_parts(nodes, 0));
        let expr_of = |slot: &Slot| match slot {
            Slot::Arena(id) => ExprRef {
                tree: tree.clone(),
                id: *id,
            },
            Slot::Shared(e) => e.clone(),
        };
        // Interned names are shared, so their addresses identify a name order.
        let order: Vec<usize> = self
            .attrs
            .iter()
            .map(|(n, _)| n.as_str().as_ptr() as usize)
            .collect();
        let ad = match self.perms.get(&order) {
            Some(perm) => {
                let names = perm.iter().map(|&i| self.attrs[i].0.clone()).collect();
                let slots = perm
                    .iter()
                    .map(|&i| match &self.attrs[i].1 {
                        Slot::Arena(id) => super::classad::Slot::local(*id),
                        Slot::Shared(e) => super::classad::Slot::shared(e.clone()),
                    })
                    .collect();
                ClassAd::from_parts(Arc::new(names), slots, tree)
            }
            None => {
                let mut perm: Vec<usize> = (0..self.attrs.len()).collect();
                perm.sort_by(|&a, &b| attr_order(&self.attrs[a].0, &self.attrs[b].0));
                let unique = perm
                    .windows(2)
                    .all(|w| attr_order(&self.attrs[w[0]].0, &self.attrs[w[1]].0).is_ne());
                if unique && self.perms.len() < 64 {
                    self.perms.insert(order, perm);
                }
                let attrs = self
                    .attrs
                    .iter()
                    .map(|(n, slot)| (n.clone(), expr_of(slot)))
                    .collect();
                ClassAd::from_attrs(attrs)
            }
        };
        self.last_order.clear();
        self.last_order
            .extend(self.attrs.iter().map(|(n, _)| n.clone()));
        self.attrs.clear();
        Some(ad)
    }

    /// The values most attributes of real ads hold, read without the parser: plain
    /// integers, strings without backslashes, and booleans. Anything else
    /// (including every error case, such as a leading zero) goes to the parser.
    fn literal_fast_path(&mut self, rhs: &str) -> Option<Value> {
        let bytes = rhs.as_bytes();
        match *bytes.first()? {
            b'"' => {
                let body = rhs.strip_prefix('"')?.strip_suffix('"')?;
                if memchr::memchr2(b'"', b'\\', body.as_bytes()).is_some() {
                    return None;
                }
                Some(Value::Str(self.short_string(body)))
            }
            b'0'..=b'9' | b'-' => {
                let digits = rhs.strip_prefix('-').unwrap_or(rhs).as_bytes();
                let int_len = digits.iter().take_while(|c| c.is_ascii_digit()).count();
                // A leading zero is an error (or octal) in old syntax: the parser's.
                if int_len == 0 || (digits[0] == b'0' && int_len > 1) {
                    return None;
                }
                match &digits[int_len..] {
                    [] if int_len <= 18 && rhs != "-0" => rhs.parse().ok().map(Value::Int),
                    [b'.', frac @ ..]
                        if !frac.is_empty() && frac.iter().all(|c| c.is_ascii_digit()) =>
                    {
                        rhs.parse().ok().map(Value::Real)
                    }
                    _ => None,
                }
            }
            _ if rhs.eq_ignore_ascii_case("true") => Some(Value::Bool(true)),
            _ if rhs.eq_ignore_ascii_case("false") => Some(Value::Bool(false)),
            _ => None,
        }
    }

    /// Short strings (`"LINUX"`, `"X86_64"`, owners, sites) recur across the ads of a
    /// pool; share them.
    fn short_string(&mut self, s: &str) -> Str {
        if s.len() > 32 {
            return Str::from(s);
        }
        if let Some(v) = self.strings.get(s) {
            return v.clone();
        }
        let v = Str::from(s);
        self.strings.insert(s.to_string(), v.clone());
        v
    }
}

/// Splits `Name = expr` at the first `=`, as HTCondor's `SplitLongFormAttrValue`
/// does: the name is whatever precedes it, trimmed, taken literally (so `'a b' = 1`
/// names an attribute with quotes in its name, as in HTCondor). `None` when there is
/// no `=` or no name. Also gives the byte offset where `expr` starts.
fn split_attr_line(line: &str) -> Option<(&str, usize)> {
    let eq = memchr::memchr(b'=', line.as_bytes())?;
    let name = line[..eq].trim_ascii();
    if name.is_empty() {
        return None;
    }
    let after = &line[eq + 1..];
    Some((
        name,
        eq + 1 + (after.len() - after.trim_ascii_start().len()),
    ))
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

    #[test]
    fn lines_split_like_str_lines() {
        for text in [
            "",
            "a",
            "a\n",
            "a\r\nb",
            "\n\n",
            "x\r",
            "é\nü\r\n",
            "a\n\r\n",
        ] {
            let ours: Vec<&str> = LineScanner::new(text).collect();
            let std: Vec<&str> = text.lines().collect();
            assert_eq!(ours, std, "{text:?}");
        }
    }

    #[test]
    fn detects_formats() {
        assert_eq!(detect("# c\nA = 1\n"), Format::Old);
        assert_eq!(detect("\n [ a = 1 ]"), Format::New);
        assert_eq!(detect("{ [ a = 1 ], [ b = 2 ] }"), Format::New);
        assert_eq!(detect("{\"a\": 1}"), Format::Json);
        assert_eq!(detect("[ {\"a\": 1} ]"), Format::Json);
        assert_eq!(detect(""), Format::Old);
    }

    #[test]
    fn old_syntax_ads_split_on_blank_lines() {
        let ads = read_ads("A = 1\nB = \"x\"\n\n# comment\nC = A + 1\n", "f").unwrap();
        assert_eq!(ads.len(), 2);
        assert_eq!(ads[0].len(), 2);
        assert!(ads[1].get("c").is_some());
    }

    #[test]
    fn old_syntax_errors_name_line_and_column() {
        let e = read_ads("A = 1\nB = (1 +\n", "pool.ads").unwrap_err();
        assert_eq!((e.line, e.file.as_str()), (2, "pool.ads"));
        assert!(e.column >= 5, "{e}");
        let e = read_ads("A = 1\nthis is not an attribute\n", "f").unwrap_err();
        assert_eq!((e.line, e.column), (2, 1));
        assert!(e.to_string().contains("expected `Name = expression`"));
    }

    #[test]
    fn old_syntax_names_are_literal_and_strings_do_not_join() {
        // HTCondor 25.14.1 names this attribute `'odd name'`, quotes and all.
        let ads = read_ads("'odd name' = 1\n", "f").unwrap();
        assert!(ads[0].get("'odd name'").is_some());
        // HTCondor keeps "a" and silently drops "b"; we refuse to lose data.
        let e = read_ads("x = \"a\" \"b\"\n", "f").unwrap_err();
        assert_eq!((e.line, e.column), (1, 9), "{e}");
    }

    #[test]
    fn old_syntax_keeps_backslashes() {
        let ads = read_ads("Cmd = \"C:\\dir\\x.exe\"\n", "f").unwrap();
        let e = ads[0].get("cmd").unwrap();
        assert!(
            matches!(e.node(), crate::syntax::ast::Node::Lit(classad_vm::Value::Str(s)) if s.as_str() == "C:\\dir\\x.exe")
        );
    }

    #[test]
    fn ads_sharing_an_expression_are_not_a_cycle() {
        use crate::eval::{eval_in, Semantics};
        // Both ads hold the same text for x, parsed once and shared (as HTCondor's
        // classad cache does); a's x evaluates b's x, which must not be mistaken for
        // a circular reference.
        let src = "x = y > 0 ? TARGET.x : 5\ny = 1\n\nx = y > 0 ? TARGET.x : 5\ny = 0\n";
        let ads = read_ads(src, "f").unwrap();
        assert!(Arc::ptr_eq(
            ads[0].get("x").unwrap().tree,
            ads[1].get("x").unwrap().tree
        ));
        let a = Arc::new(ads[0].clone());
        let b = Arc::new(ads[1].clone());
        let x = ExprRef::root_of(Arc::new(crate::syntax::parse_expr("x").unwrap()));
        let v = eval_in(&x, &a, Some(&b), Semantics::Htcondor).unwrap();
        assert!(matches!(v, Value::Int(5)), "{v:?}");
    }

    #[test]
    fn new_and_json_ads() {
        assert_eq!(read_ads("[a=1] [b=2]\n[c=3]", "f").unwrap().len(), 3);
        assert_eq!(read_ads("{ [a=1], [b=2] }", "f").unwrap().len(), 2);
        assert_eq!(read_ads("[{\"a\":1},{\"b\":2}]", "f").unwrap().len(), 2);
        assert_eq!(read_ads("{\"a\":1}\n{\"b\":2}\n", "f").unwrap().len(), 2);
        let e = read_ads("[a=1] [b=]", "f").unwrap_err();
        assert_eq!(e.line, 1);
    }
}
