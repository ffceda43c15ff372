//! Evaluation: an expression alone, in an ad, or in a match of two ads (MY and
//! TARGET), its value behind a handle with a type tag and accessors; and the
//! symmetric match of two ads. Evaluations use HTCondor's daemon semantics (what
//! `condor_q`, the negotiator and `classad eval` use) on the bytecode machine.

use crate::ad::classad_ad;
use crate::boundary::*;
use crate::output::classad_string;
use classad::engine::{eval_alone_with, eval_in_with, Engine};
use classad::eval::Semantics;
use classad::matching::symmetric_match;
use classad::syntax::ast::ExprRef;
use classad::syntax::parse_expr;
use classad::values::display::unparse_value;
use classad::Value;
use std::ffi::c_char;
use std::sync::Arc;

/// The type of a value: what `classad_value_get_type` tells.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum classad_value_type {
    /// `undefined`.
    CLASSAD_VALUE_UNDEFINED = 0,
    /// `error`.
    CLASSAD_VALUE_ERROR = 1,
    /// `true` or `false`: `classad_value_bool`.
    CLASSAD_VALUE_BOOL = 2,
    /// A 64-bit integer: `classad_value_int`.
    CLASSAD_VALUE_INT = 3,
    /// A double: `classad_value_real`.
    CLASSAD_VALUE_REAL = 4,
    /// A string: `classad_value_string`.
    CLASSAD_VALUE_STRING = 5,
    /// An absolute time (`absTime(...)`): printed by `classad_value_print`.
    CLASSAD_VALUE_ABSTIME = 6,
    /// A relative time (`relTime(...)`): printed by `classad_value_print`.
    CLASSAD_VALUE_RELTIME = 7,
    /// A list: printed by `classad_value_print` (`{ 1,2 }`).
    CLASSAD_VALUE_LIST = 8,
    /// A record (a nested ad): printed by `classad_value_print`.
    CLASSAD_VALUE_RECORD = 9,
}

use classad_value_type::*;

/// The value of an evaluation. Immutable: may be read from several threads at
/// once. Made by `classad_eval`, `classad_ad_eval` and `classad_match_eval`,
/// freed with `classad_value_free`.
#[allow(non_camel_case_types)]
pub struct classad_value {
    /// The value (a list or record keeps what it needs of the ads it came
    /// from alive).
    value: Value,
}

/// The expression of `len` bytes at `expr`, parsed.
///
/// # Safety
/// As for [`crate::boundary::text`].
unsafe fn parse_arg(expr: *const c_char, len: usize) -> Outcome<ExprRef> {
    // SAFETY: the caller's guarantee, passed on.
    let text = unsafe { text(expr, len, "expr")? };
    let e = parse_expr(text).map_err(|e| Failure::new(CLASSAD_ERR_PARSE, e.to_string()))?;
    Ok(ExprRef::root_of(Arc::new(e)))
}

/// An evaluation's outcome as a value handle in `out`.
fn put_value(out: Out<*mut classad_value>, r: Result<Value, classad::eval::Fail>) -> Outcome {
    let value = r.map_err(|e| Failure::new(CLASSAD_ERR_EVAL, e.to_string()))?;
    out.set(new_handle(classad_value { value }));
    Ok(())
}

/// Evaluates the expression of `len` bytes of UTF-8 at `expr` on its own (no
/// ad: every attribute it names is undefined), into a new value in `*out`.
/// `CLASSAD_ERR_PARSE` when it does not parse (the message names the line and
/// column: `line 1, column 5: ...`), `CLASSAD_ERR_EVAL` when evaluation fails
/// outright.
///
/// # Safety
/// `expr` is `NULL` or points to `len` readable bytes; `out` is `NULL` or valid
/// for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_eval(
    expr: *const c_char,
    len: usize,
    out: *mut *mut classad_value,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out` and `expr`.
        let (out, e) = unsafe { (out_handle(out, "out")?, parse_arg(expr, len)?) };
        put_value(
            out,
            eval_alone_with(Engine::Vm, &e.tree, Semantics::Htcondor),
        )
    })
}

/// Evaluates the expression of `len` bytes of UTF-8 at `expr` as if it were an
/// attribute of `ad`, into a new value in `*out`. Errors as for `classad_eval`.
///
/// # Safety
/// `ad` is `NULL` or a live `classad_ad` handle; `expr` is `NULL` or points to
/// `len` readable bytes; `out` is `NULL` or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_eval(
    ad: *const classad_ad,
    expr: *const c_char,
    len: usize,
    out: *mut *mut classad_value,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out`, `ad` and `expr`.
        let (out, ad, e) = unsafe {
            (
                out_handle(out, "out")?,
                handle(ad, "ad")?,
                parse_arg(expr, len)?,
            )
        };
        put_value(
            out,
            eval_in_with(Engine::Vm, &e, &ad.ad, None, Semantics::Htcondor),
        )
    })
}

