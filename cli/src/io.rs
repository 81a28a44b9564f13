//! The I/O layer of every subcommand: records read in bounded chunks from files or streams
//! ([`Input`], pairs for `run` and segments for the set commands, see [`Layout`]), outputs
//! written to a temporary file beside the target and renamed into place only on success, or
//! straight through to a stream, a FIFO or a device ([`Sink`]; [`Output`] is `run`'s
//! columns on top of it), and the thread pool of `--threads` ([`thread_pool`]). Written
//! once so that every subcommand, and any new one, gets the same formats, limits, messages
//! and exit statuses.
//!
//! A run has one [`Precision`], `f32` or `f64` (the [`Real`] type the readers produce and
//! the writers take): the same code reads and writes both. `run`'s inputs hold 12 numbers
//! per pair, in the order `a.p0, a.p1, b.p0, b.p1` (x, y, z each); the set commands' 6 (4 in
//! 2D) per segment, in the same formats:
//! - CSV: 12 numbers per row, an optional header row (a first row with no number in it);
//!   lines end with LF, CRLF or CR; blank lines are skipped (and counted in line numbers);
//!   a field may be quoted, but not across lines; a line is at most [`MAX_LINE_BYTES`];
//! - `.npy`: little-endian float32 (`<f4`), C order, shape `(N, 12)` or `(N, 4, 3)`; in
//!   `f64` also float64 (`<f8`). A float32 array read in `f64` is widened (exactly); a
//!   float64 array in `f32` is an error that names `--precision f64` (never narrowed);
//! - raw: little-endian numbers of the run's precision, 48 (`f32`) or 96 (`f64`) bytes per
//!   pair, no header.
//!
//! Outputs are one record per pair (or per pair within `--radius`), with the selected
//! columns in this order: `index` (u64, only with `--radius`), `distance`, `s`, `t`,
//! `point_a` (x, y, z), `point_b` (x, y, z), `flags` (u8); the numbers in the run's
//! precision. CSV writes them as text (the shortest that reads back to the same number)
//! with a header row; raw writes packed little-endian records; `.npy` writes a structured
//! array with those field names (or a plain `<f4`/`<f8` vector when `distance` is the only
//! column).
//!
//! Every error message names the file, the record and the field, on one line. Errors are
//! [`Error::Data`] (the arguments or the data are wrong: exit status 2),
//! [`Error::System`] (an operation failed while the run was under way: status 1) or
//! [`Error::Pipe`] (the reader of the output went away: status 141, 128 + SIGPIPE).
//!
//! Memory is bounded whatever the input: a chunk of pairs, one CSV line of at most
//! [`MAX_LINE_BYTES`], one `.npy` header of at most [`MAX_NPY_HEADER_BYTES`].

use std::fs::OpenOptions;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Seek, Write};
#[cfg(unix)]
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use clap::ValueEnum;
use npyz::{DType, Field, TypeStr, WriterBuilder};
use rayon::prelude::*;
use segbatch::pairs::ClosestBatch64;
use segbatch::{ClosestBatch, Flags};

use crate::cleanup::{self, Temp};
use crate::format::num;

/// The longest CSV line accepted, in bytes (a row of 12 numbers takes well under 1 KiB).
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// The longest `.npy` header accepted, in bytes (NumPy itself refuses more than 10000 by
/// default).
pub const MAX_NPY_HEADER_BYTES: usize = 64 * 1024;

/// The deepest bracket nesting accepted in a `.npy` header (a float32 array's header nests
/// 2; a structured dtype 3, so its message names it). The header parser's time grows about 3× per
/// level (and is bounded below this depth by [`NPY_HEADER_PARSE_CALLS`]).
pub const MAX_NPY_HEADER_DEPTH: usize = 3;

/// The most rule calls the `.npy` header parser may make (pest's call limit, set for the
/// process the first time a `.npy` input is opened). A float32 array's header, even padded
/// to 60 KiB, needs fewer; this many take well under a second (`cli/tests/suite/fuzz_replay.rs`).
pub const NPY_HEADER_PARSE_CALLS: usize = 200_000;

/// One input pair: `a.p0, a.p1, b.p0, b.p1`.
pub type Pair<T = f32> = [T; 12];

/// The precision of a run: the numbers read, computed and written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Precision {
    /// 32-bit floats: f32, '<f4'
    #[default]
    F32,
    /// 64-bit floats: f64, '<f8'
    F64,
}

impl Precision {
    /// `f32` or `f64`.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        }
    }

    /// Bytes per number.
    pub fn bytes(self) -> u64 {
        match self {
            Precision::F32 => 4,
            Precision::F64 => 8,
        }
    }

    /// Bytes per pair in raw and `.npy` data: 12 numbers.
    pub fn pair_bytes(self) -> u64 {
        12 * self.bytes()
    }

    /// The little-endian NumPy type string: `<f4` or `<f8`.
    pub fn npy_descr(self) -> &'static str {
        match self {
            Precision::F32 => "<f4",
            Precision::F64 => "<f8",
        }
    }
}

/// A number type a run reads, computes in and writes: `f32` or `f64`.
pub trait Real:
    bytemuck::Pod
    + PartialOrd
    + Send
    + Sync
    + std::str::FromStr<Err = std::num::ParseFloatError>
    + std::fmt::Display
    + std::fmt::LowerExp
    + Into<f64>
{
    /// The precision this type is.
    const PRECISION: Precision;
    /// `x`, exactly.
    fn from_f32(x: f32) -> Self;
    /// The value whose little-endian bytes are `x`'s bytes (`x` itself on little-endian
    /// machines).
    fn from_le(x: Self) -> Self;
    /// The square root.
    fn sqrt(self) -> Self;
    /// Appends the little-endian bytes.
    fn put_le(self, out: &mut Vec<u8>);
}

