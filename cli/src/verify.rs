//! `segbatch verify`: the kernel, the parallel driver and the reference on generated hard
//! cases, compared with each other and with an `f64` computation.
//!
//! The `f64` oracle is independent of the library: the minimum over the end-point-to-side
//! distances (each side clamped to its extent) and the interior solution of the two lines
//! when it falls inside both extents. `f32` products are exact in `f64`, so it is accurate
//! far beyond the `f32` results it checks.

use std::io::Write;
use std::time::Instant;

use clap::Args;
use segbatch::{
    ClosestBatch, Extent, Flags, Options, Outputs, Segment, SegmentsView, closest_points_into,
    par_closest_points_into, reference,
};

use super::CliError;
use super::r#gen::{CASE_CLASSES, V, add, cross, dot, generate, scale, sub};

/// Allowed distance error against the `f64` oracle, in units of `f32::EPSILON · S`.
pub const DISTANCE_BOUND: f64 = 8.0;
/// Allowed kernel-vs-reference distance difference off x86_64, in `f32::EPSILON · S`.
pub const KERNEL_REFERENCE_BOUND: f64 = 2.0;

pub const LONG_ABOUT: &str = "\
Checks this build on this CPU: runs the 8-lane kernel, the parallel driver and the
scalar reference on generated hard cases and compares them with an f64 computation.

Case classes: general, near-parallel (1e-8..1e-1 rad), collinear, parallel
overlapping and disjoint, tiny and zero-length sides, crossing at small angles,
long and skinny, far from the origin (1e3..1e6), and non-finite inputs; each as
segment vs segment, ray vs segment and line vs line.

Errors are printed in units of f32::EPSILON * S, S being the largest coordinate
magnitude of the pair's end points; with a ray or a line, also of the reported
closest points (near-parallel lines meet far beyond their end points, and a point
there is only representable to eps * |C|). Where the documented semantics differ
from exact geometry, the f64 value follows them: a side flagged degenerate is the
point it collapses to, a pair flagged parallel is treated as parallel, and two
unbounded sides are taken as represented (directions rounded once to f32). It fails (exit code 1) when
  - a distance is off the f64 value by more than 8 * eps * S,
  - the kernel and the reference differ (bit for bit on x86_64; elsewhere by
    more than 2 * eps * S in distance),
  - the parallel driver differs from the kernel at all,
  - a parameter lies outside its extent, or a non-finite input is not flagged
    with NaN outputs.
Run it on a new CPU or after changing build flags (RUSTFLAGS, target-cpu).";

pub const AFTER_HELP: &str = "\
Examples:
  segbatch verify
  segbatch verify --cases 200000 --seed 7
  RUSTFLAGS=\"-C target-cpu=native\" cargo run --release -- verify";

/// Arguments of `segbatch verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Cases per class and extent combination
    #[arg(long, value_name = "N", default_value_t = 100_000,
          value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub cases: u32,

    /// Seed of the generated cases
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

const EXTENTS: [(Extent, Extent); 3] = [
    (Extent::Segment, Extent::Segment),
    (Extent::Ray, Extent::Segment),
    (Extent::Line, Extent::Line),
];

fn extent_short(e: Extent) -> &'static str {
    match e {
        Extent::Segment => "seg",
        Extent::Ray => "ray",
        Extent::Line => "line",
    }
}

fn v64(p: [f32; 3]) -> V {
    [p[0].into(), p[1].into(), p[2].into()]
}

/// Distance from `p` to side `(b0, db)` with parameter range `[lo, hi]`, in f64.
fn point_to_side(p: V, b0: V, db: V, lo: f64, hi: f64) -> f64 {
    let e = dot(db, db);
    let t = if e > 0.0 {
        (dot(sub(p, b0), db) / e).clamp(lo, hi)
    } else {
        0.0
    };
    let d = sub(p, add(b0, scale(db, t)));
    dot(d, d).sqrt()
}

