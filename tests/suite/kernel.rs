//! The kernel against the scalar reference, lane by lane, at every lane width (8 and 16:
//! [`Width`]; the build's own and each explicit one).
//!
//! The kernel performs the reference's operations in the same order, fusing exactly the
//! multiply-adds the reference fuses on this build, so on x86_64 the two agree **bit for
//! bit** (s, t, points, squared distance, flags; NaN for non-finite pairs). That is what these
//! tests assert. Where a platform's `min`/`max` could treat signed zeros differently (not
//! x86_64), the documented fallback rule is: distances within `2·ε·S`, flags equal, and `s`,
//! `t` equal within `1e-4` wherever the pair is neither parallel nor degenerate (a unique,
//! well-conditioned minimiser).
//!
//! Inputs: the test kit's hard classes (near-parallel at 1e-1..1e-8 rad, parallel,
//! collinear, tiny and zero lengths, long and skinny, far from the origin, crossing at small
//! angles, extreme scales, non-finite, and all of these scaled by 1e-25 .. 1e25),
//! every hard case rotated through every lane, every length 0..=33, every combination of
//! extents, sub-range views, output selections and the parallel driver.

use proptest::prelude::*;
use segbatch::pairs::{Width, closest_points_into, closest_points_width_into};
use segbatch::{
    Closest, ClosestBatch, Extent, Flags, Options, Outputs, Segment, Segments, Tolerance,
    closest_points, reference,
};
use segbatch_testkit::{pairs, strategy};

const EXTENTS: [Extent; 3] = [Extent::Segment, Extent::Ray, Extent::Line];

/// Asserts that the kernel's result for pair `i` is the reference's.
fn assert_same(i: usize, a: &Segment, b: &Segment, want: &Closest, got: &Closest) {
    let bits = |x: f32| x.to_bits();
    let same = |x: f32, y: f32| bits(x) == bits(y) || (x.is_nan() && y.is_nan());
    // Bit for bit on every target: x86-64 (SSE2, v3, v4) and aarch64 (NEON) alike
    // (docs/architecture.md, "Which builds give the same bits").
    let ok = same(want.s, got.s)
        && same(want.t, got.t)
        && same(want.dist2, got.dist2)
        && want.flags == got.flags
        && (0..3).all(|k| same(want.point_a[k], got.point_a[k]))
        && (0..3).all(|k| same(want.point_b[k], got.point_b[k]));
    assert!(
        ok,
        "pair {i}: kernel differs from reference\n a = {a:?}\n b = {b:?}\n reference {want:?}\n kernel    {got:?}"
    );
}

/// Runs the kernel on the pairs, at the build's width and at each explicit [`Width`], and
/// checks every lane against the reference.
fn check_pairs(pairs: &[(Segment, Segment)], options: &Options) {
    let a: Segments = pairs.iter().map(|p| p.0).collect();
    let b: Segments = pairs.iter().map(|p| p.1).collect();
    let mut out = ClosestBatch::default();
    closest_points_into(&a, &b, options, Outputs::ALL, &mut out).unwrap();
    let mut by_width = Vec::new();
    for width in [Width::X8, Width::X16] {
        let mut o = ClosestBatch::default();
        closest_points_width_into(&a, &b, options, Outputs::ALL, width, &mut o).unwrap();
        by_width.push((width, o));
    }
    for (width, out) in std::iter::once((Width::BUILD, out)).chain(by_width) {
        assert_eq!(out.len(), pairs.len(), "{width:?}");
        assert_eq!(out.s().len(), pairs.len(), "{width:?}");
        assert_eq!(out.t().len(), pairs.len(), "{width:?}");
        assert_eq!(out.dist2().len(), pairs.len(), "{width:?}");
        for (i, (x, y)) in pairs.iter().enumerate() {
            let want = reference::closest_points_with(x, y, options);
            assert_same(i, x, y, &want, &out.get(i).unwrap());
        }
    }
}

// ---------------------------------------------------------------------------------------
// Generators: the test kit's hard classes, and all of them scaled by 10^k, k in -25..=25
// (beyond where the distance bar can hold, which is fine here: kernel and reference must
// still agree bit for bit, including the kernel's rescaling of pairs whose products of four
// lengths would leave f32's range).
// ---------------------------------------------------------------------------------------

