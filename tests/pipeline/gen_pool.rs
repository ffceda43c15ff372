//! `classad gen-pool`, run as a user runs it: the files it writes in each syntax
//! read back with the requested counts, `classad match` and `classad query` take
//! them, the priorities file parses, and bad arguments are clear errors.

use classad::ad::{read_ads, ClassAd};
use classad::negotiate::Priorities;
use classad::syntax::ast::Node;
use classad::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::{Command, Output};

fn classad(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_classad"))
        .args(args)
        .env("TZ", "UTC")
        .output()
        .expect("run classad")
}

/// A fresh directory for one test's files.
fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("classad-gen-pool-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn path(d: &std::path::Path, name: &str) -> String {
    d.join(name).to_string_lossy().into_owned()
}

/// The pool's files: (machines, jobs, priorities).
fn gen(d: &std::path::Path, syntax: &str, extra: &[&str]) -> (String, String, String) {
    let (m, j, p) = (
        path(d, &format!("m.{syntax}")),
        path(d, &format!("j.{syntax}")),
        path(d, &format!("p.{syntax}")),
    );
    let mut args = vec![
        "gen-pool",
        "--machines",
        "150",
        "--jobs",
        "400",
        "--seed",
        "5",
        "--out-machines",
        &m,
        "--out-jobs",
        &j,
        "--out-priorities",
        &p,
        "--syntax",
        syntax,
    ];
    args.extend_from_slice(extra);
    let o = classad(&args);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.starts_with("machines=150 hosts="), "{stderr}");
    assert!(stderr.contains(" jobs=400 "), "{stderr}");
    (m, j, p)
}

fn read(file: &str) -> Vec<ClassAd> {
    let text = std::fs::read_to_string(file).unwrap();
    read_ads(&text, file).unwrap_or_else(|e| panic!("{e}"))
}

fn string(ad: &ClassAd, name: &str) -> Option<String> {
    match ad.get(name)?.node() {
        Node::Lit(Value::Str(s)) => Some(s.as_str().to_string()),
        _ => None,
    }
}

