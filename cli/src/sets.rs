//! `segbatch pairs`, `segbatch cross` and `segbatch raycast`: the set queries over whole
//! files.
//!
//! `pairs` reads one set of 3D segments (or two, with `--against`) and writes every pair
//! within a radius; `cross` reads a set of 2D segments and writes every pair that meets;
//! `raycast` indexes a set of walls ([`segbatch::SegmentIndex`]) and writes the first hit of
//! every thick ray of a second file (rays in blocks of a million, so the results held at
//! once stay bounded).
//! Both run the library's grid-pruned streaming forms
//! ([`segbatch::sets::par_for_each_self_pair_within`], [`segbatch::sets::par_for_each_pair_within`],
//! [`segbatch::planar::par_for_each_crossing_pair`]): the hits arrive in blocks and go straight to
//! the output, so memory holds the input set and one wave of blocks, never every hit.
//!
//! Inputs are sets of records, 6 numbers a 3D segment (`p0`, `p1`; x, y, z each) or 4 a
//! 2D one (x, y each), in the formats of `segbatch run`: CSV rows (an optional header row),
//! `.npy` float32 arrays of shape `(N, 6)` or `(N, 2, 3)` (`(N, 4)` or `(N, 2, 2)` in 2D),
//! or raw little-endian `f32`. The whole set is read and checked before any output is
//! written, and the output goes to a temporary file renamed onto the target only on
//! success, so a bad input gives one `error:` line (file, record, field), exit code 2 and
//! no output.

use std::ops::{ControlFlow, Range};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;
use npyz::{DType, Field, TypeStr, WriterBuilder};
use segbatch::planar::{CrossHit, Crossing, Element, Segments2, par_for_each_crossing_pair};
use segbatch::sets::{
    FirstHit, FirstHit64, PairHit, PairHit64, SegmentIndex64, SharedEndpoints,
    par_for_each_pair_within, par_for_each_pair_within64, par_for_each_self_pair_within,
    par_for_each_self_pair_within64,
};
use segbatch::{
    Flags, Options, Record, Segment, Segment64, SegmentIndex, Segments, Segments64, Soa, reference,
};

use super::format::num;
use super::io::{
    Error, Format, Input, Layout, Precision, Real, SEGMENTS2, SEGMENTS3, Sink, is_std_stream, show,
    thread_pool,
};
use super::run::{format_of, parse_radius_text, parse_wait, same_file};
use crate::error::CliError;

/// What the set commands' help texts share: inputs, memory, output, exit statuses.
macro_rules! sets_common {
    () => {
        "
Inputs: a file, - or /dev/stdin (standard input: name its --format), or a FIFO
(its first data awaited --wait seconds at most); a CSV line is at most 64 KiB.

Memory: the input set plus a constant (the grid, one block of hits of the
library's bounded size, one buffer of formatted records), whatever the number of
hits: the hits are streamed to the output as they are found, at disk speed.

The output is written to a temporary file beside the target and renamed onto it
only on success: an error, a full disk, a file-size limit (ulimit -f) or a signal
(SIGINT, SIGTERM, SIGHUP) never leaves a partial file or a temporary one. An
existing file keeps its mode; a read-only one is refused; a symlink is followed;
- (standard output), FIFOs and devices are written straight through. --threads
above the CPU count is clamped to it (with a note).

Exit status: 0 success; 2 bad arguments or data (nothing written); 1 a failure
during the run (write error, full disk, file-size limit); 141 the reader of the
output went away (the run stops at once); 128+N stopped by signal N (130 SIGINT,
143 SIGTERM, 129 SIGHUP)."
    };
}

pub const PAIRS_LONG_ABOUT: &str = concat!(
    "\
Every pair of segments within a radius, from a file of 3D segments.

Without --against: every pair i < j of the set whose closest points are at most R
apart. With --against OTHER: every pair of a segment i of the first file and a
segment j of OTHER within R. Candidates come from a uniform grid and the kernel
decides each one, so the pairs and distances are exactly those of the brute-force
query (self_pairs_within / pairs_within), in O(N log N + K) work for K pairs.

Input: 6 numbers per segment, p0 then p1 (x, y, z each), as
  CSV   6 numbers per row, optional header row (a first row without numbers)
  .npy  float32 '<f4', C order, shape (N, 6) or (N, 2, 3)
        (with --precision f64: float64 '<f8')
  raw   little-endian f32, 24 bytes per segment, no header (.f32, .raw, .bin)
        (with --precision f64: f64, 48 bytes per segment)

Precision: --precision f64 reads, computes and writes f64 (the grid prunes in a
local frame, the f64 kernel decides): what world coordinates need (UTM, ECEF),
where f32 keeps 0.5 m at 5,000 km. A float64 .npy without --precision f64 is an
error (never narrowed).

Output: one record per pair, columns i, j (0-based segment indices, u32),
distance (f32, or f64) and flags (u8): CSV with a header row (to standard output
without -o, or with -o -); raw packed little-endian 13-byte records (17 in f64);
.npy a structured array with fields i, j, distance, flags. The order is the
grid's (deterministic, the same on any thread count); sort by (i, j) if you need
it. flags is 16 when the squared distance leaves the precision's range (in f32:
closest points less than ~1.1e-19 or more than ~1.8e19 apart; the distance is
then recomputed in f64 from the two segments, as an f32 dist2 would read 0 or
inf); else 0.
",
    sets_common!()
);

