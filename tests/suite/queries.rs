//! The bulk queries against brute force over the scalar reference.
//!
//! Every query must report exactly (bit for bit) what `reference::closest_points_with`
//! gives pair by pair, with radius tests `dist2 <= r * r`; the parallel forms must return
//! exactly what the sequential ones do. Inputs come from a small generator of hard cases
//! (degenerate, parallel, shared end points, tiny and huge scales, far offsets, non-finite
//! coordinates), and radii are taken from the brute-force distances themselves (nudged by
//! one ulp either way) so that many pairs sit exactly at the threshold, where a prefilter
//! that is not conservative would drop them. Case counts come from `PROPTEST_CASES`.

use proptest::prelude::*;
use segbatch::pairs::*;
use segbatch::sets::*;
use segbatch::*;
use segbatch_testkit::Rng;
use segbatch_testkit::brute::{
    assert_same_hits, same, shares_endpoint, within as brute_within, within_by,
};

// ---------------------------------------------------------------------------------------
// Inputs

fn add(p: [f32; 3], q: [f32; 3]) -> [f32; 3] {
    [p[0] + q[0], p[1] + q[1], p[2] + q[2]]
}

/// `n` segments of one scene: a random scale and offset, and a share of hard cases.
fn scene(rng: &mut Rng, n: usize, non_finite: bool) -> Vec<Segment> {
    let scale = [1e-3f32, 1.0, 1e3][rng.below(3) as usize];
    let offset = [0.0f32, 1e2, 1e4][rng.below(3) as usize];
    let origin = rng.cube_f32(offset);
    let mut out: Vec<Segment> = Vec::with_capacity(n);
    for _ in 0..n {
        let p0 = add(origin, rng.cube_f32(scale));
        let seg = match (rng.below(10), out.last()) {
            // Degenerate.
            (0, _) => Segment::new(p0, p0),
            // Parallel to the previous one.
            (1, Some(prev)) => {
                let d = prev.direction();
                let k = rng.range_f32(-1.0, 1.0) * 2.0;
                Segment::new(p0, add(p0, [k * d[0], k * d[1], k * d[2]]))
            }
            // Continues the previous one (shares an end point): a path.
            (2 | 3, Some(prev)) => Segment::new(prev.p1, add(prev.p1, rng.cube_f32(scale * 0.5))),
            // Collinear with the previous one.
            (4, Some(prev)) => {
                let k = rng.range_f32(-1.0, 1.0) * 2.0;
                Segment::new(prev.at(k), prev.at(k + rng.range_f32(-1.0, 1.0)))
            }
            // A non-finite coordinate.
            (5, _) if non_finite && rng.below(3) == 0 => {
                let mut s = Segment::new(p0, add(p0, rng.cube_f32(scale)));
                s.p1[rng.below(3) as usize] = [f32::NAN, f32::INFINITY][rng.below(2) as usize];
                s
            }
            _ => Segment::new(p0, add(p0, rng.cube_f32(scale * 0.5))),
        };
        out.push(seg);
    }
    out
}

fn options(rng: &mut Rng, segments_only: bool) -> Options {
    if segments_only || rng.below(2) == 0 {
        return Options::SEGMENTS;
    }
    let e = [Extent::Segment, Extent::Ray, Extent::Line];
    Options::new(e[rng.below(3) as usize], e[rng.below(3) as usize])
}

/// A radius at which many pairs sit exactly at the threshold: the square root of one of
/// the given squared distances, nudged by at most one ulp.
fn radius_near(rng: &mut Rng, dist2: &[f32]) -> f32 {
    let finite: Vec<f32> = dist2.iter().copied().filter(|d| d.is_finite()).collect();
    if finite.is_empty() {
        return 1.0;
    }
    let r = finite[rng.below(finite.len() as u64) as usize].sqrt();
    match rng.below(3) {
        0 => f32::from_bits(r.to_bits().saturating_sub(1)),
        1 => r,
        _ => f32::from_bits(r.to_bits() + 1),
    }
}

/// A radius for each of `n` objects: zero, or half or all of a radius near a squared
/// distance of `dist2` ([`radius_near`]), so that many pairs sit at `rI + rJ` exactly.
fn radii_near(rng: &mut Rng, n: usize, dist2: &[f32]) -> Vec<f32> {
    (0..n)
        .map(|_| match rng.below(4) {
            0 => 0.0,
            1 => radius_near(rng, dist2),
            _ => 0.5 * radius_near(rng, dist2),
        })
        .collect()
}

