//! `classad eval`: evaluate expressions, one output line per expression, in
//! `classad_eval`'s forms: arguments that are assignments (`'a = 1'`, `'b = a * 2;
//! c = 3'`) build the ad that later expressions are evaluated in, and the ad is
//! printed (one line, new syntax) before the first expression after a change, as
//! HTCondor's `classad_eval` prints it, unless `--quiet`.

use super::io::{load_ads, load_one_ad, output_error};
use super::Failure;
use crate::ad::stream::{ReadLimits, TextLines};
use crate::ad::ClassAd;
use crate::ad::{parse_classad, unparse_ad};
use crate::engine::{eval_alone_with, eval_in_with, Engine};
use crate::eval::Semantics;
use crate::syntax::ast::Expr;
use crate::syntax::ast::ExprRef;
use crate::syntax::{parse_expr, ParseError};
use crate::values::display::unparse_value;
use clap::Args;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

/// Arguments of `classad eval`.
#[derive(Args, Debug)]
pub struct EvalArgs {
    /// Evaluate as an attribute of the ad in this file (MY). Also `-file` and
    /// `-my-file`. A file of several ads needs `--all`.
    #[arg(long)]
    my: Option<String>,
    /// With a `--my` file of several ads: evaluate the arguments in each ad in
    /// turn (assignments apply to each), the outputs one ad after another.
    #[arg(long, requires = "my")]
    all: bool,
    /// Do not print the ad that assignments built (`classad_eval -quiet`).
    #[arg(long)]
    quiet: bool,
    /// The other ad of the match (TARGET). Also `-target-file`. Without `--my`
    /// the expression belongs to an empty ad, as in HTCondor's classad_eval.
    #[arg(long)]
    target: Option<String>,
    /// Use the plain library's strict semantics instead of HTCondor's daemons'.
    #[arg(long)]
    strict: bool,
    /// Which evaluator to use.
    #[arg(long, value_enum, default_value_t)]
    engine: super::EngineArg,
    /// Expressions and assignments (`name = expr`, several separated by `;`),
    /// in order. With none, standard input is read: one expression per line and
    /// exactly one output line per input line (a value or `parse error: ...`; an
    /// assignment is a parse error there, as in HTCondor's parser). Options may
    /// follow them; an expression that begins with `-` goes after `--`.
    exprs: Vec<String>,
}

/// One argument of `classad eval`: an expression to print the value of, or
/// attributes to set in the ad that later expressions see.
enum Step {
    /// An expression (or the text of one that does not parse, to report).
    Expr(String),
    /// Attributes to set.
    Assign(ClassAd),
}

/// Tells an assignment from an expression, as `classad_eval` does: text that
/// reads as the body of an ad (`a = 1`, `a = 1; b = a * 2`) is an assignment.
/// Unlike `classad_eval`, text that reads as a whole expression stays one, so
/// that `[a = 1].a` is evaluated rather than taken for the ad `[a = 1]`, and
/// blank text is an expression that is missing (an error line), not an empty
/// assignment.
fn step_of(arg: &str) -> Step {
    match parse_expr(arg) {
        Ok(_) => Step::Expr(arg.to_string()),
        Err(_) if arg.trim().is_empty() => Step::Expr(arg.to_string()),
        Err(_) => match parse_classad(&format!("[{arg}]")) {
            Ok(ad) => Step::Assign(ad),
            Err(_) => Step::Expr(arg.to_string()),
        },
    }
}

/// The error to report for an argument that is neither an expression nor an
/// assignment: the one of the reading that got further (an assignment's
/// positions shifted back past the `[` put before it).
fn neither_error(arg: &str, expr_error: ParseError) -> ParseError {
    match parse_classad(&format!("[{arg}]")) {
        Err(mut e) if e.offset > expr_error.offset + 1 && e.offset <= arg.len() + 1 => {
            e.offset -= 1;
            if e.line == 1 {
                e.column -= 1;
            }
            // The `]` put after the text is the end of what the user wrote.
            if e.offset == arg.len() {
                if let Some(head) = e.message.strip_suffix("found ']'") {
                    e.message = format!("{head}found the end of the input");
                }
            }
            e
        }
        _ => expr_error,
    }
}

/// Sets every attribute of `update` in `ad`, replacing those it has.
fn assign(ad: &mut Arc<ClassAd>, update: &ClassAd) {
    let ad = Arc::make_mut(ad);
    for (name, e) in update.iter() {
        ad.insert(name.clone(), e.to_expr_ref());
    }
}

