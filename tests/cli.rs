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

/// `format --xml` prints what `condor_q -xml` prints, and reads back as the ads.
#[test]
fn format_writes_xml_as_condor_q_does_and_reads_it_back() {
    let f = tmp(
        "to_xml.ads",
        "A = 1\nS = \"x<y & \\\"z\\\"\"\nR = TARGET.Memory >= 1024\nL = { 1, [ q = true ] }\n\nB = undefined\n",
    );
    let o = classad(&["format", "--xml", &f], "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let xml = stdout(&o);
    assert_eq!(
        xml,
        "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n\
         <c>\n\
         \x20   <a n=\"A\"><i>1</i></a>\n\
         \x20   <a n=\"L\"><l><i>1</i><c>\n\
         \x20       <a n=\"q\"><b v=\"t\"/></a>\n\
         \x20   </c></l></a>\n\
         \x20   <a n=\"R\"><e>TARGET.Memory &gt;= 1024</e></a>\n\
         \x20   <a n=\"S\"><s>x&lt;y &amp; \"z\"</s></a>\n\
         </c>\n\
         <c>\n\
         \x20   <a n=\"B\"><un/></a>\n\
         </c>\n\
         </classads>\n"
    );
    let back = tmp("from_xml.xml", &xml);
    for syntax in ["--new", "--json", "--old"] {
        assert_eq!(
            stdout(&classad(&["format", syntax, &back], "")),
            stdout(&classad(&["format", syntax, &f], "")),
            "{syntax}"
        );
    }
    // Standard input, and no ads at all: still a document.
    let o = classad(&["format", "--xml", "-"], "");
    assert_eq!(
        stdout(&o),
        "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n</classads>\n"
    );
    // A broken XML file: its name, line and column, and what was expected.
    let bad = tmp(
        "bad.xml",
        "<classads>\n<c>\n    <a n=\"A\"><i>1</i><s>x</s></a>\n</c>\n",
    );
    let o = classad(&["format", "--new", &bad], "");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.xml:3:22: expected `</a>` (an attribute holds one value), found `<s>`"),
        "{err}"
    );
}

