//! HTCondor's environment and argument string builtins: `envV1ToV2`,
//! `mergeEnvironment`, `listToArgs`, `argsToList`.

use super::{add, arity, Builtin, Call};
use crate::values::Fail;
use classad_vm::Value;
use std::collections::BTreeMap;

pub(super) fn register(t: &mut Vec<Builtin>) {
    add(t, "envV1ToV2", env_v1_to_v2);
    add(t, "mergeEnvironment", merge_environment);
    add(t, "listToArgs", list_to_args);
    add(t, "argsToList", args_to_list);
}

/// V2 quoting of one word, as HTCondor writes it: each run of blanks (space, tab,
/// newline, carriage return) and single quotes goes inside one pair of single
/// quotes, a single quote doubled there; the empty word is `''`.
fn quote_v2(word: &str, out: &mut String) {
    if word.is_empty() {
        out.push_str("''");
        return;
    }
    let special = |ch: char| matches!(ch, ' ' | '\t' | '\n' | '\r' | '\'');
    let mut quoted = false;
    for ch in word.chars() {
        if special(ch) != quoted {
            out.push('\'');
            quoted = !quoted;
        }
        if ch == '\'' {
            out.push('\'');
        }
        out.push(ch);
    }
    if quoted {
        out.push('\'');
    }
}

/// Splits a V2 string into words; `None` for an unterminated quote.
fn parse_v2(s: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            ' ' | '\t' | '\n' | '\r' => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' if chars.peek() == Some(&'\'') => {
                            chars.next();
                            cur.push('\'');
                        }
                        '\'' => break,
                        c => cur.push(c),
                    }
                }
            }
            _ => {
                in_word = true;
                cur.push(ch);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Some(words)
}

/// An environment as HTCondor's `Env` holds it: one value a name (the last one
/// given wins), in byte order of the names, which is the order it prints them in.
type Env = BTreeMap<String, String>;

/// `NAME=value` entries written in V2 form; an empty value is written as nothing
/// (`A=`), not as a quoted empty word.
fn env_text(entries: &Env) -> String {
    let mut out = String::new();
    for (i, (k, v)) in entries.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(k);
        out.push('=');
        if !v.is_empty() {
            quote_v2(v, &mut out);
        }
    }
    out
}

/// One `NAME=value` entry; `None` for an entry without `=` or without a name, which
/// makes HTCondor reject the whole environment.
fn entry(word: &str) -> Option<(String, String)> {
    let (k, v) = word.split_once('=')?;
    (!k.is_empty()).then(|| (k.to_string(), v.to_string()))
}

/// Every entry of `words` (empty words skipped); `None` if any is malformed.
fn entries<'a>(words: impl IntoIterator<Item = &'a str>) -> Option<Vec<(String, String)>> {
    words
        .into_iter()
        .filter(|w| !w.is_empty())
        .map(entry)
        .collect()
}

/// `envV1ToV2(s)`: `;`-separated V1 entries rewritten in V2 form.
fn env_v1_to_v2(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 1, 1) {
        return Ok(Value::Error);
    }
    Ok(match c.arg(0)? {
        Value::Undefined => Value::Undefined,
        Value::Str(s) => match entries(s.split(';').map(str::trim_start)) {
            Some(entries) => Value::str(env_text(&entries.into_iter().collect())),
            None => Value::Error,
        },
        _ => Value::Error,
    })
}

/// `mergeEnvironment(e1, e2, ...)`: V2 environments merged left to right (later
/// values win); undefined arguments are skipped.
fn merge_environment(c: &mut dyn Call) -> Result<Value, Fail> {
    let mut merged = Env::new();
    for i in 0..c.argc() {
        let s = match c.arg(i)? {
            Value::Undefined => continue,
            Value::Str(s) => s,
            _ => return Ok(Value::Error),
        };
        let Some(words) = parse_v2(&s) else {
            return Ok(Value::Error);
        };
        let Some(new) = entries(words.iter().map(String::as_str)) else {
            return Ok(Value::Error);
        };
        merged.extend(new);
    }
    Ok(Value::str(env_text(&merged)))
}

/// `listToArgs(list[, version])`: a list of strings as an argument string, V2
/// (the default) or V1 (words joined by spaces; a word holding a blank is error).
fn list_to_args(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 1, 2) {
        return Ok(Value::Error);
    }
    // HTCondor reads the version first.
    let Some(v1) = version_is_v1(c)? else {
        return Ok(Value::Error);
    };
    let v = c.arg(0)?;
    let Some(n) = super::list_len(&v) else {
        return Ok(Value::Error);
    };
    let mut out = String::new();
    for i in 0..n {
        // Elements one at a time: a non-string ends it before the next.
        let Value::Str(s) = c.list_item(&v, i)? else {
            return Ok(Value::Error);
        };
        if i > 0 {
            out.push(' ');
        }
        if !v1 {
            quote_v2(&s, &mut out);
        } else if s.contains([' ', '\t', '\n', '\r']) {
            return Ok(Value::Error);
        } else {
            out.push_str(&s);
        }
    }
    Ok(Value::str(out))
}

