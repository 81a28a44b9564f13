//! The whole finite f32 range: finite inputs are never reported
//! non-finite, perpendicular pairs far beyond the old range are not flagged parallel, and a
//! squared distance that f32 cannot hold is flagged `DIST2_OUT_OF_RANGE` instead of being a
//! silent wrong number. Kernel and reference stay bit-for-bit twins on all of it.

use proptest::prelude::*;
use segbatch::pairs::closest_points_into;
use segbatch::{
    Closest, ClosestBatch, Extent, Flags, Options, Outputs, Segment, Segments, reference,
};
use segbatch_testkit::fuzz::{DISTANCE_BOUND, distance_error, out_of_range_justified, same_result};
use segbatch_testkit::oracle::exact;
use segbatch_testkit::strategy;

/// The kernel's result for `(a, b)` in every lane of a group (and a tail), each checked
/// equal to the reference; returns the reference's.
fn both(a: Segment, b: Segment, options: &Options) -> Closest {
    let want = reference::closest_points_with(&a, &b, options);
    let filler = Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
    for lane in 0..9 {
        let mut sa = vec![filler; 9];
        let mut sb = vec![Segment::new([0.0, 1.0, 0.0], [0.0, 1.0, 1.0]); 9];
        sa[lane] = a;
        sb[lane] = b;
        let (sa, sb): (Segments, Segments) = (sa.into_iter().collect(), sb.into_iter().collect());
        let mut out = ClosestBatch::new();
        closest_points_into(&sa, &sb, options, Outputs::ALL, &mut out).unwrap();
        let got = out.get(lane).unwrap();
        assert!(
            same_result(&got, &want),
            "lane {lane}: kernel {got:?}\n reference {want:?}"
        );
    }
    want
}

const SEGMENTS: Options = Options::SEGMENTS;

#[test]
fn opposite_signs_near_f32_max_are_finite() {
    // A runs from -3e38 to +3e38 along x (its difference overflows), B along y: they cross
    // at (0, 1, 0).
    let big = 3.0e38f32;
    let a = Segment::new([-big, 1.0, 0.0], [big, 1.0, 0.0]);
    let b = Segment::new([0.0, -big, 0.0], [0.0, big, 0.0]);
    let c = both(a, b, &SEGMENTS);
    assert!(!c.flags.contains(Flags::NON_FINITE), "{c:?}");
    assert!(!c.flags.contains(Flags::PARALLEL), "{c:?}");
    assert_eq!((c.s, c.t), (0.5, 0.5 + 0.5 / big), "{c:?}");
    // The bar: 8·ε·S with S = 3e38.
    assert!(c.dist2.sqrt() <= 8.0 * f32::EPSILON * big, "{c:?}");
    assert!(c.point_a[0].abs() <= 8.0 * f32::EPSILON * big);
}

#[test]
fn a_distance_beyond_1_8e19_is_flagged_not_silently_infinite() {
    let a = Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
    // (B's length must exceed 2·ε·1e20, else it is a point by the scale-free rule.)
    let b = Segment::new([0.5, 1.0e20, -1.0e14], [0.5, 1.0e20, 1.0e14]);
    let c = both(a, b, &SEGMENTS);
    assert!(c.flags.contains(Flags::DIST2_OUT_OF_RANGE), "{c:?}");
    assert!(!c.flags.contains(Flags::NON_FINITE), "{c:?}");
    // (A side 1e-20 times shorter than the separation: after rescaling by the separation
    // its products of four lengths underflow, so the pair may also read as parallel; the
    // overlap midpoint and the two projections still give the right points.)
    assert_eq!(c.dist2, f32::INFINITY);
    assert_eq!((c.s, c.t), (0.5, 0.5));
    assert_eq!(c.point_a, [0.5, 0.0, 0.0]);
    assert_eq!(c.point_b, [0.5, 1.0e20, 0.0]);
    // Just inside the range: no flag, the right distance.
    let b = Segment::new([0.5, 1.0e19, -1.0e13], [0.5, 1.0e19, 1.0e13]);
    let c = both(a, b, &SEGMENTS);
    assert!(
        !c.flags
            .intersects(Flags::DIST2_OUT_OF_RANGE | Flags::NON_FINITE),
        "{c:?}"
    );
    assert_eq!(c.dist2, 1.0e19f32 * 1.0e19f32);
    assert_eq!((c.s, c.t), (0.5, 0.5));
}

