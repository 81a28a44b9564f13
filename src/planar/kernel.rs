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
//! 0. **Range**: a finite pair whose largest coordinate magnitude lies outside
//!    `[2^-16, 2^28]` (where a product of four lengths could over- or underflow, up to the
//!    whole finite f32 range) is solved scaled by the power of two that brings it into
//!    `[1, 2)`, and its points and squared distance scaled back. Scaling by a power of two
//!    commutes with rounding, so this rescues such pairs without touching any other; the
//!    meeting test (step 5) is exact on the given points at any magnitude. The kernel hands
//!    these rare lanes to the reference one by one.
//! 1. **Non-finite** input (a NaN or infinite coordinate): NaN outputs,
//!    [MotionFlags::NON_FINITE], [`Crossing::Disjoint`].
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
//! 5. **Meeting** is decided **exactly** for the given `f32` end points: two closed
//!    segments meet when each one's end points lie on both sides of the other's line, or
//!    when an end point of one lies on the other (the textbook test, as GEOS and Shewchuk
//!    do it), with every orientation `(q - p) × (r - p)` signed exactly ([`orient`]:
//!    Shewchuk's adaptive predicate from the `robust` crate). A pair that does not touch is
//!    never reported as meeting and a pair that touches is never missed, wherever it lies:
//!    at UTM or ECEF coordinates no tolerance of the coordinates' magnitude decides it. A
//!    meeting pair that is exactly collinear, both sides of positive length (`|dA|²` and
//!    `|dB|²` above zero), is a [`Crossing::Overlap`] (flagged parallel and collinear); any other meeting pair is
//!    a [`Crossing::Point`] with the closest-point `s`, `t` of step 4 (in the
//!    well-conditioned case the parametric values: the tutorial's 3/4 and 3/4 exactly,
//!    distance 0). The position of a crossing along nearly parallel lines is
//!    ill-conditioned (`ε·|r| / sin(angle)`); the closest points keep their accuracy bound
//!    there, and the decision does not depend on them.
//!
//!    The kernel signs the four orientations in `f32` lanes first with a forward error
//!    bound (`|det| > 4·ε·(|l| + |r|) + MIN_POSITIVE`, twice the worst rounding of the
//!    two products and the difference; overflow and underflow fail it): a lane where all
//!    four are certain and settle the question (a proper crossing, or both ends of one side
//!    strictly on one side of the other's line) is decided there; the few others (touching,
//!    collinear, nearly so, or beyond the filter's range) go to [`meet_exact`] one by one,
//!    the reference's own test. An exact answer is unique, so the twins agree bit for bit.
//!
//! `dist2` is always the computed closest squared distance (0, or a rounding residue, for a
//! `Point` or an `Overlap`).
//! There are no absolute epsilons: every tolerance is relative to the inputs' own scale.

use super::types::sealed::Plane;
use super::types::{Crossing, Intersection2, Segment2};
use crate::columns::LANES;
use crate::lanes::{Twin, V2, bits8, bytes8, clamp8, cross2x8, dot2x8, mask_bytes, probe8, sub2x8};
use crate::motion::types::MotionFlags;
use crate::real::{clamp, fma, fms, fnma, max_ps, min_ps, probe};
use wide::{f32x8, u32x8};

/// The largest coordinate magnitude of a pair solved as given by the `f32` lanes (the
/// reference's [`Plane::SOLVE_HI`] for `f32`).
const RANGE_HI: f32 = <f32 as Plane>::SOLVE_HI;
/// The smallest.
const RANGE_LO: f32 = <f32 as Plane>::SOLVE_LO;

/// Above this magnitude an orientation is scaled first ([`orient`]): `2^500`.
const ORIENT_HI: f64 = 3.273_390_607_896_142e150;
/// Below it too: `2^-500`.
const ORIENT_LO: f64 = 3.054_936_363_499_605e-151;

/// Degenerate length, relative to the side's coordinates (as `Tolerance::DEFAULT`).
const LENGTH_REL: f32 = <f32 as Plane>::LENGTH_REL;
/// Sine of the largest angle treated as parallel (as `Tolerance::DEFAULT`).
const PARALLEL_SIN: f32 = <f32 as Plane>::PARALLEL_SIN;
/// Distance from B0 to A's line below which a parallel pair is flagged collinear, relative
/// to the largest coordinate (a flag only: meeting is decided exactly).
const ON_LINE_REL: f32 = <f32 as Plane>::ON_LINE_REL;

