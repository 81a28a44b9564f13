//! `segbatch verify`: the kernel, the parallel driver and the reference on generated hard
//! cases, compared with each other and with an `f64` computation.
//!
//! The `f64` oracle is the test kit's (`segbatch_testkit::oracle`), independent of the
//! library and of what it reported: the minimum over the end-point-to-side distances (each
//! side clamped to its extent) and the interior solution of the two lines when it falls
//! inside both extents, on the given end points. The one documented exception depends on
//! the extents only: when both sides are unbounded, their directions are taken as rounded
//! once to f32 (the sides as represented).

use std::io::Write;
use std::time::Instant;

use clap::Args;
use segbatch::pairs::{closest_points_into, par_closest_points_into};
use segbatch::{ClosestBatch, Extent, Flags, Options, Outputs, Segment, SegmentsView, reference};

use segbatch_testkit::CLASSES;
use segbatch_testkit::fuzz::out_of_range_justified;
use segbatch_testkit::oracle::exact;
#[cfg(test)]
use segbatch_testkit::oracle::exact_distance;
use segbatch_testkit::oracle::exact_short_unbounded_as_point;
use segbatch_testkit::pairs::FULL_RANGE;

use super::workload::generate;
use crate::error::CliError;

/// Allowed distance error against the `f64` oracle, in units of `f32::EPSILON · S`.
pub const DISTANCE_BOUND: f64 = 8.0;
/// Allowed kernel-vs-reference distance difference off x86_64, in `f32::EPSILON · S`.
pub const KERNEL_REFERENCE_BOUND: f64 = 2.0;

pub const LONG_ABOUT: &str = "\
Checks this build on this CPU: runs the 8-lane kernel, the parallel driver and the
scalar reference on generated hard cases and compares them with an f64 computation.

Case classes: general, near-parallel (1e-8..1e-1 rad), collinear, parallel
overlapping and disjoint, tiny and zero-length sides, crossing at small angles,
long and skinny, far from the origin (1e3..1e6), extreme scales (any of these
times 1e-12..1e12), non-finite inputs, and the full finite range (any of these
times 2^-140..2^120; pairs whose squared distance f32 cannot hold must carry the
dist2-out-of-range flag, 16, and really be that far or that close); each as
segment vs segment, ray vs segment and line vs line.

