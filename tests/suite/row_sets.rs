//! The row-aware set queries (`crossing_rows*`, `rows_within*`) against brute force over
//! the piece queries: random polylines (GPS-like tracks, some closed into rings, some with
//! repeated vertices, many rows meeting only at a shared vertex), at the origin and at UTM
//! and ECEF offsets. Every row pair equals the brute-force row pairs; `RowAnswer::Least`
//! reports exactly the least-ranked piece hit of each row pair; every thread count gives
//! the same list; the streamed form gives the same row pairs.
#![cfg(feature = "rayon")]

use segbatch::planar::{
    CrossHit, Segment2_64, Segments2, crossing_pairs, crossing_rows, crossing_rows_between_into,
    crossing_rows_into, for_each_crossing_row, par_crossing_rows_between_into,
    par_crossing_rows_into,
};
use segbatch::sets::{
    Hit, RowAnswer, RowHit, SetElement, SharedEndpoints, for_each_row_within, pairs_within,
    par_rows_within_into, rows_within_between_into, rows_within_into, self_pairs_within,
};
use segbatch::{Segment, Segment64, Segments, Segments64, Soa};
use segbatch_testkit::Rng;
use std::collections::{BTreeMap, BTreeSet};

/// Random-walk polylines of 2 to 8 vertices (steps of about `step`), on a 1/8 grid so that
/// vertices repeat and rows touch at shared vertices; a quarter closed into rings, some
/// with a repeated vertex, a few sharing a vertex of an earlier row: the pieces and their
/// rows.
fn tracks(
    seed: u64,
    rows: u32,
    side: f64,
    step: f64,
    origin: [f64; 2],
) -> (Vec<[f64; 4]>, Vec<u32>) {
    let mut rng = Rng::new(seed);
    let q = |x: f64| (x * 8.0).round() / 8.0;
    let (mut pieces, mut row_of) = (Vec::new(), Vec::new());
    let mut starts: Vec<[f64; 2]> = Vec::new();
    for r in 0..rows {
        let n = rng.int(2, 8) as usize;
        let mut p = if !starts.is_empty() && rng.chance(0.15) {
            rng.pick(&starts)
        } else {
            [q(rng.range(0.0, side)), q(rng.range(0.0, side))]
        };
        let first = p;
        starts.push(p);
        let mut verts = vec![p];
        for _ in 1..n {
            if !rng.chance(0.1) {
                p = [q(p[0] + rng.sym() * step), q(p[1] + rng.sym() * step)];
            }
            verts.push(p);
        }
        if rng.chance(0.25) {
            verts.push(first);
        }
        for w in verts.windows(2) {
            let (a, b) = (w[0], w[1]);
            pieces.push([
                a[0] + origin[0],
                a[1] + origin[1],
                b[0] + origin[0],
                b[1] + origin[1],
            ]);
            row_of.push(r);
        }
    }
    (pieces, row_of)
}

fn set2(pieces: &[[f64; 4]]) -> Segments2<f64> {
    pieces
        .iter()
        .map(|p| Segment2_64::new([p[0], p[1]], [p[2], p[3]]))
        .collect()
}

fn set3(pieces: &[[f64; 4]]) -> Segments64 {
    pieces
        .iter()
        .map(|p| Segment64::new([p[0], p[1], 0.0], [p[2], p[3], 0.0]))
        .collect()
}

/// The least-ranked piece hit of each row pair (squared distance, then piece pair), from
/// the piece hits `(i, j, dist2)` and the rows; within one set pairs of one row left out.
fn brute_rows(
    hits: impl Iterator<Item = (u32, u32, f64)>,
    ra: &[u32],
    rb: Option<&[u32]>,
) -> BTreeMap<(u32, u32), (u64, u32, u32)> {
    let mut best = BTreeMap::new();
    for (i, j, d) in hits {
        let (a, b) = match rb {
            Some(rb) => (ra[i as usize], rb[j as usize]),
            None => {
                let (x, y) = (ra[i as usize], ra[j as usize]);
                if x == y {
                    continue;
                }
                (x.min(y), x.max(y))
            }
        };
        let rank = (d.to_bits(), i, j);
        let e = best.entry((a, b)).or_insert(rank);
        if rank < *e {
            *e = rank;
        }
    }
    best
}