pub const PAIRS_AFTER_HELP: &str = "\
Examples:
  segbatch pairs hair.csv --radius 0.01 -o near.csv
  segbatch pairs hair.f32 --radius 0.01 -o near.raw --threads 2
  segbatch pairs path.npy --radius 0.5 --skip-shared -o close.npy
  segbatch pairs agents.csv --against walls.csv --radius 0.3
  segbatch pairs ecef_tracks.npy --radius 2 --precision f64 -o close.csv";

pub const CROSS_LONG_ABOUT: &str = concat!(
    "\
Every pair of 2D segments that meet, from a file of 2D segments.

Every pair i < j that crosses, touches or overlaps (collinear), as intersect2
decides it: candidates from a uniform grid, each decided by the 2D kernel, so the
pairs are exactly the brute-force ones, in O(N log N + K) work for K pairs.

Input: 4 numbers per segment, p0 then p1 (x, y each), as
  CSV   4 numbers per row, optional header row (a first row without numbers)
  .npy  float32 '<f4', C order, shape (N, 4) or (N, 2, 2)
        (with --precision f64: float64 '<f8')
  raw   little-endian f32, 16 bytes per segment, no header (.f32, .raw, .bin)
        (with --precision f64: f64, 32 bytes per segment)

Precision: whether two segments meet is decided exactly for the coordinates as
read, in either precision. --precision f64 reads, computes and writes f64: what
street networks in UTM or other projected coordinates need (f32 keeps 0.5 m at
5,000 km). A float64 .npy without --precision f64 is an error (never narrowed).

Output: one record per pair, columns i, j (u32), kind (point or overlap; in
binary outputs a u8, 1 point, 2 overlap) and x, y (f32, or f64 with --precision
f64): the meeting point, or the start of the overlap, on segment i. CSV with a
header row (to stdout without -o, or with -o -); raw packed little-endian
17-byte records (25 in f64); .npy a structured array with fields i, j, kind, x,
y. The order is the grid's (deterministic).

--skip-shared leaves out the pairs where an end point of one segment equals an
end point of the other (pieces of a street network cut at its nodes, consecutive
pieces of a path): the crossings that are not by construction.
",
    sets_common!()
);

pub const CROSS_AFTER_HELP: &str = "\
Examples:
  segbatch cross streets.csv
  segbatch cross outline.npy -o crossings.csv --threads 2
  segbatch cross streets.npy --skip-shared -o crossings.npy
  segbatch cross utm_streets.npy --precision f64 --skip-shared -o crossings.csv";

pub const RAYCAST_LONG_ABOUT: &str = concat!(
    "\
The first wall each thick ray touches, from a file of walls and a file of rays.

A ray is p0 (its origin) and p1 (p1 - p0 is its direction), in the 3D segment
formats. A sphere of radius R moves along it from u = 0 to u = L (u in units of
the direction's length: with unit directions, a distance); the first hit is the
smallest u at which the sphere touches a wall (lowest wall index among equals)
and the contact point on the wall. R = 0 gives the first crossing; L = inf a ray
without end. The walls are indexed once (an eight-wide box tree) and each ray
visits the boxes along its path nearest first, stopping at its first hit: the
results are exactly those of the brute-force minimum of reference::first_hit
over every wall.

Input: WALLS and RAYS, 6 numbers per segment, p0 then p1 (x, y, z each), as CSV
(optional header row), .npy float32 (N, 6) or (N, 2, 3), or raw little-endian
f32 (24 bytes a segment); with --precision f64, float64 .npy and f64 raw (48
bytes a segment), computed and written in f64 (world coordinates: the hits are
those of reference::first_hit64).

Output: one record per ray that hits, columns ray, wall (u32), u, x, y, z (f32,
or f64; x, y, z the contact point on the wall): CSV with a header row (to stdout
without -o); raw packed little-endian 24-byte records (40 in f64); .npy a
structured array with those field names. Rays that hit nothing within L have no
record.
",
    sets_common!()
);

pub const RAYCAST_AFTER_HELP: &str = "\
Examples:
  segbatch raycast walls.csv sight.csv --radius 0.3 --range 50
  segbatch raycast level.npy rays.f32 --radius 0 --range 1000 -o hits.npy
  segbatch raycast utm_walls.npy utm_rays.npy --radius 0.3 --range 50 --precision f64";

/// Checks `--range` as a number >= 0 (`inf` allowed) and keeps its text, read in the run's
/// precision.
fn parse_range(text: &str) -> Result<String, String> {
    match text.trim().parse::<f64>() {
        Ok(l) if l >= 0.0 => Ok(text.trim().to_owned()),
        _ => Err(format!(
            "the range must be a number >= 0 (inf for no limit), got {text}"
        )),
    }
}

/// Arguments of `segbatch raycast`.
#[derive(Debug, Args)]
pub struct RaycastArgs {
    /// Wall segments (.csv, .npy, or raw .f32/.raw/.bin)
    #[arg(value_name = "WALLS")]
    pub walls: PathBuf,

    /// Rays: p0 the origin, p1 - p0 the direction (same formats)
    #[arg(value_name = "RAYS")]
    pub rays: PathBuf,

    /// Radius of the sphere moving along each ray (0: the first crossing)
    #[arg(long, value_name = "R", value_parser = parse_radius_text, allow_negative_numbers = true)]
    pub radius: String,

    /// How far each ray goes, in units of its direction's length
    #[arg(long, value_name = "L", value_parser = parse_range, allow_negative_numbers = true)]
    pub range: String,

    /// Input format, instead of guessing from the extensions
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<Format>,

    #[command(flatten)]
    pub out: SetOptions,
}

/// The input and output options the set subcommands share.
#[derive(Debug, Args)]
pub struct SetOptions {
    /// Output file; its format comes from its extension; - for standard output [default: CSV
    /// to standard output]
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Output format, instead of guessing from the output's extension
    #[arg(long, value_name = "FORMAT")]
    pub output_format: Option<Format>,

    /// Numbers read, computed and written as f32 or f64 (a float64 .npy needs f64)
    #[arg(long, value_name = "PRECISION", default_value = "f32")]
    pub precision: Precision,

    /// Worker threads [default: all cores; more than the CPU count are clamped to it]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,

    /// How long to wait for a FIFO input's writer to send data before giving up
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0, value_parser = parse_wait)]
    pub wait: f64,

    /// No summary on stderr
    #[arg(short, long)]
    pub quiet: bool,
}

