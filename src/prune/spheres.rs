//! Bounding spheres: the conservative test every candidate pair passes, and the lane
//! bits the scans use.

use super::store::{fill_columns, fill_each};
use crate::batch::padded_len;
use crate::columns::LANES;
use crate::driver::Row;
use crate::lanes::Twin;
use core::ops::Range;
use wide::f32x8;

/// Relative inflation of each sphere radius.
pub(super) const SPHERE_REL: f32 = 1.0 + 4.0 * f32::EPSILON;
/// Absolute inflation of each sphere radius, times the Euclidean norm of its centre: the
/// centre's rounding to `f32` (`ε/2` of each coordinate, so at most `ε/2` of the norm;
/// the sum of two halves rounds once), with a margin of 1.5. (The kernel's own error is
/// relative to the pair's extent and sits in [`SPHERE_REL`] and [`BOUND_REL`], module docs
/// of [`crate::sets`]; objects rounded into a local frame carry that rounding in their own
/// growth, [`super::frame::rounding`].)
pub(super) const CENTRE_ABS: f64 = 0.75 * f32::EPSILON as f64;
/// Absolute inflation of each sphere radius, whatever the coordinates: the kernel's
/// rounding where its values are subnormal (a squared distance that underflows to 0 is
/// within any radius; the distance is then below `2^-74`), and an end point rounded into
/// `f32`'s subnormal range (by a local frame) moved by up to `2^-150`.
pub(super) const SPHERE_FLOOR: f64 = 1.0 / (1u128 << 72) as f64;
/// Relative inflation of the sum `radA + radB + R`.
pub(crate) const BOUND_REL: f32 = 1.0 + 16.0 * f32::EPSILON;
/// Absolute inflation of each `f64` object's sphere, times its largest coordinate (in the
/// caller's frame): far above the `f64` kernel's error bound, `8·ε·S` with `S` the largest
/// coordinate of the pair (its error is relative to the pair's extent, module docs of
/// [`crate::sets`], and at UTM `256·ε·S` is still under a micrometre). Each of a pair's
/// spheres takes it for its own coordinates, so the two together cover it for the pair's
/// largest.
pub(crate) const KERNEL_ABS64: f64 = 256.0 * f64::EPSILON;
/// Extra room in the cell edge over the largest distance two neighbours' centres can have,
/// for the rounding of that bound in `f32`.
pub(super) const CELL_MARGIN: f64 = 1.0 + 1e-4;

/// A bounding sphere, inflated so that rounding never makes it too small: centre and
/// radius of the points `p0 .. p1` (any dimension), `None` when a coordinate is not finite
/// (such objects are never within any radius).
#[inline]
pub(crate) fn sphere<const D: usize>(p0: [f32; D], p1: [f32; D]) -> Option<([f32; D], f32)> {
    padded_sphere(p0, p1, 0.0)
}

/// The bounding sphere of the capsule of radius `pad` around `p0 .. p1` ([`sphere`] grown
/// by `pad`, added in `f64`; `+∞` for a radius that overflows `f32`).
#[inline]
pub(super) fn padded_sphere<const D: usize>(
    p0: [f32; D],
    p1: [f32; D],
    pad: f32,
) -> Option<([f32; D], f32)> {
    if !p0.iter().chain(&p1).all(|x| x.is_finite()) {
        return None;
    }
    // Halves first: the sum of two finite coordinates may overflow, this may not.
    let m: [f32; D] = core::array::from_fn(|k| 0.5 * p0[k] + 0.5 * p1[k]);
    // The length in `f64`: in `f32` the squares of a segment longer than about 1.8e19
    // overflow, which made its sphere infinite. A segment longer than `f32::MAX` (say from
    // `-f32::MAX` to `f32::MAX`) still has an infinite radius in `f32`; the grid keeps such
    // objects aside as big ones ([`Grid::build`]).
    let len2: f64 = (0..D)
        .map(|k| {
            let d = f64::from(p1[k]) - f64::from(p0[k]);
            d * d
        })
        .sum();
    let centre2: f64 = m.iter().map(|&x| f64::from(x) * f64::from(x)).sum();
    let radius = 0.5 * len2.sqrt() * f64::from(SPHERE_REL)
        + CENTRE_ABS * centre2.sqrt()
        + f64::from(pad) * f64::from(SPHERE_REL)
        + SPHERE_FLOOR;
    Some((m, radius as f32))
}

/// The bounding sphere of a staged row: a segment's two end points of `D` coordinates,
/// grown by the object's own radius (value [`pad_slot`]`(D)` of the row).
#[inline]
pub(super) fn row_sphere<const D: usize>(row: &Row) -> Option<([f32; D], f32)> {
    padded_sphere(
        core::array::from_fn(|k| row.0[k]),
        core::array::from_fn(|k| row.0[D + k]),
        row.0[2 * D],
    )
}

/// The value of a staged row of a grid of `D` dimensions that holds the object's own radius:
/// the first one past the end points (`0` for a query with one radius for every pair).
#[inline(always)]
pub(crate) const fn pad_slot(d: usize) -> usize {
    2 * d
}

/// Bounding spheres as SIMD-ready columns: centres per axis and radii, padded to whole
/// groups with spheres infinitely far away.
pub(crate) struct SphereColumns<const D: usize> {
    pub(super) centre: [Vec<f32>; D],
    rad: Vec<f32>,
}

