//! A living pool (`classad::negotiate::living::LivingPool`): slots, jobs, the
//! negotiator's knobs and the accountant kept between cycles, changed a few at
//! a time, each cycle working out again only what changed. For a caller that
//! runs the negotiator over and over on a pool that changes a little between
//! cycles, where `classad_negotiate` would read, classify and match every ad
//! at every cycle.

use crate::ad::{classad_ad, classad_ad_list};
use crate::boundary::*;
use crate::output::{classad_pairs, classad_string};
use crate::pool::{check_count, knobs_of};
use crate::threads::in_workers;
use classad::negotiate::accounts::Accounts;
use classad::negotiate::living::{Applied, CycleWork, LivingPool, UnknownId};
use classad::negotiate::priorities::userprio::{layout, Layout};
use classad::negotiate::{CycleKnobs, CycleOutcome, Priorities};
use std::ffi::c_char;

/// What names the accountant's text in its error messages.
const ACCOUNTANT_NAME: &str = "<accountant>";

/// A living pool: slots and jobs, each with an id, the negotiator's
/// configuration and the accountant's state, kept between cycles. Between
/// cycles a caller adds, changes and removes jobs and slots
/// (`classad_living_pool_add_job`, ...) and moves the clock
/// (`classad_living_pool_advance_to`); `classad_living_pool_cycle` then runs
/// the negotiation cycle as `classad_negotiate` runs it on the same ads (with
/// the accountant's state carried from cycle to cycle), classifying and
/// matching again only the jobs and slots that changed.
///
/// Ids: the jobs and slots the pool is made with have ids 0, 1, ... in the
/// lists' order; an added job or slot gets the id a removed one had, else the
/// next. The queue's order and the pool's order are the order of ids.
///
/// Not safe to use from two threads at once (unlike `classad_pool`): every
/// call changes or reads state the others change, so the caller makes sure
/// one call at a time uses it (a lock of its own, or one thread); it may move
/// from thread to thread between calls. Made by `classad_living_pool_new`,
/// freed with `classad_living_pool_free`.
#[allow(non_camel_case_types)]
pub struct classad_living_pool {
    /// The pool.
    pool: LivingPool,
    /// The last cycle's outcome, until its matches are applied.
    last: Option<CycleOutcome>,
}

/// What a cycle of a living pool worked out again, and what it took
/// (`classad_living_pool_cycle` fills it in). For a caller to see what a
/// change cost, or to check that a cycle did only what its changes asked.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[allow(non_camel_case_types)]
pub struct classad_living_work {
    /// Every job was classified and every class matched again: the first
    /// cycle, or the slots came to read other attributes of jobs.
    pub rebuilt: bool,
    /// Jobs classified (the new and changed ones).
    pub jobs_classified: u64,
    /// Classes of jobs matched against every slot (new ones, and classes of
    /// their own, which are matched at every cycle).
    pub classes_matched: u64,
    /// Classes dropped (no job has them any more).
    pub classes_dropped: u64,
    /// Slots prepared again (changed, or their submitter's priority moved).
    pub slots_prepared: u64,
    /// Slots matched against every class (the changed ones).
    pub slots_matched: u64,
    /// (class, slot) pairs evaluated.
    pub evaluations: u64,
    /// Seconds spent classifying and matching what changed.
    pub cluster_match_s: f64,
    /// Seconds of the whole cycle.
    pub cycle_s: f64,
    /// Jobs that changed in nothing their class reads: kept in their
    /// classes, their facts read again.
    pub jobs_reread: u64,
    /// Classes whose first candidates were made again (their candidates
    /// changed); the others' are kept.
    pub heads_made: u64,
}

impl From<&CycleWork> for classad_living_work {
    fn from(w: &CycleWork) -> classad_living_work {
        classad_living_work {
            rebuilt: w.rebuilt,
            jobs_classified: w.jobs_classified,
            classes_matched: w.classes_matched,
            classes_dropped: w.classes_dropped,
            slots_prepared: w.slots_prepared,
            slots_matched: w.slots_matched,
            evaluations: w.evaluations,
            cluster_match_s: w.cluster_match_s,
            cycle_s: w.cycle_s,
            jobs_reread: w.jobs_reread,
            heads_made: w.heads_made,
        }
    }
}

