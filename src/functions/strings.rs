//! String builtins: `strcat`, `join`, `toUpper`, `toLower`, `substr`, `strcmp`,
//! `stricmp`, `size`, `interval`.

use super::convert::{int_of, text_of};
use super::{add, arity, Builtin, Call};
use crate::limits::Tally;
use crate::values::compound::{as_ad, as_list};
use crate::values::scope::{record_names, Frame};
use crate::values::Fail;
use classad_vm::Value;
use std::cmp::Ordering;

pub(super) fn register(t: &mut Vec<Builtin>) {
    add(t, "strcat", strcat);
    add(t, "join", join);
    add(t, "toUpper", |c| change_case(c, false));
    add(t, "toLower", |c| change_case(c, true));
    add(t, "substr", substr);
    add(t, "strcmp", |c| compare(c, false));
    add(t, "stricmp", |c| compare(c, true));
    add(t, "size", size);
    add(t, "interval", interval);
}

/// `strcat(...)`: every argument as text; the first undefined or error argument
/// decides the result. A result larger than the memory budget is error; the text
/// is dropped as soon as it passes the budget (the remaining arguments are still
/// evaluated, since an undefined one among them decides the result).
fn strcat(c: &mut dyn Call) -> Result<Value, Fail> {
    let mut out = String::new();
    let mut tally = Tally::new();
    for i in 0..c.argc() {
        match text_of(&c.arg(i)?) {
            Ok(s) if tally.add(s.len()) => out.push_str(&s),
            Ok(_) => out = String::new(),
            Err(v) => return Ok(v),
        }
    }
    Ok(if tally.over() {
        Value::Error
    } else {
        Value::str(out)
    })
}

/// `join(sep, items...)`, `join(sep, list)` or `join(list)`: undefined items are
/// skipped, but a join of nothing but undefined is undefined.
fn join(c: &mut dyn Call) -> Result<Value, Fail> {
    let n = c.argc();
    // With one or two arguments a list last argument supplies the items; the
    // arguments (or the elements) are then read one at a time, so an error ends
    // the join before the next one is evaluated.
    let mut list = None;
    let mut last = None;
    if (1..=2).contains(&n) {
        // HTCondor forgets a failure here: the argument is evaluated again below.
        if let Ok(v) = c.arg(n - 1) {
            match super::list_len(&v) {
                Some(len) => list = Some((v, len)),
                None => last = Some(v),
            }
        }
    }
    let count = list.as_ref().map_or(n, |(_, len)| len + 1);
    let item = |c: &mut dyn Call, i: usize| -> Result<Value, Fail> {
        match (&list, &last) {
            (Some(_), _) if i == 0 && n == 1 => Ok(Value::str("")),
            (Some(_), _) if i == 0 => c.arg(0),
            (Some((l, _)), _) => c.list_item(l, i - 1),
            (None, Some(v)) if i == n - 1 => Ok(v.clone()),
            (None, _) => c.arg(i),
        }
    };
    let mut out = String::new();
    let mut sep = String::new();
    let mut saw_undefined = false;
    let mut joined = 0;
    // The text is dropped once it passes the memory budget; the items are still
    // read, since an error among them decides the result.
    let mut tally = Tally::new();
    let mut empty_so_far = true;
    for i in 0..count {
        let v = item(c, i)?;
        match text_of(&v) {
            Ok(s) if i == 0 => sep = s,
            Ok(s) => {
                // HTCondor puts the separator only after something non-empty.
                let sep = if empty_so_far { "" } else { sep.as_str() };
                empty_so_far &= s.is_empty();
                if tally.add(sep.len() + s.len()) {
                    out.push_str(sep);
                    out.push_str(&s);
                } else {
                    out = String::new();
                }
                joined += 1;
            }
            Err(Value::Undefined) => saw_undefined = true,
            Err(e) => return Ok(e),
        }
    }
    if saw_undefined && joined == 0 {
        return Ok(Value::Undefined);
    }
    Ok(if tally.over() {
        Value::Error
    } else {
        Value::str(out)
    })
}

/// `toUpper`/`toLower`: ASCII only, like C's `toupper` in the C locale.
fn change_case(c: &mut dyn Call, lower: bool) -> Result<Value, Fail> {
    if !arity(c, 1, 1) {
        return Ok(Value::Error);
    }
    Ok(match text_of(&c.arg(0)?) {
        Ok(s) if lower => Value::str(s.to_ascii_lowercase()),
        Ok(s) => Value::str(s.to_ascii_uppercase()),
        Err(v) => v,
    })
}

