//! The examples of the README and of the manual under `docs/`, run: every
//! indented `$ command` line of `README.md` and of each Markdown page under
//! `docs/` (recursively, in path order) is run with the built `classad` first on
//! the `PATH` and its standard output compared with the lines shown under it.
//! `$ cat FILE` shows a file the later examples of the same page read: the lines
//! under it are written to FILE first, in a folder of the page's own, fresh for
//! each page, so that no page reads a file another page wrote. Also: every
//! relative link of those pages names a file that exists (and a heading of it,
//! when it names one).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One `$ ...` line of a page and what it shows under it.
struct Example {
    /// The page's line number of the command.
    line: usize,
    command: String,
    shown: String,
}

/// Every example, in order. An example's output is the indented lines after
/// its command, blank lines included when indented lines follow them.
fn examples(page: &str) -> Vec<Example> {
    let lines: Vec<&str> = page.lines().collect();
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

/// The repository's root, where `README.md` is.
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The subcommands the examples must keep running: each of these had a running
/// example when every example was in the README, and still must somewhere.
const COMMANDS_SHOWN: [&str; 5] = ["gen-pool", "match", "query", "analyze", "eval"];

/// How many commands (not counting `$ cat FILE`) the examples ran when they were
/// all in the README: fewer, across the pages, means some were lost.
const MIN_COMMANDS: usize = 20;

/// `README.md`, then every Markdown page under `docs/`, in path order.
fn pages() -> Vec<PathBuf> {
    fn markdown_under(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                markdown_under(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut docs = Vec::new();
    markdown_under(&Path::new(ROOT).join("docs"), &mut docs);
    docs.sort();
    let mut all = vec![Path::new(ROOT).join("README.md")];
    all.extend(docs);
    all
}

/// A page's path as the messages name it: from the repository's root.
fn page_name(path: &Path) -> String {
    path.strip_prefix(ROOT)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// A fresh folder for one page's examples, so that a file one page writes with
/// `$ cat` is never read by another.
fn work_dir(page: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("classad-readme-{}", std::process::id()))
        .join(page.replace(['/', '\\'], "_"));
    let _ = std::fs::remove_dir_all(&dir);
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

/// Output as a page can show it: without spaces at the ends of lines or
/// blank lines at the end.
fn shown_as_page(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let mut out = lines.join("\n");
    out.truncate(out.trim_end_matches('\n').len());
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// The `classad` subcommands a command line runs (`classad eval ... | classad
/// query ...` runs two).
fn subcommands(command: &str) -> Vec<&str> {
    let words: Vec<&str> = command.split_whitespace().collect();
    words
        .windows(2)
        .filter(|pair| pair[0] == "classad")
        .map(|pair| pair[1])
        .collect()
}

#[test]
fn every_example_prints_what_its_page_shows() {
    let mut failures = Vec::new();
    let mut seen = HashSet::new();
    let mut total = 0;
    let mut readme = 0;
    for path in pages() {
        let name = page_name(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        let all = examples(&text);
        if all.is_empty() {
            continue;
        }
        let dir = work_dir(&name);
        let mut commands = 0;
        for ex in &all {
            if let Some(file) = ex.command.strip_prefix("cat ") {
                std::fs::write(dir.join(file.trim()), &ex.shown).unwrap();
                continue;
            }
            let (stdout, stderr) = run(&ex.command, &dir);
            let (printed, shown) = (shown_as_page(&stdout), shown_as_page(&ex.shown));
            if printed != shown {
                failures.push(format!(
                    "{name} line {}: `{}`\n--- shown:\n{shown}--- printed:\n{printed}--- stderr:\n{stderr}",
                    ex.line, ex.command
                ));
            }
            seen.extend(subcommands(&ex.command).into_iter().map(str::to_string));
            commands += 1;
        }
        println!("{name}: {commands} examples run");
        total += commands;
        if name == "README.md" {
            readme = commands;
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {total} examples print other than their page shows:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    // The pages have examples of several commands; a change that lost them (or
    // the indentation this reads) should not pass in silence.
    assert!(
        readme >= 4,
        "README.md runs {readme} examples: its First steps (gen-pool, match, query, analyze) are lost"
    );
    assert!(
        total >= MIN_COMMANDS,
        "only {total} examples found across README.md and docs/ (at least {MIN_COMMANDS})"
    );
    let missing: Vec<&str> = COMMANDS_SHOWN
        .into_iter()
        .filter(|c| !seen.contains(*c))
        .collect();
    assert!(
        missing.is_empty(),
        "no example runs `classad {}` any more",
        missing.join("`, `classad ")
    );
}

/// The targets of a page's links that are not URLs (`[text](target)`, outside
/// code blocks), each with its line.
fn relative_links(page: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (i, line) in page.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || line.starts_with("    ") || line.starts_with('\t') {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let target = &after[..end];
            if !target.is_empty() && !target.contains("://") && !target.starts_with("mailto:") {
                out.push((i + 1, target.to_string()));
            }
            rest = &after[end..];
        }
    }
    out
}

/// The anchors GitHub gives a page's headings: lower case, punctuation left out,
/// spaces as `-`, a repeated one followed by `-1`, `-2`, ...
fn anchors(page: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut fenced = false;
    for line in page.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let Some(title) = line.strip_prefix('#').map(|t| t.trim_start_matches('#')) else {
            continue;
        };
        if fenced || !title.starts_with(' ') {
            continue;
        }
        let slug: String = title
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let mut anchor = slug.clone();
        let mut n = 0;
        while !out.insert(anchor.clone()) {
            n += 1;
            anchor = format!("{slug}-{n}");
        }
    }
    out
}

#[test]
fn every_relative_link_names_a_file_that_exists() {
    let mut broken = Vec::new();
    let mut links = 0;
    for path in pages() {
        let name = page_name(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        for (line, target) in relative_links(&text) {
            links += 1;
            let (file, anchor) = match target.split_once('#') {
                Some((file, anchor)) => (file, Some(anchor)),
                None => (target.as_str(), None),
            };
            let to = if file.is_empty() {
                path.clone()
            } else {
                path.parent().unwrap().join(file)
            };
            if !to.exists() {
                broken.push(format!("{name} line {line}: {target} (no such file)"));
            } else if let Some(anchor) = anchor.filter(|_| to.is_file()) {
                let headings = anchors(&std::fs::read_to_string(&to).unwrap_or_default());
                if !headings.contains(anchor) {
                    broken.push(format!("{name} line {line}: {target} (no such heading)"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    // The README links to the manual; none found means this read nothing.
    assert!(links >= 10, "only {links} relative links found");
}

#[test]
fn links_and_anchors_are_read_as_github_reads_them() {
    let text = "# `classad match`: the batch matcher\n\nSee [it](a/b.md#x-y) and\n[`c\nd`](../c.md).\n\n    [code](no.md)\n\n```\n[code](no.md)\n# not a heading\n```\n## Set-up\n## Set-up\n";
    let links: Vec<(usize, String)> = relative_links(text);
    assert_eq!(
        links,
        [(3, "a/b.md#x-y".to_string()), (5, "../c.md".to_string())]
    );
    let a = anchors(text);
    for expected in ["classad-match-the-batch-matcher", "set-up", "set-up-1"] {
        assert!(a.contains(expected), "{expected} in {a:?}");
    }
    assert_eq!(a.len(), 3);
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
