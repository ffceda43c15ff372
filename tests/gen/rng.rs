//! SplitMix64: tiny, fast, statistically fine for test generation, and fully
//! specified here so the corpus does not change with a dependency's version.

/// A SplitMix64 pseudo-random generator.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// The generator for case `index` of stream `stream` under `master`: each case
    /// has its own seed so it can be regenerated without the cases before it.
    pub fn for_case(master: u64, stream: u64, index: u64) -> (u64, Rng) {
        let mut mixer = Rng::new(master ^ stream.wrapping_mul(0xA076_1D64_78BD_642F));
        let base = mixer.next_u64();
        let seed = Rng::new(base ^ index.wrapping_mul(0xE703_7ED1_A0B4_28DB)).next_u64();
        (seed, Rng::new(seed))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`). The modulo bias is irrelevant at these sizes.
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "below(0)");
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// A signed number in `lo..=hi`.
    pub fn range_i64(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi - lo) as u64 + 1;
        lo + (self.next_u64() % span) as i64
    }

    /// True with probability `1/n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    /// A uniformly chosen element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }

    /// A copy of a uniformly chosen element of a non-empty slice.
    pub fn pick_copy<T: Copy>(&mut self, xs: &[T]) -> T {
        *self.pick(xs)
    }

    /// An index chosen with the given relative weights.
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut r = self.below(total as usize) as u32;
        for (i, &w) in weights.iter().enumerate() {
            if r < w {
                return i;
            }
            r -= w;
        }
        unreachable!("weights sum to {total}")
    }
}
