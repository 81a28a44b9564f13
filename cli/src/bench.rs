//! `segbatch bench`: throughput of the scalar reference, the kernel on one thread and the
//! parallel driver on built-in workloads, against this machine's streaming bound measured
//! in the same run.
//!
//! # What is measured
//!
//! For each workload the largest batch is generated once; smaller sizes are prefixes of it.
//! Each figure is the median of timed repetitions: one warm-up call, then repetitions until
//! about `--budget` seconds of work (at least 3, or 1 when a single call takes longer than
//! the budget), each repetition timing enough calls to last about a millisecond.
//!
//! The **streaming bound** is a pass that reads the same input columns (48 bytes per pair)
//! and writes the same output columns as the kernel, computing nothing but a sum: no
//! implementation that reads its inputs and writes its outputs can beat it at that size.
//! It is measured single-threaded (the bound for the reference and the kernel) and on all
//! threads (the bound for the parallel driver), into 32-byte aligned columns like the
//! library's, and reported as its fastest sample (a bound is the best the machine can do).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use segbatch::pairs::{
    PAR_CHUNK_PAIRS, PAR_MIN_PAIRS, closest_points_into, par_closest_points_into,
};
use segbatch::{ClosestBatch, Options, Outputs, SegmentsView, reference};

use super::format::json_str;
use super::io::Columns;
use super::io::{Sink, write_whole};
use super::run::parse_columns;
use super::workload::{WORKLOADS, Workload, generate};
use crate::error::CliError;

pub const LONG_ABOUT: &str = "\
Throughput on built-in workloads, in one run that takes well under a minute.

Four workloads are generated in-process: uniform random pairs, a physics-like
capsule scene, a navigation scene (sight rays against walls) and a near-parallel
stress mix. For each workload and batch size it times the scalar reference, the
8-lane kernel on one thread and the parallel driver on all threads, and prints
millions of pairs per second, GB/s moved (48 bytes read plus the output columns
written per pair), the fraction of the streaming bound reached, and the speedup
over the reference.

The streaming bound is measured in the same run: a pass that reads the same input
bytes and writes the same output bytes and computes nothing else, on one thread
(the bound for the reference and the kernel) and on all threads (for the parallel
driver). Figures are medians of repeated timings.

Memory: the largest size holds its inputs (48 bytes per pair: 768 MiB at 16M) and
three output sets (13 bytes per pair each with the default outputs), about 1.4 GB
at 16M pairs.";

pub const AFTER_HELP: &str = "\
Examples:
  segbatch bench
  segbatch bench --quick
  segbatch bench --sizes 1K,1M --workloads uniform,capsules --outputs all
  segbatch bench --plot bench.svg --json bench.json";

