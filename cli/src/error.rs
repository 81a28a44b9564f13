//! The one error type of the subcommands: a message and the exit code it maps to.

use segbatch_cli::io;

/// An error a subcommand reports: one line on stderr and an exit code.
#[derive(Debug)]
pub struct CliError {
    pub(crate) code: u8,
    pub(crate) message: String,
    /// The reader of our stdout went away (`segbatch ... | head`): not a failure.
    pub(crate) broken_pipe: bool,
}

impl CliError {
    /// Bad arguments or bad input: exit code 2.
    pub fn usage(message: impl Into<String>) -> Self {
        CliError {
            code: 2,
            message: message.into(),
            broken_pipe: false,
        }
    }

    /// The work failed (an output could not be written, `verify` found a disagreement):
    /// exit code 1.
    pub fn failed(message: impl Into<String>) -> Self {
        CliError {
            code: 1,
            message: message.into(),
            broken_pipe: false,
        }
    }
}

impl From<io::Error> for CliError {
    fn from(e: io::Error) -> Self {
        CliError {
            code: e.exit_code(),
            message: e.message().to_owned(),
            broken_pipe: false,
        }
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        let mut error = CliError::failed(format!("writing the output failed: {e}"));
        error.broken_pipe = e.kind() == std::io::ErrorKind::BrokenPipe;
        error
    }
}
