//! What the cycle needs of each job (negotiator.md sections 1 and 5): its
//! submitter, whether it is idle, its place in its submitter's order, whether it
//! passes `NEGOTIATOR_JOB_CONSTRAINT`, and its weight as group demand. Worked out
//! once per job, so a queue read in parts can drop each ad once clustered.

use super::knobs::CycleKnobs;
use crate::ad::ClassAd;
use crate::eval::{eval_in, Semantics};
use crate::syntax::ast::{ExprRef, Node};
use classad_vm::Value;
use std::sync::Arc;

/// One job's facts.
#[derive(Clone, Debug, PartialEq)]
pub struct JobFacts {
    /// `AccountingGroup`, else `User`, else `Owner` (strings); `None` when the job
    /// has none of them (it is ignored).
    pub submitter: Option<Arc<str>>,
    /// `JobStatus` is 1 (idle) or missing.
    pub idle: bool,
    /// `JobPrio` (0 when missing).
    pub prio: i64,
    /// `ClusterId` (0 when missing).
    pub cluster: i64,
    /// `ProcId` (0 when missing).
    pub proc: i64,
    /// `NEGOTIATOR_JOB_CONSTRAINT` holds (true when unset).
    pub passes_constraint: bool,
    /// `SLOT_WEIGHT` evaluated with the job's requests standing for the slot's
    /// resources (group demand, section 4(a)); 1 with slot weights off.
    pub weight: f64,
}

impl JobFacts {
    /// The facts of `job` under `knobs`.
    pub fn of(job: &ClassAd, knobs: &CycleKnobs) -> JobFacts {
        let mut shared: Option<Arc<ClassAd>> = None;
        let mut value = |name: &str| -> Value {
            let Some(e) = job.get(name) else {
                return Value::Undefined;
            };
            if let Node::Lit(v) = e.node() {
                return v.clone();
            }
            let ad = shared.get_or_insert_with(|| Arc::new(job.clone()));
            eval_in(&e.to_expr_ref(), ad, None, Semantics::Htcondor).unwrap_or(Value::Error)
        };
        let int = |v: Value| match v {
            Value::Int(i) => i,
            Value::Real(r) if r.is_finite() => r as i64,
            Value::Bool(b) => b as i64,
            _ => 0,
        };
        let submitter = ["AccountingGroup", "User", "Owner"]
            .iter()
            .find_map(|n| match value(n) {
                Value::Str(s) => Some(Arc::from(s.as_str())),
                _ => None,
            });
        let idle = match value("JobStatus") {
            Value::Undefined => true,
            Value::Int(1) => true,
            Value::Real(r) => r == 1.0,
            _ => false,
        };
        let prio = int(value("JobPrio"));
        let cluster = int(value("ClusterId"));
        let proc = int(value("ProcId"));
        let requests = if knobs.groups.is_empty() || !knobs.use_slot_weights {
            None
        } else {
            Some([
                ("Cpus", value("RequestCpus"), Value::Int(1)),
                ("Memory", value("RequestMemory"), Value::Int(0)),
                ("Disk", value("RequestDisk"), Value::Int(0)),
                ("GPUs", value("RequestGPUs"), Value::Int(0)),
            ])
        };
        let passes_constraint = match &knobs.policy.job_constraint {
            None => true,
            Some(c) => {
                let ad = shared.get_or_insert_with(|| Arc::new(job.clone()));
                matches!(
                    eval_in(c, ad, None, Semantics::Htcondor).map(|v| v.as_bool_equiv()),
                    Ok(Some(true))
                )
            }
        };
        let weight = match requests {
            None => 1.0,
            Some(rs) => demand_weight(&knobs.slot_weight, rs),
        };
        JobFacts {
            submitter,
            idle,
            prio,
            cluster,
            proc,
            passes_constraint,
            weight,
        }
    }
}

/// `SLOT_WEIGHT` in an ad whose resources are a job's requests (missing: 1 CPU,
/// nothing else); 1 when it is not a number.
fn demand_weight(slot_weight: &ExprRef, requests: [(&str, Value, Value); 4]) -> f64 {
    let mut ad = ClassAd::new();
    for (name, v, missing) in requests {
        let v = if v.is_undefined() { missing } else { v };
        ad.insert_expr(name, crate::syntax::ast::Expr::literal(v));
    }
    let ad = Arc::new(ad);
    match eval_in(slot_weight, &ad, None, Semantics::Htcondor) {
        Ok(v) => v.as_f64_promoted().filter(|w| *w >= 0.0).unwrap_or(1.0),
        Err(_) => 1.0,
    }
}

/// A submitter's jobs in the order its requests are made (section 5): `JobPrio`
/// descending, then `ClusterId`, `ProcId` ascending, then queue order.
pub fn request_order(jobs: &mut [u32], facts: &[JobFacts]) {
    // The keys side by side (the facts are far apart); every key is distinct.
    let mut keyed: Vec<(std::cmp::Reverse<i64>, i64, i64, u32)> = jobs
        .iter()
        .map(|&j| {
            let f = &facts[j as usize];
            (std::cmp::Reverse(f.prio), f.cluster, f.proc, j)
        })
        .collect();
    keyed.sort_unstable();
    for (slot, k) in jobs.iter_mut().zip(keyed) {
        *slot = k.3;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;

    fn facts(text: &str, knobs: &CycleKnobs) -> Vec<JobFacts> {
        read_ads(text, "jobs")
            .unwrap()
            .iter()
            .map(|j| JobFacts::of(j, knobs))
            .collect()
    }

    #[test]
    fn submitter_status_and_order() {
        let k = CycleKnobs::default();
        let f = facts(
            "Owner = \"o\"\nUser = \"u@d\"\nAccountingGroup = \"g.u\"\nJobStatus = 2\n\n\
             Owner = \"o\"\nUser = strcat(\"u@\", \"d\")\nJobPrio = 5\nClusterId = 3\n\n\
             Owner = \"o\"\nClusterId = 2\nProcId = 1\n\n\
             ClusterId = 2\n",
            &k,
        );
        let names: Vec<Option<&str>> = f.iter().map(|f| f.submitter.as_deref()).collect();
        assert_eq!(names, [Some("g.u"), Some("u@d"), Some("o"), None]);
        assert_eq!(
            f.iter().map(|f| f.idle).collect::<Vec<_>>(),
            [false, true, true, true]
        );
        let mut order = vec![0, 1, 2, 3];
        request_order(&mut order, &f);
        assert_eq!(order, [1, 0, 3, 2]);
    }

    #[test]
    fn job_constraint_and_demand_weight() {
        let text = "RequestCpus = 4\nRequestMemory = 100\nX = 1\n\nRequestMemory = 7\n";
        let c = crate::matching::config::Config::parse(
            "GROUP_NAMES = g\nNEGOTIATOR_JOB_CONSTRAINT = X == 1\nSLOT_WEIGHT = Cpus + Memory\n",
            "c",
        )
        .unwrap();
        let (k, _) = CycleKnobs::from_config(&c).unwrap();
        let f = facts(text, &k);
        assert_eq!(
            (f[0].passes_constraint, f[1].passes_constraint),
            (true, false)
        );
        assert_eq!((f[0].weight, f[1].weight), (104.0, 8.0));
    }
}
