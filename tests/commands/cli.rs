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

/// Issue 33 item 5.14: every command's `--threads` takes at most the library's
/// `MAX_THREADS`, refuses more before starting a thread, and says so in its
/// `--help`.
#[test]
fn threads_are_bounded_by_the_library_constant() {
    let max = classad::limits::MAX_THREADS;
    assert_eq!(max, 1024);
    let out = tmp("threads.ads", "");
    let commands: [&[&str]; 5] = [
        &["match"],
        &["negotiate"],
        &["analyze", "--jobs", &out, "--machines", &out],
        &["bench"],
        &["gen-pool", "--out-machines", &out, "--out-jobs", &out],
    ];
    for command in commands {
        for n in [(max + 1).to_string(), usize::MAX.to_string()] {
            let o = classad(&[command, &["--threads", &n]].concat(), "");
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{command:?}: {err}");
            assert!(
                err.contains(&format!("--threads {n}: at most {max}")),
                "{command:?}: {err}"
            );
        }
        let help = stdout(&classad(&[command[0], "--help"], ""));
        assert!(
            help.contains(&format!("at most {max}")),
            "{command:?}: {help}"
        );
    }
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
    // As `condor_status -long:new` frames the ads.
    assert_eq!(stdout(&o), "{\n[ Cpus = 8; Name = \"b\" ]\n}\n");
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
    let runs: [(&[&str], Vec<u8>); 6] = [
        (&["eval"], lines),
        (&["format", &many_ads], vec![]),
        (&["query", "--constraint", "A == 1", &many_ads], vec![]),
        (&["query", &many_ads, "-af:h", "A", "Owner"], vec![]),
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
    assert_eq!(stdout(&o), "{\n[ Cpus = 1; Name = \"a\" ]\n}\n");
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
            err.contains("Requirements is error against every slot for 2 of 3 jobs, so they match nothing (first: ")
                && err.contains("errjobs.ads, ad 1 counting from 0)")
                && err.contains("Requirements is error against every job for 1 of 2 slots, so they match nothing (first: ")
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

/// condor_submit writes `versionGE(split(TARGET.CondorVersion)[1], ...)` into
/// Requirements, which is error with no TARGET but not against a slot: no
/// warning for it, from any command that matches (issue 38, item 5); a
/// Requirements error against every slot is still named.
#[test]
fn a_requirements_error_only_for_want_of_a_target_is_not_warned_about() {
    let jobs = tmp(
        "versionjobs.ads",
        "Owner = \"a\"\nRequirements = versionGE(split(TARGET.CondorVersion)[1], \"9.0.0\")\n\n\
         Owner = \"b\"\nRequirements = TARGET.Cpus > 0 && split(TARGET.Nope)[1] == \"x\"\n",
    );
    let machines = tmp(
        "versionmachines.ads",
        "Name = \"s1\"\nCpus = 1\nRequirements = true\nCondorVersion = \"$CondorVersion: 25.0.1 Jan 1 2025 $\"\n",
    );
    let every =
        "warning: Requirements is error against every slot for 1 of 2 jobs, so they match nothing";
    for args in [
        vec!["match", "--all-pairs"],
        vec!["match"],
        vec!["negotiate"],
        vec!["negotiate", "--engine", "reference"],
        vec!["bench"],
    ] {
        let mut args = args.clone();
        args.extend(["--jobs", &jobs, "--machines", &machines]);
        let o = classad(&args, "");
        let err = stderr(&o);
        assert!(o.status.success(), "{args:?}: {err}");
        assert!(!err.contains("evaluated alone"), "{args:?}: {err}");
        assert!(
            err.contains(every) && err.contains("versionjobs.ads, ad 1 counting from 0)"),
            "{args:?}: only the second job is named: {err}"
        );
        if args[0] != "bench" {
            assert!(stdout(&o).contains('0'), "{args:?}: the first job matches");
        }
    }
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
    assert_eq!(
        stdout(&all),
        "{\n[ A = 1 ]\n,\n[ A = 2 ]\n,\n[ A = 3 ]\n}\n"
    );
    let some = classad(&["query", "-constraint", "A >= 2", "--new", &ads], "");
    assert!(
        some.status.success(),
        "{}",
        String::from_utf8_lossy(&some.stderr)
    );
    assert_eq!(stdout(&some), "{\n[ A = 2 ]\n,\n[ A = 3 ]\n}\n");
}

/// Slot ads for the `query` tests: names of different lengths, a real, a string
/// with a quote, a list and a private attribute.
const SLOTS: &str = "MyType = \"Machine\"\nName = \"slot1@a\"\nCpus = 4\nMemory = 2.5\n\
                     State = \"Unclaimed\"\nClaimId = \"secret\"\nRequirements = TARGET.RequestCpus <= Cpus\n\
                     Tags = { \"x\", 1.0 }\n\n\
                     MyType = \"Machine\"\nName = \"slot2@bbbbbb\"\nCpus = 16\nMemory = 1024\n\
                     State = \"Say \\\"hi\\\"\"\n";

/// Runs `classad query ARGS`, expecting success; its standard output.
fn query_ok(args: &[&str], stdin: &str) -> String {
    let mut all = vec!["query"];
    all.extend_from_slice(args);
    let o = classad(&all, stdin);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    assert_eq!(stderr(&o), "", "{args:?}");
    stdout(&o)
}

/// `-af` prints one line per ad, values separated by spaces: strings bare, every
/// other value as HTCondor unparses it in old syntax (reals `%.16G`), an argument
/// that is not an attribute of the ad evaluated as an expression in it
/// (`AttrListPrintMask::render` and `display`, HTCondor's ad_printmask.cpp).
#[test]
fn query_af_prints_values_as_condor_status_does() {
    let f = tmp("af_slots.ads", SLOTS);
    assert_eq!(
        query_ok(
            &[
                &f,
                "-af",
                "Name",
                "Cpus",
                "Memory",
                "State",
                "Tags",
                "Missing",
                "Cpus * 2",
                "Memory > 100"
            ],
            ""
        ),
        "slot1@a 4 2.5 Unclaimed { \"x\",1.0 } undefined 8 false\n\
         slot2@bbbbbb 16 1024 Say \"hi\" undefined undefined 32 true\n"
    );
    // Names ignore case; the long spelling, two dashes, and a constraint.
    for af in ["-autoformat", "-autof", "--af", "--autoformat"] {
        assert_eq!(
            query_ok(&[&f, "-constraint", "Cpus > 4", af, "name", "1 / 0"], ""),
            "slot2@bbbbbb error\n",
            "{af}"
        );
    }
}

/// The `-af:` letters: `,` `t` `n` `g` separators, `l` labels, `V` quoted strings,
/// `r` raw expressions (`parse_autoformat_args`).
#[test]
fn query_af_suffixes_change_separators_labels_and_quoting() {
    let f = tmp("af_suffix.ads", SLOTS);
    let af = |suffix: &str, args: &[&str]| {
        let opt = format!("-af{suffix}");
        let mut all = vec![f.as_str(), opt.as_str()];
        all.extend_from_slice(args);
        query_ok(&all, "")
    };
    assert_eq!(
        af(":,", &["Name", "Cpus"]),
        "slot1@a, 4\nslot2@bbbbbb, 16\n"
    );
    assert_eq!(
        af(":t", &["Name", "Cpus"]),
        "slot1@a\t4\nslot2@bbbbbb\t16\n"
    );
    // A newline after each value but the last; the space before each but the
    // first stays.
    assert_eq!(
        af(":n", &["Name", "Cpus"]),
        "slot1@a\n 4\nslot2@bbbbbb\n 16\n"
    );
    assert_eq!(
        af(":g", &["Name", "Cpus"]),
        "\nslot1@a4\n\nslot2@bbbbbb16\n"
    );
    assert_eq!(
        af(":l", &["Name", "Cpus + 1"]),
        "Name = slot1@a Cpus + 1 = 5\nName = slot2@bbbbbb Cpus + 1 = 17\n"
    );
    assert_eq!(
        af(":V", &["Name", "State", "Cpus"]),
        "\"slot1@a\" \"Unclaimed\" 4\n\"slot2@bbbbbb\" \"Say \\\"hi\\\"\" 16\n"
    );
    // Raw: the attribute's expression; `undefined` for a missing one; any other
    // expression as written (unparsed).
    assert_eq!(
        af(":r", &["Requirements", "Memory", "Cpus*2"]),
        "TARGET.RequestCpus <= Cpus 2.5 Cpus * 2\nundefined 1024 Cpus * 2\n"
    );
    // `-af:lrng` prints what `-long` prints, ads unsorted.
    assert_eq!(
        af(":lrng", &["Name", "Cpus"]),
        "\nName = \"slot1@a\"\nCpus = 4\n\nName = \"slot2@bbbbbb\"\nCpus = 16\n"
    );
}

/// `-af:h`: a heading line of the arguments, each column padded to the widest
/// value HTCondor measured while rendering: a real by its new-syntax text (21
/// wide, though it prints as `2.5`), a boolean not at all (so it widens the column
/// only from its own row on).
#[test]
fn query_af_headings_pad_columns_as_condor_status_does() {
    let f = tmp("af_head.ads", SLOTS);
    assert_eq!(
        query_ok(&[&f, "-af:h", "Name", "Cpus", "Memory", "Cpus > 4"], ""),
        "Name         Cpus Memory                Cpus > 4\n\
         slot1@a      4    2.5                   false   \n\
         slot2@bbbbbb 16   1024                  true    \n"
    );
    // The headings even when no ad is selected.
    assert_eq!(
        query_ok(&[&f, "-constraint", "false", "-af:h,", "Name", "Cpus"], ""),
        "Name, Cpus\n"
    );
}

/// `-af:j`: the job id first, `ClusterId.ProcId` as condor_q prints it, the string
/// `JobId` for an ad without a ClusterId, nothing (not even a label) for an ad
/// with neither (`render_job_id`, HTCondor's print_format_tables.cpp).
#[test]
fn query_af_job_ids() {
    let jobs = tmp(
        "af_jobs.ads",
        "ClusterId = 12\nProcId = 3\nOwner = \"alice\"\n\n\
         ClusterId = 7\nOwner = \"bob\"\n\n\
         JobId = \"9.1\"\nOwner = \"carol\"\n\n\
         Owner = \"dave\"\n",
    );
    assert_eq!(
        query_ok(&[&jobs, "-af:j", "Owner"], ""),
        "12.3 alice\n7.-1 bob\n9.1 carol\n dave\n"
    );
    assert_eq!(
        query_ok(&[&jobs, "-limit", "2", "-af:jl", "Owner"], ""),
        "ID = 12.3 Owner = alice\nID = 7.-1 Owner = bob\n"
    );
    assert_eq!(
        query_ok(&[&jobs, "-af:jh", "Owner"], ""),
        " ID  Owner\n12.3 alice\n7.-1 bob  \n9.1  carol\n     dave \n"
    );
}

/// `-af:T` prints numbers as elapsed times, `-af:Y` as dates in the local time
/// zone (UTC here), anything else as nothing (`format_time`, `format_date`).
#[test]
fn query_af_times_and_dates() {
    let f = tmp(
        "af_times.ads",
        "Age = 93784\nStart = 1700000000\n\nAge = 59.9\nStart = \"never\"\n",
    );
    assert_eq!(
        query_ok(&[&f, "-af:T", "Age", "-af:Y", "Start"], ""),
        "  1+02:03:04 11/14 22:13\n  0+00:00:59 \n"
    );
}

/// The arguments of `-af` run to the next option; a lone `-` right after them only
/// ends the list (as in HTCondor), so that files can follow; with no file,
/// standard input is read.
#[test]
fn query_af_list_ends_at_an_option_or_a_lone_dash() {
    let f = tmp("af_end.ads", "A = 1\n\nA = 2\n");
    assert_eq!(query_ok(&["-af", "A", "A + 1", "-", &f], ""), "1 2\n2 3\n");
    assert_eq!(query_ok(&["-af", "A", "-limit", "1", &f], ""), "1\n");
    assert_eq!(query_ok(&["-af", "A"], "A = 5\n"), "5\n");
    assert_eq!(query_ok(&["-af", "A", "-", "-"], "A = 6\n"), "6\n");
    assert_eq!(query_ok(&["-af", "A", "--", &f], ""), "1\n2\n");
}

/// A bad `-af` argument is named with what was expected, and a file read as one
/// says how to put it after the arguments; bad options and values are named.
#[test]
fn query_errors_name_the_bad_argument() {
    let f = tmp("af_err.ads", "A = 1\n");
    let fails = |args: &[&str], want: &str| {
        let mut all = vec!["query"];
        all.extend_from_slice(args);
        let o = classad(&all, "");
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(stdout(&o), "", "{args:?}");
        assert!(stderr(&o).contains(want), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}");
    };
    fails(
        &[&f, "-af", "A", "B +"],
        "classad: -af: `B +` is not an attribute name or a ClassAd expression: line 1",
    );
    fails(
        &["-af", "A", &f],
        &format!("-af: `{f}` is a file, not an attribute or expression: files go before -af, or after a lone `-` that ends its arguments (an expression that is also a file's name can be written `({f})`)"),
    );
    // A file name that parses as an expression (`af_err` selecting `ads`) too.
    let dir = std::path::Path::new(&f).parent().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_classad"))
        .current_dir(dir)
        .args(["query", "-af:h", "A", "af_err.ads"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("-af:h: `af_err.ads` is a file"),
        "{}",
        stderr(&o)
    );
    fails(&[&f, "-af:z", "A"], "-af:z: unknown option `z` after `:`");
    fails(
        &[&f, "-af"],
        "-af needs at least one attribute or expression after it",
    );
    fails(
        &[&f, "/no/such/file.ads"],
        "/no/such/file.ads: No such file",
    );
    fails(
        &[&f, "-limit", "many"],
        "-limit: expected a positive number of ads, not `many`",
    );
    fails(&[&f, "-constraint", "A >"], "-constraint `A >`: line 1");
    fails(&[&f, "-long:yaml"], "unknown form `yaml`");
    fails(&[&f, "-frobnicate"], "unknown option `-frobnicate`");
}

/// Whole ads as condor_status prints them: attributes sorted ignoring case,
/// private ones left out, a blank line after every ad (`printVerbose`); `-json`
/// and `-long:new` frame the ads with a line of their own before, between and
/// after them; `-attributes` keeps only the names given (`sGetAdAttrs`).
#[test]
fn query_long_json_and_attributes() {
    let f = tmp("long_slots.ads", SLOTS);
    let long = query_ok(&["-long", &f], "");
    // With no output option these slots go to condor_status's table instead.
    assert!(query_ok(&[&f], "").starts_with("Name "));
    assert_eq!(long, query_ok(&["-l", &f], ""));
    assert_eq!(
        long,
        query_ok(&["-af", "Name", "-l", &f], ""),
        "the last form wins"
    );
    assert_eq!(long, query_ok(&["--long:long", &f], ""));
    assert_eq!(
        long,
        "Cpus = 4\nMemory = 2.5\nMyType = \"Machine\"\nName = \"slot1@a\"\n\
         Requirements = TARGET.RequestCpus <= Cpus\nState = \"Unclaimed\"\nTags = { \"x\",1.0 }\n\n\
         Cpus = 16\nMemory = 1024\nMyType = \"Machine\"\nName = \"slot2@bbbbbb\"\nState = \"Say \\\"hi\\\"\"\n\n"
    );
    assert_eq!(
        query_ok(&["-l", "-attributes", "name,CPUS", &f], ""),
        "Cpus = 4\nName = \"slot1@a\"\n\nCpus = 16\nName = \"slot2@bbbbbb\"\n\n"
    );
    // As in condor_status, -attributes chooses no form: the table stays, and ads
    // of no table print whole with only those attributes.
    assert!(query_ok(&["-attributes", "Name", &f], "").starts_with("Name "));
    assert_eq!(
        query_ok(&["-attributes", "A"], "A = 1\nB = 2\n"),
        "A = 1\n\n"
    );
    let json = "[\n{\n  \"Cpus\": 4,\n  \"Name\": \"slot1@a\"\n}\n,\n{\n  \"Cpus\": 16,\n  \"Name\": \"slot2@bbbbbb\"\n}\n]\n";
    for opt in ["-json", "--json", "-js", "-long:json"] {
        assert_eq!(
            query_ok(&[opt, "-attr", "Name Cpus", &f], ""),
            json,
            "{opt}"
        );
    }
    let new = "{\n[ Cpus = 4; Name = \"slot1@a\" ]\n,\n[ Cpus = 16; Name = \"slot2@bbbbbb\" ]\n}\n";
    for opt in ["-new", "--new", "-long:new"] {
        assert_eq!(query_ok(&[opt, "-at", "Name,Cpus", &f], ""), new, "{opt}");
    }
    // Nothing at all when no ad is selected.
    assert_eq!(query_ok(&["-json", "-constraint", "false", &f], ""), "");
    // The output of each form reads back as the same ads.
    for opt in ["-long", "-json", "-new"] {
        let text = query_ok(&[opt, &f], "");
        assert_eq!(
            query_ok(&["-", "-l", "-attributes", "Name,Cpus"], &text),
            query_ok(&["-l", "-attributes", "Name,Cpus", &f], ""),
            "{opt}"
        );
    }
}

/// Several files are read in order, `-` among them; `-limit` counts across them;
/// constraints are ANDed as HTCondor joins them; the options take one dash or
/// two and the abbreviations HTCondor's tools take.
#[test]
fn query_several_files_limits_and_constraints() {
    let a = tmp("multi_a.ads", "N = 1\n\nN = 2\n");
    let b = tmp("multi_b.ads", "N = 3\n\nN = 4\n");
    assert_eq!(
        query_ok(&[&a, "-", &b, "-af", "N"], "N = 10\n"),
        "1\n2\n10\n3\n4\n"
    );
    assert_eq!(
        query_ok(&["-limit", "3", &a, &b, "-af", "N"], ""),
        "1\n2\n3\n"
    );
    assert_eq!(query_ok(&["--limit", "1", &b, &a, "-af", "N"], ""), "3\n");
    assert_eq!(
        query_ok(&["-lim", "1", &b, "-json"], ""),
        "[\n{\n  \"N\": 3\n}\n]\n"
    );
    assert_eq!(
        query_ok(
            &[
                &a,
                &b,
                "-cons",
                "N > 1",
                "--constraint",
                "N < 4",
                "-af",
                "N"
            ],
            ""
        ),
        "2\n3\n"
    );
    // The constraint's error warning names the file and the ad in it.
    let o = classad(
        &[
            "query",
            &a,
            &b,
            "-constraint",
            "N > (N == 3 ? \"x\" : 0)",
            "-af",
            "N",
        ],
        "",
    );
    assert!(o.status.success());
    assert_eq!(stdout(&o), "1\n2\n4\n");
    assert!(
        stderr(&o).contains("warning: the constraint was error for 1 of 4 ads (first: ")
            && stderr(&o).contains("multi_b.ads, ad 0 counting from 0)"),
        "{}",
        stderr(&o)
    );
}

/// Slot ads as a collector holds them, for the table views.
const POOL_SLOTS: &str = "MyType = \"Machine\"\nName = \"slot1@node1.example.org\"\nOpSys = \"LINUX\"\n\
    Arch = \"X86_64\"\nState = \"Unclaimed\"\nActivity = \"Idle\"\nCondorLoadAvg = 0.0\nMemory = 16384\n\
    EnteredCurrentActivity = 1700000000\nMyCurrentTime = 1700000304\n\n\
    MyType = \"Machine\"\nName = \"slot2@node1.example.org\"\nOpSys = \"LINUX\"\nArch = \"X86_64\"\n\
    State = \"Claimed\"\nActivity = \"Busy\"\nCondorLoadAvg = 1.0\nMemory = 4096\n\
    EnteredCurrentActivity = 1699900000\nMyCurrentTime = 1700000304\n\n\
    MyType = \"Machine\"\nName = \"slot1@node2.example.org\"\nOpSys = \"WINDOWS\"\nArch = \"X86_64\"\n\
    State = \"Owner\"\nActivity = \"Idle\"\nCondorLoadAvg = 0.5\nMemory = 8192\n\
    EnteredCurrentActivity = 1700000000\nLastHeardFrom = 1700000060\n";

/// Job ads as `condor_q -long` writes them (with the schedd's `ServerTime`).
const QUEUE_JOBS: &str = "MyType = \"Job\"\nClusterId = 41\nProcId = 0\nOwner = \"alice\"\n\
    QDate = 1700000000\nJobStatus = 2\nJobPrio = 0\nRemoteUserCpu = 0.0\nRemoteWallClockTime = 0.0\n\
    ServerTime = 1700003723\nShadowBday = 1700000000\nMemoryUsage = 12\nCmd = \"/bin/sleep\"\n\
    Arguments = \"3600\"\n\n\
    MyType = \"Job\"\nClusterId = 41\nProcId = 1\nOwner = \"alice\"\nQDate = 1700000060\n\
    JobStatus = 1\nJobPrio = 5\nRemoteUserCpu = 0.0\nRemoteWallClockTime = 59.0\n\
    ServerTime = 1700003723\nImageSize = 1024\nCmd = \"/usr/bin/python3\"\nArgs = \"run.py --fast\"\n\n\
    MyType = \"Job\"\nClusterId = 42\nProcId = 0\nOwner = \"bob\"\nQDate = 1700003600\n\
    JobStatus = 5\nJobPrio = 0\nRemoteUserCpu = 0.0\nServerTime = 1700003723\n\
    Cmd = \"build.sh\"\nJobDescription = \"nightly build\"\n";

/// Issue 38, item 6: with no output option, slot ads print in `condor_status`'s
/// default table (`startdPFV_Normal` in HTCondor's src/condor_status.V6/prettyPrint.cpp,
/// laid out by `AttrListPrintMask::display`, src/condor_utils/ad_printmask.cpp, as
/// when not on a terminal: `ActvtyTime` from the ad's own `MyCurrentTime` or
/// `LastHeardFrom` by `render_activity_time`), then its totals by `Arch/OpSys`
/// (`StartdNormalTotal::displayHeader` and `displayInfo`, totals.cpp); `-long`
/// prints the ads whole, as the default did before.
#[test]
fn query_prints_slots_in_condor_status_s_table() {
    let f = tmp("table_slots.ads", POOL_SLOTS);
    assert_eq!(
        query_ok(&[&f], ""),
        "Name                               OpSys      Arch     State     Activity LoadAv Mem     ActvtyTime\n\
         \n\
         slot1@node1.example.org            LINUX      X86_64   Unclaimed Idle      0.000  16384  0+00:05:04\n\
         slot2@node1.example.org            LINUX      X86_64   Claimed   Busy      1.000   4096  1+03:51:44\n\
         slot1@node2.example.org            WINDOWS    X86_64   Owner     Idle      0.500   8192  0+00:01:00\n\
         \n               Total Owner Claimed Unclaimed Matched Preempting  Drain Backfill BkIdle\n\
         \n\
         \x20 X86_64/LINUX     2     0       1         1       0          0      0        0      0\n\
         X86_64/WINDOWS     1     1       0         0       0          0      0        0      0\n\
         \n\
         \x20        Total     3     1       1         1       0          0      0        0      0\n"
    );
    assert!(query_ok(&["-long", &f], "").starts_with("Activity = \"Idle\"\nArch = \"X86_64\"\n"));
    // None selected: no table at all (condor_status prints headings only over ads).
    assert_eq!(query_ok(&[&f, "-constraint", "false"], ""), "");
}

/// Issue 38, item 6: job ads print in `condor_q`'s table (`jobDefault_PrintFormat` in
/// HTCondor's src/condor_q.V6/queue.cpp, the `-nobatch` view, laid out wide as when
/// not on a terminal: `print_a_result` trims the row), with the renderers of its
/// columns (`local_render_cpu_time` and `job_time`, `local_render_job_status_char`,
/// `local_render_memory_usage`; `render_job_description` in
/// print_format_tables.cpp) and the totals line of `standard_summary_legacy`.
/// Dates are UTC here.
#[test]
fn query_prints_jobs_in_condor_q_s_table() {
    let f = tmp("table_jobs.ads", QUEUE_JOBS);
    assert_eq!(
        query_ok(&[&f], ""),
        " ID      OWNER            SUBMITTED     RUN_TIME ST PRI SIZE CMD\n\
         \x20 41.0   alice          11/14 22:13   0+01:02:03 R  0   12.0 sleep 3600\n\
         \x20 41.1   alice          11/14 22:14   0+00:00:59 I  5    1.0 python3 run.py --fast\n\
         \x20 42.0   bob            11/14 23:13   0+00:00:00 H  0        (nightly build)\n\
         \n\
         3 jobs; 0 completed, 0 removed, 1 idle, 1 running, 1 held, 0 suspended\n\n"
    );
    // A cluster id from 9999 on widens the id (`fixup_std_column_widths`).
    let big = tmp(
        "table_big_job.ads",
        "MyType = \"Job\"\nClusterId = 123456\nProcId = 7\nOwner = \"carol\"\nJobStatus = 1\n\
         JobPrio = 0\nMemoryUsage = 2048\nCmd = \"a.out\"\n",
    );
    let out = query_ok(&[&big], "");
    assert_eq!(
        out.lines().take(2).collect::<Vec<_>>(),
        [
            " ID        OWNER            SUBMITTED     RUN_TIME ST PRI SIZE   CMD",
            "123456.7   carol                                   I  0   2048.0 a.out"
        ]
    );
}

/// Issue 38, item 6: ads that are neither slots nor jobs print whole before the
/// tables, never dropped; `-total` prints only the totals (`condor_status -total`:
/// `wantOnlyTotals` in src/condor_status.V6/status.cpp; `condor_q -totals`:
/// `print_full_footer` in queue.cpp) and names on standard error the ads no
/// totals count, with the file and the first ad.
#[test]
fn query_total_and_ads_of_no_table() {
    let slots = tmp("total_slots.ads", POOL_SLOTS);
    let jobs = tmp("total_jobs.ads", QUEUE_JOBS);
    let schedd = tmp(
        "total_schedd.ads",
        "MyType = \"Scheduler\"\nName = \"schedd@submit\"\n",
    );
    let all = query_ok(&[&schedd, &slots, &jobs], "");
    assert!(
        all.starts_with("MyType = \"Scheduler\"\nName = \"schedd@submit\"\n\nName    "),
        "{all}"
    );
    assert!(all.contains("\n ID      OWNER "), "{all}");
    for total in ["-total", "-totals", "-t", "--totals"] {
        assert_eq!(
            query_ok(&[total, &slots, &jobs], ""),
            "\n               Total Owner Claimed Unclaimed Matched Preempting  Drain Backfill BkIdle\n\
             \n\
             \x20 X86_64/LINUX     2     0       1         1       0          0      0        0      0\n\
             X86_64/WINDOWS     1     1       0         0       0          0      0        0      0\n\
             \n\
             \x20        Total     3     1       1         1       0          0      0        0      0\n\
             \n\
             3 jobs; 0 completed, 0 removed, 1 idle, 1 running, 1 held, 0 suspended\n\n",
            "{total}"
        );
    }
    let o = classad(&["query", "-total", &slots, &schedd], "");
    assert!(o.status.success());
    assert!(!stdout(&o).contains("Scheduler"));
    let err = stderr(&o);
    assert!(
        err.contains("1 other selected ads are in no totals (first: ")
            && err.contains("total_schedd.ads, ad 0 counting from 0); -long prints them"),
        "{err}"
    );
}

/// Issue 38, item 6: `-format FMT ATTR` prints as `condor_status -format` does
/// (`registerFormatF` and `AttrListPrintMask::render`/`display` in HTCondor's
/// src/condor_utils/ad_printmask.cpp, the format read by `parsePrintfFormat` in
/// printf_format.cpp after `collapse_escapes`): C's conversions of the ad's value,
/// no separator and no newline of its own, nothing of a format whose value has the
/// wrong type, `%s` of a non-string attribute its expression, `%T` the whole format.
#[test]
fn query_format_prints_as_condor_status_does() {
    let f = tmp("format_slots.ads", POOL_SLOTS);
    assert_eq!(
        query_ok(
            &[&f, "-format", "%-24s", "Name", "-format", "%6d", "Memory", "-format", " %.2f\\n", "CondorLoadAvg"],
            ""
        ),
        "slot1@node1.example.org  16384 0.00\nslot2@node1.example.org   4096 1.00\nslot1@node2.example.org   8192 0.50\n"
    );
    // No newline unless the format writes one.
    assert_eq!(
        query_ok(&[&f, "-limit", "2", "-f", "%s;", "Name"], ""),
        "slot1@node1.example.org;slot2@node1.example.org;"
    );
    // A value of the wrong type prints nothing of its format, but its width.
    assert_eq!(
        query_ok(
            &[
                &f,
                "-limit",
                "1",
                "--format",
                "Name=%d\\n",
                "Name",
                "-format",
                "[%4d]",
                "Missing"
            ],
            ""
        ),
        "    "
    );
    // %s of an attribute that is not a string: its expression; %v of it: its value.
    let req = tmp("format_req.ads", "Cpus = 4\nRequirements = Cpus >= 2\n");
    assert_eq!(
        query_ok(
            &[
                &req,
                "-format",
                "%s | ",
                "Requirements",
                "-format",
                "%v | ",
                "Requirements",
                "-format",
                "%x\\n",
                "Cpus * 4"
            ],
            ""
        ),
        "Cpus >= 2 | true | 10\n"
    );
    // %T and %Y replace the whole format; %% is a percent sign.
    assert_eq!(
        query_ok(
            &[
                &f,
                "-limit",
                "1",
                "-format",
                "ran %T\\n",
                "MyCurrentTime - EnteredCurrentActivity",
                "-format",
                " %Y",
                "EnteredCurrentActivity",
                "-format",
                " %d%%\\n",
                "100"
            ],
            ""
        ),
        "  0+00:05:0411/14 22:13 100%\n"
    );
}

/// Issue 38, item 6: `-sort EXPR` orders the ads as `condor_status -sort` does
/// (`ClassadSortSpecs::RenderKey` in HTCondor's src/condor_status.V6/status.cpp,
/// keys compared by `natural_cmp`): numbers by value, text naturally, undefined as
/// that word after the numbers, ties in reading order, several keys in turn; in
/// every output form.
#[test]
fn query_sort_orders_as_condor_status_does() {
    let f = tmp(
        "sort.ads",
        "Name = \"slot10\"\nCpus = 2\n\nName = \"slot2\"\nCpus = 16\n\nName = \"slot1\"\n\n\
         Name = \"slot3\"\nCpus = 2\n",
    );
    assert_eq!(
        query_ok(&[&f, "-sort", "Name", "-af", "Name"], ""),
        "slot1\nslot2\nslot3\nslot10\n"
    );
    assert_eq!(
        query_ok(&[&f, "-sort", "Cpus", "-af", "Name", "Cpus"], ""),
        "slot10 2\nslot3 2\nslot2 16\nslot1 undefined\n"
    );
    assert_eq!(
        query_ok(&["-so", "Cpus", "--sort", "Name", &f, "-af", "Name"], ""),
        "slot3\nslot10\nslot2\nslot1\n"
    );
    assert_eq!(
        query_ok(&[&f, "-sort", "Name", "-limit", "2", "-new"], ""),
        "{\n[ Cpus = 16; Name = \"slot2\" ]\n,\n[ Cpus = 2; Name = \"slot10\" ]\n}\n"
    );
    let slots = tmp("sort_slots.ads", POOL_SLOTS);
    let table = query_ok(&[&slots, "-sort", "Memory"], "");
    let names: Vec<&str> = table.lines().skip(2).take(3).map(|l| &l[..23]).collect();
    assert_eq!(
        names,
        [
            "slot2@node1.example.org",
            "slot1@node2.example.org",
            "slot1@node1.example.org"
        ]
    );
}

/// Issue 38, item 6: the new options' mistakes say what is wrong and what to do.
#[test]
fn query_format_and_sort_errors_say_what_to_do() {
    let f = tmp("format_err.ads", "A = 1\n");
    let err = |args: &[&str]| {
        let mut all = vec!["query"];
        all.extend_from_slice(args);
        let o = classad(&all, "");
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(stdout(&o), "", "{args:?}");
        stderr(&o)
    };
    let e = err(&[&f, "-format", "%s"]);
    assert!(
        e.contains("-format needs a format and an attribute after it: -format FMT ATTR"),
        "{e}"
    );
    let e = err(&[&f, "-format", "%s %d", "A"]);
    assert!(
        e.contains("a format takes one conversion") && e.contains("use one -format per value"),
        "{e}"
    );
    let e = err(&[&f, "-format", "%*d", "A"]);
    assert!(
        e.contains("`%*d` is not taken") && e.contains("write the width and precision as numbers"),
        "{e}"
    );
    let e = err(&[&f, "-format", "%d", "A +"]);
    assert!(
        e.contains("`A +` is not an attribute name or a ClassAd expression"),
        "{e}"
    );
    let e = err(&[&f, "-format", "%d", "A", "-af", "A"]);
    assert!(
        e.contains("-af and -format cannot be mixed") && e.contains("-format ' %v' ATTR"),
        "{e}"
    );
    let e = err(&[&f, "-af", "A", "-format", "%d", "A"]);
    assert!(e.contains("-af and -format cannot be mixed"), "{e}");
    let e = err(&[&f, "-sort"]);
    assert!(
        e.contains("-sort needs an expression to sort by after it"),
        "{e}"
    );
    let e = err(&[&f, "-sort", "A +"]);
    assert!(
        e.contains("-sort `A +`: not an attribute name or a ClassAd expression"),
        "{e}"
    );
}

/// `classad query --help` (and HTCondor's `-help`) says what the command does
/// with nothing but files, and lists the options.
#[test]
fn query_help() {
    for help in ["--help", "-help", "-h"] {
        let o = classad(&["query", help], "");
        assert!(o.status.success(), "{help}");
        let out = stdout(&o);
        assert!(
            out.contains("With nothing but files, each ad is printed in the table of its MyType"),
            "{help}: {out}"
        );
        for opt in [
            "-constraint",
            "-limit",
            "-long",
            "-json",
            "-attributes",
            "-af[:jlhVrTY,tng]",
            "-format FMT ATTR",
            "-sort EXPR",
            "-total",
        ] {
            assert!(out.contains(opt), "{help}: {opt}");
        }
    }
}

/// Issue 13: `classad_eval`'s forms. Every case of
/// `tests/conformance/eval_forms.jsonl` (HTCondor's `classad_eval` loop run on
/// HTCondor's library by `generate_eval_forms.py`): assignments build the ad,
/// which is printed before the first expression after a change, `-quiet`
/// silences it, `-file` and `-target-file` give the starting ads.
#[test]
fn eval_assignments_print_as_classad_eval_does() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/conformance/eval_forms.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut cases = 0;
    for line in text.lines() {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let files = case["files"].as_object().unwrap();
        let args: Vec<String> = case["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                let a = a.as_str().unwrap();
                match files.get(a) {
                    Some(ad) => tmp(&format!("forms-{a}"), ad.as_str().unwrap()),
                    None => a.to_string(),
                }
            })
            .collect();
        let mut full = vec!["eval"];
        full.extend(args.iter().map(String::as_str));
        let o = classad(&full, "");
        assert_eq!(
            stdout(&o),
            case["stdout"].as_str().unwrap(),
            "classad eval {:?}\nstderr: {}",
            &full[1..],
            String::from_utf8_lossy(&o.stderr)
        );
        cases += 1;
    }
    assert!(cases >= 20, "{cases} cases");
}

/// Issue 13: `--quiet` anywhere silences the ad; an argument that reads as an
/// expression is one (`[a = 1].a`, which `classad_eval` takes for the ad
/// `[a = 1]`); a failed assignment reports where it failed.
#[test]
fn eval_assignment_details() {
    let o = classad(&["eval", "a = 2", "a * 3", "--quiet"], "");
    assert_eq!(stdout(&o), "6\n");
    let o = classad(&["eval", "[a = 1].a", "b = 2", "b"], "");
    assert_eq!(stdout(&o), "[  ]\n1\n[ b = 2 ]\n2\n");
    let o = classad(&["eval", "a = (1 +"], "");
    assert_eq!(
        stdout(&o),
        "parse error: line 1, column 9: expected an expression, found the end of the input\n"
    );
    assert!(!o.status.success());
}

/// Issue 33 item 1: on standard input every line gives exactly one output line,
/// in order (a value or a `parse error` line), whatever it holds: expressions,
/// assignments (a parse error, as in HTCondor's expression parser), lines that do
/// not parse, blank lines, CRLF ends; with `--my`, in that ad.
#[test]
fn eval_stdin_gives_one_line_per_line() {
    let input = "1 + 1\na = 3\na * 2\n\nb = a + 1; c = 0\n(1 +\n\"x\" == \"X\"\r\n[a = 1].a\n  \nstrcat(\"a\", 1)\n";
    let o = classad(&["eval"], input);
    assert!(!o.status.success());
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), input.lines().count(), "{out}");
    let expect_value = [
        (0, "2"),
        (2, "undefined"),
        (6, "true"),
        (7, "1"),
        (9, "\"a1\""),
    ];
    for (i, v) in expect_value {
        assert_eq!(lines[i], v, "line {i}: {out}");
    }
    for i in [1, 3, 4, 5, 8] {
        assert!(
            lines[i].starts_with("parse error: line 1, column "),
            "line {i}: {out}"
        );
    }
    let my = tmp("stdin-my.ad", "a = 5\n");
    let o = classad(&["eval", "--my", &my], "a = 1\na\n");
    assert_eq!(stdout(&o).lines().count(), 2);
    assert!(stdout(&o).starts_with("parse error"));
    assert!(stdout(&o).ends_with("\n5\n"));
}