/// Runs `classad eval`.
pub fn run(a: EvalArgs) -> Result<ExitCode, Failure> {
    // Without expression arguments, the expressions are standard input's lines.
    let expressions = a.exprs.is_empty().then_some("-");
    super::io::one_standard_input(&[
        ("--my", a.my.as_deref()),
        ("--target", a.target.as_deref()),
        ("the expressions (none given as arguments)", expressions),
    ])?;
    let target = a.target.as_deref().map(load_one_ad).transpose()?;
    let sem = if a.strict {
        Semantics::Strict
    } else {
        Semantics::Htcondor
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let engine: Engine = a.engine.into();
    let ctx = Context {
        engine,
        target: target.as_ref(),
        sem,
        quiet: a.quiet,
    };
    let ok = if a.exprs.is_empty() {
        let my = a.my.as_deref().map(load_one_ad).transpose()?;
        ctx.stdin_lines(my, &mut out)?
    } else {
        let steps: Vec<Step> = a.exprs.iter().map(|e| step_of(e)).collect();
        let ads: Vec<Option<Arc<ClassAd>>> = match (&a.my, a.all) {
            (Some(path), true) => load_ads(path)?
                .into_iter()
                .map(|ad| Some(Arc::new(ad)))
                .collect(),
            (Some(path), false) => vec![Some(load_one_ad(path).map_err(|e| {
                if e.contains("expected one ad") {
                    format!("{e} (--all evaluates in each)")
                } else {
                    e
                }
            })?)],
            (None, _) => vec![None],
        };
        let mut ok = true;
        for my in ads {
            ok &= ctx.arguments(&steps, my, &mut out)?;
        }
        ok
    };
    out.flush().map_err(output_error)?;
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// What every evaluation of one run shares.
struct Context<'a> {
    engine: Engine,
    target: Option<&'a Arc<ClassAd>>,
    sem: Semantics,
    quiet: bool,
}

impl Context<'_> {
    /// The ad an expression is evaluated in: the one given or built, else an
    /// empty one when there is a target (as `classad_eval` evaluates in an empty
    /// ad), else none.
    fn scope(&self, my: &Option<Arc<ClassAd>>) -> Option<Arc<ClassAd>> {
        match (my, self.target) {
            (Some(my), _) => Some(my.clone()),
            (None, Some(_)) => Some(Arc::new(ClassAd::new())),
            (None, None) => None,
        }
    }

    /// The arguments in order, in `my`; false when one failed.
    fn arguments(
        &self,
        steps: &[Step],
        mut my: Option<Arc<ClassAd>>,
        out: &mut dyn Write,
    ) -> Result<bool, Failure> {
        // As `classad_eval`, when the arguments assign: the ad is printed before
        // the first expression, and again after each change.
        let assigns = steps.iter().any(|s| matches!(s, Step::Assign(_)));
        let mut changed = assigns;
        let mut ok = true;
        for step in steps {
            match step {
                Step::Assign(update) => {
                    assign(my.get_or_insert_with(|| Arc::new(ClassAd::new())), update);
                    changed = true;
                }
                Step::Expr(text) => {
                    if changed && !self.quiet {
                        let shown = my.clone().unwrap_or_default();
                        writeln!(out, "{}", unparse_ad(&shown)).map_err(output_error)?;
                    }
                    changed = false;
                    let (line, good) = self.eval_text(text, &my);
                    ok &= good;
                    writeln!(out, "{line}").map_err(output_error)?;
                }
            }
        }
        Ok(ok)
    }

    /// One output line per line of standard input, always: the value of the
    /// line's expression, or its `parse error: ...` line. A line is an
    /// expression, read as HTCondor's expression parser reads it, so `a = 1` is a
    /// parse error there (assignments are arguments only): scripts read the
    /// answers back by position. A line that cannot be read as text gets an error
    /// line and the next is read, unless reading had to stop (a NUL byte: binary
    /// input).
    fn stdin_lines(&self, my: Option<Arc<ClassAd>>, out: &mut dyn Write) -> Result<bool, Failure> {
        let mut ok = true;
        let mut lines = TextLines::new(std::io::stdin().lock(), ReadLimits::configured());
        while let Some(line) = lines.next_line() {
            let text = match line {
                Ok(line) => {
                    let text = line.text.strip_suffix('\r').unwrap_or(line.text);
                    let (result, good) = match parse_expr(text) {
                        Ok(expr) => self.eval_parsed(expr, &my),
                        Err(e) => (format!("parse error: {e}"), false),
                    };
                    ok &= good;
                    result
                }
                Err(e) => {
                    let stop = if e.is_fatal() {
                        "; stopped reading"
                    } else {
                        ""
                    };
                    ok = false;
                    format!(
                        "parse error: line {}, column {}: {}{stop}",
                        e.line, e.column, e.problem
                    )
                }
            };
            writeln!(out, "{text}").map_err(output_error)?;
        }
        Ok(ok)
    }

    /// Evaluates the expression `text` in `my`.
    fn eval_text(&self, text: &str, my: &Option<Arc<ClassAd>>) -> (String, bool) {
        match parse_expr(text) {
            Ok(expr) => self.eval_parsed(expr, my),
            Err(e) => (format!("parse error: {}", neither_error(text, e)), false),
        }
    }

    /// Evaluates a parsed expression in `my`.
    fn eval_parsed(&self, expr: Expr, my: &Option<Arc<ClassAd>>) -> (String, bool) {
        eval_parsed(
            self.engine,
            expr,
            self.scope(my).as_ref(),
            self.target,
            self.sem,
        )
    }
}

/// Evaluates one expression; the output line and whether it succeeded.
fn eval_parsed(
    engine: Engine,
    expr: Expr,
    my: Option<&Arc<ClassAd>>,
    target: Option<&Arc<ClassAd>>,
    sem: Semantics,
) -> (String, bool) {
    let result = match my {
        None => eval_alone_with(engine, &expr, sem),
        Some(my) => eval_in_with(engine, &ExprRef::root_of(Arc::new(expr)), my, target, sem),
    };
    match result {
        Ok(v) => (unparse_value(&v), true),
        Err(e) => (format!("evaluation failed: {e}"), false),
    }
}
