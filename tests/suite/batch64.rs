//! The batched `f64` queries against the `f64` scalar reference, lane by lane, **bit for
//! bit** (`closest_points` runs the one kernel body over `f64x4`, or `f64x8` with
//! `avx512f`, with the reference's operation order; non-finite pairs compare as NaN).
//!
//! Inputs: the test kit's `f64` hard classes (`pairs64`: widened `f32` classes, near-parallel
//! to 1e-15 rad, collinear, degenerate, tiny 1e-200, huge 1e200, 1e12 from the origin, a tiny
//! side against a huge far one, NaN and infinities), each class rotated through every lane
//! of two groups among ordinary pairs for every extent pair; every batch length 0..=20 with
//! every view ending at the batch's end (the driver's zero-padded tail); output selections;
//! the parallel forms against the sequential ones. One-to-many: every class as the one side
//! against mixed batches of every length 0..=20, every extent pair. The radius queries
//! (`pairs_within`, `self_pairs_within`) against brute force over the reference, across
//! a tile boundary, with shared end points skipped or kept, and their parallel forms.

use segbatch::pairs::{
    ClosestBatch64, closest_points, closest_points_into, closest_points_one_to_many,
    closest_points_one_to_many_into,
};
use segbatch::sets::{
    Hit64, SharedEndpoints, pairs_within, pairs_within_into, self_pairs_within_into,
};
use segbatch::{Closest64, Extent, Flags, Options, Outputs, Segment64, Segments64, reference};
use segbatch_testkit::Rng;
use segbatch_testkit::pairs::{navigation, stress_mix};
use segbatch_testkit::pairs64::{CLASSES64, Pair64, any64, general, widen};

const EXTENTS: [Extent; 3] = [Extent::Segment, Extent::Ray, Extent::Line];

/// The same bits, or both NaN.
fn same(x: f64, y: f64) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

/// Asserts that result `got` of pair `i` is the reference's `want`, bit for bit.
fn assert_same(i: usize, (a, b): &Pair64, options: &Options, want: &Closest64, got: &Closest64) {
    let ok = same(want.s, got.s)
        && same(want.t, got.t)
        && same(want.dist2, got.dist2)
        && want.flags == got.flags
        && (0..3).all(|k| same(want.point_a[k], got.point_a[k]))
        && (0..3).all(|k| same(want.point_b[k], got.point_b[k]));
    assert!(
        ok,
        "pair {i} {options:?}: kernel differs from reference\n a = {a:?}\n b = {b:?}\n reference {want:?}\n kernel    {got:?}"
    );
}

/// Runs `closest_points_into` on the pairs and checks every lane against the reference.
fn check_pairs(pairs: &[Pair64], options: &Options) {
    let a: Segments64 = pairs.iter().map(|p| p.0).collect();
    let b: Segments64 = pairs.iter().map(|p| p.1).collect();
    let mut out = ClosestBatch64::new();
    closest_points_into(&a, &b, options, Outputs::ALL, &mut out).unwrap();
    assert_eq!(out.len(), pairs.len());
    assert_eq!(out.s().len(), pairs.len());
    assert_eq!(out.point_b()[2].len(), pairs.len());
    for (i, pair) in pairs.iter().enumerate() {
        let want = reference::closest_points_with(&pair.0, &pair.1, options);
        assert_same(i, pair, options, &want, &out.get(i).unwrap());
    }
    assert_eq!(out.get(pairs.len()), None);
}

/// An ordinary pair (no special lane) for the other lanes of a group.
const FILLER: Pair64 = (
    Segment64::new([0.3, -0.2, 0.1], [1.7, 0.4, -0.9]),
    Segment64::new([-1.1, 0.8, 0.5], [0.6, -0.3, 1.2]),
);