/// The exact distance (up to f64 rounding) between two sides of the given extents.
///
/// Where the library's documented semantics differ from the exact geometry of the `f32`
/// end points, the oracle follows the semantics, as reported in `flags`: a side flagged
/// degenerate (too short to carry a direction) is its first point, a pair flagged
/// parallel is treated as parallel, and two unbounded sides have their directions rounded
/// to f32 as the library represents them.
pub fn oracle(a: &Segment, b: &Segment, ea: Extent, eb: Extent, flags: Flags) -> f64 {
    let (a0, b0) = (v64(a.p0), v64(b.p0));
    let (mut a, mut b) = (*a, *b);
    if flags.contains(Flags::DEGENERATE_A) {
        a.p1 = a.p0;
    }
    if flags.contains(Flags::DEGENERATE_B) {
        b.p1 = b.p0;
    }
    // Two unbounded sides: their exact answer is ill-conditioned near parallel (half an ulp
    // of rounding in P1 - P0 can move the closest points by S / sin(angle)), so the bound is
    // for the sides as represented, directions rounded once to f32 (docs/accuracy.md).
    let both_unbounded = ea != Extent::Segment && eb != Extent::Segment;
    let direction = |s: &Segment, p0: V| {
        if both_unbounded {
            v64(s.direction())
        } else {
            sub(v64(s.p1), p0)
        }
    };
    let (da, db) = (direction(&a, a0), direction(&b, b0));
    let bounds = |e: Extent| {
        let (lo, hi) = e.bounds();
        (f64::from(lo), f64::from(hi))
    };
    let ((lo_a, hi_a), (lo_b, hi_b)) = (bounds(ea), bounds(eb));
    // A0 and B0 lie on their sides whatever the extent; A1 and B1 are ends only of segments.
    let mut best = point_to_side(a0, b0, db, lo_b, hi_b).min(point_to_side(b0, a0, da, lo_a, hi_a));
    if ea == Extent::Segment {
        best = best.min(point_to_side(v64(a.p1), b0, db, lo_b, hi_b));
    }
    if eb == Extent::Segment {
        best = best.min(point_to_side(v64(b.p1), a0, da, lo_a, hi_a));
    }
    let n = cross(da, db);
    let nn = dot(n, n);
    // A pair flagged parallel is treated as parallel (its nearly parallel lines would meet
    // far beyond any coordinate of the input): only the end-point candidates count.
    if nn > 0.0 && !flags.contains(Flags::PARALLEL) {
        let r = sub(b0, a0);
        let s = dot(cross(r, db), n) / nn;
        let t = dot(cross(r, da), n) / nn;
        if (lo_a..=hi_a).contains(&s) && (lo_b..=hi_b).contains(&t) {
            let v = sub(add(sub(a0, b0), scale(da, s)), scale(db, t));
            best = best.min(dot(v, v).sqrt());
        }
    }
    best
}

/// What one class and extent combination found.
#[derive(Default)]
struct Tally {
    cases: usize,
    non_finite: usize,
    max_kernel: f64,
    max_reference: f64,
    kernel_vs_reference: usize,
    max_kernel_vs_reference: f64,
    par_vs_kernel: usize,
    outside_extent: usize,
    bad_non_finite: usize,
    over_bound: usize,
    worst: Option<(usize, Segment, Segment, f64)>,
}

fn same(x: f32, y: f32) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

fn same_result(x: &segbatch::Closest, y: &segbatch::Closest) -> bool {
    same(x.s, y.s)
        && same(x.t, y.t)
        && same(x.dist2, y.dist2)
        && x.flags == y.flags
        && (0..3).all(|k| same(x.point_a[k], y.point_a[k]) && same(x.point_b[k], y.point_b[k]))
}

