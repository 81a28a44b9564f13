//! The closest point of approach in `f64`: adversarial moving pairs written in double
//! precision (where the `f32` generators of [`crate::motion`] cannot reach: relative
//! velocities 1e-17 of the separation, offsets of 1e7..1e15, scales of 1e±150) and, with
//! the feature `exact`, the exact (rational) CPA oracle that grades `f64` results against
//! `8·f64::EPSILON·S`.
//!
//! A pair is two start/end segments ([`Pair64`]: where A and B are at `t = 0` and `t = 1`);
//! the tests also read each as a [`Track64`] (`position = p0`, `velocity = p1 - p0`) over
//! other windows. Built from the relative motion `w(t) = w0 + t·dv` that makes the class
//! hard, so a "crossing" meets exactly and a "window clamp" really has its minimum outside
//! `[0, 1]`.

use segbatch::Segment64;
use segbatch::motion::Track64;

use crate::pairs64::{Class64, Pair64, widen};
use crate::rng::Rng;
use crate::vec::{V3, add, add_scaled, cross, norm, scale, sub};

const fn class(name: &'static str, pair: fn(&mut Rng) -> Pair64) -> Class64 {
    Class64 {
        name,
        pair,
        finite: true,
    }
}

/// Every class of moving `f64` pairs; `non-finite` last.
pub const CPA_CLASSES64: [Class64; 11] = [
    class("general", general),
    class("same-velocity", same_velocity),
    class("near-same-velocity", near_same_velocity),
    class("crossing", crossing),
    class("window-clamp", window_clamp),
    class("static", static_objects),
    class("far-from-origin", far_from_origin),
    class("tiny", tiny),
    class("huge", huge),
    class("widened-f32", widened),
    Class64 {
        name: "non-finite",
        pair: non_finite,
        finite: false,
    },
];

/// A pair of any class (non-finite included), each equally likely.
pub fn any_moving64(rng: &mut Rng) -> Pair64 {
    (CPA_CLASSES64[rng.below(CPA_CLASSES64.len() as u64) as usize].pair)(rng)
}

/// `n` pairs of random classes, from `Rng::new(seed)`.
#[must_use]
pub fn moving_pairs64(seed: u64, n: usize) -> Vec<Pair64> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| any_moving64(&mut rng)).collect()
}

/// The track with the same motion as a start/end segment over one step: `p0`, `p1 - p0`
/// (the velocity rounded once).
#[must_use]
pub fn track_of(s: &Segment64) -> Track64 {
    Track64::new(s.p0, s.direction())
}

/// The step of A and B whose relative motion is `w0 + t·dv`, with B starting at `b0` and
/// moving by `vb` during the step.
fn steps(b0: V3, vb: V3, w0: V3, dv: V3) -> Pair64 {
    let a0 = add(b0, w0);
    let a1 = add(add(b0, vb), add(w0, dv));
    (Segment64::new(a0, a1), Segment64::new(b0, add(b0, vb)))
}

/// Every coordinate of the pair times `k`, plus `offset`.
fn place((a, b): Pair64, k: f64, offset: f64) -> Pair64 {
    let m = |p: V3| p.map(|x| x * k + offset);
    (
        Segment64::new(m(a.p0), m(a.p1)),
        Segment64::new(m(b.p0), m(b.p1)),
    )
}

/// A unit vector perpendicular to `u`.
fn perpendicular(rng: &mut Rng, u: V3) -> V3 {
    loop {
        let c = cross(u, rng.dir());
        let n = norm(c);
        if n > 0.1 {
            return scale(c, 1.0 / n);
        }
    }
}

/// Random relative motion at scale 1e-3..1e3.
pub fn general(rng: &mut Rng) -> Pair64 {
    let k = rng.pow10(-3, 3);
    steps(rng.cube(k), rng.cube(k), rng.cube(k), rng.cube(k))
}

