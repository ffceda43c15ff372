//! HTCondor's configuration syntax, as much of it as a negotiator's knobs need
//! (negotiator.md section 1): `NAME = value` lines, `#` comment lines (a `#` later
//! in a line is part of the value), a trailing backslash continuing a line (joined
//! as HTCondor's `getline` joins it: lines trimmed, the backslash dropped, a
//! comment line within counting as blank), names that ignore case, the last definition of a
//! name winning, and `$(NAME)` / `$(NAME:default)` expanded recursively when a
//! value is read (an undefined macro is empty). Not read: `include`, `if`/`else`,
//! `+=`, `$ENV()` and metaknobs.

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
const MAX_EXPANSION_DEPTH: usize = 64;

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
                self.expand(&k.value, 0)
                    .map(Some)
                    .map_err(|m| self.error(k.line, Some(&k.name), &m))
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

    /// `value` with every `$(NAME)` and `$(NAME:default)` replaced.
    fn expand(&self, value: &str, depth: usize) -> Result<String, String> {
        if depth > MAX_EXPANSION_DEPTH {
            return Err("the $(...) references reach themselves".to_string());
        }
        let mut out = String::new();
        let mut rest = value;
        while let Some(start) = rest.find("$(") {
            out.push_str(&rest[..start]);
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
            match self.by_name.get(&name.to_ascii_lowercase()) {
                Some(&i) => out.push_str(&self.expand(&self.knobs[i].value, depth + 1)?),
                None => {
                    if let Some(d) = default {
                        out.push_str(&self.expand(d, depth + 1)?);
                    }
                }
            }
            rest = &inner[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
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
