//! Every A against every B: a dense matrix of squared distances, or the sparse list of the
//! pairs within a radius. Also the tile loop the within-one-set query shares.

#[cfg(feature = "rayon")]
use super::TILE_A;
use super::{Hit, Side, Spheres, TILE_B, lane_bits, push_hits, within_bits};
use crate::LANES;
use crate::batch::{Error, SegmentsView};
use crate::forms::query_forms;
use crate::kernel::{self, Splat};
use crate::lanes::V3;
use crate::segment::Options;
use core::ops::Range;
use wide::f32x8;

query_forms! {
    /// The squared distance of every `a[i]` to every `b[j]`, row-major (entry
    /// `i·b.len() + j`), segment against segment.
    ///
    /// ```
    /// use segbatch::{dist2_matrix, Segment, Segments};
    /// let a = Segments::from(&[
    ///     Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
    ///     Segment::new([0.0, 3.0, 0.0], [1.0, 3.0, 0.0]),
    /// ]);
    /// let b = Segments::from(&[
    ///     Segment::new([0.0, 1.0, 0.0], [1.0, 1.0, 0.0]),
    ///     Segment::new([0.0, 2.0, 0.0], [1.0, 2.0, 0.0]),
    ///     Segment::new([0.0, 5.0, 0.0], [1.0, 5.0, 0.0]),
    /// ]);
    /// let m = dist2_matrix(&a, &b);
    /// assert_eq!(m, vec![1.0, 4.0, 25.0,
    ///                    4.0, 1.0, 4.0]);
    /// ```
    pub fn dist2_matrix / dist2_matrix_into / par_dist2_matrix / par_dist2_matrix_into
        <'a, 'b>(a: impl Into<SegmentsView<'a>>, b: impl Into<SegmentsView<'b>>)
        with (options: &Options = &Options::SEGMENTS)
        -> Vec<f32> = matrix;
    /// The general form of [`dist2_matrix`]: extents and tolerance from `options`, the
    /// matrix written into `out`, resized to `a.len()·b.len()` (allocation reused). The
    /// parallel forms hand out blocks of [`TILE_A`](crate::TILE_A) rows above
    /// [`PAR_MIN_PAIR_TESTS`](crate::PAR_MIN_PAIR_TESTS) entries.
    ///
    /// # Errors
    /// None today (any two batches make a matrix, if it fits in memory); `Result` keeps the
    /// shape of every `_into` call.
    into;
}

