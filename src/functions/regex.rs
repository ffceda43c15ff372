//! Regular-expression builtins: `regexp`, `regexpMember`, `regexps`, `replace`,
//! `replaceall`, with a small shared cache of compiled patterns.
//!
//! HTCondor uses PCRE2; we use the `regex` crate, so PCRE-only constructs
//! (back-references, look-around) fail to compile and give error. Like PCRE2
//! without its UTF mode, matching is on bytes: `.` is one byte, and `\w`, `\d`
//! and case folding know ASCII only. A substitution that cuts a multi-byte
//! character yields U+FFFD there (our strings are UTF-8 text, HTCondor's bytes).

use super::{add, arity, Builtin, Call};
use crate::eval::Fail;
use classad_vm::Value;
use regex::bytes::{Captures, Regex, RegexBuilder};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

pub(super) fn register(t: &mut Vec<Builtin>) {
    add(t, "regexp", regexp);
    add(t, "regexpMember", regexp_member);
    add(t, "regexps", |c| subst(c, ""));
    add(t, "replace", |c| subst(c, "f"));
    add(t, "replaceAll", |c| subst(c, "fg"));
}

/// Compiles `pattern` with PCRE-style option letters (`i m s x`; others ignored;
/// `upper` also accepts their capitals), caching the result. `None` for a bad or
/// oversized pattern.
pub(crate) fn compile(pattern: &str, options: &str, upper: bool) -> Option<Arc<Regex>> {
    type Cache = Mutex<HashMap<(String, u8), Option<Arc<Regex>>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let has =
        |ch: char| options.contains(ch) || (upper && options.contains(ch.to_ascii_uppercase()));
    let flags = u8::from(has('i'))
        | u8::from(has('m')) << 1
        | u8::from(has('s')) << 2
        | u8::from(has('x')) << 3;
    let key = (pattern.to_string(), flags);
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(hit) = cache.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return hit;
    }
    let re = RegexBuilder::new(&literal_braces(pattern))
        .unicode(false)
        .case_insensitive(flags & 1 != 0)
        .multi_line(flags & 2 != 0)
        .dot_matches_new_line(flags & 4 != 0)
        .ignore_whitespace(flags & 8 != 0)
        // Bounded compile size keeps pathological patterns cheap.
        .size_limit(1 << 20)
        .dfa_size_limit(1 << 20)
        .build()
        .ok()
        .map(Arc::new);
    if let Ok(mut m) = cache.lock() {
        if m.len() >= 256 {
            m.clear();
        }
        m.insert(key, re.clone());
    }
    re
}

/// `pattern` with every `{` that PCRE2 reads as itself escaped: outside a
/// character class, one that does not begin a quantifier `{n}`, `{n,}` or
/// `{n,m}` (digits only, no blanks), which the `regex` crate would refuse or read
/// as a repetition.
fn literal_braces(pattern: &str) -> std::borrow::Cow<'_, str> {
    let b = pattern.as_bytes();
    let digits = |mut j: usize| {
        let start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        (j > start, j)
    };
    let quantifier = |i: usize| {
        let (some, mut j) = digits(i + 1);
        if !some {
            return false;
        }
        if b.get(j) == Some(&b',') {
            j = digits(j + 1).1;
        }
        b.get(j) == Some(&b'}')
    };
    let mut literal = Vec::new();
    let mut class = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'[' if !class => {
                class = true;
                // A `]` first in the class (after an optional `^`) is itself.
                if b.get(i + 1) == Some(&b'^') {
                    i += 1;
                }
                if b.get(i + 1) == Some(&b']') {
                    i += 1;
                }
            }
            // A POSIX class (`[:alpha:]`) inside a class.
            b'[' if b.get(i + 1) == Some(&b':') => {
                if let Some(end) = pattern[i + 2..].find(":]") {
                    i += end + 3;
                }
            }
            b']' if class => class = false,
            b'{' if !class && !quantifier(i) => literal.push(i),
            _ => {}
        }
        i += 1;
    }
    if literal.is_empty() {
        return pattern.into();
    }
    let mut out = String::with_capacity(pattern.len() + literal.len());
    let mut from = 0;
    for at in literal {
        out.push_str(&pattern[from..at]);
        out.push('\\');
        from = at;
    }
    out.push_str(&pattern[from..]);
    out.into()
}

