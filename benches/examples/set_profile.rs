//! The harness behind the phase and instruction figures for the pruned set queries in
//! docs/performance.md ("Set queries"): one self query on the benches' hair set (short
//! segments, about ten neighbours each within `r = 1`), run `reps` times and timed one by
//! one, so `perf record` and `valgrind --tool=callgrind` see only the set machinery.
//!
//! ```text
//! cargo run --release --features profiling --example set_profile -- MODE [n] [reps]
//!   MODE: par | seq   (par_self_pairs_within / self_pairs_within: hits collected)
//!         each | each1 (par_for_each_self_pair_within / for_each_self_pair_within:
//!                       streamed blocks, only counted)
//!         touch        (capsules_touch_indexed, radius r/2, on 200K candidate pairs of the
//!                       hair set of n segments, `testkit::sets::candidate_pairs` as in
//!                       `segbatch bench --sets`; n = 20000 is the bench's)
//!         rays         (SegmentIndex::first_hits_into: the 20K sight rays of `segbatch
//!                       bench --scenes`, radius 0.3, range 10, against n walls on its
//!                       250 x 250 floor, the index built once; n = 10000 is the sparse
//!                       scene, 100000 the dense one)
//!         rays1        (the same with every ray a copy of one of them, ray 12345: the
//!                       walk the same each time and in cache, for what a ray costs
//!                       without waiting on memory and mispredicted branches)
//!         prays        (the rays of `rays` through par_first_hits_into, on all cores)
//!         frames       (Capsules::frame_into with contacts on the moving scene of
//!                       `segbatch bench --scenes`, n capsules, reps frames (at most 60)
//!                       after the untimed frame 0; n = 50000 is the bench's)
//!         pframes      (the frames of `frames` through par_frame_into, on all cores)
//! valgrind --tool=callgrind --branch-sim=yes target/release/examples/set_profile each1 100000 1
//! ```
//!
//! Instructions a sight ray = (count with `rays 10000 4` - count with `rays 10000 1`) / (3 ·
//! 20000): the index's build and the first cast are in both. Instructions an object a
//! frame = (count with `frames 50000 20` - count with `frames 50000 0`) / (20 · 50000).
use segbatch::pairs::{Radii, capsules_touch_indexed};
use segbatch::scenes::{Capsules, Frame, Report};
use segbatch::sets::{
    SharedEndpoints, for_each_self_pair_within, par_for_each_self_pair_within,
    par_self_pairs_within, self_pairs_within,
};
use segbatch::{Options, SegmentIndex, Segments};
use segbatch_testkit::sets::{candidate_pairs, hair, rays, walls};
use std::time::Instant;

// The moving scene of `segbatch bench --scenes`: the CLI's own `cli/src/bench/scene_peers.rs`,
// included (the CLI is a binary crate); only its scene is used here.
#[path = "../../cli/src/bench/scene_peers.rs"]
#[allow(dead_code)]
mod scene_peers;

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or("par".into());
    let mut number = |default: usize| {
        args.next()
            .map_or(default, |s| s.parse().expect("a whole number"))
    };
    let n = number(1_000_000);
    let reps = number(3);
    if mode == "frames" || mode == "pframes" {
        frames(n, reps, mode == "pframes");
        return;
    }
    let set: Segments = hair(n, 1.0, [0.0; 3], 1).iter().copied().collect();
    let keep = SharedEndpoints::Keep;
    let candidates = if mode == "touch" {
        candidate_pairs(&set, 1.0, 200_000, 7)
    } else {
        Vec::new()
    };
    let radii = Radii::uniform(0.5, 0.5).expect("finite radii");
    // The sight-ray scene of `segbatch bench --scenes` at its default seed (1: the walls'
    // seed, 1 ^ 2 the rays'): its index, its rays and one cast before the timed ones.
    let (index, sight, mut first) = if ["rays", "rays1", "prays"].contains(&mode.as_str()) {
        let level: Segments = walls(n, 250.0, 1).iter().copied().collect();
        let index = SegmentIndex::new(&level).expect("finite walls");
        let mut sight = rays(20_000, 250.0, 1 ^ 2);
        if mode == "rays1" {
            sight = vec![sight[12_345]; sight.len()];
        }
        let sight: Segments = sight.iter().copied().collect();
        let mut first = Vec::new();
        index
            .first_hits_into(&sight, 0.3, 10.0, &mut first)
            .expect("a valid radius and range");
        (Some(index), sight, first)
    } else {
        (None, Segments::new(), Vec::new())
    };
    for _ in 0..reps {
        let start = Instant::now();
        let hits = match mode.as_str() {
            "par" => par_self_pairs_within(&set, 1.0, keep).len(),
            "seq" => self_pairs_within(&set, 1.0, keep).len(),
            "each" | "each1" => {
                let mut count = 0;
                let count_block = |block: &[_]| count += block.len();
                if mode == "each" {
                    par_for_each_self_pair_within(&set, 1.0, keep, &Options::SEGMENTS, count_block)
                } else {
                    for_each_self_pair_within(&set, 1.0, keep, &Options::SEGMENTS, count_block)
                }
                .expect("a finite radius");
                count
            }
            "touch" => capsules_touch_indexed(&set, &set, &candidates, radii).count_ones(),
            "rays" | "rays1" | "prays" => {
                let index = index.as_ref().expect("built for this mode");
                if mode == "prays" {
                    index.par_first_hits_into(&sight, 0.3, 10.0, &mut first)
                } else {
                    index.first_hits_into(&sight, 0.3, 10.0, &mut first)
                }
                .expect("a valid radius and range");
                first.iter().flatten().count()
            }
            other => {
                panic!(
                    "unknown mode {other}: par, seq, each, each1, touch, rays, rays1, prays, frames or pframes"
                )
            }
        };
        let seconds = start.elapsed().as_secs_f64();
        println!("{mode} {n}: {hits} hits in {:.3} ms", seconds * 1e3);
    }
}

/// `reps` frames (at most the bench's 60) of `n` moving capsules, each timed: the frame's
/// new end points (`set_all`) and `frame_into` with contacts (`par_frame_into` when
/// `parallel`). The scene's 60 frames are made whatever `reps`, so that counts with
/// different `reps` differ by the frames alone.
fn frames(n: usize, reps: usize, parallel: bool) {
    let scene = scene_peers::scene(n, 61, 1);
    let mut capsules = Capsules::new();
    for (s, &r) in scene.frames[0].iter().zip(&scene.radii) {
        capsules.insert(*s, r).expect("valid radii");
    }
    let mut frame = Frame::new();
    capsules.frame_into(Report::CONTACTS, &mut frame);
    for ends in scene.frames[1..].iter().take(reps) {
        let start = Instant::now();
        capsules.set_all(ends).expect("one segment an id");
        if parallel {
            capsules.par_frame_into(Report::CONTACTS, &mut frame);
        } else {
            capsules.frame_into(Report::CONTACTS, &mut frame);
        }
        let seconds = start.elapsed().as_secs_f64();
        let mode = if parallel { "pframes" } else { "frames" };
        let pairs = frame.pairs().len();
        println!("{mode} {n}: {pairs} pairs in {:.3} ms", seconds * 1e3);
    }
}
