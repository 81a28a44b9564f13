//! Output: the result columns, the sink (a temporary file renamed at the end, `-`, or a
//! special file), and the rows of every format.

use std::fs::OpenOptions;
use std::io::{self, BufWriter, Seek, Write};
use std::path::{Path, PathBuf};

use npyz::{DType, Field, TypeStr, WriterBuilder};
use rayon::prelude::*;

use super::common::*;
use crate::cleanup::{self, Temp};
use crate::format::num;

/// Which result columns are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Columns {
    /// The pair's index in the input (written with `--radius`).
    pub index: bool,
    pub distance: bool,
    pub params: bool,
    pub points: bool,
    pub flags: bool,
}

impl Columns {
    /// The column names in order (CSV header; `.npy` field names).
    pub fn names(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.index {
            v.push("index");
        }
        if self.distance {
            v.push("distance");
        }
        if self.params {
            v.extend(["s", "t"]);
        }
        if self.points {
            v.extend(["point_a.x", "point_a.y", "point_a.z"]);
            v.extend(["point_b.x", "point_b.y", "point_b.z"]);
        }
        if self.flags {
            v.push("flags");
        }
        v
    }

    /// Bytes per record in the binary formats, with numbers in `precision`.
    pub fn record_bytes(&self, precision: Precision) -> usize {
        let x = precision.bytes() as usize;
        8 * usize::from(self.index)
            + x * usize::from(self.distance)
            + 2 * x * usize::from(self.params)
            + 6 * x * usize::from(self.points)
            + usize::from(self.flags)
    }

    /// The `.npy` dtype with numbers in `precision`: a plain `<f4` (`<f8`) vector for
    /// distances alone, else a structured type.
    fn dtype(&self, precision: Precision) -> DType {
        let plain = |t: &str| DType::Plain(t.parse::<TypeStr>().expect("a valid type string"));
        let real = precision.npy_descr();
        let only_distance = self.distance && !self.index && !self.params && !self.points;
        if only_distance && !self.flags {
            return plain(real);
        }
        let mut fields = Vec::new();
        let mut field = |name: &str, dtype: DType| {
            fields.push(Field {
                name: name.to_owned(),
                dtype,
            })
        };
        if self.index {
            field("index", plain("<u8"));
        }
        if self.distance {
            field("distance", plain(real));
        }
        if self.params {
            field("s", plain(real));
            field("t", plain(real));
        }
        if self.points {
            field("point_a", DType::Array(3, Box::new(plain(real))));
            field("point_b", DType::Array(3, Box::new(plain(real))));
        }
        if self.flags {
            field("flags", plain("|u1"));
        }
        DType::Record(fields)
    }
}

/// Where an output's bytes go: the one output writer of every subcommand (`run`'s
/// results, the set commands' hits, `bench`'s plot and JSON).
///
/// What the target path names decides which (see [`Sink::open`]): a temporary file beside
/// a regular file's path, renamed onto it by [`Sink::finish`] only when complete (a
/// signal, an error or a full disk remove it: it is registered with [`cleanup`]), or
/// straight through to `-` (standard output), a FIFO, a device or a socket.
pub enum Sink {
    /// A temporary file beside `target` (the target with its links resolved), renamed onto
    /// it by [`Output::finish`]. `like` is an existing target's mode, owner and group, which
    /// the new file takes; `None` for a new file (mode `0666 & !umask`).
    Replace {
        file: BufWriter<Temp>,
        target: PathBuf,
        like: Option<(u32, u32, u32)>,
    },
    /// Straight through: standard output, a FIFO, a character device, a socket.
    Through(BufWriter<Box<dyn Write + Send>>),
}

