//! `segbatch run`: closest points of every pair in a file, streamed in bounded chunks.

use std::io::IsTerminal;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use segbatch::pairs::{closest_points_into, par_closest_points_into};
use segbatch::sets::{SetElement, pair_distance, within_radius};
use segbatch::{ClosestBatch, Extent, Flags, Options, Outputs, Tolerance, reference};

use super::args::{
    parse_columns, parse_extent, parse_radius_text, parse_tolerance_text, parse_wait,
};
use super::io::{
    Columns, Format, Input, Output, PAIRS, Pair, Precision, Real, Results, SegmentsOf,
    is_std_stream, show, thread_pool,
};
use crate::error::CliError;

pub const LONG_ABOUT: &str = "\
Closest points of every pair in a file, written to another file.

Input: 12 numbers per pair, a.p0, a.p1, b.p0, b.p1 (x, y, z each), as
  CSV   12 numbers per row, optional header row (a first row without numbers)
  .npy  float32 '<f4' or float64 '<f8', C order, shape (N, 12) or (N, 4, 3)
  raw   little-endian numbers, no header: .f32 holds f32 (48 bytes per pair),
        .f64 holds f64 (96 bytes per pair), .raw and .bin the run's precision
The format comes from the extension or --format csv|npy|f32|f64|raw.

Precision: what the run computes and writes, never what a file holds (its
extension, --format or .npy header says that). --precision f32 (the default)
computes and writes f32; --precision f64 computes with the f64 kernel and writes
f64 (CSV: the shortest text that reads back to the same f64; .npy '<f8'; raw
f64). f32 data (.f32, a float32 .npy) in an f64 run is widened exactly; f64
data (.f64, a float64 .npy) in an f32 run is an error that names --precision
f64 (never narrowed). CSV numbers are parsed in the run's precision. An output
named .f32 or .f64 must be the run's precision; one whose name gives no format
is written in the input's (the summary says so). --tolerance and --radius are
read in the run's precision (an f64 run takes --tolerance 1e300 as it is; an
f32 run refuses what f32 cannot hold). In f64 a pair is within a radius beyond
about 1.3e154 (or below 2e-146) by the library's range rule: segments 1e300
apart are measured at a scale where their squared distance is finite, not read
as inf. --radius inf keeps every pair of finite coordinates.

Output: one record per pair (or, with --radius, per pair within R), columns
  index     (u64, with --radius only) the pair's 0-based position in the input
  distance  |C - D|
  s, t      parameters of C = A0 + s*(A1 - A0) and D = B0 + t*(B1 - B0)
  point_a   C (x, y, z);  point_b  D (x, y, z)
  flags     bits: 1 degenerate A, 2 degenerate B, 4 parallel, 8 non-finite input,
            16 squared distance beyond f32's range (beyond ~1.8e19 or, at coordinates
            below ~1e-19, below ~1e-19: distance inf or rounded; points still right;
            in f64 beyond f64's: ~1.3e154 and ~2e-146, where the distance is
            measured at a power-of-two scale and written finite)
in the output's format: CSV with a header row; raw packed little-endian records
in that order (u64 index, f32 (f64) values, u8 flags); .npy a structured array
with those field names (a plain float32 (float64) vector when distance is the
only column).

The input is read in chunks, so memory stays bounded (under 100 MB) whatever its
size or the number of cores; a CSV line is at most 64 KiB. `-` is standard input
(name its --format); pipes, FIFOs and devices are read as streams (a FIFO's first
data is awaited --wait seconds at most).
The output is written to a temporary file beside the target and renamed onto it only on success: an error or a signal
(SIGINT, SIGTERM, SIGHUP) never leaves a partial file; a new file gets the
umask's mode, an existing one keeps its mode, a read-only one is refused, a
symlink is followed. `-` (standard output), FIFOs and devices are written
straight through, never replaced. Non-finite input numbers are not errors: those
pairs are computed (outputs NaN), flagged and counted in the summary on stderr.

Exit status: 0 success; 2 bad arguments or data (running again unchanged fails
again); 1 a failure during the run (read/write error, full disk, input changed);
128+N stopped by signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP, 141 closed pipe).";

pub const AFTER_HELP: &str = "\
Examples:
  segbatch run pairs.csv -o result.csv
  segbatch run pairs.npy -o result.npy --outputs distance,flags
  segbatch run pairs.f32 -o near.csv --radius 0.5
  segbatch run sight.csv -o hits.npy --a ray --b segment --threads 2
  segbatch run data.bin --format raw -o out.raw --outputs distance
  segbatch run ecef.npy -o result.npy --precision f64";

