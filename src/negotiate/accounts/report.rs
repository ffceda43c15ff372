//! The accountant's records as text, in the layout `condor_userprio -l` prints
//! (`Accountant::ReportState`, the legacy one ad of numbered attributes), so
//! that a run can start from a real pool's accountant and be resumed.
//!
//! Written per record: `Name`, `IsAccountingGroup` (a name without `@`, as
//! `GetAssignedGroup` tells), `AccountingGroup`, `Priority` (the effective
//! priority: the real one, at least 0.5, times the factor, as `GetPriority`
//! gives it), `PriorityFactor` (an unset factor is written as the default
//! `GetPriorityFactor` gives, which HTCondor writes into the record as it
//! reports it), `Ceiling` and `Floor` (-1 and 0 for none), `ResourcesUsed`,
//! `WeightedResourcesUsed`, `AccumulatedUsage`, `WeightedAccumulatedUsage`,
//! `BeginUsageTime`, `LastUsageTime`; then what
//! the report leaves out and a resumed run needs: `UnchargedTime`,
//! `WeightedUnchargedTime` and `HierWeightedResourcesUsed` (HTCondor's readers
//! ignore attributes they do not know). `LastUpdate` heads the ad and
//! `NumSubmittors` ends it. Read back, the real priority is `Priority /
//! PriorityFactor` (a factor of 0, as groups without one print, leaves
//! `Priority` as the real priority).

use super::{assigned_group, Accounts, Claim, Record};
use crate::negotiate::priorities::userprio::{get, report_rows, Report};
use crate::negotiate::priorities::{PrioritiesError, MIN_PRIORITY};
use crate::syntax::fmt_real_exact;
use classad_vm::Value;
use std::fmt::Write;

impl Accounts {
    /// The records as `condor_userprio -l` prints them (see the module docs);
    /// `default_factor` gives the factor of a customer that has none set.
    pub fn to_userprio(&self, default_factor: impl Fn(&str) -> f64) -> String {
        let mut out = format!("LastUpdate = {}\n", self.last_update_time);
        // Groups first, as `ReportGroups` reports them before the submitters.
        let (groups, submitters): (Vec<_>, Vec<_>) =
            self.customers.iter().partition(|(n, _)| !n.contains('@'));
        let mut n = 0;
        for (name, r) in groups.into_iter().chain(submitters) {
            n += 1;
            let factor = r.priority_factor.unwrap_or_else(|| default_factor(name));
            let is_group = !name.contains('@');
            let group = if is_group {
                name.as_str()
            } else {
                assigned_group(name, &self.groups)
            };
            let real = |x: f64| fmt_real_exact(x);
            let _ = writeln!(out, "Name{n} = {}", quote(name));
            let _ = writeln!(out, "IsAccountingGroup{n} = {is_group}");
            let _ = writeln!(out, "AccountingGroup{n} = {}", quote(group));
            let effective = r.priority.max(MIN_PRIORITY) * factor;
            let _ = writeln!(out, "Priority{n} = {}", real(effective));
            let _ = writeln!(out, "Ceiling{n} = {}", r.ceiling.unwrap_or(-1));
            let _ = writeln!(out, "Floor{n} = {}", r.floor);
            let _ = writeln!(out, "PriorityFactor{n} = {}", real(factor));
            let _ = writeln!(out, "ResourcesUsed{n} = {}", r.resources_used);
            let _ = writeln!(
                out,
                "WeightedResourcesUsed{n} = {}",
                real(r.weighted_resources_used)
            );
            let _ = writeln!(out, "AccumulatedUsage{n} = {}", real(r.accumulated_usage));
            let weighted = r.weighted_accumulated_usage.unwrap_or(r.accumulated_usage);
            let _ = writeln!(out, "WeightedAccumulatedUsage{n} = {}", real(weighted));
            let _ = writeln!(out, "BeginUsageTime{n} = {}", r.begin_usage_time);
            let _ = writeln!(out, "LastUsageTime{n} = {}", r.last_usage_time);
            let _ = writeln!(out, "UnchargedTime{n} = {}", r.uncharged_time);
            let _ = writeln!(
                out,
                "WeightedUnchargedTime{n} = {}",
                real(r.weighted_uncharged_time)
            );
            let hier = real(r.hier_weighted_resources_used);
            let _ = writeln!(out, "HierWeightedResourcesUsed{n} = {hier}");
        }
        let _ = writeln!(out, "NumSubmittors = {n}");
        // The claims (the accountant's `Resource.` records), which
        // `condor_userprio` does not print: a resumed run needs them to tell
        // the claims it charged from new ones.
        // One line: the old syntax has a line per attribute.
        out.push_str("Claims = {");
        for (k, (resource, c)) in self.claims.iter().enumerate() {
            let sep = if k == 0 { " " } else { ", " };
            let _ = write!(
                out,
                "{sep}[ Resource = {}; Customer = {}; SlotWeight = {}; StartTime = {} ]",
                quote(resource),
                quote(&c.customer),
                fmt_real_exact(c.slot_weight),
                c.start_time
            );
        }
        out.push_str(" }\n");
        out
    }

