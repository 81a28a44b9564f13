//! Swept capsules (`motion::first_contact_capsules` and its `f64` twin): golden cases, the
//! batched forms against the scalar reference bit for bit (every tail length, views,
//! uniform and per-pair radii, non-finite neighbours, the parallel forms on batches long
//! enough to split; the indexed form on a broad phase's candidates), and the reference against an `f64` oracle that finds the first contact
//! by branch and bound (`segbatch_testkit::swept`): no contact is ever skipped (no
//! tunnelling), a reported hit has its gap within the tolerance, a miss never comes within
//! the radii.
//!
//! Run: `cargo test --release --test suite swept::`.

use proptest::prelude::*;
use segbatch::motion::*;
#[cfg(feature = "rayon")]
use segbatch::pairs::PAR_MIN_PAIRS;
use segbatch::pairs::{Radii, capsules_touch};
use segbatch::{Segment, Segment64, Segments, reference};
use segbatch_testkit::swept::{
    SWEPT_KINDS, SweptPair, core_distance, first_below, pair_scale, swept_candidates, swept_pairs,
    thin_fast_scene,
};

const EPS: f64 = f32::EPSILON as f64;
/// How far below `rA + rB` (in units of `ε·S`) the oracle may find the cores before the
/// reported time: the rounding of the interpolated end points and of the closest points.
const SLACK: f64 = 16.0;

fn same(x: f32, y: f32) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

fn same64(x: f64, y: f64) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

fn same_swept(x: &SweptContact, y: &SweptContact) -> bool {
    x.hit == y.hit
        && same(x.t, y.t)
        && (0..3).all(|k| {
            same(x.normal[k], y.normal[k])
                && same(x.point_a[k], y.point_a[k])
                && same(x.point_b[k], y.point_b[k])
        })
        && x.flags == y.flags
}

fn same_swept64(x: &SweptContact<f64>, y: &SweptContact<f64>) -> bool {
    x.hit == y.hit
        && same64(x.t, y.t)
        && (0..3).all(|k| {
            same64(x.normal[k], y.normal[k])
                && same64(x.point_a[k], y.point_a[k])
                && same64(x.point_b[k], y.point_b[k])
        })
        && x.flags == y.flags
}

/// Two batches hold the same results, bit for bit (NaN columns included).
#[cfg(feature = "rayon")]
fn same_batch(x: &SweptBatch, y: &SweptBatch) -> bool {
    x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same_swept(&p, &q))
}

fn wide(s: &Sweep) -> Sweep64 {
    Sweep64::from(*s)
}

// ---------------------------------------------------------------------------------------
// Golden cases.

#[test]
fn thinnest_fastest_bullet_through_a_thin_wall() {
    // Radius 1e-3 bullets crossing 1e3 radii in one step through a wall 1e-3 thick: the
    // start and end positions are far from the wall, the contact is found.
    let r = 1e-3f32;
    for k in 0..64 {
        let y = -0.5 + k as f32 / 64.0;
        let bullet = Sweep::new(
            Segment::new([-0.5, y, 0.0], [-0.5 + 2.0 * r, y, 0.0]),
            Segment::new([0.5, y, 0.0], [0.5 + 2.0 * r, y, 0.0]),
        );
        let wall = Sweep::fixed(Segment::new([0.0, -1.0, 0.0], [0.0, 1.0, 0.0]));
        let c = reference::first_contact_capsules(&bullet, r, &wall, r);
        assert!(c.hit, "{k}: {c:?}");
        // The front end reaches x = -2r at t = (0.5 - 4r) / 1.
        let exact = 0.5 - 4.0 * f64::from(r);
        assert!(
            f64::from(c.t) <= exact + 1e-6 && f64::from(c.t) > exact - 1e-5,
            "{c:?}"
        );
        assert_eq!(c.normal, [-1.0, 0.0, 0.0]);
        assert!(c.flags.is_empty());
    }
}

