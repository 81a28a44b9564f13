//! Output: a stream of hit records, in the format the target's name asks for.

use std::ops::ControlFlow;
use std::path::Path;

use npyz::{DType, Field, TypeStr, WriterBuilder};
use segbatch::planar::Crossing;

use crate::format::num;
use crate::io::{Error, Format, Precision, Real, Sink};

/// A column of the hit records.
#[derive(Clone, Copy)]
pub(super) enum Col {
    U32(&'static str),
    U8(&'static str),
    /// A number in the run's precision (`f32` or `f64`).
    Real(&'static str),
}

pub(super) const PAIR_COLUMNS: [Col; 4] = [
    Col::U32("i"),
    Col::U32("j"),
    Col::Real("distance"),
    Col::U8("flags"),
];
pub(super) const CROSS_COLUMNS: [Col; 5] = [
    Col::U32("i"),
    Col::U32("j"),
    Col::U8("kind"),
    Col::Real("x"),
    Col::Real("y"),
];

pub(super) const RAYCAST_COLUMNS: [Col; 6] = [
    Col::U32("ray"),
    Col::U32("wall"),
    Col::Real("u"),
    Col::Real("x"),
    Col::Real("y"),
    Col::Real("z"),
];

/// One value of a hit record.
#[derive(Clone, Copy)]
pub(super) enum Value {
    U32(u32),
    U8(u8),
    Kind(Crossing),
    F32(f32),
    F64(f64),
}

/// `x` as a record value in its own precision.
pub(super) fn real<R: Real>(x: R) -> Value {
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
pub(super) struct HitWriter {
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
    pub(super) fn create(
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
    pub(super) fn record(&mut self, values: &[Value]) {
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
            Format::Raw | Format::F32 | Format::F64 | Format::Npy => {
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
    pub(super) fn flush_records(&mut self) -> Result<(), Error> {
        let result = self.sink.write_all(&self.scratch);
        self.scratch.clear();
        result.map_err(|e| Sink::write_error(&self.name, &e))
    }

    /// Writes the records of `hits`, [`HITS_PER_WRITE`] at a time, each made by `values`.
    pub(super) fn write<H>(
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
    pub(super) fn write_block<H>(
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
    pub(super) fn npy_header(&self) -> Vec<u8> {
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
    pub(super) fn finish(mut self) -> Result<u64, Error> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        let header = (self.format == Format::Npy).then(|| self.npy_header());
        self.sink.finish(&self.name, header.as_deref())?;
        Ok(self.rows)
    }
}

pub(super) fn kind_name(c: Crossing) -> &'static str {
    match c {
        Crossing::Point => "point",
        Crossing::Overlap => "overlap",
        Crossing::Disjoint => "disjoint",
    }
}

// ---------------------------------------------------------------------------------------
