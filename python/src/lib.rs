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
//! the calling thread checks for Ctrl-C and, on one, makes their sink stop them
//! (`interruptible`); outputs that cannot be allocated are `MemoryError`
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

mod oracle;

use numpy::ndarray::{ArrayView2, s};
use numpy::{
    IntoPyArray, PyArrayDescrMethods, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyReadwriteArray1, PyReadwriteArray2, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyMemoryError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use rayon::prelude::*;
use segbatch::motion::{
    ContactBatch, ContactBatch64, CpaBatch, CpaBatch64, Track, Track64, Tracks64View, Window,
    Window64,
};
use segbatch::pairs::{
    CapsuleContact, CapsuleContact64, ClosestBatch64, ClosestSlices, PairMask, Radii, Radii64,
};
use segbatch::planar::{
    CrossHit, Element as Plane2, Intersections2, Segment2, Segment2_64, Segments2, Segments2View,
};
use segbatch::sets::{
    FirstHit, FirstHit64, Hit, Hit64, PairHit, PairHit64, SegmentIndex64, SharedEndpoints,
};
use segbatch::{
    ClosestBatch, Extent, Options, Outputs, Record, Segment, Segment64, Segments64, Segments64View,
    SoaView, Tolerance,
};
use std::collections::HashMap;
use std::ops::{ControlFlow, Range};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, mpsc};

/// Pairs per chunk of a pairwise query: 4096 pairs of 3D segments are 192 KiB of input
/// and at most 150 KiB of output, resident in L2 while the chunk is transposed, computed
/// and copied out.
const CHUNK: usize = 4096;

// ---------------------------------------------------------------------------------------
// Errors.

/// Why a native call failed, turned into the Python exception by [`From`].
enum Failure {
    /// A library error: `MemoryError` for an output that could not be allocated, else
    /// `ValueError` with the library's message.
    Lib(segbatch::Error),
    /// An allocation of the binding itself that failed (what, elements).
    Memory(&'static str, usize),
    /// A thread pool that could not be started.
    Pool(String),
    /// A panic inside the native code (a bug): `RuntimeError`, never a `PanicException`.
    Panic(String),
}

impl From<segbatch::Error> for Failure {
    fn from(e: segbatch::Error) -> Self {
        Failure::Lib(e)
    }
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> Self {
        match f {
            Failure::Lib(e @ segbatch::Error::OutOfMemory { .. }) => {
                PyMemoryError::new_err(e.to_string())
            }
            Failure::Lib(e) => PyValueError::new_err(e.to_string()),
            Failure::Memory(what, n) => PyMemoryError::new_err(format!(
                "out of memory: the {what} of {n} elements could not be allocated"
            )),
            Failure::Pool(e) => PyRuntimeError::new_err(format!("thread pool: {e}")),
            Failure::Panic(e) => PyRuntimeError::new_err(format!("segbatch internal error: {e}")),
        }
    }
}

/// A library error as a Python exception.
fn lib_error(e: segbatch::Error) -> PyErr {
    Failure::Lib(e).into()
}

/// An empty vector with room for `n` values, or [`Failure::Memory`] (never an abort).
fn try_vec<T>(n: usize, what: &'static str) -> Result<Vec<T>, Failure> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| Failure::Memory(what, n))?;
    Ok(v)
}

/// `f()`, with a panic turned into [`Failure::Panic`].
fn guarded<R>(f: impl FnOnce() -> Result<R, Failure>) -> Result<R, Failure> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_string()))
            .unwrap_or_else(|| "a panic".into());
        Err(Failure::Panic(msg))
    })
}

/// The time one step should take: long enough that releasing and taking the GIL and
/// checking for signals cost nothing measurable, short enough that Ctrl-C is answered well
/// within half a second.
const STEP_TIME: std::time::Duration = std::time::Duration::from_millis(40);

/// Runs `step` on consecutive ranges of `total` items, each with the GIL released, and
/// checks for signals between steps: a Ctrl-C raises `KeyboardInterrupt` after the step
/// in progress instead of when the whole call returns. Steps start at `first` items and
/// adapt to take about [`STEP_TIME`] each (doubling or halving, between 1 and `max`
/// items), since the cost of an item varies by orders of magnitude (a pair, a long ray
/// through a dense scene).
fn stepped<F>(py: Python<'_>, total: usize, first: usize, max: usize, mut step: F) -> PyResult<()>
where
    F: FnMut(Range<usize>) -> Result<(), Failure> + Send,
{
    let max = max.max(1);
    let mut size = first.clamp(1, max);
    let mut start = 0;
    while start < total {
        let end = total.min(start + size);
        let began = std::time::Instant::now();
        py.detach(|| guarded(|| step(start..end)))?;
        py.check_signals()?;
        let took = began.elapsed();
        if took < STEP_TIME / 2 {
            size = (size * 2).min(max);
        } else if took > STEP_TIME * 2 {
            size = (size / 2).max(1);
        }
        start = end;
    }
    Ok(())
}

/// How often [`interruptible`] checks for Ctrl-C while a streamed set query runs.
const POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// Runs `work(parallel, stop)` on a thread of its own, on `threads` (the library's
/// sequential form for one thread, its parallel form otherwise), while this thread waits
/// with the GIL released and takes it back every [`POLL`] to check for signals. A Ctrl-C
/// sets `stop`, which the streamed query's sink answers with `ControlFlow::Break` at its
/// next block: the query ends within a block a thread, its partial output is dropped, and
/// `KeyboardInterrupt` is raised (nothing half-built is returned). The check has to run
/// on this thread, Python's main thread when the caller is on it: Python delivers signals
/// only there.
fn interruptible<R: Send>(
    py: Python<'_>,
    threads: Threads,
    work: impl FnOnce(bool, &AtomicBool) -> Result<R, Failure> + Send,
) -> PyResult<R> {
    let stop = AtomicBool::new(false);
    let parallel = threads.parallel();
    std::thread::scope(|scope| {
        let (tx, mut rx) = mpsc::channel();
        let stop = &stop;
        scope.spawn(move || {
            let _ = tx.send(guarded(|| threads.install(|| work(parallel, stop))?));
        });
        loop {
            let (back, got) = py.detach(move || {
                let got = rx.recv_timeout(POLL);
                (rx, got)
            });
            rx = back;
            match got {
                Ok(result) => return Ok(result?),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(PyRuntimeError::new_err(
                        "segbatch internal error: lost a result",
                    ));
                }
            }
            if let Err(e) = py.check_signals() {
                stop.store(true, Ordering::Relaxed);
                // The work ends at its next block; its result is dropped.
                py.detach(move || drop(rx.recv()));
                return Err(e);
            }
        }
    })
}

/// The sink's answer once `stop` is set (see [`interruptible`]).
fn go_on(stop: &AtomicBool) -> ControlFlow<()> {
    if stop.load(Ordering::Relaxed) {
        ControlFlow::Break(())
    } else {
        ControlFlow::Continue(())
    }
}

/// Appends `block` to `out` with `try_reserve`: `Break` with the failure kept in `failed`
/// when it cannot grow.
fn keep<T: Copy>(
    out: &mut Vec<T>,
    block: &[T],
    what: &'static str,
    failed: &mut Option<Failure>,
) -> ControlFlow<()> {
    if out.try_reserve(block.len()).is_err() {
        *failed = Some(Failure::Memory(what, out.len() + block.len()));
        return ControlFlow::Break(());
    }
    out.extend_from_slice(block);
    ControlFlow::Continue(())
}

// ---------------------------------------------------------------------------------------
// Inputs.

/// A coordinate type the binding computes in: `f32`, or `f64` for world coordinates
/// (UTM, ECEF), with the library's types and calls of that precision. Every query is
/// written once over it; which one runs is decided by the input's dtype ([`is_f64`]).
trait Real: numpy::Element + bytemuck::Pod + Default + Send + Sync + 'static {
    /// The NumPy dtype name, for messages.
    const DTYPE: &'static str;
    /// A segment record (`x0, y0, z0, x1, y1, z1`).
    type Segment: Record<6, Self> + Send + Sync;
    /// A track record (`px, py, pz, vx, vy, vz`).
    type Track: Record<6, Self> + Send + Sync;
    /// The result batch of the closest-points query.
    type Closest: Default + Send + 'static;
    /// The result batch of the closest-approach queries.
    type Cpa: Default + Send + 'static;
    /// A pair of a radius query.
    type Hit: Copy + Send + Default;
    /// A pair of a streamed radius query (`i`, `j`, `dist2`).
    type PairHit: Copy + Send;
    /// The scratch of [`Real::params_into`].
    type Gather: Default + Send;
    /// A time window `[0, end]`.
    type Window: Copy + Send + Sync;
    /// The radii of a capsule query.
    type Radii<'r>: Copy + Send + Sync;
    /// An index over a static set of segments (first hits of thick rays).
    type Index: Send + Sync;
    /// The result batch of the first-contact queries.
    type Contact: Default + Send + 'static;

    /// The square root (the `distance` column from `dist2`).
    fn sqrt(self) -> Self;
    /// `x` in this precision (Python numbers are `f64`; `f32` rounds as NumPy does).
    fn from_f64(x: f64) -> Self;
    /// The library's uniform radii.
    fn uniform_radii<'r>(a: Self, b: Self) -> Result<Self::Radii<'r>, segbatch::Error>;
    /// The library's radii of one per pair.
    fn per_pair_radii<'r>(a: &'r [Self], b: &'r [Self])
    -> Result<Self::Radii<'r>, segbatch::Error>;
    /// The library's radii of one per object of each set.
    fn per_object_radii<'r>(
        a: &'r [Self],
        b: &'r [Self],
    ) -> Result<Self::Radii<'r>, segbatch::Error>;
    /// The library's `first_contact_into` of this precision.
    fn first_contact_into(
        a: SoaView<'_, Self::Track, 6, Self>,
        b: SoaView<'_, Self::Track, 6, Self>,
        radii: Self::Radii<'_>,
        window: Self::Window,
        out: &mut Self::Contact,
    ) -> Result<(), segbatch::Error>;
    /// The library's `first_contact_segments_into` of this precision.
    fn first_contact_segments_into(
        a: SoaView<'_, Self::Segment, 6, Self>,
        b: SoaView<'_, Self::Segment, 6, Self>,
        radii: Self::Radii<'_>,
        out: &mut Self::Contact,
    ) -> Result<(), segbatch::Error>;
    /// A first-contact chunk's columns: `hit`, `t`, `flags`.
    fn contact_res(out: &Self::Contact) -> (&[bool], &[Self], &[u8]);
    /// The library's `dist2_matrix_into` of this precision.
    fn dist2_matrix_into(
        a: SoaView<'_, Self::Segment, 6, Self>,
        b: SoaView<'_, Self::Segment, 6, Self>,
        options: &Options,
        out: &mut Vec<Self>,
    ) -> Result<(), segbatch::Error>;
    /// The library's `closest_points_indexed_into` of this precision, every output.
    fn closest_indexed_into(
        a: SoaView<'_, Self::Segment, 6, Self>,
        b: SoaView<'_, Self::Segment, 6, Self>,
        pairs: &[(u32, u32)],
        options: &Options,
        parallel: bool,
        out: &mut Self::Closest,
    ) -> Result<(), segbatch::Error>;
    /// The library's `capsules_touch_indexed_into` of this precision.
    fn capsules_indexed_into(
        a: SoaView<'_, Self::Segment, 6, Self>,
        b: SoaView<'_, Self::Segment, 6, Self>,
        pairs: &[(u32, u32)],
        radii: Self::Radii<'_>,
        options: &Options,
        parallel: bool,
        out: &mut PairMask,
    ) -> Result<(), segbatch::Error>;
    /// The library's `capsule_contacts_into` of this precision.
    #[allow(clippy::too_many_arguments)]
    fn contacts_into(
        a: SoaView<'_, Self::Segment, 6, Self>,
        b: SoaView<'_, Self::Segment, 6, Self>,
        pairs: &[(u32, u32)],
        radii: Self::Radii<'_>,
        options: &Options,
        parallel: bool,
        out: &mut Vec<CapsuleContact<Self>>,
    ) -> Result<(), segbatch::Error>;
    /// The library's `capsules_touch_into` of this precision.
    fn capsules_touch_into(
        a: SoaView<'_, Self::Segment, 6, Self>,
        b: SoaView<'_, Self::Segment, 6, Self>,
        radii: Self::Radii<'_>,
        options: &Options,
        out: &mut PairMask,
    ) -> Result<(), segbatch::Error>;
    /// The window `[0, end]`, or `None` for a negative or NaN end.
    fn window(end: f64) -> Option<Self::Window>;
    /// The library's `closest_points_into` of this precision, every output.
    fn closest_into(
        a: SoaView<'_, Self::Segment, 6, Self>,
        b: SoaView<'_, Self::Segment, 6, Self>,
        options: &Options,
        out: &mut Self::Closest,
    ) -> Result<(), segbatch::Error>;
    /// A closest-points chunk's columns.
    fn closest_res(out: &Self::Closest) -> Res<'_, Self>;
    /// The library's `cpa_into` of this precision.
    fn cpa_into(
        a: SoaView<'_, Self::Track, 6, Self>,
        b: SoaView<'_, Self::Track, 6, Self>,
        window: Self::Window,
        out: &mut Self::Cpa,
    ) -> Result<(), segbatch::Error>;
    /// The library's `cpa_segments_into` of this precision.
    fn cpa_segments_into(
        a: SoaView<'_, Self::Segment, 6, Self>,
        b: SoaView<'_, Self::Segment, 6, Self>,
        out: &mut Self::Cpa,
    ) -> Result<(), segbatch::Error>;
    /// A closest-approach chunk's columns.
    fn cpa_res(out: &Self::Cpa) -> Res<'_, Self>;
    /// A hit's row: `i`, `j`, `dist2`, `s`, `t`.
    fn hit(h: &Self::Hit) -> (u32, u32, Self, Self, Self);
    /// The hit of these values.
    fn make_hit(i: u32, j: u32, dist2: Self, s: Self, t: Self) -> Self::Hit;
    /// A streamed pair: `i`, `j`, `dist2`.
    fn pair_hit(h: &Self::PairHit) -> (u32, u32, Self);
    /// The closest-points parameters (every column but the points) of the index `pairs`
    /// of `a` and `b`, by the kernel and `options` of the radius queries: their `s` and
    /// `t` bit for bit.
    fn params_into(
        a: SoaView<'_, Self::Segment, 6, Self>,
        b: SoaView<'_, Self::Segment, 6, Self>,
        pairs: &[(u32, u32)],
        options: &Options,
        gather: &mut Self::Gather,
        out: &mut Self::Closest,
    ) -> Result<(), segbatch::Error>;
    /// The library's streamed `for_each_pair_within` of this precision (its `par_` form
    /// when `parallel`).
    fn for_each_pair_within(
        a: SoaView<'_, Self::Segment, 6, Self>,
        b: SoaView<'_, Self::Segment, 6, Self>,
        radius: Self,
        options: &Options,
        parallel: bool,
        sink: &mut dyn FnMut(&[Self::PairHit]) -> ControlFlow<()>,
    ) -> Result<(), segbatch::Error>;
    /// The library's streamed `for_each_self_pair_within` of this precision.
    fn for_each_self_pair_within(
        set: SoaView<'_, Self::Segment, 6, Self>,
        radius: Self,
        shared: SharedEndpoints,
        options: &Options,
        parallel: bool,
        sink: &mut dyn FnMut(&[Self::PairHit]) -> ControlFlow<()>,
    ) -> Result<(), segbatch::Error>;
    /// The library's index of this precision over `set`.
    fn index_new(
        set: SoaView<'_, Self::Segment, 6, Self>,
        parallel: bool,
    ) -> Result<Self::Index, segbatch::Error>;
    /// The library's `first_hits` of this precision.
    fn first_hits(
        index: &Self::Index,
        rays: SoaView<'_, Self::Segment, 6, Self>,
        radius: Self,
        range: Self,
        parallel: bool,
    ) -> Result<Vec<Option<FirstHit<Self>>>, segbatch::Error>;
    /// The library's index `pairs_within` of this precision, the queries' indices offset
    /// by `first` (the queries are a part of the caller's, starting at `first`).
    fn index_pairs_within(
        index: &Self::Index,
        queries: SoaView<'_, Self::Segment, 6, Self>,
        radius: Self,
        first: u32,
        parallel: bool,
    ) -> Result<Vec<Self::Hit>, segbatch::Error>;
}

