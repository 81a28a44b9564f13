//! The rayon driver: the kernel over chunks of a large batch on all cores.
//!
//! Chunks are whole multiples of [`LANES`](crate::LANES), so every chunk but the last runs
//! the same full SIMD groups the sequential kernel would, and results are bitwise identical
//! to [`closest_points`](crate::closest_points). Batches below [`PAR_MIN_PAIRS`] stay on the
//! calling thread: splitting them costs more than it saves.
//!
//! The parallel forms of the bulk queries (`par_…` in `src/query/`) follow the same rules:
//! linear queries (one-to-many, capsules) split in [`PAR_CHUNK_PAIRS`] chunks above
//! [`PAR_MIN_PAIRS`]; the `N × M` queries hand rectangles of tiles (blocks of
//! [`TILE_A`](crate::TILE_A) rows, plus column chunks when there are few rows) to rayon
//! above [`PAR_MIN_PAIR_TESTS`] pair tests, and sort the gathered hits by `(i, j)`, so the
//! output never depends on the schedule.
//!
//! The engine-facing API stays single-threaded on views ([`SegmentsView`]): a job system of
//! its own can split a batch the same way this module does.

use crate::batch::{ClosestBatch, LANES, OutColumns, Outputs, SegmentsView};
use crate::kernel;
use crate::segment::{Options, Params};

/// Below this many pairs the parallel functions run on the calling thread.
///
/// How it was chosen: `cargo bench --bench queries -- cutoff` times the sequential call
/// against the same work split in two halves with `rayon::join` on a 2-thread pool, at 8K to
/// 128K pairs. Handing work to the second thread and joining costs about 10-30 µs here
/// (8K pairs: 51 µs sequential, 59 µs split), and at 16K pairs the split only breaks even
/// (107 µs both). 32K pairs is ~100 µs of kernel work at ~300 M pairs/s, several times the
/// hand-off cost, so the split can pay from there on a free second core. Those figures were
/// taken with other jobs on both cores (see docs/performance.md); rerun the group to
/// re-tune on a quiet machine.
pub const PAR_MIN_PAIRS: usize = 32 * 1024;

/// Pairs per rayon task: large enough to amortise scheduling (~0.1 ms of work at ~400 M
/// pairs/s), small enough to balance load on a busy machine. A multiple of [`LANES`].
pub const PAR_CHUNK_PAIRS: usize = 32 * 1024;

const _: () = assert!(PAR_CHUNK_PAIRS.is_multiple_of(LANES));

/// Below this many pair tests (`a.len()·b.len()`, or `n²/2` within one set) the parallel
/// `N × M` queries run on the calling thread.
///
/// A within-radius pair test costs ~0.7 ns with the bounding-sphere prefilter (most groups
/// are skipped), ~4 ns without. `cargo bench --bench queries -- cutoff` compares the
/// sequential query with two halves joined on 2 threads at 64K, 256K and 1M tests: 204 µs
/// vs 139 µs, 487 µs vs 569 µs and 2.04 ms vs 1.47 ms on the (busy) machine of
/// docs/performance.md, so the split wins clearly from about 1M tests and is a toss-up at
/// 256K; 256K tests (~0.2 ms of prefiltered work, ~1 ms unfiltered) is where it starts to
/// be worth trying.
pub const PAR_MIN_PAIR_TESTS: usize = 256 * 1024;

/// [`closest_points`](crate::closest_points) on all cores: segment against segment, default
/// tolerance, every column; bitwise identical results.
///
/// # Panics
/// When `a` and `b` differ in length; [`try_par_closest_points_with_into`] returns an error
/// instead.
#[must_use]
pub fn par_closest_points<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
) -> ClosestBatch {
    let mut out = ClosestBatch::default();
    par_closest_points_with_into(a, b, &Options::SEGMENTS, Outputs::ALL, &mut out);
    out
}

/// [`closest_points_with_into`](crate::closest_points_with_into) on all cores.
///
/// # Panics
/// When `a` and `b` differ in length; [`try_par_closest_points_with_into`] returns an error.
pub fn par_closest_points_with_into<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    options: &Options,
    outputs: Outputs,
    out: &mut ClosestBatch,
) {
    if let Err(e) = try_par_closest_points_with_into(a, b, options, outputs, out) {
        panic!("segbatch: {e}");
    }
}

/// [`par_closest_points_with_into`] returning an error instead of panicking when the lengths
/// differ (`out` is then left unchanged).
///
/// # Errors
/// [`BatchError::LengthMismatch`](crate::BatchError::LengthMismatch).
pub fn try_par_closest_points_with_into<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    options: &Options,
    outputs: Outputs,
    out: &mut ClosestBatch,
) -> Result<(), crate::BatchError> {
    let (a, b) = (a.into(), b.into());
    crate::batch::check_pair_lengths(&a, &b)?;
    out.reset(a.len(), outputs);
    let params = options.params();
    if a.len() < PAR_MIN_PAIRS {
        kernel::run(a, b, &params, out.columns_mut());
    } else {
        split(a, b, &params, out.columns_mut());
    }
    Ok(())
}

/// Recursive halving at multiples of [`PAR_CHUNK_PAIRS`] with `rayon::join`.
fn split(a: SegmentsView<'_>, b: SegmentsView<'_>, params: &Params, out: OutColumns<'_>) {
    let n = a.len();
    if n <= PAR_CHUNK_PAIRS {
        kernel::run(a, b, params, out);
        return;
    }
    let mid = (n / 2).div_ceil(PAR_CHUNK_PAIRS) * PAR_CHUNK_PAIRS;
    let (a_lo, a_hi) = a.split_at(mid);
    let (b_lo, b_hi) = b.split_at(mid);
    let (out_lo, out_hi) = out.split_at(mid);
    rayon::join(
        || split(a_lo, b_lo, params, out_lo),
        || split(a_hi, b_hi, params, out_hi),
    );
}
