//! Reading ads from text (the engines of `parseAds`, `parseOne` and
//! `parseNext`), `quote`, `unquote`, `version` and `lastError`.

use crate::ad::PyClassAd;
use crate::errors::{stream_failed, stream_failed_at, Failure};
use classad::ad::read::{detect, read_ads_as, Format};
use classad::ad::ParseAds;
use classad::syntax::ast::Node;
use classad::syntax::{parse_expr, quote_string_new, Parser};
use classad::Value;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

/// classad2's parser types (`ParserType`).
const AUTO: i64 = -1;
const OLD: i64 = 0;
const XML: i64 = 1;
const JSON: i64 = 2;

/// classad2's test for old syntax: the first character that is not white space
/// is neither `/` (a comment) nor `[`.
fn is_old(text: &str) -> bool {
    text.chars()
        .find(|c| !c.is_ascii_whitespace())
        .is_some_and(|c| c != '/' && c != '[')
}

/// The next old-syntax ad of `text`: the lines up to the next blank line after
/// the first that is not blank, and where the text after it starts; or where
/// in `text` it fails.
fn next_old(text: &str) -> Result<(Option<classad::ad::ClassAd>, usize), Failure> {
    let mut start = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let blank = line.trim().is_empty();
        match (start, blank) {
            (None, false) => start = Some(at),
            (Some(s), true) => {
                return one_old(text, s, at).map(|ad| (ad, at + line.len()));
            }
            _ => {}
        }
        at += line.len();
    }
    match start {
        None => Ok((None, text.len())),
        Some(s) => one_old(text, s, text.len()).map(|ad| (ad, text.len())),
    }
}

/// The ad of the lines `text[start..end]`, or where in `text` it fails.
fn one_old(text: &str, start: usize, end: usize) -> Result<Option<classad::ad::ClassAd>, Failure> {
    let mut ads = read_ads_as(&text[start..end], "<string>", Format::Old)
        .map_err(|e| Failure::within(text, start, e.line, e.column, e.message))?;
    Ok(if ads.is_empty() {
        None
    } else {
        Some(ads.remove(0))
    })
}

/// `_parse_next(text, parser, offset)`: the next ad of `text` from byte `offset`
/// (old or new syntax, or decided as classad2's default does) and the offset
/// after it; `None` at the end.
#[pyfunction]
#[pyo3(name = "_parse_next")]
pub fn parse_next(
    py: Python<'_>,
    text: &str,
    parser: i64,
    offset: usize,
) -> PyResult<(Option<Py<PyClassAd>>, usize)> {
    let (ad, after) = next_at(text, parser, offset)?;
    let ad = match ad {
        Some(ad) => Some(Py::new(py, PyClassAd::new(ad))?),
        None => None,
    };
    Ok((ad, after))
}

/// `_parse_from(text, parser, offset)`: the ads `_parse_next` finds one after
/// another from byte `offset`, each with the offset after it, up to the end
/// (or an ad that ends where it starts); and the offset of the ad whose reading
/// failed, if one did (`_parse_next` there raises its error). One call for a
/// whole text: a call per ad passes the whole text each time, which the stable
/// ABI copies (10,000 slot ads took 385 s to read that way).
#[pyfunction]
#[pyo3(name = "_parse_from")]
pub fn parse_from(
    py: Python<'_>,
    text: &str,
    parser: i64,
    mut offset: usize,
) -> PyResult<(Vec<AdRead>, Option<usize>)> {
    let mut ads = Vec::new();
    loop {
        match next_at(text, parser, offset) {
            Ok((Some(ad), after)) if after != offset => {
                ads.push((Py::new(py, PyClassAd::new(ad))?, after));
                offset = after;
            }
            Ok(_) => return Ok((ads, None)),
            Err(_) => return Ok((ads, Some(offset))),
        }
    }
}

/// An ad read, and the byte offset after it.
type AdRead = (Py<PyClassAd>, usize);

/// The next ad of `text` from byte `offset`, and the offset after it.
fn next_at(
    text: &str,
    parser: i64,
    offset: usize,
) -> PyResult<(Option<classad::ad::ClassAd>, usize)> {
    let rest = text.get(offset..).ok_or_else(stream_failed)?;
    let old = match parser {
        AUTO => is_old(rest),
        OLD => true,
        _ => false,
    };
    // Where it fails is told in the whole text, as the caller gave it.
    let in_text =
        |f: Failure| stream_failed_at(Failure::within(text, offset, f.line, f.column, f.reason));
    let (ad, used) = if old {
        next_old(rest).map_err(in_text)?
    } else {
        let mut p = Parser::new(rest);
        let ad = p
            .next_classad()
            .map_err(|e| stream_failed_at(Failure::at(text, offset + e.offset, e.message)))?;
        (ad, p.offset())
    };
    Ok((ad, offset + used))
}

/// `_parse_all(text, parser)`: every ad of `text` in JSON (`ParserType.JSON`),
/// XML (`ParserType.XML`) or the syntax the text shows (`ParserType.FileAuto`).
#[pyfunction]
#[pyo3(name = "_parse_all")]
pub fn parse_all(py: Python<'_>, text: &str, parser: i64) -> PyResult<Vec<Py<PyClassAd>>> {
    let format = match parser {
        JSON => Format::Json,
        XML => Format::Xml,
        _ => detect(text),
    };
    let ads = if text.trim().is_empty() {
        Vec::new()
    } else {
        read_ads_as(text, "<string>", format).map_err(|e| {
            stream_failed_at(Failure {
                line: e.line,
                column: e.column,
                reason: e.message,
            })
        })?
    };
    ads.into_iter()
        .map(|ad| Py::new(py, PyClassAd::new(ad)))
        .collect()
}

/// A string argument, refused as classad2 refuses another type.
fn str_arg(arg: &Bound<'_, PyAny>) -> PyResult<String> {
    match arg.cast::<PyString>() {
        Ok(s) => Ok(s.to_cow()?.into_owned()),
        Err(_) => Err(PyTypeError::new_err(format!(
            "argument 1 must be str or None, not {}",
            arg.get_type().name()?
        ))),
    }
}

/// `quote(input)`: the string as a ClassAd string literal.
#[pyfunction]
pub fn quote(input: &Bound<'_, PyAny>) -> PyResult<String> {
    let mut out = String::new();
    quote_string_new(&str_arg(input)?, &mut out);
    Ok(out)
}

/// `unquote(input)`: the value of a ClassAd string literal.
#[pyfunction]
pub fn unquote(input: &Bound<'_, PyAny>) -> PyResult<String> {
    let e = parse_expr(&str_arg(input)?)
        .map_err(|_| PyValueError::new_err("Invalid string to unquote"))?;
    match e.node(e.root()) {
        Node::Lit(Value::Str(s)) => Ok(s.to_string()),
        Node::Lit(_) => Err(PyValueError::new_err(
            "ClassAd literal is not a string value",
        )),
        _ => Err(PyValueError::new_err(
            "String does not parse to a ClassAd literal",
        )),
    }
}

/// `version()`: the version of HTCondor's ClassAd library whose behaviour this
/// module reproduces (classad2 gives the version of the library it links).
#[pyfunction]
pub fn version() -> &'static str {
    "25.14.1"
}

/// `lastError()`: classad2's global error message; this library keeps none (its
/// errors are exceptions), so it is empty.
#[pyfunction]
#[pyo3(name = "lastError")]
pub fn last_error() -> &'static str {
    ""
}
