//! One ad's text in old syntax (`Name = value` lines, a blank line after the ad),
//! written attribute by attribute. Ads of the shape families are small (tens of
//! attributes), so they are built as strings rather than streamed.

use std::fmt::Write as _;

/// An ad being written.
pub(super) struct AdText {
    text: String,
}

impl AdText {
    /// An empty ad.
    pub(super) fn new() -> AdText {
        AdText {
            text: String::with_capacity(1024),
        }
    }

    /// An attribute whose value is the expression `expr` (new syntax, as old
    /// syntax files hold values).
    pub(super) fn expr(&mut self, name: &str, expr: &str) {
        let _ = writeln!(self.text, "{name} = {expr}");
    }

    /// An integer attribute.
    pub(super) fn int(&mut self, name: &str, v: i64) {
        let _ = writeln!(self.text, "{name} = {v}");
    }

    /// A real attribute, written so that it reads back as a real (`4.0`, not `4`).
    pub(super) fn real(&mut self, name: &str, v: f64) {
        let r = real(v);
        self.expr(name, &r);
    }

    /// A string attribute (the generator's strings hold no quote or backslash).
    pub(super) fn str(&mut self, name: &str, s: &str) {
        debug_assert!(!s.contains(['"', '\\']), "{s:?}");
        let _ = writeln!(self.text, "{name} = \"{s}\"");
    }

    /// A boolean attribute.
    pub(super) fn boolean(&mut self, name: &str, v: bool) {
        self.expr(name, if v { "true" } else { "false" });
    }

    /// The ad's text, ended by a blank line.
    pub(super) fn finish(mut self) -> String {
        self.text.push('\n');
        self.text
    }
}

/// A real as a literal that reads back as the same real: the shortest digits,
/// with `.0` on whole numbers.
pub(super) fn real(v: f64) -> String {
    debug_assert!(v.is_finite());
    format!("{v:?}")
}

/// A string literal (the generator's strings hold no quote or backslash).
pub(super) fn quoted(s: &str) -> String {
    debug_assert!(!s.contains(['"', '\\']), "{s:?}");
    format!("\"{s}\"")
}

/// A list literal of string literals: `{ "a", "b" }`.
pub(super) fn string_list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| quoted(s)).collect();
    format!("{{ {} }}", quoted.join(", "))
}
