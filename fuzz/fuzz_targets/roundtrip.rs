//! Whatever parses prints back, in new syntax, to text that parses to the same
//! text again: for expressions and for ads (one-line and pretty forms).
#![no_main]

use classad::syntax::{parse_classad, parse_expr, unparse, unparse_ad, unparse_ad_pretty};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() > 64 * 1024 {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(e) = parse_expr(text) {
        let once = unparse(&e);
        let again = parse_expr(&once).unwrap_or_else(|err| panic!("{once:?}: {err}"));
        // HTCondor folds `- 5` into `-5` only on the second round; from then on the
        // text is stable.
        let twice = unparse(&again);
        let thrice = unparse(&parse_expr(&twice).expect("parses"));
        assert_eq!(twice, thrice, "{text:?} -> {once:?} -> {twice:?}");
    }
    if let Ok(ad) = parse_classad(text) {
        for print in [unparse_ad, unparse_ad_pretty] {
            let once = print(&ad);
            let again = parse_classad(&once).unwrap_or_else(|err| panic!("{once:?}: {err}"));
            let twice = print(&again);
            let thrice = print(&parse_classad(&twice).expect("parses"));
            assert_eq!(twice, thrice, "{text:?} -> {once:?} -> {twice:?}");
        }
    }
});