/// Both objects move by exactly the same displacement (coordinates on a grid, so every
/// sum is exact and `dv = 0` exactly); sometimes both static, sometimes the displacement
/// rounded (the same velocity up to one rounding of each end point).
pub fn same_velocity(rng: &mut Rng) -> Pair64 {
    let grid = 2f64.powi(rng.int(-20, 20) as i32);
    let mut p = || [0, 1, 2].map(|_| rng.int(-1000, 1000) as f64 * grid);
    let (a0, b0, d) = (p(), p(), p());
    let d = if rng.chance(0.1) { [0.0; 3] } else { d };
    if rng.chance(0.7) {
        (
            Segment64::new(a0, add(a0, d)),
            Segment64::new(b0, add(b0, d)),
        )
    } else {
        let k = rng.pow10(-3, 3);
        let d = rng.cube(k);
        let (a0, b0) = (rng.cube(k), rng.cube(k));
        (
            Segment64::new(a0, add(a0, d)),
            Segment64::new(b0, add(b0, d)),
        )
    }
}

/// A relative velocity 1e-17..1e-8 times the separation: around the same-velocity
/// threshold (`2·f64::EPSILON`, 4.4e-16) on both sides.
pub fn near_same_velocity(rng: &mut Rng) -> Pair64 {
    let k = rng.pow10(-3, 3);
    let w0 = rng.cube(k);
    let dv = scale(rng.dir(), norm(w0) * rng.log10(-17.0, -8.0));
    steps(rng.cube(k), rng.cube(k), w0, dv)
}

/// The objects meet at the same moment `t = j/8` inside the step (grid coordinates: the
/// exact distance is 0), or pass within 1e-12..1e-3 of the speed at that moment.
pub fn crossing(rng: &mut Rng) -> Pair64 {
    let grid = 2f64.powi(rng.int(-20, 20) as i32);
    let mut p = || [0, 1, 2].map(|_| rng.int(-100, 100) as f64 * grid);
    let (m, da, db) = (p(), p(), p());
    let j = rng.int(0, 8) as f64;
    // A at `m` at t = j/8: a0 = m - (j/8)·(8·da), exact on the grid.
    let a0 = sub(m, scale(da, j));
    let b0 = sub(m, scale(db, j));
    let pair = (
        Segment64::new(a0, add(a0, scale(da, 8.0))),
        Segment64::new(b0, add(b0, scale(db, 8.0))),
    );
    if rng.chance(0.5) {
        return pair;
    }
    // A near miss: B's path shifted sideways.
    let (a, b) = pair;
    let dv = sub(a.direction(), b.direction());
    let u = if norm(dv) > 0.0 {
        scale(dv, 1.0 / norm(dv))
    } else {
        rng.dir()
    };
    let shift = scale(
        perpendicular(rng, u),
        rng.log10(-12.0, -3.0) * norm(dv).max(grid),
    );
    (a, Segment64::new(add(b.p0, shift), add(b.p1, shift)))
}

/// The closest approach lies outside the step: before it (moving apart, `t* < 0`) or after
/// it (`t* > 1`), by 1e-9..3 steps; the answer is the clamped end of the window.
pub fn window_clamp(rng: &mut Rng) -> Pair64 {
    let k = rng.pow10(-3, 3);
    let u = rng.dir();
    let speed = k * rng.range(0.1, 2.0);
    let miss = k * rng.unit() * if rng.chance(0.2) { 0.0 } else { 1.0 };
    let beyond = rng.log10(-9.0, 0.5);
    let t_star = if rng.chance(0.5) {
        -beyond
    } else {
        1.0 + beyond
    };
    let dv = scale(u, speed);
    let w0 = sub(scale(perpendicular(rng, u), miss), scale(dv, t_star));
    steps(rng.cube(k), rng.cube(k), w0, dv)
}

/// One or both objects not moving at all.
pub fn static_objects(rng: &mut Rng) -> Pair64 {
    let k = rng.pow10(-3, 3);
    let (a0, b0) = (rng.cube(k), rng.cube(k));
    let a1 = if rng.chance(0.5) { a0 } else { rng.cube(k) };
    (Segment64::new(a0, a1), Segment64::new(b0, b0))
}

/// A general, near-same-velocity, crossing or window-clamp pair of unit scale moved
/// 1e7..1e15 from the origin, where `f32` keeps no fraction and `f64` keeps 1e-9..1e-1.
pub fn far_from_origin(rng: &mut Rng) -> Pair64 {
    let pair = match rng.below(4) {
        0 => general(rng),
        1 => near_same_velocity(rng),
        2 => crossing(rng),
        _ => window_clamp(rng),
    };
    let offset = rng.pow10(7, 15) * rng.range(0.9, 1.1) * if rng.chance(0.5) { 1.0 } else { -1.0 };
    place(pair, 1.0, offset)
}

