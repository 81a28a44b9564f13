//! Adversarial `f64` pairs ([`Segment64`]): the hard classes written in double precision,
//! where the `f32` classes of [`crate::pairs`] cannot reach (angles down to 1e-15 rad,
//! offsets of 1e12, scales of 1e±200), plus every `f32` class widened exactly.
//!
//! Built in `f64` directly, so nothing is rounded after construction: a near-parallel pair
//! is as parallel as `f64` can hold it.

use segbatch::{Segment, Segment64};

use crate::pairs::{CLASSES, perpendicular, tilt};
use crate::rng::Rng;
use crate::vec::{V3, add, add_scaled, scale};

/// A pair of `f64` sides.
pub type Pair64 = (Segment64, Segment64);

/// One named class of `f64` hard cases.
#[derive(Clone, Copy, Debug)]
pub struct Class64 {
    /// Its name.
    pub name: &'static str,
    /// The generator.
    pub pair: fn(&mut Rng) -> Pair64,
    /// False only for the class whose pairs hold a NaN or an infinity.
    pub finite: bool,
}

const fn class(name: &'static str, pair: fn(&mut Rng) -> Pair64) -> Class64 {
    Class64 {
        name,
        pair,
        finite: true,
    }
}

/// Every `f64` class; `non-finite` last.
pub const CLASSES64: [Class64; 10] = [
    class("widened-f32", widened),
    class("general", general),
    class("near-parallel", near_parallel),
    class("collinear", collinear),
    class("degenerate", degenerate),
    class("tiny", tiny),
    class("huge", huge),
    class("far-from-origin", far_from_origin),
    class("tiny-against-huge-far", tiny_against_huge_far),
    Class64 {
        name: "non-finite",
        pair: non_finite,
        finite: false,
    },
];

/// A pair of any class (non-finite included), each equally likely.
pub fn any64(rng: &mut Rng) -> Pair64 {
    (CLASSES64[rng.below(CLASSES64.len() as u64) as usize].pair)(rng)
}

/// `seg.p0`, `seg.p1` exactly in `f64`.
#[must_use]
pub fn widen(s: &Segment) -> Segment64 {
    Segment64::new(s.p0.map(f64::from), s.p1.map(f64::from))
}

fn seg(p0: V3, p1: V3) -> Segment64 {
    Segment64::new(p0, p1)
}

/// Every coordinate of the pair times `k`, plus `offset`.
fn place((a, b): Pair64, k: f64, offset: f64) -> Pair64 {
    let m = |p: V3| p.map(|x| x * k + offset);
    (seg(m(a.p0), m(a.p1)), seg(m(b.p0), m(b.p1)))
}

/// A pair of any finite `f32` class of the test kit, widened exactly.
pub fn widened(rng: &mut Rng) -> Pair64 {
    let finite: Vec<_> = CLASSES.iter().filter(|c| c.finite).collect();
    let (a, b) = (finite[rng.below(finite.len() as u64) as usize].pair)(rng);
    (widen(&a), widen(&b))
}

/// Random end points in the unit cube.
pub fn general(rng: &mut Rng) -> Pair64 {
    (
        seg(rng.cube(1.0), rng.cube(1.0)),
        seg(rng.cube(1.0), rng.cube(1.0)),
    )
}

/// B at an angle of 1e-15..1e-1 rad to A (sometimes exactly 0), a small gap or none,
/// overlapping or not, at a random scale.
pub fn near_parallel(rng: &mut Rng) -> Pair64 {
    let k = rng.pow10(-3, 3);
    let u = rng.dir();
    let angle = if rng.chance(0.1) {
        0.0
    } else {
        rng.log10(-15.0, -1.0)
    };
    let a0 = rng.cube(k);
    let gap = if rng.chance(0.15) {
        0.0
    } else {
        k * rng.log10(-15.0, 0.0)
    };
    let b0 = add(
        add(a0, scale(perpendicular(rng, u), gap)),
        scale(u, k * rng.range(-1.5, 1.5)),
    );
    let a = seg(a0, add_scaled(a0, k * rng.range(0.5, 1.0), u));
    let v = tilt(rng, u, angle);
    let b1 = add_scaled(b0, k * rng.range(0.1, 1.0), v);
    if rng.chance(0.5) {
        (a, seg(b1, b0))
    } else {
        (a, seg(b0, b1))
    }
}

