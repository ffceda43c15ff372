//! `classad query -af`: one line per ad holding the values of the given attributes
//! or expressions, printed as `condor_status -af` and `condor_q -af` print them.
//!
//! HTCondor turns the arguments into a print mask (`parse_autoformat_args` in
//! `src/condor_utils/ad_printmask.cpp`), renders each ad into a row of values
//! (`AttrListPrintMask::render`) and prints each row (`AttrListPrintMask::display`,
//! headings by `display_Headings`). This module takes the same three steps and
//! keeps what shows of them in the output:
//!
//! - an argument that is exactly the name of an attribute of the ad prints that
//!   attribute; any other argument is an expression evaluated in the ad;
//! - strings print bare, every other value as HTCondor's unparser prints it in old
//!   syntax (`undefined`, `2.5`, `{ 1,"a" }`); `:V` quotes strings; `:r` prints the
//!   attribute's expression itself, and `undefined` for a reference to a missing
//!   attribute;
//! - each column is preceded by a space (`:t` a tab, `:g` nothing, but every row
//!   then starts with a newline), followed by `,` or a newline with `:,` / `:n`,
//!   except the last of the row; a newline ends every row;
//! - with `:h` a heading line of the arguments comes first and every column is as
//!   wide as its widest value, measured as HTCondor measures it while rendering
//!   (a real by its new-syntax text, `2.500000000000000E+00`, though it prints as
//!   `2.5`; a quoted string without its quotes; booleans, `undefined` and lists
//!   not at all, so that a row widens the column only from where it is printed on);
//! - `:j` puts the job id first (`ClusterId.ProcId`, else the string `JobId`,
//!   else nothing); `:T` prints numbers as elapsed times (`  1+02:03:04`) and `:Y`
//!   as dates (`12/25 13:45`, in the local time zone), nothing for other values.
//!
//! An argument that is the name of an existing file is refused: `classad query`
//! takes files where HTCondor's tools take none, and `pool.ads` is a valid
//! expression (`pool` selecting `ads`), so `-af Name pool.ads` would otherwise
//! print `undefined` columns for the ads of standard input.
//!
//! Two things are not followed: HTCondor reads a `:l` label as a printf format (a
//! `%` in the argument garbles the line) after collapsing its backslash escapes,
//! and prints an absolute time under `:Y` from an integer it never set; here a
//! label is printed as written and an absolute time as its date.

use crate::ad::ClassAd;
use crate::eval::{eval_attr, eval_in, Semantics};
use crate::syntax::ast::{ExprRef, Node};
use crate::syntax::parse_expr;
use crate::syntax::unparse::{fmt_real_new, fmt_real_old, quote_string_old, unparse_old_node};
use crate::values::display::unparse_value_old;
use classad_vm::Value;
use std::sync::Arc;

/// How a column prints its values: the `%v`, `%V`, `%r`, `%T` or `%Y` that
/// HTCondor registers for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    /// `%v`: strings bare, other values unparsed.
    Value,
    /// `%V` (`:V`): strings quoted too.
    Quoted,
    /// `%r` (`:r` or `:o`): the expression, not its value.
    Raw,
    /// `%T` (`:T`): a number of seconds as `ddd+hh:mm:ss`.
    Elapsed,
    /// `%Y` (`:Y`): a time as `mm/dd hh:mm`, local time.
    Date,
}

/// Where a column's value comes from.
#[derive(Debug)]
enum Source {
    /// An `-af` argument.
    Arg {
        /// As written: the attribute it names, its heading and its label.
        text: String,
        /// Parsed, evaluated when the ad has no attribute named `text`.
        expr: ExprRef,
    },
    /// The job id of `:j`.
    JobId,
}

/// One column of the output.
#[derive(Debug)]
struct Column {
    source: Source,
    style: Style,
    /// `Name = ` before the value (`:l`), printed only when there is a value.
    label: Option<String>,
    /// The width the column is padded to (left-aligned); 0: not padded.
    width: usize,
    /// Whether values widen the column (columns with headings).
    auto_width: bool,
}

