//! HTCondor's configuration language, as much of it as a negotiator's knobs
//! need (negotiator.md section 1), read as `src/condor_utils/config.cpp`
//! (`Parse_macros`) reads it:
//!
//! - `NAME = value` lines, names that ignore case, the last definition of a
//!   name winning; `#` comment lines (a `#` later in a line is part of the
//!   value); a trailing backslash continuing a line (joined as HTCondor's
//!   `getline` joins it); `[section]` lines taken for comments;
//! - `$(NAME)` / `$(NAME:default)` expanded recursively when a value is read
//!   (an unset name is HTCondor's default where the emulator carries it, else
//!   empty), `$ENV(NAME)`, and `$(NAME)` in `NAME`'s own definition standing
//!   for its earlier value;
//! - `NEGOTIATOR.NAME` read before `NAME`, as the negotiator reads its knobs;
//! - `NAME += value` (and `+,=`, `+&&=`, ...) appending to the earlier value;
//! - here-values (`NAME @=TAG` ... `@TAG`, as `condor_config_val -dump`
//!   prints HTCondor's defaults);
//! - `if`/`elif`/`else`/`endif`;
//! - `include [ifexist] : FILE` (HTCondor opens a relative path from the
//!   working directory, and so does the emulator; it runs no command);
//! - then the files of `LOCAL_CONFIG_DIR` and `LOCAL_CONFIG_FILE`, as
//!   `real_config` reads them;
//! - `use CATEGORY : TEMPLATE` (HTCondor's templates), `error :` and `warning :`
//!   lines.
//!
//! `condor_config_val -dump` and `-summary` print configurations in this
//! language, and are read as they are.

mod conditions;
mod defaults;
mod expand;
mod lines;
mod locals;
mod templates;

pub use conditions::{parse_bool, EMULATED_VERSION};
pub use expand::{MAX_EXPANDED_BYTES, MAX_EXPANDED_REFERENCES, MAX_EXPANSION_DEPTH};

use std::fmt;
use std::sync::Arc;

/// A configuration read into knobs.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// The file given (others may be included).
    file: String,
    /// Every definition, in the order read.
    knobs: Vec<Knob>,
    /// The last definition of each name (lower case).
    by_name: ahash::AHashMap<String, usize>,
    /// What reading said that is not an error.
    notes: Vec<String>,
    /// The bytes of the files included so far, and the most they may come to.
    included_bytes: usize,
    most_included_bytes: usize,
    /// The bytes definitions copied from earlier values (see `define`).
    copied_bytes: usize,
}

/// One `NAME = value` definition.
#[derive(Clone, Debug)]
struct Knob {
    name: String,
    value: String,
    place: Place,
    /// The template that set it, when a `use` line did (`POLICY : X`).
    template: Option<Arc<str>>,
}

/// Where a definition was read: a file and its 1-based line (a template's
/// definitions are at their `use` line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// The file, as given or as an `include` line named it.
    pub file: Arc<str>,
    /// The line.
    pub line: u32,
}

