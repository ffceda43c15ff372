//! The README's examples, run: every indented `$ command` line is run with the
//! built `classad` first on the `PATH` and its standard output compared with the
//! lines shown under it. `$ cat FILE` shows a file the later examples read: the
//! lines under it are written to FILE first, in a folder of the test's own.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One `$ ...` line of the README and what it shows under it.
struct Example {
    /// The README's line number of the command.
    line: usize,
    command: String,
    shown: String,
}

/// Every example, in order. An example's output is the indented lines after
/// its command, blank lines included when indented lines follow them.
fn examples(readme: &str) -> Vec<Example> {
    let lines: Vec<&str> = readme.lines().collect();
    let is_output = |l: &str| l.starts_with("    ") && !l.starts_with("    $ ");
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(command) = lines[i].strip_prefix("    $ ") else {
            i += 1;
            continue;
        };
        let line = i + 1;
        let mut shown = String::new();
        i += 1;
        while i < lines.len() {
            if is_output(lines[i]) {
                shown.push_str(&lines[i][4..]);
                shown.push('\n');
                i += 1;
            } else if lines[i].trim().is_empty()
                && lines[i + 1..]
                    .iter()
                    .find(|l| !l.trim().is_empty())
                    .is_some_and(|l| is_output(l))
            {
                shown.push('\n');
                i += 1;
            } else {
                break;
            }
        }
        out.push(Example {
            line,
            command: command.to_string(),
            shown,
        });
    }
    out
}

fn work_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("classad-readme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(command: &str, dir: &Path) -> (String, String) {
    let bin = Path::new(env!("CARGO_BIN_EXE_classad")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env("PATH", path)
        .env("TZ", "UTC")
        .output()
        .expect("run sh");
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Output as a README can show it: without spaces at the ends of lines or
/// blank lines at the end.
fn shown_as_readme(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let mut out = lines.join("\n");
    out.truncate(out.trim_end_matches('\n').len());
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

#[test]
fn every_readme_example_prints_what_the_readme_shows() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let dir = work_dir();
    let all = examples(&readme);
    let mut commands = 0;
    for ex in &all {
        if let Some(file) = ex.command.strip_prefix("cat ") {
            std::fs::write(dir.join(file.trim()), &ex.shown).unwrap();
            continue;
        }
        let (stdout, stderr) = run(&ex.command, &dir);
        assert_eq!(
            shown_as_readme(&stdout),
            shown_as_readme(&ex.shown),
            "README.md line {}: `{}`\nstderr: {stderr}",
            ex.line,
            ex.command
        );
        commands += 1;
    }
    // The README has examples of several commands; a change that lost them (or
    // the indentation this reads) should not pass in silence.
    assert!(commands >= 5, "only {commands} examples found");
}

#[test]
fn examples_are_read_with_their_files_and_blank_lines() {
    let text = "Intro\n\n    $ cat a.ad\n    X = 1\n\n    Y = 2\n\nProse.\n\n    $ classad eval 1\n    1\n    $ true\n";
    let ex = examples(text);
    assert_eq!(ex.len(), 3);
    assert_eq!(
        (ex[0].command.as_str(), ex[0].shown.as_str()),
        ("cat a.ad", "X = 1\n\nY = 2\n")
    );
    assert_eq!((ex[1].line, ex[1].shown.as_str()), (10, "1\n"));
    assert_eq!(ex[2].shown, "");
}
