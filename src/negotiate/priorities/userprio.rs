//! `condor_userprio -l` as it prints it (`src/condor_tools/user_prio.cpp`),
//! read into [`Priorities`]. The accountant's state comes in two layouts of
//! old-syntax ads (`Accountant::ReportState`):
//!
//! - the legacy one ad of numbered attributes, `Name1`, `Priority1`, ...,
//!   `NumSubmittors` (what `-l` prints by default, and `-legacy`), taken apart
//!   per number as `ConvertLegacyUserprioAdToAdList` does;
//! - one ad per submitter and group, separated by blank lines (`-modular`,
//!   and what a newer negotiator answers).
//!
//! For each submitter: `Name`; `Priority`, the *effective* priority
//! (`Accountant::GetPriority` returns real x factor), so the real priority is
//! `Priority / PriorityFactor`; `PriorityFactor`; `WeightedResourcesUsed`, the
//! weighted usage; `Floor` and `Ceiling` when set. Rows with
//! `IsAccountingGroup = true` are groups, not submitters: skipped.

use super::{Priorities, PrioritiesError, PriorityEntry, MAX_AMOUNT};
use crate::ad::ClassAd;
use classad_vm::Value;
use std::sync::Arc;

/// The layout of a priorities text, from its first significant line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `Name = value` lines: `condor_userprio -l`.
    Ads,
    /// `condor_userprio`'s table (without `-l`), seen at this 1-based line.
    Table(u32),
    /// Lines `<submitter> <numbers>`.
    Plain,
}

/// The layout of `text`: its first line that is neither blank nor a `#`
/// comment decides. The table opens with `Last Priority Update:` (`PrintInfo`)
/// or, printed without it, with a heading row of its column titles.
pub fn layout(text: &str) -> Layout {
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // A heading row names its columns (`PrintInfo`'s titles): a plain
        // line of a submitter named `User` or `Group` has numbers instead.
        let first = line.split_whitespace().next().unwrap_or("");
        let heading = (first == "User" || first == "Group")
            && ["Name", "Priority", "Quota", "Effective"]
                .iter()
                .any(|t| line.contains(t));
        if line.starts_with("Last Priority Update:") || heading || line.starts_with("----") {
            return Layout::Table(i as u32 + 1);
        }
        let is_assignment = line.split_once('=').is_some_and(|(name, _)| {
            let name = name.trim();
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        });
        return if is_assignment {
            Layout::Ads
        } else {
            Layout::Plain
        };
    }
    Layout::Plain
}

/// Reads `condor_userprio -l` output (either layout).
pub fn parse(text: &str, file: &str) -> Result<Priorities, PrioritiesError> {
    let rows = report_rows(text, file)?.rows;
    let mut p = Priorities::default();
    for row in &rows {
        let (ad, line_of) = (&row.ad, |attr: &str| row.line_of(attr));
        if matches!(get(ad, "IsAccountingGroup"), Value::Bool(true)) {
            continue;
        }
        let name = match get(ad, "Name") {
            Value::Str(s) if !s.as_str().is_empty() => s.as_str().to_string(),
            _ => {
                let what = "a submitter's ad has no Name (a string)";
                return Err(error(file, line_of("Name"), what));
            }
        };
        let row_line = line_of("Name");
        let number = |attr: &str, line: u32| -> Result<Option<f64>, PrioritiesError> {
            match get(ad, attr) {
                Value::Undefined => Ok(None),
                v => match v.as_f64_promoted() {
                    Some(x) if x.is_finite() && x.abs() <= MAX_AMOUNT => Ok(Some(x)),
                    _ => Err(error(
                        file,
                        line,
                        &format!(
                            "{name:?}: {attr} is not a number from -{MAX_AMOUNT:e} to {MAX_AMOUNT:e}"
                        ),
                    )),
                },
            }
        };
        let priority = number("Priority", line_of("Priority"))?;
        let factor_line = line_of("PriorityFactor");
        let factor = number("PriorityFactor", factor_line)?;
        let (priority, factor) = match (priority, factor) {
            (Some(p), Some(f)) if p >= 0.0 && f >= 1.0 => (p, f),
            (None, _) => {
                let what = format!("{name:?}: no Priority (the effective priority)");
                return Err(error(file, row_line, &what));
            }
            _ => {
                let what = format!(
                    "{name:?}: the real priority is Priority / PriorityFactor, which needs a \
                     Priority of 0 or more and a PriorityFactor of at least 1"
                );
                return Err(error(file, factor_line, &what));
            }
        };
        let usage_line = line_of("WeightedResourcesUsed");
        let usage = number("WeightedResourcesUsed", usage_line)?.unwrap_or(0.0);
        if usage < 0.0 {
            let what = format!("{name:?}: WeightedResourcesUsed is below 0");
            return Err(error(file, usage_line, &what));
        }
        // Accountant::GetFloor and GetCeiling: a floor below 1 and a negative
        // ceiling mean none.
        let floor = number("Floor", line_of("Floor"))?.filter(|f| *f > 0.0);
        let ceiling = number("Ceiling", line_of("Ceiling"))?.filter(|c| *c >= 0.0);
        let entry = PriorityEntry {
            real: priority / factor,
            factor: Some(factor),
            usage,
            floor,
            ceiling,
        };
        p.push(name, entry, row_line)
            .map_err(|m| error(file, row_line, &m))?;
    }
    Ok(p)
}