/// Issue 13: a `--my` file of several ads is an error that names `--all`;
/// with `--all` the arguments run in each ad in turn.
#[test]
fn eval_all_runs_in_each_ad_of_the_file() {
    let f = tmp("eval-all.ads", "Memory = 10\n\nMemory = 20\n");
    let o = classad(&["eval", "--my", &f, "Memory * 2"], "");
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--all"));
    let o = classad(&["eval", "--my", &f, "--all", "Memory * 2"], "");
    assert_eq!(stdout(&o), "20\n40\n");
    let o = classad(&["eval", "-file", &f, "--all", "x = Memory + 1", "x"], "");
    assert_eq!(
        stdout(&o),
        "[ x = Memory + 1; Memory = 10 ]\n11\n[ x = Memory + 1; Memory = 20 ]\n21\n"
    );
}

/// Issue 38, item 6: `classad negotiate --names` prints the cycle's matches as
/// `classad match --names` does (`write_named_matches` in src/cli/match_output.rs):
/// the job's `ClusterId.ProcId` and the slot's `Name`, `#<index>` without one, in
/// the order made, each line the same match as the indices print.
#[test]
fn negotiate_names_jobs_and_slots_as_match_does() {
    let jobs = tmp(
        "negotiate_names.jobs",
        "ClusterId = 7\nProcId = 0\nOwner = \"u\"\nRequirements = TARGET.Memory >= 10\n\n\
         ClusterId = 7\nProcId = 1\nOwner = \"u\"\nRequirements = TARGET.Memory >= 100\n\n\
         ClusterId = 8\nProcId = 0\nOwner = \"u\"\nRequirements = false\n",
    );
    let slots = tmp(
        "negotiate_names.slots",
        "Name = \"slot1@a\"\nMemory = 50\nRequirements = true\n\n\
         Memory = 500\nRequirements = true\n",
    );
    let args = [
        "negotiate",
        "--quiet",
        "--jobs",
        &jobs,
        "--machines",
        &slots,
    ];
    let by_index = stdout(&classad(&args, ""));
    let by_name = stdout(&classad(&[&args[..], &["--names"]].concat(), ""));
    assert_eq!(by_index.lines().count(), 2, "{by_index}");
    let to_name = |line: &str| {
        let (j, s) = line.split_once(' ').unwrap();
        let job = ["7.0", "7.1", "8.0"][j.parse::<usize>().unwrap()];
        let slot = ["slot1@a", "#1"][s.parse::<usize>().unwrap()];
        format!("{job} {slot}")
    };
    let expected: Vec<String> = by_index.lines().map(to_name).collect();
    assert_eq!(by_name.lines().collect::<Vec<_>>(), expected);
    assert!(expected.contains(&"7.1 #1".to_string()), "{by_name}");
    // JSON is unchanged by --names: it always carries both.
    let json = stdout(&classad(
        &[&args[..], &["--names", "--format", "json"]].concat(),
        "",
    ));
    assert!(json.contains("\"slot_name\": \"slot1@a\""), "{json}");
}

