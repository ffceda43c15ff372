//! Reading ads and text lines from a stream (a file, standard input) with limits:
//! the input is taken a buffer at a time and checked as it arrives, so that input
//! that is not text, or not ads, is refused at its first bad line instead of being
//! held whole. A NUL byte, bytes that are not UTF-8 and a line longer than
//! [`ReadLimits::max_line_bytes`] are each an error naming the line and column, and
//! so is input past the bounds of what a reader holds ([`ReadLimits`]), so that no
//! input, endless or a gzip bomb, makes a reader run out of memory.

use super::classad::ClassAd;
use super::old::check_line;
use super::read::{read_ads_as, Detector, Format, ReadError};
use super::xml::check_xml_prefix;
use std::fmt;
use std::io::{BufRead, ErrorKind};

/// The longest line the readers accept by default, in bytes: 64 MiB. Real ads
/// have lines of some megabytes at most (a 24 MB expression on one line is
/// legitimate and is read); HTCondor has no such limit.
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 << 20;

/// The most text a reader holds at once by default, in bytes: 1 GiB (see
/// [`ReadLimits::max_held_bytes`]).
pub const DEFAULT_MAX_HELD_BYTES: usize = 1 << 30;

/// The most bytes read from one input by default when every ad of it is kept
/// (see [`ReadLimits::max_input_bytes`]): 8 GiB.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 8 << 30;

/// The most ads read from one input by default when every ad of it is kept (see
/// [`ReadLimits::max_ads`]): 20 million.
pub const DEFAULT_MAX_ADS: u64 = 20_000_000;

/// The environment variables the command line reads the limits from, a number
/// each: [`ReadLimits::max_line_bytes`], [`ReadLimits::max_held_bytes`],
/// [`ReadLimits::max_input_bytes`] and [`ReadLimits::max_ads`].
pub const ENV_MAX_LINE_BYTES: &str = "CLASSAD_MAX_LINE_BYTES";
/// See [`ENV_MAX_LINE_BYTES`].
pub const ENV_MAX_HELD_BYTES: &str = "CLASSAD_MAX_HELD_BYTES";
/// See [`ENV_MAX_LINE_BYTES`].
pub const ENV_MAX_INPUT_BYTES: &str = "CLASSAD_MAX_INPUT_BYTES";
/// See [`ENV_MAX_LINE_BYTES`].
pub const ENV_MAX_ADS: &str = "CLASSAD_MAX_ADS";

/// How many lines of an old-syntax file are checked to be blank, a comment or
/// `Name = ...` as they arrive (see [`read_ads_from`]).
pub const CHECKED_LINES: u32 = 1_000;

/// The limits of the stream readers ([`read_ads_from`], [`TextLines`],
/// [`super::parts::read_ads_in_parts`]). Every count is of the input's bytes as
/// read, after any gzip is uncompressed: a small gzip file of many gigabytes is
/// bounded as those gigabytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimits {
    /// The longest line accepted, in bytes, without its `\n`; memory held for a
    /// line never exceeds it. [`DEFAULT_MAX_LINE_BYTES`] by default.
    pub max_line_bytes: usize,
    /// The most text a reader holds at once, in bytes: an input in new syntax,
    /// JSON or XML, which cannot be cut into parts and is read whole (and every
    /// input [`read_ads_from`] reads), or, in old syntax read in parts, what is
    /// read since the last blank line (one ad). [`DEFAULT_MAX_HELD_BYTES`] by
    /// default.
    pub max_held_bytes: usize,
    /// The most bytes read from one input, for a caller that keeps something of
    /// every ad (the ads themselves, or a fact per job); `u64::MAX` for a caller
    /// that keeps nothing of an ad once it has handled it. [`DEFAULT_MAX_INPUT_BYTES`]
    /// by default.
    pub max_input_bytes: u64,
    /// The most ads read from one input, for a caller that keeps something of
    /// every ad (an ad in memory is some hundred bytes however short its text);
    /// `u64::MAX` for a caller that keeps nothing of an ad once it has handled it.
    /// [`DEFAULT_MAX_ADS`] by default.
    pub max_ads: u64,
}

