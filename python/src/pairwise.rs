//! The pairwise queries: closest points, capsules, closest approach, first contact and 2D
//! meeting, pair by pair over two inputs.

use super::*;

pub(crate) const F: Kind = Kind::Real(1);
/// The columns of a [`ClosestBatch`] (and `distance`).
pub(crate) const CLOSEST_COLS: [(&str, Kind); 7] = [
    ("dist2", F),
    ("distance", F),
    ("s", F),
    ("t", F),
    ("point_a", P3),
    ("point_b", P3),
    ("flags", Kind::U8),
];
/// The columns of a [`ContactBatch`].
pub(crate) const CONTACT_COLS: [(&str, Kind); 3] =
    [("hit", Kind::Bool), ("t", F), ("flags", Kind::U8)];
/// The columns of [`Intersections2`] (and `distance`).
pub(crate) const INTERSECT2_COLS: [(&str, Kind); 10] = [
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
pub(crate) const P3: Kind = Kind::Real(3);
pub(crate) const P2: Kind = Kind::Real(2);

/// Scratch of a pairwise query: both sides' transposed chunks and the result.
pub(crate) struct Scratch<T, const C: usize, O, E = f32> {
    pub(crate) a: Cols<C, E>,
    pub(crate) b: Cols<C, E>,
    pub(crate) out: O,
    pub(crate) record: core::marker::PhantomData<T>,
}

impl<T: Record<C, E>, const C: usize, O: Default, E: Real> Scratch<T, C, O, E> {
    pub(crate) fn new() -> Self {
        Scratch {
            a: Cols::new(),
            b: Cols::new(),
            out: O::default(),
            record: core::marker::PhantomData,
        }
    }

    /// Pairs `r` of both sides as views, and the chunk's output.
    pub(crate) fn views<'s>(
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
/// `float64` input (any layout) through `closest_points_into`, into `float64` columns.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (a, b, extent_a, extent_b, tolerance, out, threads))]
pub(crate) fn closest_points<'py>(
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
pub(crate) fn closest_chunks<E: Real>(
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
        Scratch::<E::Segment, 6, ClosestBatch<E>, E>::new,
        |s, r, names, cols| {
            let (va, vb, out) = s.views(&sa, &sb, r);
            closest_points_into(va, vb, opts, Outputs::ALL, out)?;
            copy_out(closest_res(out), names, cols);
            Ok(())
        },
    )
}

/// Do capsules `(a[i], radius_a)` and `(b[i], radius_b)` touch?
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (a, b, radius_a, radius_b, extent_a, extent_b, tolerance, out, threads))]
pub(crate) fn capsules_touch<'py>(
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
pub(crate) type CapsuleArgs<'a, 'py> = (
    &'a Bound<'py, PyAny>,
    &'a Bound<'py, PyAny>,
    &'a Bound<'py, PyAny>,
    &'a Bound<'py, PyAny>,
);

/// [`capsules_touch`] in the precision of `E` (radii too).
pub(crate) fn capsules_of<E: Real>(
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
            capsules_touch_into(va, vb, rr, opts, out)?;
            let words = out.words();
            for (i, x) in cols[0].bool().iter_mut().enumerate() {
                *x = (words[i / 64] >> (i % 64)) & 1 == 1;
            }
            Ok(())
        },
    )
}

/// The columns of a [`CpaBatch`].
pub(crate) const CPA_COLS: [(&str, Kind); 6] = [
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
pub(crate) fn cpa<'py>(
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
pub(crate) fn cpa_chunks<E: Real>(
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
            Scratch::<E::Step, 6, CpaBatch<E>, E>::new,
            |s, r, names, cols| {
                let (va, vb, out) = s.views(&sa, &sb, r);
                segbatch::motion::cpa_into(va, vb, Window::STEP, out)?;
                copy_out(cpa_res(out), names, cols);
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
            Scratch::<E::Track, 6, CpaBatch<E>, E>::new,
            |s, r, names, cols| {
                let (va, vb, out) = s.views(&sa, &sb, r);
                segbatch::motion::cpa_into(va, vb, w, out)?;
                copy_out(cpa_res(out), names, cols);
                Ok(())
            },
        )
    }
}

/// Copies a contact chunk's columns out.
pub(crate) fn contact_out<E: Real>(
    o: &ContactBatch<E>,
    names: &[&'static str],
    cols: &mut [ColMut<'_, E>],
) {
    for (name, c) in names.iter().zip(cols) {
        match *name {
            "hit" => c.bool().copy_from_slice(o.hit()),
            "t" => c.real().copy_from_slice(o.t()),
            _ => c.u8().copy_from_slice(bytemuck::cast_slice(o.flags())),
        }
    }
}

/// First contact of moving spheres: tracks over a window, or one step along segments (in
/// `float64`, radii and window too, for `float64` input).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (a, b, radius_a, radius_b, window_end, segments, out, threads))]
pub(crate) fn first_contact<'py>(
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
pub(crate) fn contact_of<E: Real>(
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
            Scratch::<E::Step, 6, ContactBatch<E>, E>::new,
            |s, r, names, cols| {
                let rr = radii.radii(r.clone())?;
                let (va, vb, out) = s.views(&sa, &sb, r);
                segbatch::motion::first_contact_into(va, vb, rr, Window::STEP, out)?;
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
            Scratch::<E::Track, 6, ContactBatch<E>, E>::new,
            |s, r, names, cols| {
                let rr = radii.radii(r.clone())?;
                let (va, vb, out) = s.views(&sa, &sb, r);
                segbatch::motion::first_contact_into(va, vb, rr, w, out)?;
                contact_out(out, names, cols);
                Ok(())
            },
        )
    }
}

/// 2D segment crossings and closest points.
#[pyfunction]
#[pyo3(signature = (a, b, out, threads))]
pub(crate) fn intersect2<'py>(
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