#[test]
fn every_syntax_reads_back_with_the_requested_counts() {
    let d = dir("syntaxes");
    let mut matched = Vec::new();
    for syntax in ["old", "new", "json"] {
        let (m, j, p) = gen(&d, syntax, &["--submitters", "12"]);
        let (machines, jobs) = (read(&m), read(&j));
        assert_eq!((machines.len(), jobs.len()), (150, 400), "{syntax}");
        // The priorities name exactly the jobs' submitters, as HTCondor names
        // them (with their domain).
        let prios = Priorities::parse(&std::fs::read_to_string(&p).unwrap(), &p).unwrap();
        let listed: BTreeSet<String> = prios.iter().map(|(n, _)| n.to_string()).collect();
        let used: BTreeSet<String> = jobs
            .iter()
            .map(|j| {
                let s = |n: &str| string(j, n);
                classad::negotiate::submitters::submitter_name(
                    s("AccountingGroup").as_deref(),
                    s("User").as_deref(),
                    s("Owner").as_deref(),
                    None,
                )
                .unwrap()
            })
            .collect();
        assert_eq!(listed, used, "{syntax}");
        assert_eq!(listed.len(), 12);
        // The matcher reads the files and finds matches.
        let o = classad(&["match", "--jobs", &j, "--machines", &m, "--quiet"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(out.lines().count() > 10, "{syntax}: {out}");
        matched.push(out);
        // And the query command.
        // Whole, since slots otherwise print in condor_status's table.
        let o = classad(&[
            "query",
            "--constraint",
            "SlotType == \"Partitionable\"",
            "-long",
            &m,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let found = read_ads(&String::from_utf8(o.stdout).unwrap(), "query").unwrap();
        assert!(!found.is_empty() && found.len() < 150);
    }
    assert!(
        matched.windows(2).all(|w| w[0] == w[1]),
        "the three syntaxes match alike"
    );
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn the_thread_count_does_not_change_the_files() {
    let d = dir("threads");
    let mut files = Vec::new();
    for threads in ["1", "3"] {
        let (m, j, p) = (
            path(&d, &format!("m{threads}")),
            path(&d, &format!("j{threads}")),
            path(&d, &format!("p{threads}")),
        );
        let o = classad(&[
            "gen-pool",
            "--machines",
            "1500",
            "--jobs",
            "3000",
            "--seed",
            "9",
            "--out-machines",
            &m,
            "--out-jobs",
            &j,
            "--out-priorities",
            &p,
            "--threads",
            threads,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        files.push([m, j, p].map(|f| std::fs::read(f).unwrap()));
    }
    assert!(files[0] == files[1]);
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn bad_arguments_are_clear_errors() {
    let d = dir("errors");
    let ok = path(&d, "ok");
    let missing = path(&d, "no/such/dir/jobs.ads");
    let o = classad(&["gen-pool", "--out-machines", &ok, "--out-jobs", &missing]);
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.starts_with("classad: cannot create "), "{stderr}");
    assert!(stderr.contains("no/such/dir/jobs.ads"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for (flag, v) in [
        ("--submitters", "0"),
        ("--signatures", "0"),
        ("--threads", "0"),
    ] {
        let o = classad(&[
            "gen-pool",
            "--out-machines",
            &ok,
            "--out-jobs",
            &ok,
            flag,
            v,
        ]);
        assert_eq!(o.status.code(), Some(2), "{flag}");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(
            stderr.contains(&format!("{flag} must be at least 1")),
            "{stderr}"
        );
    }
    let o = classad(&[
        "gen-pool",
        "--out-machines",
        &ok,
        "--out-jobs",
        &ok,
        "--syntax",
        "xml",
    ]);
    assert!(!o.status.success());
    std::fs::remove_dir_all(d).unwrap();
}

/// `--shape`: a shape family's pool, the same as the library's, which `classad
/// match --all-pairs` matches alike on both engines; flags that do not apply and
/// unknown families are clear errors.
#[test]
fn shape_pools_are_the_library_s_and_match_alike_on_both_engines() {
    use classad::generate::shapes::{Family, ShapeSpec};
    let d = dir("shapes");
    let (m, j) = (path(&d, "m.ads"), path(&d, "j.ads"));
    for family in [Family::TargetArithmetic, Family::Records, Family::Mix] {
        let o = classad(&[
            "gen-pool",
            "--shape",
            family.name(),
            "--machines",
            "70",
            "--jobs",
            "20",
            "--seed",
            "3",
            "--out-machines",
            &m,
            "--out-jobs",
            &j,
        ]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{stderr}");
        assert!(
            stderr.starts_with(&format!("shape={family} machines=70 jobs=20 ")),
            "{stderr}"
        );
        let pool = ShapeSpec {
            family,
            jobs: 20,
            machines: 70,
            seed: 3,
        }
        .generate();
        assert_eq!(std::fs::read_to_string(&m).unwrap(), pool.machines);
        assert_eq!(std::fs::read_to_string(&j).unwrap(), pool.jobs);
        let run = |engine: &str| {
            let o = classad(&[
                "match",
                "--all-pairs",
                "--engine",
                engine,
                "--jobs",
                &j,
                "--machines",
                &m,
            ]);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            String::from_utf8(o.stdout).unwrap()
        };
        let vm = run("vm");
        assert!(vm.lines().count() > 0, "{family}: some pairs match");
        assert_eq!(vm, run("reference"), "{family}");
    }
    for (extra, message) in [
        (
            &["--shape", "nested"][..],
            "no shape family is named \"nested\"",
        ),
        (
            &["--shape", "records", "--syntax", "json"][..],
            "--syntax does not apply",
        ),
        (
            &["--shape", "records", "--submitters", "3"][..],
            "--submitters does not apply",
        ),
    ] {
        let mut args = vec!["gen-pool", "--out-machines", &m, "--out-jobs", &j];
        args.extend_from_slice(extra);
        let o = classad(&args);
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(stderr.contains(message), "{stderr}");
    }
    std::fs::remove_dir_all(d).unwrap();
}