#[test]
fn exact_grazing_touches_and_near_misses_do_not() {
    // A sphere of radius 0.25 moving along x at height h over a fixed segment along y of
    // radius 0.25: touching exactly when h = 0.5.
    let wall = Sweep::fixed(Segment::new([0.0, 0.0, 0.0], [0.0, 1.0, 0.0]));
    let pass = |h: f32| {
        let p = [-2.0, 0.5, h];
        let q = [2.0, 0.5, h];
        Sweep::new(Segment::new(p, p), Segment::new(q, q))
    };
    let touch = reference::first_contact_capsules(&pass(0.5), 0.25, &wall, 0.25);
    // Tangent: the time is ill-conditioned, the gap at the reported time is within the
    // tolerance (0.5/1024 here) and the time is not after the touch at t = 0.5.
    let x = -2.0 + 4.0 * f64::from(touch.t);
    let gap = x.hypot(0.5) - 0.5;
    assert!(
        touch.hit && touch.t <= 0.5 && gap <= 0.5 / 1024.0,
        "{touch:?}"
    );
    let miss = reference::first_contact_capsules(&pass(0.5 + 1e-3), 0.25, &wall, 0.25);
    assert!(!miss.hit && miss.t == f32::INFINITY, "{miss:?}");
    // Past the wall's end: the closest distance is from the end point (0, 0, 0).
    let end = |y: f32| {
        let (p, q) = ([-2.0, y, 0.0], [2.0, y, 0.0]);
        Sweep::new(Segment::new(p, p), Segment::new(q, q))
    };
    assert!(reference::first_contact_capsules(&end(-0.5), 0.25, &wall, 0.25).hit);
    assert!(!reference::first_contact_capsules(&end(-0.5 - 1e-3), 0.25, &wall, 0.25).hit);
}

#[test]
fn zero_and_parallel_motion_are_the_static_test() {
    for p in swept_pairs(7, 4000)
        .iter()
        .filter(|p| p.kind == 4 || p.kind == 5)
    {
        let c = reference::first_contact_capsules(&p.a, p.ra, &p.b, p.rb);
        let r = p.ra + p.rb;
        let d2 = reference::closest_points(&p.a.start, &p.b.start).dist2;
        let touching = d2 <= r * r;
        let batch = capsules_touch(
            &Segments::from(&[p.a.start]),
            &Segments::from(&[p.b.start]),
            Radii::uniform(p.ra, p.rb).unwrap(),
        );
        assert_eq!(batch.get(0), Some(touching));
        if p.kind == 5 || touching {
            assert_eq!(c.hit, touching, "{p:?}: {c:?}");
        }
        if touching {
            assert_eq!(c.t, 0.0);
            assert_eq!(c.flags, MotionFlags::TOUCHING_AT_START);
        }
    }
}

#[test]
fn touching_at_start_reports_zero() {
    let a = Sweep::new(
        Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
        Segment::new([5.0, 0.0, 0.0], [6.0, 0.0, 0.0]),
    );
    let b = Sweep::fixed(Segment::new([0.5, 0.1, 0.0], [0.5, 1.0, 0.0]));
    let c = reference::first_contact_capsules(&a, 0.1, &b, 0.1);
    assert!(c.hit && c.t == 0.0 && c.flags == MotionFlags::TOUCHING_AT_START);
    assert_eq!(c.normal, [0.0, -1.0, 0.0]);
    // Crossing cores: the zero normal.
    let x = Sweep::fixed(Segment::new([0.5, -1.0, 0.0], [0.5, 1.0, 0.0]));
    let c = reference::first_contact_capsules(&a, 0.1, &x, 0.1);
    assert!(c.hit && c.t == 0.0 && c.normal == [0.0; 3]);
}

#[test]
fn non_finite_and_infinite_radius() {
    let a = Sweep::fixed(Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]));
    let mut b = Sweep::fixed(Segment::new([0.0, 5.0, 0.0], [1.0, 5.0, 0.0]));
    b.end.p1[2] = f32::NAN;
    let c = reference::first_contact_capsules(&a, 0.1, &b, 0.1);
    assert!(!c.hit && c.t.is_nan() && c.flags == MotionFlags::NON_FINITE);
    b.end.p1[2] = f32::INFINITY;
    assert!(
        reference::first_contact_capsules(&a, 0.1, &b, 0.1)
            .t
            .is_nan()
    );
    let b = Sweep::fixed(Segment::new([0.0, 5.0, 0.0], [1.0, 5.0, 0.0]));
    let c = reference::first_contact_capsules(&a, f32::INFINITY, &b, 0.1);
    assert!(c.hit && c.t == 0.0 && c.flags == MotionFlags::TOUCHING_AT_START);
}

