//! `classad eval`: evaluate expressions, one output line per expression.

use super::io::{load_one_ad, output_error};
use super::Failure;
use crate::ad::stream::{ReadLimits, TextLines};
use crate::ad::ClassAd;
use crate::eval::display::unparse_value;
use crate::eval::{eval_alone_with, eval_in_with, Engine, Semantics};
use crate::syntax::ast::ExprRef;
use crate::syntax::parse_expr;
use clap::Args;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

/// Arguments of `classad eval`.
#[derive(Args, Debug)]
pub struct EvalArgs {
    /// Evaluate as an attribute of the ad in this file (MY). Also `-file`.
    #[arg(long)]
    my: Option<String>,
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
    /// Expressions; with none, one expression per line of standard input. Options
    /// may follow them; an expression that begins with `-` goes after `--`.
    exprs: Vec<String>,
}

/// Runs `classad eval`.
pub fn run(a: EvalArgs) -> Result<ExitCode, Failure> {
    let mut my = a.my.as_deref().map(load_one_ad).transpose()?;
    let target = a.target.as_deref().map(load_one_ad).transpose()?;
    if target.is_some() && my.is_none() {
        // As HTCondor's classad_eval: the expression belongs to an empty ad.
        my = Some(Arc::new(ClassAd::new()));
    }
    let sem = if a.strict {
        Semantics::Strict
    } else {
        Semantics::Htcondor
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut ok = true;
    let engine: Engine = a.engine.into();
    let mut emit = |text: &str, good: bool, out: &mut dyn Write| -> Result<(), Failure> {
        ok &= good;
        writeln!(out, "{text}").map_err(output_error)
    };
    let eval = |line: &str| eval_line(engine, line, my.as_ref(), target.as_ref(), sem);
    if a.exprs.is_empty() {
        // One output line per input line: a line that cannot be read as text gets
        // an error line and the next is read, unless reading had to stop (a NUL
        // byte: binary input).
        let mut lines = TextLines::new(std::io::stdin().lock(), ReadLimits::default());
        while let Some(line) = lines.next_line() {
            match line {
                Ok(line) => {
                    let text = line.text.strip_suffix('\r').unwrap_or(line.text);
                    let (result, good) = eval(text);
                    emit(&result, good, &mut out)?;
                }
                Err(e) => {
                    let stop = if e.is_fatal() {
                        "; stopped reading"
                    } else {
                        ""
                    };
                    let text = format!(
                        "parse error: line {}, column {}: {}{stop}",
                        e.line, e.column, e.problem
                    );
                    emit(&text, false, &mut out)?;
                }
            }
        }
    } else {
        for e in &a.exprs {
            let (result, good) = eval(e);
            emit(&result, good, &mut out)?;
        }
    }
    out.flush().map_err(output_error)?;
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Evaluates one expression; the output line and whether it succeeded.
fn eval_line(
    engine: Engine,
    src: &str,
    my: Option<&Arc<ClassAd>>,
    target: Option<&Arc<ClassAd>>,
    sem: Semantics,
) -> (String, bool) {
    let expr = match parse_expr(src) {
        Ok(e) => e,
        Err(e) => return (format!("parse error: {e}"), false),
    };
    let result = match my {
        None => eval_alone_with(engine, &expr, sem),
        Some(my) => eval_in_with(engine, &ExprRef::root_of(Arc::new(expr)), my, target, sem),
    };
    match result {
        Ok(v) => (unparse_value(&v), true),
        Err(e) => (format!("evaluation failed: {e}"), false),
    }
}