impl SetOptions {
    /// `--wait` as a duration.
    fn wait(&self) -> Duration {
        Duration::from_secs_f64(self.wait)
    }
}

/// Arguments of `segbatch pairs`.
#[derive(Debug, Args)]
pub struct PairsArgs {
    /// Input file of 3D segments (.csv, .npy, or raw .f32/.raw/.bin)
    #[arg(value_name = "SEGMENTS")]
    pub input: PathBuf,

    /// Report the pairs within R (closest points at most R apart)
    #[arg(long, value_name = "R", value_parser = parse_radius_text, allow_negative_numbers = true)]
    pub radius: String,

    /// A second set: report pairs of a segment of INPUT and one of OTHER
    #[arg(long, value_name = "OTHER")]
    pub against: Option<PathBuf>,

    /// Leave out pairs sharing an end point (consecutive pieces of a path)
    #[arg(long, conflicts_with = "against")]
    pub skip_shared: bool,

    /// Input format, instead of guessing from the extension
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<Format>,

    #[command(flatten)]
    pub out: SetOptions,
}

/// Arguments of `segbatch cross`.
#[derive(Debug, Args)]
pub struct CrossArgs {
    /// Input file of 2D segments (.csv, .npy, or raw .f32/.raw/.bin)
    #[arg(value_name = "SEGMENTS2D")]
    pub input: PathBuf,

    /// Leave out pairs sharing an end point (street pieces meeting at a node)
    #[arg(long)]
    pub skip_shared: bool,

    /// Input format, instead of guessing from the extension
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<Format>,

    #[command(flatten)]
    pub out: SetOptions,
}

// ---------------------------------------------------------------------------------------
// Input: a whole set of records
// ---------------------------------------------------------------------------------------

/// Records read per chunk.
const CHUNK_RECORDS: usize = 64 * 1024;

/// A set of `C`-number records in one precision that [`read_set`] fills: a batch of `f32`
/// or of `f64` columns.
pub trait SetOf<const C: usize>: Sized {
    /// The number type of the records.
    type Real: Real;
    /// An empty set with room for `n` records.
    fn with_capacity(n: usize) -> Self;
    /// Appends records given as rows of `C` numbers.
    fn extend_rows(&mut self, rows: &[[Self::Real; C]]);
}

macro_rules! set_of {
    ($real:ty) => {
        impl<T: Record<C, $real>, const C: usize> SetOf<C> for Soa<T, C, $real> {
            type Real = $real;
            fn with_capacity(n: usize) -> Self {
                Soa::with_capacity(n)
            }
            fn extend_rows(&mut self, rows: &[[$real; C]]) {
                self.extend_from_slice(bytemuck::cast_slice::<[$real; C], T>(rows));
            }
        }
    };
}
set_of!(f32);
set_of!(f64);

/// Reads the whole set of `C`-number records in `path` through the readers `run` uses
/// ([`Input`]: CSV lines of at most 64 KiB, `.npy` headers checked before the data, raw
/// sizes, `-` and `/dev/stdin`, FIFOs opened without blocking and awaited `wait` at most),
/// in the set's precision (a float64 `.npy` read as `f32` is an error that says so),
/// checking everything: a bad file is one message naming the file, the record and the
/// field. Memory is the set and one chunk.
pub fn read_set<S: SetOf<C>, const C: usize>(
    path: &Path,
    layout: &'static Layout,
    format: Format,
    wait: Duration,
) -> Result<S, CliError> {
    let mut input = Input::<S::Real, C>::open(path, layout, format, wait)?;
    let mut set = S::with_capacity(0);
    if input.total_bytes > 0
        && let Some(n) = input.total_pairs.and_then(|n| usize::try_from(n).ok())
    {
        // A regular file whose size was checked against its records.
        set = S::with_capacity(n);
    }
    let mut chunk: Vec<[S::Real; C]> = Vec::new();
    while input.read_chunk(&mut chunk, CHUNK_RECORDS)? > 0 {
        set.extend_rows(&chunk);
    }
    Ok(set)
}