/// Every command that reads ads reads XML files as it reads the same ads in old
/// syntax.
#[test]
fn xml_files_are_read_by_every_command() {
    let jobs_old = tmp(
        "xml_jobs.ads",
        "MyType = \"Job\"\nOwner = \"u\"\nRequestCpus = 2\nRequirements = TARGET.Cpus >= RequestCpus\nRank = TARGET.Cpus\n\n\
         MyType = \"Job\"\nOwner = \"v\"\nRequestCpus = 1\nRequirements = TARGET.Cpus >= RequestCpus\n",
    );
    let machines_old = tmp(
        "xml_machines.ads",
        "MyType = \"Machine\"\nName = \"s1\"\nCpus = 1\nRequirements = true\n\n\
         MyType = \"Machine\"\nName = \"s2\"\nCpus = 4\nRequirements = TARGET.RequestCpus <= Cpus\n",
    );
    let as_xml =
        |path: &str, name: &str| tmp(name, &stdout(&classad(&["format", "--xml", path], "")));
    let jobs = as_xml(&jobs_old, "xml_jobs.xml");
    let machines = as_xml(&machines_old, "xml_machines.xml");
    let one_job = tmp(
        "xml_one_job.xml",
        "<c><a n=\"RequestCpus\"><i>3</i></a><a n=\"Owner\"><s>w</s></a></c>",
    );
    let runs: Vec<Vec<String>> = vec![
        vec![
            "eval".into(),
            "--my".into(),
            one_job.clone(),
            "RequestCpus * 2".into(),
            "Owner".into(),
        ],
        vec![
            "eval".into(),
            "--my".into(),
            one_job,
            "--target".into(),
            "{machine}".into(),
            "TARGET.Cpus".into(),
        ],
        vec![
            "query".into(),
            "--constraint".into(),
            "Cpus >= 4".into(),
            "--new".into(),
            "{machines}".into(),
        ],
        vec![
            "match".into(),
            "--jobs".into(),
            "{jobs}".into(),
            "--machines".into(),
            "{machines}".into(),
            "--all-pairs".into(),
            "-q".into(),
        ],
        vec![
            "negotiate".into(),
            "--jobs".into(),
            "{jobs}".into(),
            "--machines".into(),
            "{machines}".into(),
        ],
    ];
    let machine_xml = tmp(
        "xml_machine.xml",
        "<?xml version=\"1.0\"?>\n<classads><c><a n=\"Cpus\"><i>4</i></a></c></classads>",
    );
    let machine_old = tmp("xml_machine.ads", "Cpus = 4\n");
    for run in runs {
        let with = |jobs: &str, machines: &str, machine: &str| {
            let args: Vec<String> = run
                .iter()
                .map(|a| match a.as_str() {
                    "{jobs}" => jobs.to_string(),
                    "{machines}" => machines.to_string(),
                    "{machine}" => machine.to_string(),
                    _ => a.clone(),
                })
                .collect();
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = classad(&args, "");
            assert!(
                o.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            stdout(&o)
        };
        let from_xml = with(&jobs, &machines, &machine_xml);
        assert!(!from_xml.is_empty(), "{run:?}");
        assert_eq!(
            from_xml,
            with(&jobs_old, &machines_old, &machine_old),
            "{run:?}"
        );
    }
    let o = classad(
        &[
            "eval",
            "--my",
            &tmp("xml_eval.xml", "<c><a n=\"x\"><i>3</i></a></c>"),
            "x + 1",
        ],
        "",
    );
    assert_eq!(stdout(&o), "4\n");
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
        "Owner = \"u\"\nRequirements = TARGET.Cpus >= 2\nRank = TARGET.Cpus\n\n\
         Owner = \"u\"\nRequirements = true\n",
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
    // Without --all-pairs, the negotiation cycle: the one submitter's limit is
    // the pool (7 CPUs); job 0 takes the slot its Rank prefers, job 1 the first
    // of the equal rest.
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
    // overflows its stack (a documented deviation); we stop at the depth limit,
    // where the evaluation fails, or, when it is a selection's base that has no
    // level left, that selection is error (HTCondor's `FindExpr`).
    let o = classad(&["eval", "[ q = { q }; z = q.p ].z"], "");
    assert!(stdout(&o).starts_with("evaluation failed"));
    let o = classad(&["eval", "[ q = { self.q }; z = q.Name ].z"], "");
    let nested = stdout(&o);
    assert!(
        nested.starts_with("{ { {") && nested.contains("error"),
        "{nested}"
    );
    // So does an ad subscript that reaches itself (each evaluates the attribute
    // afresh); the innermost subscript's failure is error, as a failed
    // subscript is in HTCondor.
    for e in ["[ x = self[\"x\"] ].x", "[ y = self[\"x\"]; x = y ].y"] {
        let o = classad(&["eval", e], "");
        assert_eq!(stdout(&o), "error\n", "{e}");
    }
}

/// Runs classad with `stdin` as its standard input, failing the test if it runs
/// longer than `limit` (endless input must be refused, not read whole).
fn classad_within(args: &[&str], stdin: Stdio, limit: std::time::Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_classad"))
        .args(args)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run classad");
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            panic!("classad {args:?} still running after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn endless_zeros_are_refused_at_once_as_a_file_and_on_stdin() {
    let limit = std::time::Duration::from_secs(20);
    let zero = || std::fs::File::open("/dev/zero").unwrap().into();
    let o = classad_within(&["format", "/dev/zero"], Stdio::null(), limit);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("/dev/zero:1:1: a NUL byte"),
        "{}",
        stderr(&o)
    );
    for args in [
        &["format", "-"][..],
        &["query", "--constraint", "true", "-"],
    ] {
        let o = classad_within(args, zero(), limit);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&o).contains("<stdin>:1:1: a NUL byte"),
            "{}",
            stderr(&o)
        );
    }
    // `eval` answers the line and stops: binary input has no more lines.
    let o = classad_within(&["eval"], zero(), limit);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "parse error: line 1, column 1: a NUL byte: this is binary data, not text; stopped reading\n"
    );
    let o = classad_within(&["eval", "--my", "/dev/zero", "1"], Stdio::null(), limit);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/dev/zero:1:1"), "{}", stderr(&o));
}

