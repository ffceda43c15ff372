//! Unparsers: expressions and ads back to text exactly as HTCondor prints them.

use super::ast::{BinOp, Expr, ExprView, Node, NodeId, UnOp};
use super::time;
use classad_vm::{AbsTime, Value};

pub use super::time::{fmt_abstime, fmt_reltime, fmt_reltime_value};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    New,
    Old,
    Pretty,
    /// New syntax with every real printed to read back to the same bits.
    Exact,
    /// Old syntax with every real printed to read back to the same bits.
    OldExact,
}

struct Printer<'a> {
    out: &'a mut String,
    style: Style,
    indent: usize,
}

/// Reals in new syntax: `%1.15E`, with HTCondor's spellings of zero, NaN and infinity.
pub fn fmt_real_new(f: f64) -> String {
    if let Some(s) = special_real(f) {
        return s;
    }
    let s = format!("{f:.15e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mant}E{sign}{:02}", exp.abs())
}

/// Reals that read back to the same bits: new syntax's form with 17 significant
/// digits (`%1.16E`), which every finite double needs at most; zero, NaN and the
/// infinities as new syntax spells them.
pub fn fmt_real_exact(f: f64) -> String {
    if let Some(s) = special_real(f) {
        return s;
    }
    let s = format!("{f:.16e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mant}E{sign}{:02}", exp.abs())
}

/// Reals in old syntax: `%.16G`, plus `.0` when that looks like an integer.
pub fn fmt_real_old(f: f64) -> String {
    if let Some(s) = special_real(f) {
        return s;
    }
    let mut s = time::fmt_g(f, 16, true);
    if !s.contains(['.', 'e', 'E']) {
        s.push_str(".0");
    }
    s
}

fn special_real(f: f64) -> Option<String> {
    Some(if f == 0.0 {
        if f.is_sign_negative() { "-0.0" } else { "0.0" }.to_string()
    } else if f.is_nan() {
        "real(\"NaN\")".to_string()
    } else if f == f64::INFINITY {
        "real(\"INF\")".to_string()
    } else if f == f64::NEG_INFINITY {
        "real(\"-INF\")".to_string()
    } else {
        return None;
    })
}

