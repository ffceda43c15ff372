//! Prints the differential generator's cases (`tests/gen`) as JSON lines with our
//! results, for `tests/htcondor_diff.py` to hold against HTCondor's library:
//! `diff_cases SEED EXPRS PAIRS`.
//!
//! `SEED` is the master seed (decimal, `0x` hex, or `default` for the one
//! `tests/agreement/differential.rs` uses). `EXPRS` and `PAIRS` select expression and ad-pair
//! cases by index: `N` for cases `0..N`, or `START:COUNT`, so a long run can be split.
//!
//! Every line is one JSON object. An expression case:
//!
//! ```text
//! {"kind": "expr", "seed": S, "index": I, "expr": "...", "ours": "value 3"}
//! ```
//!
//! A pair case (the job and machine are new-syntax ad texts):
//!
//! ```text
//! {"kind": "pair", "seed": S, "index": I, "job": "[...]", "machine": "[...]",
//!  "exprs": [{"expr": "...", "my": "job", "target": "machine" | null, "ours": ...}],
//!  "attrs": [{"ad": "job", "name": "Rank", "text": "TARGET.Memory", "ours": ...}],
//!  "match": true, "job_rank": "1024.0", "machine_rank": "NaN"}
//! ```
//!
//! An outcome (`ours`) is `value <v>` with the value printed as HTCondor's `repr`
//! prints it, or `eval_failure` (HTCondor's "failed to evaluate"), the format of
//! `tests/conformance/eval.jsonl`. `attrs` evaluates every attribute of each ad in
//! that ad, matched against the other. A rank is Rust's `{:?}` of the f64 (`NaN`,
//! `inf`, `-0.0`, ...; Python's `float()` reads it). Everything is computed by the
//! reference evaluator and by the VM; where they differ (they should not:
//! `tests/agreement/differential.rs`) the line also holds `"vm": ...` beside the outcome.
//!
//! Set `TZ=UTC` as the oracle does: some builtins read the local time zone.

#[allow(dead_code, unused_imports)]
#[path = "../gen/mod.rs"]
mod gen;

use classad::ad::parse_classad;
use classad::ad::ClassAd;
use classad::engine::{eval_alone_with, eval_in_with, Engine};
use classad::eval::{Fail, Semantics};
use classad::matching::{rank, symmetric_match, CompiledPool};
use classad::syntax::ast::ExprRef;
use classad::syntax::parse_expr;
use classad::syntax::unparse::unparse_node;
use classad::values::display::unparse_value;
use classad::Value;
use classad_vm::Machine;
use gen::Sides;
use serde_json::{json, Map, Value as Json};
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::process::ExitCode;
use std::sync::Arc;

