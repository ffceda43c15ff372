//! Pools of *shape families*: jobs and slots whose Requirements (and START) are
//! written in one way each, so that the matcher's speed and exactness can be
//! measured shape by shape (issue 12's table), and the same pools fed to the
//! differential tests and the fuzz targets.
//!
//! Each [`Family`] is one way of writing a matching policy:
//!
//! | family | what the Requirements do |
//! |---|---|
//! | [`Family::Benchmark`] | the benchmark pool itself ([`crate::generate::Pool`], the model of `gen_pool.py`): TARGET attributes against constants, inline constant lists, the logical operators |
//! | [`Family::TargetArithmetic`] | the job computes on the slot's numbers: `TARGET.Memory * 0.9 >= RequestMemory`, mixed integers and reals, division (by zero on drained slots), modulus |
//! | [`Family::TargetPairs`] | two attributes of the other ad compared with each other (register to register), numbers and strings, `==`, `<=`, `=?=`, `=!=` |
//! | [`Family::AttributeLists`] | `member`, `stringListMember`, `stringListIMember`, `identicalMember`, `anyCompare`, `stringListsIntersect`, `size` and `sum` on lists held in attributes, MY's and TARGET's |
//! | [`Family::StartArithmetic`] | the slot's START computes on the job's numbers (`TARGET.RequestMemory / TARGET.RequestCpus <= 4096`) |
//! | [`Family::Records`] | nested records: `TARGET.Resources.Gpu.Count >= 1`, `MY.Request.Memory`, chains, subscripts into lists of records and of references to records (HTCondor's `AvailableGPUs`), fields that read their siblings |
//! | [`Family::Strings`] | string builtins on attributes (`substr`, `strcat`, `toLower`, `size`, `regexp` with a constant pattern), `ifThenElse` and `?:` choosing between attributes, `isUndefined` and the other type tests, the elvis operator |
//! | [`Family::Glidein`] | a production pool's pilots, from the sample in `shared/real-ads`: START guarded by `=?= undefined` and `isUndefined`, `stringListMember` of MY's site in the job's `DESIRED_Sites`, `?:`, `substr` on the job's image, `ifThenElse` with arithmetic, `time()`, `evalInEachContext` over catalogs; jobs whose requests are expressions |
//! | [`Family::Mix`] | every ad holds every family's attributes and takes its policy from one family drawn at random (the benchmark's own constant shape among them) |
//!
//! Every family's ads carry realistic attributes (hardware classes, sites,
//! operating systems, requests drawn from a pool's usual distributions), and the
//! values vary so that pairs match, fail and evaluate to undefined or error in fair
//! proportions (the bench and the tests report the match rate of each family).
//!
//! The same [`ShapeSpec`] always gives the same text: each ad is made from its own
//! random stream, derived from the seed, the family and the ad's index.
//!
//! ```
//! use classad::generate::shapes::{Family, ShapeSpec};
//! let spec = ShapeSpec { family: Family::Records, jobs: 10, machines: 20, seed: 1 };
//! let pool = spec.generate();
//! assert_eq!(pool.job_ads().len(), 10);
//! assert_eq!(pool.machine_ads().len(), 20);
//! assert_eq!(pool, spec.generate(), "the same spec gives the same pool");
//! ```

mod base;
mod glidein;
mod lists;
mod mix;
mod plain;
mod records;
mod start_arithmetic;
mod strings;
mod target_arithmetic;
mod target_pairs;
mod text;

#[cfg(test)]
mod tests;

use super::rng::Rng;
use super::{Pool, PoolSpec, Syntax};
use crate::ad::{read_ads, ClassAd};
use base::{Job, Slot};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use text::AdText;

/// One way of writing matching policies; see the [module documentation](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// The benchmark pool's own shape (TARGET attributes against constants).
    Benchmark,
    /// Arithmetic on the slot's attributes in the job's Requirements.
    TargetArithmetic,
    /// Two attributes of the other ad compared with each other.
    TargetPairs,
    /// List builtins on lists held in attributes (MY's and TARGET's).
    AttributeLists,
    /// Arithmetic on the job's attributes in the slot's START.
    StartArithmetic,
    /// Nested records, field selection chains and subscripts into lists of records.
    Records,
    /// String builtins, `ifThenElse`/`?:` between attributes, type tests.
    Strings,
    /// A production pool's pilot START and its jobs (from `shared/real-ads`).
    Glidein,
    /// Every other family's policies mixed ad by ad.
    Mix,
}

