//! The default output of `classad query`, and `-total`: each selected ad goes to
//! the table its `MyType` calls for, as `condor_status` and `condor_q` print
//! theirs by default.
//!
//! - `MyType` "Machine" (a slot): `condor_status`'s table ([`StatusTable`]);
//! - `MyType` "Job": `condor_q`'s ([`QueueTable`]);
//! - any other ad (no `MyType`, a schedd's, a negotiator's): printed whole as
//!   `-long` prints it (with `-attributes`, only those), as it is read, since no
//!   table of those two tools fits it.
//!
//! The tables need every row before their first line (widths, totals), so they
//! are printed after the ads printed whole: slots first, then jobs. With
//! `-total` only the totals are printed; the other ads are counted, and a warning
//! names them, since no totals count them.

use super::long_form::{LongForm, LongWriter};
use super::queue_table::QueueTable;
use super::status_table::StatusTable;
use crate::ad::ClassAd;
use crate::eval::{eval_attr, Semantics};
use classad_vm::Value;
use std::io::Write;
use std::sync::Arc;

/// Where an ad was read: the index of its file and its index in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// The file, counting from 0 in command-line order.
    pub file: usize,
    /// The ad, counting from 0 in its file.
    pub ad: usize,
}

/// The ads of the default output (or `-total`), sorted into tables.
pub struct TableView {
    slots: StatusTable,
    jobs: QueueTable,
    /// Ads of no table, printed whole (not with `-total`).
    whole: LongWriter,
    /// Only the totals (`-total`).
    only_totals: bool,
    /// Ads of no table, and the first of them.
    others: u64,
    first_other: Option<Place>,
    /// The time a job's cool-down is compared with.
    now: i64,
}

/// Which table an ad's `MyType` calls for (compared ignoring case, as
/// HTCondor's ad types are).
enum Table {
    Slots,
    Jobs,
    None,
}

fn table_of(ad: &Arc<ClassAd>) -> Table {
    match eval_attr(ad, "MyType", None, Semantics::Htcondor) {
        Ok(Value::Str(t)) if t.as_str().eq_ignore_ascii_case("Machine") => Table::Slots,
        Ok(Value::Str(t)) if t.as_str().eq_ignore_ascii_case("Job") => Table::Jobs,
        _ => Table::None,
    }
}

impl TableView {
    /// An empty view; `only_totals` for `-total`, `attributes` the only ones
    /// the ads of no table print (`-attributes`), `now` the time (seconds since
    /// 1970) a job's `JobCoolDownExpiration` is compared with.
    pub fn new(only_totals: bool, attributes: Option<Vec<String>>, now: i64) -> TableView {
        TableView {
            slots: StatusTable::new(),
            jobs: QueueTable::new(),
            whole: LongWriter::new(LongForm::Long, attributes),
            only_totals,
            others: 0,
            first_other: None,
            now,
        }
    }

    /// Takes a selected ad: into its table, or printed whole.
    pub fn ad(
        &mut self,
        ad: &Arc<ClassAd>,
        place: Place,
        out: &mut dyn Write,
    ) -> std::io::Result<()> {
        let rows = !self.only_totals;
        match table_of(ad) {
            Table::Slots => self.slots.add(ad, rows),
            Table::Jobs => self.jobs.add(ad, rows, self.now),
            Table::None => {
                self.others += 1;
                self.first_other.get_or_insert(place);
                if rows {
                    return self.whole.write_ad(ad, out);
                }
            }
        }
        Ok(())
    }

    /// Prints the tables (or their totals).
    pub fn finish(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        self.whole.finish(out)?;
        let mut text = String::new();
        if self.only_totals {
            self.slots.write_totals(&mut text);
            self.jobs.write_totals(&mut text);
        } else {
            self.slots.write_table(&mut text);
            self.jobs.write_table(&mut text);
        }
        out.write_all(text.as_bytes())
    }

    /// With `-total`, how many ads no totals count, and the first.
    pub fn uncounted(&self) -> Option<(u64, Place)> {
        match (self.only_totals, self.first_other) {
            (true, Some(first)) => Some((self.others, first)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::parse_classad;

    fn run(ads: &[&str], only_totals: bool) -> (String, Option<(u64, Place)>) {
        let mut view = TableView::new(only_totals, None, 0);
        let mut out = Vec::new();
        for (i, src) in ads.iter().enumerate() {
            let ad = Arc::new(parse_classad(src).unwrap());
            view.ad(&ad, Place { file: 0, ad: i }, &mut out).unwrap();
        }
        view.finish(&mut out).unwrap();
        (String::from_utf8(out).unwrap(), view.uncounted())
    }

    #[test]
    fn each_ad_goes_to_the_table_of_its_type() {
        let slot = "[ MyType = \"machine\"; Name = \"s\"; State = \"Owner\" ]";
        let job = "[ MyType = \"Job\"; ClusterId = 1; ProcId = 0; JobStatus = 1 ]";
        let other = "[ MyType = \"Scheduler\"; Name = \"schedd\" ]";
        let (out, uncounted) = run(&[job, other, slot], false);
        assert!(
            out.starts_with("MyType = \"Scheduler\"\nName = \"schedd\"\n\nName "),
            "{out}"
        );
        let status = out.find("Name ").unwrap();
        let queue = out.find(" ID ").unwrap();
        assert!(status < queue, "{out}");
        assert!(out.ends_with(
            "1 jobs; 0 completed, 0 removed, 1 idle, 0 running, 0 held, 0 suspended\n\n"
        ));
        assert_eq!(uncounted, None);
        let (totals, uncounted) = run(&[job, other, slot], true);
        assert!(
            totals.starts_with("\n               Total Owner"),
            "{totals}"
        );
        assert!(!totals.contains("Scheduler"));
        assert_eq!(uncounted, Some((1, Place { file: 0, ad: 1 })));
        assert_eq!(run(&[], false).0, "");
    }
}
