//! The set queries: pairs within a radius, index pairs, capsule contacts and street
//! crossings, collected from the library's streamed forms.

use super::*;

/// The columns of a radius query's hits: `i`, `j` (int64), `dist2`, `s`, `t` (in the
/// precision `E`), made on the worker's side (without the GIL, checking the stop) and
/// handed to NumPy without a copy.
pub(crate) struct HitColumns<E> {
    pub(crate) i: Vec<i64>,
    pub(crate) j: Vec<i64>,
    pub(crate) dist2: Vec<E>,
    pub(crate) s: Vec<E>,
    pub(crate) t: Vec<E>,
}

impl<E: Real> HitColumns<E> {
    pub(crate) fn new() -> Self {
        HitColumns {
            i: Vec::new(),
            j: Vec::new(),
            dist2: Vec::new(),
            s: Vec::new(),
            t: Vec::new(),
        }
    }

    /// Appends `hits` (room reserved fallibly: `MemoryError`, never an abort).
    pub(crate) fn extend(&mut self, hits: &[Hit<E>]) -> Result<(), Failure> {
        let n = self.i.len() + hits.len();
        let short = || Failure::Memory("pairs_within output", n);
        let more = hits.len();
        self.i.try_reserve(more).map_err(|_| short())?;
        self.j.try_reserve(more).map_err(|_| short())?;
        self.dist2.try_reserve(more).map_err(|_| short())?;
        self.s.try_reserve(more).map_err(|_| short())?;
        self.t.try_reserve(more).map_err(|_| short())?;
        for h in hits {
            self.i.push(i64::from(h.i));
            self.j.push(i64::from(h.j));
            self.dist2.push(h.dist2);
            self.s.push(h.s);
            self.t.push(h.t);
        }
        Ok(())
    }

    /// The columns of `hits`, [`CHECK_EVERY`] hits between checks of `stop`.
    pub(crate) fn of(hits: &[Hit<E>], stop: &Stop) -> Result<Self, Failure> {
        let mut c = HitColumns::new();
        for part in hits.chunks(CHECK_EVERY) {
            checked(stop)?;
            c.extend(part)?;
        }
        Ok(c)
    }

    /// As a dict of NumPy arrays (each takes its vector over, no copy).
    pub(crate) fn into_dict(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        dict(
            py,
            vec![
                ("i", self.i.into_pyarray(py).into_any()),
                ("j", self.j.into_pyarray(py).into_any()),
                ("dist2", self.dist2.into_pyarray(py).into_any()),
                ("s", self.s.into_pyarray(py).into_any()),
                ("t", self.t.into_pyarray(py).into_any()),
            ],
        )
    }
}

/// `hits` sorted by `(i, j)` (`i < n`; each pair once), as the library's collected forms
/// sort: counted by `i`, placed, and each `i`'s few hits sorted by `j`, in `O(n + K)` (no
/// comparison sort over the whole output), with a check of `stop` every [`CHECK_EVERY`]
/// hits or rows (a stopped query's hits are never sorted; an interrupt during the sort of
/// a finished one is seen within it).
pub(crate) fn by_row<H: Copy + Default>(
    hits: Vec<H>,
    n: usize,
    pair: impl Fn(&H) -> (u32, u32),
    what: &'static str,
    stop: &Stop,
) -> Result<Vec<H>, Failure> {
    checked(stop)?;
    let i_of = |h: &H| pair(h).0 as usize;
    let mut starts = try_vec::<usize>(n + 1, what)?;
    starts.resize(n + 1, 0);
    each_checked(hits.len(), stop, |k| starts[i_of(&hits[k]) + 1] += 1)?;
    for k in 0..n {
        starts[k + 1] += starts[k];
    }
    let mut placed = try_vec::<H>(hits.len(), what)?;
    placed.resize(hits.len(), H::default());
    let mut next = try_vec::<usize>(n + 1, what)?;
    next.extend_from_slice(&starts);
    each_checked(hits.len(), stop, |k| {
        let h = hits[k];
        let slot = &mut next[i_of(&h)];
        placed[*slot] = h;
        *slot += 1;
    })?;
    drop(hits);
    each_checked(n, stop, |i| {
        placed[starts[i]..starts[i + 1]].sort_unstable_by_key(|h| pair(h).1);
    })?;
    Ok(placed)
}

