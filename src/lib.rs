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
//! ## Batches
//!
//! The fast path takes structure-of-arrays batches ([`Segments`]: six `f32` columns padded to
//! a multiple of [`LANES`]) and computes eight pairs per SIMD instruction with
//! `wide::f32x8`; results come back as columns ([`ClosestBatch`]). The kernel is a
//! branchless twin of the reference and agrees with it bit for bit on x86_64.
//!
//! ```
//! use segbatch::{closest_points, Segment, Segments};
//! let a = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]); 100]);
//! let b = Segments::from(&[Segment::new([1.0, 1.0, 0.0], [1.0, 3.0, 0.0]); 100]);
//! let out = closest_points(&a, &b);
//! assert!(out.dist2().iter().all(|&d2| d2 == 1.0));
//! assert_eq!(out.s().len(), 100);
//! ```
//!
//! [`closest_points_into`] reuses its output buffers; [`closest_points_with_into`] takes
//! [`Options`] (extents, tolerance) and an [`Outputs`] selection (distances only, plus
//! parameters, plus points); the `par_` forms (feature `rayon`) split huge batches across
//! cores with bitwise-identical results. Every entry point that can fail on mismatched input
//! has a `try_` form returning [`BatchError`].
//!
//! Moving objects (closest point of approach in time, first contact of moving spheres) and 2D
//! segment intersection are in [`motion`]; `docs/motion.md` says which query to use when.
//!
//! ## Accuracy
//!
//! Tolerances are scale-free and the method avoids forming the ill-conditioned normal
//! equations, so for segment pairs the reported distance is within `8·f32::EPSILON·S` of the
//! exact distance of the given `f32` end points, `S` being the largest coordinate magnitude,
//! for near-parallel, collinear, tiny, long and far-from-origin pairs alike, at any scale from
//! about 1e-14 to 1e18 (measured worst case 3.2). With a ray or a line on a side the same
//! bound holds for the sides as represented (directions rounded once to f32), with `S` also
//! covering the closest points, which may lie far beyond the end points. See
//! `docs/algorithm.md` and `docs/accuracy.md`.
//!
//! ## Features
//!
//! - `rayon` (default): the parallel driver (`par_closest_points` and friends).
//!
//! The `segbatch` command-line tool is a separate package (`segbatch-cli`) of the same
//! workspace, so none of its dependencies reach library users.
//!
//! ## SIMD build
//!
//! `wide` chooses instructions at compile time. A default x86_64 build is SSE2 (each `f32x8`
//! is two 128-bit halves and multiply-adds are unfused, 2-3x slower); build with
//! `RUSTFLAGS="-C target-cpu=x86-64-v3"` (AVX2 + FMA) or `native` for full speed.
//! [`SIMD_LEVEL`] tells what a build uses and [`simd_upgrade`] whether the CPU could do
//! more. On every build the kernel matches the reference of that build bit for bit (the
//! reference fuses exactly the multiply-adds the kernel fuses); between an FMA and a non-FMA
//! build results differ by rounding only, within the accuracy bound.
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
mod columns;
mod driver;
mod kernel;
mod lanes;
pub mod motion;
mod query;
pub mod reference;
mod seg2d;
mod segment;
mod simd;

pub use batch::{Error, LANES, Segments, SegmentsView, padded_len};
pub use driver::{PAR_CHUNK_PAIRS, PAR_MIN_PAIR_TESTS, PAR_MIN_PAIRS};
pub use query::{
    ClosestBatch, Hit, Outputs, PairMask, Radii, SharedEndpoints, TILE_A, TILE_B, capsules_touch,
    capsules_touch_into, closest_points, closest_points_into, closest_points_one_to_many,
    closest_points_one_to_many_into, dist2_matrix, dist2_matrix_into, pairs_within,
    pairs_within_into, self_pairs_within, self_pairs_within_into,
};
#[cfg(feature = "rayon")]
pub use query::{
    par_capsules_touch, par_capsules_touch_into, par_closest_points, par_closest_points_into,
    par_closest_points_one_to_many, par_closest_points_one_to_many_into, par_dist2_matrix,
    par_dist2_matrix_into, par_pairs_within, par_pairs_within_into, par_self_pairs_within,
    par_self_pairs_within_into,
};
pub use seg2d::{
    Crossing, Intersection2, Intersections2, Segment2, Segments2, Segments2View, intersect2,
    intersect2_into,
};
#[cfg(feature = "rayon")]
pub use seg2d::{par_intersect2, par_intersect2_into};
pub use batch::{Record, Soa, SoaView};
pub use segment::{Closest, Extent, Flags, Options, ParseExtentError, Segment, Tolerance};
pub use simd::{SIMD_LEVEL, cpu_simd_level, simd_upgrade};

/// The README's examples, compiled and run as doctests so they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
