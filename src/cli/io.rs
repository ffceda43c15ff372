//! Reading ad files for the commands, with errors that name the file, and what a
//! failed write to standard output means.

use super::Failure;
use crate::ad::parts::{read_ads_in_parts, PartsError, PART_BYTES};
use crate::ad::{read_ads_from, ClassAd, ReadLimits};
use std::io::{BufRead, BufReader};
use std::sync::Arc;

/// The input at `path` (`-` is standard input) with a buffer of `capacity`,
/// uncompressed on the way when it is gzip (its first bytes say so): pool dumps
/// are often kept compressed.
pub fn open_input(path: &str, capacity: usize) -> Result<Box<dyn BufRead + Send>, String> {
    let mut input: Box<dyn BufRead + Send> = if path == "-" {
        Box::new(BufReader::with_capacity(capacity, std::io::stdin()))
    } else {
        let file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
        Box::new(BufReader::with_capacity(capacity, file))
    };
    let head = input.fill_buf().map_err(|e| format!("{path}: {e}"))?;
    if head.starts_with(&[0x1f, 0x8b]) {
        let gz = flate2::bufread::MultiGzDecoder::new(input);
        return Ok(Box::new(BufReader::with_capacity(capacity, gz)));
    }
    Ok(input)
}

/// The name of `path` in messages.
fn display_name(path: &str) -> &str {
    if path == "-" {
        "<stdin>"
    } else {
        path
    }
}

/// Reads the ads of `reader` in parts on every core ([`read_ads_in_parts`]):
/// `map` each part on any thread, then `sink` the results in file order. `file`
/// names the input in errors.
pub fn read_reader_in_parts<T: Send>(
    reader: impl std::io::BufRead + Send,
    file: &str,
    map: impl Fn(Vec<ClassAd>) -> T + Sync,
    mut sink: impl FnMut(T),
) -> Result<(), String> {
    let sink = |part: T| {
        sink(part);
        Ok::<(), std::convert::Infallible>(())
    };
    match read_ads_in_parts(reader, file, ReadLimits::default(), PART_BYTES, map, sink) {
        Ok(()) => Ok(()),
        Err(PartsError::Read(e)) => Err(e.to_string()),
        Err(PartsError::Sink(never)) => match never {},
    }
}

/// [`read_reader_in_parts`] of the file `path` (`-` is standard input).
pub fn read_in_parts<T: Send>(
    path: &str,
    map: impl Fn(Vec<ClassAd>) -> T + Sync,
    sink: impl FnMut(T),
) -> Result<(), String> {
    let input = open_input(path, 1 << 20)?;
    read_reader_in_parts(input, display_name(path), map, sink)
}

/// Reads every ad of `path` (`-` is standard input), a buffer at a time under the
/// default [`ReadLimits`]: input that is not text or not ads fails at its first bad
/// line.
pub fn load_ads(path: &str) -> Result<Vec<ClassAd>, String> {
    let input = open_input(path, 1 << 16)?;
    read_ads_from(input, display_name(path), ReadLimits::default()).map_err(|e| e.to_string())
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