fn error(file: &str, line: u32, message: &str) -> PrioritiesError {
    PrioritiesError {
        file: file.to_string(),
        line,
        column: 1,
        message: message.to_string(),
    }
}

/// One submitter's or group's row of a `condor_userprio -l` text: its ad,
/// and the line each of its attributes is defined at.
pub(crate) struct Row {
    /// Its attributes, the legacy layout's numbers taken off.
    pub ad: Arc<ClassAd>,
    /// By attribute name in lower case (with and without its number).
    lines: ahash::AHashMap<String, u32>,
    first_line: u32,
}

impl Row {
    /// The line where `attr` is defined, else the row's first.
    pub(crate) fn line_of(&self, attr: &str) -> u32 {
        let attr = attr.to_ascii_lowercase();
        self.lines.get(&attr).copied().unwrap_or(self.first_line)
    }
}

/// A `condor_userprio -l` text read.
pub(crate) struct Report {
    /// One per submitter or group.
    pub rows: Vec<Row>,
    /// `LastUpdate`, when given.
    pub last_update: Option<i64>,
    /// In the legacy layout, the one ad itself (whose attributes without a
    /// number are the report's own).
    pub legacy: Option<Arc<ClassAd>>,
}

/// The rows of a `condor_userprio -l` text, from either layout (see the
/// module docs).
pub(crate) fn report_rows(text: &str, file: &str) -> Result<Report, PrioritiesError> {
    let ads = read_ads(text, file)?;
    let last_update = ads
        .iter()
        .find_map(|ad| match get(&Arc::new(ad.clone()), "LastUpdate") {
            Value::Int(t) => Some(t),
            _ => None,
        });
    let mut report = None;
    let rows = match ads.as_slice() {
        [one] if is_legacy(one) => {
            report = Some(Arc::new(one.clone()));
            legacy_rows(one)
        }
        _ => ads
            .into_iter()
            .map(|ad| {
                let names = ad.iter().map(|(n, _)| n.to_string()).collect();
                (Arc::new(ad), names)
            })
            .collect(),
    };
    let lines = DefinitionLines::of(text);
    let mut seen = ahash::AHashMap::<String, usize>::new();
    let rows = rows
        .into_iter()
        .map(|(ad, names)| {
            // A row defines an attribute once, so its k-th definition in the
            // text is the k-th row's that has it.
            let mut row_lines = ahash::AHashMap::<String, u32>::new();
            for written in names {
                let k = seen.entry(written.to_ascii_lowercase()).or_insert(0);
                let line = lines.nth(&written, *k).unwrap_or(1);
                *k += 1;
                row_lines.insert(legacy_base(&written).to_ascii_lowercase(), line);
                row_lines.insert(written.to_ascii_lowercase(), line);
            }
            let first_line = row_lines.values().copied().min().unwrap_or(1);
            Row {
                ad,
                lines: row_lines,
                first_line,
            }
        })
        .collect();
    Ok(Report {
        rows,
        last_update,
        legacy: report,
    })
}

/// The old-syntax ads of a `condor_userprio -l` text.
fn read_ads(text: &str, file: &str) -> Result<Vec<ClassAd>, PrioritiesError> {
    crate::ad::read::read_ads_as(text, file, crate::ad::read::Format::Old).map_err(|e| {
        PrioritiesError {
            file: e.file,
            line: e.line,
            column: e.column,
            message: e.message,
        }
    })
}

/// `name`'s value in `ad` (evaluated: `condor_userprio` prints literals).
pub(crate) fn get(ad: &Arc<ClassAd>, name: &str) -> Value {
    crate::engine::eval_attr_once(ad, name, None).unwrap_or(Value::Error)
}

