//! Golden cases from the seed material and hand-checkable configurations, through the
//! scalar reference: exact parameters, points, distances and flags.

use segbatch::{Closest, Extent, Flags, Options, Segment, reference};
use segbatch_testkit::oracle::{self, EPS32, assert_close};

fn seg(p0: [f32; 3], p1: [f32; 3]) -> Segment {
    Segment::new(p0, p1)
}

fn with(a: &Segment, b: &Segment, ea: Extent, eb: Extent) -> Closest {
    reference::closest_points_with(a, b, &Options::new(ea, eb))
}

/// Compare a result with expected values within `k·ε·S`.
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn expect(
    c: &Closest,
    (a, b): (&Segment, &Segment),
    s: f32,
    t: f32,
    pa: [f32; 3],
    pb: [f32; 3],
    dist: f32,
    flags: Flags,
) {
    let tol = 4.0 * EPS32 * oracle::scale(a, b).max(1.0);
    assert_close("s", c.s as f64, s as f64, tol);
    assert_close("t", c.t as f64, t as f64, tol);
    for i in 0..3 {
        assert_close("point_a", c.point_a[i] as f64, pa[i] as f64, tol);
        assert_close("point_b", c.point_b[i] as f64, pb[i] as f64, tol);
    }
    assert_close("distance", c.distance() as f64, dist as f64, tol);
    assert_eq!(c.flags, flags, "{c:?}");
}

