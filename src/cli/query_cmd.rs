//! `classad query`: the ads of files for which a constraint is true, printed as
//! `condor_status` and `condor_q` print them: in the table of their `MyType` (the
//! default, or only its totals with `-total`), whole (`-long`, `-json`,
//! `-long:new`, optionally only some attributes), a line of chosen values per ad
//! (`-af`) or printf formats (`-format`); in the order read, or by `-sort` keys.
//!
//! The arguments are read as HTCondor's tools read theirs, not by clap: an option
//! takes one dash or two, with one dash any abbreviation down to a tool's shortest
//! (`-cons`, `-l`, `-lim`; `is_dash_arg_prefix` in HTCondor's `match_prefix.cpp`),
//! with two only the whole name; `-af` takes a `:` suffix of letters and every
//! argument after it up to the next that begins with `-`; `-format` takes two.

use super::autoformat::Autoformat;
use super::error_count::ErrorCount;
use super::format_option::Formats;
use super::io::{open_input, output_error};
use super::long_form::LongForm;
use super::query_output::{Output, Printer};
use super::sort_keys::{self, SortKeys};
use super::table_view::Place;
use super::Failure;
use crate::ad::files::display_name;
use crate::ad::parts::{read_ads_in_parts, PartsError, PART_BYTES};
use crate::ad::ClassAd;
use crate::ad::ReadLimits;
use crate::eval::independent::IndependentParts;
use crate::eval::Semantics;
use crate::syntax::ast::ExprRef;
use crate::syntax::parse_expr;
use clap::Args;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

/// What `classad query --help` shows after the usage line.
const HELP: &str = "\
With nothing but files, each ad is printed in the table of its MyType, as
condor_status and condor_q print theirs: slots (MyType \"Machine\") in
condor_status's (Name OpSys Arch State Activity LoadAv Mem ActvtyTime, then the
totals by Arch/OpSys and State), jobs (MyType \"Job\") in condor_q -nobatch's (ID
OWNER SUBMITTED RUN_TIME ST PRI SIZE CMD, then the line of totals by status); any
other ad whole as -long prints it, before the tables. With no file at all,
standard input is read.

Options (one dash or two; with one dash, any abbreviation as HTCondor's tools take it):
  -constraint EXPR    Print only the ads for which EXPR is true; several are ANDed
  -limit N            Print at most N ads (counted across all the files); reading
                      stops at the ad that makes N
  -sort EXPR          Print the ads in the order of EXPR's value in each, as
                      condor_status -sort orders them (numbers by value, text
                      naturally: slot2 before slot10; undefined as that word);
                      several -sort order ties in turn. Every selected ad is held
                      until all are read
  -total, -t          Only the totals under the tables (condor_status -total,
                      condor_q -totals)
  -long, -l           Whole ads in old syntax: attributes sorted by name ignoring
                      case, a blank line after each ad
  -long:new, -new     Whole ads in new syntax, a { ... } list of one-line ads
  -long:json, -json   Whole ads as a JSON array of objects
  -long:xml, -xml     Whole ads as XML, as condor_q -xml prints them
  -attributes A,B,... Only these attributes of each ad printed whole (by the forms
                      above, or beside the tables); the tables are unchanged
  -format FMT ATTR    Print ATTR (an attribute, or an expression evaluated in the
                      ad) through FMT, a printf format with one conversion: %d %i
                      %u %x %X %o %c (numbers), %f %e %g (reals), %s (a string; an
                      attribute that is not a string prints its expression), %v
                      (any value, strings bare), %V (strings quoted), %r (the
                      expression), %T (seconds as ddd+hh:mm:ss), %Y (a date); with
                      flags, width and precision. Several -format print one after
                      another with nothing between them and no newline after: write
                      \\n in FMT. A value of the wrong type prints nothing of FMT
  -af[:jlhVrTY,tng] ARG...
  -autoformat[:...] ARG...
                      One line per ad: the value of each ARG (an attribute name or
                      an expression evaluated in the ad), separated by spaces;
                      strings bare, other values as HTCondor prints them. Every
                      argument up to the next one beginning with '-' is an ARG; a
                      lone '-' right after them only ends the list. Letters after ':':
                        j  the job id first (ClusterId.ProcId)
                        l  label each value: NAME = value
                        h  a heading line; columns padded to their widest value
                        V  strings quoted
                        r  the expressions themselves, not their values
                        T  numbers as elapsed times, ddd+hh:mm:ss
                        Y  numbers and times as dates, mm/dd hh:mm (local time)
                        ,  a comma after each value but the last
                        t  a tab before each value instead of a space
                        n  a newline after each value but the last
                        g  no space before values, a newline before each ad
  -help, -h           This help
  --                  Every argument after it is a file

The last of the output options given (tables, -total, -long and its forms, -af,
-format) decides the output; -af and -format cannot be mixed.

Files are read in order, in old, new or JSON syntax (detected), gzip or not;
'-' is standard input, and with no file at all standard input is read. Without
-sort the ads are printed in the order of the files, not sorted as condor_status
and condor_q sort them, as they are read: nothing of an ad printed whole or by
-af or -format is kept once it is printed (see `classad --help` for the bounds on
a line, an ad and a file read whole). Private attributes (ClaimId, Capability,
...) are never printed whole.

Examples:
  classad query pool.ads
  classad query -constraint 'State == \"Unclaimed\"' -af Name Cpus Memory pool.ads
  classad query -af:h Name 'Memory / 1024' pool.ads
  classad query -af:j Owner RequestCpus -limit 10 jobs.ads
  classad query -format '%-20s' Name -format ' %5d\\n' Cpus -sort Cpus pool.ads
  classad query -total pool.ads jobs.ads
  classad query -json -attributes Name,Cpus pool.ads";

/// Arguments of `classad query`: options and files in any order, read as
/// `condor_status` reads its own (see the help).
#[derive(Args, Debug)]
#[command(override_usage = "classad query [OPTIONS] [FILE]...", after_help = HELP)]
pub struct QueryArgs {
    /// Options and files (see below).
    #[arg(
        allow_hyphen_values = true,
        trailing_var_arg = true,
        value_name = "OPTIONS AND FILES"
    )]
    args: Vec<String>,
}

