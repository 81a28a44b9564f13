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
//! A segment is broadcast to all eight lanes ([`V3::splat`]) and reused against the whole
//! B block, which stays in L1 (its six columns and its bounding spheres take 20 KiB); the
//! parallel forms hand out rectangles of tiles to rayon.
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
//! Rays and lines have no bounding sphere and always run the full kernel.

use crate::batch::{Error, LANES, SegmentsView, padded_len};
pub(crate) use crate::driver::Side;
use crate::kernel::Lanes;
use crate::lanes::V3;
use crate::segment::{Extent, Options};
use wide::f32x8;

mod capsule;
mod closest;
mod indexed;
mod many;
mod self_pairs;
mod sets;

pub use capsule::{PairMask, Radii, capsules_touch, capsules_touch_into};
#[cfg(feature = "rayon")]
pub use capsule::{par_capsules_touch, par_capsules_touch_into};
pub use closest::{
    ClosestBatch, Outputs, closest_points, closest_points_into, closest_points_one_to_many,
    closest_points_one_to_many_into,
};
#[cfg(feature = "rayon")]
pub use closest::{
    par_closest_points, par_closest_points_into, par_closest_points_one_to_many,
    par_closest_points_one_to_many_into,
};
pub use indexed::{
    CapsuleContact, capsule_contacts, capsule_contacts_into, capsules_touch_indexed,
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
pub use sets::{PairHit, for_each_pair_within, for_each_self_pair_within};
#[cfg(feature = "rayon")]
pub use sets::{par_for_each_pair_within, par_for_each_self_pair_within};
pub use self_pairs::{SharedEndpoints, self_pairs_within, self_pairs_within_into};
#[cfg(feature = "rayon")]
pub use self_pairs::{par_self_pairs_within, par_self_pairs_within_into};

/// Rows of A per tile of the `N × M` queries (and per parallel task along A).
pub const TILE_A: usize = 64;
/// Columns of B per tile: 512 segments are 12 KiB of coordinates plus 8 KiB of bounding
/// spheres, resident in L1 while every row of the tile runs against them.
pub const TILE_B: usize = 512;

const _: () = assert!(TILE_B.is_multiple_of(LANES));

/// A pair within the radius of a [`pairs_within`] or [`self_pairs_within`] query: `a[i]`
/// against `b[j]` (or `set[i]` against `set[j]`, `i < j`).
#[derive(Clone, Copy, Debug, PartialEq)]
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

/// Bits `k` (0..8) for which `lo <= j + k < hi`.
#[inline(always)]
pub(crate) fn lane_bits(lo: usize, hi: usize, j: usize) -> u32 {
    let from = lo.saturating_sub(j).min(LANES) as u32;
    let to = hi.saturating_sub(j).min(LANES) as u32;
    if to <= from {
        0
    } else {
        ((1u32 << to) - 1) & !((1u32 << from) - 1)
    }
}

/// Bounding spheres of a batch for the prefilter: centre and inflated radius columns,
/// padded to a multiple of [`LANES`] (padding spheres are infinitely far away).
pub(crate) struct Spheres {
    mx: Vec<f32>,
    my: Vec<f32>,
    mz: Vec<f32>,
    rad: Vec<f32>,
}

/// Relative inflation of each sphere radius.
const SPHERE_REL: f32 = 1.0 + 4.0 * f32::EPSILON;
/// Absolute inflation of each sphere radius, times the segment's largest coordinate.
const SPHERE_ABS: f32 = 256.0 * f32::EPSILON;
/// Relative inflation of the sum `radA + radB + R`.
const BOUND_REL: f32 = 1.0 + 16.0 * f32::EPSILON;

impl Spheres {
    /// The spheres of `v`, or `None` when the options make the prefilter inapplicable.
    pub(crate) fn build(v: SegmentsView<'_>, options: &Options) -> Option<Spheres> {
        if options.extent_a != Extent::Segment || options.extent_b != Extent::Segment {
            return None;
        }
        let n = v.len();
        let cap = padded_len(n);
        let mut s = Spheres {
            mx: Vec::with_capacity(cap),
            my: Vec::with_capacity(cap),
            mz: Vec::with_capacity(cap),
            rad: Vec::with_capacity(cap),
        };
        for i in 0..n {
            let seg = v.at(i);
            let (p0, p1) = (seg.p0, seg.p1);
            // Halves first: the sum of two finite coordinates may overflow, this may not.
            let m: [f32; 3] = core::array::from_fn(|k| 0.5 * p0[k] + 0.5 * p1[k]);
            let d: [f32; 3] = core::array::from_fn(|k| p1[k] - p0[k]);
            let half = 0.5 * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            let scale = p0.iter().chain(&p1).fold(0.0f32, |acc, x| acc.max(x.abs()));
            s.mx.push(m[0]);
            s.my.push(m[1]);
            s.mz.push(m[2]);
            s.rad.push(half * SPHERE_REL + SPHERE_ABS * scale);
        }
        for col in [&mut s.mx, &mut s.my, &mut s.mz] {
            col.resize(cap, f32::INFINITY);
        }
        s.rad.resize(cap, 0.0);
        Some(s)
    }

    /// Centre and radius of sphere `i`, splat.
    #[inline(always)]
    pub(crate) fn splat(&self, i: usize) -> (V3, f32x8) {
        (
            V3::splat([self.mx[i], self.my[i], self.mz[i]]),
            f32x8::splat(self.rad[i]),
        )
    }

    /// Lanes of the group at `j` (a multiple of [`LANES`]) whose sphere may come within
    /// `radius` of the sphere `(m, rad)`: a bit mask, conservative.
    #[inline(always)]
    pub(crate) fn near_bits(&self, j: usize, m: V3, rad: f32x8, radius: f32x8) -> u32 {
        let load = |c: &[f32]| -> f32x8 {
            let a: [f32; LANES] = c[j..j + LANES].try_into().expect("8 values");
            f32x8::from(a)
        };
        let dx = load(&self.mx) - m.x;
        let dy = load(&self.my) - m.y;
        let dz = load(&self.mz) - m.z;
        let dm2 = dx * dx + dy * dy + dz * dz;
        let bound = (load(&self.rad) + rad + radius) * f32x8::splat(BOUND_REL);
        // NaN (non-finite input) compares false: such pairs are never within a radius.
        dm2.simd_le(bound * bound).to_bitmask()
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_bits_cover_ranges() {
        assert_eq!(lane_bits(0, 8, 0), 0xff);
        assert_eq!(lane_bits(3, 8, 0), 0b1111_1000);
        assert_eq!(lane_bits(0, 5, 0), 0b1_1111);
        assert_eq!(lane_bits(9, 12, 8), 0b1110);
        assert_eq!(lane_bits(20, 30, 8), 0);
        assert_eq!(lane_bits(0, 3, 8), 0);
    }
}
