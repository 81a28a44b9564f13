//! The native part of the `segbatch` Python package (`segbatch._segbatch`).
//!
//! The Python layer (`python/segbatch/__init__.py`) checks shapes and dtypes and hands each
//! side here either as one aligned `(N, C)` `float32` array of any strides (C-contiguous
//! rows, the NumPy layout, or a slice, transposed view or zero-stride broadcast) or as a
//! tuple of `C` contiguous `float32` columns (structure-of-arrays: a Fortran-ordered array
//! or Arrow columns). Neither is copied as a whole by the pairwise queries:
//!
//! - columns become a [`SoaView`] of the caller's memory, which the kernel reads directly;
//! - rows and strided arrays are transposed chunk by chunk ([`CHUNK`] pairs, a few hundred
//!   KiB) into a per-thread scratch batch that stays in cache, so memory traffic is the same
//!   as the Rust call on a prepared batch: the input is read once and every output written
//!   once.
//!
//! Long calls run in steps of about 40 ms with the GIL released and check for Ctrl-C
//! between steps (`stepped`); the streamed set queries run on a thread of their own while
//! the calling thread checks for Ctrl-C and, on one, requests their `Stop`, which the
//! library's queries and the binding's own loops check within milliseconds
//! (`interruptible`); the index build, which cannot be stopped, is left to end in the
//! background (`detached`); outputs that cannot be allocated are `MemoryError`
//! (`Failure`), never an abort; a panic is a `RuntimeError`, never a `PanicException`.
//!
//! `closest_points` hands either form to the library's `closest_points_rows_to_slices` /
//! `closest_points_to_slices` (or their parallel forms), which stage rows into lanes 256
//! pairs at a time inside the kernel loop and store every group straight into the NumPy
//! output arrays: no transposition pass, no result batch, no copy out.
//!
//! The other pairwise queries run the library's sequential `_into` form per chunk, the chunks on a
//! rayon pool (all cores by default, `threads=` to limit), with the GIL released. Results
//! are bit for bit those of the library: each pair's result does not depend on how a batch
//! is cut. The set queries (`pairs_within`, `self_pairs_within`, `crossing_pairs`) run the
//! library's streamed forms (sequential or parallel) on the whole input, collect the blocks
//! and sort them by `(i, j)`, as the collected forms return them.
//!
//! The modules, bottom up: `errors` (failures as exceptions, the GIL-free loops with their
//! Ctrl-C checks), `real` (the two precisions: each query is written once over
//! `Real`), `input` and `output` (the arrays in, the result columns out and the chunk
//! loop), then one module a family of calls: `pairwise`, `sets`, `index` (the
//! `SegmentIndex` class) and `matrix`; `oracle` is the tests' straight-through oracle. The
//! modules share this file's imports (`use super::*`), and this file registers the calls.

mod errors;
mod index;
mod input;
mod matrix;
mod oracle;
mod output;
mod pairwise;
mod real;
mod rows;
mod sets;
use errors::*;
use index::*;
use input::*;
use matrix::*;
use output::*;
use pairwise::*;
use real::*;
use rows::*;
use sets::*;