impl Default for ReadLimits {
    fn default() -> ReadLimits {
        ReadLimits {
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            max_held_bytes: DEFAULT_MAX_HELD_BYTES,
            max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
            max_ads: DEFAULT_MAX_ADS,
        }
    }
}

/// The limits [`apply_env`] set, for [`ReadLimits::configured`].
static CONFIGURED: std::sync::OnceLock<ReadLimits> = std::sync::OnceLock::new();

impl ReadLimits {
    /// The limits the process reads under: those [`apply_env`] set (the command
    /// line calls it at start-up), else the defaults.
    pub fn configured() -> ReadLimits {
        CONFIGURED.get().copied().unwrap_or_default()
    }

    /// These limits, but for a caller that keeps nothing of an ad once it has
    /// handled it (no bound on the input's length or its number of ads).
    pub fn streaming(self) -> ReadLimits {
        ReadLimits {
            max_input_bytes: u64::MAX,
            max_ads: u64::MAX,
            ..self
        }
    }

    /// The defaults, with each limit its environment variable sets
    /// ([`ENV_MAX_LINE_BYTES`], [`ENV_MAX_HELD_BYTES`], [`ENV_MAX_INPUT_BYTES`],
    /// [`ENV_MAX_ADS`]); an error names the variable and what it holds when that
    /// is not a positive number.
    pub fn from_env() -> Result<ReadLimits, String> {
        let mut limits = ReadLimits::default();
        let var = |name: &str| -> Result<Option<u64>, String> {
            match std::env::var(name) {
                Err(std::env::VarError::NotPresent) => Ok(None),
                Err(e) => Err(format!("{name}: {e}")),
                Ok(text) => match text.trim().replace('_', "").parse::<u64>() {
                    Ok(n) if n > 0 => Ok(Some(n)),
                    _ => Err(format!("{name}={text}: expected a positive number")),
                },
            }
        };
        let size = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        if let Some(n) = var(ENV_MAX_LINE_BYTES)? {
            limits.max_line_bytes = size(n);
        }
        if let Some(n) = var(ENV_MAX_HELD_BYTES)? {
            limits.max_held_bytes = size(n);
        }
        if let Some(n) = var(ENV_MAX_INPUT_BYTES)? {
            limits.max_input_bytes = n;
        }
        if let Some(n) = var(ENV_MAX_ADS)? {
            limits.max_ads = n;
        }
        Ok(limits)
    }
}

/// Sets the limits of [`ReadLimits::configured`] from the environment
/// ([`ReadLimits::from_env`]); only the first call sets them.
pub fn apply_env() -> Result<(), String> {
    let limits = ReadLimits::from_env()?;
    let _ = CONFIGURED.set(limits);
    Ok(())
}

/// What was wrong with a line of input.
#[derive(Debug)]
pub enum LineProblem {
    /// A NUL byte: the input is binary data, not text. Reading stops.
    Nul,
    /// A byte sequence that is not UTF-8. The rest of the line was read past.
    NotUtf8,
    /// The line is longer than the limit (in bytes). What remains of it is skipped
    /// by the next read, without being held.
    TooLong(usize),
    /// More text than [`ReadLimits::max_held_bytes`] (the limit, in bytes) would
    /// be held at once. Reading stops.
    HeldTooLong(usize),
    /// More bytes than [`ReadLimits::max_input_bytes`] (the limit) were read.
    /// Reading stops.
    InputTooLong(u64),
    /// More ads than [`ReadLimits::max_ads`] (the limit) were read. Reading
    /// stops.
    TooManyAds(u64),
    /// Reading failed. Reading stops.
    Io(std::io::Error),
}

/// A line that could not be read: its 1-based number and column (in characters of
/// the line's text before the fault), and what was wrong.
#[derive(Debug)]
pub struct LineError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// What was wrong.
    pub problem: LineProblem,
    /// Whether reading stopped here.
    stopped: bool,
}

impl LineError {
    /// Whether reading stopped here: after a NUL byte (or bytes that are not UTF-8
    /// on the same line before it) or a failed read nothing more is read; after the
    /// other problems the next line can be.
    pub fn is_fatal(&self) -> bool {
        self.stopped
    }

