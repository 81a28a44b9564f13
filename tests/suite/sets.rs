//! The set queries (pruned by the grid) and the index-pair narrow phase against brute
//! force over the scalar reference: the same pairs, the same values bit for bit, on
//! uniform, clustered, degenerate (all collinear on one axis, all identical), large-
//! coordinate and mixed-length sets, at every tail length, sequential, parallel and
//! streaming.
//!
//! Every check compares all the forms, the parallel ones included, so the file needs the
//! `rayon` feature (on by default); without it, tests/suite/queries.rs still runs the sequential
//! set queries against brute force.
#![cfg(feature = "rayon")]

use segbatch::pairs::*;
use segbatch::planar::*;
use segbatch::sets::*;
use segbatch::*;
use segbatch_testkit::brute::{
    assert_same_hits, same, shares_endpoint, within as brute, within_by,
};
use segbatch_testkit::{Rng, sets};
use std::time::{Duration, Instant};

/// The self query in all its forms against brute force.
fn check_self(set: &[Segment], r: f32, ctx: &str) {
    let s = Segments::from(set);
    let every = brute(set, set, r, &Options::SEGMENTS, true);
    for shared in [SharedEndpoints::Keep, SharedEndpoints::Skip] {
        let want: Vec<Hit> = every
            .iter()
            .copied()
            .filter(|h| {
                shared == SharedEndpoints::Keep
                    || !shares_endpoint(&set[h.i as usize], &set[h.j as usize])
            })
            .collect();
        let ctx = format!("{ctx} r={r} {shared:?}");
        assert_same_hits(&self_pairs_within(&s, r, shared), &want, &ctx);
        assert_same_hits(&par_self_pairs_within(&s, r, shared), &want, &ctx);
        // Streaming: the same hits (compact), the same blocks on any thread count.
        let (mut seq, mut par) = (Vec::new(), Vec::new());
        for_each_self_pair_within(&s, r, shared, &Options::SEGMENTS, |b| seq.push(b.to_vec()))
            .unwrap();
        par_for_each_self_pair_within(&s, r, shared, &Options::SEGMENTS, |b| par.push(b.to_vec()))
            .unwrap();
        assert_eq!(seq, par, "{ctx}: streamed blocks");
        assert_same_compact(seq.concat(), &want, &ctx);
    }
}

/// A against B in all its forms against brute force.
fn check_pairs(a: &[Segment], b: &[Segment], r: f32, ctx: &str) {
    let (sa, sb) = (Segments::from(a), Segments::from(b));
    let want = brute(a, b, r, &Options::SEGMENTS, false);
    let ctx = format!("{ctx} r={r} a={} b={}", a.len(), b.len());
    assert_same_hits(&pairs_within(&sa, &sb, r), &want, &ctx);
    assert_same_hits(&par_pairs_within(&sa, &sb, r), &want, &ctx);
    let (mut seq, mut par) = (Vec::new(), Vec::new());
    for_each_pair_within(&sa, &sb, r, &Options::SEGMENTS, |x| seq.push(x.to_vec())).unwrap();
    par_for_each_pair_within(&sa, &sb, r, &Options::SEGMENTS, |x| par.push(x.to_vec())).unwrap();
    assert_eq!(seq, par, "{ctx}: streamed blocks");
    assert_same_compact(seq.concat(), &want, &ctx);
}

fn assert_same_compact(mut got: Vec<PairHit>, want: &[Hit], ctx: &str) {
    got.sort_by_key(|h| (h.i, h.j));
    let got: Vec<(u32, u32, u32)> = got.iter().map(|h| (h.i, h.j, h.dist2.to_bits())).collect();
    let want: Vec<(u32, u32, u32)> = want.iter().map(|h| (h.i, h.j, h.dist2.to_bits())).collect();
    assert_eq!(got, want, "{ctx}: compact hits");
}

/// Radii that put pairs exactly at the threshold: square roots of squared distances that
/// occur, nudged by one ulp either way, and zero.
fn radii(set: &[Segment], rng: &mut Rng, base: f32) -> Vec<f32> {
    let mut out = vec![0.0, base];
    for _ in 0..2 {
        let (i, j) = (
            rng.below(set.len() as u64) as usize,
            rng.below(set.len() as u64) as usize,
        );
        let d = reference::closest_points(&set[i], &set[j]).dist2;
        if d.is_finite() && d < base * base * 4.0 {
            let r = d.sqrt();
            out.extend([
                r,
                f32::from_bits(r.to_bits() + 1),
                f32::from_bits(r.to_bits().max(1) - 1),
            ]);
        }
    }
    out
}

/// A scene on the half-metre grid, moved by an exact shift into the binade of 4.2e6-8.4e6,
/// where `f32` spaces coordinates 0.5 m apart: every difference the kernel forms is the same
/// as at the origin, so the radius queries (pruned by the grid in the caller's frame) give
/// the same pairs with the same distances and parameters, bit for bit, and the same as brute
/// force there. Segments are at least 3 m long, beyond the degenerate length at these
/// coordinates (`2ε·|A0|`, about 1.7 m).
#[test]
fn radius_queries_are_the_same_far_from_the_origin() {
    let mut rng = Rng::new(29);
    let snap = |x: f32| (2.0 * x).round() / 2.0;
    let scene: Vec<Segment> = (0..2000)
        .map(|_| {
            let c = rng.cube_f32(100.0).map(|x| snap(x + 110.0));
            let d = rng.dir();
            let len = rng.range_f32(3.0, 20.0);
            let p1 = core::array::from_fn(|k| snap(c[k] + len * d[k] as f32).max(0.0));
            Segment::new(c, p1)
        })
        .filter(|s| {
            let d2: f32 = (0..3).map(|k| (s.p1[k] - s.p0[k]).powi(2)).sum();
            d2 >= 9.0
        })
        .collect();
    let shift = [4_900_000.0f32, 5_000_000.0, 4_500_000.0];
    let far: Vec<Segment> = scene
        .iter()
        .map(|s| {
            let mv = |p: [f32; 3]| core::array::from_fn(|k| p[k] + shift[k]);
            Segment::new(mv(s.p0), mv(s.p1))
        })
        .collect();
    // The shift is exact.
    for (a, b) in scene.iter().zip(&far) {
        for (k, &d) in shift.iter().enumerate() {
            assert_eq!(f64::from(b.p0[k]) - f64::from(a.p0[k]), f64::from(d));
            assert_eq!(f64::from(b.p1[k]) - f64::from(a.p1[k]), f64::from(d));
        }
    }
    let key = |h: &Hit| (h.i, h.j, h.dist2.to_bits(), h.s.to_bits(), h.t.to_bits());
    let (near_set, far_set) = (Segments::from(&scene[..]), Segments::from(&far[..]));
    let (half, far_half) = (
        Segments::from(&scene[..scene.len() / 2]),
        Segments::from(&far[..far.len() / 2]),
    );
    let far_index = SegmentIndex::new(&far_set).unwrap();
    for r in [0.0, 0.5, 2.0] {
        let near = self_pairs_within(&near_set, r, SharedEndpoints::Keep);
        let got = self_pairs_within(&far_set, r, SharedEndpoints::Keep);
        assert_eq!(
            got.iter().map(key).collect::<Vec<_>>(),
            near.iter().map(key).collect::<Vec<_>>(),
            "self pairs within {r}"
        );
        if r == 2.0 {
            let want = brute(&far, &far, r, &Options::SEGMENTS, true);
            assert_same_hits(&got, &want, "far, brute force");
        }
        let near_ab = pairs_within(&half, &near_set, r);
        assert!(
            r == 0.0 || near_ab.len() > 100,
            "{} pairs within {r}",
            near_ab.len()
        );
        for got in [
            pairs_within(&far_half, &far_set, r),
            far_index.pairs_within(&far_half, r).unwrap(),
        ] {
            assert_eq!(
                got.iter().map(key).collect::<Vec<_>>(),
                near_ab.iter().map(key).collect::<Vec<_>>(),
                "pairs within {r}"
            );
        }
    }
}