#[test]
fn length_mismatch_errors_and_panics() {
    let a = Sweeps::from(&[Sweep::default(); 3]);
    let b = Sweeps::from(&[Sweep::default(); 2]);
    let mut out = SweptBatch::new();
    let radii = Radii::uniform(0.1, 0.1).unwrap();
    assert!(first_contact_capsules_into(&a, &b, radii, &mut out).is_err());
    let r = [0.1f32; 2];
    let per_pair = Radii::per_pair(&r, &r).unwrap();
    assert!(first_contact_capsules_into(&a, &a, per_pair, &mut out).is_err());
    assert!(std::panic::catch_unwind(|| first_contact_capsules(&a, &b, radii)).is_err());
}

// ---------------------------------------------------------------------------------------
// Batched against the reference, bit for bit.

fn check_equivalence(
    pairs: &[SweptPair],
    offset: usize,
    poison: bool,
) -> Result<(), TestCaseError> {
    let mut pairs = pairs.to_vec();
    if poison {
        for (k, p) in pairs.iter_mut().enumerate() {
            if k % 5 == 2 {
                p.a.end.p0[k % 3] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY][k % 3];
            }
        }
    }
    let a: Vec<Sweep> = pairs.iter().map(|p| p.a).collect();
    let b: Vec<Sweep> = pairs.iter().map(|p| p.b).collect();
    let ra: Vec<f32> = pairs.iter().map(|p| p.ra).collect();
    let rb: Vec<f32> = pairs.iter().map(|p| p.rb).collect();
    let (sa, sb) = (Sweeps::from(&a[..]), Sweeps::from(&b[..]));
    let n = pairs.len();
    let (va, vb) = (sa.view(offset.min(n)..), sb.view(offset.min(n)..));
    let per_pair = Radii::per_pair(&ra[offset.min(n)..], &rb[offset.min(n)..]).unwrap();
    let got = first_contact_capsules(va, vb, per_pair);
    #[cfg(feature = "rayon")]
    {
        let mut par = SweptBatch::new();
        par_first_contact_capsules_into(va, vb, per_pair, &mut par).unwrap();
        prop_assert!(same_batch(&got, &par));
    }
    for (k, c) in got.iter().enumerate() {
        let i = k + offset.min(n);
        let want = reference::first_contact_capsules(&a[i], ra[i], &b[i], rb[i]);
        prop_assert!(
            same_swept(&c, &want),
            "pair {}: {:?}\n{:?}\nwant {:?}",
            i,
            pairs[i],
            c,
            want
        );
    }
    // Uniform radii, and f64.
    let uniform = Radii::uniform(ra.first().copied().unwrap_or(0.1), 0.05).unwrap();
    let got = first_contact_capsules(&sa, &sb, uniform);
    let (sa64, sb64) = (
        Sweeps64::from(&a.iter().map(wide).collect::<Vec<_>>()[..]),
        Sweeps64::from(&b.iter().map(wide).collect::<Vec<_>>()[..]),
    );
    let r64 = uniform
        .as_uniform()
        .map(|(x, y)| (f64::from(x), f64::from(y)))
        .unwrap();
    let got64 = first_contact_capsules(&sa64, &sb64, Radii::uniform(r64.0, r64.1).unwrap());
    for i in 0..n {
        let (x, y) = uniform.as_uniform().unwrap();
        let want = reference::first_contact_capsules(&a[i], x, &b[i], y);
        prop_assert!(
            same_swept(&got.get(i).unwrap(), &want),
            "uniform, pair {}",
            i
        );
        let want = reference::first_contact_capsules(&wide(&a[i]), r64.0, &wide(&b[i]), r64.1);
        prop_assert!(
            same_swept64(&got64.get(i).unwrap(), &want),
            "f64, pair {}",
            i
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn batched_equals_scalar(n in 0usize..=33, offset in 0usize..3, seed in any::<u64>(), poison in any::<bool>()) {
        check_equivalence(&swept_pairs(seed, n), offset, poison)?;
    }
}

#[cfg(feature = "rayon")]
#[test]
fn parallel_forms_split_and_agree_at_any_thread_count() {
    let n = PAR_MIN_PAIRS * 4 + 5;
    let pairs = swept_pairs(11, n);
    let a = Sweeps::from(&pairs.iter().map(|p| p.a).collect::<Vec<_>>()[..]);
    let b = Sweeps::from(&pairs.iter().map(|p| p.b).collect::<Vec<_>>()[..]);
    let radii = Radii::uniform(0.02, 0.01).unwrap();
    let want = first_contact_capsules(&a, &b, radii);
    for threads in [1, 2, 3, 7] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let got = pool.install(|| par_first_contact_capsules(&a, &b, radii));
        assert!(same_batch(&got, &want), "{threads} threads");
    }
    assert!(want.hits().count() > 0);
}

