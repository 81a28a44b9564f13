//! `segbatch pairs`, `segbatch cross` and `segbatch raycast`: the set queries over whole
//! files.
//!
//! `pairs` reads one set of 3D segments (or two, with `--against`) and writes every pair
//! within a radius; `cross` reads a set of 2D segments and writes every pair that meets;
//! `raycast` indexes a set of walls ([`segbatch::SegmentIndex`]) and writes the first hit of
//! every thick ray of a second file (rays in blocks of a million, so the results held at
//! once stay bounded).
//! Both run the library's grid-pruned streaming forms
//! ([`segbatch::par_for_each_self_pair_within`], [`segbatch::par_for_each_pair_within`],
//! [`segbatch::par_for_each_crossing_pair`]): the hits arrive in blocks and go straight to
//! the output, so memory holds the input set and one wave of blocks, never every hit.
//!
//! Inputs are sets of records, 6 numbers a 3D segment (`p0`, `p1`; x, y, z each) or 4 a
//! 2D one (x, y each), in the formats of `segbatch run`: CSV rows (an optional header row),
//! `.npy` float32 arrays of shape `(N, 6)` or `(N, 2, 3)` (`(N, 4)` or `(N, 2, 2)` in 2D),
//! or raw little-endian `f32`. The whole set is read and checked before any output is
//! written, and the output goes to a temporary file renamed onto the target only on
//! success, so a bad input gives one `error:` line (file, record, field), exit code 2 and
//! no output.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use npyz::{DType, Field, TypeStr, WriterBuilder};
use segbatch::{
    CrossHit, Crossing, FirstHit, Options, PairHit, Record, Segment, Segment2, SegmentIndex,
    Segments, Segments2, SharedEndpoints, Soa, par_for_each_crossing_pair,
    par_for_each_pair_within, par_for_each_self_pair_within,
};

use super::CliError;
use super::cleanup::{self, Temp};
use super::format::num;
use super::io::{Format, resolve_links, show};
use super::run::{format_of, parse_radius, same_file};

pub const PAIRS_LONG_ABOUT: &str = "\
Every pair of segments within a radius, from a file of 3D segments.

Without --against: every pair i < j of the set whose closest points are at most R
apart. With --against OTHER: every pair of a segment i of the first file and a
segment j of OTHER within R. Candidates come from a uniform grid and the kernel
decides each one, so the pairs and distances are exactly those of the brute-force
query (self_pairs_within / pairs_within), in O(N log N + K) work for K pairs.

Input: 6 numbers per segment, p0 then p1 (x, y, z each), as
  CSV   6 numbers per row, optional header row (a first row without numbers)
  .npy  float32 '<f4', C order, shape (N, 6) or (N, 2, 3)
  raw   little-endian f32, 24 bytes per segment, no header (.f32, .raw, .bin)

Output: one record per pair, columns i, j (0-based segment indices, u32) and
distance (f32): CSV with a header row (to stdout without -o); raw packed
little-endian 12-byte records; .npy a structured array with fields i, j,
distance. The order is the grid's (deterministic, the same on any thread count);
sort by (i, j) if you need it.

The hits are streamed to the output as they are found: memory holds the input set
(about 60 bytes per segment with the grid) and one wave of hits, however many
pairs there are. The output is written to a temporary file and renamed onto the
target only on success.";

pub const PAIRS_AFTER_HELP: &str = "\
Examples:
  segbatch pairs hair.csv --radius 0.01 -o near.csv
  segbatch pairs hair.f32 --radius 0.01 -o near.raw --threads 2
  segbatch pairs path.npy --radius 0.5 --skip-shared -o close.npy
  segbatch pairs agents.csv --against walls.csv --radius 0.3";

pub const CROSS_LONG_ABOUT: &str = "\
Every pair of 2D segments that meet, from a file of 2D segments.