#[test]
fn files_that_are_not_ads_text_fail_at_the_bad_line() {
    let nul = tmp("nul.ads", "A = 1\nB = \"x\0y\"\n\nC = 3\n");
    let o = classad(&["format", &nul], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("nul.ads:2:7: a NUL byte"),
        "{}",
        stderr(&o)
    );
    let prose = tmp(
        "prose.txt",
        "# a heading\n\nThis is prose, not ads.\nA = 1 is mentioned later\n",
    );
    let o = classad(&["query", "--constraint", "true", &prose], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("prose.txt:3:1: expected `Name = expression`"),
        "{}",
        stderr(&o)
    );
    let o = classad(&["format", "-"], "A = 1\nB = \"\u{e9}\"\n\n");
    assert_eq!(stdout(&o), "A = 1\nB = \"\u{e9}\"\n");
}

#[test]
fn eval_gives_a_line_that_is_not_utf8_an_error_line_and_goes_on() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_classad"))
        .arg("eval")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(b"1 + 1\n\"a\xff\"\n2 * 3\r\n").unwrap();
    drop(input);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "2\nparse error: line 2, column 3: not UTF-8 text\n6\n"
    );
}

#[test]
fn options_work_after_expressions_and_dash_expressions_follow_two_dashes() {
    let my = tmp("opts.ad", "Memory = 2048\nRequirements = Memory > 1024\n");
    for args in [
        &["eval", "Requirements", "Memory", "--my", &my][..],
        &["eval", "--my", &my, "Requirements", "Memory"],
        &["eval", "Requirements", "-file", &my, "Memory"],
        &["eval", "Requirements", "Memory", "-file", &my],
    ] {
        let o = classad(args, "");
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), "true\n2048\n", "{args:?}");
    }
    let o = classad(&["eval", "--my", &my, "--", "-Memory", "-1 + 2"], "");
    assert_eq!(stdout(&o), "-2048\n1\n");
    // After `--`, HTCondor's one-dash spelling is an expression too.
    let o = classad(&["eval", "--", "-file"], "");
    assert_eq!(stdout(&o), "undefined\n");
    // Without `--` a leading `-` is an unknown option: an error that says what to do.
    let o = classad(&["eval", "1", "-1 + 2"], "");
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "");
    let err = stderr(&o);
    assert!(
        err.contains("unexpected argument '-1'") && err.contains("use '-- -1'"),
        "{err}"
    );
}

/// Runs classad, reads one line of its output and closes the pipe.
fn read_one_line_then_close(args: &[&str], stdin: Vec<u8>) -> Output {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_classad"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    // classad may stop reading once its output is closed: a failed write is fine.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert!(!first.is_empty(), "{args:?} printed nothing");
    drop(out);
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap();
    o
}

#[test]
fn a_closed_output_pipe_ends_every_command_quietly() {
    // Every output is far beyond a pipe's buffer, so writes fail once it is closed.
    let many_ads = tmp(
        "many.ads",
        &"A = 1\nOwner = \"u\"\nRequirements = true\n\n".repeat(20_000),
    );
    let few_ads = tmp("few.ads", &"Requirements = true\n\n".repeat(300));
    let lines = "1 + 1\n".repeat(200_000).into_bytes();
    let runs: [(&[&str], Vec<u8>); 5] = [
        (&["eval"], lines),
        (&["format", &many_ads], vec![]),
        (&["query", "--constraint", "A == 1", &many_ads], vec![]),
        (
            &[
                "match",
                "--jobs",
                &few_ads,
                "--machines",
                &few_ads,
                "--all-pairs",
                "--quiet",
            ],
            vec![],
        ),
        (
            &["match", "--jobs", &many_ads, "--machines", &few_ads, "-q"],
            vec![],
        ),
    ];
    for (args, input) in runs {
        let o = read_one_line_then_close(args, input);
        assert_eq!(stderr(&o), "", "{args:?}");
        assert_eq!(o.status.code(), Some(0), "{args:?}");
    }
}

