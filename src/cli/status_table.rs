//! `condor_status`'s default table of slot ads (`MyType` "Machine"), as `classad
//! query` prints it when no other output is asked for, and its totals table
//! (all that `-total` prints).
//!
//! The columns are those of `startdPFV_Normal` in
//! `src/condor_status.V6/prettyPrint.cpp`, as `condor_status` lays them when its
//! output is not a terminal (80 columns assumed, so `ActvtyTime` rather than
//! `ActivityTime`, and no column cut to fit a screen):
//!
//! | column | from | layout |
//! |---|---|---|
//! | `Name` | `Name` (`%s`: a non-string's expression) | left, 34 wide, never cut |
//! | `OpSys` | `OpSys` (`%v`) | left, cut to 10 |
//! | `Arch` | `Arch` (`%v`) | left, cut to 8 |
//! | `State` | `State` (`%v`) | left, as wide as the widest string, at least 5 |
//! | `Activity` | `Activity` (`OCU` for an idle `OCU` slot, `??` for none) | left, cut to 8 |
//! | `LoadAv` | `CondorLoadAvg` (`%.3f`) | right, cut to 6 |
//! | `Mem` | `Memory` (`%6d`) | right, cut to 6 |
//! | `ActvtyTime` | `MyCurrentTime` (else `LastHeardFrom`) less `EnteredCurrentActivity`, `ddd+hh:mm:ss` | right, 12, no space before |
//!
//! A column with no value shows `[??..]` across its width (`OR ??`), `-` for
//! `ActvtyTime`. The headings are followed by a blank line, the rows by a blank
//! line and the totals (`StartdNormalTotal` in `totals.cpp`, printed by
//! `TrackTotals::displayTotals`): a line per `Arch/OpSys` and one for all, each
//! slot counted under its `State`; slots whose `State` is missing or not one of
//! those columns, or that lack a string `Arch` or `OpSys`, are counted as
//! malformed in a line under the table.

use super::ad_lookup::{self, number_f64, number_i64};
use super::autoformat::format_time;
use super::c_printf::{printf_float, printf_int};
use super::table_cells::{measured_width, unknown, Column};
use crate::ad::ClassAd;
use crate::eval::{eval_attr, Semantics};
use crate::syntax::unparse::unparse_old_node;
use crate::values::display::unparse_value_old;
use classad_vm::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

const NAME: Column = Column::new(34, true, false);
const OPSYS: Column = Column::new(10, true, true);
const ARCH: Column = Column::new(8, true, true);
const ACTIVITY: Column = Column::new(8, true, true);
const LOAD_AV: Column = Column::new(6, false, true);
const MEM: Column = Column::new(6, false, true);
const ACTIVITY_TIME: Column = Column::new(12, false, true);
/// The `State` column's least width: its heading's.
const STATE_MIN: usize = 5;

/// One slot's row, every cell laid out but `State`, whose width is known only
/// when every row is rendered.
#[derive(Debug)]
struct Row {
    /// Name, OpSys, Arch, then Activity, LoadAv, Mem and ActvtyTime, laid out.
    before_state: String,
    after_state: String,
    /// The State's text (`%-5v`), `None` when it has no value.
    state: Option<String>,
}

/// The slots of the table and their totals.
#[derive(Debug, Default)]
pub struct StatusTable {
    rows: Vec<Row>,
    /// The `State` column's width as rendering measured it.
    state_width: usize,
    totals: Totals,
}

impl StatusTable {
    /// No slots yet.
    pub fn new() -> StatusTable {
        StatusTable {
            state_width: STATE_MIN,
            ..StatusTable::default()
        }
    }

    /// Whether no slot was added.
    pub fn is_empty(&self) -> bool {
        self.totals.slots == 0
    }

    /// Adds a slot to the totals, and its row unless only the totals are
    /// printed.
    pub fn add(&mut self, ad: &Arc<ClassAd>, with_row: bool) {
        self.totals.add(ad);
        if with_row {
            let row = render(ad, &mut self.state_width);
            self.rows.push(row);
        }
    }