/// Evaluates the expression of `len` bytes of UTF-8 at `expr` in a match: as an
/// attribute of `my` (`MY.x`), with `target` the other ad (`TARGET.x`; an
/// unscoped name missing from `my` is looked up in `target`, as in HTCondor's
/// daemons), into a new value in `*out`. Errors as for `classad_eval`.
///
/// # Safety
/// `my` and `target` are `NULL` or live `classad_ad` handles; `expr` is `NULL`
/// or points to `len` readable bytes; `out` is `NULL` or valid for writing a
/// pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_match_eval(
    my: *const classad_ad,
    target: *const classad_ad,
    expr: *const c_char,
    len: usize,
    out: *mut *mut classad_value,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out`, `my`, `target` and `expr`.
        let (out, my, target, e) = unsafe {
            (
                out_handle(out, "out")?,
                handle(my, "my")?,
                handle(target, "target")?,
                parse_arg(expr, len)?,
            )
        };
        put_value(
            out,
            eval_in_with(
                Engine::Vm,
                &e,
                &my.ad,
                Some(&target.ad),
                Semantics::Htcondor,
            ),
        )
    })
}

/// Whether `a` and `b` match, in `*out`: HTCondor's `symmetricMatch`, each ad's
/// `Requirements` true (or a nonzero number) with the other as TARGET.
///
/// # Safety
/// `a` and `b` are `NULL` or live `classad_ad` handles; `out` is `NULL` or valid
/// for writing a `bool`.
#[no_mangle]
pub unsafe extern "C" fn classad_symmetric_match(
    a: *const classad_ad,
    b: *const classad_ad,
    out: *mut bool,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out`, `a` and `b`.
        let (out, a, b) = unsafe { (out_value(out, "out")?, handle(a, "a")?, handle(b, "b")?) };
        out.set(symmetric_match(&a.ad, &b.ad, Semantics::Htcondor));
        Ok(())
    })
}

/// The type of `v` (a `classad_value_type`), in `*out`.
///
/// # Safety
/// `v` is `NULL` or a live `classad_value` handle; `out` is `NULL` or valid for
/// writing a `classad_value_type`.
#[no_mangle]
pub unsafe extern "C" fn classad_value_get_type(
    v: *const classad_value,
    out: *mut classad_value_type,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out` and `v`.
        let (out, v) = unsafe { (out_value(out, "out")?, handle(v, "value")?) };
        out.set(match v.value {
            Value::Undefined => CLASSAD_VALUE_UNDEFINED,
            Value::Error => CLASSAD_VALUE_ERROR,
            Value::Bool(_) => CLASSAD_VALUE_BOOL,
            Value::Int(_) => CLASSAD_VALUE_INT,
            Value::Real(_) => CLASSAD_VALUE_REAL,
            Value::Str(_) => CLASSAD_VALUE_STRING,
            Value::AbsTime(_) => CLASSAD_VALUE_ABSTIME,
            Value::RelTime(_) => CLASSAD_VALUE_RELTIME,
            Value::List(_) => CLASSAD_VALUE_LIST,
            Value::Ad(_) => CLASSAD_VALUE_RECORD,
        });
        Ok(())
    })
}

/// The failure of an accessor for `wanted` called on `v`.
fn wrong_type(wanted: &str, v: &Value) -> Failure {
    Failure::new(
        CLASSAD_ERR_TYPE,
        format!("the value {} is not {wanted}", unparse_value(v)),
    )
}

/// The boolean `v` holds, in `*out`; `CLASSAD_ERR_TYPE` when it holds another
/// type (no conversion).
///
/// # Safety
/// `v` is `NULL` or a live `classad_value` handle; `out` is `NULL` or valid for
/// writing a `bool`.
#[no_mangle]
pub unsafe extern "C" fn classad_value_bool(
    v: *const classad_value,
    out: *mut bool,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out` and `v`.
        let (out, v) = unsafe { (out_value(out, "out")?, handle(v, "value")?) };
        match v.value {
            Value::Bool(b) => out.set(b),
            ref other => return Err(wrong_type("a boolean", other)),
        }
        Ok(())
    })
}

