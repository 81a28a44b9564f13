//! The set queries at their limits: streamed blocks never larger than
//! [`MAX_BLOCK_HITS`] whatever the set's layout (collinear, identical, dense, brute-force
//! tiles), collected outputs that cannot be allocated refused with
//! [`Error::OutOfMemory`], extreme extents and radii answered (never a panic) and equal to
//! brute force, pairs whose squared distance leaves `f32`'s range decided in `f64`,
//! non-finite members counted, and a sink that stops ending even a huge query at once.
#![cfg(feature = "rayon")]

use segbatch::planar::*;
use segbatch::sets::*;
use segbatch::*;
use segbatch_testkit::Rng;
use segbatch_testkit::brute::{assert_same_hits, within as brute};
use std::ops::ControlFlow;

/// Every block of a streamed call within the cap; the blocks (sequential) and their total.
fn bounded<H: Clone>(
    run: impl FnOnce(&mut dyn FnMut(&[H])) -> Result<(), Error>,
) -> (Vec<Vec<H>>, usize) {
    let mut blocks = Vec::new();
    let mut total = 0;
    run(&mut |b: &[H]| {
        assert!(!b.is_empty(), "an empty block");
        assert!(b.len() <= MAX_BLOCK_HITS, "a block of {} hits", b.len());
        total += b.len();
        blocks.push(b.to_vec());
    })
    .unwrap();
    (blocks, total)
}

/// Self pairs streamed sequentially and in parallel: bounded, the same blocks; the total.
fn self_total(set: &Segments, r: f32, options: &Options) -> usize {
    let keep = SharedEndpoints::Keep;
    let (seq, total) = bounded(|sink| for_each_self_pair_within(set, r, keep, options, sink));
    let (par, _) = bounded(|sink| par_for_each_self_pair_within(set, r, keep, options, sink));
    assert!(seq == par, "parallel blocks differ");
    total
}

#[test]
fn blocks_stay_bounded_on_collinear_identical_and_dense_sets() {
    let o = Options::SEGMENTS;
    // 100K unit sticks along one line, 0.25 apart: each meets the 4 after it within 0.
    let line: Segments = (0..100_000)
        .map(|k| {
            let x = 0.25 * k as f32;
            Segment::new([x, 0.0, 0.0], [x + 1.0, 0.0, 0.0])
        })
        .collect();
    assert_eq!(self_total(&line, 0.0, &o), 4 * 100_000 - 10);
    // 1200 copies of one segment at radius 0: every pair (11 blocks).
    let same: Segments = vec![Segment::new([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]); 1200]
        .iter()
        .copied()
        .collect();
    assert_eq!(self_total(&same, 0.0, &o), 1200 * 1199 / 2);
    // The same copies against themselves as two sets.
    let (blocks, total) = bounded(|sink| par_for_each_pair_within(&same, &same, 0.0, &o, sink));
    assert_eq!((total, blocks.len() > 1), (1200 * 1200, true));
    // A dense plane: 10K random points of a 10 x 10 square, radius 1 (about 3% each).
    let mut rng = Rng::new(26);
    let plane: Vec<Segment> = (0..10_000)
        .map(|_| {
            let p = [10.0 * (rng.unit() as f32), 10.0 * (rng.unit() as f32), 0.0];
            Segment::new(p, p)
        })
        .collect();
    let dense = Segments::from(&plane[..]);
    let want = brute(&plane[..2000], &plane[..2000], 1.0, &o, true).len();
    assert_eq!(self_total(&Segments::from(&plane[..2000]), 1.0, &o), want);
    assert!(self_total(&dense, 1.0, &o) > 20 * MAX_BLOCK_HITS);
    // The brute-force tiles: rays (unbounded) and an infinite radius.
    let rays = Options::new(Extent::Ray, Extent::Ray);
    assert_eq!(self_total(&same, 0.0, &rays), 1200 * 1199 / 2);
    let few = Segments::from(&plane[..1500]);
    assert_eq!(self_total(&few, f32::INFINITY, &o), 1500 * 1499 / 2);
    let (_, total) = bounded(|sink| par_for_each_pair_within(&few, &few, f32::INFINITY, &o, sink));
    assert_eq!(total, 1500 * 1500);
    // 2D: 1200 copies of one segment all overlap, 2000 crossing streets all cross.
    let copies = Segments2::from(&vec![Segment2::new([0.0, 0.0], [1.0, 1.0]); 1200]);
    let (seq, total) = bounded(|sink| for_each_crossing_pair(&copies, SharedEndpoints::Keep, sink));
    let (par, _) = bounded(|sink| par_for_each_crossing_pair(&copies, SharedEndpoints::Keep, sink));
    assert!(seq == par);
    assert_eq!(total, 1200 * 1199 / 2);
    let streets: Segments2 = (0..2000)
        .map(|k| {
            let c = (k % 1000) as f32;
            if k < 1000 {
                Segment2::new([-1.0, c], [1000.0, c])
            } else {
                Segment2::new([c, -1.0], [c, 1000.0])
            }
        })
        .collect();
    let (_, total) =
        bounded(|sink| par_for_each_crossing_pair(&streets, SharedEndpoints::Keep, sink));
    assert_eq!(total, 1000 * 1000);
}

