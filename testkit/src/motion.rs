//! Motion and 2D test support: the closest-approach oracle, and the adversarial generators
//! of moving pairs (tangent contacts, overlapping spheres, equal and nearly equal
//! velocities, static objects) and of 2D segment pairs (parallel, collinear, degenerate,
//! T-junctions, near-parallel angles 1e-1 .. 1e-7, shared end points; scales 1e-3 .. 1e3,
//! offsets up to 1e4), and exact integer 2D pairs that meet or do not by construction.

use segbatch::Segment;
use segbatch::planar::Segment2;

use crate::oracle2d::{self, I2, segments_meet_i};
use crate::rng::Rng;
use crate::vec::{V3, add, cross, dot, norm, scale as scale3, sub, to32};

// ---------------------------------------------------------------------------------------
// Closest approach oracle
// ---------------------------------------------------------------------------------------

/// Minimum of `|w0 + t·dv|` over `t` in `[0, t_end]`, and the time attaining it (in f64;
/// `w0` and `dv` are the relative position and velocity).
#[must_use]
pub fn cpa(w0: V3, dv: V3, t_end: f64) -> (f64, f64) {
    let a = dot(dv, dv);
    let t = if a == 0.0 {
        0.0
    } else {
        (-dot(w0, dv) / a).clamp(0.0, t_end)
    };
    (norm(crate::vec::add_scaled(w0, t, dv)), t)
}

// ---------------------------------------------------------------------------------------
// Moving pairs and 2D pairs
// ---------------------------------------------------------------------------------------

/// A pair of objects moving during one step (start/end positions) with radii.
#[derive(Clone, Copy, Debug)]
pub struct MovingPair {
    /// Start and end positions of A (or its path).
    pub a: Segment,
    /// Start and end positions of B.
    pub b: Segment,
    /// Radius of A.
    pub ra: f32,
    /// Radius of B.
    pub rb: f32,
}

/// The number of kinds [`moving_pair`] knows.
pub const MOTION_KINDS: u64 = 9;

/// One adversarial moving pair of kind `kind`.
pub fn moving_pair(rng: &mut Rng, kind: u64) -> MovingPair {
    let scale = rng.pow10(-3, 3);
    let offset = scale3(
        rng.cube(1.0),
        rng.pow10(-3, 4) * if rng.below(3) == 0 { 0.0 } else { 1.0 },
    );
    let b0 = add(offset, rng.cube(scale));
    let vb = rng.cube(scale);
    let r = scale * (0.05 + rng.unit());
    let split = rng.unit();
    let (w0, dv) = match kind {
        // General.
        0 => (rng.cube(scale), rng.cube(scale)),
        // Same velocity.
        1 => (rng.cube(scale), [0.0; 3]),
        // Nearly the same velocity.
        2 => (
            rng.cube(scale),
            scale3(rng.dir(), scale * rng.pow10(-8, -3)),
        ),
        // Tangent contact: the relative path passes exactly R from B at t0.
        3 | 4 => {
            let dir = rng.dir();
            let n = {
                let c = cross(dir, rng.dir());
                scale3(c, 1.0 / norm(c))
            };
            let t0 = rng.unit() * 1.2 - 0.1;
            let speed = scale * (0.2 + 2.0 * rng.unit());
            let miss = if kind == 3 {
                r
            } else {
                // Near-tangent: a relative offset of 1e-7 .. 1e-2 either way.
                r * (1.0 + rng.sym() * rng.pow10(-7, -2))
            };
            (
                sub(scale3(n, miss), scale3(dir, t0 * speed)),
                scale3(dir, speed),
            )
        }
        // Already overlapping at t = 0.
        5 => (scale3(rng.dir(), r * rng.unit() * 0.99), rng.cube(scale)),
        // Head-on: well-conditioned hit.
        6 => {
            let dir = rng.dir();
            let dist = r * (1.5 + 3.0 * rng.unit());
            (scale3(dir, dist), scale3(dir, -dist * (1.0 + rng.unit())))
        }
        // Both static.
        7 => (rng.cube(scale), sub(scale3(vb, 0.0), [0.0; 3])),
        // Tiny relative motion far away.
        _ => (rng.cube(scale * 10.0), scale3(rng.cube(scale), 1e-6)),
    };
    let vb = if kind == 7 { [0.0; 3] } else { vb };
    let a0 = add(b0, w0);
    let a1 = add(add(b0, vb), add(w0, dv));
    MovingPair {
        a: Segment::new(to32(a0), to32(a1)),
        b: Segment::new(to32(b0), to32(add(b0, vb))),
        ra: (r * split) as f32,
        rb: (r * (1.0 - split)) as f32,
    }
}