/// Issue 13: `classad match --names` names jobs by `ClusterId.ProcId` and slots
/// by `Name` (`#<index>` without one), in the cycle and with `--all-pairs`; the
/// summary on standard error counts matched and unmatched jobs.
#[test]
fn match_names_jobs_and_slots() {
    let jobs = tmp(
        "names.jobs",
        "ClusterId = 7\nProcId = 0\nOwner = \"u\"\nRequirements = TARGET.Memory >= 10\n\n\
         ClusterId = 7\nProcId = 1\nOwner = \"u\"\nRequirements = TARGET.Memory >= 100\n\n\
         ClusterId = 8\nProcId = 0\nOwner = \"u\"\nRequirements = false\n",
    );
    let slots = tmp(
        "names.slots",
        "Name = \"slot1@a\"\nMemory = 50\nRequirements = true\n\n\
         Memory = 500\nRequirements = true\n",
    );
    let args = ["match", "--jobs", &jobs, "--machines", &slots];
    let o = classad(&[&args[..], &["--all-pairs"]].concat(), "");
    assert_eq!(stdout(&o), "0 0\n0 1\n1 1\n");
    let o = classad(&[&args[..], &["--all-pairs", "--names"]].concat(), "");
    assert_eq!(stdout(&o), "7.0 slot1@a\n7.0 #1\n7.1 #1\n");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(err.contains("3 matches, 1 jobs unmatched"), "{err}");
    // The cycle: the same pairs by index and by name.
    let by_index = stdout(&classad(&args, ""));
    let o = classad(&[&args[..], &["--names"]].concat(), "");
    let by_name = stdout(&o);
    assert_eq!(by_index.lines().count(), 2, "{by_index}");
    let to_name = |line: &str| {
        let (j, s) = line.split_once(' ').unwrap();
        let job = ["7.0", "7.1", "8.0"][j.parse::<usize>().unwrap()];
        let slot = ["slot1@a", "#1"][s.parse::<usize>().unwrap()];
        format!("{job} {slot}")
    };
    assert_eq!(
        by_index.lines().map(to_name).collect::<Vec<_>>(),
        by_name.lines().collect::<Vec<_>>()
    );
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(err.contains("2 matches, 1 jobs unmatched"), "{err}");
}