/// Arguments of `segbatch run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Input file of segment pairs (.csv, .npy, or raw .f32/.f64/.raw/.bin); - for standard input
    #[arg(value_name = "INPUT")]
    pub input: PathBuf,

    /// Output file; its format comes from its extension, else the input's; - for standard output
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,

    /// Input format, instead of guessing from the extension (raw keeps a .f32 or .f64
    /// name's number type)
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<Format>,

    /// Output format, instead of guessing from the output's extension
    #[arg(long, value_name = "FORMAT")]
    pub output_format: Option<Format>,

    /// Extent of side A: segment (0 <= s <= 1), ray (s >= 0) or line (any s)
    #[arg(long = "a", value_name = "EXTENT", value_parser = parse_extent, default_value = "segment")]
    pub extent_a: Extent,

    /// Extent of side B: segment (0 <= t <= 1), ray (t >= 0) or line (any t)
    #[arg(long = "b", value_name = "EXTENT", value_parser = parse_extent, default_value = "segment")]
    pub extent_b: Extent,

    /// Numbers computed and written as f32 or f64 (f32 data is widened; f64 data needs f64)
    #[arg(long, value_name = "PRECISION", default_value = "f32")]
    pub precision: Precision,

    /// Absolute degenerate-length tolerance, in coordinate units, read in the run's precision
    /// [default: scale-free]
    #[arg(long, value_name = "EPS", value_parser = parse_tolerance_text)]
    pub tolerance: Option<String>,

    /// Columns to write: comma-separated from distance, params, points, flags, or all
    #[arg(long, value_name = "LIST", value_parser = parse_columns, default_value = "all")]
    pub outputs: Columns,

    /// Write only the pairs with distance <= R (inf: every pair of finite coordinates), each
    /// with its input index
    #[arg(long, value_name = "R", value_parser = parse_radius_text, allow_negative_numbers = true)]
    pub radius: Option<String>,

    /// Worker threads [default: all cores; more are clamped to the CPU count]; 1 runs the
    /// kernel on this thread alone
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,

    /// Pairs per chunk in f32, half as many in f64 (memory is about 150 bytes per f32 pair
    /// of chunk)
    #[arg(long, value_name = "PAIRS", default_value_t = 256 * 1024, hide = true,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub chunk_pairs: u32,

    /// How long to wait for a FIFO input's writer to send data before giving up
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0, value_parser = parse_wait)]
    pub wait: f64,

    /// No summary on stderr
    #[arg(short, long)]
    pub quiet: bool,
}

/// The format of `path`: `explicit`, else from the extension (see [`Format::of`]: a
/// `.f32` or `.f64` name keeps its number type under `--format raw`).
pub(crate) fn format_of(
    path: &Path,
    explicit: Option<Format>,
    what: &str,
) -> Result<Format, CliError> {
    Format::of(path, explicit).ok_or_else(|| {
        CliError::usage(format!(
            "{}: cannot tell the {what} format from the extension: name it .csv, .npy, .f32 \
             or .f64, or pass --{}format csv|npy|f32|f64|raw",
            show(path),
            if what == "output" { "output-" } else { "" }
        ))
    })
}

/// The format of the output `path` of a run of `precision`: `explicit`, else its
/// extension, else `inherited` (the input's container: raw of the run's precision for
/// any raw input), with the note for the summary that says so; an output whose format
/// names another number type than the run's is refused ([`Format::output_in`]).
pub(crate) fn output_format_of(
    path: &Path,
    explicit: Option<Format>,
    inherited: Format,
    precision: Precision,
) -> Result<(Format, Option<String>), CliError> {
    let (format, note) = match Format::of(path, explicit) {
        Some(f) => (f, None),
        None => {
            let f = if inherited.is_raw() {
                Format::Raw
            } else {
                inherited
            };
            let why = if path.extension().is_some() {
                "its extension names no format"
            } else {
                "it has no extension"
            };
            let note = format!(
                "written as {} like the input, as {why} (name it .csv, .npy, .f32 or .f64, or \
                 pass --output-format)",
                f.name_in(precision)
            );
            (f, (!is_std_stream(path)).then_some(note))
        }
    };
    let format = format
        .output_in(precision, &show(path))
        .map_err(CliError::usage)?;
    Ok((format, note))
}