// ---------------------------------------------------------------------------------------
// Output: a stream of hit records
// ---------------------------------------------------------------------------------------

/// A column of the hit records.
#[derive(Clone, Copy)]
enum Col {
    U32(&'static str),
    U8(&'static str),
    /// A number in the run's precision (`f32` or `f64`).
    Real(&'static str),
}

const PAIR_COLUMNS: [Col; 4] = [
    Col::U32("i"),
    Col::U32("j"),
    Col::Real("distance"),
    Col::U8("flags"),
];
const CROSS_COLUMNS: [Col; 5] = [
    Col::U32("i"),
    Col::U32("j"),
    Col::U8("kind"),
    Col::Real("x"),
    Col::Real("y"),
];

const RAYCAST_COLUMNS: [Col; 6] = [
    Col::U32("ray"),
    Col::U32("wall"),
    Col::Real("u"),
    Col::Real("x"),
    Col::Real("y"),
    Col::Real("z"),
];

/// One value of a hit record.
#[derive(Clone, Copy)]
enum Value {
    U32(u32),
    U8(u8),
    Kind(Crossing),
    F32(f32),
    F64(f64),
}

/// `x` as a record value in its own precision.
fn real<R: Real>(x: R) -> Value {
    match R::PRECISION {
        // Exact: `x` is an f32.
        Precision::F32 => Value::F32(x.into() as f32),
        Precision::F64 => Value::F64(x.into()),
    }
}

/// Hits formatted and written at a time: the bound on the text the writer holds (about
/// 1 MB of CSV), whatever the size of the blocks the query hands over.
const HITS_PER_WRITE: usize = 16 * 1024;

/// A stream of hit records in one format, to a [`Sink`].
struct HitWriter {
    name: String,
    sink: Sink,
    format: Format,
    columns: &'static [Col],
    /// The precision of the [`Col::Real`] columns.
    precision: Precision,
    rows: u64,
    scratch: Vec<u8>,
    /// The write that failed inside a streamed query (see [`HitWriter::write_block`]).
    failed: Option<Error>,
}

impl HitWriter {
    /// Opens `target` (`-` is standard output) before any work; a `.npy` output needs a
    /// regular file (its header, written at the end, holds the row count).
    fn create(
        target: &Path,
        format: Format,
        columns: &'static [Col],
        precision: Precision,
    ) -> Result<Self, Error> {
        let (name, sink) = Sink::open(target)?;
        if format == Format::Npy && sink.is_stream() {
            return Err(Error::Data(format!(
                "{name}: a .npy output needs a regular file (its header holds the row count, \
                 known only at the end): pass -o FILE.npy, or use CSV or raw"
            )));
        }
        let mut w = HitWriter {
            name,
            sink,
            format,
            columns,
            precision,
            rows: 0,
            scratch: Vec::with_capacity(HITS_PER_WRITE * 64),
            failed: None,
        };
        if format == Format::Csv {
            let mut header = columns
                .iter()
                .map(|c| match c {
                    Col::U32(n) | Col::U8(n) | Col::Real(n) => *n,
                })
                .collect::<Vec<_>>()
                .join(",");
            header.push('\n');
            w.sink
                .write_all(header.as_bytes())
                .map_err(|e| Sink::write_error(&w.name, &e))?;
        }
        Ok(w)
    }

    /// Appends one record to the scratch buffer.
    fn record(&mut self, values: &[Value]) {
        let out = &mut self.scratch;
        match self.format {
            Format::Csv => {
                for (k, v) in values.iter().enumerate() {
                    if k > 0 {
                        out.push(b',');
                    }
                    match *v {
                        Value::U32(x) => out.extend_from_slice(x.to_string().as_bytes()),
                        Value::U8(x) => out.extend_from_slice(x.to_string().as_bytes()),
                        Value::Kind(c) => out.extend_from_slice(kind_name(c).as_bytes()),
                        Value::F32(x) => out.extend_from_slice(num(x).as_bytes()),
                        Value::F64(x) => out.extend_from_slice(num(x).as_bytes()),
                    }
                }
                out.push(b'\n');
            }
            Format::Raw | Format::Npy => {
                for v in values {
                    match *v {
                        Value::U32(x) => out.extend_from_slice(&x.to_le_bytes()),
                        Value::U8(x) => out.push(x),
                        Value::Kind(c) => out.push(c as u8),
                        Value::F32(x) => out.extend_from_slice(&x.to_le_bytes()),
                        Value::F64(x) => out.extend_from_slice(&x.to_le_bytes()),
                    }
                }
            }
        }
        self.rows += 1;
    }

    /// Writes the records in the scratch buffer and empties it.
    fn flush_records(&mut self) -> Result<(), Error> {
        let result = self.sink.write_all(&self.scratch);
        self.scratch.clear();
        result.map_err(|e| Sink::write_error(&self.name, &e))
    }

    /// Writes the records of `hits`, [`HITS_PER_WRITE`] at a time, each made by `values`.
    fn write<H>(
        &mut self,
        hits: &[H],
        mut values: impl FnMut(&H, &mut dyn FnMut(&[Value])),
    ) -> Result<(), Error> {
        for part in hits.chunks(HITS_PER_WRITE) {
            for h in part {
                values(h, &mut |v| self.record(v));
            }
            self.flush_records()?;
        }
        Ok(())
    }

    /// [`HitWriter::write`] as the sink of a streamed query: a failure (a closed pipe, a
    /// full disk, a file-size limit) is kept for [`HitWriter::finish`] and stops the query
    /// at once, so nothing more is computed or written.
    fn write_block<H>(
        &mut self,
        hits: &[H],
        values: impl FnMut(&H, &mut dyn FnMut(&[Value])),
    ) -> ControlFlow<()> {
        match self.write(hits, values) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                self.failed = Some(e);
                ControlFlow::Break(())
            }
        }
    }

    /// The `.npy` header for the records written.
    fn npy_header(&self) -> Vec<u8> {
        let plain = |t: &str| DType::Plain(t.parse::<TypeStr>().expect("a valid type string"));
        let fields = self
            .columns
            .iter()
            .map(|c| {
                let (name, t) = match c {
                    Col::U32(n) => (n, "<u4"),
                    Col::U8(n) => (n, "|u1"),
                    Col::Real(n) => (n, self.precision.npy_descr()),
                };
                Field {
                    name: (*name).to_owned(),
                    dtype: plain(t),
                }
            })
            .collect();
        let mut bytes = Vec::new();
        npyz::WriteOptions::new_header_only()
            .dtype(DType::Record(fields))
            .shape(&[self.rows])
            .writer(&mut bytes)
            .write_header_only()
            .expect("writing to a Vec cannot fail");
        bytes
    }

    /// Finishes the output: the `.npy` header (written first, then a copy of the records),
    /// then the rename onto the target. Returns the number of records, or the failure that
    /// stopped a streamed query (the temporary file is then removed, the target untouched).
    fn finish(mut self) -> Result<u64, Error> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        let header = (self.format == Format::Npy).then(|| self.npy_header());
        self.sink.finish(&self.name, header.as_deref())?;
        Ok(self.rows)
    }
}