Every pair i < j that crosses, touches or overlaps (collinear), as intersect2
decides it: candidates from a uniform grid, each decided by the 2D kernel, so the
pairs are exactly the brute-force ones, in O(N log N + K) work for K pairs.

Input: 4 numbers per segment, p0 then p1 (x, y each), as
  CSV   4 numbers per row, optional header row (a first row without numbers)
  .npy  float32 '<f4', C order, shape (N, 4) or (N, 2, 2)
  raw   little-endian f32, 16 bytes per segment, no header (.f32, .raw, .bin)

Output: one record per pair, columns i, j (u32), kind (point or overlap; in
binary outputs a u8, 1 point, 2 overlap) and x, y (f32): the meeting point, or
the start of the overlap, on segment i. CSV with a header row (to stdout without
-o); raw packed little-endian 17-byte records; .npy a structured array with
fields i, j, kind, x, y. The order is the grid's (deterministic).";

pub const CROSS_AFTER_HELP: &str = "\
Examples:
  segbatch cross streets.csv
  segbatch cross outline.npy -o crossings.csv --threads 2";

pub const RAYCAST_LONG_ABOUT: &str = "\
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
f32 (24 bytes a segment).

Output: one record per ray that hits, columns ray, wall (u32), u, x, y, z (f32;
x, y, z the contact point on the wall): CSV with a header row (to stdout without
-o); raw packed little-endian 24-byte records; .npy a structured array with
those field names. Rays that hit nothing within L have no record.";

pub const RAYCAST_AFTER_HELP: &str = "\
Examples:
  segbatch raycast walls.csv sight.csv --radius 0.3 --range 50
  segbatch raycast level.npy rays.f32 --radius 0 --range 1000 -o hits.npy";

fn parse_range(text: &str) -> Result<f32, String> {
    match text.trim().parse::<f32>() {
        Ok(l) if l >= 0.0 => Ok(l),
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
    #[arg(long, value_name = "R", value_parser = parse_radius)]
    pub radius: f32,

    /// How far each ray goes, in units of its direction's length
    #[arg(long, value_name = "L", value_parser = parse_range)]
    pub range: f32,

    /// Input format, instead of guessing from the extensions
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<Format>,

    #[command(flatten)]
    pub out: SetOutput,
}

/// The output options the set subcommands share.
#[derive(Debug, Args)]
pub struct SetOutput {
    /// Output file; its format comes from its extension [default: CSV to stdout]
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Output format, instead of guessing from the output's extension
    #[arg(long, value_name = "FORMAT")]
    pub output_format: Option<Format>,

    /// Worker threads [default: all cores]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,

    /// No summary on stderr
    #[arg(short, long)]
    pub quiet: bool,
}

/// Arguments of `segbatch pairs`.
#[derive(Debug, Args)]
pub struct PairsArgs {
    /// Input file of 3D segments (.csv, .npy, or raw .f32/.raw/.bin)
    #[arg(value_name = "SEGMENTS")]
    pub input: PathBuf,

    /// Report the pairs within R (closest points at most R apart)
    #[arg(long, value_name = "R", value_parser = parse_radius)]
    pub radius: f32,

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
    pub out: SetOutput,
}

/// Arguments of `segbatch cross`.
#[derive(Debug, Args)]
pub struct CrossArgs {
    /// Input file of 2D segments (.csv, .npy, or raw .f32/.raw/.bin)
    #[arg(value_name = "SEGMENTS2D")]
    pub input: PathBuf,

    /// Input format, instead of guessing from the extension
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<Format>,

    #[command(flatten)]
    pub out: SetOutput,
}

// ---------------------------------------------------------------------------------------
// Input: a whole set of records
// ---------------------------------------------------------------------------------------

/// Field names of a record of `C` numbers, for messages.
fn field_names(c: usize) -> &'static [&'static str] {
    if c == 6 {
        &["p0.x", "p0.y", "p0.z", "p1.x", "p1.y", "p1.z"]
    } else {
        &["p0.x", "p0.y", "p1.x", "p1.y"]
    }
}

