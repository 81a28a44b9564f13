//! The rayon driver: the kernel over chunks of a large batch on all cores.
//!
//! Chunks are whole multiples of [`LANES`](crate::LANES), so every chunk but the last runs
//! the same full SIMD groups the sequential kernel would, and results are bitwise identical
//! to [`closest_points`](crate::closest_points). Batches below [`PAR_MIN_PAIRS`] stay on the
//! calling thread: splitting them costs more than it saves.
//!
//! The engine-facing API stays single-threaded on views ([`SegmentsView`]): a job system of
//! its own can split a batch the same way this module does.

use crate::batch::{ClosestBatch, LANES, OutColumns, Outputs, SegmentsView};
use crate::kernel;
use crate::segment::{Options, Params};

/// Below this many pairs the parallel functions run on the calling thread.
///
/// Measured with `cargo bench --bench kernel -- par` on 2 cores (see docs/performance.md):
/// at 16K pairs the two-thread run only breaks even with one thread (the kernel takes ~25 µs,
/// close to rayon's wake-up and join cost); from 32K pairs up it wins clearly.
pub const PAR_MIN_PAIRS: usize = 32 * 1024;

/// Pairs per rayon task: large enough to amortise scheduling (~0.1 ms of work at ~400 M
/// pairs/s), small enough to balance load on a busy machine. A multiple of [`LANES`].
pub const PAR_CHUNK_PAIRS: usize = 32 * 1024;

const _: () = assert!(PAR_CHUNK_PAIRS.is_multiple_of(LANES));

/// Below this many pair tests (`a.len()·b.len()`, or `n²/2` within one set) the parallel
/// `N × M` queries run on the calling thread.
///
/// Measured with `cargo bench --bench queries -- cutoff` on 2 cores (see
/// docs/performance.md).
pub const PAR_MIN_PAIR_TESTS: usize = 256 * 1024;

/// [`closest_points`](crate::closest_points) on all cores: segment against segment, default
/// tolerance, every column; bitwise identical results.
///
/// # Panics
/// When `a` and `b` differ in length; [`par_closest_points_with_into`] with
/// [`try_`](crate::try_closest_points_with_into)-style checking is available through
/// [`try_par_closest_points_with_into`].
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
    if a.len() != b.len() {
        return Err(crate::BatchError::LengthMismatch {
            what: "batches a and b",
            expected: a.len(),
            found: b.len(),
        });
    }
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
