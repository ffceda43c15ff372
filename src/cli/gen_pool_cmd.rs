//! `classad gen-pool`: write a generated pool (slot ads, job ads and, if asked,
//! the submitters' priorities) with [`crate::generate`], or with `--shape` a pool
//! of one of [`crate::generate::shapes`]'s families.

use super::Failure;
use crate::generate::shapes::{Family, ShapeSpec};
use crate::generate::{AdCounts, Pool, PoolSpec, Syntax, TooMany};
use clap::Args;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::process::ExitCode;
use std::time::Instant;

/// The `--syntax` choice.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default)]
pub enum SyntaxArg {
    /// `Name = value` lines, a blank line after each ad (`condor_q -l`).
    #[default]
    Old,
    /// One `[ a = 1; b = 2 ]` ad per line.
    New,
    /// A JSON array of objects (`condor_q -json`).
    Json,
}

impl From<SyntaxArg> for Syntax {
    fn from(s: SyntaxArg) -> Syntax {
        match s {
            SyntaxArg::Old => Syntax::Old,
            SyntaxArg::New => Syntax::New,
            SyntaxArg::Json => Syntax::Json,
        }
    }
}

/// Arguments of `classad gen-pool`.
#[derive(Args, Debug)]
pub struct GenPoolArgs {
    /// The number of slot ads (at most 10,000,000; 1,000,000 with `--shape`).
    #[arg(long, default_value_t = 2000)]
    machines: usize,
    /// The number of job ads (at most 10,000,000; 1,000,000 with `--shape`).
    #[arg(long, default_value_t = 2000)]
    jobs: usize,
    /// The seed: the same seed (and the same counts) gives the same files.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The number of distinct submitters (user and accounting group) the jobs are
    /// drawn from (default: the model's own mix of users and groups; at most
    /// 1,000,000).
    #[arg(long)]
    submitters: Option<usize>,
    /// The number of job signatures (default: about 4 * jobs^0.4, 8 to 400, or the
    /// number of submitters if larger; at most 1,000,000).
    #[arg(long)]
    signatures: Option<usize>,
    /// Where to write the job ads (`-` for standard output).
    #[arg(long)]
    out_jobs: String,
    /// Where to write the slot ads (`-` for standard output).
    #[arg(long)]
    out_machines: String,
    /// Where to write the priorities of the submitters the jobs use, one
    /// `<submitter> <real priority> <priority factor> <weighted usage>` line each.
    #[arg(long)]
    out_priorities: Option<String>,
    /// The syntax of the ad files.
    #[arg(long, value_enum, default_value_t)]
    syntax: SyntaxArg,
    /// Threads to make the ads on (default: every core; at most 1024); the files
    /// do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// A pool of one shape family instead (benchmark, target-arithmetic,
    /// target-pairs, attribute-lists, start-arithmetic, records, strings, glidein,
    /// mix): jobs and slots whose Requirements are written that way (old syntax
    /// only).
    #[arg(long)]
    shape: Option<String>,
}

