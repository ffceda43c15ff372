//! Ads and lists of ads: parsed from text or read from files (old, new, JSON or
//! XML syntax, or detected as the library detects it), printed, and their
//! attributes' expressions printed.

use crate::boundary::*;
use crate::output::classad_string;
use classad::ad::json::unparse_ad_json;
use classad::ad::{read_ads_as, ClassAd, Format};
use classad::ad::{unparse_ad, unparse_ad_old, unparse_ad_pretty};
use classad::syntax::unparse_node;
use std::ffi::c_char;
use std::sync::Arc;

/// The syntax of ads given as text: the `format` argument of
/// `classad_ad_parse` and `classad_ad_list_parse`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum classad_format {
    /// Decided from the text as the library decides it (HTCondor's
    /// `Parse_auto`): the first character that is not blank and not in a `#`
    /// comment line: `[` new syntax (or JSON when `{` follows), `{` JSON (or new
    /// syntax when `[` follows), `<` XML, anything else old syntax.
    CLASSAD_FORMAT_AUTO = 0,
    /// Old syntax (`condor_q -l`): `Name = expr` lines, ads separated by blank
    /// lines.
    CLASSAD_FORMAT_OLD = 1,
    /// New syntax: `[ ... ]` ads, one after another or inside `{ ... }`.
    CLASSAD_FORMAT_NEW = 2,
    /// JSON: an object, an array of objects, or an object per line.
    CLASSAD_FORMAT_JSON = 3,
    /// XML as `condor_q -xml` prints it.
    CLASSAD_FORMAT_XML = 4,
}

/// How `classad_ad_print` prints an ad: its `style` argument.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum classad_style {
    /// One line of new syntax, `[ a = 1; b = "x" ]` (classad2's `repr`).
    CLASSAD_STYLE_NEW = 0,
    /// New syntax over several indented lines (classad2's `str`).
    CLASSAD_STYLE_PRETTY = 1,
    /// Old syntax, a `Name = expr` line per attribute (classad2's `printOld`).
    CLASSAD_STYLE_OLD = 2,
    /// A JSON object (classad2's `printJson`).
    CLASSAD_STYLE_JSON = 3,
}

/// One ad. Immutable: may be used from several threads at once. Made by
/// `classad_ad_parse` or `classad_ad_list_get`, freed with `classad_ad_free`.
#[allow(non_camel_case_types)]
pub struct classad_ad {
    /// The ad, shared with the lists and pools it was put in.
    pub(crate) ad: Arc<ClassAd>,
}

/// A list of ads (a queue of jobs, a pool of slots), in order. Reading calls may
/// run on several threads at once; `classad_ad_list_push` needs the list to
/// itself. Made by `classad_ad_list_new`, `classad_ad_list_parse` or
/// `classad_ad_list_read_file`, freed with `classad_ad_list_free`.
#[allow(non_camel_case_types)]
pub struct classad_ad_list {
    /// The ads.
    pub(crate) ads: Vec<Arc<ClassAd>>,
}

/// What names text given to the library in its error messages.
pub(crate) const TEXT_NAME: &str = "<string>";

/// The syntax `format` stands for (`None`: detect it).
fn format_of(format: u32) -> Outcome<Option<Format>> {
    Ok(match format {
        0 => None,
        1 => Some(Format::Old),
        2 => Some(Format::New),
        3 => Some(Format::Json),
        4 => Some(Format::Xml),
        _ => {
            return Err(Failure::new(
                CLASSAD_ERR_ARGUMENT,
                format!("unknown format {format} (not a classad_format)"),
            ))
        }
    })
}

/// Every ad of `text` in `format` (detected when `None`).
pub(crate) fn parse_ads(text: &str, format: Option<Format>) -> Outcome<Vec<Arc<ClassAd>>> {
    let format = format.unwrap_or_else(|| classad::ad::read::detect(text));
    let ads = crate::threads::in_workers(|| read_ads_as(text, TEXT_NAME, format))
        .map_err(|e| Failure::new(CLASSAD_ERR_PARSE, e.to_string()))?;
    Ok(ads.into_iter().map(Arc::new).collect())
}

/// Every ad of the file at `path`, read as the command line reads it (the
/// syntax detected from its first lines, gzip or not, in parts on every core).
pub(crate) fn read_file(path: &str) -> Outcome<Vec<Arc<ClassAd>>> {
    use classad::ad::files::{open_input, read_reader_in_parts};
    let input =
        open_input(path, 1 << 20).map_err(|message| Failure::new(CLASSAD_ERR_IO, message))?;
    // A failure past the open (a syntax error, text that is not UTF-8, a line
    // too long) names the file, line and column.
    let mut ads = Vec::new();
    crate::threads::in_workers(|| {
        read_reader_in_parts(input, path, |part| part, |part| ads.extend(part))
    })
    .map_err(|message| Failure::new(CLASSAD_ERR_PARSE, message))?;
    Ok(ads.into_iter().map(Arc::new).collect())
}