/// A view with no padding after its end (the queries' unpadded-tail path).
fn tight_columns(s: &Segments) -> [Vec<f32>; 6] {
    s.columns().map(|c| c.to_vec())
}

fn tight_view(cols: &[Vec<f32>; 6]) -> SegmentsView<'_> {
    SegmentsView::from_columns(core::array::from_fn(|k| &cols[k][..])).unwrap()
}

// ---------------------------------------------------------------------------------------
// Brute force over the reference

fn assert_same_closest(got: &Closest, want: &Closest, ctx: &str) {
    let ok = same(got.s, want.s)
        && same(got.t, want.t)
        && same(got.dist2, want.dist2)
        && (0..3).all(|k| same(got.point_a[k], want.point_a[k]))
        && (0..3).all(|k| same(got.point_b[k], want.point_b[k]))
        && got.flags == want.flags;
    assert!(ok, "{ctx}: got {got:?}, reference {want:?}");
}

fn capsule_brute(a: &[Segment], b: &[Segment], ra: &[f32], rb: &[f32], o: &Options) -> Vec<bool> {
    (0..a.len())
        .map(|i| {
            let r = ra[i] + rb[i];
            reference::closest_points_with(&a[i], &b[i], o).dist2 <= r * r
        })
        .collect()
}

// The queries with explicit options (the `_into` forms; the convenience forms take the
// default `Options::SEGMENTS`).

fn touch<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    radii: Radii<'_>,
    o: &Options,
) -> PairMask {
    let mut mask = PairMask::new();
    capsules_touch_into(a, b, radii, o, &mut mask).unwrap();
    mask
}

fn matrix<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    o: &Options,
) -> Vec<f32> {
    let mut m = Vec::new();
    dist2_matrix_into(a, b, o, &mut m).unwrap();
    m
}

fn within<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    r: f32,
    o: &Options,
) -> Vec<Hit> {
    let mut hits = Vec::new();
    pairs_within_into(a, b, r, o, &mut hits).unwrap();
    hits
}

fn self_within<'a>(
    set: impl Into<SegmentsView<'a>>,
    r: f32,
    o: &Options,
    shared: SharedEndpoints,
) -> Vec<Hit> {
    let mut hits = Vec::new();
    self_pairs_within_into(set, r, shared, o, &mut hits).unwrap();
    hits
}

// ---------------------------------------------------------------------------------------
// One against many

fn check_one_to_many(seed: u64, n: usize) {
    let mut rng = Rng::new(seed);
    let set = scene(&mut rng, n + 1, true);
    let (one, many) = (set[0], Segments::from(&set[1..]));
    let o = options(&mut rng, false);
    let mut out = ClosestBatch::new();
    for outputs in [Outputs::ALL, Outputs::DISTANCE] {
        closest_points_one_to_many_into(&one, &many, &o, outputs, &mut out).unwrap();
        assert_eq!(out.len(), n);
        let cols = tight_columns(&many);
        let mut tight = ClosestBatch::new();
        closest_points_one_to_many_into(&one, tight_view(&cols), &o, outputs, &mut tight).unwrap();
        assert_eq!(tight.len(), out.len());
        for j in 0..n {
            assert_same_closest(
                &tight.get(j).unwrap(),
                &out.get(j).unwrap(),
                "unpadded view",
            );
        }
        for j in 0..n {
            let want = reference::closest_points_with(&one, &set[j + 1], &o);
            if outputs == Outputs::ALL {
                let got = out.get(j).unwrap();
                assert_same_closest(&got, &want, &format!("one-to-many n={n} j={j}"));
            } else {
                assert!(same(out.dist2()[j], want.dist2));
            }
        }
    }
}

#[test]
fn one_to_many_every_tail_length() {
    for n in 0..=33 {
        check_one_to_many(n as u64 * 7919, n);
    }
}

#[test]
fn one_to_many_default_form() {
    let one = Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
    let many = Segments::from(&[Segment::new([1.0, 1.0, 0.0], [1.0, 3.0, 0.0]); 9]);
    let out = closest_points_one_to_many(&one, &many);
    assert_eq!(out.dist2(), &[1.0; 9]);
}

