//! The arguments of `segbatch bench` and its help texts. Which bench they select (the pair
//! workloads by default, `--sets`, `--scenes`) is decided in `dispatch.rs`; each bench
//! reads its own settings from [`BenchArgs`].

use std::path::PathBuf;

use clap::Args;
use segbatch_cli::io::Columns;

use crate::args::parse_columns;
use crate::workload::WORKLOADS;

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
    }
}
