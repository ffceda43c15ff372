//! A negotiation cycle over a pool cut into shards, for engines that spread work
//! over machines (Dask, Ray): the driver prepares the cycle (`PreparedCycle`:
//! the slots as the negotiator sees them, the queue's match classes), each shard
//! works out every class's candidates among its slots (`shard_candidates`), and
//! the driver merges the shards' lists in the negotiator's order and runs the
//! cycle on them, with the result one process gives.
//!
//! What travels is text and bytes only: the shard's slots and the classes'
//! representative jobs as ClassAd text (old syntax, a blank line after each ad, reals to
//! the last bit), and each shard's candidate lists in the library's shard
//! format (`classad::negotiate::shard`, documented for Python users in
//! `classad_rs/shard.py`).

use crate::batch::{ads_of, knobs_of, pairs_out};
use classad::ad::unparse_ad_old_exact;
use classad::ad::{read_ads, read_ads_from, ClassAd, ReadLimits};
use classad::generate::{Pool as GenPool, PoolSpec, Syntax};
use classad::limits::MAX_THREADS;
use classad::negotiate::shard::{class_lists, encode, merge, ShardLists};
use classad::negotiate::{CycleOutcome, Pool, Priorities, Queue};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use std::sync::Arc;

/// Runs `f` on `threads` threads of their own (`None`: rayon's global pool),
/// at most [`MAX_THREADS`]: a larger number is refused before any starts.
fn on_threads<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    match threads {
        None => Ok(f()),
        Some(0) => Err(PyValueError::new_err("threads must be at least 1")),
        Some(n) if n > MAX_THREADS => Err(PyValueError::new_err(format!(
            "threads={n}: at most {MAX_THREADS} (classad_rs.MAX_THREADS)"
        ))),
        Some(n) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| PyOSError::new_err(format!("cannot start {n} threads: {e}")))?;
            Ok(pool.install(f))
        }
    }
}

/// Ads given as text (any syntax the library reads) or as a sequence of
/// `ClassAd`s.
fn ads_or_text(py: Python<'_>, arg: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Arc<ClassAd>>> {
    if let Ok(s) = arg.cast::<PyString>() {
        let text = s.to_cow()?.into_owned();
        if text.trim().is_empty() {
            return Ok(Vec::new());
        }
        let ads = py
            .detach(|| read_ads(&text, what))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        return Ok(ads.into_iter().map(Arc::new).collect());
    }
    ads_of(arg, what)
}

/// `shard_candidates(slots, jobs, config=None, offset=0, threads=None)`: every
/// match class's candidates among a shard's slots, as the bytes of the shard
/// format. `slots` are the shard's slots as the cycle sees them (text or
/// `ClassAd`s; from `PreparedCycle.slots_text`), numbered from `offset` in the
/// whole pool; `jobs` one representative job per class, in class order (from
/// `PreparedCycle.representatives_text`); `config` the negotiator's
/// configuration text (its rank expressions); `threads` how many threads to
/// match on (default: every core).
#[pyfunction]
#[pyo3(signature = (slots, jobs, config=None, offset=0, threads=None))]
pub fn shard_candidates<'py>(
    py: Python<'py>,
    slots: &Bound<'py, PyAny>,
    jobs: &Bound<'py, PyAny>,
    config: Option<&str>,
    offset: u32,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyBytes>> {
    let slots = ads_or_text(py, slots, "slots")?;
    let reps = ads_or_text(py, jobs, "jobs")?;
    let knobs = knobs_of(config)?;
    if (offset as u64) + (slots.len() as u64) > u64::from(u32::MAX) {
        return Err(PyValueError::new_err("slot numbers pass 2^32"));
    }
    let bytes = py.detach(|| {
        on_threads(threads, || {
            encode(&ShardLists {
                first: offset,
                slots: slots.len() as u32,
                lists: class_lists(reps, &slots, &knobs, offset),
            })
        })
    })?;
    Ok(PyBytes::new(py, &bytes))
}

/// `merge_candidates(results)`: the shards' candidate lists (bytes of the shard
/// format, their slot ranges next to each other, in any order) merged per class
/// in the negotiator's order: best key first (PRE, the job's Rank, POST; a NaN
/// below every number), then slot order. The result covers the shards' slots.
#[pyfunction]
pub fn merge_candidates<'py>(
    py: Python<'py>,
    results: Vec<Vec<u8>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let merged = py
        .detach(|| merge(&results, None))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(PyBytes::new(py, &encode(&merged)))
}

