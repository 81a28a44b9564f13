//! What `segbatch bench` measured on the pair workloads, and its JSON form: the streaming
//! bound at each size and a row per workload, size and implementation. The tables
//! (`pairs.rs`), the plot (`plot.rs`) and the JSON read the same [`Report`], so they
//! cannot disagree; the ratios (of the bound, over the reference) are computed here once.
//!
//! The JSON is built from the structs at the end of this file with `serde_json`: a field
//! renamed there renames it in the output, which `cli/tests` and scripts read.

use segbatch_cli::io::Columns;
use serde::Serialize;

use super::common::Figure;
use crate::workload::Workload;

/// The implementations timed, in table order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Implementation {
    Reference,
    Kernel,
    Parallel,
}

impl Implementation {
    /// Every implementation, in table order.
    pub const ALL: [Implementation; 3] = [
        Implementation::Reference,
        Implementation::Kernel,
        Implementation::Parallel,
    ];

    /// Its name in the JSON and the progress messages.
    pub fn key(self) -> &'static str {
        match self {
            Implementation::Reference => "reference",
            Implementation::Kernel => "kernel",
            Implementation::Parallel => "parallel",
        }
    }
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

/// A figure in the JSON: the median, its samples and the throughput they give, rounded to
/// the digits a reader can use.
#[derive(Serialize)]
struct FigureJson {
    median_seconds: f64,
    samples: usize,
    mpairs_per_s: f64,
    gb_per_s: f64,
}

/// The streaming bound at one size and thread count, in the JSON.
#[derive(Serialize)]
struct BoundJson {
    pairs: usize,
    threads: usize,
    #[serde(flatten)]
    figure: FigureJson,
}

/// One row of a workload table, in the JSON.
#[derive(Serialize)]
struct RowJson {
    workload: &'static str,
    pairs: usize,
    implementation: &'static str,
    threads: usize,
    #[serde(flatten)]
    figure: FigureJson,
    fraction_of_bound: f64,
    speedup_vs_reference: Option<f64>,
}

/// The whole run, in the JSON: the build, the outputs timed, the bounds and the rows.
#[derive(Serialize)]
struct ReportJson {
    version: &'static str,
    simd_level: &'static str,
    cpu_simd_level: &'static str,
    threads: usize,
    outputs: Vec<&'static str>,
    bytes_read_per_pair: usize,
    bytes_written_per_pair: usize,
    wall_seconds: f64,
    streaming_bound: Vec<BoundJson>,
    results: Vec<RowJson>,
}

/// `x` rounded to `decimals` decimals (the JSON's figures carry no more digits than the
/// timing supports).
fn rounded(x: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (x * scale).round() / scale
}

impl Report {
    fn figure_json(&self, pairs: usize, f: &Figure) -> FigureJson {
        FigureJson {
            median_seconds: f.seconds,
            samples: f.samples,
            mpairs_per_s: rounded(Report::mpairs(pairs, f), 3),
            gb_per_s: rounded(self.gbps(pairs, f), 3),
        }
    }

    /// The report as one line of JSON, with the outputs timed and the run's wall time.
    pub fn json(&self, columns: &Columns, wall: f64) -> String {
        let streaming_bound = self
            .bounds
            .iter()
            .flat_map(|b| {
                [(1, &b.single), (self.threads, &b.parallel)].map(|(threads, f)| BoundJson {
                    pairs: b.pairs,
                    threads,
                    figure: self.figure_json(b.pairs, f),
                })
            })
            .collect();
        let results = self
            .rows
            .iter()
            .map(|r| RowJson {
                workload: r.workload,
                pairs: r.pairs,
                implementation: r.implementation.key(),
                threads: r.threads,
                figure: self.figure_json(r.pairs, &r.figure),
                fraction_of_bound: rounded(self.of_bound(r), 4),
                speedup_vs_reference: self.speedup(r).map(|s| rounded(s, 3)),
            })
            .collect();
        let report = ReportJson {
            version: env!("CARGO_PKG_VERSION"),
            simd_level: segbatch::simd::SIMD_LEVEL,
            cpu_simd_level: segbatch::simd::cpu_simd_level(),
            threads: self.threads,
            outputs: columns.names(),
            bytes_read_per_pair: self.bytes_read,
            bytes_written_per_pair: self.bytes_written,
            wall_seconds: rounded(wall, 3),
            streaming_bound,
            results,
        };
        serde_json::to_string(&report).expect("the report serialises")
    }
}
