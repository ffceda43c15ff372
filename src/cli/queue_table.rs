//! `condor_q`'s job table (`MyType` "Job"), as `classad query` prints it when no
//! other output is asked for, and its totals line (all that `-total` prints).
//!
//! The columns are those of `jobDefault_PrintFormat` in
//! `src/condor_q.V6/queue.cpp` (the table of `condor_q -nobatch`, and of
//! `condor_q` before batches), as `condor_q` lays them when its output is not a
//! terminal (wide: no column fitted to a screen, spaces that end a row removed):
//!
//! | column | from | layout |
//! |---|---|---|
//! | `ID` | `ClusterId` `%4d.` and `ProcId` `%-3d` | right 5, then 3 with no space |
//! | `OWNER` | `Owner` | left, cut to 14 |
//! | `SUBMITTED` | `QDate` as `mm/dd hh:mm`, local time | right, 11 |
//! | `RUN_TIME` | `RemoteWallClockTime`, plus `ServerTime - ShadowBday` while running, `ddd+hh:mm:ss` | right, 12 |
//! | `ST` | `JobStatus` as a letter, with transfer and cool-down marks | 2 |
//! | `PRI` | `JobPrio` | left, as wide as the widest, at least 3 |
//! | `SIZE` | `MemoryUsage` (MB), else `ImageSize / 1024`, `%.1f` | right, cut to 4 |
//! | `CMD` | `(JobDescription)`, else the base name of `Cmd` and `Arguments` (else `Args`) | as it is |
//!
//! A cluster id from 9999 on, a proc id from 999 on or an owner longer than 14
//! widens `ID` to the widest cluster and proc ids and `SIZE` to the largest size
//! (`fixup_std_column_widths`). `RUN_TIME` needs the job's `RemoteUserCpu`, and
//! reads the time from the ad's `ServerTime`, which `condor_q -long` writes
//! (without it, `-1` seconds, as `job_time` returns). The totals line
//! (`standard_summary_legacy`, `count_job`) counts the jobs by status, a
//! scheduler-universe job in each count but `suspended`.

use super::ad_lookup::{self, number_i64};
use super::autoformat::{format_date, format_time};
use super::c_printf::{printf_float, printf_int};
use super::table_cells::{measured_width, unknown, Column};
use crate::ad::ClassAd;
use crate::eval::{eval_attr, Semantics};
use crate::functions::text::f64_to_i64_x86;
use crate::values::display::unparse_value_old;
use classad_vm::Value;
use std::sync::Arc;

/// `JobStatus` values (`condor_includes/proc.h`).
const RUNNING: i64 = 2;
const TRANSFERRING_OUTPUT: i64 = 6;
const SUSPENDED: i64 = 7;
/// `JobUniverse` of the scheduler universe.
const SCHEDULER_UNIVERSE: i64 = 7;

const OWNER: Column = Column::new(14, true, true);
const SUBMITTED: Column = Column::new(11, false, true);
const RUN_TIME: Column = Column::new(12, false, true);
const STATUS: Column = Column::new(2, true, false);
/// The `PRI` column's least width: its heading's.
const PRI_MIN: usize = 3;

/// One job's values, laid out once every row is rendered (some widths depend
/// on every job).
#[derive(Debug)]
struct Row {
    cluster: Option<i64>,
    proc: Option<i64>,
    owner: Option<String>,
    submitted: Option<i64>,
    run_time: Option<i64>,
    status: Option<String>,
    priority: String,
    size: Option<f64>,
    command: Option<String>,
}

/// The jobs of the table and their totals.
#[derive(Debug, Default)]
pub struct QueueTable {
    rows: Vec<Row>,
    /// The `PRI` column's width as rendering measured it.
    priority_width: usize,
    /// What widens `ID`, `OWNER` and `SIZE`.
    max_cluster: i64,
    max_proc: i64,
    longest_owner: usize,
    max_size: f64,
    counts: Counts,
}

