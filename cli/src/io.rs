//! File formats of `segbatch run`: pairs read in bounded chunks, results written to a
//! temporary file beside the target and renamed into place only on success.
//!
//! Inputs hold 12 `f32` per pair, in the order `a.p0, a.p1, b.p0, b.p1` (x, y, z each):
//! - CSV: 12 numbers per row, an optional header row (a first row with no number in it);
//! - `.npy`: little-endian float32 (`<f4`), C order, shape `(N, 12)` or `(N, 4, 3)`;
//! - raw: little-endian `f32`, 48 bytes per pair, no header.
//!
//! Outputs are one record per pair (or per pair within `--radius`), with the selected
//! columns in this order: `index` (u64, only with `--radius`), `distance`, `s`, `t`,
//! `point_a` (x, y, z), `point_b` (x, y, z), `flags` (u8). CSV writes them as text with a
//! header row; raw writes packed little-endian records; `.npy` writes a structured array
//! with those field names (or a plain `<f4` vector when `distance` is the only column).
//!
//! Every error message names the file, the record and the field, on one line.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};

use clap::ValueEnum;
use npyz::{DType, Field, TypeStr, WriterBuilder};
use rayon::prelude::*;
use segbatch::ClosestBatch;

use super::format::num;

/// Bytes per pair in raw and `.npy` inputs: 12 `f32`.
pub const PAIR_BYTES: u64 = 48;

/// One input pair: `a.p0, a.p1, b.p0, b.p1`.
pub type Pair = [f32; 12];

/// The input fields, in order (for error messages and the CSV header).
pub const FIELD_NAMES: [&str; 12] = [
    "a.p0.x", "a.p0.y", "a.p0.z", "a.p1.x", "a.p1.y", "a.p1.z", "b.p0.x", "b.p0.y", "b.p0.z",
    "b.p1.x", "b.p1.y", "b.p1.z",
];

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

    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "CSV",
            Format::Npy => ".npy",
            Format::Raw => "raw f32",
        }
    }
}

/// A path as shown in messages.
pub fn show(path: &Path) -> String {
    path.display().to_string()
}

// ---------------------------------------------------------------------------------------
// Input
// ---------------------------------------------------------------------------------------

/// An open input, read in chunks of pairs.
pub struct Input {
    name: String,
    kind: InputKind,
    /// Pairs read so far.
    pairs: u64,
    /// The file's size in bytes (for progress).
    pub total_bytes: u64,
    /// The number of pairs, when the format says it up front (raw, `.npy`).
    pub total_pairs: Option<u64>,
}

enum InputKind {
    /// Raw and `.npy` (positioned after the header): `remaining` bytes of packed pairs.
    Binary {
        reader: BufReader<File>,
        remaining: u64,
        header_bytes: u64,
    },
    Csv {
        reader: csv::Reader<BufReader<File>>,
        record: csv::ByteRecord,
        first: bool,
    },
}

