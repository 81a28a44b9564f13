//! Swept capsules: seeded adversarial pairs and an `f64` oracle of the first contact.
//!
//! The oracle is independent of the library's method: the cores' distance `d(τ)` at a
//! time is the `f64` segment oracle at end points interpolated in `f64` from the given
//! `f32` sweeps, and the first time `d` falls to a level is found by branch and bound on
//! `[0, 1]` with the Lipschitz bound `L = max |vAi - vBj|` (no time in an interval whose
//! end values `dl`, `dh` give `(dl + dh - L·(h - l))/2 > level` can reach the level), not
//! by conservative advancement along a direction.

use crate::oracle::oracle64;
use crate::rng::Rng;
use crate::vec::{V3, add_scaled, norm, sub, to64};
use segbatch::motion::Sweep;
use segbatch::{Extent, Segment};

/// A pair of swept capsules and the class it came from.
#[derive(Clone, Copy, Debug)]
pub struct SweptPair {
    /// Capsule A's core over the step.
    pub a: Sweep,
    /// Capsule B's core over the step.
    pub b: Sweep,
    /// A's radius.
    pub ra: f32,
    /// B's radius.
    pub rb: f32,
    /// The class (see [`swept_pair`]).
    pub kind: u64,
}

/// Number of classes of [`swept_pair`].
pub const SWEPT_KINDS: u64 = 10;

fn point(rng: &mut Rng, s: f64) -> V3 {
    [rng.sym() * s, rng.sym() * s, rng.sym() * s]
}

fn unit(rng: &mut Rng) -> V3 {
    loop {
        let p = point(rng, 1.0);
        let n = norm(p);
        if n > 0.1 && n <= 1.0 {
            return p.map(|x| x / n);
        }
    }
}

fn seg(p0: V3, p1: V3) -> Segment {
    Segment::new(p0.map(|x| x as f32), p1.map(|x| x as f32))
}