impl QueueTable {
    /// No jobs yet.
    pub fn new() -> QueueTable {
        QueueTable {
            priority_width: PRI_MIN,
            ..QueueTable::default()
        }
    }

    /// Whether no job was added.
    pub fn is_empty(&self) -> bool {
        self.counts.ads == 0
    }

    /// Adds a job to the totals, and its row unless only the totals are
    /// printed; `now` is the time a cool-down is compared with.
    pub fn add(&mut self, ad: &Arc<ClassAd>, with_row: bool, now: i64) {
        self.counts.add(ad);
        if with_row {
            let row = self.render(ad, now);
            self.rows.push(row);
        }
    }

    fn render(&mut self, ad: &Arc<ClassAd>, now: i64) -> Row {
        let value = |name: &str| eval_attr(ad, name, None, Semantics::Htcondor).ok();
        let cluster = value("ClusterId").as_ref().and_then(number_i64);
        let proc = value("ProcId").as_ref().and_then(number_i64);
        self.max_cluster = self
            .max_cluster
            .max(ad_lookup::integer(ad, "ClusterId").unwrap_or(0));
        self.max_proc = self
            .max_proc
            .max(ad_lookup::integer(ad, "ProcId").unwrap_or(0));
        let owner = ad_lookup::string(ad, "Owner");
        if let Some(o) = &owner {
            self.longest_owner = self.longest_owner.max(o.len());
        }
        let priority = value("JobPrio");
        if let Some(w) = priority.as_ref().and_then(measured_width) {
            self.priority_width = self.priority_width.max(w);
        }
        let size = memory_usage(ad);
        if let Some(s) = size {
            self.max_size = self.max_size.max(s);
        }
        Row {
            cluster,
            proc,
            owner,
            submitted: value("QDate").as_ref().and_then(number_i64),
            run_time: ad_lookup::float(ad, "RemoteUserCpu")
                .map(|_| f64_to_i64_x86(wall_clock_time(ad))),
            status: status_letters(ad, now),
            priority: match priority {
                Some(Value::Str(s)) => s.as_str().to_string(),
                Some(other) => unparse_value_old(&other),
                None => String::new(),
            },
            size,
            command: job_description(ad),
        }
    }

    /// The table: headings, the rows, a blank line and the totals line
    /// (`show_file_queue`, `print_full_header` without the `-- Jobads:` title,
    /// `print_results`, `print_full_footer`).
    pub fn write_table(&self, out: &mut String) {
        if self.is_empty() {
            return;
        }
        let widen = self.max_cluster >= 9999 || self.max_proc >= 999 || self.longest_owner > 14;
        let digits = |n: i64, least: usize| {
            let d = n.to_string().len();
            if widen && d > least && d <= 9 {
                d
            } else {
                least
            }
        };
        let (cluster_digits, proc_digits) = (digits(self.max_cluster, 4), digits(self.max_proc, 3));
        let id = Column {
            width: cluster_digits + 1,
            left: false,
            truncate: true,
        };
        let proc = Column {
            width: proc_digits,
            left: false,
            truncate: true,
        };
        let size_width = if widen {
            printf_float("%.1f", self.max_size).len().max(4)
        } else {
            4
        };
        let size = Column {
            width: size_width,
            left: false,
            truncate: true,
        };
        let mut priority = Column {
            width: self.priority_width,
            left: true,
            truncate: false,
        };
        out.push_str(&id.heading(" ID"));
        out.push_str(&proc.heading(" "));
        let headings = [
            OWNER.heading("OWNER"),
            SUBMITTED.heading("  SUBMITTED"),
            RUN_TIME.heading("    RUN_TIME"),
            STATUS.heading("ST"),
            priority.heading("PRI"),
            size.heading("SIZE"),
            "CMD".to_string(),
        ];
        out.push(' ');
        out.push_str(&headings.join(" "));
        out.push('\n');
        let cluster_format = format!("%{cluster_digits}d.");
        let proc_format = format!("%-{proc_digits}d");
        for row in &self.rows {
            let text = |v: Option<String>| v.unwrap_or_default();
            let pri_text = format!("{:<PRI_MIN$}", row.priority);
            priority.width = priority.width.max(pri_text.len());
            let cells = [
                OWNER.lay(&row.owner.clone().unwrap_or_else(|| unknown(OWNER.width))),
                SUBMITTED.lay(&text(row.submitted.map(format_date))),
                RUN_TIME.lay(&text(row.run_time.map(format_time))),
                STATUS.lay(&text(row.status.clone())),
                priority.lay(&pri_text),
                size.lay(&text(row.size.map(|s| printf_float("%.1f", s)))),
                text(row.command.clone()),
            ];
            let mut line = id.lay(&text(row.cluster.map(|c| printf_int(&cluster_format, c))));
            line.push_str(&proc.lay(&text(row.proc.map(|p| printf_int(&proc_format, p)))));
            line.push(' ');
            line.push_str(&cells.join(" "));
            // Wide output ends a row at its last non-space.
            out.push_str(line.trim_end());
            out.push('\n');
        }
        self.write_totals(out);
    }