/// The accountant's state from its text.
fn priorities_of(text: Option<&str>) -> PyResult<Priorities> {
    match text {
        None => Ok(Priorities::default()),
        Some(t) => {
            Priorities::parse(t, "<priorities>").map_err(|e| PyValueError::new_err(e.to_string()))
        }
    }
}

/// A negotiation cycle prepared on the driver, before any matching:
/// `PreparedCycle(jobs, slots, config=None, priorities=None)` (sequences of
/// `ClassAd`s) or `PreparedCycle.from_files(jobs_path, slots_path, ...)` (the
/// queue read in parts, never held whole). It holds the slots as the cycle sees
/// them (`NEGOTIATOR_SLOT_CONSTRAINT` applied, `SlotWeight` and
/// `RemoteUserPrio` filled in), the queue's match classes (by the significant
/// attributes of the whole pool) and each job's facts; it hands out the text
/// the shards need and runs the cycle on the shards' merged candidates.
#[pyclass(module = "classad_rs", name = "PreparedCycle", frozen)]
pub struct PyPreparedCycle {
    pool: Pool,
    queue: Queue,
}

/// A cycle's (job index, slot index) matches in the order made.
fn job_slot_pairs(o: &CycleOutcome) -> Vec<(usize, usize)> {
    o.matches
        .iter()
        .map(|m| (m.job as usize, m.slot as usize))
        .collect()
}

#[pymethods]
impl PyPreparedCycle {
    #[new]
    #[pyo3(signature = (jobs, slots, config=None, priorities=None))]
    fn py_new(
        py: Python<'_>,
        jobs: &Bound<'_, PyAny>,
        slots: &Bound<'_, PyAny>,
        config: Option<&str>,
        priorities: Option<&str>,
    ) -> PyResult<PyPreparedCycle> {
        let jobs = ads_of(jobs, "jobs")?;
        let slots = ads_of(slots, "slots")?;
        let knobs = knobs_of(config)?;
        let priorities = priorities_of(priorities)?;
        Ok(py.detach(|| {
            let pool = Pool::new(&slots, knobs, priorities);
            let queue = pool.queue(&jobs);
            PyPreparedCycle { pool, queue }
        }))
    }

    /// `PreparedCycle.from_files(jobs, slots, config=None, priorities=None)`:
    /// the queue and the pool read from ad files (old syntax, new syntax or
    /// JSON), the queue in parts on every core, keeping a job per class and
    /// each job's facts.
    #[staticmethod]
    #[pyo3(signature = (jobs, slots, config=None, priorities=None))]
    fn from_files(
        py: Python<'_>,
        jobs: std::path::PathBuf,
        slots: std::path::PathBuf,
        config: Option<&str>,
        priorities: Option<&str>,
    ) -> PyResult<PyPreparedCycle> {
        let knobs = knobs_of(config)?;
        let priorities = priorities_of(priorities)?;
        let open = |p: &std::path::Path| {
            std::fs::File::open(p)
                .map(|f| std::io::BufReader::with_capacity(1 << 20, f))
                .map_err(|e| PyOSError::new_err(format!("{}: {e}", p.display())))
        };
        let (slot_file, job_file) = (open(&slots)?, open(&jobs)?);
        py.detach(|| {
            let name = slots.display().to_string();
            let ads = read_ads_from(slot_file, &name, ReadLimits::default())
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            let ads: Vec<Arc<ClassAd>> = ads.into_iter().map(Arc::new).collect();
            let pool = Pool::new(&ads, knobs, priorities);
            drop(ads);
            let name = jobs.display().to_string();
            let queue = pool
                .read_queue(job_file, &name)
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            Ok(PyPreparedCycle { pool, queue })
        })
    }

    /// How many slots exist for the cycle (the slots `slots_text` numbers).
    #[getter]
    fn slot_count(&self) -> usize {
        self.pool.slots().len()
    }

    /// How many match classes the queue has (the lists of a shard's result).
    #[getter]
    fn class_count(&self) -> usize {
        self.queue.clusters().class_count()
    }

    /// How many jobs the queue has.
    #[getter]
    fn job_count(&self) -> usize {
        self.queue.len()
    }

    /// Per slot of the cycle, its index among the slots given (the slot
    /// numbers of the matches).
    #[getter]
    fn file_index(&self) -> Vec<u32> {
        self.pool.slots().file_index.clone()
    }

    /// The classes' representative jobs, one per class in class order, as
    /// ClassAd text (old syntax, a blank line after each ad, every real to the
    /// last bit).
    fn representatives_text(&self, py: Python<'_>) -> String {
        py.detach(|| ads_text(self.queue.clusters().representatives()))
    }

