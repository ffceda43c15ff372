//! The machine answers a pure builtin's call from an earlier call on the same
//! values (`classad_vm`'s call memo), and a TARGET-only subexpression for an
//! ad of a block from an earlier ad whose attributes it reads hold the same
//! values (the slots' `string(TARGET.X) == "1"` here). Both must tell apart
//! every pair of values a builtin tells apart: `1`, `1.0`, `true` and `"1"`;
//! `0.0` and `-0.0`; `"abc"` and `"ABC"`; lists spelled alike in many ads (one
//! shared tree) and lists spelled otherwise. Pools read from one file, so that equal strings and lists
//! share their text and trees as a real pool's do; enough pairs that builtins
//! whose arguments seldom repeat pass the memo's trial and are called directly.

use crate::tiers;

use classad::ad::{read_ads, ClassAd};
use std::sync::Arc;
use tiers::assert_matches_reference;

/// What job `i`'s `X` is: cycling through values of every kind, with repeats.
const XS: [Option<&str>; 16] = [
    Some("1"),
    Some("1.0"),
    Some("true"),
    Some("\"1\""),
    Some("\"abc\""),
    Some("\"ABC\""),
    Some("\"abc,1\""),
    None,
    Some("{ 1, 2 }"),
    Some("{ \"1\", \"abc\" }"),
    Some("{ 1, 2 }"),
    Some("{ 2, 1 }"),
    Some("undefined"),
    Some("error"),
    Some("0.0"),
    Some("-0.0"),
];

fn pool(text: &str) -> Vec<Arc<ClassAd>> {
    read_ads(text, "pool")
        .unwrap()
        .into_iter()
        .map(Arc::new)
        .collect()
}

/// 70 jobs: `X` as [`XS`] says, and `Name` unique to each.
fn jobs() -> Vec<Arc<ClassAd>> {
    let mut text = String::new();
    for i in 0..70 {
        text.push_str(&format!("Name = \"job{i}\"\nRequirements = true\n"));
        if let Some(x) = XS[i % XS.len()] {
            text.push_str(&format!("X = {x}\n"));
        }
        text.push('\n');
    }
    pool(&text)
}

/// 24 slots holding `requirements`, each with its own `Y` out of a few.
fn slots(requirements: &str) -> Vec<Arc<ClassAd>> {
    let ys = ["\"1\"", "\"abc\"", "1", "{ 1 }", "\"a,b\""];
    let mut text = String::new();
    for i in 0..24 {
        text.push_str(&format!(
            "Requirements = {requirements}\nY = {}\nSuffix = \"s{}\"\n\n",
            ys[i % ys.len()],
            i % 3
        ));
    }
    pool(&text)
}

#[test]
fn calls_on_the_same_values_agree_with_the_reference_and_others_do_not_mix() {
    for requirements in [
        "string(TARGET.X) == \"1\"",
        "string(TARGET.X) =?= string(1.0)",
        "string(TARGET.X) == \"-0.0\" || TARGET.X == 1",
        "strcat(TARGET.X, TARGET.Name) == \"1job0\" || string(TARGET.X) == \"0.0\"",
        "strcmp(TARGET.X, \"abc\") == 0",
        "toLower(TARGET.X) =?= \"abc\"",
        "size(TARGET.X) == 2",
        "member(1, TARGET.X)",
        "member(MY.Y, TARGET.X)",
        "stringListMember(TARGET.X, \"1,abc\")",
        "stringListMember(MY.Y, TARGET.X)",
        "stringListsIntersect(MY.Y, TARGET.X)",
        "regexp(\"^a\", TARGET.X)",
        "regexp(MY.Y, TARGET.X, \"i\")",
        "int(TARGET.X) == 1",
        "real(TARGET.X) == 1",
        // Seldom the same arguments twice: called directly after a while.
        "size(strcat(TARGET.Name, MY.Suffix)) > 6",
        "substr(strcat(TARGET.Name, MY.Suffix), 3, 2) == \"1s\"",
    ] {
        let matched = assert_matches_reference(&jobs(), &slots(requirements));
        assert!(matched > 0, "{requirements}");
    }
}
