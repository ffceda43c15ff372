//! The C test program, `tests/capi/test_capi.c` at the repository's top, built
//! with the system's `cc` against the header and the libraries cargo built for
//! this test (the static library, then the shared one) and run: it checks its
//! own results and exits non-zero on the first that is wrong. Then the static
//! build runs again under valgrind (`--leak-check=full` with
//! `src/capi/valgrind.supp`: a memory error, or a block lost that the file does
//! not name, fails it), or, without valgrind, built with AddressSanitizer;
//! with neither, that run is skipped with a message saying so. A build that
//! leaks one handle on purpose must fail the same check, so it is known to
//! catch a leak.
//!
//! Without `cc` on the machine the test is skipped, saying so, unless
//! `CLASSAD_CAPI_REQUIRE_CC` is set (then it fails).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The crate's directory.
fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The directory rustc wrote this build's libraries to: the `deps` directory the
/// test binary sits in (cargo copies them up to the profile's directory on
/// `cargo build`, not on `cargo test`, so the copies there may be stale).
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    exe.parent()
        .expect("the test binary's directory")
        .to_path_buf()
}

/// A fresh scratch directory for this run (the tests of this file share its
/// process, so each makes its own below it).
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("classad-capi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// Whether `program` runs (`program --version` starts).
fn available(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs `cmd`, failing the test with its output unless it succeeds.
fn run(mut cmd: Command, what: &str) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: {cmd:?} did not start: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{cmd:?}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );
    println!("{what}: {}", stdout.trim());
    out
}

/// `cc` compiling the test program with warnings as errors, to `exe`, with
/// `extra` arguments (libraries, sanitizers) after the source.
fn compile(exe: &Path, extra: &[&str]) -> Command {
    let root = crate_dir().join("../..");
    let mut cc = Command::new("cc");
    cc.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-g"])
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg(root.join("tests/capi/test_capi.c"))
        .args(extra)
        .arg("-o")
        .arg(exe);
    cc
}

/// The static library's path, as a string for `cc`.
fn static_lib() -> String {
    let lib = lib_dir().join("libclassad_capi.a");
    assert!(lib.exists(), "cargo did not build {}", lib.display());
    lib.display().to_string()
}

/// What the static library needs of the system (as `rustc --print
/// native-static-libs` says for Linux).
const SYSTEM_LIBS: [&str; 4] = ["-lpthread", "-ldl", "-lm", "-lrt"];

/// The header compiles as C++ too (cbindgen's `cpp_compat`: `extern "C"`),
/// when a C++ compiler is there.
#[test]
fn the_header_compiles_as_cpp() {
    if !available("c++") {
        eprintln!("skipped: no c++ on this machine");
        return;
    }
    let dir = scratch().join("cpp");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let src = dir.join("header.cpp");
    std::fs::write(
        &src,
        "#include \"classad.h\"\nint main() { return classad_version() == nullptr; }\n",
    )
    .expect("the C++ source is written");
    let mut cxx = Command::new("c++");
    cxx.args(["-std=c++11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only"])
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg(&src);
    run(cxx, "c++ -fsyntax-only");
    let _ = std::fs::remove_dir_all(&dir);
}

/// What checks the program for leaks and memory errors.
#[derive(Clone, Copy)]
enum Checker {
    /// valgrind's memcheck over the static build.
    Valgrind,
    /// A build with AddressSanitizer (LeakSanitizer included).
    Asan,
}

/// valgrind when it is installed, else AddressSanitizer when `cc` can build
/// with it, else nothing.
fn leak_checker(dir: &Path, lib: &str) -> Option<Checker> {
    if available("valgrind") {
        return Some(Checker::Valgrind);
    }
    let probe = dir.join("asan_probe");
    let mut extra = vec!["-fsanitize=address", lib];
    extra.extend(SYSTEM_LIBS);
    let built = compile(&probe, &extra).output();
    built
        .is_ok_and(|o| o.status.success())
        .then_some(Checker::Asan)
}

impl Checker {
    /// Its name in messages.
    fn name(self) -> &'static str {
        match self {
            Checker::Valgrind => "test_capi under valgrind",
            Checker::Asan => "test_capi under AddressSanitizer",
        }
    }

    /// Builds the program for this check, leaking a handle on purpose when
    /// `leak` (`-DCLASSAD_TEST_LEAK`).
    fn build(self, dir: &Path, lib: &str, leak: bool) -> PathBuf {
        let exe = dir.join(format!(
            "test_capi_checked{}",
            if leak { "_leak" } else { "" }
        ));
        let mut extra = Vec::new();
        if leak {
            extra.push("-DCLASSAD_TEST_LEAK");
        }
        if let Checker::Asan = self {
            extra.extend(["-fsanitize=address", "-fno-omit-frame-pointer"]);
        }
        extra.push(lib);
        extra.extend(SYSTEM_LIBS);
        run(compile(&exe, &extra), "cc (leak check)");
        exe
    }

    /// The command that runs `exe` under the check.
    ///
    /// valgrind runs as docs/capi.md tells a user to run it, with
    /// `src/capi/valgrind.supp` (and `--quiet`, so that anything it says fails
    /// the test): any memory error, and any block definitely or possibly lost
    /// that the file does not name, fails the run. The file names the blocks
    /// the library keeps until the process ends (rayon's global pool's threads,
    /// the table of builtin functions, each thread's cache of subexpressions),
    /// which valgrind reports as possibly lost though they are reachable.
    fn command(self, exe: &Path, dir: &Path) -> Command {
        match self {
            Checker::Valgrind => {
                let mut c = Command::new("valgrind");
                c.arg(format!(
                    "--suppressions={}",
                    crate_dir().join("valgrind.supp").display()
                ))
                .args(["--leak-check=full", "--error-exitcode=1", "--quiet"])
                .arg(exe)
                .arg(dir);
                c
            }
            Checker::Asan => {
                let mut c = Command::new(exe);
                c.arg(dir).env("ASAN_OPTIONS", "detect_leaks=1");
                c
            }
        }
    }

    /// What the check prints about a leak.
    fn leak_report(self) -> &'static str {
        match self {
            Checker::Valgrind => "definitely lost",
            Checker::Asan => "LeakSanitizer",
        }
    }
}