/// The accountant's state from `text` under `knobs` (their half-life and
/// groups), as `classad negotiate --accountant` reads its file: the
/// `condor_userprio -l` layout (HTCondor's report, or the state
/// `classad_living_pool_accountant` writes), whose usage and claims carry
/// over; or plain priorities lines, as `classad_negotiate` reads them, whose
/// usage is found again from the claimed slots. No records without text.
/// The last update is the text's `LastUpdate`, else `now`.
fn accounts_of(text: Option<&str>, knobs: &CycleKnobs, now: i64) -> Outcome<Accounts> {
    let half_life = knobs.priority_half_life;
    let groups: Vec<String> = knobs.groups.iter().map(|g| g.name.clone()).collect();
    let Some(text) = text else {
        return Ok(Accounts::new(now, half_life, groups));
    };
    let parse = |e: &dyn std::fmt::Display| Failure::new(CLASSAD_ERR_PARSE, e.to_string());
    // A byte-order mark would hide the first line's layout; the readers
    // themselves skip it.
    match layout(text.strip_prefix('\u{feff}').unwrap_or(text)) {
        Layout::Ads => Accounts::from_userprio(text, ACCOUNTANT_NAME, now, half_life, groups)
            .map_err(|e| parse(&e)),
        // The plain lines, or condor_userprio's table, which this refuses
        // with a pointer to `-l`.
        Layout::Plain | Layout::Table(_) => Priorities::parse(text, ACCOUNTANT_NAME)
            .map(|p| Accounts::from_priorities(&p, now, half_life, groups))
            .map_err(|e| parse(&e)),
    }
}

/// The failure for an id that names no job (`what` "job") or slot of the
/// pool.
fn unknown(what: &str, e: UnknownId) -> Failure {
    Failure::new(CLASSAD_ERR_ARGUMENT, format!("no {what} has id {}", e.0))
}

/// Refuses a job or slot beyond the ids' 32 bits (`count` of them already).
fn check_room(count: usize, what: &str) -> Outcome {
    // Ids run from 0 to u32::MAX: 2^32 of them, and not one more.
    if count > u32::MAX as usize {
        return Err(Failure::new(
            CLASSAD_ERR_ARGUMENT,
            format!("{count} {what}s: no 32-bit id is left for another"),
        ));
    }
    Ok(())
}

/// A new living pool in `*out` of the slot ads of `slots` and the job ads of
/// `jobs` (their ids 0, 1, ... in the lists' order; the pool shares the ads,
/// the lists stay the caller's to free), the clock at `now` (seconds since the
/// epoch). `config` (`NULL` for HTCondor's defaults) is the negotiator's
/// configuration, `config_len` bytes in HTCondor's syntax, read as
/// `classad_negotiate` reads it. `accountant` (`NULL` for an accountant with no
/// records, its last update at `now`) is its state, `accountant_len` bytes:
/// the `condor_userprio -l` layout (HTCondor's report, or the text
/// `classad_living_pool_accountant` gives, which carries usage and claims
/// over), or plain lines `<submitter> <real priority> [<factor> [<usage>
/// [<floor> [<ceiling>]]]]` as `classad_negotiate` reads its priorities; its
/// `LastUpdate`, when it has one, is the accountant's last update.
/// `CLASSAD_ERR_PARSE` when the configuration or the accountant does not parse;
/// `CLASSAD_ERR_ARGUMENT` for more ads than 32-bit ids count.
///
/// # Safety
/// `slots` and `jobs` are `NULL` or live `classad_ad_list` handles; `config`
/// and `accountant` are `NULL` or point to `config_len` and `accountant_len`
/// readable bytes; `out` is `NULL` or valid for writing a pointer.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn classad_living_pool_new(
    slots: *const classad_ad_list,
    jobs: *const classad_ad_list,
    config: *const c_char,
    config_len: usize,
    accountant: *const c_char,
    accountant_len: usize,
    now: i64,
    out: *mut *mut classad_living_pool,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on every argument.
        let (out, slots, jobs, config, accountant) = unsafe {
            (
                out_handle(out, "out")?,
                handle(slots, "slots")?,
                handle(jobs, "jobs")?,
                opt_text(config, config_len, "config")?,
                opt_text(accountant, accountant_len, "accountant")?,
            )
        };
        check_count(&slots.ads, "slots")?;
        check_count(&jobs.ads, "jobs")?;
        let knobs = knobs_of(config)?;
        let accounts = accounts_of(accountant, &knobs, now)?;
        let pool = LivingPool::new(&slots.ads, &jobs.ads, knobs, accounts, now);
        out.set(new_handle(classad_living_pool { pool, last: None }));
        Ok(())
    })
}

