//! # segbatch
//!
//! Closest points and distances between 3D segments, rays and lines: one pair at a time with
//! the scalar [`reference`](mod@reference), or millions of pairs per second with the batched
//! kernel.
//!
//! For each pair of sides A = (A0, A1) and B = (B0, B1) it finds the closest points
//! `C = A0 + s·(A1 - A0)` on A and `D = B0 + t·(B1 - B0)` on B, the squared distance and
//! [`Flags`] saying whether a side was degenerate, the pair parallel or an input non-finite.
//! Each side is a segment, a ray or an infinite line ([`Extent`]).
//!
//! ```
//! use segbatch::sets::{SharedEndpoints, self_pairs_within};
//! use segbatch::{Segment, Segments, closest_points, reference};
//! // Two segments crossing at right angles, one unit apart: the scalar reference.
//! let a = Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
//! let b = Segment::new([1.0, -1.0, 1.0], [1.0, 1.0, 1.0]);
//! let c = reference::closest_points(&a, &b);
//! assert_eq!((c.s, c.t, c.point_a, c.distance()), (0.5, 0.5, [1.0, 0.0, 0.0], 1.0));
//! // A batch of pairs through the SIMD kernel: the reference's bits, pair by pair.
//! let out = closest_points(&Segments::from(&[a; 100]), &Segments::from(&[b; 100]));
//! assert_eq!(out.get(99), Some(c));
//! // A set: the pairs of its members within a radius of each other.
//! let set = Segments::from(&[a, b, Segment::new([9.0, 0.0, 0.0], [9.0, 1.0, 0.0])]);
//! let near = self_pairs_within(&set, 1.0, SharedEndpoints::Keep);
//! assert_eq!(near.iter().map(|h| (h.i, h.j)).collect::<Vec<_>>(), [(0, 1)]);
//! ```
//!
//! ## Modules, by question
//!
//! | module | question |
//! |---|---|
//! | [`pairs`] | given pairs (`a[i]` with `b[i]`, one against many, index pairs): closest points, do capsules touch, their contacts |
//! | [`sets`] | whole sets: the pairs within a radius (collected or streamed), distance matrices, the static [`SegmentIndex`] and the first hits of thick rays |
//! | [`scenes`] | a persistent set of moving capsules, asked frame after frame which touch |
//! | [`motion`] | moving objects: closest approach in time, first contact, swept capsules |
//! | [`planar`] | 2D segments: exact crossings, closest points, the crossing pairs of a set |
//! | [`reference`](mod@reference) | the scalar definition of every query, one pair at a time |
//! | [`simd`] | what this build and this CPU can run |
//!
//! The pages of [`pairs`], [`sets`], [`planar`] and [`motion`] open with the table of their
//! queries and forms, [`scenes`] with what a frame reports. The root holds the types every
//! module shares (segments, batches, options, results, the error) and [`closest_points`],
//! the call most users start from.
//!
//! ## The API: one rule for every query
//!
//! Every batched query `q` has the same four forms:
//!
//! - `q(inputs…)`: the convenience call. Default options (segments against segments, the
//!   scale-free tolerance, every output column); allocates its result; **panics** on inputs
//!   that do not fit together (batches of different lengths, an invalid radius), as
//!   documented under `# Panics` on each.
//! - `q_into(inputs…, options…, &mut out) -> Result<(), Error>`: the general call. Takes
//!   the options the query has ([`Options`], [`Outputs`], radii, a time window), reuses
//!   `out`'s buffers (no allocation once it has held a batch this large) and returns an
//!   [`Error`] instead of panicking. Never panics on data.
//! - `par_q`, `par_q_into` (feature `rayon`, on by default): the same on all cores; small
//!   inputs stay on the calling thread ([`PAR_MIN_PAIRS`](pairs::PAR_MIN_PAIRS),
//!   [`PAR_MIN_PAIR_TESTS`](pairs::PAR_MIN_PAIR_TESTS)).
//!
//! and its scalar reference, `reference::q`, one pair at a time, defines what it computes.
//! The pair queries ([`pairs`]) run in the precision of their inputs ([`Element`]:
//! `closest_points(&a, &b)` on two [`Segments64`] is an `f64` query), and so do the motion
//! queries ([`motion::MotionElement`]) and the radius queries of [`sets`]
//! ([`sets::SetElement`]), and the index ([`SegmentIndex`] over either);
//! the streaming forms (`for_each_…`) and the index's methods take their sink or options
//! directly and return a `Result`. Every batch type's `get(i)` returns an `Option`, as
//! std's slices do.
//!
//! ## Contracts
//!
//! - **The reference's bits.** Each kernel is a branchless twin of its reference, with the
//!   same operations in the same order, so every batched query returns, pair by pair, the
//!   bits its reference returns on the same build; the parallel forms return the
//!   sequential forms' bits on any thread count.
//! - **Sets are brute force.** The set queries, the index and the scenes prune with
//!   conservative bounds (a grid of bounding spheres, a tree of boxes) and let the kernel
//!   decide each candidate, so they report exactly the pairs and values of brute force over
//!   the reference, in `O((N + M) log(N + M) + K)` for `K` reported pairs instead of
//!   `O(N·M)`. They answer for any coordinates and radius: a pair whose squared distance
//!   under- or overflows `f32` is decided in `f64` ([`within_radius`](sets::within_radius)
//!   states the rule), and members with a NaN or infinite coordinate are left out
//!   ([`count_non_finite`](sets::count_non_finite) counts them).
//! - **Bounded memory.** The streaming forms hand their hits to a callback in blocks of at
//!   most [`MAX_BLOCK_HITS`](sets::MAX_BLOCK_HITS), whatever the set's layout, and stop
//!   within about a block a thread when it asks ([`SinkFlow`](sets::SinkFlow)); the
//!   collected forms grow their output with `try_reserve` and return
//!   [`Error::OutOfMemory`] when it cannot grow.
//! - **Non-finite input** touches only its own pair: NaN outputs and a flag, never a panic
//!   and never another lane.
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
//! - `rayon` (default): the parallel forms (`par_…`) of every query.
//! - `glam033`, `glam034`: conversions between segments, batches and glam 0.33 or 0.34
//!   (`Vec3`, `Vec3A`, `Vec2`), one feature per glam version (`glam` is `glam033`, the glam
//!   of parry3d 0.31 and rapier); see [`pairs::rows`] for reading results as any point type.
//! - `mint`: the same for `mint::Point3<f32>` and `mint::Point2<f32>`.
//! - `same-bits`: the same bits on every CPU (no fused multiply-add, 8 lanes), for lockstep
//!   simulations.
//!
//! The `segbatch` command-line tool is a separate package (`segbatch-cli`) of the same
//! workspace, so none of its dependencies reach library users.
//!
//! ## SIMD build
//!
//! `wide` chooses instructions at compile time. A default x86_64 build is SSE2 (each `f32x8`
//! is two 128-bit halves and multiply-adds are unfused, 2-3x slower); build with
//! `RUSTFLAGS="-C target-cpu=x86-64-v3"` (AVX2 + FMA) or `native` for full speed.
//! [`SIMD_LEVEL`](simd::SIMD_LEVEL) tells what a build uses and
//! [`simd_upgrade`](simd::simd_upgrade) whether the CPU could do more. On every build the
//! kernel matches the reference of that build bit for bit (the reference fuses exactly the
//! multiply-adds the kernel fuses); between an FMA and a non-FMA build results differ by
//! rounding only, within the accuracy bound.
//!
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod batch;
mod columns;
mod driver;
mod forms;
mod interop;
mod kernel;
mod lanes;
pub mod motion;
pub mod pairs;
pub mod planar;
mod prune;
mod real;
pub mod reference;
mod scalar;
pub mod scenes;
mod segment;
pub mod sets;
pub mod simd;
#[cfg(test)]
mod test_mix;

pub use batch::{Error, Record, Segments, Segments64, Segments64View, SegmentsView, Soa, SoaView};
pub use columns::LANES;
pub use pairs::{ClosestBatch, Element, Outputs, closest_points};
pub use segment::{Closest, Closest64, Extent, Flags, Options, Segment, Segment64, Tolerance};
pub use sets::SegmentIndex;

/// The README's examples, compiled and run as doctests so they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// The examples of the library's tour (docs/library.md), run as doctests too.
#[cfg(doctest)]
#[doc = include_str!("../docs/library.md")]
struct LibraryDoctests;
