//! What `classad match` and `classad negotiate` print besides bare indices: jobs
//! by `ClusterId.ProcId`, slots by `Name` (`--names`), and every pair with its
//! rank values as JSON (`--format json`).

use super::cycle::Cycle;
use super::json_real::real;
use crate::ad::ClassAd;
use crate::eval::{eval_attr, Semantics};
use crate::matching::batch::{Candidate, RankKey};
use crate::negotiate::{CycleKnobs, JobFacts, SubmitterNames};
use classad_vm::Value;
use serde_json::json;
use std::io::Write;
use std::sync::Arc;

/// A job's `ClusterId.ProcId` as HTCondor's tools print it, read as the
/// negotiation cycle reads it ([`JobFacts`]), so that every output names a job
/// alike.
pub fn job_id_of(ad: &ClassAd) -> String {
    let (cluster, proc) = job_id_parts(ad);
    format!("{cluster}.{proc}")
}

/// A job's `ClusterId` and `ProcId`, read as [`job_id_of`] reads them.
pub fn job_id_parts(ad: &ClassAd) -> (i64, i64) {
    let f = JobFacts::of(ad, &CycleKnobs::default(), &SubmitterNames::new());
    (f.cluster, f.proc)
}

/// The `ClusterId.ProcId` of a job's facts.
pub fn job_id(f: &JobFacts) -> String {
    format!("{}.{}", f.cluster, f.proc)
}

/// Every slot's `Name` (`None` when it is not a string).
pub fn slot_names(slots: &[Arc<ClassAd>]) -> Vec<Option<String>> {
    slots
        .iter()
        .map(
            |ad| match eval_attr(ad, "Name", None, Semantics::Htcondor) {
                Ok(Value::Str(s)) => Some(s.as_str().to_string()),
                _ => None,
            },
        )
        .collect()
}

/// How `--names` prints a slot without a string `Name`: by its index, as
/// `#<index>`, which no HTCondor slot name looks like.
pub fn slot_label(names: &[Option<String>], slot: usize) -> String {
    match names.get(slot) {
        Some(Some(n)) => n.clone(),
        _ => format!("#{slot}"),
    }
}

/// The matches of a cycle as `--names` prints them, a line per match in the
/// order made: `<ClusterId.ProcId> <slot Name>`.
pub fn write_named_matches(c: &Cycle, out: &mut dyn Write) -> std::io::Result<()> {
    // The slots by their index in the file (the table holds them in its own
    // order).
    let slots = c.pool.slots();
    let count = slots.file_index.iter().map(|&i| i as usize + 1).max();
    let mut names = vec![None; count.unwrap_or(0)];
    for (&i, name) in slots.file_index.iter().zip(slot_names(&slots.ads)) {
        names[i as usize] = name;
    }
    for m in &c.outcome.matches {
        let id = job_id(&c.facts.jobs[m.job as usize]);
        let slot = slot_label(&names, m.slot as usize);
        writeln!(out, "{id} {slot}")?;
    }
    Ok(())
}

/// One job's matching slots for `--all-pairs --format json`, best first (the
/// negotiator's order: PRE, the job's Rank, POST; ties by slot order).
pub fn job_json(
    job: usize,
    id: &str,
    cands: &[Candidate],
    names: &[Option<String>],
) -> serde_json::Value {
    let slots: Vec<serde_json::Value> = cands
        .iter()
        .map(|c| {
            let mut v = key_json(&c.key);
            v["slot"] = json!(c.slot);
            v["slot_name"] = json!(names.get(c.slot as usize).cloned().flatten());
            v
        })
        .collect();
    json!({ "job": job, "job_id": id, "slots": slots })
}

/// The three rank values of a pair, under the names `classad negotiate` uses.
fn key_json(k: &RankKey) -> serde_json::Value {
    json!({
        "pre_job_rank": real(k.pre),
        "job_rank": real(k.rank),
        "post_job_rank": real(k.post),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;

    #[test]
    fn ids_and_names_as_htcondor_tools_print_them() {
        let ads = read_ads(
            "ClusterId = 12\nProcId = 3\nName = \"slot1@h\"\n\nClusterId = \"x\"\n\n\
             ClusterId = 5 + 2\nProcId = 1.9\n",
            "t",
        )
        .unwrap();
        assert_eq!(job_id_of(&ads[0]), "12.3");
        assert_eq!(job_id_of(&ads[1]), "0.0");
        assert_eq!(job_id_of(&ads[2]), "7.1");
        let slots: Vec<Arc<ClassAd>> = ads.into_iter().map(Arc::new).collect();
        let names = slot_names(&slots);
        assert_eq!(slot_label(&names, 0), "slot1@h");
        assert_eq!(slot_label(&names, 1), "#1");
        assert_eq!(slot_label(&names, 9), "#9");
    }

    #[test]
    fn a_job_s_slots_carry_their_rank_values() {
        let key = RankKey {
            pre: 1.0,
            rank: 2.5,
            post: -3.0,
        };
        let v = job_json(
            4,
            "1.4",
            &[Candidate { slot: 2, key }],
            &[None, None, Some("s".into())],
        );
        assert_eq!(v["job_id"], "1.4");
        assert_eq!(v["slots"][0]["slot_name"], "s");
        assert_eq!(v["slots"][0]["job_rank"], 2.5);
        assert_eq!(v["slots"][0]["pre_job_rank"], 1.0);
    }
}
