//! The accountant across cycles (HTCondor's `Accountant.cpp`): each customer's
//! record (a submitter's or a group's), charged as matches start and end, and
//! aged at every update of the priorities. The cycle's own view of usage, match
//! by match, is `negotiate::accountant`; this is what carries from one cycle to
//! the next (issue 36, item 1).
//!
//! The rules, each as the function it follows does it:
//!
//! - **`UpdatePriorities` / `UpdateOnePriority`.** With `dt` seconds since the
//!   last update (nothing when `dt` is 0; only the time is taken when it is
//!   negative), `AgingFactor = 0.5^(dt / PRIORITY_HALFLIFE)` and, per record,
//!   `RecentUsage = ResourcesUsed + UnchargedTime / dt` (weighted alike, or the
//!   group's `HierWeightedResourcesUsed` when it is above 0), `Priority =
//!   max(0.5, Priority * AgingFactor + WeightedRecentUsage * (1 - AgingFactor))`
//!   with the old priority read as at least 0.5; `AccumulatedUsage +=
//!   ResourcesUsed * dt + UnchargedTime` (weighted alike, the weighted one
//!   starting from the unweighted when absent); `BeginUsageTime` set to now when
//!   it was 0 and there is accumulated usage; `LastUsageTime` to now when the
//!   unweighted recent usage is above 0; the uncharged times back to 0. HTCondor
//!   deletes a record whose priority is below 0.5 with no usage and no factor
//!   set, which never happens, since the priority was floored first: records
//!   are kept.
//! - **`AddMatch`.** The customer's `ResourcesUsed` + 1 and
//!   `WeightedResourcesUsed` + the slot's weight; its uncharged times less the
//!   time since the last update (the match did not run before it); the same for
//!   the record of its group (`GroupEntry::GetAssignedGroup`, `<none>` for the
//!   root); `HierWeightedResourcesUsed` + the weight for that group and each of
//!   its ancestors by name (`a.b.c`, `a.b`, `a`). The claim remembers the
//!   customer, the weight and the start time.
//! - **`RemoveMatch`.** The reverse, each count floored at 0, and the time the
//!   match ran since the later of its start and the last update added to the
//!   uncharged times, for the customer and its group.
//!
//! The records are read and written in `condor_userprio -l`'s layout
//! ([`Accounts::from_userprio`], [`Accounts::to_userprio`]).

mod report;

use super::priorities::MIN_PRIORITY;
use std::collections::BTreeMap;

/// The root group's name, HTCondor's `hgq_root_group->name`.
pub const ROOT_GROUP: &str = "<none>";

/// One customer's record (`Accountant.cpp`'s attributes of a `Customer.` ad).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Record {
    /// `Priority`: the real priority (0 when never set; read as at least 0.5).
    pub priority: f64,
    /// `PriorityFactor`, when set.
    pub priority_factor: Option<f64>,
    /// `ResourcesUsed`: claims held now.
    pub resources_used: i64,
    /// `WeightedResourcesUsed`: their slot weights.
    pub weighted_resources_used: f64,
    /// `HierWeightedResourcesUsed`: a group's, its subgroups' included.
    pub hier_weighted_resources_used: f64,
    /// `UnchargedTime`: claim-seconds not yet charged (negative for claims that
    /// started after the last update).
    pub uncharged_time: i64,
    /// `WeightedUnchargedTime`.
    pub weighted_uncharged_time: f64,
    /// `AccumulatedUsage`: claim-seconds charged so far.
    pub accumulated_usage: f64,
    /// `WeightedAccumulatedUsage`, when set (read as `AccumulatedUsage` when not).
    pub weighted_accumulated_usage: Option<f64>,
    /// `BeginUsageTime` (0: none yet).
    pub begin_usage_time: i64,
    /// `LastUsageTime` (0: none yet).
    pub last_usage_time: i64,
}

/// A claim the accountant knows of (a `Resource.` ad): who holds it, at what
/// weight, since when.
#[derive(Clone, Debug, PartialEq)]
pub struct Claim {
    /// The customer.
    pub customer: String,
    /// `SlotWeight`.
    pub slot_weight: f64,
    /// `StartTime`.
    pub start_time: i64,
}

