//! A count of reads of an ad document (or of the clock or chance) on this
//! thread: what tells an evaluation that read nothing of its ad (see
//! [`crate::eval::independent`]).

use std::cell::Cell;

thread_local! {
    static AD_READS: Cell<u64> = const { Cell::new(0) };
}

/// Counts one read of an ad document, or of the clock or chance (see the module).
pub fn note_ad_read() {
    AD_READS.with(|c| c.set(c.get().wrapping_add(1)));
}

/// How many reads this thread has counted so far.
pub fn ad_reads() -> u64 {
    AD_READS.with(Cell::get)
}
