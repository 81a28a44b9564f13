//! The 2D meeting decision is exact, wherever the pair lies.
//!
//! Pairs are built on an integer lattice (testkit's meeting and near-miss generators: proper
//! crossings, T-junctions, shared end points, collinear overlaps and touches, misses by one
//! lattice step), then placed at an offset `base` (up to UTM northings, `5e6`, and the edge
//! of f32's integers, `2^24`) on a lattice of step `unit` (a power of two, so every
//! coordinate is exactly an f32). Whether two segments meet is invariant under that exact
//! translation and scaling, and is decided here in exact integer arithmetic; the reference,
//! the batched kernel (every lane, both code paths) and the crossing set must agree with it.
//!
//! The `f64` forms (`reference::intersect2` on `Segment2_64`, the crossing sets of `Segments2<f64>`) are
//! checked the same way on `f64` lattices (exact placements: the integer test decides),
//! and at UTM coordinates on a millimetre lattice that `f64` cannot hold exactly: there the
//! rounded coordinates make near-degenerate pairs, decided in exact rational arithmetic.
//!
//! Case counts come from `PROPTEST_CASES` (default 256 per property).

use proptest::prelude::*;
use segbatch::planar::{
    Crossing, Intersection2, Segment2, Segment2_64, Segments2, crossing_pairs, crossing_pairs_into,
    intersect2,
};
use segbatch::reference;
use segbatch::sets::SharedEndpoints;
use segbatch_testkit::Rng;
use segbatch_testkit::motion::{IntPair, disjoint_int_pair, meeting_int_pair};
use segbatch_testkit::oracle2d::{orient_i, segments_meet_i};
use segbatch_testkit::oracle64::BigRational;

/// Offsets (in lattice steps) and lattice steps: UTM eastings and northings in metres at
/// the resolution f32 has there, and the largest integers f32 holds.
const PLACES: [(i64, f32); 6] = [
    (0, 1.0),
    (0, 1.0 / 1024.0),
    (480_000, 1.0),
    (10_000_000, 0.5),
    (16_000_000, 1.0),
    (1_000_000, 1.0 / 16.0),
];

/// The segment of lattice points `p` at `base` (in lattice steps) with step `unit`: exact in
/// f32 (the generators keep `|x| <= 1020`, and `base + x < 2^24`).
fn placed(p: [[i64; 2]; 2], base: i64, unit: f32) -> Segment2 {
    let f = |x: i64| {
        let v = base + x;
        assert!(v.abs() < 1 << 24, "lattice point {v} is not exactly an f32");
        v as f32 * unit
    };
    Segment2::new(p[0].map(f), p[1].map(f))
}

/// Exactly collinear (all four orientations zero) with both sides of positive length.
fn collinear_i((a, b): IntPair) -> bool {
    a[0] != a[1] && b[0] != b[1] && [b[0], b[1]].iter().all(|&p| orient_i(a[0], a[1], p) == 0)
}

fn same(x: &Intersection2, y: &Intersection2) -> bool {
    let bits = |v: &Intersection2| {
        [
            v.s,
            v.t,
            v.s_end,
            v.t_end,
            v.point_a[0],
            v.point_a[1],
            v.point_b[0],
            v.point_b[1],
            v.dist2,
        ]
        .map(f32::to_bits)
    };
    x.kind == y.kind && x.flags == y.flags && bits(x) == bits(y)
}