/// Issue 13: `classad match --format json`: the cycle as `classad negotiate
/// --format json` prints it; with `--all-pairs`, every job with its matching
/// slots best first and their rank values, alike on both engines and without
/// autoclusters, and the same pairs as the text output.
#[test]
fn match_json_lists_jobs_with_their_slots_and_ranks() {
    let o = classad(&["match", "--format", "json"], "");
    let n = classad(&["negotiate", "--format", "json"], "");
    let strip = |o: &Output| {
        let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        // Durations differ from run to run.
        v["stats"]
            .as_object_mut()
            .unwrap()
            .retain(|k, _| !k.contains("Duration") && !k.contains("Rate"));
        v
    };
    assert_eq!(strip(&o), strip(&n));
    let json_of = |extra: &[&str]| {
        let o = classad(
            &[&["match", "--all-pairs", "--format", "json"][..], extra].concat(),
            "",
        );
        assert!(o.status.success());
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let vm = json_of(&[]);
    assert_eq!(vm, json_of(&["--engine", "reference"]));
    assert_eq!(vm, json_of(&["--no-autocluster"]));
    let text = stdout(&classad(&["match", "--all-pairs"], ""));
    let mut from_json = Vec::new();
    for job in vm.as_array().unwrap() {
        let mut slots: Vec<u64> = job["slots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["slot"].as_u64().unwrap())
            .collect();
        // Best first: each slot's key is at least the next one's.
        let keys: Vec<(f64, f64, f64)> = job["slots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let f = |k: &str| s[k].as_f64().unwrap();
                (f("pre_job_rank"), f("job_rank"), f("post_job_rank"))
            })
            .collect();
        assert!(keys.windows(2).all(|w| w[0] >= w[1]), "{keys:?}");
        slots.sort();
        for s in slots {
            from_json.push(format!("{} {s}", job["job"]));
        }
        assert!(job["job_id"].as_str().unwrap().contains('.'));
    }
    assert_eq!(from_json.join("\n") + "\n", text);
}

/// Issue 13: `classad query -xml` (and `-long:xml`) prints what `condor_q -xml`
/// prints, which reads back as the same ads; with no ad selected, the header
/// and footer alone.
#[test]
fn query_prints_xml_that_reads_back() {
    let f = tmp(
        "query-xml.ads",
        "Name = \"a\"\nCpus = 2\n\nName = \"b\"\nCpus = 4\nClaimId = \"x\"\n",
    );
    let o = classad(&["query", "-xml", "-constraint", "Cpus > 2", &f], "");
    assert_eq!(
        stdout(&o),
        "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n<c>\n    \
         <a n=\"Cpus\"><i>4</i></a>\n    <a n=\"Name\"><s>b</s></a>\n</c>\n</classads>\n"
    );
    let all = stdout(&classad(&["query", "-long:xml", &f], ""));
    let o = classad(&["query", "-af", "Name", "Cpus", "-", "-"], &all);
    assert_eq!(stdout(&o), "a 2\nb 4\n");
    let o = classad(&["query", "--xml", "-constraint", "false", &f], "");
    assert_eq!(
        stdout(&o),
        "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n</classads>\n"
    );
}
/// A small pool for `classad analyze`: four slots on three machines (one
/// running bob's job, one whose START takes only alice, one on Windows) and a
/// queue of alice's two like jobs and bob's held one, asking more memory than
/// any slot has.
const ANALYZE_SLOTS: &str = "\
Name = \"slot1@a\"\nMachine = \"a\"\nArch = \"X86_64\"\nOpSys = \"LINUX\"\nMemory = 2048\n\
Requirements = (TARGET.RequestMemory <= MY.Memory) && (TARGET.Owner =!= \"mallory\")\n\n\
Name = \"slot2@a\"\nMachine = \"a\"\nArch = \"X86_64\"\nOpSys = \"LINUX\"\nMemory = 8192\n\
RemoteUser = \"bob@x\"\nRequirements = (TARGET.RequestMemory <= MY.Memory)\n\n\
Name = \"slot1@b\"\nMachine = \"b\"\nArch = \"aarch64\"\nOpSys = \"LINUX\"\nMemory = 16384\n\
Start = TARGET.Owner == \"alice\"\nRequirements = START\n\n\
Name = \"slot1@c\"\nMachine = \"c\"\nArch = \"X86_64\"\nOpSys = \"WINDOWS\"\nMemory = 4096\n\
Requirements = true\n";

const ANALYZE_JOBS: &str = "\
ClusterId = 7\nProcId = 0\nOwner = \"alice\"\nUser = \"alice@x\"\nJobUniverse = 5\nJobStatus = 1\n\
RequestMemory = 4096\n\
Requirements = (TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") && (TARGET.Memory >= RequestMemory)\n\n\
ClusterId = 7\nProcId = 1\nOwner = \"alice\"\nUser = \"alice@x\"\nJobUniverse = 5\nJobStatus = 1\n\
RequestMemory = 4096\n\
Requirements = (TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") && (TARGET.Memory >= RequestMemory)\n\n\
ClusterId = 8\nProcId = 0\nOwner = \"bob\"\nUser = \"bob@x\"\nJobUniverse = 5\nJobStatus = 5\n\
HoldReason = \"disk full\"\nRequestMemory = 32768\n\
Requirements = (TARGET.Arch == \"X86_64\") && (TARGET.Memory >= RequestMemory)\n";

