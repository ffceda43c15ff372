//! What the cycle asks of a (match class, slot) pair, answered once per class by
//! the batch matcher: whether they match, and each class's candidates sorted by
//! the negotiator's key. The preemption tests of a claimed slot (section 8) are
//! worked out when a match list first meets the pair, and kept.

use super::matchlist::NO_PREEMPTION_RANK;
use crate::ad::ClassAd;
use crate::eval::{eval_in, Semantics};
use crate::matching::batch::{negotiator_rank_value, BatchMatcher, Candidate};
use crate::matching::policy::policy_expr;
use crate::matching::NegotiatorPolicy;
use crate::syntax::ast::ExprRef;
use classad_vm::Value;
use std::sync::{Arc, OnceLock};

/// The preemption tests of a claimed slot for a job.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PreemptTests {
    /// `MY.Rank > MY.CurrentRank` is true (slot as MY, job as TARGET).
    pub rank_preferred: bool,
    /// `MY.Rank >= MY.CurrentRank` is true.
    pub rank_at_least: bool,
    /// `PREEMPTION_REQUIREMENTS` is true (true when unset).
    pub requirements: bool,
    /// `PREEMPTION_RANK` as the negotiator keeps it.
    pub rank: f64,
}

fn condition(text: &'static str, cell: &'static OnceLock<ExprRef>) -> &'static ExprRef {
    cell.get_or_init(|| policy_expr(text).expect("built-in condition"))
}

/// HTCondor's `EvalExprToBool(...) && IsBooleanValue(b) && b`: a boolean true.
fn is_true(e: &ExprRef, slot: &Arc<ClassAd>, job: &Arc<ClassAd>) -> bool {
    matches!(
        eval_in(e, slot, Some(job), Semantics::Htcondor),
        Ok(Value::Bool(true))
    )
}

impl PreemptTests {
    /// The tests of `slot` for `job` under `policy`, on the reference evaluator.
    pub fn of(slot: &Arc<ClassAd>, job: &Arc<ClassAd>, policy: &NegotiatorPolicy) -> PreemptTests {
        static GT: OnceLock<ExprRef> = OnceLock::new();
        static GE: OnceLock<ExprRef> = OnceLock::new();
        PreemptTests {
            rank_preferred: is_true(condition("MY.Rank > MY.CurrentRank", &GT), slot, job),
            rank_at_least: is_true(condition("MY.Rank >= MY.CurrentRank", &GE), slot, job),
            requirements: policy
                .preemption_requirements
                .as_ref()
                .is_none_or(|e| is_true(e, slot, job)),
            rank: match &policy.preemption_rank {
                Some(e) => match eval_in(e, slot, Some(job), Semantics::Htcondor) {
                    Ok(v) => negotiator_rank_value(&v),
                    Err(_) => -f64::MAX,
                },
                None => -f64::MAX,
            },
        }
    }
}

impl Default for PreemptTests {
    fn default() -> PreemptTests {
        PreemptTests {
            rank_preferred: false,
            rank_at_least: false,
            requirements: false,
            rank: NO_PREEMPTION_RANK,
        }
    }
}

/// Every class's matches and candidates.
pub struct ClassPairs {
    /// Per class, per block of 64 slots, which match.
    matches: Vec<Vec<u64>>,
    /// Per class, its candidates best first.
    candidates: Vec<Vec<Candidate>>,
    preempt: ahash::AHashMap<(u32, u32), PreemptTests>,
}

impl ClassPairs {
    /// Runs `matcher` over every class.
    pub fn from_matcher(matcher: &mut BatchMatcher) -> ClassPairs {
        let n = matcher.class_count();
        let mut matches = Vec::with_capacity(n);
        let mut candidates = Vec::with_capacity(n);
        let _ = matcher.for_each_class(|_, m, c| {
            matches.push(m.to_vec());
            candidates.push(c.to_vec());
            Ok::<(), ()>(())
        });
        ClassPairs {
            matches,
            candidates,
            preempt: ahash::AHashMap::new(),
        }
    }

    /// True when class `c` and slot `s` match.
    pub fn matches(&self, c: u32, s: u32) -> bool {
        let m = &self.matches[c as usize];
        m.get(s as usize / 64)
            .is_some_and(|b| b & (1 << (s % 64)) != 0)
    }

    /// Class `c`'s candidates, best first, ties by slot order.
    pub fn candidates(&self, c: u32) -> &[Candidate] {
        &self.candidates[c as usize]
    }

    /// The preemption tests of slot `s` for class `c`, whose representative is
    /// `job`, worked out once.
    pub fn preempt(
        &mut self,
        c: u32,
        s: u32,
        slot: &Arc<ClassAd>,
        job: &Arc<ClassAd>,
        policy: &NegotiatorPolicy,
    ) -> PreemptTests {
        *self
            .preempt
            .entry((c, s))
            .or_insert_with(|| PreemptTests::of(slot, job, policy))
    }
}
