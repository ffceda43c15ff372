//! The `classad` command.

fn main() -> std::process::ExitCode {
    classad::cli::main()
}
