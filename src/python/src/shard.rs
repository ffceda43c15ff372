//! A negotiation cycle over a pool cut into shards, for engines that spread work
//! over machines (Dask, Ray): the driver prepares the cycle (`PreparedCycle`:
//! the slots as the negotiator sees them, the queue's match classes), each shard
//! works out every class's candidates among its slots (`shard_candidates`), and
//! the driver merges the shards' lists in the negotiator's order and runs the
//! cycle on them, with the result one process gives.
//!
//! What travels is text and bytes only: the shard's slots and the classes'
//! representative jobs as ClassAd text (old syntax, a blank line after each ad, reals to
//! the last bit), and each shard's candidate lists in the byte layout of
//! [`encode`] (documented for Python users in `classad_rs/shard.py`).

use crate::batch::{ads_of, knobs_of, pairs_out};
use classad::ad::{read_ads, read_ads_from, ClassAd, ReadLimits};
use classad::generate::{Pool as GenPool, PoolSpec, Syntax};
use classad::limits::MAX_THREADS;
use classad::matching::batch::{merge_best_first, BatchMatcher, Candidate, CompiledSlots, RankKey};
use classad::matching::{Autoclusters, SignificantAttributes};
use classad::negotiate::{
    class_names, cluster_with_facts, negotiate_with_pairs, prepare_slots, read_queue, ClassPairs,
    CycleKnobs, Priorities, QueueFacts, SlotTable,
};
use classad::syntax::unparse_ad_old_exact;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use std::sync::Arc;

/// The first bytes of a shard's candidate lists (format version 1).
pub const MAGIC: &[u8; 8] = b"CASHARD1";

/// The bytes of one candidate: its slot (u32), PRE, the job's Rank, POST (f64).
const RECORD: usize = 4 + 3 * 8;

/// The bytes before the counts: [`MAGIC`], the class count, the first slot,
/// the slot count, a reserved word.
const HEADER: usize = 8 + 4 * 4;

/// One shard's candidate lists: the slots it covers and, per class, its
/// candidates among them.
pub struct ShardLists {
    /// The first slot the shard covers (its number in the whole pool).
    pub first: u32,
    /// How many slots it covers.
    pub slots: u32,
    /// Per class, its candidates, best first.
    pub lists: Vec<Vec<Candidate>>,
}

/// A shard's lists as bytes: [`MAGIC`], the class count, the first slot and
/// the number of slots the shard covers, a reserved word (0) (each a u32), each
/// class's candidate count (u32), then each class's candidates in order, each
/// its slot (u32) and its key's PRE, Rank and POST (f64, bit for bit), every
/// number little-endian.
pub fn encode(shard: &ShardLists) -> Vec<u8> {
    let lists = &shard.lists;
    let total: usize = lists.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(HEADER + 4 * lists.len() + RECORD * total);
    out.extend_from_slice(MAGIC);
    for word in [lists.len() as u32, shard.first, shard.slots, 0] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    for l in lists {
        out.extend_from_slice(&(l.len() as u32).to_le_bytes());
    }
    for c in lists.iter().flatten() {
        out.extend_from_slice(&c.slot.to_le_bytes());
        for x in [c.key.pre, c.key.rank, c.key.post] {
            out.extend_from_slice(&x.to_bits().to_le_bytes());
        }
    }
    out
}