/// The accountant's records across cycles.
#[derive(Clone, Debug)]
pub struct Accounts {
    /// `LastUpdateTime`.
    pub last_update_time: i64,
    /// `PRIORITY_HALFLIFE`, seconds.
    pub half_life: f64,
    /// `GROUP_NAMES`, each as written (`a.b` is `b` under `a`).
    groups: Vec<String>,
    customers: BTreeMap<String, Record>,
    claims: BTreeMap<String, Claim>,
}

/// The group customer `name` is charged to, as `GroupEntry::GetAssignedGroup`
/// finds it ([`super::knobs::assigned_group`]) among `groups`; a name without
/// `@` is a group's own record (or malformed) and goes to the root.
pub fn assigned_group<'a>(name: &str, groups: &'a [String]) -> &'a str {
    if !name.contains('@') {
        return ROOT_GROUP;
    }
    let find = |g: &str| groups.iter().find(|n| n.eq_ignore_ascii_case(g));
    super::knobs::assigned_group(name, find).map_or(ROOT_GROUP, String::as_str)
}

impl Accounts {
    /// No records; the last update at `now`.
    pub fn new(now: i64, half_life: f64, groups: Vec<String>) -> Accounts {
        Accounts {
            last_update_time: now,
            half_life,
            groups,
            customers: BTreeMap::new(),
            claims: BTreeMap::new(),
        }
    }

    /// Customer `name`'s record, if it has one.
    pub fn record(&self, name: &str) -> Option<&Record> {
        self.customers.get(name)
    }

    /// Sets customer `name`'s record (state read from elsewhere).
    pub fn set_record(&mut self, name: &str, record: Record) {
        self.customers.insert(name.to_string(), record);
    }

    /// Every record, by name.
    pub fn records(&self) -> impl Iterator<Item = (&str, &Record)> {
        self.customers.iter().map(|(n, r)| (n.as_str(), r))
    }

    /// The claim on resource `name`, if the accountant knows one.
    pub fn claim(&self, name: &str) -> Option<&Claim> {
        self.claims.get(name)
    }

    /// `AddMatch`: `customer` claims resource `resource` at `now`, at weight
    /// `slot_weight` (see the module docs).
    pub fn add_match(&mut self, customer: &str, resource: &str, slot_weight: f64, now: i64) {
        let since_update = now - self.last_update_time;
        let group = assigned_group(customer, &self.groups).to_string();
        for name in [customer, group.as_str()] {
            let r = self.customers.entry(name.to_string()).or_default();
            r.resources_used += 1;
            r.weighted_resources_used += slot_weight;
            r.uncharged_time -= since_update;
            r.weighted_uncharged_time -= since_update as f64 * slot_weight;
        }
        for part in ancestors(&group) {
            let r = self.customers.entry(part.to_string()).or_default();
            r.hier_weighted_resources_used += slot_weight;
        }
        let claim = Claim {
            customer: customer.to_string(),
            slot_weight,
            start_time: now,
        };
        self.claims.insert(resource.to_string(), claim);
    }

    /// `RemoveMatch`: the claim on `resource` ends at `now` (nothing when the
    /// accountant knows no claim there).
    pub fn remove_match(&mut self, resource: &str, now: i64) {
        let Some(claim) = self.claims.remove(resource) else {
            return;
        };
        let start = claim.start_time.max(self.last_update_time);
        let ran = now - start;
        let weight = claim.slot_weight;
        let group = assigned_group(&claim.customer, &self.groups).to_string();
        for name in [claim.customer.as_str(), group.as_str()] {
            let r = self.customers.entry(name.to_string()).or_default();
            r.resources_used = (r.resources_used - 1).max(0);
            r.weighted_resources_used = (r.weighted_resources_used - weight).max(0.0);
            r.uncharged_time += ran;
            r.weighted_uncharged_time += ran as f64 * weight;
        }
        for part in ancestors(&group) {
            let r = self.customers.entry(part.to_string()).or_default();
            r.hier_weighted_resources_used = (r.hier_weighted_resources_used - weight).max(0.0);
        }
    }

    /// `UpdatePriorities` at `now` (see the module docs).
    pub fn update_priorities(&mut self, now: i64) {
        let passed = now - self.last_update_time;
        if passed == 0 {
            return;
        }
        self.last_update_time = now;
        if passed < 0 {
            return;
        }
        let aging = 0.5f64.powf(passed as f64 / self.half_life);
        for r in self.customers.values_mut() {
            update_one(r, now, passed, aging);
        }
    }
}

