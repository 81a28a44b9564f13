//! The adversarial 3D pair generators: one function per hard-case class, each a plain
//! function of the [`Rng`] (for `segbatch verify`, benches and examples) and, through
//! `strategy`, a proptest strategy.
//!
//! Pairs are built in f64 and rounded once to f32, as a caller's data would be; a test must
//! compare against the oracle on the *rounded* end points, which is what the library sees.
//! Classes that must stay exactly parallel or collinear after rounding are built (half of
//! the time) on a dyadic grid, times a power of two, where rounding is exact; the other half
//! rounds a random float configuration, which makes them merely near-parallel (also hard).
//!
//! Uniform random data hides every hard case: use [`CLASSES`] (or [`any_finite`]).

use segbatch::Segment;

use crate::rng::Rng;
use crate::vec::{V3, add, add_scaled, cross, dot, norm, scale, sub, to32, to64};

/// A pair of segments, f32, as the library sees them.
pub type Pair = (Segment, Segment);

/// A generator of one pair.
pub type PairFn = fn(&mut Rng) -> Pair;

/// One named class of hard cases.
#[derive(Clone, Copy, Debug)]
pub struct Class {
    /// Its name, as `segbatch verify` prints it.
    pub name: &'static str,
    /// The generator.
    pub pair: PairFn,
    /// False only for the class whose pairs hold a NaN or an infinity.
    pub finite: bool,
}

const fn class(name: &'static str, pair: PairFn) -> Class {
    Class {
        name,
        pair,
        finite: true,
    }
}

/// Every class: the unscaled finite ones, then `extreme-scale`, then `non-finite` (the
/// order [`any_unscaled`] and [`any_finite`] rely on).
pub const CLASSES: [Class; 12] = [
    class("general", general),
    class("near-parallel", near_parallel),
    class("collinear", collinear),
    class("parallel-overlap", parallel_overlapping),
    class("parallel-disjoint", parallel_disjoint),
    class("tiny", tiny),
    class("zero-length", zero_length),
    class("small-angle-cross", small_angle_cross),
    class("long-skinny", long_skinny),
    class("far-from-origin", far_from_origin),
    class("extreme-scale", extreme_scale),
    Class {
        name: "non-finite",
        pair: non_finite,
        finite: false,
    },
];

/// The class named `name` in [`CLASSES`].
#[must_use]
pub fn find_class(name: &str) -> Option<&'static Class> {
    CLASSES.iter().find(|c| c.name == name)
}

/// A pair of any finite class, each class equally likely.
pub fn any_finite(rng: &mut Rng) -> Pair {
    let finite = CLASSES.len() - 1;
    (CLASSES[rng.below(finite as u64) as usize].pair)(rng)
}

/// A pair of any finite class at its own scale (every class but `extreme-scale` and
/// `non-finite`): for tests that apply their own scaling.
pub fn any_unscaled(rng: &mut Rng) -> Pair {
    let unscaled = CLASSES.len() - 2;
    (CLASSES[rng.below(unscaled as u64) as usize].pair)(rng)
}

/// A pair of any class (one in twelve holds a non-finite coordinate).
pub fn any(rng: &mut Rng) -> Pair {
    (CLASSES[rng.below(CLASSES.len() as u64) as usize].pair)(rng)
}

// ---------------------------------------------------------------------------------------
// Building blocks
// ---------------------------------------------------------------------------------------

/// A segment from f64 end points, rounded to f32.
#[must_use]
pub fn seg(p0: V3, p1: V3) -> Segment {
    Segment::new(to32(p0), to32(p1))
}

/// A segment of the given `length` along `dir`, starting at `p0`.
#[must_use]
pub fn along(p0: V3, dir: V3, length: f64) -> Segment {
    seg(p0, add_scaled(p0, length, dir))
}

/// A unit vector perpendicular to the unit vector `u`, otherwise random.
pub fn perpendicular(rng: &mut Rng, u: V3) -> V3 {
    loop {
        let w = cross(u, rng.dir());
        let n = dot(w, w);
        if n > 1e-4 {
            return scale(w, 1.0 / n.sqrt());
        }
    }
}

/// The unit vector at `angle` radians from the unit vector `u`, in a random plane.
pub fn tilt(rng: &mut Rng, u: V3, angle: f64) -> V3 {
    let v = perpendicular(rng, u);
    add(scale(u, angle.cos()), scale(v, angle.sin()))
}