fn general() -> impl Strategy<Value = (Segment, Segment)> {
    strategy::general()
}

fn non_finite() -> impl Strategy<Value = (Segment, Segment)> {
    strategy::non_finite()
}

fn extreme_scale() -> impl Strategy<Value = (Segment, Segment)> {
    (strategy::any_unscaled(), -25i32..=25)
        .prop_map(|(pair, k)| pairs::rescale(pair, 10f64.powi(k)))
}

fn any_pair() -> impl Strategy<Value = (Segment, Segment)> {
    prop_oneof![
        2 => extreme_scale(),
        10 => strategy::any_pair(),
    ]
}

fn any_extent() -> impl Strategy<Value = Extent> {
    prop::sample::select(EXTENTS.to_vec())
}

proptest! {
    #[test]
    fn kernel_matches_reference_on_hard_batches(pairs in prop::collection::vec(any_pair(), 0..40)) {
        check_pairs(&pairs, &Options::SEGMENTS);
    }

    #[test]
    fn kernel_matches_reference_for_every_extent(
        pairs in prop::collection::vec(any_pair(), 1..24),
        ea in any_extent(),
        eb in any_extent(),
    ) {
        check_pairs(&pairs, &Options::new(ea, eb));
    }

    #[test]
    fn kernel_matches_reference_with_absolute_tolerance(
        pairs in prop::collection::vec(any_pair(), 1..24),
        eps in prop_oneof![Just(0.0f32), 1e-6..1e-2f32],
    ) {
        check_pairs(&pairs, &Options::SEGMENTS.with_tolerance(Tolerance::absolute(eps)));
    }

    #[test]
    fn finite_lanes_are_unaffected_by_non_finite_neighbours(
        pairs in prop::collection::vec(general(), 8..24),
        bad in prop::collection::vec(non_finite(), 1..8),
        positions in prop::collection::vec(any::<prop::sample::Index>(), 1..8),
    ) {
        let mut mixed = pairs.clone();
        for (pair, pos) in bad.iter().zip(&positions) {
            mixed[pos.index(pairs.len())] = *pair;
        }
        check_pairs(&mixed, &Options::SEGMENTS);
        let a: Segments = mixed.iter().map(|p| p.0).collect();
        let b: Segments = mixed.iter().map(|p| p.1).collect();
        let out = closest_points(&a, &b);
        for (i, (x, y)) in mixed.iter().enumerate() {
            let alone = closest_points(&Segments::from(&[*x]), &Segments::from(&[*y]))
                .get(0)
                .unwrap();
            assert_same(i, x, y, &alone, &out.get(i).unwrap());
            let finite = [x.p0, x.p1, y.p0, y.p1].iter().flatten().all(|c| c.is_finite());
            prop_assert_eq!(finite, !out.flags()[i].contains(Flags::NON_FINITE));
        }
    }

    #[test]
    fn sub_range_views_match(
        pairs in prop::collection::vec(any_pair(), 0..40),
        start in any::<prop::sample::Index>(),
        len in any::<prop::sample::Index>(),
    ) {
        let a: Segments = pairs.iter().map(|p| p.0).collect();
        let b: Segments = pairs.iter().map(|p| p.1).collect();
        let start = start.index(pairs.len() + 1);
        let end = start + len.index(pairs.len() - start + 1);
        let out = closest_points(a.view(start..end), b.view(start..end));
        prop_assert_eq!(out.len(), end - start);
        for (i, (x, y)) in pairs.iter().enumerate().take(end).skip(start) {
            assert_same(i, x, y, &reference::closest_points(x, y), &out.get(i - start).unwrap());
        }
    }
}