/// The result columns of one chunk, whatever the query and precision (empty where the
/// query has none), copied out by name by [`copy_out`].
struct Res<'a, E> {
    dist2: &'a [E],
    s: &'a [E],
    t: &'a [E],
    point_a: [&'a [E]; 3],
    point_b: [&'a [E]; 3],
    flags: &'a [u8],
}

impl Real for f32 {
    const DTYPE: &'static str = "float32";
    type Segment = Segment;
    type Track = Track;
    type Closest = ClosestBatch;
    type Cpa = CpaBatch;
    type Hit = Hit;
    type PairHit = PairHit;
    type Gather = ();
    type Window = Window;
    type Radii<'r> = Radii<'r>;
    type Index = segbatch::SegmentIndex;
    type Contact = ContactBatch;

    fn sqrt(self) -> Self {
        self.sqrt()
    }
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn window(end: f64) -> Option<Window> {
        Window::new(end as f32)
    }
    fn uniform_radii<'r>(a: f32, b: f32) -> Result<Radii<'r>, segbatch::Error> {
        Radii::uniform(a, b)
    }
    fn per_pair_radii<'r>(a: &'r [f32], b: &'r [f32]) -> Result<Radii<'r>, segbatch::Error> {
        Radii::per_pair(a, b)
    }
    fn per_object_radii<'r>(a: &'r [f32], b: &'r [f32]) -> Result<Radii<'r>, segbatch::Error> {
        Radii::per_object(a, b)
    }
    fn first_contact_into(
        a: SoaView<'_, Track, 6>,
        b: SoaView<'_, Track, 6>,
        radii: Radii<'_>,
        window: Window,
        out: &mut ContactBatch,
    ) -> Result<(), segbatch::Error> {
        segbatch::motion::first_contact_into(a, b, radii, window, out)
    }
    fn first_contact_segments_into(
        a: SoaView<'_, Segment, 6>,
        b: SoaView<'_, Segment, 6>,
        radii: Radii<'_>,
        out: &mut ContactBatch,
    ) -> Result<(), segbatch::Error> {
        segbatch::motion::first_contact_segments_into(a, b, radii, out)
    }
    fn contact_res(o: &ContactBatch) -> (&[bool], &[f32], &[u8]) {
        (o.hit(), o.t(), bytemuck::cast_slice(o.flags()))
    }
    fn dist2_matrix_into(
        a: SoaView<'_, Segment, 6>,
        b: SoaView<'_, Segment, 6>,
        options: &Options,
        out: &mut Vec<f32>,
    ) -> Result<(), segbatch::Error> {
        segbatch::sets::dist2_matrix_into(a, b, options, out)
    }
    fn closest_indexed_into(
        a: SoaView<'_, Segment, 6>,
        b: SoaView<'_, Segment, 6>,
        pairs: &[(u32, u32)],
        options: &Options,
        parallel: bool,
        out: &mut ClosestBatch,
    ) -> Result<(), segbatch::Error> {
        use segbatch::pairs::{closest_points_indexed_into, par_closest_points_indexed_into};
        if parallel {
            par_closest_points_indexed_into(a, b, pairs, options, Outputs::ALL, out)
        } else {
            closest_points_indexed_into(a, b, pairs, options, Outputs::ALL, out)
        }
    }
    fn capsules_indexed_into(
        a: SoaView<'_, Segment, 6>,
        b: SoaView<'_, Segment, 6>,
        pairs: &[(u32, u32)],
        radii: Radii<'_>,
        options: &Options,
        parallel: bool,
        out: &mut PairMask,
    ) -> Result<(), segbatch::Error> {
        use segbatch::pairs::{capsules_touch_indexed_into, par_capsules_touch_indexed_into};
        if parallel {
            par_capsules_touch_indexed_into(a, b, pairs, radii, options, out)
        } else {
            capsules_touch_indexed_into(a, b, pairs, radii, options, out)
        }
    }
    fn contacts_into(
        a: SoaView<'_, Segment, 6>,
        b: SoaView<'_, Segment, 6>,
        pairs: &[(u32, u32)],
        radii: Radii<'_>,
        options: &Options,
        parallel: bool,
        out: &mut Vec<CapsuleContact>,
    ) -> Result<(), segbatch::Error> {
        use segbatch::pairs::{capsule_contacts_into, par_capsule_contacts_into};
        if parallel {
            par_capsule_contacts_into(a, b, pairs, radii, options, out)
        } else {
            capsule_contacts_into(a, b, pairs, radii, options, out)
        }
    }
    fn capsules_touch_into(
        a: SoaView<'_, Segment, 6>,
        b: SoaView<'_, Segment, 6>,
        radii: Radii<'_>,
        options: &Options,
        out: &mut PairMask,
    ) -> Result<(), segbatch::Error> {
        segbatch::pairs::capsules_touch_into(a, b, radii, options, out)
    }
    fn closest_into(
        a: SoaView<'_, Segment, 6>,
        b: SoaView<'_, Segment, 6>,
        options: &Options,
        out: &mut ClosestBatch,
    ) -> Result<(), segbatch::Error> {
        segbatch::pairs::closest_points_into(a, b, options, Outputs::ALL, out)
    }
    fn closest_res(o: &ClosestBatch) -> Res<'_, f32> {
        Res {
            dist2: o.dist2(),
            s: o.s(),
            t: o.t(),
            point_a: o.point_a(),
            point_b: o.point_b(),
            flags: bytemuck::cast_slice(o.flags()),
        }
    }
    fn cpa_into(
        a: SoaView<'_, Track, 6>,
        b: SoaView<'_, Track, 6>,
        window: Window,
        out: &mut CpaBatch,
    ) -> Result<(), segbatch::Error> {
        segbatch::motion::cpa_into(a, b, window, out)
    }
    fn cpa_segments_into(
        a: SoaView<'_, Segment, 6>,
        b: SoaView<'_, Segment, 6>,
        out: &mut CpaBatch,
    ) -> Result<(), segbatch::Error> {
        segbatch::motion::cpa_segments_into(a, b, out)
    }
    fn cpa_res(o: &CpaBatch) -> Res<'_, f32> {
        Res {
            dist2: o.dist2(),
            s: &[],
            t: o.t(),
            point_a: o.point_a(),
            point_b: o.point_b(),
            flags: bytemuck::cast_slice(o.flags()),
        }
    }
    fn hit(h: &Hit) -> (u32, u32, f32, f32, f32) {
        (h.i, h.j, h.dist2, h.s, h.t)
    }
    fn make_hit(i: u32, j: u32, dist2: f32, s: f32, t: f32) -> Hit {
        Hit { i, j, dist2, s, t }
    }
    fn pair_hit(h: &PairHit) -> (u32, u32, f32) {
        (h.i, h.j, h.dist2)
    }
    fn params_into(
        a: SoaView<'_, Segment, 6>,
        b: SoaView<'_, Segment, 6>,
        pairs: &[(u32, u32)],
        options: &Options,
        _: &mut (),
        out: &mut ClosestBatch,
    ) -> Result<(), segbatch::Error> {
        segbatch::pairs::closest_points_indexed_into(a, b, pairs, options, Outputs::PARAMS, out)
    }
    fn for_each_pair_within(
        a: SoaView<'_, Segment, 6>,
        b: SoaView<'_, Segment, 6>,
        radius: f32,
        options: &Options,
        parallel: bool,
        sink: &mut dyn FnMut(&[PairHit]) -> ControlFlow<()>,
    ) -> Result<(), segbatch::Error> {
        if parallel {
            segbatch::sets::par_for_each_pair_within(a, b, radius, options, sink)
        } else {
            segbatch::sets::for_each_pair_within(a, b, radius, options, sink)
        }
    }
    fn for_each_self_pair_within(
        set: SoaView<'_, Segment, 6>,
        radius: f32,
        shared: SharedEndpoints,
        options: &Options,
        parallel: bool,
        sink: &mut dyn FnMut(&[PairHit]) -> ControlFlow<()>,
    ) -> Result<(), segbatch::Error> {
        if parallel {
            segbatch::sets::par_for_each_self_pair_within(set, radius, shared, options, sink)
        } else {
            segbatch::sets::for_each_self_pair_within(set, radius, shared, options, sink)
        }
    }
    fn index_new(
        set: SoaView<'_, Segment, 6>,
        parallel: bool,
    ) -> Result<segbatch::SegmentIndex, segbatch::Error> {
        if parallel {
            segbatch::SegmentIndex::par_new(set)
        } else {
            segbatch::SegmentIndex::new(set)
        }
    }
    fn first_hits(
        index: &segbatch::SegmentIndex,
        rays: SoaView<'_, Segment, 6>,
        radius: f32,
        range: f32,
        parallel: bool,
    ) -> Result<Vec<Option<FirstHit>>, segbatch::Error> {
        if parallel {
            index.par_first_hits(rays, radius, range)
        } else {
            index.first_hits(rays, radius, range)
        }
    }
    fn index_pairs_within(
        index: &segbatch::SegmentIndex,
        queries: SoaView<'_, Segment, 6>,
        radius: f32,
        first: u32,
        parallel: bool,
    ) -> Result<Vec<Hit>, segbatch::Error> {
        let found = if parallel {
            index.par_pairs_within(queries, radius)
        } else {
            index.pairs_within(queries, radius)
        }?;
        Ok(found
            .into_iter()
            .map(|h| Hit {
                i: h.i + first,
                ..h
            })
            .collect())
    }
}

impl Real for f64 {
    const DTYPE: &'static str = "float64";
    type Segment = Segment64;
    type Track = Track64;
    type Closest = ClosestBatch64;
    type Cpa = CpaBatch64;
    type Hit = Hit64;
    type PairHit = PairHit64;
    type Gather = (Segments64, Segments64);
    type Window = Window64;
    type Radii<'r> = Radii64<'r>;
    type Index = SegmentIndex64;
    type Contact = ContactBatch64;

