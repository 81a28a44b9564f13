//! Bulk queries and the parallel driver, 1 thread against 2 in the same run.
//!
//! Groups (filter with `cargo bench --bench queries -- <group>`):
//! - `stream16m`: 16M pairs, distance only: the parallel kernel against a trivial pass that
//!   reads the same 12 input columns and writes the same output column (the streaming
//!   bound), both on local rayon pools of 1 and 2 threads;
//! - `matrix4k`: the dense 4K x 4K matrix of squared distances (compute-bound);
//! - `within`: the 4K x 4K within-radius query and the within-one-set query on 8K segments
//!   (32M pair tests), in a navigation-like scene;
//! - `linear1m`: one-to-many and capsule overlap on 1M pairs;
//! - `cutoff`: sizes around the single-thread cut-offs (sequential vs parallel call).
//!
//! Throughput is in pairs (or pair tests) per second. `scripts`-free ratios: read the
//! medians from `target/criterion/<group>/<bench>/new/estimates.json` (see
//! docs/performance.md for the one-liner used).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rayon::prelude::*;
use segbatch::pairs::*;
use segbatch::sets::*;
use segbatch::*;
use segbatch_testkit::Rng;
use std::hint::black_box;
use std::time::Duration;

/// `n` segments in a `box_size`³ box (z squashed by 8: a level with floors), each up to
/// `len` long.
fn scene(seed: u64, n: usize, box_size: f32, len: f32) -> Segments {
    let mut rng = Rng::new(seed);
    let mut cols: [Vec<f32>; 6] = core::array::from_fn(|_| Vec::with_capacity(n));
    for _ in 0..n {
        let p0 = [
            rng.unit_f32() * box_size,
            rng.unit_f32() * box_size,
            rng.unit_f32() * box_size / 8.0,
        ];
        let d = [
            (rng.unit_f32() - 0.5) * len,
            (rng.unit_f32() - 0.5) * len,
            (rng.unit_f32() - 0.5) * len / 8.0,
        ];
        for k in 0..3 {
            cols[k].push(p0[k]);
            cols[3 + k].push(p0[k] + d[k]);
        }
    }
    Segments::from_columns([&cols[0], &cols[1], &cols[2], &cols[3], &cols[4], &cols[5]]).unwrap()
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

/// The streaming bound: read the 12 input columns of `a` and `b`, write one output column,
/// split in the driver's chunks.
fn stream(a: &Segments, b: &Segments, out: &mut [f32]) {
    let (ca, cb) = (a.columns(), b.columns());
    out.par_chunks_mut(PAR_CHUNK_PAIRS)
        .enumerate()
        .for_each(|(c, o)| {
            let s = c * PAR_CHUNK_PAIRS;
            let e = s + o.len();
            let [a0, a1, a2, a3, a4, a5] = ca.map(|col| &col[s..e]);
            let [b0, b1, b2, b3, b4, b5] = cb.map(|col| &col[s..e]);
            for k in 0..o.len() {
                o[k] = ((a0[k] + a1[k]) + (a2[k] + a3[k]))
                    + ((a4[k] + a5[k]) + (b0[k] + b1[k]))
                    + ((b2[k] + b3[k]) + (b4[k] + b5[k]));
            }
        });
}

fn stream16m(c: &mut Criterion) {
    let n = 16 << 20;
    let a = scene(1, n, 1000.0, 10.0);
    let b = scene(2, n, 1000.0, 10.0);
    let mut g = c.benchmark_group("stream16m");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(8))
        .throughput(Throughput::Elements(n as u64));
    let mut out = ClosestBatch::new();
    let mut plain = vec![0.0f32; n];
    for threads in [1, 2] {
        let p = pool(threads);
        g.bench_function(BenchmarkId::new("kernel_distance", threads), |bch| {
            bch.iter(|| {
                p.install(|| {
                    par_closest_points_into(&a, &b, &Options::SEGMENTS, Outputs::DISTANCE, &mut out)
                })
                .unwrap();
                black_box(out.dist2()[n - 1])
            })
        });
        g.bench_function(BenchmarkId::new("stream_bound", threads), |bch| {
            bch.iter(|| {
                p.install(|| stream(&a, &b, &mut plain));
                black_box(plain[n - 1])
            })
        });
    }
    g.finish();
}