impl Place {
    /// An error here.
    pub fn error(&self, knob: Option<&str>, message: &str) -> ConfigError {
        ConfigError {
            file: self.file.to_string(),
            line: self.line,
            knob: knob.map(str::to_string),
            message: message.to_string(),
        }
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
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

/// The subsystem prefix the negotiator reads first (`NEGOTIATOR.NAME`).
const SUBSYSTEM: &str = "negotiator.";

impl Config {
    /// Reads `text`; `file` names it in errors. Files it includes are read
    /// from the file system.
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
        let most = crate::ad::ReadLimits::configured().max_held_bytes;
        Config::parse_within(text, file, most)
    }

    /// [`Config::parse`], the files it includes together at most `most`
    /// bytes.
    fn parse_within(text: &str, file: &str, most: usize) -> Result<Config, ConfigError> {
        let mut config = Config {
            file: file.to_string(),
            most_included_bytes: most,
            ..Config::default()
        };
        config.read_file_text(text, &Arc::from(file), 0)?;
        if !locals::is_tool_output(text) {
            config.read_locals()?;
        } else if config.get("LOCAL_CONFIG_DIR")?.is_some()
            || config.get("LOCAL_CONFIG_FILE")?.is_some()
        {
            config.notes.push(format!(
                "{file}: condor_config_val's output, which holds the knobs of \
                 LOCAL_CONFIG_DIR and LOCAL_CONFIG_FILE already: they are not read again"
            ));
        }
        Ok(config)
    }

    /// What reading the configuration said that is not an error: templates
    /// read or ignored, `warning :` lines. Each names the file and line.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The file's name, as given.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The value of `name` (ignoring case; `NEGOTIATOR.NAME` first), its
    /// macros expanded; `None` when the configuration does not set it.
    pub fn get(&self, name: &str) -> Result<Option<String>, ConfigError> {
        match self.effective(name) {
            None => Ok(None),
            Some(k) => match expand::expand(self, &k.value) {
                Ok(v) => Ok(Some(v)),
                Err(m) => Err(k.place.error(Some(&k.name), &m)),
            },
        }
    }

    /// Where `name` (or `NEGOTIATOR.NAME`) was last defined.
    pub fn place(&self, name: &str) -> Option<&Place> {
        self.effective(name).map(|k| &k.place)
    }

    /// The line `name` (or `NEGOTIATOR.NAME`) was last defined on.
    pub fn line(&self, name: &str) -> Option<u32> {
        self.place(name).map(|p| p.line)
    }

    /// Every name the configuration's own lines define (as last spelled), with
    /// where, in the order of their last definitions. Knobs a template set
    /// and no line set after it are left out: the `use` line's note tells of
    /// them.
    pub fn names(&self) -> Vec<(&str, &Place)> {
        let mut last: Vec<usize> = self.by_name.values().copied().collect();
        last.sort_unstable();
        last.into_iter()
            .map(|i| &self.knobs[i])
            .filter(|k| k.template.is_none())
            .map(|k| (k.name.as_str(), &k.place))
            .collect()
    }

    /// An error in the value of `name`, at the line that last defined it
    /// (the first line of the file when none did).
    pub fn knob_error(&self, name: &str, message: &str) -> ConfigError {
        match self.effective(name) {
            Some(k) => k.place.error(Some(&k.name), message),
            None => self.error(0, Some(name), message),
        }
    }

    /// An error at `line` of the file given.
    pub fn error(&self, line: u32, knob: Option<&str>, message: &str) -> ConfigError {
        ConfigError {
            file: self.file.clone(),
            line,
            knob: knob.map(str::to_string),
            message: message.to_string(),
        }
    }

    /// The definition the negotiator reads for `name`: `NEGOTIATOR.NAME`, else
    /// `NAME` (`lookup_macro` with the subsystem's prefix).
    fn effective(&self, name: &str) -> Option<&Knob> {
        let lower = name.to_ascii_lowercase();
        self.by_name
            .get(&format!("{SUBSYSTEM}{lower}"))
            .or_else(|| self.by_name.get(&lower))
            .map(|&i| &self.knobs[i])
    }

    /// The raw value a `$(name)` reference reaches: the configuration's, else
    /// HTCondor's default.
    fn lookup(&self, name: &str) -> Option<&str> {
        self.effective(name)
            .map(|k| k.value.as_str())
            .or_else(|| defaults::value(name))
    }

    /// Defines `name` as `value` at `place`. A reference of the value to its
    /// own name (`$(NAME)`, `$(NAME:default)`, and without the `NEGOTIATOR.`
    /// prefix when the name has it) is the value it had before, as HTCondor's
    /// `expand_self_macro` reads `X = $(X) && more`; with `append` (`+=`), the
    /// value follows the earlier one after the separator.
    ///
    /// The earlier value is taken out of the definition this one supersedes
    /// (which nothing reads again) when the value starts with it, so a
    /// thousand lines of `X = $(X) more` or `X += more` cost what they hold,
    /// not a thousand copies; what copies are made count against
    /// `most_included_bytes`, so no file makes the reading quadratic.
    fn define(
        &mut self,
        name: &str,
        value: &str,
        append: Option<&str>,
        place: Place,
        template: Option<Arc<str>>,
    ) -> Result<(), ConfigError> {
        let lower = name.to_ascii_lowercase();
        let unprefixed = name
            .get(..SUBSYSTEM.len())
            .filter(|p| p.eq_ignore_ascii_case(SUBSYSTEM))
            .map(|_| &name[SUBSYSTEM.len()..]);
        let selves: Vec<&str> = std::iter::once(name).chain(unprefixed).collect();
        // What the value starts with: the earlier value of the name it refers
        // to (for `+=`, the name itself), and the separator after it.
        let (earlier_of, separator, rest) = match append {
            Some(sep) => (Some(name), sep, value),
            None => match expand::leading_self_reference(value, &selves) {
                Some((n, len)) => (Some(n), "", &value[len..]),
                None => (None, "", value),
            },
        };
        let rest = expand::expand_self(rest, &selves, |n| self.lookup(n));
        let mut copied = rest.len().saturating_sub(value.len());
        let mut out = match earlier_of {
            None => String::new(),
            Some(n) => {
                let superseded = self.by_name.get(&lower).copied();
                match self.lookup_index(n) {
                    Some(i) if Some(i) == superseded => std::mem::take(&mut self.knobs[i].value),
                    _ => {
                        let v = self.lookup(n).unwrap_or("").to_string();
                        copied += v.len();
                        v
                    }
                }
            }
        };
        self.copied_bytes = self.copied_bytes.saturating_add(copied);
        if self.copied_bytes > self.most_included_bytes {
            let what = format!(
                "references of definitions to their own earlier values copy more than {} bytes \
                 in all, the most read: write the value out",
                self.most_included_bytes
            );
            return Err(place.error(Some(name), &what));
        }
        if !out.is_empty() || append.is_none() {
            out.push_str(separator);
        }
        out.push_str(&rest);
        self.by_name.insert(lower, self.knobs.len());
        self.knobs.push(Knob {
            name: name.to_string(),
            value: out,
            place,
            template,
        });
        Ok(())
    }

    /// Which definition a `$(name)` reference reaches, when one of the
    /// configuration's does.
    fn lookup_index(&self, name: &str) -> Option<usize> {
        let lower = name.to_ascii_lowercase();
        self.by_name
            .get(&format!("{SUBSYSTEM}{lower}"))
            .or_else(|| self.by_name.get(&lower))
            .copied()
    }
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
        let names: Vec<(&str, u32)> = c.names().into_iter().map(|(n, p)| (n, p.line)).collect();
        assert_eq!(names, [("NAME", 4), ("Other", 6)]);
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
        assert!(
            e.to_string().starts_with("cfg:2: expected NAME = value"),
            "{e}"
        );
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
        assert_eq!(
            c.notes()[0],
            "cfg:18: use ROLE : Execute: sets no knob the negotiator reads; ignored"
        );
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
                "include : /no/such/dir/more\n",
                "f:1: include : /no/such/dir/more: cannot read it",
            ),
            (
                "include command : /bin/echo\n",
                "f:1: include command : the emulator runs no command",
            ),
            (
                "use POLICY : DESKTOPP\n",
                "f:1: use POLICY: does not recognise DESKTOPP",
            ),
            ("error : stop here\n", "f:1: error: stop here"),
        ] {
            let e = Config::parse(text, "f").unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }

    /// A folder of its own for a test's files.
    fn folder(test: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("classad-config-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// `Parse_macros` on `include [ifexist] : FILE`: the file's lines where the
    /// line stands, its name expanded first; errors in it name it.
    #[test]
    fn include_reads_the_file_where_the_line_stands() {
        let dir = folder("include");
        let inner = dir.join("inner.conf");
        std::fs::write(&inner, "B = $(A) inner\nA = 2\nC = 3\n").unwrap();
        let text = format!(
            "DIR = {}\nA = 1\ninclude : $(DIR)/inner.conf\nC = 4\n\
             include ifexist : $(DIR)/not-there.conf\n",
            dir.display()
        );
        let c = Config::parse(&text, "top").unwrap();
        assert_eq!(c.get("A").unwrap().as_deref(), Some("2"));
        assert_eq!(c.get("B").unwrap().as_deref(), Some("2 inner"));
        assert_eq!(
            c.get("C").unwrap().as_deref(),
            Some("4"),
            "the later line wins"
        );
        let place = c.place("A").unwrap();
        assert_eq!((&*place.file, place.line), (inner.to_str().unwrap(), 2));
        std::fs::write(&inner, "X = 1\nif true\n").unwrap();
        let e = Config::parse(&text, "top").unwrap_err();
        assert_eq!(
            (e.file.as_str(), e.line, e.message.as_str()),
            (inner.to_str().unwrap(), 2, "this if has no endif")
        );
        // A file that includes itself stops at HTCondor's nesting depth.
        let me = dir.join("me.conf");
        std::fs::write(&me, format!("include : {}\n", me.display())).unwrap();
        let e = Config::parse(&format!("include : {}\n", me.display()), "top").unwrap_err();
        assert!(e.message.contains("nested too deep"), "{e}");
        // A device is never read: /dev/zero would be read without end.
        let e = Config::parse("include : /dev/zero\n", "top").unwrap_err();
        assert!(e.message.contains("not a regular file"), "{e}");
        // Included again and again, files count together against the bound.
        let big = dir.join("big.conf");
        std::fs::write(&big, format!("A = {}\n", "x".repeat(1000))).unwrap();
        let many = format!("include : {}\n", big.display()).repeat(300);
        let e = Config::parse_within(&many, "top", 100_000).unwrap_err();
        assert!(e.message.contains("the most read"), "{e}");
        assert!(e.line > 1, "the first includes were read: {e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// `read_meta_config`: a template that sets negotiator knobs sets them
    /// where its `use` line stands; a later line overrides it; the others
    /// are noted.
    #[test]
    fn use_sets_the_negotiator_knobs_of_htcondor_s_templates() {
        let c = Config::parse(
            "use POLICY : UWCS_DESKTOP\nPREEMPTION_RANK = 0\nuse ROLE : Submit, Execute\n",
            "f",
        )
        .unwrap();
        assert_eq!(
            c.get("PREEMPTION_REQUIREMENTS").unwrap().as_deref(),
            Some(
                "((SubmitterGroup =?= RemoteGroup) && ((time() - EnteredCurrentState) > (1 * \
                 3600)) && (RemoteUserPrio > TARGET.SubmitterUserPrio * 1.2)) || (MY.NiceUser \
                 == True)"
            )
        );
        assert_eq!(c.get("PREEMPTION_RANK").unwrap().as_deref(), Some("0"));
        assert_eq!(c.place("NEGOTIATOR_PRE_JOB_RANK").unwrap().line, 1);
        let names: Vec<&str> = c.names().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["PREEMPTION_RANK"], "template knobs are not listed");
        assert_eq!(c.notes().len(), 3, "{:?}", c.notes());
        assert!(c.notes()[0].starts_with(
            "f:1: use POLICY : UWCS_DESKTOP: read for the negotiator's knobs it sets \
             (PREEMPTION_REQUIREMENTS, PREEMPTION_RANK, NEGOTIATOR_PRE_JOB_RANK, \
             NEGOTIATOR_POST_JOB_RANK)"
        ));
        assert_eq!(
            c.notes()[2],
            "f:3: use ROLE : Execute: sets no knob the negotiator reads; ignored"
        );
        let c = Config::parse("use policy : always_run_jobs\n", "f").unwrap();
        assert_eq!(
            c.get("NEGOTIATOR_CONSIDER_PREEMPTION").unwrap().as_deref(),
            Some("False")
        );
    }

    /// `Parse_macros` on `+=`, and `lookup_macro` reading `NEGOTIATOR.NAME`
    /// before `NAME`.
    #[test]
    fn appending_and_the_negotiator_s_own_prefix() {
        let c = Config::parse(
            "A = x\nA += y\nB +&&= first\nB +&&= second\nC = 1\nC +,= 2\n\
             SLOT_WEIGHT += * 2\nNEGOTIATOR.D = mine\nD = everyone's\n\
             NEGOTIATOR.E = $(E) + 1\nE = 1\n",
            "f",
        )
        .unwrap();
        assert_eq!(c.get("A").unwrap().as_deref(), Some("x y"));
        assert_eq!(c.get("B").unwrap().as_deref(), Some("first && second"));
        assert_eq!(c.get("C").unwrap().as_deref(), Some("1,2"));
        assert_eq!(
            c.get("SLOT_WEIGHT").unwrap().as_deref(),
            Some("Cpus * 2"),
            "appended to HTCondor's default"
        );
        assert_eq!(c.get("d").unwrap().as_deref(), Some("mine"));
        assert_eq!(c.place("D").unwrap().line, 8);
        assert_eq!(
            c.get("E").unwrap().as_deref(),
            Some(" + 1"),
            "E was not set when NEGOTIATOR.E referred to it"
        );
    }

    /// `condor_config_val -summary` (`write_config_file` in `config_val.cpp`):
    /// a version comment, then per source file a `# from FILE` comment block
    /// and its knobs as `NAME = raw value`, here-values indented.
    #[test]
    fn a_summary_of_condor_config_val_reads_as_it_is() {
        let summary = "# condor_config_val $CondorVersion: 25.0.0 2025-06-01 BuildID: 1 $\n\
            \n#\n# from /etc/condor/condor_config\n#\n\
            LOCAL_CONFIG_DIR = $(ETC)/config.d\n\
            \n#\n# from /etc/condor/config.d/50-negotiator\n#\n\
            GROUP_NAMES = group_a, group_b\n\
            GROUP_QUOTA_group_a = 10\n\
            NEGOTIATOR_DEPTH_FIRST = True\n\
            NEGOTIATOR_JOB_CONSTRAINT @=end\n   JobUniverse != 7\n@end\n\
            [Section]\n";
        let c = Config::parse(summary, "summary").unwrap();
        assert_eq!(
            c.get("GROUP_NAMES").unwrap().as_deref(),
            Some("group_a, group_b")
        );
        assert_eq!(
            c.get("NEGOTIATOR_JOB_CONSTRAINT").unwrap().as_deref(),
            Some("JobUniverse != 7")
        );
        let (knobs, warnings) = crate::negotiate::CycleKnobs::from_config(&c).unwrap();
        assert!(knobs.depth_first);
        assert_eq!(
            warnings,
            ["summary:6: LOCAL_CONFIG_DIR: not a knob the emulator reads; ignored"]
        );
    }

    /// `X = $(X) more` and `X += more` take the earlier value out of the
    /// definition they supersede: ten thousand of each copy nothing, and
    /// reading stays linear in the file. A self-reference elsewhere copies,
    /// and those copies are bounded in all.
    #[test]
    fn extending_a_value_copies_nothing_and_other_copies_are_bounded() {
        let text = "A = a\n".to_string()
            + &"A = $(A) x\nB += y\n".repeat(10_000)
            + "NEGOTIATOR.A = $(A) z\n";
        let c = Config::parse(&text, "f").unwrap();
        assert_eq!(
            c.copied_bytes,
            "a".len() + " x".len() * 10_000,
            "only NEGOTIATOR.A copies A"
        );
        let a = c.get("A").unwrap().unwrap();
        assert!(a.starts_with("a x x") && a.ends_with("x z"), "{a}");
        assert_eq!(c.get("B").unwrap().unwrap().len(), 2 * 10_000 - 1);
        let doubling = "X = x\n".to_string() + &"X = $(X)$(X)\n".repeat(40);
        let e = Config::parse_within(&doubling, "f", 1 << 20).unwrap_err();
        assert!(e.message.contains("copy more than 1048576 bytes"), "{e}");
    }
}
