//! A deterministic generator of realistic HTCondor pools: slot ads, job ads and the
//! accountant's priorities, for benchmarks and tests (`classad gen-pool`).
//!
//! It follows the project's Python model (`gen_pool.py`) attribute for attribute;
//! byte-identical output is not a goal (the random streams differ), the same
//! attributes, value distributions and structure are.
//!
//! * Machines: physical hosts of a few hardware classes (CPU nodes, GPU nodes, old
//!   nodes, aarch64 nodes, desktops), each running one of a few Linux releases at
//!   one of eight sites. Most publish a partitionable slot and the Claimed/Busy
//!   dynamic slots carved out of it (`RemoteUser`, `AccountingGroup`, `JobId`...);
//!   some classes publish static slots. START varies by class (anything, not the
//!   blocked user, allowed groups, GPU jobs only, a desktop policy, a wall-time
//!   limit), with the startd's `WithinResourceLimits`; a tenth of the
//!   partitionable slots have a consumption policy (`ConsumptionCpus =
//!   quantize(target.RequestCpus, {1})`, ... one per resource of
//!   `MachineResources` but Swap).
//! * Jobs: clusters of procs with heavy-tailed sizes, each cluster of one
//!   signature (Requirements in condor_submit's form with the model's variants,
//!   Rank, requests, submitter...) drawn Zipf-weighted from a limited set (by
//!   default about `4 * jobs^0.4`, 8 to 400), so the queue has a few hundred
//!   autoclusters at most.
//! * Submitters: the model's users, in an accounting group (`AccountingGroup =
//!   "group_x.user"`) or none, or with [`PoolSpec::submitters`] a table of that many
//!   distinct ones; the priorities file gives each submitter the jobs use a real
//!   priority (0.5 to 50), a priority factor (1, 10, 100 or 1000) and a weighted
//!   usage.
//!
//! The same [`PoolSpec`] always gives the same files, whatever the number of
//! threads: the plan (hosts, signatures, clusters) is drawn in order, and the ads
//! are made in chunks on rayon's threads, each chunk from its own random stream
//! derived from the seed and the chunk's index, and written in order.
//!
//! ```
//! use classad::generate::{Pool, PoolSpec, Syntax};
//! let spec = PoolSpec { machines: 20, jobs: 30, seed: 1, submitters: None, signatures: None };
//! let pool = Pool::new(&spec);
//! let mut jobs = Vec::new();
//! let counts = pool.write_jobs(Syntax::New, &mut jobs)?;
//! assert_eq!(counts.ads, 30);
//! let ads = classad::ad::read_ads(std::str::from_utf8(&jobs).unwrap(), "jobs").unwrap();
//! assert_eq!(ads.len(), 30);
//! # Ok::<(), std::io::Error>(())
//! ```

mod chunks;
mod jobs;
mod machines;
mod rng;
pub mod shapes;
mod submitters;
mod tables;
mod write;

pub use jobs::default_signatures;

use std::io::{self, Write};

/// What pool to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolSpec {
    /// The number of slot ads.
    pub machines: usize,
    /// The number of job ads.
    pub jobs: usize,
    /// The seed: the same seed gives the same pool.
    pub seed: u64,
    /// The number of distinct submitters (user and accounting group) to draw the
    /// jobs' from; `None` for the model's own mix of users and groups. Each
    /// signature belongs to one submitter, so there are at least this many
    /// signatures unless [`PoolSpec::signatures`] says otherwise; every submitter
    /// with a signature has jobs when there are jobs enough (one each). 0 counts
    /// as 1.
    pub submitters: Option<usize>,
    /// The number of job signatures; `None` for [`default_signatures`] (or the
    /// number of submitters, if larger). 0 counts as 1.
    pub signatures: Option<usize>,
}

/// The most slot ads, and the most job ads, a generated pool has: ten times the
/// largest pools HTCondor runs. The pool is planned in memory (a few bytes per
/// ad) before it is written; a count past any memory would fail to allocate.
pub const MAX_ADS: usize = 10_000_000;

/// The most submitters, and the most job signatures, a generated pool has (each
/// is drawn and held in memory).
pub const MAX_SUBMITTERS: usize = 1_000_000;

/// A count of a [`PoolSpec`] past its bound: which (the field's name), the count
/// asked for and the bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooMany {
    /// The field: `machines`, `jobs`, `submitters` or `signatures`.
    pub what: &'static str,
    /// The count asked for.
    pub count: usize,
    /// The most allowed.
    pub max: usize,
}

impl std::fmt::Display for TooMany {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: at most {}", self.what, self.count, self.max)
    }
}

