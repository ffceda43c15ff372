//! The worker threads of a command's `--threads`.

use super::Failure;
use crate::limits::MAX_THREADS;

/// The threads of `--threads` (default: every core), at most
/// [`MAX_THREADS`]: a larger number is refused before any thread starts.
pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool, Failure> {
    let threads = match threads {
        Some(0) => return Err(Failure::Message("--threads must be at least 1".into())),
        Some(n) if n > MAX_THREADS => {
            let what = format!("--threads {n}: at most {MAX_THREADS}");
            return Err(Failure::Message(what));
        }
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Failure::Message(format!("cannot start {threads} threads: {e}")))
}