fn kind_name(c: Crossing) -> &'static str {
    match c {
        Crossing::Point => "point",
        Crossing::Overlap => "overlap",
        Crossing::Disjoint => "disjoint",
    }
}

// ---------------------------------------------------------------------------------------
// The subcommands
// ---------------------------------------------------------------------------------------

/// The input and output formats, and the checks shared by the set subcommands.
fn formats(
    inputs: &[&Path],
    format: Option<Format>,
    output: &Path,
    output_format: Option<Format>,
) -> Result<(Vec<Format>, Format), CliError> {
    let ins = inputs
        .iter()
        .map(|p| format_of(p, format, "input"))
        .collect::<Result<Vec<_>, _>>()?;
    let out = match output_format.or_else(|| Format::from_path(output)) {
        Some(f) => f,
        None if is_std_stream(output) => Format::Csv,
        None => ins[0],
    };
    for input in inputs {
        if same_file(input, output) {
            return Err(CliError::usage(format!(
                "{}: the output is an input file; write the results to another file",
                show(output)
            )));
        }
    }
    Ok((ins, out))
}

fn library_error(e: segbatch::Error) -> CliError {
    CliError::usage(format!("the query failed: {e}"))
}

/// The output path: `-o FILE`, or `-` (standard output) without it.
fn output_path(out: &SetOptions) -> &Path {
    out.output.as_deref().unwrap_or(Path::new("-"))
}

/// Below this coordinate magnitude a pair's distance may be resolved below f32's normal
/// range (the kernel's accuracy is a few ε times the pair's scale): only such pairs can
/// have a squared distance that underflowed rather than one that is 0 within the bar.
const TINY_SCALE: f32 = 1e-12;

/// A pair's record: `i, j, distance, flags`. A squared distance outside f32's normal
/// range (0 or subnormal for a pair of tiny coordinates: closest points less than about
/// 1.1e-19 apart; `inf`: more than about 1.8e19) cannot carry the distance, so it is
/// recomputed from the two segments in f64: when that distance is not 0, it is written
/// (rounded to f32) with the flag 16 ([`Flags::DIST2_OUT_OF_RANGE`]).
fn pair_values(h: &PairHit, a: &Segments, b: &Segments) -> [Value; 4] {
    let mut distance = h.dist2.sqrt();
    let mut flags = 0;
    if !(h.dist2 >= f32::MIN_POSITIVE && h.dist2.is_finite())
        && let (Some(sa), Some(sb)) = (a.get(h.i as usize), b.get(h.j as usize))
    {
        let scale = [sa.p0, sa.p1, sb.p0, sb.p1]
            .iter()
            .flatten()
            .fold(0.0f32, |m, x| m.max(x.abs()));
        if h.dist2.is_infinite() || scale < TINY_SCALE {
            let wide = |s: Segment| Segment64::new(s.p0.map(f64::from), s.p1.map(f64::from));
            let exact = reference::closest_points64(&wide(sa), &wide(sb)).distance();
            if exact != 0.0 && exact.is_finite() {
                distance = exact as f32;
                flags = Flags::DIST2_OUT_OF_RANGE.bits();
            }
        }
    }
    [
        Value::U32(h.i),
        Value::U32(h.j),
        Value::F32(distance),
        Value::U8(flags),
    ]
}

