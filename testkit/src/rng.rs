//! The one random number generator: SplitMix64, seeded, with helpers for the
//! distributions the generators need.
//!
//! SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
//! 2014) is tiny, fast, passes BigCrush and is good enough for test data; it is not for
//! anything else. Every generator in this crate takes `&mut Rng`, so the same function
//! serves `segbatch verify` (a seeded stream), benches and examples (a fixed seed) and
//! proptest (see [`Rng::from_tape`]).

use crate::vec::{V3, dot, scale};

/// SplitMix64 with an optional *tape*: words consumed before the generator's own stream.
///
/// The tape is how proptest drives the generators: a strategy draws a vector of words
/// (see `strategy::rng`) and proptest shrinks those words towards zero, so a failing case
/// shrinks to simpler draws (every `unit()` from a zeroed word is `0.0`, every range its low
/// end) instead of to an unrelated seed. Once the tape is used up the generator continues
/// with its own stream, so a generator may draw as many words as it likes.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
    tape: Vec<u64>,
    pos: usize,
}

impl Rng {
    /// The SplitMix64 stream whose state starts at `seed` (the standard seeding: the first
    /// word is the mix of `seed + 0x9E37_79B9_7F4A_7C15`).
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Rng {
            state: seed,
            tape: Vec::new(),
            pos: 0,
        }
    }

    /// A generator that returns the words of `tape` first, then continues with the stream of
    /// `Rng::new(seed)`.
    #[must_use]
    pub fn from_tape(tape: Vec<u64>, seed: u64) -> Self {
        Rng {
            state: seed,
            tape,
            pos: 0,
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        if let Some(&w) = self.tape.get(self.pos) {
            self.pos += 1;
            return w;
        }
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`, 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in `[-1, 1)`.
    pub fn sym(&mut self) -> f64 {
        2.0 * self.unit() - 1.0
    }

    /// `10^u` with `u` uniform in `[lo, hi)`: log-uniform magnitudes.
    pub fn log10(&mut self, lo: f64, hi: f64) -> f64 {
        10f64.powf(self.range(lo, hi))
    }

    /// `10^k` with the integer `k` uniform in `lo..=hi`.
    pub fn pow10(&mut self, lo: i32, hi: i32) -> f64 {
        10f64.powi(lo + self.below((hi - lo + 1) as u64) as i32)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Uniform in `0..n` (`n > 0`; the modulo bias is irrelevant for test data).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// Uniform integer in `lo..=hi`.
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    /// One of `items`, uniformly.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }

    /// Uniform in `[0, 1)` in f32, 24 random bits (the top ones).
    pub fn unit_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `[lo, hi)` in f32 (`lo + (hi - lo)·u`, rounded in f32).
    pub fn range_f32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit_f32()
    }

    /// A point uniform in the cube `[-h, h)³`, f32.
    pub fn cube_f32(&mut self, h: f32) -> [f32; 3] {
        [
            self.range_f32(-h, h),
            self.range_f32(-h, h),
            self.range_f32(-h, h),
        ]
    }

    /// A point uniform in the cube `[-h, h)³`.
    pub fn cube(&mut self, h: f64) -> V3 {
        [self.range(-h, h), self.range(-h, h), self.range(-h, h)]
    }

    /// A uniformly random unit vector (rejection from the unit ball).
    pub fn dir(&mut self) -> V3 {
        loop {
            let v = self.cube(1.0);
            let n = dot(v, v);
            if n > 1e-4 && n <= 1.0 {
                return scale(v, 1.0 / n.sqrt());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_values() {
        // The first outputs of SplitMix64 seeded with 0 (Vigna's reference implementation).
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn tape_comes_first() {
        let mut r = Rng::from_tape(vec![0, u64::MAX], 0);
        assert_eq!(r.unit(), 0.0);
        assert!(r.unit() < 1.0);
        assert_eq!(r.next_u64(), Rng::new(0).next_u64());
    }
}