    fn sqrt(self) -> Self {
        self.sqrt()
    }
    fn from_f64(x: f64) -> Self {
        x
    }
    fn window(end: f64) -> Option<Window64> {
        Window64::new(end)
    }
    fn uniform_radii<'r>(a: f64, b: f64) -> Result<Radii64<'r>, segbatch::Error> {
        Radii64::uniform(a, b)
    }
    fn per_pair_radii<'r>(a: &'r [f64], b: &'r [f64]) -> Result<Radii64<'r>, segbatch::Error> {
        Radii64::per_pair(a, b)
    }
    fn per_object_radii<'r>(a: &'r [f64], b: &'r [f64]) -> Result<Radii64<'r>, segbatch::Error> {
        Radii64::per_object(a, b)
    }
    fn first_contact_into(
        a: Tracks64View<'_>,
        b: Tracks64View<'_>,
        radii: Radii64<'_>,
        window: Window64,
        out: &mut ContactBatch64,
    ) -> Result<(), segbatch::Error> {
        segbatch::motion::first_contact64_into(a, b, radii, window, out)
    }
    fn first_contact_segments_into(
        a: Segments64View<'_>,
        b: Segments64View<'_>,
        radii: Radii64<'_>,
        out: &mut ContactBatch64,
    ) -> Result<(), segbatch::Error> {
        segbatch::motion::first_contact_segments64_into(a, b, radii, out)
    }
    fn contact_res(o: &ContactBatch64) -> (&[bool], &[f64], &[u8]) {
        (o.hit(), o.t(), bytemuck::cast_slice(o.flags()))
    }
    fn dist2_matrix_into(
        a: Segments64View<'_>,
        b: Segments64View<'_>,
        options: &Options,
        out: &mut Vec<f64>,
    ) -> Result<(), segbatch::Error> {
        segbatch::sets::dist2_matrix64_into(a, b, options, out)
    }
    fn closest_indexed_into(
        a: Segments64View<'_>,
        b: Segments64View<'_>,
        pairs: &[(u32, u32)],
        options: &Options,
        parallel: bool,
        out: &mut ClosestBatch64,
    ) -> Result<(), segbatch::Error> {
        use segbatch::pairs::{closest_points64_indexed_into, par_closest_points64_indexed_into};
        if parallel {
            par_closest_points64_indexed_into(a, b, pairs, options, Outputs::ALL, out)
        } else {
            closest_points64_indexed_into(a, b, pairs, options, Outputs::ALL, out)
        }
    }
    fn capsules_indexed_into(
        a: Segments64View<'_>,
        b: Segments64View<'_>,
        pairs: &[(u32, u32)],
        radii: Radii64<'_>,
        options: &Options,
        parallel: bool,
        out: &mut PairMask,
    ) -> Result<(), segbatch::Error> {
        use segbatch::pairs::{capsules_touch64_indexed_into, par_capsules_touch64_indexed_into};
        if parallel {
            par_capsules_touch64_indexed_into(a, b, pairs, radii, options, out)
        } else {
            capsules_touch64_indexed_into(a, b, pairs, radii, options, out)
        }
    }
    fn contacts_into(
        a: Segments64View<'_>,
        b: Segments64View<'_>,
        pairs: &[(u32, u32)],
        radii: Radii64<'_>,
        options: &Options,
        parallel: bool,
        out: &mut Vec<CapsuleContact64>,
    ) -> Result<(), segbatch::Error> {
        use segbatch::pairs::{capsule_contacts64_into, par_capsule_contacts64_into};
        if parallel {
            par_capsule_contacts64_into(a, b, pairs, radii, options, out)
        } else {
            capsule_contacts64_into(a, b, pairs, radii, options, out)
        }
    }
    fn capsules_touch_into(
        a: Segments64View<'_>,
        b: Segments64View<'_>,
        radii: Radii64<'_>,
        options: &Options,
        out: &mut PairMask,
    ) -> Result<(), segbatch::Error> {
        segbatch::pairs::capsules_touch64_into(a, b, radii, options, out)
    }
    fn closest_into(
        a: Segments64View<'_>,
        b: Segments64View<'_>,
        options: &Options,
        out: &mut ClosestBatch64,
    ) -> Result<(), segbatch::Error> {
        segbatch::pairs::closest_points64_into(a, b, options, Outputs::ALL, out)
    }
    fn closest_res(o: &ClosestBatch64) -> Res<'_, f64> {
        Res {
            dist2: o.dist2(),
            s: o.s(),
            t: o.t(),
            point_a: o.point_a(),
            point_b: o.point_b(),
            flags: bytemuck::cast_slice(o.flags()),
        }
    }
    fn cpa_into(
        a: Tracks64View<'_>,
        b: Tracks64View<'_>,
        window: Window64,
        out: &mut CpaBatch64,
    ) -> Result<(), segbatch::Error> {
        segbatch::motion::cpa64_into(a, b, window, out)
    }
    fn cpa_segments_into(
        a: Segments64View<'_>,
        b: Segments64View<'_>,
        out: &mut CpaBatch64,
    ) -> Result<(), segbatch::Error> {
        segbatch::motion::cpa_segments64_into(a, b, out)
    }
    fn cpa_res(o: &CpaBatch64) -> Res<'_, f64> {
        Res {
            dist2: o.dist2(),
            s: &[],
            t: o.t(),
            point_a: o.point_a(),
            point_b: o.point_b(),
            flags: bytemuck::cast_slice(o.flags()),
        }
    }
    fn hit(h: &Hit64) -> (u32, u32, f64, f64, f64) {
        (h.i, h.j, h.dist2, h.s, h.t)
    }
    fn make_hit(i: u32, j: u32, dist2: f64, s: f64, t: f64) -> Hit64 {
        Hit64 { i, j, dist2, s, t }
    }
    fn pair_hit(h: &PairHit64) -> (u32, u32, f64) {
        (h.i, h.j, h.dist2)
    }
    /// The pairs' segments gathered into two batches (the crate has no indexed `f64`
    /// closest points), then `closest_points64_into`: a pair's values do not depend on
    /// where it sits in a batch.
    fn params_into(
        a: Segments64View<'_>,
        b: Segments64View<'_>,
        pairs: &[(u32, u32)],
        options: &Options,
        (ga, gb): &mut (Segments64, Segments64),
        out: &mut ClosestBatch64,
    ) -> Result<(), segbatch::Error> {
        ga.clear();
        gb.clear();
        let at = |v: &Segments64View<'_>, k: u32| v.get(k as usize).expect("a hit names a member");
        ga.extend(pairs.iter().map(|&(i, _)| at(&a, i)));
        gb.extend(pairs.iter().map(|&(_, j)| at(&b, j)));
        segbatch::pairs::closest_points64_into(&*ga, &*gb, options, Outputs::PARAMS, out)
    }
    fn for_each_pair_within(
        a: Segments64View<'_>,
        b: Segments64View<'_>,
        radius: f64,
        options: &Options,
        parallel: bool,
        sink: &mut dyn FnMut(&[PairHit64]) -> ControlFlow<()>,
    ) -> Result<(), segbatch::Error> {
        if parallel {
            segbatch::sets::par_for_each_pair_within64(a, b, radius, options, sink)
        } else {
            segbatch::sets::for_each_pair_within64(a, b, radius, options, sink)
        }
    }
    fn for_each_self_pair_within(
        set: Segments64View<'_>,
        radius: f64,
        shared: SharedEndpoints,
        options: &Options,
        parallel: bool,
        sink: &mut dyn FnMut(&[PairHit64]) -> ControlFlow<()>,
    ) -> Result<(), segbatch::Error> {
        if parallel {
            segbatch::sets::par_for_each_self_pair_within64(set, radius, shared, options, sink)
        } else {
            segbatch::sets::for_each_self_pair_within64(set, radius, shared, options, sink)
        }
    }
    fn index_new(
        set: Segments64View<'_>,
        parallel: bool,
    ) -> Result<SegmentIndex64, segbatch::Error> {
        if parallel {
            SegmentIndex64::par_new(set)
        } else {
            SegmentIndex64::new(set)
        }
    }
    fn first_hits(
        index: &SegmentIndex64,
        rays: Segments64View<'_>,
        radius: f64,
        range: f64,
        parallel: bool,
    ) -> Result<Vec<Option<FirstHit64>>, segbatch::Error> {
        if parallel {
            index.par_first_hits(rays, radius, range)
        } else {
            index.first_hits(rays, radius, range)
        }
    }
    fn index_pairs_within(
        index: &SegmentIndex64,
        queries: Segments64View<'_>,
        radius: f64,
        first: u32,
        parallel: bool,
    ) -> Result<Vec<Hit64>, segbatch::Error> {
        let found = if parallel {
            index.par_pairs_within(queries, radius)
        } else {
            index.pairs_within(queries, radius)
        }?;
        Ok(found
            .into_iter()
            .map(|h| Hit64 {
                i: h.i + first,
                ..h
            })
            .collect())
    }
}

/// Whether a side (an array or a tuple of columns, as the Python layer passes them) is
/// `float64`: the query then runs in `f64` (the Python layer gives both sides one dtype).
fn is_f64(obj: &Bound<'_, PyAny>) -> bool {
    let first = match obj.cast::<PyTuple>() {
        Ok(t) => match t.get_item(0) {
            Ok(x) => x,
            Err(_) => return false,
        },
        Err(_) => obj.clone(),
    };
    first
        .cast::<PyUntypedArray>()
        .is_ok_and(|a| a.dtype().is_equiv_to(&numpy::dtype::<f64>(obj.py())))
}

/// The caller's data for one side, borrowed from NumPy for the duration of the call.
enum Held<'py, E: Real = f32> {
    /// `(N, C)`, any strides (the Python layer hands over aligned arrays only).
    Rows(PyReadonlyArray2<'py, E>),
    /// `C` contiguous columns of `N`.
    Cols(Vec<PyReadonlyArray1<'py, E>>),
}

/// One side as slices or a strided view, usable without the GIL.
#[derive(Clone, Copy)]
enum Src<'a, const C: usize, E = f32> {
    /// Records one after another, `C` numbers each.
    Rows(&'a [E]),
    /// The `C` columns.
    Cols([&'a [E]; C]),
    /// Any other layout (a transposed or sliced view, a zero-stride broadcast): read in
    /// place, chunk by chunk, never copied as a whole by the pairwise queries.
    Strided(ArrayView2<'a, E>),
}

/// The error for an array that cannot be read in place.
fn unreadable(name: &str, dtype: &str) -> PyErr {
    PyValueError::new_err(format!(
        "{name}: the array's data is not aligned for {dtype} (pass it through \
         segbatch.as_segments, which copies such arrays once)"
    ))
}

impl<'py, E: Real> Held<'py, E> {
    /// Borrows `obj` (an array or a tuple of columns, as the Python layer passes them).
    fn new(obj: &Bound<'py, PyAny>, name: &str, c: usize) -> PyResult<Self> {
        let dtype = E::DTYPE;
        if let Ok(t) = obj.cast::<PyTuple>() {
            if t.len() != c {
                return Err(PyValueError::new_err(format!(
                    "{name}: expected {c} columns, got {}",
                    t.len()
                )));
            }
            let cols = t
                .iter()
                .map(|x| {
                    x.extract::<PyReadonlyArray1<E>>().map_err(|_| {
                        PyTypeError::new_err(format!(
                            "{name}: each column must be a 1-D {dtype} array"
                        ))
                    })
                })
                .collect::<PyResult<Vec<_>>>()?;
            return Ok(Held::Cols(cols));
        }
        let arr = obj
            .extract::<PyReadonlyArray2<E>>()
            .map_err(|_| PyTypeError::new_err(format!("{name}: expected a 2-D {dtype} array")))?;
        let shape = arr.shape();
        if shape[1] != c {
            return Err(PyValueError::new_err(format!(
                "{name}: expected shape (N, {c}), got ({}, {})",
                shape[0], shape[1]
            )));
        }
        if !arr.is_aligned() {
            return Err(unreadable(name, dtype));
        }
        Ok(Held::Rows(arr))
    }

    /// The slices (columns checked contiguous and of equal length) or the strided view.
    fn src<const C: usize>(&self, name: &str) -> PyResult<Src<'_, C, E>> {
        match self {
            Held::Rows(a) => Ok(match a.as_slice() {
                Ok(rows) if a.is_c_contiguous() => Src::Rows(rows),
                _ => Src::Strided(a.as_array()),
            }),
            Held::Cols(cols) => {
                let mut out: [&[E]; C] = [&[]; C];
                for (k, (o, c)) in out.iter_mut().zip(cols).enumerate() {
                    *o = c.as_slice().map_err(|_| {
                        PyValueError::new_err(format!(
                            "{name}: column {k} must be contiguous and aligned"
                        ))
                    })?;
                }
                if let Some(bad) = out.iter().position(|c| c.len() != out[0].len()) {
                    return Err(PyValueError::new_err(format!(
                        "{name}: column {bad} has {} values, column 0 has {}",
                        out[bad].len(),
                        out[0].len()
                    )));
                }
                Ok(Src::Cols(out))
            }
        }
    }
}

impl<'a, const C: usize, E: Real> Src<'a, C, E> {
    fn len(&self) -> usize {
        match self {
            Src::Rows(r) => r.len() / C,
            Src::Cols(c) => c[0].len(),
            Src::Strided(v) => v.nrows(),
        }
    }

    /// Records `range` as a view: the caller's columns directly, or rows transposed into
    /// `buf` (its allocation reused; at most [`CHUNK`] records).
    fn view<'s, T: Record<C, E>>(
        &'s self,
        range: Range<usize>,
        buf: &'s mut Cols<C, E>,
    ) -> SoaView<'s, T, C, E> {
        match self {
            Src::Cols(cols) => SoaView::from_columns(*cols)
                .expect("columns checked equal")
                .view(range),
            Src::Rows(rows) => {
                let cols = buf.transpose(&rows[range.start * C..range.end * C]);
                SoaView::from_columns(cols).expect("columns of equal length")
            }
            Src::Strided(v) => {
                let cols = buf.gather(v.slice(s![range, ..]));
                SoaView::from_columns(cols).expect("columns of equal length")
            }
        }
    }

    /// Records `range` as a source of the same kind (no copy).
    fn sub(&self, range: Range<usize>) -> Src<'a, C, E> {
        match *self {
            Src::Rows(rows) => Src::Rows(&rows[range.start * C..range.end * C]),
            Src::Cols(cols) => Src::Cols(cols.map(|c| &c[range.clone()])),
            Src::Strided(v) => Src::Strided(v.slice_move(s![range, ..])),
        }
    }

    /// The whole side as a batch view: the caller's columns, or rows and strided arrays
    /// converted to columns once into `buf`.
    fn whole<'s, T: Record<C, E>>(
        &'s self,
        buf: &'s mut Whole<T, C, E>,
    ) -> Result<SoaView<'s, T, C, E>, Failure> {
        let n = self.len();
        let cols: [&[E]; C] = match self {
            Src::Cols(cols) => *cols,
            Src::Rows(rows) => {
                let records: &[[E; C]] = bytemuck::cast_slice(rows);
                for (k, col) in buf.cols.iter_mut().enumerate() {
                    *col = try_vec(n, "copy of an input")?;
                    col.extend(records.iter().map(|r| r[k]));
                }
                buf.columns()
            }
            Src::Strided(v) => {
                for (k, col) in buf.cols.iter_mut().enumerate() {
                    *col = try_vec(n, "copy of a strided input")?;
                    col.extend(v.column(k).iter().copied());
                }
                buf.columns()
            }
        };
        Ok(SoaView::from_columns(cols).expect("columns of equal length"))
    }
}

/// The columns of a whole side converted once by [`Src::whole`] (empty for an input
/// that already is columns).
struct Whole<T, const C: usize, E = f32> {
    cols: [Vec<E>; C],
    record: core::marker::PhantomData<T>,
}

impl<T, const C: usize, E> Whole<T, C, E> {
    fn new() -> Self {
        Whole {
            cols: core::array::from_fn(|_| Vec::new()),
            record: core::marker::PhantomData,
        }
    }

    fn columns(&self) -> [&[E]; C] {
        core::array::from_fn(|k| &self.cols[k][..])
    }
}

/// 32 bytes, 32-byte aligned: the storage of [`Cols`] (eight `f32` or four `f64`), so
/// every SIMD load of the kernel is aligned as it is in a library batch.
#[repr(C, align(32))]
#[derive(Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct Group([f32; 8]);

/// `C` scratch columns of `E` for one chunk, filled from rows by [`Cols::transpose`].
struct Cols<const C: usize, E = f32>([Vec<Group>; C], core::marker::PhantomData<E>);

impl<const C: usize, E: Real> Cols<C, E> {
    fn new() -> Self {
        let groups = CHUNK * size_of::<E>() / size_of::<Group>();
        Cols(
            core::array::from_fn(|_| vec![Group::default(); groups]),
            core::marker::PhantomData,
        )
    }

    /// The columns as blocks of eight values.
    fn blocks(&mut self) -> [&mut [[E; 8]]; C] {
        self.0.each_mut().map(|c| bytemuck::cast_slice_mut(c))
    }

    /// The first `n` values of every column.
    fn firsts(&self, n: usize) -> [&[E]; C] {
        core::array::from_fn(|k| &bytemuck::cast_slice::<Group, E>(&self.0[k])[..n])
    }

    /// Transposes `rows` (`C` numbers each, at most [`CHUNK`] rows) into the columns, eight
    /// rows at a time from fixed-size blocks (no bounds checks in the inner loop), and
    /// returns the columns (exactly one value per row).
    fn transpose(&mut self, rows: &[E]) -> [&[E]; C] {
        let records: &[[E; C]] = bytemuck::cast_slice(rows);
        let n = records.len();
        let mut cols = self.blocks();
        let mut blocks = records.chunks_exact(8);
        for (g, block) in blocks.by_ref().enumerate() {
            let block: &[[E; C]; 8] = block.try_into().expect("8 records");
            for (k, col) in cols.iter_mut().enumerate() {
                col[g] = core::array::from_fn(|l| block[l][k]);
            }
        }
        let rest = blocks.remainder();
        if !rest.is_empty() {
            let g = n / 8;
            for (k, col) in cols.iter_mut().enumerate() {
                col[g] = core::array::from_fn(|l| rest.get(l).map_or(E::default(), |r| r[k]));
            }
        }
        self.firsts(n)
    }