/// What the command line asks for.
#[derive(Debug)]
struct Query {
    /// Every `-constraint`, ANDed.
    constraints: Vec<String>,
    /// At most this many ads.
    limit: Option<u64>,
    /// The form of the last option that chose one, as `condor_status` takes it.
    output: Output,
    /// `-attributes`.
    attributes: Option<Vec<String>>,
    /// The columns of every `-af`.
    autoformat: Autoformat,
    /// Every `-format`, in order.
    formats: Formats,
    /// Every `-sort`, in order.
    sort: SortKeys,
    /// The files, in order; `-` is standard input.
    files: Vec<String>,
}

/// `arg` as option `name`, spelt with one dash and at least `min` of its first
/// letters, or with two dashes and all of them (HTCondor's
/// `is_dash_arg_colon_prefix`); `Some(suffix)`, the text after a `:` when `colon`
/// allows one, when it is.
fn option<'a>(arg: &'a str, name: &str, min: usize, colon: bool) -> Option<Option<&'a str>> {
    let body = arg.strip_prefix('-')?;
    let (body, whole) = match body.strip_prefix('-') {
        Some(b) => (b, true),
        None => (body, false),
    };
    let (word, suffix) = match body.split_once(':') {
        Some((w, s)) if colon => (w, Some(s)),
        _ => (body, None),
    };
    let ok = !word.is_empty()
        && name.starts_with(word)
        && if whole {
            word == name
        } else {
            word.len() >= min
        };
    ok.then_some(suffix)
}