/// The hits of a streamed radius query as they arrive (see [`interruptible`]): each
/// block's `s` and `t` from the kernel over its index pairs (`closest_points_indexed_into`,
/// the same kernel and options as the query's, so the same values bit for bit), sorted by
/// `(i, j)` at the end, as the collected forms return them.
pub(crate) struct Found<'s, E: Real> {
    pub(crate) hits: Vec<Hit<E>>,
    pub(crate) pairs: Vec<(u32, u32)>,
    pub(crate) params: ClosestBatch<E>,
    pub(crate) what: &'static str,
    pub(crate) stop: &'s Stop,
    pub(crate) failed: Option<Failure>,
}

impl<'s, E: Real> Found<'s, E> {
    pub(crate) fn new(what: &'static str, stop: &'s Stop) -> Self {
        Found {
            hits: Vec::new(),
            pairs: Vec::new(),
            params: ClosestBatch::new(),
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
        block: &[PairHit<E>],
    ) -> ControlFlow<()> {
        go_on(self.stop)?;
        self.pairs.clear();
        self.pairs.extend(block.iter().map(|h| (h.i, h.j)));
        let params = &mut self.params;
        let found = closest_points_indexed_into(a, b, &self.pairs, opts, Outputs::PARAMS, params);
        if let Err(e) = found {
            self.failed = Some(Failure::Lib(e));
            return ControlFlow::Break(());
        }
        if self.hits.try_reserve(block.len()).is_err() {
            let n = self.hits.len() + block.len();
            self.failed = Some(Failure::Memory(self.what, n));
            return ControlFlow::Break(());
        }
        let p = closest_res(params);
        let with_params = block.iter().zip(p.s.iter().zip(p.t));
        self.hits.extend(with_params.map(|(h, (&s, &t))| Hit {
            i: h.i,
            j: h.j,
            dist2: h.dist2,
            s,
            t,
        }));
        ControlFlow::Continue(())
    }

    /// The columns of the hits sorted by `(i, j)` (`i < n`), or why the query stopped
    /// (`Failure::Interrupted` once the stop is requested: a stopped query's hits are
    /// dropped unsorted).
    pub(crate) fn columns(self, n: usize) -> Result<HitColumns<E>, Failure> {
        if let Some(f) = self.failed {
            return Err(f);
        }
        let pair = |h: &Hit<E>| (h.i, h.j);
        let sorted = by_row(self.hits, n, pair, self.what, self.stop)?;
        HitColumns::of(&sorted, self.stop)
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
    let ca = owned_columns(py, &sa, "copy of a")?;
    let cb = owned_columns(py, &sb, "copy of b")?;
    let (radius, opts) = (E::from_f64(radius), *opts);
    let hits = interruptible(py, threads, move |parallel, stop| {
        let (va, vb) = (columns_view(&ca), columns_view(&cb));
        let mut found = Found::<E>::new("pairs_within output", stop);
        let sink = |b: &[PairHit<E>]| found.add(va, vb, &opts, b);
        if parallel {
            segbatch::sets::par_for_each_pair_within(va, vb, radius, &opts, sink)?;
        } else {
            segbatch::sets::for_each_pair_within(va, vb, radius, &opts, sink)?;
        }
        found.columns(va.len())
    })?;
    hits.into_dict(py)
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
    let cols = owned_columns(py, &ss, "copy of the set")?;
    let (radius, opts) = (E::from_f64(radius), *opts);
    let hits = interruptible(py, threads, move |parallel, stop| {
        let v = columns_view(&cols);
        let mut found = Found::<E>::new("self_pairs_within output", stop);
        let sink = |b: &[PairHit<E>]| found.add(v, v, &opts, b);
        if parallel {
            segbatch::sets::par_for_each_self_pair_within(v, radius, shared, &opts, sink)?;
        } else {
            segbatch::sets::for_each_self_pair_within(v, radius, shared, &opts, sink)?;
        }
        found.columns(v.len())
    })?;
    hits.into_dict(py)
}

/// Index pairs from an `(K, 2)` C-contiguous uint32 array (the Python layer checks the
/// values and converts), as its flat numbers (`i, j` of each pair), borrowed.
pub(crate) fn index_pairs<'a>(pairs: &'a PyReadonlyArray2<'_, u32>) -> PyResult<&'a [u32]> {
    let flat = pairs
        .as_slice()
        .map_err(|_| PyValueError::new_err("pairs: the array must be C-contiguous"))?;
    if pairs.shape()[1] != 2 {
        return Err(PyValueError::new_err(format!(
            "pairs: expected shape (K, 2), got {:?}",
            pairs.shape()
        )));
    }
    Ok(flat)
}

/// Radii of an indexed query: two numbers, or one radius per object of each set.
pub(crate) fn object_radii<'a, E: Real>(
    ra: &'a RadiusArg<'_, E>,
    rb: &'a RadiusArg<'_, E>,
) -> PyResult<Radii<'a, E>> {
    let slice = |r: &'a PyReadonlyArray1<'_, E>, name: &str| {
        r.as_slice()
            .map_err(|_| PyValueError::new_err(format!("{name}: the array must be contiguous")))
    };
    match (ra, rb) {
        (RadiusArg::Uniform(a), RadiusArg::Uniform(b)) => Radii::uniform(*a, *b),
        (RadiusArg::PerPair(a), RadiusArg::PerPair(b)) => {
            Radii::per_object(slice(a, "radius_a")?, slice(b, "radius_b")?)
        }
        _ => {
            return Err(PyTypeError::new_err(
                "radius_a and radius_b must both be numbers or both be arrays",
            ));
        }
    }
    .map_err(lib_error)
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

/// Flat `(K, 3)` values as an array.
pub(crate) fn points3<'py, E: Real>(py: Python<'py>, p: Vec<E>) -> PyResult<Bound<'py, PyAny>> {
    let n = p.len() / 3;
    Ok(p.into_pyarray(py).reshape([n, 3])?.into_any())
}

