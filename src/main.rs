//! The `classad` command.

/// mimalloc rather than the system allocator: reading a large queue on several
/// threads allocates and frees small blocks at a rate where glibc's allocator
/// spends a fifth of the time (see docs/benchmarks-history.md, "Batch matching"). Built
/// without transparent huge pages (Cargo.toml says why).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::Write;

fn main() -> std::process::ExitCode {
    // The memory budget of evaluations (see `classad::limits`), before anything is
    // compiled, and the bounds of reading input (`classad::ad::stream::ReadLimits`),
    // from the environment.
    let applied = classad::limits::apply_env().and_then(|_| classad::ad::stream::apply_env());
    if let Err(e) = applied {
        // A standard error that cannot be written leaves only the exit status.
        let _ = writeln!(std::io::stderr(), "classad: {e}");
        return std::process::ExitCode::from(2);
    }
    classad::cli::main()
}