    /// The same error as a [`ReadError`] of the named file.
    pub fn in_file(&self, file: &str) -> ReadError {
        ReadError {
            file: file.to_string(),
            line: self.line,
            column: self.column,
            message: self.problem.to_string(),
        }
    }
}

impl fmt::Display for LineProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineProblem::Nul => write!(f, "a NUL byte: this is binary data, not text"),
            LineProblem::NotUtf8 => write!(f, "not UTF-8 text"),
            LineProblem::TooLong(limit) => write!(
                f,
                "the line is longer than the limit of {limit} bytes (ReadLimits::max_line_bytes; \
                 on the command line, set {ENV_MAX_LINE_BYTES} to raise it)"
            ),
            LineProblem::HeldTooLong(limit) => write!(
                f,
                "more than the limit of {limit} bytes would be held at once: an old-syntax ad \
                 this long, or an input in new syntax, JSON or XML, which is read whole \
                 (ReadLimits::max_held_bytes; on the command line, set {ENV_MAX_HELD_BYTES} \
                 to raise it)"
            ),
            LineProblem::InputTooLong(limit) => write!(
                f,
                "the input is longer than the limit of {limit} bytes (after any gzip is \
                 uncompressed) for a command that keeps every ad (ReadLimits::max_input_bytes; \
                 on the command line, set {ENV_MAX_INPUT_BYTES} to raise it)"
            ),
            LineProblem::TooManyAds(limit) => write!(
                f,
                "the input has more than the limit of {limit} ads from here on, for a command \
                 that keeps every ad (ReadLimits::max_ads; on the command line, set \
                 {ENV_MAX_ADS} to raise it)"
            ),
            LineProblem::Io(e) => write!(f, "read failed: {e}"),
        }
    }
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.problem)
    }
}

/// One line of text, without its `\n`.
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    /// The text (a `\r` before the `\n` is kept).
    pub text: &'a str,
    /// 1-based line number.
    pub number: u32,
    /// Whether a `\n` ended it (only the input's last line may lack one).
    pub newline: bool,
}

/// The lines of a stream, each checked as it is read: at most
/// [`ReadLimits::max_line_bytes`] of a line is ever held.
///
/// ```
/// use classad::ad::stream::{LineProblem, ReadLimits, TextLines};
/// let mut lines = TextLines::new(&b"1 + 1\n\xff\n2\n"[..], ReadLimits::default());
/// assert_eq!(lines.next_line().unwrap().unwrap().text, "1 + 1");
/// let e = lines.next_line().unwrap().unwrap_err();
/// assert!(matches!(e.problem, LineProblem::NotUtf8) && e.line == 2);
/// assert_eq!(lines.next_line().unwrap().unwrap().text, "2");
/// assert!(lines.next_line().is_none());
/// ```
pub struct TextLines<R> {
    reader: R,
    limits: ReadLimits,
    buf: Vec<u8>,
    number: u32,
    /// The last line was too long: its rest is skipped first.
    skipping: bool,
    /// How many bytes of that line were read so far.
    read_of_long_line: usize,
    /// The end, or a fatal error, was reached.
    done: bool,
}

impl<R: BufRead> TextLines<R> {
    /// Lines of `reader` under `limits`.
    pub fn new(reader: R, limits: ReadLimits) -> TextLines<R> {
        TextLines {
            reader,
            limits,
            buf: Vec::new(),
            number: 0,
            skipping: false,
            read_of_long_line: 0,
            done: false,
        }
    }