/// One pair of class `kind % SWEPT_KINDS`, at a random scale (1e-3..1e3) and offset (up to
/// 1e4 times the scale):
///
/// 0. a bullet (radius 1e-3..1e-1, length 0..4 radii) crossing 10..1000 radii in one step
///    through or past a fixed thin wall (radius 1e-3..1e-1);
/// 1. two thin fast rods translating on crossing paths;
/// 2. a sword turning about its hilt (the tip moving on the chord) past a fixed rope;
/// 3. exact grazing: a sphere passing a wall's end or face with the closest distance
///    exactly `rA + rB` (representable values);
/// 4. parallel motion: both capsules translating alike (the static test decides);
/// 5. zero motion;
/// 6. parallel cores closing on each other;
/// 7. general: eight random end positions, random radii;
/// 8. moving spheres (zero-length cores) against a moving capsule;
/// 9. touching at the start.
#[must_use]
pub fn swept_pair(rng: &mut Rng, kind: u64) -> SweptPair {
    let kind = kind % SWEPT_KINDS;
    let (a, b, ra, rb): (Sweep, Sweep, f64, f64) = match kind {
        0 => {
            let r = rng.log10(-3.0, -1.0);
            let dir = unit(rng);
            let len = rng.range(0.0, 4.0) * r;
            let travel = rng.log10(1.0, 3.0) * r;
            // The wall through the origin, across the path, offset so some miss its end.
            let across = unit(rng);
            let wall_half = rng.range(0.5, 2.0) * travel.min(1.0);
            let shift = rng.sym() * 1.5 * wall_half;
            let start = add_scaled(add_scaled([0.0; 3], -0.5 * travel, dir), shift, across);
            let start = add_scaled(start, rng.sym() * r, unit(rng));
            let end = add_scaled(start, travel, dir);
            let a = Sweep::new(
                seg(start, add_scaled(start, len, dir)),
                seg(end, add_scaled(end, len, dir)),
            );
            let w0 = add_scaled([0.0; 3], -wall_half, across);
            let w1 = add_scaled([0.0; 3], wall_half, across);
            (a, Sweep::fixed(seg(w0, w1)), r, rng.log10(-3.0, -1.0))
        }
        1 => {
            let r = rng.log10(-3.0, -1.0);
            let mk = |rng: &mut Rng| {
                let dir = unit(rng);
                let axis = unit(rng);
                let len = rng.range(0.0, 20.0) * r;
                let travel = rng.log10(1.0, 3.0) * r;
                let mid = add_scaled(
                    point(rng, travel * 0.1),
                    rng.range(-0.7, -0.3) * travel,
                    dir,
                );
                let p0 = add_scaled(mid, -0.5 * len, axis);
                let p1 = add_scaled(mid, 0.5 * len, axis);
                Sweep::new(
                    seg(p0, p1),
                    seg(add_scaled(p0, travel, dir), add_scaled(p1, travel, dir)),
                )
            };
            (mk(rng), mk(rng), r, rng.log10(-3.0, -1.0))
        }
        2 => {
            let hilt = point(rng, 0.2);
            let len = rng.range(0.5, 2.0);
            let (u, v) = (unit(rng), unit(rng));
            let a = Sweep::new(
                seg(hilt, add_scaled(hilt, len, u)),
                seg(hilt, add_scaled(hilt, len, v)),
            );
            let mid = add_scaled(add_scaled(hilt, 0.5 * len, u), 0.5 * len, v);
            let axis = unit(rng);
            let rope = seg(add_scaled(mid, -1.0, axis), add_scaled(mid, 1.0, axis));
            (
                a,
                Sweep::fixed(rope),
                rng.log10(-3.0, -1.5),
                rng.log10(-3.0, -1.5),
            )
        }
        3 => {
            // Wall along y from (0,0,0) to (0,1,0) (radius rb); a sphere (radius ra) moving
            // along x at height z = ra + rb over the wall's face, or past its end at y < 0.
            let ra = rng.range(1.0, 8.0).round() / 16.0;
            let rb = rng.range(0.0, 8.0).round() / 16.0;
            let h = ra + rb;
            let y = if rng.unit() < 0.5 { 0.5 } else { -h };
            let z = if y < 0.0 { 0.0 } else { h };
            let x0 = -rng.range(1.0, 4.0).round();
            let p = [x0, y, z];
            let q = [-x0, y, z];
            let a = Sweep::new(seg(p, p), seg(q, q));
            let b = Sweep::fixed(seg([0.0; 3], [0.0, 1.0, 0.0]));
            (a, b, ra, rb)
        }
        4 => {
            let v = point(rng, 10.0);
            let (a0, a1, b0, b1) = (
                point(rng, 1.0),
                point(rng, 1.0),
                point(rng, 1.0),
                point(rng, 1.0),
            );
            let m = |p: V3| add_scaled(p, 1.0, v);
            (
                Sweep::new(seg(a0, a1), seg(m(a0), m(a1))),
                Sweep::new(seg(b0, b1), seg(m(b0), m(b1))),
                rng.range(0.0, 0.5),
                rng.range(0.0, 0.5),
            )
        }
        5 => {
            let (a0, a1, b0, b1) = (
                point(rng, 1.0),
                point(rng, 1.0),
                point(rng, 1.0),
                point(rng, 1.0),
            );
            (
                Sweep::fixed(seg(a0, a1)),
                Sweep::fixed(seg(b0, b1)),
                rng.range(0.0, 0.5),
                rng.range(0.0, 0.5),
            )
        }
        6 => {
            let axis = unit(rng);
            let across = unit(rng);
            let len = rng.range(0.5, 2.0);
            let gap = rng.range(1.0, 3.0);
            let a0 = point(rng, 0.1);
            let b0 = add_scaled(add_scaled(a0, gap, across), rng.sym(), axis);
            let close = rng.range(0.5, 1.5) * gap;
            let a = Sweep::new(
                seg(a0, add_scaled(a0, len, axis)),
                seg(
                    add_scaled(a0, 0.5 * close, across),
                    add_scaled(add_scaled(a0, len, axis), 0.5 * close, across),
                ),
            );
            let b1 = add_scaled(b0, len, axis);
            let b = Sweep::new(
                seg(b0, b1),
                seg(
                    add_scaled(b0, -0.5 * close, across),
                    add_scaled(b1, -0.5 * close, across),
                ),
            );
            (a, b, rng.range(0.0, 0.3), rng.range(0.0, 0.3))
        }
        7 => {
            let mut e = || seg(point(rng, 1.0), point(rng, 1.0));
            let (a, b, c, d) = (e(), e(), e(), e());
            (
                Sweep::new(a, b),
                Sweep::new(c, d),
                rng.range(0.0, 0.3),
                rng.range(0.0, 0.3),
            )
        }
        8 => {
            let (p, q) = (point(rng, 1.0), point(rng, 1.0));
            let a = Sweep::new(seg(p, p), seg(q, q));
            let b = Sweep::new(
                seg(point(rng, 1.0), point(rng, 1.0)),
                seg(point(rng, 1.0), point(rng, 1.0)),
            );
            (a, b, rng.range(0.0, 0.3), rng.range(0.0, 0.3))
        }
        _ => {
            let a0 = point(rng, 1.0);
            let a1 = point(rng, 1.0);
            let b0 = add_scaled(a0, 0.1, unit(rng));
            let b1 = point(rng, 1.0);
            (
                Sweep::new(seg(a0, a1), seg(point(rng, 1.0), point(rng, 1.0))),
                Sweep::new(seg(b0, b1), seg(point(rng, 1.0), point(rng, 1.0))),
                0.1,
                0.1,
            )
        }
    };
    // Scale and offset: exact powers of two for the exact classes, anything elsewhere.
    let (k, o) = if kind == 3 {
        (2f64.powi(rng.range(-10.0, 10.0) as i32), 0.0)
    } else {
        (
            10f64.powf(rng.range(-3.0, 3.0)),
            if rng.unit() < 0.3 {
                rng.log10(0.0, 4.0)
            } else {
                0.0
            },
        )
    };
    let off = |p: [f32; 3]| p.map(|x| (f64::from(x) * k + o * k) as f32);
    let tr = |s: Sweep| {
        Sweep::new(
            Segment::new(off(s.start.p0), off(s.start.p1)),
            Segment::new(off(s.end.p0), off(s.end.p1)),
        )
    };
    SweptPair {
        a: tr(a),
        b: tr(b),
        ra: (ra * k) as f32,
        rb: (rb * k) as f32,
        kind,
    }
}