// ---------------------------------------------------------------------------------------
// Capsules

fn radii(rng: &mut Rng, n: usize, bad: bool) -> Vec<f32> {
    (0..n)
        .map(|_| match rng.below(if bad { 12 } else { 10 }) {
            0 => 0.0,
            10 => -0.5,
            11 => f32::NAN,
            _ => rng.range_f32(-1.0, 1.0).abs() * 0.3,
        })
        .collect()
}

fn check_capsules(seed: u64, n: usize) {
    let mut rng = Rng::new(seed);
    let a = scene(&mut rng, n, true);
    let b = scene(&mut rng, n, true);
    let o = options(&mut rng, false);
    let (sa, sb) = (Segments::from(&a), Segments::from(&b));
    // Radii at the threshold of some pairs.
    let d2: Vec<f32> = (0..n)
        .map(|i| reference::closest_points_with(&a[i], &b[i], &o).dist2)
        .collect();
    let half = radius_near(&mut rng, &d2) * 0.5;
    let uniform = Radii::uniform(half, half).unwrap();
    let want = capsule_brute(&a, &b, &vec![half; n], &vec![half; n], &o);
    let mask = touch(&sa, &sb, uniform, &o);
    assert_eq!(mask, PairMask::from_bools(&want), "uniform n={n}");
    let idx: Vec<usize> = (0..n).filter(|&i| want[i]).collect();
    assert_eq!(mask.iter_ones().collect::<Vec<usize>>(), idx);
    // Per pair, through unpadded views.
    let (ra, rb) = (radii(&mut rng, n, false), radii(&mut rng, n, false));
    let per = Radii::per_pair(&ra, &rb).unwrap();
    let want = capsule_brute(&a, &b, &ra, &rb, &o);
    let (ca, cb) = (tight_columns(&sa), tight_columns(&sb));
    let mask = touch(tight_view(&ca), tight_view(&cb), per, &o);
    assert_eq!(mask, PairMask::from_bools(&want), "per pair n={n}");
    assert_eq!(
        mask.iter_ones().collect::<Vec<usize>>(),
        touch(&sa, &sb, per, &o).iter_ones().collect::<Vec<usize>>()
    );
    // Invalid radii: rejected when the radii are made, with the first bad pair.
    let rb_bad = radii(&mut rng, n, true);
    let first_bad = (0..n).find(|&i| !(ra[i] >= 0.0 && rb_bad[i] >= 0.0));
    let mut m = PairMask::new();
    let got = Radii::per_pair(&ra, &rb_bad)
        .and_then(|bad| capsules_touch_into(&sa, &sb, bad, &o, &mut m));
    match first_bad {
        Some(i) => {
            assert_eq!(got, Err(Error::InvalidRadius { index: Some(i) }));
            assert!(m.is_empty());
        }
        None => assert!(got.is_ok()),
    }
}

#[test]
fn capsules_every_tail_length() {
    for n in 0..=33 {
        check_capsules(n as u64 * 104_729 + 1, n);
    }
}

#[test]
fn capsule_errors() {
    let a = Segments::from(&[Segment::default(); 3]);
    let b = Segments::from(&[Segment::default(); 2]);
    let mut m = PairMask::new();
    let u = Radii::uniform(1.0, 1.0).unwrap();
    assert!(matches!(
        capsules_touch_into(&a, &b, u, &Options::SEGMENTS, &mut m),
        Err(Error::LengthMismatch { .. })
    ));
    // The indices of touching pairs (formerly their own form) from a mask that held a
    // result before: none on error.
    capsules_touch_into(&a, &a, u, &Options::SEGMENTS, &mut m).unwrap();
    assert_eq!(m.count_ones(), 3);
    assert!(matches!(
        capsules_touch_into(&a, &b, u, &Options::SEGMENTS, &mut m),
        Err(Error::LengthMismatch { .. })
    ));
    assert_eq!(m.iter_ones().collect::<Vec<usize>>(), Vec::<usize>::new());
    let r2 = [1.0, 1.0];
    assert!(matches!(
        capsules_touch_into(
            &a,
            &a,
            Radii::per_pair(&r2, &r2).unwrap(),
            &Options::SEGMENTS,
            &mut m
        ),
        Err(Error::LengthMismatch { .. })
    ));
    for bad in [-1.0, f32::NAN] {
        for radii in [Radii::uniform(1.0, bad), Radii::uniform(bad, 1.0)] {
            assert_eq!(
                radii.and_then(|r| capsules_touch_into(&a, &a, r, &Options::SEGMENTS, &mut m)),
                Err(Error::InvalidRadius { index: None })
            );
        }
    }
    // Zero radii: touching means intersecting.
    let mask = capsules_touch(&a, &a, Radii::uniform(0.0, 0.0).unwrap());
    assert_eq!(mask.count_ones(), 3);
}

