//! The text of `classad analyze`: condor_q's `-better-analyze` report
//! (`printJobRunAnalysis`, `doJobMatchAnalysisToBuffer`,
//! `appendJobMatchTotalsToBuffer` and `doSlotRunAnalysisToBuffer` in HTCondor's
//! `src/condor_q.V6/jobmatch.cpp`; `PrettyPrintExprTree` and the table of
//! `AnalyzeRequirementsForEachTarget` in `src/condor_utils/expr_analyze.cpp`),
//! line for line where it applies to ad files, with the "Suggestions" table
//! condor_q printed before HTCondor 8.5.8 and a table of a slot's conditions
//! added.

use super::analyze_cmd::slot_name;
use super::match_output::job_id_parts;
use crate::ad::ClassAd;
use crate::eval::{eval_attr, Semantics};
use crate::matching::analysis::attributes::Shown;
use crate::matching::analysis::steps::Row;
use crate::matching::analysis::{JobAnalysis, SlotAnalysis, SLOT_INLINE};
use crate::syntax::ast::ExprRef;
use crate::syntax::unparse_node;
use classad_vm::Value;
use std::io::{self, Write};
use std::sync::Arc;

/// The line condor_q prints before the analyses of a source of jobs.
pub fn banner(out: &mut impl Write, jobs: &str) -> io::Result<()> {
    write!(out, "\n\n-- Jobads: {jobs}\n")
}

/// A job's analysis, as `condor_q -better-analyze` prints it; `group` is the
/// autocluster the job stands for and its number of jobs, when it stands for one.
pub fn job(
    out: &mut impl Write,
    job: &Arc<ClassAd>,
    a: &JobAnalysis,
    slots: &[Arc<ClassAd>],
    group: Option<(u32, usize)>,
    width: usize,
) -> io::Result<()> {
    let (cluster, proc) = job_id_parts(job);
    let id = format!("{cluster}.{proc:03}");
    let short_id = format!("{cluster:03}.{proc:03}");
    if let Some((ac, n)) = group {
        let s = if n == 1 { "" } else { "s" };
        write!(
            out,
            "-- Autocluster {ac} : {n} job{s}, analyzed as job {cluster}.{proc}\n\n"
        )?;
    }
    let mut s = String::new();
    match &a.requirements {
        None => {
            s += &format!("Job {id} has no Requirements expression: every slot rejects it.\n");
        }
        Some(req) => {
            s += &format!("The Requirements expression for job {id} is\n\n    ");
            s += &pretty(&text(req), 4, width);
            s += "\n\n";
            match &a.reduction {
                None => {
                    s += &format!(
                        "It has more than {} steps: they are not analyzed one by one.\n\n",
                        crate::matching::analysis::steps::MAX_STEPS
                    );
                }
                Some(r) => {
                    numbered(&mut s, &r.numbered);
                    s += &format!("Job {id} defines the following attributes:\n\n");
                    shown(&mut s, &a.attributes);
                    if let Some((name, attrs)) = &a.slot_attributes {
                        s += &format!("\n{name} has the following attributes:\n\n");
                        shown(&mut s, attrs);
                    }
                    s += "\n";
                    s += &format!(
                        "The Requirements expression for job {id} reduces to these conditions:\n\n"
                    );
                    s += &table(&r.rows, "Slot");
                }
            }
            if !a.conjuncts.is_empty() {
                s += "\nSuggestions:\n\n";
                let rows: Vec<(String, String, String)> = a
                    .conjuncts
                    .iter()
                    .map(|c| {
                        let suggestion = c
                            .suggestion
                            .as_ref()
                            .map_or(String::new(), |s| s.to_string());
                        (c.text.clone(), c.matched.to_string(), suggestion)
                    })
                    .collect();
                let keys: Vec<usize> = a.conjuncts.iter().map(|c| c.matched).collect();
                s += &conditions(("Slots Matched", "Suggestion"), rows, &keys);
            }
        }
    }
    if let Some(w) = universe_warning(job) {
        s += "\n";
        s += w;
        s += "\n";
    }
    s += "\n";
    let local = is_local(job);
    if !local {
        totals(&mut s, &short_id, a, slots.len());
    }
    s += "\n";
    if let Some(status) = job_status(job) {
        s += &format!("\n{short_id}:  {status}\n\n");
    }
    out.write_all(s.as_bytes())
}

