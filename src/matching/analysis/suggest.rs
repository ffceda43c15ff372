//! Suggestions for a job whose Requirements accept no slot: which conjuncts to
//! remove, and to what value to change the ones that compare a slot attribute
//! with a value the job sets.
//!
//! This follows the decision of HTCondor's `ClassAdAnalyzer`
//! (`SuggestConditionModify` in `src/classad_analysis/analysis.cpp`, which
//! `condor_q -better-analyze` printed as its "Suggestions" table until HTCondor
//! 8.5.8 and which HTCondor removed from its source in 2024): find the slot
//! closest to being accepted, then make every condition that slot fails hold
//! for it.
//!
//! * The distance of a slot is the sum, over the conjuncts it fails, of how far
//!   it is from each: for a numeric comparison (`<`, `<=`, `>`, `>=`, `==` with a
//!   number) with a numeric value in the slot, the gap between the slot's value
//!   and the nearest value the comparison accepts, as a fraction of the range of
//!   the attribute's values over all slots and the compared value; for any other
//!   failed conjunct, 1. The closest slot has the least distance; the first in
//!   the pool among equals.
//! * A conjunct the closest slot satisfies stays as it is. One it fails is to be
//!   removed, unless it compares the slot's attribute with a value the job
//!   fixes and the slot has a value: then the value is to be changed to the
//!   slot's (`MODIFY TO`), one less for `>` and one more for `<` so that the
//!   comparison holds (HTCondor changed the value only when it equalled the
//!   bound, which for a single comparison it always does). `!=` and `=!=` cannot
//!   be made to hold by a value, and are to be removed.
//!
//! HTCondor grouped the conditions on one attribute and measured a slot against
//! their joint range; a slot can fail only one of a consistent range's bounds,
//! so measuring each conjunct on its own picks the same slot for a range, and
//! each conjunct's suggestion is its own.

use super::conjuncts::Comparison;
use super::truth::Hits;
use classad_vm::ops::Cmp;
use classad_vm::Value;

/// What to do with a conjunct.
#[derive(Clone, Debug)]
pub enum Suggestion {
    /// Drop it.
    Remove,
    /// Change the value it compares with to this.
    ModifyTo(Value),
}

impl std::fmt::Display for Suggestion {
    /// As HTCondor printed it: `REMOVE`, or `MODIFY TO` and the value.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Suggestion::Remove => f.write_str("REMOVE"),
            Suggestion::ModifyTo(v) => {
                write!(f, "MODIFY TO {}", crate::values::display::unparse_value(v))
            }
        }
    }
}

/// The suggestions for a job.
#[derive(Clone, Debug)]
pub struct Suggestions {
    /// The slot the suggestions make the job's Requirements accept.
    pub closest: usize,
    /// Per conjunct, what to do (`None`: keep it).
    pub conjuncts: Vec<Option<Suggestion>>,
}

/// The suggestions for conjuncts that hold for the slots `holds` gives (one set
/// per conjunct, over the same slots), where `comparisons` says which conjuncts
/// compare a slot attribute with a fixed value and `value(c, s)` gives the
/// compared attribute of conjunct `c` in slot `s`. `None` when there is no slot,
/// or some slot satisfies every conjunct (nothing to suggest).
pub fn suggest(
    comparisons: &[Option<Comparison>],
    holds: &[Hits],
    slots: usize,
    value: impl Fn(usize, usize) -> Value,
) -> Option<Suggestions> {
    if slots == 0 {
        return None;
    }
    // The compared attribute's numbers in every slot, for the numeric
    // comparisons: what their distances are measured with.
    let numbers: Vec<Option<Vec<Option<f64>>>> = comparisons
        .iter()
        .enumerate()
        .map(|(c, cmp)| {
            let cmp = cmp.as_ref()?;
            number(&cmp.value)?;
            if !numeric_op(cmp.op) {
                return None;
            }
            Some((0..slots).map(|s| number(&value(c, s))).collect())
        })
        .collect();
    let spans: Vec<Option<f64>> = comparisons
        .iter()
        .zip(&numbers)
        .map(|(cmp, nums)| {
            let k = number(&cmp.as_ref()?.value)?;
            let (lo, hi) = nums
                .as_ref()?
                .iter()
                .flatten()
                .fold((k, k), |(lo, hi), &x| (lo.min(x), hi.max(x)));
            Some(hi - lo)
        })
        .collect();
    let mut closest: Option<(usize, f64)> = None;
    for s in 0..slots {
        let mut distance = 0.0;
        let mut fails = false;
        for (c, h) in holds.iter().enumerate() {
            if h.get(s) {
                continue;
            }
            fails = true;
            distance += match (&comparisons[c], &numbers[c], spans[c]) {
                (Some(cmp), Some(nums), Some(span)) if span > 0.0 => match nums[s] {
                    Some(x) => (gap(cmp.op, x, number(&cmp.value).unwrap_or(x)) / span).min(1.0),
                    None => 1.0,
                },
                _ => 1.0,
            };
        }
        if !fails {
            return None;
        }
        match closest {
            Some((_, best)) if distance >= best => {}
            _ => closest = Some((s, distance)),
        }
    }
    let (closest, _) = closest?;
    let conjuncts = holds
        .iter()
        .enumerate()
        .map(|(c, h)| {
            if h.get(closest) {
                return None;
            }
            Some(match &comparisons[c] {
                Some(cmp) => change(cmp.op, &value(c, closest)),
                None => Suggestion::Remove,
            })
        })
        .collect();
    Some(Suggestions { closest, conjuncts })
}