/// Every coordinate of the pair multiplied by `factor` in f64, then rounded to f32 again.
#[must_use]
pub fn rescale(pair: Pair, factor: f64) -> Pair {
    let sc = |p: [f32; 3]| to32(scale(to64(p), factor));
    let (a, b) = pair;
    (
        Segment::new(sc(a.p0), sc(a.p1)),
        Segment::new(sc(b.p0), sc(b.p1)),
    )
}

/// `(b, a)` or `(a, b)` with equal chance.
fn maybe_swap(rng: &mut Rng, (a, b): Pair) -> Pair {
    if rng.chance(0.5) { (b, a) } else { (a, b) }
}

/// A side reversed (`p1` to `p0`) with probability one half.
fn maybe_reverse(rng: &mut Rng, s: Segment) -> Segment {
    if rng.chance(0.5) {
        Segment::new(s.p1, s.p0)
    } else {
        s
    }
}

/// An integer direction with components in `-20..=20`, not zero.
fn grid_direction(rng: &mut Rng) -> V3 {
    loop {
        let d = [0; 3].map(|_: i32| rng.int(-20, 20) as f64);
        if d != [0.0; 3] {
            return d;
        }
    }
}

/// A grid point: components multiples of 1/64 in `[-64, 64]`.
fn grid_point(rng: &mut Rng) -> V3 {
    [0; 3].map(|_: i32| rng.int(-4096, 4096) as f64 / 64.0)
}

/// A power of two `2^k`, `k` uniform in `-10..=10` (scaling a grid pair by it is exact).
fn grid_scale(rng: &mut Rng) -> f64 {
    2f64.powi(rng.int(-10, 10) as i32)
}

/// A pair from grid points (exact in f32: all coordinates are multiples of 2^-12 below 2^11),
/// scaled by `k`.
fn grid_pair(k: f64, pts: [V3; 4]) -> Pair {
    let p = pts.map(|q| scale(q, k));
    debug_assert!(
        p.iter().flatten().all(|&x| f64::from(x as f32) == x),
        "grid pair not exact in f32: {p:?}"
    );
    (seg(p[0], p[1]), seg(p[2], p[3]))
}

// ---------------------------------------------------------------------------------------
// The classes
// ---------------------------------------------------------------------------------------

/// Random position and orientation, lengths and offsets 1e-2 .. 1e2.
pub fn general(rng: &mut Rng) -> Pair {
    let k = rng.log10(-2.0, 2.0);
    let a0 = rng.cube(k);
    let b0 = add(a0, rng.cube(k));
    (
        along(a0, rng.dir(), k * rng.range(0.1, 2.0)),
        along(b0, rng.dir(), k * rng.range(0.1, 2.0)),
    )
}

/// B's direction is A's turned by an angle log-uniform in 1e-8 .. 1e-1 rad (exactly 0 in
/// f64 one time in ten), overlapping A along its length or shifted past it, with a
/// perpendicular gap that is zero, tiny (1e-7 of the length) or comparable to the lengths.
/// Lengths 1e-3 .. 1e3, sometimes reversed.
pub fn near_parallel(rng: &mut Rng) -> Pair {
    let k = rng.log10(-3.0, 3.0);
    let u = rng.dir();
    let angle = if rng.chance(0.1) {
        0.0
    } else {
        rng.log10(-8.0, -1.0)
    };
    let a0 = rng.cube(k);
    let gap = if rng.chance(0.15) {
        0.0
    } else {
        k * rng.log10(-7.0, 0.0)
    };
    let gap = scale(perpendicular(rng, u), gap);
    let b0 = add(add(a0, gap), scale(u, k * rng.range(-1.5, 1.5)));
    let a = along(a0, u, k * rng.range(0.5, 1.0));
    let v = tilt(rng, u, angle);
    let b = along(b0, v, k * rng.range(0.1, 1.0));
    (a, maybe_reverse(rng, b))
}

