//! Shared test support: an independent f64 oracle, error units, adversarial proptest
//! strategies and approximate asserts.
//!
//! Include it from any integration test with `mod common;` (or from an example with
//! `#[path = "../tests/common/mod.rs"] mod common;`). Not every user needs every item, hence
//! the `dead_code` allowance.
//!
//! # The oracle
//!
//! [`oracle`] works in f64 on the *given* f32 end points (converted exactly) and is written to
//! be obviously correct rather than fast. The squared distance `|r + s·dA - t·dB|²` is a
//! convex function of `(s, t)` over the product of the two extents, so its minimum is either
//! the interior stationary point (when it lies inside both extents) or on the boundary of the
//! region, where one parameter sits at an end point of its extent and the other is free:
//! a point-to-side distance. The oracle takes the minimum of
//!
//! * the distance from each *existing* end point (A0 for rays and segments, A1 for segments
//!   only; the same for B) to the other side with its extent, and
//! * the interior solution from Goldman's triple products
//!   `s = ((B0 - A0) × dB)·n / n·n`, `t = ((B0 - A0) × dA)·n / n·n`, `n = dA × dB`,
//!   when `n ≠ 0` and `(s, t)` lies in both extents; its distance is `|r·n| / |n|`;
//! * for two (exactly) parallel lines, which have no end point and no isolated minimum, the
//!   distance from A0 to line B.
//!
//! A side of zero length is a point (its first end point) whatever its extent.
//!
//! Precision: f32 → f64 is exact, and so is the difference of two f32 coordinates whose
//! exponents differ by less than 29 (every case the strategies below build except extreme
//! mixes). Every cross product is formed with Kahan's fused difference of products, so each
//! component of `n` is accurate to a few f64 ulps *of itself*, even when `dA` and `dB` are
//! parallel to 1e-15: the direction of `n`, and therefore `|r·n|/|n|`, keeps its accuracy
//! near parallel. The oracle's error is then about `1e-15·S`, eight orders of magnitude
//! below the `8·f32::EPSILON·S` bar the tests check.

#![allow(dead_code)]

use proptest::prelude::*;
use segbatch::{Extent, Segment};

/// A point or vector in f64.
pub type V3 = [f64; 3];

/// `f32::EPSILON` in f64.
pub const EPS32: f64 = f32::EPSILON as f64;

// ---------------------------------------------------------------------------------------
// f64 vector helpers
// ---------------------------------------------------------------------------------------

/// Exact f32 → f64 conversion of a point.
#[must_use]
pub fn to64(p: [f32; 3]) -> V3 {
    [p[0] as f64, p[1] as f64, p[2] as f64]
}

/// `u - v`.
#[must_use]
pub fn sub(u: V3, v: V3) -> V3 {
    [u[0] - v[0], u[1] - v[1], u[2] - v[2]]
}

/// `u + k·v`.
#[must_use]
pub fn add_scaled(u: V3, k: f64, v: V3) -> V3 {
    [u[0] + k * v[0], u[1] + k * v[1], u[2] + k * v[2]]
}

/// `u·v`.
#[must_use]
pub fn dot(u: V3, v: V3) -> f64 {
    u[0] * v[0] + u[1] * v[1] + u[2] * v[2]
}

/// `|u|`.
#[must_use]
pub fn norm(u: V3) -> f64 {
    dot(u, u).sqrt()
}

/// `a·b - c·d` with Kahan's algorithm: accurate to about 1.5 ulp of the *result*, however
/// much the two products cancel.
#[must_use]
pub fn diff_of_products(a: f64, b: f64, c: f64, d: f64) -> f64 {
    let w = c * d;
    let err = (-c).mul_add(d, w); // w - c·d, exactly
    let f = a.mul_add(b, -w); // a·b - w, rounded once
    f + err
}

/// `u × v`, each component by [`diff_of_products`].
#[must_use]
pub fn cross(u: V3, v: V3) -> V3 {
    [
        diff_of_products(u[1], v[2], u[2], v[1]),
        diff_of_products(u[2], v[0], u[0], v[2]),
        diff_of_products(u[0], v[1], u[1], v[0]),
    ]
}

