//! The `classad` command line, driven as outside tests drive it (DESIGN.md's contract).

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn classad(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_classad"))
        .args(args)
        .env("TZ", "UTC")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run classad");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn tmp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("classad-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn eval_prints_one_line_per_expression() {
    let o = classad(
        &["eval", "1 + 2", "strcat(\"a\", 2.5)", "{1+1, 2}", "x"],
        "",
    );
    assert!(o.status.success());
    assert_eq!(
        stdout(&o),
        "3\n\"a2.500000000000000E+00\"\n{ 1 + 1,2 }\nundefined\n"
    );
}

/// Issue 9: the string-list membership of an undefined value in an undefined
/// list is undefined (HTCondor 25), not false, on the default engine (the VM).
#[test]
fn eval_of_membership_in_an_undefined_list() {
    let o = classad(
        &[
            "eval",
            "!stringListMember(x, undefined)",
            "stringListIMember(x, undefined, \",\")",
            "stringListMember(\"a\", undefined)",
        ],
        "",
    );
    assert!(o.status.success());
    assert_eq!(stdout(&o), "undefined\nundefined\nfalse\n");
}

#[test]
fn eval_reads_stdin_line_by_line_and_reports_parse_errors() {
    let o = classad(&["eval"], "1 + 1\n(1 +\n\n\"abc\" == \"ABC\"\n");
    assert!(
        !o.status.success(),
        "a parse error makes the exit status non-zero"
    );
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert_eq!(lines[0], "2");
    assert!(lines[1].starts_with("parse error"), "{}", lines[1]);
    assert!(lines[1].contains("column"), "{}", lines[1]);
    assert!(
        lines[2].starts_with("parse error"),
        "an empty line is no expression"
    );
    assert_eq!(lines[3], "true");
}

#[test]
fn eval_in_a_match_with_both_spellings() {
    let my = tmp("my.ad", "Memory = 2048\nRequirements = TARGET.Cpus > 1\n");
    let target = tmp("target.ad", "[ Cpus = 4; Name = \"slot1\" ]");
    for (m, t) in [("--my", "--target"), ("-file", "-target-file")] {
        let o = classad(
            &[
                "eval",
                m,
                &my,
                t,
                &target,
                "Requirements",
                "MY.Memory",
                "Name",
                "TARGET.Memory",
            ],
            "",
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        // Unscoped `Name` falls back to the target (HTCondor's daemons' semantics).
        assert_eq!(stdout(&o), "true\n2048\n\"slot1\"\nundefined\n");
    }
}

#[test]
fn bad_input_gets_a_clear_error_never_a_crash() {
    let deep = "(".repeat(1 << 20);
    let junk: String = (0..2000u32)
        .map(|i| char::from_u32(i * 7919 % 0xD7FF).unwrap_or('?'))
        .collect();
    for input in [
        deep.as_str(),
        "\"unterminated",
        "",
        "[a = ",
        junk.as_str(),
        "1 +",
        "}{",
    ] {
        let o = classad(&["eval"], &format!("{input}\n"));
        assert_eq!(
            o.status.code(),
            Some(1),
            "input {:?}",
            &input[..input.len().min(20)]
        );
        assert!(stdout(&o).starts_with("parse error"));
    }
    let bad = tmp("bad.ads", "A = 1\nB = (2 +\n");
    let o = classad(&["format", "--new", &bad], "");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.ads:2:"), "{err}");
    let binary = std::env::temp_dir().join(format!("classad-bin-{}", std::process::id()));
    std::fs::write(&binary, [0xff, 0xfe, 0x00, 0x41]).unwrap();
    let o = classad(&["format", binary.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not UTF-8"));
}

#[test]
fn format_converts_between_syntaxes() {
    let f = tmp("two.ads", "A = 1\nS = \"x\"\n\nB = 2.5\n");
    let o = classad(&["format", "--new", &f], "");
    assert_eq!(
        stdout(&o),
        "[ A = 1; S = \"x\" ]\n[ B = 2.500000000000000E+00 ]\n"
    );
    let o = classad(&["format", "--json", &f], "");
    assert_eq!(
        stdout(&o),
        "[\n{\n  \"A\": 1,\n  \"S\": \"x\"\n},\n{\n  \"B\": 2.5\n}\n]\n"
    );
    let json = tmp("two.json", &stdout(&o));
    let o = classad(&["format", "--old", &json], "");
    assert_eq!(stdout(&o), "A = 1\nS = \"x\"\n\nB = 2.5\n");
}

#[test]
fn query_prints_the_ads_that_satisfy_the_constraint() {
    let f = tmp(
        "q.ads",
        "Name = \"a\"\nCpus = 1\n\nName = \"b\"\nCpus = 8\n",
    );
    let o = classad(&["query", "--constraint", "Cpus > 4", "--new", &f], "");
    assert_eq!(stdout(&o), "[ Cpus = 8; Name = \"b\" ]\n");
}

#[test]
fn match_all_pairs_and_assignment() {
    let jobs = tmp(
        "jobs.ads",
        "Requirements = TARGET.Cpus >= 2\nRank = TARGET.Cpus\n\nRequirements = true\n",
    );
    let machines = tmp(
        "machines.ads",
        "Cpus = 1\nRequirements = true\n\nCpus = 4\nRequirements = TARGET.Rank =!= undefined\n\nCpus = 2\nRequirements = true\n",
    );
    let o = classad(
        &[
            "match",
            "--jobs",
            &jobs,
            "--machines",
            &machines,
            "--all-pairs",
        ],
        "",
    );
    assert_eq!(stdout(&o), "0 1\n0 2\n1 0\n1 2\n");
    let o = classad(&["match", "--jobs", &jobs, "--machines", &machines], "");
    assert_eq!(stdout(&o), "0 1\n1 0\n");
}

#[test]
fn match_runs_on_the_built_in_pool() {
    let o = classad(&["match", "--all-pairs"], "");
    assert!(o.status.success());
    // HTCondor's symmetricMatch finds 246 pairs in this pool (tests/conformance/pools).
    assert_eq!(stdout(&o).lines().count(), 246);
}

/// Found by the differential tests: both used to overflow the stack.
#[test]
fn self_reaching_evaluations_terminate() {
    let o = classad(&["eval", "[ x = r.a; r = unresolved(x) ].r"], "");
    // HTCondor 25.14.1 gives the same.
    assert_eq!(stdout(&o), "\"r.a\"\n");
    // A selection reads a list's elements where it is: here no ad, and HTCondor
    // gives the same.
    for e in ["[ q = { q } ].q.p", "[ q = { self.q } ].q.Name"] {
        let o = classad(&["eval", e], "");
        assert_eq!(stdout(&o), "{ undefined }\n", "{e}");
    }
    // In the ad that holds the list each element is the list again: HTCondor
    // overflows its stack (a documented deviation); we stop at the depth limit.
    for e in [
        "[ q = { q }; z = q.p ].z",
        "[ q = { self.q }; z = q.Name ].z",
    ] {
        let o = classad(&["eval", e], "");
        assert!(stdout(&o).starts_with("evaluation failed"), "{e}");
    }
    // So does an ad subscript that reaches itself (each evaluates the attribute
    // afresh); the innermost subscript's failure is error, as a failed
    // subscript is in HTCondor.
    for e in ["[ x = self[\"x\"] ].x", "[ y = self[\"x\"]; x = y ].y"] {
        let o = classad(&["eval", e], "");
        assert_eq!(stdout(&o), "error\n", "{e}");
    }
}
