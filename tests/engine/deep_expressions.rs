//! Long flat chains (`1 + 1 + ...`, `a.b.c...`, `a[1][2]...`, `x && x && ...`):
//! the parser builds them iteratively, so every walk downstream must survive trees
//! of any depth: compiling, every printer, both engines, pool matching and the
//! command line. These run on the test threads' default 2 MiB stacks on purpose.
//!
//! Expected answers are HTCondor 25.14.1's (`classad2`, `htcondor2` imported).

use classad::ad::json::unparse_ad_json;
use classad::ad::{read_ads, ClassAd};
use classad::ad::{unparse_ad, unparse_ad_old, unparse_ad_pretty};
use classad::compile::{compile_ad, compile_expr};
use classad::engine::{eval_in_with, Engine};
use classad::eval::Semantics;
use classad::matching::CompiledPool;
use classad::syntax::ast::ExprRef;
use classad::syntax::{parse_expr, unparse, unparse_old};
use classad_vm::{Machine, SlotTable};
use std::process::Command;
use std::sync::Arc;

/// `n` copies of `term` joined by `op`.
fn chain(term: &str, op: &str, n: usize) -> String {
    vec![term; n].join(op)
}

/// The long chains the parser accepts without a bound, with what HTCondor's
/// evaluation of them gives: a failed evaluation (too deep), except for a
/// selection chain, which is error (longer than 400 names).
fn chains(n: usize) -> Vec<(String, &'static str)> {
    vec![
        (chain("1", " + ", n), "FAIL"),
        (chain("x", " && ", n), "FAIL"),
        (chain("x", " || ", n), "FAIL"),
        (chain("a", ".", n), "error"),
        (format!("a{}", "[1]".repeat(n)), "FAIL"),
    ]
}

fn ad(text: &str) -> Arc<ClassAd> {
    Arc::new(read_ads(text, "test").unwrap().remove(0))
}

fn eval(engine: Engine, expr: &str, my: &Arc<ClassAd>, target: Option<&Arc<ClassAd>>) -> String {
    let e = ExprRef::root_of(Arc::new(parse_expr(expr).unwrap()));
    match eval_in_with(engine, &e, my, target, Semantics::Htcondor) {
        Ok(v) => classad::values::display::unparse_value(&v),
        Err(_) => "FAIL".to_string(),
    }
}

/// Prints, compiles, evaluates and matches an ad holding `chain` as `A`.
/// `value` is what evaluating it gives.
fn everything_survives(chain: &str, value: &str) {
    let job = ad(&format!("A = {chain}\nB = 1\nRequirements = true\n"));
    let a = job.get("A").unwrap().to_expr_ref();

    // Every printer, and what they print reads back to the same text.
    let new = unparse(&a.tree);
    assert_eq!(unparse(&parse_expr(&new).unwrap()), new);
    let old = unparse_old(&a.tree);
    assert_eq!(
        old, new,
        "no operator here prints differently in old syntax"
    );
    assert!(unparse_ad(&job).contains(&new));
    assert!(unparse_ad_old(&job).contains(&old));
    assert!(unparse_ad_pretty(&job).contains(&new));
    assert!(unparse_ad_json(&job).contains(&new));

    // Compiling the ad and the expression on their own.
    let mut slots = SlotTable::new();
    compile_ad(&job, &mut slots);
    compile_expr(&a, Some(&job), &mut slots);

    // Both engines: what does not read A is unaffected; A is too deep (HTCondor:
    // "failed to evaluate expression").
    let machine = ad("Requirements = TARGET.B == 1\nRank = 1\n");
    for engine in [Engine::Vm, Engine::Reference] {
        assert_eq!(eval(engine, "B", &job, None), "1");
        assert_eq!(eval(engine, "Requirements", &job, Some(&machine)), "true");
        assert_eq!(eval(engine, "A", &job, None), value, "{engine:?}");
        assert_eq!(eval(engine, "false && A", &job, None), "false");
        assert_eq!(
            eval(engine, "size(unparse(A))", &job, None),
            new.len().to_string()
        );
    }

    // Matching, pair by pair and in blocks.
    let pool = CompiledPool::new(std::slice::from_ref(&job), &[machine]);
    let mut vm = Machine::new();
    assert!(pool.symmetric_match(&mut vm, 0, 0));
    assert_eq!(pool.all_pairs(&mut vm), vec![(0, 0)]);
}