/// Both sides on one line, overlapping, touching at an end point or apart, either
/// orientation: exactly collinear on a grid, or collinear in f64 and rounded.
pub fn collinear(rng: &mut Rng) -> Pair {
    if rng.chance(0.5) {
        let (d, p, k) = (grid_direction(rng), grid_point(rng), grid_scale(rng));
        let (ua, la) = (rng.int(-16, 16), rng.int(1, 16));
        let (ub, lb) = match rng.below(3) {
            0 => (rng.int(-16, 16), rng.int(1, 16)), // anything, often overlapping
            1 => (ua + la, rng.int(1, 8)),           // touching A1
            _ => (ua + la + rng.int(1, 14), rng.int(1, 8)), // beyond A1
        };
        let at = |u: i64| add_scaled(p, u as f64, d);
        let (b0, b1) = if rng.chance(0.5) {
            (at(ub), at(ub + lb))
        } else {
            (at(ub + lb), at(ub))
        };
        maybe_swap(rng, grid_pair(k, [at(ua), at(ua + la), b0, b1]))
    } else {
        let k = rng.log10(-3.0, 3.0);
        let u = rng.dir();
        let p = rng.cube(k);
        let at = |x: f64| add(p, scale(u, k * x));
        let (s0, s1) = (rng.range(-2.0, 2.0), rng.range(-2.0, 2.0));
        let (t0, t1) = (rng.range(-2.0, 2.0), rng.range(-2.0, 2.0));
        (seg(at(s0), at(s1)), seg(at(t0), at(t1)))
    }
}

/// Parallel sides with a perpendicular gap, projections overlapping.
pub fn parallel_overlapping(rng: &mut Rng) -> Pair {
    parallel(rng, true)
}

/// Parallel sides with a perpendicular gap, projections disjoint.
pub fn parallel_disjoint(rng: &mut Rng) -> Pair {
    parallel(rng, false)
}

/// Parallel sides: exactly (a grid pair: B's direction an integer multiple of A's, the gap
/// an integer vector times `2^-m`, `m` in 0..=10) or in f64 and rounded (which tilts them by
/// about 1e-7). Gaps from 1e-4 to 1 of the length.
fn parallel(rng: &mut Rng, overlap: bool) -> Pair {
    if rng.chance(0.5) {
        let (d, p, k) = (grid_direction(rng), grid_point(rng), grid_scale(rng));
        let la = rng.int(1, 8);
        let lb = rng.int(1, 8);
        // A covers [0, la] along d, B covers [st, st + lb].
        let st = if overlap {
            rng.int(1 - lb, la - 1)
        } else if rng.chance(0.5) {
            la + rng.int(1, 8)
        } else {
            -lb - rng.int(1, 8)
        };
        let w = loop {
            let w = cross(d, grid_direction(rng));
            if w != [0.0; 3] {
                break w;
            }
        };
        let gap = scale(
            w,
            rng.int(1, 4) as f64 / 4.0 * 2f64.powi(-(rng.int(0, 10) as i32)),
        );
        let b_at = |u: i64| add(add_scaled(p, u as f64, d), gap);
        let (b0, b1) = if rng.chance(0.5) {
            (b_at(st), b_at(st + lb))
        } else {
            (b_at(st + lb), b_at(st))
        };
        maybe_swap(rng, grid_pair(k, [p, add_scaled(p, la as f64, d), b0, b1]))
    } else {
        let shift = if overlap {
            rng.range(-0.9, 0.9)
        } else {
            let s = rng.range(1.05, 3.0);
            if rng.chance(0.5) { s } else { -s }
        };
        let k = rng.log10(-2.0, 2.0);
        let u = rng.dir();
        let a0 = rng.cube(k);
        let gap = scale(perpendicular(rng, u), k * rng.log10(-4.0, 0.0));
        let b0 = add(add(a0, gap), scale(u, k * shift));
        let b = maybe_reverse(rng, seg(b0, add(b0, scale(u, k))));
        (along(a0, u, k), b)
    }
}

/// One side (or both) of length 1e-7 .. 1e-2 of the coordinate scale (1e-2 .. 1e3): near
/// and below the length where a side stops carrying a direction.
pub fn tiny(rng: &mut Rng) -> Pair {
    let k = rng.log10(-2.0, 3.0);
    let a0 = rng.cube(k);
    let b0 = add(a0, rng.cube(k));
    let a = along(a0, rng.dir(), k * rng.log10(-7.0, -2.0));
    let b = if rng.chance(0.3) {
        along(b0, rng.dir(), k * rng.log10(-7.0, -2.0))
    } else {
        along(b0, rng.dir(), k)
    };
    maybe_swap(rng, (a, b))
}

