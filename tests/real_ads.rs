//! Real ad files, as HTCondor's tools wrote them (HTCondor's own test ads, a
//! production pool sample of 205 ads with about 500 attributes each), held where
//! the files live rather than in the repository: every file is read; every ad is
//! printed in old, new, JSON and XML syntax and read back to the same ad; every
//! attribute is evaluated on both engines with the same result; and every job ad
//! is matched against every slot ad on both.
//!
//! Not part of `cargo test`'s default set, since the files are not ours to
//! commit: `.ci/run` runs it as
//! `CLASSAD_REAL_ADS=DIR cargo test --release --test real_ads -- --nocapture`.
//! With `CLASSAD_REAL_ADS_OUT=FILE` it also writes what it read, printed and
//! evaluated, one JSON object per attribute, for `tests/real_ads_oracle.py` to
//! hold against HTCondor's own library.

use classad::ad::json::unparse_ad_json;
use classad::ad::xml::write_ads_xml;
use classad::ad::{read_ads_as, read_ads_from, ClassAd, Format, ReadLimits};
use classad::ad::{unparse_ad, unparse_ad_old};
use classad::engine::{eval_in_with, Engine};
use classad::eval::{eval_in, Fail, Semantics};
use classad::matching::{symmetric_match, CompiledPool};
use classad::syntax::unparse_node;
use classad::values::display::unparse_value;
use classad::Value;
use classad_vm::Machine;
use std::io::{BufRead, BufReader, Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The files of the directory `CLASSAD_REAL_ADS` names, README aside, in name
/// order.
fn real_ad_files() -> Vec<PathBuf> {
    let dir = std::env::var_os("CLASSAD_REAL_ADS")
        .expect("CLASSAD_REAL_ADS names the folder of real ad files (see the module doc)");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", Path::new(&dir).display()))
        .map(|e| e.expect("a folder entry").path())
        .filter(|p| p.is_file() && !p.ends_with("README.md"))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no ad files in {}",
        Path::new(&dir).display()
    );
    files
}