/// The parameter range of an extent in f64.
#[must_use]
pub fn bounds(ext: Extent) -> (f64, f64) {
    let (lo, hi) = ext.bounds();
    (lo as f64, hi as f64)
}

/// True when `u` lies in the extent's parameter range.
#[must_use]
pub fn in_extent(u: f64, ext: Extent) -> bool {
    let (lo, hi) = bounds(ext);
    (lo..=hi).contains(&u)
}

// ---------------------------------------------------------------------------------------
// The oracle
// ---------------------------------------------------------------------------------------

/// The oracle's answer: the exact (to f64 accuracy) distance and one pair of parameters
/// attaining it. With parallel sides the minimiser is not unique; `s`, `t` are then *a*
/// minimiser, not necessarily the one the library's tie-break rule picks.
#[derive(Clone, Copy, Debug)]
pub struct Oracle {
    /// The minimum distance.
    pub distance: f64,
    /// Parameter on A of a minimiser.
    pub s: f64,
    /// Parameter on B of a minimiser.
    pub t: f64,
    /// `A0 + s·dA`.
    pub point_a: V3,
    /// `B0 + t·dB`.
    pub point_b: V3,
}

/// Distance from point `p` to the side `q0 + u·d`, `u` in `ext`, and the parameter `u` of
/// the nearest point. A zero `d` is the point `q0` (`u = 0`).
#[must_use]
pub fn point_to_side(p: V3, q0: V3, d: V3, ext: Extent) -> (f64, f64) {
    let dd = dot(d, d);
    let w = sub(p, q0);
    let u = if dd == 0.0 {
        0.0
    } else {
        let (lo, hi) = bounds(ext);
        (dot(w, d) / dd).clamp(lo, hi)
    };
    // Separation q0 + u·d - p formed locally.
    (norm(add_scaled([-w[0], -w[1], -w[2]], u, d)), u)
}

/// The exact closest points of `a` (extent `ext_a`) and `b` (extent `ext_b`), see the module
/// docs. Non-finite input gives a NaN distance.
#[must_use]
pub fn oracle(a: &Segment, b: &Segment, ext_a: Extent, ext_b: Extent) -> Oracle {
    oracle64(to64(a.p0), to64(a.p1), to64(b.p0), to64(b.p1), ext_a, ext_b)
}

/// [`oracle`] on f64 end points.
#[must_use]
pub fn oracle64(a0: V3, a1: V3, b0: V3, b1: V3, ext_a: Extent, ext_b: Extent) -> Oracle {
    let nan = Oracle {
        distance: f64::NAN,
        s: f64::NAN,
        t: f64::NAN,
        point_a: [f64::NAN; 3],
        point_b: [f64::NAN; 3],
    };
    if [a0, a1, b0, b1].iter().flatten().any(|x| !x.is_finite()) {
        return nan;
    }
    let d_a = sub(a1, a0);
    let d_b = sub(b1, b0);
    let r = sub(a0, b0);
    let point_a_side = dot(d_a, d_a) == 0.0;
    let point_b_side = dot(d_b, d_b) == 0.0;

    // (distance, s, t) candidates.
    let mut best = (f64::INFINITY, 0.0, 0.0);
    let mut offer = |c: (f64, f64, f64)| {
        if c.0 < best.0 {
            best = c;
        }
    };

    // End points of A (A0 always exists for a point, a ray or a segment) against side B.
    let ends_a: &[f64] = match (point_a_side, ext_a) {
        (true, _) => &[0.0],
        (false, Extent::Segment) => &[0.0, 1.0],
        (false, Extent::Ray) => &[0.0],
        (false, Extent::Line) => &[],
    };
    for &s in ends_a {
        let p = if s == 0.0 { a0 } else { a1 };
        let (dist, t) = point_to_side(p, b0, d_b, ext_b);
        offer((dist, s, t));
    }
    let ends_b: &[f64] = match (point_b_side, ext_b) {
        (true, _) => &[0.0],
        (false, Extent::Segment) => &[0.0, 1.0],
        (false, Extent::Ray) => &[0.0],
        (false, Extent::Line) => &[],
    };
    for &t in ends_b {
        let p = if t == 0.0 { b0 } else { b1 };
        let (dist, s) = point_to_side(p, a0, d_a, ext_a);
        offer((dist, s, t));
    }

    // Interior stationary point (both sides proper, not parallel).
    if !point_a_side && !point_b_side {
        let n = cross(d_a, d_b);
        let nn = dot(n, n);
        if nn > 0.0 {
            let q = [-r[0], -r[1], -r[2]]; // B0 - A0
            let s = dot(cross(q, d_b), n) / nn;
            let t = dot(cross(q, d_a), n) / nn;
            if s.is_finite() && t.is_finite() && in_extent(s, ext_a) && in_extent(t, ext_b) {
                offer((dot(r, n).abs() / nn.sqrt(), s, t));
            }
        } else if ends_a.is_empty() && ends_b.is_empty() {
            // Two parallel lines: every point of A is equally far from B.
            let (dist, t) = point_to_side(a0, b0, d_b, ext_b);
            offer((dist, 0.0, t));
        }
    }

    let (distance, s, t) = best;
    Oracle {
        distance,
        s,
        t,
        point_a: add_scaled(a0, s, d_a),
        point_b: add_scaled(b0, t, d_b),
    }
}

