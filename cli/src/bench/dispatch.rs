//! `segbatch bench`'s entry point: its arguments select one bench, the pair workloads
//! unless `--sets` or `--scenes` is given.

use std::io::Write;

use super::args::BenchArgs;
use super::{pairs, rays, scenes, sets, swept};
use crate::error::CliError;

/// Runs `segbatch bench`.
pub fn run(args: &BenchArgs, out: &mut impl Write) -> Result<(), CliError> {
    if args.sets {
        return sets::run(args, out);
    }
    if args.scenes {
        // The moving capsule scene, its swept contacts (fast, thin capsules and walls), then
        // the sight rays (dense and sparse walls).
        scenes::run(args, out)?;
        writeln!(out)?;
        swept::run(args, out)?;
        writeln!(out)?;
        return rays::run(args, out);
    }
    pairs::run(args, out)
}
