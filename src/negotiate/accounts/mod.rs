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

use super::priorities::{Priorities, PriorityEntry, MIN_PRIORITY};
use super::report::CycleMatch;
use super::slots::SlotTable;
use crate::ad::ClassAd;
use crate::engine::eval_attr_once;
use classad_vm::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

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
    /// `Floor` (`condor_userprio -setfloor`; 0 for none, as `GetFloor` reads
    /// anything below 1).
    pub floor: i64,
    /// `Ceiling` (`-setceiling`; `None` for none, as `GetCeiling` reads
    /// anything negative).
    pub ceiling: Option<i64>,
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
    /// Per consumption-policy slot, its matches since the last
    /// [`Accounts::check_matches`] (`NumCpMatches`).
    cp_matches: BTreeMap<String, u32>,
}

/// A slot ad as the accountant reads it (`Accountant.cpp`'s helpers).
#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    /// `GetResourceName`: `Name@StartdIpAddr` (`Name@` without an address).
    pub name: String,
    /// `IsClaimed`: for a slot `Claimed` or `Preempting`, its
    /// `AccountingGroup`, else its `RemoteUser`.
    pub customer: Option<String>,
    /// `State` is `Matched`.
    pub matched: bool,
    /// `GetSlotWeight`.
    pub weight: f64,
}