/// `n` pairs cycling through the classes, from `seed`.
#[must_use]
pub fn swept_pairs(seed: u64, n: usize) -> Vec<SweptPair> {
    let mut rng = Rng::new(seed);
    (0..n as u64).map(|k| swept_pair(&mut rng, k)).collect()
}

/// The four end positions of a sweep in `f64`, `[a0, a1, a0', a1']`.
fn ends(s: &Sweep) -> [V3; 4] {
    [
        to64(s.start.p0),
        to64(s.start.p1),
        to64(s.end.p0),
        to64(s.end.p1),
    ]
}

/// The distance of the cores at time `tau`, end points interpolated in `f64`.
#[must_use]
pub fn core_distance(a: &Sweep, b: &Sweep, tau: f64) -> f64 {
    let at = |e: [V3; 4]| {
        (
            add_scaled(e[0], tau, sub(e[2], e[0])),
            add_scaled(e[1], tau, sub(e[3], e[1])),
        )
    };
    let ((a0, a1), (b0, b1)) = (at(ends(a)), at(ends(b)));
    oracle64(a0, a1, b0, b1, Extent::Segment, Extent::Segment).distance
}

/// The Lipschitz bound of the core distance in time: the largest relative speed of the
/// four end-point pairs.
#[must_use]
pub fn speed_bound(a: &Sweep, b: &Sweep) -> f64 {
    let (ea, eb) = (ends(a), ends(b));
    let va = [sub(ea[2], ea[0]), sub(ea[3], ea[1])];
    let vb = [sub(eb[2], eb[0]), sub(eb[3], eb[1])];
    let mut m: f64 = 0.0;
    for x in va {
        for y in vb {
            m = m.max(norm(sub(x, y)));
        }
    }
    m
}

/// The first time in `[t0, t1]` at which the cores' distance is at most `level` (found by
/// branch and bound with [`speed_bound`], to a time resolution of `1e-13`), or `None`.
#[must_use]
pub fn first_below(a: &Sweep, b: &Sweep, level: f64, t0: f64, t1: f64) -> Option<f64> {
    let l = speed_bound(a, b) * (1.0 + 1e-12);
    let f = |tau: f64| core_distance(a, b, tau);
    // Intervals to search, latest first (a stack), so the first found is the earliest.
    let (d0, d1) = (f(t0), f(t1));
    if d0 <= level {
        return Some(t0);
    }
    let mut stack = vec![(t0, d0, t1, d1)];
    while let Some((lo, dl, hi, dh)) = stack.pop() {
        if dl <= level {
            return Some(lo);
        }
        if (dl + dh - l * (hi - lo)) / 2.0 > level {
            continue;
        }
        if hi - lo < 1e-13 {
            if dh <= level {
                return Some(hi);
            }
            continue;
        }
        let mid = 0.5 * (lo + hi);
        let dm = f(mid);
        stack.push((mid, dm, hi, dh));
        stack.push((lo, dl, mid, dm));
    }
    (d1 <= level).then_some(t1)
}