/// Records read per chunk of a binary input.
const CHUNK_RECORDS: usize = 64 * 1024;

/// Reads the whole set of `C`-number records in `path` (see the module docs), checking
/// everything: a bad file is one message naming the file, the record and the field.
pub fn read_set<T: Record<C>, const C: usize>(
    path: &Path,
    format: Format,
) -> Result<Soa<T, C>, String> {
    let name = show(path);
    let file = File::open(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => format!("{name}: no such file"),
        _ => format!("{name}: cannot open: {e}"),
    })?;
    let meta = file
        .metadata()
        .map_err(|e| format!("{name}: cannot read: {e}"))?;
    if meta.is_dir() {
        return Err(format!("{name}: is a directory, not a file"));
    }
    let size = meta.len();
    if size == 0 {
        return Err(format!("{name}: the file is empty (no segments)"));
    }
    let record_bytes = 4 * C as u64;
    match format {
        Format::Raw => {
            if size % record_bytes != 0 {
                return Err(format!(
                    "{name}: raw f32 input of {size} bytes is not a multiple of \
                     {record_bytes} bytes ({C} f32 per segment): segment {} is incomplete \
                     ({} of {record_bytes} bytes)",
                    size / record_bytes,
                    size % record_bytes
                ));
            }
            read_binary(&name, BufReader::new(file), size / record_bytes)
        }
        Format::Npy => {
            let mut file = file;
            let count = npy_records(&name, &mut file, size, C)?;
            read_binary(&name, BufReader::new(file), count)
        }
        Format::Csv => read_csv(&name, file),
    }
}

fn read_binary<T: Record<C>, const C: usize>(
    name: &str,
    mut reader: impl Read,
    count: u64,
) -> Result<Soa<T, C>, String> {
    let count = usize::try_from(count).map_err(|_| format!("{name}: too many segments"))?;
    let mut set = Soa::with_capacity(count);
    let mut buf: Vec<T> = Vec::with_capacity(CHUNK_RECORDS.min(count));
    let mut done = 0;
    while done < count {
        let n = CHUNK_RECORDS.min(count - done);
        buf.clear();
        buf.resize(n, T::zeroed());
        reader
            .read_exact(bytemuck::cast_slice_mut(&mut buf[..]))
            .map_err(|e| format!("{name}: reading segment {done}: {e}"))?;
        if cfg!(target_endian = "big") {
            for x in bytemuck::cast_slice_mut::<T, f32>(&mut buf[..]) {
                *x = f32::from_bits(u32::from_le(x.to_bits()));
            }
        }
        set.extend_from_slice(&buf);
        done += n;
    }
    Ok(set)
}