#[test]
#[should_panic(expected = "length mismatch")]
fn capsules_panic_on_mismatch() {
    let a = Segments::from(&[Segment::default(); 3]);
    let _ = capsules_touch(&a, &Segments::new(), Radii::uniform(1.0, 1.0).unwrap());
}

// ---------------------------------------------------------------------------------------
// Many against many

fn check_many(seed: u64, na: usize, nb: usize) {
    let mut rng = Rng::new(seed);
    let a = scene(&mut rng, na, true);
    let b = scene(&mut rng, nb, true);
    let segments_only = rng.below(3) != 0;
    let o = options(&mut rng, segments_only);
    let (sa, sb) = (Segments::from(&a), Segments::from(&b));
    let m = matrix(&sa, &sb, &o);
    assert_eq!(m.len(), na * nb);
    for i in 0..na {
        for j in 0..nb {
            let want = reference::closest_points_with(&a[i], &b[j], &o).dist2;
            assert!(
                same(m[i * nb + j], want),
                "matrix {i},{j}: {} vs {want}",
                m[i * nb + j]
            );
        }
    }
    let r = radius_near(&mut rng, &m);
    let want = brute_within(&a, &b, r, &o, false);
    assert_same_hits(
        &within(&sa, &sb, r, &o),
        &want,
        &format!("within {na}x{nb} r={r}"),
    );
    let (ca, cb) = (tight_columns(&sa), tight_columns(&sb));
    let mut got = vec![Hit {
        i: 9,
        j: 9,
        dist2: 0.0,
        s: 0.0,
        t: 0.0,
    }];
    pairs_within_into(tight_view(&ca), tight_view(&cb), r, &o, &mut got).unwrap();
    assert_same_hits(&got, &want, "within, unpadded views");
    // Per-object radii: one an object of A (B bare), one an object of each side.
    let (ra, rb) = (radii_near(&mut rng, na, &m), radii_near(&mut rng, nb, &m));
    let want = within_by(&a, &b, |i, _| ra[i], &o, false);
    pairs_within_into(&sa, &sb, &ra, &o, &mut got).unwrap();
    assert_same_hits(&got, &want, &format!("within {na}x{nb}, radii of a"));
    let want = within_by(&a, &b, |i, j| ra[i] + rb[j], &o, false);
    let sides = Radius::Sides(&ra, &rb);
    pairs_within_into(tight_view(&ca), tight_view(&cb), sides, &o, &mut got).unwrap();
    assert_same_hits(&got, &want, &format!("within {na}x{nb}, radii of both"));
}

#[test]
fn many_every_tail_length() {
    for na in [0, 1, 2, 7, 8, 9] {
        for nb in 0..=33 {
            check_many((na * 1000 + nb) as u64, na, nb);
        }
    }
}

#[test]
fn radius_errors_and_limits() {
    let s = Segments::from(&[
        Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
        Segment::new([0.0, 5.0, 0.0], [1.0, 5.0, 0.0]),
        Segment::new([f32::NAN, 0.0, 0.0], [1.0, 0.0, 0.0]),
    ]);
    let mut v = Vec::new();
    for bad in [-1.0, f32::NAN, f32::NEG_INFINITY] {
        let e = Err(Error::InvalidRadius { index: None });
        assert_eq!(
            pairs_within_into(&s, &s, bad, &Options::SEGMENTS, &mut v),
            e
        );
        assert_eq!(
            self_pairs_within_into(&s, bad, SharedEndpoints::Keep, &Options::SEGMENTS, &mut v),
            e
        );
        assert!(v.is_empty());
    }
    // +inf takes every finite pair, never the NaN one.
    let all = self_pairs_within(&s, f32::INFINITY, SharedEndpoints::Keep);
    assert_eq!(
        all.iter().map(|h| (h.i, h.j)).collect::<Vec<_>>(),
        vec![(0, 1)]
    );
    // Radius 0: only touching pairs.
    let hits = pairs_within(&s, &s, 0.0);
    assert_eq!(
        hits.iter().map(|h| (h.i, h.j)).collect::<Vec<_>>(),
        vec![(0, 0), (1, 1)]
    );
}