#[test]
fn chains_of_20_thousand_survive_everything() {
    for (c, value) in chains(20_000) {
        everything_survives(&c, value);
    }
}

#[test]
fn chains_of_100_thousand_survive_everything() {
    for (c, value) in chains(100_000) {
        everything_survives(&c, value);
    }
}

#[test]
fn a_chain_of_a_million_survives_everything() {
    everything_survives(&chain("1", "+", 1_000_000), "FAIL");
}

#[test]
fn unresolved_walks_a_long_chain() {
    // HTCondor: "x" (20,000 terms).
    let my = ad(&format!("A = {}\n", chain("x", " + ", 100_000)));
    for engine in [Engine::Vm, Engine::Reference] {
        assert_eq!(eval(engine, "unresolved(A)", &my, None), "\"x\"");
    }
}

/// Chains around HTCondor's depth limit of 400, in contexts that evaluate them,
/// skip them, or reach them through references: the machine must give the
/// reference evaluator's answer at every length.
#[test]
fn chains_at_the_depth_limit_agree_on_both_engines() {
    for n in 390..=410 {
        let c = chain("1", " + ", n);
        let my = ad(&format!(
            "A = {c}\nD = A\nC = false && ({c})\nE = {{{c}}}[0]\nF = true || A\nG = MY.A\nH = ({c}) * 0\n"
        ));
        let target = ad(&format!("T = {c}\nU = TARGET.A\n"));
        let exprs = [
            "A",
            "D",
            "C",
            "E",
            "F",
            "G",
            "H",
            "MY.A",
            "TARGET.T",
            "TARGET.U",
            "false && A",
            "A > 0 || true",
            "ifThenElse(false, A, 1)",
            &c,
            &format!("false && ({c})"),
            &format!("true ? 1 : {c}"),
            &format!("({c}) =?= {n}"),
        ];
        for e in exprs {
            let vm = eval(Engine::Vm, e, &my, Some(&target));
            let reference = eval(Engine::Reference, e, &my, Some(&target));
            assert_eq!(vm, reference, "{n} terms: {}", &e[..e.len().min(40)]);
        }
    }
}

/// HTCondor's own answers at the limit: `ad.eval(name)` on
/// `[A = <n terms>; C = false && (<n terms>); F = true || A]`.
#[test]
fn the_depth_limit_is_htcondors() {
    for (n, a, c, f) in [
        (398, "398", "false", "true"),
        (399, "399", "false", "true"),
        (400, "400", "false", "true"),
        (401, "401", "false", "true"),
        (402, "FAIL", "false", "true"),
    ] {
        let t = chain("1", " + ", n);
        let my = ad(&format!("A = {t}\nC = false && ({t})\nF = true || A\n"));
        for engine in [Engine::Vm, Engine::Reference] {
            let attr = |name: &str| {
                let e = my.get(name).unwrap().to_expr_ref();
                match eval_in_with(engine, &e, &my, None, Semantics::Htcondor) {
                    Ok(v) => classad::values::display::unparse_value(&v),
                    Err(_) => "FAIL".to_string(),
                }
            };
            assert_eq!(attr("A"), a, "{n} {engine:?}");
            assert_eq!(attr("C"), c, "{n} {engine:?}");
            assert_eq!(attr("F"), f, "{n} {engine:?}");
        }
    }
}

