//! The `f64` radius queries on the grid against brute force over the `f64` reference, bit
//! for bit: random hair sets at the origin, at UTM and ECEF offsets and at 1e15, radii at a pair's
//! own distance and one ulp on either side, copies of one segment piled in one cell, a
//! scene moved by 5e6 in x and y (the same pairs as at the origin, where every coordinate
//! is exact), a set wider than `2^63`, non-finite members, every thread count, and the
//! streamed forms against the collected ones; per-object radii (capsules, `rI + rJ`) in
//! every form and [`SegmentIndex64::pairs_within`] against the same brute force.

use segbatch::sets::{
    Hit64, PairHit64, Radius64, SegmentIndex64, SharedEndpoints, for_each_pair_within,
    for_each_self_pair_within, pairs_within, pairs_within_into, self_pairs_within,
    self_pairs_within_into,
};
use segbatch::{Options, Segment64, Segments64, reference};
use segbatch_testkit::Rng;
use segbatch_testkit::sets::hair;

/// Brute force over the `f64` reference: every pair `(i, j)` (`j > i` when `upper`) whose
/// reference `dist2 <= r(i, j)²`, sorted, with the reference's values.
fn brute_with(
    a: &[Segment64],
    b: &[Segment64],
    r: impl Fn(usize, usize) -> f64,
    upper: bool,
    skip: bool,
) -> Vec<Hit64> {
    let mut hits = Vec::new();
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate().skip(if upper { i + 1 } else { 0 }) {
            let shared = [x.p0, x.p1].iter().any(|p| *p == y.p0 || *p == y.p1);
            let c = reference::closest_points_with(x, y, &Options::SEGMENTS);
            let r = r(i, j);
            if c.dist2 <= r * r && !(skip && shared) {
                hits.push(Hit64 {
                    i: i as u32,
                    j: j as u32,
                    dist2: c.dist2,
                    s: c.s,
                    t: c.t,
                });
            }
        }
    }
    hits
}

/// The two lists are the same, bit for bit.
fn assert_same(got: &[Hit64], want: &[Hit64], what: &str) {
    let key = |h: &Hit64| (h.i, h.j, h.dist2.to_bits(), h.s.to_bits(), h.t.to_bits());
    let (g, w): (Vec<_>, Vec<_>) = (
        got.iter().map(key).collect(),
        want.iter().map(key).collect(),
    );
    if g != w {
        let missing: Vec<_> = w.iter().filter(|k| !g.contains(k)).take(5).collect();
        let extra: Vec<_> = g.iter().filter(|k| !w.contains(k)).take(5).collect();
        panic!(
            "{what}: {} hits against {}; missing {missing:?}, extra {extra:?}",
            g.len(),
            w.len()
        );
    }
}

/// `n` hair sticks for radius `r` (the test kit's), in `f64`, rounded to multiples of
/// `2^-20` (so that any offset up to `2^30` keeps them exact) and moved by `origin`.
fn hair64(n: usize, r: f32, origin: [f64; 3], seed: u64) -> Vec<Segment64> {
    let exact = |x: f32| (f64::from(x) * 1048576.0).round() / 1048576.0;
    let at = |p: [f32; 3]| core::array::from_fn(|k| origin[k] + exact(p[k]));
    hair(n, r, [0.0; 3], seed)
        .iter()
        .map(|s| Segment64::new(at(s.p0), at(s.p1)))
        .collect()
}

/// `n` sticks of random `f64` lengths up to `2r` and directions, centred in a cube of side
/// `side` around `origin` (no rounding: every bit of the coordinates in use).
fn sticks64(rng: &mut Rng, n: usize, r: f64, side: f64, origin: [f64; 3]) -> Vec<Segment64> {
    (0..n)
        .map(|_| {
            let c: [f64; 3] = core::array::from_fn(|k| origin[k] + 0.5 * side * rng.sym());
            let d = rng.dir();
            let h = rng.range(0.0, r);
            Segment64::new(
                core::array::from_fn(|k| c[k] - h * d[k]),
                core::array::from_fn(|k| c[k] + h * d[k]),
            )
        })
        .collect()
}