fn pairs_of<H>(hits: &[RowHit<H>]) -> Vec<(u32, u32)> {
    hits.iter().map(|h| (h.a, h.b)).collect()
}

fn check_cross(pieces: &[[f64; 4]], rows: &[u32], what: &str) {
    let set = set2(pieces);
    let piece_hits = crossing_pairs(&set);
    let want = brute_rows(piece_hits.iter().map(|h| (h.i, h.j, 0.0)), rows, None);
    let want_pairs: Vec<_> = want.keys().copied().collect();
    assert!(!want_pairs.is_empty(), "{what}: no row pairs meet");
    let got = crossing_rows(&set, rows);
    assert_eq!(pairs_of(&got), want_pairs, "{what}: Any");
    let lookup: BTreeMap<(u32, u32), &CrossHit<f64>> =
        piece_hits.iter().map(|h| ((h.i, h.j), h)).collect();
    for h in &got {
        assert_eq!(
            Some(&&h.hit),
            lookup.get(&(h.hit.i, h.hit.j)),
            "{what}: Any's hit is a piece hit"
        );
    }
    let mut least = Vec::new();
    crossing_rows_into(&set, rows, RowAnswer::Least, &mut least).unwrap();
    assert_eq!(pairs_of(&least), want_pairs, "{what}: Least");
    for h in &least {
        let (_, i, j) = want[&(h.a, h.b)];
        assert_eq!((h.hit.i, h.hit.j), (i, j), "{what}: Least's piece pair");
        assert_eq!(&h.hit, lookup[&(i, j)], "{what}: Least's values");
    }
    let mut par = Vec::new();
    par_crossing_rows_into(&set, rows, RowAnswer::Least, &mut par).unwrap();
    assert_eq!(par, least, "{what}: parallel Least");
    par_crossing_rows_into(&set, rows, RowAnswer::Any, &mut par).unwrap();
    assert_eq!(par, got, "{what}: parallel Any");
    let mut streamed = BTreeSet::new();
    for_each_crossing_row(&set, rows, RowAnswer::Any, |b| streamed.extend(pairs_of(b))).unwrap();
    assert_eq!(
        streamed.into_iter().collect::<Vec<_>>(),
        want_pairs,
        "{what}: streamed"
    );
}

#[test]
fn crossing_rows_are_brute_force_at_any_offset() {
    for (k, origin) in [
        [0.0, 0.0],
        [500_000.0, 5_000_000.0],
        [4_500_000.0, 1_200_000.0],
    ]
    .into_iter()
    .enumerate()
    {
        let (pieces, rows) = tracks(7 + k as u64, 3000, 2000.0, 30.0, origin);
        check_cross(&pieces, &rows, &format!("origin {origin:?}"));
    }
}

#[test]
fn rows_meeting_only_at_a_shared_vertex_meet() {
    // Row 0 ends where row 1 starts; row 2 passes through a vertex of row 3; row 4 meets
    // itself only (a closed ring) and row 5 is one repeated vertex on row 0.
    let pieces = [
        [0.0, 0.0, 1.0, 0.0],
        [1.0, 0.0, 2.0, 1.0],
        [2.0, 1.0, 3.0, 1.0],
        [5.0, 5.0, 6.0, 6.0],
        [6.0, 6.0, 7.0, 5.0],
        [5.0, 7.0, 6.0, 6.0],
        [6.0, 6.0, 7.0, 7.0],
        [10.0, 10.0, 11.0, 10.0],
        [11.0, 10.0, 10.0, 11.0],
        [10.0, 11.0, 10.0, 10.0],
        [0.5, 0.0, 0.5, 0.0],
    ];
    let rows = [0, 0, 1, 2, 2, 3, 3, 4, 4, 4, 5];
    let got = crossing_rows(&set2(&pieces), &rows);
    assert_eq!(pairs_of(&got), vec![(0, 1), (0, 5), (2, 3)]);
    let mut h = Vec::new();
    rows_within_into(&set3(&pieces), &rows, 0.0, RowAnswer::Least, &mut h).unwrap();
    assert_eq!(pairs_of(&h), vec![(0, 1), (0, 5), (2, 3)]);
}

