//! One segment, ray or line against a batch: a planned step against every wall, a sight
//! line against every obstacle.
//!
//! The single side A is broadcast to all eight lanes and the kernel runs over the batch as
//! side B, so result `j` is exactly `reference::closest_points_with(one, &many[j], options)`.

use super::Side;
use crate::batch::{ClosestBatch, LANES, OutColumns, Outputs, SegmentsView};
use crate::kernel::{self, Splat};
use crate::segment::{Options, Params, Segment};

/// Closest points of `one` (side A) and every segment of `many` (side B): segment against
/// segment, default tolerance, every output column. Result `j` is the pair
/// `(one, many[j])`.
///
/// ```
/// use segbatch::{closest_points_one_to_many, Segment, Segments};
/// let step = Segment::new([0.0, 0.0, 0.0], [4.0, 0.0, 0.0]);
/// let walls = Segments::from(&[
///     Segment::new([2.0, 1.0, 0.0], [2.0, 3.0, 0.0]), // beside the step, 1 away
///     Segment::new([9.0, 0.0, 0.0], [9.0, 1.0, 0.0]), // beyond its end, 5 away
/// ]);
/// let out = closest_points_one_to_many(&step, &walls);
/// assert_eq!(out.dist2(), &[1.0, 25.0]);
/// assert_eq!(out.s(), &[0.5, 1.0]);
/// ```
#[must_use]
pub fn closest_points_one_to_many<'b>(
    one: &Segment,
    many: impl Into<SegmentsView<'b>>,
) -> ClosestBatch {
    let mut out = ClosestBatch::default();
    closest_points_one_to_many_with_into(one, many, &Options::SEGMENTS, Outputs::ALL, &mut out);
    out
}

/// The general form of [`closest_points_one_to_many`]: extents (`options.extent_a` applies
/// to `one`) and tolerance from `options`, only the `outputs` columns stored, results
/// written into `out` (buffers reused). Never panics.
///
/// ```
/// use segbatch::{closest_points_one_to_many_with_into, ClosestBatch, Extent, Options, Outputs, Segment, Segments};
/// // A sight line (ray) from the origin along +x against two obstacles.
/// let sight = Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
/// let obstacles = Segments::from(&[
///     Segment::new([5.0, -1.0, 0.0], [5.0, 1.0, 0.0]),  // crosses the ray at x = 5
///     Segment::new([-3.0, -1.0, 0.0], [-3.0, 1.0, 0.0]), // behind the eye
/// ]);
/// let mut out = ClosestBatch::default();
/// let options = Options::new(Extent::Ray, Extent::Segment);
/// closest_points_one_to_many_with_into(&sight, &obstacles, &options, Outputs::PARAMS, &mut out);
/// assert_eq!(out.dist2(), &[0.0, 9.0]);
/// assert_eq!(out.s(), &[5.0, 0.0]);
/// ```
pub fn closest_points_one_to_many_with_into<'b>(
    one: &Segment,
    many: impl Into<SegmentsView<'b>>,
    options: &Options,
    outputs: Outputs,
    out: &mut ClosestBatch,
) {
    let many = many.into();
    out.reset(many.len(), outputs);
    run(one, many, &options.params(), out.columns_mut());
}

/// The loop over `many` in groups of eight.
pub(crate) fn run(one: &Segment, many: SegmentsView<'_>, p: &Params, mut out: OutColumns<'_>) {
    let splat = Splat::new(p);
    let a0 = crate::kernel::V3::splat(one.p0);
    let a1 = crate::kernel::V3::splat(one.p1);
    let side = Side::new(many);
    let n = side.len();
    let mut j = 0;
    while j < n {
        let (b0, b1) = side.load(j);
        let lanes = kernel::closest8(a0, a1, b0, b1, &splat);
        let count = (n - j).min(LANES);
        kernel::store_partial(&mut out, j, count, &lanes);
        j += LANES;
    }
}

/// [`closest_points_one_to_many_with_into`] on all cores, bitwise identical results. Batches
/// below [`PAR_MIN_PAIRS`](crate::PAR_MIN_PAIRS) stay on the calling thread; larger ones are
/// split into chunks of [`PAR_CHUNK_PAIRS`](crate::PAR_CHUNK_PAIRS). Never panics.
///
/// ```
/// use segbatch::{par_closest_points_one_to_many_with_into, ClosestBatch, Options, Outputs, Segment, Segments};
/// let one = Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
/// let many: Segments = (0..100_000)
///     .map(|k| Segment::new([0.5, 1.0 + k as f32, 0.0], [0.5, 2.0 + k as f32, 0.0]))
///     .collect();
/// let mut out = ClosestBatch::default();
/// par_closest_points_one_to_many_with_into(&one, &many, &Options::SEGMENTS, Outputs::DISTANCE, &mut out);
/// assert_eq!(out.dist2()[0], 1.0);
/// assert_eq!(out.dist2()[99_999], 100_000.0 * 100_000.0);
/// ```
#[cfg(feature = "rayon")]
pub fn par_closest_points_one_to_many_with_into<'b>(
    one: &Segment,
    many: impl Into<SegmentsView<'b>>,
    options: &Options,
    outputs: Outputs,
    out: &mut ClosestBatch,
) {
    let many = many.into();
    out.reset(many.len(), outputs);
    let params = options.params();
    if many.len() < crate::par::PAR_MIN_PAIRS {
        run(one, many, &params, out.columns_mut());
    } else {
        split(one, many, &params, out.columns_mut());
    }
}

#[cfg(feature = "rayon")]
fn split(one: &Segment, many: SegmentsView<'_>, params: &Params, out: OutColumns<'_>) {
    use crate::par::PAR_CHUNK_PAIRS;
    let n = many.len();
    if n <= PAR_CHUNK_PAIRS {
        run(one, many, params, out);
        return;
    }
    let mid = (n / 2).div_ceil(PAR_CHUNK_PAIRS) * PAR_CHUNK_PAIRS;
    let (lo, hi) = many.split_at(mid);
    let (out_lo, out_hi) = out.split_at(mid);
    rayon::join(
        || split(one, lo, params, out_lo),
        || split(one, hi, params, out_hi),
    );
}
