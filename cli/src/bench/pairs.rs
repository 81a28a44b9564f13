//! `segbatch bench` on the pair workloads: throughput of the scalar reference, the kernel on
//! one thread and the parallel driver on built-in workloads, against this machine's
//! streaming bound measured in the same run.
//!
//! # What is measured
//!
//! For each workload the largest batch is generated once; smaller sizes are prefixes of it.
//! Each figure is the median of timed repetitions ([`measure`]) over about `--budget`
//! seconds of work.
//!
//! The **streaming bound** is a pass that reads the same input columns (48 bytes per pair)
//! and writes the same output columns as the kernel, computing nothing but a sum: no
//! implementation that reads its inputs and writes its outputs can beat it at that size.
//! It is measured single-threaded (the bound for the reference and the kernel) and on all
//! threads (the bound for the parallel driver), into 32-byte aligned columns like the
//! library's, and reported as its fastest sample (a bound is the best the machine can do).

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use segbatch::pairs::{
    PAR_CHUNK_PAIRS, PAR_MIN_PAIRS, closest_points_into, par_closest_points_into,
};
use segbatch::{ClosestBatch, Options, Outputs, SegmentsView, reference};
use segbatch_cli::io::{Columns, Sink, write_whole};

use super::args::BenchArgs;
use super::common::{Figure, measure, simd_upgrade_hint, size_label};
use super::plot;
use super::report::{Bound, Implementation, Report, Row};
use crate::error::CliError;
use crate::workload::{WORKLOADS, Workload, generate};

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

/// Runs `segbatch bench` on the pair workloads.
pub fn run(args: &BenchArgs, out: &mut impl Write) -> Result<(), CliError> {
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
    let sinks = Sinks::open(args)?;
    let columns = args.outputs;
    let outputs = Outputs {
        params: columns.params,
        points: columns.points,
        flags: columns.flags,
    };
    let written = outputs.bytes_per_pair();
    let workloads: Vec<&'static Workload> =
        args.workloads.0.iter().map(|&k| &WORKLOADS[k]).collect();
    let threads = pool.current_num_threads();
    if !sinks.json_to_stdout {
        write_preamble(out, threads, &sizes, &columns, written, budget)?;
        out.flush()?;
    }

    let max = *sizes.last().expect("at least one size");
    let mut timer = Timer {
        budget,
        outputs,
        progress: progress_bar(sizes.len() * (2 + workloads.len() * 3) + workloads.len()),
        kernel_out: ClosestBatch::new(),
        side_out: Columns32::new(max, outputs),
    };
    let mut report = Report {
        threads,
        bytes_read: 48,
        bytes_written: written,
        bounds: Vec::new(),
        rows: Vec::new(),
        workloads: workloads.clone(),
    };
    for (w_index, workload) in workloads.iter().enumerate() {
        timer.progress.set_message(format!(
            "generating {} ({} pairs)",
            workload.name,
            size_label(max)
        ));
        let seed = args.seed.wrapping_add(w_index as u64);
        let (a, b) = pool.install(|| generate(max, seed, workload.pair));
        timer.progress.inc(1);
        for &n in &sizes {
            let (av, bv) = (a.view(..n), b.view(..n));
            pool.install(|| {
                // The bounds are measured once, with the first workload's data.
                if w_index == 0 {
                    report.bounds.push(timer.bound(av, bv));
                }
                timer.rows(workload, av, bv, threads, &mut report.rows);
            });
            // Keep the optimiser honest: the results are used.
            std::hint::black_box(timer.kernel_out.dist2().first());
            std::hint::black_box(timer.side_out.f32_cols[0].first());
        }
        drop((a, b));
        if !sinks.json_to_stdout {
            timer.progress.suspend(|| {
                write_workload(out, &report, workload, &sizes).and_then(|()| out.flush())
            })?;
        }
    }
    timer.progress.finish_and_clear();
    let wall = wall.elapsed().as_secs_f64();
    sinks.finish(args, &report, &sizes, wall, out)
}