    /// The table: headings, a blank line, the rows, a blank line and the totals
    /// (`doNormalOutput` in status.cpp).
    pub fn write_table(&self, out: &mut String) {
        if self.is_empty() {
            return;
        }
        let mut state = Column {
            width: self.state_width,
            left: true,
            truncate: false,
        };
        let headings = [
            NAME.heading("Name"),
            OPSYS.heading("OpSys"),
            ARCH.heading("Arch"),
            state.heading("State"),
            ACTIVITY.heading("Activity"),
            LOAD_AV.heading("LoadAv"),
            MEM.heading("Mem"),
        ];
        out.push_str(&headings.join(" "));
        out.push_str(&ACTIVITY_TIME.heading("  ActvtyTime"));
        out.push_str("\n\n");
        for row in &self.rows {
            // Values rendering did not measure widen the column as they print.
            let text = match &row.state {
                Some(s) => format!("{s:<STATE_MIN$}"),
                None => unknown(state.width),
            };
            state.width = state.width.max(text.len());
            out.push_str(&row.before_state);
            out.push(' ');
            out.push_str(&state.lay(&text));
            out.push(' ');
            out.push_str(&row.after_state);
            out.push('\n');
        }
        self.write_totals(out);
    }

    /// The totals table after a blank line, as `condor_status -total` prints it.
    pub fn write_totals(&self, out: &mut String) {
        if !self.is_empty() {
            out.push('\n');
            self.totals.write(out);
        }
    }
}

/// The row of `ad`, widening `state_width` as `AttrListPrintMask::render`
/// measures the State (`calc_column_width`).
fn render(ad: &Arc<ClassAd>, state_width: &mut usize) -> Row {
    let value = |name: &str| eval_attr(ad, name, None, Semantics::Htcondor).ok();
    let value_text = |v: &Value| match v {
        Value::Str(s) => s.as_str().to_string(),
        other => unparse_value_old(other),
    };
    // `PRINTF %s` of an attribute: a string, else the attribute's expression.
    let name = match (ad.get("Name"), value("Name")) {
        (_, Some(Value::Str(s))) => NAME.lay(s.as_str()),
        (Some(e), _) => {
            let mut s = String::new();
            unparse_old_node(e.tree, e.id, &mut s);
            NAME.lay(&s)
        }
        _ => unknown(NAME.width),
    };
    let by_value = |col: Column, name: &str| match value(name) {
        Some(v) => col.lay(&value_text(&v)),
        None => unknown(col.width),
    };
    let state = value("State");
    if let Some(w) = state.as_ref().and_then(measured_width) {
        *state_width = (*state_width).max(w);
    }
    let activity = match ad_lookup::string(ad, "Activity") {
        None => "??".to_string(),
        Some(a) if a.is_empty() => "??".to_string(),
        Some(a) if a == "Idle" && ad_lookup::boolean(ad, "OCU") == Some(true) => "OCU".to_string(),
        Some(a) => a,
    };
    let load = match value("CondorLoadAvg").as_ref().and_then(number_f64) {
        Some(l) => LOAD_AV.lay(&printf_float("%.3f", l)),
        None => unknown(LOAD_AV.width),
    };
    let mem = match value("Memory").as_ref().and_then(number_i64) {
        Some(m) => MEM.lay(&printf_int("%6d", m)),
        None => unknown(MEM.width),
    };
    // `render_activity_time` (print_format_tables.cpp): the ad's own clock, not
    // the one of the machine printing it.
    let entered = value("EnteredCurrentActivity")
        .as_ref()
        .and_then(number_i64)
        .unwrap_or(0);
    let now =
        ad_lookup::integer(ad, "MyCurrentTime").or_else(|| ad_lookup::integer(ad, "LastHeardFrom"));
    let time = match now {
        Some(now) => ACTIVITY_TIME.lay(&format_time(now.saturating_sub(entered).max(0))),
        None => ACTIVITY_TIME.lay("-"),
    };
    Row {
        before_state: [name, by_value(OPSYS, "OpSys"), by_value(ARCH, "Arch")].join(" "),
        after_state: format!("{} {load} {mem}{time}", ACTIVITY.lay(&activity)),
        state: state.as_ref().map(value_text),
    }
}

