//! Reading XML ads: `quick-xml`'s events, and what each element means to HTCondor's
//! `ClassAdXMLParser`.

use super::text::{decode_attribute, decode_text, integer, is_c_space, raw_offset, real, Number};
use super::MAX_NESTING;
use crate::ad::classad::{attr_order, ClassAd};
use crate::syntax::ast::{Expr, ExprRef, Node, NodeId};
use crate::syntax::lexer::convert_escapes;
use crate::syntax::time::{parse_abstime, parse_reltime};
use crate::syntax::{parse_expr, ParseError};
use classad_vm::{Str, Value};
use quick_xml::errors::{Error as XmlError, SyntaxError};
use quick_xml::events::{BytesStart, Event};
use std::sync::Arc;

type Result<T> = std::result::Result<T, ParseError>;

/// Reads every ad of an XML document (or of several, one after another, as
/// concatenated `condor_q -xml` outputs are): `<c>` elements, inside `<classads>`
/// or not, with the XML declaration, `DOCTYPE`, comments and white space around
/// them. Errors name the line and column and say what was expected.
///
/// ```
/// let src = "<classads><c><a n=\"A\"><i>1</i></a><a n=\"B\"><e>A + 1</e></a></c></classads>";
/// let ads = classad::ad::xml::parse_xml_ads(src).unwrap();
/// assert_eq!(classad::ad::unparse_ad(&ads[0]), "[ A = 1; B = A + 1 ]");
/// let e = classad::ad::xml::parse_xml_ads("<c>\n  <a n=\"A\"><i>1</i><i>2</i></a></c>").unwrap_err();
/// assert_eq!((e.line, e.column), (2, 20));
/// ```
pub fn parse_xml_ads(src: &str) -> std::result::Result<Vec<ClassAd>, ParseError> {
    XmlReader::new(src).document()
}

/// Checks the start of an XML document (its first lines, the rest not yet read):
/// an error there that more input could not mend is returned at once, so that a
/// stream that is not XML ads fails at its first bad element rather than after
/// being read whole.
pub(in crate::ad) fn check_xml_prefix(src: &str) -> Result<()> {
    let mut reader = XmlReader::new(src);
    match reader.document() {
        Err(e) if !reader.ran_out => Err(e),
        _ => Ok(()),
    }
}

/// The elements of HTCondor's XML ads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tag {
    ClassAds,
    Ad,
    Attribute,
    Integer,
    Real,
    String,
    Bool,
    Undefined,
    Error,
    AbsTime,
    RelTime,
    List,
    Expr,
    Unknown,
}

/// The element a name stands for (names are case-sensitive, as HTCondor's).
fn tag(name: &[u8]) -> Tag {
    match name {
        b"classads" => Tag::ClassAds,
        b"c" => Tag::Ad,
        b"a" => Tag::Attribute,
        b"i" => Tag::Integer,
        b"r" => Tag::Real,
        b"s" => Tag::String,
        b"b" => Tag::Bool,
        b"un" => Tag::Undefined,
        b"er" => Tag::Error,
        b"at" => Tag::AbsTime,
        b"rt" => Tag::RelTime,
        b"l" => Tag::List,
        b"e" => Tag::Expr,
        _ => Tag::Unknown,
    }
}

/// What a value element may be, for messages.
const A_VALUE: &str = "a value (`<i>`, `<r>`, `<s>`, `<b v=\"t\"/>`, `<un/>`, `<er/>`, \
                       `<at>`, `<rt>`, `<e>`, `<l>` or `<c>`)";

/// An event for messages: the tag as written, or what kind of thing it is.
fn describe(event: &Event<'_>) -> String {
    let name = |n: &[u8]| String::from_utf8_lossy(n).into_owned();
    match event {
        Event::Start(t) | Event::Empty(t) if t.name().as_ref().is_empty() => {
            "a `<` with no tag name after it".into()
        }
        Event::Start(t) => format!("`<{}>`", name(t.name().as_ref())),
        Event::Empty(t) => format!("`<{}/>`", name(t.name().as_ref())),
        Event::End(t) => format!("`</{}>`", name(t.name().as_ref())),
        Event::Text(t) => {
            let text = String::from_utf8_lossy(t);
            let text = text.trim_matches(is_c_space);
            match text.char_indices().nth(30) {
                Some((cut, _)) => format!("text `{}...`", &text[..cut]),
                None => format!("text `{text}`"),
            }
        }
        Event::CData(_) => "a CDATA section (HTCondor reads none)".into(),
        Event::Comment(_) => "a comment".into(),
        Event::Decl(_) => "an XML declaration".into(),
        Event::PI(_) => "a processing instruction".into(),
        Event::DocType(_) => "a DOCTYPE".into(),
        Event::Eof => "the end of the input".into(),
    }
}

