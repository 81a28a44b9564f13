//! The native part of the `segbatch` Python package (`segbatch._segbatch`).
//!
//! The Python layer (`python/segbatch/__init__.py`) checks shapes and dtypes and hands each
//! side here either as one `(N, C)` C-contiguous `float32` array (array-of-structs, the
//! NumPy layout) or as a tuple of `C` contiguous `float32` columns (structure-of-arrays: a
//! Fortran-ordered array or Arrow columns). Neither is copied as a whole:
//!
//! - columns become a [`SoaView`] of the caller's memory, which the kernel reads directly;
//! - array-of-structs input is transposed chunk by chunk ([`CHUNK`] pairs, a few hundred KiB)
//!   into a per-thread scratch batch that stays in cache, so memory traffic is the same as
//!   the Rust call on a prepared batch: the input is read once and every output written once.
//!
//! Pairwise queries run the library's sequential `_into` form per chunk, the chunks on a
//! rayon pool (all cores by default, `threads=` to limit), with the GIL released. Results
//! are bit for bit those of the library: each pair's result does not depend on how a batch
//! is cut. Set queries (`pairs_within`, `self_pairs_within`) call the library's sequential or
//! parallel form on the whole input.

use numpy::{IntoPyArray, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use rayon::prelude::*;
use segbatch::motion::{ContactBatch, CpaBatch, Track, Window};
use segbatch::{
    ClosestBatch, Extent, Hit, Intersections2, Options, Outputs, PairMask, Radii, Record,
    Segment, Segment2, SharedEndpoints, Soa, SoaView, Tolerance,
};
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};

/// Pairs per chunk of a pairwise query: 4096 pairs of 3D segments are 192 KiB of input
/// and at most 150 KiB of output, resident in L2 while the chunk is transposed, computed
/// and copied out.
const CHUNK: usize = 4096;

// ---------------------------------------------------------------------------------------
// Errors.

/// A library error as a Python `ValueError` with the library's message.
fn value_error(e: segbatch::Error) -> PyErr {
    PyValueError::new_err(e.to_string())
}

// ---------------------------------------------------------------------------------------
// Inputs.

