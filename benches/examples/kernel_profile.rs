//! The harness behind the kernel's optimisation figures in docs/performance.md and
//! docs/architecture.md: `closest_points_width_into` at 8 and at 16 lanes with a reused
//! buffer against parry3d's segment/segment routine on the same pairs, best of 7
//! interleaved rounds (all three in every round, so the ratios are same-run). The pairs are
//! uniform random (the default), `segbatch bench`'s near-parallel stress mix (`stress`), or
//! its navigation rays against walls (`nav`: rays, which parry3d's routine does not take,
//! so there is no parry3d figure).
//!
//! ```text
//! cargo run --release --features profiling --example kernel_profile -- [reps] [pairs] [all|params|dist] [uniform|stress|nav]
//! RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR=target/native \
//!     cargo run --release --features profiling --example kernel_profile -- 2000 4096 params   # x16 vs x8
//! cargo build --release --features profiling --example kernel_profile && valgrind --tool=callgrind \
//!     --callgrind-out-file=cg.out target/release/examples/kernel_profile 8
//! callgrind_annotate cg.out | grep kernel::run   # instructions; / (7·8·8192) per group
//! ```
//!
//! Timings on a shared machine are noisy (take the ratio); callgrind's instruction counts
//! are exact and repeatable.

use parry3d::math::Vec3;
use parry3d::query::details::closest_points_segment_segment_with_locations_nD;
use parry3d::shape::SegmentPointLocation;
use segbatch::pairs::{Width, closest_points_width_into};
use segbatch::simd::{SIMD_LANES, SIMD_LEVEL};
use segbatch::{Closest, ClosestBatch, Extent, Flags, Options, Outputs, Segment, Segments};
use segbatch_testkit::{Rng, pairs};
use std::time::Instant;

/// parry3d's closest points, plus the points and squared distance it leaves to the caller.
fn parry_closest(a: &Segment, b: &Segment) -> Closest {
    let (a0, a1) = (Vec3::from_array(a.p0), Vec3::from_array(a.p1));
    let (b0, b1) = (Vec3::from_array(b.p0), Vec3::from_array(b.p1));
    let (la, lb) = closest_points_segment_segment_with_locations_nD((&a0, &a1), (&b0, &b1));
    let param = |l: SegmentPointLocation| match l {
        SegmentPointLocation::OnVertex(i) => i as f32,
        SegmentPointLocation::OnEdge([_, u]) => u,
    };
    let (s, t) = (param(la), param(lb));
    let (pa, pb) = (a0 + (a1 - a0) * s, b0 + (b1 - b0) * t);
    Closest {
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
    let n: usize = arg(2).map_or(1 << 16, |s| s.parse().expect("pairs"));
    let outputs = match arg(3).as_deref() {
        Some("dist") => Outputs::DISTANCE,
        Some("params") => Outputs::PARAMS,
        _ => Outputs::ALL,
    };
    let workload = arg(4).unwrap_or("uniform".into());
    let mut rng = Rng::new(12345);
    let (av, bv): (Vec<Segment>, Vec<Segment>) = match workload.as_str() {
        "uniform" => {
            let mut seg = || Segment::new(rng.cube_f32(1.0), rng.cube_f32(1.0));
            let av = (0..n).map(|_| seg()).collect();
            (av, (0..n).map(|_| seg()).collect())
        }
        "stress" => (0..n).map(|_| pairs::stress_mix(&mut rng)).unzip(),
        "nav" => (0..n).map(|_| pairs::navigation(&mut rng)).unzip(),
        other => panic!("unknown workload {other:?}: uniform, stress or nav"),
    };
    // Rays, which parry3d's segment routine does not take.
    let rays = workload == "nav";
    let options = if rays {
        Options::new(Extent::Ray, Extent::Segment)
    } else {
        Options::SEGMENTS
    };
    let (a, b) = (Segments::from(&av), Segments::from(&bv));
    let mut out = ClosestBatch::default();
    let mut aos = vec![Closest::NON_FINITE; n];
    let (mut best_x8, mut best_x16, mut best_parry) = (0f64, 0f64, 0f64);
    for _round in 0..7 {
        for (width, best) in [(Width::X8, &mut best_x8), (Width::X16, &mut best_x16)] {
            let t = Instant::now();
            for _ in 0..reps {
                closest_points_width_into(&a, &b, &options, outputs, width, &mut out).unwrap();
                std::hint::black_box(&out);
            }
            *best = best.max((n * reps) as f64 / t.elapsed().as_secs_f64() / 1e6);
        }
        if rays {
            continue;
        }
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
    let columns = match outputs {
        Outputs::DISTANCE => "distance only",
        Outputs::PARAMS => "s/t/dist2/flags",
        _ => "all columns",
    };
    let parry = if rays {
        "parry3d: no ray routine".to_owned()
    } else {
        format!(
            "parry3d {best_parry:.1} M pairs/s (x8 {:.1}x, x16 {:.1}x)",
            best_x8 / best_parry,
            best_x16 / best_parry
        )
    };
    println!(
        "{n} {workload} pairs, {columns}, build {SIMD_LEVEL} ({SIMD_LANES} lanes): x8 {best_x8:.1} \
         M pairs/s, x16 {best_x16:.1} M pairs/s (x16/x8 {:.2}), {parry}",
        best_x16 / best_x8,
    );
}
