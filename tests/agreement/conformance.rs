//! Conformance with HTCondor 25: every case in `tests/conformance/*.jsonl` (made by
//! `tests/conformance/generate.py` from HTCondor's own library) must give HTCondor's
//! answer, except the documented deviations in `tests/conformance/deviations.jsonl`,
//! which must still deviate (so the list cannot go stale).

use classad::ad::json::{parse_json_ads, unparse_ad_json};
use classad::ad::read::detect;
use classad::ad::xml::{parse_xml_ads, write_ads_xml};
use classad::ad::{parse_classad, unparse_ad, unparse_ad_old, unparse_ad_pretty};
use classad::ad::{read_ads, read_ads_as, ClassAd, Format};
use classad::engine::{eval_alone_with, eval_in_with, Engine};
use classad::eval::Semantics;
use classad::matching::{rank, symmetric_match, CompiledPool};
use classad::syntax::ast::ExprRef;
use classad::syntax::{parse_expr, unparse};
use classad::values::display::unparse_value;
use classad_vm::Machine;
use serde_json::Value as Json;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance")
        .join(name)
}

fn lines(name: &str) -> Vec<Json> {
    std::fs::read_to_string(data(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{name}: {e}: {l}")))
        .collect()
}

/// Case keys documented as deliberate deviations from HTCondor, with the reason.
fn deviations(file: &str) -> BTreeSet<String> {
    lines("deviations.jsonl")
        .into_iter()
        .filter(|d| d["file"] == file)
        .map(|d| {
            assert!(
                d["reason"].as_str().is_some_and(|r| r.len() > 10),
                "deviation without a reason: {d}"
            );
            d["key"].as_str().expect("key").to_string()
        })
        .collect()
}

/// Checks that failures are exactly the documented deviations; prints the rest.
fn judge(file: &str, total: usize, failures: Vec<(String, String)>) {
    let allowed = deviations(file);
    let failed: BTreeSet<String> = failures.iter().map(|(k, _)| k.clone()).collect();
    let unexpected: Vec<&(String, String)> = failures
        .iter()
        .filter(|(k, _)| !allowed.contains(k))
        .collect();
    let stale: Vec<&String> = allowed.iter().filter(|k| !failed.contains(*k)).collect();
    let show = std::env::var("CONFORMANCE_SHOW")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    for (_, msg) in unexpected.iter().take(show) {
        eprintln!("{msg}");
    }
    eprintln!(
        "{file}: {} cases, {} pass, {} documented deviations, {} unexpected failures, {} stale deviations",
        total,
        total - failures.len(),
        allowed.len() - stale.len(),
        unexpected.len(),
        stale.len()
    );
    for k in &stale {
        eprintln!("stale deviation (now passes): {k}");
    }
    assert!(
        unexpected.is_empty() && stale.is_empty(),
        "{file}: conformance failures"
    );
}

fn utc() {
    // HTCondor's data was generated with TZ=UTC; local-time functions must agree.
    std::env::set_var("TZ", "UTC");
}

fn ad_of(j: &Json) -> Option<Arc<ClassAd>> {
    j.as_str()
        .map(|s| Arc::new(parse_classad(s).unwrap_or_else(|e| panic!("ad {s}: {e}"))))
}

fn eval_outcome(
    engine: Engine,
    expr: &str,
    my: Option<&Arc<ClassAd>>,
    target: Option<&Arc<ClassAd>>,
) -> String {
    let e = match parse_expr(expr) {
        Ok(e) => e,
        Err(_) => return "parse_error".into(),
    };
    let r = match my {
        None => eval_alone_with(engine, &e, Semantics::Htcondor),
        Some(my) => eval_in_with(
            engine,
            &ExprRef::root_of(Arc::new(e)),
            my,
            target,
            Semantics::Htcondor,
        ),
    };
    match r {
        Ok(v) => format!("value {}", unparse_value(&v)),
        Err(_) => "eval_failure".into(),
    }
}

#[test]
fn eval_cases() {
    eval_cases_on("eval.jsonl", Engine::Reference);
}

#[test]
fn eval_cases_on_the_vm() {
    eval_cases_on("eval.jsonl", Engine::Vm);
}

/// PCRE2 constructs, made by `tests/conformance/generate_regex.py`.
#[test]
fn regex_cases() {
    eval_cases_on("regex.jsonl", Engine::Reference);
}

#[test]
fn regex_cases_on_the_vm() {
    eval_cases_on("regex.jsonl", Engine::Vm);
}

/// The VM agreeing would prove little if it handed most cases to the reference
/// evaluator: most conformance expressions must run natively.
#[test]
fn most_eval_cases_run_natively_on_the_vm() {
    utc();
    let cases = lines("eval.jsonl");
    let (mut parsed, mut native) = (0, 0);
    for c in &cases {
        let Ok(e) = parse_expr(c["expr"].as_str().unwrap()) else {
            continue;
        };
        parsed += 1;
        let my = ad_of(&c["my"]);
        let target = ad_of(&c["target"]);
        let e = ExprRef::root_of(Arc::new(e));
        let run = classad::compile::try_eval(&e, my.as_ref(), target.as_ref());
        if !matches!(run, Err(classad_vm::Halt::NeedReference)) {
            native += 1;
        }
    }
    eprintln!("VM ran {native} of {parsed} parsed conformance expressions natively");
    assert!(
        native * 100 >= parsed * 85,
        "only {native} of {parsed} ran natively"
    );
}

/// The conformance expressions through every tier of the matcher: each one,
/// as a job's `Requirements` (MY the case's ad) against a slot (TARGET the
/// case's), decided by the bit-mask tier where it can, by the value lanes and
/// the machine pair by pair (`CompiledPool::all_pairs`, `symmetric_match`)
/// where it cannot, and each against the reference evaluator's symmetric match.
/// What the mask tier leaves to the lanes, and what the machine hands to the
/// reference evaluator, is reported; both must stay a minority.
#[test]
fn eval_cases_through_every_tier_of_the_matcher() {
    use classad::compile::host::VmHost;
    use classad_vm::{ColumnStore, CompiledAd};
    utc();
    let mut cases = lines("eval.jsonl");
    cases.extend(lines("regex.jsonl"));
    let (mut tried, mut on_masks, mut to_reference) = (0, 0, 0);
    let mut disagreements = Vec::new();
    for c in &cases {
        let expr = c["expr"].as_str().unwrap();
        let lower = expr.to_ascii_lowercase();
        // A case that reads Requirements would read the one put in; one that
        // reads the clock or a random number may change between two tiers.
        if ["requirements", "time", "random"]
            .iter()
            .any(|w| lower.contains(w))
        {
            continue;
        }
        let Ok(e) = parse_expr(expr) else {
            continue;
        };
        let with_requirements = |ad: Option<Arc<ClassAd>>, r: classad::syntax::ast::Expr| {
            let mut ad = ad.map(|a| (*a).clone()).unwrap_or_default();
            ad.insert_expr("Requirements", r);
            Arc::new(ad)
        };
        let job = with_requirements(ad_of(&c["my"]), e.clone());
        let slot = with_requirements(ad_of(&c["target"]), parse_expr("true").unwrap());
        tried += 1;
        let want = symmetric_match(&job, &slot, Semantics::Htcondor);
        let pool = CompiledPool::new(std::slice::from_ref(&job), std::slice::from_ref(&slot));
        let mut vm = Machine::new();
        let pairs = pool.all_pairs(&mut vm);
        let one = pool.symmetric_match(&mut vm, 0, 0);
        let requirements = pool.slots.get("Requirements").expect("interned");
        let targets: Vec<&CompiledAd> = pool.machines.iter().map(|m| &m.vm).collect();
        let mut store = ColumnStore::new();
        let mut block = store.block(&targets);
        let (verdicts, unsure) = vm.mask_verdicts(
            &pool.jobs[0].vm,
            requirements,
            2,
            &mut block,
            u64::MAX,
            &mut VmHost,
        );
        let masks = (unsure == 0).then_some(verdicts.yes & 1 == 1);
        if masks.is_some() {
            on_masks += 1;
        }
        let run = classad::compile::try_eval(
            &job.get("Requirements").unwrap().to_expr_ref(),
            Some(&job),
            Some(&slot),
        );
        if matches!(run, Err(classad_vm::Halt::NeedReference)) {
            to_reference += 1;
        }
        let got = (pairs == [(0, 0)], one, masks.unwrap_or(want));
        if got != (want, want, want) {
            disagreements.push(format!(
                "{expr:?} my={} target={}: reference {want}, all_pairs {}, pair {}, masks {:?}",
                c["my"], c["target"], got.0, got.1, masks
            ));
        }
    }
    eprintln!(
        "of {tried} conformance expressions as Requirements: {on_masks} decided on the mask \
         tier, {} left to the value lanes and the machine; {to_reference} handed to the \
         reference evaluator",
        tried - on_masks
    );
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    assert!(tried > 1000, "only {tried} cases tried");
    assert!(
        to_reference * 100 <= tried * 15,
        "{to_reference} of {tried} to the reference"
    );
}

fn eval_cases_on(file: &str, engine: Engine) {
    utc();
    let cases = lines(file);
    let mut failures = Vec::new();
    for c in &cases {
        let expr = c["expr"].as_str().unwrap();
        let my = ad_of(&c["my"]);
        let target = ad_of(&c["target"]);
        let want = match c["outcome"].as_str().unwrap() {
            "value" => format!("value {}", c["result"].as_str().unwrap()),
            other => other.to_string(),
        };
        let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            eval_outcome(engine, expr, my.as_ref(), target.as_ref())
        }))
        .unwrap_or_else(|_| "PANIC".into());
        if got != want {
            let key = format!("{expr} | my={} | target={}", c["my"], c["target"]);
            failures.push((
                key,
                format!(
                    "EVAL {expr:?} my={} target={}\n   want {want}\n   got  {got}",
                    c["my"], c["target"]
                ),
            ));
        }
    }
    judge(file, cases.len(), failures);
}