macro_rules! real {
    ($t:ty, $bits:ty, $precision:expr) => {
        impl Real for $t {
            const PRECISION: Precision = $precision;
            fn from_f32(x: f32) -> Self {
                <$t>::from(x)
            }
            fn from_le(x: Self) -> Self {
                <$t>::from_bits(<$bits>::from_le(x.to_bits()))
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn put_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    };
}
real!(f32, u32, Precision::F32);
real!(f64, u64, Precision::F64);

/// The result columns an output writes: [`ClosestBatch`] (`f32`) or [`ClosestBatch64`]
/// (`f64`), through one interface.
pub trait Results: Sync {
    /// The number type of the columns.
    type Real: Real;
    /// The number of pairs.
    fn rows(&self) -> usize;
    /// Squared distances.
    fn dist2(&self) -> &[Self::Real];
    /// Parameters along A (empty when not computed).
    fn s(&self) -> &[Self::Real];
    /// Parameters along B (empty when not computed).
    fn t(&self) -> &[Self::Real];
    /// Closest points on A, `[x, y, z]` columns (empty when not computed).
    fn point_a(&self) -> [&[Self::Real]; 3];
    /// Closest points on B, `[x, y, z]` columns (empty when not computed).
    fn point_b(&self) -> [&[Self::Real]; 3];
    /// Flags (empty when not computed).
    fn flags(&self) -> &[Flags];
}

macro_rules! results {
    ($batch:ty, $t:ty) => {
        impl Results for $batch {
            type Real = $t;
            fn rows(&self) -> usize {
                <$batch>::len(self)
            }
            fn dist2(&self) -> &[$t] {
                <$batch>::dist2(self)
            }
            fn s(&self) -> &[$t] {
                <$batch>::s(self)
            }
            fn t(&self) -> &[$t] {
                <$batch>::t(self)
            }
            fn point_a(&self) -> [&[$t]; 3] {
                <$batch>::point_a(self)
            }
            fn point_b(&self) -> [&[$t]; 3] {
                <$batch>::point_b(self)
            }
            fn flags(&self) -> &[Flags] {
                <$batch>::flags(self)
            }
        }
    };
}
results!(ClosestBatch, f32);
results!(ClosestBatch64, f64);

/// The input fields, in order (for error messages and the CSV header).
pub const FIELD_NAMES: [&str; 12] = [
    "a.p0.x", "a.p0.y", "a.p0.z", "a.p1.x", "a.p1.y", "a.p1.z", "b.p0.x", "b.p0.y", "b.p0.z",
    "b.p1.x", "b.p1.y", "b.p1.z",
];

/// A failure of `segbatch run`'s input or output, with its one-line message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The arguments or the data are wrong (a missing or malformed input, an output path
    /// that cannot be used): running again unchanged fails again. Exit status 2.
    Data(String),
    /// An operation failed while the run was under way (a read or write error, a full
    /// disk, an input that shrank, an output directory that vanished). Exit status 1.
    System(String),
    /// The reader of the output (a pipe, a FIFO) went away. Exit status 141.
    Pipe(String),
}

impl Error {
    /// The one-line message.
    pub fn message(&self) -> &str {
        match self {
            Error::Data(m) | Error::System(m) | Error::Pipe(m) => m,
        }
    }

    /// The exit status the command uses for it.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Data(_) => 2,
            Error::System(_) => 1,
            Error::Pipe(_) => 141,
        }
    }
}

/// A file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Comma-separated text
    Csv,
    /// NumPy .npy
    Npy,
    /// Raw little-endian binary
    Raw,
}

impl Format {
    /// The format named by a file's extension: `.csv`, `.npy`, or `.f32`, `.raw`, `.bin`.
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "csv" | "txt" => Some(Format::Csv),
            "npy" => Some(Format::Npy),
            "f32" | "raw" | "bin" => Some(Format::Raw),
            _ => None,
        }
    }

    /// The format's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "CSV",
            Format::Npy => ".npy",
            Format::Raw => "raw f32",
        }
    }

    /// The format's name in messages about a run in `precision` (`raw f64` in `f64`).
    pub fn name_in(self, precision: Precision) -> &'static str {
        match (self, precision) {
            (Format::Raw, Precision::F64) => "raw f64",
            _ => self.name(),
        }
    }
}

/// A path as shown in messages (`-` is standard input or output).
pub fn show(path: &Path) -> String {
    path.display().to_string()
}