/// The change that makes `x op k` hold for the slot's value `v`.
fn change(op: Cmp, v: &Value) -> Suggestion {
    if !matches!(
        v,
        Value::Int(_) | Value::Real(_) | Value::Str(_) | Value::Bool(_)
    ) {
        return Suggestion::Remove;
    }
    match op {
        Cmp::Ge | Cmp::Le | Cmp::Eq | Cmp::Is => Suggestion::ModifyTo(v.clone()),
        Cmp::Gt => step(v, -1.0).map_or(Suggestion::Remove, Suggestion::ModifyTo),
        Cmp::Lt => step(v, 1.0).map_or(Suggestion::Remove, Suggestion::ModifyTo),
        Cmp::Ne | Cmp::Isnt => Suggestion::Remove,
    }
}

/// HTCondor's `IncrementValue` (`by` 1) and `DecrementValue` (`by` -1): an
/// integer moves by one, a real to the next whole number (by one when whole).
fn step(v: &Value, by: f64) -> Option<Value> {
    match *v {
        Value::Int(i) => i.checked_add(by as i64).map(Value::Int),
        Value::Real(r) => {
            let whole = if by > 0.0 { r.ceil() } else { r.floor() };
            Some(Value::Real(if whole == r { r + by } else { whole }))
        }
        _ => None,
    }
}

/// How far `x` is from satisfying `x op k` (0 when it does, or is at the edge of
/// a strict bound).
fn gap(op: Cmp, x: f64, k: f64) -> f64 {
    match op {
        Cmp::Ge | Cmp::Gt => (k - x).max(0.0),
        Cmp::Le | Cmp::Lt => (x - k).max(0.0),
        _ => (x - k).abs(),
    }
}

/// The comparisons a numeric distance means something for.
fn numeric_op(op: Cmp) -> bool {
    matches!(op, Cmp::Lt | Cmp::Le | Cmp::Gt | Cmp::Ge | Cmp::Eq)
}

