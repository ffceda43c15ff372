//! Partitionable slots under a consumption policy (negotiator.md section 7.2,
//! HTCondor's `consumption_policy.cpp`): what a job would consume of each
//! resource, whether the slot holds it, the job as the slot's Requirements see it,
//! and the slot after the deduction.

use crate::ad::ClassAd;
use crate::engine::eval_attr_once;
use crate::syntax::ast::{Expr, Node, NodeId};
use classad_vm::Value;
use std::sync::Arc;

/// What a job consumes of each resource a slot lists, in the slot's order.
pub type Consumption = smallvec::SmallVec<[(String, f64); 5]>;

/// The resources of `MachineResources` (as HTCondor's `StringTokenIterator`
/// splits it), less Swap; `None` when the slot has no such string.
pub fn resources(slot: &Arc<ClassAd>) -> Option<Vec<String>> {
    match eval_attr_once(slot, "MachineResources", None) {
        Ok(Value::Str(s)) => Some(
            s.as_str()
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|r| !r.is_empty() && !r.eq_ignore_ascii_case("swap"))
                .map(str::to_string)
                .collect(),
        ),
        _ => None,
    }
}

/// True when `slot` has a consumption policy: it is partitionable, has a string
/// `MachineResources`, and a `Consumption<resource>` attribute in the ad for every
/// resource it lists but Swap.
pub fn has_policy(slot: &Arc<ClassAd>) -> bool {
    let partitionable = matches!(
        eval_attr_once(slot, "PartitionableSlot", None),
        Ok(Value::Bool(true))
    );
    partitionable
        && resources(slot)
            .is_some_and(|rs| rs.iter().all(|r| slot.contains(&format!("Consumption{r}"))))
}

/// A number as HTCondor's `EvalFloat`/`LookupFloat` read it.
fn number(v: &Value) -> Option<f64> {
    v.as_f64_promoted()
}

/// What `job` would consume of `slot`'s resources: each `Consumption<resource>`
/// evaluated with the slot as MY and the job as TARGET, `_condor_Request<resource>`
/// standing for `Request<resource>` when the job has it and a missing
/// `Request<resource>` counting 0. A value that is not a number is -999 (HTCondor's
/// mark of a failed evaluation); a negative value is kept.
pub fn consumption(job: &Arc<ClassAd>, slot: &Arc<ClassAd>) -> Consumption {
    let Some(resources) = resources(slot) else {
        return Consumption::new();
    };
    consumed(&requests_view(job, &resources), slot, &resources)
}

/// `job` as `Consumption<resource>` sees it for `resources`:
/// `_condor_Request<resource>` standing for `Request<resource>` when the job has
/// it, and a missing `Request<resource>` as 0.
pub fn requests_view(job: &Arc<ClassAd>, resources: &[String]) -> Arc<ClassAd> {
    let mut view: Option<Arc<ClassAd>> = None;
    for r in resources {
        let request = format!("Request{r}");
        let replaced = match eval_attr_once(job, &format!("_condor_{request}"), None) {
            Ok(v) => number(&v).map(Value::Real),
            Err(_) => None,
        };
        let missing = !job.contains(&request);
        if replaced.is_some() || missing {
            let ad = view.get_or_insert_with(|| Arc::new((**job).clone()));
            let v = replaced.unwrap_or(Value::Int(0));
            Arc::make_mut(ad).insert_expr(request.as_str(), Expr::literal(v));
        }
    }
    view.unwrap_or_else(|| job.clone())
}

/// Each `Consumption<resource>` of `slot` for `resources`, with `view` (see
/// [`requests_view`]) as TARGET.
pub fn consumed(view: &Arc<ClassAd>, slot: &Arc<ClassAd>, resources: &[String]) -> Consumption {
    resources
        .iter()
        .map(|r| {
            let v = eval_attr_once(slot, &format!("Consumption{r}"), Some(view));
            let cv = match v.ok().as_ref().and_then(number) {
                Some(x) if x >= 0.0 => x,
                Some(x) => x,
                None => -999.0,
            };
            (r.clone(), cv)
        })
        .collect()
}

/// What `slot` holds of each resource of `c`, in its order (`None` where that
/// is not a number).
fn held(slot: &Arc<ClassAd>, c: &Consumption) -> Vec<Option<f64>> {
    c.iter()
        .map(|(r, _)| eval_attr_once(slot, r, None).ok().as_ref().and_then(number))
        .collect()
}

/// True when `slot` holds at least what `c` consumes of every resource, every
/// consumption is at least 0 and one is above 0. A resource the slot does not have
/// as a number is not held (HTCondor stops the negotiator there).
pub fn sufficient(slot: &Arc<ClassAd>, c: &Consumption) -> bool {
    holds(&held(slot, c), c)
}

