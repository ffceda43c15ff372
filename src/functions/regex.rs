//! Regular-expression builtins: `regexp`, `regexpMember`, `regexps`, `replace`,
//! `replaceall`, with a small shared cache of compiled patterns.
//!
//! HTCondor uses PCRE2. Each pattern goes, once, when it is compiled, to one of
//! two engines: the linear-time `regex` crate takes every pattern it reads as
//! PCRE2 does; the rest (back-references, look-around, atomic groups,
//! possessive quantifiers, recursion, `\K`, `\Q..\E`, `\h`, `\R`, Unicode
//! properties, ...) and the few that the `regex` crate reads differently (`\v`,
//! `\<`, nested classes, `x` mode) go to PCRE2 itself (`pcre.rs`), whose match
//! limit makes a runaway backtrack a failed match (error from `regexp`) in
//! bounded time. Where the engines differ only for some targets (`$` before a
//! final newline; `^` after one in multi-line mode; the non-empty retry after an
//! empty match in a substitution) a linear pattern asks PCRE2 for those.
//!
//! Like PCRE2 without its UTF mode, matching is on bytes: `.` is one byte, and
//! `\w`, `\d` and case folding know ASCII only. A substitution that cuts a
//! multi-byte character yields U+FFFD there (our strings are UTF-8 text,
//! HTCondor's bytes).

use super::pcre::{self, Groups, Pcre, RunAway};
use super::{add, arity, Builtin, Call};
use crate::values::Fail;
use classad_vm::Value;
use regex::bytes::{Regex, RegexBuilder};
use std::sync::{Arc, OnceLock};

pub(super) fn register(t: &mut Vec<Builtin>) {
    add(t, "regexp", regexp);
    add(t, "regexpMember", regexp_member);
    add(t, "regexps", |c| subst(c, ""));
    add(t, "replace", |c| subst(c, "f"));
    add(t, "replaceAll", |c| subst(c, "fg"));
}

/// A compiled pattern with its engine.
pub(crate) struct Pattern {
    /// The linear engine's program, for a pattern it reads as PCRE2 does.
    linear: Option<Regex>,
    /// PCRE2's program: compiled with the pattern when there is no linear one,
    /// else on first need (a target ending in a newline, a non-empty retry).
    backtracking: OnceLock<Option<Pcre>>,
    source: String,
    /// `pcre2_compile` option bits.
    options: u32,
    /// The pattern holds a `^` or `$`, whose meaning next to a final newline
    /// differs between the engines.
    anchors: bool,
}

const fn send_sync<T: Send + Sync>() {}
// Compiled patterns live in the process-wide cache and are shared by threads.
const _: () = send_sync::<Pattern>();

/// The engine that answers for one target.
enum Engine<'a> {
    Linear(&'a Regex, &'a Pattern),
    Backtracking(&'a Pcre),
}

impl Pattern {
    fn backtracking(&self) -> Option<&Pcre> {
        self.backtracking
            .get_or_init(|| Pcre::new(&self.source, self.options))
            .as_ref()
    }

    fn engine_for(&self, target: &[u8]) -> Result<Engine<'_>, RunAway> {
        match &self.linear {
            Some(re) if !(self.anchors && target.ends_with(b"\n")) => Ok(Engine::Linear(re, self)),
            _ => self.backtracking().map(Engine::Backtracking).ok_or(RunAway),
        }
    }

    /// Whether `target` holds a match; `Err` when PCRE2 gave up at its limit.
    pub(crate) fn try_match(&self, target: &[u8]) -> Result<bool, RunAway> {
        match self.engine_for(target)? {
            Engine::Linear(re, _) => Ok(re.is_match(target)),
            Engine::Backtracking(re) => re.is_match(target),
        }
    }

    /// Whether `target` holds a match, a match that gave up counting as none
    /// (as in HTCondor's `regexpMember` and `stringList_regexpMember`).
    pub(crate) fn is_match(&self, target: &[u8]) -> bool {
        self.try_match(target).unwrap_or(false)
    }
}

