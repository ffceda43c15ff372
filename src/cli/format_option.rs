//! `classad query -format FMT ATTR`: each ad printed through printf-style formats,
//! as `condor_status -format` and `condor_q -format` print it.
//!
//! HTCondor registers each `-format` in a print mask (`registerFormatF` in
//! `src/condor_utils/ad_printmask.h`, `commonRegisterFormat` in `ad_printmask.cpp`)
//! after collapsing the backslash escapes of the format (`collapse_escapes`,
//! `escapes.cpp`), renders the ad (`AttrListPrintMask::render`) and prints it
//! (`AttrListPrintMask::display`). What shows of that:
//!
//! - the formats of an ad print one after the other with nothing between them and
//!   nothing after them: a newline is the format's to write (`-format "%s\n" Name`);
//! - `ATTR` is the ad's attribute of that name, else an expression evaluated in
//!   the ad;
//! - a value of the wrong type for the conversion prints nothing of the format,
//!   not even its text, only spaces to its width: `%d`, `%i`, `%x`, `%o`, `%u`,
//!   `%c` and `%T` take a number (a real truncated, a boolean 0 or 1), `%f`, `%e`
//!   and `%g` a number, `%Y` a number or an absolute time, `%s` a string, `%v`,
//!   `%V` and `%r` anything;
//! - `%s` of an attribute whose value is not a string prints the attribute's
//!   expression (`-format "%s" Requirements`), of an expression only a string;
//! - `%v` prints strings bare and other values as the tools print them (`2.5`,
//!   `undefined`), `%V` strings quoted too, `%r` the expression unevaluated;
//! - `%T` and `%Y` replace the whole format by the time (`  1+02:03:04`) or date
//!   (`12/25 13:45`): their format's other text is not printed;
//! - a format without a conversion HTCondor knows prints as it is for every ad
//!   (`-format "\n" Name`: a newline per ad).
//!
//! Refused, where HTCondor prints garbage or the format itself: a second
//! conversion in one format (C would read an argument never passed), `*` widths
//! and `%n`, and `%a`; and a width or precision above 65,536, which would print
//! that many characters for every ad.

use super::ad_lookup::{number_f64, number_i64};
use super::autoformat::{format_date, format_time};
use super::c_printf::{self, Conversion, Kind, Parsed};
use crate::ad::ClassAd;
use crate::eval::{eval_in, Semantics};
use crate::syntax::ast::{ExprRef, Node};
use crate::syntax::parse_expr;
use crate::syntax::unparse::unparse_old_node;
use crate::values::display::unparse_value_old;
use classad_vm::Value;
use std::sync::Arc;

/// The widest width or precision a format may ask for.
const MAX_WIDTH: usize = 65_536;

/// One `-format FMT ATTR`.
#[derive(Debug)]
struct Format {
    /// FMT with its escapes collapsed.
    text: String,
    /// Its conversion; none: the text prints as it is.
    conversion: Option<Conversion>,
    /// ATTR as written: the attribute it names.
    attr: String,
    /// ATTR parsed, evaluated when the ad has no attribute of that name.
    expr: ExprRef,
}

/// Every `-format` of a command line, in order.
#[derive(Debug, Default)]
pub struct Formats {
    formats: Vec<Format>,
}

impl Formats {
    /// No formats yet.
    pub fn new() -> Formats {
        Formats::default()
    }

    /// Whether no `-format` was given.
    pub fn is_empty(&self) -> bool {
        self.formats.is_empty()
    }