/// The run analysis summary (`appendJobMatchTotalsToBuffer`, without user
/// priorities).
fn totals(s: &mut String, id: &str, a: &JobAnalysis, slots: usize) {
    let c = &a.counts;
    *s += &format!(
        "\n{id}:  Run analysis summary ignoring user priority.  Of {slots} slots on {} machines,\n",
        c.machines
    );
    *s += &format!(
        "  {:5} slots are rejected by your job's requirements\n",
        c.rejected_by_job
    );
    *s += &format!(
        "  {:5} slots reject your job because of their own requirements\n",
        c.rejecting_job
    );
    if c.running_your_jobs > 0 {
        *s += &format!(
            "  {:5} slots match and are already running your jobs\n",
            c.running_your_jobs
        );
    }
    if c.running_your_jobs + c.serving_other_users > 0 {
        *s += &format!(
            "  {:5} slots match but are serving other users\n",
            c.serving_other_users
        );
    }
    if c.offline > 0 {
        *s += &format!("  {:5} slots match but are currently offline\n", c.offline);
    }
    *s += &format!(
        "  {:5} slots match and are willing to run your job\n",
        c.willing
    );
    let accepted = slots - c.rejected_by_job;
    if accepted == 0 || c.matching == 0 {
        *s += "\nWARNING:  Be advised:\n";
        if accepted == 0 {
            *s += "   No machines matched the job's constraints\n";
        } else {
            *s += "   Job did not match any machines' constraints\n\
                   \x20  To see why, pick a machine that you think should match and add\n\
                   \x20    --reverse <name>\n\
                   \x20  to your query.\n";
        }
    }
}

/// A slot's analysis, as `condor_q -better-analyze -reverse` prints it.
pub fn slot(
    out: &mut impl Write,
    slot: &Arc<ClassAd>,
    a: &SlotAnalysis,
    width: usize,
) -> io::Result<()> {
    let name = slot_name(slot);
    if a.offline {
        let short: String = name.chars().take(24).collect();
        return writeln!(out, "{short:<24}  is offline");
    }
    let c = &a.counts;
    let mut s = format!(
        "\n-- Slot: {name} : Analyzing matches for {} Jobs in {} autoclusters\n",
        c.jobs, c.autoclusters
    );
    match &a.requirements {
        None => {
            s += "\nThis slot has no Requirements expression: it accepts no job.\n";
        }
        Some(req) => {
            s += "\nThe Requirements expression for this slot is\n\n    ";
            s += &pretty(&text(req), 4, width);
            for name in SLOT_INLINE {
                if let Some(e) = slot.get(name) {
                    s += &format!("\n\n  {name} is\n    ");
                    s += &pretty(&text(&e.to_expr_ref()), 4, width);
                }
            }
            s += "\n\n";
            match &a.reduction {
                None => {
                    s += &format!(
                        "It has more than {} steps: they are not analyzed one by one.\n",
                        crate::matching::analysis::steps::MAX_STEPS
                    );
                }
                Some(r) => {
                    numbered(&mut s, &r.numbered);
                    s += "This slot defines the following attributes:\n\n";
                    shown(&mut s, &a.attributes);
                    if let Some((name, attrs)) = &a.job_attributes {
                        s += &format!("\n{name} has the following attributes:\n\n");
                        shown(&mut s, attrs);
                    }
                    s += "\nThe Requirements expression for this slot reduces to these conditions:\n\n";
                    s += &table(&r.rows, "Cluster");
                }
            }
            if !a.conjuncts.is_empty() {
                s += "\nConditions:\n\n";
                let rows: Vec<(String, String, String)> = a
                    .conjuncts
                    .iter()
                    .map(|c| {
                        (
                            c.text.clone(),
                            c.autoclusters.to_string(),
                            c.jobs.to_string(),
                        )
                    })
                    .collect();
                let keys: Vec<usize> = a.conjuncts.iter().map(|c| c.jobs).collect();
                s += &conditions(("Clusters Matched", "Jobs Matched"), rows, &keys);
            }
        }
    }
    let share = if c.jobs == 0 {
        0.0
    } else {
        100.0 * c.matching as f64 / c.jobs as f64
    };
    s += &format!(
        "\n{name}: Run analysis summary of {} jobs.\n{:5} ({share:.2} %) match both slot and job requirements.\n{:5} match the requirements of this slot.\n{:5} have job requirements that match this slot.\n",
        c.jobs, c.matching, c.slot_accepts, c.job_accepts
    );
    out.write_all(s.as_bytes())
}

