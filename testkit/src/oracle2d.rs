//! The f64 oracle of the 2D segment question (`segbatch::motion::intersect2`), and exact
//! orientation tests on integer coordinates.
//!
//! Two closed segments meet when they properly cross (each one's end points lie strictly on
//! both sides of the other's line) or when an end point of one lies on the other; otherwise
//! their distance is the smallest of the four end-point-to-segment distances. [`distance`]
//! computes exactly that.
//!
//! Precision: the coordinates are f32, so `b - a` is exact in f64 (exponents within 29 of
//! each other), the products of two such differences are exact (2·24 + 2 bits < 53), and
//! [`orient`] forms their difference with one rounding ([`diff_of_products`]): its *sign* is
//! exact, so "properly crossing" is decided exactly. The end-point distances are accurate to
//! a few f64 ulps of the coordinates.

use segbatch::planar::Segment2;

use crate::vec::diff_of_products;

/// A 2D point in f64.
pub type V2 = [f64; 2];

/// The end points of `s` in f64 (exact).
#[must_use]
pub fn ends(s: &Segment2) -> (V2, V2) {
    (s.p0.map(f64::from), s.p1.map(f64::from))
}

/// Twice the signed area of the triangle `a, b, c`: positive when `c` lies to the left of
/// `a → b`. The sign is exact for f32 inputs (module docs).
#[must_use]
pub fn orient(a: V2, b: V2, c: V2) -> f64 {
    diff_of_products(b[0] - a[0], c[1] - a[1], b[1] - a[1], c[0] - a[0])
}

/// Distance from `p` to the segment `s`.
#[must_use]
pub fn point_to_segment(p: V2, s: &Segment2) -> f64 {
    let (a, b) = ends(s);
    let ab = [b[0] - a[0], b[1] - a[1]];
    let ap = [p[0] - a[0], p[1] - a[1]];
    let l2 = ab[0] * ab[0] + ab[1] * ab[1];
    let t = if l2 == 0.0 {
        0.0
    } else {
        ((ap[0] * ab[0] + ap[1] * ab[1]) / l2).clamp(0.0, 1.0)
    };
    (ap[0] - t * ab[0]).hypot(ap[1] - t * ab[1])
}

/// The exact (to f64 accuracy) distance between two 2D segments; 0 when they meet.
#[must_use]
pub fn distance(a: &Segment2, b: &Segment2) -> f64 {
    let (a0, a1) = ends(a);
    let (b0, b1) = ends(b);
    let (o1, o2) = (orient(a0, a1, b0), orient(a0, a1, b1));
    let (o3, o4) = (orient(b0, b1, a0), orient(b0, b1, a1));
    if o1 * o2 < 0.0 && o3 * o4 < 0.0 {
        return 0.0;
    }
    [
        point_to_segment(a0, b),
        point_to_segment(a1, b),
        point_to_segment(b0, a),
        point_to_segment(b1, a),
    ]
    .into_iter()
    .fold(f64::INFINITY, f64::min)
}

/// The largest coordinate magnitude of a 2D pair (`S` of the accuracy bar).
#[must_use]
pub fn scale(a: &Segment2, b: &Segment2) -> f64 {
    crate::vec::max_abs(&[a.p0, a.p1, b.p0, b.p1])
}

// ---------------------------------------------------------------------------------------
// Exact integer predicates
// ---------------------------------------------------------------------------------------

/// A point with integer coordinates.
pub type I2 = [i64; 2];

/// [`orient`] in exact integer arithmetic (no overflow for coordinates below 2^30).
#[must_use]
pub fn orient_i(a: I2, b: I2, c: I2) -> i64 {
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}

/// True when `p` lies on the closed segment `a b` (exactly).
#[must_use]
pub fn on_segment_i(p: I2, a: I2, b: I2) -> bool {
    orient_i(a, b, p) == 0
        && p[0] >= a[0].min(b[0])
        && p[0] <= a[0].max(b[0])
        && p[1] >= a[1].min(b[1])
        && p[1] <= a[1].max(b[1])
}

/// True when the closed segments `a0 a1` and `b0 b1` share at least one point (exactly).
#[must_use]
pub fn segments_meet_i(a0: I2, a1: I2, b0: I2, b1: I2) -> bool {
    let (o1, o2) = (orient_i(a0, a1, b0), orient_i(a0, a1, b1));
    let (o3, o4) = (orient_i(b0, b1, a0), orient_i(b0, b1, a1));
    if o1.signum() * o2.signum() < 0 && o3.signum() * o4.signum() < 0 {
        return true;
    }
    on_segment_i(b0, a0, a1)
        || on_segment_i(b1, a0, a1)
        || on_segment_i(a0, b0, b1)
        || on_segment_i(a1, b0, b1)
}