/// Arguments of `segbatch bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Batch sizes, comma-separated, with K = 1024 and M = 1024² [default: 1K,64K,1M,16M]
    #[arg(long, value_name = "LIST", value_parser = parse_sizes)]
    pub sizes: Option<Sizes>,

    /// Workloads, comma-separated: uniform, capsules, navigation, near-parallel, or all
    #[arg(long, value_name = "LIST", value_parser = parse_workloads, default_value = "all")]
    pub workloads: WorkloadSet,

    /// A quick run: sizes 1K,64K,1M and a shorter time per figure
    #[arg(long)]
    pub quick: bool,

    /// Columns the kernel writes: distance, params, points, flags, or all
    #[arg(long, value_name = "LIST", value_parser = parse_columns, default_value = "distance,params,flags")]
    pub outputs: Columns,

    /// Threads for the parallel rows [default: all cores; more are clamped to the CPU count]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,

    /// Seconds of timed work per figure [default: 0.15, or 0.1 with --quick]
    #[arg(long, value_name = "SECONDS")]
    pub budget: Option<f64>,

    /// Draw throughput against batch size for each implementation into an SVG file
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,

    /// Also write every figure as JSON to FILE ('-' for stdout, instead of the tables)
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Seed of the generated workloads
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Run the set-query workload instead (pairs within r of 100K, 1M and 4M segments vs
    /// sort-and-sweep and BVH peers using parry3d; index pairs); --sizes, --quick,
    /// --threads, --budget and --seed apply
    #[arg(long, conflicts_with_all = ["workloads", "outputs", "plot", "json"])]
    pub sets: bool,

    /// With --sets: also run the sort-and-sweep peer above 1M segments (minutes)
    #[arg(long, requires = "sets")]
    pub sweep_4m: bool,

    /// Run the frame scenes instead: 50K moving capsules, 60 frames, touching pairs and
    /// contacts vs parry3d's refitted Bvh; then 20K fast, thin capsules among thin walls,
    /// 20 steps, the pairs that touched during each step vs parry3d's cast_shapes and a
    /// rapier-style CCD pass (failing on a contact the f64 oracle finds earlier); then thick
    /// sight rays against dense and sparse walls vs parry3d's Bvh::cast_ray. --sizes (the
    /// capsules of both capsule scenes), --quick, --threads, --seed apply
    #[arg(long, conflicts_with_all = ["workloads", "outputs", "plot", "json", "sets"])]
    pub scenes: bool,
}

/// Batch sizes.
#[derive(Clone, Debug)]
pub struct Sizes(pub Vec<usize>);

/// Indices into [`WORKLOADS`].
#[derive(Clone, Debug)]
pub struct WorkloadSet(pub Vec<usize>);

fn parse_sizes(text: &str) -> Result<Sizes, String> {
    let mut sizes = Vec::new();
    for item in text.split(',').map(str::trim) {
        let upper = item.to_ascii_uppercase();
        let (digits, unit) = match upper.as_bytes().last() {
            Some(b'K') => (&upper[..upper.len() - 1], 1024),
            Some(b'M') => (&upper[..upper.len() - 1], 1024 * 1024),
            _ => (&upper[..], 1),
        };
        let n: usize = digits
            .parse()
            .map_err(|_| format!("'{item}' is not a size (examples: 1000, 64K, 16M)"))?;
        if n == 0 || n.saturating_mul(unit) > 256 * 1024 * 1024 {
            return Err(format!("size '{item}' must be between 1 and 256M pairs"));
        }
        sizes.push(n * unit);
    }
    sizes.sort_unstable();
    sizes.dedup();
    Ok(Sizes(sizes))
}

fn parse_workloads(text: &str) -> Result<WorkloadSet, String> {
    let mut set = Vec::new();
    for item in text.split(',').map(str::trim) {
        if item.eq_ignore_ascii_case("all") {
            set.extend(0..WORKLOADS.len());
            continue;
        }
        let k = WORKLOADS
            .iter()
            .position(|w| w.name.eq_ignore_ascii_case(item))
            .ok_or_else(|| {
                let names: Vec<&str> = WORKLOADS.iter().map(|w| w.name).collect();
                format!("unknown workload '{item}': use {} or all", names.join(", "))
            })?;
        set.push(k);
    }
    set.sort_unstable();
    set.dedup();
    Ok(WorkloadSet(set))
}

/// A size as people write it: 1K, 64K, 1M, 16M, else the plain number.
pub fn size_label(n: usize) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{}M", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{}K", n >> 10)
    } else {
        n.to_string()
    }
}

/// The implementations timed, in table order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Implementation {
    Reference,
    Kernel,
    Parallel,
}

impl Implementation {
    pub const ALL: [Implementation; 3] = [
        Implementation::Reference,
        Implementation::Kernel,
        Implementation::Parallel,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Implementation::Reference => "reference",
            Implementation::Kernel => "kernel",
            Implementation::Parallel => "parallel",
        }
    }
}

