//! The `segbatch` command-line tool.
//!
//! The command line itself (the clap definitions and one module per subcommand) lives in
//! `src/cli/`; this file only hands over to it.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