impl Sink {
    /// Opens the output `target` (`-` is standard output): checks the path and creates the
    /// temporary file now, before any work, so an unusable path fails at once. Returns the
    /// name messages use for it and the sink. Problems with the path are [`Error::Data`]:
    /// - a new file: a temporary file in the same directory, created with the mode the
    ///   umask gives (`0666 & !umask`), renamed onto the path at the end;
    /// - a regular file: the same, and the new file gets the old one's mode (and owner,
    ///   when allowed); a read-only file (no write permission bit) is refused, not replaced;
    /// - a symbolic link: followed (to its final target, which is then treated as above);
    ///   the link itself is never replaced;
    /// - `-`, a FIFO, a character or block device, a socket: written through in place,
    ///   never replaced (opening a FIFO waits for its reader, as a shell's `>` does).
    pub fn open(target: &Path) -> Result<(String, Sink), Error> {
        // Named in messages as the input is ("standard input").
        let name = if is_std_stream(target) {
            "standard output".to_owned()
        } else {
            show(target)
        };
        let cannot = |why: &dyn std::fmt::Display| {
            Error::Data(format!("{name}: cannot write the output: {why}"))
        };
        let sink = if is_std_stream(target) {
            Sink::Through(BufWriter::with_capacity(1 << 20, Box::new(io::stdout())))
        } else {
            let resolved = resolve_links(target).map_err(|e| cannot(&e))?;
            match std::fs::metadata(&resolved) {
                Ok(m) if m.is_dir() => return Err(cannot(&"is a directory")),
                Ok(m) if m.is_file() => {
                    if m.permissions().readonly() {
                        return Err(cannot(
                            &"the file exists and is read-only (remove it or make it writable \
                              first)",
                        ));
                    }
                    // Can we write it? (Opening without truncating changes nothing.)
                    OpenOptions::new()
                        .write(true)
                        .open(&resolved)
                        .map_err(|e| cannot(&e))?;
                    Sink::replace(&resolved, Some(&m)).map_err(|e| cannot(&e))?
                }
                Ok(_) => {
                    let file = OpenOptions::new()
                        .write(true)
                        .open(&resolved)
                        .map_err(|e| cannot(&e))?;
                    let file: Box<dyn Write + Send> = Box::new(file);
                    Sink::Through(BufWriter::with_capacity(1 << 20, file))
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    let dir = dir_of(&resolved);
                    if !dir.is_dir() {
                        return Err(cannot(&format!("directory {} does not exist", show(&dir))));
                    }
                    Sink::replace(&resolved, None).map_err(|e| cannot(&e))?
                }
                Err(e) => return Err(cannot(&e)),
            }
        };
        Ok((name, sink))
    }

    /// A temporary file beside `target` (a regular file's path, links resolved), made like
    /// the `existing` file there if any.
    fn replace(target: &Path, existing: Option<&std::fs::Metadata>) -> io::Result<Sink> {
        #[cfg(unix)]
        let like = existing.map(|m| {
            use std::os::unix::fs::MetadataExt;
            (m.mode() & 0o7777, m.uid(), m.gid())
        });
        #[cfg(not(unix))]
        let like = existing.map(|_| (0, 0, 0));
        let temp = temp_like(target, like)?;
        Ok(Sink::Replace {
            file: BufWriter::with_capacity(1 << 20, temp),
            target: target.to_path_buf(),
            like,
        })
    }

    /// True when written straight through (standard output, a FIFO, a device).
    pub fn is_stream(&self) -> bool {
        matches!(self, Sink::Through(_))
    }

    /// Writes all of `bytes`.
    pub fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Sink::Replace { file, .. } => file.write_all(bytes),
            Sink::Through(w) => w.write_all(bytes),
        }
    }

    /// The error for a failed write to the output `name`: [`Error::Pipe`] when the reader
    /// went away, else [`Error::System`].
    pub fn write_error(name: &str, e: &io::Error) -> Error {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Error::Pipe(format!(
                "{name}: the reader of the output went away: the output is incomplete"
            ))
        } else {
            Error::System(format!("{name}: writing the output failed: {e}"))
        }
    }

    /// Finishes the output `name`: for a stream, a flush; for a replaced file, `prefix`
    /// (a header known only at the end) followed by a copy of what was written, a sync
    /// and the rename onto the target.
    pub fn finish(self, name: &str, prefix: Option<&[u8]>) -> Result<(), Error> {
        let fail = |e: &dyn std::fmt::Display| {
            Error::System(format!("{name}: writing the output failed: {e}"))
        };
        match self {
            Sink::Through(mut w) => {
                debug_assert!(prefix.is_none(), "a header at the end needs a regular file");
                w.flush().map_err(|e| Sink::write_error(name, &e))
            }
            Sink::Replace { file, target, like } => {
                let mut temp = file.into_inner().map_err(|e| fail(e.error()))?;
                if let Some(prefix) = prefix {
                    // Header first, then a copy of the records.
                    let mut full = temp_like(&target, like).map_err(|e| fail(&e))?;
                    full.write_all(prefix).map_err(|e| fail(&e))?;
                    temp.rewind().map_err(|e| fail(&e))?;
                    io::copy(&mut temp, &mut full).map_err(|e| fail(&e))?;
                    temp = full;
                }
                temp.file().sync_all().map_err(|e| fail(&e))?;
                cleanup::persist(temp, &target).map_err(|e| {
                    Error::System(format!(
                        "{name}: cannot put the output in place: {e} (did the directory \
                         change during the run?)"
                    ))
                })
            }
        }
    }
}

/// Writes `bytes` to the output `target` as [`Sink`] does (temporary file and rename,
/// or straight through): for outputs made whole in memory, such as `bench`'s plot and
/// JSON, whose path was checked by [`Sink::open`] before the work.
pub fn write_whole(name: &str, mut sink: Sink, bytes: &[u8]) -> Result<(), Error> {
    sink.write_all(bytes)
        .map_err(|e| Sink::write_error(name, &e))?;
    sink.finish(name, None)
}