/// Checks `counts` (each a field's name, the count and its bound).
pub fn check_counts(counts: &[(&'static str, usize, usize)]) -> Result<(), TooMany> {
    match counts.iter().find(|(_, count, max)| count > max) {
        Some(&(what, count, max)) => Err(TooMany { what, count, max }),
        None => Ok(()),
    }
}

impl PoolSpec {
    /// Checks the counts against [`MAX_ADS`] and [`MAX_SUBMITTERS`]: the first
    /// past its bound.
    pub fn check(&self) -> Result<(), TooMany> {
        check_counts(&[
            ("machines", self.machines, MAX_ADS),
            ("jobs", self.jobs, MAX_ADS),
            ("submitters", self.submitters.unwrap_or(0), MAX_SUBMITTERS),
            ("signatures", self.signatures.unwrap_or(0), MAX_SUBMITTERS),
        ])
    }
}

/// The syntax of the ad files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Syntax {
    /// `Name = value` lines, a blank line after each ad (`condor_q -l`).
    #[default]
    Old,
    /// One `[ a = 1; b = 2 ]` ad per line.
    New,
    /// A JSON array of objects (`condor_q -json`), expressions as
    /// `"\/Expr(...)\/"` strings; no ads is an empty file.
    Json,
}

/// What a file of ads holds: the number of ads and the fewest and most attributes
/// of one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AdCounts {
    /// Ads written.
    pub ads: usize,
    /// The fewest attributes of an ad (0 when there are none).
    pub min_attrs: usize,
    /// The most attributes of an ad.
    pub max_attrs: usize,
}

impl AdCounts {
    /// Counts one more ad, of `attrs` attributes.
    pub fn add(&mut self, attrs: usize) {
        self.min_attrs = if self.ads == 0 {
            attrs
        } else {
            self.min_attrs.min(attrs)
        };
        self.max_attrs = self.max_attrs.max(attrs);
        self.ads += 1;
    }

    /// The counts of two files' ads together.
    pub fn merge(self, other: AdCounts) -> AdCounts {
        match (self.ads, other.ads) {
            (0, _) => other,
            (_, 0) => self,
            _ => AdCounts {
                ads: self.ads + other.ads,
                min_attrs: self.min_attrs.min(other.min_attrs),
                max_attrs: self.max_attrs.max(other.max_attrs),
            },
        }
    }
}

/// A generated pool, ready to be written: the hosts and their slots, the job
/// signatures and clusters (drawn when it is made; the ads are made as they are
/// written).
#[derive(Debug)]
pub struct Pool {
    seed: u64,
    machines: machines::Machines,
    jobs: jobs::Jobs,
}

impl Pool {
    /// Draws the pool of `spec`.
    pub fn new(spec: &PoolSpec) -> Pool {
        let machines = machines::Machines::plan(spec.machines, spec.seed);
        // The hosts some Requirements name: the first quarter (at least 50) of the
        // sorted host names.
        let mut hosts: Vec<&str> = machines.hosts.iter().map(|h| h.hostname.as_str()).collect();
        hosts.sort_unstable();
        hosts.truncate((hosts.len() / 4).max(50));
        let jobs = jobs::Jobs::plan(
            spec.jobs,
            spec.seed,
            &hosts,
            spec.submitters.map(|k| k.max(1)),
            spec.signatures.map(|n| n.max(1)),
        );
        Pool {
            seed: spec.seed,
            machines,
            jobs,
        }
    }

    /// The number of physical hosts the slot ads are on.
    pub fn hosts(&self) -> usize {
        self.machines.hosts.len()
    }

    /// The number of job signatures (some may have no job).
    pub fn signatures(&self) -> usize {
        self.jobs.signatures.len()
    }

    /// The number of partitionable slots with a consumption policy.
    pub fn consumption_slots(&self) -> usize {
        self.machines.consumption_slots()
    }

    /// The names of the submitters the jobs use, sorted, as HTCondor forms
    /// them: each job's `AccountingGroup` if it has one, else its owner, then
    /// `@` and the domain.
    pub fn submitters(&self) -> Vec<String> {
        self.used_submitters().iter().map(|s| s.name()).collect()
    }

    /// The submitters the jobs use, sorted by name.
    fn used_submitters(&self) -> Vec<&submitters::Submitter> {
        let used = self.jobs.used_signatures();
        let mut list: Vec<(String, &submitters::Submitter)> = self
            .jobs
            .signatures
            .iter()
            .zip(used)
            .filter(|(_, u)| *u)
            .map(|(s, _)| (s.submitter.name(), &s.submitter))
            .collect();
        list.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        list.dedup_by(|a, b| a.0 == b.0);
        list.into_iter().map(|(_, s)| s).collect()
    }