// ---------------------------------------------------------------------------------------
// Scalar reference, one body for `f32` and `f64`.

#[inline(always)]
fn sub2<E: Plane>(u: [E; 2], v: [E; 2]) -> [E; 2] {
    [u[0] - v[0], u[1] - v[1]]
}

/// `u·v` as `fma(u.x, v.x, u.y·v.y)`.
#[inline(always)]
fn dot2<E: Plane>(u: [E; 2], v: [E; 2]) -> E {
    fma(u[0], v[0], u[1] * v[1])
}

/// `u × v = u.x·v.y - u.y·v.x` as one product and one fused product.
#[inline(always)]
fn cross2<E: Plane>(u: [E; 2], v: [E; 2]) -> E {
    fms(u[0], v[1], u[1] * v[0])
}

/// The exact sign of `(q - p) × (r - p)`: `1` when `r` lies to the left of `p → q`, `-1`
/// to the right, `0` on the line (Shewchuk's adaptive `orient2d` in `f64`).
///
/// Shewchuk's arithmetic is exact while its products neither overflow nor underflow:
/// always for `f32` points (exponents within ±149, products within ±600 in `f64`). An
/// `f64` triple whose largest coordinate is beyond `2^±500` is first scaled by the power of
/// two that brings it to `[1, 2)`, which changes no sign; such a triple is exact unless one
/// of its coordinates is so much smaller (by `2^900` and more) that it underflows.
#[inline]
pub(crate) fn orient<E: Plane>(p: [E; 2], q: [E; 2], r: [E; 2]) -> i8 {
    let v: [f64; 6] = [p[0], p[1], q[0], q[1], r[0], r[1]].map(Into::into);
    let m = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let v = if m > ORIENT_HI || (m < ORIENT_LO && m > 0.0) {
        let e = m.exponent();
        v.map(|x| x.shift(-e))
    } else {
        v
    };
    let c = |k: usize| robust::Coord {
        x: v[k],
        y: v[k + 1],
    };
    let d: f64 = robust::orient2d(c(0), c(2), c(4));
    if d > 0.0 {
        1
    } else if d < 0.0 {
        -1
    } else {
        0
    }
}

/// Whether the closed segments `[a0, a1]` and `[b0, b1]` (finite end points) share a point,
/// and whether they are then exactly collinear (all four orientations zero), decided
/// exactly: the reference's meeting test and the kernel's fallback for the lanes its
/// filter cannot sign.
pub(crate) fn meet_exact<E: Plane>(a0: [E; 2], a1: [E; 2], b0: [E; 2], b1: [E; 2]) -> (bool, bool) {
    let (o1, o2) = (orient(a0, a1, b0), orient(a0, a1, b1));
    let (o3, o4) = (orient(b0, b1, a0), orient(b0, b1, a1));
    if o1 * o2 < 0 && o3 * o4 < 0 {
        return (true, false);
    }
    // `x` (on the line through `p` and `q`) lies within the segment: within its box.
    let within = |p: [E; 2], q: [E; 2], x: [E; 2]| {
        (0..2).all(|k| min_ps(p[k], q[k]) <= x[k] && x[k] <= max_ps(p[k], q[k]))
    };
    let meet = (o1 == 0 && within(a0, a1, b0))
        || (o2 == 0 && within(a0, a1, b1))
        || (o3 == 0 && within(b0, b1, a0))
        || (o4 == 0 && within(b0, b1, a1));
    (meet, meet && o1 == 0 && o2 == 0 && o3 == 0 && o4 == 0)
}

