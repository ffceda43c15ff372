//! Replays every input the fuzz targets ever found (`tests/fuzz_regressions/<target>/`)
//! through the same property the target checks, so a fixed finding stays fixed.

use classad::ad::{read_ads_as, Format};
use classad::syntax::{parse_expr, parse_expr_old, unparse};
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

#[test]
fn parse_findings_stay_fixed() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions/parse");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        if let Err(e) = parse_property(&data) {
            panic!("{}: {e}", path.display());
        }
        n += 1;
    }
    assert!(n > 0, "no regression inputs in {}", dir.display());
}
