//! What consumption-policy slots offer requests (negotiator.md section 7.2), as
//! HTCondor's `matchmakingAlgorithm` works it out for every (job, slot) pair,
//! with the parts that do not depend on the pair worked out once:
//!
//! - per slot as it is now: its resources, what it holds of each, and the cost
//!   of each consumption taken from it (its `SlotWeight` before less after);
//! - per class: the job as `Consumption<resource>` sees it, and the job as the
//!   slot's Requirements see it, per consumption;
//! - per class and slot *form* (the resources and the `Consumption<resource>`
//!   expressions, by exact text): the consumption itself, when every
//!   `Consumption<resource>` reads only attributes the job holds as literals
//!   (HTCondor's own policies, `quantize(target.RequestCpus, {1})`).
//!
//! Before, each pair cloned the job ad twice and the slot ad once, and
//! evaluated the consumption again: at 100,000 slots the offers were 60% of
//! the negotiation, most of them for slots changed by a match.

use super::consumption::{self, Consumption};
use crate::ad::ClassAd;
use crate::engine::eval_attr_once;
use crate::eval::Semantics;
use crate::matching::batch::RankKey;
use crate::matching::{negotiator_key, symmetric_match, NegotiatorPolicy};
use crate::syntax::ast::{Expr, Node, NodeId};
use crate::syntax::same::exact_text;
use classad_vm::Value;
use smallvec::SmallVec;
use std::sync::Arc;

/// What a consumption-policy slot, as it is now, offers a class's request.
#[derive(Clone, Copy, Debug)]
pub(super) struct Offer {
    /// The slot holds what the job consumes and matches the job with its
    /// requests replaced by that.
    pub matches: bool,
    /// The cost of the match (the slot's `SlotWeight` before less after).
    pub cost: f64,
    /// PRE, the job's Rank, POST (when it matches).
    pub key: RankKey,
}

/// A consumption by the bits of its amounts, in the slot's resource order.
type Amounts = SmallVec<[u64; 5]>;

/// The amounts of `c` that a cost depends on: those of the resources the
/// slot's weight reads when it reads nothing else (`reads`), else all. A
/// slot's costs are then shared among the classes that consume alike of what
/// it weighs (CPUs, mostly), however their memory and disk differ.
fn amounts(c: &Consumption, reads: Option<&[bool]>) -> Amounts {
    match reads {
        Some(reads) => c
            .iter()
            .zip(reads)
            .map(|((_, v), &read)| if read { v.to_bits() } else { 0 })
            .collect(),
        None => c.iter().map(|(_, v)| v.to_bits()).collect(),
    }
}

/// How many costs a slot keeps (one per consumption seen; a slot sees few).
const COSTS_KEPT: usize = 16;

/// How many requests-replaced views of a job a class keeps.
const VIEWS_KEPT: usize = 8;

/// What a slot is now, for every class.
struct SlotFacts {
    /// Its resources (`None` when it has no `MachineResources` string) as an
    /// interned list.
    resources: Option<u32>,
    /// Per resource, what the slot holds when that is a number.
    held: Vec<Option<f64>>,
    /// Its form, when it has one (see [`Offers::form_of`]).
    form: Option<u32>,
    /// Its `SlotWeight` now, and an ad of it alone when it reads only the
    /// resources (see [`consumption::weight_alone`]).
    weight: f64,
    weight_alone: Option<consumption::WeightAlone>,
    /// The cost of consumptions taken from it, as they were asked for.
    costs: Vec<(Amounts, f64)>,
}

/// What consumption-policy slots offer, with what is shared worked out once.
#[derive(Default)]
pub(super) struct Offers {
    /// Per slot, what it is now (`None` until asked, or after it changed).
    slots: Vec<Option<SlotFacts>>,
    /// Resource lists, interned.
    resource_lists: ahash::AHashMap<Vec<String>, u32>,
    lists: Vec<Vec<String>>,
    /// Slot forms, interned by their exact text.
    forms: ahash::AHashMap<Vec<u8>, u32>,
    /// Per (class, resource list), the job as `Consumption<resource>` sees it.
    views: ahash::AHashMap<(u32, u32), Arc<ClassAd>>,
    /// Per class, the job as the slots' Requirements see it, per consumption.
    overridden: ahash::AHashMap<u32, Vec<(Consumption, Arc<ClassAd>)>>,
    /// Per (class, form), the consumption when it reads nothing of the slot
    /// (`None`: it may, and is worked out per slot).
    independent: ahash::AHashMap<(u32, u32), Option<Consumption>>,
}