#[test]
fn per_object_radius_errors_name_the_index() {
    let s = Segments::from(&[
        Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
        Segment::new([0.0, 0.5, 0.0], [1.0, 0.5, 0.0]),
        Segment::new([0.0, 5.0, 0.0], [1.0, 5.0, 0.0]),
    ]);
    let (o, keep) = (Options::SEGMENTS, SharedEndpoints::Keep);
    let mut v = vec![Hit::default()];
    let index = SegmentIndex::new(&s).unwrap();
    let mismatch = |what, expected, found| {
        Err(Error::LengthMismatch {
            what,
            expected,
            found,
        })
    };
    let (good, short) = ([0.1f32, 0.2, 0.3], [0.1f32, 0.2]);
    for (k, bad) in [(1, -0.5f32), (2, f32::NAN), (0, f32::NEG_INFINITY)] {
        let mut radii = good;
        radii[k] = bad;
        let e = Err(Error::InvalidRadius { index: Some(k) });
        assert_eq!(self_pairs_within_into(&s, &radii, keep, &o, &mut v), e);
        assert!(v.is_empty());
        assert_eq!(pairs_within_into(&s, &s, &radii, &o, &mut v), e);
        assert_eq!(
            pairs_within_into(&s, &s, Radius::Sides(&good, &radii), &o, &mut v),
            e
        );
        assert_eq!(index.pairs_within(&s, &radii).map(|_| ()), e);
        let mut called = false;
        let streamed = for_each_self_pair_within(&s, &radii, keep, &o, |_| called = true);
        assert_eq!((streamed, called), (e, false));
    }
    assert_eq!(
        self_pairs_within_into(&s, &short, keep, &o, &mut v),
        mismatch("radii of the set", 3, 2)
    );
    assert_eq!(
        pairs_within_into(&s, &s, Radius::Sides(&good, &short), &o, &mut v),
        mismatch("radii of set b", 3, 2)
    );
    assert_eq!(
        index.pairs_within(&s, &short).map(|_| ()),
        mismatch("radii of set a", 3, 2)
    );
    assert!(self_pairs_within_into(&s, Radius::Sides(&good, &good), keep, &o, &mut v).is_err());
    // The first two, 0.5 apart, touch at 0.25 + 0.25; the third is 4.5 from the second.
    let hits = self_pairs_within(&s, &[0.25, 0.25, 0.0], keep);
    assert_eq!(
        hits.iter().map(|h| (h.i, h.j)).collect::<Vec<_>>(),
        vec![(0, 1)]
    );
}

#[test]
#[should_panic(expected = "negative or NaN")]
fn pairs_within_panics_on_negative_radius() {
    let _ = pairs_within(&Segments::new(), &Segments::new(), -1.0);
}

// ---------------------------------------------------------------------------------------
// Within one set

fn check_self(seed: u64, n: usize) {
    let mut rng = Rng::new(seed);
    let set = scene(&mut rng, n, true);
    let segments_only = rng.below(3) != 0;
    let o = options(&mut rng, segments_only);
    let s = Segments::from(&set);
    let d2: Vec<f32> = brute_within(&set, &set, f32::INFINITY, &o, true)
        .iter()
        .map(|h| h.dist2)
        .collect();
    let r = radius_near(&mut rng, &d2);
    let want = brute_within(&set, &set, r, &o, true);
    let got = self_within(&s, r, &o, SharedEndpoints::Keep);
    assert_same_hits(&got, &want, &format!("self n={n} r={r}"));
    let want_skip: Vec<Hit> = want
        .iter()
        .copied()
        .filter(|h| !shares_endpoint(&set[h.i as usize], &set[h.j as usize]))
        .collect();
    let cols = tight_columns(&s);
    let got = self_within(tight_view(&cols), r, &o, SharedEndpoints::Skip);
    assert_same_hits(&got, &want_skip, &format!("self skip n={n}"));
    // Per-object radii.
    let radii = radii_near(&mut rng, n, &d2);
    let want = within_by(&set, &set, |i, j| radii[i] + radii[j], &o, true);
    let mut got = Vec::new();
    let keep = SharedEndpoints::Keep;
    self_pairs_within_into(tight_view(&cols), &radii, keep, &o, &mut got).unwrap();
    assert_same_hits(&got, &want, &format!("self n={n}, per-object radii"));
}

