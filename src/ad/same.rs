//! Sameness of ads: HTCondor's `ClassAd::SameAs` (expressions' is
//! [`crate::syntax::same`]).

use super::ClassAd;
use crate::syntax::same::same_as;

/// True when two ads are the same as HTCondor's `ClassAd::SameAs` decides: as many
/// attributes, and each one's expression the same as the other ad's attribute of
/// that name (ignoring case).
pub fn same_ads(a: &ClassAd, b: &ClassAd) -> bool {
    a.len() == b.len()
        && a.iter().all(|(name, ea)| match b.get(name) {
            Some(eb) => same_as(ea.tree, ea.id, eb.tree, eb.id),
            None => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;

    #[test]
    fn ads_are_the_same_in_any_order_with_names_ignoring_case() {
        let ads = read_ads("[a = 1; b = 2] [B = 2; a = 1] [a = 1; b = 2.0]", "t").unwrap();
        assert!(same_ads(&ads[0], &ads[1]));
        assert!(!same_ads(&ads[0], &ads[2]));
    }
}
