//! `$(NAME)`, `$(NAME:default)` and `$ENV(NAME)` references: expanded when a
//! value is read (`expand_macro` in HTCondor's `config.cpp`), and a value's
//! references to its own name expanded when it is defined (`expand_self_macro`).
//!
//! Expansion is bounded, where HTCondor's is not: in depth
//! ([`MAX_EXPANSION_DEPTH`], past which a reference is taken for a cycle), in
//! size ([`MAX_EXPANDED_BYTES`]) and in references expanded
//! ([`MAX_EXPANDED_REFERENCES`]). Forty knobs each referring twice to the next
//! come to a TiB (or to 2^40 references to an empty value); the bounds are
//! checked as the expansion goes, so it stops at once.

use super::Config;

/// How deep `$(...)` references may nest before a reference is taken for a cycle.
pub const MAX_EXPANSION_DEPTH: usize = 64;

/// The most bytes the `$(...)` references of one value may bring into it, in
/// all: 16 MiB, as much as the largest value an evaluation may make
/// ([`crate::limits::DEFAULT_MAX_VALUE_BYTES`]). The value's own text counts
/// nothing: it is as long as the file makes it.
pub const MAX_EXPANDED_BYTES: usize = 16 << 20;

/// The most `$(...)` references the expansion of one value may expand, each
/// counted every time it is expanded (the references of the knobs it refers
/// to included): a million.
pub const MAX_EXPANDED_REFERENCES: usize = 1_000_000;

/// `text` with every reference expanded against `config`, or what bound the
/// expansion passed.
pub(super) fn expand(config: &Config, text: &str) -> Result<String, String> {
    let mut x = Expansion {
        config,
        out: String::new(),
        brought_in: 0,
        references: 0,
    };
    x.expand(text, 0)?;
    Ok(x.out)
}

/// One value's expansion under way: the text so far, and the bytes and
/// references its references brought in, against the bounds.
struct Expansion<'c> {
    config: &'c Config,
    out: String,
    brought_in: usize,
    references: usize,
}

impl Expansion<'_> {
    /// Appends `value` with every `$(NAME)` and `$(NAME:default)` replaced; an
    /// error says which bound it passed.
    fn expand(&mut self, value: &str, depth: usize) -> Result<(), String> {
        if depth > MAX_EXPANSION_DEPTH {
            return Err("the $(...) references reach themselves".to_string());
        }
        let mut rest = value;
        while let Some((start, env)) = next_reference(rest) {
            self.push(&rest[..start], depth)?;
            let inner = &rest[start + if env { 5 } else { 2 }..];
            let Some(end) = closing_parenthesis(inner) else {
                return Err(format!("unclosed $( in {value:?}"));
            };
            let (name, default) = name_and_default(&inner[..end]);
            self.count_reference()?;
            if env {
                // $ENV(NAME) and $ENV(NAME:default): the environment's value.
                match std::env::var(name) {
                    Ok(v) => self.push(&v, depth + 1)?,
                    Err(_) => self.push(default.unwrap_or(""), depth + 1)?,
                }
            } else {
                let config = self.config;
                match config.lookup(name) {
                    Some(v) => self.expand(v, depth + 1)?,
                    None => {
                        if let Some(d) = default {
                            self.expand(d, depth + 1)?;
                        }
                    }
                }
            }
            rest = &inner[end + 1..];
        }
        self.push(rest, depth)
    }

    /// Appends `text` (from a reference's value when `depth` is above 0),
    /// unless what references brought in would pass [`MAX_EXPANDED_BYTES`].
    fn push(&mut self, text: &str, depth: usize) -> Result<(), String> {
        if depth > 0 {
            self.brought_in += text.len();
        }
        if self.brought_in > MAX_EXPANDED_BYTES {
            return Err(format!(
                "its $(...) references expand to more than {MAX_EXPANDED_BYTES} bytes, the most \
                 the references of a value may bring in (knobs that each refer to the next \
                 twice double it at every level): refer to fewer knobs, or write the value out"
            ));
        }
        self.out.push_str(text);
        Ok(())
    }

    /// Counts one reference expanded, unless that passes
    /// [`MAX_EXPANDED_REFERENCES`].
    fn count_reference(&mut self) -> Result<(), String> {
        self.references += 1;
        if self.references > MAX_EXPANDED_REFERENCES {
            return Err(format!(
                "its $(...) references expand more than {MAX_EXPANDED_REFERENCES} references, \
                 the most one value may (knobs that each refer to the next twice double them at \
                 every level): refer to fewer knobs"
            ));
        }
        Ok(())
    }
}

/// Where the `)` that closes a reference whose text starts `inner` is (a
/// default may hold references of its own).
fn closing_parenthesis(inner: &str) -> Option<usize> {
    let mut level = 1;
    for (i, c) in inner.char_indices() {
        match c {
            '(' => level += 1,
            ')' => {
                level -= 1;
                if level == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// A reference's name and its default (after the first `:`).
fn name_and_default(reference: &str) -> (&str, Option<&str>) {
    match reference.split_once(':') {
        Some((n, d)) => (n.trim(), Some(d)),
        None => (reference.trim(), None),
    }
}

/// Where the next `$(` or `$ENV(` reference of `text` starts, and whether it
/// is an `$ENV(` one.
fn next_reference(text: &str) -> Option<(usize, bool)> {
    // One pass from the front: a value may hold a million references, and
    // searching the rest for each kind at every step made that quadratic.
    let mut from = 0;
    while let Some(i) = text[from..].find('$') {
        let at = from + i;
        let after = &text[at + 1..];
        if after.starts_with('(') {
            return Some((at, false));
        }
        if after.starts_with("ENV(") {
            return Some((at, true));
        }
        from = at + 1;
    }
    None
}

/// When `value` starts with a reference `$(NAME)` (no default) to one of
/// `selves`: the name as written and the reference's length.
pub(super) fn leading_self_reference<'v>(
    value: &'v str,
    selves: &[&str],
) -> Option<(&'v str, usize)> {
    let inner = value.strip_prefix("$(")?;
    let end = inner.find(')')?;
    let name = &inner[..end];
    selves
        .iter()
        .any(|s| name.trim().eq_ignore_ascii_case(s))
        .then_some((name.trim(), end + 3))
}

/// `value` with each `$(NAME)` or `$(NAME:default)` that names the knob being
/// defined replaced by what `earlier` gives for it (else the default, else
/// nothing). `selves` are the names that count as the knob's own: its name,
/// and without its `NEGOTIATOR.` prefix when it has one, as
/// `expand_self_macro` takes both.
pub(super) fn expand_self<'e>(
    value: &str,
    selves: &[&str],
    earlier: impl Fn(&str) -> Option<&'e str>,
) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("$(") {
        out.push_str(&rest[..start]);
        let inner = &rest[start + 2..];
        let Some(end) = inner.find(')') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let reference = &inner[..end];
        let (n, default) = name_and_default(reference);
        if selves.iter().any(|s| n.eq_ignore_ascii_case(s)) && !reference.contains('(') {
            out.push_str(earlier(n).or(default).unwrap_or(""));
        } else {
            out.push_str(&rest[start..start + 2 + end + 1]);
        }
        rest = &inner[end + 1..];
    }
    out.push_str(rest);
    out
}