/// [`sufficient`] on what the slot holds of each resource of `c` (in `c`'s
/// order; `None` where that is not a number).
pub fn holds(held: &[Option<f64>], c: &Consumption) -> bool {
    let mut positive = 0;
    for ((_, cv), have) in c.iter().zip(held) {
        match have {
            Some(av) if *av >= *cv => {}
            _ => return false,
        }
        if *cv < 0.0 {
            return false;
        }
        if *cv > 0.0 {
            positive += 1;
        }
    }
    positive > 0
}

/// A number stored as HTCondor's `assign_preserve_integers` stores it: an integer
/// when it has no fractional part.
pub(crate) fn preserving_integers(v: f64) -> Value {
    if v - v.floor() > 0.0 {
        Value::Real(v)
    } else {
        Value::Int(v as i64)
    }
}

/// `job` as the slot's Requirements see it: each `Request<resource>` the job has
/// replaced by what it consumes.
pub fn overridden(job: &Arc<ClassAd>, c: &Consumption) -> Arc<ClassAd> {
    let mut ad: Option<ClassAd> = None;
    for (r, cv) in c {
        let request = format!("Request{r}");
        if job.contains(&request) {
            ad.get_or_insert_with(|| (**job).clone())
                .insert_expr(request.as_str(), Expr::literal(preserving_integers(*cv)));
        }
    }
    ad.map_or_else(|| job.clone(), Arc::new)
}

/// `slot` with what `c` consumes subtracted from its resources.
pub fn deducted(slot: &Arc<ClassAd>, c: &Consumption) -> Arc<ClassAd> {
    deducted_from(slot, &held(slot, c), c)
}

/// `ad` with each resource of `c` set to what the slot held of it (`held`, in
/// `c`'s order; 0 when not a number) less what `c` consumes.
pub fn deducted_from(ad: &ClassAd, held: &[Option<f64>], c: &Consumption) -> Arc<ClassAd> {
    let mut ad = ad.clone();
    for ((r, cv), have) in c.iter().zip(held) {
        let have = have.unwrap_or(0.0);
        ad.insert_expr(r.as_str(), Expr::literal(preserving_integers(have - cv)));
    }
    Arc::new(ad)
}

/// A slot's `SlotWeight` alone (see [`weight_alone`]).
pub struct WeightAlone {
    /// An ad of the weight alone.
    pub ad: ClassAd,
    /// Per resource, in the order given, whether the weight reads it: what a
    /// deduction weighs depends on the amounts of those alone.
    pub reads: Vec<bool>,
}

/// An ad of `slot`'s `SlotWeight` alone, when it reads nothing of the slot but
/// `resources` by their bare names (literals, operators, builtins that read
/// neither ads nor the clock): its weight after a deduction is then the same
/// in this ad as in the whole slot's, each resource set in both.
pub fn weight_alone(slot: &ClassAd, resources: &[String]) -> Option<WeightAlone> {
    let e = slot.get("SlotWeight")?;
    let mut reads = vec![false; resources.len()];
    let reads_resources = |id| match e.tree.node(id) {
        Node::Attr {
            scope: None,
            name,
            absolute: false,
        } => {
            let mut found = false;
            for (i, r) in resources.iter().enumerate() {
                if r.eq_ignore_ascii_case(name) {
                    reads[i] = true;
                    found = true;
                }
            }
            found
        }
        _ => false,
    };
    if !reads_only(e.tree, e.id, reads_resources) {
        return None;
    }
    let mut ad = ClassAd::new();
    ad.insert("SlotWeight", e.to_expr_ref());
    Some(WeightAlone { ad, reads })
}

/// True when the expression at `id` is made of literals, operators, lists,
/// calls of builtins that depend on their arguments only, and attribute
/// references `reference` accepts (given the reference's node): its value then
/// depends on nothing but what those references read. A record is refused.
pub fn reads_only(tree: &Expr, id: NodeId, mut reference: impl FnMut(NodeId) -> bool) -> bool {
    let mut stack = vec![id];
    while let Some(id) = stack.pop() {
        match tree.node(id) {
            Node::Lit(_) => {}
            Node::Attr { .. } => {
                if !reference(id) {
                    return false;
                }
            }
            Node::Call { name, args } => {
                if !crate::functions::depends_on_arguments_only(name) {
                    return false;
                }
                stack.extend(args.iter().copied());
            }
            Node::Record(_) => return false,
            n @ (Node::Unary(..)
            | Node::Binary(..)
            | Node::Ternary(..)
            | Node::Paren(_)
            | Node::List(_)) => n.for_each_child(|c| stack.push(c)),
        }
    }
    true
}

/// The slot's raw `SlotWeight` (0 when it is not a number), within
/// ±[`super::MAX_AMOUNT`] so that a match's cost stays finite.
pub fn raw_weight(slot: &Arc<ClassAd>) -> f64 {
    eval_attr_once(slot, "SlotWeight", None)
        .ok()
        .as_ref()
        .and_then(number)
        .map_or(0.0, super::bounds::bounded)
}