/// What the arguments ask for, `None` for help.
fn parse_args(args: &[String]) -> Result<Option<Query>, String> {
    let mut q = Query {
        constraints: Vec::new(),
        limit: None,
        output: Output::Tables,
        attributes: None,
        autoformat: Autoformat::new(),
        formats: Formats::new(),
        sort: SortKeys::new(),
        files: Vec::new(),
    };
    let mut i = 0;
    let mut only_files = false;
    // The argument after option `args[i]`.
    let value = |i: usize, what: &str| {
        args.get(i + 1)
            .cloned()
            .ok_or_else(|| format!("{} needs {what} after it", args[i]))
    };
    while i < args.len() {
        let a = args[i].as_str();
        if only_files || a == "-" || !a.starts_with('-') {
            q.files.push(a.to_string());
            i += 1;
            continue;
        }
        if a == "--" {
            only_files = true;
            i += 1;
            continue;
        }
        if let Some(suffix) = option(a, "af", 2, true).or_else(|| option(a, "autoformat", 5, true))
        {
            if !q.formats.is_empty() {
                return Err(mixed_af_and_format(a));
            }
            let first = i + 1;
            let end = (first..args.len())
                .find(|&j| args[j].starts_with('-'))
                .unwrap_or(args.len());
            q.autoformat
                .add(a, suffix.unwrap_or(""), &args[first..end])?;
            q.output = Output::Autoformat;
            i = end;
            // As in HTCondor, a lone `-` right after the list only ends it.
            if args.get(i).is_some_and(|a| a == "-") {
                i += 1;
            }
            continue;
        }
        if option(a, "help", 1, false).is_some() {
            return Ok(None);
        } else if option(a, "constraint", 1, false).is_some() {
            q.constraints.push(value(i, "an expression")?);
            i += 1;
        } else if option(a, "format", 1, false).is_some() {
            if q.autoformat.has_columns() {
                return Err(mixed_af_and_format(a));
            }
            let (Some(format), Some(attr)) = (args.get(i + 1), args.get(i + 2)) else {
                return Err(format!(
                    "{a} needs a format and an attribute after it: {a} FMT ATTR (e.g. {a} \
                     '%s\\n' Name)"
                ));
            };
            q.formats.add(a, format, attr)?;
            q.output = Output::Format;
            i += 2;
        } else if option(a, "sort", 2, false).is_some() {
            q.sort.add(a, &value(i, "an expression to sort by")?)?;
            i += 1;
        } else if option(a, "totals", 1, false).is_some() {
            q.output = Output::Totals;
        } else if option(a, "limit", 2, false).is_some() {
            let n = value(i, "a number of ads")?;
            match n.parse::<u64>() {
                Ok(l) if l > 0 => q.limit = Some(l),
                _ => return Err(format!("{a}: expected a positive number of ads, not `{n}`")),
            }
            i += 1;
        } else if let Some(suffix) = option(a, "long", 1, true) {
            let mut form = LongForm::Long;
            for word in suffix.unwrap_or("").split(',').filter(|w| !w.is_empty()) {
                form = match word {
                    "long" => LongForm::Long,
                    "new" => LongForm::New,
                    "json" => LongForm::Json,
                    "xml" => LongForm::Xml,
                    _ => {
                        return Err(format!(
                            "{a}: unknown form `{word}` (expected long, new, json or xml)"
                        ))
                    }
                };
            }
            q.output = Output::Whole(form);
        } else if option(a, "json", 2, false).is_some() {
            q.output = Output::Whole(LongForm::Json);
        } else if option(a, "new", 3, false).is_some() {
            q.output = Output::Whole(LongForm::New);
        } else if option(a, "xml", 3, false).is_some() {
            q.output = Output::Whole(LongForm::Xml);
        } else if option(a, "attributes", 2, false).is_some() {
            let list = value(i, "attribute names separated by commas")?;
            let names: Vec<String> = list
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|n| !n.is_empty())
                .map(str::to_string)
                .collect();
            if names.is_empty() {
                return Err(format!(
                    "{a}: expected attribute names separated by commas, not `{list}`"
                ));
            }
            q.attributes = Some(names);
            i += 1;
        } else {
            return Err(format!("unknown option `{a}` (see `classad query --help`)"));
        }
        i += 1;
    }
    if q.files.is_empty() {
        q.files.push("-".to_string());
    }
    let named: Vec<(String, Option<&str>)> = (q.files.iter().enumerate())
        .map(|(i, f)| (format!("file {} (`{f}`)", i + 1), Some(f.as_str())))
        .collect();
    let inputs: Vec<(&str, Option<&str>)> = named.iter().map(|(n, f)| (n.as_str(), *f)).collect();
    super::io::one_standard_input(&inputs)?;
    Ok(Some(q))
}