/// Checks a `.npy` header (`<f4`, C order, shape `(N, C)` or `(N, 2, C/2)`, the data size)
/// and returns `N`, the file positioned at the data.
fn npy_records(name: &str, file: &mut File, size: u64, c: usize) -> Result<u64, String> {
    let header = npyz::NpyHeader::from_reader(&mut *file)
        .map_err(|e| format!("{name}: not a valid .npy file: {e}"))?;
    let header_bytes = file
        .stream_position()
        .map_err(|e| format!("{name}: cannot read: {e}"))?;
    let convert = "convert with arr.astype('<f4')";
    match header.dtype() {
        DType::Plain(ts) => {
            let text = ts.to_string();
            if text != "<f4" {
                return Err(format!(
                    "{name}: .npy dtype is '{text}', expected little-endian float32 '<f4': \
                     {convert}"
                ));
            }
        }
        other => {
            return Err(format!(
                "{name}: .npy dtype is the structured type {}, expected float32 '<f4'",
                other.descr()
            ));
        }
    }
    if header.order() == npyz::Order::Fortran {
        return Err(format!(
            "{name}: .npy array is in Fortran order, expected C order: save \
             np.ascontiguousarray(arr)"
        ));
    }
    let shape = header.shape().to_vec();
    let shape_text = format!(
        "({})",
        shape
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
    let (c, half) = (c as u64, c as u64 / 2);
    let count = match shape.as_slice() {
        [n, k] if *k == c => *n,
        [n, 2, k] if *k == half => *n,
        _ => {
            return Err(format!(
                "{name}: .npy shape is {shape_text}, expected (N, {c}) or (N, 2, {half})"
            ));
        }
    };
    if count == 0 {
        return Err(format!("{name}: the array is empty (no segments)"));
    }
    let data = size - header_bytes;
    let want = count.saturating_mul(4 * c);
    if data < want {
        return Err(format!(
            "{name}: .npy data is truncated: shape {shape_text} needs {want} bytes, the file \
             holds {data} (segment {} is incomplete)",
            data / (4 * c)
        ));
    }
    if data > want {
        return Err(format!(
            "{name}: .npy file has {} bytes after the {shape_text} array",
            data - want
        ));
    }
    Ok(count)
}

fn parse_f32(field: &[u8]) -> Option<f32> {
    std::str::from_utf8(field).ok()?.trim().parse().ok()
}

fn read_csv<T: Record<C>, const C: usize>(name: &str, file: File) -> Result<Soa<T, C>, String> {
    let names = field_names(C);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(BufReader::with_capacity(1 << 20, file));
    let mut record = csv::ByteRecord::new();
    let mut set = Soa::new();
    let mut first = true;
    let mut count = 0u64;
    loop {
        let more = reader.read_byte_record(&mut record).map_err(|e| {
            let line = e
                .position()
                .map_or(String::new(), |p| format!("line {}: ", p.line()));
            format!("{name}: {line}{e}")
        })?;
        if !more {
            break;
        }
        let line = record.position().map_or(0, |p| p.line());
        if std::mem::take(&mut first) && record.iter().all(|f| parse_f32(f).is_none()) {
            if record.len() != C {
                return Err(format!(
                    "{name}: line {line} (header): {} columns, expected {C} ({})",
                    record.len(),
                    names.join(",")
                ));
            }
            continue;
        }
        if record.len() != C {
            return Err(format!(
                "{name}: line {line} (segment {count}): {} columns, expected {C} ({})",
                record.len(),
                names.join(",")
            ));
        }
        let mut values = [0.0f32; C];
        for (k, field) in record.iter().enumerate() {
            values[k] = parse_f32(field).ok_or_else(|| {
                format!(
                    "{name}: line {line} (segment {count}), column {} ({}): '{}' is not a \
                     number",
                    k + 1,
                    names[k],
                    String::from_utf8_lossy(field)
                )
            })?;
        }
        set.push(bytemuck::cast(values));
        count += 1;
    }
    if count == 0 {
        return Err(format!(
            "{name}: no segments (only a header or blank lines)"
        ));
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
    F32(&'static str),
}

const PAIR_COLUMNS: [Col; 3] = [Col::U32("i"), Col::U32("j"), Col::F32("distance")];
const CROSS_COLUMNS: [Col; 5] = [
    Col::U32("i"),
    Col::U32("j"),
    Col::U8("kind"),
    Col::F32("x"),
    Col::F32("y"),
];

const RAYCAST_COLUMNS: [Col; 6] = [
    Col::U32("ray"),
    Col::U32("wall"),
    Col::F32("u"),
    Col::F32("x"),
    Col::F32("y"),
    Col::F32("z"),
];

/// One value of a hit record.
#[derive(Clone, Copy)]
enum Value {
    U32(u32),
    Kind(Crossing),
    F32(f32),
}

/// Where the records go: a temporary file renamed onto the target on success, or stdout.
enum Sink<'o> {
    File {
        target: PathBuf,
        file: BufWriter<Temp>,
    },
    Stdout(&'o mut (dyn Write + Send)),
}

/// A stream of hit records in one format.
struct HitWriter<'o> {
    sink: Sink<'o>,
    format: Format,
    columns: &'static [Col],
    rows: u64,
    scratch: Vec<u8>,
}

/// A temporary file in `dir`, removed on a signal (see `cleanup`), with the mode the umask
/// gives a new file.
fn temp_beside(dir: &Path) -> io::Result<Temp> {
    cleanup::temp_in(dir, 0o666)
}

impl<'o> HitWriter<'o> {
    fn create(
        target: Option<&Path>,
        stdout: &'o mut (dyn Write + Send),
        format: Format,
        columns: &'static [Col],
    ) -> Result<Self, String> {
        let sink = match target {
            None => Sink::Stdout(stdout),
            Some(target) => {
                let name = show(target);
                // A link is followed and its target written; the link stays.
                let target = &resolve_links(target)
                    .map_err(|e| format!("{name}: cannot write the output: {e}"))?;
                let existing = std::fs::metadata(target).ok();
                match &existing {
                    Some(m) if m.is_dir() => {
                        return Err(format!("{name}: cannot write the output: is a directory"));
                    }
                    // Never replaced: devices, FIFOs and sockets are refused, not renamed over.
                    Some(m) if !m.is_file() => {
                        return Err(format!(
                            "{name}: cannot write the output: not a regular file (set queries \
                             write a regular file, or standard output without -o)"
                        ));
                    }
                    Some(m) if m.permissions().readonly() => {
                        return Err(format!(
                            "{name}: cannot write the output: the file exists and is read-only"
                        ));
                    }
                    _ => {}
                }
                let dir = match target.parent() {
                    Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                    _ => PathBuf::from("."),
                };
                if !dir.is_dir() {
                    return Err(format!(
                        "{name}: cannot write the output: directory {} does not exist",
                        show(&dir)
                    ));
                }
                let temp = temp_beside(&dir)
                    .map_err(|e| format!("{name}: cannot write the output: {e}"))?;
                if let Some(m) = &existing {
                    // An existing file keeps its mode.
                    temp.file()
                        .set_permissions(m.permissions())
                        .map_err(|e| format!("{name}: cannot write the output: {e}"))?;
                }
                Sink::File {
                    target: target.to_path_buf(),
                    file: BufWriter::with_capacity(1 << 20, temp),
                }
            }
        };
        let mut w = HitWriter {
            sink,
            format,
            columns,
            rows: 0,
            scratch: Vec::new(),
        };
        if format == Format::Csv {
            let mut header = columns
                .iter()
                .map(|c| match c {
                    Col::U32(n) | Col::U8(n) | Col::F32(n) => *n,
                })
                .collect::<Vec<_>>()
                .join(",");
            header.push('\n');
            w.put(header.as_bytes()).map_err(|e| e.message)?;
        }
        Ok(w)
    }

    fn target_name(&self) -> String {
        match &self.sink {
            Sink::File { target, .. } => show(target),
            Sink::Stdout(_) => "stdout".to_owned(),
        }
    }

    /// Writes `bytes`; a failure on stdout keeps its kind (a closed pipe is no failure).
    fn put(&mut self, bytes: &[u8]) -> Result<(), CliError> {
        match &mut self.sink {
            Sink::File { file, .. } => file.write_all(bytes).map_err(|e| {
                CliError::failed(format!(
                    "{}: writing the output failed: {e}",
                    self.target_name()
                ))
            }),
            Sink::Stdout(out) => out.write_all(bytes).map_err(CliError::from),
        }
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
                        Value::Kind(c) => out.extend_from_slice(kind_name(c).as_bytes()),
                        Value::F32(x) => out.extend_from_slice(num(x).as_bytes()),
                    }
                }
                out.push(b'\n');
            }
            Format::Raw | Format::Npy => {
                for v in values {
                    match *v {
                        Value::U32(x) => out.extend_from_slice(&x.to_le_bytes()),
                        Value::Kind(c) => out.push(c as u8),
                        Value::F32(x) => out.extend_from_slice(&x.to_le_bytes()),
                    }
                }
            }
        }
        self.rows += 1;
    }

    fn flush_records(&mut self) -> Result<(), CliError> {
        let scratch = std::mem::take(&mut self.scratch);
        let result = self.put(&scratch);
        self.scratch = scratch;
        self.scratch.clear();
        result
    }

    fn pairs(&mut self, block: &[PairHit]) -> Result<(), CliError> {
        for h in block {
            self.record(&[Value::U32(h.i), Value::U32(h.j), Value::F32(h.dist2.sqrt())]);
        }
        self.flush_records()
    }

    fn crossings(&mut self, block: &[CrossHit], set: &Segments2) -> Result<(), CliError> {
        for h in block {
            let s = set
                .get(h.i as usize)
                .expect("the hit names a segment of the set");
            let p = s.at(h.s);
            self.record(&[
                Value::U32(h.i),
                Value::U32(h.j),
                Value::Kind(h.kind),
                Value::F32(p[0]),
                Value::F32(p[1]),
            ]);
        }
        self.flush_records()
    }

    fn first_hits(&mut self, first: u32, hits: &[Option<FirstHit>]) -> Result<(), CliError> {
        for (k, h) in hits.iter().enumerate() {
            if let Some(h) = h {
                self.record(&[
                    Value::U32(first + k as u32),
                    Value::U32(h.index),
                    Value::F32(h.u),
                    Value::F32(h.point[0]),
                    Value::F32(h.point[1]),
                    Value::F32(h.point[2]),
                ]);
            }
        }
        self.flush_records()
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
                    Col::F32(n) => (n, "<f4"),
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
    /// then the rename onto the target. Returns the number of records.
    fn finish(self) -> Result<u64, CliError> {
        let name = self.target_name();
        let fail = |e: &dyn std::fmt::Display| {
            CliError::failed(format!("{name}: writing the output failed: {e}"))
        };
        let header = (self.format == Format::Npy).then(|| self.npy_header());
        let rows = self.rows;
        match self.sink {
            Sink::Stdout(out) => {
                debug_assert!(header.is_none(), "formats() refuses .npy to stdout");
                out.flush().map_err(CliError::from)?;
            }
            Sink::File { target, file } => {
                let mut temp = file.into_inner().map_err(|e| fail(e.error()))?;
                if let Some(header) = header {
                    let dir = temp
                        .path()
                        .parent()
                        .map(Path::to_path_buf)
                        .unwrap_or_default();
                    let mut full = temp_beside(&dir).map_err(|e| fail(&e))?;
                    full.write_all(&header).map_err(|e| fail(&e))?;
                    temp.rewind().map_err(|e| fail(&e))?;
                    io::copy(&mut temp, &mut full).map_err(|e| fail(&e))?;
                    temp = full;
                }
                temp.file().sync_all().map_err(|e| fail(&e))?;
                cleanup::persist(temp, &target).map_err(|e| fail(&e))?;
            }
        }
        Ok(rows)
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

/// The input and output formats, and the checks shared by both subcommands.
fn formats(
    inputs: &[&Path],
    format: Option<Format>,
    output: Option<&Path>,
    output_format: Option<Format>,
) -> Result<(Vec<Format>, Format), CliError> {
    let ins = inputs
        .iter()
        .map(|p| format_of(p, format, "input"))
        .collect::<Result<Vec<_>, _>>()?;
    let out = match output {
        None => output_format.unwrap_or(Format::Csv),
        Some(path) => match output_format.or_else(|| Format::from_path(path)) {
            Some(f) => f,
            None => ins[0],
        },
    };
    if let Some(path) = output {
        for input in inputs {
            if same_file(input, path) {
                return Err(CliError::usage(format!(
                    "{}: the output is an input file; write the results to another file",
                    show(path)
                )));
            }
        }
    } else if out == Format::Npy {
        return Err(CliError::usage(
            ".npy output needs a file: pass -o FILE.npy",
        ));
    }
    Ok((ins, out))
}

/// Runs `work` on a pool of `threads` threads, or on the global pool.
fn with_threads<R: Send>(
    threads: Option<u16>,
    work: impl FnOnce() -> R + Send,
) -> Result<R, CliError> {
    match threads {
        Some(n) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n.into())
                .build()
                .map_err(|e| CliError::failed(format!("cannot start {n} threads: {e}")))?;
            Ok(pool.install(work))
        }
        None => Ok(work()),
    }
}