/// The largest absolute coordinate of the pair's end positions (the `S` of `ε·S`).
#[must_use]
pub fn pair_scale(p: &SweptPair) -> f64 {
    ends(&p.a)
        .iter()
        .chain(ends(&p.b).iter())
        .flatten()
        .fold(0.0f64, |m, x| m.max(x.abs()))
}

/// A scene of fast, thin capsules among thin walls, frame after frame (the swept benches'
/// distribution): `sweeps[f][i]` is object `i`'s motion from frame `f` to frame `f + 1`.
#[derive(Clone, Debug)]
pub struct SweptScene {
    /// Per step, every object's sweep.
    pub sweeps: Vec<Vec<Sweep>>,
    /// Per object, its radius.
    pub radii: Vec<f32>,
}

/// `n` objects in a cube of side `∛(2.65·n)` (so that a bullet's swept box meets a few
/// walls): half are fixed walls (radius 0.02, length 1-3, any direction),
/// half bullets (radius 0.01, length 0.05) each flying in a straight line at 0.5-1.5 units
/// (50-150 radii) a step; `steps` steps from `seed`.
#[must_use]
pub fn thin_fast_scene(n: usize, steps: usize, seed: u64) -> SweptScene {
    let mut rng = Rng::new(seed);
    let side = (n as f64 * 2.65).cbrt();
    let walls = n / 2;
    let mut radii = Vec::with_capacity(n);
    let mut start: Vec<(V3, V3)> = Vec::with_capacity(n);
    let mut vel: Vec<V3> = Vec::with_capacity(n);
    for k in 0..n {
        let c = [rng.unit() * side, rng.unit() * side, rng.unit() * side];
        let d = unit(&mut rng);
        if k < walls {
            let h = rng.range(0.5, 1.5);
            start.push((add_scaled(c, -h, d), add_scaled(c, h, d)));
            vel.push([0.0; 3]);
            radii.push(0.02);
        } else {
            let v = unit(&mut rng);
            let speed = rng.range(0.5, 1.5);
            start.push((c, add_scaled(c, 0.05, v)));
            vel.push(v.map(|x| x * speed));
            radii.push(0.01);
        }
    }
    let at = |k: usize, f: usize| {
        let (p0, p1) = start[k];
        let s = f as f64;
        seg(add_scaled(p0, s, vel[k]), add_scaled(p1, s, vel[k]))
    };
    let sweeps = (0..steps)
        .map(|f| (0..n).map(|k| Sweep::new(at(k, f), at(k, f + 1))).collect())
        .collect();
    SweptScene { sweeps, radii }
}

/// The pairs `(i, j)`, `i < j`, sorted, whose swept boxes (the box of each sweep's four end
/// positions grown by its radius plus a thousandth of it and `1e-5`) overlap: found by a
/// sort and sweep on x. The candidates the swept benches hand every implementation.
#[must_use]
pub fn swept_candidates(sweeps: &[Sweep], radii: &[f32]) -> Vec<(u32, u32)> {
    let boxes: Vec<([f32; 3], [f32; 3])> = sweeps
        .iter()
        .zip(radii)
        .map(|(s, &r)| {
            let pts = [s.start.p0, s.start.p1, s.end.p0, s.end.p1];
            let pad = r * 1.001 + 1e-5;
            let lo =
                core::array::from_fn(|k| pts.iter().fold(f32::INFINITY, |m, p| m.min(p[k])) - pad);
            let hi = core::array::from_fn(|k| {
                pts.iter().fold(f32::NEG_INFINITY, |m, p| m.max(p[k])) + pad
            });
            (lo, hi)
        })
        .collect();
    let mut order: Vec<u32> = (0..sweeps.len() as u32).collect();
    order.sort_by(|&a, &b| boxes[a as usize].0[0].total_cmp(&boxes[b as usize].0[0]));
    let mut pairs = Vec::new();
    for (x, &i) in order.iter().enumerate() {
        let (lo, hi) = boxes[i as usize];
        for &j in &order[x + 1..] {
            let (lo2, hi2) = boxes[j as usize];
            if lo2[0] > hi[0] {
                break;
            }
            if (1..3).all(|k| lo[k] <= hi2[k] && lo2[k] <= hi[k]) {
                pairs.push((i.min(j), i.max(j)));
            }
        }
    }
    pairs.sort_unstable();
    pairs
}
