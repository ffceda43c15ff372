//! Arbitrary bytes into the expression parsers and every ad-file reader: errors must
//! be errors, never a panic, a hang or a stack overflow; whatever parses must print
//! and parse again.
#![no_main]

use classad::ad::{read_ads_as, Format};
use classad::syntax::{parse_expr, parse_expr_old, unparse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Bound the work per input; the parsers are linear, the printers too.
    if data.len() > 64 * 1024 {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(e) = parse_expr(text) {
        let printed = unparse(&e);
        assert!(
            parse_expr(&printed).is_ok(),
            "{text:?} printed as {printed:?}, which does not parse"
        );
    }
    let _ = parse_expr_old(text);
    for format in [Format::Old, Format::New, Format::Json] {
        let _ = read_ads_as(text, "fuzz", format);
    }
});
