//! Delimited-string builtins: `split`, `splitUserName`, `splitSlotName`,
//! `stringListsIntersect` and the `stringListX` family.

use super::{add, arity, Builtin, Call};
use crate::limits::{Tally, LIST_ELEMENT_BYTES};
use crate::values::compound::values_list;
use crate::values::Fail;
use classad_vm::Value;

pub(super) fn register(t: &mut Vec<Builtin>) {
    add(t, "split", split);
    add(t, "splitUserName", |c| split_at(c, false));
    add(t, "splitSlotName", |c| split_at(c, true));
    add(t, "stringListsIntersect", lists_intersect);
    add(t, "stringListSize", list_size);
    add(t, "stringListSum", |c| summarize(c, Summary::Sum));
    add(t, "stringListAvg", |c| summarize(c, Summary::Avg));
    add(t, "stringListMin", |c| summarize(c, Summary::Min));
    add(t, "stringListMax", |c| summarize(c, Summary::Max));
    add(t, "stringListMember", |c| list_member(c, false));
    add(t, "stringListIMember", |c| list_member(c, true));
    add(t, "stringListSubsetMatch", |c| subset_match(c, false));
    add(t, "stringListISubsetMatch", |c| subset_match(c, true));
    add(t, "stringList_regexpMember", regexp_member);
}

/// The default delimiters of HTCondor's string lists.
pub(crate) const DEFAULT_DELIMS: &str = ", ";

/// HTCondor's `StringList` items: split at any delimiter, white space trimmed,
/// empty items dropped.
pub(crate) fn items<'a>(s: &'a str, delims: &str) -> Vec<&'a str> {
    let is_delim = delimiter_test(delims);
    s.split(is_delim)
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .collect()
}

/// A test for membership in a set of delimiter characters that costs the same
/// however many there are (a long delimiter string made every split quadratic).
pub(crate) fn delimiter_test(delims: &str) -> impl Fn(char) -> bool {
    let set = Delimiters::new(delims);
    move |ch| set.contains(ch)
}

/// A set of delimiter characters: ASCII ones as bits of a word, which costs
/// nothing to make (matching calls a `stringListX` builtin once per slot and
/// value of the other side), others in a hash set made only when there are any.
struct Delimiters {
    ascii: u128,
    others: Option<ahash::AHashSet<char>>,
}

impl Delimiters {
    fn new(delims: &str) -> Delimiters {
        let mut set = Delimiters {
            ascii: 0,
            others: None,
        };
        for ch in delims.chars() {
            if ch.is_ascii() {
                set.ascii |= 1 << u32::from(ch);
            } else {
                set.others.get_or_insert_with(Default::default).insert(ch);
            }
        }
        set
    }

    fn contains(&self, ch: char) -> bool {
        if ch.is_ascii() {
            self.ascii >> u32::from(ch) & 1 != 0
        } else {
            self.others.as_ref().is_some_and(|o| o.contains(&ch))
        }
    }
}

/// Evaluates every argument.
fn all_args(c: &mut dyn Call) -> Result<Vec<Value>, Fail> {
    (0..c.argc()).map(|i| c.arg(i)).collect()
}

/// `split(s[, seps])`: empty pieces are dropped except between two of the same
/// non-space separator (`"a,,b"` gives `"a","","b"`); pieces are not trimmed.
fn split(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 1, 2) {
        return Ok(Value::Error);
    }
    let vals = all_args(c)?;
    let Value::Str(s) = &vals[0] else {
        return Ok(Value::Error);
    };
    let seps = match vals.get(1) {
        None => ", \t".to_string(),
        Some(Value::Str(x)) => x.to_string(),
        Some(_) => return Ok(Value::Error),
    };
    Ok(split_pieces(s, &seps).map_or(Value::Error, values_list))
}

