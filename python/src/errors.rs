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
    /// The work saw its [`Stop`] requested (a Ctrl-C, see [`interruptible`]) and ended
    /// without a result: `KeyboardInterrupt` (the caller has raised it already).
    Interrupted,
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
            Failure::Interrupted => PyKeyboardInterrupt::new_err(()),
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

/// How often [`interruptible`] checks for Ctrl-C.
pub(crate) const POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// How long [`interruptible`] waits, after a Ctrl-C, for its work to see the stop before
/// raising `KeyboardInterrupt` anyway (the work then ends in the background).
pub(crate) const GRACE: std::time::Duration = std::time::Duration::from_millis(200);

/// Runs `work(parallel, stop)` on a thread of its own, on `threads` (the library's
/// sequential form for one thread, its parallel form otherwise) with `stop` watched
/// (`segbatch::sets::Stop::watch`), while this thread waits with the GIL released and takes
/// it back every [`POLL`] to check for signals. A Ctrl-C requests `stop`, which the
/// library's streamed queries see between their pieces of work (before each task of the
/// grid and every few thousand candidate pairs within one, on every thread, whether or not
/// hits come) and the binding's own loops check every [`CHECK_EVERY`] items ([`checked`]),
/// and raises the signal's exception (`KeyboardInterrupt`) as soon as the work has ended,
/// or after [`GRACE`] when it is in a stretch without checks (the set's grid is built
/// before the first one): the work then ends in the background at its next check. Either
/// way its result is dropped; nothing half-built is returned. The work owns its data (the
/// callers copy the sets, as the queries need columns anyway), so it can outlive the call.
/// The check for signals has to run on this thread, Python's main thread when the caller
/// is on it: Python delivers signals only there.
pub(crate) fn interruptible<R: Send + 'static>(
    py: Python<'_>,
    threads: Threads,
    work: impl FnOnce(bool, &Stop) -> Result<R, Failure> + Send + 'static,
) -> PyResult<R> {
    let stop = Stop::new();
    let parallel = threads.parallel();
    let watched = stop.clone();
    let rx = spawn(move || {
        // Watched on the thread that runs the query: the pool's when `threads` has one.
        threads.install(|| watched.watch(|| work(parallel, &watched)))?
    })?;
    wait(py, rx, |rx| {
        stop.request();
        py.detach(move || drop(rx.recv_timeout(GRACE)));
    })
}

/// Runs `work()` (one library call that cannot be stopped, on data it owns) on a thread of
/// its own while this thread waits with the GIL released, checking for signals every
/// [`POLL`]. A Ctrl-C raises `KeyboardInterrupt` at once; the work goes on in the
/// background, and its result is dropped when it ends.
pub(crate) fn detached<R: Send + 'static>(
    py: Python<'_>,
    work: impl FnOnce() -> Result<R, Failure> + Send + 'static,
) -> PyResult<R> {
    let rx = spawn(work)?;
    wait(py, rx, drop)
}

/// The result of `work()`, run (guarded) on a new thread, as a channel.
fn spawn<R: Send + 'static>(
    work: impl FnOnce() -> Result<R, Failure> + Send + 'static,
) -> Result<mpsc::Receiver<Result<R, Failure>>, Failure> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("segbatch-call".into())
        .spawn(move || {
            let _ = tx.send(guarded(work));
        })
        .map_err(|e| Failure::Pool(e.to_string()))?;
    Ok(rx)
}

/// The result `rx` brings, waited for with the GIL released and a check for signals every
/// [`POLL`]; on a signal, `interrupted(rx)` runs and the signal's exception is raised.
fn wait<R>(
    py: Python<'_>,
    mut rx: mpsc::Receiver<Result<R, Failure>>,
    interrupted: impl FnOnce(mpsc::Receiver<Result<R, Failure>>),
) -> PyResult<R>
where
    Result<R, Failure>: Send,
{
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
            interrupted(rx);
            return Err(e);
        }
    }
}

/// The sink's answer once `stop` is requested (see [`interruptible`]).
pub(crate) fn go_on(stop: &Stop) -> ControlFlow<()> {
    if stop.is_requested() {
        ControlFlow::Break(())
    } else {
        ControlFlow::Continue(())
    }
}

/// Items a loop of the binding handles between two checks of its [`Stop`] ([`checked`]):
/// well under a millisecond of work each.
pub(crate) const CHECK_EVERY: usize = 1 << 14;

/// `Err(Failure::Interrupted)` once `stop` is requested: the check of the binding's own
/// loops over a query's output (sorting and converting hits), every [`CHECK_EVERY`] items.
pub(crate) fn checked(stop: &Stop) -> Result<(), Failure> {
    if stop.is_requested() {
        Err(Failure::Interrupted)
    } else {
        Ok(())
    }
}

/// `f(k)` for every `k` of `0..n` in order, with a check of `stop` every [`CHECK_EVERY`].
pub(crate) fn each_checked(n: usize, stop: &Stop, mut f: impl FnMut(usize)) -> Result<(), Failure> {
    let mut start = 0;
    while start < n {
        checked(stop)?;
        let end = n.min(start + CHECK_EVERY);
        (start..end).for_each(&mut f);
        start = end;
    }
    Ok(())
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