/// One lattice pair at every place: the reference's kind against the exact test, and the
/// batch (the pair in every lane, beside general-position filler so both kernel paths run)
/// against the reference.
fn check(pair: IntPair) -> Result<(), TestCaseError> {
    let (a, b) = pair;
    let meet = segments_meet_i(a[0], a[1], b[0], b[1]);
    for (base, unit) in PLACES {
        let (sa, sb) = (placed(a, base, unit), placed(b, base, unit));
        let x = reference::intersect2(&sa, &sb);
        prop_assert_eq!(
            x.kind != Crossing::Disjoint,
            meet,
            "{:?} {:?} at {} x {}: {:?}",
            sa,
            sb,
            base,
            unit,
            x
        );
        if meet {
            // A lattice pair long enough to carry a direction: overlap exactly when collinear.
            prop_assert_eq!(
                x.kind == Crossing::Overlap,
                collinear_i(pair),
                "{:?} {:?}: {:?}",
                sa,
                sb,
                x
            );
        }
        for s in [x.s, x.t, x.s_end, x.t_end] {
            prop_assert!((0.0..=1.0).contains(&s), "{:?}", x);
        }
        for lane in 0..9 {
            let filler_a = placed([[0, 0], [7, 3]], base, unit);
            let filler_b = placed([[0, 3], [7, 0]], base, unit);
            let mut xs = Segments2::from(&[filler_a; 9]);
            let mut ys = Segments2::from(&[filler_b; 9]);
            xs.set(lane, sa).expect("in range");
            ys.set(lane, sb).expect("in range");
            let out = intersect2(&xs, &ys);
            let got = out.get(lane).expect("a result per pair");
            prop_assert!(same(&got, &x), "lane {}: {:?} vs {:?}", lane, got, x);
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn meeting_pairs_meet_anywhere(seed in any::<u64>()) {
        check(meeting_int_pair(&mut Rng::new(seed)))?;
    }

    #[test]
    fn near_misses_stay_apart_anywhere(seed in any::<u64>()) {
        // A gap of one lattice step or more (relative gap 0: any exact miss).
        check(disjoint_int_pair(&mut Rng::new(seed), 0.0))?;
    }

    #[test]
    fn crossing_sets_do_not_move_with_the_world(seed in any::<u64>()) {
        let mut rng = Rng::new(seed);
        let pairs: Vec<IntPair> = (0..24)
            .map(|k| if k % 2 == 0 { meeting_int_pair(&mut rng) } else { disjoint_int_pair(&mut rng, 0.0) })
            .collect();
        let set = |base: i64, unit: f32| -> Segments2 {
            pairs.iter().flat_map(|&(a, b)| [placed(a, base, unit), placed(b, base, unit)]).collect()
        };
        let pairs_of = |s: &Segments2| {
            let mut v: Vec<(u32, u32, Crossing)> =
                crossing_pairs(s).iter().map(|h| (h.i, h.j, h.kind)).collect();
            v.sort_by_key(|&(i, j, _)| (i, j));
            v
        };
        let at_origin = pairs_of(&set(0, 1.0));
        for (base, unit) in PLACES {
            prop_assert_eq!(&pairs_of(&set(base, unit)), &at_origin, "at {} x {}", base, unit);
        }
        // Every pair of the set decided exactly.
        let all = set(0, 1.0);
        let lattice: Vec<[[i64; 2]; 2]> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        let mut want = Vec::new();
        for i in 0..lattice.len() {
            for j in i + 1..lattice.len() {
                let (p, q) = (lattice[i], lattice[j]);
                if segments_meet_i(p[0], p[1], q[0], q[1]) {
                    want.push((i as u32, j as u32));
                }
            }
        }
        let got: Vec<(u32, u32)> = at_origin.iter().map(|&(i, j, _)| (i, j)).collect();
        prop_assert_eq!(got, want, "{} segments", all.len());
    }
}

/// Two streets 2 m apart at UTM northings: an f32-exact T that misses by 2 m.
#[test]
fn utm_streets_two_metres_apart_do_not_meet() {
    let a = Segment2::new([500_000.0, 5_000_000.0], [500_010.0, 5_000_000.0]);
    let b = Segment2::new([500_005.0, 5_000_002.0], [500_005.0, 5_000_010.0]);
    let x = reference::intersect2(&a, &b);
    assert_eq!(x.kind, Crossing::Disjoint, "{x:?}");
    assert_eq!(x.dist2, 4.0);
    // One ulp (0.5 m) apart, and touching.
    let near = Segment2::new([500_005.0, 5_000_000.5], [500_005.0, 5_000_010.0]);
    assert_eq!(reference::intersect2(&a, &near).kind, Crossing::Disjoint);
    let on = Segment2::new([500_005.0, 5_000_000.0], [500_005.0, 5_000_010.0]);
    let x = reference::intersect2(&a, &on);
    assert_eq!((x.kind, x.s, x.t), (Crossing::Point, 0.5, 0.0));
    let batch = intersect2(
        &Segments2::from(&[a, a, a]),
        &Segments2::from(&[b, near, on]),
    );
    assert_eq!(
        batch.kind(),
        &[Crossing::Disjoint, Crossing::Disjoint, Crossing::Point]
    );
}

/// End to end on one line, far from the origin: an overlap of one point.
#[test]
fn collinear_touch_far_away_is_a_one_point_overlap() {
    let a = Segment2::new([4_000_000.0, 1_000_000.0], [4_000_004.0, 1_000_002.0]);
    let b = Segment2::new([4_000_004.0, 1_000_002.0], [4_000_010.0, 1_000_005.0]);
    let x = reference::intersect2(&a, &b);
    assert_eq!(x.kind, Crossing::Overlap, "{x:?}");
    assert_eq!((x.s, x.s_end, x.t, x.t_end), (1.0, 1.0, 0.0, 0.0));
    // Moved off the line by half a unit: apart.
    let b = Segment2::new([4_000_004.0, 1_000_002.5], [4_000_010.0, 1_000_005.5]);
    assert_eq!(reference::intersect2(&a, &b).kind, Crossing::Disjoint);
}

/// Crossings at a tiny angle: the lines cross inside both segments, so they meet, however
/// ill-conditioned the crossing's position.
#[test]
fn crossings_at_a_tiny_angle_meet() {
    let a = Segment2::new([0.0, 0.0], [16_777_216.0, 1.0]);
    let b = Segment2::new([0.0, 1.0], [16_777_216.0, 0.0]);
    assert_eq!(reference::intersect2(&a, &b).kind, Crossing::Point);
    let b = Segment2::new([0.0, 1.0], [16_777_216.0, 2.0]);
    assert_eq!(reference::intersect2(&a, &b).kind, Crossing::Disjoint);
}

/// The same lattice pair scaled by `2^k`: exact in f32 for these `k` (the generators'
/// coordinates are integers below 2^11).
fn scaled(p: [[i64; 2]; 2], k: i32) -> Segment2 {
    let f = |x: i64| (x as f64 * 2f64.powi(k)) as f32;
    Segment2::new(p[0].map(f), p[1].map(f))
}

proptest! {
    /// Pairs at any magnitude, from 2^-120 to 2^110: the same answer as at unit scale (a
    /// power-of-two scale commutes with rounding), points and squared distances scaled, and
    /// the batch equal to the reference in every lane.
    #[test]
    fn answers_scale_with_the_pair(seed in any::<u64>()) {
        let mut rng = Rng::new(seed);
        let (a, b) = if rng.chance(0.5) { meeting_int_pair(&mut rng) } else { disjoint_int_pair(&mut rng, 0.0) };
        let unit = reference::intersect2(&scaled(a, 0), &scaled(b, 0));
        for k in [-120, -100, -60, -20, 30, 60, 100, 110] {
            let (sa, sb) = (scaled(a, k), scaled(b, k));
            let x = reference::intersect2(&sa, &sb);
            prop_assert_eq!((x.kind, x.flags), (unit.kind, unit.flags), "2^{}: {:?} vs {:?}", k, x, unit);
            prop_assert_eq!((x.s, x.t, x.s_end, x.t_end), (unit.s, unit.t, unit.s_end, unit.t_end), "2^{}", k);
            let up = |v: f32, by: i32| (f64::from(v) * 2f64.powi(by)) as f32;
            prop_assert_eq!(x.point_a, unit.point_a.map(|v| up(v, k)), "2^{}", k);
            prop_assert_eq!(x.point_b, unit.point_b.map(|v| up(v, k)), "2^{}", k);
            let d2 = f64::from(unit.dist2) * 2f64.powi(2 * k);
            if d2 < f64::from(f32::MAX) && d2 >= f64::from(f32::MIN_POSITIVE) || d2 == 0.0 {
                prop_assert_eq!(f64::from(x.dist2), d2, "2^{}", k);
            }
            let batch = intersect2(&Segments2::from(&[sa; 11]), &Segments2::from(&[sb; 11]));
            for lane in 0..11 {
                prop_assert!(same(&batch.get(lane).expect("a result"), &x), "2^{} lane {}", k, lane);
            }
        }
    }
}

/// Segments spanning the whole f32 range cross at the origin: finite input, a crossing.
#[test]
fn segments_across_the_whole_f32_range_cross() {
    let m = f32::MAX;
    let a = Segment2::new([-m, 0.0], [m, 0.0]);
    let b = Segment2::new([0.0, -m], [0.0, m]);
    let c = Segment2::new([-m, 1.0], [m, 1.0]); // parallel to a, 1 apart
    for x in [
        reference::intersect2(&a, &b),
        intersect2(&Segments2::from(&[a; 3]), &Segments2::from(&[b; 3]))
            .get(2)
            .expect("three results"),
    ] {
        assert_eq!(x.kind, Crossing::Point, "{x:?}");
        assert_eq!((x.s, x.t, x.dist2), (0.5, 0.5, 0.0), "{x:?}");
        assert_eq!((x.point_a, x.point_b), ([0.0, 0.0], [0.0, 0.0]));
        assert!(x.flags.is_empty(), "{x:?}");
    }
    let x = reference::intersect2(&a, &c);
    assert_eq!(x.kind, Crossing::Disjoint, "{x:?}");
    assert!(x.dist2.is_finite() && x.s.is_finite(), "{x:?}");
    assert!(!x.flags.contains(segbatch::motion::MotionFlags::NON_FINITE));
    // An infinite coordinate is still non-finite input.
    let inf = Segment2::new([f32::INFINITY, 0.0], [0.0, 0.0]);
    assert_eq!(reference::intersect2(&inf, &b).kind, Crossing::Disjoint);
    assert!(reference::intersect2(&inf, &b).dist2.is_nan());
}

// ---------------------------------------------------------------------------------------
// f64

/// Exact `f64` placements (base, lattice step): every coordinate `base + x·step` is exactly
/// an `f64` (steps are powers of two, `|x| <= 1020`), so the integer test decides.
const PLACES64: [([f64; 2], f64); 4] = [
    ([0.0, 0.0], 1.0),
    ([480_000.0, 4_990_000.0], 1.0 / 1024.0),
    ([5_000_000.0, 5_000_000.0], 1.0 / 1024.0),
    ([6_378_137.0, -6_378_137.0], 1.0 / 65_536.0),
];

fn placed64(p: [[i64; 2]; 2], base: [f64; 2], unit: f64) -> Segment2_64 {
    let f = |q: [i64; 2]| [base[0] + q[0] as f64 * unit, base[1] + q[1] as f64 * unit];
    Segment2_64::new(f(p[0]), f(p[1]))
}

/// The same lattice at UTM coordinates with a millimetre step, rounded to `f64` (not
/// exact: the pair the lattice describes is moved by rounding, and the exact rational test
/// decides what was made).
fn utm_mm(p: [[i64; 2]; 2]) -> Segment2_64 {
    let f = |q: [i64; 2]| {
        [
            480_123.0 + q[0] as f64 * 1e-3,
            4_990_456.0 + q[1] as f64 * 1e-3,
        ]
    };
    Segment2_64::new(f(p[0]), f(p[1]))
}

fn rational(x: f64) -> BigRational {
    BigRational::from_float(x).expect("finite")
}

/// The exact sign of `(b - a) × (c - a)` of `f64` points, in rationals.
fn orient_q(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> i8 {
    let q = |p: [f64; 2]| p.map(rational);
    let (a, b, c) = (q(a), q(b), q(c));
    let det = (&b[0] - &a[0]) * (&c[1] - &a[1]) - (&b[1] - &a[1]) * (&c[0] - &a[0]);
    let zero = rational(0.0);
    if det > zero {
        1
    } else if det < zero {
        -1
    } else {
        0
    }
}

/// Whether two closed `f64` segments share a point, exactly.
fn meet_q(a: &Segment2_64, b: &Segment2_64) -> bool {
    // Boxes apart (exact comparisons): apart, without the rationals.
    let lo = |s: &Segment2_64, k: usize| (s.p0[k].min(s.p1[k]), s.p0[k].max(s.p1[k]));
    if (0..2).any(|k| lo(a, k).0 > lo(b, k).1 || lo(b, k).0 > lo(a, k).1) {
        return false;
    }
    let on = |p: [f64; 2], s: &Segment2_64| {
        orient_q(s.p0, s.p1, p) == 0
            && (0..2).all(|k| s.p0[k].min(s.p1[k]) <= p[k] && p[k] <= s.p0[k].max(s.p1[k]))
    };
    let (o1, o2) = (orient_q(a.p0, a.p1, b.p0), orient_q(a.p0, a.p1, b.p1));
    let (o3, o4) = (orient_q(b.p0, b.p1, a.p0), orient_q(b.p0, b.p1, a.p1));
    (o1 * o2 < 0 && o3 * o4 < 0) || on(b.p0, a) || on(b.p1, a) || on(a.p0, b) || on(a.p1, b)
}

/// One lattice pair in `f64`: at every exact place the reference against the integer test,
/// and at UTM on the millimetre lattice (and nudged by one ulp) against exact rationals.
fn check64(pair: IntPair) -> Result<(), TestCaseError> {
    let (a, b) = pair;
    let meet = segments_meet_i(a[0], a[1], b[0], b[1]);
    for (base, unit) in PLACES64 {
        let (sa, sb) = (placed64(a, base, unit), placed64(b, base, unit));
        let x = reference::intersect2(&sa, &sb);
        prop_assert_eq!(
            x.kind != Crossing::Disjoint,
            meet,
            "{:?} {:?}: {:?}",
            sa,
            sb,
            x
        );
        prop_assert!((0.0..=1.0).contains(&x.s) && (0.0..=1.0).contains(&x.t));
    }
    let (sa, sb) = (utm_mm(a), utm_mm(b));
    let up = |v: f64| f64::from_bits(v.to_bits() + 1);
    let nudged = Segment2_64::new([up(sb.p0[0]), sb.p0[1]], sb.p1);
    for (sa, sb) in [(sa, sb), (sa, nudged)] {
        let x = reference::intersect2(&sa, &sb);
        prop_assert_eq!(
            x.kind != Crossing::Disjoint,
            meet_q(&sa, &sb),
            "{:?} {:?}: {:?}",
            sa,
            sb,
            x
        );
    }
    Ok(())
}

proptest! {
    #[test]
    fn meeting_pairs_meet_anywhere_in_f64(seed in any::<u64>()) {
        check64(meeting_int_pair(&mut Rng::new(seed)))?;
    }

    #[test]
    fn near_misses_stay_apart_anywhere_in_f64(seed in any::<u64>()) {
        check64(disjoint_int_pair(&mut Rng::new(seed), 0.0))?;
    }

    #[test]
    fn f64_crossing_sets_are_exact_and_do_not_move_with_the_world(seed in any::<u64>()) {
        let mut rng = Rng::new(seed);
        let pairs: Vec<IntPair> = (0..24)
            .map(|k| if k % 2 == 0 { meeting_int_pair(&mut rng) } else { disjoint_int_pair(&mut rng, 0.0) })
            .collect();
        let lattice: Vec<[[i64; 2]; 2]> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        let pairs_of = |set: &[Segment2_64], shared| {
            let mut hits = Vec::new();
            crossing_pairs_into(&Segments2::<f64>::from(set), shared, &mut hits).unwrap();
            hits.iter().map(|h| (h.i, h.j)).collect::<Vec<_>>()
        };
        let brute = |meet: &dyn Fn(usize, usize) -> bool| {
            let mut want = Vec::new();
            for i in 0..lattice.len() {
                for j in i + 1..lattice.len() {
                    if meet(i, j) {
                        want.push((i as u32, j as u32));
                    }
                }
            }
            want
        };
        // Exact placements: the integer test, and the same pairs wherever the scene is.
        let want = brute(&|i, j| {
            let (p, q) = (lattice[i], lattice[j]);
            segments_meet_i(p[0], p[1], q[0], q[1])
        });
        for (base, unit) in PLACES64 {
            let set: Vec<Segment2_64> = lattice.iter().map(|&p| placed64(p, base, unit)).collect();
            prop_assert_eq!(&pairs_of(&set, SharedEndpoints::Keep), &want, "at {:?} x {}", base, unit);
        }
        // UTM on the millimetre lattice: exact rationals, with and without shared ends.
        let set: Vec<Segment2_64> = lattice.iter().map(|&p| utm_mm(p)).collect();
        let want = brute(&|i, j| meet_q(&set[i], &set[j]));
        prop_assert_eq!(pairs_of(&set, SharedEndpoints::Keep), want.clone(), "utm mm");
        let ends = |s: &Segment2_64| [s.p0, s.p1];
        let apart: Vec<(u32, u32)> = want
            .into_iter()
            .filter(|&(i, j)| {
                let (p, q) = (ends(&set[i as usize]), ends(&set[j as usize]));
                !p.iter().any(|x| q.contains(x))
            })
            .collect();
        prop_assert_eq!(pairs_of(&set, SharedEndpoints::Skip), apart, "utm mm, shared skipped");
    }
}

/// The f32 T that misses by 2 m at UTM northings, in f64 and by 1 mm: apart; by 0: meeting.
#[test]
fn utm_streets_a_millimetre_apart_do_not_meet_in_f64() {
    let a = Segment2_64::new([500_000.0, 5_000_000.0], [500_010.0, 5_000_000.0]);
    for (gap, kind) in [
        (2.0, Crossing::Disjoint),
        (1e-3, Crossing::Disjoint),
        (0.0, Crossing::Point),
    ] {
        let b = Segment2_64::new([500_005.0, 5_000_000.0 + gap], [500_005.0, 5_000_010.0]);
        let x = reference::intersect2(&a, &b);
        assert_eq!(x.kind, kind, "gap {gap}");
        assert_eq!(meet_q(&a, &b), kind != Crossing::Disjoint);
        let got = crossing_pairs(&Segments2::<f64>::from(&[a, b]));
        assert_eq!(
            got.len(),
            usize::from(kind != Crossing::Disjoint),
            "gap {gap}"
        );
    }
}

/// Segments across the whole `f64` range, and segments of `1e-300`: the local frame's
/// scale brings each set into the grid, and the exact test (scaled into range) finds the
/// crossing.
#[test]
fn f64_segments_at_the_ends_of_the_range_cross() {
    let m = f64::MAX;
    let huge = Segments2::<f64>::from(&[
        Segment2_64::new([-m, -m], [m, m]),
        Segment2_64::new([-m, m], [m, -m]),
        Segment2_64::new([m / 2.0, 0.0], [m, m / 4.0]),
    ]);
    let tiny = Segments2::<f64>::from(&[
        Segment2_64::new([1e-300, 0.0], [2e-300, 1e-300]),
        Segment2_64::new([1.5e-300, 0.0], [1.5e-300, 1e-300]),
        Segment2_64::new([0.0, 5e-301], [1e-300, 1e-300]),
    ]);
    for (set, want) in [(huge, vec![(0, 1)]), (tiny, vec![(0, 1)])] {
        let got: Vec<(u32, u32)> = crossing_pairs(&set).iter().map(|h| (h.i, h.j)).collect();
        assert_eq!(got, want);
    }
}
