//! Logical values of up to 64 evaluations as bit masks: HTCondor's `&&`, `||` and
//! `!`, and the match verdict, for a whole block of lanes in a few word operations.

use crate::value::Value;

/// One value per lane, as the logical operators see it: bit `l` of at most one mask
/// is set for lane `l` (none for a lane not computed).
///
/// Numbers count as their boolean equivalent: every logical operator, jump and test
/// of the machine treats `5` exactly as `true` and `0.0` as `false`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Logic {
    /// `true`, or a non-zero number.
    pub t: u64,
    /// `false`, or zero.
    pub f: u64,
    /// `undefined`.
    pub u: u64,
    /// `error`.
    pub e: u64,
    /// Any other value (a string, a list, an ad, a time): an error to the
    /// logical operators.
    pub bad: u64,
}

impl Logic {
    /// `v` in every lane of `lanes`.
    pub fn of(v: &Value, lanes: u64) -> Logic {
        let mut l = Logic::default();
        *l.mask_of(v) = lanes;
        l
    }

    /// The mask that lanes holding `v` belong to.
    pub fn mask_of(&mut self, v: &Value) -> &mut u64 {
        match v {
            Value::Undefined => &mut self.u,
            Value::Error => &mut self.e,
            _ => match v.as_bool_equiv() {
                Some(true) => &mut self.t,
                Some(false) => &mut self.f,
                None => &mut self.bad,
            },
        }
    }

    /// Every lane that has a value.
    pub fn lanes(&self) -> u64 {
        self.t | self.f | self.u | self.e | self.bad
    }

    /// Only the lanes of `lanes`.
    pub fn only(self, lanes: u64) -> Logic {
        Logic {
            t: self.t & lanes,
            f: self.f & lanes,
            u: self.u & lanes,
            e: self.e & lanes,
            bad: self.bad & lanes,
        }
    }

    /// `self` with the lanes of `lanes` replaced by `new`'s.
    pub fn merge(self, new: Logic, lanes: u64) -> Logic {
        let keep = self.only(!lanes);
        let new = new.only(lanes);
        Logic {
            t: keep.t | new.t,
            f: keep.f | new.f,
            u: keep.u | new.u,
            e: keep.e | new.e,
            bad: keep.bad | new.bad,
        }
    }

    /// `a && b` lane by lane, as [`crate::ops::and`], on the lanes both have.
    pub fn and(a: Logic, b: Logic) -> Logic {
        let lanes = a.lanes() & b.lanes();
        let bad = (a.bad | b.bad) & lanes;
        let (a, b) = (a.only(lanes & !bad), b.only(lanes & !bad));
        let not_false = a.t | a.u;
        Logic {
            t: a.t & b.t,
            f: a.f | (not_false & b.f),
            u: (a.t & b.u) | (a.u & (b.t | b.u)),
            e: bad | a.e | (not_false & b.e),
            bad: 0,
        }
    }

    /// `a || b` lane by lane, as [`crate::ops::or`], on the lanes both have.
    pub fn or(a: Logic, b: Logic) -> Logic {
        let lanes = a.lanes() & b.lanes();
        let bad = (a.bad | b.bad) & lanes;
        let (a, b) = (a.only(lanes & !bad), b.only(lanes & !bad));
        let not_true = a.f | a.u;
        Logic {
            t: a.t | (not_true & b.t),
            f: a.f & b.f,
            u: (a.f & b.u) | (a.u & (b.f | b.u)),
            e: bad | a.e | (not_true & b.e),
            bad: 0,
        }
    }

    /// `!a` lane by lane, as [`crate::ops::not`].
    pub fn negate(a: Logic) -> Logic {
        Logic {
            t: a.f,
            f: a.t,
            u: a.u,
            e: a.e | a.bad,
            bad: 0,
        }
    }
}

/// Calls `f` with the index of every lane set in `mask`, lowest first.
#[inline(always)]
pub fn for_each_lane(mut mask: u64, mut f: impl FnMut(usize)) {
    while mask != 0 {
        f(mask.trailing_zeros() as usize);
        mask &= mask - 1;
    }
}

/// What a Requirements value says about a match, lane by lane.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Verdicts {
    /// Lanes whose value is true or a non-zero number: the match needs the other
    /// side's to be so too.
    pub yes: u64,
    /// Lanes whose value rules the match out on its own: false, zero, or error
    /// (HTCondor's `error && x` is error without evaluating `x`).
    pub no: u64,
    /// Lanes not evaluated here: the caller evaluates those pairs one by one.
    pub unknown: u64,
}

impl Verdicts {
    /// The verdicts of values classified as the logical operators see them; lanes
    /// with neither verdict nor `unknown` hold undefined or a value that is not
    /// logical, neither of which makes a match.
    pub fn of(v: Logic) -> Verdicts {
        Verdicts {
            yes: v.t,
            no: v.f | v.e,
            unknown: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops;
    use crate::value::Str;

    fn grid() -> Vec<Value> {
        vec![
            Value::Bool(true),
            Value::Bool(false),
            Value::Int(0),
            Value::Int(-3),
            Value::Real(0.0),
            Value::Real(-0.0),
            Value::Real(2.5),
            Value::Real(f64::NAN),
            Value::Undefined,
            Value::Error,
            Value::Str(Str::new("true")),
            Value::Str(Str::new("")),
            Value::RelTime(0.0),
        ]
    }

    /// Every pair of the grid in its own lane, through the masks, against the
    /// machine's operator on the values themselves.
    #[test]
    fn masks_agree_with_the_operators() {
        let grid = grid();
        let pairs: Vec<(&Value, &Value)> = grid
            .iter()
            .flat_map(|a| grid.iter().map(move |b| (a, b)))
            .collect();
        for chunk in pairs.chunks(64) {
            let (mut a, mut b) = (Logic::default(), Logic::default());
            for (l, (x, y)) in chunk.iter().enumerate() {
                *a.mask_of(x) |= 1 << l;
                *b.mask_of(y) |= 1 << l;
            }
            type Op = (fn(Logic, Logic) -> Logic, fn(&Value, &Value) -> Value);
            let binary: [Op; 2] = [(Logic::and, ops::and), (Logic::or, ops::or)];
            for (masks, op) in binary {
                let got = masks(a, b);
                for (l, (x, y)) in chunk.iter().enumerate() {
                    let want = Logic::of(&op(x, y), 1 << l);
                    assert_eq!(got.only(1 << l), want, "{x:?}, {y:?}");
                }
            }
            let got = Logic::negate(a);
            for (l, (x, _)) in chunk.iter().enumerate() {
                assert_eq!(got.only(1 << l), Logic::of(&ops::not(x), 1 << l), "!{x:?}");
            }
        }
    }

    /// A match needs both Requirements to be yes; a no decides alone.
    #[test]
    fn verdicts_agree_with_the_match_rule() {
        let grid = grid();
        for r in &grid {
            for l in &grid {
                let (vr, vl) = (Verdicts::of(Logic::of(r, 1)), Verdicts::of(Logic::of(l, 1)));
                let matched = ops::and(r, l).as_bool_equiv() == Some(true);
                assert_eq!(vr.yes & vl.yes == 1, matched, "{r:?} && {l:?}");
                let rules_out = r.is_error() || r.as_bool_equiv() == Some(false);
                assert_eq!(vr.no == 1, rules_out, "{r:?}");
            }
        }
    }
}