#[test]
fn query_and_match_say_when_an_expression_was_error() {
    let ads = tmp(
        "err.ads",
        "Name = \"a\"\nCpus = 1\n\nName = \"b\"\nCpus = \"many\"\n\nName = \"c\"\nCpus = \"x\"\n",
    );
    let o = classad(
        &["query", "--constraint", "Cpus + 1 > 1", "--new", &ads],
        "",
    );
    assert_eq!(stdout(&o), "[ Cpus = 1; Name = \"a\" ]\n");
    assert!(o.status.success());
    assert!(
        stderr(&o).contains("warning: the constraint was error for 2 of 3 ads (first: ")
            && stderr(&o).contains("err.ads, ad 1 counting from 0)"),
        "{}",
        stderr(&o)
    );
    let o = classad(&["query", "--constraint", "Name == \"a\"", &ads], "");
    assert_eq!(stderr(&o), "", "no error, no warning");

    let jobs = tmp(
        "errjobs.ads",
        "Requirements = true\n\nRequirements = \"a\" + 1\n\nRequirements = error\n",
    );
    let machines = tmp(
        "errmachines.ads",
        "Requirements = TARGET.x\n\nRequirements = 1 / 0\n",
    );
    for engine in ["vm", "reference"] {
        let o = classad(
            &[
                "match",
                "--jobs",
                &jobs,
                "--machines",
                &machines,
                "--engine",
                engine,
            ],
            "",
        );
        assert_eq!(stdout(&o), "", "{engine}");
        let err = stderr(&o);
        assert!(
            err.contains("was error for 2 of 3 jobs (first: ")
                && err.contains("errjobs.ads, ad 1 counting from 0)")
                && err.contains("was error for 1 of 2 machines (first: ")
                && err.contains("errmachines.ads, ad 1 counting from 0)"),
            "{err}"
        );
    }
    let o = classad(&["match"], "");
    let err = stderr(&o);
    assert!(
        err.starts_with("classad match: 30 jobs, 40 slots, ") && err.lines().count() == 1,
        "the built-in pool has no error, only the summary: {err}"
    );
    let o = classad(&["match", "--quiet"], "");
    assert_eq!(stderr(&o), "", "--quiet: no summary");
}

/// The queue `classad match` reads in parts (and clusters as it reads) from a file
/// or standard input, in any syntax, with errors at their line and column.
#[test]
fn match_reads_the_queue_from_stdin_in_any_syntax_with_errors_placed() {
    let machines = tmp(
        "stream-machines.ads",
        "Cpus = 1\nRequirements = true\n\nCpus = 4\nRequirements = TARGET.RequestCpus <= Cpus\n",
    );
    let old = "RequestCpus = 2\nRequirements = TARGET.Cpus >= RequestCpus\n\n\
               RequestCpus = 1\nRequirements = TARGET.Cpus >= RequestCpus\n";
    let new = "[ RequestCpus = 2; Requirements = TARGET.Cpus >= RequestCpus ]\n\
               [ RequestCpus = 1; Requirements = TARGET.Cpus >= RequestCpus ]\n";
    let json = r#"[{"RequestCpus": 2, "Requirements": "\/Expr(TARGET.Cpus >= RequestCpus)\/"},
                  {"RequestCpus": 1, "Requirements": "\/Expr(TARGET.Cpus >= RequestCpus)\/"}]"#;
    let xml = "<?xml version=\"1.0\"?>\n<classads>\n\
               <c><a n=\"RequestCpus\"><i>2</i></a><a n=\"Requirements\"><e>TARGET.Cpus &gt;= RequestCpus</e></a></c>\n\
               <c><a n=\"RequestCpus\"><i>1</i></a><a n=\"Requirements\"><e>TARGET.Cpus &gt;= RequestCpus</e></a></c>\n\
               </classads>\n";
    for (what, jobs) in [("old", old), ("new", new), ("json", json), ("xml", xml)] {
        let file = tmp(&format!("stream-jobs-{what}.ads"), jobs);
        for (path, input) in [(file.as_str(), ""), ("-", jobs)] {
            let o = classad(
                &[
                    "match",
                    "--jobs",
                    path,
                    "--machines",
                    &machines,
                    "--all-pairs",
                    "-q",
                ],
                input,
            );
            assert_eq!(stdout(&o), "0 1\n1 0\n1 1\n", "{what} from {path}");
        }
    }
    // An error past the first lines, read in parts, named as reading it whole does.
    let mut jobs: String = "RequestCpus = 1\nRequirements = true\n\n".repeat(700);
    jobs.push_str("RequestCpus = (\n");
    let file = tmp("stream-bad.ads", &jobs);
    let o = classad(&["match", "--jobs", &file, "--machines", &machines], "");
    assert_eq!(o.status.code(), Some(2));
    let q = classad(&["query", "--constraint", "true", &file], "");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("stream-bad.ads:2101:"), "{err}");
    assert_eq!(
        err,
        String::from_utf8_lossy(&q.stderr),
        "as query reads it whole"
    );
}

