//! `segbatch pairs`, `segbatch cross` and `segbatch raycast`: the set queries over whole
//! files.
//!
//! `pairs` reads one set of 3D segments (or two, with `--against`) and writes every pair
//! within a radius; `cross` reads a set of 2D segments and writes every pair that meets;
//! `raycast` indexes a set of walls ([`segbatch::SegmentIndex`]) and writes the first hit of
//! every thick ray of a second file (rays in blocks of a million, so the results held at
//! once stay bounded).
//! Both run the library's grid-pruned streaming forms
//! ([`segbatch::sets::par_for_each_self_pair_within`], [`segbatch::sets::par_for_each_pair_within`],
//! [`segbatch::planar::par_for_each_crossing_pair`]): the hits arrive in blocks and go straight to
//! the output, so memory holds the input set and one wave of blocks, never every hit.
//!
//! Inputs are sets of records, 6 numbers a 3D segment (`p0`, `p1`; x, y, z each) or 4 a
//! 2D one (x, y each), in the formats of `segbatch run`: CSV rows (an optional header row),
//! `.npy` float32 arrays of shape `(N, 6)` or `(N, 2, 3)` (`(N, 4)` or `(N, 2, 2)` in 2D),
//! or raw little-endian numbers (`.f32`, `.f64`, or the run's precision for `.raw`, `.bin`;
//! `f32` data is widened in an `f64` run, `f64` data is never narrowed), with `.npy` float64
//! arrays too. The whole set is read and checked before any output is
//! written, and the output goes to a temporary file renamed onto the target only on
//! success, so a bad input gives one `error:` line (file, record, field), exit code 2 and
//! no output.
//!
//! `args` holds the command lines and help texts, `input` reads a whole set, `output`
//! streams hit records, `commands` runs each subcommand over them.

mod args;
mod commands;
mod input;
mod output;

pub use args::*;
pub use commands::{run_cross, run_pairs, run_raycast};
