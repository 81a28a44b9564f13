//! Every A against every B: a dense matrix of squared distances, or the sparse list of the
//! pairs within a radius. Also the tile loop the within-one-set query shares.

use super::{Hit, Side, Spheres, TILE_B, fail, lane_bits, push_hits, radius2, within_bits};
use crate::batch::{BatchError, LANES, SegmentsView};
use crate::kernel::{self, Splat, V3};
use crate::segment::Options;
use core::ops::Range;
use wide::f32x8;

/// The squared distance of every `a[i]` to every `b[j]`, row-major: entry `i·b.len() + j`.
///
/// ```
/// use segbatch::{dist2_matrix, Options, Segment, Segments};
/// let a = Segments::from(&[
///     Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
///     Segment::new([0.0, 3.0, 0.0], [1.0, 3.0, 0.0]),
/// ]);
/// let b = Segments::from(&[
///     Segment::new([0.0, 1.0, 0.0], [1.0, 1.0, 0.0]),
///     Segment::new([0.0, 2.0, 0.0], [1.0, 2.0, 0.0]),
///     Segment::new([0.0, 5.0, 0.0], [1.0, 5.0, 0.0]),
/// ]);
/// let m = dist2_matrix(&a, &b, &Options::SEGMENTS);
/// assert_eq!(m, vec![1.0, 4.0, 25.0,
///                    4.0, 1.0, 4.0]);
/// ```
#[must_use]
pub fn dist2_matrix<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    options: &Options,
) -> Vec<f32> {
    let mut out = Vec::new();
    dist2_matrix_into(a, b, options, &mut out);
    out
}

/// [`dist2_matrix`] into `out`, resized to `a.len()·b.len()` (allocation reused). Never
/// panics (but the matrix must fit in memory).
pub fn dist2_matrix_into<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    options: &Options,
    out: &mut Vec<f32>,
) {
    let (a, b) = (a.into(), b.into());
    // Every entry is written below: only grow (no clearing pass over the whole matrix).
    out.resize(a.len() * b.len(), 0.0);
    let splat = Splat::new(&options.params());
    matrix_rows(&Side::new(a), &Side::new(b), 0..a.len(), &splat, out);
}

/// Rows `rows` of the matrix into `out` (exactly those rows), tile by tile.
fn matrix_rows(a: &Side<'_>, b: &Side<'_>, rows: Range<usize>, splat: &Splat, out: &mut [f32]) {
    let nb = b.len();
    for bb in (0..nb).step_by(TILE_B) {
        let bend = (bb + TILE_B).min(nb);
        for i in rows.clone() {
            let (a0, a1) = a.splat(i);
            let row = &mut out[(i - rows.start) * nb..][..nb];
            let mut j = bb;
            while j < bend {
                let (b0, b1) = b.load(j);
                let lanes = kernel::closest8(a0, a1, b0, b1, splat);
                let count = (nb - j).min(LANES);
                row[j..j + count].copy_from_slice(&lanes.dist2.to_array()[..count]);
                j += LANES;
            }
        }
    }
}

/// [`dist2_matrix_into`] on all cores, identical matrix: blocks of
/// [`TILE_A`](crate::TILE_A) rows are the parallel tasks. Matrices below
/// [`PAR_MIN_PAIR_TESTS`](crate::PAR_MIN_PAIR_TESTS) entries stay on the calling thread.
///
/// ```
/// use segbatch::{dist2_matrix, par_dist2_matrix_into, Options, Segment, Segments};
/// let a: Segments = (0..300).map(|k| Segment::new([k as f32, 0.0, 0.0], [k as f32, 1.0, 0.0])).collect();
/// let b: Segments = (0..500).map(|k| Segment::new([0.0, 0.0, k as f32], [1.0, 0.0, k as f32])).collect();
/// let mut m = Vec::new();
/// par_dist2_matrix_into(&a, &b, &Options::SEGMENTS, &mut m);
/// assert_eq!(m, dist2_matrix(&a, &b, &Options::SEGMENTS));
/// assert_eq!(m[299 * 500 + 7], 298.0 * 298.0 + 49.0);
/// ```
#[cfg(feature = "rayon")]
pub fn par_dist2_matrix_into<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    options: &Options,
    out: &mut Vec<f32>,
) {
    use crate::par::PAR_MIN_PAIR_TESTS;
    use rayon::prelude::*;
    let (a, b) = (a.into(), b.into());
    let (na, nb) = (a.len(), b.len());
    if na.saturating_mul(nb) < PAR_MIN_PAIR_TESTS || na < 2 {
        return dist2_matrix_into(a, b, options, out);
    }
    out.resize(na * nb, 0.0);
    let splat = Splat::new(&options.params());
    let (sa, sb) = (Side::new(a), Side::new(b));
    let rows_per_task = super::TILE_A.min(na.div_ceil(2));
    out.par_chunks_mut(rows_per_task * nb)
        .enumerate()
        .for_each(|(k, chunk)| {
            let r0 = k * rows_per_task;
            let r1 = (r0 + rows_per_task).min(na);
            matrix_rows(&sa, &sb, r0..r1, &splat, chunk);
        });
}