    /// The next line, or what was wrong with it; `None` at the end (and after a
    /// fatal error).
    pub fn next_line(&mut self) -> Option<Result<Line<'_>, LineError>> {
        if self.done {
            return None;
        }
        if self.skipping {
            if let Err(e) = self.skip_rest() {
                return Some(Err(e));
            }
            if self.done {
                return None;
            }
        }
        self.buf.clear();
        self.number += 1;
        let mut newline = false;
        loop {
            let chunk = match self.reader.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Some(Err(self.fatal(self.buf.len(), LineProblem::Io(e)))),
            };
            if chunk.is_empty() {
                self.done = true;
                if self.buf.is_empty() {
                    return None;
                }
                break;
            }
            let end = memchr::memchr(b'\n', chunk);
            let part = &chunk[..end.unwrap_or(chunk.len())];
            if let Some(z) = memchr::memchr(0, part) {
                self.buf.extend_from_slice(&part[..z]);
                let at = self.buf.len();
                // An earlier byte that is not UTF-8 is the first fault.
                let problem = match std::str::from_utf8(&self.buf) {
                    Ok(_) => LineProblem::Nul,
                    Err(_) => LineProblem::NotUtf8,
                };
                return Some(Err(self.fatal(at, problem)));
            }
            let taken = part.len() + usize::from(end.is_some());
            let room = self.limits.max_line_bytes - self.buf.len();
            if part.len() > room {
                // Held up to the limit, so that the column is the first byte over.
                self.buf.extend_from_slice(&part[..room]);
                self.read_of_long_line = self.buf.len() + part.len() - room;
                self.reader.consume(taken);
                self.skipping = end.is_none();
                return Some(Err(self.error(
                    self.buf.len(),
                    LineProblem::TooLong(self.limits.max_line_bytes),
                )));
            }
            self.buf.extend_from_slice(part);
            self.reader.consume(taken);
            if end.is_some() {
                newline = true;
                break;
            }
        }
        match std::str::from_utf8(&self.buf) {
            Ok(text) => Some(Ok(Line {
                text,
                number: self.number,
                newline,
            })),
            Err(e) => Some(Err(self.error(e.valid_up_to(), LineProblem::NotUtf8))),
        }
    }

    /// Reads past the rest of a line that was too long, holding none of it.
    fn skip_rest(&mut self) -> Result<(), LineError> {
        let mut skipped = self.read_of_long_line;
        loop {
            let chunk = match self.reader.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.fatal(0, LineProblem::Io(e))),
            };
            if chunk.is_empty() {
                self.done = true;
                break;
            }
            let end = memchr::memchr(b'\n', chunk);
            let part = &chunk[..end.unwrap_or(chunk.len())];
            if let Some(z) = memchr::memchr(0, part) {
                // Past the limit the characters are not counted: the column is
                // the byte's.
                let column = skipped + z + 1;
                self.done = true;
                return Err(LineError {
                    line: self.number,
                    column: u32::try_from(column).unwrap_or(u32::MAX),
                    problem: LineProblem::Nul,
                    stopped: true,
                });
            }
            let taken = part.len() + usize::from(end.is_some());
            skipped += part.len();
            self.reader.consume(taken);
            if end.is_some() {
                break;
            }
        }
        self.skipping = false;
        Ok(())
    }

    /// An error at byte `at` of the line held so far, after which reading stops.
    fn fatal(&mut self, at: usize, problem: LineProblem) -> LineError {
        self.done = true;
        self.error(at, problem)
    }

    /// An error at byte `at` of the line held so far.
    fn error(&self, at: usize, problem: LineProblem) -> LineError {
        let before = &self.buf[..at.min(self.buf.len())];
        let valid = match std::str::from_utf8(before) {
            Ok(s) => s,
            // The column of a fault after bytes that are not UTF-8 is the first
            // of those bytes' (the first fault is reported).
            Err(e) => std::str::from_utf8(&before[..e.valid_up_to()]).unwrap_or_default(),
        };
        let column = valid.chars().count() + 1;
        LineError {
            line: self.number,
            column: u32::try_from(column).unwrap_or(u32::MAX),
            problem,
            stopped: self.done,
        }
    }
}