/// The lists of bytes [`encode`] wrote; an error says what is wrong with them
/// (a slot outside the shard's range among them).
pub fn decode(bytes: &[u8]) -> Result<ShardLists, String> {
    let u32_at = |at: usize| -> u32 {
        u32::from_le_bytes(bytes[at..at + 4].try_into().expect("four bytes"))
    };
    let f64_at = |at: usize| -> f64 {
        f64::from_bits(u64::from_le_bytes(
            bytes[at..at + 8].try_into().expect("eight bytes"),
        ))
    };
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return Err("not candidate lists (they start with CASHARD1)".into());
    }
    let (classes, first, slots) = (u32_at(8) as usize, u32_at(12), u32_at(16));
    let counts_end = HEADER.saturating_add(classes.saturating_mul(4));
    if bytes.len() < counts_end {
        return Err(format!(
            "{classes} classes announced, their counts cut short"
        ));
    }
    let counts: Vec<usize> = (0..classes)
        .map(|c| u32_at(HEADER + 4 * c) as usize)
        .collect();
    let total: usize = counts.iter().sum();
    if bytes.len() != counts_end + RECORD * total {
        return Err(format!(
            "{total} candidates announced in {} bytes, not {}",
            bytes.len(),
            counts_end + RECORD * total
        ));
    }
    let range = u64::from(first)..u64::from(first) + u64::from(slots);
    let mut at = counts_end;
    let mut lists = Vec::with_capacity(classes);
    for n in counts {
        let mut list = Vec::with_capacity(n);
        for _ in 0..n {
            let slot = u32_at(at);
            if !range.contains(&u64::from(slot)) {
                return Err(format!(
                    "slot {slot} is outside the shard's slots {}..{}",
                    range.start, range.end
                ));
            }
            list.push(Candidate {
                slot,
                key: RankKey {
                    pre: f64_at(at + 4),
                    rank: f64_at(at + 12),
                    post: f64_at(at + 20),
                },
            });
            at += RECORD;
        }
        lists.push(list);
    }
    Ok(ShardLists {
        first,
        slots,
        lists,
    })
}

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

/// Every class's candidates among `slots`, each class one of `reps`, the slots
/// numbered from `offset`.
fn class_lists(
    reps: Vec<Arc<ClassAd>>,
    slots: &[Arc<ClassAd>],
    knobs: &CycleKnobs,
    offset: u32,
) -> Vec<Vec<Candidate>> {
    let all: Vec<u32> = (0..reps.len() as u32).collect();
    let compiled = CompiledSlots::new(slots, &knobs.policy);
    let mut m = BatchMatcher::for_classes(reps, compiled);
    m.evaluate_classes(&all)
        .into_iter()
        .map(|(_, mut cands)| {
            if offset != 0 {
                cands.iter_mut().for_each(|c| c.slot += offset);
            }
            cands
        })
        .collect()
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
    let merged = py.detach(|| merged_lists(&results, None))?;
    Ok(PyBytes::new(py, &encode(&merged)))
}

/// The lists of `results` merged per class. Their slot ranges must tile one
/// range (from 0 to `pool.1` slots when `pool` is given, which also says how
/// many classes each must hold).
fn merged_lists(results: &[Vec<u8>], pool: Option<(usize, u32)>) -> PyResult<ShardLists> {
    use rayon::prelude::*;
    let bad = PyValueError::new_err;
    let mut parts: Vec<ShardLists> = results
        .par_iter()
        .map(|r| decode(r))
        .collect::<Result<_, _>>()
        .map_err(bad)?;
    // By where each starts, then by length: a shard of no slots (more shards
    // than slots) starts where a slot's shard does and comes before it, so
    // every order of the same results tiles the same range.
    parts.sort_by_key(|p| (p.first, p.slots));
    let first = parts.first().map_or(0, |p| p.first);
    let mut end = u64::from(first);
    for p in &parts {
        if u64::from(p.first) != end {
            return Err(bad(format!(
                "the shards' slots do not follow each other: one starts at slot {}, \
                 after slot {end}",
                p.first
            )));
        }
        end += u64::from(p.slots);
    }
    let classes = pool
        .map(|(c, _)| c)
        .or_else(|| parts.first().map(|p| p.lists.len()))
        .unwrap_or(0);
    if let Some((_, slots)) = pool {
        if first != 0 || end != u64::from(slots) {
            return Err(bad(format!(
                "the shards cover slots {first}..{end}, not the pool's 0..{slots}"
            )));
        }
    }
    if let Some(p) = parts.iter().find(|p| p.lists.len() != classes) {
        return Err(bad(format!(
            "the shard of slots from {} has {} classes, not {classes}",
            p.first,
            p.lists.len()
        )));
    }
    let lists = (0..classes)
        .into_par_iter()
        .map(|c| {
            let lists: Vec<&[Candidate]> = parts.iter().map(|p| &p.lists[c][..]).collect();
            merge_best_first(&lists)
        })
        .collect();
    Ok(ShardLists {
        first,
        slots: (end - u64::from(first)) as u32,
        lists,
    })
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
    table: SlotTable,
    facts: QueueFacts,
    clusters: Autoclusters,
    knobs: CycleKnobs,
    priorities: Priorities,
}

