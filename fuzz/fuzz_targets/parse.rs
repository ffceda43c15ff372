//! Arbitrary bytes into the expression parsers and every ad-file reader: errors must
//! be errors, never a panic, a hang or a stack overflow; whatever parses must print
//! and parse again.
#![no_main]

use classad::ad::parts::read_ads_in_parts;
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
        ..ReadLimits::default()
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
                    ads.iter().map(classad::ad::unparse_ad).collect()
                };
                assert_eq!(printed(a), printed(b), "{text:?}");
            }
            (Err(_), Err(_)) => {}
            _ => panic!("{text:?}: streamed {streamed:?}, whole {whole:?}"),
        }
    }
    // The reader in parts (`ad::parts`), past 1,000 lines of ads so that the
    // input is cut into parts of a few bytes, agrees with the stream reader: the
    // same ads, or an error from both.
    let mut long = "A = 1\n\n".repeat(500).into_bytes();
    long.extend_from_slice(data);
    let part = 1 + data.get(1).copied().unwrap_or(0) as usize % 97;
    let whole = read_ads_from(&long[..], "fuzz", limits);
    let mut parts: Vec<classad::ad::ClassAd> = Vec::new();
    let in_parts = read_ads_in_parts(
        std::io::BufReader::with_capacity(capacity, &long[..]),
        "fuzz",
        limits,
        part,
        |ads| ads,
        |ads| {
            parts.extend(ads);
            Ok::<(), ()>(())
        },
    );
    match (&whole, &in_parts) {
        (Ok(a), Ok(())) => {
            let printed = |ads: &[classad::ad::ClassAd]| -> Vec<String> {
                ads.iter().map(classad::ad::unparse_ad).collect()
            };
            assert_eq!(printed(a), printed(&parts), "{text:?}");
        }
        (Err(_), Err(_)) => {}
        _ => panic!("{text:?}: whole {whole:?}, in parts of {part}: {in_parts:?}"),
    }
    if let Ok(e) = parse_expr(text) {
        let printed = unparse(&e);
        assert!(
            parse_expr(&printed).is_ok(),
            "{text:?} printed as {printed:?}, which does not parse"
        );
    }
    let _ = parse_expr_old(text);
    for format in [Format::Old, Format::New, Format::Json, Format::Xml] {
        let _ = read_ads_as(text, "fuzz", format);
    }
});