/// Adds job `ad` to `pool`'s queue (the pool shares the ad; the handle stays
/// the caller's to free): its id in `*id_out`, which is also its place in the
/// queue's order (the id of a job removed, if any, else after every other).
/// The next cycle classifies it.
///
/// # Safety
/// `pool` is `NULL` or a live `classad_living_pool` handle used by no other
/// call at the same time; `ad` is `NULL` or a live `classad_ad` handle;
/// `id_out` is `NULL` or valid for writing a `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn classad_living_pool_add_job(
    pool: *mut classad_living_pool,
    ad: *const classad_ad,
    id_out: *mut u32,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `id_out`, `pool` and `ad`.
        let (id_out, pool, ad) = unsafe {
            (
                out_value(id_out, "id_out")?,
                handle_mut(pool, "pool")?,
                handle(ad, "ad")?,
            )
        };
        check_room(pool.pool.job_count(), "job")?;
        id_out.set(pool.pool.add_job(ad.ad.clone()));
        Ok(())
    })
}

/// Job `id` of `pool` becomes `ad` (the pool shares the ad; the handle stays
/// the caller's to free), keeping its id and its place in the queue: what
/// changes when a job's ad does (its status, its attributes edited). The next
/// cycle classifies it again. `CLASSAD_ERR_ARGUMENT` when no job has `id`.
///
/// # Safety
/// `pool` is `NULL` or a live `classad_living_pool` handle used by no other
/// call at the same time; `ad` is `NULL` or a live `classad_ad` handle.
#[no_mangle]
pub unsafe extern "C" fn classad_living_pool_update_job(
    pool: *mut classad_living_pool,
    id: u32,
    ad: *const classad_ad,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `pool` and `ad`.
        let (pool, ad) = unsafe { (handle_mut(pool, "pool")?, handle(ad, "ad")?) };
        pool.pool
            .update_job(id, ad.ad.clone())
            .map_err(|e| unknown("job", e))
    })
}

/// Removes job `id` from `pool` (a job that left the queue or runs now); its
/// id is given to the next job added. `CLASSAD_ERR_ARGUMENT` when no job has
/// `id`.
///
/// # Safety
/// `pool` is `NULL` or a live `classad_living_pool` handle used by no other
/// call at the same time.
#[no_mangle]
pub unsafe extern "C" fn classad_living_pool_remove_job(
    pool: *mut classad_living_pool,
    id: u32,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantee on `pool`.
        let pool = unsafe { handle_mut(pool, "pool")? };
        pool.pool.remove_job(id).map_err(|e| unknown("job", e))?;
        Ok(())
    })
}

/// Adds slot `ad` to `pool` (the pool shares the ad; the handle stays the
/// caller's to free): its id in `*id_out`, which is also its place in the
/// pool's order (the id of a slot removed, if any, else after every other).
/// The next cycle matches it against every class of jobs.
///
/// # Safety
/// `pool` is `NULL` or a live `classad_living_pool` handle used by no other
/// call at the same time; `ad` is `NULL` or a live `classad_ad` handle;
/// `id_out` is `NULL` or valid for writing a `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn classad_living_pool_add_slot(
    pool: *mut classad_living_pool,
    ad: *const classad_ad,
    id_out: *mut u32,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `id_out`, `pool` and `ad`.
        let (id_out, pool, ad) = unsafe {
            (
                out_value(id_out, "id_out")?,
                handle_mut(pool, "pool")?,
                handle(ad, "ad")?,
            )
        };
        check_room(pool.pool.slot_count(), "slot")?;
        id_out.set(pool.pool.add_slot(ad.ad.clone()));
        Ok(())
    })
}