/// One timed figure.
#[derive(Clone, Debug)]
pub struct Figure {
    /// Median seconds per call.
    pub seconds: f64,
    /// Fastest sample, seconds per call: the streaming bound reports this (as its `seconds`),
    /// since a bound is the best the machine can do and a busy machine only makes samples
    /// slower.
    pub best: f64,
    pub samples: usize,
}

/// The streaming bound at one size.
#[derive(Clone, Debug)]
pub struct Bound {
    pub pairs: usize,
    pub single: Figure,
    pub parallel: Figure,
}

/// One row of a workload table.
#[derive(Clone, Debug)]
pub struct Row {
    pub workload: &'static str,
    pub pairs: usize,
    pub implementation: Implementation,
    pub threads: usize,
    pub figure: Figure,
}

/// Everything a run measured.
pub struct Report {
    pub threads: usize,
    pub bytes_read: usize,
    pub bytes_written: usize,
    pub bounds: Vec<Bound>,
    pub rows: Vec<Row>,
    pub workloads: Vec<&'static Workload>,
}

impl Report {
    pub fn mpairs(pairs: usize, f: &Figure) -> f64 {
        pairs as f64 / f.seconds / 1e6
    }

    pub fn gbps(&self, pairs: usize, f: &Figure) -> f64 {
        pairs as f64 * (self.bytes_read + self.bytes_written) as f64 / f.seconds / 1e9
    }

    pub fn bound(&self, pairs: usize) -> &Bound {
        self.bounds
            .iter()
            .find(|b| b.pairs == pairs)
            .expect("a bound for every size")
    }

    fn row(&self, workload: &str, pairs: usize, imp: Implementation) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.workload == workload && r.pairs == pairs && r.implementation == imp)
    }

    /// Throughput over the bound for the same thread count.
    pub fn of_bound(&self, row: &Row) -> f64 {
        let b = self.bound(row.pairs);
        let bound = match row.implementation {
            Implementation::Parallel => &b.parallel,
            _ => &b.single,
        };
        bound.seconds / row.figure.seconds
    }

    /// Speedup over the reference for the same workload and size.
    pub fn speedup(&self, row: &Row) -> Option<f64> {
        self.row(row.workload, row.pairs, Implementation::Reference)
            .map(|r| r.figure.seconds / row.figure.seconds)
    }
}

/// Median time of `f`, timed as described in the module docs.
pub(crate) fn measure(budget: f64, mut f: impl FnMut()) -> Figure {
    let start = Instant::now();
    f(); // warm-up: first touch of the outputs, caches, thread wake-up
    let once = start.elapsed().as_secs_f64().max(1e-9);
    let calls = ((1e-3 / once).ceil() as usize).max(1);
    let per_sample = once * calls as f64;
    let min = if once > budget { 1 } else { 3 };
    let samples = ((budget / per_sample) as usize).clamp(min, 25);
    let mut times: Vec<f64> = (0..samples)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..calls {
                f();
            }
            t.elapsed().as_secs_f64() / calls as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    Figure {
        seconds: times[times.len() / 2],
        best: times[0],
        samples,
    }
}

/// A zeroed `f32` column 32-byte aligned like the library's own (a `Vec<f32x8>` seen as
/// `f32`), so the streaming pass stores as efficiently as the kernel does.
struct AlignedF32(Vec<wide::f32x8>);

impl AlignedF32 {
    fn zeros(n: usize) -> Self {
        AlignedF32(vec![wide::f32x8::ZERO; n.div_ceil(8)])
    }
}

impl std::ops::Deref for AlignedF32 {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        bytemuck::cast_slice(&self.0)
    }
}

impl std::ops::DerefMut for AlignedF32 {
    fn deref_mut(&mut self) -> &mut [f32] {
        bytemuck::cast_slice_mut(&mut self.0)
    }
}

/// Output columns written by the reference loop and the streaming pass (the kernel's own
/// go into a [`ClosestBatch`]).
struct Columns32 {
    f32_cols: Vec<AlignedF32>,
    flags: Option<Vec<u8>>,
}

