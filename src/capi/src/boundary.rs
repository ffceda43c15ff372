//! The boundary itself: status codes, the thread's last error message, the guard
//! that keeps panics from crossing into C, and the few small `unsafe` helpers
//! that read what C hands over (text, handles, output pointers). Every other
//! module reaches C's memory through these helpers only.

use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What a call did: `CLASSAD_OK`, or why it failed. On failure,
/// `classad_last_error` gives a message saying more, and every output pointer the
/// call was given is left as the call found it, except output handles, which are
/// set to `NULL`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum classad_status {
    /// Success.
    CLASSAD_OK = 0,
    /// A pointer argument that must not be `NULL` was `NULL`.
    CLASSAD_ERR_NULL = 1,
    /// Text given to the call is not UTF-8 (the message gives the byte offset).
    CLASSAD_ERR_UTF8 = 2,
    /// Text does not parse: an ad, an expression, a configuration or a
    /// priorities file. The message names the line and column, as the library's
    /// own errors do (`<string>:2:5: expected ...` for ads, `line 1, column 4:
    /// ...` for expressions).
    CLASSAD_ERR_PARSE = 3,
    /// Evaluation failed outright: nesting deeper than HTCondor's limit, or its
    /// budget of steps exhausted (HTCondor reports these as a failure, not a
    /// value).
    CLASSAD_ERR_EVAL = 4,
    /// The ad has no attribute of that name.
    CLASSAD_ERR_NOT_FOUND = 5,
    /// A value accessor was called on a value of another type.
    CLASSAD_ERR_TYPE = 6,
    /// A file could not be opened or read.
    CLASSAD_ERR_IO = 7,
    /// An argument is out of range: an unknown format or style, an index past
    /// the end, a length beyond `PTRDIFF_MAX`, more ads than 32-bit indices
    /// count.
    CLASSAD_ERR_ARGUMENT = 8,
    /// A bug in this library: a Rust panic, caught at the boundary (the message
    /// gives the panic's text). The handles given to the call may be used and
    /// freed as usual.
    CLASSAD_ERR_PANIC = 9,
}

pub use classad_status::*;

/// A failure on its way to C: its status and its message.
#[derive(Debug)]
pub struct Failure {
    /// The status the call returns.
    pub status: classad_status,
    /// What `classad_last_error` will say.
    pub message: String,
}

impl Failure {
    /// A failure with `status` and `message`.
    pub fn new(status: classad_status, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }
}

/// The result of a call's body.
pub type Outcome<T = ()> = Result<T, Failure>;

thread_local! {
    /// The message of the last failed call on this thread, NUL-terminated.
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Keeps `message` as this thread's last error (a NUL inside is shown as `\0`).
fn set_last_error(message: &str) {
    let text = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
    // During the thread's teardown the slot may be gone; the status still says it.
    let _ = LAST_ERROR.try_with(|e| *e.borrow_mut() = text);
}

/// The text of a panic's payload.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "a panic without a message"
    }
}

/// Runs the body of an `extern "C"` function: its failure becomes a status and the
/// thread's last error, and a panic is caught here, never unwinding into C.
pub fn guard(body: impl FnOnce() -> Outcome) -> classad_status {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => CLASSAD_OK,
        Ok(Err(f)) => {
            set_last_error(&f.message);
            f.status
        }
        Err(payload) => {
            set_last_error(&format!(
                "internal error (a bug in classad, please report it): {}",
                panic_text(&*payload)
            ));
            // Dropping a payload can itself panic; it must not unwind into C.
            let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
            CLASSAD_ERR_PANIC
        }
    }
}

/// [`guard`] for the accessors that return a value rather than a status: `body`'s
/// value, or `fallback` when it failed or panicked (the last error says why).
pub fn guard_value<T>(fallback: T, body: impl FnOnce() -> Outcome<T>) -> T {
    let mut out = None;
    guard(|| {
        out = Some(body()?);
        Ok(())
    });
    out.unwrap_or(fallback)
}

/// `classad_last_error`'s pointer and length, copied by the caller.
pub fn with_last_error<T>(f: impl FnOnce(&CString) -> T) -> Option<T> {
    LAST_ERROR.try_with(|e| f(&e.borrow())).ok()
}

/// The failure for a `NULL` argument named `what`.
pub fn null(what: &str) -> Failure {
    Failure::new(CLASSAD_ERR_NULL, format!("{what} is NULL"))
}

/// The bytes C passed as (`ptr`, `len`).
///
/// # Safety
/// `ptr` is `NULL` or points to `len` bytes that are readable and not written to
/// during the call. The bytes are borrowed for the call only.
pub unsafe fn bytes<'a>(ptr: *const c_char, len: usize, what: &str) -> Outcome<&'a [u8]> {
    if ptr.is_null() {
        return Err(null(what));
    }
    if len > isize::MAX as usize {
        return Err(Failure::new(
            CLASSAD_ERR_ARGUMENT,
            format!("{what}: length {len} is beyond PTRDIFF_MAX"),
        ));
    }
    // SAFETY: `ptr` is not null and the caller guarantees `len` readable bytes
    // there, unchanged during the call; `len` fits a slice (checked above), and
    // `c_char` and `u8` have the same size and alignment.
    Ok(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) })
}