/// `text` (a `--radius` or `--range` checked by its parser) in the run's precision `R`; an
/// f32 run refuses a finite number beyond f32's range.
fn number<R: Real>(text: &str, what: &str) -> Result<R, CliError> {
    let x: R = text
        .parse()
        .map_err(|_| CliError::usage(format!("--{what}: '{text}' is not a number")))?;
    let wide: f64 = x.into();
    let asked: f64 = text.parse().unwrap_or(f64::INFINITY);
    if wide.is_infinite() && asked.is_finite() {
        return Err(CliError::usage(format!(
            "--{what} {text} is beyond f32's range: pass --precision f64"
        )));
    }
    Ok(x)
}

/// The set commands' queries in one precision: the library's `f32` set queries and index
/// or their `f64` twins, through one interface, so each command is written once.
trait SetReal: Real {
    /// A set of 3D segments in this precision.
    type Set: SetOf<6, Real = Self> + Sync;
    /// A hit of the streamed pair queries.
    type Hit;
    /// The index of the first hits.
    type Index;
    /// The number of segments.
    fn count(set: &Self::Set) -> usize;
    /// Every pair `i < j` of `set` within `radius`, streamed to `sink`, on all threads.
    fn self_pairs(
        set: &Self::Set,
        radius: Self,
        shared: SharedEndpoints,
        sink: &mut dyn FnMut(&[Self::Hit]) -> ControlFlow<()>,
    ) -> Result<(), segbatch::Error>;
    /// Every pair of `a[i]` and `b[j]` within `radius`, streamed to `sink`, on all threads.
    fn pairs(
        a: &Self::Set,
        b: &Self::Set,
        radius: Self,
        sink: &mut dyn FnMut(&[Self::Hit]) -> ControlFlow<()>,
    ) -> Result<(), segbatch::Error>;
    /// A pair's record: `i, j, distance, flags`.
    fn pair_values(h: &Self::Hit, a: &Self::Set, b: &Self::Set) -> [Value; 4];
    /// The index over `walls`.
    fn index(walls: &Self::Set) -> Result<Self::Index, segbatch::Error>;
    /// The first hits of the rays `rays[block]`, on all threads.
    fn first_hits(
        index: &Self::Index,
        rays: &Self::Set,
        block: Range<usize>,
        radius: Self,
        range: Self,
    ) -> Result<Vec<Option<FirstHit<Self>>>, segbatch::Error>;
}

impl SetReal for f32 {
    type Set = Segments;
    type Hit = PairHit;
    type Index = SegmentIndex;
    fn count(set: &Segments) -> usize {
        set.len()
    }
    fn self_pairs(
        set: &Segments,
        radius: f32,
        shared: SharedEndpoints,
        sink: &mut dyn FnMut(&[PairHit]) -> ControlFlow<()>,
    ) -> Result<(), segbatch::Error> {
        par_for_each_self_pair_within(set, radius, shared, &Options::SEGMENTS, sink)
    }
    fn pairs(
        a: &Segments,
        b: &Segments,
        radius: f32,
        sink: &mut dyn FnMut(&[PairHit]) -> ControlFlow<()>,
    ) -> Result<(), segbatch::Error> {
        par_for_each_pair_within(a, b, radius, &Options::SEGMENTS, sink)
    }
    fn pair_values(h: &PairHit, a: &Segments, b: &Segments) -> [Value; 4] {
        pair_values(h, a, b)
    }
    fn index(walls: &Segments) -> Result<SegmentIndex, segbatch::Error> {
        SegmentIndex::par_new(walls)
    }
    fn first_hits(
        index: &SegmentIndex,
        rays: &Segments,
        block: Range<usize>,
        radius: f32,
        range: f32,
    ) -> Result<Vec<Option<FirstHit>>, segbatch::Error> {
        index.par_first_hits(rays.view(block), radius, range)
    }
}

