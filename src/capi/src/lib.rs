//! The C ABI of the `classad` crate: HTCondor's ClassAd language (parse, print,
//! evaluate, match, batch matching of pools, the negotiation cycle, a living
//! pool negotiated cycle after cycle) for C, C++, Go and anything else that
//! calls C. The header, `include/classad.h`, is generated from this crate by
//! cbindgen and committed (`tests/header.rs` fails when it is stale;
//! `CLASSAD_BLESS=1` rewrites it); the crate builds a `cdylib`
//! (`libclassad_capi.so`) and a `staticlib` (`libclassad_capi.a`).
//! `tests/capi/test_capi.c`, at the repository's top, is a C program using it,
//! which `tests/c_program.rs` builds, runs, and runs under valgrind.
//!
//! The rules, the same for every function:
//!
//! - Objects are opaque handles (`classad_ad *`, `classad_value *`, ...), each
//!   made by a constructor and freed by its type's `_free` (which ignores
//!   `NULL`). Nothing a call returns borrows from its arguments, except where a
//!   function says so (`classad_value_string`, `classad_string_data`, ...: valid
//!   until the handle is freed).
//! - Calls return a `classad_status`: `CLASSAD_OK`, or an error whose message
//!   `classad_last_error` gives, on the thread that made the call. Output
//!   handles are set to `NULL` when a call fails.
//! - Text goes in as UTF-8 bytes with a length (`const char *text, size_t len`),
//!   never read up to a NUL; text that is not UTF-8 is refused
//!   (`CLASSAD_ERR_UTF8`). Text comes out as `classad_string` handles (bytes and
//!   length, with a NUL after them for convenience).
//! - No Rust panic crosses into C: every function catches it and returns
//!   `CLASSAD_ERR_PANIC`.
//! - Threads: ads, values, strings, arrays, pairs and pools may be used from
//!   several threads at once (they are immutable, or lock inside); a list may be
//!   read from several threads at once but `classad_ad_list_push` needs it to
//!   itself; a living pool (`classad_living_pool`) is changed by its calls and
//!   needs each to itself. The batch calls work on several threads themselves
//!   (`classad_set_threads` sets how many).
//! - Evaluation uses HTCondor's daemon semantics, as `classad eval` does.

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod ad;
mod boundary;
pub mod living;
pub mod output;
pub mod pool;
pub mod threads;
pub mod value;

pub use ad::*;
pub use boundary::classad_status;
pub use living::*;
pub use output::*;
pub use pool::*;
pub use threads::*;
pub use value::*;

use boundary::{guard_value, with_last_error};
use std::ffi::c_char;

/// The version of this library (`major.minor.patch`), a NUL-terminated string
/// that lives as long as the program.
#[no_mangle]
pub extern "C" fn classad_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The message of the last call that failed on this thread (empty when none
/// has), as a NUL-terminated UTF-8 string; its length in bytes, without the
/// NUL, in `*len` unless `len` is `NULL`. The string belongs to the library:
/// it stays valid until the next call that fails on this thread, or the
/// thread's end; copy it to keep it.
///
/// # Safety
/// `len` is `NULL` or valid for writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn classad_last_error(len: *mut usize) -> *const c_char {
    guard_value(c"".as_ptr(), || {
        let (ptr, n) =
            with_last_error(|e| (e.as_ptr(), e.as_bytes().len())).unwrap_or((c"".as_ptr(), 0));
        if !len.is_null() {
            // SAFETY: not null, and the caller guarantees it is valid for writes.
            unsafe { len.write(n) };
        }
        Ok(ptr)
    })
}

/// Copies the message of the last call that failed on this thread into `buf`
/// (`cap` bytes): as much of it as fits with a NUL after it (cut at a UTF-8
/// character boundary); nothing when `buf` is `NULL` or `cap` is 0. Returns the
/// message's whole length in bytes, without the NUL: a result of `cap` or more
/// means it was cut (call again with a buffer of result + 1 bytes).
///
/// # Safety
/// `buf` is `NULL` or valid for writing `cap` bytes.
#[no_mangle]
pub unsafe extern "C" fn classad_last_error_copy(buf: *mut c_char, cap: usize) -> usize {
    guard_value(0, || {
        let copied = with_last_error(|e| {
            let msg = e.to_str().unwrap_or("");
            if !buf.is_null() && cap > 0 {
                let mut n = msg.len().min(cap - 1);
                while !msg.is_char_boundary(n) {
                    n -= 1;
                }
                // SAFETY: `buf` is not null and the caller guarantees `cap`
                // writable bytes; `n + 1 <= cap`, and the message is a separate
                // allocation of the library's, so the two do not overlap.
                unsafe {
                    std::ptr::copy_nonoverlapping(msg.as_ptr(), buf.cast::<u8>(), n);
                    buf.add(n).write(0);
                }
            }
            msg.len()
        });
        Ok(copied.unwrap_or(0))
    })
}
