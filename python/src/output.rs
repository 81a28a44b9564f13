//! Output columns and the chunk loop: the NumPy arrays results are written into, the
//! thread pools, and the driver that runs a pairwise query chunk by chunk.

use super::*;

/// An output array as passed from Python, borrowed for writing: the float columns in the
/// query's precision `E`.
pub(crate) enum OutArray<'py, E: Real> {
    Real(PyReadwriteArray1<'py, E>),
    Points(PyReadwriteArray2<'py, E>),
    U8(PyReadwriteArray1<'py, u8>),
    Bool(PyReadwriteArray1<'py, bool>),
}

impl<'py, E: Real> OutArray<'py, E> {
    /// Borrows `obj` as the output column `name` of `kind` for `n` pairs.
    pub(crate) fn new(obj: &Bound<'py, PyAny>, name: &str, kind: Kind, n: usize) -> PyResult<Self> {
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
    pub(crate) fn col(&mut self, name: &str) -> PyResult<Col<'_, E>> {
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
pub(crate) enum Col<'a, E> {
    Real(&'a mut [E], usize),
    U8(&'a mut [u8]),
    Bool(&'a mut [bool]),
}

/// The part of an output column that belongs to one chunk.
pub(crate) enum ColMut<'a, E> {
    Real(&'a mut [E]),
    U8(&'a mut [u8]),
    Bool(&'a mut [bool]),
}

impl<E: Real> ColMut<'_, E> {
    pub(crate) fn real(&mut self) -> &mut [E] {
        match self {
            ColMut::Real(s) => s,
            _ => unreachable!("column kinds are fixed by the query"),
        }
    }

    pub(crate) fn u8(&mut self) -> &mut [u8] {
        match self {
            ColMut::U8(s) => s,
            _ => unreachable!("column kinds are fixed by the query"),
        }
    }

    pub(crate) fn bool(&mut self) -> &mut [bool] {
        match self {
            ColMut::Bool(s) => s,
            _ => unreachable!("column kinds are fixed by the query"),
        }
    }

    /// Copies `D` point columns into `(x, y, z)` rows.
    pub(crate) fn points<const D: usize>(&mut self, cols: [&[E]; D]) {
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
    pub(crate) fn sqrt_of(&mut self, dist2: &[E]) {
        for (d, x) in self.real().iter_mut().zip(dist2) {
            *d = x.sqrt();
        }
    }
}

/// Copies a chunk's columns out by name (the closest-points and closest-approach
/// queries; `distance` is `sqrt(dist2)`).
pub(crate) fn copy_out<E: Real>(o: Res<'_, E>, names: &[&'static str], cols: &mut [ColMut<'_, E>]) {
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
pub(crate) enum Kind {
    Real(usize),
    U8,
    Bool,
}

/// How many thread pools of distinct sizes are kept; the least recently used one beyond
/// this is dropped (its threads end once no call uses it). Sizes are clamped to the CPU
/// count, so a few pools cover every realistic use and idle threads stay bounded.
pub(crate) const MAX_POOLS: usize = 4;

/// The kept pools with their sizes, most recently used first.
pub(crate) type Pools = Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>>;

/// The rayon pool of `n` threads: one shared pool per size, at most [`MAX_POOLS`] kept.
pub(crate) fn pool(n: usize) -> Result<Arc<rayon::ThreadPool>, Failure> {
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
pub(crate) fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// How many threads a call may use: `None` for all cores (rayon's global pool). A count
/// above the CPU count is clamped to it (the Python layer warns when it clamps).
#[derive(Clone, Copy)]
pub(crate) struct Threads(Option<usize>);

impl Threads {
    pub(crate) fn new(threads: Option<usize>) -> PyResult<Self> {
        match threads {
            Some(0) => Err(PyValueError::new_err(
                "threads must be at least 1 (or None for all cores)",
            )),
            t => Ok(Threads(t.map(|n| n.min(cpus())))),
        }
    }

    pub(crate) fn parallel(self) -> bool {
        self.0 != Some(1)
    }

    /// Runs `f` on this many threads (on the calling thread when one).
    pub(crate) fn install<R: Send>(self, f: impl FnOnce() -> R + Send) -> Result<R, Failure> {
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
pub(crate) struct Pooled<S: 'static>(Option<S>);

impl<S: 'static> Pooled<S> {
    pub(crate) fn take(make: impl FnOnce() -> S) -> Self {
        let kept = SCRATCH.with(|p| p.borrow_mut().remove(&std::any::TypeId::of::<S>()));
        Pooled(Some(
            kept.and_then(|b| b.downcast::<S>().ok())
                .map_or_else(make, |b| *b),
        ))
    }

    pub(crate) fn get(&mut self) -> &mut S {
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
pub(crate) const STEP: usize = 64 * CHUNK;

impl<'a, E> Col<'a, E> {
    /// The first `rows` pairs' part of the column and the rest.
    pub(crate) fn split(self, rows: usize) -> (Col<'a, E>, Col<'a, E>) {
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
pub(crate) fn for_jobs<J, S, I, F>(
    threads: Threads,
    jobs: Vec<J>,
    init: &I,
    f: &F,
) -> Result<(), Failure>
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
pub(crate) fn run_chunks<E, S, I, F>(
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
pub(crate) fn out_arrays<'py, E: Real>(
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
pub(crate) fn pairwise<E, S, I, F>(
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
