//! Closest points from rows (`closest_points_rows*`) and into caller slices
//! (`*_to_slices`) against `closest_points` on the same segments as batches: bit for bit,
//! every output selection, sequential and parallel, at every length around the staging
//! chunk (256 pairs), the lane width and the parallel split, on the hard-case classes
//! (non-finite coordinates included). Also a batch's copy from a slice of rows against
//! pushing them one by one.
//!
//! Every check compares the parallel forms too, so the file needs the `rayon` feature (on
//! by default).
#![cfg(feature = "rayon")]

use segbatch::pairs::*;
use segbatch::*;
use segbatch_testkit::Rng;
use segbatch_testkit::pairs::any;

fn pairs(seed: u64, n: usize) -> (Vec<Segment>, Vec<Segment>) {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| any(&mut rng)).unzip()
}

fn bits(x: &[f32]) -> Vec<u32> {
    x.iter().map(|v| v.to_bits()).collect()
}

fn point_bits(cols: [&[f32]; 3]) -> Vec<[u32; 3]> {
    (0..cols[0].len())
        .map(|i| [cols[0][i], cols[1][i], cols[2][i]].map(f32::to_bits))
        .collect()
}

fn assert_same_batch(got: &ClosestBatch, want: &ClosestBatch, ctx: &str) {
    assert_eq!(got.len(), want.len(), "{ctx}: len");
    assert_eq!(bits(got.dist2()), bits(want.dist2()), "{ctx}: dist2");
    assert_eq!(bits(got.s()), bits(want.s()), "{ctx}: s");
    assert_eq!(bits(got.t()), bits(want.t()), "{ctx}: t");
    assert_eq!(
        point_bits(got.point_a()),
        point_bits(want.point_a()),
        "{ctx}: point_a"
    );
    assert_eq!(
        point_bits(got.point_b()),
        point_bits(want.point_b()),
        "{ctx}: point_b"
    );
    assert_eq!(got.flags(), want.flags(), "{ctx}: flags");
}

/// Owned output columns for the slice forms, filled with a sentinel first.
struct Owned {
    dist2: Vec<f32>,
    distance: Vec<f32>,
    s: Vec<f32>,
    t: Vec<f32>,
    point_a: Vec<[f32; 3]>,
    point_b: Vec<[f32; 3]>,
    flags: Vec<Flags>,
}

impl Owned {
    fn new(n: usize) -> Self {
        let x = -7.5f32;
        Owned {
            dist2: vec![x; n],
            distance: vec![x; n],
            s: vec![x; n],
            t: vec![x; n],
            point_a: vec![[x; 3]; n],
            point_b: vec![[x; 3]; n],
            flags: vec![Flags::all(); n],
        }
    }

    fn slices(&mut self) -> ClosestSlices<'_> {
        ClosestSlices {
            dist2: Some(&mut self.dist2),
            distance: Some(&mut self.distance),
            s: Some(&mut self.s),
            t: Some(&mut self.t),
            point_a: Some(&mut self.point_a),
            point_b: Some(&mut self.point_b),
            flags: Some(&mut self.flags),
        }
    }

    fn assert_same(&self, want: &ClosestBatch, ctx: &str) {
        assert_eq!(bits(&self.dist2), bits(want.dist2()), "{ctx}: dist2");
        let sqrt: Vec<f32> = want.distances().collect();
        assert_eq!(bits(&self.distance), bits(&sqrt), "{ctx}: distance");
        assert_eq!(bits(&self.s), bits(want.s()), "{ctx}: s");
        assert_eq!(bits(&self.t), bits(want.t()), "{ctx}: t");
        let rows = |p: &[[f32; 3]]| p.iter().map(|q| q.map(f32::to_bits)).collect::<Vec<_>>();
        assert_eq!(
            rows(&self.point_a),
            point_bits(want.point_a()),
            "{ctx}: point_a"
        );
        assert_eq!(
            rows(&self.point_b),
            point_bits(want.point_b()),
            "{ctx}: point_b"
        );
        assert_eq!(self.flags, want.flags(), "{ctx}: flags");
    }
}

fn check(seed: u64, n: usize, options: &Options) {
    let (a, b) = pairs(seed, n);
    let (sa, sb) = (Segments::from(&a[..]), Segments::from(&b[..]));
    let mut want = ClosestBatch::new();
    closest_points_into(&sa, &sb, options, Outputs::ALL, &mut want).unwrap();
    let ctx = format!("seed {seed}, n {n}, {options:?}");
    for outputs in [Outputs::ALL, Outputs::PARAMS, Outputs::DISTANCE] {
        let mut reference = ClosestBatch::new();
        closest_points_into(&sa, &sb, options, outputs, &mut reference).unwrap();
        let mut got = ClosestBatch::new();
        closest_points_rows_into(&a, &b, options, outputs, &mut got).unwrap();
        assert_same_batch(&got, &reference, &format!("{ctx}, rows {outputs:?}"));
        let mut par = ClosestBatch::new();
        par_closest_points_rows_into(&a, &b, options, outputs, &mut par).unwrap();
        assert_same_batch(&par, &reference, &format!("{ctx}, par rows {outputs:?}"));
    }
    for parallel in [false, true] {
        let mut rows = Owned::new(n);
        let mut cols = Owned::new(n);
        // A sub-range view: its columns have no padding after the last pair, so the tail
        // goes through the driver's copied last group.
        let (va, vb) = (sa.view(..), sb.view(..));
        if parallel {
            par_closest_points_rows_to_slices(&a, &b, options, rows.slices()).unwrap();
            par_closest_points_to_slices(va, vb, options, cols.slices()).unwrap();
        } else {
            closest_points_rows_to_slices(&a, &b, options, rows.slices()).unwrap();
            closest_points_to_slices(va, vb, options, cols.slices()).unwrap();
        }
        rows.assert_same(
            &want,
            &format!("{ctx}, rows to slices, parallel {parallel}"),
        );
        cols.assert_same(
            &want,
            &format!("{ctx}, view to slices, parallel {parallel}"),
        );
    }
}

