//! Measures the accuracy of the scalar reference against the f64 oracle of the test kit
//! (`segbatch_testkit::oracle`), class by class, next to a naive f32 implementation of the textbook
//! normal-equations method (Ericson, Real-Time Collision Detection 5.1.9, absolute epsilon
//! 1e-6 on squared lengths), written here from the math.
//!
//! ```text
//! cargo run --release --example accuracy [-- N]     # N pairs per class (default 20000)
//! ```
//!
//! Errors are `|distance - exact| / (f32::EPSILON · S)`, `S` the largest coordinate magnitude
//! of the four end points (for two unbounded sides also of the exact closest points, which
//! can lie far beyond them). Pairs come from the test kit's generators
//! (`segbatch_testkit::pairs::CLASSES`) with a fixed seed, so the output is reproducible.

use segbatch::{Extent, Flags, Options, Segment, Tolerance, reference};
use segbatch_testkit::oracle;
use segbatch_testkit::{CLASSES, EXTENT_PAIRS, Pair, Rng};

/// Ericson 5.1.9 in plain f32 with an absolute epsilon: the 2x2 normal equations
/// (a = dA·dA, b = dA·dB, e = dB·dB, c = dA·r, f = dB·r), s = (b·f - c·e)/(a·e - b²),
/// then t from s, and s recomputed when t was clamped. Returns the distance.
fn naive_segment_distance(p: &Segment, q: &Segment) -> f32 {
    const EPSILON: f32 = 1e-6;
    let sub = |u: [f32; 3], v: [f32; 3]| [u[0] - v[0], u[1] - v[1], u[2] - v[2]];
    let dot = |u: [f32; 3], v: [f32; 3]| u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    let clamp01 = |x: f32| x.clamp(0.0, 1.0);
    let d1 = sub(p.p1, p.p0);
    let d2 = sub(q.p1, q.p0);
    let r = sub(p.p0, q.p0);
    let a = dot(d1, d1);
    let e = dot(d2, d2);
    let f = dot(d2, r);
    let (s, t);
    if a <= EPSILON && e <= EPSILON {
        (s, t) = (0.0, 0.0);
    } else if a <= EPSILON {
        s = 0.0;
        t = clamp01(f / e);
    } else {
        let c = dot(d1, r);
        if e <= EPSILON {
            t = 0.0;
            s = clamp01(-c / a);
        } else {
            let b = dot(d1, d2);
            let denom = a * e - b * b;
            let s0 = if denom != 0.0 {
                clamp01((b * f - c * e) / denom)
            } else {
                0.0
            };
            let t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                (s, t) = (clamp01(-c / a), 0.0);
            } else if t0 > 1.0 {
                (s, t) = (clamp01((b - c) / a), 1.0);
            } else {
                (s, t) = (s0, t0);
            }
        }
    }
    let c1 = [
        p.p0[0] + d1[0] * s,
        p.p0[1] + d1[1] * s,
        p.p0[2] + d1[2] * s,
    ];
    let c2 = [
        q.p0[0] + d2[0] * t,
        q.p0[1] + d2[1] * t,
        q.p0[2] + d2[2] * t,
    ];
    let v = sub(c1, c2);
    dot(v, v).sqrt()
}

/// max and 99th percentile of a sample.
fn stats(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    let max = *v.last().unwrap_or(&0.0);
    let p99 = v[(v.len() * 99 / 100).min(v.len() - 1)];
    (max, p99)
}

/// The tolerance to measure: the default, or `parallel_sin = K·ε` with `PARALLEL_SIN=K` in
/// the environment (to compare settings).
fn tolerance() -> Tolerance {
    match std::env::var("PARALLEL_SIN") {
        Ok(k) => Tolerance {
            parallel_sin: k.parse::<f32>().expect("PARALLEL_SIN must be a number") * f32::EPSILON,
            ..Tolerance::DEFAULT
        },
        Err(_) => Tolerance::DEFAULT,
    }
}

/// Error of the reference for one extent pair, with the scale rule described above.
fn reference_error(a: &Segment, b: &Segment, ea: Extent, eb: Extent) -> f64 {
    let c = reference::closest_points_with(a, b, &Options::new(ea, eb).with_tolerance(tolerance()));
    // A degenerate ray/line is its first point by definition (docs/accuracy.md; the semantics in the crate docs).
    let collapse = |seg: &Segment, e: Extent, deg: bool| {
        if deg && e != Extent::Segment {
            (Segment::new(seg.p0, seg.p0), Extent::Segment)
        } else {
            (*seg, e)
        }
    };
    let (oa, xa) = collapse(a, ea, c.flags.contains(Flags::DEGENERATE_A));
    let (ob, xb) = collapse(b, eb, c.flags.contains(Flags::DEGENERATE_B));
    let unbounded = ea != Extent::Segment && eb != Extent::Segment;
    let exact = if unbounded {
        oracle::oracle_f32_directions(&oa, &ob, xa, xb)
    } else {
        oracle::oracle(&oa, &ob, xa, xb)
    };
    let s = if unbounded {
        oracle::scale_with(a, b, &[exact.point_a, exact.point_b])
    } else {
        oracle::scale(a, b)
    };
    oracle::error_units(c.distance() as f64, exact.distance, s)
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map(|x| x.parse().expect("N must be a number"))
        .unwrap_or(20_000);
    println!("{n} pairs per class; errors in units of f32::EPSILON·S (max / 99th percentile)\n");
    println!("| class | naive seg/seg | ours seg/seg | ours, worst over all 9 extent pairs |");
    println!("|---|---|---|---|");
    for class in CLASSES.iter().filter(|c| c.finite) {
        let mut rng = Rng::new(1);
        let pairs: Vec<Pair> = (0..n).map(|_| (class.pair)(&mut rng)).collect();
        let class = class.name;
        let naive: Vec<f64> = pairs
            .iter()
            .map(|(a, b)| {
                let exact = oracle::oracle_distance(a, b, Extent::Segment, Extent::Segment);
                oracle::error_units(
                    naive_segment_distance(a, b) as f64,
                    exact,
                    oracle::scale(a, b),
                )
            })
            .collect();
        let ours: Vec<f64> = pairs
            .iter()
            .map(|(a, b)| reference_error(a, b, Extent::Segment, Extent::Segment))
            .collect();
        let all: Vec<f64> = pairs
            .iter()
            .flat_map(|(a, b)| {
                EXTENT_PAIRS
                    .iter()
                    .map(move |&(ea, eb)| reference_error(a, b, ea, eb))
            })
            .collect();
        let (nm, np) = stats(naive);
        let (om, op) = stats(ours);
        let (am, ap) = stats(all);
        println!("| {class} | {nm:.3e} / {np:.3e} | {om:.2} / {op:.2} | {am:.2} / {ap:.2} |");
    }
}
