//! The command-line tool's end-to-end tests, as one test binary (one crate to build and
//! link instead of one per file). Every test runs the built `segbatch` binary inside its
//! own temporary directory.

/// Outputs, extents, JSON and the error messages of `closest`.
mod cli;
/// `docs/cli.md` against `--help`.
mod cli_docs;
/// `run`, `bench` and `verify` end to end.
mod cli_run;
/// `pairs` and `cross` end to end.
mod cli_sets;
/// What the tests share: running the binary, temporary files, errors, FIFOs, signals.
mod common;
/// f64 at the edges of its range, infinite radii, meeting points across the float range.
mod f64_range;
/// Saved inputs of the readers' fuzz target.
mod fuzz_replay;
/// Hardening of `run`.
mod hardening;
/// Hardening of what inputs hold (stored types, endless streams) and of output names.
mod hardening_inputs;
/// Hardening of the set commands and of `bench`'s outputs.
mod hardening_sets;