/// Both sides on one line through a grid point along a grid direction (exact in `f64`):
/// overlapping, touching or apart, either orientation.
pub fn collinear(rng: &mut Rng) -> Pair64 {
    let p = [0, 1, 2].map(|_| rng.int(-50, 50) as f64);
    let d = [0, 1, 2].map(|_| rng.int(-20, 20) as f64);
    let d = if d == [0.0; 3] { [1.0, 0.0, 0.0] } else { d };
    let at = |u: i64| add_scaled(p, u as f64, d);
    let (u0, u1, v0, v1) = (
        rng.int(-8, 8),
        rng.int(-8, 8),
        rng.int(-8, 8),
        rng.int(-8, 8),
    );
    let u1 = if u1 == u0 { u0 + 1 } else { u1 };
    let v1 = if v1 == v0 { v0 - 1 } else { v1 };
    place(
        (seg(at(u0), at(u1)), seg(at(v0), at(v1))),
        rng.pow10(-6, 6),
        0.0,
    )
}

/// A zero-length side (A, B or both), or a side a few ulps long, against a segment.
pub fn degenerate(rng: &mut Rng) -> Pair64 {
    let p = rng.cube(1.0);
    let q = rng.cube(1.0);
    let point = match rng.below(3) {
        0 => seg(p, p),
        1 => seg(p, p.map(|x| x + x.abs() * f64::EPSILON)),
        _ => seg(p, add_scaled(p, 1e-17, rng.dir())),
    };
    let other = if rng.chance(0.3) {
        seg(q, q)
    } else {
        seg(q, rng.cube(1.0))
    };
    let pair = if rng.chance(0.5) {
        (point, other)
    } else {
        (other, point)
    };
    place(pair, rng.pow10(-3, 3), 0.0)
}

/// A general or near-parallel pair scaled down to 1e-200..1e-6.
pub fn tiny(rng: &mut Rng) -> Pair64 {
    let pair = if rng.chance(0.5) {
        general(rng)
    } else {
        near_parallel(rng)
    };
    place(pair, rng.pick(&[1e-200, 1e-100, 1e-30, 1e-6]), 0.0)
}

/// A general or near-parallel pair scaled up to 1e6..1e200.
pub fn huge(rng: &mut Rng) -> Pair64 {
    let pair = if rng.chance(0.5) {
        general(rng)
    } else {
        near_parallel(rng)
    };
    place(pair, rng.pick(&[1e6, 1e30, 1e100, 1e200]), 0.0)
}

/// A pair of any other finite class of unit scale moved about 1e6..1e12 from the origin
/// (ECEF metres and beyond), where `f32` keeps no fraction at all.
pub fn far_from_origin(rng: &mut Rng) -> Pair64 {
    let pair = match rng.below(4) {
        0 => general(rng),
        1 => near_parallel(rng),
        2 => collinear(rng),
        _ => degenerate(rng),
    };
    let offset = rng.pick(&[6.378_137e6, -4.2e9, 1e12, -1e12]) * rng.range(0.9, 1.1);
    place(pair, 1.0, offset)
}

/// A side 1e-30..1e-200 long at the origin against a huge far side (Goldman's `s`
/// overflowing unscaled: the `f64` form of a fuzz find).
pub fn tiny_against_huge_far(rng: &mut Rng) -> Pair64 {
    let a = seg([0.0; 3], [rng.pick(&[1e-30, 1e-100, 1e-200]), 0.0, 0.0]);
    let d = rng.pick(&[1e100, 1e150, 1e200]);
    let b = seg([0.0, -0.356 * d, -d], [-d, -d, 0.0]);
    if rng.chance(0.5) { (a, b) } else { (b, a) }
}

/// A general pair with one coordinate NaN, `+∞` or `-∞`.
pub fn non_finite(rng: &mut Rng) -> Pair64 {
    let (mut a, mut b) = general(rng);
    let value = rng.pick(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
    let index = rng.below(12) as usize;
    let point = match index / 3 {
        0 => &mut a.p0,
        1 => &mut a.p1,
        2 => &mut b.p0,
        _ => &mut b.p1,
    };
    point[index % 3] = value;
    (a, b)
}
