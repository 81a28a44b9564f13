//! The `f64` reference (`reference::closest_points`): the same generic body as the `f32`
//! one (whose results the other tests pin bit for bit), in double precision. Golden cases
//! near and far from the origin, every extent, non-finite input, the `f64` default
//! tolerance, and the hard classes of the test kit against its f64 oracle.
//!
//! The oracle (`segbatch_testkit::oracle`) is accurate to about `1e-15·S`, a few `f64` ulps:
//! enough to check the `f64` reference at `8·f32::EPSILON·S` (it must be far better than the
//! `f32` one), not at an `8·f64::EPSILON·S` bar, which needs an exact
//! (double-double or rational) oracle.

use segbatch::{Closest64, Extent, Flags, Options, Segment, Segment64, reference};
use segbatch_testkit::{CLASSES, EPS32, EXTENT_PAIRS, Rng, oracle};

fn widen(s: &Segment) -> Segment64 {
    Segment64::new(s.p0.map(f64::from), s.p1.map(f64::from))
}

fn shift(s: &Segment64, o: f64) -> Segment64 {
    Segment64::new(s.p0.map(|x| x + o), s.p1.map(|x| x + o))
}

/// Rhodes' thought experiment, the perpendicular pair, a zero-length side and the 2D
/// tutorial's crossing, at the origin and at ECEF-sized offsets (where f32 has a
/// resolution of 0.5 m and these answers would be lost), every coordinate exact in f64.
#[test]
fn golden_cases_near_and_far() {
    for o in [0.0, 6.4e6, 1.0e9, -3.3e12] {
        let a = shift(&Segment64::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]), o);
        let b = shift(&Segment64::new([1.0, 0.0, 1.0], [1.0, 1.0, 1.0]), o);
        let c = reference::closest_points(&a, &b);
        assert_eq!((c.s, c.t, c.dist2), (1.0, 0.0, 1.0), "offset {o}: {c:?}");
        assert_eq!(c.point_a, [o + 1.0, o, o]);
        assert_eq!(c.point_b, [o + 1.0, o, o + 1.0]);
        assert!(c.flags.is_empty());

        let a = shift(&Segment64::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]), o);
        let b = shift(&Segment64::new([1.0, 1.0, 0.0], [1.0, 3.0, 0.0]), o);
        let c = reference::closest_points(&a, &b);
        assert_eq!((c.s, c.t, c.dist2), (0.5, 0.0, 1.0), "offset {o}: {c:?}");

        let p = shift(&Segment64::new([0.5, 2.0, 0.0], [0.5, 2.0, 0.0]), o);
        let c = reference::closest_points(&a, &p);
        assert_eq!((c.s, c.t, c.dist2), (0.25, 0.0, 4.0), "offset {o}: {c:?}");
        assert_eq!(c.flags, Flags::DEGENERATE_B);

        // P1 = (4,7), v1 = (12,-4); P2 = (1,1), v2 = (16,4): they cross at (13,4).
        let a = shift(&Segment64::new([4.0, 7.0, 0.0], [16.0, 3.0, 0.0]), o);
        let b = shift(&Segment64::new([1.0, 1.0, 0.0], [17.0, 5.0, 0.0]), o);
        let c = reference::closest_points(&a, &b);
        assert_eq!((c.s, c.t, c.dist2), (0.75, 0.75, 0.0), "offset {o}: {c:?}");
        assert_eq!(c.point_a, [o + 13.0, o + 4.0, o]);
    }
}

/// A 1 mm segment 6.4e6 m from the origin: f32 calls it a point (its length is below
/// 2·ε32 of its coordinates), f64 keeps its direction.
#[test]
fn millimetres_at_earth_radius() {
    let o = 6_378_137.0;
    let a = Segment64::new([o, 0.0, 0.0], [o + 1e-3, 0.0, 0.0]);
    let b = Segment64::new([o + 5e-4, 1.0, -1.0], [o + 5e-4, 1.0, 1.0]);
    let c = reference::closest_points(&a, &b);
    assert!(c.flags.is_empty(), "{c:?}");
    assert!((c.s - 0.5).abs() < 1e-6, "{c:?}");
    assert!((c.dist2 - 1.0).abs() < 1e-9, "{c:?}");
    let narrow = |s: &Segment64| Segment::new(s.p0.map(|x| x as f32), s.p1.map(|x| x as f32));
    let c32 = reference::closest_points(&narrow(&a), &narrow(&b));
    assert!(c32.flags.contains(Flags::DEGENERATE_A), "{c32:?}");
}