/// HTCondor's step labels: `[3]` padded, cut to `width + 2` characters.
fn step_label(ix: usize, width: usize) -> String {
    let mut s = format!("[{ix}]      ");
    s.truncate(width + 2);
    s
}

/// The steps as numbered before the reduction (`PrintNumberedExprTreeClauses`),
/// then a blank line.
fn numbered(s: &mut String, steps: &[String]) {
    for (i, step) in steps.iter().enumerate() {
        *s += &format!("    {} : {step}\n", step_label(i, 4));
    }
    *s += "\n";
}

/// Attribute lines: `    Name = value (unit)`.
fn shown(s: &mut String, attrs: &[Shown]) {
    for a in attrs {
        *s += &format!("    {} = {}", a.name, a.value);
        if let Some(u) = a.unit {
            *s += &format!(" ({u})");
        }
        *s += "\n";
    }
}

/// The reduced table, its counts of `target`s (`Slot`, `Cluster`).
fn table(rows: &[Row], target: &str) -> String {
    let mut s = format!("       {target:>5}s\n");
    s += "Step   Matched  Condition\n";
    s += "----- --------- ---------\n";
    for r in rows {
        s += &format!(
            "{} {:>9}  {}\n",
            step_label(r.step, 3),
            r.matched.text(),
            r.condition
        );
    }
    s
}

/// A table of conditions in the layout of condor_q's old "Suggestions" table:
/// numbered from 1 in increasing order of `keys` (ties in order), a condition
/// too long for its column on a line of its own. HTCondor moved a condition to
/// its own line from 46 characters on, so that one of 34 to 45 ran into the
/// count; here it moves as soon as it fills its column of 34. Lines end without
/// trailing blanks.
fn conditions(heads: (&str, &str), rows: Vec<(String, String, String)>, keys: &[usize]) -> String {
    let mut s = String::new();
    let line = |s: &mut String, text: String| {
        *s += text.trim_end();
        *s += "\n";
    };
    line(
        &mut s,
        format!("    {:<34}{:<20}{}", "Condition", heads.0, heads.1),
    );
    let dashes = |h: &str| "-".repeat(h.len());
    line(
        &mut s,
        format!(
            "    {:<34}{:<20}{}",
            "---------",
            dashes(heads.0),
            dashes(heads.1)
        ),
    );
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&i| keys[i]);
    for (n, i) in order.into_iter().enumerate() {
        let (cond, count, last) = &rows[i];
        let n = n + 1;
        if cond.chars().count() < 34 {
            line(&mut s, format!("{n:<4}{cond:<34}{count:<20}{last}"));
        } else {
            line(&mut s, format!("{n:<4}{cond}"));
            line(&mut s, format!("{:38}{count:<20}{last}", ""));
        }
    }
    s
}

/// An expression's one-line text.
fn text(e: &ExprRef) -> String {
    let mut s = String::new();
    unparse_node(&e.tree, e.id, &mut s);
    s
}