/// Runs `classad gen-pool`.
pub fn run(a: GenPoolArgs) -> Result<ExitCode, Failure> {
    for (flag, v) in [
        ("--submitters", a.submitters),
        ("--signatures", a.signatures),
        ("--threads", a.threads),
    ] {
        if v == Some(0) {
            return Err(Failure::Message(format!("{flag} must be at least 1")));
        }
    }
    if let Some(name) = &a.shape {
        return shape_pool(&a, name);
    }
    let workers = super::threads::thread_pool(a.threads)?;
    let start = Instant::now();
    let spec = PoolSpec {
        machines: a.machines,
        jobs: a.jobs,
        seed: a.seed,
        submitters: a.submitters,
        signatures: a.signatures,
    };
    spec.check().map_err(too_many)?;
    let syntax = Syntax::from(a.syntax);
    // Every file is created before anything is generated, so a bad path fails at
    // once.
    let mut machines_out = Output::create(&a.out_machines)?;
    let mut jobs_out = Output::create(&a.out_jobs)?;
    let mut priorities_out = a
        .out_priorities
        .as_deref()
        .map(Output::create)
        .transpose()?;
    let pool = Pool::new(&spec);
    // One of the threads writes while the others make the ads.
    let machines = workers
        .install(|| pool.write_machines(syntax, &mut machines_out))
        .and_then(|c| machines_out.finish().map(|_| c))
        .map_err(|e| machines_out.error(e))?;
    let jobs = workers
        .install(|| pool.write_jobs(syntax, &mut jobs_out))
        .and_then(|c| jobs_out.finish().map(|_| c))
        .map_err(|e| jobs_out.error(e))?;
    let submitters = match &mut priorities_out {
        Some(out) => {
            let n = pool
                .write_priorities(out)
                .and_then(|n| out.finish().map(|_| n))
                .map_err(|e| out.error(e))?;
            format!(" submitters={n}")
        }
        None => String::new(),
    };
    let range = |c: &AdCounts| format!("{}..{}", c.min_attrs, c.max_attrs);
    super::io::to_stderr(&format!(
        "machines={} hosts={} attrs/machine={} consumption-pslots={} jobs={} signatures={} \
         attrs/job={}{submitters} seconds={:.2}",
        machines.ads,
        pool.hosts(),
        range(&machines),
        pool.consumption_slots(),
        jobs.ads,
        pool.signatures(),
        range(&jobs),
        start.elapsed().as_secs_f64(),
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// A count past its bound, as the option that gave it.
pub(super) fn too_many(e: TooMany) -> Failure {
    Failure::Message(format!(
        "--{e} (the pool is planned in memory; see `classad gen-pool --help`)"
    ))
}

/// `--shape`: the pool of one shape family, written in old syntax.
fn shape_pool(a: &GenPoolArgs, name: &str) -> Result<ExitCode, Failure> {
    let family: Family = name.parse().map_err(|e| format!("--shape: {e}"))?;
    for (flag, given) in [
        ("--submitters", a.submitters.is_some()),
        ("--signatures", a.signatures.is_some()),
        ("--out-priorities", a.out_priorities.is_some()),
        ("--syntax", !matches!(a.syntax, SyntaxArg::Old)),
    ] {
        if given {
            return Err(Failure::Message(format!(
                "{flag} does not apply to --shape pools (old syntax, no priorities)"
            )));
        }
    }
    let start = Instant::now();
    let spec = ShapeSpec {
        family,
        jobs: a.jobs,
        machines: a.machines,
        seed: a.seed,
    };
    spec.check().map_err(too_many)?;
    let mut machines_out = Output::create(&a.out_machines)?;
    let mut jobs_out = Output::create(&a.out_jobs)?;
    let pool = spec.generate();
    for (out, text) in [
        (&mut machines_out, &pool.machines),
        (&mut jobs_out, &pool.jobs),
    ] {
        out.write_all(text.as_bytes())
            .and_then(|_| out.finish())
            .map_err(|e| out.error(e))?;
    }
    super::io::to_stderr(&format!(
        "shape={family} machines={} jobs={} seconds={:.2}",
        a.machines,
        a.jobs,
        start.elapsed().as_secs_f64()
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// An output file (or standard output, for `-`), with its name for errors.
struct Output {
    name: String,
    sink: Box<dyn Write + Send>,
}

impl Output {
    /// Creates (or truncates) the file.
    fn create(path: &str) -> Result<Output, Failure> {
        let sink: Box<dyn Write + Send> = if path == "-" {
            Box::new(BufWriter::with_capacity(1 << 16, std::io::stdout()))
        } else {
            let file = File::create(path).map_err(|e| format!("cannot create {path}: {e}"))?;
            Box::new(BufWriter::with_capacity(1 << 16, file))
        };
        Ok(Output {
            name: path.to_string(),
            sink,
        })
    }

    /// Flushes what is buffered.
    fn finish(&mut self) -> std::io::Result<()> {
        self.sink.flush()
    }

    /// A failed write, as the command reports it.
    fn error(&self, e: std::io::Error) -> Failure {
        if self.name == "-" {
            super::io::output_error(e)
        } else {
            Failure::Message(format!("cannot write {}: {e}", self.name))
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.sink.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.sink.write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.sink.flush()
    }
}