fn tmp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("classad-deep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

fn classad(args: &[&str]) -> (bool, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_classad"))
        .args(args)
        .output()
        .expect("run classad");
    (
        o.status.success(),
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

#[test]
fn the_command_line_handles_long_chains() {
    let c = chain("1", " + ", 100_000);
    let jobs = tmp(
        "jobs.ad",
        &format!("A = {c}\nOwner = \"u\"\nRequirements = true\n"),
    );
    let machines = tmp("machines.ad", &format!("B = {c}\nRequirements = true\n"));

    let (ok, out, err) = classad(&["eval", "--my", &jobs, "Requirements"]);
    assert!(ok, "{err}");
    assert_eq!(out, "true\n");
    let (ok, out, _) = classad(&["eval", "--my", &jobs, "A"]);
    assert!(!ok);
    assert!(out.contains("failed to evaluate expression"), "{out}");

    for format in ["--old", "--new", "--json"] {
        let (ok, out, err) = classad(&["format", format, &jobs]);
        assert!(ok, "{format}: {err}");
        assert!(out.contains(&c), "{format}");
    }
    let (ok, out, err) = classad(&["query", "--constraint", "Requirements", &jobs]);
    assert!(ok, "{err}");
    assert!(out.contains(&c));
    let (ok, out, err) = classad(&["match", "--jobs", &jobs, "--machines", &machines]);
    assert!(ok, "{err}");
    assert_eq!(out, "0 0\n");
}

/// MY's attributes compiled into the expressions that use them, nested: each is
/// small enough to inline, but together they are far deeper than the limit (the
/// compiler stops inlining where the limit would be passed). The machine must
/// agree with the reference evaluator.
#[test]
fn nested_inlined_attributes_deeper_than_the_limit_agree() {
    let mut text = String::new();
    for i in 0..9 {
        let terms = chain("TARGET.x", " + ", 120);
        text.push_str(&format!("A{i} = A{} + {terms}\n", i + 1));
    }
    text.push_str("A9 = 1\nRequirements = A0 > 0\n");
    let job = ad(&text);
    let machine = ad("x = 1\nRequirements = true\n");
    for e in ["A0", "A5 > 0", "false && A0", "Requirements"] {
        assert_eq!(
            eval(Engine::Vm, e, &job, Some(&machine)),
            eval(Engine::Reference, e, &job, Some(&machine)),
            "{e}"
        );
    }
    let want = classad::matching::symmetric_match(&job, &machine, Semantics::Htcondor);
    let pool = CompiledPool::new(std::slice::from_ref(&job), &[machine]);
    assert_eq!(pool.symmetric_match(&mut Machine::new(), 0, 0), want);
}

/// Requirements around the depth limit, matched in blocks and pair by pair: the
/// compiled pool must agree with the reference evaluator's symmetric match.
#[test]
fn pools_at_the_depth_limit_agree_with_the_reference() {
    let mut jobs = Vec::new();
    let mut machines = Vec::new();
    for n in 390..=402 {
        let c = chain("1", " + ", n);
        jobs.push(ad(&format!(
            "Requirements = TARGET.Memory + {c} > 0\nR{n} = {c}\n"
        )));
        machines.push(ad(&format!(
            "Memory = {n}\nRequirements = false && ({c}) || MY.Memory > 392\n"
        )));
    }
    let pool = CompiledPool::new(&jobs, &machines);
    let mut vm = Machine::new();
    let mut want = Vec::new();
    for (j, job) in jobs.iter().enumerate() {
        for (m, machine) in machines.iter().enumerate() {
            let matched = classad::matching::symmetric_match(job, machine, Semantics::Htcondor);
            assert_eq!(pool.symmetric_match(&mut vm, j, m), matched, "{j} {m}");
            if matched {
                want.push((j, m));
            }
        }
    }
    assert!(
        !want.is_empty() && want.len() < jobs.len() * machines.len(),
        "{want:?}"
    );
    assert_eq!(pool.all_pairs(&mut vm), want);
}