/// An output being written: to a temporary file beside its target that replaces the
/// target only when complete, or straight through to a stream or a special file.
///
/// What the target path names decides which:
/// - nothing (a new file): a temporary file in the same directory, created with the mode
///   the umask gives (`0666 & !umask`), renamed onto the path at the end;
/// - a regular file: the same, and the new file gets the old one's mode (and owner, when
///   allowed); a read-only file (no write permission bit) is an error, not replaced;
/// - a symbolic link: followed (to its final target, which is then treated as above); the
///   link itself is never replaced;
/// - `-`, a FIFO, a character or block device, a socket: written through in place, never
///   replaced (opening a FIFO waits for its reader, as a shell's `>` does).
///
/// The numbers are written as `T` (`f32` or `f64`).
pub struct Output<T: Real = f32> {
    name: String,
    format: Format,
    columns: Columns,
    sink: Sink,
    /// `.npy` with a row count unknown up front: the header is written at the end, into a
    /// second temporary file that receives a copy of this one's records.
    npy_deferred: bool,
    known_rows: Option<u64>,
    rows: u64,
    /// The binary records of one [`Output::write`].
    scratch: Vec<u8>,
    /// The CSV text being formatted: [`CSV_PIECES`] buffers of [`CSV_PIECE`] rows.
    pieces: Vec<Vec<u8>>,
    real: std::marker::PhantomData<T>,
}

/// Rows of CSV text formatted by one task of [`Output::write`].
pub(super) const CSV_PIECE: usize = 4096;

/// CSV pieces formatted at a time (up to this many threads busy): with [`CSV_PIECE`], the
/// bound on the CSV text held in memory (about 9 MB with every column).
pub(super) const CSV_PIECES: usize = 16;

/// `path` with its symbolic links followed to the final target (which may not exist).
pub fn resolve_links(path: &Path) -> Result<PathBuf, String> {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&path).map_err(|e| e.to_string())?;
                path = match path.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            _ => return Ok(path),
        }
    }
    Err("too many levels of symbolic links".into())
}

/// The directory of `path` (`.` for a bare name).
pub(super) fn dir_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

impl<T: Real> Output<T> {
    /// Opens the output `target` (`-` is standard output) as described on [`Output`] and
    /// writes the header if the format has one. Problems with the path are
    /// [`Error::Data`].
    pub fn create(
        target: &Path,
        format: Format,
        columns: Columns,
        known_rows: Option<u64>,
    ) -> Result<Self, Error> {
        let (name, sink) = Sink::open(target)?;
        let npy_deferred = format == Format::Npy && known_rows.is_none();
        if npy_deferred && matches!(sink, Sink::Through(_)) {
            return Err(Error::Data(format!(
                "{name}: a .npy output with --radius needs a regular file (its header holds \
                 the row count, known only at the end): write to a file, or use CSV or raw"
            )));
        }
        let mut out = Output {
            name,
            format,
            columns,
            sink,
            npy_deferred,
            known_rows,
            rows: 0,
            scratch: Vec::new(),
            pieces: Vec::new(),
            real: std::marker::PhantomData,
        };
        let header = match format {
            Format::Csv => {
                let mut h = columns.names().join(",");
                h.push('\n');
                h.into_bytes()
            }
            Format::Npy if !out.npy_deferred => {
                npy_header(&columns, T::PRECISION, known_rows.expect("rows known"))
            }
            _ => Vec::new(),
        };
        out.sink
            .write_all(&header)
            .map_err(|e| out.write_error(&e))?;
        Ok(out)
    }

    fn write_error(&self, e: &io::Error) -> Error {
        Sink::write_error(&self.name, e)
    }

