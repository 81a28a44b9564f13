//! 2D segment intersection and 2D closest points: the scalar reference and its 8-lane
//! twin, side by side, over four SoA columns (no wasted z lane).
//!
//! # Method (the parametric test, with the 3D kernel's closest points as the fallback)
//!
//! With `dA = A1 - A0`, `dB = B1 - B0`, `r = A0 - B0` and the 2D cross product
//! (perp-dot) `u × v = u.x·v.y - u.y·v.x`, `A0 + s·dA = B0 + t·dB` gives
//! `s = (dB × r) / denom`, `t = (dA × r) / denom`, `denom = dA × dB` (the tutorial's
//! P1 = (4,7), v1 = (12,-4), P2 = (1,1), v2 = (16,4) cross at (13,4), s = t = 3/4).
//!
//! 1. **Non-finite** input: NaN outputs, [`MotionFlags::NON_FINITE`], [`Crossing::Disjoint`].
//! 2. **Degenerate** side (length at most `2·ε` times its own coordinates' magnitude):
//!    treated as its first point.
//! 3. **Parallel** (`denom² <= (2ε)²·|dA|²·|dB|²`, the sine of the angle at most `2ε`).
//!    **Collinear** when also B0 lies on A's line within `4·ε·S` (`S` the largest
//!    coordinate magnitude): `(dA × r)² <= (4ε)²·|dA|²·S²`. A collinear pair whose
//!    projections overlap is a [`Crossing::Overlap`]: `[s, s_end]` is the overlap on A
//!    (`s <= s_end`), `t`, `t_end` the same two points' parameters on B. Touching end to
//!    end is an overlap with `s == s_end`.
//! 4. Every pair gets the **closest points**, computed as the 3D reference does: the
//!    first estimate of `s` is the parametric solution above (Rhodes' overlap midpoint when
//!    parallel), then clamp, project onto B, project back onto A, and form the separation
//!    locally. A [`Crossing::Disjoint`] pair reports them.
//! 5. **Crossing**: a pair that is not a collinear overlap and whose closest distance is
//!    within `4·ε·S` meets at a point, [`Crossing::Point`], with those `s`, `t`. In the
//!    well-conditioned case they are the parametric values (the tutorial's 3/4 and 3/4
//!    exactly, distance 0). Deciding instead from "both parametric values in `[0, 1]`" is
//!    wrong near parallel, where the crossing's position along the lines is ill-conditioned
//!    (`ε·|r| / sin(angle)`): the tests found pairs 0.9 apart (785 ε·S) that it called
//!    crossing. The distance is accurate there, so it decides. The same rule makes a point
//!    lying on a segment, or a T-junction missed by an ulp, a `Point`.
//!
//! `dist2` is always the computed closest squared distance (0, or a rounding residue below
//! `(4·ε·S)²`, for a `Point` or an `Overlap`).
//! There are no absolute epsilons: every tolerance is relative to the inputs' own scale.

use super::cpa::clamp8;
use super::{
    MotionFlags, MotionFlagsColumn, bit8, check_len, flags8, in_groups, load, mask_bytes,
    out_groups, probe, probe8,
};
use crate::batch::{BatchError, F32Column, LANES, padded_len};
use crate::reference::{clamp, fma, fms, max_ps, min_ps};
use bytemuck::{Pod, Zeroable};
use core::ops::RangeBounds;
use wide::{f32x8, u32x8};

/// Degenerate length, relative to the side's coordinates (as `Tolerance::DEFAULT`).
const LENGTH_REL: f32 = 2.0 * f32::EPSILON;
/// Sine of the largest angle treated as parallel (as `Tolerance::DEFAULT`).
const PARALLEL_SIN: f32 = 2.0 * f32::EPSILON;
/// Distance treated as "on the line" / "touching", relative to the largest coordinate.
const ON_LINE_REL: f32 = 4.0 * f32::EPSILON;

/// A 2D segment from `p0` to `p1` (four `f32`, [`Pod`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Segment2 {
    /// First end point (parameter 0).
    pub p0: [f32; 2],
    /// Second end point (parameter 1).
    pub p1: [f32; 2],
}

impl Segment2 {
    /// A segment from `p0` to `p1`.
    #[inline]
    #[must_use]
    pub const fn new(p0: [f32; 2], p1: [f32; 2]) -> Self {
        Segment2 { p0, p1 }
    }

    /// The point at parameter `u`: `p0 + u·(p1 - p0)`.
    #[must_use]
    pub fn at(&self, u: f32) -> [f32; 2] {
        let d = sub2(self.p1, self.p0);
        [fma(u, d[0], self.p0[0]), fma(u, d[1], self.p0[1])]
    }
}

/// How two 2D segments meet.
#[repr(u8)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Crossing {
    /// They do not meet (also reported for non-finite input).
    #[default]
    Disjoint = 0,
    /// They meet at one point.
    Point = 1,
    /// They are collinear and overlap along an interval (possibly a single point).
    Overlap = 2,
}