/// Parses one ad from `len` bytes of UTF-8 `text` (no NUL needed) in `format`
/// (a `classad_format`), into a new handle in `*out`. Text that holds no ad or
/// several is refused (`CLASSAD_ERR_PARSE`); `classad_ad_list_parse` takes
/// several. A syntax error's message names the line and column:
/// `<string>:2:5: expected ...`.
///
/// # Safety
/// `text` is `NULL` or points to `len` readable bytes; `out` is `NULL` or
/// valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_parse(
    text: *const c_char,
    len: usize,
    format: u32,
    out: *mut *mut classad_ad,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out` and `text`.
        let (out, text) = unsafe { (out_handle(out, "out")?, text_arg(text, len)?) };
        let mut ads = parse_ads(text, format_of(format)?)?;
        if ads.len() != 1 {
            return Err(Failure::new(
                CLASSAD_ERR_PARSE,
                format!("{TEXT_NAME}: expected one ad, found {}", ads.len()),
            ));
        }
        out.set(new_handle(classad_ad { ad: ads.remove(0) }));
        Ok(())
    })
}

/// The text argument `text` of `len` bytes.
///
/// # Safety
/// As for [`crate::boundary::text`].
unsafe fn text_arg<'a>(text: *const c_char, len: usize) -> Outcome<&'a str> {
    // SAFETY: the caller's guarantee, passed on.
    unsafe { crate::boundary::text(text, len, "text") }
}

/// Frees an ad; `NULL` is ignored. Lists, pools and values the ad was put in
/// keep their own reference to it.
///
/// # Safety
/// `ad` is `NULL` or a live `classad_ad` handle, not used after this.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_free(ad: *mut classad_ad) {
    guard_value((), || {
        // SAFETY: the caller's guarantee on `ad`.
        unsafe { free_handle(ad) };
        Ok(())
    })
}

/// The number of attributes of `ad`, in `*out`.
///
/// # Safety
/// `ad` is `NULL` or a live `classad_ad` handle; `out` is `NULL` or valid for
/// writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_size(ad: *const classad_ad, out: *mut usize) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out` and `ad`.
        let (out, ad) = unsafe { (out_value(out, "out")?, handle(ad, "ad")?) };
        out.set(ad.ad.len());
        Ok(())
    })
}

/// The expression of attribute `name` (`name_len` bytes of UTF-8, case
/// ignored) of `ad`, printed in one line of new syntax as HTCondor prints it,
/// into a new string in `*out`; `CLASSAD_ERR_NOT_FOUND` when `ad` has no such
/// attribute.
///
/// # Safety
/// `ad` is `NULL` or a live `classad_ad` handle; `name` is `NULL` or points to
/// `name_len` readable bytes; `out` is `NULL` or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_get_expr(
    ad: *const classad_ad,
    name: *const c_char,
    name_len: usize,
    out: *mut *mut classad_string,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out`, `ad` and `name`.
        let (out, ad, name) = unsafe {
            (
                out_handle(out, "out")?,
                handle(ad, "ad")?,
                text(name, name_len, "name")?,
            )
        };
        let e =
            ad.ad.get(name).map(|e| e.to_expr_ref()).ok_or_else(|| {
                Failure::new(CLASSAD_ERR_NOT_FOUND, format!("no attribute {name:?}"))
            })?;
        let mut s = String::new();
        unparse_node(&e.tree, e.id, &mut s);
        out.set(new_handle(classad_string::new(s)));
        Ok(())
    })
}

/// `ad` printed in `style` (a `classad_style`), into a new string in `*out`.
///
/// # Safety
/// `ad` is `NULL` or a live `classad_ad` handle; `out` is `NULL` or valid for
/// writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_print(
    ad: *const classad_ad,
    style: u32,
    out: *mut *mut classad_string,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out` and `ad`.
        let (out, ad) = unsafe { (out_handle(out, "out")?, handle(ad, "ad")?) };
        let text = match style {
            0 => unparse_ad(&ad.ad),
            1 => unparse_ad_pretty(&ad.ad),
            2 => unparse_ad_old(&ad.ad),
            3 => unparse_ad_json(&ad.ad),
            _ => {
                return Err(Failure::new(
                    CLASSAD_ERR_ARGUMENT,
                    format!("unknown style {style} (not a classad_style)"),
                ))
            }
        };
        out.set(new_handle(classad_string::new(text)));
        Ok(())
    })
}

/// A new empty list in `*out`.
///
/// # Safety
/// `out` is `NULL` or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_list_new(out: *mut *mut classad_ad_list) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantee on `out`.
        let out = unsafe { out_handle(out, "out")? };
        out.set(new_handle(classad_ad_list { ads: Vec::new() }));
        Ok(())
    })
}