/// HTCondor's `splitArb_func` walk; `None` as soon as the list passes the memory
/// budget (see [`crate::limits`]), so that no more pieces are made.
fn split_pieces(s: &str, seps: &str) -> Option<Vec<Value>> {
    let mut out = Vec::new();
    let mut tally = Tally::new();
    let mut push = |piece: &str| {
        out.push(Value::str(piece));
        tally.add(LIST_ELEMENT_BYTES + piece.len())
    };
    let mut last = 0;
    let mut prev: Option<char> = None;
    let is_sep = delimiter_test(seps);
    for (ix, ch) in s.char_indices().filter(|&(_, ch)| is_sep(ch)) {
        if ix > last {
            if !push(&s[last..ix]) {
                return None;
            }
        } else if prev == Some(ch) && !ch.is_ascii_whitespace() && !push("") {
            return None;
        }
        if !ch.is_ascii_whitespace() {
            prev = Some(ch);
        }
        last = ix + ch.len_utf8();
    }
    if s.len() > last && !push(&s[last..]) {
        return None;
    }
    Some(out)
}

/// `splitUserName`/`splitSlotName`: the two sides of the first `@`; without one, the
/// whole string is the user (or the host).
fn split_at(c: &mut dyn Call, slot: bool) -> Result<Value, Fail> {
    if !arity(c, 1, 1) {
        return Ok(Value::Error);
    }
    let Value::Str(s) = c.arg(0)? else {
        return Ok(Value::Error);
    };
    let (a, b) = match s.split_once('@') {
        Some((a, b)) => (a, b),
        None if slot => ("", &*s),
        None => (&*s, ""),
    };
    Ok(values_list(vec![Value::str(a), Value::str(b)]))
}

/// `stringListsIntersect(a, b[, delims])`: case-sensitive; items are not trimmed.
fn lists_intersect(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 2, 3) {
        return Ok(Value::Error);
    }
    // An argument whose evaluation fails makes error, not a failure.
    let mut vals = Vec::with_capacity(c.argc());
    for i in 0..c.argc() {
        match c.arg(i) {
            Ok(v) => vals.push(v),
            Err(Fail) => return Ok(Value::Error),
        }
    }
    if vals.iter().any(Value::is_error) {
        return Ok(Value::Error);
    }
    if vals.iter().any(Value::is_undefined) {
        return Ok(Value::Undefined);
    }
    let (Value::Str(a), Value::Str(b)) = (&vals[0], &vals[1]) else {
        return Ok(Value::Error);
    };
    let delims = match vals.get(2) {
        None => DEFAULT_DELIMS,
        Some(Value::Str(d)) if d.is_empty() => DEFAULT_DELIMS,
        Some(Value::Str(d)) => d.as_str(),
        Some(_) => return Ok(Value::Error),
    };
    let is_delim = delimiter_test(delims);
    let right: smallvec::SmallVec<[&str; SCAN_ITEMS]> =
        b.split(&is_delim).filter(|x| !x.is_empty()).collect();
    let mut left = a.split(&is_delim).filter(|x| !x.is_empty());
    // A few items are looked through; past that, a hash set keeps a long
    // list's intersection linear.
    Ok(Value::Bool(if right.len() <= SCAN_ITEMS {
        left.any(|x| right.contains(&x))
    } else {
        let right: ahash::AHashSet<&str> = right.into_iter().collect();
        left.any(|x| right.contains(x))
    }))
}

/// The most items of the second list `stringListsIntersect` looks through one
/// by one for each item of the first.
const SCAN_ITEMS: usize = 16;

/// The list text and delimiters of a `stringListX(list[, delims])` call, strictly
/// strings; `None` gives error.
fn list_and_delims(vals: &[Value], list_at: usize) -> Option<(String, String)> {
    let Value::Str(l) = &vals[list_at] else {
        return None;
    };
    let d = match vals.get(list_at + 1) {
        None => DEFAULT_DELIMS.to_string(),
        Some(Value::Str(d)) => d.to_string(),
        Some(_) => return None,
    };
    Some((l.to_string(), d))
}