fn matrix4k(c: &mut Criterion) {
    let n = 4096;
    let a = scene(3, n, 64.0, 2.0);
    let b = scene(4, n, 64.0, 2.0);
    let mut g = c.benchmark_group("matrix4k");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(6))
        .throughput(Throughput::Elements((n * n) as u64));
    let mut out = Vec::new();
    for threads in [1, 2] {
        let p = pool(threads);
        g.bench_function(BenchmarkId::new("dist2_matrix", threads), |bch| {
            bch.iter(|| {
                p.install(|| par_dist2_matrix_into(&a, &b, &Options::SEGMENTS, &mut out))
                    .unwrap();
                black_box(out[n * n - 1])
            })
        });
    }
    g.finish();
}

fn within(c: &mut Criterion) {
    // A navigation-like scene: 4K agent path pieces and 4K walls up to 2 long in a
    // 64 x 64 x 8 level; clearance radius 0.25.
    let n = 4096;
    let a = scene(5, n, 64.0, 2.0);
    let b = scene(6, n, 64.0, 2.0);
    let radius = 0.25;
    let mut g = c.benchmark_group("within");
    g.sample_size(10).measurement_time(Duration::from_secs(6));
    let mut hits = Vec::new();
    g.throughput(Throughput::Elements((n * n) as u64));
    for threads in [1, 2] {
        let p = pool(threads);
        g.bench_function(BenchmarkId::new("pairs_within_4kx4k", threads), |bch| {
            bch.iter(|| {
                p.install(|| par_pairs_within_into(&a, &b, radius, &Options::SEGMENTS, &mut hits))
                    .unwrap();
                black_box(hits.len())
            })
        });
    }
    // The same without the prefilter (rays have no bounding sphere): the kernel's own rate.
    let ray_like = Options::new(Extent::Segment, Extent::Ray);
    let (a1, b1) = (a.view(..1024), b.view(..1024));
    g.throughput(Throughput::Elements(1024 * 1024));
    for threads in [1, 2] {
        let p = pool(threads);
        g.bench_function(BenchmarkId::new("no_prefilter_1kx1k", threads), |bch| {
            bch.iter(|| {
                p.install(|| par_pairs_within_into(a1, b1, radius, &ray_like, &mut hits))
                    .unwrap();
                black_box(hits.len())
            })
        });
    }
    let m = 8192;
    let set = scene(7, m, 90.0, 2.0);
    g.throughput(Throughput::Elements((m * (m - 1) / 2) as u64));
    for threads in [1, 2] {
        let p = pool(threads);
        g.bench_function(BenchmarkId::new("self_pairs_8k", threads), |bch| {
            bch.iter(|| {
                p.install(|| {
                    par_self_pairs_within_into(
                        &set,
                        radius,
                        SharedEndpoints::Skip,
                        &Options::SEGMENTS,
                        &mut hits,
                    )
                })
                .unwrap();
                black_box(hits.len())
            })
        });
    }
    g.finish();
}