/// True when `output` names the same file as `input` (also through links).
pub(crate) fn same_file(input: &Path, output: &Path) -> bool {
    if is_std_stream(input) || is_std_stream(output) {
        return false;
    }
    let Ok(input) = input.canonicalize() else {
        return false;
    };
    if let Ok(out) = output.canonicalize() {
        if out == input {
            return true;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            if let (Ok(a), Ok(b)) = (std::fs::metadata(&input), std::fs::metadata(&out)) {
                return a.dev() == b.dev() && a.ino() == b.ino();
            }
        }
        return false;
    }
    // The output does not exist yet: compare its directory and name.
    let parent = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match (parent.canonicalize(), output.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name) == input,
        _ => false,
    }
}

/// Counts from one run.
#[derive(Default)]
struct Summary {
    pairs: u64,
    records: u64,
    non_finite: u64,
}

/// The smallest squared distance the library's f64 range rule takes as it is, `2^-968`
/// (`2^54` times the smallest normal number): a square from here to `f64::MAX` is compared
/// and rooted as it is; one outside is decided and measured at a power-of-two scale
/// (`within_radius`, `pair_distance`).
pub(crate) const RANGE_RULE_LO: f64 = f64::MIN_POSITIVE * 18_014_398_509_481_984.0;

/// What a run does differently in each precision, beside the library's generic closest
/// points and range rule (one body over [`SetElement`]): which squared distances the
/// run takes as they are. In f32, all: a pair whose squared distance left f32's range
/// keeps its `sqrt(dist2)` (`inf` or 0, with its `DIST2_OUT_OF_RANGE` flag). In f64 those
/// of the library's range rule, from [`RANGE_RULE_LO`] to `f64::MAX`: a pair or a radius
/// outside is decided and measured by the rule (`within_radius`, `pair_distance`), so that
/// segments 1e300 apart are measured, not read as `inf`.
trait RunReal: Real + SetElement {
    /// The squares taken as they are: `None` for all of them.
    const PLAIN_SQUARES: Option<RangeInclusive<Self>>;
}

impl RunReal for f32 {
    const PLAIN_SQUARES: Option<RangeInclusive<f32>> = None;
}

impl RunReal for f64 {
    const PLAIN_SQUARES: Option<RangeInclusive<f64>> = Some(RANGE_RULE_LO..=f64::MAX);
}

/// Whether pair `i` of the chunk (sides `a`, `b`, results `out`) lies within `r`:
/// `distance <= r`, but for a radius whose square is not one of
/// [`RunReal::PLAIN_SQUARES`] (in f64: 0, or beyond about 1.3e154 or below 2e-146), where
/// a squared distance that left the range cannot be compared with it: a plain one is
/// within exactly when R's square overflowed, any other decided by the library's range
/// rule on the pair.
fn within<E: RunReal>(
    a: &SegmentsOf<E>,
    b: &SegmentsOf<E>,
    options: &Options,
    out: &ClosestBatch<E>,
    i: usize,
    r: E,
) -> bool {
    let (d2, r2) = (out.dist2()[i], r * r);
    let Some(plain) = E::PLAIN_SQUARES else {
        return Real::sqrt(d2) <= r;
    };
    if plain.contains(&r2) || r.into().is_infinite() {
        return Real::sqrt(d2) <= r;
    }
    if plain.contains(&d2) || d2.into().is_nan() {
        return r2.into().is_infinite() && !d2.into().is_nan();
    }
    let (Some(sa), Some(sb)) = (a.get(i), b.get(i)) else {
        return false;
    };
    let c = reference::closest_points_with(&sa, &sb, options);
    within_radius(&sa, &sb, &c, r)
}

/// The distances of the chunk's pairs whose finite-coordinate squared distance is not one
/// of [`RunReal::PLAIN_SQUARES`] (in f64: pairs more than about 1.3e154 or less than
/// about 2e-146 apart; in f32 none), as `(i, distance)` in order of `i`, appended to
/// `far`: the library's `pair_distance` on the reference's closest points (the kernel's,
/// bit for bit), finite wherever the distance is representable.
fn far_distances<E: RunReal>(
    a: &SegmentsOf<E>,
    b: &SegmentsOf<E>,
    options: &Options,
    out: &ClosestBatch<E>,
    far: &mut Vec<(u32, E)>,
) {
    let Some(plain) = E::PLAIN_SQUARES else {
        return;
    };
    for (i, &d2) in out.dist2().iter().enumerate() {
        if d2.into().is_nan() || d2.into() == 0.0 || plain.contains(&d2) {
            continue;
        }
        let (Some(sa), Some(sb)) = (a.get(i), b.get(i)) else {
            continue;
        };
        let c = reference::closest_points_with(&sa, &sb, options);
        far.push((i as u32, pair_distance(&sa, &sb, &c)));
    }
}