/// Parses every ad of `len` bytes of UTF-8 `text` in `format` (a
/// `classad_format`) into a new list in `*out` (empty text gives an empty
/// list). A syntax error's message names the line and column.
///
/// # Safety
/// `text` is `NULL` or points to `len` readable bytes; `out` is `NULL` or
/// valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_list_parse(
    text: *const c_char,
    len: usize,
    format: u32,
    out: *mut *mut classad_ad_list,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out` and `text`.
        let (out, text) = unsafe { (out_handle(out, "out")?, text_arg(text, len)?) };
        let ads = parse_ads(text, format_of(format)?)?;
        out.set(new_handle(classad_ad_list { ads }));
        Ok(())
    })
}

/// Reads every ad of the file at `path` (`path_len` bytes of UTF-8, no NUL
/// needed) into a new list in `*out`, the syntax detected from its first
/// lines, gzip or not. `CLASSAD_ERR_IO` when it cannot be opened,
/// `CLASSAD_ERR_PARSE` when it is not ads (the message names the file, line
/// and column).
///
/// # Safety
/// `path` is `NULL` or points to `path_len` readable bytes; `out` is `NULL` or
/// valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_list_read_file(
    path: *const c_char,
    path_len: usize,
    out: *mut *mut classad_ad_list,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out` and `path`.
        let (out, path) = unsafe { (out_handle(out, "out")?, text(path, path_len, "path")?) };
        let ads = read_file(path)?;
        out.set(new_handle(classad_ad_list { ads }));
        Ok(())
    })
}

/// Appends `ad` to `list` (the list shares the ad: `ad` stays the caller's to
/// free). Needs `list` to itself: no other call may use it meanwhile.
///
/// # Safety
/// `list` is `NULL` or a live `classad_ad_list` handle used by no other call
/// meanwhile; `ad` is `NULL` or a live `classad_ad` handle.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_list_push(
    list: *mut classad_ad_list,
    ad: *const classad_ad,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `list` and `ad`.
        let (list, ad) = unsafe { (handle_mut(list, "list")?, handle(ad, "ad")?) };
        list.ads.push(ad.ad.clone());
        Ok(())
    })
}

/// The number of ads in `list`, in `*out`.
///
/// # Safety
/// `list` is `NULL` or a live `classad_ad_list` handle; `out` is `NULL` or
/// valid for writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_list_len(
    list: *const classad_ad_list,
    out: *mut usize,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out` and `list`.
        let (out, list) = unsafe { (out_value(out, "out")?, handle(list, "list")?) };
        out.set(list.ads.len());
        Ok(())
    })
}

/// Ad `index` (from 0) of `list`, as a new handle in `*out` (free it with
/// `classad_ad_free`; it shares the ad with the list).
/// `CLASSAD_ERR_ARGUMENT` when `index` is past the end.
///
/// # Safety
/// `list` is `NULL` or a live `classad_ad_list` handle; `out` is `NULL` or
/// valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_list_get(
    list: *const classad_ad_list,
    index: usize,
    out: *mut *mut classad_ad,
) -> classad_status {
    guard(|| {
        // SAFETY: the caller's guarantees on `out` and `list`.
        let (out, list) = unsafe { (out_handle(out, "out")?, handle(list, "list")?) };
        let ad = list.ads.get(index).ok_or_else(|| {
            Failure::new(
                CLASSAD_ERR_ARGUMENT,
                format!("index {index} past the end of a list of {}", list.ads.len()),
            )
        })?;
        out.set(new_handle(classad_ad { ad: ad.clone() }));
        Ok(())
    })
}

/// Frees a list; `NULL` is ignored. Ads taken from it stay valid.
///
/// # Safety
/// `list` is `NULL` or a live `classad_ad_list` handle, not used after this.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_list_free(list: *mut classad_ad_list) {
    guard_value((), || {
        // SAFETY: the caller's guarantee on `list`.
        unsafe { free_handle(list) };
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    /// A pool dump kept compressed reads as its text does.
    #[test]
    fn a_gzip_file_reads_as_its_text() {
        let dir = std::env::temp_dir().join(format!("classad-capi-gz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text = "A = 1\nB = \"x\"\n\nA = 2\n";
        let plain = dir.join("ads");
        std::fs::write(&plain, text).unwrap();
        let gz = dir.join("ads.gz");
        let mut e = flate2::write::GzEncoder::new(
            std::fs::File::create(&gz).unwrap(),
            flate2::Compression::default(),
        );
        e.write_all(text.as_bytes()).unwrap();
        e.finish().unwrap();
        let print = |path: &std::path::Path| -> Vec<String> {
            let ads = super::read_file(path.to_str().unwrap()).ok().unwrap();
            ads.iter().map(|a| classad::ad::unparse_ad(a)).collect()
        };
        assert_eq!(print(&plain).len(), 2);
        assert_eq!(print(&gz), print(&plain));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
