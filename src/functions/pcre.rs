//! PCRE2, HTCondor's own regular-expression engine, for the patterns the linear
//! `regex` crate cannot take or reads differently (back-references, look-around,
//! atomic groups, recursion, `\K`, ...; see `regex.rs` for the routing).
//!
//! A thin safe wrapper over `pcre2-sys` (PCRE2 10.46 built from its bundled
//! source): compiled as HTCondor compiles (8-bit code units, no UTF mode, no JIT),
//! matched with a match limit and a heap limit so that a runaway backtrack ends
//! in bounded time and memory with [`RunAway`] instead of running for ever.

use pcre2_sys::*;
use std::ops::Range;
use std::ptr::{self, NonNull};

/// Backtracking steps one match may take (PCRE2's `match_limit`). HTCondor runs
/// with PCRE2's default of 10,000,000, which takes about half a second for a
/// catastrophic pattern; a tenth of that keeps a runaway match within tens of
/// milliseconds and still lets every ordinary pattern finish.
pub(crate) const MATCH_LIMIT: u32 = 1_000_000;

/// Memory for one match's backtracking frames, in KiB (PCRE2's `heap_limit`;
/// its default is 20 GB).
pub(crate) const HEAP_LIMIT_KIB: u32 = 32 * 1024;

/// Option bits of `pcre2_compile`: HTCondor's option letters `i m s x`.
pub(crate) const CASELESS: u32 = PCRE2_CASELESS;
/// `m`: `^` and `$` also at line boundaries.
pub(crate) const MULTILINE: u32 = PCRE2_MULTILINE;
/// `s`: `.` also matches a newline.
pub(crate) const DOTALL: u32 = PCRE2_DOTALL;
/// `x`: white space and `#` comments in the pattern are ignored.
pub(crate) const EXTENDED: u32 = PCRE2_EXTENDED;

/// A match gave up at the match, depth or heap limit (or failed otherwise):
/// HTCondor's builtins read this as a failed match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RunAway;

/// Each group's byte range in the subject, `None` where the group did not take
/// part; element 0 is the whole match.
pub(crate) type Groups = Vec<Option<Range<usize>>>;

/// A compiled pattern. PCRE2 never writes to compiled code while matching, so
/// one may be shared by threads (pcre2api(3), "Multithreading").
pub(crate) struct Pcre {
    code: NonNull<pcre2_code_8>,
}

// SAFETY: the compiled code is immutable after `pcre2_compile` and PCRE2
// documents it as safe to use from several threads at once; every match makes
// its own match data and match context.
unsafe impl Send for Pcre {}
// SAFETY: as above.
unsafe impl Sync for Pcre {}

impl Drop for Pcre {
    fn drop(&mut self) {
        // SAFETY: `code` came from `pcre2_compile_8` and is freed only here.
        unsafe { pcre2_code_free_8(self.code.as_ptr()) }
    }
}

impl Pcre {
    /// Compiles `pattern` with the `pcre2_compile` option bits `options`; `None`
    /// when PCRE2 refuses it. A variable-length look-behind is refused, as the
    /// PCRE2 10.32 in HTCondor 25 refuses it (10.43 began to accept them).
    pub(crate) fn new(pattern: &str, options: u32) -> Option<Pcre> {
        let (mut code, mut offset) = (0, 0);
        // SAFETY: plain FFI calls; the context is freed before returning and the
        // pattern pointer and length describe a live byte slice.
        let compiled = unsafe {
            let ctx = pcre2_compile_context_create_8(ptr::null_mut());
            if ctx.is_null() {
                return None;
            }
            pcre2_set_max_varlookbehind_8(ctx, 0);
            let compiled = pcre2_compile_8(
                pattern.as_ptr(),
                pattern.len(),
                options,
                &mut code,
                &mut offset,
                ctx,
            );
            pcre2_compile_context_free_8(ctx);
            compiled
        };
        NonNull::new(compiled).map(|code| Pcre { code })
    }

