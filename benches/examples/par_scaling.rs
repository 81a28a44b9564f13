//! Interleaved 1-thread / 2-thread timings of the parallel driver and the N x M queries,
//! plus the streaming bound: a noise-robust complement to `cargo bench --bench queries`
//! on a shared machine (each round runs every variant once, back to back, so slow phases
//! of the machine hit all variants alike; medians over the rounds are printed).
//!
//! `cargo run --release --features profiling --example par_scaling [rounds]`

use rayon::prelude::*;
use segbatch::pairs::*;
use segbatch::sets::*;
use segbatch::simd::SIMD_LEVEL;
use segbatch::*;
use segbatch_testkit::Rng;
use std::time::Instant;

/// The scene of `benches/queries.rs`: a `box_size`² x `box_size`/8 level, pieces up to `len`.
fn scene(seed: u64, n: usize, box_size: f32, len: f32) -> Segments {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let p = [
                rng.unit_f32() * box_size,
                rng.unit_f32() * box_size,
                rng.unit_f32() * box_size / 8.0,
            ];
            let d = [
                (rng.unit_f32() - 0.5) * len,
                (rng.unit_f32() - 0.5) * len,
                (rng.unit_f32() - 0.5) * len / 8.0,
            ];
            Segment::new(p, [p[0] + d[0], p[1] + d[1], p[2] + d[2]])
        })
        .collect()
}

/// Reads the 12 input columns, writes one output column, in the driver's chunks.
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

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(15);
    let pools: Vec<rayon::ThreadPool> = [1, 2]
        .iter()
        .map(|&t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
        })
        .collect();
    let n16 = 16 << 20;
    let (a16, b16) = (scene(1, n16, 1000.0, 10.0), scene(2, n16, 1000.0, 10.0));
    let (a4, b4) = (scene(3, 4096, 64.0, 2.0), scene(4, 4096, 64.0, 2.0));
    let (w_a, w_b) = (scene(5, 4096, 64.0, 2.0), scene(6, 4096, 64.0, 2.0));
    let set = scene(7, 8192, 90.0, 2.0);
    let mut out = ClosestBatch::new();
    let mut plain = vec![0.0f32; n16];
    let mut matrix = Vec::new();
    let mut hits = Vec::new();

    let names = [
        ("kernel 16M distance-only", n16 as f64),
        ("streaming bound 16M", n16 as f64),
        ("dist2_matrix 4K x 4K", 4096.0 * 4096.0),
        ("pairs_within 4K x 4K r=0.25", 4096.0 * 4096.0),
        ("self_pairs_within 8K r=0.25", 8192.0 * 8191.0 / 2.0),
    ];
    // times[variant][threads - 1][round]
    let mut times = vec![[Vec::new(), Vec::new()]; names.len()];
    for _ in 0..rounds {
        for (t, pool) in pools.iter().enumerate() {
            pool.install(|| {
                let mut time = |k: usize, f: &mut dyn FnMut()| {
                    let s = Instant::now();
                    f();
                    times[k][t].push(s.elapsed().as_secs_f64());
                };
                time(0, &mut || {
                    par_closest_points_into(
                        &a16,
                        &b16,
                        &Options::SEGMENTS,
                        Outputs::DISTANCE,
                        &mut out,
                    )
                    .unwrap()
                });
                time(1, &mut || stream(&a16, &b16, &mut plain));
                time(2, &mut || {
                    par_dist2_matrix_into(&a4, &b4, &Options::SEGMENTS, &mut matrix).unwrap()
                });
                time(3, &mut || {
                    par_pairs_within_into(&w_a, &w_b, 0.25, &Options::SEGMENTS, &mut hits).unwrap()
                });
                time(4, &mut || {
                    par_self_pairs_within_into(
                        &set,
                        0.25,
                        SharedEndpoints::Skip,
                        &Options::SEGMENTS,
                        &mut hits,
                    )
                    .unwrap()
                });
            });
        }
    }
    println!("{rounds} interleaved rounds, medians (SIMD level {SIMD_LEVEL})");
    let mut med = Vec::new();
    for (k, (name, work)) in names.iter().enumerate() {
        let m1 = median(&mut times[k][0]);
        let m2 = median(&mut times[k][1]);
        med.push((m1, m2));
        println!(
            "{name:32} 1 thread {:8.2} ms {:7.0} M/s | 2 threads {:8.2} ms {:7.0} M/s | speedup {:.2}x",
            m1 * 1e3,
            work / m1 / 1e6,
            m2 * 1e3,
            work / m2 / 1e6,
            m1 / m2
        );
    }
    println!(
        "kernel / streaming bound (throughput ratio): 1 thread {:.0}%, 2 threads {:.0}%",
        100.0 * med[1].0 / med[0].0,
        100.0 * med[1].1 / med[0].1
    );
}
