//! The edges of `f64`'s range, infinite radii and meeting points across the float range.
//!
//! - **The `f64` range rule** (`sets::within_radius`): scaled copies of the hard classes
//!   (coordinates and radii of `1e150` to `1e300`, where squared distances and squared radii
//!   overflow, and `1e-156` to `1e-217`, where they underflow) decide as the pairs
//!   themselves, in the reference's rule and in every `f64` query that decides a radius
//!   (the grid and brute-force radius queries, the index, the capsule tests and contacts),
//!   and their distances are the pairs' distances times the scale, bit for bit
//!   (`segbatch_testkit::range64`, the rescaled oracle). First contacts of moving spheres
//!   too, in `f64` and in `f32`.
//! - **Meeting points** of 2D segments spanning more than the largest float: finite, and
//!   the halved set's points doubled.
//! - **An infinite radius** touches everything, at `t = 0`, in every query.

use proptest::prelude::*;
use segbatch::motion::{
    Contact, MotionFlags, Track, Track64, Tracks, Tracks64, Window, Window64, first_contact,
};
use segbatch::pairs::{
    CapsuleContact64, Radii, Radii64, capsule_contacts, capsules_touch, capsules_touch_indexed,
};
use segbatch::planar::{Segment2, Segment2_64, Segments2, crossing_pairs};
use segbatch::sets::{
    Hit64, PairHit64, Radius64, SegmentIndex, SegmentIndex64, SharedEndpoints,
    for_each_self_pair_within, pair_distance, pairs_within, self_pairs_within, within_radius,
};
use segbatch::{Flags, Options, Segment, Segment64, Segments, Segments64, Tolerance, reference};
use segbatch_testkit::Rng;
use segbatch_testkit::motion64::moving_pairs64;
use segbatch_testkit::range64::{
    edge_exponent, ordinary_pair, radius_near, room_up, shift, shift_segment, shift_set,
};
use segbatch_testkit::sets::hair;

// ---------------------------------------------------------------------------------------
// The rule, pair by pair.