/// `stringListSize(list[, delims])`.
fn list_size(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 1, 2) {
        return Ok(Value::Error);
    }
    let vals = all_args(c)?;
    Ok(match list_and_delims(&vals, 0) {
        Some((l, d)) => Value::Int(items(&l, &d).len() as i64),
        None => Value::Error,
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Summary {
    Sum,
    Avg,
    Min,
    Max,
}

/// C's `sscanf("%lf")` on an item: the leading number.
fn scan_f64(s: &str) -> Option<f64> {
    crate::c_number::strtod(s)
}

/// `stringListSum/Avg/Min/Max`: an integer when every item is written with only
/// digits and signs, else a real. The running min starts at `FLT_MAX` and the max
/// at `FLT_MIN` (a tiny positive number), as in HTCondor.
fn summarize(c: &mut dyn Call, kind: Summary) -> Result<Value, Fail> {
    if !arity(c, 1, 2) {
        return Ok(Value::Error);
    }
    let vals = all_args(c)?;
    let Some((l, d)) = list_and_delims(&vals, 0) else {
        return Ok(Value::Error);
    };
    let list = items(&l, &d);
    if list.is_empty() {
        return Ok(match kind {
            Summary::Sum | Summary::Avg => Value::Real(0.0),
            _ => Value::Undefined,
        });
    }
    let mut acc = match kind {
        Summary::Min => f64::from(f32::MAX),
        Summary::Max => f64::from(f32::MIN_POSITIVE),
        _ => 0.0,
    };
    let mut is_real = false;
    for item in &list {
        let Some(x) = scan_f64(item) else {
            return Ok(Value::Error);
        };
        is_real |= !item.bytes().all(|b| b"+-0123456789".contains(&b));
        acc = match kind {
            Summary::Sum | Summary::Avg => acc + x,
            Summary::Min => {
                if x < acc {
                    x
                } else {
                    acc
                }
            }
            Summary::Max => {
                if x > acc {
                    x
                } else {
                    acc
                }
            }
        };
    }
    if kind == Summary::Avg {
        acc /= list.len() as f64;
    }
    Ok(if is_real {
        Value::Real(acc)
    } else {
        Value::Int(super::text::f64_to_i64_x86(acc))
    })
}

/// A string argument of the member/subset functions: undefined counts as the empty
/// string, other non-strings are errors.
pub(crate) fn loose_text(v: &Value) -> Option<String> {
    match v {
        Value::Str(s) => Some(s.to_string()),
        Value::Undefined => Some(String::new()),
        _ => None,
    }
}

/// The evaluated arguments as loose texts with the delimiter at `delim_at`.
fn loose_args(vals: &[Value], delim_at: usize) -> Option<(Vec<String>, String)> {
    let texts = vals[..delim_at]
        .iter()
        .map(loose_text)
        .collect::<Option<Vec<_>>>()?;
    let d = match vals.get(delim_at) {
        None => DEFAULT_DELIMS.to_string(),
        Some(v) => loose_text(v).map(|d| {
            if d.is_empty() && v.is_undefined() {
                DEFAULT_DELIMS.to_string()
            } else {
                d
            }
        })?,
    };
    Some((texts, d))
}

/// Whether the first two arguments are both undefined: the member and subset
/// functions then give undefined (one undefined alone counts as an empty string).
fn both_undefined(vals: &[Value]) -> bool {
    vals[0].is_undefined() && vals[1].is_undefined()
}

fn same(a: &str, b: &str, ignore_case: bool) -> bool {
    if ignore_case {
        a.eq_ignore_ascii_case(b)
    } else {
        a == b
    }
}

/// `stringListMember(x, list[, delims])` and the case-insensitive `IMember`.
fn list_member(c: &mut dyn Call, ignore_case: bool) -> Result<Value, Fail> {
    if !arity(c, 2, 3) {
        return Ok(Value::Error);
    }
    // As `loose_args` and `items` give them, without copying a text: matching
    // calls this once per slot and value of the other side.
    let vals: smallvec::SmallVec<[Value; 3]> =
        (0..c.argc()).map(|i| c.arg(i)).collect::<Result<_, _>>()?;
    let (Some(x), Some(list)) = (loose_str(&vals[0]), loose_str(&vals[1])) else {
        return Ok(Value::Error);
    };
    let delims = match vals.get(2) {
        None => DEFAULT_DELIMS,
        Some(v) => match loose_str(v) {
            None => return Ok(Value::Error),
            Some("") if v.is_undefined() => DEFAULT_DELIMS,
            Some(d) => d,
        },
    };
    if both_undefined(&vals) {
        return Ok(Value::Undefined);
    }
    Ok(Value::Bool(
        list.split(delimiter_test(delims))
            .map(str::trim)
            .filter(|i| !i.is_empty())
            .any(|i| same(i, x, ignore_case)),
    ))
}

/// [`loose_text`] without the copy.
fn loose_str(v: &Value) -> Option<&str> {
    match v {
        Value::Str(s) => Some(s.as_str()),
        Value::Undefined => Some(""),
        _ => None,
    }
}

/// `x`, in ASCII lower case when `ignore_case`: equal after folding exactly when
/// `eq_ignore_ascii_case`.
fn fold_case(x: &str, ignore_case: bool) -> std::borrow::Cow<'_, str> {
    if ignore_case && x.bytes().any(|b| b.is_ascii_uppercase()) {
        x.to_ascii_lowercase().into()
    } else {
        x.into()
    }
}

/// `stringListSubsetMatch(a, b[, delims])`: every item of `a` is in `b`.
fn subset_match(c: &mut dyn Call, ignore_case: bool) -> Result<Value, Fail> {
    if !arity(c, 2, 3) {
        return Ok(Value::Error);
    }
    let vals = all_args(c)?;
    let Some((t, d)) = loose_args(&vals, 2) else {
        return Ok(Value::Error);
    };
    if both_undefined(&vals) {
        return Ok(Value::Undefined);
    }
    let mut sub = items(&t[0], &d);
    // A list of nothing but blanks has one empty item here, unlike stringListSize
    // (HTCondor 25.14.1: `stringListSubsetMatch(" ", "a")` is false).
    if sub.is_empty() && !t[0].is_empty() {
        sub.push("");
    }
    // A set of `b`'s items, so the test is linear rather than m*n; folding ASCII
    // case for the I-variant is exactly `eq_ignore_ascii_case`.
    let fold = |x| fold_case(x, ignore_case);
    let sup: ahash::AHashSet<_> = items(&t[1], &d).into_iter().map(fold).collect();
    Ok(Value::Bool(sub.iter().all(|x| sup.contains(&fold(x)))))
}

/// `stringList_regexpMember(pattern, list[, delims[, options]])`. Unlike the other
/// string-list functions it takes no undefined argument: every argument must be a
/// string, or the answer is error (HTCondor 25.14.1).
fn regexp_member(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 2, 4) {
        return Ok(Value::Error);
    }
    let vals = all_args(c)?;
    if !vals.iter().all(|v| matches!(v, Value::Str(_))) {
        return Ok(Value::Error);
    }
    let Some((t, d)) = loose_args(&vals[..vals.len().min(3)], 2) else {
        return Ok(Value::Error);
    };
    let opts = match vals.get(3) {
        None => String::new(),
        Some(Value::Str(o)) => o.to_string(),
        Some(_) => return Ok(Value::Error),
    };
    // The pattern is compiled first: a bad one is error even for an empty list.
    let Some(re) = super::regex::compile(&t[0], &opts, true) else {
        return Ok(Value::Error);
    };
    let list = items(&t[1], &d);
    if list.is_empty() {
        return Ok(Value::Undefined);
    }
    Ok(Value::Bool(list.iter().any(|x| re.is_match(x.as_bytes()))))
}