/// `text` wrapped for a display `width` wide, as HTCondor's
/// `PrettyPrintExprTree` wraps it: at the first blank after a `&&` or `||` once
/// a line reaches the width, each new line indented to the depth of parentheses
/// there (two per level past `indent`, which the caller has already printed on
/// the first line). HTCondor's quirks are kept: parentheses inside strings count,
/// and a line that starts with no indent restarts its count at 0.
pub fn pretty(text: &str, indent: usize, width: usize) -> String {
    // HTCondor edits its buffer in place; here the lines already finished go to
    // `done` and only the line being read is edited, so that a long expression
    // costs time in proportion to its length.
    let width = width as i64;
    let mut indent = indent as i64;
    if indent > width {
        indent = width * 2 / 3;
    }
    let mut done: Vec<u8> = Vec::with_capacity(text.len() + text.len() / 8);
    // The current line, from its start to the character before the one read.
    let mut line: Vec<u8> = Vec::new();
    // Where in `line` the blank after the last `&&` or `||` is (0: none yet).
    let mut last_and = 0usize;
    let mut indent_at_last_and = indent;
    let mut pos = indent;
    let mut was_and = false;
    let mut prev = 0u8;
    for &ch in text.as_bytes() {
        let mut is_and = false;
        if (ch == b'&' || ch == b'|') && prev == ch {
            is_and = true;
        } else if ch == b'(' {
            indent += 2;
        } else if ch == b')' {
            indent -= 2;
        }
        if pos >= width && last_and != 0 {
            // The blank becomes the line's end; the rest starts the next line,
            // indented as the parentheses were at the `&&`.
            done.extend_from_slice(&line[..last_and]);
            done.push(b'\n');
            let rest = line.split_off(last_and + 1);
            line.clear();
            pos = 0;
            if indent_at_last_and > 0 {
                line.resize(indent_at_last_and as usize, b' ');
            }
            line.extend_from_slice(&rest);
            if indent_at_last_and > 0 {
                pos = line.len() as i64;
            }
            last_and = 0;
            indent_at_last_and = indent;
        }
        if was_and {
            last_and = line.len();
            indent_at_last_and = indent;
        }
        line.push(ch);
        prev = ch;
        pos += 1;
        was_and = is_and;
    }
    done.extend_from_slice(&line);
    String::from_utf8_lossy(&done).into_owned()
}

/// A job's universe, as HTCondor reads it (0, no universe, when missing).
fn universe(job: &Arc<ClassAd>) -> i64 {
    match eval_attr(job, "JobUniverse", None, Semantics::Htcondor) {
        Ok(Value::Int(u)) => u,
        Ok(Value::Real(r)) if r.is_finite() => r as i64,
        _ => 0,
    }
}

/// Local (12) and scheduler (7) universe jobs run on the schedd, whose ad the
/// analysis would need: HTCondor gives them no summary of slots.
fn is_local(job: &Arc<ClassAd>) -> bool {
    matches!(universe(job), 7 | 12)
}

/// The warning HTCondor adds for a job whose universe makes matchmaking
/// analysis incomplete or meaningless.
pub fn universe_warning(job: &Arc<ClassAd>) -> Option<&'static str> {
    match universe(job) {
        // Vanilla, Java, parallel, VM.
        5 | 10 | 11 | 13 => None,
        9 => {
            let resource = match eval_attr(job, "GridResource", None, Semantics::Htcondor) {
                Ok(Value::Str(s)) => s.as_str().to_string(),
                _ => String::new(),
            };
            (!resource.contains("$$")).then_some(
                "WARNING: Analysis is only meaningful for Grid universe jobs using matchmaking.",
            )
        }
        8 => Some("WARNING: Analysis is meaningless for MPI universe jobs."),
        7 | 12 => Some("WARNING: Analysis is not complete for Scheduler or Local universe jobs."),
        _ => Some("WARNING: Job universe unknown.  Analysis may not be meaningful."),
    }
}