/// `UpdateOnePriority` on one record.
fn update_one(r: &mut Record, now: i64, passed: i64, aging: f64) {
    let priority = r.priority.max(MIN_PRIORITY);
    let recent = r.resources_used as f64 + r.uncharged_time as f64 / passed as f64;
    let mut weighted_recent = r.weighted_resources_used + r.weighted_uncharged_time / passed as f64;
    if r.hier_weighted_resources_used > 0.0 {
        weighted_recent = r.hier_weighted_resources_used;
    }
    r.priority = (priority * aging + weighted_recent * (1.0 - aging)).max(MIN_PRIORITY);
    let weighted_accumulated = r.weighted_accumulated_usage.unwrap_or(r.accumulated_usage);
    r.accumulated_usage += (r.resources_used * passed + r.uncharged_time) as f64;
    r.weighted_accumulated_usage = Some(
        weighted_accumulated
            + r.weighted_resources_used * passed as f64
            + r.weighted_uncharged_time,
    );
    if r.accumulated_usage > 0.0 && r.begin_usage_time == 0 {
        r.begin_usage_time = now;
    }
    if recent > 0.0 {
        r.last_usage_time = now;
    }
    r.uncharged_time = 0;
    r.weighted_uncharged_time = 0.0;
}

/// A group's name and its ancestors' by name (`a.b.c`, `a.b`, `a`), as
/// `AddMatch` walks them; the root's alone.
fn ancestors(group: &str) -> impl Iterator<Item = &str> {
    let mut next = Some(group);
    std::iter::from_fn(move || {
        let here = next?;
        next = here.rfind('.').map(|i| &here[..i]);
        Some(here)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: f64 = 86_400.0;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// `UpdateOnePriority`: a submitter holding 4 slots of weight 2 over one
    /// half-life moves halfway from its priority to its weighted usage (8),
    /// and accumulates 4 claims x a day of usage (weighted: 8 x a day).
    #[test]
    fn priority_moves_toward_usage_by_the_aging_factor() {
        let mut a = Accounts::new(0, DAY, Vec::new());
        for slot in 0..4 {
            a.add_match("u@d", &format!("slot{slot}"), 2.0, 0);
        }
        a.update_priorities(86_400);
        let r = a.record("u@d").unwrap();
        // 0.5 (the floor of an unset priority) * 0.5 + 8 * 0.5.
        assert!(close(r.priority, 4.25), "{}", r.priority);
        assert!(close(r.accumulated_usage, 4.0 * DAY));
        assert!(close(r.weighted_accumulated_usage.unwrap(), 8.0 * DAY));
        assert_eq!((r.begin_usage_time, r.last_usage_time), (86_400, 86_400));
        assert_eq!((r.uncharged_time, r.weighted_uncharged_time), (0, 0.0));
        // A quarter of a half-life later, with no claims: aged by 0.5^0.25.
        for slot in 0..4 {
            a.remove_match(&format!("slot{slot}"), 86_400);
        }
        a.update_priorities(86_400 + 21_600);
        let r = a.record("u@d").unwrap();
        let aging = 0.5f64.powf(0.25);
        assert!(close(r.priority, 4.25 * aging), "{}", r.priority);
        assert_eq!(r.last_usage_time, 86_400, "no recent usage");
    }

    /// `AddMatch` and `RemoveMatch` between two updates: a claim that started
    /// after the last update and ended before the next is charged for the
    /// time it ran (its uncharged time), not the whole interval.
    #[test]
    fn a_claim_between_updates_is_charged_the_time_it_ran() {
        let mut a = Accounts::new(1_000, 100.0, Vec::new());
        a.add_match("u@d", "slot1", 3.0, 1_030);
        let r = a.record("u@d").unwrap();
        assert_eq!(r.uncharged_time, -30);
        assert!(close(r.weighted_uncharged_time, -90.0));
        a.remove_match("slot1", 1_080);
        let r = a.record("u@d").unwrap();
        // -30 + (1080 - 1030) = 20 claim-seconds, 60 weighted.
        assert_eq!((r.resources_used, r.uncharged_time), (0, 20));
        assert!(close(r.weighted_uncharged_time, 60.0));
        a.update_priorities(1_100);
        let r = a.record("u@d").unwrap();
        let aging = 0.5f64.powf(1.0);
        // Weighted recent usage 60 / 100.
        assert!(close(r.priority, 0.5 * aging + 0.6 * (1.0 - aging)));
        assert!(close(r.accumulated_usage, 20.0));
        assert!(close(r.weighted_accumulated_usage.unwrap(), 60.0));
        assert_eq!(r.last_usage_time, 1_100);
        // A claim from before the last update is charged from the update on.
        a.add_match("u@d", "slot2", 1.0, 1_150);
        a.update_priorities(1_200);
        a.remove_match("slot2", 1_250);
        assert_eq!(a.record("u@d").unwrap().uncharged_time, 50);
    }

    /// The group record and the hierarchy: a match of `group_a.b.u@d` charges
    /// `group_a.b` and adds its weight to the hierarchical usage of `group_a.b`
    /// and `group_a`, which then drives their priorities.
    #[test]
    fn groups_are_charged_up_the_tree() {
        let groups = vec!["group_a".to_string(), "group_a.b".to_string()];
        let mut a = Accounts::new(0, 10.0, groups);
        a.add_match("group_a.b.u@d", "s1", 2.0, 0);
        a.add_match("x@d", "s2", 1.0, 0);
        let rec = |n: &str| a.record(n).unwrap().clone();
        assert_eq!(rec("group_a.b").resources_used, 1);
        assert!(close(rec("group_a.b").hier_weighted_resources_used, 2.0));
        assert!(close(rec("group_a").hier_weighted_resources_used, 2.0));
        assert_eq!(rec("group_a").resources_used, 0, "only its own claims");
        assert_eq!(rec(ROOT_GROUP).resources_used, 1);
        a.update_priorities(10);
        // group_a has no claims of its own: its priority follows the hierarchy.
        assert!(close(
            a.record("group_a").unwrap().priority,
            0.5 * 0.5 + 2.0 * 0.5
        ));
        a.remove_match("s1", 10);
        let rec = |n: &str| a.record(n).unwrap().clone();
        assert_eq!(rec("group_a").hier_weighted_resources_used, 0.0);
        assert_eq!(rec("group_a.b").weighted_resources_used, 0.0);
    }

    /// `UpdatePriorities`: no time passed does nothing; a clock that went back
    /// only takes the time.
    #[test]
    fn no_time_or_negative_time_ages_nothing() {
        let mut a = Accounts::new(500, 10.0, Vec::new());
        a.add_match("u@d", "s", 1.0, 500);
        a.update_priorities(500);
        assert_eq!(a.record("u@d").unwrap().priority, 0.0);
        a.update_priorities(400);
        assert_eq!(a.last_update_time, 400);
        assert_eq!(a.record("u@d").unwrap().priority, 0.0);
    }

    /// `UpdateOnePriority` deletes a record below 0.5 with no usage and no
    /// factor, after flooring the priority at 0.5: never. An idle record stays,
    /// at 0.5.
    #[test]
    fn idle_records_stay_at_the_floor() {
        let mut a = Accounts::new(0, 10.0, Vec::new());
        a.set_record("idle@d", Record::default());
        a.update_priorities(1_000);
        let r = a.record("idle@d").unwrap();
        assert_eq!(r.priority, MIN_PRIORITY);
        assert_eq!(r.weighted_accumulated_usage, Some(0.0));
        assert_eq!((r.begin_usage_time, r.last_usage_time), (0, 0));
    }

    /// `GroupEntry::GetAssignedGroup`.
    #[test]
    fn customers_find_their_deepest_configured_group() {
        let groups = vec!["group_a".to_string(), "group_a.b".to_string()];
        for (name, want) in [
            ("u@d", ROOT_GROUP),
            ("group_a", ROOT_GROUP),
            ("group_a.u@d", "group_a"),
            ("GROUP_A.B.u@d", "group_a.b"),
            ("group_a.b.c.u@d", "group_a.b"),
            ("group_z.u@d", ROOT_GROUP),
            ("group_a.u.v@d", "group_a"),
        ] {
            assert_eq!(assigned_group(name, &groups), want, "{name}");
        }
    }
}