#[test]
fn every_class_in_every_lane_for_every_extent() {
    let mut rng = Rng::new(0xf64_1a9e);
    for class in CLASSES64 {
        for _ in 0..6 {
            let case = (class.pair)(&mut rng);
            for extent_a in EXTENTS {
                for extent_b in EXTENTS {
                    let options = Options::new(extent_a, extent_b);
                    // Lanes 0..=16: every lane of two 8-lane groups (four 4-lane ones) and
                    // the tail.
                    for lane in 0..17 {
                        let mut pairs = vec![FILLER; 17];
                        pairs[lane] = case;
                        check_pairs(&pairs, &options);
                    }
                }
            }
        }
    }
}

/// The driver's special path (`driver`, "Adaptive paths"), which takes over after a block
/// of 32 groups in which more than four missed the lean path: every class in every lane of
/// a group amid long runs of the bench's stress mix and navigation rays (widened exactly
/// to `f64`), between runs of ordinary pairs so the driver switches back and forth.
#[test]
fn the_special_path_matches_the_reference() {
    let mut rng = Rng::new(0xf64_5bec);
    let widen = |(a, b): segbatch_testkit::Pair| (widen(&a), widen(&b));
    let mut pairs: Vec<Pair64> = Vec::new();
    for (k, class) in CLASSES64.iter().enumerate() {
        for lane in 0..8 {
            pairs.extend((0..8 * 40).map(|_| general(&mut rng)));
            let special = [stress_mix, navigation][(k + lane) % 2];
            pairs.extend((0..8 * 40 + lane).map(|_| widen(special(&mut rng))));
            pairs.push((class.pair)(&mut rng));
            pairs.extend((0..8 * 8).map(|_| widen(stress_mix(&mut rng))));
        }
    }
    for extent_a in EXTENTS {
        for extent_b in EXTENTS {
            check_pairs(&pairs, &Options::new(extent_a, extent_b));
        }
    }
}

#[test]
fn mixed_hard_batches_for_every_extent() {
    let mut rng = Rng::new(0xf64_3a11);
    for round in 0..300 {
        let n = rng.below(40) as usize;
        let pairs: Vec<Pair64> = (0..n).map(|_| any64(&mut rng)).collect();
        let extent = |k: u64| EXTENTS[(k % 3) as usize];
        check_pairs(&pairs, &Options::new(extent(round), extent(round / 3)));
    }
}

#[test]
fn every_tail_length_and_every_view_to_the_end() {
    let mut rng = Rng::new(0xf64_7a17);
    for n in 0..=20 {
        let pairs: Vec<Pair64> = (0..n)
            .map(|i| {
                if i % 3 == 0 {
                    any64(&mut rng)
                } else {
                    general(&mut rng)
                }
            })
            .collect();
        for (ea, eb) in [
            (Extent::Segment, Extent::Segment),
            (Extent::Ray, Extent::Line),
        ] {
            let options = Options::new(ea, eb);
            check_pairs(&pairs, &options);
            let a: Segments64 = pairs.iter().map(|p| p.0).collect();
            let b: Segments64 = pairs.iter().map(|p| p.1).collect();
            let mut out = ClosestBatch64::new();
            for start in 0..=n {
                closest_points_into(
                    a.view(start..),
                    b.view(start..),
                    &options,
                    Outputs::ALL,
                    &mut out,
                )
                .unwrap();
                assert_eq!(out.len(), n - start);
                for (i, pair) in pairs.iter().enumerate().skip(start) {
                    let want = reference::closest_points_with(&pair.0, &pair.1, &options);
                    assert_same(i, pair, &options, &want, &out.get(i - start).unwrap());
                }
            }
        }
    }
}

#[test]
fn non_finite_lanes_leave_their_neighbours_alone() {
    let mut rng = Rng::new(0xf64_0bad);
    let nan = CLASSES64.iter().find(|c| !c.finite).unwrap();
    for _ in 0..200 {
        let mut pairs: Vec<Pair64> = (0..19).map(|_| general(&mut rng)).collect();
        let k = rng.below(19) as usize;
        pairs[k] = (nan.pair)(&mut rng);
        let a: Segments64 = pairs.iter().map(|p| p.0).collect();
        let b: Segments64 = pairs.iter().map(|p| p.1).collect();
        let out = closest_points(&a, &b);
        for (i, pair) in pairs.iter().enumerate() {
            let alone = closest_points(&Segments64::from(&[pair.0]), &Segments64::from(&[pair.1]));
            let got = out.get(i).unwrap();
            assert_same(i, pair, &Options::SEGMENTS, &alone.get(0).unwrap(), &got);
            assert_eq!(got.flags.contains(Flags::NON_FINITE), i == k, "pair {i}");
        }
    }
}