/// The intersection (or closest points) of one pair of 2D segments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Intersection2 {
    /// How they meet.
    pub kind: Crossing,
    /// Parameter on A: of the crossing (`Point`), of the overlap's start (`Overlap`), of
    /// the closest point (`Disjoint`).
    pub s: f32,
    /// Parameter on B of the same point.
    pub t: f32,
    /// End of the overlap on A (`Overlap`); equal to `s` otherwise.
    pub s_end: f32,
    /// Parameter on B of the overlap's end; equal to `t` otherwise.
    pub t_end: f32,
    /// `A0 + s·dA`.
    pub point_a: [f32; 2],
    /// `B0 + t·dB`.
    pub point_b: [f32; 2],
    /// The closest squared distance (0 or a rounding residue below `(4·ε·S)²` when they
    /// meet).
    pub dist2: f32,
    /// Degenerate, parallel, collinear, non-finite.
    pub flags: MotionFlags,
}

impl Intersection2 {
    /// The result for a pair with a non-finite input.
    pub const NON_FINITE: Intersection2 = Intersection2 {
        kind: Crossing::Disjoint,
        s: f32::NAN,
        t: f32::NAN,
        s_end: f32::NAN,
        t_end: f32::NAN,
        point_a: [f32::NAN; 2],
        point_b: [f32::NAN; 2],
        dist2: f32::NAN,
        flags: MotionFlags::NON_FINITE,
    };
}

// ---------------------------------------------------------------------------------------
// Scalar reference.

#[inline(always)]
fn sub2(u: [f32; 2], v: [f32; 2]) -> [f32; 2] {
    [u[0] - v[0], u[1] - v[1]]
}

/// `u·v` as `fma(u.x, v.x, u.y·v.y)`.
#[inline(always)]
fn dot2(u: [f32; 2], v: [f32; 2]) -> f32 {
    fma(u[0], v[0], u[1] * v[1])
}

/// `u × v = u.x·v.y - u.y·v.x` as one product and one fused product.
#[inline(always)]
fn cross2(u: [f32; 2], v: [f32; 2]) -> f32 {
    fms(u[0], v[1], u[1] * v[0])
}

/// Intersection of two 2D segments, or their closest points (scalar reference).
///
/// Never panics; a NaN or infinite input gives [`Intersection2::NON_FINITE`].
///
/// ```
/// use segbatch::motion::{intersect2_scalar, Crossing, Segment2};
/// // The tutorial's example: P1 = (4,7), v1 = (12,-4); P2 = (1,1), v2 = (16,4).
/// let a = Segment2::new([4.0, 7.0], [16.0, 3.0]);
/// let b = Segment2::new([1.0, 1.0], [17.0, 5.0]);
/// let x = intersect2_scalar(&a, &b);
/// assert_eq!(x.kind, Crossing::Point);
/// assert_eq!((x.s, x.t), (0.75, 0.75));
/// assert_eq!(x.point_a, [13.0, 4.0]);
/// ```
#[must_use]
pub fn intersect2_scalar(a: &Segment2, b: &Segment2) -> Intersection2 {
    let (a0, a1, b0, b1) = (a.p0, a.p1, b.p0, b.p1);
    let d_a = sub2(a1, a0);
    let d_b = sub2(b1, b0);
    let r = sub2(a0, b0);

    // 1. Non-finite.
    let non_finite = probe(&[d_a[0], d_a[1], d_b[0], d_b[1], r[0], r[1]]);
    if non_finite {
        return Intersection2::NON_FINITE;
    }

    let a_ = dot2(d_a, d_a);
    let e = dot2(d_b, d_b);
    let b_ = dot2(d_a, d_b);
    let c = dot2(d_a, r);
    let f = dot2(d_b, r);

    // 2. Degenerate, 3. parallel and collinear.
    let scale2_a = max_ps(dot2(a0, a0), dot2(a1, a1));
    let scale2_b = max_ps(dot2(b0, b0), dot2(b1, b1));
    let scale2 = max_ps(scale2_a, scale2_b);
    let degenerate_a = a_ <= (LENGTH_REL * LENGTH_REL) * scale2_a;
    let degenerate_b = e <= (LENGTH_REL * LENGTH_REL) * scale2_b;
    let degenerate = degenerate_a || degenerate_b;
    let denom = cross2(d_a, d_b);
    let s_num = cross2(d_b, r);
    let t_num = cross2(d_a, r);
    let parallel = !degenerate && denom * denom <= (PARALLEL_SIN * PARALLEL_SIN) * (a_ * e);
    let collinear = parallel && t_num * t_num <= (ON_LINE_REL * ON_LINE_REL) * (a_ * scale2);

    // B's projection onto A (used when parallel).
    let s_b0 = -c / a_;
    let k = b_ / a_;
    let s_b1 = k + s_b0;
    let lo = max_ps(0.0, min_ps(s_b0, s_b1));
    let hi = min_ps(1.0, max_ps(s_b0, s_b1));
    let overlap = collinear && lo <= hi;

    // 4. The parametric solution (the tutorial's s), the first estimate below.
    let s_cross = s_num / denom;

    // 5. Closest points, as the 3D reference.
    let s_first = if degenerate {
        0.0
    } else if parallel {
        (lo + hi) * 0.5
    } else {
        s_cross
    };
    let s = clamp(s_first, 0.0, 1.0);
    let t = if degenerate_b {
        0.0
    } else {
        clamp(fma(b_, s, f) / e, 0.0, 1.0)
    };
    let s = if degenerate_a {
        0.0
    } else {
        clamp(fms(b_, t, c) / a_, 0.0, 1.0)
    };
    let v = [
        fnma2(t, d_b[0], fma(s, d_a[0], r[0])),
        fnma2(t, d_b[1], fma(s, d_a[1], r[1])),
    ];
    let dist2 = dot2(v, v);
    let point = !overlap && dist2 <= (ON_LINE_REL * ON_LINE_REL) * scale2;

    // The overlap's ends on B.
    let t_lo = clamp(fma(b_, lo, f) / e, 0.0, 1.0);
    let t_hi = clamp(fma(b_, hi, f) / e, 0.0, 1.0);

    let (kind, s_out, t_out, s_end, t_end) = if point {
        (Crossing::Point, s, t, s, t)
    } else if overlap {
        (Crossing::Overlap, lo, t_lo, hi, t_hi)
    } else {
        (Crossing::Disjoint, s, t, s, t)
    };
    let mut flags = MotionFlags::NONE;
    for (on, flag) in [
        (degenerate_a, MotionFlags::DEGENERATE_A),
        (degenerate_b, MotionFlags::DEGENERATE_B),
        (parallel, MotionFlags::PARALLEL),
        (collinear, MotionFlags::COLLINEAR),
    ] {
        if on {
            flags |= flag;
        }
    }
    Intersection2 {
        kind,
        s: s_out,
        t: t_out,
        s_end,
        t_end,
        point_a: [fma(s_out, d_a[0], a0[0]), fma(s_out, d_a[1], a0[1])],
        point_b: [fma(t_out, d_b[0], b0[0]), fma(t_out, d_b[1], b0[1])],
        dist2,
        flags,
    }
}