/// Hand-picked hard cases, each placed in every lane of a group (and across a group
/// boundary) among ordinary pairs.
fn hard_cases() -> Vec<(Segment, Segment)> {
    let s = Segment::new;
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    vec![
        // Rhodes' thought experiment.
        (s([0., 0., 0.], [1., 0., 0.]), s([1., 0., 1.], [1., 1., 1.])),
        // The 2D tutorial example lifted to z = 0.
        (
            s([4., 7., 0.], [16., 3., 0.]),
            s([1., 1., 0.], [17., 5., 0.]),
        ),
        // Perpendicular, distance 1.
        (s([0., 0., 0.], [2., 0., 0.]), s([1., 1., 0.], [1., 3., 0.])),
        // Zero-length second side, both zero-length.
        (
            s([0., 0., 0.], [2., 0., 0.]),
            s([0.5, 1., 0.], [0.5, 1., 0.]),
        ),
        (
            s([3., 3., 3.], [3., 3., 3.]),
            s([0.5, 1., 0.], [0.5, 1., 0.]),
        ),
        // Parallel overlapping, parallel disjoint, collinear overlapping, antiparallel.
        (
            s([0., 0., 0.], [2., 0., 0.]),
            s([0.5, 1., 0.], [3., 1., 0.]),
        ),
        (s([0., 0., 0.], [1., 0., 0.]), s([2., 1., 0.], [3., 1., 0.])),
        (s([0., 0., 0.], [2., 0., 0.]), s([1., 0., 0.], [3., 0., 0.])),
        (s([0., 0., 0.], [2., 0., 0.]), s([3., 1., 0.], [1., 1., 0.])),
        // Near-parallel at 1e-7 rad, far from the origin.
        (
            s([1e4, 1e4, 0.], [1e4 + 100., 1e4, 0.]),
            s([1e4, 1e4 + 1e-3, 0.], [1e4 + 100., 1e4 + 1e-3 + 1e-5, 0.]),
        ),
        // Tiny segment far away.
        (
            s([1e4, 0., 0.], [1e4 + 1e-3, 0., 0.]),
            s([1e4, 1., 0.], [1e4, 2., 0.]),
        ),
        // Non-finite coordinates.
        (
            s([nan, 0., 0.], [1., 0., 0.]),
            s([0., 1., 0.], [1., 1., 0.]),
        ),
        (
            s([0., 0., 0.], [1., 0., 0.]),
            s([0., 1., inf], [1., 1., 0.]),
        ),
        (
            s([0., 0., 0.], [-inf, 0., 0.]),
            s([0., 1., 0.], [1., 1., 0.]),
        ),
    ]
}

#[test]
fn every_hard_case_in_every_lane() {
    let filler = (
        Segment::new([0.3, -0.2, 0.1], [1.7, 0.4, -0.9]),
        Segment::new([-1.1, 0.8, 0.5], [0.6, -0.3, 1.2]),
    );
    for case in hard_cases() {
        for extent_a in EXTENTS {
            for extent_b in EXTENTS {
                for lane in 0..17 {
                    let mut pairs = vec![filler; 17];
                    pairs[lane] = case;
                    check_pairs(&pairs, &Options::new(extent_a, extent_b));
                }
            }
        }
    }
}

#[test]
fn every_tail_length() {
    let mut state = 0x2545_F491_4F6C_DD1D_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    };
    for n in 0..=33 {
        let pairs: Vec<_> = (0..n)
            .map(|_| {
                (
                    Segment::new([next(), next(), next()], [next(), next(), next()]),
                    Segment::new([next(), next(), next()], [next(), next(), next()]),
                )
            })
            .collect();
        check_pairs(&pairs, &Options::SEGMENTS);
        // Every view ending at the end of the batch: the kernel's own zero-padded tail.
        let a: Segments = pairs.iter().map(|p| p.0).collect();
        let b: Segments = pairs.iter().map(|p| p.1).collect();
        for start in 0..=n {
            let out = closest_points(a.view(start..), b.view(start..));
            for (i, (x, y)) in pairs.iter().enumerate().skip(start) {
                let want = reference::closest_points(x, y);
                assert_same(i, x, y, &want, &out.get(i - start).unwrap());
            }
        }
    }
}