/// The exact distance between `a` (extent `ext_a`) and `b` (extent `ext_b`); see [`oracle`].
#[must_use]
pub fn oracle_distance(a: &Segment, b: &Segment, ext_a: Extent, ext_b: Extent) -> f64 {
    oracle(a, b, ext_a, ext_b).distance
}

/// `seg` with its direction rounded to f32 as the library forms it: `p1' = p0 + fl(p1 - p0)`
/// (exact in f64). For two unbounded sides (rays and lines) the exact answer is so sensitive
/// to the direction near parallel that one rounding of `p1 - p0` (a relative change of
/// `f32::EPSILON/2`, far below the input's own uncertainty) can move the closest points from
/// an end point to far away; the accuracy bar is then stated for the sides as represented
/// (a backward-error statement), see `docs/accuracy.md`.
#[must_use]
pub fn with_f32_direction(seg: &Segment) -> (V3, V3) {
    let p0 = to64(seg.p0);
    let d: V3 = core::array::from_fn(|i| f64::from(seg.p1[i] - seg.p0[i]));
    (p0, [p0[0] + d[0], p0[1] + d[1], p0[2] + d[2]])
}

/// [`oracle`] on the sides as the library represents them (directions rounded to f32, see
/// [`with_f32_direction`]), computed in f64 without rounding the end points again.
#[must_use]
pub fn oracle_f32_directions(a: &Segment, b: &Segment, ext_a: Extent, ext_b: Extent) -> Oracle {
    let (a0, a1) = with_f32_direction(a);
    let (b0, b1) = with_f32_direction(b);
    oracle64(a0, a1, b0, b1, ext_a, ext_b)
}

/// The distance `|A(s) - B(t)|` in f64 for given parameters: how good a reported `(s, t)`
/// really is, independent of the reported distance. Separation formed locally.
#[must_use]
pub fn distance_at(a: &Segment, b: &Segment, s: f64, t: f64) -> f64 {
    distance_at64(to64(a.p0), to64(a.p1), to64(b.p0), to64(b.p1), s, t)
}

/// [`distance_at`] on f64 end points.
#[must_use]
pub fn distance_at64(a0: V3, a1: V3, b0: V3, b1: V3, s: f64, t: f64) -> f64 {
    let d_a = sub(a1, a0);
    let d_b = sub(b1, b0);
    let r = sub(a0, b0);
    norm(add_scaled(add_scaled(r, s, d_a), -t, d_b))
}

// ---------------------------------------------------------------------------------------
// Error units
// ---------------------------------------------------------------------------------------

/// `S`: the largest coordinate magnitude over the four end points.
#[must_use]
pub fn scale(a: &Segment, b: &Segment) -> f64 {
    [a.p0, a.p1, b.p0, b.p1]
        .iter()
        .flatten()
        .fold(0.0f64, |m, &x| m.max((x as f64).abs()))
}

