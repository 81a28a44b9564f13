//! The exact oracle of the `f64` 3D closest-points question (feature `exact`): rational
//! arithmetic on the given `f64` end points, no rounding until the answer is reported.
//!
//! [`crate::oracle`] computes in `f64` and is accurate to about `1e-15·S`: enough to grade
//! `f32` results, not `f64` ones against `8·f64::EPSILON·S`. Here every `f64` coordinate is
//! converted exactly to a [`BigRational`] and every operation (differences, cross and dot
//! products, divisions, comparisons with the extents' bounds) is exact, so the squared
//! distance is the true one of the given sides, with no tolerance anywhere; the near-parallel
//! and overflow lessons of the `f64` oracle (Kahan's cross product, the line distance
//! against the separation at the computed parameters, scaling) do not arise.
//!
//! The structure is the `f64` oracle's: `|r + s·dA - t·dB|²` is convex over the product of
//! the two extents, so its minimum is
//!
//! * the distance from an *existing* end point of one side (A0 for rays and segments, A1
//!   for segments only) to the other side with its extent (the boundary of the region), or
//! * the interior stationary point from Goldman's triple products
//!   `s = ((B0 - A0) × dB)·n / n·n`, `t = ((B0 - A0) × dA)·n / n·n`, `n = dA × dB`,
//!   when `n ≠ 0` and `(s, t)` lies in both extents (exactly: no rounding can move it in or
//!   out), or
//! * for two parallel lines (`n = 0` exactly), which have no end point, the distance from
//!   A0 to line B.
//!
//! A side of zero length is its first end point whatever its extent. The oracle never looks
//! at what an implementation reported.
//!
//! The distance is reported as an unevaluated sum `distance + distance_lo` (the square root
//! of the exact squared distance to about 1e-32 relative, after one Newton step in rational
//! arithmetic), so [`Exact64::error`] measures `|reported - exact|` without the oracle's own
//! rounding (half an ulp of the distance) in it.
//!
//! # Two unbounded sides, and rays or lines too short for a direction
//!
//! The same exceptions as the `f32` bar (docs/accuracy.md), for the same reasons, in `f64`:
//! with both sides unbounded, the exact answer near parallel is so sensitive to the
//! directions that one rounding of `p1 - p0` to `f64` can move the closest points from an end
//! point to ~S/sin(angle) away, so [`exact`] grades those pairs on the sides as the library
//! represents them, `p1' = p0 + fl64(p1 - p0)` ([`represented`]); and a ray or line too short
//! to carry a direction is its first point by the library's documented semantics
//! ([`exact_short_unbounded_as_point`]).

use num_bigint::BigInt;
pub use num_rational::BigRational;
use num_traits::{Signed, ToPrimitive, Zero};
use segbatch::{Extent, Segment64};

use crate::vec::V3;

pub(crate) type Q = BigRational;
pub(crate) type Q3 = [Q; 3];

/// The exact answer for one pair: the distance as `distance + distance_lo` and one pair of
/// parameters attaining it (with parallel sides the minimiser is not unique: *a*
/// minimiser, not necessarily the one the library's tie-break rule picks), rounded to `f64`.
#[derive(Clone, Debug)]
pub struct Exact64 {
    /// The exact squared distance.
    pub dist2: BigRational,
    /// The distance rounded to `f64`.
    pub distance: f64,
    /// `sqrt(dist2) - distance`, to about 1e-16 of itself.
    pub distance_lo: f64,
    /// Parameter on A of a minimiser (rounded).
    pub s: f64,
    /// Parameter on B of a minimiser (rounded).
    pub t: f64,
    /// `A0 + s·dA`, each coordinate rounded once from its exact value.
    pub point_a: V3,
    /// `B0 + t·dB`, each coordinate rounded once from its exact value.
    pub point_b: V3,
}

impl Exact64 {
    /// `|got - exact distance|`, with the oracle's answer carried to about 1e-32 relative.
    /// NaN if `got` is NaN.
    #[must_use]
    pub fn error(&self, got: f64) -> f64 {
        ((got - self.distance) - self.distance_lo).abs()
    }
}

pub(crate) fn q(x: f64) -> Q {
    Q::from_float(x).expect("a finite f64 is a rational")
}

pub(crate) fn to_f64(x: &Q) -> f64 {
    x.to_f64().unwrap_or(f64::NAN)
}

pub(crate) fn sub3(u: &Q3, v: &Q3) -> Q3 {
    [&u[0] - &v[0], &u[1] - &v[1], &u[2] - &v[2]]
}

/// `u + k·v`.
fn add_scaled3(u: &Q3, k: &Q, v: &Q3) -> Q3 {
    [&u[0] + k * &v[0], &u[1] + k * &v[1], &u[2] + k * &v[2]]
}

fn dot3(u: &Q3, v: &Q3) -> Q {
    &u[0] * &v[0] + &u[1] * &v[1] + &u[2] * &v[2]
}

fn cross3(u: &Q3, v: &Q3) -> Q3 {
    [
        &u[1] * &v[2] - &u[2] * &v[1],
        &u[2] * &v[0] - &u[0] * &v[2],
        &u[0] * &v[1] - &u[1] * &v[0],
    ]
}