    /// Records read from `condor_userprio -l` text (either layout: see
    /// `priorities::userprio`), with `PRIORITY_HALFLIFE` and `GROUP_NAMES`
    /// given; the last update is the text's `LastUpdate`, else `now`.
    pub fn from_userprio(
        text: &str,
        file: &str,
        now: i64,
        half_life: f64,
        groups: Vec<String>,
    ) -> Result<Accounts, PrioritiesError> {
        let Report {
            rows,
            last_update,
            legacy: report,
        } = report_rows(text, file)?;
        let mut accounts = Accounts::new(last_update.unwrap_or(now), half_life, groups);
        for row in &rows {
            let ad = &row.ad;
            let bad = |attr: &str, what: String| PrioritiesError {
                file: file.to_string(),
                line: row.line_of(attr),
                column: 1,
                message: what,
            };
            let name = match get(ad, "Name") {
                Value::Str(s) if !s.as_str().is_empty() => s.as_str().to_string(),
                _ => return Err(bad("Name", "an entry has no Name (a string)".into())),
            };
            let number = |attr: &str| -> Result<f64, PrioritiesError> {
                match get(ad, attr) {
                    Value::Undefined => Ok(0.0),
                    v => v
                        .as_f64_promoted()
                        .filter(|x| x.is_finite())
                        .ok_or_else(|| bad(attr, format!("{name:?}: {attr} is not a number"))),
                }
            };
            let count = |attr: &str| number(attr).map(|x| x as i64);
            let factor = number("PriorityFactor")?;
            let effective = number("Priority")?;
            let weighted_accumulated = match get(ad, "WeightedAccumulatedUsage") {
                Value::Undefined => None,
                _ => Some(number("WeightedAccumulatedUsage")?),
            };
            let record = Record {
                priority: if factor > 0.0 {
                    effective / factor
                } else {
                    effective
                },
                priority_factor: (factor > 0.0).then_some(factor),
                resources_used: count("ResourcesUsed")?,
                weighted_resources_used: number("WeightedResourcesUsed")?,
                hier_weighted_resources_used: number("HierWeightedResourcesUsed")?,
                uncharged_time: count("UnchargedTime")?,
                weighted_uncharged_time: number("WeightedUnchargedTime")?,
                accumulated_usage: number("AccumulatedUsage")?,
                weighted_accumulated_usage: weighted_accumulated,
                begin_usage_time: count("BeginUsageTime")?,
                last_usage_time: count("LastUsageTime")?,
                // GetFloor and GetCeiling: integers, a floor below 0 none and
                // a negative ceiling none (unset: 0 and -1).
                floor: count("Floor")?.max(0),
                ceiling: match get(ad, "Ceiling") {
                    Value::Undefined => None,
                    _ => Some(count("Ceiling")?).filter(|c| *c >= 0),
                },
            };
            accounts.set_record(&name, record);
        }
        match report
            .as_ref()
            .and_then(|r| r.get("Claims"))
            .map(|e| e.to_expr_ref())
        {
            Some(list) => {
                let line = report_line(text, "Claims");
                for (resource, claim) in claims_of(&list).map_err(|message| PrioritiesError {
                    file: file.to_string(),
                    line,
                    column: 1,
                    message,
                })? {
                    accounts.claims.insert(resource, claim);
                }
            }
            // A report of HTCondor's has no claims: what its records hold in
            // use CheckMatches finds again from the slots, so it starts at 0
            // (as CheckMatches at HEAD resets WeightedResourcesUsed).
            _ => {
                for r in accounts.customers.values_mut() {
                    r.resources_used = 0;
                    r.weighted_resources_used = 0.0;
                    r.hier_weighted_resources_used = 0.0;
                }
            }
        }
        Ok(accounts)
    }
}