    /// The first match starting at or after `start` (`pcre2_match` with
    /// `options`, such as `PCRE2_ANCHORED | PCRE2_NOTEMPTY_ATSTART`), with its
    /// groups up to the last one that took part.
    pub(crate) fn captures_at(
        &self,
        subject: &[u8],
        start: usize,
        options: u32,
    ) -> Result<Option<Groups>, RunAway> {
        // A non-dangling pointer even for an empty subject (its length stays 0).
        static EMPTY: [u8; 1] = [0];
        let text = if subject.is_empty() {
            &EMPTY[..]
        } else {
            subject
        };
        // SAFETY: the match data and context are made, used and freed here; the
        // ovector holds `2 * count` offsets, read only when the match succeeded.
        unsafe {
            let data = pcre2_match_data_create_from_pattern_8(self.code.as_ptr(), ptr::null_mut());
            let ctx = pcre2_match_context_create_8(ptr::null_mut());
            let result = if data.is_null() || ctx.is_null() {
                Err(RunAway)
            } else {
                pcre2_set_match_limit_8(ctx, MATCH_LIMIT);
                pcre2_set_heap_limit_8(ctx, HEAP_LIMIT_KIB);
                let rc = pcre2_match_8(
                    self.code.as_ptr(),
                    text.as_ptr(),
                    subject.len(),
                    start,
                    options,
                    data,
                    ctx,
                );
                if rc == PCRE2_ERROR_NOMATCH {
                    Ok(None)
                } else if rc <= 0 {
                    Err(RunAway)
                } else {
                    let ov = pcre2_get_ovector_pointer_8(data);
                    let groups: Groups = (0..rc as usize)
                        .map(|g| {
                            let (s, e) = (*ov.add(2 * g), *ov.add(2 * g + 1));
                            (s != PCRE2_UNSET && s <= e).then_some(s..e)
                        })
                        .collect();
                    // `\K` in a look-ahead can put the start after the end.
                    if groups[0].is_some() {
                        Ok(Some(groups))
                    } else {
                        Err(RunAway)
                    }
                }
            };
            if !ctx.is_null() {
                pcre2_match_context_free_8(ctx);
            }
            if !data.is_null() {
                pcre2_match_data_free_8(data);
            }
            result
        }
    }

    /// Whether `subject` holds a match.
    pub(crate) fn is_match(&self, subject: &[u8]) -> Result<bool, RunAway> {
        self.captures_at(subject, 0, 0).map(|m| m.is_some())
    }
}

/// `pcre2_match` options for the search after an empty match: a non-empty match
/// that starts exactly there.
pub(crate) const NON_EMPTY_HERE: u32 = PCRE2_ANCHORED | PCRE2_NOTEMPTY_ATSTART;

#[cfg(test)]
mod tests {
    use super::*;

    const fn send_sync<T: Send + Sync>() {}
    // Compiled patterns live in the process-wide cache and are shared by threads.
    const _: () = send_sync::<Pcre>();

    #[test]
    fn back_references_and_look_around() {
        let re = Pcre::new("(a)\\1", 0).unwrap();
        assert_eq!(re.is_match(b"xaa"), Ok(true));
        assert_eq!(re.is_match(b"ab"), Ok(false));
        let re = Pcre::new("(?<=a)b", 0).unwrap();
        assert_eq!(re.captures_at(b"abab", 2, 0), Ok(Some(vec![Some(3..4)])));
        assert!(Pcre::new("(", 0).is_none());
    }

    #[test]
    fn variable_length_look_behind_is_refused_as_in_htcondor() {
        assert!(Pcre::new("(?<=\\d{1,3})x", 0).is_none());
        assert!(Pcre::new("(?<=ab|c)x", 0).is_some());
    }

    #[test]
    fn groups_stop_at_the_last_that_took_part() {
        let re = Pcre::new("(a)|(b)|(c)", 0).unwrap();
        assert_eq!(
            re.captures_at(b"b", 0, 0),
            Ok(Some(vec![Some(0..1), None, Some(0..1)]))
        );
    }

    #[test]
    fn a_catastrophic_match_stops_at_the_limit() {
        let re = Pcre::new("(a+)+$", 0).unwrap();
        let subject = format!("{}b", "a".repeat(40));
        assert_eq!(re.is_match(subject.as_bytes()), Err(RunAway));
    }

    #[test]
    fn non_empty_here_skips_an_empty_first_choice() {
        let re = Pcre::new("|a", 0).unwrap();
        assert_eq!(re.captures_at(b"ab", 0, 0), Ok(Some(vec![Some(0..0)])));
        assert_eq!(
            re.captures_at(b"ab", 0, NON_EMPTY_HERE),
            Ok(Some(vec![Some(0..1)]))
        );
        assert_eq!(re.captures_at(b"ab", 1, NON_EMPTY_HERE), Ok(None));
    }
}
