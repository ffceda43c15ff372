//! Reading a large file of ads a part at a time, on every core: the stream is cut
//! at empty lines (old syntax, where an empty line always ends an ad) into parts
//! of some megabytes, a batch of parts is parsed in parallel, and each part's ads
//! are handed over in file order and can be dropped before the next batch is read.
//! A 2 GB queue is never held whole, and errors name the file, line and column as
//! reading it whole would. What is held at once, and what is read in all, are
//! bounded by [`ReadLimits`].

use super::classad::ClassAd;
use super::old::{read_old_sharing, SharedExprs};
use super::read::{read_ads_as, Format, ReadError};
use super::stream::{fault, past_limits, read_head, reserve_within, LineProblem, ReadLimits};
use rayon::prelude::*;
use std::io::{BufRead, ErrorKind, Read};

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
    /// How many ads it has (0 when it failed).
    ads: usize,
    result: Result<T, ReadError>,
    /// The part's buffer, for the next part.
    buffer: Vec<u8>,
}

/// Reads every ad of `reader` (syntax detected as [`super::read_ads`] detects it;
/// `file` names it in errors), calling `map` on each part's ads on rayon's threads
/// and `sink` on the results in file order. Old syntax is read in parts of about
/// [`PART_BYTES`]; new syntax and JSON, which cannot be cut at empty lines, in one
/// part. The first lines are checked as [`super::read_ads_from`] checks them, so
/// input that is not ads fails at its first bad line. Held text is bounded by
/// [`ReadLimits::max_held_bytes`] (parts are cut at half of it when that is less
/// than `part_bytes`), and the input by [`ReadLimits::max_input_bytes`]; `sink`
/// returning an error stops the reading at once (a caller that needs only the
/// first ads reads no further).
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
    R: BufRead + Send,
    T: Send,
{
    let head = read_head(reader, file, limits).map_err(PartsError::Read)?;
    if head.format != Some(Format::Old) || head.rest.is_none() {
        let (text, format) = head.read_all(file, limits).map_err(PartsError::Read)?;
        let ads = read_ads_as(&text, file, format).map_err(PartsError::Read)?;
        if ads.len() as u64 > limits.max_ads {
            let problem = LineProblem::TooManyAds(limits.max_ads);
            return Err(PartsError::Read(read_fault(b"", 0, 0, problem, file)));
        }
        return sink(map(ads)).map_err(PartsError::Sink);
    }
    let (reader, _) = head.rest.expect("checked above");
    // One tree per expression text across the parts (see `old::SharedExprs`).
    let shared = SharedExprs::default();
    let threads = rayon::current_num_threads().max(1);
    // Parts are read ahead while a batch is parsed; their buffers come back for
    // reuse (fresh ones would be fresh pages, zeroed by the kernel, every time).
    let (parts_tx, parts_rx) = std::sync::mpsc::sync_channel::<Result<Part, ReadError>>(threads);
    let (spare_tx, spare_rx) = std::sync::mpsc::channel::<Vec<u8>>();
    let read = head.text.len() as u64;
    let producer = Producer {
        reader,
        buf: head.text.into_bytes(),
        read,
        limits,
        part_bytes: part_bytes.min(limits.max_held_bytes / 2).max(1),
        file,
        parts: parts_tx,
        spare: spare_rx,
    };
    std::thread::scope(|scope| {
        scope.spawn(move || producer.run());
        // Owned here, so that returning early (an error, or the consumer's)
        // drops it before the scope waits for the reading thread: that thread's
        // next send then fails and it ends, instead of waiting forever.
        let parts_rx = parts_rx;
        let mut lines_before = 0usize;
        let mut ads_before = 0u64;
        loop {
            // A batch: a part per thread, as many as are ready (at least one).
            let mut batch: Vec<Part> = Vec::new();
            let mut failed = None;
            while batch.len() < threads {
                let next = if batch.is_empty() {
                    parts_rx.recv().ok()
                } else {
                    parts_rx.try_recv().ok()
                };
                match next {
                    Some(Ok(p)) => batch.push(p),
                    Some(Err(e)) => {
                        failed = Some(e);
                        break;
                    }
                    None => break,
                }
            }
            if batch.is_empty() && failed.is_none() {
                return Ok(());
            }
            let parsed: Vec<Parsed<T>> = batch
                .into_par_iter()
                .map(|p| parse_part(p, file, &shared, &map))
                .collect();
            for p in parsed {
                let _ = spare_tx.send(p.buffer);
                ads_before += p.ads as u64;
                if ads_before > limits.max_ads {
                    // Said at the first line of the part that passes the limit.
                    let problem = LineProblem::TooManyAds(limits.max_ads);
                    let mut e = read_fault(b"", 0, 0, problem, file);
                    e.line = e.line.saturating_add(lines_before as u32);
                    return Err(PartsError::Read(e));
                }
                match p.result {
                    Ok(t) => sink(t).map_err(PartsError::Sink)?,
                    Err(mut e) => {
                        e.line = e.line.saturating_add(lines_before as u32);
                        return Err(PartsError::Read(e));
                    }
                }
                lines_before += p.lines;
            }
            if let Some(mut e) = failed {
                e.line = e.line.saturating_add(lines_before as u32);
                return Err(PartsError::Read(e));
            }
        }
    })
}