/// The largest coordinate magnitude over the four end points and the given points (for
/// unbounded sides, whose closest points can lie far beyond the end points).
#[must_use]
pub fn scale_with(a: &Segment, b: &Segment, points: &[V3]) -> f64 {
    points
        .iter()
        .flatten()
        .fold(scale(a, b), |m, &x| m.max(x.abs()))
}

/// `|actual - exact|` in units of `f32::EPSILON · s`. Zero when both are equal (also for
/// `s = 0`), infinite for an error at scale zero, NaN if either value is NaN.
#[must_use]
pub fn error_units(actual: f64, exact: f64, s: f64) -> f64 {
    let diff = (actual - exact).abs();
    if diff == 0.0 { 0.0 } else { diff / (EPS32 * s) }
}

// ---------------------------------------------------------------------------------------
// Approximate asserts
// ---------------------------------------------------------------------------------------

/// `Ok` when `|actual - expected| <= allowed`; otherwise an error message naming `what` and
/// giving both values, the allowed and the actual difference. NaN never passes.
pub fn check_close(what: &str, actual: f64, expected: f64, allowed: f64) -> Result<(), String> {
    let diff = (actual - expected).abs();
    if diff <= allowed {
        Ok(())
    } else {
        Err(format!(
            "{what}: actual {actual:e} vs expected {expected:e}: |difference| = {diff:e} > \
             allowed {allowed:e} (ratio {:.3})",
            diff / allowed
        ))
    }
}

/// Panicking form of [`check_close`].
#[track_caller]
pub fn assert_close(what: &str, actual: f64, expected: f64, allowed: f64) {
    if let Err(msg) = check_close(what, actual, expected, allowed) {
        panic!("{msg}");
    }
}

// ---------------------------------------------------------------------------------------
// Strategies: adversarial pair generators
// ---------------------------------------------------------------------------------------
//
// Pairs are built in f64 in a canonical frame, rotated by a random rotation (so nothing is
// axis-aligned), moved, and only then rounded to f32. Tests must compare against the oracle
// on the *rounded* end points, which is what the library sees. The exactly-parallel and
// collinear classes are built on a dyadic grid instead, so that they stay exactly parallel
// or collinear after rounding (rounding a rotated parallel pair makes it merely near-parallel).

/// A pair of segments, f32, as the library sees them.
pub type Pair = (Segment, Segment);

/// Round an f64 point to f32.
#[must_use]
pub fn round_point(p: V3) -> [f32; 3] {
    [p[0] as f32, p[1] as f32, p[2] as f32]
}

/// Build a pair from f64 end points by rounding.
#[must_use]
pub fn round_pair(a0: V3, a1: V3, b0: V3, b1: V3) -> Pair {
    (
        Segment::new(round_point(a0), round_point(a1)),
        Segment::new(round_point(b0), round_point(b1)),
    )
}

/// A rotation as a 3x3 matrix (rows).
pub type Mat3 = [V3; 3];

/// Rotation matrix of the unit quaternion `q / |q|` (`q` nonzero).
#[must_use]
pub fn rotation_from_quaternion(q: [f64; 4]) -> Mat3 {
    let len = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    let [w, x, y, z] = q.map(|c| c / len);
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
}

/// `m·v`.
#[must_use]
pub fn rotate(m: &Mat3, v: V3) -> V3 {
    [dot(m[0], v), dot(m[1], v), dot(m[2], v)]
}

/// A random rotation (quaternion from four uniform numbers, normalised; the norm is bounded
/// away from zero so the rotation is well defined).
pub fn rotation() -> impl Strategy<Value = Mat3> {
    prop::array::uniform4(-1.0f64..1.0).prop_map(|mut q| {
        if q.iter().map(|c| c * c).sum::<f64>() < 0.01 {
            q[0] = 1.0;
        }
        rotation_from_quaternion(q)
    })
}

/// A random unit vector.
pub fn unit_vector() -> impl Strategy<Value = V3> {
    rotation().prop_map(|m| rotate(&m, [1.0, 0.0, 0.0]))
}

