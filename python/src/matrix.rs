//! The distance matrix of every pair of two inputs, in steps with checks for Ctrl-C.

use super::*;

/// Matrix entries per step of [`dist2_matrix`] between two checks for Ctrl-C (16 MiB of
/// output, a few tens of milliseconds: each entry costs the same, so the step is fixed),
/// and per task inside a step (256 KiB, in L2).
pub(crate) const MATRIX_STEP: usize = 1 << 22;
pub(crate) const MATRIX_TASK: usize = 1 << 16;

/// Squared distance of every `a[i]` to every `b[j]` into `out` (`(len(a), len(b))`
/// float32, C-contiguous, allocated by the Python layer so that a matrix too large for
/// memory is NumPy's `MemoryError`), in steps of rows with a check for Ctrl-C between
/// steps. Each task runs the library's `dist2_matrix_into` on a block of rows of `a`
/// against all of `b`: bit for bit the whole matrix's entries.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (a, b, extent_a, extent_b, tolerance, out, threads))]
pub(crate) fn dist2_matrix<'py>(
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
pub(crate) fn matrix_of<'py, E: Real>(
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
                segbatch::sets::dist2_matrix_into(va, vb, opts, tmp)?;
                dst.copy_from_slice(tmp);
                Ok(())
            },
        )
    })
}