impl<const D: usize> SphereColumns<D> {
    /// The columns of the spheres `sphere(0..n)` (`None`, a non-finite object, becomes a
    /// sphere infinitely far away, which the test never passes for a finite radius),
    /// padded, written a chunk at a time on all cores when `parallel`.
    pub(crate) fn of(
        n: usize,
        parallel: bool,
        sphere: impl Fn(usize) -> Option<([f32; D], f32)> + Sync,
    ) -> Self {
        let len = padded_len(n);
        let mut centre: [Vec<f32>; D] = core::array::from_fn(|_| vec![f32::INFINITY; len]);
        let mut rad = vec![0.0; len];
        let at = |p: usize| sphere(p).unwrap_or(([f32::INFINITY; D], 0.0));
        fill_columns(centre.each_mut().map(|c| &mut c[..n]), parallel, |p| {
            at(p).0
        });
        fill_each(&mut rad[..n], parallel, |p| at(p).1);
        SphereColumns { centre, rad }
    }

    /// Sphere `p` broadcast to every lane.
    #[inline(always)]
    pub(crate) fn splat(&self, p: usize) -> ([f32x8; D], f32x8) {
        (
            core::array::from_fn(|k| f32x8::splat(self.centre[k][p])),
            f32x8::splat(self.rad[p]),
        )
    }

    /// Lanes of the group at `j` (a multiple of [`LANES`]) whose sphere may come within
    /// `radius` of the sphere `(m, rad)`:
    /// `|m - m_j|² <= ((rad + rad_j + radius)·(1 + 16ε))²`, conservative. NaN compares
    /// false.
    #[inline(always)]
    pub(crate) fn near_bits(&self, j: usize, me: &([f32x8; D], f32x8), radius: f32x8) -> u32 {
        near_lanes(self.group(j), me, radius)
    }

    /// The groups `g` (group `g` holds positions `8g .. 8g + 8`) as slices of lanes: the
    /// centres per axis and the radii, all `g.len()` long.
    #[inline(always)]
    pub(super) fn groups(&self, g: Range<usize>) -> ([&[[f32; LANES]]; D], &[[f32; LANES]]) {
        fn lanes(c: &[f32], g: Range<usize>) -> &[[f32; LANES]] {
            &c.as_chunks::<LANES>().0[g]
        }
        (
            core::array::from_fn(|k| lanes(&self.centre[k], g.clone())),
            lanes(&self.rad, g),
        )
    }

    /// The spheres of the group at `j` (a multiple of [`LANES`]): centres and radii.
    #[inline(always)]
    pub(crate) fn group(&self, j: usize) -> ([f32x8; D], f32x8) {
        let load = |c: &[f32]| -> f32x8 {
            let a: [f32; LANES] = c[j..j + LANES].try_into().expect("8 values");
            f32x8::from(a)
        };
        (
            core::array::from_fn(|k| load(&self.centre[k])),
            load(&self.rad),
        )
    }
}

/// The sphere test of [`SphereColumns::near_bits`] on a group already loaded.
#[inline(always)]
pub(super) fn near_lanes<const D: usize>(
    (centre, rad_j): ([f32x8; D], f32x8),
    (m, rad): &([f32x8; D], f32x8),
    radius: f32x8,
) -> u32 {
    let mut dm2 = f32x8::ZERO;
    for (c, x) in centre.iter().zip(m) {
        let d = *c - *x;
        dm2 = d.fma(d, dm2);
    }
    let bound = (rad_j + *rad + radius) * f32x8::splat(BOUND_REL);
    dm2.simd_le(bound * bound).to_bitmask()
}

/// The same test for two single spheres.
#[inline]
pub(super) fn near<const D: usize>(a: &([f32; D], f32), b: &([f32; D], f32), radius: f32) -> bool {
    let mut dm2 = 0.0f32;
    for k in 0..D {
        let d = b.0[k] - a.0[k];
        dm2 = d.mul_add(d, dm2);
    }
    let bound = (b.1 + a.1 + radius) * BOUND_REL;
    dm2 <= bound * bound
}

/// Hands `j + k` to `emit` for every bit `k` set in `bits`, lowest first.
#[inline(always)]
pub(crate) fn each_bit(j: usize, mut bits: u32, mut emit: impl FnMut(u32)) {
    while bits != 0 {
        let k = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        emit((j + k) as u32);
    }
}

/// Moves `pos` forward past the positions before `end` whose centres' `x` pass `go`
/// (lanes of `xs`, the padded first centre column), eight at a time. The sweep windows
/// move a few positions an object, in no pattern a predictor learns: a loop testing one
/// position at a time mispredicted its exit on most calls (callgrind --branch-sim on hair:
/// 40% of the remaining mispredictions); this one loops only past eight.
#[inline(always)]
pub(super) fn advance(xs: &[f32], pos: &mut usize, end: usize, go: impl Fn(f32x8) -> f32x8) {
    while *pos < end {
        let v = match xs.get(*pos..*pos + LANES) {
            Some(v) => f32x8::new(v.try_into().expect("eight lanes")),
            // The column's last group, read from an unaligned start: its padding is +inf,
            // which no window passes, and the lanes from `end` on are masked below anyway.
            None => f32x8::new(core::array::from_fn(|k| {
                xs.get(*pos + k).copied().unwrap_or(f32::INFINITY)
            })),
        };
        let pass = go(v).to_bitmask() & lane_bits(*pos, end, *pos);
        let run = (!pass).trailing_zeros() as usize;
        *pos += run;
        if run < LANES {
            break;
        }
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
