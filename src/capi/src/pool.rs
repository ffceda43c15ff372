//! Pools of slots compiled once for the library's batch matcher, then matched
//! against one job (its candidate slots, best first) or a list of jobs (every
//! matching pair); and the negotiation cycle of `classad negotiate`.

use crate::ad::{classad_ad, classad_ad_list, parse_ads, read_file};
use crate::boundary::*;
use crate::output::{classad_pairs, classad_u32_array};
use crate::threads::in_workers;
use classad::ad::ClassAd;
use classad::matching::config::Config;
use classad::matching::SlotSet;
use classad::negotiate::{CycleKnobs, Priorities};
use std::ffi::c_char;
use std::sync::Arc;

/// A pool of slot ads compiled for the batch matcher, with the negotiator's
/// configuration. May be used from several threads at once (a call that finds
/// the compiled slots in use by another compiles its own copy). Made by
/// `classad_pool_from_text`, `classad_pool_from_file` or
/// `classad_pool_from_list`, freed with `classad_pool_free`.
#[allow(non_camel_case_types)]
pub struct classad_pool {
    /// The slots, in order (their indices are the slot indices of results),
    /// compiled once (`classad::matching::SlotSet`).
    set: SlotSet,
}

/// The negotiator's knobs from configuration text (HTCondor's syntax), or its
/// defaults without any.
pub(crate) fn knobs_of(config: Option<&str>) -> Outcome<CycleKnobs> {
    let Some(text) = config else {
        return Ok(CycleKnobs::default());
    };
    let parse = |e: &dyn std::fmt::Display| Failure::new(CLASSAD_ERR_PARSE, e.to_string());
    let config = Config::parse(text, "<config>").map_err(|e| parse(&e))?;
    let (knobs, _ignored) = CycleKnobs::from_config(&config).map_err(|e| parse(&e))?;
    Ok(knobs)
}

/// Refuses more ads than 32-bit indices count.
pub(crate) fn check_count(ads: &[Arc<ClassAd>], what: &str) -> Outcome {
    if u32::try_from(ads.len()).is_err() {
        return Err(Failure::new(
            CLASSAD_ERR_ARGUMENT,
            format!("{} {what}: more than 32-bit indices count", ads.len()),
        ));
    }
    Ok(())
}

impl classad_pool {
    /// The pool of `slots`, compiled under `config`.
    fn new(slots: Vec<Arc<ClassAd>>, config: Option<&str>) -> Outcome<classad_pool> {
        check_count(&slots, "slots")?;
        let knobs = knobs_of(config)?;
        Ok(classad_pool {
            set: in_workers(|| SlotSet::new(slots, knobs.policy)),
        })
    }

    /// Calls `f(job, slot)` for every pair of `jobs` and the pool's slots that
    /// matches both ways, in job order then slot order: the batch matcher, with
    /// the jobs grouped into HTCondor's autoclusters, on the library's workers.
    fn each_pair(&self, jobs: &[Arc<ClassAd>], f: impl FnMut(usize, usize) + Send) {
        in_workers(|| self.set.for_each_pair(jobs, f))
    }
}

/// Hands a new pool to C.
///
/// # Safety
/// `out` is `NULL` or valid for writing a pointer; `config` is `NULL` or points
/// to `config_len` readable bytes.
unsafe fn pool_out(
    out: *mut *mut classad_pool,
    config: *const c_char,
    config_len: usize,
    slots: impl FnOnce() -> Outcome<Vec<Arc<ClassAd>>>,
) -> Outcome {
    // SAFETY: the caller's guarantees on `out` and `config`.
    let (out, config) = unsafe {
        (
            out_handle(out, "out")?,
            opt_text(config, config_len, "config")?,
        )
    };
    let pool = classad_pool::new(slots()?, config)?;
    out.set(new_handle(pool));
    Ok(())
}

