//! Set queries against scalar peers built on parry3d 0.31, in the same run.
//!
//! Groups (filter with `cargo bench --bench sets -- <group>`):
//! - `hair`, `grass` and `clustered`: all pairs within `r` of 100K, 1M and 4M short
//!   segments (`segbatch_testkit::sets::hair`: length ~2r, ~10 neighbours each; `grass`:
//!   strands of the same length rooted on a floor; `clustered`: hair in dense blobs): `par_self_pairs_within` on a 2-thread pool, against a scalar
//!   sort-and-sweep on x with y/z box rejection and parry3d's segment distance per
//!   candidate (`sweep_parry`), and parry3d's own BVH self-traversal followed by the same
//!   distance (`bvh_parry`). The peers run at 100K and 1M (at 4M each takes tens of seconds
//!   a call: `segbatch bench --sets` times them once there, in one run with segbatch).
//!   Before timing, the peers' pairs are compared with segbatch's and the differences
//!   (pairs at the radius boundary, where parry3d's distance and the kernel's round
//!   differently) are printed.
//! - `index_pairs`: 200K candidate pairs of a 20K capsule set through
//!   `capsules_touch_indexed`, against gathering them into two `Segments` and calling
//!   `capsules_touch` (one thread).
//! - `index_within`: 20K query walls against an index over 100K walls of a city block
//!   (`walls`, r = 0.5, one thread): `SegmentIndex::pairs_within` in `f32`, and in `f64` on
//!   the same walls moved to a UTM offset, against the set query `pairs_within` of the
//!   queries and the walls (which builds its grid every call).
//! - `first_hits`: 40K thick rays against 50K walls, `SegmentIndex` against the brute-force
//!   `par_pairs_within` of the rays and the walls reduced to the nearest hit per ray
//!   (2-thread pool).
//!
//! Medians: `target/criterion/<group>/<bench>/new/estimates.json` (docs/performance.md).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use segbatch::pairs::*;
use segbatch::sets::*;
use segbatch::*;
use segbatch_testkit::sets::{candidate_pairs, clustered, grass, hair, rays, walls};
use std::hint::black_box;
use std::time::Duration;

const R: f32 = 1.0;

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

// The peers: the CLI's own `cli/src/bench/baselines.rs`, included (the CLI is a binary crate).
// (Its unit tests compile, unrun, when clippy checks this bench as a test target.)
#[path = "../cli/src/bench/baselines.rs"]
#[cfg_attr(test, allow(unused_imports, dead_code))]
mod baselines;
use baselines::{bvh_parry, differences, farthest_from_radius, sweep_parry};

/// Prints how a peer's pairs differ from segbatch's (and how far from the radius).
fn compare(name: &str, set: &[Segment], ours: &[(u32, u32)], theirs: &[(u32, u32)]) {
    let (only_ours, only_theirs) = differences(ours, theirs);
    let odd: Vec<(u32, u32)> = only_ours.into_iter().chain(only_theirs).collect();
    let worst = farthest_from_radius(set, &odd, R);
    eprintln!(
        "{name}: segbatch {} pairs, peer {}, {} differ (all within {worst:.1e}·r of the radius)",
        ours.len(),
        theirs.len(),
        odd.len()
    );
}

fn set_group(c: &mut Criterion, kind: &str) {
    let two = pool(2);
    let mut group = c.benchmark_group(kind);
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(5));
    for n in [100_000, 1_000_000, 4_000_000] {
        let set_vec = match kind {
            "hair" => hair(n, R, [0.0; 3], 1),
            "grass" => grass(n, R, 1),
            _ => clustered(n, R, 1),
        };
        let set = Segments::from(&set_vec[..]);
        group.throughput(Throughput::Elements(n as u64));
        let label = format!("{}K", n / 1000);
        let peers = n <= 1_000_000;
        if peers {
            let mut ours: Vec<(u32, u32)> = two
                .install(|| par_self_pairs_within(&set, R, SharedEndpoints::Keep))
                .iter()
                .map(|h| (h.i, h.j))
                .collect();
            ours.sort_unstable();
            let ctx = format!("{kind} {label}");
            compare(
                &format!("{ctx} sweep"),
                &set_vec,
                &ours,
                &sweep_parry(&set_vec, R),
            );
            compare(
                &format!("{ctx} bvh"),
                &set_vec,
                &ours,
                &bvh_parry(&set_vec, R),
            );
        }
        group.bench_function(BenchmarkId::new("segbatch_2t", &label), |b| {
            b.iter(|| {
                two.install(|| black_box(par_self_pairs_within(&set, R, SharedEndpoints::Keep)))
            })
        });
        if peers {
            group.bench_function(BenchmarkId::new("sweep_parry_1t", &label), |b| {
                b.iter(|| black_box(sweep_parry(&set_vec, R)))
            });
            group.bench_function(BenchmarkId::new("bvh_parry_1t", &label), |b| {
                b.iter(|| black_box(bvh_parry(&set_vec, R)))
            });
        }
    }
    group.finish();
}

