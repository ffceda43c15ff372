//! The batch calls classad2 lacks: a pool of slots compiled once (`Pool`), every
//! matching (job, slot) pair of a queue, each match class's candidate slots in
//! the negotiator's order, and a whole negotiation cycle (`negotiate`), each run
//! on every core (rayon) with the GIL released, giving plain Python lists (or a
//! NumPy array, when asked for and NumPy is installed).

use crate::ad::PyClassAd;
use classad::ad::ClassAd;
use classad::matching::config::Config;
use classad::matching::SlotSet;
use classad::negotiate::{CycleKnobs, Priorities};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::Arc;

/// The ads of a Python sequence of `ClassAd`s.
pub(crate) fn ads_of(seq: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Arc<ClassAd>>> {
    if let Some(path) = path_of(seq)? {
        // Read by the library, in parts on every core, without the GIL and
        // without a Python object per ad: what the command line pays.
        let ads = seq
            .py()
            .detach(|| classad::ad::files::read_ad_file(&path))
            .map_err(pyo3::exceptions::PyOSError::new_err)?;
        return Ok(ads.into_iter().map(Arc::new).collect());
    }
    let mut out = Vec::new();
    for item in seq.try_iter()? {
        let item = item?;
        let ad = item
            .cast::<PyClassAd>()
            .map_err(|_| PyTypeError::new_err(format!("{what} must be ClassAds")))?;
        out.push(PyClassAd::share(ad)?);
    }
    Ok(out)
}

/// The file path `obj` names, when it is a `str` or an `os.PathLike` (a
/// `pathlib.Path`), as Python's own file calls take either. A `str` is never a
/// sequence of ads, so it can mean nothing else here; the shard calls, which
/// take a `str` for the text of ads, look at it before they come here.
fn path_of(obj: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    if let Ok(s) = obj.cast::<pyo3::types::PyString>() {
        return Ok(Some(s.to_cow()?.into_owned()));
    }
    if obj.hasattr("__fspath__")? {
        let p = obj.call_method0("__fspath__")?;
        return Ok(Some(p.extract::<String>()?));
    }
    Ok(None)
}

/// The negotiator's knobs from configuration text (HTCondor's syntax).
pub(crate) fn knobs_of(config: Option<&str>) -> PyResult<CycleKnobs> {
    let Some(text) = config else {
        return Ok(CycleKnobs::default());
    };
    let config =
        Config::parse(text, "<config>").map_err(|e| PyValueError::new_err(e.to_string()))?;
    let (knobs, _ignored) =
        CycleKnobs::from_config(&config).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(knobs)
}

/// Pairs as a list of tuples, or as an `(n, 2)` NumPy array of int64.
pub(crate) fn pairs_out(
    py: Python<'_>,
    pairs: Vec<(usize, usize)>,
    numpy: bool,
) -> PyResult<Py<PyAny>> {
    if !numpy {
        return Ok(pairs.into_pyobject(py)?.into_any().unbind());
    }
    let np = py.import("numpy")?;
    let flat: Vec<u8> = pairs
        .iter()
        .flat_map(|&(j, s)| [j as i64, s as i64])
        .flat_map(i64::to_ne_bytes)
        .collect();
    let bytes = PyBytes::new(py, &flat);
    let arr = np
        .call_method1("frombuffer", (bytes, np.getattr("int64")?))?
        .call_method1("reshape", (-1, 2))?
        .call_method0("copy")?;
    Ok(arr.unbind())
}

/// A pool of slots compiled once for the batch matcher: `Pool(slots,
/// config=None)`, `config` the negotiator's configuration text (for
/// `NEGOTIATOR_PRE_JOB_RANK` and friends).
#[pyclass(module = "classad_rs", name = "Pool", frozen)]
pub struct PyPool {
    /// The slots, compiled once (`classad::matching::SlotSet`).
    set: SlotSet,
}

#[pymethods]
impl PyPool {
    #[new]
    #[pyo3(signature = (slots, config=None))]
    fn py_new(py: Python<'_>, slots: &Bound<'_, PyAny>, config: Option<&str>) -> PyResult<PyPool> {
        let slots = ads_of(slots, "slots")?;
        let knobs = knobs_of(config)?;
        Ok(PyPool {
            set: py.detach(|| SlotSet::new(slots, knobs.policy)),
        })
    }

    fn __len__(&self) -> usize {
        self.set.len()
    }

    /// `allPairs(jobs, numpy=False)`: every (job index, slot index) pair that
    /// matches both ways (HTCondor's `symmetricMatch`), in job then slot order.
    #[pyo3(name = "allPairs", signature = (jobs, numpy=false))]
    fn all_pairs(
        &self,
        py: Python<'_>,
        jobs: &Bound<'_, PyAny>,
        numpy: bool,
    ) -> PyResult<Py<PyAny>> {
        let jobs = ads_of(jobs, "jobs")?;
        let pairs = py.detach(|| {
            let mut out = Vec::new();
            self.set.for_each_pair(&jobs, |j, s| out.push((j, s)));
            out
        });
        pairs_out(py, pairs, numpy)
    }

    /// `candidates(jobs)`: `(class_of_job, candidates)`: each job's match class
    /// (HTCondor's autoclusters, refined so that a class matches alike), and per
    /// class the slots that match it, best first in the negotiator's order
    /// (`NEGOTIATOR_PRE_JOB_RANK`, the job's `Rank`, `NEGOTIATOR_POST_JOB_RANK`,
    /// then slot order).
    fn candidates(
        &self,
        py: Python<'_>,
        jobs: &Bound<'_, PyAny>,
    ) -> PyResult<(Vec<u32>, Vec<Vec<u32>>)> {
        let jobs = ads_of(jobs, "jobs")?;
        let c = py.detach(|| self.set.candidates(&jobs));
        Ok((c.class_of, c.candidates))
    }
}

/// `negotiate(jobs, slots, config=None, priorities=None)`: one negotiation cycle
/// as `classad negotiate` runs it: the (job index, slot index) matches in the
/// order made. `config` is the negotiator's configuration text, `priorities` the
/// accountant's lines `<submitter> <real priority> [<factor> [<usage> [<floor>
/// [<ceiling>]]]]` (or `condor_userprio -l`).
#[pyfunction]
#[pyo3(signature = (jobs, slots, config=None, priorities=None, numpy=false))]
pub fn negotiate(
    py: Python<'_>,
    jobs: &Bound<'_, PyAny>,
    slots: &Bound<'_, PyAny>,
    config: Option<&str>,
    priorities: Option<&str>,
    numpy: bool,
) -> PyResult<Py<PyAny>> {
    let jobs = ads_of(jobs, "jobs")?;
    let slots = ads_of(slots, "slots")?;
    let knobs = knobs_of(config)?;
    let prio = match priorities {
        None => Priorities::default(),
        Some(t) => Priorities::parse(t, "<priorities>")
            .map_err(|e| PyValueError::new_err(e.to_string()))?,
    };
    let pairs = py.detach(|| {
        let outcome = classad::negotiate::negotiate(&jobs, &slots, &knobs, &prio);
        outcome
            .matches
            .iter()
            .map(|m| (m.job as usize, m.slot as usize))
            .collect::<Vec<_>>()
    });
    pairs_out(py, pairs, numpy)
}
