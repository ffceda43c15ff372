//! Counting the ads for which an expression was error, so that `query`, `match`
//! and `negotiate` say so on standard error instead of silently selecting or
//! matching nothing.

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
    /// For a Requirements count ([`AloneErrors::against`]): how many targets
    /// each ad was tried against, of how many there are.
    pub tried: usize,
    /// See `tried`.
    pub targets: usize,
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

    /// For a count of [`AloneErrors::against`]: prints `warning: Requirements
    /// is error against every <target> for N of M <ads>, so they match
    /// nothing (first: FILE ad I ...)` on standard error, when it is for any.
    pub fn warn_matches_nothing(&self, ads: &str, target: &str, file: &str) -> Result<(), Failure> {
        let Some(first) = self.first else {
            return Ok(());
        };
        let against = if self.targets == 0 {
            format!("alone (there is no {target} to try)")
        } else if self.tried < self.targets {
            format!(
                "against every one of the {} {target}s tried (spread over all {})",
                self.tried, self.targets
            )
        } else {
            format!("against every {target}")
        };
        super::io::to_stderr(&format!(
            "warning: Requirements is error {against} for {} of {} {ads}, so they match nothing \
             (first: {file}, ad {first} counting from 0)",
            self.errors, self.total
        ))
    }
}

/// The most targets a Requirements that is error alone is tried against,
/// spread evenly over them: enough to meet every kind of slot or job a pool
/// has, at a bounded cost when many ads are in error.
pub const MOST_TARGETS_TRIED: usize = 1024;

/// The most evaluations [`AloneErrors::against`] makes in all (each ad tries
/// at least one target): a few seconds of one core at worst.
pub const MOST_EVALUATIONS: usize = 4 << 20;

/// The ads whose `Requirements`, evaluated alone (no TARGET), is error, each
/// with its index (the first job of a class) and how many ads it stands for:
/// the ones that may match nothing. Most are error only for want of a target
/// (condor_submit's `versionGE(split(TARGET.CondorVersion)[1], ...)`), so
/// [`AloneErrors::against`] tries them against the other side.
#[derive(Debug, Default)]
pub struct AloneErrors {
    total: usize,
    found: Vec<(usize, usize, Arc<ClassAd>)>,
}

impl AloneErrors {
    /// Those of `ads` (on every core: at 100,000 slots this took half a
    /// second of one core while the other waited).
    pub fn of_ads(ads: &[Arc<ClassAd>]) -> AloneErrors {
        use rayon::prelude::*;
        let found = ads
            .par_iter()
            .enumerate()
            .filter(|(_, ad)| requirements_error(ad, None))
            .map(|(i, ad)| (i, 1, ad.clone()))
            .collect();
        AloneErrors {
            total: ads.len(),
            found,
        }
    }

    /// Those of the classes of `c`, each tried in its first job and standing
    /// for all its jobs (the class's key holds `Requirements` and every name
    /// it reads in the job).
    pub fn of_classes(c: &crate::matching::Autoclusters) -> AloneErrors {
        let sizes = c
            .classes()
            .iter()
            .map(|jobs| (jobs[0] as usize, jobs.len()));
        AloneErrors::of_representatives(c.representatives(), sizes, c.jobs_len())
    }

    /// [`AloneErrors::of_classes`] of a queue made ready to match.
    pub fn of_queue(queue: &crate::matching::MatchQueue) -> AloneErrors {
        let sizes = queue.class_sizes().into_iter();
        AloneErrors::of_representatives(queue.representatives(), sizes, queue.len())
    }

    /// Those of `representatives`, each standing for the jobs `sizes` gives
    /// (its first's index and how many), of `total` jobs.
    fn of_representatives(
        representatives: &[Arc<ClassAd>],
        sizes: impl Iterator<Item = (usize, usize)>,
        total: usize,
    ) -> AloneErrors {
        let found = representatives
            .iter()
            .zip(sizes)
            .filter(|(rep, _)| requirements_error(rep, None))
            .map(|(rep, (first, jobs))| (first, jobs, rep.clone()))
            .collect();
        AloneErrors { total, found }
    }

    /// The count of those whose `Requirements` is error against every one
    /// of `targets` too (or of [`MOST_TARGETS_TRIED`] spread over them, fewer
    /// when [`MOST_EVALUATIONS`] would not cover that many for every ad), which
    /// therefore match nothing. With no target, error alone is what counts.
    pub fn against(&self, targets: &[Arc<ClassAd>]) -> ErrorCount {
        self.against_within(targets, MOST_EVALUATIONS)
    }