#[test]
fn two_sets_are_brute_force() {
    let (a, ra) = tracks(3, 1500, 1500.0, 40.0, [500_000.0, 5_000_000.0]);
    let (b, rb) = tracks(4, 1500, 1500.0, 40.0, [500_000.0, 5_000_000.0]);
    let (sa, sb) = (set2(&a), set2(&b));
    // The crossings of A against B from the one-set query over A then B.
    let both: Vec<[f64; 4]> = a.iter().chain(&b).copied().collect();
    let na = a.len() as u32;
    let cross = crossing_pairs(&set2(&both));
    let want = brute_rows(
        cross
            .iter()
            .filter(|h| h.i < na && h.j >= na)
            .map(|h| (h.i, h.j - na, 0.0)),
        &ra,
        Some(&rb),
    );
    let mut got = Vec::new();
    crossing_rows_between_into(&sa, &ra, &sb, &rb, RowAnswer::Least, &mut got).unwrap();
    assert_eq!(pairs_of(&got), want.keys().copied().collect::<Vec<_>>());
    for h in &got {
        assert_eq!(
            (h.hit.i, h.hit.j),
            (want[&(h.a, h.b)].1, want[&(h.a, h.b)].2)
        );
    }
    let mut par = Vec::new();
    par_crossing_rows_between_into(&sa, &ra, &sb, &rb, RowAnswer::Least, &mut par).unwrap();
    assert_eq!(par, got);
    for r in [0.0, 12.5, 25.0] {
        let hits = pairs_within(&set3(&a), &set3(&b), r);
        let want = brute_rows(hits.iter().map(|h| (h.i, h.j, h.dist2)), &ra, Some(&rb));
        let mut got = Vec::new();
        rows_within_between_into(
            &set3(&a),
            &ra,
            &set3(&b),
            &rb,
            r,
            RowAnswer::Least,
            &mut got,
        )
        .unwrap();
        assert_eq!(
            pairs_of(&got),
            want.keys().copied().collect::<Vec<_>>(),
            "radius {r}"
        );
        for h in &got {
            let (d, i, j) = want[&(h.a, h.b)];
            assert_eq!(
                (h.hit.dist2.to_bits(), h.hit.i, h.hit.j),
                (d, i, j),
                "radius {r}"
            );
        }
    }
}

/// The row queries of `set` at radius `r` against brute force over `self_pairs_within`,
/// in the precision of `set`.
fn check_within<E: SetElement>(set: &Soa<E::Segment, 6, E>, rows: &[u32], r: E, what: &str) {
    let hits: Vec<Hit<E>> = self_pairs_within(set, r, SharedEndpoints::Keep);
    let want = brute_rows(hits.iter().map(|h| (h.i, h.j, h.dist2.into())), rows, None);
    let want_pairs: Vec<_> = want.keys().copied().collect();
    let mut any = Vec::new();
    rows_within_into(set, rows, r, RowAnswer::Any, &mut any).unwrap();
    assert_eq!(pairs_of(&any), want_pairs, "{what}: Any");
    let mut least = Vec::new();
    rows_within_into(set, rows, r, RowAnswer::Least, &mut least).unwrap();
    assert_eq!(pairs_of(&least), want_pairs, "{what}: Least");
    let lookup: BTreeMap<(u32, u32), &Hit<E>> = hits.iter().map(|h| ((h.i, h.j), h)).collect();
    for h in &least {
        let (_, i, j) = want[&(h.a, h.b)];
        assert_eq!(&h.hit, lookup[&(i, j)], "{what}: Least's hit");
    }
    let mut par = Vec::new();
    par_rows_within_into(set, rows, r, RowAnswer::Least, &mut par).unwrap();
    assert_eq!(par, least, "{what}: parallel");
    let mut streamed = BTreeSet::new();
    for_each_row_within(set, rows, r, RowAnswer::Any, |b| {
        streamed.extend(pairs_of(b))
    })
    .unwrap();
    assert_eq!(
        streamed.into_iter().collect::<Vec<_>>(),
        want_pairs,
        "{what}: streamed"
    );
}