    /// Copies the records of a strided view (at most [`CHUNK`]) into the columns and returns
    /// them (exactly one value per record).
    fn gather(&mut self, rows: ArrayView2<'_, E>) -> [&[E]; C] {
        let n = rows.nrows();
        for (k, col) in self.0.iter_mut().enumerate() {
            let dst = &mut bytemuck::cast_slice_mut::<Group, E>(col)[..n];
            for (d, x) in dst.iter_mut().zip(rows.column(k)) {
                *d = *x;
            }
        }
        self.firsts(n)
    }
}

/// Both sides of a pairwise query, checked to be of equal length.
fn pair_len<const C: usize, E: Real>(a: &Src<'_, C, E>, b: &Src<'_, C, E>) -> PyResult<usize> {
    let (n, m) = (a.len(), b.len());
    if n != m {
        return Err(PyValueError::new_err(format!(
            "a and b must have the same number of rows: a has {n}, b has {m}"
        )));
    }
    Ok(n)
}

/// Radii as passed from Python: one number, or one per pair (in the query's precision).
enum RadiusArg<'py, E: Real = f32> {
    Uniform(E),
    PerPair(PyReadonlyArray1<'py, E>),
}

impl<'py, E: Real> RadiusArg<'py, E> {
    fn new(obj: &Bound<'py, PyAny>, name: &str) -> PyResult<Self> {
        if let Ok(r) = obj.extract::<f64>() {
            return Ok(RadiusArg::Uniform(E::from_f64(r)));
        }
        obj.extract::<PyReadonlyArray1<E>>()
            .map(RadiusArg::PerPair)
            .map_err(|_| {
                PyTypeError::new_err(format!(
                    "{name}: expected a number or a 1-D {} array of one radius per pair",
                    E::DTYPE
                ))
            })
    }
}

/// Both radii of a capsule or contact query as slices, usable without the GIL.
#[derive(Clone, Copy)]
enum RadiiSrc<'a, E> {
    Uniform(E, E),
    PerPair(&'a [E], &'a [E]),
}

impl<'a, E: Real> RadiiSrc<'a, E> {
    /// Checks the forms and lengths, and validates the values once (so an error names the
    /// first bad pair of the whole input).
    fn new(ra: &'a RadiusArg<'_, E>, rb: &'a RadiusArg<'_, E>, n: usize) -> PyResult<Self> {
        let slice = |r: &'a PyReadonlyArray1<'_, E>, name: &str| -> PyResult<&'a [E]> {
            let s = r.as_slice().map_err(|_| {
                PyValueError::new_err(format!("{name}: the array must be contiguous"))
            })?;
            if s.len() != n {
                return Err(PyValueError::new_err(format!(
                    "{name}: expected {n} radii (one per pair), got {}",
                    s.len()
                )));
            }
            Ok(s)
        };
        let src = match (ra, rb) {
            (RadiusArg::Uniform(a), RadiusArg::Uniform(b)) => RadiiSrc::Uniform(*a, *b),
            (RadiusArg::PerPair(a), RadiusArg::PerPair(b)) => {
                RadiiSrc::PerPair(slice(a, "radius_a")?, slice(b, "radius_b")?)
            }
            _ => {
                return Err(PyTypeError::new_err(
                    "radius_a and radius_b must both be numbers or both be arrays",
                ));
            }
        };
        src.radii(0..n).map_err(lib_error)?;
        Ok(src)
    }

    /// The library's radii for pairs `range`.
    fn radii(&self, range: Range<usize>) -> Result<E::Radii<'a>, segbatch::Error> {
        match *self {
            RadiiSrc::Uniform(a, b) => E::uniform_radii(a, b),
            RadiiSrc::PerPair(a, b) => E::per_pair_radii(&a[range.clone()], &b[range]),
        }
    }
}

/// The options of a call: extents by name, an optional absolute tolerance.
fn options(extent_a: &str, extent_b: &str, tolerance: Option<f32>) -> PyResult<Options> {
    let parse = |s: &str, name: &str| {
        s.parse::<Extent>()
            .map_err(|e| PyValueError::new_err(format!("{name}: {e}")))
    };
    let mut o = Options::new(parse(extent_a, "extent_a")?, parse(extent_b, "extent_b")?);
    if let Some(eps) = tolerance {
        if !(eps >= 0.0 && eps.is_finite()) {
            return Err(PyValueError::new_err(format!(
                "tolerance must be a finite number >= 0, got {eps}"
            )));
        }
        o = o.with_tolerance(Tolerance::absolute(eps));
    }
    Ok(o)
}

/// A time window `[0, end]` in the precision of `E`.
fn window<E: Real>(end: f64) -> PyResult<E::Window> {
    E::window(end).ok_or_else(|| {
        PyValueError::new_err(format!("window must be >= 0 (inf allowed), got {end}"))
    })
}

// ---------------------------------------------------------------------------------------
// Output columns and the chunk loop.