    /// Adds `-format FMT ATTR`; `option` is the option as written, for messages.
    pub fn add(&mut self, option: &str, format: &str, attr: &str) -> Result<(), String> {
        let text = collapse_escapes(format);
        let conversion = match c_printf::parse(&text) {
            Parsed::NoConversion => None,
            Parsed::One {
                rest_has_another: true,
                ..
            } => {
                return Err(format!(
                    "{option} `{format}` {attr}: a format takes one conversion (C would read a \
                     second value that HTCondor never passes); use one {option} per value, and \
                     `%%` for a literal percent sign"
                ))
            }
            Parsed::One { conversion, .. }
                if conversion.width > MAX_WIDTH
                    || conversion.precision.is_some_and(|p| p > MAX_WIDTH) =>
            {
                return Err(format!(
                    "{option} `{format}` {attr}: a width or precision above {MAX_WIDTH} is not \
                     taken (every ad would print that many characters); write a smaller one"
                ))
            }
            Parsed::One { conversion, .. } => Some(conversion),
            Parsed::Unsafe(c) => {
                return Err(format!(
                    "{option} `{format}` {attr}: `{c}` is not taken (HTCondor prints such a \
                     format as it is); write the width and precision as numbers"
                ))
            }
            Parsed::Unsupported(c) => {
                return Err(format!(
                    "{option} `{format}` {attr}: `{c}` (hexadecimal reals) is not supported; \
                     use %e, %f or %g"
                ))
            }
        };
        let expr = parse_expr(attr).map_err(|e| {
            format!(
                "{option} `{format}` `{attr}`: `{attr}` is not an attribute name or a ClassAd \
                 expression: {e}"
            )
        })?;
        self.formats.push(Format {
            text,
            conversion,
            attr: attr.to_string(),
            expr: ExprRef::root_of(Arc::new(expr)),
        });
        Ok(())
    }

    /// What the formats print for `ad`.
    pub fn render(&self, ad: &Arc<ClassAd>) -> String {
        let mut out = String::new();
        for f in &self.formats {
            out.push_str(&render_one(f, ad));
        }
        out
    }
}

/// What one format prints for `ad` (`AttrListPrintMask::render`, then
/// `display`).
fn render_one(f: &Format, ad: &Arc<ClassAd>) -> String {
    let Some(c) = &f.conversion else {
        return f.text.clone();
    };
    let (before, after) = (
        c_printf::literal(&f.text[..c.span.0]),
        c_printf::literal(&f.text[c.span.1..]),
    );
    let own = ad.get(&f.attr);
    let around = |converted: String| format!("{before}{converted}{after}");
    let text = match c.kind {
        Kind::Str => {
            let value = match &own {
                Some(e) => eval_in(&e.to_expr_ref(), ad, None, Semantics::Htcondor),
                None => eval_in(&f.expr, ad, None, Semantics::Htcondor),
            };
            match (value, &own) {
                (Ok(Value::Str(s)), _) => Some(around(c_printf::format_str(c, s.as_str()))),
                // An attribute that is not a string: its expression, unparsed.
                (_, Some(e)) => {
                    let mut s = String::new();
                    unparse_old_node(e.tree, e.id, &mut s);
                    Some(around(c_printf::format_str(c, &s)))
                }
                _ => None,
            }
        }
        Kind::Raw => {
            let mut s = String::new();
            match &own {
                Some(e) => unparse_old_node(e.tree, e.id, &mut s),
                // A reference to an attribute the ad does not have.
                None if matches!(f.expr.node(), Node::Attr { .. }) => s.push_str("undefined"),
                None => unparse_old_node(&f.expr.tree, f.expr.id, &mut s),
            }
            Some(around(c_printf::format_str(c, &s)))
        }
        _ => {
            let value = match &own {
                Some(e) => eval_in(&e.to_expr_ref(), ad, None, Semantics::Htcondor),
                None => eval_in(&f.expr, ad, None, Semantics::Htcondor),
            };
            value.ok().and_then(|v| {
                converted(c, &v).map(|t| match c.kind {
                    // `format_value` replaces the whole format by the time or date.
                    Kind::Time | Kind::Date => t,
                    _ => around(t),
                })
            })
        }
    };
    // HTCondor pads what the format printed to the conversion's width (left
    // with `-`), without cutting it; a value of the wrong type prints only that
    // padding.
    let text = text.unwrap_or_default();
    let fill = c.width.saturating_sub(text.len());
    if c.left {
        format!("{text}{}", " ".repeat(fill))
    } else {
        format!("{}{text}", " ".repeat(fill))
    }
}