#[inline(always)]
fn fnma2(x: f32, y: f32, z: f32) -> f32 {
    crate::reference::fnma(x, y, z)
}

// ---------------------------------------------------------------------------------------
// The 8-lane twin.

/// Two coordinates of eight lanes.
#[derive(Clone, Copy)]
struct V2 {
    x: f32x8,
    y: f32x8,
}

#[inline(always)]
fn sub2x8(u: V2, v: V2) -> V2 {
    V2 {
        x: u.x - v.x,
        y: u.y - v.y,
    }
}

#[inline(always)]
fn dot2x8(u: V2, v: V2) -> f32x8 {
    u.x.mul_add(v.x, u.y * v.y)
}

#[inline(always)]
fn cross2x8(u: V2, v: V2) -> f32x8 {
    u.x.mul_sub(v.y, u.y * v.x)
}

/// Eight results.
struct Lanes2 {
    /// `Crossing` discriminants: 0, 1 or 2 per lane.
    kind: u32x8,
    s: f32x8,
    t: f32x8,
    s_end: f32x8,
    t_end: f32x8,
    point_a: V2,
    point_b: V2,
    dist2: f32x8,
    flags: u32x8,
}

/// The common case: `None` unless every lane is finite, has no degenerate side and is not
/// parallel, in which case every `select` of [`intersect8`] would return its last operand
/// (no overlap, the parametric first estimate) and the overlap interval is never used: the
/// same results bit for bit, with three divisions instead of seven. Callers handle `None`
/// out of line.
#[inline(always)]
fn intersect8_general(a0: V2, a1: V2, b0: V2, b1: V2) -> Option<(Lanes2, f32x8)> {
    let zero = f32x8::ZERO;
    let one = f32x8::ONE;
    let d_a = sub2x8(a1, a0);
    let d_b = sub2x8(b1, b0);
    let r = sub2x8(a0, b0);
    let non_finite = probe8(&[d_a.x, d_a.y, d_b.x, d_b.y, r.x, r.y]);

    let a_ = dot2x8(d_a, d_a);
    let e = dot2x8(d_b, d_b);
    let b_ = dot2x8(d_a, d_b);
    let c = dot2x8(d_a, r);
    let f = dot2x8(d_b, r);
    let scale2_a = dot2x8(a0, a0).fast_max(dot2x8(a1, a1));
    let scale2_b = dot2x8(b0, b0).fast_max(dot2x8(b1, b1));
    let scale2 = scale2_a.fast_max(scale2_b);
    let length_rel2 = f32x8::splat(LENGTH_REL * LENGTH_REL);
    let degenerate_a = a_.simd_le(length_rel2 * scale2_a);
    let degenerate_b = e.simd_le(length_rel2 * scale2_b);
    let denom = cross2x8(d_a, d_b);
    let parallel_or_degenerate =
        (denom * denom).simd_le(f32x8::splat(PARALLEL_SIN * PARALLEL_SIN) * (a_ * e));
    if (non_finite | degenerate_a | degenerate_b | parallel_or_degenerate).any() {
        return None;
    }
    let s_num = cross2x8(d_b, r);
    let s = clamp8(s_num / denom, zero, one);
    let t = clamp8(b_.mul_add(s, f) / e, zero, one);
    let s = clamp8(b_.mul_sub(t, c) / a_, zero, one);
    let v = V2 {
        x: t.mul_neg_add(d_b.x, s.mul_add(d_a.x, r.x)),
        y: t.mul_neg_add(d_b.y, s.mul_add(d_a.y, r.y)),
    };
    let dist2 = dot2x8(v, v);
    let point = dist2.simd_le(f32x8::splat(ON_LINE_REL * ON_LINE_REL) * scale2);
    let lanes = Lanes2 {
        kind: point.to_bits() & u32x8::splat(Crossing::Point as u32),
        s,
        t,
        s_end: s,
        t_end: t,
        point_a: V2 {
            x: s.mul_add(d_a.x, a0.x),
            y: s.mul_add(d_a.y, a0.y),
        },
        point_b: V2 {
            x: t.mul_add(d_b.x, b0.x),
            y: t.mul_add(d_b.y, b0.y),
        },
        dist2,
        flags: u32x8::ZERO,
    };
    Some((lanes, point))
}