/// True for the path `-`: standard input (as the input) or standard output (as `-o`).
pub fn is_std_stream(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Some bytes of a field for a message: at most 40 characters, control characters escaped,
/// so the message stays on one line.
fn excerpt(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == 40 {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Threads
// ---------------------------------------------------------------------------------------

/// The pool of worker threads of a subcommand's `--threads N`: more threads than CPUs only
/// cost memory and start-up time (each has its own stack and allocator arena), so `N` is
/// clamped to the CPU count, with a note on stderr naming `command` unless `quiet`. `None`
/// (no `--threads`) is rayon's default pool size (one thread per CPU, or
/// `RAYON_NUM_THREADS`). The note is the only output; a pool that cannot start is
/// [`Error::System`].
pub fn thread_pool(
    requested: Option<u16>,
    command: &str,
    quiet: bool,
) -> Result<rayon::ThreadPool, Error> {
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = requested {
        let mut n = usize::from(n);
        if n > cpus {
            if !quiet {
                eprintln!(
                    "segbatch {command}: --threads {n} is more than the {cpus} CPUs: using {cpus}"
                );
            }
            n = cpus;
        }
        builder = builder.num_threads(n);
    }
    builder
        .build()
        .map_err(|e| Error::System(format!("cannot start the worker threads: {e}")))
}

// ---------------------------------------------------------------------------------------
// Input
// ---------------------------------------------------------------------------------------

/// What one input record holds, and how messages name it: every subcommand reads its
/// records through the same [`Input`], only the layout differs.
#[derive(Debug)]
pub struct Layout {
    /// The names of the record's numbers, in order (messages, the CSV header check).
    pub fields: &'static [&'static str],
    /// A record in messages: `pair`, `segment`.
    pub noun: &'static str,
    /// The record's parts in messages: `a.p0, a.p1, b.p0, b.p1; x,y,z each`.
    pub parts: &'static str,
    /// The second `.npy` shape accepted besides `(N, fields)`: `(N, points, dims)`.
    pub points: (u64, u64),
    /// The command has `--precision f64` (messages about float64 inputs name it).
    pub precision_option: bool,
}

impl Layout {
    /// Numbers per record.
    pub fn width(&self) -> usize {
        self.fields.len()
    }

    /// The plural of [`Layout::noun`].
    fn nouns(&self) -> String {
        format!("{}s", self.noun)
    }
}

/// `segbatch run`'s records: a pair of 3D segments, 12 numbers.
pub const PAIRS: Layout = Layout {
    fields: &FIELD_NAMES,
    noun: "pair",
    parts: "a.p0, a.p1, b.p0, b.p1; x,y,z each",
    points: (4, 3),
    precision_option: true,
};

/// The set commands' 3D records: one segment, 6 numbers.
pub const SEGMENTS3: Layout = Layout {
    fields: &["p0.x", "p0.y", "p0.z", "p1.x", "p1.y", "p1.z"],
    noun: "segment",
    parts: "p0, p1; x,y,z each",
    points: (2, 3),
    precision_option: false,
};

/// `segbatch cross`'s records: one 2D segment, 4 numbers.
pub const SEGMENTS2: Layout = Layout {
    fields: &["p0.x", "p0.y", "p1.x", "p1.y"],
    noun: "segment",
    parts: "p0, p1; x,y each",
    points: (2, 2),
    precision_option: false,
};

/// An open input, read in chunks of records of `N` numbers of type `T` (`f32` or `f64`):
/// pairs for `run`, segments for the set commands (see [`Layout`]).
pub struct Input<T: Real = f32, const N: usize = 12> {
    name: String,
    kind: InputKind,
    layout: &'static Layout,
    /// Records read so far.
    pairs: u64,
    /// The file's size in bytes (for progress); 0 for a stream.
    pub total_bytes: u64,
    /// The number of pairs, when known up front (raw and `.npy` regular files, `.npy`
    /// streams).
    pub total_pairs: Option<u64>,
    real: std::marker::PhantomData<T>,
}

enum InputKind {
    /// Raw and `.npy` (positioned after the header).
    Binary(BinaryPairs),
    Csv(CsvPairs),
}

/// The reader of packed pairs: raw, and `.npy` after its header.
struct BinaryPairs {
    reader: Box<dyn Read + Send>,
    /// Bytes of packed pairs still to read, when known (a regular file, a `.npy`
    /// header); `None` for a raw stream, read to its end.
    remaining: Option<u64>,
    header_bytes: u64,
    /// A regular file whose size was checked when opened: ending early means it
    /// changed during the run.
    sized: bool,
    /// A `.npy` input (for messages).
    npy: bool,
    /// The precision of the stored numbers: the run's, or `f32` widened in an `f64` run.
    stored: Precision,
    /// The stored `f32` numbers of a chunk, before they are widened (an `f64` run of a
    /// float32 `.npy`).
    narrow: Vec<f32>,
    /// Bytes per stored record.
    record_bytes: u64,
    layout: &'static Layout,
}

impl BinaryPairs {
    /// Reads whole pairs into `bytes` (a multiple of the stored pair size, no more than
    /// `remaining`), `before` pairs having been read; returns the number of whole pairs.
    /// Only a stream of unknown length may end early, at a pair boundary.
    fn read(&mut self, name: &str, before: u64, bytes: &mut [u8]) -> Result<usize, Error> {
        let pair_bytes = self.record_bytes;
        let noun = self.layout.noun;
        let width = self.layout.width();
        let got = read_full(self.reader.as_mut(), bytes).map_err(|e| {
            Error::System(format!(
                "{name}: reading {noun} {} failed: {e}",
                before + u64::from(!bytes.is_empty())
            ))
        })?;
        let whole = got as u64 / pair_bytes;
        if got < bytes.len() {
            let at = before + whole;
            let part = got as u64 % pair_bytes;
            if self.sized {
                return Err(Error::System(format!(
                    "{name}: the file ended in {noun} {at}, before the size it had when \
                     opened: it changed during the run"
                )));
            }
            if let Some(r) = self.remaining {
                return Err(Error::Data(format!(
                    "{name}: .npy data is truncated: the stream ended in {noun} {at} of \
                     {} ({part} of {pair_bytes} bytes)",
                    before + r / pair_bytes
                )));
            }
            if part != 0 {
                let p = self.stored.name();
                return Err(Error::Data(format!(
                    "{name}: raw {p} input ended inside {noun} {at} ({part} of {pair_bytes} \
                     bytes): a raw {p} file holds {pair_bytes} bytes ({width} {p}) per {noun}"
                )));
            }
        }
        if let Some(r) = &mut self.remaining {
            *r -= whole * pair_bytes;
            if *r == 0 && self.npy && !self.sized && whole > 0 {
                let mut extra = [0u8; 1];
                if read_full(self.reader.as_mut(), &mut extra).unwrap_or(0) > 0 {
                    return Err(Error::Data(format!(
                        "{name}: .npy stream has bytes after its {} {}s",
                        before + whole,
                        noun
                    )));
                }
            }
        }
        Ok(whole as usize)
    }
}

/// The CSV reader: lines (LF, CRLF or CR), capped in length, split into fields.
struct CsvPairs {
    reader: Box<dyn BufRead + Send>,
    /// The number of the line in `line` (1-based).
    line_number: u64,
    line: Vec<u8>,
    /// The previous line ended with CR: a LF right after it belongs to it.
    after_cr: bool,
    /// No row has been seen yet (it may be a header).
    first: bool,
    bytes: u64,
    /// The record's noun (messages).
    noun: &'static str,
}

impl CsvPairs {
    /// Reads the next line into `self.line` (without its end); false at the end of input.
    fn next_line(&mut self, name: &str) -> Result<bool, Error> {
        self.line.clear();
        let mut any = false;
        loop {
            let available = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(Error::System(format!(
                        "{name}: reading line {} failed: {e}",
                        self.line_number + 1
                    )));
                }
            };
            if available.is_empty() {
                if any {
                    self.line_number += 1;
                }
                return Ok(any);
            }
            if std::mem::take(&mut self.after_cr) && available[0] == b'\n' {
                self.reader.consume(1);
                self.bytes += 1;
                continue;
            }
            any = true;
            let end = available.iter().position(|&c| c == b'\n' || c == b'\r');
            let take = end.unwrap_or(available.len());
            if self.line.len() + take > MAX_LINE_BYTES {
                return Err(Error::Data(format!(
                    "{name}: line {}: longer than {MAX_LINE_BYTES} bytes (a record of numbers \
                     is far shorter): not a CSV file of {}s?",
                    self.line_number + 1,
                    self.noun
                )));
            }
            self.line.extend_from_slice(&available[..take]);
            match end {
                Some(i) => {
                    self.after_cr = available[i] == b'\r';
                    self.reader.consume(i + 1);
                    self.bytes += i as u64 + 1;
                    self.line_number += 1;
                    return Ok(true);
                }
                None => {
                    self.reader.consume(take);
                    self.bytes += take as u64;
                }
            }
        }
    }
}

