//! Reading ad files for the commands, with errors that name the file, and what a
//! failed write to standard output means.

use super::Failure;
pub use crate::ad::files::{open_input, read_in_parts, read_reader_in_parts};
use crate::ad::stream::LineProblem;
use crate::ad::{ClassAd, ReadLimits};
use std::sync::Arc;

/// Reads every ad of `path` (`-` is standard input), in parts on every core
/// under the configured [`ReadLimits`] (old syntax is never held whole as text):
/// input that is not text or not ads fails at its first bad line.
pub fn load_ads(path: &str) -> Result<Vec<ClassAd>, String> {
    crate::ad::files::read_ad_file(path)
}

/// The text of a small file the command reads whole (a configuration, the
/// priorities), at most [`ReadLimits::max_held_bytes`] of it: past that, an error
/// rather than reading on.
pub fn read_text_file(path: &str) -> Result<String, String> {
    use std::io::Read;
    let max = ReadLimits::configured().max_held_bytes;
    let file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let mut bytes = Vec::new();
    file.take(max as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{path}: {e}"))?;
    if bytes.len() > max {
        return Err(format!("{path}: {}", LineProblem::HeldTooLong(max)));
    }
    String::from_utf8(bytes).map_err(|e| format!("{path}: not UTF-8 text: {e}"))
}

/// Reads a file that must hold exactly one ad.
pub fn load_one_ad(path: &str) -> Result<Arc<ClassAd>, String> {
    let mut ads = load_ads(path)?;
    match ads.len() {
        1 => Ok(Arc::new(ads.remove(0))),
        0 => Err(format!("{path}: no ad in the file")),
        n => Err(format!("{path}: expected one ad, found {n}")),
    }
}

/// Refuses inputs of which more than one is standard input (`-`): the first to
/// be read would take all of it and the others none, silently. `inputs` are
/// each option (as the user spells it) with its file, if given.
pub fn one_standard_input(inputs: &[(&str, Option<&str>)]) -> Result<(), String> {
    let from_stdin: Vec<&str> = inputs
        .iter()
        .filter(|(_, file)| *file == Some("-"))
        .map(|(option, _)| *option)
        .collect();
    match from_stdin[..] {
        [] | [_] => Ok(()),
        [ref first @ .., last] => Err(format!(
            "{} and {last} both read standard input (`-`): it can feed only one of \
             them; give the others as files",
            first.join(", ")
        )),
    }
}

/// Writes `line` and a newline to standard error. A standard error that cannot
/// be written (its reader gone, a full disk) ends the command with failure and
/// nothing said ([`Failure::StderrFailed`]), rather than the panic of
/// `eprintln!`.
pub fn to_stderr(line: &str) -> Result<(), Failure> {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    err.write_all(line.as_bytes())
        .and_then(|_| err.write_all(b"\n"))
        .and_then(|_| err.flush())
        .map_err(|_| Failure::StderrFailed)
}

/// A failed write to standard output: a reader that went away (`classad ... |
/// head`) ends the command quietly, as it ends Unix tools; anything else is an
/// error.
pub fn output_error(e: std::io::Error) -> Failure {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Failure::OutputClosed
    } else {
        Failure::Message(format!("standard output: {e}"))
    }
}