/// The cost of a match that consumes `c` of `slot`: its `SlotWeight` before the
/// deduction minus after it, and the slot after it.
pub fn cost(slot: &Arc<ClassAd>, c: &Consumption) -> (f64, Arc<ClassAd>) {
    let after = deducted(slot, c);
    (raw_weight(slot) - raw_weight(&after), after)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;

    fn ad(text: &str) -> Arc<ClassAd> {
        Arc::new(read_ads(text, "t").unwrap().remove(0))
    }

    #[test]
    fn a_policy_deducts_and_charges_the_weight_it_takes() {
        let slot = ad(
            "PartitionableSlot = true\nMachineResources = \"Cpus Memory Swap\"\n\
             ConsumptionCpus = quantize(TARGET.RequestCpus, {2})\n\
             ConsumptionMemory = TARGET.RequestMemory\nCpus = 8\nMemory = 1000.5\n\
             SlotWeight = Cpus\n",
        );
        assert!(has_policy(&slot));
        let job = ad("RequestCpus = 3\nRequestMemory = 100\n");
        let c = consumption(&job, &slot);
        assert_eq!(
            c.as_slice(),
            [("Cpus".to_string(), 4.0), ("Memory".to_string(), 100.0)]
        );
        assert!(sufficient(&slot, &c));
        let (w, after) = cost(&slot, &c);
        assert_eq!(w, 4.0);
        let cpus = eval_attr_once(&after, "Cpus", None).unwrap();
        assert!(matches!(cpus, Value::Int(4)), "{cpus:?}");
        let mem = eval_attr_once(&after, "Memory", None).unwrap();
        assert!(matches!(mem, Value::Real(m) if m == 900.5), "{mem:?}");
        let seen = overridden(&job, &c);
        let rc = eval_attr_once(&seen, "RequestCpus", None).unwrap();
        assert!(matches!(rc, Value::Int(4)), "{rc:?}");
        let big = ad("RequestCpus = 9\nRequestMemory = 1\n");
        assert!(!sufficient(&slot, &consumption(&big, &slot)));
        let plain = ad("PartitionableSlot = true\nMachineResources = \"Cpus\"\n\
             ConsumptionCpus = TARGET.RequestCpus\nCpus = 8\n");
        let nothing = ad("RequestCpus = 0\n");
        assert!(
            !sufficient(&plain, &consumption(&nothing, &plain)),
            "nothing above 0"
        );
        let negative = ad("RequestCpus = -1\n");
        assert!(!sufficient(&plain, &consumption(&negative, &plain)));
        let missing = ad("Owner = 1\n");
        assert_eq!(
            consumption(&missing, &plain)[0].1,
            0.0,
            "a missing request is 0"
        );
    }

    /// A weight is worked out alone only when it reads the resources alone, by
    /// their bare names, through builtins that depend on their arguments only;
    /// alone, it weighs a deduction as the whole slot does.
    #[test]
    fn a_weight_of_the_resources_alone_weighs_as_the_slot_does() {
        let resources = ["Cpus".to_string(), "Memory".to_string()];
        let slot = |weight: &str| {
            ad(&format!(
                "Cpus = 8\nMemory = 4000\nBonus = 2\nSlotWeight = {weight}\n"
            ))
        };
        for weight in ["Cpus + Memory / 1000", "max({cpus, 2}) * 2", "3"] {
            let s = slot(weight);
            let alone = weight_alone(&s, &resources).expect(weight).ad;
            let c: Consumption = [("Cpus".to_string(), 2.0), ("Memory".to_string(), 500.0)]
                .into_iter()
                .collect();
            let held = [Some(8.0), Some(4000.0)];
            assert_eq!(
                raw_weight(&deducted_from(&alone, &held, &c)),
                raw_weight(&deducted(&s, &c)),
                "{weight}"
            );
        }
        for weight in [
            "Cpus + Bonus",
            "MY.Cpus",
            "Cpus * random(2)",
            "[a = Cpus].a",
        ] {
            assert!(
                weight_alone(&slot(weight), &resources).is_none(),
                "{weight}"
            );
        }
        assert!(
            weight_alone(&ad("Cpus = 1\n"), &resources).is_none(),
            "no weight"
        );
    }

    #[test]
    fn without_every_consumption_attribute_there_is_no_policy() {
        let slot = ad(
            "PartitionableSlot = true\nMachineResources = \"Cpus Memory\"\n\
             ConsumptionCpus = 1\nCpus = 8\nMemory = 10\n",
        );
        assert!(!has_policy(&slot));
        let static_slot = ad("MachineResources = \"Cpus\"\nConsumptionCpus = 1\nCpus = 8\n");
        assert!(!has_policy(&static_slot));
    }
}