/// `substr(s, offset[, len])`, Perl-like: negative offsets count from the end and a
/// negative length leaves that many bytes off the end.
///
/// HTCondor counts bytes. Our strings are UTF-8, so a cut that would fall inside a
/// multi-byte character is widened to the character's boundaries instead of
/// splitting it.
fn substr(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 2, 3) {
        return Ok(Value::Error);
    }
    let mut args = Vec::with_capacity(3);
    for i in 0..c.argc() {
        args.push(c.arg(i)?);
    }
    if args.iter().any(Value::is_undefined) {
        return Ok(Value::Undefined);
    }
    let (Value::Str(s), Value::Int(off)) = (&args[0], &args[1]) else {
        return Ok(Value::Error);
    };
    let len = match args.get(2) {
        None => None,
        Some(Value::Int(l)) => Some(*l as i32),
        Some(_) => return Ok(Value::Error),
    };
    let (start, end) = substr_range(s.len(), *off as i32, len);
    let start = floor_boundary(s, start);
    let end = ceil_boundary(s, end.max(start));
    Ok(Value::str(&s[start..end]))
}

/// The byte range `substr` takes, with C's 32-bit `int` arithmetic.
fn substr_range(alen: usize, offset: i32, len: Option<i32>) -> (usize, usize) {
    let alen = i32::try_from(alen).unwrap_or(i32::MAX);
    let mut offset = if offset < 0 {
        alen.saturating_add(offset)
    } else {
        offset.min(alen)
    };
    // A negative offset beyond the start is clamped by `std::string::assign`-like
    // use: HTCondor gives the whole prefix then.
    if offset < 0 {
        offset = 0;
    }
    let l = len.unwrap_or(0);
    let mut n = if l <= 0 {
        (alen - offset).saturating_add(l).max(0)
    } else {
        l.min(alen - offset)
    };
    if len == Some(0) {
        n = 0;
    }
    (offset as usize, (offset + n) as usize)
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i.min(s.len())
}

/// `strcmp`/`stricmp`: -1, 0 or 1; arguments are converted to text; undefined wins
/// over error.
fn compare(c: &mut dyn Call, ignore_case: bool) -> Result<Value, Fail> {
    if !arity(c, 2, 2) {
        return Ok(Value::Error);
    }
    let (a, b) = (c.arg(0)?, c.arg(1)?);
    if a.is_undefined() || b.is_undefined() {
        return Ok(Value::Undefined);
    }
    let (Ok(x), Ok(y)) = (text_of(&a), text_of(&b)) else {
        return Ok(Value::Error);
    };
    let ord = if ignore_case {
        classad_vm::ops::cmp_ignore_case(&x, &y)
    } else {
        x.as_bytes().cmp(y.as_bytes())
    };
    Ok(Value::Int(match ord {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }))
}

/// `size(x)`: the length of a string (bytes), a list, or an ad's attribute count.
fn size(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 1, 1) {
        return Ok(Value::Error);
    }
    let v = c.arg(0)?;
    Ok(match &v {
        Value::Undefined => Value::Undefined,
        Value::Str(s) => Value::Int(s.len() as i64),
        Value::List(_) => Value::Int(as_list(&v).map_or(0, |l| l.len()) as i64),
        Value::Ad(_) => Value::Int(ad_size(&v) as i64),
        _ => Value::Error,
    })
}

/// The number of attributes of an ad value.
pub(crate) fn ad_size(v: &Value) -> usize {
    match as_ad(v).map(|a| &a.scope.frame) {
        Some(Frame::Ad(ad)) => {
            crate::values::reads::note_ad_read();
            ad.len()
        }
        Some(Frame::Record(r)) => record_names(r).len(),
        Some(_) => as_ad(v).map_or(0, |a| a.scope.attributes(true).len()),
        None => 0,
    }
}

/// `interval(secs)`: `[d+]h:mm:ss` with leading zero fields left off.
fn interval(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 1, 1) {
        return Ok(Value::Error);
    }
    let v = c.arg(0)?;
    let Some(total) = (match v {
        Value::Undefined | Value::Error => None,
        _ => int_of(&v),
    }) else {
        return Ok(Value::Error);
    };
    // HTCondor keeps the seconds in a C `int`.
    let t = total as i32;
    let (days, rem) = (t / 86_400, t % 86_400);
    let (hours, rem) = (rem / 3600, rem % 3600);
    let (min, secs) = (rem / 60, rem % 60);
    let (h, m, s) = (hours.abs(), min.abs(), secs.abs());
    Ok(Value::str(if days != 0 {
        format!("{days}+{h:02}:{m:02}:{s:02}")
    } else if hours != 0 {
        format!("{hours}:{m:02}:{s:02}")
    } else if min != 0 {
        format!("{min}:{s:02}")
    } else {
        format!("{secs}")
    }))
}