/// The driver's special path (`driver`, "Adaptive paths"): it takes over after a block of
/// 32 groups in which more than four missed the lean path, so long runs of degenerate and
/// parallel pairs (the bench's navigation rays and stress mix) run through it. Every hard
/// case in every lane of a group inside such a run, between runs of ordinary pairs (so the
/// driver switches back and forth), at every width and for every extent pair, one-to-many
/// and capsules too: the reference's bits.
#[test]
fn the_special_path_matches_the_reference() {
    let mut rng = segbatch_testkit::Rng::new(11);
    let run = |rng: &mut segbatch_testkit::Rng, f: pairs::PairFn, n: usize| -> Vec<_> {
        (0..n).map(|_| f(rng)).collect()
    };
    let hard = hard_cases();
    let mut pairs = Vec::new();
    for (k, case) in hard.iter().enumerate() {
        // Ordinary pairs (lean blocks), then special ones (the switch), then the case in
        // lane k % 8 of a group amid them.
        pairs.extend(run(&mut rng, pairs::general, 8 * 40));
        pairs.extend(run(
            &mut rng,
            [pairs::stress_mix, pairs::navigation][k % 2],
            8 * 40 + k % 8,
        ));
        pairs.push(*case);
        pairs.extend(run(&mut rng, pairs::stress_mix, 8 * 8));
    }
    for extent_a in EXTENTS {
        for extent_b in EXTENTS {
            check_pairs(&pairs, &Options::new(extent_a, extent_b));
        }
    }
    // One side against many, and capsules, through their own kernels' special paths.
    let many: Segments = pairs.iter().map(|p| p.1).collect();
    for (k, x) in [pairs[0].0, hard[3].0, pairs::navigation(&mut rng).0]
        .iter()
        .enumerate()
    {
        let options = Options::new(EXTENTS[k], Extent::Segment);
        let mut out = ClosestBatch::default();
        segbatch::pairs::closest_points_one_to_many_into(
            x,
            &many,
            &options,
            Outputs::ALL,
            &mut out,
        )
        .unwrap();
        for (i, y) in many.iter().enumerate() {
            let want = reference::closest_points_with(x, &y, &options);
            assert_same(i, x, &y, &want, &out.get(i).unwrap());
        }
    }
    let a: Segments = pairs.iter().map(|p| p.0).collect();
    let radii = segbatch::pairs::Radii::uniform(0.25, 0.5).unwrap();
    let touch = segbatch::pairs::capsules_touch(&a, &many, radii);
    for (i, (x, y)) in pairs.iter().enumerate() {
        let d2 = reference::closest_points(x, y).dist2;
        assert_eq!(
            touch.get(i),
            Some(d2 <= 0.75 * 0.75),
            "pair {i}: {x:?} {y:?}"
        );
    }
}

#[test]
fn output_selections_store_only_what_was_asked() {
    let pairs = hard_cases();
    let a: Segments = pairs.iter().map(|p| p.0).collect();
    let b: Segments = pairs.iter().map(|p| p.1).collect();
    let all = closest_points(&a, &b);
    let mut out = ClosestBatch::default();
    for outputs in [Outputs::DISTANCE, Outputs::PARAMS, Outputs::ALL] {
        closest_points_into(&a, &b, &Options::SEGMENTS, outputs, &mut out).unwrap();
        // Exactly the asked-for columns are filled, every other column is empty.
        assert_eq!(out.len(), pairs.len());
        assert_eq!(out.t().is_empty(), !outputs.params);
        assert!((0..3).all(|k| out.point_a()[k].is_empty() != outputs.points));
        assert!((0..3).all(|k| out.point_b()[k].is_empty() != outputs.points));
        let same_bits = |x: &[f32], y: &[f32]| {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
        };
        assert!(same_bits(out.dist2(), all.dist2()));
        assert_eq!(out.s().is_empty(), !outputs.params);
        assert_eq!(out.point_a()[0].is_empty(), !outputs.points);
        assert_eq!(out.flags().is_empty(), !outputs.flags);
        if outputs.params {
            assert!(same_bits(out.s(), all.s()) && same_bits(out.t(), all.t()));
        }
        if outputs.flags {
            assert_eq!(out.flags(), all.flags());
        }
    }
}

