//! The `classad` command line: argument parsing and one module per subcommand.

mod ad_lookup;
mod analyze_cmd;
mod analyze_json;
mod analyze_text;
mod autoformat;
mod bench_cmd;
mod c_printf;
mod cycle;
mod error_count;
mod eval_cmd;
mod format_cmd;
mod format_option;
mod gen_pool_cmd;
mod input_checks;
mod io;
mod json_real;
mod long_form;
mod match_cmd;
mod match_output;
mod negotiate_cmd;
mod pairs_out;
mod progress;
mod query_cmd;
mod query_output;
mod queue_table;
mod sort_keys;
mod status_table;
mod table_cells;
mod table_view;
mod threads;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// What `classad --help` shows after the commands: the environment it reads.
const ENVIRONMENT: &str = "\
Environment (each a number; an error says which bound was passed):
  CLASSAD_MAX_VALUE_BYTES  The largest string or list an evaluation makes (16 MiB)
  CLASSAD_MAX_LINE_BYTES   The longest line of input (64 MiB)
  CLASSAD_MAX_HELD_BYTES   The most input text held at once: a file in new syntax,
                           JSON or XML (read whole), one old-syntax ad, a --config
                           or --priorities file (1 GiB)
  CLASSAD_MAX_INPUT_BYTES  The most bytes of one input, after gzip, for commands
                           that keep every ad: all but query (8 GiB)
  CLASSAD_MAX_ADS          The most ads of one input for those commands (20000000)";

/// HTCondor's ClassAd language: evaluate, match, convert and query ads.
#[derive(Parser, Debug)]
#[command(name = "classad", version, about, after_help = ENVIRONMENT)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Evaluate expressions and print each value as HTCondor unparses it.
    ///
    /// One output line per expression argument, as `classad_eval` prints it;
    /// assignment arguments (`a = 1`) build the ad later expressions see. With
    /// no arguments it reads standard input, one expression per line.
    Eval(eval_cmd::EvalArgs),
    /// Match jobs against machines.
    ///
    /// Prints the matches of one negotiation cycle (or, with `--all-pairs`,
    /// every matching pair) as `<job index> <slot index>` lines, and a summary
    /// on standard error. With no files it matches a built-in pool of 30 jobs
    /// and 40 slots.
    Match(match_cmd::MatchArgs),
    /// The negotiator-throughput benchmark: generate (or read) a pool, then
    /// parse, compile, cluster, match and negotiate it, each phase timed.
    ///
    /// With no arguments it generates 10,000 slots and 100,000 jobs (seed 1)
    /// and prints each phase's seconds and the cycle's statistics.
    Bench(bench_cmd::BenchArgs),
    /// Run one emulated negotiation cycle of HTCondor's negotiator.
    ///
    /// Prints one `<job index> <slot index>` line per match in the order the
    /// cycle made them (`--format json`: every match, the jobs left and why, the
    /// cycle's statistics), and a summary on standard error. With no files it
    /// runs on a built-in pool of 30 jobs and 40 slots.
    Negotiate(negotiate_cmd::NegotiateArgs),
    /// Convert a file of ads to old, new, JSON or XML syntax.
    ///
    /// Reads the file in any of them (detected; `-` is standard input) and
    /// prints its ads in old syntax, or the syntax a flag names.
    Format(format_cmd::FormatArgs),
    /// Print ads as condor_status and condor_q print them: in their tables (or
    /// -total), whole, chosen values (-af) or printf formats (-format), sorted
    /// (-sort), of those for which a constraint is true.
    Query(query_cmd::QueryArgs),
    /// Generate a realistic pool: slot ads, job ads and the submitters' priorities.
    ///
    /// Writes the files `--out-jobs` and `--out-machines` name (2,000 of each by
    /// default, seed 1), ready for `match`, `negotiate` and `bench`.
    GenPool(gen_pool_cmd::GenPoolArgs),
    /// Why jobs match slots or not, as `condor_q -better-analyze` explains it
    /// (`--reverse`: why slots match jobs or not).
    ///
    /// It needs a queue (`--jobs`) and a pool (`--machines`); with no JOB named
    /// it reports on one job per autocluster of the queue, against every slot.
    #[command(after_help = analyze_cmd::LEFT_OUT)]
    Analyze(analyze_cmd::AnalyzeArgs),
}