/// What one column of one ad rendered to.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Cell {
    /// No value (an evaluation that failed, a `:T` of a string, a job id of an ad
    /// that has none): the column prints empty.
    Invalid,
    /// Text printed as it is, after the label.
    Text(String),
    /// The seconds a `:T` or `:Y` column formats when printing (the padding of
    /// those formats depends on the column's width at that time).
    Seconds(i64),
}

/// One ad rendered: a cell per column.
#[derive(Clone, Debug)]
pub struct Row(Vec<Cell>);

/// The columns and separators of every `-af` of a command line.
#[derive(Debug, Default)]
pub struct Autoformat {
    columns: Vec<Column>,
    /// The headings, in column order; as in HTCondor a column added without a
    /// heading by an `-af` before one with `:h` leaves this list shorter than the
    /// columns (and the headings then sit over the first columns).
    headings: Vec<String>,
    /// Before each row: a newline with `:g`.
    row_prefix: Option<&'static str>,
    /// Before each column but the first: a space, a tab with `:t`, none with `:g`.
    col_prefix: Option<&'static str>,
    /// After each column but the last: `,` with `:,`, a newline with `:n`.
    col_suffix: Option<&'static str>,
}

impl Autoformat {
    /// No columns yet.
    pub fn new() -> Autoformat {
        Autoformat::default()
    }

    /// Whether any `-af` was added.
    pub fn has_columns(&self) -> bool {
        !self.columns.is_empty()
    }

    /// Whether a heading line is printed (`:h`): then every row must be rendered
    /// before the first is printed, since the headings are padded to the widest
    /// value of their column.
    pub fn has_headings(&self) -> bool {
        !self.headings.is_empty()
    }

    /// Adds the columns of one `-af`: `option` is the argument as written (for
    /// messages), `suffix` what follows its `:`, `args` the attributes and
    /// expressions. Each `-af` sets the separators of the whole line anew, as in
    /// HTCondor.
    pub fn add(&mut self, option: &str, suffix: &str, args: &[String]) -> Result<(), String> {
        let mut label = false;
        let mut quoted = false;
        let mut raw = false;
        let mut elapsed = false;
        let mut date = false;
        let mut headings = false;
        let mut job_id = false;
        let mut row_prefix = None;
        let mut col_prefix = Some(" ");
        let mut col_suffix = None;
        // In order, as HTCondor reads them: `:gt` is a tab before each value.
        for c in suffix.chars() {
            match c {
                ',' => col_suffix = Some(","),
                'n' => col_suffix = Some("\n"),
                'g' => {
                    col_prefix = None;
                    row_prefix = Some("\n");
                }
                't' => col_prefix = Some("\t"),
                'l' => label = true,
                'V' => quoted = true,
                'r' | 'o' => raw = true,
                'T' => elapsed = true,
                'Y' => date = true,
                'h' => headings = true,
                'j' => job_id = true,
                _ => {
                    return Err(format!(
                        "{option}: unknown option `{c}` after `:` (expected any of \
                         j l h V r T Y , t n g)"
                    ))
                }
            }
        }
        if args.is_empty() {
            return Err(format!(
                "{option} needs at least one attribute or expression after it"
            ));
        }
        self.row_prefix = row_prefix;
        self.col_prefix = col_prefix;
        self.col_suffix = col_suffix;
        // Once any column has a heading, every later one gets one too.
        let with_headings = headings || self.has_headings();
        if job_id {
            if with_headings {
                self.headings.push(" ID".to_string());
            }
            self.columns.push(Column {
                source: Source::JobId,
                style: Style::Value,
                // HTCondor labels the job id even when there are headings.
                label: label.then(|| "ID = ".to_string()),
                width: 0,
                auto_width: with_headings,
            });
        }
        // One format for the whole `-af`, in HTCondor's order of precedence.
        let style = if raw {
            Style::Raw
        } else if quoted {
            Style::Quoted
        } else if date {
            Style::Date
        } else if elapsed {
            Style::Elapsed
        } else {
            Style::Value
        };
        for text in args {
            // Every argument up to the next option belongs to `-af`, as in
            // HTCondor; a file named there (`-af Name pool.ads`, and `pool.ads`
            // parses: `pool` selecting `ads`) is a mistake, not an expression.
            if std::path::Path::new(text).is_file() {
                return Err(format!(
                    "{option}: `{text}` is a file, not an attribute or expression: files go \
                     before {option}, or after a lone `-` that ends its arguments (an \
                     expression that is also a file's name can be written `({text})`)"
                ));
            }
            let expr = parse_expr(text).map_err(|e| {
                format!("{option}: `{text}` is not an attribute name or a ClassAd expression: {e}")
            })?;
            let expr = ExprRef::root_of(Arc::new(expr));
            let mut column = Column {
                source: Source::Arg {
                    text: text.clone(),
                    expr: expr.clone(),
                },
                style,
                label: None,
                width: 0,
                auto_width: false,
            };
            if with_headings {
                // A heading that only follows from an earlier `:h` is `(expr)` for
                // a long argument that is more than a literal or a name.
                let is_tree = !matches!(expr.node(), Node::Lit(_) | Node::Attr { .. });
                let heading = if is_tree && !headings && text.len() > 16 {
                    "(expr)"
                } else {
                    text.as_str()
                };
                column.width = heading.len();
                column.auto_width = true;
                self.headings.push(heading.to_string());
            } else if label {
                column.label = Some(format!("{text} = "));
            }
            self.columns.push(column);
        }
        Ok(())
    }

