//! Motion queries (`segbatch::motion`): golden cases, batched-vs-scalar bitwise
//! equivalence, non-finite lanes, and accuracy against f64 oracles.
//!
//! Inputs come from the test kit's seeded generators of adversarial cases
//! (`segbatch_testkit::motion`: tangent contacts, overlapping spheres, equal and nearly
//! equal velocities, static objects, parallel / collinear / degenerate / T-junction 2D
//! segments, near-parallel angles 1e-1 .. 1e-7, scales 1e-3 .. 1e3, offsets up to 1e4),
//! with batch lengths 0..=33 so every tail length is exercised, and exact 2D pairs on
//! integer coordinates that meet, or do not, by construction.
//! Case counts come from `PROPTEST_CASES` (default 256 per property).
//!
//! Run: `cargo test --release --test suite motion::`.

use proptest::prelude::*;
use segbatch::motion::*;
use segbatch::pairs::Radii;
use segbatch::planar::{
    Crossing, Intersection2, Intersections2, Segment2, Segments2, intersect2, intersect2_into,
};
use segbatch::{Error, Segment, Segments, reference};
use segbatch_testkit::motion::{self, MovingPair, moving_pairs, seg2_pairs};
use segbatch_testkit::oracle2d;
use segbatch_testkit::vec::{add, max_abs, norm, scale as scale3, sub, to32 as f, to64 as d};
use segbatch_testkit::{Rng, strategy};

const EPS: f64 = f32::EPSILON as f64;
/// The crate's accuracy bar: 8·ε·S.
const BAR: f64 = 8.0;

// ---------------------------------------------------------------------------------------
// Helpers.

fn amax(v: &[[f32; 3]]) -> f64 {
    max_abs(v)
}

/// A track with the same motion as a start/end segment over one step.
fn track_of(s: &Segment) -> Track {
    Track::new(s.p0, s.direction())
}

// ---------------------------------------------------------------------------------------
// Comparisons.

/// Bitwise equal, or both NaN.
fn same(x: f32, y: f32) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

fn same_cpa(x: &Cpa, y: &Cpa) -> bool {
    same(x.t, y.t)
        && same(x.dist2, y.dist2)
        && (0..3).all(|k| same(x.point_a[k], y.point_a[k]) && same(x.point_b[k], y.point_b[k]))
        && x.flags == y.flags
}

fn same_contact(x: &Contact, y: &Contact) -> bool {
    x.hit == y.hit && same(x.t, y.t) && x.flags == y.flags
}

fn same_x2(x: &Intersection2, y: &Intersection2) -> bool {
    x.kind == y.kind
        && same(x.s, y.s)
        && same(x.t, y.t)
        && same(x.s_end, y.s_end)
        && same(x.t_end, y.t_end)
        && (0..2).all(|k| same(x.point_a[k], y.point_a[k]) && same(x.point_b[k], y.point_b[k]))
        && same(x.dist2, y.dist2)
        && x.flags == y.flags
}

/// Error of `got` against `want`, in units of ε·S.
fn units(got: f64, want: f64, s: f64) -> f64 {
    (got - want).abs() / (EPS * s.max(f64::MIN_POSITIVE))
}

// ---------------------------------------------------------------------------------------
// f64 oracles (independent and simple).

fn rel_segments(a: &Segment, b: &Segment) -> ([f64; 3], [f64; 3]) {
    let w0 = sub(d(a.p0), d(b.p0));
    let w1 = sub(d(a.p1), d(b.p1));
    (w0, sub(w1, w0))
}

fn rel_tracks(a: &Track, b: &Track) -> ([f64; 3], [f64; 3]) {
    (
        sub(d(a.position), d(b.position)),
        sub(d(a.velocity), d(b.velocity)),
    )
}

// ---------------------------------------------------------------------------------------
// Golden cases.