/// The message for `-af` and `-format` on one command line.
fn mixed_af_and_format(option: &str) -> String {
    format!(
        "{option}: -af and -format cannot be mixed in one query (HTCondor merges them into \
         one print mask); write each -af column as -format ' %v' ATTR, or use only -af"
    )
}

/// The constraints as one expression: none selects every ad; several are joined
/// as HTCondor's `GenericQuery::makeQuery` joins them, `( (a) && (b) )`. Each is
/// parsed alone first so that an error names the one at fault.
fn constraint(constraints: &[String]) -> Result<ExprRef, String> {
    for c in constraints {
        parse_expr(c).map_err(|e| format!("-constraint `{c}`: {e}"))?;
    }
    let text = match constraints {
        [] => "true".to_string(),
        [one] => one.clone(),
        many => {
            let parts: Vec<String> = many.iter().map(|c| format!("({c})")).collect();
            format!("( {} )", parts.join(" && "))
        }
    };
    let expr = parse_expr(&text).map_err(|e| format!("the constraints together: {e}"))?;
    Ok(ExprRef::root_of(Arc::new(expr)))
}

/// Prints the help, as `classad query --help` does.
fn print_help() -> Result<ExitCode, Failure> {
    use clap::CommandFactory;
    match super::Cli::command().try_get_matches_from(["classad", "query", "--help"]) {
        Err(e) => {
            e.print().map_err(output_error)?;
            Ok(ExitCode::SUCCESS)
        }
        Ok(_) => Err(Failure::Message("no help to print".to_string())),
    }
}

