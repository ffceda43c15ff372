//! `if` / `elif` / `else` / `endif` in a configuration, as HTCondor's
//! `config.cpp` reads them (`Parse_macros` keeps a stack of them per file;
//! `Evaluate_config_if_bool` decides a condition), and HTCondor's reading of a
//! boolean knob.

use super::{expand, templates, Config, ConfigError, Place};

/// The HTCondor version the emulator answers `if version ...` for.
pub const EMULATED_VERSION: [u32; 3] = [25, 0, 0];

/// One of `if COND`, `elif COND`, `else`, `endif` (a leading `:` allowed, as
/// HTCondor allows it).
#[derive(Clone, Copy, Debug)]
pub(super) enum Conditional<'a> {
    If(&'a str),
    Elif(&'a str),
    Else,
    Endif,
}

/// The directive a line is, if it is one.
pub(super) fn conditional(body: &str) -> Option<Conditional<'_>> {
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

/// The open `if`s of one file: per level, whether its lines are read, whether
/// a branch was taken, and the line it opened at.
#[derive(Default)]
pub(super) struct Conditions {
    open: Vec<(bool, bool, u32)>,
}

impl Conditions {
    /// True when lines here are read (every open `if` in a taken branch).
    pub(super) fn active(&self) -> bool {
        self.open.iter().all(|(reading, _, _)| *reading)
    }

    /// The line of the innermost `if` left open.
    pub(super) fn open_at(&self) -> Option<u32> {
        self.open.last().map(|(_, _, line)| *line)
    }

    /// Takes one directive at `place`.
    pub(super) fn step(
        &mut self,
        c: Conditional<'_>,
        config: &Config,
        place: &Place,
    ) -> Result<(), ConfigError> {
        let error = |m: &str| place.error(None, m);
        let outer = self.open.iter().all(|(reading, _, _)| *reading);
        match c {
            Conditional::If(cond) => {
                let holds = outer && condition(cond, config).map_err(|m| error(&m))?;
                self.open.push((holds, holds, place.line));
            }
            Conditional::Elif(cond) => {
                let Some(&(_, taken, at)) = self.open.last() else {
                    return Err(error("elif without if"));
                };
                let outer = self.open[..self.open.len() - 1].iter().all(|f| f.0);
                let holds = outer && !taken && condition(cond, config).map_err(|m| error(&m))?;
                *self.open.last_mut().expect("checked") = (holds, taken || holds, at);
            }
            Conditional::Else => {
                let Some(&(_, taken, at)) = self.open.last() else {
                    return Err(error("else without if"));
                };
                let outer = self.open[..self.open.len() - 1].iter().all(|f| f.0);
                *self.open.last_mut().expect("checked") = (outer && !taken, true, at);
            }
            Conditional::Endif => {
                if self.open.pop().is_none() {
                    return Err(error("endif without if"));
                }
            }
        }
        Ok(())
    }
}

/// An `if` condition as HTCondor's config reads it (`config.cpp`,
/// `Evaluate_config_if_bool` and friends): `defined NAME` (a knob set and not
/// empty, HTCondor's defaults included; a boolean or a number is defined),
/// `defined use CATEGORY[:TEMPLATE]`, `version OP X.Y.Z` (against
/// [`EMULATED_VERSION`]), or a boolean or number after `$(...)` references are
/// expanded; `!` before any of them negates it.
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
        "defined" => defined(rest.trim(), config),
        "version" => version(rest),
        _ => {
            let value = expand::expand(config, cond)?;
            parse_bool(&value).ok_or_else(|| {
                format!(
                    "if {cond}: not a condition the emulator reads (defined NAME, version OP \
                     X.Y.Z, or a boolean or number)"
                )
            })
        }
    }
}

/// `defined WHAT`.
fn defined(what: &str, config: &Config) -> Result<bool, String> {
    if what.is_empty() {
        return Ok(false);
    }
    if let Some(template) = what
        .get(..4)
        .filter(|w| w.eq_ignore_ascii_case("use "))
        .map(|_| what[4..].trim())
    {
        if template.contains(char::is_whitespace) {
            return Err(format!(
                "if defined use {template}: no spaces within CATEGORY:TEMPLATE (it would never \
                 match)"
            ));
        }
        return Ok(match template.split_once(':') {
            None => templates::category_exists(template),
            Some((category, "")) => templates::category_exists(category),
            Some((category, name)) => templates::exists(category, name),
        });
    }
    if what
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    {
        let is_literal = matches!(
            what.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no"
        ) || what.parse::<f64>().is_ok();
        return Ok(is_literal || config.lookup(what).is_some_and(|v| !v.is_empty()));
    }
    if what.parse::<f64>().is_ok() {
        return Ok(true);
    }
    Err(format!(
        "if defined {what}: defined takes a knob's name, a boolean or a number"
    ))
}

/// `version OP X.Y.Z`.
fn version(rest: &str) -> Result<bool, String> {
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
    let ord = EMULATED_VERSION.cmp(&want);
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

    /// `Evaluate_config_if_bool`: `defined` looks a name up as `lookup_macro`
    /// does (the configuration, then HTCondor's defaults); a boolean or a
    /// number is defined; `defined use` asks for a template.
    #[test]
    fn defined_as_evaluate_config_if_bool_reads_it() {
        let c = Config::parse("A = 1\nEMPTY =\n", "f").unwrap();
        for (what, want) in [
            ("A", true),
            ("a", true),
            ("EMPTY", false),
            ("NOPE", false),
            ("HOUR", true),
            ("NEGOTIATOR_DEPTH_FIRST", true),
            ("true", true),
            ("12", true),
            ("use POLICY", true),
            ("use policy:uwcs_desktop", true),
            ("use POLICY:NO_SUCH", false),
            ("use NOCATEGORY", false),
            ("", false),
        ] {
            assert_eq!(defined(what, &c), Ok(want), "defined {what}");
        }
        assert!(defined("use POLICY : X", &c).is_err());
        assert!(defined("a b", &c).is_err());
    }
}