fn number(v: &Value) -> Option<f64> {
    match *v {
        Value::Int(i) => Some(i as f64),
        Value::Real(r) if r.is_finite() => Some(r),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ast::ExprRef;
    use crate::syntax::parse_expr;
    use crate::values::display::unparse_value;
    use std::sync::Arc;

    fn cmp(attr: &str, op: Cmp, value: Value) -> Option<Comparison> {
        Some(Comparison {
            target: ExprRef::root_of(Arc::new(parse_expr(attr).unwrap())),
            attr: attr.into(),
            op,
            value,
        })
    }

    /// Suggestions as the analysis prints them.
    fn shown(s: &[Option<Suggestion>]) -> Vec<String> {
        s.iter()
            .map(|s| match s {
                None => String::new(),
                Some(s) => s.to_string(),
            })
            .collect()
    }

    fn hits(bits: &[bool]) -> Hits {
        let mut h = Hits::new(bits.len());
        for (i, b) in bits.iter().enumerate() {
            if *b {
                h.set(i);
            }
        }
        h
    }

    #[test]
    fn nothing_to_suggest_when_a_slot_is_accepted_or_there_is_none() {
        let holds = [hits(&[true, false]), hits(&[true, true])];
        assert!(suggest(&[None, None], &holds, 2, |_, _| Value::Undefined).is_none());
        assert!(suggest(&[None], &[Hits::new(0)], 0, |_, _| Value::Undefined).is_none());
    }

    /// The manual's case: memory asked beyond every slot. The slot with the
    /// most memory is closest, and the request is to come down to it.
    #[test]
    fn a_request_beyond_every_slot_comes_down_to_the_largest() {
        let memory = [4096, 7936, 2048];
        let comparisons = [
            cmp("TARGET.Memory", Cmp::Ge, Value::Int(10000)),
            cmp("TARGET.Arch", Cmp::Eq, Value::Str("X86_64".into())),
        ];
        let holds = [hits(&[false, false, false]), hits(&[true, true, true])];
        let s = suggest(&comparisons, &holds, 3, |c, s| match c {
            0 => Value::Int(memory[s]),
            _ => Value::Str("X86_64".into()),
        })
        .unwrap();
        assert_eq!(s.closest, 1);
        assert_eq!(shown(&s.conjuncts), ["MODIFY TO 7936", ""]);
    }

    /// A small numeric gap weighs less than a failed string condition: the slot
    /// short of memory by a little is closer than the one on another system.
    #[test]
    fn the_closest_slot_weighs_numeric_gaps_against_other_failures() {
        let comparisons = [
            cmp("TARGET.Memory", Cmp::Gt, Value::Int(1000)),
            cmp("TARGET.OpSys", Cmp::Eq, Value::Str("LINUX".into())),
            None,
        ];
        // Slot 0: Memory 10, LINUX. Slot 1: Memory 990, WINDOWS.
        // Slot 2: Memory 995 (fails by 5 of a range of 990), LINUX, but fails
        // the third, complex, conjunct too.
        let memory = [10, 990, 995];
        let opsys = ["LINUX", "WINDOWS", "LINUX"];
        let holds = [
            hits(&[false, false, false]),
            hits(&[true, false, true]),
            hits(&[true, true, false]),
        ];
        let s = suggest(&comparisons, &holds, 3, |c, s| match c {
            0 => Value::Int(memory[s]),
            _ => Value::Str(opsys[s].into()),
        })
        .unwrap();
        // Distances: slot 0: 990/990 = 1; slot 1: 10/990 + 1; slot 2: 5/990 + 1.
        assert_eq!(s.closest, 0);
        assert_eq!(shown(&s.conjuncts), ["MODIFY TO 9", "", ""]);
    }

    #[test]
    fn what_no_value_can_fix_is_removed() {
        let comparisons = [
            cmp("TARGET.Gpus", Cmp::Ge, Value::Int(1)),
            cmp("TARGET.Name", Cmp::Ne, Value::Str("a".into())),
            cmp("TARGET.Cpus", Cmp::Lt, Value::Real(2.0)),
            None,
        ];
        let holds = [
            hits(&[false]),
            hits(&[false]),
            hits(&[false]),
            hits(&[false]),
        ];
        let s = suggest(&comparisons, &holds, 1, |c, _| match c {
            0 => Value::Undefined,
            1 => Value::Str("a".into()),
            _ => Value::Real(2.5),
        })
        .unwrap();
        assert_eq!(
            shown(&s.conjuncts),
            [
                "REMOVE",
                "REMOVE",
                "MODIFY TO 3.000000000000000E+00",
                "REMOVE"
            ]
        );
    }

    #[test]
    fn strict_bounds_move_by_one_as_htcondor_steps_values() {
        let text = |v: Option<Value>| v.map(|v| unparse_value(&v));
        assert_eq!(text(step(&Value::Int(7936), -1.0)).as_deref(), Some("7935"));
        assert_eq!(
            text(step(&Value::Real(2.0), 1.0)).as_deref(),
            Some("3.000000000000000E+00")
        );
        assert_eq!(
            text(step(&Value::Real(2.5), -1.0)).as_deref(),
            Some("2.000000000000000E+00")
        );
        assert!(step(&Value::Int(i64::MAX), 1.0).is_none());
        assert!(matches!(
            change(Cmp::Gt, &Value::Str("b".into())),
            Suggestion::Remove
        ));
    }
}
