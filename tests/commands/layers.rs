//! The crate's layers: the language (syntax, ads, the reference evaluator and the
//! builtins) knows nothing of the machine's front end, and neither knows of the
//! engine choice or of matching, which sit above both.
//!
//! Read from the sources, so a new reference from a lower layer to a higher one
//! (as `eval` once called `compile` to pick an engine) fails here, not in review.

use std::path::{Path, PathBuf};

/// The modules of `src/` each layer may not name, lowest layer first: within
/// the language, the syntax, then ads, then the values evaluations make and
/// their scopes, then the builtins (which see the evaluator only through
/// `functions::Evaluating`), then the reference evaluator (issue 35, item 2).
const LAYERS: &[(&[&str], &[&str])] = &[
    (
        &["calendar.rs", "c_number.rs", "limits.rs"],
        &[
            "syntax",
            "ad",
            "values",
            "eval",
            "functions",
            "compile",
            "engine",
            "matching",
            "negotiate",
            "cli",
            "generate",
        ],
    ),
    (&["syntax"], &["ad", "values", "eval", "functions"]),
    (&["ad"], &["values", "eval", "functions"]),
    (&["values"], &["eval", "functions"]),
    (&["functions"], &["eval"]),
    (
        &[
            "syntax",
            "ad",
            "values",
            "eval",
            "functions",
            "calendar.rs",
            "c_number.rs",
            "limits.rs",
        ],
        &[
            "compile",
            "engine",
            "matching",
            "negotiate",
            "cli",
            "generate",
        ],
    ),
    (
        &["compile"],
        &["engine", "matching", "negotiate", "cli", "generate"],
    ),
];

fn rust_files(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        for e in std::fs::read_dir(p).unwrap() {
            rust_files(&e.unwrap().path(), out);
        }
    } else if p.extension().is_some_and(|x| x == "rs") {
        out.push(p.to_path_buf());
    }
}

/// The lines of `text` that are code outside unit tests: comments are skipped, and
/// everything from the unit-test module on (tests may use the whole crate).
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .take_while(|(_, l)| l.trim() != "#[cfg(test)]")
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .map(|(i, l)| (i + 1, l))
}

