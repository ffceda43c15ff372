//! Reading a large file of ads a part at a time, on every core: the stream is cut
//! at empty lines (old syntax, where an empty line always ends an ad) into parts
//! of some megabytes, a batch of parts is parsed in parallel, and each part's ads
//! are handed over in file order and can be dropped before the next batch is read.
//! A 2 GB queue is never held whole, and errors name the file, line and column as
//! reading it whole would.

use super::classad::ClassAd;
use super::read::{read_ads_as, Format, ReadError};
use super::stream::{fault, read_head, LineProblem, ReadLimits};
use rayon::prelude::*;
use std::io::{BufRead, ErrorKind};

/// The size a part is cut at (at the next empty line after it).
pub const PART_BYTES: usize = 8 << 20;

/// Why [`read_ads_in_parts`] stopped: the input, or the consumer of the ads.
#[derive(Debug)]
pub enum PartsError<E> {
    /// The input could not be read as ads.
    Read(ReadError),
    /// The consumer's error.
    Sink(E),
}

/// One part of the stream: its text, as bytes not yet checked.
struct Part {
    bytes: Vec<u8>,
}

/// What reading one part gave: how many lines it has, and its ads mapped (or the
/// error, with lines counted from the part's start).
struct Parsed<T> {
    lines: usize,
    result: Result<T, ReadError>,
}

/// Reads every ad of `reader` (syntax detected as [`super::read_ads`] detects it;
/// `file` names it in errors), calling `map` on each part's ads on rayon's threads
/// and `sink` on the results in file order. Old syntax is read in parts of about
/// [`PART_BYTES`]; new syntax and JSON, which cannot be cut at empty lines, in one
/// part. The first lines are checked as [`super::read_ads_from`] checks them, so
/// input that is not ads fails at its first bad line.
///
/// ```
/// use classad::ad::parts::read_ads_in_parts;
/// use classad::ad::ReadLimits;
/// let mut counts = Vec::new();
/// let text = "A = 1\n\nA = 2\n\nA = 3\n";
/// read_ads_in_parts(text.as_bytes(), "f", ReadLimits::default(), 4, |ads| ads.len(), |n| {
///     counts.push(n);
///     Ok::<(), ()>(())
/// })
/// .unwrap();
/// assert_eq!(counts.iter().sum::<usize>(), 3);
/// ```
pub fn read_ads_in_parts<R, T, E>(
    reader: R,
    file: &str,
    limits: ReadLimits,
    part_bytes: usize,
    map: impl Fn(Vec<ClassAd>) -> T + Sync,
    mut sink: impl FnMut(T) -> Result<(), E>,
) -> Result<(), PartsError<E>>
where
    R: BufRead,
    T: Send,
{
    let head = read_head(reader, file, limits).map_err(PartsError::Read)?;
    if head.format != Some(Format::Old) || head.rest.is_none() {
        let (text, format) = head.read_all(file, limits).map_err(PartsError::Read)?;
        let ads = read_ads_as(&text, file, format).map_err(PartsError::Read)?;
        return sink(map(ads)).map_err(PartsError::Sink);
    }
    let (mut reader, _) = head.rest.expect("checked above");
    let mut buf = head.text.into_bytes();
    // Where the line still being read starts in `buf`, for the line length check.
    let mut line_start = memchr::memrchr(b'\n', &buf).map_or(0, |i| i + 1);
    let batch = 2 * rayon::current_num_threads().max(1);
    let mut lines_before = 0usize;
    let mut parts: Vec<Part> = Vec::new();
    let mut eof = false;
    while !eof || !buf.is_empty() || !parts.is_empty() {
        // Fill a batch of parts.
        while !eof && parts.len() < batch {
            let chunk = match reader.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => {
                    let err = read_fault(&buf, line_start, buf.len(), LineProblem::Io(e), file);
                    return flush_then(parts, err, file, &map, &mut sink, lines_before);
                }
            };
            if chunk.is_empty() {
                eof = true;
                break;
            }
            let from = buf.len();
            buf.extend_from_slice(chunk);
            let n = chunk.len();
            reader.consume(n);
            // A line can only be over the limit when what is held since the
            // first unfinished line is: then find which.
            if buf.len() - line_start > limits.max_line_bytes {
                if let Some(at) = first_long_line(&buf, line_start, limits.max_line_bytes) {
                    let problem = LineProblem::TooLong(limits.max_line_bytes);
                    let err = read_fault(&buf, at, at + limits.max_line_bytes, problem, file);
                    return flush_then(parts, err, file, &map, &mut sink, lines_before);
                }
            }
            if let Some(nl) = memchr::memrchr(b'\n', &buf[from..]) {
                line_start = from + nl + 1;
            }
            if buf.len() >= part_bytes {
                if let Some(cut) = memchr::memmem::rfind(&buf, b"\n\n") {
                    let rest = buf.split_off(cut + 2);
                    line_start -= cut + 2;
                    parts.push(Part {
                        bytes: std::mem::replace(&mut buf, rest),
                    });
                }
            }
        }
        if eof && !buf.is_empty() {
            parts.push(Part {
                bytes: std::mem::take(&mut buf),
            });
        }
        if parts.is_empty() {
            break;
        }
        let parsed: Vec<Parsed<T>> = std::mem::take(&mut parts)
            .into_par_iter()
            .map(|p| parse_part(p, file, &map))
            .collect();
        for p in parsed {
            match p.result {
                Ok(t) => sink(t).map_err(PartsError::Sink)?,
                Err(mut e) => {
                    e.line = e.line.saturating_add(lines_before as u32);
                    return Err(PartsError::Read(e));
                }
            }
            lines_before += p.lines;
        }
    }
    Ok(())
}