/// Splits a CSV line into at most 13 fields (a 13th means "too many"; the count goes on),
/// trimmed and unquoted. Returns the number of fields, or the 1-based column of a quote
/// left open at the end of the line.
fn split_fields(line: &[u8], fields: &mut [(usize, usize); 13]) -> Result<usize, usize> {
    let mut count = 0;
    let mut start = 0;
    let mut quoted = false;
    let mut open_column = 0;
    for i in 0..=line.len() {
        let c = line.get(i).copied();
        if c == Some(b'"') {
            if !quoted {
                open_column = count + 1;
            }
            quoted = !quoted;
            continue;
        }
        if quoted && c.is_some() {
            continue;
        }
        if c.is_none() || c == Some(b',') {
            if count < fields.len() {
                let (mut a, mut b) = (start, i);
                while a < b && line[a].is_ascii_whitespace() {
                    a += 1;
                }
                while b > a && line[b - 1].is_ascii_whitespace() {
                    b -= 1;
                }
                if b - a >= 2 && line[a] == b'"' && line[b - 1] == b'"' {
                    a += 1;
                    b -= 1;
                }
                fields[count] = (a, b);
            }
            count += 1;
            start = i + 1;
        }
    }
    if quoted { Err(open_column) } else { Ok(count) }
}

fn parse_real<T: Real>(field: &[u8]) -> Option<T> {
    std::str::from_utf8(field).ok()?.trim().parse().ok()
}

