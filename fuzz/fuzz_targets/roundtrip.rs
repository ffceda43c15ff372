//! Whatever parses prints back, in new syntax, to text that parses to the same
//! text again: for expressions and for ads (one-line and pretty forms).
//!
//! An input starting with byte 1 describes a long chain rather than being the text
//! itself (see `expand`), so that the printers meet the flat chains of any length
//! the parser builds (`1+1+...`, `a.b.c...`, `x[0][0]...`), which byte mutations
//! within the input size limit alone rarely make.
#![no_main]

use classad::syntax::{parse_expr, unparse};
use classad::ad::{parse_classad, unparse_ad, unparse_ad_pretty};
use libfuzzer_sys::fuzz_target;
use std::borrow::Cow;

/// The text of an input: the input itself, or for `\x01`, a repeat count (two
/// bytes, big-endian), then `head\0unit`, the text `head` followed by `unit`
/// repeated that many times (`[1, 0xff, 0xff, b'1', 0, b'+', b'1']`: a sum of
/// 65,536 ones). `None` when the expansion would pass 1 MiB.
fn expand(data: &[u8]) -> Option<Cow<'_, [u8]>> {
    let Some((&1, rest)) = data.split_first() else {
        return Some(Cow::Borrowed(data));
    };
    let (count, spec) = rest.split_at_checked(2)?;
    let count = usize::from(u16::from_be_bytes([count[0], count[1]]));
    let split = spec.iter().position(|&b| b == 0)?;
    let (head, unit) = (&spec[..split], &spec[split + 1..]);
    if head.len() + unit.len() * count > 1 << 20 {
        return None;
    }
    let mut text = head.to_vec();
    for _ in 0..count {
        text.extend_from_slice(unit);
    }
    Some(Cow::Owned(text))
}

fuzz_target!(|data: &[u8]| {
    if data.len() > 64 * 1024 {
        return;
    }
    let Some(data) = expand(data) else {
        return;
    };
    let Ok(text) = std::str::from_utf8(&data) else {
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
