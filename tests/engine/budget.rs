//! The memory budget of an evaluation (`classad::limits`): every builtin or
//! selection that would make a string or list larger than the cap gives error, the
//! same on the bytecode machine and the reference evaluator, and the command line
//! survives strings doubled past a gigabyte.

use classad::ad::read_ads;
use classad::engine::{eval_in_with, Engine};
use classad::eval::Semantics;
use classad::limits::with_max_value_bytes;
use classad::syntax::ast::ExprRef;
use classad::syntax::parse_expr;
use classad::values::display::unparse_value;
use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::sync::Arc;

/// `expr` evaluated in the ad `ad` under a cap of `cap` bytes, on both engines
/// (compiled under that cap too, so constants folded follow it); they must agree.
fn both(ad: &str, expr: &str, cap: usize) -> String {
    with_max_value_bytes(cap, || {
        let my = Arc::new(read_ads(ad, "test.ad").expect("ad")[0].clone());
        let e = ExprRef::root_of(Arc::new(parse_expr(expr).expect("expression")));
        let show = |engine| match eval_in_with(engine, &e, &my, None, Semantics::Htcondor) {
            Ok(v) => unparse_value(&v),
            Err(f) => format!("fail: {f}"),
        };
        let (vm, reference) = (show(Engine::Vm), show(Engine::Reference));
        assert_eq!(vm, reference, "{expr} under a cap of {cap} bytes");
        vm
    })
}

/// [`both`] in an ad with nothing but `S`, a 12-byte string.
fn alone(expr: &str, cap: usize) -> String {
    both("S = \"abcdefghijkl\"\n", expr, cap)
}