    /// [`AloneErrors::against`] within `budget` evaluations.
    fn against_within(&self, targets: &[Arc<ClassAd>], budget: usize) -> ErrorCount {
        use rayon::prelude::*;
        // Fewer targets each when many ads are error alone, so that a pool
        // of 400,000 such slots costs at most the budget in all.
        let per_ad = (budget / self.found.len().max(1)).clamp(1, MOST_TARGETS_TRIED);
        let step = targets.len().div_ceil(per_ad).max(1);
        let tried: Vec<&Arc<ClassAd>> = targets.iter().step_by(step).collect();
        let in_error: Vec<bool> = self
            .found
            .par_iter()
            .map(|(_, _, ad)| tried.iter().all(|t| requirements_error(ad, Some(t))))
            .collect();
        let mut count = ErrorCount {
            total: self.total,
            tried: tried.len(),
            targets: targets.len(),
            ..ErrorCount::default()
        };
        for ((index, n, _), error) in self.found.iter().zip(in_error) {
            if error {
                count.errors += n;
                count.first = Some(count.first.map_or(*index, |f| f.min(*index)));
            }
        }
        count
    }
}

/// True when `ad`'s `Requirements`, evaluated with `target` as TARGET (none:
/// alone), is error (or fails).
pub fn requirements_error(ad: &Arc<ClassAd>, target: Option<&Arc<ClassAd>>) -> bool {
    static REQUIREMENTS: std::sync::OnceLock<ExprRef> = std::sync::OnceLock::new();
    let requirements = REQUIREMENTS.get_or_init(|| {
        ExprRef::root_of(Arc::new(parse_expr("Requirements").expect("a name parses")))
    });
    let v = eval_in(requirements, ad, target, Semantics::Htcondor);
    v.as_ref().map_or(true, |v| v.is_error())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::ad::test_ads as ads;

    #[test]
    fn error_only_for_want_of_a_target_is_not_counted() {
        // condor_submit's test of the slot's version is error with no TARGET.
        let jobs = ads(
            "Requirements = versionGE(split(TARGET.CondorVersion)[1], \"9.0.0\")\n\n\
             Requirements = 1 + \"x\"\n\n\
             Requirements = TARGET.Memory > 10\n\n\
             Requirements = TARGET.Name > 3\n",
        );
        let slots = ads("CondorVersion = \"$CondorVersion: 25.0.1 2025-01-01 $\"\nMemory = 50\nName = \"a\"\n\n\
             CondorVersion = \"x\"\nMemory = 1\nName = \"b\"\n");
        let alone = AloneErrors::of_ads(&jobs);
        // A comparison with a missing attribute is undefined, not error.
        assert_eq!(alone.found.len(), 2, "two are error alone");
        let c = alone.against(&slots);
        assert_eq!((c.errors, c.total, c.first), (1, 4, Some(1)));
        assert_eq!((c.tried, c.targets), (2, 2));
        let none = alone.against(&[]);
        assert_eq!(
            (none.errors, none.first),
            (2, Some(0)),
            "no slot: error alone counts"
        );
    }

    #[test]
    fn many_targets_are_sampled_evenly() {
        // split() of a number is error; of a string, a list.
        let jobs = ads("Requirements = split(TARGET.X)[0] == \"a\"\n");
        let pool = |good: usize| -> Vec<Arc<ClassAd>> {
            let x = |i: usize| if i == good { "\"a\"" } else { "5" };
            (0..5000)
                .map(|i| ads(&format!("X = {}\n", x(i)))[0].clone())
                .collect()
        };
        let alone = AloneErrors::of_ads(&jobs);
        let c = alone.against(&pool(4995));
        assert_eq!(
            (c.tried, c.targets, c.errors),
            (1000, 5000, 0),
            "every fifth slot"
        );
        let c = alone.against(&pool(4999));
        assert_eq!(c.errors, 1, "the one good slot was not among those tried");
        // Many ads in error share the budget: fewer targets each.
        let many = AloneErrors {
            total: 200,
            found: vec![(0, 1, jobs[0].clone()); 200],
        };
        let c = many.against_within(&pool(4999), 20_000);
        assert_eq!(
            c.tried, 100,
            "20,000 evaluations for 200 ads: every 50th slot"
        );
        assert_eq!(c.errors, 200);
    }
}
