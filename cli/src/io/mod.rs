//! The I/O layer of every subcommand: records read in bounded chunks from files or streams
//! ([`Input`], pairs for `run` and segments for the set commands, see [`Layout`]), outputs
//! written to a temporary file beside the target and renamed into place only on success, or
//! straight through to a stream, a FIFO or a device ([`Sink`]; [`Output`] is `run`'s
//! columns on top of it), and the thread pool of `--threads` ([`thread_pool`]). Written
//! once so that every subcommand, and any new one, gets the same formats, limits, messages
//! and exit statuses.
//!
//! A run has one [`Precision`], `f32` or `f64` (the [`Real`] type the readers produce and
//! the writers take): the same code reads and writes both. `run`'s inputs hold 12 numbers
//! per pair, in the order `a.p0, a.p1, b.p0, b.p1` (x, y, z each); the set commands' 6 (4 in
//! 2D) per segment, in the same formats:
//! - CSV: 12 numbers per row, an optional header row (a first row with no number in it);
//!   lines end with LF, CRLF or CR; blank lines are skipped (and counted in line numbers);
//!   a field may be quoted, but not across lines; a line is at most [`MAX_LINE_BYTES`];
//! - `.npy`: little-endian float32 (`<f4`), C order, shape `(N, 12)` or `(N, 4, 3)`; in
//!   `f64` also float64 (`<f8`). A float32 array read in `f64` is widened (exactly); a
//!   float64 array in `f32` is an error that names `--precision f64` (never narrowed);
//! - raw: little-endian numbers, no header: `.f32` (`--format f32`) holds `f32`, 48 bytes
//!   per pair, `.f64` (`--format f64`) `f64`, 96 bytes per pair, and `.raw`, `.bin`
//!   (`--format raw`) numbers of the run's precision.
//!
//! What a file stores comes from its format ([`Format`]: the extension or `--format`, and a
//! `.npy` header), what a run computes from its [`Precision`]: stored `f32` in an `f64` run
//! is widened (exactly), stored `f64` in an `f32` run is an [`Error::Data`] that names
//! `--precision f64` (never narrowed). An output named `.f32` or `.f64` must be the run's
//! precision ([`Format::output_in`]).
//!
//! Outputs are one record per pair (or per pair within `--radius`), with the selected
//! columns in this order: `index` (u64, only with `--radius`), `distance`, `s`, `t`,
//! `point_a` (x, y, z), `point_b` (x, y, z), `flags` (u8); the numbers in the run's
//! precision. CSV writes them as text (the shortest that reads back to the same number)
//! with a header row; raw writes packed little-endian records; `.npy` writes a structured
//! array with those field names (or a plain `<f4`/`<f8` vector when `distance` is the only
//! column).
//!
//! Every error message names the file, the record and the field, on one line. Errors are
//! [`Error::Data`] (the arguments or the data are wrong: exit status 2),
//! [`Error::System`] (an operation failed while the run was under way: status 1) or
//! [`Error::Pipe`] (the reader of the output went away: status 141, 128 + SIGPIPE).
//!
//! Memory is bounded whatever the input: a chunk of pairs, one CSV line of at most
//! [`MAX_LINE_BYTES`], one `.npy` header of at most [`MAX_NPY_HEADER_BYTES`]. A reader that
//! keeps what it reads (the set commands) bounds it by [`memory_headroom`] and
//! [`SET_MEMORY_SHARE`], so an endless stream ends in one message, not an abort.

mod common;
mod read;
mod write;

pub use common::*;
pub use read::*;
pub use write::*;