#[test]
fn worked_example_paths_cross_objects_never_meet() {
    // docs/motion.md: A goes (-4,0,0) -> (4,0,0), B goes (0,-4,0) -> (0,4,0) but starts
    // half a step late: B goes (0,-8,0) -> (0,0,0). Paths cross at the origin.
    let a = Segment::new([-4.0, 0.0, 0.0], [4.0, 0.0, 0.0]);
    let b = Segment::new([0.0, -8.0, 0.0], [0.0, 0.0, 0.0]);
    let paths = segbatch::reference::closest_points(&a, &b);
    assert_eq!(paths.dist2, 0.0, "the paths cross");
    let c = reference::cpa(&a, &b, Window::STEP);
    // w(t) = (-4 + 8t, 8 - 8t): closest at t = 0.75, distance 2·sqrt(2).
    assert_eq!(c.t, 0.75);
    assert_eq!(c.dist2, 8.0);
    assert_eq!(c.point_a, [2.0, 0.0, 0.0]);
    assert_eq!(c.point_b, [0.0, -2.0, 0.0]);
    let contact = reference::first_contact(&a, 1.0, &b, 1.0, Window::STEP);
    assert!(!contact.hit, "radius 1 + 1 < 2·sqrt(2): they never touch");
    let contact = reference::first_contact(&a, 1.5, &b, 1.5, Window::STEP);
    assert!(contact.hit, "radius 1.5 + 1.5 > 2·sqrt(2)");
    assert!((contact.t - 0.6616).abs() < 1e-3, "{contact:?}");
    // Batched agrees.
    let (sa, sb) = (Segments::from(&[a]), Segments::from(&[b]));
    assert!(same_cpa(&cpa(&sa, &sb, Window::STEP).get(0).unwrap(), &c));
    let radii = Radii::per_pair(&[1.0], &[1.0]).unwrap();
    assert_eq!(first_contact(&sa, &sb, radii, Window::STEP).hit(), &[false]);
}

#[test]
fn golden_cpa_and_contact() {
    // Sunday's example shape: head-on with a lateral offset.
    let a = Track::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
    let b = Track::new([2.0, 1.0, 0.0], [-2.0, 0.0, 0.0]);
    let c = reference::cpa(&a, &b, Window::STEP);
    assert_eq!((c.t, c.dist2, c.flags), (0.5, 1.0, MotionFlags::empty()));
    // Window clamps: [0, 0.25] ends before the closest approach.
    let c = reference::cpa(&a, &b, Window::new(0.25).unwrap());
    assert_eq!(c.t, 0.25);
    assert_eq!(c.dist2, 1.0 + 1.0);
    // Moving apart: t = 0.
    let c = reference::cpa(
        &b,
        &Track::new([4.0, 1.0, 0.0], [2.0, 0.0, 0.0]),
        Window::UNBOUNDED,
    );
    assert_eq!(c.t, 0.0);
    // Same velocity: flagged, t = 0, constant distance.
    let c = reference::cpa(
        &a,
        &Track::new([0.0, 3.0, 4.0], [2.0, 0.0, 0.0]),
        Window::STEP,
    );
    assert_eq!((c.t, c.dist2), (0.0, 25.0));
    assert!(c.flags.contains(MotionFlags::SAME_VELOCITY));
    // Unbounded window: the future closest approach.
    let c = reference::cpa(
        &a,
        &Track::new([10.0, 1.0, 0.0], [0.0, 0.0, 0.0]),
        Window::UNBOUNDED,
    );
    assert_eq!((c.t, c.dist2), (5.0, 1.0));

    // Dynamic sphere-sphere: contact at 0.75 (head on), touching at start, tangent, miss.
    let b = Track::new([4.0, 0.0, 0.0], [-2.0, 0.0, 0.0]);
    let x = reference::first_contact(&a, 0.5, &b, 0.5, Window::STEP);
    assert_eq!((x.hit, x.t, x.flags), (true, 0.75, MotionFlags::empty()));
    let x = reference::first_contact(&a, 3.0, &b, 1.5, Window::STEP);
    assert_eq!((x.hit, x.t), (true, 0.0));
    assert!(x.flags.contains(MotionFlags::TOUCHING_AT_START));
    // Exactly tangent: B passes at distance 1 = rA + rB.
    let b = Track::new([2.0, 1.0, 0.0], [-2.0, 0.0, 0.0]);
    let x = reference::first_contact(&a, 0.5, &b, 0.5, Window::STEP);
    assert_eq!((x.hit, x.t), (true, 0.5));
    let x = reference::first_contact(&a, 0.49, &b, 0.5, Window::STEP);
    assert!(!x.hit);
    assert_eq!(x.t, f32::INFINITY);
    // Zero relative velocity, apart: never.
    let x = reference::first_contact(
        &a,
        0.5,
        &Track::new([0.0, 5.0, 0.0], a.velocity),
        0.5,
        Window::UNBOUNDED,
    );
    assert!(!x.hit);
    // Too late for the window, in time for a longer one.
    let b = Track::new([40.0, 0.0, 0.0], [-2.0, 0.0, 0.0]);
    assert!(!reference::first_contact(&a, 0.5, &b, 0.5, Window::STEP).hit);
    let x = reference::first_contact(&a, 0.5, &b, 0.5, Window::new(20.0).unwrap());
    assert_eq!((x.hit, x.t), (true, 9.75));
}