/// Reads into `buf` until it is full or the input ends; returns the bytes read.
fn read_full(reader: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match reader.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

impl<T: Real, const N: usize> Input<T, N> {
    /// Opens `path` (`-` and `/dev/stdin` are standard input), records as `layout`
    /// describes them, checking everything that can be checked before reading the data:
    /// existence, emptiness, a raw file's size, a `.npy` header's dtype, order and shape.
    ///
    /// Regular files are checked up front. Anything else (standard input, a pipe, a FIFO,
    /// a character device) is read as a stream, its sizes checked as the data arrives. A
    /// FIFO is opened without blocking; then its first data (or its writer's closing) is
    /// awaited for at most `fifo_wait`, so a FIFO nobody writes to is an error, not a hang.
    ///
    /// # Panics
    /// When `layout` does not describe `N` numbers.
    pub fn open(
        path: &Path,
        layout: &'static Layout,
        format: Format,
        fifo_wait: std::time::Duration,
    ) -> Result<Self, Error> {
        if is_std_stream(path) {
            return Input::from_reader(
                "standard input".into(),
                layout,
                Box::new(io::stdin()),
                format,
                None,
            );
        }
        let name = show(path);
        // `metadata` follows links without opening: a FIFO is not opened yet.
        let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => Error::Data(format!("{name}: no such file")),
            _ => Error::Data(format!("{name}: cannot open: {e}")),
        })?;
        if meta.is_dir() {
            return Err(Error::Data(format!("{name}: is a directory, not a file")));
        }
        let regular = meta.is_file();
        let mut options = OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        if !regular {
            // Do not wait in open() for a FIFO's writer.
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
        }
        let file = options
            .open(path)
            .map_err(|e| Error::Data(format!("{name}: cannot open: {e}")))?;
        if regular {
            let size = file
                .metadata()
                .map_err(|e| Error::Data(format!("{name}: cannot read: {e}")))?
                .len();
            if size == 0 {
                return Err(Error::Data(format!(
                    "{name}: the file is empty (no {})",
                    layout.nouns()
                )));
            }
            return Input::from_reader(name, layout, Box::new(file), format, Some(size));
        }
        #[cfg(unix)]
        {
            if meta.file_type().is_fifo() {
                wait_for_writer(&name, &file, fifo_wait)?;
            }
            // Reads block again from here on.
            let flags = rustix::fs::fcntl_getfl(&file)
                .map_err(|e| Error::Data(format!("{name}: cannot open: {e}")))?;
            rustix::fs::fcntl_setfl(&file, flags - rustix::fs::OFlags::NONBLOCK)
                .map_err(|e| Error::Data(format!("{name}: cannot open: {e}")))?;
        }
        Input::from_reader(name, layout, Box::new(file), format, None)
    }

    /// Reads pairs named `name` from `reader`: a regular file of `size` bytes (checked up
    /// front, as [`Input::open`] does) or, with `size` `None`, a stream (checked as it is
    /// read). This is also the entry point of the readers' fuzz target.
    ///
    /// # Panics
    /// When `layout` does not describe `N` numbers.
    pub fn from_reader(
        name: String,
        layout: &'static Layout,
        reader: Box<dyn Read + Send>,
        format: Format,
        size: Option<u64>,
    ) -> Result<Self, Error> {
        assert_eq!(layout.width(), N, "a layout of N numbers");
        let noun = layout.noun;
        let kind = match format {
            Format::Raw => {
                let pair_bytes = T::PRECISION.bytes() * N as u64;
                let p = T::PRECISION.name();
                if let Some(size) = size
                    && size % pair_bytes != 0
                {
                    let whole = size / pair_bytes;
                    return Err(Error::Data(format!(
                        "{name}: raw {p} input of {size} bytes is not a multiple of \
                         {pair_bytes} bytes ({N} {p} per {noun}): {noun} {whole} is \
                         incomplete ({} of {pair_bytes} bytes)",
                        size % pair_bytes
                    )));
                }
                InputKind::Binary(BinaryPairs {
                    reader: Box::new(BufReader::with_capacity(1 << 20, reader)),
                    remaining: size,
                    header_bytes: 0,
                    sized: size.is_some(),
                    npy: false,
                    stored: T::PRECISION,
                    narrow: Vec::new(),
                    record_bytes: pair_bytes,
                    layout,
                })
            }
            Format::Npy => InputKind::Binary(open_npy(&name, layout, reader, size, T::PRECISION)?),
            Format::Csv => InputKind::Csv(CsvPairs {
                reader: Box::new(BufReader::with_capacity(1 << 20, reader)),
                line_number: 0,
                line: Vec::new(),
                after_cr: false,
                first: true,
                bytes: 0,
                noun,
            }),
        };
        let total_pairs = match &kind {
            InputKind::Binary(BinaryPairs {
                remaining: Some(r),
                record_bytes,
                ..
            }) => Some(r / record_bytes),
            _ => None,
        };
        if total_pairs == Some(0) {
            return Err(Error::Data(format!(
                "{name}: the array is empty (no {})",
                layout.nouns()
            )));
        }
        Ok(Input {
            name,
            kind,
            layout,
            pairs: 0,
            total_bytes: size.unwrap_or(0),
            total_pairs,
            real: std::marker::PhantomData,
        })
    }

    /// Records read so far.
    pub fn pairs_read(&self) -> u64 {
        self.pairs
    }

    /// Bytes consumed so far (for progress).
    pub fn bytes_read(&self) -> u64 {
        match &self.kind {
            InputKind::Binary(b) => b.header_bytes + self.pairs * b.record_bytes,
            InputKind::Csv(csv) => csv.bytes,
        }
    }

    /// Replaces `buf` with up to `max` next pairs; returns how many (0 at the end).
    pub fn read_chunk(&mut self, buf: &mut Vec<[T; N]>, max: usize) -> Result<usize, Error> {
        buf.clear();
        let name = &self.name;
        let layout = self.layout;
        let noun = layout.noun;
        match &mut self.kind {
            InputKind::Binary(binary) => {
                let pair_bytes = binary.record_bytes;
                let n = binary
                    .remaining
                    .map_or(max as u64, |r| (r / pair_bytes).min(max as u64))
                    as usize;
                if binary.stored == T::PRECISION {
                    buf.resize(n, [T::zeroed(); N]);
                    let whole = binary.read(name, self.pairs, bytemuck::cast_slice_mut(buf))?;
                    buf.truncate(whole);
                    if cfg!(target_endian = "big") {
                        for x in buf.iter_mut().flatten() {
                            *x = T::from_le(*x);
                        }
                    }
                } else {
                    // Stored f32, widened: `open_npy` accepts nothing else.
                    let mut narrow = std::mem::take(&mut binary.narrow);
                    narrow.clear();
                    narrow.resize(n * N, 0.0);
                    let whole =
                        binary.read(name, self.pairs, bytemuck::cast_slice_mut(&mut narrow))?;
                    buf.extend(
                        narrow[..whole * N]
                            .chunks_exact(N)
                            .map(|p| std::array::from_fn(|k| T::from_f32(f32::from_le(p[k])))),
                    );
                    binary.narrow = narrow;
                }
                if buf.is_empty() && self.pairs == 0 {
                    return Err(Error::Data(format!(
                        "{name}: no {} (the stream was empty)",
                        layout.nouns()
                    )));
                }
            }
            InputKind::Csv(csv) => {
                let mut fields = [(0usize, 0usize); 13];
                while buf.len() < max && csv.next_line(name)? {
                    let line = csv.line_number;
                    let text = &csv.line[..];
                    if text.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    let pair = self.pairs + buf.len() as u64;
                    let count = split_fields(text, &mut fields).map_err(|column| {
                        Error::Data(format!(
                            "{name}: line {line}, column {column}: a quote is not closed on \
                             its line (quoted fields cannot span lines)"
                        ))
                    })?;
                    let field = |k: usize| &text[fields[k].0..fields[k].1];
                    let shown = count.min(fields.len());
                    if std::mem::take(&mut csv.first)
                        && (0..shown).all(|k| parse_real::<T>(field(k)).is_none())
                    {
                        if let Some(e) = control_byte(name, line, text) {
                            return Err(e);
                        }
                        if count != N {
                            return Err(Error::Data(format!(
                                "{name}: line {line} (header): {count} columns, expected {N} \
                                 ({})",
                                layout.fields.join(",")
                            )));
                        }
                        continue;
                    }
                    if count != N {
                        return Err(control_byte(name, line, text).unwrap_or_else(|| {
                            Error::Data(format!(
                                "{name}: line {line} ({noun} {pair}): {count} columns, \
                                 expected {N} ({})",
                                layout.parts
                            ))
                        }));
                    }
                    let mut p = [T::zeroed(); N];
                    for (k, x) in p.iter_mut().enumerate() {
                        *x = parse_real(field(k)).ok_or_else(|| {
                            let what = field(k);
                            let why = match what.iter().find(|c| c.is_ascii_control()) {
                                Some(c) => format!(
                                    " (it holds the control byte 0x{c:02x}: a binary file \
                                     read as CSV? name its --format)"
                                ),
                                None => String::new(),
                            };
                            Error::Data(format!(
                                "{name}: line {line} ({noun} {pair}), column {} ({}): '{}' is \
                                 not a number{why}",
                                k + 1,
                                layout.fields[k],
                                excerpt(what)
                            ))
                        })?;
                    }
                    buf.push(p);
                }
                if buf.is_empty() && self.pairs == 0 {
                    return Err(Error::Data(format!(
                        "{name}: no {} (only a header or blank lines)",
                        layout.nouns()
                    )));
                }
            }
        }
        self.pairs += buf.len() as u64;
        Ok(buf.len())
    }
}

