//! Reading old-syntax ads, as `condor_q -l` and `condor_status -l` print them: one
//! `Name = expr` per line, a blank line between ads, `#` comment lines.
//!
//! This is the hot path of loading a pool. Each line is first held against the same
//! line of the last ad of the same kind (the same names in the same order), which in
//! a pool it usually repeats (slots of one machine, jobs of one cluster): a repeated
//! line takes that ad's value, and a line that repeats only the name skips reading
//! it. Other lines are read in one pass. The common literals skip the parser and go
//! into an arena shared by a chunk of consecutive ads; every other distinct
//! expression text is parsed once per file and shared, as HTCondor's classad cache
//! does; the sorted names are shared by the ads that list them in one order. Reading
//! an ad so takes no reference-count operation per attribute, except for strings
//! that differ from the last ad's and for shared expressions.

mod builder;
mod line;
mod names;
mod shared;

pub(in crate::ad) use shared::SharedExprs;

use super::classad::ClassAd;
use super::read::ReadError;
use builder::{AdBuilder, Span};
use line::{common_prefix, Line, Scanner};

/// Reads every ad of an old-syntax text; `file` names it in errors.
pub(super) fn read_old(src: &str, file: &str) -> Result<Vec<ClassAd>, ReadError> {
    read_old_sharing(src, file, None)
}

/// [`read_old`] of one part of a file, its expression trees shared with the
/// file's other parts through `shared`.
pub(in crate::ad) fn read_old_sharing(
    src: &str,
    file: &str,
    shared: Option<&SharedExprs>,
) -> Result<Vec<ClassAd>, ReadError> {
    let bytes = src.as_bytes();
    let scan = Scanner::new(src);
    let mut ads = Vec::new();
    let mut b = AdBuilder::new(shared);
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
            Line::Malformed(t) => return Err(err((1, malformed(t)))),
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

/// Checks one line (without its `\n`) of a text being read as old syntax, before
/// the whole text is held: a line that is not blank, a `#` comment or `Name = ...`
/// fails here with the error `read_old` would give it, so a file that is not ads
/// is refused at its first such line. `read_old` calls a line malformed exactly
/// when this does (lines end at `\n` in both).
pub(in crate::ad) fn check_line(line: &str) -> Result<(), String> {
    let rest = line.trim_start_matches([' ', '\t', '\r', '\x0c']);
    match rest.as_bytes().first() {
        None | Some(b'#') => Ok(()),
        Some(b'/') if line::only_comments(rest.as_bytes()) => Ok(()),
        Some(b'=') => Err(malformed(rest.trim_ascii_end())),
        Some(_) if memchr::memchr(b'=', rest.as_bytes()).is_some() => Ok(()),
        Some(_) => Err(malformed(rest.trim_ascii_end())),
    }
}

/// The error of a line that is not `Name = expression` (given trimmed).
fn malformed(line: &str) -> String {
    format!("expected `Name = expression`, found `{}`", clip(line))
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
    use super::builder::CHUNK_ADS;
    use super::*;
    use crate::syntax::ast::{ExprRef, ExprView, Node};
    use crate::syntax::parse_expr_old;
    use crate::syntax::unparse::unparse_node;
    use classad_vm::Str;
    use std::sync::Arc;

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
