//! `classad eval`: evaluate expressions, one output line per expression.

use super::io::load_one_ad;
use crate::ad::ClassAd;
use crate::eval::display::unparse_value;
use crate::eval::{eval_alone_with, eval_in_with, Engine, Semantics};
use crate::syntax::ast::ExprRef;
use crate::syntax::parse_expr;
use clap::Args;
use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::sync::Arc;

/// Arguments of `classad eval`.
#[derive(Args, Debug)]
pub struct EvalArgs {
    /// Evaluate as an attribute of the ad in this file (MY). Also `-file`.
    #[arg(long)]
    my: Option<String>,
    /// The other ad of the match (TARGET). Also `-target-file`.
    #[arg(long)]
    target: Option<String>,
    /// Use the plain library's strict semantics instead of HTCondor's daemons'.
    #[arg(long)]
    strict: bool,
    /// Which evaluator to use.
    #[arg(long, value_enum, default_value_t)]
    engine: super::EngineArg,
    /// Expressions; with none, one expression per line of standard input.
    #[arg(allow_hyphen_values = true)]
    exprs: Vec<String>,
}

/// Runs `classad eval`.
pub fn run(a: EvalArgs) -> Result<ExitCode, String> {
    let my = a.my.as_deref().map(load_one_ad).transpose()?;
    let target = a.target.as_deref().map(load_one_ad).transpose()?;
    if target.is_some() && my.is_none() {
        return Err("--target needs --my (the ad the expression belongs to)".into());
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
    let mut emit = |line: &str, out: &mut dyn Write| -> Result<(), String> {
        let (text, good) = eval_line(engine, line, my.as_ref(), target.as_ref(), sem);
        ok &= good;
        writeln!(out, "{text}").map_err(|e| e.to_string())
    };
    if a.exprs.is_empty() {
        for line in std::io::stdin().lock().lines() {
            let line = line.map_err(|e| format!("<stdin>: {e}"))?;
            emit(&line, &mut out)?;
        }
    } else {
        for e in &a.exprs {
            emit(e, &mut out)?;
        }
    }
    out.flush().map_err(|e| e.to_string())?;
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
