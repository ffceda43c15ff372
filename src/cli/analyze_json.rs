//! `classad analyze --format json`: the facts of the text report as one JSON
//! object, for scripts. Counts are numbers; a constant step's count is the word
//! HTCondor prints for it (`always`, `never`, `now`, `not now`).

use super::analyze_cmd::slot_name;
use super::analyze_text::{job_status, universe_warning};
use super::match_output::job_id_of;
use crate::ad::ClassAd;
use crate::matching::analysis::attributes::Shown;
use crate::matching::analysis::steps::Matched;
use crate::matching::analysis::{JobAnalysis, Reduction, SlotAnalysis};
use crate::syntax::ast::ExprRef;
use crate::syntax::unparse_node;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// The analyses of jobs: `indices` are the jobs' places in their file, `groups`
/// (when the jobs stand for autoclusters) each one's autocluster and size.
pub fn jobs(
    indices: &[usize],
    jobs: &[Arc<ClassAd>],
    analyses: &[JobAnalysis],
    slots: &[Arc<ClassAd>],
    groups: Option<&[(u32, usize)]>,
) -> Value {
    let list: Vec<Value> = analyses
        .iter()
        .enumerate()
        .map(|(k, a)| {
            let job = &jobs[k];
            let mut v = json!({
                "job": indices[k],
                "job_id": job_id_of(job),
            });
            if let Some(g) = groups {
                v["autocluster"] = json!(g[k].0);
                v["jobs_in_autocluster"] = json!(g[k].1);
            }
            v["requirements"] = json!(a.requirements.as_ref().map(text));
            add_reduction(&mut v, a.reduction.as_ref(), "slots");
            v["conjuncts"] = a
                .conjuncts
                .iter()
                .map(|c| {
                    json!({
                        "condition": c.text,
                        "slots_matched": c.matched,
                        "sole_obstacle_for": c.sole_obstacle,
                        "suggestion": c.suggestion.as_ref().map(|s| s.to_string()),
                    })
                })
                .collect();
            v["closest_slot"] = match a.closest_slot {
                Some(s) => json!({ "slot": s, "name": slot_name(&slots[s]) }),
                None => Value::Null,
            };
            v["attributes"] = attributes(&a.attributes);
            let c = &a.counts;
            v["summary"] = json!({
                "slots": c.slots,
                "machines": c.machines,
                "rejected_by_job": c.rejected_by_job,
                "rejecting_job": c.rejecting_job,
                "matching": c.matching,
                "running_your_jobs": c.running_your_jobs,
                "serving_other_users": c.serving_other_users,
                "offline": c.offline,
                "willing": c.willing,
            });
            v["warnings"] = json!(universe_warning(job).into_iter().collect::<Vec<_>>());
            v["status"] = json!(job_status(job));
            v
        })
        .collect();
    json!({ "jobs": list })
}

/// The analyses of slots: `indices` are the slots' places in their file.
pub fn slots(indices: &[usize], slots: &[Arc<ClassAd>], analyses: &[SlotAnalysis]) -> Value {
    let list: Vec<Value> = analyses
        .iter()
        .enumerate()
        .map(|(k, a)| {
            let mut v = json!({
                "slot": indices[k],
                "name": slot_name(&slots[k]),
                "offline": a.offline,
                "requirements": a.requirements.as_ref().map(text),
            });
            add_reduction(&mut v, a.reduction.as_ref(), "autoclusters");
            v["conjuncts"] = a
                .conjuncts
                .iter()
                .map(|c| {
                    json!({
                        "condition": c.text,
                        "autoclusters_matched": c.autoclusters,
                        "jobs_matched": c.jobs,
                    })
                })
                .collect();
            v["attributes"] = attributes(&a.attributes);
            let c = &a.counts;
            v["summary"] = json!({
                "jobs": c.jobs,
                "autoclusters": c.autoclusters,
                "matching": c.matching,
                "slot_accepts": c.slot_accepts,
                "job_accepts": c.job_accepts,
            });
            v
        })
        .collect();
    json!({ "slots": list })
}

/// `steps` (as numbered) and `conditions` (the reduced table, counted in
/// `unit`), both null without a reduction.
fn add_reduction(v: &mut Value, r: Option<&Reduction>, unit: &str) {
    v["steps"] = json!(r.map(|r| &r.numbered));
    v["conditions"] = match r {
        None => Value::Null,
        Some(r) => r
            .rows
            .iter()
            .map(|row| {
                let matched = match row.matched {
                    Matched::Count(n) => json!(n),
                    other => json!(other.text()),
                };
                json!({ "step": row.step, unit: matched, "condition": row.condition })
            })
            .collect(),
    };
}

/// Attribute lines as an object, name to text (the unit is HTCondor's
/// decoration of its text, left out).
fn attributes(shown: &[Shown]) -> Value {
    let mut m = Map::new();
    for s in shown {
        m.insert(s.name.clone(), json!(s.value));
    }
    Value::Object(m)
}

fn text(e: &ExprRef) -> String {
    let mut s = String::new();
    unparse_node(&e.tree, e.id, &mut s);
    s
}