/// `classad analyze` on the small pool, written afresh for each run (tests
/// run at once, and one must not read a file another is writing).
fn analyze(args: &[&str]) -> Output {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (jobs, slots) = (
        tmp(&format!("analyze-jobs-{n}.ads"), ANALYZE_JOBS),
        tmp(&format!("analyze-slots-{n}.ads"), ANALYZE_SLOTS),
    );
    let mut all = vec!["analyze", "--jobs", &jobs, "--machines", &slots];
    all.extend_from_slice(args);
    let o = classad(&all, "");
    // Name the files as the expected texts do.
    let rename = |b: &[u8]| {
        String::from_utf8(b.to_vec())
            .unwrap()
            .replace(&jobs, "jobs.ads")
            .replace(&slots, "slots.ads")
    };
    Output {
        status: o.status,
        stdout: rename(&o.stdout).into_bytes(),
        stderr: rename(&o.stderr).into_bytes(),
    }
}

/// A job one slot matches: condor_q's report, step for step. Arch and OpSys
/// each match three slots but only two together, so HTCondor keeps their `&&`
/// as a row; the one matching slot runs bob's job.
#[test]
fn analyze_a_job_as_condor_q_better_analyze_prints_it() {
    let o = analyze(&["7.0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "

-- Jobads: jobs.ads
The Requirements expression for job 7.000 is

    (TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") &&
    (TARGET.Memory >= RequestMemory)

    [0]    : TARGET.Arch == \"X86_64\"
    [1]    : TARGET.OpSys == \"LINUX\"
    [2]    : [0] && [1]
    [3]    : TARGET.Memory >= RequestMemory
    [4]    : [2] && [3]

Job 7.000 defines the following attributes:

    RequestMemory = 4096 (mb)

The Requirements expression for job 7.000 reduces to these conditions:

        Slots
Step   Matched  Condition
----- --------- ---------
[0]           3  TARGET.Arch == \"X86_64\"
[1]           3  TARGET.OpSys == \"LINUX\"
[2]           2  [0] && [1]
[3]           3  TARGET.Memory >= RequestMemory
[4]           1  [2] && [3]

Suggestions:

    Condition                         Slots Matched       Suggestion
    ---------                         -------------       ----------
1   TARGET.Arch == \"X86_64\"           3
2   TARGET.OpSys == \"LINUX\"           3
3   TARGET.Memory >= RequestMemory    3


007.000:  Run analysis summary ignoring user priority.  Of 4 slots on 3 machines,
      3 slots are rejected by your job's requirements
      0 slots reject your job because of their own requirements
      1 slots match but are serving other users
      0 slots match and are willing to run your job

"
    );
}

/// A job no slot accepts, by index: the memory condition alone matches none,
/// the Arch row it dominates is left out, and the suggestion brings the
/// request down to the closest slot's memory (slot2@a: 8192 is nearest
/// 32768); the job is held, as the last lines say.
#[test]
fn analyze_suggests_what_to_change_when_no_slot_is_accepted() {
    let o = analyze(&["2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let tail = out
        .split("reduces to these conditions:\n\n")
        .nth(1)
        .expect("the reduced table");
    assert_eq!(
        tail,
        "        Slots
Step   Matched  Condition
----- --------- ---------
[1]           0  TARGET.Memory >= RequestMemory

Suggestions:

    Condition                         Slots Matched       Suggestion
    ---------                         -------------       ----------
1   TARGET.Memory >= RequestMemory    0                   MODIFY TO 8192
2   TARGET.Arch == \"X86_64\"           3


008.000:  Run analysis summary ignoring user priority.  Of 4 slots on 3 machines,
      4 slots are rejected by your job's requirements
      0 slots reject your job because of their own requirements
      0 slots match and are willing to run your job

WARNING:  Be advised:
   No machines matched the job's constraints


008.000:  Job is held.

Hold reason: disk full

"
    );
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&analyze(&["8.0", "--format", "json"]))).unwrap();
    let job = &json["jobs"][0];
    assert_eq!(job["job"], 2);
    assert_eq!(job["closest_slot"]["name"], "slot2@a");
    assert_eq!(job["conjuncts"][1]["suggestion"], "MODIFY TO 8192");
    assert_eq!(job["conjuncts"][1]["sole_obstacle_for"], 3);
    assert_eq!(job["conditions"][0]["slots"], 0);
    assert_eq!(job["summary"]["rejected_by_job"], 4);
    assert_eq!(job["status"], "Job is held.\n\nHold reason: disk full");
}

/// Without a job named: one job per autocluster (alice's two jobs are one),
/// each with the jobs it stands for; JSON says the same.
#[test]
fn analyze_without_a_job_takes_one_per_autocluster() {
    let out = stdout(&analyze(&[]));
    let heads: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("-- Autocluster"))
        .collect();
    assert_eq!(
        heads,
        [
            "-- Autocluster 0 : 2 jobs, analyzed as job 7.0",
            "-- Autocluster 1 : 1 job, analyzed as job 8.0"
        ]
    );
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&analyze(&["--format", "json"]))).unwrap();
    let jobs = json["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2);
    assert_eq!(jobs[0]["jobs_in_autocluster"], 2);
    assert_eq!(jobs[1]["job_id"], "8.0");
    assert_eq!(jobs[0]["summary"]["serving_other_users"], 1);
    // Both engines count alike.
    for engine in ["vm", "reference"] {
        let again: serde_json::Value =
            serde_json::from_str(&stdout(&analyze(&["--format", "json", "--engine", engine])))
                .unwrap();
        assert_eq!(again, json, "{engine}");
    }
}

/// A slot against the queue (`condor_q -better-analyze -reverse`), by Name
/// with condor_q's one-dash spelling: its START read in place, its step counted
/// in autoclusters, its summary in jobs.
#[test]
fn analyze_reverse_explains_a_slot() {
    let (jobs, slots) = (
        tmp("analyze-rev-jobs.ads", ANALYZE_JOBS),
        tmp("analyze-rev-slots.ads", ANALYZE_SLOTS),
    );
    let o = classad(
        &[
            "analyze", "-jobads", &jobs, "-slotads", &slots, "-reverse", "slot1@b",
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).replace(&jobs, "jobs.ads"),
        "

-- Jobads: jobs.ads

-- Slot: slot1@b : Analyzing matches for 3 Jobs in 2 autoclusters

The Requirements expression for this slot is

    START

  START is
    TARGET.Owner == \"alice\"

    [0]    : TARGET.Owner == \"alice\"

This slot defines the following attributes:


The Requirements expression for this slot reduces to these conditions:

       Clusters
Step   Matched  Condition
----- --------- ---------
[0]           1  TARGET.Owner == \"alice\"

Conditions:

    Condition                         Clusters Matched    Jobs Matched
    ---------                         ----------------    ------------
1   TARGET.Owner == \"alice\"           1                   2

slot1@b: Run analysis summary of 3 jobs.
    0 (0.00 %) match both slot and job requirements.
    2 match the requirements of this slot.
    0 have job requirements that match this slot.
"
    );
    // By machine: both slots of machine a, in JSON; against job 7.0 only.
    let json: serde_json::Value = serde_json::from_str(&stdout(&analyze(&[
        "7.0",
        "--format",
        "json",
        "--reverse",
        "a",
    ])))
    .unwrap();
    let slots = json["slots"].as_array().unwrap();
    assert_eq!(slots.len(), 2);
    assert_eq!(slots[0]["name"], "slot1@a");
    assert_eq!(slots[0]["summary"]["jobs"], 1);
    assert_eq!(slots[0]["summary"]["slot_accepts"], 0);
    assert_eq!(slots[1]["summary"]["matching"], 1);
    assert_eq!(slots[1]["attributes"]["Memory"], "8192");
}

/// A pool of one slot: condor_q shows the slot's attributes the job reads.
#[test]
fn analyze_against_a_single_slot_shows_its_attributes() {
    let slots = tmp(
        "analyze-one-slot.ads",
        ANALYZE_SLOTS.split("\n\n").nth(2).unwrap(),
    );
    let jobs = tmp("analyze-one-jobs.ads", ANALYZE_JOBS);
    let o = classad(&["analyze", "--jobs", &jobs, "--machines", &slots, "0"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(
            "    RequestMemory = 4096 (mb)\n\nslot1@b has the following attributes:\n\n    \
             TARGET.Arch = \"aarch64\"\n    TARGET.Memory = 16384 (mb)\n    \
             TARGET.OpSys = \"LINUX\"\n\nThe Requirements"
        ),
        "{}",
        stdout(&o)
    );
}

/// Bad requests get a message that says what was wrong, and exit status 2.
#[test]
fn analyze_refuses_what_it_cannot_analyze_with_clear_errors() {
    let cases: [(&[&str], &str); 6] = [
        (&["9.9"], "no job 9.9 in jobs.ads"),
        (
            &["3"],
            "job index 3 is out of range: jobs.ads has 3 job ads (0 to 2)",
        ),
        (
            &["7"],
            "job index 7 is out of range: jobs.ads has 3 job ads (0 to 2)",
        ),
        (&["alice"], "JOB must be an index in the job file"),
        (
            &["--reverse", "slot9@z"],
            "no slot named \"slot9@z\" in slots.ads (by index, Name or Machine)",
        ),
        (
            &["--reverse", "4"],
            "slot index 4 is out of range: slots.ads has 4 slot ads (0 to 3)",
        ),
    ];
    for (args, message) in cases {
        let o = analyze(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{args:?}");
    }
    let empty = tmp("analyze-empty.ads", "");
    let slots = tmp("analyze-err-slots.ads", ANALYZE_SLOTS);
    let o = classad(&["analyze", "--jobs", &empty, "--machines", &slots], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&format!("{empty}: no job ads in the file")));
    let o = classad(&["analyze", "--jobs", &slots, "--machines", &empty], "");
    assert!(stderr(&o).contains(&format!("{empty}: no slot ads in the file")));
    // A job without Requirements: named, an error; as an autocluster, said so.
    let bare = tmp(
        "analyze-bare.ads",
        "ClusterId = 3\nProcId = 1\nOwner = \"a\"\n",
    );
    let o = classad(
        &["analyze", "--jobs", &bare, "--machines", &slots, "3.1"],
        "",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&format!(
        "job 3.1 (index 0 of {bare}) has no Requirements expression: nothing to analyze"
    )));
    let o = classad(&["analyze", "--jobs", &bare, "--machines", &slots], "");
    assert!(o.status.success());
    assert!(
        stdout(&o).contains("Job 3.001 has no Requirements expression: every slot rejects it.\n")
    );
    assert!(stdout(&o).contains("      4 slots are rejected by your job's requirements\n"));
}

