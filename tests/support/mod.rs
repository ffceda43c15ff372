//! Running the `classad` binary from integration tests: input files written in a
//! directory of the test's own, and what a subcommand printed and exited with.

use std::path::PathBuf;
use std::process::Command;

/// A directory for one test's files (in the system's temporary directory, named
/// by the test and the process so that parallel runs do not meet), removed when
/// dropped.
pub struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

impl Scratch {
    /// The directory of test `name`, made if missing.
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("classad-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// Writes `text` to the file `name` in the directory; its path.
    pub fn write(&self, name: &str, text: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    }
}

/// What one run of the binary gave.
pub struct Ran {
    /// The exit code (`None`: killed by a signal).
    pub code: Option<i32>,
    /// Standard output.
    pub out: String,
    /// Standard error.
    pub err: String,
}

/// Runs `classad <command> <args>` and waits for it.
pub fn classad(command: &str, args: &[&str]) -> Ran {
    let o = Command::new(env!("CARGO_BIN_EXE_classad"))
        .arg(command)
        .args(args)
        .output()
        .unwrap();
    Ran {
        code: o.status.code(),
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}