/// `10^x`, `x` uniform in `lo..hi`: a log-uniform magnitude.
pub fn log_uniform(lo_exp: f64, hi_exp: f64) -> impl Strategy<Value = f64> {
    (lo_exp..hi_exp).prop_map(|x| 10f64.powf(x))
}

/// Rotate the four canonical-frame points, translate them by `offset`, round.
#[must_use]
pub fn place(m: &Mat3, offset: V3, pts: [V3; 4]) -> Pair {
    let p = pts.map(|q| {
        let r = rotate(m, q);
        [r[0] + offset[0], r[1] + offset[1], r[2] + offset[2]]
    });
    round_pair(p[0], p[1], p[2], p[3])
}

/// General position: every coordinate uniform in `[-100, 100]`.
pub fn general() -> impl Strategy<Value = Pair> {
    prop::array::uniform12(-100.0f64..100.0).prop_map(|c| {
        round_pair(
            [c[0], c[1], c[2]],
            [c[3], c[4], c[5]],
            [c[6], c[7], c[8]],
            [c[9], c[10], c[11]],
        )
    })
}

/// Near-parallel: B's direction is A's turned by an angle log-uniform in 1e-8 .. 1e-1 rad,
/// either overlapping A along its length or shifted past it, with a perpendicular offset that
/// is zero, tiny or comparable to the lengths. Lengths 0.1 .. 10, rotated, sometimes
/// reversed, placed within 10 of the origin.
pub fn near_parallel() -> impl Strategy<Value = Pair> {
    (
        log_uniform(-8.0, -1.0),                        // angle
        (0.1f64..10.0, 0.1f64..10.0),                   // lengths
        -1.5f64..1.5, // start of B along A, in units of A's length
        prop_oneof![Just(0.0), log_uniform(-7.0, 1.0)], // perpendicular offset
        0.0f64..std::f64::consts::TAU, // direction of the offset around A
        prop::bool::ANY, // reverse B
        rotation(),
        prop::array::uniform3(-10.0f64..10.0),
    )
        .prop_map(|(angle, (la, lb), along, h, phi, rev, m, off)| {
            let a0 = [0.0, 0.0, 0.0];
            let a1 = [la, 0.0, 0.0];
            let b0 = [along * la, h * phi.cos(), h * phi.sin()];
            let b1 = add_scaled(b0, lb, [angle.cos(), angle.sin(), 0.0]);
            let (b0, b1) = if rev { (b1, b0) } else { (b0, b1) };
            place(&m, off, [a0, a1, b0, b1])
        })
}

/// An integer direction vector with components in `-20..=20`, not zero.
fn grid_direction() -> impl Strategy<Value = V3> {
    prop::array::uniform3(-20i32..=20).prop_map(|d| {
        if d == [0, 0, 0] {
            [1.0, 3.0, -7.0]
        } else {
            d.map(f64::from)
        }
    })
}

/// A grid point: components multiples of 1/64 in `[-64, 64]` (exact in f32).
fn grid_point() -> impl Strategy<Value = V3> {
    prop::array::uniform3(-4096i32..=4096).prop_map(|p| p.map(|c| f64::from(c) / 64.0))
}

/// Exactly parallel (also after rounding: all coordinates are on a dyadic grid): B's
/// direction is an integer multiple of A's, same or opposite sense, B offset off A's line and
/// either overlapping A's span or disjoint from it.
pub fn parallel() -> impl Strategy<Value = Pair> {
    (
        grid_direction(),
        grid_point(),
        1i32..=8,
        prop_oneof![-8i32..=-1, 1i32..=8],
        -12i32..=12, // start of B along A, in units of the direction
        grid_direction(),
        -4i32..=4, // perpendicular-ish offset multiplier (0 = collinear)
    )
        .prop_map(|(d, p, ka, kb, along, w, k_off)| {
            let a0 = p;
            let a1 = add_scaled(p, f64::from(ka), d);
            let b0 = add_scaled(
                add_scaled(p, f64::from(along), d),
                f64::from(k_off) / 4.0,
                w,
            );
            let b1 = add_scaled(b0, f64::from(kb), d);
            round_pair(a0, a1, b0, b1)
        })
}