#[test]
fn rows_match_batches_at_every_boundary() {
    let lengths = [0, 1, 7, 8, 9, 63, 255, 256, 257, 511, 513, 1000];
    for (k, &n) in lengths.iter().enumerate() {
        check(k as u64, n, &Options::SEGMENTS);
    }
}

#[test]
fn rows_match_batches_with_every_extent_and_a_tolerance() {
    for (k, ext) in [Extent::Segment, Extent::Ray, Extent::Line]
        .into_iter()
        .enumerate()
    {
        let o = Options::new(ext, Extent::Segment);
        check(100 + k as u64, 300, &o);
        check(110 + k as u64, 77, &Options::new(Extent::Segment, ext));
    }
    let o = Options::SEGMENTS.with_tolerance(Tolerance::absolute(1e-3));
    check(120, 300, &o);
}

#[test]
fn rows_match_batches_across_the_parallel_split() {
    // More than PAR_MIN_PAIRS and not a multiple of PAR_CHUNK_PAIRS, the staging chunk or
    // the lane width, so the parallel forms split and every piece has a ragged end.
    check(
        200,
        PAR_MIN_PAIRS * 2 + PAR_CHUNK_PAIRS / 2 + 259,
        &Options::SEGMENTS,
    );
}

#[test]
fn only_the_columns_given_are_written() {
    let (a, b) = pairs(300, 40);
    let want = closest_points(&Segments::from(&a[..]), &Segments::from(&b[..]));
    let mut s = vec![0.5f32; 40];
    let mut distance = vec![0.5f32; 40];
    let out = ClosestSlices {
        s: Some(&mut s),
        distance: Some(&mut distance),
        ..Default::default()
    };
    closest_points_rows_to_slices(&a, &b, &Options::SEGMENTS, out).unwrap();
    assert_eq!(bits(&s), bits(want.s()));
    let sqrt: Vec<f32> = want.distances().collect();
    assert_eq!(bits(&distance), bits(&sqrt));
}

#[test]
fn length_errors_write_nothing() {
    let (a, b) = pairs(400, 20);
    let mut dist2 = vec![9.0f32; 20];
    let mut short = vec![9.0f32; 19];
    let out = ClosestSlices {
        dist2: Some(&mut dist2),
        s: Some(&mut short),
        ..Default::default()
    };
    assert_eq!(
        closest_points_rows_to_slices(&a, &b, &Options::SEGMENTS, out),
        Err(Error::LengthMismatch {
            what: "out.s",
            expected: 20,
            found: 19
        })
    );
    assert!(dist2.iter().all(|&x| x == 9.0));
    let mut d = vec![0.0f32; 20];
    let out = ClosestSlices {
        dist2: Some(&mut d),
        ..Default::default()
    };
    let err = par_closest_points_rows_to_slices(&a, &b[..19], &Options::SEGMENTS, out);
    assert!(matches!(
        err,
        Err(Error::LengthMismatch {
            expected: 20,
            found: 19,
            ..
        })
    ));
    let mut batch = ClosestBatch::new();
    let err = closest_points_rows_into(&a[..3], &b, &Options::SEGMENTS, Outputs::ALL, &mut batch);
    assert!(matches!(
        err,
        Err(Error::LengthMismatch {
            expected: 3,
            found: 20,
            ..
        })
    ));
}

/// A batch extended from a slice (copied in blocks of 256 records) holds what pushing the
/// records one by one gives, onto a batch already holding some, at lengths around the
/// block and the lane width.
#[test]
fn extend_from_slice_equals_pushes_at_every_block_boundary() {
    let (a, _) = pairs(9, 1100);
    for start in [0, 1, 7, 8, 255, 256, 300] {
        for n in [0, 1, 255, 256, 257, 511, 513, 800] {
            let (head, tail) = a.split_at(start);
            let mut got = Segments::from(head);
            got.extend_from_slice(&tail[..n]);
            let mut want = Segments::new();
            for s in &a[..start + n] {
                want.push(*s);
            }
            assert_eq!(got.len(), want.len());
            for k in 0..6 {
                assert_eq!(
                    bits(got.columns()[k]),
                    bits(want.columns()[k]),
                    "{start} + {n}"
                );
            }
        }
    }
}