/// Evaluates `n` arguments; `Err` holds error (any error argument) or undefined
/// (any undefined argument), in that order of precedence.
fn eval_args(c: &mut dyn Call) -> Result<Result<Vec<Value>, Value>, Fail> {
    let mut vals = Vec::with_capacity(c.argc());
    for i in 0..c.argc() {
        vals.push(c.arg(i)?);
    }
    if vals.iter().any(Value::is_error) {
        return Ok(Err(Value::Error));
    }
    if vals.iter().any(Value::is_undefined) {
        return Ok(Err(Value::Undefined));
    }
    Ok(Ok(vals))
}

/// The option string argument at `i`, if given; `Err` when it is not a string.
fn options(vals: &[Value], i: usize) -> Result<String, ()> {
    match vals.get(i) {
        None => Ok(String::new()),
        Some(Value::Str(s)) => Ok(s.to_string()),
        Some(_) => Err(()),
    }
}

/// `regexp(pattern, target[, options])`.
fn regexp(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 2, 3) {
        return Ok(Value::Error);
    }
    let vals = match eval_args(c)? {
        Ok(v) => v,
        Err(v) => return Ok(v),
    };
    let (Ok(opts), Value::Str(p), Value::Str(t)) = (options(&vals, 2), &vals[0], &vals[1]) else {
        return Ok(Value::Error);
    };
    Ok(match compile(p, &opts, false) {
        Some(re) => Value::Bool(re.is_match(t.as_bytes())),
        None => Value::Error,
    })
}

/// `regexpMember(pattern, list[, options])`: true if any element matches; a
/// non-string element is error, undefined elements make a miss undefined.
fn regexp_member(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 2, 3) {
        return Ok(Value::Error);
    }
    let vals = match eval_args(c)? {
        Ok(v) => v,
        Err(v) => return Ok(v),
    };
    let (Ok(opts), Value::Str(p)) = (options(&vals, 2), &vals[0]) else {
        return Ok(Value::Error);
    };
    let Some(n) = super::list_len(&vals[1]) else {
        return Ok(Value::Error);
    };
    // HTCondor matches element by element, and a pattern that does not compile
    // simply matches nothing: false, not error. An element whose evaluation fails
    // is error.
    let re = compile(p, &opts, false);
    let mut maybe = false;
    for i in 0..n {
        let Ok(item) = c.list_item(&vals[1], i) else {
            return Ok(Value::Error);
        };
        match item {
            Value::Str(s) if re.as_ref().is_some_and(|re| re.is_match(s.as_bytes())) => {
                return Ok(Value::Bool(true))
            }
            Value::Str(_) => {}
            Value::Undefined => maybe = true,
            _ => return Ok(Value::Error),
        }
    }
    Ok(if maybe {
        Value::Undefined
    } else {
        Value::Bool(false)
    })
}

/// `regexps`, `replace`, `replaceAll`: `extra` adds HTCondor's implied `f` (keep
/// the full target) and `g` (every match) options.
fn subst(c: &mut dyn Call, extra: &str) -> Result<Value, Fail> {
    if !arity(c, 3, 4) {
        return Ok(Value::Error);
    }
    let vals = match eval_args(c)? {
        Ok(v) => v,
        Err(v) => return Ok(v),
    };
    let Ok(mut opts) = options(&vals, 3) else {
        return Ok(Value::Error);
    };
    opts.push_str(extra);
    let (Value::Str(p), Value::Str(t), Value::Str(r)) = (&vals[0], &vals[1], &vals[2]) else {
        return Ok(Value::Error);
    };
    let Some(re) = compile(p, &opts, false) else {
        return Ok(Value::Error);
    };
    Ok(
        substitute(&re, t.as_bytes(), r, opts.contains('f'), opts.contains('g'))
            .map_or(Value::Error, |out| {
                Value::str(String::from_utf8_lossy(&out).into_owned())
            }),
    )
}

