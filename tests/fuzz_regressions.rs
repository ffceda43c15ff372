//! Replays every input the fuzz targets ever found (`tests/fuzz_regressions/<target>/`)
//! through the same property the target checks, so a fixed finding stays fixed.

use classad::ad::{read_ads_as, Format};
use classad::syntax::{
    parse_classad, parse_expr, parse_expr_old, unparse, unparse_ad, unparse_ad_pretty,
};
use std::path::PathBuf;

/// The property of the `parse` fuzz target (keep the two in step).
fn parse_property(data: &[u8]) -> Result<(), String> {
    let Ok(text) = std::str::from_utf8(data) else {
        return Ok(());
    };
    if let Ok(e) = parse_expr(text) {
        let printed = unparse(&e);
        if parse_expr(&printed).is_err() {
            return Err(format!(
                "{text:?} printed as {printed:?}, which does not parse"
            ));
        }
    }
    let _ = parse_expr_old(text);
    for format in [Format::Old, Format::New, Format::Json] {
        let _ = read_ads_as(text, "fuzz", format);
    }
    Ok(())
}

/// The property of the `roundtrip` fuzz target (keep the two in step): printing is
/// stable from the second round on, for expressions and ads.
fn roundtrip_property(data: &[u8]) -> Result<(), String> {
    let Ok(text) = std::str::from_utf8(data) else {
        return Ok(());
    };
    let stable = |print: &dyn Fn(&str) -> Option<String>| -> Result<(), String> {
        let Some(once) = print(text) else {
            return Ok(());
        };
        let twice = print(&once).ok_or(format!("{once:?} does not parse"))?;
        let thrice = print(&twice).ok_or(format!("{twice:?} does not parse"))?;
        if twice == thrice {
            Ok(())
        } else {
            Err(format!("{text:?} -> {once:?} -> {twice:?} -> {thrice:?}"))
        }
    };
    stable(&|t| parse_expr(t).ok().map(|e| unparse(&e)))?;
    stable(&|t| parse_classad(t).ok().map(|a| unparse_ad(&a)))?;
    stable(&|t| parse_classad(t).ok().map(|a| unparse_ad_pretty(&a)))
}

/// Replays `tests/fuzz_regressions/<target>/*` through `property`.
fn replay(target: &str, property: fn(&[u8]) -> Result<(), String>) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz_regressions")
        .join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        if let Err(e) = property(&data) {
            panic!("{}: {e}", path.display());
        }
        n += 1;
    }
    assert!(n > 0, "no regression inputs in {}", dir.display());
}

#[test]
fn parse_findings_stay_fixed() {
    replay("parse", parse_property);
}

#[test]
fn roundtrip_findings_stay_fixed() {
    replay("roundtrip", roundtrip_property);
}