/// `n` moving pairs of random kinds, from `Rng::new(seed)`.
pub fn moving_pairs(seed: u64, n: usize) -> Vec<MovingPair> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let kind = rng.below(MOTION_KINDS);
            moving_pair(&mut rng, kind)
        })
        .collect()
}

/// The number of kinds [`seg2_pair`] knows.
pub const SEG2_KINDS: u64 = 9;

/// One adversarial 2D pair; the bool says "exactly collinear with a positive-length overlap".
pub fn seg2_pair(rng: &mut Rng, kind: u64) -> (Segment2, Segment2, bool) {
    let scale = rng.pow10(-3, 3);
    let off = if rng.below(3) == 0 {
        0.0
    } else {
        rng.pow10(-3, 4)
    };
    let o = [rng.sym() * off, rng.sym() * off];
    let p = |rng: &mut Rng| [o[0] + rng.sym() * scale, o[1] + rng.sym() * scale];
    let f2 = |v: [f64; 2]| [v[0] as f32, v[1] as f32];
    match kind {
        0 => (
            Segment2::new(f2(p(rng)), f2(p(rng))),
            Segment2::new(f2(p(rng)), f2(p(rng))),
            false,
        ),
        // Parallel, offset sideways (sometimes by very little).
        1 => {
            let a0 = p(rng);
            let dir = [rng.sym() * scale, rng.sym() * scale];
            let side = scale * rng.pow10(-6, 0) * rng.sym();
            let nrm = (dir[0] * dir[0] + dir[1] * dir[1]).sqrt().max(1e-300);
            let perp = [-dir[1] / nrm * side, dir[0] / nrm * side];
            let (k0, k1) = (rng.sym() * 2.0, rng.sym() * 2.0);
            let b0 = [a0[0] + perp[0] + k0 * dir[0], a0[1] + perp[1] + k0 * dir[1]];
            let b1 = [a0[0] + perp[0] + k1 * dir[0], a0[1] + perp[1] + k1 * dir[1]];
            (
                Segment2::new(f2(a0), f2([a0[0] + dir[0], a0[1] + dir[1]])),
                Segment2::new(f2(b0), f2(b1)),
                false,
            )
        }
        // Exactly collinear (small integers times a power of two, plus an exact offset).
        2 => {
            let pw = 2f64.powi(rng.below(20) as i32 - 10);
            let dir = [
                (rng.below(7) as f64 - 3.0) * pw,
                (rng.below(7) as f64 - 3.0) * pw,
            ];
            let dir = if dir == [0.0, 0.0] { [pw, 0.0] } else { dir };
            let base = [
                (rng.below(2001) as f64 - 1000.0) * pw,
                (rng.below(2001) as f64 - 1000.0) * pw,
            ];
            let k: [f64; 4] = core::array::from_fn(|_| rng.below(9) as f64 - 4.0);
            let at = |k: f64| [base[0] + k * dir[0], base[1] + k * dir[1]];
            let (a_lo, a_hi) = (k[0].min(k[1]), k[0].max(k[1]));
            let (b_lo, b_hi) = (k[2].min(k[3]), k[2].max(k[3]));
            let overlap = a_lo < a_hi && b_lo < b_hi && a_lo.max(b_lo) < a_hi.min(b_hi);
            (
                Segment2::new(f2(at(k[0])), f2(at(k[1]))),
                Segment2::new(f2(at(k[2])), f2(at(k[3]))),
                overlap,
            )
        }
        // Collinear after rounding (random direction).
        3 => {
            let a0 = p(rng);
            let dir = [rng.sym() * scale, rng.sym() * scale];
            let at = |k: f64| [a0[0] + k * dir[0], a0[1] + k * dir[1]];
            let (k1, k2, k3) = (rng.sym() * 2.0, rng.sym() * 2.0, rng.sym() * 2.0);
            (
                Segment2::new(f2(a0), f2(at(k1))),
                Segment2::new(f2(at(k2)), f2(at(k3))),
                false,
            )
        }
        // A degenerate side: a point on the other segment's midpoint (exact), or anywhere.
        4 => {
            let b0 = [(rng.below(64) as f64) * 0.25, (rng.below(64) as f64) * 0.25];
            let b1 = [b0[0] + 2.0 * (rng.below(8) as f64 + 1.0), b0[1] - 2.0];
            let on = rng.below(2) == 0;
            let q = if on {
                [(b0[0] + b1[0]) / 2.0, (b0[1] + b1[1]) / 2.0]
            } else {
                p(rng)
            };
            let (a, b) = (Segment2::new(f2(q), f2(q)), Segment2::new(f2(b0), f2(b1)));
            if rng.below(2) == 0 {
                (a, b, false)
            } else {
                (b, a, false)
            }
        }
        // T-junction: B starts exactly at A's midpoint.
        5 => {
            let a0 = [(rng.below(64) as f64) * 0.5, (rng.below(64) as f64) * 0.5];
            let a1 = [a0[0] + 4.0, a0[1] + 2.0];
            let m = [a0[0] + 2.0, a0[1] + 1.0];
            let b1 = [m[0] + rng.sym() * 3.0, m[1] + 1.0 + rng.unit() * 3.0];
            (
                Segment2::new(f2(a0), f2(a1)),
                Segment2::new(f2(m), f2(b1)),
                false,
            )
        }
        // Near-parallel, angle 1e-1 .. 1e-7, crossing or not.
        6 => {
            let a0 = p(rng);
            let th = rng.unit() * 6.3;
            let ang = rng.pow10(-7, -1) * if rng.below(2) == 0 { 1.0 } else { -1.0 };
            let len = scale * (0.5 + rng.unit());
            let a1 = [a0[0] + len * th.cos(), a0[1] + len * th.sin()];
            let c = rng.sym();
            let m = [a0[0] + c * len * th.cos(), a0[1] + c * len * th.sin()];
            let l2 = len * (0.5 + rng.unit());
            let (c2, s2) = ((th + ang).cos(), (th + ang).sin());
            (
                Segment2::new(f2(a0), f2(a1)),
                Segment2::new(
                    f2([m[0] - l2 * c2, m[1] - l2 * s2]),
                    f2([m[0] + l2 * c2, m[1] + l2 * s2]),
                ),
                false,
            )
        }
        // Both degenerate, sometimes the same point.
        7 => {
            let q = f2(p(rng));
            let r = if rng.below(2) == 0 { q } else { f2(p(rng)) };
            (Segment2::new(q, q), Segment2::new(r, r), false)
        }
        // Shared end point (touching at an end).
        _ => {
            let q = p(rng);
            (
                Segment2::new(f2(p(rng)), f2(q)),
                Segment2::new(f2(q), f2(p(rng))),
                false,
            )
        }
    }
}

