//! Errors: the failures a call can meet, turned into Python exceptions; the guard
//! against panics; the loops that release the GIL and honour Ctrl-C.

use super::*;

/// Why a native call failed, turned into the Python exception by [`From`].
pub(crate) enum Failure {
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
pub(crate) fn lib_error(e: segbatch::Error) -> PyErr {
    Failure::Lib(e).into()
}

/// An empty vector with room for `n` values, or [`Failure::Memory`] (never an abort).
pub(crate) fn try_vec<T>(n: usize, what: &'static str) -> Result<Vec<T>, Failure> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| Failure::Memory(what, n))?;
    Ok(v)
}

/// `f()`, with a panic turned into [`Failure::Panic`].
pub(crate) fn guarded<R>(f: impl FnOnce() -> Result<R, Failure>) -> Result<R, Failure> {
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
pub(crate) const STEP_TIME: std::time::Duration = std::time::Duration::from_millis(40);

/// Runs `step` on consecutive ranges of `total` items, each with the GIL released, and
/// checks for signals between steps: a Ctrl-C raises `KeyboardInterrupt` after the step
/// in progress instead of when the whole call returns. Steps start at `first` items and
/// adapt to take about [`STEP_TIME`] each (doubling or halving, between 1 and `max`
/// items), since the cost of an item varies by orders of magnitude (a pair, a long ray
/// through a dense scene).
pub(crate) fn stepped<F>(
    py: Python<'_>,
    total: usize,
    first: usize,
    max: usize,
    mut step: F,
) -> PyResult<()>
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
pub(crate) const POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// Runs `work(parallel, stop)` on a thread of its own, on `threads` (the library's
/// sequential form for one thread, its parallel form otherwise), while this thread waits
/// with the GIL released and takes it back every [`POLL`] to check for signals. A Ctrl-C
/// sets `stop`, which the streamed query's sink answers with `ControlFlow::Break` at its
/// next block: the query ends within a block a thread, its partial output is dropped, and
/// `KeyboardInterrupt` is raised (nothing half-built is returned). The check has to run
/// on this thread, Python's main thread when the caller is on it: Python delivers signals
/// only there.
pub(crate) fn interruptible<R: Send>(
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
pub(crate) fn go_on(stop: &AtomicBool) -> ControlFlow<()> {
    if stop.load(Ordering::Relaxed) {
        ControlFlow::Break(())
    } else {
        ControlFlow::Continue(())
    }
}

/// Appends `block` to `out` with `try_reserve`: `Break` with the failure kept in `failed`
/// when it cannot grow.
pub(crate) fn keep<T: Copy>(
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
