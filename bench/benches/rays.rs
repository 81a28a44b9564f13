//! Thick sight rays against static walls, one thread, segbatch and its peer in the same
//! run: 20K rays of radius 0.3 from eye height on a city floor, against 100K walls (dense)
//! and 10K walls (sparse), ranges 10 and 50.
//!
//! - `segbatch`: [`SegmentIndex::first_hits_into`] (the index built once, the output
//!   reused);
//! - `parry`: parry3d's `Bvh::cast_ray` over the walls as capsules of the same radius
//!   (`cli/src/ray_peer.rs`, shared with `segbatch bench --scenes`).
//!
//! Before timing, the setup checks that both find the same wall for every ray (or walls
//! hit at the same parameter, a tie either may break), and that the index agrees bit for
//! bit with brute force over [`reference::first_hit`] on a sample of rays.

use criterion::{Criterion, criterion_group, criterion_main};
use segbatch::sets::FirstHit;
use segbatch::{Segment, SegmentIndex, Segments, reference};
use segbatch_testkit::sets::{rays, walls};
use std::hint::black_box;

#[path = "../../cli/src/ray_peer.rs"]
mod ray_peer;
use ray_peer::ParryWalls;

/// The floor's side: 100K walls on it are a dense maze, 10K a sparse one.
const SIDE: f32 = 250.0;
const RADIUS: f32 = 0.3;

fn brute(walls: &[Segment], ray: &Segment, range: f32) -> Option<FirstHit> {
    let mut best: Option<FirstHit> = None;
    for (j, w) in walls.iter().enumerate() {
        if let Some(mut h) = reference::first_hit(ray, RADIUS, range, w) {
            h.index = j as u32;
            if best.is_none_or(|b| (h.u, h.index) < (b.u, b.index)) {
                best = Some(h);
            }
        }
    }
    best
}

fn sight_rays(c: &mut Criterion) {
    let sight = rays(20_000, SIDE, 2);
    let ray_set = Segments::from(&sight);
    for (name, n_walls) in [("dense", 100_000), ("sparse", 10_000)] {
        let wall_list = walls(n_walls, SIDE, 1);
        let index = SegmentIndex::new(&Segments::from(&wall_list)).unwrap();
        let peer = ParryWalls::new(&wall_list, RADIUS);
        for range in [10.0f32, 50.0] {
            let mut ours = Vec::new();
            let mut theirs = Vec::new();
            index
                .first_hits_into(&ray_set, RADIUS, range, &mut ours)
                .unwrap();
            peer.cast(&sight, range, &mut theirs);
            let differ = ours
                .iter()
                .zip(&theirs)
                .filter(|(a, b)| match (a, b) {
                    // A tie (most often several walls touching at 0) may go either way.
                    (Some(a), Some(b)) => a.index != b.0 && (a.u - b.1).abs() > 1e-4,
                    (a, b) => a.is_some() != b.is_some(),
                })
                .count();
            assert_eq!(differ, 0, "{name} range {range}: rays differ from parry");
            for k in (0..sight.len()).step_by(200) {
                assert_eq!(ours[k], brute(&wall_list, &sight[k], range), "ray {k}");
            }
            let mut group = c.benchmark_group(format!("sight_rays/{name}/range{range}"));
            group.sample_size(10);
            group.bench_function("segbatch", |b| {
                b.iter(|| {
                    index
                        .first_hits_into(&ray_set, RADIUS, range, &mut ours)
                        .unwrap();
                    black_box(&ours);
                })
            });
            group.bench_function("parry", |b| {
                b.iter(|| {
                    peer.cast(&sight, range, &mut theirs);
                    black_box(&theirs);
                })
            });
            group.finish();
        }
    }
}

criterion_group!(benches, sight_rays);
criterion_main!(benches);
