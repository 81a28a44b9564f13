//! The command line: the top-level clap parser and the dispatch to subcommands.
//!
//! Layout: one file per subcommand (`closest.rs`, …), each with a clap `Args` struct and a
//! `run` function; shared value parsers in `args.rs`; number and JSON formatting in
//! `format.rs`. To add a subcommand, add its module, a variant to [`Command`] and an arm to
//! [`main`].
//!
//! Exit codes: 0 on success, 2 for bad arguments (clap's usage errors, including the
//! messages of our own value parsers), 1 when writing the output failed.

mod args;
mod closest;
mod format;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// `--version` prints the crate version; the long form (`--version`, not `-V`) also says
/// which SIMD instructions this build of the kernel uses (`wide` picks them at compile time)
/// and what the CPU supports, with a hint when a rebuild would be faster.
fn long_version() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        let mut text = format!(
            "{} (SIMD build: {}, CPU: {})",
            env!("CARGO_PKG_VERSION"),
            segbatch::SIMD_LEVEL,
            segbatch::cpu_simd_level()
        );
        if let Some(hint) = segbatch::simd_upgrade_hint() {
            text.push_str("\nnote: ");
            text.push_str(&hint);
        }
        text
    })
}

const ABOUT: &str = "Closest points between 3D segments, rays and lines, in f32";

const LONG_ABOUT: &str = "\
Closest points between 3D segments, rays and lines, in f32.

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
    /// Closest points, parameters and distance of one pair of segments, rays or lines
    #[command(
        long_about = closest::LONG_ABOUT,
        after_help = closest::AFTER_HELP,
        after_long_help = closest::AFTER_LONG_HELP
    )]
    Closest(closest::ClosestArgs),
}

/// Parses the command line, runs the subcommand and turns the outcome into an exit code.
pub fn main() -> ExitCode {
    // Usage errors (including our value parsers' messages) print one `error:` line and
    // exit with code 2; `--help` and `--version` exit with 0.
    let cli = Cli::parse();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let result = match &cli.command {
        Command::Closest(args) => closest::run(args, &mut out),
    }
    .and_then(|()| out.flush());
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // `segbatch ... | head` closing the pipe early is not a failure.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: writing the output failed: {e}");
            ExitCode::FAILURE
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