/// Every ad of `path`, uncompressed first when it is gzip.
fn read_file(path: &Path) -> Vec<ClassAd> {
    let name = path.display().to_string();
    let mut input: Box<dyn BufRead> =
        Box::new(BufReader::new(std::fs::File::open(path).expect("readable")));
    if input
        .fill_buf()
        .expect("readable")
        .starts_with(&[0x1f, 0x8b])
    {
        let mut text = Vec::new();
        flate2::bufread::MultiGzDecoder::new(input)
            .read_to_end(&mut text)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        input = Box::new(std::io::Cursor::new(text));
    }
    read_ads_from(input, &name, ReadLimits::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// `ads` printed in `format`, as `classad format` prints them.
fn print(ads: &[ClassAd], format: Format) -> String {
    match format {
        Format::Old => ads
            .iter()
            .map(unparse_ad_old)
            .collect::<Vec<_>>()
            .join("\n"),
        Format::New => ads.iter().map(|a| unparse_ad(a) + "\n").collect(),
        Format::Json => {
            let each: Vec<String> = ads.iter().map(unparse_ad_json).collect();
            format!("[\n{}\n]\n", each.join(",\n"))
        }
        Format::Xml => {
            let mut out = Vec::new();
            write_ads_xml(ads.iter(), &mut out).expect("writing to memory");
            String::from_utf8(out).expect("XML ads are UTF-8")
        }
    }
}

/// What went wrong, for the report at the end (the test fails on any).
#[derive(Default)]
struct Findings {
    list: Vec<String>,
}

impl Findings {
    fn add(&mut self, what: String) {
        if self.list.len() < 200 {
            self.list.push(what);
        }
    }
}

/// Prints `ads` in every syntax and reads them back: the same ads (their new
/// syntax printing) and, printed again, the same text.
fn round_trip(file: &str, ads: &[ClassAd], found: &mut Findings) {
    let canon: Vec<String> = ads.iter().map(unparse_ad).collect();
    for format in [Format::Old, Format::New, Format::Json, Format::Xml] {
        let text = print(ads, format);
        let back = match read_ads_as(&text, file, format) {
            Ok(back) => back,
            Err(e) => {
                found.add(format!(
                    "{file}: {format:?} printing does not read back: {e}"
                ));
                continue;
            }
        };
        if back.len() != ads.len() {
            found.add(format!(
                "{file}: {format:?}: {} ads read back of {}",
                back.len(),
                ads.len()
            ));
            continue;
        }
        for (i, (b, c)) in back.iter().zip(&canon).enumerate() {
            let printed = unparse_ad(b);
            if &printed != c {
                found.add(format!(
                    "{file}: ad {i}, {format:?}: read back as\n  {printed}\nnot\n  {c}"
                ));
            }
        }
        if print(&back, format) != text {
            found.add(format!("{file}: {format:?} printing is not a fixed point"));
        }
    }
}

/// True when `text` calls something whose value changes from one call to the
/// next.
fn reads_clock_or_dice(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    [
        "time(",
        "random(",
        "currenttime",
        "splittime",
        "formattime",
        "uuid",
    ]
    .iter()
    .any(|f| t.contains(f))
}

fn shown(r: &Result<Value, Fail>) -> String {
    match r {
        Ok(v) => unparse_value(v),
        Err(f) => format!("<{f:?}>"),
    }
}

/// Evaluates every attribute of every ad alone on both engines; writes each to
/// `out` when asked.
fn evaluate_all(
    file: &str,
    ads: &[Arc<ClassAd>],
    out: &mut Option<std::fs::File>,
    found: &mut Findings,
) -> (usize, usize) {
    let (mut evaluated, mut changing) = (0, 0);
    for (i, ad) in ads.iter().enumerate() {
        for (name, e) in ad.iter() {
            let e = e.to_expr_ref();
            let mut text = String::new();
            unparse_node(&e.tree, e.id, &mut text);
            let both = || {
                catch_unwind(AssertUnwindSafe(|| {
                    let r = eval_in(&e, ad, None, Semantics::Htcondor);
                    let v = eval_in_with(Engine::Vm, &e, ad, None, Semantics::Htcondor);
                    (shown(&r), shown(&v))
                }))
            };
            let Ok((mut r, mut v)) = both() else {
                found.add(format!(
                    "{file}: ad {i}, {name} = {text}: evaluation panicked"
                ));
                continue;
            };
            evaluated += 1;
            if r != v && reads_clock_or_dice(&text) {
                // The clock ticked, or the dice rolled, between the two.
                changing += 1;
                if let Ok(again) = both() {
                    (r, v) = again;
                }
                if r != v {
                    continue;
                }
            }
            if r != v {
                found.add(format!(
                    "{file}: ad {i}, {name} = {text}: reference {r}, VM {v}"
                ));
            }
            if let Some(out) = out {
                let row = serde_json::json!({
                    "file": file, "ad": i, "attr": name.as_str(), "expr": text, "value": r,
                });
                writeln!(out, "{row}").expect("writable");
            }
        }
    }
    (evaluated, changing)
}

/// Is `ad` a job (by `MyType`, else by what only jobs have)?
fn is_job(ad: &ClassAd) -> bool {
    match ad.get("MyType").map(|e| e.node().clone()) {
        Some(classad::syntax::ast::Node::Lit(Value::Str(s))) => s.eq_ignore_ascii_case("Job"),
        _ => ad.contains("RequestCpus") || ad.contains("Cmd"),
    }
}

/// Is `ad` a slot (`MyType` "Machine")?
fn is_slot(ad: &ClassAd) -> bool {
    matches!(ad.get("MyType").map(|e| e.node().clone()),
        Some(classad::syntax::ast::Node::Lit(Value::Str(s))) if s.eq_ignore_ascii_case("Machine"))
}

#[test]
fn every_real_ad_reads_prints_back_and_evaluates_alike_on_both_engines() {
    let mut out = std::env::var_os("CLASSAD_REAL_ADS_OUT")
        .map(|p| std::fs::File::create(&p).expect("CLASSAD_REAL_ADS_OUT is writable"));
    let mut found = Findings::default();
    let (mut jobs, mut slots) = (Vec::new(), Vec::new());
    let (mut files, mut ad_count, mut evaluated, mut changing) = (0, 0, 0, 0);
    for path in real_ad_files() {
        let file = path
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        let ads = read_file(&path);
        files += 1;
        ad_count += ads.len();
        round_trip(&file, &ads, &mut found);
        let ads: Vec<Arc<ClassAd>> = ads.into_iter().map(Arc::new).collect();
        let (e, c) = evaluate_all(&file, &ads, &mut out, &mut found);
        evaluated += e;
        changing += c;
        jobs.extend(ads.iter().filter(|a| is_job(a)).cloned());
        slots.extend(ads.iter().filter(|a| is_slot(a)).cloned());
    }
    // Every job against every slot, on both engines.
    let pool = CompiledPool::new(&jobs, &slots);
    let mut vm = Machine::new();
    let mut matched = 0;
    for (j, job) in jobs.iter().enumerate() {
        for (m, slot) in slots.iter().enumerate() {
            let reference = symmetric_match(job, slot, Semantics::Htcondor);
            if reference != pool.symmetric_match(&mut vm, j, m) {
                found.add(format!(
                    "job {j} and slot {m}: reference {reference}, VM not"
                ));
            }
            matched += reference as usize;
        }
    }
    eprintln!(
        "real ads: {files} files, {ad_count} ads, {evaluated} attributes evaluated on both \
         engines ({changing} evaluated again after the clock ticked or the dice rolled), {} jobs x {} slots matched \
         on both ({matched} matches), {} disagreements",
        jobs.len(),
        slots.len(),
        found.list.len()
    );
    assert!(
        found.list.is_empty(),
        "real ads:\n{}",
        found.list.join("\n")
    );
}