/// The twin of [`intersect2_scalar`] for eight pairs.
#[inline(always)]
fn intersect8(a0: V2, a1: V2, b0: V2, b1: V2) -> Lanes2 {
    let zero = f32x8::ZERO;
    let one = f32x8::ONE;
    let d_a = sub2x8(a1, a0);
    let d_b = sub2x8(b1, b0);
    let r = sub2x8(a0, b0);

    // 1. Non-finite.
    let non_finite = probe8(&[d_a.x, d_a.y, d_b.x, d_b.y, r.x, r.y]);

    let a_ = dot2x8(d_a, d_a);
    let e = dot2x8(d_b, d_b);
    let b_ = dot2x8(d_a, d_b);
    let c = dot2x8(d_a, r);
    let f = dot2x8(d_b, r);

    // 2. Degenerate, 3. parallel and collinear.
    let scale2_a = dot2x8(a0, a0).fast_max(dot2x8(a1, a1));
    let scale2_b = dot2x8(b0, b0).fast_max(dot2x8(b1, b1));
    let scale2 = scale2_a.fast_max(scale2_b);
    let length_rel2 = f32x8::splat(LENGTH_REL * LENGTH_REL);
    let on_line_rel2 = f32x8::splat(ON_LINE_REL * ON_LINE_REL);
    let degenerate_a = a_.simd_le(length_rel2 * scale2_a);
    let degenerate_b = e.simd_le(length_rel2 * scale2_b);
    let degenerate = degenerate_a | degenerate_b;
    let denom = cross2x8(d_a, d_b);
    let s_num = cross2x8(d_b, r);
    let t_num = cross2x8(d_a, r);
    let parallel =
        !degenerate & (denom * denom).simd_le(f32x8::splat(PARALLEL_SIN * PARALLEL_SIN) * (a_ * e));
    let collinear = parallel & (t_num * t_num).simd_le(on_line_rel2 * (a_ * scale2));

    // Divisors that may be zero in lanes which will not use the quotient.
    let a_safe = degenerate_a.select(one, a_);
    let e_safe = degenerate_b.select(one, e);
    let denom_safe = (degenerate | parallel).select(one, denom);

    // B's projection onto A.
    let s_b0 = -c / a_safe;
    let k = b_ / a_safe;
    let s_b1 = k + s_b0;
    let lo = zero.fast_max(s_b0.fast_min(s_b1));
    let hi = one.fast_min(s_b0.fast_max(s_b1));
    let overlap = collinear & lo.simd_le(hi);

    // 4. The parametric solution.
    let s_cross = s_num / denom_safe;

    // 5. Closest points.
    let s_first = degenerate.select(zero, parallel.select((lo + hi) * f32x8::HALF, s_cross));
    let s = clamp8(s_first, zero, one);
    let t = degenerate_b.select(zero, clamp8(b_.mul_add(s, f) / e_safe, zero, one));
    let s = degenerate_a.select(zero, clamp8(b_.mul_sub(t, c) / a_safe, zero, one));
    let v = V2 {
        x: t.mul_neg_add(d_b.x, s.mul_add(d_a.x, r.x)),
        y: t.mul_neg_add(d_b.y, s.mul_add(d_a.y, r.y)),
    };
    let dist2 = dot2x8(v, v);
    let point = !overlap & dist2.simd_le(on_line_rel2 * scale2);

    let t_lo = clamp8(b_.mul_add(lo, f) / e_safe, zero, one);
    let t_hi = clamp8(b_.mul_add(hi, f) / e_safe, zero, one);

    let kind = (point.to_bits() & u32x8::splat(Crossing::Point as u32))
        | (overlap.to_bits() & u32x8::splat(Crossing::Overlap as u32));
    // `point` and `overlap` exclude each other.
    let s_out = overlap.select(lo, s);
    let t_out = overlap.select(t_lo, t);
    let s_end = overlap.select(hi, s_out);
    let t_end = overlap.select(t_hi, t_out);
    let flags = bit8(degenerate_a, MotionFlags::DEGENERATE_A)
        | bit8(degenerate_b, MotionFlags::DEGENERATE_B)
        | bit8(parallel, MotionFlags::PARALLEL)
        | bit8(collinear, MotionFlags::COLLINEAR);
    let mut lanes = Lanes2 {
        kind,
        s: s_out,
        t: t_out,
        s_end,
        t_end,
        point_a: V2 {
            x: s_out.mul_add(d_a.x, a0.x),
            y: s_out.mul_add(d_a.y, a0.y),
        },
        point_b: V2 {
            x: t_out.mul_add(d_b.x, b0.x),
            y: t_out.mul_add(d_b.y, b0.y),
        },
        dist2,
        flags,
    };
    if non_finite.any() {
        let nan = f32x8::splat(f32::NAN);
        let blank = |x: f32x8| non_finite.select(nan, x);
        lanes = Lanes2 {
            kind: !non_finite.to_bits() & lanes.kind,
            s: blank(lanes.s),
            t: blank(lanes.t),
            s_end: blank(lanes.s_end),
            t_end: blank(lanes.t_end),
            point_a: V2 {
                x: blank(lanes.point_a.x),
                y: blank(lanes.point_a.y),
            },
            point_b: V2 {
                x: blank(lanes.point_b.x),
                y: blank(lanes.point_b.y),
            },
            dist2: blank(lanes.dist2),
            flags: non_finite.select(
                u32x8::splat(u32::from(MotionFlags::NON_FINITE.bits())),
                lanes.flags,
            ),
        };
    }
    lanes
}