/// The conversion of `v`, or `None` when `v` is not of a type it takes.
fn converted(c: &Conversion, v: &Value) -> Option<String> {
    Some(match c.kind {
        Kind::Int | Kind::Char | Kind::Pointer => c_printf::format_int(c, number_i64(v)?),
        Kind::Float => c_printf::format_float(c, number_f64(v)?),
        Kind::Time => pad_left(format_time(number_i64(v)?), c.width),
        Kind::Date => {
            let secs = match v {
                Value::AbsTime(t) => t.secs,
                _ => number_i64(v)?,
            };
            pad_left(format_date(secs), c.width)
        }
        Kind::Value => {
            let text = match v {
                Value::Str(s) if c.letter == 'v' => s.as_str().to_string(),
                _ => unparse_value_old(v),
            };
            c_printf::format_str(c, &text)
        }
        // Handled by the caller: they depend on the ad's expression.
        Kind::Str | Kind::Raw => return None,
    })
}

fn pad_left(text: String, width: usize) -> String {
    format!("{}{text}", " ".repeat(width.saturating_sub(text.len())))
}

/// HTCondor's `collapse_escapes`, quirks included: `\n`, `\t` and C's other
/// letter escapes; digits after `\` (8 and 9 too) make one byte as `value +=
/// value*8 + digit` makes it, so `\101` is `R`, not `A`; `\x` and hex digits
/// likewise with `value*16`; any other character after `\` is itself. A byte 0
/// (`\0`, or a `\` that ends the text) ends the format there, as it ends a C
/// string.
pub fn collapse_escapes(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        let c = b.get(i).copied().unwrap_or(0);
        let value: u8 = match c {
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'v' => 11,
            b'\\' | b'?' | b'\'' | b'"' => c,
            b'0'..=b'9' => {
                let mut v: u32 = 0;
                while let Some(d @ b'0'..=b'9') = b.get(i).copied() {
                    v = v
                        .wrapping_add(v.wrapping_mul(8))
                        .wrapping_add(u32::from(d - b'0'));
                    i += 1;
                }
                i -= 1;
                v as u8
            }
            b'x' => {
                let mut v: u32 = 0;
                while let Some(d) = b.get(i + 1).and_then(|&d| char::from(d).to_digit(16)) {
                    v = v.wrapping_add(v.wrapping_mul(16)).wrapping_add(d);
                    i += 1;
                }
                v as u8
            }
            _ => c,
        };
        if value == 0 {
            break;
        }
        out.push(value);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::parse_classad;

    fn ad(src: &str) -> Arc<ClassAd> {
        Arc::new(parse_classad(src).unwrap())
    }

    fn print(pairs: &[(&str, &str)], src: &str) -> String {
        let mut f = Formats::new();
        for (fmt, attr) in pairs {
            f.add("-format", fmt, attr).unwrap();
        }
        f.render(&ad(src))
    }

    const SLOT: &str = r#"[ Name = "slot1@a"; Cpus = 8; Load = 0.25; Big = 4294967301;
        Busy = true; Req = Cpus >= 2; Start = absTime("2024-01-02T03:04:05Z"); Age = 93784 ]"#;

    // `AttrListPrintMask::render` and `display` (HTCondor's ad_printmask.cpp).
    #[test]
    fn values_go_through_the_format_of_their_type() {
        assert_eq!(
            print(
                &[("%s", "Name"), (" %d", "Cpus"), (" %.2f\\n", "Load")],
                SLOT
            ),
            "slot1@a 8 0.25\n"
        );
        assert_eq!(print(&[("[%-8s]", "Name")], SLOT), "[slot1@a ]");
        assert_eq!(print(&[("%5.1f", "Cpus")], SLOT), "  8.0");
        assert_eq!(print(&[("%d", "Load")], SLOT), "0");
        assert_eq!(print(&[("%d", "Busy")], SLOT), "1");
        assert_eq!(print(&[("%x", "Cpus * 2")], SLOT), "10");
        // Without `l`, C reads the low 32 bits of the long long passed.
        assert_eq!(print(&[("%d %%", "Big")], SLOT), "5 %");
        assert_eq!(print(&[("%lld", "Big")], SLOT), "4294967301");
        assert_eq!(
            print(&[("%v|", "Name"), ("%V|", "Name")], SLOT),
            "slot1@a|\"slot1@a\"|"
        );
    }

    #[test]
    fn the_wrong_type_prints_only_the_width() {
        assert_eq!(print(&[("Cpus=%d\\n", "Name")], SLOT), "");
        assert_eq!(print(&[("<%5d>", "Missing")], SLOT), "     ");
        assert_eq!(print(&[("%-4f", "Name"), ("|", "Name")], SLOT), "    |");
        // %s of an expression takes only a string.
        assert_eq!(print(&[("%s", "Cpus + 1")], SLOT), "");
        assert_eq!(print(&[("%s", "Missing")], SLOT), "");
    }

    #[test]
    fn s_of_an_attribute_that_is_not_a_string_prints_its_expression() {
        assert_eq!(print(&[("%s", "Req")], SLOT), "Cpus >= 2");
        assert_eq!(print(&[("%s", "Load")], SLOT), "0.25");
        assert_eq!(
            print(&[("%r", "Req"), (" %r", "Missing")], SLOT),
            "Cpus >= 2 undefined"
        );
        assert_eq!(
            print(&[("%v", "Req"), (" %v", "Missing")], SLOT),
            "true undefined"
        );
    }

    #[test]
    fn times_and_dates_replace_the_whole_format() {
        assert_eq!(print(&[("Age: %T\\n", "Age")], SLOT), "  1+02:03:04");
        assert_eq!(print(&[("%14T", "Age")], SLOT), "    1+02:03:04");
        assert_eq!(print(&[("%T", "Name")], SLOT), "");
    }

    #[test]
    fn a_format_without_a_conversion_prints_as_it_is() {
        assert_eq!(print(&[("\\n", "Name")], SLOT), "\n");
        assert_eq!(print(&[("100%%", "Name")], SLOT), "100%%");
        assert_eq!(print(&[("%k", "Name")], SLOT), "%k");
    }

    #[test]
    fn escapes_collapse_as_htcondor_collapses_them() {
        assert_eq!(collapse_escapes(r"a\tb\nc\\d\q"), "a\tb\nc\\dq");
        // `value += value*8 + digit`: \101 is 82, `R`.
        assert_eq!(collapse_escapes(r"\101"), "R");
        // `value*16` too: \x41 is 69, `E`.
        assert_eq!(collapse_escapes(r"\x41"), "E");
        assert_eq!(collapse_escapes(r"\x4a"), "N");
        assert_eq!(collapse_escapes(r"ab\0cd"), "ab");
        assert_eq!(collapse_escapes("ab\\"), "ab");
    }

    #[test]
    fn bad_formats_say_what_to_do() {
        let err = |fmt: &str, attr: &str| Formats::new().add("-format", fmt, attr).unwrap_err();
        let e = err("%s %d", "Name");
        assert!(
            e.contains("takes one conversion") && e.contains("one -format per value"),
            "{e}"
        );
        assert!(err("%*d", "Cpus").contains("`%*d` is not taken"));
        assert!(err("%n", "Cpus").contains("`%n` is not taken"));
        assert!(err("%a", "Cpus").contains("use %e, %f or %g"));
        assert!(err("%99999999999999999999d", "Cpus").contains("above 65536 is not taken"));
        assert!(err("%.70000f", "Cpus").contains("write a smaller one"));
        let e = err("%d", "A +");
        assert!(
            e.contains("`A +` is not an attribute name or a ClassAd expression"),
            "{e}"
        );
    }
}