/// The radius tile loop shared by [`pairs_within`] and the within-one-set query.
pub(crate) struct Within<'v, 's> {
    pub a: Side<'v>,
    pub b: Side<'v>,
    /// Bounding spheres of A and B when the prefilter applies.
    pub spheres: Option<(&'s Spheres, &'s Spheres)>,
    pub splat: Splat,
    pub r2: f32x8,
    pub radius: f32x8,
    /// Only pairs `j > i` (a set against itself).
    pub upper: bool,
    /// Drop pairs that share an end point.
    pub skip_shared: bool,
}

/// Lanes where A and B share an end point (coordinates equal with `==`).
#[inline(always)]
fn shared_bits(a0: V3, a1: V3, b0: V3, b1: V3) -> u32 {
    let eq = |p: V3, q: V3| p.x.simd_eq(q.x) & p.y.simd_eq(q.y) & p.z.simd_eq(q.z);
    (eq(a0, b0) | eq(a0, b1) | eq(a1, b0) | eq(a1, b1)).to_bitmask()
}

impl Within<'_, '_> {
    /// Appends the hits of rows `rows` × columns `cols` to `out`, in tile order.
    pub(crate) fn rect(&self, rows: Range<usize>, cols: Range<usize>, out: &mut Vec<Hit>) {
        let first = cols.start / LANES * LANES;
        for bb in (first..cols.end).step_by(TILE_B) {
            let bend = (bb + TILE_B).min(cols.end);
            for i in rows.clone() {
                let lo = if self.upper {
                    cols.start.max(i + 1)
                } else {
                    cols.start
                };
                if lo >= bend {
                    // Upper triangle: this row and every later one are done with the block.
                    if self.upper {
                        break;
                    }
                    continue;
                }
                let (a0, a1) = self.a.splat(i);
                let sphere = self.spheres.map(|(sa, sb)| (sa.splat(i), sb));
                let mut j = bb.max(lo / LANES * LANES);
                while j < bend {
                    let valid = lane_bits(lo, bend, j);
                    let candidates = match sphere {
                        Some(((m, rad), sb)) => valid & sb.near_bits(j, m, rad, self.radius),
                        None => valid,
                    };
                    if candidates != 0 {
                        let (b0, b1) = self.b.load(j);
                        let lanes = kernel::closest8(a0, a1, b0, b1, &self.splat);
                        let mut hits = within_bits(&lanes, self.r2) & valid;
                        if self.skip_shared && hits != 0 {
                            hits &= !shared_bits(a0, a1, b0, b1);
                        }
                        push_hits(out, i, j, hits, &lanes);
                    }
                    j += LANES;
                }
            }
        }
    }
}

/// Every pair `(a[i], b[j])` whose squared distance is at most `radius²`, sorted by
/// `(i, j)`, with its squared distance and parameters.
///
/// A single segment against many (a planned path against walls) is the case `a.len() == 1`.
///
/// # Panics
/// When `radius` is negative or NaN; [`try_pairs_within_into`] returns an error instead.
///
/// ```
/// use segbatch::{pairs_within, Hit, Options, Segment, Segments};
/// let paths = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [10.0, 0.0, 0.0])]);
/// let walls = Segments::from(&[
///     Segment::new([5.0, 0.5, -1.0], [5.0, 0.5, 1.0]), // 0.5 beside the path
///     Segment::new([5.0, 3.0, -1.0], [5.0, 3.0, 1.0]), // 3 away
/// ]);
/// let hits = pairs_within(&paths, &walls, 1.0, &Options::SEGMENTS);
/// assert_eq!(hits, vec![Hit { i: 0, j: 0, dist2: 0.25, s: 0.5, t: 0.5 }]);
/// assert_eq!(hits[0].distance(), 0.5);
/// ```
#[must_use]
pub fn pairs_within<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    radius: f32,
    options: &Options,
) -> Vec<Hit> {
    let mut out = Vec::new();
    if let Err(e) = try_pairs_within_into(a, b, radius, options, &mut out) {
        fail(e);
    }
    out
}

/// [`pairs_within`] into `out` (cleared first, allocation reused), with an error instead of
/// a panic.
///
/// # Errors
/// [`BatchError::InvalidRadius`] when `radius` is negative or NaN (`out` is then empty).
///
/// ```
/// use segbatch::{try_pairs_within_into, BatchError, Options, Segments};
/// let mut hits = Vec::new();
/// let err = try_pairs_within_into(&Segments::new(), &Segments::new(), f32::NAN, &Options::SEGMENTS, &mut hits);
/// assert_eq!(err, Err(BatchError::InvalidRadius { index: None }));
/// ```
pub fn try_pairs_within_into<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    radius: f32,
    options: &Options,
    out: &mut Vec<Hit>,
) -> Result<(), BatchError> {
    let (a, b) = (a.into(), b.into());
    out.clear();
    let r2 = radius2(radius)?;
    let sa = Spheres::build(a, options);
    let sb = Spheres::build(b, options);
    let job = Within {
        a: Side::new(a),
        b: Side::new(b),
        spheres: sa.as_ref().zip(sb.as_ref()),
        splat: Splat::new(&options.params()),
        r2: f32x8::splat(r2),
        radius: f32x8::splat(radius),
        upper: false,
        skip_shared: false,
    };
    job.rect(0..a.len(), 0..b.len(), out);
    super::sort_hits(out);
    Ok(())
}

