//! A small deterministic generator for the unit tests inside the crate (the `f64` lane
//! tests of the kernel and of CPA draw their hard classes from it): splitmix64, so a seed
//! names one sequence on every platform, with no dependency.

/// splitmix64 state.
pub(crate) struct Mix(pub(crate) u64);

impl Mix {
    /// The next 64 random bits.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[-1, 1)`.
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    /// A point with coordinates uniform in `[-1, 1)`.
    pub(crate) fn point(&mut self) -> [f64; 3] {
        [self.unit(), self.unit(), self.unit()]
    }

    /// One of `xs`, uniformly.
    pub(crate) fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[(self.next() % xs.len() as u64) as usize]
    }
}