/// Reads every ad from a stream, detecting the syntax as [`super::read_ads`] does;
/// `file` names the source in errors. Each line is checked as it arrives (see
/// [`TextLines`]), and in old syntax each of the first [`CHECKED_LINES`] lines must
/// be blank, a `#` comment or `Name = ...` (in XML, those lines must be the start
/// of XML ads): a file that is not ads fails at its first line that is not, before
/// the rest is read.
///
/// ```
/// use classad::ad::stream::{read_ads_from, ReadLimits};
/// let ads = read_ads_from(&b"A = 1\n\nB = 2\n"[..], "f", ReadLimits::default()).unwrap();
/// assert_eq!(ads.len(), 2);
/// let e = read_ads_from(&b"A = 1\nB\0 = 2\n"[..], "f", ReadLimits::default()).unwrap_err();
/// assert_eq!((e.line, e.column), (2, 2));
/// ```
pub fn read_ads_from(
    reader: impl BufRead,
    file: &str,
    limits: ReadLimits,
) -> Result<Vec<ClassAd>, ReadError> {
    let head = read_head(reader, file, limits)?;
    let (text, format) = head.read_all(file, limits)?;
    read_ads_as(&text, file, format)
}

/// The first lines of a stream of ads, read and checked as [`read_ads_from`]
/// reads them, and what is left of the stream.
pub(super) struct Head<R> {
    /// The text of the first lines.
    pub(super) text: String,
    /// The syntax, once the first lines tell it.
    pub(super) format: Option<Format>,
    detector: Detector,
    /// The rest of the stream and the number of its first line (`None`: all read).
    pub(super) rest: Option<(R, u32)>,
}

/// Reads the first [`CHECKED_LINES`] lines of `reader`, checking each (see
/// [`read_ads_from`]).
pub(super) fn read_head<R: BufRead>(
    reader: R,
    file: &str,
    limits: ReadLimits,
) -> Result<Head<R>, ReadError> {
    let mut lines = TextLines::new(reader, limits);
    let mut text = String::new();
    let mut detector = Detector::default();
    let mut format = None;
    while lines.number < CHECKED_LINES {
        let Some(line) = lines.next_line() else {
            break;
        };
        let mut line = line.map_err(|e| e.in_file(file))?;
        if line.number == 1 {
            // A byte-order mark is not part of the first line's text.
            line.text = super::read::without_bom(line.text);
        }
        if format.is_none() {
            format = detector.feed(line.text);
        }
        // The first lines decide whether the input is ads at all, before more is
        // held; past them the parser finds a bad line as it would in any file.
        if format == Some(Format::Old) && line.number <= CHECKED_LINES {
            check_line(line.text).map_err(|message| ReadError {
                file: file.to_string(),
                line: line.number,
                column: 1,
                message,
            })?;
        }
        text.push_str(line.text);
        if line.newline {
            text.push('\n');
        }
        if let Some(problem) = past_limits(text.len(), text.len() as u64, limits) {
            return Err(ReadError {
                file: file.to_string(),
                line: line.number,
                column: 1,
                message: problem.to_string(),
            });
        }
    }
    let rest = (!lines.done).then(|| (lines.reader, lines.number + 1));
    // XML is checked on its first lines as a whole, for the same reason: a stream
    // that goes wrong there fails before the rest is read (input read whole is
    // parsed at once anyway).
    if format == Some(Format::Xml) && rest.is_some() {
        check_xml_prefix(&text).map_err(|e| ReadError {
            file: file.to_string(),
            line: e.line,
            column: e.column,
            message: e.message,
        })?;
    }
    Ok(Head {
        text,
        format,
        detector,
        rest,
    })
}

impl<R: BufRead> Head<R> {
    /// The whole text (the rest read in bulk: checking line by line costs as much
    /// again as parsing) and its syntax.
    pub(super) fn read_all(
        self,
        file: &str,
        limits: ReadLimits,
    ) -> Result<(String, Format), ReadError> {
        let Head {
            mut text,
            mut format,
            mut detector,
            rest,
        } = self;
        if let Some((reader, first)) = rest {
            let base = text.len();
            text = read_rest(reader, text, first, limits).map_err(|e| e.in_file(file))?;
            if format.is_none() {
                for line in text[base..].split_inclusive('\n') {
                    if format.is_some() {
                        break;
                    }
                    format = detector.feed(line.trim_end_matches('\n'));
                }
            }
        }
        let format = format.unwrap_or_else(|| detector.finish());
        Ok((text, format))
    }
}