#[test]
fn hair_matches_brute_force() {
    let mut rng = Rng::new(1);
    let r = 0.05;
    let set = sets::hair(1500, r, [0.0; 3], 11);
    for rr in radii(&set, &mut rng, r) {
        check_self(&set, rr, "hair");
        check_pairs(&set[..700], &set[700..], rr, "hair");
    }
}

#[test]
fn grass_matches_brute_force() {
    // A floor of strands: the grid's cells one deep in z, crowded in x and y.
    let r = 0.05;
    let set = sets::grass(1500, r, 14);
    check_self(&set, r, "grass");
    check_pairs(&set[..600], &set[600..], r, "grass");
}

#[test]
fn clustered_matches_brute_force() {
    let r = 0.05;
    let set = sets::clustered(2000, r, 12);
    check_self(&set, r, "clustered");
    check_pairs(&set[..1200], &set[1200..], r, "clustered");
}

#[test]
fn degenerate_sets_match_brute_force() {
    let r = 0.05;
    // Everything collinear on the x axis: one row of cells, every interval overlapping.
    let line = sets::degenerate(1200, r, true, 13);
    check_self(&line, r, "collinear");
    check_pairs(&line[..500], &line[500..], r, "collinear");
    // Everything in one cell: a radius larger than the set.
    let ball = sets::hair(700, 0.05, [0.0; 3], 19);
    check_self(&ball, 4.0 * sets::hair_side(700, 0.05), "one cell");
    check_pairs(
        &ball[..300],
        &ball[300..],
        0.5 * sets::hair_side(700, 0.05),
        "one cell",
    );
    // Everything identical: one cell, every pair a hit at distance 0.
    let same_seg = sets::degenerate(300, r, false, 14);
    check_self(&same_seg, r, "identical");
    check_pairs(&same_seg[..100], &same_seg[100..], 0.0, "identical");
}

#[test]
fn large_coordinates_match_brute_force() {
    // Far from the origin the spheres' rounding inflation matters: f32 spacing at 3e6 is
    // 0.25, five times the radius.
    for (k, origin) in [[1e4, -2e4, 3e3], [3e6, 1e6, -2e6]].into_iter().enumerate() {
        let r = 0.05 * 10f32.powi(k as i32 * 2);
        let set = sets::hair(1000, r, origin, 15 + k as u64);
        check_self(&set, r, "large coordinates");
        check_pairs(&set[..400], &set[400..], r, "large coordinates");
    }
}

/// The tightest case of the radius queries' point-to-segment refinement: B points straight
/// away from A, so A's distance to B's sphere centre is exactly `r` + B's half length, and
/// the radius is the kernel's own distance of the pair (and one ulp either side). Interior
/// and end points of A, lengths from 1e-3 to 1e3 times the gap, near and far from the
/// origin: the pruned forms must report exactly what brute force reports.
#[test]
fn pairs_at_the_radius_survive_the_refinement() {
    let mut rng = Rng::new(23);
    let mut reported = 0;
    for case in 0..400 {
        let origin = [1.0, 1e3, 1e5, 3e6][case % 4];
        let gap = [1e-3f32, 0.05, 1.0, 40.0][(case / 4) % 4];
        let (len_a, len_b) = (
            gap * 10f32.powf(rng.range_f32(-3.0, 3.0)),
            gap * 10f32.powf(rng.range_f32(-3.0, 3.0)),
        );
        let dir = |rng: &mut Rng| {
            let v = rng.cube_f32(1.0);
            let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-3);
            v.map(|x| x / n)
        };
        let da = dir(&mut rng);
        // A unit normal of A: the cross product with a random vector, normalised.
        let v = dir(&mut rng);
        let c = [
            da[1] * v[2] - da[2] * v[1],
            da[2] * v[0] - da[0] * v[2],
            da[0] * v[1] - da[1] * v[0],
        ];
        let cn = c.iter().map(|x| x * x).sum::<f32>().sqrt();
        if cn < 1e-2 {
            continue;
        }
        let n = c.map(|x| x / cn);
        let a0: [f32; 3] = core::array::from_fn(|_| origin + rng.range_f32(-1.0, 1.0) * gap);
        let a1: [f32; 3] = core::array::from_fn(|k| a0[k] + len_a * da[k]);
        let u = [0.0, 1.0, rng.unit_f32()][case % 3];
        let b0: [f32; 3] = core::array::from_fn(|k| a0[k] + u * len_a * da[k] + gap * n[k]);
        let b1: [f32; 3] = core::array::from_fn(|k| b0[k] + len_b * n[k]);
        let set = [Segment::new(a0, a1), Segment::new(b0, b1)];
        let d2 = reference::closest_points(&set[0], &set[1]).dist2;
        let r = d2.sqrt();
        for rr in [
            r,
            f32::from_bits(r.to_bits() + 1),
            f32::from_bits(r.to_bits().max(1) - 1),
        ] {
            check_self(&set, rr, &format!("case {case} origin {origin} gap {gap}"));
            reported += usize::from(d2 <= rr * rr);
        }
    }
    assert!(reported > 400, "only {reported} radii reach their pair");
}