/// Slot `id` of `pool` becomes `ad` (the pool shares the ad; the handle stays
/// the caller's to free), keeping its id and its place in the pool: what
/// changes when the startd sends the slot's ad again (claimed, released, its
/// resources changed). The next cycle matches it again against every class.
/// `CLASSAD_ERR_ARGUMENT` when no slot has `id`.
///
/// # Safety
/// `pool` is `NULL` or a live `classad_living_pool` handle used by no other
/// call at the same time; `ad` is `NULL` or a live `classad_ad` handle.
#[no_mangle]
pub unsafe extern "C" fn classad_living_pool_update_slot(
    pool: *mut classad_living_pool,
    id: u32,
    ad: *const classad_ad,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `pool` and `ad`.
        let (pool, ad) = unsafe { (handle_mut(pool, "pool")?, handle(ad, "ad")?) };
        pool.pool
            .update_slot(id, ad.ad.clone())
            .map_err(|e| unknown("slot", e))
    })
}

/// Removes slot `id` from `pool` (its startd left the pool); its id is given
/// to the next slot added. `CLASSAD_ERR_ARGUMENT` when no slot has `id`.
///
/// # Safety
/// `pool` is `NULL` or a live `classad_living_pool` handle used by no other
/// call at the same time.
#[no_mangle]
pub unsafe extern "C" fn classad_living_pool_remove_slot(
    pool: *mut classad_living_pool,
    id: u32,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantee on `pool`.
        let pool = unsafe { handle_mut(pool, "pool")? };
        pool.pool.remove_slot(id).map_err(|e| unknown("slot", e))?;
        Ok(())
    })
}

/// Moves `pool`'s clock to `now` (seconds since the epoch): the next cycle's
/// accountant update ages the priorities and charges usage up to it, and
/// expressions reading the time read it.
///
/// # Safety
/// `pool` is `NULL` or a live `classad_living_pool` handle used by no other
/// call at the same time.
#[no_mangle]
pub unsafe extern "C" fn classad_living_pool_advance_to(
    pool: *mut classad_living_pool,
    now: i64,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantee on `pool`.
        let pool = unsafe { handle_mut(pool, "pool")? };
        pool.pool.advance_to(now);
        Ok(())
    })
}

