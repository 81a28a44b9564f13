//! Bulk queries built on the 8-lane kernel.
//!
//! | query | sequential | parallel (`rayon` feature) |
//! |-------|------------|----------------------------|
//! | one segment (or ray, line) against a batch | [`closest_points_one_to_many`], [`closest_points_one_to_many_with_into`] | [`par_closest_points_one_to_many_with_into`] |
//! | pairwise capsule overlap, as a bit mask or an index list | [`capsules_touch`], [`capsules_touch_indices`] (+ `try_…_into`) | [`par_capsules_touch`], [`par_capsules_touch_indices`] (+ `try_…_into`) |
//! | every A against every B: dense matrix of squared distances | [`dist2_matrix`], [`dist2_matrix_into`] | [`par_dist2_matrix_into`] |
//! | every A against every B: sparse list of pairs within a radius | [`pairs_within`], [`try_pairs_within_into`] | [`par_pairs_within`], [`try_par_pairs_within_into`] |
//! | all pairs `i < j` of one batch within a radius | [`self_pairs_within`], [`try_self_pairs_within_into`] | [`par_self_pairs_within`], [`try_par_self_pairs_within_into`] |
//!
//! Every query runs the same kernel as [`closest_points`](crate::closest_points), lane by
//! lane, so each reported value is bit for bit what
//! [`reference::closest_points_with`](crate::reference::closest_points_with) gives for that
//! pair, and the parallel forms return exactly what the sequential ones do. A radius test is
//! `dist2 <= radius·radius` (both in `f32`); a negative or NaN radius is an error
//! ([`Error::InvalidRadius`]) in the `try_` forms and a panic in the others. `+∞`
//! accepts every pair with finite coordinates; pairs with a non-finite coordinate (NaN
//! distance) are never within any radius.
//!
//! # Tiling (many-vs-many, within one set)
//!
//! The `N × M` queries work on tiles of [`TILE_A`] rows of A by [`TILE_B`] columns of B. One
//! A segment is broadcast to all eight lanes and reused against the whole
//! B block, which stays in L1 (its six columns and its bounding spheres take 20 KiB); the
//! parallel forms hand out rectangles of tiles to rayon. The radius queries take these tiles
//! only for rays, lines and an infinite radius: for segments the grid of [`crate::prune`]
//! names the candidate pairs instead ([`sets`]).
//!
//! # Bounding-sphere prefilter (radius queries, segment against segment)
//!
//! Before the full kernel, each group of eight pairs is tested with the bounding spheres of
//! the segments (centre = midpoint, radius = half length): when
//! `|mA - mB| > hA + hB + R` in every lane, no pair of the group can be within `R` and the
//! group is skipped. The test is made conservative against rounding: each sphere radius is
//! inflated by `4ε` relatively and by `256ε·S` absolutely (`S` = largest coordinate magnitude
//! of the segment, far more than the kernel's own error of at most `8ε·S`), and the sum by
//! another `16ε` relatively; non-finite pairs, which can never be within a radius, may be
//! skipped. The prefilter only decides which groups run, never what they report, so a
//! query with and without it returns the same list (the tests check it near the radius).
//! Rays and lines have no bounding sphere and always run the full kernel. The same spheres
//! and test ([`crate::prune::SphereColumns`]) are the grid's.

use crate::batch::{Error, LANES, SegmentsView};
pub(crate) use crate::driver::Side;
use crate::kernel::Lanes;
use crate::prune::{SphereColumns, sphere};
use crate::segment::{Extent, Options};
use wide::f32x8;

mod bvh8;
mod capsule;
mod closest;
mod crossings;
mod index;
mod indexed;
mod many;
mod rows;
mod self_pairs;
mod sets;
mod within64;