/// One side (or both) of length exactly zero.
pub fn zero_length(rng: &mut Rng) -> Pair {
    let k = rng.log10(-2.0, 3.0);
    let p = rng.cube(k);
    let a = seg(p, p);
    let b0 = add(p, rng.cube(k));
    let b = if rng.chance(0.3) {
        seg(b0, b0)
    } else {
        along(b0, rng.dir(), k)
    };
    maybe_swap(rng, (a, b))
}

/// Two segments through a common point inside both (up to rounding), at angles 1e-6 ..
/// 1e-1 rad; three times in ten B is lifted off A's plane by 1e-7 .. 1e-3 of the length.
pub fn small_angle_cross(rng: &mut Rng) -> Pair {
    let k = rng.log10(-2.0, 2.0);
    let x = rng.cube(k);
    let u = rng.dir();
    let angle = rng.log10(-6.0, -1.0);
    let v = tilt(rng, u, angle);
    let (sa, sb) = (rng.range(0.1, 0.9), rng.range(0.1, 0.9));
    let lift = if rng.chance(0.3) {
        let n = cross(u, v);
        scale(n, k * rng.log10(-7.0, -3.0) / norm(n))
    } else {
        [0.0; 3]
    };
    let y = add(x, lift);
    (
        seg(sub(x, scale(u, k * sa)), add(x, scale(u, k * (1.0 - sa)))),
        seg(sub(y, scale(v, k * sb)), add(y, scale(v, k * (1.0 - sb)))),
    )
}

/// A side 1e3 .. 1e5 long against a short one (0.1 .. 2) close to it, anywhere along it and
/// beyond its ends, at angles 1e-6 .. 1 rad.
pub fn long_skinny(rng: &mut Rng) -> Pair {
    let length = rng.log10(3.0, 5.0);
    let u = rng.dir();
    let a0 = scale(rng.cube(1.0), length * 0.1);
    let a = along(a0, u, length);
    let near = add(
        add(a0, scale(u, length * rng.range(-0.2, 1.2))),
        rng.cube(1.0),
    );
    let angle = rng.log10(-6.0, 0.0);
    let dir = tilt(rng, u, angle);
    let b = along(near, dir, rng.range(0.1, 2.0));
    maybe_swap(rng, (a, b))
}

/// A general, near-parallel or small-angle crossing pair moved 1e3 .. 1e6 away from the
/// origin (the move is an f32 addition, as a caller's would be).
pub fn far_from_origin(rng: &mut Rng) -> Pair {
    let (a, b) = match rng.below(3) {
        0 => general(rng),
        1 => near_parallel(rng),
        _ => small_angle_cross(rng),
    };
    let offset = scale(rng.dir(), rng.log10(3.0, 6.0));
    let o = to32(offset);
    let mv = |s: Segment| {
        Segment::new(
            core::array::from_fn(|i| s.p0[i] + o[i]),
            core::array::from_fn(|i| s.p1[i] + o[i]),
        )
    };
    (mv(a), mv(b))
}

/// A pair of another finite class scaled by `10^k`, `k` in -12..=12 (rounded to f32 again):
/// coordinates from about 1e-17 to 1e18, where products of four lengths leave f32's range.
/// (Beyond, `dist2`, an f32, cannot hold the squared distance to the bar: below ~1e-19 it is
/// subnormal, above ~1.8e19 infinite; [`rescale`] builds such pairs for bitwise tests.)
pub fn extreme_scale(rng: &mut Rng) -> Pair {
    const BASES: [PairFn; 9] = [
        general,
        near_parallel,
        collinear,
        parallel_overlapping,
        parallel_disjoint,
        tiny,
        zero_length,
        small_angle_cross,
        long_skinny,
    ];
    let pair = rng.pick(&BASES)(rng);
    rescale(pair, 10f64.powi(rng.int(-12, 12) as i32))
}

/// The full finite f32 range: a pair of another finite class (as [`extreme_scale`]) scaled
/// by `2^k`, `k` in -140..=120, so its coordinates land anywhere from subnormal to near
/// `f32::MAX`, where differences and squares overflow (a pair with a coordinate beyond
/// f32's range, which rounds to infinity, is drawn again). Not in [`CLASSES`]: at the ends of the range `dist2` cannot hold the
/// squared distance, and the library flags those pairs `DIST2_OUT_OF_RANGE` instead of
/// meeting the bar (`segbatch verify` and `tests/suite/edge_range.rs` check both).
pub fn full_range(rng: &mut Rng) -> Pair {
    loop {
        let pair = extreme_scale(rng);
        let k = rng.int(-140, 120) as i32;
        let (a, b) = rescale(pair, 2f64.powi(k));
        if [a.p0, a.p1, b.p0, b.p1]
            .iter()
            .flatten()
            .all(|x| x.is_finite())
        {
            return (a, b);
        }
    }
}