/// The indexed form on a broad phase's candidates (a scene of fast, thin capsules among
/// thin walls, some members non-finite, plus every object against object 0): each result
/// is the reference of its pair, with per-object and uniform radii, sequential and
/// parallel at any thread count; bad pairs and radii are refused.
#[test]
fn indexed_equals_the_reference_of_each_pair() {
    let sc = thin_fast_scene(600, 1, 7);
    let mut sweeps = sc.sweeps[0].clone();
    for k in (3..sweeps.len()).step_by(97) {
        sweeps[k].end.p1[k % 3] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY][k % 3];
    }
    let mut pairs = swept_candidates(&sweeps, &sc.radii);
    let broad = pairs.len();
    pairs.extend((0..sweeps.len() as u32).map(|j| (0, j)));
    let set = Sweeps::from(&sweeps[..]);
    let radii = &sc.radii[..];
    let per_object = Radii::per_object(radii, radii).unwrap();
    let got = first_contact_capsules_indexed(&set, &set, &pairs, per_object);
    assert_eq!(got.len(), pairs.len());
    for (k, &(i, j)) in pairs.iter().enumerate() {
        let (i, j) = (i as usize, j as usize);
        let want = reference::first_contact_capsules(&sweeps[i], radii[i], &sweeps[j], radii[j]);
        assert!(
            same_swept(&got.get(k).unwrap(), &want),
            "pair {k} ({i}, {j})"
        );
    }
    assert!(got.hits().filter(|&k| k < broad).count() > 0);
    let uniform = Radii::uniform(0.02, 0.01).unwrap();
    let got_uniform = first_contact_capsules_indexed(&set, &set, &pairs, uniform);
    for (k, &(i, j)) in pairs.iter().enumerate() {
        let (i, j) = (i as usize, j as usize);
        let want = reference::first_contact_capsules(&sweeps[i], 0.02, &sweeps[j], 0.01);
        assert!(
            same_swept(&got_uniform.get(k).unwrap(), &want),
            "uniform, pair {k}"
        );
    }
    #[cfg(feature = "rayon")]
    {
        // Long enough to split across threads.
        let many: Vec<(u32, u32)> = pairs
            .iter()
            .cycle()
            .take(PAR_MIN_PAIRS * 3 + 7)
            .copied()
            .collect();
        let want = first_contact_capsules_indexed(&set, &set, &many, per_object);
        for threads in [1, 2, 3, 7] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let got =
                pool.install(|| par_first_contact_capsules_indexed(&set, &set, &many, per_object));
            assert!(same_batch(&got, &want), "{threads} threads");
            let mut into = SweptBatch::new();
            pool.install(|| {
                par_first_contact_capsules_indexed_into(&set, &set, &many, per_object, &mut into)
            })
            .unwrap();
            assert!(same_batch(&into, &want), "{threads} threads, into");
        }
    }
    // Refused: a pair past the end, radii of the wrong length; `out` is then empty.
    let mut out = SweptBatch::new();
    let n = sweeps.len() as u32;
    assert!(
        first_contact_capsules_indexed_into(&set, &set, &[(0, 1), (1, n)], per_object, &mut out)
            .is_err()
    );
    assert_eq!(out.len(), 0);
    let short = Radii::per_object(&radii[1..], radii).unwrap();
    assert!(first_contact_capsules_indexed_into(&set, &set, &[(0, 1)], short, &mut out).is_err());
    assert!(
        std::panic::catch_unwind(|| first_contact_capsules_indexed(&set, &set, &[(n, 0)], uniform))
            .is_err()
    );
}

// ---------------------------------------------------------------------------------------
// Against the f64 oracle.