impl Engine<'_> {
    /// The first match at or after `start`; with `non_empty_here`, only a
    /// non-empty match that starts at `start` (PCRE2's `ANCHORED |
    /// NOTEMPTY_ATSTART`).
    fn find(
        &self,
        target: &[u8],
        start: usize,
        non_empty_here: bool,
    ) -> Result<Option<Groups>, RunAway> {
        match *self {
            Engine::Backtracking(re) => {
                let options = if non_empty_here {
                    pcre::NON_EMPTY_HERE
                } else {
                    0
                };
                re.captures_at(target, start, options)
            }
            Engine::Linear(re, pattern) => {
                let Some(caps) = re.captures_at(target, start) else {
                    return Ok(None);
                };
                let whole = caps.get(0).map_or(0..0, |m| m.range());
                if non_empty_here && (whole.start != start || whole.is_empty()) {
                    // No match starts here, or the first choice here is empty: only
                    // a backtracking search finds a later, non-empty choice.
                    if whole.start != start {
                        return Ok(None);
                    }
                    return Engine::Backtracking(pattern.backtracking().ok_or(RunAway)?)
                        .find(target, start, true);
                }
                Ok(Some(caps.iter().map(|m| m.map(|m| m.range())).collect()))
            }
        }
    }
}

/// Compiles `pattern` with PCRE-style option letters (`i m s x`; others ignored;
/// `upper` also accepts their capitals), caching the result. `None` for a bad or
/// oversized pattern.
pub(crate) fn compile(pattern: &str, options: &str, upper: bool) -> Option<Arc<Pattern>> {
    // One cache per thread: the batch matcher calls `regexp` from every core, and
    // a process-wide lock per call would serialise them. Keyed by the pattern, with
    // a place per combination of options, so that a lookup allocates nothing.
    type Compiled = [Option<Option<Arc<Pattern>>>; 16];
    thread_local! {
        static CACHE: std::cell::RefCell<ahash::AHashMap<String, Compiled>> =
            std::cell::RefCell::new(ahash::AHashMap::new());
    }
    let has =
        |ch: char| options.contains(ch) || (upper && options.contains(ch.to_ascii_uppercase()));
    let flags = u8::from(has('i'))
        | u8::from(has('m')) << 1
        | u8::from(has('s')) << 2
        | u8::from(has('x')) << 3;
    let slot = usize::from(flags);
    let hit = CACHE.with(|c| c.borrow().get(pattern).and_then(|p| p[slot].clone()));
    if let Some(hit) = hit {
        return hit;
    }
    let re = build(pattern, flags).map(Arc::new);
    CACHE.with(|c| {
        let mut m = c.borrow_mut();
        if m.len() >= 256 && !m.contains_key(pattern) {
            m.clear();
        }
        m.entry(pattern.to_string()).or_default()[slot] = Some(re.clone());
    });
    re
}

/// Which engine a pattern goes to.
#[derive(Debug, PartialEq, Eq)]
enum Route {
    Linear,
    Backtracking,
}

/// Compiles `pattern` with option `flags` (bits `i m s x`) for its engine.
fn build(pattern: &str, flags: u8) -> Option<Pattern> {
    let options = [
        pcre::CASELESS,
        pcre::MULTILINE,
        pcre::DOTALL,
        pcre::EXTENDED,
    ]
    .iter()
    .enumerate()
    .filter(|&(bit, _)| flags & 1 << bit != 0)
    .fold(0, |all, (_, &o)| all | o);
    let linear = (route(pattern, flags & 8 != 0) == Route::Linear)
        .then(|| linear(pattern, flags))
        .flatten();
    let source = bare_hex_as_nul(pattern).into_owned();
    let backtracking = OnceLock::new();
    if linear.is_none() {
        backtracking.set(Some(Pcre::new(&source, options)?)).ok()?;
    }
    Some(Pattern {
        linear,
        backtracking,
        source,
        options,
        anchors: pattern.contains(['^', '$']),
    })
}