/// Escapes the bytes of `s` as HTCondor's new-syntax unparser does, with `delim` as
/// the quote character (0xFF, which no UTF-8 text holds, for none).
pub(crate) fn escape_new(s: &str, delim: u8, out: &mut String) {
    for &b in s.as_bytes() {
        match b {
            _ if b == delim => {
                out.push('\\');
                out.push(b as char);
            }
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x0b => out.push_str("\\v"),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
}

/// A string literal in new syntax: C escapes, other non-printable bytes (including
/// every byte of a non-ASCII character) as `\ooo`.
pub fn quote_string_new(s: &str, out: &mut String) {
    out.push('"');
    escape_new(s, b'"', out);
    out.push('"');
}

/// A string literal in old syntax: only `"` is escaped; everything else is raw.
pub fn quote_string_old(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        if c == '"' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

fn is_reserved(name: &str) -> bool {
    [
        "true",
        "false",
        "undefined",
        "error",
        "is",
        "isnt",
        "parent",
    ]
    .iter()
    .any(|k| name.eq_ignore_ascii_case(k))
}

/// Letters, digits and `_`, not starting with a digit.
fn is_identifier(name: &str) -> bool {
    name.bytes()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// An attribute name, in `'quotes'` when it is not a plain identifier or is a
/// reserved word.
pub fn write_attr_name(name: &str, old: bool, out: &mut String) {
    let mut body = String::new();
    if old {
        for c in name.chars() {
            if c == '\'' {
                body.push('\\');
            }
            body.push(c);
        }
    } else {
        escape_new(name, b'\'', &mut body);
    }
    let mut bytes = body.bytes();
    let plain = bytes
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && bytes.all(|c| c.is_ascii_alphanumeric() || c == b'_')
        && !is_reserved(&body);
    if plain {
        out.push_str(&body);
    } else {
        out.push('\'');
        out.push_str(&body);
        out.push('\'');
    }
}

fn write_abstime(t: AbsTime, out: &mut String) {
    out.push_str("absTime(\"");
    out.push_str(&fmt_abstime(t));
    out.push_str("\")");
}

fn write_scalar(v: &Value, old: bool, out: &mut String) -> bool {
    match v {
        Value::Undefined => out.push_str("undefined"),
        Value::Error => out.push_str("error"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Real(r) => out.push_str(&if old {
            fmt_real_old(*r)
        } else {
            fmt_real_new(*r)
        }),
        Value::Str(s) if old => quote_string_old(s, out),
        Value::Str(s) => quote_string_new(s, out),
        Value::AbsTime(t) => write_abstime(*t, out),
        Value::RelTime(r) => {
            out.push_str("relTime(\"");
            out.push_str(&fmt_reltime_value(*r));
            out.push_str("\")");
        }
        Value::List(_) | Value::Ad(_) => return false,
    }
    true
}

/// Writes a non-compound value in new syntax; false (and nothing written) for lists
/// and ads, which the caller owns.
pub fn write_scalar_value(v: &Value, out: &mut String) -> bool {
    write_scalar(v, false, out)
}

/// Like [`write_scalar_value`], in old syntax.
pub fn write_scalar_value_old(v: &Value, out: &mut String) -> bool {
    write_scalar(v, true, out)
}

impl Printer<'_> {
    fn old(&self) -> bool {
        matches!(self.style, Style::Old | Style::OldExact)
    }

    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push(' ');
        }
    }

    /// Prints the subtree at `id`. Iterative, with an explicit stack of the nodes
    /// part-printed (one entry for each ancestor of the node being printed, so the
    /// stack is linear in the depth): the parser builds chains of any length
    /// (`1 + 1 + ...`, `a.b.c...`, `a[1][2]...`).
    fn node(&mut self, e: &Expr, id: NodeId) {
        let mut stack = vec![Step::Visit { id, next: 0 }];
        while let Some(step) = stack.pop() {
            match step {
                Step::Visit { id, next } => self.visit(e, id, next, &mut stack),
                Step::SpaceAfterNeg(at) => {
                    // HTCondor prints `-(5)` without parentheses as ` -5`, which
                    // reads back as the literal -5, another tree; a space keeps it
                    // this one.
                    if self.out[at..].starts_with(|c: char| c.is_ascii_digit()) {
                        self.out.insert(at, ' ');
                    }
                }
            }
        }
    }

    /// Prints what node `id` prints before its child `next` (after the children
    /// when `next` is past the last) and schedules that child.
    fn visit(&mut self, e: &Expr, id: NodeId, next: u32, stack: &mut Vec<Step>) {
        let mut child = |at: NodeId| {
            stack.push(Step::Visit { id, next: next + 1 });
            stack.push(Step::Visit { id: at, next: 0 });
        };
        match e.node(id) {
            Node::Lit(Value::RelTime(r)) => {
                self.out.push_str("relTime(\"");
                self.out.push_str(&fmt_reltime(*r));
                self.out.push_str("\")");
            }
            Node::Lit(Value::Real(r)) if matches!(self.style, Style::Exact | Style::OldExact) => {
                self.out.push_str(&fmt_real_exact(*r));
            }
            Node::Lit(v) => {
                if !write_scalar(v, self.old(), self.out) {
                    // Literal compounds do not occur in parsed trees.
                    self.out.push_str("undefined");
                }
            }
            Node::Attr {
                scope: None,
                name,
                absolute,
            } => {
                if *absolute {
                    self.out.push('.');
                }
                write_attr_name(name, self.old(), self.out);
            }
            // HTCondor prints a selected name raw, and `1 .a` as `1.a`: text that
            // does not parse back. We print what HTCondor prints whenever that
            // parses back, and otherwise quote the name and keep a space after a
            // number, so parse -> print -> parse is stable.
            Node::Attr {
                scope: Some(s),
                name,
                ..
            } => match next {
                0 => child(*s),
                _ => {
                    if matches!(e.node(*s), Node::Lit(Value::Int(_) | Value::Real(_))) {
                        self.out.push(' ');
                    }
                    self.out.push('.');
                    let plain = is_identifier(name)
                        && !["true", "false", "undefined", "error", "is", "isnt"]
                            .iter()
                            .any(|k| name.eq_ignore_ascii_case(k));
                    if plain {
                        self.out.push_str(name);
                    } else {
                        write_attr_name(name, self.old(), self.out);
                    }
                }
            },
            Node::Unary(op, a) => {
                self.out.push_str(match op {
                    UnOp::Neg => " -",
                    UnOp::Plus => " +",
                    UnOp::Not => " !",
                    UnOp::BitNot => " ~",
                });
                if *op == UnOp::Neg {
                    stack.push(Step::SpaceAfterNeg(self.out.len()));
                }
                stack.push(Step::Visit { id: *a, next: 0 });
            }
            Node::Binary(BinOp::Subscript, a, b) => match next {
                0 => child(*a),
                1 => {
                    self.out.push('[');
                    child(*b);
                }
                _ => self.out.push(']'),
            },
            Node::Binary(op, a, b) => match next {
                0 => child(*a),
                1 => {
                    let text = match (op, self.old()) {
                        (BinOp::Is, true) => "=?=",
                        (BinOp::Isnt, true) => "=!=",
                        _ => op.new_syntax(),
                    };
                    self.out.push(' ');
                    self.out.push_str(text);
                    self.out.push(' ');
                    stack.push(Step::Visit { id: *b, next: 0 });
                }
                _ => {}
            },
            Node::Ternary(c, a, b) => match next {
                0 => child(*c),
                1 => {
                    self.out.push_str(" ? ");
                    child(*a);
                }
                2 => {
                    self.out.push_str(" : ");
                    stack.push(Step::Visit { id: *b, next: 0 });
                }
                _ => {}
            },
            Node::Paren(a) => match next {
                0 => {
                    self.out.push('(');
                    child(*a);
                }
                _ => self.out.push(')'),
            },
            Node::Call { name, args } => {
                if next == 0 {
                    // HTCondor prints the name as written; a quoted name that is not
                    // an identifier (`'a b'(1)`) or is a keyword (`'is'(1)`,
                    // `'error'(1)`) would not parse back, so it stays quoted.
                    // (`parent(1)` parses.)
                    if is_identifier(name)
                        && (!is_reserved(name) || name.eq_ignore_ascii_case("parent"))
                    {
                        self.out.push_str(name);
                    } else {
                        write_attr_name(name, self.old(), self.out);
                    }
                    self.out.push('(');
                } else if (next as usize) < args.len() {
                    self.out.push(',');
                }
                match args.get(next as usize) {
                    Some(a) => child(*a),
                    None => self.out.push(')'),
                }
            }
            Node::List(items) => {
                let next = next as usize;
                if next == 0 {
                    self.list_open();
                }
                match items.get(next) {
                    Some(it) => {
                        self.list_item(next);
                        child(*it);
                    }
                    None => self.list_close(),
                }
            }
            Node::Record(attrs) => {
                let next = next as usize;
                if next == 0 {
                    self.record_open();
                }
                match attrs.get(next) {
                    Some((name, v)) => {
                        self.record_item(next, name);
                        child(*v);
                    }
                    None => self.record_close(),
                }
            }
        }
    }

    fn list_open(&mut self) {
        if self.style == Style::Pretty {
            self.indent += 3;
            self.newline();
            self.out.push('{');
            self.indent += 3;
        } else {
            self.out.push_str("{ ");
        }
    }

    /// What comes before item `i` of a list.
    fn list_item(&mut self, i: usize) {
        if i > 0 {
            self.out.push(',');
        }
        if self.style == Style::Pretty {
            self.newline();
        }
    }

    fn list_close(&mut self) {
        if self.style == Style::Pretty {
            self.indent -= 3;
            self.newline();
            self.out.push('}');
            self.indent -= 3;
        } else {
            self.out.push_str(" }");
        }
    }

    fn record(&mut self, attrs: &[(&str, &Expr, NodeId)]) {
        self.record_open();
        for (i, (name, e, id)) in attrs.iter().enumerate() {
            self.record_item(i, name);
            self.node(e, *id);
        }
        self.record_close();
    }

    fn record_open(&mut self) {
        if self.style == Style::Pretty {
            self.indent += 4;
            self.newline();
            self.out.push('[');
            self.indent += 4;
        } else {
            self.out.push_str("[ ");
        }
    }

    /// What comes before the value of attribute `i`, named `name`, of a record.
    fn record_item(&mut self, i: usize, name: &str) {
        if i > 0 {
            self.out.push_str("; ");
        }
        if self.style == Style::Pretty {
            self.newline();
        }
        write_attr_name(name, self.old(), self.out);
        self.out.push_str(" = ");
    }

    fn record_close(&mut self) {
        if self.style == Style::Pretty {
            self.indent -= 4;
            self.newline();
            self.out.push(']');
            self.indent -= 4;
        } else {
            self.out.push_str(" ]");
        }
    }
}

/// The printer's pending work (see `Printer::node`).
#[derive(Clone, Copy)]
enum Step {
    /// Print node `id` from before its child `next` on.
    Visit { id: NodeId, next: u32 },
    /// The operand of a minus starts at this offset of the output.
    SpaceAfterNeg(usize),
}

/// Appends the new-syntax text of the subtree at `id`.
pub fn unparse_node(expr: &Expr, id: NodeId, out: &mut String) {
    Printer {
        out,
        style: Style::New,
        indent: 0,
    }
    .node(expr, id);
}

/// Appends the old-syntax text of the subtree at `id`.
pub fn unparse_old_node(expr: &Expr, id: NodeId, out: &mut String) {
    Printer {
        out,
        style: Style::Old,
        indent: 0,
    }
    .node(expr, id);
}

/// HTCondor's one-line new-syntax text of an expression (`repr(ExprTree)`).
pub fn unparse(expr: &Expr) -> String {
    let mut s = String::new();
    unparse_node(expr, expr.root(), &mut s);
    s
}

/// HTCondor's old-syntax text of an expression, as `printOld` prints a right-hand side.
pub fn unparse_old(expr: &Expr) -> String {
    let mut s = String::new();
    unparse_old_node(expr, expr.root(), &mut s);
    s
}

/// An ad's attributes as the ad printers take them: name, tree and root, in
/// the ad's order.
pub type Items<'a> = [(&'a str, &'a Expr, NodeId)];

/// How [`unparse_record`] prints an ad.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdStyle {
    /// One line of new syntax, `[ a = 1; b = 2 ]` (`repr(ClassAd)`).
    New,
    /// As `New`, but every real literal in 17 significant digits
    /// ([`fmt_real_exact`]): text that reads back to an ad that evaluates as
    /// this one does, bit for bit, for shipping ads between processes (new
    /// syntax's 16 digits lose the last bit of some reals). Relative-time
    /// literals keep new syntax's form (milliseconds).
    Exact,
    /// One line of old syntax, `[ a = 1; b = "x" ]`: how HTCondor's unparser in
    /// old-ad mode prints an ad that is a value (`SetOldClassAd(true, true)`),
    /// with every expression inside in old syntax.
    InlineOld,
    /// The indented form `str(ClassAd)` prints.
    Pretty,
}

/// The record text of an ad's `items` in `style`.
pub fn unparse_record(items: &Items<'_>, style: AdStyle) -> String {
    let style = match style {
        AdStyle::New => Style::New,
        AdStyle::Exact => Style::Exact,
        AdStyle::InlineOld => Style::Old,
        AdStyle::Pretty => Style::Pretty,
    };
    let mut s = String::new();
    Printer {
        out: &mut s,
        style,
        indent: 0,
    }
    .record(items);
    s
}

/// One-line new-syntax ad of the given attributes, in the order given: what
/// HTCondor's unparser prints for an ad and a list of attribute names
/// (`condor_status -long:new -attributes ...`).
pub fn unparse_attrs<'a>(attrs: impl Iterator<Item = (&'a str, ExprView<'a>)>) -> String {
    let items: Vec<(&str, &Expr, NodeId)> = attrs.map(|(n, e)| (n, &**e.tree, e.id)).collect();
    unparse_record(&items, AdStyle::New)
}

