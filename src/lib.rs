//! # segbatch
//!
//! Closest points and distances between 3D segments, rays and lines: one pair at a time with
//! the scalar [`reference`](mod@reference), or millions of pairs per second with the batched kernel.
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
//! Moving objects (closest point of approach in time, first contact of moving spheres) and 2D
//! segment intersection are in [`motion`]; `docs/motion.md` says which query to use when.
//!
//! ## Accuracy
//!
//! Tolerances are scale-free and the method avoids forming the ill-conditioned normal
//! equations, so the reported distance is within `8·f32::EPSILON·S` of the exact distance
//! of the given `f32` end points, `S` being the largest coordinate magnitude, for
//! near-parallel, collinear, tiny, long and far-from-origin pairs alike. See
//! `docs/algorithm.md` and `docs/accuracy.md`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod batch;
mod kernel;
pub mod motion;
#[cfg(feature = "rayon")]
mod par;
pub mod reference;
mod segment;
mod simd;

pub use batch::{BatchError, ClosestBatch, LANES, Outputs, Segments, SegmentsView, padded_len};
pub use kernel::{
    closest_points, closest_points_into, closest_points_with_into, try_closest_points,
    try_closest_points_with_into,
};
#[cfg(feature = "rayon")]
pub use par::{
    PAR_CHUNK_PAIRS, PAR_MIN_PAIRS, par_closest_points, par_closest_points_with_into,
    try_par_closest_points_with_into,
};
pub use segment::{Closest, Extent, Flags, Options, Segment, Tolerance};
pub use simd::{SIMD_LEVEL, cpu_simd_level, simd_upgrade_hint};