/// `u` clamped to the extent's parameter range.
fn clamp(u: Q, ext: Extent) -> Q {
    let zero = Q::zero();
    match ext {
        Extent::Line => u,
        Extent::Ray => u.max(zero),
        Extent::Segment => u.max(zero).min(Q::from_integer(BigInt::from(1))),
    }
}

fn in_extent(u: &Q, ext: Extent) -> bool {
    match ext {
        Extent::Line => true,
        Extent::Ray => !u.is_negative(),
        Extent::Segment => !u.is_negative() && *u <= Q::from_integer(BigInt::from(1)),
    }
}

/// Squared distance from `p` to the side `q0 + u·d`, `u` in `ext`, and the `u` of the
/// nearest point. A zero `d` is the point `q0`.
fn point_to_side(p: &Q3, q0: &Q3, d: &Q3, ext: Extent) -> (Q, Q) {
    let dd = dot3(d, d);
    let w = sub3(p, q0);
    let u = if dd.is_zero() {
        Q::zero()
    } else {
        clamp(dot3(&w, d) / dd, ext)
    };
    let v = sub3(&add_scaled3(q0, &u, d), p);
    (dot3(&v, &v), u)
}

/// `x·2^k` without overflowing the factor (`|k|` up to about 2 200).
fn ldexp(x: f64, k: i64) -> f64 {
    let half = i32::try_from(k / 2).expect("exponent in range");
    let rest = i32::try_from(k - k / 2).expect("exponent in range");
    x * 2f64.powi(half) * 2f64.powi(rest)
}

/// `sqrt(x)` as `hi + lo`: scaled by an even power of two into `[0.5, 8)`, rounded, one
/// Newton step in rational arithmetic, scaled back.
fn sqrt_hi_lo(x: &Q) -> (f64, f64) {
    if x.is_zero() {
        return (0.0, 0.0);
    }
    let e = x.numer().bits() as i64 - x.denom().bits() as i64;
    let k = e.div_euclid(2);
    let pow = |n: i64| BigInt::from(1) << n.unsigned_abs();
    let y = if k >= 0 {
        x / Q::from_integer(pow(2 * k))
    } else {
        x * Q::from_integer(pow(2 * k))
    };
    let hi = to_f64(&y).sqrt();
    let qh = q(hi);
    let lo = to_f64(&((&y - &qh * &qh) / (Q::from_integer(BigInt::from(2)) * qh)));
    (ldexp(hi, k), ldexp(lo, k))
}

/// The exact closest points of `A0 + s·dA` (extent `ext_a`) and `B0 + t·dB` (extent
/// `ext_b`), every input exact.
fn solve(a0: &Q3, d_a: &Q3, b0: &Q3, d_b: &Q3, ext_a: Extent, ext_b: Extent) -> Exact64 {
    let point_a_side = d_a.iter().all(Zero::is_zero);
    let point_b_side = d_b.iter().all(Zero::is_zero);
    let a1 = add_scaled3(a0, &Q::from_integer(BigInt::from(1)), d_a);
    let b1 = add_scaled3(b0, &Q::from_integer(BigInt::from(1)), d_b);
    let ends = |point: bool, ext: Extent| -> &'static [bool] {
        // `false`: the first end point, `true`: the second.
        match (point, ext) {
            (true, _) | (false, Extent::Ray) => &[false],
            (false, Extent::Segment) => &[false, true],
            (false, Extent::Line) => &[],
        }
    };
    let (ends_a, ends_b) = (ends(point_a_side, ext_a), ends(point_b_side, ext_b));

    // (squared distance, s, t) candidates.
    let mut best: Option<(Q, Q, Q)> = None;
    let mut offer = |c: (Q, Q, Q)| {
        if best.as_ref().is_none_or(|b| c.0 < b.0) {
            best = Some(c);
        }
    };
    let one = || Q::from_integer(BigInt::from(1));
    for &second in ends_a {
        let (d2, t) = point_to_side(if second { &a1 } else { a0 }, b0, d_b, ext_b);
        offer((d2, if second { one() } else { Q::zero() }, t));
    }
    for &second in ends_b {
        let (d2, s) = point_to_side(if second { &b1 } else { b0 }, a0, d_a, ext_a);
        offer((d2, s, if second { one() } else { Q::zero() }));
    }
    if !point_a_side && !point_b_side {
        let n = cross3(d_a, d_b);
        let nn = dot3(&n, &n);
        if !nn.is_zero() {
            let q0 = sub3(b0, a0);
            let s = dot3(&cross3(&q0, d_b), &n) / &nn;
            let t = dot3(&cross3(&q0, d_a), &n) / &nn;
            if in_extent(&s, ext_a) && in_extent(&t, ext_b) {
                let v = sub3(&add_scaled3(a0, &s, d_a), &add_scaled3(b0, &t, d_b));
                offer((dot3(&v, &v), s, t));
            }
        } else if ends_a.is_empty() && ends_b.is_empty() {
            // Two parallel lines: every point of A is equally far from B.
            let (d2, t) = point_to_side(a0, b0, d_b, ext_b);
            offer((d2, Q::zero(), t));
        }
    }
    let (dist2, s, t) = best.expect("every pair has a candidate");
    let (distance, distance_lo) = sqrt_hi_lo(&dist2);
    let point = |p0: &Q3, u: &Q, d: &Q3| add_scaled3(p0, u, d).map(|x| to_f64(&x));
    Exact64 {
        distance,
        distance_lo,
        s: to_f64(&s),
        t: to_f64(&t),
        point_a: point(a0, &s, d_a),
        point_b: point(b0, &t, d_b),
        dist2,
    }
}