/// Compiles the slot ads of `len` bytes of UTF-8 `text` (syntax detected as
/// `CLASSAD_FORMAT_AUTO` does) into a new pool in `*out`. `config` (`NULL` for
/// HTCondor's defaults) is the negotiator's configuration, `config_len` bytes in
/// HTCondor's syntax (`NEGOTIATOR_PRE_JOB_RANK = ...` lines), which orders the
/// candidates of `classad_pool_match`. `CLASSAD_ERR_PARSE` when the slots or the
/// configuration do not parse.
///
/// # Safety
/// `text` is `NULL` or points to `len` readable bytes; `config` is `NULL` or
/// points to `config_len` readable bytes; `out` is `NULL` or valid for writing
/// a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_pool_from_text(
    text: *const c_char,
    len: usize,
    config: *const c_char,
    config_len: usize,
    out: *mut *mut classad_pool,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out`, `config` and `text`.
        unsafe {
            pool_out(out, config, config_len, || {
                parse_ads(crate::boundary::text(text, len, "text")?, None)
            })
        }
    })
}

/// Compiles the slot ads of the file at `path` (`path_len` bytes of UTF-8, read
/// as `classad_ad_list_read_file` reads it) into a new pool in `*out`;
/// `config` as for `classad_pool_from_text`.
///
/// # Safety
/// `path` is `NULL` or points to `path_len` readable bytes; `config` is `NULL`
/// or points to `config_len` readable bytes; `out` is `NULL` or valid for
/// writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_pool_from_file(
    path: *const c_char,
    path_len: usize,
    config: *const c_char,
    config_len: usize,
    out: *mut *mut classad_pool,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out`, `config` and `path`.
        unsafe {
            pool_out(out, config, config_len, || {
                read_file(text(path, path_len, "path")?)
            })
        }
    })
}

/// Compiles the slot ads of `slots` into a new pool in `*out` (the pool shares
/// the ads; the list stays the caller's to free); `config` as for
/// `classad_pool_from_text`.
///
/// # Safety
/// `slots` is `NULL` or a live `classad_ad_list` handle; `config` is `NULL` or
/// points to `config_len` readable bytes; `out` is `NULL` or valid for writing a
/// pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_pool_from_list(
    slots: *const classad_ad_list,
    config: *const c_char,
    config_len: usize,
    out: *mut *mut classad_pool,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out`, `config` and `slots`.
        unsafe {
            pool_out(out, config, config_len, || {
                Ok(handle(slots, "slots")?.ads.clone())
            })
        }
    })
}

/// The number of slots in `pool`, in `*out`.
///
/// # Safety
/// `pool` is `NULL` or a live `classad_pool` handle; `out` is `NULL` or valid for
/// writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn classad_pool_size(
    pool: *const classad_pool,
    out: *mut usize,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out` and `pool`.
        let (out, pool) = unsafe { (out_value(out, "out")?, handle(pool, "pool")?) };
        out.set(pool.set.len());
        Ok(())
    })
}

/// The slots of `pool` that match `job` both ways (HTCondor's
/// `symmetricMatch`), best first in the negotiator's order (its
/// `NEGOTIATOR_PRE_JOB_RANK`, the job's `Rank`, its `NEGOTIATOR_POST_JOB_RANK`,
/// then slot order), as the library's batch matcher orders them: a new array of
/// slot indices (from 0, in the pool's order) in `*out`.
///
/// # Safety
/// `pool` is `NULL` or a live `classad_pool` handle; `job` is `NULL` or a live
/// `classad_ad` handle; `out` is `NULL` or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_pool_match(
    pool: *const classad_pool,
    job: *const classad_ad,
    out: *mut *mut classad_u32_array,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out`, `pool` and `job`.
        let (out, pool, job) = unsafe {
            (
                out_handle(out, "out")?,
                handle(pool, "pool")?,
                handle(job, "job")?,
            )
        };
        // The job is a class of its own, evaluated against every slot.
        let items = in_workers(|| pool.set.candidates_of(&job.ad));
        out.set(new_handle(classad_u32_array { items }));
        Ok(())
    })
}

/// Every (job, slot) pair of `jobs` against `pool` that matches both ways
/// (HTCondor's `symmetricMatch`), in job order then slot order, found by the
/// batch matcher (jobs grouped into HTCondor's autoclusters, refined to match
/// alike, each group evaluated once per slot, on every core): new pairs in
/// `*out`, job indices into `jobs`, slot indices into the pool.
///
/// # Safety
/// `pool` is `NULL` or a live `classad_pool` handle; `jobs` is `NULL` or a live
/// `classad_ad_list` handle; `out` is `NULL` or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_pool_all_pairs(
    pool: *const classad_pool,
    jobs: *const classad_ad_list,
    out: *mut *mut classad_pairs,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out`, `pool` and `jobs`.
        let (out, pool, jobs) = unsafe {
            (
                out_handle(out, "out")?,
                handle(pool, "pool")?,
                handle(jobs, "jobs")?,
            )
        };
        check_count(&jobs.ads, "jobs")?;
        let mut pairs = classad_pairs {
            jobs: Vec::new(),
            slots: Vec::new(),
        };
        // Both indices fit: the counts were checked.
        pool.each_pair(&jobs.ads, |j, s| {
            pairs.jobs.push(j as u32);
            pairs.slots.push(s as u32);
        });
        out.set(new_handle(pairs));
        Ok(())
    })
}