/// An output array as passed from Python, borrowed for writing: the float columns in the
/// query's precision `E`.
enum OutArray<'py, E: Real> {
    Real(PyReadwriteArray1<'py, E>),
    Points(PyReadwriteArray2<'py, E>),
    U8(PyReadwriteArray1<'py, u8>),
    Bool(PyReadwriteArray1<'py, bool>),
}

impl<'py, E: Real> OutArray<'py, E> {
    /// Borrows `obj` as the output column `name` of `kind` for `n` pairs.
    fn new(obj: &Bound<'py, PyAny>, name: &str, kind: Kind, n: usize) -> PyResult<Self> {
        let wrong = |what: &str| {
            PyTypeError::new_err(format!(
                "out[{name:?}]: expected a writable {what} array that no input or other \
                 output shares memory with"
            ))
        };
        let dtype = E::DTYPE;
        let (arr, shape) = match kind {
            Kind::Real(1) => {
                let a = obj
                    .extract::<PyReadwriteArray1<E>>()
                    .map_err(|_| wrong(&format!("1-D {dtype}")))?;
                let shape = a.shape().to_vec();
                (OutArray::Real(a), shape)
            }
            Kind::Real(w) => {
                let a = obj
                    .extract::<PyReadwriteArray2<E>>()
                    .map_err(|_| wrong(&format!("2-D {dtype}")))?;
                let shape = a.shape().to_vec();
                if shape[1] != w {
                    return Err(PyValueError::new_err(format!(
                        "out[{name:?}]: expected shape ({n}, {w}), got {shape:?}"
                    )));
                }
                (OutArray::Points(a), shape)
            }
            Kind::U8 => {
                let a = obj
                    .extract::<PyReadwriteArray1<u8>>()
                    .map_err(|_| wrong("1-D uint8"))?;
                let shape = a.shape().to_vec();
                (OutArray::U8(a), shape)
            }
            Kind::Bool => {
                let a = obj
                    .extract::<PyReadwriteArray1<bool>>()
                    .map_err(|_| wrong("1-D bool"))?;
                let shape = a.shape().to_vec();
                (OutArray::Bool(a), shape)
            }
        };
        if shape[0] != n {
            return Err(PyValueError::new_err(format!(
                "out[{name:?}]: expected {n} rows (one per pair), got {}",
                shape[0]
            )));
        }
        Ok(arr)
    }

    /// The whole column as a slice (C-contiguous).
    fn col(&mut self, name: &str) -> PyResult<Col<'_, E>> {
        let err = |_| {
            PyValueError::new_err(format!(
                "out[{name:?}]: the array must be C-contiguous and aligned"
            ))
        };
        Ok(match self {
            OutArray::Real(a) => Col::Real(a.as_slice_mut().map_err(err)?, 1),
            OutArray::Points(a) => {
                let w = a.shape()[1];
                Col::Real(a.as_slice_mut().map_err(err)?, w)
            }
            OutArray::U8(a) => Col::U8(a.as_slice_mut().map_err(err)?),
            OutArray::Bool(a) => Col::Bool(a.as_slice_mut().map_err(err)?),
        })
    }
}

/// An output column: `E` with `width` values per pair, bytes or booleans.
enum Col<'a, E> {
    Real(&'a mut [E], usize),
    U8(&'a mut [u8]),
    Bool(&'a mut [bool]),
}

/// The part of an output column that belongs to one chunk.
enum ColMut<'a, E> {
    Real(&'a mut [E]),
    U8(&'a mut [u8]),
    Bool(&'a mut [bool]),
}

impl<E: Real> ColMut<'_, E> {
    fn real(&mut self) -> &mut [E] {
        match self {
            ColMut::Real(s) => s,
            _ => unreachable!("column kinds are fixed by the query"),
        }
    }

    fn u8(&mut self) -> &mut [u8] {
        match self {
            ColMut::U8(s) => s,
            _ => unreachable!("column kinds are fixed by the query"),
        }
    }

    fn bool(&mut self) -> &mut [bool] {
        match self {
            ColMut::Bool(s) => s,
            _ => unreachable!("column kinds are fixed by the query"),
        }
    }

    /// Copies `D` point columns into `(x, y, z)` rows.
    fn points<const D: usize>(&mut self, cols: [&[E]; D]) {
        let dst = self.real();
        let n = dst.len() / D;
        // Eight rows at a time from fixed-size arrays (no bounds checks, shuffles), then
        // the remainder row by row.
        let mut blocks = dst.chunks_exact_mut(8 * D);
        for (g, block) in blocks.by_ref().enumerate() {
            let src: [[E; 8]; D] =
                core::array::from_fn(|k| cols[k][8 * g..8 * g + 8].try_into().expect("8 values"));
            for (l, row) in block.chunks_exact_mut(D).enumerate() {
                let row: &mut [E; D] = row.try_into().expect("D values");
                *row = core::array::from_fn(|k| src[k][l]);
            }
        }
        let done = n - n % 8;
        for (i, row) in blocks.into_remainder().chunks_exact_mut(D).enumerate() {
            for (k, x) in row.iter_mut().enumerate() {
                *x = cols[k][done + i];
            }
        }
    }

    /// `sqrt` of `dist2`.
    fn sqrt_of(&mut self, dist2: &[E]) {
        for (d, x) in self.real().iter_mut().zip(dist2) {
            *d = x.sqrt();
        }
    }
}

/// Copies a chunk's columns out by name (the closest-points and closest-approach
/// queries; `distance` is `sqrt(dist2)`).
fn copy_out<E: Real>(o: Res<'_, E>, names: &[&'static str], cols: &mut [ColMut<'_, E>]) {
    for (name, c) in names.iter().zip(cols) {
        match *name {
            "dist2" => c.real().copy_from_slice(o.dist2),
            "distance" => c.sqrt_of(o.dist2),
            "s" => c.real().copy_from_slice(o.s),
            "t" => c.real().copy_from_slice(o.t),
            "point_a" => c.points(o.point_a),
            "point_b" => c.points(o.point_b),
            _ => c.u8().copy_from_slice(o.flags),
        }
    }
}

/// The type of an output column: the query's float type with a width, bytes, booleans.
#[derive(Clone, Copy)]
enum Kind {
    Real(usize),
    U8,
    Bool,
}

/// How many thread pools of distinct sizes are kept; the least recently used one beyond
/// this is dropped (its threads end once no call uses it). Sizes are clamped to the CPU
/// count, so a few pools cover every realistic use and idle threads stay bounded.
const MAX_POOLS: usize = 4;

/// The kept pools with their sizes, most recently used first.
type Pools = Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>>;

/// The rayon pool of `n` threads: one shared pool per size, at most [`MAX_POOLS`] kept.
fn pool(n: usize) -> Result<Arc<rayon::ThreadPool>, Failure> {
    static POOLS: OnceLock<Pools> = OnceLock::new();
    let mut pools = POOLS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(k) = pools.iter().position(|(size, _)| *size == n) {
        let kept = pools.remove(k);
        let p = Arc::clone(&kept.1);
        pools.insert(0, kept);
        return Ok(p);
    }
    let p = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .thread_name(|i| format!("segbatch-{i}"))
            .build()
            .map_err(|e| Failure::Pool(e.to_string()))?,
    );
    pools.insert(0, (n, Arc::clone(&p)));
    pools.truncate(MAX_POOLS);
    Ok(p)
}

/// The number of CPUs this process may run on.
fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// How many threads a call may use: `None` for all cores (rayon's global pool). A count
/// above the CPU count is clamped to it (the Python layer warns when it clamps).
#[derive(Clone, Copy)]
struct Threads(Option<usize>);

impl Threads {
    fn new(threads: Option<usize>) -> PyResult<Self> {
        match threads {
            Some(0) => Err(PyValueError::new_err(
                "threads must be at least 1 (or None for all cores)",
            )),
            t => Ok(Threads(t.map(|n| n.min(cpus())))),
        }
    }

    fn parallel(self) -> bool {
        self.0 != Some(1)
    }

    /// Runs `f` on this many threads (on the calling thread when one).
    fn install<R: Send>(self, f: impl FnOnce() -> R + Send) -> Result<R, Failure> {
        match self.0 {
            None | Some(1) => Ok(f()),
            Some(n) => Ok(pool(n)?.install(f)),
        }
    }
}

thread_local! {
    /// Scratch buffers kept between calls, one per type, per thread: freeing a few hundred
    /// KiB after every call let the allocator hand the pages back to the system, and the
    /// next call paid page faults for them (10% of a 1M-pair call).
    static SCRATCH: std::cell::RefCell<HashMap<std::any::TypeId, Box<dyn std::any::Any>>> =
        std::cell::RefCell::new(HashMap::new());
}

/// A scratch value taken from this thread's [`SCRATCH`] (or made), put back when dropped.
struct Pooled<S: 'static>(Option<S>);

impl<S: 'static> Pooled<S> {
    fn take(make: impl FnOnce() -> S) -> Self {
        let kept = SCRATCH.with(|p| p.borrow_mut().remove(&std::any::TypeId::of::<S>()));
        Pooled(Some(
            kept.and_then(|b| b.downcast::<S>().ok())
                .map_or_else(make, |b| *b),
        ))
    }

    fn get(&mut self) -> &mut S {
        self.0.as_mut().expect("present until dropped")
    }
}

impl<S: 'static> Drop for Pooled<S> {
    fn drop(&mut self) {
        if let Some(s) = self.0.take() {
            SCRATCH.with(|p| {
                p.borrow_mut()
                    .insert(std::any::TypeId::of::<S>(), Box::new(s))
            });
        }
    }
}

/// The largest step of a pairwise query between two checks for Ctrl-C (see [`stepped`]):
/// 64 chunks.
const STEP: usize = 64 * CHUNK;

impl<'a, E> Col<'a, E> {
    /// The first `rows` pairs' part of the column and the rest.
    fn split(self, rows: usize) -> (Col<'a, E>, Col<'a, E>) {
        match self {
            Col::Real(v, w) => {
                let (h, t) = v.split_at_mut(rows * w);
                (Col::Real(h, w), Col::Real(t, w))
            }
            Col::U8(v) => {
                let (h, t) = v.split_at_mut(rows);
                (Col::U8(h), Col::U8(t))
            }
            Col::Bool(v) => {
                let (h, t) = v.split_at_mut(rows);
                (Col::Bool(h), Col::Bool(t))
            }
        }
    }
}

/// Runs `f` on every item of `jobs` on `threads`, each thread with its own scratch from
/// `init` (kept between calls).
fn for_jobs<J, S, I, F>(threads: Threads, jobs: Vec<J>, init: &I, f: &F) -> Result<(), Failure>
where
    J: Send,
    S: 'static,
    I: Fn() -> S + Sync + Send,
    F: Fn(&mut S, J) -> Result<(), Failure> + Sync + Send,
{
    if !threads.parallel() || jobs.len() <= 1 {
        let mut s = Pooled::take(init);
        jobs.into_iter().try_for_each(|j| f(s.get(), j))
    } else {
        threads.install(|| {
            jobs.into_par_iter()
                .try_for_each_init(|| Pooled::take(init), |s, j| f(s.get(), j))
        })?
    }
}

/// Runs `f` on every chunk of `n` pairs with its part of every output column, on
/// `threads`, each thread with its own scratch from `init` (kept between calls), in steps
/// of [`STEP`] pairs with the GIL released and a check for Ctrl-C between steps.
fn run_chunks<E, S, I, F>(
    py: Python<'_>,
    n: usize,
    threads: Threads,
    cols: Vec<Col<'_, E>>,
    init: I,
    f: F,
) -> PyResult<()>
where
    E: Real,
    S: 'static,
    I: Fn() -> S + Sync + Send,
    F: Fn(&mut S, Range<usize>, &mut [ColMut<'_, E>]) -> Result<(), segbatch::Error> + Sync + Send,
{
    let mut rest = cols;
    stepped(py, n, 8 * CHUNK, STEP, |step| {
        let mut jobs: Vec<(Range<usize>, Vec<ColMut<'_, E>>)> = (step.start..step.end)
            .step_by(CHUNK)
            .map(|k| (k..(k + CHUNK).min(step.end), Vec::with_capacity(rest.len())))
            .collect();
        let mut tails = Vec::with_capacity(rest.len());
        for col in rest.drain(..) {
            let (head, tail) = col.split(step.len());
            tails.push(tail);
            match head {
                Col::Real(v, w) => {
                    for (job, s) in jobs.iter_mut().zip(v.chunks_mut(CHUNK * w)) {
                        job.1.push(ColMut::Real(s));
                    }
                }
                Col::U8(v) => {
                    for (job, s) in jobs.iter_mut().zip(v.chunks_mut(CHUNK)) {
                        job.1.push(ColMut::U8(s));
                    }
                }
                Col::Bool(v) => {
                    for (job, s) in jobs.iter_mut().zip(v.chunks_mut(CHUNK)) {
                        job.1.push(ColMut::Bool(s));
                    }
                }
            }
        }
        rest = tails;
        for_jobs(threads, jobs, &init, &|s: &mut S,
                                         (r, mut c): (
            Range<usize>,
            Vec<ColMut<'_, E>>,
        )| {
            f(s, r, &mut c).map_err(Failure::Lib)
        })
    })
}

/// The arrays of `out` (a dict of output name to a NumPy array of `n` rows, each name one
/// of `known`), borrowed for writing, with their names.
fn out_arrays<'py, E: Real>(
    out: &Bound<'py, PyDict>,
    known: &[(&'static str, Kind)],
    n: usize,
) -> PyResult<(Vec<&'static str>, Vec<OutArray<'py, E>>)> {
    let mut names = Vec::new();
    let mut arrays = Vec::new();
    for (key, value) in out.iter() {
        let key: String = key
            .extract()
            .map_err(|_| PyTypeError::new_err("out: keys must be output names (str)"))?;
        let Some(&(name, kind)) = known.iter().find(|(k, _)| *k == key) else {
            let all: Vec<_> = known.iter().map(|(k, _)| *k).collect();
            return Err(PyValueError::new_err(format!(
                "unknown output {key:?}; expected some of {}",
                all.join(", ")
            )));
        };
        names.push(name);
        arrays.push(OutArray::new(&value, name, kind, n)?);
    }
    Ok((names, arrays))
}

/// Runs a pairwise query with the GIL released, writing the columns of `out` (a dict of
/// output name to a NumPy array of `n` rows, each name one of `known`, the float columns
/// in the precision `E`).
fn pairwise<E, S, I, F>(
    py: Python<'_>,
    n: usize,
    threads: Threads,
    out: &Bound<'_, PyDict>,
    known: &[(&'static str, Kind)],
    init: I,
    f: F,
) -> PyResult<()>
where
    E: Real,
    S: 'static,
    I: Fn() -> S + Sync + Send,
    F: Fn(
            &mut S,
            Range<usize>,
            &[&'static str],
            &mut [ColMut<'_, E>],
        ) -> Result<(), segbatch::Error>
        + Sync
        + Send,
{
    let (names, mut arrays) = out_arrays::<E>(out, known, n)?;
    let cols = arrays
        .iter_mut()
        .zip(&names)
        .map(|(a, name)| a.col(name))
        .collect::<PyResult<Vec<_>>>()?;
    let names_ref = &names;
    run_chunks(py, n, threads, cols, init, |s, r, c| f(s, r, names_ref, c))
}

// ---------------------------------------------------------------------------------------
// Pairwise queries.

const F: Kind = Kind::Real(1);
/// The columns of a [`ClosestBatch`] (and `distance`).
const CLOSEST_COLS: [(&str, Kind); 7] = [
    ("dist2", F),
    ("distance", F),
    ("s", F),
    ("t", F),
    ("point_a", P3),
    ("point_b", P3),
    ("flags", Kind::U8),
];
/// The columns of a [`ContactBatch`].
const CONTACT_COLS: [(&str, Kind); 3] = [("hit", Kind::Bool), ("t", F), ("flags", Kind::U8)];
/// The columns of [`Intersections2`] (and `distance`).
const INTERSECT2_COLS: [(&str, Kind); 10] = [
    ("kind", Kind::U8),
    ("s", F),
    ("t", F),
    ("s_end", F),
    ("t_end", F),
    ("dist2", F),
    ("distance", F),
    ("point_a", P2),
    ("point_b", P2),
    ("flags", Kind::U8),
];
const P3: Kind = Kind::Real(3);
const P2: Kind = Kind::Real(2);

/// Scratch of a pairwise query: both sides' transposed chunks and the result.
struct Scratch<T, const C: usize, O, E = f32> {
    a: Cols<C, E>,
    b: Cols<C, E>,
    out: O,
    record: core::marker::PhantomData<T>,
}

impl<T: Record<C, E>, const C: usize, O: Default, E: Real> Scratch<T, C, O, E> {
    fn new() -> Self {
        Scratch {
            a: Cols::new(),
            b: Cols::new(),
            out: O::default(),
            record: core::marker::PhantomData,
        }
    }

    /// Pairs `r` of both sides as views, and the chunk's output.
    fn views<'s>(
        &'s mut self,
        sa: &'s Src<'_, C, E>,
        sb: &'s Src<'_, C, E>,
        r: Range<usize>,
    ) -> (SoaView<'s, T, C, E>, SoaView<'s, T, C, E>, &'s mut O) {
        let va = sa.view(r.clone(), &mut self.a);
        let vb = sb.view(r, &mut self.b);
        (va, vb, &mut self.out)
    }
}

/// Closest points of `a[i]` and `b[i]`: the library's `closest_points_rows_to_slices`
/// (rows) or `closest_points_to_slices` (columns), sequential or parallel, writing straight
/// into the NumPy output arrays with the GIL released, [`STEP`] pairs at a time. Strided
/// input and rows against columns go chunk by chunk through `closest_points_into`, and
/// `float64` input (any layout) through `closest_points64_into`, into `float64` columns.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (a, b, extent_a, extent_b, tolerance, out, threads))]
fn closest_points<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    extent_a: &str,
    extent_b: &str,
    tolerance: Option<f32>,
    out: &Bound<'py, PyDict>,
    threads: Option<usize>,
) -> PyResult<()> {
    let threads = Threads::new(threads)?;
    let opts = options(extent_a, extent_b, tolerance)?;
    if is_f64(a) {
        let (ha, hb) = (Held::<f64>::new(a, "a", 6)?, Held::new(b, "b", 6)?);
        let (sa, sb) = (ha.src::<6>("a")?, hb.src::<6>("b")?);
        return closest_chunks(py, sa, sb, &opts, out, threads);
    }
    let (ha, hb) = (Held::<f32>::new(a, "a", 6)?, Held::new(b, "b", 6)?);
    let (sa, sb) = (ha.src::<6>("a")?, hb.src::<6>("b")?);
    let n = pair_len(&sa, &sb)?;
    let direct = matches!(
        (sa, sb),
        (Src::Rows(_), Src::Rows(_)) | (Src::Cols(_), Src::Cols(_))
    );
    if !direct {
        return closest_chunks(py, sa, sb, &opts, out, threads);
    }
    let (names, mut arrays) = out_arrays::<f32>(out, &CLOSEST_COLS, n)?;
    let mut rest = names
        .iter()
        .zip(arrays.iter_mut())
        .map(|(name, array)| Ok((*name, array.col(name)?)))
        .collect::<PyResult<Vec<_>>>()?;
    let parallel = threads.parallel();
    stepped(py, n, 8 * CHUNK, STEP, |r| {
        let mut slices = ClosestSlices::default();
        let mut tails = Vec::with_capacity(rest.len());
        for (name, col) in rest.drain(..) {
            let (head, tail) = col.split(r.len());
            tails.push((name, tail));
            match (name, head) {
                ("dist2", Col::Real(c, _)) => slices.dist2 = Some(c),
                ("distance", Col::Real(c, _)) => slices.distance = Some(c),
                ("s", Col::Real(c, _)) => slices.s = Some(c),
                ("t", Col::Real(c, _)) => slices.t = Some(c),
                ("point_a", Col::Real(c, _)) => {
                    slices.point_a = Some(bytemuck::cast_slice_mut(c));
                }
                ("point_b", Col::Real(c, _)) => {
                    slices.point_b = Some(bytemuck::cast_slice_mut(c));
                }
                (_, Col::U8(c)) => slices.flags = Some(bytemuck::cast_slice_mut(c)),
                _ => unreachable!("column kinds are fixed by CLOSEST_COLS"),
            }
        }
        rest = tails;
        threads
            .install(|| match (sa, sb) {
                (Src::Rows(ra), Src::Rows(rb)) => {
                    let (ra, rb): (&[Segment], &[Segment]) =
                        (bytemuck::cast_slice(ra), bytemuck::cast_slice(rb));
                    let (ra, rb) = (&ra[r.clone()], &rb[r.clone()]);
                    if parallel {
                        segbatch::pairs::par_closest_points_rows_to_slices(ra, rb, &opts, slices)
                    } else {
                        segbatch::pairs::closest_points_rows_to_slices(ra, rb, &opts, slices)
                    }
                }
                (Src::Cols(ca), Src::Cols(cb)) => {
                    let va = SoaView::<Segment, 6>::from_columns(ca)?.view(r.clone());
                    let vb = SoaView::<Segment, 6>::from_columns(cb)?.view(r.clone());
                    if parallel {
                        segbatch::pairs::par_closest_points_to_slices(va, vb, &opts, slices)
                    } else {
                        segbatch::pairs::closest_points_to_slices(va, vb, &opts, slices)
                    }
                }
                _ => unreachable!("direct layouts only"),
            })?
            .map_err(Failure::Lib)
    })
}

/// [`closest_points`] chunk by chunk in the precision of `E` (see [`pairwise`]).
fn closest_chunks<E: Real>(
    py: Python<'_>,
    sa: Src<'_, 6, E>,
    sb: Src<'_, 6, E>,
    opts: &Options,
    out: &Bound<'_, PyDict>,
    threads: Threads,
) -> PyResult<()> {
    let n = pair_len(&sa, &sb)?;
    pairwise(
        py,
        n,
        threads,
        out,
        &CLOSEST_COLS,
        Scratch::<E::Segment, 6, E::Closest, E>::new,
        |s, r, names, cols| {
            let (va, vb, out) = s.views(&sa, &sb, r);
            E::closest_into(va, vb, opts, out)?;
            copy_out(E::closest_res(out), names, cols);
            Ok(())
        },
    )
}

/// Do capsules `(a[i], radius_a)` and `(b[i], radius_b)` touch?
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (a, b, radius_a, radius_b, extent_a, extent_b, tolerance, out, threads))]
fn capsules_touch<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    radius_a: &Bound<'py, PyAny>,
    radius_b: &Bound<'py, PyAny>,
    extent_a: &str,
    extent_b: &str,
    tolerance: Option<f32>,
    out: &Bound<'py, PyDict>,
    threads: Option<usize>,
) -> PyResult<()> {
    let threads = Threads::new(threads)?;
    let opts = options(extent_a, extent_b, tolerance)?;
    let sides = (a, b, radius_a, radius_b);
    if is_f64(a) {
        capsules_of::<f64>(py, sides, &opts, out, threads)
    } else {
        capsules_of::<f32>(py, sides, &opts, out, threads)
    }
}

/// The sides and radii of a capsule query as passed from Python.
type CapsuleArgs<'a, 'py> = (
    &'a Bound<'py, PyAny>,
    &'a Bound<'py, PyAny>,
    &'a Bound<'py, PyAny>,
    &'a Bound<'py, PyAny>,
);

/// [`capsules_touch`] in the precision of `E` (radii too).
fn capsules_of<E: Real>(
    py: Python<'_>,
    (a, b, radius_a, radius_b): CapsuleArgs<'_, '_>,
    opts: &Options,
    out: &Bound<'_, PyDict>,
    threads: Threads,
) -> PyResult<()> {
    let (ha, hb) = (Held::<E>::new(a, "a", 6)?, Held::new(b, "b", 6)?);
    let (sa, sb) = (ha.src::<6>("a")?, hb.src::<6>("b")?);
    let n = pair_len(&sa, &sb)?;
    let (ra, rb) = (
        RadiusArg::<E>::new(radius_a, "radius_a")?,
        RadiusArg::new(radius_b, "radius_b")?,
    );
    let radii = RadiiSrc::new(&ra, &rb, n)?;
    pairwise::<E, _, _, _>(
        py,
        n,
        threads,
        out,
        &[("touch", Kind::Bool)],
        Scratch::<E::Segment, 6, PairMask, E>::new,
        |s, r, _, cols| {
            let rr = radii.radii(r.clone())?;
            let (va, vb, out) = s.views(&sa, &sb, r);
            E::capsules_touch_into(va, vb, rr, opts, out)?;
            let words = out.words();
            for (i, x) in cols[0].bool().iter_mut().enumerate() {
                *x = (words[i / 64] >> (i % 64)) & 1 == 1;
            }
            Ok(())
        },
    )
}

/// The columns of a [`CpaBatch`].
const CPA_COLS: [(&str, Kind); 6] = [
    ("t", F),
    ("dist2", F),
    ("distance", F),
    ("point_a", P3),
    ("point_b", P3),
    ("flags", Kind::U8),
];

/// Closest point of approach in time of tracks (`segments` false: position, velocity) or
/// of one step along segments (`segments` true: start, end; window `[0, 1]`), in `float64`
/// for `float64` input.
#[pyfunction]
#[pyo3(signature = (a, b, window_end, segments, out, threads))]
fn cpa<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    window_end: f64,
    segments: bool,
    out: &Bound<'py, PyDict>,
    threads: Option<usize>,
) -> PyResult<()> {
    if is_f64(a) {
        cpa_chunks::<f64>(py, a, b, window_end, segments, out, threads)
    } else {
        cpa_chunks::<f32>(py, a, b, window_end, segments, out, threads)
    }
}

/// [`cpa`] in the precision of `E`.
fn cpa_chunks<E: Real>(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    window_end: f64,
    segments: bool,
    out: &Bound<'_, PyDict>,
    threads: Option<usize>,
) -> PyResult<()> {
    let threads = Threads::new(threads)?;
    let w = window::<E>(window_end)?;
    let (ha, hb) = (Held::<E>::new(a, "a", 6)?, Held::new(b, "b", 6)?);
    let (sa, sb) = (ha.src::<6>("a")?, hb.src::<6>("b")?);
    let n = pair_len(&sa, &sb)?;
    if segments {
        pairwise(
            py,
            n,
            threads,
            out,
            &CPA_COLS,
            Scratch::<E::Segment, 6, E::Cpa, E>::new,
            |s, r, names, cols| {
                let (va, vb, out) = s.views(&sa, &sb, r);
                E::cpa_segments_into(va, vb, out)?;
                copy_out(E::cpa_res(out), names, cols);
                Ok(())
            },
        )
    } else {
        pairwise(
            py,
            n,
            threads,
            out,
            &CPA_COLS,
            Scratch::<E::Track, 6, E::Cpa, E>::new,
            |s, r, names, cols| {
                let (va, vb, out) = s.views(&sa, &sb, r);
                E::cpa_into(va, vb, w, out)?;
                copy_out(E::cpa_res(out), names, cols);
                Ok(())
            },
        )
    }
}

/// Copies a contact chunk's columns out.
fn contact_out<E: Real>(o: &E::Contact, names: &[&'static str], cols: &mut [ColMut<'_, E>]) {
    let (hit, t, flags) = E::contact_res(o);
    for (name, c) in names.iter().zip(cols) {
        match *name {
            "hit" => c.bool().copy_from_slice(hit),
            "t" => c.real().copy_from_slice(t),
            _ => c.u8().copy_from_slice(flags),
        }
    }
}

/// First contact of moving spheres: tracks over a window, or one step along segments (in
/// `float64`, radii and window too, for `float64` input).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (a, b, radius_a, radius_b, window_end, segments, out, threads))]
fn first_contact<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    radius_a: &Bound<'py, PyAny>,
    radius_b: &Bound<'py, PyAny>,
    window_end: f64,
    segments: bool,
    out: &Bound<'py, PyDict>,
    threads: Option<usize>,
) -> PyResult<()> {
    let threads = Threads::new(threads)?;
    let sides = (a, b, radius_a, radius_b);
    if is_f64(a) {
        contact_of::<f64>(py, sides, window_end, segments, out, threads)
    } else {
        contact_of::<f32>(py, sides, window_end, segments, out, threads)
    }
}

/// [`first_contact`] in the precision of `E`.
fn contact_of<E: Real>(
    py: Python<'_>,
    (a, b, radius_a, radius_b): CapsuleArgs<'_, '_>,
    window_end: f64,
    segments: bool,
    out: &Bound<'_, PyDict>,
    threads: Threads,
) -> PyResult<()> {
    let w = window::<E>(window_end)?;
    let (ha, hb) = (Held::<E>::new(a, "a", 6)?, Held::new(b, "b", 6)?);
    let (sa, sb) = (ha.src::<6>("a")?, hb.src::<6>("b")?);
    let n = pair_len(&sa, &sb)?;
    let (ra, rb) = (
        RadiusArg::<E>::new(radius_a, "radius_a")?,
        RadiusArg::new(radius_b, "radius_b")?,
    );
    let radii = RadiiSrc::new(&ra, &rb, n)?;
    if segments {
        pairwise::<E, _, _, _>(
            py,
            n,
            threads,
            out,
            &CONTACT_COLS,
            Scratch::<E::Segment, 6, E::Contact, E>::new,
            |s, r, names, cols| {
                let rr = radii.radii(r.clone())?;
                let (va, vb, out) = s.views(&sa, &sb, r);
                E::first_contact_segments_into(va, vb, rr, out)?;
                contact_out(out, names, cols);
                Ok(())
            },
        )
    } else {
        pairwise::<E, _, _, _>(
            py,
            n,
            threads,
            out,
            &CONTACT_COLS,
            Scratch::<E::Track, 6, E::Contact, E>::new,
            |s, r, names, cols| {
                let rr = radii.radii(r.clone())?;
                let (va, vb, out) = s.views(&sa, &sb, r);
                E::first_contact_into(va, vb, rr, w, out)?;
                contact_out(out, names, cols);
                Ok(())
            },
        )
    }
}

/// 2D segment crossings and closest points.
#[pyfunction]
#[pyo3(signature = (a, b, out, threads))]
fn intersect2<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    out: &Bound<'py, PyDict>,
    threads: Option<usize>,
) -> PyResult<()> {
    let threads = Threads::new(threads)?;
    let (ha, hb) = (Held::new(a, "a", 4)?, Held::new(b, "b", 4)?);
    let (sa, sb) = (ha.src::<4>("a")?, hb.src::<4>("b")?);
    let n = pair_len(&sa, &sb)?;
    pairwise::<f32, _, _, _>(
        py,
        n,
        threads,
        out,
        &INTERSECT2_COLS,
        Scratch::<Segment2, 4, Intersections2>::new,
        |s, r, names, cols| {
            let (va, vb, out) = s.views(&sa, &sb, r);
            segbatch::planar::intersect2_into(va, vb, out)?;
            let o = &*out;
            for (name, c) in names.iter().zip(cols.iter_mut()) {
                match *name {
                    "kind" => {
                        for (d, k) in c.u8().iter_mut().zip(o.kind()) {
                            *d = *k as u8;
                        }
                    }
                    "s" => c.real().copy_from_slice(o.s()),
                    "t" => c.real().copy_from_slice(o.t()),
                    "s_end" => c.real().copy_from_slice(o.s_end()),
                    "t_end" => c.real().copy_from_slice(o.t_end()),
                    "dist2" => c.real().copy_from_slice(o.dist2()),
                    "distance" => c.sqrt_of(o.dist2()),
                    "point_a" => c.points(o.point_a()),
                    "point_b" => c.points(o.point_b()),
                    _ => c.u8().copy_from_slice(bytemuck::cast_slice(o.flags())),
                }
            }
            Ok(())
        },
    )
}

// ---------------------------------------------------------------------------------------
// Set queries.

/// `f` of every item as a new vector, or `MemoryError` when it cannot be allocated.
fn column<T, U>(items: &[T], what: &'static str, f: impl Fn(&T) -> U) -> PyResult<Vec<U>> {
    let mut v = try_vec(items.len(), what)?;
    v.extend(items.iter().map(f));
    Ok(v)
}

/// Hits as a dict of columns (`i`, `j` as int64, the others in the precision `E`).
fn hits_dict<'py, E: Real>(py: Python<'py>, hits: &[E::Hit]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let hit = E::hit;
    d.set_item(
        "i",
        column(hits, "i column", |h| i64::from(hit(h).0))?.into_pyarray(py),
    )?;
    d.set_item(
        "j",
        column(hits, "j column", |h| i64::from(hit(h).1))?.into_pyarray(py),
    )?;
    d.set_item(
        "dist2",
        column(hits, "dist2 column", |h| hit(h).2)?.into_pyarray(py),
    )?;
    d.set_item(
        "s",
        column(hits, "s column", |h| hit(h).3)?.into_pyarray(py),
    )?;
    d.set_item(
        "t",
        column(hits, "t column", |h| hit(h).4)?.into_pyarray(py),
    )?;
    Ok(d)
}

/// The hits of a streamed radius query as they arrive (see [`interruptible`]): each
/// block's `s` and `t` from the kernel over its index pairs ([`Real::params_into`], the
/// same kernel and options as the query's, so the same values bit for bit), sorted by
/// `(i, j)` at the end, as the collected forms return them.
struct Found<'s, E: Real> {
    hits: Vec<E::Hit>,
    pairs: Vec<(u32, u32)>,
    params: E::Closest,
    gather: E::Gather,
    what: &'static str,
    stop: &'s AtomicBool,
    failed: Option<Failure>,
}