/// `n` 2D pairs of random kinds, from `Rng::new(seed)`.
pub fn seg2_pairs(seed: u64, n: usize) -> Vec<(Segment2, Segment2, bool)> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let kind = rng.below(SEG2_KINDS);
            seg2_pair(&mut rng, kind)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Exact 2D pairs on integer coordinates
// ---------------------------------------------------------------------------------------

/// Two 2D segments with integer end points (each `[p0, p1]`).
pub type IntPair = ([I2; 2], [I2; 2]);

/// The segment of integer end points, exactly in f32 (coordinates below 2^24).
#[must_use]
pub fn seg2_of(p: [I2; 2]) -> Segment2 {
    Segment2::new(p[0].map(|x| x as f32), p[1].map(|x| x as f32))
}

/// A nonzero integer direction with components in `-20..=20`.
fn int_dir(rng: &mut Rng) -> I2 {
    loop {
        let d = [rng.int(-20, 20), rng.int(-20, 20)];
        if d != [0, 0] {
            return d;
        }
    }
}

/// Two integer directions that are not parallel.
fn int_dirs(rng: &mut Rng) -> (I2, I2) {
    loop {
        let (u, v) = (int_dir(rng), int_dir(rng));
        if u[0] * v[1] - u[1] * v[0] != 0 {
            return (u, v);
        }
    }
}

fn at(p: I2, k: i64, d: I2) -> I2 {
    [p[0] + k * d[0], p[1] + k * d[1]]
}

fn swap_maybe(rng: &mut Rng, (a, b): IntPair) -> IntPair {
    let flip = |rng: &mut Rng, s: [I2; 2]| if rng.chance(0.5) { [s[1], s[0]] } else { s };
    let (a, b) = (flip(rng, a), flip(rng, b));
    if rng.chance(0.5) { (b, a) } else { (a, b) }
}