impl Input {
    /// Opens `path`, checking everything that can be checked before reading the data:
    /// existence, emptiness, a raw file's size, a `.npy` header's dtype, order and shape.
    pub fn open(path: &Path, format: Format) -> Result<Input, String> {
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
            return Err(format!("{name}: the file is empty (no pairs)"));
        }
        let kind = match format {
            Format::Raw => {
                if size % PAIR_BYTES != 0 {
                    let whole = size / PAIR_BYTES;
                    return Err(format!(
                        "{name}: raw f32 input of {size} bytes is not a multiple of 48 bytes \
                         (12 f32 per pair): pair {whole} is incomplete ({} of 48 bytes)",
                        size % PAIR_BYTES
                    ));
                }
                InputKind::Binary {
                    reader: BufReader::with_capacity(1 << 20, file),
                    remaining: size,
                    header_bytes: 0,
                }
            }
            Format::Npy => open_npy(&name, file, size)?,
            Format::Csv => InputKind::Csv {
                reader: csv::ReaderBuilder::new()
                    .has_headers(false)
                    .flexible(true)
                    .trim(csv::Trim::All)
                    .from_reader(BufReader::with_capacity(1 << 20, file)),
                record: csv::ByteRecord::new(),
                first: true,
            },
        };
        let total_pairs = match &kind {
            InputKind::Binary { remaining, .. } => Some(remaining / PAIR_BYTES),
            InputKind::Csv { .. } => None,
        };
        if total_pairs == Some(0) {
            return Err(format!("{name}: the array is empty (no pairs)"));
        }
        Ok(Input {
            name,
            kind,
            pairs: 0,
            total_bytes: size,
            total_pairs,
        })
    }

    /// Pairs read so far.
    pub fn pairs_read(&self) -> u64 {
        self.pairs
    }

    /// Bytes consumed so far (for progress).
    pub fn bytes_read(&self) -> u64 {
        match &self.kind {
            InputKind::Binary { header_bytes, .. } => header_bytes + self.pairs * PAIR_BYTES,
            InputKind::Csv { reader, .. } => reader.position().byte(),
        }
    }

    /// Replaces `buf` with up to `max` next pairs; returns how many (0 at the end).
    pub fn read_chunk(&mut self, buf: &mut Vec<Pair>, max: usize) -> Result<usize, String> {
        buf.clear();
        let name = &self.name;
        match &mut self.kind {
            InputKind::Binary {
                reader, remaining, ..
            } => {
                let n = (*remaining / PAIR_BYTES).min(max as u64) as usize;
                buf.resize(n, [0.0; 12]);
                reader
                    .read_exact(bytemuck::cast_slice_mut(&mut buf[..]))
                    .map_err(|e| format!("{name}: reading pairs from {}: {e}", self.pairs))?;
                if cfg!(target_endian = "big") {
                    for x in buf.iter_mut().flatten() {
                        *x = f32::from_bits(u32::from_le(x.to_bits()));
                    }
                }
                *remaining -= n as u64 * PAIR_BYTES;
            }
            InputKind::Csv {
                reader,
                record,
                first,
            } => {
                while buf.len() < max {
                    let more = reader.read_byte_record(record).map_err(|e| {
                        let line = e
                            .position()
                            .map_or(String::new(), |p| format!("line {}: ", p.line()));
                        format!("{name}: {line}{e}")
                    })?;
                    if !more {
                        break;
                    }
                    let line = record.position().map_or(0, |p| p.line());
                    let pair = self.pairs + buf.len() as u64;
                    if std::mem::take(first) && is_header(record) {
                        if record.len() != 12 {
                            return Err(format!(
                                "{name}: line {line} (header): {} columns, expected 12 ({})",
                                record.len(),
                                FIELD_NAMES.join(",")
                            ));
                        }
                        continue;
                    }
                    if record.len() != 12 {
                        return Err(format!(
                            "{name}: line {line} (pair {pair}): {} columns, expected 12 \
                             (a.p0, a.p1, b.p0, b.p1; x,y,z each)",
                            record.len()
                        ));
                    }
                    let mut p = [0.0f32; 12];
                    for (k, field) in record.iter().enumerate() {
                        p[k] = parse_f32(field).ok_or_else(|| {
                            format!(
                                "{name}: line {line} (pair {pair}), column {} ({}): '{}' is \
                                 not a number",
                                k + 1,
                                FIELD_NAMES[k],
                                String::from_utf8_lossy(field)
                            )
                        })?;
                    }
                    buf.push(p);
                }
                if buf.is_empty() && self.pairs == 0 {
                    return Err(format!("{name}: no pairs (only a header or blank lines)"));
                }
            }
        }
        self.pairs += buf.len() as u64;
        Ok(buf.len())
    }
}

fn parse_f32(field: &[u8]) -> Option<f32> {
    std::str::from_utf8(field).ok()?.parse().ok()
}

/// A first row is a header when none of its fields is a number.
fn is_header(record: &csv::ByteRecord) -> bool {
    record.iter().all(|f| parse_f32(f).is_none())
}