/// A chunk's result columns with the distances of its far pairs
/// ([`far_distances`]) in place of `sqrt(dist2)`.
struct Measured<'a, B: Results> {
    batch: &'a B,
    far: &'a [(u32, B::Real)],
}

impl<B: Results> Results for Measured<'_, B> {
    type Real = B::Real;
    fn rows(&self) -> usize {
        self.batch.rows()
    }
    fn dist2(&self) -> &[B::Real] {
        self.batch.dist2()
    }
    fn distance(&self, i: usize) -> B::Real {
        match self.far.binary_search_by_key(&(i as u32), |&(k, _)| k) {
            Ok(k) => self.far[k].1,
            Err(_) => self.batch.distance(i),
        }
    }
    fn s(&self) -> &[B::Real] {
        self.batch.s()
    }
    fn t(&self) -> &[B::Real] {
        self.batch.t()
    }
    fn point_a(&self) -> [&[B::Real]; 3] {
        self.batch.point_a()
    }
    fn point_b(&self) -> [&[B::Real]; 3] {
        self.batch.point_b()
    }
    fn flags(&self) -> &[Flags] {
        self.batch.flags()
    }
}

/// Runs `segbatch run`.
pub fn run(args: &RunArgs) -> Result<(), CliError> {
    match args.precision {
        Precision::F32 => run_in::<f32>(args),
        Precision::F64 => run_in::<f64>(args),
    }
}

/// Runs `segbatch run` in the precision `T`.
fn run_in<T: RunReal>(args: &RunArgs) -> Result<(), CliError> {
    let start = Instant::now();
    let radius = radius_of::<T>(args)?;
    let in_format = format_of(&args.input, args.format, "input")?;
    let (out_format, out_note) =
        output_format_of(&args.output, args.output_format, in_format, T::PRECISION)?;
    if same_file(&args.input, &args.output) {
        return Err(CliError::usage(format!(
            "{}: the output is the input file; write the results to another file",
            show(&args.output)
        )));
    }
    let mut columns = args.outputs;
    columns.index = args.radius.is_some();

    let wait = std::time::Duration::from_secs_f64(args.wait);
    let mut input = Input::<T>::open(&args.input, &PAIRS, in_format, wait)?;
    let known_rows = if args.radius.is_some() {
        None
    } else {
        input.total_pairs
    };
    let mut output = Output::<T>::create(&args.output, out_format, columns, known_rows)?;

    let options = options_of::<T>(args)?;
    // Flags are always computed: the summary counts the non-finite pairs.
    let outputs = Outputs {
        params: columns.params,
        points: columns.points,
        flags: true,
    };

    let progress = progress_bar(input.total_bytes);
    let pool = thread_pool(args.threads, "run", args.quiet)?;
    let single = pool.current_num_threads() == 1;
    let body = || -> Result<Summary, CliError> {
        // The same bytes per chunk in either precision.
        let chunk = (args.chunk_pairs as usize * 4 / T::PRECISION.bytes() as usize).max(1);
        let mut pairs: Vec<Pair<T>> = Vec::with_capacity(chunk);
        let mut side: Vec<T::Segment> = Vec::with_capacity(chunk);
        let mut a = SegmentsOf::<T>::with_capacity(chunk);
        let mut b = SegmentsOf::<T>::with_capacity(chunk);
        let mut out = ClosestBatch::<T>::default();
        let mut selected: Vec<u32> = Vec::new();
        let mut far: Vec<(u32, T)> = Vec::new();
        let mut summary = Summary::default();
        loop {
            let base = input.pairs_read();
            let n = input.read_chunk(&mut pairs, chunk)?;
            if n == 0 {
                break;
            }
            for (batch, half) in [(&mut a, 0), (&mut b, 6)] {
                side.clear();
                side.extend(pairs.iter().map(|p| {
                    T::Segment::from([
                        [p[half], p[half + 1], p[half + 2]],
                        [p[half + 3], p[half + 4], p[half + 5]],
                    ])
                }));
                batch.clear();
                batch.extend_from_slice(&side);
            }
            let computed = if single {
                closest_points_into(&a, &b, &options, outputs, &mut out)
            } else {
                par_closest_points_into(&a, &b, &options, outputs, &mut out)
            };
            computed.expect("both sides are read in blocks of the same length");
            summary.pairs += n as u64;
            summary.non_finite += out
                .flags()
                .iter()
                .filter(|f| f.contains(Flags::NON_FINITE))
                .count() as u64;
            let within = radius.map(|r| {
                selected.clear();
                selected.extend(
                    (0..out.dist2().len())
                        .filter(|&i| within(&a, &b, &options, &out, i, r))
                        .map(|i| i as u32),
                );
                &selected[..]
            });
            if columns.distance {
                far.clear();
                far_distances(&a, &b, &options, &out, &mut far);
            }
            let measured = Measured {
                batch: &out,
                far: &far,
            };
            output.write(&measured, base, within)?;
            progress.set_position(input.bytes_read());
        }
        Ok(summary)
    };
    let summary = pool.install(body);
    progress.finish_and_clear();
    let mut summary = summary?;
    summary.records = output.finish()?;

    if !args.quiet {
        let formats = (
            in_format.name_in(T::PRECISION),
            out_format.name_in(T::PRECISION),
        );
        report(
            args,
            &summary,
            formats,
            out_note.as_deref(),
            T::PRECISION.name(),
            start,
        );
    }
    Ok(())
}

