//! What one core does per second at each lane width, the ceiling under the lane-width
//! figures (docs/performance.md, "What the core allows"): twelve independent chains of one
//! operation (fused multiply-add, `min`, division) through `f32x8`, `f32x16`, `f64x4` and
//! `f64x8`, in G lane-operations per second, and one dependent chain of divisions (the
//! latency the kernel's `s -> t -> s` steps wait on), in ns per division.
//!
//! ```text
//! RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR=target/native \
//!     cargo run --release --example lane_probe -- [rounds]
//! ```
//!
//! Without `avx512f` the 16-lane `f32` and 8-lane `f64` types are two 8- or 4-lane halves,
//! so the wide figures only mean something in a build that has it.

// The raw instructions' throughput: `wide`'s own methods, not the crate's `lanes::Twin`.
#![allow(clippy::disallowed_methods)]

use std::hint::black_box;
use std::time::Instant;
use wide::{f32x8, f32x16, f64x4, f64x8};

/// Operations per chain and round.
const STEPS: usize = 4_000_000;

/// G lane-operations per second of `op` over twelve independent chains of `$lane`, and
/// ns per step of one dependent chain of divisions.
macro_rules! probe {
    ($name:ident, $lane:ty, $elem:ty) => {
        fn $name(op: Op) -> f64 {
            let width = <$lane>::default().to_array().len();
            let m = black_box(<$lane>::splat(0.999_999));
            let c = black_box(<$lane>::splat(1e-7));
            let mut chains: [$lane; 12] =
                core::array::from_fn(|i| <$lane>::splat(1.0 + i as $elem * 1e-3));
            let start = Instant::now();
            match op {
                Op::Fma => {
                    (0..STEPS).for_each(|_| chains.iter_mut().for_each(|x| *x = x.mul_add(m, c)))
                }
                Op::Min => {
                    (0..STEPS).for_each(|_| chains.iter_mut().for_each(|x| *x = x.fast_min(m)))
                }
                Op::Div => (0..STEPS).for_each(|_| chains.iter_mut().for_each(|x| *x = m / *x)),
                Op::DivChain => (0..STEPS).for_each(|_| chains[0] = m / chains[0]),
            }
            let seconds = start.elapsed().as_secs_f64();
            black_box(chains);
            match op {
                Op::DivChain => seconds / STEPS as f64 * 1e9,
                _ => (STEPS * 12 * width) as f64 / seconds / 1e9,
            }
        }
    };
}
probe!(f32_8, f32x8, f32);
probe!(f32_16, f32x16, f32);
probe!(f64_4, f64x4, f64);
probe!(f64_8, f64x8, f64);

#[derive(Clone, Copy)]
enum Op {
    Fma,
    Min,
    Div,
    DivChain,
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map_or(3, |s| s.parse().expect("a whole number of rounds"));
    let avx512 = cfg!(target_feature = "avx512f");
    println!("build: avx512f {avx512}; twelve independent chains unless said");
    let ops = [
        (Op::Fma, "fma, G lane-ops/s"),
        (Op::Min, "min, G lane-ops/s"),
        (Op::Div, "div, G lane-ops/s"),
        (Op::DivChain, "div latency, ns"),
    ];
    for (op, label) in ops {
        // Best of the rounds, all four types in every round.
        let mut best = [f64::NAN; 4];
        for _ in 0..rounds {
            let got = [f32_8(op), f32_16(op), f64_4(op), f64_8(op)];
            for (b, g) in best.iter_mut().zip(got) {
                *b = match op {
                    Op::DivChain => b.min(g),
                    _ => b.max(g),
                };
            }
        }
        let [a, b, c, d] = best;
        println!(
            "{label:<20} f32x8 {a:7.2}  f32x16 {b:7.2} ({:.2}x)  f64x4 {c:7.2}  f64x8 {d:7.2} ({:.2}x)",
            b / a,
            d / c
        );
    }
}