#[test]
fn sticks_end_to_end_along_the_sweep_axis() {
    // Equal sticks on the x axis, each `r` after the previous one: every neighbour is a hit
    // at exactly the radius, with the centres `2·ρ + r` apart on x, the farthest the
    // sweep within a column may reach (near the origin, where the spheres' rounding room
    // is small, it fails if that reach is cut by 0.1%). Shifted copies along y and z put
    // neighbours in the next columns too.
    for (len, r, origin) in [
        (2.0f32, 1.0f32, 0.0f32),
        (0.5, 0.25, 0.0),
        (3.0, 0.5, -7.5),
        (1.0, 1.0, 1e3),
    ] {
        let mut set = Vec::new();
        for k in 0..10 {
            let x0 = origin + (k as f32 - 5.0) * (len + r);
            for (y, z) in [(0.0, 0.0), (r, 0.0), (0.0, r), (r, r), (3.0 * r, 0.0)] {
                set.push(Segment::new([x0, y, z], [x0 + len, y, z]));
            }
        }
        let want = brute(&set, &set, r, &Options::SEGMENTS, true);
        let neighbours = want
            .iter()
            .filter(|h| {
                let (a, b) = (set[h.i as usize], set[h.j as usize]);
                a.p0[1] == b.p0[1] && a.p0[2] == b.p0[2]
            })
            .count();
        assert_eq!(
            neighbours,
            5 * 9,
            "len {len}: the end-to-end pairs are hits"
        );
        check_self(&set, r, &format!("end to end, len {len}"));
    }
}

#[test]
fn mixed_lengths_and_non_finite_match_brute_force() {
    // Hair with a few very long segments (kept aside as big objects), points, and
    // non-finite coordinates (never within any radius).
    let mut rng = Rng::new(16);
    let r = 0.05;
    let mut set = sets::hair(1200, r, [0.0; 3], 17);
    let side = sets::hair_side(1200, r);
    for k in 0..40 {
        let i = rng.below(set.len() as u64) as usize;
        match k % 4 {
            0 => set[i].p1 = set[i].p0,
            1 => set[i].p1[rng.below(3) as usize] = f32::NAN,
            2 => set[i].p0[0] = f32::INFINITY,
            _ => {
                let c = rng.cube_f32(0.5 * side);
                let d = rng.cube_f32(side);
                set[i] = Segment::new(c, [c[0] + d[0], c[1] + d[1], c[2] + d[2]]);
            }
        }
    }
    check_self(&set, r, "mixed");
    check_pairs(&set[..500], &set[500..], r, "mixed");
}

#[test]
fn every_tail_length() {
    let r = 0.3;
    for n in 0..=40 {
        let set = sets::hair(n, r, [0.5; 3], 100 + n as u64);
        check_self(&set, r, &format!("tail n={n}"));
        check_pairs(&set[..n / 3], &set[n / 3..], r, &format!("tail n={n}"));
    }
}

#[test]
fn rays_and_infinite_radius_take_the_brute_force_path() {
    let set = sets::hair(300, 0.1, [0.0; 3], 18);
    let s = Segments::from(&set);
    let o = Options::new(Extent::Ray, Extent::Segment);
    let want = brute(&set, &set, 0.1, &o, true);
    let mut got = Vec::new();
    self_pairs_within_into(&s, 0.1, SharedEndpoints::Keep, &o, &mut got).unwrap();
    assert_same_hits(&got, &want, "rays");
    let all = self_pairs_within(&s, f32::INFINITY, SharedEndpoints::Keep);
    assert_eq!(all.len(), 300 * 299 / 2);
    let mut blocks = 0;
    let bad = for_each_self_pair_within(&s, -1.0, SharedEndpoints::Keep, &o, |_| blocks += 1);
    assert_eq!(
        (bad, blocks),
        (Err(Error::InvalidRadius { index: None }), 0)
    );
}

// ---------------------------------------------------------------------------------------
// Per-object radii: capsules, `distance <= rI + rJ`

/// `f` on a pool of `threads` threads.
fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// Radii for the objects of `set` at scale `r`: zero, tiny, a thousandth, up to `r`, four
/// times `r`, and pairs put exactly at `rI + rJ` (half their distance each, the second
/// nudged by an ulp either way or not at all).
fn object_radii(set: &[Segment], rng: &mut Rng, r: f32) -> Vec<f32> {
    let n = set.len();
    let mut radii: Vec<f32> = (0..n)
        .map(|_| match rng.below(10) {
            0 => 0.0,
            1 => 1e-30,
            2 => 4.0 * r,
            3 => 1e-3 * r,
            _ => rng.range_f32(0.0, r),
        })
        .collect();
    for _ in 0..n / 8 {
        let (i, j) = (rng.below(n as u64) as usize, rng.below(n as u64) as usize);
        let d = reference::closest_points(&set[i], &set[j]).distance();
        if i != j && d.is_finite() && d < 8.0 * r {
            let h = 0.5 * d;
            radii[i] = h;
            radii[j] = match rng.below(3) {
                0 => f32::from_bits(h.to_bits() + 1),
                1 => f32::from_bits(h.to_bits().max(1) - 1),
                _ => h,
            };
        }
    }
    radii
}

/// The self query with per-object radii in all its forms, on one and two threads, against
/// brute force.
fn check_each_self(set: &[Segment], radii: &[f32], ctx: &str) {
    let s = Segments::from(set);
    let o = Options::SEGMENTS;
    let want = within_by(set, set, |i, j| radii[i] + radii[j], &o, true);
    let ctx = format!("{ctx} per-object radii, n={}", set.len());
    assert_same_hits(
        &self_pairs_within(&s, radii, SharedEndpoints::Keep),
        &want,
        &ctx,
    );
    let skip: Vec<Hit> = want
        .iter()
        .copied()
        .filter(|h| !shares_endpoint(&set[h.i as usize], &set[h.j as usize]))
        .collect();
    let mut got = Vec::new();
    self_pairs_within_into(&s, radii, SharedEndpoints::Skip, &o, &mut got).unwrap();
    assert_same_hits(&got, &skip, &format!("{ctx} skip"));
    let mut seq = Vec::new();
    let keep = SharedEndpoints::Keep;
    for_each_self_pair_within(&s, radii, keep, &o, |b| seq.push(b.to_vec())).unwrap();
    for threads in [1, 2] {
        let par = on_threads(threads, || par_self_pairs_within(&s, radii, keep));
        assert_same_hits(&par, &want, &format!("{ctx} {threads} threads"));
        let mut blocks = Vec::new();
        on_threads(threads, || {
            par_for_each_self_pair_within(&s, radii, keep, &o, |b| blocks.push(b.to_vec()))
        })
        .unwrap();
        assert_eq!(blocks, seq, "{ctx}: streamed blocks on {threads} threads");
    }
    assert_same_compact(seq.concat(), &want, &ctx);
}