/// The bar on standard error while the figures are timed (hidden when it is not a
/// terminal), one step per timed cell.
fn progress_bar(cells: usize) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(cells as u64);
    bar.set_style(
        ProgressStyle::with_template("{spinner} bench [{bar:30}] {pos}/{len} {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar
}

/// What every timed cell of a run shares: the time per figure, the columns the kernel
/// writes, the progress bar, and the output buffers every size reuses.
struct Timer {
    budget: f64,
    outputs: Outputs,
    progress: ProgressBar,
    kernel_out: ClosestBatch,
    side_out: Columns32,
}

impl Timer {
    /// The streaming bound on `a`, `b`: one thread and all threads, each its fastest sample
    /// (a bound is the best the machine can do).
    fn bound(&mut self, a: SegmentsView, b: SegmentsView) -> Bound {
        self.progress
            .set_message(format!("streaming bound, {} pairs", size_label(a.len())));
        let mut fastest = |parallel: bool| {
            let f = measure(self.budget, || {
                stream_pass(a, b, &mut self.side_out, parallel);
            });
            self.progress.inc(1);
            Figure {
                seconds: f.best,
                ..f
            }
        };
        let single = fastest(false);
        let parallel = fastest(true);
        Bound {
            pairs: a.len(),
            single,
            parallel,
        }
    }

    /// The reference, the kernel and the parallel driver on `a`, `b`, a row each.
    fn rows(
        &mut self,
        workload: &'static Workload,
        a: SegmentsView,
        b: SegmentsView,
        threads: usize,
        rows: &mut Vec<Row>,
    ) {
        let (n, opts, outputs) = (a.len(), &workload.options, self.outputs);
        for imp in Implementation::ALL {
            self.progress.set_message(format!(
                "{} {}, {} pairs",
                workload.name,
                imp.key(),
                size_label(n)
            ));
            let figure = match imp {
                Implementation::Reference => measure(self.budget, || {
                    reference_pass(a, b, opts, &mut self.side_out);
                }),
                Implementation::Kernel => measure(self.budget, || {
                    closest_points_into(a, b, opts, outputs, &mut self.kernel_out)
                        .expect("the sides have the same length");
                }),
                Implementation::Parallel => measure(self.budget, || {
                    par_closest_points_into(a, b, opts, outputs, &mut self.kernel_out)
                        .expect("the sides have the same length");
                }),
            };
            self.progress.inc(1);
            let threads = match imp {
                Implementation::Parallel if n >= PAR_MIN_PAIRS => threads,
                _ => 1,
            };
            rows.push(Row {
                workload: workload.name,
                pairs: n,
                implementation: imp,
                threads,
                figure,
            });
        }
    }
}

/// The plot's and the JSON's files: their paths are checked (and their temporary files
/// made) before the work, so an unusable path fails at once; they are written whole at
/// the end.
struct Sinks {
    plot: Option<(String, Sink)>,
    json: Option<(String, Sink)>,
    /// `--json -`: the JSON goes to standard output instead of the tables.
    json_to_stdout: bool,
}

impl Sinks {
    fn open(args: &BenchArgs) -> Result<Sinks, CliError> {
        let json_to_stdout = args.json.as_deref() == Some(Path::new("-"));
        let open = |path: &Path| Sink::open(path).map_err(CliError::from);
        if let Some(path) = &args.plot {
            check_plot_path(path)?;
        }
        let plot = args.plot.as_deref().map(open).transpose()?;
        let json = match &args.json {
            Some(path) if !json_to_stdout => Some(open(path)?),
            _ => None,
        };
        Ok(Sinks {
            plot,
            json,
            json_to_stdout,
        })
    }

    /// Draws the plot, writes the JSON and closes the tables with the wall time and the
    /// files written.
    fn finish(
        self,
        args: &BenchArgs,
        report: &Report,
        sizes: &[usize],
        wall: f64,
        out: &mut impl Write,
    ) -> Result<(), CliError> {
        if let Some((name, sink)) = self.plot {
            let svg = plot::draw(report, sizes)
                .map_err(|e| CliError::failed(format!("{name}: cannot draw the plot: {e}")))?;
            write_whole(&name, sink, svg.as_bytes())?;
        }
        if args.json.is_some() {
            let text = report.json(&args.outputs, wall);
            match self.json {
                Some((name, sink)) => write_whole(&name, sink, (text + "\n").as_bytes())?,
                None => writeln!(out, "{text}")?,
            }
        }
        if !self.json_to_stdout {
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
}

/// The plot is SVG text: a `--plot` path whose extension is not `.svg` (a `.png`, a
/// `.pdf`) would hold text its name does not promise, so it is refused before any work. A
/// path without an extension (a FIFO, a device, `-`) is written as SVG.
fn check_plot_path(path: &Path) -> Result<(), CliError> {
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
    if let Some(hint) = simd_upgrade_hint() {
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

#[cfg(test)]
mod tests {
    use super::*;

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