/// True when `ad` is the legacy report: numbered names (`Name1`), or none
/// at all but its count (`NumSubmittors = 0`, an accountant with no records).
fn is_legacy(ad: &ClassAd) -> bool {
    ad.contains("NumSubmittors")
        || ad.iter().any(|(n, _)| {
            let base = legacy_base(n);
            base.len() < n.len() && base.eq_ignore_ascii_case("Name")
        })
}

/// `name` less its trailing number (`Priority12` -> `Priority`).
fn legacy_base(name: &str) -> &str {
    name.trim_end_matches(|c: char| c.is_ascii_digit())
}

/// The rows of the legacy report, in number order: per number `N`, the
/// attributes `<attr>N` as `<attr>` (`ConvertLegacyUserprioAdToAdList`),
/// with the names as written for finding their lines.
fn legacy_rows(ad: &ClassAd) -> Vec<(Arc<ClassAd>, Vec<String>)> {
    let mut rows: std::collections::BTreeMap<u64, (ClassAd, Vec<String>)> = Default::default();
    for (name, expr) in ad.iter() {
        let base = legacy_base(name);
        let Ok(n) = name[base.len()..].parse::<u64>() else {
            continue;
        };
        if base.is_empty() || n == 0 {
            continue;
        }
        let row = rows.entry(n).or_default();
        row.0.insert(base, expr.to_expr_ref());
        row.1.push(name.to_string());
    }
    rows.into_values().map(|(a, n)| (Arc::new(a), n)).collect()
}

/// Where each attribute is defined in the text (`Name = ...` lines), to put
/// a line in an error.
struct DefinitionLines {
    by_name: ahash::AHashMap<String, Vec<u32>>,
}

impl DefinitionLines {
    fn of(text: &str) -> DefinitionLines {
        let mut by_name: ahash::AHashMap<String, Vec<u32>> = Default::default();
        for (i, line) in text.lines().enumerate() {
            if let Some((name, _)) = line.split_once('=') {
                let name = name.trim();
                if !name.is_empty() && !name.contains(char::is_whitespace) {
                    by_name
                        .entry(name.to_ascii_lowercase())
                        .or_default()
                        .push(i as u32 + 1);
                }
            }
        }
        DefinitionLines { by_name }
    }