fn library_error(e: segbatch::Error) -> CliError {
    CliError::usage(format!("the query failed: {e}"))
}

/// Runs `segbatch pairs`.
pub fn run_pairs(args: &PairsArgs, stdout: &mut (dyn Write + Send)) -> Result<(), CliError> {
    let start = Instant::now();
    let mut inputs = vec![args.input.as_path()];
    inputs.extend(args.against.as_deref());
    let (in_formats, out_format) = formats(
        &inputs,
        args.format,
        args.out.output.as_deref(),
        args.out.output_format,
    )?;
    let a: Segments =
        read_set::<Segment, 6>(&args.input, in_formats[0]).map_err(CliError::usage)?;
    let b: Option<Segments> = match &args.against {
        Some(path) => Some(read_set::<Segment, 6>(path, in_formats[1]).map_err(CliError::usage)?),
        None => None,
    };
    let read = start.elapsed().as_secs_f64();
    let mut writer = HitWriter::create(
        args.out.output.as_deref(),
        stdout,
        out_format,
        &PAIR_COLUMNS,
    )
    .map_err(CliError::usage)?;
    let shared = if args.skip_shared {
        SharedEndpoints::Skip
    } else {
        SharedEndpoints::Keep
    };
    let mut failed: Option<CliError> = None;
    let query = with_threads(args.out.threads, || {
        let mut sink = |block: &[PairHit]| {
            if failed.is_none()
                && let Err(e) = writer.pairs(block)
            {
                failed = Some(e);
            }
        };
        match &b {
            None => {
                par_for_each_self_pair_within(&a, args.radius, shared, &Options::SEGMENTS, sink)
            }
            Some(b) => par_for_each_pair_within(&a, b, args.radius, &Options::SEGMENTS, &mut sink),
        }
    })?;
    query.map_err(library_error)?;
    if let Some(e) = failed {
        return Err(e);
    }
    let records = writer.finish()?;
    if !args.out.quiet {
        let secs = start.elapsed().as_secs_f64();
        let against = b.as_ref().map_or(String::new(), |b| {
            format!(
                " against {} ({} segments)",
                show(args.against.as_deref().expect("b comes from --against")),
                b.len()
            )
        });
        eprintln!(
            "segbatch pairs: {} segments from {}{against} -> {records} pairs within {} in \
             {} ({}) in {secs:.2} s (reading {read:.2} s; {:.1} M segments/s)",
            a.len(),
            show(&args.input),
            args.radius,
            args.out.output.as_deref().map_or("stdout".to_owned(), show),
            out_format.name(),
            (a.len() + b.as_ref().map_or(0, Segments::len)) as f64 / secs / 1e6
        );
    }
    Ok(())
}