fn is_blank(text: &[u8]) -> bool {
    text.iter().all(|&b| is_c_space(char::from(b)))
}

/// Lines that are blank or start (after white space) with `#`.
fn is_comment_lines(text: &[u8]) -> bool {
    text.split(|&b| b == b'\n').all(|line| {
        let line = line.trim_ascii_start();
        line.is_empty() || line.starts_with(b"#")
    })
}

/// A reader of one text of XML ads.
struct XmlReader<'s> {
    src: &'s str,
    xml: quick_xml::Reader<&'s [u8]>,
    /// An error was the end of the input coming too soon: more text may mend it.
    ran_out: bool,
}

impl<'s> XmlReader<'s> {
    fn new(src: &'s str) -> XmlReader<'s> {
        let mut xml = quick_xml::Reader::from_str(src);
        let config = xml.config_mut();
        // White space is a string's own (`<s> </s>`); end tags must match.
        config.trim_text(false);
        config.check_end_names = true;
        config.expand_empty_elements = false;
        XmlReader {
            src,
            xml,
            ran_out: false,
        }
    }

    /// The next event and the byte offset where it starts.
    fn next(&mut self) -> Result<(Event<'s>, usize)> {
        let at = usize::try_from(self.xml.buffer_position()).unwrap_or(usize::MAX);
        match self.xml.read_event() {
            Ok(event) => Ok((event, at)),
            Err(e) => {
                // Markup left open at the end of the input (`<a n="x` or `<!--`).
                if matches!(&e, XmlError::Syntax(s) if !matches!(s, SyntaxError::InvalidBangMarkup))
                {
                    self.ran_out = true;
                }
                let at = usize::try_from(self.xml.error_position()).unwrap_or(usize::MAX);
                Err(self.error_at(at, format!("not well-formed XML: {e}")))
            }
        }
    }

    /// The next event that is not white space or a comment.
    fn next_markup(&mut self) -> Result<(Event<'s>, usize)> {
        loop {
            let (event, at) = self.next()?;
            match &event {
                Event::Comment(_) => {}
                Event::Text(t) if is_blank(t) => {}
                _ => return Ok((event, at)),
            }
        }
    }

    fn error_at(&self, offset: usize, message: String) -> ParseError {
        ParseError::at(self.src, offset, message)
    }

    /// `expected` was wanted at `at` and `event` came.
    fn unexpected(&mut self, event: &Event<'_>, mut at: usize, expected: &str) -> ParseError {
        match event {
            Event::Eof => self.ran_out = true,
            // At the text itself, past the white space before it.
            Event::Text(t) => at += t.iter().take_while(|&&b| is_c_space(char::from(b))).count(),
            _ => {}
        }
        self.error_at(
            at,
            format!("expected {expected}, found {}", describe(event)),
        )
    }

    /// The element opened at `open` is not closed before the input ends.
    fn unclosed(&mut self, element: &str, open: usize) -> ParseError {
        self.ran_out = true;
        self.error_at(
            open,
            format!("`{element}` is not closed: the input ends first"),
        )
    }

    fn document(&mut self) -> Result<Vec<ClassAd>> {
        let mut ads = Vec::new();
        // Where the `<classads>` that is open starts.
        let mut open = None;
        let mut first = true;
        loop {
            let (event, at) = self.next()?;
            let before_markup = std::mem::replace(&mut first, false);
            match &event {
                Event::Decl(_) | Event::PI(_) | Event::DocType(_) | Event::Comment(_) => {}
                Event::Text(t) if is_blank(t) => {}
                // `#` comment lines before the XML, which HTCondor's detection of
                // the syntax skips (as `read::detect` does).
                Event::Text(t) if before_markup && is_comment_lines(t) => {}
                Event::Start(t) if tag(t.name().as_ref()) == Tag::Ad => ads.push(self.ad(at)?),
                Event::Empty(t) if tag(t.name().as_ref()) == Tag::Ad => ads.push(ClassAd::new()),
                Event::Start(t) if open.is_none() && tag(t.name().as_ref()) == Tag::ClassAds => {
                    open = Some(at)
                }
                // quick-xml has checked that it closes the open `<classads>`.
                Event::End(t) if tag(t.name().as_ref()) == Tag::ClassAds => open = None,
                Event::Empty(t) if tag(t.name().as_ref()) == Tag::ClassAds => {}
                Event::Eof => {
                    return match open {
                        Some(o) => Err(self.unclosed("<classads>", o)),
                        None => Ok(ads),
                    }
                }
                _ => return Err(self.unexpected(&event, at, "an ad (`<c>`)")),
            }
        }
    }

    /// An ad whose `<c>` starts at `open`, up to its `</c>`: one expression tree
    /// per attribute, as the other readers make them.
    fn ad(&mut self, open: usize) -> Result<ClassAd> {
        let mut attrs: Vec<(Str, ExprRef)> = Vec::new();
        self.attributes(open, |reader, name| {
            let mut nodes = Vec::new();
            let root = reader.value(&mut nodes, 0)?;
            let tree = Arc::new(Expr::from_parts(nodes, root));
            attrs.push((name, ExprRef::root_of(tree)));
            Ok(())
        })?;
        // A repeated name keeps its first spelling and takes its last value, as
        // HTCondor's `Insert` does.
        Ok(ClassAd::from_attrs(attrs))
    }

    /// The `<a n="...">` elements of an ad opened at `open`, up to its `</c>`:
    /// `take` reads each one's value.
    fn attributes(
        &mut self,
        open: usize,
        mut take: impl FnMut(&mut Self, Str) -> Result<()>,
    ) -> Result<()> {
        loop {
            let (event, at) = self.next_markup()?;
            match &event {
                Event::Start(t) if tag(t.name().as_ref()) == Tag::Attribute => {
                    let name = self.attribute_name(t, at)?;
                    take(self, name)?;
                    self.close(b"a", at, "`</a>` (an attribute holds one value)")?;
                }
                Event::Empty(t) if tag(t.name().as_ref()) == Tag::Attribute => {
                    return Err(self.error_at(at, "an attribute `<a/>` without a value".into()))
                }
                Event::End(t) if tag(t.name().as_ref()) == Tag::Ad => return Ok(()),
                Event::Eof => return Err(self.unclosed("<c>", open)),
                _ => {
                    return Err(self.unexpected(
                        &event,
                        at,
                        "an attribute (`<a n=\"Name\">`) or `</c>`",
                    ))
                }
            }
        }
    }

    /// Reads the end tag `</name>` of an element opened at `open`, past white space
    /// and comments; `expected` says what may come for messages.
    fn close(&mut self, name: &[u8], open: usize, expected: &str) -> Result<()> {
        let (event, at) = self.next_markup()?;
        match &event {
            Event::End(t) if t.name().as_ref() == name => Ok(()),
            Event::Eof => Err(self.unclosed(&format!("<{}>", String::from_utf8_lossy(name)), open)),
            _ => Err(self.unexpected(&event, at, expected)),
        }
    }

    /// The value of XML attribute `key` of the tag at `at`, as HTCondor reads it:
    /// its three entities replaced, then backslash escapes (as in a string).
    fn tag_attribute(&self, t: &BytesStart<'_>, key: &[u8], at: usize) -> Result<Option<String>> {
        let mut found = None;
        for attribute in t.attributes() {
            let attribute =
                attribute.map_err(|e| self.error_at(at, format!("not well-formed XML: {e}")))?;
            if attribute.key.as_ref() == key {
                found = Some(attribute.value);
            }
        }
        let Some(raw) = found else {
            return Ok(None);
        };
        let key = String::from_utf8_lossy(key);
        let raw = std::str::from_utf8(&raw)
            .map_err(|_| self.error_at(at, format!("`{key}` is not UTF-8 text")))?;
        let decoded = decode_attribute(raw).map_err(|_| {
            self.error_at(
                at,
                format!(
                    "`{key}=\"{raw}\"` has an `&` and no `;` after it (an `&` is written `&amp;`)"
                ),
            )
        })?;
        let bytes = convert_escapes(decoded.as_bytes()).ok_or_else(|| {
            self.error_at(
                at,
                format!("`{key}=\"{raw}\"` has an escape that makes a NUL byte"),
            )
        })?;
        String::from_utf8(bytes).map(Some).map_err(|_| {
            self.error_at(
                at,
                format!("`{key}=\"{raw}\"` is not UTF-8 text after its escapes"),
            )
        })
    }

    /// The name `n` of the attribute element at `at`.
    fn attribute_name(&self, t: &BytesStart<'_>, at: usize) -> Result<Str> {
        match self.tag_attribute(t, b"n", at)? {
            Some(name) if !name.is_empty() => Ok(Str::from(name.as_str())),
            Some(_) => Err(self.error_at(at, "an attribute with an empty name `n=\"\"`".into())),
            None => {
                Err(self.error_at(at, "an attribute `<a>` without its name `n=\"...\"`".into()))
            }
        }
    }

    /// The text of the element `<name>` opened at `open` (`None` when it is empty)
    /// with the offset where the text starts, up to its end tag: nothing but text
    /// may be inside.
    fn text_of(
        &mut self,
        name: &str,
        empty: bool,
        open: usize,
    ) -> Result<Option<(&'s str, usize)>> {
        if empty {
            return Ok(None);
        }
        let mut text = None;
        loop {
            let (event, at) = self.next()?;
            match &event {
                Event::Text(t) if text.is_none() => {
                    let end = (at + t.len()).min(self.src.len());
                    text = Some((&self.src[at..end], at));
                }
                Event::End(t) if t.name().as_ref() == name.as_bytes() => return Ok(text),
                Event::Eof => return Err(self.unclosed(&format!("<{name}>"), open)),
                _ => {
                    let expected = format!("text and `</{name}>` in `<{name}>`");
                    return Err(self.unexpected(&event, at, &expected));
                }
            }
        }
    }

    /// An element that holds nothing (`<b>`, `<un>`, `<er>`) written with an end
    /// tag: white space may come before it.
    fn close_empty(&mut self, name: &str, empty: bool, open: usize) -> Result<()> {
        if empty {
            return Ok(());
        }
        let expected = format!("`</{name}>` (`<{name}>` holds nothing)");
        self.close(name.as_bytes(), open, &expected)
    }

    /// Reads one value into `nodes`; its id. `depth` is how many lists and ads
    /// are around it within its attribute.
    fn value(&mut self, nodes: &mut Vec<Node>, depth: u32) -> Result<NodeId> {
        let (event, at) = self.next_markup()?;
        self.value_from(event, at, nodes, depth)
    }

    /// The value whose first event, at `at`, is `event`.
    fn value_from(
        &mut self,
        event: Event<'s>,
        at: usize,
        nodes: &mut Vec<Node>,
        depth: u32,
    ) -> Result<NodeId> {
        let (t, empty) = match &event {
            Event::Start(t) => (t, false),
            Event::Empty(t) => (t, true),
            _ => return Err(self.unexpected(&event, at, A_VALUE)),
        };
        let push = |nodes: &mut Vec<Node>, node| {
            nodes.push(node);
            (nodes.len() - 1) as NodeId
        };
        let value = match tag(t.name().as_ref()) {
            Tag::Integer => {
                let text = self.text_of("i", empty, at)?;
                self.number(text, at, "i", integer, Value::Int)?
            }
            Tag::Real => {
                let text = self.text_of("r", empty, at)?;
                self.number(text, at, "r", real, Value::Real)?
            }
            Tag::String => match self.text_of("s", empty, at)? {
                // No text at all is the empty string.
                None => Value::str(""),
                Some((raw, from)) => Value::str(self.string(raw, from)?.as_str()),
            },
            Tag::Bool => {
                let truth = match self.tag_attribute(t, b"v", at)?.as_deref() {
                    Some("t" | "T") => true,
                    Some("f" | "F") => false,
                    other => {
                        let found = other.map_or("no `v`".to_string(), |v| format!("`v=\"{v}\"`"));
                        return Err(self.error_at(
                            at,
                            format!("a boolean is `<b v=\"t\"/>` or `<b v=\"f\"/>`, found {found} (which HTCondor reads as false)"),
                        ));
                    }
                };
                self.close_empty("b", empty, at)?;
                Value::Bool(truth)
            }
            Tag::Undefined => {
                self.close_empty("un", empty, at)?;
                Value::Undefined
            }
            Tag::Error => {
                self.close_empty("er", empty, at)?;
                Value::Error
            }
            Tag::AbsTime => {
                let text = self.time_text("at", empty, at)?;
                match parse_abstime(&text) {
                    Some(t) => Value::AbsTime(t),
                    None => {
                        return Err(self.error_at(at, format!("`<at>{text}</at>` is not an absolute time HTCondor reads (`2023-11-14T22:13:20-06:00`)")))
                    }
                }
            }
            Tag::RelTime => {
                let text = self.time_text("rt", empty, at)?;
                match parse_reltime(&text) {
                    Some(r) => Value::RelTime(r),
                    None => {
                        return Err(self.error_at(at, format!("`<rt>{text}</rt>` is not a relative time HTCondor reads (`[-][days+]hh:mm:ss`)")))
                    }
                }
            }
            Tag::Expr => {
                let Some((raw, from)) = self.text_of("e", empty, at)? else {
                    return Err(self.error_at(at, "an empty `<e>`: it holds an expression".into()));
                };
                return self.expression(raw, from, nodes);
            }
            Tag::List => {
                self.nest(depth, at)?;
                let mut items = Vec::new();
                if !empty {
                    loop {
                        let (event, item_at) = self.next_markup()?;
                        match &event {
                            Event::End(t) if t.name().as_ref() == b"l" => break,
                            Event::Eof => return Err(self.unclosed("<l>", at)),
                            _ => items.push(self.value_from(event, item_at, nodes, depth + 1)?),
                        }
                    }
                }
                return Ok(push(nodes, Node::List(items)));
            }
            Tag::Ad => {
                self.nest(depth, at)?;
                // A nested ad is a ClassAd to HTCondor, kept as the parser keeps
                // one: in HTCondor's order, a repeated name taking the last value
                // under its first spelling.
                let mut fields: Vec<(Str, NodeId)> = Vec::new();
                if !empty {
                    self.attributes(at, |reader, name| {
                        let id = reader.value(nodes, depth + 1)?;
                        match fields.binary_search_by(|(n, _)| attr_order(n, &name)) {
                            Ok(i) => fields[i].1 = id,
                            Err(i) => fields.insert(i, (name, id)),
                        }
                        Ok(())
                    })?;
                }
                return Ok(push(nodes, Node::Record(fields)));
            }
            Tag::ClassAds | Tag::Attribute | Tag::Unknown => {
                return Err(self.unexpected(&event, at, A_VALUE))
            }
        };
        Ok(push(nodes, Node::Lit(value)))
    }

    /// Refuses a list or ad one level deeper than [`MAX_NESTING`].
    fn nest(&self, depth: u32, at: usize) -> Result<()> {
        if depth >= MAX_NESTING {
            return Err(self.error_at(
                at,
                format!("lists and ads nested more than {MAX_NESTING} deep (the new syntax, HTCondor's included, holds no more)"),
            ));
        }
        Ok(())
    }

    /// The value of an `<i>` or `<r>` whose text is `text`: `error` when the text is
    /// no number (as HTCondor makes it); an error when it is missing (HTCondor
    /// refuses the ad) or when text follows the number (HTCondor drops it).
    fn number<T>(
        &self,
        text: Option<(&'s str, usize)>,
        open: usize,
        name: &str,
        read: fn(&str) -> Number<T>,
        make: fn(T) -> Value,
    ) -> Result<Value> {
        let Some((raw, from)) = text else {
            return Err(self.error_at(open, format!("an empty `<{name}>`: it holds a number")));
        };
        let decoded = self.decoded(raw, from)?;
        let skipped = decoded.len() - decoded.trim_start_matches(is_c_space).len();
        let number = &decoded[skipped..];
        Ok(match read(number) {
            Number::Read(n) => make(n),
            Number::Unreadable => Value::Error,
            Number::TextAfter(end) => {
                let at = from + raw_offset(raw, skipped + end);
                return Err(self.error_at(
                    at,
                    format!(
                        "`<{name}>{}</{name}>`: text after the number `{}` (HTCondor drops it)",
                        number.trim_end_matches(is_c_space),
                        &number[..end]
                    ),
                ));
            }
        })
    }

    /// `raw` (a text starting at byte `from`) with its entities replaced.
    fn decoded(&self, raw: &'s str, from: usize) -> Result<std::borrow::Cow<'s, str>> {
        decode_text(raw).map_err(|amp| {
            self.error_at(
                from + amp,
                "an `&` that ends no entity before the element does (an `&` is written `&amp;`; HTCondor would read on through the markup)".into(),
            )
        })
    }

    /// The string of a `<s>` whose text is `raw`: entities, then backslash escapes.
    fn string(&self, raw: &'s str, from: usize) -> Result<String> {
        let decoded = self.decoded(raw, from)?;
        let bytes = convert_escapes(decoded.as_bytes()).ok_or_else(|| {
            self.error_at(
                from,
                "a string with an escape that makes a NUL byte (HTCondor refuses the ad)".into(),
            )
        })?;
        String::from_utf8(bytes).map_err(|_| {
            self.error_at(
                from,
                "a string that is not UTF-8 text after its escapes (such as `\\377`)".into(),
            )
        })
    }

    /// The text of an `<at>` or `<rt>`, past the white space HTCondor skips.
    fn time_text(&mut self, name: &str, empty: bool, open: usize) -> Result<String> {
        let Some((raw, from)) = self.text_of(name, empty, open)? else {
            return Err(self.error_at(open, format!("an empty `<{name}>`: it holds a time")));
        };
        let decoded = self.decoded(raw, from)?;
        Ok(decoded.trim_start_matches(is_c_space).to_string())
    }

    /// Parses the text of an `<e>` (starting at byte `from`) and copies its tree into
    /// `nodes`; its root.
    fn expression(&self, raw: &'s str, from: usize, nodes: &mut Vec<Node>) -> Result<NodeId> {
        let decoded = self.decoded(raw, from)?;
        let e = parse_expr(&decoded).map_err(|e| {
            self.error_at(
                from + raw_offset(raw, e.offset),
                format!("in `<e>`: {}", e.message),
            )
        })?;
        let offset = nodes.len() as NodeId;
        nodes.extend(e.nodes().iter().map(|n| n.map_children(|c| c + offset)));
        Ok(e.root() + offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::unparse_ad;

    /// Each ad of `src` in new syntax, or the error as `line:column: message`.
    fn read(src: &str) -> std::result::Result<Vec<String>, String> {
        parse_xml_ads(src)
            .map(|ads| ads.iter().map(unparse_ad).collect())
            .map_err(|e| format!("{}:{}: {}", e.line, e.column, e.message))
    }

    /// The one attribute `x` of `<c><a n="x">VALUE</a></c>`, in new syntax.
    fn value(xml: &str) -> std::result::Result<String, String> {
        let ads = read(&format!("<c><a n=\"x\">{xml}</a></c>"))?;
        Ok(ads[0]
            .strip_prefix("[ x = ")
            .and_then(|s| s.strip_suffix(" ]"))
            .unwrap_or(&ads[0])
            .to_string())
    }

    fn fails(xml: &str, want: &str) {
        let e = value(xml).expect_err(xml);
        assert!(e.contains(want), "{xml}: {e}");
    }

    #[test]
    fn a_condor_q_document_reads() {
        let src =
            "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n\
                   <c>\n    <a n=\"Owner\"><s>alice</s></a>\n    <a n=\"Cpus\"><i>4</i></a>\n</c>\n\
                   <c>\n    <a n=\"Owner\"><s>bob</s></a>\n</c>\n</classads>\n";
        assert_eq!(
            read(src),
            Ok(vec![
                "[ Cpus = 4; Owner = \"alice\" ]".into(),
                "[ Owner = \"bob\" ]".into()
            ])
        );
        assert_eq!(read("<classads></classads>"), Ok(vec![]));
        assert_eq!(read("  \n"), Ok(vec![]));
        assert_eq!(read("<c/><c></c>"), Ok(vec!["[  ]".into(), "[  ]".into()]));
        // Concatenated documents, as two `condor_q -xml` runs appended.
        assert_eq!(read(&format!("{src}{src}")).map(|a| a.len()), Ok(4));
    }

    #[test]
    fn integers_and_reals() {
        assert_eq!(value("<i>42</i>"), Ok("42".into()));
        assert_eq!(value("<i> -7\n</i>"), Ok("-7".into()));
        assert_eq!(value("<i>abc</i>"), Ok("error".into()));
        assert_eq!(value("<i>99999999999999999999</i>"), Ok("error".into()));
        fails("<i>12abc</i>", "text after the number `12`");
        fails("<i></i>", "an empty `<i>`");
        fails("<i/>", "an empty `<i>`");
        assert_eq!(value("<r>2.5</r>"), Ok("2.500000000000000E+00".into()));
        assert_eq!(value("<r>-0.0</r>"), Ok("-0.0".into()));
        assert_eq!(value("<r>NaN</r>"), Ok("real(\"NaN\")".into()));
        assert_eq!(value("<r>-INF</r>"), Ok("real(\"-INF\")".into()));
        assert_eq!(value("<r>x</r>"), Ok("error".into()));
        fails("<r>1e3x</r>", "text after the number `1e3`");
    }

    #[test]
    fn strings_read_entities_then_escapes() {
        assert_eq!(value("<s>a &amp; &lt;b&gt;</s>"), Ok("\"a & <b>\"".into()));
        assert_eq!(value("<s>&quot;&#65;</s>"), Ok("\"&quot;&#65;\"".into()));
        assert_eq!(
            value("<s> a \"q\" \\n\\t\\303\\251 </s>"),
            Ok("\" a \\\"q\\\" \\n\\t\\303\\251 \"".into())
        );
        assert_eq!(value("<s>caf\u{e9}</s>"), Ok("\"caf\\303\\251\"".into()));
        assert_eq!(value("<s></s>"), Ok("\"\"".into()));
        assert_eq!(value("<s/>"), Ok("\"\"".into()));
        assert_eq!(value("<s>  </s>"), Ok("\"  \"".into()));
        fails("<s>a\\0b</s>", "NUL");
        fails("<s>\\377</s>", "not UTF-8");
        fails("<s>a &amp</s>", "an `&` that ends no entity");
        fails("<s><![CDATA[x]]></s>", "CDATA");
        fails("<s>a<!-- c -->b</s>", "a comment");
    }

    #[test]
    fn booleans_undefined_and_error() {
        assert_eq!(value("<b v=\"t\"/>"), Ok("true".into()));
        assert_eq!(value("<b v=\"F\"></b>"), Ok("false".into()));
        assert_eq!(value("<b v=\"T\"> </b>"), Ok("true".into()));
        fails("<b v=\"true\"/>", "HTCondor reads as false");
        fails("<b/>", "found no `v`");
        fails("<b v=\"t\">x</b>", "holds nothing");
        assert_eq!(value("<un/>"), Ok("undefined".into()));
        assert_eq!(value("<er></er>"), Ok("error".into()));
    }

    #[test]
    fn times() {
        assert_eq!(
            value("<at>2023-11-14T22:13:20Z</at>"),
            Ok("absTime(\"2023-11-14T22:13:20-00:00\")".into())
        );
        assert_eq!(value("<rt>90</rt>"), Ok("relTime(\"01:30\")".into()));
        fails("<at>garbage</at>", "not an absolute time");
        fails("<rt>x</rt>", "not a relative time");
        fails("<at></at>", "an empty `<at>`");
    }

    #[test]
    fn expressions() {
        assert_eq!(
            value("<e>a &lt; b &amp;&amp; c</e>"),
            Ok("a < b && c".into())
        );
        assert_eq!(value("<e>\n  a +\n  1 </e>"), Ok("a + 1".into()));
        assert_eq!(
            value("<e>[y = 1; z = {1, 2}]</e>"),
            Ok("[ y = 1; z = { 1,2 } ]".into())
        );
        assert_eq!(value("<e>5</e>"), Ok("5".into()));
        fails("<e></e>", "an empty `<e>`");
        fails("<e>a b</e>", "in `<e>`");
        // The column is the expression's own, past the entity before it.
        let e = read("<c><a n=\"x\"><e>a &lt; )</e></a></c>").unwrap_err();
        assert!(e.starts_with("1:23:"), "{e}");
    }

    #[test]
    fn lists_and_nested_ads() {
        assert_eq!(value("<l></l>"), Ok("{  }".into()));
        assert_eq!(value("<l/>"), Ok("{  }".into()));
        assert_eq!(
            value("<l> <i>1</i>\n<s>a</s> <l><un/></l> </l>"),
            Ok("{ 1,\"a\",{ undefined } }".into())
        );
        assert_eq!(
            value("<c><a n=\"p\"><i>1</i></a><a n=\"P\"><i>2</i></a><a n=\"q\"><c/></a></c>"),
            Ok("[ p = 2; q = [  ] ]".into())
        );
        fails("<l>junk</l>", "found text `junk`");
        fails("<l><foo/></l>", "found `<foo/>`");
    }

    #[test]
    fn nesting_deeper_than_the_new_syntax_holds_is_refused() {
        let deep = |n: usize| format!("{}<i>1</i>{}", "<l>".repeat(n), "</l>".repeat(n));
        let ad = parse_xml_ads(&format!("<c><a n=\"x\">{}</a></c>", deep(165))).unwrap();
        let printed = unparse_ad(&ad[0]);
        assert!(crate::ad::parse_classad(&printed).is_ok());
        fails(&deep(166), "nested more than 165 deep");
        fails(&deep(100_000), "nested more than 165 deep");
    }

    #[test]
    fn names() {
        let ads = read(
            "<c><a n=\"a&amp;b\"><i>1</i></a><a n=\"t\\tx\"><i>2</i></a><a n='sq'><i>3</i></a></c>",
        );
        assert_eq!(ads, Ok(vec!["[ sq = 3; 'a&b' = 1; 't\\tx' = 2 ]".into()]));
        assert_eq!(
            read("<c><a n=\"x\"><i>1</i></a><a n=\"X\"><i>2</i></a></c>"),
            Ok(vec!["[ x = 2 ]".into()])
        );
        for (src, want) in [
            ("<c><a><i>1</i></a></c>", "without its name"),
            ("<c><a n=\"\"><i>1</i></a></c>", "empty name"),
            ("<c><a n=\"a&b\"><i>1</i></a></c>", "no `;` after it"),
            (
                "<c><a n=\"x\" n=\"y\"><i>1</i></a></c>",
                "not well-formed XML",
            ),
            ("<c><a n=\"x\"></a></c>", "expected a value"),
            ("<c><a n=\"x\">5</a></c>", "found text `5`"),
            ("<c><a n=\"x\"/></c>", "without a value"),
        ] {
            let e = read(src).expect_err(src);
            assert!(e.contains(want), "{src}: {e}");
        }
    }

    #[test]
    fn structure_errors_say_where_and_what() {
        for (src, want) in [
            (
                "<c><a n=\"x\"><i>1</i><i>2</i></a></c>",
                "1:21: expected `</a>` (an attribute holds one value), found `<i>`",
            ),
            (
                "<c>junk<a n=\"x\"><i>1</i></a></c>",
                "1:4: expected an attribute (`<a n=\"Name\">`) or `</c>`, found text `junk`",
            ),
            ("<c><foo/></c>", "1:4: expected an attribute"),
            (
                "<foo/><c></c>",
                "1:1: expected an ad (`<c>`), found `<foo/>`",
            ),
            ("<C></C>", "1:1: expected an ad (`<c>`), found `<C>`"),
            (
                "<c>\n<a n=\"x\"><i>1</i></a>\n",
                "1:1: `<c>` is not closed: the input ends first",
            ),
            ("<c><a n=\"x\"><i>1", "1:13: `<i>` is not closed"),
            ("<c></a></c>", "not well-formed XML"),
            ("</c>", "not well-formed XML"),
            ("<c><?xml version=\"1.0\"?></c>", "found an XML declaration"),
            (
                "< c ></ c >",
                "1:1: expected an ad (`<c>`), found a `<` with no tag name after it",
            ),
        ] {
            let e = read(src).expect_err(src);
            assert!(e.starts_with(want) || e.contains(want), "{src}: {e}");
        }
        // `#` lines before the XML, as HTCondor's detection skips them.
        assert_eq!(
            read("# by hand\n  # more\n\n<c></c>"),
            Ok(vec!["[  ]".into()])
        );
        let e = read("<c></c># late\n").unwrap_err();
        assert!(e.starts_with("1:8: expected an ad"), "{e}");
        // Comments are skipped, as XML has them.
        assert_eq!(
            read("<!-- a --><c><!-- b --><a n=\"x\"><i>1</i></a></c>"),
            Ok(vec!["[ x = 1 ]".into()])
        );
    }

    #[test]
    fn a_prefix_fails_only_for_what_more_input_cannot_mend() {
        for cut in [
            "<c>\n<a n=\"x\"><s>two\nlines",
            "<c><a n=\"x",
            "<classads>\n<c>\n",
            "<c><!-- note",
        ] {
            assert_eq!(check_xml_prefix(cut), Ok(()), "{cut}");
        }
        let e = check_xml_prefix("<c>\n<a n=\"x\"><i>1</i></a>\nnot xml\n").unwrap_err();
        assert_eq!((e.line, e.column), (3, 1));
        assert!(check_xml_prefix("<c><bad/>\n<a").is_err());
    }
}