impl<'s, E: Real> Found<'s, E> {
    fn new(what: &'static str, stop: &'s AtomicBool) -> Self {
        Found {
            hits: Vec::new(),
            pairs: Vec::new(),
            params: E::Closest::default(),
            gather: E::Gather::default(),
            what,
            stop,
            failed: None,
        }
    }

    /// The sink: `block` (pairs of `a` and `b`) with its parameters, kept; `Break` on
    /// Ctrl-C or when the output cannot grow.
    fn add(
        &mut self,
        a: SoaView<'_, E::Segment, 6, E>,
        b: SoaView<'_, E::Segment, 6, E>,
        opts: &Options,
        block: &[E::PairHit],
    ) -> ControlFlow<()> {
        go_on(self.stop)?;
        self.pairs.clear();
        self.pairs.extend(block.iter().map(|h| {
            let (i, j, _) = E::pair_hit(h);
            (i, j)
        }));
        let params = &mut self.params;
        if let Err(e) = E::params_into(a, b, &self.pairs, opts, &mut self.gather, params) {
            self.failed = Some(Failure::Lib(e));
            return ControlFlow::Break(());
        }
        if self.hits.try_reserve(block.len()).is_err() {
            let n = self.hits.len() + block.len();
            self.failed = Some(Failure::Memory(self.what, n));
            return ControlFlow::Break(());
        }
        let p = E::closest_res(params);
        let with_params = block.iter().zip(p.s.iter().zip(p.t));
        self.hits.extend(with_params.map(|(h, (&s, &t))| {
            let (i, j, dist2) = E::pair_hit(h);
            E::make_hit(i, j, dist2, s, t)
        }));
        ControlFlow::Continue(())
    }

    /// The hits sorted by `(i, j)` (`i < n`), or why the query stopped: counted by `i`,
    /// placed, and each `i`'s few hits sorted by `j`, in `O(n + K)`, as the library's
    /// collected forms sort (no comparison sort over the whole output).
    fn sorted(self, n: usize) -> Result<Vec<E::Hit>, Failure> {
        if let Some(f) = self.failed {
            return Err(f);
        }
        let hits = self.hits;
        let i_of = |h: &E::Hit| E::hit(h).0 as usize;
        let mut starts = try_vec::<usize>(n + 1, self.what)?;
        starts.resize(n + 1, 0);
        for h in &hits {
            starts[i_of(h) + 1] += 1;
        }
        for k in 0..n {
            starts[k + 1] += starts[k];
        }
        let mut placed = try_vec::<E::Hit>(hits.len(), self.what)?;
        placed.resize(hits.len(), E::Hit::default());
        let mut next = starts.clone();
        for h in &hits {
            let slot = &mut next[i_of(h)];
            placed[*slot] = *h;
            *slot += 1;
        }
        drop(hits);
        for w in starts.windows(2) {
            placed[w[0]..w[1]].sort_unstable_by_key(|h| E::hit(h).1);
        }
        Ok(placed)
    }
}

/// Every `a[i]`, `b[j]` within `radius`, in `float64` for `float64` input.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (a, b, radius, extent_a, extent_b, tolerance, threads))]
fn pairs_within<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    radius: f64,
    extent_a: &str,
    extent_b: &str,
    tolerance: Option<f32>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let threads = Threads::new(threads)?;
    let opts = options(extent_a, extent_b, tolerance)?;
    if is_f64(a) {
        pairs_within_of::<f64>(py, a, b, radius, &opts, threads)
    } else {
        pairs_within_of::<f32>(py, a, b, radius, &opts, threads)
    }
}

/// [`pairs_within`] in the precision of `E`: the library's streamed form, interruptible.
fn pairs_within_of<'py, E: Real>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    radius: f64,
    opts: &Options,
    threads: Threads,
) -> PyResult<Bound<'py, PyDict>> {
    let (ha, hb) = (Held::<E>::new(a, "a", 6)?, Held::new(b, "b", 6)?);
    let (sa, sb) = (ha.src::<6>("a")?, hb.src::<6>("b")?);
    let radius = E::from_f64(radius);
    let hits = interruptible(py, threads, |parallel, stop| {
        let (mut ba, mut bb) = (Whole::new(), Whole::new());
        let (va, vb) = (sa.whole(&mut ba)?, sb.whole(&mut bb)?);
        let mut found = Found::<E>::new("pairs_within output", stop);
        let mut sink = |b: &[E::PairHit]| found.add(va, vb, opts, b);
        E::for_each_pair_within(va, vb, radius, opts, parallel, &mut sink)?;
        found.sorted(va.len())
    })?;
    hits_dict::<E>(py, &hits)
}

/// Every pair `i < j` of `set` within `radius`, in `float64` for `float64` input.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (set, radius, skip_shared, extent_a, extent_b, tolerance, threads))]
fn self_pairs_within<'py>(
    py: Python<'py>,
    set: &Bound<'py, PyAny>,
    radius: f64,
    skip_shared: bool,
    extent_a: &str,
    extent_b: &str,
    tolerance: Option<f32>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let threads = Threads::new(threads)?;
    let opts = options(extent_a, extent_b, tolerance)?;
    let shared = shared_endpoints(skip_shared);
    if is_f64(set) {
        self_pairs_within_of::<f64>(py, set, radius, shared, &opts, threads)
    } else {
        self_pairs_within_of::<f32>(py, set, radius, shared, &opts, threads)
    }
}

/// [`self_pairs_within`] in the precision of `E`: the library's streamed form,
/// interruptible.
fn self_pairs_within_of<'py, E: Real>(
    py: Python<'py>,
    set: &Bound<'py, PyAny>,
    radius: f64,
    shared: SharedEndpoints,
    opts: &Options,
    threads: Threads,
) -> PyResult<Bound<'py, PyDict>> {
    let hs = Held::<E>::new(set, "set", 6)?;
    let ss = hs.src::<6>("set")?;
    let radius = E::from_f64(radius);
    let hits = interruptible(py, threads, |parallel, stop| {
        let mut buf = Whole::new();
        let v = ss.whole(&mut buf)?;
        let mut found = Found::<E>::new("self_pairs_within output", stop);
        let mut sink = |b: &[E::PairHit]| found.add(v, v, opts, b);
        E::for_each_self_pair_within(v, radius, shared, opts, parallel, &mut sink)?;
        found.sorted(v.len())
    })?;
    hits_dict::<E>(py, &hits)
}