    /// Renders `ad`: each column's value, widening the columns that have headings
    /// to fit it as HTCondor measures it.
    pub fn render(&mut self, ad: &Arc<ClassAd>) -> Row {
        let mut cells = Vec::with_capacity(self.columns.len());
        for col in &mut self.columns {
            let (cell, width) = render_cell(col, ad);
            if col.auto_width {
                if let Some(w) = width {
                    col.width = col.width.max(w);
                }
            }
            cells.push(cell);
        }
        Row(cells)
    }

    /// Appends the heading line.
    pub fn write_headings(&self, out: &mut String) {
        if let Some(p) = self.row_prefix {
            out.push_str(p);
        }
        let columns = self.columns.len();
        for (i, (col, heading)) in self.columns.iter().zip(&self.headings).enumerate() {
            if i > 0 {
                if let Some(p) = self.col_prefix {
                    out.push_str(p);
                }
            }
            push_padded(out, heading, col.width);
            if i + 1 < columns {
                if let Some(s) = self.col_suffix {
                    out.push_str(s);
                }
            }
        }
        out.push('\n');
    }

    /// Appends the line of a rendered row. Columns with headings widen to any
    /// value wider than they are (values rendering did not measure), for this row
    /// and the ones after it.
    pub fn write_row(&mut self, row: &Row, out: &mut String) {
        if let Some(p) = self.row_prefix {
            out.push_str(p);
        }
        let columns = self.columns.len();
        for (i, (col, cell)) in self.columns.iter_mut().zip(&row.0).enumerate() {
            if i > 0 {
                if let Some(p) = self.col_prefix {
                    out.push_str(p);
                }
            }
            let text = cell_text(col, cell);
            if col.auto_width {
                col.width = col.width.max(text.len());
            }
            push_padded(out, &text, col.width);
            if i + 1 < columns {
                if let Some(s) = self.col_suffix {
                    out.push_str(s);
                }
            }
        }
        out.push('\n');
    }
}

/// `text` left-aligned in `width` bytes (never cut), as `%-*s` pads.
fn push_padded(out: &mut String, text: &str, width: usize) {
    out.push_str(text);
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(text.len())));
}

