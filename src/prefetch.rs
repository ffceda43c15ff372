//! A hint to the processor to bring memory into the cache ahead of use.
//!
//! Passes over a large queue (a million job ads, each its own few kilobytes) wait
//! on memory rather than compute: each job's attributes are a cache miss away.
//! Asking for the jobs a few places ahead lets those misses overlap instead of
//! coming one after another.

/// Asks for the cache line holding `*value` to be fetched; no effect on what
/// the program computes, and none at all off x86-64 (or under Miri).
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: `_mm_prefetch` is a hint: it reads nothing the program can see and
    // cannot fault, whatever the address; this one comes from a live reference.
    // The intrinsic is `unsafe` only for its target feature, SSE, which every
    // x86-64 processor has. Measured: clustering a million-job queue (see
    // docs/benchmarks-history.md).
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>());
    }
    #[cfg(any(not(target_arch = "x86_64"), miri))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::prefetch;

    #[test]
    fn prefetching_changes_nothing() {
        // Under Miri the intrinsic is not run; elsewhere, values stay as they were.
        let v: Vec<u64> = (0..1024).collect();
        for x in &v {
            prefetch(x);
        }
        prefetch(&v);
        assert_eq!(v.iter().sum::<u64>(), 1023 * 1024 / 2);
    }
}