impl PyPreparedCycle {
    /// The cycle's slots and the significant attributes of the whole pool.
    fn slots_and_sig(
        slots: &[Arc<ClassAd>],
        knobs: &CycleKnobs,
        priorities: &Priorities,
    ) -> (SlotTable, SignificantAttributes) {
        let table = prepare_slots(slots, knobs, priorities);
        let mut sig = SignificantAttributes::compute(&table.ads, &knobs.policy);
        sig.add_class_names(&class_names(&table, knobs));
        (table, sig)
    }

    /// The cycle on `pairs`: (job, slot in the file) in the order made.
    fn run(&self, pairs: ClassPairs) -> Vec<(usize, usize)> {
        let o = negotiate_with_pairs(
            &self.table,
            &self.facts,
            &self.clusters,
            pairs,
            &self.knobs,
            &self.priorities,
        );
        o.matches
            .iter()
            .map(|m| (m.job as usize, m.slot as usize))
            .collect()
    }
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
            let (table, sig) = Self::slots_and_sig(&slots, &knobs, &priorities);
            let (clusters, facts) = cluster_with_facts(&jobs, sig, &knobs);
            PyPreparedCycle {
                table,
                facts,
                clusters,
                knobs,
                priorities,
            }
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
            let (table, sig) = Self::slots_and_sig(&ads, &knobs, &priorities);
            drop(ads);
            let name = jobs.display().to_string();
            let (clusters, facts) = read_queue(job_file, &name, sig, &knobs)
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            Ok(PyPreparedCycle {
                table,
                facts,
                clusters,
                knobs,
                priorities,
            })
        })
    }

    /// How many slots exist for the cycle (the slots `slots_text` numbers).
    #[getter]
    fn slot_count(&self) -> usize {
        self.table.len()
    }

    /// How many match classes the queue has (the lists of a shard's result).
    #[getter]
    fn class_count(&self) -> usize {
        self.clusters.class_count()
    }

    /// How many jobs the queue has.
    #[getter]
    fn job_count(&self) -> usize {
        self.facts.jobs.len()
    }

    /// Per slot of the cycle, its index among the slots given (the slot
    /// numbers of the matches).
    #[getter]
    fn file_index(&self) -> Vec<u32> {
        self.table.file_index.clone()
    }

    /// The classes' representative jobs, one per class in class order, as
    /// ClassAd text (old syntax, a blank line after each ad, every real to the
    /// last bit).
    fn representatives_text(&self, py: Python<'_>) -> String {
        py.detach(|| ads_text(self.clusters.representatives()))
    }

    /// The cycle's slots `start` to `end` (not included) as ClassAd text, as
    /// [`representatives_text`] prints ads.
    #[pyo3(signature = (start=0, end=None))]
    fn slots_text(&self, py: Python<'_>, start: usize, end: Option<usize>) -> PyResult<String> {
        let end = end.unwrap_or(self.table.len());
        if start > end || end > self.table.len() {
            return Err(PyValueError::new_err(format!(
                "slots {start}..{end} of {}",
                self.table.len()
            )));
        }
        Ok(py.detach(|| ads_text(&self.table.ads[start..end])))
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
                let reps = self.clusters.representatives().to_vec();
                encode(&ShardLists {
                    first: 0,
                    slots: self.table.len() as u32,
                    lists: class_lists(reps, &self.table.ads, &self.knobs, 0),
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
            let pairs = match &results {
                None => {
                    let reps = self.clusters.representatives().to_vec();
                    let compiled = CompiledSlots::new(&self.table.ads, &self.knobs.policy);
                    ClassPairs::from_matcher(BatchMatcher::for_classes(reps, compiled))
                }
                Some(results) => {
                    let pool = (self.clusters.class_count(), self.table.len() as u32);
                    let merged = merged_lists(results, Some(pool))?;
                    ClassPairs::from_candidates(self.table.len(), merged.lists)
                        .map_err(|e| PyValueError::new_err(e.to_string()))?
                }
            };
            Ok(self.run(pairs))
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