/// Runs `f(parallel)` on `threads` with the GIL released: the library's sequential form
/// for one thread, its parallel form otherwise (one library call: no check for Ctrl-C
/// until it returns).
fn call<R: Send>(
    py: Python<'_>,
    threads: Threads,
    f: impl FnOnce(bool) -> Result<R, Failure> + Send,
) -> PyResult<R> {
    let parallel = threads.parallel();
    Ok(py.detach(|| guarded(|| threads.install(|| f(parallel))?))?)
}

/// Index pairs from an `(K, 2)` C-contiguous uint32 array (the Python layer checks the
/// values and converts), as the library takes them.
fn index_pairs(pairs: &PyReadonlyArray2<'_, u32>) -> PyResult<Vec<(u32, u32)>> {
    let flat = pairs
        .as_slice()
        .map_err(|_| PyValueError::new_err("pairs: the array must be C-contiguous"))?;
    if pairs.shape()[1] != 2 {
        return Err(PyValueError::new_err(format!(
            "pairs: expected shape (K, 2), got {:?}",
            pairs.shape()
        )));
    }
    Ok(flat
        .as_chunks::<2>()
        .0
        .iter()
        .map(|&[i, j]| (i, j))
        .collect())
}

/// Radii of an indexed query: two numbers, or one radius per object of each set.
fn object_radii<'a, E: Real>(
    ra: &'a RadiusArg<'_, E>,
    rb: &'a RadiusArg<'_, E>,
) -> PyResult<E::Radii<'a>> {
    let slice = |r: &'a PyReadonlyArray1<'_, E>, name: &str| {
        r.as_slice()
            .map_err(|_| PyValueError::new_err(format!("{name}: the array must be contiguous")))
    };
    match (ra, rb) {
        (RadiusArg::Uniform(a), RadiusArg::Uniform(b)) => E::uniform_radii(*a, *b),
        (RadiusArg::PerPair(a), RadiusArg::PerPair(b)) => {
            E::per_object_radii(slice(a, "radius_a")?, slice(b, "radius_b")?)
        }
        _ => {
            return Err(PyTypeError::new_err(
                "radius_a and radius_b must both be numbers or both be arrays",
            ));
        }
    }
    .map_err(lib_error)
}

/// Points as an `(K, 3)` array.
fn points3<'py, E: Real>(py: Python<'py>, p: Vec<[E; 3]>) -> PyResult<Bound<'py, PyAny>> {
    let n = p.len();
    let flat: Vec<E> = bytemuck::cast_slice(&p).to_vec();
    Ok(flat.into_pyarray(py).reshape([n, 3])?.into_any())
}

/// A dict of named columns.
fn dict<'py>(
    py: Python<'py>,
    items: Vec<(&str, Bound<'py, PyAny>)>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in items {
        d.set_item(k, v)?;
    }
    Ok(d)
}

/// The sides, index pairs and options of an indexed query, as passed from Python.
struct IndexedArgs<'a, 'py> {
    a: &'a Bound<'py, PyAny>,
    b: &'a Bound<'py, PyAny>,
    pairs: Vec<(u32, u32)>,
    opts: Options,
    threads: Threads,
}

impl<'a, 'py> IndexedArgs<'a, 'py> {
    fn new(
        a: &'a Bound<'py, PyAny>,
        b: &'a Bound<'py, PyAny>,
        pairs: &PyReadonlyArray2<'py, u32>,
        (extent_a, extent_b, tolerance): (&str, &str, Option<f32>),
        threads: Option<usize>,
    ) -> PyResult<Self> {
        Ok(IndexedArgs {
            a,
            b,
            pairs: index_pairs(pairs)?,
            opts: options(extent_a, extent_b, tolerance)?,
            threads: Threads::new(threads)?,
        })
    }

    /// Runs `f(a, b, pairs, options, parallel)` on both sides as whole views of `E`, with
    /// the GIL released (one library call).
    fn run<E: Real, R: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(
            SoaView<'_, E::Segment, 6, E>,
            SoaView<'_, E::Segment, 6, E>,
            &[(u32, u32)],
            &Options,
            bool,
        ) -> Result<R, segbatch::Error>
        + Send,
    ) -> PyResult<R> {
        let (ha, hb) = (Held::<E>::new(self.a, "a", 6)?, Held::new(self.b, "b", 6)?);
        let (sa, sb) = (ha.src::<6>("a")?, hb.src::<6>("b")?);
        let (pairs, opts) = (&self.pairs, &self.opts);
        call(py, self.threads, |parallel| {
            let (mut ba, mut bb) = (Whole::new(), Whole::new());
            let (va, vb) = (sa.whole(&mut ba)?, sb.whole(&mut bb)?);
            f(va, vb, pairs, opts, parallel).map_err(Failure::Lib)
        })
    }
}

/// Closest points of `a[i]` and `b[j]` for every index pair: every column, as a dict
/// (in `float64` for `float64` input).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (a, b, pairs, extent_a, extent_b, tolerance, threads))]
fn closest_points_indexed<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    pairs: PyReadonlyArray2<'py, u32>,
    extent_a: &str,
    extent_b: &str,
    tolerance: Option<f32>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let args = IndexedArgs::new(a, b, &pairs, (extent_a, extent_b, tolerance), threads)?;
    if is_f64(a) {
        closest_indexed_of::<f64>(py, &args)
    } else {
        closest_indexed_of::<f32>(py, &args)
    }
}

/// [`closest_points_indexed`] in the precision of `E`.
fn closest_indexed_of<'py, E: Real>(
    py: Python<'py>,
    args: &IndexedArgs<'_, 'py>,
) -> PyResult<Bound<'py, PyDict>> {
    let o = args.run::<E, _>(py, |va, vb, pairs, opts, parallel| {
        let mut out = E::Closest::default();
        E::closest_indexed_into(va, vb, pairs, opts, parallel, &mut out).map(|()| out)
    })?;
    let r = E::closest_res(&o);
    let rows = |c: [&[E]; 3]| {
        (0..r.dist2.len())
            .map(|k| [c[0][k], c[1][k], c[2][k]])
            .collect()
    };
    let distance: Vec<E> = r.dist2.iter().map(|d| d.sqrt()).collect();
    dict(
        py,
        vec![
            ("dist2", r.dist2.to_vec().into_pyarray(py).into_any()),
            ("distance", distance.into_pyarray(py).into_any()),
            ("s", r.s.to_vec().into_pyarray(py).into_any()),
            ("t", r.t.to_vec().into_pyarray(py).into_any()),
            ("point_a", points3(py, rows(r.point_a))?),
            ("point_b", points3(py, rows(r.point_b))?),
            ("flags", r.flags.to_vec().into_pyarray(py).into_any()),
        ],
    )
}

/// Do capsules `(a[i], rA)` and `(b[j], rB)` touch, for every index pair? A bool array
/// (decided in `float64`, radii too, for `float64` input).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (a, b, pairs, radius_a, radius_b, extent_a, extent_b, tolerance, threads))]
fn capsules_touch_indexed<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    pairs: PyReadonlyArray2<'py, u32>,
    radius_a: &Bound<'py, PyAny>,
    radius_b: &Bound<'py, PyAny>,
    extent_a: &str,
    extent_b: &str,
    tolerance: Option<f32>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let args = IndexedArgs::new(a, b, &pairs, (extent_a, extent_b, tolerance), threads)?;
    let radii = (radius_a, radius_b);
    let mask = if is_f64(a) {
        capsules_indexed_of::<f64>(py, &args, radii)
    } else {
        capsules_indexed_of::<f32>(py, &args, radii)
    }?;
    let touch: Vec<bool> = (0..args.pairs.len())
        .map(|k| mask.get(k) == Some(true))
        .collect();
    Ok(touch.into_pyarray(py).into_any())
}

/// [`capsules_touch_indexed`] in the precision of `E`.
fn capsules_indexed_of<'py, E: Real>(
    py: Python<'py>,
    args: &IndexedArgs<'_, 'py>,
    (radius_a, radius_b): (&Bound<'py, PyAny>, &Bound<'py, PyAny>),
) -> PyResult<PairMask> {
    let (ra, rb) = (
        RadiusArg::<E>::new(radius_a, "radius_a")?,
        RadiusArg::new(radius_b, "radius_b")?,
    );
    let radii = object_radii(&ra, &rb)?;
    args.run::<E, _>(py, |va, vb, pairs, opts, parallel| {
        let mut out = PairMask::new();
        E::capsules_indexed_into(va, vb, pairs, radii, opts, parallel, &mut out).map(|()| out)
    })
}

/// The contacts of the touching capsules among the index pairs (in `float64` for
/// `float64` input).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (a, b, pairs, radius_a, radius_b, extent_a, extent_b, tolerance, threads))]
fn capsule_contacts<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    pairs: PyReadonlyArray2<'py, u32>,
    radius_a: &Bound<'py, PyAny>,
    radius_b: &Bound<'py, PyAny>,
    extent_a: &str,
    extent_b: &str,
    tolerance: Option<f32>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let args = IndexedArgs::new(a, b, &pairs, (extent_a, extent_b, tolerance), threads)?;
    let radii = (radius_a, radius_b);
    if is_f64(a) {
        contacts_of::<f64>(py, &args, radii)
    } else {
        contacts_of::<f32>(py, &args, radii)
    }
}

/// [`capsule_contacts`] in the precision of `E`.
fn contacts_of<'py, E: Real>(
    py: Python<'py>,
    args: &IndexedArgs<'_, 'py>,
    (radius_a, radius_b): (&Bound<'py, PyAny>, &Bound<'py, PyAny>),
) -> PyResult<Bound<'py, PyDict>> {
    let (ra, rb) = (
        RadiusArg::<E>::new(radius_a, "radius_a")?,
        RadiusArg::new(radius_b, "radius_b")?,
    );
    let radii = object_radii(&ra, &rb)?;
    let c = args.run::<E, _>(py, |va, vb, pairs, opts, parallel| {
        let mut out = Vec::new();
        E::contacts_into(va, vb, pairs, radii, opts, parallel, &mut out).map(|()| out)
    })?;
    let pair: Vec<i64> = c.iter().map(|x| i64::from(x.pair)).collect();
    let i: Vec<i64> = c.iter().map(|x| i64::from(x.i)).collect();
    let j: Vec<i64> = c.iter().map(|x| i64::from(x.j)).collect();
    let depth: Vec<E> = c.iter().map(|x| x.depth).collect();
    dict(
        py,
        vec![
            ("pair", pair.into_pyarray(py).into_any()),
            ("i", i.into_pyarray(py).into_any()),
            ("j", j.into_pyarray(py).into_any()),
            ("normal", points3(py, c.iter().map(|x| x.normal).collect())?),
            ("depth", depth.into_pyarray(py).into_any()),
            (
                "point_a",
                points3(py, c.iter().map(|x| x.point_a).collect())?,
            ),
            (
                "point_b",
                points3(py, c.iter().map(|x| x.point_b).collect())?,
            ),
        ],
    )
}

/// The crossing pairs as a dict of columns: `i`, `j` (int64), `s`, `kind` (uint8) and
/// `point` (`(K, 2)`, `set[i].at(s)`), the floats in the set's precision.
fn crossing_dict<'py, E>(
    py: Python<'py>,
    set: Segments2View<'_, E>,
    hits: &[CrossHit<E>],
) -> PyResult<Bound<'py, PyDict>>
where
    E: Plane2 + numpy::Element,
{
    let i = column(hits, "i column", |h| i64::from(h.i))?;
    let j = column(hits, "j column", |h| i64::from(h.j))?;
    let s = column(hits, "s column", |h| h.s)?;
    let kind = column(hits, "kind column", |h| h.kind as u8)?;
    let mut point = try_vec::<E>(2 * hits.len(), "point column").map_err(PyErr::from)?;
    for h in hits {
        point.extend(h.point(set).expect("the hit names a segment of the set"));
    }
    let n = hits.len();
    dict(
        py,
        vec![
            ("i", i.into_pyarray(py).into_any()),
            ("j", j.into_pyarray(py).into_any()),
            ("s", s.into_pyarray(py).into_any()),
            ("kind", kind.into_pyarray(py).into_any()),
            ("point", point.into_pyarray(py).reshape([n, 2])?.into_any()),
        ],
    )
}

/// Every pair `i < j` of a 2D set that meets (`float32`).
#[pyfunction]
#[pyo3(signature = (set, skip_shared, threads))]
fn crossing_pairs<'py>(
    py: Python<'py>,
    set: &Bound<'py, PyAny>,
    skip_shared: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let threads = Threads::new(threads)?;
    let hs = Held::new(set, "set", 4)?;
    let ss = hs.src::<4>("set")?;
    let shared = shared_endpoints(skip_shared);
    let mut buf = Whole::<Segment2, 4>::new();
    let (v, hits) = interruptible(py, threads, |parallel, stop| {
        let v = ss.whole(&mut buf)?;
        Ok((v, crossing_hits(v, shared, parallel, stop)?))
    })?;
    crossing_dict(py, v, &hits)
}

/// The crossing pairs of `set`, sorted by `(i, j)`, from the streamed query (which `stop`
/// ends at its next block; see [`interruptible`]).
fn crossing_hits<E: Plane2>(
    set: Segments2View<'_, E>,
    shared: SharedEndpoints,
    parallel: bool,
    stop: &AtomicBool,
) -> Result<Vec<CrossHit<E>>, Failure> {
    let (mut out, mut failed) = (Vec::new(), None);
    let mut sink = |b: &[CrossHit<E>]| {
        go_on(stop)?;
        keep(&mut out, b, "crossing_pairs output", &mut failed)
    };
    if parallel {
        segbatch::planar::par_for_each_crossing_pair(set, shared, &mut sink)
    } else {
        segbatch::planar::for_each_crossing_pair(set, shared, &mut sink)
    }?;
    if let Some(f) = failed {
        return Err(f);
    }
    if parallel {
        out.par_sort_unstable_by_key(|h| (h.i, h.j));
    } else {
        out.sort_unstable_by_key(|h| (h.i, h.j));
    }
    Ok(out)
}

/// [`crossing_pairs`] for a `float64` set (`(N, 4)`, C-contiguous), computed and returned
/// in `float64`.
#[pyfunction]
#[pyo3(signature = (set, skip_shared, threads))]
fn crossing_pairs64<'py>(
    py: Python<'py>,
    set: PyReadonlyArray2<'py, f64>,
    skip_shared: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let threads = Threads::new(threads)?;
    let flat = rows64(&set, "segments")?;
    let shared = shared_endpoints(skip_shared);
    let batch: Segments2<f64> = Segments2::from(bytemuck::cast_slice::<f64, Segment2_64>(flat));
    let hits = interruptible(py, threads, |parallel, stop| {
        crossing_hits(batch.as_view(), shared, parallel, stop)
    })?;
    crossing_dict(py, batch.as_view(), &hits)
}