/// The optional version argument (at 1) of `listToArgs`/`argsToList`, read into a C
/// `int` as HTCondor reads it: `Some(true)` for 1, `Some(false)` for 2 or none,
/// `None` (the builtin gives error) for anything else.
fn version_is_v1(c: &mut dyn Call) -> Result<Option<bool>, Fail> {
    if c.argc() < 2 {
        return Ok(Some(false));
    }
    Ok(match c.arg(1)? {
        Value::Int(v) if v as i32 == 1 => Some(true),
        Value::Int(v) if v as i32 == 2 => Some(false),
        _ => None,
    })
}

/// `argsToList(s[, version])`: an argument string split into its words. Version 2
/// (the default) honours V2 quoting; version 1 splits on blanks only, quotes kept
/// as text. Any other version is error.
fn args_to_list(c: &mut dyn Call) -> Result<Value, Fail> {
    if !arity(c, 1, 2) {
        return Ok(Value::Error);
    }
    // HTCondor reads the version first.
    let Some(v1) = version_is_v1(c)? else {
        return Ok(Value::Error);
    };
    let Value::Str(s) = c.arg(0)? else {
        return Ok(Value::Error);
    };
    if v1 {
        let words = s.split([' ', '\t', '\n', '\r']).filter(|w| !w.is_empty());
        return Ok(crate::values::value_size::collect_list(
            words.map(Value::str),
        ));
    }
    Ok(match parse_v2(&s) {
        Some(words) => crate::values::value_size::collect_list(words.into_iter().map(Value::str)),
        None => Value::Error,
    })
}

#[cfg(test)]
mod tests {
    use crate::eval::testing::{eval, list, s};
    use classad_vm::Value;

    // Expected results from HTCondor 25.14.1.
    #[test]
    fn env_and_args() {
        assert_eq!(eval("envV1ToV2", vec![s("A=1;B=x y")]), "\"A=1 B=x' 'y\"");
        assert_eq!(eval("envV1ToV2", vec![s("A=it's")]), "\"A=it''''s\"");
        assert_eq!(eval("envV1ToV2", vec![Value::Int(1)]), "error");
        assert_eq!(
            eval("mergeEnvironment", vec![s("A=1;B=2"), s("B=3 C=4")]),
            "\"A=1;B=2 B=3 C=4\""
        );
        assert_eq!(
            eval("mergeEnvironment", vec![Value::Undefined, s("A=1")]),
            "\"A=1\""
        );
        assert_eq!(
            eval(
                "listToArgs",
                vec![list(vec![s("a"), s("it's"), s(""), s("x\"y")])]
            ),
            "\"a it''''s '' x\\\"y\""
        );
        assert_eq!(
            eval("argsToList", vec![s("a 'b c' d''e")]),
            "{ \"a\",\"b c\",\"de\" }"
        );
        assert_eq!(eval("argsToList", vec![s("'a")]), "error");
    }

    // Expected results from HTCondor 25.14.1.
    #[test]
    fn malformed_environments_and_v1_args() {
        assert_eq!(eval("envV1ToV2", vec![s("abc")]), "error");
        assert_eq!(eval("envV1ToV2", vec![s("=1")]), "error");
        assert_eq!(eval("envV1ToV2", vec![s("A=1;;B=2")]), "\"A=1 B=2\"");
        assert_eq!(eval("envV1ToV2", vec![s("A=")]), "\"A=\"");
        assert_eq!(eval("mergeEnvironment", vec![s("abc"), s("B=3")]), "error");
        assert_eq!(
            eval("mergeEnvironment", vec![s("A=1 B=2"), s("abc")]),
            "error"
        );
        assert_eq!(eval("mergeEnvironment", vec![s("A=1"), s("A=")]), "\"A=\"");
        assert_eq!(eval("mergeEnvironment", vec![s("A=''")]), "\"A=\"");
        assert_eq!(
            eval("argsToList", vec![s("a 'b c'"), Value::Int(1)]),
            "{ \"a\",\"'b\",\"c'\" }"
        );
        assert_eq!(
            eval("argsToList", vec![s("a 'b c'"), Value::Int(2)]),
            "{ \"a\",\"b c\" }"
        );
        assert_eq!(eval("argsToList", vec![s("a"), Value::Int(3)]), "error");
        assert_eq!(eval("argsToList", vec![s("a"), Value::Undefined]), "error");
    }
}