/// The decision and distance of one pair at an ordinary scale and its copy scaled by
/// `2^k`: the same decision, the distance times `2^k` (when the ordinary one is a normal
/// number and the scaled one representable), the same parameters.
fn check_scaled_pair(a: &Segment64, b: &Segment64, r: f64, k: i32) -> Result<(), TestCaseError> {
    let (Some(ak), Some(bk)) = (shift_segment(a, k), shift_segment(b, k)) else {
        return Ok(());
    };
    let rk = shift(r, k);
    if shift(rk, -k) != r {
        return Ok(());
    }
    let c = reference::closest_points(a, b);
    let ck = reference::closest_points(&ak, &bk);
    let want = c.dist2 <= r * r;
    prop_assert_eq!(
        (ck.s.to_bits(), ck.t.to_bits()),
        (c.s.to_bits(), c.t.to_bits()),
        "parameters of the copy at 2^{}: {:?} vs {:?}",
        k,
        ck,
        c
    );
    prop_assert_eq!(
        within_radius(&ak, &bk, &ck, rk),
        want,
        "2^{}: a = {:?}, b = {:?}, r = {:e} (ordinary dist2 {:e} against r² {:e}); copy {:?}",
        k,
        a,
        b,
        r,
        c.dist2,
        r * r,
        ck
    );
    // The ordinary decision is the plain one there.
    prop_assert_eq!(within_radius(a, b, &c, r), want);
    if c.dist2 >= f64::MIN_POSITIVE {
        let d = shift(c.dist2.sqrt(), k);
        prop_assert_eq!(
            pair_distance(&ak, &bk, &ck).to_bits(),
            d.to_bits(),
            "distance at 2^{}: {:?}",
            k,
            ck
        );
        let d2 = c.dist2 * shift(1.0, k) * shift(1.0, k);
        let out = !(f64::MIN_POSITIVE..=f64::MAX).contains(&d2);
        prop_assert_eq!(ck.flags.contains(Flags::DIST2_OUT_OF_RANGE), out);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    /// Scaled copies of the hard classes at the edges of the range, against the rescaled
    /// oracle (the same pair in the ordinary range).
    #[test]
    fn scaled_copies_decide_as_the_pairs_themselves(seed in any::<u64>()) {
        let mut rng = Rng::new(seed);
        for _ in 0..16 {
            let (a, b) = ordinary_pair(&mut rng);
            let d = reference::closest_points(&a, &b).distance();
            let r = radius_near(&mut rng, d);
            let k = edge_exponent(&mut rng, room_up(&[a, b]));
            check_scaled_pair(&a, &b, r, k)?;
        }
    }
}

#[test]
fn scaled_copies_at_fixed_exponents() {
    // A fixed sweep over the classes and exponents from 2^500 (3e150) to 2^990 (1e298) and
    // from 2^-520 to 2^-720.
    let mut rng = Rng::new(0x0f64_ed6e);
    let (mut within, mut beyond) = (0, 0);
    for n in 0..segbatch_testkit::sweep(4000) {
        let (a, b) = ordinary_pair(&mut rng);
        let d = reference::closest_points(&a, &b).distance();
        let r = radius_near(&mut rng, d);
        let room = room_up(&[a, b]);
        let k = match n % 3 {
            0 => room,
            1 => 500 + (n as i32 % (room - 499).max(1)),
            _ => -520 - (n as i32 % 200),
        };
        check_scaled_pair(&a, &b, r, k).unwrap_or_else(|e| panic!("{e}"));
        if reference::closest_points(&a, &b).dist2 <= r * r {
            within += 1;
        } else {
            beyond += 1;
        }
    }
    assert!(
        within > 100 && beyond > 100,
        "{within} within, {beyond} beyond"
    );
}

#[test]
fn segments_2e300_apart_decide_and_measure_as_scaled() {
    // Parallel segments 2e300 apart: dist2 overflows, and a radius of 1.9e300 (whose square
    // overflows too) used to hold them.
    let a = Segment64::new([0.0, 0.0, 0.0], [1e300, 0.0, 0.0]);
    let b = Segment64::new([0.0, 2e300, 0.0], [1e300, 2e300, 0.0]);
    let c = reference::closest_points(&a, &b);
    assert_eq!(c.dist2, f64::INFINITY);
    assert!(c.flags.contains(Flags::DIST2_OUT_OF_RANGE));
    assert!(!within_radius(&a, &b, &c, 1.9e300));
    assert!(within_radius(&a, &b, &c, 2e300));
    assert!(within_radius(&a, &b, &c, f64::INFINITY));
    assert!(!within_radius(&a, &b, &c, 1e200));
    assert_eq!(pair_distance(&a, &b, &c), 2e300);
    // The same at 1e-200: dist2 underflows, and so does a radius's square.
    let (a, b) = (
        shift_segment(&a, -1660).unwrap(),
        shift_segment(&b, -1660).unwrap(),
    );
    let c = reference::closest_points(&a, &b);
    let d = shift(2e300, -1660);
    assert!(c.dist2 < f64::MIN_POSITIVE);
    assert!(within_radius(&a, &b, &c, d));
    assert!(!within_radius(&a, &b, &c, d.next_down()));
    assert_eq!(pair_distance(&a, &b, &c), d);
    // A radius whose square is normal decides plainly, however far apart the pair.
    assert!(within_radius(&a, &b, &c, 1e-100));
    // Segments spanning the whole range: the separation is formed without overflow.
    let m = f64::MAX;
    let a = Segment64::new([-m, 0.0, 0.0], [m, 0.0, 0.0]);
    let b = Segment64::new([-m, m, 0.0], [m, m, 0.0]);
    let c = reference::closest_points(&a, &b);
    assert!(within_radius(&a, &b, &c, m));
    assert!(!within_radius(&a, &b, &c, m.next_down() * (1.0 - 1e-15)));
    assert_eq!(pair_distance(&a, &b, &c), m);
}

// ---------------------------------------------------------------------------------------
// The queries.

/// Hits as `(i, j, s, t)` bits, sorted.
fn keys(hits: &[Hit64]) -> Vec<(u32, u32, u64, u64)> {
    let mut k: Vec<_> = hits
        .iter()
        .map(|h| (h.i, h.j, h.s.to_bits(), h.t.to_bits()))
        .collect();
    k.sort_unstable();
    k
}

/// An ordinary scene: a hair set (the grid's path: more than 32 objects a side) and hard
/// pairs appended, every coordinate scaling exactly by `2^±720`.
fn scene(seed: u64) -> Vec<Segment64> {
    let mut rng = Rng::new(seed);
    let mut set: Vec<Segment64> = hair(70, 0.3, [0.0; 3], seed)
        .iter()
        .map(|s| Segment64::new(s.p0.map(f64::from), s.p1.map(f64::from)))
        .collect();
    for _ in 0..10 {
        let (a, b) = ordinary_pair(&mut rng);
        if a.p0
            .iter()
            .chain(&a.p1)
            .chain(&b.p0)
            .chain(&b.p1)
            .all(|x| x.abs() < 1e3)
        {
            set.extend([a, b]);
        }
    }
    set
}

#[test]
fn set_queries_at_the_range_edges_are_the_ordinary_queries() {
    let set = scene(31);
    let (qa, qb) = set.split_at(40);
    let base = Segments64::from(&set[..]);
    let (ba, bb) = (Segments64::from(qa), Segments64::from(qb));
    let r = 0.3;
    let radii: Vec<f64> = (0..set.len()).map(|i| 0.05 * (i % 7) as f64).collect();
    let pairs: Vec<(u32, u32)> = (0..set.len() as u32)
        .flat_map(|i| (0..set.len() as u32).map(move |j| (i, j)))
        .filter(|(i, j)| i != j && (i + j) % 3 == 0)
        .collect();
    let want_self = self_pairs_within(&base, r, SharedEndpoints::Keep);
    let want_two = pairs_within(&ba, &bb, r);
    let want_each = self_pairs_within(&base, &radii, SharedEndpoints::Keep);
    let want_index = SegmentIndex64::new(&bb)
        .unwrap()
        .pairs_within(&ba, r)
        .unwrap();
    let r64 = Radii64::per_object(&radii, &radii).unwrap();
    let want_touch = capsules_touch_indexed(&base, &base, &pairs, r64);
    let want_contacts = capsule_contacts(&base, &base, &pairs, r64);
    assert!(want_self.len() > 30 && want_two.len() > 10 && want_touch.count_ones() > 10);
    for k in [990, 900, 700, 512, -520, -600, -700] {
        let Some(scaled) = shift_set(&set, k) else {
            panic!("the scene scales exactly by 2^{k}");
        };
        let all = Segments64::from(&scaled[..]);
        let (sa, sb) = (
            Segments64::from(&scaled[..40]),
            Segments64::from(&scaled[40..]),
        );
        let rk = shift(r, k);
        let radii_k: Vec<f64> = radii.iter().map(|&x| shift(x, k)).collect();
        let what = |q: &str| format!("{q} at 2^{k}");
        let got = self_pairs_within(&all, rk, SharedEndpoints::Keep);
        assert_eq!(
            keys(&got),
            keys(&want_self),
            "{}",
            what("self_pairs_within")
        );
        // The distances: the ordinary ones times 2^k, flagged beyond the range.
        for h in &got {
            let (x, y) = (&scaled[h.i as usize], &scaled[h.j as usize]);
            let c = reference::closest_points(x, y);
            let o = reference::closest_points(&set[h.i as usize], &set[h.j as usize]);
            if o.dist2 >= f64::MIN_POSITIVE {
                assert_eq!(
                    pair_distance(x, y, &c),
                    shift(o.distance(), k),
                    "{}",
                    what("distance")
                );
            }
        }
        let mut streamed: Vec<PairHit64> = Vec::new();
        for_each_self_pair_within(&all, rk, SharedEndpoints::Keep, &Options::SEGMENTS, |b| {
            streamed.extend_from_slice(b)
        })
        .unwrap();
        let mut s: Vec<_> = streamed.iter().map(|h| (h.i, h.j)).collect();
        s.sort_unstable();
        let w: Vec<_> = want_self.iter().map(|h| (h.i, h.j)).collect();
        assert_eq!(s, w, "{}", what("for_each_self_pair_within"));
        assert_eq!(
            keys(&pairs_within(&sa, &sb, rk)),
            keys(&want_two),
            "{}",
            what("pairs_within")
        );
        assert_eq!(
            keys(&self_pairs_within(&all, &radii_k, SharedEndpoints::Keep)),
            keys(&want_each),
            "{}",
            what("self_pairs_within, per-object radii")
        );
        let index = SegmentIndex64::new(&sb).unwrap();
        assert_eq!(
            keys(&index.pairs_within(&sa, rk).unwrap()),
            keys(&want_index),
            "{}",
            what("SegmentIndex64::pairs_within")
        );
        let rk64 = Radii64::per_object(&radii_k, &radii_k).unwrap();
        assert_eq!(
            capsules_touch_indexed(&all, &all, &pairs, rk64),
            want_touch,
            "{}",
            what("capsules_touch_indexed")
        );
        let contacts = capsule_contacts(&all, &all, &pairs, rk64);
        let shape = |c: &CapsuleContact64| (c.pair, c.i, c.j);
        assert_eq!(
            contacts.iter().map(shape).collect::<Vec<_>>(),
            want_contacts.iter().map(shape).collect::<Vec<_>>(),
            "{}",
            what("capsule_contacts")
        );
        for (g, w) in contacts.iter().zip(&want_contacts) {
            assert_eq!(g.normal, w.normal, "{}", what("contact normal"));
            if (shift(1.0, -600)..1e300).contains(&w.depth.abs()) {
                assert_eq!(g.depth, shift(w.depth, k), "{}", what("contact depth"));
            }
        }
    }
}

#[test]
fn capsules_touch64_at_the_range_edges() {
    let mut rng = Rng::new(0xca95);
    let (mut a, mut b, mut ra, mut rb) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    while a.len() < 300 {
        let (x, y) = ordinary_pair(&mut rng);
        if room_up(&[x, y]) < 990 {
            continue;
        }
        let d = reference::closest_points(&x, &y).distance();
        let r = radius_near(&mut rng, d);
        let split = rng.range(0.0, 1.0);
        a.push(x);
        b.push(y);
        ra.push(r * split);
        rb.push(r - r * split);
    }
    let (sa, sb) = (Segments64::from(&a[..]), Segments64::from(&b[..]));
    let want = capsules_touch(&sa, &sb, Radii64::per_pair(&ra, &rb).unwrap());
    let uniform = capsules_touch(&sa, &sb, Radii64::uniform(0.25, 0.5).unwrap());
    assert!(want.count_ones() > 50 && want.count_ones() < 250);
    for k in [990, 800, 600, -530, -650] {
        let (Some(xa), Some(xb)) = (shift_set(&a, k), shift_set(&b, k)) else {
            continue;
        };
        let (xa, xb) = (Segments64::from(&xa[..]), Segments64::from(&xb[..]));
        let (ka, kb): (Vec<f64>, Vec<f64>) = (
            ra.iter().map(|&r| shift(r, k)).collect(),
            rb.iter().map(|&r| shift(r, k)).collect(),
        );
        assert_eq!(
            capsules_touch(&xa, &xb, Radii64::per_pair(&ka, &kb).unwrap()),
            want,
            "per pair, 2^{k}"
        );
        let u = Radii64::uniform(shift(0.25, k), shift(0.5, k)).unwrap();
        assert_eq!(capsules_touch(&xa, &xb, u), uniform, "uniform, 2^{k}");
    }
}

// ---------------------------------------------------------------------------------------
// First contacts.

fn same64(x: &Contact<f64>, y: &Contact<f64>) -> bool {
    x.hit == y.hit
        && x.flags == y.flags
        && (x.t.to_bits() == y.t.to_bits() || (x.t.is_nan() && y.t.is_nan()))
}

#[test]
fn first_contacts_at_the_range_edges_are_the_ordinary_ones() {
    let pairs: Vec<(Segment64, Segment64)> = moving_pairs64(0xc0_47ac, 600)
        .into_iter()
        .filter(|(a, b)| {
            let all = [a.p0, a.p1, b.p0, b.p1];
            all.iter()
                .flatten()
                .all(|x| x.is_finite() && (x.abs() < 1e30) && (*x == 0.0 || x.abs() > 1e-30))
        })
        .collect();
    assert!(pairs.len() > 200, "{} pairs", pairs.len());
    let mut rng = Rng::new(77);
    let (mut hits, mut checked) = (0, 0);
    for (a, b) in &pairs {
        let d = reference::cpa(a, b, Window::STEP).dist2.sqrt();
        let r = radius_near(&mut rng, d) * 0.5;
        let want = reference::first_contact(a, r, b, r, Window::STEP);
        let ta = Track64::new(a.p0, a.direction());
        let tb = Track64::new(b.p0, b.direction());
        let want_tracks = reference::first_contact(&ta, r, &tb, r, Window64::STEP);
        hits += usize::from(want.hit);
        for k in [900, 600, 520] {
            let (Some(ak), Some(bk)) = (shift_segment(a, k), shift_segment(b, k)) else {
                continue;
            };
            checked += 1;
            let rk = shift(r, k);
            let got = reference::first_contact(&ak, rk, &bk, rk, Window::STEP);
            assert!(
                same64(&got, &want),
                "2^{k}: {a:?} {b:?} r {r:e}: {got:?} vs {want:?}"
            );
            let batch = first_contact(
                &Segments64::from(&[ak; 5]),
                &Segments64::from(&[bk; 5]),
                Radii64::uniform(rk, rk).unwrap(),
                Window::STEP,
            );
            assert!(batch.iter().all(|c| same64(&c, &want)), "batch, 2^{k}");
            let (tka, tkb) = (
                Track64::new(ak.p0, ak.direction()),
                Track64::new(bk.p0, bk.direction()),
            );
            if tka
                .velocity
                .iter()
                .chain(&tkb.velocity)
                .all(|x| x.is_finite())
                && tka.velocity.map(|x| shift(x, -k)) == ta.velocity
                && tkb.velocity.map(|x| shift(x, -k)) == tb.velocity
            {
                let got = reference::first_contact(&tka, rk, &tkb, rk, Window64::STEP);
                assert!(same64(&got, &want_tracks), "tracks, 2^{k}");
                let batch = first_contact(
                    &Tracks64::from(&[tka; 3]),
                    &Tracks64::from(&[tkb; 3]),
                    Radii64::per_pair(&[rk; 3], &[rk; 3]).unwrap(),
                    Window64::STEP,
                );
                assert!(
                    batch.iter().all(|c| same64(&c, &want_tracks)),
                    "tracks batch, 2^{k}"
                );
            }
        }
    }
    assert!(hits > 50 && checked > 500, "{hits} hits, {checked} copies");
}

#[test]
fn first_contacts_beyond_f32_s_squares() {
    // f32 spheres 1e20..1e36 apart: their squares overflow f32; decided as at 1.
    let a = Segment::new([-2.0, 0.5, 0.0], [2.0, 0.5, 0.0]);
    let b = Segment::new([0.0, -2.0, 0.0], [0.0, 2.0, 0.0]);
    let want = reference::first_contact(&a, 0.5, &b, 0.5, Window::STEP);
    assert!(want.hit && want.t > 0.0);
    for k in [66, 100, 120] {
        let s = 2f32.powi(k);
        let sc = |x: &Segment| Segment::new(x.p0.map(|v| v * s), x.p1.map(|v| v * s));
        let got = reference::first_contact(&sc(&a), 0.5 * s, &sc(&b), 0.5 * s, Window::STEP);
        assert_eq!(
            (got.hit, got.t, got.flags),
            (want.hit, want.t, want.flags),
            "2^{k}"
        );
        let batch = first_contact(
            &Segments::from(&[sc(&a); 9]),
            &Segments::from(&[sc(&b); 9]),
            Radii::uniform(0.5 * s, 0.5 * s).unwrap(),
            Window::STEP,
        );
        assert!(
            batch
                .iter()
                .all(|c| (c.hit, c.t, c.flags) == (want.hit, want.t, want.flags))
        );
    }
}

// ---------------------------------------------------------------------------------------
// An infinite radius.

#[test]
fn an_infinite_radius_touches_everything_at_the_start() {
    let inf = f32::INFINITY;
    let touching = |c: &Contact| c.hit && c.t == 0.0 && c.flags == MotionFlags::TOUCHING_AT_START;
    let far = Track::new([1e30, 0.0, 0.0], [0.0, 0.0, 0.0]);
    let here = Track::new([0.0; 3], [1.0, 0.0, 0.0]);
    for (ra, rb) in [(inf, 0.0), (0.0, inf), (inf, inf), (inf, 0.5)] {
        assert!(touching(&reference::first_contact(
            &here,
            ra,
            &far,
            rb,
            Window::STEP
        )));
        let batch = first_contact(
            &Tracks::from(&[here; 11]),
            &Tracks::from(&[far; 11]),
            Radii::uniform(ra, rb).unwrap(),
            Window::UNBOUNDED,
        );
        assert!(batch.iter().all(|c| touching(&c)), "{:?}", batch.get(0));
        let s = Segment::new([0.0; 3], [1.0, 0.0, 0.0]);
        let f = Segment::new([3e38, 3e38, -3e38], [-3e38, 0.0, 3e38]);
        assert!(touching(&reference::first_contact(
            &s,
            ra,
            &f,
            rb,
            Window::STEP
        )));
        let batch = first_contact(
            &Segments::from(&[s, f, s]),
            &Segments::from(&[f, s, s]),
            Radii::per_pair(&[ra, rb, ra], &[rb, ra, 0.0]).unwrap(),
            Window::STEP,
        );
        assert!(batch.iter().all(|c| touching(&c)));
    }
    // A non-finite coordinate stays non-finite.
    let nan = Track::new([f32::NAN, 0.0, 0.0], [0.0; 3]);
    let c = reference::first_contact(&here, inf, &nan, 0.0, Window::STEP);
    assert!(!c.hit && c.t.is_nan() && c.flags == MotionFlags::NON_FINITE);
    // f64, tracks and steps, uniform and per pair.
    let t64 = |c: &Contact<f64>| c.hit && c.t == 0.0 && c.flags == MotionFlags::TOUCHING_AT_START;
    let a = Track64::new([0.0; 3], [1.0, 0.0, 0.0]);
    let b = Track64::new([f64::MAX, -f64::MAX, 0.0], [-1.0, 0.0, 0.0]);
    assert!(t64(&reference::first_contact(
        &a,
        f64::INFINITY,
        &b,
        0.0,
        Window64::STEP
    )));
    let batch = first_contact(
        &Tracks64::from(&[a; 6]),
        &Tracks64::from(&[b; 6]),
        Radii64::uniform(0.0, f64::INFINITY).unwrap(),
        Window64::STEP,
    );
    assert!(batch.iter().all(|c| t64(&c)));
    let s = Segment64::new([0.0; 3], [1.0, 0.0, 0.0]);
    let f = Segment64::new([1e300, 0.0, 0.0], [2e300, 1e300, 0.0]);
    assert!(t64(&reference::first_contact(
        &s,
        f64::INFINITY,
        &f,
        1.0,
        Window::STEP
    )));
    let batch = first_contact(
        &Segments64::from(&[s, f]),
        &Segments64::from(&[f, s]),
        Radii64::per_pair(&[f64::INFINITY, 0.0], &[0.0, f64::INFINITY]).unwrap(),
        Window::STEP,
    );
    assert!(batch.iter().all(|c| t64(&c)));
    // The capsule tests, the contacts and the radius queries hold every finite pair.
    let set = Segments::from(&[
        Segment::new([0.0; 3], [1.0, 0.0, 0.0]),
        Segment::new([3e38, 0.0, 0.0], [3e38, 1.0, 0.0]),
        Segment::new([0.0, -3e38, 0.0], [0.0, -3e38, 1e-30]),
        Segment::new([0.0, f32::NAN, 0.0], [1.0, 0.0, 0.0]),
    ]);
    let both = Segments::from(&[set.get(0).unwrap(); 4]);
    let mask = capsules_touch(&both, &set, Radii::uniform(inf, 0.0).unwrap());
    assert_eq!(mask.iter_ones().collect::<Vec<_>>(), vec![0, 1, 2]);
    let contacts = capsule_contacts(
        &set,
        &set,
        &[(0, 1), (1, 2), (0, 3)],
        Radii::uniform(0.0, inf).unwrap(),
    );
    assert_eq!(contacts.len(), 2);
    for c in &contacts {
        assert_eq!(c.depth, inf);
        assert!(
            c.point_a.iter().chain(&c.point_b).all(|x| !x.is_nan()),
            "{c:?}"
        );
    }
    let pairs: Vec<_> = self_pairs_within(&set, inf, SharedEndpoints::Keep)
        .iter()
        .map(|h| (h.i, h.j))
        .collect();
    assert_eq!(pairs, vec![(0, 1), (0, 2), (1, 2)]);
    assert_eq!(pairs_within(&set, &set, inf).len(), 9);
    let index = SegmentIndex::new(&set).unwrap();
    let rays = Segments::from(&[Segment::new([5.0, 5.0, 5.0], [6.0, 5.0, 5.0])]);
    let hit = index.first_hits(&rays, inf, 10.0).unwrap()[0].unwrap();
    assert_eq!((hit.index, hit.u), (0, 0.0));
    let wide: Vec<Segment64> = (0..3)
        .map(|i| {
            let s = set.get(i).unwrap();
            Segment64::new(
                s.p0.map(|x| f64::from(x) * 1e250),
                s.p1.map(|x| f64::from(x) * 1e250),
            )
        })
        .collect();
    let wide = Segments64::from(&wide[..]);
    assert_eq!(
        self_pairs_within(&wide, f64::INFINITY, SharedEndpoints::Keep).len(),
        3
    );
    assert_eq!(
        self_pairs_within(
            &wide,
            Radius64::Each(&[f64::INFINITY, 0.0, 0.0]),
            SharedEndpoints::Keep
        )
        .len(),
        2
    );
    let touch = capsules_touch(&wide, &wide, Radii64::uniform(f64::INFINITY, 1.0).unwrap());
    assert_eq!(touch.count_ones(), 3);
}

// ---------------------------------------------------------------------------------------
// The absolute tolerance in f64.

#[test]
fn an_f64_absolute_tolerance_is_read_as_given() {
    // 1e-3 as an f32 and as an f64: the f32 queries read the same f32.
    let (a, b) = (
        Segment::new([0.0; 3], [1e-3, 0.0, 0.0]),
        Segment::new([0.0, 1.0, 0.0], [0.5, 1.0, 0.0]),
    );
    let o32 = Options::SEGMENTS.with_tolerance(Tolerance::absolute(1e-3));
    let o64 = Options::SEGMENTS.with_tolerance(Tolerance::absolute64(f64::from(1e-3f32)));
    assert_eq!(
        reference::closest_points_with(&a, &b, &o32),
        reference::closest_points_with(&a, &b, &o64)
    );
    // Beyond f32's range, in f64: a side of 1e99 is degenerate under 1e100, one of 1e101
    // is not; under 1e300 a side of 1e299 is.
    let other = Segment64::new([5.0, 0.0, 0.0], [5.0, 1.0, 0.0]);
    let tol = |eps: f64| Options::SEGMENTS.with_tolerance(Tolerance::absolute64(eps));
    for (len, eps, degenerate) in [
        (1e99, 1e100, true),
        (1e101, 1e100, false),
        (1e299, 1e300, true),
    ] {
        let side = Segment64::new([0.0, 1.0, 0.0], [0.0, len, 0.0]);
        let c = reference::closest_points_with(&side, &other, &tol(eps));
        assert_eq!(
            c.flags.contains(Flags::DEGENERATE_A),
            degenerate,
            "{len:e} under {eps:e}: {c:?}"
        );
        let mut out = segbatch::pairs::ClosestBatch64::new();
        segbatch::pairs::closest_points_into(
            &Segments64::from(&[side; 5]),
            &Segments64::from(&[other; 5]),
            &tol(eps),
            segbatch::Outputs::ALL,
            &mut out,
        )
        .unwrap();
        assert!(out.iter().all(|k| k == c), "the batch is the reference");
    }
}

// ---------------------------------------------------------------------------------------
// Meeting points of segments spanning the float range.

#[test]
fn meeting_points_of_segments_spanning_the_float_range() {
    let m = f32::MAX;
    let set = Segments2::from(&[
        Segment2::new([-m, 0.0], [m, 0.0]),
        Segment2::new([0.0, -m], [0.0, m]),
        Segment2::new([1.7e38, m], [1.7e38, -m]),
        Segment2::new([-m, -m], [m, m]),
    ]);
    let hits = crossing_pairs(&set);
    assert_eq!(hits.len(), 5);
    for h in &hits {
        let p = h.point(&set).unwrap();
        assert!(p.iter().all(|x| x.is_finite()), "{h:?}: {p:?}");
    }
    let at = |i, j| {
        hits.iter()
            .find(|h| (h.i, h.j) == (i, j))
            .unwrap()
            .point(&set)
            .unwrap()
    };
    assert_eq!(at(0, 1), [0.0, 0.0]);
    assert_eq!(at(0, 3), [0.0, 0.0]);
    assert!((at(0, 2)[0] / 1.7e38 - 1.0).abs() < 1e-6 && at(0, 2)[1] == 0.0);
    // Segment2::at, both precisions.
    assert_eq!(Segment2::new([-m, 1.0], [m, 1.0]).at(0.5), [0.0, 1.0]);
    let m64 = f64::MAX;
    assert_eq!(
        Segment2_64::new([m64, -m64], [-m64, m64]).at(0.5),
        [0.0, 0.0]
    );
    // Exact where the multiply-add is fused; within an ulp where it rounds twice (SSE2,
    // `same-bits`).
    let p = Segment2_64::new([-m64, 0.0], [m64, 0.0]).at(0.75);
    if segbatch::reference::FUSED_MUL_ADD {
        assert_eq!(p, [m64 / 2.0, 0.0]);
    } else {
        assert!(
            (p[0] / (m64 / 2.0) - 1.0).abs() <= f64::EPSILON && p[1] == 0.0,
            "{p:?}"
        );
    }
    let set64 = Segments2::<f64>::from(&[
        Segment2_64::new([-m64, 0.0], [m64, 0.0]),
        Segment2_64::new([1.7e308, -m64], [1.7e308, m64]),
    ]);
    let hits = crossing_pairs(&set64);
    let p = hits[0].point(&set64).unwrap();
    assert!((p[0] / 1.7e308 - 1.0).abs() < 1e-12 && p[1] == 0.0, "{p:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    /// A set whose segments span more than the largest float: its meeting points are the
    /// halved set's doubled (the rescaled oracle: halving is exact there), in both
    /// precisions.
    #[test]
    fn meeting_points_are_the_halved_set_s_doubled(seed in any::<u64>()) {
        let mut rng = Rng::new(seed);
        let big = |rng: &mut Rng| rng.range(-1.0, 1.0) * f64::MAX;
        let set64: Vec<Segment2_64> = (0..12)
            .map(|_| Segment2_64::new([big(&mut rng), big(&mut rng)], [big(&mut rng), big(&mut rng)]))
            .collect();
        let half: Vec<Segment2_64> = set64
            .iter()
            .map(|s| Segment2_64::new(s.p0.map(|x| x / 2.0), s.p1.map(|x| x / 2.0)))
            .collect();
        let (full, half) = (Segments2::<f64>::from(&set64[..]), Segments2::<f64>::from(&half[..]));
        let (hf, hh) = (crossing_pairs(&full), crossing_pairs(&half));
        prop_assert_eq!(hf.len(), hh.len());
        for (f, h) in hf.iter().zip(&hh) {
            prop_assert_eq!((f.i, f.j, f.s.to_bits()), (h.i, h.j, h.s.to_bits()));
            let (p, q) = (f.point(&full).unwrap(), h.point(&half).unwrap());
            prop_assert!(p.iter().all(|x| x.is_finite()), "{:?}", p);
            prop_assert_eq!(p, q.map(|x| x * 2.0));
        }
        let set32: Vec<Segment2> = set64
            .iter()
            .map(|s| Segment2::new(s.p0.map(|x| (x / f64::MAX) as f32 * f32::MAX), s.p1.map(|x| (x / f64::MAX) as f32 * f32::MAX)))
            .collect();
        let half32: Vec<Segment2> = set32
            .iter()
            .map(|s| Segment2::new(s.p0.map(|x| x / 2.0), s.p1.map(|x| x / 2.0)))
            .collect();
        let (full, half) = (Segments2::from(&set32[..]), Segments2::from(&half32[..]));
        let (hf, hh) = (crossing_pairs(&full), crossing_pairs(&half));
        prop_assert_eq!(hf.len(), hh.len());
        for (f, h) in hf.iter().zip(&hh) {
            prop_assert_eq!((f.i, f.j, f.s.to_bits()), (h.i, h.j, h.s.to_bits()));
            let (p, q) = (f.point(&full).unwrap(), h.point(&half).unwrap());
            prop_assert!(p.iter().all(|x| x.is_finite()), "{:?}", p);
            prop_assert_eq!(p, q.map(|x| x * 2.0));
        }
    }
}