/// The scalar reference for one pair ([`crate::reference::intersect2`], in either
/// precision).
pub(crate) fn intersect2_pair<E: Plane>(a: &E::Segment, b: &E::Segment) -> Intersection2<E> {
    let ([a_p0, a_p1], [b_p0, b_p1]): ([[E; 2]; 2], [[E; 2]; 2]) = ((*a).into(), (*b).into());
    let coords = [a_p0, a_p1, b_p0, b_p1];
    // 1. Non-finite.
    if probe(coords.as_flattened()) {
        return Intersection2::NON_FINITE;
    }
    // Meeting, decided exactly on the given points (module docs, step 5).
    let meet = meet_exact(a_p0, a_p1, b_p0, b_p1);
    let m = coords
        .as_flattened()
        .iter()
        .fold(E::ZERO, |m, &x| max_ps(m, x.abs()));
    if m == E::ZERO || (E::SOLVE_LO <= m && m <= E::SOLVE_HI) {
        return solve2(coords, meet);
    }
    // Out of range: solved at the scale 2^-e that brings the largest coordinate into
    // [1, 2), then scaled back (exact shifts; a squared distance beyond the type's range
    // saturates to +inf or 0).
    let e = m.exponent();
    let x = solve2(coords.map(|p| p.map(|v| v.shift(-e))), meet);
    Intersection2 {
        point_a: x.point_a.map(|v| v.shift(e)),
        point_b: x.point_b.map(|v| v.shift(e)),
        dist2: x.dist2.shift(2 * e),
        ..x
    }
}