fn check(a: SegmentsView, b: SegmentsView, options: &Options) -> Tally {
    let n = a.len();
    let mut kernel = ClosestBatch::new();
    let mut par = ClosestBatch::new();
    closest_points_into(a, b, options, Outputs::ALL, &mut kernel).expect("classes are pairs");
    par_closest_points_into(a, b, options, Outputs::ALL, &mut par).expect("classes are pairs");
    let bitwise = cfg!(target_arch = "x86_64");
    let unbounded = options.extent_a != Extent::Segment || options.extent_b != Extent::Segment;
    let (lo_a, hi_a) = options.extent_a.bounds();
    let (lo_b, hi_b) = options.extent_b.bounds();
    let mut t = Tally {
        cases: n,
        ..Tally::default()
    };
    let results = kernel.iter().zip(par.iter());
    for (i, ((sa, sb), (k, p))) in a.iter().zip(b.iter()).zip(results).enumerate() {
        let r = reference::closest_points_with(&sa, &sb, options);
        if !same_result(&k, &p) {
            t.par_vs_kernel += 1;
        }
        let coords = [sa.p0, sa.p1, sb.p0, sb.p1];
        if coords.iter().flatten().any(|x| !x.is_finite()) {
            t.non_finite += 1;
            if !k.flags.contains(Flags::NON_FINITE) || !k.dist2.is_nan() {
                t.bad_non_finite += 1;
            }
            if !same_result(&k, &r) {
                t.kernel_vs_reference += 1;
            }
            continue;
        }
        // S: the end points' magnitude; with an unbounded side, also the closest points'
        // (which may lie far beyond the end points and are themselves only representable to
        // eps * |C|).
        let mut scale_s = coords
            .iter()
            .flatten()
            .fold(0f64, |m, x| m.max(f64::from(x.abs())));
        if unbounded {
            for x in k.point_a.iter().chain(&k.point_b) {
                scale_s = scale_s.max(f64::from(x.abs()));
            }
        }
        let unit = f64::from(f32::EPSILON) * scale_s.max(f64::from(f32::MIN_POSITIVE));
        let exact = oracle(&sa, &sb, options.extent_a, options.extent_b, k.flags);
        let err_k = (f64::from(k.dist2).sqrt() - exact).abs() / unit;
        let err_r = (f64::from(r.dist2).sqrt() - exact).abs() / unit;
        let err_k = if err_k.is_nan() { f64::INFINITY } else { err_k };
        let err_r = if err_r.is_nan() { f64::INFINITY } else { err_r };
        if err_k > t.max_kernel {
            t.max_kernel = err_k;
            t.worst = Some((i, sa, sb, exact));
        }
        t.max_reference = t.max_reference.max(err_r);
        if err_k > DISTANCE_BOUND || err_r > DISTANCE_BOUND {
            t.over_bound += 1;
        }
        let diff = (f64::from(k.dist2).sqrt() - f64::from(r.dist2).sqrt()).abs() / unit;
        t.max_kernel_vs_reference = t.max_kernel_vs_reference.max(diff);
        let differs = if bitwise {
            !same_result(&k, &r)
        } else {
            diff > KERNEL_REFERENCE_BOUND
        };
        if differs {
            t.kernel_vs_reference += 1;
        }
        let inside = |x: f32, lo: f32, hi: f32| x >= lo && x <= hi;
        if !inside(k.s, lo_a, hi_a) || !inside(k.t, lo_b, hi_b) {
            t.outside_extent += 1;
        }
    }
    t
}