/// 2D crossings and closest points of `float64` pairs (`(N, 4)` C-contiguous each),
/// computed by the `f64` reference pair by pair (on the pool's threads) and written into
/// the `out` arrays by name: `kind`, `flags` (uint8), the others float64.
#[pyfunction]
#[pyo3(signature = (a, b, out, threads))]
fn intersect2_64<'py>(
    py: Python<'py>,
    a: PyReadonlyArray2<'py, f64>,
    b: PyReadonlyArray2<'py, f64>,
    out: &Bound<'py, PyDict>,
    threads: Option<usize>,
) -> PyResult<()> {
    use rayon::prelude::*;
    let threads = Threads::new(threads)?;
    let (fa, fb) = (rows64(&a, "a")?, rows64(&b, "b")?);
    if fa.len() != fb.len() {
        return Err(PyValueError::new_err(format!(
            "a and b: expected the same number of segments, got {} and {}",
            fa.len() / 4,
            fb.len() / 4
        )));
    }
    let sa: &[Segment2_64] = bytemuck::cast_slice(fa);
    let sb: &[Segment2_64] = bytemuck::cast_slice(fb);
    let x = call(py, threads, |parallel| {
        let mut v = try_vec(sa.len(), "intersect2 results")?;
        if parallel {
            sa.par_iter()
                .zip(sb)
                .map(|(p, q)| segbatch::reference::intersect2_64(p, q))
                .collect_into_vec(&mut v);
        } else {
            v.extend(
                sa.iter()
                    .zip(sb)
                    .map(|(p, q)| segbatch::reference::intersect2_64(p, q)),
            );
        }
        Ok(v)
    })?;
    let n = x.len();
    for (name, arr) in out.iter() {
        let name: String = name.extract()?;
        let wrong = || {
            PyTypeError::new_err(format!(
                "out[{name:?}]: expected a float64 array of {n} rows"
            ))
        };
        match name.as_str() {
            "kind" | "flags" => {
                let mut col = arr
                    .extract::<PyReadwriteArray1<u8>>()
                    .map_err(|_| wrong())?;
                let col = col.as_slice_mut().map_err(|_| wrong())?;
                for (d, r) in col.iter_mut().zip(&x) {
                    *d = if name == "kind" {
                        r.kind as u8
                    } else {
                        r.flags.bits()
                    };
                }
            }
            "point_a" | "point_b" => {
                let mut col = arr
                    .extract::<PyReadwriteArray2<f64>>()
                    .map_err(|_| wrong())?;
                let col = col.as_slice_mut().map_err(|_| wrong())?;
                for (d, r) in col.chunks_exact_mut(2).zip(&x) {
                    d.copy_from_slice(if name == "point_a" {
                        &r.point_a
                    } else {
                        &r.point_b
                    });
                }
            }
            other => {
                let value = |r: &segbatch::planar::Intersection2<f64>| match other {
                    "s" => r.s,
                    "t" => r.t,
                    "s_end" => r.s_end,
                    "t_end" => r.t_end,
                    "dist2" => r.dist2,
                    _ => r.dist2.sqrt(),
                };
                let mut col = arr
                    .extract::<PyReadwriteArray1<f64>>()
                    .map_err(|_| wrong())?;
                let col = col.as_slice_mut().map_err(|_| wrong())?;
                for (d, r) in col.iter_mut().zip(&x) {
                    *d = value(r);
                }
            }
        }
    }
    Ok(())
}

/// The numbers of an `(N, 4)` C-contiguous `float64` array (the Python layer converts).
fn rows64<'a>(arr: &'a PyReadonlyArray2<'_, f64>, name: &str) -> PyResult<&'a [f64]> {
    if arr.shape()[1] != 4 {
        return Err(PyValueError::new_err(format!(
            "{name}: expected shape (N, 4), got {:?}",
            arr.shape()
        )));
    }
    arr.as_slice()
        .map_err(|_| PyValueError::new_err(format!("{name}: the array must be C-contiguous")))
}

/// The library's shared-end-point rule from the Python flag.
fn shared_endpoints(skip: bool) -> SharedEndpoints {
    if skip {
        SharedEndpoints::Skip
    } else {
        SharedEndpoints::Keep
    }
}

/// A reusable index over a static set of 3D segments: the library's `SegmentIndex` over
/// `float32` members, or `SegmentIndex64` over `float64` ones.
#[pyclass(name = "SegmentIndex", module = "segbatch._segbatch", frozen)]
struct PySegmentIndex(AnyIndex);

/// The index of either precision.
enum AnyIndex {
    F32(Box<segbatch::SegmentIndex>),
    F64(Box<SegmentIndex64>),
}

/// Builds the index of `E` over `set`.
fn index_of<E: Real>(
    py: Python<'_>,
    set: &Bound<'_, PyAny>,
    threads: Threads,
) -> PyResult<E::Index> {
    let hs = Held::<E>::new(set, "set", 6)?;
    let ss = hs.src::<6>("set")?;
    call(py, threads, |parallel| {
        let mut buf = Whole::new();
        let v = ss.whole(&mut buf)?;
        E::index_new(v, parallel).map_err(Failure::Lib)
    })
}

/// First hits of `rays` on `index` in the precision of `E` (see
/// [`PySegmentIndex::first_hits`]), in steps with a check for Ctrl-C between them.
fn first_hits_of<'py, E: Real>(
    py: Python<'py>,
    index: &E::Index,
    rays: &Bound<'py, PyAny>,
    radius: f64,
    range: f64,
    threads: Threads,
) -> PyResult<Bound<'py, PyDict>> {
    let hr = Held::<E>::new(rays, "rays", 6)?;
    let sr = hr.src::<6>("rays")?;
    let (radius, range) = (E::from_f64(radius), E::from_f64(range));
    let n = sr.len();
    let parallel = threads.parallel();
    let nan = E::from_f64(f64::NAN);
    let mut hit = try_vec::<bool>(n, "hit column")?;
    let mut idx = try_vec::<i64>(n, "index column")?;
    let mut u = try_vec::<E>(n, "u column")?;
    let mut point = try_vec::<E>(n * 3, "point column")?;
    stepped(py, n, RAY_STEP, RAY_STEP_MAX, |r| {
        let mut buf = Whole::new();
        let part = sr.sub(r);
        let v = part.whole(&mut buf)?;
        let hits = threads.install(|| E::first_hits(index, v, radius, range, parallel))??;
        hit.extend(hits.iter().map(Option::is_some));
        idx.extend(hits.iter().map(|h| h.map_or(-1, |h| i64::from(h.index))));
        u.extend(hits.iter().map(|h| h.map_or(nan, |h| h.u)));
        point.extend(hits.iter().flat_map(|h| h.map_or([nan; 3], |h| h.point)));
        Ok(())
    })?;
    dict(
        py,
        vec![
            ("hit", hit.into_pyarray(py).into_any()),
            ("index", idx.into_pyarray(py).into_any()),
            ("u", u.into_pyarray(py).into_any()),
            ("point", point.into_pyarray(py).reshape([n, 3])?.into_any()),
        ],
    )
}

#[pymethods]
impl PySegmentIndex {
    /// Builds the index over `set` (`(N, 6)` rows or six columns, `float32` or `float64`),
    /// on `threads`.
    #[new]
    #[pyo3(signature = (set, threads))]
    fn new(py: Python<'_>, set: &Bound<'_, PyAny>, threads: Option<usize>) -> PyResult<Self> {
        let threads = Threads::new(threads)?;
        Ok(PySegmentIndex(if is_f64(set) {
            AnyIndex::F64(Box::new(index_of::<f64>(py, set, threads)?))
        } else {
            AnyIndex::F32(Box::new(index_of::<f32>(py, set, threads)?))
        }))
    }

    fn __len__(&self) -> usize {
        match &self.0 {
            AnyIndex::F32(i) => i.len(),
            AnyIndex::F64(i) => i.len(),
        }
    }

    /// First hits of thick rays: `hit` (bool), `index` (int64, -1 without a hit), `u`
    /// (NaN without a hit), `point` (`(N, 3)`, NaN without a hit), `u` and `point` in the
    /// index's precision (the rays must be of it).
    #[pyo3(signature = (rays, radius, range, threads))]
    fn first_hits<'py>(
        &self,
        py: Python<'py>,
        rays: &Bound<'py, PyAny>,
        radius: f64,
        range: f64,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let threads = Threads::new(threads)?;
        match &self.0 {
            AnyIndex::F32(i) => first_hits_of::<f32>(py, i, rays, radius, range, threads),
            AnyIndex::F64(i) => first_hits_of::<f64>(py, i, rays, radius, range, threads),
        }
    }

    /// Every pair of a query segment and a member within `radius`, as `pairs_within`,
    /// in the index's precision (the queries must be of it).
    #[pyo3(signature = (segments, radius, threads))]
    fn pairs_within<'py>(
        &self,
        py: Python<'py>,
        segments: &Bound<'py, PyAny>,
        radius: f64,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let threads = Threads::new(threads)?;
        match &self.0 {
            AnyIndex::F32(i) => index_pairs_of::<f32>(py, i, segments, radius, threads),
            AnyIndex::F64(i) => index_pairs_of::<f64>(py, i, segments, radius, threads),
        }
    }
}

/// The pairs within `radius` of the query `segments` and `index`'s members in the
/// precision of `E` (see [`PySegmentIndex::pairs_within`]), in steps with a check for
/// Ctrl-C between them.
fn index_pairs_of<'py, E: Real>(
    py: Python<'py>,
    index: &E::Index,
    segments: &Bound<'py, PyAny>,
    radius: f64,
    threads: Threads,
) -> PyResult<Bound<'py, PyDict>> {
    let hq = Held::<E>::new(segments, "segments", 6)?;
    let sq = hq.src::<6>("segments")?;
    if u32::try_from(sq.len()).is_err() {
        return Err(Failure::Lib(segbatch::Error::TooManyObjects {
            len: sq.len(),
            max: u32::MAX as usize,
        })
        .into());
    }
    let radius = E::from_f64(radius);
    let parallel = threads.parallel();
    let mut hits: Vec<E::Hit> = Vec::new();
    stepped(py, sq.len(), RAY_STEP, RAY_STEP_MAX, |r| {
        let mut buf = Whole::new();
        let part = sq.sub(r.clone());
        let v = part.whole(&mut buf)?;
        // The queries were counted against `u32::MAX` before the first step.
        let first = u32::try_from(r.start).expect("at most u32::MAX queries");
        let found =
            threads.install(|| E::index_pairs_within(index, v, radius, first, parallel))??;
        hits.try_reserve(found.len())
            .map_err(|_| Failure::Memory("pairs_within output", hits.len() + found.len()))?;
        hits.extend(found);
        Ok(())
    })?;
    hits_dict::<E>(py, &hits)
}

/// Query segments or rays in the first step of the [`PySegmentIndex`] queries (see
/// [`stepped`]): a ray's cost depends on the scene (a long sweep through a dense level can
/// take milliseconds), so steps start small and grow up to [`RAY_STEP_MAX`].
const RAY_STEP: usize = 64;
/// The largest step of the [`PySegmentIndex`] queries.
const RAY_STEP_MAX: usize = 1 << 16;

/// Matrix entries per step of [`dist2_matrix`] between two checks for Ctrl-C (16 MiB of
/// output, a few tens of milliseconds: each entry costs the same, so the step is fixed),
/// and per task inside a step (256 KiB, in L2).
const MATRIX_STEP: usize = 1 << 22;
const MATRIX_TASK: usize = 1 << 16;

/// Squared distance of every `a[i]` to every `b[j]` into `out` (`(len(a), len(b))`
/// float32, C-contiguous, allocated by the Python layer so that a matrix too large for
/// memory is NumPy's `MemoryError`), in steps of rows with a check for Ctrl-C between
/// steps. Each task runs the library's `dist2_matrix_into` on a block of rows of `a`
/// against all of `b`: bit for bit the whole matrix's entries.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (a, b, extent_a, extent_b, tolerance, out, threads))]
fn dist2_matrix<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    extent_a: &str,
    extent_b: &str,
    tolerance: Option<f32>,
    out: &Bound<'py, PyAny>,
    threads: Option<usize>,
) -> PyResult<()> {
    let threads = Threads::new(threads)?;
    let opts = options(extent_a, extent_b, tolerance)?;
    if is_f64(a) {
        matrix_of::<f64>(py, (a, b), &opts, out, threads)
    } else {
        matrix_of::<f32>(py, (a, b), &opts, out, threads)
    }
}

/// [`dist2_matrix`] in the precision of `E` (the matrix too).
fn matrix_of<'py, E: Real>(
    py: Python<'py>,
    (a, b): (&Bound<'py, PyAny>, &Bound<'py, PyAny>),
    opts: &Options,
    out: &Bound<'py, PyAny>,
    threads: Threads,
) -> PyResult<()> {
    let (ha, hb) = (Held::<E>::new(a, "a", 6)?, Held::new(b, "b", 6)?);
    let (sa, sb) = (ha.src::<6>("a")?, hb.src::<6>("b")?);
    let (n, m) = (sa.len(), sb.len());
    let mut out = out.extract::<PyReadwriteArray2<'py, E>>().map_err(|_| {
        PyTypeError::new_err(format!("out: expected a writable 2-D {} array", E::DTYPE))
    })?;
    if out.shape() != [n, m] {
        return Err(PyValueError::new_err(format!(
            "out: expected shape ({n}, {m}), got {:?}",
            out.shape()
        )));
    }
    let matrix = out
        .as_slice_mut()
        .map_err(|_| PyValueError::new_err("out: the array must be C-contiguous and aligned"))?;
    if n == 0 || m == 0 {
        return Ok(());
    }
    let mut bb = Whole::new();
    let vb = py.detach(|| guarded(|| sb.whole::<E::Segment>(&mut bb)))?;
    let step_rows = (MATRIX_STEP / m).max(1);
    let task_rows = (MATRIX_TASK / m).clamp(1, CHUNK);
    let mut rest = matrix;
    stepped(py, n, step_rows, step_rows, |r| {
        let (head, tail) = core::mem::take(&mut rest).split_at_mut(r.len() * m);
        rest = tail;
        let jobs: Vec<(usize, &mut [E])> = head
            .chunks_mut(task_rows * m)
            .enumerate()
            .map(|(k, c)| (r.start + k * task_rows, c))
            .collect();
        let init = || (Cols::<6, E>::new(), Vec::<E>::new());
        for_jobs(
            threads,
            jobs,
            &init,
            &|(cols, tmp): &mut (Cols<6, E>, Vec<E>), (row, dst): (usize, &mut [E])| {
                let va = sa.view::<E::Segment>(row..row + dst.len() / m, cols);
                E::dist2_matrix_into(va, vb, opts, tmp)?;
                dst.copy_from_slice(tmp);
                Ok(())
            },
        )
    })
}

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