    /// The cycle's slots `start` to `end` (not included) as ClassAd text, as
    /// [`representatives_text`] prints ads.
    #[pyo3(signature = (start=0, end=None))]
    fn slots_text(&self, py: Python<'_>, start: usize, end: Option<usize>) -> PyResult<String> {
        let slots = self.pool.slots();
        let end = end.unwrap_or(slots.len());
        if start > end || end > slots.len() {
            return Err(PyValueError::new_err(format!(
                "slots {start}..{end} of {}",
                slots.len()
            )));
        }
        Ok(py.detach(|| ads_text(&slots.ads[start..end])))
    }

    /// Every class's candidates over the whole pool, in this process, as the
    /// bytes of the shard format: what the shards' merged results equal.
    #[pyo3(signature = (threads=None))]
    fn candidates<'py>(
        &self,
        py: Python<'py>,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py.detach(|| {
            on_threads(threads, || {
                let reps = self.queue.clusters().representatives().to_vec();
                let slots = self.pool.slots();
                encode(&ShardLists {
                    first: 0,
                    slots: slots.len() as u32,
                    lists: class_lists(reps, &slots.ads, self.pool.knobs(), 0),
                })
            })
        })?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// `negotiate(results=None, numpy=False)`: the cycle on the shards'
    /// candidate lists (`results`: the bytes of each shard, their slots
    /// covering the pool, in any order), merged in the negotiator's order; with
    /// no results, on the whole pool matched here. The (job index, slot index)
    /// matches in the order made, the slot indices those of the slots given.
    #[pyo3(signature = (results=None, numpy=false))]
    fn negotiate(
        &self,
        py: Python<'_>,
        results: Option<Vec<Vec<u8>>>,
        numpy: bool,
    ) -> PyResult<Py<PyAny>> {
        let pairs = py.detach(|| -> PyResult<Vec<(usize, usize)>> {
            let outcome = match &results {
                None => self.pool.negotiate(&self.queue),
                Some(results) => {
                    let classes = self.queue.clusters().class_count();
                    let slots = self.pool.slots().len() as u32;
                    let merged = merge(results, Some((classes, slots)))
                        .map_err(|e| PyValueError::new_err(e.to_string()))?;
                    self.pool
                        .negotiate_on_candidates(&self.queue, merged.lists)
                        .map_err(|e| PyValueError::new_err(e.to_string()))?
                }
            };
            Ok(job_slot_pairs(&outcome))
        })?;
        pairs_out(py, pairs, numpy)
    }
}

/// Ads as text that reads back bit for bit: old syntax (`Name = expr` lines,
/// a blank line after each ad), every real in 17 significant digits. Old
/// syntax because the library reads it three to four times as fast as new
/// syntax (a shard's slots are most of what travels and is read).
fn ads_text(ads: &[Arc<ClassAd>]) -> String {
    let mut out = String::new();
    for ad in ads {
        out.push_str(&unparse_ad_old_exact(ad));
        out.push('\n');
    }
    out
}

/// `generate_pool(machines, jobs, seed=1, submitters=None, signatures=None)`:
/// a realistic pool from the library's generator (`classad gen-pool`): the
/// slot ads and the job ads as old-syntax text, and the accountant's
/// priorities of the submitters the jobs use.
#[pyfunction]
#[pyo3(signature = (machines, jobs, seed=1, submitters=None, signatures=None))]
pub fn generate_pool(
    py: Python<'_>,
    machines: usize,
    jobs: usize,
    seed: u64,
    submitters: Option<usize>,
    signatures: Option<usize>,
) -> PyResult<(String, String, String)> {
    let spec = PoolSpec {
        machines,
        jobs,
        seed,
        submitters,
        signatures,
    };
    // As `classad gen-pool`: the pool is planned in memory, so its counts are bounded.
    spec.check()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    py.detach(|| {
        let pool = GenPool::new(&spec);
        let (mut m, mut j, mut p) = (Vec::new(), Vec::new(), Vec::new());
        pool.write_machines(Syntax::Old, &mut m)
            .and_then(|_| pool.write_jobs(Syntax::Old, &mut j))
            .and_then(|_| pool.write_priorities(&mut p))
            .map_err(|e| PyOSError::new_err(e.to_string()))?;
        let text =
            |b: Vec<u8>| String::from_utf8(b).map_err(|e| PyValueError::new_err(e.to_string()));
        Ok((text(m)?, text(j)?, text(p)?))
    })
}