impl Columns32 {
    fn new(n: usize, outputs: Outputs) -> Self {
        let count = 1 + 2 * usize::from(outputs.params) + 6 * usize::from(outputs.points);
        Columns32 {
            f32_cols: (0..count).map(|_| AlignedF32::zeros(n)).collect(),
            flags: outputs.flags.then(|| vec![0; n]),
        }
    }
}

/// The scalar reference over a batch, storing the selected columns.
fn reference_pass(a: SegmentsView, b: SegmentsView, options: &Options, out: &mut Columns32) {
    let n = a.len();
    let mut cols: Vec<&mut [f32]> = out.f32_cols.iter_mut().map(|c| &mut c[..n]).collect();
    let mut flags = out.flags.as_mut().map(|f| &mut f[..n]);
    for (i, (sa, sb)) in a.iter().zip(b.iter()).enumerate() {
        let c = reference::closest_points_with(&sa, &sb, options);
        cols[0][i] = c.dist2;
        if cols.len() >= 3 {
            cols[1][i] = c.s;
            cols[2][i] = c.t;
        }
        if cols.len() == 9 || cols.len() == 7 {
            let k = cols.len() - 6;
            for j in 0..3 {
                cols[k + j][i] = c.point_a[j];
                cols[k + 3 + j][i] = c.point_b[j];
            }
        }
        if let Some(f) = flags.as_mut() {
            f[i] = c.flags.bits();
        }
    }
}

/// The streaming bound on `[start, start + len)`: read the 12 input columns, write every
/// output column, eight pairs at a time in lockstep, the access pattern of the kernel (all
/// columns streamed together, so the hardware prefetchers see one long stream per column).
fn stream_block(
    inputs: &[&[f32]; 12],
    start: usize,
    cols: &mut [&mut [f32]],
    flags: Option<&mut [u8]>,
) {
    use wide::f32x8;
    let len = cols[0].len();
    let groups = len / 8;
    let ins: [&[[f32; 8]]; 12] = core::array::from_fn(|k| {
        &inputs[k][start..start + groups * 8].as_chunks::<8>().0[..groups]
    });
    let mut flags = flags;
    for g in 0..groups {
        let sum = ins
            .iter()
            .fold(f32x8::ZERO, |acc, col| acc + f32x8::from(col[g]));
        let sum = sum.to_array();
        for col in cols.iter_mut() {
            col[g * 8..g * 8 + 8].copy_from_slice(&sum);
        }
        if let Some(f) = flags.as_mut() {
            for (f, s) in f[g * 8..g * 8 + 8].iter_mut().zip(sum) {
                *f = u8::from(s > 0.0);
            }
        }
    }
    for i in groups * 8..len {
        let sum: f32 = inputs.iter().map(|col| col[start + i]).sum();
        for col in cols.iter_mut() {
            col[i] = sum;
        }
        if let Some(f) = flags.as_mut() {
            f[i] = u8::from(sum > 0.0);
        }
    }
}

fn stream_pass(a: SegmentsView, b: SegmentsView, out: &mut Columns32, parallel: bool) {
    let n = a.len();
    let (ac, bc) = (a.columns(), b.columns());
    let inputs: [&[f32]; 12] = core::array::from_fn(|k| if k < 6 { ac[k] } else { bc[k - 6] });
    if !parallel {
        let mut cols: Vec<&mut [f32]> = out.f32_cols.iter_mut().map(|c| &mut c[..n]).collect();
        stream_block(
            &inputs,
            0,
            &mut cols,
            out.flags.as_mut().map(|f| &mut f[..n]),
        );
        return;
    }
    // The parallel driver's chunking: PAR_CHUNK_PAIRS per task.
    let mut chunked: Vec<_> = out
        .f32_cols
        .iter_mut()
        .map(|c| c[..n].chunks_mut(PAR_CHUNK_PAIRS))
        .collect();
    let mut flag_chunks = out
        .flags
        .as_mut()
        .map(|f| f[..n].chunks_mut(PAR_CHUNK_PAIRS));
    let mut jobs = Vec::with_capacity(n.div_ceil(PAR_CHUNK_PAIRS));
    for k in 0..n.div_ceil(PAR_CHUNK_PAIRS) {
        let cols: Vec<&mut [f32]> = chunked
            .iter_mut()
            .map(|it| it.next().expect("same chunks"))
            .collect();
        let flags = flag_chunks.as_mut().and_then(Iterator::next);
        jobs.push((k * PAR_CHUNK_PAIRS, cols, flags));
    }
    jobs.into_par_iter().for_each(|(start, mut cols, flags)| {
        stream_block(&inputs, start, &mut cols, flags);
    });
}