#[test]
fn output_selections_store_only_what_was_asked() {
    let mut rng = Rng::new(0xf64_5e1e);
    let pairs: Vec<Pair64> = (0..29).map(|_| any64(&mut rng)).collect();
    let a: Segments64 = pairs.iter().map(|p| p.0).collect();
    let b: Segments64 = pairs.iter().map(|p| p.1).collect();
    let all = closest_points(&a, &b);
    let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    let mut out = ClosestBatch64::new();
    for outputs in [
        Outputs::DISTANCE,
        Outputs::PARAMS,
        Outputs::ALL,
        Outputs {
            params: false,
            points: true,
            flags: false,
        },
    ] {
        closest_points_into(&a, &b, &Options::SEGMENTS, outputs, &mut out).unwrap();
        assert_eq!(out.len(), pairs.len());
        assert_eq!(bits(out.dist2()), bits(all.dist2()));
        assert_eq!(out.s().is_empty(), !outputs.params);
        assert_eq!(out.t().is_empty(), !outputs.params);
        assert_eq!(out.flags().is_empty(), !outputs.flags);
        assert!((0..3).all(|k| out.point_a()[k].is_empty() != outputs.points));
        assert!((0..3).all(|k| out.point_b()[k].is_empty() != outputs.points));
        if outputs.params {
            assert_eq!(bits(out.s()), bits(all.s()));
            assert_eq!(bits(out.t()), bits(all.t()));
        }
        if outputs.points {
            for k in 0..3 {
                assert_eq!(bits(out.point_a()[k]), bits(all.point_a()[k]));
                assert_eq!(bits(out.point_b()[k]), bits(all.point_b()[k]));
            }
        }
        if outputs.flags {
            assert_eq!(out.flags(), all.flags());
        }
        // A column that was not computed reads as NaN in `get`.
        if !outputs.params {
            assert!(out.get(0).unwrap().s.is_nan());
        }
    }
    let distances: Vec<f64> = all.distances().collect();
    assert_eq!(
        bits(&distances),
        bits(&all.dist2().iter().map(|d| d.sqrt()).collect::<Vec<_>>())
    );
}

#[test]
fn batches_convert_and_mismatched_lengths_are_an_error() {
    let mut rng = Rng::new(0xf64_c01);
    let segs: Vec<Segment64> = (0..11).map(|_| general(&mut rng).0).collect();
    let batch = Segments64::from(&segs);
    assert_eq!(batch.iter().collect::<Vec<_>>(), segs);
    let cols = batch.columns();
    assert_eq!(Segments64::from_columns(cols).unwrap(), batch);
    let flat: Vec<f64> = segs
        .iter()
        .flat_map(|s| s.p0.into_iter().chain(s.p1))
        .collect();
    assert_eq!(Segments64::from_flat(&flat).unwrap(), batch);
    assert!(Segments64::from_flat(&flat[1..]).is_err());
    let mut pushed = Segments64::new();
    for s in &segs {
        pushed.push(*s);
    }
    assert_eq!(pushed, batch);
    assert_eq!(batch.view(3..7).iter().collect::<Vec<_>>(), segs[3..7]);

    let short = Segments64::from(&segs[..10]);
    let mut out = ClosestBatch64::new();
    closest_points_into(&batch, &batch, &Options::SEGMENTS, Outputs::ALL, &mut out).unwrap();
    let before = out.clone();
    let err = closest_points_into(&batch, &short, &Options::SEGMENTS, Outputs::ALL, &mut out)
        .unwrap_err();
    assert!(err.to_string().contains("expected 11, found 10"), "{err}");
    assert_eq!(out, before, "out is left unchanged on error");
    assert!(std::panic::catch_unwind(|| closest_points(&batch, &short)).is_err());
}