#[test]
fn the_c_program_passes_against_both_libraries_and_leaks_nothing() {
    if !available("cc") {
        assert!(
            std::env::var_os("CLASSAD_CAPI_REQUIRE_CC").is_none(),
            "no cc on this machine"
        );
        eprintln!("skipped: no cc on this machine to build tests/capi/test_capi.c");
        return;
    }
    let dir = scratch().join("c");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");

    // Static.
    let exe = dir.join("test_capi_static");
    let lib = static_lib();
    let mut extra = vec![lib.as_str()];
    extra.extend(SYSTEM_LIBS);
    run(compile(&exe, &extra), "cc (static)");
    run(
        {
            let mut c = Command::new(&exe);
            c.arg(&dir);
            c
        },
        "test_capi (static)",
    );

    // Shared, found through its rpath.
    let so = lib_dir().join("libclassad_capi.so");
    assert!(so.exists(), "cargo did not build {}", so.display());
    let exe_so = dir.join("test_capi_shared");
    let libdir = lib_dir().display().to_string();
    let rpath = format!("-Wl,-rpath,{libdir}");
    let ldir = format!("-L{libdir}");
    run(
        compile(&exe_so, &[&ldir, "-lclassad_capi", &rpath]),
        "cc (shared)",
    );
    run(
        {
            let mut c = Command::new(&exe_so);
            // cargo's LD_LIBRARY_PATH names the profile's directory, whose copy
            // of the library may be stale, and outranks the rpath (a RUNPATH).
            c.arg(&dir).env_remove("LD_LIBRARY_PATH");
            c
        },
        "test_capi (shared)",
    );

    // Leaks and memory errors: the program clean, and built to leak one
    // handle on purpose, which the check must catch.
    match leak_checker(&dir, &lib) {
        None => eprintln!(
            "leak check skipped: no valgrind, and cc cannot build with \
             -fsanitize=address here"
        ),
        Some(checker) => {
            let clean = checker.build(&dir, &lib, false);
            let out = run(checker.command(&clean, &dir), checker.name());
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stderr.trim().is_empty(),
                "{} said:\n{stderr}",
                checker.name()
            );
            let leaky = checker.build(&dir, &lib, true);
            let out = checker
                .command(&leaky, &dir)
                .output()
                .expect("the leaky build runs");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                !out.status.success() && stderr.contains(checker.leak_report()),
                "{} did not catch the handle leaked on purpose:\n{stderr}",
                checker.name()
            );
            println!("{}: caught the handle leaked on purpose", checker.name());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The two `cc` lines of docs/capi.md, run as written: in a directory laid out
/// as the repository's top (`src/capi/include`, `target/release` holding the
/// libraries of this build, the test program as `prog.c`), each builds `a.out`,
/// which then runs with no `LD_LIBRARY_PATH`: the shared build finds the
/// library through the rpath the line gives.
#[test]
fn the_documented_link_lines_work_as_written() {
    if !available("cc") {
        assert!(
            std::env::var_os("CLASSAD_CAPI_REQUIRE_CC").is_none(),
            "no cc on this machine"
        );
        eprintln!("skipped: no cc on this machine to run docs/capi.md's cc lines");
        return;
    }
    let root = crate_dir().join("../..");
    let doc = std::fs::read_to_string(root.join("docs/capi.md")).expect("docs/capi.md");
    let lines: Vec<&str> = doc.lines().filter(|l| l.starts_with("cc ")).collect();
    assert_eq!(lines.len(), 2, "docs/capi.md's cc lines: {lines:?}");
    let dir = scratch().join("doc");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src/capi")).expect("a scratch directory");
    std::fs::create_dir_all(dir.join("target")).expect("a scratch directory");
    std::os::unix::fs::symlink(crate_dir().join("include"), dir.join("src/capi/include"))
        .expect("the header's directory linked");
    std::os::unix::fs::symlink(lib_dir(), dir.join("target/release"))
        .expect("the libraries' directory linked");
    std::fs::copy(root.join("tests/capi/test_capi.c"), dir.join("prog.c"))
        .expect("the test program copied");
    for line in lines {
        let _ = std::fs::remove_file(dir.join("a.out"));
        let mut sh = Command::new("sh");
        // As typed in a shell at the top directory (`$PWD` is that directory).
        sh.arg("-c").arg(line).current_dir(&dir).env("PWD", &dir);
        run(sh, line);
        let mut prog = Command::new(dir.join("a.out"));
        prog.arg(&dir).env_remove("LD_LIBRARY_PATH");
        run(prog, &format!("a.out of `{line}`"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