// ---------------------------------------------------------------------------------------
// 2D batches.

/// A batch of 2D segments as four `f32` columns (`x0, y0, x1, y1`), each padded with zeros
/// to a multiple of [`LANES`]: 16 bytes a segment, where a 3D batch with `z = 0` would read
/// 24.
///
/// ```
/// use segbatch::motion::{Segment2, Segments2};
/// let mut b = Segments2::from(&[Segment2::new([0.0, 0.0], [1.0, 0.0])][..]);
/// b.push(Segment2::new([2.0, 2.0], [3.0, 3.0]));
/// assert_eq!(b.len(), 2);
/// assert_eq!(b.get(1).p1, [3.0, 3.0]);
/// assert_eq!(b.columns()[1], &[0.0, 2.0]);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Segments2 {
    /// `x0, y0, x1, y1`, each of length `padded_len(len)`, zero padded, in aligned groups.
    cols: [F32Column; 4],
    len: usize,
}

impl Segments2 {
    /// An empty batch.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty batch with room for `n` segments.
    #[must_use]
    pub fn with_capacity(n: usize) -> Self {
        Segments2 {
            cols: core::array::from_fn(|_| F32Column::with_capacity(n)),
            len: 0,
        }
    }

    /// A batch from four columns `[x0, y0, x1, y1]` of equal length.
    ///
    /// # Errors
    /// [`BatchError::LengthMismatch`] when the columns differ in length.
    pub fn from_columns(cols: [&[f32]; 4]) -> Result<Self, BatchError> {
        let len = cols[0].len();
        for c in cols {
            check_len("columns of a 2D batch", len, c.len())?;
        }
        Ok(Segments2 {
            cols: core::array::from_fn(|k| {
                let mut v = F32Column::with_capacity(len);
                v.resize_padded(len);
                v[..len].copy_from_slice(cols[k]);
                v
            }),
            len,
        })
    }

    /// Number of segments.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the batch is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends one segment.
    pub fn push(&mut self, s: Segment2) {
        if self.len.is_multiple_of(LANES) {
            // Open a new padded group.
            for col in &mut self.cols {
                col.resize_padded(self.len + 1);
            }
        }
        for (col, x) in self
            .cols
            .iter_mut()
            .zip([s.p0[0], s.p0[1], s.p1[0], s.p1[1]])
        {
            col[self.len] = x;
        }
        self.len += 1;
    }

    /// Appends segments from a slice.
    pub fn extend_from_slice(&mut self, segments: &[Segment2]) {
        let old = self.len;
        let len = old + segments.len();
        for (k, col) in self.cols.iter_mut().enumerate() {
            col.resize_padded(len);
            for (dst, s) in col[old..len].iter_mut().zip(segments) {
                *dst = if k < 2 { s.p0[k] } else { s.p1[k - 2] };
            }
        }
        self.len = len;
    }

    /// Segment `i`.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    #[must_use]
    pub fn get(&self, i: usize) -> Segment2 {
        self.as_view().get(i)
    }

    /// The columns `[x0, y0, x1, y1]`, each exactly `len()` values.
    #[must_use]
    pub fn columns(&self) -> [&[f32]; 4] {
        core::array::from_fn(|k| &self.cols[k][..self.len])
    }

    /// A view of the whole batch.
    #[must_use]
    pub fn as_view(&self) -> Segments2View<'_> {
        Segments2View {
            cols: core::array::from_fn(|k| &self.cols[k][..]),
            len: self.len,
        }
    }

    /// A view of a sub-range.
    ///
    /// # Panics
    /// When the range is outside `0..len()`; [`Segments2View::try_view`] does not panic.
    #[must_use]
    pub fn view(&self, range: impl RangeBounds<usize>) -> Segments2View<'_> {
        self.as_view().view(range)
    }
}

impl From<&[Segment2]> for Segments2 {
    fn from(segments: &[Segment2]) -> Self {
        let mut b = Segments2::with_capacity(segments.len());
        b.extend_from_slice(segments);
        b
    }
}

impl FromIterator<Segment2> for Segments2 {
    fn from_iter<I: IntoIterator<Item = Segment2>>(iter: I) -> Self {
        let mut b = Segments2::new();
        for s in iter {
            b.push(s);
        }
        b
    }
}