impl Family {
    /// Every family, in the order of issue 12's table (the production pool's
    /// shape before the mix).
    pub const ALL: [Family; 9] = [
        Family::Benchmark,
        Family::TargetArithmetic,
        Family::TargetPairs,
        Family::AttributeLists,
        Family::StartArithmetic,
        Family::Records,
        Family::Strings,
        Family::Glidein,
        Family::Mix,
    ];

    /// The family's name, as benchmarks, tests and the command line spell it.
    pub fn name(self) -> &'static str {
        match self {
            Family::Benchmark => "benchmark",
            Family::TargetArithmetic => "target-arithmetic",
            Family::TargetPairs => "target-pairs",
            Family::AttributeLists => "attribute-lists",
            Family::StartArithmetic => "start-arithmetic",
            Family::Records => "records",
            Family::Strings => "strings",
            Family::Glidein => "glidein",
            Family::Mix => "mix",
        }
    }

    /// A one-line description of the shapes the family's policies use.
    pub fn description(self) -> &'static str {
        match self {
            Family::Benchmark => "the benchmark pool: TARGET attributes against constants",
            Family::TargetArithmetic => {
                "arithmetic on TARGET (TARGET.Memory * 0.9 >= RequestMemory)"
            }
            Family::TargetPairs => "two TARGET attributes compared (register to register)",
            Family::AttributeLists => "member(x, MY.SomeList), lists held in attributes",
            Family::StartArithmetic => "machine START doing arithmetic on job attributes",
            Family::Records => "nested records (TARGET.Resources.Gpu.Count >= 1)",
            Family::Strings => "string builtins, ifThenElse and ?: between attributes, isUndefined",
            Family::Glidein => "a production pool's pilot START (shared/real-ads)",
            Family::Mix => "a mix of all shapes",
        }
    }

    /// The stream number of the family's random draws.
    fn stream(self) -> u64 {
        0x5A4E_0000 + self as u64
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no family's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownFamily(pub String);

impl fmt::Display for UnknownFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
        write!(
            f,
            "no shape family is named {:?} (the families: {})",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownFamily {}

impl FromStr for Family {
    type Err = UnknownFamily;

    /// The family of [`Family::name`], ignoring case.
    fn from_str(s: &str) -> Result<Family, UnknownFamily> {
        Family::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownFamily(s.to_string()))
    }
}

/// What pool of a family to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShapeSpec {
    /// The shape family.
    pub family: Family,
    /// The number of job ads.
    pub jobs: usize,
    /// The number of slot ads.
    pub machines: usize,
    /// The seed: the same seed (and counts) gives the same pool.
    pub seed: u64,
}

/// A generated pool: the job and slot ads as files in old syntax (`Name = value`
/// lines, a blank line after each ad), as `condor_q -l` and `condor_status -l`
/// print them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapePool {
    /// The job ads.
    pub jobs: String,
    /// The slot ads.
    pub machines: String,
}

impl ShapePool {
    /// The job ads, read.
    pub fn job_ads(&self) -> Vec<Arc<ClassAd>> {
        read(&self.jobs, "jobs")
    }

    /// The slot ads, read.
    pub fn machine_ads(&self) -> Vec<Arc<ClassAd>> {
        read(&self.machines, "machines")
    }
}

fn read(text: &str, what: &str) -> Vec<Arc<ClassAd>> {
    read_ads(text, what)
        .unwrap_or_else(|e| panic!("generated {what} must read back: {e}"))
        .into_iter()
        .map(Arc::new)
        .collect()
}

/// The most job ads, and the most slot ads, of a shape pool: its files are made
/// whole in memory (some hundred bytes an ad) before they are written.
pub const MAX_SHAPE_ADS: usize = 1_000_000;

impl ShapeSpec {
    /// Checks the counts against [`MAX_SHAPE_ADS`].
    pub fn check(&self) -> Result<(), crate::generate::TooMany> {
        crate::generate::check_counts(&[
            ("machines", self.machines, MAX_SHAPE_ADS),
            ("jobs", self.jobs, MAX_SHAPE_ADS),
        ])
    }
}

