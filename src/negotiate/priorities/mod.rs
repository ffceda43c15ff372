//! The accountant's state a cycle starts from (negotiator.md section 1): per
//! submitter, its real priority, priority factor and weighted usage, read from a
//! priorities file (`condor_userprio -l`, or a plain form), and found by
//! submitter name with or without its `@domain`.

use super::bounds::MAX_AMOUNT;
use std::fmt;

pub mod plain;
pub mod userprio;

/// HTCondor's floor on a real priority (`MinPriority`).
pub const MIN_PRIORITY: f64 = 0.5;

/// HTCondor's floor on a priority factor (`MIN_PRIORITY_FACTOR`).
pub const MIN_PRIORITY_FACTOR: f64 = 1.0;

/// The prefix of the nice user's submitter names (HTCondor's `NiceUserName`).
pub const NICE_USER_PREFIX: &str = "nice-user";

/// One submitter's line of a priorities file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PriorityEntry {
    /// The real user priority, as given.
    pub real: f64,
    /// The priority factor, when given.
    pub factor: Option<f64>,
    /// Weighted usage (slots in use), 0 when not given.
    pub usage: f64,
    /// `Floor`, when above 0 (the cycle reads its integer part, as
    /// `Accountant::GetFloor` does).
    pub floor: Option<f64>,
    /// `Ceiling`, when 0 or more (the cycle reads its integer part, as
    /// `Accountant::GetCeiling` does).
    pub ceiling: Option<f64>,
}

/// The submitters of a priorities file, in file order, found by name with or
/// without its `@domain` (see [`Priorities::get`]).
#[derive(Clone, Debug, Default)]
pub struct Priorities {
    /// (name, entry, 1-based line), in file order.
    entries: Vec<(String, PriorityEntry, u32)>,
    by_name: ahash::AHashMap<String, usize>,
    /// The first entry with an `@domain`, by its name less the domain.
    by_bare_name: ahash::AHashMap<String, usize>,
}

/// A line of a priorities file that names no submitter of the cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnfoundPriority {
    /// The name it gives.
    pub name: String,
    /// Its 1-based line.
    pub line: u32,
}

/// A priorities file that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrioritiesError {
    /// The file.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column of the field at fault.
    pub column: u32,
    /// What was expected.
    pub message: String,
}

impl fmt::Display for PrioritiesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.message
        )
    }
}

impl std::error::Error for PrioritiesError {}

impl Priorities {
    /// Reads the accountant's state in either of the layouts an admin has at
    /// hand: `condor_userprio -l` as it prints it (see [`userprio`]), or the
    /// plain form, lines `<submitter> <real priority> [<priority factor>
    /// [<weighted usage> [<floor> [<ceiling>]]]]`, each number from 0 to
    /// [`MAX_AMOUNT`] (a ceiling of -1 for none), `#` starting a comment (see
    /// [`plain`]). `condor_userprio`'s table (its output without
    /// `-l`) is refused with a pointer to `-l`: its columns round the numbers
    /// and change with its options. `file` names the text in errors.
    ///
    /// ```
    /// use classad::negotiate::Priorities;
    /// let p = Priorities::parse("# name prio factor usage\nalice 2.5 100 4\nbob 0.7\n", "prio")?;
    /// assert_eq!(p.get("alice").unwrap().usage, 4.0);
    /// assert_eq!(p.get("bob").unwrap().factor, None);
    /// let l = Priorities::parse("Name = \"carol@d\"\nPriority = 50.0\nPriorityFactor = 100.0\n", "-l")?;
    /// assert_eq!(l.get("carol@d").unwrap().real, 0.5);
    /// # Ok::<(), classad::negotiate::PrioritiesError>(())
    /// ```
    pub fn parse(text: &str, file: &str) -> Result<Priorities, PrioritiesError> {
        // A byte-order mark would be part of the first submitter's name.
        let text = crate::ad::read::without_bom(text);
        match userprio::layout(text) {
            userprio::Layout::Ads => userprio::parse(text, file),
            userprio::Layout::Table(line) => Err(PrioritiesError {
                file: file.to_string(),
                line,
                column: 1,
                message: "this is condor_userprio's table, whose columns round the numbers: \
                          give the output of `condor_userprio -l` (read as it is), or lines \
                          `<submitter> <real priority> [<priority factor> [<weighted usage>]]`"
                    .into(),
            }),
            userprio::Layout::Plain => plain::parse(text, file),
        }
    }

    /// The entries of `entries`, in order (the first of a name kept), each
    /// given as line 0: state that came from no file (the accountant's).
    pub fn from_entries(entries: impl IntoIterator<Item = (String, PriorityEntry)>) -> Priorities {
        let mut p = Priorities::default();
        for (name, entry) in entries {
            // A name met twice keeps its first entry.
            let _ = p.push(name, entry, 0);
        }
        p
    }

    /// Adds `name`'s entry, read at `line`; `Err` with a message when the name
    /// is listed already.
    fn push(&mut self, name: String, entry: PriorityEntry, line: u32) -> Result<(), String> {
        if self.by_name.contains_key(&name) {
            return Err(format!("{name:?} is listed twice"));
        }
        self.by_name.insert(name.clone(), self.entries.len());
        if let Some((bare, _)) = name.rsplit_once('@') {
            self.by_bare_name
                .entry(bare.to_string())
                .or_insert(self.entries.len());
        }
        self.entries.push((name, entry, line));
        Ok(())
    }

