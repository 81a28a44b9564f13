//! The command lines of `segbatch pairs`, `cross` and `raycast`: their help texts and
//! options.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::args::{parse_radius_text, parse_wait};
use crate::io::{Format, Precision};

/// What the set commands' help texts share: inputs, memory, output, exit statuses.
macro_rules! sets_common {
    () => {
        "
Inputs: a file, - or /dev/stdin (standard input: name its --format), or a FIFO
(its first data awaited --wait seconds at most); a CSV line is at most 64 KiB.

Memory: the input set plus a constant (the grid, one block of hits of the
library's bounded size, one buffer of formatted records), whatever the number of
hits: the hits are streamed to the output as they are found, at disk speed. A
set that would take more than a quarter of the memory the process may still take (an
endless stream such as /dev/zero, a file larger than the machine holds) is
refused with one line (exit 1).

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
  .npy  float32 '<f4' or float64 '<f8', C order, shape (N, 6) or (N, 2, 3)
  raw   little-endian, no header: .f32 f32 (24 bytes per segment), .f64 f64
        (48 bytes per segment), .raw and .bin the run's precision

Precision: --precision f64 computes and writes f64 (the grid prunes in a local
frame, the f64 kernel decides): what world coordinates need (UTM, ECEF), where
f32 keeps 0.5 m at 5,000 km. What a file holds comes from its extension,
--format or .npy header, not from --precision: f32 data in an f64 run is
widened exactly; f64 data (.f64, a float64 .npy) in an f32 run is an error
(never narrowed).

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
  .npy  float32 '<f4' or float64 '<f8', C order, shape (N, 4) or (N, 2, 2)
  raw   little-endian, no header: .f32 f32 (16 bytes per segment), .f64 f64
        (32 bytes per segment), .raw and .bin the run's precision

Precision: whether two segments meet is decided exactly for the coordinates as
read, in either precision. --precision f64 computes and writes f64: what street
networks in UTM or other projected coordinates need (f32 keeps 0.5 m at 5,000
km). f32 data in an f64 run is widened exactly; f64 data (.f64, a float64 .npy)
in an f32 run is an error (never narrowed).

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
(optional header row), .npy float32 or float64 (N, 6) or (N, 2, 3), or raw
little-endian (.f32: 24 bytes a segment, .f64: 48, .raw/.bin: the run's
precision). --precision f64 computes and writes f64 (world coordinates: the hits
are those of reference::first_hit); f32 data is widened, f64 data in an f32
run is an error (never narrowed).

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
    /// Wall segments (.csv, .npy, or raw .f32/.f64/.raw/.bin)
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

    /// Input format, instead of guessing from the extensions (raw keeps a .f32 or .f64
    /// name's number type)
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<Format>,

    #[command(flatten)]
    pub out: SetOptions,
}

/// The input and output options the set subcommands share.
#[derive(Debug, Args)]
pub struct SetOptions {
    /// Output file; its format comes from its extension, else the input's; - for standard
    /// output [default: CSV to standard output]
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Output format, instead of guessing from the output's extension
    #[arg(long, value_name = "FORMAT")]
    pub output_format: Option<Format>,

    /// Numbers computed and written as f32 or f64 (f32 data is widened; f64 data needs f64)
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
    pub(super) fn wait(&self) -> Duration {
        Duration::from_secs_f64(self.wait)
    }
}

/// Arguments of `segbatch pairs`.
#[derive(Debug, Args)]
pub struct PairsArgs {
    /// Input file of 3D segments (.csv, .npy, or raw .f32/.f64/.raw/.bin)
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

    /// Input format, instead of guessing from the extension (raw keeps a .f32 or .f64
    /// name's number type)
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<Format>,

    #[command(flatten)]
    pub out: SetOptions,
}

/// Arguments of `segbatch cross`.
#[derive(Debug, Args)]
pub struct CrossArgs {
    /// Input file of 2D segments (.csv, .npy, or raw .f32/.f64/.raw/.bin)
    #[arg(value_name = "SEGMENTS2D")]
    pub input: PathBuf,

    /// Leave out pairs sharing an end point (street pieces meeting at a node)
    #[arg(long)]
    pub skip_shared: bool,

    /// Input format, instead of guessing from the extension (raw keeps a .f32 or .f64
    /// name's number type)
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<Format>,

    #[command(flatten)]
    pub out: SetOptions,
}