/// Runs `segbatch cross`.
pub fn run_cross(args: &CrossArgs, stdout: &mut (dyn Write + Send)) -> Result<(), CliError> {
    let start = Instant::now();
    let (in_formats, out_format) = formats(
        &[&args.input],
        args.format,
        args.out.output.as_deref(),
        args.out.output_format,
    )?;
    let set: Segments2 =
        read_set::<Segment2, 4>(&args.input, in_formats[0]).map_err(CliError::usage)?;
    let mut writer = HitWriter::create(
        args.out.output.as_deref(),
        stdout,
        out_format,
        &CROSS_COLUMNS,
    )
    .map_err(CliError::usage)?;
    let mut failed: Option<CliError> = None;
    let query = with_threads(args.out.threads, || {
        par_for_each_crossing_pair(&set, |block| {
            if failed.is_none()
                && let Err(e) = writer.crossings(block, &set)
            {
                failed = Some(e);
            }
        })
    })?;
    query.map_err(library_error)?;
    if let Some(e) = failed {
        return Err(e);
    }
    let records = writer.finish()?;
    if !args.out.quiet {
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "segbatch cross: {} segments from {} -> {records} meeting pairs in {} ({}) in \
             {secs:.2} s",
            set.len(),
            show(&args.input),
            args.out.output.as_deref().map_or("stdout".to_owned(), show),
            out_format.name(),
        );
    }
    Ok(())
}

