//! placeholder
use clap::Args;
pub const LONG_ABOUT: &str = "";
pub const AFTER_HELP: &str = "";
#[derive(Debug, Args)]
pub struct VerifyArgs {}
pub fn run(_: &VerifyArgs, _: &mut impl std::io::Write) -> Result<(), super::CliError> { Ok(()) }