/// The random streams of a family's jobs and of its slots.
const JOB_STREAM: u64 = 1;
const SLOT_STREAM: u64 = 2;

impl ShapeSpec {
    /// The pool of this spec.
    pub fn generate(&self) -> ShapePool {
        if self.family == Family::Benchmark {
            return benchmark_pool(self);
        }
        let rng =
            |side: u64, i: usize| Rng::derive(self.seed, self.family.stream() * 4 + side, i as u64);
        let mut jobs = String::new();
        for i in 0..self.jobs {
            let mut r = rng(JOB_STREAM, i);
            let mut job = Job::draw(&mut r, i);
            // condor_submit's default request expressions, where the family's
            // jobs have them.
            job.request_exprs = match self.family {
                Family::Glidein => r.chance(0.4),
                Family::Mix => r.chance(0.15),
                _ => false,
            };
            let mut w = AdText::new();
            job.write(&mut w);
            write_job(self.family, &mut r, &job, &mut w);
            jobs.push_str(&w.finish());
        }
        let mut machines = String::new();
        for i in 0..self.machines {
            let mut r = rng(SLOT_STREAM, i);
            let slot = Slot::draw(&mut r, i);
            let mut w = AdText::new();
            slot.write(&mut w);
            write_slot(self.family, &mut r, &slot, &mut w);
            machines.push_str(&w.finish());
        }
        ShapePool { jobs, machines }
    }
}

/// The benchmark pool of the spec's counts and seed, in old syntax.
fn benchmark_pool(spec: &ShapeSpec) -> ShapePool {
    let pool = Pool::new(&PoolSpec {
        machines: spec.machines,
        jobs: spec.jobs,
        seed: spec.seed,
        submitters: None,
        signatures: None,
    });
    let (mut jobs, mut machines) = (Vec::new(), Vec::new());
    pool.write_jobs(Syntax::Old, &mut jobs)
        .expect("writing to memory");
    pool.write_machines(Syntax::Old, &mut machines)
        .expect("writing to memory");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("the generator writes UTF-8");
    ShapePool {
        jobs: text(jobs),
        machines: text(machines),
    }
}

/// A family's own job attributes and policy (Requirements, Rank and what they
/// name), after the common attributes.
fn write_job(family: Family, r: &mut Rng, job: &Job, w: &mut AdText) {
    match family {
        Family::Benchmark => unreachable!("the benchmark pool is written whole"),
        Family::TargetArithmetic => target_arithmetic::job_policy(r, job, w),
        Family::TargetPairs => target_pairs::job_policy(r, job, w),
        Family::AttributeLists => {
            lists::job_attrs(r, job, w, true);
            lists::job_policy(r, job, w);
        }
        Family::StartArithmetic => start_arithmetic::job_policy(r, job, w),
        Family::Records => {
            records::job_attrs(r, job, w);
            records::job_policy(r, job, w);
        }
        Family::Strings => strings::job_policy(r, job, w),
        Family::Glidein => {
            glidein::job_attrs(r, job, w);
            glidein::job_policy(r, job, w);
        }
        Family::Mix => mix::job(r, job, w),
    }
}

/// A family's own slot attributes and policy, after the common attributes.
fn write_slot(family: Family, r: &mut Rng, slot: &Slot, w: &mut AdText) {
    match family {
        Family::Benchmark => unreachable!("the benchmark pool is written whole"),
        Family::TargetArithmetic => target_arithmetic::slot_policy(r, slot, w),
        Family::TargetPairs => target_pairs::slot_policy(r, slot, w),
        Family::AttributeLists => {
            lists::slot_attrs(r, slot, w);
            lists::slot_policy(r, slot, w);
        }
        Family::StartArithmetic => start_arithmetic::slot_policy(r, slot, w),
        Family::Records => {
            records::slot_attrs(r, slot, w);
            records::slot_policy(r, slot, w);
        }
        Family::Strings => strings::slot_policy(r, slot, w),
        Family::Glidein => {
            glidein::slot_attrs(r, slot, w);
            glidein::slot_policy(r, slot, w);
        }
        Family::Mix => mix::slot(r, slot, w),
    }
}