#[test]
fn f32_rows_within_are_brute_force() {
    let (pieces, rows) = tracks(19, 3000, 3000.0, 30.0, [0.0, 0.0]);
    let set: Segments = pieces
        .iter()
        .map(|p| {
            Segment::new(
                [p[0] as f32, p[1] as f32, 0.0],
                [p[2] as f32, p[3] as f32, 0.0],
            )
        })
        .collect();
    for r in [0.0, 10.0, 25.0] {
        check_within(&set, &rows, r, &format!("f32, radius {r}"));
    }
}

#[test]
fn rows_within_are_brute_force_at_any_offset() {
    for (k, origin) in [
        [0.0, 0.0],
        [500_000.0, 5_000_000.0],
        [4_500_000.0, 1_200_000.0],
    ]
    .into_iter()
    .enumerate()
    {
        let (pieces, rows) = tracks(20 + k as u64, 3000, 3000.0, 30.0, origin);
        for r in [0.0, 10.0, 25.0] {
            check_within(
                &set3(&pieces),
                &rows,
                r,
                &format!("origin {origin:?}, radius {r}"),
            );
        }
    }
}

#[test]
fn a_row_pair_exactly_at_the_radius_is_within() {
    // Two rows exactly 25 apart at UTM coordinates (all values exact in f64), and a third
    // 25 + 2^-24 away: in at 25, out of it below.
    let (e, n) = (500_000.0, 5_000_000.0);
    let pieces = [
        [e, n, e + 10.0, n],
        [e + 10.0, n, e + 20.0, n],
        [e + 5.0, n + 25.0, e + 15.0, n + 25.0],
        [e + 5.0, n - 25.0 - 1.0 / 16_777_216.0, e + 15.0, n - 30.0],
    ];
    let rows = [0, 0, 1, 2];
    let got = rows_within_into_vec(&pieces, &rows, 25.0);
    assert_eq!(got, vec![(0, 1)]);
    assert_eq!(
        rows_within_into_vec(&pieces, &rows, 25.0 + 1.0 / 8_388_608.0),
        vec![(0, 1), (0, 2)]
    );
    assert_eq!(
        rows_within_into_vec(&pieces, &rows, 24.999_999),
        Vec::<(u32, u32)>::new()
    );
}

fn rows_within_into_vec(pieces: &[[f64; 4]], rows: &[u32], r: f64) -> Vec<(u32, u32)> {
    let mut h = Vec::new();
    rows_within_into(&set3(pieces), rows, r, RowAnswer::Least, &mut h).unwrap();
    pairs_of(&h)
}

#[test]
fn wrong_row_lists_are_errors() {
    let set = set2(&[[0.0, 0.0, 1.0, 1.0], [0.0, 1.0, 1.0, 0.0]]);
    let mut out = Vec::new();
    assert!(crossing_rows_into(&set, &[0], RowAnswer::Any, &mut out).is_err());
    assert!(
        crossing_rows_between_into(&set, &[0, 1], &set, &[0], RowAnswer::Any, &mut out).is_err()
    );
    let mut h = Vec::new();
    assert!(rows_within_into(&set3(&[[0.0; 4]]), &[0, 1], 1.0, RowAnswer::Any, &mut h).is_err());
    assert!(h.is_empty());
}