#[test]
fn golden_2d() {
    let s = Segment2::new;
    // The tutorial.
    let x = reference::intersect2(&s([4.0, 7.0], [16.0, 3.0]), &s([1.0, 1.0], [17.0, 5.0]));
    assert_eq!(
        (x.kind, x.s, x.t, x.point_a, x.dist2),
        (Crossing::Point, 0.75, 0.75, [13.0, 4.0], 0.0)
    );
    // Perpendicular, not crossing: closest points.
    let x = reference::intersect2(&s([0.0, 0.0], [2.0, 0.0]), &s([1.0, 1.0], [1.0, 3.0]));
    assert_eq!(
        (x.kind, x.s, x.t, x.dist2),
        (Crossing::Disjoint, 0.5, 0.0, 1.0)
    );
    // Collinear overlap [1, 2] on A = [0, 2] (s in [0.5, 1]), B reversed.
    let x = reference::intersect2(&s([0.0, 0.0], [2.0, 0.0]), &s([3.0, 0.0], [1.0, 0.0]));
    assert_eq!(x.kind, Crossing::Overlap);
    assert_eq!((x.s, x.s_end, x.t, x.t_end), (0.5, 1.0, 1.0, 0.5));
    assert!(
        x.flags
            .contains(MotionFlags::COLLINEAR | MotionFlags::PARALLEL)
    );
    // Collinear, gap of 1: disjoint, nearest ends.
    let x = reference::intersect2(&s([0.0, 0.0], [1.0, 1.0]), &s([2.0, 2.0], [3.0, 3.0]));
    assert_eq!(
        (x.kind, x.s, x.t, x.dist2),
        (Crossing::Disjoint, 1.0, 0.0, 2.0)
    );
    assert!(x.flags.contains(MotionFlags::COLLINEAR));
    // Collinear touching end to end: a zero-length overlap.
    let x = reference::intersect2(&s([0.0, 0.0], [1.0, 0.0]), &s([1.0, 0.0], [5.0, 0.0]));
    assert_eq!(
        (x.kind, x.s, x.s_end, x.t, x.t_end),
        (Crossing::Overlap, 1.0, 1.0, 0.0, 0.0)
    );
    // Parallel, offset: disjoint, Rhodes' midpoint.
    let x = reference::intersect2(&s([0.0, 0.0], [4.0, 0.0]), &s([1.0, 1.0], [3.0, 1.0]));
    assert_eq!(
        (x.kind, x.s, x.t, x.dist2),
        (Crossing::Disjoint, 0.5, 0.5, 1.0)
    );
    // A point on a segment, and off it.
    let x = reference::intersect2(&s([0.3, 0.3], [0.3, 0.3]), &s([0.0, 0.0], [1.0, 1.0]));
    assert_eq!(x.kind, Crossing::Point);
    assert!(x.flags.contains(MotionFlags::DEGENERATE_A));
    let x = reference::intersect2(&s([0.0, 1.0], [0.0, 1.0]), &s([-1.0, 0.0], [1.0, 0.0]));
    assert_eq!((x.kind, x.t, x.dist2), (Crossing::Disjoint, 0.5, 1.0));
    // T-junction counts as crossing.
    let x = reference::intersect2(&s([0.0, 0.0], [2.0, 0.0]), &s([1.0, 0.0], [1.0, 5.0]));
    assert_eq!((x.kind, x.s, x.t), (Crossing::Point, 0.5, 0.0));
    // Millimetre-sized far from the origin: still exact.
    let x = reference::intersect2(
        &s([1000.0, 1000.0], [1000.002, 1000.0]),
        &s([1000.001, 999.999], [1000.001, 1000.001]),
    );
    assert_eq!(x.kind, Crossing::Point);
}