/// What the checks found: hits, misses, pairs at the step limit, and the largest gap at a
/// hit as a fraction of the tolerance.
#[derive(Default)]
struct Findings {
    hits: usize,
    misses: usize,
    limits: usize,
    worst_gap: f64,
}

fn check_oracle(p: &SweptPair, f: &mut Findings) -> Result<(), TestCaseError> {
    let c = reference::first_contact_capsules(&p.a, p.ra, &p.b, p.rb);
    let s = pair_scale(p).max(f64::from(p.ra + p.rb));
    let r = f64::from(p.ra) + f64::from(p.rb);
    let slack = SLACK * EPS * s;
    let tol = r * f64::from(SWEPT_TOLERANCE_REL) + 32.0 * EPS * 2.0 * s;
    // No contact before the reported time (or within the step, for a miss).
    let until = if c.hit { f64::from(c.t) } else { 1.0 };
    let skipped = first_below(&p.a, &p.b, r - slack, 0.0, until).filter(|&x| x < until);
    prop_assert!(
        skipped.is_none(),
        "{:?}: contact at {:?} before {:?}",
        p,
        skipped,
        c
    );
    if c.hit {
        prop_assert!((0.0..=1.0).contains(&c.t), "{:?}", c);
        let d = core_distance(&p.a, &p.b, f64::from(c.t));
        if c.flags.contains(MotionFlags::STEP_LIMIT) {
            f.limits += 1;
        } else {
            f.hits += 1;
            prop_assert!(d <= r + tol + slack, "{:?}: gap {} at {:?}", p, d - r, c);
            f.worst_gap = f.worst_gap.max((d - r) / tol);
        }
    } else {
        f.misses += 1;
        prop_assert!(c.t == f32::INFINITY && c.flags.is_empty(), "{:?}", c);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn never_tunnels_and_hits_within_tolerance(seed in any::<u64>()) {
        let mut f = Findings::default();
        for p in swept_pairs(seed, SWEPT_KINDS as usize * 4) {
            check_oracle(&p, &mut f)?;
        }
    }
}

#[test]
fn oracle_summary() {
    let mut per_kind: Vec<Findings> = (0..SWEPT_KINDS).map(|_| Findings::default()).collect();
    for p in swept_pairs(0x5ee9, 20_000) {
        check_oracle(&p, &mut per_kind[p.kind as usize]).unwrap();
    }
    for (k, f) in per_kind.iter().enumerate() {
        println!(
            "class {k}: {} hits, {} misses, {} at the step limit; largest gap at a hit {:.3} of the tolerance",
            f.hits, f.misses, f.limits, f.worst_gap
        );
    }
    let limits: usize = per_kind.iter().map(|f| f.limits).sum();
    assert!(limits * 100 <= 20_000, "{limits} pairs at the step limit");
    assert!(per_kind.iter().all(|f| f.hits > 0), "every class has hits");
}

#[test]
fn f64_never_tunnels_far_from_the_origin() {
    // The f32 classes widened and moved 6.4e6 from the origin, solved in f64 against the
    // f32 answer at the origin: the same decisions, times within the tolerance's reach.
    let o = 6.4e6;
    let mut agree = 0;
    for p in swept_pairs(3, 2000) {
        let shift = |s: &Sweep| {
            let w = wide(s);
            let m = |q: [f64; 3]| q.map(|x| x + o);
            Sweep64::new(
                Segment64::new(m(w.start.p0), m(w.start.p1)),
                Segment64::new(m(w.end.p0), m(w.end.p1)),
            )
        };
        let c = reference::first_contact_capsules(
            &shift(&p.a),
            f64::from(p.ra),
            &shift(&p.b),
            f64::from(p.rb),
        );
        let here = reference::first_contact_capsules(
            &wide(&p.a),
            f64::from(p.ra),
            &wide(&p.b),
            f64::from(p.rb),
        );
        let r = f64::from(p.ra) + f64::from(p.rb);
        if c.hit {
            let level = r - 64.0 * f64::EPSILON * 2.0 * o;
            let skipped = first_below(&p.a, &p.b, level, 0.0, c.t).filter(|&x| x < c.t);
            assert!(skipped.is_none(), "{p:?}: {c:?}");
        }
        agree += usize::from(c.hit == here.hit);
    }
    assert!(agree > 1900, "{agree} of 2000 decisions as at the origin");
}