/// The caller's data for one side, borrowed from NumPy for the duration of the call.
enum Held<'py> {
    /// `(N, C)` C-contiguous.
    Rows(PyReadonlyArray2<'py, f32>),
    /// `C` contiguous columns of `N`.
    Cols(Vec<PyReadonlyArray1<'py, f32>>),
}

/// One side as slices, usable without the GIL.
#[derive(Clone, Copy)]
enum Src<'a, const C: usize> {
    /// Records one after another, `C` numbers each.
    Rows(&'a [f32]),
    /// The `C` columns.
    Cols([&'a [f32]; C]),
}

impl<'py> Held<'py> {
    /// Borrows `obj` (an array or a tuple of columns, as the Python layer passes them).
    fn new(obj: &Bound<'py, PyAny>, name: &str, c: usize) -> PyResult<Self> {
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
                    x.extract::<PyReadonlyArray1<f32>>().map_err(|_| {
                        PyTypeError::new_err(format!(
                            "{name}: each column must be a 1-D float32 array"
                        ))
                    })
                })
                .collect::<PyResult<Vec<_>>>()?;
            return Ok(Held::Cols(cols));
        }
        let arr = obj.extract::<PyReadonlyArray2<f32>>().map_err(|_| {
            PyTypeError::new_err(format!("{name}: expected a 2-D float32 array"))
        })?;
        let shape = arr.shape();
        if shape[1] != c {
            return Err(PyValueError::new_err(format!(
                "{name}: expected shape (N, {c}), got ({}, {})",
                shape[0], shape[1]
            )));
        }
        Ok(Held::Rows(arr))
    }

    /// The slices (checked contiguous, columns of equal length).
    fn src<const C: usize>(&self, name: &str) -> PyResult<Src<'_, C>> {
        let contiguous =
            |_| PyValueError::new_err(format!("{name}: the array must be C-contiguous"));
        match self {
            Held::Rows(a) => Ok(Src::Rows(a.as_slice().map_err(contiguous)?)),
            Held::Cols(cols) => {
                let mut out: [&[f32]; C] = [&[]; C];
                for (o, c) in out.iter_mut().zip(cols) {
                    *o = c.as_slice().map_err(contiguous)?;
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

impl<'a, const C: usize> Src<'a, C> {
    fn len(&self) -> usize {
        match self {
            Src::Rows(r) => r.len() / C,
            Src::Cols(c) => c[0].len(),
        }
    }

    /// Records `range` as a view: the caller's columns directly, or rows transposed into
    /// `buf` (its allocation reused).
    fn view<'s, T: Record<C>>(
        &'s self,
        range: Range<usize>,
        buf: &'s mut Soa<T, C>,
    ) -> SoaView<'s, T, C> {
        match self {
            Src::Cols(cols) => SoaView::from_columns(*cols)
                .expect("columns checked equal")
                .view(range),
            Src::Rows(rows) => {
                buf.clear();
                buf.extend_from_slice(bytemuck::cast_slice(&rows[range.start * C..range.end * C]));
                buf.as_view()
            }
        }
    }

    /// The whole side as a view (rows are converted once into `buf`).
    fn whole<'s, T: Record<C>>(&'s self, buf: &'s mut Soa<T, C>) -> SoaView<'s, T, C> {
        self.view(0..self.len(), buf)
    }
}

/// Both sides of a pairwise query, checked to be of equal length.
fn pair_len<const C: usize>(a: &Src<'_, C>, b: &Src<'_, C>) -> PyResult<usize> {
    let (n, m) = (a.len(), b.len());
    if n != m {
        return Err(PyValueError::new_err(format!(
            "a and b must have the same number of rows: a has {n}, b has {m}"
        )));
    }
    Ok(n)
}

/// Radii as passed from Python: one number, or one per pair.
enum RadiusArg<'py> {
    Uniform(f32),
    PerPair(PyReadonlyArray1<'py, f32>),
}

impl<'py> RadiusArg<'py> {
    fn new(obj: &Bound<'py, PyAny>, name: &str) -> PyResult<Self> {
        if let Ok(r) = obj.extract::<f32>() {
            return Ok(RadiusArg::Uniform(r));
        }
        obj.extract::<PyReadonlyArray1<f32>>()
            .map(RadiusArg::PerPair)
            .map_err(|_| {
                PyTypeError::new_err(format!(
                    "{name}: expected a number or a 1-D float32 array of one radius per pair"
                ))
            })
    }
}

/// Both radii of a capsule or contact query as slices, usable without the GIL.
#[derive(Clone, Copy)]
enum RadiiSrc<'a> {
    Uniform(f32, f32),
    PerPair(&'a [f32], &'a [f32]),
}

impl<'a> RadiiSrc<'a> {
    /// Checks the forms and lengths, and validates the values once (so an error names the
    /// first bad pair of the whole input).
    fn new(ra: &'a RadiusArg<'_>, rb: &'a RadiusArg<'_>, n: usize) -> PyResult<Self> {
        let slice = |r: &'a PyReadonlyArray1<'_, f32>, name: &str| -> PyResult<&'a [f32]> {
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
        src.radii(0..n).map_err(value_error)?;
        Ok(src)
    }

    /// The library's radii for pairs `range`.
    fn radii(&self, range: Range<usize>) -> Result<Radii<'a>, segbatch::Error> {
        match *self {
            RadiiSrc::Uniform(a, b) => Radii::uniform(a, b),
            RadiiSrc::PerPair(a, b) => Radii::per_pair(&a[range.clone()], &b[range]),
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

/// A time window `[0, end]`.
fn window(end: f32) -> PyResult<Window> {
    Window::new(end).ok_or_else(|| {
        PyValueError::new_err(format!("window must be >= 0 (inf allowed), got {end}"))
    })
}

// ---------------------------------------------------------------------------------------
// Output columns and the chunk loop.

/// An output column: `f32` with `width` values per pair, bytes or booleans.
enum Col {
    F32(Vec<f32>, usize),
    U8(Vec<u8>),
    Bool(Vec<bool>),
}

/// The part of an output column that belongs to one chunk.
enum ColMut<'a> {
    F32(&'a mut [f32]),
    U8(&'a mut [u8]),
    Bool(&'a mut [bool]),
}

impl Col {
    /// A zeroed column for `n` pairs (`calloc`: pages are only touched when written).
    fn new(kind: Kind, n: usize) -> Col {
        match kind {
            Kind::F32(w) => Col::F32(vec![0.0; n * w], w),
            Kind::U8 => Col::U8(vec![0; n]),
            Kind::Bool => Col::Bool(vec![false; n]),
        }
    }

    /// The column as a NumPy array: `(n,)`, or `(n, width)` for points.
    fn into_py<'py>(self, py: Python<'py>, n: usize) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self {
            Col::F32(v, 1) => v.into_pyarray(py).into_any(),
            Col::F32(v, w) => v.into_pyarray(py).reshape([n, w])?.into_any(),
            Col::U8(v) => v.into_pyarray(py).into_any(),
            Col::Bool(v) => v.into_pyarray(py).into_any(),
        })
    }
}

impl ColMut<'_> {
    fn f32(&mut self) -> &mut [f32] {
        match self {
            ColMut::F32(s) => s,
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
    fn points<const D: usize>(&mut self, cols: [&[f32]; D]) {
        let dst = self.f32();
        for (k, col) in cols.iter().enumerate() {
            for (row, x) in dst.chunks_exact_mut(D).zip(col.iter()) {
                row[k] = *x;
            }
        }
    }

    /// `sqrt` of `dist2`.
    fn sqrt_of(&mut self, dist2: &[f32]) {
        for (d, x) in self.f32().iter_mut().zip(dist2) {
            *d = x.sqrt();
        }
    }
}

/// The type of an output column.
#[derive(Clone, Copy)]
enum Kind {
    F32(usize),
    U8,
    Bool,
}

/// The rayon pool of `n` threads (made once per size and kept).
fn pool(n: usize) -> Result<Arc<rayon::ThreadPool>, String> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();
    let mut pools = POOLS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(p) = pools.get(&n) {
        return Ok(Arc::clone(p));
    }
    let p = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .thread_name(|i| format!("segbatch-{i}"))
            .build()
            .map_err(|e| e.to_string())?,
    );
    pools.insert(n, Arc::clone(&p));
    Ok(p)
}

/// How many threads a call may use: `None` for all cores (rayon's global pool).
#[derive(Clone, Copy)]
struct Threads(Option<usize>);

impl Threads {
    fn new(threads: Option<usize>) -> PyResult<Self> {
        match threads {
            Some(0) => Err(PyValueError::new_err("threads must be at least 1 (or None for all cores)")),
            t => Ok(Threads(t)),
        }
    }

    fn parallel(self) -> bool {
        self.0 != Some(1)
    }

    /// Runs `f` on this many threads (on the calling thread when one).
    fn install<R: Send>(self, f: impl FnOnce() -> R + Send) -> Result<R, String> {
        match self.0 {
            None | Some(1) => Ok(f()),
            Some(n) => Ok(pool(n)?.install(f)),
        }
    }
}

/// Runs `f` on every chunk of `n` pairs with its part of every output column, on
/// `threads`, each thread with its own scratch from `init`.
fn run_chunks<S, I, F>(
    n: usize,
    threads: Threads,
    cols: &mut [Col],
    init: I,
    f: F,
) -> Result<(), String>
where
    I: Fn() -> S + Sync + Send,
    F: Fn(&mut S, Range<usize>, &mut [ColMut<'_>]) -> Result<(), segbatch::Error> + Sync + Send,
{
    let mut jobs: Vec<(Range<usize>, Vec<ColMut<'_>>)> = (0..n.div_ceil(CHUNK))
        .map(|k| (k * CHUNK..((k + 1) * CHUNK).min(n), Vec::with_capacity(cols.len())))
        .collect();
    for col in cols.iter_mut() {
        match col {
            Col::F32(v, w) => {
                for (job, s) in jobs.iter_mut().zip(v.chunks_mut(CHUNK * *w)) {
                    job.1.push(ColMut::F32(s));
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
    let result = if !threads.parallel() || jobs.len() <= 1 {
        let mut s = init();
        jobs.into_iter()
            .try_for_each(|(r, mut c)| f(&mut s, r, &mut c))
    } else {
        threads.install(|| {
            jobs.into_par_iter()
                .try_for_each_init(&init, |s, (r, mut c)| f(s, r, &mut c))
        })?
    };
    result.map_err(|e| e.to_string())
}

/// A pairwise query's columns, `names` in the order asked, as a dict of arrays.
fn to_dict<'py>(
    py: Python<'py>,
    names: &[&'static str],
    cols: Vec<Col>,
    n: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, col) in names.iter().zip(cols) {
        d.set_item(name, col.into_py(py, n)?)?;
    }
    Ok(d)
}

/// The columns asked for, checked against the query's `known` ones (name, kind).
fn select(
    asked: Vec<String>,
    known: &[(&'static str, Kind)],
) -> PyResult<(Vec<&'static str>, Vec<Kind>)> {
    let mut names = Vec::new();
    let mut kinds = Vec::new();
    for a in asked {
        let Some(&(name, kind)) = known.iter().find(|(k, _)| *k == a) else {
            let all: Vec<_> = known.iter().map(|(k, _)| *k).collect();
            return Err(PyValueError::new_err(format!(
                "unknown output {a:?}; expected some of {}",
                all.join(", ")
            )));
        };
        if !names.contains(&name) {
            names.push(name);
            kinds.push(kind);
        }
    }
    Ok((names, kinds))
}

/// Runs a pairwise query with the GIL released and returns its columns as a dict.
fn pairwise<'py, S, I, F>(
    py: Python<'py>,
    n: usize,
    threads: Threads,
    names: Vec<&'static str>,
    kinds: Vec<Kind>,
    init: I,
    f: F,
) -> PyResult<Bound<'py, PyDict>>
where
    I: Fn() -> S + Sync + Send,
    F: Fn(&mut S, Range<usize>, &[&'static str], &mut [ColMut<'_>]) -> Result<(), segbatch::Error>
        + Sync
        + Send,
{
    let names_ref = &names;
    let cols = py
        .detach(|| {
            let mut cols: Vec<Col> = kinds.iter().map(|k| Col::new(*k, n)).collect();
            run_chunks(n, threads, &mut cols, init, |s, r, c| f(s, r, names_ref, c))
                .map(|()| cols)
        })
        .map_err(PyValueError::new_err)?;
    to_dict(py, &names, cols, n)
}

// ---------------------------------------------------------------------------------------
// Pairwise queries.

const F: Kind = Kind::F32(1);
const P3: Kind = Kind::F32(3);
const P2: Kind = Kind::F32(2);

/// Scratch of a 3D pairwise query: both sides' transposed chunks and the result.
struct Scratch<T, const C: usize, O> {
    a: Soa<T, C>,
    b: Soa<T, C>,
    out: O,
}

impl<T: Record<C>, const C: usize, O: Default> Scratch<T, C, O> {
    fn new() -> Self {
        Scratch {
            a: Soa::with_capacity(CHUNK),
            b: Soa::with_capacity(CHUNK),
            out: O::default(),
        }
    }
}

/// Closest points of `a[i]` and `b[i]`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (a, b, extent_a, extent_b, tolerance, outputs, threads))]
fn closest_points<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    extent_a: &str,
    extent_b: &str,
    tolerance: Option<f32>,
    outputs: Vec<String>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let threads = Threads::new(threads)?;
    let opts = options(extent_a, extent_b, tolerance)?;
    let (names, kinds) = select(
        outputs,
        &[
            ("dist2", F),
            ("distance", F),
            ("s", F),
            ("t", F),
            ("point_a", P3),
            ("point_b", P3),
            ("flags", Kind::U8),
        ],
    )?;
    let has = |k: &str| names.contains(&k);
    let want = Outputs {
        params: has("s") || has("t"),
        points: has("point_a") || has("point_b"),
        flags: has("flags"),
    };
    let (ha, hb) = (Held::new(a, "a", 6)?, Held::new(b, "b", 6)?);
    let (sa, sb) = (ha.src::<6>("a")?, hb.src::<6>("b")?);
    let n = pair_len(&sa, &sb)?;
    pairwise(
        py,
        n,
        threads,
        names,
        kinds,
        Scratch::<Segment, 6, ClosestBatch>::new,
        |s, r, names, cols| {
            let va = sa.view(r.clone(), &mut s.a);
            let vb = sb.view(r, &mut s.b);
            segbatch::closest_points_into(va, vb, &opts, want, &mut s.out)?;
            let o = &s.out;
            for (name, c) in names.iter().zip(cols) {
                match *name {
                    "dist2" => c.f32().copy_from_slice(o.dist2()),
                    "distance" => c.sqrt_of(o.dist2()),
                    "s" => c.f32().copy_from_slice(o.s()),
                    "t" => c.f32().copy_from_slice(o.t()),
                    "point_a" => c.points(o.point_a()),
                    "point_b" => c.points(o.point_b()),
                    _ => c.u8().copy_from_slice(bytemuck::cast_slice(o.flags())),
                }
            }
            Ok(())
        },
    )
}

/// Do capsules `(a[i], radius_a)` and `(b[i], radius_b)` touch?
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (a, b, radius_a, radius_b, extent_a, extent_b, tolerance, threads))]
fn capsules_touch<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    radius_a: &Bound<'py, PyAny>,
    radius_b: &Bound<'py, PyAny>,
    extent_a: &str,
    extent_b: &str,
    tolerance: Option<f32>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let threads = Threads::new(threads)?;
    let opts = options(extent_a, extent_b, tolerance)?;
    let (ha, hb) = (Held::new(a, "a", 6)?, Held::new(b, "b", 6)?);
    let (sa, sb) = (ha.src::<6>("a")?, hb.src::<6>("b")?);
    let n = pair_len(&sa, &sb)?;
    let (ra, rb) = (
        RadiusArg::new(radius_a, "radius_a")?,
        RadiusArg::new(radius_b, "radius_b")?,
    );
    let radii = RadiiSrc::new(&ra, &rb, n)?;
    let d = pairwise(
        py,
        n,
        threads,
        vec!["touch"],
        vec![Kind::Bool],
        Scratch::<Segment, 6, PairMask>::new,
        |s, r, _, cols| {
            let rr = radii.radii(r.clone())?;
            let va = sa.view(r.clone(), &mut s.a);
            let vb = sb.view(r, &mut s.b);
            segbatch::capsules_touch_into(va, vb, rr, &opts, &mut s.out)?;
            let words = s.out.words();
            for (i, x) in cols[0].bool().iter_mut().enumerate() {
                *x = (words[i / 64] >> (i % 64)) & 1 == 1;
            }
            Ok(())
        },
    )?;
    d.get_item("touch")?
        .ok_or_else(|| PyValueError::new_err("internal: no output"))
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

/// Copies a CPA chunk's columns out.
fn cpa_out(o: &CpaBatch, names: &[&'static str], cols: &mut [ColMut<'_>]) {
    for (name, c) in names.iter().zip(cols) {
        match *name {
            "t" => c.f32().copy_from_slice(o.t()),
            "dist2" => c.f32().copy_from_slice(o.dist2()),
            "distance" => c.sqrt_of(o.dist2()),
            "point_a" => c.points(o.point_a()),
            "point_b" => c.points(o.point_b()),
            _ => c.u8().copy_from_slice(bytemuck::cast_slice(o.flags())),
        }
    }
}

/// Closest point of approach in time of tracks (`segments` false: position, velocity) or
/// of one step along segments (`segments` true: start, end; window `[0, 1]`).
#[pyfunction]
#[pyo3(signature = (a, b, window_end, segments, outputs, threads))]
fn cpa<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    window_end: f32,
    segments: bool,
    outputs: Vec<String>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let threads = Threads::new(threads)?;
    let w = window(window_end)?;
    let (names, kinds) = select(outputs, &CPA_COLS)?;
    let (ha, hb) = (Held::new(a, "a", 6)?, Held::new(b, "b", 6)?);
    let (sa, sb) = (ha.src::<6>("a")?, hb.src::<6>("b")?);
    let n = pair_len(&sa, &sb)?;
    if segments {
        pairwise(
            py,
            n,
            threads,
            names,
            kinds,
            Scratch::<Segment, 6, CpaBatch>::new,
            |s, r, names, cols| {
                let va = sa.view(r.clone(), &mut s.a);
                let vb = sb.view(r, &mut s.b);
                segbatch::motion::cpa_segments_into(va, vb, &mut s.out)?;
                cpa_out(&s.out, names, cols);
                Ok(())
            },
        )
    } else {
        pairwise(
            py,
            n,
            threads,
            names,
            kinds,
            Scratch::<Track, 6, CpaBatch>::new,
            |s, r, names, cols| {
                let va = sa.view(r.clone(), &mut s.a);
                let vb = sb.view(r, &mut s.b);
                segbatch::motion::cpa_into(va, vb, w, &mut s.out)?;
                cpa_out(&s.out, names, cols);
                Ok(())
            },
        )
    }
}

/// Copies a contact chunk's columns out.
fn contact_out(o: &ContactBatch, names: &[&'static str], cols: &mut [ColMut<'_>]) {
    for (name, c) in names.iter().zip(cols) {
        match *name {
            "hit" => c.bool().copy_from_slice(o.hit()),
            "t" => c.f32().copy_from_slice(o.t()),
            _ => c.u8().copy_from_slice(bytemuck::cast_slice(o.flags())),
        }
    }
}

/// First contact of moving spheres: tracks over a window, or one step along segments.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (a, b, radius_a, radius_b, window_end, segments, outputs, threads))]
fn first_contact<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    radius_a: &Bound<'py, PyAny>,
    radius_b: &Bound<'py, PyAny>,
    window_end: f32,
    segments: bool,
    outputs: Vec<String>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let threads = Threads::new(threads)?;
    let w = window(window_end)?;
    let (names, kinds) = select(outputs, &[("hit", Kind::Bool), ("t", F), ("flags", Kind::U8)])?;
    let (ha, hb) = (Held::new(a, "a", 6)?, Held::new(b, "b", 6)?);
    let (sa, sb) = (ha.src::<6>("a")?, hb.src::<6>("b")?);
    let n = pair_len(&sa, &sb)?;
    let (ra, rb) = (
        RadiusArg::new(radius_a, "radius_a")?,
        RadiusArg::new(radius_b, "radius_b")?,
    );
    let radii = RadiiSrc::new(&ra, &rb, n)?;
    if segments {
        pairwise(
            py,
            n,
            threads,
            names,
            kinds,
            Scratch::<Segment, 6, ContactBatch>::new,
            |s, r, names, cols| {
                let rr = radii.radii(r.clone())?;
                let va = sa.view(r.clone(), &mut s.a);
                let vb = sb.view(r, &mut s.b);
                segbatch::motion::first_contact_segments_into(va, vb, rr, &mut s.out)?;
                contact_out(&s.out, names, cols);
                Ok(())
            },
        )
    } else {
        pairwise(
            py,
            n,
            threads,
            names,
            kinds,
            Scratch::<Track, 6, ContactBatch>::new,
            |s, r, names, cols| {
                let rr = radii.radii(r.clone())?;
                let va = sa.view(r.clone(), &mut s.a);
                let vb = sb.view(r, &mut s.b);
                segbatch::motion::first_contact_into(va, vb, rr, w, &mut s.out)?;
                contact_out(&s.out, names, cols);
                Ok(())
            },
        )
    }
}

/// 2D segment crossings and closest points.
#[pyfunction]
#[pyo3(signature = (a, b, outputs, threads))]
fn intersect2<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    outputs: Vec<String>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let threads = Threads::new(threads)?;
    let (names, kinds) = select(
        outputs,
        &[
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
        ],
    )?;
    let (ha, hb) = (Held::new(a, "a", 4)?, Held::new(b, "b", 4)?);
    let (sa, sb) = (ha.src::<4>("a")?, hb.src::<4>("b")?);
    let n = pair_len(&sa, &sb)?;
    pairwise(
        py,
        n,
        threads,
        names,
        kinds,
        Scratch::<Segment2, 4, Intersections2>::new,
        |s, r, names, cols| {
            let va = sa.view(r.clone(), &mut s.a);
            let vb = sb.view(r, &mut s.b);
            segbatch::intersect2_into(va, vb, &mut s.out)?;
            let o = &s.out;
            for (name, c) in names.iter().zip(cols.iter_mut()) {
                match *name {
                    "kind" => {
                        for (d, k) in c.u8().iter_mut().zip(o.kind()) {
                            *d = *k as u8;
                        }
                    }
                    "s" => c.f32().copy_from_slice(o.s()),
                    "t" => c.f32().copy_from_slice(o.t()),
                    "s_end" => c.f32().copy_from_slice(o.s_end()),
                    "t_end" => c.f32().copy_from_slice(o.t_end()),
                    "dist2" => c.f32().copy_from_slice(o.dist2()),
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

/// Hits as a dict of columns (`i`, `j` as int64).
fn hits_dict<'py>(py: Python<'py>, hits: &[Hit]) -> PyResult<Bound<'py, PyDict>> {
    let i: Vec<i64> = hits.iter().map(|h| h.i as i64).collect();
    let j: Vec<i64> = hits.iter().map(|h| h.j as i64).collect();
    let dist2: Vec<f32> = hits.iter().map(|h| h.dist2).collect();
    let s: Vec<f32> = hits.iter().map(|h| h.s).collect();
    let t: Vec<f32> = hits.iter().map(|h| h.t).collect();
    let d = PyDict::new(py);
    d.set_item("i", i.into_pyarray(py))?;
    d.set_item("j", j.into_pyarray(py))?;
    d.set_item("dist2", dist2.into_pyarray(py))?;
    d.set_item("s", s.into_pyarray(py))?;
    d.set_item("t", t.into_pyarray(py))?;
    Ok(d)
}

/// Every `a[i]`, `b[j]` within `radius`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (a, b, radius, extent_a, extent_b, tolerance, threads))]
fn pairs_within<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    radius: f32,
    extent_a: &str,
    extent_b: &str,
    tolerance: Option<f32>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let threads = Threads::new(threads)?;
    let opts = options(extent_a, extent_b, tolerance)?;
    let (ha, hb) = (Held::new(a, "a", 6)?, Held::new(b, "b", 6)?);
    let (sa, sb) = (ha.src::<6>("a")?, hb.src::<6>("b")?);
    let hits = py
        .detach(|| {
            let (mut ba, mut bb) = (Soa::<Segment, 6>::new(), Soa::<Segment, 6>::new());
            let (va, vb) = (sa.whole(&mut ba), sb.whole(&mut bb));
            let mut hits = Vec::new();
            threads
                .install(|| {
                    if threads.parallel() {
                        segbatch::par_pairs_within_into(va, vb, radius, &opts, &mut hits)
                    } else {
                        segbatch::pairs_within_into(va, vb, radius, &opts, &mut hits)
                    }
                })?
                .map_err(|e| e.to_string())?;
            Ok::<_, String>(hits)
        })
        .map_err(PyValueError::new_err)?;
    hits_dict(py, &hits)
}

/// Every pair `i < j` of `set` within `radius`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (set, radius, skip_shared, extent_a, extent_b, tolerance, threads))]
fn self_pairs_within<'py>(
    py: Python<'py>,
    set: &Bound<'py, PyAny>,
    radius: f32,
    skip_shared: bool,
    extent_a: &str,
    extent_b: &str,
    tolerance: Option<f32>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let threads = Threads::new(threads)?;
    let opts = options(extent_a, extent_b, tolerance)?;
    let hs = Held::new(set, "set", 6)?;
    let ss = hs.src::<6>("set")?;
    let shared = if skip_shared {
        SharedEndpoints::Skip
    } else {
        SharedEndpoints::Keep
    };
    let hits = py
        .detach(|| {
            let mut buf = Soa::<Segment, 6>::new();
            let v = ss.whole(&mut buf);
            let mut hits = Vec::new();
            threads
                .install(|| {
                    if threads.parallel() {
                        segbatch::par_self_pairs_within_into(v, radius, shared, &opts, &mut hits)
                    } else {
                        segbatch::self_pairs_within_into(v, radius, shared, &opts, &mut hits)
                    }
                })?
                .map_err(|e| e.to_string())?;
            Ok::<_, String>(hits)
        })
        .map_err(PyValueError::new_err)?;
    hits_dict(py, &hits)
}

/// Squared distance of every `a[i]` to every `b[j]`, shape `(len(a), len(b))`.
#[pyfunction]
#[pyo3(signature = (a, b, extent_a, extent_b, tolerance, threads))]
fn dist2_matrix<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    extent_a: &str,
    extent_b: &str,
    tolerance: Option<f32>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let threads = Threads::new(threads)?;
    let opts = options(extent_a, extent_b, tolerance)?;
    let (ha, hb) = (Held::new(a, "a", 6)?, Held::new(b, "b", 6)?);
    let (sa, sb) = (ha.src::<6>("a")?, hb.src::<6>("b")?);
    let (n, m) = (sa.len(), sb.len());
    let matrix = py
        .detach(|| {
            let (mut ba, mut bb) = (Soa::<Segment, 6>::new(), Soa::<Segment, 6>::new());
            let (va, vb) = (sa.whole(&mut ba), sb.whole(&mut bb));
            let mut out = Vec::new();
            threads
                .install(|| {
                    if threads.parallel() {
                        segbatch::par_dist2_matrix_into(va, vb, &opts, &mut out)
                    } else {
                        segbatch::dist2_matrix_into(va, vb, &opts, &mut out)
                    }
                })?
                .map_err(|e| e.to_string())?;
            Ok::<_, String>(out)
        })
        .map_err(PyValueError::new_err)?;
    Ok(matrix.into_pyarray(py).reshape([n, m])?.into_any())
}

/// The SIMD level this extension was built for (`"avx2+fma"`, `"sse2"`, ...).
#[pyfunction]
fn simd_level() -> &'static str {
    segbatch::SIMD_LEVEL
}

/// The native module `segbatch._segbatch`; the public API is `segbatch` (Python).
#[pymodule]
fn _segbatch(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(closest_points, m)?)?;
    m.add_function(wrap_pyfunction!(capsules_touch, m)?)?;
    m.add_function(wrap_pyfunction!(cpa, m)?)?;
    m.add_function(wrap_pyfunction!(first_contact, m)?)?;
    m.add_function(wrap_pyfunction!(intersect2, m)?)?;
    m.add_function(wrap_pyfunction!(pairs_within, m)?)?;
    m.add_function(wrap_pyfunction!(self_pairs_within, m)?)?;
    m.add_function(wrap_pyfunction!(dist2_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(simd_level, m)?)?;
    m.add("CHUNK", CHUNK)?;
    Ok(())
}
