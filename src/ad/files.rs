//! Ad files as the commands read them: gzip or not (the first bytes say), `-`
//! for standard input, in parts on every core; errors name the file. Also what
//! the bindings use, so that a file read through them costs what it costs the
//! command line.

use super::parts::{read_ads_in_parts, PartsError, PART_BYTES};
use super::{ClassAd, ReadLimits};
use std::io::{BufRead, BufReader};

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
pub fn display_name(path: &str) -> &str {
    if path == "-" {
        "<stdin>"
    } else {
        path
    }
}

/// Reads the ads of `reader` in parts on every core ([`read_ads_in_parts`]):
/// `map` each part on any thread, then `sink` the results in file order. `file`
/// names the input in errors. The caller keeps what it is given: the input is
/// bounded by [`ReadLimits::configured`]'s `max_input_bytes`.
pub fn read_reader_in_parts<T: Send>(
    reader: impl BufRead + Send,
    file: &str,
    map: impl Fn(Vec<ClassAd>) -> T + Sync,
    mut sink: impl FnMut(T),
) -> Result<(), String> {
    let sink = |part: T| {
        sink(part);
        Ok::<(), std::convert::Infallible>(())
    };
    match read_ads_in_parts(
        reader,
        file,
        ReadLimits::configured(),
        PART_BYTES,
        map,
        sink,
    ) {
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

/// Every ad of the file `path`, read in parts on every core (any syntax; gzip
/// or not): the error names the file, line and column.
pub fn read_ad_file(path: &str) -> Result<Vec<ClassAd>, String> {
    let mut ads = Vec::new();
    read_in_parts(path, |part| part, |part| ads.extend(part))?;
    Ok(ads)
}