/// A against B with a radius an object of A (B bare) and with one an object of each side,
/// in all the forms and on an index over B, against brute force.
fn check_each_pairs(a: &[Segment], b: &[Segment], ra: &[f32], rb: &[f32], ctx: &str) {
    let (sa, sb) = (Segments::from(a), Segments::from(b));
    let o = Options::SEGMENTS;
    let index = SegmentIndex::new(&sb).unwrap();
    let ctx = format!("{ctx} per-object radii, a={} b={}", a.len(), b.len());
    let sides = Radius::Sides(ra, rb);
    for (radius, want) in [
        (Radius::Each(ra), within_by(a, b, |i, _| ra[i], &o, false)),
        (sides, within_by(a, b, |i, j| ra[i] + rb[j], &o, false)),
    ] {
        let ctx = format!("{ctx} {}", if radius == sides { "sides" } else { "each" });
        assert_same_hits(&pairs_within(&sa, &sb, radius), &want, &ctx);
        assert_same_hits(&index.pairs_within(&sa, radius).unwrap(), &want, &ctx);
        let mut seq = Vec::new();
        for_each_pair_within(&sa, &sb, radius, &o, |x| seq.push(x.to_vec())).unwrap();
        for threads in [1, 2] {
            let ctx = format!("{ctx} {threads} threads");
            let par = on_threads(threads, || par_pairs_within(&sa, &sb, radius));
            assert_same_hits(&par, &want, &ctx);
            let par = on_threads(threads, || index.par_pairs_within(&sa, radius).unwrap());
            assert_same_hits(&par, &want, &ctx);
            let mut blocks = Vec::new();
            on_threads(threads, || {
                par_for_each_pair_within(&sa, &sb, radius, &o, |x| blocks.push(x.to_vec()))
            })
            .unwrap();
            assert_eq!(blocks, seq, "{ctx}: streamed blocks");
        }
        assert_same_compact(seq.concat(), &want, &ctx);
    }
}

#[test]
fn per_object_radii_match_brute_force() {
    let mut rng = Rng::new(61);
    let r = 0.05;
    let hair = sets::hair(1500, r, [0.0; 3], 62);
    let radii = object_radii(&hair, &mut rng, r);
    check_each_self(&hair, &radii, "hair");
    check_each_pairs(
        &hair[..700],
        &hair[700..],
        &radii[..700],
        &radii[700..],
        "hair",
    );
    let clustered = sets::clustered(1200, r, 63);
    let radii = object_radii(&clustered, &mut rng, r);
    check_each_self(&clustered, &radii, "clustered");
    // Everything collinear, and everything identical (every pair at distance 0, so every
    // pair is a hit whatever the radii, zero included).
    let line = sets::degenerate(800, r, true, 64);
    let radii = object_radii(&line, &mut rng, r);
    check_each_self(&line, &radii, "collinear");
    let same_seg = sets::degenerate(300, r, false, 65);
    let radii = object_radii(&same_seg, &mut rng, r);
    check_each_self(&same_seg, &radii, "identical");
    check_each_pairs(
        &same_seg[..100],
        &same_seg[100..],
        &radii[..100],
        &radii[100..],
        "identical",
    );
}

#[test]
fn per_object_radii_every_tail_length() {
    let mut rng = Rng::new(66);
    let r = 0.3;
    for n in 0..=40 {
        let set = sets::hair(n, r, [0.5; 3], 200 + n as u64);
        let radii = object_radii(&set, &mut rng, r);
        let ctx = format!("tail n={n}");
        check_each_self(&set, &radii, &ctx);
        let k = n / 3;
        check_each_pairs(&set[..k], &set[k..], &radii[..k], &radii[k..], &ctx);
    }
}

#[test]
fn huge_and_tiny_radii_match_brute_force() {
    // A few radii far beyond the set (kept aside as big objects: they meet every finite
    // object), `f32::MAX` (whose sums overflow to +inf) and +inf; every radius tiny or zero;
    // non-finite and degenerate members.
    let mut rng = Rng::new(67);
    let r = 0.05;
    let mut set = sets::hair(700, r, [0.0; 3], 68);
    set[5].p1[1] = f32::NAN;
    set[6].p1 = set[6].p0;
    let mut radii = object_radii(&set, &mut rng, r);
    radii[10] = 1e30;
    radii[11] = f32::MAX;
    radii[12] = f32::INFINITY;
    radii[13] = 3.0 * sets::hair_side(700, r);
    check_each_self(&set, &radii, "huge");
    check_each_pairs(
        &set[..300],
        &set[300..],
        &radii[..300],
        &radii[300..],
        "huge",
    );
    let tiny: Vec<f32> = (0..set.len()).map(|k| [0.0, 1e-38, 1e-45][k % 3]).collect();
    check_each_self(&set, &tiny, "tiny");
    // Points and segments at large coordinates, radii of their own scale.
    let far: Vec<Segment> = sets::hair(500, 2.0, [3e6, -3e6, 1e6], 69);
    let radii = object_radii(&far, &mut rng, 2.0);
    check_each_self(&far, &radii, "far");
}

#[test]
fn one_radius_for_all_is_the_per_object_half() {
    // Radius r for every pair and r/2 for every object name the same pairs with the same
    // values (r/2 + r/2 = r exactly).
    let set = sets::hair(900, 0.05, [0.0; 3], 70);
    let s = Segments::from(&set);
    for r in [0.0f32, 0.05, 0.13] {
        let halves = vec![0.5 * r; set.len()];
        let keep = SharedEndpoints::Keep;
        assert_same_hits(
            &self_pairs_within(&s, &halves, keep),
            &self_pairs_within(&s, r, keep),
            &format!("halves r={r}"),
        );
    }
}

// ---------------------------------------------------------------------------------------
// Index pairs

fn random_pairs(rng: &mut Rng, n: usize, na: usize, nb: usize) -> Vec<(u32, u32)> {
    (0..n)
        .map(|_| (rng.below(na as u64) as u32, rng.below(nb as u64) as u32))
        .collect()
}

fn gather(set: &[Segment], idx: impl Iterator<Item = u32>) -> Segments {
    idx.map(|i| set[i as usize]).collect()
}

/// A set, its batch and per-object radii, for the index-pair tests.
type Side<'s> = (&'s [Segment], &'s Segments, &'s [f32]);