/// Runs `segbatch bench`.
pub fn run(args: &BenchArgs, out: &mut impl Write) -> Result<(), CliError> {
    if args.sets {
        return super::bench_sets::run(args, out);
    }
    if args.scenes {
        // The moving capsule scene, its swept contacts (fast, thin capsules and walls), then
        // the sight rays (dense and sparse walls).
        super::bench_scenes::run(args, out)?;
        writeln!(out)?;
        super::bench_swept::run(args, out)?;
        writeln!(out)?;
        return super::bench_rays::run(args, out);
    }
    let wall = Instant::now();
    let sizes = match &args.sizes {
        Some(s) => s.0.clone(),
        None if args.quick => vec![1 << 10, 64 << 10, 1 << 20],
        None => vec![1 << 10, 64 << 10, 1 << 20, 16 << 20],
    };
    let budget = args.budget.unwrap_or(if args.quick { 0.1 } else { 0.15 });
    if !(budget > 0.0 && budget <= 60.0) {
        return Err(CliError::usage("--budget must be between 0 and 60 seconds"));
    }
    let pool = segbatch_cli::io::thread_pool(args.threads, "bench", false)?;
    // The plot's and the JSON's paths are checked (and their temporary files made) before
    // the work, so an unusable path fails at once; they are written whole at the end.
    let to_stdout = args.json.as_deref() == Some(std::path::Path::new("-"));
    let open = |path: &std::path::Path| Sink::open(path).map_err(CliError::from);
    if let Some(path) = &args.plot {
        check_plot_path(path)?;
    }
    let mut plot_sink = args.plot.as_deref().map(open).transpose()?;
    let mut json_sink = match &args.json {
        Some(path) if !to_stdout => Some(open(path)?),
        _ => None,
    };
    let columns = args.outputs;
    let outputs = Outputs {
        params: columns.params,
        points: columns.points,
        flags: columns.flags,
    };
    let written = outputs.bytes_per_pair();
    let workloads: Vec<&'static Workload> =
        args.workloads.0.iter().map(|&k| &WORKLOADS[k]).collect();
    if !to_stdout {
        write_preamble(
            out,
            pool.current_num_threads(),
            &sizes,
            &columns,
            written,
            budget,
        )?;
        out.flush()?;
    }

    let cells = sizes.len() * (2 + workloads.len() * 3) + workloads.len();
    let progress = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(cells as u64);
        bar.set_style(
            ProgressStyle::with_template("{spinner} bench [{bar:30}] {pos}/{len} {msg}")
                .expect("a valid template")
                .progress_chars("=> "),
        );
        bar
    } else {
        ProgressBar::hidden()
    };

    let max = *sizes.last().expect("at least one size");
    let mut report = Report {
        threads: pool.current_num_threads(),
        bytes_read: 48,
        bytes_written: written,
        bounds: Vec::new(),
        rows: Vec::new(),
        workloads: workloads.clone(),
    };
    let mut kernel_out = ClosestBatch::new();
    let mut side_out = Columns32::new(max, outputs);
    for (w_index, workload) in workloads.iter().enumerate() {
        progress.set_message(format!(
            "generating {} ({} pairs)",
            workload.name,
            size_label(max)
        ));
        let seed = args.seed.wrapping_add(w_index as u64);
        let (a, b) = pool.install(|| generate(max, seed, workload.pair));
        progress.inc(1);
        for &n in &sizes {
            let (av, bv) = (a.view(..n), b.view(..n));
            pool.install(|| {
                if w_index == 0 {
                    progress.set_message(format!("streaming bound, {} pairs", size_label(n)));
                    let single = measure(budget, || stream_pass(av, bv, &mut side_out, false));
                    progress.inc(1);
                    let parallel = measure(budget, || stream_pass(av, bv, &mut side_out, true));
                    progress.inc(1);
                    // A bound is the best the machine can do: report its fastest sample.
                    let fastest = |f: Figure| Figure {
                        seconds: f.best,
                        ..f
                    };
                    report.bounds.push(Bound {
                        pairs: n,
                        single: fastest(single),
                        parallel: fastest(parallel),
                    });
                }
                let opts = &workload.options;
                for imp in Implementation::ALL {
                    progress.set_message(format!(
                        "{} {}, {} pairs",
                        workload.name,
                        imp.key(),
                        size_label(n)
                    ));
                    let figure = match imp {
                        Implementation::Reference => {
                            measure(budget, || reference_pass(av, bv, opts, &mut side_out))
                        }
                        Implementation::Kernel => measure(budget, || {
                            closest_points_into(av, bv, opts, outputs, &mut kernel_out)
                                .expect("the sides have the same length");
                        }),
                        Implementation::Parallel => measure(budget, || {
                            par_closest_points_into(av, bv, opts, outputs, &mut kernel_out)
                                .expect("the sides have the same length");
                        }),
                    };
                    progress.inc(1);
                    let threads = match imp {
                        Implementation::Parallel if n >= PAR_MIN_PAIRS => report.threads,
                        _ => 1,
                    };
                    report.rows.push(Row {
                        workload: workload.name,
                        pairs: n,
                        implementation: imp,
                        threads,
                        figure,
                    });
                }
            });
            // Keep the optimiser honest: the results are used.
            std::hint::black_box(kernel_out.dist2().first());
            std::hint::black_box(side_out.f32_cols[0].first());
        }
        drop((a, b));
        if !to_stdout {
            progress.suspend(|| {
                write_workload(out, &report, workload, &sizes).and_then(|()| out.flush())
            })?;
        }
    }
    progress.finish_and_clear();
    let wall = wall.elapsed().as_secs_f64();

    if let Some((name, sink)) = plot_sink.take() {
        let svg = super::plot::draw(&report, &sizes)
            .map_err(|e| CliError::failed(format!("{name}: cannot draw the plot: {e}")))?;
        write_whole(&name, sink, svg.as_bytes())?;
    }
    if args.json.is_some() {
        let text = json(&report, &columns, wall);
        match json_sink.take() {
            Some((name, sink)) => write_whole(&name, sink, (text + "\n").as_bytes())?,
            None => writeln!(out, "{text}")?,
        }
    }
    if !to_stdout {
        writeln!(out, "Wall time {wall:.1} s.")?;
        if let Some(path) = &args.plot {
            writeln!(out, "Plot written to {}.", path.display())?;
        }
        if let Some(path) = &args.json {
            writeln!(out, "JSON written to {}.", path.display())?;
        }
    }
    Ok(())
}

