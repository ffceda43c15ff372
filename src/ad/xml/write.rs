//! Writing ads as XML, byte for byte as HTCondor's `ClassAdXMLUnParser` writes
//! them with compact spacing off (as `condor_q -xml` uses it).

use super::super::classad::ClassAd;
use super::super::json::record_order;
use super::text::escape_markup;
use crate::syntax::ast::{Expr, ExprView, Node, NodeId};
use crate::syntax::unparse::{escape_new, fmt_abstime, fmt_real_new, unparse_node};
use classad_vm::Value;
use std::io::Write;

/// What starts a file of XML ads (HTCondor's `AddClassAdXMLFileHeader`).
pub const HEADER: &str =
    "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n";

/// What ends a file of XML ads (HTCondor's `AddClassAdXMLFileFooter`).
pub const FOOTER: &str = "</classads>\n";

/// One ad as HTCondor's XML unparser writes it: `<c>`, an attribute a line indented
/// by 4, `</c>` and a newline. An empty ad is `<c>\n</c>\n`.
///
/// ```
/// let ad = classad::ad::parse_classad("[ A = 1; B = x < 2 ]").unwrap();
/// assert_eq!(
///     classad::ad::xml::unparse_ad_xml(&ad),
///     "<c>\n    <a n=\"A\"><i>1</i></a>\n    <a n=\"B\"><e>x &lt; 2</e></a>\n</c>\n"
/// );
/// ```
pub fn unparse_ad_xml(ad: &ClassAd) -> String {
    let mut out = String::new();
    write_record(
        ad.iter().map(|(n, e)| (n.as_str(), &**e.tree, e.id)),
        0,
        &mut out,
    );
    out
}

/// The ad of the attributes `attrs`, in that order, as [`unparse_ad_xml`] writes
/// an ad: for printing some of an ad's attributes, or in another order.
pub fn unparse_attrs_xml<'a>(attrs: impl Iterator<Item = (&'a str, ExprView<'a>)>) -> String {
    let mut out = String::new();
    write_record(attrs.map(|(n, e)| (n, &**e.tree, e.id)), 0, &mut out);
    out
}

/// Writes `ads` as a whole XML document, as `condor_q -xml` does: the header, each
/// ad, the footer (header and footer also when there is no ad).
pub fn write_ads_xml<'a>(
    ads: impl Iterator<Item = &'a ClassAd>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    out.write_all(HEADER.as_bytes())?;
    for ad in ads {
        out.write_all(unparse_ad_xml(ad).as_bytes())?;
    }
    out.write_all(FOOTER.as_bytes())
}

fn indent(n: usize, out: &mut String) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// `<c>`, then each attribute on a line of its own indented by `level + 4`, then
/// `</c>` indented by `level`; only an ad at level 0 ends with a newline (a nested
/// one is followed by its attribute's `</a>`).
fn write_record<'a>(
    attrs: impl Iterator<Item = (&'a str, &'a Expr, NodeId)>,
    level: usize,
    out: &mut String,
) {
    out.push_str("<c>\n");
    for (name, tree, id) in attrs {
        indent(level + 4, out);
        out.push_str("<a n=\"");
        // The name as a string literal's body, with `"` escaped as the quote.
        let mut body = String::new();
        escape_new(name, b'"', &mut body);
        escape_markup(&body, out);
        out.push_str("\">");
        write_value(tree, id, level + 4, out);
        out.push_str("</a>\n");
    }
    indent(level, out);
    out.push_str("</c>");
    if level == 0 {
        out.push('\n');
    }
}

/// A value: literals as their elements, lists and nested ads as `<l>` and `<c>`,
/// anything else as `<e>` holding its new-syntax text.
fn write_value(tree: &Expr, id: NodeId, level: usize, out: &mut String) {
    match tree.node(id) {
        Node::Lit(v) if write_literal(v, out) => {}
        Node::List(items) => {
            // A list's elements follow one another on its line; a nested ad among
            // them still breaks lines at its own level.
            out.push_str("<l>");
            for item in items {
                write_value(tree, *item, level, out);
            }
            out.push_str("</l>");
        }
        Node::Record(attrs) => write_record(
            record_order(attrs).into_iter().map(|(n, id)| (n, tree, id)),
            level,
            out,
        ),
        _ => {
            let mut text = String::new();
            unparse_node(tree, id, &mut text);
            out.push_str("<e>");
            escape_markup(&text, out);
            out.push_str("</e>");
        }
    }
}

