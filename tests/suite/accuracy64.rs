//! Accuracy of the `f64` batch (`closest_points_into`, which equals the `f64` reference bit
//! for bit, tests/suite/batch64.rs) against the exact rational oracle of the test kit
//! (`segbatch_testkit::oracle64`) on every finite `f64` adversarial class and every extent
//! pair: `|distance - exact| <= 8·f64::EPSILON·S` and the parameters inside their extents.
//! `S` is the largest coordinate magnitude of the four end points; with an unbounded side
//! also of the reported and the exact closest points (as for `f32`, docs/accuracy.md). The
//! largest error per class is printed (`-- --nocapture`). First, the oracle itself on
//! cases whose exact answers are known.

use segbatch::pairs::{ClosestBatch64, closest_points_into};
use segbatch::{Closest64, Extent, Flags, Options, Outputs, Segment64, Segments64};
use segbatch_testkit::oracle64::BigRational;
use segbatch_testkit::pairs64::{CLASSES64, Pair64};
use segbatch_testkit::{EXTENT_PAIRS, Rng, oracle64};

/// The bar, in `f64::EPSILON·S`.
const BAR: f64 = 8.0;

/// Pairs per class (each graded for all nine extent pairs): 400 at proptest's default case
/// count, scaled with `PROPTEST_CASES` ([`segbatch_testkit::sweep`]).
fn pairs_per_class() -> usize {
    segbatch_testkit::sweep(400)
}

fn seg(p0: [f64; 3], p1: [f64; 3]) -> Segment64 {
    Segment64::new(p0, p1)
}

/// The exact oracle's distance for the pair, asserted equal to `want` (exact in `f64`) to
/// 1e-30 relative.
#[track_caller]
fn assert_oracle(a: &Segment64, b: &Segment64, ea: Extent, eb: Extent, want: f64) {
    let o = oracle64::oracle(a, b, ea, eb).expect("finite");
    assert!(
        o.error(want) <= 1e-30 * want,
        "{ea:?}/{eb:?}: oracle {} + {:e}, want {want:e}\n a = {a:?}\n b = {b:?}",
        o.distance,
        o.distance_lo
    );
}

/// Perpendicular segments (design.md §5: distance 1), and the same pair as lines, rays and
/// mixed; scaled by 2^±700, where every square is outside `f64`'s range.
#[test]
fn oracle_perpendicular() {
    for k in [1.0, 2f64.powi(700), 2f64.powi(-700)] {
        let a = seg([0.0, 0.0, 0.0], [2.0 * k, 0.0, 0.0]);
        let b = seg([k, k, 0.0], [k, 3.0 * k, 0.0]);
        assert_oracle(&a, &b, Extent::Segment, Extent::Segment, k);
        assert_oracle(&a, &b, Extent::Segment, Extent::Line, 0.0);
        assert_oracle(&a, &b, Extent::Line, Extent::Ray, k);
        assert_oracle(&a, &b, Extent::Line, Extent::Line, 0.0);
        // Rhodes' thought experiment: C = (1,0,0), D = (1,0,1).
        let b = seg([k, 0.0, k], [k, k, k]);
        let o = oracle64::oracle(&a, &b, Extent::Segment, Extent::Segment).unwrap();
        assert_eq!((o.s, o.t), (0.5, 0.0));
        assert_oracle(&a, &b, Extent::Segment, Extent::Segment, k);
    }
}