/// The plot is SVG text: a `--plot` path whose extension is not `.svg` (a `.png`, a
/// `.pdf`) would hold text its name does not promise, so it is refused before any work. A
/// path without an extension (a FIFO, a device, `-`) is written as SVG.
fn check_plot_path(path: &std::path::Path) -> Result<(), CliError> {
    match path.extension() {
        Some(ext) if !ext.eq_ignore_ascii_case("svg") => Err(CliError::usage(format!(
            "{}: --plot writes SVG, and this name says .{}: name it .svg (convert the SVG \
             to other formats with another tool)",
            path.display(),
            ext.to_string_lossy()
        ))),
        _ => Ok(()),
    }
}

fn write_preamble(
    out: &mut impl Write,
    threads: usize,
    sizes: &[usize],
    columns: &Columns,
    written: usize,
    budget: f64,
) -> std::io::Result<()> {
    let names: Vec<&str> = columns
        .names()
        .into_iter()
        .map(|n| match n {
            "distance" => "dist2",
            "point_a.x" => "point_a",
            "point_b.x" => "point_b",
            other => other,
        })
        .filter(|n| !n.contains('.'))
        .collect();
    writeln!(
        out,
        "segbatch bench {}: closest points of 3D segment pairs in f32",
        env!("CARGO_PKG_VERSION")
    )?;
    writeln!(
        out,
        "SIMD build: {} (CPU: {}); {threads} threads for the parallel rows",
        segbatch::simd::SIMD_LEVEL,
        segbatch::simd::cpu_simd_level()
    )?;
    if let Some(hint) = super::simd_upgrade_hint() {
        writeln!(out, "warning: {hint}")?;
    }
    let labels: Vec<String> = sizes.iter().map(|&n| size_label(n)).collect();
    writeln!(
        out,
        "Sizes {} pairs (K = 1024, M = 1024²); outputs {} ({written} B written + 48 B read per pair).",
        labels.join(", "),
        names.join(",")
    )?;
    writeln!(
        out,
        "Each figure is a median over about {budget} s of repeated timings. GB/s counts the bytes\n\
         read and written; \"of bound\" is the fraction of the streaming bound (a pass moving the\n\
         same bytes and computing nothing; its fastest sample) on the same number of threads,\n\
         measured below."
    )?;
    Ok(())
}

