//! Hidden temporary files and the signals that must not leave them behind.
//!
//! Every subcommand writes a file output to a hidden temporary file beside the target and
//! renames it onto the target at the end (`io::Sink`). Every such file is registered here
//! while it exists; `main` installs the handlers before any subcommand runs.
//! [`install`] starts a thread that waits for SIGINT, SIGTERM and SIGHUP; on one it removes
//! every registered file and exits with status 128 + the signal number (130, 143, 129), the
//! shells' convention. SIGXFSZ (a file-size limit, `ulimit -f`) is caught too, so that a
//! write past the limit fails with an ordinary error (EFBIG) that the command reports and
//! cleans up after, instead of killing the process. SIGPIPE stays ignored (Rust's default): a
//! closed pipe is an `EPIPE` write error, reported with status 141 (128 + SIGPIPE); pipes are
//! written directly, so there is no temporary file to remove then. A failed write inside a
//! streamed set query stops the query (its sink answers `ControlFlow::Break`) and is
//! reported like any other, the temporary file removed when its owner is dropped.
//!
//! The rename onto the target ([`persist`]) and the removal on a signal hold the same lock,
//! so a signal leaves either the complete output or nothing, never both or half.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGXFSZ};

/// The temporary files that exist now.
static TEMPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn temps() -> MutexGuard<'static, Vec<PathBuf>> {
    // A panic while holding the lock leaves a valid list: keep using it.
    TEMPS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts the signal thread (once per process; later calls do nothing).
///
/// Returns an error when the handlers cannot be installed.
pub fn install() -> io::Result<()> {
    static INSTALLED: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    if INSTALLED.get().is_some() {
        return Ok(());
    }
    // A flag handler is enough to stop SIGXFSZ's default action (terminate): the write
    // then fails with EFBIG.
    signal_hook::flag::register(
        SIGXFSZ,
        std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
    )?;
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("segbatch-signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                let list = temps();
                for path in list.iter() {
                    let _ = std::fs::remove_file(path);
                }
                // Keep the lock: no rename may happen after the removal.
                std::process::exit(128 + signal);
            }
        })?;
    let _ = INSTALLED.set(());
    Ok(())
}

/// A temporary file in `dir` (hidden, `.segbatch-*.tmp`), registered for removal on a
/// signal until [`persist`]ed or dropped. `mode` sets its permission bits (subject to the
/// umask, as for any new file).
pub fn temp_in(dir: &Path, mode: u32) -> io::Result<Temp> {
    let mut list = temps();
    let mut builder = tempfile::Builder::new();
    builder.prefix(".segbatch-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    let _ = mode;
    let file = builder.tempfile_in(dir)?;
    list.push(file.path().to_path_buf());
    Ok(Temp { file: Some(file) })
}

/// A registered temporary file; removed (and unregistered) on drop.
pub struct Temp {
    file: Option<tempfile::NamedTempFile>,
}

impl Temp {
    /// The open file.
    pub fn file(&self) -> &std::fs::File {
        self.file
            .as_ref()
            .expect("present until persisted")
            .as_file()
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        self.file.as_ref().expect("present until persisted").path()
    }
}

impl io::Write for Temp {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.as_mut().expect("present").write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.as_mut().expect("present").flush()
    }
}

impl io::Read for Temp {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.file.as_mut().expect("present").read(buf)
    }
}

impl io::Seek for Temp {
    fn seek(&mut self, pos: io::SeekFrom) -> io::Result<u64> {
        self.file.as_mut().expect("present").seek(pos)
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if let Some(file) = self.file.take() {
            let mut list = temps();
            let path = file.path().to_path_buf();
            drop(file); // removes it
            list.retain(|p| *p != path);
        }
    }
}

/// Renames `temp` onto `target` and unregisters it, under the lock the signal thread takes.
pub fn persist(mut temp: Temp, target: &Path) -> io::Result<()> {
    let file = temp.file.take().expect("present");
    let mut list = temps();
    let path = file.path().to_path_buf();
    let result = file.persist(target);
    list.retain(|p| *p != path);
    match result {
        Ok(_) => Ok(()),
        Err(e) => {
            // The temporary file is removed when `e.file` drops.
            Err(e.error)
        }
    }
}