/// `pool`'s clock (seconds since the epoch), in `*out`.
///
/// # Safety
/// `pool` is `NULL` or a live `classad_living_pool` handle that no other call
/// changes at the same time; `out` is `NULL` or valid for writing an
/// `int64_t`.
#[no_mangle]
pub unsafe extern "C" fn classad_living_pool_now(
    pool: *const classad_living_pool,
    out: *mut i64,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out` and `pool`.
        let (out, pool) = unsafe { (out_value(out, "out")?, handle(pool, "pool")?) };
        out.set(pool.pool.now());
        Ok(())
    })
}

/// How many jobs `pool` holds, in `*jobs_out`, and how many slots, in
/// `*slots_out`.
///
/// # Safety
/// `pool` is `NULL` or a live `classad_living_pool` handle that no other call
/// changes at the same time; `jobs_out` and `slots_out` are `NULL` or valid
/// for writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn classad_living_pool_size(
    pool: *const classad_living_pool,
    jobs_out: *mut usize,
    slots_out: *mut usize,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on the outputs and `pool`.
        let (jobs_out, slots_out, pool) = unsafe {
            (
                out_value(jobs_out, "jobs_out")?,
                out_value(slots_out, "slots_out")?,
                handle(pool, "pool")?,
            )
        };
        jobs_out.set(pool.pool.job_count());
        slots_out.set(pool.pool.slot_count());
        Ok(())
    })
}

/// One negotiation cycle of `pool` at its clock, as `classad_negotiate` runs it
/// on the same ads in id order, with the accountant's state: the accountant's
/// update, the cycle, and its matches charged to the accountant. The matches,
/// in the order made, as new pairs in `*matches_out`, job and slot ids of the
/// pool (freed with `classad_pairs_free`); what the cycle worked out again in
/// `*work_out`, unless `work_out` is `NULL`. The pool's jobs and slots are
/// left as they were: `classad_living_pool_apply_matches` makes the matches
/// into claims as HTCondor's schedd and startd make them, or the caller
/// tells the pool what they changed before the next cycle.
///
/// # Safety
/// `pool` is `NULL` or a live `classad_living_pool` handle used by no other
/// call at the same time; `matches_out` is `NULL` or valid for writing a
/// pointer; `work_out` is `NULL` or valid for writing a
/// `classad_living_work`.
#[no_mangle]
pub unsafe extern "C" fn classad_living_pool_cycle(
    pool: *mut classad_living_pool,
    matches_out: *mut *mut classad_pairs,
    work_out: *mut classad_living_work,
) -> classad_status {
    guard(|| {
        // The outputs are checked before the cycle runs: a cycle changes the
        // accountant, so one whose matches could not be handed out would be
        // lost.
        // SAFETY: the caller's guarantees on the outputs and `pool`.
        let (matches_out, work_out, pool) = unsafe {
            (
                out_handle(matches_out, "matches_out")?,
                if work_out.is_null() {
                    None
                } else {
                    Some(out_value(work_out, "work_out")?)
                },
                handle_mut(pool, "pool")?,
            )
        };
        let cycle = in_workers(|| pool.pool.cycle());
        let matches = &cycle.outcome.matches;
        let pairs = classad_pairs {
            jobs: matches.iter().map(|m| m.job).collect(),
            slots: matches.iter().map(|m| m.slot).collect(),
        };
        matches_out.set(new_handle(pairs));
        if let Some(w) = work_out {
            w.set(classad_living_work::from(&cycle.work));
        }
        pool.last = Some(cycle.outcome);
        Ok(())
    })
}

/// Makes the last cycle's matches into claims, once, as HTCondor's schedd
/// and startd make them before the next cycle: a static slot claimed by its
/// job, which runs; a partitionable slot carved into a new dynamic slot for
/// it; the job a preempting match's slot ran evicted back to idle. New pairs
/// in each output (freed with `classad_pairs_free`): `*started_out` (job,
/// slot it runs on: a dynamic slot carved is a new slot id), `*evicted_out`
/// (job evicted, slot; the job `UINT32_MAX` when no job of the pool is the
/// one the claim ran) and `*refused_out` (job, slot) for the matches that
/// could no longer be made (the job gone or no longer idle, the slot gone
/// or claimed since, a partitionable slot no longer holding the request:
/// the job stays as it is). Before the first cycle, or applied already,
/// there are no matches to apply: three empty lists.
///
/// # Safety
/// `pool` is `NULL` or a live `classad_living_pool` handle used by no other
/// call at the same time; each output is `NULL` or valid for writing a
/// pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_living_pool_apply_matches(
    pool: *mut classad_living_pool,
    started_out: *mut *mut classad_pairs,
    evicted_out: *mut *mut classad_pairs,
    refused_out: *mut *mut classad_pairs,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on the outputs and `pool`.
        let (started_out, evicted_out, refused_out, pool) = unsafe {
            (
                out_handle(started_out, "started_out")?,
                out_handle(evicted_out, "evicted_out")?,
                out_handle(refused_out, "refused_out")?,
                handle_mut(pool, "pool")?,
            )
        };
        let applied = match pool.last.take() {
            Some(outcome) => pool.pool.apply_matches(&outcome),
            None => Applied::default(),
        };
        let pairs = |v: Vec<(u32, u32)>| classad_pairs {
            jobs: v.iter().map(|p| p.0).collect(),
            slots: v.iter().map(|p| p.1).collect(),
        };
        let started = applied.started.iter().map(|s| (s.job, s.slot)).collect();
        let evicted = applied.evicted.iter();
        let evicted = evicted
            .map(|e| (e.job.unwrap_or(u32::MAX), e.slot))
            .collect();
        let refused = applied.refused.iter().map(|r| (r.job, r.slot)).collect();
        started_out.set(new_handle(pairs(started)));
        evicted_out.set(new_handle(pairs(evicted)));
        refused_out.set(new_handle(pairs(refused)));
        Ok(())
    })
}

/// Slot `slot` of `pool`'s claim ends, as when the startd releases it: the
/// slot freed (a static slot Unclaimed again; a dynamic slot deleted, its
/// resources back in its partitionable slot) and the job it ran, when the
/// pool has it, evicted back to idle. The slot freed (the static slot, or
/// the partitionable slot) in `*freed_out`, the dynamic slot deleted in
/// `*deleted_out` and the job evicted in `*evicted_out`, each `UINT32_MAX`
/// when there is none (all three for a slot that is not claimed); any output
/// may be `NULL`. `CLASSAD_ERR_ARGUMENT` when no slot has `slot`.
///
/// # Safety
/// `pool` is `NULL` or a live `classad_living_pool` handle used by no other
/// call at the same time; each output is `NULL` or valid for writing a
/// `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn classad_living_pool_release_claim(
    pool: *mut classad_living_pool,
    slot: u32,
    freed_out: *mut u32,
    deleted_out: *mut u32,
    evicted_out: *mut u32,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `pool`.
        let pool = unsafe { handle_mut(pool, "pool")? };
        let r = pool
            .pool
            .release_claim(slot)
            .map_err(|e| unknown("slot", e))?;
        let outs = [
            (freed_out, r.freed),
            (deleted_out, r.deleted),
            (evicted_out, r.evicted),
        ];
        // SAFETY: the caller's guarantee: a non-NULL output is valid for
        // writing a `uint32_t`.
        unsafe { write_ids(&outs) };
        Ok(())
    })
}