/// Parses the parts read so far (whose ads come before the error), then reports
/// the read error `err` (its line counted from the start of `buf`).
fn flush_then<T: Send, E>(
    parts: Vec<Part>,
    mut err: ReadError,
    file: &str,
    map: &(impl Fn(Vec<ClassAd>) -> T + Sync),
    sink: &mut impl FnMut(T) -> Result<(), E>,
    mut lines_before: usize,
) -> Result<(), PartsError<E>> {
    let parsed: Vec<Parsed<T>> = parts
        .into_par_iter()
        .map(|p| parse_part(p, file, map))
        .collect();
    for p in parsed {
        match p.result {
            Ok(t) => sink(t).map_err(PartsError::Sink)?,
            Err(mut e) => {
                e.line = e.line.saturating_add(lines_before as u32);
                return Err(PartsError::Read(e));
            }
        }
        lines_before += p.lines;
    }
    err.line = err.line.saturating_add(lines_before as u32);
    Err(PartsError::Read(err))
}

/// A problem at byte `at` of `buf`, on the line starting at `line_start`, with its
/// line counted from `buf`'s start (callers add the lines before).
fn read_fault(
    buf: &[u8],
    line_start: usize,
    at: usize,
    problem: LineProblem,
    file: &str,
) -> ReadError {
    fault(buf, 1, line_start, at.min(buf.len()), problem).in_file(file)
}

/// Where the first line longer than `max` bytes starts, looking from `from` (a
/// line start) to the end of `buf` (the last line may be unfinished).
fn first_long_line(buf: &[u8], from: usize, max: usize) -> Option<usize> {
    let mut start = from;
    for nl in memchr::memchr_iter(b'\n', &buf[from..]) {
        if from + nl - start > max {
            return Some(start);
        }
        start = from + nl + 1;
    }
    (buf.len() - start > max).then_some(start)
}

/// Checks and parses one part.
fn parse_part<T>(p: Part, file: &str, map: &impl Fn(Vec<ClassAd>) -> T) -> Parsed<T> {
    let lines = memchr::memchr_iter(b'\n', &p.bytes).count();
    let fail = |bytes: &[u8], at: usize, problem| {
        let line_start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
        read_fault(bytes, line_start, at, problem, file)
    };
    if let Some(at) = memchr::memchr(0, &p.bytes) {
        return Parsed {
            lines,
            result: Err(fail(&p.bytes, at, LineProblem::Nul)),
        };
    }
    let text = match String::from_utf8(p.bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            return Parsed {
                lines,
                result: Err(fail(&bytes, at, LineProblem::NotUtf8)),
            };
        }
    };
    Parsed {
        lines,
        result: read_ads_as(&text, file, Format::Old).map(map),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads_from;
    use crate::syntax::unparse::unparse_ad;

    type Outcome = Result<Vec<String>, (u32, u32, String, String)>;

    fn whole(text: &[u8], limits: ReadLimits) -> Outcome {
        read_ads_from(text, "f", limits)
            .map(|ads| ads.iter().map(unparse_ad).collect())
            .map_err(|e| (e.line, e.column, e.message, e.file))
    }

    fn in_parts(text: &[u8], limits: ReadLimits, part: usize) -> Outcome {
        let mut out = Vec::new();
        // A small buffer, so that parts are cut inside what one read brings.
        let reader = std::io::BufReader::with_capacity(5, text);
        read_ads_in_parts(
            reader,
            "f",
            limits,
            part,
            |ads| ads,
            |ads| {
                out.extend(ads.iter().map(unparse_ad));
                Ok::<(), ()>(())
            },
        )
        .map_err(|e| match e {
            PartsError::Read(e) => (e.line, e.column, e.message, e.file),
            PartsError::Sink(()) => unreachable!(),
        })?;
        Ok(out)
    }

    #[test]
    fn parts_read_as_the_whole_does() {
        let pools = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/conformance/pools");
        let pool = std::fs::read_to_string(format!("{pools}/pool2.jobs.ads")).unwrap();
        // Past the first checked lines, so that parts are cut.
        let big = pool.repeat(30);
        let mut texts: Vec<Vec<u8>> = vec![big.clone().into_bytes()];
        let n = big.len();
        for (at, bad) in [
            (n / 2, &b"\nA = (\n"[..]),
            (n * 3 / 4, b"\n\x00\n"),
            (n / 3, b"\nB = \"\xff\"\n"),
            (n - 3, b"\n\nX = 1 +\n"),
        ] {
            let cut = big[..at].rfind('\n').unwrap() + 1;
            let mut t = big.as_bytes()[..cut].to_vec();
            t.extend_from_slice(bad);
            t.extend_from_slice(&big.as_bytes()[cut..]);
            texts.push(t);
        }
        texts.push(b"[ a = 1 ]\n[ b = 2 ]\n".to_vec());
        texts.push(b"A = 1\n".to_vec());
        let limits = ReadLimits::default();
        for (i, t) in texts.iter().enumerate() {
            let want = whole(t, limits);
            for part in [1, 100, 5000, 1 << 20] {
                assert_eq!(in_parts(t, limits, part), want, "text {i}, parts of {part}");
            }
        }
        // A line over the limit, past the first lines.
        let small = ReadLimits {
            max_line_bytes: 200,
        };
        let mut t = big.clone().into_bytes();
        let cut = big[..n / 2].rfind('\n').unwrap() + 1;
        t.splice(
            cut..cut,
            format!("Long = \"{}\"\n", "x".repeat(300)).into_bytes(),
        );
        let want = whole(&t, small);
        assert!(want.is_err());
        assert_eq!(in_parts(&t, small, 1000), want);
    }
}