#[test]
fn length_mismatch_errors_and_panics() {
    let one = Segments::from(&[Segment::default()]);
    let none = Segments::new();
    let mut c = CpaBatch::new();
    assert!(cpa_into(&one, &none, Window::STEP, &mut c).is_err());
    let t1 = Tracks::from_iter([Track::default()]);
    assert!(cpa_into(&t1, &Tracks::new(), Window::STEP, &mut c).is_err());
    let mut k = ContactBatch::new();
    // Radii of A and B of different lengths: refused when the radii are made.
    assert!(matches!(
        Radii::per_pair(&[1.0], &[1.0, 2.0]),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        Radii::per_pair(&[], &[1.0]),
        Err(Error::LengthMismatch { .. })
    ));
    // Radii that do not fit the batches, and batches that do not fit each other.
    let two = Radii::per_pair(&[1.0, 2.0], &[1.0, 2.0]).unwrap();
    let zero = Radii::per_pair(&[], &[]).unwrap();
    let u = Radii::uniform(1.0, 1.0).unwrap();
    assert!(matches!(
        first_contact_into(&t1, &t1, two, Window::STEP, &mut k),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(first_contact_into(&t1, &Tracks::new(), u, Window::STEP, &mut k).is_err());
    assert!(matches!(
        first_contact_into(&one, &one, zero, Window::STEP, &mut k),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(first_contact_into(&one, &none, u, Window::STEP, &mut k).is_err());
    let mut x = Intersections2::new();
    let s1 = Segments2::from_iter([Segment2::default()]);
    assert!(intersect2_into(&s1, &Segments2::new(), &mut x).is_err());
    assert!(std::panic::catch_unwind(|| cpa(&one, &none, Window::STEP)).is_err());
    assert!(std::panic::catch_unwind(|| intersect2(&s1, &Segments2::new())).is_err());
}

// ---------------------------------------------------------------------------------------
// Batched vs scalar, bit for bit, every tail length, views with and without padding.

/// The windows start/end segments are asked over: their step, a part of it, past its end
/// and without end.
fn windows() -> [Window; 4] {
    let window = |end| Window::new(end).expect("a window");
    [Window::STEP, window(0.5), window(2.5), Window::UNBOUNDED]
}

fn check_cpa_equivalence(pairs: &[MovingPair], offset: usize) -> Result<(), TestCaseError> {
    let a: Vec<Segment> = pairs.iter().map(|p| p.a).collect();
    let b: Vec<Segment> = pairs.iter().map(|p| p.b).collect();
    let (sa, sb) = (Segments::from(&a), Segments::from(&b));
    let n = pairs.len() - offset;
    // Steps over their own step, stopped short, and run on past their end.
    for steps in windows() {
        let out = cpa(sa.view(offset..), sb.view(offset..), steps);
        prop_assert_eq!(out.len(), n);
        for i in 0..n {
            let want = reference::cpa(&a[offset + i], &b[offset + i], steps);
            prop_assert!(
                same_cpa(&out.get(i).unwrap(), &want),
                "segments lane {i}, {steps:?}: {:?} vs {:?}",
                out.get(i),
                want
            );
        }
    }
    let ta: Tracks = a.iter().map(track_of).collect();
    let tb: Tracks = b.iter().map(track_of).collect();
    let window = Window::new(1.5).unwrap();
    let out_t = cpa(ta.view(offset..), tb.view(offset..), window);
    for i in 0..n {
        let (pa, pb) = (&a[offset + i], &b[offset + i]);
        let want = reference::cpa(&track_of(pa), &track_of(pb), window);
        prop_assert!(
            same_cpa(&out_t.get(i).unwrap(), &want),
            "tracks lane {i}: {:?} vs {:?}",
            out_t.get(i),
            want
        );
    }
    Ok(())
}

fn check_contact_equivalence(pairs: &[MovingPair], offset: usize) -> Result<(), TestCaseError> {
    let a: Vec<Segment> = pairs.iter().map(|p| p.a).collect();
    let b: Vec<Segment> = pairs.iter().map(|p| p.b).collect();
    let ra: Vec<f32> = pairs.iter().map(|p| p.ra).collect();
    let rb: Vec<f32> = pairs.iter().map(|p| p.rb).collect();
    let (sa, sb) = (Segments::from(&a), Segments::from(&b));
    let radii = Radii::per_pair(&ra[offset..], &rb[offset..]).expect("valid radii");
    for steps in windows() {
        let out = first_contact(sa.view(offset..), sb.view(offset..), radii, steps);
        prop_assert_eq!(out.len(), pairs.len() - offset);
        for i in 0..out.len() {
            let k = offset + i;
            let want = reference::first_contact(&a[k], ra[k], &b[k], rb[k], steps);
            prop_assert!(
                same_contact(&out.get(i).unwrap(), &want),
                "segments lane {i}, {steps:?}: {:?} vs {:?}",
                out.get(i),
                want
            );
        }
        prop_assert_eq!(out.hits().count(), out.hit().iter().filter(|h| **h).count());
    }
    let ta: Tracks = a.iter().map(track_of).collect();
    let tb: Tracks = b.iter().map(track_of).collect();
    let window = Window::new(2.0).unwrap();
    let out_t = first_contact(ta.view(offset..), tb.view(offset..), radii, window);
    for i in 0..out_t.len() {
        let k = offset + i;
        let want =
            reference::first_contact(&track_of(&a[k]), ra[k], &track_of(&b[k]), rb[k], window);
        prop_assert!(
            same_contact(&out_t.get(i).unwrap(), &want),
            "tracks lane {i}: {:?} vs {:?}",
            out_t.get(i),
            want
        );
    }
    Ok(())
}

fn check_2d_equivalence(
    pairs: &[(Segment2, Segment2, bool)],
    offset: usize,
) -> Result<(), TestCaseError> {
    let a: Segments2 = pairs.iter().map(|p| p.0).collect();
    let b: Segments2 = pairs.iter().map(|p| p.1).collect();
    let out = intersect2(a.view(offset..), b.view(offset..));
    prop_assert_eq!(out.len(), pairs.len() - offset);
    for i in 0..out.len() {
        let (pa, pb, _) = &pairs[offset + i];
        let want = reference::intersect2(pa, pb);
        prop_assert!(
            same_x2(&out.get(i).unwrap(), &want),
            "lane {i} {pa:?} {pb:?}: {:?} vs {:?}",
            out.get(i),
            want
        );
    }
    Ok(())
}

/// Puts a NaN or an infinity into a few pairs' coordinates.
fn poison(rng: &mut Rng, x: &mut f32) {
    *x = match rng.below(3) {
        0 => f32::NAN,
        1 => f32::INFINITY,
        _ => f32::NEG_INFINITY,
    };
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn cpa_batched_equals_scalar(n in 0usize..=33, offset in 0usize..3, seed in any::<u64>()) {
        let pairs = moving_pairs(seed, n + offset);
        check_cpa_equivalence(&pairs, offset)?;
    }

    #[test]
    fn contact_batched_equals_scalar(n in 0usize..=33, offset in 0usize..3, seed in any::<u64>()) {
        let pairs = moving_pairs(seed, n + offset);
        check_contact_equivalence(&pairs, offset)?;
    }

    #[test]
    fn intersect2_batched_equals_scalar(n in 0usize..=33, offset in 0usize..3, seed in any::<u64>()) {
        let pairs = seg2_pairs(seed, n + offset);
        check_2d_equivalence(&pairs, offset)?;
    }

    /// A non-finite coordinate gives NaN and the flag for its own pair only; the other
    /// lanes stay bitwise equal to the scalar reference.
    #[test]
    fn non_finite_lanes_are_isolated(n in 1usize..=33, seed in any::<u64>()) {
        let mut rng = Rng::new(seed ^ 0x5eed);
        let mut pairs = moving_pairs(seed, n);
        let mut p2 = seg2_pairs(seed, n);
        let mut poisoned = vec![false; n];
        for _ in 0..1 + rng.below(3) {
            let i = rng.below(n as u64) as usize;
            poisoned[i] = true;
            let c = rng.below(13) as usize;
            let p = &mut pairs[i];
            match c {
                0..3 => poison(&mut rng, &mut p.a.p0[c]),
                3..6 => poison(&mut rng, &mut p.a.p1[c - 3]),
                6..9 => poison(&mut rng, &mut p.b.p0[c - 6]),
                9..12 => poison(&mut rng, &mut p.b.p1[c - 9]),
                _ => poison(&mut rng, &mut p.ra),
            }
            let q = &mut p2[i];
            match c % 8 {
                k @ 0..2 => poison(&mut rng, &mut q.0.p0[k]),
                k @ 2..4 => poison(&mut rng, &mut q.0.p1[k - 2]),
                k @ 4..6 => poison(&mut rng, &mut q.1.p0[k - 4]),
                k => poison(&mut rng, &mut q.1.p1[k - 6]),
            }
        }
        // A NaN or negative radius is no longer a lane: `Radii::per_pair` refuses it, naming
        // the first such pair, and the scalar reference flags its pair. An infinite radius
        // is a valid `Radii` and a non-finite lane of the kernel's probe: it stands in for a
        // refused one below, so the kernel still sees a non-finite radius in that lane (and
        // decides it by the rule: it touches everything at the start, unless a coordinate
        // is non-finite too).
        let ra: Vec<f32> = pairs.iter().map(|p| p.ra).collect();
        let rb: Vec<f32> = pairs.iter().map(|p| p.rb).collect();
        let invalid: Vec<usize> = (0..n).filter(|&i| !(ra[i] >= 0.0 && rb[i] >= 0.0)).collect();
        prop_assert_eq!(
            Radii::per_pair(&ra, &rb).err(),
            invalid.first().map(|&i| Error::InvalidRadius { index: Some(i) })
        );
        for &i in &invalid {
            let p = &pairs[i];
            let want = reference::first_contact(&p.a, p.ra, &p.b, p.rb, Window::STEP);
            prop_assert!(same_contact(&want, &Contact::NON_FINITE), "{:?}: {:?}", p, want);
            pairs[i].ra = f32::INFINITY;
        }
        check_cpa_equivalence(&pairs, 0)?;
        check_contact_equivalence(&pairs, 0)?;
        check_2d_equivalence(&p2, 0)?;
        let a: Vec<Segment> = pairs.iter().map(|p| p.a).collect();
        let b: Vec<Segment> = pairs.iter().map(|p| p.b).collect();
        let ra: Vec<f32> = pairs.iter().map(|p| p.ra).collect();
        let rb: Vec<f32> = pairs.iter().map(|p| p.rb).collect();
        let (sa, sb) = (Segments::from(&a), Segments::from(&b));
        let c = cpa(&sa, &sb, Window::STEP);
        let k = first_contact(&sa, &sb, Radii::per_pair(&ra, &rb).unwrap(), Window::STEP);
        let x = intersect2(
            &p2.iter().map(|p| p.0).collect::<Segments2>(),
            &p2.iter().map(|p| p.1).collect::<Segments2>(),
        );
        for i in 0..n {
            if poisoned[i] {
                let ci = c.get(i).unwrap();
                // The radius is not an input of CPA.
                if !(pairs[i].ra.is_nan() || pairs[i].ra.is_infinite()) {
                    prop_assert!(ci.flags == MotionFlags::NON_FINITE && ci.dist2.is_nan() && ci.t.is_nan());
                }
                let ki = k.get(i).unwrap();
                let p = &pairs[i];
                let finite = [p.a.p0, p.a.p1, p.b.p0, p.b.p1].iter().flatten().all(|x| x.is_finite());
                if finite && (p.ra == f32::INFINITY || p.rb == f32::INFINITY) {
                    prop_assert!(ki.flags == MotionFlags::TOUCHING_AT_START && ki.hit && ki.t == 0.0);
                } else {
                    prop_assert!(ki.flags == MotionFlags::NON_FINITE && !ki.hit && ki.t.is_nan());
                }
                let xi = x.get(i).unwrap();
                prop_assert!(xi.flags == MotionFlags::NON_FINITE && xi.dist2.is_nan() && xi.kind == Crossing::Disjoint);
            } else {
                prop_assert!(!c.get(i).unwrap().dist2.is_nan());
                prop_assert!(!k.get(i).unwrap().flags.contains(MotionFlags::NON_FINITE));
                prop_assert!(!x.get(i).unwrap().dist2.is_nan());
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Accuracy against the f64 oracles.

/// Largest error seen, in units of ε·S, per test (printed with --nocapture).
fn report(name: &str, worst: f64) {
    println!("{name}: worst error {worst:.2} ε·S (bar {BAR})");
}

fn check_cpa_accuracy(pairs: &[MovingPair]) -> Result<f64, TestCaseError> {
    let mut worst = 0.0f64;
    for p in pairs {
        // Start/end form, window [0, 1].
        let c = reference::cpa(&p.a, &p.b, Window::STEP);
        let s = amax(&[p.a.p0, p.a.p1, p.b.p0, p.b.p1]);
        let (w0, dv) = rel_segments(&p.a, &p.b);
        let (want, _) = motion::cpa(w0, dv, 1.0);
        let err = units(f64::from(c.dist2).sqrt(), want, s);
        prop_assert!(err <= BAR, "segments {p:?}: {c:?} vs {want} ({err:.1} ε·S)");
        prop_assert!((0.0..=1.0).contains(&c.t));
        // The reported points are the positions at the reported time.
        for (pt, seg) in [(c.point_a, p.a), (c.point_b, p.b)] {
            let at = add(d(seg.p0), scale3(sub(d(seg.p1), d(seg.p0)), f64::from(c.t)));
            prop_assert!(units(norm(sub(d(pt), at)), 0.0, s) <= BAR);
        }
        worst = worst.max(err);
        // Track form, window [0, 2].
        let (ta, tb) = (track_of(&p.a), track_of(&p.b));
        let c = reference::cpa(&ta, &tb, Window::new(2.0).unwrap());
        let ends = [
            ta.position,
            tb.position,
            f(add(d(ta.position), scale3(d(ta.velocity), 2.0))),
            f(add(d(tb.position), scale3(d(tb.velocity), 2.0))),
        ];
        let s = amax(&ends);
        let (w0, dv) = rel_tracks(&ta, &tb);
        let (want, _) = motion::cpa(w0, dv, 2.0);
        let err = units(f64::from(c.dist2).sqrt(), want, s);
        prop_assert!(
            err <= BAR,
            "tracks {ta:?} {tb:?}: {c:?} vs {want} ({err:.1} ε·S)"
        );
        prop_assert!((0.0..=2.0).contains(&c.t));
        worst = worst.max(err);
    }
    Ok(worst)
}

/// Checks a contact result geometrically against f64: a reported time has distance R (to
/// the tolerance) and no earlier time is closer than R; a miss never comes closer than R.
fn check_contact(
    w0: [f64; 3],
    dv: [f64; 3],
    r: f64,
    t_end: f64,
    got: &Contact,
    s: f64,
) -> Result<f64, String> {
    let tol = BAR * EPS * s.max(r);
    let dist_at = |t: f64| norm(add(w0, scale3(dv, t)));
    if got.hit {
        let t = f64::from(got.t);
        if !(0.0..=t_end).contains(&t) {
            return Err(format!("hit time {t} outside [0, {t_end}]"));
        }
        if got.flags.contains(MotionFlags::TOUCHING_AT_START) {
            if t != 0.0 || dist_at(0.0) > r + tol {
                return Err(format!(
                    "touching at start but |w0| = {} > R = {r}",
                    dist_at(0.0)
                ));
            }
            return Ok((dist_at(0.0) - r).max(0.0) / (EPS * s.max(r)));
        }
        let (min_before, _) = motion::cpa(w0, dv, t);
        let err = (dist_at(t) - r).abs().max(r - min_before);
        if err > tol {
            return Err(format!(
                "hit at {t}: distance {} (R = {r}), closest before {min_before}",
                dist_at(t)
            ));
        }
        Ok(err / (EPS * s.max(r)))
    } else {
        let (min, tm) = motion::cpa(w0, dv, t_end);
        if min < r - tol {
            return Err(format!("miss, but distance {min} < R = {r} at t = {tm}"));
        }
        Ok(0.0)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn cpa_accuracy_vs_f64(seed in any::<u64>()) {
        let worst = check_cpa_accuracy(&moving_pairs(seed, 32))?;
        prop_assert!(worst <= BAR);
    }

    #[test]
    fn contact_accuracy_vs_f64(seed in any::<u64>()) {
        for p in moving_pairs(seed, 32) {
            let r = f64::from(p.ra + p.rb);
            let s = amax(&[p.a.p0, p.a.p1, p.b.p0, p.b.p1]);
            let got = reference::first_contact(&p.a, p.ra, &p.b, p.rb, Window::STEP);
            let (w0, dv) = rel_segments(&p.a, &p.b);
            if let Err(e) = check_contact(w0, dv, r, 1.0, &got, s) {
                prop_assert!(false, "segments {p:?}: {got:?}: {e}");
            }
            let (ta, tb) = (track_of(&p.a), track_of(&p.b));
            let got = reference::first_contact(&ta, p.ra, &tb, p.rb, Window::new(2.0).unwrap());
            let (w0, dv) = rel_tracks(&ta, &tb);
            let s = s.max(amax(&[f(add(d(ta.position), scale3(d(ta.velocity), 2.0))), f(add(d(tb.position), scale3(d(tb.velocity), 2.0)))]));
            if let Err(e) = check_contact(w0, dv, r, 2.0, &got, s) {
                prop_assert!(false, "tracks {ta:?} {tb:?}: {got:?}: {e}");
            }
        }
    }

    #[test]
    fn intersect2_accuracy_vs_f64(seed in any::<u64>()) {
        for (a, b, exact_overlap) in seg2_pairs(seed, 32) {
            let x = reference::intersect2(&a, &b);
            let s = oracle2d::scale(&a, &b);
            let tol = BAR * EPS * s;
            let want = oracle2d::distance(&a, &b);
            let err = units(f64::from(x.dist2).sqrt(), want, s);
            prop_assert!(err <= BAR, "{a:?} {b:?}: {x:?} vs {want} ({err:.1} ε·S)");
            for v in [x.s, x.t, x.s_end, x.t_end] {
                prop_assert!((0.0..=1.0).contains(&v), "{a:?} {b:?}: {x:?}");
            }
            let pa = x.point_a.map(f64::from);
            let pb = x.point_b.map(f64::from);
            match x.kind {
                Crossing::Point => {
                    prop_assert!(oracle2d::point_to_segment(pa, &a) <= tol && oracle2d::point_to_segment(pa, &b) <= tol, "{a:?} {b:?}: {x:?}");
                    prop_assert!(oracle2d::point_to_segment(pb, &a) <= tol, "{a:?} {b:?}: {x:?}");
                }
                Crossing::Overlap => {
                    prop_assert!(x.flags.contains(MotionFlags::COLLINEAR) && x.s <= x.s_end);
                    for (u, v) in [(x.s, x.t), (x.s_end, x.t_end)] {
                        let q = a.at(u).map(f64::from);
                        prop_assert!(oracle2d::point_to_segment(q, &b) <= tol, "{a:?} {b:?}: {x:?}");
                        let q = b.at(v).map(f64::from);
                        prop_assert!(oracle2d::point_to_segment(q, &a) <= tol, "{a:?} {b:?}: {x:?}");
                    }
                }
                Crossing::Disjoint => {
                    let sep = ((pa[0] - pb[0]).powi(2) + (pa[1] - pb[1]).powi(2)).sqrt();
                    prop_assert!(units(sep, want, s) <= BAR, "{a:?} {b:?}: {x:?}");
                }
            }
            if exact_overlap {
                prop_assert_eq!(x.kind, Crossing::Overlap, "{:?} {:?}: {:?}", a, b, x);
            }
            if want > tol {
                prop_assert_eq!(x.kind, Crossing::Disjoint, "{:?} {:?}: {:?}", a, b, x);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// 2D: real crossings must be reported as meeting, clear misses as disjoint. The pairs have
// integer coordinates in -1000..=1000 (exact in f32), and whether they meet is decided
// exactly (i64 orientation tests), so these properties would catch a kernel that called
// everything `Disjoint` (or everything meeting), which the accuracy property above cannot.

/// Exact distance (f64) below which a miss would be within the bar of meeting: the bar
/// (8·ε·S) plus the library's touching tolerance (4·ε·S), doubled.
const CLEAR_GAP: f64 = 24.0 * EPS;

fn check_int_pair(
    (a, b): segbatch_testkit::motion::IntPair,
    meet: bool,
) -> Result<(), TestCaseError> {
    let (a2, b2) = (motion::seg2_of(a), motion::seg2_of(b));
    prop_assert_eq!(
        oracle2d::segments_meet_i(a[0], a[1], b[0], b[1]),
        meet,
        "generator: {:?} {:?}",
        a,
        b
    );
    let x = reference::intersect2(&a2, &b2);
    let batched = intersect2(
        &Segments2::from_iter([a2, a2, a2, a2, a2, a2, a2, a2, a2]),
        &Segments2::from_iter([b2, b2, b2, b2, b2, b2, b2, b2, b2]),
    );
    for i in 0..batched.len() {
        prop_assert!(
            same_x2(&batched.get(i).unwrap(), &x),
            "lane {i}: {:?} vs {x:?}",
            batched.get(i)
        );
    }
    if meet {
        prop_assert_ne!(
            x.kind,
            Crossing::Disjoint,
            "{:?} {:?} meet: {:?}",
            a2,
            b2,
            x
        );
    } else {
        prop_assert_eq!(
            x.kind,
            Crossing::Disjoint,
            "{:?} {:?} do not meet: {:?}",
            a2,
            b2,
            x
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn intersect2_reports_real_crossings_as_meeting(pair in strategy::meeting_int_pair()) {
        check_int_pair(pair, true)?;
    }

    #[test]
    fn intersect2_reports_clear_misses_as_disjoint(pair in strategy::disjoint_int_pair(CLEAR_GAP)) {
        check_int_pair(pair, false)?;
    }
}

/// A fixed sweep of 20 000 pairs per query, printing the worst error against the f64
/// oracle in units of ε·S (`cargo test --release --test suite motion:: accuracy_summary -- --nocapture`;
/// the figures are quoted in docs/motion.md).
#[test]
fn accuracy_summary() {
    let n = 20_000;
    let pairs = moving_pairs(0xacc, n);
    let worst = check_cpa_accuracy(&pairs).expect("within the bar");
    report("cpa (segments and tracks)", worst);
    let mut worst = 0.0f64;
    for p in &pairs {
        let r = f64::from(p.ra + p.rb);
        let s = amax(&[p.a.p0, p.a.p1, p.b.p0, p.b.p1]);
        let got = reference::first_contact(&p.a, p.ra, &p.b, p.rb, Window::STEP);
        let (w0, dv) = rel_segments(&p.a, &p.b);
        worst = worst.max(check_contact(w0, dv, r, 1.0, &got, s).expect("within the bar"));
    }
    report(
        "first contact (|distance at t| - R, earlier approach)",
        worst,
    );
    let mut worst = 0.0f64;
    for (a, b, _) in seg2_pairs(0xacc, n) {
        let x = reference::intersect2(&a, &b);
        let e = units(
            f64::from(x.dist2).sqrt(),
            oracle2d::distance(&a, &b),
            oracle2d::scale(&a, &b),
        );
        assert!(e <= BAR, "{a:?} {b:?}: {x:?}");
        worst = worst.max(e);
    }
    report("2D closest distance", worst);
}
