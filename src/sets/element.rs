//! The element type of the set queries, [`SetElement`], the sealed trait of what they run
//! in each precision, and the two structures its methods pass (the narrow phase's
//! [`Near`] and the brute-force [`Tiles`]). Declared here, below the files that use and
//! implement them (`near.rs`, `many.rs`, `within.rs`), so that those import one way.

use crate::SegmentsView;
use crate::driver::Rows;
use crate::segment::Options;
use crate::sets::radius::PairRadius;
use sealed::Sets;

/// The element type of the set queries: `f32` or `f64`, the two
/// [`Element`](crate::Element)s (sealed: only these two). Every radius query of this
/// module ([`pairs_within`](crate::sets::pairs_within), [`self_pairs_within`](crate::sets::self_pairs_within), their
/// streamed and row forms, [`within_radius`](crate::sets::within_radius),
/// [`pair_distance`](crate::sets::pair_distance)) is one generic body over
/// it, and runs in the precision of its inputs: `pairs_within(&a, &b, r)` is an `f64` query
/// when `a` and `b` are [`Segments64`](crate::Segments64).
///
/// What differs between the precisions lives in the sealed supertrait: how a pair's
/// squared distance is decided where it leaves the element's range, how the grid (which
/// works in `f32`) is built over the sets (`f64`: in a local frame, each sphere grown by
/// the `f64` kernel's error), and which kernel decides the candidates. It is a trait of its
/// own, not part of [`Element`](crate::Element), because the sets family sits above
/// `pairs` (where `Element` is defined) and builds on it: a sets-level supertrait of
/// `Element` would make `pairs` import `sets`, a cycle.
pub trait SetElement: crate::Element + sealed::Sets {}

impl SetElement for f32 {}
impl SetElement for f64 {}

/// What the set queries run in each precision (sealed: public only so that [`SetElement`]
/// can name it, in a module no user can name).
pub(crate) mod sealed {
    use crate::driver::Row;
    use crate::prune::{Grid, Kept};
    use crate::segment::Closest;
    use crate::sets::bvh8::Member;
    use crate::sets::element::{Near, Tiles};
    use crate::sets::hits::Hit;
    use crate::sets::radius::PairRadius;
    use crate::{Options, SegmentsView};
    use core::ops::Range;

    /// The grid and its rows, the grid's radius and what the kernel reads besides
    /// ([`Sets::grid`]).
    pub(crate) type Gridded<E> = (Grid<3>, Vec<Row>, f32, <E as Sets>::Exact);

    /// The radius decisions and the kernels of the set queries in one precision.
    // Unnameable outside the crate: its crate-private types (the grid, the narrow phase,
    // the tiles) are no part of the public API.
    #[allow(private_interfaces, private_bounds)]
    pub trait Sets: crate::Element<Segment: Member<Real = Self>> {
        /// What the narrow phase's kernel reads besides the grid's rows
        /// ([`Near::exact`](Near)).
        type Exact: Send + Sync;
        /// The narrow phase's buffers, one a thread.
        type Scratch: Default + Send;
        /// What the brute-force tiles compute once a query.
        type TilePrep: Sync;

        /// [`within_radius`](crate::sets::within_radius) in this precision.
        fn within_radius(
            a: &Self::Segment,
            b: &Self::Segment,
            closest: &Closest<Self>,
            radius: Self,
        ) -> bool;
        /// [`pair_distance`](crate::sets::pair_distance) in this precision.
        fn pair_distance(a: &Self::Segment, b: &Self::Segment, closest: &Closest<Self>) -> Self;
        /// The grid over the objects `object(0..n)` for pairs within `uniform` (or, with
        /// per-object radii `own`, within `own(i) + own(j)`), its rows, its radius and what
        /// the kernel reads besides; `None` when the grid cannot take the query.
        fn grid(
            n: usize,
            object: &(dyn Fn(usize) -> Self::Segment + Sync),
            own: Option<&(dyn Fn(usize) -> Self + Sync)>,
            uniform: Self,
            parallel: bool,
        ) -> Option<Gridded<Self>>;
        /// The kernel over the candidate positions `candidates`, the hits kept in `out`.
        fn decide(
            near: &Near<Self>,
            ids: &[u32],
            candidates: &[(u32, u32)],
            scratch: &mut Self::Scratch,
            out: &mut Kept<Hit<Self>>,
        );
        /// What the tiles of `a` against `b` (or of `a` with itself) compute once.
        fn tile_prep(
            a: SegmentsView<'_, Self>,
            b: Option<SegmentsView<'_, Self>>,
            radius: PairRadius<'_, Self>,
            options: &Options,
        ) -> Self::TilePrep;
        /// Appends the hits of rows `rows` × columns `cols` of the tiles to `out`.
        fn rect(
            tiles: &Tiles<'_, Self>,
            rows: Range<usize>,
            cols: Range<usize>,
            out: &mut Vec<Hit<Self>>,
        );
    }
}

/// The narrow phase of the radius queries: `a[i]` against `b[j]` by the kernel of the
/// precision over gathered index pairs, `dist2 <= r²` with `r` the query's radius or
/// `rI + rJ` (the range rule of [`within_radius`](crate::sets::within_radius) where the
/// square leaves the range).
pub(crate) struct Near<E: Sets> {
    /// Both sets' segments in the grid's order (by position), as the grid's `f32` rows
    /// (`f64`: in the local frame): the refinement reads them, and in `f32` the kernel
    /// gathers its lanes from them, near where the grid read their spheres.
    pub(crate) rows: Rows,
    /// What the precision's kernel reads besides (`f64`: the segments unmoved, by
    /// position, and the per-object radii).
    pub(crate) exact: E::Exact,
    /// `None` within one set; `Some(na)` when ids `>= na` are B's.
    pub(crate) split: Option<u32>,
    pub(crate) options: Options,
    /// The radius of every pair (the decision), `0` with per-object radii.
    pub(crate) uniform: E,
    /// The grid's radius (`f64`: in the local frame, rounded up), `0` with per-object
    /// radii (which are in the objects' spheres).
    pub(crate) radius: f32,
    /// Per-object radii: a pair's radius is `rP + rQ`.
    pub(crate) each: bool,
    pub(crate) skip_shared: bool,
}

/// The brute-force radius queries over tiles (rays and lines, an infinite radius, a side
/// of at most a few objects): rows of `a` against columns of `b` (or of `a` itself, only
/// pairs `j > i`), written once; the tile of rows against columns is the precision's own
/// ([`Sets::rect`]: `f32` broadcasts a row to the
/// lanes against B eight at a time behind the bounding-sphere prefilter, `f64` runs the
/// one-to-many kernel over a tile of B).
pub(crate) struct Tiles<'v, E: Sets> {
    pub(crate) a: SegmentsView<'v, E>,
    pub(crate) b: SegmentsView<'v, E>,
    pub(crate) options: &'v Options,
    /// The radius of each pair.
    pub(crate) radius: PairRadius<'v, E>,
    /// Only pairs `j > i` (a set against itself).
    pub(crate) upper: bool,
    /// Drop pairs that share an end point.
    pub(crate) skip_shared: bool,
    /// What the precision's tile computes once a query (`f32`: the prefilter's spheres).
    pub(crate) prep: E::TilePrep,
}