impl SetReal for f64 {
    type Set = Segments64;
    type Hit = PairHit64;
    type Index = SegmentIndex64;
    fn count(set: &Segments64) -> usize {
        set.len()
    }
    fn self_pairs(
        set: &Segments64,
        radius: f64,
        shared: SharedEndpoints,
        sink: &mut dyn FnMut(&[PairHit64]) -> ControlFlow<()>,
    ) -> Result<(), segbatch::Error> {
        par_for_each_self_pair_within64(set, radius, shared, &Options::SEGMENTS, sink)
    }
    fn pairs(
        a: &Segments64,
        b: &Segments64,
        radius: f64,
        sink: &mut dyn FnMut(&[PairHit64]) -> ControlFlow<()>,
    ) -> Result<(), segbatch::Error> {
        par_for_each_pair_within64(a, b, radius, &Options::SEGMENTS, sink)
    }
    /// In f64 the squared distance of any two segments of ordinary coordinates is a normal
    /// number: the flag 16 marks only one that left f64's range (coordinates beyond about
    /// 1e154, or closest points less than about 1.5e-154 apart), whose distance is then
    /// the square root of the kernel's value.
    fn pair_values(h: &PairHit64, _: &Segments64, _: &Segments64) -> [Value; 4] {
        let normal = h.dist2 == 0.0 || (h.dist2 >= f64::MIN_POSITIVE && h.dist2.is_finite());
        let flags = if normal {
            0
        } else {
            Flags::DIST2_OUT_OF_RANGE.bits()
        };
        [
            Value::U32(h.i),
            Value::U32(h.j),
            Value::F64(h.dist2.sqrt()),
            Value::U8(flags),
        ]
    }
    fn index(walls: &Segments64) -> Result<SegmentIndex64, segbatch::Error> {
        SegmentIndex64::new(walls)
    }
    fn first_hits(
        index: &SegmentIndex64,
        rays: &Segments64,
        block: Range<usize>,
        radius: f64,
        range: f64,
    ) -> Result<Vec<Option<FirstHit64>>, segbatch::Error> {
        index.par_first_hits(rays.view(block), radius, range)
    }
}

/// Runs `segbatch pairs`.
pub fn run_pairs(args: &PairsArgs) -> Result<(), CliError> {
    match args.out.precision {
        Precision::F32 => pairs_in::<f32>(args),
        Precision::F64 => pairs_in::<f64>(args),
    }
}

/// Runs `segbatch pairs` in the precision `R`.
fn pairs_in<R: SetReal>(args: &PairsArgs) -> Result<(), CliError> {
    let start = Instant::now();
    let radius: R = number(&args.radius, "radius")?;
    let mut inputs = vec![args.input.as_path()];
    inputs.extend(args.against.as_deref());
    let target = output_path(&args.out);
    let (in_formats, out_format) = formats(&inputs, args.format, target, args.out.output_format)?;
    let pool = thread_pool(args.out.threads, "pairs", args.out.quiet)?;
    let wait = args.out.wait();
    let a: R::Set = read_set(&args.input, &SEGMENTS3, in_formats[0], wait)?;
    let b: Option<R::Set> = match &args.against {
        Some(path) => Some(read_set(path, &SEGMENTS3, in_formats[1], wait)?),
        None => None,
    };
    let read = start.elapsed().as_secs_f64();
    let mut writer = HitWriter::create(target, out_format, &PAIR_COLUMNS, R::PRECISION)?;
    let shared = if args.skip_shared {
        SharedEndpoints::Skip
    } else {
        SharedEndpoints::Keep
    };
    let other = b.as_ref().unwrap_or(&a);
    let query = pool.install(|| {
        let mut sink = |block: &[R::Hit]| {
            writer.write_block(block, |h, put| put(&R::pair_values(h, &a, other)))
        };
        match &b {
            None => R::self_pairs(&a, radius, shared, &mut sink),
            Some(b) => R::pairs(&a, b, radius, &mut sink),
        }
    });
    query.map_err(library_error)?;
    let records = writer.finish()?;
    if !args.out.quiet {
        let secs = start.elapsed().as_secs_f64();
        let against = b.as_ref().map_or(String::new(), |b| {
            format!(
                " against {} ({} segments)",
                show(args.against.as_deref().expect("b comes from --against")),
                R::count(b)
            )
        });
        eprintln!(
            "segbatch pairs: {} segments from {}{against} -> {records} pairs within {} in \
             {} ({}, {}) in {secs:.2} s (reading {read:.2} s; {:.1} M segments/s)",
            R::count(&a),
            show(&args.input),
            args.radius,
            show(target),
            out_format.name(),
            R::PRECISION.name(),
            (R::count(&a) + b.as_ref().map_or(0, R::count)) as f64 / secs / 1e6
        );
    }
    Ok(())
}

/// Runs `segbatch cross`.
pub fn run_cross(args: &CrossArgs) -> Result<(), CliError> {
    match args.out.precision {
        Precision::F32 => cross_in::<f32>(args),
        Precision::F64 => cross_in::<f64>(args),
    }
}