impl Offers {
    /// Offers over `slots` slots.
    pub fn new(slots: usize) -> Offers {
        Offers {
            slots: (0..slots).map(|_| None).collect(),
            ..Offers::default()
        }
    }

    /// Slot `slot` changed: what was known of it is dropped.
    pub fn changed(&mut self, slot: usize) {
        self.slots[slot] = None;
    }

    /// Works out what is shared for `class` and each of `slots` as `ads` hold
    /// them now, so that [`Self::offer`] only reads.
    pub fn prepare(
        &mut self,
        class: u32,
        rep: &Arc<ClassAd>,
        slots: &[usize],
        ads: &[Arc<ClassAd>],
    ) {
        for &s in slots {
            if self.slots[s].is_none() {
                self.slots[s] = Some(self.facts_of(&ads[s]));
            }
            let facts = self.slots[s].as_ref().expect("just made");
            let Some(list) = facts.resources else {
                continue;
            };
            let form = facts.form;
            if !self.views.contains_key(&(class, list)) {
                let view = consumption::requests_view(rep, &self.lists[list as usize]);
                self.views.insert((class, list), view);
            }
            if let Some(form) = form {
                if !self.independent.contains_key(&(class, form)) {
                    let view = &self.views[&(class, list)];
                    let ad = &ads[s];
                    let reads_slot = self.lists[list as usize].iter().any(|r| {
                        ad.get(&format!("Consumption{r}"))
                            .is_none_or(|e| !reads_only_literals_of(e.tree, e.id, view))
                    });
                    let c = (!reads_slot).then(|| self.evaluate(view, ad, list));
                    if let Some(c) = &c {
                        self.keep_overridden(class, rep, c);
                    }
                    self.independent.insert((class, form), c);
                }
            }
        }
    }

    /// What slot `slot` (its ad `ad`, prepared with [`Self::prepare`]) offers
    /// `class`, and a cost to keep with [`Self::keep_cost`] when it was worked
    /// out.
    pub fn offer(
        &self,
        class: u32,
        rep: &Arc<ClassAd>,
        slot: usize,
        ad: &Arc<ClassAd>,
        policy: &NegotiatorPolicy,
    ) -> (Offer, Option<(Amounts, f64)>) {
        let facts = self.slots[slot].as_ref().expect("prepared");
        let c = self.consumption_prepared(class, facts, ad);
        let matches = consumption::holds(&facts.held, &c)
            && symmetric_match(&self.overridden_of(class, rep, &c), ad, Semantics::Htcondor);
        let bits = amounts(&c, facts.weight_alone.as_ref().map(|w| &w.reads[..]));
        let known = facts
            .costs
            .iter()
            .find(|(a, _)| *a == bits)
            .map(|&(_, w)| w);
        let (cost, new) = match known {
            Some(w) => (w, None),
            None => {
                let w = match &facts.weight_alone {
                    Some(alone) => {
                        let after = consumption::deducted_from(&alone.ad, &facts.held, &c);
                        facts.weight - consumption::raw_weight(&after)
                    }
                    None => consumption::cost(ad, &c).0,
                };
                (w, Some((bits, w)))
            }
        };
        let key = if matches {
            negotiator_key(rep, ad, policy)
        } else {
            RankKey {
                pre: -f64::MAX,
                rank: 0.0,
                post: -f64::MAX,
            }
        };
        (Offer { matches, cost, key }, new)
    }

    /// Keeps a cost [`Self::offer`] worked out for slot `slot`.
    pub fn keep_cost(&mut self, slot: usize, cost: (Amounts, f64)) {
        if let Some(facts) = self.slots[slot].as_mut() {
            if facts.costs.len() >= COSTS_KEPT {
                facts.costs.remove(0);
            }
            if !facts.costs.iter().any(|(a, _)| *a == cost.0) {
                facts.costs.push(cost);
            }
        }
    }