/// What HTCondor says of a job that is not simply idle (from its `JobStatus`),
/// and of a local or scheduler universe job, which needs the schedd's ad.
pub fn job_status(job: &Arc<ClassAd>) -> Option<String> {
    let sem = Semantics::Htcondor;
    let mut status = match eval_attr(job, "JobStatus", None, sem) {
        Ok(Value::Int(2 | 6 | 7)) => "Job is running.".to_string(),
        Ok(Value::Int(5)) => {
            let mut s = "Job is held.".to_string();
            if let Ok(Value::Str(r)) = eval_attr(job, "HoldReason", None, sem) {
                if !r.as_str().is_empty() {
                    s += "\n\nHold reason: ";
                    s += r.as_str();
                }
            }
            s
        }
        Ok(Value::Int(3)) => "Job is removed.".to_string(),
        Ok(Value::Int(4)) => "Job is completed.".to_string(),
        _ => String::new(),
    };
    if is_local(job) {
        if !status.is_empty() {
            status += "\n\n";
        }
        status += "WARNING: A schedd ClassAd is needed to do analysis for scheduler or Local universe jobs.\n";
    }
    (!status.is_empty()).then_some(status)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::analysis::steps::Matched;

    #[test]
    fn long_expressions_wrap_after_and_as_htcondor_wraps_them() {
        // A line breaks at the last `&&` before it reaches the width (the
        // caller printed the first line's indent of 4).
        let req = "(TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) && (TARGET.HasFileTransfer)";
        assert_eq!(
            pretty(req, 4, 80),
            "(TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") &&\n    \
             (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) &&\n    \
             (TARGET.HasFileTransfer)"
        );
        // Short text, and text without && or ||, stay on one line.
        assert_eq!(pretty("TARGET.X", 4, 10), "TARGET.X");
        assert_eq!(pretty(&"x".repeat(100), 4, 80), "x".repeat(100));
        // Inside parentheses, new lines are indented two more per level.
        assert_eq!(
            pretty("(aaaaaaaaaa || bbbbbbbbbb || cccccccccc)", 0, 20),
            "(aaaaaaaaaa ||\n  bbbbbbbbbb ||\n  cccccccccc)"
        );
    }

    #[test]
    fn table_rows_line_up_under_the_heading() {
        let rows = [
            Row {
                step: 0,
                matched: Matched::Count(1),
                condition: "TARGET.Arch == \"X86_64\"".into(),
            },
            Row {
                step: 12,
                matched: Matched::Never,
                condition: "MY.X".into(),
            },
        ];
        assert_eq!(
            table(&rows, "Slot"),
            "        Slots\nStep   Matched  Condition\n----- --------- ---------\n\
             [0]           1  TARGET.Arch == \"X86_64\"\n[12]      never  MY.X\n"
        );
        assert!(table(&[], "Cluster").starts_with("       Clusters\n"));
    }

    #[test]
    fn condition_tables_sort_by_count_and_wrap_long_conditions() {
        let rows = vec![
            ("TARGET.A".to_string(), "5".to_string(), String::new()),
            (
                "TARGET.Memory >= RequestMemory".to_string(),
                "0".to_string(),
                "MODIFY TO 7936".to_string(),
            ),
            ("x".repeat(50), "5".to_string(), "REMOVE".to_string()),
        ];
        let t = conditions(("Slots Matched", "Suggestion"), rows, &[5, 0, 5]);
        let want = format!(
            "    Condition                         Slots Matched       Suggestion\n\
             \x20   ---------                         -------------       ----------\n\
             1   TARGET.Memory >= RequestMemory    0                   MODIFY TO 7936\n\
             2   TARGET.A                          5\n\
             3   {}\n\
             \x20                                     5                   REMOVE\n",
            "x".repeat(50)
        );
        assert_eq!(t, want);
    }

    #[test]
    fn step_labels_are_cut_to_width() {
        assert_eq!(step_label(0, 3), "[0]  ");
        assert_eq!(step_label(123, 3), "[123]");
        assert_eq!(step_label(4, 4), "[4]   ");
    }
}