#[test]
fn unparse_cases() {
    let cases = lines("unparse.jsonl");
    let mut failures = Vec::new();
    for c in &cases {
        let expr = c["expr"].as_str().unwrap();
        let want = if c["parse_error"] == true {
            "parse_error".to_string()
        } else {
            c["new"].as_str().unwrap().to_string()
        };
        let got = match parse_expr(expr) {
            Ok(e) => unparse(&e),
            Err(_) => "parse_error".into(),
        };
        if got != want {
            failures.push((
                expr.to_string(),
                format!("UNPARSE {expr:?}\n   want {want:?}\n   got  {got:?}"),
            ));
        }
    }
    judge("unparse.jsonl", cases.len(), failures);
}

#[test]
fn ad_cases() {
    let cases = lines("ads.jsonl");
    let mut failures = Vec::new();
    for c in &cases {
        if let Some(s) = c["input_old_file"].as_str() {
            // A file of several ads: every ad HTCondor's file iterator gives.
            let got = match read_ads_as(s, "case", Format::Old) {
                Ok(ads) => Json::from(ads.iter().map(unparse_ad).collect::<Vec<_>>()),
                Err(e) => Json::from(format!("error: {e}")),
            };
            let want = if c["parse_error"] == true {
                Json::from("parse_error")
            } else {
                c["ads"].clone()
            };
            if got != want && !(c["parse_error"] == true && got.to_string().starts_with("\"error"))
            {
                failures.push((
                    format!("{s} | ads"),
                    format!("AD FILE {s:?}\n   want {want}\n   got  {got}"),
                ));
            }
            continue;
        }
        let (key, parsed) = if let Some(s) = c["input"].as_str() {
            (s, parse_classad(s).map_err(|e| e.to_string()))
        } else if let Some(s) = c["input_old"].as_str() {
            (
                s,
                read_ads_as(s, "case", Format::Old)
                    .map_err(|e| e.to_string())
                    .map(|mut v| {
                        if v.is_empty() {
                            ClassAd::new()
                        } else {
                            v.remove(0)
                        }
                    }),
            )
        } else {
            let s = c["input_json"].as_str().unwrap();
            (
                s,
                parse_json_ads(s).map_err(|e| e.to_string()).map(|mut v| {
                    if v.is_empty() {
                        ClassAd::new()
                    } else {
                        v.remove(0)
                    }
                }),
            )
        };
        let mut check = |what: &str, want: &Json, got: String| {
            if let Some(w) = want.as_str() {
                if w != got {
                    failures.push((
                        format!("{key} | {what}"),
                        format!("AD {what} {key:?}\n   want {w:?}\n   got  {got:?}"),
                    ));
                }
            }
        };
        match parsed {
            Err(_) if c["parse_error"] == true => {}
            Err(e) => check("parse", &Json::from("ok"), format!("error: {e}")),
            Ok(ad) if c["parse_error"] == true => {
                check("parse", &Json::from("parse_error"), unparse_ad(&ad))
            }
            Ok(ad) => {
                check("repr", &c["repr"], unparse_ad(&ad));
                check("pretty", &c["pretty"], unparse_ad_pretty(&ad));
                check("old", &c["old"], unparse_ad_old(&ad));
                check("json", &c["json"], unparse_ad_json(&ad));
            }
        }
    }
    judge("ads.jsonl", cases.len(), failures);
}

