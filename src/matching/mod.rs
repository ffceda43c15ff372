//! Matchmaking as HTCondor defines it: symmetric match of a job and a machine, and
//! the rank of one ad for another.

use crate::ad::ClassAd;
use crate::eval::{eval_in, Evaluator, Semantics};
use crate::syntax::ast::{Expr, ExprRef, Node};
use crate::values::scope::{MatchPair, Scope};
use classad_vm::{Str, Value};
use std::sync::{Arc, OnceLock};

pub mod analysis;
pub mod autocluster;
pub mod batch;
mod classify;
pub mod config;
pub mod live_clusters;
mod match_queue;
pub mod policy;
pub mod pool;
pub mod refs;
mod slot_kinds;
pub mod slot_set;

pub use autocluster::{AutoclusterBuilder, Autoclusters, SignificantAttributes, SlotSignificance};
pub use batch::Candidate;
pub(crate) use classify::exact_text;
pub use classify::{KeptPart, PartClasses};
pub use live_clusters::{LiveClusters, Placed};
pub use match_queue::{MatchQueue, QueueReader};
pub use policy::NegotiatorPolicy;
pub use pool::CompiledPool;
pub(crate) use slot_kinds::SlotKinds;
pub use slot_set::{ClassCandidates, MatchSummary, SlotSet};

/// True when `job` and `machine` match: HTCondor's `symmetricMatch`, i.e.
/// `RIGHT.requirements && LEFT.requirements` in a match ad with the job on the left,
/// so the machine's Requirements are evaluated first. Each side's Requirements must be
/// true or a non-zero number; undefined, error, a string or a missing Requirements is
/// no match.
pub fn symmetric_match(job: &Arc<ClassAd>, machine: &Arc<ClassAd>, sem: Semantics) -> bool {
    let pair = Arc::new(MatchPair {
        left: job.clone(),
        right: machine.clone(),
    });
    let scope = Scope::of_match(&pair);
    let mut ev = Evaluator::new(sem == Semantics::Htcondor);
    let r = ev.eval(symmetric_match_expr(), Some(&scope));
    matches!(r, Ok(v) if v.as_bool_equiv() == Some(true))
}

fn symmetric_match_expr() -> &'static ExprRef {
    static E: OnceLock<ExprRef> = OnceLock::new();
    E.get_or_init(|| match_expr(0))
}

/// The built-in match expression `i` of [`crate::values::scope::MATCH_EXPRS`].
fn match_expr(i: usize) -> ExprRef {
    let e = crate::syntax::parse_expr(crate::values::scope::MATCH_EXPRS[i].1)
        .expect("built-in match expression");
    ExprRef::root_of(Arc::new(e))
}

/// True when `target` satisfies `query`'s Requirements: HTCondor's
/// `IsAConstraintMatch(query, target)`, i.e. `rightMatchesLeft`
/// (`LEFT.requirements`) in a match ad with `query` on the left. The value must be
/// true or a non-zero number, as for [`symmetric_match`]; both sides accepting
/// each other is a symmetric match.
pub fn constraint_match(query: &Arc<ClassAd>, target: &Arc<ClassAd>, sem: Semantics) -> bool {
    static E: OnceLock<ExprRef> = OnceLock::new();
    let expr = E.get_or_init(|| match_expr(2));
    let pair = Arc::new(MatchPair {
        left: query.clone(),
        right: target.clone(),
    });
    let scope = Scope::of_match(&pair);
    let mut ev = Evaluator::new(sem == Semantics::Htcondor);
    matches!(ev.eval(expr, Some(&scope)), Ok(v) if v.as_bool_equiv() == Some(true))
}

/// The Rank of `my` for `other`, as HTCondor's negotiator reads it (`EvalFloat`):
/// `Rank` is evaluated with `my` as MY and `other` as TARGET; integers, reals and
/// booleans count, anything else (including a missing Rank) is 0.0.
pub fn rank(my: &Arc<ClassAd>, other: &Arc<ClassAd>, sem: Semantics) -> f64 {
    static RANK: OnceLock<ExprRef> = OnceLock::new();
    let rank_ref = RANK.get_or_init(|| {
        let e = Expr::from_parts(
            vec![Node::Attr {
                scope: None,
                name: Str::from("Rank"),
                absolute: false,
            }],
            0,
        );
        ExprRef::root_of(Arc::new(e))
    });
    match eval_in(rank_ref, my, Some(other), sem) {
        Ok(v) => rank_value(&v),
        Err(_) => 0.0,
    }
}

/// A Rank value as a number, as HTCondor's `EvalFloat` reads it: integers, reals and
/// booleans count; anything else is 0.0.
pub fn rank_value(v: &Value) -> f64 {
    match *v {
        Value::Real(r) => r,
        Value::Int(i) => i as f64,
        Value::Bool(b) => b as i64 as f64,
        _ => 0.0,
    }
}

/// The negotiator's key of `machine` for `job` (negotiator.md section 6) on the
/// reference evaluator: `NEGOTIATOR_PRE_JOB_RANK` and `NEGOTIATOR_POST_JOB_RANK`
/// with the machine as MY, and the job's [`rank`].
pub fn negotiator_key(
    job: &Arc<ClassAd>,
    machine: &Arc<ClassAd>,
    policy: &NegotiatorPolicy,
) -> batch::RankKey {
    let machine_expr = |e: &Option<ExprRef>| match e {
        Some(e) => match eval_in(e, machine, Some(job), Semantics::Htcondor) {
            Ok(v) => batch::negotiator_rank_value(&v),
            Err(_) => -f64::MAX,
        },
        None => -f64::MAX,
    };
    batch::RankKey {
        pre: machine_expr(&policy.pre_job_rank),
        rank: rank(job, machine, Semantics::Htcondor),
        post: machine_expr(&policy.post_job_rank),
    }
}
