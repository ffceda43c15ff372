//! Counting the ads for which an expression was error, so that `query` and `match`
//! say so on standard error instead of silently selecting nothing.

use super::Failure;
use crate::ad::ClassAd;
use crate::eval::{eval_in, Semantics};
use crate::syntax::ast::ExprRef;
use crate::syntax::parse_expr;
use std::sync::Arc;

/// How many of a file's ads an expression was error for, and the first of them.
#[derive(Debug, Default)]
pub struct ErrorCount {
    /// Ads for which the value was error (or the evaluation failed).
    pub errors: usize,
    /// Ads looked at.
    pub total: usize,
    /// The index (from 0) of the first ad in error.
    pub first: Option<usize>,
}

impl ErrorCount {
    /// Notes the outcome for the ad at `index`.
    pub fn note(&mut self, index: usize, is_error: bool) {
        self.total += 1;
        if is_error {
            self.errors += 1;
            self.first.get_or_insert(index);
        }
    }

    /// Prints `warning: <what> was error for N of M <ads> (first: FILE ad I ...)`
    /// on standard error, when it was for any.
    pub fn warn(&self, what: &str, ads: &str, file: &str) -> Result<(), Failure> {
        match self.first {
            Some(first) => super::io::to_stderr(&format!(
                "warning: {what} was error for {} of {} {ads} (first: {file}, ad {first} counting from 0)",
                self.errors, self.total
            )),
            None => Ok(()),
        }
    }
}

/// Each ad's `Requirements` evaluated in the ad alone (no TARGET): the count of
/// those that are error without any other ad. A Requirements that is error only
/// for some targets is not counted: the VM's block matcher folds error into "no
/// match" per pair and a per-pair count would cost a second matching.
pub fn requirements_errors(ads: &[Arc<ClassAd>]) -> ErrorCount {
    use rayon::prelude::*;
    // Each ad on its own, on every core: at 100,000 slots this took half a
    // second of one core while the other waited.
    let (errors, first) = ads
        .par_iter()
        .enumerate()
        .filter(|(_, ad)| requirements_error(ad))
        .map(|(i, _)| (1, i))
        .reduce(|| (0, usize::MAX), |a, b| (a.0 + b.0, a.1.min(b.1)));
    ErrorCount {
        errors,
        total: ads.len(),
        first: (errors > 0).then_some(first),
    }
}

/// True when `ad`'s `Requirements`, evaluated in the ad alone, is error (or fails).
pub fn requirements_error(ad: &Arc<ClassAd>) -> bool {
    static REQUIREMENTS: std::sync::OnceLock<ExprRef> = std::sync::OnceLock::new();
    let requirements = REQUIREMENTS.get_or_init(|| {
        ExprRef::root_of(Arc::new(parse_expr("Requirements").expect("a name parses")))
    });
    let v = eval_in(requirements, ad, None, Semantics::Htcondor);
    v.as_ref().map_or(true, |v| v.is_error())
}

/// [`requirements_errors`] of each class's first job, counted for all its jobs:
/// the class's key holds `Requirements` and every name it reads in the job.
pub fn requirements_errors_by_class(c: &crate::matching::Autoclusters) -> ErrorCount {
    let mut count = ErrorCount {
        total: c.jobs_len(),
        ..ErrorCount::default()
    };
    for (rep, jobs) in c.representatives().iter().zip(c.classes()) {
        if requirements_error(rep) {
            count.errors += jobs.len();
            let first = jobs[0] as usize;
            count.first = Some(count.first.map_or(first, |f| f.min(first)));
        }
    }
    count
}
