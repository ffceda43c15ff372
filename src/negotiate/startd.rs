//! What HTCondor's startd (and the schedd that claims for a match) make of a
//! match, so that the next cycle sees the slots as HTCondor's negotiator would
//! (issue 36 item 5; docs/negotiator.md section 17): a static slot claimed and
//! running the job, a partitionable slot carved into a dynamic slot for it,
//! and a claim released when its job ends.
//!
//! Each rule as the function it follows does it (`src/condor_startd.V6`):
//!
//! - **The claim's attributes** (`Claim::publish`, `accept_request_claim`,
//!   `Claim::loadAccountingInfo`, `Claim::loadRequestInfo`): `State` `Claimed`,
//!   `Activity` `Busy`, `EnteredCurrentState` and `EnteredCurrentActivity`;
//!   `RemoteUser` and `RemoteOwner` both the job's `User`; `AccountingGroup`
//!   the job's, with the `@domain` of its `User` (only when the job has one);
//!   `CurrentRank` the slot's `Rank` against the job (`Resource::compute_rank`,
//!   0 when it is not a number); `ConcurrencyLimits` the job's evaluated
//!   against the slot, when a string that is not empty;
//!   `RemoteNegotiatingGroup` (the group negotiated in, `<none>` for the root)
//!   with `RemoteAutoregroup = false` (the negotiator's copy of it deletes it,
//!   `matchmakingProtocol`); `RemoteGroup` when groups are configured; `JobId`,
//!   `GlobalJobId` and `JobStart`.
//! - **A partitionable slot** (`create_dslot`): the job's `RequestCpus`,
//!   `RequestMemory` and `RequestDisk` rounded by `MODIFY_REQUEST_EXPR_*`'s
//!   defaults (`quantize(RequestCpus,{1})`, `quantize(RequestMemory,{128})`,
//!   `quantize(RequestDisk,{DiskQuantum ?: 1024})`), kept as they were when
//!   the rounded request no longer meets the slot's `Requirements` (all three
//!   together), no slot at all when neither does; the amounts from
//!   `_condor_Request*` else `Request*` (CPUs 1 when neither; memory and disk
//!   required), at least 1 CPU and 1 of memory. The dynamic slot
//!   (`Resource::Resource`, `publish_static`) is `slot<SlotID>_<n>@<host>`,
//!   `SlotType` `Dynamic`, `DynamicSlot`, `ParentSlotId`, `DSlotId`, no
//!   `PartitionableSlot`, its `Cpus`, `Memory`, `Disk` and `TotalSlot*` the
//!   amounts granted, and the claim's attributes; the partitionable slot keeps
//!   the rest (`TotalSlot*` unchanged) and counts `NumDynamicSlots`. Under a
//!   consumption policy (`cp_supports_policy`, `cp_compute_consumption`) the
//!   amounts are instead each resource of `MachineResources` (Swap aside) as
//!   its `Consumption<resource>` gives it for the (rounded) request: CPUs at
//!   least 1/128, memory's integer part, disk rounded up.
//! - **A claim released** (`Resource::release_claim`, `enter_action(owner)`):
//!   a static slot back to `Unclaimed`/`Idle`, every attribute of the claim
//!   gone and `CurrentRank` 0; a dynamic slot deleted and its resources back
//!   in its partitionable slot (`ResMgr::removeResource`, `clear_parent`).

use super::consumption::{consumption, has_policy, preserving_integers, resources};
use crate::ad::ClassAd;
use crate::engine::{eval_attr_once, eval_once};
use crate::matching::policy::policy_expr;
use crate::syntax::ast::{Expr, ExprRef};
use crate::Value;
use std::sync::Arc;

/// The attributes a claim adds to a slot, which its release takes away.
pub const CLAIM_ATTRIBUTES: [&str; 17] = [
    "RemoteUser",
    "RemoteOwner",
    "AccountingGroup",
    "ConcurrencyLimits",
    "RemoteGroup",
    "RemoteNegotiatingGroup",
    "RemoteAutoregroup",
    "RemoteScheddName",
    "ClientMachine",
    "JobId",
    "GlobalJobId",
    "JobStart",
    "TotalJobRunTime",
    "PreemptingUser",
    "PreemptingAccountingGroup",
    "PreemptingRank",
    "PreemptingConcurrencyLimits",
];