#[test]
fn strcat_up_to_the_cap_and_error_beyond() {
    assert_eq!(alone(r#"strcat("abcde", "fghij")"#, 10), r#""abcdefghij""#);
    assert_eq!(alone(r#"strcat("abcde", "fghijk")"#, 10), "error");
    assert_eq!(alone(r#"strcat("abcde", 12345, true)"#, 10), "error");
    // An undefined argument after the text passed the cap still decides.
    assert_eq!(alone(r#"strcat(S, undefined)"#, 10), "undefined");
    // The ad's own string is not made by the evaluation: it is read as it is.
    assert_eq!(alone("S", 10), r#""abcdefghijkl""#);
    assert_eq!(alone("strcat(S)", 12), r#""abcdefghijkl""#);
    assert_eq!(alone("isError(strcat(S))", 11), "true");
}

#[test]
fn join_up_to_the_cap_and_error_beyond() {
    assert_eq!(
        alone(r#"join(",", "abcde", "efgh")"#, 10),
        r#""abcde,efgh""#
    );
    assert_eq!(alone(r#"join(",", "abcde", "efghi")"#, 10), "error");
    assert_eq!(alone(r#"join("", {"abcdef", "ghijk"})"#, 10), "error");
    assert_eq!(
        alone(r#"join("", {"abcdef", "ghij"})"#, 10),
        r#""abcdefghij""#
    );
    // An error item after the text passed the cap decides as it would anyway.
    assert_eq!(alone(r#"join(",", S, error)"#, 10), "error");
}

#[test]
fn lists_made_by_builtins_count_32_bytes_an_element() {
    // Three one-byte items: 3 * (32 + 1) = 99 bytes.
    assert_eq!(alone(r#"split("a,b,c")"#, 99), r#"{ "a","b","c" }"#);
    assert_eq!(alone(r#"split("a,b,c")"#, 98), "error");
    assert_eq!(alone(r#"size(split("a,b,c,d"))"#, 99), "error");
    assert_eq!(alone(r#"splitUserName("ab@cd")"#, 68), r#"{ "ab","cd" }"#);
    assert_eq!(alone(r#"splitUserName("ab@cd")"#, 67), "error");
    assert_eq!(alone(r#"argsToList("a b c")"#, 99), r#"{ "a","b","c" }"#);
    assert_eq!(alone(r#"argsToList("a b c")"#, 98), "error");
    assert_eq!(alone(r#"argsToList("a b c", 1)"#, 98), "error");
    // A selection over a list makes a list too.
    assert_eq!(alone(r#"{[a = "xy"], [a = "z"]}.a"#, 67), r#"{ "xy","z" }"#);
    assert_eq!(alone(r#"{[a = "xy"], [a = "z"]}.a"#, 66), "error");
    // A list literal is the ad's own: it is not counted.
    assert_eq!(alone(r#"{"a", "b", "c"}"#, 10), r#"{ "a","b","c" }"#);
}

#[test]
fn eval_in_each_context_lists_up_to_the_cap() {
    let ad = "E = strcat(x, \"yz\")\nN = x == \"a\"\nL = {[x = \"a\"], [x = \"b\"]}\n";
    // Two three-byte strings: 2 * (32 + 3) = 70 bytes.
    assert_eq!(
        both(ad, "evalInEachContext(E, L)", 70),
        r#"{ "ayz","byz" }"#
    );
    assert_eq!(both(ad, "evalInEachContext(E, L)", 69), "error");
    // Counting keeps no list.
    assert_eq!(both(ad, "countMatches(N, L)", 0), "1");
}

#[test]
fn every_string_builtin_is_held_to_the_cap() {
    assert_eq!(alone("toUpper(S)", 12), r#""ABCDEFGHIJKL""#);
    assert_eq!(alone("toUpper(S)", 11), "error");
    assert_eq!(alone("toLower(S)", 11), "error");
    assert_eq!(alone("substr(S, 1)", 11), r#""bcdefghijkl""#);
    assert_eq!(
        alone(r#"replaceAll("a", "aaaa", "bbb")"#, 12),
        r#""bbbbbbbbbbbb""#
    );
    assert_eq!(alone(r#"replaceAll("a", "aaaa", "bbb")"#, 11), "error");
    assert_eq!(
        alone(r#"regexps("(a+)", "aaaa", "\\1\\1\\1")"#, 11),
        "error"
    );
    assert_eq!(alone(r#"string(split("a b"))"#, 10), "error");
    assert_eq!(alone("unparse(S)", 13), "error");
    assert_eq!(alone("interval(90061)", 10), r#""1+01:01:01""#);
    assert_eq!(alone("interval(90061)", 9), "error");
}

#[test]
fn constants_folded_when_compiling_follow_the_cap() {
    assert_eq!(alone(r#"size(strcat("abcdef", "abcdef"))"#, 12), "12");
    assert_eq!(alone(r#"size(strcat("abcdef", "abcdef"))"#, 11), "error");
}

fn classad(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_classad"))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run classad");
    child.stdin.take().unwrap().write_all(b"").unwrap();
    child.wait_with_output().unwrap()
}

/// An ad of strings doubled ten times over: `D10` holds `bytes` bytes, `D0` 1024
/// times as many.
fn doubling_ad(bytes: usize) -> String {
    let dir = std::env::temp_dir().join(format!("classad-budget-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("dbl{bytes}.ad"));
    let mut text = format!("D10 = \"{}\"\n", "x".repeat(bytes));
    for i in (0..10).rev() {
        text.push_str(&format!("D{i} = strcat(D{}, D{})\n", i + 1, i + 1));
    }
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn doubled_strings_become_error_past_the_cap_on_both_engines() {
    let ad = doubling_ad(100_000);
    let exprs = ["size(D7)", "size(D6)", "isError(D0)"];
    for engine in ["vm", "reference"] {
        let mut args = vec!["eval", "--engine", engine, "--my", &ad];
        args.extend(exprs);
        let out = classad(&args, &[("CLASSAD_MAX_VALUE_BYTES", "1000000")]);
        assert!(out.status.success(), "{engine}: {out:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "800000\nerror\ntrue\n",
            "{engine}"
        );
    }
}

#[test]
fn the_issue_doubling_finishes_under_the_default_cap() {
    // 1.1 MB doubled ten times is 1.1 GB, which HTCondor tries to make (and
    // aborts on); the default cap of 16 MiB stops at D6 (17.6 MB).
    let ad = doubling_ad(1_100_000);
    for engine in ["vm", "reference"] {
        let out = classad(
            &[
                "eval", "--engine", engine, "--my", &ad, "size(D7)", "size(D0)",
            ],
            &[],
        );
        assert!(out.status.success(), "{engine}: {out:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "8800000\nerror\n",
            "{engine}"
        );
    }
}

#[test]
fn a_bad_cap_in_the_environment_is_a_clear_error() {
    let out = classad(&["eval", "1"], &[("CLASSAD_MAX_VALUE_BYTES", "lots")]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "classad: CLASSAD_MAX_VALUE_BYTES=\"lots\": expected a number of bytes\n"
    );
}