/// Writes each id (`UINT32_MAX` for none) to its output, when not `NULL`.
///
/// # Safety
/// Each output is `NULL` or valid for writing a `uint32_t`.
unsafe fn write_ids(outs: &[(*mut u32, Option<u32>)]) {
    for &(out, v) in outs {
        if !out.is_null() {
            // SAFETY: the caller's guarantee.
            unsafe { out.write(v.unwrap_or(u32::MAX)) };
        }
    }
}

/// Job `id` of `pool` ends: it leaves the queue and its claim is freed (a
/// static slot Unclaimed again; a dynamic slot deleted, its resources back in
/// its partitionable slot). The slot freed (the static slot, or the
/// partitionable slot) in `*freed_out` and the dynamic slot deleted in
/// `*deleted_out`, each `UINT32_MAX` when there is none (a job that ran
/// nowhere in the pool frees nothing); either output may be `NULL`.
/// `CLASSAD_ERR_ARGUMENT` when no job has `id`.
///
/// # Safety
/// `pool` is `NULL` or a live `classad_living_pool` handle used by no other
/// call at the same time; `freed_out` and `deleted_out` are `NULL` or valid
/// for writing a `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn classad_living_pool_end_job(
    pool: *mut classad_living_pool,
    id: u32,
    freed_out: *mut u32,
    deleted_out: *mut u32,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `pool`.
        let pool = unsafe { handle_mut(pool, "pool")? };
        let ended = pool.pool.end_job(id).map_err(|e| unknown("job", e))?;
        // SAFETY: the caller's guarantee: a non-NULL output is valid for
        // writing a `uint32_t`.
        unsafe { write_ids(&[(freed_out, ended.freed), (deleted_out, ended.deleted)]) };
        Ok(())
    })
}