Errors are printed in units of f32::EPSILON * S, S being the largest coordinate
magnitude of the pair's end points; with a ray or a line, also of the reported
and the exact closest points (near-parallel lines meet far beyond their end points, and a point
there is only representable to eps * |C|). The f64 value is the exact distance of
the given f32 end points, whatever the implementation flagged; the one exception
depends on the extents only: two unbounded sides (ray or line on both) are taken
as represented, directions rounded once to f32. A ray or line too short to carry
a direction (|P1 - P0| <= 4 eps * |coordinates|, decided from the end points) is,
by the documented semantics, its first point: such a pair passes if it is within
the bound of either answer, and is counted in the as-point column. It fails (exit code 1) when
  - a distance is off the f64 value by more than 8 * eps * S,
  - the kernel and the reference differ (bit for bit on x86_64; elsewhere by
    more than 2 * eps * S in distance),
  - the parallel driver differs from the kernel at all,
  - a parameter lies outside its extent, or a non-finite input is not flagged
    with NaN outputs, or a finite input is flagged non-finite,
  - a pair is flagged dist2-out-of-range while its exact squared distance is
    inside f32's normal range.
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
    /// Pairs judged by the documented semantics of a ray or line too short to carry a
    /// direction (its first point), because they miss the exact geometry's bound.
    as_point: usize,
    /// The worst error of those against the exact geometry (not a failure).
    max_as_point_exact: f64,
    /// Pairs flagged DIST2_OUT_OF_RANGE (judged by the flag's rule, not the bound).
    out_of_range: usize,
    /// Flagged pairs whose exact squared distance is inside f32's normal range.
    bad_out_of_range: usize,
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
        let oracle = exact(&sa, &sb, options.extent_a, options.extent_b);
        let inside = |x: f32, lo: f32, hi: f32| x >= lo && x <= hi;
        if k.flags.contains(Flags::NON_FINITE) {
            t.bad_non_finite += 1;
        }
        // S: the end points' magnitude; with an unbounded side, also the closest points',
        // reported and exact (near-parallel rays and lines come closest far beyond their end
        // points, where a point is itself only representable to eps * |C|).
        let ends_s = coords
            .iter()
            .flatten()
            .fold(0f64, |m, x| m.max(f64::from(x.abs())));
        let unit_for = |o: &segbatch_testkit::Oracle| {
            let mut s = ends_s;
            if unbounded {
                for x in k.point_a.iter().chain(&k.point_b) {
                    s = s.max(f64::from(x.abs()));
                }
                for x in o.point_a.iter().chain(&o.point_b) {
                    s = s.max(x.abs());
                }
            }
            f64::from(f32::EPSILON) * s.max(f64::from(f32::MIN_POSITIVE))
        };
        let err = |d2: f32, o: &segbatch_testkit::Oracle| {
            let e = (f64::from(d2).sqrt() - o.distance).abs() / unit_for(o);
            if e.is_nan() { f64::INFINITY } else { e }
        };
        // A squared distance beyond f32's normal range is flagged, not held to the bound:
        // the exact one must then really be beyond it (within a factor of 2).
        if k.flags.contains(Flags::DIST2_OUT_OF_RANGE) {
            t.out_of_range += 1;
            // (Against the exact geometry, or a short ray or line taken as its first point.)
            let justified =
                |o: &segbatch_testkit::Oracle| out_of_range_justified(o.distance, unit_for(o));
            let edge = justified(&oracle)
                || exact_short_unbounded_as_point(&sa, &sb, options.extent_a, options.extent_b)
                    .iter()
                    .any(justified);
            if !edge || k.flags.contains(Flags::NON_FINITE) {
                t.bad_out_of_range += 1;
            }
            if !same_result(&k, &r) {
                t.kernel_vs_reference += 1;
            }
            if !inside(k.s, lo_a, hi_a) || !inside(k.t, lo_b, hi_b) {
                t.outside_extent += 1;
            }
            continue;
        }
        let (mut err_k, mut err_r) = (err(k.dist2, &oracle), err(r.dist2, &oracle));
        let mut exact = oracle.distance;
        let mut unit = unit_for(&oracle);
        // The one semantic exception (decided from the end points, never from the flags): a
        // ray or line too short to carry a direction is its first point. Such a pair passes
        // when it is within the bound of either answer; it is counted and shown.
        if err_k.max(err_r) > DISTANCE_BOUND {
            let exact_geometry = err_k.max(err_r);
            for o in exact_short_unbounded_as_point(&sa, &sb, options.extent_a, options.extent_b) {
                let (pk, pr) = (err(k.dist2, &o), err(r.dist2, &o));
                if pk.max(pr) <= DISTANCE_BOUND {
                    t.as_point += 1;
                    t.max_as_point_exact = t.max_as_point_exact.max(exact_geometry);
                    (err_k, err_r, exact, unit) = (pk, pr, o.distance, unit_for(&o));
                    break;
                }
            }
        }
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
        if !inside(k.s, lo_a, hi_a) || !inside(k.t, lo_b, hi_b) {
            t.outside_extent += 1;
        }
    }
    t
}

/// The report's opening lines: the build, the bounds and the table's header.
fn header(args: &VerifyArgs, bitwise: bool, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(
        out,
        "segbatch verify {}: SIMD build {} (CPU {}), {} cases per class and extents, seed {}",
        env!("CARGO_PKG_VERSION"),
        segbatch::simd::SIMD_LEVEL,
        segbatch::simd::cpu_simd_level(),
        args.cases,
        args.seed
    )?;
    writeln!(
        out,
        "errors in units of f32::EPSILON * S (S = max |coordinate| of the end points, and of the \
         reported and exact closest points for rays and lines);\nbound {DISTANCE_BOUND} vs f64; kernel vs reference {}",
        if bitwise {
            "bit for bit (x86_64)".to_owned()
        } else {
            format!("within {KERNEL_REFERENCE_BOUND} in distance")
        }
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "{:<18} {:<9} {:>7} {:>11} {:>11} {:>9} {:>9} {:>8} {:>7} {:>8}",
        "class",
        "extents",
        "cases",
        "kernel err",
        "ref err",
        "kern!=ref",
        "par!=kern",
        "outside",
        "nonfin",
        "as-point"
    )
}

/// One row of the table: the tally of a class and pair of extents.
fn row(t: &Tally, class: &str, extents: &str, out: &mut impl Write) -> std::io::Result<()> {
    let finite = t.cases > t.non_finite;
    let err = |e: f64| {
        if finite {
            format!("{e:.2}")
        } else {
            "-".to_owned()
        }
    };
    writeln!(
        out,
        "{:<18} {:<9} {:>7} {:>11} {:>11} {:>9} {:>9} {:>8} {:>7} {:>8}",
        class,
        extents,
        t.cases,
        err(t.max_kernel),
        err(t.max_reference),
        t.kernel_vs_reference,
        t.par_vs_kernel,
        t.outside_extent,
        t.non_finite,
        t.as_point
    )
}

