//! ClassAds as JSON, the way HTCondor's `jsonSource.cpp` reads and `jsonSink.cpp` writes.
//!
//! Scalars map to JSON scalars, `undefined` to `null`, lists to arrays and nested ads
//! to objects; every other expression travels as the string `"\/Expr(<text>)\/"`.

use super::classad::ClassAd;
use crate::syntax::ast::{Expr, ExprView, Node, NodeId};
use crate::syntax::unparse::{fmt_real_old, unparse_node};
use crate::syntax::ParseError;
use classad_vm::{Str, Value};
use serde_json::Value as Json;

/// Reads one JSON object as a ClassAd.
pub fn ad_from_json(obj: &serde_json::Map<String, Json>) -> Result<ClassAd, String> {
    let mut ad = ClassAd::new();
    for (name, v) in obj {
        let mut b = Builder::default();
        let root = b.value(v)?;
        ad.insert_expr(name.as_str(), Expr::from_parts(b.nodes, root));
    }
    Ok(ad)
}

/// Parses JSON text holding one object, an array of objects, or one object per line
/// (JSON Lines), into ads.
pub fn parse_json_ads(src: &str) -> Result<Vec<ClassAd>, ParseError> {
    let mut ads = Vec::new();
    let stream = serde_json::Deserializer::from_str(src).into_iter::<Json>();
    for item in stream {
        let v = item.map_err(|e| json_error(src, &e))?;
        match v {
            Json::Object(o) => ads.push(ad_from_json(&o).map_err(|m| ParseError::at(src, 0, m))?),
            Json::Array(items) => {
                for it in items {
                    let Json::Object(o) = it else {
                        return Err(ParseError::at(
                            src,
                            0,
                            "expected a JSON object (an ad) in the array".into(),
                        ));
                    };
                    ads.push(ad_from_json(&o).map_err(|m| ParseError::at(src, 0, m))?);
                }
            }
            _ => {
                return Err(ParseError::at(
                    src,
                    0,
                    "expected a JSON object (an ad) or an array of them".into(),
                ))
            }
        }
    }
    Ok(ads)
}

fn json_error(src: &str, e: &serde_json::Error) -> ParseError {
    ParseError {
        line: e.line() as u32,
        column: e.column() as u32,
        offset: line_offset(src, e.line()),
        message: format!("invalid JSON: {e}"),
    }
}

fn line_offset(src: &str, line: usize) -> usize {
    src.split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum()
}

/// Builds an expression arena out of a JSON value.
#[derive(Default)]
struct Builder {
    nodes: Vec<Node>,
}

impl Builder {
    fn push(&mut self, n: Node) -> NodeId {
        self.nodes.push(n);
        (self.nodes.len() - 1) as NodeId
    }

    fn value(&mut self, v: &Json) -> Result<NodeId, String> {
        Ok(match v {
            Json::Null => self.push(Node::Lit(Value::Undefined)),
            Json::Bool(b) => self.push(Node::Lit(Value::Bool(*b))),
            Json::Number(n) => self.push(Node::Lit(number(&n.to_string()))),
            Json::String(s) => match s.strip_prefix("/Expr(").and_then(|r| r.strip_suffix(")/")) {
                Some(text) => {
                    let e = crate::syntax::parse_expr(text)
                        .map_err(|e| format!("in \"\\/Expr({text})\\/\": {e}"))?;
                    self.graft(&e)
                }
                None => self.push(Node::Lit(Value::str(s.as_str()))),
            },
            Json::Array(items) => {
                let ids = items
                    .iter()
                    .map(|i| self.value(i))
                    .collect::<Result<_, _>>()?;
                self.push(Node::List(ids))
            }
            Json::Object(o) => {
                let mut attrs: Vec<(Str, NodeId)> = Vec::new();
                for (k, v) in o {
                    let id = self.value(v)?;
                    attrs.push((Str::from(k.as_str()), id));
                }
                self.push(Node::Record(attrs))
            }
        })
    }