    /// What a job of `class` consumes of slot `slot` as `ads` hold it now
    /// (HTCondor's `cp_compute_consumption`).
    pub fn consumption(
        &mut self,
        class: u32,
        rep: &Arc<ClassAd>,
        slot: usize,
        ads: &[Arc<ClassAd>],
    ) -> Consumption {
        self.prepare(class, rep, &[slot], ads);
        let facts = self.slots[slot].as_ref().expect("prepared");
        self.consumption_prepared(class, facts, &ads[slot])
    }

    /// The job of `class` as the slots' Requirements see it when it consumes
    /// `c`; kept for the next slot that sees the same.
    fn overridden_of(&self, class: u32, rep: &Arc<ClassAd>, c: &Consumption) -> Arc<ClassAd> {
        if let Some(v) = self.overridden.get(&class) {
            if let Some((_, ad)) = v.iter().find(|(k, _)| same_consumption(k, c)) {
                return ad.clone();
            }
        }
        consumption::overridden(rep, c)
    }

    /// Keeps the view of `class`'s job for the consumptions of `offered`.
    pub fn keep_overridden(&mut self, class: u32, rep: &Arc<ClassAd>, c: &Consumption) {
        let v = self.overridden.entry(class).or_default();
        if v.iter().any(|(k, _)| same_consumption(k, c)) {
            return;
        }
        if v.len() >= VIEWS_KEPT {
            v.remove(0);
        }
        v.push((c.clone(), consumption::overridden(rep, c)));
    }

    fn consumption_prepared(
        &self,
        class: u32,
        facts: &SlotFacts,
        ad: &Arc<ClassAd>,
    ) -> Consumption {
        let Some(list) = facts.resources else {
            return Consumption::new();
        };
        if let Some(form) = facts.form {
            if let Some(Some(c)) = self.independent.get(&(class, form)) {
                return c.clone();
            }
        }
        self.evaluate(&self.views[&(class, list)], ad, list)
    }

    /// Each `Consumption<resource>` of `ad` with `view` as TARGET.
    fn evaluate(&self, view: &Arc<ClassAd>, ad: &Arc<ClassAd>, list: u32) -> Consumption {
        consumption::consumed(view, ad, &self.lists[list as usize])
    }

    fn facts_of(&mut self, ad: &Arc<ClassAd>) -> SlotFacts {
        let Some(resources) = consumption::resources(ad) else {
            return SlotFacts {
                resources: None,
                held: Vec::new(),
                form: None,
                weight: consumption::raw_weight(ad),
                weight_alone: None,
                costs: Vec::new(),
            };
        };
        let held = resources
            .iter()
            .map(|r| {
                eval_attr_once(ad, r, None)
                    .ok()
                    .as_ref()
                    .and_then(Value::as_f64_promoted)
            })
            .collect();
        let form = self.form_of(ad, &resources);
        let weight_alone = consumption::weight_alone(ad, &resources);
        let next = self.lists.len() as u32;
        let list = *self
            .resource_lists
            .entry(resources.clone())
            .or_insert_with(|| next);
        if list == next {
            self.lists.push(resources);
        }
        SlotFacts {
            resources: Some(list),
            held,
            form,
            weight: consumption::raw_weight(ad),
            weight_alone,
            costs: Vec::new(),
        }
    }

    /// The slot's form: its resources and each `Consumption<resource>` by exact
    /// text; none when the slot defines `target` (which `target.x` would then
    /// read) or an expression has no exact text.
    fn form_of(&mut self, ad: &Arc<ClassAd>, resources: &[String]) -> Option<u32> {
        if ad.contains("target") {
            return None;
        }
        let mut text = Vec::new();
        for r in resources {
            text.extend_from_slice(&(r.len() as u64).to_le_bytes());
            text.extend_from_slice(r.to_ascii_lowercase().as_bytes());
            let e = ad.get(&format!("Consumption{r}"))?;
            if !exact_text(e.tree, e.id, &mut text) {
                return None;
            }
        }
        let next = self.forms.len() as u32;
        Some(*self.forms.entry(text).or_insert(next))
    }
}