/// How much one read asks for.
const READ_STEP: u64 = 1 << 20;

/// The thread that reads the stream and cuts it into parts.
struct Producer<'f, R> {
    reader: R,
    /// What is read and not yet cut (its first line is the first line after the
    /// parts sent).
    buf: Vec<u8>,
    /// How many bytes were read in all.
    read: u64,
    limits: ReadLimits,
    part_bytes: usize,
    file: &'f str,
    parts: std::sync::mpsc::SyncSender<Result<Part, ReadError>>,
    spare: std::sync::mpsc::Receiver<Vec<u8>>,
}

impl<R: BufRead> Producer<'_, R> {
    /// Reads to the end (or the first error, sent as the last item), sending parts
    /// cut at empty lines. Stops early when the reader of the parts is gone.
    fn run(mut self) {
        let max = self.limits.max_line_bytes;
        // Where the line still being read starts in `buf`.
        let mut line_start = memchr::memrchr(b'\n', &self.buf).map_or(0, |i| i + 1);
        // Where `buf` can be cut: the end of its last blank line (0: none). Only
        // what each read brings is searched, so that an ad of any length costs
        // one pass.
        let mut cut_at = last_blank_line_end(&self.buf, 0).unwrap_or(0);
        loop {
            let from = self.buf.len();
            let cap = self
                .limits
                .max_held_bytes
                .saturating_add(READ_STEP as usize);
            reserve_within(&mut self.buf, READ_STEP as usize, cap);
            let step = (&mut self.reader)
                .take(READ_STEP)
                .read_to_end(&mut self.buf);
            let got = match step {
                Ok(n) => {
                    self.read += n as u64;
                    n
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => {
                    let len = self.buf.len();
                    let problem = LineProblem::Io(e);
                    let err = read_fault(&self.buf, line_start, len, problem, self.file);
                    let _ = self.parts.send(Err(err));
                    return;
                }
            };
            // A line can only be over the limit when what is held since the first
            // unfinished line is: then find which.
            if self.buf.len() - line_start > max {
                if let Some(at) = first_long_line(&self.buf, line_start, max) {
                    let problem = LineProblem::TooLong(max);
                    let err = read_fault(&self.buf, at, at + max, problem, self.file);
                    let _ = self.parts.send(Err(err));
                    return;
                }
            }
            if let Some(nl) = memchr::memrchr(b'\n', &self.buf[from..]) {
                line_start = from + nl + 1;
            }
            if let Some(end) = last_blank_line_end(&self.buf, from.saturating_sub(1)) {
                cut_at = end;
            }
            let eof = got == 0;
            if eof || self.buf.len() >= self.part_bytes {
                let cut = if eof { self.buf.len() } else { cut_at };
                if cut > 0 {
                    cut_at = 0;
                    let mut rest = self.spare.try_recv().unwrap_or_default();
                    rest.clear();
                    rest.extend_from_slice(&self.buf[cut..]);
                    self.buf.truncate(cut);
                    line_start -= cut.min(line_start);
                    let part = std::mem::replace(&mut self.buf, rest);
                    if self.parts.send(Ok(Part { bytes: part })).is_err() {
                        return;
                    }
                }
            }
            if eof {
                return;
            }
            // Past a limit (what is held once the parts are cut off it), reading
            // stops at the start of the line being read.
            if let Some(problem) = past_limits(self.buf.len(), self.read, self.limits) {
                let err = read_fault(&self.buf, line_start, line_start, problem, self.file);
                let _ = self.parts.send(Err(err));
                return;
            }
        }
    }
}

