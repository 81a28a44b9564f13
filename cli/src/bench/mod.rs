//! `segbatch bench`: throughput against the machine's own limits and against scalar peers,
//! measured in one run.
//!
//! Three benches share the subcommand, selected by its arguments (`dispatch.rs`):
//! - the pair workloads (`pairs.rs`, the default): the scalar reference, the kernel and the
//!   parallel driver against the streaming bound, with a table, a plot (`plot.rs`) and a
//!   JSON form of one [`report::Report`];
//! - `--sets` (`sets.rs`): the set queries against a sort-and-sweep and parry3d's BVH
//!   (`baselines.rs`);
//! - `--scenes`: the moving capsule scene (`scenes.rs`, peers in `scene_peers.rs`), its
//!   swept contacts (`swept.rs`, `swept_peers.rs`) and the sight rays (`rays.rs`,
//!   `ray_peer.rs`).
//!
//! The modules depend in one direction: the dispatch on the benches, the benches on
//! `args.rs` (what they read), `common.rs` (how they time and label, the build's SIMD hint)
//! and their peers, never on each other or on this module. The peers use only segbatch,
//! its test kit and parry3d, because the criterion benches (`benches/` at the repository
//! root) include them with `#[path]` and run the same code.

mod args;
mod baselines;
mod common;
mod dispatch;
mod pairs;
mod plot;
mod ray_peer;
mod rays;
mod report;
mod scene_peers;
mod scenes;
mod sets;
mod swept;
mod swept_peers;

pub use args::{AFTER_HELP, BenchArgs, LONG_ABOUT};
pub use common::simd_upgrade_hint;
pub use dispatch::run;
