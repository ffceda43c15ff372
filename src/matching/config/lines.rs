//! The lines of a configuration file, read one logical line at a time as
//! HTCondor's `Parse_macros` (`src/condor_utils/config.cpp`) reads them:
//! definitions, here-values, `if` directives, and the keyword lines `use`,
//! `include`, `error` and `warning`.

use super::conditions::{conditional, Conditions};
use super::templates::{self, Template};
use super::{expand, Config, ConfigError, Place};
use std::sync::Arc;

/// How deep `include` and `use` may nest, as HTCondor's
/// `CONFIG_MAX_NESTING_DEPTH`.
pub const MAX_NESTING_DEPTH: usize = 20;

/// Where lines being read come from.
enum Origin {
    /// A file (the one given, or one it includes).
    File(Arc<str>),
    /// A template's text, read for a `use` line: its definitions are at that
    /// line.
    Template { name: Arc<str>, at: Place },
}

impl Origin {
    fn place(&self, line: u32) -> Place {
        match self {
            Origin::File(file) => Place {
                file: file.clone(),
                line,
            },
            Origin::Template { at, .. } => at.clone(),
        }
    }

    fn template(&self) -> Option<Arc<str>> {
        match self {
            Origin::File(_) => None,
            Origin::Template { name, .. } => Some(name.clone()),
        }
    }
}

/// How a definition sets its knob.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operator {
    /// `NAME = value`.
    Set,
    /// `NAME += value`, `NAME +,= value`, `NAME +&&= value`: appended to the
    /// earlier value after a blank, the one separator, or the doubled one
    /// between blanks.
    Append(Option<(char, bool)>),
}

/// The separators `+SEP=` may name (`CONFIG_PLUS_SEP_CHARSET`).
const APPEND_SEPARATORS: &str = ",;|&*";

impl Config {
    /// Reads the text of file `file`, `depth` includes deep.
    pub(super) fn read_file_text(
        &mut self,
        text: &str,
        file: &Arc<str>,
        depth: usize,
    ) -> Result<(), ConfigError> {
        // A byte-order mark would be part of the first knob's name.
        let text = crate::ad::read::without_bom(text);
        self.read_lines(text, &Origin::File(file.clone()), depth)
    }

