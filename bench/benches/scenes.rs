//! A moving capsule scene, frame after frame, against parry3d 0.31's `Bvh` kept the way
//! rapier keeps it, in the same run.
//!
//! Group `moving_capsules` (filter with `cargo bench -p segbatch-bench --bench scenes -- moving_capsules`):
//! 50K capsules (radius 0.05-0.2, length 0.5-2, in a 100³ box) drift a little each frame;
//! a frame asks for every touching pair and its contacts. One measured iteration is one
//! frame, the mean over a run of 60 frames from a scene built on frame 0 (not timed):
//! - `segbatch_1t`: `Capsules::set_all` + `frame_into(Report::CONTACTS)`;
//! - `segbatch_2t`: the same with `par_frame_into` on a 2-thread pool;
//! - `parry_1t`: `insert_or_update_partially` with a change margin, `refit`,
//!   `optimize_incremental`, `traverse_bvtt_single_tree` and parry3d's capsule contact
//!   manifold (`ParryScene` of `cli/src/scene_peers.rs`).
//!
//! Before timing, segbatch's pairs on the last frame are compared with brute force over the
//! reference (it panics if they differ) and the peer's differences are printed.
//!
//! Medians: `target/criterion/moving_capsules/<bench>/new/estimates.json`
//! (docs/performance.md).

use criterion::{Criterion, criterion_group, criterion_main};
use segbatch::Segment;
use segbatch::scenes::{Capsules, Frame, Report};
use std::time::{Duration, Instant};

// The scene and the peer: the CLI's own `cli/src/scene_peers.rs`, included (the CLI is a
// binary crate), and the pair-list comparison of `cli/src/baselines.rs`.
#[path = "../../cli/src/scene_peers.rs"]
mod scene_peers;
use scene_peers::{ParryContact, ParryScene, brute_pairs, contact_differences, parry_pairs, scene};
#[path = "../../cli/src/baselines.rs"]
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

criterion_group!(benches, moving_capsules);
criterion_main!(benches);
