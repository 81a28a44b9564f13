//! What every subcommand shares: the precision of a run, the error of the I/O layer, the
//! formats, how paths are named in messages, and the worker threads.

use std::path::Path;

use clap::ValueEnum;
use segbatch::{ClosestBatch, Element, Flags, Soa};

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

/// The share of [`memory_headroom`] one input set held in memory may take: a quarter (the
/// set's columns grow by doubling, and the query needs about as much again for its grid or
/// index), so an endless stream (such as `/dev/zero`) or a file larger than the machine can
/// hold is refused with one line, before the allocator would abort the process.
pub const SET_MEMORY_SHARE: u64 = 4;

/// The memory this process may still take, in bytes: the smallest of the machine's physical
/// memory (`MemTotal` in `/proc/meminfo`), what the container's cgroup allows beyond its use
/// (`memory.max` less `memory.current` in `/sys/fs/cgroup`), and what the process's limits
/// leave beyond its present size (`ulimit -v`: `RLIMIT_AS` less `VmSize`, and
/// `RLIMIT_DATA` less `VmData`, from `/proc/self/status`: the threads' stacks and
/// allocator arenas already reserve a few hundred MB of address space). `None` when none of
/// them is known.
pub fn memory_headroom() -> Option<u64> {
    /// The number of kB after `key` in a `/proc` file's text, in bytes.
    fn kib(text: &str, key: &str) -> Option<u64> {
        let rest = text.lines().find_map(|l| l.strip_prefix(key))?;
        let kib = rest
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse::<u64>()
            .ok()?;
        Some(kib.saturating_mul(1024))
    }
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let number = |path: &str| read(path).and_then(|t| t.trim().parse::<u64>().ok());
    let mut limits = Vec::new();
    limits.extend(read("/proc/meminfo").and_then(|t| kib(&t, "MemTotal:")));
    if let Some(max) = number("/sys/fs/cgroup/memory.max") {
        let used = number("/sys/fs/cgroup/memory.current").unwrap_or(0);
        limits.push(max.saturating_sub(used));
    }
    #[cfg(unix)]
    {
        let status = read("/proc/self/status").unwrap_or_default();
        for (resource, key) in [
            (rustix::process::Resource::As, "VmSize:"),
            (rustix::process::Resource::Data, "VmData:"),
        ] {
            if let Some(limit) = rustix::process::getrlimit(resource).current {
                limits.push(limit.saturating_sub(kib(&status, key).unwrap_or(0)));
            }
        }
    }
    limits.into_iter().min()
}

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
    + std::ops::Mul<Output = Self>
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

/// The result columns an output writes: a [`ClosestBatch`] of either element, or a view
/// of one that knows some distances better (`segbatch run` in f64), through one interface.
pub trait Results: Sync {
    /// The number type of the columns.
    type Real: Real;
    /// The number of pairs.
    fn rows(&self) -> usize;
    /// Squared distances.
    fn dist2(&self) -> &[Self::Real];
    /// The distance of pair `i`: `sqrt(dist2)` unless the columns know better (a squared
    /// distance that left the range of its type, [`Results`] of `segbatch run` in f64).
    fn distance(&self, i: usize) -> Self::Real {
        self.dist2()[i].sqrt()
    }
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

impl<E: Real + Element> Results for ClosestBatch<E> {
    type Real = E;
    fn rows(&self) -> usize {
        self.len()
    }
    fn dist2(&self) -> &[E] {
        ClosestBatch::dist2(self)
    }
    fn s(&self) -> &[E] {
        ClosestBatch::s(self)
    }
    fn t(&self) -> &[E] {
        ClosestBatch::t(self)
    }
    fn point_a(&self) -> [&[E]; 3] {
        ClosestBatch::point_a(self)
    }
    fn point_b(&self) -> [&[E]; 3] {
        ClosestBatch::point_b(self)
    }
    fn flags(&self) -> &[Flags] {
        ClosestBatch::flags(self)
    }
}

/// A batch of 3D segments of the element `E`: the library's [`Segments`](segbatch::Segments)
/// or [`Segments64`](segbatch::Segments64), named once for the code written over either.
pub type SegmentsOf<E> = Soa<<E as Element>::Segment, 6, E>;

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

/// A file format, and for raw data the number type it holds.
///
/// What a file stores comes from its name (or `--format`, or a `.npy` header), never from
/// the run's precision alone: a `.f32` file holds `f32` and a `.f64` file `f64` whatever the
/// run computes in. Only raw data whose name does not say its type (`.raw`, `.bin`,
/// `--format raw`) is taken to hold numbers of the run's precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Comma-separated text
    Csv,
    /// NumPy .npy
    Npy,
    /// Raw little-endian numbers of the run's precision (.raw, .bin)
    Raw,
    /// Raw little-endian f32 (.f32)
    F32,
    /// Raw little-endian f64 (.f64)
    F64,
}

