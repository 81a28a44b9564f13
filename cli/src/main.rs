//! The command line: the top-level clap parser and the dispatch to subcommands.
//!
//! Layout: one file per subcommand (`closest.rs`, …), or a folder where a subcommand has
//! several parts (`sets/`, `bench/`), each with a clap `Args` struct and a `run` function;
//! shared value parsers in `args.rs`; number and JSON formatting in `format.rs`. To add a subcommand, add its module, a variant to [`Command`] and an arm to
//! [`main`].
//!
//! Exit codes, one rule for every subcommand:
//! - 0: success;
//! - 2: the arguments or the data are wrong, so running again unchanged fails again: clap's
//!   usage errors, our value parsers' messages, every input problem (missing, unreadable,
//!   malformed: one `error:` line naming the file, the record and the field) and every
//!   output path that cannot be used (a directory, a missing directory, a read-only file),
//!   all found before or while reading the input;
//! - 1: the work failed while under way: an operating-system error reading or writing
//!   (a full disk, an I/O error, an input that shrank, an output directory that vanished),
//!   or `verify` finding a disagreement;
//! - 128 + N: stopped by signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP; 141 when the
//!   reader of the output pipe went away), after removing the hidden temporary file.
//!
//! What every subcommand shares, so that a new one gets it by construction: the signal
//! handlers (installed here, before any subcommand runs: a signal or a file-size limit
//! removes every temporary output), the readers and the output writer of [`io`]
//! ([`io::Input`], [`io::Sink`]: formats, `-`, FIFOs, line limits, temporary file and
//! rename), the thread clamp ([`io::thread_pool`]) and the exit statuses below, through
//! [`CliError`].

mod args;
mod bench;
mod closest;
mod error;
mod run;
mod sets;
mod verify;
mod workload;

use std::io::Write;
use std::process::ExitCode;

use error::CliError;
use segbatch_cli::{cleanup, format, io};

use clap::{Parser, Subcommand};

/// `--version` prints the crate version; the long form (`--version`, not `-V`) also says
/// which SIMD instructions this build of the kernel uses (`wide` picks them at compile time)
/// and what the CPU supports, with a hint when a rebuild would be faster.
fn long_version() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        let mut text = format!(
            "{} (SIMD build: {}{}, CPU: {})",
            env!("CARGO_PKG_VERSION"),
            segbatch::simd::SIMD_LEVEL,
            if segbatch::simd::SAME_BITS {
                ", same bits on every CPU"
            } else {
                ""
            },
            segbatch::simd::cpu_simd_level()
        );
        if let Some(hint) = bench::simd_upgrade_hint() {
            text.push_str("\nnote: ");
            text.push_str(&hint);
        }
        text
    })
}

const ABOUT: &str = "Closest points between 3D segments, rays and lines, in f32 or f64";

const LONG_ABOUT: &str = "\
Closest points between 3D segments, rays and lines, in f32 or f64 (--precision of
run, pairs, cross and raycast).

For two sides A = (A0, A1) and B = (B0, B1), segbatch finds the closest points
C = A0 + s*(A1 - A0) on A and D = B0 + t*(B1 - B0) on B, their distance and flags
(degenerate side, parallel pair, non-finite input). Each side is a segment, a ray
or an infinite line.";

const AFTER_HELP: &str = "\
Examples:
  segbatch closest \"0,0,0 1,0,0\" \"1,0,1 1,1,1\"
  segbatch closest --a ray \"0,0,0 1,0,0\" \"5,-1,0 5,1,0\"
  segbatch closest --json \"4,7,0 16,3,0\" \"1,1,0 17,5,0\"
  segbatch closest --help        (the point syntax)";

/// The top-level command line.
#[derive(Debug, Parser)]
#[command(
    name = "segbatch",
    version,
    long_version = long_version(),
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = AFTER_HELP,
    arg_required_else_help = true,
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Throughput on built-in workloads: reference, kernel and parallel vs the memory bound
    #[command(long_about = bench::LONG_ABOUT, after_help = bench::AFTER_HELP)]
    Bench(bench::BenchArgs),
    /// Closest points of every pair in a CSV, .npy or raw file (f32, or f64), written to a file
    #[command(long_about = run::LONG_ABOUT, after_help = run::AFTER_HELP)]
    Run(run::RunArgs),
    /// Check kernel, parallel driver and reference against f64 on generated hard cases
    #[command(long_about = verify::LONG_ABOUT, after_help = verify::AFTER_HELP)]
    Verify(verify::VerifyArgs),
    /// Closest points, parameters and distance of one pair of segments, rays or lines
    #[command(
        long_about = closest::LONG_ABOUT,
        after_help = closest::AFTER_HELP,
        after_long_help = closest::AFTER_LONG_HELP
    )]
    Closest(closest::ClosestArgs),
    /// Every pair of 3D segments within a radius, in one set or between two (streamed)
    #[command(long_about = sets::PAIRS_LONG_ABOUT, after_help = sets::PAIRS_AFTER_HELP)]
    Pairs(sets::PairsArgs),
    /// Every pair of 2D segments that cross, touch or overlap (streamed)
    #[command(long_about = sets::CROSS_LONG_ABOUT, after_help = sets::CROSS_AFTER_HELP)]
    Cross(sets::CrossArgs),
    /// The first wall each thick ray (a sphere moving along it) touches within a range
    #[command(long_about = sets::RAYCAST_LONG_ABOUT, after_help = sets::RAYCAST_AFTER_HELP)]
    Raycast(sets::RaycastArgs),
}

/// The status of a closed output pipe: 128 + SIGPIPE, as a shell reports a writer that the
/// signal stopped.
const PIPE_STATUS: u8 = 141;

/// Parses the command line, runs the subcommand and turns the outcome into an exit code.
fn main() -> ExitCode {
    // Usage errors (including our value parsers' messages) print one `error:` line and
    // exit with code 2; `--help` and `--version` exit with 0.
    let cli = Cli::parse();
    // From here on a hidden temporary file may exist: remove it on SIGINT, SIGTERM, SIGHUP,
    // and turn SIGXFSZ into a write error.
    if let Err(e) = cleanup::install() {
        eprintln!("error: cannot install signal handlers: {e}");
        return ExitCode::from(1);
    }
    let mut out = std::io::BufWriter::new(std::io::stdout());
    let result = match &cli.command {
        Command::Closest(args) => closest::run(args, &mut out).map_err(CliError::from),
        Command::Bench(args) => bench::run(args, &mut out),
        Command::Run(args) => run::run(args),
        Command::Verify(args) => verify::run(args, &mut out),
        Command::Pairs(args) => sets::run_pairs(args),
        Command::Cross(args) => sets::run_cross(args),
        Command::Raycast(args) => sets::run_raycast(args),
    }
    .and_then(|()| out.flush().map_err(CliError::from));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // `segbatch ... | head` closing the pipe early: stop, with the status a shell
            // gives a writer SIGPIPE stopped.
            if e.broken_pipe {
                return ExitCode::from(PIPE_STATUS);
            }
            let _ = out.flush();
            eprintln!("error: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
