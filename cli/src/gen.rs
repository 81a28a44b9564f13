//! Generated inputs: a small deterministic random number generator, the `bench` workloads
//! and the `verify` hard-case classes.
//!
//! Everything is seeded, so two runs of `segbatch bench` or `segbatch verify` with the same
//! seed see the same pairs. Large batches are generated in parallel, in fixed-size chunks
//! each with its own seed, so the result does not depend on the number of threads.

use rayon::prelude::*;
use segbatch::{Extent, Options, Segment, Segments};

/// SplitMix64: tiny, fast and good enough for test data (not for anything else).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// `10^u` with `u` uniform in `[lo, hi)`: log-uniform magnitudes.
    pub fn log10(&mut self, lo: f64, hi: f64) -> f64 {
        10f64.powf(self.range(lo, hi))
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// A random point in the cube `[-h, h]³`.
    pub fn cube(&mut self, h: f64) -> V {
        [self.range(-h, h), self.range(-h, h), self.range(-h, h)]
    }

    /// A uniformly random unit vector.
    pub fn dir(&mut self) -> V {
        loop {
            let v = self.cube(1.0);
            let n = dot(v, v);
            if n > 1e-4 && n <= 1.0 {
                return scale(v, 1.0 / n.sqrt());
            }
        }
    }
}

/// Points and vectors are built in f64 and rounded once to f32 at the end.
pub type V = [f64; 3];