/// The slots of one line of the totals, by state (`StartdNormalTotal`).
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    machines: u64,
    owner: u64,
    claimed: u64,
    unclaimed: u64,
    matched: u64,
    preempting: u64,
    drained: u64,
    backfill: u64,
    /// Idle backfill slots: counted only for backfill slots, which the default
    /// table does not tell apart (its totals are made without options).
    backfill_idle: u64,
}

impl Counts {
    /// Counts a slot in `state` (`StartdNormalTotal::update`); false for a
    /// state that has no column (`Shutdown`, `Delete`, anything else).
    fn add(&mut self, state: &str) -> bool {
        let n = match state {
            "Owner" => &mut self.owner,
            "Unclaimed" => &mut self.unclaimed,
            "Claimed" => &mut self.claimed,
            "Matched" => &mut self.matched,
            "Preempting" => &mut self.preempting,
            "Backfill" => &mut self.backfill,
            "Drained" => &mut self.drained,
            _ => return false,
        };
        *n += 1;
        self.machines += 1;
        true
    }

    fn write(&self, out: &mut String) {
        out.push_str(&format!(
            "{:6} {:5} {:7} {:9} {:7} {:10} {:6} {:8} {:6}\n",
            self.machines,
            self.owner,
            self.claimed,
            self.unclaimed,
            self.matched,
            self.preempting,
            self.drained,
            self.backfill,
            self.backfill_idle
        ));
    }
}

/// `TrackTotals` for the default table.
#[derive(Debug, Default)]
struct Totals {
    /// Every slot added.
    slots: u64,
    /// By `Arch/OpSys`, in byte order (a `std::map<std::string, ...>`).
    by_key: BTreeMap<String, Counts>,
    all: Counts,
    malformed: u64,
}

/// The width of the totals' first column (`MAX(14, max_totals_subkey)`, the
/// sub-key unused by the default table).
const KEY_WIDTH: usize = 14;

impl Totals {
    /// `TrackTotals::update`.
    fn add(&mut self, ad: &Arc<ClassAd>) {
        self.slots += 1;
        let (Some(arch), Some(opsys)) = (
            ad_lookup::string(ad, "Arch"),
            ad_lookup::string(ad, "OpSys"),
        ) else {
            self.malformed += 1;
            return;
        };
        let line = self.by_key.entry(format!("{arch}/{opsys}")).or_default();
        let counted = match ad_lookup::string(ad, "State") {
            Some(state) => {
                self.all.add(&state);
                line.add(&state)
            }
            None => false,
        };
        if !counted {
            self.malformed += 1;
        }
    }