pub use capsule::{PairMask, Radii, capsules_touch, capsules_touch_into};
#[cfg(feature = "rayon")]
pub use capsule::{par_capsules_touch, par_capsules_touch_into};
pub(crate) use closest::F64Lanes;
pub use closest::{
    ClosestBatch, ClosestBatch64, Outputs, Width, closest_points, closest_points_into,
    closest_points_one_to_many, closest_points_one_to_many_into, closest_points_width_into,
    closest_points64, closest_points64_into, closest_points64_one_to_many,
    closest_points64_one_to_many_into,
};
#[cfg(feature = "rayon")]
pub use closest::{
    par_closest_points, par_closest_points_into, par_closest_points_one_to_many,
    par_closest_points_one_to_many_into, par_closest_points64, par_closest_points64_into,
    par_closest_points64_one_to_many, par_closest_points64_one_to_many_into,
};
pub use crossings::{CrossHit, crossing_pairs, crossing_pairs_into, for_each_crossing_pair};
#[cfg(feature = "rayon")]
pub use crossings::{par_crossing_pairs, par_crossing_pairs_into, par_for_each_crossing_pair};
pub(crate) use index::first_hit_pair;
pub use index::{FirstHit, PerRay, SegmentIndex};
pub(crate) use indexed::manifold;
pub use indexed::{
    CapsuleContact, MANIFOLD_SIN, capsule_contacts, capsule_contacts_into, capsules_touch_indexed,
    capsules_touch_indexed_into, closest_points_indexed, closest_points_indexed_into,
};
#[cfg(feature = "rayon")]
pub use indexed::{
    par_capsule_contacts, par_capsule_contacts_into, par_capsules_touch_indexed,
    par_capsules_touch_indexed_into, par_closest_points_indexed, par_closest_points_indexed_into,
};
pub use many::{dist2_matrix, dist2_matrix_into, pairs_within, pairs_within_into};
#[cfg(feature = "rayon")]
pub use many::{par_dist2_matrix, par_dist2_matrix_into, par_pairs_within, par_pairs_within_into};
pub use rows::{
    ClosestSlices, closest_points_rows, closest_points_rows_into, closest_points_rows_to_slices,
    closest_points_to_slices,
};
#[cfg(feature = "rayon")]
pub use rows::{
    par_closest_points_rows, par_closest_points_rows_into, par_closest_points_rows_to_slices,
    par_closest_points_to_slices,
};
pub use self_pairs::{SharedEndpoints, self_pairs_within, self_pairs_within_into};
#[cfg(feature = "rayon")]
pub use self_pairs::{par_self_pairs_within, par_self_pairs_within_into};
pub use sets::{
    PairHit, count_non_finite, for_each_pair_within, for_each_self_pair_within, within_radius,
};
#[cfg(feature = "rayon")]
pub use sets::{par_for_each_pair_within, par_for_each_self_pair_within};
pub use within64::{
    Hit64, pairs_within64, pairs_within64_into, self_pairs_within64, self_pairs_within64_into,
};
#[cfg(feature = "rayon")]
pub use within64::{
    par_pairs_within64, par_pairs_within64_into, par_self_pairs_within64,
    par_self_pairs_within64_into,
};

/// Rows of A per tile of the `N × M` queries (and per parallel task along A).
pub const TILE_A: usize = 64;
/// Columns of B per tile: 512 segments are 12 KiB of coordinates plus 8 KiB of bounding
/// spheres, resident in L1 while every row of the tile runs against them.
pub const TILE_B: usize = 512;

const _: () = assert!(TILE_B.is_multiple_of(LANES));

/// A pair within the radius of a [`pairs_within`] or [`self_pairs_within`] query: `a[i]`
/// against `b[j]` (or `set[i]` against `set[j]`, `i < j`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Hit {
    /// Index in A (or in the set).
    pub i: usize,
    /// Index in B (or in the set, `j > i`).
    pub j: usize,
    /// Squared distance of the closest points.
    pub dist2: f32,
    /// Parameter of the closest point along `a[i]`.
    pub s: f32,
    /// Parameter of the closest point along `b[j]`.
    pub t: f32,
}

impl Hit {
    /// The distance `sqrt(dist2)`.
    #[inline]
    #[must_use]
    pub fn distance(&self) -> f32 {
        self.dist2.sqrt()
    }
}

/// `radius²`, or an error for a negative or NaN radius.
pub(crate) fn radius2(radius: f32) -> Result<f32, Error> {
    if radius >= 0.0 {
        Ok(radius * radius)
    } else {
        Err(Error::InvalidRadius { index: None })
    }
}

pub(crate) use crate::prune::lane_bits;

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
        out.push(Hit {
            i,
            j: j + k,
            dist2: d[k],
            s: s[k],
            t: t[k],
        });
    }
}
