//! HTCondor's configuration syntax, as much of it as a negotiator's knobs need
//! (negotiator.md section 1): `NAME = value` lines, `#` comment lines (a `#` later
//! in a line is part of the value), a trailing backslash continuing a line (joined
//! as HTCondor's `getline` joins it: lines trimmed, the backslash dropped, a
//! comment line within counting as blank), names that ignore case, the last definition of a
//! name winning, and `$(NAME)` / `$(NAME:default)` expanded recursively when a
//! value is read (an undefined macro is empty), `$ENV(NAME)` from the
//! environment, `$(NAME)` in `NAME`'s own definition standing for its earlier
//! value, here-values (`NAME @=TAG` ... `@TAG`, as `condor_config_val -dump`
//! prints HTCondor's defaults), `if`/`elif`/`else`/`endif` on `defined NAME`,
//! `version OP X.Y.Z` and booleans, and `error :`/`warning :` lines (all as
//! `src/condor_utils/config.cpp`, `Parse_macros`, reads them). `use` templates
//! are ignored with a note; `include` and `+=` are errors that say so.
//!
//! Expansion is bounded, where HTCondor's is not: in depth
//! ([`MAX_EXPANSION_DEPTH`], past which a reference is taken for a cycle), in
//! size ([`MAX_EXPANDED_BYTES`]) and in references expanded
//! ([`MAX_EXPANDED_REFERENCES`]). Forty knobs each referring twice to the next
//! come to a TiB (or to 2^40 references to an empty value); the bounds are
//! checked as the expansion goes, so it stops at once, and the error names the
//! file, the line and the knob read.

use std::fmt;

/// A configuration file read into knobs.
#[derive(Clone, Debug, Default)]
pub struct Config {
    file: String,
    /// Every definition, in file order.
    knobs: Vec<Knob>,
    /// The last definition of each name (lower case).
    by_name: ahash::AHashMap<String, usize>,
    /// What reading said that is not an error.
    notes: Vec<String>,
}

/// One `NAME = value` definition.
#[derive(Clone, Debug)]
struct Knob {
    name: String,
    value: String,
    line: u32,
}