impl<'a> From<&'a Segments2> for Segments2View<'a> {
    fn from(s: &'a Segments2) -> Self {
        s.as_view()
    }
}

/// A borrowed range of a [`Segments2`] (or of four caller-owned columns).
#[derive(Clone, Copy, Debug)]
pub struct Segments2View<'a> {
    cols: [&'a [f32]; 4],
    len: usize,
}

impl<'a> Segments2View<'a> {
    /// A view over four caller-owned columns `[x0, y0, x1, y1]` (no copy).
    ///
    /// # Errors
    /// [`BatchError::LengthMismatch`] when the columns differ in length.
    pub fn from_columns(cols: [&'a [f32]; 4]) -> Result<Self, BatchError> {
        let len = cols[0].len();
        for c in cols {
            check_len("columns of a 2D view", len, c.len())?;
        }
        Ok(Segments2View { cols, len })
    }

    /// Number of segments.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the view is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Segment `i` of the view.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    #[must_use]
    pub fn get(&self, i: usize) -> Segment2 {
        assert!(
            i < self.len,
            "segment index {i} out of range for {}",
            self.len
        );
        let c = &self.cols;
        Segment2::new([c[0][i], c[1][i]], [c[2][i], c[3][i]])
    }

    /// A sub-range of this view.
    ///
    /// # Panics
    /// When the range is outside `0..len()`; [`Segments2View::try_view`] does not panic.
    #[must_use]
    pub fn view(&self, range: impl RangeBounds<usize>) -> Segments2View<'a> {
        match self.try_view(range) {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        }
    }

    /// A sub-range of this view, or an error when it is outside `0..len()`.
    ///
    /// # Errors
    /// [`BatchError::OutOfRange`].
    pub fn try_view(
        &self,
        range: impl RangeBounds<usize>,
    ) -> Result<Segments2View<'a>, BatchError> {
        let (start, end) = crate::batch::resolve_range(range, self.len)?;
        Ok(Segments2View {
            cols: core::array::from_fn(|k| &self.cols[k][start..]),
            len: end - start,
        })
    }
}

/// 2D intersections for a batch of pairs, stored as columns.
///
/// Reuse one across calls to [`intersect2_into`]: buffers grow and are never shrunk.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Intersections2 {
    len: usize,
    kind: Vec<Crossing>,
    s: F32Column,
    t: F32Column,
    s_end: F32Column,
    t_end: F32Column,
    point_a: [F32Column; 2],
    point_b: [F32Column; 2],
    dist2: F32Column,
    flags: MotionFlagsColumn,
}

impl Intersections2 {
    /// An empty batch.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of pairs.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are no results.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How each pair meets, exactly `len()` values.
    #[must_use]
    pub fn kind(&self) -> &[Crossing] {
        &self.kind[..self.len]
    }

    /// Parameters on A (crossing, overlap start or closest point).
    #[must_use]
    pub fn s(&self) -> &[f32] {
        &self.s[..self.len]
    }

    /// Parameters on B of the same points.
    #[must_use]
    pub fn t(&self) -> &[f32] {
        &self.t[..self.len]
    }

    /// Overlap ends on A (equal to `s` unless `Overlap`).
    #[must_use]
    pub fn s_end(&self) -> &[f32] {
        &self.s_end[..self.len]
    }

    /// Overlap ends on B (equal to `t` unless `Overlap`).
    #[must_use]
    pub fn t_end(&self) -> &[f32] {
        &self.t_end[..self.len]
    }

    /// Points on A, `[x, y]` columns of `len()` values.
    #[must_use]
    pub fn point_a(&self) -> [&[f32]; 2] {
        core::array::from_fn(|k| &self.point_a[k][..self.len])
    }

    /// Points on B, `[x, y]` columns of `len()` values.
    #[must_use]
    pub fn point_b(&self) -> [&[f32]; 2] {
        core::array::from_fn(|k| &self.point_b[k][..self.len])
    }

    /// Closest squared distances (0 or a rounding residue when the segments meet).
    #[must_use]
    pub fn dist2(&self) -> &[f32] {
        &self.dist2[..self.len]
    }

    /// Per-pair flags.
    #[must_use]
    pub fn flags(&self) -> &[MotionFlags] {
        &self.flags[..self.len]
    }

    /// Result `i`.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    #[must_use]
    pub fn get(&self, i: usize) -> Intersection2 {
        assert!(i < self.len, "index {i} out of range for {}", self.len);
        Intersection2 {
            kind: self.kind[i],
            s: self.s[i],
            t: self.t[i],
            s_end: self.s_end[i],
            t_end: self.t_end[i],
            point_a: [self.point_a[0][i], self.point_a[1][i]],
            point_b: [self.point_b[0][i], self.point_b[1][i]],
            dist2: self.dist2[i],
            flags: self.flags[i],
        }
    }