fn hair_sets(c: &mut Criterion) {
    set_group(c, "hair");
}

fn grass_sets(c: &mut Criterion) {
    set_group(c, "grass");
}

fn clustered_sets(c: &mut Criterion) {
    set_group(c, "clustered");
}

fn index_pairs(c: &mut Criterion) {
    let n = 20_000;
    let set = Segments::from(&hair(n, R, [0.0; 3], 1)[..]);
    let pairs = candidate_pairs(&set, R, 200_000, 7);
    let radii = Radii::uniform(0.5 * R, 0.5 * R).unwrap();
    let mut group = c.benchmark_group("index_pairs");
    group.throughput(Throughput::Elements(pairs.len() as u64));
    group.bench_function("capsules_touch_indexed", |b| {
        b.iter(|| black_box(capsules_touch_indexed(&set, &set, &pairs, radii)))
    });
    let (mut a, mut bb) = (Segments::new(), Segments::new());
    group.bench_function("gather_capsules_touch", |b| {
        b.iter(|| {
            a.clear();
            bb.clear();
            for &(i, j) in &pairs {
                a.push(set.get(i as usize).unwrap());
                bb.push(set.get(j as usize).unwrap());
            }
            black_box(capsules_touch(&a, &bb, radii))
        })
    });
    group.finish();
}

fn index_within(c: &mut Criterion) {
    let (n, r) = (100_000, 0.5f32);
    let side = (n as f32).sqrt() * 0.5;
    let wall_set = Segments::from(&walls(n, side, 1)[..]);
    let query_set = Segments::from(&walls(20_000, side, 2)[..]);
    let utm = |set: &Segments| -> Segments64 {
        let at = |p: [f32; 3]| {
            [
                f64::from(p[0]) + 5e5,
                f64::from(p[1]) + 5e6,
                f64::from(p[2]),
            ]
        };
        set.iter()
            .map(|s| Segment64::new(at(s.p0), at(s.p1)))
            .collect()
    };
    let (wall64, query64) = (utm(&wall_set), utm(&query_set));
    let index = SegmentIndex::new(&wall_set).unwrap();
    let index64 = SegmentIndex::new(&wall64).unwrap();
    let mut group = c.benchmark_group("index_within");
    group.sample_size(10);
    group.throughput(Throughput::Elements(query_set.len() as u64));
    group.bench_function("index_f32", |b| {
        b.iter(|| black_box(index.pairs_within(&query_set, r).unwrap()))
    });
    group.bench_function("index_f64_utm", |b| {
        b.iter(|| black_box(index64.pairs_within(&query64, f64::from(r)).unwrap()))
    });
    group.bench_function("set_query_f32", |b| {
        b.iter(|| black_box(pairs_within(&query_set, &wall_set, r)))
    });
    group.finish();
}

fn first_hits(c: &mut Criterion) {
    let two = pool(2);
    let (radius, range) = (0.5f32, 30.0f32);
    let wall_set = Segments::from(&walls(50_000, 250.0, 1)[..]);
    let ray_set = Segments::from(&rays(40_000, 250.0, 2)[..]);
    let mut group = c.benchmark_group("first_hits");
    group.sample_size(10);
    group.throughput(Throughput::Elements(ray_set.len() as u64));
    group.bench_function("index_2t", |b| {
        b.iter(|| {
            two.install(|| {
                let index = SegmentIndex::par_new(&wall_set).unwrap();
                black_box(index.par_first_hits(&ray_set, radius, range).unwrap())
            })
        })
    });
    let options = Options::new(Extent::Ray, Extent::Segment);
    let mut within = Vec::new();
    group.bench_function("brute_pairs_within_reduce_2t", |b| {
        b.iter(|| {
            two.install(|| {
                par_pairs_within_into(&ray_set, &wall_set, radius, &options, &mut within).unwrap();
            });
            let mut best = vec![f32::INFINITY; ray_set.len()];
            for h in &within {
                let i = h.i as usize;
                if h.s <= range && h.s < best[i] {
                    best[i] = h.s;
                }
            }
            black_box(best)
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    hair_sets,
    grass_sets,
    clustered_sets,
    index_pairs,
    index_within,
    first_hits
);
criterion_main!(benches);
