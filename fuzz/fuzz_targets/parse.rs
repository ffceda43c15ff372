//! Arbitrary bytes into the expression parsers and every ad-file reader: errors must
//! be errors, never a panic, a hang or a stack overflow; whatever parses must print
//! and parse again.
#![no_main]

use classad::ad::stream::{read_ads_from, ReadLimits};
use classad::ad::{read_ads, read_ads_as, Format};
use classad::syntax::{parse_expr, parse_expr_old, unparse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Bound the work per input; the parsers are linear, the printers too.
    if data.len() > 64 * 1024 {
        return;
    }
    // The stream reader (any bytes, read a few at a time) agrees with the reader
    // of a whole text on any text it accepts: the same ads, or the same error.
    let limits = ReadLimits {
        max_line_bytes: 512,
    };
    let capacity = 1 + data.first().copied().unwrap_or(0) as usize % 64;
    let streamed = read_ads_from(
        std::io::BufReader::with_capacity(capacity, data),
        "fuzz",
        limits,
    );
    let Ok(text) = std::str::from_utf8(data) else {
        assert!(
            streamed.is_err(),
            "bytes that are not UTF-8 were read as ads"
        );
        return;
    };
    if !text.contains('\0') && text.split('\n').all(|l| l.len() <= limits.max_line_bytes) {
        let whole = read_ads(text, "fuzz");
        match (&streamed, &whole) {
            (Ok(a), Ok(b)) => {
                let printed = |ads: &Vec<classad::ad::ClassAd>| -> Vec<String> {
                    ads.iter().map(classad::syntax::unparse_ad).collect()
                };
                assert_eq!(printed(a), printed(b), "{text:?}");
            }
            (Err(_), Err(_)) => {}
            _ => panic!("{text:?}: streamed {streamed:?}, whole {whole:?}"),
        }
    }
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
