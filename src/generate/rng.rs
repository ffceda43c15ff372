//! The generator's pseudo-random numbers: SplitMix64, written out here so a seed
//! names the same pool whatever crate versions are in the lock file, and the
//! handful of draws the model needs (Python's `random` calls, by the same names).

/// A SplitMix64 generator.
#[derive(Clone, Debug)]
pub(super) struct Rng {
    state: u64,
}

/// One step of SplitMix64's output function (also a good 64-bit mixer).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// The generator of part `index` of stream `stream` under the master seed: each
    /// part (the machine plan, the signatures, a chunk of job ads...) draws from its
    /// own sequence, so parts can be made in any order, on any thread.
    pub(super) fn derive(seed: u64, stream: u64, index: u64) -> Rng {
        let base = mix(seed ^ mix(stream.wrapping_mul(0xA076_1D64_78BD_642F)));
        Rng {
            state: mix(base ^ index.wrapping_mul(0xE703_7ED1_A0B4_28DB)),
        }
    }

    /// The next 64 random bits.
    pub(super) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.state)
    }

    /// A real in `[0, 1)` (Python's `random()`).
    pub(super) fn random(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A number in `0..n`, `n > 0` (Lemire's multiply-shift; the bias is below
    /// 2^-40 for the sizes drawn here).
    pub(super) fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A number in `lo..hi`, `lo < hi` (Python's `randrange(lo, hi)`).
    pub(super) fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo) as u64) as i64
    }

    /// A number in `lo..=hi` (Python's `randint(lo, hi)`).
    pub(super) fn range_incl(&mut self, lo: i64, hi: i64) -> i64 {
        self.range(lo, hi + 1)
    }

    /// A real in `[lo, hi)` (Python's `uniform(lo, hi)`).
    pub(super) fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.random()
    }

    /// True with probability `p`.
    pub(super) fn chance(&mut self, p: f64) -> bool {
        self.random() < p
    }

    /// A uniformly chosen element of a non-empty slice (Python's `choice`).
    pub(super) fn choice<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }

    /// A value chosen with the given relative weights (the model's `wchoice`); the
    /// slice is not empty and its weights are positive.
    pub(super) fn weighted<'a, T>(&mut self, items: &'a [(T, u32)]) -> &'a T {
        let total: u64 = items.iter().map(|(_, w)| u64::from(*w)).sum();
        let mut x = self.below(total);
        for (v, w) in items {
            if x < u64::from(*w) {
                return v;
            }
            x -= u64::from(*w);
        }
        unreachable!("weights sum to {total}")
    }

    /// `k` distinct indices of `0..n`, `k <= n`, in the order drawn (Python's
    /// `sample`): a partial Fisher-Yates shuffle for small `n`, rejection of
    /// repeats when `k` is a small part of a large `n`.
    pub(super) fn sample(&mut self, n: usize, k: usize) -> Vec<usize> {
        assert!(k <= n, "sample of {k} out of {n}");
        if k * 8 < n {
            let mut picked: Vec<usize> = Vec::with_capacity(k);
            while picked.len() < k {
                let i = self.below(n as u64) as usize;
                if !picked.contains(&i) {
                    picked.push(i);
                }
            }
            return picked;
        }
        let mut all: Vec<usize> = (0..n).collect();
        for i in 0..k {
            let j = i + self.below((n - i) as u64) as usize;
            all.swap(i, j);
        }
        all.truncate(k);
        all
    }

    /// A Pareto variate of shape `alpha`, at least 1 (Python's `paretovariate`).
    pub(super) fn pareto(&mut self, alpha: f64) -> f64 {
        let u = 1.0 - self.random();
        u.powf(-1.0 / alpha)
    }
}

/// A cumulative table for drawing indices with real weights in `O(log n)` (the
/// jobs' Zipf-weighted signatures).
#[derive(Clone, Debug)]
pub(super) struct Cumulative {
    sums: Vec<f64>,
}

impl Cumulative {
    /// The table of `weights` (not empty, each positive).
    pub(super) fn new(weights: impl IntoIterator<Item = f64>) -> Cumulative {
        let mut total = 0.0;
        let sums = weights
            .into_iter()
            .map(|w| {
                total += w;
                total
            })
            .collect();
        Cumulative { sums }
    }

    /// An index drawn with probability proportional to its weight.
    pub(super) fn draw(&self, rng: &mut Rng) -> usize {
        let total = *self.sums.last().expect("weights");
        let x = rng.random() * total;
        self.sums
            .partition_point(|&s| s <= x)
            .min(self.sums.len() - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_differ_and_repeat() {
        let a: Vec<u64> = (0..4).map(|_| Rng::derive(1, 2, 3).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut x = Rng::derive(1, 2, 3);
        let mut y = Rng::derive(1, 2, 4);
        let mut z = Rng::derive(1, 3, 3);
        let (x, y, z) = (x.next_u64(), y.next_u64(), z.next_u64());
        assert!(x != y && x != z && y != z);
    }

    #[test]
    fn draws_stay_in_range() {
        let mut r = Rng::derive(7, 0, 0);
        for _ in 0..10_000 {
            let f = r.random();
            assert!((0.0..1.0).contains(&f));
            assert!((3..9).contains(&r.range(3, 9)));
            assert!((3..=9).contains(&r.range_incl(3, 9)));
            assert!(r.pareto(0.9) >= 1.0);
        }
        let s = r.sample(10, 10);
        let mut sorted = s.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..10).collect::<Vec<_>>());
        let s = r.sample(1000, 4);
        assert_eq!(s.len(), 4);
        assert!(s
            .iter()
            .all(|&i| s.iter().filter(|&&j| j == i).count() == 1));
    }

    #[test]
    fn weighted_draws_follow_the_weights() {
        let mut r = Rng::derive(9, 0, 0);
        let items = [("a", 1), ("b", 3)];
        let b = (0..40_000).filter(|_| *r.weighted(&items) == "b").count();
        assert!((29_000..31_000).contains(&b), "{b}");
        let c = Cumulative::new([1.0, 0.0001, 3.0]);
        let n2 = (0..40_000).filter(|_| c.draw(&mut r) == 2).count();
        assert!((29_000..31_000).contains(&n2), "{n2}");
    }
}