impl Resource {
    /// The resource of slot ad `ad` at weight `weight`; `None` for an ad
    /// without a `Name` (HTCondor's accountant stops on one).
    pub fn of(ad: &Arc<ClassAd>, weight: f64) -> Option<Resource> {
        let string = |attr: &str| match eval_attr_once(ad, attr, None) {
            Ok(Value::Str(s)) => Some(s.as_str().to_string()),
            _ => None,
        };
        let name = string("Name")?;
        let address = string("StartdIpAddr").unwrap_or_default();
        let state = string("State");
        let claimed = matches!(state.as_deref(), Some("Claimed" | "Preempting"));
        Some(Resource {
            name: format!("{name}@{address}"),
            customer: if claimed {
                string("AccountingGroup").or_else(|| string("RemoteUser"))
            } else {
                None
            },
            matched: state.as_deref() == Some("Matched"),
            weight,
        })
    }
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
            cp_matches: BTreeMap::new(),
        }
    }

    /// Records made from a priorities file's entries (the plain form or
    /// `condor_userprio`'s): each submitter's real priority, factor, floor
    /// and ceiling, its usage left to be found again from the claimed slots
    /// ([`Accounts::check_matches`]); the last update at `now`.
    pub fn from_priorities(
        priorities: &Priorities,
        now: i64,
        half_life: f64,
        groups: Vec<String>,
    ) -> Accounts {
        let mut a = Accounts::new(now, half_life, groups);
        for (name, e) in priorities.iter() {
            let record = Record {
                priority: e.real,
                priority_factor: e.factor,
                floor: e.floor.map_or(0, |f| f as i64),
                ceiling: e.ceiling.filter(|c| *c >= 0.0).map(|c| c as i64),
                ..Record::default()
            };
            a.set_record(name, record);
        }
        a
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

    /// What a cycle starts from (section 1): each submitter's real priority,
    /// factor, weighted usage, floor and ceiling, groups' own records left
    /// out (the cycle sums its submitters' usage per group itself).
    pub fn priorities(&self) -> Priorities {
        let is_group = |name: &str| {
            name == ROOT_GROUP || self.groups.iter().any(|g| g.eq_ignore_ascii_case(name))
        };
        Priorities::from_entries(
            self.customers
                .iter()
                .filter(|(name, _)| !is_group(name))
                .map(|(name, r)| {
                    let entry = PriorityEntry {
                        real: r.priority,
                        factor: r.priority_factor,
                        usage: r.weighted_resources_used,
                        floor: (r.floor > 0).then_some(r.floor as f64),
                        ceiling: r.ceiling.map(|c| c as f64),
                    };
                    (name.clone(), entry)
                }),
        )
    }

    /// The claim on resource `name`, if the accountant knows one.
    pub fn claim(&self, name: &str) -> Option<&Claim> {
        self.claims.get(name)
    }

    /// `AddMatch`: `customer` claims resource `resource` at `now`, at weight
    /// `slot_weight` (see the module docs). A claim the accountant knows of
    /// already stays as it is when the customer is the same, and is ended
    /// first when it is another.
    pub fn add_match(&mut self, customer: &str, resource: &str, slot_weight: f64, now: i64) {
        if let Some(claim) = self.claims.get(resource) {
            if claim.customer == customer {
                return;
            }
            self.remove_match(resource, now);
        }
        self.charge(customer, resource, slot_weight, now);
    }

    /// `AddMatch` of a match on a consumption-policy slot (`CP_MATCH_COST`):
    /// a claim of its own per match, `<resource>_cp_match_NNN`, at the
    /// match's cost.
    pub fn add_cp_match(&mut self, customer: &str, resource: &str, cost: f64, now: i64) {
        self.cp_match(customer, resource, cost, now);
    }

    /// [`Accounts::add_cp_match`], the name of the claim made.
    fn cp_match(&mut self, customer: &str, resource: &str, cost: f64, now: i64) -> String {
        let n = self.cp_matches.entry(resource.to_string()).or_insert(0);
        let name = format!("{resource}_cp_match_{:03}", *n);
        *n += 1;
        self.charge(customer, &name, cost, now);
        name
    }

    /// `AddMatch` for each of a cycle's `matches` on `slots` at `now`: a
    /// consumption-policy slot's at the match's cost, any other's at the
    /// slot's weight (`GetSlotWeight`). The names of the claims charged.
    pub fn charge_matches(
        &mut self,
        slots: &SlotTable,
        matches: &[CycleMatch],
        now: i64,
    ) -> Vec<String> {
        let mut charged = Vec::new();
        let by_file: ahash::AHashMap<u32, usize> = slots
            .file_index
            .iter()
            .enumerate()
            .map(|(t, &f)| (f, t))
            .collect();
        for m in matches {
            let Some(&t) = by_file.get(&m.slot) else {
                continue;
            };
            let Some(r) = Resource::of(&slots.ads[t], slots.weight[t]) else {
                continue;
            };
            if slots.consumption[t] {
                charged.push(self.cp_match(&m.submitter, &r.name, m.cost, now));
            } else {
                self.add_match(&m.submitter, &r.name, r.weight, now);
                charged.push(r.name);
            }
        }
        charged
    }

    /// `CheckMatches` at the start of a cycle: a claim whose slot is gone or
    /// no longer claimed by its customer (nor `Matched`) is ended; a slot
    /// claimed by a customer the accountant does not know of there is charged
    /// to it from `now`.
    pub fn check_matches(&mut self, resources: &[Resource], now: i64) {
        let mut by_name: BTreeMap<&str, &Resource> = BTreeMap::new();
        for r in resources {
            by_name.entry(r.name.as_str()).or_insert(r);
        }
        let first = |n: &str| by_name.get(n).copied();
        let broken = self.broken_claims(self.claims.keys().map(String::as_str), first);
        let claimed: Vec<&Resource> = resources.iter().collect();
        self.end_and_add(broken, &claimed, now);
    }

    /// [`Accounts::check_matches`] of the claims named `names` (sorted) and
    /// the slots `claimed` (in the pool's order), `first(name)` the first
    /// slot of that name: what the whole check does to those, the whole
    /// check when every claim is named and every slot given. A caller that
    /// knows which slots changed since the last check (and which claims the
    /// last cycle made) checks only them (a living pool: the others' claims
    /// are as the last check left them, which checking again leaves so).
    pub fn check_matches_of<'r>(
        &mut self,
        names: &[String],
        first: impl Fn(&str) -> Option<&'r Resource>,
        claimed: &[&Resource],
        now: i64,
    ) {
        debug_assert!(names.windows(2).all(|w| w[0] < w[1]), "sorted");
        let broken = self.broken_claims(names.iter().map(String::as_str), first);
        self.end_and_add(broken, claimed, now);
    }

    /// Of the claims named `names` (in name order), those whose slot is gone
    /// (`first(name)`, the first slot of that name) or neither `Matched` nor
    /// claimed by the claim's customer.
    fn broken_claims<'n, 'r>(
        &self,
        names: impl Iterator<Item = &'n str>,
        first: impl Fn(&str) -> Option<&'r Resource>,
    ) -> Vec<String> {
        names
            .filter(|name| {
                let Some(claim) = self.claims.get(*name) else {
                    return false;
                };
                match first(name) {
                    None => true,
                    Some(r) => !r.matched && r.customer.as_deref() != Some(&claim.customer),
                }
            })
            .map(str::to_string)
            .collect()
    }

    /// The rest of `CheckMatches`: the `broken` claims ended (in order), and
    /// each of the `claimed` slots' claims made its customer's.
    fn end_and_add(&mut self, broken: Vec<String>, claimed: &[&Resource], now: i64) {
        for name in broken {
            self.remove_match(&name, now);
        }
        self.cp_matches.clear();
        for r in claimed {
            if let Some(customer) = &r.customer {
                self.add_match(customer, &r.name, r.weight, now);
            }
        }
    }

    /// `AddMatch`'s charges: the customer, its group and the group's
    /// ancestors, and the claim remembered.
    fn charge(&mut self, customer: &str, resource: &str, slot_weight: f64, now: i64) {
        let since_update = now - self.last_update_time;
        let group = assigned_group(customer, &self.groups);
        for name in [customer, group] {
            let r = record(&mut self.customers, name);
            r.resources_used += 1;
            r.weighted_resources_used += slot_weight;
            r.uncharged_time -= since_update;
            r.weighted_uncharged_time -= since_update as f64 * slot_weight;
        }
        for part in ancestors(group) {
            let r = record(&mut self.customers, part);
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
        let group = assigned_group(&claim.customer, &self.groups);
        for name in [claim.customer.as_str(), group] {
            let r = record(&mut self.customers, name);
            r.resources_used = (r.resources_used - 1).max(0);
            r.weighted_resources_used = (r.weighted_resources_used - weight).max(0.0);
            r.uncharged_time += ran;
            r.weighted_uncharged_time += ran as f64 * weight;
        }
        for part in ancestors(group) {
            let r = record(&mut self.customers, part);
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

/// `name`'s record, made when there is none (looked up first: a name is
/// allocated only for a new record, and a cycle charges thousands).
fn record<'a>(customers: &'a mut BTreeMap<String, Record>, name: &str) -> &'a mut Record {
    if !customers.contains_key(name) {
        customers.insert(name.to_string(), Record::default());
    }
    customers.get_mut(name).expect("just made")
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

    /// A priorities file's entries become records: priority, factor, a
    /// floor above 0 and a ceiling of 0 or more; no usage (it is found again
    /// from the claimed slots) and no floor or ceiling where none is given.
    #[test]
    fn records_from_a_priorities_file() {
        let p = Priorities::parse(
            "a@d 2.5 10 7 3 4
b@d 1 100 0 0 -1
c@d 40
",
            "p",
        )
        .unwrap();
        let a = Accounts::from_priorities(&p, 500, DAY, Vec::new());
        assert_eq!(a.last_update_time, 500);
        let r = a.record("a@d").unwrap();
        assert_eq!((r.priority, r.priority_factor), (2.5, Some(10.0)));
        assert_eq!(
            (r.floor, r.ceiling, r.weighted_resources_used),
            (3, Some(4), 0.0)
        );
        let r = a.record("b@d").unwrap();
        assert_eq!((r.floor, r.ceiling), (0, None));
        let r = a.record("c@d").unwrap();
        assert_eq!(
            (r.priority, r.priority_factor, r.ceiling),
            (40.0, None, None)
        );
        assert_eq!(a.priorities().get("a@d").unwrap().floor, Some(3.0));
    }

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

    fn slot(name: &str, state: &str, who: &str) -> Arc<ClassAd> {
        let text = format!(
            "Name = \"{name}\"\nStartdIpAddr = \"<1.2.3.4:9618>\"\nState = \"{state}\"\n{who}"
        );
        Arc::new(crate::ad::read_ads(&text, "t").unwrap().remove(0))
    }

    /// `CheckMatches` (`Accountant.cpp` as it was before 2026's commit
    /// 8401ad188a, whose rebuild every cycle lets `ResourcesUsed` grow without
    /// end): claims found again from the slots (`IsClaimed`: `Claimed` or
    /// `Preempting`, the customer `AccountingGroup` else `RemoteUser`, the
    /// resource `Name@StartdIpAddr`); a claim whose slot went away or changed
    /// hands is ended (`RemoveMatch`, charging the time it ran); a `Matched`
    /// slot keeps its claim.
    #[test]
    fn claims_are_found_again_from_the_slots() {
        let first = [
            slot(
                "s1",
                "Claimed",
                "AccountingGroup = \"group_a.u@d\"\nRemoteUser = \"u@d\"",
            ),
            slot("s2", "Claimed", "RemoteUser = \"v@d\""),
            slot("s3", "Unclaimed", ""),
            slot(
                "s4",
                "Preempting",
                "RemoteUser = \"v@d\"\nPreemptingUser = \"w@d\"",
            ),
            slot("s5", "Owner", "RemoteUser = \"x@d\""),
        ];
        let resources = |ads: &[Arc<ClassAd>]| -> Vec<Resource> {
            ads.iter().map(|a| Resource::of(a, 2.0).unwrap()).collect()
        };
        assert_eq!(resources(&first)[0].name, "s1@<1.2.3.4:9618>");
        let mut a = Accounts::new(1_000, DAY, vec!["group_a".into()]);
        a.check_matches(&resources(&first), 1_000);
        let used = |a: &Accounts, n: &str| {
            a.record(n)
                .map_or((0, 0.0), |r| (r.resources_used, r.weighted_resources_used))
        };
        assert_eq!(used(&a, "group_a.u@d"), (1, 2.0));
        assert_eq!(used(&a, "group_a"), (1, 2.0));
        assert_eq!(used(&a, "v@d"), (2, 4.0), "Claimed and Preempting");
        assert_eq!(used(&a, "<none>"), (2, 4.0));
        assert_eq!(used(&a, "x@d"), (0, 0.0), "Owner is not claimed");
        // 600 s later: s2 is gone, s1 is claimed by w, s3 by v, s4 is Matched.
        let second = [
            slot("s1", "Claimed", "RemoteUser = \"w@d\""),
            slot("s3", "Claimed", "RemoteUser = \"v@d\""),
            slot("s4", "Matched", ""),
        ];
        a.check_matches(&resources(&second), 1_600);
        assert_eq!(used(&a, "group_a.u@d"), (0, 0.0));
        assert_eq!(a.record("group_a.u@d").unwrap().uncharged_time, 600);
        assert_eq!(used(&a, "w@d"), (1, 2.0));
        assert_eq!(used(&a, "v@d"), (2, 4.0), "s4 kept while Matched, s3 new");
        assert_eq!(
            a.record("v@d").unwrap().uncharged_time,
            600 - 600,
            "s2's 600 s, less s3's since the update"
        );
        // The same slots again change nothing.
        let before = a.record("v@d").cloned();
        a.check_matches(&resources(&second), 1_700);
        assert_eq!(a.record("v@d").cloned(), before);
    }

    /// `AddMatch` on a resource claimed by another customer ends that claim
    /// first (a preemption); by the same customer it changes nothing.
    #[test]
    fn a_match_on_a_claimed_resource_replaces_the_claim() {
        let mut a = Accounts::new(0, DAY, Vec::new());
        a.add_match("u@d", "s1", 1.0, 0);
        a.add_match("u@d", "s1", 1.0, 50);
        assert_eq!(a.record("u@d").unwrap().resources_used, 1);
        a.add_match("v@d", "s1", 1.0, 100);
        let u = a.record("u@d").unwrap();
        assert_eq!((u.resources_used, u.uncharged_time), (0, 100));
        assert_eq!(a.claim("s1").unwrap().customer, "v@d");
        // Matches on a consumption-policy slot are claims of their own.
        a.add_cp_match("u@d", "p1", 2.0, 100);
        a.add_cp_match("u@d", "p1", 3.0, 100);
        assert_eq!(a.record("u@d").unwrap().weighted_resources_used, 5.0);
        assert!(a.claim("p1_cp_match_001").is_some());
    }

    /// What a cycle starts from: submitters' records, groups' left out.
    #[test]
    fn the_cycle_reads_submitters_records() {
        let mut a = Accounts::new(0, DAY, vec!["group_a".into()]);
        a.add_match("group_a.u@d", "s1", 3.0, 0);
        let mut r = a.record("group_a.u@d").unwrap().clone();
        (r.priority, r.priority_factor, r.floor, r.ceiling) = (2.0, Some(10.0), 4, Some(9));
        a.set_record("group_a.u@d", r);
        let p = a.priorities();
        let e = p.get("group_a.u@d").unwrap();
        assert_eq!((e.real, e.factor, e.usage), (2.0, Some(10.0), 3.0));
        assert_eq!((e.floor, e.ceiling), (Some(4.0), Some(9.0)));
        assert!(p.get("group_a").is_none() && p.get("<none>").is_none());
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
