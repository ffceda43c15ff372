//! The threads the batch calls run on: rayon's global pool (one thread per
//! core, or `RAYON_NUM_THREADS`), unless `classad_set_threads` chose a number.

use crate::boundary::*;
use std::sync::{Arc, Mutex};

/// The most threads `classad_set_threads` takes: 1024, the library's
/// `classad::limits::MAX_THREADS`, which the command line's `--threads` and the
/// Python module take too. More is refused at once.
pub const CLASSAD_MAX_THREADS: usize = 1024;

// cbindgen writes the number itself into the header, so the constant is
// spelled out here and held to the library's.
const _: () = assert!(CLASSAD_MAX_THREADS == classad::limits::MAX_THREADS);

/// The workers `classad_set_threads` made, when it did.
static WORKERS: Mutex<Option<Arc<rayon::ThreadPool>>> = Mutex::new(None);

/// Runs `f` on the chosen workers (the library's parallel loops inside it use
/// them), or as is when none were chosen.
pub(crate) fn in_workers<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    let workers = WORKERS.lock().ok().and_then(|w| w.clone());
    match workers {
        Some(w) => w.install(f),
        None => f(),
    }
}

/// Sets how many threads the calls that work in parallel (pools compiled and
/// matched, all pairs, match counts, negotiation, large texts parsed) use from
/// now on: `n` threads, or rayon's default when `n` is 0 (one per core, or
/// `RAYON_NUM_THREADS`). A call already running keeps the threads it started
/// with. `CLASSAD_ERR_ARGUMENT`, with nothing changed, when `n` is more than
/// `CLASSAD_MAX_THREADS` (1024; refused at once, before any thread starts) or
/// the threads cannot be started.
#[no_mangle]
pub extern "C" fn classad_set_threads(n: usize) -> classad_status {
    guard(|| {
        if n > CLASSAD_MAX_THREADS {
            return Err(Failure::new(
                CLASSAD_ERR_ARGUMENT,
                format!("classad_set_threads({n}): at most CLASSAD_MAX_THREADS ({CLASSAD_MAX_THREADS}) threads"),
            ));
        }
        let workers = if n == 0 {
            None
        } else {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .thread_name(|i| format!("classad-{i}"))
                .build()
                .map_err(|e| Failure::new(CLASSAD_ERR_ARGUMENT, format!("{n} threads: {e}")))?;
            Some(Arc::new(pool))
        };
        let mut slot = WORKERS
            .lock()
            .map_err(|_| Failure::new(CLASSAD_ERR_PANIC, "the threads' lock is poisoned"))?;
        *slot = workers;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boundary::with_last_error;

    #[test]
    fn more_threads_than_the_bound_are_refused() {
        for n in [CLASSAD_MAX_THREADS + 1, usize::MAX] {
            assert_eq!(classad_set_threads(n), CLASSAD_ERR_ARGUMENT, "{n}");
            let msg = with_last_error(|e| e.to_str().unwrap().to_string()).unwrap();
            assert_eq!(
                msg,
                format!("classad_set_threads({n}): at most CLASSAD_MAX_THREADS (1024) threads")
            );
        }
        assert!(WORKERS.lock().unwrap().is_none(), "nothing was changed");
    }
}