/// A literal's element; false (nothing written) for the compound values a parsed
/// tree never holds as literals.
fn write_literal(v: &Value, out: &mut String) -> bool {
    match v {
        Value::Undefined => out.push_str("<un/>"),
        Value::Error => out.push_str("<er/>"),
        Value::Bool(b) => out.push_str(if *b { "<b v=\"t\"/>" } else { "<b v=\"f\"/>" }),
        Value::Int(i) => {
            out.push_str("<i>");
            out.push_str(&i.to_string());
            out.push_str("</i>");
        }
        // A relative-time literal is a real to HTCondor's unparser (its value is
        // one), as in JSON: `<rt>` is read but never written.
        Value::Real(r) | Value::RelTime(r) => {
            out.push_str("<r>");
            out.push_str(&xml_real(*r));
            out.push_str("</r>");
        }
        Value::Str(s) => {
            // The body of a string literal with no quote character: `"` stays.
            let mut body = String::new();
            escape_new(s, 0xFF, &mut body);
            out.push_str("<s>");
            escape_markup(&body, out);
            out.push_str("</s>");
        }
        Value::AbsTime(t) => {
            out.push_str("<at>");
            out.push_str(&fmt_abstime(*t));
            out.push_str("</at>");
        }
        Value::List(_) | Value::Ad(_) => return false,
    }
    true
}