#[test]
fn non_finite_input_is_flagged_in_its_own_pair() {
    let a = Segment64::new([0.0, f64::NAN, 0.0], [1.0, 0.0, 0.0]);
    let b = Segment64::new([0.0, 1.0, 0.0], [1.0, 1.0, 0.0]);
    let c = reference::closest_points(&a, &b);
    assert_eq!(c.flags, Flags::NON_FINITE);
    assert!(c.dist2.is_nan() && c.s.is_nan());
    let b = Segment64::new([0.0, 1.0, f64::INFINITY], [1.0, 1.0, 0.0]);
    let c = reference::closest_points(&Segment64::new([0.0; 3], [1.0, 0.0, 0.0]), &b);
    assert_eq!(c.flags, Flags::NON_FINITE);
    // Opposite signs near f64::MAX: the differences overflow, the pair is finite.
    let big = 1.0e308;
    let a = Segment64::new([-big, 1.0, 0.0], [big, 1.0, 0.0]);
    let b = Segment64::new([0.0, -big, 0.0], [0.0, big, 0.0]);
    let c = reference::closest_points(&a, &b);
    assert!(!c.flags.contains(Flags::NON_FINITE), "{c:?}");
    assert_eq!((c.s, c.t), (0.5, 0.5 + 0.5 / big), "{c:?}");
}

/// The hard classes of the test kit (f32 end points, exact in f64), every extent: the
/// `f64` reference is within `8·f32::EPSILON·S` of the oracle (it reaches a few `f64` ulps;
/// the largest error seen is printed), its parameters lie in their extents, and it is
/// never less accurate than the `f32` reference by more than the `f32` bar.
#[test]
fn hard_classes_against_the_f64_oracle() {
    let mut rng = Rng::new(0x5eed_f640);
    let mut worst = 0f64;
    for class in CLASSES.iter().filter(|c| c.finite) {
        for _ in 0..400 {
            let (a, b) = (class.pair)(&mut rng);
            for (ea, eb) in EXTENT_PAIRS {
                let options = Options::new(ea, eb);
                let c: Closest64 = reference::closest_points_with(&widen(&a), &widen(&b), &options);
                let (lo_a, hi_a) = oracle::bounds(ea);
                let (lo_b, hi_b) = oracle::bounds(eb);
                assert!(
                    (lo_a..=hi_a).contains(&c.s) && (lo_b..=hi_b).contains(&c.t),
                    "{} {ea:?}/{eb:?}: {a:?} {b:?} {c:?}",
                    class.name
                );
                // A ray or line the f64 tolerance calls a point is graded as its point.
                let (a_o, ea_o) = if c.flags.contains(Flags::DEGENERATE_A) && ea != Extent::Segment
                {
                    (Segment::new(a.p0, a.p0), Extent::Segment)
                } else {
                    (a, ea)
                };
                let (b_o, eb_o) = if c.flags.contains(Flags::DEGENERATE_B) && eb != Extent::Segment
                {
                    (Segment::new(b.p0, b.p0), Extent::Segment)
                } else {
                    (b, eb)
                };
                let o = oracle::oracle(&a_o, &b_o, ea_o, eb_o);
                let mut s = [a.p0, a.p1, b.p0, b.p1]
                    .iter()
                    .flatten()
                    .fold(0f64, |m, &x| m.max(f64::from(x).abs()));
                for x in c
                    .point_a
                    .iter()
                    .chain(&c.point_b)
                    .chain(&o.point_a)
                    .chain(&o.point_b)
                {
                    s = s.max(x.abs());
                }
                let s = s.max(f64::MIN_POSITIVE);
                let err = (c.distance() - o.distance).abs() / s;
                assert!(
                    err <= 8.0 * EPS32,
                    "{} {ea:?}/{eb:?}: error {} ε32·S\n a = {a:?}\n b = {b:?}\n {c:?}\n oracle {o:?}",
                    class.name,
                    err / EPS32
                );
                if ea == Extent::Segment && eb == Extent::Segment {
                    worst = worst.max(err / f64::EPSILON);
                }
                // Swapping A and B swaps the answer's distance.
                let sw =
                    reference::closest_points_with(&widen(&b), &widen(&a), &Options::new(eb, ea));
                let d = (sw.distance() - c.distance()).abs() / s;
                assert!(d <= 8.0 * EPS32, "{} swap: {c:?} {sw:?}", class.name);
            }
        }
    }
    println!(
        "f64 reference, segment/segment, largest error against the f64 oracle: {worst:.1} ε64·S"
    );
}