    /// Writes the records of `batch` (input indices starting at `base`), all of them or
    /// only the local indices in `selected`.
    pub fn write(
        &mut self,
        batch: &impl Results<Real = T>,
        base: u64,
        selected: Option<&[u32]>,
    ) -> Result<(), Error> {
        let count = selected.map_or(batch.rows(), <[u32]>::len);
        let row = |k: usize| selected.map_or(k, |s| s[k] as usize);
        let cols = self.columns;
        self.rows += count as u64;
        if self.format == Format::Csv {
            // Formatting numbers is the slow part: it runs in parallel, CSV_PIECES pieces of
            // CSV_PIECE rows at a time, into buffers this output keeps (made on this thread,
            // reused), each group written out before the next is formatted. The text held is
            // at most CSV_PIECES · CSV_PIECE rows whatever the thread count and the chunk.
            let mut pieces = std::mem::take(&mut self.pieces);
            pieces.resize_with(CSV_PIECES, || Vec::with_capacity(CSV_PIECE * 64));
            let mut result = Ok(());
            for group in (0..count).step_by(CSV_PIECE * CSV_PIECES) {
                let end = count.min(group + CSV_PIECE * CSV_PIECES);
                let used = (end - group).div_ceil(CSV_PIECE);
                pieces[..used]
                    .par_iter_mut()
                    .enumerate()
                    .for_each(|(p, text)| {
                        text.clear();
                        let first = group + p * CSV_PIECE;
                        for k in first..end.min(first + CSV_PIECE) {
                            csv_row(text, batch, base, row(k), &cols);
                        }
                    });
                result = pieces[..used]
                    .iter()
                    .try_for_each(|text| self.sink.write_all(text));
                if result.is_err() {
                    break;
                }
            }
            self.pieces = pieces;
            return result.map_err(|e| self.write_error(&e));
        }
        self.scratch.clear();
        self.scratch
            .reserve(count * cols.record_bytes(T::PRECISION));
        for k in 0..count {
            binary_row(&mut self.scratch, batch, base, row(k), &cols);
        }
        let result = self.sink.write_all(&self.scratch);
        result.map_err(|e| self.write_error(&e))
    }

    /// Finishes the output: for a replaced file, the deferred `.npy` header, a sync and
    /// the rename onto the target; for a stream, a flush. Returns the number of records.
    pub fn finish(self) -> Result<u64, Error> {
        let name = self.name.clone();
        if let Some(n) = self.known_rows
            && !self.npy_deferred
            && self.format == Format::Npy
            && n != self.rows
        {
            return Err(Error::System(format!(
                "{name}: internal error: wrote {} records for a header of {n}",
                self.rows
            )));
        }
        let rows = self.rows;
        let header = self
            .npy_deferred
            .then(|| npy_header(&self.columns, T::PRECISION, rows));
        self.sink.finish(&name, header.as_deref())?;
        Ok(rows)
    }
}

/// A registered temporary file beside `target` with the mode, owner and group in `like`
/// (an existing target's; changing the owner needs privileges and is skipped without), or
/// the umask's mode for a new file.
pub(super) fn temp_like(target: &Path, like: Option<(u32, u32, u32)>) -> io::Result<Temp> {
    let temp = cleanup::temp_in(&dir_of(target), 0o666)?;
    #[cfg(unix)]
    if let Some((mode, uid, gid)) = like {
        use std::os::unix::fs::PermissionsExt;
        // Owner first (a change of owner may clear set-id bits), then the exact mode.
        let _ = std::os::unix::fs::fchown(temp.file(), Some(uid), Some(gid));
        temp.file()
            .set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    #[cfg(not(unix))]
    let _ = like;
    Ok(temp)
}

/// The `.npy` header for `rows` records of `columns` in `precision`.
pub(super) fn npy_header(columns: &Columns, precision: Precision, rows: u64) -> Vec<u8> {
    let mut bytes = Vec::new();
    npyz::WriteOptions::new_header_only()
        .dtype(columns.dtype(precision))
        .shape(&[rows])
        .writer(&mut bytes)
        .write_header_only()
        .expect("writing to a Vec cannot fail");
    bytes
}

pub(super) fn csv_row(out: &mut Vec<u8>, batch: &impl Results, base: u64, i: usize, c: &Columns) {
    let mut fields: Vec<String> = Vec::with_capacity(12);
    if c.index {
        fields.push((base + i as u64).to_string());
    }
    if c.distance {
        fields.push(num(batch.distance(i)));
    }
    if c.params {
        fields.push(num(batch.s()[i]));
        fields.push(num(batch.t()[i]));
    }
    if c.points {
        for col in batch.point_a().iter().chain(&batch.point_b()) {
            fields.push(num(col[i]));
        }
    }
    if c.flags {
        fields.push(batch.flags()[i].bits().to_string());
    }
    out.extend_from_slice(fields.join(",").as_bytes());
    out.push(b'\n');
}

pub(super) fn binary_row<B: Results>(
    out: &mut Vec<u8>,
    batch: &B,
    base: u64,
    i: usize,
    c: &Columns,
) {
    if c.index {
        out.extend_from_slice(&(base + i as u64).to_le_bytes());
    }
    let mut f = |x: B::Real| x.put_le(out);
    if c.distance {
        f(batch.distance(i));
    }
    if c.params {
        f(batch.s()[i]);
        f(batch.t()[i]);
    }
    if c.points {
        for col in batch.point_a().iter().chain(&batch.point_b()) {
            f(col[i]);
        }
    }
    if c.flags {
        out.push(batch.flags()[i].bits());
    }
}