/// Collinear on one grid line: B's span overlaps A's, touches it at one end point, or is
/// disjoint from it; either orientation.
pub fn collinear() -> impl Strategy<Value = Pair> {
    (
        grid_direction(),
        grid_point(),
        -16i32..=16,
        1i32..=16,
        prop_oneof![
            (-16i32..=16, 1i32..=16).prop_map(|(u, l)| (u, l)), // anything, often overlapping
            Just((16, 4)),                                      // touching (see below)
            (18i32..=30, 1i32..=8).prop_map(|(u, l)| (u, l)),   // disjoint beyond A1
        ],
        prop::bool::ANY,
    )
        .prop_map(|(d, p, ua, la, (ub, lb), rev)| {
            // A spans [ua, ua + la]; "touching" puts B's start on A's end.
            let ub = if (ub, lb) == (16, 4) { ua + la } else { ub };
            let a0 = add_scaled(p, f64::from(ua), d);
            let a1 = add_scaled(p, f64::from(ua + la), d);
            let b0 = add_scaled(p, f64::from(ub), d);
            let b1 = add_scaled(p, f64::from(ub + lb), d);
            let (b0, b1) = if rev { (b1, b0) } else { (b0, b1) };
            round_pair(a0, a1, b0, b1)
        })
}

/// Crossing at a small angle (1e-6 .. 1e-1 rad): both segments pass through (or within a
/// tiny offset 1e-7 .. 1e-3 of) a common point at random interior parameters, so the true
/// distance is zero or tiny.
pub fn crossing_small_angle() -> impl Strategy<Value = Pair> {
    (
        log_uniform(-6.0, -1.0),
        (0.1f64..10.0, 0.1f64..10.0),
        (0.0f64..1.0, 0.0f64..1.0),
        prop_oneof![Just(0.0), log_uniform(-7.0, -3.0)],
        rotation(),
        prop::array::uniform3(-10.0f64..10.0),
    )
        .prop_map(|(angle, (la, lb), (sa, sb), h, m, off)| {
            let a0 = [-sa * la, 0.0, 0.0];
            let a1 = [(1.0 - sa) * la, 0.0, 0.0];
            let u = [angle.cos(), angle.sin(), 0.0];
            let b0 = add_scaled([0.0, 0.0, h], -sb * lb, u);
            let b1 = add_scaled([0.0, 0.0, h], (1.0 - sb) * lb, u);
            place(&m, off, [a0, a1, b0, b1])
        })
}

/// Tiny and zero lengths: lengths log-uniform 1e-6 .. 1e-3, within 1e-2 of each other, near
/// the origin or at distance up to 1; sometimes one or both sides of exactly zero length.
pub fn tiny() -> impl Strategy<Value = Pair> {
    (
        (log_uniform(-6.0, -3.0), log_uniform(-6.0, -3.0)),
        (unit_vector(), unit_vector()),
        prop::array::uniform3(-1e-2f64..1e-2),
        prop::array::uniform3(-1.0f64..1.0),
        0u8..4, // 0: both proper, 1: A zero, 2: B zero, 3: both zero
    )
        .prop_map(|((la, lb), (ua, ub), rel, base, zero)| {
            let a0 = base;
            let b0 = [base[0] + rel[0], base[1] + rel[1], base[2] + rel[2]];
            let a1 = if zero & 1 != 0 {
                a0
            } else {
                add_scaled(a0, la, ua)
            };
            let b1 = if zero & 2 != 0 {
                b0
            } else {
                add_scaled(b0, lb, ub)
            };
            round_pair(a0, a1, b0, b1)
        })
}

/// Long and skinny: a segment of length 1e3 .. 1e4 against a short one (1e-3 .. 1) near it
/// (within 10, anywhere along its length, at any angle or nearly parallel).
pub fn long_skinny() -> impl Strategy<Value = Pair> {
    (
        log_uniform(3.0, 4.0),
        log_uniform(-3.0, 0.0),
        -0.1f64..1.1,
        prop_oneof![Just(0.0), log_uniform(-4.0, 1.0)],
        prop_oneof![
            unit_vector(),
            log_uniform(-7.0, -2.0).prop_map(|a| [a.cos(), a.sin(), 0.0])
        ],
        rotation(),
        prop::bool::ANY,
    )
        .prop_map(|(la, lb, along, h, u, m, swap)| {
            let a0 = [0.0, 0.0, 0.0];
            let a1 = [la, 0.0, 0.0];
            let b0 = [along * la, 0.0, h];
            let b1 = add_scaled(b0, lb, u);
            let (a0, a1, b0, b1) = if swap {
                (b0, b1, a0, a1)
            } else {
                (a0, a1, b0, b1)
            };
            place(&m, [0.0; 3], [a0, a1, b0, b1])
        })
}

