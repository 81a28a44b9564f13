//! The hits of the radius queries and the pieces the brute-force forms share: the tile
//! sizes, the radius check, the bounding spheres of the prefilter and the lane-to-hit
//! conversion.

use crate::batch::{LANES, SegmentsView};
use crate::kernel::Lanes;
use crate::prune::{SphereColumns, sphere};
use crate::real::Real;
use crate::segment::{Extent, Options, Segment};
use wide::f32x8;

/// Rows of A per tile of the `N × M` queries (and per parallel task along A).
pub const TILE_A: usize = 64;
/// Columns of B per tile: 512 segments are 12 KiB of coordinates plus 8 KiB of bounding
/// spheres, resident in L1 while every row of the tile runs against them.
pub const TILE_B: usize = 512;

const _: () = assert!(TILE_B.is_multiple_of(LANES));

/// A pair within the radius of a [`pairs_within`](super::pairs_within) or
/// [`self_pairs_within`](super::self_pairs_within) query: `a[i]`
/// against `b[j]` (or `set[i]` against `set[j]`, `i < j`), in the precision of the query
/// (`E`: `f32`, or `f64` for a query over [`Segments64`](crate::Segments64), [`Hit64`]).
///
/// The indices are `u32`, as in [`PairHit`], the index pairs `(u32, u32)` of
/// [`closest_points_indexed`](crate::pairs::closest_points_indexed) and the ids of
/// [`scenes::Capsules`](crate::scenes::Capsules): the set queries take at most `u32::MAX`
/// objects a set ([`Error::TooManyObjects`](crate::batch::Error::TooManyObjects) above).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Hit<E = f32> {
    /// Index in A (or in the set).
    pub i: u32,
    /// Index in B (or in the set, `j > i`).
    pub j: u32,
    /// Squared distance of the closest points.
    pub dist2: E,
    /// Parameter of the closest point along `a[i]`.
    pub s: E,
    /// Parameter of the closest point along `b[j]`.
    pub t: E,
}

/// The hits of the `f64` radius queries (a name kept for the precision most callers spell
/// out, as [`Closest64`](crate::Closest64) is).
pub type Hit64 = Hit<f64>;

impl<E: Real> Hit<E> {
    /// The distance `sqrt(dist2)`.
    #[inline]
    #[must_use]
    pub fn distance(&self) -> E {
        self.dist2.sqrt()
    }
}

/// A hit of the streaming set queries, compact: `a[i]` (or `set[i]`) within the radius of
/// `b[j]` (or `set[j]`, `i < j`), at squared distance `dist2` (12 bytes in `f32`, 16 in
/// `f64`, [`PairHit64`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairHit<E = f32> {
    /// Index in A (or in the set).
    pub i: u32,
    /// Index in B (or in the set, `j > i`).
    pub j: u32,
    /// Squared distance of the closest points, the kernel's (as [`Hit::dist2`]).
    pub dist2: E,
}

/// The streamed hits of the `f64` radius queries.
pub type PairHit64 = PairHit<f64>;

impl<E> From<Hit<E>> for PairHit<E> {
    #[inline]
    fn from(h: Hit<E>) -> PairHit<E> {
        PairHit {
            i: h.i,
            j: h.j,
            dist2: h.dist2,
        }
    }
}

/// Bounding spheres of a batch for the prefilter, in the batch's order (`None` when the
/// options make the prefilter inapplicable: rays and lines have no bounding sphere).
pub(crate) type Spheres = SphereColumns<3>;

/// The spheres of `v` for the brute-force prefilter, or `None` for rays and lines.
pub(crate) fn spheres(v: SegmentsView<'_>, options: &Options) -> Option<Spheres> {
    if options.extent_a != Extent::Segment || options.extent_b != Extent::Segment {
        return None;
    }
    Some(Spheres::of(v.len(), false, |i| {
        let seg = v.at(i);
        sphere(seg.p0, seg.p1)
    }))
}

/// Lanes whose squared distance is within `r2`, as bits.
#[inline(always)]
pub(crate) fn within_bits(lanes: &Lanes, r2: f32x8) -> u32 {
    lanes.dist2.simd_le(r2).to_bitmask()
}

/// Appends the hits of one group to `out` (`bits` selects the lanes).
#[inline(always)]
pub(crate) fn push_hits(out: &mut Vec<Hit>, i: usize, j: usize, mut bits: u32, lanes: &Lanes) {
    let d = lanes.dist2.to_array();
    let s = lanes.s.to_array();
    let t = lanes.t.to_array();
    while bits != 0 {
        let k = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        // The brute-force queries check that their sets have at most `u32::MAX` objects.
        out.push(Hit {
            i: i as u32,
            j: (j + k) as u32,
            dist2: d[k],
            s: s[k],
            t: t[k],
        });
    }
}

/// The closest points of `a` at `s` and `b` at `t`, in `f64`.
fn points_wide(a: &Segment, b: &Segment, s: f32, t: f32) -> ([f64; 3], [f64; 3]) {
    let at = |x: &Segment, u: f32| -> [f64; 3] {
        core::array::from_fn(|k| {
            let p0 = f64::from(x.p0[k]);
            f64::from(u).mul_add(f64::from(x.p1[k]) - p0, p0)
        })
    };
    (at(a, s), at(b, t))
}

/// `|a(s) - b(t)|²` in `f64`, for a pair whose `f32` squared distance left `f32`'s range.
fn dist2_wide(a: &Segment, b: &Segment, s: f32, t: f32) -> f64 {
    let (c, d) = points_wide(a, b, s, t);
    (0..3).map(|k| (c[k] - d[k]) * (c[k] - d[k])).sum()
}

/// The `f64` decision of [`within_radius`](super::within_radius) for a pair whose squared distance left `f32`'s
/// range: `|a(s) - b(t)|² <= radius²`, all in `f64`.
#[cold]
pub(crate) fn within_wide(a: &Segment, b: &Segment, s: f32, t: f32, radius: f32) -> bool {
    let r = f64::from(radius);
    dist2_wide(a, b, s, t) <= r * r
}

/// The distance `|a(s) - b(t)|` in `f64` ([`pair_distance`](super::pair_distance) of a
/// pair whose squared distance left `f32`'s range).
#[cold]
pub(crate) fn distance_wide(a: &Segment, b: &Segment, s: f32, t: f32) -> f64 {
    dist2_wide(a, b, s, t).sqrt()
}

/// Whether [`self_pairs_within`](super::self_pairs_within) reports pairs that share an end point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SharedEndpoints {
    /// Report them like any other pair.
    #[default]
    Keep,
    /// Skip pairs where an end point of one equals an end point of the other (all three
    /// coordinates equal with `==`): consecutive pieces of one path, edges meeting at a
    /// vertex. Such pairs are at distance 0 and would otherwise always be reported.
    Skip,
}