/// The integer `v` holds, in `*out`; `CLASSAD_ERR_TYPE` when it holds another
/// type (no conversion: a real is not an integer).
///
/// # Safety
/// `v` is `NULL` or a live `classad_value` handle; `out` is `NULL` or valid for
/// writing an `int64_t`.
#[no_mangle]
pub unsafe extern "C" fn classad_value_int(
    v: *const classad_value,
    out: *mut i64,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out` and `v`.
        let (out, v) = unsafe { (out_value(out, "out")?, handle(v, "value")?) };
        match v.value {
            Value::Int(i) => out.set(i),
            ref other => return Err(wrong_type("an integer", other)),
        }
        Ok(())
    })
}

/// The real `v` holds, in `*out`; `CLASSAD_ERR_TYPE` when it holds another type
/// (no conversion: an integer is not a real).
///
/// # Safety
/// `v` is `NULL` or a live `classad_value` handle; `out` is `NULL` or valid for
/// writing a `double`.
#[no_mangle]
pub unsafe extern "C" fn classad_value_real(
    v: *const classad_value,
    out: *mut f64,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out` and `v`.
        let (out, v) = unsafe { (out_value(out, "out")?, handle(v, "value")?) };
        match v.value {
            Value::Real(r) => out.set(r),
            ref other => return Err(wrong_type("a real", other)),
        }
        Ok(())
    })
}

/// The string `v` holds: its UTF-8 bytes in `*ptr` (not NUL-terminated, valid
/// until `v` is freed) and their number in `*len`; `CLASSAD_ERR_TYPE` when `v`
/// holds another type.
///
/// # Safety
/// `v` is `NULL` or a live `classad_value` handle; `ptr` and `len` are `NULL` or
/// valid for writing a pointer and a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn classad_value_string(
    v: *const classad_value,
    ptr: *mut *const c_char,
    len: *mut usize,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `ptr`, `len` and `v`.
        let (ptr, len, v) = unsafe {
            (
                out_value(ptr, "ptr")?,
                out_value(len, "len")?,
                handle(v, "value")?,
            )
        };
        match &v.value {
            Value::Str(s) => {
                ptr.set(s.as_str().as_ptr().cast());
                len.set(s.as_str().len());
            }
            other => return Err(wrong_type("a string", other)),
        }
        Ok(())
    })
}

/// `v` printed in one line of new syntax, exactly as HTCondor prints a value
/// (`classad eval` prints the same): `undefined`, `"a string"`, `2.5E+00`... into
/// a new string in `*out`. Any type, lists and records included.
///
/// # Safety
/// `v` is `NULL` or a live `classad_value` handle; `out` is `NULL` or valid for
/// writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_value_print(
    v: *const classad_value,
    out: *mut *mut classad_string,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out` and `v`.
        let (out, v) = unsafe { (out_handle(out, "out")?, handle(v, "value")?) };
        out.set(new_handle(classad_string::new(unparse_value(&v.value))));
        Ok(())
    })
}

/// Frees a value; `NULL` is ignored.
///
/// # Safety
/// `v` is `NULL` or a live `classad_value` handle, not used after this.
#[no_mangle]
pub unsafe extern "C" fn classad_value_free(v: *mut classad_value) {
    guard_value((), || {
        // SAFETY: the caller's guarantee on `v`.
        unsafe { free_handle(v) };
        Ok(())
    })
}