/// Far from the origin: a general, near-parallel or crossing configuration with lengths
/// 1e-3 .. 1e3, moved by an offset of magnitude up to 1e4 or up to 1e6 in a random direction.
pub fn far_from_origin() -> impl Strategy<Value = Pair> {
    (
        log_uniform(-3.0, 3.0), // lengths
        0.0f64..1.0,            // length ratio B/A
        prop_oneof![log_uniform(0.0, 4.0), log_uniform(4.0, 6.0)],
        unit_vector(),
        (unit_vector(), unit_vector()),
        prop_oneof![Just(0.0), log_uniform(-8.0, -1.0)], // 0: independent directions
        prop::array::uniform3(-1.0f64..1.0),             // B0 relative to A0, in lengths
    )
        .prop_map(|(len, ratio, dist, dir, (ua, ub), angle, rel)| {
            let lb = len * (0.01 + ratio);
            let ub = if angle > 0.0 {
                // Near-parallel to A: turn ua by `angle` towards ub's perpendicular part.
                let w = add_scaled(ub, -dot(ub, ua), ua);
                let wn = norm(w).max(1e-300);
                add_scaled(
                    [
                        ua[0] * angle.cos(),
                        ua[1] * angle.cos(),
                        ua[2] * angle.cos(),
                    ],
                    angle.sin() / wn,
                    w,
                )
            } else {
                ub
            };
            let off = [dir[0] * dist, dir[1] * dist, dir[2] * dist];
            let a0 = off;
            let a1 = add_scaled(a0, len, ua);
            let b0 = add_scaled(a0, len, rel);
            let b1 = add_scaled(b0, lb, ub);
            round_pair(a0, a1, b0, b1)
        })
}

/// Every class above, mixed evenly (general uniform data alone hides the hard cases).
pub fn any_hard_pair() -> impl Strategy<Value = Pair> {
    prop_oneof![
        general(),
        near_parallel(),
        parallel(),
        collinear(),
        crossing_small_angle(),
        tiny(),
        long_skinny(),
        far_from_origin(),
    ]
}

/// The named classes, for tests and tools that report per class.
pub const CLASSES: [&str; 9] = [
    "general",
    "near_parallel",
    "parallel",
    "collinear",
    "crossing_small_angle",
    "tiny",
    "long_skinny",
    "far_from_origin",
    "any_hard_pair",
];

/// The strategy of a class named in [`CLASSES`], boxed.
pub fn class_strategy(name: &str) -> BoxedStrategy<Pair> {
    match name {
        "general" => general().boxed(),
        "near_parallel" => near_parallel().boxed(),
        "parallel" => parallel().boxed(),
        "collinear" => collinear().boxed(),
        "crossing_small_angle" => crossing_small_angle().boxed(),
        "tiny" => tiny().boxed(),
        "long_skinny" => long_skinny().boxed(),
        "far_from_origin" => far_from_origin().boxed(),
        "any_hard_pair" => any_hard_pair().boxed(),
        other => panic!("unknown class {other}"),
    }
}

/// Every combination of extents, segment/segment first.
pub const EXTENT_PAIRS: [(Extent, Extent); 9] = [
    (Extent::Segment, Extent::Segment),
    (Extent::Segment, Extent::Ray),
    (Extent::Segment, Extent::Line),
    (Extent::Ray, Extent::Segment),
    (Extent::Ray, Extent::Ray),
    (Extent::Ray, Extent::Line),
    (Extent::Line, Extent::Segment),
    (Extent::Line, Extent::Ray),
    (Extent::Line, Extent::Line),
];