/// A NUL or other control byte (a tab aside) in a CSV line: the file is not text, and a
/// message about columns or numbers would mislead.
fn control_byte(name: &str, line: u64, text: &[u8]) -> Option<Error> {
    let at = text
        .iter()
        .position(|&c| c.is_ascii_control() && c != b'\t')?;
    Some(Error::Data(format!(
        "{name}: line {line}, byte {}: the control byte 0x{:02x} is not CSV text (a binary \
         file read as CSV? name its --format)",
        at + 1,
        text[at]
    )))
}

/// Waits until the FIFO `file` (opened for reading without blocking) has data or a writer
/// that came and went, for at most `limit`.
#[cfg(unix)]
fn wait_for_writer(
    name: &str,
    file: &std::fs::File,
    limit: std::time::Duration,
) -> Result<(), Error> {
    use rustix::event::{PollFd, PollFlags, Timespec};
    let deadline = std::time::Instant::now() + limit;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let timeout = Timespec {
            tv_sec: left.as_secs().try_into().unwrap_or(i64::MAX),
            tv_nsec: left.subsec_nanos().into(),
        };
        let mut fds = [PollFd::new(file, PollFlags::IN)];
        match rustix::event::poll(&mut fds, Some(&timeout)) {
            Ok(0) => {
                return Err(Error::Data(format!(
                    "{name}: no writer sent data to this FIFO within {} s (--wait SECONDS \
                     waits longer)",
                    limit.as_secs_f64()
                )));
            }
            Ok(_) => return Ok(()),
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(Error::System(format!("{name}: waiting for data: {e}"))),
        }
    }
}

/// Reads every pair of `bytes` as `format` in the precision `T` (a regular file of that
/// size when `sized`, else a stream) in chunks of `chunk` pairs; returns the number of
/// pairs. The readers' fuzz target and its regression tests call this.
pub fn read_all<T: Real, const N: usize>(
    bytes: &[u8],
    layout: &'static Layout,
    format: Format,
    sized: bool,
    chunk: usize,
) -> Result<u64, Error> {
    let size = sized.then_some(bytes.len() as u64);
    if size == Some(0) {
        return Err(Error::Data(format!(
            "input: the file is empty (no {})",
            layout.nouns()
        )));
    }
    let reader: Box<dyn Read + Send> = Box::new(io::Cursor::new(bytes.to_vec()));
    let mut input = Input::<T, N>::from_reader("input".into(), layout, reader, format, size)?;
    let mut buf = Vec::new();
    while input.read_chunk(&mut buf, chunk)? > 0 {}
    Ok(input.pairs_read())
}

/// The readers' fuzz target (`fuzz/fuzz_targets/readers.rs`) and its replayed regressions:
/// reads `data` as CSV, `.npy` and raw, each as a regular file and as a stream, in small
/// chunks, in `f32` and in `f64`, and checks what must hold whatever the bytes.
///
/// # Panics
/// When a reader panics, or breaks one of these rules: a raw input is read exactly when its
/// length is a positive multiple of 48 (96 in `f64`), as that many pairs; a CSV input gives
/// the same outcome as a file and as a stream; a `.npy` stream gives the same count as the
/// file when the file is accepted; every message is one line.
pub fn fuzz_readers(data: &[u8]) {
    fuzz_readers_in::<f32, 12>(data, &PAIRS);
    fuzz_readers_in::<f64, 12>(data, &PAIRS);
    fuzz_readers_in::<f32, 6>(data, &SEGMENTS3);
    fuzz_readers_in::<f32, 4>(data, &SEGMENTS2);
}

/// [`fuzz_readers`] in the precision `T`, records of `N` numbers.
fn fuzz_readers_in<T: Real, const N: usize>(data: &[u8], layout: &'static Layout) {
    let one_line = |r: &Result<u64, Error>| {
        if let Err(e) = r {
            assert!(
                !e.message().contains('\n'),
                "a message of several lines: {e:?}"
            );
        }
    };
    let chunk = 1 + data.first().map_or(0, |&b| usize::from(b % 16));
    let raw = read_all::<T, N>(data, layout, Format::Raw, true, chunk);
    let raw_stream = read_all::<T, N>(data, layout, Format::Raw, false, chunk);
    let pair_bytes = T::PRECISION.bytes() as usize * N;
    let whole = !data.is_empty() && data.len().is_multiple_of(pair_bytes);
    let pairs = (data.len() / pair_bytes) as u64;
    assert_eq!(
        raw.as_ref().ok(),
        whole.then_some(&pairs),
        "raw file: {raw:?}"
    );
    assert_eq!(
        raw_stream.as_ref().ok(),
        whole.then_some(&pairs),
        "raw stream: {raw_stream:?}"
    );
    let csv = read_all::<T, N>(data, layout, Format::Csv, true, chunk);
    let csv_stream = read_all::<T, N>(data, layout, Format::Csv, false, chunk);
    if !data.is_empty() {
        assert_eq!(csv, csv_stream, "CSV file and stream differ");
    }
    let npy = read_all::<T, N>(data, layout, Format::Npy, true, chunk);
    let npy_stream = read_all::<T, N>(data, layout, Format::Npy, false, chunk);
    if let Ok(n) = npy {
        assert_eq!(npy_stream, Ok(n), "the .npy stream differs from the file");
    }
    for r in [&raw, &raw_stream, &csv, &csv_stream, &npy, &npy_stream] {
        one_line(r);
    }
}