use numpy::ndarray::{ArrayView2, s};
use numpy::{
    IntoPyArray, PyArrayDescrMethods, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyReadwriteArray1, PyReadwriteArray2, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{
    PyKeyboardInterrupt, PyMemoryError, PyRuntimeError, PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use rayon::prelude::*;
use segbatch::motion::{ContactBatch, CpaBatch, MotionElement, Window};
use segbatch::pairs::{
    ClosestSlices, PairMask, Radii, capsule_contacts_into, capsules_touch_indexed_into,
    capsules_touch_into, closest_points_indexed_into, closest_points_into,
    par_capsule_contacts_into, par_capsules_touch_indexed_into, par_closest_points_indexed_into,
};
use segbatch::planar::{
    CrossHit, Element as Plane2, Intersections2, Segment2, Segment2_64, Segments2, Segments2View,
};
use segbatch::sets::{Hit, PairHit, PerRay, SegmentIndex, SharedEndpoints, Stop};
use segbatch::{
    ClosestBatch, Extent, Options, Outputs, Record, Segment, Segments64View, SoaView, Tolerance,
};
use std::collections::HashMap;
use std::ops::{ControlFlow, Range};
use std::sync::{Arc, Mutex, OnceLock, mpsc};

/// Pairs per chunk of a pairwise query: 4096 pairs of 3D segments are 192 KiB of input
/// and at most 150 KiB of output, resident in L2 while the chunk is transposed, computed
/// and copied out.
const CHUNK: usize = 4096;

/// Best time in seconds of `reps` calls of the library on `(N, 6)` float32 rows `a`, `b`
/// (segment against segment; `outputs` `"all"`, `"params"` (dist2, s, t, flags) or
/// `"distance"` (dist2); one reused `ClosestBatch`), for `python/bench.py`: the Rust call on
/// the same data, in the same process. `input` says which call:
///
/// - `"batches"`: `closest_points_into` on `Segments` built once beforehand (not timed);
/// - `"rows"`: `closest_points_rows_into` on the rows themselves (cast, not copied);
/// - `"refill"`: each call first refills the batches from the rows (`clear` +
///   `extend_from_slice`, buffers reused), then `closest_points_into`.
///
/// `threads` 1 is the sequential form, else the parallel one on that many threads
/// (`None`: all cores). Without `allocate`, one untimed call comes first, so the output's
/// pages are touched as an `out=` array's are; with it, the convenience forms
/// (`closest_points`, `closest_points_rows`, a new result each call) are timed instead.
#[pyfunction]
#[pyo3(signature = (a, b, reps, threads, allocate=false, outputs="all", input="batches"))]
#[allow(clippy::too_many_arguments)]
fn rust_closest_points_seconds(
    py: Python<'_>,
    a: PyReadonlyArray2<'_, f32>,
    b: PyReadonlyArray2<'_, f32>,
    reps: usize,
    threads: Option<usize>,
    allocate: bool,
    outputs: &str,
    input: &str,
) -> PyResult<f64> {
    let threads = Threads::new(threads)?;
    let want = match outputs {
        "all" => Outputs::ALL,
        "params" => Outputs::PARAMS,
        "distance" => Outputs::DISTANCE,
        o => {
            return Err(PyValueError::new_err(format!(
                "outputs: expected all, params or distance, got {o:?}"
            )));
        }
    };
    if !["batches", "rows", "refill"].contains(&input) {
        return Err(PyValueError::new_err(format!(
            "input: expected batches, rows or refill, got {input:?}"
        )));
    }
    let rows = |x: &PyReadonlyArray2<'_, f32>, name: &str| -> PyResult<Vec<Segment>> {
        let flat = x.as_slice().map_err(|_| {
            PyValueError::new_err(format!("{name}: the array must be C-contiguous"))
        })?;
        if x.shape()[1] != 6 {
            return Err(PyValueError::new_err(format!(
                "{name}: expected shape (N, 6)"
            )));
        }
        Ok(bytemuck::cast_slice(flat).to_vec())
    };
    let (ra, rb) = (rows(&a, "a")?, rows(&b, "b")?);
    let (mut sa, mut sb) = (
        segbatch::Segments::from(&ra[..]),
        segbatch::Segments::from(&rb[..]),
    );
    let parallel = threads.parallel();
    py.detach(|| {
        threads.install(|| {
            let mut out = ClosestBatch::new();
            let opts = Options::SEGMENTS;
            let mut best = f64::INFINITY;
            // One untimed call first, so the timed ones reuse the output's pages as
            // `out=` does from Python (skipped by `allocate`, which times new outputs).
            for rep in 0..reps + usize::from(!allocate) {
                let t = std::time::Instant::now();
                if input == "refill" {
                    // The Rust user's way from rows without the rows API.
                    sa.clear();
                    sa.extend_from_slice(&ra);
                    sb.clear();
                    sb.extend_from_slice(&rb);
                }
                let rows = input == "rows";
                let r = if allocate {
                    out = match (rows, parallel) {
                        (false, false) => segbatch::closest_points(&sa, &sb),
                        (false, true) => segbatch::pairs::par_closest_points(&sa, &sb),
                        (true, false) => segbatch::pairs::closest_points_rows(&ra, &rb),
                        (true, true) => segbatch::pairs::par_closest_points_rows(&ra, &rb),
                    };
                    Ok(())
                } else {
                    match (rows, parallel) {
                        (false, false) => {
                            segbatch::pairs::closest_points_into(&sa, &sb, &opts, want, &mut out)
                        }
                        (false, true) => segbatch::pairs::par_closest_points_into(
                            &sa, &sb, &opts, want, &mut out,
                        ),
                        (true, false) => segbatch::pairs::closest_points_rows_into(
                            &ra, &rb, &opts, want, &mut out,
                        ),
                        (true, true) => segbatch::pairs::par_closest_points_rows_into(
                            &ra, &rb, &opts, want, &mut out,
                        ),
                    }
                };
                if allocate || rep > 0 {
                    best = best.min(t.elapsed().as_secs_f64());
                }
                r?;
            }
            Ok::<_, Failure>(best)
        })?
    })
    .map_err(PyErr::from)
}

/// The SIMD level this extension was built for (`"avx2+fma"`, `"sse2"`, ...).
#[pyfunction]
fn simd_level() -> &'static str {
    segbatch::simd::SIMD_LEVEL
}

