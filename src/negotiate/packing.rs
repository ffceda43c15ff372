//! What the schedd packs into a partitionable slot's leftovers
//! (`CLAIM_PARTITIONABLE_LEFTOVERS`, negotiator.md section 7.1), outside the
//! negotiator: after a match, further jobs of the same request go into what is
//! left while every resource suffices and the slot's Requirements accept them.

use crate::ad::ClassAd;
use crate::engine::eval_attr_once;
use crate::syntax::ast::Expr;
use classad_vm::Value;
use std::sync::Arc;

/// The resources a slot is carved by: those of `MachineResources` less Swap, or
/// Cpus, Memory and Disk.
fn resources(slot: &Arc<ClassAd>) -> Vec<String> {
    super::consumption::resources(slot)
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| vec!["Cpus".into(), "Memory".into(), "Disk".into()])
}

/// What a job asks of a resource: `Request<resource>` (the slot as TARGET), 1
/// CPU and nothing else when missing or not a number.
fn request(job: &Arc<ClassAd>, slot: &Arc<ClassAd>, resource: &str) -> f64 {
    let v = eval_attr_once(job, &format!("Request{resource}"), Some(slot));
    match v.ok().and_then(|v| v.as_f64_promoted()) {
        Some(x) => x,
        None if resource.eq_ignore_ascii_case("Cpus") => 1.0,
        None => 0.0,
    }
}

fn amount(slot: &Arc<ClassAd>, resource: &str) -> f64 {
    eval_attr_once(slot, resource, None)
        .ok()
        .and_then(|v| v.as_f64_promoted())
        .unwrap_or(0.0)
}

fn keep_integers(v: f64) -> Value {
    if v - v.floor() > 0.0 {
        Value::Real(v)
    } else {
        Value::Int(v as i64)
    }
}

/// A partitionable slot's leftovers.
pub struct Leftovers {
    slot: Arc<ClassAd>,
    resources: Vec<String>,
}

impl Leftovers {
    /// What `job` leaves of `slot`.
    pub fn after(slot: &Arc<ClassAd>, job: &Arc<ClassAd>) -> Leftovers {
        let resources = resources(slot);
        let mut l = Leftovers {
            slot: slot.clone(),
            resources,
        };
        l.subtract(job);
        l
    }

    fn subtract(&mut self, job: &Arc<ClassAd>) {
        let mut ad = (*self.slot).clone();
        for r in &self.resources {
            let left = amount(&self.slot, r) - request(job, &self.slot, r);
            ad.insert_expr(r.as_str(), Expr::literal(keep_integers(left)));
        }
        self.slot = Arc::new(ad);
    }

    /// Packs `job` when every resource suffices and the slot's Requirements (the
    /// leftovers as MY) accept it; false (and nothing taken) otherwise.
    pub fn take(&mut self, job: &Arc<ClassAd>) -> bool {
        let fits = self
            .resources
            .iter()
            .all(|r| request(job, &self.slot, r) <= amount(&self.slot, r));
        let accepted = fits
            && matches!(
                eval_attr_once(&self.slot, "Requirements", Some(job)).map(|v| v.as_bool_equiv()),
                Ok(Some(true))
            );
        if accepted {
            self.subtract(job);
        }
        accepted
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;

    fn ad(text: &str) -> Arc<ClassAd> {
        Arc::new(read_ads(text, "t").unwrap().remove(0))
    }

    #[test]
    fn jobs_fit_while_every_resource_suffices_and_requirements_accept() {
        let slot = ad(
            "PartitionableSlot = true\nCpus = 8\nMemory = 1000\nDisk = 100\n\
                       Requirements = TARGET.RequestCpus <= MY.Cpus && TARGET.Small =!= false\n",
        );
        let job = ad("RequestCpus = 3\nRequestMemory = 400\nRequestDisk = 10\n");
        let mut l = Leftovers::after(&slot, &job);
        assert!(l.take(&job), "5 CPUs and 600 MB left");
        assert!(!l.take(&job), "2 CPUs and 200 MB left: no");
        let small = ad("RequestCpus = 1\nRequestMemory = 100\nSmall = false\n");
        assert!(!l.take(&small), "the slot's Requirements refuse it");
        let tiny = ad("RequestCpus = 1\nRequestMemory = 100\n");
        assert!(l.take(&tiny));
        assert_eq!(amount(&l.slot, "Cpus"), 1.0);
    }
}