/// Parallel sides 3-4-5 apart, overlapping (distance 5) or not (sqrt(29) for segments, 5
/// for lines and for a ray pointing back over A).
#[test]
fn oracle_parallel_offset() {
    let a = seg([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
    let b = seg([0.25, 3.0, 4.0], [0.75, 3.0, 4.0]);
    for (ea, eb) in EXTENT_PAIRS {
        assert_oracle(&a, &b, ea, eb, 5.0);
    }
    let b = seg([3.0, 3.0, 4.0], [5.0, 3.0, 4.0]);
    let o = oracle64::oracle(&a, &b, Extent::Segment, Extent::Segment).unwrap();
    assert_eq!(o.dist2, BigRational::from_integer(29.into()));
    assert_oracle(&a, &b, Extent::Segment, Extent::Line, 5.0);
    assert_oracle(&a, &b, Extent::Line, Extent::Line, 5.0);
    assert_oracle(&a, &b, Extent::Ray, Extent::Segment, 5.0);
    let back = seg([5.0, 3.0, 4.0], [3.0, 3.0, 4.0]);
    assert_oracle(&a, &back, Extent::Segment, Extent::Ray, 5.0);
}

/// Collinear sides: overlapping (0), apart (squared distance 3), a ray reaching back (0),
/// and a zero-length side on the line (0) and off it.
#[test]
fn oracle_collinear_and_points() {
    let a = seg([0.0, 0.0, 0.0], [2.0, 2.0, 2.0]);
    let b = seg([1.0, 1.0, 1.0], [3.0, 3.0, 3.0]);
    assert_oracle(&a, &b, Extent::Segment, Extent::Segment, 0.0);
    let b = seg([3.0, 3.0, 3.0], [4.0, 4.0, 4.0]);
    let o = oracle64::oracle(&a, &b, Extent::Segment, Extent::Segment).unwrap();
    assert_eq!(o.dist2, BigRational::from_integer(3.into()));
    assert_eq!((o.s, o.t), (1.0, 0.0));
    assert_oracle(&a, &b, Extent::Segment, Extent::Line, 0.0);
    assert_oracle(&a, &seg(b.p1, b.p0), Extent::Segment, Extent::Ray, 0.0);
    let p = seg([1.0, 1.0, 1.0], [1.0, 1.0, 1.0]);
    assert_oracle(&a, &p, Extent::Segment, Extent::Line, 0.0);
    // (-2, 0, 0) projects before A0 (2 away); line A passes it at s = -1/3, sqrt(8/3) away.
    let p = seg([-2.0, 0.0, 0.0], [-2.0, 0.0, 0.0]);
    assert_oracle(&a, &p, Extent::Segment, Extent::Ray, 2.0);
    let o = oracle64::oracle(&a, &p, Extent::Line, Extent::Line).unwrap();
    assert_eq!(o.dist2, BigRational::new(8.into(), 3.into()));
    assert_eq!(o.s, -1.0 / 3.0);
}

/// Skew sides 1e-12 rad apart: A on the x axis, B = (u, 1e-12·u, h). Both directions lie
/// in z = 0, so the common normal is z and the distance is exactly h, attained at u = 0
/// (s = t = 1/2, inside both segments), for every extent pair; also 6.4e6 from the origin
/// along x and z (every coordinate still exact).
#[test]
fn oracle_near_parallel_1e12_rad() {
    for (o, h) in [(0.0, 0.5), (0.0, 1e-9), (6.4e6, 0.5)] {
        let a = seg([o - 1.0, 0.0, o], [o + 1.0, 0.0, o]);
        let b = seg([o - 1.0, -1e-12, o + h], [o + 1.0, 1e-12, o + h]);
        for (ea, eb) in EXTENT_PAIRS {
            assert_oracle(&a, &b, ea, eb, h);
        }
        let e = oracle64::oracle(&a, &b, Extent::Segment, Extent::Segment).unwrap();
        assert_eq!((e.s, e.t), (0.5, 0.5), "{e:?}");
    }
}

/// `|p - q|` without overflow or underflow in the squares.
fn distance_between(p: [f64; 3], q: [f64; 3]) -> f64 {
    let v = [0, 1, 2].map(|i| p[i] - q[i]);
    let m = v.iter().fold(0f64, |m, x| m.max(x.abs()));
    if m == 0.0 || !m.is_finite() {
        return m;
    }
    m * v.iter().map(|x| (x / m) * (x / m)).sum::<f64>().sqrt()
}

/// The error of `got` for pair `(a, b)` in units of `f64::EPSILON·S`, or why it fails: a
/// parameter outside its extent, an error above [`BAR`], or `DIST2_OUT_OF_RANGE` for a
/// distance `dist2` can hold. A flagged pair's distance is `|point_a - point_b|` (the flag's
/// documented meaning).
fn grade((a, b): &Pair64, options: &Options, got: &Closest64) -> Result<f64, String> {
    let (ea, eb) = (options.extent_a, options.extent_b);
    let fail = |what: String| {
        Err(format!(
            "{what}\n {options:?}\n a = {a:?}\n b = {b:?}\n got {got:?}"
        ))
    };
    let (lo_a, hi_a) = ea.bounds();
    let (lo_b, hi_b) = eb.bounds();
    if !(f64::from(lo_a)..=f64::from(hi_a)).contains(&got.s)
        || !(f64::from(lo_b)..=f64::from(hi_b)).contains(&got.t)
    {
        return fail("parameter outside its extent".into());
    }
    let out_of_range = got.flags.contains(Flags::DIST2_OUT_OF_RANGE);
    let distance = if out_of_range {
        distance_between(got.point_a, got.point_b)
    } else {
        got.distance()
    };
    let ends = [a.p0, a.p1, b.p0, b.p1]
        .iter()
        .flatten()
        .fold(0f64, |m, x| m.max(x.abs()));
    let unbounded = ea != Extent::Segment || eb != Extent::Segment;
    let unit = |o: &oracle64::Exact64| {
        let mut s = ends;
        if unbounded {
            for x in got.point_a.iter().chain(&got.point_b) {
                s = s.max(x.abs());
            }
            for x in o.point_a.iter().chain(&o.point_b) {
                s = s.max(x.abs());
            }
        }
        f64::EPSILON * s.max(f64::MIN_POSITIVE)
    };
    let err = |o: &oracle64::Exact64| {
        let e = o.error(distance) / unit(o);
        if e.is_nan() { f64::INFINITY } else { e }
    };
    let exact = oracle64::exact(a, b, ea, eb).expect("finite input");
    let mut e = err(&exact);
    if e > BAR {
        for o in oracle64::exact_short_unbounded_as_point(a, b, ea, eb) {
            e = e.min(err(&o));
        }
    }
    if e > BAR {
        return fail(format!(
            "error {e:.3} ε64·S > {BAR} (exact {:e} + {:e}, s {:e}, t {:e})",
            exact.distance, exact.distance_lo, exact.s, exact.t
        ));
    }
    // The flag is deserved: the exact distance's square is beyond f64::MAX / 2, or below
    // the smallest normal give or take the bar.
    let d = exact.distance;
    if out_of_range
        && !(d * d >= f64::MAX / 2.0 || d <= (2.0 * f64::MIN_POSITIVE).sqrt() + BAR * unit(&exact))
    {
        return fail(format!("DIST2_OUT_OF_RANGE for a distance of {d:e}"));
    }
    Ok(e)
}

/// The batch on `pairs` with `options`.
fn run(pairs: &[Pair64], options: &Options) -> ClosestBatch64 {
    let a: Segments64 = pairs.iter().map(|p| p.0).collect();
    let b: Segments64 = pairs.iter().map(|p| p.1).collect();
    let mut out = ClosestBatch64::new();
    closest_points_into(&a, &b, options, Outputs::ALL, &mut out).unwrap();
    out
}

/// The bar on one finite class, every extent pair of `extents`, `pairs_per_class()` pairs (a
/// seed per class). Every failure is collected and counted per extent pair (the first few
/// printed); the largest error is printed for docs/accuracy.md.
fn check_class(name: &str, seed: u64, extents: &[(Extent, Extent)]) {
    let class = CLASSES64.iter().find(|c| c.name == name).expect("a class");
    assert!(class.finite);
    let mut rng = Rng::new(seed);
    let pairs: Vec<Pair64> = (0..pairs_per_class())
        .map(|_| (class.pair)(&mut rng))
        .collect();
    let (mut worst_segments, mut worst_all) = (0f64, 0f64);
    let mut failures = Vec::new();
    let mut failing_extents = Vec::new();
    for &(ea, eb) in extents {
        let options = Options::new(ea, eb);
        let out = run(&pairs, &options);
        let before = failures.len();
        for (i, pair) in pairs.iter().enumerate() {
            match grade(pair, &options, &out.get(i).unwrap()) {
                Ok(e) => {
                    worst_all = worst_all.max(e);
                    if ea == Extent::Segment && eb == Extent::Segment {
                        worst_segments = worst_segments.max(e);
                    }
                }
                Err(m) => failures.push(format!("pair {i}: {m}")),
            }
        }
        if failures.len() > before {
            failing_extents.push(format!("{ea:?}/{eb:?}: {}", failures.len() - before));
        }
    }
    println!(
        "{name:<22} largest error, ε64·S: segment/segment {worst_segments:.3}, all 9 extent \
         pairs {worst_all:.3} (passing pairs)"
    );
    assert!(
        failures.is_empty(),
        "{name}: {} failures of {} (per extent pair: {}); the first:\n{}",
        failures.len(),
        extents.len() * pairs.len(),
        failing_extents.join(", "),
        failures
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// One test per class, so that a failure names its class.
macro_rules! class_tests {
    ($($test:ident: $name:literal, $seed:literal;)*) => {$(
        #[test]
        fn $test() {
            check_class($name, $seed, &EXTENT_PAIRS);
        }
    )*};
}

class_tests! {
    widened_f32: "widened-f32", 0xacc6_4001;
    general: "general", 0xacc6_4002;
    near_parallel: "near-parallel", 0xacc6_4003;
    collinear: "collinear", 0xacc6_4004;
    degenerate: "degenerate", 0xacc6_4005;
    tiny: "tiny", 0xacc6_4006;
    huge: "huge", 0xacc6_4007;
    far_from_origin: "far-from-origin", 0xacc6_4008;
}

/// The tiny side against a huge far one, where neither side is a line: within the bar.
#[test]
fn tiny_against_huge_far() {
    let bounded = [Extent::Segment, Extent::Ray];
    let extents: Vec<_> = EXTENT_PAIRS
        .into_iter()
        .filter(|(a, b)| bounded.contains(a) && bounded.contains(b))
        .collect();
    check_class("tiny-against-huge-far", 0xacc6_4009, &extents);
}

/// **Known failure** (docs/accuracy.md, "Failing: a 1e-200 line against a 1e150..1e200
/// segment"): with a line on either side, step 0 scales the coordinates by `σ ≈ 1e-150`
/// before the directions are formed, so a 1e-200 line's direction underflows to 0 and the
/// line is taken as its first point (`DEGENERATE`), an error up to 4.4e14·ε64·S; at such
/// ratios the exact parameter on the line (about 1e349) is not an `f64` either. Run with
/// `cargo test --release --test suite accuracy64:: -- --ignored` to see it.
#[test]
#[ignore = "known failure: a line 1e-350 times shorter than the separation (docs/accuracy.md)"]
fn tiny_against_huge_far_with_lines() {
    check_class("tiny-against-huge-far", 0xacc6_4009, &EXTENT_PAIRS);
}

/// Every finite class has its test above.
#[test]
fn every_finite_class_is_tested() {
    let finite: Vec<_> = CLASSES64
        .iter()
        .filter(|c| c.finite)
        .map(|c| c.name)
        .collect();
    assert_eq!(
        finite,
        [
            "widened-f32",
            "general",
            "near-parallel",
            "collinear",
            "degenerate",
            "tiny",
            "huge",
            "far-from-origin",
            "tiny-against-huge-far"
        ]
    );
}

/// The grading can fail: the batch's results with the distance moved by `2·BAR` ε64·S are
/// rejected, every one, on a sample of every class and extent pair (pairs whose
/// `DIST2_OUT_OF_RANGE` makes the grading use the points instead are skipped).
#[test]
fn a_result_off_by_twice_the_bar_fails() {
    let mut rng = Rng::new(0xbad6_4000);
    for class in CLASSES64.iter().filter(|c| c.finite) {
        let pairs: Vec<Pair64> = (0..20).map(|_| (class.pair)(&mut rng)).collect();
        for (ea, eb) in EXTENT_PAIRS {
            let options = Options::new(ea, eb);
            let out = run(&pairs, &options);
            for (i, (a, b)) in pairs.iter().enumerate() {
                let mut got = out.get(i).unwrap();
                if got.flags.contains(Flags::DIST2_OUT_OF_RANGE) {
                    continue;
                }
                // S over everything the grading may use, so the move is at least 2·BAR units
                // against every oracle it tries.
                let mut points = vec![a.p0, a.p1, b.p0, b.p1, got.point_a, got.point_b];
                let oracles = oracle64::exact(a, b, ea, eb).into_iter();
                for o in oracles.chain(oracle64::exact_short_unbounded_as_point(a, b, ea, eb)) {
                    points.extend([o.point_a, o.point_b]);
                }
                let s = points.iter().flatten().fold(0f64, |m, x| m.max(x.abs()));
                let d = got.distance() + 2.0 * BAR * f64::EPSILON * s;
                got.dist2 = d * d;
                assert!(
                    grade(&(*a, *b), &options, &got).is_err(),
                    "{} pair {i} {options:?}: {got:?} passes",
                    class.name
                );
            }
        }
    }
}