/// The hits `run` streams to its sink, sorted by `(i, j)`, are `want`'s.
fn assert_streamed(want: &[Hit64], ctx: &str, run: impl FnOnce(&mut dyn FnMut(&[PairHit64]))) {
    let mut streamed = Vec::new();
    run(&mut |b| streamed.extend_from_slice(b));
    streamed.sort_by_key(|h| (h.i, h.j));
    let compact: Vec<PairHit64> = want.iter().map(|&h| h.into()).collect();
    assert_eq!(streamed, compact, "{ctx} streamed");
}

/// The pairs of `set` with itself within `radius` (the pair radius `r(i, j)`), collected
/// and streamed, under both end point rules, against brute force.
fn check_self(
    set: &[Segment64],
    radius: Radius64<'_>,
    r: impl Fn(usize, usize) -> f64 + Copy,
    what: &str,
) {
    let s = Segments64::from(set);
    let every = brute_with(set, set, r, true, false);
    for shared in [SharedEndpoints::Keep, SharedEndpoints::Skip] {
        let want: Vec<Hit64> = every
            .iter()
            .copied()
            .filter(|h| {
                let (x, y) = (&set[h.i as usize], &set[h.j as usize]);
                shared == SharedEndpoints::Keep
                    || ![x.p0, x.p1].iter().any(|p| *p == y.p0 || *p == y.p1)
            })
            .collect();
        let ctx = format!("{what} self {shared:?}");
        assert_same(&self_pairs_within(&s, radius, shared), &want, &ctx);
        assert_streamed(&want, &ctx, |sink| {
            for_each_self_pair_within(&s, radius, shared, &Options::SEGMENTS, |b| sink(b)).unwrap()
        });
    }
}

/// The pairs of `set` against `other` within `radius` (the pair radius `r(i, j)`):
/// `_into` (over a used output), streamed, and from an index over `other` (built and
/// queried on one thread, and on all cores), against brute force.
fn check_pairs(
    set: &[Segment64],
    other: &[Segment64],
    radius: Radius64<'_>,
    r: impl Fn(usize, usize) -> f64,
    what: &str,
) {
    let (s, o) = (Segments64::from(set), Segments64::from(other));
    let want = brute_with(set, other, r, false, false);
    let ctx = format!("{what} pairs");
    let mut out = vec![Hit64::default(); 3];
    pairs_within_into(&s, &o, radius, &Options::SEGMENTS, &mut out).unwrap();
    assert_same(&out, &want, &ctx);
    assert_streamed(&want, &ctx, |sink| {
        for_each_pair_within(&s, &o, radius, &Options::SEGMENTS, |b| sink(b)).unwrap()
    });
    let index = SegmentIndex64::new(&o).unwrap();
    assert_same(
        &index.pairs_within(&s, radius).unwrap(),
        &want,
        &format!("{ctx} index"),
    );
    #[cfg(feature = "rayon")]
    let index = SegmentIndex64::par_new(&o).unwrap();
    #[cfg(feature = "rayon")]
    assert_same(
        &index.par_pairs_within(&s, radius).unwrap(),
        &want,
        &format!("{ctx} index, parallel"),
    );
}

/// Checks every form of both queries on `set` (and `set` against `other`) against brute
/// force with one radius for every pair.
fn check(set: &[Segment64], other: &[Segment64], radius: f64, what: &str) {
    let what = format!("{what} r {radius}");
    check_self(set, Radius64::All(radius), |_, _| radius, &what);
    check_pairs(set, other, Radius64::All(radius), |_, _| radius, &what);
}

