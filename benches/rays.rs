//! Thick sight rays against static walls, one thread and two, segbatch and its peer in the
//! same run: 20K rays of radius 0.3 from eye height on a city floor, against 100K walls (dense)
//! and 10K walls (sparse), ranges 10 and 50.
//!
//! - `segbatch`: [`SegmentIndex::first_hits_into`] (the index built once, the output
//!   reused);
//! - `parry`: parry3d's `Bvh::cast_ray` over the walls as capsules of the same radius
//!   (`cli/src/bench/ray_peer.rs`, shared with `segbatch bench --scenes`);
//! - `segbatch_2t` and `parry_2t`: the same on a 2-thread pool
//!   ([`SegmentIndex::par_first_hits_into`]; parry3d's casts in a rayon `par_iter`).
//!
//! Before timing, the setup checks that both find the same wall for every ray (or walls
//! hit at the same parameter, a tie either may break), and that the index agrees bit for
//! bit with brute force over [`reference::first_hit`] on a sample of rays.
//!
//! `sight_rays64`: the same scenes in `f64` at UTM coordinates (moved by `(5e5, 5e6, 0)`),
//! [`SegmentIndex64::first_hits_into`] (the rays moved with them), against the
//! `f32` index on the scene at the origin in the same run. Before timing, every one of the
//! first 10K rays is checked against brute force over [`reference::first_hit`] (all
//! cores), bit for bit.

use criterion::{Criterion, criterion_group, criterion_main};
use rayon::prelude::*;
use segbatch::sets::{FirstHit64, SegmentIndex64};
use segbatch::{Segment64, SegmentIndex, Segments, Segments64, reference};
use segbatch_testkit::sets::{rays, walls};
use std::hint::black_box;

#[path = "../cli/src/bench/ray_peer.rs"]
mod ray_peer;
use ray_peer::{ParryWalls, brute_first_hit};

/// The floor's side: 100K walls on it are a dense maze, 10K a sparse one.
const SIDE: f32 = 250.0;
const RADIUS: f32 = 0.3;

fn sight_rays(c: &mut Criterion) {
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
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
                assert_eq!(
                    ours[k],
                    brute_first_hit(&wall_list, &sight[k], RADIUS, range),
                    "ray {k}"
                );
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
            group.bench_function("segbatch_2t", |b| {
                b.iter(|| {
                    two.install(|| index.par_first_hits_into(&ray_set, RADIUS, range, &mut ours))
                        .unwrap();
                    black_box(&ours);
                })
            });
            group.bench_function("parry_2t", |b| {
                b.iter(|| {
                    two.install(|| peer.par_cast(&sight, range, &mut theirs));
                    black_box(&theirs);
                })
            });
            group.finish();
        }
    }
}

/// The scenes' walls in f64 at UTM coordinates.
const UTM: [f64; 3] = [5e5, 5e6, 0.0];

fn brute64(walls: &[Segment64], ray: &Segment64, range: f64) -> Option<FirstHit64> {
    let mut best: Option<FirstHit64> = None;
    for (j, w) in walls.iter().enumerate() {
        if let Some(mut h) = reference::first_hit(ray, f64::from(RADIUS), range, w) {
            h.index = j as u32;
            if best.is_none_or(|b| (h.u, h.index) < (b.u, b.index)) {
                best = Some(h);
            }
        }
    }
    best
}

fn sight_rays64(c: &mut Criterion) {
    let sight = rays(20_000, SIDE, 2);
    let ray_set = Segments::from(&sight);
    let moved = |p: [f32; 3]| -> [f64; 3] { core::array::from_fn(|k| f64::from(p[k]) + UTM[k]) };
    let origins: Vec<[f64; 3]> = sight.iter().map(|s| moved(s.p0)).collect();
    let directions: Vec<[f64; 3]> = sight
        .iter()
        .map(|s| core::array::from_fn(|k| f64::from(s.p1[k]) - f64::from(s.p0[k])))
        .collect();
    let rays64: Vec<Segment64> = origins
        .iter()
        .zip(&directions)
        .map(|(o, d)| Segment64::new(*o, core::array::from_fn(|k| o[k] + d[k])))
        .collect();
    let ray_set64 = Segments64::from(&rays64);
    for (name, n_walls) in [("dense", 100_000), ("sparse", 10_000)] {
        let wall_list = walls(n_walls, SIDE, 1);
        let walls64: Vec<Segment64> = wall_list
            .iter()
            .map(|w| Segment64::new(moved(w.p0), moved(w.p1)))
            .collect();
        let index = SegmentIndex::new(&Segments::from(&wall_list)).unwrap();
        let index64 = SegmentIndex64::new(&Segments64::from(&walls64)).unwrap();
        for range in [10.0f32, 50.0] {
            let mut ours = Vec::new();
            let mut ours64 = Vec::new();
            index64
                .first_hits_into(&ray_set64, f64::from(RADIUS), f64::from(range), &mut ours64)
                .unwrap();
            let want: Vec<Option<FirstHit64>> = rays64[..10_000]
                .par_iter()
                .map(|ray| brute64(&walls64, ray, f64::from(range)))
                .collect();
            assert_eq!(
                &ours64[..10_000],
                &want[..],
                "{name} range {range}: f64 brute force"
            );
            let mut group = c.benchmark_group(format!("sight_rays64/{name}/range{range}"));
            group.sample_size(10);
            group.bench_function("f32", |b| {
                b.iter(|| {
                    index
                        .first_hits_into(&ray_set, RADIUS, range, &mut ours)
                        .unwrap();
                    black_box(&ours);
                })
            });
            group.bench_function("f64_utm", |b| {
                b.iter(|| {
                    index64
                        .first_hits_into(
                            &ray_set64,
                            f64::from(RADIUS),
                            f64::from(range),
                            &mut ours64,
                        )
                        .unwrap();
                    black_box(&ours64);
                })
            });
            group.finish();
        }
    }
}

criterion_group!(benches, sight_rays, sight_rays64);
criterion_main!(benches);