#[test]
fn self_every_tail_length() {
    for n in 0..=33 {
        check_self(n as u64 * 31 + 5, n);
    }
}

#[test]
fn self_larger_than_a_tile() {
    // More than TILE_B segments, clustered so there are hits across tiles.
    check_self(77, TILE_B + 45);
}

// ---------------------------------------------------------------------------------------
// Adversarial cases for the prefilter: pairs placed at exactly the radius, far from the
// origin, in every lane position.

#[test]
fn prefilter_keeps_pairs_at_the_radius() {
    let mut rng = Rng::new(2024);
    for &offset in &[0.0f32, 1.0, 1e3, 1e4, 1e5] {
        for &len in &[1e-3f32, 1.0, 1e2] {
            let r = 0.75 * len.max(1e-2);
            // Pairs of parallel, crossing and end-to-end segments at distance r.
            let mut a = Vec::new();
            let mut b = Vec::new();
            for k in 0..24 {
                let o = add(rng.cube_f32(offset), [offset; 3]);
                let d = rng.cube_f32(1.0);
                let p1 = [o[0] + d[0] * len, o[1] + d[1] * len, o[2] + d[2] * len];
                a.push(Segment::new(o, p1));
                let shift = [0.0, 0.0, r * (1.0 + (k as f32 - 12.0) * f32::EPSILON)];
                b.push(match k % 3 {
                    0 => Segment::new(add(o, shift), add(p1, shift)),
                    1 => Segment::new(add(p1, shift), add(add(p1, shift), [len, 0.0, 0.0])),
                    _ => Segment::new(add(o, [0.0, 0.0, -r]), add(o, [len, 0.0, -r])),
                });
            }
            let all: Vec<Segment> = a.iter().chain(&b).copied().collect();
            let d2: Vec<f32> = (0..a.len())
                .map(|i| reference::closest_points(&a[i], &b[i]).dist2)
                .collect();
            for &target in &d2 {
                for nudge in [-1i32, 0, 1] {
                    let rr = f32::from_bits((target.sqrt().to_bits() as i32 + nudge).max(0) as u32);
                    let want = brute_within(&a, &b, rr, &Options::SEGMENTS, false);
                    let got = pairs_within(&Segments::from(&a), &Segments::from(&b), rr);
                    assert_same_hits(&got, &want, &format!("offset {offset} len {len}"));
                    let want = brute_within(&all, &all, rr, &Options::SEGMENTS, true);
                    let got = self_pairs_within(&Segments::from(&all), rr, SharedEndpoints::Keep);
                    assert_same_hits(&got, &want, &format!("self offset {offset} len {len}"));
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Parallel forms: identical to the sequential ones (sizes above the cut-offs).

#[cfg(feature = "rayon")]
#[test]
fn parallel_forms_match_sequential() {
    let mut rng = Rng::new(99);
    let n = PAR_MIN_PAIRS * 3 + 13;
    let big = Segments::from(&scene(&mut rng, n, true));
    let big2 = Segments::from(&scene(&mut rng, n, true));
    let one = scene(&mut rng, 1, false)[0];
    let o = Options::SEGMENTS;
    for outputs in [Outputs::ALL, Outputs::DISTANCE] {
        let (mut seq, mut par) = (ClosestBatch::new(), ClosestBatch::new());
        closest_points_one_to_many_into(&one, &big, &o, outputs, &mut seq).unwrap();
        par_closest_points_one_to_many_into(&one, &big, &o, outputs, &mut par).unwrap();
        assert_eq!(
            seq.dist2().iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            par.dist2().iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
        let (mut seq, mut par) = (ClosestBatch::new(), ClosestBatch::new());
        closest_points_into(&big, &big2, &o, outputs, &mut seq).unwrap();
        par_closest_points_into(&big, &big2, &o, outputs, &mut par).unwrap();
        assert_eq!(
            seq.dist2().iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            par.dist2().iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
    }
    let ra = radii(&mut rng, n, false);
    let rb = radii(&mut rng, n, false);
    let per = Radii::per_pair(&ra, &rb).unwrap();
    assert_eq!(
        capsules_touch(&big, &big2, per),
        par_capsules_touch(&big, &big2, per)
    );
    // The indices of touching pairs, through the general forms (buffers reused).
    let (mut seq_mask, mut par_mask) = (PairMask::new(), PairMask::new());
    capsules_touch_into(&big, &big2, per, &o, &mut seq_mask).unwrap();
    par_capsules_touch_into(&big, &big2, per, &o, &mut par_mask).unwrap();
    assert_eq!(
        seq_mask.iter_ones().collect::<Vec<usize>>(),
        par_mask.iter_ones().collect::<Vec<usize>>()
    );
    // Unpadded views (the last group of every column copied into a buffer).
    let (ca, cb) = (tight_columns(&big), tight_columns(&big2));
    assert_eq!(
        capsules_touch(&big, &big2, per),
        par_capsules_touch(tight_view(&ca), tight_view(&cb), per)
    );
    let (mut seq, mut par) = (ClosestBatch::new(), ClosestBatch::new());
    closest_points_one_to_many_into(&one, &big, &o, Outputs::ALL, &mut seq).unwrap();
    par_closest_points_one_to_many_into(&one, tight_view(&ca), &o, Outputs::ALL, &mut par).unwrap();
    for j in (0..n).step_by(97).chain(n - 8..n) {
        let (p, q) = (par.get(j).unwrap(), seq.get(j).unwrap());
        assert_same_closest(&p, &q, "par one-to-many, unpadded");
    }
    let mut rb_bad = rb.clone();
    rb_bad[n - 3] = -1.0;
    let mut m = PairMask::new();
    assert_eq!(
        Radii::per_pair(&ra, &rb_bad)
            .and_then(|bad| par_capsules_touch_into(&big, &big2, bad, &o, &mut m)),
        Err(Error::InvalidRadius { index: Some(n - 3) })
    );

    // N x M and within one set: clustered scenes with hits.
    let a = Segments::from(&scene(&mut Rng::new(5), 700, true));
    let b = Segments::from(&scene(&mut Rng::new(6), 900, true));
    let mut mp = Vec::new();
    par_dist2_matrix_into(&a, &b, &o, &mut mp).unwrap();
    let ms = dist2_matrix(&a, &b);
    assert!(mp.iter().zip(&ms).all(|(x, y)| same(*x, *y)));
    for r in [0.0f32, 1e-2, 1.0, 30.0, 3e3] {
        let seq = pairs_within(&a, &b, r);
        assert_same_hits(&par_pairs_within(&a, &b, r), &seq, "par pairs_within");
        // Few rows against a long batch: the parallel form splits columns too.
        let one_row = a.view(3..6);
        assert_same_hits(
            &par_pairs_within(one_row, &big, r),
            &pairs_within(one_row, &big, r),
            "one row",
        );
        let set = Segments::from(&scene(&mut Rng::new(7), 1500, true));
        for sh in [SharedEndpoints::Keep, SharedEndpoints::Skip] {
            assert_same_hits(
                &par_self_pairs_within(&set, r, sh),
                &self_pairs_within(&set, r, sh),
                "par self",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Properties (case count from PROPTEST_CASES).

proptest! {
    #[test]
    fn prop_one_to_many(seed in any::<u64>(), n in 0usize..=40) {
        check_one_to_many(seed, n);
    }

    #[test]
    fn prop_capsules(seed in any::<u64>(), n in 0usize..=40) {
        check_capsules(seed, n);
    }

    #[test]
    fn prop_many(seed in any::<u64>(), na in 0usize..=20, nb in 0usize..=40) {
        check_many(seed, na, nb);
    }

    #[test]
    fn prop_self(seed in any::<u64>(), n in 0usize..=40) {
        check_self(seed, n);
    }
}