const USAGE: &str = "usage: diff_cases SEED EXPRS PAIRS
  SEED   master seed: decimal, 0x hex, or `default`
  EXPRS  expression cases: N (0..N) or START:COUNT
  PAIRS  ad-pair cases: N (0..N) or START:COUNT";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let parsed = match args.as_slice() {
        [seed, exprs, pairs] => parse_seed(seed).zip(parse_range(exprs).zip(parse_range(pairs))),
        _ => None,
    };
    let Some((seed, (exprs, pairs))) = parsed else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for index in exprs {
        let line = expr_line(seed, index);
        if writeln!(out, "{line}").is_err() {
            return ExitCode::FAILURE;
        }
    }
    for index in pairs {
        let line = pair_line(seed, index);
        if writeln!(out, "{line}").is_err() {
            return ExitCode::FAILURE;
        }
    }
    if out.flush().is_err() {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn parse_seed(s: &str) -> Option<u64> {
    if s == "default" {
        return Some(gen::DEFAULT_MASTER_SEED);
    }
    let s = s.replace('_', "");
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

fn parse_range(s: &str) -> Option<Range<usize>> {
    match s.split_once(':') {
        Some((start, count)) => {
            let (start, count): (usize, usize) = (start.parse().ok()?, count.parse().ok()?);
            Some(start..start.checked_add(count)?)
        }
        None => Some(0..s.parse().ok()?),
    }
}

/// An outcome in the format of `tests/conformance/eval.jsonl`.
fn outcome(r: Result<Value, Fail>) -> String {
    match r {
        Ok(v) => format!("value {}", unparse_value(&v)),
        Err(Fail) => "eval_failure".to_string(),
    }
}

/// Puts the reference outcome at `key`, and the VM's beside it when they differ.
fn put(obj: &mut Map<String, Json>, key: &str, reference: String, vm: String) {
    if vm != reference {
        obj.insert("vm".into(), Json::from(vm));
    }
    obj.insert(key.into(), Json::from(reference));
}

fn expr_line(seed: u64, index: usize) -> Json {
    let case = gen::expr_case(seed, index);
    let e = parse_expr(&case.text).expect("generated expressions parse");
    let sem = Semantics::Htcondor;
    let mut obj = Map::new();
    obj.insert("kind".into(), "expr".into());
    obj.insert("seed".into(), seed.into());
    obj.insert("index".into(), index.into());
    obj.insert("expr".into(), case.text.clone().into());
    put(
        &mut obj,
        "ours",
        outcome(eval_alone_with(Engine::Reference, &e, sem)),
        outcome(eval_alone_with(Engine::Vm, &e, sem)),
    );
    Json::Object(obj)
}

fn side_names(sides: Sides) -> (&'static str, Option<&'static str>) {
    match sides {
        Sides::JobMachine => ("job", Some("machine")),
        Sides::MachineJob => ("machine", Some("job")),
        Sides::JobAlone => ("job", None),
    }
}

/// A rank as text that Python's `float()` reads, NaN and infinities included.
fn rank_text(r: f64) -> String {
    format!("{r:?}")
}

fn pair_line(seed: u64, index: usize) -> Json {
    let case = gen::pair_case(seed, index);
    let sem = Semantics::Htcondor;
    let ad = |t: &str| Arc::new(parse_classad(t).expect("generated ads parse"));
    let (job, machine): (Arc<ClassAd>, Arc<ClassAd>) = (ad(&case.job), ad(&case.machine));
    let of = |name: &str| if name == "job" { &job } else { &machine };

    let mut exprs = Vec::new();
    for x in &case.exprs {
        let e = ExprRef::root_of(Arc::new(
            parse_expr(&x.text).expect("generated text parses"),
        ));
        let (my, target) = side_names(x.sides);
        let mut obj = Map::new();
        obj.insert("expr".into(), x.text.clone().into());
        obj.insert("my".into(), my.into());
        obj.insert("target".into(), target.into());
        let (m, t) = (of(my), target.map(of));
        put(
            &mut obj,
            "ours",
            outcome(eval_in_with(Engine::Reference, &e, m, t, sem)),
            outcome(eval_in_with(Engine::Vm, &e, m, t, sem)),
        );
        exprs.push(Json::Object(obj));
    }

    let mut attrs = Vec::new();
    for (my, other) in [("job", "machine"), ("machine", "job")] {
        let (m, o) = (of(my), of(other));
        for (name, e) in m.iter() {
            let e = &e.to_expr_ref();
            let mut obj = Map::new();
            obj.insert("ad".into(), my.into());
            obj.insert("name".into(), name.as_str().into());
            let mut text = String::new();
            unparse_node(&e.tree, e.id, &mut text);
            obj.insert("text".into(), text.into());
            put(
                &mut obj,
                "ours",
                outcome(eval_in_with(Engine::Reference, e, m, Some(o), sem)),
                outcome(eval_in_with(Engine::Vm, e, m, Some(o), sem)),
            );
            attrs.push(Json::Object(obj));
        }
    }

    let pool = CompiledPool::new(std::slice::from_ref(&job), std::slice::from_ref(&machine));
    let mut vm = Machine::new();
    let matched = symmetric_match(&job, &machine, sem);
    let job_rank = rank(&job, &machine, sem);
    let machine_rank = rank(&machine, &job, sem);
    let vm_results = (
        pool.symmetric_match(&mut vm, 0, 0),
        rank_text(pool.rank(&mut vm, 0, 0, true)),
        rank_text(pool.rank(&mut vm, 0, 0, false)),
    );
    let ours = (matched, rank_text(job_rank), rank_text(machine_rank));

    let mut obj = Map::new();
    obj.insert("kind".into(), "pair".into());
    obj.insert("seed".into(), seed.into());
    obj.insert("index".into(), index.into());
    obj.insert("job".into(), case.job.clone().into());
    obj.insert("machine".into(), case.machine.clone().into());
    obj.insert("exprs".into(), exprs.into());
    obj.insert("attrs".into(), attrs.into());
    obj.insert("match".into(), ours.0.into());
    obj.insert("job_rank".into(), ours.1.clone().into());
    obj.insert("machine_rank".into(), ours.2.clone().into());
    if vm_results != ours {
        obj.insert(
            "vm".into(),
            json!({"match": vm_results.0, "job_rank": vm_results.1, "machine_rank": vm_results.2}),
        );
    }
    Json::Object(obj)
}