/// What a tally says beyond its row: `notes` on documented behaviour, `failures` where a
/// bound or rule does not hold (`what` names the class and extents).
fn judge(t: &Tally, what: &str, notes: &mut Vec<String>, failures: &mut Vec<String>) {
    if t.as_point > 0 {
        notes.push(format!(
            "{what}: {} pairs with a ray or line shorter than 4 eps * |coordinates| \
             judged as its first point (the documented semantics); against the exact \
             geometry of their end points they are off by up to {:.3e} eps*S",
            t.as_point, t.max_as_point_exact
        ));
    }
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
    if t.out_of_range > 0 {
        notes.push(format!(
            "{what}: {} pairs flagged dist2-out-of-range (squared distance beyond f32's \
             normal range; s, t and points still checked)",
            t.out_of_range
        ));
    }
    let rules = [
        (
            t.bad_out_of_range,
            "pairs flagged dist2-out-of-range whose exact squared distance is inside f32's \
             normal range"
                .to_owned(),
        ),
        (
            t.kernel_vs_reference,
            format!(
                "cases where kernel and reference differ (max distance difference {:.2} eps*S)",
                t.max_kernel_vs_reference
            ),
        ),
        (
            t.par_vs_kernel,
            "cases where the parallel driver and the kernel differ".to_owned(),
        ),
        (
            t.outside_extent,
            "parameters outside their extent".to_owned(),
        ),
        (
            t.bad_non_finite,
            "non-finite inputs not flagged with NaN outputs".to_owned(),
        ),
    ];
    for (count, rule) in rules {
        if count > 0 {
            failures.push(format!("{what}: {count} {rule}"));
        }
    }
}

/// Runs `segbatch verify`.
pub fn run(args: &VerifyArgs, out: &mut impl Write) -> Result<(), CliError> {
    let start = Instant::now();
    header(args, cfg!(target_arch = "x86_64"), out)?;
    let mut failures = Vec::new();
    let mut notes = Vec::new();
    let mut total = 0usize;
    for (c, class) in CLASSES.iter().chain([&FULL_RANGE]).enumerate() {
        let seed = args.seed.wrapping_mul(1000).wrapping_add(c as u64);
        let (a, b) = generate(args.cases as usize, seed, class.pair);
        for (ea, eb) in EXTENTS {
            let t = check(a.as_view(), b.as_view(), &Options::new(ea, eb));
            total += t.cases;
            let extents = format!("{}/{}", extent_short(ea), extent_short(eb));
            row(&t, class.name, &extents, out)?;
            judge(
                &t,
                &format!("{} {extents}", class.name),
                &mut notes,
                &mut failures,
            );
        }
    }
    writeln!(out)?;
    for n in &notes {
        writeln!(out, "note: {n}")?;
    }
    if !notes.is_empty() {
        writeln!(out)?;
    }
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

    /// The oracle `verify` uses, on hand-checkable cases (it is the test kit's; this pins
    /// the rule for two unbounded sides and that flags play no part).
    #[test]
    fn oracle_known_cases() {
        let s = |p: [f32; 3], q: [f32; 3]| Segment::new(p, q);
        let seg = Extent::Segment;
        // Rhodes' thought experiment: distance 1.
        let d = exact_distance(
            &s([0., 0., 0.], [1., 0., 0.]),
            &s([1., 0., 1.], [1., 1., 1.]),
            seg,
            seg,
        );
        assert_eq!(d, 1.0);
        // Perpendicular, crossing over at distance 1.
        let d = exact_distance(
            &s([0., 0., 0.], [2., 0., 0.]),
            &s([1., 1., 0.], [1., 3., 0.]),
            seg,
            seg,
        );
        assert_eq!(d, 1.0);
        // Parallel lines 2 apart, segments far apart along them: lines see 2, segments more.
        let a = s([0., 0., 0.], [1., 0., 0.]);
        let b = s([10., 2., 0.], [11., 2., 0.]);
        assert_eq!(exact_distance(&a, &b, Extent::Line, Extent::Line), 2.0);
        assert!((exact_distance(&a, &b, seg, seg) - (81.0f64 + 4.0).sqrt()).abs() < 1e-12);
        // A ray from the origin along +x against a wall at x = 5, 2 above.
        let d = exact_distance(&a, &s([5., -1., 2.], [5., 1., 2.]), Extent::Ray, seg);
        assert_eq!(d, 2.0);
        // A very short segment keeps its length: the exact distance of its end points.
        let short = s([0., 0., 0.], [1e-30, 0., 0.]);
        let d = exact_distance(&short, &s([1e-30, 1., 0.], [1e-30, 2., 0.]), seg, seg);
        assert_eq!(d, 1.0);
    }
}