#[cfg(test)]
mod tests {
    use crate::eval::testing::{eval, s};
    use classad_vm::Value;

    #[test]
    fn delimiter_sets_hold_ascii_and_other_characters() {
        let set = super::Delimiters::new(", \u{e9}\u{2192}");
        for (ch, inside) in [
            (',', true),
            (' ', true),
            ('\u{e9}', true),
            ('\u{2192}', true),
            ('e', false),
            ('\0', false),
            ('\u{7f}', false),
            ('\u{e8}', false),
        ] {
            assert_eq!(set.contains(ch), inside, "{ch:?}");
        }
        assert!(super::Delimiters::new("").others.is_none());
        assert!(!super::Delimiters::new("").contains('a'));
    }

    #[test]
    fn intersections_of_short_and_long_second_lists() {
        // Up to `SCAN_ITEMS` items of the second list are scanned, more hashed.
        for n in [1, super::SCAN_ITEMS, super::SCAN_ITEMS + 1, 40] {
            let long: Vec<String> = (0..n).map(|i| format!("i{i}")).collect();
            let long = s(&long.join(","));
            let last = format!("x,i{}", n - 1);
            assert_eq!(
                eval("stringListsIntersect", vec![s(&last), long.clone()]),
                "true"
            );
            assert_eq!(
                eval("stringListsIntersect", vec![s("x,y"), long.clone()]),
                "false"
            );
            assert_eq!(eval("stringListsIntersect", vec![s("I0"), long]), "false");
        }
    }