/// `pattern` with each `\\x` that no hex digit or `{` follows written `\\x00`:
/// HTCondor's PCRE2 10.32 reads it as a NUL byte, PCRE2 10.46 refuses it.
fn bare_hex_as_nul(pattern: &str) -> std::borrow::Cow<'_, str> {
    let b = pattern.as_bytes();
    let mut bare = Vec::new();
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'\\' {
            let after = b.get(i + 2);
            if b[i + 1] == b'x' && !after.is_some_and(|c| c.is_ascii_hexdigit() || *c == b'{') {
                bare.push(i + 2);
            }
            i += 1;
        }
        i += 1;
    }
    if bare.is_empty() {
        return pattern.into();
    }
    let mut out = String::with_capacity(pattern.len() + 2 * bare.len());
    let mut from = 0;
    for at in bare {
        out.push_str(&pattern[from..at]);
        out.push_str("00");
        from = at;
    }
    out.push_str(&pattern[from..]);
    out.into()
}

/// The `regex` crate's program for `pattern`, if it takes it.
fn linear(pattern: &str, flags: u8) -> Option<Regex> {
    RegexBuilder::new(&literal_braces(pattern))
        .unicode(false)
        .case_insensitive(flags & 1 != 0)
        .multi_line(flags & 2 != 0)
        .dot_matches_new_line(flags & 4 != 0)
        // Bounded compile size keeps pathological patterns cheap.
        .size_limit(1 << 20)
        .dfa_size_limit(1 << 20)
        .build()
        .ok()
}

/// Where `pattern` goes, before trying the linear engine (which refuses most
/// PCRE-only syntax by itself). Routing more to PCRE2 never changes an answer, only
/// the speed, so this errs that way: PCRE2 takes what the `regex` crate would read
/// differently: `x` mode (PCRE2 keeps white space inside a class), the escapes
/// `\<`, `\>`, `\v`, `\u`, `\U`, `\p`, `\P`, `\x{..}`, `\b{..}` and `\B{..}`, a
/// `[`, `&&`, `--` or `~~` inside a class (nesting and set operations to the
/// `regex` crate, plain bytes to PCRE2) and POSIX classes that are not words
/// (`[[:<:]]`), a quantifier after a quantifier (possessive `a++`, or `a**`
/// which PCRE2 refuses), inline flags beyond `i m s U`, and group names beyond
/// word characters.
fn route(pattern: &str, extended: bool) -> Route {
    if extended || diverges(pattern.as_bytes()) {
        Route::Backtracking
    } else {
        Route::Linear
    }
}

