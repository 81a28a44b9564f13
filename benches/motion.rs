//! Motion queries: the batched 8-lane functions against their scalar references, same run.
//!
//! `cargo bench --bench motion` (x86-64-v3 from .cargo/config.toml). Sizes: 4 096 pairs
//! (cache-resident) and 262 144 pairs (beyond L2). The 2D group also runs the 3D kernel on
//! the same segments with z = 0, the alternative a 2D user would otherwise have.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use segbatch::motion::*;
use segbatch::pairs::Radii;
use segbatch::planar::{Intersections2, Segment2, Segments2, intersect2_into};
use segbatch::{ClosestBatch, Options, Outputs, Segment, Segments, reference};
use segbatch_testkit::motion::step_pairs as inputs;
use std::hint::black_box;
use std::time::Duration;

const SIZES: [usize; 2] = [4096, 262_144];

fn config(c: &mut Criterion) -> &mut Criterion {
    c
}

fn bench_cpa(c: &mut Criterion) {
    let mut g = config(c).benchmark_group("cpa_segments");
    for n in SIZES {
        let (a, b, _, _) = inputs(n);
        let (sa, sb) = (Segments::from(&a), Segments::from(&b));
        g.throughput(Throughput::Elements(n as u64));
        let mut out = CpaBatch::new();
        g.bench_function(BenchmarkId::new("batched", n), |bench| {
            bench.iter(|| cpa_into(black_box(&sa), black_box(&sb), Window::STEP, &mut out))
        });
        let mut res = vec![0.0f32; n];
        g.bench_function(BenchmarkId::new("scalar_reference", n), |bench| {
            bench.iter(|| {
                for ((x, y), r) in black_box(&a).iter().zip(black_box(&b)).zip(&mut res) {
                    let c = reference::cpa(x, y, Window::STEP);
                    *r = c.dist2 + c.t + c.point_a[0] + c.point_b[0];
                }
            })
        });
    }
    g.finish();
}

fn bench_contact(c: &mut Criterion) {
    let mut g = config(c).benchmark_group("first_contact_segments");
    for n in SIZES {
        let (a, b, ra, rb) = inputs(n);
        let (sa, sb) = (Segments::from(&a), Segments::from(&b));
        g.throughput(Throughput::Elements(n as u64));
        let mut out = ContactBatch::new();
        let radii = Radii::per_pair(&ra, &rb).expect("radii are positive");
        g.bench_function(BenchmarkId::new("batched", n), |bench| {
            bench.iter(|| {
                first_contact_into(
                    black_box(&sa),
                    black_box(&sb),
                    radii,
                    Window::STEP,
                    &mut out,
                )
            })
        });
        let mut res = vec![0.0f32; n];
        g.bench_function(BenchmarkId::new("scalar_reference", n), |bench| {
            bench.iter(|| {
                for (i, r) in res.iter_mut().enumerate() {
                    let c = reference::first_contact(
                        black_box(&a[i]),
                        ra[i],
                        black_box(&b[i]),
                        rb[i],
                        Window::STEP,
                    );
                    *r = if c.hit { c.t } else { -1.0 };
                }
            })
        });
    }
    g.finish();
}

fn bench_2d(c: &mut Criterion) {
    let mut g = config(c).benchmark_group("intersect2");
    for n in SIZES {
        let (a3, b3, _, _) = inputs(n);
        let flat = |s: &Segment| Segment2::new([s.p0[0], s.p0[1]], [s.p1[0], s.p1[1]]);
        let a: Vec<Segment2> = a3.iter().map(flat).collect();
        let b: Vec<Segment2> = b3.iter().map(flat).collect();
        let (sa, sb) = (Segments2::from(&a[..]), Segments2::from(&b[..]));
        g.throughput(Throughput::Elements(n as u64));
        let mut out = Intersections2::new();
        g.bench_function(BenchmarkId::new("batched", n), |bench| {
            bench.iter(|| intersect2_into(black_box(&sa), black_box(&sb), &mut out))
        });
        let mut res = vec![0.0f32; n];
        g.bench_function(BenchmarkId::new("scalar_reference", n), |bench| {
            bench.iter(|| {
                for ((x, y), r) in black_box(&a).iter().zip(black_box(&b)).zip(&mut res) {
                    let c = reference::intersect2(x, y);
                    *r = c.dist2 + c.s + c.t + c.point_a[0];
                }
            })
        });
        // The alternative: the 3D kernel with z = 0 (closest points only, no crossing kind).
        let z0 = |s: &Segment2| Segment::new([s.p0[0], s.p0[1], 0.0], [s.p1[0], s.p1[1], 0.0]);
        let (za, zb) = (
            Segments::from_iter(a.iter().map(z0)),
            Segments::from_iter(b.iter().map(z0)),
        );
        let mut out3 = ClosestBatch::new();
        g.bench_function(BenchmarkId::new("kernel3d_z0", n), |bench| {
            bench.iter(|| {
                segbatch::pairs::closest_points_into(
                    black_box(&za),
                    black_box(&zb),
                    &Options::SEGMENTS,
                    Outputs::ALL,
                    &mut out3,
                )
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20);
    targets = bench_cpa, bench_contact, bench_2d
}
criterion_main!(benches);
