//! Progress of a long command on standard error: a line per phase (reading,
//! compiling, matching, negotiating), drawn only when standard error is a
//! terminal and the command has run for [`SHOW_AFTER`]; nothing otherwise, so
//! that pipes, files, CI logs and short runs see no progress at all.
//!
//! `CLASSAD_PROGRESS_AFTER_MS` sets the wait in milliseconds (tests use 0).

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::BufRead;
use std::sync::mpsc;
use std::time::Duration;

/// How long a command runs before its progress is drawn.
pub const SHOW_AFTER: Duration = Duration::from_secs(1);

/// The progress lines of one command; they disappear when it is dropped.
pub struct Progress {
    lines: MultiProgress,
    /// Dropped (with the progress) to wake the thread that would draw them.
    _stop: Option<mpsc::Sender<()>>,
}

impl Progress {
    /// Progress drawn on standard error once the command has run for
    /// [`SHOW_AFTER`] (or `CLASSAD_PROGRESS_AFTER_MS`), if it is a terminal;
    /// never when `quiet`.
    pub fn on_stderr(quiet: bool) -> Progress {
        if quiet {
            return Progress::hidden();
        }
        let after = std::env::var("CLASSAD_PROGRESS_AFTER_MS")
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map_or(SHOW_AFTER, Duration::from_millis);
        Progress::drawn_after(after, ProgressDrawTarget::stderr)
    }

    /// Progress never drawn.
    pub fn hidden() -> Progress {
        Progress {
            lines: MultiProgress::with_draw_target(ProgressDrawTarget::hidden()),
            _stop: None,
        }
    }

    /// Progress drawn to `target()` from `after` on, unless dropped before.
    fn drawn_after(after: Duration, target: fn() -> ProgressDrawTarget) -> Progress {
        if after.is_zero() {
            return Progress {
                lines: MultiProgress::with_draw_target(target()),
                _stop: None,
            };
        }
        let lines = MultiProgress::with_draw_target(ProgressDrawTarget::hidden());
        let (stop, stopped) = mpsc::channel::<()>();
        let shown = lines.clone();
        std::thread::spawn(move || {
            // Woken early (the sender dropped) when the command ends first.
            if let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(after) {
                shown.set_draw_target(target());
            }
        });
        Progress {
            lines,
            _stop: Some(stop),
        }
    }

    /// True while nothing is drawn.
    #[cfg(test)]
    fn is_hidden(&self) -> bool {
        self.lines.is_hidden()
    }

    /// A phase with no measure of its length: its name and the time it has taken.
    pub fn phase(&self, name: &str) -> Phase {
        let bar = ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template("{spinner} {msg} {elapsed}").expect("a valid template"),
        );
        self.start(bar, name)
    }

    /// A phase that reads `total` bytes (`None`: not known, as for standard
    /// input or a compressed file): the bytes read so far, and of how many.
    pub fn reading(&self, name: &str, total: Option<u64>) -> Phase {
        let bar = match total {
            Some(total) => ProgressBar::new(total).with_style(
                ProgressStyle::with_template(
                    "{msg} [{bar:30}] {bytes}/{total_bytes} {elapsed} (about {eta} left)",
                )
                .expect("a valid template")
                .progress_chars("=> "),
            ),
            None => ProgressBar::new_spinner().with_style(
                ProgressStyle::with_template("{spinner} {msg} {bytes} {elapsed}")
                    .expect("a valid template"),
            ),
        };
        self.start(bar, name)
    }

    fn start(&self, bar: ProgressBar, name: &str) -> Phase {
        let bar = self.lines.add(bar);
        bar.set_message(name.to_string());
        bar.enable_steady_tick(Duration::from_millis(100));
        Phase { bar }
    }
}

/// One phase's line: cleared when dropped.
pub struct Phase {
    bar: ProgressBar,
}

impl Phase {
    /// `reader`, counting its bytes into this phase as they are consumed.
    pub fn count<R: BufRead>(&self, reader: R) -> Counted<R> {
        Counted {
            inner: reader,
            bar: self.bar.clone(),
        }
    }

    /// The bytes (or items) done so far.
    #[cfg(test)]
    fn position(&self) -> u64 {
        self.bar.position()
    }
}

impl Drop for Phase {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// A reader whose consumed bytes advance a phase.
pub struct Counted<R> {
    inner: R,
    bar: ProgressBar,
}

impl<R: BufRead> std::io::Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bar.inc(n as u64);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.bar.inc(amt as u64);
        self.inner.consume(amt);
    }
}

/// The size of the file `path` when its bytes are the ads' (not standard
/// input, not compressed): what a reading phase counts up to.
pub fn plain_size(path: &str) -> Option<u64> {
    if path == "-" {
        return None;
    }
    let mut head = [0u8; 2];
    let mut file = std::fs::File::open(path).ok()?;
    let gzip = std::io::Read::read(&mut file, &mut head).ok()? == 2 && head == [0x1f, 0x8b];
    if gzip {
        return None;
    }
    file.metadata().ok().map(|m| m.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// A terminal's stand-in that keeps nothing: a target that is drawn to, so
    /// that becoming visible can be seen.
    #[derive(Debug)]
    struct Screen;

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            80
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, _: &str) -> std::io::Result<()> {
            Ok(())
        }
        fn write_str(&self, _: &str) -> std::io::Result<()> {
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn visible() -> ProgressDrawTarget {
        ProgressDrawTarget::term_like(Box::new(Screen))
    }

    #[test]
    fn a_short_run_draws_nothing_and_a_long_one_does() {
        let short = Progress::drawn_after(Duration::from_secs(3600), visible);
        std::thread::sleep(Duration::from_millis(50));
        assert!(short.is_hidden(), "drawn before the wait");
        let long = Progress::drawn_after(Duration::from_millis(0), visible);
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while long.is_hidden() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(!long.is_hidden(), "not drawn after the wait");
    }

    #[test]
    fn quiet_progress_is_never_drawn() {
        let p = Progress::on_stderr(true);
        std::thread::sleep(Duration::from_millis(20));
        assert!(p.is_hidden());
    }

    #[test]
    fn a_counted_reader_advances_its_phase_by_the_bytes_consumed() {
        let p = Progress::hidden();
        let phase = p.reading("reading", Some(11));
        let mut r = phase.count(std::io::BufReader::with_capacity(4, &b"hello world"[..]));
        let mut first = [0u8; 3];
        r.read_exact(&mut first).expect("read");
        assert_eq!(phase.position(), 3);
        let mut rest = String::new();
        r.read_to_string(&mut rest).expect("read");
        assert_eq!((first.as_slice(), rest.as_str()), (&b"hel"[..], "lo world"));
        assert_eq!(phase.position(), 11);
    }

    #[test]
    fn the_size_counted_is_the_plain_files() {
        let dir = std::env::temp_dir().join(format!("classad-progress-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let plain = dir.join("plain.ads");
        std::fs::write(&plain, "A = 1\n").expect("written");
        let gz = dir.join("ads.gz");
        std::fs::write(&gz, [0x1f, 0x8b, 8, 0]).expect("written");
        assert_eq!(plain_size(plain.to_str().expect("utf-8")), Some(6));
        assert_eq!(plain_size(gz.to_str().expect("utf-8")), None);
        assert_eq!(plain_size("-"), None);
        std::fs::remove_dir_all(&dir).expect("removed");
    }
}