#[cfg(feature = "rayon")]
#[test]
fn parallel_forms_are_bitwise_the_sequential_ones() {
    use segbatch::pairs::{PAR_MIN_PAIRS, par_closest_points, par_closest_points_into};
    let mut rng = Rng::new(0xf64_9a7a);
    let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    for n in [PAR_MIN_PAIRS - 1, PAR_MIN_PAIRS + 13, 3 * PAR_MIN_PAIRS + 5] {
        let pairs: Vec<Pair64> = (0..n)
            .map(|i| {
                if i % 37 == 0 {
                    any64(&mut rng)
                } else {
                    general(&mut rng)
                }
            })
            .collect();
        let a: Segments64 = pairs.iter().map(|p| p.0).collect();
        let b: Segments64 = pairs.iter().map(|p| p.1).collect();
        let seq = closest_points(&a, &b);
        let par = par_closest_points(&a, &b);
        assert_eq!(seq.len(), par.len());
        assert_eq!(bits(seq.dist2()), bits(par.dist2()));
        assert_eq!(bits(seq.s()), bits(par.s()));
        assert_eq!(bits(seq.t()), bits(par.t()));
        assert_eq!(seq.flags(), par.flags());
        for k in 0..3 {
            assert_eq!(bits(seq.point_a()[k]), bits(par.point_a()[k]));
            assert_eq!(bits(seq.point_b()[k]), bits(par.point_b()[k]));
        }
        let options = Options::new(Extent::Ray, Extent::Line);
        let (mut want, mut got) = (ClosestBatch64::new(), ClosestBatch64::new());
        closest_points_into(
            a.view(1..),
            b.view(1..),
            &options,
            Outputs::PARAMS,
            &mut want,
        )
        .unwrap();
        par_closest_points_into(
            a.view(1..),
            b.view(1..),
            &options,
            Outputs::PARAMS,
            &mut got,
        )
        .unwrap();
        assert_eq!(bits(got.dist2()), bits(want.dist2()));
        assert_eq!(bits(got.s()), bits(want.s()));
        assert_eq!(bits(got.t()), bits(want.t()));
        assert_eq!(got.flags(), want.flags());
        for i in (0..n - 1).step_by(997) {
            let w = reference::closest_points_with(&pairs[i + 1].0, &pairs[i + 1].1, &options);
            assert!(
                same(w.dist2, got.dist2()[i]) && same(w.s, got.s()[i]),
                "pair {i}"
            );
        }
    }
}

#[test]
fn one_to_many_is_the_reference_for_every_class_extent_and_length() {
    let mut rng = Rng::new(0xf64_0e2a);
    let mut out = ClosestBatch64::new();
    for class in CLASSES64 {
        for n in 0..=20 {
            let one = (class.pair)(&mut rng).0;
            let many: Vec<Segment64> = (0..n).map(|_| any64(&mut rng).1).collect();
            let batch = Segments64::from(&many);
            for extent_a in EXTENTS {
                for extent_b in EXTENTS {
                    let options = Options::new(extent_a, extent_b);
                    closest_points_one_to_many_into(
                        &one,
                        batch.view(n / 3..),
                        &options,
                        Outputs::ALL,
                        &mut out,
                    )
                    .unwrap();
                    assert_eq!(out.len(), n - n / 3);
                    for (j, b) in many.iter().enumerate().skip(n / 3) {
                        let want = reference::closest_points_with(&one, b, &options);
                        let got = out.get(j - n / 3).unwrap();
                        assert_same(j, &(one, *b), &options, &want, &got);
                    }
                }
            }
        }
    }
    let one = general(&mut rng).0;
    let batch: Segments64 = (0..13).map(|_| general(&mut rng).1).collect();
    let all = closest_points_one_to_many(&one, &batch);
    for (j, b) in batch.iter().enumerate() {
        assert_eq!(all.get(j), Some(reference::closest_points(&one, &b)));
    }
}