/// Runs `classad query`.
pub fn run(a: QueryArgs) -> Result<ExitCode, Failure> {
    let Some(mut q) = parse_args(&a.args)? else {
        return print_help();
    };
    let expr = constraint(&q.constraints)?;
    let files = std::mem::take(&mut q.files);
    // A file that cannot be opened stops the command before anything is printed.
    for f in files.iter().filter(|f| *f != "-") {
        std::fs::File::open(f).map_err(|e| format!("{f}: {e}"))?;
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let sort = std::mem::take(&mut q.sort);
    let mut selection = Selection {
        parts: IndependentParts::new(&expr),
        limit: q.limit,
        selected: 0,
        errors: ErrorCount::default(),
        first_error: None,
        held: (!sort.is_empty()).then(Vec::new),
        sort,
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let mut printer = Printer::new(
        q.output,
        q.attributes.take(),
        &mut q.autoformat,
        &q.formats,
        now,
    );
    for (f, path) in files.iter().enumerate() {
        match selection.print_file(f, path, &mut printer, &mut out)? {
            Read::Whole => {}
            Read::LimitReached => break,
        }
    }
    selection
        .print_held(&mut printer, &mut out)
        .and_then(|_| printer.finish(&mut out))
        .and_then(|_| out.flush())
        .map_err(output_error)?;
    // After the ads: a standard error that fails then loses none of them.
    if let Some((f, i)) = selection.first_error {
        let file = &files[f];
        super::io::to_stderr(&format!(
            "warning: the constraint was error for {} of {} ads (first: {file}, ad {i} counting from 0)",
            selection.errors.errors, selection.errors.total
        ))?;
    }
    if let Some((count, first)) = printer.uncounted() {
        let file = &files[first.file];
        super::io::to_stderr(&format!(
            "warning: -total counted only slots (MyType \"Machine\") and jobs (MyType \"Job\"); \
             {count} other selected ads are in no totals (first: {file}, ad {} counting from 0); \
             -long prints them, -constraint 'MyType == \"Machine\"' leaves them out",
            first.ad
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// How far a file was read.
enum Read {
    /// To its end.
    Whole,
    /// Up to the ad that made `-limit`: nothing after it was read.
    LimitReached,
}

/// Why printing the ads of a part stopped.
enum Stop {
    /// `-limit` ads are printed.
    Limit,
    /// Standard output failed.
    Output(std::io::Error),
}

/// A selected ad held for `-sort`: its key, where it was read, the ad.
type Held = (String, Place, Arc<ClassAd>);

/// The ads selected so far, across the files.
struct Selection {
    /// The constraint; its parts that read nothing of the ad are evaluated once.
    parts: IndependentParts,
    limit: Option<u64>,
    selected: u64,
    errors: ErrorCount,
    /// The file (its index) and the ad of the first error.
    first_error: Option<(usize, usize)>,
    /// The `-sort` keys.
    sort: SortKeys,
    /// With `-sort`, every selected ad, printed once all are read.
    held: Option<Vec<Held>>,
}

impl Selection {
    /// Prints the selected ads of file `f` at `path` as they are read, a part at a
    /// time: only the part being printed is held (unless `-sort` holds them
    /// all), and reading stops at the ad that makes `-limit`.
    fn print_file(
        &mut self,
        f: usize,
        path: &str,
        printer: &mut Printer<'_>,
        out: &mut dyn Write,
    ) -> Result<Read, Failure> {
        let input = open_input(path, 1 << 20)?;
        // Nothing of an ad is kept once printed: the input's length is not bounded.
        let limits = ReadLimits::configured().streaming();
        let shared = |ads: Vec<ClassAd>| ads.into_iter().map(Arc::new).collect::<Vec<_>>();
        let mut index = 0usize;
        let sink = |ads: Vec<Arc<ClassAd>>| {
            for ad in &ads {
                let place = Place { file: f, ad: index };
                self.select(place, ad, printer, out)?;
                index += 1;
            }
            Ok(())
        };
        let name = display_name(path);
        match read_ads_in_parts(input, name, limits, PART_BYTES, shared, sink) {
            Ok(()) => Ok(Read::Whole),
            Err(PartsError::Sink(Stop::Limit)) => Ok(Read::LimitReached),
            Err(PartsError::Sink(Stop::Output(e))) => Err(output_error(e)),
            Err(PartsError::Read(e)) => Err(Failure::Message(e.to_string())),
        }
    }

    /// Evaluates the constraint in the ad read at `place` and prints (or, with
    /// `-sort`, holds) the ad when it is true; [`Stop::Limit`] once `-limit` ads
    /// are selected.
    fn select(
        &mut self,
        place: Place,
        ad: &Arc<ClassAd>,
        printer: &mut Printer<'_>,
        out: &mut dyn Write,
    ) -> Result<(), Stop> {
        let v = self.parts.eval_in(ad, Semantics::Htcondor);
        let is_error = v.as_ref().map_or(true, |v| v.is_error());
        self.errors.note(place.ad, is_error);
        if is_error && self.first_error.is_none() {
            self.first_error = Some((place.file, place.ad));
        }
        if matches!(v, Ok(v) if v.as_bool_equiv() == Some(true)) {
            match &mut self.held {
                Some(held) => {
                    // The ordinal is HTCondor's `%08X`: 32 bits.
                    let key = self.sort.key(ad, self.selected as u32);
                    held.push((key, place, Arc::clone(ad)));
                }
                None => printer.ad(ad, place, out).map_err(Stop::Output)?,
            }
            self.selected += 1;
            if self.limit.is_some_and(|l| self.selected >= l) {
                return Err(Stop::Limit);
            }
        }
        Ok(())
    }

    /// With `-sort`, prints the held ads in the order of their keys.
    fn print_held(
        &mut self,
        printer: &mut Printer<'_>,
        out: &mut dyn Write,
    ) -> std::io::Result<()> {
        let Some(mut held) = self.held.take() else {
            return Ok(());
        };
        held.sort_by(|a, b| sort_keys::compare(&a.0, &b.0));
        for (_, place, ad) in &held {
            printer.ad(ad, *place, out)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_matched_as_htcondor_matches_them() {
        assert_eq!(option("-constraint", "constraint", 1, false), Some(None));
        assert_eq!(option("-cons", "constraint", 1, false), Some(None));
        assert_eq!(option("--constraint", "constraint", 1, false), Some(None));
        assert_eq!(option("--cons", "constraint", 1, false), None);
        assert_eq!(option("-l", "limit", 2, false), None);
        assert_eq!(option("-li", "limit", 2, false), Some(None));
        assert_eq!(option("-limits", "limit", 2, false), None);
        assert_eq!(option("-af:hj", "af", 2, true), Some(Some("hj")));
        assert_eq!(option("--af:h", "af", 2, true), Some(Some("h")));
        assert_eq!(option("-a:h", "af", 2, true), None);
        assert_eq!(option("-autof:,", "autoformat", 5, true), Some(Some(",")));
        assert_eq!(option("-auto", "autoformat", 5, true), None);
        assert_eq!(option("-limit:3", "limit", 2, false), None);
        assert_eq!(option("-", "limit", 2, false), None);
        assert_eq!(option("af", "af", 2, true), None);
    }

    fn parsed(args: &[&str]) -> Result<Query, String> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        parse_args(&args).map(|q| q.expect("not help"))
    }

    #[test]
    fn af_takes_arguments_up_to_the_next_option() {
        let q = parsed(&[
            "-af", "A", "B + 1", "-limit", "2", "f1", "-af:h", "C", "-", "f2",
        ])
        .unwrap();
        assert_eq!(q.files, ["f1", "f2"]);
        assert_eq!(q.limit, Some(2));
        assert!(q.autoformat.has_headings());
        let q = parsed(&["f", "-af", "A", "-", "-"]).unwrap();
        assert_eq!(q.files, ["f", "-"]);
        assert_eq!(
            parsed(&["-l"]).unwrap().files,
            ["-"],
            "no file is standard input"
        );
    }

    #[test]
    fn the_last_form_wins() {
        assert!(matches!(
            parsed(&["-af", "A", "-l"]).unwrap().output,
            Output::Whole(LongForm::Long)
        ));
        assert!(matches!(
            parsed(&["-json", "-af", "A"]).unwrap().output,
            Output::Autoformat
        ));
        assert!(matches!(
            parsed(&["-long:new"]).unwrap().output,
            Output::Whole(LongForm::New)
        ));
        assert!(matches!(
            parsed(&["--json"]).unwrap().output,
            Output::Whole(LongForm::Json)
        ));
    }

    #[test]
    fn format_sort_and_total_are_read_as_condor_status_reads_them() {
        // `is_dash_arg_prefix(argv[i], "format", 1)`, `"sort", 2`, `"totals", 1`.
        let q = parsed(&["-f", "%s", "Name", "f1", "-so", "Cpus", "-sort", "Name"]).unwrap();
        assert_eq!(q.output, Output::Format);
        assert_eq!(q.files, ["f1"]);
        assert!(!q.sort.is_empty());
        assert_eq!(parsed(&["-t"]).unwrap().output, Output::Totals);
        assert_eq!(parsed(&["--totals"]).unwrap().output, Output::Totals);
        assert_eq!(parsed(&["f"]).unwrap().output, Output::Tables);
        assert_eq!(
            parsed(&["-total", "-l"]).unwrap().output,
            Output::Whole(LongForm::Long)
        );
        let err = parsed(&["-s", "Cpus"]).unwrap_err();
        assert!(err.contains("unknown option `-s`"), "{err}");
    }

    #[test]
    fn bad_arguments_say_what_was_expected() {
        let err = |a: &[&str]| parsed(a).expect_err("an error");
        assert!(err(&["-limit", "x"]).contains("expected a positive number"));
        assert!(err(&["-limit", "0"]).contains("expected a positive number"));
        assert!(err(&["-limit"]).contains("-limit needs a number of ads after it"));
        assert!(err(&["-constraint"]).contains("needs an expression"));
        assert!(err(&["-attributes", ","]).contains("expected attribute names"));
        assert!(err(&["-long:yaml"]).contains("unknown form `yaml`"));
        assert!(err(&["-bogus"]).contains("unknown option `-bogus`"));
        assert!(err(&["-af"]).contains("at least one"));
        assert!(err(&["-af", "-l"]).contains("at least one"));
        assert!(err(&["-af", "A +"]).contains("`A +` is not an attribute name"));
        for help in ["-help", "-h", "--help", "-he"] {
            assert!(parse_args(&[help.to_string()]).unwrap().is_none(), "{help}");
        }
    }

    #[test]
    fn constraints_are_anded() {
        let c = |cs: &[&str]| constraint(&cs.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            crate::syntax::unparse(&c(&["A > 1", "B"]).unwrap().tree),
            "((A > 1) && (B))"
        );
        assert!(c(&["A >"]).unwrap_err().starts_with("-constraint `A >`"));
    }
}
