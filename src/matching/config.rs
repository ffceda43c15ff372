//! HTCondor's configuration syntax, as much of it as a negotiator's knobs need
//! (negotiator.md section 1): `NAME = value` lines, `#` comment lines (a `#` later
//! in a line is part of the value), a trailing backslash continuing a line (joined
//! as HTCondor's `getline` joins it: lines trimmed, the backslash dropped, a
//! comment line within counting as blank), names that ignore case, the last definition of a
//! name winning, and `$(NAME)` / `$(NAME:default)` expanded recursively when a
//! value is read (an undefined macro is empty). Not read: `include`, `if`/`else`,
//! `+=`, `$ENV()` and metaknobs.
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
            let Some((name, value)) = body.split_once('=') else {
                return Err(config.error(line, None, "expected NAME = value"));
            };
            let name = name.trim();
            let valid = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
            if !valid {
                let what = format!("{name:?} is not a knob name (letters, digits, `_` and `.`)");
                return Err(config.error(line, None, &what));
            }
            config
                .by_name
                .insert(name.to_ascii_lowercase(), config.knobs.len());
            config.knobs.push(Knob {
                name: name.to_string(),
                value: value.trim().to_string(),
                line,
            });
        }
        Ok(config)
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
        while let Some(start) = rest.find("$(") {
            self.push(&rest[..start], depth)?;
            let inner = &rest[start + 2..];
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