    /// Copies a parsed expression's nodes into this arena, returning its new root.
    fn graft(&mut self, e: &Expr) -> NodeId {
        let off = self.nodes.len() as NodeId;
        for n in e.nodes() {
            self.nodes.push(n.map_children(|c| c + off));
        }
        e.root() + off
    }
}

/// A JSON number: an integer when written without a fraction or exponent (one that
/// overflows becomes 0, as HTCondor's lexer makes it), otherwise a real.
fn number(text: &str) -> Value {
    if text.contains(['.', 'e', 'E']) {
        Value::Real(text.parse().unwrap_or(f64::NAN))
    } else {
        Value::Int(text.parse().unwrap_or(0))
    }
}

/// The ad as HTCondor's `printJson` writes it.
pub fn unparse_ad_json(ad: &ClassAd) -> String {
    let mut out = String::new();
    write_object(
        ad.iter().map(|(n, e)| (n.as_str(), &**e.tree, e.id)),
        0,
        &mut out,
    );
    out
}

/// The given attributes of an ad, in the order given, as HTCondor's JSON unparser
/// writes an ad with a list of attribute names (`condor_status -json -attributes`).
pub fn unparse_attrs_json<'a>(attrs: impl Iterator<Item = (&'a str, ExprView<'a>)>) -> String {
    let mut out = String::new();
    write_object(attrs.map(|(n, e)| (n, &**e.tree, e.id)), 0, &mut out);
    out
}

fn indent(n: usize, out: &mut String) {
    out.extend(std::iter::repeat_n(' ', n));
}

fn write_object<'a>(
    attrs: impl Iterator<Item = (&'a str, &'a Expr, NodeId)>,
    level: usize,
    out: &mut String,
) {
    out.push_str("{\n");
    let mut first = true;
    for (name, tree, id) in attrs {
        if !first {
            out.push_str(",\n");
        }
        first = false;
        indent(level + 2, out);
        json_string(name, out);
        out.push_str(": ");
        write_node(tree, id, level + 2, out);
    }
    if !first {
        out.push('\n');
    }
    indent(level, out);
    out.push('}');
}

fn write_node(tree: &Expr, id: NodeId, level: usize, out: &mut String) {
    match tree.node(id) {
        Node::Lit(Value::Undefined) => out.push_str("null"),
        Node::Lit(Value::Bool(b)) => out.push_str(if *b { "true" } else { "false" }),
        Node::Lit(Value::Int(i)) => out.push_str(&i.to_string()),
        Node::Lit(Value::Real(r) | Value::RelTime(r)) if r.is_finite() => {
            out.push_str(&fmt_real_old(*r))
        }
        Node::Lit(Value::Str(s)) => json_string(s, out),
        Node::List(items) => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                indent(level + 2, out);
                write_node(tree, *item, level + 2, out);
            }
            if !items.is_empty() {
                out.push('\n');
            }
            indent(level, out);
            out.push(']');
        }
        Node::Record(attrs) => {
            let names = record_order(attrs);
            write_object(names.into_iter().map(|(n, id)| (n, tree, id)), level, out);
        }
        _ => {
            let mut text = String::new();
            unparse_node(tree, id, &mut text);
            out.push_str("\"\\/Expr(");
            json_escape(&text, out);
            out.push_str(")\\/\"");
        }
    }
}

/// A record's attributes as a ClassAd holds them: one per name (the last definition,
/// the first spelling), in HTCondor's order.
pub(super) fn record_order(attrs: &[(Str, NodeId)]) -> Vec<(&str, NodeId)> {
    let mut out: Vec<(&str, NodeId)> = Vec::new();
    for (n, id) in attrs {
        match out.iter_mut().find(|(m, _)| m.eq_ignore_ascii_case(n)) {
            Some(slot) => slot.1 = *id,
            None => out.push((n.as_str(), *id)),
        }
    }
    out.sort_by(|a, b| super::classad::attr_order(a.0, b.0));
    out
}

fn json_string(s: &str, out: &mut String) {
    out.push('"');
    json_escape(s, out);
    out.push('"');
}

fn json_escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
}