/// The claims of a `Claims` list as `to_userprio` writes it: a list of
/// records, each `Resource`, `Customer`, `SlotWeight` and `StartTime`, in
/// literals.
fn claims_of(list: &crate::syntax::ast::ExprRef) -> Result<Vec<(String, Claim)>, String> {
    use crate::syntax::ast::Node;
    let Node::List(items) = list.node() else {
        return Err("Claims is not a list of claims".into());
    };
    let mut out = Vec::with_capacity(items.len());
    for (k, &item) in items.iter().enumerate() {
        let bad = || {
            format!(
                "Claims: entry {} is not [ Resource; Customer; SlotWeight; StartTime ]",
                k + 1
            )
        };
        let record = list.child(item);
        let Node::Record(fields) = record.node() else {
            return Err(bad());
        };
        let field = |name: &str| {
            let (_, id) = fields.iter().find(|(n, _)| n.eq_ignore_ascii_case(name))?;
            match record.child(*id).node() {
                Node::Lit(v) => Some(v.clone()),
                _ => None,
            }
        };
        let (Some(Value::Str(resource)), Some(Value::Str(customer))) =
            (field("Resource"), field("Customer"))
        else {
            return Err(bad());
        };
        let weight = field("SlotWeight")
            .and_then(|w| w.as_f64_promoted())
            .ok_or_else(bad)?;
        let Some(Value::Int(start)) = field("StartTime") else {
            return Err(bad());
        };
        let claim = Claim {
            customer: customer.as_str().to_string(),
            slot_weight: weight,
            start_time: start,
        };
        out.push((resource.as_str().to_string(), claim));
    }
    Ok(out)
}

/// The 1-based line where `attr = ` starts in `text` (1 when not found).
fn report_line(text: &str, attr: &str) -> u32 {
    text.lines()
        .position(|l| l.trim_start().starts_with(attr) && l.contains('='))
        .map_or(1, |i| i as u32 + 1)
}

