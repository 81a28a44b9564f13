//! Input: records of any layout from CSV, `.npy` or raw little-endian files, `-` or FIFOs,
//! with line and header limits, checked field by field.

use std::fs::OpenOptions;
use std::io::{self, BufRead, BufReader, Read};
#[cfg(unix)]
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use npyz::DType;

use super::common::*;

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
};

/// The set commands' 3D records: one segment, 6 numbers.
pub const SEGMENTS3: Layout = Layout {
    fields: &["p0.x", "p0.y", "p0.z", "p1.x", "p1.y", "p1.z"],
    noun: "segment",
    parts: "p0, p1; x,y,z each",
    points: (2, 3),
};

/// `segbatch cross`'s records: one 2D segment, 4 numbers.
pub const SEGMENTS2: Layout = Layout {
    fields: &["p0.x", "p0.y", "p1.x", "p1.y"],
    noun: "segment",
    parts: "p0, p1; x,y each",
    points: (2, 2),
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

pub(super) enum InputKind {
    /// Raw and `.npy` (positioned after the header).
    Binary(BinaryPairs),
    Csv(CsvPairs),
}

/// The reader of packed pairs: raw, and `.npy` after its header.
pub(super) struct BinaryPairs {
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
    /// The precision of the stored numbers (from the file's name, `--format` or `.npy`
    /// header): the run's, or `f32` widened in an `f64` run.
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
pub(super) struct CsvPairs {
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
pub(super) fn split_fields(line: &[u8], fields: &mut [(usize, usize); 13]) -> Result<usize, usize> {
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

pub(super) fn parse_real<T: Real>(field: &[u8]) -> Option<T> {
    std::str::from_utf8(field).ok()?.trim().parse().ok()
}

/// Reads into `buf` until it is full or the input ends; returns the bytes read.
pub(super) fn read_full(reader: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
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
            Format::Raw | Format::F32 | Format::F64 => {
                let stored = format.raw_type(T::PRECISION).expect("a raw format");
                if stored.bytes() > T::PRECISION.bytes() {
                    return Err(Error::Data(format!(
                        "{name}: raw {} input (its name or --format) and this run is {}: pass \
                         --precision {} to compute in {} (stored numbers are never narrowed)",
                        stored.name(),
                        T::PRECISION.name(),
                        stored.name(),
                        stored.name()
                    )));
                }
                let pair_bytes = stored.bytes() * N as u64;
                let p = stored.name();
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
                    stored,
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

    /// The input's name in messages (`standard input` for `-`).
    pub fn name(&self) -> &str {
        &self.name
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
                    // Stored f32, widened: the raw reader and `open_npy` accept nothing
                    // else (a stored f64 in an f32 run is refused when opened).
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
pub(super) fn control_byte(name: &str, line: u64, text: &[u8]) -> Option<Error> {
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
pub(super) fn wait_for_writer(
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
    read_records::<T, N>(bytes, layout, format, sized, chunk).map(|r| r.len() as u64)
}

/// [`read_all`], returning the records read.
pub fn read_records<T: Real, const N: usize>(
    bytes: &[u8],
    layout: &'static Layout,
    format: Format,
    sized: bool,
    chunk: usize,
) -> Result<Vec<[T; N]>, Error> {
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
    let mut records = Vec::new();
    while input.read_chunk(&mut buf, chunk)? > 0 {
        records.extend_from_slice(&buf);
    }
    Ok(records)
}

/// The readers' fuzz target (`fuzz/fuzz_targets/readers.rs`) and its replayed regressions:
/// reads `data` as CSV, `.npy` and raw, each as a regular file and as a stream, in small
/// chunks, in `f32` and in `f64`, and checks what must hold whatever the bytes.
///
/// # Panics
/// When a reader panics, or breaks one of these rules: a raw input is read exactly when its
/// length is a positive multiple of 48 (96 in `f64`), as that many pairs; a CSV input gives
/// the same outcome as a file and as a stream; a `.npy` stream gives the same count as the
/// file when the file is accepted; every message is one line; and the stored type rules of
/// [`fuzz_stored_types`].
pub fn fuzz_readers(data: &[u8]) {
    fuzz_readers_in::<f32, 12>(data, &PAIRS);
    fuzz_readers_in::<f64, 12>(data, &PAIRS);
    fuzz_readers_in::<f32, 6>(data, &SEGMENTS3);
    fuzz_readers_in::<f32, 4>(data, &SEGMENTS2);
    fuzz_stored_types::<12>(data, &PAIRS);
    fuzz_stored_types::<6>(data, &SEGMENTS3);
    fuzz_stored_types::<4>(data, &SEGMENTS2);
}

/// The records' numbers as `f64` bit patterns (a widened `f32` is exact, NaN payloads
/// included, so equal patterns mean the same numbers).
fn widened_bits<T: Real, const N: usize>(records: &[[T; N]]) -> Vec<u64> {
    records
        .iter()
        .flatten()
        .map(|&x| Into::<f64>::into(x).to_bits())
        .collect()
}

/// The stored type of [`fuzz_readers`], checked on `data` as a file and as a stream: what
/// a file stores comes from its format, the run's precision only says what is computed.
/// - raw `f32` (`.f32`, `--format f32`) is read exactly when its length is a positive
///   multiple of `4 N` bytes, as the little-endian `f32` numbers of `data`, in either
///   precision (widened in `f64`);
/// - raw `f64` in an `f32` run is always refused, with a message naming `--precision f64`
///   (never narrowed; an empty file is refused as empty first); in an `f64` run it is `raw`
///   of that run;
/// - `raw` (no type named) is the run's precision: `f32` in `f32`, `f64` in `f64`;
/// - a `.npy` file read in `f32` is read in `f64` as the same numbers, widened.
///
/// # Panics
/// When one of these rules is broken.
pub fn fuzz_stored_types<const N: usize>(data: &[u8], layout: &'static Layout) {
    let chunk = 1 + data.get(1).map_or(0, |&b| usize::from(b % 16));
    let width = 4 * N;
    let whole = !data.is_empty() && data.len().is_multiple_of(width);
    let stored: Vec<u64> = data
        .chunks_exact(4)
        .map(|b| f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])).to_bits())
        .collect();
    for sized in [true, false] {
        let r32 = read_records::<f32, N>(data, layout, Format::F32, sized, chunk)
            .map(|r| widened_bits(&r));
        let r64 = read_records::<f64, N>(data, layout, Format::F32, sized, chunk)
            .map(|r| widened_bits(&r));
        for (run, r) in [("f32", &r32), ("f64", &r64)] {
            match r {
                Ok(bits) => {
                    assert!(whole, "raw f32 of {} bytes accepted in {run}", data.len());
                    assert_eq!(bits, &stored, "raw f32 in {run}: not the stored numbers");
                }
                Err(e) => assert!(
                    !whole,
                    "raw f32 of {} bytes refused in {run}: {e:?}",
                    data.len()
                ),
            }
        }
        let raw32 = read_records::<f32, N>(data, layout, Format::Raw, sized, chunk)
            .map(|r| widened_bits(&r));
        assert_eq!(raw32, r32, "raw in f32 is not raw f32");
        // An empty file is refused as empty before its format is looked at.
        let narrowed = read_records::<f32, N>(data, layout, Format::F64, sized, chunk);
        match narrowed {
            Err(Error::Data(m)) if m.contains("--precision f64") => {}
            Err(Error::Data(m)) if sized && data.is_empty() && m.contains("empty") => {}
            other => panic!("raw f64 in an f32 run: {other:?}"),
        }
        let f64_in_64 = read_records::<f64, N>(data, layout, Format::F64, sized, chunk);
        let raw64 = read_records::<f64, N>(data, layout, Format::Raw, sized, chunk);
        assert_eq!(
            f64_in_64.map(|r| widened_bits(&r)),
            raw64.map(|r| widened_bits(&r)),
            "raw f64 in f64 is not raw of the run"
        );
        if let Ok(narrow) = read_records::<f32, N>(data, layout, Format::Npy, sized, chunk) {
            let wide = read_records::<f64, N>(data, layout, Format::Npy, sized, chunk);
            assert_eq!(
                wide.map(|r| widened_bits(&r)),
                Ok(widened_bits(&narrow)),
                "a .npy read in f32 differs in f64"
            );
        }
    }
}

/// [`fuzz_readers`] in the precision `T`, records of `N` numbers.
pub(super) fn fuzz_readers_in<T: Real, const N: usize>(data: &[u8], layout: &'static Layout) {
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
pub(super) fn bracket_depth(text: &[u8]) -> usize {
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
pub(super) fn npy_header_form(text: &[u8], offset: usize) -> Option<String> {
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
pub(super) fn open_npy(
    name: &str,
    layout: &'static Layout,
    mut reader: Box<dyn Read + Send>,
    size: Option<u64>,
    precision: Precision,
) -> Result<BinaryPairs, Error> {
    let (header_bytes, prefix_len) = read_npy_header(name, reader.as_mut())?;
    let header = parse_npy_header(name, &header_bytes, prefix_len)?;
    let header_bytes = header_bytes.len() as u64;
    let stored = npy_stored_type(name, &header, precision)?;
    let pair_bytes = stored.bytes() * layout.width() as u64;
    let (pairs, shape_text) = npy_pairs(name, layout, &header)?;
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

/// The error for a file that is not a `.npy` NumPy reads, saying `what` is wrong.
fn npy_invalid(name: &str, what: &str) -> Error {
    Error::Data(format!("{name}: not a valid .npy file: {what}"))
}

/// The `.npy` prefix (magic, version, header length: 2 bytes in version 1, 4 in 2 and 3)
/// and the header text after it, read whole: the bytes and the prefix's length.
fn read_npy_header(name: &str, reader: &mut dyn Read) -> Result<(Vec<u8>, usize), Error> {
    let read_err = |e: io::Error| Error::System(format!("{name}: reading the .npy header: {e}"));
    let mut prefix = [0u8; 12];
    let got = read_full(reader, &mut prefix[..10]).map_err(read_err)?;
    if got < 8 || &prefix[..6] != b"\x93NUMPY" {
        return Err(npy_invalid(
            name,
            "it does not start with the .npy magic bytes",
        ));
    }
    let (prefix_len, header_len) = match prefix[6] {
        1 if got == 10 => (10, u16::from_le_bytes([prefix[8], prefix[9]]) as usize),
        2 | 3 => {
            let more = if got == 10 {
                read_full(reader, &mut prefix[10..12]).map_err(read_err)?
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
            return Err(npy_invalid(
                name,
                &format!("format version {v}.{} is not 1, 2 or 3", prefix[7]),
            ));
        }
    };
    if header_len > MAX_NPY_HEADER_BYTES {
        return Err(npy_invalid(
            name,
            &format!("its header claims {header_len} bytes (more than {MAX_NPY_HEADER_BYTES})"),
        ));
    }
    let mut header_bytes = prefix[..prefix_len].to_vec();
    header_bytes.resize(prefix_len + header_len, 0);
    let got = read_full(reader, &mut header_bytes[prefix_len..]).map_err(read_err)?;
    if got < header_len {
        return Err(Error::Data(format!(
            "{name}: the .npy header is truncated: the file ends after {} of its {} header \
             bytes",
            prefix_len + got,
            prefix_len + header_len
        )));
    }
    Ok((header_bytes, prefix_len))
}

/// Parses the header read by [`read_npy_header`], with bounds on the time the parser may
/// take.
fn parse_npy_header(
    name: &str,
    header_bytes: &[u8],
    prefix_len: usize,
) -> Result<npyz::NpyHeader, Error> {
    // npyz parses the header text with a backtracking grammar (py_literal, on pest) that
    // re-parses a nested list or dict two or three times per level: 40 levels take hours.
    // A float32 array's header nests 2 deep (the dict, the shape); brackets are counted
    // wherever they are (in strings too), a bound on what the grammar can nest. Below that
    // depth, pest's call budget bounds the time of any header (a limit per parse).
    static BUDGET: std::sync::Once = std::sync::Once::new();
    BUDGET.call_once(|| pest::set_call_limit(std::num::NonZeroUsize::new(NPY_HEADER_PARSE_CALLS)));
    if let Some(what) = npy_header_form(&header_bytes[prefix_len..], prefix_len) {
        return Err(npy_invalid(name, &what));
    }
    let depth = bracket_depth(&header_bytes[prefix_len..]);
    if depth > MAX_NPY_HEADER_DEPTH {
        return Err(npy_invalid(
            name,
            &format!(
                "its header nests brackets {depth} deep (at most {MAX_NPY_HEADER_DEPTH} \
                 accepted; a float32 array's header nests 2)"
            ),
        ));
    }
    npyz::NpyHeader::from_reader(io::Cursor::new(header_bytes)).map_err(|e| {
        let text = e.to_string();
        if text.contains("call limit reached") {
            npy_invalid(
                name,
                &format!(
                    "its header is too complex to parse (over {NPY_HEADER_PARSE_CALLS} parser \
                     steps; a float32 array's header takes far fewer)"
                ),
            )
        } else {
            npy_invalid(name, &excerpt(text.as_bytes()))
        }
    })
}

/// The number type the header's dtype stores, if a run in `precision` reads it: `<f4`, or
/// `<f8` in an `f64` run.
fn npy_stored_type(
    name: &str,
    header: &npyz::NpyHeader,
    precision: Precision,
) -> Result<Precision, Error> {
    let descr = precision.npy_descr();
    let convert = format!("convert with arr.astype('{descr}')");
    let expected = match precision {
        Precision::F32 => "float32 '<f4'",
        Precision::F64 => "float64 '<f8' or float32 '<f4'",
    };
    match header.dtype() {
        DType::Plain(ts) => match ts.to_string().as_str() {
            "<f4" => Ok(Precision::F32),
            "<f8" if precision == Precision::F64 => Ok(Precision::F64),
            "<f8" => Err(Error::Data(format!(
                "{name}: .npy dtype is float64 '<f8' and this run is f32: pass \
                 --precision f64 to compute in f64 (or {convert} to narrow it yourself)"
            ))),
            text @ (">f4" | ">f8") => Err(Error::Data(format!(
                "{name}: .npy byte order is big-endian ('{text}'), expected little-endian \
                 {expected}: {convert}"
            ))),
            text => Err(Error::Data(format!(
                "{name}: .npy dtype is '{}', expected {expected}: {convert}",
                excerpt(text.as_bytes())
            ))),
        },
        other => Err(Error::Data(format!(
            "{name}: .npy dtype is the structured type {}, expected {expected}",
            excerpt(other.descr().as_bytes())
        ))),
    }
}

/// The number of records the header's shape holds (C order, `(N, width)` or
/// `(N, points, dims)` of `layout`), and the shape as text for messages.
fn npy_pairs(
    name: &str,
    layout: &Layout,
    header: &npyz::NpyHeader,
) -> Result<(u64, String), Error> {
    if header.order() == npyz::Order::Fortran {
        return Err(Error::Data(format!(
            "{name}: .npy array is in Fortran order, expected C order: save \
             np.ascontiguousarray(arr)"
        )));
    }
    let shape = header.shape();
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
    let width = layout.width() as u64;
    let (points, dims) = layout.points;
    match shape {
        [n, k] if *k == width => Ok((*n, shape_text)),
        [n, p, d] if (*p, *d) == (points, dims) => Ok((*n, shape_text)),
        _ => Err(Error::Data(format!(
            "{name}: .npy shape is {shape_text}, expected (N, {width}) or (N, {points}, \
             {dims})"
        ))),
    }
}