#[cfg(feature = "rayon")]
#[test]
fn parallel_one_to_many_is_bitwise_the_sequential() {
    use segbatch::pairs::{PAR_MIN_PAIRS, par_closest_points_one_to_many};
    use segbatch_testkit::pairs64::near_parallel;
    let mut rng = Rng::new(0xf64_0e2b);
    let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    let n = 2 * PAR_MIN_PAIRS + 3;
    let many: Segments64 = (0..n)
        .map(|i| {
            if i % 41 == 0 {
                any64(&mut rng).1
            } else {
                general(&mut rng).1
            }
        })
        .collect();
    let one = near_parallel(&mut rng).0;
    let seq = closest_points_one_to_many(&one, &many);
    let par = par_closest_points_one_to_many(&one, &many);
    assert_eq!(bits(seq.dist2()), bits(par.dist2()));
    assert_eq!(bits(seq.s()), bits(par.s()));
    assert_eq!(bits(seq.t()), bits(par.t()));
    assert_eq!(seq.flags(), par.flags());
    for k in 0..3 {
        assert_eq!(bits(seq.point_a()[k]), bits(par.point_a()[k]));
        assert_eq!(bits(seq.point_b()[k]), bits(par.point_b()[k]));
    }
}

/// Brute force over the `f64` reference: every pair `(i, j)` (`j > i` when `upper`) within
/// `radius`, sorted, with the reference's values.
fn brute_within(
    a: &[Segment64],
    b: &[Segment64],
    radius: f64,
    options: &Options,
    upper: bool,
    skip_shared: bool,
) -> Vec<Hit64> {
    let mut hits = Vec::new();
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            if upper && j <= i {
                continue;
            }
            let shared = [x.p0, x.p1].iter().any(|p| *p == y.p0 || *p == y.p1);
            let c = reference::closest_points_with(x, y, options);
            if c.dist2 <= radius * radius && !(skip_shared && shared) {
                hits.push(Hit64 {
                    i: u32::try_from(i).expect("at most u32::MAX objects"),
                    j: u32::try_from(j).expect("at most u32::MAX objects"),
                    dist2: c.dist2,
                    s: c.s,
                    t: c.t,
                });
            }
        }
    }
    hits
}

/// A set of `n` segments of the `f64` classes moved into a box of side `spread` (so that
/// some pairs are close), a few sharing end points, a few non-finite.
fn cluster(rng: &mut Rng, n: usize, spread: f64) -> Vec<Segment64> {
    let mut set: Vec<Segment64> = Vec::with_capacity(n);
    for k in 0..n {
        let s = if k % 5 == 4 && k > 0 {
            // the next piece of a path: shares an end point with the previous one
            let p = set[k - 1].p1;
            Segment64::new(p, [p[0] + rng.sym(), p[1] + rng.sym(), p[2]])
        } else {
            let (x, _) = any64(rng);
            let o = [rng.sym(), rng.sym(), rng.sym()].map(|c| c * spread);
            let size =
                x.p0.iter()
                    .chain(&x.p1)
                    .fold(0f64, |m, c| m.max(c.abs()))
                    .max(1e-300);
            let fit = |p: [f64; 3]| [0, 1, 2].map(|d| o[d] + p[d] / size);
            if size.is_finite() {
                Segment64::new(fit(x.p0), fit(x.p1))
            } else {
                x
            }
        };
        set.push(s);
    }
    set
}

/// The two lists are the same, bit for bit.
fn assert_same_hits(got: &[Hit64], want: &[Hit64], what: &str) {
    let key = |h: &Hit64| (h.i, h.j, h.dist2.to_bits(), h.s.to_bits(), h.t.to_bits());
    assert_eq!(got.len(), want.len(), "{what}: hit count");
    for (g, w) in got.iter().zip(want) {
        assert_eq!(key(g), key(w), "{what}: {g:?} vs {w:?}");
    }
}