pub fn add(a: V, b: V) -> V {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
pub fn sub(a: V, b: V) -> V {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
pub fn scale(a: V, k: f64) -> V {
    [a[0] * k, a[1] * k, a[2] * k]
}
pub fn dot(a: V, b: V) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
pub fn cross(a: V, b: V) -> V {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// A unit vector perpendicular to the unit vector `u`, otherwise random.
fn perpendicular(rng: &mut Rng, u: V) -> V {
    loop {
        let w = cross(u, rng.dir());
        let n = dot(w, w);
        if n > 1e-4 {
            return scale(w, 1.0 / n.sqrt());
        }
    }
}

/// The unit vector at `angle` radians from `u`, in a random plane.
fn tilt(rng: &mut Rng, u: V, angle: f64) -> V {
    let v = perpendicular(rng, u);
    add(scale(u, angle.cos()), scale(v, angle.sin()))
}

fn f32v(p: V) -> [f32; 3] {
    [p[0] as f32, p[1] as f32, p[2] as f32]
}

fn seg(p0: V, p1: V) -> Segment {
    Segment::new(f32v(p0), f32v(p1))
}

/// A segment of the given `length` along `dir`, starting at `p0`.
fn along(p0: V, dir: V, length: f64) -> Segment {
    seg(p0, add(p0, scale(dir, length)))
}

/// A generator of one pair.
pub type PairFn = fn(&mut Rng) -> (Segment, Segment);

/// Generates `n` pairs into two batches, in parallel chunks of 64K pairs, each chunk seeded
/// from `seed` and its index (so the data does not depend on the thread count).
pub fn generate(n: usize, seed: u64, pair: PairFn) -> (Segments, Segments) {
    const CHUNK: usize = 64 * 1024;
    let chunks: Vec<Vec<(Segment, Segment)>> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut rng = Rng::new(seed.wrapping_mul(0x1_0000_0001).wrapping_add(c as u64));
            let len = CHUNK.min(n - c * CHUNK);
            (0..len).map(|_| pair(&mut rng)).collect()
        })
        .collect();
    let mut a = Segments::with_capacity(n);
    let mut b = Segments::with_capacity(n);
    let mut side = Vec::with_capacity(CHUNK);
    for chunk in chunks {
        side.clear();
        side.extend(chunk.iter().map(|p| p.0));
        a.extend_from_slice(&side);
        side.clear();
        side.extend(chunk.iter().map(|p| p.1));
        b.extend_from_slice(&side);
    }
    (a, b)
}

// ---------------------------------------------------------------------------------------
// Bench workloads
// ---------------------------------------------------------------------------------------

/// One `segbatch bench` workload.
pub struct Workload {
    pub name: &'static str,
    pub description: &'static str,
    pub options: Options,
    pub pair: PairFn,
}

pub const WORKLOADS: [Workload; 4] = [
    Workload {
        name: "uniform",
        description: "random segment pairs, end points uniform in a 20-unit cube",
        options: Options::SEGMENTS,
        pair: uniform_pair,
    },
    Workload {
        name: "capsules",
        description: "physics-like capsule pairs: short segments near each other, \
                      1 in 5 both upright",
        options: Options::SEGMENTS,
        pair: capsule_pair,
    },
    Workload {
        name: "navigation",
        description: "agent sight rays against axis-aligned wall segments on a floor \
                      (ray vs segment)",
        options: Options::new(Extent::Ray, Extent::Segment),
        pair: navigation_pair,
    },
    Workload {
        name: "near-parallel",
        description: "stress mix: near-parallel (1e-1..1e-7 rad), collinear, tiny and \
                      far-from-origin pairs",
        options: Options::SEGMENTS,
        pair: stress_pair,
    },
];

fn uniform_pair(rng: &mut Rng) -> (Segment, Segment) {
    (
        seg(rng.cube(10.0), rng.cube(10.0)),
        seg(rng.cube(10.0), rng.cube(10.0)),
    )
}

fn capsule_pair(rng: &mut Rng) -> (Segment, Segment) {
    let center = rng.cube(50.0);
    let upright = rng.chance(0.2);
    let side = |c: V, rng: &mut Rng| {
        let half = rng.range(0.25, 1.0);
        let d = if upright {
            let lean = rng.range(0.0, 0.05);
            tilt(rng, [0.0, 1.0, 0.0], lean)
        } else {
            rng.dir()
        };
        seg(sub(c, scale(d, half)), add(c, scale(d, half)))
    };
    let a = side(center, rng);
    let b = side(add(center, rng.cube(1.5)), rng);
    (a, b)
}

fn navigation_pair(rng: &mut Rng) -> (Segment, Segment) {
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

fn stress_pair(rng: &mut Rng) -> (Segment, Segment) {
    match rng.next_u64() % 4 {
        0 | 1 => near_parallel(rng),
        2 => collinear(rng),
        _ => match rng.next_u64() % 2 {
            0 => tiny(rng),
            _ => far(rng),
        },
    }
}

// ---------------------------------------------------------------------------------------
// Hard cases for `verify`
// ---------------------------------------------------------------------------------------

/// One class of hard cases.
pub struct CaseClass {
    pub name: &'static str,
    pub pair: PairFn,
}

pub const CASE_CLASSES: [CaseClass; 11] = [
    CaseClass {
        name: "general",
        pair: general,
    },
    CaseClass {
        name: "near-parallel",
        pair: near_parallel,
    },
    CaseClass {
        name: "collinear",
        pair: collinear,
    },
    CaseClass {
        name: "parallel-overlap",
        pair: parallel_overlapping,
    },
    CaseClass {
        name: "parallel-disjoint",
        pair: parallel_disjoint,
    },
    CaseClass {
        name: "tiny",
        pair: tiny,
    },
    CaseClass {
        name: "zero-length",
        pair: zero_length,
    },
    CaseClass {
        name: "small-angle-cross",
        pair: small_angle_cross,
    },
    CaseClass {
        name: "long-skinny",
        pair: long_skinny,
    },
    CaseClass {
        name: "far-from-origin",
        pair: far,
    },
    CaseClass {
        name: "non-finite",
        pair: non_finite,
    },
];

/// Random position and orientation, lengths 1e-2 .. 1e2.
fn general(rng: &mut Rng) -> (Segment, Segment) {
    let k = rng.log10(-2.0, 2.0);
    let a0 = rng.cube(k);
    let b0 = add(a0, rng.cube(k));
    (
        along(a0, rng.dir(), k * rng.range(0.1, 2.0)),
        along(b0, rng.dir(), k * rng.range(0.1, 2.0)),
    )
}

/// Directions at angles log-uniform in 1e-8 .. 1e-1 rad, lengths 1e-3 .. 1e3, overlapping or
/// offset along the direction, a small perpendicular gap.
fn near_parallel(rng: &mut Rng) -> (Segment, Segment) {
    let k = rng.log10(-3.0, 3.0);
    let u = rng.dir();
    let angle = rng.log10(-8.0, -1.0);
    let a0 = rng.cube(k);
    let gap = scale(perpendicular(rng, u), k * rng.log10(-6.0, 0.0));
    let b0 = add(add(a0, gap), scale(u, k * rng.range(-1.5, 1.5)));
    (
        along(a0, u, k * rng.range(0.5, 1.0)),
        along(b0, tilt(rng, u, angle), k * rng.range(0.5, 1.0)),
    )
}

/// Both segments on one line (up to rounding to f32), overlapping, touching or apart, in
/// either direction.
fn collinear(rng: &mut Rng) -> (Segment, Segment) {
    let k = rng.log10(-3.0, 3.0);
    let u = rng.dir();
    let p = rng.cube(k);
    let (s0, s1) = (rng.range(-2.0, 2.0), rng.range(-2.0, 2.0));
    let (t0, t1) = (rng.range(-2.0, 2.0), rng.range(-2.0, 2.0));
    let at = |x: f64| add(p, scale(u, k * x));
    (seg(at(s0), at(s1)), seg(at(t0), at(t1)))
}

/// Exactly parallel directions (in f64; rounding to f32 tilts them by ~1e-7), a
/// perpendicular gap, projections overlapping.
fn parallel_overlapping(rng: &mut Rng) -> (Segment, Segment) {
    let shift = rng.range(-0.9, 0.9);
    parallel(rng, shift)
}

/// As [`parallel_overlapping`], but the projections do not overlap.
fn parallel_disjoint(rng: &mut Rng) -> (Segment, Segment) {
    let shift = rng.range(1.05, 3.0);
    let shift = if rng.chance(0.5) { shift } else { -shift };
    parallel(rng, shift)
}

fn parallel(rng: &mut Rng, shift: f64) -> (Segment, Segment) {
    let k = rng.log10(-2.0, 2.0);
    let u = rng.dir();
    let a0 = rng.cube(k);
    let gap = scale(perpendicular(rng, u), k * rng.log10(-4.0, 0.0));
    let b0 = add(add(a0, gap), scale(u, k * shift));
    let b1 = add(b0, scale(u, k));
    let b = if rng.chance(0.5) {
        seg(b0, b1)
    } else {
        seg(b1, b0)
    };
    (along(a0, u, k), b)
}

/// One side (or both) of length 1e-7 .. 1e-2 of the coordinate scale.
fn tiny(rng: &mut Rng) -> (Segment, Segment) {
    let k = rng.log10(-2.0, 3.0);
    let a0 = rng.cube(k);
    let b0 = add(a0, rng.cube(k));
    let a = along(a0, rng.dir(), k * rng.log10(-7.0, -2.0));
    let b = if rng.chance(0.3) {
        along(b0, rng.dir(), k * rng.log10(-7.0, -2.0))
    } else {
        along(b0, rng.dir(), k)
    };
    if rng.chance(0.5) { (a, b) } else { (b, a) }
}

/// One side (or both) of length exactly zero.
fn zero_length(rng: &mut Rng) -> (Segment, Segment) {
    let k = rng.log10(-2.0, 3.0);
    let p = rng.cube(k);
    let a = seg(p, p);
    let b0 = add(p, rng.cube(k));
    let b = if rng.chance(0.3) {
        seg(b0, b0)
    } else {
        along(b0, rng.dir(), k)
    };
    if rng.chance(0.5) { (a, b) } else { (b, a) }
}

/// Two segments crossing (up to rounding) at a point inside both, at angles 1e-6 .. 1e-1.
fn small_angle_cross(rng: &mut Rng) -> (Segment, Segment) {
    let k = rng.log10(-2.0, 2.0);
    let x = rng.cube(k);
    let u = rng.dir();
    let angle = rng.log10(-6.0, -1.0);
    let v = tilt(rng, u, angle);
    let (sa, sb) = (rng.range(0.1, 0.9), rng.range(0.1, 0.9));
    (
        seg(sub(x, scale(u, k * sa)), add(x, scale(u, k * (1.0 - sa)))),
        seg(sub(x, scale(v, k * sb)), add(x, scale(v, k * (1.0 - sb)))),
    )
}

/// A side 1e3 .. 1e5 long against a short one close to it.
fn long_skinny(rng: &mut Rng) -> (Segment, Segment) {
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
    if rng.chance(0.5) { (a, b) } else { (b, a) }
}

/// A pair of any of the other kinds moved 1e3 .. 1e6 away from the origin.
fn far(rng: &mut Rng) -> (Segment, Segment) {
    let (a, b) = match rng.next_u64() % 3 {
        0 => general(rng),
        1 => near_parallel(rng),
        _ => small_angle_cross(rng),
    };
    let offset = scale(rng.dir(), rng.log10(3.0, 6.0));
    let o = f32v(offset);
    let mv = |s: Segment| {
        Segment::new(
            core::array::from_fn(|i| s.p0[i] + o[i]),
            core::array::from_fn(|i| s.p1[i] + o[i]),
        )
    };
    (mv(a), mv(b))
}

/// A general pair with one coordinate replaced by NaN, +inf or -inf.
fn non_finite(rng: &mut Rng) -> (Segment, Segment) {
    let (mut a, mut b) = general(rng);
    let value = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY][(rng.next_u64() % 3) as usize];
    let k = (rng.next_u64() % 12) as usize;
    let side = if k < 6 { &mut a } else { &mut b };
    let point = if k % 6 < 3 {
        &mut side.p0
    } else {
        &mut side.p1
    };
    point[k % 3] = value;
    (a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic_and_sized() {
        let (a1, b1) = generate(70_000, 7, uniform_pair);
        let (a2, b2) = generate(70_000, 7, uniform_pair);
        assert_eq!(a1.len(), 70_000);
        assert_eq!(b1.len(), 70_000);
        assert_eq!(a1, a2);
        assert_eq!(b1, b2);
    }

    #[test]
    fn classes_produce_what_they_say() {
        let mut rng = Rng::new(1);
        for _ in 0..100 {
            let (a, b) = zero_length(&mut rng);
            assert!(a.p0 == a.p1 || b.p0 == b.p1);
            let (a, b) = non_finite(&mut rng);
            let all = [a.p0, a.p1, b.p0, b.p1];
            assert!(all.iter().flatten().any(|x| !x.is_finite()));
        }
    }
}