fn linear1m(c: &mut Criterion) {
    let n = 1 << 20;
    let a = scene(8, n, 256.0, 2.0);
    let b = scene(9, n, 256.0, 2.0);
    let one = Segment::new([10.0, 10.0, 2.0], [200.0, 150.0, 20.0]);
    let mut g = c.benchmark_group("linear1m");
    g.sample_size(20)
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Elements(n as u64));
    let mut out = ClosestBatch::new();
    let mut mask = PairMask::new();
    for threads in [1, 2] {
        let p = pool(threads);
        g.bench_function(BenchmarkId::new("one_to_many_distance", threads), |bch| {
            bch.iter(|| {
                p.install(|| {
                    par_closest_points_one_to_many_into(
                        &one,
                        &b,
                        &Options::SEGMENTS,
                        Outputs::DISTANCE,
                        &mut out,
                    )
                })
                .unwrap();
                black_box(out.dist2()[0])
            })
        });
        g.bench_function(BenchmarkId::new("capsules_touch", threads), |bch| {
            bch.iter(|| {
                p.install(|| {
                    par_capsules_touch_into(
                        &a,
                        &b,
                        Radii::uniform(0.5, 0.5).unwrap(),
                        &Options::SEGMENTS,
                        &mut mask,
                    )
                })
                .unwrap();
                black_box(mask.words()[0])
            })
        });
    }
    g.finish();
}

/// Sequential call against the parallel call on 2 threads, at sizes around the cut-offs
/// (the parallel call is forced past its cut-off by calling the driver's chunked path on
/// sizes above it only, so compare `seq` with `par2` per size).
fn cutoff(c: &mut Criterion) {
    let mut g = c.benchmark_group("cutoff");
    g.sample_size(30).measurement_time(Duration::from_secs(2));
    let p2 = pool(2);
    let mut out = ClosestBatch::new();
    for n in [8usize << 10, 16 << 10, 32 << 10, 64 << 10, 128 << 10] {
        let a = scene(10, n, 256.0, 2.0);
        let b = scene(11, n, 256.0, 2.0);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(BenchmarkId::new("pairs_seq", n), |bch| {
            bch.iter(|| {
                closest_points_into(&a, &b, &Options::SEGMENTS, Outputs::DISTANCE, &mut out)
            })
        });
        // Chunked on 2 threads regardless of the cut-off: split in halves by hand.
        g.bench_function(BenchmarkId::new("pairs_par2", n), |bch| {
            bch.iter(|| {
                let (mut o1, mut o2) = (ClosestBatch::new(), ClosestBatch::new());
                p2.install(|| {
                    rayon::join(
                        || {
                            closest_points_into(
                                a.view(..n / 2),
                                b.view(..n / 2),
                                &Options::SEGMENTS,
                                Outputs::DISTANCE,
                                &mut o1,
                            )
                            .unwrap()
                        },
                        || {
                            closest_points_into(
                                a.view(n / 2..),
                                b.view(n / 2..),
                                &Options::SEGMENTS,
                                Outputs::DISTANCE,
                                &mut o2,
                            )
                            .unwrap()
                        },
                    )
                });
                black_box((o1.len(), o2.len()))
            })
        });
    }
    // Within-radius pair tests: a x b with a.len() rows against 1024 columns.
    let b = scene(12, 1024, 64.0, 2.0);
    let mut hits = Vec::new();
    for rows in [64usize, 256, 1024] {
        let a = scene(13, rows, 64.0, 2.0);
        g.throughput(Throughput::Elements((rows * 1024) as u64));
        g.bench_function(BenchmarkId::new("within_seq", rows * 1024), |bch| {
            bch.iter(|| pairs_within_into(&a, &b, 0.25, &Options::SEGMENTS, &mut hits))
        });
        g.bench_function(BenchmarkId::new("within_par2", rows * 1024), |bch| {
            bch.iter(|| {
                let (mut h1, mut h2) = (Vec::new(), Vec::new());
                let (r1, r2) = p2.install(|| {
                    rayon::join(
                        || {
                            pairs_within_into(
                                a.view(..rows / 2),
                                &b,
                                0.25,
                                &Options::SEGMENTS,
                                &mut h1,
                            )
                        },
                        || {
                            pairs_within_into(
                                a.view(rows / 2..),
                                &b,
                                0.25,
                                &Options::SEGMENTS,
                                &mut h2,
                            )
                        },
                    )
                });
                r1.and(r2).unwrap();
                black_box((h1.len(), h2.len()))
            })
        });
    }
    g.finish();
}

criterion_group!(benches, stream16m, matrix4k, within, linear1m, cutoff);
criterion_main!(benches);