/// Runs `segbatch raycast`.
pub fn run_raycast(args: &RaycastArgs, stdout: &mut (dyn Write + Send)) -> Result<(), CliError> {
    let start = Instant::now();
    let (in_formats, out_format) = formats(
        &[&args.walls, &args.rays],
        args.format,
        args.out.output.as_deref(),
        args.out.output_format,
    )?;
    let walls: Segments =
        read_set::<Segment, 6>(&args.walls, in_formats[0]).map_err(CliError::usage)?;
    let rays: Segments =
        read_set::<Segment, 6>(&args.rays, in_formats[1]).map_err(CliError::usage)?;
    let mut writer = HitWriter::create(
        args.out.output.as_deref(),
        stdout,
        out_format,
        &RAYCAST_COLUMNS,
    )
    .map_err(CliError::usage)?;
    // Rays in blocks, so the results held at once stay bounded whatever the ray count.
    const RAYS_PER_BLOCK: usize = 1 << 20;
    let written = with_threads(args.out.threads, || -> Result<(), CliError> {
        let index = SegmentIndex::par_new(&walls).map_err(library_error)?;
        let mut first = 0;
        while first < rays.len() {
            let end = rays.len().min(first + RAYS_PER_BLOCK);
            let hits = index
                .par_first_hits(rays.view(first..end), args.radius, args.range)
                .map_err(library_error)?;
            writer.first_hits(first as u32, &hits)?;
            first = end;
        }
        Ok(())
    })?;
    written?;
    let records = writer.finish()?;
    if !args.out.quiet {
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "segbatch raycast: {} rays from {} against {} walls from {} (radius {}, range {}) \
             -> {records} hits in {} ({}) in {secs:.2} s",
            rays.len(),
            show(&args.rays),
            walls.len(),
            show(&args.walls),
            args.radius,
            args.range,
            args.out.output.as_deref().map_or("stdout".to_owned(), show),
            out_format.name(),
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
        let set = read_set::<Segment2, 4>(&path, Format::Csv).unwrap();
        assert_eq!(set.len(), 2);
        assert_eq!(set.get(1), Some(Segment2::new([2.0, 3.0], [4.0, 5.0])));
        std::fs::write(&path, "0,0,1,1\n0,0,1\n").unwrap();
        let err = read_set::<Segment2, 4>(&path, Format::Csv).unwrap_err();
        assert!(
            err.contains("line 2 (segment 1): 3 columns, expected 4"),
            "{err}"
        );
        std::fs::write(&path, "0,0,0,1,1,1\n0,0,0,1,x,1\n").unwrap();
        let err = read_set::<Segment, 6>(&path, Format::Csv).unwrap_err();
        assert!(
            err.contains("column 5 (p1.y): 'x' is not a number"),
            "{err}"
        );
    }
}