/// The UTF-8 text C passed as (`ptr`, `len`); no NUL terminator is needed or
/// looked for.
///
/// # Safety
/// As for [`bytes`].
pub unsafe fn text<'a>(ptr: *const c_char, len: usize, what: &str) -> Outcome<&'a str> {
    // SAFETY: the caller's guarantee, passed on.
    let b = unsafe { bytes(ptr, len, what)? };
    std::str::from_utf8(b).map_err(|e| {
        Failure::new(
            CLASSAD_ERR_UTF8,
            format!(
                "{what} is not UTF-8: invalid byte at offset {}",
                e.valid_up_to()
            ),
        )
    })
}

/// Optional text: `None` when `ptr` is `NULL`.
///
/// # Safety
/// As for [`bytes`].
pub unsafe fn opt_text<'a>(ptr: *const c_char, len: usize, what: &str) -> Outcome<Option<&'a str>> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller's guarantee, passed on.
    unsafe { text(ptr, len, what) }.map(Some)
}

/// The object behind a handle.
///
/// # Safety
/// `ptr` is `NULL` or a handle of type `T` made by this library and not freed yet,
/// with no call using it mutably at the same time.
pub unsafe fn handle<'a, T>(ptr: *const T, what: &str) -> Outcome<&'a T> {
    // SAFETY: by the caller's guarantee a non-null `ptr` points to a live `T`
    // (from `Box::into_raw` in `new_handle`), shared for the call.
    unsafe { ptr.as_ref() }.ok_or_else(|| null(what))
}

/// The object behind a handle, to change.
///
/// # Safety
/// `ptr` is `NULL` or a handle of type `T` made by this library and not freed yet,
/// used by no other call at the same time.
pub unsafe fn handle_mut<'a, T>(ptr: *mut T, what: &str) -> Outcome<&'a mut T> {
    // SAFETY: by the caller's guarantee a non-null `ptr` points to a live `T`
    // that no one else uses during the call.
    unsafe { ptr.as_mut() }.ok_or_else(|| null(what))
}

/// A new handle owning `value`, for C to free with the type's `_free`.
pub fn new_handle<T>(value: T) -> *mut T {
    Box::into_raw(Box::new(value))
}

/// Frees a handle made by [`new_handle`]; `NULL` is ignored.
///
/// # Safety
/// `ptr` is `NULL` or a handle of type `T` made by this library, not freed yet and
/// not in use by any other call; it must not be used after this.
pub unsafe fn free_handle<T>(ptr: *mut T) {
    if !ptr.is_null() {
        // SAFETY: `ptr` came from `Box::into_raw` of a `Box<T>` (the caller's
        // guarantee) and is freed once.
        drop(unsafe { Box::from_raw(ptr) });
    }
}

/// An output pointer, checked at the start of a call; [`Out::set`] writes it.
pub struct Out<T>(*mut T);

/// Checks an output pointer.
///
/// # Safety
/// `ptr` is `NULL` or valid for writing a `T` (and, for [`Out::set`], for
/// dropping none: the old contents are overwritten, not dropped) until the
/// call returns.
pub unsafe fn out_value<T>(ptr: *mut T, what: &str) -> Outcome<Out<T>> {
    if ptr.is_null() {
        Err(null(what))
    } else {
        Ok(Out(ptr))
    }
}

impl<T> Out<T> {
    /// Writes `value` to the output.
    pub fn set(self, value: T) {
        // SAFETY: `out` checked the pointer is not null, and its caller
        // guaranteed it is valid for writes during the call; `write` does not
        // read or drop what was there.
        unsafe { self.0.write(value) }
    }
}

/// An output handle: checked and set to `NULL` at the start of a call, so that it
/// is `NULL` whenever the call fails.
///
/// # Safety
/// As for [`out_value`].
pub unsafe fn out_handle<T>(ptr: *mut *mut T, what: &str) -> Outcome<Out<*mut T>> {
    // SAFETY: the caller's guarantee, passed on.
    let o = unsafe { out_value(ptr, what)? };
    // SAFETY: as in `Out::set`: not null, valid for writes.
    unsafe { o.0.write(std::ptr::null_mut()) };
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_a_status_and_a_message() {
        let s = guard(|| panic!("boom {}", 42));
        assert_eq!(s, CLASSAD_ERR_PANIC);
        let msg = with_last_error(|e| e.to_str().unwrap().to_string()).unwrap();
        assert!(msg.ends_with("boom 42"), "{msg}");
    }

    #[test]
    fn a_failure_keeps_its_status_and_message() {
        let s = guard(|| Err(Failure::new(CLASSAD_ERR_TYPE, "not a\0 string")));
        assert_eq!(s, CLASSAD_ERR_TYPE);
        let msg = with_last_error(|e| e.to_str().unwrap().to_string()).unwrap();
        assert_eq!(msg, "not a\\0 string");
        assert_eq!(guard(|| Ok(())), CLASSAD_OK);
    }

    #[test]
    fn text_checks_null_length_and_utf8() {
        // SAFETY: each pointer is null or points to the given bytes.
        unsafe {
            assert_eq!(
                text(std::ptr::null(), 0, "x").unwrap_err().status,
                CLASSAD_ERR_NULL
            );
            let bad = b"ab\xffc";
            let e = text(bad.as_ptr().cast(), bad.len(), "expr").unwrap_err();
            assert_eq!(e.status, CLASSAD_ERR_UTF8);
            assert!(e.message.contains("offset 2"), "{}", e.message);
            let good = b"a = 1 junk";
            assert_eq!(text(good.as_ptr().cast(), 5, "x").unwrap(), "a = 1");
            let huge = text(good.as_ptr().cast(), usize::MAX, "x").unwrap_err();
            assert_eq!(huge.status, CLASSAD_ERR_ARGUMENT);
        }
    }
}
