//! The `classad` command.

fn main() -> std::process::ExitCode {
    // The memory budget of evaluations (see `classad::limits`), before anything is
    // compiled.
    if let Err(e) = classad::limits::apply_env() {
        eprintln!("classad: {e}");
        return std::process::ExitCode::from(2);
    }
    classad::cli::main()
}
