//! Navigation-style check: many agents' planned paths (polylines) against the walls of a
//! level, and against each other.
//!
//! `cargo run --release --example nav_paths [agents] [walls]`

use segbatch::sets::{Hit, SharedEndpoints, par_pairs_within, par_self_pairs_within};
use segbatch::{Segment, Segments};
use segbatch_testkit::Rng;
use std::time::Instant;

const STEPS: usize = 8;
const CLEARANCE: f32 = 0.3;

fn main() {
    let mut args = std::env::args().skip(1).map(|s| s.parse().ok());
    let agents: usize = args.next().flatten().unwrap_or(1000);
    let walls: usize = args.next().flatten().unwrap_or(800);
    let size = 100.0;
    let mut rng = Rng::new(7);

    // Walls: axis-aligned pieces 1 to 5 long on the floor, 3 high (as their base line).
    let wall_set: Segments = (0..walls)
        .map(|_| {
            let p = [rng.unit_f32() * size, rng.unit_f32() * size, 0.0];
            let l = 1.0 + 4.0 * rng.unit_f32();
            let q = if rng.unit_f32() < 0.5 {
                [p[0] + l, p[1], 0.0]
            } else {
                [p[0], p[1] + l, 0.0]
            };
            Segment::new(p, q)
        })
        .collect();

    // Paths: STEPS pieces of a random walk each; piece k of agent g is index g·STEPS + k.
    let mut paths = Segments::new();
    for _ in 0..agents {
        let mut p = [rng.unit_f32() * size, rng.unit_f32() * size, 0.0];
        for _ in 0..STEPS {
            let q = [
                p[0] + 4.0 * (rng.unit_f32() - 0.5),
                p[1] + 4.0 * (rng.unit_f32() - 0.5),
                0.0,
            ];
            paths.push(Segment::new(p, q));
            p = q;
        }
    }

    let t = Instant::now();
    let blocked: Vec<Hit> = par_pairs_within(&paths, &wall_set, CLEARANCE);
    let wall_time = t.elapsed();
    // First blocked step of each agent (hits are sorted by path piece).
    let mut first_block = vec![None; agents];
    for h in &blocked {
        let piece = h.i as usize;
        first_block[piece / STEPS].get_or_insert((piece % STEPS, h.j, h.distance()));
    }
    let stuck = first_block.iter().filter(|b| b.is_some()).count();

    let t = Instant::now();
    // Consecutive pieces of one path share an end point: skip them.
    let conflicts = par_self_pairs_within(&paths, CLEARANCE, SharedEndpoints::Skip);
    let agent_time = t.elapsed();
    let between_agents = conflicts
        .iter()
        .filter(|h| h.i as usize / STEPS != h.j as usize / STEPS)
        .count();

    let tests = paths.len() * wall_set.len();
    println!("{agents} agents x {STEPS} steps against {walls} walls, clearance {CLEARANCE}");
    println!(
        "paths vs walls: {} close pairs, {stuck} agents blocked, {wall_time:.2?} ({:.0} M pair tests/s)",
        blocked.len(),
        tests as f64 / wall_time.as_secs_f64() / 1e6
    );
    if let Some((g, (step, wall, d))) = first_block
        .iter()
        .enumerate()
        .find_map(|(g, b)| b.map(|b| (g, b)))
    {
        println!("  e.g. agent {g} comes within {d:.3} of wall {wall} on step {step}");
    }
    let n = paths.len();
    println!(
        "paths vs paths: {} close pairs ({between_agents} between different agents), {agent_time:.2?} ({:.0} M pair tests/s)",
        conflicts.len(),
        (n * (n - 1) / 2) as f64 / agent_time.as_secs_f64() / 1e6
    );
}