#[test]
fn lower_layers_never_name_higher_ones() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut bad = Vec::new();
    for (modules, above) in LAYERS {
        for m in *modules {
            let mut files = Vec::new();
            rust_files(&src.join(m), &mut files);
            assert!(!files.is_empty(), "no sources for {m}");
            for f in files {
                let text = std::fs::read_to_string(&f).unwrap();
                for (n, line) in code_lines(&text) {
                    for a in *above {
                        if line.contains(&format!("crate::{a}::"))
                            || line.contains(&format!("crate::{a};"))
                        {
                            bad.push(format!("{}:{n}: names {a}: {}", f.display(), line.trim()));
                        }
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn code_lines_skip_comments_and_unit_tests() {
    let text = "use crate::eval;\n// crate::compile::x\n#[cfg(test)]\nuse crate::compile::y;\n";
    let lines: Vec<_> = code_lines(text).map(|(n, _)| n).collect();
    assert_eq!(lines, vec![1]);
}

/// Issue 35, item 1: the front ends go through the library's pipelines (a
/// cycle through `classad::negotiate::Pool`, the bindings' match calls through
/// `classad::matching::SlotSet`, a queue streamed in parts through
/// `classad::matching::QueueReader`), and do not assemble them from their parts.
#[test]
fn front_ends_go_through_the_pipelines() {
    const FRONT_ENDS: [&str; 8] = [
        "cli/negotiate_cmd.rs",
        "cli/match_cmd.rs",
        "cli/analyze_cmd.rs",
        "cli/bench_cmd.rs",
        "cli/input_checks.rs",
        "python/src/shard.rs",
        "python/src/batch.rs",
        "capi/src/pool.rs",
    ];
    const PARTS: [&str; 9] = [
        "BatchMatcher",
        "ClassPairs",
        "AutoclusterBuilder",
        "CompiledSlots",
        "SignificantAttributes",
        "cluster_with_facts",
        "prepare_slots",
        "negotiate_with_pairs",
        "class_names",
    ];
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut bad = Vec::new();
    for file in FRONT_ENDS {
        let text = std::fs::read_to_string(src.join(file)).unwrap();
        for (n, line) in code_lines(&text) {
            for part in PARTS {
                if line.contains(part) {
                    bad.push(format!("src/{file}:{n}: names {part}: {}", line.trim()));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Issue 35, item 2: the command modules share through modules of their own
/// (`cli/cycle.rs`, `cli/threads.rs`, `cli/io.rs`, ...), never through each
/// other: a file of `src/cli` names no `*_cmd` module but its own command's
/// (`analyze_text.rs` may name `analyze_cmd`); `mod.rs` dispatches to all.
#[test]
fn commands_share_through_modules_not_through_each_other() {
    let cli = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
    let mut bad = Vec::new();
    for e in std::fs::read_dir(&cli).unwrap() {
        let path = e.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if stem == "mod" || path.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let own = stem.split('_').next().unwrap_or("").to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in code_lines(&text) {
            for (i, _) in line.match_indices("_cmd::") {
                let head = &line[..i];
                let start = head
                    .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .map_or(0, |k| k + 1);
                let command = &head[start..];
                if command != own {
                    bad.push(format!(
                        "src/cli/{stem}.rs:{n}: names {command}_cmd: {}",
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Issue 35, item 3: a halted run of the machine is given its meaning in one
/// place, `crate::engine::settle` (a failure holds nowhere and ranks 0; a run
/// handed back goes to the reference evaluator): no other file of `src/`
/// matches on how the machine halted.
#[test]
fn a_halted_run_means_one_thing_decided_in_the_engine() {
    let bad = code_lines_where("src", |f, line| {
        let arm = line.contains("=>");
        let halt = line.contains("Halt::Fail") || line.contains("Halt::NeedReference)");
        let allowed = f.ends_with("engine/mod.rs") || f.ends_with("test_support.rs");
        arm && halt && !allowed
    });
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Issue 35, item 3: the negotiator's own evaluations (its knobs on slots and
/// jobs, the attributes it reads) go through `crate::engine`, which picks the
/// machine or the reference evaluator; no file of `src/negotiate` calls the
/// reference evaluator itself.
#[test]
fn the_negotiator_evaluates_through_the_engine() {
    let calls = ["eval_in(", "eval_attr(", "Evaluator::", "eval_alone("];
    let bad = code_lines_where("src/negotiate", |_, line| {
        calls.iter().any(|c| line.contains(c))
    });
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Every code line (outside unit tests) of the Rust files under `dir` (from the
/// crate's root) for which `offends` holds, as `file:line: text`.
fn code_lines_where(dir: &str, offends: impl Fn(&Path, &str) -> bool) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(files.len() > 10, "the sources of {dir} were read");
    let mut bad = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in code_lines(&text) {
            if offends(&f, line) {
                bad.push(format!("{}:{n}: {}", f.display(), line.trim()));
            }
        }
    }
    bad
}

/// Issue 35, item 2: no import cycles between the top-level modules of `src/`
/// (the front ends' crates, `python` and `capi`, aside): every module's
/// references to the others, read from its code outside unit tests, make a
/// graph without a cycle. A cycle is reported with a reference of each edge.
#[test]
fn top_level_modules_import_without_cycles() {
    use std::collections::BTreeMap;
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let name = |p: &Path| {
        let n = p.file_name().unwrap().to_string_lossy().into_owned();
        n.strip_suffix(".rs").map(str::to_string).unwrap_or(n)
    };
    let tops: Vec<String> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| name(&e.unwrap().path()))
        .filter(|n| !["lib", "main", "python", "capi"].contains(&n.as_str()))
        .collect();
    // edges[a][b]: one place where module `a` names module `b`.
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for top in &tops {
        let mut files = Vec::new();
        let dir = src.join(top);
        rust_files(if dir.is_dir() { &dir } else { &src }, &mut files);
        // A module of one file is that file, not every file of its name.
        files.retain(|f| dir.is_dir() || *f == src.join(format!("{top}.rs")));
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            for (n, line) in code_lines(&text) {
                for other in &tops {
                    let named = line.contains(&format!("crate::{other}::"))
                        || line.contains(&format!("crate::{other};"))
                        || line.contains(&format!("crate::{other}}}"));
                    if other != top && named {
                        let at = format!("{}:{n}", f.display());
                        edges
                            .entry(top.clone())
                            .or_default()
                            .entry(other.clone())
                            .or_insert(at);
                    }
                }
            }
        }
    }
    assert!(edges.len() > 5, "the graph was read: {edges:?}");
    // Depth-first search: a module met again while on the path closes a cycle.
    fn visit(
        v: &str,
        edges: &BTreeMap<String, BTreeMap<String, String>>,
        path: &mut Vec<String>,
        done: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == v) {
            let mut cycle = path[i..].to_vec();
            cycle.push(v.to_string());
            return Some(cycle);
        }
        if done.iter().any(|d| d == v) {
            return None;
        }
        path.push(v.to_string());
        for w in edges.get(v).into_iter().flat_map(|e| e.keys()) {
            if let Some(c) = visit(w, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.push(v.to_string());
        None
    }
    let mut done = Vec::new();
    for top in &tops {
        if let Some(cycle) = visit(top, &edges, &mut Vec::new(), &mut done) {
            let steps: Vec<String> = cycle
                .windows(2)
                .map(|w| format!("{} -> {} ({})", w[0], w[1], edges[&w[0]][&w[1]]))
                .collect();
            panic!("an import cycle:\n{}", steps.join("\n"));
        }
    }
}