/// The substitution itself, as HTCondor's loop does it: each search starts where
/// the last match ended; after an empty match, the next search must find a
/// non-empty match right there, and when it does not, one byte of the target is
/// copied over (even without `f`) and the search moves on by one. An empty match at
/// the very end therefore runs off the target: error (HTCondor's matcher refuses
/// the offset). `None` also for a reference to a group that did not take part (or
/// does not exist).
fn substitute(re: &Regex, target: &[u8], repl: &str, full: bool, all: bool) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut idx = 0;
    let mut after_empty = false;
    loop {
        let caps = re.captures_at(target, idx);
        if after_empty {
            // PCRE's `NOTEMPTY_ATSTART | ANCHORED`: a non-empty match at `idx`.
            let here = caps
                .as_ref()
                .and_then(|c| c.get(0))
                .is_some_and(|m| m.start() == idx && !m.is_empty());
            if !here {
                let &b = target.get(idx)?;
                out.push(b);
                idx += 1;
                after_empty = false;
                continue;
            }
        }
        let Some(caps) = caps else {
            break;
        };
        let m = caps.get(0)?;
        if full {
            out.extend_from_slice(&target[idx..m.start()]);
        }
        expand(&caps, repl, &mut out)?;
        if crate::limits::too_big(out.len()) {
            // Past the memory budget: the result is error, so stop copying.
            return None;
        }
        idx = m.end();
        after_empty = m.is_empty();
        if !all {
            break;
        }
    }
    if full {
        out.extend_from_slice(&target[idx..]);
    }
    Some(out)
}

/// Writes `repl` with `\N` replaced by group N. Like PCRE's substring list, only
/// groups up to the last one that matched exist.
fn expand(caps: &Captures<'_>, repl: &str, out: &mut Vec<u8>) -> Option<()> {
    let ngroups = (0..caps.len())
        .rev()
        .find(|&g| caps.get(g).is_some())
        .map_or(1, |g| g + 1);
    let mut bytes = repl.bytes().peekable();
    while let Some(b) = bytes.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match bytes.peek().filter(|d| d.is_ascii_digit()) {
            Some(&d) => {
                bytes.next();
                let d = usize::from(d - b'0');
                if d >= ngroups {
                    return None;
                }
                out.extend_from_slice(caps.get(d).map_or(&[][..], |m| m.as_bytes()));
            }
            None => out.push(b'\\'),
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::super::testing::{eval, list, s};
    use classad_vm::Value;

    // Expected results from HTCondor 25.14.1.
    #[test]
    fn matching() {
        assert_eq!(eval("regexp", vec![s("^a.c$"), s("ABC")]), "false");
        assert_eq!(eval("regexp", vec![s("^a.c$"), s("ABC"), s("i")]), "true");
        assert_eq!(eval("regexp", vec![s("^a.c$"), s("ABC"), s("I")]), "false");
        assert_eq!(eval("regexp", vec![s("a.c"), s("a\nc"), s("s")]), "true");
        assert_eq!(eval("regexp", vec![s("("), s("a")]), "error");
        assert_eq!(
            eval("regexp", vec![s("a"), Value::Undefined, Value::Error]),
            "error"
        );
        assert_eq!(eval("regexp", vec![Value::Int(1), s("a")]), "error");
        let l = list(vec![s("b"), Value::Undefined]);
        assert_eq!(eval("regexpMember", vec![s("a"), l]), "undefined");
        assert_eq!(
            eval("regexpMember", vec![s("a"), list(vec![Value::Int(1)])]),
            "error"
        );
    }

    #[test]
    fn substitution() {
        assert_eq!(
            eval(
                "regexps",
                vec![s("(\\w+)@(\\w+)"), s("joe@wisc"), s("\\2:\\1")]
            ),
            "\"wisc:joe\""
        );
        assert_eq!(eval("regexps", vec![s("z"), s("bab"), s("X")]), "\"\"");
        assert_eq!(
            eval("regexps", vec![s("a"), s("bab"), s("X"), s("fg")]),
            "\"bXb\""
        );
        assert_eq!(
            eval("replace", vec![s("a"), s("banana"), s("o")]),
            "\"bonana\""
        );
        assert_eq!(
            eval("replaceall", vec![s("A"), s("banana"), s("o"), s("i")]),
            "\"bonono\""
        );
        assert_eq!(
            eval("replaceall", vec![s("a*"), s("baaac"), s("X")]),
            "error"
        );
        assert_eq!(
            eval("regexps", vec![s("a(b)?c"), s("ac"), s("[\\1]")]),
            "error"
        );
        assert_eq!(eval("regexps", vec![s("a"), s("a"), s("\\9")]), "error");
    }

    // Expected results from HTCondor 25.14.1.
    #[test]
    fn member_with_bad_pattern_matches_nothing() {
        let one = || list(vec![s("a")]);
        assert_eq!(eval("regexpMember", vec![s("("), one()]), "false");
        let with_undef = list(vec![s("a"), Value::Undefined]);
        assert_eq!(eval("regexpMember", vec![s("("), with_undef]), "undefined");
        let with_int = list(vec![s("a"), Value::Int(1)]);
        assert_eq!(eval("regexpMember", vec![s("("), with_int]), "error");
    }
}