fn diverges(b: &[u8]) -> bool {
    let mut class = false;
    let mut i = 0;
    while i < b.len() {
        let next = b.get(i + 1).copied();
        match b[i] {
            b'\\' => {
                let braced = b.get(i + 2) == Some(&b'{');
                if matches!(next, Some(b'<' | b'>' | b'v' | b'u' | b'U' | b'p' | b'P'))
                    || (matches!(next, Some(b'b' | b'B' | b'x')) && braced)
                {
                    return true;
                }
                i += 1;
            }
            b'[' if !class => {
                class = true;
                if next == Some(b'^') {
                    i += 1;
                }
                if b.get(i + 1) == Some(&b']') {
                    i += 1;
                }
            }
            b'[' if next == Some(b':') => match posix_class_end(&b[i + 2..]) {
                Some(len) => i += len + 3,
                None => return true,
            },
            b'[' => return true,
            b'&' | b'-' | b'~' if class && next == Some(b[i]) => return true,
            b']' if class => class = false,
            b'(' if !class && next == Some(b'?') => {
                if odd_group(&b[i + 2..]) {
                    return true;
                }
                // The `?` is no quantifier.
                i += 1;
            }
            b'*' | b'+' | b'?' | b'}' if !class => {
                let repeat = match next {
                    Some(b'+' | b'*') => true,
                    Some(b'{') => b.get(i + 2).is_some_and(u8::is_ascii_digit),
                    _ => false,
                };
                if repeat {
                    return true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// The length of a POSIX class's name (`alpha` or `^alpha` before `:]`), if it
/// is a word.
fn posix_class_end(b: &[u8]) -> Option<usize> {
    let len = b.windows(2).position(|w| w == b":]")?;
    let name = b[..len].strip_prefix(b"^").unwrap_or(&b[..len]);
    (!name.is_empty() && name.iter().all(u8::is_ascii_alphabetic)).then_some(len)
}

/// Whether the group after `(?` is one the engines read differently: a name
/// beyond word characters, or inline flags beyond `i m s U`.
fn odd_group(rest: &[u8]) -> bool {
    let name = rest.strip_prefix(b"P<").or_else(|| {
        rest.strip_prefix(b"<")
            .filter(|n| !n.starts_with(b"=") && !n.starts_with(b"!"))
    });
    if let Some(name) = name {
        let len = name.iter().position(|&c| c == b'>').unwrap_or(name.len());
        return !name[..len]
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'_');
    }
    let len = rest
        .iter()
        .position(|&c| c == b')' || c == b':')
        .unwrap_or(rest.len());
    let flags = &rest[..len];
    flags.iter().all(|c| c.is_ascii_alphabetic() || *c == b'-')
        && !flags.iter().all(|c| b"imsU-".contains(c))
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
    // A match that gives up at PCRE2's limit is error, as in HTCondor.
    Ok(
        match compile(p, &opts, false).map(|re| re.try_match(t.as_bytes())) {
            Some(Ok(found)) => Value::Bool(found),
            Some(Err(RunAway)) | None => Value::Error,
        },
    )
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
    // simply matches nothing: false, not error; so does an element whose match
    // gives up at PCRE2's limit. An element whose evaluation fails is error.
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
/// does not exist), and for a match that gives up at PCRE2's limit.
fn substitute(re: &Pattern, target: &[u8], repl: &str, full: bool, all: bool) -> Option<Vec<u8>> {
    let engine = re.engine_for(target).ok()?;
    let mut out = Vec::new();
    let mut idx = 0;
    let mut after_empty = false;
    loop {
        let found = engine.find(target, idx, after_empty).ok()?;
        if after_empty && found.is_none() {
            let &b = target.get(idx)?;
            out.push(b);
            idx += 1;
            after_empty = false;
            continue;
        }
        let Some(groups) = found else {
            break;
        };
        let m = groups.first()?.clone()?;
        if full {
            out.extend_from_slice(&target[idx..m.start]);
        }
        expand(&groups, target, repl, &mut out)?;
        if crate::limits::too_big(out.len()) {
            // Past the memory budget: the result is error, so stop copying.
            return None;
        }
        idx = m.end;
        // After an empty match HTCondor keeps asking for a non-empty match where
        // the last one ended until one such search fails
        // (`replaceAll("(?=b)|b", "ab", "-")` is error: the search after "b"
        // runs off the target).
        after_empty |= m.is_empty();
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
fn expand(groups: &Groups, target: &[u8], repl: &str, out: &mut Vec<u8>) -> Option<()> {
    let ngroups = groups
        .iter()
        .rposition(Option::is_some)
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
                if let Some(r) = &groups[d] {
                    out.extend_from_slice(&target[r.clone()]);
                }
            }
            None => out.push(b'\\'),
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::{build, route, Route};
    use crate::eval::testing::{eval, list, s};
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

    /// Which engine `pattern` (no options) runs on.
    fn engine(pattern: &str) -> Option<Route> {
        let re = build(pattern, 0)?;
        Some(if re.linear.is_some() {
            Route::Linear
        } else {
            Route::Backtracking
        })
    }

    #[test]
    fn routing() {
        for linear in [
            "^a.c$",
            "(\\w+)@(\\w+)",
            "a{,2}",
            "[[:alpha:]]+",
            "(?i)abc",
            "a+?b",
            "a{2}?",
            "(?P<n_1>a)",
            "[]a-]",
            "\\x41",
        ] {
            assert_eq!(engine(linear), Some(Route::Linear), "{linear}");
        }
        for backtracking in [
            // The regex crate refuses these.
            "(a)\\1",
            "(?<=a)b",
            "a(?=b)",
            "(?>a+)",
            "a\\Kb",
            "(?R)|a",
            "\\Qa.b\\E",
            "\\h",
            "\\R",
            "\\x",
            // ... and reads these differently.
            "a++",
            "a?+a",
            "a{2}+",
            "\\v",
            "\\<a",
            "\\b{start}",
            "[[a]]",
            "[a&&b]",
            "[[:<:]]",
            "\\x{41}",
            "\\pL",
        ] {
            assert_eq!(
                engine(backtracking),
                Some(Route::Backtracking),
                "{backtracking}"
            );
        }
        assert_eq!(route("a b", true), Route::Backtracking);
        assert_eq!(engine("(a"), None);
        // PCRE2 refuses these, as HTCondor's does.
        assert_eq!(engine("a**"), None);
        assert_eq!(engine("a{2}{3}"), None);
        // ... and these, which the regex crate would take.
        assert_eq!(route("\\u0041", false), Route::Backtracking);
        assert_eq!(engine("\\u0041"), None);
        for refused in ["(?u)a", "(?<a.b>x)"] {
            assert_eq!(route(refused, false), Route::Backtracking);
            assert_eq!(engine(refused), None);
        }
        assert_eq!(engine("\\x{100}"), None);
        assert_eq!(engine("a+?+"), None);
        // PCRE2 refuses what the regex crate refuses here.
        assert_eq!(engine("(?<=a+)b"), None);
    }

    // Expected results from HTCondor 25.14.1.
    #[test]
    fn pcre_only_constructs() {
        assert_eq!(eval("regexp", vec![s("(a)\\1"), s("aa")]), "true");
        assert_eq!(eval("regexp", vec![s("(?<=a)b"), s("cb")]), "false");
        assert_eq!(eval("regexp", vec![s("a++a"), s("aaa")]), "false");
        assert_eq!(eval("replace", vec![s("a\\Kb"), s("ab"), s("X")]), "\"aX\"");
        assert_eq!(
            eval("replaceAll", vec![s("(?=b)|b"), s("abc"), s("-")]),
            "\"a--c\""
        );
        assert_eq!(
            eval("replaceAll", vec![s("(?=b)|b"), s("ab"), s("-")]),
            "error"
        );
    }

    // Expected results from HTCondor 25.14.1: a linear pattern asks PCRE2 about
    // a target that ends in a newline.
    #[test]
    fn anchors_next_to_a_final_newline() {
        assert_eq!(eval("regexp", vec![s("a$"), s("a\n")]), "true");
        assert_eq!(eval("regexp", vec![s("^$"), s("a\n"), s("m")]), "false");
        assert_eq!(eval("replace", vec![s("$"), s("a\n"), s("-")]), "\"a-\\n\"");
        assert_eq!(eval("regexp", vec![s("a$"), s("a\n\n")]), "false");
    }

    #[test]
    fn a_runaway_match_is_error_or_no_match() {
        // The back-reference sends the pattern to PCRE2, which gives up.
        let (p, t) = ("(a+)+\\1$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaab");
        assert_eq!(eval("regexp", vec![s(p), s(t)]), "error");
        assert_eq!(eval("regexps", vec![s(p), s(t), s("x")]), "error");
        assert_eq!(eval("regexpMember", vec![s(p), list(vec![s(t)])]), "false");
        assert_eq!(
            eval("regexpMember", vec![s(p), list(vec![s(t), s("aa")])]),
            "true"
        );
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
