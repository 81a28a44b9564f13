//! The `f64` twin of `kernel_profile`: `closest_points_into` (s/t/dist2/flags, a reused
//! buffer; `f64x4` lanes, `f64x8` with `avx512f`) against parry3d-f64's segment/segment
//! routine on the same uniform random pairs, best of 7 interleaved rounds (both in every
//! round, so the ratio is same-run), one thread. The figures in docs/performance.md, "f64
//! batches".
//!
//! ```text
//! cargo run --release --features profiling --example kernel_profile64 -- [reps] [pairs]
//! cargo run --release --features profiling --example kernel_profile64 -- 2000 4096
//! RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR=target/native \
//!     cargo run --release --features profiling --example kernel_profile64 -- 2000 4096   # f64x8
//! ```
//!
//! Timings on a shared machine are noisy: take the ratio.

use parry3d_f64::math::Vec3;
use parry3d_f64::query::details::closest_points_segment_segment_with_locations_nD;
use parry3d_f64::shape::SegmentPointLocation;
use segbatch::pairs::{ClosestBatch64, closest_points_into};
use segbatch::simd::{SIMD_LANES64, SIMD_LEVEL};
use segbatch::{Closest64, Flags, Options, Outputs, Segment64, Segments64};
use segbatch_testkit::Rng;
use std::time::Instant;

/// parry3d-f64's closest points, plus the points and squared distance it leaves to the
/// caller.
fn parry_closest(a: &Segment64, b: &Segment64) -> Closest64 {
    let (a0, a1) = (Vec3::from_array(a.p0), Vec3::from_array(a.p1));
    let (b0, b1) = (Vec3::from_array(b.p0), Vec3::from_array(b.p1));
    let (la, lb) = closest_points_segment_segment_with_locations_nD((&a0, &a1), (&b0, &b1));
    let param = |l: SegmentPointLocation| match l {
        SegmentPointLocation::OnVertex(i) => i as f64,
        SegmentPointLocation::OnEdge([_, u]) => u,
    };
    let (s, t) = (param(la), param(lb));
    let (pa, pb) = (a0 + (a1 - a0) * s, b0 + (b1 - b0) * t);
    Closest64 {
        s,
        t,
        point_a: pa.to_array(),
        point_b: pb.to_array(),
        dist2: (pa - pb).length_squared(),
        flags: Flags::empty(),
    }
}

fn main() {
    let arg = |k: usize| std::env::args().nth(k);
    let reps: usize = arg(1).map_or(100, |s| s.parse().expect("reps"));
    let n: usize = arg(2).map_or(4096, |s| s.parse().expect("pairs"));
    let mut rng = Rng::new(12345);
    let mut seg = || Segment64::new(rng.cube(1.0), rng.cube(1.0));
    let av: Vec<Segment64> = (0..n).map(|_| seg()).collect();
    let bv: Vec<Segment64> = (0..n).map(|_| seg()).collect();
    let a: Segments64 = av.iter().copied().collect();
    let b: Segments64 = bv.iter().copied().collect();
    let mut out = ClosestBatch64::new();
    let mut aos = vec![Closest64::NON_FINITE; n];
    let (mut best_kernel, mut best_parry) = (0f64, 0f64);
    for _round in 0..7 {
        let t = Instant::now();
        for _ in 0..reps {
            closest_points_into(&a, &b, &Options::SEGMENTS, Outputs::PARAMS, &mut out).unwrap();
            std::hint::black_box(&out);
        }
        best_kernel = best_kernel.max((n * reps) as f64 / t.elapsed().as_secs_f64() / 1e6);
        let parry_reps = (reps / 8).max(1);
        let t = Instant::now();
        for _ in 0..parry_reps {
            for ((x, y), o) in av.iter().zip(&bv).zip(aos.iter_mut()) {
                *o = parry_closest(x, y);
            }
            std::hint::black_box(&aos);
        }
        best_parry = best_parry.max((n * parry_reps) as f64 / t.elapsed().as_secs_f64() / 1e6);
    }
    println!(
        "{n} pairs, s/t/dist2/flags, build {SIMD_LEVEL} (f64 x{SIMD_LANES64}): \
         closest_points_into {best_kernel:.1} M pairs/s, parry3d-f64 {best_parry:.1} M \
         pairs/s ({:.1}x)",
        best_kernel / best_parry
    );
}