/// Runs `segbatch cross` in the precision `E`: read, decided (exactly, in either) and
/// written.
fn cross_in<E>(args: &CrossArgs) -> Result<(), CliError>
where
    E: Real + Element,
    Segments2<E>: SetOf<4, Real = E>,
{
    let start = Instant::now();
    let target = output_path(&args.out);
    let (in_formats, out_format) =
        formats(&[&args.input], args.format, target, args.out.output_format)?;
    let pool = thread_pool(args.out.threads, "cross", args.out.quiet)?;
    let set: Segments2<E> = read_set(&args.input, &SEGMENTS2, in_formats[0], args.out.wait())?;
    let mut writer = HitWriter::create(target, out_format, &CROSS_COLUMNS, E::PRECISION)?;
    let shared = if args.skip_shared {
        SharedEndpoints::Skip
    } else {
        SharedEndpoints::Keep
    };
    let query = pool.install(|| {
        par_for_each_crossing_pair(&set, shared, |block: &[CrossHit<E>]| {
            writer.write_block(block, |h, put| {
                let p = h.point(&set).expect("the hit names a segment of the set");
                put(&[
                    Value::U32(h.i),
                    Value::U32(h.j),
                    Value::Kind(h.kind),
                    real(p[0]),
                    real(p[1]),
                ]);
            })
        })
    });
    query.map_err(library_error)?;
    let records = writer.finish()?;
    if !args.out.quiet {
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "segbatch cross: {} segments from {} -> {records} meeting pairs in {} ({}, {}) in \
             {secs:.2} s",
            set.len(),
            show(&args.input),
            show(target),
            out_format.name(),
            E::PRECISION.name(),
        );
    }
    Ok(())
}

/// Runs `segbatch raycast`.
pub fn run_raycast(args: &RaycastArgs) -> Result<(), CliError> {
    match args.out.precision {
        Precision::F32 => raycast_in::<f32>(args),
        Precision::F64 => raycast_in::<f64>(args),
    }
}

/// Runs `segbatch raycast` in the precision `R`.
fn raycast_in<R: SetReal>(args: &RaycastArgs) -> Result<(), CliError> {
    let start = Instant::now();
    let radius: R = number(&args.radius, "radius")?;
    let range: R = number(&args.range, "range")?;
    let target = output_path(&args.out);
    let (in_formats, out_format) = formats(
        &[&args.walls, &args.rays],
        args.format,
        target,
        args.out.output_format,
    )?;
    if args.walls == args.rays && is_std_stream(&args.walls) {
        return Err(CliError::usage(
            "WALLS and RAYS are both standard input: read one of them from a file",
        ));
    }
    let pool = thread_pool(args.out.threads, "raycast", args.out.quiet)?;
    let wait = args.out.wait();
    let walls: R::Set = read_set(&args.walls, &SEGMENTS3, in_formats[0], wait)?;
    let rays: R::Set = read_set(&args.rays, &SEGMENTS3, in_formats[1], wait)?;
    let mut writer = HitWriter::create(target, out_format, &RAYCAST_COLUMNS, R::PRECISION)?;
    // Rays in blocks, so the results held at once stay bounded whatever the ray count.
    const RAYS_PER_BLOCK: usize = 1 << 16;
    pool.install(|| -> Result<(), CliError> {
        let index = R::index(&walls).map_err(library_error)?;
        let mut first = 0;
        while first < R::count(&rays) {
            let end = R::count(&rays).min(first + RAYS_PER_BLOCK);
            let hits =
                R::first_hits(&index, &rays, first..end, radius, range).map_err(library_error)?;
            let rows: Vec<(u32, FirstHit<R>)> = hits
                .iter()
                .enumerate()
                .filter_map(|(k, h)| h.map(|h| ((first + k) as u32, h)))
                .collect();
            writer.write(&rows, |(ray, h), put| {
                put(&[
                    Value::U32(*ray),
                    Value::U32(h.index),
                    real(h.u),
                    real(h.point[0]),
                    real(h.point[1]),
                    real(h.point[2]),
                ]);
            })?;
            first = end;
        }
        Ok(())
    })?;
    let records = writer.finish()?;
    if !args.out.quiet {
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "segbatch raycast: {} rays from {} against {} walls from {} (radius {}, range {}) \
             -> {records} hits in {} ({}, {}) in {secs:.2} s",
            R::count(&rays),
            show(&args.rays),
            R::count(&walls),
            show(&args.walls),
            args.radius,
            args.range,
            show(target),
            out_format.name(),
            R::PRECISION.name(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_records_and_headers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.csv");
        std::fs::write(&path, "x0,y0,x1,y1\n0,0,1,1\n 2 , 3 ,4,5\n").unwrap();
        let read = |path: &Path| {
            read_set::<Segments2, 4>(path, &SEGMENTS2, Format::Csv, Duration::ZERO)
                .map_err(|e| e.message)
        };
        let set = read(&path).unwrap();
        assert_eq!(set.len(), 2);
        assert_eq!(
            set.get(1),
            Some(segbatch::planar::Segment2::new([2.0, 3.0], [4.0, 5.0]))
        );
        std::fs::write(&path, "0,0,1,1\n0,0,1\n").unwrap();
        let err = read(&path).unwrap_err();
        assert!(
            err.contains("line 2 (segment 1): 3 columns, expected 4"),
            "{err}"
        );
        std::fs::write(&path, "0,0,0,1,1,1\n0,0,0,1,x,1\n").unwrap();
        let err = read_set::<Segments, 6>(&path, &SEGMENTS3, Format::Csv, Duration::ZERO)
            .map_err(|e| e.message)
            .unwrap_err();
        assert!(
            err.contains("column 5 (p1.y): 'x' is not a number"),
            "{err}"
        );
    }
}