impl Format {
    /// The format named by a file's extension: `.csv` (`.txt`), `.npy`, `.f32`, `.f64`, or
    /// `.raw`, `.bin` (raw of the run's precision).
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "csv" | "txt" => Some(Format::Csv),
            "npy" => Some(Format::Npy),
            "f32" => Some(Format::F32),
            "f64" => Some(Format::F64),
            "raw" | "bin" => Some(Format::Raw),
            _ => None,
        }
    }

    /// The format of a file named `path` given `explicit` (`--format`), else its extension.
    /// `--format raw` keeps the number type that a `.f32` or `.f64` name gives (it says
    /// "raw", not which numbers); any other `--format` replaces what the name says.
    pub fn of(path: &Path, explicit: Option<Format>) -> Option<Format> {
        let named = Format::from_path(path);
        match explicit {
            Some(Format::Raw) => match named {
                Some(typed @ (Format::F32 | Format::F64)) => Some(typed),
                _ => Some(Format::Raw),
            },
            Some(f) => Some(f),
            None => named,
        }
    }

    /// True for the raw formats (`raw`, `f32`, `f64`).
    pub fn is_raw(self) -> bool {
        matches!(self, Format::Raw | Format::F32 | Format::F64)
    }

    /// The number type raw data of this format holds in a run of `precision`: the type
    /// the format names (`f32`, `f64`), else the run's. `None` for CSV (text, parsed in the
    /// run's precision) and `.npy` (its header says).
    pub fn raw_type(self, precision: Precision) -> Option<Precision> {
        match self {
            Format::Raw => Some(precision),
            Format::F32 => Some(Precision::F32),
            Format::F64 => Some(Precision::F64),
            Format::Csv | Format::Npy => None,
        }
    }

    /// The format a run of `precision` writes for an output of this format, or the
    /// message saying why it cannot: a `.f32` output holds `f32`, a `.f64` one `f64`, so
    /// an output whose named type is not the run's is refused (a run never narrows its
    /// results, and writes no type its name does not say).
    pub fn output_in(self, precision: Precision, name: &str) -> Result<Format, String> {
        match self.raw_type(precision) {
            Some(stored) if stored != precision => Err(format!(
                "{name}: the output is raw {} (its name or --output-format) and this run \
                 writes {} (its --precision): name it .{} (or .raw, .bin), or pass \
                 --precision {}",
                stored.name(),
                precision.name(),
                precision.name(),
                stored.name()
            )),
            _ => Ok(self),
        }
    }

    /// The format's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "CSV",
            Format::Npy => ".npy",
            Format::Raw => "raw",
            Format::F32 => "raw f32",
            Format::F64 => "raw f64",
        }
    }

    /// The format's name in messages about a run in `precision` (`raw` is `raw f32` or
    /// `raw f64`).
    pub fn name_in(self, precision: Precision) -> &'static str {
        match (self, precision) {
            (Format::Raw, Precision::F32) => "raw f32",
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
pub(super) fn excerpt(bytes: &[u8]) -> String {
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
