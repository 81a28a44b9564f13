//! The `f64` closest point of approach (`segbatch::motion::cpa` over tracks and over
//! start/end segments, and its forms): golden cases, the batched kernel bit for bit against
//! `reference::cpa`, and the reference's accuracy against the
//! exact (rational) oracle.
//!
//! Inputs come from the test kit's `f64` moving classes (`segbatch_testkit::motion64`:
//! general, exactly and nearly the same velocity (1e-17..1e-8 of the separation), exact
//! crossings and near misses, closest approach outside the window, static objects, offsets of
//! 1e7..1e15, scales of 1e-140..1e140, the `f32` motion classes widened, non-finite), each
//! rotated through every lane position of batches of every length 0..=20, as steps and as
//! tracks over windows `[0, 0]`, `[0, 0.5]`, `[0, 1]`, `[0, 2]`, `[0, 1e3]` and `[0, ∞)`.
//! Case counts of the properties come from `PROPTEST_CASES` (default 256 per property).
//!
//! Run: `cargo test --release --test suite motion64::` (the accuracy figures of docs/motion.md:
//! `cargo test --release --test suite motion64:: accuracy_summary -- --nocapture`).

use proptest::prelude::*;
use segbatch::motion::*;
use segbatch::{Error, Segment64, Segments64, reference};
use segbatch_testkit::Rng;
use segbatch_testkit::motion64::{
    CPA_CLASSES64, exact_cpa_segments, exact_cpa_tracks, moving_pairs64, scale_of, scale_of_tracks,
    step_position_error, track_of, track_position_error,
};
use segbatch_testkit::pairs64::Pair64;

const EPS: f64 = f64::EPSILON;
/// The crate's accuracy bar: 8·ε·S.
const BAR: f64 = 8.0;
/// The windows the track form is checked over.
const WINDOWS: [f64; 6] = [0.0, 0.5, 1.0, 2.0, 1e3, f64::INFINITY];

// ---------------------------------------------------------------------------------------
// Comparisons.

/// Bitwise equal, or both NaN.
fn same(x: f64, y: f64) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

fn same_cpa(x: &Cpa<f64>, y: &Cpa<f64>) -> bool {
    same(x.t, y.t)
        && same(x.dist2, y.dist2)
        && (0..3).all(|k| same(x.point_a[k], y.point_a[k]) && same(x.point_b[k], y.point_b[k]))
        && x.flags == y.flags
}

/// Two result batches bit for bit (NaN lanes included, which `==` would call different).
fn same_batch(x: &CpaBatch<f64>, y: &CpaBatch<f64>) -> bool {
    x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same_cpa(&p, &q))
}

fn window(end: f64) -> Window64 {
    Window64::new(end).expect("a valid window")
}

/// Batch `i` of `pairs` against its reference, as steps and as tracks over `end`, on the
/// view starting at `offset` (unpadded tails when `offset > 0`).
fn check_batch(pairs: &[Pair64], offset: usize, end: f64) -> Result<(), TestCaseError> {
    let a: Segments64 = pairs.iter().map(|p| p.0).collect();
    let b: Segments64 = pairs.iter().map(|p| p.1).collect();
    let n = pairs.len() - offset;
    let steps = cpa(a.view(offset..), b.view(offset..), Window::STEP);
    prop_assert_eq!(steps.len(), n);
    let ta: Tracks64 = pairs.iter().map(|p| track_of(&p.0)).collect();
    let tb: Tracks64 = pairs.iter().map(|p| track_of(&p.1)).collect();
    let tracks = cpa(ta.view(offset..), tb.view(offset..), window(end));
    prop_assert_eq!(tracks.len(), n);
    for i in 0..n {
        let (pa, pb) = &pairs[offset + i];
        let want = reference::cpa(pa, pb, Window::STEP);
        let got = steps.get(i).expect("in range");
        prop_assert!(
            same_cpa(&got, &want),
            "steps, lane {i} of {n}: {pa:?} {pb:?}\n kernel {got:?}\n reference {want:?}"
        );
        let (qa, qb) = (track_of(pa), track_of(pb));
        let want = reference::cpa(&qa, &qb, window(end));
        let got = tracks.get(i).expect("in range");
        prop_assert!(
            same_cpa(&got, &want),
            "tracks over [0, {end}], lane {i} of {n}: {qa:?} {qb:?}\n kernel {got:?}\n reference {want:?}"
        );
    }
    Ok(())
}

fn class_pairs(class: usize, seed: u64, n: usize) -> Vec<Pair64> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| (CPA_CLASSES64[class].pair)(&mut rng))
        .collect()
}