    fn read_lines(&mut self, text: &str, origin: &Origin, depth: usize) -> Result<(), ConfigError> {
        let mut lines = text.lines().enumerate().peekable();
        let mut conditions = Conditions::default();
        while let Some((i, raw)) = lines.next() {
            let place = origin.place(i as u32 + 1);
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
                    return Err(place.error(Some(name), &what));
                }
                if conditions.active() {
                    self.define(name, &lines_of.join("\n"), None, place, origin.template())?;
                }
                continue;
            }
            // if / elif / else / endif, and what a false branch holds.
            if let Some(directive) = conditional(body) {
                conditions.step(directive, self, &place)?;
                continue;
            }
            if !conditions.active() || self.keyword_line(body, &place, origin, depth)? {
                continue;
            }
            if body.starts_with('[') && !body.contains(['=', ':']) {
                // `[Section]`: a comment, so that a file may look like a
                // Windows .ini file (`Parse_macros`).
                continue;
            }
            let (name, operator, value) = assignment(body).map_err(|m| place.error(None, &m))?;
            let separator = match operator {
                Operator::Set => None,
                Operator::Append(separator) => Some(append_separator(separator)),
            };
            self.define(name, value, separator.as_deref(), place, origin.template())?;
        }
        if let Some(open) = conditions.open_at() {
            return Err(origin.place(open).error(None, "this if has no endif"));
        }
        Ok(())
    }

    /// The lines of HTCondor's configuration language that are not
    /// definitions: `use CATEGORY : TEMPLATE`, `include : FILE`, `error :
    /// text` (an error) and `warning : text` (a note). True when the line was
    /// one of them.
    fn keyword_line(
        &mut self,
        body: &str,
        place: &Place,
        origin: &Origin,
        depth: usize,
    ) -> Result<bool, ConfigError> {
        let Some((head, rest)) = body.split_once(':') else {
            return Ok(false);
        };
        if head.contains('=') {
            // `NAME = a:b` defines a knob.
            return Ok(false);
        }
        let head = head.trim();
        let head = head.strip_prefix('@').unwrap_or(head);
        let (keyword, options) = match head.split_once(char::is_whitespace) {
            Some((k, o)) => (k, o.trim()),
            None => (head, ""),
        };
        let rest = rest.trim();
        match keyword.to_ascii_lowercase().as_str() {
            "use" => {
                self.use_templates(options, rest, place, origin, depth)?;
                Ok(true)
            }
            "include" => {
                self.include(options, rest, place, depth)?;
                Ok(true)
            }
            "warning" => {
                let text = expand::expand(self, rest).map_err(|m| place.error(None, &m))?;
                self.notes.push(format!("{place}: warning: {text}"));
                Ok(true)
            }
            "error" => {
                let text = expand::expand(self, rest).map_err(|m| place.error(None, &m))?;
                Err(place.error(None, &format!("error: {text}")))
            }
            _ => Ok(false),
        }
    }

    /// `use CATEGORY : NAME[(ARGS)], ...`: each template the negotiator's
    /// knobs come from is read where the line stands; the others are noted
    /// as ignored. A template HTCondor does not have is the error HTCondor
    /// makes of it (`read_meta_config`).
    fn use_templates(
        &mut self,
        category: &str,
        list: &str,
        place: &Place,
        origin: &Origin,
        depth: usize,
    ) -> Result<(), ConfigError> {
        if category.is_empty() {
            return Err(place.error(None, &format!("use needs a category before : {list}")));
        }
        if depth + 1 >= MAX_NESTING_DEPTH {
            return Err(place.error(None, &format!("use {category}: nesting too deep")));
        }
        let names = templates::names_of(list).map_err(|m| place.error(None, &m))?;
        let top = matches!(origin, Origin::File(_));
        for (name, _arguments) in names {
            match templates::find(category, name).map_err(|m| place.error(None, &m))? {
                Template::Read { text, sets } => {
                    let origin = Origin::Template {
                        name: Arc::from(format!("{category} : {name}")),
                        at: place.clone(),
                    };
                    self.read_lines(text, &origin, depth + 1)?;
                    if top {
                        let what = if sets.is_empty() {
                            "values that negotiator knobs may refer to".to_string()
                        } else {
                            sets.join(", ")
                        };
                        self.notes.push(format!(
                            "{place}: use {category} : {name}: read for the negotiator's knobs it \
                             sets ({what}); what it sets for other daemons is not read"
                        ));
                    }
                }
                Template::Ignored => {
                    if top {
                        self.notes.push(format!(
                            "{place}: use {category} : {name}: sets no knob the negotiator reads; \
                             ignored"
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// `include [ifexist] : FILE`: the file's lines read where the line
    /// stands, its name expanded first (`Parse_macros`). HTCondor opens a
    /// relative name from the working directory (`Open_macro_source`), and so
    /// does the emulator. It runs no command (`include command : ...`).
    fn include(
        &mut self,
        options: &str,
        name: &str,
        place: &Place,
        depth: usize,
    ) -> Result<(), ConfigError> {
        let options: Vec<String> = options
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        let if_exists = match options.as_slice() {
            [] => false,
            [o] if o == "ifexist" || o == "ifexists" => true,
            [o, ..] if o == "command" || o == "output" => {
                return Err(place.error(
                    None,
                    "include command : the emulator runs no command from a configuration: run \
                     it yourself and include its output as a file (include : FILE)",
                ))
            }
            _ => {
                let what = format!(
                    "include {}: unexpected words after include (include [ifexist] : FILE)",
                    options.join(" ")
                );
                return Err(place.error(None, &what));
            }
        };
        let file = expand::expand(self, name).map_err(|m| place.error(None, &m))?;
        let file = file.trim();
        if file.is_empty() {
            return Err(place.error(None, "include : names no file"));
        }
        if file.contains('|') {
            return Err(place.error(
                None,
                &format!(
                    "include : {file}: a command (it holds |); the emulator runs no command from \
                     a configuration: include its output as a file"
                ),
            ));
        }
        if depth + 1 >= MAX_NESTING_DEPTH {
            let what = format!(
                "include : {file}: includes nested too deep ({MAX_NESTING_DEPTH} levels; does a \
                 file include itself?)"
            );
            return Err(place.error(None, &what));
        }
        let text = match self.read_included(file) {
            Ok(bytes) => String::from_utf8(bytes).map_err(|_| {
                place.error(
                    None,
                    &format!("include : {file}: not text (UTF-8); give the configuration file"),
                )
            })?,
            Err(Included::TooLong(most)) => {
                let what = format!(
                    "include : {file}: the configuration and the files it includes pass {most}                      bytes, the most read (CLASSAD_MAX_HELD_BYTES raises it)"
                );
                return Err(place.error(None, &what));
            }
            Err(Included::NotAFile) => {
                let what = format!(
                    "include : {file}: not a regular file (a device or a pipe would be read                      without end); give a configuration file"
                );
                return Err(place.error(None, &what));
            }
            Err(Included::Io(e)) if if_exists && e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(())
            }
            Err(Included::Io(e)) => {
                let relative = if std::path::Path::new(file).is_relative() {
                    " (a relative name is opened from the working directory, as HTCondor opens \
                     it)"
                } else {
                    ""
                };
                let what = format!(
                    "include : {file}: cannot read it: {e}{relative}; `include ifexist :` skips \
                     a file that is not there"
                );
                return Err(place.error(None, &what));
            }
        };
        self.read_file_text(&text, &Arc::from(file), depth + 1)
    }
}

/// Why an included file was not read.
pub(super) enum Included {
    /// It could not be opened or read.
    Io(std::io::Error),
    /// It is not a regular file.
    NotAFile,
    /// With it, more than this many bytes would have been read in all.
    TooLong(usize),
}

impl Included {
    /// What went wrong, in words.
    pub(super) fn describe(&self) -> String {
        match self {
            Included::Io(e) => e.to_string(),
            Included::NotAFile => "not a regular file".to_string(),
            Included::TooLong(most) => {
                format!("the configuration and its files pass {most} bytes, the most read")
            }
        }
    }
}

impl Config {
    /// The bytes of the regular file `file`, counted with everything included
    /// so far against the most a configuration may include (the most bytes an
    /// input may hold, [`crate::ad::ReadLimits`]): a file that includes a large
    /// one a thousand times is refused, not read a thousand times.
    pub(super) fn read_included(&mut self, file: &str) -> Result<Vec<u8>, Included> {
        use std::io::Read;
        let most = self.most_included_bytes;
        let opened = std::fs::File::open(file).map_err(Included::Io)?;
        if !opened.metadata().map_err(Included::Io)?.is_file() {
            return Err(Included::NotAFile);
        }
        let left = most.saturating_sub(self.included_bytes);
        let mut bytes = Vec::new();
        opened
            .take(left as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(Included::Io)?;
        if bytes.len() > left {
            return Err(Included::TooLong(most));
        }
        self.included_bytes += bytes.len();
        Ok(bytes)
    }
}

/// `NAME @=TAG`: a here-value's name and tag.
fn here_value(body: &str) -> Option<(&str, &str)> {
    let (name, tag) = body.split_once("@=")?;
    let name = name.trim();
    let tag = tag.trim();
    (is_knob_name(name) && !tag.is_empty() && !tag.contains(char::is_whitespace))
        .then_some((name, tag))
}

/// HTCondor's `is_valid_param_name`: letters, digits, `_` and `.`.
fn is_knob_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

/// A definition's name, operator and value, as `Parse_macros` finds them:
/// the name runs to a blank or `=`; then `=`, or `+`, an optional separator
/// (doubled or not) and `=`.
fn assignment(body: &str) -> Result<(&str, Operator, &str), String> {
    let end = body
        .find(|c: char| c.is_whitespace() || c == '=' || c == ':')
        .unwrap_or(body.len());
    let name = &body[..end];
    let rest = body[end..].trim_start();
    let (operator, value) = if let Some(value) = rest.strip_prefix('=') {
        (Operator::Set, value)
    } else if let Some(after) = rest.strip_prefix('+') {
        let mut chars = after.chars();
        match (chars.next(), chars.next(), chars.next()) {
            (Some('='), _, _) => (Operator::Append(None), &after[1..]),
            (Some(s), Some('='), _) if APPEND_SEPARATORS.contains(s) => {
                (Operator::Append(Some((s, false))), &after[2..])
            }
            (Some(s), Some(t), Some('=')) if APPEND_SEPARATORS.contains(s) && s == t => {
                (Operator::Append(Some((s, true))), &after[3..])
            }
            _ => return Err(bad_line(body)),
        }
    } else {
        return Err(bad_line(body));
    };
    if !is_knob_name(name) {
        return Err(format!(
            "{name:?} is not a knob name (letters, digits, `_` and `.`)"
        ));
    }
    Ok((name, operator, value.trim()))
}

fn bad_line(body: &str) -> String {
    let shown: String = body.chars().take(60).collect();
    format!("expected NAME = value (or NAME += value, NAME @=TAG, if, use, include), not {shown:?}")
}

/// What `NAME += value` puts between the earlier value and `value`, as
/// `Parse_macros` joins them: a blank, the one separator, or the doubled one
/// between blanks.
fn append_separator(separator: Option<(char, bool)>) -> String {
    match separator {
        None => " ".to_string(),
        Some((s, false)) => s.to_string(),
        Some((s, true)) => format!(" {s}{s} "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_as_parse_macros_finds_them() {
        assert_eq!(assignment("A = 1"), Ok(("A", Operator::Set, "1")));
        assert_eq!(assignment("A=1"), Ok(("A", Operator::Set, "1")));
        assert_eq!(assignment("A += x"), Ok(("A", Operator::Append(None), "x")));
        assert_eq!(
            assignment("A +,= x"),
            Ok(("A", Operator::Append(Some((',', false))), "x"))
        );
        assert_eq!(
            assignment("A +&&= x"),
            Ok(("A", Operator::Append(Some(('&', true))), "x"))
        );
        assert!(assignment("A +&|= x").is_err());
        assert!(assignment("A+ = x").is_err(), "A+ is not a name");
        assert!(assignment("A B = 1").is_err());
        assert!(assignment("just words").is_err());
    }

    /// `Parse_macros` on `+`: `XXX = $(XXX)<sep>rhs` when XXX has a value.
    #[test]
    fn appending_joins_as_parse_macros_joins() {
        let c = Config::parse(
            "A += b\nB = a\nB += b\nC = a\nC +,= b\nD = a\nD +&&= b\nE =\nE +,= b\n",
            "f",
        )
        .unwrap();
        for (name, want) in [
            ("A", "b"),
            ("B", "a b"),
            ("C", "a,b"),
            ("D", "a && b"),
            ("E", "b"),
        ] {
            assert_eq!(c.get(name).unwrap().as_deref(), Some(want), "{name}");
        }
    }
}
