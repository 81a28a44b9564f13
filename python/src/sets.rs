//! The set queries: pairs within a radius, index pairs, capsule contacts and street
//! crossings, collected from the library's streamed forms.

use super::*;

/// `f` of every item as a new vector, or `MemoryError` when it cannot be allocated.
pub(crate) fn column<T, U>(
    items: &[T],
    what: &'static str,
    f: impl Fn(&T) -> U,
) -> PyResult<Vec<U>> {
    let mut v = try_vec(items.len(), what)?;
    v.extend(items.iter().map(f));
    Ok(v)
}

/// Hits as a dict of columns (`i`, `j` as int64, the others in the precision `E`).
pub(crate) fn hits_dict<'py, E: Real>(
    py: Python<'py>,
    hits: &[E::Hit],
) -> PyResult<Bound<'py, PyDict>> {
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
pub(crate) struct Found<'s, E: Real> {
    pub(crate) hits: Vec<E::Hit>,
    pub(crate) pairs: Vec<(u32, u32)>,
    pub(crate) params: E::Closest,
    pub(crate) gather: E::Gather,
    pub(crate) what: &'static str,
    pub(crate) stop: &'s AtomicBool,
    pub(crate) failed: Option<Failure>,
}

impl<'s, E: Real> Found<'s, E> {
    pub(crate) fn new(what: &'static str, stop: &'s AtomicBool) -> Self {
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
    pub(crate) fn add(
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
    pub(crate) fn sorted(self, n: usize) -> Result<Vec<E::Hit>, Failure> {
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
pub(crate) fn pairs_within<'py>(
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
pub(crate) fn pairs_within_of<'py, E: Real>(
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
pub(crate) fn self_pairs_within<'py>(
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
pub(crate) fn self_pairs_within_of<'py, E: Real>(
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
pub(crate) fn call<R: Send>(
    py: Python<'_>,
    threads: Threads,
    f: impl FnOnce(bool) -> Result<R, Failure> + Send,
) -> PyResult<R> {
    let parallel = threads.parallel();
    Ok(py.detach(|| guarded(|| threads.install(|| f(parallel))?))?)
}

/// Index pairs from an `(K, 2)` C-contiguous uint32 array (the Python layer checks the
/// values and converts), as the library takes them.
pub(crate) fn index_pairs(pairs: &PyReadonlyArray2<'_, u32>) -> PyResult<Vec<(u32, u32)>> {
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
pub(crate) fn object_radii<'a, E: Real>(
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
pub(crate) fn points3<'py, E: Real>(
    py: Python<'py>,
    p: Vec<[E; 3]>,
) -> PyResult<Bound<'py, PyAny>> {
    let n = p.len();
    let flat: Vec<E> = bytemuck::cast_slice(&p).to_vec();
    Ok(flat.into_pyarray(py).reshape([n, 3])?.into_any())
}

/// A dict of named columns.
pub(crate) fn dict<'py>(
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
pub(crate) struct IndexedArgs<'a, 'py> {
    pub(crate) a: &'a Bound<'py, PyAny>,
    pub(crate) b: &'a Bound<'py, PyAny>,
    pub(crate) pairs: Vec<(u32, u32)>,
    pub(crate) opts: Options,
    pub(crate) threads: Threads,
}

impl<'a, 'py> IndexedArgs<'a, 'py> {
    pub(crate) fn new(
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
    pub(crate) fn run<E: Real, R: Send>(
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
pub(crate) fn closest_points_indexed<'py>(
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
pub(crate) fn closest_indexed_of<'py, E: Real>(
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
pub(crate) fn capsules_touch_indexed<'py>(
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
pub(crate) fn capsules_indexed_of<'py, E: Real>(
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
pub(crate) fn capsule_contacts<'py>(
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
pub(crate) fn contacts_of<'py, E: Real>(
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
pub(crate) fn crossing_dict<'py, E>(
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
pub(crate) fn crossing_pairs<'py>(
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
pub(crate) fn crossing_hits<E: Plane2>(
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
pub(crate) fn crossing_pairs64<'py>(
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
pub(crate) fn intersect2_64<'py>(
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
pub(crate) fn rows64<'a>(arr: &'a PyReadonlyArray2<'_, f64>, name: &str) -> PyResult<&'a [f64]> {
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
pub(crate) fn shared_endpoints(skip: bool) -> SharedEndpoints {
    if skip {
        SharedEndpoints::Skip
    } else {
        SharedEndpoints::Keep
    }
}
