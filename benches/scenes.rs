//! A moving capsule scene, frame after frame, against parry3d 0.31's `Bvh` kept the way
//! rapier keeps it, in the same run.
//!
//! Group `moving_capsules` (filter with `cargo bench --bench scenes -- moving_capsules`):
//! 50K capsules (radius 0.05-0.2, length 0.5-2, in a 100³ box) drift a little each frame;
//! a frame asks for every touching pair and its contacts. One measured iteration is one
//! frame, the mean over a run of 60 frames from a scene built on frame 0 (not timed):
//! - `segbatch_1t`: `Capsules::set_all` + `frame_into(Report::CONTACTS)`;
//! - `segbatch_2t`: the same with `par_frame_into` on a 2-thread pool;
//! - `parry_1t`: `insert_or_update_partially` with a change margin, `refit`,
//!   `optimize_incremental`, `traverse_bvtt_single_tree` and parry3d's capsule contact
//!   manifold (`ParryScene` of `cli/src/bench/scene_peers.rs`).
//!
//! Before timing, segbatch's pairs on the last frame are compared with brute force over the
//! reference (it panics if they differ) and the peer's differences are printed.
//!
//! Group `swept_capsules` (`cargo bench --bench scenes -- swept_capsules`):
//! 20K fast, thin capsules among thin walls (`segbatch_testkit::swept::thin_fast_scene`:
//! half fixed walls of radius 0.02, half bullets of radius 0.01 flying 50-150 radii a
//! step), 20 steps; each step asks which pairs touched during it. One measured iteration is
//! one step, the mean over the 20, one thread:
//! - `segbatch_indexed_1t`: `first_contact_capsules_indexed_into` over the pairs whose swept
//!   boxes overlap (found once a step, not timed), the step's sweeps copied into a `Sweeps`
//!   batch (timed);
//! - `parry_cast_shapes_1t`: parry3d's `cast_shapes` with linear velocities over the same
//!   pairs, capsules built once;
//! - `segbatch_frame_1t`: `Capsules::set_all` + `frame_into(Report::SWEPT)`, its own broad
//!   phase included;
//! - `rapier_ccd_1t`: a rapier-style CCD pass: parry3d's `Bvh` over the swept boxes, its
//!   self-traversal, `cast_shapes` on each pair.
//!
//! The peers are the CLI's (`cli/src/bench/swept_peers.rs`, included); `segbatch bench --scenes`
//! checks segbatch's contacts against the `f64` oracle on the same scene.
//!
//! Medians: `target/criterion/<group>/<bench>/new/estimates.json` (docs/performance.md).

use criterion::{Criterion, criterion_group, criterion_main};
use parry3d::partitioning::BvhWorkspace;
use segbatch::Segment;
use segbatch::scenes::{Capsules, Frame, Report};
use segbatch_testkit::swept::{swept_candidates, thin_fast_scene};
use std::time::{Duration, Instant};

// The scene and the peer: the CLI's own `cli/src/bench/scene_peers.rs`, included (the CLI is a
// binary crate), and the pair-list comparison of `cli/src/bench/baselines.rs`.
#[path = "../cli/src/bench/scene_peers.rs"]
mod scene_peers;
use scene_peers::{ParryContact, ParryScene, brute_pairs, contact_differences, parry_pairs, scene};
#[path = "../cli/src/bench/swept_peers.rs"]
mod swept_peers;
use swept_peers::{Ours, ParryStep, cast, parry_capsules, parry_step, rapier_ccd};
#[path = "../cli/src/bench/baselines.rs"]
#[allow(dead_code, unused_imports)]
mod baselines;

const N: usize = 50_000;
const FRAMES: usize = 60;
/// The peer's change margin (as `segbatch bench --scenes`).
const PARRY_MARGIN: f32 = 0.125;

fn build(first: &[Segment], radii: &[f32]) -> (Capsules, Frame) {
    let mut s = Capsules::new();
    for (seg, &r) in first.iter().zip(radii) {
        s.insert(*seg, r).unwrap();
    }
    let mut frame = Frame::new();
    s.frame_into(Report::CONTACTS, &mut frame);
    (s, frame)
}

/// The mean time a frame over `iters` runs of the scene, each from a fresh build.
fn per_frame(iters: u64, mut run: impl FnMut() -> Duration) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        total += run() / FRAMES as u32;
    }
    total
}