/// Where a claim is made: the time, and the groups the match was negotiated
/// in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClaimContext {
    /// Seconds since 1970.
    pub now: i64,
    /// The group the match was negotiated in (`<none>` for the root), when
    /// the negotiator sets `RemoteNegotiatingGroup` (it always does).
    pub negotiating_group: Option<String>,
    /// The submitter's group (`RemoteGroup`), only when groups are configured.
    pub submitter_group: Option<String>,
}

fn set(ad: &mut ClassAd, name: &str, v: Value) {
    ad.insert_expr(name, Expr::literal(v));
}

/// `name` of `ad` (against `target`) when a string.
pub(crate) fn string(
    ad: &Arc<ClassAd>,
    name: &str,
    target: Option<&Arc<ClassAd>>,
) -> Option<String> {
    match eval_attr_once(ad, name, target) {
        Ok(Value::Str(s)) => Some(s.as_str().to_string()),
        _ => None,
    }
}

/// `EvalInteger`: an integer, a real's integer part, a boolean as 0 or 1.
pub(crate) fn integer(ad: &Arc<ClassAd>, name: &str, target: Option<&Arc<ClassAd>>) -> Option<i64> {
    match eval_attr_once(ad, name, target) {
        Ok(Value::Int(i)) => Some(i),
        Ok(Value::Real(r)) if r.is_finite() => Some(r as i64),
        Ok(Value::Bool(b)) => Some(i64::from(b)),
        _ => None,
    }
}

/// The claim's attributes (see the module docs) set on `slot` for `job`.
fn claim_attributes(slot: &mut ClassAd, job: &Arc<ClassAd>, ctx: &ClaimContext) {
    let now = ctx.now;
    let before = Arc::new(slot.clone());
    let rank = match eval_attr_once(&before, "Rank", Some(job)) {
        Ok(Value::Int(i)) => i as f64,
        Ok(Value::Real(r)) => r,
        Ok(Value::Bool(b)) => f64::from(u8::from(b)),
        _ => 0.0,
    };
    set(slot, "State", Value::str("Claimed"));
    set(slot, "Activity", Value::str("Busy"));
    set(slot, "EnteredCurrentState", Value::Int(now));
    set(slot, "EnteredCurrentActivity", Value::Int(now));
    set(slot, "CurrentRank", Value::Real(rank));
    let user = string(job, "User", None);
    if let Some(u) = user.as_deref().filter(|u| !u.is_empty()) {
        set(slot, "RemoteUser", Value::str(u));
        set(slot, "RemoteOwner", Value::str(u));
    }
    if let Some(group) = string(job, "AccountingGroup", None) {
        let domain = user
            .as_deref()
            .and_then(|u| u.rfind('@').map(|i| &u[i..]))
            .unwrap_or("");
        set(
            slot,
            "AccountingGroup",
            Value::str(format!("{group}{domain}")),
        );
    }
    if let Some(limits) = string(job, "ConcurrencyLimits", Some(&before)) {
        if !limits.is_empty() {
            set(slot, "ConcurrencyLimits", Value::str(limits));
        }
    }
    if let Some(g) = &ctx.negotiating_group {
        set(slot, "RemoteNegotiatingGroup", Value::str(g.as_str()));
        set(slot, "RemoteAutoregroup", Value::Bool(false));
    }
    if let Some(g) = &ctx.submitter_group {
        set(slot, "RemoteGroup", Value::str(g.as_str()));
    }
    let (cluster, proc) = (
        integer(job, "ClusterId", None),
        integer(job, "ProcId", None),
    );
    if let (Some(c), Some(p)) = (cluster, proc.or(Some(0))) {
        if c > 0 && p >= 0 {
            set(slot, "JobId", Value::str(format!("{c}.{p}")));
        }
    }
    if let Some(g) = string(job, "GlobalJobId", None) {
        set(slot, "GlobalJobId", Value::str(g));
    }
    set(slot, "JobStart", Value::Int(now));
    // TotalJobRunTime is published only once above 0.
    slot.remove("TotalJobRunTime");
}

/// Static slot `slot` claimed by `job`, which runs (Claimed/Busy).
pub fn claim_static(slot: &Arc<ClassAd>, job: &Arc<ClassAd>, ctx: &ClaimContext) -> ClassAd {
    let mut ad = (**slot).clone();
    claim_attributes(&mut ad, job, ctx);
    ad
}

