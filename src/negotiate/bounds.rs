//! The bound on the amounts a cycle works with, which keeps its arithmetic
//! finite. Each input being finite is not enough: a real priority and a factor
//! of 1e200 each make an infinite effective priority, and the normalisation of
//! priorities then divides infinity by infinity (NaN, and nothing matches); two
//! slots of weight 1e308 make an infinite pool, and its group quotas infinity
//! less infinity.
//!
//! With real priorities, priority factors, weighted usages, group quotas and
//! weights at most [`MAX_AMOUNT`] (1e100), an effective priority is at most
//! 1e200, the normalisation (the largest priority over each submitter's, summed
//! over the submitters) at most 4e200 per submitter, and sums of up to 2^32
//! usages, weights or quotas about 4e109: all far inside a double.

/// The largest real priority, priority factor, weighted usage, group quota and
/// weight the cycle takes: 1e100. A priorities line or a knob past it is refused;
/// a weight past it (a slot's `SlotWeight`, a job's weight as group demand),
/// infinity included, counts as this much.
pub const MAX_AMOUNT: f64 = 1e100;

/// A weight as the cycle counts it: within ±[`MAX_AMOUNT`] (NaN stays NaN, for
/// the caller's own rule on weights that are not numbers).
pub fn bounded(weight: f64) -> f64 {
    weight.clamp(-MAX_AMOUNT, MAX_AMOUNT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_past_the_bound_count_as_the_bound() {
        assert_eq!(bounded(1e308), MAX_AMOUNT);
        assert_eq!(bounded(f64::INFINITY), MAX_AMOUNT);
        assert_eq!(bounded(f64::NEG_INFINITY), -MAX_AMOUNT);
        assert_eq!(bounded(4.5), 4.5);
        assert!(bounded(f64::NAN).is_nan());
        assert_eq!(
            format!("{MAX_AMOUNT:e}"),
            "1e100",
            "as the messages print it"
        );
    }
}
