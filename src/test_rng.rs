//! The tests' source of repeatable pseudo-random numbers: a 64-bit linear
//! congruential generator (Knuth's MMIX constants), its high bits used. Tests
//! that draw many cases from a seed share it rather than each write its own.

/// A seeded generator; the same seed gives the same numbers everywhere.
pub(crate) struct TestRng(u64);

impl TestRng {
    /// A generator started at `seed`.
    pub(crate) fn new(seed: u64) -> TestRng {
        TestRng(seed)
    }

    /// The next number, below 2^31.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    /// The next number below `m` (which is not 0).
    pub(crate) fn below(&mut self, m: u64) -> u64 {
        self.next() % m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_seed_one_sequence_within_bounds() {
        let (mut a, mut b) = (TestRng::new(3), TestRng::new(3));
        let xs: Vec<u64> = (0..100).map(|_| a.next()).collect();
        assert!(xs.iter().all(|&x| x < 1 << 31));
        assert_eq!(xs, (0..100).map(|_| b.next()).collect::<Vec<_>>());
        assert_ne!(
            xs,
            (0..100).map(|_| TestRng::new(4).next()).collect::<Vec<_>>()
        );
        assert!((0..100).all(|_| a.below(7) < 7));
    }
}