#[cfg(test)]
mod tests {
    use crate::eval::testing::{eval, list, s};
    use classad_vm::Value;

    // Expected results from HTCondor 25.14.1.
    #[test]
    fn strcat_and_join() {
        let r = Value::Real(2.5);
        assert_eq!(
            eval(
                "strcat",
                vec![s("a"), r.clone(), Value::Bool(true), Value::Int(7)]
            ),
            "\"a2.500000000000000E+00true7\""
        );
        assert_eq!(
            eval("strcat", vec![s("a"), Value::Error, Value::Undefined]),
            "error"
        );
        assert_eq!(
            eval("strcat", vec![s("a"), Value::Undefined, Value::Error]),
            "undefined"
        );
        assert_eq!(eval("strcat", vec![]), "\"\"");
        assert_eq!(
            eval("strcat", vec![Value::RelTime(100_000.0)]),
            "\"1+03:46:40\""
        );
        assert_eq!(
            eval(
                "join",
                vec![s(","), list(vec![s("a"), Value::Undefined, r])]
            ),
            "\"a,2.500000000000000E+00\""
        );
        assert_eq!(
            eval("join", vec![list(vec![Value::Int(1), Value::Int(2)])]),
            "\"12\""
        );
        assert_eq!(eval("join", vec![s(","), Value::Undefined]), "undefined");
        assert_eq!(
            eval("join", vec![Value::Undefined, s("a"), s("b")]),
            "\"ab\""
        );
        assert_eq!(eval("join", vec![s(","), list(vec![])]), "\"\"");
        assert_eq!(
            eval(
                "join",
                vec![s(","), list(vec![Value::Int(1)]), Value::Int(3)]
            ),
            "\"{ 1 },3\""
        );
    }

    #[test]
    fn substr_cases() {
        let i = Value::Int;
        assert_eq!(eval("substr", vec![s("hello"), i(-2)]), "\"lo\"");
        assert_eq!(eval("substr", vec![s("hello"), i(1), i(-1)]), "\"ell\"");
        assert_eq!(eval("substr", vec![s("hello"), i(10)]), "\"\"");
        assert_eq!(eval("substr", vec![s("hello"), i(-10), i(2)]), "\"he\"");
        assert_eq!(eval("substr", vec![s("hello"), i(2), i(-10)]), "\"\"");
        assert_eq!(eval("substr", vec![s("hello"), Value::Real(1.7)]), "error");
        assert_eq!(eval("substr", vec![i(123), i(1)]), "error");
        assert_eq!(
            eval("substr", vec![s("hello"), i(1), Value::Undefined]),
            "undefined"
        );
        assert_eq!(
            eval("substr", vec![s("h\u{e9}llo"), i(2), i(1)]),
            "\"\\303\\251\""
        );
        assert_eq!(
            eval("substr", vec![s("x"), i(i64::MAX), i(i64::MIN)]),
            "\"\""
        );
    }

    #[test]
    fn case_compare_size_interval() {
        assert_eq!(eval("toUpper", vec![Value::Int(123)]), "\"123\"");
        assert_eq!(eval("toUpper", vec![Value::Bool(true)]), "\"TRUE\"");
        assert_eq!(eval("strcmp", vec![s("a"), s("B")]), "1");
        assert_eq!(eval("strcmp", vec![Value::Int(1), s("1")]), "0");
        assert_eq!(eval("stricmp", vec![s("A"), s("a")]), "0");
        assert_eq!(
            eval("strcmp", vec![Value::Error, Value::Undefined]),
            "undefined"
        );
        assert_eq!(eval("size", vec![s("abc")]), "3");
        assert_eq!(eval("size", vec![Value::Int(5)]), "error");
        assert_eq!(eval("interval", vec![Value::Int(3661)]), "\"1:01:01\"");
        assert_eq!(eval("interval", vec![Value::Int(90061)]), "\"1+01:01:01\"");
        assert_eq!(eval("interval", vec![Value::Int(-3661)]), "\"-1:01:01\"");
        assert_eq!(eval("interval", vec![Value::Int(-5)]), "\"-5\"");
        assert_eq!(eval("interval", vec![Value::Undefined]), "error");
    }
}