    /// `TrackTotals::displayTotals` with a key width of 14.
    fn write(&self, out: &mut String) {
        out.push_str(&format!(
            "{:KEY_WIDTH$}{:>6.6} {:>5.5} {:>7.7} {:>9.9} {:>7.7} {:>10.10} {:>6.6} {:>8.8} {:>6.6}\n\n",
            "", "Total", "Owner", "Claimed", "Unclaimed", "Matched", "Preempting", "Drain",
            "Backfill", "BkIdle"
        ));
        for (key, counts) in &self.by_key {
            out.push_str(&format!("{key:>KEY_WIDTH$.KEY_WIDTH$}"));
            counts.write(out);
        }
        if !self.by_key.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!("{:>KEY_WIDTH$}", "Total"));
        self.all.write(out);
        if self.malformed > 0 {
            out.push_str(&format!(
                "\n{:KEY_WIDTH$}(Omitted {} malformed ads in computed attribute totals)\n\n",
                "", self.malformed
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::parse_classad;

    fn table(ads: &[&str], with_rows: bool) -> String {
        let mut t = StatusTable::new();
        for src in ads {
            t.add(&Arc::new(parse_classad(src).unwrap()), with_rows);
        }
        let mut out = String::new();
        if with_rows {
            t.write_table(&mut out);
        } else {
            t.write_totals(&mut out);
        }
        out
    }

    const SLOT1: &str = r#"[ Name = "slot1@node1"; OpSys = "LINUX"; Arch = "X86_64";
        State = "Unclaimed"; Activity = "Idle"; CondorLoadAvg = 0.25; Memory = 16384;
        EnteredCurrentActivity = 1000; MyCurrentTime = 1004 ]"#;
    const SLOT2: &str = r#"[ Name = "slot1@a-much-longer-node-name.example.org"; OpSys = "WINDOWS";
        Arch = "X86_64"; State = "Claimed"; Activity = "Busy"; CondorLoadAvg = 1;
        Memory = 4096; EnteredCurrentActivity = 0; LastHeardFrom = 93784 ]"#;

    // `startdPFV_Normal` (prettyPrint.cpp) laid out by `AttrListPrintMask`, and
    // `StartdNormalTotal::displayHeader`/`displayInfo` (totals.cpp).
    #[test]
    fn the_normal_table_and_its_totals() {
        assert_eq!(
            table(&[SLOT1, SLOT2], true),
            "Name                               OpSys      Arch     State     Activity LoadAv Mem     ActvtyTime\n\
             \n\
             slot1@node1                        LINUX      X86_64   Unclaimed Idle      0.250  16384  0+00:00:04\n\
             slot1@a-much-longer-node-name.example.org WINDOWS    X86_64   Claimed   Busy      1.000   4096  1+02:03:04\n\
             \n               Total Owner Claimed Unclaimed Matched Preempting  Drain Backfill BkIdle\n\
             \n\
             \x20 X86_64/LINUX     1     0       0         1       0          0      0        0      0\n\
             X86_64/WINDOWS     1     0       1         0       0          0      0        0      0\n\
             \n\
             \x20        Total     2     0       1         1       0          0      0        0      0\n"
        );
    }

    #[test]
    fn missing_values_show_their_or_text() {
        let out = table(
            &["[ State = \"Owner\"; Activity = \"\"; Memory = \"x\" ]"],
            true,
        );
        let row = out.lines().nth(2).unwrap();
        assert_eq!(
            row,
            "[????????????????????????????????] undefined  undefine Owner ??       [????] [????]           -"
        );
        // No Arch or OpSys: malformed, counted in no line.
        assert!(out.ends_with(
            "         Total     0     0       0         0       0          0      0        0      0\n\
             \n              (Omitted 1 malformed ads in computed attribute totals)\n\n"
        ));
    }

    #[test]
    fn cells_are_cut_and_name_is_not() {
        let src = r#"[ Name = 12; OpSys = "ABCDEFGHIJKL"; Arch = 2.5; State = "Preempting";
            Activity = "Benchmarking"; CondorLoadAvg = 123.4567; Memory = 12345678;
            EnteredCurrentActivity = 10; MyCurrentTime = 5; OCU = true ]"#;
        let out = table(&[src], true);
        let row = out.lines().nth(2).unwrap();
        assert_eq!(
            row,
            "12                                 ABCDEFGHIJ 2.5      Preempting Benchmar 123.45 123456  0+00:00:00"
        );
        let idle = table(&["[ Activity = \"Idle\"; OCU = true ]"], true);
        assert!(idle.lines().nth(2).unwrap().contains(" OCU "), "{idle}");
    }

    #[test]
    fn totals_alone_and_states_without_a_column() {
        let drained = SLOT1.replace("Unclaimed", "Drained");
        let shutdown = SLOT1.replace("Unclaimed", "Shutdown");
        let out = table(&[SLOT1, &drained, &shutdown], false);
        assert_eq!(
            out,
            "\n               Total Owner Claimed Unclaimed Matched Preempting  Drain Backfill BkIdle\n\
             \n\
             \x20 X86_64/LINUX     2     0       0         1       0          0      1        0      0\n\
             \n\
             \x20        Total     2     0       0         1       0          0      1        0      0\n\
             \n              (Omitted 1 malformed ads in computed attribute totals)\n\n"
        );
        assert_eq!(table(&[], true), "");
    }
}