fn general_pairs(seed: u64, n: usize) -> Vec<Pair64> {
    class_pairs(0, seed, n)
}

// ---------------------------------------------------------------------------------------
// Golden cases.

#[test]
fn golden_cpa64() {
    let o = 1.0e9;
    // Head-on with a lateral offset, far from the origin.
    let a = Track64::new([o, 0.0, 0.0], [2.0, 0.0, 0.0]);
    let b = Track64::new([o + 2.0, 1.0, 0.0], [-2.0, 0.0, 0.0]);
    let c = reference::cpa(&a, &b, Window64::STEP);
    assert_eq!((c.t, c.dist2, c.flags), (0.5, 1.0, MotionFlags::empty()));
    assert_eq!(
        (c.point_a, c.point_b),
        ([o + 1.0, 0.0, 0.0], [o + 1.0, 1.0, 0.0])
    );
    // Window clamps: [0, 0.25] ends before the closest approach.
    let c = reference::cpa(&a, &b, window(0.25));
    assert_eq!((c.t, c.dist2), (0.25, 2.0));
    // Moving apart: t = 0.
    let c = reference::cpa(
        &b,
        &Track64::new([o + 4.0, 1.0, 0.0], [2.0, 0.0, 0.0]),
        Window64::UNBOUNDED,
    );
    assert_eq!((c.t, c.dist2), (0.0, 4.0));
    // Same velocity: flagged, t = 0, constant distance.
    let c = reference::cpa(
        &a,
        &Track64::new([o, 3.0, 4.0], [2.0, 0.0, 0.0]),
        Window64::STEP,
    );
    assert_eq!(
        (c.t, c.dist2, c.flags),
        (0.0, 25.0, MotionFlags::SAME_VELOCITY)
    );
    // Unbounded window: the future closest approach.
    let c = reference::cpa(
        &a,
        &Track64::new([o + 10.0, 1.0, 0.0], [0.0; 3]),
        Window64::UNBOUNDED,
    );
    assert_eq!((c.t, c.dist2), (5.0, 1.0));
    // The worked example of docs/motion.md, moved to ECEF-sized coordinates: the paths
    // cross, the objects pass 2·sqrt(2) apart at t = 0.75.
    let e = 6_378_137.0;
    let a = Segment64::new([e - 4.0, 0.0, 0.0], [e + 4.0, 0.0, 0.0]);
    let b = Segment64::new([e, -8.0, 0.0], [e, 0.0, 0.0]);
    let c = reference::cpa(&a, &b, Window::STEP);
    assert_eq!((c.t, c.dist2), (0.75, 8.0));
    assert_eq!(
        (c.point_a, c.point_b),
        ([e + 2.0, 0.0, 0.0], [e, -2.0, 0.0])
    );
    // A millimetre pass 1e7 from the origin: f32 cannot even hold the positions apart.
    let a = Segment64::new([1e7, 0.0, 0.0], [1e7 + 1.0, 0.0, 0.0]);
    let b = Segment64::new([1e7 + 1.0, 1e-3, 0.0], [1e7, 1e-3, 0.0]);
    let c = reference::cpa(&a, &b, Window::STEP);
    assert_eq!((c.t, c.dist2), (0.5, 1e-3 * 1e-3));
    // The batched forms agree.
    let (sa, sb) = (Segments64::from(&[a]), Segments64::from(&[b]));
    assert!(same_cpa(&cpa(&sa, &sb, Window::STEP).get(0).unwrap(), &c));
    // Non-finite: all NaN, flagged.
    let bad = Segment64::new([f64::NAN, 0.0, 0.0], [1.0, 0.0, 0.0]);
    assert!(same_cpa(
        &reference::cpa(&bad, &b, Window::STEP),
        &Cpa::NON_FINITE
    ));
}

/// The `f64` query of `f32` inputs widened agrees with the `f32` query within the `f32` bar
/// (a consistency check of the two instantiations of the one body).
#[test]
fn f64_agrees_with_f32_on_widened_input() {
    let pairs = segbatch_testkit::motion::moving_pairs(0xf64, 4000);
    for p in &pairs {
        let c32 = reference::cpa(&p.a, &p.b, Window::STEP);
        let (a, b) = (
            segbatch_testkit::pairs64::widen(&p.a),
            segbatch_testkit::pairs64::widen(&p.b),
        );
        let c64 = reference::cpa(&a, &b, Window::STEP);
        let s = scale_of(&a, &b);
        let err = (f64::from(c32.distance()) - c64.distance()).abs();
        assert!(
            err <= 2.0 * BAR * f64::from(f32::EPSILON) * s,
            "{p:?}: f32 {c32:?}, f64 {c64:?}"
        );
    }
}