/// What `col` shows for `ad`, and how wide HTCondor's rendering measures it
/// (`calc_column_width`; `None`: not measured).
fn render_cell(col: &Column, ad: &Arc<ClassAd>) -> (Cell, Option<usize>) {
    let (text, expr) = match &col.source {
        Source::JobId => {
            return match job_id(ad) {
                Some(id) => {
                    let w = id.len();
                    (Cell::Text(id), Some(w))
                }
                None => (Cell::Invalid, None),
            }
        }
        Source::Arg { text, expr } => (text, expr),
    };
    // The argument names an attribute of this ad (ignoring case): that
    // attribute's expression; otherwise the argument as an expression.
    let own = ad.get(text);
    if col.style == Style::Raw {
        let mut s = String::new();
        match own {
            Some(e) => unparse_old_node(e.tree, e.id, &mut s),
            // An expression that is only a reference to a missing attribute.
            None if matches!(expr.node(), Node::Attr { .. }) => s.push_str("undefined"),
            None => unparse_old_node(&expr.tree, expr.id, &mut s),
        }
        let w = s.len();
        return (Cell::Text(s), Some(w));
    }
    let value = match own {
        Some(e) => eval_in(&e.to_expr_ref(), ad, None, Semantics::Htcondor),
        None => eval_in(expr, ad, None, Semantics::Htcondor),
    };
    let Ok(value) = value else {
        // HTCondor's evaluation failed outright (too deep, too long).
        return (Cell::Invalid, None);
    };
    match col.style {
        Style::Elapsed | Style::Date => {
            let secs = match (&value, col.style) {
                (Value::AbsTime(t), Style::Date) => Some(t.secs),
                _ => as_integer(&value),
            };
            match secs {
                Some(s) => {
                    // Measured only when it is a number (an absolute time is not).
                    let w = as_integer(&value).map(|_| seconds_text(col.style, s).len());
                    (Cell::Seconds(s), w)
                }
                None => (Cell::Invalid, None),
            }
        }
        _ => {
            let width = match &value {
                Value::Str(s) => Some(s.len()),
                Value::Int(i) => Some(i.to_string().len()),
                // Measured by the new-syntax unparser, printed in old syntax.
                Value::Real(r) => Some(fmt_real_new(*r).len()),
                _ => None,
            };
            let text = match (&value, col.style) {
                (Value::Str(s), Style::Value) => s.to_string(),
                (Value::Str(s), _) => {
                    let mut q = String::new();
                    quote_string_old(s, &mut q);
                    q
                }
                (Value::Real(r), _) => fmt_real_old(*r),
                _ => unparse_value_old(&value),
            };
            (Cell::Text(text), width)
        }
    }
}

/// The text of a cell, before padding.
fn cell_text(col: &Column, cell: &Cell) -> String {
    match cell {
        Cell::Invalid => String::new(),
        Cell::Text(t) => match &col.label {
            Some(l) => format!("{l}{t}"),
            None => t.clone(),
        },
        // HTCondor formats these without the label, right-aligned in the column's
        // width as it stands before this row widens it.
        Cell::Seconds(s) => {
            let t = seconds_text(col.style, *s);
            let pad = col.width.saturating_sub(t.len());
            format!("{}{t}", " ".repeat(pad))
        }
    }
}

fn seconds_text(style: Style, secs: i64) -> String {
    if style == Style::Date {
        format_date(secs)
    } else {
        format_time(secs)
    }
}

/// A number as HTCondor's `Value::IsNumber` gives an integer: a real truncated,
/// a boolean as 0 or 1.
fn as_integer(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Real(r) => Some(*r as i64),
        Value::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}

