//! The accountant's state a cycle starts from (negotiator.md section 1): per
//! submitter, its real priority, priority factor and weighted usage, read from a
//! priorities file, and the effective priorities HTCondor's accountant derives.

use super::bounds::MAX_AMOUNT;
use std::fmt;

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
}

/// The submitters of a priorities file, by exact name, in file order.
#[derive(Clone, Debug, Default)]
pub struct Priorities {
    entries: Vec<(String, PriorityEntry)>,
    by_name: ahash::AHashMap<String, usize>,
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
    /// Reads lines `<submitter> <real priority> [<priority factor> [<weighted
    /// usage>]]`, each number from 0 to [`MAX_AMOUNT`]; `#` starts a comment;
    /// blank lines are skipped. `file` names the text in errors.
    ///
    /// ```
    /// use classad::negotiate::Priorities;
    /// let p = Priorities::parse("# name prio factor usage\nalice 2.5 100 4\nbob 0.7\n", "prio")?;
    /// assert_eq!(p.get("alice").unwrap().usage, 4.0);
    /// assert_eq!(p.get("bob").unwrap().factor, None);
    /// # Ok::<(), classad::negotiate::PrioritiesError>(())
    /// ```
    pub fn parse(text: &str, file: &str) -> Result<Priorities, PrioritiesError> {
        // A byte-order mark would be part of the first submitter's name.
        let text = crate::ad::read::without_bom(text);
        let mut p = Priorities::default();
        for (i, raw) in text.lines().enumerate() {
            let line = i as u32 + 1;
            let body = raw.split('#').next().unwrap_or("");
            let fields: Vec<(usize, &str)> = fields(body);
            if fields.is_empty() {
                continue;
            }
            let error = |column: usize, message: String| PrioritiesError {
                file: file.to_string(),
                line,
                column: column as u32 + 1,
                message,
            };
            if fields.len() < 2 {
                let column = fields[0].0 + fields[0].1.len();
                return Err(error(
                    column,
                    "expected a real priority after the name".into(),
                ));
            }
            if fields.len() > 4 {
                let what = "expected at most: name, real priority, priority factor, usage";
                return Err(error(fields[4].0, what.into()));
            }
            let number = |k: usize, what: &str| -> Result<f64, PrioritiesError> {
                let (col, text) = fields[k];
                match text.parse::<f64>() {
                    Ok(x) if (0.0..=MAX_AMOUNT).contains(&x) => Ok(x),
                    _ => Err(error(
                        col,
                        format!(
                            "expected a {what} (a number from 0 to {MAX_AMOUNT:e}), found {text:?}"
                        ),
                    )),
                }
            };
            let entry = PriorityEntry {
                real: number(1, "real priority")?,
                factor: if fields.len() > 2 {
                    Some(number(2, "priority factor")?)
                } else {
                    None
                },
                usage: if fields.len() > 3 {
                    number(3, "weighted usage")?
                } else {
                    0.0
                },
            };
            let name = fields[0].1.to_string();
            if p.by_name.contains_key(&name) {
                return Err(error(fields[0].0, format!("{name:?} is listed twice")));
            }
            p.by_name.insert(name.clone(), p.entries.len());
            p.entries.push((name, entry));
        }
        Ok(p)
    }

    /// The entry of `name` (matched exactly).
    pub fn get(&self, name: &str) -> Option<&PriorityEntry> {
        self.by_name.get(name).map(|&i| &self.entries[i].1)
    }

    /// Every submitter listed, in file order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &PriorityEntry)> {
        self.entries.iter().map(|(n, e)| (n.as_str(), e))
    }
}

/// The blank-separated fields of a line, with their byte columns.
fn fields(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((s, &line[s..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, &line[s..]));
    }
    out
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
                usage: 0.0
            })
        );
        assert!(p.get("Alice").is_none(), "names are matched exactly");
    }

    #[test]
    fn bad_lines_name_file_line_and_column() {
        for (text, want) in [
            ("alice\n", "f:1:6: expected a real priority"),
            (
                "ok 1\nbob x\n",
                "f:2:5: expected a real priority (a number from 0 to 1e100), found \"x\"",
            ),
            ("bob 1 2 3 4\n", "f:1:11: expected at most"),
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