/// The index-pair queries on `n` random pairs for every `n` of `sizes`, against the
/// pairwise queries on the gathered batches, bit for bit.
fn check_indexed(rng: &mut Rng, (a, sa, ra): Side, (b, sb, rb): Side, sizes: &[usize]) {
    for &n in sizes {
        let pairs = random_pairs(rng, n, a.len(), b.len());
        let ga = gather(a, pairs.iter().map(|p| p.0));
        let gb = gather(b, pairs.iter().map(|p| p.1));
        let want = closest_points(&ga, &gb);
        for got in [
            closest_points_indexed(sa, sb, &pairs),
            par_closest_points_indexed(sa, sb, &pairs),
        ] {
            assert_eq!(got.len(), n);
            for k in 0..n {
                let (g, w) = (got.get(k).unwrap(), want.get(k).unwrap());
                assert!(
                    same(g.dist2, w.dist2)
                        && same(g.s, w.s)
                        && same(g.t, w.t)
                        && g.flags == w.flags,
                    "pair {k} of {n}: {g:?} vs {w:?}"
                );
            }
        }
        // Capsules, uniform and per object.
        let uniform = Radii::uniform(0.1, 0.15).unwrap();
        assert_eq!(
            capsules_touch_indexed(sa, sb, &pairs, uniform),
            capsules_touch(&ga, &gb, uniform)
        );
        let (pa, pb): (Vec<f32>, Vec<f32>) = pairs
            .iter()
            .map(|&(i, j)| (ra[i as usize], rb[j as usize]))
            .unzip();
        let per_object = Radii::per_object(ra, rb).unwrap();
        let want_mask = capsules_touch(&ga, &gb, Radii::per_pair(&pa, &pb).unwrap());
        assert_eq!(
            capsules_touch_indexed(sa, sb, &pairs, per_object),
            want_mask
        );
        assert_eq!(
            par_capsules_touch_indexed(sa, sb, &pairs, per_object),
            want_mask
        );
        // Contacts exactly for the touching pairs (not (i, i) of one set), in order, one or
        // two a pair: the reference's manifold bit for bit.
        let contacts = capsule_contacts(sa, sb, &pairs, per_object);
        assert_eq!(contacts, par_capsule_contacts(sa, sb, &pairs, per_object));
        let one_set = std::ptr::eq(sa, sb);
        let touching: Vec<u32> = want_mask
            .iter_ones()
            .filter(|&k| !(one_set && pairs[k].0 == pairs[k].1))
            .map(|k| k as u32)
            .collect();
        let mut reported: Vec<u32> = contacts.iter().map(|c| c.pair).collect();
        reported.dedup();
        assert_eq!(reported, touching);
        let reference: Vec<CapsuleContact> = touching
            .iter()
            .flat_map(|&k| {
                // The contact names its pair's position and its objects.
                let (i, j) = pairs[k as usize];
                let (x, y) = (i as usize, j as usize);
                let m = reference::capsule_contact(&a[x], ra[x], &b[y], rb[y]);
                m.into_iter()
                    .flatten()
                    .map(move |c| CapsuleContact { pair: k, i, j, ..c })
            })
            .collect();
        assert_eq!(contacts, reference);
        for c in &contacts {
            let k = c.pair as usize;
            let len2: f32 = c.normal.iter().map(|x| x * x).sum();
            assert!((len2 - 1.0).abs() < 1e-5, "{c:?}");
            let w = want.get(k).unwrap();
            if contacts.iter().filter(|d| d.pair == c.pair).count() == 1 {
                assert!(same(c.depth, pa[k] + pb[k] - w.dist2.sqrt()), "{c:?}");
            }
        }
    }
}

#[test]
fn indexed_queries_equal_the_gathered_batches() {
    let mut rng = Rng::new(19);
    let a = sets::hair(300, 0.2, [0.0; 3], 20);
    let b = sets::clustered(200, 0.2, 21);
    let (sa, sb) = (Segments::from(&a), Segments::from(&b));
    let ra: Vec<f32> = (0..a.len()).map(|_| rng.range_f32(0.0, 0.3)).collect();
    let rb: Vec<f32> = (0..b.len()).map(|_| rng.range_f32(0.0, 0.3)).collect();
    // From 500 pairs on (as many as the two sets' objects) the gather copies the sets into
    // rows first: every tail length of a group of 8 on both paths.
    let sizes: Vec<usize> = (0..=20)
        .chain([257, 1000, 40_000])
        .chain(500..=508)
        .collect();
    check_indexed(&mut rng, (&a, &sa, &ra), (&b, &sb, &rb), &sizes);
    // One set on both sides (the same columns): one row copy, from 300 pairs on.
    let sizes: Vec<usize> = (290..=310).chain([3000]).collect();
    check_indexed(&mut rng, (&a, &sa, &ra), (&a, &sa, &ra), &sizes);
}