/// The blocks a streamed call hands a sink that stops after `k` of them (checked: exactly
/// `k`, each within the cap, none after the stop).
fn first_blocks<H: Clone>(
    k: usize,
    run: impl FnOnce(&mut dyn FnMut(&[H]) -> ControlFlow<()>) -> Result<(), Error>,
) -> Vec<Vec<H>> {
    let mut blocks: Vec<Vec<H>> = Vec::new();
    run(&mut |b: &[H]| {
        assert!(blocks.len() < k, "a block after the sink stopped");
        assert!(
            !b.is_empty() && b.len() <= MAX_BLOCK_HITS,
            "a block of {}",
            b.len()
        );
        blocks.push(b.to_vec());
        if blocks.len() == k {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .unwrap();
    assert_eq!(blocks.len(), k);
    blocks
}

#[test]
fn a_sink_that_stops_ends_a_huge_query_at_once() {
    // 30K copies of one segment at radius 0: 4.5e8 pairs, 9e8 as two sets, 4.5e8
    // crossings in 2D. A sink that stops after a few blocks gets exactly those, the same
    // on one thread and on all, and the call returns without computing the rest (which
    // would take minutes).
    let (o, keep) = (Options::SEGMENTS, SharedEndpoints::Keep);
    let one = Segment::new([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]);
    let same: Segments = std::iter::repeat_n(one, 30_000).collect();
    let seq = first_blocks(3, |sink| {
        for_each_self_pair_within(&same, 0.0, keep, &o, sink)
    });
    let par = first_blocks(3, |sink| {
        par_for_each_self_pair_within(&same, 0.0, keep, &o, sink)
    });
    assert!(seq == par, "parallel blocks differ");
    assert!(
        seq.concat()
            .iter()
            .all(|h| h.i < h.j && h.j < 30_000 && h.dist2 == 0.0)
    );
    let seq = first_blocks(2, |sink| for_each_pair_within(&same, &same, 0.0, &o, sink));
    let par = first_blocks(2, |sink| {
        par_for_each_pair_within(&same, &same, 0.0, &o, sink)
    });
    assert!(seq == par, "parallel blocks differ");
    // The brute-force tiles: rays, and an infinite radius.
    let rays = Options::new(Extent::Ray, Extent::Ray);
    first_blocks(2, |sink| {
        par_for_each_self_pair_within(&same, 0.0, keep, &rays, sink)
    });
    first_blocks(1, |sink| {
        for_each_self_pair_within(&same, 0.0, keep, &rays, sink)
    });
    let inf = f32::INFINITY;
    first_blocks(2, |sink| {
        par_for_each_pair_within(&same, &same, inf, &o, sink)
    });
    let copies = Segments2::from(&vec![Segment2::new([0.0, 0.0], [1.0, 1.0]); 30_000]);
    let seq = first_blocks(3, |sink| {
        for_each_crossing_pair(&copies, SharedEndpoints::Keep, sink)
    });
    let par = first_blocks(3, |sink| {
        par_for_each_crossing_pair(&copies, SharedEndpoints::Keep, sink)
    });
    assert!(seq == par, "parallel blocks differ");

    // On a query small enough to run to the end, the blocks before the stop are the
    // first blocks of the whole stream, whatever block it stops at.
    let small: Segments = std::iter::repeat_n(one, 1500).collect();
    let (all, _) = bounded(|sink| for_each_self_pair_within(&small, 0.0, keep, &o, sink));
    assert!(all.len() > 10, "{} blocks", all.len());
    for k in [1, 2, all.len() / 2, all.len()] {
        let seq = first_blocks(k, |sink| {
            for_each_self_pair_within(&small, 0.0, keep, &o, sink)
        });
        let par = first_blocks(k, |s| {
            par_for_each_self_pair_within(&small, 0.0, keep, &o, s)
        });
        assert!(
            seq[..] == all[..k] && par[..] == all[..k],
            "stopped after {k}"
        );
    }
}

#[test]
fn streamed_blocks_hold_the_collected_hits() {
    // Small crowded sets, streamed in several blocks, against the collected list and
    // brute force (the blocks' order is the grid's; sorted they are the list).
    let o = Options::SEGMENTS;
    let same = vec![Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]); 700];
    let line: Vec<Segment> = (0..3000)
        .map(|k| {
            Segment::new(
                [k as f32 * 0.01, 0.0, 0.0],
                [k as f32 * 0.01 + 1.0, 0.0, 0.0],
            )
        })
        .collect();
    for (set, r) in [(&same, 0.0), (&line, 0.0), (&line, 0.5)] {
        let s = Segments::from(&set[..]);
        let want = brute(set, set, r, &o, true);
        assert!(want.len() > MAX_BLOCK_HITS, "{} hits", want.len());
        assert_same_hits(
            &par_self_pairs_within(&s, r, SharedEndpoints::Keep),
            &want,
            "par",
        );
        let keep = SharedEndpoints::Keep;
        let (blocks, _) = bounded(|sink| for_each_self_pair_within(&s, r, keep, &o, sink));
        let mut got: Vec<PairHit> = blocks.concat();
        got.sort_by_key(|h| (h.i, h.j));
        let key = |i: u32, j: u32, d: f32| (i, j, d.to_bits());
        let got: Vec<_> = got.iter().map(|h| key(h.i, h.j, h.dist2)).collect();
        let want: Vec<_> = want.iter().map(|h| key(h.i, h.j, h.dist2)).collect();
        assert_eq!(got, want);
    }
}

#[test]
fn outputs_that_cannot_be_allocated_are_refused() {
    // 2^23 points (one column for all six coordinates): the matrix would take 2^48 bytes.
    let column = vec![0.0f32; 1 << 23];
    let points = SegmentsView::from_columns([&column[..]; 6]).unwrap();
    let refused = Err(Error::OutOfMemory {
        what: "dist2_matrix output",
        elements: 1 << 46,
    });
    let mut out = vec![1.0f32; 8];
    assert_eq!(
        dist2_matrix_into(points, points, &Options::SEGMENTS, &mut out),
        refused
    );
    assert!(out.is_empty());
    let mut out = vec![1.0f32; 8];
    assert_eq!(
        par_dist2_matrix_into(points, points, &Options::SEGMENTS, &mut out),
        refused
    );
    assert!(out.is_empty());
    // The convenience form panics with the error's message.
    let msg = std::panic::catch_unwind(|| dist2_matrix(points, points)).unwrap_err();
    let msg = msg.downcast_ref::<String>().unwrap();
    assert!(msg.contains("out of memory"), "{msg}");
}

/// Brute force (sequential and parallel), the grid and the streamed forms agree on `set`.
fn same_everywhere(set: &[Segment], r: f32, ctx: &str) {
    let o = Options::SEGMENTS;
    let s = Segments::from(set);
    let keep = SharedEndpoints::Keep;
    let want = brute(set, set, r, &o, true);
    let ctx = format!("{ctx} r={r}");
    assert_same_hits(&self_pairs_within(&s, r, keep), &want, &ctx);
    assert_same_hits(&par_self_pairs_within(&s, r, keep), &want, &ctx);
    let (blocks, total) = bounded(|sink| for_each_self_pair_within(&s, r, keep, &o, sink));
    assert_eq!(total, want.len(), "{ctx}");
    drop(blocks);
    let (half, rest) = set.split_at(set.len() / 2);
    let want = brute(half, rest, r, &o, false);
    let (a, b) = (Segments::from(half), Segments::from(rest));
    assert_same_hits(&pairs_within(&a, &b, r), &want, &ctx);
    let rays = Options::new(Extent::Segment, Extent::Ray);
    let want = brute(half, rest, r, &rays, false);
    let mut got = Vec::new();
    pairs_within_into(&a, &b, r, &rays, &mut got).unwrap();
    assert_same_hits(&got, &want, &ctx);
}

#[test]
fn extreme_extents_and_radii_are_answered() {
    let m = f32::MAX;
    let mut rng = Rng::new(7);
    let mut set = vec![
        // A wall across the whole f32 range, and others at its ends.
        Segment::new([-m, 0.0, 0.0], [m, 0.0, 0.0]),
        Segment::new([0.0, -m, -m], [0.0, m, m]),
        Segment::new([m, m, m], [m, m, m]),
        Segment::new([-m, -m, -m], [-m, -m, 3.0e38]),
        Segment::new([3.4e38, 0.0, 0.0], [3.4e38, 1.0, 0.0]),
        Segment::new([1e-40, 0.0, 0.0], [0.0, 1e-40, 0.0]),
        Segment::new([f32::NAN, 0.0, 0.0], [1.0, 0.0, 0.0]),
        Segment::new([0.0, 0.0, f32::INFINITY], [1.0, 0.0, 0.0]),
    ];
    // Ordinary members near the origin and far out.
    for k in 0..60 {
        let scale = [1.0, 1e20, 1e38][k % 3];
        let p: [f32; 3] = core::array::from_fn(|_| scale * (2.0 * (rng.unit() as f32) - 1.0));
        let d: [f32; 3] = core::array::from_fn(|_| scale * ((rng.unit() as f32) - 0.5));
        set.push(Segment::new(p, core::array::from_fn(|c| p[c] + d[c])));
    }
    for r in [0.0, 1.0, 1e19, 1e30, 3.0e38, m, f32::INFINITY] {
        same_everywhere(&set, r, "extreme");
    }
    // Many members too long for any cell (more than 1% of the set).
    let walls: Vec<Segment> = (0..40)
        .map(|k| {
            let y = k as f32 * 1e37;
            Segment::new([-m, y, 0.0], [m, y, 0.0])
        })
        .chain((0..40).map(|k| Segment::new([k as f32, 0.0, 0.0], [k as f32, 1.0, 0.0])))
        .collect();
    for r in [0.0, 0.5, 1e37] {
        same_everywhere(&walls, r, "walls");
    }
    // The index and the crossing set take the same walls.
    assert!(SegmentIndex::new(&Segments::from(&set[..])).is_ok());
    let flat: Vec<Segment2> = set
        .iter()
        .map(|s| Segment2::new([s.p0[0], s.p0[1]], [s.p1[0], s.p1[1]]))
        .collect();
    let key = |h: &CrossHit| (h.i, h.j, h.s.to_bits(), h.kind);
    let all = Segments2::from(&flat[..]);
    let got: Vec<_> = par_crossing_pairs(&all).iter().map(key).collect();
    let (blocks, _) = bounded(|sink| for_each_crossing_pair(&all, SharedEndpoints::Keep, sink));
    let mut streamed: Vec<_> = blocks.concat().iter().map(key).collect();
    streamed.sort_by_key(|h| (h.0, h.1));
    assert_eq!(streamed, got);
    // Against brute force where `intersect2`'s products stay finite (coordinates up to
    // 1e18; beyond, its own decisions overflow, whoever names the candidates).
    let modest: Vec<Segment2> = flat
        .iter()
        .copied()
        .filter(|s| s.p0.iter().chain(&s.p1).all(|x| x.abs() <= 1e18))
        .collect();
    let mut want = Vec::new();
    for i in 0..modest.len() {
        for j in i + 1..modest.len() {
            let x = reference::intersect2(&modest[i], &modest[j]);
            if x.kind != Crossing::Disjoint {
                want.push((i as u32, j as u32, x.s.to_bits(), x.kind));
            }
        }
    }
    let got: Vec<_> = crossing_pairs(&Segments2::from(&modest[..]))
        .iter()
        .map(key)
        .collect();
    assert_eq!(got, want);
}

#[test]
fn pairs_whose_dist2_leaves_f32_are_decided_in_f64() {
    // Parallel pieces 1e-38 apart: their dist2 (1e-76) underflows to 0.
    let tiny = [
        Segment::new([0.0, 0.0, 0.0], [1e-30, 0.0, 0.0]),
        Segment::new([0.0, 1e-38, 0.0], [1e-30, 1e-38, 0.0]),
    ];
    // Points 1e25 and 1e35 from the first: their dist2 overflows to +inf.
    let far = [
        Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
        Segment::new([0.0, 1e25, 0.0], [1.0, 1e25, 0.0]),
        Segment::new([0.0, 1e35, 0.0], [1.0, 1e35, 0.0]),
    ];
    let pairs = |set: &[Segment], r: f32| -> Vec<(u32, u32)> {
        let s = Segments::from(set);
        let hits = self_pairs_within(&s, r, SharedEndpoints::Keep);
        let (blocks, _) = bounded(|sink| {
            for_each_self_pair_within(&s, r, SharedEndpoints::Keep, &Options::SEGMENTS, sink)
        });
        assert_eq!(blocks.concat().len(), hits.len());
        let rays = Options::new(Extent::Ray, Extent::Segment);
        let mut tiles = Vec::new();
        self_pairs_within_into(&s, r, SharedEndpoints::Keep, &rays, &mut tiles).unwrap();
        let key = |h: &Hit| (h.i, h.j);
        assert_eq!(
            tiles.iter().map(key).collect::<Vec<_>>(),
            hits.iter().map(key).collect::<Vec<_>>(),
            "the brute-force tiles decide the same way"
        );
        hits.iter().map(key).collect()
    };
    assert_eq!(pairs(&tiny, 1e-45), vec![]);
    assert_eq!(pairs(&tiny, 2e-38), vec![(0, 1)]);
    assert_eq!(pairs(&tiny, 0.0), vec![]);
    assert_eq!(pairs(&far, 1e30), vec![(0, 1)]);
    assert_eq!(pairs(&far, 2e35), vec![(0, 1), (0, 2), (1, 2)]);
    // The rule, pair by pair.
    let c = reference::closest_points(&tiny[0], &tiny[1]);
    assert!(c.flags.contains(Flags::DIST2_OUT_OF_RANGE) && c.dist2 == 0.0);
    assert!(!within_radius(&tiny[0], &tiny[1], &c, 1e-45));
    let c = reference::closest_points(&far[0], &far[2]);
    assert!(c.flags.contains(Flags::DIST2_OUT_OF_RANGE) && c.dist2 == f32::INFINITY);
    assert!(!within_radius(&far[0], &far[2], &c, 1e30));
}

#[test]
fn non_finite_members_are_counted() {
    let mut set: Vec<Segment> = (0..100)
        .map(|k| Segment::new([k as f32, 0.0, 0.0], [k as f32, 1.0, 0.0]))
        .collect();
    set[3].p0[1] = f32::NAN;
    set[50].p1[2] = f32::NEG_INFINITY;
    set[99].p0[0] = f32::INFINITY;
    let s = Segments::from(&set[..]);
    assert_eq!(count_non_finite(&s), 3);
    assert_eq!(count_non_finite(s.view(..50)), 1);
    let hits = self_pairs_within(&s, 1.0, SharedEndpoints::Keep);
    assert!(
        hits.iter()
            .all(|h| ![3, 50, 99].contains(&h.i) && ![3, 50, 99].contains(&h.j))
    );
    assert_eq!(hits.len(), 99 - 2 * 3 + 1);
}
