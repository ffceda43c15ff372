//! `LivingPool`: a pool kept between negotiation cycles
//! (`classad::negotiate::living::LivingPool`). Python adds, changes and
//! removes jobs and slots and moves the clock; each `cycle()` runs the
//! negotiator's cycle as `negotiate` would on the same ads and the same
//! accountant state, working out again only what changed, with the GIL
//! released. Jobs and slots are named by id (their places: the queue's and
//! the pool's order is the order of ids; a removed one's id goes to the next
//! one added), and so are the cycle's matches.

use crate::ad::PyClassAd;
use crate::batch::{ads_of, knobs_of};
use classad::ad::ClassAd;
use classad::negotiate::accounts::Accounts;
use classad::negotiate::living::{Applied, CycleWork, LivingCycle, LivingPool, UnknownId};
use classad::negotiate::{CycleKnobs, CycleOutcome, Priorities};
use pyo3::exceptions::{PyKeyError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::sync::{Arc, Mutex, TryLockError};

/// A pool of slots and jobs kept between negotiation cycles:
/// `LivingPool(slots, jobs, config=None, accountant=None, priorities=None,
/// now=None)`. `slots` and `jobs` are what `Pool` and `negotiate` take
/// (`ClassAd`s, or a path to a file of ads), their ids 0, 1, ... in order;
/// `config` the negotiator's configuration text; the accountant's state is
/// `accountant`, the text `condor_userprio -l` prints (or `accountant()`
/// wrote), or `priorities`, the plain priorities file (at most one of the
/// two; neither: no usage yet); `now` the clock in seconds since the epoch
/// (default: the accountant's `LastUpdate`, else 0, as `classad negotiate
/// --accountant` starts).
///
/// The pool sits in a `Mutex` rather than in an `unsendable` class: Python
/// threads (a Dask or web worker's) may share it, a call from a second
/// thread waits for the first one's (a cycle included) instead of failing,
/// and the lock is waited for with the GIL released, so that a long cycle
/// holds up no other Python thread.
#[pyclass(module = "classad_rs", name = "LivingPool", frozen)]
pub struct PyLivingPool {
    pool: Mutex<LivingPool>,
    /// The last cycle's outcome, until `apply_matches` makes its matches
    /// into claims.
    last: Mutex<Option<CycleOutcome>>,
}

/// `KeyError` for a job or slot id the pool does not have.
fn unknown(what: &str, id: i64) -> PyErr {
    PyKeyError::new_err(format!("no {what} has id {id}"))
}

/// The pool's `u32` id of a Python int: one out of range names no job or
/// slot, so it is a `KeyError` as an unknown id is, not an `OverflowError`.
fn id_of(what: &str, id: i64) -> PyResult<u32> {
    u32::try_from(id).map_err(|_| unknown(what, id))
}

/// A Python `ClassAd` argument, shared with the pool (the caller's later
/// changes to it copy it first, so they never reach the pool).
fn ad_of(ad: &Bound<'_, PyAny>) -> PyResult<Arc<ClassAd>> {
    let ad = ad
        .cast::<PyClassAd>()
        .map_err(|_| PyTypeError::new_err("ad must be a ClassAd"))?;
    PyClassAd::share(ad)
}

/// A `ClassAd` for Python of an ad the pool holds, shared (copied on the
/// first change made to it in Python, so the pool's stays as it is).
fn ad_out(py: Python<'_>, ad: Arc<ClassAd>) -> PyResult<Py<PyClassAd>> {
    Py::new(py, PyClassAd { ad })
}

/// The accountant's state the constructor starts from, and the clock: as
/// `classad negotiate` loads it (`PRIORITY_HALFLIFE` and `GROUP_NAMES` from
/// the knobs; the clock at the accountant's last update unless given).
fn accounts_of(
    knobs: &CycleKnobs,
    accountant: Option<&str>,
    priorities: Option<&str>,
    now: Option<i64>,
) -> PyResult<(Accounts, i64)> {
    let half_life = knobs.priority_half_life;
    let groups: Vec<String> = knobs.groups.iter().map(|g| g.name.clone()).collect();
    let start = now.unwrap_or(0);
    let accounts = match (accountant, priorities) {
        (Some(_), Some(_)) => {
            return Err(PyValueError::new_err(
                "give the accountant's state as accountant (condor_userprio -l) or as \
                 priorities (the plain priorities file), not both",
            ))
        }
        (Some(text), None) => {
            Accounts::from_userprio(text, "<accountant>", start, half_life, groups)
                .map_err(|e| PyValueError::new_err(e.to_string()))?
        }
        (None, Some(text)) => {
            let p = Priorities::parse(text, "<priorities>")
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            Accounts::from_priorities(&p, start, half_life, groups)
        }
        (None, None) => Accounts::new(start, half_life, groups),
    };
    let now = now.unwrap_or(accounts.last_update_time);
    Ok((accounts, now))
}

impl PyLivingPool {
    /// Runs `f` on the pool, which must run no Python. The lock is taken at
    /// once when it is free, else waited for with the GIL released: its
    /// holder (a cycle in another thread) never needs the GIL, and waiting
    /// with it would stop every Python thread for as long.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut LivingPool) -> T + Send,
    ) -> PyResult<T> {
        match self.pool.try_lock() {
            Ok(mut guard) => Ok(f(&mut guard)),
            Err(TryLockError::Poisoned(_)) => Err(poisoned()),
            Err(TryLockError::WouldBlock) => py.detach(|| {
                let mut guard = self.pool.lock().map_err(|_| poisoned())?;
                Ok(f(&mut guard))
            }),
        }
    }

    /// Runs `f` on the pool with the GIL released throughout (a cycle, or
    /// anything whose work grows with the pool).
    fn detached<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut LivingPool) -> T + Send,
    ) -> PyResult<T> {
        py.detach(|| {
            let mut guard = self.pool.lock().map_err(|_| poisoned())?;
            Ok(f(&mut guard))
        })
    }
}