/// `s` as an old-syntax string literal.
fn quote(s: &str) -> String {
    let mut out = String::new();
    crate::syntax::quote_string_old(s, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Written and read back, every record is the same, and the run goes on
    /// from there as it would have without the stop.
    #[test]
    fn records_round_trip_and_a_resumed_run_goes_on_alike() {
        let groups = vec!["group_a".to_string()];
        let mut a = Accounts::new(1_000, 3_600.0, groups.clone());
        a.add_match("group_a.u@d", "s1", 2.5, 1_000);
        a.add_match("v@d", "s2", 1.0, 1_200);
        a.update_priorities(2_000);
        a.remove_match("s2", 2_500);
        let mut r = a.record("v@d").unwrap().clone();
        r.priority_factor = Some(10.0);
        (r.floor, r.ceiling) = (2, Some(7));
        a.set_record("v@d", r);
        let text = a.to_userprio(|_| 1000.0);
        assert!(text.starts_with("LastUpdate = 2000\n"), "{text}");
        assert!(
            text.contains("Name1 = \"<none>\"\nIsAccountingGroup1 = true\n"),
            "{text}"
        );
        // A cycle reads it as its priorities file.
        let cycle_reads = crate::negotiate::priorities::userprio::parse(&text, "state").unwrap();
        let v = cycle_reads.get("v@d").unwrap();
        assert_eq!(v.factor, Some(10.0));
        assert_eq!((v.floor, v.ceiling), (Some(2.0), Some(7.0)));
        assert!((v.real - a.record("v@d").unwrap().priority).abs() < 1e-9);
        let mut back = Accounts::from_userprio(&text, "state", 0, 3_600.0, groups).unwrap();
        for (name, r) in a.records() {
            let mut want = r.clone();
            // The report writes the factor it reports (`GetPriority`'s side effect).
            want.priority_factor.get_or_insert(1000.0);
            want.weighted_accumulated_usage
                .get_or_insert(want.accumulated_usage);
            let got = back.record(name).unwrap();
            assert_eq!(got.priority_factor, want.priority_factor, "{name}");
            assert!(
                (got.priority.max(0.5) - want.priority.max(0.5)).abs() < 1e-9,
                "{name}"
            );
            let same = Record {
                priority: want.priority.max(0.5),
                ..got.clone()
            };
            assert_eq!(
                same,
                Record {
                    priority: want.priority.max(0.5),
                    ..want
                },
                "{name}"
            );
        }
        // The claims come back too: the next update agrees.
        assert_eq!(back.claims, a.claims);
        assert!(!a.claims.is_empty());
        a.update_priorities(5_600);
        back.update_priorities(5_600);
        for (name, r) in a.records() {
            let got = back.record(name).unwrap();
            assert!((got.priority - r.priority).abs() < 1e-9, "{name}");
            assert_eq!(got.accumulated_usage, r.accumulated_usage, "{name}");
        }
    }

    /// An accountant with no records writes out and reads back (a first
    /// cycle that matched nothing, resumed).
    #[test]
    fn no_records_round_trip() {
        let a = Accounts::new(600, 86_400.0, Vec::new());
        let text = a.to_userprio(|_| 1000.0);
        let back = Accounts::from_userprio(&text, "state", 0, 86_400.0, Vec::new()).unwrap();
        assert_eq!(back.last_update_time, 600);
        assert_eq!(back.records().count(), 0);
    }

    /// The report HTCondor prints reads in: the effective priority over the
    /// factor is the real priority; a group's factor of 0 leaves it as given.
    #[test]
    fn a_report_from_htcondor_reads_in() {
        let text = "LastUpdate = 1764300000\nName1 = \"<none>\"\nIsAccountingGroup1 = true\n\
                    Priority1 = 0.0\nPriorityFactor1 = 0.0\nWeightedResourcesUsed1 = 12.0\n\
                    Name2 = \"alice@d\"\nPriority2 = 1500.0\nPriorityFactor2 = 1000.0\n\
                    ResourcesUsed2 = 8\nWeightedResourcesUsed2 = 8.0\nAccumulatedUsage2 = 1234.5\n\
                    BeginUsageTime2 = 1764000000\nLastUsageTime2 = 1764300000\nNumSubmittors = 2\n";
        let a = Accounts::from_userprio(text, "userprio", 0, 86_400.0, Vec::new()).unwrap();
        assert_eq!(a.last_update_time, 1_764_300_000);
        let alice = a.record("alice@d").unwrap();
        assert_eq!((alice.priority, alice.priority_factor), (1.5, Some(1000.0)));
        assert_eq!(alice.accumulated_usage, 1234.5);
        assert_eq!(alice.weighted_accumulated_usage, None);
        let root = a.record("<none>").unwrap();
        assert_eq!(root.priority_factor, None);
        // With no claims in it, what is in use is for CheckMatches to find
        // again from the slots: it starts at 0, not counted twice.
        assert_eq!(
            (alice.resources_used, root.weighted_resources_used),
            (0, 0.0)
        );
        let bad = "Name1 = \"x@d\"\nPriority1 = 1.0\nName2 = \"y@d\"\nPriority2 = \"high\"\n";
        let e = Accounts::from_userprio(bad, "f", 0, 1.0, Vec::new()).unwrap_err();
        assert_eq!(e.to_string(), "f:4:1: \"y@d\": Priority is not a number");
    }
}
