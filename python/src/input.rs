//! Inputs: the NumPy arrays and column tuples the Python layer hands over, as views of the
//! caller's memory or chunks staged into lanes; radii and options.

use super::*;

/// Whether a side (an array or a tuple of columns, as the Python layer passes them) is
/// `float64`: the query then runs in `f64` (the Python layer gives both sides one dtype).
pub(crate) fn is_f64(obj: &Bound<'_, PyAny>) -> bool {
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
pub(crate) enum Held<'py, E: Real = f32> {
    /// `(N, C)`, any strides (the Python layer hands over aligned arrays only).
    Rows(PyReadonlyArray2<'py, E>),
    /// `C` contiguous columns of `N`.
    Cols(Vec<PyReadonlyArray1<'py, E>>),
}

/// One side as slices or a strided view, usable without the GIL.
#[derive(Clone, Copy)]
pub(crate) enum Src<'a, const C: usize, E = f32> {
    /// Records one after another, `C` numbers each.
    Rows(&'a [E]),
    /// The `C` columns.
    Cols([&'a [E]; C]),
    /// Any other layout (a transposed or sliced view, a zero-stride broadcast): read in
    /// place, chunk by chunk, never copied as a whole by the pairwise queries.
    Strided(ArrayView2<'a, E>),
}

/// The error for an array that cannot be read in place.
pub(crate) fn unreadable(name: &str, dtype: &str) -> PyErr {
    PyValueError::new_err(format!(
        "{name}: the array's data is not aligned for {dtype} (pass it through \
         segbatch.as_segments, which copies such arrays once)"
    ))
}

impl<'py, E: Real> Held<'py, E> {
    /// Borrows `obj` (an array or a tuple of columns, as the Python layer passes them).
    pub(crate) fn new(obj: &Bound<'py, PyAny>, name: &str, c: usize) -> PyResult<Self> {
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
    pub(crate) fn src<const C: usize>(&self, name: &str) -> PyResult<Src<'_, C, E>> {
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
    pub(crate) fn len(&self) -> usize {
        match self {
            Src::Rows(r) => r.len() / C,
            Src::Cols(c) => c[0].len(),
            Src::Strided(v) => v.nrows(),
        }
    }

    /// Records `range` as a view: the caller's columns directly, or rows transposed into
    /// `buf` (its allocation reused; at most [`CHUNK`] records).
    pub(crate) fn view<'s, T: Record<C, E>>(
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
    pub(crate) fn sub(&self, range: Range<usize>) -> Src<'a, C, E> {
        match *self {
            Src::Rows(rows) => Src::Rows(&rows[range.start * C..range.end * C]),
            Src::Cols(cols) => Src::Cols(cols.map(|c| &c[range.clone()])),
            Src::Strided(v) => Src::Strided(v.slice_move(s![range, ..])),
        }
    }

    /// Appends the records `range` to `cols`, column by column (a copy the caller owns).
    pub(crate) fn append_columns(&self, range: Range<usize>, cols: &mut [Vec<E>; C]) {
        for (k, col) in cols.iter_mut().enumerate() {
            match self {
                Src::Cols(c) => col.extend_from_slice(&c[k][range.clone()]),
                Src::Rows(rows) => {
                    let records: &[[E; C]] = bytemuck::cast_slice(rows);
                    col.extend(records[range.clone()].iter().map(|r| r[k]));
                }
                Src::Strided(v) => col.extend(v.slice(s![range.clone(), k]).iter().copied()),
            }
        }
    }

    /// The whole side as a batch view: the caller's columns, or rows and strided arrays
    /// converted to columns once into `buf`.
    pub(crate) fn whole<'s, T: Record<C, E>>(
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

/// The whole side `src` copied into columns of its own, in steps with a check for Ctrl-C
/// between them ([`stepped`]): the form a call hands to a thread that may outlive it
/// ([`interruptible`], [`detached`]).
pub(crate) fn owned_columns<E: Real, const C: usize>(
    py: Python<'_>,
    src: &Src<'_, C, E>,
    what: &'static str,
) -> PyResult<[Vec<E>; C]> {
    let n = src.len();
    let mut cols: [Vec<E>; C] = core::array::from_fn(|_| Vec::new());
    for col in &mut cols {
        *col = try_vec(n, what)?;
    }
    stepped(py, n, STEP, STEP, |r| {
        src.append_columns(r, &mut cols);
        Ok(())
    })?;
    Ok(cols)
}

/// Columns of equal length as a batch view.
pub(crate) fn columns_view<T: Record<C, E>, const C: usize, E: Real>(
    cols: &[Vec<E>; C],
) -> SoaView<'_, T, C, E> {
    SoaView::from_columns(core::array::from_fn(|k| &cols[k][..])).expect("columns of equal length")
}

/// The columns of a whole side converted once by [`Src::whole`] (empty for an input
/// that already is columns).
pub(crate) struct Whole<T, const C: usize, E = f32> {
    pub(crate) cols: [Vec<E>; C],
    pub(crate) record: core::marker::PhantomData<T>,
}

impl<T, const C: usize, E> Whole<T, C, E> {
    pub(crate) fn new() -> Self {
        Whole {
            cols: core::array::from_fn(|_| Vec::new()),
            record: core::marker::PhantomData,
        }
    }

    pub(crate) fn columns(&self) -> [&[E]; C] {
        core::array::from_fn(|k| &self.cols[k][..])
    }
}

/// 32 bytes, 32-byte aligned: the storage of [`Cols`] (eight `f32` or four `f64`), so
/// every SIMD load of the kernel is aligned as it is in a library batch.
#[repr(C, align(32))]
#[derive(Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Group([f32; 8]);

/// `C` scratch columns of `E` for one chunk, filled from rows by [`Cols::transpose`].
pub(crate) struct Cols<const C: usize, E = f32>([Vec<Group>; C], core::marker::PhantomData<E>);

impl<const C: usize, E: Real> Cols<C, E> {
    pub(crate) fn new() -> Self {
        let groups = CHUNK * size_of::<E>() / size_of::<Group>();
        Cols(
            core::array::from_fn(|_| vec![Group::default(); groups]),
            core::marker::PhantomData,
        )
    }

    /// The columns as blocks of eight values.
    pub(crate) fn blocks(&mut self) -> [&mut [[E; 8]]; C] {
        self.0.each_mut().map(|c| bytemuck::cast_slice_mut(c))
    }

    /// The first `n` values of every column.
    pub(crate) fn firsts(&self, n: usize) -> [&[E]; C] {
        core::array::from_fn(|k| &bytemuck::cast_slice::<Group, E>(&self.0[k])[..n])
    }

    /// Transposes `rows` (`C` numbers each, at most [`CHUNK`] rows) into the columns, eight
    /// rows at a time from fixed-size blocks (no bounds checks in the inner loop), and
    /// returns the columns (exactly one value per row).
    pub(crate) fn transpose(&mut self, rows: &[E]) -> [&[E]; C] {
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
    pub(crate) fn gather(&mut self, rows: ArrayView2<'_, E>) -> [&[E]; C] {
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
pub(crate) fn pair_len<const C: usize, E: Real>(
    a: &Src<'_, C, E>,
    b: &Src<'_, C, E>,
) -> PyResult<usize> {
    let (n, m) = (a.len(), b.len());
    if n != m {
        return Err(PyValueError::new_err(format!(
            "a and b must have the same number of rows: a has {n}, b has {m}"
        )));
    }
    Ok(n)
}

/// Radii as passed from Python: one number, or one per pair (in the query's precision).
pub(crate) enum RadiusArg<'py, E: Real = f32> {
    Uniform(E),
    PerPair(PyReadonlyArray1<'py, E>),
}

impl<'py, E: Real> RadiusArg<'py, E> {
    pub(crate) fn new(obj: &Bound<'py, PyAny>, name: &str) -> PyResult<Self> {
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
pub(crate) enum RadiiSrc<'a, E> {
    Uniform(E, E),
    PerPair(&'a [E], &'a [E]),
}

impl<'a, E: Real> RadiiSrc<'a, E> {
    /// Checks the forms and lengths, and validates the values once (so an error names the
    /// first bad pair of the whole input).
    pub(crate) fn new(
        ra: &'a RadiusArg<'_, E>,
        rb: &'a RadiusArg<'_, E>,
        n: usize,
    ) -> PyResult<Self> {
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
    pub(crate) fn radii(&self, range: Range<usize>) -> Result<Radii<'a, E>, segbatch::Error> {
        match *self {
            RadiiSrc::Uniform(a, b) => Radii::uniform(a, b),
            RadiiSrc::PerPair(a, b) => Radii::per_pair(&a[range.clone()], &b[range]),
        }
    }
}

/// The options of a call: extents by name, an optional absolute tolerance.
pub(crate) fn options(extent_a: &str, extent_b: &str, tolerance: Option<f32>) -> PyResult<Options> {
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
pub(crate) fn window<E: Real>(end: f64) -> PyResult<Window<E>> {
    Window::new(E::from_f64(end)).ok_or_else(|| {
        PyValueError::new_err(format!("window must be >= 0 (inf allowed), got {end}"))
    })
}