/// A real as the XML unparser prints it: `%1.15E`, but `0.0` for either zero (its
/// test `real == 0.0` comes first, so its `-0.0` branch is never taken), `NaN`,
/// `INF` and `-INF`.
fn xml_real(r: f64) -> String {
    if r == 0.0 {
        "0.0".to_string()
    } else if r.is_nan() {
        "NaN".to_string()
    } else if r == f64::INFINITY {
        "INF".to_string()
    } else if r == f64::NEG_INFINITY {
        "-INF".to_string()
    } else {
        fmt_real_new(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::parse_classad;

    fn xml(ad: &str) -> String {
        unparse_ad_xml(&parse_classad(ad).unwrap())
    }

    /// One attribute's line, without the `<c>` around it.
    fn attr(value: &str) -> String {
        let text = xml(&format!("[x = {value}]"));
        let line = text.lines().nth(1).unwrap();
        line.trim_start()
            .strip_prefix("<a n=\"x\">")
            .and_then(|l| l.strip_suffix("</a>"))
            .unwrap_or(line)
            .to_string()
    }

    #[test]
    fn each_literal_has_its_element() {
        assert_eq!(attr("1"), "<i>1</i>");
        assert_eq!(attr("-9223372036854775808"), "<i>-9223372036854775808</i>");
        assert_eq!(attr("2.5"), "<r>2.500000000000000E+00</r>");
        assert_eq!(attr("1e-300"), "<r>1.000000000000000E-300</r>");
        assert_eq!(attr("0.0"), "<r>0.0</r>");
        assert_eq!(attr("-0.0"), "<r>0.0</r>");
        assert_eq!(attr("real(\"NaN\")"), "<e>real(\"NaN\")</e>");
        assert_eq!(attr("true"), "<b v=\"t\"/>");
        assert_eq!(attr("FALSE"), "<b v=\"f\"/>");
        assert_eq!(attr("undefined"), "<un/>");
        assert_eq!(attr("error"), "<er/>");
        assert_eq!(attr("\"s\""), "<s>s</s>");
        assert_eq!(
            attr("absTime(\"2023-11-14T22:13:20Z\")"),
            "<at>2023-11-14T22:13:20-00:00</at>"
        );
        assert_eq!(
            attr("relTime(\"1+01:01:01\")"),
            "<r>9.006100000000000E+04</r>"
        );
    }

    #[test]
    fn special_reals_print_as_the_xml_unparser_prints_them() {
        assert_eq!(xml_real(f64::NAN), "NaN");
        assert_eq!(xml_real(f64::INFINITY), "INF");
        assert_eq!(xml_real(f64::NEG_INFINITY), "-INF");
        assert_eq!(xml_real(-0.0), "0.0");
    }

    #[test]
    fn strings_keep_quotes_and_escape_markup_and_control_bytes() {
        assert_eq!(
            attr(r#""a \"q\" & <b> 'c'""#),
            r#"<s>a "q" &amp; &lt;b&gt; 'c'</s>"#
        );
        assert_eq!(
            attr(r#""tab\there\nback\\slash""#),
            r"<s>tab\there\nback\\slash</s>"
        );
        assert_eq!(attr("\"caf\u{e9}\""), r"<s>caf\303\251</s>");
        assert_eq!(attr("\"\""), "<s></s>");
    }

    #[test]
    fn names_are_escaped_as_string_bodies_with_their_quote() {
        let text = xml(r#"['a"b' = 1; 'x<y&z' = 2; 'caf\303\251' = 3]"#);
        assert!(text.contains(r#"<a n="a\"b"><i>1</i></a>"#), "{text}");
        assert!(
            text.contains(r#"<a n="x&lt;y&amp;z"><i>2</i></a>"#),
            "{text}"
        );
        assert!(
            text.contains(r#"<a n="caf\303\251"><i>3</i></a>"#),
            "{text}"
        );
    }

    #[test]
    fn expressions_are_their_new_syntax_text_with_markup_escaped() {
        assert_eq!(
            attr("TARGET.Memory >= 1024 && Owner == \"<me>\""),
            "<e>TARGET.Memory &gt;= 1024 &amp;&amp; Owner == \"&lt;me&gt;\"</e>"
        );
        // Ours keeps the space HTCondor leaves out (` -1` reads back as the literal).
        assert_eq!(attr("- 1"), "<e> - 1</e>");
        assert_eq!(attr("-1"), "<i>-1</i>");
        assert_eq!(attr("(1)"), "<e>(1)</e>");
        assert_eq!(attr("f(a, {1})"), "<e>f(a,{ 1 })</e>");
    }

    #[test]
    fn lists_and_nested_ads_nest_with_indentation() {
        assert_eq!(
            xml("[l = {1, \"a\", {}, [p = 1; q = {x}]}; n = [m = []]]"),
            "<c>\n\
             \x20   <a n=\"l\"><l><i>1</i><s>a</s><l></l><c>\n\
             \x20       <a n=\"p\"><i>1</i></a>\n\
             \x20       <a n=\"q\"><l><e>x</e></l></a>\n\
             \x20   </c></l></a>\n\
             \x20   <a n=\"n\"><c>\n\
             \x20       <a n=\"m\"><c>\n\
             \x20       </c></a>\n\
             \x20   </c></a>\n\
             </c>\n"
        );
    }

    #[test]
    fn nested_ads_hold_one_attribute_per_name_in_htcondor_order() {
        assert_eq!(
            xml("[n = [bb = 1; a = 2; A = 3]]"),
            "<c>\n    <a n=\"n\"><c>\n        <a n=\"a\"><i>3</i></a>\n        <a n=\"bb\"><i>1</i></a>\n    </c></a>\n</c>\n"
        );
    }

    #[test]
    fn a_document_has_header_and_footer_even_without_ads() {
        let mut out = Vec::new();
        write_ads_xml(std::iter::empty(), &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), format!("{HEADER}{FOOTER}"));
        let ads = [parse_classad("[a = 1]").unwrap(), ClassAd::new()];
        let mut out = Vec::new();
        write_ads_xml(ads.iter(), &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!("{HEADER}<c>\n    <a n=\"a\"><i>1</i></a>\n</c>\n<c>\n</c>\n{FOOTER}")
        );
    }
}