    /// The line of the `k`-th definition of `name` (from 0).
    fn nth(&self, name: &str, k: usize) -> Option<u32> {
        self.by_name
            .get(&name.to_ascii_lowercase())
            .and_then(|l| l.get(k).copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `condor_userprio -l` by default: `Accountant::ReportState`'s one ad,
    /// groups first (`ReportGroups`, breadth first), then each submitter.
    const LEGACY: &str = "LastUpdate = 1764300000
Name1 = \"<none>\"
IsAccountingGroup1 = true
AccountingGroup1 = \"<none>\"
Priority1 = 0.0
PriorityFactor1 = 0.0
WeightedResourcesUsed1 = 12.0
Name2 = \"group_cms\"
IsAccountingGroup2 = true
AccountingGroup2 = \"group_cms\"
Priority2 = 0.0
PriorityFactor2 = 1000.0
Name3 = \"group_cms.alice@example.org\"
IsAccountingGroup3 = false
AccountingGroup3 = \"group_cms\"
Priority3 = 1500.0
Ceiling3 = -1
Floor3 = 0
PriorityFactor3 = 1000.0
ResourcesUsed3 = 8
WeightedResourcesUsed3 = 8.0
AccumulatedUsage3 = 1234.5
WeightedAccumulatedUsage3 = 1234.5
SubmitterShare3 = 0.0
SubmitterLimit3 = 0.0
BeginUsageTime3 = 1764000000
LastUsageTime3 = 1764300000
Name4 = \"bob@example.org\"
IsAccountingGroup4 = false
AccountingGroup4 = \"<none>\"
Priority4 = 0.5
Ceiling4 = 20
Floor4 = 4
PriorityFactor4 = 1.0
ResourcesUsed4 = 4
WeightedResourcesUsed4 = 3.5
NumSubmittors = 4
";

    /// `condor_userprio -l -modular`: `user_prio.cpp` `PrintModularAds`, a
    /// blank line and then each ad (`Accountant::ReportState` for a query,
    /// `MyType` and `TargetType` removed).
    const MODULAR: &str = "
AccountingGroup = \"<none>\"
IsAccountingGroup = true
Name = \"<none>\"
Priority = 0.0
WeightedResourcesUsed = 12.0

AccountingGroup = \"group_cms\"
BeginUsageTime = 1764000000
Ceiling = -1
Floor = 0
IsAccountingGroup = false
LastUpdate = 1764300000
LastUsageTime = 1764300000
Name = \"group_cms.alice@example.org\"
Priority = 1500.0
PriorityFactor = 1000.0
ResourcesUsed = 8
WeightedAccumulatedUsage = 1234.5
WeightedResourcesUsed = 8.0

AccountingGroup = \"<none>\"
Ceiling = 20
Floor = 4
IsAccountingGroup = false
Name = \"bob@example.org\"
Priority = 0.5
PriorityFactor = 1.0
WeightedResourcesUsed = 3.5
";

    fn entries(p: &Priorities) -> Vec<(String, PriorityEntry)> {
        p.iter().map(|(n, e)| (n.to_string(), *e)).collect()
    }

    #[test]
    fn both_layouts_give_real_priority_factor_usage_floor_and_ceiling() {
        let want = vec![
            (
                "group_cms.alice@example.org".to_string(),
                PriorityEntry {
                    real: 1.5,
                    factor: Some(1000.0),
                    usage: 8.0,
                    floor: None,
                    ceiling: None,
                },
            ),
            (
                "bob@example.org".to_string(),
                PriorityEntry {
                    real: 0.5,
                    factor: Some(1.0),
                    usage: 3.5,
                    floor: Some(4.0),
                    ceiling: Some(20.0),
                },
            ),
        ];
        for (text, what) in [(LEGACY, "legacy"), (MODULAR, "modular")] {
            assert_eq!(layout(text), Layout::Ads, "{what}");
            let p = Priorities::parse(text, "userprio").unwrap();
            assert_eq!(entries(&p), want, "{what}: group rows skipped");
            assert_eq!(p.get("group_cms.alice").map(|e| e.real), Some(1.5));
        }
    }

    #[test]
    fn the_table_is_refused_with_a_pointer_to_dash_l() {
        // user_prio.cpp, PrintInfo: the heading, then the column titles.
        let table = "Last Priority Update: 11/28 21:00\n\
                     Group                          Effective   Priority  Wghted  Total Usage\n\
                     User Name                       Priority    Factor  In Use  (wghted-hrs)\n";
        assert_eq!(layout(table), Layout::Table(1));
        let e = Priorities::parse(table, "t").unwrap_err().to_string();
        assert!(
            e.starts_with("t:1:1: this is condor_userprio's table")
                && e.contains("condor_userprio -l"),
            "{e}"
        );
        let no_heading = "\nUser Name   Effective\n";
        assert_eq!(layout(no_heading), Layout::Table(2));
        assert_eq!(layout("# c\nalice 1 2\n"), Layout::Plain);
        assert_eq!(layout("alice@x.org 1\n"), Layout::Plain);
        assert_eq!(
            layout("User 2.5 10\n"),
            Layout::Plain,
            "a submitter named User"
        );
    }

    #[test]
    fn bad_rows_name_their_line() {
        for (text, want) in [
            (
                "Name = \"a@d\"\nPriority = \"x\"\nPriorityFactor = 1.0\n",
                "f:2:1: \"a@d\": Priority is not a number",
            ),
            (
                "Name = \"a@d\"\nPriority = 5.0\n",
                "f:1:1: \"a@d\": the real priority is Priority / PriorityFactor",
            ),
            (
                "Name = \"a@d\"\nPriorityFactor = 0.0\nPriority = 5.0\n",
                "f:2:1: \"a@d\": the real priority is Priority / PriorityFactor",
            ),
            (
                "Name = \"a@d\"\nPriority = 5.0\nPriorityFactor = 1.0\n\n\
                 Name = \"b@d\"\nPriority = 5.0\nPriorityFactor = 1.0\nWeightedResourcesUsed = -1\n",
                "f:8:1: \"b@d\": WeightedResourcesUsed is below 0",
            ),
            ("Priority = 5.0\nPriorityFactor = 1.0\n", "f:1:1: a submitter's ad has no Name"),
            (
                "Name1 = \"a@d\"\nPriority1 = 1.0\nPriorityFactor1 = 1.0\n\
                 Name2 = \"a@d\"\nPriority2 = 1.0\nPriorityFactor2 = 1.0\n",
                "f:4:1: \"a@d\" is listed twice",
            ),
            ("Name = \"a@d\"\nPriority = (\n", "f:2:13: in the value of Priority"),
        ] {
            let e = Priorities::parse(text, "f").unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }
}