/// A pair of 2D segments on integer coordinates in `-1000..=1000` that meet, by
/// construction: a proper crossing at an integer point or at a rational one (rejection on
/// the exact test), a T-junction, a shared end point, or a collinear overlap (possibly a
/// single shared end point). Every side has positive length. Checked with the exact
/// [`segments_meet_i`].
pub fn meeting_int_pair(rng: &mut Rng) -> IntPair {
    let x = [rng.int(-500, 500), rng.int(-500, 500)];
    let (u, v) = int_dirs(rng);
    let k = |rng: &mut Rng| rng.int(1, 20);
    let pair = match rng.below(5) {
        // Proper crossing at the integer point x.
        0 => (
            [at(x, -k(rng), u), at(x, k(rng), u)],
            [at(x, -k(rng), v), at(x, k(rng), v)],
        ),
        // T-junction: A ends on B's interior.
        1 => ([x, at(x, k(rng), u)], [at(x, -k(rng), v), at(x, k(rng), v)]),
        // Shared end point.
        2 => ([x, at(x, k(rng), u)], [x, at(x, k(rng), v)]),
        // Collinear, overlapping or touching end to end.
        3 => {
            let la = k(rng);
            let lb = k(rng);
            let st = rng.int(-lb, la);
            ([x, at(x, la, u)], [at(x, st, u), at(x, st + lb, u)])
        }
        // Random end points until they properly cross (at a rational point, usually).
        _ => loop {
            let mut p = || [rng.int(-1000, 1000), rng.int(-1000, 1000)];
            let (a, b) = ([p(), p()], [p(), p()]);
            if a[0] != a[1] && b[0] != b[1] && segments_meet_i(a[0], a[1], b[0], b[1]) {
                break (a, b);
            }
        },
    };
    let pair = swap_maybe(rng, pair);
    debug_assert!(segments_meet_i(pair.0[0], pair.0[1], pair.1[0], pair.1[1]));
    pair
}

/// A pair of 2D segments on integer coordinates in `-1000..=1000` that do not meet, with a
/// clear gap: the exact test says disjoint and the f64 distance exceeds `gap_rel · S`
/// (`S` the largest coordinate magnitude). Near misses by construction (a crossing whose
/// A stops one step short of the crossing point, parallel sides one lattice step apart,
/// collinear sides with a gap) and random pairs.
pub fn disjoint_int_pair(rng: &mut Rng, gap_rel: f64) -> IntPair {
    loop {
        let x = [rng.int(-500, 500), rng.int(-500, 500)];
        let (u, v) = int_dirs(rng);
        let k = |rng: &mut Rng| rng.int(1, 20);
        let pair = match rng.below(4) {
            // A starts one step past the crossing point of the two lines.
            0 => (
                [at(x, 1, u), at(x, 1 + k(rng), u)],
                [at(x, -k(rng), v), at(x, k(rng), v)],
            ),
            // Parallel, B shifted off A's line by v.
            1 => {
                let (la, lb) = (k(rng), k(rng));
                let st = rng.int(-lb - 5, la + 5);
                let b0 = at(at(x, st, u), 1, v);
                ([x, at(x, la, u)], [b0, at(b0, lb, u)])
            }
            // Collinear with a gap of at least one step.
            2 => {
                let (la, lb) = (k(rng), k(rng));
                let st = la + rng.int(1, 10);
                ([x, at(x, la, u)], [at(x, st, u), at(x, st + lb, u)])
            }
            _ => {
                let mut p = || [rng.int(-1000, 1000), rng.int(-1000, 1000)];
                ([p(), p()], [p(), p()])
            }
        };
        let (a, b) = swap_maybe(rng, pair);
        if segments_meet_i(a[0], a[1], b[0], b[1]) {
            continue;
        }
        let (sa, sb) = (seg2_of(a), seg2_of(b));
        if oracle2d::distance(&sa, &sb) > gap_rel * oracle2d::scale(&sa, &sb) {
            return (a, b);
        }
    }
}

/// The motion benches' and profiles' distribution: `n` pairs of start/end segments with
/// ends uniform in the cube `[-10, 10]³`, and per-pair radii in `[1, 2)`, from seed 42.
pub fn step_pairs(n: usize) -> (Vec<Segment>, Vec<Segment>, Vec<f32>, Vec<f32>) {
    let mut r = Rng::new(42);
    let a: Vec<Segment> = (0..n)
        .map(|_| Segment::new(r.cube_f32(10.0), r.cube_f32(10.0)))
        .collect();
    let b: Vec<Segment> = (0..n)
        .map(|_| Segment::new(r.cube_f32(10.0), r.cube_f32(10.0)))
        .collect();
    let ra: Vec<f32> = (0..n).map(|_| 1.0 + r.range_f32(-1.0, 1.0).abs()).collect();
    let rb: Vec<f32> = (0..n).map(|_| 1.0 + r.range_f32(-1.0, 1.0).abs()).collect();
    (a, b, ra, rb)
}