/// What is wrong when a reader holds `held` bytes having read `read` bytes of its
/// input: the first of [`ReadLimits::max_held_bytes`] and
/// [`ReadLimits::max_input_bytes`] they are past.
pub(super) fn past_limits(held: usize, read: u64, limits: ReadLimits) -> Option<LineProblem> {
    if held > limits.max_held_bytes {
        Some(LineProblem::HeldTooLong(limits.max_held_bytes))
    } else if read > limits.max_input_bytes {
        Some(LineProblem::InputTooLong(limits.max_input_bytes))
    } else {
        None
    }
}

/// Makes room in `buf` for `more` bytes, doubling its capacity as a `Vec` does
/// but never past `cap` (unless `more` needs it): a reader bounded by a limit
/// then holds about the limit, not the next power of two above it.
pub(super) fn reserve_within(buf: &mut Vec<u8>, more: usize, cap: usize) {
    let need = buf.len().saturating_add(more);
    if need <= buf.capacity() {
        return;
    }
    let grown = buf.capacity().saturating_mul(2).min(cap).max(need);
    buf.reserve_exact(grown - buf.len());
}

/// `text` followed by the rest of a stream whose first line is number `first`,
/// read a buffer at a time with the checks of [`TextLines`] done on whole buffers:
/// a NUL byte and a line over the limit stop the reading where they are; bytes that
/// are not UTF-8 are found once all is read.
pub(super) fn read_rest(
    mut reader: impl BufRead,
    text: String,
    first: u32,
    limits: ReadLimits,
) -> Result<String, LineError> {
    let base = text.len();
    let mut bytes = text.into_bytes();
    // Positions below are in `bytes`; the errors count from where the rest began.
    let error = |bytes: &[u8], line_start: usize, at: usize, problem| {
        fault(&bytes[base..], first, line_start - base, at - base, problem)
    };
    let too_long = LineProblem::TooLong;
    let mut line_start = base;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(error(&bytes, line_start, bytes.len(), LineProblem::Io(e))),
        };
        if chunk.is_empty() {
            break;
        }
        let nul = memchr::memchr(0, chunk);
        let part = &chunk[..nul.unwrap_or(chunk.len())];
        // The whole input is held: past either limit, reading stops at the start
        // of the line being read.
        let after = bytes.len() + part.len();
        if let Some(problem) = past_limits(after, after as u64, limits) {
            return Err(error(&bytes, line_start, line_start, problem));
        }
        reserve_within(&mut bytes, part.len(), limits.max_held_bytes);
        let from = bytes.len();
        bytes.extend_from_slice(part);
        let taken = part.len();
        reader.consume(taken);
        // A line ending at `end` (or still open there) is too long: its error.
        let max = limits.max_line_bytes;
        let over = |bytes: &[u8], line_start: usize, end: usize| {
            (end - line_start > max)
                .then(|| error(bytes, line_start, line_start + max, too_long(max)))
        };
        // Only a line running across buffers can be longer than one: the lines
        // ending in this one are checked one by one only when it is over the limit.
        let all = taken > max;
        for nl in memchr::memchr_iter(b'\n', &bytes[from..]) {
            if let Some(e) = over(&bytes, line_start, from + nl) {
                return Err(e);
            }
            line_start = from + nl + 1;
            if !all {
                if let Some(last) = memchr::memrchr(b'\n', &bytes[line_start..]) {
                    line_start += last + 1;
                }
                break;
            }
        }
        if let Some(e) = over(&bytes, line_start, bytes.len()) {
            return Err(e);
        }
        if nul.is_some() {
            return Err(error(&bytes, line_start, bytes.len(), LineProblem::Nul));
        }
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.into_bytes();
        let line_start = memchr::memrchr(b'\n', &bytes[base..at]).map_or(base, |i| base + i + 1);
        error(&bytes, line_start, at, LineProblem::NotUtf8)
    })
}