/// The job id `condor_q -af:j` prints (`render_job_id` in HTCondor's
/// `print_format_tables.cpp`): `ClusterId.ProcId` when `ClusterId` is a number
/// (`ProcId` -1 when it is not), else the string `JobId`, else none. Both numbers
/// are C `int`s there.
fn job_id(ad: &Arc<ClassAd>) -> Option<String> {
    let number = |name: &str| {
        eval_attr(ad, name, None, Semantics::Htcondor)
            .ok()
            .and_then(|v| as_integer(&v))
            .map(|i| i as i32)
    };
    match number("ClusterId") {
        Some(cluster) => Some(format!("{cluster}.{}", number("ProcId").unwrap_or(-1))),
        None => match eval_attr(ad, "JobId", None, Semantics::Htcondor) {
            Ok(Value::Str(s)) => Some(s.to_string()),
            _ => None,
        },
    }
}

/// Seconds as `ddd+hh:mm:ss` (HTCondor's `format_time`, C's truncating division
/// and `%3lld+%02lld:%02lld:%02lld`).
pub fn format_time(secs: i64) -> String {
    let days = secs / 86_400;
    let rest = secs % 86_400;
    let (hours, rest) = (rest / 3600, rest % 3600);
    let (min, sec) = (rest / 60, rest % 60);
    format!("{days:3}+{hours:02}:{min:02}:{sec:02}")
}

