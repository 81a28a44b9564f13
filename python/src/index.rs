//! `SegmentIndex`: a static set indexed once for first hits and radius queries, in either
//! precision.

use super::*;

/// A reusable index over a static set of 3D segments: the library's `SegmentIndex` over
/// `float32` or `float64` members.
#[pyclass(name = "SegmentIndex", module = "segbatch._segbatch", frozen)]
pub(crate) struct PySegmentIndex(AnyIndex);

/// The index of either precision.
pub(crate) enum AnyIndex {
    F32(Box<segbatch::SegmentIndex>),
    F64(Box<SegmentIndex<f64>>),
}

/// Builds the index of `E` over `set`: a copy of the set as columns (in steps, with a
/// check for Ctrl-C between them), then the library's build on it, one call that cannot be
/// stopped, run [`detached`]: a Ctrl-C raises `KeyboardInterrupt` at once, and the build
/// ends in the background, its index dropped.
pub(crate) fn index_of<E: Real>(
    py: Python<'_>,
    set: &Bound<'_, PyAny>,
    threads: Threads,
) -> PyResult<SegmentIndex<E>> {
    let hs = Held::<E>::new(set, "set", 6)?;
    let ss = hs.src::<6>("set")?;
    let cols = owned_columns(py, &ss, "copy of the index's segments")?;
    let parallel = threads.parallel();
    detached(py, move || {
        let v = columns_view::<E::Segment, 6, E>(&cols);
        threads
            .install(|| {
                if parallel {
                    SegmentIndex::par_new(v)
                } else {
                    SegmentIndex::new(v)
                }
            })?
            .map_err(Failure::Lib)
    })
}

/// First hits of `rays` on `index` in the precision of `E` (see
/// [`PySegmentIndex::first_hits`]), in steps with a check for Ctrl-C between them.
pub(crate) fn first_hits_of<'py, E: Real>(
    py: Python<'py>,
    index: &SegmentIndex<E>,
    rays: &Bound<'py, PyAny>,
    radius: f64,
    range: f64,
    threads: Threads,
) -> PyResult<Bound<'py, PyDict>> {
    let hr = Held::<E>::new(rays, "rays", 6)?;
    let sr = hr.src::<6>("rays")?;
    let (radius, range) = (
        PerRay::One(E::from_f64(radius)),
        PerRay::One(E::from_f64(range)),
    );
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
        let hits = threads.install(|| {
            if parallel {
                index.par_first_hits(v, radius, range)
            } else {
                index.first_hits(v, radius, range)
            }
        })??;
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
    pub(crate) fn new(
        py: Python<'_>,
        set: &Bound<'_, PyAny>,
        threads: Option<usize>,
    ) -> PyResult<Self> {
        let threads = Threads::new(threads)?;
        Ok(PySegmentIndex(if is_f64(set) {
            AnyIndex::F64(Box::new(index_of::<f64>(py, set, threads)?))
        } else {
            AnyIndex::F32(Box::new(index_of::<f32>(py, set, threads)?))
        }))
    }

    pub(crate) fn __len__(&self) -> usize {
        match &self.0 {
            AnyIndex::F32(i) => i.len(),
            AnyIndex::F64(i) => i.len(),
        }
    }

    /// First hits of thick rays: `hit` (bool), `index` (int64, -1 without a hit), `u`
    /// (NaN without a hit), `point` (`(N, 3)`, NaN without a hit), `u` and `point` in the
    /// index's precision (the rays must be of it).
    #[pyo3(signature = (rays, radius, range, threads))]
    pub(crate) fn first_hits<'py>(
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
    pub(crate) fn pairs_within<'py>(
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
pub(crate) fn index_pairs_of<'py, E: Real>(
    py: Python<'py>,
    index: &SegmentIndex<E>,
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
    let mut hits = HitColumns::<E>::new();
    stepped(py, sq.len(), RAY_STEP, RAY_STEP_MAX, |r| {
        let mut buf = Whole::new();
        let part = sq.sub(r.clone());
        let v = part.whole(&mut buf)?;
        // The queries were counted against `u32::MAX` before the first step.
        let first = u32::try_from(r.start).expect("at most u32::MAX queries");
        let mut found = threads.install(|| {
            if parallel {
                index.par_pairs_within(v, radius)
            } else {
                index.pairs_within(v, radius)
            }
        })??;
        // The step's queries start at `first` of the caller's.
        for h in &mut found {
            h.i += first;
        }
        // Each step's columns made in the step (the output never passes through the GIL).
        hits.extend(&found)
    })?;
    hits.into_dict(py)
}

/// Query segments or rays in the first step of the [`PySegmentIndex`] queries (see
/// [`stepped`]): a ray's cost depends on the scene (a long sweep through a dense level can
/// take milliseconds), so steps start small and grow up to [`RAY_STEP_MAX`].
pub(crate) const RAY_STEP: usize = 64;
/// The largest step of the [`PySegmentIndex`] queries.
pub(crate) const RAY_STEP_MAX: usize = 1 << 16;