#[test]
fn contact_normals_fall_back_when_the_cores_meet() {
    let set = Segments::from(&[
        Segment::new([-1.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
        Segment::new([0.0, -1.0, 0.0], [0.0, 1.0, 0.0]), // crosses the first at the origin
        Segment::new([0.5, 0.0, 0.0], [3.0, 0.0, 0.0]),  // overlaps the first, collinear
        Segment::new([0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),  // a point on the first
        Segment::new([0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),  // the same point
    ]);
    let radii = Radii::uniform(0.5, 0.25).unwrap();
    let c = capsule_contacts(&set, &set, &[(0, 1), (0, 2), (3, 0), (3, 4), (2, 2)], radii);
    // The collinear overlap has two points, the self pair (2, 2) none.
    assert_eq!(c.len(), 5);
    assert_eq!(
        c.iter().map(|x| x.pair).collect::<Vec<_>>(),
        [0, 1, 1, 2, 3]
    );
    // Crossing: along dA × dB, oriented from B's midpoint towards A's (both at the origin:
    // kept as is).
    assert_eq!(c[0].normal, [0.0, 0.0, 1.0]);
    // Collinear overlap: perpendicular to A, at both ends of the overlap (x = 0.5 and 1).
    let n = c[1].normal;
    assert!(
        n[0] == 0.0 && (n[1] * n[1] + n[2] * n[2] - 1.0).abs() < 1e-6,
        "{n:?}"
    );
    assert_eq!(
        (c[2].normal, c[1].point_a[0], c[2].point_a[0]),
        (n, 0.5, 1.0)
    );
    // A point on a segment: perpendicular to B (A has no direction).
    assert_eq!(c[3].normal[0], 0.0);
    // Two points: +z.
    assert_eq!(c[4].normal, [0.0, 0.0, 1.0]);
    for x in &c {
        assert_eq!(x.depth, 0.75);
    }
}

#[test]
fn index_errors_name_the_pair() {
    let set = Segments::from(&[Segment::new([0.0; 3], [1.0, 0.0, 0.0]); 3]);
    let mut out = ClosestBatch::new();
    let err = closest_points_indexed_into(
        &set,
        &set,
        &[(0, 1), (2, 3)],
        &Options::SEGMENTS,
        Outputs::ALL,
        &mut out,
    );
    assert_eq!(
        err,
        Err(Error::IndexOutOfRange {
            pair: 1,
            index: 3,
            len: 3
        })
    );
    assert_eq!(
        err.unwrap_err().to_string(),
        "index pair 1 names element 3 of a batch of 3"
    );
    let mut contacts = Vec::new();
    let short = [0.5f32; 2];
    let radii = Radii::per_object(&short, &short).unwrap();
    let err = capsule_contacts_into(
        &set,
        &set,
        &[(0, 1)],
        radii,
        &Options::SEGMENTS,
        &mut contacts,
    );
    assert!(matches!(err, Err(Error::LengthMismatch { .. })));
    assert_eq!(
        Radii::per_object(&[0.5, -1.0], &[]),
        Err(Error::InvalidRadius { index: Some(1) })
    );
}

// ---------------------------------------------------------------------------------------
// 2D crossing sets

/// Whether two 2D segments share an end point (both coordinates equal with `==`).
fn shares2<T: PartialEq>(a: [[T; 2]; 2], b: [[T; 2]; 2]) -> bool {
    a.iter().any(|p| b.iter().any(|q| p == q))
}

/// Every meeting pair `i < j` by the scalar reference (`f32` or `f64`), but those that
/// share an end point with `skip`, as (i, j, s bits, kind).
fn brute_crossings<T: PartialEq + Copy>(
    set: &[[[T; 2]; 2]],
    skip: bool,
    decide: impl Fn(usize, usize) -> Option<(u64, Crossing)>,
) -> Vec<(u32, u32, u64, Crossing)> {
    let mut out = Vec::new();
    for i in 0..set.len() {
        for j in i + 1..set.len() {
            if skip && shares2(set[i], set[j]) {
                continue;
            }
            if let Some((s, kind)) = decide(i, j) {
                out.push((i as u32, j as u32, s, kind));
            }
        }
    }
    out
}

/// The crossing set of `set` in every form, both shared-end-point rules and both
/// precisions (the set widened to `f64`), against brute force over the reference of its
/// precision.
fn check_crossings(set: &[Segment2], ctx: &str) {
    let wide: Vec<Segment2_64> = set
        .iter()
        .map(|s| Segment2_64::new(s.p0.map(f64::from), s.p1.map(f64::from)))
        .collect();
    let ends = |s: &Segment2| [s.p0, s.p1];
    let ends64 = |s: &Segment2_64| [s.p0, s.p1];
    for shared in [SharedEndpoints::Keep, SharedEndpoints::Skip] {
        let skip = shared == SharedEndpoints::Skip;
        let ctx = format!("{ctx} {shared:?}");
        let points: Vec<_> = set.iter().map(ends).collect();
        let want = brute_crossings(&points, skip, |i, j| {
            let x = reference::intersect2(&set[i], &set[j]);
            (x.kind != Crossing::Disjoint).then(|| (u64::from(x.s.to_bits()), x.kind))
        });
        check_forms(
            &Segments2::from(set),
            shared,
            &want,
            |h| u64::from(h.s.to_bits()),
            &ctx,
        );
        let points: Vec<_> = wide.iter().map(ends64).collect();
        let want = brute_crossings(&points, skip, |i, j| {
            let x = reference::intersect2(&wide[i], &wide[j]);
            (x.kind != Crossing::Disjoint).then(|| (x.s.to_bits(), x.kind))
        });
        let s64: Segments2<f64> = Segments2::from(&wide);
        check_forms(
            &s64,
            shared,
            &want,
            |h| h.s.to_bits(),
            &format!("{ctx} f64"),
        );
    }
}

/// Every form of the crossing set of `s` against `want` (sorted (i, j, s bits, kind)).
fn check_forms<E: planar::Element>(
    s: &Segments2<E>,
    shared: SharedEndpoints,
    want: &[(u32, u32, u64, Crossing)],
    s_bits: impl Fn(&CrossHit<E>) -> u64,
    ctx: &str,
) {
    let key = |h: &CrossHit<E>| (h.i, h.j, s_bits(h), h.kind);
    let (mut seq, mut par) = (Vec::new(), Vec::new());
    crossing_pairs_into(s, shared, &mut seq).unwrap();
    par_crossing_pairs_into(s, shared, &mut par).unwrap();
    if shared == SharedEndpoints::Keep {
        assert_eq!(crossing_pairs(s), seq, "{ctx}: convenience");
        assert_eq!(par_crossing_pairs(s), seq, "{ctx}: par convenience");
    }
    for (form, got) in [("seq", &seq), ("par", &par)] {
        assert_eq!(
            got.iter().map(key).collect::<Vec<_>>(),
            want,
            "{ctx} {form}"
        );
    }
    let (mut seq, mut par) = (Vec::new(), Vec::new());
    for_each_crossing_pair(s, shared, |b| seq.push(b.to_vec())).unwrap();
    par_for_each_crossing_pair(s, shared, |b| par.push(b.to_vec())).unwrap();
    assert_eq!(seq, par, "{ctx}: streamed blocks");
    let mut streamed: Vec<_> = seq.concat().iter().map(key).collect();
    streamed.sort_by_key(|h| (h.0, h.1));
    assert_eq!(streamed, want, "{ctx}: streamed");
}

/// `n` 2D segments: short random pieces, integer street pieces (exact T-junctions,
/// collinear overlaps, shared ends), points and, with `odd`, non-finite ones, offset by
/// `origin`.
fn roads(n: usize, origin: f32, odd: bool, seed: u64) -> Vec<Segment2> {
    let mut rng = Rng::new(seed);
    let side = (n as f32).sqrt().max(2.0);
    (0..n)
        .map(|_| {
            let o = [
                origin + rng.range_f32(0.0, side),
                origin + rng.range_f32(0.0, side),
            ];
            match rng.below(8) {
                0 | 1 => {
                    let (x, y) = (
                        rng.int(0, side as i64) as f32,
                        rng.int(0, side as i64) as f32,
                    );
                    let len = rng.int(1, 3) as f32;
                    if rng.chance(0.5) {
                        Segment2::new([origin + x, origin + y], [origin + x + len, origin + y])
                    } else {
                        Segment2::new([origin + x, origin + y], [origin + x, origin + y + len])
                    }
                }
                2 => Segment2::new(o, o),
                3 if odd => Segment2::new(o, [f32::NAN, o[1]]),
                _ => {
                    let d = [rng.range_f32(-1.0, 1.0), rng.range_f32(-1.0, 1.0)];
                    Segment2::new(o, [o[0] + d[0], o[1] + d[1]])
                }
            }
        })
        .collect()
}

#[test]
fn crossing_sets_match_brute_force() {
    check_crossings(&roads(1500, 0.0, true, 30), "roads");
    check_crossings(&roads(800, 1e5, false, 31), "far roads");
    check_crossings(&roads(800, 4.99e6, false, 34), "utm roads");
    // Collinear on one line, and identical.
    let line: Vec<Segment2> = (0..600)
        .map(|k| {
            let x = (k % 200) as f32 * 0.5;
            Segment2::new([x, 0.0], [x + 1.0 + (k % 3) as f32, 0.0])
        })
        .collect();
    check_crossings(&line, "collinear");
    check_crossings(&[Segment2::new([0.0, 0.0], [1.0, 1.0]); 200], "identical");
    for n in 0..=40 {
        check_crossings(&roads(n, 0.5, true, 40 + n as u64), &format!("tail n={n}"));
    }
}

#[test]
fn intersect2_indexed_equals_the_gathered_batches() {
    let mut rng = Rng::new(32);
    let set = roads(300, 0.0, true, 33);
    let s = Segments2::from(&set);
    // From 300 pairs on (the set's objects) the gather copies the set into rows first.
    for n in (0..=17).chain(295..=310).chain([5000]) {
        let pairs = random_pairs(&mut rng, n, set.len(), set.len());
        let a: Segments2 = pairs.iter().map(|p| set[p.0 as usize]).collect();
        let b: Segments2 = pairs.iter().map(|p| set[p.1 as usize]).collect();
        let want = intersect2(&a, &b);
        for got in [
            intersect2_indexed(&s, &s, &pairs),
            par_intersect2_indexed(&s, &s, &pairs),
        ] {
            assert_eq!(got.kind(), want.kind());
            let bits = |x: &[f32]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(got.s()), bits(want.s()));
            assert_eq!(bits(got.dist2()), bits(want.dist2()));
        }
    }
}

// ---------------------------------------------------------------------------------------
// The static index: first hits of thick rays, pairs within a radius

/// For every ray, the least `(u, index)` of `reference::first_hit` over all walls.
fn brute_first_hits(
    walls: &[Segment],
    rays: &[Segment],
    r: f32,
    range: f32,
) -> Vec<Option<FirstHit>> {
    rays.iter()
        .map(|ray| {
            let mut best: Option<FirstHit> = None;
            for (j, w) in walls.iter().enumerate() {
                if let Some(mut h) = reference::first_hit(ray, r, range, w) {
                    h.index = j as u32;
                    if best.is_none_or(|b| (h.u, h.index) < (b.u, b.index)) {
                        best = Some(h);
                    }
                }
            }
            best
        })
        .collect()
}

fn hit_bits(h: &Option<FirstHit>) -> Option<(u32, u32, [u32; 3])> {
    h.map(|h| (h.index, h.u.to_bits(), h.point.map(f32::to_bits)))
}

/// Distance from a point to a segment, in f64.
fn point_segment(p: [f64; 3], w: &Segment) -> f64 {
    let (a, b) = (w.p0.map(f64::from), w.p1.map(f64::from));
    let d: [f64; 3] = core::array::from_fn(|k| b[k] - a[k]);
    let dd: f64 = d.iter().map(|x| x * x).sum();
    let t = if dd > 0.0 {
        ((0..3).map(|k| (p[k] - a[k]) * d[k]).sum::<f64>() / dd).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (0..3)
        .map(|k| (p[k] - a[k] - t * d[k]).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// A small set of points (tiny cells) and rays much longer than a cell: the walk would cut
/// each ray into tens of thousands of cell-long pieces (14 s for this test before the
/// index tested such rays as one piece); short rays are still walked piece by piece. Both
/// must give brute force's hits, bit for bit, and fast.
#[test]
fn first_hits_of_long_rays_on_a_small_set_of_points() {
    let mut rng = Rng::new(77);
    let mut walls: Vec<Segment> = (0..300)
        .map(|_| {
            let p = [0.0; 3].map(|_: f32| rng.range_f32(0.0, 1.0));
            Segment::new(p, p)
        })
        .collect();
    walls.push(Segment::new([0.2, 0.5, 0.5], [0.2, 0.5, 0.50001]));
    // Half the rays start anywhere, half just beside a point (for the short ones to hit).
    let rays: Vec<Segment> = (0..1000)
        .map(|k| {
            let mut o = [0.0; 3].map(|_: f32| rng.range_f32(-0.5, 1.5));
            if k % 2 == 1 {
                o = walls[k % 300].p0;
                o[0] += 2e-4;
            }
            let mut d = [0.0; 3].map(|_: f32| rng.range_f32(-1.0, 1.0));
            if k % 2 == 1 {
                d = [-rng.range_f32(0.5, 1.0), 0.05 * d[1], 0.05 * d[2]];
            }
            Segment::new(o, core::array::from_fn(|k| o[k] + d[k]))
        })
        .collect();
    let (ws, rs) = (Segments::from(&walls), Segments::from(&rays));
    let index = SegmentIndex::new(&ws).unwrap();
    // The index's time against brute force's on the same machine, not against the clock:
    // the bound holds on a slow CPU or under emulation (aarch64 in CI) as on a fast one.
    let (mut index_time, mut brute_time) = (Duration::ZERO, Duration::ZERO);
    // Ranges of a few cells (walked) up to twice the set (one piece); radii from zero.
    for (r, range) in [
        (0.05f32, 2.0f32),
        (0.0, 2.0),
        (0.01, 2.0),
        (0.1, 1.0),
        (1e-4, 3e-4),
        (1.5e-4, 1e-4),
    ] {
        let start = Instant::now();
        let want = brute_first_hits(&walls, &rays, r, range);
        brute_time += start.elapsed();
        let start = Instant::now();
        let both = [
            index.first_hits(&rs, r, range).unwrap(),
            index.par_first_hits(&rs, r, range).unwrap(),
        ];
        index_time += start.elapsed();
        for got in both {
            let got: Vec<_> = got.iter().map(hit_bits).collect();
            let want: Vec<_> = want.iter().map(hit_bits).collect();
            assert_eq!(got, want, "r={r} range={range}");
        }
        let hits = want.iter().flatten().count();
        assert!(
            hits >= 20 || r == 0.0,
            "r={r} range={range}: only {hits} hits"
        );
    }
    eprintln!("first hits {index_time:?}, brute force {brute_time:?}");
    assert!(
        index_time < 2 * brute_time,
        "first hits took {index_time:?}, brute force {brute_time:?}"
    );
}

#[test]
fn first_hits_match_brute_force() {
    let side = 30.0;
    let mut walls = sets::walls(1500, side, 50);
    // A few long walls (kept aside from the cells) and odd members.
    walls[3] = Segment::new([0.0, 15.0, 1.5], [30.0, 15.5, 1.5]);
    walls[7] = Segment::new([2.0, 2.0, 1.0], [2.0, 2.0, 1.0]);
    walls[11].p0[1] = f32::NAN;
    let mut rays = sets::rays(700, side, 51);
    rays[0].p1 = rays[0].p0; // no direction
    rays[1].p0[2] = f32::INFINITY;
    let ws = Segments::from(&walls);
    let index = SegmentIndex::new(&ws).unwrap();
    let par_index = SegmentIndex::par_new(&ws).unwrap();
    // In one plane, for the radius-zero rays: their first crossings.
    let flat = |s: &[Segment]| -> Vec<Segment> {
        s.iter()
            .map(|x| Segment::new([x.p0[0], x.p0[1], 1.5], [x.p1[0], x.p1[1], 1.5]))
            .collect()
    };
    let (flat_walls, flat_rays) = (flat(&walls), flat(&rays));
    let flat_ws = Segments::from(&flat_walls);
    let flat_index = SegmentIndex::new(&flat_ws).unwrap();
    for (r, range) in [(0.3f32, 8.0f32), (0.0, 40.0), (1.5, 3.0), (0.2, 0.0)] {
        let (walls, rays, index, par_index) = if r == 0.0 {
            (&flat_walls, &flat_rays, &flat_index, &flat_index)
        } else {
            (&walls, &rays, &index, &par_index)
        };
        for n in [0, 1, 7, 8, 9, 255, 256, 257, rays.len()] {
            let want = brute_first_hits(walls, &rays[..n], r, range);
            let rs = Segments::from(&rays[..n]);
            for got in [
                index.first_hits(&rs, r, range).unwrap(),
                par_index.par_first_hits(&rs, r, range).unwrap(),
            ] {
                let got: Vec<_> = got.iter().map(hit_bits).collect();
                let want: Vec<_> = want.iter().map(hit_bits).collect();
                assert_eq!(got, want, "r={r} range={range} n={n}");
            }
        }
        // The parameter is where the sphere first touches: at u the distance is r, just
        // before it more.
        let hits = index
            .first_hits(&Segments::from(&rays[..]), r, range)
            .unwrap();
        let mut checked = 0;
        for (ray, hit) in rays.iter().zip(&hits) {
            let Some(h) = hit else { continue };
            let at = |u: f64| -> [f64; 3] {
                core::array::from_fn(|k| {
                    f64::from(ray.p0[k]) + u * (f64::from(ray.p1[k]) - f64::from(ray.p0[k]))
                })
            };
            let d = point_segment(at(f64::from(h.u)), &walls[h.index as usize]);
            assert!(
                (d - f64::from(r)).abs() < 1e-4 || h.u == 0.0,
                "{h:?}: distance {d}"
            );
            let p = h.point.map(f64::from);
            assert!(
                point_segment(p, &walls[h.index as usize]) < 1e-4,
                "{h:?}: point off the wall"
            );
            if h.u > 1e-3 {
                let before = at(f64::from(h.u) - 1e-3);
                assert!(walls.iter().all(|w| point_segment(before, w) > f64::from(r) - 1e-4 || w.p0[1].is_nan()));
            }
            checked += 1;
        }
        assert!(
            checked > 50 || range == 0.0,
            "r={r} range={range}: only {checked} hits"
        );
    }
    assert!(index.first_hits(&Segments::from(&rays), -1.0, 5.0).is_err());
    assert!(
        index
            .first_hits(&Segments::from(&rays), 1.0, f32::NAN)
            .is_err()
    );
}

#[test]
fn index_pairs_within_match_brute_force() {
    let walls = sets::walls(900, 20.0, 52);
    let paths = sets::hair(600, 0.5, [10.0, 10.0, 1.5], 53);
    let (ws, ps) = (Segments::from(&walls), Segments::from(&paths));
    let index = SegmentIndex::new(&ws).unwrap();
    for r in [0.0f32, 0.25, 2.0, f32::INFINITY] {
        let want = if r.is_finite() {
            brute(&paths, &walls, r, &Options::SEGMENTS, false)
        } else {
            pairs_within(&ps, &ws, r)
        };
        assert_same_hits(
            &index.pairs_within(&ps, r).unwrap(),
            &want,
            &format!("index r={r}"),
        );
        assert_same_hits(
            &index.par_pairs_within(&ps, r).unwrap(),
            &want,
            &format!("index r={r}"),
        );
    }
}

/// An index over a set with non-finite members takes one radius a member of the whole set
/// (the members it leaves out included) and answers as the set query does, in both
/// precisions.
fn index_with_non_finite_members<E: SetElement + From<f32> + core::fmt::Debug>()
where
    Hit<E>: PartialEq + core::fmt::Debug,
{
    let at = |s: Segment| E::Segment::from([s.p0.map(E::from), s.p1.map(E::from)]);
    let mut members: Vec<Segment> = sets::walls(300, 10.0, 61);
    members[3].p0[1] = f32::NAN;
    members[150].p1[2] = f32::INFINITY;
    let set: Soa<E::Segment, 6, E> = members.iter().map(|&s| at(s)).collect();
    let queries: Soa<E::Segment, 6, E> = sets::hair(200, 0.5, [5.0, 5.0, 1.0], 62)
        .into_iter()
        .map(at)
        .collect();
    let rq: Vec<E> = (0..queries.len())
        .map(|k| E::from(0.1 * (k % 5) as f32))
        .collect();
    let rm: Vec<E> = (0..set.len())
        .map(|k| E::from(0.05 * (k % 7) as f32))
        .collect();
    let index = SegmentIndex::new(&set).unwrap();
    assert_eq!(index.len(), 300);
    for radius in [
        Radius::Sides(&rq[..], &rm[..]),
        Radius::Each(&rq[..]),
        Radius::All(E::from(0.75)),
    ] {
        let want = pairs_within(&queries, &set, radius);
        assert!(!want.is_empty());
        assert_eq!(index.pairs_within(&queries, radius).unwrap(), want);
        assert_eq!(index.par_pairs_within(&queries, radius).unwrap(), want);
    }
}

#[test]
fn index_radii_count_every_member() {
    index_with_non_finite_members::<f32>();
    index_with_non_finite_members::<f64>();
}

/// The index's tree names every pair the kernel reports at the edge of the radius: radii
/// at the distances that occur and one ulp either side, at offsets up to 3e6 and scales from
/// 1e-20 to 1e4, answered as the set query does (12 distances a layout at proptest's
/// default case count, scaling with `PROPTEST_CASES` as [`segbatch_testkit::sweep`] does).
#[test]
fn index_pairs_at_the_radius_edge() {
    let mut rng = Rng::new(71);
    let distances = segbatch_testkit::sweep(12);
    for (offset, scale) in [
        (0.0f32, 1.0f32),
        (1e3, 1e-3),
        (1e5, 1.0),
        (3e6, 4.0),
        (0.0, 1e-20),
        (2e4, 1e4),
    ] {
        let place = |s: Segment| {
            let at = |p: [f32; 3]| p.map(|x| offset + scale * x);
            Segment::new(at(s.p0), at(s.p1))
        };
        let members: Segments = sets::hair(400, 1.0, [0.0; 3], rng.next_u64())
            .into_iter()
            .map(place)
            .collect();
        let queries: Segments = sets::hair(300, 1.0, [0.5; 3], rng.next_u64())
            .into_iter()
            .map(place)
            .collect();
        let index = SegmentIndex::new(&members).unwrap();
        let near = pairs_within(&queries, &members, 2.0 * scale);
        for h in near.iter().step_by(near.len() / distances + 1) {
            let d = h.dist2.sqrt();
            for r in [d.next_down(), d, d.next_up()] {
                let ctx = format!("offset {offset} scale {scale} r {r:e}");
                assert_eq!(
                    index.pairs_within(&queries, r).unwrap(),
                    pairs_within(&queries, &members, r),
                    "{ctx}"
                );
            }
        }
    }
}