    /// The totals line between blank lines, as `condor_q -totals` prints it.
    pub fn write_totals(&self, out: &mut String) {
        if !self.is_empty() {
            out.push('\n');
            self.counts.write(out);
            out.push_str("\n\n");
        }
    }
}

/// `local_render_memory_usage`: `MemoryUsage` in MB, else `ImageSize` in KB.
fn memory_usage(ad: &Arc<ClassAd>) -> Option<f64> {
    match ad_lookup::integer(ad, "MemoryUsage") {
        Some(mb) => Some(mb as f64),
        None => ad_lookup::integer(ad, "ImageSize").map(|kb| kb as f64 / 1024.0),
    }
}

/// `job_time` (wall clock, not `-currentrun`): the runs before, plus this run
/// while the job runs, by the schedd's clock in the ad; -1 without it.
fn wall_clock_time(ad: &Arc<ClassAd>) -> f64 {
    let now = ad_lookup::integer(ad, "ServerTime").unwrap_or(0);
    if now == 0 {
        return -1.0;
    }
    let status = ad_lookup::integer(ad, "JobStatus").unwrap_or(0);
    let started = ad_lookup::integer(ad, "ShadowBday").unwrap_or(0);
    let mut total = ad_lookup::float(ad, "RemoteWallClockTime").unwrap_or(0.0);
    if matches!(status, RUNNING | TRANSFERRING_OUTPUT | SUSPENDED) && started != 0 {
        total += now.saturating_sub(started) as f64;
    }
    total
}

/// `local_render_job_status_char`: the status letter (`encode_status`), `<`
/// while input transfers, `>` while output does (`q` when queued to), a `c` in
/// a cool-down that ends after `now`.
fn status_letters(ad: &Arc<ClassAd>, now: i64) -> Option<String> {
    let status = ad_lookup::integer(ad, "JobStatus")?;
    let letter = match status {
        1 => 'I',
        2 => 'R',
        3 => 'X',
        4 => 'C',
        5 => 'H',
        6 => '>',
        7 => 'S',
        8 => 'F',
        9 => 'B',
        10 => 'P',
        _ => ' ',
    };
    let mut marks = [letter, ' '];
    let flag = |name: &str| ad_lookup::boolean(ad, name) == Some(true);
    let queued = flag("TransferQueued");
    if flag("TransferringInput") {
        marks = ['<', if queued { 'q' } else { ' ' }];
    }
    if flag("TransferringOutput") || status == TRANSFERRING_OUTPUT {
        marks = [if queued { 'q' } else { ' ' }, '>'];
    }
    if ad_lookup::integer(ad, "JobCoolDownExpiration").unwrap_or(0) > now {
        marks[1] = 'c';
    }
    Some(marks.iter().collect())
}