fn finite(a: &Segment64, b: &Segment64) -> bool {
    [a.p0, a.p1, b.p0, b.p1]
        .iter()
        .flatten()
        .all(|x| x.is_finite())
}

/// The exact closest points of the sides with the given end points, or `None` for
/// non-finite input.
#[must_use]
pub fn oracle(a: &Segment64, b: &Segment64, ext_a: Extent, ext_b: Extent) -> Option<Exact64> {
    finite(a, b).then(|| {
        let (a0, a1, b0, b1) = (a.p0.map(q), a.p1.map(q), b.p0.map(q), b.p1.map(q));
        solve(&a0, &sub3(&a1, &a0), &b0, &sub3(&b1, &b0), ext_a, ext_b)
    })
}

/// The exact closest points of the sides as the library represents them: each direction
/// rounded once to `f64`, `p1' = p0 + fl64(p1 - p0)` (held exactly). `None` for non-finite
/// input, or when a direction overflows.
#[must_use]
pub fn represented(a: &Segment64, b: &Segment64, ext_a: Extent, ext_b: Extent) -> Option<Exact64> {
    let dir = |s: &Segment64| [0, 1, 2].map(|i| s.p1[i] - s.p0[i]);
    let (d_a, d_b) = (dir(a), dir(b));
    let ok = finite(a, b) && d_a.iter().chain(&d_b).all(|x| x.is_finite());
    ok.then(|| {
        solve(
            &a.p0.map(q),
            &d_a.map(q),
            &b.p0.map(q),
            &d_b.map(q),
            ext_a,
            ext_b,
        )
    })
}

/// True when both extents are unbounded (ray or line).
#[must_use]
pub fn both_unbounded(ext_a: Extent, ext_b: Extent) -> bool {
    ext_a != Extent::Segment && ext_b != Extent::Segment
}

/// The oracle the `f64` bar is stated against: [`oracle`] on the given end points, or
/// [`represented`] when both sides are unbounded (module docs). Depends on the extents
/// only, never on what an implementation reported.
#[must_use]
pub fn exact(a: &Segment64, b: &Segment64, ext_a: Extent, ext_b: Extent) -> Option<Exact64> {
    if both_unbounded(ext_a, ext_b) {
        represented(a, b, ext_a, ext_b)
    } else {
        oracle(a, b, ext_a, ext_b)
    }
}

/// `|v|`, scaled so that no square overflows or underflows.
fn norm_scaled(v: V3) -> f64 {
    let m = v.iter().fold(0f64, |m, x| m.max(x.abs()));
    if m == 0.0 || !m.is_finite() {
        return m;
    }
    m * v.iter().map(|x| (x / m) * (x / m)).sum::<f64>().sqrt()
}

/// True when `seg` is too short to carry a direction by the library's default `f64` rule
/// (length at most `2·f64::EPSILON` times its coordinates' magnitude), with a factor 2 of
/// margin: `|p1 - p0| <= 4·ε·max(|p0|, |p1|)`.
#[must_use]
pub fn short_side(seg: &Segment64) -> bool {
    let d = [0, 1, 2].map(|i| seg.p1[i] - seg.p0[i]);
    norm_scaled(d) <= 4.0 * f64::EPSILON * norm_scaled(seg.p0).max(norm_scaled(seg.p1))
}

/// The documented semantics of a degenerate *unbounded* side: a ray or line too short to
/// carry a direction is its first point. [`exact`] for every way of taking some of the
/// [`short_side`] rays and lines as their first points (one or both; near the threshold
/// either reading is the library's); empty when neither side is one. A short segment needs
/// no exception: taking it as a point moves the answer by at most its length, `4·ε·S`.
#[must_use]
pub fn exact_short_unbounded_as_point(
    a: &Segment64,
    b: &Segment64,
    ext_a: Extent,
    ext_b: Extent,
) -> Vec<Exact64> {
    let short_a = ext_a != Extent::Segment && short_side(a);
    let short_b = ext_b != Extent::Segment && short_side(b);
    let point = |s: &Segment64| (Segment64::new(s.p0, s.p0), Extent::Segment);
    let mut out = Vec::new();
    for (pa, pb) in [(true, false), (false, true), (true, true)] {
        if (pa && !short_a) || (pb && !short_b) {
            continue;
        }
        let (a, ea) = if pa { point(a) } else { (*a, ext_a) };
        let (b, eb) = if pb { point(b) } else { (*b, ext_b) };
        out.extend(exact(&a, &b, ea, eb));
    }
    out
}