/// The accountant's state of `pool`, as the last cycle left it (or as it was
/// given, before any), as a new string in `*out`: the `condor_userprio -l`
/// layout with the usage and claims a later run needs, which
/// `classad_living_pool_new` (and `classad negotiate --accountant`) reads
/// back to carry on where this pool is. A submitter without a priority factor
/// of its own is written with the configuration's default.
///
/// # Safety
/// `pool` is `NULL` or a live `classad_living_pool` handle that no other call
/// changes at the same time; `out` is `NULL` or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_living_pool_accountant(
    pool: *const classad_living_pool,
    out: *mut *mut classad_string,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out` and `pool`.
        let (out, pool) = unsafe { (out_handle(out, "out")?, handle(pool, "pool")?) };
        let knobs = pool.pool.knobs();
        let text = pool
            .pool
            .accounts()
            .to_userprio(|name| knobs.default_prio_factor_of(name));
        out.set(new_handle(classad_string::new(text)));
        Ok(())
    })
}

/// Frees a living pool; `NULL` is ignored. Ads given to it stay valid.
///
/// # Safety
/// `pool` is `NULL` or a live `classad_living_pool` handle, not used after
/// this (nor by a call still running).
#[no_mangle]
pub unsafe extern "C" fn classad_living_pool_free(pool: *mut classad_living_pool) {
    guard_value((), || {
        // SAFETY: the caller's guarantee on `pool`.
        unsafe { free_handle(pool) };
        Ok(())
    })
}

/// A living pool moves between threads between calls (one call at a time),
/// checked at compile time.
const _: () = {
    const fn movable<T: Send>() {}
    movable::<classad_living_pool>();
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::parse_ads;
    use crate::boundary::with_last_error;

    fn list(text: &str) -> classad_ad_list {
        classad_ad_list {
            ads: parse_ads(text, None).unwrap(),
        }
    }

    fn last_error() -> String {
        with_last_error(|e| e.to_str().unwrap().to_string()).unwrap()
    }

    #[test]
    fn unknown_ids_are_refused_by_name_and_a_cycle_is_not_run_without_its_output() {
        let slots = list("Name = \"slot1@a\"\nCpus = 1\nRequirements = true\n");
        let jobs = list("Owner = \"alice\"\nRequirements = true\n");
        let mut pool = std::ptr::null_mut();
        // SAFETY: every pointer is a live handle of its type, or null.
        unsafe {
            let s = classad_living_pool_new(
                &slots,
                &jobs,
                std::ptr::null(),
                0,
                std::ptr::null(),
                0,
                0,
                &mut pool,
            );
            assert_eq!(s, CLASSAD_OK);
            assert_eq!(
                classad_living_pool_remove_job(pool, 7),
                CLASSAD_ERR_ARGUMENT
            );
            assert_eq!(last_error(), "no job has id 7");
            assert_eq!(
                classad_living_pool_remove_slot(pool, 1),
                CLASSAD_ERR_ARGUMENT
            );
            assert_eq!(last_error(), "no slot has id 1");
            let s = classad_living_pool_cycle(pool, std::ptr::null_mut(), std::ptr::null_mut());
            assert_eq!(s, CLASSAD_ERR_NULL);
            // The cycle refused above charged nothing: the first cycle that
            // runs makes the match.
            let mut pairs = std::ptr::null_mut();
            let mut work = classad_living_work::default();
            assert_eq!(
                classad_living_pool_cycle(pool, &mut pairs, &mut work),
                CLASSAD_OK
            );
            assert_eq!((*pairs).jobs, [0]);
            assert_eq!((*pairs).slots, [0]);
            assert!(work.rebuilt);
            crate::output::classad_pairs_free(pairs);
            classad_living_pool_free(pool);
        }
    }

    #[test]
    fn the_accountant_reads_either_layout_and_refuses_the_table() {
        let knobs = CycleKnobs::default();
        let plain = accounts_of(Some("alice@a 2.5 100\n"), &knobs, 10).unwrap();
        assert_eq!(plain.record("alice@a").unwrap().priority, 2.5);
        assert_eq!(plain.last_update_time, 10);
        let written = plain.to_userprio(|n| knobs.default_prio_factor_of(n));
        let back = accounts_of(Some(&written), &knobs, 99).unwrap();
        assert_eq!(back.record("alice@a").unwrap().priority, 2.5);
        assert_eq!(back.last_update_time, 10, "the text's LastUpdate");
        let table = "Last Priority Update:  1/1  00:00\n";
        let e = accounts_of(Some(table), &knobs, 0).unwrap_err();
        assert_eq!(e.status, CLASSAD_ERR_PARSE);
        assert!(e.message.starts_with("<accountant>:1:"), "{}", e.message);
        assert!(accounts_of(None, &knobs, 5)
            .unwrap()
            .records()
            .next()
            .is_none());
    }
}