#[test]
fn perpendicular_pairs_far_beyond_the_old_range_are_not_parallel() {
    for k in [20, 30, 35, 38] {
        let big = 10f32.powi(k);
        let a = Segment::new([0.0, 0.0, 0.0], [big, 0.0, 0.0]);
        let b = Segment::new([big / 2.0, big / 1e3, -big], [big / 2.0, big / 1e3, big]);
        let c = both(a, b, &SEGMENTS);
        assert!(!c.flags.contains(Flags::PARALLEL), "1e{k}: {c:?}");
        assert!(!c.flags.contains(Flags::NON_FINITE), "1e{k}: {c:?}");
        assert_eq!((c.s, c.t), (0.5, 0.5), "1e{k}: {c:?}");
        let d = f64::from(big) / 1e3;
        if d * d < f64::from(f32::MAX) / 2.0 {
            assert!(c.flags.is_empty(), "1e{k}: {c:?}");
            let err = (f64::from(c.dist2).sqrt() - d).abs();
            assert!(err <= 8.0 * f64::from(f32::EPSILON * big), "1e{k}: {c:?}");
        } else {
            assert_eq!(c.flags, Flags::DIST2_OUT_OF_RANGE, "1e{k}: {c:?}");
        }
    }
}

#[test]
fn tiny_scales_do_not_underflow_silently() {
    for k in [-20, -22, -25, -30, -36] {
        let small = 10f32.powi(k);
        let a = Segment::new([0.0, 0.0, 0.0], [small, 0.0, 0.0]);
        let b = Segment::new(
            [small / 2.0, small / 4.0, -small],
            [small / 2.0, small / 4.0, small],
        );
        let c = both(a, b, &SEGMENTS);
        assert!(!c.flags.contains(Flags::PARALLEL), "1e{k}: {c:?}");
        assert!(!c.flags.contains(Flags::DEGENERATE_A), "1e{k}: {c:?}");
        assert_eq!((c.s, c.t), (0.5, 0.5), "1e{k}: {c:?}");
        let d = f64::from(small) / 4.0;
        if c.flags.contains(Flags::DIST2_OUT_OF_RANGE) {
            assert!(d * d <= 2.0 * f64::from(f32::MIN_POSITIVE), "1e{k}: {c:?}");
        } else {
            assert!(c.flags.is_empty(), "1e{k}: {c:?}");
            let err = (f64::from(c.dist2).sqrt() - d).abs();
            assert!(err <= 8.0 * f64::from(f32::EPSILON * small), "1e{k}: {c:?}");
        }
        if d < 1e-20 {
            assert!(c.flags.contains(Flags::DIST2_OUT_OF_RANGE), "1e{k}: {c:?}");
        }
    }
}

#[test]
fn a_short_ray_keeps_its_direction_against_a_far_segment() {
    // The fuzz target's find (fuzz/regressions/kernel_vs_oracle/short-ray-far-segment): a
    // ray of length 6e-18 at 4.6e-13 (a hundred ulps of its coordinates, so a direction,
    // not a point), a segment of length 19 at 7e6. One scale from the separation squares
    // the ray's length to 1e-48, below f32; each side's own frame keeps it.
    let a = Segment::new(
        [-4.6366996e-13, -4.6366394e-13, -4.6366394e-13],
        [-4.6366394e-13, -4.6366394e-13, -4.6366394e-13],
    );
    let b = Segment::new(
        [7056280.5, 7056299.5, 7056299.5],
        [7056299.5, 7056299.5, 7056299.5],
    );
    let options = Options::new(Extent::Ray, Extent::Segment);
    let c = both(a, b, &options);
    assert!(!c.flags.contains(Flags::DEGENERATE_A), "{c:?}");
    let e = distance_error(&a, &b, &options, &c);
    assert!(e <= DISTANCE_BOUND, "error {e} ε·S: {c:?}");
    // The same shape over ratios of length to separation from 1e-10 to 1e-30, A a ray and
    // a line, B a segment and a ray.
    for k in [10, 15, 20, 24, 27, 30] {
        let len = 10f32.powi(-k) * 7.0e6;
        let a = Segment::new([0.0, 1.0e-3 * len, 0.0], [len, 1.0e-3 * len, len]);
        for (ea, eb) in [
            (Extent::Ray, Extent::Segment),
            (Extent::Line, Extent::Segment),
            (Extent::Ray, Extent::Ray),
        ] {
            let options = Options::new(ea, eb);
            let c = both(a, b, &options);
            assert!(
                !c.flags.contains(Flags::DEGENERATE_A),
                "1e-{k} {options:?}: {c:?}"
            );
            let e = distance_error(&a, &b, &options, &c);
            assert!(
                e <= DISTANCE_BOUND,
                "1e-{k} {options:?}: error {e} ε·S: {c:?}"
            );
        }
    }
}