/// True when `c` and `d` consume the same, bit for bit.
fn same_consumption(c: &Consumption, d: &Consumption) -> bool {
    c.len() == d.len()
        && c.iter()
            .zip(d)
            .all(|((r, a), (s, b))| a.to_bits() == b.to_bits() && r == s)
}

/// True when the expression at `id` reads nothing but attributes that `job`
/// holds as literals, as `target.name`: literals, operators, calls of builtins
/// that read neither ads nor the clock, and such selections. Its value is then
/// the same in every slot (that does not define `target` itself).
fn reads_only_literals_of(tree: &Expr, id: NodeId, job: &ClassAd) -> bool {
    consumption::reads_only(tree, id, |at| match tree.named_selection(at) {
        Some((base, name)) if base.as_str().eq_ignore_ascii_case("target") => {
            matches!(job.get(name.as_str()), Some(e) if matches!(e.node(), Node::Lit(_)))
        }
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;

    fn ad(text: &str) -> Arc<ClassAd> {
        Arc::new(read_ads(text, "t").unwrap().remove(0))
    }

    fn reads_only_literals(expr: &str, job: &str) -> bool {
        let slot = ad(&format!("X = {expr}\n"));
        let e = slot.get("X").unwrap();
        reads_only_literals_of(e.tree, e.id, &ad(job))
    }

    /// Offers worked out with what is shared equal HTCondor's per-pair
    /// computation (`consumption`, `sufficient`, the match with the requests
    /// replaced, the cost), for slots of one form before and after they are
    /// used, slots whose consumption reads the slot, and a job whose request
    /// is not a literal; the consumption of one form is worked out once.
    #[test]
    fn offers_equal_the_pair_by_pair_computation() {
        let policy = NegotiatorPolicy::default();
        // A weight of the resources alone, or one that reads more of the slot.
        let slot = |cpus: i64, mem: i64, extra: &str| {
            let weight = if cpus % 2 == 0 {
                "Cpus + Memory / 1000"
            } else {
                "Cpus + Bonus\nBonus = 2"
            };
            ad(&format!(
                "PartitionableSlot = true\nMachineResources = \"Cpus Memory\"\n\
                 Cpus = {cpus}\nMemory = {mem}\nSlotWeight = {weight}\n\
                 Requirements = TARGET.RequestCpus <= MY.Cpus && TARGET.RequestMemory <= MY.Memory\n\
                 Rank = MY.Cpus\n{extra}"
            ))
        };
        let same = "ConsumptionCpus = quantize(target.RequestCpus, {2})\n\
                    ConsumptionMemory = quantize(target.RequestMemory, {128})\n";
        let reads = "ConsumptionCpus = MY.Cpus / 2\nConsumptionMemory = target.RequestMemory\n";
        let mut ads: Vec<Arc<ClassAd>> = Vec::new();
        for i in 0..12 {
            ads.push(slot(
                1 + i % 5,
                500 * (i % 4),
                if i % 3 == 2 { reads } else { same },
            ));
        }
        let jobs = [
            ad("RequestCpus = 3\nRequestMemory = 700\nRequirements = true\nRank = TARGET.Memory\n"),
            ad("RequestCpus = 1\nRequestMemory = MY.RequestCpus * 200\nRequirements = TARGET.Cpus > 1\n"),
        ];
        let mut offers = Offers::new(ads.len());
        let all: Vec<usize> = (0..ads.len()).collect();
        for round in 0..3 {
            for (class, rep) in jobs.iter().enumerate() {
                let class = class as u32;
                offers.prepare(class, rep, &all, &ads);
                for s in 0..ads.len() {
                    let (o, _) = offers.offer(class, rep, s, &ads[s], &policy);
                    let c = consumption::consumption(rep, &ads[s]);
                    let matches = consumption::sufficient(&ads[s], &c)
                        && symmetric_match(
                            &consumption::overridden(rep, &c),
                            &ads[s],
                            Semantics::Htcondor,
                        );
                    let context = format!("round {round}, class {class}, slot {s}");
                    assert_eq!(o.matches, matches, "{context}");
                    assert_eq!(o.cost, consumption::cost(&ads[s], &c).0, "{context}");
                    if matches {
                        assert_eq!(
                            bits_of(o.key),
                            bits_of(negotiator_key(rep, &ads[s], &policy)),
                            "{context}"
                        );
                    }
                    assert_eq!(offers.consumption(class, rep, s, &ads), c, "{context}");
                }
            }
            // Each slot used once: the slots change, as a match changes them.
            for s in 0..ads.len() {
                let c = offers.consumption(0, &jobs[0], s, &ads);
                ads[s] = consumption::cost(&ads[s], &c).1;
                offers.changed(s);
            }
        }
        // One form of slots reads nothing of the slot for the first job (its
        // requests are literals), and the other reads the slot; the second
        // job's memory request is not a literal.
        let independent: Vec<bool> = offers.independent.values().map(Option::is_some).collect();
        assert_eq!(
            independent.iter().filter(|&&i| i).count(),
            1,
            "{independent:?}"
        );
    }

    /// A slot's costs are kept by the amounts of what its weight reads: classes
    /// that consume the same CPUs share a cost when the weight reads CPUs
    /// alone, and each cost still equals HTCondor's per-pair computation.
    #[test]
    fn a_cost_is_shared_by_classes_that_consume_alike_of_what_the_slot_weighs() {
        let policy = NegotiatorPolicy::default();
        let slot = |weight: &str| {
            ad(&format!(
                "PartitionableSlot = true\nMachineResources = \"Cpus Memory\"\n\
                 Cpus = 8\nMemory = 4000\nSlotWeight = {weight}\nRequirements = true\n\
                 ConsumptionCpus = quantize(target.RequestCpus, {{1}})\n\
                 ConsumptionMemory = quantize(target.RequestMemory, {{128}})\n"
            ))
        };
        let ads = vec![slot("Cpus * 2"), slot("Cpus + Memory / 1000")];
        let jobs = [
            ad("RequestCpus = 2\nRequestMemory = 700\nRequirements = true\n"),
            ad("RequestCpus = 2\nRequestMemory = 1500\nRequirements = true\n"),
            ad("RequestCpus = 1\nRequestMemory = 700\nRequirements = true\n"),
        ];
        let mut offers = Offers::new(ads.len());
        for (class, rep) in jobs.iter().enumerate() {
            let class = class as u32;
            offers.prepare(class, rep, &[0, 1], &ads);
            for (s, slot) in ads.iter().enumerate() {
                let (o, cost) = offers.offer(class, rep, s, slot, &policy);
                let c = consumption::consumption(rep, slot);
                assert_eq!(o.cost, consumption::cost(slot, &c).0, "{class} {s}");
                if let Some(cost) = cost {
                    offers.keep_cost(s, cost);
                }
            }
        }
        let kept = |s: usize| offers.slots[s].as_ref().unwrap().costs.len();
        assert_eq!(kept(0), 2, "one cost per CPU amount");
        assert_eq!(kept(1), 3, "the weight reads the memory too");
    }

    fn bits_of(k: RankKey) -> [u64; 3] {
        [k.pre.to_bits(), k.rank.to_bits(), k.post.to_bits()]
    }

    #[test]
    fn only_literal_attributes_of_the_job_make_a_consumption_independent() {
        let job = "RequestCpus = 3\nRequestMemory = TARGET.Memory / 2\n";
        assert!(reads_only_literals(
            "quantize(target.RequestCpus, {1})",
            job
        ));
        assert!(reads_only_literals("TARGET.RequestCpus * 2 + 1", job));
        assert!(
            !reads_only_literals("quantize(target.RequestMemory, {128})", job),
            "not a literal"
        );
        assert!(!reads_only_literals("target.RequestDisk", job), "absent");
        assert!(
            !reads_only_literals("RequestCpus", job),
            "looked up in the slot first"
        );
        assert!(!reads_only_literals("MY.Cpus", job));
        assert!(!reads_only_literals("target.RequestCpus + random(2)", job));
        assert!(!reads_only_literals("eval(\"target.RequestCpus\")", job));
        assert!(!reads_only_literals("[a = target.RequestCpus].a", job));
    }
}