#[test]
fn random_sets_are_brute_force_at_any_offset() {
    let mut rng = Rng::new(0x5e7_0064);
    for (k, origin) in [
        [0.0; 3],
        [500_000.0, 4_990_000.0, 0.0],
        [4_510_731.0, 4_510_731.0, 4_487_348.0],
        [-1e9, 2.5e8, 1e-3],
        // Coordinates a step of 0.125 apart, where the f64 kernel's error bound (8·ε·S,
        // about 1.8) exceeds the radii: the spheres are grown by it.
        [1e15, -1e15, 3e14],
    ]
    .into_iter()
    .enumerate()
    {
        let set = sticks64(&mut rng, 500, 0.5, 8.0, origin);
        let other = sticks64(&mut rng, 200, 0.5, 8.0, origin);
        for radius in [0.0, 0.1, 0.5, 1.25] {
            check(&set, &other, radius, &format!("origin {k}"));
        }
        let set = hair64(700, 1.0, origin, 7 + k as u64);
        let other = hair64(200, 1.0, origin, 70 + k as u64);
        check(&set, &other, 1.0, &format!("hair at origin {k}"));
    }
}

#[test]
fn radii_at_a_pairs_own_distance_are_brute_force() {
    let mut rng = Rng::new(0xd15_7a9ce);
    let o = [500_000.0, 4_990_000.0, 12.0];
    let set = sticks64(&mut rng, 500, 0.5, 6.0, o);
    let other = sticks64(&mut rng, 200, 0.5, 6.0, o);
    let mut radii = Vec::new();
    while radii.len() < 4 {
        let (i, j) = (rng.below(500) as usize, rng.below(500) as usize);
        let c = reference::closest_points_with(&set[i], &set[j], &Options::SEGMENTS);
        if i != j && c.dist2 > 0.0 && c.dist2 < 4.0 {
            radii.push(c.dist2.sqrt());
        }
    }
    for r in radii {
        for radius in [r.next_down(), r, r.next_up()] {
            check(&set, &other, radius, "own distance");
        }
    }
}

#[test]
fn copies_piled_in_one_cell_are_brute_force() {
    let one = Segment64::new([5e6 + 0.25, 5e6, 1.0], [5e6 + 1.0, 5e6 + 0.5, 1.0]);
    let mut set = vec![one; 300];
    set.extend(hair64(300, 0.5, [5e6, 5e6, 0.0], 3));
    set.extend(vec![Segment64::new(one.p1, one.p1); 40]);
    let other = vec![one; 50];
    for radius in [0.0, 0.01, 0.5] {
        check(&set, &other, radius, "piled");
    }
    assert_eq!(
        self_pairs_within(&Segments64::from(&set[..300]), 0.0, SharedEndpoints::Keep).len(),
        300 * 299 / 2
    );
}

#[test]
fn a_scene_moved_by_5e6_has_the_pairs_it_has_at_the_origin() {
    let near = hair64(3000, 1.0, [0.0; 3], 11);
    let far = hair64(3000, 1.0, [5e6, 5e6, 0.0], 11);
    let (sn, sf) = (Segments64::from(&near), Segments64::from(&far));
    let pairs = |hits: &[Hit64]| hits.iter().map(|h| (h.i, h.j)).collect::<Vec<_>>();
    for radius in [0.25, 1.0] {
        let at_origin = self_pairs_within(&sn, radius, SharedEndpoints::Keep);
        let moved = self_pairs_within(&sf, radius, SharedEndpoints::Keep);
        assert!(at_origin.len() > 1000, "{}", at_origin.len());
        assert_eq!(pairs(&moved), pairs(&at_origin), "r {radius}");
        let (a, b) = (sn.view(..2000), sn.view(2000..));
        let (fa, fb) = (sf.view(..2000), sf.view(2000..));
        assert_eq!(
            pairs(&pairs_within(fa, fb, radius)),
            pairs(&pairs_within(a, b, radius)),
            "pairs r {radius}"
        );
    }
    // And the moved scene is brute force (a part of it: brute force is quadratic).
    check(&far[..800], &far[800..1000], 1.0, "moved");
}

#[test]
fn a_set_wider_than_2_to_the_63_is_brute_force() {
    let mut rng = Rng::new(0x2_63);
    let mut set = sticks64(&mut rng, 300, 0.5, 5.0, [0.0; 3]);
    set.extend(sticks64(&mut rng, 100, 0.5, 5.0, [1e30, -1e30, 0.0]));
    set.extend(sticks64(&mut rng, 100, 0.5, 5.0, [-3e25, 0.0, 7e20]));
    set.push(Segment64::new([-1e30, 0.0, 0.0], [1e30, 0.0, 0.0]));
    let other = sticks64(&mut rng, 100, 0.5, 5.0, [1e30, -1e30, 0.0]);
    for radius in [0.0, 0.3, 1e10, 1e100] {
        check(&set, &other, radius, "wide");
    }
}