/// The error at byte `at` of `bytes` (the rest of a stream whose first line is
/// `first`), on the line starting at byte `line_start`: its line, and its column
/// in characters. Bytes before it on the line that are not UTF-8 are the first
/// fault, as [`TextLines`] reports them.
pub(super) fn fault(
    bytes: &[u8],
    first: u32,
    line_start: usize,
    at: usize,
    problem: LineProblem,
) -> LineError {
    let line = first as usize + memchr::memchr_iter(b'\n', &bytes[..line_start]).count();
    let before = &bytes[line_start..at];
    let (column, problem) = match std::str::from_utf8(before) {
        Ok(s) => (s.chars().count() + 1, problem),
        Err(e) => {
            let valid = std::str::from_utf8(&before[..e.valid_up_to()]).unwrap_or_default();
            (valid.chars().count() + 1, LineProblem::NotUtf8)
        }
    };
    LineError {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        column: u32::try_from(column).unwrap_or(u32::MAX),
        problem,
        stopped: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small(max_line_bytes: usize) -> ReadLimits {
        ReadLimits {
            max_line_bytes,
            ..ReadLimits::default()
        }
    }

    /// Every line of `src` as its text or its error's `(line, column, is fatal)`.
    fn lines(src: &[u8], limits: ReadLimits) -> Vec<Result<String, (u32, u32, bool)>> {
        // A one-byte buffer makes every line span many reads.
        let mut r = TextLines::new(std::io::BufReader::with_capacity(1, src), limits);
        let mut out = Vec::new();
        while let Some(l) = r.next_line() {
            out.push(
                l.map(|l| l.text.to_string())
                    .map_err(|e| (e.line, e.column, e.is_fatal())),
            );
        }
        out
    }

    #[test]
    fn lines_are_split_and_checked() {
        assert_eq!(
            lines(b"a\n\nb", ReadLimits::default()),
            vec![Ok("a".into()), Ok("".into()), Ok("b".into())]
        );
        let bad = lines(b"\xc3\xa9x\xff\nok\n", ReadLimits::default());
        assert_eq!(bad, vec![Err((1, 3, false)), Ok("ok".into())]);
        let nul = lines(b"ok\nab\0c\nnever\n", ReadLimits::default());
        assert_eq!(nul, vec![Ok("ok".into()), Err((2, 3, true))]);
        // Bytes that are not UTF-8 before the NUL are the first fault.
        let both = lines(b"\xff\xfe\0A", ReadLimits::default());
        assert!(matches!(both[..], [Err((1, 1, true))]), "{both:?}");
    }

    #[test]
    fn a_line_over_the_limit_is_an_error_and_the_next_is_read() {
        let got = lines(b"1234\n12345\n123456789\nok\n", small(4));
        assert_eq!(
            got,
            vec![
                Ok("1234".into()),
                Err((2, 5, false)),
                Err((3, 5, false)),
                Ok("ok".into())
            ]
        );
        // A NUL in the part skipped still stops the reading.
        let got = lines(b"123456\0x\nok\n", small(4));
        assert_eq!(got, vec![Err((1, 5, false)), Err((1, 7, true))]);
    }

    #[test]
    fn endless_zeros_stop_at_the_first_byte() {
        let zeros = std::io::BufReader::new(std::io::repeat(0));
        let e = read_ads_from(zeros, "/dev/zero", ReadLimits::default()).unwrap_err();
        assert_eq!((e.line, e.column), (1, 1));
        assert!(e.message.contains("NUL"), "{e}");
    }

    #[test]
    fn endless_text_that_is_not_ads_stops_at_its_first_line() {
        use std::io::Read;
        let endless = std::io::repeat(b'x').take(u64::MAX);
        let e = read_ads_from(std::io::BufReader::new(endless), "x", small(1000)).unwrap_err();
        assert_eq!((e.line, e.column), (1, 1001), "{e}");
        assert!(e.message.contains("limit of 1000 bytes"), "{e}");
        let lines = std::io::repeat(b'\n')
            .take(3)
            .chain(&b"this is prose, not ads\n"[..])
            .chain(std::io::repeat(b'y'));
        let e = read_ads_from(std::io::BufReader::new(lines), "p", small(1000)).unwrap_err();
        assert_eq!((e.line, e.column), (4, 1), "{e}");
        assert!(e.message.contains("expected `Name = expression`"), "{e}");
    }

    #[test]
    fn ads_read_as_from_text() {
        for src in [
            "# c\nA = 1\nB = \"x\"\n\nC = 2",
            "{\n [ a = 1 ],\n [ b = 2 ]\n}\n",
            "[\n{\"a\": 1},\n{\"b\": 2}\n]",
            "[a=1]\n[b=]\n",
            "A = 1\nB = (1 +\n",
            "<?xml version=\"1.0\"?>\n<classads>\n<c>\n <a n=\"A\"><i>1</i></a>\n</c>\n</classads>\n",
            "<c>\n <a n=\"A\"><i>1</i>\n</c>\n",
        ] {
            let printed = |ads: Vec<ClassAd>| -> Vec<String> {
                ads.iter().map(crate::ad::unparse_ad).collect()
            };
            let streamed = read_ads_from(src.as_bytes(), "f", small(64)).map(printed);
            let whole = super::super::read_ads(src, "f").map(printed);
            assert_eq!(streamed, whole, "{src:?}");
        }
        let e = read_ads_from(&b"A = 1\n= 2\n"[..], "f", small(64)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "f:2:1: expected `Name = expression`, found `= 2`"
        );
        let e = read_ads_from(&b"A = 1\nB = 123456\n"[..], "f", small(6)).unwrap_err();
        assert_eq!((e.line, e.column), (2, 7));
    }

    #[test]
    fn an_endless_stream_that_starts_as_xml_stops_at_its_first_bad_element() {
        use std::io::Read;
        let lines = (&b"<?xml version=\"1.0\"?>\n<classads>\n<c>\n"[..])
            .chain(&b"    <a n=\"A\"><i>1</i></a>\n"[..])
            .chain(&b"this is prose, not XML\n"[..])
            .chain(std::io::repeat(b'\n'));
        let e = read_ads_from(std::io::BufReader::new(lines), "x", small(1000)).unwrap_err();
        assert_eq!((e.line, e.column), (5, 1), "{e}");
        assert!(e.message.contains("found text `this is prose"), "{e}");
        // Cut inside an element, the first lines are no error: the rest mends it.
        let mut text = String::from("<classads>\n<c>\n<a n=\"S\"><s>");
        text.push_str(&"line\n".repeat(CHECKED_LINES as usize + 5));
        text.push_str("</s></a>\n</c>\n</classads>\n");
        let ads = read_ads_from(text.as_bytes(), "x", small(1000)).unwrap();
        assert_eq!(ads.len(), 1);
    }

    /// Past [`CHECKED_LINES`] the rest is read in bulk: the same ads, and the same
    /// errors at the same places as line by line, whatever the buffer size.
    #[test]
    fn the_rest_read_in_bulk_is_checked_as_line_by_line() {
        let head: String = (0..CHECKED_LINES + 5)
            .map(|i| {
                if i % 3 == 2 {
                    "\n".to_string()
                } else {
                    format!("A{i} = {i}\n")
                }
            })
            .collect();
        let whole = format!("{head}B = \"é\"\n\nC = 3");
        let printed =
            |ads: Vec<ClassAd>| -> Vec<String> { ads.iter().map(crate::ad::unparse_ad).collect() };
        let bulk = read_ads_from(whole.as_bytes(), "f", small(64)).map(printed);
        assert_eq!(bulk, super::super::read_ads(&whole, "f").map(printed));
        let line = CHECKED_LINES + 6;
        for (tail, column, what) in [
            (&b"B = \"\xc3\xa9\0\"\n"[..], 7, "NUL"),
            (&b"B = \"\xc3\xa9\xff\"\n"[..], 7, "UTF-8"),
            (&b"B = \"\xff\0\"\n"[..], 6, "UTF-8"),
            (
                &b"B = \"\xc3\xa9123456789012345678901234567890123456789012345678901234567890\"\n"
                    [..],
                64,
                "limit",
            ),
        ] {
            let mut input = head.clone().into_bytes();
            input.extend_from_slice(tail);
            for capacity in [1, 7, 8192] {
                let r = std::io::BufReader::with_capacity(capacity, &input[..]);
                let e = read_ads_from(r, "f", small(64)).unwrap_err();
                assert_eq!((e.line, e.column), (line, column), "{what}: {e}");
                assert!(e.message.contains(what), "{what}: {e}");
            }
        }
    }
}