    /// The results in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Intersection2> + '_ {
        (0..self.len).map(|i| self.get(i))
    }

    /// Sizes every column for `len` results, padded to whole groups.
    fn reset(&mut self, len: usize) {
        self.len = len;
        for v in [
            &mut self.s,
            &mut self.t,
            &mut self.s_end,
            &mut self.t_end,
            &mut self.dist2,
        ]
        .into_iter()
        .chain(&mut self.point_a)
        .chain(&mut self.point_b)
        {
            v.resize_padded(len);
        }
        self.kind.resize(padded_len(len), Crossing::Disjoint);
        self.flags.resize_padded(len);
    }

    /// The columns as groups, split after group `groups` (see [`out_groups`]).
    fn split_groups(&mut self, groups: usize) -> (Out2<'_>, Out2<'_>) {
        let (kind, kind_rest) = out_groups(&mut self.kind, groups);
        let (s, s_rest) = out_groups(&mut self.s, groups);
        let (t, t_rest) = out_groups(&mut self.t, groups);
        let (s_end, s_end_rest) = out_groups(&mut self.s_end, groups);
        let (t_end, t_end_rest) = out_groups(&mut self.t_end, groups);
        let (dist2, dist2_rest) = out_groups(&mut self.dist2, groups);
        let (flags, flags_rest) = out_groups(&mut self.flags, groups);
        let [pa0, pa1] = &mut self.point_a;
        let [pb0, pb1] = &mut self.point_b;
        let (pax, pax_rest) = out_groups(pa0, groups);
        let (pay, pay_rest) = out_groups(pa1, groups);
        let (pbx, pbx_rest) = out_groups(pb0, groups);
        let (pby, pby_rest) = out_groups(pb1, groups);
        (
            Out2 {
                kind,
                s,
                t,
                s_end,
                t_end,
                point_a: [pax, pay],
                point_b: [pbx, pby],
                dist2,
                flags,
            },
            Out2 {
                kind: kind_rest,
                s: s_rest,
                t: t_rest,
                s_end: s_end_rest,
                t_end: t_end_rest,
                point_a: [pax_rest, pay_rest],
                point_b: [pbx_rest, pby_rest],
                dist2: dist2_rest,
                flags: flags_rest,
            },
        )
    }
}

/// Output columns as whole groups: what the loop stores to.
struct Out2<'a> {
    kind: &'a mut [[Crossing; LANES]],
    s: &'a mut [[f32; LANES]],
    t: &'a mut [[f32; LANES]],
    s_end: &'a mut [[f32; LANES]],
    t_end: &'a mut [[f32; LANES]],
    point_a: [&'a mut [[f32; LANES]]; 2],
    point_b: [&'a mut [[f32; LANES]]; 2],
    dist2: &'a mut [[f32; LANES]],
    flags: &'a mut [[MotionFlags; LANES]],
}

impl Out2<'_> {
    /// Every column cut to exactly `groups` groups (each holds at least that many), so that
    /// a loop over `0..groups` in the same function stores without bounds checks.
    #[inline(always)]
    fn cut(&mut self, groups: usize) -> Out2<'_> {
        let [pax, pay] = &mut self.point_a;
        let [pbx, pby] = &mut self.point_b;
        Out2 {
            kind: &mut self.kind[..groups],
            s: &mut self.s[..groups],
            t: &mut self.t[..groups],
            s_end: &mut self.s_end[..groups],
            t_end: &mut self.t_end[..groups],
            point_a: [&mut pax[..groups], &mut pay[..groups]],
            point_b: [&mut pbx[..groups], &mut pby[..groups]],
            dist2: &mut self.dist2[..groups],
            flags: &mut self.flags[..groups],
        }
    }

    /// Stores group `g`.
    #[inline(always)]
    fn store(&mut self, g: usize, lanes: &Lanes2) {
        self.s[g] = lanes.s.to_array();
        self.t[g] = lanes.t.to_array();
        self.s_end[g] = lanes.s_end.to_array();
        self.t_end[g] = lanes.t_end.to_array();
        self.dist2[g] = lanes.dist2.to_array();
        self.point_a[0][g] = lanes.point_a.x.to_array();
        self.point_a[1][g] = lanes.point_a.y.to_array();
        self.point_b[0][g] = lanes.point_b.x.to_array();
        self.point_b[1][g] = lanes.point_b.y.to_array();
        self.kind[g] = lanes.kind.to_array().map(|k| match k as u8 {
            1 => Crossing::Point,
            2 => Crossing::Overlap,
            _ => Crossing::Disjoint,
        });
        self.flags[g] = flags8(lanes.flags);
    }
}

/// The four points of group `g` (columns `a0 a1 b0 b1`, x y each).
#[inline(always)]
fn points2(c: [f32x8; 8]) -> (V2, V2, V2, V2) {
    let v2 = |k: usize| V2 {
        x: c[k],
        y: c[k + 1],
    };
    (v2(0), v2(2), v2(4), v2(6))
}

/// One group through the masked path, out of line so the common loop stays lean (the
/// caller stores the result: handing it the output columns would let it replace them, and
/// the loop would check bounds again).
#[inline(never)]
fn masked_group(cols: &[&[[f32; LANES]]; 8], g: usize) -> Lanes2 {
    let (a0, a1, b0, b1) = points2(load(cols, g));
    intersect8(a0, a1, b0, b1)
}

