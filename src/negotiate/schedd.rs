//! What the schedd makes of its job when a claim starts it and when the
//! claim is taken from it (issue 36 item 5; docs/negotiator.md section 17),
//! so that the next cycle sees the queue as HTCondor's negotiator would.
//! Each rule as the function it follows does it (`src/condor_schedd.V6`):
//!
//! - **Started** (`mark_job_running`, and the shadow's `RemoteHost` and
//!   `JobCurrentStartDate`): `JobStatus` 2 (running), `EnteredCurrentStatus`
//!   the time, `LastSuspensionTime` 0, `CurrentHosts` 1, `RemoteHost` the
//!   slot's name, `JobCurrentStartDate` the time, `NumJobStarts` one more.
//! - **Evicted** (`_mark_job_stopped`, after its claim was preempted):
//!   `JobStatus` 1 (idle), `EnteredCurrentStatus` the time,
//!   `LastSuspensionTime` 0, `CurrentHosts` 0; `RemoteHost` becomes
//!   `LastRemoteHost`, and `LastVacateTime` the time.

use crate::ad::ClassAd;
use crate::engine::eval_attr_once;
use crate::syntax::ast::Expr;
use crate::Value;
use std::sync::Arc;

fn set(ad: &mut ClassAd, name: &str, v: Value) {
    ad.insert_expr(name, Expr::literal(v));
}

/// True when `job` is idle: `JobStatus` 1, or none (as the negotiator's
/// queue reads it).
pub fn is_idle(job: &Arc<ClassAd>) -> bool {
    match eval_attr_once(job, "JobStatus", None) {
        Ok(Value::Int(s)) => s == 1,
        Ok(Value::Real(r)) => r == 1.0,
        Ok(Value::Undefined) => true,
        _ => false,
    }
}

/// `job` started on the slot named `slot_name` at `now` (see the module).
pub fn started(job: &Arc<ClassAd>, slot_name: &str, now: i64) -> ClassAd {
    let starts = match eval_attr_once(job, "NumJobStarts", None) {
        Ok(Value::Int(n)) => n,
        _ => 0,
    };
    let mut ad = (**job).clone();
    set(&mut ad, "JobStatus", Value::Int(2));
    set(&mut ad, "EnteredCurrentStatus", Value::Int(now));
    set(&mut ad, "LastSuspensionTime", Value::Int(0));
    set(&mut ad, "CurrentHosts", Value::Int(1));
    set(&mut ad, "RemoteHost", Value::str(slot_name));
    set(&mut ad, "JobCurrentStartDate", Value::Int(now));
    set(&mut ad, "NumJobStarts", Value::Int(starts + 1));
    ad
}

/// `job` evicted from its claim at `now`, idle again (see the module).
pub fn evicted(job: &Arc<ClassAd>, now: i64) -> ClassAd {
    let mut ad = (**job).clone();
    set(&mut ad, "JobStatus", Value::Int(1));
    set(&mut ad, "EnteredCurrentStatus", Value::Int(now));
    set(&mut ad, "LastSuspensionTime", Value::Int(0));
    set(&mut ad, "CurrentHosts", Value::Int(0));
    if let Some(host) = ad.get("RemoteHost").map(|e| e.to_expr_ref()) {
        ad.insert("LastRemoteHost", host);
        ad.remove("RemoteHost");
    }
    set(&mut ad, "LastVacateTime", Value::Int(now));
    ad
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;

    fn get(ad: &ClassAd, name: &str) -> String {
        let v = eval_attr_once(&Arc::new(ad.clone()), name, None).unwrap_or(Value::Error);
        crate::values::display::unparse_value(&v)
    }

    /// `mark_job_running` then `_mark_job_stopped`: running on the slot,
    /// then idle with the host it ran on remembered.
    #[test]
    fn a_job_started_then_evicted_is_idle_again() {
        let job = Arc::new(
            read_ads("JobStatus = 1\nClusterId = 3\n", "t")
                .unwrap()
                .remove(0),
        );
        assert!(is_idle(&job));
        let running = Arc::new(started(&job, "slot1@h", 100));
        assert!(!is_idle(&running));
        assert_eq!(get(&running, "JobStatus"), "2");
        assert_eq!(get(&running, "RemoteHost"), "\"slot1@h\"");
        assert_eq!(get(&running, "JobCurrentStartDate"), "100");
        assert_eq!(get(&running, "NumJobStarts"), "1");
        let idle = Arc::new(evicted(&running, 160));
        assert!(is_idle(&idle));
        assert_eq!(get(&idle, "RemoteHost"), "undefined");
        assert_eq!(get(&idle, "LastRemoteHost"), "\"slot1@h\"");
        assert_eq!(get(&idle, "EnteredCurrentStatus"), "160");
        assert_eq!(get(&idle, "CurrentHosts"), "0");
        assert_eq!(
            get(&Arc::new(started(&idle, "s2@h", 200)), "NumJobStarts"),
            "2"
        );
        // No JobStatus: idle, as the queue reads it.
        let bare = Arc::new(read_ads("ClusterId = 3\n", "t").unwrap().remove(0));
        assert!(is_idle(&bare));
    }
}