#[test]
fn into_reuses_buffers_and_resizes() {
    let pairs = hard_cases();
    let a: Segments = pairs.iter().map(|p| p.0).collect();
    let b: Segments = pairs.iter().map(|p| p.1).collect();
    let mut out = ClosestBatch::default();
    assert!(out.is_empty());
    let (opts, all) = (&Options::SEGMENTS, Outputs::ALL);
    closest_points_into(&a, &b, opts, all, &mut out).unwrap();
    let first = out.clone();
    let ptr = out.dist2().as_ptr();
    closest_points_into(a.view(..3), b.view(..3), opts, all, &mut out).unwrap();
    assert_eq!(out.len(), 3);
    assert_eq!(out.dist2().len(), 3);
    closest_points_into(&a, &b, opts, all, &mut out).unwrap();
    assert_eq!(
        out.dist2().as_ptr(),
        ptr,
        "no reallocation once large enough"
    );
    assert_eq!(out.len(), first.len());
    for i in 0..out.len() {
        assert_eq!(out.get(i).unwrap().flags, first.get(i).unwrap().flags);
    }
}

#[test]
fn mismatched_lengths_are_an_error_or_a_documented_panic() {
    let a = Segments::from(&[Segment::default(); 3]);
    let b = Segments::from(&[Segment::default(); 2]);
    let mut fresh = ClosestBatch::default();
    let err =
        closest_points_into(&a, &b, &Options::SEGMENTS, Outputs::ALL, &mut fresh).unwrap_err();
    assert!(err.to_string().contains("expected 3, found 2"), "{err}");
    let mut out = ClosestBatch::default();
    closest_points_into(&a, &a, &Options::SEGMENTS, Outputs::ALL, &mut out).unwrap();
    let before = out.clone();
    assert!(closest_points_into(&a, &b, &Options::SEGMENTS, Outputs::ALL, &mut out).is_err());
    assert_eq!(out, before, "out is left unchanged on error");
    let panic = std::panic::catch_unwind(|| closest_points(&a, &b));
    assert!(panic.is_err());
}

#[cfg(feature = "rayon")]
#[test]
fn parallel_driver_is_bitwise_identical() {
    use segbatch::pairs::{PAR_MIN_PAIRS, par_closest_points, par_closest_points_into};
    let mut state = 0x1234_5678_9ABC_DEF1_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 20) as f32 - 8.0
    };
    let hard = hard_cases();
    for n in [PAR_MIN_PAIRS - 1, PAR_MIN_PAIRS + 13, 3 * PAR_MIN_PAIRS + 5] {
        let mut av = Vec::with_capacity(n);
        let mut bv = Vec::with_capacity(n);
        for i in 0..n {
            if i.is_multiple_of(97) {
                let (x, y) = hard[i % hard.len()];
                av.push(x);
                bv.push(y);
            } else {
                av.push(Segment::new(
                    [next(), next(), next()],
                    [next(), next(), next()],
                ));
                bv.push(Segment::new(
                    [next(), next(), next()],
                    [next(), next(), next()],
                ));
            }
        }
        let (a, b) = (Segments::from(&av), Segments::from(&bv));
        let seq = closest_points(&a, &b);
        let par = par_closest_points(&a, &b);
        assert_eq!(seq.len(), par.len());
        let bits = |x: &[f32]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(seq.dist2()), bits(par.dist2()));
        assert_eq!(bits(seq.s()), bits(par.s()));
        assert_eq!(bits(seq.t()), bits(par.t()));
        assert_eq!(seq.flags(), par.flags());
        for k in 0..3 {
            assert_eq!(bits(seq.point_a()[k]), bits(par.point_a()[k]));
            assert_eq!(bits(seq.point_b()[k]), bits(par.point_b()[k]));
        }
        let mut out = ClosestBatch::default();
        let options = Options::new(Extent::Ray, Extent::Line);
        par_closest_points_into(&a, &b, &options, Outputs::DISTANCE, &mut out).unwrap();
        let mut want = ClosestBatch::default();
        closest_points_into(&a, &b, &options, Outputs::DISTANCE, &mut want).unwrap();
        assert_eq!(bits(out.dist2()), bits(want.dist2()));
    }
}
