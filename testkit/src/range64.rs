//! The oracle of the `f64` range rule: a scene scaled by a power of two decides as the
//! same scene in the ordinary range.
//!
//! Multiplying every coordinate (and every radius, or length tolerance) by `2^k` changes no
//! rounding that stays normal, so every decision the library makes of a scene scaled to
//! the edges of `f64`'s range (coordinates and radii of `1e150` to `1e300`, or `1e-155` to
//! `1e-220`, where squared distances and squared radii overflow or underflow) must be
//! the decision it makes of the scene itself, and every distance the scene's distance
//! times `2^k`, bit for bit. [`shift`] and [`shift_segment`] make the copies (refusing a
//! coordinate that would not scale exactly), [`ordinary_pair`] the hard pairs to copy
//! (the classes of [`crate::pairs64`] at ordinary scales), [`radius_near`] the radii that
//! put a pair on either side of its threshold.

use segbatch::Segment64;

use crate::pairs64::{
    Pair64, collinear, degenerate, far_from_origin, general, near_parallel, widened,
};
use crate::rng::Rng;

/// `x·2^by`, in two factors (exact unless the result is subnormal or overflows).
#[must_use]
pub fn shift(x: f64, by: i32) -> f64 {
    let half = by / 2;
    x * 2f64.powi(half) * 2f64.powi(by - half)
}

/// `s` scaled by `2^by`, or `None` when a coordinate does not scale exactly (it would
/// become subnormal or overflow: shifting back does not give it again).
#[must_use]
pub fn shift_segment(s: &Segment64, by: i32) -> Option<Segment64> {
    let scaled = Segment64::new(s.p0.map(|x| shift(x, by)), s.p1.map(|x| shift(x, by)));
    let back = |p: [f64; 3]| p.map(|x| shift(x, -by));
    (back(scaled.p0) == s.p0 && back(scaled.p1) == s.p1 && finite(&scaled)).then_some(scaled)
}

/// Every segment of `set` scaled by `2^by`, or `None` when one does not scale exactly.
#[must_use]
pub fn shift_set(set: &[Segment64], by: i32) -> Option<Vec<Segment64>> {
    set.iter().map(|s| shift_segment(s, by)).collect()
}

fn finite(s: &Segment64) -> bool {
    s.p0.iter().chain(&s.p1).all(|x| x.is_finite())
}

/// The largest coordinate magnitude of `set`.
#[must_use]
pub fn largest(set: &[Segment64]) -> f64 {
    set.iter()
        .flat_map(|s| s.p0.iter().chain(&s.p1))
        .fold(0.0, |m: f64, x| m.max(x.abs()))
}

/// The largest `k` for which `set` scaled by `2^k` keeps every coordinate below `2^1020`
/// (room for the differences of two of them).
#[must_use]
pub fn room_up(set: &[Segment64]) -> i32 {
    let m = largest(set);
    if m > 0.0 {
        1020 - m.log2().ceil() as i32
    } else {
        1020
    }
}

/// A hard pair at an ordinary scale whose coordinates scale exactly by `2^±700` or so: a
/// general, near-parallel (to 1e-15 rad), collinear, degenerate, widened `f32` or
/// far-from-origin (to 1e12) pair of [`crate::pairs64`].
pub fn ordinary_pair(rng: &mut Rng) -> Pair64 {
    match rng.below(6) {
        0 => general(rng),
        1 => near_parallel(rng),
        2 => collinear(rng),
        3 => degenerate(rng),
        4 => widened(rng),
        _ => far_from_origin(rng),
    }
}

/// A radius for a pair at distance `d`: `d` itself, one ulp above or below, `d` times a
/// factor within 1e-12 of 1 or anywhere in `[0.25, 4]`, or `0`.
pub fn radius_near(rng: &mut Rng, d: f64) -> f64 {
    match rng.below(7) {
        0 => d,
        1 => d.next_up(),
        2 => d.next_down().max(0.0),
        3 => d * (1.0 + rng.range(-1e-12, 1e-12)),
        4 => 0.0,
        _ => d * rng.range(0.25, 4.0),
    }
}

/// A scale exponent `k` for a set whose copies must reach the edges of the range: upward
/// (`2^k·S` from about `1e150` to `2^1020`, squares overflowing) or downward (coordinates
/// near `2^-520` to `2^-720`, squares underflowing), chosen by `rng`; `room` is
/// [`room_up`] of the set.
pub fn edge_exponent(rng: &mut Rng, room: i32) -> i32 {
    if rng.chance(0.7) && room > 520 {
        rng.int(500, i64::from(room)) as i32
    } else {
        -(rng.int(520, 720) as i32)
    }
}