/// An XML input of `xml.jsonl`: its text (built from the depth for the deep ones,
/// which would be large as data) and its key in `deviations.jsonl`.
fn xml_input(c: &Json) -> Option<(String, String)> {
    if let Some(text) = c["input_xml"].as_str() {
        return Some((text.to_string(), text.to_string()));
    }
    let depth = c["input_xml_list_depth"].as_u64()? as usize;
    let text = format!(
        "<c><a n=\"x\">{}<i>1</i>{}</a></c>",
        "<l>".repeat(depth),
        "</l>".repeat(depth)
    );
    Some((text, format!("lists nested {depth} deep")))
}

/// HTCondor's reading of a case: its ads, or `error` when it failed, hung or
/// crashed (after the ads it gave before; ours gives all or nothing).
fn htcondor_xml_reading(c: &Json) -> String {
    if c["error"] == true || c["htcondor"].is_string() {
        return "error".into();
    }
    let ads: Vec<&str> = c["ads"]
        .as_array()
        .expect("ads")
        .iter()
        .map(|a| a.as_str().expect("an ad"))
        .collect();
    format!("{ads:?}")
}

fn our_xml_reading(ads: Result<Vec<ClassAd>, String>) -> String {
    match ads {
        Ok(ads) => format!("{:?}", ads.iter().map(unparse_ad).collect::<Vec<_>>()),
        Err(_) => "error".into(),
    }
}