#[test]
fn length_mismatch_errors_and_panics() {
    let one = Segments64::from(&[Segment64::default()]);
    let none = Segments64::new();
    let mut out = CpaBatch::<f64>::new();
    cpa_into(&one, &one, Window::STEP, &mut out).unwrap();
    let before = out.clone();
    assert!(matches!(
        cpa_into(&one, &none, Window::STEP, &mut out),
        Err(Error::LengthMismatch { .. })
    ));
    let t1: Tracks64 = [Track64::default()].into_iter().collect();
    assert!(matches!(
        cpa_into(&t1, &Tracks64::new(), Window64::STEP, &mut out),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(same_batch(&out, &before), "out unchanged on an error");
    assert!(std::panic::catch_unwind(|| cpa(&one, &none, Window::STEP)).is_err());
    assert!(std::panic::catch_unwind(|| cpa(&t1, &Tracks64::new(), Window64::STEP)).is_err());
    #[cfg(feature = "rayon")]
    {
        assert!(par_cpa_into(&one, &none, Window::STEP, &mut out).is_err());
        assert!(std::panic::catch_unwind(|| par_cpa(&one, &none, Window::STEP)).is_err());
    }
}

// ---------------------------------------------------------------------------------------
// Batched vs scalar, bit for bit.

/// Every class, every batch length 0..=20, every lane position: a batch of general pairs
/// with one pair of the class at position `k`, a batch made only of the class, and the
/// views that start one and three pairs in (no padding after their ends).
#[test]
fn every_class_every_length_every_lane() {
    for (c, class) in CPA_CLASSES64.iter().enumerate() {
        for n in 0..=20usize {
            let seed = (c as u64) << 32 | n as u64;
            let special = class_pairs(c, seed, n.max(1));
            let end = WINDOWS[n % WINDOWS.len()];
            for k in 0..n {
                let mut pairs = general_pairs(seed ^ 0x9e37, n);
                pairs[k] = special[k];
                check_batch(&pairs, 0, end).unwrap_or_else(|e| panic!("{}: {e}", class.name));
            }
            let only: Vec<Pair64> = special.iter().copied().take(n).collect();
            for offset in [0, 1, 3] {
                if offset <= only.len() {
                    check_batch(&only, offset, end)
                        .unwrap_or_else(|e| panic!("{} (offset {offset}): {e}", class.name));
                }
            }
        }
    }
}

/// Every window over every class (tracks), including `[0, 0]` and `[0, ∞)`.
#[test]
fn every_window() {
    for (c, class) in CPA_CLASSES64.iter().enumerate() {
        let pairs = class_pairs(c, 0x5eed ^ c as u64, 37);
        for end in WINDOWS {
            check_batch(&pairs, 0, end)
                .unwrap_or_else(|e| panic!("{} over [0, {end}]: {e}", class.name));
        }
    }
}

/// A non-finite coordinate gives NaN and `NON_FINITE` for its own pair only; every other
/// lane stays bitwise equal to the reference.
#[test]
fn non_finite_lanes_are_isolated() {
    let mut rng = Rng::new(0xbad);
    for n in 1..=20usize {
        for _ in 0..20 {
            let mut pairs = moving_pairs64(rng.next_u64(), n);
            let mut poisoned = vec![false; n];
            for _ in 0..1 + rng.below(3) {
                let i = rng.below(n as u64) as usize;
                poisoned[i] = true;
                let value = rng.pick(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
                let c = rng.below(12) as usize;
                let p = &mut pairs[i];
                let point = match c / 3 {
                    0 => &mut p.0.p0,
                    1 => &mut p.0.p1,
                    2 => &mut p.1.p0,
                    _ => &mut p.1.p1,
                };
                point[c % 3] = value;
            }
            check_batch(&pairs, 0, 2.0).unwrap();
            let a: Segments64 = pairs.iter().map(|p| p.0).collect();
            let b: Segments64 = pairs.iter().map(|p| p.1).collect();
            let out = cpa(&a, &b, Window::STEP);
            for (i, c) in out.iter().enumerate() {
                if poisoned[i] {
                    assert!(same_cpa(&c, &Cpa::NON_FINITE), "{:?}: {c:?}", pairs[i]);
                }
            }
        }
    }
}

/// The parallel forms equal the sequential ones bit for bit, on batches long enough to be
/// split (`PAR_MIN_PAIRS`), as steps and as tracks, whole and as a view.
#[cfg(feature = "rayon")]
#[test]
fn parallel_forms_equal_sequential() {
    let n = segbatch::pairs::PAR_MIN_PAIRS * 2 + segbatch::pairs::PAR_CHUNK_PAIRS / 2 + 5;
    let pairs = moving_pairs64(0x9a7, n);
    let a: Segments64 = pairs.iter().map(|p| p.0).collect();
    let b: Segments64 = pairs.iter().map(|p| p.1).collect();
    let seq = cpa(&a, &b, Window::STEP);
    assert!(same_batch(&par_cpa(&a, &b, Window::STEP), &seq));
    let mut out = CpaBatch::<f64>::new();
    par_cpa_into(a.view(3..), b.view(3..), Window::STEP, &mut out).unwrap();
    let mut want = CpaBatch::<f64>::new();
    cpa_into(a.view(3..), b.view(3..), Window::STEP, &mut want).unwrap();
    assert!(same_batch(&out, &want));
    for (i, c) in seq.iter().enumerate().step_by(97) {
        assert!(same_cpa(
            &c,
            &reference::cpa(&pairs[i].0, &pairs[i].1, Window::STEP)
        ));
    }
    let ta: Tracks64 = pairs.iter().map(|p| track_of(&p.0)).collect();
    let tb: Tracks64 = pairs.iter().map(|p| track_of(&p.1)).collect();
    for end in [1.0, f64::INFINITY] {
        let seq = cpa(&ta, &tb, window(end));
        assert!(same_batch(&par_cpa(&ta, &tb, window(end)), &seq));
        par_cpa_into(&ta, &tb, window(end), &mut out).unwrap();
        assert!(same_batch(&out, &seq));
    }
    // Small batches stay on the calling thread, with the same bits.
    let small = moving_pairs64(7, 100);
    let a: Segments64 = small.iter().map(|p| p.0).collect();
    let b: Segments64 = small.iter().map(|p| p.1).collect();
    assert!(same_batch(
        &par_cpa(&a, &b, Window::STEP),
        &cpa(&a, &b, Window::STEP)
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn batched_equals_scalar(n in 0usize..=33, offset in 0usize..3, w in 0usize..6, seed in any::<u64>()) {
        let pairs = moving_pairs64(seed, n + offset);
        check_batch(&pairs, offset, WINDOWS[w])?;
    }
}

// ---------------------------------------------------------------------------------------
// Accuracy of the reference against the exact oracle.

/// Worst error per class, in units of ε·S.
#[derive(Default)]
struct Worst {
    steps: f64,
    tracks: f64,
    points: f64,
}

/// Checks one pair as a step and as tracks over every finite window of [`WINDOWS`]: the
/// distance within `BAR·ε·S` of the exact minimum, the time inside the window, the points
/// within `BAR·ε·S` of the positions at the reported time. `Err` names what failed.
fn check_accuracy(p: &Pair64, worst: &mut Worst) -> Result<(), String> {
    let (a, b) = p;
    let c = reference::cpa(a, b, Window::STEP);
    let Some(exact) = exact_cpa_segments(a, b) else {
        return if same_cpa(&c, &Cpa::NON_FINITE) {
            Ok(())
        } else {
            Err(format!("non-finite {p:?} gave {c:?}"))
        };
    };
    let s = scale_of(a, b);
    let unit = EPS * s;
    if c.flags.contains(MotionFlags::NON_FINITE) {
        return Err(format!("finite {p:?} flagged non-finite: {c:?}"));
    }
    let err = exact.error(c.distance()) / unit;
    if !(err <= BAR && (0.0..=1.0).contains(&c.t)) {
        return Err(format!(
            "steps {p:?}: {c:?}, exact distance {} at t {} ({err:.2} ε·S)",
            exact.distance, exact.t
        ));
    }
    worst.steps = worst.steps.max(err);
    let pe =
        step_position_error(a, c.t, c.point_a).max(step_position_error(b, c.t, c.point_b)) / unit;
    if pe.is_nan() || pe > BAR {
        return Err(format!("steps {p:?}: {c:?}: points {pe:.2} ε·S off"));
    }
    worst.points = worst.points.max(pe);
    let (ta, tb) = (track_of(a), track_of(b));
    for end in WINDOWS.into_iter().filter(|e| e.is_finite()) {
        let c = reference::cpa(&ta, &tb, window(end));
        let exact = exact_cpa_tracks(&ta, &tb, end).expect("finite");
        let s = scale_of_tracks(&ta, &tb, end);
        let unit = EPS * s;
        let err = exact.error(c.distance()) / unit;
        if !(err <= BAR && (0.0..=end).contains(&c.t)) {
            return Err(format!(
                "tracks {ta:?} {tb:?} over [0, {end}]: {c:?}, exact distance {} at t {} ({err:.2} ε·S)",
                exact.distance, exact.t
            ));
        }
        worst.tracks = worst.tracks.max(err);
        let pe = track_position_error(&ta, c.t, c.point_a)
            .max(track_position_error(&tb, c.t, c.point_b))
            / unit;
        if pe.is_nan() || pe > BAR {
            return Err(format!(
                "tracks {ta:?} {tb:?}: {c:?}: points {pe:.2} ε·S off"
            ));
        }
        worst.points = worst.points.max(pe);
    }
    Ok(())
}

/// Beyond the range where the squares are finite, a pair is flagged non-finite, never
/// answered wrongly: at scales 1e140..1e160 (where `|w0|²`, `|w1|²` or `dv·dv` overflow for
/// more and more pairs) every result is either within the bar or `NON_FINITE`, in the
/// reference and in the kernel. (Before the probe took `max(|w0|², |w1|²)`, an overflowing
/// `|w1|²` alone passed the same-velocity test and gave `t = 0`, 1e14 ε·S off.)
#[test]
fn overflow_is_flagged_never_silent() {
    let mut rng = Rng::new(0x0f10);
    let mut flagged = 0;
    for e in 140..=160 {
        let pairs: Vec<Pair64> = (0..400)
            .map(|_| {
                let (a, b) = (CPA_CLASSES64[rng.below(5) as usize].pair)(&mut rng);
                let k = 10f64.powi(e);
                let m = |p: [f64; 3]| p.map(|x| x * k);
                (
                    Segment64::new(m(a.p0), m(a.p1)),
                    Segment64::new(m(b.p0), m(b.p1)),
                )
            })
            .collect();
        check_batch(&pairs, 0, 1.0).unwrap();
        for (a, b) in &pairs {
            let c = reference::cpa(a, b, Window::STEP);
            if c.flags.contains(MotionFlags::NON_FINITE) {
                assert!(same_cpa(&c, &Cpa::NON_FINITE));
                flagged += 1;
                continue;
            }
            let exact = exact_cpa_segments(a, b).expect("finite");
            let err = exact.error(c.distance()) / (EPS * scale_of(a, b));
            assert!(err <= BAR, "{a:?} {b:?}: {c:?} ({err:.2e} ε·S)");
        }
    }
    assert!(flagged > 1000, "only {flagged} pairs overflowed");
    // The same in `f32` (one body): |w1|² overflows, |w0|², dv·dv and w0·dv do not.
    let a = segbatch::Segment::new([1.5e19, 0.0, 0.0], [1.45e19, 1.5e19, 0.0]);
    let b = segbatch::Segment::new([0.0; 3], [0.0; 3]);
    let c = reference::cpa(&a, &b, Window::STEP);
    assert_eq!(c.flags, MotionFlags::NON_FINITE, "{c:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn reference_accuracy_vs_exact(seed in any::<u64>()) {
        let mut worst = Worst::default();
        for p in moving_pairs64(seed, 16) {
            if let Err(e) = check_accuracy(&p, &mut worst) {
                prop_assert!(false, "{}", e);
            }
        }
    }
}

/// A fixed sweep of 2 000 pairs per class, printing the worst error against the exact
/// oracle per class in units of ε·S (`cargo test --release --test suite motion64::
/// accuracy_summary -- --nocapture`; the figures are quoted in docs/motion.md). The sweep
/// scales with `PROPTEST_CASES` ([`segbatch_testkit::sweep`]: 2 000 at the default).
#[test]
fn accuracy_summary() {
    let n = segbatch_testkit::sweep(2000);
    let mut all = Worst::default();
    for (c, class) in CPA_CLASSES64.iter().enumerate() {
        let mut worst = Worst::default();
        for p in class_pairs(c, 0xacc ^ c as u64, n) {
            check_accuracy(&p, &mut worst).unwrap_or_else(|e| panic!("{}: {e}", class.name));
        }
        println!(
            "{:<20} steps {:5.2}  tracks {:5.2}  points {:5.2} ε·S",
            class.name, worst.steps, worst.tracks, worst.points
        );
        all.steps = all.steps.max(worst.steps);
        all.tracks = all.tracks.max(worst.tracks);
        all.points = all.points.max(worst.points);
    }
    println!(
        "{:<20} steps {:5.2}  tracks {:5.2}  points {:5.2} ε·S (bar {BAR})",
        "all", all.steps, all.tracks, all.points
    );
}