/// The class of [`full_range`] (run by `segbatch verify` after [`CLASSES`]).
pub const FULL_RANGE: Class = class("full-range", full_range);

/// A general pair with one coordinate replaced by NaN, +inf or -inf.
pub fn non_finite(rng: &mut Rng) -> Pair {
    let (a, b) = general(rng);
    let value = rng.pick(&[f32::NAN, f32::INFINITY, f32::NEG_INFINITY]);
    poison(rng.below(12) as usize, value, (a, b))
}

/// The pair with coordinate `index` (0..12: A0, A1, B0, B1, three each) set to `value`.
#[must_use]
pub fn poison(index: usize, value: f32, (mut a, mut b): Pair) -> Pair {
    let point = match index / 3 {
        0 => &mut a.p0,
        1 => &mut a.p1,
        2 => &mut b.p0,
        _ => &mut b.p1,
    };
    point[index % 3] = value;
    (a, b)
}

/// `segbatch bench`'s navigation workload (take A as a ray): an agent's sight ray of
/// length 1 from eye height on a 200 x 200 floor, one agent in three moving along the grid
/// (parallel or perpendicular to the walls), against an axis-aligned wall segment of
/// length 2..20 within 20 units.
pub fn navigation(rng: &mut Rng) -> Pair {
    let eye = [rng.range(0.0, 200.0), 1.7, rng.range(0.0, 200.0)];
    // One agent in three moves along the grid (parallel or perpendicular to the walls).
    let angle = if rng.chance(0.33) {
        (rng.next_u64() % 4) as f64 * std::f64::consts::FRAC_PI_2
    } else {
        rng.range(0.0, std::f64::consts::TAU)
    };
    let ray = along(eye, [angle.cos(), 0.0, angle.sin()], 1.0);
    let start = [
        eye[0] + rng.range(-20.0, 20.0),
        0.0,
        eye[2] + rng.range(-20.0, 20.0),
    ];
    let length = rng.range(2.0, 20.0);
    let wall_dir = if rng.chance(0.5) {
        [1.0, 0.0, 0.0]
    } else {
        [0.0, 0.0, 1.0]
    };
    (ray, along(start, wall_dir, length))
}

/// `segbatch bench`'s near-parallel stress mix: half [`near_parallel`], a quarter
/// [`collinear`], an eighth each [`tiny`] and [`far_from_origin`].
pub fn stress_mix(rng: &mut Rng) -> Pair {
    match rng.next_u64() % 4 {
        0 | 1 => near_parallel(rng),
        2 => collinear(rng),
        _ => match rng.next_u64() % 2 {
            0 => tiny(rng),
            _ => far_from_origin(rng),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_produce_what_they_say() {
        let mut rng = Rng::new(1);
        for _ in 0..2000 {
            for c in &CLASSES {
                let (a, b) = (c.pair)(&mut rng);
                let all = [a.p0, a.p1, b.p0, b.p1];
                assert_eq!(all.iter().flatten().all(|x| x.is_finite()), c.finite);
            }
            let (a, b) = zero_length(&mut rng);
            assert!(a.p0 == a.p1 || b.p0 == b.p1);
        }
    }

    #[test]
    fn parallel_classes_are_parallel() {
        let mut rng = Rng::new(2);
        let mut exact = 0;
        for i in 0..20_000 {
            let (a, b) = parallel(&mut rng, i % 2 == 0);
            let da = sub(to64(a.p1), to64(a.p0));
            let db = sub(to64(b.p1), to64(b.p0));
            let n = cross(da, db);
            // Grid pairs stay exactly parallel after rounding; rounded ones nearly.
            let sin = norm(n) / (norm(da) * norm(db));
            assert!(sin < 1e-5, "{a:?} {b:?}");
            exact += usize::from(n == [0.0; 3]);
        }
        assert!(exact > 8_000, "{exact}");
    }
}