/// Pool dumps are often kept compressed: a gzip file of ads reads as the ads
/// themselves, by `format` (whole file), `query`, and in parts by
/// `negotiate`, from a file and from standard input.
#[test]
fn gzip_files_of_ads_read_as_the_ads() {
    let text = "MyType = \"Job\"\nOwner = \"a\"\nRequestCpus = 1\nRequirements = TARGET.Cpus >= 1\n\n\
                MyType = \"Job\"\nOwner = \"b\"\nRequestCpus = 2\nRequirements = TARGET.Cpus >= 2\n";
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(text.as_bytes()).unwrap();
    let bytes = gz.finish().unwrap();
    let dir = std::env::temp_dir().join(format!("classad-cli-gz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let gz_path = dir.join("jobs.ads.gz");
    std::fs::write(&gz_path, &bytes).unwrap();
    let gz_path = gz_path.to_string_lossy().into_owned();
    let plain = tmp("jobs_plain.ads", text);
    for args in [
        vec!["format", "--json"],
        vec!["query", "--constraint", "RequestCpus > 1"],
    ] {
        let of = |file: &str| {
            let mut a = args.clone();
            a.push(file);
            let o = classad(&a, "");
            assert!(
                o.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            stdout(&o)
        };
        assert_eq!(of(&gz_path), of(&plain), "{args:?}");
    }
    // From standard input too.
    let mut child = Command::new(env!("CARGO_BIN_EXE_classad"))
        .args(["format", "--new", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let piped = child.wait_with_output().unwrap();
    assert_eq!(
        stdout(&piped),
        stdout(&classad(&["format", "--new", &plain], ""))
    );
    assert_eq!(stdout(&piped).lines().count(), 2);
    // Read in parts by the cycle.
    let slots = tmp(
        "slots_gz.ads",
        "MyType = \"Machine\"\nCpus = 2\nRequirements = true\n",
    );
    let cycle = |jobs: &str| {
        stdout(&classad(
            &["negotiate", "--jobs", jobs, "--machines", &slots],
            "",
        ))
    };
    assert_eq!(cycle(&gz_path), cycle(&plain));
    assert!(!cycle(&gz_path).is_empty());
}

/// Issue 13: `--target` without `--my` evaluates in an empty ad against the
/// target, as HTCondor's classad_eval does (`expr.simplify(ClassAd(), target)`);
/// the values are the oracle's (HTCondor 25.14.1).
#[test]
fn eval_with_a_target_and_no_ad_of_its_own() {
    let target = tmp("target_only.ads", "Memory = 2048\nName = \"s1\"\n");
    for engine in ["vm", "reference"] {
        let o = classad(
            &[
                "eval",
                "--engine",
                engine,
                "--target",
                &target,
                "TARGET.Memory",
                "Memory",
                "MY.Memory",
                "TARGET.Name",
            ],
            "",
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(stdout(&o), "2048\n2048\nundefined\n\"s1\"\n", "{engine}");
    }
}

/// Issue 13: `query` as `condor_status` users type it: no constraint prints
/// every ad, and `-constraint` takes one dash too.
#[test]
fn query_without_a_constraint_and_with_one_dash() {
    let ads = tmp("query_forms.ads", "A = 1\n\nA = 2\n\nA = 3\n");
    let all = classad(&["query", "--new", &ads], "");
    assert!(
        all.status.success(),
        "{}",
        String::from_utf8_lossy(&all.stderr)
    );
    assert_eq!(stdout(&all), "[ A = 1 ]\n[ A = 2 ]\n[ A = 3 ]\n");
    let some = classad(&["query", "-constraint", "A >= 2", "--new", &ads], "");
    assert!(
        some.status.success(),
        "{}",
        String::from_utf8_lossy(&some.stderr)
    );
    assert_eq!(stdout(&some), "[ A = 2 ]\n[ A = 3 ]\n");
}