/// Rectangles of the `rows × cols` pair space for the parallel tasks: blocks of
/// [`TILE_A`](crate::TILE_A) rows, and when there are few rows also column chunks, so even
/// one row against a long batch splits.
#[cfg(feature = "rayon")]
pub(crate) fn par_rects(na: usize, nb: usize) -> Vec<(Range<usize>, Range<usize>)> {
    use super::TILE_A;
    let row_blocks = na.div_ceil(TILE_A);
    let col_width = if row_blocks >= 16 {
        nb.max(1)
    } else {
        (4 * TILE_B).max(nb.div_ceil(16).div_ceil(LANES) * LANES)
    };
    let mut rects = Vec::new();
    for r in 0..row_blocks {
        let rows = r * TILE_A..((r + 1) * TILE_A).min(na);
        let mut c = 0;
        while c < nb {
            rects.push((rows.clone(), c..(c + col_width).min(nb)));
            c += col_width;
        }
    }
    rects
}

/// Runs `job` over `rects` in parallel and gathers the sorted hits into `out`.
#[cfg(feature = "rayon")]
pub(crate) fn par_run(
    job: &Within<'_, '_>,
    rects: &[(Range<usize>, Range<usize>)],
    out: &mut Vec<Hit>,
) {
    use rayon::prelude::*;
    let parts: Vec<Vec<Hit>> = rects
        .par_iter()
        .map(|(rows, cols)| {
            let mut hits = Vec::new();
            job.rect(rows.clone(), cols.clone(), &mut hits);
            hits
        })
        .collect();
    out.reserve(parts.iter().map(Vec::len).sum());
    for p in parts {
        out.extend_from_slice(&p);
    }
    super::par_sort_hits(out);
}

/// [`pairs_within`] on all cores (identical list). Below
/// [`PAR_MIN_PAIR_TESTS`](crate::PAR_MIN_PAIR_TESTS) pair tests it stays on the calling
/// thread.
///
/// # Panics
/// When `radius` is negative or NaN; [`try_par_pairs_within_into`] returns an error.
///
/// ```
/// use segbatch::{pairs_within, par_pairs_within, Options, Segment, Segments};
/// let a: Segments = (0..400).map(|k| Segment::new([k as f32, 0.0, 0.0], [k as f32, 1.0, 0.0])).collect();
/// let b: Segments = (0..700).map(|k| Segment::new([0.5 * k as f32, 0.5, 0.3], [0.5 * k as f32, 0.5, 1.3])).collect();
/// let hits = par_pairs_within(&a, &b, 0.6, &Options::SEGMENTS);
/// assert_eq!(hits, pairs_within(&a, &b, 0.6, &Options::SEGMENTS));
/// // a[k] meets b[2k-1], b[2k] and b[2k+1] where they exist: 2 + 349·3 + 1 pairs.
/// assert_eq!(hits.len(), 1050);
/// ```
#[cfg(feature = "rayon")]
#[must_use]
pub fn par_pairs_within<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    radius: f32,
    options: &Options,
) -> Vec<Hit> {
    let mut out = Vec::new();
    if let Err(e) = try_par_pairs_within_into(a, b, radius, options, &mut out) {
        fail(e);
    }
    out
}

/// [`try_pairs_within_into`] on all cores (identical list and errors).
///
/// # Errors
/// [`BatchError::InvalidRadius`] when `radius` is negative or NaN (`out` is then empty).
#[cfg(feature = "rayon")]
pub fn try_par_pairs_within_into<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    radius: f32,
    options: &Options,
    out: &mut Vec<Hit>,
) -> Result<(), BatchError> {
    use crate::par::PAR_MIN_PAIR_TESTS;
    let (a, b) = (a.into(), b.into());
    if a.len().saturating_mul(b.len()) < PAR_MIN_PAIR_TESTS {
        return try_pairs_within_into(a, b, radius, options, out);
    }
    out.clear();
    let r2 = radius2(radius)?;
    let (sa, sb) = rayon::join(|| Spheres::build(a, options), || Spheres::build(b, options));
    let job = Within {
        a: Side::new(a),
        b: Side::new(b),
        spheres: sa.as_ref().zip(sb.as_ref()),
        splat: Splat::new(&options.params()),
        r2: f32x8::splat(r2),
        radius: f32x8::splat(radius),
        upper: false,
        skip_shared: false,
    };
    par_run(&job, &par_rects(a.len(), b.len()), out);
    Ok(())
}