/// `slot` with its claim released (Unclaimed/Idle): every attribute of the
/// claim gone, `CurrentRank` 0, the state entered at `now`.
pub fn release_static(slot: &ClassAd, now: i64) -> ClassAd {
    let mut ad = slot.clone();
    for name in CLAIM_ATTRIBUTES {
        ad.remove(name);
    }
    set(&mut ad, "State", Value::str("Unclaimed"));
    set(&mut ad, "Activity", Value::str("Idle"));
    set(&mut ad, "EnteredCurrentState", Value::Int(now));
    set(&mut ad, "EnteredCurrentActivity", Value::Int(now));
    set(&mut ad, "CurrentRank", Value::Real(0.0));
    ad
}

/// The resources a dynamic slot takes from its partitionable slot.
const CARVED: [(&str, &str); 3] = [
    ("Cpus", "RequestCpus"),
    ("Memory", "RequestMemory"),
    ("Disk", "RequestDisk"),
];

/// `MODIFY_REQUEST_EXPR_REQUESTCPUS`, `_REQUESTMEMORY` and `_REQUESTDISK`'s
/// defaults (`param_info.in`; `CATALOG_SPACE` is 0 for a job without
/// `RequestedCatalogs`).
fn modify_request_exprs() -> [(&'static str, ExprRef); 3] {
    let e = |t: &str| policy_expr(t).expect("HTCondor's default MODIFY_REQUEST_EXPR");
    [
        ("RequestCpus", e("quantize(RequestCpus, {1})")),
        ("RequestMemory", e("quantize(RequestMemory, {128})")),
        (
            "RequestDisk",
            e("quantize(RequestDisk, {TARGET.DiskQuantum ?: 1024})"),
        ),
    ]
}

/// The host part of a slot's `Name` (after its `@`; empty without one).
fn host(slot: &Arc<ClassAd>) -> String {
    string(slot, "Name", None)
        .and_then(|n| n.split_once('@').map(|(_, h)| h.to_string()))
        .unwrap_or_default()
}

/// The name of partitionable slot `pslot`'s dynamic slot `sub_id`:
/// `slot<SlotID>_<sub_id>@<host>` (`SlotID` 1 when it has none).
pub fn dynamic_slot_name(pslot: &Arc<ClassAd>, sub_id: u32) -> String {
    let slot_id = integer(pslot, "SlotID", None).unwrap_or(1);
    format!("slot{slot_id}_{sub_id}@{}", host(pslot))
}

/// The name of dynamic slot `dslot`'s partitionable slot, from its
/// `ParentSlotId` and host: `None` for a slot that is not dynamic.
pub fn parent_slot_name(dslot: &Arc<ClassAd>) -> Option<String> {
    let dynamic = matches!(
        eval_attr_once(dslot, "DynamicSlot", None),
        Ok(Value::Bool(true))
    );
    let parent = integer(dslot, "ParentSlotId", None).filter(|_| dynamic)?;
    Some(format!("slot{parent}@{}", host(dslot)))
}

/// True when `slot` is partitionable (`PartitionableSlot` true).
pub fn is_partitionable(slot: &Arc<ClassAd>) -> bool {
    matches!(
        eval_attr_once(slot, "PartitionableSlot", None),
        Ok(Value::Bool(true))
    )
}

/// True when `slot` is claimed: `State` `Claimed` or `Preempting`, as the
/// negotiator reads it.
pub fn is_claimed(slot: &Arc<ClassAd>) -> bool {
    matches!(
        string(slot, "State", None).as_deref(),
        Some("Claimed" | "Preempting")
    )
}

/// A partitionable slot carved for `job` (see the module docs): the
/// partitionable slot left, and the dynamic slot numbered `sub_id` (the
/// lowest the partitionable slot has free), claimed and running the job;
/// `None` when the slot cannot hold the job, rounded or not.
pub fn carve(
    pslot: &Arc<ClassAd>,
    job: &Arc<ClassAd>,
    sub_id: u32,
    ctx: &ClaimContext,
) -> Option<(ClassAd, ClassAd)> {
    let accepts = |request: &Arc<ClassAd>| {
        matches!(
            eval_attr_once(pslot, "Requirements", Some(request)),
            Ok(Value::Bool(true))
        )
    };
    let mut modified = (**job).clone();
    for (name, expr) in modify_request_exprs() {
        if let Ok(v) = eval_once(&expr, job, Some(pslot)) {
            if let Some(x) = v.as_f64_promoted().filter(|x| x.is_finite()) {
                set(&mut modified, name, Value::Int(x as i64));
            }
        }
    }
    let modified = Arc::new(modified);
    let request = if accepts(&modified) {
        modified
    } else if accepts(job) {
        job.clone()
    } else {
        return None;
    };
    let granted = if has_policy(pslot) {
        consumed_amounts(&request, pslot)
    } else {
        let amount = |name: &str| {
            integer(&request, &format!("_condor_{name}"), Some(pslot))
                .or_else(|| integer(&request, name, Some(pslot)))
        };
        let cpus = amount("RequestCpus").unwrap_or(1).max(1);
        let memory = amount("RequestMemory")?.max(1);
        let disk = amount("RequestDisk")?;
        CARVED
            .iter()
            .zip([cpus, memory, disk])
            .map(|((r, _), n)| (r.to_string(), Value::Int(n)))
            .collect()
    };
    let slot_id = integer(pslot, "SlotID", None).unwrap_or(1);
    let mut dslot = (**pslot).clone();
    dslot.remove("PartitionableSlot");
    dslot.remove("NumDynamicSlots");
    set(
        &mut dslot,
        "Name",
        Value::str(dynamic_slot_name(pslot, sub_id)),
    );
    set(&mut dslot, "SlotType", Value::str("Dynamic"));
    set(&mut dslot, "DynamicSlot", Value::Bool(true));
    set(&mut dslot, "ParentSlotId", Value::Int(slot_id));
    set(&mut dslot, "DSlotId", Value::Int(i64::from(sub_id)));
    let mut left = (**pslot).clone();
    for (resource, amount) in granted {
        set(&mut dslot, &resource, amount.clone());
        set(&mut dslot, &format!("TotalSlot{resource}"), amount.clone());
        // `operator-=` on the partitionable slot's resources: no bound.
        let have = number(pslot, &resource).unwrap_or(0.0);
        let taken = amount.as_f64_promoted().unwrap_or(0.0);
        set(&mut left, &resource, preserving_integers(have - taken));
    }
    claim_attributes(&mut dslot, job, ctx);
    let children = integer(pslot, "NumDynamicSlots", None).unwrap_or(0);
    set(&mut left, "NumDynamicSlots", Value::Int(children + 1));
    Some((left, dslot))
}

/// What a consumption policy gives the dynamic slot (`create_dslot` with
/// `cp_supports_policy`): each resource's `Consumption<resource>` against
/// the request, CPUs at least 1/128, memory its integer part, disk rounded
/// up and at least 0, the others as they are.
fn consumed_amounts(request: &Arc<ClassAd>, pslot: &Arc<ClassAd>) -> Vec<(String, Value)> {
    consumption(request, pslot)
        .into_iter()
        .map(|(r, c)| {
            let amount = match r.to_ascii_lowercase().as_str() {
                "cpus" => c.max(1.0 / 128.0),
                "memory" => c.trunc(),
                "disk" => c.ceil().max(0.0),
                _ => c,
            };
            (r, preserving_integers(amount))
        })
        .collect()
}

/// A number as `EvalFloat` reads it.
fn number(ad: &Arc<ClassAd>, name: &str) -> Option<f64> {
    eval_attr_once(ad, name, None)
        .ok()?
        .as_f64_promoted()
        .filter(|x| x.is_finite())
}

/// The resources a dynamic slot holds of its partitionable slot: Cpus,
/// Memory and Disk, or under a consumption policy every resource of the
/// partitionable slot's `MachineResources`.
fn carved_resources(pslot: &Arc<ClassAd>) -> Vec<String> {
    match resources(pslot).filter(|_| has_policy(pslot)) {
        Some(rs) => rs,
        None => CARVED.iter().map(|(r, _)| r.to_string()).collect(),
    }
}

/// The partitionable slot `pslot` once its dynamic slot `dslot` is deleted
/// (its job ended, its claim released): the dynamic slot's resources back.
pub fn release_dynamic(pslot: &Arc<ClassAd>, dslot: &Arc<ClassAd>) -> ClassAd {
    let mut ad = (**pslot).clone();
    for resource in carved_resources(pslot) {
        let have = number(pslot, &resource).unwrap_or(0.0);
        let back = number(dslot, &resource).unwrap_or(0.0);
        set(&mut ad, &resource, preserving_integers(have + back));
    }
    let children = integer(pslot, "NumDynamicSlots", None).unwrap_or(1);
    set(
        &mut ad,
        "NumDynamicSlots",
        Value::Int((children - 1).max(0)),
    );
    ad
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;

    fn ad(text: &str) -> Arc<ClassAd> {
        Arc::new(read_ads(text, "t").unwrap().remove(0))
    }

    /// `name`'s value in `ad`, as it prints.
    fn get(ad: &ClassAd, name: &str) -> String {
        let v = eval_attr_once(&Arc::new(ad.clone()), name, None).unwrap_or(Value::Error);
        crate::values::display::unparse_value(&v)
    }

    fn job(extra: &str) -> Arc<ClassAd> {
        ad(&format!(
            "ClusterId = 12\nProcId = 3\nOwner = \"bob\"\nUser = \"bob@submit.dom\"\n\
             GlobalJobId = \"s#12.3#1\"\nRequestCpus = 1\nRequestMemory = 900\n\
             RequestDisk = 1000\n{extra}"
        ))
    }

    fn ctx() -> ClaimContext {
        ClaimContext {
            now: 5_000,
            negotiating_group: Some("group_a".into()),
            submitter_group: None,
        }
    }

    /// `Claim::publish` and `accept_request_claim`: RemoteUser and
    /// RemoteOwner are the job's User; AccountingGroup takes User's domain;
    /// CurrentRank is the slot's Rank against the job; the limits are the
    /// job's evaluated against the slot.
    #[test]
    fn a_static_slot_claimed_shows_the_job_s_claim() {
        let slot = ad(
            "Name = \"slot1@h\"\nState = \"Unclaimed\"\nActivity = \"Idle\"\n\
                       Cpus = 2\nRank = TARGET.RequestMemory / 100\nLic = \"matlab\"\n",
        );
        let j = job("AccountingGroup = \"group_a.bob\"\nConcurrencyLimits = TARGET.Lic\n");
        let c = claim_static(&slot, &j, &ctx());
        assert_eq!(get(&c, "State"), "\"Claimed\"");
        assert_eq!(get(&c, "Activity"), "\"Busy\"");
        assert_eq!(get(&c, "RemoteUser"), "\"bob@submit.dom\"");
        assert_eq!(get(&c, "RemoteOwner"), "\"bob@submit.dom\"");
        assert_eq!(get(&c, "AccountingGroup"), "\"group_a.bob@submit.dom\"");
        assert_eq!(get(&c, "CurrentRank"), "9.000000000000000E+00");
        assert_eq!(get(&c, "ConcurrencyLimits"), "\"matlab\"");
        assert_eq!(get(&c, "RemoteNegotiatingGroup"), "\"group_a\"");
        assert_eq!(get(&c, "RemoteAutoregroup"), "false");
        assert_eq!(get(&c, "JobId"), "\"12.3\"");
        assert_eq!(get(&c, "JobStart"), "5000");
        assert_eq!(get(&c, "TotalJobRunTime"), "undefined", "omitted while 0");
        // No AccountingGroup in the job: none on the slot; a Rank that is not
        // a number: 0.
        let slot = ad("Name = \"slot1@h\"\nState = \"Unclaimed\"\nRank = \"high\"\n");
        let c = claim_static(&slot, &job(""), &ClaimContext::default());
        assert_eq!(get(&c, "AccountingGroup"), "undefined");
        assert_eq!(get(&c, "CurrentRank"), "0.0");
        assert_eq!(get(&c, "RemoteNegotiatingGroup"), "undefined");
        // Released: Unclaimed/Idle, the claim's attributes gone.
        let r = release_static(&c, 6_000);
        assert_eq!(get(&r, "State"), "\"Unclaimed\"");
        assert_eq!(get(&r, "RemoteUser"), "undefined");
        assert_eq!(get(&r, "JobId"), "undefined");
        assert_eq!(get(&r, "CurrentRank"), "0.0");
        assert_eq!(get(&r, "EnteredCurrentState"), "6000");
    }

    const PSLOT: &str = "Name = \"slot1@h\"\nSlotID = 1\nPartitionableSlot = true\n\
        SlotType = \"Partitionable\"\nState = \"Unclaimed\"\nCpus = 4\nMemory = 4096\n\
        Disk = 100000\nTotalSlotCpus = 4\nTotalSlotMemory = 4096\nTotalSlotDisk = 100000\n\
        SlotWeight = Cpus\nRank = 0\nRequirements = TARGET.RequestCpus <= MY.Cpus && \
        TARGET.RequestMemory <= MY.Memory && TARGET.RequestDisk <= MY.Disk\n";

    /// `create_dslot`: the request rounded by MODIFY_REQUEST_EXPR_*'s
    /// defaults (memory up to 128, disk up to 1024), the dynamic slot named
    /// slot<SlotID>_<n>, the rest left in the partitionable slot.
    #[test]
    fn a_partitionable_slot_is_carved_by_the_rounded_request() {
        let p = ad(PSLOT);
        let (left, d) = carve(&p, &job(""), 1, &ctx()).unwrap();
        assert_eq!(get(&d, "Name"), "\"slot1_1@h\"");
        assert_eq!(get(&d, "SlotType"), "\"Dynamic\"");
        assert_eq!(get(&d, "DynamicSlot"), "true");
        assert_eq!(get(&d, "PartitionableSlot"), "undefined");
        assert_eq!([get(&d, "ParentSlotId"), get(&d, "DSlotId")], ["1", "1"]);
        let amounts = |a: &ClassAd| ["Cpus", "Memory", "Disk"].map(|r| get(a, r));
        assert_eq!(amounts(&d), ["1", "1024", "1024"]);
        assert_eq!(get(&d, "TotalSlotMemory"), "1024");
        assert_eq!(get(&d, "SlotWeight"), "1", "its own Cpus");
        assert_eq!(get(&d, "RemoteUser"), "\"bob@submit.dom\"");
        assert_eq!(amounts(&left), ["3", "3072", "98976"]);
        assert_eq!(get(&left, "TotalSlotMemory"), "4096", "unchanged");
        assert_eq!(get(&left, "NumDynamicSlots"), "1");
        assert_eq!(get(&left, "State"), "\"Unclaimed\"");
        // Its job done, the dynamic slot's resources go back.
        let back = release_dynamic(&Arc::new(left), &Arc::new(d));
        assert_eq!(amounts(&back), amounts(&p));
        assert_eq!(get(&back, "NumDynamicSlots"), "0");
    }

    /// `create_dslot` under a consumption policy: the amounts are what
    /// `Consumption<resource>` gives for the rounded request (memory 900 is
    /// rounded to 1024 first, then to the policy's 512s), for every resource
    /// of `MachineResources` but Swap; the disk is not carved.
    #[test]
    fn a_consumption_policy_carves_what_the_job_consumes() {
        let p = ad(&format!(
            "{PSLOT}MachineResources = \"Cpus Memory Swap\"\n\
             ConsumptionCpus = quantize(target.RequestCpus, {{2}})\n\
             ConsumptionMemory = quantize(target.RequestMemory, {{512}})\n"
        ));
        let (left, d) = carve(&p, &job(""), 1, &ctx()).unwrap();
        let amounts = |a: &ClassAd| ["Cpus", "Memory", "Disk"].map(|r| get(a, r));
        assert_eq!(
            amounts(&d),
            ["2", "1024", "100000"],
            "Disk as the pslot had it"
        );
        assert_eq!(get(&d, "TotalSlotCpus"), "2");
        assert_eq!(amounts(&left), ["2", "3072", "100000"]);
        let back = release_dynamic(&Arc::new(left), &Arc::new(d));
        assert_eq!(amounts(&back), amounts(&p));
    }

    /// `create_dslot`'s fallback: 900 MB left and 900 asked for; rounded to
    /// 1024 it no longer fits, so the request is taken as it was; and no slot
    /// when even that does not fit.
    #[test]
    fn a_rounded_request_that_no_longer_fits_is_taken_as_it_was() {
        let p = ad(&PSLOT.replace("Memory = 4096", "Memory = 900"));
        let (left, d) = carve(&p, &job(""), 2, &ctx()).unwrap();
        assert_eq!(get(&d, "Memory"), "900");
        assert_eq!(get(&d, "Disk"), "1000", "all three as they were");
        assert_eq!(get(&d, "Name"), "\"slot1_2@h\"");
        assert_eq!(get(&left, "Memory"), "0");
        let p = ad(&PSLOT.replace("Memory = 4096", "Memory = 800"));
        assert!(carve(&p, &job(""), 1, &ctx()).is_none());
        // The schedd's _condor_RequestCpus goes before RequestCpus.
        let p = ad(PSLOT);
        let (_, d) = carve(&p, &job("_condor_RequestCpus = 2\n"), 1, &ctx()).unwrap();
        assert_eq!(get(&d, "Cpus"), "2");
    }
}