/// The matrix into `out`, sequentially or (when `parallel`, above
/// [`PAR_MIN_PAIR_TESTS`](crate::PAR_MIN_PAIR_TESTS)) in blocks of rows on all cores.
fn matrix<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    options: &Options,
    parallel: bool,
    out: &mut Vec<f32>,
) -> Result<(), Error> {
    let (a, b) = (a.into(), b.into());
    let (na, nb) = (a.len(), b.len());
    // Every entry is written below: only grow (no clearing pass over the whole matrix).
    out.resize(na * nb, 0.0);
    let splat = Splat::new(&options.params());
    let (sa, sb) = (Side::new(a), Side::new(b));
    #[cfg(feature = "rayon")]
    if parallel && na >= 2 && na.saturating_mul(nb) >= crate::PAR_MIN_PAIR_TESTS {
        use rayon::prelude::*;
        let rows_per_task = TILE_A.min(na.div_ceil(2));
        out.par_chunks_mut(rows_per_task * nb)
            .enumerate()
            .for_each(|(k, chunk)| {
                let r0 = k * rows_per_task;
                let r1 = (r0 + rows_per_task).min(na);
                matrix_rows(&sa, &sb, r0..r1, &splat, chunk);
            });
        return Ok(());
    }
    let _ = parallel;
    matrix_rows(&sa, &sb, 0..na, &splat, out);
    Ok(())
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
                        Some((me, sb)) => valid & sb.near_bits(j, &me, self.radius),
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

impl Within<'_, '_> {
    /// Every hit of rows `0..na` × columns `0..nb`, sorted by `(i, j)`, appended to `out`
    /// (which the callers clear before validating their inputs): sequentially, or when `parallel` and there are at least
    /// [`PAR_MIN_PAIR_TESTS`](crate::PAR_MIN_PAIR_TESTS) pair `tests`, over rectangles of
    /// tiles on all cores ([`crate::driver::par_rects`]); the list is the same.
    pub(crate) fn run(
        &self,
        na: usize,
        nb: usize,
        tests: usize,
        parallel: bool,
        out: &mut Vec<Hit>,
    ) {
        #[cfg(feature = "rayon")]
        if parallel && tests >= crate::PAR_MIN_PAIR_TESTS {
            use rayon::prelude::*;
            let mut rects = crate::driver::par_rects(na, nb, TILE_A, 4 * TILE_B);
            if self.upper {
                // Only rectangles reaching above the diagonal hold pairs i < j.
                rects.retain(|(rows, cols)| cols.end > rows.start + 1);
            }
            let parts: Vec<Vec<Hit>> = rects
                .par_iter()
                .map(|(rows, cols)| {
                    let mut hits = Vec::new();
                    self.rect(rows.clone(), cols.clone(), &mut hits);
                    hits
                })
                .collect();
            out.reserve(parts.iter().map(Vec::len).sum());
            for p in parts {
                out.extend_from_slice(&p);
            }
            out.par_sort_unstable_by_key(|h| (h.i, h.j));
            return;
        }
        let _ = (parallel, tests);
        self.rect(0..na, 0..nb, out);
        out.sort_unstable_by_key(|h| (h.i, h.j));
    }
}

query_forms! {
    /// Every pair `(i, j)` of `a[i]` and `b[j]` whose squared distance is at most
    /// `radius²`, segment against segment, sorted by `(i, j)`.
    ///
    /// ```
    /// use segbatch::{pairs_within, Segment, Segments};
    /// let walls = Segments::from(&[
    ///     Segment::new([0.0, 0.0, 0.0], [0.0, 4.0, 0.0]),
    ///     Segment::new([10.0, 0.0, 0.0], [10.0, 4.0, 0.0]),
    /// ]);
    /// let paths = Segments::from(&[Segment::new([0.5, 2.0, 0.0], [3.0, 2.0, 0.0])]);
    /// let hits = pairs_within(&walls, &paths, 1.0);
    /// assert_eq!(hits.len(), 1);
    /// assert_eq!((hits[0].i, hits[0].j, hits[0].dist2), (0, 0, 0.25));
    /// ```
    pub fn pairs_within / pairs_within_into / par_pairs_within / par_pairs_within_into
        <'a, 'b>(a: impl Into<SegmentsView<'a>>, b: impl Into<SegmentsView<'b>>, radius: f32)
        with (options: &Options = &Options::SEGMENTS)
        -> Vec<Hit> = within;
    /// The general form of [`pairs_within`]: extents and tolerance from `options`, the hits
    /// written into `out` (cleared first, allocation reused). The parallel forms split the
    /// pair space into rectangles of tiles above
    /// [`PAR_MIN_PAIR_TESTS`](crate::PAR_MIN_PAIR_TESTS) pair tests.
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] when `radius` is negative or NaN (`out` is then empty).
    ///
    /// ```
    /// use segbatch::{pairs_within, par_pairs_within, Segment, Segments};
    /// let a: Segments = (0..400).map(|k| Segment::new([k as f32, 0.0, 0.0], [k as f32, 1.0, 0.0])).collect();
    /// let b: Segments = (0..700).map(|k| Segment::new([0.5 * k as f32, 0.5, 0.3], [0.5 * k as f32, 0.5, 1.3])).collect();
    /// let hits = par_pairs_within(&a, &b, 0.6);
    /// assert_eq!(hits, pairs_within(&a, &b, 0.6));
    /// // a[k] meets b[2k-1], b[2k] and b[2k+1] where they exist: 2 + 349·3 + 1 pairs.
    /// assert_eq!(hits.len(), 1050);
    /// ```
    into;
}

fn within<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    radius: f32,
    options: &Options,
    parallel: bool,
    out: &mut Vec<Hit>,
) -> Result<(), Error> {
    super::sets::within(a.into(), b.into(), radius, options, parallel, out)
}
