//! The element type of the 2D batches and crossing sets: `f32` or `f64`.
//!
//! # One element type parameter, not a second table
//!
//! The 2D batches and the crossing sets take their element type as a parameter,
//! [`Segments2<E>`](Segments2) with `E` = `f32` (the default) or `f64` ([`Element`]), as
//! [`Soa`] already does for its columns: `crossing_pairs(&streets)` runs in the precision
//! of `streets`, and the API table keeps one row a question. Each precision keeps its own
//! record ([`Segment2`](super::types::Segment2),
//! [`Segment2_64`]), named by the element type.
//!
//! What differs between the precisions is the narrow phase of a crossing set: `f32` pairs
//! run the 8-lane kernel over gathered index pairs, `f64` pairs the scalar reference
//! (`kernel.rs`, one generic body), whose meeting test is already the exact predicate and
//! whose cost at a crossing set's candidate counts is small next to the grid's.

use super::forms::{Intersections2, intersect2_indexed_into};
use super::kernel::{intersect2_pair, meet_exact};
use super::types::sealed::Plane;
use super::types::{Crossing, Segment2_64};
use crate::batch::{Soa, SoaView};

/// A batch of 2D segments as four columns (`x0, y0, x1, y1`) of `E` (`f32` unless said
/// otherwise, or `f64`), each padded with zeros to a multiple of [`LANES`](crate::LANES):
/// 16 bytes an `f32` segment, where a 3D batch with `z = 0` would read 24. Built like
/// [`Segments`](crate::Segments), with the same constructors; `Segments2<f64>` holds
/// [`Segment2_64`] records. `Segments2::new()` is an `f32`
/// batch (only the `f32` batch has `new`); an empty `f64` one is
/// `Segments2::<f64>::default()` or `with_capacity(n)`.
///
/// ```
/// use segbatch::planar::{Segment2, Segments2};
/// let mut b = Segments2::new();
/// b.push(Segment2::new([0.0, 0.0], [1.0, 0.0]));
/// b.push(Segment2::new([2.0, 2.0], [3.0, 3.0]));
/// assert_eq!(b.len(), 2);
/// assert_eq!(b.get(1).map(|s| s.p1), Some([3.0, 3.0]));
/// assert_eq!(b.columns()[1], &[0.0, 2.0]);
///
/// use segbatch::planar::Segment2_64;
/// let utm: Segments2<f64> =
///     Segments2::from(&[Segment2_64::new([480_000.25, 4_990_000.5], [480_100.0, 4_990_000.5])]);
/// assert_eq!(utm.columns()[0], &[480_000.25]);
/// let mut empty = Segments2::<f64>::default();
/// empty.extend_from_slice(&[Segment2_64::new([0.0, 0.0], [1.0, 1.0])]);
/// assert_eq!(empty.len(), 1);
/// ```
pub type Segments2<E = f32> = Soa<<E as Plane>::Segment, 4, E>;

/// A borrowed range of a [`Segments2`] batch (or of four caller-owned columns).
pub type Segments2View<'a, E = f32> = SoaView<'a, <E as Plane>::Segment, 4, E>;

/// How a precision decides a crossing set's candidates (sealed: public only so that
/// [`Element`] can name it, in a module no user can name).
pub(crate) mod sealed {
    use super::Segments2;
    use crate::planar::types::Crossing;

    /// The narrow phase of a crossing set in one precision.
    pub trait Decide: super::Plane + Send + Sync {
        /// Buffers reused from one batch of candidates to the next.
        type Scratch: Default + Send;
        /// Decides the index pairs `candidates` (positions in `sorted`) and calls `hit(k,
        /// kind, s)` for each candidate `k` that meets, in order: the values of the
        /// reference for `(sorted[p], sorted[q])`.
        fn decide(
            sorted: &Segments2<Self>,
            candidates: &[(u32, u32)],
            scratch: &mut Self::Scratch,
            hit: impl FnMut(usize, Crossing, Self),
        );
    }
}

/// The element type of a 2D batch: `f32` (the default everywhere) or `f64` (sealed: only
/// these two), with the record a batch of it stores (`Segment2` or `Segment2_64`).
pub trait Element: sealed::Decide {}

impl Element for f32 {}

impl Element for f64 {}

impl sealed::Decide for f32 {
    type Scratch = Intersections2;
    fn decide(
        sorted: &Segments2<f32>,
        candidates: &[(u32, u32)],
        scratch: &mut Intersections2,
        mut hit: impl FnMut(usize, Crossing, f32),
    ) {
        intersect2_indexed_into(sorted, sorted, candidates, scratch)
            .expect("the grid names segments of the set");
        let (kind, s) = (scratch.kind(), scratch.s());
        for (k, (&kind, &s)) in kind.iter().zip(s).enumerate() {
            if kind != Crossing::Disjoint {
                hit(k, kind, s);
            }
        }
    }
}

impl sealed::Decide for f64 {
    type Scratch = ();
    fn decide(
        sorted: &Segments2<f64>,
        candidates: &[(u32, u32)],
        (): &mut (),
        mut hit: impl FnMut(usize, Crossing, f64),
    ) {
        let c = sorted.columns();
        let at = |p: u32| {
            let p = p as usize;
            [[c[0][p], c[1][p]], [c[2][p], c[3][p]]]
        };
        for (k, &(p, q)) in candidates.iter().enumerate() {
            let ([a0, a1], [b0, b1]) = (at(p), at(q));
            // Boxes apart (exact comparisons), then the exact test (Shewchuk's predicate
            // filters the clear cases fast): the reference runs for the pairs that meet
            // only, and its answer for the others is `Disjoint` by the same exact test.
            let apart = |k: usize| {
                a0[k].max(a1[k]) < b0[k].min(b1[k]) || b0[k].max(b1[k]) < a0[k].min(a1[k])
            };
            if !(apart(0) || apart(1)) && meet_exact(a0, a1, b0, b1).0 {
                let x =
                    intersect2_pair::<f64>(&Segment2_64::new(a0, a1), &Segment2_64::new(b0, b1));
                hit(k, x.kind, x.s);
            }
        }
    }
}
