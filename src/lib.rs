//! # segbatch
//!
//! Closest points and distances between 3D segments, rays and lines: one pair at a time with
//! the scalar [`reference`], or millions of pairs per second with the batched kernel.
//!
//! For each pair of sides A = (A0, A1) and B = (B0, B1) it finds the closest points
//! `C = A0 + s·(A1 - A0)` on A and `D = B0 + t·(B1 - B0)` on B, the squared distance and
//! [`Flags`] saying whether a side was degenerate, the pair parallel or an input non-finite.
//! Each side is a segment, a ray or an infinite line ([`Extent`]).
//!
//! ```
//! use segbatch::{reference, Segment};
//! // Two segments crossing at right angles, one unit apart.
//! let a = Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
//! let b = Segment::new([1.0, -1.0, 1.0], [1.0, 1.0, 1.0]);
//! let c = reference::closest_points(&a, &b);
//! assert_eq!((c.s, c.t), (0.5, 0.5));
//! assert_eq!(c.point_a, [1.0, 0.0, 0.0]);
//! assert_eq!(c.distance(), 1.0);
//! ```
//!
//! ## Accuracy
//!
//! Tolerances are scale-free and the method avoids forming the ill-conditioned normal
//! equations, so the reported distance is within `8·f32::EPSILON·S` of the exact distance
//! of the given `f32` end points, `S` being the largest coordinate magnitude, for
//! near-parallel, collinear, tiny, long and far-from-origin pairs alike. See
//! `docs/algorithm.md` and `docs/accuracy.md`.
//!
//! ## Bulk queries
//!
//! Built on the same kernel, so every value is the reference's bit for bit:
//! [`closest_points_one_to_many`] (one segment or ray against a batch), [`capsules_touch`]
//! / [`capsules_touch_indices`] (pairwise capsule overlap as a [`PairMask`] or an index
//! list), [`dist2_matrix`] and [`pairs_within`] (every A against every B, tiled: a dense
//! matrix or the sparse list of [`Hit`]s within a radius) and [`self_pairs_within`] (all
//! pairs `i < j` of one batch within a radius, optionally skipping pieces that share an end
//! point). With the default `rayon` feature each has a `par_` form returning identical
//! results; small inputs stay on the calling thread ([`PAR_MIN_PAIRS`],
//! [`PAR_MIN_PAIR_TESTS`]).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod batch;
mod kernel;
#[cfg(feature = "rayon")]
mod par;
mod query;
pub mod reference;
mod segment;
mod simd;

pub use batch::{BatchError, ClosestBatch, LANES, Outputs, Segments, SegmentsView, padded_len};
pub use kernel::{
    closest_points, closest_points_into, closest_points_with_into, try_closest_points,
    try_closest_points_with_into,
};
#[cfg(feature = "rayon")]
pub use par::PAR_MIN_PAIR_TESTS;
#[cfg(feature = "rayon")]
pub use par::{
    PAR_CHUNK_PAIRS, PAR_MIN_PAIRS, par_closest_points, par_closest_points_with_into,
    try_par_closest_points_with_into,
};
pub use query::{
    Hit, PairMask, Radii, SharedEndpoints, TILE_A, TILE_B, capsules_touch, capsules_touch_indices,
    closest_points_one_to_many, closest_points_one_to_many_with_into, dist2_matrix,
    dist2_matrix_into, pairs_within, self_pairs_within, try_capsules_touch_indices_into,
    try_capsules_touch_into, try_pairs_within_into, try_self_pairs_within_into,
};
#[cfg(feature = "rayon")]
pub use query::{
    par_capsules_touch, par_capsules_touch_indices, par_closest_points_one_to_many_with_into,
    par_dist2_matrix_into, par_pairs_within, par_self_pairs_within,
    try_par_capsules_touch_indices_into, try_par_capsules_touch_into, try_par_pairs_within_into,
    try_par_self_pairs_within_into,
};
pub use segment::{Closest, Extent, Flags, Options, Segment, Tolerance};
pub use simd::{SIMD_LEVEL, cpu_simd_level, simd_upgrade_hint};