/// A time as `mm/dd hh:mm` in the local time zone (HTCondor's `format_date`,
/// `%2d/%-2d %02d:%02d`); `    ???    ` before 1970.
pub fn format_date(secs: i64) -> String {
    if secs < 0 {
        return "    ???    ".to_string();
    }
    let offset = crate::calendar::local_offset(secs);
    let c = crate::calendar::civil(secs, i64::from(offset));
    format!("{:2}/{:<2} {:02}:{:02}", c.month, c.day, c.hour, c.min)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::parse_classad;

    fn ad(src: &str) -> Arc<ClassAd> {
        Arc::new(parse_classad(src).unwrap())
    }

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    /// Every row printed after all are rendered, as `condor_status` does.
    fn print(af: &mut Autoformat, ads: &[Arc<ClassAd>]) -> String {
        let rows: Vec<Row> = ads.iter().map(|a| af.render(a)).collect();
        let mut out = String::new();
        if af.has_headings() {
            af.write_headings(&mut out);
        }
        for r in &rows {
            af.write_row(r, &mut out);
        }
        out
    }

    fn one(suffix: &str, a: &[&str], src: &str) -> String {
        let mut af = Autoformat::new();
        af.add("-af", suffix, &args(a)).unwrap();
        print(&mut af, &[ad(src)])
    }

    #[test]
    fn values_print_as_condor_status_prints_them() {
        let src = r#"[ S = "a \"q\" b"; I = 3; R = 2.5; W = 3.0; B = true;
                      L = { 1, "x", 2.5 }; N = [ a = 1.5 ]; E = error ]"#;
        assert_eq!(
            one(
                "",
                &["S", "I", "R", "W", "B", "L", "N", "E", "Missing"],
                src
            ),
            "a \"q\" b 3 2.5 3.0 true { 1,\"x\",2.5 } [ a = 1.5 ] error undefined\n"
        );
        // :V quotes strings, old style (only `"` escaped); other values as before.
        assert_eq!(one("V", &["S", "I"], src), "\"a \\\"q\\\" b\" 3\n");
        // Expressions are evaluated in the ad.
        assert_eq!(
            one("", &["I * 2", "strcat(S, \"!\")", "R + 1"], src),
            "6 a \"q\" b! 3.5\n"
        );
    }

    #[test]
    fn raw_prints_expressions() {
        let src = "[ Req = Cpus >= 2 && Name =?= \"x\"; R = 1.0 ]";
        assert_eq!(
            one("r", &["Req", "R", "Missing", "MY.R", "1 + 2"], src),
            "Cpus >= 2 && Name =?= \"x\" 1.0 undefined undefined 1 + 2\n"
        );
    }

    #[test]
    fn separators_and_labels() {
        let src = "[ A = 1; B = \"x\" ]";
        assert_eq!(one(",", &["A", "B"], src), "1, x\n");
        assert_eq!(one("t", &["A", "B"], src), "1\tx\n");
        assert_eq!(one("n", &["A", "B"], src), "1\n x\n");
        assert_eq!(one("g", &["A", "B"], src), "\n1x\n");
        assert_eq!(one("gt", &["A", "B"], src), "\n1\tx\n");
        assert_eq!(one("l", &["A", "B"], src), "A = 1 B = x\n");
        assert_eq!(one("lrng", &["A", "B"], src), "\nA = 1\nB = \"x\"\n");
    }

    #[test]
    fn headings_pad_to_the_widest_measured_value() {
        let mut af = Autoformat::new();
        af.add("-af", "h", &args(&["Name", "R", "B"])).unwrap();
        let ads = [
            ad("[ Name = \"a\"; R = 2.5; B = true ]"),
            ad("[ Name = \"longer\"; R = 1; B = false ]"),
        ];
        // R is measured as 2.500000000000000E+00 (21 wide); B is not measured, so
        // it widens while printing: `true` pads to 4, `false` to 5.
        assert_eq!(
            print(&mut af, &ads),
            "Name   R                     B\n\
             a      2.5                   true\n\
             longer 1                     false\n"
        );
    }

    #[test]
    fn job_ids() {
        let job = "[ ClusterId = 12; ProcId = 3; Owner = \"u\" ]";
        assert_eq!(one("j", &["Owner"], job), "12.3 u\n");
        assert_eq!(one("jl", &["Owner"], job), "ID = 12.3 Owner = u\n");
        assert_eq!(
            one("j", &["Owner"], "[ ClusterId = 7 ]"),
            "7.-1 undefined\n"
        );
        assert_eq!(one("j", &["A"], "[ JobId = \"5.0\"; A = 1 ]"), "5.0 1\n");
        // An ad without a job id: the column is empty, the label too.
        assert_eq!(one("jl", &["A"], "[ A = 1 ]"), " A = 1\n");
        let mut af = Autoformat::new();
        af.add("-af", "jh", &args(&["Owner"])).unwrap();
        assert_eq!(
            print(
                &mut af,
                &[
                    ad(job),
                    ad("[ ClusterId = 1; ProcId = 0; Owner = \"someone\" ]")
                ]
            ),
            " ID  Owner  \n12.3 u      \n1.0  someone\n"
        );
    }

    #[test]
    fn times() {
        assert_eq!(format_time(0), "  0+00:00:00");
        assert_eq!(format_time(93_784), "  1+02:03:04");
        assert_eq!(format_time(-5), "  0+00:00:-5");
        assert_eq!(format_date(-1), "    ???    ");
        assert_eq!(
            one("T", &["A", "S"], "[ A = 3661.9; S = \"x\" ]"),
            "  0+01:01:01 \n"
        );
    }

    #[test]
    fn a_later_af_adds_headings_and_sets_the_separators() {
        let mut af = Autoformat::new();
        af.add("-af", "h", &args(&["A"])).unwrap();
        af.add("-af", ",", &args(&["A + 1000000000000000", "B"]))
            .unwrap();
        let out = print(&mut af, &[ad("[ A = 1; B = 2 ]")]);
        assert_eq!(out, "A, (expr)          , B\n1, 1000000000000001, 2\n");
    }

    #[test]
    fn bad_arguments_are_named() {
        let mut af = Autoformat::new();
        let e = af.add("-af:h", "h", &args(&["A", "(B"])).unwrap_err();
        assert!(
            e.starts_with("-af:h: `(B` is not an attribute name or a ClassAd expression"),
            "{e}"
        );
        let e = af.add("-af:q", "q", &args(&["A"])).unwrap_err();
        assert!(e.contains("unknown option `q`"), "{e}");
        let e = af.add("-af", "", &[]).unwrap_err();
        assert!(e.contains("at least one"), "{e}");
    }
}