/// `--radius` in the run's precision; an error when it is finite but beyond `f32`'s range
/// in an `f32` run.
fn radius_of<T: RunReal>(args: &RunArgs) -> Result<Option<T>, CliError> {
    let Some(text) = args.radius.as_deref() else {
        return Ok(None);
    };
    let r: T = text.parse().expect("checked by parse_radius_text");
    let asked: f64 = text.parse().expect("checked by parse_radius_text");
    if r.into().is_infinite() && asked.is_finite() {
        return Err(CliError::usage(format!(
            "--radius {text} is beyond the range of f32 (about 3.4e38): pass --precision f64"
        )));
    }
    Ok(Some(r))
}

/// The extents and tolerance of the run; an error when `--tolerance` is beyond `f32`'s
/// range in an `f32` run.
fn options_of<T: RunReal>(args: &RunArgs) -> Result<Options, CliError> {
    let options = Options::new(args.extent_a, args.extent_b);
    let Some(text) = &args.tolerance else {
        return Ok(options);
    };
    // In the run's precision: an f32 run reads the f32 nearest EPS (widened exactly), an
    // f64 run the f64 nearest (1e300 included).
    let eps: T = text.parse().expect("checked by parse_tolerance_text");
    if !eps.into().is_finite() {
        return Err(CliError::usage(format!(
            "--tolerance {text} is beyond the range of f32 (about 3.4e38): pass --precision f64"
        )));
    }
    Ok(options.with_tolerance(Tolerance::absolute64(eps.into())))
}

/// The run's summary on stderr: pairs, records, formats (`(input, output)`), time and
/// rate, the output format's note and the non-finite pairs.
fn report(
    args: &RunArgs,
    summary: &Summary,
    formats: (&str, &str),
    out_note: Option<&str>,
    precision: &str,
    start: Instant,
) {
    let secs = start.elapsed().as_secs_f64();
    let mut line = format!(
        "segbatch run: {} pairs from {} ({}) -> {} records in {} ({}), {precision}, in \
         {secs:.2} s ({:.1} M pairs/s)",
        summary.pairs,
        show(&args.input),
        formats.0,
        summary.records,
        show(&args.output),
        formats.1,
        summary.pairs as f64 / secs / 1e6
    );
    if let Some(r) = &args.radius {
        line.push_str(&format!("; {} within radius {r}", summary.records));
    }
    eprintln!("{line}");
    if let Some(note) = out_note {
        eprintln!("segbatch run: {}: {note}", show(&args.output));
    }
    if summary.non_finite > 0 {
        eprintln!(
            "segbatch run: {} pairs had a NaN or infinite input coordinate: their outputs are \
             NaN and flagged non_finite (8)",
            summary.non_finite
        );
    }
}

/// A progress bar on stderr when it is a terminal; hidden otherwise.
pub fn progress_bar(total_bytes: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total_bytes);
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    bar
}
