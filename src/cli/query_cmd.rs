//! `classad query`: print the ads for which a constraint is true, like
//! `condor_status -constraint`.

use super::error_count::ErrorCount;
use super::format_cmd::{write_ads, OutSyntax};
use super::io::{load_ads, output_error};
use super::Failure;
use crate::eval::independent::IndependentParts;
use crate::eval::Semantics;
use crate::syntax::ast::ExprRef;
use crate::syntax::parse_expr;
use clap::Args;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

/// Arguments of `classad query`.
#[derive(Args, Debug)]
pub struct QueryArgs {
    /// The constraint, evaluated in each ad; an ad is printed when it is true (or a
    /// non-zero number). Without one, every ad is printed. Also `-constraint`.
    #[arg(long)]
    constraint: Option<String>,
    /// Print in new syntax instead of old.
    #[arg(long, group = "syntax")]
    new: bool,
    /// Print as JSON.
    #[arg(long, group = "syntax")]
    json: bool,
    /// The file of ads; `-` for standard input.
    file: String,
}

/// Runs `classad query`.
pub fn run(a: QueryArgs) -> Result<ExitCode, Failure> {
    // No constraint selects every ad, as `condor_status` without one does.
    let constraint = a.constraint.as_deref().unwrap_or("true");
    let expr = parse_expr(constraint).map_err(|e| format!("--constraint: {e}"))?;
    let expr = ExprRef::root_of(Arc::new(expr));
    let ads: Vec<_> = load_ads(&a.file)?.into_iter().map(Arc::new).collect();
    let mut errors = ErrorCount::default();
    let mut selected = Vec::new();
    // The constraint's parts that read nothing of the ad are evaluated once.
    let mut parts = IndependentParts::new(&expr);
    for (i, ad) in ads.iter().enumerate() {
        let v = parts.eval_in(ad, Semantics::Htcondor);
        errors.note(i, v.as_ref().map_or(true, |v| v.is_error()));
        if matches!(v, Ok(v) if v.as_bool_equiv() == Some(true)) {
            selected.push(&**ad);
        }
    }
    errors.warn("the constraint", "ads", &a.file);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    write_ads(
        selected.into_iter(),
        OutSyntax::from_flags(a.new, a.json),
        &mut out,
    )
    .and_then(|_| out.flush())
    .map_err(output_error)?;
    Ok(ExitCode::SUCCESS)
}