/// XML ads (`xml.jsonl`, made by `generate_xml.py`): we read each input as HTCondor
/// does, or refuse it where it fails; the auto-detected inputs are read as XML
/// whatever their first line; and the ads we print as XML read back, in HTCondor
/// and in ours, as the ads printed.
#[test]
fn xml_cases() {
    utc();
    let cases = lines("xml.jsonl");
    let mut failures = Vec::new();
    let mut stale = Vec::new();
    for c in &cases {
        if let Some((text, key)) = xml_input(c) {
            let want = htcondor_xml_reading(c);
            let got = our_xml_reading(parse_xml_ads(&text).map_err(|e| e.to_string()));
            if got != want {
                failures.push((
                    key.clone(),
                    format!("XML {key:?}\n   want {want}\n   got  {got}"),
                ));
            }
        } else if let Some(text) = c["input_auto"].as_str() {
            // HTCondor's auto-detection gives its first ad (or none); we detect
            // XML from the first `<` and read every ad.
            let want = match &c["first_ad"] {
                Json::String(ad) => ad.clone(),
                _ => "no ad".into(),
            };
            assert_eq!(detect(text), Format::Xml, "{text:?}");
            let got = match read_ads(text, "case") {
                Ok(ads) if !ads.is_empty() => unparse_ad(&ads[0]),
                Ok(_) => "no ad".into(),
                Err(e) => format!("error: {e}"),
            };
            if got != want {
                let key = format!("auto | {text}");
                failures.push((
                    key.clone(),
                    format!("AUTO {text:?}\n   want {want}\n   got  {got}"),
                ));
            }
        } else {
            let text = c["write"].as_str().expect("an input key");
            let ad = parse_classad(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let mut printed = Vec::new();
            write_ads_xml(std::iter::once(&ad), &mut printed).unwrap();
            let printed = String::from_utf8(printed).unwrap();
            if printed != c["xml"].as_str().expect("xml") {
                stale.push(format!("{text}\n   data {}\n   now  {printed}", c["xml"]));
                continue;
            }
            // HTCondor reads our XML as the ad printed, and we read it as HTCondor.
            let theirs = htcondor_xml_reading(c);
            let original = format!("{:?}", [unparse_ad(&ad)]);
            let ours = our_xml_reading(parse_xml_ads(&printed).map_err(|e| e.to_string()));
            if theirs != original || ours != theirs {
                let key = format!("write | {text}");
                failures.push((
                    key.clone(),
                    format!("WRITE {text:?}\n   HTCondor reads {theirs}\n   we read       {ours}"),
                ));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "xml.jsonl holds XML our writer no longer prints; run tests/conformance/generate_xml.py:\n{}",
        stale.join("\n")
    );
    judge("xml.jsonl", cases.len(), failures);
}

#[test]
fn pool_matches_and_ranks() {
    let mut failures = Vec::new();
    let mut total = 0;
    for pool in ["pool1", "pool2", "pool3"] {
        let read = |kind: &str| -> Vec<Arc<ClassAd>> {
            let name = format!("pools/{pool}.{kind}.ads");
            let text = std::fs::read_to_string(data(&name)).unwrap();
            read_ads_as(&text, &name, Format::Old)
                .unwrap_or_else(|e| panic!("{e}"))
                .into_iter()
                .map(Arc::new)
                .collect()
        };
        let (jobs, machines) = (read("jobs"), read("machines"));
        // The VM too, with one machine (and so one cache of machine-only values)
        // across every pair, as a matcher runs it.
        let compiled = CompiledPool::new(&jobs, &machines);
        let mut vm = Machine::new();
        for c in lines(&format!("pools/{pool}.matches.jsonl")) {
            total += 1;
            let j = c["job"].as_u64().unwrap() as usize;
            let m = c["machine"].as_u64().unwrap() as usize;
            let (job, machine) = (&jobs[j], &machines[m]);
            let got = (
                symmetric_match(job, machine, Semantics::Htcondor),
                rank(job, machine, Semantics::Htcondor),
                rank(machine, job, Semantics::Htcondor),
            );
            let want = (
                c["match"].as_bool().unwrap(),
                c["job_rank"].as_f64().unwrap(),
                c["machine_rank"].as_f64().unwrap(),
            );
            let got_vm = (
                compiled.symmetric_match(&mut vm, j, m),
                compiled.rank(&mut vm, j, m, true),
                compiled.rank(&mut vm, j, m, false),
            );
            if got != want || got_vm != want {
                failures.push((
                    format!("{pool} {j} {m}"),
                    format!("POOL {pool} job {j} machine {m}: want {want:?} got {got:?}, on the VM {got_vm:?}"),
                ));
            }
        }
    }
    judge("pools", total, failures);
}

/// The deviations `tests/htcondor_diff.py` found in generated cases and counts
/// under their entries in `deviations.jsonl` (file `htcondor_diff.py`): each
/// carries an example with our answer (`ours`) and HTCondor's (`htcondor`), and we
/// must still give ours, on both engines.
#[test]
fn htcondor_diff_deviations() {
    utc();
    let entries: Vec<Json> = lines("deviations.jsonl")
        .into_iter()
        .filter(|d| d["file"] == "htcondor_diff.py")
        .collect();
    assert!(!entries.is_empty(), "no htcondor_diff.py deviations");
    for d in &entries {
        let key = d["key"].as_str().expect("key");
        assert!(
            d["reason"].as_str().is_some_and(|r| r.len() > 10),
            "{key}: no reason"
        );
        let ours = d["ours"].as_str().expect("ours");
        // HTCondor's value as repr() prints it, or how its library failed.
        let htcondor = d["htcondor"].as_str().expect("htcondor");
        let theirs = if htcondor == "segmentation fault" || htcondor == "eval_failure" {
            htcondor.to_string()
        } else {
            format!("value {htcondor}")
        };
        assert_ne!(theirs, ours, "{key}: not a deviation");
        let expr = d["expr"].as_str().expect("expr");
        let my = ad_of(&d["my"]);
        let target = ad_of(&d["target"]);
        for engine in [Engine::Reference, Engine::Vm] {
            let got = eval_outcome(engine, expr, my.as_ref(), target.as_ref());
            assert_eq!(got, ours, "{key}: {expr} on {engine:?}");
        }
    }
}