/// Does this CPU run x86-64-v3 code (AVX, AVX2, BMI1, BMI2, F16C, FMA, LZCNT, MOVBE,
/// XSAVE)? The Python layer imports the x86-64-v3 copy of the extension only then.
#[pyfunction]
fn cpu_has_x86_64_v3() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx")
            && std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("f16c")
            && std::is_x86_feature_detected!("fma")
            && std::is_x86_feature_detected!("lzcnt")
            && std::is_x86_feature_detected!("movbe")
            && std::is_x86_feature_detected!("xsave")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Does this CPU run x86-64-v4 code (x86-64-v3 and AVX512F, AVX512BW, AVX512CD, AVX512DQ,
/// AVX512VL)? The Python layer imports the x86-64-v4 copy of the extension only then.
#[pyfunction]
fn cpu_has_x86_64_v4() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        cpu_has_x86_64_v3()
            && std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512cd")
            && std::is_x86_feature_detected!("avx512dq")
            && std::is_x86_feature_detected!("avx512vl")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The SIMD copies of the extension the build made beside this module (`"v3"`, `"v4"`;
/// python/build.rs lists them), or `None` for a build that was not asked for a list (a
/// plain cargo build, a target other than x86-64 Linux).
#[pyfunction]
fn simd_copies() -> Option<Vec<&'static str>> {
    option_env!("SEGBATCH_SIMD_COPIES_BUILT")
        .map(|listed| listed.split(',').filter(|name| !name.is_empty()).collect())
}

/// The best SIMD level the running CPU supports (the library's `cpu_simd_level`).
#[pyfunction]
fn cpu_simd_level() -> &'static str {
    segbatch::simd::cpu_simd_level()
}

/// The tests' oracle: runs one query of the crate on raw files (the `oracle` module's
/// docs), with the GIL released.
#[pyfunction]
fn _oracle(py: Python<'_>, args: Vec<String>) {
    py.detach(|| oracle::run(&args));
}

/// The native module `segbatch._segbatch` (`segbatch._segbatch_v3` with the `v3-module`
/// feature, `segbatch._segbatch_v4` with `v4-module`); the public API is `segbatch`
/// (Python).
#[cfg_attr(not(any(feature = "v3-module", feature = "v4-module")), pymodule)]
#[cfg_attr(feature = "v3-module", pymodule(name = "_segbatch_v3"))]
#[cfg_attr(
    all(feature = "v4-module", not(feature = "v3-module")),
    pymodule(name = "_segbatch_v4")
)]
fn _segbatch(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(closest_points, m)?)?;
    m.add_function(wrap_pyfunction!(capsules_touch, m)?)?;
    m.add_function(wrap_pyfunction!(cpa, m)?)?;
    m.add_function(wrap_pyfunction!(first_contact, m)?)?;
    m.add_function(wrap_pyfunction!(intersect2, m)?)?;
    m.add_function(wrap_pyfunction!(pairs_within, m)?)?;
    m.add_function(wrap_pyfunction!(self_pairs_within, m)?)?;
    m.add_function(wrap_pyfunction!(dist2_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(closest_points_indexed, m)?)?;
    m.add_function(wrap_pyfunction!(capsules_touch_indexed, m)?)?;
    m.add_function(wrap_pyfunction!(capsule_contacts, m)?)?;
    m.add_function(wrap_pyfunction!(crossing_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(crossing_pairs64, m)?)?;
    m.add_function(wrap_pyfunction!(intersect2_64, m)?)?;
    m.add_function(wrap_pyfunction!(line_row_pairs, m)?)?;
    m.add_class::<PySegmentIndex>()?;
    m.add_function(wrap_pyfunction!(simd_level, m)?)?;
    m.add_function(wrap_pyfunction!(cpu_has_x86_64_v3, m)?)?;
    m.add_function(wrap_pyfunction!(cpu_has_x86_64_v4, m)?)?;
    m.add_function(wrap_pyfunction!(simd_copies, m)?)?;
    m.add_function(wrap_pyfunction!(cpu_simd_level, m)?)?;
    m.add_function(wrap_pyfunction!(rust_closest_points_seconds, m)?)?;
    m.add_function(wrap_pyfunction!(_oracle, m)?)?;
    m.add("CHUNK", CHUNK)?;
    m.add("MAX_POOLS", MAX_POOLS)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
