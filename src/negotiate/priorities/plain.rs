//! The plain priorities file: one line per submitter, `<submitter> <real
//! priority> [<priority factor> [<weighted usage> [<floor> [<ceiling>]]]]`, as
//! `classad gen-pool --out-priorities` writes it. The columns are
//! `condor_userprio`'s: the real priority is its "Real Priority" column (`-l`:
//! `Priority / PriorityFactor`), the factor its "Priority Factor"
//! (`PriorityFactor`), the weighted usage its "Wghted In Use"
//! (`WeightedResourcesUsed`, slots in use), not its "Total Usage
//! (wghted-hrs)" (`WeightedAccumulatedUsage`); the floor and ceiling are what
//! `condor_userprio -setfloor` and `-setceiling` set (`Floor`, `Ceiling`:
//! a floor of 0 and a negative ceiling are none).

use super::{Priorities, PrioritiesError, PriorityEntry, MAX_AMOUNT};

/// Reads the plain form (`#` starts a comment; blank lines are skipped).
pub fn parse(text: &str, file: &str) -> Result<Priorities, PrioritiesError> {
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
        if fields.len() > 6 {
            let what = "expected at most: name, real priority, priority factor, usage, floor, \
                        ceiling";
            return Err(error(fields[6].0, what.into()));
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
            floor: if fields.len() > 4 {
                Some(number(4, "floor")?).filter(|f| *f > 0.0)
            } else {
                None
            },
            ceiling: match fields.get(5) {
                // -1 is how condor_userprio -setceiling takes a ceiling away.
                Some((_, text)) if text.parse::<f64>().is_ok_and(|c| c < 0.0) => None,
                Some(_) => Some(number(5, "ceiling (or -1 for none)")?),
                None => None,
            },
        };
        let name = fields[0].1.to_string();
        p.push(name, entry, line)
            .map_err(|message| error(fields[0].0, message))?;
    }
    Ok(p)
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