/// What a call raises once a panic inside the library, in an earlier call,
/// left the pool half changed: nothing it holds can be trusted any more.
fn poisoned() -> PyErr {
    PyRuntimeError::new_err(
        "this LivingPool is unusable: an earlier call failed inside the library part way \
         through changing it",
    )
}

/// An id the library did not find, as the `KeyError` naming it.
fn unknown_id(what: &str) -> impl Fn(UnknownId) -> PyErr + '_ {
    move |UnknownId(id)| unknown(what, i64::from(id))
}

#[pymethods]
impl PyLivingPool {
    #[new]
    #[pyo3(signature = (slots, jobs, config=None, accountant=None, priorities=None, now=None))]
    fn py_new(
        py: Python<'_>,
        slots: &Bound<'_, PyAny>,
        jobs: &Bound<'_, PyAny>,
        config: Option<&str>,
        accountant: Option<&str>,
        priorities: Option<&str>,
        now: Option<i64>,
    ) -> PyResult<PyLivingPool> {
        let knobs = knobs_of(config)?;
        let (accounts, now) = accounts_of(&knobs, accountant, priorities, now)?;
        let slots = ads_of(slots, "slots")?;
        let jobs = ads_of(jobs, "jobs")?;
        let pool = py.detach(|| LivingPool::new(&slots, &jobs, knobs, accounts, now));
        Ok(PyLivingPool {
            pool: Mutex::new(pool),
            last: Mutex::new(None),
        })
    }

    /// `add_job(ad)`: adds job `ad` at the end of the queue (or in the place
    /// of the first removed job); its id.
    fn add_job(&self, py: Python<'_>, ad: &Bound<'_, PyAny>) -> PyResult<u32> {
        let ad = ad_of(ad)?;
        self.with(py, |p| p.add_job(ad))
    }

    /// `update_job(id, ad)`: job `id` becomes `ad`, keeping its place in the
    /// queue; `KeyError` when no job has that id.
    fn update_job(&self, py: Python<'_>, id: i64, ad: &Bound<'_, PyAny>) -> PyResult<()> {
        let (n, ad) = (id_of("job", id)?, ad_of(ad)?);
        self.with(py, |p| p.update_job(n, ad))?
            .map_err(unknown_id("job"))
    }