/// `render_job_description`: `(JobDescription)` (or its `MATCH_EXP_` form), else
/// the base name of `Cmd` and the arguments; none without a string `Cmd`.
fn job_description(ad: &Arc<ClassAd>) -> Option<String> {
    let cmd = ad_lookup::string(ad, "Cmd")?;
    let description = ad_lookup::string(ad, "MATCH_EXP_JobDescription")
        .or_else(|| ad_lookup::string(ad, "JobDescription"))
        .unwrap_or_default();
    if !description.is_empty() {
        return Some(format!("({description})"));
    }
    let base = cmd.rsplit('/').next().unwrap_or(&cmd);
    let args = ad_lookup::string(ad, "Arguments")
        .or_else(|| ad_lookup::string(ad, "Args"))
        .unwrap_or_default();
    Some(if args.is_empty() {
        base.to_string()
    } else {
        format!("{base} {args}")
    })
}

/// The jobs by status (`LiveJobCounters`, counted by `count_job`).
#[derive(Debug, Default)]
struct Counts {
    /// Every job added, counted or not.
    ads: u64,
    /// Idle, running, removed, completed, held: for other universes, then for
    /// the scheduler universe.
    by_status: [u64; 5],
    scheduler: [u64; 5],
    suspended: u64,
}

impl Counts {
    fn add(&mut self, ad: &Arc<ClassAd>) {
        self.ads += 1;
        let mut status = ad_lookup::integer(ad, "JobStatus").unwrap_or(0);
        let universe = ad_lookup::integer(ad, "JobUniverse").unwrap_or(5);
        if status == TRANSFERRING_OUTPUT {
            status = RUNNING;
        }
        let counts = if universe == SCHEDULER_UNIVERSE {
            &mut self.scheduler
        } else {
            &mut self.by_status
        };
        if (1..=5).contains(&status) {
            counts[status as usize - 1] += 1;
        } else if status == SUSPENDED && universe != SCHEDULER_UNIVERSE {
            self.suspended += 1;
        }
    }