/// Intersection (or closest points) of `a[i]` and `b[i]` for every `i` (batched twin of
/// [`intersect2_scalar`], bit-identical to it).
///
/// # Panics
/// When `a` and `b` differ in length; [`try_intersect2_into`] returns an error instead.
///
/// ```
/// use segbatch::motion::{intersect2, Crossing, Segment2, Segments2};
/// let a = Segments2::from(&[
///     Segment2::new([4.0, 7.0], [16.0, 3.0]),
///     Segment2::new([0.0, 0.0], [2.0, 0.0]),
/// ][..]);
/// let b = Segments2::from(&[
///     Segment2::new([1.0, 1.0], [17.0, 5.0]),
///     Segment2::new([1.0, 0.0], [3.0, 0.0]), // collinear, overlapping on [1, 2]
/// ][..]);
/// let out = intersect2(&a, &b);
/// assert_eq!(out.kind(), &[Crossing::Point, Crossing::Overlap]);
/// assert_eq!(out.get(0).point_a, [13.0, 4.0]);
/// assert_eq!((out.s()[1], out.s_end()[1]), (0.5, 1.0));
/// ```
#[must_use]
pub fn intersect2<'a, 'b>(
    a: impl Into<Segments2View<'a>>,
    b: impl Into<Segments2View<'b>>,
) -> Intersections2 {
    let mut out = Intersections2::new();
    intersect2_into(a, b, &mut out);
    out
}

/// Like [`intersect2`], writing into `out` and reusing its buffers.
///
/// # Panics
/// When `a` and `b` differ in length; [`try_intersect2_into`] returns an error instead.
///
/// ```
/// use segbatch::motion::{intersect2_into, Crossing, Intersections2, Segment2, Segments2};
/// let a = Segments2::from(&[Segment2::new([0.0, 0.0], [1.0, 0.0])][..]);
/// let b = Segments2::from(&[Segment2::new([0.5, 1.0], [0.5, 3.0])][..]);
/// let mut out = Intersections2::new();
/// intersect2_into(&a, &b, &mut out);
/// assert_eq!(out.kind(), &[Crossing::Disjoint]);
/// assert_eq!((out.s()[0], out.t()[0], out.dist2()[0]), (0.5, 0.0, 1.0));
/// ```
pub fn intersect2_into<'a, 'b>(
    a: impl Into<Segments2View<'a>>,
    b: impl Into<Segments2View<'b>>,
    out: &mut Intersections2,
) {
    if let Err(e) = try_intersect2_into(a, b, out) {
        panic!("segbatch: {e}");
    }
}

/// Like [`intersect2_into`], but an error instead of a panic when the lengths differ
/// (`out` is then left unchanged).
///
/// # Errors
/// [`BatchError::LengthMismatch`].
///
/// ```
/// use segbatch::motion::{try_intersect2_into, Intersections2, Segment2, Segments2};
/// let a = Segments2::from(&[Segment2::default()][..]);
/// let mut out = Intersections2::new();
/// assert!(try_intersect2_into(&a, &Segments2::new(), &mut out).is_err());
/// ```
pub fn try_intersect2_into<'a, 'b>(
    a: impl Into<Segments2View<'a>>,
    b: impl Into<Segments2View<'b>>,
    out: &mut Intersections2,
) -> Result<(), BatchError> {
    let (a, b) = (a.into(), b.into());
    check_len("2D batches a and b", a.len(), b.len())?;
    let n = a.len();
    out.reset(n);
    let cols: [&[f32]; 8] = core::array::from_fn(|k| if k < 4 { a.cols[k] } else { b.cols[k - 4] });
    let input = in_groups(cols, n);
    let groups = input.groups;
    let (mut main, mut rest) = out.split_groups(groups);
    {
        // Columns cut here, in the loop's function, so the loop has no bounds checks.
        let cols: [&[[f32; LANES]]; 8] = core::array::from_fn(|c| &input.cols[c][..groups]);
        let mut main = main.cut(groups);
        for g in 0..groups {
            let (a0, a1, b0, b1) = points2(load(&cols, g));
            match intersect8_general(a0, a1, b0, b1) {
                Some((lanes, point)) => {
                    main.s[g] = lanes.s.to_array();
                    main.t[g] = lanes.t.to_array();
                    main.s_end[g] = lanes.s_end.to_array();
                    main.t_end[g] = lanes.t_end.to_array();
                    main.dist2[g] = lanes.dist2.to_array();
                    main.point_a[0][g] = lanes.point_a.x.to_array();
                    main.point_a[1][g] = lanes.point_a.y.to_array();
                    main.point_b[0][g] = lanes.point_b.x.to_array();
                    main.point_b[1][g] = lanes.point_b.y.to_array();
                    // `Point` (1) or `Disjoint` (0), straight from the mask; no flags.
                    main.kind[g] = mask_bytes(point).to_le_bytes().map(|k| {
                        if k == 0 {
                            Crossing::Disjoint
                        } else {
                            Crossing::Point
                        }
                    });
                    main.flags[g] = [MotionFlags::NONE; LANES];
                }
                None => main.store(g, &masked_group(&cols, g)),
            }
        }
    }
    if let Some(tail) = &input.tail {
        let cols = core::array::from_fn(|c| core::slice::from_ref(&tail[c]));
        rest.store(0, &masked_group(&cols, 0));
    }
    Ok(())
}