/// Runs `segbatch verify`.
pub fn run(args: &VerifyArgs, out: &mut impl Write) -> Result<(), CliError> {
    let start = Instant::now();
    let bitwise = cfg!(target_arch = "x86_64");
    writeln!(
        out,
        "segbatch verify {}: SIMD build {} (CPU {}), {} cases per class and extents, seed {}",
        env!("CARGO_PKG_VERSION"),
        segbatch::SIMD_LEVEL,
        segbatch::cpu_simd_level(),
        args.cases,
        args.seed
    )?;
    writeln!(
        out,
        "errors in units of f32::EPSILON * S (S = max |coordinate| of the end points, and of the \
         closest points for rays and lines);\nbound {DISTANCE_BOUND} vs f64; kernel vs reference {}",
        if bitwise {
            "bit for bit (x86_64)".to_owned()
        } else {
            format!("within {KERNEL_REFERENCE_BOUND} in distance")
        }
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "{:<18} {:<9} {:>7} {:>11} {:>11} {:>9} {:>9} {:>8} {:>7}",
        "class",
        "extents",
        "cases",
        "kernel err",
        "ref err",
        "kern!=ref",
        "par!=kern",
        "outside",
        "nonfin"
    )?;
    let mut failures = Vec::new();
    let mut total = 0usize;
    for (c, class) in CASE_CLASSES.iter().enumerate() {
        let seed = args.seed.wrapping_mul(1000).wrapping_add(c as u64);
        let (a, b) = generate(args.cases as usize, seed, class.pair);
        for (ea, eb) in EXTENTS {
            let options = Options::new(ea, eb);
            let t = check(a.as_view(), b.as_view(), &options);
            total += t.cases;
            let extents = format!("{}/{}", extent_short(ea), extent_short(eb));
            let fmt_err = |e: f64, any: bool| {
                if any {
                    format!("{e:.2}")
                } else {
                    "-".to_owned()
                }
            };
            let finite = t.cases > t.non_finite;
            writeln!(
                out,
                "{:<18} {:<9} {:>7} {:>11} {:>11} {:>9} {:>9} {:>8} {:>7}",
                class.name,
                extents,
                t.cases,
                fmt_err(t.max_kernel, finite),
                fmt_err(t.max_reference, finite),
                t.kernel_vs_reference,
                t.par_vs_kernel,
                t.outside_extent,
                t.non_finite
            )?;
            let what = format!("{} {extents}", class.name);
            if t.over_bound > 0 {
                let mut msg = format!(
                    "{what}: {} distances off the f64 value by more than {DISTANCE_BOUND} eps*S \
                     (worst {:.2})",
                    t.over_bound,
                    t.max_kernel.max(t.max_reference)
                );
                if let Some((i, sa, sb, exact)) = t.worst {
                    msg.push_str(&format!(
                        "; kernel's worst: case {i}, A = {:?} {:?}, B = {:?} {:?}, exact {exact:e}",
                        sa.p0, sa.p1, sb.p0, sb.p1
                    ));
                }
                failures.push(msg);
            }
            if t.kernel_vs_reference > 0 {
                failures.push(format!(
                    "{what}: kernel and reference differ in {} cases (max distance difference \
                     {:.2} eps*S)",
                    t.kernel_vs_reference, t.max_kernel_vs_reference
                ));
            }
            if t.par_vs_kernel > 0 {
                failures.push(format!(
                    "{what}: parallel driver and kernel differ in {} cases",
                    t.par_vs_kernel
                ));
            }
            if t.outside_extent > 0 {
                failures.push(format!(
                    "{what}: {} parameters outside their extent",
                    t.outside_extent
                ));
            }
            if t.bad_non_finite > 0 {
                failures.push(format!(
                    "{what}: {} non-finite inputs not flagged with NaN outputs",
                    t.bad_non_finite
                ));
            }
        }
    }
    writeln!(out)?;
    let secs = start.elapsed().as_secs_f64();
    if failures.is_empty() {
        writeln!(
            out,
            "verify: all {total} cases agree within the documented bounds ({secs:.1} s)."
        )?;
        Ok(())
    } else {
        for f in &failures {
            writeln!(out, "FAILED {f}")?;
        }
        out.flush()?;
        Err(CliError::failed(format!(
            "verify: {} checks failed out of {total} cases (see above)",
            failures.len()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oracle_known_cases() {
        let s = |p: [f32; 3], q: [f32; 3]| Segment::new(p, q);
        let seg = Extent::Segment;
        const NO: Flags = Flags::empty();
        // Rhodes' thought experiment: distance 1.
        let d = oracle(
            &s([0., 0., 0.], [1., 0., 0.]),
            &s([1., 0., 1.], [1., 1., 1.]),
            seg,
            seg,
            NO,
        );
        assert_eq!(d, 1.0);
        // Perpendicular, crossing over at distance 1.
        let d = oracle(
            &s([0., 0., 0.], [2., 0., 0.]),
            &s([1., 1., 0.], [1., 3., 0.]),
            seg,
            seg,
            NO,
        );
        assert_eq!(d, 1.0);
        // Parallel lines 2 apart, segments far apart along them: lines see 2, segments more.
        let a = s([0., 0., 0.], [1., 0., 0.]);
        let b = s([10., 2., 0.], [11., 2., 0.]);
        assert_eq!(oracle(&a, &b, Extent::Line, Extent::Line, NO), 2.0);
        assert!((oracle(&a, &b, seg, seg, NO) - (81.0f64 + 4.0).sqrt()).abs() < 1e-12);
        // A ray from the origin along +x against a wall at x = 5, 2 above.
        let d = oracle(&a, &s([5., -1., 2.], [5., 1., 2.]), Extent::Ray, seg, NO);
        assert_eq!(d, 2.0);
    }
}