#[test]
fn non_finite_members_are_left_out() {
    let mut rng = Rng::new(0xbad_0064);
    let mut set = sticks64(&mut rng, 400, 0.5, 4.0, [5e6, 5e6, 0.0]);
    let bad = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY];
    for k in (0..400).step_by(7) {
        let mut s = set[k];
        s.p1[k % 3] = bad[k % 3];
        set[k] = s;
    }
    let other = sticks64(&mut rng, 100, 0.5, 4.0, [5e6, 5e6, 0.0]);
    let finite = |s: &Segment64| s.p0.iter().chain(&s.p1).all(|x| x.is_finite());
    let left_out = set.iter().filter(|s| !finite(s)).count();
    assert_eq!(left_out, 400usize.div_ceil(7));
    for radius in [0.5, 1e300] {
        check(&set, &other, radius, "non-finite");
        let hits = self_pairs_within(&Segments64::from(&set), radius, SharedEndpoints::Keep);
        assert!(!hits.is_empty());
        assert!(
            hits.iter()
                .all(|h| finite(&set[h.i as usize]) && finite(&set[h.j as usize]))
        );
    }
}

#[test]
fn radius_errors_leave_the_output_empty() {
    let set = Segments64::from(&hair64(100, 1.0, [5e6; 3], 5));
    let mut out = vec![Hit64::default(); 2];
    for radius in [-1.0, f64::NAN] {
        let e = self_pairs_within_into(
            &set,
            radius,
            SharedEndpoints::Keep,
            &Options::SEGMENTS,
            &mut out,
        );
        assert!(e.is_err() && out.is_empty());
        let mut called = false;
        let e = for_each_pair_within(&set, &set, radius, &Options::SEGMENTS, |_| called = true);
        assert!(e.is_err() && !called);
    }
}

#[cfg(feature = "rayon")]
#[test]
fn every_thread_count_gives_the_same_lists_and_blocks() {
    use segbatch::sets::{par_for_each_self_pair_within, par_pairs_within, par_self_pairs_within};
    let set = Segments64::from(&hair64(30_000, 1.0, [500_000.0, 4_990_000.0, 0.0], 21));
    let (a, b) = (set.view(..20_000), set.view(20_000..));
    let self_seq = self_pairs_within(&set, 1.0, SharedEndpoints::Keep);
    let pairs_seq = pairs_within(a, b, 1.0);
    let blocks = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut blocks: Vec<Vec<PairHit64>> = Vec::new();
            par_for_each_self_pair_within(
                &set,
                1.0,
                SharedEndpoints::Keep,
                &Options::SEGMENTS,
                |b| blocks.push(b.to_vec()),
            )
            .unwrap();
            (
                par_self_pairs_within(&set, 1.0, SharedEndpoints::Keep),
                par_pairs_within(a, b, 1.0),
                blocks,
            )
        })
    };
    let mut seq_blocks: Vec<Vec<PairHit64>> = Vec::new();
    for_each_self_pair_within(&set, 1.0, SharedEndpoints::Keep, &Options::SEGMENTS, |b| {
        seq_blocks.push(b.to_vec())
    })
    .unwrap();
    assert!(self_seq.len() > 100_000 && !pairs_seq.is_empty());
    for threads in [1, 2, 3, 4] {
        let (s, p, b) = blocks(threads);
        assert_same(&s, &self_seq, &format!("self, {threads} threads"));
        assert_same(&p, &pairs_seq, &format!("pairs, {threads} threads"));
        assert!(b == seq_blocks, "blocks, {threads} threads");
    }
    let mut all: Vec<PairHit64> = seq_blocks.concat();
    all.sort_by_key(|h| (h.i, h.j));
    let compact: Vec<PairHit64> = self_seq.iter().map(|&h| h.into()).collect();
    assert_eq!(all, compact);
}

