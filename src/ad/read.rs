//! Reading files of ads: old syntax (`condor_q -l`), new syntax, JSON or XML,
//! detected.

use super::classad::ClassAd;
use super::json::parse_json_ads;
use super::old::read_old;
use super::xml::parse_xml_ads;
use crate::ad::ParseAds;
use crate::syntax::{ParseError, Parser};
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
    /// `<c>` ads as `condor_q -xml` prints them (see [`super::xml`]).
    Xml,
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
/// character that is not blank and not in a `#` comment line; a `<` there is XML
/// (`<?xml`, `<classads>`, `<c>`), where HTCondor takes XML only after a first line
/// that is exactly `<?xml version="1.0"?>`.
pub fn detect(src: &str) -> Format {
    let body = src
        .lines()
        .map(str::trim_start)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap_or("");
    let first = body.chars().next();
    let next = src[src.len() - src.trim_start().len()..]
        .chars()
        .skip(1)
        .find(|c| !c.is_whitespace());
    decide(first, next)
}

/// The syntax from the first character of the first line that is not blank or a
/// comment, and the second character of the text that is not white space.
fn decide(first: Option<char>, next: Option<char>) -> Format {
    match (first, next) {
        (Some('<'), _) => Format::Xml,
        (Some('{'), Some('[')) => Format::New,
        (Some('{'), _) => Format::Json,
        (Some('['), Some('{')) => Format::Json,
        (Some('['), _) => Format::New,
        _ => Format::Old,
    }
}

/// [`detect`] fed one line at a time, deciding as soon as the lines so far decide
/// it: at the first significant line, or the next character that is not white
/// space when that line opens with `{` or `[`. Decides what [`detect`] decides on
/// the whole text.
#[derive(Debug, Default)]
pub(super) struct Detector {
    /// The first character of the first line that is neither blank nor a comment.
    first: Option<char>,
    /// Whether the text's first character that is not white space has been seen.
    seen_one: bool,
    /// The text's second character that is not white space.
    next: Option<char>,
}

impl Detector {
    /// Takes the next line (without its `\n`); the syntax once it is decided.
    pub(super) fn feed(&mut self, line: &str) -> Option<Format> {
        if self.next.is_none() {
            for c in line.chars().filter(|c| !c.is_whitespace()) {
                if self.seen_one {
                    self.next = Some(c);
                    break;
                }
                self.seen_one = true;
            }
        }
        if self.first.is_none() {
            let body = line.trim_start();
            if !body.starts_with('#') {
                self.first = body.chars().next();
            }
        }
        match self.first {
            Some('{' | '[') if self.next.is_none() => None,
            Some(_) => Some(decide(self.first, self.next)),
            None => None,
        }
    }

    /// The syntax at the end of the text, when no line decided it.
    pub(super) fn finish(&self) -> Format {
        decide(self.first, self.next)
    }
}

/// Reads every ad in `src`, detecting the syntax. `file` names the source in errors.
/// A leading UTF-8 byte-order mark (an editor's, saving as "UTF-8 with BOM") is
/// skipped: read as text, it was part of the first attribute's name.
pub fn read_ads(src: &str, file: &str) -> Result<Vec<ClassAd>, ReadError> {
    let src = without_bom(src);
    read_ads_as(src, file, detect(src))
}

/// `text` without a leading byte-order mark (U+FEFF).
pub(crate) fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Reads every ad in `src` in the given syntax.
pub fn read_ads_as(src: &str, file: &str, format: Format) -> Result<Vec<ClassAd>, ReadError> {
    match format {
        Format::Old => read_old(src, file),
        Format::New => read_new(src, file),
        Format::Json => parse_json_ads(src).map_err(|e| ReadError::from_parse(file, e)),
        Format::Xml => parse_xml_ads(src).map_err(|e| ReadError::from_parse(file, e)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ast::ExprRef;
    use classad_vm::Value;
    use std::sync::Arc;

    /// A file saved "UTF-8 with BOM" reads as the same file without it, in each
    /// syntax: the mark once became part of the first attribute's name, which
    /// then read as undefined and changed the matches silently.
    #[test]
    fn a_leading_byte_order_mark_is_skipped() {
        for text in [
            "MyType = \"Job\"\nRequestCpus = 2\n",
            "[ MyType = \"Job\"; RequestCpus = 2 ]",
            "[{ \"MyType\": \"Job\", \"RequestCpus\": 2 }]",
            "<?xml version=\"1.0\"?>\n<classads><c><a n=\"MyType\"><s>Job</s></a>\
             <a n=\"RequestCpus\"><i>2</i></a></c></classads>\n",
        ] {
            let ads = read_ads(&format!("\u{feff}{text}"), "bom").unwrap();
            let names: Vec<&str> = ads[0].iter().map(|(n, _)| n.as_str()).collect();
            assert_eq!(names, ["MyType", "RequestCpus"], "{text}");
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
        assert_eq!(detect("<?xml version=\"1.0\"?>\n<classads>"), Format::Xml);
        assert_eq!(detect("\n  <classads><c></c></classads>"), Format::Xml);
        assert_eq!(detect("# made by condor_q\n<c>\n</c>"), Format::Xml);
    }

    #[test]
    fn the_line_by_line_detector_decides_as_detect_does() {
        for src in [
            "# c\nA = 1\n",
            "\n [ a = 1 ]",
            "{\n\n  [ a = 1 ], [ b = 2 ] }",
            "{\"a\": 1}",
            "[\n {\"a\": 1} ]",
            "# [ c\n[a = 1]\n",
            "\n\n",
            "[",
            "",
            "\n<?xml version=\"1.0\"?>\n",
            "<c>",
        ] {
            let mut d = Detector::default();
            let early = src.lines().find_map(|l| d.feed(l));
            assert_eq!(early.unwrap_or_else(|| d.finish()), detect(src), "{src:?}");
        }
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

    #[test]
    fn xml_ads_and_their_errors() {
        let src = "<?xml version=\"1.0\"?>\n<classads>\n<c>\n    <a n=\"A\"><i>1</i></a>\n</c>\n</classads>\n";
        assert_eq!(read_ads(src, "f").unwrap().len(), 1);
        let e = read_ads("<classads>\n<c>\n    <a n=\"A\"><i>1</i>\n</c>\n", "q.xml").unwrap_err();
        assert_eq!(e.to_string(), "q.xml:4:1: not well-formed XML: ill-formed document: expected `</a>`, but `</c>` was found");
    }
}