fn write_workload(
    out: &mut impl Write,
    report: &Report,
    workload: &Workload,
    sizes: &[usize],
) -> std::io::Result<()> {
    if report
        .rows
        .iter()
        .filter(|r| r.workload == workload.name)
        .count()
        == report.rows.len()
    {
        // First workload: the bounds were measured with it; print them once.
        writeln!(out)?;
        writeln!(
            out,
            "streaming bound (reads 48 B and writes {} B per pair, no computation)",
            report.bytes_written
        )?;
        writeln!(
            out,
            "{:>8}  {:<22} {:>10} {:>8}",
            "pairs", "threads", "Mpairs/s", "GB/s"
        )?;
        for b in &report.bounds {
            for (label, f) in [
                ("1 thread", &b.single),
                (&*format!("{} threads", report.threads), &b.parallel),
            ] {
                writeln!(
                    out,
                    "{:>8}  {:<22} {:>10.1} {:>8.1}",
                    size_label(b.pairs),
                    label,
                    Report::mpairs(b.pairs, f),
                    report.gbps(b.pairs, f)
                )?;
            }
        }
    }
    let (extent_a, extent_b) = (workload.options.extent_a, workload.options.extent_b);
    writeln!(out)?;
    writeln!(
        out,
        "{}: {} [{:?} vs {:?}]",
        workload.name, workload.description, extent_a, extent_b
    )?;
    writeln!(
        out,
        "{:>8}  {:<22} {:>10} {:>8} {:>9} {:>13}",
        "pairs", "implementation", "Mpairs/s", "GB/s", "of bound", "vs reference"
    )?;
    for &n in sizes {
        for row in report
            .rows
            .iter()
            .filter(|r| r.workload == workload.name && r.pairs == n)
        {
            let label = match row.implementation {
                Implementation::Reference => "reference (scalar)".to_owned(),
                Implementation::Kernel => "kernel, 1 thread".to_owned(),
                Implementation::Parallel if row.threads == 1 => "parallel (1 thread)*".to_owned(),
                Implementation::Parallel => format!("parallel, {} threads", row.threads),
            };
            let speedup = report
                .speedup(row)
                .map_or("-".to_owned(), |s| format!("{s:.1}x"));
            writeln!(
                out,
                "{:>8}  {:<22} {:>10.1} {:>8.2} {:>8.0}% {:>13}",
                size_label(n),
                label,
                Report::mpairs(n, &row.figure),
                report.gbps(n, &row.figure),
                100.0 * report.of_bound(row),
                speedup
            )?;
        }
    }
    if sizes.iter().any(|&n| n < PAR_MIN_PAIRS) {
        writeln!(
            out,
            "  * below {} pairs the parallel driver runs on the calling thread (PAR_MIN_PAIRS)",
            PAR_MIN_PAIRS
        )?;
    }
    Ok(())
}

