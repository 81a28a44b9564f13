//! Generated inputs: the `bench` workloads, and batches of pairs from any generator (the
//! `verify` hard-case classes come from the test kit, `segbatch_testkit::pairs`).
//!
//! Everything is seeded, so two runs of `segbatch bench` or `segbatch verify` with the same
//! seed see the same pairs. Large batches are generated in parallel, in fixed-size chunks
//! each with its own seed, so the result does not depend on the number of threads.

use rayon::prelude::*;
use segbatch::{Extent, Options, Segment, Segments};
use segbatch_testkit::Rng;
use segbatch_testkit::pairs::{PairFn, navigation, seg, stress_mix, tilt};
use segbatch_testkit::vec::{V3 as V, add, scale, sub};

/// Mixed into every chunk seed, so that `--seed N` generates the same data as before the
/// generator moved to the test kit (which seeds SplitMix64 with the plain state).
const SEED_MIX: u64 = 0x5DEE_CE66_D1CE_4E5B;

/// Generates `n` pairs into two batches, in parallel chunks of 64K pairs, each chunk seeded
/// from `seed` and its index (so the data does not depend on the thread count).
pub fn generate(n: usize, seed: u64, pair: PairFn) -> (Segments, Segments) {
    const CHUNK: usize = 64 * 1024;
    let chunks: Vec<Vec<(Segment, Segment)>> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let chunk_seed = seed.wrapping_mul(0x1_0000_0001).wrapping_add(c as u64);
            let mut rng = Rng::new(chunk_seed ^ SEED_MIX);
            let len = CHUNK.min(n - c * CHUNK);
            (0..len).map(|_| pair(&mut rng)).collect()
        })
        .collect();
    let mut a = Segments::with_capacity(n);
    let mut b = Segments::with_capacity(n);
    let mut side = Vec::with_capacity(CHUNK);
    for chunk in chunks {
        side.clear();
        side.extend(chunk.iter().map(|p| p.0));
        a.extend_from_slice(&side);
        side.clear();
        side.extend(chunk.iter().map(|p| p.1));
        b.extend_from_slice(&side);
    }
    (a, b)
}

// ---------------------------------------------------------------------------------------
// Bench workloads
// ---------------------------------------------------------------------------------------

/// One `segbatch bench` workload.
pub struct Workload {
    pub name: &'static str,
    pub description: &'static str,
    pub options: Options,
    pub pair: PairFn,
}

pub const WORKLOADS: [Workload; 4] = [
    Workload {
        name: "uniform",
        description: "random segment pairs, end points uniform in a 20-unit cube",
        options: Options::SEGMENTS,
        pair: uniform_pair,
    },
    Workload {
        name: "capsules",
        description: "physics-like capsule pairs: short segments near each other, \
                      1 in 5 both upright",
        options: Options::SEGMENTS,
        pair: capsule_pair,
    },
    Workload {
        name: "navigation",
        description: "agent sight rays against axis-aligned wall segments on a floor \
                      (ray vs segment)",
        options: Options::new(Extent::Ray, Extent::Segment),
        pair: navigation,
    },
    Workload {
        name: "near-parallel",
        description: "stress mix: near-parallel (1e-1..1e-7 rad), collinear, tiny and \
                      far-from-origin pairs",
        options: Options::SEGMENTS,
        pair: stress_mix,
    },
];

fn uniform_pair(rng: &mut Rng) -> (Segment, Segment) {
    (
        seg(rng.cube(10.0), rng.cube(10.0)),
        seg(rng.cube(10.0), rng.cube(10.0)),
    )
}

fn capsule_pair(rng: &mut Rng) -> (Segment, Segment) {
    let center = rng.cube(50.0);
    let upright = rng.chance(0.2);
    let side = |c: V, rng: &mut Rng| {
        let half = rng.range(0.25, 1.0);
        let d = if upright {
            let lean = rng.range(0.0, 0.05);
            tilt(rng, [0.0, 1.0, 0.0], lean)
        } else {
            rng.dir()
        };
        seg(sub(c, scale(d, half)), add(c, scale(d, half)))
    };
    let a = side(center, rng);
    let b = side(add(center, rng.cube(1.5)), rng);
    (a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic_and_sized() {
        let (a1, b1) = generate(70_000, 7, uniform_pair);
        let (a2, b2) = generate(70_000, 7, uniform_pair);
        assert_eq!(a1.len(), 70_000);
        assert_eq!(b1.len(), 70_000);
        assert_eq!(a1, a2);
        assert_eq!(b1, b2);
    }
}