/// How many slots of `pool` match each job of `jobs` both ways (HTCondor's
/// `symmetricMatch`), found as `classad_pool_all_pairs` finds the pairs but
/// without keeping them: a new array in `*out` of one count per job, in the
/// list's order.
///
/// # Safety
/// `pool` is `NULL` or a live `classad_pool` handle; `jobs` is `NULL` or a live
/// `classad_ad_list` handle; `out` is `NULL` or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_pool_match_counts(
    pool: *const classad_pool,
    jobs: *const classad_ad_list,
    out: *mut *mut classad_u32_array,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out`, `pool` and `jobs`.
        let (out, pool, jobs) = unsafe {
            (
                out_handle(out, "out")?,
                handle(pool, "pool")?,
                handle(jobs, "jobs")?,
            )
        };
        check_count(&jobs.ads, "jobs")?;
        let mut items = vec![0u32; jobs.ads.len()];
        pool.each_pair(&jobs.ads, |j, _| items[j] += 1);
        out.set(new_handle(classad_u32_array { items }));
        Ok(())
    })
}

/// Frees a pool; `NULL` is ignored. Ads taken from it stay valid.
///
/// # Safety
/// `pool` is `NULL` or a live `classad_pool` handle, not used after this (nor
/// by a call still running).
#[no_mangle]
pub unsafe extern "C" fn classad_pool_free(pool: *mut classad_pool) {
    guard_value((), || {
        // SAFETY: the caller's guarantee on `pool`.
        unsafe { free_handle(pool) };
        Ok(())
    })
}

/// One negotiation cycle of `jobs` against `slots`, as `classad negotiate` runs
/// it (submitters by priority, fair shares, each job the best free slot of its
/// candidates, preemption as configured): the matches in the order made, as
/// new pairs in `*out` (job indices into `jobs`, slot indices into `slots`).
/// `config` (`NULL` for HTCondor's defaults) is the negotiator's configuration
/// in HTCondor's syntax; `priorities` (`NULL` for none) the accountant's lines
/// `<submitter> <real priority> [<factor> [<usage> [<floor> [<ceiling>]]]]`
/// (or `condor_userprio -l`). `CLASSAD_ERR_PARSE`
/// when either does not parse.
///
/// # Safety
/// `jobs` and `slots` are `NULL` or live `classad_ad_list` handles; `config` and
/// `priorities` are `NULL` or point to `config_len` and `priorities_len`
/// readable bytes; `out` is `NULL` or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_negotiate(
    jobs: *const classad_ad_list,
    slots: *const classad_ad_list,
    config: *const c_char,
    config_len: usize,
    priorities: *const c_char,
    priorities_len: usize,
    out: *mut *mut classad_pairs,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on every argument.
        let (out, jobs, slots, config, priorities) = unsafe {
            (
                out_handle(out, "out")?,
                handle(jobs, "jobs")?,
                handle(slots, "slots")?,
                opt_text(config, config_len, "config")?,
                opt_text(priorities, priorities_len, "priorities")?,
            )
        };
        check_count(&jobs.ads, "jobs")?;
        check_count(&slots.ads, "slots")?;
        let knobs = knobs_of(config)?;
        let prio = match priorities {
            None => Priorities::default(),
            Some(t) => Priorities::parse(t, "<priorities>")
                .map_err(|e| Failure::new(CLASSAD_ERR_PARSE, e.to_string()))?,
        };
        let outcome =
            in_workers(|| classad::negotiate::negotiate(&jobs.ads, &slots.ads, &knobs, &prio));
        let pairs = classad_pairs {
            jobs: outcome.matches.iter().map(|m| m.job).collect(),
            slots: outcome.matches.iter().map(|m| m.slot).collect(),
        };
        out.set(new_handle(pairs));
        Ok(())
    })
}

/// Everything behind a handle that may be used from several threads at once is
/// `Send + Sync`, checked at compile time.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<classad_pool>();
    shared::<classad_ad>();
    shared::<classad_ad_list>();
    shared::<crate::value::classad_value>();
    shared::<crate::output::classad_string>();
    shared::<classad_u32_array>();
    shared::<classad_pairs>();
};