    // Expected results from HTCondor 25.14.1.
    #[test]
    fn split_cases() {
        assert_eq!(eval("split", vec![s("a b, c")]), "{ \"a\",\"b\",\"c\" }");
        assert_eq!(
            eval("split", vec![s("a b, c"), s(",")]),
            "{ \"a b\",\" c\" }"
        );
        assert_eq!(
            eval("split", vec![s("a,,b"), s(",")]),
            "{ \"a\",\"\",\"b\" }"
        );
        assert_eq!(eval("split", vec![s("  ")]), "{  }");
        assert_eq!(eval("split", vec![s("::a"), s(":")]), "{ \"\",\"a\" }");
        assert_eq!(
            eval("split", vec![s("a::b::"), s(":")]),
            "{ \"a\",\"\",\"b\",\"\" }"
        );
        assert_eq!(eval("split", vec![s("a,;b"), s(",;")]), "{ \"a\",\"b\" }");
        assert_eq!(eval("split", vec![s("a ,, b")]), "{ \"a\",\"\",\"b\" }");
        assert_eq!(eval("split", vec![Value::Undefined]), "error");
        assert_eq!(eval("splitUserName", vec![s("joe")]), "{ \"joe\",\"\" }");
        assert_eq!(eval("splitSlotName", vec![s("host")]), "{ \"\",\"host\" }");
        assert_eq!(
            eval("splitSlotName", vec![s("slot1@host@x")]),
            "{ \"slot1\",\"host@x\" }"
        );
    }

    #[test]
    fn string_lists() {
        assert_eq!(eval("stringListSize", vec![s("a, b ,c")]), "3");
        assert_eq!(eval("stringListSize", vec![s("a;b"), s("")]), "1");
        assert_eq!(eval("stringListSize", vec![Value::Undefined]), "error");
        assert_eq!(eval("stringListSum", vec![s("1,2")]), "3");
        assert_eq!(eval("stringListSum", vec![s("")]), "0.0");
        assert_eq!(eval("stringListAvg", vec![s("1,2")]), "1");
        assert_eq!(
            eval("stringListSum", vec![s("1,2abc")]),
            "3.000000000000000E+00"
        );
        assert_eq!(eval("stringListMin", vec![s("")]), "undefined");
        assert_eq!(eval("stringListMax", vec![s("b,a")]), "error");
        assert_eq!(eval("stringListMember", vec![s("A"), s("a,b")]), "false");
        assert_eq!(eval("stringListIMember", vec![s("A"), s("a,b")]), "true");
        assert_eq!(
            eval("stringListMember", vec![s("a"), Value::Undefined]),
            "false"
        );
        assert_eq!(
            eval("stringListMember", vec![Value::Int(1), s("1,2")]),
            "error"
        );
        assert_eq!(eval("stringListSubsetMatch", vec![s(""), s("a")]), "true");
        assert_eq!(eval("stringListSubsetMatch", vec![s(" "), s("a")]), "false");
        assert_eq!(
            eval("stringListSubsetMatch", vec![Value::Undefined, s("a")]),
            "true"
        );
        assert_eq!(
            eval("stringListsIntersect", vec![s("a b"), s("B")]),
            "false"
        );
        assert_eq!(
            eval("stringListsIntersect", vec![s("a"), Value::Undefined]),
            "undefined"
        );
        assert_eq!(
            eval(
                "stringList_regexpMember",
                vec![s("^A"), s("x,ab"), s(","), s("i")]
            ),
            "true"
        );
        assert_eq!(
            eval("stringList_regexpMember", vec![s("("), s("x")]),
            "error"
        );
    }

    // Expected results from HTCondor 25.14.1.
    #[test]
    fn regexp_member_needs_strings() {
        let f = "stringList_regexpMember";
        assert_eq!(eval(f, vec![Value::Undefined, s("a,bc")]), "error");
        assert_eq!(eval(f, vec![s("^b"), Value::Undefined]), "error");
        assert_eq!(
            eval(f, vec![s("^B"), s("a,bc"), Value::Undefined, s("i")]),
            "error"
        );
        assert_eq!(eval(f, vec![s("^B"), s("a,bc"), s(","), s("i")]), "true");
    }
}