/// HTCondor's `PrettyPrint` text of an expression (what `unparse()` gives and
/// the Python bindings' `str(ExprTree)` prints): records and lists open on a new
/// line, indented 4 (records) or 3 (lists) past the line they appear on.
///
/// The printer offers that style for a whole ad, so the expression is printed as
/// the one attribute of a wrapper ad and the wrapper's frame and its 8-column
/// attribute indent are taken off again (string literals never hold a raw
/// newline, so every newline in the text is one the printer made).
pub fn unparse_pretty_expr(e: &crate::syntax::ast::ExprRef) -> String {
    const WRAP_NAME: &str = "x";
    let text = unparse_record(&[(WRAP_NAME, &*e.tree, e.id)], AdStyle::Pretty);
    let head = format!("\n    [\n        {WRAP_NAME} = ");
    let body = text
        .strip_prefix(head.as_str())
        .and_then(|t| t.strip_suffix("\n    ]"))
        .unwrap_or(&text);
    body.replace("\n        ", "\n")
}

/// Old (long-form) syntax as `printOld` prints it: one `Name = expr` line per
/// attribute, each ending in a newline (an empty ad is a lone newline); with
/// `exact`, every real literal in 17 significant digits ([`fmt_real_exact`]),
/// which the old syntax's fast reader reads back to the same bits.
pub fn unparse_long_form(items: &Items<'_>, exact: bool) -> String {
    let style = if exact { Style::OldExact } else { Style::Old };
    let mut s = String::new();
    let mut first = true;
    for &(name, tree, id) in items {
        if !first {
            s.push('\n');
        }
        first = false;
        write_attr_name(name, true, &mut s);
        s.push_str(" = ");
        Printer {
            out: &mut s,
            style,
            indent: 0,
        }
        .node(tree, id);
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod selection_tests {
    use crate::syntax::{parse_expr, unparse};

    /// Found by the `parse` fuzz target: HTCondor prints these selections as text that
    /// does not parse back (`1.a`, `x.b c`, `x.true`); ours must.
    #[test]
    fn selections_print_back_parseably() {
        for (src, want) in [
            ("-1 .p0", "-1 .p0"),
            ("1.5 .a", "1.500000000000000E+00 .a"),
            ("x.'b c'", "x.'b c'"),
            ("x.'true'", "x.'true'"),
            ("x.parent", "x.parent"),
            ("a.b.c", "a.b.c"),
            ("(1).a", "(1).a"),
            ("'a#b'()", "'a#b'()"),
            // Found by the roundtrip fuzz target: HTCondor prints ` -5`, which reads
            // back as the literal -5.
            ("- 5", " - 5"),
            ("- - 0", " - - 0"),
        ] {
            let e = parse_expr(src).unwrap();
            let printed = unparse(&e);
            assert_eq!(printed, want, "{src}");
            assert_eq!(unparse(&parse_expr(&printed).unwrap()), printed, "{src}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parser::{parse_expr, parse_expr_old};

    // (input, `repr(classad2.ExprTree(input))`, right-hand side of `printOld`), all
    // taken from HTCondor 25.14.1 with `htcondor2` imported.
    const CASES: &[(&str, &str, &str)] = &[
        ("-5", "-5", "-5"),
        // HTCondor prints ` -5` (read back as the literal -5): a documented deviation.
        ("- 5", " - 5", " - 5"),
        ("a+-b", "a +  -b", "a +  -b"),
        ("{}", "{  }", "{  }"),
        ("f(1,2)", "f(1,2)", "f(1,2)"),
        ("{ 1,2 }", "{ 1,2 }", "{ 1,2 }"),
        ("[a=1;b=2]", "[ a = 1; b = 2 ]", "[ a = 1; b = 2 ]"),
        ("a=?=b", "a is b", "a =?= b"),
        ("a=!=b", "a isnt b", "a =!= b"),
        ("a is b", "a is b", "a =?= b"),
        ("a isnt b", "a isnt b", "a =!= b"),
        ("1000.0", "1.000000000000000E+03", "1000.0"),
        ("\"a\" \"b\"", "\"ab\"", "\"ab\""),
        ("TRUE", "true", "true"),
        ("99999999999999999999", "0", "0"),
        (".5", "5.000000000000000E-01", "0.5"),
        ("10 ?: 2 + 3", "10 ?: 2 + 3", "10 ?: 2 + 3"),
        ("10 ? : 2+3", "10 ?: 2 + 3", "10 ?: 2 + 3"),
        ("a /* x */ + b", "a + b", "a + b"),
        ("!a", " !a", " !a"),
        ("~a", " ~a", " ~a"),
        ("+a", " +a", " +a"),
        ("-(x)", " -(x)", " -(x)"),
        ("a.b", "a.b", "a.b"),
        (".a", ".a", ".a"),
        ("a[1]", "a[1]", "a[1]"),
        ("a.b.c", "a.b.c", "a.b.c"),
        ("MY.x", "MY.x", "MY.x"),
        ("x?y:z", "x ? y : z", "x ? y : z"),
        ("a<<b", "a << b", "a << b"),
        ("a>>b", "a >> b", "a >> b"),
        ("a>>>b", "a >>> b", "a >>> b"),
        ("'a b'", "'a b'", "'a b'"),
        ("'a'", "a", "a"),
        ("'1a'", "'1a'", "'1a'"),
        ("a-b-c", "a - b - c", "a - b - c"),
        ("a-(b-c)", "a - (b - c)", "a - (b - c)"),
        ("a?b:c?d:e", "a ? b : c ? d : e", "a ? b : c ? d : e"),
        ("1e309", "real(\"INF\")", "real(\"INF\")"),
        ("-1e309", "real(\"-INF\")", "real(\"-INF\")"),
        ("0.0", "0.0", "0.0"),
        ("-0.0", "-0.0", "-0.0"),
        ("1e5", "1.000000000000000E+05", "100000.0"),
        ("\"\\x41\"", "\"x41\"", "\"x41\""),
        ("\"\\777\"", "\"?7\"", "\"?7\""),
        ("\"caf\\303\\251\"", "\"caf\\303\\251\"", "\"café\""),
        ("\"\\n\\t\\a\\b\\f\\v\\r\\\\\\\"\"", "\"\\n\\t\\a\\b\\f\\v\\r\\\\\\\"\"", "\"\n\t\u{7}\u{8}\u{c}\u{b}\u{d}\\\\\"\""),
        ("\"'\"", "\"'\"", "\"'\""),
        ("1 ?: -1", "1 ?: -1", "1 ?: -1"),
        ("absTime(\"1970-01-01T00:00:00-00:00\")", "absTime(\"1970-01-01T00:00:00-00:00\")", "absTime(\"1970-01-01T00:00:00-00:00\")"),
        ("relTime(\"01:30\")", "relTime(\"01:30\")", "relTime(\"01:30\")"),
        ("relTime(90)", "relTime(90)", "relTime(90)"),
        ("relTime(\"-5\")", "relTime(\"-05\")", "relTime(\"-05\")"),
        ("absTime(\"2020-01-01T10:00:00+02:00\")", "absTime(\"2020-01-01T10:00:00+02:00\")", "absTime(\"2020-01-01T10:00:00+02:00\")"),
        ("absTime(0)", "absTime(0)", "absTime(0)"),
        ("relTime(\"1d\")", "relTime(\"1+00:00:00\")", "relTime(\"1+00:00:00\")"),
        ("f(1;2)", "f(1,2)", "f(1,2)"),
        ("[;a=1;;b=2;]", "[ a = 1; b = 2 ]", "[ a = 1; b = 2 ]"),
        ("[A=1;a=2]", "[ A = 2 ]", "[ A = 2 ]"),
        ("[b=1;a=2;ccc=3;BB=4]", "[ a = 2; b = 1; BB = 4; ccc = 3 ]", "[ a = 2; b = 1; BB = 4; ccc = 3 ]"),
        ("'true'", "'true'", "'true'"),
        ("'a.b'", "'a.b'", "'a.b'"),
        ("'a\\'b'", "'a\\'b'", "'a\\'b'"),
        ("'é'", "'\\303\\251'", "'é'"),
        ("a ?: b ?: c", "a ?: b ?: c", "a ?: b ?: c"),
        ("a ? b ?: c : d", "a ? b ?: c : d", "a ? b ?: c : d"),
        ("-a ?: b", " -a ?: b", " -a ?: b"),
        ("a.b ?: c", "a.b ?: c", "a.b ?: c"),
        ("a ?: b[1]", "a ?: b[1]", "a ?: b[1]"),
        ("a. b", "a.b", "a.b"),
        (".5e3", "5.000000000000000E+02", "500.0"),
        ("00.5", "5.000000000000000E-01", "0.5"),
        ("a[b][c]", "a[b][c]", "a[b][c]"),
        ("a.b[c].d", "a.b[c].d", "a.b[c].d"),
        ("((a))", "((a))", "((a))"),
        ("F(a, b)", "F(a,b)", "F(a,b)"),
        ("a<b<c", "a < b < c", "a < b < c"),
        ("a==b==c", "a == b == c", "a == b == c"),
        ("a&&b||c&&d", "a && b || c && d", "a && b || c && d"),
        ("a|b^c&d", "a | b ^ c & d", "a | b ^ c & d"),
        ("a<<b+c", "a << b + c", "a << b + c"),
        ("a+b*c", "a + b * c", "a + b * c"),
        ("a*b%c/d", "a * b % c / d", "a * b % c / d"),
        ("!!a", " ! !a", " ! !a"),
        ("--a", " - -a", " - -a"),
        ("-!~+a", " - ! ~ +a", " - ! ~ +a"),
        ("-(5)", " -(5)", " -(5)"),
        ("(-5)", "(-5)", "(-5)"),
        ("3 -5", "3 - 5", "3 - 5"),
        ("{-5}", "{ -5 }", "{ -5 }"),
        ("- 5.5", " - 5.500000000000000E+00", " - 5.5"),
        ("-0", "0", "0"),
        ("- 0", " - 0", " - 0"),
        ("a*-5", "a * -5", "a * -5"),
        ("-9223372036854775808", "-9223372036854775808", "-9223372036854775808"),
        ("-010", "-10", "-10"),
        ("x-- 5", "x -  - 5", "x -  - 5"),
        ("1 is-5", "1 is -5", "1 =?= -5"),
        ("\"a\\1\" \"23\"", "\"aS\"", "\"aS\""),
        ("\"\\400\"", "\" 0\"", "\" 0\""),
        ("\"\\18\"", "\"\\0018\"", "\"\u{1}8\""),
        ("'a' 'b'", "ab", "ab"),
        ("'a\\tb'", "'a\\tb'", "'a\tb'"),
        ("'f'(1)", "f(1)", "f(1)"),
        // HTCondor prints `a.b c`, which does not parse back; we quote.
        ("a.'b c'", "a.'b c'", "a.'b c'"),
        (".'x y'", ".'x y'", ".'x y'"),
        ("a // c\n+ b", "a + b", "a + b"),
        ("[a=1 // c\n]", "[ a = 1 ]", "[ a = 1 ]"),
        ("a <= b", "a <= b", "a <= b"),
        ("a >= b", "a >= b", "a >= b"),
        ("a < b", "a < b", "a < b"),
        ("a > b", "a > b", "a > b"),
        ("a != b", "a != b", "a != b"),
        ("a == b", "a == b", "a == b"),
        ("a & b", "a & b", "a & b"),
        ("a | b", "a | b", "a | b"),
        ("a ^ b", "a ^ b", "a ^ b"),
        ("a && b", "a && b", "a && b"),
        ("a || b", "a || b", "a || b"),
        ("a % b", "a % b", "a % b"),
        ("a / b", "a / b", "a / b"),
        ("x[0] ?: y", "x[0] ?: y", "x[0] ?: y"),
        ("\"\\x01\"", "\"x01\"", "\"x01\""),
        ("{[a=1],{2,3}}", "{ [ a = 1 ],{ 2,3 } }", "{ [ a = 1 ],{ 2,3 } }"),
        ("[a=[b={}]]", "[ a = [ b = {  } ] ]", "[ a = [ b = {  } ] ]"),
        ("'parent'", "'parent'", "'parent'"),
        ("'IS'", "'IS'", "'IS'"),
        ("1.5E-3", "1.500000000000000E-03", "0.0015"),
        ("123456789.123456789", "1.234567891234568E+08", "123456789.1234568"),
        ("1e16", "1.000000000000000E+16", "1E+16"),
        ("1e15", "1.000000000000000E+15", "1000000000000000.0"),
        ("0.1", "1.000000000000000E-01", "0.1"),
        ("1e-5", "1.000000000000000E-05", "1E-05"),
        ("[a = 1.5; s = \"x\\ty\\\"z\"; r = 1e20; z = -0.0]", "[ a = 1.500000000000000E+00; r = 1.000000000000000E+20; s = \"x\\ty\\\"z\"; z = -0.0 ]", "[ a = 1.5; r = 1E+20; s = \"x\ty\\\"z\"; z = -0.0 ]"),
        ("a.b.c[1].d", "a.b.c[1].d", "a.b.c[1].d"),
    ];
    const BAD: &[&str] = &[
        "0x10",
        "010",
        "5.",
        "1.e3",
        "\"\\0\"",
        "1 ?: !1",
        "1 ?: +1",
        "1 ?: - 1",
        "a /* x",
        "5K",
        "[a=1 b=2]",
        "[true=1]",
        "absTime(\"x\")",
        "relTime(\"1:2:3:4\")",
        "a.true",
        "é",
        "a = b",
        "a=!b",
        "(1",
        "x[0",
        "{1,",
        "{1,}",
        "{,1}",
        "f(1,)",
        "f(,1)",
        "[a=]",
        "[=1]",
        "[a=1;",
        "1 2",
        "a b",
        ")",
        "",
        " ",
        "/* */",
        "a.",
        ".",
        "a.(b)",
        "a.1",
        "\"abc\\\"",
        "-08",
        "00",
        "1e",
        "10 ? /**/ : 2",
        "2 ** 3",
        "isnt-5",
        "\"a\" /* */ \"b\"",
    ];

    #[test]
    fn unparse_matches_htcondor() {
        for (src, new, old) in CASES {
            let e = parse_expr(src).unwrap_or_else(|err| panic!("{src:?}: {err}"));
            assert_eq!(unparse(&e), *new, "new syntax of {src:?}");
            assert_eq!(unparse_old(&e), *old, "old syntax of {src:?}");
        }
    }

    #[test]
    fn htcondor_rejects_these_and_so_do_we() {
        for src in BAD {
            assert!(parse_expr(src).is_err(), "{src:?} should not parse");
        }
    }

    #[test]
    fn parse_unparse_parse_is_stable() {
        let round = |s: &str| parse_expr(s).map(|e| unparse(&e));
        for (src, _, _) in CASES {
            let once = round(src).unwrap();
            // HTCondor prints a selected name raw (`a.b c`), which cannot be read
            // back; those cases are about printing only.
            let Ok(twice) = round(&once) else {
                assert!(
                    once.contains(' ') && src.contains('\''),
                    "{src:?} -> {once:?}"
                );
                continue;
            };
            // HTCondor's own text is not always a fixed point at once: ` -5` (unary
            // minus of 5) reads back as the literal `-5`. One more round settles it.
            assert_eq!(round(&twice).unwrap(), twice, "{src:?}");
            if !once.contains(" -") {
                assert_eq!(twice, once, "{src:?}");
            }
        }
    }

    #[test]
    fn reals() {
        assert_eq!(fmt_real_new(1000.0), "1.000000000000000E+03");
        assert_eq!(fmt_real_new(-0.0), "-0.0");
        assert_eq!(fmt_real_new(f64::NAN), "real(\"NaN\")");
        assert_eq!(fmt_real_new(1e-300), "1.000000000000000E-300");
        assert_eq!(fmt_real_old(100.0), "100.0");
        assert_eq!(fmt_real_old(1e20), "1E+20");
        assert_eq!(fmt_real_old(1e100), "1E+100");
        assert_eq!(fmt_real_old(2.5), "2.5");
        assert_eq!(fmt_real_old(123_456_789.123_456_79), "123456789.1234568");
        assert_eq!(fmt_real_old(f64::NEG_INFINITY), "real(\"-INF\")");
    }

    #[test]
    fn scalar_values() {
        let mut s = String::new();
        assert!(write_scalar_value(&Value::str("a\"b\n"), &mut s));
        assert_eq!(s, r#""a\"b\n""#);
        s.clear();
        assert!(write_scalar_value(&Value::RelTime(90.0), &mut s));
        assert_eq!(s, r#"relTime("01:30")"#);
        s.clear();
        let t = AbsTime { secs: 0, offset: 0 };
        assert!(write_scalar_value(&Value::AbsTime(t), &mut s));
        assert_eq!(s, r#"absTime("1970-01-01T00:00:00-00:00")"#);
        let list = Value::List(classad_vm::value::Host::new(1u8));
        assert!(!write_scalar_value(&list, &mut String::new()));
        let mut o = String::new();
        quote_string_old("line1\nline2\t\"q\" \\ back", &mut o);
        // `printOld` of that value in HTCondor 25.14.1.
        assert_eq!(o, "\"line1\nline2\t\\\"q\\\" \\ back\"");
    }

    // Old-syntax right-hand sides read by `classad2.parseOne(..., ParserType.Old)` and
    // printed by `printOld`, HTCondor 25.14.1.
    #[test]
    fn old_syntax_round_trip() {
        for (src, want) in [
            (r#""C:\dir\x.exe""#, r#""C:\dir\x.exe""#),
            (r#""x\"y""#, r#""x\"y""#),
            (r#""C:\""#, r#""C:\""#),
            (r#""a\\b""#, r#""a\\b""#),
            ("-010", "-10"),
            // HTCondor prints `-5 +  -5`, which reads back as another tree.
            ("-5 + - 5", "-5 +  - 5"),
            ("a =?= b && x is y", "a =?= b && x =?= y"),
            ("'a b' + x.'c d'", "'a b' + x.'c d'"),
        ] {
            let e = parse_expr_old(src).unwrap_or_else(|err| panic!("{src:?}: {err}"));
            assert_eq!(unparse_old(&e), want, "{src:?}");
        }
        assert!(parse_expr_old("010").is_err());
    }
}