/// A general, near-same-velocity, crossing or window-clamp pair scaled down by
/// 1e-140..1e-4 (much below, the squared distance of a close pass is subnormal:
/// docs/motion.md).
pub fn tiny(rng: &mut Rng) -> Pair64 {
    let pair = match rng.below(4) {
        0 => general(rng),
        1 => near_same_velocity(rng),
        2 => crossing(rng),
        _ => window_clamp(rng),
    };
    place(pair, rng.pow10(-140, -4), 0.0)
}

/// A general, near-same-velocity, crossing or window-clamp pair scaled up by 1e4..1e140
/// (beyond ~1e150 a squared length may overflow: the pair is then reported non-finite).
pub fn huge(rng: &mut Rng) -> Pair64 {
    let pair = match rng.below(4) {
        0 => general(rng),
        1 => near_same_velocity(rng),
        2 => crossing(rng),
        _ => window_clamp(rng),
    };
    place(pair, rng.pow10(4, 140), 0.0)
}

/// A pair of the `f32` motion generators ([`crate::motion::moving_pair`]: tangent
/// contacts, equal and nearly equal velocities, static objects...), widened exactly.
pub fn widened(rng: &mut Rng) -> Pair64 {
    let kind = rng.below(crate::motion::MOTION_KINDS);
    let p = crate::motion::moving_pair(rng, kind);
    (widen(&p.a), widen(&p.b))
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

/// `S` of a pair of steps: the largest coordinate magnitude of the four end points.
#[must_use]
pub fn scale_of(a: &Segment64, b: &Segment64) -> f64 {
    [a.p0, a.p1, b.p0, b.p1]
        .iter()
        .flatten()
        .fold(0.0, |m: f64, x| m.max(x.abs()))
}

/// `S` of two tracks over `[0, t_end]` (`t_end` finite): the largest coordinate magnitude
/// of their positions at `0` and at `t_end`.
#[must_use]
pub fn scale_of_tracks(a: &Track64, b: &Track64, t_end: f64) -> f64 {
    let end = |t: &Track64| add_scaled(t.position, t_end, t.velocity);
    [a.position, b.position, end(a), end(b)]
        .iter()
        .flatten()
        .fold(0.0, |m: f64, x| m.max(x.abs()))
}

#[cfg(feature = "exact")]
pub use exact::{
    ExactCpa, exact_cpa_segments, exact_cpa_tracks, step_position_error, track_position_error,
};

/// The exact CPA oracle: rational arithmetic on the given `f64` inputs.
#[cfg(feature = "exact")]
mod exact {
    use num_bigint::BigInt;
    use num_rational::BigRational;
    use num_traits::{Signed, Zero};
    use segbatch::Segment64;
    use segbatch::motion::Track64;

    use crate::vec::V3;

    // The rational helpers of the closest-points oracle.
    use crate::oracle64::{Q, Q3, q, sub3, to_f64};

    fn dot3(u: &Q3, v: &Q3) -> Q {
        &u[0] * &v[0] + &u[1] * &v[1] + &u[2] * &v[2]
    }

    /// The exact closest approach of one pair over its window.
    ///
    /// `|w0 + t·dv|²` is a convex quadratic in `t`; its minimum over `[0, T]` is at
    /// `t* = clamp(-(w0·dv) / (dv·dv), 0, T)`, exactly (any `t` when `dv = 0`: the distance
    /// is constant, and `t* = 0`). Nothing is rounded until the answer is reported.
    #[derive(Clone, Debug)]
    pub struct ExactCpa {
        /// The exact squared distance at `t*`: the minimum over the window.
        pub dist2: BigRational,
        /// `t*`, rounded to `f64`.
        pub t: f64,
        /// `sqrt(dist2)`, to about an ulp.
        pub distance: f64,
    }

    impl ExactCpa {
        /// `|got - sqrt(dist2)|`, as `|got² - dist2| / (got + sqrt(dist2))` with the
        /// numerator exact (so the oracle's own rounding is about 1e-16 of the error, not
        /// half an ulp of the distance). NaN if `got` is NaN.
        #[must_use]
        pub fn error(&self, got: f64) -> f64 {
            if !got.is_finite() {
                return if got.is_nan() {
                    f64::NAN
                } else {
                    f64::INFINITY
                };
            }
            let g = q(got.abs());
            let num = to_f64(&(&g * &g - &self.dist2).abs());
            let den = got.abs() + self.distance;
            if num == 0.0 { 0.0 } else { num / den }
        }
    }

    fn solve(w0: &Q3, dv: &Q3, t_end: Option<&Q>) -> ExactCpa {
        let a = dot3(dv, dv);
        let t = if a.is_zero() {
            Q::zero()
        } else {
            let t = -dot3(w0, dv) / a;
            let t = t.max(Q::zero());
            match t_end {
                Some(end) => t.min(end.clone()),
                None => t,
            }
        };
        let w = [0, 1, 2].map(|i| &w0[i] + &t * &dv[i]);
        let dist2 = dot3(&w, &w);
        ExactCpa {
            distance: to_f64(&dist2).sqrt(),
            t: to_f64(&t),
            dist2,
        }
    }

    fn finite(p: &[V3]) -> bool {
        p.iter().flatten().all(|x| x.is_finite())
    }

    /// The exact closest approach of objects moving from `a.p0` to `a.p1` and from `b.p0`
    /// to `b.p1` over `[0, 1]`, or `None` for non-finite input.
    #[must_use]
    pub fn exact_cpa_segments(a: &Segment64, b: &Segment64) -> Option<ExactCpa> {
        finite(&[a.p0, a.p1, b.p0, b.p1]).then(|| {
            let (a0, a1, b0, b1) = (a.p0.map(q), a.p1.map(q), b.p0.map(q), b.p1.map(q));
            let w0 = sub3(&a0, &b0);
            let dv = sub3(&sub3(&a1, &b1), &w0);
            solve(&w0, &dv, Some(&Q::from_integer(BigInt::from(1))))
        })
    }

    /// The exact closest approach of two tracks over `[0, t_end]` (`t_end` may be `+∞`),
    /// or `None` for non-finite input.
    #[must_use]
    pub fn exact_cpa_tracks(a: &Track64, b: &Track64, t_end: f64) -> Option<ExactCpa> {
        finite(&[a.position, a.velocity, b.position, b.velocity]).then(|| {
            let w0 = sub3(&a.position.map(q), &b.position.map(q));
            let dv = sub3(&a.velocity.map(q), &b.velocity.map(q));
            let end = t_end.is_finite().then(|| q(t_end));
            solve(&w0, &dv, end.as_ref())
        })
    }

    /// The largest coordinate difference between `got` and the exact `p0 + t·d` (`d`
    /// exact), NaN for non-finite input.
    fn position_error(p0: &Q3, d: &Q3, t: f64, got: V3) -> f64 {
        if !(finite(&[got]) && t.is_finite()) {
            return f64::NAN;
        }
        let tq = q(t);
        (0..3)
            .map(|i| to_f64(&(q(got[i]) - (&p0[i] + &tq * &d[i])).abs()))
            .fold(0.0, f64::max)
    }

    /// How far a reported position `got` is from where the object moving from `s.p0` to
    /// `s.p1` is at the reported time `t` (exactly, `p0 + t·(p1 - p0)`): the largest
    /// coordinate difference.
    #[must_use]
    pub fn step_position_error(s: &Segment64, t: f64, got: V3) -> f64 {
        if !finite(&[s.p0, s.p1]) {
            return f64::NAN;
        }
        let (p0, p1) = (s.p0.map(q), s.p1.map(q));
        position_error(&p0, &sub3(&p1, &p0), t, got)
    }

    /// How far a reported position `got` is from where the track is at the reported time
    /// `t` (exactly, `position + t·velocity`): the largest coordinate difference.
    #[must_use]
    pub fn track_position_error(tr: &Track64, t: f64, got: V3) -> f64 {
        if !finite(&[tr.position, tr.velocity]) {
            return f64::NAN;
        }
        position_error(&tr.position.map(q), &tr.velocity.map(q), t, got)
    }
}
