//! Reading files of ads: old syntax (`condor_q -l`), new syntax, or JSON, detected.

use super::classad::ClassAd;
use super::json::parse_json_ads;
use crate::syntax::ast::{Expr, ExprRef, Node, NodeId};
use crate::syntax::{parse_expr_old_into, ParseError, Parser};
use classad_vm::{Str, Value};
use std::sync::Arc;
use std::fmt;

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
    for (lineno, line) in src.lines().enumerate() {
        let t = line.trim();
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
        let rhs = line[rhs_start..].trim_end();
        let root = match literal_fast_path(rhs) {
            Some(v) => b.push(Node::Lit(v)),
            None => parse_expr_old_into(rhs, &mut b.nodes).map_err(|e| {
                let col = line[..rhs_start].chars().count() as u32 + e.column;
                err(col, format!("in the value of {name}: {}", e.message))
            })?,
        };
        let name = b.intern(&name);
        b.attrs.push((name, root));
    }
    if let Some(ad) = b.finish() {
        ads.push(ad);
    }
    Ok(ads)
}

/// One ad being read: its attributes and their shared node arena.
#[derive(Default)]
struct OldAdBuilder {
    nodes: Vec<Node>,
    attrs: Vec<(Str, NodeId)>,
    names: ahash::AHashMap<String, Str>,
}

impl OldAdBuilder {
    fn push(&mut self, n: Node) -> NodeId {
        self.nodes.push(n);
        (self.nodes.len() - 1) as NodeId
    }

    /// The same attribute names recur in every ad of a file; share their text.
    fn intern(&mut self, name: &str) -> Str {
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
        let tree = Arc::new(Expr::from_parts(std::mem::take(&mut self.nodes), 0));
        let attrs = self
            .attrs
            .drain(..)
            .map(|(n, id)| (n, ExprRef { tree: tree.clone(), id }))
            .collect();
        Some(ClassAd::from_attrs(attrs))
    }
}

/// The values most attributes of real ads hold, read without the parser: plain
/// integers, strings without backslashes, and booleans. Anything else (including
/// every error case, such as a leading zero) goes to the parser.
fn literal_fast_path(rhs: &str) -> Option<Value> {
    let bytes = rhs.as_bytes();
    match *bytes.first()? {
        b'"' => {
            let body = rhs.strip_prefix('"')?.strip_suffix('"')?;
            (!body.contains(['"', '\\'])).then(|| Value::str(body))
        }
        b'0'..=b'9' | b'-' => {
            let digits = rhs.strip_prefix('-').unwrap_or(rhs);
            let plain = !digits.is_empty()
                && digits.len() <= 18
                && digits.bytes().all(|c| c.is_ascii_digit())
                && (rhs == "0" || !digits.starts_with('0'));
            if plain {
                rhs.parse().ok().map(Value::Int)
            } else {
                None
            }
        }
        _ if rhs.eq_ignore_ascii_case("true") => Some(Value::Bool(true)),
        _ if rhs.eq_ignore_ascii_case("false") => Some(Value::Bool(false)),
        _ => None,
    }
}

/// Splits `Name = expr` at the first `=` (after the closing quote of a quoted
/// `'name'`); `None` unless the name is a valid attribute name. Also gives the byte
/// offset where `expr` starts.
fn split_attr_line(line: &str) -> Option<(std::borrow::Cow<'_, str>, usize)> {
    let t = line.trim_start();
    let (name, eq) = match t.strip_prefix('\'') {
        Some(rest) => {
            let close = rest.find('\'')?;
            let after = &rest[close + 1..];
            if !after.trim_start().starts_with('=') {
                return None;
            }
            let eq = line.len() - after.len() + after.find('=')?;
            (&rest[..close], eq)
        }
        None => {
            let eq = line.find('=')?;
            let name = line[..eq].trim();
            let plain = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            (if plain { name } else { "" }, eq)
        }
    };
    if name.is_empty() {
        return None;
    }
    let after = &line[eq + 1..];
    let lead = after.len() - after.trim_start().len();
    Some((std::borrow::Cow::Borrowed(name), eq + 1 + lead))
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
    fn old_syntax_quoted_names_and_joined_strings() {
        // HTCondor 25.14.1 reads both.
        let ads = read_ads("'odd name' = \"a\" \"b\"\n", "f").unwrap();
        let e = ads[0].get("odd name").unwrap();
        assert!(
            matches!(e.node(), crate::syntax::ast::Node::Lit(classad_vm::Value::Str(s)) if s.as_str() == "ab")
        );
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
    fn new_and_json_ads() {
        assert_eq!(read_ads("[a=1] [b=2]\n[c=3]", "f").unwrap().len(), 3);
        assert_eq!(read_ads("{ [a=1], [b=2] }", "f").unwrap().len(), 2);
        assert_eq!(read_ads("[{\"a\":1},{\"b\":2}]", "f").unwrap().len(), 2);
        assert_eq!(read_ads("{\"a\":1}\n{\"b\":2}\n", "f").unwrap().len(), 2);
        let e = read_ads("[a=1] [b=]", "f").unwrap_err();
        assert_eq!(e.line, 1);
    }
}