#[test]
fn pairs_within_is_brute_force_over_the_reference() {
    let mut rng = Rng::new(0xf64_5e75);
    let mut out = Vec::new();
    for (na, nb) in [(0, 5), (5, 0), (1, 1), (7, 20), (20, 13), (3, 600)] {
        let a = cluster(&mut rng, na, 2.0);
        let b = cluster(&mut rng, nb, 2.0);
        let (sa, sb) = (Segments64::from(&a), Segments64::from(&b));
        for (ea, eb) in [
            (Extent::Segment, Extent::Segment),
            (Extent::Ray, Extent::Segment),
            (Extent::Line, Extent::Line),
        ] {
            let options = Options::new(ea, eb);
            for radius in [0.0, 0.3, 1.5, f64::INFINITY] {
                pairs_within_into(&sa, &sb, radius, &options, &mut out).unwrap();
                let want = brute_within(&a, &b, radius, &options, false, false);
                assert_same_hits(&out, &want, &format!("{na}x{nb} {options:?} r {radius}"));
            }
        }
    }
    let a = cluster(&mut rng, 9, 1.0);
    assert_eq!(
        pairs_within(&Segments64::from(&a), &Segments64::from(&a), 0.5),
        brute_within(&a, &a, 0.5, &Options::SEGMENTS, false, false)
    );
    assert!(
        pairs_within_into(
            &Segments64::new(),
            &Segments64::new(),
            -1.0,
            &Options::SEGMENTS,
            &mut out
        )
        .is_err()
    );
}

#[test]
fn self_pairs_within_is_brute_force_over_the_reference() {
    let mut rng = Rng::new(0xf64_5e1f);
    let mut out = Vec::new();
    for n in [0, 1, 2, 9, 20, 530] {
        let set = cluster(&mut rng, n, 3.0);
        let batch = Segments64::from(&set);
        for (ea, eb) in [
            (Extent::Segment, Extent::Segment),
            (Extent::Ray, Extent::Line),
        ] {
            let options = Options::new(ea, eb);
            for shared in [SharedEndpoints::Keep, SharedEndpoints::Skip] {
                let skip = shared == SharedEndpoints::Skip;
                for radius in [0.0, 0.4] {
                    self_pairs_within_into(&batch, radius, shared, &options, &mut out).unwrap();
                    let want = brute_within(&set, &set, radius, &options, true, skip);
                    assert_same_hits(
                        &out,
                        &want,
                        &format!("{n} {options:?} {shared:?} r {radius}"),
                    );
                }
            }
        }
    }
    assert!(
        self_pairs_within_into(
            &Segments64::new(),
            f64::NAN,
            SharedEndpoints::Keep,
            &Options::SEGMENTS,
            &mut out
        )
        .is_err()
    );
}

#[cfg(feature = "rayon")]
#[test]
fn parallel_radius_queries_are_the_sequential_lists() {
    use segbatch::pairs::PAR_MIN_PAIR_TESTS;
    use segbatch::sets::{par_pairs_within, par_self_pairs_within, self_pairs_within};
    let mut rng = Rng::new(0xf64_9a5e);
    let n = 800;
    assert!(n * n / 2 >= PAR_MIN_PAIR_TESTS);
    let set = cluster(&mut rng, n, 6.0);
    let batch = Segments64::from(&set);
    let par = par_self_pairs_within(&batch, 0.3, SharedEndpoints::Skip);
    let want = brute_within(&set, &set, 0.3, &Options::SEGMENTS, true, true);
    assert!(!want.is_empty());
    assert_same_hits(&par, &want, "par self");
    assert_same_hits(
        &self_pairs_within(&batch, 0.3, SharedEndpoints::Skip),
        &want,
        "self",
    );
    let other = Segments64::from(&cluster(&mut rng, 700, 6.0));
    let seq = pairs_within(&batch, &other, 0.3);
    assert!(!seq.is_empty());
    assert_same_hits(&par_pairs_within(&batch, &other, 0.3), &seq, "par pairs");
}