    /// `remove_job(id)`: removes job `id`; its ad. `KeyError` when no job has
    /// that id.
    fn remove_job(&self, py: Python<'_>, id: i64) -> PyResult<Py<PyClassAd>> {
        let n = id_of("job", id)?;
        let ad = self
            .with(py, |p| p.remove_job(n))?
            .map_err(unknown_id("job"))?;
        ad_out(py, ad)
    }

    /// `add_slot(ad)`: adds slot `ad` at the end of the pool (or in the place
    /// of the first removed slot); its id.
    fn add_slot(&self, py: Python<'_>, ad: &Bound<'_, PyAny>) -> PyResult<u32> {
        let ad = ad_of(ad)?;
        self.with(py, |p| p.add_slot(ad))
    }

    /// `update_slot(id, ad)`: slot `id` becomes `ad`, keeping its place in
    /// the pool; `KeyError` when no slot has that id.
    fn update_slot(&self, py: Python<'_>, id: i64, ad: &Bound<'_, PyAny>) -> PyResult<()> {
        let (n, ad) = (id_of("slot", id)?, ad_of(ad)?);
        self.with(py, |p| p.update_slot(n, ad))?
            .map_err(unknown_id("slot"))
    }

    /// `remove_slot(id)`: removes slot `id`; its ad. `KeyError` when no slot
    /// has that id.
    fn remove_slot(&self, py: Python<'_>, id: i64) -> PyResult<Py<PyClassAd>> {
        let n = id_of("slot", id)?;
        let ad = self
            .with(py, |p| p.remove_slot(n))?
            .map_err(unknown_id("slot"))?;
        ad_out(py, ad)
    }

    /// `job(id)`: job `id`'s ad (a copy: changing it changes nothing in the
    /// pool; `update_job` does). `KeyError` when no job has that id.
    fn job(&self, py: Python<'_>, id: i64) -> PyResult<Py<PyClassAd>> {
        let n = id_of("job", id)?;
        let ad = self.with(py, |p| p.job(n).cloned())?;
        ad_out(py, ad.ok_or_else(|| unknown("job", id))?)
    }

    /// `slot(id)`: slot `id`'s ad (a copy, as `job` gives). `KeyError` when
    /// no slot has that id.
    fn slot(&self, py: Python<'_>, id: i64) -> PyResult<Py<PyClassAd>> {
        let n = id_of("slot", id)?;
        let ad = self.with(py, |p| p.slot(n).cloned())?;
        ad_out(py, ad.ok_or_else(|| unknown("slot", id))?)
    }

    /// `jobs()`: every job as `(id, ClassAd)`, in queue order (the order of
    /// ids): what a fresh `negotiate` of the same queue numbers 0, 1, ...
    fn jobs(&self, py: Python<'_>) -> PyResult<Vec<(u32, Py<PyClassAd>)>> {
        let ads = self.detached(py, |p| {
            p.jobs()
                .map(|(id, ad)| (id, ad.clone()))
                .collect::<Vec<_>>()
        })?;
        ads.into_iter()
            .map(|(id, ad)| Ok((id, ad_out(py, ad)?)))
            .collect()
    }

    /// `slots()`: every slot as `(id, ClassAd)`, in pool order (the order of
    /// ids).
    fn slots(&self, py: Python<'_>) -> PyResult<Vec<(u32, Py<PyClassAd>)>> {
        let ads = self.detached(py, |p| {
            p.slots()
                .map(|(id, ad)| (id, ad.clone()))
                .collect::<Vec<_>>()
        })?;
        ads.into_iter()
            .map(|(id, ad)| Ok((id, ad_out(py, ad)?)))
            .collect()
    }

    /// How many jobs the queue has.
    #[getter]
    fn job_count(&self, py: Python<'_>) -> PyResult<usize> {
        self.with(py, |p| p.job_count())
    }

    /// How many slots the pool has.
    #[getter]
    fn slot_count(&self, py: Python<'_>) -> PyResult<usize> {
        self.with(py, |p| p.slot_count())
    }