/// Index pairs per step of the indexed queries at most (see [`IndexedArgs::steps`]).
pub(crate) const PAIRS_STEP: usize = 64 * CHUNK;

/// The sides, index pairs and options of an indexed query, as passed from Python.
pub(crate) struct IndexedArgs<'a, 'py> {
    pub(crate) a: &'a Bound<'py, PyAny>,
    pub(crate) b: &'a Bound<'py, PyAny>,
    /// The pairs' numbers, `i, j` of each.
    pub(crate) pairs: &'a [u32],
    pub(crate) opts: Options,
    pub(crate) threads: Threads,
}

impl<'a, 'py> IndexedArgs<'a, 'py> {
    pub(crate) fn new(
        a: &'a Bound<'py, PyAny>,
        b: &'a Bound<'py, PyAny>,
        pairs: &'a PyReadonlyArray2<'py, u32>,
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

    /// The number of index pairs.
    pub(crate) fn len(&self) -> usize {
        self.pairs.len() / 2
    }

    /// Runs `f(a, b, pairs, options, parallel, first)` on both sides as whole views of `E`
    /// and on consecutive parts of the index pairs (`first` the position of a part's first
    /// pair), each part one library call on `threads` with the GIL released, in steps of at
    /// most [`PAIRS_STEP`] pairs with a check for Ctrl-C between them ([`stepped`]): a
    /// pair's result does not depend on the others, so the parts give the whole call's
    /// results bit for bit.
    pub(crate) fn steps<E: Real>(
        &self,
        py: Python<'_>,
        mut f: impl FnMut(
            SoaView<'_, E::Segment, 6, E>,
            SoaView<'_, E::Segment, 6, E>,
            &[(u32, u32)],
            &Options,
            bool,
            usize,
        ) -> Result<(), Failure>
        + Send,
    ) -> PyResult<()> {
        let (ha, hb) = (Held::<E>::new(self.a, "a", 6)?, Held::new(self.b, "b", 6)?);
        let (sa, sb) = (ha.src::<6>("a")?, hb.src::<6>("b")?);
        let (mut ba, mut bb) = (Whole::new(), Whole::new());
        let (va, vb) = py.detach(|| guarded(|| Ok((sa.whole(&mut ba)?, sb.whole(&mut bb)?))))?;
        let (flat, opts, threads) = (self.pairs, &self.opts, self.threads);
        let parallel = threads.parallel();
        let mut part = Vec::new();
        stepped(py, self.len(), 8 * CHUNK, PAIRS_STEP, |r| {
            part.clear();
            part.extend(
                flat[2 * r.start..2 * r.end]
                    .as_chunks::<2>()
                    .0
                    .iter()
                    .map(|&[i, j]| (i, j)),
            );
            let part = &part;
            threads.install(|| f(va, vb, part, opts, parallel, r.start))?
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
    let k = args.len();
    let mut dist2 = try_vec::<E>(k, "dist2 column")?;
    let mut distance = try_vec::<E>(k, "distance column")?;
    let mut s = try_vec::<E>(k, "s column")?;
    let mut t = try_vec::<E>(k, "t column")?;
    let mut point_a = try_vec::<E>(3 * k, "point_a column")?;
    let mut point_b = try_vec::<E>(3 * k, "point_b column")?;
    let mut flags = try_vec::<u8>(k, "flags column")?;
    let mut out = ClosestBatch::<E>::new();
    args.steps::<E>(py, |va, vb, pairs, opts, parallel, _| {
        if parallel {
            par_closest_points_indexed_into(va, vb, pairs, opts, Outputs::ALL, &mut out)?;
        } else {
            closest_points_indexed_into(va, vb, pairs, opts, Outputs::ALL, &mut out)?;
        }
        let r = closest_res(&out);
        dist2.extend_from_slice(r.dist2);
        distance.extend(r.dist2.iter().map(|d| d.sqrt()));
        s.extend_from_slice(r.s);
        t.extend_from_slice(r.t);
        for (p, c) in [(&mut point_a, r.point_a), (&mut point_b, r.point_b)] {
            p.extend((0..r.dist2.len()).flat_map(|q| [c[0][q], c[1][q], c[2][q]]));
        }
        flags.extend_from_slice(r.flags);
        Ok(())
    })?;
    dict(
        py,
        vec![
            ("dist2", dist2.into_pyarray(py).into_any()),
            ("distance", distance.into_pyarray(py).into_any()),
            ("s", s.into_pyarray(py).into_any()),
            ("t", t.into_pyarray(py).into_any()),
            ("point_a", points3(py, point_a)?),
            ("point_b", points3(py, point_b)?),
            ("flags", flags.into_pyarray(py).into_any()),
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
    let touch = if is_f64(a) {
        capsules_indexed_of::<f64>(py, &args, radii)
    } else {
        capsules_indexed_of::<f32>(py, &args, radii)
    }?;
    Ok(touch.into_pyarray(py).into_any())
}

/// [`capsules_touch_indexed`] in the precision of `E`.
pub(crate) fn capsules_indexed_of<'py, E: Real>(
    py: Python<'py>,
    args: &IndexedArgs<'_, 'py>,
    (radius_a, radius_b): (&Bound<'py, PyAny>, &Bound<'py, PyAny>),
) -> PyResult<Vec<bool>> {
    let (ra, rb) = (
        RadiusArg::<E>::new(radius_a, "radius_a")?,
        RadiusArg::new(radius_b, "radius_b")?,
    );
    let radii = object_radii(&ra, &rb)?;
    let mut touch = try_vec::<bool>(args.len(), "capsules_touch_indexed output")?;
    let mut mask = PairMask::new();
    args.steps::<E>(py, |va, vb, pairs, opts, parallel, _| {
        if parallel {
            par_capsules_touch_indexed_into(va, vb, pairs, radii, opts, &mut mask)?;
        } else {
            capsules_touch_indexed_into(va, vb, pairs, radii, opts, &mut mask)?;
        }
        touch.extend((0..pairs.len()).map(|k| mask.get(k) == Some(true)));
        Ok(())
    })?;
    Ok(touch)
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

/// [`capsule_contacts`] in the precision of `E`: each step's contacts appended to the
/// columns, their `pair` offset by the step's first pair.
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
    let (mut pair, mut i, mut j) = (Vec::<i64>::new(), Vec::<i64>::new(), Vec::<i64>::new());
    let (mut normal, mut depth) = (Vec::<E>::new(), Vec::<E>::new());
    let (mut point_a, mut point_b) = (Vec::<E>::new(), Vec::<E>::new());
    let mut c = Vec::new();
    args.steps::<E>(py, |va, vb, pairs, opts, parallel, first| {
        c.clear();
        if parallel {
            par_capsule_contacts_into(va, vb, pairs, radii, opts, &mut c)?;
        } else {
            capsule_contacts_into(va, vb, pairs, radii, opts, &mut c)?;
        }
        let n = pair.len() + c.len();
        let short = || Failure::Memory("capsule_contacts output", n);
        for col in [&mut pair, &mut i, &mut j] {
            col.try_reserve(c.len()).map_err(|_| short())?;
        }
        depth.try_reserve(c.len()).map_err(|_| short())?;
        for col in [&mut normal, &mut point_a, &mut point_b] {
            col.try_reserve(3 * c.len()).map_err(|_| short())?;
        }
        for x in &c {
            pair.push(first as i64 + i64::from(x.pair));
            i.push(i64::from(x.i));
            j.push(i64::from(x.j));
            normal.extend(x.normal);
            depth.push(x.depth);
            point_a.extend(x.point_a);
            point_b.extend(x.point_b);
        }
        Ok(())
    })?;
    dict(
        py,
        vec![
            ("pair", pair.into_pyarray(py).into_any()),
            ("i", i.into_pyarray(py).into_any()),
            ("j", j.into_pyarray(py).into_any()),
            ("normal", points3(py, normal)?),
            ("depth", depth.into_pyarray(py).into_any()),
            ("point_a", points3(py, point_a)?),
            ("point_b", points3(py, point_b)?),
        ],
    )
}

/// The columns of the crossing pairs: `i`, `j` (int64), `s`, `kind` (uint8) and `point`
/// (`(K, 2)`, `set[i].at(s)`), the floats in the set's precision, made on the worker's
/// side and handed to NumPy without a copy.
pub(crate) struct CrossColumns<E> {
    i: Vec<i64>,
    j: Vec<i64>,
    s: Vec<E>,
    kind: Vec<u8>,
    point: Vec<E>,
}

impl<E: Plane2 + numpy::Element> CrossColumns<E> {
    /// The columns of `hits` (of `set`), [`CHECK_EVERY`] hits between checks of `stop`.
    pub(crate) fn of(
        set: Segments2View<'_, E>,
        hits: &[CrossHit<E>],
        stop: &Stop,
    ) -> Result<Self, Failure> {
        let n = hits.len();
        let mut c = CrossColumns {
            i: try_vec(n, "i column")?,
            j: try_vec(n, "j column")?,
            s: try_vec(n, "s column")?,
            kind: try_vec(n, "kind column")?,
            point: try_vec(2 * n, "point column")?,
        };
        for part in hits.chunks(CHECK_EVERY) {
            checked(stop)?;
            c.i.extend(part.iter().map(|h| i64::from(h.i)));
            c.j.extend(part.iter().map(|h| i64::from(h.j)));
            c.s.extend(part.iter().map(|h| h.s));
            c.kind.extend(part.iter().map(|h| h.kind as u8));
            for h in part {
                c.point
                    .extend(h.point(set).expect("the hit names a segment of the set"));
            }
        }
        Ok(c)
    }

    /// As a dict of NumPy arrays.
    pub(crate) fn into_dict(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        let n = self.i.len();
        dict(
            py,
            vec![
                ("i", self.i.into_pyarray(py).into_any()),
                ("j", self.j.into_pyarray(py).into_any()),
                ("s", self.s.into_pyarray(py).into_any()),
                ("kind", self.kind.into_pyarray(py).into_any()),
                (
                    "point",
                    self.point.into_pyarray(py).reshape([n, 2])?.into_any(),
                ),
            ],
        )
    }
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
    let cols = owned_columns(py, &ss, "copy of the set")?;
    let columns = interruptible(py, threads, move |parallel, stop| {
        crossing_columns(
            columns_view::<Segment2, 4, f32>(&cols),
            shared,
            parallel,
            stop,
        )
    })?;
    columns.into_dict(py)
}

/// The columns of the crossing pairs of `set`, sorted by `(i, j)`, from the streamed query
/// (which a requested `stop` ends at its next piece of work; see [`interruptible`]).
pub(crate) fn crossing_columns<E: Plane2 + numpy::Element>(
    set: Segments2View<'_, E>,
    shared: SharedEndpoints,
    parallel: bool,
    stop: &Stop,
) -> Result<CrossColumns<E>, Failure> {
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
    let what = "crossing_pairs output";
    let sorted = by_row(out, set.len(), |h| (h.i, h.j), what, stop)?;
    CrossColumns::of(set, &sorted, stop)
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
    let records = bytemuck::cast_slice::<f64, Segment2_64>(flat);
    let batch: Segments2<f64> = py.detach(|| Segments2::from(records));
    let columns = interruptible(py, threads, move |parallel, stop| {
        crossing_columns(batch.as_view(), shared, parallel, stop)
    })?;
    columns.into_dict(py)
}

/// 2D crossings and closest points of `float64` pairs (`(N, 4)` C-contiguous each),
/// computed by the `f64` reference pair by pair (on the pool's threads) and written into
/// the `out` arrays by name: `kind`, `flags` (uint8), the others float64; in steps with a
/// check for Ctrl-C between them ([`stepped`]).
#[pyfunction]
#[pyo3(signature = (a, b, out, threads))]
pub(crate) fn intersect2_64<'py>(
    py: Python<'py>,
    a: PyReadonlyArray2<'py, f64>,
    b: PyReadonlyArray2<'py, f64>,
    out: &Bound<'py, PyDict>,
    threads: Option<usize>,
) -> PyResult<()> {
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
    let n = sa.len();
    let mut columns = Borrowed2::of(out, n)?;
    let mut out = columns.slices(n)?;
    let parallel = threads.parallel();
    let mut x: Vec<Meeting> = Vec::new();
    // About a microsecond a pair: steps of at most 64K pairs.
    stepped(py, n, 1024, 16 * CHUNK, |r| {
        let (pa, pb) = (&sa[r.clone()], &sb[r.clone()]);
        let one = |(p, q): (&Segment2_64, &Segment2_64)| segbatch::reference::intersect2(p, q);
        if parallel {
            threads.install(|| pa.par_iter().zip(pb).map(one).collect_into_vec(&mut x))?;
        } else {
            x.clear();
            x.extend(pa.iter().zip(pb).map(one));
        }
        out.write(r, &x);
        Ok(())
    })
}

/// The `f64` 2D meeting of one pair.
type Meeting = segbatch::planar::Intersection2<f64>;

/// Output columns by kind, each with the value of a [`Meeting`] it takes.
type Columns<C, V> = Vec<(C, fn(&Meeting) -> V)>;

/// The `out` arrays of [`intersect2_64`], borrowed for writing: the flag bytes, the
/// numbers and the 2D points.
struct Borrowed2<'py> {
    bytes: Columns<PyReadwriteArray1<'py, u8>, u8>,
    numbers: Columns<PyReadwriteArray1<'py, f64>, f64>,
    points: Columns<PyReadwriteArray2<'py, f64>, [f64; 2]>,
}

/// The slices of a [`Borrowed2`], checked to hold `n` rows.
struct Slices2<'a> {
    bytes: Columns<&'a mut [u8], u8>,
    numbers: Columns<&'a mut [f64], f64>,
    points: Columns<&'a mut [f64], [f64; 2]>,
}

impl<'py> Borrowed2<'py> {
    /// Each array of `out` by its name (`kind`, `flags`, `point_a`, `point_b`, `s`, `t`,
    /// `s_end`, `t_end`, `dist2`, any other name the distance).
    fn of(out: &Bound<'py, PyDict>, n: usize) -> PyResult<Self> {
        let mut columns = Borrowed2 {
            bytes: Vec::new(),
            numbers: Vec::new(),
            points: Vec::new(),
        };
        for (name, arr) in out.iter() {
            let name: String = name.extract()?;
            let wrong = || {
                PyTypeError::new_err(format!(
                    "out[{name:?}]: expected a float64 array of {n} rows"
                ))
            };
            match name.as_str() {
                "kind" | "flags" => {
                    let col = arr.extract().map_err(|_| wrong())?;
                    let value: fn(&Meeting) -> u8 = if name == "kind" {
                        |r| r.kind as u8
                    } else {
                        |r| r.flags.bits()
                    };
                    columns.bytes.push((col, value));
                }
                "point_a" | "point_b" => {
                    let col = arr.extract().map_err(|_| wrong())?;
                    let value: fn(&Meeting) -> [f64; 2] = if name == "point_a" {
                        |r| r.point_a
                    } else {
                        |r| r.point_b
                    };
                    columns.points.push((col, value));
                }
                other => {
                    let col = arr.extract().map_err(|_| wrong())?;
                    let value: fn(&Meeting) -> f64 = match other {
                        "s" => |r| r.s,
                        "t" => |r| r.t,
                        "s_end" => |r| r.s_end,
                        "t_end" => |r| r.t_end,
                        "dist2" => |r| r.dist2,
                        _ => |r| r.dist2.sqrt(),
                    };
                    columns.numbers.push((col, value));
                }
            }
        }
        Ok(columns)
    }

    /// The arrays as contiguous slices of `n` rows (`2n` numbers for the points).
    fn slices(&mut self, n: usize) -> PyResult<Slices2<'_>> {
        // `width` numbers a row.
        fn each<'a, A, T: numpy::Element, V>(
            columns: &'a mut Columns<A, V>,
            (n, width): (usize, usize),
            what: &str,
            slice: impl Fn(&'a mut A) -> Option<&'a mut [T]>,
        ) -> PyResult<Columns<&'a mut [T], V>> {
            columns
                .iter_mut()
                .map(|(c, f)| {
                    let c = slice(c).filter(|c| c.len() == n * width).ok_or_else(|| {
                        PyTypeError::new_err(format!("out: {what} must be {n} contiguous rows"))
                    })?;
                    Ok((c, *f))
                })
                .collect()
        }
        Ok(Slices2 {
            bytes: each(&mut self.bytes, (n, 1), "kind and flags", |c| {
                c.as_slice_mut().ok()
            })?,
            numbers: each(&mut self.numbers, (n, 1), "a column", |c| {
                c.as_slice_mut().ok()
            })?,
            points: each(&mut self.points, (n, 2), "a point column", |c| {
                c.as_slice_mut().ok()
            })?,
        })
    }
}

impl Slices2<'_> {
    /// Rows `r` of every column from the meetings `x` of those rows.
    fn write(&mut self, r: std::ops::Range<usize>, x: &[Meeting]) {
        for (col, value) in &mut self.bytes {
            for (d, v) in col[r.clone()].iter_mut().zip(x) {
                *d = value(v);
            }
        }
        for (col, value) in &mut self.numbers {
            for (d, v) in col[r.clone()].iter_mut().zip(x) {
                *d = value(v);
            }
        }
        for (col, value) in &mut self.points {
            for (d, v) in col[2 * r.start..2 * r.end].chunks_exact_mut(2).zip(x) {
                d.copy_from_slice(&value(v));
            }
        }
    }
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