    /// Writes the slot ads to `out`, made on rayon's current thread pool while the
    /// calling thread writes.
    pub fn write_machines<W: Write + ?Sized>(
        &self,
        syntax: Syntax,
        out: &mut W,
    ) -> io::Result<AdCounts> {
        let m = &self.machines;
        let bytes = chunk_bytes(machines::CHUNK, machines::AD_BYTES, syntax);
        write_file(syntax, out, m.chunks(), bytes, |c, buf| {
            m.write_chunk(self.seed, c, syntax, buf)
        })
    }

    /// Writes the job ads to `out`, made on rayon's current thread pool while the
    /// calling thread writes.
    pub fn write_jobs<W: Write + ?Sized>(
        &self,
        syntax: Syntax,
        out: &mut W,
    ) -> io::Result<AdCounts> {
        let j = &self.jobs;
        let bytes = chunk_bytes(jobs::CHUNK, jobs::AD_BYTES, syntax);
        write_file(syntax, out, j.chunks(), bytes, |c, buf| {
            j.write_chunk(self.seed, c, syntax, buf)
        })
    }

    /// Writes the priorities file: a `#` header line, then one line `<submitter>
    /// <real priority> <priority factor> <weighted usage>` for each of
    /// [`Pool::submitters`], as [`crate::negotiate::Priorities::parse`] reads it.
    /// A submitter's entry depends only on the seed and its name; usage is at most
    /// twice its share of the slots (at least 4). Returns the number of
    /// submitters.
    pub fn write_priorities<W: Write + ?Sized>(&self, out: &mut W) -> io::Result<usize> {
        let list = self.used_submitters();
        let share = self.machines.len() as f64 / list.len().max(1) as f64;
        submitters::write_priorities(out, self.seed, &list, (2.0 * share).max(4.0))?;
        Ok(list.len())
    }

    /// The number of slot ads.
    pub fn machines(&self) -> usize {
        self.machines.len()
    }

    /// The number of job ads.
    pub fn jobs(&self) -> usize {
        self.jobs.len()
    }
}

/// Room for a chunk of `ads` ads of about `ad_bytes` bytes in old syntax, with a
/// margin.
fn chunk_bytes(ads: usize, ad_bytes: usize, syntax: Syntax) -> usize {
    let per_ad = match syntax {
        Syntax::Old | Syntax::New => ad_bytes,
        Syntax::Json => ad_bytes + ad_bytes / 10,
    };
    ads * per_ad * 5 / 4
}

/// Writes a file of ads made in `chunks` chunks (of about `chunk_bytes` bytes)
/// by `make`, with JSON's brackets around them if there are any (no ads is an
/// empty file, as `condor_q -json` prints an empty queue: `[ ]` would read as one
/// empty ad in new syntax).
fn write_file<W, F>(
    syntax: Syntax,
    out: &mut W,
    chunks: usize,
    chunk_bytes: usize,
    make: F,
) -> io::Result<AdCounts>
where
    W: Write + ?Sized,
    F: Fn(usize, &mut Vec<u8>) -> AdCounts + Sync,
{
    let brackets = syntax == Syntax::Json && chunks > 0;
    if brackets {
        out.write_all(write::JSON_HEAD)?;
    }
    let counts = chunks::write_in_chunks(chunks, chunk_bytes, out, make)?;
    if brackets {
        out.write_all(write::JSON_TAIL)?;
    }
    Ok(counts)
}

/// Writes the slot ads of `spec`'s pool (see [`Pool::write_machines`]).
pub fn write_machines<W: Write + ?Sized>(
    spec: &PoolSpec,
    syntax: Syntax,
    out: &mut W,
) -> io::Result<AdCounts> {
    Pool::new(spec).write_machines(syntax, out)
}

/// Writes the job ads of `spec`'s pool (see [`Pool::write_jobs`]).
pub fn write_jobs<W: Write + ?Sized>(
    spec: &PoolSpec,
    syntax: Syntax,
    out: &mut W,
) -> io::Result<AdCounts> {
    Pool::new(spec).write_jobs(syntax, out)
}

/// Writes the priorities file of `spec`'s pool (see [`Pool::write_priorities`]).
pub fn write_priorities<W: Write + ?Sized>(spec: &PoolSpec, out: &mut W) -> io::Result<usize> {
    Pool::new(spec).write_priorities(out)
}

#[cfg(test)]
mod tests;