    /// The clock (seconds since the epoch): the time the next cycle runs at.
    #[getter]
    fn now(&self, py: Python<'_>) -> PyResult<i64> {
        self.with(py, |p| p.now())
    }

    /// `advance_to(now)`: moves the clock to `now`; the next cycle ages the
    /// priorities and charges the claims' usage up to it.
    fn advance_to(&self, py: Python<'_>, now: i64) -> PyResult<()> {
        self.with(py, |p| p.advance_to(now))
    }

    /// `accountant()`: the accountant's state as the last cycle left it, in
    /// the layout `condor_userprio -l` prints (with the claims, so that
    /// `LivingPool(..., accountant=pool.accountant())` goes on from here).
    fn accountant(&self, py: Python<'_>) -> PyResult<String> {
        self.detached(py, |p| {
            let knobs = p.knobs();
            p.accounts()
                .to_userprio(|name| knobs.default_prio_factor_of(name))
        })
    }

    /// `cycle()`: one negotiation cycle at `now`, with the GIL released: the
    /// accountant's update, the cycle, and its matches charged. A `dict`:
    /// `"matches"`, the (job id, slot id) matches in the order made;
    /// `"match_details"`, per match a `dict` of `job`, `slot`, `submitter`,
    /// `autocluster`, `preempt` (`"none"`, `"rank"` or `"prio"`), `cost`,
    /// `spin` and `group` (`None` when no groups are configured);
    /// `"unmatched"`, the idle jobs left without a slot as (job id, why), in
    /// queue order; `"work"`, what the cycle worked out again (`rebuilt`,
    /// `jobs_classified`, `jobs_reread`, `classes_matched`,
    /// `classes_dropped`, `slots_prepared`, `slots_matched`, `evaluations`,
    /// `heads_made`) and its time
    /// (`cluster_match_s`, `cycle_s`).
    fn cycle<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let LivingCycle { outcome, work } = self.detached(py, |p| p.cycle())?;
        *self.last.lock().map_err(|_| poisoned())? = Some(outcome.clone());
        let out = PyDict::new(py);
        let pairs: Vec<(u32, u32)> = outcome.matches.iter().map(|m| (m.job, m.slot)).collect();
        out.set_item("matches", pairs)?;
        let details = PyList::empty(py);
        for m in &outcome.matches {
            let d = PyDict::new(py);
            d.set_item("job", m.job)?;
            d.set_item("slot", m.slot)?;
            d.set_item("submitter", &*m.submitter)?;
            d.set_item("autocluster", m.autocluster)?;
            d.set_item("preempt", m.preempt.name())?;
            d.set_item("cost", m.cost)?;
            d.set_item("spin", m.spin)?;
            d.set_item("group", m.group.as_deref())?;
            details.append(d)?;
        }
        out.set_item("match_details", details)?;
        let unmatched: Vec<(u32, &str)> = outcome
            .unmatched
            .iter()
            .map(|(job, why)| (job, why.name()))
            .collect();
        out.set_item("unmatched", unmatched)?;
        out.set_item("work", work_dict(py, &work)?)?;
        Ok(out)
    }

    /// `apply_matches()`: makes the last cycle's matches into claims, once,
    /// as HTCondor's schedd and startd make them before the next cycle: a
    /// static slot claimed by its job, which runs (`JobStatus` 2,
    /// `RemoteHost`); a partitionable slot carved into a new dynamic slot
    /// for it; the job a preempting match's slot ran evicted back to idle.
    /// A `dict`: `"started"`, (job id, slot id it runs on, partitionable
    /// slot id it was carved from or `None`); `"evicted"`, (job id or
    /// `None` when no job of the pool is the one the claim ran, slot id);
    /// `"refused"`, (job id, slot id, why) for matches that could no longer
    /// be made (`"job gone"`, `"job not idle"`, `"slot gone"`, `"slot
    /// claimed"`, `"does not fit"`), whose jobs stay as they are. Before the
    /// first cycle, or once applied, every list is empty.
    fn apply_matches<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let last = self.last.lock().map_err(|_| poisoned())?.take();
        let applied = match last {
            Some(o) => self.detached(py, move |p| p.apply_matches(&o))?,
            None => Applied::default(),
        };
        let out = PyDict::new(py);
        let started: Vec<(u32, u32, Option<u32>)> = applied
            .started
            .iter()
            .map(|s| (s.job, s.slot, s.carved_from))
            .collect();
        out.set_item("started", started)?;
        let evicted: Vec<(Option<u32>, u32)> =
            applied.evicted.iter().map(|e| (e.job, e.slot)).collect();
        out.set_item("evicted", evicted)?;
        let refused: Vec<(u32, u32, &str)> = applied
            .refused
            .iter()
            .map(|r| (r.job, r.slot, r.why.name()))
            .collect();
        out.set_item("refused", refused)?;
        Ok(out)
    }

    /// `end_job(id)`: job `id` ends: it leaves the queue and its claim is
    /// freed (a static slot Unclaimed again; a dynamic slot deleted, its
    /// resources back in its partitionable slot). A `dict`: `"ad"`, the
    /// job's ad; `"freed"`, the slot freed (the static slot, or the
    /// partitionable slot), `None` when it ran nowhere in the pool;
    /// `"deleted"`, the dynamic slot deleted or `None`. `KeyError` when no
    /// job has that id.
    fn end_job<'py>(&self, py: Python<'py>, id: i64) -> PyResult<Bound<'py, PyDict>> {
        let n = id_of("job", id)?;
        let ended = self
            .with(py, |p| p.end_job(n))?
            .map_err(unknown_id("job"))?;
        let out = PyDict::new(py);
        out.set_item("ad", ad_out(py, ended.ad)?)?;
        out.set_item("freed", ended.freed)?;
        out.set_item("deleted", ended.deleted)?;
        Ok(out)
    }

    /// `release_claim(slot)`: slot `slot`'s claim ends, as when the startd
    /// releases it: the slot freed (a dynamic slot deleted, its resources
    /// back in its partitionable slot) and the job it ran, when the pool has
    /// it, evicted back to idle. A `dict`: `"freed"`, `"deleted"` and
    /// `"evicted"` (the job), each `None` when there is none; all `None` for
    /// a slot that is not claimed. `KeyError` when no slot has that id.
    fn release_claim<'py>(&self, py: Python<'py>, slot: i64) -> PyResult<Bound<'py, PyDict>> {
        let n = id_of("slot", slot)?;
        let released = self
            .with(py, |p| p.release_claim(n))?
            .map_err(unknown_id("slot"))?;
        let out = PyDict::new(py);
        out.set_item("freed", released.freed)?;
        out.set_item("deleted", released.deleted)?;
        out.set_item("evicted", released.evicted)?;
        Ok(out)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let (jobs, slots, now) = self.with(py, |p| (p.job_count(), p.slot_count(), p.now()))?;
        Ok(format!("LivingPool(jobs={jobs}, slots={slots}, now={now})"))
    }
}

/// Every field of a cycle's `CycleWork`, by name.
fn work_dict<'py>(py: Python<'py>, w: &CycleWork) -> PyResult<Bound<'py, PyDict>> {
    // Destructured so that a field added to `CycleWork` fails to compile here
    // until it is given to Python too.
    let CycleWork {
        rebuilt,
        jobs_classified,
        jobs_reread,
        classes_matched,
        classes_dropped,
        slots_prepared,
        slots_matched,
        evaluations,
        heads_made,
        cluster_match_s,
        cycle_s,
    } = *w;
    let d = PyDict::new(py);
    d.set_item("rebuilt", rebuilt)?;
    d.set_item("jobs_classified", jobs_classified)?;
    d.set_item("jobs_reread", jobs_reread)?;
    d.set_item("classes_matched", classes_matched)?;
    d.set_item("classes_dropped", classes_dropped)?;
    d.set_item("slots_prepared", slots_prepared)?;
    d.set_item("slots_matched", slots_matched)?;
    d.set_item("evaluations", evaluations)?;
    d.set_item("heads_made", heads_made)?;
    d.set_item("cluster_match_s", cluster_match_s)?;
    d.set_item("cycle_s", cycle_s)?;
    Ok(d)
}