    /// `standard_summary_legacy`: the counts of both kinds added.
    fn write(&self, out: &mut String) {
        let n = |i: usize| self.by_status[i] + self.scheduler[i];
        let jobs = (0..5).map(n).sum::<u64>() + self.suspended;
        out.push_str(&format!(
            "{jobs} jobs; {} completed, {} removed, {} idle, {} running, {} held, {} suspended",
            n(3),
            n(2),
            n(0),
            n(1),
            n(4),
            self.suspended
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::parse_classad;

    fn table(ads: &[&str], with_rows: bool) -> String {
        let mut t = QueueTable::new();
        for src in ads {
            t.add(&Arc::new(parse_classad(src).unwrap()), with_rows, 1_000_000);
        }
        let mut out = String::new();
        if with_rows {
            t.write_table(&mut out);
        } else {
            t.write_totals(&mut out);
        }
        out
    }

    const RUNNING_JOB: &str = r#"[ ClusterId = 41; ProcId = 0; Owner = "alice"; QDate = 0;
        RemoteUserCpu = 0.0; RemoteWallClockTime = 100.0; ServerTime = 93784;
        ShadowBday = 100; JobStatus = 2; JobPrio = 0; ImageSize = 2048;
        Cmd = "/bin/sleep"; Arguments = "60" ]"#;
    const IDLE_JOB: &str = r#"[ ClusterId = 41; ProcId = 1; Owner = "alice"; QDate = 60;
        RemoteUserCpu = 0.0; ServerTime = 93784; JobStatus = 1; JobPrio = -10;
        MemoryUsage = 1; Cmd = "sleep"; JobDescription = "nap" ]"#;

    // `jobDefault_PrintFormat` (queue.cpp) laid out by `AttrListPrintMask`, and
    // `standard_summary_legacy`. Dates are local time: the test reads them as
    // `format_date` prints them.
    #[test]
    fn the_default_table_and_its_totals_line() {
        let d0 = format_date(0);
        let d60 = format_date(60);
        assert_eq!(
            table(&[RUNNING_JOB, IDLE_JOB], true),
            format!(
                " ID      OWNER            SUBMITTED     RUN_TIME ST PRI SIZE CMD\n\
                 \x20 41.0   alice          {d0}   1+02:03:04 R  0    2.0 sleep 60\n\
                 \x20 41.1   alice          {d60}   0+00:00:00 I  -10  1.0 (nap)\n\
                 \n\
                 2 jobs; 0 completed, 0 removed, 1 idle, 1 running, 0 held, 0 suspended\n\n"
            )
        );
    }

    #[test]
    fn missing_values_leave_their_columns_empty() {
        let out = table(&["[ Cmd = 3 ]"], true);
        // No id, owner, date, time or status; JobPrio prints `undefined`.
        assert_eq!(
            out.lines().nth(1).unwrap(),
            "         [????????????]                             undefined"
        );
        assert!(out.ends_with(
            "\n0 jobs; 0 completed, 0 removed, 0 idle, 0 running, 0 held, 0 suspended\n\n"
        ));
    }

    #[test]
    fn large_ids_widen_the_columns() {
        let job = "[ ClusterId = 123456; ProcId = 1000; Owner = \"bob\"; MemoryUsage = 123456; Cmd = \"x\" ]";
        let out = table(&[job], true);
        assert_eq!(
            out.lines().next().unwrap(),
            " ID         OWNER            SUBMITTED     RUN_TIME ST PRI SIZE     CMD"
        );
        assert!(
            out.lines().nth(1).unwrap().starts_with("123456.1000 bob "),
            "{out}"
        );
        assert!(
            out.lines()
                .nth(1)
                .unwrap()
                .ends_with(" undefined 123456.0 x"),
            "{out}"
        );
        // Without widening, SIZE is cut to 4.
        let small = "[ ClusterId = 1; ProcId = 0; MemoryUsage = 123456; Cmd = \"x\" ]";
        assert!(table(&[small], true)
            .lines()
            .nth(1)
            .unwrap()
            .ends_with(" 1234 x"));
    }

    #[test]
    fn status_letters_and_marks() {
        let st = |src: &str| status_letters(&Arc::new(parse_classad(src).unwrap()), 1000);
        assert_eq!(st("[ JobStatus = 5 ]").as_deref(), Some("H "));
        assert_eq!(st("[ JobStatus = 6 ]").as_deref(), Some(" >"));
        assert_eq!(
            st("[ JobStatus = 2; TransferringInput = true; TransferQueued = true ]").as_deref(),
            Some("<q")
        );
        assert_eq!(
            st("[ JobStatus = 1; JobCoolDownExpiration = 2000 ]").as_deref(),
            Some("Ic")
        );
        assert_eq!(
            st("[ JobStatus = 1; JobCoolDownExpiration = 500 ]").as_deref(),
            Some("I ")
        );
        assert_eq!(st("[ JobStatus = 42 ]").as_deref(), Some("  "));
        assert_eq!(st("[ JobStatus = \"R\" ]"), None);
    }

    #[test]
    fn totals_count_by_status_and_universe() {
        let jobs = [
            "[ JobStatus = 1 ]",
            "[ JobStatus = 6 ]",
            "[ JobStatus = 7 ]",
            "[ JobStatus = 4; JobUniverse = 7 ]",
            "[ JobStatus = 7; JobUniverse = 7 ]",
            "[ JobStatus = 3 ]",
            "[ JobStatus = 5 ]",
        ];
        assert_eq!(
            table(&jobs, false),
            "\n6 jobs; 1 completed, 1 removed, 1 idle, 1 running, 1 held, 1 suspended\n\n"
        );
    }
}
