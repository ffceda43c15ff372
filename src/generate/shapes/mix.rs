//! The mix: every ad holds every family's attributes and takes its policy from one
//! family drawn at random, the benchmark pool's constant shape (condor_submit's
//! and the startd's defaults) among them, so that a pool's programs are of every
//! shape at once.

use super::base::{Job, Slot};
use super::text::AdText;
use super::{
    glidein, lists, plain, records, start_arithmetic, strings, target_arithmetic, target_pairs, Rng,
};

/// A job: every family's job attributes, one family's Requirements and Rank.
pub(super) fn job(r: &mut Rng, job: &Job, w: &mut AdText) {
    lists::job_attrs(r, job, w, false);
    records::job_attrs(r, job, w);
    glidein::job_attrs(r, job, w);
    match r.below(7) {
        0 => plain::submit_job_policy(r, job, w),
        1 => target_arithmetic::job_policy(r, job, w),
        2 => target_pairs::job_policy(r, job, w),
        3 => lists::job_policy(r, job, w),
        4 => records::job_policy(r, job, w),
        5 => strings::job_policy(r, job, w),
        _ => glidein::job_policy(r, job, w),
    }
}

/// A slot: every family's slot attributes, one family's START, Requirements and
/// Rank.
pub(super) fn slot(r: &mut Rng, slot: &Slot, w: &mut AdText) {
    lists::slot_attrs(r, slot, w);
    records::slot_attrs(r, slot, w);
    glidein::slot_attrs(r, slot, w);
    match r.below(7) {
        0 => plain::startd_slot_policy(r, slot, w),
        1 => start_arithmetic::slot_policy(r, slot, w),
        2 => target_pairs::slot_policy(r, slot, w),
        3 => lists::slot_policy(r, slot, w),
        4 => records::slot_policy(r, slot, w),
        5 => strings::slot_policy(r, slot, w),
        _ => glidein::slot_policy(r, slot, w),
    }
}
