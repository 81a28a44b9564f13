//! Test support for segbatch, in one place: the tests, the benches, the examples and the
//! `segbatch verify` command all use it.
//!
//! - [`Rng`]: the one random number generator (SplitMix64), seeded.
//! - [`oracle`]: the f64 oracle of the 3D closest-points question (segment, ray or line on
//!   each side), obviously correct and independent of the library's flags; error units and
//!   approximate asserts. [`oracle2d`]: the same for 2D segments, with exact integer
//!   predicates. [`oracle64`] (feature `exact`): the exact (rational) oracle of the `f64`
//!   question, for the `8·f64::EPSILON·S` bar.
//! - [`pairs`]: the adversarial 3D generators, one function per hard-case class
//!   ([`pairs::CLASSES`]); [`motion`]: moving pairs, 2D pairs and the closest-approach
//!   oracle. [`pairs64`]: the hard classes in `f64` (angles to 1e-15 rad, offsets of
//!   1e12, scales of 1e±200, non-finite). [`motion64`]: moving pairs in `f64` and (feature
//!   `exact`) the exact closest-approach oracle.
//! - [`range64`]: the oracle of the `f64` range rule: scenes scaled by a power of two to the
//!   edges of `f64`'s range decide as the scenes themselves.
//! - [`brute`]: brute force over the scalar reference, and bitwise comparisons of hit lists.
//! - [`sets`]: whole sets for the set queries (hair, clustered, degenerate, walls and rays).
//! - `strategy` (feature `proptest`): every generator as a proptest strategy.
//! - [`fuzz`]: the checks behind the fuzz targets (kernel vs reference, kernel vs oracle).
//! - [`sweep`]: the size of a fixed seeded sweep, scaled with `PROPTEST_CASES` like the
//!   properties beside it.
//!
//! Not published. Unit tests inside the library's `src/` cannot use it (they compile a
//! second copy of segbatch whose types differ); integration tests, benches and examples can.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod brute;
pub mod fuzz;
pub mod motion;
pub mod motion64;
pub mod oracle;
pub mod oracle2d;
#[cfg(feature = "exact")]
pub mod oracle64;
pub mod pairs;
pub mod pairs64;
pub mod range64;
mod rng;
pub mod sets;
#[cfg(feature = "proptest")]
pub mod strategy;
pub mod swept;
pub mod vec;

pub use oracle::{EPS32, EXTENT_PAIRS, Oracle};
pub use pairs::{CLASSES, Class, Pair, PairFn};
pub use rng::Rng;

/// The size of a fixed seeded sweep (a test that checks `full` generated inputs rather than
/// proptest cases) scaled with `PROPTEST_CASES` the way the properties beside it are:
/// `full` at proptest's default of 256 cases (also when the variable is unset or not a
/// number), `full · cases / 256` otherwise, but never below `full / 8` or 1. A quick run
/// (`PROPTEST_CASES=64`, what `.ci/run` uses) checks a quarter of each sweep and a long one
/// (`PROPTEST_CASES=10000`) many times more; the seeds stay the same, so a smaller sweep is
/// a prefix of the larger one.
pub fn sweep(full: usize) -> usize {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(256);
    (full.saturating_mul(cases) / 256).max(full / 8).max(1)
}