/// The `--engine` choice.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default)]
pub enum EngineArg {
    /// The bytecode VM (falls back to the reference evaluator where it must).
    #[default]
    Vm,
    /// The tree-walking reference evaluator.
    Reference,
}

impl From<EngineArg> for crate::engine::Engine {
    fn from(e: EngineArg) -> crate::engine::Engine {
        match e {
            EngineArg::Vm => crate::engine::Engine::Vm,
            EngineArg::Reference => crate::engine::Engine::Reference,
        }
    }
}

/// Why a command stopped before its end.
#[derive(Debug)]
pub enum Failure {
    /// An error, printed on standard error (exit status 2).
    Message(String),
    /// Standard output was closed by its reader: the command ends quietly with
    /// exit status 0, as `classad ... | head` expects.
    OutputClosed,
    /// Standard error could not be written (its reader gone, a full disk): the
    /// command ends with exit status 2 and says nothing, having nowhere to.
    StderrFailed,
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::Message(message)
    }
}

/// HTCondor's tools spell their options with one dash (`classad_eval -file`,
/// `condor_status -constraint`); accept those too, in any position before `--`
/// (after it every argument is an expression). `classad query` reads its own
/// arguments as `condor_status` does, so they are left as they are; `classad
/// analyze` takes condor_q's spellings of its files and of `-reverse`, only
/// there, since elsewhere `-reverse` could be an expression.
fn normalize_args(args: impl Iterator<Item = String>) -> Vec<String> {
    let args: Vec<String> = args.collect();
    if args.get(1).is_some_and(|a| a == "query") {
        return args;
    }
    let analyze = args.get(1).is_some_and(|a| a == "analyze");
    let mut options = true;
    args.into_iter()
        .map(|a| match a.as_str() {
            "--" => {
                options = false;
                a
            }
            "-file" | "-my-file" if options => "--my".to_string(),
            "-quiet" if options => "--quiet".to_string(),
            "-target-file" if options => "--target".to_string(),
            "-constraint" if options => "--constraint".to_string(),
            "-jobads" if options && analyze => "--jobs".to_string(),
            "-slotads" if options && analyze => "--machines".to_string(),
            "-reverse" if options && analyze => "--reverse".to_string(),
            _ => a,
        })
        .collect()
}

/// Runs the command line; the process exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse_from(normalize_args(std::env::args())) {
        Ok(cli) => cli,
        Err(e) => return usage_printed(&e),
    };
    let result = match cli.command {
        Command::Eval(a) => eval_cmd::run(a),
        Command::Match(a) => match_cmd::run(a),
        Command::Bench(a) => bench_cmd::run(a),
        Command::Negotiate(a) => negotiate_cmd::run(a),
        Command::Format(a) => format_cmd::run(a),
        Command::Query(a) => query_cmd::run(a),
        Command::GenPool(a) => gen_pool_cmd::run(a),
        Command::Analyze(a) => analyze_cmd::run(a),
    };
    match result {
        Ok(code) => code,
        Err(Failure::OutputClosed) => ExitCode::SUCCESS,
        Err(Failure::StderrFailed) => ExitCode::from(2),
        Err(Failure::Message(msg)) => {
            // Nothing more can be done when standard error fails too.
            let _ = io::to_stderr(&format!("classad: {msg}"));
            ExitCode::from(2)
        }
    }
}

/// Prints what clap has to say about the arguments (help, version, a usage
/// error) as clap would, but with a failed write an error rather than ignored.
fn usage_printed(e: &clap::Error) -> ExitCode {
    match e.print() {
        Ok(()) => ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2)),
        Err(_) if e.use_stderr() => ExitCode::from(2),
        Err(write) => match io::output_error(write) {
            Failure::Message(msg) => {
                let _ = io::to_stderr(&format!("classad: {msg}"));
                ExitCode::from(2)
            }
            _ => ExitCode::SUCCESS,
        },
    }
}