/// The deepest nesting of brackets (`(`, `[`, `{`) in `text`, counted wherever they are.
fn bracket_depth(text: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for &c in text {
        match c {
            b'(' | b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// What makes `text`, a `.npy` header starting at byte `offset` of the file, certainly not
/// one NumPy reads, found without the header parser (whose backtracking makes some
/// malformed headers cost it a thousand times what a real one does): a control byte (NumPy
/// writes the `repr` of a dict, printable text ending in a newline, and its reader refuses
/// anything but a dict with string keys), or text that does not open a dict whose first key
/// is a string. `None` when the parser must decide.
fn npy_header_form(text: &[u8], offset: usize) -> Option<String> {
    if let Some(at) = text
        .iter()
        .position(|&c| (c < b' ' && !matches!(c, b'\t' | b'\n' | b'\r')) || c == 0x7f)
    {
        return Some(format!(
            "its header holds the control byte 0x{:02x} at byte {} (a .npy header is \
             printable text)",
            text[at],
            offset + at
        ));
    }
    let space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r');
    let mut rest = text.iter().copied().filter(|&c| !space(c));
    let opens_dict = rest.next() == Some(b'{') && matches!(rest.next(), Some(b'\'' | b'"' | b'}'));
    (!opens_dict).then(|| {
        let start = text.iter().position(|&c| !space(c)).unwrap_or(text.len());
        let shown = &text[start..text.len().min(start + 24)];
        format!(
            "its header is not a dict with string keys such as {{'descr': '<f4', ...}} (it \
             starts with {})",
            if shown.is_empty() {
                "nothing".to_string()
            } else {
                format!("\"{}\"", excerpt(shown))
            }
        )
    })
}

/// Reads and checks a `.npy` header for a run in `precision`: `<f4` (or, in `f64`, `<f8`),
/// C order, shape `(N, 12)` or `(N, 4, 3)`, and (for a regular file of `size` bytes) a data
/// size matching the shape.
fn open_npy(
    name: &str,
    layout: &'static Layout,
    mut reader: Box<dyn Read + Send>,
    size: Option<u64>,
    precision: Precision,
) -> Result<BinaryPairs, Error> {
    let invalid = |what: &str| Error::Data(format!("{name}: not a valid .npy file: {what}"));
    let read_err = |e: io::Error| Error::System(format!("{name}: reading the .npy header: {e}"));
    // The prefix: magic, version, header length (2 bytes in version 1, 4 in 2 and 3).
    let mut prefix = [0u8; 12];
    let got = read_full(reader.as_mut(), &mut prefix[..10]).map_err(read_err)?;
    if got < 8 || &prefix[..6] != b"\x93NUMPY" {
        return Err(invalid("it does not start with the .npy magic bytes"));
    }
    let (prefix_len, header_len) = match prefix[6] {
        1 if got == 10 => (10, u16::from_le_bytes([prefix[8], prefix[9]]) as usize),
        2 | 3 => {
            let more = if got == 10 {
                read_full(reader.as_mut(), &mut prefix[10..12]).map_err(read_err)?
            } else {
                0
            };
            if got + more < 12 {
                return Err(Error::Data(format!(
                    "{name}: the .npy header is truncated: the file ends inside its first 12 \
                     bytes"
                )));
            }
            let len = u32::from_le_bytes([prefix[8], prefix[9], prefix[10], prefix[11]]);
            (12, len as usize)
        }
        1 => {
            return Err(Error::Data(format!(
                "{name}: the .npy header is truncated: the file ends inside its first 10 bytes"
            )));
        }
        v => {
            return Err(invalid(&format!(
                "format version {v}.{} is not 1, 2 or 3",
                prefix[7]
            )));
        }
    };
    if header_len > MAX_NPY_HEADER_BYTES {
        return Err(invalid(&format!(
            "its header claims {header_len} bytes (more than {MAX_NPY_HEADER_BYTES})"
        )));
    }
    let mut header_bytes = prefix[..prefix_len].to_vec();
    header_bytes.resize(prefix_len + header_len, 0);
    let got = read_full(reader.as_mut(), &mut header_bytes[prefix_len..]).map_err(read_err)?;
    if got < header_len {
        return Err(Error::Data(format!(
            "{name}: the .npy header is truncated: the file ends after {} of its {} header \
             bytes",
            prefix_len + got,
            prefix_len + header_len
        )));
    }
    // npyz parses the header text with a backtracking grammar (py_literal, on pest) that
    // re-parses a nested list or dict two or three times per level: 40 levels take hours.
    // A float32 array's header nests 2 deep (the dict, the shape); brackets are counted
    // wherever they are (in strings too), a bound on what the grammar can nest. Below that
    // depth, pest's call budget bounds the time of any header (a limit per parse).
    static BUDGET: std::sync::Once = std::sync::Once::new();
    BUDGET.call_once(|| pest::set_call_limit(std::num::NonZeroUsize::new(NPY_HEADER_PARSE_CALLS)));
    if let Some(what) = npy_header_form(&header_bytes[prefix_len..], prefix_len) {
        return Err(invalid(&what));
    }
    let depth = bracket_depth(&header_bytes[prefix_len..]);
    if depth > MAX_NPY_HEADER_DEPTH {
        return Err(invalid(&format!(
            "its header nests brackets {depth} deep (at most {MAX_NPY_HEADER_DEPTH} accepted; \
             a float32 array's header nests 2)"
        )));
    }
    let header = npyz::NpyHeader::from_reader(io::Cursor::new(&header_bytes)).map_err(|e| {
        let text = e.to_string();
        if text.contains("call limit reached") {
            invalid(&format!(
                "its header is too complex to parse (over {NPY_HEADER_PARSE_CALLS} parser \
                     steps; a float32 array's header takes far fewer)"
            ))
        } else {
            invalid(&excerpt(text.as_bytes()))
        }
    })?;
    let header_bytes = header_bytes.len() as u64;
    let descr = precision.npy_descr();
    let convert = format!("convert with arr.astype('{descr}')");
    let expected = match precision {
        Precision::F32 => "float32 '<f4'",
        Precision::F64 => "float64 '<f8' or float32 '<f4'",
    };
    let stored = match header.dtype() {
        DType::Plain(ts) => match ts.to_string().as_str() {
            "<f4" => Precision::F32,
            "<f8" if precision == Precision::F64 => Precision::F64,
            "<f8" if layout.precision_option => {
                return Err(Error::Data(format!(
                    "{name}: .npy dtype is float64 '<f8' and this run is f32: pass \
                     --precision f64 to compute in f64 (or {convert} to narrow it yourself)"
                )));
            }
            "<f8" => {
                return Err(Error::Data(format!(
                    "{name}: .npy dtype is '<f8', expected little-endian float32 '<f4' (this \
                     command computes in f32): {convert}"
                )));
            }
            text @ (">f4" | ">f8") => {
                return Err(Error::Data(format!(
                    "{name}: .npy byte order is big-endian ('{text}'), expected little-endian \
                     {expected}: {convert}"
                )));
            }
            text => {
                return Err(Error::Data(format!(
                    "{name}: .npy dtype is '{}', expected {expected}: {convert}",
                    excerpt(text.as_bytes())
                )));
            }
        },
        other => {
            return Err(Error::Data(format!(
                "{name}: .npy dtype is the structured type {}, expected {expected}",
                excerpt(other.descr().as_bytes())
            )));
        }
    };
    let width = layout.width() as u64;
    let pair_bytes = stored.bytes() * width;
    if header.order() == npyz::Order::Fortran {
        return Err(Error::Data(format!(
            "{name}: .npy array is in Fortran order, expected C order: save \
             np.ascontiguousarray(arr)"
        )));
    }
    let shape = header.shape().to_vec();
    let shape_text = format!(
        "({})",
        excerpt(
            shape
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
                .as_bytes()
        )
    );
    let (points, dims) = layout.points;
    let pairs = match shape.as_slice() {
        [n, k] if *k == width => *n,
        [n, p, d] if (*p, *d) == (points, dims) => *n,
        _ => {
            return Err(Error::Data(format!(
                "{name}: .npy shape is {shape_text}, expected (N, {width}) or (N, {points}, \
                 {dims})"
            )));
        }
    };
    // Exact, without saturating: N · 48 may not fit in 64 bits.
    let want = u128::from(pairs) * u128::from(pair_bytes);
    if let Some(size) = size {
        let data = u128::from(size.saturating_sub(header_bytes));
        if data < want {
            return Err(Error::Data(format!(
                "{name}: .npy data is truncated: shape {shape_text} needs {want} bytes, the \
                 file holds {data} ({} {} is incomplete)",
                layout.noun,
                data / u128::from(pair_bytes)
            )));
        }
        if data > want {
            return Err(Error::Data(format!(
                "{name}: .npy file has {} bytes after the {shape_text} array",
                data - want
            )));
        }
    }
    let want = u64::try_from(want).map_err(|_| {
        Error::Data(format!(
            "{name}: .npy shape {shape_text} needs {want} bytes, more than any file can hold"
        ))
    })?;
    Ok(BinaryPairs {
        reader: Box::new(BufReader::with_capacity(1 << 20, reader)),
        remaining: Some(want),
        header_bytes,
        sized: size.is_some(),
        npy: true,
        stored,
        narrow: Vec::new(),
        record_bytes: pair_bytes,
        layout,
    })
}

// ---------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------

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
const CSV_PIECE: usize = 4096;

/// CSV pieces formatted at a time (up to this many threads busy): with [`CSV_PIECE`], the
/// bound on the CSV text held in memory (about 9 MB with every column).
const CSV_PIECES: usize = 16;

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
fn dir_of(path: &Path) -> PathBuf {
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
fn temp_like(target: &Path, like: Option<(u32, u32, u32)>) -> io::Result<Temp> {
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
fn npy_header(columns: &Columns, precision: Precision, rows: u64) -> Vec<u8> {
    let mut bytes = Vec::new();
    npyz::WriteOptions::new_header_only()
        .dtype(columns.dtype(precision))
        .shape(&[rows])
        .writer(&mut bytes)
        .write_header_only()
        .expect("writing to a Vec cannot fail");
    bytes
}

fn csv_row(out: &mut Vec<u8>, batch: &impl Results, base: u64, i: usize, c: &Columns) {
    let mut fields: Vec<String> = Vec::with_capacity(12);
    if c.index {
        fields.push((base + i as u64).to_string());
    }
    if c.distance {
        fields.push(num(batch.dist2()[i].sqrt()));
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

fn binary_row<B: Results>(out: &mut Vec<u8>, batch: &B, base: u64, i: usize, c: &Columns) {
    if c.index {
        out.extend_from_slice(&(base + i as u64).to_le_bytes());
    }
    let mut f = |x: B::Real| x.put_le(out);
    if c.distance {
        f(batch.dist2()[i].sqrt());
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
