//! What calls hand back to C besides ads and values: strings, arrays of slot
//! indices and arrays of (job, slot) pairs, each an immutable handle that C reads
//! in place and frees with its `_free`.

use crate::boundary::{free_handle, guard_value, handle};
use std::ffi::c_char;

/// A string the library made (an expression or ad printed, a value printed):
/// UTF-8 bytes, read with `classad_string_data` and `classad_string_len`, freed
/// with `classad_string_free`. Immutable: may be read from several threads at
/// once.
#[allow(non_camel_case_types)]
pub struct classad_string {
    /// The text followed by a NUL (not counted in its length).
    bytes: Box<[u8]>,
}

impl classad_string {
    /// The string of `text`.
    pub fn new(text: String) -> classad_string {
        let mut bytes = text.into_bytes();
        bytes.push(0);
        classad_string {
            bytes: bytes.into_boxed_slice(),
        }
    }
}

/// The bytes of `s`: `classad_string_len(s)` bytes of UTF-8, followed by a NUL
/// that is not part of the string (so the pointer may be given to functions
/// that want a C string, as long as the text holds no NUL of its own).
/// `NULL` when `s` is `NULL`. The pointer is valid until `s` is freed.
///
/// # Safety
/// `s` is `NULL` or a live `classad_string` handle.
#[no_mangle]
pub unsafe extern "C" fn classad_string_data(s: *const classad_string) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: the caller's guarantee on `s`.
        let s = unsafe { handle(s, "string") }?;
        Ok(s.bytes.as_ptr().cast())
    })
}

/// The length of `s` in bytes, without the NUL that follows it; 0 when `s` is
/// `NULL`.
///
/// # Safety
/// `s` is `NULL` or a live `classad_string` handle.
#[no_mangle]
pub unsafe extern "C" fn classad_string_len(s: *const classad_string) -> usize {
    guard_value(0, || {
        // SAFETY: the caller's guarantee on `s`.
        let s = unsafe { handle(s, "string") }?;
        Ok(s.bytes.len() - 1)
    })
}

/// Frees a string; `NULL` is ignored.
///
/// # Safety
/// `s` is `NULL` or a live `classad_string` handle, not used after this.
#[no_mangle]
pub unsafe extern "C" fn classad_string_free(s: *mut classad_string) {
    guard_value((), || {
        // SAFETY: the caller's guarantee on `s`.
        unsafe { free_handle(s) };
        Ok(())
    })
}

/// An array of 32-bit unsigned integers (slot indices): read with
/// `classad_u32_array_data` and `classad_u32_array_len`, freed with
/// `classad_u32_array_free`. Immutable: may be read from several threads at
/// once.
#[allow(non_camel_case_types)]
pub struct classad_u32_array {
    /// The numbers.
    pub(crate) items: Vec<u32>,
}

/// The numbers of `a`, `classad_u32_array_len(a)` of them; `NULL` when `a` is
/// `NULL`; not to be read when `a` is empty. Valid until `a` is freed.
///
/// # Safety
/// `a` is `NULL` or a live `classad_u32_array` handle.
#[no_mangle]
pub unsafe extern "C" fn classad_u32_array_data(a: *const classad_u32_array) -> *const u32 {
    guard_value(std::ptr::null(), || {
        // SAFETY: the caller's guarantee on `a`.
        let a = unsafe { handle(a, "array") }?;
        Ok(a.items.as_ptr())
    })
}

/// How many numbers `a` holds; 0 when `a` is `NULL`.
///
/// # Safety
/// `a` is `NULL` or a live `classad_u32_array` handle.
#[no_mangle]
pub unsafe extern "C" fn classad_u32_array_len(a: *const classad_u32_array) -> usize {
    guard_value(0, || {
        // SAFETY: the caller's guarantee on `a`.
        let a = unsafe { handle(a, "array") }?;
        Ok(a.items.len())
    })
}

/// Frees an array; `NULL` is ignored.
///
/// # Safety
/// `a` is `NULL` or a live `classad_u32_array` handle, not used after this.
#[no_mangle]
pub unsafe extern "C" fn classad_u32_array_free(a: *mut classad_u32_array) {
    guard_value((), || {
        // SAFETY: the caller's guarantee on `a`.
        unsafe { free_handle(a) };
        Ok(())
    })
}

/// (job index, slot index) pairs, as two arrays of the same length:
/// `classad_pairs_jobs(p)[i]` and `classad_pairs_slots(p)[i]` are pair `i`, for
/// `i < classad_pairs_count(p)`. Freed with `classad_pairs_free`. Immutable: may
/// be read from several threads at once.
#[allow(non_camel_case_types)]
pub struct classad_pairs {
    /// Each pair's job index.
    pub(crate) jobs: Vec<u32>,
    /// Each pair's slot index.
    pub(crate) slots: Vec<u32>,
}

/// How many pairs `p` holds; 0 when `p` is `NULL`.
///
/// # Safety
/// `p` is `NULL` or a live `classad_pairs` handle.
#[no_mangle]
pub unsafe extern "C" fn classad_pairs_count(p: *const classad_pairs) -> usize {
    guard_value(0, || {
        // SAFETY: the caller's guarantee on `p`.
        let p = unsafe { handle(p, "pairs") }?;
        Ok(p.jobs.len())
    })
}

/// The job index of each pair, `classad_pairs_count(p)` of them; `NULL` when `p`
/// is `NULL`; not to be read when `p` is empty. Valid until `p` is freed.
///
/// # Safety
/// `p` is `NULL` or a live `classad_pairs` handle.
#[no_mangle]
pub unsafe extern "C" fn classad_pairs_jobs(p: *const classad_pairs) -> *const u32 {
    guard_value(std::ptr::null(), || {
        // SAFETY: the caller's guarantee on `p`.
        let p = unsafe { handle(p, "pairs") }?;
        Ok(p.jobs.as_ptr())
    })
}

/// The slot index of each pair, `classad_pairs_count(p)` of them; `NULL` when
/// `p` is `NULL`; not to be read when `p` is empty. Valid until `p` is freed.
///
/// # Safety
/// `p` is `NULL` or a live `classad_pairs` handle.
#[no_mangle]
pub unsafe extern "C" fn classad_pairs_slots(p: *const classad_pairs) -> *const u32 {
    guard_value(std::ptr::null(), || {
        // SAFETY: the caller's guarantee on `p`.
        let p = unsafe { handle(p, "pairs") }?;
        Ok(p.slots.as_ptr())
    })
}

/// Frees pairs; `NULL` is ignored.
///
/// # Safety
/// `p` is `NULL` or a live `classad_pairs` handle, not used after this.
#[no_mangle]
pub unsafe extern "C" fn classad_pairs_free(p: *mut classad_pairs) {
    guard_value((), || {
        // SAFETY: the caller's guarantee on `p`.
        unsafe { free_handle(p) };
        Ok(())
    })
}