fn moving_capsules(c: &mut Criterion) {
    let sc = scene(N, FRAMES + 1, 1);
    let radii = &sc.radii;
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    // The check.
    {
        let (mut ours, mut frame) = build(&sc.frames[0], radii);
        let mut peer = ParryScene::new(&sc.frames[0], radii, PARRY_MARGIN);
        let mut contacts: Vec<ParryContact> = Vec::new();
        for f in 1..=FRAMES {
            ours.set_all(&sc.frames[f]).unwrap();
            ours.frame_into(Report::CONTACTS, &mut frame);
            peer.frame(&sc.frames[f], radii, &mut contacts);
        }
        let brute = brute_pairs(&sc.frames[FRAMES], radii);
        assert_eq!(frame.pairs(), &brute[..], "segbatch against brute force");
        let (missing, extra) = baselines::differences(&brute, &parry_pairs(&contacts));
        let [depth, normal, point] = contact_differences(frame.contacts(), &contacts);
        eprintln!(
            "last frame: segbatch == brute force ({} pairs); parry3d: {} missing, {} extra, \
             one-point contacts within {depth:.0e} (depth), {normal:.0e} (normal), {point:.0e} (point)",
            brute.len(),
            missing.len(),
            extra.len()
        );
    }
    let mut group = c.benchmark_group("moving_capsules");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(8));
    group.bench_function("segbatch_1t", |b| {
        b.iter_custom(|iters| {
            per_frame(iters, || {
                let (mut ours, mut frame) = build(&sc.frames[0], radii);
                let t = Instant::now();
                for f in 1..=FRAMES {
                    ours.set_all(&sc.frames[f]).unwrap();
                    ours.frame_into(Report::CONTACTS, &mut frame);
                }
                t.elapsed()
            })
        })
    });
    group.bench_function("segbatch_2t", |b| {
        b.iter_custom(|iters| {
            per_frame(iters, || {
                let (mut ours, mut frame) = build(&sc.frames[0], radii);
                two.install(|| {
                    let t = Instant::now();
                    for f in 1..=FRAMES {
                        ours.set_all(&sc.frames[f]).unwrap();
                        ours.par_frame_into(Report::CONTACTS, &mut frame);
                    }
                    t.elapsed()
                })
            })
        })
    });
    group.bench_function("parry_1t", |b| {
        b.iter_custom(|iters| {
            per_frame(iters, || {
                let mut peer = ParryScene::new(&sc.frames[0], radii, PARRY_MARGIN);
                let mut contacts = Vec::new();
                peer.frame(&sc.frames[0], radii, &mut contacts);
                let t = Instant::now();
                for f in 1..=FRAMES {
                    peer.frame(&sc.frames[f], radii, &mut contacts);
                }
                t.elapsed()
            })
        })
    });
    group.finish();
}

/// Objects and steps of the swept scene (as `segbatch bench --scenes`).
const SWEPT_N: usize = 20_000;
const STEPS: usize = 20;

fn swept_capsules(c: &mut Criterion) {
    let sc = thin_fast_scene(SWEPT_N, STEPS, 1);
    let radii = &sc.radii[..];
    let candidates: Vec<Vec<(u32, u32)>> = sc
        .sweeps
        .iter()
        .map(|s| swept_candidates(s, radii))
        .collect();
    let capsules = parry_capsules(&sc);
    let steps: Vec<ParryStep> = sc.sweeps.iter().map(|s| parry_step(s)).collect();
    let ends: Vec<Vec<Segment>> = sc
        .sweeps
        .iter()
        .map(|s| s.iter().map(|x| x.end).collect())
        .collect();
    let mut ours = Ours::default();
    let mut group = c.benchmark_group("swept_capsules");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(4));
    group.bench_function("segbatch_indexed_1t", |b| {
        b.iter_custom(|iters| {
            per_step(iters, || {
                let t = Instant::now();
                for (s, pairs) in sc.sweeps.iter().zip(&candidates) {
                    std::hint::black_box(ours.run(s, radii, pairs));
                }
                t.elapsed()
            })
        })
    });
    group.bench_function("parry_cast_shapes_1t", |b| {
        b.iter_custom(|iters| {
            per_step(iters, || {
                let t = Instant::now();
                for (step, pairs) in steps.iter().zip(&candidates) {
                    for &(i, j) in pairs {
                        std::hint::black_box(cast(&capsules, step, i as usize, j as usize));
                    }
                }
                t.elapsed()
            })
        })
    });
    group.bench_function("segbatch_frame_1t", |b| {
        b.iter_custom(|iters| {
            per_step(iters, || {
                let mut scene = Capsules::with_capacity(SWEPT_N);
                let starts: Vec<Segment> = sc.sweeps[0].iter().map(|s| s.start).collect();
                scene.insert_all(&starts, radii).unwrap();
                let mut frame = Frame::new();
                scene.frame_into(Report::SWEPT, &mut frame);
                let t = Instant::now();
                for ends in &ends {
                    scene.set_all(ends).unwrap();
                    scene.frame_into(Report::SWEPT, &mut frame);
                }
                t.elapsed()
            })
        })
    });
    group.bench_function("rapier_ccd_1t", |b| {
        let mut workspace = BvhWorkspace::default();
        b.iter_custom(|iters| {
            per_step(iters, || {
                let t = Instant::now();
                for (s, step) in sc.sweeps.iter().zip(&steps) {
                    std::hint::black_box(rapier_ccd(s, &capsules, step, &mut workspace));
                }
                t.elapsed()
            })
        })
    });
    group.finish();
}

/// The mean time a step over `iters` runs of the swept scene's steps.
fn per_step(iters: u64, mut run: impl FnMut() -> Duration) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        total += run() / STEPS as u32;
    }
    total
}

criterion_group!(benches, moving_capsules, swept_capsules);
criterion_main!(benches);