#[test]
fn rhodes_thought_experiment() {
    let a = seg([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
    let b = seg([1.0, 0.0, 1.0], [1.0, 1.0, 1.0]);
    let c = reference::closest_points(&a, &b);
    assert_eq!(c.point_a, [1.0, 0.0, 0.0]);
    assert_eq!(c.point_b, [1.0, 0.0, 1.0]);
    assert_eq!(
        (c.s, c.t, c.dist2, c.flags),
        (1.0, 0.0, 1.0, Flags::empty())
    );
    assert_eq!(c.midpoint(), [1.0, 0.0, 0.5]);
    assert_eq!(c.separation(), [0.0, 0.0, -1.0]);
}

#[test]
fn tutorial_2d_example_lifted_to_z0() {
    // P1 = (4,7), v1 = (12,-4); P2 = (1,1), v2 = (16,4): they cross at (13,4), s = t = 3/4.
    let a = seg([4.0, 7.0, 0.0], [16.0, 3.0, 0.0]);
    let b = seg([1.0, 1.0, 0.0], [17.0, 5.0, 0.0]);
    let c = reference::closest_points(&a, &b);
    let x = [13.0, 4.0, 0.0];
    expect(&c, (&a, &b), 0.75, 0.75, x, x, 0.0, Flags::empty());
}

#[test]
fn perpendicular_distance_one() {
    let a = seg([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
    let b = seg([1.0, 1.0, 0.0], [1.0, 3.0, 0.0]);
    let c = reference::closest_points(&a, &b);
    expect(
        &c,
        (&a, &b),
        0.5,
        0.0,
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        1.0,
        Flags::empty(),
    );
}

#[test]
fn zero_length_second_segment() {
    let a = seg([0.0, 0.0, 0.0], [4.0, 0.0, 0.0]);
    let b = seg([1.0, 2.0, 2.0], [1.0, 2.0, 2.0]);
    let c = reference::closest_points(&a, &b);
    let d = (8.0f32).sqrt();
    expect(
        &c,
        (&a, &b),
        0.25,
        0.0,
        [1.0, 0.0, 0.0],
        [1.0, 2.0, 2.0],
        d,
        Flags::DEGENERATE_B,
    );
    // Beyond A's end: clamped.
    let b = seg([6.0, 0.0, 1.0], [6.0, 0.0, 1.0]);
    let c = reference::closest_points(&a, &b);
    let d = (5.0f32).sqrt();
    expect(
        &c,
        (&a, &b),
        1.0,
        0.0,
        [4.0, 0.0, 0.0],
        [6.0, 0.0, 1.0],
        d,
        Flags::DEGENERATE_B,
    );
}

#[test]
fn zero_length_first_segment_and_both() {
    let a = seg([1.0, 2.0, 2.0], [1.0, 2.0, 2.0]);
    let b = seg([0.0, 0.0, 0.0], [4.0, 0.0, 0.0]);
    let c = reference::closest_points(&a, &b);
    let d = (8.0f32).sqrt();
    expect(
        &c,
        (&a, &b),
        0.0,
        0.25,
        [1.0, 2.0, 2.0],
        [1.0, 0.0, 0.0],
        d,
        Flags::DEGENERATE_A,
    );

    let b = seg([4.0, 6.0, 2.0], [4.0, 6.0, 2.0]);
    let c = reference::closest_points(&a, &b);
    let both = Flags::DEGENERATE_A | Flags::DEGENERATE_B;
    expect(&c, (&a, &b), 0.0, 0.0, a.p0, b.p0, 5.0, both);
}

#[test]
fn parallel_overlap_takes_the_midpoint() {
    // B's projection onto A covers s in [0.5, 1.5]; overlap with [0, 1] is [0.5, 1].
    let a = seg([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
    let b = seg([1.0, 1.0, 0.0], [3.0, 1.0, 0.0]);
    let c = reference::closest_points(&a, &b);
    expect(
        &c,
        (&a, &b),
        0.75,
        0.25,
        [1.5, 0.0, 0.0],
        [1.5, 1.0, 0.0],
        1.0,
        Flags::PARALLEL,
    );
    // Reversed B: the same overlap, the same point.
    let b_rev = seg(b.p1, b.p0);
    let c = reference::closest_points(&a, &b_rev);
    expect(
        &c,
        (&a, &b_rev),
        0.75,
        0.75,
        [1.5, 0.0, 0.0],
        [1.5, 1.0, 0.0],
        1.0,
        Flags::PARALLEL,
    );
}

#[test]
fn parallel_disjoint_takes_the_nearest_ends() {
    let a = seg([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
    let b = seg([5.0, 0.0, 4.0], [7.0, 0.0, 4.0]);
    let c = reference::closest_points(&a, &b);
    expect(
        &c,
        (&a, &b),
        1.0,
        0.0,
        [2.0, 0.0, 0.0],
        [5.0, 0.0, 4.0],
        5.0,
        Flags::PARALLEL,
    );
}

#[test]
fn rays_and_lines_in_each_combination() {
    // A along x from the origin, B along y through (5, -1, 2) .. (5, 1, 2): the lines'
    // closest points are (5,0,0) and (5,0,2), s = 5, t = 0.5, inside every unbounded extent.
    let a = seg([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
    let b = seg([5.0, -1.0, 2.0], [5.0, 1.0, 2.0]);
    let (pa, pb) = ([5.0, 0.0, 0.0], [5.0, 0.0, 2.0]);
    for (ea, eb) in [
        (Extent::Ray, Extent::Segment),
        (Extent::Line, Extent::Segment),
        (Extent::Ray, Extent::Ray),
        (Extent::Ray, Extent::Line),
        (Extent::Line, Extent::Line),
        (Extent::Line, Extent::Ray),
    ] {
        let c = with(&a, &b, ea, eb);
        expect(&c, (&a, &b), 5.0, 0.5, pa, pb, 2.0, Flags::empty());
    }
    // A as a segment stops at x = 1.
    let c = with(&a, &b, Extent::Segment, Extent::Line);
    expect(
        &c,
        (&a, &b),
        1.0,
        0.5,
        [1.0, 0.0, 0.0],
        pb,
        (20.0f32).sqrt(),
        Flags::empty(),
    );
    // A ray pointing away: its start is the closest point.
    let away = seg([0.0, 0.0, 0.0], [-1.0, 0.0, 0.0]);
    let c = with(&away, &b, Extent::Ray, Extent::Line);
    expect(
        &c,
        (&away, &b),
        0.0,
        0.5,
        [0.0; 3],
        pb,
        (29.0f32).sqrt(),
        Flags::empty(),
    );
}

#[test]
fn parallel_lines_take_s_zero() {
    let a = seg([1.0, 2.0, 3.0], [2.0, 2.0, 3.0]);
    let b = seg([7.0, 2.0, 0.0], [9.0, 2.0, 0.0]);
    let c = with(&a, &b, Extent::Line, Extent::Line);
    expect(
        &c,
        (&a, &b),
        0.0,
        -3.0,
        a.p0,
        [1.0, 2.0, 0.0],
        3.0,
        Flags::PARALLEL,
    );
}

#[test]
fn parallel_with_one_unbounded_side() {
    // A ray along +x from 0 and a parallel segment over x in [2, 4]: overlap is B's span,
    // its midpoint x = 3.
    let a = seg([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
    let b = seg([2.0, 1.0, 0.0], [4.0, 1.0, 0.0]);
    let c = with(&a, &b, Extent::Ray, Extent::Segment);
    expect(
        &c,
        (&a, &b),
        3.0,
        0.5,
        [3.0, 0.0, 0.0],
        [3.0, 1.0, 0.0],
        1.0,
        Flags::PARALLEL,
    );
    // Two rays, same direction: the overlap [2, ∞) is half-bounded, s at its bound.
    let c = with(&a, &b, Extent::Ray, Extent::Ray);
    expect(
        &c,
        (&a, &b),
        2.0,
        0.0,
        [2.0, 0.0, 0.0],
        [2.0, 1.0, 0.0],
        1.0,
        Flags::PARALLEL,
    );
}

#[test]
fn non_finite_is_flagged_and_nan() {
    let a = seg([0.0, f32::NAN, 0.0], [1.0, 0.0, 0.0]);
    let b = seg([0.0, 1.0, 0.0], [1.0, 1.0, 0.0]);
    let c = reference::closest_points(&a, &b);
    assert_eq!(c.flags, Flags::NON_FINITE);
    assert!(c.dist2.is_nan() && c.s.is_nan() && c.t.is_nan());
    let b = seg([0.0, 1.0, 0.0], [f32::INFINITY, 1.0, 0.0]);
    let c = reference::closest_points(&seg([0.0; 3], [1.0, 0.0, 0.0]), &b);
    assert_eq!(c.flags, Flags::NON_FINITE);
}

/// A fixed skew configuration: distance 1 between interior points.
fn skew(scale: f32, offset: [f32; 3]) -> (Segment, Segment) {
    let p = |x: f32, y: f32, z: f32| {
        [
            x * scale + offset[0],
            y * scale + offset[1],
            z * scale + offset[2],
        ]
    };
    (
        seg(p(-1.0, 0.0, 0.0), p(1.0, 0.0, 0.0)),
        seg(p(0.5, -1.0, 1.0), p(0.5, 1.0, 1.0)),
    )
}

#[test]
fn sweep_of_length_scale() {
    // Powers of ten 1e-3 ..= 1e3: the distance scales with the configuration.
    for k in -3..=3 {
        let scale = 10f32.powi(k);
        let (a, b) = skew(scale, [0.0; 3]);
        let c = reference::closest_points(&a, &b);
        let tol = 4.0 * EPS32 * oracle::scale(&a, &b);
        assert_close(
            &format!("distance at scale {scale}"),
            c.distance() as f64,
            scale as f64,
            tol,
        );
        assert_close("s", c.s as f64, 0.75, 4.0 * EPS32);
        assert_close("t", c.t as f64, 0.5, 4.0 * EPS32);
        assert_eq!(c.flags, Flags::empty());
    }
}

#[test]
fn sweep_of_offsets() {
    // The same configuration (size 1) moved up to 1e4 away, along a skew direction: the
    // distance stays 1 within 8·ε·S, S growing with the offset; compare with the oracle.
    for k in 0..=8 {
        let d = 10f32.powf(k as f32 / 2.0);
        let offset = [d, -0.6 * d, 0.3 * d];
        let (a, b) = skew(1.0, offset);
        let c = reference::closest_points(&a, &b);
        let s = oracle::scale(&a, &b);
        let exact = oracle::oracle_distance(&a, &b, Extent::Segment, Extent::Segment);
        assert_close(
            &format!("distance at offset {d}"),
            c.distance() as f64,
            exact,
            8.0 * EPS32 * s,
        );
        assert_close("distance ~ 1", c.distance() as f64, 1.0, 8.0 * EPS32 * s);
    }
}