    /// The entry of the submitter `name`: the line of that exact name, else,
    /// when `name` has an `@domain`, the line of the name without it, else,
    /// when it has none, the first line of that name with a domain. So a
    /// file in `condor_userprio`'s form (`group_cms.alice@example.org`) and
    /// one without domains both find HTCondor's submitter names; two names of
    /// different domains stay apart.
    ///
    /// ```
    /// use classad::negotiate::Priorities;
    /// let p = Priorities::parse("group_cms.alice 2\nbob@example.org 3\n", "prio")?;
    /// assert_eq!(p.get("group_cms.alice@example.org").unwrap().real, 2.0);
    /// assert_eq!(p.get("bob").unwrap().real, 3.0);
    /// assert!(p.get("bob@other.org").is_none());
    /// # Ok::<(), classad::negotiate::PrioritiesError>(())
    /// ```
    pub fn get(&self, name: &str) -> Option<&PriorityEntry> {
        self.position(name).map(|i| &self.entries[i].1)
    }

    fn position(&self, name: &str) -> Option<usize> {
        if let Some(&i) = self.by_name.get(name) {
            return Some(i);
        }
        match name.rsplit_once('@') {
            Some((bare, _)) => self
                .by_name
                .get(bare)
                .copied()
                .filter(|&i| !self.entries[i].0.contains('@')),
            None => self.by_bare_name.get(name).copied(),
        }
    }

    /// The lines that [`get`](Priorities::get) gives none of `names` (the
    /// submitters of the jobs and of the slots' claims), in file order: a
    /// line an admin meant for a submitter that finds none changes nothing.
    pub fn unfound<'n>(&self, names: impl IntoIterator<Item = &'n str>) -> Vec<UnfoundPriority> {
        let mut found = vec![false; self.entries.len()];
        for name in names {
            if let Some(i) = self.position(name) {
                found[i] = true;
            }
        }
        self.entries
            .iter()
            .zip(found)
            .filter(|(_, f)| !f)
            .map(|((name, _, line), _)| UnfoundPriority {
                name: name.clone(),
                line: *line,
            })
            .collect()
    }

    /// How many submitters are listed.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no submitter is listed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every submitter listed, in file order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &PriorityEntry)> {
        self.entries.iter().map(|(n, e, _)| (n.as_str(), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leading_byte_order_mark_is_not_part_of_the_first_name() {
        let p = Priorities::parse("\u{feff}alice 2.0\nbob 1.0\n", "p").unwrap();
        assert_eq!(p.get("alice").map(|s| s.real), Some(2.0));
    }

    #[test]
    fn lines_comments_and_defaults() {
        let p = Priorities::parse(
            "\n  # header\nalice 2.5 100 4   # trailing\ngroup_a.bob@x 0.7 1\n",
            "f",
        )
        .unwrap();
        let names: Vec<&str> = p.iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["alice", "group_a.bob@x"]);
        assert_eq!(
            p.get("group_a.bob@x"),
            Some(&PriorityEntry {
                real: 0.7,
                factor: Some(1.0),
                usage: 0.0,
                floor: None,
                ceiling: None,
            })
        );
        assert!(p.get("Alice").is_none(), "names are matched exactly");
    }

    #[test]
    fn names_are_found_with_or_without_their_domain() {
        let p = Priorities::parse(
            "alice 1\ngroup_a.bob@x.org 2\nbob@y.org 3\nbob@x.org 4\ncarol@x.org 5\ncarol 6\n",
            "f",
        )
        .unwrap();
        let real = |n: &str| p.get(n).map(|e| e.real);
        assert_eq!(real("alice@x.org"), Some(1.0), "a line without a domain");
        assert_eq!(real("group_a.bob@x.org"), Some(2.0));
        assert_eq!(real("group_a.bob"), Some(2.0), "a name without a domain");
        assert_eq!(real("group_a.bob@z.org"), None, "another domain");
        assert_eq!(real("bob"), Some(3.0), "the first line of that name");
        assert_eq!(real("bob@x.org"), Some(4.0), "the exact name first");
        assert_eq!(real("carol@x.org"), Some(5.0));
        assert_eq!(real("carol"), Some(6.0));
        assert_eq!(real("carol@z.org"), Some(6.0));
        let unfound = p.unfound(["alice@x.org", "group_a.bob", "bob@x.org", "carol@x.org"]);
        let lines: Vec<(u32, &str)> = unfound.iter().map(|u| (u.line, u.name.as_str())).collect();
        assert_eq!(lines, [(3, "bob@y.org"), (6, "carol")]);
        assert_eq!(p.len(), 6);
    }

    #[test]
    fn bad_lines_name_file_line_and_column() {
        for (text, want) in [
            ("alice\n", "f:1:6: expected a real priority"),
            (
                "ok 1\nbob x\n",
                "f:2:5: expected a real priority (a number from 0 to 1e100), found \"x\"",
            ),
            ("bob 1 2 3 4 5 6\n", "f:1:15: expected at most"),
            ("bob 1 2 3 -4\n", "f:1:11: expected a floor"),
            (
                "bob 1 2 3 4 x\n",
                "f:1:13: expected a ceiling (or -1 for none)",
            ),
            ("bob 1 -2\n", "f:1:7: expected a priority factor"),
            ("bob 1\nbob 2\n", "f:2:1: \"bob\" is listed twice"),
            ("bob 1 1 nan\n", "f:1:9: expected a weighted usage"),
            (
                "bob 1e101\n",
                "f:1:5: expected a real priority (a number from 0 to 1e100)",
            ),
            ("bob 1 inf\n", "f:1:7: expected a priority factor"),
        ] {
            let e = Priorities::parse(text, "f").unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }
}