fn json(report: &Report, columns: &Columns, wall: f64) -> String {
    let figure = |pairs: usize, f: &Figure| {
        format!(
            "\"median_seconds\":{:e},\"samples\":{},\"mpairs_per_s\":{:.3},\"gb_per_s\":{:.3}",
            f.seconds,
            f.samples,
            Report::mpairs(pairs, f),
            report.gbps(pairs, f)
        )
    };
    let bounds: Vec<String> = report
        .bounds
        .iter()
        .flat_map(|b| {
            [
                format!(
                    "{{\"pairs\":{},\"threads\":1,{}}}",
                    b.pairs,
                    figure(b.pairs, &b.single)
                ),
                format!(
                    "{{\"pairs\":{},\"threads\":{},{}}}",
                    b.pairs,
                    report.threads,
                    figure(b.pairs, &b.parallel)
                ),
            ]
        })
        .collect();
    let rows: Vec<String> = report
        .rows
        .iter()
        .map(|r| {
            format!(
                "{{\"workload\":{},\"pairs\":{},\"implementation\":{},\"threads\":{},{},\
                 \"fraction_of_bound\":{:.4},\"speedup_vs_reference\":{}}}",
                json_str(r.workload),
                r.pairs,
                json_str(r.implementation.key()),
                r.threads,
                figure(r.pairs, &r.figure),
                report.of_bound(r),
                report
                    .speedup(r)
                    .map_or("null".to_owned(), |s| format!("{s:.3}"))
            )
        })
        .collect();
    let names: Vec<String> = columns.names().iter().map(|n| json_str(n)).collect();
    format!(
        "{{\"version\":{},\"simd_level\":{},\"cpu_simd_level\":{},\"threads\":{},\
         \"outputs\":[{}],\"bytes_read_per_pair\":{},\"bytes_written_per_pair\":{},\
         \"wall_seconds\":{wall:.3},\"streaming_bound\":[{}],\"results\":[{}]}}",
        json_str(env!("CARGO_PKG_VERSION")),
        json_str(segbatch::simd::SIMD_LEVEL),
        json_str(segbatch::simd::cpu_simd_level()),
        report.threads,
        names.join(","),
        report.bytes_read,
        report.bytes_written,
        bounds.join(","),
        rows.join(",")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(
            parse_sizes("1K, 16M,1000").unwrap().0,
            vec![1000, 1024, 16 << 20]
        );
        assert!(parse_sizes("0").is_err());
        assert!(parse_sizes("abc").is_err());
        assert_eq!(size_label(64 << 10), "64K");
        assert_eq!(size_label(1000), "1000");
    }

    #[test]
    fn stream_pass_writes_every_column() {
        let (a, b) = generate(70_000, 3, WORKLOADS[0].pair);
        for parallel in [false, true] {
            let mut out = Columns32::new(a.len(), Outputs::ALL);
            stream_pass(a.as_view(), b.as_view(), &mut out, parallel);
            let i = 69_999;
            let (s, t) = (a.get(i).unwrap(), b.get(i).unwrap());
            let want: f32 = [s.p0, s.p1, t.p0, t.p1].iter().flatten().sum();
            assert!((out.f32_cols[8][i] - want).abs() <= 1e-3 * want.abs().max(1.0));
        }
    }
}