/// Standard input can feed one input only: the first read would take all of it
/// and the others none, in silence (issue 33, 5.5). Every command that reads two
/// inputs refuses it, naming both options.
#[test]
fn two_inputs_cannot_both_be_standard_input() {
    let ads = tmp("both.ads", &"Requirements = true\nCpus = 1\n\n".repeat(3));
    let input = || std::fs::File::open(&ads).unwrap().into();
    let limit = std::time::Duration::from_secs(60);
    let runs: [(&[&str], &str); 8] = [
        (
            &["match", "--jobs", "-", "--machines", "-"],
            "--jobs and --machines",
        ),
        (
            &["match", "--jobs", "-", "--machines", "-", "--all-pairs"],
            "--jobs and --machines",
        ),
        (
            &["negotiate", "--jobs", "-", "--machines", "-"],
            "--jobs and --machines",
        ),
        (
            &["bench", "--jobs", "-", "--machines", "-"],
            "--jobs and --machines",
        ),
        (
            &["analyze", "--jobs", "-", "--machines", "-"],
            "--jobs and --machines",
        ),
        (
            &["eval", "--my", "-", "--target", "-", "1"],
            "--my and --target",
        ),
        (
            &["eval", "--my", "-"],
            "--my and the expressions (none given as arguments)",
        ),
        (&["query", "-", "-"], "file 1 (`-`) and file 2 (`-`)"),
    ];
    for (args, named) in runs {
        let o = classad_within(args, input(), limit);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), "", "{args:?}");
        assert!(
            stderr(&o).contains(&format!("{named} both read standard input")),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

/// A pipe whose reading end is closed: every write to it fails (broken pipe).
fn pipe_without_reader() -> Stdio {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: pipe() fills the two descriptors it creates; each is owned once.
    unsafe {
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
        drop(std::os::fd::OwnedFd::from_raw_fd(fds[0]));
        Stdio::from(std::os::fd::OwnedFd::from_raw_fd(fds[1]))
    }
}

/// `/dev/full`, where every write fails with "no space left on device".
fn dev_full() -> Stdio {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap()
        .into()
}

/// Runs classad with the three streams given; what was piped is captured.
fn classad_with(args: &[&str], stdin: Stdio, stdout: Stdio, stderr: Stdio) -> Output {
    Command::new(env!("CARGO_BIN_EXE_classad"))
        .args(args)
        .stdin(stdin)
        .stdout(stdout)
        .stderr(stderr)
        .output()
        .expect("run classad")
}

/// Writing to standard output or standard error that fails, and sizes past
/// what can be allocated, are errors with a non-zero exit, never a panic (exit
/// 101) (issue 33, 5.13).
#[test]
fn failed_writes_and_huge_sizes_are_errors_not_panics() {
    let out_dir = std::env::temp_dir().join(format!("classad-cli-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let file = |name: &str| out_dir.join(name).to_string_lossy().into_owned();
    let (jobs, machines) = (file("gp.jobs"), file("gp.machines"));
    let huge = "18446744073709551615";
    // Counts past their documented bounds.
    for (args, said) in [
        (
            vec!["gen-pool", "--machines", huge],
            format!("--machines {huge}: at most 10000000"),
        ),
        (
            vec!["gen-pool", "--jobs", huge],
            format!("--jobs {huge}: at most 10000000"),
        ),
        (
            vec!["gen-pool", "--signatures", huge],
            format!("--signatures {huge}: at most 1000000"),
        ),
        (
            vec!["gen-pool", "--submitters", huge],
            format!("--submitters {huge}: at most 1000000"),
        ),
        (
            vec!["gen-pool", "--shape", "mix", "--jobs", "1000001"],
            "--jobs 1000001: at most 1000000".to_string(),
        ),
        (
            vec!["bench", "--machines", huge, "--jobs", "10"],
            format!("--machines {huge}: at most 10000000"),
        ),
    ] {
        let mut args = args.clone();
        if args[0] == "gen-pool" {
            args.extend(["--out-jobs", &jobs, "--out-machines", &machines]);
        }
        let o = classad(&args, "");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(&said), "{args:?}: {}", stderr(&o));
    }
    // A full standard output: said on standard error.
    let pool = tmp("full.ads", &"Requirements = true\nCpus = 1\n\n".repeat(5));
    for args in [
        &["bench", "--machines", "10", "--jobs", "10"][..],
        &[
            "bench",
            "--machines",
            "10",
            "--jobs",
            "10",
            "--format",
            "json",
        ],
        &["--help"],
        &["query", "--help"],
        &["query", &pool],
        &["gen-pool", "--out-jobs", "-", "--out-machines", &machines],
    ] {
        let o = classad_with(args, Stdio::null(), dev_full(), Stdio::piped());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("standard output: No space left on device"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    // Standard error that fails: warnings and summaries end the command with
    // exit status 2 and nothing said (there is nowhere to say it).
    let three = tmp("three.ads", "N = 1\n\nN = 2\n\nN = 3\n");
    let error_constraint = [
        "query",
        &three,
        "-cons",
        "N > (N == 3 ? \"x\" : 0)",
        "-af",
        "N",
    ];
    let runs: [&[&str]; 6] = [
        &error_constraint,
        &["match", "--jobs", &pool, "--machines", &pool],
        &["match", "--jobs", &pool, "--machines", &pool, "--all-pairs"],
        &["negotiate", "--jobs", &pool, "--machines", &pool],
        &["gen-pool", "--out-jobs", &jobs, "--out-machines", &machines],
        &["match", "--jobs", &pool, "--machines", "/nonexistent/x.ads"],
    ];
    for args in runs {
        for (what, err) in [
            ("a pipe without reader", pipe_without_reader()),
            ("/dev/full", dev_full()),
        ] {
            let o = classad_with(args, Stdio::null(), Stdio::piped(), err);
            assert_eq!(o.status.code(), Some(2), "{args:?} into {what}");
        }
    }
    // The query printed its ads before its warning failed.
    let o = classad_with(&error_constraint, Stdio::null(), Stdio::piped(), dev_full());
    assert_eq!(stdout(&o), "1\n2\n");
}

/// The address space a command reading bounded input runs in (RLIMIT_AS): far
/// above what the limits let a reader hold, far below what reading endless input
/// whole would take.
const MEMORY_BOUND: u64 = 1 << 30;

/// Runs classad under [`MEMORY_BOUND`] with `env` set, `feed` writing its
/// standard input on a thread of its own (a failed write ends it), failing the
/// test if it runs longer than 60 s.
fn classad_fed(
    args: &[&str],
    env: &[(&str, &str)],
    feed: impl FnOnce(std::process::ChildStdin) + Send + 'static,
) -> Output {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(env!("CARGO_BIN_EXE_classad"));
    command
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe; nothing else runs in the child
    // between fork and exec.
    unsafe {
        command.pre_exec(|| {
            let bound = libc::rlimit {
                rlim_cur: MEMORY_BOUND as libc::rlim_t,
                rlim_max: MEMORY_BOUND as libc::rlim_t,
            };
            match libc::setrlimit(libc::RLIMIT_AS, &bound) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    let mut child = command.spawn().expect("run classad");
    let input = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || feed(input));
    let out = std::thread::spawn(move || child.wait_with_output().unwrap());
    let limit = std::time::Duration::from_secs(60);
    let start = std::time::Instant::now();
    while !out.is_finished() {
        assert!(
            start.elapsed() < limit,
            "classad {args:?} still running after {limit:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let o = out.join().unwrap();
    feeder.join().unwrap();
    o
}

/// Writes `chunk` to `input` until a write fails (the reader is gone).
fn endless(chunk: &'static [u8]) -> impl FnOnce(std::process::ChildStdin) + Send + 'static {
    move |mut input| {
        let block = chunk.repeat((1 << 16) / chunk.len() + 1);
        while input.write_all(&block).is_ok() {}
    }
}

/// Writes `bytes` to `input`, stopping early when the reader is gone.
fn once(bytes: Vec<u8>) -> impl FnOnce(std::process::ChildStdin) + Send + 'static {
    move |mut input| {
        let _ = input.write_all(&bytes);
    }
}

/// `query` reads as it prints: it stops reading at the ad that makes `-limit`,
/// however much follows, endless standard input and a gzip bomb alike (issue
/// 33, 5.7).
#[test]
fn query_stops_reading_once_its_limit_is_printed() {
    let o = classad_fed(&["query", "-limit", "1", "-"], &[], endless(b"A = 1\n\n"));
    assert_eq!((o.status.code(), stderr(&o)), (Some(0), String::new()));
    assert_eq!(stdout(&o), "A = 1\n\n");
    let o = classad_fed(
        &["query", "-limit", "2", "-af", "A", "-"],
        &[],
        once(gzip_bomb(b"A = 1\n\n", 3 << 30)),
    );
    assert_eq!((o.status.code(), stderr(&o)), (Some(0), String::new()));
    assert_eq!(stdout(&o), "1\n1\n");
}

/// `chunk` repeated to about `size` bytes, compressed with gzip into a few
/// megabytes: one member of a megabyte's worth, repeated (gzip readers read
/// members one after another).
fn gzip_bomb(chunk: &[u8], size: u64) -> Vec<u8> {
    use flate2::{write::GzEncoder, Compression};
    let megabyte = chunk.repeat((1 << 20) / chunk.len());
    let mut member = GzEncoder::new(Vec::new(), Compression::best());
    member.write_all(&megabyte).unwrap();
    let member = member.finish().unwrap();
    member.repeat((size / megabyte.len() as u64) as usize)
}

/// Every reader stops with an error naming the limit past its bounds, never an
/// allocation abort: an endless line (the line limit), an endless ad (the held
/// limit), an endless queue for commands that keep every ad (the input limit),
/// from standard input or a gzip bomb (issue 33, 5.7).
#[test]
fn endless_input_fails_at_a_documented_limit_never_an_abort() {
    let slots = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/conformance/pools/pool1.machines.ads"
    );
    let commands: [&[&str]; 5] = [
        &["query", "-limit", "1", "-"],
        &["format", "-"],
        &["match", "--jobs", "-", "--machines", slots],
        &["negotiate", "--jobs", "-", "--machines", slots],
        &["match", "--jobs", slots, "--machines", "-", "--all-pairs"],
    ];
    let fails = |o: &Output, args: &[&str], said: &str| {
        assert_eq!(o.status.code(), Some(2), "{args:?}, {said}: {}", stderr(o));
        assert!(stderr(o).contains(said), "{args:?}, {said}: {}", stderr(o));
    };
    let line = "the line is longer than the limit of 67108864 bytes (ReadLimits::max_line_bytes; \
                on the command line, set CLASSAD_MAX_LINE_BYTES to raise it)";
    let held = "more than the limit of 16000000 bytes would be held at once";
    let held_env = [("CLASSAD_MAX_HELD_BYTES", "16000000")];
    for args in commands {
        let o = classad_fed(args, &[], endless(b"x"));
        fails(&o, args, line);
        let o = classad_fed(args, &[], once(gzip_bomb(b"x", 1 << 30)));
        fails(&o, args, line);
        let o = classad_fed(args, &held_env, endless(b"A = 1\n"));
        fails(&o, args, held);
        assert!(stderr(&o).contains("set CLASSAD_MAX_HELD_BYTES to raise it"));
        let o = classad_fed(args, &held_env, once(gzip_bomb(b"A = 1\n", 1 << 30)));
        fails(&o, args, held);
        // New syntax is read whole.
        let o = classad_fed(args, &held_env, endless(b"[ A = 1 ]\n"));
        fails(&o, args, held);
    }
    // Commands that keep every ad; query keeps none and reads on. Ads of a few
    // bytes are some hundred in memory: their number is bounded too.
    let input = "the input is longer than the limit of 50000000 bytes (after any gzip is \
                 uncompressed) for a command that keeps every ad";
    let input_env = [("CLASSAD_MAX_INPUT_BYTES", "50000000")];
    let many = "more than the limit of 100000 ads from here on, for a command that keeps \
                every ad (ReadLimits::max_ads; on the command line, set CLASSAD_MAX_ADS";
    let many_env = [("CLASSAD_MAX_ADS", "100000")];
    let mut text = "A = \"a string of some length\"\n".repeat(20);
    text.push('\n');
    let big_ad: &'static [u8] = text.leak().as_bytes();
    for args in &commands[1..] {
        let o = classad_fed(args, &input_env, endless(big_ad));
        fails(&o, args, input);
        let o = classad_fed(args, &input_env, once(gzip_bomb(big_ad, 3 << 30)));
        fails(&o, args, input);
        let o = classad_fed(args, &many_env, endless(b"A = 1\n\n"));
        fails(&o, args, many);
        let o = classad_fed(args, &many_env, once(gzip_bomb(b"A = 1\n\n", 3 << 30)));
        fails(&o, args, many);
        let o = classad_fed(args, &many_env, once(b"[ A = 1 ]\n".repeat(100_001)));
        fails(&o, args, many);
    }
    let o = classad_fed(&["eval"], &[("CLASSAD_MAX_LINE_BYTES", "x")], once(vec![]));
    fails(
        &o,
        &["eval"],
        "CLASSAD_MAX_LINE_BYTES=x: expected a positive number",
    );
}

/// `classad <args>` with its standard error on a terminal (a pseudo-terminal
/// made by util-linux's `script`, which Debian always has) and progress drawn
/// at once: what the terminal showed.
fn on_a_terminal(args: &str) -> String {
    let pools = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/conformance/pools");
    let command = format!(
        "{} {args} --jobs {pools}/pool1.jobs.ads --machines {pools}/pool1.machines.ads > /dev/null",
        env!("CARGO_BIN_EXE_classad")
    );
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("CLASSAD_PROGRESS_AFTER_MS", "0")
        .stdin(Stdio::null())
        .output()
        .expect("util-linux's script runs");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn progress_is_shown_on_a_terminal_and_nowhere_else() {
    // Issue 34 item 4: each phase's line on a terminal...
    for (command, phases) in [
        (
            "negotiate",
            &[
                "reading the slots",
                "compiling the slots",
                "matching",
                "negotiating",
            ][..],
        ),
        (
            "match",
            &["reading the slots", "compiling the slots", "matching"][..],
        ),
        ("match --all-pairs", &["reading the slots", "matching"][..]),
    ] {
        let screen = on_a_terminal(command);
        for phase in phases {
            assert!(
                screen.contains(phase),
                "`{command}` showed no {phase:?}: {screen:?}"
            );
        }
        // ... but not with --quiet,
        let quiet = on_a_terminal(&format!("{command} --quiet"));
        assert!(!quiet.contains("matching"), "{quiet:?}");
    }
    // ... and not when standard error is not a terminal.
    let out = Command::new(env!("CARGO_BIN_EXE_classad"))
        .arg("negotiate")
        .env("CLASSAD_PROGRESS_AFTER_MS", "0")
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success());
    assert!(
        !stderr.contains("matching") && !stderr.contains('\u{1b}'),
        "{stderr:?}"
    );
    assert!(stderr.starts_with("classad negotiate: "), "{stderr:?}");
}

/// Issue 38, item 4: a job that names no submitter (no `AccountingGroup`, `User`
/// or `Owner`) cannot be given a turn; it was left out without a word (summary
/// "0 jobs unmatched", JSON `unmatched: []`). It is now counted in a warning
/// naming the first, listed among the unmatched as `no submitter`, and counted
/// in the statistics.
#[test]
fn jobs_without_a_submitter_are_reported_not_dropped() {
    let slot = "MyType = \"Machine\"\nName = \"slot1@h\"\nCpus = 1\nMemory = 100\n\
                State = \"Unclaimed\"\nRequirements = true\n";
    let job = |cluster: u32, owner: &str| {
        format!(
            "MyType = \"Job\"\nClusterId = {cluster}\nProcId = 0\nJobStatus = 1\n\
             RequestCpus = 1\nRequirements = TARGET.Cpus >= 99\n{owner}"
        )
    };
    let jobs = tmp(
        "no-submitter-jobs.ads",
        &format!(
            "{}\n{}\n{}",
            job(1, "Owner = \"al\"\n"),
            job(2, ""),
            job(3, "")
        ),
    );
    let slots = tmp("no-submitter-slots.ads", slot);
    let o = classad(
        &[
            "negotiate",
            "--jobs",
            &jobs,
            "--machines",
            &slots,
            "--format",
            "json",
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "warning: 2 of 3 jobs name no submitter (no AccountingGroup, User or Owner): \
             left out of the cycle, listed as unmatched with reason \"no submitter\" \
             (first: {jobs}, ad 1 counting from 0)"
        )),
        "{}",
        stderr(&o)
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let reasons: Vec<(u64, &str)> = v["unmatched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| (u["job"].as_u64().unwrap(), u["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        reasons,
        [
            (0, "rejected autocluster"),
            (1, "no submitter"),
            (2, "no submitter")
        ]
    );
    assert_eq!(v["stats"]["jobs_without_submitter"], 2);
}

/// Issue 38, item 2: submitters are named as HTCondor's schedd names them
/// (`schedd.cpp`, `Scheduler::get_submitter_and_owner`: the accounting group
/// or the owner, then `@` and the accounting domain), a priorities line finds
/// its submitter with or without the `@domain` (before, `group_a.u@d.org` in
/// `condor_userprio`'s form was ignored in silence), and a line that finds no
/// submitter is counted in one warning.
#[test]
fn submitters_carry_their_domain_and_priorities_find_them_either_way() {
    let slot = |name: &str, extra: &str| {
        format!(
            "MyType = \"Machine\"\nName = \"{name}\"\nCpus = 1\nMemory = 100\n\
             Requirements = true\nRank = 0\n{extra}\n"
        )
    };
    let slots = tmp(
        "domain-slots.ads",
        &[
            slot("slot1@h", "State = \"Unclaimed\"\n"),
            slot(
                "slot2@h",
                "State = \"Claimed\"\nAccountingGroup = \"group_b.w@d.org\"\n",
            ),
        ]
        .join(""),
    );
    let job = |cluster: u32, who: &str| {
        format!(
            "MyType = \"Job\"\nClusterId = {cluster}\nProcId = 0\nJobStatus = 1\n\
             RequestCpus = 1\nRequirements = true\n{who}\n"
        )
    };
    let jobs = tmp(
        "domain-jobs.ads",
        &[
            job(
                1,
                "Owner = \"u\"\nUser = \"u@d.org\"\nAccountingGroup = \"group_a.u\"\n",
            ),
            job(2, "Owner = \"v\"\nUser = \"v@d.org\"\n"),
        ]
        .join(""),
    );
    let priorities = tmp(
        "domain-priorities.txt",
        "group_a.u 10 1\nv@d.org 20 1\ngroup_b.w 3 1\nnobody 5\nv@other.org 1 1\n",
    );
    let o = classad(
        &[
            "negotiate",
            "--jobs",
            &jobs,
            "--machines",
            &slots,
            "--priorities",
            &priorities,
            "--format",
            "json",
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let subs: Vec<(&str, f64)> = v["submitters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let p = s["effective_priority"].as_f64().unwrap();
            (s["name"].as_str().unwrap(), p)
        })
        .collect();
    assert_eq!(
        subs,
        [("group_a.u@d.org", 10.0), ("v@d.org", 20.0)],
        "the better priority (the line without the domain) has the slot first"
    );
    assert_eq!(v["matches"][0]["submitter"], "group_a.u@d.org");
    assert_eq!(v["stats"]["priority_lines_without_submitter"], 2);
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "warning: 2 lines of --priorities {priorities} name no submitter of the jobs or of \
             the slots' claims, so they change nothing (first: {priorities}:4: \"nobody\"); \
             names are compared with and without their @domain"
        )),
        "the claim's group_b.w@d.org finds its line; nobody and v@other.org find none: {err}"
    );
}

/// Issue 38, item 1: `--priorities` reads `condor_userprio -l` as it prints
/// it (`user_prio.cpp`; `Accountant::ReportState`'s legacy ad of numbered
/// attributes): the cycle is the one the plain file of the same state gives,
/// a floor is warned about, and the table is refused with a pointer to `-l`.
#[test]
fn condor_userprio_dash_l_gives_the_cycle_of_the_plain_file() {
    let slots: String = (1..=3)
        .map(|i| {
            format!(
                "MyType = \"Machine\"\nName = \"slot{i}@h\"\nCpus = 1\nMemory = 100\n\
                 State = \"Unclaimed\"\nRequirements = true\nRank = 0\n\n"
            )
        })
        .collect();
    let slots = tmp("userprio-slots.ads", &slots);
    let jobs = tmp("userprio-jobs.ads", &three_jobs_each(&["a", "b"], "d.org"));
    let plain = tmp(
        "userprio-plain.txt",
        "a@d.org 2.5 10 1.5\nb@d.org 0.5 1 0 2\n",
    );
    let legacy = tmp(
        "userprio-l.txt",
        "LastUpdate = 1764300000\nName1 = \"<none>\"\nIsAccountingGroup1 = true\n\
         Priority1 = 0.0\nName2 = \"a@d.org\"\nIsAccountingGroup2 = false\n\
         AccountingGroup2 = \"<none>\"\nPriority2 = 25.0\nCeiling2 = -1\nFloor2 = 0\n\
         PriorityFactor2 = 10.0\nResourcesUsed2 = 2\nWeightedResourcesUsed2 = 1.5\n\
         Name3 = \"b@d.org\"\nIsAccountingGroup3 = false\nPriority3 = 0.5\nFloor3 = 2\n\
         PriorityFactor3 = 1.0\nWeightedResourcesUsed3 = 0.0\nNumSubmittors = 3\n",
    );
    let run = |prio: &str| {
        classad(
            &[
                "negotiate",
                "--jobs",
                &jobs,
                "--machines",
                &slots,
                "--priorities",
                prio,
                "--format",
                "json",
            ],
            "",
        )
    };
    let (p, l) = (run(&plain), run(&legacy));
    assert!(
        p.status.success() && l.status.success(),
        "{}{}",
        stderr(&p),
        stderr(&l)
    );
    let cycle = |o: &std::process::Output| {
        let mut v: serde_json::Value = serde_json::from_str(&stdout(o)).unwrap();
        v["stats"] = serde_json::Value::Null;
        v
    };
    assert_eq!(cycle(&p), cycle(&l), "the same state, the same cycle");
    let v = cycle(&l);
    assert_eq!(v["submitters"][0]["name"], "b@d.org");
    assert_eq!(v["submitters"][0]["effective_priority"], 0.5);
    assert_eq!(v["submitters"][1]["effective_priority"], 25.0);
    // Floor3 and the plain form's fifth column are the same floor: the
    // cycle reads it, with nothing to warn of.
    assert!(!stderr(&l).contains("warning"), "{}", stderr(&l));
    let table = tmp(
        "userprio-table.txt",
        "Last Priority Update: 11/28 21:00\nUser Name   Effective Priority\n",
    );
    let o = run(&table);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains(&format!(
            "{table}:1:1: this is condor_userprio's table, whose columns round the numbers: \
             give the output of `condor_userprio -l`"
        )),
        "{}",
        stderr(&o)
    );
}

/// Issue 38, item 3: a configuration as `condor_config_val -dump` prints it
/// (here-values, `X = $(X) && ...`) is read, and its thousand knobs the
/// emulator does not read are counted in one line (`--verbose` lists them).
#[test]
fn a_config_dump_is_read_and_its_unread_knobs_counted_in_one_line() {
    let config = tmp(
        "dump.config",
        "# Configuration from machine: cm.example.org\n\
         DAEMON_LIST = MASTER, NEGOTIATOR\nSTART = TRUE\nSUSPEND = FALSE\n\
         JOB_ROUTER_DEFAULTS @=end\n  [ MaxIdleJobs = 10; ]\n@end\n\
         PREEMPTION_REQUIREMENTS = False\n\
         PREEMPTION_REQUIREMENTS = $(PREEMPTION_REQUIREMENTS) || MY.RemoteUserPrio > 1e9\n\
         UNKNOWN_A = 1\nUNKNOWN_B = 2\n",
    );
    let run = |verbose: bool| {
        let mut args = vec!["negotiate", "--config", &config];
        if verbose {
            args.push("--verbose");
        }
        classad(&args, "")
    };
    let o = run(false);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning")).collect();
    assert_eq!(
        warnings,
        [format!(
            "warning: 6 knobs of --config {config} are not ones the emulator reads; ignored \
             (first: {config}:2: DAEMON_LIST; `classad negotiate --verbose` lists them)"
        )],
        "{err}"
    );
    let o = run(true);
    let listed = stderr(&o)
        .lines()
        .filter(|l| l.ends_with("not a knob the emulator reads; ignored"))
        .count();
    assert_eq!(listed, 6, "{}", stderr(&o));
}

/// Issue 38, item 3: a site's configuration, as `config.cpp` (`Parse_macros`,
/// `read_meta_config`) reads it: `include :` of a file named relative to the
/// working directory (as HTCondor's `Open_macro_source` opens it), and `use
/// POLICY : ALWAYS_RUN_JOBS` setting the negotiator knobs it sets
/// (`param_info.in`, `[$POLICY.ALWAYS_RUN_JOBS]`: no preemption). Before, both
/// lines were refused or ignored.
#[test]
fn a_site_s_config_includes_files_and_uses_htcondor_s_templates() {
    let slots = tmp(
        "site-slots.ads",
        "MyType = \"Machine\"\nName = \"slot1@h\"\nCpus = 1\nMemory = 100\n\
         Requirements = true\nRank = 0\nState = \"Claimed\"\nActivity = \"Busy\"\n\
         RemoteUser = \"w@d.org\"\nRemoteOwner = \"w@d.org\"\nAccountingGroup = \"w@d.org\"\nCurrentRank = 0\n",
    );
    let jobs = tmp(
        "site-jobs.ads",
        "MyType = \"Job\"\nClusterId = 1\nProcId = 0\nJobStatus = 1\nRequestCpus = 1\n\
         Requirements = true\nOwner = \"u\"\nUser = \"u@d.org\"\n",
    );
    let priorities = tmp("site-priorities.txt", "u@d.org 1 0\nw@d.org 500 1\n");
    let dir = std::path::Path::new(&slots).parent().unwrap().to_path_buf();
    tmp("site-extra.conf", "PREEMPTION_REQUIREMENTS = True\n");
    let site = tmp("site.conf", "include : site-extra.conf\n");
    let site_no_preemption = tmp(
        "site-always-run.conf",
        "include : site-extra.conf\nuse POLICY : ALWAYS_RUN_JOBS\n",
    );
    let run = |config: &str| {
        Command::new(env!("CARGO_BIN_EXE_classad"))
            .args([
                "negotiate",
                "--jobs",
                &jobs,
                "--machines",
                &slots,
                "--priorities",
                &priorities,
                "--config",
                config,
                "--format",
                "json",
            ])
            .current_dir(&dir)
            .output()
            .unwrap()
    };
    let matches = |o: &Output| {
        assert!(o.status.success(), "{}", stderr(o));
        let v: serde_json::Value = serde_json::from_str(&stdout(o)).unwrap();
        v["matches"].as_array().unwrap().len()
    };
    let o = run(&site);
    assert_eq!(
        matches(&o),
        1,
        "the included PREEMPTION_REQUIREMENTS preempts"
    );
    let o = run(&site_no_preemption);
    assert_eq!(
        matches(&o),
        0,
        "ALWAYS_RUN_JOBS: NEGOTIATOR_CONSIDER_PREEMPTION = False"
    );
    assert!(
        stderr(&o).contains(&format!(
            "warning: {site_no_preemption}:2: use POLICY : ALWAYS_RUN_JOBS: read for the \
             negotiator's knobs it sets (PREEMPTION_REQUIREMENTS, NEGOTIATOR_CONSIDER_PREEMPTION)"
        )),
        "{}",
        stderr(&o)
    );
    // A site's layout (`real_config`): condor_config names config.d, whose
    // files are read in name order after it; the later file wins.
    let config_d = dir.join("site-config.d");
    std::fs::create_dir_all(&config_d).unwrap();
    std::fs::write(
        config_d.join("10-preempt"),
        "PREEMPTION_REQUIREMENTS = True\n",
    )
    .unwrap();
    std::fs::write(config_d.join("20-policy"), "use POLICY : ALWAYS_RUN_JOBS\n").unwrap();
    std::fs::write(config_d.join("20-policy.rpmsave"), "error : not read\n").unwrap();
    let condor_config = tmp(
        "site-condor_config",
        &format!("LOCAL_CONFIG_DIR = {}\n", config_d.display()),
    );
    let o = run(&condor_config);
    assert_eq!(matches(&o), 0, "config.d's ALWAYS_RUN_JOBS: no preemption");
    assert!(
        stderr(&o).contains(&format!(
            "warning: {condor_config}:1: LOCAL_CONFIG_DIR {}: read 2 files, in this order: \
             {}/10-preempt, {}/20-policy",
            config_d.display(),
            config_d.display(),
            config_d.display()
        )),
        "{}",
        stderr(&o)
    );
    // Run from elsewhere, the relative name is not found, and the error says
    // where it was looked for.
    let o = classad(&["negotiate", "--config", &site], "");
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains(&format!(
            "{site}:1: include : site-extra.conf: cannot read it: No such file or directory \
             (os error 2) (a relative name is opened from the working directory, as HTCondor \
             opens it)"
        )),
        "{}",
        stderr(&o)
    );
}

/// Issue 38, item 4: files given the other way round (`--jobs` slots,
/// `--machines` jobs) read and even matched without a word; each is now named
/// in a warning, and files the right way round give none.
#[test]
fn files_given_the_other_way_round_are_named_in_a_warning() {
    let slots = tmp(
        "swapped-slots.ads",
        "MyType = \"Machine\"\nName = \"slot1@h\"\nCpus = 1\nRequirements = true\n\n\
         MyType = \"Machine\"\nName = \"slot2@h\"\nCpus = 1\nRequirements = true\n",
    );
    let jobs = tmp(
        "swapped-jobs.ads",
        "MyType = \"Job\"\nClusterId = 1\nProcId = 0\nOwner = \"al\"\nJobStatus = 1\n\
         Requirements = true\n",
    );
    let swapped = classad(&["negotiate", "--jobs", &slots, "--machines", &jobs], "");
    assert!(swapped.status.success(), "{}", stderr(&swapped));
    let err = stderr(&swapped);
    assert!(
        err.contains(&format!(
            "warning: 2 of 2 ads of --jobs {slots} have MyType \"Machine\" or \"Slot\" (first: ad 0 \
             counting from 0): are --jobs and --machines the other way round?"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "warning: 1 of 1 ads of --machines {jobs} have MyType \"Job\""
        )),
        "{err}"
    );
    let right = classad(&["negotiate", "--jobs", &jobs, "--machines", &slots], "");
    assert!(
        !stderr(&right).contains("other way round"),
        "{}",
        stderr(&right)
    );
    assert_eq!(stdout(&right), "0 0\n");
}

/// `--accountant` and `--accountant-out`: the accountant's records carried
/// from one cycle to the next as HTCondor's negotiator carries them
/// (`UpdatePriorities` then `CheckMatches` at the start of a cycle, `AddMatch`
/// per match; docs/negotiator.md section 14).
#[test]
fn the_accountant_carries_priorities_and_claims_from_cycle_to_cycle() {
    let slot = |i: u32, claim: &str| {
        format!(
            "MyType = \"Machine\"\nName = \"slot{i}@h\"\nStartdIpAddr = \"<10.0.0.1:9618>\"\n\
             Cpus = 2\nSlotWeight = Cpus\nRequirements = true\nRank = 0\n{claim}\n"
        )
    };
    let unclaimed = (1..=4)
        .map(|i| slot(i, "State = \"Unclaimed\""))
        .collect::<Vec<_>>()
        .join("\n");
    let jobs = tmp("acct-jobs.ads", &three_jobs_each(&["alice", "bob"], "d"));
    let first = tmp("acct-slots1.ads", &unclaimed);
    let state1 = tmp("acct-state1.txt", "");
    let o = classad(
        &[
            "negotiate",
            "--jobs",
            &jobs,
            "--machines",
            &first,
            "--now",
            "1000",
            "--accountant-out",
            &state1,
            "--format",
            "json",
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let got: Vec<(String, String)> = v["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["submitter"].as_str().unwrap().into(),
                m["slot_name"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(got.len(), 4, "{got:?}");
    let text = std::fs::read_to_string(&state1).unwrap();
    assert!(text.starts_with("LastUpdate = 1000\n"), "{text}");
    assert!(text.contains("Name2 = \"alice@d\""), "{text}");
    assert!(
        text.contains("ResourcesUsed2 = 2\nWeightedResourcesUsed2 = 4.0000000000000000E+00"),
        "{text}"
    );
    // The startd's side: each matched slot now Claimed by its submitter.
    let claimed = (1..=4)
        .map(|i| {
            let who = &got
                .iter()
                .find(|(_, s)| *s == format!("slot{i}@h"))
                .unwrap()
                .0;
            slot(i, &format!("State = \"Claimed\"\nRemoteUser = \"{who}\""))
        })
        .collect::<Vec<_>>()
        .join("\n");
    let second = tmp("acct-slots2.ads", &claimed);
    let state2 = tmp("acct-state2.txt", "");
    // A half-life (PRIORITY_HALFLIFE's default, a day) later.
    let o = classad(
        &[
            "negotiate",
            "--jobs",
            &jobs,
            "--machines",
            &second,
            "--accountant",
            &state1,
            "--now",
            "87400",
            "--accountant-out",
            &state2,
            "--format",
            "json",
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let alice = v["submitters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "alice@d")
        .unwrap()
        .clone();
    // UpdateOnePriority: 0.5 * 0.5 + 4 (weighted usage) * 0.5 = 2.25, times
    // DEFAULT_PRIO_FACTOR 1000; the usage found again from the claimed slots.
    assert_eq!(alice["effective_priority"], 2250.0);
    assert_eq!(alice["usage_before"], 4.0);
    let text = std::fs::read_to_string(&state2).unwrap();
    assert!(text.starts_with("LastUpdate = 87400\n"), "{text}");
    assert!(
        text.contains("Name2 = \"alice@d\"\nIsAccountingGroup2 = false\n"),
        "{text}"
    );
    assert!(
        text.contains("Priority2 = 2.2500000000000000E+03"),
        "{text}"
    );
    assert!(
        text.contains("AccumulatedUsage2 = 1.7280000000000000E+05"),
        "2 claims x a day: {text}"
    );
    // --now without the accountant's records would change nothing: refused.
    let o = classad(
        &[
            "negotiate",
            "--jobs",
            &jobs,
            "--machines",
            &second,
            "--now",
            "5",
        ],
        "",
    );
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("--now is the time the accountant's records"),
        "{}",
        stderr(&o)
    );
    // --priorities and --accountant are one or the other.
    let o = classad(
        &[
            "negotiate",
            "--jobs",
            &jobs,
            "--machines",
            &second,
            "--accountant",
            &state1,
            "--priorities",
            &state1,
        ],
        "",
    );
    assert!(!o.status.success());
}

/// Three idle jobs of one CPU for each of `owners` (a cluster each), their
/// `User` in `domain`.
fn three_jobs_each(owners: &[&str], domain: &str) -> String {
    owners
        .iter()
        .enumerate()
        .flat_map(|(c, u)| {
            (0..3).map(move |p| {
                format!(
                    "MyType = \"Job\"\nClusterId = {}\nProcId = {p}\nOwner = \"{u}\"\n\
                     User = \"{u}@{domain}\"\nJobStatus = 1\nRequestCpus = 1\n\
                     Requirements = true\n\n",
                    c + 1
                )
            })
        })
        .collect()
}