/// [`intersect2_pair`] for a finite pair in range (end points `a0 a1 b0 b1`), with its
/// exact meeting test `meet`.
fn solve2<E: Plane>(
    [a0, a1, b0, b1]: [[E; 2]; 4],
    (meet, exactly_collinear): (bool, bool),
) -> Intersection2<E> {
    let (zero, one) = (E::ZERO, E::ONE);
    let d_a = sub2(a1, a0);
    let d_b = sub2(b1, b0);
    let r = sub2(a0, b0);

    let a_ = dot2(d_a, d_a);
    let e = dot2(d_b, d_b);
    let b_ = dot2(d_a, d_b);
    let c = dot2(d_a, r);
    let f = dot2(d_b, r);

    // 2. Degenerate, 3. parallel and collinear.
    let scale2_a = max_ps(dot2(a0, a0), dot2(a1, a1));
    let scale2_b = max_ps(dot2(b0, b0), dot2(b1, b1));
    let scale2 = max_ps(scale2_a, scale2_b);
    let degenerate_a = a_ <= (E::LENGTH_REL * E::LENGTH_REL) * scale2_a;
    let degenerate_b = e <= (E::LENGTH_REL * E::LENGTH_REL) * scale2_b;
    let degenerate = degenerate_a || degenerate_b;
    let denom = cross2(d_a, d_b);
    let s_num = cross2(d_b, r);
    let t_num = cross2(d_a, r);
    let parallel = !degenerate && denom * denom <= (E::PARALLEL_SIN * E::PARALLEL_SIN) * (a_ * e);
    let collinear = parallel && t_num * t_num <= (E::ON_LINE_REL * E::ON_LINE_REL) * (a_ * scale2);

    // B's projection onto A (used when parallel).
    let s_b0 = -c / a_;
    let k = b_ / a_;
    let s_b1 = k + s_b0;
    let lo = max_ps(zero, min_ps(s_b0, s_b1));
    let hi = min_ps(one, max_ps(s_b0, s_b1));

    let overlap = meet && exactly_collinear && a_ > zero && e > zero;

    // 4. The parametric solution (the tutorial's s), the first estimate below.
    let s_cross = s_num / denom;

    // 5. Closest points, as the 3D reference.
    let s_first = if degenerate {
        zero
    } else if parallel {
        (lo + hi) * E::HALF
    } else {
        s_cross
    };
    let s = clamp(s_first, zero, one);
    let t = if degenerate_b {
        zero
    } else {
        clamp(fma(b_, s, f) / e, zero, one)
    };
    let s = if degenerate_a {
        zero
    } else {
        clamp(fms(b_, t, c) / a_, zero, one)
    };
    let v = [
        fnma(t, d_b[0], fma(s, d_a[0], r[0])),
        fnma(t, d_b[1], fma(s, d_a[1], r[1])),
    ];
    let dist2 = dot2(v, v);
    let point = meet && !overlap;

    // The overlap's ends on A, in order even where rounding put the projection of an end
    // that touches A's end a hair beyond it, and on B.
    let (lo, hi) = (
        clamp(min_ps(lo, hi), zero, one),
        clamp(max_ps(lo, hi), zero, one),
    );
    let t_lo = clamp(fma(b_, lo, f) / e, zero, one);
    let t_hi = clamp(fma(b_, hi, f) / e, zero, one);

    let (kind, s_out, t_out, s_end, t_end) = if point {
        (Crossing::Point, s, t, s, t)
    } else if overlap {
        (Crossing::Overlap, lo, t_lo, hi, t_hi)
    } else {
        (Crossing::Disjoint, s, t, s, t)
    };
    let mut flags = MotionFlags::empty();
    for (on, flag) in [
        (degenerate_a, MotionFlags::DEGENERATE_A),
        (degenerate_b, MotionFlags::DEGENERATE_B),
        (parallel || overlap, MotionFlags::PARALLEL),
        (collinear || overlap, MotionFlags::COLLINEAR),
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

// ---------------------------------------------------------------------------------------
// The 8-lane twin.

/// Eight results as stored.
pub(crate) struct Lanes2 {
    pub(crate) kind: [Crossing; LANES],
    pub(crate) s: f32x8,
    pub(crate) t: f32x8,
    pub(crate) s_end: f32x8,
    pub(crate) t_end: f32x8,
    pub(crate) point_a: V2,
    pub(crate) point_b: V2,
    pub(crate) dist2: f32x8,
    pub(crate) flags: [MotionFlags; LANES],
}

/// What both paths compute first: differences, the non-finite mask, the dot products,
/// the scale, the degenerate masks and `denom = dA × dB`.
struct Setup2 {
    d_a: V2,
    d_b: V2,
    r: V2,
    non_finite: f32x8,
    a_: f32x8,
    e: f32x8,
    b_: f32x8,
    c: f32x8,
    f: f32x8,
    /// The largest squared coordinate magnitude of the pair.
    scale2: f32x8,
    /// Finite lanes whose largest coordinate magnitude is outside the range solved as given
    /// (module docs, step 0).
    out_of_range: f32x8,
    degenerate_a: f32x8,
    degenerate_b: f32x8,
    denom: f32x8,
}

/// Steps 1 and 2 of [`intersect2_pair`], and the cross product step 3 tests.
#[inline(always)]
fn setup2(a0: V2, a1: V2, b0: V2, b1: V2) -> Setup2 {
    let d_a = sub2x8(a1, a0);
    let d_b = sub2x8(b1, b0);
    let r = sub2x8(a0, b0);
    let scale2_a = dot2x8(a0, a0).max_ps(dot2x8(a1, a1));
    let scale2_b = dot2x8(b0, b0).max_ps(dot2x8(b1, b1));
    let length_rel2 = f32x8::splat(LENGTH_REL * LENGTH_REL);
    let (a_, e) = (dot2x8(d_a, d_a), dot2x8(d_b, d_b));
    let coords = [a0.x, a0.y, a1.x, a1.y, b0.x, b0.y, b1.x, b1.y];
    let non_finite = probe8(&coords);
    let m = coords.iter().fold(f32x8::ZERO, |m, x| m.max_ps(x.abs()));
    let in_range = m.simd_ge(f32x8::splat(RANGE_LO)) & m.simd_le(f32x8::splat(RANGE_HI));
    Setup2 {
        d_a,
        d_b,
        r,
        non_finite,
        out_of_range: !(in_range | m.simd_eq(f32x8::ZERO) | non_finite),
        a_,
        e,
        b_: dot2x8(d_a, d_b),
        c: dot2x8(d_a, r),
        f: dot2x8(d_b, r),
        scale2: scale2_a.max_ps(scale2_b),
        degenerate_a: a_.simd_le(length_rel2 * scale2_a),
        degenerate_b: e.simd_le(length_rel2 * scale2_b),
        denom: cross2x8(d_a, d_b),
    }
}

/// Forward error bound of [`orient8`]'s `f32` determinant, relative to `|l| + |r|`: the
/// two differences, the two products and their difference round at most `4·u` (`u = ε/2`)
/// in all; twice that.
const ORIENT_REL: f32 = 4.0 * f32::EPSILON;

/// The orientation of `r` about `p → q` in eight lanes, where an `f32` evaluation can sign
/// it for certain: the masks `(left, right)` of the lanes whose determinant exceeds its
/// error bound ([`ORIENT_REL`], plus `MIN_POSITIVE` for products in the subnormal range;
/// an overflow or a NaN fails both comparisons). A lane in neither is left to [`orient`].
#[inline(always)]
fn orient8(p: V2, q: V2, r: V2) -> (f32x8, f32x8) {
    let (u, w) = (sub2x8(q, p), sub2x8(r, p));
    let (l, rr) = (u.x * w.y, u.y * w.x);
    let det = l - rr;
    let bound = f32x8::splat(ORIENT_REL).fma(l.abs() + rr.abs(), f32x8::splat(f32::MIN_POSITIVE));
    (det.simd_gt(bound), det.simd_lt(-bound))
}

/// [`meet_exact`] for eight pairs: the masks `(meet, exactly collinear)`. The filter of
/// [`orient8`] decides the lanes whose four orientations are all certain and settle it (a
/// proper crossing, or one side's ends strictly on one side of the other's line); the
/// others, but those in `skip`, go to [`meet_exact`] one by one.
#[inline(always)]
fn meet8(a0: V2, a1: V2, b0: V2, b1: V2, skip: f32x8) -> (f32x8, f32x8) {
    let (l1, r1) = orient8(a0, a1, b0);
    let (l2, r2) = orient8(a0, a1, b1);
    let (l3, r3) = orient8(b0, b1, a0);
    let (l4, r4) = orient8(b0, b1, a1);
    let cross = ((l1 & r2) | (r1 & l2)) & ((l3 & r4) | (r3 & l4));
    let apart = (l1 & l2) | (r1 & r2) | (l3 & l4) | (r3 & r4);
    let open = !(cross | apart | skip);
    if open.any() {
        meet8_exact(open, cross, [a0, a1, b0, b1])
    } else {
        (cross, f32x8::ZERO)
    }
}

/// The lanes of `open` decided by [`meet_exact`]; `cross` holds the others' answers.
#[inline(never)]
#[cold]
fn meet8_exact(open: f32x8, cross: f32x8, points: [V2; 4]) -> (f32x8, f32x8) {
    let [a0, a1, b0, b1] = points.map(|v| (v.x.to_array(), v.y.to_array()));
    let open = open.to_bitmask();
    let mut meet = bytemuck::cast::<f32x8, [u32; LANES]>(cross);
    let mut collinear = [0u32; LANES];
    for k in (0..LANES).filter(|&k| open >> k & 1 == 1) {
        let at = |(x, y): ([f32; LANES], [f32; LANES])| [x[k], y[k]];
        let (m, c) = meet_exact(at(a0), at(a1), at(b0), at(b1));
        meet[k] = if m { u32::MAX } else { 0 };
        collinear[k] = if c { u32::MAX } else { 0 };
    }
    (bytemuck::cast(meet), bytemuck::cast(collinear))
}

/// The common case: `None` unless every lane is finite, has no degenerate side, is not
/// parallel and is not an exactly collinear meeting, in which case every `select` of
/// [`intersect8`] would return its last operand (no overlap, the parametric first estimate)
/// and the overlap interval is never used: the same results bit for bit, with three
/// divisions instead of seven. Callers handle `None` out of line.
#[inline(always)]
pub(crate) fn intersect8_general(a0: V2, a1: V2, b0: V2, b1: V2) -> Option<Lanes2> {
    let (zero, one) = (f32x8::ZERO, f32x8::ONE);
    let first = setup2(a0, a1, b0, b1);
    let Setup2 {
        d_a,
        d_b,
        r,
        a_,
        e,
        b_,
        c,
        f,
        denom,
        ..
    } = first;
    let parallel_or_degenerate =
        (denom * denom).simd_le(f32x8::splat(PARALLEL_SIN * PARALLEL_SIN) * (a_ * e));
    let degenerate = first.degenerate_a | first.degenerate_b;
    if (first.non_finite | first.out_of_range | degenerate | parallel_or_degenerate).any() {
        return None;
    }
    let s_num = cross2x8(d_b, r);
    let s = clamp8(s_num / denom, zero, one);
    let t = clamp8(b_.fma(s, f) / e, zero, one);
    let s = clamp8(b_.fms(t, c) / a_, zero, one);
    let v = V2 {
        x: t.fnma(d_b.x, s.fma(d_a.x, r.x)),
        y: t.fnma(d_b.y, s.fma(d_a.y, r.y)),
    };
    let dist2 = dot2x8(v, v);
    let (point, exactly_collinear) = meet8(a0, a1, b0, b1, f32x8::ZERO);
    if exactly_collinear.any() {
        // An overlap, for the masked path.
        return None;
    }
    Some(Lanes2 {
        // `Point` (1) or `Disjoint` (0), straight from the mask; no flags.
        kind: mask_bytes(point).to_le_bytes().map(|k| {
            if k == 0 {
                Crossing::Disjoint
            } else {
                Crossing::Point
            }
        }),
        s,
        t,
        s_end: s,
        t_end: t,
        point_a: V2 {
            x: s.fma(d_a.x, a0.x),
            y: s.fma(d_a.y, a0.y),
        },
        point_b: V2 {
            x: t.fma(d_b.x, b0.x),
            y: t.fma(d_b.y, b0.y),
        },
        dist2,
        flags: [MotionFlags::empty(); LANES],
    })
}

/// The twin of [`intersect2_pair`] for eight pairs.
#[inline(always)]
pub(crate) fn intersect8(a0: V2, a1: V2, b0: V2, b1: V2) -> Lanes2 {
    let zero = f32x8::ZERO;
    let one = f32x8::ONE;
    // 1. Non-finite, 2. degenerate (and what 3. needs).
    let Setup2 {
        d_a,
        d_b,
        r,
        non_finite,
        a_,
        e,
        b_,
        c,
        f,
        scale2,
        out_of_range,
        degenerate_a,
        degenerate_b,
        denom,
    } = setup2(a0, a1, b0, b1);
    let degenerate = degenerate_a | degenerate_b;
    // 3. Parallel and collinear.
    let on_line_rel2 = f32x8::splat(ON_LINE_REL * ON_LINE_REL);
    let s_num = cross2x8(d_b, r);
    let t_num = cross2x8(d_a, r);
    let parallel =
        !degenerate & (denom * denom).simd_le(f32x8::splat(PARALLEL_SIN * PARALLEL_SIN) * (a_ * e));
    let collinear = parallel & (t_num * t_num).simd_le(on_line_rel2 * (a_ * scale2));

    // Divisors that may be zero in lanes which will not use the quotient. The overlap's
    // lanes (exactly collinear, `a_ > 0`, `e > 0`) divide by the true squared lengths, which
    // a side too short to carry a direction by the tolerance may still have.
    let a_safe = degenerate_a.select(one, a_);
    let e_safe = degenerate_b.select(one, e);
    let a_overlap = a_.simd_gt(zero).select(a_, one);
    let e_overlap = e.simd_gt(zero).select(e, one);
    let denom_safe = (degenerate | parallel).select(one, denom);

    // B's projection onto A.
    let s_b0 = -c / a_overlap;
    let k = b_ / a_overlap;
    let s_b1 = k + s_b0;
    let lo = zero.max_ps(s_b0.min_ps(s_b1));
    let hi = one.min_ps(s_b0.max_ps(s_b1));

    // Meeting, decided exactly (module docs, step 5).
    let (meet, exactly_collinear) = meet8(a0, a1, b0, b1, non_finite | out_of_range);
    let overlap = meet & exactly_collinear & a_.simd_gt(zero) & e.simd_gt(zero);

    // 4. The parametric solution.
    let s_cross = s_num / denom_safe;

    // 5. Closest points.
    let s_first = degenerate.select(zero, parallel.select((lo + hi) * f32x8::HALF, s_cross));
    let s = clamp8(s_first, zero, one);
    let t = degenerate_b.select(zero, clamp8(b_.fma(s, f) / e_safe, zero, one));
    let s = degenerate_a.select(zero, clamp8(b_.fms(t, c) / a_safe, zero, one));
    let v = V2 {
        x: t.fnma(d_b.x, s.fma(d_a.x, r.x)),
        y: t.fnma(d_b.y, s.fma(d_a.y, r.y)),
    };
    let dist2 = dot2x8(v, v);
    let point = meet & !overlap;

    // The overlap's ends, in order (as the reference).
    let (lo, hi) = (
        clamp8(lo.min_ps(hi), zero, one),
        clamp8(lo.max_ps(hi), zero, one),
    );
    let t_lo = clamp8(b_.fma(lo, f) / e_overlap, zero, one);
    let t_hi = clamp8(b_.fma(hi, f) / e_overlap, zero, one);

    let kind = (point.to_bits() & u32x8::splat(Crossing::Point as u32))
        | (overlap.to_bits() & u32x8::splat(Crossing::Overlap as u32));
    // `point` and `overlap` exclude each other.
    let s_out = overlap.select(lo, s);
    let t_out = overlap.select(t_lo, t);
    let s_end = overlap.select(hi, s_out);
    let t_end = overlap.select(t_hi, t_out);
    let flags = bits8(degenerate_a, MotionFlags::DEGENERATE_A.bits())
        | bits8(degenerate_b, MotionFlags::DEGENERATE_B.bits())
        | bits8(parallel | overlap, MotionFlags::PARALLEL.bits())
        | bits8(collinear | overlap, MotionFlags::COLLINEAR.bits());
    let point_a = V2 {
        x: s_out.fma(d_a.x, a0.x),
        y: s_out.fma(d_a.y, a0.y),
    };
    let point_b = V2 {
        x: t_out.fma(d_b.x, b0.x),
        y: t_out.fma(d_b.y, b0.y),
    };
    let (kind, flags, [s_out, t_out, s_end, t_end, dist2], point_a, point_b) = if non_finite.any() {
        let nan = f32x8::splat(f32::NAN);
        let blank = |x: f32x8| non_finite.select(nan, x);
        (
            !non_finite.to_bits() & kind,
            non_finite.select(
                u32x8::splat(u32::from(MotionFlags::NON_FINITE.bits())),
                flags,
            ),
            [s_out, t_out, s_end, t_end, dist2].map(blank),
            point_a.map(blank),
            point_b.map(blank),
        )
    } else {
        (
            kind,
            flags,
            [s_out, t_out, s_end, t_end, dist2],
            point_a,
            point_b,
        )
    };
    let lanes = Lanes2 {
        kind: bytes8(kind, |k| match k {
            1 => Crossing::Point,
            2 => Crossing::Overlap,
            _ => Crossing::Disjoint,
        }),
        s: s_out,
        t: t_out,
        s_end,
        t_end,
        point_a,
        point_b,
        dist2,
        flags: bytes8(flags, MotionFlags::from_bits_truncate),
    };
    if out_of_range.any() {
        range_lanes(lanes, out_of_range, [a0, a1, b0, b1])
    } else {
        lanes
    }
}

/// `lanes` with the lanes of `out_of_range` replaced by the reference's answers (module
/// docs, step 0: such pairs are rare, and the reference's scaling is their definition).
#[inline(never)]
#[cold]
fn range_lanes(lanes: Lanes2, out_of_range: f32x8, points: [V2; 4]) -> Lanes2 {
    let [a0, a1, b0, b1] = points.map(|v| (v.x.to_array(), v.y.to_array()));
    let Lanes2 {
        mut kind,
        mut flags,
        ..
    } = lanes;
    let mut cols = [
        lanes.s,
        lanes.t,
        lanes.s_end,
        lanes.t_end,
        lanes.point_a.x,
        lanes.point_a.y,
        lanes.point_b.x,
        lanes.point_b.y,
        lanes.dist2,
    ]
    .map(|v| v.to_array());
    let bits = out_of_range.to_bitmask();
    for k in (0..LANES).filter(|&k| bits >> k & 1 == 1) {
        let at = |(x, y): ([f32; LANES], [f32; LANES])| [x[k], y[k]];
        let x = intersect2_pair::<f32>(
            &Segment2::new(at(a0), at(a1)),
            &Segment2::new(at(b0), at(b1)),
        );
        let values = [
            x.s,
            x.t,
            x.s_end,
            x.t_end,
            x.point_a[0],
            x.point_a[1],
            x.point_b[0],
            x.point_b[1],
            x.dist2,
        ];
        for (col, v) in cols.iter_mut().zip(values) {
            col[k] = v;
        }
        kind[k] = x.kind;
        flags[k] = x.flags;
    }
    let [s, t, s_end, t_end, pax, pay, pbx, pby, dist2] = cols.map(f32x8::from);
    Lanes2 {
        kind,
        s,
        t,
        s_end,
        t_end,
        point_a: V2 { x: pax, y: pay },
        point_b: V2 { x: pbx, y: pby },
        dist2,
        flags,
    }
}