/// The end of the last blank line (`\n\n`) of `buf` that ends after `from`.
fn last_blank_line_end(buf: &[u8], from: usize) -> Option<usize> {
    memchr::memmem::rfind(&buf[from..], b"\n\n").map(|c| from + c + 2)
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
fn parse_part<T>(
    p: Part,
    file: &str,
    shared: &SharedExprs,
    map: &impl Fn(Vec<ClassAd>) -> T,
) -> Parsed<T> {
    let lines = memchr::memchr_iter(b'\n', &p.bytes).count();
    let fail = |bytes: &[u8], at: usize, problem| {
        let line_start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
        read_fault(bytes, line_start, at, problem, file)
    };
    if let Some(at) = memchr::memchr(0, &p.bytes) {
        let result = Err(fail(&p.bytes, at, LineProblem::Nul));
        return Parsed {
            lines,
            ads: 0,
            result,
            buffer: p.bytes,
        };
    }
    match String::from_utf8(p.bytes) {
        Ok(text) => {
            let ads = read_old_sharing(&text, file, Some(shared));
            let count = ads.as_ref().map_or(0, Vec::len);
            let result = ads.map(map);
            Parsed {
                lines,
                ads: count,
                result,
                buffer: text.into_bytes(),
            }
        }
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let result = Err(fail(&bytes, at, LineProblem::NotUtf8));
            Parsed {
                lines,
                ads: 0,
                result,
                buffer: bytes,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads_from;
    use crate::ad::unparse_ad;

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

    /// A stream skips a leading byte-order mark as `read_ads` does, read whole
    /// or in parts, however few bytes a read brings.
    #[test]
    fn a_leading_byte_order_mark_is_skipped_in_streams() {
        let text = b"\xEF\xBB\xBFMyType = \"Job\"\nA = 1\n\nMyType = \"Job\"\nA = 2\n";
        let want = whole(&text[3..], ReadLimits::default());
        assert_eq!(want.as_ref().map(Vec::len), Ok(2));
        assert_eq!(whole(text, ReadLimits::default()), want);
        assert_eq!(in_parts(text, ReadLimits::default(), 8), want);
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
            ..ReadLimits::default()
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

    #[test]
    fn parts_of_one_file_share_one_tree_per_expression_text() {
        // Past the first checked lines, parts of about 64 bytes: ads in many
        // parts, each holding the same two texts.
        let text = "R = TARGET.Memory > 2\nK = a + b\nX = 1\n\n".repeat(200);
        let mut ads: Vec<ClassAd> = Vec::new();
        read_ads_in_parts(
            text.as_bytes(),
            "f",
            ReadLimits::default(),
            64,
            |part| part,
            |part| {
                ads.extend(part);
                Ok::<(), ()>(())
            },
        )
        .unwrap();
        assert_eq!(ads.len(), 200);
        for name in ["R", "K"] {
            let first = ads[0].get(name).unwrap();
            for ad in &ads {
                let e = ad.get(name).unwrap();
                assert!(std::sync::Arc::ptr_eq(first.tree, e.tree), "{name}");
            }
        }
    }

    /// Under a held limit smaller than a part, parts are cut smaller: ads read
    /// as ever; only an ad longer than the limit fails, at the line where the
    /// limit is passed, and the ads counted past `max_ads` fail too.
    #[test]
    fn parts_are_cut_within_the_held_limit() {
        let ads = "A = 1\nB = 2\n\n".repeat(100_000);
        let limits = ReadLimits {
            max_held_bytes: 64 << 10,
            ..ReadLimits::default()
        };
        let count = |text: &str, limits: ReadLimits| {
            let mut n = 0;
            read_ads_in_parts(
                text.as_bytes(),
                "f",
                limits,
                PART_BYTES,
                |a| a.len(),
                |k| {
                    n += k;
                    Ok::<(), ()>(())
                },
            )
            .map(|()| n)
            .map_err(|e| match e {
                PartsError::Read(e) => e,
                PartsError::Sink(()) => unreachable!(),
            })
        };
        assert_eq!(count(&ads, limits), Ok(100_000));
        let long = format!("{ads}{}", "C = 3\n".repeat(20_000));
        let e = count(&long, limits).unwrap_err();
        assert!(e.message.contains("max_held_bytes"), "{e}");
        assert!(e.line > 300_000, "{e}");
        let few = ReadLimits {
            max_ads: 99_999,
            ..ReadLimits::default()
        };
        let e = count(&ads, few).unwrap_err();
        assert!(
            e.message.contains("more than the limit of 99999 ads"),
            "{e}"
        );
        assert_eq!(count(&ads, few.streaming()), Ok(100_000));
    }

    /// A reader that stops at an error (or whose consumer does) while the reading
    /// thread still has parts to hand over must return, not wait on it forever.
    #[test]
    fn an_early_stop_does_not_wait_on_the_reading_thread() {
        let mut text = "A = 1\n\n".repeat(600);
        text.push_str("A = (\n\n");
        // Parts are cut a read (1 MiB) at a time: many more than the channel holds.
        text.push_str(&"B = 2\n\n".repeat(3_000_000));
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let bytes = text.clone().into_bytes();
        std::thread::spawn(move || {
            let parse_error = read_ads_in_parts(
                &bytes[..],
                "f",
                ReadLimits::default(),
                16,
                |a| a,
                |_| Ok::<(), ()>(()),
            );
            let sink_error = read_ads_in_parts(
                &bytes[..],
                "f",
                ReadLimits::default(),
                16,
                |a| a,
                |_| Err::<(), ()>(()),
            );
            let _ = done_tx.send((parse_error.is_err(), sink_error.is_err()));
        });
        let outcome = done_rx.recv_timeout(std::time::Duration::from_secs(20));
        assert_eq!(
            outcome,
            Ok((true, true)),
            "both calls return with their error"
        );
    }
}