/// A configuration that could not be read: the file, the line, the knob when
/// there is one, and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The file.
    pub file: String,
    /// Its 1-based line.
    pub line: u32,
    /// The knob, when the error is in a knob's value.
    pub knob: Option<String>,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.knob {
            Some(k) => write!(f, "{}:{}: {k}: {}", self.file, self.line, self.message),
            None => write!(f, "{}:{}: {}", self.file, self.line, self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

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

/// One value's expansion under way: the text so far, and the bytes and
/// references its references brought in, against the bounds.
struct Expansion<'c> {
    config: &'c Config,
    out: String,
    brought_in: usize,
    references: usize,
}

impl Config {
    /// Reads `text`; `file` names it in errors.
    ///
    /// ```
    /// use classad::matching::config::Config;
    /// let c = Config::parse("# pool policy\nA = 1\nb = $(A) + \\\n  2\nC = $(Missing:7)\n", "f")?;
    /// assert_eq!(c.get("B")?.as_deref(), Some("1 + 2"));
    /// assert_eq!(c.get("c")?.as_deref(), Some("7"));
    /// assert_eq!(c.get("D")?, None);
    /// # Ok::<(), classad::matching::config::ConfigError>(())
    /// ```
    pub fn parse(text: &str, file: &str) -> Result<Config, ConfigError> {
        // A byte-order mark would be part of the first knob's name.
        let text = crate::ad::read::without_bom(text);
        let mut config = Config {
            file: file.to_string(),
            ..Config::default()
        };
        let mut lines = text.lines().enumerate().peekable();
        let mut conditions = Conditions::default();
        while let Some((i, raw)) = lines.next() {
            let line = i as u32 + 1;
            // As HTCondor's `getline`: each line trimmed at both ends; a comment
            // line does not continue; a trailing backslash is dropped and the next
            // line joined (a comment line there counts as blank).
            let first = raw.trim();
            if first.is_empty() || first.starts_with('#') {
                continue;
            }
            let mut logical = String::from(first);
            while logical.ends_with('\\') {
                logical.pop();
                let Some((_, next)) = lines.next() else {
                    break;
                };
                let next = next.trim();
                if next.starts_with('#') {
                    if next.ends_with('\\') {
                        logical.push('\\');
                    }
                } else {
                    logical.push_str(next);
                }
            }
            let body = logical.trim();
            // A here-value, `NAME @=TAG` then its lines up to `@TAG`: read
            // first, as `Parse_macros` reads it, so that its lines are never
            // taken for directives (in a false branch too).
            if let Some((name, tag)) = here_value(body) {
                let mut lines_of = Vec::new();
                let closed = loop {
                    let Some((_, next)) = lines.next() else {
                        break false;
                    };
                    let next = next.trim();
                    if next.strip_prefix('@') == Some(tag) {
                        break true;
                    }
                    lines_of.push(next);
                };
                if !closed {
                    let what = format!("{name} @={tag} has no closing line @{tag}");
                    return Err(config.error(line, Some(name), &what));
                }
                if conditions.active() {
                    config.define(name, &lines_of.join("\n"), line)?;
                }
                continue;
            }
            // if / elif / else / endif, and what a false branch holds.
            if let Some(directive) = conditional(body) {
                conditions.step(directive, &config, line)?;
                continue;
            }
            if !conditions.active() || config.keyword_line(body, line)? {
                continue;
            }
            let Some((name, value)) = body.split_once('=') else {
                return Err(config.error(line, None, "expected NAME = value"));
            };
            let name = name.trim();
            let valid = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
            if let Some(appended) = name.strip_suffix('+') {
                let what = format!(
                    "{} += (appending) is not read by the emulator: write the whole value",
                    appended.trim()
                );
                return Err(config.error(line, None, &what));
            }
            if !valid {
                let what = format!("{name:?} is not a knob name (letters, digits, `_` and `.`)");
                return Err(config.error(line, None, &what));
            }
            config.define(name, value.trim(), line)?;
        }
        if let Some(open) = conditions.open_at() {
            return Err(config.error(open, None, "this if has no endif"));
        }
        Ok(config)
    }

    /// Defines `name` as `value` at `line`. A reference of the value to its own
    /// name, `$(NAME)` (or `$(NAME:default)`), is the name's earlier value, as
    /// HTCondor's `expand_self_macro` reads `X = $(X) && more`.
    fn define(&mut self, name: &str, value: &str, line: u32) -> Result<(), ConfigError> {
        let earlier = self
            .by_name
            .get(&name.to_ascii_lowercase())
            .map(|&i| self.knobs[i].value.clone());
        let value = expand_self(value, name, earlier.as_deref())
            .map_err(|m| self.error(line, Some(name), &m))?;
        self.by_name
            .insert(name.to_ascii_lowercase(), self.knobs.len());
        self.knobs.push(Knob {
            name: name.to_string(),
            value,
            line,
        });
        Ok(())
    }

    /// The lines of HTCondor's configuration language that are not
    /// definitions: `use CATEGORY : TEMPLATE` (a metaknob, ignored with a
    /// note), `error : text` (an error), `warning : text` (a note) and
    /// `include : FILE` (not read: an error that says so). True when the line
    /// was one of them.
    fn keyword_line(&mut self, body: &str, line: u32) -> Result<bool, ConfigError> {
        let Some((head, rest)) = body.split_once(':') else {
            return Ok(false);
        };
        if head.contains('=') {
            // `NAME = a:b` defines a knob.
            return Ok(false);
        }
        let head = head.trim();
        let head = head.strip_prefix('@').unwrap_or(head);
        let mut words = head.split_whitespace();
        let keyword = words.next().unwrap_or("").to_ascii_lowercase();
        let rest = rest.trim();
        match keyword.as_str() {
            "use" => {
                let category = words.collect::<Vec<_>>().join(" ");
                self.notes.push(format!(
                    "{}:{line}: use {category} : {rest}: a configuration template, not read by \
                     the emulator; ignored (give the knobs it sets, e.g. from `condor_config_val \
                     -dump`)",
                    self.file
                ));
                Ok(true)
            }
            "warning" => {
                self.notes
                    .push(format!("{}:{line}: warning: {rest}", self.file));
                Ok(true)
            }
            "error" => Err(self.error(line, None, &format!("error: {rest}"))),
            "include" => Err(self.error(
                line,
                None,
                "include is not read by the emulator: give the knobs of the whole \
                 configuration, as `condor_config_val -dump` prints them",
            )),
            _ => Ok(false),
        }
    }

    /// What reading the file said that is not an error: templates ignored,
    /// `warning :` lines. Each names the file and line.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The file's name, as given.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The value of `name` (ignoring case), its macros expanded; `None` when it is
    /// not defined.
    pub fn get(&self, name: &str) -> Result<Option<String>, ConfigError> {
        match self.by_name.get(&name.to_ascii_lowercase()) {
            None => Ok(None),
            Some(&i) => {
                let k = &self.knobs[i];
                let mut x = Expansion {
                    config: self,
                    out: String::new(),
                    brought_in: 0,
                    references: 0,
                };
                match x.expand(&k.value, 0) {
                    Ok(()) => Ok(Some(x.out)),
                    Err(m) => Err(self.error(k.line, Some(&k.name), &m)),
                }
            }
        }
    }

    /// The line `name` was last defined on.
    pub fn line(&self, name: &str) -> Option<u32> {
        let i = self.by_name.get(&name.to_ascii_lowercase())?;
        Some(self.knobs[*i].line)
    }

    /// Every defined name (as last spelled), with its line, in file order of
    /// their last definitions.
    pub fn names(&self) -> Vec<(&str, u32)> {
        let mut last: Vec<usize> = self.by_name.values().copied().collect();
        last.sort_unstable();
        last.into_iter()
            .map(|i| (self.knobs[i].name.as_str(), self.knobs[i].line))
            .collect()
    }

    /// An error at `line` of the file.
    pub fn error(&self, line: u32, knob: Option<&str>, message: &str) -> ConfigError {
        ConfigError {
            file: self.file.clone(),
            line,
            knob: knob.map(str::to_string),
            message: message.to_string(),
        }
    }
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
            // The matching parenthesis (defaults may hold references of their own).
            let mut level = 1;
            let mut end = None;
            for (i, c) in inner.char_indices() {
                match c {
                    '(' => level += 1,
                    ')' => {
                        level -= 1;
                        if level == 0 {
                            end = Some(i);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let Some(end) = end else {
                return Err(format!("unclosed $( in {value:?}"));
            };
            let reference = &inner[..end];
            let (name, default) = match reference.split_once(':') {
                Some((n, d)) => (n.trim(), Some(d)),
                None => (reference.trim(), None),
            };
            self.count_reference()?;
            if env {
                // $ENV(NAME) and $ENV(NAME:default): the environment's value.
                match std::env::var(name) {
                    Ok(v) => self.push(&v, depth + 1)?,
                    Err(_) => self.push(default.unwrap_or(""), depth + 1)?,
                }
                rest = &inner[end + 1..];
                continue;
            }
            let config = self.config;
            match config.by_name.get(&name.to_ascii_lowercase()) {
                Some(&i) => self.expand(&config.knobs[i].value, depth + 1)?,
                None => {
                    if let Some(d) = default {
                        self.expand(d, depth + 1)?;
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

/// `value` with each `$(NAME)` or `$(NAME:default)` that names `name` itself
/// (ignoring case) replaced by `earlier` (else the default, else nothing).
fn expand_self(value: &str, name: &str, earlier: Option<&str>) -> Result<String, String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("$(") {
        out.push_str(&rest[..start]);
        let inner = &rest[start + 2..];
        let Some(end) = inner.find(')') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let reference = &inner[..end];
        let (n, default) = match reference.split_once(':') {
            Some((n, d)) => (n.trim(), Some(d)),
            None => (reference.trim(), None),
        };
        if n.eq_ignore_ascii_case(name) && !reference.contains('(') {
            out.push_str(earlier.or(default).unwrap_or(""));
        } else {
            out.push_str(&rest[start..start + 2 + end + 1]);
        }
        rest = &inner[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `NAME @=TAG`: a here-value's name and tag.
fn here_value(body: &str) -> Option<(&str, &str)> {
    let (name, tag) = body.split_once("@=")?;
    let name = name.trim();
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    let tag = tag.trim();
    (valid && !tag.is_empty() && !tag.contains(char::is_whitespace)).then_some((name, tag))
}

/// The HTCondor version the emulator answers `if version ...` for.
pub const EMULATED_VERSION: [u32; 3] = [25, 0, 0];

/// One of `if COND`, `elif COND`, `else`, `endif` (a leading `:` allowed, as
/// HTCondor allows it).
#[derive(Clone, Copy, Debug)]
enum Conditional<'a> {
    If(&'a str),
    Elif(&'a str),
    Else,
    Endif,
}

fn conditional(body: &str) -> Option<Conditional<'_>> {
    let body = body.strip_prefix(':').unwrap_or(body).trim_start();
    let (word, rest) = match body.split_once(char::is_whitespace) {
        Some((w, r)) => (w, r.trim()),
        None => (body, ""),
    };
    if rest.starts_with('=') {
        // `IF = 1` defines a knob named IF.
        return None;
    }
    match word.to_ascii_lowercase().as_str() {
        "if" => Some(Conditional::If(rest)),
        "elif" => Some(Conditional::Elif(rest)),
        "else" if rest.is_empty() => Some(Conditional::Else),
        "endif" if rest.is_empty() => Some(Conditional::Endif),
        _ => None,
    }
}

/// The open `if`s: per level, whether its lines are read, whether a branch
/// was taken, and the line it opened at.
#[derive(Default)]
struct Conditions {
    open: Vec<(bool, bool, u32)>,
}

impl Conditions {
    /// True when lines here are read (every open `if` in a taken branch).
    fn active(&self) -> bool {
        self.open.iter().all(|(reading, _, _)| *reading)
    }

    /// The line of the innermost `if` left open.
    fn open_at(&self) -> Option<u32> {
        self.open.last().map(|(_, _, line)| *line)
    }

    fn step(&mut self, c: Conditional<'_>, config: &Config, line: u32) -> Result<(), ConfigError> {
        let outer = self.open.iter().all(|(reading, _, _)| *reading);
        match c {
            Conditional::If(cond) => {
                let holds =
                    outer && condition(cond, config).map_err(|m| config.error(line, None, &m))?;
                self.open.push((holds, holds, line));
            }
            Conditional::Elif(cond) => {
                let Some(&(_, taken, at)) = self.open.last() else {
                    return Err(config.error(line, None, "elif without if"));
                };
                let outer = self.open[..self.open.len() - 1].iter().all(|f| f.0);
                let holds = outer
                    && !taken
                    && condition(cond, config).map_err(|m| config.error(line, None, &m))?;
                *self.open.last_mut().expect("checked") = (holds, taken || holds, at);
            }
            Conditional::Else => {
                let Some(&(_, taken, at)) = self.open.last() else {
                    return Err(config.error(line, None, "else without if"));
                };
                let outer = self.open[..self.open.len() - 1].iter().all(|f| f.0);
                *self.open.last_mut().expect("checked") = (outer && !taken, true, at);
            }
            Conditional::Endif => {
                if self.open.pop().is_none() {
                    return Err(config.error(line, None, "endif without if"));
                }
            }
        }
        Ok(())
    }
}

/// An `if` condition as HTCondor's config reads it (`config.cpp`,
/// `Evaluate_config_if_bool` and friends): `defined NAME`, `version OP X.Y.Z`
/// (against [`EMULATED_VERSION`]), or a boolean or number after `$(...)`
/// references are expanded; `!` before any of them negates it.
fn condition(cond: &str, config: &Config) -> Result<bool, String> {
    let cond = cond.trim();
    if let Some(rest) = cond.strip_prefix('!') {
        return condition(rest, config).map(|b| !b);
    }
    let (word, rest) = match cond.split_once(char::is_whitespace) {
        Some((w, r)) => (w, r.trim()),
        None => (cond, ""),
    };
    match word.to_ascii_lowercase().as_str() {
        "defined" => {
            let name = rest.trim();
            Ok(match config.by_name.get(&name.to_ascii_lowercase()) {
                Some(&i) => !config.knobs[i].value.trim().is_empty(),
                None => false,
            })
        }
        "version" => {
            let (op, v) = rest
                .char_indices()
                .find(|(_, c)| c.is_ascii_digit())
                .map(|(i, _)| (rest[..i].trim(), rest[i..].trim()))
                .ok_or_else(|| format!("if version {rest}: expected an operator and a version"))?;
            let mut want = [0u32; 3];
            for (k, part) in v.split('.').take(3).enumerate() {
                want[k] = part
                    .parse()
                    .map_err(|_| format!("if version {rest}: {v:?} is not a version X.Y.Z"))?;
            }
            let have = EMULATED_VERSION;
            let ord = have.cmp(&want);
            use std::cmp::Ordering::*;
            match op {
                ">=" => Ok(ord != Less),
                ">" => Ok(ord == Greater),
                "<=" => Ok(ord != Greater),
                "<" => Ok(ord == Less),
                "==" | "=" | "" => Ok(ord == Equal),
                "!=" => Ok(ord != Equal),
                _ => Err(format!("if version {rest}: {op:?} is not a comparison")),
            }
        }
        _ => {
            let mut x = Expansion {
                config,
                out: String::new(),
                brought_in: 0,
                references: 0,
            };
            x.expand(cond, 0)?;
            parse_bool(&x.out).ok_or_else(|| {
                format!(
                    "if {cond}: not a condition the emulator reads (defined NAME, version OP \
                     X.Y.Z, or a boolean or number)"
                )
            })
        }
    }
}

/// HTCondor's reading of a boolean knob: `true`/`false`, `yes`/`no`, `t`/`f`,
/// `1`/`0` (ignoring case), or a ClassAd expression whose value is a boolean or a
/// number; `None` when it is none of these.
pub fn parse_bool(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "t" | "1" => return Some(true),
        "false" | "no" | "f" | "0" => return Some(false),
        _ => {}
    }
    let e = crate::syntax::parse_expr(value).ok()?;
    let r = crate::syntax::ast::ExprRef::root_of(std::sync::Arc::new(e));
    let v = crate::eval::Evaluator::new(true).eval(&r, None).ok()?;
    v.as_bool_equiv()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leading_byte_order_mark_is_not_part_of_the_first_knob() {
        let c = Config::parse("\u{feff}A = 1\nB = 2\n", "c").unwrap();
        assert_eq!(c.get("A").unwrap().as_deref(), Some("1"));
    }

    #[test]
    fn definitions_comments_continuations_and_the_last_wins() {
        let c = Config::parse(
            "# comment\n\n  Name = first\nNAME = second \\\n  third\nOther=x # not a comment\n",
            "cfg",
        )
        .unwrap();
        assert_eq!(c.get("name").unwrap().as_deref(), Some("second third"));
        assert_eq!(c.line("Name"), Some(4));
        assert_eq!(
            c.get("other").unwrap().as_deref(),
            Some("x # not a comment")
        );
        assert_eq!(c.names(), [("NAME", 4), ("Other", 6)]);
    }

    #[test]
    fn continuations_join_as_htcondor_joins_them() {
        let c = Config::parse(
            "A = x \\
   y\\
# a comment inside \\
  z
# B = 1 \\
C = 2
",
            "cfg",
        )
        .unwrap();
        assert_eq!(c.get("A").unwrap().as_deref(), Some("x yz"));
        assert_eq!(
            c.get("B").unwrap(),
            None,
            "a comment line does not continue"
        );
        assert_eq!(c.get("C").unwrap().as_deref(), Some("2"));
    }

    #[test]
    fn macros_expand_recursively_with_defaults_and_cycles_are_errors() {
        let c = Config::parse(
            "A = 1\nB = $(A)$(a)\nC = $(Nope)|$(Nope:d$(B))\nX = $(Y)\nY = $(X)\n",
            "cfg",
        )
        .unwrap();
        assert_eq!(c.get("B").unwrap().as_deref(), Some("11"));
        assert_eq!(c.get("C").unwrap().as_deref(), Some("|d11"));
        let e = c.get("x").unwrap_err();
        assert_eq!((e.line, e.knob.as_deref()), (4, Some("X")));
        assert_eq!(
            e.to_string(),
            "cfg:4: X: the $(...) references reach themselves"
        );
    }

    #[test]
    fn references_bring_in_at_most_the_bound_and_a_value_s_own_text_is_free() {
        let big = "x".repeat(MAX_EXPANDED_BYTES);
        let text = format!("BIG = {big}\nA = <$(BIG)>\nB = $(BIG)$(ONE)\nONE = 1\n");
        let c = Config::parse(&text, "cfg").unwrap();
        assert_eq!(c.get("BIG").unwrap().map(|v| v.len()), Some(big.len()));
        assert_eq!(c.get("A").unwrap().map(|v| v.len()), Some(big.len() + 2));
        let e = c.get("B").unwrap_err();
        assert_eq!((e.line, e.knob.as_deref()), (3, Some("B")));
        assert!(e.message.contains("more than 16777216 bytes"), "{e}");
    }

    #[test]
    fn references_expanded_are_counted_even_when_they_bring_nothing() {
        let refs = "$(EMPTY)".repeat(MAX_EXPANDED_REFERENCES);
        let text = format!("EMPTY =\nA = {refs}\nB = {refs}$(Empty)\n");
        let c = Config::parse(&text, "cfg").unwrap();
        assert_eq!(c.get("A").unwrap().as_deref(), Some(""));
        let e = c.get("B").unwrap_err();
        assert_eq!((e.line, e.knob.as_deref()), (3, Some("B")));
        assert!(e.message.contains("more than 1000000 references"), "{e}");
    }

    #[test]
    fn lines_that_are_not_knobs_are_errors_at_their_line() {
        let e = Config::parse("A = 1\njust words\n", "cfg").unwrap_err();
        assert_eq!(e.to_string(), "cfg:2: expected NAME = value");
        let e = Config::parse("A B = 1\n", "cfg").unwrap_err();
        assert_eq!(e.line, 1);
        let e = Config::parse("A = $(B\n", "cfg")
            .unwrap()
            .get("A")
            .unwrap_err();
        assert!(e.message.contains("unclosed"), "{e}");
    }

    /// `condor_config_val -dump` prints HTCondor 25's defaults with two
    /// here-values; `config.cpp`, `Parse_macros`, reads `NAME @=TAG` up to the
    /// line `@TAG`, and expands only self references in it.
    #[test]
    fn here_values_and_self_references_as_parse_macros_reads_them() {
        let c = Config::parse(
            "# dump\nA = 1\nLONG @=end\n  first line\n$(A) and $(LONG:x)\n@end\nB = 2\n\
             REQ = TARGET.Cpus > 0\nREQ = $(REQ) && TARGET.Memory > 0\nNEW = $(NEW:7) + 1\n",
            "dump",
        )
        .unwrap();
        assert_eq!(
            c.get("LONG").unwrap().as_deref(),
            Some("first line\n1 and x")
        );
        assert_eq!(
            c.get("B").unwrap().as_deref(),
            Some("2"),
            "read on after @end"
        );
        assert_eq!(
            c.get("REQ").unwrap().as_deref(),
            Some("TARGET.Cpus > 0 && TARGET.Memory > 0"),
            "X = $(X) && ... extends the earlier X, not a cycle"
        );
        assert_eq!(c.get("NEW").unwrap().as_deref(), Some("7 + 1"));
        // In a false branch, a here-value's lines are its own, not directives.
        let c = Config::parse(
            "if false\nH @=end\nif true\nendif\n@end\nendif\nIF = 1\nH2 @=x\nelse\n@x\n",
            "f",
        )
        .unwrap();
        assert!(c.get("H").unwrap().is_none());
        assert_eq!(
            c.get("IF").unwrap().as_deref(),
            Some("1"),
            "a knob named IF"
        );
        assert_eq!(c.get("H2").unwrap().as_deref(), Some("else"));
        let e = Config::parse("A @=end\nno close\n", "f").unwrap_err();
        assert_eq!(e.to_string(), "f:1: A: A @=end has no closing line @end");
    }

    #[test]
    fn env_if_else_and_keyword_lines() {
        std::env::set_var("CLASSAD_CONFIG_TEST_ENV", "from-env");
        let c = Config::parse(
            "E = $ENV(CLASSAD_CONFIG_TEST_ENV)\nF = $ENV(CLASSAD_CONFIG_NOT_SET:dflt)\n\
             if version >= 9.0.0\n  V = new\nelse\n  V = old\nendif\n\
             if defined E\n  if false\n    W = no\n  elif !defined NOPE\n    W = yes\n  endif\nendif\n\
             if $(NOPE:0)\nX = 1\nendif\n\
             use ROLE : Execute\nwarning : look here\nN = a:b\n",
            "cfg",
        );
        let c = match c {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(c.get("E").unwrap().as_deref(), Some("from-env"));
        assert_eq!(c.get("F").unwrap().as_deref(), Some("dflt"));
        assert_eq!(c.get("V").unwrap().as_deref(), Some("new"));
        assert_eq!(c.get("W").unwrap().as_deref(), Some("yes"));
        assert_eq!(c.get("N").unwrap().as_deref(), Some("a:b"));
        assert_eq!(c.notes().len(), 2);
        assert!(c.notes()[0].starts_with("cfg:18: use ROLE : Execute: a configuration template"));
        assert_eq!(c.notes()[1], "cfg:19: warning: look here");
        assert!(c.get("X").unwrap().is_none(), "if 0 is false");
        let e = Config::parse("F = dflt\nif $(F)\nendif\n", "cfg").unwrap_err();
        assert!(
            e.to_string().starts_with("cfg:2: if $(F): not a condition"),
            "{e}"
        );
    }

    #[test]
    fn unsupported_lines_say_what_they_are() {
        for (text, want) in [
            ("if 1\nA = 1\n", "f:1: this if has no endif"),
            ("endif\n", "f:1: endif without if"),
            (
                "if version >= x\nendif\n",
                "f:1: if version >= x: expected an operator and a version",
            ),
            (
                "if version >= 9.x\nendif\n",
                "f:1: if version >= 9.x: \"9.x\" is not a version",
            ),
            (
                "if something odd\nendif\n",
                "f:1: if something odd: not a condition",
            ),
            (
                "include : /etc/condor/more\n",
                "f:1: include is not read by the emulator",
            ),
            ("error : stop here\n", "f:1: error: stop here"),
            (
                "A += more\n",
                "f:1: A += (appending) is not read by the emulator",
            ),
        ] {
            let e = Config::parse(text, "f").unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn booleans_as_htcondor_reads_them() {
        for (text, want) in [
            ("True", Some(true)),
            ("no", Some(false)),
            ("T", Some(true)),
            ("0", Some(false)),
            ("1 + 1 == 2", Some(true)),
            ("2.5", Some(true)),
            ("\"yes\"", None),
            ("maybe", None),
        ] {
            assert_eq!(parse_bool(text), want, "{text}");
        }
    }
}