/// Every form with per-object radii against brute force: the set's own pairs with
/// `radii` (`Radius::Each`), the set against `other` with one radius a query (`Each`) and
/// one a query and one a member (`Sides`).
fn check_radii(set: &[Segment64], other: &[Segment64], radii: &[f64], rb: &[f64], what: &str) {
    check_self(set, Radius64::Each(radii), |i, j| radii[i] + radii[j], what);
    check_pairs(
        set,
        other,
        Radius64::Each(radii),
        |i, _| radii[i],
        &format!("{what} each"),
    );
    let sides = Radius64::Sides(radii, rb);
    check_pairs(
        set,
        other,
        sides,
        |i, j| radii[i] + rb[j],
        &format!("{what} sides"),
    );
}

#[test]
fn per_object_radii_are_brute_force_at_any_offset() {
    let mut rng = Rng::new(0xcab_5064);
    for (k, origin) in [
        [0.0; 3],
        [500_000.0, 4_990_000.0, 0.0],
        [4_510_731.0, 4_510_731.0, 4_487_348.0],
        [1e15, -1e15, 3e14],
    ]
    .into_iter()
    .enumerate()
    {
        let set = sticks64(&mut rng, 400, 0.5, 8.0, origin);
        let other = sticks64(&mut rng, 150, 0.5, 8.0, origin);
        // Zero (bare segments), small and large radii, one infinite.
        let mut radii: Vec<f64> = (0..set.len())
            .map(|i| match i % 5 {
                0 => 0.0,
                4 => rng.range(0.5, 2.0),
                _ => rng.range(0.0, 0.4),
            })
            .collect();
        radii[17] = f64::INFINITY;
        let rb: Vec<f64> = (0..other.len()).map(|_| rng.range(0.0, 0.6)).collect();
        check_radii(&set, &other, &radii, &rb, &format!("origin {k}"));
        // Radii at a pair's own distance, summed: the boundary in f64.
        let c = reference::closest_points_with(&set[1], &other[2], &Options::SEGMENTS);
        let mut at = vec![0.0; set.len()];
        at[1] = c.dist2.sqrt();
        let zero = vec![0.0; other.len()];
        check_radii(
            &set,
            &other,
            &at,
            &zero,
            &format!("origin {k} own distance"),
        );
    }
    // Few objects: the brute-force tiles.
    let set = sticks64(&mut rng, 20, 0.5, 3.0, [5e6; 3]);
    let radii: Vec<f64> = (0..20).map(|_| rng.range(0.0, 0.5)).collect();
    check_radii(&set, &set[..10], &radii, &radii[..10], "few");
}

#[test]
fn radius_lists_are_checked() {
    let set = Segments64::from(&hair64(100, 1.0, [5e6; 3], 5));
    let mut out = vec![Hit64::default(); 2];
    let short = vec![0.5; 99];
    let mut bad = vec![0.5; 100];
    bad[42] = -1.0;
    for radii in [&short, &bad] {
        let e = self_pairs_within_into(
            &set,
            radii,
            SharedEndpoints::Keep,
            &Options::SEGMENTS,
            &mut out,
        );
        assert!(e.is_err() && out.is_empty());
    }
    let e = self_pairs_within_into(
        &set,
        &bad,
        SharedEndpoints::Keep,
        &Options::SEGMENTS,
        &mut out,
    );
    assert_eq!(e, Err(segbatch::Error::InvalidRadius { index: Some(42) }));
    let index = SegmentIndex64::new(&set).unwrap();
    assert!(
        index
            .pairs_within(&set, Radius64::Sides(&bad[..], &short))
            .is_err()
    );
    assert!(index.pairs_within(&set, f64::NAN).is_err());
    let e = pairs_within_into(
        &set,
        &set,
        Radius64::Sides(&short, &short),
        &Options::SEGMENTS,
        &mut out,
    );
    assert!(matches!(e, Err(segbatch::Error::LengthMismatch { .. })) && out.is_empty());
}
