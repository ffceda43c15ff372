//! The order of attribute names, which ads and nested records share.

use std::cmp::Ordering;

/// HTCondor's attribute order: shorter names first, then ASCII case-insensitive.
pub fn attr_order(a: &str, b: &str) -> Ordering {
    // A plain loop: the iterator chain of `Iterator::cmp` costs several times more,
    // and every lookup and every sort of an ad's names runs this.
    a.len().cmp(&b.len()).then_with(|| {
        for (x, y) in a.bytes().zip(b.bytes()) {
            let (x, y) = (x.to_ascii_lowercase(), y.to_ascii_lowercase());
            if x != y {
                return x.cmp(&y);
            }
        }
        Ordering::Equal
    })
}