#[test]
fn a_tiny_ray_keeps_its_answer_against_a_huge_far_ray() {
    // The fuzz target's find (fuzz/regressions/kernel_vs_oracle/tiny-ray-huge-ray): a ray
    // 3e-8 long at the origin, a ray 3.5e17 long from 2e17 away. |dA|²·|dB|² is in range,
    // but Goldman's numerator (|dA|·|dB|²·|A0 - B0| in size) overflowed to +inf: s = +inf
    // passed A's ray clamp, t clamped to 0 and the answer was B's start (1.0e6·ε·S off).
    let a = Segment::new([0.0, 0.0, 0.0], [2.9802322e-8, 0.0, 0.0]);
    let b = Segment::new(
        [0.0, -7.2057594e16, -2.0232641e17],
        [-2.0232641e17, -2.0232641e17, -0.25],
    );
    let options = Options::new(Extent::Ray, Extent::Ray);
    let c = both(a, b, &options);
    let e = distance_error(&a, &b, &options, &c);
    assert!(e <= DISTANCE_BOUND, "error {e} ε·S: {c:?}");
    assert!(c.t > 0.3, "{c:?}");
    // The same shape over separations D of 1e6 to 1e18 and lengths of A from 1e-20 to 1e2
    // (where |dA|²·|dB|² is in range the numerator overflows beyond |dA|·D³ ~ 1e38, and
    // the quotient s ~ D/|dA| beyond 1e38), every extent with an unbounded side.
    let extents = [Extent::Segment, Extent::Ray, Extent::Line];
    for d in [1e6f32, 1e10, 1e14, 1e16, 2e17, 1e18] {
        let b = Segment::new([0.0, -0.356 * d, -d], [-d, -d, 0.0]);
        for k in -20..=2 {
            let len = 10f32.powi(k);
            let a = Segment::new([0.0, 0.0, 0.0], [len, 0.0, 0.0]);
            for ea in extents {
                for eb in extents {
                    let options = Options::new(ea, eb);
                    let c = both(a, b, &options);
                    assert!(
                        !c.flags
                            .intersects(Flags::NON_FINITE | Flags::DIST2_OUT_OF_RANGE),
                        "D {d:e}, |dA| 1e{k}, {options:?}: {c:?}"
                    );
                    let e = distance_error(&a, &b, &options, &c);
                    assert!(
                        e <= DISTANCE_BOUND,
                        "D {d:e}, |dA| 1e{k}, {options:?}: error {e} ε·S: {c:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn near_parallel_lines_whose_closest_points_lie_far_out() {
    // The second fuzz find (fuzz/regressions/kernel_vs_oracle/near-parallel-lines-far-out):
    // a line 3.7e17 long 4.5e17 from the origin, nearly parallel (1.2e-5 rad) to a line
    // 2.6e-14 long at the origin. Goldman's s is finite, but the closest point on B is at
    // t = 8.3e35, and projecting back (b·t) overflowed: s = -inf, dist2 NaN.
    let a = Segment::new(
        [-2.6222993e17, -2.6223311e17, -2.6223311e17],
        [-2.6223311e17, -2.6223311e17, 2.6080226e-14],
    );
    let b = Segment::new(
        [2.6025369e-14, 2.6025369e-14, 2.6025369e-14],
        [2.6025369e-14, 2.6025369e-14, 0.0],
    );
    let extents = [Extent::Segment, Extent::Ray, Extent::Line];
    for ea in extents {
        for eb in extents {
            let options = Options::new(ea, eb);
            let c = both(a, b, &options);
            assert!(!c.flags.contains(Flags::NON_FINITE), "{options:?}: {c:?}");
            assert!(c.dist2.is_finite(), "{options:?}: {c:?}");
            let e = distance_error(&a, &b, &options, &c);
            assert!(e <= DISTANCE_BOUND, "{options:?}: error {e} ε·S: {c:?}");
        }
    }
}

proptest! {
    /// Pairs anywhere in the finite range, every extent: kernel = reference (checked in
    /// `both`), never non-finite, the bar unless flagged, the flag only when deserved.
    #[test]
    fn full_range_pairs(pair in strategy::full_range(), ea in 0usize..3, eb in 0usize..3) {
        let extents = [Extent::Segment, Extent::Ray, Extent::Line];
        let options = Options::new(extents[ea], extents[eb]);
        let (a, b) = pair;
        let c = both(a, b, &options);
        prop_assert!(!c.flags.contains(Flags::NON_FINITE), "{:?}", c);
        // The accuracy rules are those of segbatch verify (testkit::fuzz): check with the
        // segment/segment extent, where no "as a point" exception applies.
        if options == SEGMENTS {
            let o = exact(&a, &b, Extent::Segment, Extent::Segment);
            let s = [a.p0, a.p1, b.p0, b.p1].iter().flatten().fold(0f64, |m, x| m.max(f64::from(x.abs())));
            let unit = f64::from(f32::EPSILON) * s.max(f64::from(f32::MIN_POSITIVE));
            if c.flags.contains(Flags::DIST2_OUT_OF_RANGE) {
                prop_assert!(out_of_range_justified(o.distance, unit), "{:?} exact {}", c, o.distance);
            } else {
                let err = (f64::from(c.dist2).sqrt() - o.distance).abs() / unit;
                prop_assert!(err <= 8.0, "error {} {:?} exact {}", err, c, o.distance);
            }
        }
    }
}
