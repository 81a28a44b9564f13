//! Throughput of the scalar reference, the 8-lane kernel, the rayon driver and a scalar peer
//! (parry3d's `closest_points_segment_segment_with_locations_nD`, Ericson's method) on the
//! same random segment pairs, at 1K, 64K, 1M and 16M pairs.
//!
//! `cargo bench --bench kernel` (all) or e.g. `cargo bench --bench kernel -- 65536` (one
//! size). Figures and the commands that produced them are in docs/performance.md.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use parry3d::math::Vec3;
use parry3d::query::details::closest_points_segment_segment_with_locations_nD;
use parry3d::shape::SegmentPointLocation;
use segbatch::pairs::closest_points_into;
use segbatch::{Closest, ClosestBatch, Flags, Options, Outputs, Segment, Segments, reference};
use segbatch_testkit::Rng;
use std::hint::black_box;
use std::time::Duration;

/// Uniform random pairs in the cube [-10, 10]^3 (the test kit's RNG, fixed seed).
fn random_pairs(n: usize) -> (Vec<Segment>, Vec<Segment>) {
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    let mut seg = || Segment::new(rng.cube_f32(10.0), rng.cube_f32(10.0));
    let a = (0..n).map(|_| seg()).collect();
    let b = (0..n).map(|_| seg()).collect();
    (a, b)
}

/// The peer: parry3d's segment/segment closest points, plus the points and squared distance
/// it leaves to the caller, so it produces the same columns as the kernel's `Outputs::ALL`.
#[inline]
fn parry_closest(a: &Segment, b: &Segment) -> Closest {
    let (a0, a1) = (Vec3::from_array(a.p0), Vec3::from_array(a.p1));
    let (b0, b1) = (Vec3::from_array(b.p0), Vec3::from_array(b.p1));
    let (la, lb) = closest_points_segment_segment_with_locations_nD((&a0, &a1), (&b0, &b1));
    let param = |l: SegmentPointLocation| match l {
        SegmentPointLocation::OnVertex(i) => i as f32,
        SegmentPointLocation::OnEdge([_, u]) => u,
    };
    let (s, t) = (param(la), param(lb));
    let pa = a0 + (a1 - a0) * s;
    let pb = b0 + (b1 - b0) * t;
    Closest {
        s,
        t,
        point_a: pa.to_array(),
        point_b: pb.to_array(),
        dist2: (pa - pb).length_squared(),
        flags: Flags::empty(),
    }
}

fn bench_sizes(c: &mut Criterion) {
    for &n in &[1usize << 10, 1 << 16, 1 << 20, 1 << 24] {
        let (a, b) = random_pairs(n);
        let (sa, sb) = (Segments::from(&a), Segments::from(&b));
        let mut group = c.benchmark_group(format!("closest/{n}"));
        group.throughput(Throughput::Elements(n as u64));
        if n >= 1 << 20 {
            group.sample_size(10);
            group.warm_up_time(Duration::from_millis(500));
            group.measurement_time(Duration::from_secs(if n >= 1 << 24 { 8 } else { 3 }));
        } else {
            group.measurement_time(Duration::from_secs(2));
        }

        let mut aos_out = vec![Closest::NON_FINITE; n];
        group.bench_function(BenchmarkId::new("reference", "all"), |bench| {
            bench.iter(|| {
                for ((x, y), o) in a.iter().zip(&b).zip(aos_out.iter_mut()) {
                    *o = reference::closest_points(x, y);
                }
                black_box(&aos_out);
            })
        });
        group.bench_function(BenchmarkId::new("parry3d", "all"), |bench| {
            bench.iter(|| {
                for ((x, y), o) in a.iter().zip(&b).zip(aos_out.iter_mut()) {
                    *o = parry_closest(x, y);
                }
                black_box(&aos_out);
            })
        });
        drop(aos_out);

        let mut out = ClosestBatch::default();
        group.bench_function(BenchmarkId::new("kernel", "all"), |bench| {
            bench.iter(|| {
                closest_points_into(&sa, &sb, &Options::SEGMENTS, Outputs::ALL, &mut out).unwrap();
                black_box(out.dist2());
            })
        });
        group.bench_function(BenchmarkId::new("kernel", "distance"), |bench| {
            bench.iter(|| {
                closest_points_into(&sa, &sb, &Options::SEGMENTS, Outputs::DISTANCE, &mut out)
                    .unwrap();
                black_box(out.dist2());
            })
        });
        group.bench_function(BenchmarkId::new("par", "all"), |bench| {
            bench.iter(|| {
                segbatch::pairs::par_closest_points_into(
                    &sa,
                    &sb,
                    &Options::SEGMENTS,
                    Outputs::ALL,
                    &mut out,
                )
                .unwrap();
                black_box(out.dist2());
            })
        });
        group.bench_function(BenchmarkId::new("par", "distance"), |bench| {
            bench.iter(|| {
                segbatch::pairs::par_closest_points_into(
                    &sa,
                    &sb,
                    &Options::SEGMENTS,
                    Outputs::DISTANCE,
                    &mut out,
                )
                .unwrap();
                black_box(out.dist2());
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench_sizes);
criterion_main!(benches);