/// Reads and checks a `.npy` header: `<f4`, C order, shape `(N, 12)` or `(N, 4, 3)`, and
/// a data size matching the shape.
fn open_npy(name: &str, mut file: File, size: u64) -> Result<InputKind, String> {
    let header = npyz::NpyHeader::from_reader(&mut file)
        .map_err(|e| format!("{name}: not a valid .npy file: {e}"))?;
    let header_bytes = file
        .stream_position()
        .map_err(|e| format!("{name}: cannot read: {e}"))?;
    let convert = "convert with arr.astype('<f4')";
    match header.dtype() {
        DType::Plain(ts) => {
            let text = ts.to_string();
            if text == ">f4" {
                return Err(format!(
                    "{name}: .npy byte order is big-endian ('>f4'), expected little-endian \
                     '<f4': {convert}"
                ));
            }
            if text != "<f4" {
                return Err(format!(
                    "{name}: .npy dtype is '{text}', expected float32 '<f4': {convert}"
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
    let pairs = match shape.as_slice() {
        [n, 12] | [n, 4, 3] => *n,
        _ => {
            return Err(format!(
                "{name}: .npy shape is {shape_text}, expected (N, 12) or (N, 4, 3)"
            ));
        }
    };
    let data = size - header_bytes;
    let want = pairs.saturating_mul(PAIR_BYTES);
    if data < want {
        return Err(format!(
            "{name}: .npy data is truncated: shape {shape_text} needs {want} bytes, the file \
             holds {data} (pair {} is incomplete)",
            data / PAIR_BYTES
        ));
    }
    if data > want {
        return Err(format!(
            "{name}: .npy file has {} bytes after the {shape_text} array",
            data - want
        ));
    }
    Ok(InputKind::Binary {
        reader: BufReader::with_capacity(1 << 20, file),
        remaining: want,
        header_bytes,
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

    /// Bytes per record in the binary formats.
    pub fn record_bytes(&self) -> usize {
        8 * usize::from(self.index)
            + 4 * usize::from(self.distance)
            + 8 * usize::from(self.params)
            + 24 * usize::from(self.points)
            + usize::from(self.flags)
    }

    /// The `.npy` dtype: a plain `<f4` vector for distances alone, else a structured type.
    fn dtype(&self) -> DType {
        let plain = |t: &str| DType::Plain(t.parse::<TypeStr>().expect("a valid type string"));
        let only_distance = self.distance && !self.index && !self.params && !self.points;
        if only_distance && !self.flags {
            return plain("<f4");
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
            field("distance", plain("<f4"));
        }
        if self.params {
            field("s", plain("<f4"));
            field("t", plain("<f4"));
        }
        if self.points {
            field("point_a", DType::Array(3, Box::new(plain("<f4"))));
            field("point_b", DType::Array(3, Box::new(plain("<f4"))));
        }
        if self.flags {
            field("flags", plain("|u1"));
        }
        DType::Record(fields)
    }
}

/// An output being written to a temporary file beside its target.
pub struct Output {
    target: PathBuf,
    format: Format,
    columns: Columns,
    file: BufWriter<tempfile::NamedTempFile>,
    /// `.npy` with a row count unknown up front: the header is written at the end, into a
    /// second temporary file that receives a copy of this one's records.
    npy_deferred: bool,
    known_rows: Option<u64>,
    rows: u64,
    scratch: Vec<u8>,
}

impl Output {
    /// Creates the temporary file beside `target` (so the final rename stays on one file
    /// system) and writes the header if the format has one.
    pub fn create(
        target: &Path,
        format: Format,
        columns: Columns,
        known_rows: Option<u64>,
    ) -> Result<Output, String> {
        let name = show(target);
        if target.is_dir() {
            return Err(format!("{name}: cannot write the output: is a directory"));
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
        let temp =
            temp_beside(&dir).map_err(|e| format!("{name}: cannot write the output: {e}"))?;
        let mut out = Output {
            target: target.to_path_buf(),
            format,
            columns,
            file: BufWriter::with_capacity(1 << 20, temp),
            npy_deferred: format == Format::Npy && known_rows.is_none(),
            known_rows,
            rows: 0,
            scratch: Vec::new(),
        };
        let header = match format {
            Format::Csv => {
                let mut h = columns.names().join(",");
                h.push('\n');
                h.into_bytes()
            }
            Format::Npy if !out.npy_deferred => {
                npy_header(&columns, known_rows.expect("rows known"))
            }
            _ => Vec::new(),
        };
        out.file
            .write_all(&header)
            .map_err(|e| out.write_error(&e))?;
        Ok(out)
    }

    fn write_error(&self, e: &io::Error) -> String {
        format!("{}: writing the output failed: {e}", show(&self.target))
    }

    /// Writes the records of `batch` (input indices starting at `base`), all of them or
    /// only the local indices in `selected`.
    pub fn write(
        &mut self,
        batch: &ClosestBatch,
        base: u64,
        selected: Option<&[u32]>,
    ) -> Result<(), String> {
        let count = selected.map_or(batch.len(), <[u32]>::len);
        let row = |k: usize| selected.map_or(k, |s| s[k] as usize);
        let cols = self.columns;
        self.scratch.clear();
        match self.format {
            Format::Csv => {
                // Formatting numbers is the slow part: do it in parallel pieces, in order.
                const PIECE: usize = 16 * 1024;
                let pieces: Vec<Vec<u8>> = (0..count.div_ceil(PIECE))
                    .into_par_iter()
                    .map(|p| {
                        let mut text = Vec::with_capacity(PIECE * 64);
                        for k in p * PIECE..count.min((p + 1) * PIECE) {
                            csv_row(&mut text, batch, base, row(k), &cols);
                        }
                        text
                    })
                    .collect();
                for p in pieces {
                    self.scratch.extend_from_slice(&p);
                }
            }
            Format::Npy | Format::Raw => {
                self.scratch.reserve(count * cols.record_bytes());
                for k in 0..count {
                    binary_row(&mut self.scratch, batch, base, row(k), &cols);
                }
            }
        }
        self.rows += count as u64;
        let result = self.file.write_all(&self.scratch);
        result.map_err(|e| self.write_error(&e))
    }

    /// Finishes the file (the deferred `.npy` header), syncs it and renames it onto the
    /// target. Returns the number of records.
    pub fn finish(self) -> Result<u64, String> {
        let name = show(&self.target);
        let fail = |e: &dyn std::fmt::Display| format!("{name}: writing the output failed: {e}");
        if let Some(n) = self.known_rows
            && !self.npy_deferred
            && self.format == Format::Npy
            && n != self.rows
        {
            return Err(format!(
                "{name}: internal error: wrote {} records for a header of {n}",
                self.rows
            ));
        }
        let rows = self.rows;
        let columns = self.columns;
        let mut temp = self.file.into_inner().map_err(|e| fail(e.error()))?;
        if self.npy_deferred {
            // Header first, then a copy of the records.
            let dir = temp
                .path()
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default();
            let mut full = temp_beside(&dir).map_err(|e| fail(&e))?;
            full.write_all(&npy_header(&columns, rows))
                .map_err(|e| fail(&e))?;
            temp.rewind().map_err(|e| fail(&e))?;
            io::copy(&mut temp, &mut full).map_err(|e| fail(&e))?;
            temp = full;
        }
        temp.as_file().sync_all().map_err(|e| fail(&e))?;
        temp.persist(&self.target).map_err(|e| fail(&e.error))?;
        Ok(rows)
    }
}

/// A new temporary file in `dir`, removed on drop unless persisted.
fn temp_beside(dir: &Path) -> io::Result<tempfile::NamedTempFile> {
    tempfile::Builder::new()
        .prefix(".segbatch-")
        .suffix(".tmp")
        .tempfile_in(dir)
}

/// The `.npy` header for `rows` records of `columns`.
fn npy_header(columns: &Columns, rows: u64) -> Vec<u8> {
    let mut bytes = Vec::new();
    npyz::WriteOptions::new_header_only()
        .dtype(columns.dtype())
        .shape(&[rows])
        .writer(&mut bytes)
        .write_header_only()
        .expect("writing to a Vec cannot fail");
    bytes
}

fn csv_row(out: &mut Vec<u8>, batch: &ClosestBatch, base: u64, i: usize, c: &Columns) {
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

fn binary_row(out: &mut Vec<u8>, batch: &ClosestBatch, base: u64, i: usize, c: &Columns) {
    if c.index {
        out.extend_from_slice(&(base + i as u64).to_le_bytes());
    }
    let mut f = |x: f32| out.extend_from_slice(&x.to_le_bytes());
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
